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

static const topo_map_desc triangle2edge_desc = {
    .vol = ST_ELEM_TRIANGLE,
    .face = ST_ELEM_EDGE,
    .out = ST_ELEM_EDGE,
    .slots = &edges_in_triangle[0][0],
    .nslots = 3,
    .batch = false,
    .exposed = exposed_edge,
    .faces_added = topo_map_vols_added,
    .copy_points = true,
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

TOPO_MAP_CHECKPOINT(triangle2edge);

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
    .checkpoint = &triangle2edge_checkpoint_ops,
};
