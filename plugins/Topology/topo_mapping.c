/* topo_mapping.c - what the Topology plugin's topological mappings share:
 * checking their input and output links, emptying and refilling the output
 * container, the grid size of a grid input, and counting how many volumes
 * (or faces) hold each element of a list (to find the border ones). */
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
    if (t->kind != TOPO_GRID && t->kind != TOPO_REGULAR_GRID)
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
