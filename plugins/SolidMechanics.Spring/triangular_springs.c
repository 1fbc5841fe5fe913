/* triangular_springs.c - the triangular springs of SOFA
 * (tri_springs.h). For a triangle of rest area A (Heron's formula on the
 * squared rest lengths), cotangents cot_j and, for side j (the edge
 * opposite vertex j, k = j+1, l = j+2):
 *   quadratic:    s_j = L0_j^2 (2 cot_j^2 (lambda+mu) + mu) / (8A),
 *                 g_j = L0_k L0_l (2 cot_k cot_l (lambda+mu) - mu) / (8A)
 *   biquadratic:  s_j = (2 cot_j^2 (lambda+mu) + mu) / (16A),
 *                 g_j = (2 cot_k cot_l (lambda+mu) - mu) / (16A)
 * The edge's stiffness S is the sum of the s_j of its triangles. Forces:
 *   each edge (a, b), d = x_a - x_b: with e = L - L0 + c (v_a - v_b).d / L
 *   (quadratic) or e = L^2 - L0^2 + c (v_a - v_b).d / L^2 (biquadratic),
 *   c the dampingRatio: f_b += S e d / L (quadratic) or S e d, f_a -= it;
 *   with useAngularSprings, each triangle side j adds on (k, l)
 *   F = (x_k - x_l)(e_k g_l + e_l g_k) / L_j (quadratic) or
 *   F = (x_k - x_l)(e_k g_l + e_l g_k) (biquadratic): f_l += F, f_k -= F;
 *   biquadratic and compressible, on a triangle whose area fell below its
 *   rest (J = area / A < 1): f_i -= 3 (lambda+mu) (J-1)^3 (n x dp_i) / 2,
 *   n its unit normal (the last valid one when J < 0.01; turned back when
 *   it flipped by more than 120 degrees, with a warning, said once).
 * The tangent is SOFA's per-side matrices DfDx (df_i += M (dx_i - dx_j),
 * df_j -= M^T (dx_i - dx_j)), taken at the last force; it leaves out the
 * damping. Deviation from SOFA, on purpose: the compressibility term of the
 * tangent is used only with useAngularSprings (SOFA reads a J its force
 * never computed otherwise). SOFA gives no potential energy: none here. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tri_springs.h"

static void ts_free(tri_springs *s)
{
    void **all[] = {(void **)&s->tri,       (void **)&s->tedge,    (void **)&s->edge,
                    (void **)&s->rest,      (void **)&s->stiff,    (void **)&s->cur,
                    (void **)&s->dl,        (void **)&s->gamma,    (void **)&s->tstiff,
                    (void **)&s->dp,        (void **)&s->dfdx,     (void **)&s->rest_area,
                    (void **)&s->area,      (void **)&s->jac,      (void **)&s->normal,
                    (void **)&s->last_normal, (void **)&s->area_vec};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        st_free(*all[i]);
        *all[i] = NULL;
    }
    s->nt = s->ne = 0;
}

void tri_springs_cleanup(st_component *self) { ts_free((tri_springs *)self); }

static double *zeros(size_t n) { return st_calloc(n ? n : 1, sizeof(double)); }

static void sub(double o[3], const double *a, const double *b)
{
    o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}

/* The rest data of the triangles (SOFA's applyEdgeCreation and
 * applyTriangleCreation). */
static st_status ts_rest(tri_springs *s, st_error *err)
{
    const double *x0 = s->ms->rest_position.r;
    const double lm = s->lambda + s->mu, mu = s->mu;
    for (size_t e = 0; e < s->ne; e++) {
        double d[3];
        sub(d, x0 + 3 * s->edge[2 * e], x0 + 3 * s->edge[2 * e + 1]);
        double l2 = st_v3_dot(d, d);
        s->rest[e] = s->biquadratic ? l2 : sqrt(l2);
    }
    for (size_t t = 0; t < s->nt; t++) {
        const unsigned *tv = s->tri + 3 * t, *te = s->tedge + 3 * t;
        double sq[3], len[3], area = 0, cot[3];
        for (int j = 0; j < 3; j++) {
            if (s->biquadratic) {
                sq[j] = s->rest[te[j]];
            } else {
                len[j] = s->rest[te[j]];
                sq[j] = len[j] * len[j];
            }
        }
        for (int j = 0; j < 3; j++)
            area += sq[j] * (sq[(j + 1) % 3] + sq[(j + 2) % 3] - sq[j]);
        area = sqrt(area) / 4;
        if (!(area > 0))
            return st_component_error(&s->base, "topology", err, ST_ESCENE,
                                      "triangle %zu (%u %u %u) has no rest area: its springs "
                                      "would divide by 0",
                                      t, tv[0], tv[1], tv[2]);
        for (int j = 0; j < 3; j++)
            cot[j] = (sq[(j + 1) % 3] + sq[(j + 2) % 3] - sq[j]) / (4 * area);
        for (int j = 0; j < 3; j++) {
            int k = (j + 1) % 3, l = (j + 2) % 3;
            double g = 2 * cot[k] * cot[l] * lm - mu, st = 2 * cot[j] * cot[j] * lm + mu;
            if (s->biquadratic) {
                s->gamma[3 * t + j] = g / (16 * area);
                s->tstiff[3 * t + j] = st / (16 * area);
            } else {
                s->gamma[3 * t + j] = len[k] * len[l] * g / (8 * area);
                s->tstiff[3 * t + j] = len[j] * len[j] * st / (8 * area);
            }
            s->stiff[te[j]] += s->tstiff[3 * t + j];
        }
        if (s->biquadratic) {
            double a[3], b[3], n[3];
            sub(a, x0 + 3 * tv[1], x0 + 3 * tv[0]);
            sub(b, x0 + 3 * tv[2], x0 + 3 * tv[0]);
            st_v3_cross(n, a, b);
            s->rest_area[t] = area;
            s->jac[t] = 1.0;
            for (int q = 0; q < 3; q++)
                s->normal[3 * t + q] = s->last_normal[3 * t + q] = n[q] / (2 * area);
        }
    }
    return ST_OK;
}

st_status tri_springs_init(tri_springs *s, bool biquadratic, st_error *err)
{
    st_component *self = &s->base;
    self->state = ST_CSTATE_INVALID;
    ts_free(s);
    s->biquadratic = biquadratic;
    double nu = s->poisson, e = s->young;
    s->lambda = e * nu / (1 - nu * nu);
    s->mu = e * (1 - nu) / (1 - nu * nu);
    const st_array *tris = NULL;
    elem_edges ee;
    ST_TRY(bending_elements(self, &s->topology, &s->ms, ST_T_TRIANGLES, 3, &tris, &ee, err));
    s->npoints = s->ms->n;
    if (s->initial_points.n == 0 && s->ms->rest_position.n) {
        ST_TRY(st_array_resize(&s->initial_points, ST_T_VEC3S, s->ms->rest_position.n, err));
        memcpy(s->initial_points.r, s->ms->rest_position.r,
               3 * s->ms->rest_position.n * sizeof(double));
    }
    if (!tris) {
        st_component_warn(self, "object must have a Triangular Set Topology: no triangle in '%s', "
                                "no force",
                          s->topology->name);
        self->state = ST_CSTATE_VALID;
        return bending_follow(self, s->topology, err);
    }
    s->nt = tris->n;
    s->ne = ee.n_edges;
    size_t nt = s->nt, ne = s->ne;
    s->tri = st_malloc(3 * nt * sizeof *s->tri);
    s->tedge = st_malloc(3 * nt * sizeof *s->tedge);
    s->edge = st_calloc(2 * ne + 1, sizeof *s->edge);
    s->rest = zeros(ne), s->stiff = zeros(ne), s->cur = zeros(ne), s->dl = zeros(ne);
    s->gamma = zeros(3 * nt), s->tstiff = zeros(3 * nt), s->dp = zeros(9 * nt);
    s->dfdx = zeros(27 * nt);
    if (biquadratic) {
        s->rest_area = zeros(nt), s->area = zeros(nt), s->jac = zeros(nt);
        s->normal = zeros(3 * nt), s->last_normal = zeros(3 * nt), s->area_vec = zeros(9 * nt);
    }
    bool ok = s->tri && s->tedge && s->edge && s->rest && s->stiff && s->cur && s->dl &&
              s->gamma && s->tstiff && s->dp && s->dfdx &&
              (!biquadratic || (s->rest_area && s->area && s->jac && s->normal &&
                                s->last_normal && s->area_vec));
    if (!ok) {
        elem_edges_free(&ee);
        ts_free(s);
        return st_error_set(err, ST_ENOMEM, "out of memory initialising %s", self->cls->name);
    }
    memcpy(s->tri, tris->u, 3 * nt * sizeof *s->tri);
    memcpy(s->tedge, ee.side, 3 * nt * sizeof *s->tedge);
    /* each edge's ends: those of the first side that names it */
    unsigned char *seen = st_calloc(ne + 1, 1);
    if (!seen) {
        elem_edges_free(&ee);
        ts_free(s);
        return st_error_set(err, ST_ENOMEM, "out of memory initialising %s", self->cls->name);
    }
    for (size_t t = 0; t < nt; t++)
        for (int j = 0; j < 3; j++) {
            unsigned ed = s->tedge[3 * t + j];
            if (seen[ed])
                continue;
            seen[ed] = 1;
            s->edge[2 * ed] = s->tri[3 * t + (j + 1) % 3];
            s->edge[2 * ed + 1] = s->tri[3 * t + (j + 2) % 3];
        }
    st_free(seen);
    elem_edges_free(&ee);
    st_status st = ts_rest(s, err);
    if (st != ST_OK) {
        ts_free(s);
        return st;
    }
    s->dirty = true;
    s->flipped_said = false;
    self->state = ST_CSTATE_VALID;
    return bending_follow(self, s->topology, err);
}

static bool ts_ready(const tri_springs *s)
{
    return s->base.state == ST_CSTATE_VALID && s->nt && s->ms->n == s->npoints;
}

/* The compressibility force of triangle t (biquadratic), SOFA's. */
static void ts_compress(tri_springs *s, size_t t, double *f, size_t *nflipped, size_t *first)
{
    const unsigned *tv = s->tri + 3 * t;
    double *n = s->normal + 3 * t, *last = s->last_normal + 3 * t, *dp = s->dp + 9 * t;
    st_v3_cross(n, dp + 6, dp + 3);
    for (int q = 0; q < 3; q++)
        n[q] = -n[q];
    s->area[t] = st_v3_norm(n) / 2;
    s->jac[t] = s->area[t] / s->rest_area[t];
    if (!(s->jac[t] < 1))
        return;
    double jj = s->jac[t] - 1;
    if (s->jac[t] < 1e-2) {
        memcpy(n, last, 3 * sizeof *n);
    } else {
        for (int q = 0; q < 3; q++)
            n[q] /= 2 * s->area[t];
        if (st_v3_dot(n, last) > -0.5) {
            memcpy(last, n, 3 * sizeof *n);
        } else {
            if ((*nflipped)++ == 0)
                *first = t;
            for (int q = 0; q < 3; q++)
                n[q] = -n[q];
        }
    }
    double val = 3 * (s->lambda + s->mu) * jj * jj * jj;
    for (int j = 0; j < 3; j++) {
        double *av = s->area_vec + 9 * t + 3 * j;
        st_v3_cross(av, n, dp + 3 * j);
        for (int q = 0; q < 3; q++) {
            av[q] /= 2;
            f[3 * tv[j] + q] -= av[q] * val;
        }
    }
}

static void ts_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp;
    tri_springs *s = (tri_springs *)self;
    if (!ts_ready(s))
        return;
    double *fs = st_slice(f, s->ms);
    const double *xs = st_slice_x(x, s->ms), *vs = st_slice(v, s->ms);
    const double c = s->damping_ratio;
    for (size_t e = 0; e < s->ne; e++) {
        unsigned a = s->edge[2 * e], b = s->edge[2 * e + 1];
        double d[3], dv[3];
        sub(d, xs + 3 * a, xs + 3 * b);
        sub(dv, vs + 3 * a, vs + 3 * b);
        double l2 = st_v3_dot(d, d), val;
        if (s->biquadratic) {
            s->cur[e] = l2;
            s->dl[e] = l2 - s->rest[e] + c * st_v3_dot(dv, d) / l2;
            val = s->stiff[e] * s->dl[e];
        } else {
            double l = sqrt(l2);
            s->cur[e] = l;
            s->dl[e] = l - s->rest[e] + c * st_v3_dot(dv, d) / l;
            val = s->stiff[e] * s->dl[e] / l;
        }
        for (int q = 0; q < 3; q++) {
            fs[3 * b + q] += d[q] * val;
            fs[3 * a + q] -= d[q] * val;
        }
    }
    for (size_t t = 0; t < s->nt; t++) {
        const unsigned *tv = s->tri + 3 * t;
        for (int j = 0; j < 3; j++)
            sub(s->dp + 9 * t + 3 * j, xs + 3 * tv[(j + 2) % 3], xs + 3 * tv[(j + 1) % 3]);
    }
    size_t nflipped = 0, first = 0;
    if (s->angular)
        for (size_t t = 0; t < s->nt; t++) {
            const unsigned *tv = s->tri + 3 * t, *te = s->tedge + 3 * t;
            const double *g = s->gamma + 3 * t;
            for (int j = 0; j < 3; j++) {
                int k = (j + 1) % 3, l = (j + 2) % 3;
                /* x_k - x_l = -dp[j] */
                double w = s->dl[te[k]] * g[l] + s->dl[te[l]] * g[k];
                if (!s->biquadratic)
                    w /= s->cur[te[j]];
                const double *d = s->dp + 9 * t + 3 * j;
                for (int q = 0; q < 3; q++) {
                    double F = -d[q] * w;
                    fs[3 * tv[l] + q] += F;
                    fs[3 * tv[k] + q] -= F;
                }
            }
            if (s->biquadratic && s->compressible)
                ts_compress(s, t, fs, &nflipped, &first);
        }
    if (nflipped && !s->flipped_said) {
        s->flipped_said = true;
        st_component_warn(self, "%zu triangles have flipped (the first: %zu); their normal is "
                                "turned back (said once)",
                          nflipped, first);
    }
    s->dirty = true;
}

/* SOFA's DfDx of each triangle side, from the last force. */
static void ts_tangent(tri_springs *s)
{
    const double areastiff = 3 * (s->lambda + s->mu);
    for (size_t t = 0; t < s->nt; t++) {
        const unsigned *te = s->tedge + 3 * t;
        const double *g = s->gamma + 3 * t, *st = s->tstiff + 3 * t, *dp = s->dp + 9 * t;
        for (int k = 0; k < 3; k++) {
            int i = (k + 1) % 3, j = (k + 2) % 3;
            double *m = s->dfdx + 27 * t + 9 * k, dpk[3], dpj[3], dpi[3];
            for (int q = 0; q < 3; q++) {
                dpk[q] = -dp[3 * k + q];
                dpj[q] = dp[3 * j + q];
                dpi[q] = -dp[3 * i + q];
            }
            double lk = s->cur[te[k]];
            double val1, val2, valk = 0, vali = 0, valj = 0;
            if (!s->angular) {
                val1 = -st[k] * s->dl[te[k]];
                if (s->biquadratic) {
                    val2 = -2 * st[k];
                } else {
                    val1 /= lk;
                    val2 = -st[k] * s->rest[te[k]] / (lk * lk * lk);
                }
            } else {
                val1 = -(st[k] * s->dl[te[k]] + g[i] * s->dl[te[j]] + g[j] * s->dl[te[i]]);
                if (s->biquadratic) {
                    val2 = -2 * st[k];
                    valk = 2 * g[k], vali = 2 * g[i], valj = 2 * g[j];
                } else {
                    double li = s->cur[te[i]], lj = s->cur[te[j]];
                    val2 = -val1 - st[k] * s->rest[te[k]];
                    val1 /= lk;
                    val2 /= lk * lk * lk;
                    valk = g[k] / (lj * li);
                    vali = g[i] / (lj * lk);
                    valj = g[j] / (lk * li);
                }
            }
            for (int u = 0; u < 3; u++) {
                for (int w = 0; w < 3; w++)
                    m[3 * u + w] = dpk[u] * dpk[w] * val2 + dpj[u] * dpi[w] * valk -
                                   dpj[u] * dpk[w] * vali + dpk[u] * dpi[w] * valj;
                m[3 * u + u] += val1;
            }
        }
        if (!(s->biquadratic && s->compressible && s->angular && s->jac[t] < 1.0))
            continue;
        double jj = s->jac[t] - 1, h = -jj;
        double val2 = 3 * areastiff * jj * jj / s->rest_area[t];
        double val1 = areastiff * jj * jj * jj / 2;
        const double *n = s->normal + 3 * t;
        double anti[3] = {-n[0] * val1, -n[1] * val1, -n[2] * val1}, m1[9];
        double nn = val1 / (2 * s->area[t]);
        for (int u = 0; u < 3; u++)
            for (int w = 0; w < 3; w++)
                m1[3 * u + w] = n[u] * n[w] * nn;
        double l2[3] = {s->cur[te[0]], s->cur[te[1]], s->cur[te[2]]};
        double total = l2[0] + l2[1] + l2[2];
        for (int k = 0; k < 3; k++) {
            double *m = s->dfdx + 27 * t + 9 * k, wk = total - 2 * l2[k];
            m[1] += anti[2], m[2] -= anti[1], m[3] -= anti[2];
            m[5] += anti[0], m[6] += anti[1], m[7] -= anti[0];
            const double *a = s->area_vec + 9 * t + 3 * ((k + 1) % 3);
            const double *b = s->area_vec + 9 * t + 3 * ((k + 2) % 3);
            double ab = st_v3_dot(a, b);
            for (int u = 0; u < 3; u++)
                for (int w = 0; w < 3; w++) {
                    m[3 * u + w] += (1 - h) * a[u] * b[w] * val2 + m1[3 * u + w] * wk;
                    if (u == w)
                        m[3 * u + w] += h * val2 * ab;
                }
        }
    }
    s->dirty = false;
}

static void ts_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    tri_springs *s = (tri_springs *)self;
    if (!ts_ready(s))
        return;
    if (s->dirty)
        ts_tangent(s);
    double *fs = st_slice(df, s->ms);
    const double *ds = st_slice(dx, s->ms);
    for (size_t t = 0; t < s->nt; t++) {
        const unsigned *tv = s->tri + 3 * t;
        for (int k = 0; k < 3; k++) {
            unsigned i = tv[(k + 1) % 3], j = tv[(k + 2) % 3];
            const double *m = s->dfdx + 27 * t + 9 * k;
            double d[3];
            sub(d, ds + 3 * i, ds + 3 * j);
            for (int u = 0; u < 3; u++) {
                fs[3 * i + u] += (m[3 * u] * d[0] + m[3 * u + 1] * d[1] + m[3 * u + 2] * d[2]) *
                                 kfactor;
                fs[3 * j + u] -= (m[u] * d[0] + m[3 + u] * d[1] + m[6 + u] * d[2]) * kfactor;
            }
        }
    }
}

static void ts_add_k(st_component *self, const st_mparams *mp, st_matrix *mat, double kfactor)
{
    (void)mp;
    tri_springs *s = (tri_springs *)self;
    if (!ts_ready(s))
        return;
    if (s->dirty)
        ts_tangent(s);
    for (size_t t = 0; t < s->nt; t++) {
        const unsigned *tv = s->tri + 3 * t;
        for (int k = 0; k < 3; k++) {
            unsigned i = tv[(k + 1) % 3], j = tv[(k + 2) % 3];
            const double *m = s->dfdx + 27 * t + 9 * k;
            double ii[9], ij[9], ji[9], jj[9];
            for (int u = 0; u < 3; u++)
                for (int w = 0; w < 3; w++) {
                    double a = m[3 * u + w] * kfactor, at = m[3 * w + u] * kfactor;
                    ii[3 * u + w] = a;
                    ij[3 * u + w] = -a;
                    ji[3 * u + w] = -at;
                    jj[3 * u + w] = at;
                }
            st_matrix_add_block(mat, s->ms, i, s->ms, i, ii);
            st_matrix_add_block(mat, s->ms, i, s->ms, j, ij);
            st_matrix_add_block(mat, s->ms, j, s->ms, i, ji);
            st_matrix_add_block(mat, s->ms, j, s->ms, j, jj);
        }
    }
}

static double ts_rayleigh(const st_component *self)
{
    return ((const tri_springs *)self)->rayleigh_stiffness;
}

const st_forcefield_ops tri_springs_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = ts_add_force,
    .add_dforce = ts_add_dforce,
    .add_k_to_matrix = ts_add_k,
    .rayleigh_stiffness = ts_rayleigh,
};

/* The last valid normals are state the steps made (biquadratic). */
static st_status ts_transfer(st_component *self, st_checkpoint *ck, st_error *err)
{
    tri_springs *s = (tri_springs *)self;
    /* the triangle count first: their number follows the topology (the
     * springs are built again from it once the topology is restored) */
    uint64_t nt = s->last_normal ? s->nt : 0, have = nt;
    ST_TRY(st_checkpoint_data(ck, &nt, sizeof nt, err));
    if (nt != have)
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "the checkpoint holds the normals of %llu triangles, this "
                                  "scene's topology has %llu: it does not match this scene",
                                  (unsigned long long)nt, (unsigned long long)have);
    if (s->last_normal && s->nt)
        ST_TRY(st_checkpoint_data(ck, s->last_normal, 3 * s->nt * sizeof *s->last_normal, err));
    return st_checkpoint_data(ck, &s->flipped_said, sizeof s->flipped_said, err);
}

const st_checkpoint_ops tri_springs_ck = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = ts_transfer,
};
