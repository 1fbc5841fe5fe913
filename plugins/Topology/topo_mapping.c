/* topo_mapping.c - what the Topology plugin's topological mappings share:
 * checking their input and output links, emptying and refilling the output
 * container, the grid size of a grid input, and counting how many volumes
 * (or faces) hold each element of a list (to find the border ones). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

st_status topo_map_check(st_component *self, st_component *input, st_component *output,
                         const char *in_what, const char *list, topo_kind kind, const char *want,
                         st_error *err)
{
    if (!input || !input->cls->topology)
        return st_component_error(self, "input", err, ST_ELINK,
                                  "input must link a topology container with %s "
                                  "(e.g. \"@../topology\")",
                                  in_what);
    if (!output || output->cls->topology != &topo_ops || !st_component_field(output, list) ||
        ((topo *)output)->kind != kind)
        return st_component_error(self, "output", err, ST_ELINK, "output must link a %s, got %s",
                                  want, output ? output->cls->name : "nothing");
    return ST_OK;
}

void topo_map_begin(st_component *input, topo *out, const char *const *lists)
{
    for (size_t i = 0; lists[i]; i++) {
        const st_field *f = st_component_field(&out->base, lists[i]);
        if (f)
            st_array_free(st_component_field_ptr(&out->base, f), f->type);
    }
    size_t n = input->cls->topology->nb_points(input);
    /* A dynamic container filled by another mapping has nbPoints and no
     * positions: SOFA's getNbPoints() answers nbPoints there. */
    if (n == 0 && input->cls->topology == &topo_ops && ((topo *)input)->kind == TOPO_DYNAMIC)
        n = ((topo *)input)->nb_points;
    out->nb_points = (unsigned)n;
}

st_status topo_map_end(topo *out, const char *list, st_error *err)
{
    st_component_touch(&out->base, st_component_field(&out->base, list));
    const st_field *fn = st_component_field(&out->base, "nbPoints");
    if (fn)
        st_component_touch(&out->base, fn);
    out->lists_ready = false;
    return topo_mesh_derive(out, err);
}

bool topo_map_grid_cells(st_component *input, int *nx, int *ny)
{
    if (input->cls->topology != &topo_ops)
        return false;
    topo *t = (topo *)input;
    if (!topo_is_grid(t))
        return false;
    grid_geom g;
    topo_grid_geom(t, &g);
    *nx = g.n[0] - 1;
    *ny = g.n[1] - 1;
    return true;
}

st_status topo_map_count_owners(const st_array *list, unsigned w, const st_array *owners,
                                unsigned ow, const unsigned *faces, unsigned nf,
                                unsigned **counts, st_error *err)
{
    *counts = NULL;
    tuple_set set = {.width = w};
    unsigned *c = st_calloc(list->n + 1, sizeof *c);
    if (!c)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    st_status s = ST_OK;
    /* Keys in list order: a key's set index is its list index (lists
     * derived by the containers hold no duplicates). */
    size_t *index = st_calloc(list->n + 1, sizeof *index);
    if (!index)
        s = st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < list->n && s == ST_OK; i++) {
        unsigned key[4];
        memcpy(key, list->u + (size_t)w * i, w * sizeof *key);
        topo_sort_small(key, w);
        bool fresh = false;
        s = tuple_set_insert(&set, key, &fresh, err);
        if (s == ST_OK)
            index[fresh ? set.n - 1 : tuple_set_find(&set, key)] = i;
    }
    for (size_t e = 0; e < owners->n && s == ST_OK; e++)
        for (unsigned f = 0; f < nf; f++) {
            unsigned key[4];
            for (unsigned k = 0; k < w; k++)
                key[k] = owners->u[(size_t)ow * e + faces[w * f + k]];
            topo_sort_small(key, w);
            size_t at = tuple_set_find(&set, key);
            if (at != (size_t)-1)
                c[index[at]]++;
        }
    tuple_set_free(&set);
    st_free(index);
    if (s != ST_OK) {
        st_free(c);
        return s;
    }
    *counts = c;
    return ST_OK;
}

bool topo_map_find_modifier(st_node *n, const char *const *classes)
{
    for (; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            const char *cn = st_node_object(n, i)->cls->name;
            for (size_t k = 0; classes[k]; k++)
                if (!strcmp(cn, classes[k]))
                    return true;
        }
    return false;
}

/* ---- topological changes through a mapping ---- */

#define NO_LOCAL UINT_MAX

static st_type type_of(st_elem e)
{
    switch (e) {
    case ST_ELEM_EDGE: return ST_T_EDGES;
    case ST_ELEM_TRIANGLE: return ST_T_TRIANGLES;
    case ST_ELEM_QUAD: return ST_T_QUADS;
    case ST_ELEM_TETRAHEDRON: return ST_T_TETRAS;
    case ST_ELEM_HEXAHEDRON: return ST_T_HEXAS;
    default: return ST_T_UINTS;
    }
}

/* The kernel appends an output element: its input face is the one queued
 * by this mapping (p->pending), or none when another component added it. */
static void loc_create(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    (void)i;
    (void)ev;
    const topo_map_prop *p = ud;
    *(unsigned *)item = p->pending ? p->pending[k] : NO_LOCAL;
}

static const st_topo_follow_ops loc_ops = {.struct_size = sizeof(st_topo_follow_ops),
                                           .create = loc_create};

static st_status grow_u(unsigned **a, size_t *cap, size_t want, st_error *err)
{
    if (want <= *cap)
        return ST_OK;
    size_t c = *cap ? 2 * *cap : 64;
    while (c < want)
        c *= 2;
    unsigned *q = st_realloc(*a, c * sizeof *q);
    if (!q)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    *a = q;
    *cap = c;
    return ST_OK;
}

/* The input's vols (slot 0) and faces (slot 1) as they are now. */
static st_status shadow_copy(topo_map_prop *p, st_error *err)
{
    st_elem kinds[2] = {p->d->vol, p->d->face};
    for (int s = 0; s < 2; s++) {
        p->nshadow[s] = 0;
        if (kinds[s] == ST_ELEM_POINT)
            continue;
        const st_array *a = p->input->cls->topology->elements(p->input, type_of(kinds[s]));
        size_t n = a ? a->n : 0, w = st_elem_vertices(kinds[s]);
        unsigned *q = st_realloc(p->shadow[s], (n * w + 1) * sizeof *q);
        if (!q)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        p->shadow[s] = q;
        if (n)
            memcpy(q, a->u, n * w * sizeof *q);
        p->nshadow[s] = n;
    }
    return ST_OK;
}

static void shadow_remove(topo_map_prop *p, int s, const st_topo_event *ev)
{
    unsigned w = st_elem_vertices(ev->elem);
    unsigned *a = p->shadow[s];
    for (size_t k = 0; k < ev->n && p->nshadow[s]; k++) {
        size_t i = ev->index[k], last = p->nshadow[s] - 1;
        if (i < last)
            memcpy(a + i * w, a + last * w, w * sizeof *a);
        p->nshadow[s]--;
    }
}

static st_status shadow_append(topo_map_prop *p, int s, const st_topo_event *ev, st_error *err)
{
    unsigned w = st_elem_vertices(ev->elem);
    if (!ev->vertices)
        return ST_OK;
    unsigned *q = st_realloc(p->shadow[s], ((p->nshadow[s] + ev->n) * w + 1) * sizeof *q);
    if (!q)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    p->shadow[s] = q;
    memcpy(q + p->nshadow[s] * w, ev->vertices, ev->n * w * sizeof *q);
    p->nshadow[s] += ev->n;
    return ST_OK;
}

/* Points removed from the input: the shadows' vertices renumbered as the
 * containers renumber theirs (the last point moves into the hole). */
static void shadow_points(topo_map_prop *p, const st_topo_event *ev)
{
    st_elem kinds[2] = {p->d->vol, p->d->face};
    for (size_t k = 0; k < ev->n; k++) {
        unsigned id = ev->index[k], last = (unsigned)(ev->before - 1 - k);
        for (int s = 0; s < 2; s++) {
            if (kinds[s] == ST_ELEM_POINT)
                continue;
            size_t total = p->nshadow[s] * st_elem_vertices(kinds[s]);
            for (size_t j = 0; j < total; j++)
                if (p->shadow[s][j] == last)
                    p->shadow[s][j] = id;
        }
    }
}

st_status topo_map_prop_queue(topo_map_prop *p, const unsigned *v, unsigned g, st_error *err)
{
    unsigned w = st_elem_vertices(p->d->out);
    ST_TRY(grow_u(&p->add_v, &p->cap_v, (p->nadd + 1) * w, err));
    ST_TRY(grow_u(&p->add_g, &p->cap_g, p->nadd + 1, err));
    memcpy(p->add_v + p->nadd * w, v, w * sizeof *v);
    p->add_g[p->nadd++] = g;
    return ST_OK;
}

st_status topo_map_prop_flush(topo_map_prop *p, st_error *err)
{
    if (!p->nadd)
        return ST_OK;
    size_t n = p->nadd;
    p->nadd = 0;
    p->pending = p->add_g;
    st_status st = topo_add(p->output, p->d->out, p->add_v, n, err);
    p->pending = NULL;
    return st;
}

/* The face of vol v at slot s, as a sorted key. */
static void slot_key(const topo_map_prop *p, const unsigned *vol, unsigned s, unsigned *key)
{
    unsigned fw = st_elem_vertices(p->d->face);
    for (unsigned j = 0; j < fw; j++)
        key[j] = vol[p->d->slots[s * fw + j]];
    topo_sort_small(key, fw);
}

/* SOFA's XRemoved on the input's vols (TetrahedraRemoved, ...): each face
 * of a removed vol shared with exactly one other vol that is not removed
 * earlier in the list becomes an output element, oriented from that other
 * vol; all of them are added to the output at once. */
static st_status vols_removed(topo_map_prop *p, const st_topo_event *ev, st_error *err)
{
    const topo_map_desc *d = p->d;
    unsigned vw = st_elem_vertices(d->vol), fw = st_elem_vertices(d->face);
    const unsigned *vols = p->shadow[0], *faces = p->shadow[1];
    size_t nv = p->nshadow[0], nf = p->nshadow[1];
    tuple_set set = {.width = fw};
    size_t *list_of_key = st_malloc((nf + 1) * sizeof *list_of_key);
    unsigned *cnt = st_calloc(nf + 1, sizeof *cnt);
    unsigned *own = st_malloc((4 * nf + 1) * sizeof *own); /* two (vol, slot) owners */
    st_status st = list_of_key && cnt && own ? ST_OK
                                             : st_error_set(err, ST_ENOMEM, "out of memory");
    unsigned key[8];
    for (size_t i = 0; i < nf && st == ST_OK; i++) {
        memcpy(key, faces + i * fw, fw * sizeof *key);
        topo_sort_small(key, fw);
        bool fresh = false;
        st = tuple_set_insert(&set, key, &fresh, err);
        if (st == ST_OK && fresh)
            list_of_key[set.n - 1] = i;
    }
    for (size_t v = 0; v < nv && st == ST_OK; v++)
        for (unsigned s = 0; s < d->nslots; s++) {
            slot_key(p, vols + v * vw, s, key);
            size_t at = tuple_set_find(&set, key);
            if (at == (size_t)-1)
                continue;
            size_t g = list_of_key[at];
            if (cnt[g] < 2) {
                own[4 * g + 2 * cnt[g]] = (unsigned)v;
                own[4 * g + 2 * cnt[g] + 1] = s;
            }
            cnt[g]++;
        }
    for (size_t i = 0; i < ev->n && st == ST_OK; i++) {
        unsigned tid = ev->index[i];
        if (tid >= nv)
            continue;
        for (unsigned s = 0; s < d->nslots && st == ST_OK; s++) {
            slot_key(p, vols + (size_t)tid * vw, s, key);
            size_t at = tuple_set_find(&set, key);
            if (at == (size_t)-1)
                continue;
            size_t g = list_of_key[at];
            if (cnt[g] != 2)
                continue; /* a border face (removed next) or a non-manifold one */
            unsigned k = own[4 * g] == tid ? 2 : 0;
            unsigned other = own[4 * g + k], pos = own[4 * g + k + 1];
            bool earlier = false;
            for (size_t j = 0; j < i && !earlier; j++)
                earlier = ev->index[j] == other;
            if (earlier)
                continue;
            unsigned out[8];
            d->exposed(p, vols + (size_t)other * vw, pos, (unsigned)g, out);
            st = topo_map_prop_queue(p, out, (unsigned)g, err);
        }
    }
    tuple_set_free(&set);
    st_free(list_of_key);
    st_free(cnt);
    st_free(own);
    ST_TRY(st);
    return topo_map_prop_flush(p, err);
}

static int cmp_desc_u(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x < y) - (x > y);
}

/* SOFA's XRemoved on the input's faces: the output elements of a removed
 * face go, and the input's last face takes the removed one's index in
 * Loc2Glob. Tetra2Triangle removes them all at once, the others face by
 * face (the output's order differs). */
static st_status faces_removed(topo_map_prop *p, const st_topo_event *ev, st_error *err)
{
    unsigned *locs = st_malloc((p->nloc + 1) * sizeof *locs);
    if (!locs)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t nl = 0;
    st_status st = ST_OK;
    for (size_t k = 0; k < ev->n && st == ST_OK; k++) {
        unsigned g = ev->index[k], last = (unsigned)(ev->before - 1 - k);
        size_t first = nl;
        for (size_t l = 0; l < p->nloc; l++)
            if (p->loc2glob[l] == g) {
                locs[nl++] = (unsigned)l;
                p->loc2glob[l] = NO_LOCAL;
            }
        for (size_t l = 0; l < p->nloc; l++)
            if (p->loc2glob[l] == last)
                p->loc2glob[l] = g;
        if (p->d->batch || nl == first)
            continue;
        qsort(locs + first, nl - first, sizeof *locs, cmp_desc_u);
        st = topo_remove_ex(p->output, p->d->out, locs + first, nl - first, true, false, err);
        nl = first;
    }
    if (st == ST_OK && p->d->batch && nl) {
        qsort(locs, nl, sizeof *locs, cmp_desc_u);
        st = topo_remove_ex(p->output, p->d->out, locs, nl, true, false, err);
    }
    st_free(locs);
    return st;
}

/* SOFA's TRIANGLESADDED of Triangle2Edge and TETRAHEDRAADDED of
 * Tetra2Triangle: each face of a new vol (slot order) that is on the
 * border (held by one vol) and not yet mapped becomes an output element,
 * as the input holds it; those added go to the output at once. Then the
 * mapped faces that are no longer on the border (held by two vols) go, at
 * once. The shadows hold the input after the change. */
st_status topo_map_vols_added(topo_map_prop *p, const st_topo_event *ev, st_error *err)
{
    const topo_map_desc *d = p->d;
    if (ev->elem != d->vol || p->no_new)
        return ST_OK;
    unsigned vw = st_elem_vertices(d->vol), fw = st_elem_vertices(d->face);
    const unsigned *vols = p->shadow[0], *faces = p->shadow[1];
    size_t nv = p->nshadow[0], nf = p->nshadow[1];
    tuple_set set = {.width = fw};
    size_t *list_of_key = st_malloc((nf + 1) * sizeof *list_of_key);
    unsigned *shell = st_calloc(nf + 1, sizeof *shell);
    unsigned *drop = st_malloc((d->nslots * ev->n + 1) * sizeof *drop);
    size_t ndrop = 0;
    st_status st = list_of_key && shell && drop ? ST_OK
                                                : st_error_set(err, ST_ENOMEM, "out of memory");
    unsigned key[8];
    for (size_t i = 0; i < nf && st == ST_OK; i++) {
        memcpy(key, faces + i * fw, fw * sizeof *key);
        topo_sort_small(key, fw);
        bool fresh = false;
        st = tuple_set_insert(&set, key, &fresh, err);
        if (st == ST_OK && fresh)
            list_of_key[set.n - 1] = i;
    }
    for (size_t v = 0; v < nv && st == ST_OK; v++)
        for (unsigned s = 0; s < d->nslots; s++) {
            slot_key(p, vols + v * vw, s, key);
            size_t at = tuple_set_find(&set, key);
            if (at != (size_t)-1)
                shell[list_of_key[at]]++;
        }
    for (size_t k = 0; k < ev->n && st == ST_OK; k++) {
        if (ev->index[k] >= nv)
            continue;
        const unsigned *vol = vols + (size_t)ev->index[k] * vw;
        for (unsigned s = 0; s < d->nslots && st == ST_OK; s++) {
            slot_key(p, vol, s, key);
            size_t at = tuple_set_find(&set, key);
            if (at == (size_t)-1)
                continue;
            unsigned g = (unsigned)list_of_key[at];
            bool mapped = false, queued = false;
            for (size_t l = 0; l < p->nloc && !mapped; l++)
                mapped = p->loc2glob[l] == g;
            for (size_t q = 0; q < p->nadd && !queued; q++)
                queued = p->add_g[q] == g;
            if (mapped && shell[g] != 1) {
                bool dup = false;
                for (size_t q = 0; q < ndrop && !dup; q++)
                    dup = drop[q] == g;
                if (!dup)
                    drop[ndrop++] = g;
            } else if (!mapped && !queued && shell[g] <= 1) {
                st = topo_map_prop_queue(p, faces + fw * (size_t)g, g, err);
            }
        }
    }
    tuple_set_free(&set);
    st_free(list_of_key);
    st_free(shell);
    if (st == ST_OK)
        st = topo_map_prop_flush(p, err);
    /* The faces no longer on the border: their output elements, at once
     * (SOFA removes them with removeIsolatedEdges, not the points: the
     * output's points stay the input's). */
    unsigned *locs = st == ST_OK ? st_malloc((p->nloc + 1) * sizeof *locs) : NULL;
    size_t nl = 0;
    if (st == ST_OK && !locs)
        st = st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t q = 0; q < ndrop && st == ST_OK; q++)
        for (size_t l = 0; l < p->nloc; l++)
            if (p->loc2glob[l] == drop[q])
                locs[nl++] = (unsigned)l;
    if (st == ST_OK && nl) {
        qsort(locs, nl, sizeof *locs, cmp_desc_u);
        st = topo_remove_ex(p->output, d->out, locs, nl, true, false, err);
    }
    st_free(locs);
    st_free(drop);
    return st;
}

st_status topo_map_prop_changed(topo_map_prop *p, const st_topo_event *ev, size_t nev,
                                st_error *err)
{
    const topo_map_desc *d = p->d;
    for (size_t e = 0; e < nev; e++) {
        const st_topo_event *x = &ev[e];
        if (!x->n)
            continue;
        if (x->change == ST_TOPO_REMOVED) {
            if (x->elem == ST_ELEM_POINT) {
                /* SOFA's removePoints(ids, removeDOF = false) on the output. */
                ST_TRY(topo_remove_ex(p->output, ST_ELEM_POINT, x->index, x->n, false, false,
                                      err));
                shadow_points(p, x);
            } else if (x->elem == d->vol && d->vol != ST_ELEM_POINT) {
                if (!p->no_new)
                    ST_TRY(vols_removed(p, x, err));
                shadow_remove(p, 0, x);
            } else if (x->elem == d->face) {
                ST_TRY(faces_removed(p, x, err));
                shadow_remove(p, 1, x);
            }
        } else if (x->change == ST_TOPO_ADDED) {
            if (x->elem == ST_ELEM_POINT && d->copy_points) {
                /* SOFA's POINTSADDED: the output adds as many points, of
                 * the same ancestors. */
                ST_TRY(topo_add_points(p->output, x->n, x->ancestor_start, x->ancestors,
                                       x->coefs, err));
            } else if (x->elem == ST_ELEM_POINT) {
                /* Hexa2Quad: SOFA's mapping ignores added points. */
            } else if (x->elem == ST_ELEM_EDGE && d->copy_edges && x->vertices) {
                /* SOFA's EDGESADDED: the output adds the same edges. */
                ST_TRY(topo_add(p->output, ST_ELEM_EDGE, x->vertices, x->n, err));
            } else if ((x->elem == d->vol && d->vol != ST_ELEM_POINT) || x->elem == d->face) {
                ST_TRY(shadow_append(p, x->elem == d->face ? 1 : 0, x, err));
                if (d->faces_added)
                    ST_TRY(d->faces_added(p, x, err));
            }
        }
    }
    return shadow_copy(p, err);
}

/* Changes of the other topologies above the mapping: SOFA's
 * TopologyChangeVisitor reaches the mapping, which only answers its input's
 * (getFrom() == source); it holds nothing indexed by the others. */
static st_status other_changed(st_component *self, st_component *topology,
                               const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)self, (void)topology, (void)ev, (void)nev, (void)err;
    return ST_OK;
}

st_status topo_map_listen_others(st_component *self, st_component *input, st_component *output,
                                 st_error *err)
{
    for (st_node *n = self->node; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            st_component *c = st_node_object(n, i);
            if (c != input && c != output && c->cls->topology)
                ST_TRY(st_topology_listen(self, c, other_changed, err));
        }
    return ST_OK;
}

st_status topo_map_prop_init(topo_map_prop *p, st_topo_listener fn, st_error *err)
{
    ST_TRY(shadow_copy(p, err));
    if (p->registered)
        return ST_OK;
    ST_TRY(st_topology_follow(p->self, p->output, p->d->out, (void **)&p->loc2glob, &p->nloc,
                              sizeof *p->loc2glob, &loc_ops, p, err));
    ST_TRY(st_topology_listen(p->self, p->input, fn, err));
    ST_TRY(topo_map_listen_others(p->self, p->input, p->output, err));
    p->registered = true;
    return ST_OK;
}

st_status topo_map_prop_checkpoint(topo_map_prop *p, st_checkpoint *ck, st_error *err)
{
    if (!st_checkpoint_reading(ck) || !p->d)
        return ST_OK;
    return shadow_copy(p, err);
}

st_status topo_map_loc_push(topo_map_prop *p, unsigned g, st_error *err)
{
    size_t cap = p->nloc; /* st_realloc'd to exactly nloc + 1 when full */
    unsigned *q = st_realloc(p->loc2glob, (cap + 1) * sizeof *q);
    if (!q)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    p->loc2glob = q;
    p->loc2glob[p->nloc++] = g;
    return ST_OK;
}

void topo_map_prop_free(topo_map_prop *p)
{
    st_free(p->loc2glob);
    st_free(p->shadow[0]);
    st_free(p->shadow[1]);
    st_free(p->add_v);
    st_free(p->add_g);
    memset(p, 0, sizeof *p);
}
