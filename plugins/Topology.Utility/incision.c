/* incision.c - cutting a triangle surface along a segment, as SOFA's
 * TriangleSetGeometryAlgorithms does for TopologicalChangeProcessor's
 * INCISE= commands, in three stages:
 *
 * 1. the path (computeIntersectedObjectsList): from a, in the triangle that
 *    holds it, across the edges the segment a-b crosses in each triangle's
 *    plane, to b. Path points are vertices, points on edges or points
 *    inside a triangle (the ends); a crossing within eps_path of a vertex
 *    goes through the vertex (SnapAlongPath: SOFA moves the vertex onto the
 *    path; settee keeps it where it is), an end within eps_border of a
 *    border edge goes onto that edge, one within it of a vertex onto the
 *    vertex (SnapBorderPath).
 * 2. the split (SplitAlongPath): the new points are added with their
 *    ancestors (edge ends, triangle vertices, barycentric weights), each
 *    crossed triangle is replaced by triangles that have the path as edges,
 *    and the other triangle of each crossed edge by two; new triangles first,
 *    then the old ones removed (SOFA's addRemoveTriangles).
 * 3. the incision (InciseAlongEdgeList): each point of the path but its ends
 *    (and an end on a border) is duplicated (ancestor: the point, weight 1)
 *    and the triangles on the path's left take the copy, so that the surface
 *    opens along the path.
 *
 * Each stage sends SOFA's events (points added, triangles added, triangles
 * removed) through st_topology_add_points, st_topology_add and
 * st_topology_remove: every component that follows the topology follows. */
#include "incision.h"

#include <limits.h>
#include <math.h>
#include <string.h>

typedef enum { PP_VERTEX, PP_EDGE, PP_INSIDE } pp_kind;

/* A point of the path. */
typedef struct path_pt {
    pp_kind kind;
    unsigned v;     /* PP_VERTEX: the vertex */
    unsigned e[2];  /* PP_EDGE: the edge's ends; the point is (1 - s) e0 + s e1 */
    double s;
    unsigned tri;   /* PP_INSIDE: the triangle and the weights of its vertices */
    double w[3];
    unsigned id;    /* the point's index once it exists */
} path_pt;

/* A piece of the path inside one triangle: from point k to point k + 1. */
typedef struct chord {
    unsigned tri;
} chord;

#define MAX_PATH 1024

/* A barycentric weight (an edge parameter) below which a point is taken as
 * on the edge (at the vertex): the triangles it would make are flat. */
#define ON_EDGE 1e-3

typedef struct mesh {
    const unsigned *t; /* triangles, 3 per triangle */
    size_t nt;
    const double *x;   /* the state's positions, 3 per point */
    size_t np;
} mesh;

static bool get_mesh(st_component *topo, mesh *m)
{
    const st_topology_ops *ops = topo->cls->topology;
    const st_array *tris = ops && ops->elements ? ops->elements(topo, ST_T_TRIANGLES) : NULL;
    const st_mstate *ms = st_node_mstate(topo->node);
    if (!tris || !ms || !ms->type || ms->type->coord_size != 3)
        return false;
    m->t = tris->u;
    m->nt = tris->n;
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

bool incision_weights(st_component *topo, unsigned tri, const double x[3], double w[3])
{
    mesh m;
    return get_mesh(topo, &m) && tri < m.nt && bary(&m, tri, x, w) >= 0;
}

bool incision_locate(st_component *topo, const double x[3], unsigned *tri, double w[3])
{
    mesh m;
    return get_mesh(topo, &m) && locate_in(&m, x, tri, w);
}

bool incision_nearest(st_component *topo, const double x[3], unsigned *tri, double w[3])
{
    mesh m;
    if (!get_mesh(topo, &m))
        return false;
    if (locate_in(&m, x, tri, w))
        return true;
    double best = INFINITY;
    for (size_t k = 0; k < m.nt; k++) {
        double wk[3];
        if (bary(&m, k, x, wk) < 0)
            continue;
        double sum = 0;
        for (int j = 0; j < 3; j++) {
            wk[j] = wk[j] < 0 ? 0 : wk[j];
            sum += wk[j];
        }
        if (sum <= 0)
            continue;
        double y[3] = {0, 0, 0};
        for (int j = 0; j < 3; j++) {
            wk[j] /= sum;
            for (int c = 0; c < 3; c++)
                y[c] += wk[j] * m.x[3 * (size_t)m.t[3 * k + (size_t)j] + (size_t)c];
        }
        double d2 = (y[0] - x[0]) * (y[0] - x[0]) + (y[1] - x[1]) * (y[1] - x[1]) +
                    (y[2] - x[2]) * (y[2] - x[2]);
        if (d2 < best) {
            best = d2;
            *tri = (unsigned)k;
            memcpy(w, wk, sizeof wk);
        }
    }
    return best < INFINITY;
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

/* The triangle around vertex p that the direction d leaves p into
 * (SOFA's getTriangleInDirection), other than `not`; UINT_MAX if none. */
static unsigned tri_in_direction(const mesh *m, unsigned p, const double *d, unsigned not)
{
    for (size_t k = 0; k < m->nt; k++) {
        if (k == not)
            continue;
        const unsigned *t = m->t + 3 * k;
        int s = slot_of(t, p);
        if (s < 0)
            continue;
        const double *pp = m->x + 3 * (size_t)p;
        const double *p1 = m->x + 3 * (size_t)t[(s + 1) % 3];
        const double *p2 = m->x + 3 * (size_t)t[(s + 2) % 3];
        double e1[3], e2[3], n[3], c1[3], c2[3];
        sub(p1, pp, e1);
        sub(p2, pp, e2);
        cross(e1, e2, n);
        if (dot(n, n) < 1e-300)
            continue;
        /* d between e1 and e2 (counterclockwise about n), boundaries in */
        cross(e1, d, c1);
        cross(d, e2, c2);
        double scale = sqrt(dot(d, d) * dot(n, n)) * 1e-12;
        if (dot(c1, n) >= -scale && dot(c2, n) >= -scale)
            return (unsigned)k;
    }
    return UINT_MAX;
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

/* An end of the path in triangle k with weights w (SnapBorderPath): onto a
 * border edge within eps_border, onto a vertex within eps_border, else
 * inside. `avoid`: a point the end must not snap onto (the other end). */
static path_pt end_point(const mesh *m, unsigned k, const double w[3], double eps_border,
                         const path_pt *from, bool vertex)
{
    const unsigned *t = m->t + 3 * (size_t)k;
    path_pt q = {.kind = PP_INSIDE, .tri = k};
    memcpy(q.w, w, 3 * sizeof *w);
    for (int j = 0; j < 3 && vertex; j++)
        if (w[j] > 1 - eps_border) {
            q.kind = PP_VERTEX;
            q.v = t[j];
            if (from && from->kind == PP_VERTEX && from->v == q.v)
                q.kind = PP_INSIDE;
            else if (from && from->kind == PP_EDGE && (from->e[0] == q.v || from->e[1] == q.v))
                q.kind = PP_INSIDE;
            else
                return q;
        }
    for (int j = 0; j < 3; j++) {
        unsigned a = t[(j + 1) % 3], b = t[(j + 2) % 3], o[2];
        /* onto a border edge within eps_border; onto any edge when the end
         * is (nearly) on it, which would otherwise leave a flat triangle */
        if ((w[j] < eps_border && tris_of_edge(m, a, b, o) == 1) || w[j] < ON_EDGE) {
            double wa = w[(j + 1) % 3], wb = w[(j + 2) % 3];
            if (wa + wb <= 0)
                continue;
            /* not onto the edge the path comes along or from one of its
             * ends: the last piece would lie on the edge */
            if (from && from->kind == PP_EDGE &&
                ((from->e[0] == a && from->e[1] == b) || (from->e[0] == b && from->e[1] == a)))
                continue;
            if (from && from->kind == PP_VERTEX && (from->v == a || from->v == b))
                continue;
            q.kind = PP_EDGE;
            q.e[0] = a;
            q.e[1] = b;
            q.s = wb / (wa + wb);
            return q;
        }
    }
    return q;
}

/* Where the line from c along d leaves triangle k through its edge (i, j)
 * (slots): the line parameter *tl and the edge parameter *s. */
static bool edge_cross(const mesh *m, unsigned k, int i, int j, const double *c, const double *d,
                       double *tl, double *s)
{
    const unsigned *t = m->t + 3 * (size_t)k;
    const double *p0 = m->x + 3 * (size_t)t[0], *p1 = m->x + 3 * (size_t)t[1],
                 *p2 = m->x + 3 * (size_t)t[2];
    double n[3], e1[3], e2[3];
    sub(p1, p0, e1);
    sub(p2, p0, e2);
    cross(e1, e2, n);
    const double *pi = m->x + 3 * (size_t)t[i], *pj = m->x + 3 * (size_t)t[j];
    double e[3], r[3];
    sub(pj, pi, e);
    sub(pi, c, r);
    /* c + tl d = pi + s e in the plane: cross both sides with n */
    double dn[3], en[3];
    cross(d, n, dn);
    cross(e, n, en);
    /* (tl d - s e) = r; dot with (e x n) and (d x n) */
    double den = dot(d, en);
    if (fabs(den) < 1e-300)
        return false;
    *tl = dot(r, en) / den;
    double den2 = dot(e, dn);
    if (fabs(den2) < 1e-300)
        return false;
    *s = -dot(r, dn) / den2;
    return true;
}

/* The triangle the cut enters from its first point q (in triangle k),
 * towards b along d; UINT_MAX when it cannot go inward. */
static unsigned start_tri(const mesh *m, const path_pt *q, unsigned k, const double *b,
                          const double *d)
{
    if (q->kind == PP_VERTEX)
        return tri_in_direction(m, q->v, d, UINT_MAX);
    if (q->kind == PP_INSIDE)
        return k;
    int i = slot_of(m->t + 3 * (size_t)k, q->e[0]);
    int j = slot_of(m->t + 3 * (size_t)k, q->e[1]);
    int o = 3 - i - j;
    if (i < 0 || j < 0 || o < 0 || o > 2)
        return UINT_MAX;
    double w0[3];
    bary(m, k, b, w0);
    if (w0[o] >= 0)
        return k;
    unsigned tt[2]; /* b beyond the edge: the triangle on its other side (on a border,
                     * this one: the walk finds whether the line goes in) */
    int c = tris_of_edge(m, q->e[0], q->e[1], tt);
    return c == 2 ? (tt[0] == k ? tt[1] : tt[0]) : k;
}

/* Stage 1: the path from a (or the point start) to b. */
static st_status make_path(st_component *owner, const mesh *m, unsigned start, unsigned ta,
                           const double *a,
                           const double *b, double eps_path, double eps_border, path_pt *pts,
                           chord *chords, size_t *npts, st_error *err)
{
    size_t n = 0;
    double d[3];
    unsigned cur_tri = UINT_MAX;
    double wa[3];
    if (start != UINT_MAX) {
        pts[n++] = (path_pt){.kind = PP_VERTEX, .v = start};
        a = m->x + 3 * (size_t)start;
        sub(b, a, d);
        cur_tri = tri_in_direction(m, start, d, UINT_MAX);
    } else {
        if (ta != UINT_MAX) {
            /* SOFA takes the written triangle as a's, without a search */
            const double tol = 1e-9;
            if (ta >= m->nt)
                return st_component_error(owner, NULL, err, ST_ESCENE,
                                          "the incision's first triangle %u is not one of the "
                                          "%zu triangles",
                                          ta, m->nt);
            if (bary(m, ta, a, wa) < 0 || wa[0] < -tol || wa[1] < -tol || wa[2] < -tol)
                return st_component_error(owner, NULL, err, ST_ESCENE,
                                          "the incision's first point (%g %g %g) is not in its "
                                          "triangle %u",
                                          a[0], a[1], a[2], ta);
            cur_tri = ta;
        } else if (!locate_in(m, a, &cur_tri, wa))
            return st_component_error(owner, NULL, err, ST_ESCENE,
                                      "the incision's first point (%g %g %g) is on no triangle",
                                      a[0], a[1], a[2]);
        sub(b, a, d);
        /* the start (SnapBorderPath): onto a vertex or a border edge when
         * the cut can leave it towards b, else onto the edge it is on, else
         * inside */
        unsigned first = cur_tri;
        for (int attempt = 0; attempt < 3; attempt++) {
            pts[0] = attempt < 2 ? end_point(m, first, wa, eps_border, NULL, attempt == 0)
                                 : (path_pt){.kind = PP_INSIDE, .tri = first};
            if (attempt == 2)
                memcpy(pts[0].w, wa, sizeof wa);
            cur_tri = start_tri(m, &pts[0], first, b, d);
            if (cur_tri != UINT_MAX)
                break;
        }
        n = 1;
    }
    if (dot(d, d) <= 0)
        return st_component_error(owner, NULL, err, ST_ESCENE,
                                  "the incision's two points are the same");
    if (cur_tri == UINT_MAX)
        return st_component_error(owner, NULL, err, ST_ESCENE,
                                  "the incision from (%g %g %g) leaves the surface at once", a[0],
                                  a[1], a[2]);
    for (size_t guard = 0; guard <= m->nt; guard++) {
        if (n + 1 >= MAX_PATH)
            break;
        bool again = false;
        for (size_t i = 0; i + 1 < n; i++)
            again |= chords[i].tri == cur_tri;
        if (again && n >= 2) { /* the path comes back to a triangle: it ends */
            *npts = n;
            return ST_OK;
        }
        path_pt *cur = &pts[n - 1];
        double c[3], wb[3];
        pt_pos(m, cur, c);
        const unsigned *t = m->t + 3 * (size_t)cur_tri;
        double dist = bary(m, cur_tri, b, wb);
        if (dist >= 0 && wb[0] > -1e-9 && wb[1] > -1e-9 && wb[2] > -1e-9) {
            for (int j = 0; j < 3; j++)
                wb[j] = wb[j] < 0 ? 0 : wb[j];
            path_pt q = end_point(m, cur_tri, wb, eps_border, cur, true);
            if (q.kind == PP_INSIDE && cur->kind == PP_INSIDE)
                return st_component_error(owner, NULL, err, ST_ESCENE,
                                          "the incision from (%g %g %g) to (%g %g %g) lies inside "
                                          "one triangle: it crosses no edge",
                                          a[0], a[1], a[2], b[0], b[1], b[2]);
            chords[n - 1].tri = cur_tri;
            pts[n++] = q;
            *npts = n;
            return ST_OK;
        }
        /* the exit: the edge the line leaves through, farthest along d */
        double best_t = -INFINITY, best_s = 0;
        int bi = -1;
        for (int i = 0; i < 3; i++) {
            int j = (i + 1) % 3;
            unsigned vi = t[i], vj = t[j];
            if (cur->kind == PP_VERTEX && (cur->v == vi || cur->v == vj))
                continue;
            if (cur->kind == PP_EDGE && ((cur->e[0] == vi && cur->e[1] == vj) ||
                                         (cur->e[0] == vj && cur->e[1] == vi)))
                continue;
            double tl, s;
            if (!edge_cross(m, cur_tri, i, j, c, d, &tl, &s))
                continue;
            if (s < -1e-9 || s > 1 + 1e-9 || tl <= 1e-12)
                continue;
            if (tl > best_t) {
                best_t = tl;
                best_s = s < 0 ? 0 : s > 1 ? 1 : s;
                bi = i;
            }
        }
        if (bi < 0 && n >= 3) { /* the line leaves the surface: the cut ends here */
            *npts = n;
            return ST_OK;
        }
        if (bi < 0)
            return st_component_error(owner, NULL, err, ST_ESCENE,
                                      "the incision from (%g %g %g) to (%g %g %g) leaves the "
                                      "surface",
                                      a[0], a[1], a[2], b[0], b[1], b[2]);
        unsigned vi = t[bi], vj = t[(bi + 1) % 3];
        path_pt q = {.kind = PP_EDGE, .e = {vi, vj}, .s = best_s};
        bool on_cur_edge_i = cur->kind == PP_EDGE && (cur->e[0] == vi || cur->e[1] == vi);
        bool on_cur_edge_j = cur->kind == PP_EDGE && (cur->e[0] == vj || cur->e[1] == vj);
        double snap = eps_path > ON_EDGE ? eps_path : ON_EDGE;
        if (best_s < snap && !on_cur_edge_i)
            q = (path_pt){.kind = PP_VERTEX, .v = vi};
        else if (best_s > 1 - snap && !on_cur_edge_j)
            q = (path_pt){.kind = PP_VERTEX, .v = vj};
        chords[n - 1].tri = cur_tri;
        pts[n++] = q;
        unsigned next = UINT_MAX;
        if (q.kind == PP_EDGE) {
            unsigned o[2];
            int k = tris_of_edge(m, vi, vj, o);
            if (k == 2)
                next = o[0] == cur_tri ? o[1] : o[0];
        } else {
            next = tri_in_direction(m, q.v, d, cur_tri);
        }
        if (next == UINT_MAX) { /* the cut reached a border before b */
            *npts = n;
            return ST_OK;
        }
        cur_tri = next;
    }
    return st_component_error(owner, NULL, err, ST_ESCENE,
                              "the incision from (%g %g %g) to (%g %g %g) does not end",
                              a[0], a[1], a[2], b[0], b[1], b[2]);
}

/* The path point on edge (a, b) among pts, or NULL. */
static const path_pt *edge_point(const path_pt *pts, size_t n, unsigned a, unsigned b)
{
    for (size_t i = 0; i < n; i++)
        if (pts[i].kind == PP_EDGE && ((pts[i].e[0] == a && pts[i].e[1] == b) ||
                                       (pts[i].e[0] == b && pts[i].e[1] == a)))
            return &pts[i];
    return NULL;
}

typedef struct ulist {
    unsigned *u;
    size_t n, cap;
} ulist;

static bool push(ulist *l, unsigned v)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        unsigned *u = st_realloc(l->u, cap * sizeof *u);
        if (!u)
            return false;
        l->u = u;
        l->cap = cap;
    }
    l->u[l->n++] = v;
    return true;
}

static bool push3(ulist *l, unsigned a, unsigned b, unsigned c)
{
    return push(l, a) && push(l, b) && push(l, c);
}

/* Fan of polygon p[0..n) from p[0]. */
static bool fan(ulist *out, const unsigned *p, size_t n)
{
    for (size_t i = 1; i + 1 < n; i++)
        if (!push3(out, p[0], p[i], p[i + 1]))
            return false;
    return true;
}

/* Stage 2: new points and triangles along the path; q receives the path's
 * point indices (consecutive duplicates dropped), *nq their count. */
static st_status split(st_component *topo, mesh *m, path_pt *pts, const chord *chords, size_t n,
                       unsigned *q, size_t *nq, st_error *err)
{
    /* new points, in path order */
    size_t nnew = 0;
    for (size_t i = 0; i < n; i++)
        nnew += pts[i].kind != PP_VERTEX;
    size_t start[MAX_PATH + 1];
    unsigned anc[3 * MAX_PATH];
    double coef[3 * MAX_PATH];
    size_t k = 0, na = 0;
    unsigned next = (unsigned)m->np;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].kind == PP_VERTEX) {
            pts[i].id = pts[i].v;
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
    /* the triangles to replace: each chord's, and the others holding a
     * crossed edge */
    ulist rem = {0}, add = {0};
    st_status st = ST_OK;
    for (size_t i = 0; i + 1 < n && st == ST_OK; i++) {
        bool seen = false;
        for (size_t r = 0; r < rem.n; r++)
            seen |= rem.u[r] == chords[i].tri;
        if (!seen && !(pts[i].kind == PP_VERTEX && pts[i + 1].kind == PP_VERTEX))
            if (!push(&rem, chords[i].tri))
                st = st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n && st == ST_OK; i++) {
        if (pts[i].kind != PP_EDGE)
            continue;
        unsigned o[2];
        int c = tris_of_edge(m, pts[i].e[0], pts[i].e[1], o);
        for (int j = 0; j < c && j < 2; j++) {
            bool seen = false;
            for (size_t r = 0; r < rem.n; r++)
                seen |= rem.u[r] == o[j];
            if (!seen && !push(&rem, o[j]))
                st = st_error_set(err, ST_ENOMEM, "out of memory");
        }
    }
    for (size_t r = 0; r < rem.n && st == ST_OK; r++) {
        unsigned tk = rem.u[r];
        const unsigned *t = m->t + 3 * (size_t)tk;
        unsigned poly[6], nb = 0;
        for (int j = 0; j < 3; j++) {
            poly[nb++] = t[j];
            const path_pt *e = edge_point(pts, n, t[j], t[(j + 1) % 3]);
            if (e)
                poly[nb++] = e->id;
        }
        /* the chord in this triangle, if any */
        const path_pt *x = NULL, *y = NULL;
        for (size_t i = 0; i + 1 < n; i++)
            if (chords[i].tri == tk) {
                x = &pts[i];
                y = &pts[i + 1];
            }
        bool ok = true;
        if (x && (x->kind == PP_INSIDE || y->kind == PP_INSIDE)) {
            unsigned in = x->kind == PP_INSIDE ? x->id : y->id;
            for (unsigned j = 0; j < nb && ok; j++)
                ok = push3(&add, in, poly[j], poly[(j + 1) % nb]);
        } else {
            unsigned from = x ? x->id : UINT_MAX, to = y ? y->id : UINT_MAX;
            if (!x) /* a neighbour: fan from its edge point */
                for (unsigned j = 0; j < nb; j++)
                    if (poly[j] >= m->np) {
                        from = poly[j];
                        break;
                    }
            unsigned ix = 0, iy = 0;
            for (unsigned j = 0; j < nb; j++) {
                if (poly[j] == from)
                    ix = j;
                if (poly[j] == to)
                    iy = j;
            }
            unsigned p1[6], p2[6], n1 = 0, n2 = 0;
            if (x) {
                for (unsigned j = ix;; j = (j + 1) % nb) {
                    p1[n1++] = poly[j];
                    if (j == iy)
                        break;
                }
                for (unsigned j = iy;; j = (j + 1) % nb) {
                    p2[n2++] = poly[j];
                    if (j == ix)
                        break;
                }
                ok = fan(&add, p1, n1) && fan(&add, p2, n2);
            } else {
                for (unsigned j = 0; j < nb; j++)
                    p1[n1++] = poly[(ix + j) % nb];
                ok = fan(&add, p1, n1);
            }
        }
        if (!ok)
            st = st_error_set(err, ST_ENOMEM, "out of memory");
    }
    if (st == ST_OK && nnew)
        st = st_topology_add_points(topo, nnew, start, anc, coef, err);
    if (st == ST_OK && add.n)
        st = st_topology_add(topo, ST_ELEM_TRIANGLE, add.u, add.n / 3, err);
    if (st == ST_OK && rem.n)
        st = st_topology_remove(topo, ST_ELEM_TRIANGLE, rem.u, rem.n, err);
    st_free(rem.u);
    st_free(add.u);
    *nq = 0;
    for (size_t i = 0; i < n; i++)
        if (!*nq || q[*nq - 1] != pts[i].id)
            q[(*nq)++] = pts[i].id;
    return st;
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

/* The triangle holding the directed edge a -> b (a then b in its order). */
static unsigned tri_with_directed(const mesh *m, unsigned a, unsigned b)
{
    for (size_t k = 0; k < m->nt; k++) {
        const unsigned *t = m->t + 3 * k;
        int s = slot_of(t, a);
        if (s >= 0 && t[(s + 1) % 3] == b)
            return (unsigned)k;
    }
    return UINT_MAX;
}

/* Adds to side the triangles around p from tk (entered from vertex `from`),
 * turning away from `from` until the vertex `stop` or a border. */
static bool rotate(const mesh *m, unsigned p, unsigned tk, unsigned from, unsigned stop,
                   ulist *side)
{
    for (size_t guard = 0; guard <= m->nt && tk != UINT_MAX; guard++) {
        bool seen = false;
        for (size_t r = 0; r < side->n; r++)
            seen |= side->u[r] == tk;
        if (!seen && !push(side, tk))
            return false;
        const unsigned *t = m->t + 3 * (size_t)tk;
        unsigned c = UINT_MAX;
        for (int j = 0; j < 3; j++)
            if (t[j] != p && t[j] != from)
                c = t[j];
        if (c == UINT_MAX || c == stop)
            return true;
        unsigned o[2];
        int k = tris_of_edge(m, p, c, o);
        if (k != 2)
            return true;
        from = c;
        tk = o[0] == tk ? o[1] : o[0];
    }
    return true;
}

/* Stage 3: duplicates the path's points (SOFA's InciseAlongEdgeList). */
static st_status incise(st_component *topo, const unsigned *q, size_t nq, unsigned *end,
                        bool *border, st_error *err)
{
    mesh m;
    if (!get_mesh(topo, &m))
        return st_error_set(err, ST_EINVAL, "%s lost its triangles or its state", topo->name);
    *end = UINT_MAX;
    *border = false;
    if (nq < 2)
        return ST_OK;
    bool b0 = on_border(&m, q[0]), b1 = on_border(&m, q[nq - 1]);
    *border = b1;
    if (!b1)
        *end = q[nq - 1];
    else if (!b0)
        *end = q[0];
    size_t first = b0 ? 0 : 1, last = b1 ? nq - 1 : nq - 2;
    if (last + 1 <= first)
        return ST_OK;
    ulist side = {0};
    bool ok = true;
    for (size_t i = first; i <= last && ok; i++) {
        unsigned p = q[i];
        if (i + 1 < nq) {
            unsigned tk = tri_with_directed(&m, p, q[i + 1]);
            ok = rotate(&m, p, tk, q[i + 1], i > 0 ? q[i - 1] : UINT_MAX, &side);
        } else {
            unsigned tk = tri_with_directed(&m, q[i - 1], p);
            ok = rotate(&m, p, tk, q[i - 1], UINT_MAX, &side);
        }
    }
    /* a copy for each path point that a triangle on the left uses (none is
     * made for a point the left side does not reach) */
    unsigned copy[MAX_PATH], anc[MAX_PATH];
    size_t ndup = 0;
    for (size_t i = first; i <= last; i++) {
        copy[i] = UINT_MAX;
        for (size_t r = 0; r < side.n && copy[i] == UINT_MAX; r++)
            if (slot_of(m.t + 3 * (size_t)side.u[r], q[i]) >= 0) {
                copy[i] = (unsigned)(m.np + ndup);
                anc[ndup++] = q[i];
            }
    }
    ulist add = {0};
    for (size_t r = 0; r < side.n && ok; r++) {
        unsigned t[3];
        memcpy(t, m.t + 3 * (size_t)side.u[r], sizeof t);
        for (int j = 0; j < 3; j++)
            for (size_t i = first; i <= last; i++)
                if (t[j] == q[i]) {
                    t[j] = copy[i];
                    break;
                }
        ok = push3(&add, t[0], t[1], t[2]);
    }
    st_status st = ok ? ST_OK : st_error_set(err, ST_ENOMEM, "out of memory");
    size_t start[MAX_PATH + 1];
    double coef[MAX_PATH];
    for (size_t i = 0; i < ndup; i++) {
        start[i] = i;
        coef[i] = 1.0;
    }
    start[ndup] = ndup;
    if (st == ST_OK && ndup)
        st = st_topology_add_points(topo, ndup, start, anc, coef, err);
    if (st == ST_OK && add.n)
        st = st_topology_add(topo, ST_ELEM_TRIANGLE, add.u, add.n / 3, err);
    if (st == ST_OK && side.n)
        st = st_topology_remove(topo, ST_ELEM_TRIANGLE, side.u, side.n, err);
    st_free(side.u);
    st_free(add.u);
    return st;
}

st_status incision_cut(st_component *owner, st_component *topo, unsigned start, unsigned ta,
                       const double a[3],
                       const double b[3], double eps_path, double eps_border, unsigned *end,
                       bool *border, bool *refused, st_error *err)
{
    mesh m;
    *end = UINT_MAX;
    *border = false;
    if (!get_mesh(topo, &m))
        return st_component_error(owner, NULL, err, ST_ESCENE,
                                  "incisions need the triangles of '%s' and a Vec3 state beside "
                                  "it",
                                  topo->name);
    if (start != UINT_MAX && start >= m.np)
        start = UINT_MAX;
    path_pt *pts = st_malloc(MAX_PATH * sizeof *pts);
    chord *chords = st_malloc(MAX_PATH * sizeof *chords);
    unsigned *q = st_malloc(MAX_PATH * sizeof *q);
    st_status st = pts && chords && q ? ST_OK : st_error_set(err, ST_ENOMEM, "out of memory");
    size_t n = 0, nq = 0;
    if (st == ST_OK)
        st = make_path(owner, &m, start, ta, a, b, eps_path, eps_border, pts, chords, &n, err);
    *refused = st != ST_OK && st != ST_ENOMEM;
    if (st == ST_OK)
        st = split(topo, &m, pts, chords, n, q, &nq, err);
    if (st == ST_OK)
        st = incise(topo, q, nq, end, border, err);
    st_free(pts);
    st_free(chords);
    st_free(q);
    return st;
}
