/* adaptive_beam_force_field_and_mass.c - AdaptiveBeamForceFieldAndMass
 * (SOFA's BeamAdapter plugin): the elastic force, stiffness and mass of the
 * beams a BeamInterpolation describes, on Rigid3d states.
 *
 * Per beam, at each add_force (and once at init, so that the mass exists
 * before the first force): the node frames g0, g1 (DOF frames times the
 * DOF-to-node transforms), the beam frame g = the spline frame at bary 0.5,
 * the node frames in it l_i = g^-1 g_i, and the adjoint A_i of the inverse
 * of (rotation of g, origin R_dof_i t_dof_i), which takes a DOF's (v, w) to
 * the beam frame at the node (A_i = blockdiag(R^T, R^T) when DOFs and beams
 * are aligned). Local displacement U_i = (origin of l_i - origin at rest,
 * rotation vector of l_i - rotation vector at rest); the rest frames are
 * (-L/2, 0, 0) and (L/2, 0, 0) for straight beams, else the same
 * construction on the rest positions. reinforceLength replaces the axial
 * terms by -+(l - L)/2 with l the spline length; shearStressComputation
 * false replaces the axial and twist terms by SOFA's stretch and twist
 * along the spline. The force is f_i -= A_i^T (K_i0 U_0 + K_i1 U_1) with
 * K the 12x12 Timoshenko beam stiffness (plugins/shared/beam_stiffness.h,
 * the one BeamFEMForceField uses; BeamInterpolation's shear areas are 0,
 * so Euler-Bernoulli). add_dforce and the matrix use A_i^T K_ij A_j of the
 * last add_force (no derivative of the frames: exact at rest, as SOFA).
 * The mass matrix per beam is the consistent Timoshenko one scaled by
 * rho A L (with the rotary inertia terms in I/A), in the beam frame and
 * taken to the DOFs the same way, A_i^T M_ij A_j; with computeMass the
 * force adds the gravity M (g, 0) at both nodes (the sum of the beams'
 * rho A L times g in total). A beam whose two nodes are one point
 * (rigidification) has mass and no stiffness.
 *
 * SOFA's differences kept: massDensity is resized to the beams with its
 * first value (a warning when empty); without computeMass the mass matrix
 * is not computed (settee: zero); SOFA's kinetic and potential energies are
 * not implemented (an error, 0): settee's kinetic energy is v.(M v) / 2 and
 * its potential energy 0; separateGravity has no effect (BeamAdapter adds
 * gravity in its force regardless; settee warns). */
#include <math.h>
#include <string.h>

#include "beam_adapter.h"
#include "../shared/beam_stiffness.h"
#include "../shared/euler_quat.h"


/* The consistent beam mass (BeamAdapter's computeMass), 12x12. */
static void local_mass(double M[12][12], const ba_section *s, double L, double rho)
{
    memset(M, 0, 144 * sizeof(double));
    const double A = s->A, AL = A * L, L2 = L * L;
    if (A == 0.0 || L == 0.0)
        return;
    const double iz = s->Iz / A, iy = s->Iy / A, m = rho * AL;
    double d[6] = {1.0 / 3.0, 13.0 / 35.0 + 6.0 * iz / (5.0 * L2),
                   13.0 / 35.0 + 6.0 * iy / (5.0 * L2), s->J / (3.0 * A),
                   L2 / 105.0 + 2 * iy / 15.0, L2 / 105.0 + 2 * iz / 15.0};
    for (int i = 0; i < 6; i++)
        M[i][i] = M[6 + i][6 + i] = m * d[i];
    M[4][2] = m * (-11.0 * L / 210.0 - s->Iy / (10 * AL));
    M[5][1] = m * (11.0 * L / 210.0 + s->Iz / (10 * AL));
    M[11][7] = -M[5][1];
    M[10][8] = -M[4][2];
    /* Node 1 rows, node 0 columns. */
    M[6][0] = m / 6.0;
    M[7][1] = m * (9.0 / 70.0 - 6.0 * iz / (5.0 * L2));
    M[8][2] = m * (9.0 / 70.0 - 6.0 * iy / (5.0 * L2));
    M[9][3] = m * s->J / (6.0 * A);
    M[10][4] = m * (-L2 / 140.0 - iy / 30.0);
    M[11][5] = m * (-L2 / 140.0 - iz / 30.0);
    M[7][5] = m * (13 * L / 420.0 - s->Iz / (10.0 * AL));
    M[8][4] = m * (-13 * L / 420.0 + s->Iy / (10.0 * AL));
    M[10][2] = -M[8][4];
    M[11][1] = -M[7][5];
    for (int i = 0; i < 12; i++)
        for (int j = i + 1; j < 12; j++)
            M[i][j] = M[j][i];
}

/* y = A x (6x6) and y = A^T x. */
static void mul6(double y[6], const double A[36], const double x[6])
{
    for (int i = 0; i < 6; i++) {
        double a = 0;
        for (int j = 0; j < 6; j++)
            a += A[6 * i + j] * x[j];
        y[i] = a;
    }
}

static void mul6t(double y[6], const double A[36], const double x[6])
{
    for (int i = 0; i < 6; i++) {
        double a = 0;
        for (int j = 0; j < 6; j++)
            a += A[6 * j + i] * x[j];
        y[i] = a;
    }
}

/* out_p -= / += scale A_p^T (B_p0 A_0 d_0 + B_p1 A_1 d_1) for both nodes
 * (B = K or M): the global product of one beam. */
static void beam_product(const ab_beam *bm, const double B[12][12], const double *d0,
                         const double *d1, double *o0, double *o1, double scale)
{
    double u[12], f[12];
    mul6(u, bm->A[0], d0);
    mul6(u + 6, bm->A[1], d1);
    for (int i = 0; i < 12; i++) {
        double a = 0;
        for (int j = 0; j < 12; j++)
            a += B[i][j] * u[j];
        f[i] = a;
    }
    double F[6];
    mul6t(F, bm->A[0], f);
    for (int c = 0; c < 6; c++)
        o0[c] += scale * F[c];
    mul6t(F, bm->A[1], f + 6);
    for (int c = 0; c < 6; c++)
        o1[c] += scale * F[c];
}

/* Frames, adjoints and local matrices of every beam at x; with f, adds the
 * elastic force and (computeMass) the gravity g. */
static void update(ab_ffm *s, const double *x, double *f, const double g[3])
{
    const beam_interpolation *bi = s->bi;
    /* a controller may have laid other beams since the last call */
    const size_t nb = ba_num_beams(bi);
    if (nb != s->nb) {
        ab_beam *nbm = st_calloc(nb ? nb : 1, sizeof *nbm);
        if (!nbm) {
            st_component_warn(&s->base, "out of memory for %zu beams: no beam force", nb);
            s->nb = 0;
            return;
        }
        st_free(s->beam);
        s->beam = nbm;
        s->nb = nb;
    }
    for (size_t b = 0; b < s->nb; b++) {
        ab_beam *bm = &s->beam[b];
        ba_node_indices(bi, b, &bm->n0, &bm->n1);
        ba_xf g0, g1, gm, ginv, l0, l1, d0, d1;
        ba_compute_transform(bi, b, x, &g0, &g1);
        const double L = ba_length(bi, b);
        ba_interpolate_transform(&gm, 0.5, &g0, &g1, L);
        ba_xf_inv(&ginv, &gm);
        ba_xf_mul(&l0, &ginv, &g0);
        ba_xf_mul(&l1, &ginv, &g1);
        ba_dof_to_local(bi, b, &d0, &d1);
        /* DOF (global orientation) to node (beam orientation). */
        const unsigned nd[2] = {bm->n0, bm->n1};
        const ba_xf *dl[2] = {&d0, &d1};
        for (int k = 0; k < 2; k++) {
            ba_xf h, hinv;
            st_quat_rotate(h.t, x + 7 * (size_t)nd[k] + 3, dl[k]->t);
            memcpy(h.q, gm.q, sizeof h.q);
            ba_xf_inv(&hinv, &h);
            ba_xf_adjoint(&hinv, bm->A[k]);
        }
        const ba_section *sec = ba_beam_section(bi, b);
        double E, nu, rho = b < s->mass_density.n ? s->mass_density.r[b] : s->def_density;
        ba_mechanical_parameters(bi, b, &E, &nu, &rho);
        if (s->compute_mass)
            local_mass(bm->M, sec, L, rho);
        else
            memset(bm->M, 0, sizeof bm->M);
        if (bm->n0 == bm->n1) { /* rigidification: no stiffness */
            memset(bm->K, 0, sizeof bm->K);
            continue;
        }
        const beam_section_props p = {.E = E, .nu = nu, .L = L, .A = sec->A, .Iy = sec->Iy,
                                      .Iz = sec->Iz, .J = sec->J, .Asy = sec->Asy,
                                      .Asz = sec->Asz};
        beam_local_stiffness(bm->K, &p);
        if (!f)
            continue;
        /* Local displacement of both nodes from rest. */
        ba_xf r0, r1;
        ba_spline_rest_transform(bi, b, &r0, &r1);
        double U[12], w[3], wr[3];
        const ba_xf *lc[2] = {&l0, &l1}, *rc[2] = {&r0, &r1};
        for (int k = 0; k < 2; k++) {
            quat_to_rotation_vector(lc[k]->q, w);
            quat_to_rotation_vector(rc[k]->q, wr);
            for (int c = 0; c < 3; c++) {
                U[6 * k + c] = lc[k]->t[c] - rc[k]->t[c];
                U[6 * k + 3 + c] = w[c] - wr[c];
            }
        }
        if (s->reinforce) {
            double P[4][3];
            ba_control_points(&g0, &g1, L, P);
            const double len = ba_spline_length(P);
            U[0] = (-len + L) / 2;
            U[6] = (len - L) / 2;
        }
        if (!s->shear) {
            double q0[3], q1[3];
            ba_stretch_and_twist(bi, b, x, q0, q1);
            U[0] = -q0[0] + L / 2;
            U[6] = q1[0] - L / 2;
            U[3] = -q0[2];
            U[9] = q1[2];
        }
        double fl[12], F[6];
        for (int i = 0; i < 12; i++) {
            double a = 0;
            for (int j = 0; j < 12; j++)
                a += bm->K[i][j] * U[j];
            fl[i] = a;
        }
        double *f0 = f + 6 * (size_t)bm->n0, *f1 = f + 6 * (size_t)bm->n1;
        mul6t(F, bm->A[0], fl);
        for (int c = 0; c < 6; c++)
            f0[c] -= F[c];
        mul6t(F, bm->A[1], fl + 6);
        for (int c = 0; c < 6; c++)
            f1[c] -= F[c];
    }
    if (f && s->compute_mass) {
        const double G[6] = {g[0], g[1], g[2], 0, 0, 0};
        for (size_t b = 0; b < s->nb; b++) {
            const ab_beam *bm = &s->beam[b];
            beam_product(bm, bm->M, G, G, f + 6 * (size_t)bm->n0, f + 6 * (size_t)bm->n1, 1.0);
        }
    }
}

/* The interpolation: the link, else the node's first BeamInterpolation or
 * WireBeamInterpolation. */
static st_status find_interpolation(ab_ffm *s, st_error *err)
{
    return ba_find_interpolation(&s->base, s->interpolation, &s->bi, err);
}

static st_status ab_init(st_component *self, st_error *err)
{
    ab_ffm *s = (ab_ffm *)self;
    self->state = ST_CSTATE_INVALID;
    st_free(s->beam);
    s->beam = NULL;
    ST_TRY(find_interpolation(s, err));
    s->ms = s->bi->ms;
    if (st_component_mstate(self) != s->ms)
        return st_component_error(self, "interpolation", err, ST_ESCENE,
                                  "the interpolation %s works on another state than this "
                                  "component's",
                                  s->bi->base.name);
    const size_t ne = s->bi->nedges;
    if (s->mass_density.n != ne) {
        double v = 1.0;
        if (s->mass_density.n == 0)
            st_component_warn(self, "Empty data field for massDensity. Set default %g", v);
        else
            v = s->mass_density.r[0];
        ST_TRY(st_array_resize(&s->mass_density, ST_T_REALS, ne, err));
        for (size_t i = 0; i < ne; i++)
            s->mass_density.r[i] = v;
    }
    s->def_density = s->mass_density.r[0];
    if (s->separate_gravity)
        st_component_warn(self, "separateGravity has no effect: AdaptiveBeamForceFieldAndMass "
                                "adds gravity in its force (SOFA's addGravityToV is not "
                                "implemented)");
    s->nb = ba_num_beams(s->bi);
    s->beam = st_calloc(s->nb ? s->nb : 1, sizeof *s->beam);
    if (!s->beam)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu beams)", s->nb);
    update(s, s->ms->position.r, NULL, NULL);
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void ab_cleanup(st_component *self)
{
    ab_ffm *s = (ab_ffm *)self;
    st_free(s->beam);
    s->beam = NULL;
}

static void ab_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)v;
    ab_ffm *s = (ab_ffm *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    update(s, st_slice_x(x, s->ms), st_slice(f, s->ms), mp->gravity);
}

static void ab_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    ab_ffm *s = (ab_ffm *)self;
    if (self->state != ST_CSTATE_VALID || kfactor == 0.0)
        return;
    double *o = st_slice(df, s->ms);
    const double *d = st_slice(dx, s->ms);
    for (size_t b = 0; b < s->nb; b++) {
        const ab_beam *bm = &s->beam[b];
        if (bm->n0 == bm->n1)
            continue;
        beam_product(bm, bm->K, d + 6 * (size_t)bm->n0, d + 6 * (size_t)bm->n1,
                     o + 6 * (size_t)bm->n0, o + 6 * (size_t)bm->n1, -kfactor);
    }
}

/* Adds scale A_p^T B_pq A_q for the four node pairs of each beam. */
static void add_blocks(ab_ffm *s, st_matrix *m, bool stiffness, double scale)
{
    for (size_t b = 0; b < s->nb; b++) {
        const ab_beam *bm = &s->beam[b];
        if (stiffness && bm->n0 == bm->n1)
            continue;
        const unsigned nd[2] = {bm->n0, bm->n1};
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++) {
                double T[36], blk[36];
                /* T = B_pq A_q */
                for (int i = 0; i < 6; i++)
                    for (int j = 0; j < 6; j++) {
                        double a = 0;
                        for (int k = 0; k < 6; k++)
                            a += (stiffness ? bm->K : bm->M)[6 * p + i][6 * q + k] *
                                 bm->A[q][6 * k + j];
                        T[6 * i + j] = a;
                    }
                for (int i = 0; i < 6; i++)
                    for (int j = 0; j < 6; j++) {
                        double a = 0;
                        for (int k = 0; k < 6; k++)
                            a += bm->A[p][6 * k + i] * T[6 * k + j];
                        blk[6 * i + j] = scale * a;
                    }
                st_matrix_add_block(m, s->ms, nd[p], s->ms, nd[q], blk);
            }
    }
}

static void ab_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    ab_ffm *s = (ab_ffm *)self;
    if (self->state == ST_CSTATE_VALID)
        add_blocks(s, m, true, -kfactor);
}

static void ab_add_m_dx(st_component *self, const st_mparams *mp, double *res, const double *dx,
                        double factor)
{
    (void)mp;
    ab_ffm *s = (ab_ffm *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *o = st_slice(res, s->ms);
    const double *d = st_slice(dx, s->ms);
    for (size_t b = 0; b < s->nb; b++) {
        const ab_beam *bm = &s->beam[b];
        beam_product(bm, bm->M, d + 6 * (size_t)bm->n0, d + 6 * (size_t)bm->n1,
                     o + 6 * (size_t)bm->n0, o + 6 * (size_t)bm->n1, factor);
    }
}

static void ab_add_m(st_component *self, const st_mparams *mp, st_matrix *m, double mfactor)
{
    (void)mp;
    ab_ffm *s = (ab_ffm *)self;
    if (self->state == ST_CSTATE_VALID)
        add_blocks(s, m, false, mfactor);
}

static double ab_kinetic(st_component *self, const st_mparams *mp, const double *v)
{
    (void)mp;
    ab_ffm *s = (ab_ffm *)self;
    if (self->state != ST_CSTATE_VALID)
        return 0.0;
    const double *vs = st_slice(v, s->ms);
    double e = 0.0;
    for (size_t b = 0; b < s->nb; b++) {
        const ab_beam *bm = &s->beam[b];
        double o[12] = {0};
        beam_product(bm, bm->M, vs + 6 * (size_t)bm->n0, vs + 6 * (size_t)bm->n1, o, o + 6, 1.0);
        for (int c = 0; c < 6; c++)
            e += 0.5 * (vs[6 * (size_t)bm->n0 + c] * o[c] + vs[6 * (size_t)bm->n1 + c] * o[6 + c]);
    }
    return e;
}

static bool ab_is_diagonal(const st_component *self)
{
    (void)self;
    return false;
}

static double ab_rayleigh_stiffness(const st_component *self)
{
    return ((const ab_ffm *)self)->rayleigh_stiffness;
}

static double ab_rayleigh_mass(const st_component *self)
{
    return ((const ab_ffm *)self)->rayleigh_mass;
}

static const st_forcefield_ops ab_ff_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = ab_add_force,
    .add_dforce = ab_add_dforce,
    .add_k_to_matrix = ab_add_k,
    .rayleigh_stiffness = ab_rayleigh_stiffness,
};

static const st_mass_ops ab_mass_ops = {
    .struct_size = sizeof(st_mass_ops),
    .add_m_dx = ab_add_m_dx,
    .add_m_to_matrix = ab_add_m,
    .kinetic_energy = ab_kinetic,
    .is_diagonal = ab_is_diagonal,
    .rayleigh_mass = ab_rayleigh_mass,
};

#define T ab_ffm
static const st_field ab_fields[] = {
    ST_BOOL(T, compute_mass, "computeMass", "true",
            "if false, only compute the stiff elastic model"),
    ST_REALS(T, mass_density, "massDensity", "1", "Density of the mass"),
    ST_BOOL(T, shear, "shearStressComputation", "true",
            "if false, suppress the shear stress in the computation"),
    ST_BOOL(T, reinforce, "reinforceLength", "false",
            "if true, a separate computation for the error in elongation is performed"),
    ST_LINK(T, interpolation, "interpolation", ST_LINK_ANY,
            "Path to the Interpolation component on scene"),
    ST_REAL(T, rayleigh_stiffness, "rayleighStiffness", "0",
            "Rayleigh damping - stiffness matrix coefficient"),
    ST_REAL(T, rayleigh_mass, "rayleighMass", "0", "Rayleigh damping - mass matrix coefficient"),
    ST_BOOL(T, separate_gravity, "separateGravity", "false",
            "add separately gravity to velocity computation (no effect here, as in BeamAdapter: "
            "a warning)"),
    ST_FIELD_END};
#undef T

static const char *const ab_templates[] = {"Rigid3d", NULL};

const st_class adaptive_beam_force_field_and_mass_class = {
    .struct_size = sizeof(st_class),
    .name = "AdaptiveBeamForceFieldAndMass",
    .category = "ForceField",
    .description = "Elastic force, stiffness and consistent mass of the beams of a "
                   "BeamInterpolation on Rigid3d frames, with gravity (BeamAdapter)",
    .instance_size = sizeof(ab_ffm),
    .fields = ab_fields,
    .init = ab_init,
    .reinit = ab_init,
    .cleanup = ab_cleanup,
    .forcefield = &ab_ff_ops,
    .mass = &ab_mass_ops,
    .templates = ab_templates,
};
