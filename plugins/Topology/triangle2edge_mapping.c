/* triangle2edge_mapping.c - Triangle2EdgeTopologicalMapping: fills an edge
 * container with the border edges of a triangular topology, those held by
 * exactly one triangle, in the input's edge order and orientation. The
 * output's node (or an ancestor) must hold an EdgeSetTopologyModifier (or a
 * modifier deriving from it), as SOFA requires. */
#include "topology.h"

typedef struct triangle2edge {
    st_component base;
    st_component *input;  /* "input": triangular topology */
    st_component *output; /* "output": EdgeSetTopologyContainer */
} triangle2edge;

static const st_field triangle2edge_fields[] = {
    TOPO_MAP_LINKS(triangle2edge, "Input topology (triangles)",
                   "Output topology (an EdgeSetTopologyContainer)"),
    ST_FIELD_END};

static const unsigned triangle_sides[3][2] = {{0, 1}, {1, 2}, {2, 0}};

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
    const st_topology_ops *in = m->input->cls->topology;
    const st_array *tris = in->elements(m->input, ST_T_TRIANGLES);
    const st_array *edges = in->elements(m->input, ST_T_EDGES);
    if (tris && edges && tris->n > 0) {
        unsigned *counts = NULL;
        ST_TRY(topo_map_count_owners(edges, 2, tris, 3, &triangle_sides[0][0], 3, &counts, err));
        st_status s = ST_OK;
        for (size_t i = 0; i < edges->n && s == ST_OK; i++)
            if (counts[i] == 1)
                s = topo_push(&out->edges, ST_T_EDGES, edges->u + 2 * i, err);
        st_free(counts);
        ST_TRY(s);
    } else {
        st_component_warn(self, "the input topology '%s' has no triangles: the output stays empty",
                          m->input->name);
    }
    ST_TRY(topo_map_end(out, "edges", err));
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
};
