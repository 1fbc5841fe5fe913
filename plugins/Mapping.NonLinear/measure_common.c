/* measure_common.c - the mapping of each element of a topology to its
 * measure, for AreaMapping (triangles) and VolumeMapping (tetrahedra), on
 * Vec3d points, to Vec1d.
 *
 * Area of triangle (v0, v1, v2): with N = (v1 - v0) x (v2 - v0), n = |N|,
 * A = n / 2, and for a_i = v_{i+1} - v_{i-1} (indices mod 3)
 *   dA/dv_i = a_i x N / (2 n)
 *   d2A/dv_i dv_j = [ (a_i . a_j) I - a_j a_i^T - s_ij [N]x ] / (2 n)
 *                   - (a_i x N)(a_j x N)^T / (2 n^3)
 * where s_ij = 1 if j = i + 1, -1 if j = i - 1, 0 if i = j, and [N]x is the
 * cross-product matrix. A degenerate triangle (n = 0) gets a zero gradient
 * and Hessian (SOFA divides by zero there).
 *
 * Signed volume of tetrahedron (v0..v3): with e_k = v_k - v0,
 * V = e1 . (e2 x e3) / 6 (negative when inverted); dV/dv_1 = e2 x e3 / 6
 * and cyclically, dV/dv_0 = -(sum of the others); the Hessian in e is
 * d2V/de_i de_j = -eps_ijk [e_k]x / 6 (eps the Levi-Civita symbol) and
 * maps back to v through e = T v.
 *
 * The geometric stiffness K = d(J^T f)/dx = sum over elements of f_e H_e:
 * "Exact" keeps every element, "Stabilized" only those whose child force is
 * negative (as SOFA), "None" none. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "../shared/options.h"
#include "measure_common.h"

static const char *const gs_names[] = {"None", "Exact", "Stabilized", NULL};
static const st_option_field measure_options[] = {{"geometricStiffness", gs_names}, {NULL, NULL}};

static void cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* B += c [w]x (row-major 3x3). */
static void add_skew(double *B, const double *w, double c)
{
    B[1] -= c * w[2];
    B[2] += c * w[1];
    B[3] += c * w[2];
    B[5] -= c * w[0];
    B[6] -= c * w[1];
    B[7] += c * w[0];
}

double measure_value(measure_kind kind, const double *v, double *g)
{
    if (kind == MEASURE_AREA) {
        double e1[3], e2[3], N[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = v[3 + k] - v[k];
            e2[k] = v[6 + k] - v[k];
        }
        cross(e1, e2, N);
        double n = sqrt(dot(N, N));
        if (n <= DBL_EPSILON) {
            memset(g, 0, 9 * sizeof *g);
            return 0.5 * n;
        }
        for (int i = 0; i < 3; i++) {
            const double *p = v + 3 * ((i + 1) % 3), *q = v + 3 * ((i + 2) % 3);
            double a[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
            cross(a, N, g + 3 * i);
            for (int k = 0; k < 3; k++)
                g[3 * i + k] /= 2 * n;
        }
        return 0.5 * n;
    }
    double e[3][3];
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++)
            e[j][k] = v[3 * (j + 1) + k] - v[k];
    for (int j = 0; j < 3; j++) {
        cross(e[(j + 1) % 3], e[(j + 2) % 3], g + 3 * (j + 1));
        for (int k = 0; k < 3; k++)
            g[3 * (j + 1) + k] /= 6;
    }
    for (int k = 0; k < 3; k++)
        g[k] = -(g[3 + k] + g[6 + k] + g[9 + k]);
    return dot(e[0], g + 3);
}

void measure_hessian(measure_kind kind, const double *v, double *H)
{
    if (kind == MEASURE_AREA) {
        memset(H, 0, 81 * sizeof *H);
        double e1[3], e2[3], N[3], a[3][3], aN[3][3];
        for (int k = 0; k < 3; k++) {
            e1[k] = v[3 + k] - v[k];
            e2[k] = v[6 + k] - v[k];
        }
        cross(e1, e2, N);
        double n2 = dot(N, N), n = sqrt(n2);
        if (n <= DBL_EPSILON)
            return;
        for (int i = 0; i < 3; i++) {
            const double *p = v + 3 * ((i + 1) % 3), *q = v + 3 * ((i + 2) % 3);
            for (int k = 0; k < 3; k++)
                a[i][k] = p[k] - q[k];
            cross(a[i], N, aN[i]);
        }
        const double c1 = 1 / (2 * n), c3 = 1 / (2 * n * n2);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double *B = H + 9 * (3 * i + j), aa = dot(a[i], a[j]);
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++)
                        B[3 * r + c] = c1 * ((r == c ? aa : 0.0) - a[j][r] * a[i][c]) -
                                       c3 * aN[i][r] * aN[j][c];
                int s = j == (i + 1) % 3 ? 1 : j == (i + 2) % 3 ? -1 : 0;
                if (s)
                    add_skew(B, N, -s * c1);
            }
        return;
    }
    /* G_ij (i, j in e-space, 3 x 3 blocks), then H = T^T G T. */
    double e[3][3], G[3][3][9];
    memset(G, 0, sizeof G);
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++)
            e[j][k] = v[3 * (j + 1) + k] - v[k];
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3; /* (i, j, k) even: eps = 1 */
        add_skew(G[i][j], e[k], -1.0 / 6);
        add_skew(G[j][i], e[k], 1.0 / 6);
    }
    memset(H, 0, 144 * sizeof *H);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int q = 0; q < 9; q++) {
                double g = G[i][j][q];
                H[9 * (4 * (i + 1) + (j + 1)) + q] += g;
                H[9 * (4 * 0 + (j + 1)) + q] -= g;
                H[9 * (4 * (i + 1) + 0) + q] -= g;
                H[9 * 0 + q] += g;
            }
}

static void measure_free(measure_map *m)
{
    st_free(m->elems);
    st_free(m->pos);
    st_free(m->grad);
    st_free(m->coef);
    m->elems = NULL;
    m->pos = m->grad = m->coef = NULL;
    m->ne = 0;
}

void measure_cleanup(st_component *self)
{
    measure_free((measure_map *)self);
    map_head_release(&((measure_map *)self)->h);
}

/* Measures and gradients at positions xin (Vec3d) into xout. */
static void measure_apply_x(measure_map *m, const double *xin, double *xout)
{
    const unsigned nv = m->nv;
    for (size_t i = 0; i < m->ne; i++) {
        double *p = m->pos + (size_t)3 * nv * i;
        for (unsigned a = 0; a < nv; a++)
            memcpy(p + 3 * a, xin + (size_t)3 * m->elems[(size_t)nv * i + a], 3 * sizeof *p);
        xout[i] = measure_value(m->kind, p, m->grad + (size_t)3 * nv * i);
    }
}

static void measure_apply_v(const measure_map *m, const double *vin, double *vout)
{
    const unsigned nv = m->nv;
    for (size_t i = 0; i < m->ne; i++) {
        const double *g = m->grad + (size_t)3 * nv * i;
        double s = 0.0;
        for (unsigned a = 0; a < nv; a++)
            s += dot(g + 3 * a, vin + (size_t)3 * m->elems[(size_t)nv * i + a]);
        vout[i] = s;
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    measure_apply_x((measure_map *)self, xin, xout);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    measure_apply_v((measure_map *)self, vin, vout);
}

st_status measure_init(st_component *self, measure_kind kind, st_error *err)
{
    measure_map *m = (measure_map *)self;
    self->state = ST_CSTATE_INVALID;
    measure_free(m);
    m->kind = kind;
    m->nv = kind == MEASURE_AREA ? 3 : 4;
    ST_TRY(st_options_check(self, measure_options, err));
    m->gs = strcmp(m->geometric_stiffness, "Exact") == 0        ? 1
            : strcmp(m->geometric_stiffness, "Stabilized") == 0 ? 2
                                                                : 0;
    ST_TRY(map_head_bind(&m->h, NULL, &st_vec1d_type, err));
    st_mstate *in = m->h.in, *out = m->h.out;
    if (in->type != &st_vec3d_type)
        return st_component_error(self, "input", err, ST_ESCENE, "%s maps Vec3d points; '%s' is %s",
                                  self->cls->name, in->base.name, in->type->name);
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
    const st_topology_ops *tops = topo->cls->topology;
    const st_array *elems = tops->elements(topo, kind == MEASURE_AREA ? ST_T_TRIANGLES : ST_T_TETRAS);
    const st_array *other = tops->elements(topo, kind == MEASURE_AREA ? ST_T_QUADS : ST_T_HEXAS);
    if (!elems || elems->n < 1)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component containing %s found at path: %s, nor in "
                                  "current context: %s",
                                  kind == MEASURE_AREA ? "triangles" : "tetrahedron", topo->name,
                                  st_node_name(self->node));
    if (other && other->n > 0)
        return st_component_error(
            self, "topology", err, ST_ESCENE,
            kind == MEASURE_AREA
                ? "Quads are found in the topology '%s', but they are not supported in this "
                  "component. Consider converting them to triangles."
                : "Hexahedra are found in the topology '%s', but they are not supported in this "
                  "component. Consider converting them to tetrahedra.",
            topo->name);
    /* The elements are copied once: a later change of the topology is
     * refused with this mapping's name. */
    ST_TRY(st_topology_use(self, topo, err));
    const size_t ne = elems->n, nin = in->position.n, nv = m->nv;
    for (size_t i = 0; i < nv * ne; i++)
        if (elems->u[i] >= nin)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "element %zu of '%s' uses point %u; the input '%s' has %zu",
                                      i / nv, topo->name, elems->u[i], in->base.name, nin);
    m->elems = st_malloc(nv * ne * sizeof *m->elems);
    m->pos = st_calloc(3 * nv * ne, sizeof *m->pos);
    m->grad = st_calloc(3 * nv * ne, sizeof *m->grad);
    m->coef = st_calloc(ne, sizeof *m->coef);
    if (!m->elems || !m->pos || !m->grad || !m->coef) {
        measure_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu elements)", ne);
    }
    memcpy(m->elems, elems->u, nv * ne * sizeof *m->elems);
    m->ne = ne;
    m->nin = nin;
    if (out->position.n != ne)
        ST_TRY(map_resize_output(out, ne, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static bool ready(const measure_map *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->ne &&
           m->h.in->n == m->nin;
}

static void measure_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    measure_map *m = (measure_map *)self;
    if (ready(m))
        measure_apply_x(m, st_slice_x(x, m->h.in), st_slice_x(x, m->h.out));
}

static void measure_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    measure_map *m = (measure_map *)self;
    if (ready(m))
        measure_apply_v(m, st_slice(v, m->h.in), st_slice(v, m->h.out));
}

static void measure_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    measure_map *m = (measure_map *)self;
    if (!ready(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    const unsigned nv = m->nv;
    for (size_t i = 0; i < m->ne; i++) {
        const double *g = m->grad + (size_t)3 * nv * i;
        for (unsigned a = 0; a < nv; a++) {
            double *fa = fin + (size_t)3 * m->elems[(size_t)nv * i + a];
            for (int k = 0; k < 3; k++)
                fa[k] += g[3 * a + k] * fout[i];
        }
    }
}

static void measure_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    measure_map *m = (measure_map *)self;
    if (!ready(m))
        return;
    const unsigned nv = m->nv;
    for (size_t i = 0; i < m->ne; i++) {
        /* in increasing column order, as SOFA inserts them */
        const unsigned *e = m->elems + (size_t)nv * i;
        unsigned order[4] = {0, 1, 2, 3};
        for (unsigned a = 1; a < nv; a++)
            for (unsigned b = a; b > 0 && e[order[b - 1]] > e[order[b]]; b--) {
                unsigned t = order[b];
                order[b] = order[b - 1];
                order[b - 1] = t;
            }
        for (unsigned a = 0; a < nv; a++)
            st_jbuilder_add(jb, i, m->h.in, e[order[a]], m->grad + (size_t)3 * (nv * i + order[a]));
    }
}

static void measure_update_k(st_component *self, const st_mparams *mp, const double *f)
{
    (void)mp;
    measure_map *m = (measure_map *)self;
    if (!ready(m))
        return;
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->ne; i++) {
        bool on = m->gs == 1 || (m->gs == 2 && fout[i] < 0);
        m->coef[i] = on ? fout[i] : 0.0;
    }
}

static void measure_apply_djt(st_component *self, const st_mparams *mp, double *df,
                              const double *dx, double kfactor)
{
    (void)mp;
    measure_map *m = (measure_map *)self;
    if (!ready(m) || !m->gs)
        return;
    double *dfi = st_slice(df, m->h.in);
    const double *dxi = st_slice(dx, m->h.in);
    const unsigned nv = m->nv;
    double H[144];
    for (size_t i = 0; i < m->ne; i++) {
        if (m->coef[i] == 0)
            continue;
        measure_hessian(m->kind, m->pos + (size_t)3 * nv * i, H);
        const unsigned *e = m->elems + (size_t)nv * i;
        const double c = kfactor * m->coef[i];
        for (unsigned a = 0; a < nv; a++)
            for (unsigned b = 0; b < nv; b++) {
                const double *B = H + 9 * (nv * a + b), *d = dxi + (size_t)3 * e[b];
                double *o = dfi + (size_t)3 * e[a];
                for (int r = 0; r < 3; r++)
                    o[r] += c * (B[3 * r] * d[0] + B[3 * r + 1] * d[1] + B[3 * r + 2] * d[2]);
            }
    }
}

static void measure_get_k(st_component *self, const st_mparams *mp, st_matrix *mat,
                          double kfactor)
{
    (void)mp;
    measure_map *m = (measure_map *)self;
    if (!ready(m) || !m->gs)
        return;
    const unsigned nv = m->nv;
    double H[144], B[9];
    for (size_t i = 0; i < m->ne; i++) {
        if (m->coef[i] == 0)
            continue;
        measure_hessian(m->kind, m->pos + (size_t)3 * nv * i, H);
        const unsigned *e = m->elems + (size_t)nv * i;
        const double c = kfactor * m->coef[i];
        for (unsigned a = 0; a < nv; a++)
            for (unsigned b = 0; b < nv; b++) {
                for (int q = 0; q < 9; q++)
                    B[q] = c * H[9 * (nv * a + b) + q];
                st_matrix_add_block(mat, m->h.in, e[a], m->h.in, e[b], B);
            }
    }
}

const st_mapping_ops measure_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = measure_apply,
    .apply_j = measure_apply_j,
    .apply_jt = measure_apply_jt,
    .get_j = measure_get_j,
    .update_k = measure_update_k,
    .apply_djt = measure_apply_djt,
    .get_k = measure_get_k,
    .flags = map_head_flags,
};
