/* test_hyperelastic.c - SolidMechanics.FEM.HyperElastic:
 * TetrahedronHyperelasticityFEMForceField with each of SOFA's materials, at
 * the parameters SOFA's Material_test uses (and its Mooney-Rivlin scene's):
 *  - add_dforce and the assembled K equal a central finite-difference
 *    Jacobian of add_force (1e-6 relative) at a random deformed state
 *    (SOFA's Material_test checks the same consistency material by
 *    material: S = 2 dW/dC and the elasticity tensor = 2 dS/dC);
 *  - force = -d(potential energy)/dx by central differences;
 *  - rigid-motion invariance: a rotated and translated rest mesh gives zero
 *    force and the rest energy;
 *  - the small-strain limit is the linear TetrahedronFEMForceField (method
 *    small) with the same E and nu, to first order;
 *  - patch test: an affine deformation gives zero force on the interior
 *    vertex and the closed-form Piola traction on a face;
 *  - solvers: explicit, implicit CG (matrix-free) and implicit SparseLDL
 *    (assembled) agree on a sagging block;
 *  - bad material names and short ParameterSets are errors naming the field;
 *  - StandardTetrahedralFEMForceField: the same checks and the same forces;
 *  - SOFA's Mooney-Rivlin cylinder scene test (when SOFA's mesh is at hand). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static const char *const plugins[] = {
    "ODESolver.Forward",     "ODESolver.Backward", "LinearSolver.Direct",
    "LinearSolver.Iterative", "Mass",               "Topology",
    "Constraint.Projective", "Engine.Select",      "SolidMechanics.FEM.Elastic",
    "SolidMechanics.FEM.HyperElastic"};

static void open_rt(test_rt *t)
{
    st_error err = {0};
    test_rt_open(t);
    cr_assert_eq(st_runtime_add_plugin_path(t->rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(t->rt, plugins[i], &err), ST_OK, "%s", err.msg);
}

static st_scene *load_xml(test_rt *t, const char *xml)
{
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(t->rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s", err.msg);
    return s;
}

/* A material and its parameters: SOFA's test values (sofa), and values
 * matching the Lame coefficients of E = 1000, nu = 0.3 at small strains
 * (lin, filled by lame_params). */
typedef struct material_case {
    const char *name;
    const char *sofa;
} material_case;

static const material_case cases[] = {
    {"StVenantKirchhoff", "1 1"},
    {"NeoHookean", "1 1"},
    {"MooneyRivlin", "151065.460 101709.668 1e07"},
    {"StableNeoHookean", "1 1"},
    {"ArrudaBoyce", "1 1"},
    {"Ogden", "2 3 2"},
    {"VerondaWestman", "1 1 1"},
    {"Costa", "1 1 1 1 1 1 1 1"},
};
#define NCASES (sizeof cases / sizeof *cases)

#define YOUNG 1000.0
#define POISSON 0.3

/* ParameterSet giving shear modulus mu and Lame lambda at small strains. */
static void lame_params(const char *name, double mu, double lambda, char *out, size_t n)
{
    double bulk = lambda + 2.0 / 3.0 * mu;
    if (!strcmp(name, "MooneyRivlin")) /* shear 2 (c1 + c2) */
        snprintf(out, n, "%.17g %.17g %.17g", mu / 4, mu / 4, bulk);
    else if (!strcmp(name, "ArrudaBoyce")) { /* shear 2 mu sum k c_k 3^(k-1) */
        const double c[5] = {1.0 / 2, 1.0 / 160, 11.0 / (1050.0 * 64), 19.0 / (7000.0 * 512),
                             519.0 / (673750.0 * 4096)};
        double g = 0;
        for (int k = 1; k <= 5; k++)
            g += 2 * k * c[k - 1] * pow(3, k - 1);
        snprintf(out, n, "%.17g %.17g", mu / g, bulk);
    } else if (!strcmp(name, "Ogden")) /* shear mu1 / 2 */
        snprintf(out, n, "%.17g 3 %.17g", 2 * mu, bulk);
    else if (!strcmp(name, "VerondaWestman")) /* shear c1 c2 */
        snprintf(out, n, "%.17g 2 %.17g", mu / 2, bulk);
    else if (!strcmp(name, "Costa")) /* S = a b E + k0 tr(E) I */
        snprintf(out, n, "%.17g %.17g 1 1 1 1 1 1", 2 * mu, lambda);
    else
        snprintf(out, n, "%.17g %.17g", mu, lambda);
}

/* The hyperelastic class under test (each Test runs in its own process). */
static const char *fem_class = "TetrahedronHyperelasticityFEMForceField";

/* The 3x2x2-vertex grid of 1 x 1.5 x 2 cut into 12 tetrahedra (or nx x ny
 * x nz), the hyperelastic force field 'fem' and, when lin, the linear
 * TetrahedronFEMForceField 'lin' (E = YOUNG, nu = POISSON) beside it. */
static st_scene *grid_scene(test_rt *t, const char *n, const char *material, const char *params,
                            bool lin)
{
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0'>"
             "<DefaultAnimationLoop/>"
             "<RegularGridTopology name='grid' n='%s' min='0 0 0' max='1 1.5 2'/>"
             "<Node name='B'>"
             "<EulerExplicitSolver/>"
             "<MechanicalObject name='dofs' position='@../grid.position'/>"
             "<TetrahedronSetTopologyContainer name='tetras'/>"
             "<Hexa2TetraTopologicalMapping input='@../grid' output='@tetras'/>"
             "<%s name='fem' materialName='%s' ParameterSet='%s'/>"
             "%s"
             "</Node></Node>",
             n, fem_class, material, params,
             lin ? "<TetrahedronFEMForceField name='lin' method='small' youngModulus='1000' "
                   "poissonRatio='0.3'/>"
                 : "");
    open_rt(t);
    return load_xml(t, xml);
}

static st_component *ff(st_scene *s, const char *name)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no component %s", name);
    return c;
}

/* Deterministic pseudo-random numbers in [-1, 1]. */
static double rnd(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return ((*state >> 8) & 0xFFFF) / 32767.5 - 1.0;
}

static void force_at(st_system *sys, st_component *c, const double *x, double *f)
{
    static double v[4096];
    memset(f, 0, sys->size_all * sizeof *f);
    c->cls->forcefield->add_force(c, &sys->mp, f, x, v);
}

static double max_abs(const double *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(a[i]) > m)
            m = fabs(a[i]);
    return m;
}

/* The assembled stiffness (kfactor 1) of the system, dense (size^2, zeroed). */
static void assembled_k(st_system *sys, double *K)
{
    st_matrix *m = NULL;
    st_error err = {0};
    cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, sys, 0.0, 0.0, 1.0, &err), ST_OK, "%s", err.msg);
    st_csr csr;
    st_matrix_csr(m, &csr);
    cr_assert_eq(csr.n, sys->size);
    for (size_t r = 0; r < csr.n; r++)
        for (int q = csr.rowptr[r]; q < csr.rowptr[r + 1]; q++)
            K[r * csr.n + (size_t)csr.colind[q]] += csr.values[q];
    st_matrix_destroy(&m);
}

/* add_dforce, the assembled K and -dE/dx against central differences of
 * add_force and of the energy at x (rest + perturb * random). */
static void check_consistency(const char *material, const char *params, double perturb,
                              unsigned seed)
{
    test_rt t;
    st_scene *s = grid_scene(&t, "3 2 2", material, params, false);
    st_system *sys = s->systems[0];
    st_component *c = ff(s, "fem");
    const st_forcefield_ops *ops = c->cls->forcefield;
    size_t N = sys->size;
    double *x = calloc(N, sizeof *x), *f = calloc(N, sizeof *f), *fp = calloc(N, sizeof *fp);
    double *fm = calloc(N, sizeof *fm), *Jfd = calloc(N * N, sizeof *Jfd), *e = calloc(N, 8);
    memcpy(x, sys->x, N * sizeof *x);
    for (size_t i = 0; i < N; i++)
        x[i] += perturb * rnd(&seed);
    const double h = 1e-6;
    double jmax = 0;
    double *dE = calloc(N, sizeof *dE);
    for (size_t j = 0; j < N; j++) {
        double xj = x[j];
        x[j] = xj + h;
        force_at(sys, c, x, fp);
        double ep = ops->potential_energy(c, &sys->mp, x);
        x[j] = xj - h;
        force_at(sys, c, x, fm);
        double em = ops->potential_energy(c, &sys->mp, x);
        x[j] = xj;
        dE[j] = (ep - em) / (2 * h);
        for (size_t i = 0; i < N; i++) {
            Jfd[i * N + j] = (fp[i] - fm[i]) / (2 * h);
            if (fabs(Jfd[i * N + j]) > jmax)
                jmax = fabs(Jfd[i * N + j]);
        }
    }
    cr_assert_gt(jmax, 0.0, "%s: zero Jacobian", material);
    force_at(sys, c, x, f); /* the tangent is taken here */
    double fmax = max_abs(f, N);
    cr_assert_gt(fmax, 0.0, "%s: zero force at a deformed state", material);
    for (size_t j = 0; j < N; j++)
        cr_assert(fabs(dE[j] + f[j]) <= 1e-6 * fmax, "%s: dE/dx[%zu] = %.12g, -f = %.12g",
                  material, j, dE[j], -f[j]);
    double tol = 1e-6 * jmax;
    for (size_t j = 0; j < N; j++) {
        memset(e, 0, N * sizeof *e);
        memset(fp, 0, N * sizeof *fp);
        e[j] = 1.0;
        ops->add_dforce(c, &sys->mp, fp, e, 1.0, 0.0);
        for (size_t i = 0; i < N; i++)
            cr_assert(fabs(fp[i] - Jfd[i * N + j]) <= tol,
                      "%s add_dforce: K(%zu,%zu) = %.12g, finite differences %.12g", material,
                      i, j, fp[i], Jfd[i * N + j]);
    }
    /* kfactor scales add_dforce */
    memset(fp, 0, N * sizeof *fp);
    ops->add_dforce(c, &sys->mp, fp, e, -2.5, 0.0);
    for (size_t i = 0; i < N; i++)
        cr_assert(fabs(fp[i] + 2.5 * Jfd[i * N + N - 1]) <= 2.5 * tol, "%s kfactor", material);
    double *K = calloc(N * N, sizeof *K);
    assembled_k(sys, K);
    for (size_t i = 0; i < N * N; i++)
        cr_assert(fabs(K[i] - Jfd[i]) <= tol,
                  "%s assembled: K(%zu,%zu) = %.12g, finite differences %.12g", material, i / N,
                  i % N, K[i], Jfd[i]);
    free(K), free(x), free(f), free(fp), free(fm), free(Jfd), free(e), free(dE);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(hyperelastic, jacobian_and_energy_sofa_parameters)
{
    for (size_t i = 0; i < NCASES; i++)
        check_consistency(cases[i].name, cases[i].sofa, 0.1, 7 + (unsigned)i);
}

Test(hyperelastic, jacobian_and_energy_large_deformation)
{
    char p[256];
    double mu = YOUNG / (2 * (1 + POISSON));
    double lambda = YOUNG * POISSON / ((1 + POISSON) * (1 - 2 * POISSON));
    for (size_t i = 0; i < NCASES; i++) {
        lame_params(cases[i].name, mu, lambda, p, sizeof p);
        check_consistency(cases[i].name, p, 0.2, 31 + (unsigned)i);
    }
}

/* x = R x0 + t gives no force and the rest energy. */
Test(hyperelastic, rigid_motion_invariance)
{
    const double ax[3] = {1 / sqrt(14.0), 2 / sqrt(14.0), 3 / sqrt(14.0)}, th = 0.7;
    const double tr[3] = {0.3, -0.2, 0.5};
    double c = cos(th), sn = sin(th), R[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double cr = (i == j) ? c : 0.0;
            double k = (i == j) ? 0.0 : ((j == (i + 1) % 3) ? -1.0 : 1.0) * ax[3 - i - j];
            R[3 * i + j] = cr + (1 - c) * ax[i] * ax[j] + sn * k;
        }
    for (size_t m = 0; m < NCASES; m++) {
        test_rt t;
        st_scene *s = grid_scene(&t, "3 2 2", cases[m].name, cases[m].sofa, false);
        st_system *sys = s->systems[0];
        st_component *cf = ff(s, "fem");
        size_t N = sys->size;
        double *x = calloc(N, sizeof *x), *f = calloc(N, sizeof *f);
        /* force scale: a 10% stretch along z */
        for (size_t i = 0; i < N; i++)
            x[i] = sys->x[i] * (i % 3 == 2 ? 1.1 : 1.0);
        force_at(sys, cf, x, f);
        double scale = max_abs(f, N);
        double e0 = cf->cls->forcefield->potential_energy(cf, &sys->mp, sys->x);
        for (size_t i = 0; i < N / 3; i++)
            for (int r = 0; r < 3; r++)
                x[3 * i + r] = R[3 * r] * sys->x[3 * i] + R[3 * r + 1] * sys->x[3 * i + 1] +
                               R[3 * r + 2] * sys->x[3 * i + 2] + tr[r];
        force_at(sys, cf, x, f);
        double e1 = cf->cls->forcefield->potential_energy(cf, &sys->mp, x);
        cr_assert_gt(scale, 0.0);
        cr_assert(max_abs(f, N) <= 1e-10 * scale, "%s: force %g after a rigid motion (scale %g)",
                  cases[m].name, max_abs(f, N), scale);
        cr_assert(fabs(e1 - e0) <= 1e-10 * (fabs(e0) + scale), "%s: energy %.15g, rest %.15g",
                  cases[m].name, e1, e0);
        free(x), free(f);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* |f_hyper - f_linear| / |f_linear| at a displacement of size eps. */
static double linear_gap(st_scene *s, double eps, unsigned seed)
{
    st_system *sys = s->systems[0];
    st_component *h = ff(s, "fem"), *l = ff(s, "lin");
    size_t N = sys->size;
    double *x = calloc(N, sizeof *x), *fh = calloc(N, sizeof *fh), *fl = calloc(N, sizeof *fl);
    for (size_t i = 0; i < N; i++)
        x[i] = sys->x[i] + eps * rnd(&seed);
    force_at(sys, h, x, fh);
    force_at(sys, l, x, fl);
    double d = 0;
    for (size_t i = 0; i < N; i++)
        if (fabs(fh[i] - fl[i]) > d)
            d = fabs(fh[i] - fl[i]);
    double r = d / max_abs(fl, N);
    free(x), free(fh), free(fl);
    return r;
}

Test(hyperelastic, small_strain_limit_is_linear_elasticity)
{
    double mu = YOUNG / (2 * (1 + POISSON));
    double lambda = YOUNG * POISSON / ((1 + POISSON) * (1 - 2 * POISSON));
    for (size_t m = 0; m < NCASES; m++) {
        char p[256];
        lame_params(cases[m].name, mu, lambda, p, sizeof p);
        test_rt t;
        st_scene *s = grid_scene(&t, "3 2 2", cases[m].name, p, true);
        double g1 = linear_gap(s, 1e-4, 5), g2 = linear_gap(s, 1e-5, 5);
        cr_assert(g1 < 2e-3, "%s: relative gap to linear elasticity %g at strain 1e-4",
                  cases[m].name, g1);
        /* first order: ten times smaller displacements, ten times smaller gap */
        cr_assert(g2 < 0.2 * g1, "%s: gap %g at 1e-5 vs %g at 1e-4", cases[m].name, g2, g1);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* Closed-form S11 for F = diag(a, b, c). */
static double closed_s11(const char *mat, const double *p, const double F[3])
{
    double C[3] = {F[0] * F[0], F[1] * F[1], F[2] * F[2]}, J = F[0] * F[1] * F[2];
    double I1 = C[0] + C[1] + C[2], I2 = C[0] * C[1] + C[1] * C[2] + C[0] * C[2];
    if (!strcmp(mat, "StVenantKirchhoff")) {
        double trE = (I1 - 3) / 2;
        return p[1] * trE + p[0] * (C[0] - 1);
    }
    if (!strcmp(mat, "NeoHookean"))
        return p[0] + (p[1] * log(J) - p[0]) / C[0];
    if (!strcmp(mat, "StableNeoHookean")) {
        double alpha = 1 + p[0] / (p[1] + p[0]);
        return p[0] + (p[1] + p[0]) * J * (J - alpha) / C[0];
    }
    /* MooneyRivlin */
    return 2 * p[0] * pow(J, -2.0 / 3) * (1 - I1 / (3 * C[0])) +
           2 * p[1] * pow(J, -4.0 / 3) * (I1 - C[0] - 2 * I2 / (3 * C[0])) + p[2] * log(J) / C[0];
}

/* Patch test on the 3x3x3 grid (vertex 13 interior): x = F X with F
 * diagonal; the interior vertex feels no force and the x-forces on the
 * face X = 1 add up to -F11 S11 times its area (1.5 x 2). */
Test(hyperelastic, patch_test_closed_form)
{
    const char *mats[] = {"StVenantKirchhoff", "NeoHookean", "StableNeoHookean", "MooneyRivlin"};
    const char *ps[] = {"300 200", "300 200", "300 200", "80 40 900"};
    const double pv[4][3] = {{300, 200}, {300, 200}, {300, 200}, {80, 40, 900}};
    const double F[3] = {1.3, 0.9, 0.8};
    for (int m = 0; m < 4; m++) {
        test_rt t;
        st_scene *s = grid_scene(&t, "3 3 3", mats[m], ps[m], false);
        st_system *sys = s->systems[0];
        st_component *c = ff(s, "fem");
        size_t N = sys->size;
        double *x = calloc(N, sizeof *x), *f = calloc(N, sizeof *f);
        for (size_t i = 0; i < N; i++)
            x[i] = F[i % 3] * sys->x[i];
        force_at(sys, c, x, f);
        double scale = max_abs(f, N), face = 0;
        for (int k = 0; k < 3; k++)
            cr_assert(fabs(f[3 * 13 + k]) <= 1e-10 * scale, "%s: interior force %g", mats[m],
                      f[3 * 13 + k]);
        for (size_t i = 0; i < N / 3; i++)
            if (fabs(sys->x[3 * i] - 1.0) < 1e-12)
                face += f[3 * i];
        double want = -F[0] * closed_s11(mats[m], pv[m], F) * 1.5 * 2;
        cr_assert(fabs(face - want) <= 1e-10 * fabs(want), "%s: face force %.15g, closed form %.15g",
                  mats[m], face, want);
        free(x), free(f);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* The tip (last vertex) of a 1 x 1 x 2 NeoHookean block clamped at z = 0,
 * sagging under gravity, after steps of dt with the given solver. */
static void block_tip(const char *solvers, double dt, int steps, double tip[3])
{
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 -9.81 0' dt='%.17g'>"
             "<DefaultAnimationLoop/>"
             "<RegularGridTopology name='grid' n='3 3 5' min='0 0 0' max='1 1 2'/>"
             "<Node name='B'>%s"
             "<MechanicalObject name='dofs' position='@../grid.position'/>"
             "<TetrahedronSetTopologyContainer name='tetras'/>"
             "<Hexa2TetraTopologicalMapping input='@../grid' output='@tetras'/>"
             "<DiagonalMass massDensity='1000'/>"
             "<BoxROI name='clamp' box='-0.1 -0.1 -0.1 1.1 1.1 0.01'/>"
             "<FixedProjectiveConstraint indices='@clamp.indices'/>"
             "<TetrahedronHyperelasticityFEMForceField name='fem' materialName='NeoHookean' "
             "ParameterSet='3.8e5 5.8e5'/>"
             "</Node></Node>",
             dt, solvers);
    test_rt t;
    open_rt(&t);
    st_scene *s = load_xml(&t, xml);
    st_error err = {0};
    for (int i = 0; i < steps; i++)
        cr_assert_eq(st_scene_step(s, dt, &err), ST_OK, "step: %s", err.msg);
    st_mstate *ms = (st_mstate *)ff(s, "dofs");
    memcpy(tip, ms->position.r + 3 * (ms->n - 1), 3 * sizeof(double));
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(hyperelastic, explicit_matrix_free_and_assembled_solvers_agree)
{
    double cg[3], ldl[3], ex[3], im[3];
    const char *euler = "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>";
    char a[512], b[512];
    snprintf(a, sizeof a, "%s<CGLinearSolver iterations='2000' tolerance='1e-24' "
             "threshold='1e-30'/>", euler);
    snprintf(b, sizeof b, "%s<SparseLDLSolver template='CompressedRowSparseMatrixMat3x3d'/>",
             euler);
    block_tip(a, 0.01, 20, cg);
    block_tip(b, 0.01, 20, ldl);
    double sag = 1.0 - ldl[1];
    cr_assert_gt(sag, 1e-3, "the block did not sag (tip y %g)", ldl[1]);
    for (int k = 0; k < 3; k++)
        cr_assert(fabs(cg[k] - ldl[k]) <= 1e-7 * sag, "CG %.12g vs LDL %.12g", cg[k], ldl[k]);
    /* explicit (symplectic Euler) and implicit Euler at a small step: the
     * same motion up to their O(dt) difference */
    block_tip("<EulerExplicitSolver symplectic='1'/>", 2e-5, 2500, ex);
    block_tip(b, 2e-5, 2500, im);
    double d = 1.0 - im[1];
    cr_assert_gt(d, 1e-4, "no motion after 0.05 s (tip y %g)", im[1]);
    for (int k = 0; k < 3; k++)
        cr_assert(fabs(ex[k] - im[k]) <= 0.02 * d, "explicit %.12g vs implicit %.12g (sag %g)",
                  ex[k], im[k], d);
}

static void expect_error_in(const char *cls, const char *material, const char *params,
                            const char *field, const char *what)
{
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<Node name='root'><MechanicalObject position='0 0 0 1 0 0 0 1 0 0 0 1'/>"
             "<TetrahedronSetTopologyContainer tetrahedra='0 1 2 3'/>"
             "<%s name='fem' materialName='%s' ParameterSet='%s'/></Node>",
             cls, material, params);
    test_rt t;
    open_rt(&t);
    st_error err = {0};
    st_scene *s = NULL;
    st_status st = st_scene_load_string(t.rt, xml, strlen(xml), "bad.scn", &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    cr_assert_neq(st, ST_OK, "%s/%s accepted", material, params);
    cr_assert(strstr(err.msg, field) && strstr(err.msg, what), "message: %s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void expect_error(const char *material, const char *params, const char *field,
                         const char *what)
{
    expect_error_in(fem_class, material, params, field, what);
}

Test(hyperelastic, bad_material_and_parameters)
{
    expect_error("NeoHooke", "1 1", "materialName", "NeoHookean");
    expect_error("NeoHookean", "1", "ParameterSet", "mu lambda");
    expect_error("Costa", "1 1 1 1 1 1 1", "ParameterSet", "8 parameters");
    expect_error("ArrudaBoyce", "", "ParameterSet", "2 parameters");
}

/* SOFA's TetrahedronHyperelasticityFEMForceField_scene_test: a PDMS
 * cylinder (SOFA's mesh cylinderPDMS12724Vol.vtk, 3668 vertices) clamped at
 * one end, Mooney-Rivlin (151065.460 101709.668 1e7), lumped MeshMatrixMass
 * 965, implicit Euler (Rayleigh 0.1, 0.1) with SparseLDLSolver, 180 steps
 * of 0.02 s under SOFA's default gravity: vertex 2677 at y = -0.106832
 * (SOFA's tolerance 1e-5; its source notes the whole tip position
 * -0.000373234 -0.106832 0.141393). The mesh is SOFA's test data and is
 * not shipped: the test reads it from a SOFA source tree or git mirror
 * (SETTEE_SOFA_SOURCE, else the mirror this workplace keeps) and is
 * skipped when there is none. */
#define SOFA_CYLINDER                                                                             \
    "Sofa/Component/SolidMechanics/FEM/HyperElastic/tests/scenes/cylinderPDMS12724Vol.vtk"

static bool sofa_file(const char *rel, const char *out)
{
    const char *src = getenv("SETTEE_SOFA_SOURCE");
    if (!src || !*src)
        src = "/work/.mirror/sofa-framework+sofa/repo";
    char cmd[2048], log[4096];
    snprintf(cmd, sizeof cmd,
             "if [ -f '%s/%s' ]; then cp '%s/%s' '%s'; else git -C '%s' show 'HEAD:%s' > '%s'; "
             "fi",
             src, rel, src, rel, out, src, rel, out);
    FILE *f;
    if (test_run(cmd, log, sizeof log) != 0 || !(f = fopen(out, "rb")))
        return false;
    bool ok = fgetc(f) != EOF;
    fclose(f);
    return ok;
}

Test(hyperelastic, sofa_mooney_rivlin_cylinder_scene, .timeout = 600)
{
    const char *vtk = test_write_temp("cylinder.vtk", "");
    if (!sofa_file(SOFA_CYLINDER, vtk))
        cr_skip_test("SOFA's %s is not available (set SETTEE_SOFA_SOURCE)", SOFA_CYLINDER);
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name='root' dt='0.02'>"
             "<DefaultAnimationLoop/>"
             "<Node name='MooneyRivlin-Model'>"
             "<EulerImplicitSolver rayleighMass='0.1' rayleighStiffness='0.1'/>"
             "<SparseLDLSolver/>"
             "<MeshVTKLoader filename='%s' name='loader'/>"
             "<MechanicalObject src='@loader' name='Volume'/>"
             "<TetrahedronSetTopologyContainer name='Container' src='@loader'/>"
             "<TetrahedronSetTopologyModifier name='Modifier'/>"
             "<MeshMatrixMass name='mass' lumping='1' massDensity='965'/>"
             "<BoxROI box='-0.05 -0.05 -0.002   0.15 0.05 0.0' name='fixedBox1'/>"
             "<FixedProjectiveConstraint indices='@fixedBox1.indices'/>"
             "<TetrahedronHyperelasticityFEMForceField name='FEM' materialName='MooneyRivlin' "
             "ParameterSet='151065.460 101709.668 1e07'/>"
             "</Node></Node>",
             vtk);
    test_rt t;
    open_rt(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_load_plugin(t.rt, "IO.Mesh", &err), ST_OK, "%s", err.msg);
    st_scene *s = load_xml(&t, xml);
    for (int i = 0; i < 180; i++)
        cr_assert_eq(st_scene_step(s, 0.02, &err), ST_OK, "step %d: %s", i, err.msg);
    st_mstate *ms = (st_mstate *)ff(s, "Volume");
    cr_assert_eq(ms->n, 3668);
    const double *tip = ms->position.r + 3 * 2677;
    const double want[3] = {-0.000373234, -0.106832, 0.141393};
    for (int k = 0; k < 3; k++)
        cr_assert(fabs(tip[k] - want[k]) <= 1e-5, "tip[%d] = %.9g, SOFA %.9g", k, tip[k],
                  want[k]);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* StandardTetrahedralFEMForceField: the same element and materials (SOFA's
 * list without StableNeoHookean): exact tangent and energy for each, the
 * same forces as TetrahedronHyperelasticityFEMForceField. */
Test(hyperelastic, standard_tetrahedral_fem_force_field)
{
    for (size_t i = 0; i < NCASES; i++) {
        if (!strcmp(cases[i].name, "StableNeoHookean"))
            continue;
        fem_class = "StandardTetrahedralFEMForceField";
        check_consistency(cases[i].name, cases[i].sofa, 0.1, 7 + (unsigned)i);
        /* identical forces to the newer class at a deformed state */
        double f[2][64];
        for (int k = 0; k < 2; k++) {
            fem_class = k ? "StandardTetrahedralFEMForceField"
                          : "TetrahedronHyperelasticityFEMForceField";
            test_rt t;
            st_scene *s = grid_scene(&t, "3 2 2", cases[i].name, cases[i].sofa, false);
            st_system *sys = s->systems[0];
            double x[64];
            unsigned seed = 99;
            cr_assert_leq(sys->size, 64);
            for (size_t j = 0; j < sys->size; j++)
                x[j] = sys->x[j] + 0.1 * rnd(&seed);
            force_at(sys, ff(s, "fem"), x, f[k]);
            st_scene_destroy(&s);
            test_rt_close(&t);
        }
        for (size_t j = 0; j < 36; j++)
            cr_assert_eq(f[0][j], f[1][j], "%s: force %zu differs", cases[i].name, j);
    }
    fem_class = "StandardTetrahedralFEMForceField";
    expect_error("StableNeoHookean", "1 1", "materialName", "not valid");
}

/* StableNeoHookean has no logarithm: an inverted tetrahedron (vertex 3
 * pushed through the opposite face, J < 0) gets finite forces that push it
 * back (f_z > 0 on vertex 3), and they are still -dE/dx. */
Test(hyperelastic, stable_neo_hookean_inverted_element)
{
    const char *xml =
        "<Node name='root' gravity='0 0 0'><EulerExplicitSolver/>"
        "<MechanicalObject name='dofs' position='0 0 0 1 0 0 0 1 0 0.2 0.2 -0.3' "
        "rest_position='0 0 0 1 0 0 0 1 0 0 0 1'/>"
        "<TetrahedronSetTopologyContainer tetrahedra='0 1 2 3'/>"
        "<TetrahedronHyperelasticityFEMForceField name='fem' materialName='StableNeoHookean' "
        "ParameterSet='300 200'/></Node>";
    test_rt t;
    open_rt(&t);
    st_scene *s = load_xml(&t, xml);
    st_system *sys = s->systems[0];
    st_component *c = ff(s, "fem");
    double x[12], f[12];
    memcpy(x, sys->x, sizeof x);
    force_at(sys, c, x, f);
    for (int i = 0; i < 12; i++)
        cr_assert(isfinite(f[i]), "force %d = %g", i, f[i]);
    cr_assert_gt(f[11], 0.0, "vertex 3 is not pushed back (f_z = %g)", f[11]);
    const double h = 1e-6;
    for (int j = 0; j < 12; j++) {
        double xj = x[j];
        x[j] = xj + h;
        double ep = c->cls->forcefield->potential_energy(c, &sys->mp, x);
        x[j] = xj - h;
        double em = c->cls->forcefield->potential_energy(c, &sys->mp, x);
        x[j] = xj;
        cr_assert(fabs((ep - em) / (2 * h) + f[j]) <= 1e-6 * max_abs(f, 12),
                  "dE/dx[%d] = %.12g, -f = %.12g", j, (ep - em) / (2 * h), -f[j]);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A flat tetrahedron (vertex 3 in the plane of the other three: J = 0, C
 * singular), as every element of an inverted body passes on its way back.
 * StableNeoHookean's stress is defined there (P = mu F + (lambda + mu)
 * (J - alpha) cof F): the forces are finite, -dE/dx, and add_dforce is
 * their derivative. Formed through C^-1, as SOFA writes S, they were NaN
 * here and lost every digit nearby (vertex 3 at z = 1e-9). */
Test(hyperelastic, stable_neo_hookean_flat_element)
{
    const char *zs[] = {"0", "1e-9"};
    for (int k = 0; k < 2; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml,
                 "<Node name='root' gravity='0 0 0'><EulerExplicitSolver/>"
                 "<MechanicalObject name='dofs' position='0 0 0 1.1 0 0 0 0.9 0 0.2 0.3 %s' "
                 "rest_position='0 0 0 1 0 0 0 1 0 0 0 1'/>"
                 "<TetrahedronSetTopologyContainer tetrahedra='0 1 2 3'/>"
                 "<TetrahedronHyperelasticityFEMForceField name='fem' "
                 "materialName='StableNeoHookean' ParameterSet='300 200'/></Node>",
                 zs[k]);
        test_rt t;
        open_rt(&t);
        st_scene *s = load_xml(&t, xml);
        st_system *sys = s->systems[0];
        st_component *c = ff(s, "fem");
        const st_forcefield_ops *ops = c->cls->forcefield;
        double x[12], f[12], fp[12], fm[12], e[12], df[12];
        memcpy(x, sys->x, sizeof x);
        force_at(sys, c, x, f);
        for (int i = 0; i < 12; i++)
            cr_assert(isfinite(f[i]), "z = %s: force %d = %g", zs[k], i, f[i]);
        /* J = 0 < alpha: the volume term pushes vertex 3 out of the plane,
         * up to where the element had it (+z) */
        cr_assert_gt(f[11], 0.0, "z = %s: f_z of vertex 3 = %g", zs[k], f[11]);
        const double h = 1e-6;
        double fmax = max_abs(f, 12);
        for (int j = 0; j < 12; j++) {
            double xj = x[j];
            x[j] = xj + h;
            double ep = ops->potential_energy(c, &sys->mp, x);
            force_at(sys, c, x, fp);
            x[j] = xj - h;
            double em = ops->potential_energy(c, &sys->mp, x);
            force_at(sys, c, x, fm);
            x[j] = xj;
            cr_assert(fabs((ep - em) / (2 * h) + f[j]) <= 1e-6 * fmax,
                      "z = %s: dE/dx[%d] = %.12g, -f = %.12g", zs[k], j, (ep - em) / (2 * h),
                      -f[j]);
            force_at(sys, c, x, f); /* the tangent at x again */
            memset(e, 0, sizeof e);
            memset(df, 0, sizeof df);
            e[j] = 1.0;
            ops->add_dforce(c, &sys->mp, df, e, 1.0, 0.0);
            for (int i = 0; i < 12; i++) {
                double fd = (fp[i] - fm[i]) / (2 * h);
                cr_assert(isfinite(df[i]) && fabs(df[i] - fd) <= 1e-6 * (1 + fabs(fd)) * 300,
                          "z = %s: K(%d,%d) = %.12g, finite differences %.12g", zs[k], i, j,
                          df[i], fd);
            }
        }
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* materialName is SOFA's OptionsGroup in TetrahedronHyperelasticityFEM-
 * ForceField: an index into its option list selects too (2: NeoHookean),
 * with a warning; StandardTetrahedralFEMForceField takes names only. */
Test(hyperelastic, material_by_option_index)
{
    double f[2][64];
    const char *names[2] = {"NeoHookean", "2"};
    for (int k = 0; k < 2; k++) {
        test_rt t;
        st_scene *s = grid_scene(&t, "3 2 2", names[k], "300 200", false);
        st_system *sys = s->systems[0];
        double x[64];
        unsigned seed = 3;
        for (size_t j = 0; j < sys->size; j++)
            x[j] = sys->x[j] + 0.1 * rnd(&seed);
        force_at(sys, ff(s, "fem"), x, f[k]);
        cr_assert(k == 0 || strstr(t.log, "NeoHookean"), "no warning naming the material:\n%s",
                  t.log);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
    for (int j = 0; j < 36; j++)
        cr_assert_eq(f[0][j], f[1][j]);
    expect_error_in("TetrahedronHyperelasticityFEMForceField", "8", "1 1", "materialName",
                    "not valid");
    expect_error_in("StandardTetrahedralFEMForceField", "2", "1 1", "materialName", "not valid");
}

/* ---- StableNeoHookean on a mirrored element, against SOFA's formulas ---- */

static void m3_inv(const double A[9], double B[9])
{
    double d = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
               A[2] * (A[3] * A[7] - A[4] * A[6]);
    B[0] = (A[4] * A[8] - A[5] * A[7]) / d, B[1] = (A[2] * A[7] - A[1] * A[8]) / d;
    B[2] = (A[1] * A[5] - A[2] * A[4]) / d, B[3] = (A[5] * A[6] - A[3] * A[8]) / d;
    B[4] = (A[0] * A[8] - A[2] * A[6]) / d, B[5] = (A[2] * A[3] - A[0] * A[5]) / d;
    B[6] = (A[3] * A[7] - A[4] * A[6]) / d, B[7] = (A[1] * A[6] - A[0] * A[7]) / d;
    B[8] = (A[0] * A[4] - A[1] * A[3]) / d;
}

/* SOFA's TetrahedronHyperelasticityFEMForceField with its StableNeoHookean,
 * written here from its equations, not from settee's code: S = mu I +
 * (lambda + mu) J (J - alpha) C^-1, f_a = -V F S g_a, and the block K_kl
 * (k != l) from the elasticity tensor applied to dC = g_l (x) F_m + F_m (x)
 * g_l (F_m: row m of F): column m is -V ((g_k . S g_l) e_m + F dS g_k);
 * K_kk = -sum of K_kl (SOFA assembles edge by edge). */
static void sofa_stable_nh(const double rest[12], const double x[12], double mu, double lambda,
                           double f[12], double K[144])
{
    double D[9], Di[9], g[4][3], F[9] = {0}, C[9], Ci[9], S[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            D[3 * r + c] = rest[3 * (c + 1) + r] - rest[r];
    m3_inv(D, Di);
    double V = fabs(D[0] * (D[4] * D[8] - D[5] * D[7]) - D[1] * (D[3] * D[8] - D[5] * D[6]) +
                    D[2] * (D[3] * D[7] - D[4] * D[6])) / 6;
    for (int c = 0; c < 3; c++) {
        g[0][c] = 0;
        for (int a = 1; a < 4; a++)
            g[a][c] = Di[3 * (a - 1) + c], g[0][c] -= g[a][c];
    }
    for (int a = 1; a < 4; a++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                F[3 * i + j] += (x[3 * a + i] - x[i]) * g[a][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[3 * i + j] = F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j];
    m3_inv(C, Ci);
    double J = F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) +
               F[2] * (F[3] * F[7] - F[4] * F[6]);
    double alpha = 1 + mu / (lambda + mu);
    for (int i = 0; i < 9; i++)
        S[i] = (i % 4 == 0 ? mu : 0) + (lambda + mu) * J * (J - alpha) * Ci[i];
    for (int a = 0; a < 4; a++)
        for (int i = 0; i < 3; i++) {
            double y = 0;
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 3; k++)
                    y += F[3 * i + j] * S[3 * j + k] * g[a][k];
            f[3 * a + i] = -V * y;
        }
    memset(K, 0, 144 * sizeof *K);
    for (int k = 0; k < 4; k++)
        for (int l = 0; l < 4; l++) {
            if (k == l)
                continue;
            double sd = 0;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    sd += g[k][i] * S[3 * i + j] * g[l][j];
            for (int m = 0; m < 3; m++) {
                double H[9], t1[9], t2[9], out[9], tr = 0;
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++)
                        H[3 * a + b] = g[l][a] * F[3 * m + b] + F[3 * m + a] * g[l][b];
                for (int i = 0; i < 9; i++)
                    tr += H[i] * Ci[i];
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) {
                        t1[3 * a + b] = 0;
                        for (int c = 0; c < 3; c++)
                            t1[3 * a + b] += Ci[3 * a + c] * H[3 * c + b];
                    }
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) {
                        t2[3 * a + b] = 0;
                        for (int c = 0; c < 3; c++)
                            t2[3 * a + b] += t1[3 * a + c] * Ci[3 * c + b];
                    }
                for (int i = 0; i < 9; i++)
                    out[i] = 0.5 * (lambda + mu) *
                             (-2 * J * (J - alpha) * t2[i] + J * (2 * J - alpha) * tr * Ci[i]);
                for (int u = 0; u < 3; u++) {
                    double w = 0;
                    for (int b = 0; b < 3; b++)
                        for (int c = 0; c < 3; c++)
                            w += F[3 * u + b] * out[3 * b + c] * g[k][c];
                    double v = -V * ((u == m ? sd : 0) + w);
                    K[(3 * k + u) * 12 + 3 * l + m] = v;
                    K[(3 * k + u) * 12 + 3 * k + m] -= v;
                }
            }
        }
}

/* SOFA's TetrahedronHyperelasticityFEMForceField_invertedTets.scn starts
 * every tetrahedron mirrored (F = diag(1, 1, -1), J = -1) with ParameterSet
 * "1644295.30201342 33557.0469798658" (mu, lambda as SOFA reads them). On
 * that element, exactly mirrored and then moved a little, settee's forces
 * and assembled tangent are SOFA's (formulas above) and the tangent is the
 * central finite difference of the forces; the tangent is indefinite there
 * (the volume term (lambda + mu)(J - alpha) dcof F, with J - alpha = -2.98,
 * outweighs mu). */
Test(hyperelastic, stable_neo_hookean_mirrored_element_is_sofa)
{
    const double mu = 1644295.30201342, lambda = 33557.0469798658;
    const char *pos[] = {"0 0 0 0.2 0 0 0 0.2 0 0 0 -0.18",
                         "0.01 -0.02 0 0.21 0.01 -0.03 -0.02 0.19 0.01 0.03 0.02 -0.1"};
    for (int k = 0; k < 2; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml,
                 "<Node name='root' gravity='0 0 0'><EulerExplicitSolver/>"
                 "<MechanicalObject name='dofs' position='%s' "
                 "rest_position='0 0 0 0.2 0 0 0 0.2 0 0 0 0.18'/>"
                 "<TetrahedronSetTopologyContainer tetrahedra='0 1 2 3'/>"
                 "<TetrahedronHyperelasticityFEMForceField name='fem' "
                 "materialName='StableNeoHookean' ParameterSet='%.15g %.15g'/></Node>",
                 pos[k], mu, lambda);
        test_rt t;
        open_rt(&t);
        st_scene *s = load_xml(&t, xml);
        st_system *sys = s->systems[0];
        st_component *c = ff(s, "fem");
        st_mstate *ms = (st_mstate *)ff(s, "dofs");
        double x[12], f[12], fs[12], Ks[144], fp[12], fm[12];
        memcpy(x, sys->x, sizeof x);
        force_at(sys, c, x, f);
        sofa_stable_nh(ms->rest_position.r, x, mu, lambda, fs, Ks);
        double fmax = max_abs(fs, 12), kmax = max_abs(Ks, 144);
        cr_assert_gt(fmax, 1e3, "case %d: force %g", k, fmax);
        for (int i = 0; i < 12; i++)
            cr_assert(fabs(f[i] - fs[i]) <= 1e-12 * fmax, "case %d: f[%d] = %.17g, SOFA %.17g",
                      k, i, f[i], fs[i]);
        double K[144] = {0};
        assembled_k(sys, K);
        const double h = 1e-7;
        for (int j = 0; j < 12; j++) {
            double xj = x[j];
            x[j] = xj + h;
            force_at(sys, c, x, fp);
            x[j] = xj - h;
            force_at(sys, c, x, fm);
            x[j] = xj;
            for (int i = 0; i < 12; i++) {
                double fd = (fp[i] - fm[i]) / (2 * h);
                cr_assert(fabs(K[i * 12 + j] - Ks[i * 12 + j]) <= 1e-11 * kmax,
                          "case %d: K(%d,%d) = %.17g, SOFA %.17g", k, i, j, K[i * 12 + j],
                          Ks[i * 12 + j]);
                cr_assert(fabs(K[i * 12 + j] - fd) <= 1e-6 * kmax,
                          "case %d: K(%d,%d) = %.12g, finite differences %.12g", k, i, j,
                          K[i * 12 + j], fd);
            }
        }
        /* indefinite: the stiffness -K has a 2x2 principal minor < 0 (a
         * positive semidefinite matrix has none) */
        double minor = INFINITY;
        for (int i = 0; i < 12; i++)
            for (int j = i + 1; j < 12; j++) {
                double d = K[i * 13] * K[j * 13] - K[i * 12 + j] * K[j * 12 + i];
                if (d < minor)
                    minor = d;
            }
        cr_assert_lt(minor, -1e-3 * kmax * kmax, "case %d: no negative 2x2 minor (%g)", k,
                     minor);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* A block like SOFA's TetrahedronHyperelasticityFEMForceField_invertedTets
 * scene (our own writing of it): its rest grid mirrored through z = 0 at
 * the start, every tetrahedron at J = -1, StableNeoHookean, MeshMatrixMass,
 * implicit Euler with a direct solver. */
static st_scene *mirrored_block(test_rt *t, const char *solver)
{
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<Node name='root' dt='0.00005' gravity='0 0 0'><DefaultAnimationLoop/>"
             "<Node name='B'><EulerImplicitSolver/>%s"
             "<RegularGridTopology name='rest' min='0 0 0' max='1 1 2.7' n='6 6 16'/>"
             "<RegularGridTopology name='start' min='0 0 0' max='1 1 -2.7' n='6 6 16'/>"
             "<MechanicalObject name='dofs' rest_position='@rest.position' "
             "position='@start.position'/>"
             "<MeshMatrixMass totalMass='1.0'/>"
             "<Node name='T'><TetrahedronSetTopologyContainer name='tetras'/>"
             "<TetrahedronSetTopologyModifier/>"
             "<Hexa2TetraTopologicalMapping input='@../rest' output='@tetras' swapping='true'/>"
             "<TetrahedronHyperelasticityFEMForceField name='fem' "
             "ParameterSet='1644295.30201342 33557.0469798658' "
             "materialName='StableNeoHookean'/></Node>"
             "<BoxROI name='box' box='0 0 0 1 1 0.05'/>"
             "<FixedProjectiveConstraint indices='@box.indices'/></Node></Node>",
             solver);
    open_rt(t);
    return load_xml(t, xml);
}

/* The first step's system is indefinite (the material's tangent while the
 * elements are inside out; SOFA's hexahedron mass too) but far from
 * singular (its smallest eigenvalue, 1e-6, is 1e-3 of the mass terms):
 * SparseLDLSolver's LDL^T without pivoting gives the solution of LU with
 * partial pivoting (UMFPACK) to 1e-9. The body then jumps some 20 lengths
 * in 5e-5 s, in SOFA's equations as here. At step 14 the LDL^T pivots span
 * 17 orders of magnitude (pivot growth in this ordering) while the matrix's
 * condition is about 1e13: settee used to stop there as on a singular
 * matrix; it now goes on with a warning, as SOFA's solver goes on. */
Test(hyperelastic, stable_neo_hookean_mirrored_block_runs_on)
{
    test_rt t, u;
    st_error err = {0};
    st_scene *s = mirrored_block(&t, "<SparseLDLSolver template='CompressedRowSparseMatrixd'/>");
    st_scene *r = mirrored_block(&u, "<EigenSparseLU/>");
    cr_assert_eq(st_scene_step(s, 0.00005, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_step(r, 0.00005, &err), ST_OK, "%s", err.msg);
    st_mstate *a = (st_mstate *)ff(s, "dofs"), *b = (st_mstate *)ff(r, "dofs");
    double span = 0, gap = 0;
    for (size_t i = 0; i < 3 * a->n; i++) {
        if (fabs(a->position.r[i]) > span)
            span = fabs(a->position.r[i]);
        if (fabs(a->position.r[i] - b->position.r[i]) > gap)
            gap = fabs(a->position.r[i] - b->position.r[i]);
    }
    cr_assert_gt(span, 5.0, "the first step moved the body to |x| <= %g only", span);
    cr_assert_leq(gap, 1e-9 * span, "LDL^T and LU differ by %g (span %g)", gap, span);
    for (int i = 1; i < 20; i++)
        cr_assert_eq(st_scene_step(s, 0.00005, &err), ST_OK, "step %d: %s", i + 1, err.msg);
    for (size_t i = 0; i < 3 * a->n; i++)
        cr_assert(isfinite(a->position.r[i]), "x[%zu] = %g", i, a->position.r[i]);
    cr_assert(strstr(t.log, "reciprocal condition number is about"), "no warning:\n%s", t.log);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    st_scene_destroy(&s);
    st_scene_destroy(&r);
    test_rt_close(&t);
    test_rt_close(&u);
}
