/* triangle2edge_mapping.c - Triangle2EdgeTopologicalMapping: fills an edge
 * container with the border edges of a triangular topology, those held by
 * exactly one triangle, in the input's edge order and orientation. The
 * output's node (or an ancestor) must hold an EdgeSetTopologyModifier (or a
 * modifier deriving from it), as SOFA requires.
 *
 * Topological changes (SOFA's updateTopologicalMappingTopDown): removing
 * triangles adds the input edges they exposed (sorted), removing input edges
 * removes their output edges one at a time, adding triangles adds the new
 * border edges and removes those no longer on the border; removed points
 * are removed from the output. */
#include <stdlib.h>

#include "topology.h"

typedef struct triangle2edge {
    st_component base;
    st_component *input;  /* "input": triangular topology */
    st_component *output; /* "output": EdgeSetTopologyContainer */
    topo_map_prop prop;   /* propagation of the input's changes */
} triangle2edge;

static const st_field triangle2edge_fields[] = {
    TOPO_MAP_LINKS(triangle2edge, "Input topology (triangles)",
                   "Output topology (an EdgeSetTopologyContainer)"),
    ST_FIELD_END};

static const unsigned triangle_sides[3][2] = {{0, 1}, {1, 2}, {2, 0}};
/* SOFA's EdgesInTriangle slots: edge j is opposite vertex j. */
static const unsigned edges_in_triangle[3][2] = {{1, 2}, {2, 0}, {0, 1}};

/* An edge exposed by a removal: the input edge, sorted. */
static void exposed_edge(const topo_map_prop *p, const unsigned *other, unsigned pos, unsigned g,
                         unsigned *out)
{
    (void)other;
    (void)pos;
    const unsigned *e = p->shadow[1] + 2 * (size_t)g;
    out[0] = e[0] < e[1] ? e[0] : e[1];
    out[1] = e[0] < e[1] ? e[1] : e[0];
    for (size_t l = 0; l < p->nloc; l++)
        if (p->loc2glob[l] == g) {
            st_component_warn(p->self, "Fail to add edge %u which already exists", g);
            break;
        }
}

static int cmp_desc(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x < y) - (x > y);
}

/* SOFA's TRIANGLESADDED: each edge of a new triangle becomes an output edge
 * when it is on the border (one triangle or none) and not yet mapped, and a
 * mapped one that is no longer on the border goes. */
static st_status triangles_added(topo_map_prop *p, const st_topo_event *ev, st_error *err)
{
    if (ev->elem != ST_ELEM_TRIANGLE)
        return ST_OK;
    const unsigned *tris = p->shadow[0], *edges = p->shadow[1];
    size_t nt = p->nshadow[0], ne = p->nshadow[1];
    tuple_set set = {.width = 2};
    size_t *list_of_key = st_malloc((ne + 1) * sizeof *list_of_key);
    unsigned *shell = st_calloc(ne + 1, sizeof *shell);
    unsigned *drop = st_malloc((3 * ev->n + 1) * sizeof *drop);
    size_t ndrop = 0;
    st_status st = list_of_key && shell && drop ? ST_OK
                                                : st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < ne && st == ST_OK; i++) {
        unsigned key[2] = {edges[2 * i], edges[2 * i + 1]};
        topo_sort_small(key, 2);
        bool fresh = false;
        st = tuple_set_insert(&set, key, &fresh, err);
        if (st == ST_OK && fresh)
            list_of_key[set.n - 1] = i;
    }
    for (size_t t = 0; t < nt && st == ST_OK; t++)
        for (unsigned j = 0; j < 3; j++) {
            unsigned key[2] = {tris[3 * t + edges_in_triangle[j][0]],
                               tris[3 * t + edges_in_triangle[j][1]]};
            topo_sort_small(key, 2);
            size_t at = tuple_set_find(&set, key);
            if (at != (size_t)-1)
                shell[list_of_key[at]]++;
        }
    for (size_t k = 0; k < ev->n && st == ST_OK; k++) {
        const unsigned *t = tris + 3 * (size_t)ev->index[k];
        for (unsigned j = 0; j < 3 && st == ST_OK; j++) {
            unsigned key[2] = {t[edges_in_triangle[j][0]], t[edges_in_triangle[j][1]]};
            topo_sort_small(key, 2);
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
                st = topo_map_prop_queue(p, edges + 2 * (size_t)g, g, err);
            }
        }
    }
    tuple_set_free(&set);
    st_free(list_of_key);
    st_free(shell);
    if (st == ST_OK)
        st = topo_map_prop_flush(p, err);
    /* The edges no longer on the border: their output edges, at once. */
    unsigned *locs = st == ST_OK ? st_malloc((p->nloc + 1) * sizeof *locs) : NULL;
    size_t nl = 0;
    if (st == ST_OK && !locs)
        st = st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t q = 0; q < ndrop && st == ST_OK; q++)
        for (size_t l = 0; l < p->nloc; l++)
            if (p->loc2glob[l] == drop[q])
                locs[nl++] = (unsigned)l;
    if (st == ST_OK && nl) {
        qsort(locs, nl, sizeof *locs, cmp_desc);
        /* SOFA removes the points the edges leave isolated too; settee keeps
         * them: the output's points stay the input's. */
        st = topo_remove_ex(p->output, ST_ELEM_EDGE, locs, nl, true, false, err);
    }
    st_free(locs);
    st_free(drop);
    return st;
}

static const topo_map_desc triangle2edge_desc = {
    .vol = ST_ELEM_TRIANGLE,
    .face = ST_ELEM_EDGE,
    .out = ST_ELEM_EDGE,
    .slots = &edges_in_triangle[0][0],
    .nslots = 3,
    .batch = false,
    .exposed = exposed_edge,
    .faces_added = triangles_added,
};

static st_status triangle2edge_changed(st_component *self, st_component *topology,
                                       const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    return topo_map_prop_changed(&((triangle2edge *)self)->prop, ev, nev, err);
}

static void triangle2edge_cleanup(st_component *self)
{
    topo_map_prop_free(&((triangle2edge *)self)->prop);
}

static st_status triangle2edge_init(st_component *self, st_error *err)
{
    triangle2edge *m = (triangle2edge *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(topo_map_check(self, m->input, m->output, "triangles", "edges", TOPO_DYNAMIC,
                          "EdgeSetTopologyContainer", err));
    static const char *const modifiers[] = {
        "EdgeSetTopologyModifier",  "TriangleSetTopologyModifier",
        "QuadSetTopologyModifier",  "TetrahedronSetTopologyModifier",
        "HexahedronSetTopologyModifier", NULL};
    if (!topo_map_find_modifier(m->output->node, modifiers))
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "no EdgeSetTopologyModifier found in the output topology's node: "
                                  "add one next to '%s'",
                                  m->output->name);
    topo *out = (topo *)m->output;
    static const char *const lists[] = {"edges", NULL};
    topo_map_begin(m->input, out, lists);
    topo_map_prop *p = &m->prop;
    p->d = &triangle2edge_desc;
    p->self = self, p->input = m->input, p->output = m->output;
    p->nloc = 0;
    const st_topology_ops *in = m->input->cls->topology;
    const st_array *tris = in->elements(m->input, ST_T_TRIANGLES);
    const st_array *edges = in->elements(m->input, ST_T_EDGES);
    if (tris && edges && tris->n > 0) {
        unsigned *counts = NULL;
        ST_TRY(topo_map_count_owners(edges, 2, tris, 3, &triangle_sides[0][0], 3, &counts, err));
        st_status s = ST_OK;
        for (size_t i = 0; i < edges->n && s == ST_OK; i++)
            if (counts[i] == 1) {
                s = topo_push(&out->edges, ST_T_EDGES, edges->u + 2 * i, err);
                if (s == ST_OK)
                    s = topo_map_loc_push(p, (unsigned)i, err);
            }
        st_free(counts);
        ST_TRY(s);
    } else {
        st_component_warn(self, "the input topology '%s' has no triangles: the output stays empty",
                          m->input->name);
    }
    ST_TRY(topo_map_end(out, "edges", err));
    ST_TRY(topo_map_prop_init(p, triangle2edge_changed, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class triangle2edge_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "Triangle2EdgeTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "Topological mapping where TriangleSetTopology is converted to "
                   "EdgeSetTopology (border edges)",
    .instance_size = sizeof(triangle2edge),
    .fields = triangle2edge_fields,
    .init = triangle2edge_init,
    .reinit = triangle2edge_init,
    .cleanup = triangle2edge_cleanup,
};
