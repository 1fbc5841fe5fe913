/* test_fem.c - SolidMechanics.FEM.Elastic: the values SOFA's own tests check
 * for TetrahedronFEMForceField (element data of one tetrahedron, the 4x10x4
 * grid beam after 100 steps, the force on a stretched regular tetrahedron),
 * the patch test, rigid-motion invariance of the corotational methods,
 * energy consistency, the deviation of SOFA's corotational tangent from the
 * exact Jacobian, plasticity and von Mises outputs, Hexa2Tetra orderings,
 * and the convergence of a tetrahedral cantilever under its own weight to
 * the Euler-Bernoulli tip deflection. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/SolidMechanics.FEM.Elastic/tetrahedron_fem.h"
#include "internal.h"
#include "support.h"
#include "sofa_fem_values.h"

static const char *const plugins[] = {"ODESolver.Forward", "ODESolver.Backward",
                                      "LinearSolver.Direct", "LinearSolver.Iterative",
                                      "Mass", "Topology", "Constraint.Projective",
                                      "Engine.Select", "SolidMechanics.FEM.Elastic"};

static void open_rt(test_rt *t)
{
    st_error err = {0};
    test_rt_open(t);
    cr_assert_eq(st_runtime_add_plugin_path(t->rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(t->rt, plugins[i], &err), ST_OK, "%s", err.msg);
}

/* Loads a SOFA XML scene from text and initialises it. */
static st_scene *load_xml(test_rt *t, const char *xml)
{
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(t->rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s", err.msg);
    return s;
}

static void step(st_scene *s, int n, double dt)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, dt, &err), ST_OK, "step: %s", err.msg);
}

static tetra_fem *fem_of(st_scene *s, const char *name)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no component %s", name);
    cr_assert_str_eq(c->cls->name, "TetrahedronFEMForceField");
    return (tetra_fem *)c;
}

static void near(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol, "%s: %.10g, expected %.10g (tolerance %g)", what, got,
              want, tol);
}

/* One tetrahedron, "2 3 1 0", positions 0 0 0 1 0 0 0 1 0 0 0 1. */
#define ONE_TETRA(METHOD, E, NU)                                                                  \
    "<Node name='root' gravity='0 0 0'>"                                                          \
    "<DefaultAnimationLoop/><EulerExplicitSolver/>"                                               \
    "<MechanicalObject name='dofs' position='0 0 0  1 0 0  0 1 0  0 0 1'/>"                       \
    "<TetrahedronSetTopologyContainer name='topo' tetrahedra='2 3 1 0'/>"                         \
    "<TetrahedronFEMForceField name='FEM' youngModulus='" E "' poissonRatio='" NU                 \
    "' method='" METHOD "'/>"                                                                     \
    "</Node>"

/* SOFA: BaseTetrahedronFEMForceField_test, checkInit. */
Test(fem, sofa_single_tetrahedron_init)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_xml(&t, ONE_TETRA("large", "1000", "0.3"));
    tetra_fem *f = fem_of(s, "FEM");
    cr_assert_eq(f->ne, 1);
    const tet *e = &f->e[0];
    for (int i = 0; i < 9; i++) {
        near(e->R0[i], sofa_tet1_R[i], 1e-4, "initial rotation");
        near(e->R[i], sofa_tet1_R[i], 1e-4, "current rotation");
    }
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++)
            near(e->rest[k][c], sofa_tet1_P[k][c], 1e-4, "rotated initial position");
    near(e->kd, sofa_tet1_K[0], 1e-3, "K(0,0)");
    near(e->ko, sofa_tet1_K[1], 1e-4, "K(0,1)");
    near(e->ks, sofa_tet1_K[2], 1e-4, "K(3,3)");
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 6; j++)
            near(e->J[i][j], sofa_tet1_J[i][j], 1e-4, "strain-displacement");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

#define GRID_BEAM(METHOD)                                                                         \
    "<Node name='root' gravity='0 10 0' dt='0.01'>"                                               \
    "<DefaultAnimationLoop/>"                                                                     \
    "<RegularGridTopology name='grid' n='4 10 4' min='0 0 20' max='10 40 30'/>"                   \
    "<Node name='Beam'>"                                                                          \
    "<EulerImplicitSolver/>"                                                                      \
    "<CGLinearSolver iterations='20' tolerance='1e-5' threshold='1e-6'/>"                         \
    "<MechanicalObject name='dof' position='@../grid.position'/>"                                 \
    "<TetrahedronSetTopologyContainer name='topo'/>"                                              \
    "<TetrahedronSetTopologyModifier name='Modifier'/>"                                           \
    "<TetrahedronSetGeometryAlgorithms name='GeomAlgo'/>"                                         \
    "<Hexa2TetraTopologicalMapping input='@../grid' output='@topo'/>"                             \
    "<BoxROI name='ROI1' box='-1 -1 0 10 1 50'/>"                                                 \
    "<FixedProjectiveConstraint mstate='@dof' name='fixC' indices='@ROI1.indices'/>"              \
    "<DiagonalMass name='mass' massDensity='1.0'/>"                                               \
    "<TetrahedronFEMForceField name='FEM' youngModulus='600' poissonRatio='0.3' method='" METHOD \
    "'/>"                                                                                         \
    "</Node></Node>"

/* SOFA: BaseTetrahedronFEMForceField_test, checkFEMValues (vertex 159 after
 * 100 steps, and the data of element 100). */
Test(fem, sofa_grid_beam_values)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_xml(&t, GRID_BEAM("large"));
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    cr_assert_eq(ms->n, 160);
    const double *p = ms->position.r + 3 * 159;
    near(p[0], 10, 1e-4, "x159"), near(p[1], 40, 1e-4, "y159"), near(p[2], 30, 1e-4, "z159");
    step(s, 100, 0.01);
    p = ms->position.r + 3 * 159;
    for (int c = 0; c < 3; c++)
        near(p[c], sofa_beam_tip[c], 1e-4, "vertex 159");
    tetra_fem *f = fem_of(s, "FEM");
    const tet *e = &f->e[100];
    for (int i = 0; i < 9; i++) {
        near(e->R0[i], sofa_beam_R0[i], 1e-4, "initial rotation");
        near(e->R[i], sofa_beam_R[i], 1e-4, "current rotation");
    }
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++)
            near(e->rest[k][c], sofa_beam_P[k][c], 1e-4, "rotated initial position");
    near(e->kd, sofa_beam_K[0], 1e-4, "K(0,0)");
    near(e->ko, sofa_beam_K[1], 1e-4, "K(0,1)");
    near(e->ks, sofa_beam_K[2], 1e-4, "K(3,3)");
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 6; j++)
            near(e->J[i][j], sofa_beam_J[i][j], 1e-4, "strain-displacement");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA: TetrahedronFEMForceField_stepTest: a regular tetrahedron (E 40,
 * nu 0, small) whose apex is lifted from z = 1 to z = 2. */
Test(fem, sofa_step_test_extension)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_xml(
        &t, "<Node name='Root' gravity='0 0 0' dt='0.5'>"
            "<DefaultAnimationLoop/><EulerExplicitSolver/>"
            "<MechanicalObject name='DOFs' position='0 0 0 1 0 0 0.5 0.86602540378443864676 0 "
            "0.5 0.288675134594812882254 1'/>"
            "<MeshTopology name='tetra' tetrahedra='0 1 2 3'/>"
            "<TetrahedronFEMForceField name='FEM' youngModulus='40' poissonRatio='0' "
            "method='small'/></Node>");
    st_component *ff = test_find_object(s, "FEM");
    st_system *sys = s->systems[0];
    double x[12] = {0, 0, 0, 1, 0, 0, 0.5, 0.8660254037, 0, 0.5, 0.28867513, 2};
    double v[12] = {0}, f[12] = {0};
    ff->cls->forcefield->add_force(ff, &sys->mp, f, x, v);
    double up = sqrt(3.) * 10.0 / 3.0, down = sqrt(3.) * 10.0 / 9.0;
    const double want[12] = {0, 0, down, 0, 0, down, 0, 0, down, 0, 0, -up};
    for (int i = 0; i < 12; i++)
        near(f[i], want[i], 1e-7, "force");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A unit cube of 3x3x3 grid vertices cut into tetrahedra by
 * Hexa2TetraTopologicalMapping (vertex 13 is the only interior one). */
#define CUBE(METHOD, EXTRA)                                                                       \
    "<Node name='root' gravity='0 0 0' dt='0.01'>"                                                \
    "<DefaultAnimationLoop/>"                                                                     \
    "<RegularGridTopology name='grid' n='3 3 3' min='0 0 0' max='1 1 1'/>"                        \
    "<Node name='Body'><EulerImplicitSolver/><SparseLDLSolver/>"                                  \
    "<MechanicalObject name='dof' position='@../grid.position'/>"                                 \
    "<TetrahedronSetTopologyContainer name='topo'/>"                                              \
    "<TetrahedronSetTopologyModifier/>"                                                           \
    "<Hexa2TetraTopologicalMapping input='@../grid' output='@topo'/>"                             \
    "<TetrahedronFEMForceField name='FEM' youngModulus='1000' poissonRatio='0.3' method='" METHOD \
    "' " EXTRA "/>"                                                                               \
    "</Node></Node>"

static void forces_at(st_component *ff, st_system *sys, const double *x, double *f)
{
    size_t n = 3 * sys->nall;
    double *v = calloc(n, sizeof *v);
    memset(f, 0, n * sizeof *f);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, x, v);
    free(v);
}

/* Patch test: u = A x + b on every vertex; the interior vertex feels no
 * force and every element carries the same (exact) stress. */
Test(fem, patch_test_small)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_xml(&t, CUBE("small", "computeVonMisesStress='2'"));
    tetra_fem *fem = fem_of(s, "FEM");
    st_system *sys = s->systems[0];
    cr_assert_eq(fem->ne, 48);
    const double A[9] = {1e-3, 2e-4, -3e-4, 5e-4, -2e-3, 1e-4, 0, 3e-4, 1.5e-3};
    const double b[3] = {0.1, -0.2, 0.05};
    size_t n = sys->nall;
    double *x = calloc(3 * n, sizeof *x), *f = calloc(3 * n, sizeof *f);
    double fmax = 0;
    for (size_t i = 0; i < n; i++) {
        const double *p = fem->initial_points.r + 3 * i;
        double u[3];
        fem_mulv3(u, A, p);
        for (int c = 0; c < 3; c++)
            x[3 * i + c] = p[c] + u[c] + b[c];
    }
    forces_at(&fem->base, sys, x, f);
    for (size_t i = 0; i < 3 * n; i++)
        fmax = fmax > fabs(f[i]) ? fmax : fabs(f[i]);
    cr_assert_gt(fmax, 1e-3, "boundary forces expected");
    for (int c = 0; c < 3; c++)
        cr_assert(fabs(f[3 * 13 + c]) <= 1e-12 * fmax, "interior residual %g (max force %g)",
                  f[3 * 13 + c], fmax);
    /* The von Mises stress of the Green strain of A, in every element. */
    memcpy(fem->ms->position.r, x, 3 * n * sizeof *x);
    st_error err = {0};
    cr_assert_eq(fem->base.cls->init(&fem->base, &err), ST_OK, "%s", err.msg);
    double E[9], lam = fem->e[0].lambda, mu = fem->e[0].mu, sg[9];
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++)
            E[3 * k + l] = 0.5 * (A[3 * k + l] + A[3 * l + k] + A[k] * A[l] + A[3 + k] * A[3 + l] +
                                  A[6 + k] * A[6 + l]);
    double tr = E[0] + E[4] + E[8];
    for (int i = 0; i < 9; i++)
        sg[i] = 2 * mu * E[i] + (i % 4 == 0 ? lam * tr : 0);
    double vm = sqrt(sg[0] * sg[0] + sg[4] * sg[4] + sg[8] * sg[8] - sg[0] * sg[4] -
                     sg[4] * sg[8] - sg[8] * sg[0] + 3 * (sg[1] * sg[1] + sg[2] * sg[2] +
                                                          sg[5] * sg[5]));
    cr_assert_eq(fem->von_mises_elem.n, 48);
    for (size_t i = 0; i < 48; i++)
        near(fem->von_mises_elem.r[i], vm, 1e-9 * vm, "von Mises per element");
    for (size_t i = 0; i < n; i++)
        near(fem->von_mises_node.r[i], vm, 1e-9 * vm, "von Mises per node");
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Rotation by Euler angles (radians) about z, y, x. */
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
    open_rt(&t);
    char xml[4096];
    snprintf(xml, sizeof xml, CUBE("%s", ""), method);
    st_scene *s = load_xml(&t, xml);
    tetra_fem *fem = fem_of(s, "FEM");
    st_system *sys = s->systems[0];
    size_t n = sys->nall;
    double *x = calloc(3 * n, sizeof *x), *f = calloc(3 * n, sizeof *f), R[9];
    rotation(R, 0.7, -1.1, 2.3);
    rigid_motion(fem->initial_points.r, x, n, R);
    forces_at(&fem->base, sys, x, f);
    for (size_t i = 0; i < 3 * n; i++)
        cr_assert(fabs(f[i]) <= 1e-12, "%s: force %g on a rigidly moved rest shape", method, f[i]);
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(fem, rigid_motion_large) { check_rigid("large"); }
Test(fem, rigid_motion_polar) { check_rigid("polar"); }
Test(fem, rigid_motion_svd) { check_rigid("svd"); }

static double rnd(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return ((*state >> 8) & 0xFFFF) / 32767.5 - 1.0;
}

/* force = -d energy / dx (central differences) at a deformed state. */
Test(fem, energy_consistency_small)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_xml(&t, CUBE("small", ""));
    tetra_fem *fem = fem_of(s, "FEM");
    st_system *sys = s->systems[0];
    const st_forcefield_ops *ops = fem->base.cls->forcefield;
    size_t n = 3 * sys->nall;
    double *x = calloc(n, sizeof *x), *f = calloc(n, sizeof *f);
    unsigned seed = 5;
    for (size_t i = 0; i < n; i++)
        x[i] = fem->initial_points.r[i] + 0.05 * rnd(&seed);
    forces_at(&fem->base, sys, x, f);
    cr_assert_gt(ops->potential_energy(&fem->base, &sys->mp, x), 0.0);
    double fmax = 0, emax = 0;
    for (size_t i = 0; i < n; i++) {
        double xi = x[i], h = 1e-6;
        x[i] = xi + h;
        double ep = ops->potential_energy(&fem->base, &sys->mp, x);
        x[i] = xi - h;
        double em = ops->potential_energy(&fem->base, &sys->mp, x);
        x[i] = xi;
        double d = -(ep - em) / (2 * h);
        fmax = fmax > fabs(f[i]) ? fmax : fabs(f[i]);
        emax = emax > fabs(d - f[i]) ? emax : fabs(d - f[i]);
    }
    cr_assert(emax <= 1e-6 * fmax, "max |f + dE/dx| = %g (max |f| = %g)", emax, fmax);
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA's corotational tangent R K R^T leaves out the derivative of R: at a
 * deformed state it differs from the exact Jacobian by a term of the order
 * of the local strain. Measures that difference (relative to |K|) for a
 * strain of about 1e-3; the exact agreement at rigidly moved states is
 * checked by test_jacobians. */
Test(fem, corotational_tangent_deviation)
{
    const char *methods[] = {"large", "polar", "svd"};
    for (int m = 0; m < 3; m++) {
        test_rt t;
        open_rt(&t);
        char xml[4096];
        snprintf(xml, sizeof xml, CUBE("%s", ""), methods[m]);
        st_scene *s = load_xml(&t, xml);
        tetra_fem *fem = fem_of(s, "FEM");
        st_system *sys = s->systems[0];
        const st_forcefield_ops *ops = fem->base.cls->forcefield;
        size_t n = 3 * sys->nall;
        double *x = calloc(n, sizeof *x), *fp = calloc(n, sizeof *fp), *fm = calloc(n, sizeof *fm);
        double *e = calloc(n, sizeof *e), *df = calloc(n, sizeof *df), R[9];
        rotation(R, 0.3, 0.2, -0.4);
        rigid_motion(fem->initial_points.r, x, sys->nall, R);
        unsigned seed = 9;
        for (size_t i = 0; i < n; i++)
            x[i] += 1e-3 * rnd(&seed);
        double kmax = 0, dmax = 0;
        for (size_t j = 0; j < n; j++) {
            double xj = x[j], h = 1e-7;
            x[j] = xj + h;
            forces_at(&fem->base, sys, x, fp);
            x[j] = xj - h;
            forces_at(&fem->base, sys, x, fm);
            x[j] = xj;
            forces_at(&fem->base, sys, x, df); /* the rotations at x */
            memset(e, 0, n * sizeof *e);
            memset(df, 0, n * sizeof *df);
            e[j] = 1;
            ops->add_dforce(&fem->base, &sys->mp, df, e, 1.0, 0.0);
            for (size_t i = 0; i < n; i++) {
                double fd = (fp[i] - fm[i]) / (2 * h);
                kmax = kmax > fabs(fd) ? kmax : fabs(fd);
                dmax = dmax > fabs(fd - df[i]) ? dmax : fabs(fd - df[i]);
            }
        }
        cr_log_info("%s: max |K_sofa - K_exact| / max |K| = %.3g at strain ~1e-3", methods[m],
                    dmax / kmax);
        cr_assert(dmax <= 2e-2 * kmax, "%s: tangent deviation %g of %g", methods[m], dmax, kmax);
        free(x), free(fp), free(fm), free(e), free(df);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* Plasticity: a strain held above the yield threshold creeps into the
 * plastic strain; the force then falls below the elastic one. */
Test(fem, plasticity_creeps)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_xml(&t, ONE_TETRA("small", "1000", "0.3"));
    st_component *ff = test_find_object(s, "FEM");
    tetra_fem *fem = (tetra_fem *)ff;
    st_system *sys = s->systems[0];
    double x[12] = {0, 0, 0, 1.01, 0, 0, 0, 1, 0, 0, 0, 1}, fe[12], fp[12];
    forces_at(ff, sys, x, fe);
    fem->plastic_max = 0.1;
    forces_at(ff, sys, x, fp);
    double strain = 0;
    for (int c = 0; c < 6; c++)
        strain += fem->e[0].plastic[c] * fem->e[0].plastic[c];
    cr_assert_gt(strain, 0.0);
    cr_assert_lt(fabs(fp[3]), fabs(fe[3]), "plastic force %g, elastic %g", fp[3], fe[3]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Hexa2TetraTopologicalMapping: SOFA's 6 tetrahedra of the first hexahedron,
 * without and with swapping (even x position: mirrored along x). */
Test(fem, hexa2tetra_ordering)
{
    const char *swaps[] = {"false", "true"};
    const unsigned want[2][24] = {
        {0, 5, 1, 7, 0, 1, 2, 7, 1, 2, 7, 3, 7, 2, 0, 6, 7, 6, 0, 5, 6, 5, 4, 0},
        {1, 4, 6, 0, 1, 0, 6, 3, 0, 3, 2, 6, 6, 3, 7, 1, 6, 7, 4, 1, 7, 4, 1, 5}};
    for (int k = 0; k < 2; k++) {
        test_rt t;
        open_rt(&t);
        char xml[2048];
        snprintf(xml, sizeof xml,
                 "<Node name='root'><DefaultAnimationLoop/>"
                 "<RegularGridTopology name='grid' n='2 2 2' min='0 0 0' max='1 1 1'/>"
                 "<Node name='T'><TetrahedronSetTopologyContainer name='topo'/>"
                 "<TetrahedronSetTopologyModifier/>"
                 "<Hexa2TetraTopologicalMapping input='@../grid' output='@topo' swapping='%s'/>"
                 "</Node></Node>",
                 swaps[k]);
        st_scene *s = load_xml(&t, xml);
        st_component *topo = test_find_object(s, "topo");
        const st_array *te = topo->cls->topology->elements(topo, ST_T_TETRAS);
        cr_assert_eq(te->n, 6);
        for (int i = 0; i < 24; i++)
            cr_assert_eq(te->u[i], want[k][i], "swapping=%s: index %d is %u, expected %u",
                         swaps[k], i, te->u[i], want[k][i]);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* A cantilever of length L and square section h, clamped at x = 0, under
 * its own weight; tetrahedra from an (m L/h) x m x m grid; method small;
 * EulerImplicitSolver with a huge time step and SparseLDLSolver reach the
 * static equilibrium. Returns the tip deflection (mean of the end face). */
static double cantilever_tip(int m, double L, double h, double E, double rho, double g)
{
    test_rt t;
    open_rt(&t);
    char xml[4096];
    int nl = (int)lround(m * L / h);
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 %g 0' dt='1000'>"
             "<DefaultAnimationLoop/>"
             "<RegularGridTopology name='grid' n='%d %d %d' min='0 0 0' max='%g %g %g'/>"
             "<Node name='Beam'><EulerImplicitSolver/><SparseLDLSolver/>"
             "<MechanicalObject name='dof' position='@../grid.position'/>"
             "<TetrahedronSetTopologyContainer name='topo'/><TetrahedronSetTopologyModifier/>"
             "<Hexa2TetraTopologicalMapping input='@../grid' output='@topo'/>"
             "<BoxROI name='clamp' box='-0.001 -1 -1 0.001 %g %g'/>"
             "<FixedProjectiveConstraint indices='@clamp.indices'/>"
             "<DiagonalMass massDensity='%g'/>"
             "<TetrahedronFEMForceField name='FEM' youngModulus='%g' poissonRatio='0' "
             "method='small'/></Node></Node>",
             -g, nl + 1, m + 1, m + 1, L, h, h, h + 1, h + 1, rho, E);
    st_scene *s = load_xml(&t, xml);
    step(s, 3, 1000);
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

Test(fem, cantilever_convergence, .timeout = 600)
{
    const double L = 10, h = 1, E = 1e6, rho = 1, g = 9.81;
    double I = h * h * h * h / 12, q = rho * g * h * h;
    double eb = -q * L * L * L * L / (8 * E * I);
    double err[3], tip[3];
    const int ms[3] = {2, 4, 8};
    for (int k = 0; k < 3; k++) {
        tip[k] = cantilever_tip(ms[k], L, h, E, rho, g);
        err[k] = fabs(tip[k] - eb) / fabs(eb);
        cr_log_info("cantilever h/%d: tip %.6g, Euler-Bernoulli %.6g, relative error %.4g",
                    ms[k], tip[k], eb, err[k]);
    }
    double r1 = log(err[0] / err[1]) / log(2.0), r2 = log(err[1] / err[2]) / log(2.0);
    cr_log_info("measured convergence rate: %.3g then %.3g", r1, r2);
    fprintf(stderr, "cantilever: errors %.4g %.4g %.4g, rates %.3g %.3g\n", err[0], err[1],
            err[2], r1, r2);
    cr_assert_lt(err[2], err[1]);
    cr_assert_lt(err[1], err[0]);
    cr_assert_gt(r2, 1.5, "second-order convergence expected, measured %g", r2);
}
