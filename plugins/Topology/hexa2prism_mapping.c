/* hexa2prism_mapping.c - Hexa2PrismTopologicalMapping: fills the `prisms`
 * list of a MeshTopology with two triangular prisms per hexahedron of the
 * input, hexahedron by hexahedron, cutting each along the diagonal plane
 * through its vertices 0, 5, 6, 3 (SOFA's numbering):
 * prism (c0, c5, c1, c3, c6, c2) then (c0, c4, c5, c3, c7, c6). settee has
 * no prism elements yet: the list is filled for the components that read it,
 * nothing else (edges, triangles, quads) is derived from it. */
#include "topology.h"

typedef struct hexa2prism {
    st_component base;
    st_component *input;  /* "input": hexahedral topology */
    st_component *output; /* "output": MeshTopology */
} hexa2prism;

static const st_field hexa2prism_fields[] = {
    TOPO_MAP_LINKS(hexa2prism, "Input topology (hexahedra)",
                   "Output topology (a MeshTopology, whose prisms list is filled)"),
    ST_FIELD_END};

static const unsigned prism_pattern[2][6] = {{0, 5, 1, 3, 6, 2}, {0, 4, 5, 3, 7, 6}};

static st_status hexa2prism_init(st_component *self, st_error *err)
{
    hexa2prism *m = (hexa2prism *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(topo_map_check(self, m->input, m->output, "hexahedra", "prisms", TOPO_MESH,
                          "MeshTopology (the only container with prisms)", err));
    topo *out = (topo *)m->output;
    static const char *const lists[] = {"edges", "triangles", "quads", "tetrahedra",
                                        "hexahedra", "prisms", NULL};
    topo_map_begin(m->input, out, lists);
    const st_array *hexas = m->input->cls->topology->elements(m->input, ST_T_HEXAS);
    size_t nh = hexas ? hexas->n : 0;
    if (nh == 0)
        st_component_warn(self, "the input topology '%s' has no hexahedra: the output stays empty",
                          m->input->name);
    ST_TRY(st_array_resize(&out->prisms, ST_T_UINTS, 12 * nh, err));
    for (size_t i = 0; i < nh; i++)
        for (int p = 0; p < 2; p++)
            for (int k = 0; k < 6; k++)
                out->prisms.u[12 * i + 6 * (size_t)p + (size_t)k] =
                    hexas->u[8 * i + prism_pattern[p][k]];
    st_component_touch(m->output, st_component_field(m->output, "prisms"));
    out->lists_ready = true;
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class hexa2prism_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "Hexa2PrismTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "Topological mapping where HexahedronSetTopology is converted to "
                   "PrismSetTopology (two prisms per hexahedron, in a MeshTopology's prisms)",
    .instance_size = sizeof(hexa2prism),
    .fields = hexa2prism_fields,
    .init = hexa2prism_init,
    .reinit = hexa2prism_init,
};
