/* test_fem_hexa.c - HexahedronFEMForceField and HexahedronFEMForceFieldAndMass:
 * the value SOFA's own test checks (a stretched unit cube), the patch test
 * on a distorted mesh (zero interior residual and the exact constant stress
 * recovered from the nodal forces), rigid-motion invariance of large and
 * polar, energy consistency, the deviation of SOFA's corotational tangent
 * from the exact Jacobian, SOFA's element masses, and the convergence of a
 * hexahedral cantilever under its own weight to Euler-Bernoulli. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/SolidMechanics.FEM.Elastic/hexahedron_fem.h"
#include "internal.h"
#include "support.h"

static const char *const plugins[] = {"ODESolver.Forward",   "ODESolver.Backward",
                                      "LinearSolver.Direct", "Mass",
                                      "Topology",            "Constraint.Projective",
                                      "Engine.Select",       "SolidMechanics.FEM.Elastic"};

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

static hexa_fem *hfem_of(st_scene *s, const char *name)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no component %s", name);
    cr_assert(!strncmp(c->cls->name, "HexahedronFEMForceField", 23), "%s", c->cls->name);
    return (hexa_fem *)c;
}

static void forces_at(st_component *ff, st_system *sys, const double *x, double *f)
{
    size_t n = 3 * sys->nall;
    double *v = calloc(n, sizeof *v);
    memset(f, 0, n * sizeof *f);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, x, v);
    free(v);
}

static double rnd(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return ((*state >> 8) & 0xFFFF) / 32767.5 - 1.0;
}

/* SOFA: HexahedronFEMForceField_test, extension: a unit cube (E 10, nu 0,
 * small) stretched to z = 1.1 pulls each vertex by 0.25 along z. */
Test(fem_hexa, sofa_extension)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_xml(
        &t, "<Node name='Root' gravity='0 0 0' dt='0.5'>"
            "<DefaultAnimationLoop/><EulerExplicitSolver/>"
            "<MechanicalObject name='DOFs' position='0 0 0 1 0 0 1 1 0 0 1 0 0 0 1 1 0 1 1 1 1 "
            "0 1 1'/>"
            "<MeshTopology name='hexa' hexahedra='0 1 2 3 4 5 6 7'/>"
            "<HexahedronFEMForceField name='FEM' youngModulus='10' poissonRatio='0' "
            "method='small'/></Node>");
    hexa_fem *h = hfem_of(s, "FEM");
    st_system *sys = s->systems[0];
    double x[24] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1.1, 1, 0, 1.1, 1, 1, 1.1, 0, 1, 1.1};
    double f[24];
    forces_at(&h->base, sys, x, f);
    for (int i = 0; i < 8; i++)
        for (int c = 0; c < 3; c++) {
            double want = c == 2 ? (i < 4 ? 0.25 : -0.25) : 0.0;
            cr_assert(fabs(f[3 * i + c] - want) <= 1e-12, "f[%d][%d] = %.17g, SOFA %g", i, c,
                      f[3 * i + c], want);
        }
    /* The stiffnessMatrices output holds the element matrix. */
    cr_assert_eq(h->stiffness_matrices.n, 576);
    cr_assert_eq(memcmp(h->stiffness_matrices.r, h->e[0].K, sizeof h->e[0].K), 0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A 2x2x2 block of hexahedra on the unit cube whose interior vertex (13)
 * is moved off-centre, so that no element is a parallelepiped. */
static void distorted_cube(char *xml, size_t size, const char *ff)
{
    char pos[2048] = "", hex[1024] = "";
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++) {
                double p[3] = {0.5 * i, 0.5 * j, 0.5 * k};
                if (i == 1 && j == 1 && k == 1)
                    p[0] = 0.57, p[1] = 0.44, p[2] = 0.61;
                char b[96];
                snprintf(b, sizeof b, "%.17g %.17g %.17g ", p[0], p[1], p[2]);
                strcat(pos, b);
            }
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 2; i++) {
                int v = i + 3 * j + 9 * k;
                char b[96];
                snprintf(b, sizeof b, "%d %d %d %d %d %d %d %d  ", v, v + 1, v + 4, v + 3, v + 9,
                         v + 10, v + 13, v + 12);
                strcat(hex, b);
            }
    snprintf(xml, size,
             "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>"
             "<EulerImplicitSolver/><SparseLDLSolver/>"
             "<MechanicalObject name='dof' position='%s'/>"
             "<MeshTopology name='topo' hexahedra='%s'/>%s</Node>",
             pos, hex, ff);
}

static hexa_fem *load_distorted(test_rt *t, st_scene **s, const char *method, const char *extra)
{
    char ff[512], xml[8192];
    snprintf(ff, sizeof ff,
             "<HexahedronFEMForceField name='FEM' youngModulus='1000' poissonRatio='0.3' "
             "method='%s' %s/>",
             method, extra);
    distorted_cube(xml, sizeof xml, ff);
    open_rt(t);
    *s = load_xml(t, xml);
    hexa_fem *h = hfem_of(*s, "FEM");
    cr_assert_eq(h->ne, 8);
    return h;
}

/* Patch test: u = A x + b. The interior vertex feels no force, and the
 * nodal forces give back the exact constant stress: for isoparametric
 * elements sum_i f_i x_i^T = -integral of sigma = -sigma V. */
Test(fem_hexa, patch_test_small)
{
    test_rt t;
    st_scene *s;
    hexa_fem *h = load_distorted(&t, &s, "small", "");
    st_system *sys = s->systems[0];
    const double A[9] = {1e-3, 2e-4, -3e-4, 5e-4, -2e-3, 1e-4, 0, 3e-4, 1.5e-3};
    const double b[3] = {0.1, -0.2, 0.05};
    size_t n = sys->nall;
    double *x = calloc(3 * n, sizeof *x), *f = calloc(3 * n, sizeof *f);
    for (size_t i = 0; i < n; i++) {
        const double *p = h->initial_points.r + 3 * i;
        double u[3];
        fem_mulv3(u, A, p);
        for (int c = 0; c < 3; c++)
            x[3 * i + c] = p[c] + u[c] + b[c];
    }
    forces_at(&h->base, sys, x, f);
    double fm = 0;
    for (size_t i = 0; i < 3 * n; i++)
        fm = fmax(fm, fabs(f[i]));
    cr_assert_gt(fm, 1e-2);
    for (int c = 0; c < 3; c++)
        cr_assert(fabs(f[3 * 13 + c]) <= 1e-12 * fm, "interior residual %g (max force %g)",
                  f[3 * 13 + c], fm);
    /* sigma = lambda tr(eps) I + 2 mu eps, eps = sym(A) */
    const double E = 1000, nu = 0.3, lam = E * nu / ((1 + nu) * (1 - 2 * nu)),
                 mu = E / (2 * (1 + nu));
    double tr = A[0] + A[4] + A[8], sg[9], smax = 0;
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) {
            sg[3 * a + c] = mu * (A[3 * a + c] + A[3 * c + a]) + (a == c ? lam * tr : 0);
            smax = fmax(smax, fabs(sg[3 * a + c]));
        }
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) {
            double vir = 0;
            for (size_t i = 0; i < n; i++)
                vir -= f[3 * i + a] * h->initial_points.r[3 * i + c];
            cr_assert(fabs(vir - sg[3 * a + c]) <= 1e-12 * smax,
                      "stress(%d,%d) from the nodal forces %.15g, exact %.15g", a, c, vir,
                      sg[3 * a + c]);
        }
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void rotation(double R[9], double ax, double ay, double az)
{
    double Rx[9] = {1, 0, 0, 0, cos(ax), -sin(ax), 0, sin(ax), cos(ax)};
    double Ry[9] = {cos(ay), 0, sin(ay), 0, 1, 0, -sin(ay), 0, cos(ay)};
    double Rz[9] = {cos(az), -sin(az), 0, sin(az), cos(az), 0, 0, 0, 1};
    double T[9];
    fem_mul3(T, Rz, Ry);
    fem_mul3(R, T, Rx);
}

static void rigid_motion(const double *x0, double *x, size_t n, const double R[9])
{
    const double tr[3] = {3.0, -1.5, 0.7};
    for (size_t i = 0; i < n; i++) {
        fem_mulv3(x + 3 * i, R, x0 + 3 * i);
        for (int c = 0; c < 3; c++)
            x[3 * i + c] += tr[c];
    }
}

static void check_rigid(const char *method)
{
    test_rt t;
    st_scene *s;
    hexa_fem *h = load_distorted(&t, &s, method, "");
    st_system *sys = s->systems[0];
    size_t n = sys->nall;
    double *x = calloc(3 * n, sizeof *x), *f = calloc(3 * n, sizeof *f), R[9];
    rotation(R, 0.7, -1.1, 2.3);
    rigid_motion(h->initial_points.r, x, n, R);
    forces_at(&h->base, sys, x, f);
    for (size_t i = 0; i < 3 * n; i++)
        cr_assert(fabs(f[i]) <= 1e-12, "%s: force %g on a rigidly moved rest shape", method, f[i]);
    const st_forcefield_ops *ops = h->base.cls->forcefield;
    double e = ops->potential_energy(&h->base, &sys->mp, x);
    /* D is the translation seen in the element frame (SOFA does not remove
     * it): K D vanishes to round-off, about 1e-13 of K |x|^2 here. */
    cr_assert(fabs(e) <= 1e-9, "%s: energy %g of a rigidly moved rest shape", method, e);
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(fem_hexa, rigid_motion_large) { check_rigid("large"); }
Test(fem_hexa, rigid_motion_polar) { check_rigid("polar"); }

/* force = -d energy / dx (central differences) at a deformed state. */
Test(fem_hexa, energy_consistency_small)
{
    test_rt t;
    st_scene *s;
    hexa_fem *h = load_distorted(&t, &s, "small", "");
    st_system *sys = s->systems[0];
    const st_forcefield_ops *ops = h->base.cls->forcefield;
    size_t n = 3 * sys->nall;
    double *x = calloc(n, sizeof *x), *f = calloc(n, sizeof *f);
    unsigned seed = 5;
    for (size_t i = 0; i < n; i++)
        x[i] = h->initial_points.r[i] + 0.05 * rnd(&seed);
    forces_at(&h->base, sys, x, f);
    cr_assert_gt(ops->potential_energy(&h->base, &sys->mp, x), 0.0);
    double fm = 0, emax = 0;
    for (size_t i = 0; i < n; i++) {
        double xi = x[i], d = 1e-6;
        x[i] = xi + d;
        double ep = ops->potential_energy(&h->base, &sys->mp, x);
        x[i] = xi - d;
        double em = ops->potential_energy(&h->base, &sys->mp, x);
        x[i] = xi;
        double g = -(ep - em) / (2 * d);
        fm = fmax(fm, fabs(f[i]));
        emax = fmax(emax, fabs(g - f[i]));
    }
    cr_assert(emax <= 1e-6 * fm, "max |f + dE/dx| = %g (max |f| = %g)", emax, fm);
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA's corotational tangent R^T K R leaves out the derivative of R (and
 * its energy 1/2 D^T K D is not the potential of its force): measures both
 * differences for a strain of about 1e-3 at a rotated state. The exact
 * agreement at rigidly moved states is checked by test_jacobians. */
Test(fem_hexa, corotational_tangent_deviation)
{
    const char *methods[] = {"large", "polar"};
    for (int m = 0; m < 2; m++) {
        test_rt t;
        st_scene *s;
        hexa_fem *h = load_distorted(&t, &s, methods[m], "");
        st_system *sys = s->systems[0];
        const st_forcefield_ops *ops = h->base.cls->forcefield;
        size_t n = 3 * sys->nall;
        double *x = calloc(n, sizeof *x), *fp = calloc(n, sizeof *fp), *fm = calloc(n, sizeof *fm);
        double *e = calloc(n, sizeof *e), *df = calloc(n, sizeof *df), R[9];
        rotation(R, 0.3, 0.2, -0.4);
        rigid_motion(h->initial_points.r, x, sys->nall, R);
        unsigned seed = 9;
        for (size_t i = 0; i < n; i++)
            x[i] += 1e-3 * rnd(&seed);
        double kmax = 0, dmax = 0, fx = 0, gmax = 0;
        for (size_t j = 0; j < n; j++) {
            double xj = x[j], d = 1e-7;
            x[j] = xj + d;
            forces_at(&h->base, sys, x, fp);
            double ep = ops->potential_energy(&h->base, &sys->mp, x);
            x[j] = xj - d;
            forces_at(&h->base, sys, x, fm);
            double em = ops->potential_energy(&h->base, &sys->mp, x);
            x[j] = xj;
            forces_at(&h->base, sys, x, df); /* the rotations at x */
            fx = fmax(fx, fabs(df[j]));
            gmax = fmax(gmax, fabs(df[j] + (ep - em) / (2 * d)));
            memset(e, 0, n * sizeof *e);
            memset(df, 0, n * sizeof *df);
            e[j] = 1;
            ops->add_dforce(&h->base, &sys->mp, df, e, 1.0, 0.0);
            for (size_t i = 0; i < n; i++) {
                double fd = (fp[i] - fm[i]) / (2 * d);
                kmax = kmax > fabs(fd) ? kmax : fabs(fd);
                dmax = dmax > fabs(fd - df[i]) ? dmax : fabs(fd - df[i]);
            }
        }
        cr_log_info("%s: max |K_sofa - K_exact| / max |K| = %.3g, max |f + dE/dx| / max |f| = "
                    "%.3g at strain ~1e-3",
                    methods[m], dmax / kmax, gmax / fx);
        fprintf(stderr, "hexa %s: tangent deviation %.3g, energy-gradient deviation %.3g\n",
                methods[m], dmax / kmax, gmax / fx);
        cr_assert(dmax <= 2e-2 * kmax, "%s: tangent deviation %g of %g", methods[m], dmax, kmax);
        free(x), free(fp), free(fm), free(e), free(df);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* updateStiffnessMatrix recomputes K from the deformed shape: a stretched
 * element gets a different matrix. */
Test(fem_hexa, update_stiffness_matrix)
{
    test_rt t;
    st_scene *s;
    hexa_fem *h = load_distorted(&t, &s, "small", "updateStiffnessMatrix='true'");
    st_system *sys = s->systems[0];
    double K0 = h->e[0].K[0][0];
    size_t n = 3 * sys->nall;
    double *x = calloc(n, sizeof *x), *f = calloc(n, sizeof *f);
    for (size_t i = 0; i < n; i++)
        x[i] = h->initial_points.r[i] * (i % 3 == 0 ? 1.5 : 1.0);
    forces_at(&h->base, sys, x, f);
    cr_assert(fabs(h->e[0].K[0][0] - K0) > 1e-3 * fabs(K0), "K(0,0) %g unchanged", K0);
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* HexahedronFEMForceFieldAndMass: SOFA's element mass (every block of the
 * upper triangle integrated with the first vertex's signs: vol rho 8/27),
 * the particle masses vol rho / 8 behind gravity, lumped row sums, and
 * add_m_dx equal to the assembled matrix. */
Test(fem_hexa, and_mass_values)
{
    for (int lumped = 0; lumped < 2; lumped++) {
        test_rt t;
        open_rt(&t);
        char xml[2048];
        snprintf(xml, sizeof xml,
                 "<Node name='root' gravity='0 -9.81 0' dt='0.01'><DefaultAnimationLoop/>"
                 "<RegularGridTopology name='grid' n='3 2 2' min='0 0 0' max='2 0.5 0.25'/>"
                 "<EulerImplicitSolver/><SparseLDLSolver/>"
                 "<MechanicalObject name='dof' position='@grid.position'/>"
                 "<HexahedronFEMForceFieldAndMass name='FEM' youngModulus='100' "
                 "poissonRatio='0.2' density='3' lumpedMass='%s'/></Node>",
                 lumped ? "true" : "false");
        st_scene *s = load_xml(&t, xml);
        hexa_fem *h = hfem_of(s, "FEM");
        st_system *sys = s->systems[0];
        cr_assert_eq(h->ne, 2);
        const double vol = 1 * 0.5 * 0.25, rho = 3, blk = vol * rho * 8.0 / 27.0;
        cr_assert_eq(h->mass_matrices.n, 2 * 576);
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++) {
                double want = i % 3 == j % 3 ? blk : 0.0;
                cr_assert(fabs(h->M[1][i][j] - want) <= 1e-15, "M(%d,%d) = %g, SOFA %g", i, j,
                          h->M[1][i][j], want);
            }
        /* vertices 1 and 4 are shared by both elements */
        for (size_t i = 0; i < h->np; i++) {
            double xi = h->initial_points.r[3 * i];
            double want = (xi == 1.0 ? 2 : 1) * vol * rho / 8;
            cr_assert(fabs(h->particle_mass[i] - want) <= 1e-15, "particle mass %zu: %g, %g", i,
                      h->particle_mass[i], want);
            if (lumped)
                cr_assert(fabs(h->lumped[3 * i + 1] - (xi == 1.0 ? 2 : 1) * 8 * blk) <= 1e-14);
        }
        /* The force: elastic (zero at rest) plus the particle masses' weight. */
        const st_mass_ops *mo = h->base.cls->mass;
        size_t n = 3 * sys->nall;
        double *f = calloc(n, sizeof *f), *e = calloc(n, sizeof *e), *col = calloc(n, sizeof *col);
        double *v = calloc(n, sizeof *v);
        mo->add_gravity_to_force(&h->base, &sys->mp, f, sys->x, v);
        for (size_t i = 0; i < h->np; i++)
            cr_assert(fabs(f[3 * i + 1] + 9.81 * h->particle_mass[i]) <= 1e-12);
        /* add_m_dx column by column against the assembled matrix (the
         * consistent matrix even when lumped, as SOFA's addMToMatrix). */
        st_matrix *m = NULL;
        st_error err = {0};
        cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK, "%s", err.msg);
        cr_assert_eq(st_matrix_assemble(m, sys, 1.0, 0.0, 0.0, &err), ST_OK, "%s", err.msg);
        st_csr csr;
        st_matrix_csr(m, &csr);
        size_t N = sys->size;
        double *M = calloc(N * N, sizeof *M);
        for (size_t r = 0; r < N; r++)
            for (int k = csr.rowptr[r]; k < csr.rowptr[r + 1]; k++)
                M[r * N + (size_t)csr.colind[k]] += csr.values[k];
        for (size_t j = 0; j < N; j++) {
            memset(e, 0, n * sizeof *e);
            memset(col, 0, n * sizeof *col);
            e[j] = 1;
            mo->add_m_dx(&h->base, &sys->mp, col, e, 1.0);
            for (size_t i = 0; i < N; i++) {
                double want = M[i * N + j];
                if (lumped) { /* row sums on the diagonal */
                    want = 0;
                    if (i == j)
                        for (size_t k = i % 3; k < N; k += 3)
                            want += M[i * N + k];
                }
                cr_assert(fabs(col[i] - want) <= 1e-12, "M(%zu,%zu): add_m_dx %g, want %g", i,
                          j, col[i], want);
            }
        }
        st_matrix_destroy(&m);
        free(f), free(e), free(col), free(v), free(M);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* A cantilever of length L and square section h clamped at x = 0 under its
 * own weight (DiagonalMass), m elements across; method small, static
 * equilibrium by implicit Euler with a huge step and SparseLDLSolver. */
static double cantilever_tip(int m, double L, double h, double E, double rho, double g)
{
    test_rt t;
    open_rt(&t);
    char xml[4096];
    int nl = (int)lround(m * L / h);
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 %g 0' dt='1000'>"
             "<DefaultAnimationLoop/>"
             "<Node name='Beam'><EulerImplicitSolver/><SparseLDLSolver/>"
             "<RegularGridTopology name='grid' n='%d %d %d' min='0 0 0' max='%g %g %g'/>"
             "<MechanicalObject name='dof' position='@grid.position'/>"
             "<BoxROI name='clamp' box='-0.001 -1 -1 0.001 %g %g'/>"
             "<FixedProjectiveConstraint indices='@clamp.indices'/>"
             "<DiagonalMass massDensity='%g'/>"
             "<HexahedronFEMForceField name='FEM' youngModulus='%g' poissonRatio='0' "
             "method='small'/></Node></Node>",
             -g, nl + 1, m + 1, m + 1, L, h, h, h + 1, h + 1, rho, E);
    st_scene *s = load_xml(&t, xml);
    st_error err = {0};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(st_scene_step(s, 1000, &err), ST_OK, "step: %s", err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    double tip = 0;
    int cnt = 0;
    for (size_t i = 0; i < ms->n; i++)
        if (fabs(ms->rest_position.r[3 * i] - L) < 1e-9) {
            tip += ms->position.r[3 * i + 1] - ms->rest_position.r[3 * i + 1];
            cnt++;
        }
    st_scene_destroy(&s);
    test_rt_close(&t);
    return tip / cnt;
}

Test(fem_hexa, cantilever_convergence, .timeout = 600)
{
    const double L = 10, h = 1, E = 1e6, rho = 1, g = 9.81;
    double I = h * h * h * h / 12, q = rho * g * h * h;
    double eb = -q * L * L * L * L / (8 * E * I);
    double err[3], tip[3];
    const int ms[3] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        tip[k] = cantilever_tip(ms[k], L, h, E, rho, g);
        err[k] = fabs(tip[k] - eb) / fabs(eb);
        cr_log_info("hexa cantilever h/%d: tip %.6g, Euler-Bernoulli %.6g, relative error %.4g",
                    ms[k], tip[k], eb, err[k]);
    }
    double r1 = log(err[0] / err[1]) / log(2.0), r2 = log(err[1] / err[2]) / log(2.0);
    fprintf(stderr, "hexa cantilever: tips %.6g %.6g %.6g (EB %.6g), errors %.4g %.4g %.4g, "
                    "rates %.3g %.3g\n",
            tip[0], tip[1], tip[2], eb, err[0], err[1], err[2], r1, r2);
    cr_assert_lt(err[2], err[1]);
    cr_assert_lt(err[1], err[0]);
    cr_assert_gt(r2, 1.5, "second-order convergence expected, measured %g", r2);
}

/* A class that is both a mass and a force field is used as both: the
 * stiffness of HexahedronFEMForceFieldAndMass enters the system matrix
 * exactly as HexahedronFEMForceField's does, and its mass as well. */
Test(fem_hexa, and_mass_stiffness_enters_the_matrix)
{
    const char *cls[2] = {"HexahedronFEMForceFieldAndMass", "HexahedronFEMForceField"};
    double *K[2] = {NULL, NULL};
    size_t N = 0;
    for (int k = 0; k < 2; k++) {
        test_rt t;
        open_rt(&t);
        char xml[2048];
        snprintf(xml, sizeof xml,
                 "<Node name='root' gravity='0 -9.81 0' dt='0.01'><DefaultAnimationLoop/>"
                 "<RegularGridTopology name='grid' n='3 2 2' min='0 0 0' max='2 0.5 0.25'/>"
                 "<EulerImplicitSolver/><SparseLDLSolver/>"
                 "<MechanicalObject name='dof' position='@grid.position'/>"
                 "<%s name='FEM' youngModulus='100' poissonRatio='0.2' method='polar'/>%s"
                 "</Node>",
                 cls[k], k ? "<UniformMass totalMass='1'/>" : "");
        st_scene *s = load_xml(&t, xml);
        st_system *sys = s->systems[0];
        st_matrix *m = NULL;
        st_error err = {0};
        cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK, "%s", err.msg);
        cr_assert_eq(st_matrix_assemble(m, sys, 0.0, 0.0, 1.0, &err), ST_OK, "%s", err.msg);
        st_csr csr;
        st_matrix_csr(m, &csr);
        N = sys->size;
        K[k] = calloc(N * N, sizeof *K[k]);
        for (size_t r = 0; r < N; r++)
            for (int q = csr.rowptr[r]; q < csr.rowptr[r + 1]; q++)
                K[k][r * N + (size_t)csr.colind[q]] += csr.values[q];
        if (k == 0) /* the stiffness is there: not an empty matrix */
            cr_assert(fabs(K[0][0]) > 1.0, "K(0,0) = %g", K[0][0]);
        st_matrix_destroy(&m);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
    for (size_t i = 0; i < N * N; i++)
        cr_assert(fabs(K[0][i] - K[1][i]) <= 1e-12 * (1 + fabs(K[1][i])), "K[%zu]: %g vs %g", i,
                  K[0][i], K[1][i]);
    free(K[0]);
    free(K[1]);
}
