/* beam_fem_force_field.c - BeamFEMForceField: SOFA's 6-dof beam elements
 * between Rigid3d frames (the edges of the topology), linear elastic in a
 * corotational frame.
 *
 * Per beam a -> b (rest length L, circular section of radius r, hollow to
 * radius rInner): A = pi (r^2 - rInner^2), Iy = Iz = pi (r^4 - rInner^4) / 4,
 * J = Iy + Iz, G = E / (2 (1 + nu)); SOFA's shear areas are 0, so the
 * Timoshenko factors phi = 24 (1 + nu) I / (As L^2) vanish and the 12x12
 * local stiffness k (dofs u_a, theta_a, u_b, theta_b, x along the beam) is
 * the Euler-Bernoulli one (EA/L, 12EI/L^3, 6EI/L^2, 4EI/L, 2EI/L, GJ/L); the
 * phi terms are kept so that non-zero shear areas would give Timoshenko's.
 * Large displacements (SOFA's accumulateForceLarge): with R_a the frame of
 * node a (its orientation) and R0_a its rest frame,
 *   u     = R_a^T (x_b - x_a) - R0_a^T (x0_b - x0_a)
 *   theta = rotation vector of dQ0^-1 dQ, dQ = q_a^-1 q_b, dQ0 the same at rest
 *   F = k (0, 0, u, theta), f_a -= R_a F_a, f_b -= R_a F_b (per 3-vector).
 * add_dforce and the matrix use K = R_a k R_a^T blocks of the last
 * add_force, without the derivative of R_a nor of the rotation vector
 * (SOFA's applyStiffnessLarge): exact at rest and at any rigid motion of
 * the rest state when the rest frames have x along their beam, approximate
 * elsewhere. Potential energy: SOFA has none (warns, 0); settee returns 0. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "beam_fem.h"
#include "../shared/beam_stiffness.h"
#include "../shared/euler_quat.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- Quaternions (x y z w) ---- */

/* SOFA's Quat::toMatrix: the rotation matrix of a unit q (row-major). */
static void quat_matrix(double R[9], const double *q)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - z * w), R[2] = 2 * (z * x + y * w);
    R[3] = 2 * (x * y + z * w), R[4] = 1 - 2 * (z * z + x * x), R[5] = 2 * (y * z - x * w);
    R[6] = 2 * (z * x - y * w), R[7] = 2 * (y * z + x * w), R[8] = 1 - 2 * (y * y + x * x);
}

/* SOFA's qDiff: b^-1 a, a negated first when a . b < 0. */
static void quat_diff(double r[4], const double *a, const double *b)
{
    double an[4] = {a[0], a[1], a[2], a[3]}, bi[4];
    if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0)
        for (int k = 0; k < 4; k++)
            an[k] = -an[k];
    double n = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
    double s = n != 0.0 ? 1.0 / n : 0.0;
    bi[0] = -b[0] * s, bi[1] = -b[1] * s, bi[2] = -b[2] * s, bi[3] = b[3] * s;
    st_quat_mul(r, bi, an);
}

/* ---- Init ---- */

/* SOFA's BeamInfo::init and computeStiffness. */
static void beam_setup(beam_info *bi, double E, double L, double nu, double r, double ri)
{
    bi->E = E, bi->nu = nu, bi->L = L, bi->r = r, bi->r_inner = ri;
    bi->G = E / (2.0 * (1.0 + nu));
    bi->Iz = M_PI * (r * r * r * r - ri * ri * ri * ri) / 4.0;
    bi->Iy = bi->Iz;
    bi->J = bi->Iz + bi->Iy;
    bi->A = M_PI * (r * r - ri * ri);
    bi->Asy = bi->Asz = 0.0;
    const beam_section_props p = {.E = E, .nu = nu, .L = L, .A = bi->A, .Iy = bi->Iy,
                                  .Iz = bi->Iz, .J = bi->J, .Asy = bi->Asy, .Asz = bi->Asz};
    beam_local_stiffness(bi->k, &p);
}

/* SOFA's initLarge: the frame halfway from q_a to q_b (used by add_dforce
 * and the matrix before the first add_force, which takes q_a). */
static void beam_init_frame(beam_info *bi, const double *x)
{
    double qa[4], qb[4], dq[4], w[3];
    memcpy(qa, x + 7 * bi->a + 3, sizeof qa);
    memcpy(qb, x + 7 * bi->b + 3, sizeof qb);
    st_quat_normalize(qa);
    st_quat_normalize(qb);
    quat_diff(dq, qb, qa);
    st_quat_normalize(dq);
    quat_to_rotation_vector(dq, w);
    double th = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    double q[4];
    if (th > 1e-7) {
        double s = sin(th / 4) / th, h[4] = {w[0] * s, w[1] * s, w[2] * s, cos(th / 4)};
        st_quat_mul(q, qa, h);
        st_quat_normalize(q);
    } else {
        memcpy(q, qa, sizeof q);
    }
    quat_matrix(bi->rot, q);
}

static void beam_free(beam_fem *s)
{
    st_free(s->beam);
    st_free(s->act);
    s->beam = NULL;
    s->act = NULL;
    s->nb = s->nact = 0;
}

static st_status beam_init(st_component *self, st_error *err)
{
    beam_fem *s = (beam_fem *)self;
    beam_free(s);
    self->state = ST_CSTATE_INVALID;
    ST_TRY(fem_bind(self, &s->young_modulus, &s->poisson_ratio, &s->ms, &s->topology, err));
    if (!s->ms->type->rigid)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "BeamFEMForceField acts on Rigid3d states only (the state is %s)",
                                  s->ms->type->name);
    if (!st_component_is_set(self, "radius"))
        st_component_warn(self,
                          "Required data \"radius\" has not been set. Falling back to default "
                          "value: %g",
                          s->radius);
    const st_array *ed = fem_elements(s->topology, ST_T_EDGES);
    if (!ed)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No edge found in the topology %s", s->topology->name);
    size_t np = s->ms->rest_position.n;
    s->nb = ed->n;
    s->beam = st_calloc(s->nb, sizeof *s->beam);
    s->act = st_calloc(s->nb, sizeof *s->act);
    if (!s->beam || !s->act)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu beams)", s->nb);
    ST_TRY(fem_check_indices(self, ed->u, s->nb, 2, np, "edge", err));
    bool partial = s->list_segment.n > 0;
    for (size_t j = 0; j < s->list_segment.n; j++)
        if (s->list_segment.u[j] >= s->nb) {
            st_component_warn(self, "Defined listSegment is not compatible with topology");
            partial = false;
        }
    s->nact = partial ? s->list_segment.n : s->nb;
    for (size_t j = 0; j < s->nact; j++)
        s->act[j] = partial ? s->list_segment.u[j] : (unsigned)j;
    const double *x0 = s->ms->rest_position.r, *x = s->ms->position.r;
    for (size_t i = 0; i < s->nb; i++) {
        beam_info *bi = &s->beam[i];
        bi->a = ed->u[2 * i], bi->b = ed->u[2 * i + 1];
        const double *pa = x0 + 7 * bi->a, *pb = x0 + 7 * bi->b;
        double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
        beam_setup(bi, fem_value_in_element(&s->young_modulus, i, FEM_DEFAULT_YOUNG),
                   sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]),
                   fem_value_in_element(&s->poisson_ratio, i, FEM_DEFAULT_POISSON), s->radius,
                   s->radius_inner);
        beam_init_frame(bi, x);
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void beam_cleanup(st_component *self)
{
    beam_free((beam_fem *)self);
}

/* ---- Forces ---- */

/* y = R^T v */
static void mul_t(double y[3], const double R[9], const double *v)
{
    for (int i = 0; i < 3; i++)
        y[i] = R[i] * v[0] + R[3 + i] * v[1] + R[6 + i] * v[2];
}

/* out[0..6) -= scale (R F[0..3), R F[3..6)) */
static void scatter6(double *out, const double R[9], const double *F, double scale)
{
    double g[3];
    for (int h = 0; h < 2; h++) {
        fem_mulv3(g, R, F + 3 * h);
        for (int c = 0; c < 3; c++)
            out[3 * h + c] -= scale * g[c];
    }
}

static void beam_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)mp, (void)v;
    beam_fem *s = (beam_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *fs = st_slice(f, s->ms);
    const double *p = st_slice_x(x, s->ms), *p0 = s->ms->rest_position.r;
    for (size_t j = 0; j < s->nact; j++) {
        beam_info *bi = &s->beam[s->act[j]];
        const double *xa = p + 7 * bi->a, *xb = p + 7 * bi->b;
        const double *ra = p0 + 7 * bi->a, *rb = p0 + 7 * bi->b;
        double qa[4], R0[9], d[3], d0[3], e[3], e0[3];
        memcpy(qa, xa + 3, sizeof qa);
        st_quat_normalize(qa);
        quat_matrix(bi->rot, qa);
        quat_matrix(R0, ra + 3);
        for (int c = 0; c < 3; c++)
            e[c] = xb[c] - xa[c], e0[c] = rb[c] - ra[c];
        mul_t(d, bi->rot, e);
        mul_t(d0, R0, e0);
        double dq0[4], dq[4], t[4], depl[6];
        quat_diff(dq0, rb + 3, ra + 3);
        quat_diff(dq, xb + 3, xa + 3);
        st_quat_normalize(dq0);
        st_quat_normalize(dq);
        quat_diff(t, dq, dq0);
        st_quat_normalize(t);
        for (int c = 0; c < 3; c++)
            depl[c] = d[c] - d0[c];
        quat_to_rotation_vector(t, depl + 3);
        double F[12];
        for (int r = 0; r < 12; r++) {
            double acc = 0;
            for (int c = 0; c < 6; c++)
                acc += bi->k[r][6 + c] * depl[c];
            F[r] = acc;
        }
        scatter6(fs + 6 * bi->a, bi->rot, F, 1.0);
        scatter6(fs + 6 * bi->b, bi->rot, F + 6, 1.0);
    }
}

static void beam_add_dforce(st_component *self, const st_mparams *mp, double *df,
                            const double *dx, double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    beam_fem *s = (beam_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *dfs = st_slice(df, s->ms);
    const double *d = st_slice(dx, s->ms);
    for (size_t j = 0; j < s->nact; j++) {
        const beam_info *bi = &s->beam[s->act[j]];
        double loc[12], F[12];
        for (int h = 0; h < 2; h++) {
            mul_t(loc + 6 * 0 + 3 * h, bi->rot, d + 6 * bi->a + 3 * h);
            mul_t(loc + 6 * 1 + 3 * h, bi->rot, d + 6 * bi->b + 3 * h);
        }
        for (int r = 0; r < 12; r++) {
            double acc = 0;
            for (int c = 0; c < 12; c++)
                acc += bi->k[r][c] * loc[c];
            F[r] = acc;
        }
        scatter6(dfs + 6 * bi->a, bi->rot, F, kfactor);
        scatter6(dfs + 6 * bi->b, bi->rot, F + 6, kfactor);
    }
}

/* K = R k R^T by 3x3 sub-blocks (useSymmetricAssembly: the upper blocks,
 * mirrored, the diagonal ones symmetrised, as SOFA). */
static void rotated_stiffness(const beam_info *bi, bool symmetric, double K[12][12])
{
    const double *R = bi->rot;
    for (int x1 = 0; x1 < 12; x1 += 3)
        for (int y1 = symmetric ? x1 : 0; y1 < 12; y1 += 3) {
            double m[9], t[9];
            for (int i = 0; i < 3; i++) /* t = R k_sub */
                for (int j = 0; j < 3; j++)
                    t[3 * i + j] = R[3 * i] * bi->k[x1][y1 + j] +
                                   R[3 * i + 1] * bi->k[x1 + 1][y1 + j] +
                                   R[3 * i + 2] * bi->k[x1 + 2][y1 + j];
            for (int i = 0; i < 3; i++) /* m = t R^T */
                for (int j = 0; j < 3; j++)
                    m[3 * i + j] = t[3 * i] * R[3 * j] + t[3 * i + 1] * R[3 * j + 1] +
                                   t[3 * i + 2] * R[3 * j + 2];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    if (!symmetric) {
                        K[x1 + i][y1 + j] = m[3 * i + j];
                    } else if (x1 == y1) {
                        K[x1 + i][y1 + j] = 0.5 * (m[3 * i + j] + m[3 * j + i]);
                    } else {
                        K[x1 + i][y1 + j] = m[3 * i + j];
                        K[y1 + j][x1 + i] = m[3 * i + j];
                    }
                }
        }
}

static void beam_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    beam_fem *s = (beam_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    for (size_t j = 0; j < s->nact; j++) {
        const beam_info *bi = &s->beam[s->act[j]];
        double K[12][12], blk[36];
        rotated_stiffness(bi, s->symmetric, K);
        unsigned node[2] = {bi->a, bi->b};
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++) {
                for (int r = 0; r < 6; r++)
                    for (int c = 0; c < 6; c++)
                        blk[6 * r + c] = -kfactor * K[6 * p + r][6 * q + c];
                st_matrix_add_block(m, s->ms, node[p], s->ms, node[q], blk);
            }
    }
}

static double beam_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)self, (void)mp, (void)x;
    return 0.0; /* SOFA: "Method getPotentialEnergy not implemented yet.", 0 */
}

static double beam_rayleigh(const st_component *self)
{
    return ((const beam_fem *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops beam_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = beam_add_force,
    .add_dforce = beam_add_dforce,
    .add_k_to_matrix = beam_add_k,
    .potential_energy = beam_energy,
    .rayleigh_stiffness = beam_rayleigh,
};

#define T beam_fem
static const st_field beam_fields[] = {
    FEM_F_RAYLEIGH(T),
    FEM_F_MATERIAL(T),
    FEM_F_TOPOLOGY(T),
    ST_IGNORED(T, beams_data, "beamsData", ST_T_STRING, char *, NULL,
               "Internal element data (not read by settee)"),
    ST_REAL(T, radius, "radius", "0.1",
            "radius of the section (SOFA requires it: a warning when not set)"),
    ST_REAL(T, radius_inner, "radiusInner", "0", "inner radius of the section for hollow beams"),
    ST_UINTS(T, list_segment, "listSegment", "",
             "apply the forcefield to a subset list of beam segments. If no segment defined, "
             "forcefield applies to the whole topology"),
    ST_BOOL(T, symmetric, "useSymmetricAssembly", "false",
            "use symmetric assembly of the matrix K"),
    ST_FIELD_END};
#undef T

static const char *const beam_templates[] = {"Rigid3d", NULL};

const st_class beam_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "BeamFEMForceField",
    .category = "ForceField",
    .description = "6-dof beams (Euler-Bernoulli, circular or hollow section) between Rigid3d "
                   "frames on the edges of a topology, corotational in the frame of each beam's "
                   "first node. Potential energy: SOFA has none; settee returns 0",
    .instance_size = sizeof(beam_fem),
    .fields = beam_fields,
    .init = beam_init,
    .reinit = beam_init,
    .cleanup = beam_cleanup,
    .forcefield = &beam_ops,
    .templates = beam_templates,
};
