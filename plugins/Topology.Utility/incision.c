/* incision.c - cutting a triangle surface along a segment, as SOFA's
 * TriangleSetGeometryAlgorithms does for TopologicalChangeProcessor's
 * INCISE= commands, in SOFA's stages and orders:
 *
 * 1. the path (computeIntersectedPointsList / computeIntersectedObjectsList,
 *    with SOFA's segment-triangle test as it computes): the first point (a
 *    point of the surface, SOFA's a_last, or a point inside its triangle),
 *    each edge the segment a-b crosses in the triangles' planes (its weight
 *    on the container's second end; a vertex crossed is an edge point of
 *    weight 0 or 1), the last point (inside b's triangle, or the vertex
 *    whose weight passes 0.9999). The walk reads SOFA's around-arrays
 *    (incision_shells.c).
 * 2. SnapAlongPath (epsilonSnapPath != 0): a vertex that a crossing comes
 *    closer to than epsilonSnapPath (an edge weight), or an end inside a
 *    triangle with the vertex's weight above 1 - epsilonSnapPath, gathers
 *    every path point on its edges (and those ends); when it gathers two or
 *    more and is not on a border, the first becomes the vertex, the others
 *    leave the path, and the vertex moves to their mean (seen from its two
 *    path neighbours, as SOFA's movePointsProcess: every vector of the
 *    state is remade from the neighbours' values with the weights the mean's
 *    distances to them give), last, after the triangles of stage 4 (SOFA's
 *    order: the new triangles' data are made on the places before it).
 * 3. SnapBorderPath (epsilonSnapBorder != 0): an end inside a triangle with
 *    a weight below epsilonSnapBorder goes onto the opposite edge when that
 *    edge is a border (its projection there), or onto the vertex whose
 *    weight passes 1 - epsilonSnapBorder (the path points around it drop).
 * 4. SplitAlongPath: the new points (path order), then for each piece of
 *    the path the triangle it crosses is replaced by 2 to 5 triangles in
 *    SOFA's vertex orders (a quad split by the Delaunay test), the new
 *    edges added first (sorted pairs), the new triangles, the old ones
 *    removed (SOFA's addRemoveTriangles).
 * 5. InciseAlongEdgeList: the path's points but an inner end are
 *    duplicated (ancestor: the point, weight 1); the side that takes the
 *    copies is the one of the first triangle around the first path edge
 *    (SOFA's trianglesAroundEdge[0], from its around-arrays); the
 *    triangles turned around each path point are replaced by copies in
 *    increasing index order.
 *
 * Each stage sends SOFA's events (points added, edges added, triangles
 * added, triangles removed) through st_topology_add_points, st_topology_add
 * and st_topology_remove: every component that follows the topology
 * follows. */
#include "incision.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { PP_VERTEX, PP_EDGE, PP_INSIDE } pp_kind;

/* A point of the path (SOFA's POINT, EDGE and TRIANGLE elements). */
typedef struct path_pt {
    pp_kind kind;
    unsigned v;     /* PP_VERTEX: the vertex */
    unsigned e[2];  /* PP_EDGE: the edge's ends as the container stores them; */
    double s;       /* the point is (1 - s) e0 + s e1 */
    unsigned tri;   /* PP_INSIDE: the triangle and the weights of its vertices */
    double w[3];
    unsigned id;    /* the point's index once it exists */
} path_pt;

#define MAX_PATH 1024

typedef struct mesh {
    const unsigned *t; /* triangles, 3 per triangle */
    size_t nt;
    const unsigned *e; /* the container's edges, 2 per edge (NULL: it keeps none) */
    size_t ne;
    const double *x;   /* the state's positions, 3 per point */
    size_t np;
    st_mstate *ms;
    const inc_shells *sh; /* SOFA's around-arrays */
} mesh;

static void sofa_bary(const mesh *m, unsigned k, const double *x, double w[3]);

static bool get_mesh(st_component *topo, mesh *m)
{
    const st_topology_ops *ops = topo->cls->topology;
    const st_array *tris = ops && ops->elements ? ops->elements(topo, ST_T_TRIANGLES) : NULL;
    const st_array *edges = ops && ops->elements ? ops->elements(topo, ST_T_EDGES) : NULL;
    st_mstate *ms = st_node_mstate(topo->node);
    if (!tris || !ms || !ms->type || ms->type->coord_size != 3)
        return false;
    m->t = tris->u;
    m->nt = tris->n;
    m->e = edges ? edges->u : NULL;
    m->ne = edges ? edges->n : 0;
    m->ms = ms;
    m->x = ms->position.r;
    m->np = ms->n;
    return true;
}

static void sub(const double *a, const double *b, double *o)
{
    o[0] = a[0] - b[0];
    o[1] = a[1] - b[1];
    o[2] = a[2] - b[2];
}
static double dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* Barycentric weights of x projected on the plane of triangle k; returns
 * the distance to the plane (-1 for a degenerate triangle). */
static double bary(const mesh *m, size_t k, const double *x, double w[3])
{
    const double *p0 = m->x + 3 * (size_t)m->t[3 * k], *p1 = m->x + 3 * (size_t)m->t[3 * k + 1],
                 *p2 = m->x + 3 * (size_t)m->t[3 * k + 2];
    double e1[3], e2[3], d[3], n[3];
    sub(p1, p0, e1);
    sub(p2, p0, e2);
    sub(x, p0, d);
    cross(e1, e2, n);
    double nn = dot(n, n);
    if (nn <= 1e-300)
        return -1.0;
    double c1[3], c2[3];
    cross(d, e2, c1);
    cross(e1, d, c2);
    w[1] = dot(c1, n) / nn;
    w[2] = dot(c2, n) / nn;
    w[0] = 1.0 - w[1] - w[2];
    return fabs(dot(d, n)) / sqrt(nn);
}

static bool locate_in(const mesh *m, const double *x, unsigned *tri, double w[3])
{
    const double tol = 1e-9;
    double best = INFINITY;
    bool found = false;
    for (size_t k = 0; k < m->nt; k++) {
        double wk[3];
        double dist = bary(m, k, x, wk);
        if (dist < 0 || wk[0] < -tol || wk[1] < -tol || wk[2] < -tol)
            continue;
        if (dist < best - 1e-12) {
            best = dist;
            *tri = (unsigned)k;
            memcpy(w, wk, sizeof wk);
            found = true;
        }
    }
    return found;
}

bool incision_sofa_weights(st_component *topo, unsigned tri, const double x[3], double w[3])
{
    mesh m;
    if (!get_mesh(topo, &m) || tri >= m.nt)
        return false;
    sofa_bary(&m, tri, x, w);
    return true;
}

/* Triangle k's vertex positions and its normal as SOFA's geometry
 * algorithms take it, (p2 - p0) x (p1 - p0). */
static void sofa_normal(const mesh *m, size_t k, const double *p[3], double nrm[3])
{
    const unsigned *t = m->t + 3 * k;
    for (int i = 0; i < 3; i++)
        p[i] = m->x + 3 * (size_t)t[i];
    double e20[3], e10[3];
    sub(p[2], p[0], e20);
    sub(p[1], p[0], e10);
    cross(e20, e10, nrm);
}

/* SOFA's isPointInsideTriangle (not tested further): x on the inner side
 * of the three side planes through the triangle's normal, within 1e-12. */
static bool sofa_inside(const mesh *m, size_t k, const double *x)
{
    const double *p[3];
    double nrm[3];
    sofa_normal(m, k, p, nrm);
    if (dot(nrm, nrm) == 0.0)
        return false;
    for (int i = 0; i < 3; i++) {
        double side[3], n[3], d[3];
        sub(p[(i + 1) % 3], p[i], side);
        cross(side, nrm, n);
        sub(x, p[i], d);
        if (!(dot(d, n) > -1e-12))
            return false;
    }
    return true;
}

bool incision_find(st_component *topo, const double x[3], unsigned old, unsigned *tri)
{
    mesh m;
    if (!get_mesh(topo, &m))
        return false;
    /* the triangles whose box holds x and that hold it: the old one, or
     * the only one */
    size_t count = 0, only = 0;
    for (size_t k = 0; k < m.nt; k++) {
        const unsigned *t = m.t + 3 * k;
        bool in_box = true;
        for (int c = 0; c < 3 && in_box; c++) {
            double a = m.x[3 * (size_t)t[0] + (size_t)c], b = m.x[3 * (size_t)t[1] + (size_t)c],
                   d = m.x[3 * (size_t)t[2] + (size_t)c];
            double lo = fmin(a, fmin(b, d)), hi = fmax(a, fmax(b, d));
            in_box = !(x[c] < lo || x[c] > hi);
        }
        if (!in_box || !sofa_inside(&m, k, x))
            continue;
        if (k == old) {
            *tri = old;
            return true;
        }
        count++;
        only = k;
    }
    if (count == 1) {
        *tri = (unsigned)only;
        return true;
    }
    /* else x projected on each triangle's plane: the old one, or the first */
    bool found = false;
    for (size_t k = 0; k < m.nt; k++) {
        const unsigned *t = m.t + 3 * k;
        const double *p0 = m.x + 3 * (size_t)t[0], *p1 = m.x + 3 * (size_t)t[1],
                     *p2 = m.x + 3 * (size_t)t[2];
        double e1[3], e2[3], n[3];
        sub(p1, p0, e1);
        sub(p2, p0, e2);
        cross(e1, e2, n);
        double nn = sqrt(dot(n, n));
        if (!nn)
            break; /* SOFA stops at a flat triangle */
        for (int c = 0; c < 3; c++)
            n[c] /= nn;
        double a = n[0], b = n[1], c = n[2];
        double d = -(p0[0] * a + p0[1] * b + p0[2] * c);
        double q[3] = {(b * b + c * c) * x[0] - a * b * x[1] - a * c * x[2] - d * a,
                       -a * b * x[0] + (a * a + c * c) * x[1] - b * c * x[2] - d * b,
                       -a * c * x[0] - b * c * x[1] + (a * a + b * b) * x[2] - d * c};
        if (!sofa_inside(&m, k, q))
            continue;
        if (k == old) {
            *tri = old;
            return true;
        }
        if (!found)
            *tri = (unsigned)k;
        found = true;
    }
    return found;
}

bool incision_point(st_component *topo, unsigned p, double x[3])
{
    mesh m;
    if (!get_mesh(topo, &m) || p >= m.np)
        return false;
    memcpy(x, m.x + 3 * (size_t)p, 3 * sizeof *x);
    return true;
}

/* The triangles holding both a and b (at most 2 on a manifold surface):
 * their count, the first two in out. */
static int tris_of_edge(const mesh *m, unsigned a, unsigned b, unsigned out[2])
{
    int n = 0;
    for (size_t k = 0; k < m->nt; k++) {
        const unsigned *t = m->t + 3 * k;
        bool ha = t[0] == a || t[1] == a || t[2] == a;
        bool hb = t[0] == b || t[1] == b || t[2] == b;
        if (ha && hb) {
            if (n < 2)
                out[n] = (unsigned)k;
            n++;
        }
    }
    return n;
}

static int slot_of(const unsigned *t, unsigned v)
{
    return t[0] == v ? 0 : t[1] == v ? 1 : t[2] == v ? 2 : -1;
}

/* The container's edge joining a and b, or UINT_MAX. */
static unsigned edge_id(const mesh *m, unsigned a, unsigned b)
{
    for (size_t k = 0; k < m->ne; k++)
        if ((m->e[2 * k] == a && m->e[2 * k + 1] == b) ||
            (m->e[2 * k] == b && m->e[2 * k + 1] == a))
            return (unsigned)k;
    return UINT_MAX;
}

/* (a, b) as the container stores that edge; sorted when it has none (as
 * SOFA's SplitAlongPath creates edges). */
static void edge_oriented(const mesh *m, unsigned a, unsigned b, unsigned o[2])
{
    unsigned k = edge_id(m, a, b);
    if (k != UINT_MAX) {
        o[0] = m->e[2 * (size_t)k];
        o[1] = m->e[2 * (size_t)k + 1];
    } else {
        o[0] = a < b ? a : b;
        o[1] = a < b ? b : a;
    }
}

/* Whether a and b are joined by an edge (of the container or a triangle). */
static bool joined(const mesh *m, unsigned a, unsigned b)
{
    unsigned o[2];
    return edge_id(m, a, b) != UINT_MAX || tris_of_edge(m, a, b, o) > 0;
}

/* Whether p is on a border: one of its edges has one triangle. */
static bool on_border(const mesh *m, unsigned p)
{
    for (size_t k = 0; k < m->nt; k++) {
        const unsigned *t = m->t + 3 * k;
        int s = slot_of(t, p);
        if (s < 0)
            continue;
        unsigned o[2];
        if (tris_of_edge(m, p, t[(s + 1) % 3], o) == 1 ||
            tris_of_edge(m, p, t[(s + 2) % 3], o) == 1)
            return true;
    }
    return false;
}

/* The triangle holding the edge (a, b) and the vertex c, or UINT_MAX. */
static unsigned tri_of(const mesh *m, unsigned a, unsigned b, unsigned c)
{
    for (size_t k = 0; k < m->nt; k++) {
        const unsigned *t = m->t + 3 * k;
        if (slot_of(t, a) >= 0 && slot_of(t, b) >= 0 && slot_of(t, c) >= 0)
            return (unsigned)k;
    }
    return UINT_MAX;
}

/* The slot of triangle k whose opposite edge is (a, b) (SOFA's edge slot in
 * edgesInTriangle), or -1. */
static int edge_slot(const mesh *m, unsigned k, unsigned a, unsigned b)
{
    const unsigned *t = m->t + 3 * (size_t)k;
    for (int j = 0; j < 3; j++) {
        unsigned p = t[(j + 1) % 3], q = t[(j + 2) % 3];
        if ((p == a && q == b) || (p == b && q == a))
            return j;
    }
    return -1;
}

/* SOFA's Edge::getBarycentricCoordinates: the distances of x to b and to a
 * over the length of a-b. */
static void edge_coefs(const double *a, const double *b, const double *x, double c[2])
{
    double ab[3], xa[3], xb[3];
    sub(b, a, ab);
    sub(x, a, xa);
    sub(x, b, xb);
    double d = sqrt(dot(ab, ab));
    if (d < 1e-6) {
        c[0] = c[1] = 0.5;
        return;
    }
    c[0] = sqrt(dot(xb, xb)) / d;
    c[1] = sqrt(dot(xa, xa)) / d;
}

/* Position of a path point. */
static void pt_pos(const mesh *m, const path_pt *q, double *o)
{
    if (q->kind == PP_VERTEX) {
        memcpy(o, m->x + 3 * (size_t)q->v, 3 * sizeof *o);
    } else if (q->kind == PP_EDGE) {
        const double *a = m->x + 3 * (size_t)q->e[0], *b = m->x + 3 * (size_t)q->e[1];
        for (int i = 0; i < 3; i++)
            o[i] = (1 - q->s) * a[i] + q->s * b[i];
    } else {
        const unsigned *t = m->t + 3 * (size_t)q->tri;
        for (int i = 0; i < 3; i++)
            o[i] = q->w[0] * m->x[3 * (size_t)t[0] + (size_t)i] +
                   q->w[1] * m->x[3 * (size_t)t[1] + (size_t)i] +
                   q->w[2] * m->x[3 * (size_t)t[2] + (size_t)i];
    }
}
/* SOFA's compute3PointsBarycoefs of x in the triangle (pa, pb, pc), as it
 * computes. */
static void three_point_coefs(const double *pa, const double *pb, const double *pc,
                              const double *x, double w[3])
{
    double ab[3], ac[3], mm[3];
    sub(pb, pa, ab);
    sub(pc, pa, ac);
    cross(ab, ac, mm);
    double n2 = dot(mm, mm);
    if (n2 < 1e-12) {
        w[0] = w[1] = 1.0 / 3.0;
        w[2] = 1.0 - (w[0] + w[1]);
        return;
    }
    double nn[3] = {mm[0] / n2, mm[1] / n2, mm[2] / n2}, u[3], v[3], c[3];
    sub(pb, x, u);
    sub(pc, x, v);
    cross(u, v, c);
    w[0] = dot(nn, c);
    sub(pa, x, u);
    cross(v, u, c);
    w[1] = dot(nn, c);
    w[2] = 1.0 - (w[0] + w[1]);
}

/* The same in triangle k. */
static void sofa_bary(const mesh *m, unsigned k, const double *x, double w[3])
{
    const unsigned *t = m->t + 3 * (size_t)k;
    three_point_coefs(m->x + 3 * (size_t)t[0], m->x + 3 * (size_t)t[1], m->x + 3 * (size_t)t[2],
                      x, w);
}

/* SOFA's `indices` of the path walk: the edge the last intersection left
 * through. Like SOFA's vector, a failed test empties it but leaves its
 * values readable (stale), which the walk reads. */
typedef struct walk_ind {
    unsigned v[2];
    int n;
} walk_ind;

/* One side (p, q) of the triangle, of SOFA's computeSegmentTriangleIntersection. */
static void side_test(const double *p, const double *q, const double *pa, const double *pb_proj,
                      const double *n_proj, const double *nrm, double norm2_ab, double *kk,
                      double *tt, bool *hit)
{
    double pq[3], np_[3], d1[3], d2[3];
    sub(q, p, pq);
    cross(pq, nrm, np_); /* n_pq = (q - p) x normal */
    sub(p, q, d1);
    double s_t = dot(d1, n_proj);
    sub(pa, pb_proj, d2);
    double s_k = dot(d2, np_);
    if (s_t == 0.0) {
        double pp[3];
        sub(p, pa, pp);
        if (dot(pp, n_proj) == 0.0) {
            double u[3], v[3];
            sub(pa, p, u);
            sub(pa, q, v);
            double c1 = dot(u, d2) / norm2_ab, c2 = dot(v, d2) / norm2_ab;
            if (c1 >= 0) {
                *kk = c1;
                *tt = 0.0;
            } else {
                *kk = c2;
                *tt = 1.0;
            }
            *hit = *kk > 0.0 && *tt >= 0.0 && *tt <= 1.0;
        } else {
            *hit = false;
        }
    } else {
        double u[3], v[3];
        sub(pa, p, u);
        sub(p, pa, v);
        *kk = dot(u, np_) * 1.0 / s_k;
        *tt = dot(v, n_proj) * 1.0 / s_t;
        *hit = *kk > 0.0 && *tt >= 0.0 && *tt <= 1.0;
    }
}

/* SOFA's computeSegmentTriangleIntersection: where the segment a-b, taken
 * in the plane of triangle k from a, leaves k (the side with the largest
 * segment parameter; entered: not the side ind names). */
static bool seg_tri(const mesh *m, bool entered, const double *a, const double *b, unsigned k,
                    walk_ind *ind, double *bary, double *kmin)
{
    unsigned first = 0, second = 0;
    if (ind->n > 1) {
        first = ind->v[0];
        second = ind->v[1];
    }
    ind->n = 0;
    const unsigned *t = m->t + 3 * (size_t)k;
    bool full[3];
    for (int i = 0; i < 3; i++) {
        unsigned p = t[i], q = t[(i + 1) % 3];
        full[i] = entered && ((p == first && q == second) || (q == first && p == second));
    }
    const double *p[3];
    double nrm[3];
    sofa_normal(m, k, p, nrm);
    double nn = sqrt(dot(nrm, nrm));
    if (nn == 0.0)
        return false;
    for (int i = 0; i < 3; i++)
        nrm[i] /= nn;
    double ab[3], abp[3], pbp[3], n_proj[3];
    sub(b, a, ab);
    double h = dot(ab, nrm);
    for (int i = 0; i < 3; i++) {
        abp[i] = ab[i] - nrm[i] * h;
        pbp[i] = abp[i] + a[i];
    }
    cross(abp, nrm, n_proj);
    double norm2 = dot(abp, abp);
    if (norm2 == 0.0)
        return false;
    bool init = false, valid = false;
    *kmin = 0.0;
    for (int i = 0; i < 3; i++) {
        if (full[i])
            continue;
        double kk = 0, tt = 0;
        bool hit;
        side_test(p[i], p[(i + 1) % 3], a, pbp, n_proj, nrm, norm2, &kk, &tt, &hit);
        if (hit) {
            if (!init || kk > *kmin) {
                ind->v[0] = t[i];
                ind->v[1] = t[(i + 1) % 3];
                ind->n = 2;
                *bary = tt;
                *kmin = kk;
            }
            init = true;
        }
        valid = valid || init;
    }
    return valid;
}

/* Stage 1: SOFA's computeIntersectedPointsList and
 * computeIntersectedObjectsList, as they compute: from a (or the point
 * start) the walk leaves each triangle by the side its intersection test
 * picks; at an edge it enters the other triangles around that edge, at a
 * vertex (an edge met at its weight 0 or 1 exactly) those around the
 * vertex, keeping the one whose exit is nearest to b; every crossing is an
 * edge point, a crossing through a vertex too (its weight 0 or 1). The
 * last point is b in its triangle tb (a vertex when its weight passes
 * 0.9999). The lists are SOFA's around-arrays (incision_shells.c). */
static st_status make_path(st_component *owner, const mesh *m, unsigned start, unsigned ta,
                           unsigned tb, const double *a, const double *b, path_pt *pts,
                           size_t *npts, st_error *err)
{
    const inc_shells *sh = m->sh;
    size_t n = 0;
    double wa[3];
    if (start != UINT_MAX) {
        a = m->x + 3 * (size_t)start;
    } else if (ta == UINT_MAX) {
        if (!locate_in(m, a, &ta, wa))
            return st_component_error(owner, NULL, err, ST_ESCENE,
                                      "the incision's first point (%g %g %g) is on no triangle",
                                      a[0], a[1], a[2]);
    } else if (ta >= m->nt) {
        return st_component_error(owner, NULL, err, ST_ESCENE,
                                  "the incision's first triangle %u is not one of the %zu "
                                  "triangles",
                                  ta, m->nt);
    }
    /* a first point outside ta is walked from ta as SOFA walks it: the
     * sides of ta its segment meets ahead of it */
    if (tb != UINT_MAX && tb >= m->nt)
        tb = UINT_MAX;
    walk_ind ind = {{0, 0}, 0};
    double ct = 0, ck = 0;
    unsigned cur = ta;
    /* from a_last, a stale ind_ta that is no longer a triangle (SOFA would
     * read past its arrays) counts as not left: the triangles around a_last
     * are tried */
    bool hit = ta < m->nt && seg_tri(m, false, a, b, cur, &ind, &ct, &ck);
    if (start != UINT_MAX && (!hit || ind.v[0] == start || ind.v[1] == start)) {
        const ulist *shell = &sh->tav[start];
        for (size_t i = 0; i < shell->n; i++) {
            if (shell->u[i] != cur)
                hit = seg_tri(m, false, a, b, shell->u[i], &ind, &ct, &ck);
            if (hit && ind.v[0] != start && ind.v[1] != start) {
                cur = shell->u[i];
                ta = cur;
                break;
            }
        }
    }
    if (ta >= m->nt)
        return st_component_error(owner, NULL, err, ST_ESCENE,
                                  "the incision from point %u finds no first triangle around it",
                                  start);
    if (ta == tb)
        return st_component_error(owner, NULL, err, ST_ESCENE,
                                  "the incision from (%g %g %g) to (%g %g %g) lies in one "
                                  "triangle (%u): SOFA's cut is not reached",
                                  a[0], a[1], a[2], b[0], b[1], b[2], ta);
    if (start != UINT_MAX)
        pts[n++] = (path_pt){.kind = PP_VERTEX, .v = start};
    else {
        pts[n] = (path_pt){.kind = PP_INSIDE, .tri = ta};
        sofa_bary(m, ta, a, pts[n].w);
        n++;
    }
    double kt = ck, dmin;
    double ab[3];
    sub(b, a, ab);
    dmin = dot(ab, ab);
    bool valid = true;
    unsigned last_tri = ta;
    size_t guard = 0;
    while (kt < 1.0 && valid && hit) {
        if (++guard > 4 * m->nt + 16 || n + 2 >= MAX_PATH)
            return st_component_error(owner, NULL, err, ST_ESCENE,
                                      "the incision from (%g %g %g) to (%g %g %g) does not end "
                                      "(SOFA's walk turns round)",
                                      a[0], a[1], a[2], b[0], b[1], b[2]);
        unsigned e = inc_shells_edge(sh, ind.v[0], ind.v[1]);
        if (e == UINT_MAX)
            return st_component_error(owner, NULL, err, ST_ESCENE,
                                      "the incision crosses %u-%u, which is no edge", ind.v[0],
                                      ind.v[1]);
        const unsigned *ev = sh->edges.u + 2 * (size_t)e;
        pts[n++] = (path_pt){.kind = PP_EDGE, .e = {ev[0], ev[1]},
                             .s = ev[0] == ind.v[0] ? ct : 1.0 - ct};
        const double *x0 = m->x + 3 * (size_t)ind.v[0], *x1 = m->x + 3 * (size_t)ind.v[1];
        double pc[3];
        for (int i = 0; i < 3; i++)
            pc[i] = (1.0 - ct) * x0[i] + ct * x1[i];
        const ulist *shell;
        size_t need;
        if (ct == 0.0 || ct == 1.0) {
            shell = &sh->tav[ct == 0.0 ? ind.v[0] : ind.v[1]];
            need = 2;
        } else {
            shell = &sh->tae[e];
            need = 1;
        }
        if (!shell->n)
            return st_component_error(owner, NULL, err, ST_ESCENE,
                                      "the incision crosses %u-%u, which no triangle holds",
                                      ind.v[0], ind.v[1]);
        last_tri = shell->u[0];
        unsigned from = cur;
        bool tested = false;
        if (shell->n >= need) {
            for (size_t i = 0; i < shell->n; i++) {
                if (shell->u[i] == from)
                    continue;
                last_tri = shell->u[i];
                hit = seg_tri(m, true, pc, b, last_tri, &ind, &ct, &ck);
                if (!hit)
                    continue;
                const double *y0 = m->x + 3 * (size_t)ind.v[0],
                             *y1 = m->x + 3 * (size_t)ind.v[1];
                double q[3], d[3];
                for (int c = 0; c < 3; c++)
                    q[c] = (1.0 - ct) * y0[c] + ct * y1[c];
                sub(b, q, d);
                double dt = dot(d, d);
                if (!tested || (dt < dmin && ck <= 1)) {
                    kt = ck;
                    dmin = dt;
                    cur = last_tri;
                }
                tested = true;
            }
            hit = tested;
        } else {
            valid = false; /* SOFA's is_on_boundary: a vertex of one triangle */
        }
    }
    if (tb == UINT_MAX)
        tb = last_tri;
    if (!(tb == last_tri && kt >= 1.0 && valid && hit))
        return st_component_error(owner, NULL, err, ST_ESCENE,
                                  "the incision from (%g %g %g) to (%g %g %g) does not reach "
                                  "its last triangle %u (SOFA's invalid path: it meets a border "
                                  "or leaves the surface)",
                                  a[0], a[1], a[2], b[0], b[1], b[2], tb);
    path_pt q = {.kind = PP_INSIDE, .tri = tb};
    sofa_bary(m, tb, b, q.w);
    for (int j = 0; j < 3; j++)
        if (q.w[j] > 0.9999) {
            q.kind = PP_VERTEX;
            q.v = m->t[3 * (size_t)tb + (size_t)j];
            break;
        }
    pts[n++] = q;
    *npts = n;
    return ST_OK;
}

/* Removes path point i. */
static void drop(path_pt *pts, size_t *n, size_t i)
{
    memmove(pts + i, pts + i + 1, (*n - i - 1) * sizeof *pts);
    (*n)--;
}

/* A vertex that gathers path points (SOFA's points2Snap). */
typedef struct snap {
    unsigned v;
    double x[3];       /* the mean of its path points */
    unsigned anc[3];   /* the points its new place is made of, once known */
    unsigned nanc;
} snap;

typedef struct snap_list {
    snap *s;
    size_t n;
} snap_list;

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

/* Stage 2: SOFA's SnapAlongPath. */
static st_status snap_along_path(const mesh *m, path_pt *pts, size_t *n, double eps,
                                 snap_list *out, st_error *err)
{
    out->n = 0;
    unsigned *cand = st_malloc((*n + 1) * sizeof *cand);
    size_t *cnt = st_calloc(*n + 1, sizeof *cnt);
    unsigned *member = st_malloc((*n + 1) * sizeof *member);
    double *sum = st_calloc(3 * (*n + 1), sizeof *sum);
    bool *gone = st_calloc(*n + 1, sizeof *gone);
    if (!cand || !cnt || !member || !sum || !gone) {
        st_free(cand), st_free(cnt), st_free(member), st_free(sum), st_free(gone);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    size_t nc = 0;
    for (size_t i = 0; i < *n; i++) {
        unsigned v = UINT_MAX;
        if (pts[i].kind == PP_EDGE) {
            if (pts[i].s < eps)
                v = pts[i].e[0];
            else if (pts[i].s > 1 - eps)
                v = pts[i].e[1];
        } else if (pts[i].kind == PP_INSIDE) {
            for (int j = 0; j < 3 && v == UINT_MAX; j++)
                if (pts[i].w[j] > 1 - eps)
                    v = m->t[3 * (size_t)pts[i].tri + (size_t)j];
        }
        bool known = v == UINT_MAX;
        for (size_t k = 0; k < nc && !known; k++)
            known = cand[k] == v;
        if (!known)
            cand[nc++] = v;
    }
    /* SOFA keeps them in a map: increasing vertex index */
    qsort(cand, nc, sizeof *cand, cmp_unsigned);
    for (size_t i = 0; i < *n; i++) {
        member[i] = UINT_MAX;
        unsigned ends[3];
        int ne = 0;
        if (pts[i].kind == PP_VERTEX) {
            ends[ne++] = pts[i].v;
        } else if (pts[i].kind == PP_EDGE) {
            ends[ne++] = pts[i].e[0];
            ends[ne++] = pts[i].e[1];
        } else {
            for (int j = 0; j < 3; j++)
                if (pts[i].w[j] > 1 - eps)
                    ends[ne++] = m->t[3 * (size_t)pts[i].tri + (size_t)j];
        }
        for (int j = 0; j < ne && member[i] == UINT_MAX; j++)
            for (size_t k = 0; k < nc; k++)
                if (cand[k] == ends[j]) {
                    member[i] = (unsigned)k;
                    double x[3];
                    pt_pos(m, &pts[i], x);
                    for (int c = 0; c < 3; c++)
                        sum[3 * k + (size_t)c] += x[c];
                    cnt[k]++;
                    break;
                }
    }
    /* a vertex on a border is not moved; one that gathers one point only
     * neither (SOFA: a border case or a cut made again) */
    snap *s = nc ? st_malloc(nc * sizeof *s) : NULL;
    if (nc && !s) {
        st_free(cand), st_free(cnt), st_free(member), st_free(sum), st_free(gone);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < nc; k++) {
        if (on_border(m, cand[k]) || cnt[k] < 2)
            continue;
        snap *q = &s[out->n++];
        q->v = cand[k];
        q->nanc = 0;
        for (int c = 0; c < 3; c++)
            q->x[c] = sum[3 * k + (size_t)c] / (double)cnt[k];
        bool first = true;
        for (size_t i = 0; i < *n; i++) {
            if (member[i] != k)
                continue;
            if (first) {
                pts[i] = (path_pt){.kind = PP_VERTEX, .v = cand[k]};
                first = false;
            } else {
                gone[i] = true;
            }
        }
    }
    for (size_t i = *n; i-- > 0;)
        if (gone[i])
            drop(pts, n, i);
    out->s = s;
    st_free(cand), st_free(cnt), st_free(member), st_free(sum), st_free(gone);
    return ST_OK;
}

/* SOFA's computePointProjectionOnEdge, as it computes: the projection is
 * the meeting of the edge with a segment from x that points away from the
 * edge's line (1e6 times the edge's squared length times x's distance
 * long), found by the closest points of the two lines within SOFA's
 * equality threshold 1e-6. So it succeeds only when x is within 1e-3 of
 * the line, inside the edge's span, and the edge is longer than 1 (the
 * segment's parameter of the meeting, -1 / (1e6 |e|^2), rounds to 0 then);
 * or when x is on the line at the edge's first end. *s: the weight on e1. */
static bool project_on_edge(const mesh *m, const unsigned e[2], const double *x, double *s)
{
    const double thr = 1e-6;
    const double *p0 = m->x + 3 * (size_t)e[0], *p1 = m->x + 3 * (size_t)e[1];
    double ab[3], ax[3], c[3];
    sub(p1, p0, ab);
    sub(x, p0, ax);
    cross(ab, ax, c);
    double ll = dot(ab, ab);
    if (dot(c, c) == 0) { /* x on the line: a null segment, met at e0 only */
        if (dot(ax, ax) > thr)
            return false;
        *s = 0;
        return true;
    }
    double beta = -1.0 / (1e6 * ll);
    if (fabs(beta) < thr)
        beta = 0;
    if (beta < 0)
        return false;
    double u = dot(ax, ab) / ll;
    if (fabs(u) < thr)
        u = 0;
    else if (fabs(1 - u) < thr)
        u = 1;
    if (u < 0 || u > 1)
        return false;
    double h[3], d[3], cf[2];
    for (int i = 0; i < 3; i++)
        h[i] = p0[i] + u * ab[i];
    sub(x, h, d);
    if (dot(d, d) > thr)
        return false;
    edge_coefs(p0, p1, h, cf);
    *s = cf[1];
    return true;
}

/* SnapBorderPath for one end: at is 0 (the first point) or the last. */
static void snap_border_end(const mesh *m, path_pt *pts, size_t *n, bool last, const double *x,
                            double eps)
{
    size_t at = last ? *n - 1 : 0;
    path_pt *p = &pts[at];
    if (p->kind != PP_INSIDE)
        return;
    const unsigned *t = m->t + 3 * (size_t)p->tri;
    for (int i = 0; i < 3; i++) {
        if (!(p->w[i] < eps))
            continue;
        unsigned a = t[(i + 1) % 3], b = t[(i + 2) % 3], o[2];
        if (tris_of_edge(m, a, b, o) > 1) {
            /* onto a vertex, not onto an inner edge */
            bool found = false;
            unsigned v = 0;
            for (int j = 0; j < 3; j++)
                if (p->w[j] > 1 - eps) {
                    v = t[j];
                    *p = (path_pt){.kind = PP_VERTEX, .v = v};
                    found = true;
                    break;
                }
            if (*n <= 2)
                return;
            /* the path points next to it on its edges, or on it, leave */
            while (found && *n > 1) {
                size_t k = last ? *n - 2 : 1;
                bool moved = false;
                if (pts[k].kind == PP_EDGE && (pts[k].e[0] == v || pts[k].e[1] == v)) {
                    drop(pts, n, k);
                    moved = true;
                } else if (pts[k].kind == PP_VERTEX && pts[k].v == v) {
                    drop(pts, n, k);
                    moved = true;
                } else if (pts[k].kind == PP_INSIDE) {
                    found = false;
                }
                if (!moved)
                    found = false;
            }
            return;
        }
        unsigned e[2];
        edge_oriented(m, a, b, e);
        size_t nb = last ? *n - 2 : 1;
        if (*n >= 2 && pts[nb].kind == PP_EDGE &&
            ((pts[nb].e[0] == e[0] && pts[nb].e[1] == e[1]) ||
             (pts[nb].e[0] == e[1] && pts[nb].e[1] == e[0]))) {
            drop(pts, n, at); /* SOFA's "unexpected case": the end goes */
            return;
        }
        double s;
        if (!project_on_edge(m, e, x, &s))
            continue;
        *p = (path_pt){.kind = PP_EDGE, .e = {e[0], e[1]}, .s = s};
        return;
    }
}

/* Stage 3: SOFA's SnapBorderPath; start: the path's first point when it
 * starts on one (SOFA's pa), which is not snapped when stage 2 moved it. */
static void snap_border_path(const mesh *m, path_pt *pts, size_t *n, unsigned start,
                             const snap_list *snaps, const double *a, const double *b,
                             double eps)
{
    bool snap_a = false;
    for (size_t k = 0; k < snaps->n; k++)
        snap_a |= start != UINT_MAX && snaps->s[k].v == start;
    if (!snap_a && *n > 0)
        snap_border_end(m, pts, n, false, a, eps);
    if (*n > 0)
        snap_border_end(m, pts, n, true, b, eps);
}

static bool push(ulist *l, unsigned v) { return ulist_push(l, v); }

static bool push3(ulist *l, unsigned a, unsigned b, unsigned c)
{
    return push(l, a) && push(l, b) && push(l, c);
}

/* SOFA's isQuadDeulaunayOriented: whether the quad p1 p2 p3 p4 is split
 * well by its diagonal p2-p4 (the angles at p1 and p3 sum to pi or less). */
static bool delaunay(const double *p1, const double *p2, const double *p3, const double *p4)
{
    double ab[3], ad[3], cb[3], cd[3];
    sub(p2, p1, ab);
    sub(p4, p1, ad);
    sub(p2, p3, cb);
    sub(p4, p3, cd);
    double ca = dot(ab, ad) / sqrt(dot(ab, ab) * dot(ad, ad));
    double cc = dot(cb, cd) / sqrt(dot(cb, cb) * dot(cd, cd));
    ca = ca > 1 ? 1 : ca < -1 ? -1 : ca;
    cc = cc > 1 ? 1 : cc < -1 ? -1 : cc;
    return acos(ca) + acos(cc) <= 3.14159265358979323846;
}

/* The state vectors a moved point is remade in (SOFA's MechanicalObject
 * computeWeightedValue on PointsMoved). */
static void move_point(st_mstate *ms, const snap *s)
{
    st_array *vecs[] = {&ms->position,       &ms->velocity,       &ms->force,
                        &ms->rest_position,  &ms->external_force, &ms->derivx,
                        &ms->reset_position, &ms->reset_velocity};
    const double *x = ms->position.r;
    double c[3];
    if (s->nanc == 2) {
        edge_coefs(x + 3 * (size_t)s->anc[0], x + 3 * (size_t)s->anc[1], s->x, c);
    } else {
        three_point_coefs(x + 3 * (size_t)s->anc[0], x + 3 * (size_t)s->anc[1],
                          x + 3 * (size_t)s->anc[2], s->x, c);
    }
    for (size_t k = 0; k < sizeof vecs / sizeof *vecs; k++) {
        st_array *v = vecs[k];
        if (v->n != ms->n || !v->r)
            continue;
        double y[3] = {0, 0, 0};
        for (unsigned j = 0; j < s->nanc; j++)
            for (int i = 0; i < 3; i++)
                y[i] += c[j] * v->r[3 * (size_t)s->anc[j] + (size_t)i];
        memcpy(v->r + 3 * (size_t)s->v, y, sizeof y);
    }
}

/* The triangles split along one piece of the path (SOFA's cases of
 * SplitAlongPath, its vertex orders); false on a piece SOFA refuses. */
static bool split_piece(const mesh *m, const path_pt *x, const path_pt *y, ulist *add,
                        ulist *rem, const char **why)
{
    bool ok = true;
    if (x->kind == PP_VERTEX && y->kind == PP_VERTEX) {
        if (!joined(m, x->v, y->v)) {
            *why = "two path points on vertices not joined by an edge";
            return false;
        }
        return true;
    }
    if (x->kind == PP_INSIDE && y->kind == PP_INSIDE) {
        *why = "a piece from inside a triangle to inside a triangle";
        return false;
    }
    if (x->kind == PP_VERTEX || y->kind == PP_VERTEX) {
        const path_pt *pv = x->kind == PP_VERTEX ? x : y, *o = x->kind == PP_VERTEX ? y : x;
        unsigned v = pv->v, p = o->id;
        if (o->kind == PP_INSIDE) {
            const unsigned *t = m->t + 3 * (size_t)o->tri;
            if (x == pv) /* the point inside last */
                ok = push3(add, t[0], t[1], p) && push3(add, t[1], t[2], p) &&
                     push3(add, t[2], t[0], p);
            else
                ok = push3(add, p, t[0], t[1]) && push3(add, p, t[1], t[2]) &&
                     push3(add, p, t[2], t[0]);
            return ok && push(rem, o->tri) ? true : (*why = "out of memory", false);
        }
        unsigned k = tri_of(m, o->e[0], o->e[1], v);
        if (k == UINT_MAX) {
            *why = "a path vertex not in a triangle of the next crossed edge";
            return false;
        }
        const unsigned *t = m->t + 3 * (size_t)k;
        int s = slot_of(t, v);
        unsigned t1 = t[(s + 1) % 3], t2 = t[(s + 2) % 3];
        if (x == pv)
            ok = push3(add, v, p, t2) && push3(add, v, t1, p);
        else
            ok = push3(add, v, p, t2) && push3(add, v, t1, p);
        return ok && push(rem, k) ? true : (*why = "out of memory", false);
    }
    if (x->kind == PP_EDGE && y->kind == PP_EDGE) {
        unsigned k = UINT_MAX;
        for (int j = 0; j < 2 && k == UINT_MAX; j++)
            if (y->e[j] != x->e[0] && y->e[j] != x->e[1])
                k = tri_of(m, x->e[0], x->e[1], y->e[j]);
        if (k == UINT_MAX) {
            *why = "two crossed edges not in one triangle";
            return false;
        }
        const unsigned *t = m->t + 3 * (size_t)k;
        int ci = (x->e[0] == y->e[0] || x->e[0] == y->e[1]) ? 0 : 1;
        unsigned corner = x->e[ci];
        int s = slot_of(t, corner);
        double pos1[3], pos2[3];
        pt_pos(m, x, pos1);
        pt_pos(m, y, pos2);
        unsigned o[5];
        const double *q[4];
        o[0] = corner;
        if (t[(s + 1) % 3] == x->e[1 - ci]) {
            o[1] = x->id, q[0] = pos1;
            o[4] = y->id, q[3] = pos2;
        } else {
            o[1] = y->id, q[0] = pos2;
            o[4] = x->id, q[3] = pos1;
        }
        o[2] = t[(s + 1) % 3];
        o[3] = t[(s + 2) % 3];
        q[1] = m->x + 3 * (size_t)o[2];
        q[2] = m->x + 3 * (size_t)o[3];
        ok = push3(add, o[0], o[1], o[4]);
        if (delaunay(q[0], q[1], q[2], q[3]))
            ok = ok && push3(add, o[1], o[2], o[4]) && push3(add, o[2], o[3], o[4]);
        else
            ok = ok && push3(add, o[1], o[2], o[3]) && push3(add, o[4], o[1], o[3]);
        return ok && push(rem, k) ? true : (*why = "out of memory", false);
    }
    /* an edge and a point inside a triangle: p the inside point, q the
     * edge's */
    const path_pt *in = x->kind == PP_INSIDE ? x : y, *ed = x->kind == PP_INSIDE ? y : x;
    int k = edge_slot(m, in->tri, ed->e[0], ed->e[1]);
    if (k < 0) {
        *why = "a crossed edge not in the triangle of the path's end";
        return false;
    }
    const unsigned *t = m->t + 3 * (size_t)in->tri;
    unsigned p = in->id, q = ed->id;
    ok = push3(add, p, t[k], t[(k + 1) % 3]) && push3(add, p, t[(k + 2) % 3], t[k]) &&
         push3(add, p, t[(k + 1) % 3], q) && push3(add, p, q, t[(k + 2) % 3]);
    return ok && push(rem, in->tri) ? true : (*why = "out of memory", false);
}

/* Stage 4: SOFA's SplitAlongPath. q receives the path's point indices, *nq
 * their count; *added the new triangles (their vertices, in the order they
 * were added). *why names a path SOFA refuses (nothing changed then). */
static st_status split(st_component *topo, mesh *m, path_pt *pts, size_t n, snap_list *snaps,
                       unsigned *q, size_t *nq, ulist *added, const char **why, st_error *err)
{
    *nq = 0;
    *why = NULL;
    size_t start[MAX_PATH + 1];
    unsigned anc[3 * MAX_PATH];
    double coef[3 * MAX_PATH];
    size_t k = 0, na = 0;
    unsigned next = (unsigned)m->np;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].kind == PP_VERTEX) {
            pts[i].id = pts[i].v;
            /* a moved vertex: its new place is made of its path neighbours
             * (the points just before and after; at an end, three of its
             * edges' other ends) */
            for (size_t j = 0; j < snaps->n; j++) {
                snap *s = &snaps->s[j];
                if (s->v != pts[i].v)
                    continue;
                if (i == 0 || i + 1 == n) {
                    /* SOFA: the first three edges around it, in its order */
                    const ulist *ea = &m->sh->eav[s->v];
                    s->nanc = 0;
                    for (size_t e = 0; e < ea->n && s->nanc < 3; e++) {
                        const unsigned *ee = m->sh->edges.u + 2 * (size_t)ea->u[e];
                        s->anc[s->nanc++] = ee[0] == s->v ? ee[1] : ee[0];
                    }
                    if (s->nanc != 3)
                        s->nanc = 0;
                } else {
                    s->nanc = 2;
                    s->anc[0] = pts[i - 1].kind == PP_VERTEX ? pts[i - 1].v : next - 1;
                    s->anc[1] = pts[i + 1].kind == PP_VERTEX ? pts[i + 1].v : next;
                }
                break;
            }
            continue;
        }
        start[k++] = na;
        pts[i].id = next++;
        if (pts[i].kind == PP_EDGE) {
            anc[na] = pts[i].e[0];
            coef[na++] = 1 - pts[i].s;
            anc[na] = pts[i].e[1];
            coef[na++] = pts[i].s;
        } else {
            for (int j = 0; j < 3; j++) {
                anc[na] = m->t[3 * (size_t)pts[i].tri + (size_t)j];
                coef[na++] = pts[i].w[j];
            }
        }
    }
    start[k] = na;
    size_t nnew = k;
    ulist rem = {0};
    added->n = 0;
    for (size_t i = 0; i + 1 < n && !*why; i++)
        if (!split_piece(m, &pts[i], &pts[i + 1], added, &rem, why))
            break;
    st_status st = ST_OK;
    if (*why && !strcmp(*why, "out of memory"))
        st = st_error_set(err, ST_ENOMEM, "out of memory");
    if (*why) {
        st_free(rem.u);
        return st;
    }
    if (nnew)
        st = st_topology_add_points(topo, nnew, start, anc, coef, err);
    if (st == ST_OK && !get_mesh(topo, m))
        st = st_error_set(err, ST_EINVAL, "%s lost its triangles or its state", topo->name);
    /* the new edges, as SOFA adds them: each new triangle's sides in turn,
     * sorted, unless the container has it */
    ulist edges = {0};
    unsigned first_new = (unsigned)(m->np - nnew);
    for (size_t t = 0; t < added->n / 3 && st == ST_OK; t++)
        for (int j = 0; j < 3 && st == ST_OK; j++) {
            unsigned a = added->u[3 * t + (size_t)j], b = added->u[3 * t + (size_t)(j + 1) % 3];
            unsigned e0 = a < b ? a : b, e1 = a < b ? b : a;
            if (e0 < first_new && e1 < first_new && edge_id(m, e0, e1) != UINT_MAX)
                continue;
            bool seen = false;
            for (size_t r = 0; r < edges.n && !seen; r += 2)
                seen = edges.u[r] == e0 && edges.u[r + 1] == e1;
            if (!seen && !(push(&edges, e0) && push(&edges, e1)))
                st = st_error_set(err, ST_ENOMEM, "out of memory");
        }
    if (st == ST_OK && edges.n && m->e)
        st = st_topology_add(topo, ST_ELEM_EDGE, edges.u, edges.n / 2, err);
    if (st == ST_OK && added->n)
        st = st_topology_add(topo, ST_ELEM_TRIANGLE, added->u, added->n / 3, err);
    if (st == ST_OK && rem.n)
        st = st_topology_remove(topo, ST_ELEM_TRIANGLE, rem.u, rem.n, err);
    /* the snapped vertices move last, as SOFA's movePointsProcess after
     * addRemoveTriangles: the new triangles were made (and the components
     * that follow the topology computed their data) on the places before
     * the move */
    if (st == ST_OK && !get_mesh(topo, m))
        st = st_error_set(err, ST_EINVAL, "%s lost its triangles or its state", topo->name);
    for (size_t j = 0; j < snaps->n && st == ST_OK; j++)
        if (snaps->s[j].nanc)
            move_point(m->ms, &snaps->s[j]);
    st_free(rem.u);
    st_free(edges.u);
    for (size_t i = 0; i < n; i++)
        if (!*nq || q[*nq - 1] != pts[i].id)
            q[(*nq)++] = pts[i].id;
    return st;
}

/* SOFA's trianglesAroundEdge(a, b)[0], from its around-arrays. */
static unsigned first_around(const mesh *m, unsigned a, unsigned b)
{
    unsigned e = inc_shells_edge(m->sh, a, b);
    return e == UINT_MAX || !m->sh->tae[e].n ? UINT_MAX : m->sh->tae[e].u[0];
}

/* SOFA's border test of InciseAlongEdgeList: fewer triangles than edges
 * around the point. */
static bool fewer_tris(const mesh *m, unsigned p)
{
    return p < m->sh->np && m->sh->tav[p].n < m->sh->eav[p].n;
}

/* The vertex of triangle k other than a and b. */
static unsigned other_of(const mesh *m, unsigned k, unsigned a, unsigned b)
{
    const unsigned *t = m->t + 3 * (size_t)k;
    for (int j = 0; j < 3; j++)
        if (t[j] != a && t[j] != b)
            return t[j];
    return UINT_MAX;
}

/* The other triangle across the edge (a, b) from k: UINT_MAX when the edge
 * does not have exactly `want` triangles (2; 0: at least 2). */
static unsigned across(const mesh *m, unsigned a, unsigned b, unsigned k, int want)
{
    unsigned o[2];
    int c = tris_of_edge(m, a, b, o);
    if (want ? c != want : c < 2)
        return UINT_MAX;
    return o[0] == k ? o[1] : o[0];
}

static bool add_unique(ulist *l, unsigned v)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->u[i] == v)
            return true;
    return push(l, v);
}

/* Turns around p0 from triangle tid (entered by its side p0-p1) until the
 * border (SOFA's STEP 2a and 2c), adding the triangles met. */
static bool to_border(const mesh *m, unsigned tid, unsigned p0, unsigned p1, ulist *side)
{
    for (size_t guard = 0; guard <= m->nt && tid != UINT_MAX; guard++) {
        if (!add_unique(side, tid))
            return false;
        unsigned p2 = other_of(m, tid, p0, p1);
        if (p2 == UINT_MAX)
            return true;
        tid = across(m, p0, p2, tid, 2);
        p1 = p2;
    }
    return true;
}

/* Stage 5: SOFA's InciseAlongEdgeList along the path's points q. */
static st_status incise(st_component *owner, st_component *topo, const inc_shells *sh,
                        const unsigned *q, size_t nq, unsigned *end, bool *border, st_error *err)
{
    mesh m = {.sh = sh};
    if (!get_mesh(topo, &m))
        return st_error_set(err, ST_EINVAL, "%s lost its triangles or its state", topo->name);
    *end = UINT_MAX;
    *border = false;
    if (nq < 2)
        return ST_OK;
    size_t ne = nq - 1;
    unsigned *init = st_malloc(nq * sizeof *init);
    if (!init)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    memcpy(init, q, nq * sizeof *init);
    if (ne == 1) /* one edge: its ends as the container stores it */
        edge_oriented(&m, q[0], q[1], init);
    for (size_t i = 0; i < ne; i++) {
        unsigned o[2];
        int c = tris_of_edge(&m, q[i], q[i + 1], o);
        if (c != 2) {
            st_component_warn(owner,
                              "incision not opened: its edge %u-%u has %d triangle(s), not 2 "
                              "(SOFA's InciseAlongEdgeList refuses it)",
                              q[i], q[i + 1], c);
            st_free(init);
            return ST_OK;
        }
    }
    bool b0 = fewer_tris(&m, init[0]), b1 = fewer_tris(&m, init[nq - 1]);
    if (!b1)
        *end = init[nq - 1];
    else if (!b0)
        *end = init[0];
    *border = b1;
    size_t first = b0 ? 0 : 1, last = b1 ? nq - 1 : nq - 2;
    ulist side = {0};
    bool ok = true;
    unsigned t0 = first_around(&m, init[0], init[1]);
    if (b0)
        ok = to_border(&m, t0, init[0], init[1], &side);
    for (size_t i = 0; i + 1 < ne && ok; i++) {
        unsigned p1 = init[i], p0 = init[i + 1], pnext = init[i + 2], tid = t0;
        for (size_t guard = 0; guard <= m.nt && ok; guard++) {
            ok = add_unique(&side, tid);
            unsigned p2 = other_of(&m, tid, p0, p1);
            if (p2 == pnext || p2 == UINT_MAX)
                break;
            unsigned nx = across(&m, p0, p2, tid, 0);
            if (nx == UINT_MAX)
                break;
            tid = nx;
            p1 = p2;
        }
        t0 = tid;
    }
    if (b1 && ok)
        ok = to_border(&m, t0, init[ne], init[ne - 1], &side);
    if (!ok) {
        st_free(init);
        st_free(side.u);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    /* SOFA keeps them in a set: increasing index */
    qsort(side.u, side.n, sizeof *side.u, cmp_unsigned);
    size_t ndup = last + 1 > first ? last + 1 - first : 0;
    size_t *start = st_malloc((ndup + 1) * sizeof *start);
    unsigned *anc = st_malloc((ndup + 1) * sizeof *anc);
    double *coef = st_malloc((ndup + 1) * sizeof *coef);
    ulist add = {0}, rem = {0};
    st_status st = start && anc && coef ? ST_OK : st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < ndup && st == ST_OK; i++) {
        start[i] = i;
        anc[i] = init[first + i];
        coef[i] = 1.0;
    }
    if (st == ST_OK)
        start[ndup] = ndup;
    for (size_t r = 0; r < side.n && st == ST_OK; r++) {
        unsigned t[3];
        memcpy(t, m.t + 3 * (size_t)side.u[r], sizeof t);
        bool changed = false;
        for (int j = 0; j < 3; j++)
            for (size_t i = 0; i < ndup; i++)
                if (t[j] == anc[i]) {
                    t[j] = (unsigned)(m.np + i);
                    changed = true;
                    break;
                }
        if (changed && !(push3(&add, t[0], t[1], t[2]) && push(&rem, side.u[r])))
            st = st_error_set(err, ST_ENOMEM, "out of memory");
    }
    if (st == ST_OK && ndup)
        st = st_topology_add_points(topo, ndup, start, anc, coef, err);
    if (st == ST_OK && add.n)
        st = st_topology_add(topo, ST_ELEM_TRIANGLE, add.u, add.n / 3, err);
    if (st == ST_OK && rem.n)
        st = st_topology_remove(topo, ST_ELEM_TRIANGLE, rem.u, rem.n, err);
    st_free(init);
    st_free(side.u);
    st_free(start);
    st_free(anc);
    st_free(coef);
    st_free(add.u);
    st_free(rem.u);
    return st;
}

st_status incision_cut(st_component *owner, st_component *topo, inc_shells *sh,
                       unsigned start, unsigned ta, unsigned tb, const double a[3],
                       const double b[3], double eps_path, double eps_border, unsigned *end,
                       bool *border, bool *refused, st_error *err)
{
    mesh m = {.sh = sh};
    *end = UINT_MAX;
    *border = false;
    *refused = false;
    if (!get_mesh(topo, &m))
        return st_component_error(owner, NULL, err, ST_ESCENE,
                                  "incisions need the triangles of '%s' and a Vec3 state beside "
                                  "it",
                                  topo->name);
    /* the around-arrays follow the container's events; a container changed
     * behind them (a checkpoint read back) has them made again, in SOFA's
     * order at init */
    if ((sh->topo != topo || !inc_shells_current(sh)) && !inc_shells_build(sh, topo))
        return st_error_set(err, ST_ENOMEM, "out of memory");
    if (start != UINT_MAX && start >= m.np)
        start = UINT_MAX;
    path_pt *pts = st_malloc(MAX_PATH * sizeof *pts);
    unsigned *q = st_malloc(MAX_PATH * sizeof *q);
    snap_list snaps = {0};
    ulist added = {0};
    st_status st = pts && q ? ST_OK : st_error_set(err, ST_ENOMEM, "out of memory");
    size_t n = 0, nq = 0;
    if (st == ST_OK)
        st = make_path(owner, &m, start, ta, tb, a, b, pts, &n, err);
    *refused = st != ST_OK && st != ST_ENOMEM;
    if (st == ST_OK && eps_path != 0)
        st = snap_along_path(&m, pts, &n, eps_path, &snaps, err);
    if (st == ST_OK && eps_border != 0)
        snap_border_path(&m, pts, &n, start, &snaps, start != UINT_MAX ? m.x + 3 * (size_t)start : a,
                         b, eps_border);
    const char *why = NULL;
    if (st == ST_OK)
        st = split(topo, &m, pts, n, &snaps, q, &nq, &added, &why, err);
    if (st == ST_OK && why) /* SOFA's SplitAlongPath error: nothing changes */
        st_component_warn(owner, "incision not made: %s", why);
    else if (st == ST_OK && !inc_shells_current(sh) && !inc_shells_build(sh, topo))
        st = st_error_set(err, ST_ENOMEM, "out of memory");
    else if (st == ST_OK)
        st = incise(owner, topo, sh, q, nq, end, border, err);
    st_free(pts);
    st_free(q);
    st_free(snaps.s);
    st_free(added.u);
    return st;
}
