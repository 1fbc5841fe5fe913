/* triangular_bending_springs.c - TriangularBendingSprings: for every edge
 * shared by exactly two triangles, a linear spring between the two vertices
 * opposite the edge, as SOFA builds them and keeps them through topological
 * changes.
 *
 * As SOFA, each edge has its information (SOFA's EdgeInformation, an
 * EdgeData following the container's edges): whether it was initialised,
 * whether its spring is active, its ends m1, m2 and its rest length. At
 * init every edge is cleared, then the triangles are visited in order, and
 * each one's sides j = 0, 1, 2 (side j is the edge opposite vertex j); the
 * first visit of an edge initialises it: with two triangles around it, m1
 * is the vertex opposite the edge in the other triangle, m2 the one in the
 * visiting triangle, rest length |x0[m1] - x0[m2]|; with another number of
 * triangles, no spring. A change of the topology is followed as SOFA's
 * handlers follow it, event by event, and not by building again:
 *  - new edges are not initialised;
 *  - added triangles (applyTriangleCreation) initialise their edges that
 *    are not yet, from the triangles around each edge then (an edge that
 *    had another number of triangles when it was initialised keeps no
 *    spring, even when it has two later);
 *  - removed triangles (applyTriangleDestruction, before they go): an
 *    initialised edge of one with three triangles around it gets the spring
 *    of the other two, with its rest length from the rest positions then;
 *    with any other number its spring goes and it is no longer initialised;
 *  - removed points renumber the ends (the last point fills the hole).
 * A spring's rest length is computed when its edge is initialised and
 * stays: a point that a change moves (SOFA's movePointsProcess, which the
 * springs do not follow) does not change it. The springs act in edge order,
 * ks = stiffness, kd = damping, with SOFA's spring law (see springs.c) and
 * no force below a length of 1e-4. SOFA's getPotentialEnergy is not
 * implemented (0 with an error); here the energy is the springs' sum of
 * ks (d - L0)^2 / 2, the value SOFA accumulates in addForce. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "springs.h"

/* SOFA's EdgeInformation (its DfDx is the spring set's Jacobian cache). */
typedef struct tbs_edge {
    unsigned m1, m2;
    double rest_length;
    unsigned char initialized, activated;
} tbs_edge;

typedef struct tri_bending {
    spring_head h;
    double ks;            /* "stiffness" */
    double kd;            /* "damping" */
    bool show_springs;    /* "showSprings" */
    st_component *topology;
    tbs_edge *info;       /* per edge of the topology, followed */
    size_t ninfo;
    st_component *followed;
} tri_bending;

/* ---- the triangles around each edge, at one event ---- */

/* A triangle side: the edge (lo, hi), the triangle (an index in the list
 * the incidence was made of) and the vertex opposite the side. */
typedef struct side {
    uint64_t key;
    unsigned tri, opposite;
} side;

static uint64_t key_of(unsigned a, unsigned b)
{
    unsigned lo = a < b ? a : b, hi = a < b ? b : a;
    return (uint64_t)lo << 32 | hi;
}

static int cmp_side(const void *pa, const void *pb)
{
    const side *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->tri < b->tri ? -1 : a->tri > b->tri;
}

/* The sides of n triangles (3 vertices each), sorted by edge. */
typedef struct incidence {
    side *s;
    size_t n;
} incidence;

static st_status incidence_make(incidence *in, const unsigned *tris, size_t n, st_error *err)
{
    in->s = st_malloc((3 * n + 1) * sizeof *in->s);
    in->n = 3 * n;
    if (!in->s)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu triangles)", n);
    for (size_t k = 0; k < n; k++)
        for (unsigned j = 0; j < 3; j++) {
            const unsigned *t = tris + 3 * k;
            in->s[3 * k + j] = (side){key_of(t[(j + 1) % 3], t[(j + 2) % 3]), (unsigned)k, t[j]};
        }
    qsort(in->s, in->n, sizeof *in->s, cmp_side);
    return ST_OK;
}

/* The sides of edge (a, b): *first and the count. */
static size_t incidence_find(const incidence *in, unsigned a, unsigned b, size_t *first)
{
    uint64_t key = key_of(a, b);
    size_t lo = 0, hi = in->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (in->s[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    while (lo + n < in->n && in->s[lo + n].key == key)
        n++;
    *first = lo;
    return n;
}

/* ---- point numbering across one change ---- */

/* A point of the numbering before event `from`'s later point removals,
 * moved through them (UINT_MAX: removed). */
static unsigned forward(unsigned p, const st_topo_event *ev, size_t nev, size_t from)
{
    for (size_t e = from; e < nev && p != UINT_MAX; e++) {
        if (ev[e].elem != ST_ELEM_POINT || ev[e].change != ST_TOPO_REMOVED)
            continue;
        for (size_t k = 0; k < ev[e].n && p != UINT_MAX; k++) {
            unsigned last = (unsigned)(ev[e].before - 1 - k);
            if (p == ev[e].index[k])
                p = UINT_MAX;
            else if (p == last)
                p = ev[e].index[k];
        }
    }
    return p;
}

/* The inverse: a point after the change, in the numbering of event `from`. */
static unsigned backward(unsigned p, const st_topo_event *ev, size_t nev, size_t from)
{
    for (size_t e = nev; e-- > from;) {
        if (ev[e].elem != ST_ELEM_POINT || ev[e].change != ST_TOPO_REMOVED)
            continue;
        for (size_t k = ev[e].n; k-- > 0;) {
            unsigned last = (unsigned)(ev[e].before - 1 - k);
            if (p == ev[e].index[k])
                p = last;
        }
    }
    return p;
}

/* ---- SOFA's handlers ---- */

typedef struct tbs_ctx {
    tri_bending *b;
    const st_topo_event *ev;
    size_t nev, at;          /* the change's events and the one applied */
    incidence edges;         /* the container's edges after the change (tri: the index) */
    const double *x0;        /* rest positions after the change */
    size_t np;
    const unsigned *tris;    /* the triangles at event `at` (its point numbering) */
    incidence in;
} tbs_ctx;

/* The information of edge (a, b) (event numbering), NULL when the change
 * removed the edge. */
static tbs_edge *edge_info(tbs_ctx *c, unsigned a, unsigned b)
{
    a = forward(a, c->ev, c->nev, c->at);
    b = forward(b, c->ev, c->nev, c->at);
    size_t f;
    if (a == UINT_MAX || b == UINT_MAX || !incidence_find(&c->edges, a, b, &f) ||
        c->edges.s[f].tri >= c->b->ninfo)
        return NULL;
    return &c->b->info[c->edges.s[f].tri];
}

/* The container's edges, sorted: edge k is (key, k). */
static st_status edges_make(incidence *in, const st_array *edges, st_error *err)
{
    size_t n = edges ? edges->n : 0;
    in->s = st_malloc((n + 1) * sizeof *in->s);
    in->n = n;
    if (!in->s)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu edges)", n);
    for (size_t k = 0; k < n; k++)
        in->s[k] = (side){key_of(edges->u[2 * k], edges->u[2 * k + 1]), (unsigned)k, 0};
    qsort(in->s, n, sizeof *in->s, cmp_side);
    return ST_OK;
}

/* The rest length between m1 and m2 (event numbering); false when a point
 * is gone. */
static bool rest_length(tbs_ctx *c, unsigned m1, unsigned m2, double *l)
{
    unsigned p = forward(m1, c->ev, c->nev, c->at), q = forward(m2, c->ev, c->nev, c->at);
    if (p == UINT_MAX || q == UINT_MAX || p >= c->np || q >= c->np)
        return false;
    const double *x = c->x0 + 3 * (size_t)p, *y = c->x0 + 3 * (size_t)q;
    double u[3] = {x[0] - y[0], x[1] - y[1], x[2] - y[2]};
    *l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    return true;
}

/* SOFA's applyTriangleCreation for triangle k of c->tris. */
static void tbs_create(tbs_ctx *c, unsigned k)
{
    const unsigned *t = c->tris + 3 * (size_t)k;
    for (unsigned j = 0; j < 3; j++) {
        unsigned a = t[(j + 1) % 3], b = t[(j + 2) % 3];
        tbs_edge *ei = edge_info(c, a, b);
        if (!ei || ei->initialized)
            continue;
        ei->initialized = 1;
        size_t f, n = incidence_find(&c->in, a, b, &f);
        ei->activated = 0;
        if (n != 2)
            continue;
        const side *other = c->in.s[f].tri == k ? &c->in.s[f + 1] : &c->in.s[f];
        ei->m1 = other->opposite;
        ei->m2 = t[j];
        ei->activated = rest_length(c, ei->m1, ei->m2, &ei->rest_length);
    }
}

/* SOFA's applyTriangleDestruction for triangle k of c->tris (still there). */
static void tbs_destroy(tbs_ctx *c, unsigned k)
{
    const unsigned *t = c->tris + 3 * (size_t)k;
    for (unsigned j = 0; j < 3; j++) {
        unsigned a = t[(j + 1) % 3], b = t[(j + 2) % 3];
        tbs_edge *ei = edge_info(c, a, b);
        if (!ei)
            continue;
        size_t f, n = incidence_find(&c->in, a, b, &f);
        if (!ei->initialized || n != 3) {
            ei->activated = 0;
            ei->initialized = 0;
            continue;
        }
        const side *o[2];
        int m = 0;
        for (size_t i = f; i < f + 3; i++)
            if (c->in.s[i].tri != k && m < 2)
                o[m++] = &c->in.s[i];
        ei->m1 = o[0]->opposite;
        ei->m2 = o[1]->opposite;
        ei->activated = rest_length(c, ei->m1, ei->m2, &ei->rest_length);
    }
}

/* The triangles at event `at`: those after the change and those this
 * event and the later ones remove, in the event's point numbering; the
 * triangles removed at `at` come first. */
static st_status tris_at(tbs_ctx *c, const st_array *after, unsigned **out, size_t *n,
                         st_error *err)
{
    size_t na = after ? after->n : 0, nr = 0;
    for (size_t e = c->at; e < c->nev; e++)
        if (c->ev[e].elem == ST_ELEM_TRIANGLE && c->ev[e].change == ST_TOPO_REMOVED &&
            c->ev[e].vertices)
            nr += c->ev[e].n;
    unsigned *t = st_malloc((3 * (na + nr) + 1) * sizeof *t);
    if (!t)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu triangles)", na + nr);
    size_t m = 0;
    for (size_t e = c->at; e < c->nev; e++)
        if (c->ev[e].elem == ST_ELEM_TRIANGLE && c->ev[e].change == ST_TOPO_REMOVED &&
            c->ev[e].vertices) {
            memcpy(t + 3 * m, c->ev[e].vertices, 3 * c->ev[e].n * sizeof *t);
            m += c->ev[e].n;
        }
    for (size_t i = 0; i < 3 * na; i++)
        t[3 * m + i] = backward(after->u[i], c->ev, c->nev, c->at);
    *out = t;
    *n = m + na;
    return ST_OK;
}

/* The springs of the active edges, in edge order. */
static st_status tbs_springs(tri_bending *b, st_error *err)
{
    spring_set *set = &b->h.set;
    set->n = 0;
    size_t np = set->ms1 ? set->ms1->n : 0;
    for (size_t k = 0; k < b->ninfo; k++) {
        const tbs_edge *ei = &b->info[k];
        if (!ei->activated || ei->m1 >= np || ei->m2 >= np)
            continue;
        spring sp = {ei->m1, ei->m2, b->ks, b->kd, ei->rest_length, false, true};
        ST_TRY(springs_push(set, sp, err));
    }
    return springs_finish(set, err);
}

static st_status tbs_changed(st_component *self, st_component *topology, const st_topo_event *ev,
                             size_t nev, st_error *err)
{
    tri_bending *b = (tri_bending *)self;
    const st_topology_ops *ops = topology->cls->topology;
    tbs_ctx c = {.b = b, .ev = ev, .nev = nev};
    ST_TRY(edges_make(&c.edges, ops->elements(topology, ST_T_EDGES), err));
    const st_mstate *ms = b->h.set.ms1;
    c.x0 = ms ? ms->rest_position.r : NULL;
    c.np = ms && c.x0 ? ms->rest_position.n : 0;
    const st_array *after = ops->elements(topology, ST_T_TRIANGLES);
    st_status st = ST_OK;
    for (size_t e = 0; e < nev && st == ST_OK; e++) {
        if (ev[e].elem == ST_ELEM_POINT && ev[e].change == ST_TOPO_REMOVED) {
            /* SOFA's applyPointDestruction: the last point fills the hole */
            for (size_t k = 0; k < ev[e].n; k++) {
                unsigned last = (unsigned)(ev[e].before - 1 - k), id = ev[e].index[k];
                for (size_t i = 0; i < b->ninfo; i++) {
                    tbs_edge *ei = &b->info[i];
                    if (ei->m1 == last)
                        ei->m1 = id;
                    else if (ei->m2 == last)
                        ei->m2 = id;
                }
            }
            continue;
        }
        if (ev[e].elem != ST_ELEM_TRIANGLE)
            continue;
        c.at = e;
        unsigned *tris = NULL;
        size_t n = 0;
        st = tris_at(&c, after, &tris, &n, err);
        if (st == ST_OK)
            st = incidence_make(&c.in, tris, n, err);
        c.tris = tris;
        if (st == ST_OK && ev[e].change == ST_TOPO_REMOVED && ev[e].vertices) {
            for (size_t k = 0; k < ev[e].n; k++)
                tbs_destroy(&c, (unsigned)k); /* the removed come first, in order */
        } else if (st == ST_OK && ev[e].change == ST_TOPO_ADDED) {
            /* added triangles are after the change's, at their indices */
            size_t removed = n - (after ? after->n : 0);
            for (size_t k = 0; k < ev[e].n; k++)
                tbs_create(&c, (unsigned)(removed + ev[e].index[k]));
        }
        st_free(c.in.s);
        c.in.s = NULL;
        st_free(tris);
    }
    st_free(c.edges.s);
    return st == ST_OK ? tbs_springs(b, err) : st;
}

/* New edges are not initialised (SOFA's applyEdgeCreation): zero-filled. */
static const st_topo_follow_ops tbs_edge_ops = {.struct_size = sizeof(st_topo_follow_ops)};

static st_status tbs_init(st_component *self, st_error *err)
{
    tri_bending *b = (tri_bending *)self;
    springs_free(&b->h.set);
    st_mstate *ms = NULL;
    const st_array *tris = NULL;
    elem_edges ee;
    ST_TRY(bending_elements(self, &b->topology, &ms, ST_T_TRIANGLES, 3, &tris, &ee, err));
    elem_edges_free(&ee);
    b->h.set.ms1 = b->h.set.ms2 = ms;
    b->h.set.min_length = 1.0e-4;
    if (!tris)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "object must have a Triangular Set Topology ('%s' has no "
                                  "triangles)",
                                  b->topology->name);
    if (b->followed != b->topology) {
        ST_TRY(st_topology_follow(self, b->topology, ST_ELEM_EDGE, (void **)&b->info, &b->ninfo,
                                  sizeof *b->info, &tbs_edge_ops, b, err));
        ST_TRY(st_topology_listen(self, b->topology, tbs_changed, err));
        b->followed = b->topology;
    }
    /* SOFA's reinit: every edge cleared, then every triangle created */
    const st_array *edges = b->topology->cls->topology->elements(b->topology, ST_T_EDGES);
    size_t ne = edges ? edges->n : 0;
    if (b->ninfo != ne) {
        tbs_edge *info = st_realloc(b->info, (ne + 1) * sizeof *info);
        if (!info)
            return st_error_set(err, ST_ENOMEM, "out of memory (%zu edges)", ne);
        b->info = info;
        b->ninfo = ne;
    }
    memset(b->info, 0, ne * sizeof *b->info);
    tbs_ctx c = {.b = b, .x0 = ms->rest_position.r, .np = ms->rest_position.n, .tris = tris->u};
    ST_TRY(edges_make(&c.edges, edges, err));
    st_status st = incidence_make(&c.in, tris->u, tris->n, err);
    for (size_t k = 0; k < tris->n && st == ST_OK; k++)
        tbs_create(&c, (unsigned)k);
    st_free(c.in.s);
    st_free(c.edges.s);
    return st == ST_OK ? tbs_springs(b, err) : st;
}

static void tbs_cleanup(st_component *self)
{
    tri_bending *b = (tri_bending *)self;
    springs_free(&b->h.set);
    st_free(b->info);
    b->info = NULL;
    b->ninfo = 0;
}

/* The edges' information is a followed array (the checkpoint holds it);
 * the springs are made again from it. */
static st_status tbs_transfer(st_component *self, st_checkpoint *ck, st_error *err)
{
    (void)ck;
    return st_checkpoint_reading(ck) ? tbs_springs((tri_bending *)self, err) : ST_OK;
}

static const st_checkpoint_ops tbs_checkpoint_ops = {sizeof(st_checkpoint_ops), tbs_transfer};

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
    .checkpoint = &tbs_checkpoint_ops,
};
