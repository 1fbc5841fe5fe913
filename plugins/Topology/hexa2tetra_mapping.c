/* hexa2tetra_mapping.c - Hexa2TetraTopologicalMapping: fills a tetrahedron
 * container with 6 tetrahedra per hexahedron of the input, in SOFA's order
 * (hexahedron by hexahedron; within one, the pattern below). With
 * `swapping`, the vertices of hexahedra at even x, odd y or odd z grid
 * positions are mirrored across the cell first (so that the diagonals
 * alternate), and an odd number of mirrors selects the pattern with
 * reversed orientation.
 *
 * Topological changes: SOFA's updateTopologicalMappingTopDown is "not yet
 * implemented" (a warning, the output unchanged). settee warns the same way
 * when hexahedra go; a change that removes points would leave the output
 * naming points that no longer exist: it is an error. */
#include <string.h>

#include "topology.h"

typedef struct hexa2tetra {
    st_component base;
    st_component *input;  /* "input": hexahedral topology */
    st_component *output; /* "output": TetrahedronSetTopologyContainer */
    bool swapping;        /* "swapping" */
    bool listening;       /* listeners registered (init runs again on reinit) */
} hexa2tetra;

static const st_field hexa2tetra_fields[] = {
    TOPO_MAP_LINKS(hexa2tetra, "Input topology (hexahedra)",
                   "Output topology (a TetrahedronSetTopologyContainer)"),
    ST_BOOL(hexa2tetra, swapping, "swapping", "false",
            "Boolean enabling to swap edges to hexahedrons based on their grid position in "
            "order to avoid numerical bias effect"),
    ST_FIELD_END};

/* Vertex pairs along each axis of a hexahedron (SOFA's numbering). */
static const unsigned x_edges[4][2] = {{0, 1}, {4, 5}, {3, 2}, {7, 6}};
static const unsigned y_edges[4][2] = {{4, 7}, {5, 6}, {1, 2}, {0, 3}};
static const unsigned z_edges[4][2] = {{4, 0}, {5, 1}, {6, 2}, {7, 3}};
static const unsigned straight[6][4] = {{0, 5, 1, 6}, {0, 1, 3, 6}, {1, 3, 6, 2},
                                        {6, 3, 0, 7}, {6, 7, 0, 5}, {7, 5, 4, 0}};
static const unsigned mirrored[6][4] = {{0, 5, 6, 1}, {0, 1, 6, 3}, {1, 3, 2, 6},
                                        {6, 3, 7, 0}, {6, 7, 5, 0}, {7, 5, 0, 4}};

static void mirror(unsigned c[8], const unsigned e[4][2])
{
    for (int k = 0; k < 4; k++) {
        unsigned t = c[e[k][0]];
        c[e[k][0]] = c[e[k][1]];
        c[e[k][1]] = t;
    }
}

static st_status hexa2tetra_changed(st_component *self, st_component *topology,
                                    const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    for (size_t e = 0; e < nev; e++)
        if (ev[e].elem == ST_ELEM_POINT && ev[e].change == ST_TOPO_REMOVED && ev[e].n)
            return st_component_error(self, NULL, err, ST_ESCENE,
                                      "points of '%s' were removed, but "
                                      "Hexa2TetraTopologicalMapping does not propagate "
                                      "topological changes (neither does SOFA's): its output "
                                      "'%s' would name points that no longer exist",
                                      ((hexa2tetra *)self)->input->name,
                                      ((hexa2tetra *)self)->output->name);
    st_component_warn(self, "Method Hexa2TetraTopologicalMapping::updateTopologicalMappingTopDown() "
                            "not yet implemented!");
    return ST_OK;
}

/* Changes of the output made by others: the mapping holds nothing indexed
 * by the output's tetrahedra (SOFA's Loc2GlobVec is not kept). */
static st_status hexa2tetra_output_changed(st_component *self, st_component *topology,
                                           const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)self, (void)topology, (void)ev, (void)nev, (void)err;
    return ST_OK;
}

static st_status hexa2tetra_init(st_component *self, st_error *err)
{
    hexa2tetra *m = (hexa2tetra *)self;
    self->state = ST_CSTATE_INVALID;
    /* SOFA fills the output through BaseMeshTopology's clear, setNbPoints
     * and addTetra: a MeshTopology takes them as a tetrahedron container
     * does */
    bool mesh_out = m->output && m->output->cls->topology == &topo_ops &&
                    ((topo *)m->output)->kind == TOPO_MESH;
    ST_TRY(topo_map_check(self, m->input, m->output, "hexahedra", "tetrahedra",
                          mesh_out ? TOPO_MESH : TOPO_DYNAMIC,
                          "TetrahedronSetTopologyContainer or MeshTopology", err));
    if (!mesh_out &&
        !topo_node_has_class(m->output->node, "TetrahedronSetTopologyModifier", NULL))
        st_component_warn(self, "the output container's node has no "
                                "TetrahedronSetTopologyModifier (SOFA scenes put one next to '%s')",
                          m->output->name);
    const st_array *hexas = m->input->cls->topology->elements(m->input, ST_T_HEXAS);
    topo *out = (topo *)m->output;
    static const char *const lists[] = {"tetrahedra", "triangles", "edges", NULL};
    topo_map_begin(m->input, out, lists);

    /* Grid cells along x and y (SOFA: only meaningful for grids). */
    int nx = 2, ny = 1;
    if (topo_map_grid_cells(m->input, &nx, &ny)) {
        nx = nx > 0 ? nx : 1;
        ny = ny > 0 ? ny : 1;
    }
    size_t nh = hexas ? hexas->n : 0;
    if (nh == 0)
        st_component_warn(self, "the input topology '%s' has no hexahedra: the output stays empty",
                          m->input->name);
    ST_TRY(st_array_resize(&out->tetrahedra, ST_T_TETRAS, 6 * nh, err));
    for (size_t i = 0; i < nh; i++) {
        unsigned c[8];
        memcpy(c, hexas->u + 8 * i, sizeof c);
        bool swapped = false;
        if (m->swapping) {
            if (!((i % (size_t)nx) & 1)) {
                mirror(c, x_edges);
                swapped = !swapped;
            }
            if (((i / (size_t)nx) % (size_t)ny) & 1) {
                mirror(c, y_edges);
                swapped = !swapped;
            }
            if ((i / (size_t)(nx * ny)) & 1) {
                mirror(c, z_edges);
                swapped = !swapped;
            }
        }
        const unsigned(*pat)[4] = swapped ? mirrored : straight;
        for (int k = 0; k < 6; k++)
            for (int j = 0; j < 4; j++)
                out->tetrahedra.u[4 * (6 * i + (size_t)k) + (size_t)j] = c[pat[k][j]];
    }
    ST_TRY(topo_map_end(out, "tetrahedra", err));
    if (!m->listening) {
        ST_TRY(st_topology_listen(self, m->input, hexa2tetra_changed, err));
        ST_TRY(st_topology_listen(self, m->output, hexa2tetra_output_changed, err));
        ST_TRY(topo_map_listen_others(self, m->input, m->output, err));
        m->listening = true;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class hexa2tetra_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "Hexa2TetraTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "Topological mapping where HexahedronSetTopology is converted to "
                   "TetrahedronSetTopology",
    .instance_size = sizeof(hexa2tetra),
    .fields = hexa2tetra_fields,
    .init = hexa2tetra_init,
    .reinit = hexa2tetra_init,
};
