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
 * J is the weights (the offsets drop out). The table is built from the
 * topological mapping's maps (its hidden pointsMappedFrom* fields: which
 * output point each input element made) and the input topology's elements,
 * at init and again after every change of the input topology (this mapping
 * listens to it after the topological mapping, which has then updated its
 * maps and its output), as SOFA's apply reads the maps at every call. */
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
    st_component *tm, *tin, *tout; /* the links as resolved at init */
    bool listening;
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

/* The topological mapping's map of kind k (hidden field), or NULL. */
static const st_array *map_of(st_component *tm, int k)
{
    static const char *const names[6] = {"pointsMappedFromPoint", "pointsMappedFromEdge",
                                         "pointsMappedFromTriangle", "pointsMappedFromQuad",
                                         "pointsMappedFromTetra", "pointsMappedFromHexa"};
    const st_field *f = st_component_field(tm, names[k]);
    return f && f->type == ST_T_UINTS ? st_component_field_ptr(tm, f) : NULL;
}

/* Builds the table from the topological mapping's maps, as SOFA's apply
 * reads them (two passes: count, then fill): entry j of input element i of
 * kind k names the output point made from it with the kind's coordinate j;
 * an output point no entry names gets nothing (SOFA leaves it as it was;
 * none is left so once a change is over). */
static st_status build(m2p_mech *m, st_component *tm, st_component *tin, size_t nout,
                       st_error *err)
{
    const st_array *bary[6], *maps[6];
    const st_array *elems[6] = {NULL};
    size_t nterms = 0;
    m->start = st_calloc(nout + 2, sizeof *m->start);
    m->off = st_calloc(3 * (nout ? nout : 1), sizeof *m->off);
    if (!m->start || !m->off) {
        m2p_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu mapped points)", nout);
    }
    for (int k = 0; k < 6; k++) {
        const st_field *f = st_component_field(tm, bary_names[k]);
        bary[k] = f && f->type == ST_T_VEC3S ? st_component_field_ptr(tm, f) : NULL;
        maps[k] = map_of(tm, k);
        if (!bary[k] || bary[k]->n == 0 || !maps[k])
            continue;
        const size_t nb = bary[k]->n, ne = maps[k]->n / nb;
        const unsigned nc = k ? st_type_width(elem_types[k]) : 1;
        size_t nel = m->nin;
        if (k > 0) {
            elems[k] = tin->cls->topology->elements(tin, elem_types[k]);
            nel = elems[k] ? elems[k]->n : 0;
        }
        for (size_t e = 0; e < ne; e++)
            for (size_t j = 0; j < nb; j++) {
                const unsigned o = maps[k]->u[e * nb + j];
                if (o == UINT32_MAX)
                    continue;
                if (o >= nout || e >= nel)
                    return st_component_error(&m->h.base, "topologicalMapping", err, ST_ESCENE,
                                              "'%s' maps %s %zu of %zu to output point %u of "
                                              "%zu",
                                              tm->name, st_elem_name((st_elem)k), e, nel, o,
                                              nout);
                m->start[o + 2] += nc;
                nterms += nc;
            }
    }
    for (size_t o = 0; o < nout; o++)
        m->start[o + 2] += m->start[o + 1];
    m->idx = st_malloc((nterms ? nterms : 1) * sizeof *m->idx);
    m->w = st_malloc((nterms ? nterms : 1) * sizeof *m->w);
    if (!m->idx || !m->w) {
        m2p_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu mapped points)", nout);
    }
    /* start[o + 1] is the next free term of point o while filling. */
    for (int k = 0; k < 6; k++) {
        if (!bary[k] || bary[k]->n == 0 || !maps[k])
            continue;
        const size_t nb = bary[k]->n, ne = maps[k]->n / nb;
        const unsigned nc = k ? st_type_width(elem_types[k]) : 1;
        for (size_t e = 0; e < ne; e++) {
            const unsigned *v = k ? elems[k]->u + (size_t)nc * e : NULL;
            for (unsigned c = 0; v && c < nc; c++)
                if (v[c] >= m->nin)
                    return st_component_error(&m->h.base, "inputTopology", err, ST_ESCENE,
                                              "element %zu of '%s' uses point %u; the input "
                                              "'%s' has %zu",
                                              e, tin->name, v[c], m->h.in->base.name, m->nin);
            for (size_t j = 0; j < nb; j++) {
                const unsigned o = maps[k]->u[e * nb + j];
                if (o == UINT32_MAX)
                    continue;
                size_t t = m->start[o + 1];
                if (!k) {
                    m->idx[t] = (unsigned)e;
                    m->w[t++] = 1.0;
                    memcpy(m->off + 3 * (size_t)o, bary[0]->r + 3 * j, 3 * sizeof *m->off);
                } else {
                    double w[8];
                    mesh2point_weights(k, bary[k]->r + 3 * j, w);
                    for (unsigned c = 0; c < nc; c++) {
                        const unsigned corner = k == 5 ? hex_sum_order[c] : c;
                        m->idx[t] = v[corner];
                        m->w[t++] = w[corner];
                    }
                }
                m->start[o + 1] = t;
            }
        }
    }
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

/* After a change of the input topology (the topological mapping, which
 * listened first, has updated its maps and its output): the table is read
 * again from the maps, as SOFA's apply reads them at every call. A
 * checkpoint read calls this with no events before the topological
 * mapping's maps are restored: the checkpoint role below reads them after. */
static st_status m2p_changed(st_component *self, st_component *topology,
                             const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)ev;
    m2p_mech *m = (m2p_mech *)self;
    if (self->state != ST_CSTATE_VALID || !m->tm || (topology && !nev))
        return ST_OK;
    m2p_free(m);
    m->nin = m->h.in->position.n;
    const size_t nout = m->tout->cls->topology->nb_points(m->tout);
    st_status st = build(m, m->tm, m->tin, nout, err);
    if (st != ST_OK)
        self->state = ST_CSTATE_INVALID;
    return st;
}

/* The output changes only within a change of the input, through the
 * topological mapping: the table is read again once that is over. */
static st_status m2p_out_changed(st_component *self, st_component *topology,
                                 const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)self, (void)topology, (void)ev, (void)nev, (void)err;
    return ST_OK;
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
    const st_field *sf = st_component_field(tm, "pointSource");
    const size_t made = sf ? ((const st_array *)st_component_field_ptr(tm, sf))->n / 2 : 0;
    const size_t nout = tout->cls->topology->nb_points(tout);
    if (nout != made)
        return st_component_error(self, "outputTopology", err, ST_ESCENE,
                                  "'%s' made %zu points from '%s'; the output topology '%s' has "
                                  "%zu",
                                  tm->name, made, tin->name, tout->name, nout);
    m->tm = tm, m->tin = tin, m->tout = tout;
    m->nin = m->h.in->position.n;
    ST_TRY(build(m, tm, tin, nout, err));
    if (m->h.out->position.n != nout)
        ST_TRY(map_resize_output(m->h.out, nout, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    if (!m->listening) {
        ST_TRY(st_topology_listen(self, tin, m2p_changed, err));
        ST_TRY(st_topology_listen(self, tout, m2p_out_changed, err));
        m->listening = true;
    }
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

/* Checkpoints: read, the table is made again from the restored maps. */
static st_status m2p_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    if (!st_checkpoint_reading(ck))
        return ST_OK;
    return m2p_changed(self, NULL, NULL, 0, err);
}

static const st_checkpoint_ops m2p_checkpoint_ops = {sizeof(st_checkpoint_ops), m2p_checkpoint};

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
    .checkpoint = &m2p_checkpoint_ops,
    .templates = m2p_templates,
};
