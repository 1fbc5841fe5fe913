/* hexa2quad_mapping.c - Hexa2QuadTopologicalMapping: fills a quad container
 * with the boundary quads of a hexahedral topology (the input's quads that
 * belong to exactly one hexahedron, in the input's quad order). */
#include "topology.h"

typedef struct hexa2quad {
    st_component base;
    st_component *input;  /* "input": hexahedral topology */
    st_component *output; /* "output": QuadSetTopologyContainer */
    bool flip_normals;    /* "flipNormals" */
} hexa2quad;

static const st_field hexa2quad_fields[] = {
    TOPO_MAP_LINKS(hexa2quad, "Input topology (hexahedra)",
                   "Output topology (a QuadSetTopologyContainer)"),
    ST_BOOL(hexa2quad, flip_normals, "flipNormals", "false",
            "Flip Normal ? (Inverse point order when creating quad)"),
    ST_FIELD_END};

static const unsigned hexa_faces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                          {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};

static st_status hexa2quad_init(st_component *self, st_error *err)
{
    hexa2quad *m = (hexa2quad *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(topo_map_check(self, m->input, m->output, "hexahedra", "quads", TOPO_DYNAMIC,
                          "QuadSetTopologyContainer (or HexahedronSetTopologyContainer)", err));
    if (!topo_node_has_class(m->output->node, "QuadSetTopologyModifier",
                             "HexahedronSetTopologyModifier"))
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "the output container's node has no QuadSetTopologyModifier: "
                                  "add one next to '%s'",
                                  m->output->name);

    topo *out = (topo *)m->output;
    static const char *const lists[] = {"quads", "edges", NULL};
    topo_map_begin(m->input, out, lists);
    const st_topology_ops *in = m->input->cls->topology;
    const st_array *hexas = in->elements(m->input, ST_T_HEXAS);
    const st_array *quads = in->elements(m->input, ST_T_QUADS);
    if (hexas && hexas->n > 0 && quads && quads->n > 0) {
        unsigned *counts = NULL;
        ST_TRY(topo_map_count_owners(quads, 4, hexas, 8, &hexa_faces[0][0], 6, &counts, err));
        st_status s = ST_OK;
        for (size_t q = 0; q < quads->n && s == ST_OK; q++) {
            if (counts[q] != 1)
                continue;
            const unsigned *v = quads->u + 4 * q;
            unsigned o[4] = {v[0], v[1], v[2], v[3]};
            if (m->flip_normals) {
                o[0] = v[3], o[1] = v[2], o[2] = v[1], o[3] = v[0];
            }
            s = topo_push(&out->quads, ST_T_QUADS, o, err);
        }
        st_free(counts);
        ST_TRY(s);
    } else {
        st_component_warn(self, "the input topology '%s' has no hexahedra: the output stays empty",
                          m->input->name);
    }
    ST_TRY(topo_map_end(out, "quads", err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class hexa2quad_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "Hexa2QuadTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "Topological mapping where HexahedronSetTopology is converted to "
                   "QuadSetTopology (boundary quads)",
    .instance_size = sizeof(hexa2quad),
    .fields = hexa2quad_fields,
    .init = hexa2quad_init,
    .reinit = hexa2quad_init,
};
