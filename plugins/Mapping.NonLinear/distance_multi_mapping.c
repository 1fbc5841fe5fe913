/* distance_multi_mapping.c - DistanceMultiMapping (Vec3d or Rigid3d inputs
 * to Vec1d): DistanceMapping across several input states. "indexPairs"
 * lists points as (input, index in that input); the edges of "topology"
 * join entries of that list, and edge i = (a, b) maps to
 *   y_i = |p_b - p_a| - L_i,  J_i = (-u, u) on the two points, u = r / |r|
 * (positions only: a Rigid3d input's orientation plays no part; for a
 * length <= DBL_EPSILON u = (1, 1, 1) / sqrt 3 and 1/|r| = 0, as SOFA). The
 * geometric stiffness of edge i for the child force f_i is
 * B = f_i / |r| (I - u u^T) on the blocks (a,a), (b,b) and -B on (a,b),
 * (b,a): "Exact" keeps every edge, "Stabilized" (the default) those pulled
 * (f_i < 0), "None" none.
 *
 * Rest lengths, as SOFA: when "restLengths" does not hold one value per
 * edge, it is rebuilt: all zeros with computeDistance, else the lengths at
 * init. The edges and pairs are read once at init. */
#include <float.h>
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"
#include "../shared/options.h"

#define MAX_INPUTS 16

typedef struct distance_multi_mapping {
    map_head h;                /* h.input: the first of "input" */
    st_array input_paths;      /* "input": links to the input states */
    bool compute_distance;     /* "computeDistance" */
    st_array rest_lengths;     /* "restLengths" */
    double show_scale;         /* "showObjectScale" */
    st_vec4 show_color;        /* "showColor" */
    st_array index_pairs;      /* "indexPairs": (input, point) */
    st_component *topology;    /* "topology" */
    char *geometric_stiffness; /* "geometricStiffness": None, Exact, Stabilized */
    /* Set at init. */
    st_mstate *ins[MAX_INPUTS];
    size_t sizes[MAX_INPUTS];
    size_t nins, ne;
    int gs;                    /* 0 None, 1 Exact, 2 Stabilized */
    unsigned *ends;            /* ne x 4: (input, point) of each end of each edge */
    double *u;                 /* ne x 3: the unit direction at the last apply */
    double *invlen;            /* ne: 1 / length (0 for a null length) */
    double *coef;              /* ne: f_i / length kept by update_k (0: no K) */
} distance_multi_mapping;

static const char *const gs_names[] = {"None", "Exact", "Stabilized", NULL};
static const st_option_field dmm_options[] = {{"geometricStiffness", gs_names}, {NULL, NULL}};
static const char *const dmm_templates[] = {"Vec3d", "Rigid3d", NULL};

static const st_field dmm_fields[] = {
    ST_FIELD_EX(distance_multi_mapping, input_paths, "input", ST_T_STRINGS, st_array, NULL,
                "Input Object(s): a list of links (\"@../a\", \"@../b\")",
                ST_F_REQUIRED | ST_F_NOLINK, NULL, 0.0, 0.0),
    MAP_OUTPUT_FIELDS(distance_multi_mapping),
    ST_BOOL(distance_multi_mapping, compute_distance, "computeDistance", "false",
            "if 'computeDistance = true', then rest length of each element equal 0, otherwise "
            "rest length is the initial length of each of them"),
    ST_REALS(distance_multi_mapping, rest_lengths, "restLengths", "",
             "Rest lengths of the connections"),
    IGN_REAL(distance_multi_mapping, show_scale, "showObjectScale", "0", "Scale for object display"),
    IGN_RGBA(distance_multi_mapping, show_color, "showColor", "1 1 0 1",
             "Color for object display. (default=[1.0,1.0,0.0,1.0])"),
    ST_UINTS(distance_multi_mapping, index_pairs, "indexPairs", "",
             "list of couples (parent index + index in the parent)"),
    ST_LINK(distance_multi_mapping, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ST_STRING(distance_multi_mapping, geometric_stiffness, "geometricStiffness", "Stabilized",
              "Method used to compute the geometric stiffness:\n-None: geometric stiffness is "
              "not computed\n-Exact: the exact geometric stiffness is computed\n-Stabilized: "
              "the exact geometric stiffness is approximated in order to improve stability"),
    ST_FIELD_END};

static void dmm_free(distance_multi_mapping *m)
{
    st_free(m->ends);
    st_free(m->u);
    st_free(m->invlen);
    st_free(m->coef);
    m->ends = NULL;
    m->u = m->invlen = m->coef = NULL;
    m->ne = 0;
}

static void dmm_cleanup(st_component *self)
{
    dmm_free((distance_multi_mapping *)self);
    map_head_release(&((distance_multi_mapping *)self)->h);
}

/* The position of end e (0 or 1) of edge i in its input's array x. */
static const double *end_of(const distance_multi_mapping *m, size_t i, int e, const double *x,
                            unsigned cw)
{
    return x + (size_t)cw * m->ends[4 * i + 2 * e + 1];
}

/* Lengths and directions from the inputs' coordinates xs[k]. */
static void dmm_apply_x(distance_multi_mapping *m, const double *const *xs, double *xout)
{
    const unsigned cw = m->ins[0]->type->coord_size;
    for (size_t i = 0; i < m->ne; i++) {
        const double *p = end_of(m, i, 0, xs[m->ends[4 * i]], cw);
        const double *q = end_of(m, i, 1, xs[m->ends[4 * i + 2]], cw);
        double r[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
        double d = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), *u = m->u + 3 * i;
        xout[i] = d - m->rest_lengths.r[i];
        if (d > DBL_EPSILON) {
            m->invlen[i] = 1 / d;
            for (int k = 0; k < 3; k++)
                u[k] = r[k] / d;
        } else {
            m->invlen[i] = 0;
            for (int k = 0; k < 3; k++)
                u[k] = 1 / sqrt(3.0);
        }
    }
}

static void dmm_apply_v(const distance_multi_mapping *m, const double *const *vs, double *vout)
{
    const unsigned dw = m->ins[0]->type->deriv_size;
    for (size_t i = 0; i < m->ne; i++) {
        const double *a = end_of(m, i, 0, vs[m->ends[4 * i]], dw);
        const double *b = end_of(m, i, 1, vs[m->ends[4 * i + 2]], dw);
        const double *u = m->u + 3 * i;
        vout[i] = u[0] * (b[0] - a[0]) + u[1] * (b[1] - a[1]) + u[2] * (b[2] - a[2]);
    }
}

static st_status dmm_init(st_component *self, st_error *err)
{
    distance_multi_mapping *m = (distance_multi_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    dmm_free(m);
    m->nins = 0;
    ST_TRY(st_options_check(self, dmm_options, err));
    m->gs = strcmp(m->geometric_stiffness, "Exact") == 0        ? 1
            : strcmp(m->geometric_stiffness, "Stabilized") == 0 ? 2
                                                                : 0;
    ST_TRY(map_resolve_inputs(self, &m->input_paths, m->ins, MAX_INPUTS, &m->nins, err));
    for (size_t k = 0; k < m->nins; k++)
        m->sizes[k] = m->ins[k]->position.n;
    m->h.input = &m->ins[0]->base;
    ST_TRY(map_head_bind(&m->h, NULL, &st_vec1d_type, err));
    for (size_t k = 0; k < m->nins; k++) {
        const st_state_type *t = m->ins[k]->type;
        if ((t != &st_vec3d_type && t != &st_rigid3d_type) || t != m->ins[0]->type)
            return st_component_error(self, "input", err, ST_ESCENE,
                                      "input '%s' is %s: the inputs of a DistanceMultiMapping are "
                                      "all Vec3d or all Rigid3d",
                                      m->ins[k]->base.name, t->name);
    }
    if (m->index_pairs.n % 2)
        return st_component_error(self, "indexPairs", err, ST_ESCENE,
                                  "indexPairs holds pairs (input, point): %zu values",
                                  m->index_pairs.n);
    const size_t np = m->index_pairs.n / 2;
    for (size_t i = 0; i < np; i++) {
        unsigned s = m->index_pairs.u[2 * i], j = m->index_pairs.u[2 * i + 1];
        if (s >= m->nins || j >= m->sizes[s])
            return st_component_error(self, "indexPairs", err, ST_ESCENE,
                                      "pair %zu (%u, %u) names no point of the inputs", i, s, j);
    }
    st_component *topo = m->topology;
    if (!topo) {
        topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
        if (topo)
            st_component_warn(self, "link to Topology container should be set to ensure right "
                                    "behavior. First Topology found in current context will be "
                                    "used.");
    }
    if (!topo || !topo->cls->topology)
        return st_component_error(self, "topology", err, ST_ESCENE, "No topology found");
    const st_array *edges = topo->cls->topology->elements(topo, ST_T_EDGES);
    if (!edges || edges->n < 1)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No Topology component containing edges found at path: %s, nor "
                                  "in current context: %s",
                                  topo->name, st_node_name(self->node));
    ST_TRY(st_topology_use(self, topo, err));
    const size_t ne = edges->n;
    for (size_t i = 0; i < 2 * ne; i++)
        if (edges->u[i] >= np)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "edge %zu of '%s' uses entry %u of indexPairs, which holds "
                                      "%zu pairs",
                                      i / 2, topo->name, edges->u[i], np);
    m->ends = st_malloc(4 * ne * sizeof *m->ends);
    m->u = st_calloc(3 * ne, sizeof *m->u);
    m->invlen = st_calloc(ne, sizeof *m->invlen);
    m->coef = st_calloc(ne, sizeof *m->coef);
    if (!m->ends || !m->u || !m->invlen || !m->coef) {
        dmm_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu edges)", ne);
    }
    for (size_t i = 0; i < ne; i++)
        for (int e = 0; e < 2; e++) {
            unsigned pair = edges->u[2 * i + e];
            m->ends[4 * i + 2 * e] = m->index_pairs.u[2 * pair];
            m->ends[4 * i + 2 * e + 1] = m->index_pairs.u[2 * pair + 1];
        }
    m->ne = ne;
    const double *xs[MAX_INPUTS], *vs[MAX_INPUTS];
    bool have_v = true;
    for (size_t k = 0; k < m->nins; k++) {
        xs[k] = m->ins[k]->position.r;
        vs[k] = m->ins[k]->velocity.r;
        have_v = have_v && m->ins[k]->velocity.n == m->sizes[k];
    }
    if (m->rest_lengths.n != ne) {
        ST_TRY(st_array_resize(&m->rest_lengths, ST_T_REALS, ne, err));
        const unsigned cw = m->ins[0]->type->coord_size;
        for (size_t i = 0; i < ne; i++) {
            m->rest_lengths.r[i] = 0;
            if (m->compute_distance)
                continue;
            const double *p = end_of(m, i, 0, xs[m->ends[4 * i]], cw);
            const double *q = end_of(m, i, 1, xs[m->ends[4 * i + 2]], cw);
            double r[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
            m->rest_lengths.r[i] = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        }
        st_component_touch(self, st_component_field(self, "restLengths"));
    }
    st_mstate *out = m->h.out;
    if (out->position.n != ne || out->velocity.n != ne || out->rest_position.n != ne)
        ST_TRY(map_resize_output(out, ne, err));
    /* The rest positions first, so that the directions kept are those at
     * the positions. */
    if (m->h.apply_rest_position && out->rest_position.n == ne) {
        const double *rs[MAX_INPUTS];
        bool have_rest = true;
        for (size_t k = 0; k < m->nins; k++) {
            rs[k] = m->ins[k]->rest_position.r;
            have_rest = have_rest && m->ins[k]->rest_position.n == m->sizes[k];
        }
        if (have_rest)
            dmm_apply_x(m, rs, out->rest_position.r);
    }
    dmm_apply_x(m, xs, out->position.r);
    if (have_v && out->velocity.n == ne)
        dmm_apply_v(m, vs, out->velocity.r);
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static bool ready(const distance_multi_mapping *m)
{
    if (m->h.base.state != ST_CSTATE_VALID || !m->h.out || m->h.out->n != m->ne)
        return false;
    for (size_t k = 0; k < m->nins; k++)
        if (m->ins[k]->n != m->sizes[k])
            return false;
    return true;
}

static void dmm_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    distance_multi_mapping *m = (distance_multi_mapping *)self;
    if (!ready(m))
        return;
    const double *xs[MAX_INPUTS];
    for (size_t k = 0; k < m->nins; k++)
        xs[k] = st_slice_x(x, m->ins[k]);
    dmm_apply_x(m, xs, st_slice_x(x, m->h.out));
}

static void dmm_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    distance_multi_mapping *m = (distance_multi_mapping *)self;
    if (!ready(m))
        return;
    const double *vs[MAX_INPUTS];
    for (size_t k = 0; k < m->nins; k++)
        vs[k] = st_slice(v, m->ins[k]);
    dmm_apply_v(m, vs, st_slice(v, m->h.out));
}

static void dmm_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    distance_multi_mapping *m = (distance_multi_mapping *)self;
    if (!ready(m))
        return;
    const unsigned dw = m->ins[0]->type->deriv_size;
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->ne; i++) {
        double *a = st_slice(f, m->ins[m->ends[4 * i]]) + (size_t)dw * m->ends[4 * i + 1];
        double *b = st_slice(f, m->ins[m->ends[4 * i + 2]]) + (size_t)dw * m->ends[4 * i + 3];
        const double *u = m->u + 3 * i;
        for (int k = 0; k < 3; k++) {
            a[k] -= u[k] * fout[i];
            b[k] += u[k] * fout[i];
        }
    }
}

static void dmm_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    distance_multi_mapping *m = (distance_multi_mapping *)self;
    if (!ready(m))
        return;
    for (size_t i = 0; i < m->ne; i++) {
        double ja[6] = {0}, jb_[6] = {0};
        for (int k = 0; k < 3; k++) {
            ja[k] = -m->u[3 * i + k];
            jb_[k] = m->u[3 * i + k];
        }
        const unsigned *e = m->ends + 4 * i;
        if (e[0] == e[2] && e[3] < e[1]) {
            st_jbuilder_add(jb, i, m->ins[e[2]], e[3], jb_);
            st_jbuilder_add(jb, i, m->ins[e[0]], e[1], ja);
        } else {
            st_jbuilder_add(jb, i, m->ins[e[0]], e[1], ja);
            st_jbuilder_add(jb, i, m->ins[e[2]], e[3], jb_);
        }
    }
}

static void dmm_update_k(st_component *self, const st_mparams *mp, const double *f)
{
    (void)mp;
    distance_multi_mapping *m = (distance_multi_mapping *)self;
    if (!ready(m))
        return;
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->ne; i++) {
        bool on = m->gs == 1 || (m->gs == 2 && fout[i] < 0);
        m->coef[i] = on ? fout[i] * m->invlen[i] : 0.0;
    }
}

/* B of edge i = coef (I - u u^T) (row-major 3x3). */
static void edge_block(const distance_multi_mapping *m, size_t i, double B[9])
{
    const double c = m->coef[i], *u = m->u + 3 * i;
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++)
            B[3 * j + k] = c * ((j == k ? 1.0 : 0.0) - u[j] * u[k]);
}

static void dmm_apply_djt(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor)
{
    (void)mp;
    distance_multi_mapping *m = (distance_multi_mapping *)self;
    if (!ready(m) || !m->gs)
        return;
    const unsigned dw = m->ins[0]->type->deriv_size;
    for (size_t i = 0; i < m->ne; i++) {
        if (m->coef[i] == 0)
            continue;
        const unsigned *e = m->ends + 4 * i;
        const size_t oa = (size_t)dw * e[1], ob = (size_t)dw * e[3];
        const double *dxa = st_slice(dx, m->ins[e[0]]) + oa, *dxb = st_slice(dx, m->ins[e[2]]) + ob;
        double *dfa = st_slice(df, m->ins[e[0]]) + oa, *dfb = st_slice(df, m->ins[e[2]]) + ob;
        double B[9], d[3], o[3];
        edge_block(m, i, B);
        for (int k = 0; k < 3; k++)
            d[k] = dxb[k] - dxa[k];
        for (int j = 0; j < 3; j++)
            o[j] = kfactor * (B[3 * j] * d[0] + B[3 * j + 1] * d[1] + B[3 * j + 2] * d[2]);
        for (int k = 0; k < 3; k++) {
            dfa[k] -= o[k];
            dfb[k] += o[k];
        }
    }
}

static void dmm_get_k(st_component *self, const st_mparams *mp, st_matrix *mat, double kfactor)
{
    (void)mp;
    distance_multi_mapping *m = (distance_multi_mapping *)self;
    if (!ready(m) || !m->gs)
        return;
    const unsigned dw = m->ins[0]->type->deriv_size;
    for (size_t i = 0; i < m->ne; i++) {
        if (m->coef[i] == 0)
            continue;
        double B[9], P[36] = {0}, N[36] = {0};
        edge_block(m, i, B);
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                P[dw * j + k] = kfactor * B[3 * j + k];
                N[dw * j + k] = -kfactor * B[3 * j + k];
            }
        const unsigned *e = m->ends + 4 * i;
        const st_mstate *sa = m->ins[e[0]], *sb = m->ins[e[2]];
        st_matrix_add_block(mat, sa, e[1], sa, e[1], P);
        st_matrix_add_block(mat, sa, e[1], sb, e[3], N);
        st_matrix_add_block(mat, sb, e[3], sa, e[1], N);
        st_matrix_add_block(mat, sb, e[3], sb, e[3], P);
    }
}

static size_t dmm_inputs(const st_component *self, st_mstate **out, size_t max)
{
    const distance_multi_mapping *m = (const distance_multi_mapping *)self;
    for (size_t k = 0; k < m->nins && k < max; k++)
        out[k] = m->ins[k];
    return m->nins;
}

static const st_mapping_ops dmm_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = dmm_apply,
    .apply_j = dmm_apply_j,
    .apply_jt = dmm_apply_jt,
    .get_j = dmm_get_j,
    .update_k = dmm_update_k,
    .apply_djt = dmm_apply_djt,
    .get_k = dmm_get_k,
    .flags = map_head_flags,
    .inputs = dmm_inputs,
};

const st_class distance_multi_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "DistanceMultiMapping",
    .category = "Mapping",
    .description = "Mapping point positions from several mechanical states to distances (in "
                   "distance unit)",
    .instance_size = sizeof(distance_multi_mapping),
    .fields = dmm_fields,
    .init = dmm_init,
    .reinit = dmm_init,
    .cleanup = dmm_cleanup,
    .mapping = &dmm_ops,
    .templates = dmm_templates,
};
