/* simple_tesselated_tetra_mechanical_mapping.c -
 * SimpleTesselatedTetraMechanicalMapping (Vec3d to Vec3d): the positions of
 * the finer mesh a SimpleTesselatedTetraTopologicalMapping (found in this
 * node or above, as SOFA's context search) made: output point
 * pointMappedFromPoint[i] is input point i, output point
 * pointMappedFromEdge[e] the midpoint of the input topology's edge e. J
 * holds an identity block per copied point and two halves per midpoint.
 * The maps and edges are copied at init, and again after a change of the
 * input or output topology (the topological mapping keeps its maps as SOFA's: an
 * output point whose source went keeps its place). */
#include <limits.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"

typedef struct stt_mech {
    map_head h;
    /* Set at init. */
    size_t nin, nout, np, ne;
    unsigned *pfp;   /* np: output index of each input point (UINT_MAX: none) */
    unsigned *pfe;   /* ne: output index of each edge's midpoint (UINT_MAX: none) */
    unsigned *edges; /* ne x 2: the input topology's edges */
    st_component *tm, *tin, *tout; /* the topological mapping, its input and output */
    bool stale;             /* the input changed: copy the maps again */
    bool listening;
} stt_mech;

static const char *const stt_templates[] = {"Vec3d", NULL};

static const st_field stt_fields[] = {MAP_HEAD_FIELDS(stt_mech), ST_FIELD_END};

static st_status stt_input_changed(st_component *self, st_component *topology,
                                   const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev, (void)err;
    ((stt_mech *)self)->stale = true;
    return ST_OK;
}

static const st_array *uints_field(st_component *c, const char *name);

/* After a change of the input: the maps and edges copied again (the
 * topological mapping has followed the change by then); false when they
 * no longer fit the states, and the mapping stops acting. */
static bool refresh(stt_mech *m)
{
    m->stale = false;
    const st_array *pfp = uints_field(m->tm, "pointMappedFromPoint");
    const st_array *pfe = uints_field(m->tm, "pointMappedFromEdge");
    const st_array *edges = m->tin->cls->topology->elements(m->tin, ST_T_EDGES);
    size_t ne = edges ? edges->n : 0;
    if (!pfp || !pfe || pfe->n != ne || pfp->n > m->h.in->n)
        return false;
    unsigned *a = st_realloc(m->pfp, (pfp->n ? pfp->n : 1) * sizeof *a);
    if (a)
        m->pfp = a;
    unsigned *b = st_realloc(m->pfe, (ne ? ne : 1) * sizeof *b);
    if (b)
        m->pfe = b;
    unsigned *c = st_realloc(m->edges, (ne ? 2 * ne : 1) * sizeof *c);
    if (c)
        m->edges = c;
    if (!a || !b || !c)
        return false;
    memcpy(m->pfp, pfp->u, pfp->n * sizeof *m->pfp);
    memcpy(m->pfe, pfe->u, ne * sizeof *m->pfe);
    if (ne)
        memcpy(m->edges, edges->u, 2 * ne * sizeof *m->edges);
    m->np = pfp->n;
    m->ne = ne;
    m->nin = m->h.in->n;
    m->nout = m->tout->cls->topology->nb_points(m->tout);
    for (size_t e = 0; e < 2 * ne; e++)
        if (m->edges[e] >= m->nin)
            return false;
    for (size_t i = 0; i < m->np + m->ne; i++) {
        unsigned o = i < m->np ? m->pfp[i] : m->pfe[i - m->np];
        if (o != UINT_MAX && o >= m->nout)
            return false;
    }
    return true;
}

static void stt_free(stt_mech *m)
{
    st_free(m->pfp);
    st_free(m->pfe);
    st_free(m->edges);
    m->pfp = m->pfe = m->edges = NULL;
    m->np = m->ne = 0;
}

static void stt_cleanup(st_component *self)
{
    stt_free((stt_mech *)self);
    map_head_release(&((stt_mech *)self)->h);
}

/* out = the mapped values of in (3 per point). */
static void stt_map(const stt_mech *m, const double *in, double *out)
{
    for (size_t i = 0; i < m->np; i++)
        if (m->pfp[i] != UINT_MAX)
            memcpy(out + 3 * (size_t)m->pfp[i], in + 3 * i, 3 * sizeof *out);
    for (size_t e = 0; e < m->ne; e++) {
        if (m->pfe[e] == UINT_MAX)
            continue;
        const double *a = in + 3 * (size_t)m->edges[2 * e], *b = in + 3 * (size_t)m->edges[2 * e + 1];
        double *o = out + 3 * (size_t)m->pfe[e];
        for (int k = 0; k < 3; k++)
            o[k] = (a[k] + b[k]) * 0.5;
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    stt_map((stt_mech *)self, xin, xout);
}

static const st_array *uints_field(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    return f && f->type == ST_T_UINTS ? st_component_field_ptr(c, f) : NULL;
}

static st_status stt_init(st_component *self, st_error *err)
{
    stt_mech *m = (stt_mech *)self;
    self->state = ST_CSTATE_INVALID;
    stt_free(m);
    ST_TRY(map_head_bind(&m->h, &st_vec3d_type, &st_vec3d_type, err));
    st_component *tm = map_find_upward(self->node, "SimpleTesselatedTetraTopologicalMapping");
    if (!tm)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no SimpleTesselatedTetraTopologicalMapping in this node or "
                                  "above: nothing tells which points to map");
    const st_field *fi = st_component_field(tm, "input"), *fo = st_component_field(tm, "output");
    st_component *tin = fi ? *(st_component **)st_component_field_ptr(tm, fi) : NULL;
    st_component *tout = fo ? *(st_component **)st_component_field_ptr(tm, fo) : NULL;
    const st_array *pfp = uints_field(tm, "pointMappedFromPoint");
    const st_array *pfe = uints_field(tm, "pointMappedFromEdge");
    if (tm->state != ST_CSTATE_VALID || !tin || !tin->cls->topology || !tout ||
        !tout->cls->topology || !pfp || !pfe)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the topological mapping '%s' is not initialised", tm->name);
    const st_array *edges = tin->cls->topology->elements(tin, ST_T_EDGES);
    const size_t ne = edges ? edges->n : 0, nout = tout->cls->topology->nb_points(tout);
    if (pfe->n != ne)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "'%s' maps %zu edges; its input '%s' has %zu", tm->name, pfe->n,
                                  tin->name, ne);
    const size_t nin = m->h.in->position.n;
    if (pfp->n > nin)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "'%s' maps %zu points; the input '%s' has %zu", tm->name, pfp->n,
                                  m->h.in->base.name, nin);
    m->pfp = st_malloc((pfp->n ? pfp->n : 1) * sizeof *m->pfp);
    m->pfe = st_malloc((ne ? ne : 1) * sizeof *m->pfe);
    m->edges = st_malloc((ne ? 2 * ne : 1) * sizeof *m->edges);
    if (!m->pfp || !m->pfe || !m->edges) {
        stt_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu edges)", ne);
    }
    memcpy(m->pfp, pfp->u, pfp->n * sizeof *m->pfp);
    memcpy(m->pfe, pfe->u, ne * sizeof *m->pfe);
    if (ne)
        memcpy(m->edges, edges->u, 2 * ne * sizeof *m->edges);
    m->np = pfp->n;
    m->ne = ne;
    for (size_t i = 0; i < m->np + m->ne; i++) {
        unsigned o = i < m->np ? m->pfp[i] : m->pfe[i - m->np];
        if (o != UINT_MAX && o >= nout)
            return st_component_error(self, NULL, err, ST_ESCENE,
                                      "'%s' maps to point %u; its output '%s' has %zu", tm->name, o,
                                      tout->name, nout);
    }
    for (size_t e = 0; e < 2 * ne; e++)
        if (m->edges[e] >= nin)
            return st_component_error(self, "input", err, ST_ESCENE,
                                      "edge %zu of '%s' uses point %u; the input '%s' has %zu",
                                      e / 2, tin->name, m->edges[e], m->h.in->base.name, nin);
    m->tm = tm;
    m->tin = tin;
    m->tout = tout;
    m->stale = false;
    if (!m->listening) {
        /* a change of either side (the output's go up to the input: the
         * topological mapping's bottom-up propagation) */
        ST_TRY(st_topology_listen(self, tin, stt_input_changed, err));
        ST_TRY(st_topology_listen(self, tout, stt_input_changed, err));
        m->listening = true;
    }
    m->nin = nin;
    m->nout = nout;
    if (m->h.out->position.n != nout)
        ST_TRY(map_resize_output(m->h.out, nout, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static bool ready(stt_mech *m)
{
    if (m->h.base.state != ST_CSTATE_VALID)
        return false;
    if (m->stale && !refresh(m)) {
        st_component_warn(&m->h.base, "the maps of '%s' no longer fit the states after a "
                                      "topological change: the mapping stops acting",
                          m->tm->name);
        m->h.base.state = ST_CSTATE_INVALID;
        return false;
    }
    return m->h.out && m->h.out->n == m->nout && m->h.in->n == m->nin;
}

static void stt_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    stt_mech *m = (stt_mech *)self;
    if (!ready(m))
        return;
    double *out = map_head_xout(&m->h, x);
    if (out) {
        stt_map(m, st_slice_x(x, m->h.in), out);
        map_head_touch_visual(&m->h);
    }
}

static void stt_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    stt_mech *m = (stt_mech *)self;
    if (ready(m))
        stt_map(m, st_slice(v, m->h.in), st_slice(v, m->h.out));
}

static void stt_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    stt_mech *m = (stt_mech *)self;
    if (!ready(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->np; i++)
        if (m->pfp[i] != UINT_MAX)
            for (int k = 0; k < 3; k++)
                fin[3 * i + k] += fout[3 * (size_t)m->pfp[i] + k];
    for (size_t e = 0; e < m->ne; e++) {
        if (m->pfe[e] == UINT_MAX)
            continue;
        double *a = fin + 3 * (size_t)m->edges[2 * e], *b = fin + 3 * (size_t)m->edges[2 * e + 1];
        const double *o = fout + 3 * (size_t)m->pfe[e];
        for (int k = 0; k < 3; k++) {
            a[k] += o[k] * 0.5;
            b[k] += o[k] * 0.5;
        }
    }
}

static void stt_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    stt_mech *m = (stt_mech *)self;
    if (!ready(m))
        return;
    for (size_t i = 0; i < m->np; i++)
        if (m->pfp[i] != UINT_MAX)
            st_jbuilder_add_diag(jb, m->pfp[i], m->h.in, i, 1.0);
    for (size_t e = 0; e < m->ne; e++)
        if (m->pfe[e] != UINT_MAX) {
            st_jbuilder_add_diag(jb, m->pfe[e], m->h.in, m->edges[2 * e], 0.5);
            st_jbuilder_add_diag(jb, m->pfe[e], m->h.in, m->edges[2 * e + 1], 0.5);
        }
}

static const st_mapping_ops stt_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = stt_apply,
    .apply_j = stt_apply_j,
    .apply_jt = stt_apply_jt,
    .get_j = stt_get_j,
    .flags = map_head_flags,
};

const st_class simple_tesselated_tetra_mechanical_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "SimpleTesselatedTetraMechanicalMapping",
    .category = "Mapping",
    .description = "Mechanical mapping between two TetrahedronSetTopologies generated by "
                   "SimpleTesselatedTetraTopologicalMapping.",
    .instance_size = sizeof(stt_mech),
    .fields = stt_fields,
    .init = stt_init,
    .reinit = stt_init,
    .cleanup = stt_cleanup,
    .mapping = &stt_ops,
    .templates = stt_templates,
};
