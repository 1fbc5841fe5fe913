/* incision_shells.c - SOFA's around-arrays of a triangle container, kept
 * the way SOFA's TriangleSetTopologyContainer and its modifiers keep them,
 * for the incision (incision.c), whose path and whose choice of the side
 * that takes the copies read them in their order:
 *
 * - at init (createEdgesAroundVertexArray, createTrianglesAroundVertexArray,
 *   createTrianglesAroundEdgeArray): edgesAroundVertex lists each vertex's
 *   edges by increasing index, trianglesAroundVertex its triangles by
 *   increasing index; trianglesAroundEdge lists an edge's triangles by
 *   increasing index, except that a triangle that runs along the edge as it
 *   is stored (edge (a, b), the triangle's vertices a then b) goes to the
 *   front when it comes;
 * - an added edge or triangle is appended to the lists of its vertices (and
 *   a triangle to those of its edges, found as SOFA's getEdgeIndex: the
 *   first edge around its first vertex that reaches the second);
 * - a removed triangle or edge leaves the lists it was in (the others keep
 *   their order), and the element that moves into its place (the last one)
 *   is renamed where it stood; a removed point takes the lists of the point
 *   that moves into its place.
 * The lists follow the container's changes through its events
 * (st_topology_listen), which carry SOFA's orders. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "incision.h"

static bool grow(ulist *l, size_t want)
{
    if (want <= l->cap)
        return true;
    size_t cap = l->cap ? l->cap : 8;
    while (cap < want)
        cap *= 2;
    unsigned *u = st_realloc(l->u, cap * sizeof *u);
    if (!u)
        return false;
    l->u = u;
    l->cap = cap;
    return true;
}

bool ulist_push(ulist *l, unsigned v)
{
    if (!grow(l, l->n + 1))
        return false;
    l->u[l->n++] = v;
    return true;
}

static bool push_front(ulist *l, unsigned v)
{
    if (!grow(l, l->n + 1))
        return false;
    memmove(l->u + 1, l->u, l->n * sizeof *l->u);
    l->u[0] = v;
    l->n++;
    return true;
}

/* SOFA's erase(remove(...)): every v leaves, the others keep their order. */
static void erase(ulist *l, unsigned v)
{
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->u[i] != v)
            l->u[k++] = l->u[i];
    l->n = k;
}

static void rename_in(ulist *l, unsigned from, unsigned to)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->u[i] == from)
            l->u[i] = to;
}

/* Resizes an array of lists (freeing those cut off). */
static bool lists_resize(ulist **a, size_t *n, size_t *cap, size_t want)
{
    if (want > *cap) {
        size_t c = *cap ? *cap : 16;
        while (c < want)
            c *= 2;
        ulist *p = st_realloc(*a, c * sizeof *p);
        if (!p)
            return false;
        *a = p;
        *cap = c;
    }
    for (size_t i = *n; i < want; i++)
        (*a)[i] = (ulist){0};
    for (size_t i = want; i < *n; i++)
        st_free((*a)[i].u);
    *n = want;
    return true;
}

static void lists_free(ulist *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        st_free(a[i].u);
    st_free(a);
}

static void shells_clear(inc_shells *s)
{
    lists_free(s->tav, s->np);
    lists_free(s->eav, s->np);
    lists_free(s->tae, s->ne);
    st_free(s->tris.u);
    st_free(s->tedges.u);
    st_free(s->edges.u);
    st_component *topo = s->topo;
    memset(s, 0, sizeof *s);
    s->topo = topo;
}

void inc_shells_free(inc_shells *s)
{
    if (s)
        shells_clear(s);
}

/* Moves a list (the hole's old list is freed). */
static void move_list(ulist *a, size_t to, size_t from)
{
    st_free(a[to].u);
    a[to] = a[from];
    a[from] = (ulist){0};
}

unsigned inc_shells_edge(const inc_shells *s, unsigned a, unsigned b)
{
    if (a >= s->np)
        return UINT_MAX;
    const ulist *l = &s->eav[a];
    for (size_t i = 0; i < l->n; i++) {
        const unsigned *e = s->edges.u + 2 * (size_t)l->u[i];
        if (e[0] == b || e[1] == b)
            return l->u[i];
    }
    return UINT_MAX;
}

static bool add_points(inc_shells *s, size_t n)
{
    size_t cap_t = s->cap_p, np = s->np;
    if (!lists_resize(&s->tav, &np, &cap_t, s->np + n))
        return false;
    size_t np2 = s->np, cap_e = s->cap_pe;
    if (!lists_resize(&s->eav, &np2, &cap_e, s->np + n))
        return false;
    s->cap_p = cap_t;
    s->cap_pe = cap_e;
    s->np = np;
    return true;
}

static bool add_edge(inc_shells *s, unsigned a, unsigned b)
{
    unsigned id = (unsigned)(s->edges.n / 2);
    size_t hi = (a > b ? a : b) + 1;
    if (hi > s->np && !add_points(s, hi - s->np))
        return false;
    if (!ulist_push(&s->edges, a) || !ulist_push(&s->edges, b) || !ulist_push(&s->eav[a], id) ||
        !ulist_push(&s->eav[b], id))
        return false;
    size_t ne = s->ne;
    if (!lists_resize(&s->tae, &ne, &s->cap_e, s->ne + 1))
        return false;
    s->ne = ne;
    return true;
}

/* Appends triangle t; init: SOFA's first build (a triangle running along
 * an edge goes to the front of the edge's list). */
static bool add_triangle(inc_shells *s, const unsigned *t, bool init)
{
    unsigned id = (unsigned)(s->tris.n / 3);
    size_t hi = 0;
    for (int j = 0; j < 3; j++)
        hi = t[j] + 1 > hi ? t[j] + 1 : hi;
    if (hi > s->np && !add_points(s, hi - s->np))
        return false;
    for (int j = 0; j < 3; j++)
        if (!ulist_push(&s->tris, t[j]) || !ulist_push(&s->tav[t[j]], id))
            return false;
    for (int j = 0; j < 3; j++) {
        unsigned a = t[(j + 1) % 3], b = t[(j + 2) % 3];
        unsigned e = inc_shells_edge(s, a, b);
        if (e == UINT_MAX) { /* SOFA's addTriangleProcess makes the edge */
            if (!add_edge(s, a, b))
                return false;
            e = (unsigned)(s->edges.n / 2 - 1);
        }
        if (!ulist_push(&s->tedges, e))
            return false;
        bool front = init && s->edges.u[2 * (size_t)e] == a;
        if (!(front ? push_front(&s->tae[e], id) : ulist_push(&s->tae[e], id)))
            return false;
    }
    return true;
}

static void remove_triangle(inc_shells *s, unsigned id)
{
    size_t last = s->tris.n / 3 - 1;
    if (id > last)
        return;
    unsigned *t = s->tris.u + 3 * (size_t)id, *te = s->tedges.u + 3 * (size_t)id;
    for (int j = 0; j < 3; j++) {
        erase(&s->tav[t[j]], id);
        erase(&s->tae[te[j]], id);
    }
    if (id < last) {
        const unsigned *q = s->tris.u + 3 * last, *qe = s->tedges.u + 3 * last;
        for (int j = 0; j < 3; j++) {
            rename_in(&s->tav[q[j]], (unsigned)last, id);
            rename_in(&s->tae[qe[j]], (unsigned)last, id);
        }
        memmove(t, q, 3 * sizeof *t);
        memmove(te, qe, 3 * sizeof *te);
    }
    s->tris.n -= 3;
    s->tedges.n -= 3;
}

static void remove_edge(inc_shells *s, unsigned id)
{
    size_t last = s->edges.n / 2 - 1;
    if (id > last)
        return;
    /* the triangles of the last edge name it by its new index */
    for (size_t i = 0; i < s->tae[last].n; i++) {
        unsigned *te = s->tedges.u + 3 * (size_t)s->tae[last].u[i];
        for (int j = 0; j < 3; j++)
            if (te[j] == last)
                te[j] = id;
    }
    unsigned *e = s->edges.u + 2 * (size_t)id;
    erase(&s->eav[e[0]], id);
    erase(&s->eav[e[1]], id);
    if (id < last) {
        const unsigned *q = s->edges.u + 2 * last;
        rename_in(&s->eav[q[0]], (unsigned)last, id);
        rename_in(&s->eav[q[1]], (unsigned)last, id);
        e[0] = q[0];
        e[1] = q[1];
        move_list(s->tae, id, last);
    }
    st_free(s->tae[last].u);
    s->tae[last] = (ulist){0};
    s->ne--;
    s->edges.n -= 2;
}

static void remove_point(inc_shells *s, unsigned id)
{
    size_t last = s->np - 1;
    if (id > last)
        return;
    for (size_t i = 0; i < s->tav[last].n; i++) {
        unsigned *t = s->tris.u + 3 * (size_t)s->tav[last].u[i];
        for (int j = 0; j < 3; j++)
            if (t[j] == last)
                t[j] = id;
    }
    for (size_t i = 0; i < s->eav[last].n; i++) {
        unsigned *e = s->edges.u + 2 * (size_t)s->eav[last].u[i];
        e[e[0] == last ? 0 : 1] = id;
    }
    if (id < last) {
        move_list(s->tav, id, last);
        move_list(s->eav, id, last);
    }
    st_free(s->tav[last].u);
    st_free(s->eav[last].u);
    s->tav[last] = s->eav[last] = (ulist){0};
    s->np--;
}

static bool same(const ulist *l, const st_array *a, size_t width)
{
    if (!a)
        return l->n == 0;
    if (l->n != a->n * width)
        return false;
    return !l->n || !memcmp(l->u, a->u, l->n * sizeof *l->u);
}

bool inc_shells_build(inc_shells *s, st_component *topo)
{
    shells_clear(s);
    s->topo = topo;
    const st_topology_ops *ops = topo->cls->topology;
    const st_array *tris = ops && ops->elements ? ops->elements(topo, ST_T_TRIANGLES) : NULL;
    const st_array *edges = ops && ops->elements ? ops->elements(topo, ST_T_EDGES) : NULL;
    const st_mstate *ms = st_node_mstate(topo->node);
    size_t np = ms ? ms->n : 0;
    if (!add_points(s, np))
        goto fail;
    if (edges && edges->n) {
        for (size_t i = 0; i < edges->n; i++)
            if (!add_edge(s, edges->u[2 * i], edges->u[2 * i + 1]))
                goto fail;
    } else if (tris) {
        /* SOFA's createEdgeSetArray: each triangle's sides in turn */
        for (size_t i = 0; i < tris->n; i++)
            for (int j = 0; j < 3; j++) {
                unsigned a = tris->u[3 * i + (size_t)(j + 1) % 3],
                         b = tris->u[3 * i + (size_t)(j + 2) % 3];
                if (inc_shells_edge(s, a, b) == UINT_MAX && !add_edge(s, a, b))
                    goto fail;
            }
    }
    for (size_t i = 0; tris && i < tris->n; i++)
        if (!add_triangle(s, tris->u + 3 * i, true))
            goto fail;
    s->valid = true;
    return true;
fail:
    shells_clear(s);
    return false;
}

bool inc_shells_current(const inc_shells *s)
{
    if (!s || !s->valid || !s->topo)
        return false;
    const st_topology_ops *ops = s->topo->cls->topology;
    const st_array *tris = ops && ops->elements ? ops->elements(s->topo, ST_T_TRIANGLES) : NULL;
    const st_array *edges = ops && ops->elements ? ops->elements(s->topo, ST_T_EDGES) : NULL;
    if (!same(&s->tris, tris, 3))
        return false;
    return !edges || !edges->n || same(&s->edges, edges, 2);
}

st_status inc_shells_apply(inc_shells *s, const st_topo_event *ev, size_t nev, st_error *err)
{
    if (!s->valid)
        return ST_OK;
    for (size_t k = 0; k < nev; k++) {
        const st_topo_event *e = &ev[k];
        size_t have = e->elem == ST_ELEM_POINT      ? s->np
                      : e->elem == ST_ELEM_EDGE     ? s->edges.n / 2
                      : e->elem == ST_ELEM_TRIANGLE ? s->tris.n / 3
                                                    : e->before;
        if (e->before != have) {
            /* out of step with the container: made again at the next cut */
            shells_clear(s);
            return ST_OK;
        }
        bool ok = true;
        if (e->change == ST_TOPO_ADDED) {
            if (e->elem == ST_ELEM_POINT)
                ok = add_points(s, e->n);
            else if (e->elem == ST_ELEM_EDGE)
                for (size_t i = 0; i < e->n && ok; i++)
                    ok = add_edge(s, e->vertices[2 * i], e->vertices[2 * i + 1]);
            else if (e->elem == ST_ELEM_TRIANGLE)
                for (size_t i = 0; i < e->n && ok; i++)
                    ok = add_triangle(s, e->vertices + 3 * i, false);
        } else {
            for (size_t i = 0; i < e->n; i++) {
                if (e->elem == ST_ELEM_POINT)
                    remove_point(s, e->index[i]);
                else if (e->elem == ST_ELEM_EDGE)
                    remove_edge(s, e->index[i]);
                else if (e->elem == ST_ELEM_TRIANGLE)
                    remove_triangle(s, e->index[i]);
            }
        }
        if (!ok) {
            shells_clear(s);
            return st_error_set(err, ST_ENOMEM, "out of memory");
        }
    }
    return ST_OK;
}

/* One list in a checkpoint: its length, then its entries. */
static st_status xfer_list(ulist *l, st_checkpoint *ck, bool rd, st_error *err)
{
    uint64_t n = l->n;
    ST_TRY(st_checkpoint_data(ck, &n, sizeof n, err));
    if (rd) {
        if (n > ((size_t)1 << 40))
            return st_error_set(err, ST_EINVAL, "the checkpoint's incision lists are corrupt");
        l->n = 0;
        if (!grow(l, (size_t)n))
            return st_error_set(err, ST_ENOMEM, "out of memory");
        l->n = (size_t)n;
    }
    return n ? st_checkpoint_data(ck, l->u, (size_t)n * sizeof *l->u, err) : ST_OK;
}

st_status inc_shells_transfer(inc_shells *s, st_checkpoint *ck, st_error *err)
{
    bool rd = st_checkpoint_reading(ck);
    uint64_t h[3] = {s->valid, s->np, s->ne};
    ST_TRY(st_checkpoint_data(ck, h, sizeof h, err));
    if (rd) {
        shells_clear(s);
        if (!h[0])
            return ST_OK;
        if (h[1] > ((size_t)1 << 40) || h[2] > ((size_t)1 << 40))
            return st_error_set(err, ST_EINVAL, "the checkpoint's incision lists are corrupt");
        size_t np = 0, ne = 0;
        if (!lists_resize(&s->tav, &np, &s->cap_p, (size_t)h[1]) ||
            !lists_resize(&s->eav, &(size_t){0}, &s->cap_pe, (size_t)h[1]) ||
            !lists_resize(&s->tae, &ne, &s->cap_e, (size_t)h[2])) {
            shells_clear(s);
            return st_error_set(err, ST_ENOMEM, "out of memory");
        }
        s->np = np;
        s->ne = ne;
        s->valid = true;
    } else if (!s->valid) {
        return ST_OK;
    }
    st_status st = ST_OK;
    ulist *flat[] = {&s->tris, &s->tedges, &s->edges};
    for (size_t i = 0; i < 3 && st == ST_OK; i++)
        st = xfer_list(flat[i], ck, rd, err);
    for (size_t i = 0; i < s->np && st == ST_OK; i++)
        st = xfer_list(&s->tav[i], ck, rd, err);
    for (size_t i = 0; i < s->np && st == ST_OK; i++)
        st = xfer_list(&s->eav[i], ck, rd, err);
    for (size_t i = 0; i < s->ne && st == ST_OK; i++)
        st = xfer_list(&s->tae[i], ck, rd, err);
    if (st != ST_OK && rd)
        shells_clear(s);
    return st;
}
