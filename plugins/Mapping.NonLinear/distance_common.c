/* distance_common.c - the mapping of point pairs (the edges of a topology)
 * to a scalar each, for DistanceMapping and SquareDistanceMapping.
 *
 * For edge i = (a, b) with r = x[b] - x[a] (positions only: a Rigid3d
 * input's orientation plays no part), d = |r|:
 *   DistanceMapping        y_i = d - L_i   J_i = (-u, u), u = r / d
 *   SquareDistanceMapping  y_i = d^2       J_i = (-2r, 2r)
 * (for d <= DBL_EPSILON, DistanceMapping takes u = (1, 1, 1) / sqrt 3 and
 * 1/d = 0, as SOFA). The geometric stiffness K = d(J^T f)/dx for a child
 * force f_i, on the blocks (a,a) and (b,b) with +B and (a,b), (b,a) with
 * -B, is B = f_i / d (I - u u^T) and B = 2 f_i I respectively; "Exact" keeps
 * every edge, "Stabilized" only those pulled (f_i < 0), "None" none. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "../shared/options.h"
#include "distance_common.h"

const char *const dist_templates[] = {"Vec3d", "Rigid3d", NULL};

static const char *const gs_names[] = {"None", "Exact", "Stabilized", NULL};
static const st_option_field dist_options[] = {{"geometricStiffness", gs_names}, {NULL, NULL}};

static void dist_free(dist_map *m)
{
    st_free(m->edges);
    st_free(m->g);
    st_free(m->invlen);
    st_free(m->coef);
    m->edges = NULL;
    m->g = m->invlen = m->coef = NULL;
    m->ne = 0;
}

void dist_cleanup(st_component *self) { dist_free((dist_map *)self); }

/* The outputs and Jacobian rows at positions xin (coord_size cw per input
 * point) into xout. */
static void dist_apply_x(dist_map *m, const double *xin, unsigned cw, double *xout)
{
    for (size_t i = 0; i < m->ne; i++) {
        const double *p = xin + (size_t)cw * m->edges[2 * i];
        const double *q = xin + (size_t)cw * m->edges[2 * i + 1];
        double r[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
        double *g = m->g + 3 * i;
        if (m->kind == DIST_SQUARE) {
            xout[i] = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
            for (int k = 0; k < 3; k++)
                g[k] = 2 * r[k];
            continue;
        }
        double d = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        xout[i] = d - m->rest_lengths.r[i];
        if (d > DBL_EPSILON) {
            m->invlen[i] = 1 / d;
            for (int k = 0; k < 3; k++)
                g[k] = r[k] * m->invlen[i];
        } else {
            m->invlen[i] = 0;
            for (int k = 0; k < 3; k++)
                g[k] = 1 / sqrt(3.0);
        }
    }
}

/* J v, each row summed as a sparse row-times-vector product: its six
 * entries (-g on the lower-numbered point first when it is a, as SOFA
 * inserts them in increasing column order) accumulated one by one from 0.
 * The order is SOFA's, so that the rounding is too: an ill-conditioned
 * solve (a CG stopped on its denominator threshold) amplifies a last-bit
 * difference of J v into a visible one within a hundred steps. */
static void dist_apply_v(const dist_map *m, const double *vin, unsigned dw, double *vout)
{
    for (size_t i = 0; i < m->ne; i++) {
        unsigned ea = m->edges[2 * i], eb = m->edges[2 * i + 1];
        const double *a = vin + (size_t)dw * ea;
        const double *b = vin + (size_t)dw * eb;
        const double *g = m->g + 3 * i;
        double s = 0.0;
        if (eb < ea) {
            for (int k = 0; k < 3; k++)
                s += g[k] * b[k];
            for (int k = 0; k < 3; k++)
                s += -g[k] * a[k];
        } else {
            for (int k = 0; k < 3; k++)
                s += -g[k] * a[k];
            for (int k = 0; k < 3; k++)
                s += g[k] * b[k];
        }
        vout[i] = s;
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    dist_map *m = (dist_map *)self;
    dist_apply_x(m, xin, m->h.in->type->coord_size, xout);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    dist_map *m = (dist_map *)self;
    dist_apply_v(m, vin, m->h.in->type->deriv_size, vout);
}

st_status dist_init(st_component *self, dist_kind kind, st_error *err)
{
    dist_map *m = (dist_map *)self;
    self->state = ST_CSTATE_INVALID;
    dist_free(m);
    m->kind = kind;
    ST_TRY(st_options_check(self, dist_options, err));
    m->gs = strcmp(m->geometric_stiffness, "Exact") == 0        ? 1
            : strcmp(m->geometric_stiffness, "Stabilized") == 0 ? 2
                                                                : 0;
    ST_TRY(map_head_bind(&m->h, NULL, &st_vec1d_type, err));
    st_mstate *in = m->h.in, *out = m->h.out;
    if (in->type != &st_vec3d_type && in->type != &st_rigid3d_type)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "%s maps Vec3d or Rigid3d points; '%s' is %s", self->cls->name,
                                  in->base.name, in->type->name);
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
                                  "No topology component containing edges found at path: %s, "
                                  "nor in current context: %s",
                                  topo->name, st_node_name(self->node));
    /* The edges are copied once: a later change of the topology is refused
     * with this mapping's name (SOFA would read the changed edges into an
     * output of the old size). */
    ST_TRY(st_topology_use(self, topo, err));
    size_t ne = edges->n, nin = in->position.n;
    for (size_t i = 0; i < 2 * ne; i++)
        if (edges->u[i] >= nin)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "edge %zu of '%s' uses point %u; the input '%s' has %zu",
                                      i / 2, topo->name, edges->u[i], in->base.name, nin);
    m->edges = st_malloc(2 * ne * sizeof *m->edges);
    m->g = st_calloc(3 * ne, sizeof *m->g);
    m->invlen = st_calloc(ne, sizeof *m->invlen);
    m->coef = st_calloc(ne, sizeof *m->coef);
    if (!m->edges || !m->g || !m->invlen || !m->coef) {
        dist_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu edges)", ne);
    }
    memcpy(m->edges, edges->u, 2 * ne * sizeof *m->edges);
    m->ne = ne;
    m->nin = nin;
    if (kind == DIST_LENGTH && m->rest_lengths.n != ne) {
        /* SOFA: resized with zeros, then, unless computeDistance, every rest
         * length is the current length. */
        size_t old = m->rest_lengths.n;
        ST_TRY(st_array_resize(&m->rest_lengths, ST_T_REALS, ne, err));
        for (size_t i = old; i < ne; i++)
            m->rest_lengths.r[i] = 0;
        if (!m->compute_distance) {
            unsigned cw = in->type->coord_size;
            for (size_t i = 0; i < ne; i++) {
                const double *p = in->position.r + (size_t)cw * m->edges[2 * i];
                const double *q = in->position.r + (size_t)cw * m->edges[2 * i + 1];
                double r[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
                m->rest_lengths.r[i] = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
            }
        }
        st_component_touch(self, st_component_field(self, "restLengths"));
    }
    if (out->position.n != ne)
        ST_TRY(map_resize_output(out, ne, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static bool ready(const dist_map *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->ne &&
           m->h.in->n == m->nin;
}

static void dist_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    dist_map *m = (dist_map *)self;
    if (ready(m))
        dist_apply_x(m, st_slice_x(x, m->h.in), m->h.in->type->coord_size,
                     st_slice_x(x, m->h.out));
}

static void dist_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    dist_map *m = (dist_map *)self;
    if (ready(m))
        dist_apply_v(m, st_slice(v, m->h.in), m->h.in->type->deriv_size, st_slice(v, m->h.out));
}

static void dist_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    dist_map *m = (dist_map *)self;
    if (!ready(m))
        return;
    unsigned dw = m->h.in->type->deriv_size;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->ne; i++) {
        double *a = fin + (size_t)dw * m->edges[2 * i];
        double *b = fin + (size_t)dw * m->edges[2 * i + 1];
        const double *g = m->g + 3 * i;
        for (int k = 0; k < 3; k++) {
            a[k] -= g[k] * fout[i];
            b[k] += g[k] * fout[i];
        }
    }
}

static void dist_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    dist_map *m = (dist_map *)self;
    if (!ready(m))
        return;
    /* 1 x deriv_size blocks: the position part (a Rigid3d's rotation: 0) */
    for (size_t i = 0; i < m->ne; i++) {
        unsigned a = m->edges[2 * i], b = m->edges[2 * i + 1];
        const double *g = m->g + 3 * i;
        double ja[6] = {0}, jbk[6] = {0};
        for (int k = 0; k < 3; k++) {
            ja[k] = -g[k];
            jbk[k] = g[k];
        }
        /* in increasing column order, as SOFA inserts them */
        if (b < a) {
            st_jbuilder_add(jb, i, m->h.in, b, jbk);
            st_jbuilder_add(jb, i, m->h.in, a, ja);
        } else {
            st_jbuilder_add(jb, i, m->h.in, a, ja);
            st_jbuilder_add(jb, i, m->h.in, b, jbk);
        }
    }
}

static void dist_update_k(st_component *self, const st_mparams *mp, const double *f)
{
    (void)mp;
    dist_map *m = (dist_map *)self;
    if (!ready(m))
        return;
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->ne; i++) {
        bool on = m->gs == 1 || (m->gs == 2 && fout[i] < 0);
        if (!on)
            m->coef[i] = 0;
        else
            m->coef[i] = m->kind == DIST_SQUARE ? 2 * fout[i] : fout[i] * m->invlen[i];
    }
}

/* B of edge i (row-major 3x3). */
static void edge_block(const dist_map *m, size_t i, double B[9])
{
    const double c = m->coef[i], *u = m->g + 3 * i;
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++)
            B[3 * j + k] = m->kind == DIST_SQUARE ? (j == k ? c : 0.0)
                                                  : c * ((j == k ? 1.0 : 0.0) - u[j] * u[k]);
}

/* df += kfactor K dx, edge by edge, in SOFA's matrix-free arithmetic (the
 * rounding matters for the reason given at dist_apply_v):
 *   SquareDistanceMapping  t = (2 f) kfactor, o = t (dx_a - dx_b),
 *                          df_a += o, df_b -= o;
 *   DistanceMapping        s = (f / d) kfactor, b = (I - u u^T) s,
 *                          o = b (dx_b - dx_a), df_a -= o, df_b += o. */
static void dist_apply_djt(st_component *self, const st_mparams *mp, double *df, const double *dx,
                           double kfactor)
{
    (void)mp;
    dist_map *m = (dist_map *)self;
    if (!ready(m) || !m->gs)
        return;
    unsigned dw = m->h.in->type->deriv_size;
    double *dfi = st_slice(df, m->h.in);
    const double *dxi = st_slice(dx, m->h.in);
    for (size_t i = 0; i < m->ne; i++) {
        if (m->coef[i] == 0)
            continue;
        size_t a = (size_t)dw * m->edges[2 * i], b = (size_t)dw * m->edges[2 * i + 1];
        const double t = m->coef[i] * kfactor;
        if (m->kind == DIST_SQUARE) {
            for (int k = 0; k < 3; k++) {
                double o = (dxi[a + k] - dxi[b + k]) * t;
                dfi[a + k] += o;
                dfi[b + k] -= o;
            }
            continue;
        }
        const double *u = m->g + 3 * i;
        double d[3], o[3];
        for (int k = 0; k < 3; k++)
            d[k] = dxi[b + k] - dxi[a + k];
        for (int j = 0; j < 3; j++) {
            o[j] = 0.0;
            for (int k = 0; k < 3; k++)
                o[j] += ((j == k ? 1.0 : 0.0) - u[j] * u[k]) * t * d[k];
        }
        for (int k = 0; k < 3; k++) {
            dfi[a + k] -= o[k];
            dfi[b + k] += o[k];
        }
    }
}

static void dist_get_k(st_component *self, const st_mparams *mp, st_matrix *mat, double kfactor)
{
    (void)mp;
    dist_map *m = (dist_map *)self;
    if (!ready(m) || !m->gs)
        return;
    unsigned dw = m->h.in->type->deriv_size;
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
        unsigned a = m->edges[2 * i], b = m->edges[2 * i + 1];
        st_matrix_add_block(mat, m->h.in, a, m->h.in, a, P);
        st_matrix_add_block(mat, m->h.in, a, m->h.in, b, N);
        st_matrix_add_block(mat, m->h.in, b, m->h.in, a, N);
        st_matrix_add_block(mat, m->h.in, b, m->h.in, b, P);
    }
}

const st_mapping_ops dist_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = dist_apply,
    .apply_j = dist_apply_j,
    .apply_jt = dist_apply_jt,
    .get_j = dist_get_j,
    .update_k = dist_update_k,
    .apply_djt = dist_apply_djt,
    .get_k = dist_get_k,
    .flags = map_head_flags,
};
