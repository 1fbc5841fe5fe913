/* test_vector_springs.c - VectorSpringForceField (issue 30): springs with a
 * rest vector r. Worked forces F = ks (x2[b] - x1[a] - r) + kd (v2[b] - v1[a])
 * on both of SOFA's spring sources (the edges of a topology, rest vectors
 * from the rest positions; one spring (i, i) per point between two states),
 * add_dforce and the assembled K against finite differences (the SDK
 * check), no damping in the derivative (SOFA's), two states pulled together
 * by implicit Euler to the closed recursion, the same through CG and
 * SparseLDLSolver, and the refusals. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(vector_springs, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  dt: 0.01\n"                                                                                \
    "  gravity: [0, 0, 0]\n"                                                                      \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.ODESolver.Backward,"                      \
    " Sofa.Component.LinearSolver.Iterative, Sofa.Component.LinearSolver.Direct,"              \
    " Sofa.Component.Mass, Sofa.Component.SolidMechanics.Spring,"                             \
    " Sofa.Component.Topology.Container.Constant]}\n"                                          \
    "  children:\n"                                                                               \
    "    - name: P\n"                                                                             \
    "      objects:\n"                                                                            \
    "        - EulerImplicitSolver: {rayleighStiffness: 0, rayleighMass: 0}\n"                   \
    "        - %s\n"

static const char *CG = "CGLinearSolver: {iterations: 200, tolerance: 1e-20, threshold: 1e-30}";

static st_scene *scene_of(const char *solver, const char *body)
{
    static char yaml[8192];
    char head[4096];
    snprintf(head, sizeof head, HEAD, solver);
    snprintf(yaml, sizeof yaml, "%s%s", head, body);
    return topo_scene(&T, yaml);
}

/* f = add_force at the system's x, v (a fresh vector). */
static double *force_of(st_component *ff, st_system *sys)
{
    double *f = calloc(sys->size_all, sizeof *f);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x, sys->v);
    return f;
}

/* Edges (0,1), (1,2) of a 3-point chain; the state moved away from the
 * rest shape and given velocities. */
#define CHAIN                                                                                      \
    "        - MeshTopology: {position: [0,0,0, 1,0,0, 1,2,0], edges: [0,1, 1,2]}\n"              \
    "        - MechanicalObject: {name: dofs, position: [0,0,0, 1,0,0, 1,2,0],"                   \
    " velocity: [0,0,0, 0.5,0,0, 0,0,-1]}\n"                                                      \
    "        - UniformMass: {vertexMass: 1}\n"                                                     \
    "        - VectorSpringForceField: {name: vs, useTopology: true, stiffness: 10,"              \
    " viscosity: 0.5}\n"

Test(vector_springs, topology_springs_worked_force_and_jacobian)
{
    st_scene *s = scene_of(CG, CHAIN);
    st_component *ff = topo_get(s, "/P/vs");
    const st_array *sp = topo_arr(ff, "springs");
    cr_assert_eq(sp->n, 10u, "two springs of 5 values");
    const double want_sp[10] = {10, 0.5, 1, 0, 0, 10, 0.5, 0, 2, 0};
    for (int k = 0; k < 10; k++)
        cr_assert_eq(sp->r[k], want_sp[k], "springs[%d] = %g", k, sp->r[k]);
    st_mstate *ms = (st_mstate *)topo_get(s, "/P/dofs");
    st_system *sys = ms->system;
    /* move point 2 by (0.3, -0.1, 0.2) and point 0 by (0, 0.1, 0) */
    double *x = st_slice_x(sys->x, ms);
    x[6] += 0.3, x[7] -= 0.1, x[8] += 0.2;
    x[1] += 0.1;
    double *f = force_of(ff, sys);
    const double *fs = st_slice(f, ms);
    /* spring 0 (0,1): d = (1,-0.1,0) - (1,0,0) = (0,-0.1,0), dv = (0.5,0,0):
     *   F0 = 10 (0,-0.1,0) + 0.5 (0.5,0,0) = (0.25,-1,0)
     * spring 1 (1,2): d = (0.3,2-0.1,0.2) - (0,2,0) = (0.3,-0.1,0.2),
     *   dv = (-0.5,0,-1): F1 = (3,-1,2) + (-0.25,0,-0.5) = (2.75,-1,1.5)
     * f0 += F0, f1 += F1 - F0, f2 -= F1 */
    const double want[9] = {0.25, -1, 0, 2.5, 0, 1.5, -2.75, 1, -1.5};
    for (int k = 0; k < 9; k++)
        cr_assert_leq(fabs(fs[k] - want[k]), 1e-14, "f[%d] = %.17g, want %g", k, fs[k], want[k]);
    free(f);
    /* K against finite differences of the force, with the velocities at 0
     * (SOFA's derivative has no damping part) */
    memset(st_slice(sys->v, ms), 0, 9 * sizeof(double));
    st_jacobian_check chk = {.struct_size = sizeof chk};
    st_error err = {0};
    cr_assert_eq(st_check_forcefield(ff, &chk, &err), ST_OK, "%s", err.msg);
    cr_log_info("VectorSpringForceField: dforce %.3g, matrix %.3g, scale %g", chk.dforce_error,
                chk.matrix_error, chk.scale);
    cr_assert_gt(chk.scale, 19.0, "the middle point's -2 ks");
    cr_assert(chk.dforce_error >= 0 && chk.dforce_error <= 1e-8, "%.3g", chk.dforce_error);
    cr_assert(chk.matrix_error >= 0 && chk.matrix_error <= 1e-8, "%.3g", chk.matrix_error);
    /* no damping product: kfactor 0, bfactor 1 adds nothing */
    double *d = calloc(sys->size_all, sizeof *d), *df = calloc(sys->size_all, sizeof *df);
    for (size_t k = 0; k < sys->size; k++)
        d[k] = 1.0 + (double)k;
    ff->cls->forcefield->add_dforce(ff, &sys->mp, df, d, 0.0, 1.0);
    for (size_t k = 0; k < sys->size; k++)
        cr_assert_eq(df[k], 0.0, "SOFA's addDForce has no damping term");
    free(d), free(df);
    st_scene_destroy(&s);
}

/* One spring (i, i) per point between a (mass 1 each) and b (mass 3
 * each), r = 0: each pair's separation u = xb - xa follows, with implicit
 * Euler and kd = 0, the reduced mass mu = 3/4:
 *   (1 + h^2 ks / mu) dw = h (-ks u - h ks w) / mu,  w += dw,  u += h w. */
#define PAIRS                                                                                      \
    "        - MechanicalObject: {name: a, position: [0,0,0, 0,1,0]}\n"                           \
    "        - UniformMass: {vertexMass: 1}\n"                                                     \
    "        - VectorSpringForceField: {name: vs, object1: \"@a\", object2: \"@B/b\","            \
    " stiffness: 40, viscosity: 0}\n"                                                             \
    "      children:\n"                                                                            \
    "        - name: B\n"                                                                          \
    "          objects:\n"                                                                         \
    "            - MechanicalObject: {name: b, position: [1,0,0, 0,1,-0.5]}\n"                   \
    "            - UniformMass: {vertexMass: 3}\n"

static double pairs_run(const char *solver)
{
    st_scene *s = scene_of(solver, PAIRS);
    const st_mstate *a = (const st_mstate *)topo_get(s, "/P/a");
    const st_mstate *b = (const st_mstate *)topo_get(s, "/P/B/b");
    const double h = 0.01, ks = 40.0, mu = 0.75;
    double u = 1.0, w = 0.0;
    st_error err = {0};
    for (int n = 0; n < 50; n++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        double dw = h * (-ks * u - h * ks * w) / mu / (1 + h * h * ks / mu);
        w += dw;
        u += h * w;
    }
    double got = b->position.r[0] - a->position.r[0];
    double got2 = b->position.r[5] - a->position.r[5];
    cr_log_info("%s: separation %.17g, recursion %.17g", solver, got, u);
    cr_assert_leq(fabs(got - u), 1e-10, "%s: %.17g, want %.17g", solver, got, u);
    cr_assert_leq(fabs(got2 + 0.5 * u), 1e-10, "second pair: %.17g", got2);
    cr_assert_leq(fabs(a->position.r[0] + 3 * b->position.r[0] - 3.0), 1e-10,
                  "the centre of mass stays");
    st_scene_destroy(&s);
    return got;
}

Test(vector_springs, pairs_of_points_cg_and_direct)
{
    double ucg = pairs_run(CG), uldl = pairs_run("SparseLDLSolver: {}");
    cr_assert_lt(ucg, 0.9, "the pair came closer");
    cr_assert_leq(fabs(ucg - uldl), 1e-12, "CG %.17g, LDL %.17g", ucg, uldl);
}

Test(vector_springs, pairs_jacobian_across_two_states)
{
    st_scene *s = scene_of(CG, PAIRS);
    st_component *ff = topo_get(s, "/P/vs");
    const st_array *sp = topo_arr(ff, "springs");
    cr_assert_eq(sp->n, 10u);
    cr_assert_eq(sp->r[0], 40.0);
    cr_assert_eq(sp->r[2] + sp->r[3] + sp->r[4], 0.0, "rest vector 0");
    st_jacobian_check chk = {.struct_size = sizeof chk};
    st_error err = {0};
    cr_assert_eq(st_check_forcefield(ff, &chk, &err), ST_OK, "%s", err.msg);
    cr_assert_gt(chk.scale, 39.0);
    cr_assert(chk.dforce_error >= 0 && chk.dforce_error <= 1e-8, "%.3g", chk.dforce_error);
    cr_assert(chk.matrix_error >= 0 && chk.matrix_error <= 1e-8, "%.3g", chk.matrix_error);
    st_scene_destroy(&s);
}

Test(vector_springs, refusals)
{
    st_error err = {0};
    char yaml[8192], head[4096];
    snprintf(head, sizeof head, HEAD, CG);
    snprintf(yaml, sizeof yaml,
             "%s        - MechanicalObject: {name: a, position: [0,0,0]}\n"
             "        - VectorSpringForceField: {useTopology: true}\n",
             head);
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "No topology component found"), "%s", err.msg);
    snprintf(yaml, sizeof yaml,
             "%s        - MechanicalObject: {name: a, position: [0,0,0]}\n"
             "        - VectorSpringForceField: {filename: springs.xs3}\n",
             head);
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "Xsp spring files are not read"), "%s", err.msg);
    snprintf(yaml, sizeof yaml,
             "%s        - MechanicalObject: {name: a, position: [0,0,0, 1,1,1]}\n"
             "        - VectorSpringForceField: {object2: \"@B/b\"}\n"
             "      children:\n"
             "        - name: B\n"
             "          objects:\n"
             "            - MechanicalObject: {name: b, position: [0,0,0]}\n",
             head);
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "only 1"), "%s", err.msg);
}
