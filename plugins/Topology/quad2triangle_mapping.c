/* quad2triangle_mapping.c - Quad2TriangleTopologicalMapping: fills a
 * triangle container with two triangles per quad of the input, quad by quad.
 * Quad (p0, p1, p2, p3) gives (p1, p2, p0) and (p3, p0, p2); with `swapping`
 * (SOFA's default), quads i where (i mod s) xor (i / s) is odd take the other
 * diagonal, (p0, p1, p3) and (p2, p3, p1), s being the number of cells along
 * x of a grid input (along y when x is flat; 2 for a non-grid input), which
 * gives a checkerboard on a 2D grid. */
#include "topology.h"

typedef struct quad2triangle {
    st_component base;
    st_component *input;  /* "input": quad topology */
    st_component *output; /* "output": TriangleSetTopologyContainer */
    bool swapping;        /* "swapping" */
} quad2triangle;

static const st_field quad2triangle_fields[] = {
    TOPO_MAP_LINKS(quad2triangle, "Input topology (quads)",
                   "Output topology (a TriangleSetTopologyContainer)"),
    ST_BOOL(quad2triangle, swapping, "swapping", "true",
            "If true (default), alternate the diagonal orientation per quad in a checkerboard "
            "pattern to avoid numerical bias"),
    ST_FIELD_END};

static st_status quad2triangle_init(st_component *self, st_error *err)
{
    quad2triangle *m = (quad2triangle *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(topo_map_check(self, m->input, m->output, "quads", "triangles", TOPO_DYNAMIC,
                          "TriangleSetTopologyContainer", err));
    static const char *const modifiers[] = {"TriangleSetTopologyModifier",
                                            "TetrahedronSetTopologyModifier", NULL};
    if (!topo_map_find_modifier(m->output->node, modifiers))
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "no TriangleSetTopologyModifier found in the output topology's "
                                  "node: add one next to '%s'",
                                  m->output->name);
    int nx = 2, ny = 1;
    (void)topo_map_grid_cells(m->input, &nx, &ny);
    if (nx <= 0 && ny <= 0)
        return st_component_error(self, "input", err, ST_EINVAL,
                                  "the input grid '%s' is only 1D: it cannot be mapped into a "
                                  "triangulation",
                                  m->input->name);
    size_t scale = (size_t)(nx > 0 ? nx : ny);
    topo *out = (topo *)m->output;
    static const char *const lists[] = {"triangles", "edges", NULL};
    topo_map_begin(m->input, out, lists);
    const st_array *quads = m->input->cls->topology->elements(m->input, ST_T_QUADS);
    size_t nq = quads ? quads->n : 0;
    if (nq == 0)
        st_component_warn(self, "the input topology '%s' has no quads: the output stays empty",
                          m->input->name);
    ST_TRY(st_array_resize(&out->triangles, ST_T_TRIANGLES, 2 * nq, err));
    for (size_t i = 0; i < nq; i++) {
        const unsigned *p = quads->u + 4 * i;
        unsigned *t = out->triangles.u + 6 * i;
        if (m->swapping && (((i % scale) ^ (i / scale)) & 1)) {
            t[0] = p[0], t[1] = p[1], t[2] = p[3];
            t[3] = p[2], t[4] = p[3], t[5] = p[1];
        } else {
            t[0] = p[1], t[1] = p[2], t[2] = p[0];
            t[3] = p[3], t[4] = p[0], t[5] = p[2];
        }
    }
    ST_TRY(topo_map_end(out, "triangles", err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class quad2triangle_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "Quad2TriangleTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "Topological mapping where QuadSetTopology is converted to "
                   "TriangleSetTopology",
    .instance_size = sizeof(quad2triangle),
    .fields = quad2triangle_fields,
    .init = quad2triangle_init,
    .reinit = quad2triangle_init,
};
