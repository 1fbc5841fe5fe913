/* dynamic_change.c - removing elements from the dynamic containers
 * (st_topology_ops.remove), as SOFA's *SetTopologyModifier::remove* do:
 *
 * 1. the ids are filtered (an id out of range is skipped with SOFA's
 *    warning) and sorted in descending order; a repeated id removes the
 *    element that moved into that place in the meantime, as in SOFA (an id
 *    that no longer exists by its turn is skipped with a warning where SOFA
 *    would read past its array);
 * 2. each removed element is replaced by the container's last one;
 * 3. the sub-elements (faces, edges) and the points that belonged only to
 *    removed elements are removed in turn, each kind sorted in descending
 *    order, faces first, then edges, then points (SOFA's
 *    removeIsolatedItems / removeIsolatedEdges / removeIsolatedPoints); a
 *    removed point is replaced by the last point, in every element list and
 *    in the container's positions;
 * 4. the whole change is announced once, as an ordered list of events
 *    (st_topology_changed): the followed data of every component are
 *    renumbered by the kernel, event by event.
 * A sub-element or point is isolated when the removal of an element leaves
 * it used by no element of the removed kind: SOFA's shells
 * (trianglesAroundEdge, tetrahedraAroundVertex, ...) emptied as each
 * element goes, here counters, decremented in the same order. */
#include <stdlib.h>
#include <string.h>

#include "topology.h"

/* The container's list of a kind, or NULL for points. */
static st_array *list_of(topo *t, st_elem e)
{
    switch (e) {
    case ST_ELEM_EDGE: return &t->edges;
    case ST_ELEM_TRIANGLE: return &t->triangles;
    case ST_ELEM_QUAD: return &t->quads;
    case ST_ELEM_TETRAHEDRON: return &t->tetrahedra;
    case ST_ELEM_HEXAHEDRON: return &t->hexahedra;
    default: return NULL;
    }
}

static const char *const list_field[ST_ELEM_COUNT] = {"position",  "edges",      "triangles",
                                                      "quads",     "tetrahedra", "hexahedra"};

/* Points of the container: its positions, else nbPoints, else one more
 * than the largest index used. */
static size_t point_count(topo *t)
{
    if (t->position.n)
        return t->position.n;
    if (t->nb_points)
        return t->nb_points;
    size_t n = 0;
    for (int e = ST_ELEM_EDGE; e < ST_ELEM_COUNT; e++) {
        st_array *a = list_of(t, (st_elem)e);
        size_t total = a->n * st_elem_vertices((st_elem)e);
        for (size_t i = 0; i < total; i++)
            if ((size_t)a->u[i] + 1 > n)
                n = (size_t)a->u[i] + 1;
    }
    /* a container without positions nor nbPoints counts the points of the
     * state beside it too (a point cloud of ParticleSource/ParticleSink) */
    const st_mstate *ms = t->base.node ? st_node_mstate(t->base.node) : NULL;
    if (ms && ms->n > n)
        n = ms->n;
    return n;
}

/* The sub-elements of one element, as local vertex tuples (SOFA's
 * numbering of tetrahedron and hexahedron vertices). */
static const unsigned tet_faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
static const unsigned tet_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
static const unsigned hexa_faces[6][4] = {{0, 1, 2, 3}, {4, 7, 6, 5}, {1, 0, 4, 5},
                                          {1, 5, 6, 2}, {2, 6, 7, 3}, {0, 3, 7, 4}};
static const unsigned hexa_edges[12][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                           {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
static const unsigned tri_edges[3][2] = {{1, 2}, {2, 0}, {0, 1}};
static const unsigned quad_edges[4][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};

typedef struct sub_shape {
    st_elem kind;
    unsigned count, width;
    const unsigned *local; /* count * width */
} sub_shape;

/* The sub-element kinds of kind e that the container may hold, faces first. */
static size_t sub_shapes(st_elem e, sub_shape out[2])
{
    switch (e) {
    case ST_ELEM_TETRAHEDRON:
        out[0] = (sub_shape){ST_ELEM_TRIANGLE, 4, 3, &tet_faces[0][0]};
        out[1] = (sub_shape){ST_ELEM_EDGE, 6, 2, &tet_edges[0][0]};
        return 2;
    case ST_ELEM_HEXAHEDRON:
        out[0] = (sub_shape){ST_ELEM_QUAD, 6, 4, &hexa_faces[0][0]};
        out[1] = (sub_shape){ST_ELEM_EDGE, 12, 2, &hexa_edges[0][0]};
        return 2;
    case ST_ELEM_TRIANGLE:
        out[0] = (sub_shape){ST_ELEM_EDGE, 3, 2, &tri_edges[0][0]};
        return 1;
    case ST_ELEM_QUAD:
        out[0] = (sub_shape){ST_ELEM_EDGE, 4, 2, &quad_edges[0][0]};
        return 1;
    default: return 0;
    }
}

static int cmp_desc(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x < y) - (x > y);
}

static void sort_desc(unsigned *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_desc);
}

/* Sorts descending and drops duplicates; returns the new count. */
static size_t sort_desc_unique(unsigned *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_desc);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

/* One event being prepared: its indices and the removed elements' vertices. */
typedef struct pending {
    st_elem elem;
    unsigned *index;
    size_t n, before;
    unsigned *vertices;
} pending;

static void pending_free(pending *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        st_free(p[i].index);
        st_free(p[i].vertices);
        p[i].index = p[i].vertices = NULL;
    }
}

/* Removes p->index (descending) from list a of kind e: the last element
 * fills each hole. Records the removed elements' vertices. */
static st_status remove_from_list(st_array *a, pending *p, st_error *err)
{
    unsigned w = st_elem_vertices(p->elem);
    p->before = a->n;
    p->vertices = st_malloc((p->n ? p->n : 1) * w * sizeof(unsigned));
    if (!p->vertices)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t last = a->n;
    for (size_t k = 0; k < p->n; k++) {
        unsigned i = p->index[k];
        last--;
        memcpy(p->vertices + k * w, a->u + (size_t)i * w, w * sizeof(unsigned));
        if (i != last)
            memcpy(a->u + (size_t)i * w, a->u + last * w, w * sizeof(unsigned));
    }
    a->n -= p->n;
    return ST_OK;
}

/* The key of a sub-element: its vertices sorted. */
static void sub_key(const unsigned *elem, const sub_shape *sh, unsigned s, unsigned *key)
{
    for (unsigned v = 0; v < sh->width; v++)
        key[v] = elem[sh->local[s * sh->width + v]];
    topo_sort_small(key, sh->width);
}

/* Index of each element of a list by its sorted key. With first (may be
 * NULL), first[k] is the list index of the set's key k: the first element
 * of that key (a list holding one key twice, as a grid's edges renumbered
 * by point removals may, keeps its set and list indices apart). */
static st_status index_list_ex(topo *t, st_elem kind, tuple_set *set, size_t **first,
                               st_error *err)
{
    st_array *a = list_of(t, kind);
    unsigned w = st_elem_vertices(kind);
    memset(set, 0, sizeof *set);
    set->width = w;
    if (first) {
        *first = st_malloc((a->n + 1) * sizeof **first);
        if (!*first)
            return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    unsigned key[8];
    for (size_t i = 0; i < a->n; i++) {
        memcpy(key, a->u + i * w, w * sizeof(unsigned));
        topo_sort_small(key, w);
        bool inserted;
        ST_TRY(tuple_set_insert(set, key, &inserted, err));
        if (inserted && first)
            (*first)[set->n - 1] = i;
    }
    return ST_OK;
}

static st_status index_list(topo *t, st_elem kind, tuple_set *set, st_error *err)
{
    return index_list_ex(t, kind, set, NULL, err);
}

/* The elements a container of this class may hold (SOFA's class chain). */
static bool holds(topo *t, st_elem e)
{
    if (e == ST_ELEM_POINT)
        return true;
    return st_component_field(&t->base, list_field[e]) != NULL;
}

/* SOFA's shell of one kind of sub-element: how many elements of the
 * removed kind use each sub-element. */
typedef struct shell {
    const sub_shape *sh;
    tuple_set set;
    size_t *first;  /* list index of each key of set */
    unsigned *cnt;  /* by list index */
    size_t nsub;
    pending *out;   /* the isolated ones, in the order found */
} shell;

static void shell_free(shell *sl)
{
    tuple_set_free(&sl->set);
    st_free(sl->first);
    st_free(sl->cnt);
}

/* Counts every sub-element's elements (list a of kind). */
static st_status shell_build(topo *t, st_array *a, st_elem kind, shell *sl, st_error *err)
{
    st_array *subs = list_of(t, sl->sh->kind);
    sl->nsub = subs->n;
    ST_TRY(index_list_ex(t, sl->sh->kind, &sl->set, &sl->first, err));
    sl->cnt = st_calloc(subs->n ? subs->n : 1, sizeof *sl->cnt);
    if (!sl->cnt)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    unsigned w = st_elem_vertices(kind), key[8];
    for (size_t i = 0; i < a->n; i++)
        for (unsigned s = 0; s < sl->sh->count; s++) {
            sub_key(a->u + i * w, sl->sh, s, key);
            size_t k = tuple_set_find(&sl->set, key);
            if (k < sl->set.n)
                sl->cnt[sl->first[k]]++;
        }
    return ST_OK;
}

/* The element elem leaves: its sub-elements whose count falls to 0 are
 * isolated. */
static void shell_leave(shell *sl, const unsigned *elem)
{
    unsigned key[8];
    for (unsigned s = 0; s < sl->sh->count; s++) {
        sub_key(elem, sl->sh, s, key);
        size_t k = tuple_set_find(&sl->set, key);
        if (k >= sl->set.n)
            continue;
        k = sl->first[k];
        if (sl->cnt[k] && --sl->cnt[k] == 0)
            sl->out->index[sl->out->n++] = (unsigned)k;
    }
}

/* Removes the elements ev[0].index (descending, repeats allowed) of kind
 * elem from list a, one at a time, finding the sub-elements and points
 * each removal isolates; fills ev[1..] with them (faces, edges, points)
 * and returns their count in *nev. */
static st_status remove_elements(topo *t, st_elem elem, st_array *a, pending *ev, size_t *nev,
                                 bool rm_subs, bool rm_points, st_error *err)
{
    sub_shape sh[2];
    size_t nsh = sub_shapes(elem, sh), nsl = 0;
    shell sl[2];
    memset(sl, 0, sizeof sl);
    unsigned w = st_elem_vertices(elem);
    size_t np = point_count(t), nrem = ev[0].n;
    unsigned *pcnt = st_calloc(np ? np : 1, sizeof *pcnt);
    st_status st = pcnt ? ST_OK : st_error_set(err, ST_ENOMEM, "out of memory");
    *nev = 1;
    for (size_t s = 0; s < nsh && st == ST_OK && rm_subs; s++) {
        if (!holds(t, sh[s].kind) || !list_of(t, sh[s].kind)->n)
            continue;
        pending *p = &ev[(*nev)++];
        p->elem = sh[s].kind;
        p->index = st_malloc((nrem * sh[s].count + 1) * sizeof(unsigned));
        sl[nsl] = (shell){.sh = &sh[s], .out = p};
        st = p->index ? shell_build(t, a, elem, &sl[nsl], err)
                      : st_error_set(err, ST_ENOMEM, "out of memory");
        nsl++;
    }
    pending *pts = &ev[*nev];
    if (st == ST_OK) {
        (*nev)++;
        pts->elem = ST_ELEM_POINT;
        pts->index = st_malloc((nrem * w + 1) * sizeof(unsigned));
        ev[0].vertices = st_malloc((nrem ? nrem : 1) * w * sizeof(unsigned));
        if (!pts->index || !ev[0].vertices)
            st = st_error_set(err, ST_ENOMEM, "out of memory");
    }
    if (st == ST_OK)
        for (size_t i = 0; i < a->n * w; i++)
            if (a->u[i] < np)
                pcnt[a->u[i]]++;
    ev[0].before = a->n;
    size_t kept = 0;
    for (size_t k = 0; k < nrem && st == ST_OK; k++) {
        unsigned i = ev[0].index[k];
        if (i >= a->n) {
            st_component_warn(&t->base,
                              "Remove%s: %s %u no longer exists after the removals before it "
                              "(a repeated index) and won't be removed",
                              st_elem_name(elem), st_elem_name(elem), i);
            continue;
        }
        const unsigned *e = a->u + (size_t)i * w;
        for (size_t s = 0; s < nsl; s++)
            shell_leave(&sl[s], e);
        for (unsigned v = 0; v < w && rm_points; v++)
            if (e[v] < np && pcnt[e[v]] && --pcnt[e[v]] == 0)
                pts->index[pts->n++] = e[v];
        memcpy(ev[0].vertices + kept * w, e, w * sizeof(unsigned));
        ev[0].index[kept++] = i;
        size_t last = a->n - 1;
        if (i != last)
            memcpy(a->u + (size_t)i * w, a->u + last * w, w * sizeof(unsigned));
        a->n--;
    }
    ev[0].n = kept;
    for (size_t s = 0; s < nsl; s++)
        shell_free(&sl[s]);
    st_free(pcnt);
    return st;
}

/* Removes points p->index (descending): the last point takes each one's
 * place in every element list and in the positions. */
static void remove_points(topo *t, pending *p)
{
    size_t np = point_count(t);
    p->before = np;
    for (size_t k = 0; k < p->n; k++) {
        unsigned id = p->index[k];
        unsigned last = (unsigned)(np - 1 - k);
        for (int e = ST_ELEM_EDGE; e < ST_ELEM_COUNT; e++) {
            st_array *a = list_of(t, (st_elem)e);
            size_t total = a->n * st_elem_vertices((st_elem)e);
            for (size_t i = 0; i < total; i++)
                if (a->u[i] == last)
                    a->u[i] = id;
        }
        if (t->position.n == np - k && id != last)
            memcpy(t->position.r + 3 * (size_t)id, t->position.r + 3 * (size_t)last,
                   3 * sizeof(double));
    }
    if (t->position.n == np)
        t->position.n -= p->n;
    if (t->nb_points >= p->n)
        t->nb_points -= (unsigned)p->n;
}

static void touch_list(topo *t, st_elem e)
{
    const st_field *f = st_component_field(&t->base, list_field[e]);
    if (f)
        st_component_touch(&t->base, f);
}

/* Whether elements of kind e are made of elements of kind sub. */
static bool made_of(st_elem e, st_elem sub)
{
    switch (sub) {
    case ST_ELEM_EDGE: return e > ST_ELEM_EDGE;
    case ST_ELEM_TRIANGLE: return e == ST_ELEM_TETRAHEDRON;
    case ST_ELEM_QUAD: return e == ST_ELEM_HEXAHEDRON;
    default: return false;
    }
}

bool topo_can_change(const st_component *self, st_topo_change change, st_elem elem)
{
    topo *t = (topo *)self;
    if (t->kind != TOPO_DYNAMIC || (unsigned)elem >= ST_ELEM_COUNT)
        return false;
    if (change == ST_TOPO_ADDED && elem == ST_ELEM_POINT)
        return true;
    return holds(t, elem);
}

st_status topo_remove(st_component *self, st_elem elem, const unsigned *ids, size_t n,
                      st_error *err)
{
    return topo_remove_ex(self, elem, ids, n, true, true, err);
}

st_status topo_remove_ex(st_component *self, st_elem elem, const unsigned *ids, size_t n,
                         bool rm_subs, bool rm_points, st_error *err)
{
    topo *t = (topo *)self;
    if (t->kind != TOPO_DYNAMIC)
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "%s cannot change while the scene runs: use one of the "
                                  "*SetTopologyContainer classes",
                                  self->cls->name);
    if (!holds(t, elem))
        return st_component_error(self, NULL, err, ST_EINVAL, "%s holds no %s to remove",
                                  self->cls->name, st_elem_name(elem));
    ST_TRY(topo_ensure_lists(t, err));
    st_array *a = list_of(t, elem);
    size_t count = a ? a->n : point_count(t);
    pending ev[4];
    memset(ev, 0, sizeof ev);
    ev[0].elem = elem;
    ev[0].index = st_malloc((n ? n : 1) * sizeof(unsigned));
    if (!ev[0].index)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t nev = 1; /* what pending_free releases, whatever fails below */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] >= count) {
            st_component_warn(self, "Remove%s: %s %u is out of bound (%zu %s) and won't be "
                              "removed",
                              st_elem_name(elem), st_elem_name(elem), ids[i], count,
                              st_elem_name(elem));
            continue;
        }
        ev[0].index[k++] = ids[i];
    }
    st_status st = ST_OK;
    if (elem == ST_ELEM_POINT) {
        ev[0].n = sort_desc_unique(ev[0].index, k);
        nev = 1;
        /* Points still used by an element cannot go (SOFA would leave the
         * elements pointing past the end). */
        for (int e = ST_ELEM_EDGE; e < ST_ELEM_COUNT && st == ST_OK; e++) {
            st_array *l = list_of(t, (st_elem)e);
            size_t total = l->n * st_elem_vertices((st_elem)e);
            for (size_t i = 0; i < total && st == ST_OK; i++)
                for (size_t r = 0; r < ev[0].n; r++)
                    if (l->u[i] == ev[0].index[r]) {
                        st = st_component_error(self, NULL, err, ST_EINVAL,
                                                "point %u is used by %s %zu: remove the "
                                                "elements first",
                                                ev[0].index[r], st_elem_name((st_elem)e),
                                                i / st_elem_vertices((st_elem)e));
                        break;
                    }
        }
        if (st == ST_OK && ev[0].n)
            remove_points(t, &ev[0]);
    } else {
        /* Elements that higher ones are made of stay while those do. */
        for (int e = (int)elem + 1; e < ST_ELEM_COUNT && st == ST_OK; e++)
            if (made_of((st_elem)e, elem) && holds(t, (st_elem)e) && list_of(t, (st_elem)e)->n)
                st = st_component_error(self, NULL, err, ST_EINVAL,
                                        "%s holds %s made of its %s: remove the %s instead",
                                        self->cls->name, st_elem_name((st_elem)e),
                                        st_elem_name(elem), st_elem_name((st_elem)e));
        ev[0].n = k;
        sort_desc(ev[0].index, k);
        if (st == ST_OK)
            st = remove_elements(t, elem, a, ev, &nev, rm_subs, rm_points, err);
        /* Then the isolated faces and edges, each kind descending, then the
         * isolated points. */
        for (size_t e = 1; e < nev && st == ST_OK; e++) {
            sort_desc(ev[e].index, ev[e].n);
            if (!ev[e].n)
                continue;
            if (ev[e].elem == ST_ELEM_POINT)
                remove_points(t, &ev[e]);
            else
                st = remove_from_list(list_of(t, ev[e].elem), &ev[e], err);
        }
    }
    /* Events without elements are not announced. */
    size_t m = 0;
    for (size_t e = 0; e < nev; e++) {
        if (ev[e].n) {
            pending keep = ev[e];
            ev[e] = ev[m];
            ev[m++] = keep;
        }
    }
    if (st == ST_OK) {
        st_topo_event out[4];
        for (size_t e = 0; e < m; e++) {
            out[e] = (st_topo_event){.change = ST_TOPO_REMOVED,
                                     .elem = ev[e].elem,
                                     .n = ev[e].n,
                                     .before = ev[e].before,
                                     .index = ev[e].index,
                                     .vertices = ev[e].vertices};
            touch_list(t, ev[e].elem);
        }
        if (m)
            st = st_topology_changed(self, out, m, err);
    }
    pending_free(ev, nev);
    return st;
}

/* SOFA's faces of a volume as its modifier creates them, slot by slot
 * (trianglesOrientationInTetrahedronArray, quadsOrientationInHexahedronArray),
 * and its edges in edgesInTetrahedron / edgesInHexahedron order. */
static const unsigned tet_faces_oriented[4][3] = {{1, 2, 3}, {0, 3, 2}, {1, 3, 0}, {0, 2, 1}};
static const unsigned hexa_faces_oriented[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                                   {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};

/* The lists an addition grows, and how to put them back when it fails. */
typedef struct adder {
    topo *t;
    tuple_set edge_set, face_set;
    bool with_edges, with_faces;
    st_elem face;
} adder;

static st_type list_type(st_elem e)
{
    switch (e) {
    case ST_ELEM_EDGE: return ST_T_EDGES;
    case ST_ELEM_TRIANGLE: return ST_T_TRIANGLES;
    case ST_ELEM_QUAD: return ST_T_QUADS;
    case ST_ELEM_TETRAHEDRON: return ST_T_TETRAS;
    default: return ST_T_HEXAS;
    }
}

/* Appends edge (a, b) when the container lacks it (SOFA's addEdgesProcess
 * after getEdgeIndex found nothing). */
static st_status add_edge_if_new(adder *ad, unsigned a, unsigned b, st_error *err)
{
    unsigned e[2] = {a, b};
    unsigned key[2] = {a < b ? a : b, a < b ? b : a};
    bool fresh = false;
    ST_TRY(tuple_set_insert(&ad->edge_set, key, &fresh, err));
    return fresh ? topo_push(&ad->t->edges, ST_T_EDGES, e, err) : ST_OK;
}

/* SOFA's addTriangleProcess / addQuadProcess: the face's missing edges
 * (f[(j+1)%w], f[(j+2)%w]), j = 0..w-1, then the face. */
static st_status add_face(adder *ad, st_elem kind, const unsigned *f, st_error *err)
{
    unsigned w = st_elem_vertices(kind);
    for (unsigned j = 0; j < w && ad->with_edges; j++)
        ST_TRY(add_edge_if_new(ad, f[(j + 1) % w], f[(j + 2) % w], err));
    return topo_push(list_of(ad->t, kind), list_type(kind), f, err);
}

/* SOFA's addTetrahedronProcess / addHexahedronProcess: each face slot the
 * container lacks is created (with its edges), then the missing edges, then
 * the volume. */
static st_status add_volume(adder *ad, st_elem kind, const unsigned *v, st_error *err)
{
    sub_shape sh[2];
    sub_shapes(kind, sh);
    const unsigned *slots =
        kind == ST_ELEM_TETRAHEDRON ? &tet_faces_oriented[0][0] : &hexa_faces_oriented[0][0];
    unsigned fw = st_elem_vertices(ad->face);
    for (unsigned s = 0; s < sh[0].count && ad->with_faces; s++) {
        unsigned f[4], key[4];
        for (unsigned j = 0; j < fw; j++)
            f[j] = key[j] = v[slots[s * fw + j]];
        topo_sort_small(key, fw);
        bool fresh = false;
        ST_TRY(tuple_set_insert(&ad->face_set, key, &fresh, err));
        if (fresh)
            ST_TRY(add_face(ad, ad->face, f, err));
    }
    for (unsigned s = 0; s < sh[1].count && ad->with_edges; s++)
        ST_TRY(add_edge_if_new(ad, v[sh[1].local[2 * s]], v[sh[1].local[2 * s + 1]], err));
    return topo_push(list_of(ad->t, kind), list_type(kind), v, err);
}

/* One ADDED event of the elements of kind e from index `before` on. */
static st_topo_event added(st_elem e, size_t before, size_t n, const unsigned *index,
                           const unsigned *verts)
{
    return (st_topo_event){.change = ST_TOPO_ADDED,
                           .elem = e,
                           .n = n,
                           .before = before,
                           .index = index,
                           .vertices = verts};
}

/* SOFA's addEdges / addTriangles / addQuads / addTetrahedra / addHexahedra,
 * then one announcement: [EdgesAdded, (TrianglesAdded | QuadsAdded) for a
 * volume's new faces, XAdded]. SOFA sends one EdgesAdded per new edge and
 * one face event per new face, interleaved: one event per kind leaves every
 * followed array the same, and the topological mappings read only the
 * edges' order (kept) and the volumes'. */
st_status topo_add(st_component *self, st_elem elem, const unsigned *verts, size_t n,
                   st_error *err)
{
    topo *t = (topo *)self;
    if (t->kind != TOPO_DYNAMIC)
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "%s cannot change while the scene runs: use one of the "
                                  "*SetTopologyContainer classes",
                                  self->cls->name);
    if (elem == ST_ELEM_POINT || (unsigned)elem >= ST_ELEM_COUNT)
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "adding %s is not supported (edges, triangles, quads, "
                                  "tetrahedra and hexahedra are)",
                                  (unsigned)elem < ST_ELEM_COUNT ? st_elem_name(elem) : "?");
    if (!holds(t, elem))
        return st_component_error(self, NULL, err, ST_EINVAL, "%s holds no %s to add to",
                                  self->cls->name, st_elem_name(elem));
    ST_TRY(topo_ensure_lists(t, err));
    st_array *a = list_of(t, elem);
    unsigned w = st_elem_vertices(elem);
    bool volume = elem == ST_ELEM_TETRAHEDRON || elem == ST_ELEM_HEXAHEDRON;
    adder ad = {.t = t, .face = elem == ST_ELEM_TETRAHEDRON ? ST_ELEM_TRIANGLE : ST_ELEM_QUAD};
    ad.with_edges = elem != ST_ELEM_EDGE && holds(t, ST_ELEM_EDGE);
    ad.with_faces = volume && holds(t, ad.face);
    st_array *faces = volume ? list_of(t, ad.face) : NULL;
    size_t np = point_count(t), maxp = 0;
    for (size_t i = 0; i < n * w; i++)
        if ((size_t)verts[i] + 1 > maxp)
            maxp = (size_t)verts[i] + 1;
    size_t edges_before = t->edges.n, faces_before = faces ? faces->n : 0, before = a->n;
    ad.edge_set.width = 2;
    st_status st = ad.with_edges ? index_list(t, ST_ELEM_EDGE, &ad.edge_set, err) : ST_OK;
    if (st == ST_OK && ad.with_faces)
        st = index_list(t, ad.face, &ad.face_set, err);
    for (size_t k = 0; k < n && st == ST_OK; k++)
        st = volume ? add_volume(&ad, elem, verts + k * w, err)
                    : add_face(&ad, elem, verts + k * w, err);
    tuple_set_free(&ad.edge_set);
    tuple_set_free(&ad.face_set);
    size_t ne = t->edges.n - edges_before, nf = faces ? faces->n - faces_before : 0;
    if (elem == ST_ELEM_EDGE)
        ne = 0; /* the added elements themselves */
    unsigned fw = volume ? st_elem_vertices(ad.face) : 0;
    /* Indices of the new edges, faces and elements, then copies of the new
     * edges' and faces' vertices: a listener may grow the lists. */
    size_t need = ne + nf + n + 2 * ne + fw * nf + 1;
    unsigned *index = st == ST_OK ? st_malloc(need * sizeof *index) : NULL;
    if (st == ST_OK && !index)
        st = st_error_set(err, ST_ENOMEM, "out of memory");
    if (st != ST_OK) {
        /* Back to the lists as they were: nothing was announced. */
        t->edges.n = edges_before;
        if (faces)
            faces->n = faces_before;
        a->n = before;
        st_free(index);
        return st;
    }
    if (maxp > np && !t->position.n)
        t->nb_points = (unsigned)maxp;
    unsigned *eidx = index, *fidx = index + ne, *xidx = index + ne + nf;
    unsigned *edge_verts = xidx + n, *face_verts = edge_verts + 2 * ne;
    for (size_t i = 0; i < ne; i++)
        eidx[i] = (unsigned)(edges_before + i);
    for (size_t i = 0; i < nf; i++)
        fidx[i] = (unsigned)(faces_before + i);
    for (size_t i = 0; i < n; i++)
        xidx[i] = (unsigned)(before + i);
    if (ne)
        memcpy(edge_verts, t->edges.u + 2 * edges_before, 2 * ne * sizeof *edge_verts);
    if (nf)
        memcpy(face_verts, faces->u + fw * faces_before, fw * nf * sizeof *face_verts);
    st_topo_event ev[3];
    size_t nev = 0;
    if (ne) {
        ev[nev++] = added(ST_ELEM_EDGE, edges_before, ne, eidx, edge_verts);
        touch_list(t, ST_ELEM_EDGE);
    }
    if (nf) {
        ev[nev++] = added(ad.face, faces_before, nf, fidx, face_verts);
        touch_list(t, ad.face);
    }
    if (n) {
        ev[nev++] = added(elem, before, n, xidx, verts);
        touch_list(t, elem);
    }
    /* SOFA announces an empty addition too (TrianglesAdded(0)): followers
     * have nothing to do, so settee announces nothing. */
    st = nev ? st_topology_changed(self, ev, nev, err) : ST_OK;
    st_free(index);
    return st;
}

/* SOFA's addPoints(n, ancestors, coefs): nbPoints grows by n and the change
 * [PointsAdded] is announced; the states following the container give the
 * new points their ancestors' weighted values. settee's container also
 * appends the new points' places to its own positions, when it has them,
 * weighted the same way (SOFA's container keeps its initial positions
 * only: settee counts its points by them). */
st_status topo_add_points(st_component *self, size_t n, const size_t *start,
                          const unsigned *anc, const double *coefs, st_error *err)
{
    topo *t = (topo *)self;
    if (t->kind != TOPO_DYNAMIC)
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "%s cannot change while the scene runs: use one of the "
                                  "*SetTopologyContainer classes",
                                  self->cls->name);
    if (!n)
        return ST_OK;
    ST_TRY(topo_ensure_lists(t, err));
    /* Without positions, the container counts its points by its elements:
     * a state beside it may hold more (points no element uses yet), and
     * the new points come after all of them. */
    size_t before = point_count(t);
    const st_mstate *ms = self->node ? st_node_mstate(self->node) : NULL;
    if (!t->position.n && ms && ms->n > before)
        before = ms->n;
    unsigned *index = st_malloc(n * sizeof *index);
    if (!index)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    if (t->position.n == before && before) {
        st_status st = st_array_resize(&t->position, ST_T_VEC3S, before + n, err);
        if (st != ST_OK) {
            st_free(index);
            return st;
        }
        for (size_t k = 0; k < n && start; k++) {
            double *p = t->position.r + 3 * (before + k);
            for (size_t j = start[k]; j < start[k + 1]; j++)
                for (int c = 0; c < 3; c++)
                    p[c] += coefs[j] * t->position.r[3 * (size_t)anc[j] + c];
        }
        touch_list(t, ST_ELEM_POINT);
    }
    if (t->nb_points || !t->position.n) {
        t->nb_points = (unsigned)(before + n);
        const st_field *f = st_component_field(self, "nbPoints");
        if (f)
            st_component_touch(self, f);
    }
    for (size_t k = 0; k < n; k++)
        index[k] = (unsigned)(before + k);
    st_topo_event ev = added(ST_ELEM_POINT, before, n, index, NULL);
    ev.ancestor_start = start;
    ev.ancestors = anc;
    ev.coefs = coefs;
    st_status st = st_topology_changed(self, &ev, 1, err);
    st_free(index);
    return st;
}
