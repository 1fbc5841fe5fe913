/* mesh2point_mechanical_mapping.c - Mesh2PointMechanicalMapping (Vec3d to
 * Vec3d): the positions of the points a Mesh2PointTopologicalMapping made
 * from the elements of its input, following the input's motion. Output
 * point k is, as the topological mapping made it (all points, then edges,
 * triangles, quads, tetrahedra, hexahedra; element by element, one point
 * per entry of the kind's coordinate list):
 *   from point p with offset c:           x_p + c
 *   from an element with coordinates f:   sum over its corners of w(f) x_corner
 * with SOFA's weights (plugins/shared/mesh2point_weights.h), summed in
 * SOFA's order.
 * J is the weights (the offsets drop out). The table is built at init from
 * the topological mapping's coordinates and the input topology's elements;
 * the topological mapping refuses a change of its input, so the table
 * stays right for the run. */
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"
#include "../shared/mesh2point_weights.h"

typedef struct m2p_mech {
    map_head h;
    st_component *topo_map, *in_topo, *out_topo; /* SOFA's links */
    /* Set at init: output point k is sum_{t in [start[k], start[k+1])} w[t] in[idx[t]]
     * + off[k]. */
    size_t nin, nout;
    size_t *start;
    unsigned *idx;
    double *w, *off;
} m2p_mech;

static const char *const m2p_templates[] = {"Vec3d", NULL};

static const st_field m2p_fields[] = {
    MAP_HEAD_FIELDS(m2p_mech),
    ST_LINK(m2p_mech, topo_map, "topologicalMapping", ST_LINK_ANY,
            "Link to a Mesh2PointTopologicalMapping (default: the first one in this node or "
            "above)"),
    ST_LINK(m2p_mech, in_topo, "inputTopology", ST_LINK_TOPOLOGY,
            "Link to the input topology (default: the topological mapping's input)"),
    ST_LINK(m2p_mech, out_topo, "outputTopology", ST_LINK_TOPOLOGY,
            "Link to the output topology (default: the topological mapping's output)"),
    ST_FIELD_END};

static void m2p_free(m2p_mech *m)
{
    st_free(m->start);
    st_free(m->idx);
    st_free(m->w);
    st_free(m->off);
    m->start = NULL, m->idx = NULL, m->w = NULL, m->off = NULL;
    m->nout = 0;
}

static void m2p_cleanup(st_component *self)
{
    m2p_free((m2p_mech *)self);
    map_head_release(&((m2p_mech *)self)->h);
}

static st_component *link_of(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    return f && f->type == ST_T_LINK ? *(st_component **)st_component_field_ptr(c, f) : NULL;
}

/* SOFA's mechanical mapping sums a hexahedron's corners in this order (its
 * topological mapping: h7 before h6). */
static const unsigned hex_sum_order[8] = {0, 1, 3, 2, 4, 5, 6, 7};

static const char *const bary_names[6] = {"pointBaryCoords", "edgeBaryCoords",
                                          "triangleBaryCoords", "quadBaryCoords",
                                          "tetraBaryCoords", "hexaBaryCoords"};
static const st_type elem_types[6] = {0, ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS, ST_T_TETRAS,
                                      ST_T_HEXAS};

/* Builds the table (two passes: count, then fill). */
static st_status build(m2p_mech *m, st_component *tm, st_component *tin, st_error *err)
{
    const st_array *bary[6];
    const st_array *elems[6] = {NULL};
    size_t nout = 0, nterms = 0;
    for (int k = 0; k < 6; k++) {
        const st_field *f = st_component_field(tm, bary_names[k]);
        bary[k] = f && f->type == ST_T_VEC3S ? st_component_field_ptr(tm, f) : NULL;
        if (!bary[k] || bary[k]->n == 0)
            continue;
        size_t ne = m->nin;
        unsigned nc = 1;
        if (k > 0) {
            elems[k] = tin->cls->topology->elements(tin, elem_types[k]);
            ne = elems[k] ? elems[k]->n : 0;
            nc = st_type_width(elem_types[k]);
        }
        nout += ne * bary[k]->n;
        nterms += ne * bary[k]->n * nc;
    }
    m->start = st_malloc((nout + 1) * sizeof *m->start);
    m->idx = st_malloc((nterms ? nterms : 1) * sizeof *m->idx);
    m->w = st_malloc((nterms ? nterms : 1) * sizeof *m->w);
    m->off = st_calloc(3 * (nout ? nout : 1), sizeof *m->off);
    if (!m->start || !m->idx || !m->w || !m->off) {
        m2p_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu mapped points)", nout);
    }
    size_t o = 0, t = 0;
    for (int k = 0; k < 6; k++) {
        if (!bary[k] || bary[k]->n == 0)
            continue;
        if (k == 0) {
            for (size_t p = 0; p < m->nin; p++)
                for (size_t j = 0; j < bary[0]->n; j++, o++) {
                    m->start[o] = t;
                    m->idx[t] = (unsigned)p;
                    m->w[t++] = 1.0;
                    memcpy(m->off + 3 * o, bary[0]->r + 3 * j, 3 * sizeof *m->off);
                }
            continue;
        }
        const unsigned nc = st_type_width(elem_types[k]);
        for (size_t e = 0; elems[k] && e < elems[k]->n; e++) {
            const unsigned *v = elems[k]->u + (size_t)nc * e;
            for (unsigned c = 0; c < nc; c++)
                if (v[c] >= m->nin)
                    return st_component_error(&m->h.base, "inputTopology", err, ST_ESCENE,
                                              "element %zu of '%s' uses point %u; the input "
                                              "'%s' has %zu",
                                              e, tin->name, v[c], m->h.in->base.name, m->nin);
            for (size_t j = 0; j < bary[k]->n; j++, o++) {
                double w[8];
                mesh2point_weights(k, bary[k]->r + 3 * j, w);
                m->start[o] = t;
                for (unsigned c = 0; c < nc; c++) {
                    const unsigned corner = k == 5 ? hex_sum_order[c] : c;
                    m->idx[t] = v[corner];
                    m->w[t++] = w[corner];
                }
            }
        }
    }
    m->start[o] = t;
    m->nout = nout;
    return ST_OK;
}

/* out = the mapped values of in, plus the offsets when `offsets`. */
static void m2p_map(const m2p_mech *m, const double *in, double *out, bool offsets)
{
    for (size_t k = 0; k < m->nout; k++) {
        double s[3] = {0, 0, 0};
        for (size_t t = m->start[k]; t < m->start[k + 1]; t++) {
            const double *p = in + 3 * (size_t)m->idx[t];
            s[0] += m->w[t] * p[0], s[1] += m->w[t] * p[1], s[2] += m->w[t] * p[2];
        }
        double *q = out + 3 * k;
        for (int c = 0; c < 3; c++)
            q[c] = offsets ? s[c] + m->off[3 * k + (size_t)c] : s[c];
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    m2p_map((m2p_mech *)self, xin, xout, true);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    m2p_map((m2p_mech *)self, vin, vout, false);
}

static st_status m2p_init(st_component *self, st_error *err)
{
    m2p_mech *m = (m2p_mech *)self;
    self->state = ST_CSTATE_INVALID;
    m2p_free(m);
    ST_TRY(map_head_bind(&m->h, &st_vec3d_type, &st_vec3d_type, err));
    st_component *tm = m->topo_map ? m->topo_map : map_find_upward(self->node, "Mesh2PointTopologicalMapping");
    if (!tm)
        return st_component_error(self, "topologicalMapping", err, ST_ESCENE,
                                  "no Mesh2PointTopologicalMapping in this node or above: "
                                  "nothing tells which points to map");
    if (strcmp(tm->cls->name, "Mesh2PointTopologicalMapping") != 0)
        return st_component_error(self, "topologicalMapping", err, ST_ESCENE,
                                  "'%s' is a %s, not a Mesh2PointTopologicalMapping", tm->name,
                                  tm->cls->name);
    st_component *tin = m->in_topo ? m->in_topo : link_of(tm, "input");
    st_component *tout = m->out_topo ? m->out_topo : link_of(tm, "output");
    if (tm->state != ST_CSTATE_VALID || !tin || !tin->cls->topology || !tout ||
        !tout->cls->topology)
        return st_component_error(self, "topologicalMapping", err, ST_ESCENE,
                                  "the topological mapping '%s' is not initialised", tm->name);
    m->nin = m->h.in->position.n;
    ST_TRY(build(m, tm, tin, err));
    const size_t nout = tout->cls->topology->nb_points(tout);
    if (nout != m->nout)
        return st_component_error(self, "outputTopology", err, ST_ESCENE,
                                  "'%s' made %zu points from '%s'; the output topology '%s' has "
                                  "%zu",
                                  tm->name, m->nout, tin->name, tout->name, nout);
    if (m->h.out->position.n != nout)
        ST_TRY(map_resize_output(m->h.out, nout, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static bool ready(const m2p_mech *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->nout &&
           m->h.in->n == m->nin;
}

static void m2p_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    m2p_mech *m = (m2p_mech *)self;
    if (!ready(m))
        return;
    double *out = map_head_xout(&m->h, x);
    if (out) {
        m2p_map(m, st_slice_x(x, m->h.in), out, true);
        map_head_touch_visual(&m->h);
    }
}

static void m2p_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    m2p_mech *m = (m2p_mech *)self;
    if (ready(m))
        m2p_map(m, st_slice(v, m->h.in), st_slice(v, m->h.out), false);
}

static void m2p_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    m2p_mech *m = (m2p_mech *)self;
    if (!ready(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    for (size_t k = 0; k < m->nout; k++)
        for (size_t t = m->start[k]; t < m->start[k + 1]; t++) {
            double *p = fin + 3 * (size_t)m->idx[t];
            for (int c = 0; c < 3; c++)
                p[c] += m->w[t] * fout[3 * k + (size_t)c];
        }
}

static void m2p_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    m2p_mech *m = (m2p_mech *)self;
    if (!ready(m))
        return;
    for (size_t k = 0; k < m->nout; k++)
        for (size_t t = m->start[k]; t < m->start[k + 1]; t++)
            st_jbuilder_add_diag(jb, k, m->h.in, m->idx[t], m->w[t]);
}

static const st_mapping_ops m2p_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = m2p_apply,
    .apply_j = m2p_apply_j,
    .apply_jt = m2p_apply_jt,
    .get_j = m2p_get_j,
    .flags = map_head_flags,
};

const st_class mesh2point_mechanical_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "Mesh2PointMechanicalMapping",
    .category = "Mapping",
    .description = "Mechanical mapping between a set of mesh primitives (point, edge, triangle...) "
                   "and a set of points generated by Mesh2PointTopologicalMapping",
    .instance_size = sizeof(m2p_mech),
    .fields = m2p_fields,
    .init = m2p_init,
    .reinit = m2p_init,
    .cleanup = m2p_cleanup,
    .mapping = &m2p_ops,
    .templates = m2p_templates,
};
