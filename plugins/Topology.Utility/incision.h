/* incision.h - cutting a triangle surface along a segment (SOFA's
 * TriangleSetGeometryAlgorithms computeIntersectedObjectsList,
 * SplitAlongPath and InciseAlongEdgeList), for TopologicalChangeProcessor's
 * INCISE= commands. Internal to the plugin. */
#ifndef TOPOLOGY_UTILITY_INCISION_H
#define TOPOLOGY_UTILITY_INCISION_H

#include <limits.h>
#include <settee/settee.h>

/* A growing list of indices. */
typedef struct ulist {
    unsigned *u;
    size_t n, cap;
} ulist;
bool ulist_push(ulist *l, unsigned v);

/* SOFA's around-arrays of a triangle container, kept in SOFA's orders
 * (incision_shells.c): trianglesAroundVertex (tav), edgesAroundVertex
 * (eav), trianglesAroundEdge (tae), edgesInTriangle (tedges), and the
 * triangles and edges they were made for. */
typedef struct inc_shells {
    st_component *topo;
    bool valid;
    ulist tris, tedges, edges;
    ulist *tav, *eav, *tae;
    size_t np, ne, cap_p, cap_pe, cap_e;
} inc_shells;

/* Builds them from the container as SOFA's init does. */
bool inc_shells_build(inc_shells *s, st_component *topo);
/* Applies a change's events (from st_topology_listen). */
st_status inc_shells_apply(inc_shells *s, const st_topo_event *ev, size_t nev, st_error *err);
/* Whether they still describe the container's triangles and edges. */
bool inc_shells_current(const inc_shells *s);
/* SOFA's getEdgeIndex(a, b): the first edge around a that reaches b. */
unsigned inc_shells_edge(const inc_shells *s, unsigned a, unsigned b);
void inc_shells_free(inc_shells *s);
/* Writes them to a checkpoint, or reads them back. */
st_status inc_shells_transfer(inc_shells *s, st_checkpoint *ck, st_error *err);

/* SOFA's TopologicalChangeProcessor::findElementIndex: the triangle that
 * holds x (its box, then SOFA's inside test), old if it is one of them, the
 * only one, else the first (or old) that holds x's projection on its plane;
 * false when none does. */
bool incision_find(st_component *topo, const double x[3], unsigned old, unsigned *tri);

/* SOFA's computeTriangleBarycoefs of x in triangle tri, as it computes. */
bool incision_sofa_weights(st_component *topo, unsigned tri, const double x[3], double w[3]);

/* The current position of a point of the topology's state. */
bool incision_point(st_component *topo, unsigned p, double x[3]);

/* Cuts the triangle surface of topo from a to b (current positions of its
 * state): the path is split into edges, new points on the crossed edges
 * (ancestors: the edge's ends) and at its ends (ancestors: the triangle's
 * vertices), the crossed triangles replaced; then the path's points are
 * duplicated (ancestor: the point, weight 1) and the triangles on its left
 * take the copies, as SOFA's InciseAlongEdgeList. start: a point of the
 * topology to start from (SOFA's a_last) or UINT_MAX. An edge crossing
 * closer than eps_path (a fraction of the edge) to a vertex goes through the
 * vertex; an end point closer than eps_border (a barycentric weight) to a
 * border edge goes onto it, so that the cut opens there. *end: the last
 * point of the path when it is inside the surface (UINT_MAX on a border);
 * *border: whether the cut reached a border. *refused: the path could not
 * be made (nothing changed; SOFA's "Invalid path"). */
/* sh: SOFA's around-arrays of topo (made again when they no longer match
 * it). ta: the triangle written before a in the change file (SOFA's
 * ind_ta), or UINT_MAX to find a's triangle from its coordinates; tb: b's
 * (SOFA's ind_tb), or UINT_MAX (SOFA's: the last triangle the walk met). */
st_status incision_cut(st_component *owner, st_component *topo, inc_shells *sh,
                       unsigned start, unsigned ta, unsigned tb, const double a[3],
                       const double b[3], double eps_path, double eps_border, unsigned *end,
                       bool *border, bool *refused, st_error *err);

#endif
