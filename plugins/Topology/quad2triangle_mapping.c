/* quad2triangle_mapping.c - Quad2TriangleTopologicalMapping: fills a
 * triangle container with two triangles per quad of the input, quad by quad.
 * Quad (p0, p1, p2, p3) gives (p1, p2, p0) and (p3, p0, p2); with `swapping`
 * (SOFA's default), quads i where (i mod s) xor (i / s) is odd take the other
 * diagonal, (p0, p1, p3) and (p2, p3, p1), s being the number of cells along
 * x of a grid input (along y when x is flat; 2 for a non-grid input), which
 * gives a checkerboard on a 2D grid.
 *
 * Topological changes (SOFA's updateTopologicalMappingTopDown): removing
 * quads removes their two triangles, quad by quad; added quads give
 * (p0, p1, p2) and (p0, p2, p3); removed points are removed from the output. */
#include "topology.h"

typedef struct quad2triangle {
    st_component base;
    st_component *input;  /* "input": quad topology */
    st_component *output; /* "output": TriangleSetTopologyContainer */
    bool swapping;        /* "swapping" */
    topo_map_prop prop;   /* propagation of the input's changes */
} quad2triangle;

static const st_field quad2triangle_fields[] = {
    TOPO_MAP_LINKS(quad2triangle, "Input topology (quads)",
                   "Output topology (a TriangleSetTopologyContainer)"),
    ST_BOOL(quad2triangle, swapping, "swapping", "true",
            "If true (default), alternate the diagonal orientation per quad in a checkerboard "
            "pattern to avoid numerical bias"),
    ST_FIELD_END};

/* SOFA's QUADSADDED: two triangles per new quad, no checkerboard. */
static st_status quads_added(topo_map_prop *p, const st_topo_event *ev, st_error *err)
{
    if (ev->elem != ST_ELEM_QUAD || !ev->vertices)
        return ST_OK;
    for (size_t k = 0; k < ev->n; k++) {
        const unsigned *q = ev->vertices + 4 * k;
        unsigned t1[3] = {q[0], q[1], q[2]}, t2[3] = {q[0], q[2], q[3]};
        ST_TRY(topo_map_prop_queue(p, t1, ev->index[k], err));
        ST_TRY(topo_map_prop_queue(p, t2, ev->index[k], err));
    }
    return topo_map_prop_flush(p, err);
}

static const topo_map_desc quad2triangle_desc = {
    .vol = ST_ELEM_POINT, /* none: quads are the input's elements */
    .face = ST_ELEM_QUAD,
    .out = ST_ELEM_TRIANGLE,
    .batch = false,
    .faces_added = quads_added,
    .copy_points = true,
};

static st_status quad2triangle_changed(st_component *self, st_component *topology,
                                       const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    return topo_map_prop_changed(&((quad2triangle *)self)->prop, ev, nev, err);
}

static void quad2triangle_cleanup(st_component *self)
{
    topo_map_prop_free(&((quad2triangle *)self)->prop);
}

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
    topo_map_prop *p = &m->prop;
    p->d = &quad2triangle_desc;
    p->self = self, p->input = m->input, p->output = m->output;
    p->nloc = 0;
    const st_array *quads = m->input->cls->topology->elements(m->input, ST_T_QUADS);
    size_t nq = quads ? quads->n : 0;
    if (nq == 0)
        st_component_warn(self, "the input topology '%s' has no quads: the output stays empty",
                          m->input->name);
    ST_TRY(st_array_resize(&out->triangles, ST_T_TRIANGLES, 2 * nq, err));
    for (size_t i = 0; i < nq; i++) {
        ST_TRY(topo_map_loc_push(p, (unsigned)i, err));
        ST_TRY(topo_map_loc_push(p, (unsigned)i, err));
    }
    for (size_t i = 0; i < nq; i++) {
        const unsigned *v = quads->u + 4 * i;
        unsigned *t = out->triangles.u + 6 * i;
        if (m->swapping && (((i % scale) ^ (i / scale)) & 1)) {
            t[0] = v[0], t[1] = v[1], t[2] = v[3];
            t[3] = v[2], t[4] = v[3], t[5] = v[1];
        } else {
            t[0] = v[1], t[1] = v[2], t[2] = v[0];
            t[3] = v[3], t[4] = v[0], t[5] = v[2];
        }
    }
    ST_TRY(topo_map_end(out, "triangles", err));
    ST_TRY(topo_map_prop_init(p, quad2triangle_changed, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

TOPO_MAP_CHECKPOINT(quad2triangle);

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
    .cleanup = quad2triangle_cleanup,
    .checkpoint = &quad2triangle_checkpoint_ops,
};
