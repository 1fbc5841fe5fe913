/* triangular_bending_springs.c - TriangularBendingSprings: for every edge
 * shared by exactly two triangles, a linear spring between the two vertices
 * opposite the edge, as SOFA builds them.
 *
 * Triangles are visited in order, and each one's sides j = 0, 1, 2 (side j
 * is the edge opposite vertex j); the first visit of an edge decides it: with
 * two triangles around it, m1 is the vertex opposite the edge in the other
 * triangle, m2 the one in the visiting triangle (so m2 lies in the lower
 * triangle), rest length |x0[m1] - x0[m2]|, ks = stiffness, kd = damping.
 * Springs are kept in edge order. The force is SOFA's spring law (see
 * springs.c), with no force below a length of 1e-4. SOFA's
 * getPotentialEnergy is not implemented (0 with an error); here the energy
 * is the springs' sum of ks (d - L0)^2 / 2, the value SOFA accumulates in
 * addForce. */
#include "springs.h"

typedef struct tri_bending {
    spring_head h;
    double ks;            /* "stiffness" */
    double kd;            /* "damping" */
    bool show_springs;    /* "showSprings" */
    st_component *topology;
} tri_bending;

static st_status tbs_init(st_component *self, st_error *err)
{
    tri_bending *b = (tri_bending *)self;
    springs_free(&b->h.set);
    st_mstate *ms = NULL;
    const st_array *tris = NULL;
    elem_edges ee;
    ST_TRY(bending_elements(self, &b->topology, &ms, ST_T_TRIANGLES, 3, &tris, &ee, err));
    b->h.set.ms1 = b->h.set.ms2 = ms;
    b->h.set.min_length = 1.0e-4;
    if (!tris && bending_rebuilding()) /* every triangle removed: no spring left */
        return springs_finish(&b->h.set, err);
    if (!tris)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "object must have a Triangular Set Topology ('%s' has no "
                                  "triangles)",
                                  b->topology->name);
    /* m1 opposite the edge in the other triangle, m2 in the visiting one. */
    st_status s = ST_OK;
    for (size_t k = 0; k < ee.n_edges && s == ST_OK; k++) {
        edge_visit v;
        if (elem_edges_visit(&ee, 3, k, false, &v))
            s = springs_push_rest(&b->h.set, ms->rest_position.r, tris->u[3 * v.o + v.jo],
                                  tris->u[3 * v.e + v.j], b->ks, b->kd, err);
    }
    elem_edges_free(&ee);
    ST_TRY(s);
    ST_TRY(springs_finish(&b->h.set, err));
    return bending_follow(self, b->topology, err);
}

static void tbs_cleanup(st_component *self) { springs_free(&((tri_bending *)self)->h.set); }

static const st_field tbs_fields[] = {
    ST_REAL_RANGE(tri_bending, ks, "stiffness", "100000", "uniform stiffness for the all springs",
                  0.0, 1e300),
    ST_REAL_RANGE(tri_bending, kd, "damping", "1", "uniform damping for the all springs", 0.0,
                  1e300),
    ST_IGNORED(tri_bending, show_springs, "showSprings", ST_T_BOOL, bool, "true",
               "option to draw springs"),
    SPRING_F_RAYLEIGH_HEAD(tri_bending),
    ST_LINK(tri_bending, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ST_FIELD_END};

const st_class triangular_bending_springs_class = {
    .struct_size = sizeof(st_class),
    .name = "TriangularBendingSprings",
    .category = "ForceField",
    .description = "Springs between the vertices opposite each edge shared by two triangles "
                   "(bending resistance of a triangulated surface)",
    .instance_size = sizeof(tri_bending),
    .fields = tbs_fields,
    .init = tbs_init,
    .cleanup = tbs_cleanup,
    .forcefield = &spring_head_ops,
};
