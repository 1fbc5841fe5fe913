/* test_lcp_force_feedback.c - LCPForceFeedback (Haptics), asked for the
 * device's force the way a driver does (lcp_force_feedback_compute and
 * _wrench; the component's source is compiled in), on a rigid cube of mass
 * 1 resting on a floor by its 4 lower corners (LCPConstraintSolver with
 * friction): at the free position the force is forceCoef times the
 * solver's multipliers carried to the cube (J^T lambda: the sum of the
 * normal multipliers along y, no torque); at the corrected position it is
 * (almost) zero; pushed into the floor the force
 * grows linearly while the contacts stay closed; lifted clear it is zero;
 * inactive it is zero; the wrench is the same computation; a solver other
 * than LCPConstraintSolver, no solver and a Vec3d state are refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plugins/Haptics/force_feedback.h"
#include "lagrangian_test_util.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(lcp_force_feedback, .init = setup, .fini = teardown);

static const double G = 9.81, H = 0.01, GAP = 0.01;

/* The cube on the floor; solver: the constraint solver line; ff: the
 * LCPForceFeedback line (or a comment); state: the cube's template. */
static char *cube_yaml(const char *solver, const char *ff)
{
    size_t size = 8192;
    char *y = malloc(size);
    const double gravity[3] = {0.0, -G, 0.0};
    int n = lag_contact_root(y, size, gravity, H, solver, 0.1, GAP,
                             "response: FrictionContactConstraint, responseParams: \"mu=0.4\"");
    double h = 0.5, I = 1.0 / 6.0;
    snprintf(y + n, size - (size_t)n,
             "    - name: Floor\n"
             "      objects:\n"
             "        - MechanicalObject: {position: [[-30, 0, -3], [30, 0, -3], [30, 0, 3],"
             " [-30, 0, 3]]}\n"
             "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
             "        - TriangleCollisionModel: {moving: false, simulated: false}\n"
             "    - name: Cube\n"
             "      objects:\n"
             "        - RequiredPlugin: {pluginName: Haptics}\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: cube, template: Rigid3d,"
             " position: [0, %.17g, 0, 0, 0, 0, 1]}\n"
             "        - UniformMass: {vertexMass: \"1 1  %.17g 0 0  0 %.17g 0  0 0 %.17g\"}\n"
             "        - UncoupledConstraintCorrection: {}\n"
             "        %s\n"
             "      children:\n"
             "        - name: Corners\n"
             "          objects:\n"
             "            - MechanicalObject: {name: corners, position: [[-%g, -%g, -%g],"
             " [%g, -%g, -%g], [%g, -%g, %g], [-%g, -%g, %g], [-%g, %g, -%g], [%g, %g, -%g],"
             " [%g, %g, %g], [-%g, %g, %g]]}\n"
             "            - PointCollisionModel: {}\n"
             "            - RigidMapping: {template: \"Rigid3d,Vec3d\", input: \"@../cube\","
             " output: \"@corners\", globalToLocalCoords: false}\n",
             h + GAP, I, I, I, ff, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h,
             h, h, h);
    return y;
}

#define LCP "LCPConstraintSolver: {name: cs, tolerance: 1e-14, maxIt: 1000, mu: 0.4," \
            " computeConstraintForces: true}"
#define FF(EXTRA) "- LCPForceFeedback: {name: ff, activate: true, forceCoef: 1," \
                  " solverMaxIt: 10000, solverTimeout: 10" EXTRA "}"

/* The cube's free position of the last step, as the force feedback kept it. */
static void free_position(st_component *ff, double x[7])
{
    size_t n = 0;
    const double *p = lcp_force_feedback_free_positions(ff, &n);
    cr_assert_eq(n, 1u, "free positions: %zu", n);
    memcpy(x, p, 7 * sizeof *x);
}

static void force_at(st_component *ff, const double x[7], double f[6])
{
    st_error err = {0};
    cr_assert_eq(lcp_force_feedback_compute(ff, x, 1, f, &err), ST_OK, "%s", err.msg);
}

Test(lcp_force_feedback, the_force_is_the_contacts_carried_to_the_device)
{
    char *y = cube_yaml(LCP, FF(""));
    st_scene *s = scene_load(&T, y);
    scene_steps(&T, s, 40);
    st_component *ff = scene_object(s, "ff");
    st_array *l = scene_field(s, "cs", "constraintForces");
    cr_assert_eq(l->n, 12u, "4 corners on the floor: %zu rows", l->n);
    double sum_n = 0.0;
    for (size_t r = 0; r < l->n; r += 3)
        sum_n += l->r[r];
    cr_assert_gt(sum_n, 0.0);
    double x[7], f[6];
    free_position(ff, x);
    /* the free motion sank the cube below where the contacts leave it */
    const double *xc = scene_state(s, "cube")->position.r;
    cr_assert_lt(x[1], xc[1], "free y %.17g, corrected %.17g", x[1], xc[1]);
    force_at(ff, x, f);
    /* normals along +y: J^T lambda's force is (0, sum of normals, 0) */
    cr_assert_leq(fabs(f[1] - sum_n), 1e-9 * sum_n, "fy %.17g, normals %.17g", f[1], sum_n);
    cr_assert_leq(fabs(f[0]) + fabs(f[2]), 1e-9 * sum_n, "fx %g fz %g", f[0], f[2]);
    cr_assert_leq(fabs(f[3]) + fabs(f[4]) + fabs(f[5]), 1e-9 * sum_n, "torque %g %g %g", f[3],
                  f[4], f[5]);
    /* pushed into the floor: more force, linear while the contacts hold */
    double p1[7], p2[7], f1[6], f2[6];
    memcpy(p1, x, sizeof p1);
    memcpy(p2, x, sizeof p2);
    p1[1] -= 1e-4, p2[1] -= 2e-4;
    force_at(ff, p1, f1);
    force_at(ff, p2, f2);
    double d1 = f1[1] - f[1], d2 = f2[1] - f[1];
    cr_assert_gt(d1, 0.0, "pushed: %.17g <= %.17g", f1[1], f[1]);
    cr_assert_leq(fabs(d2 - 2.0 * d1), 1e-6 * d2, "linear: %.17g vs 2 x %.17g", d2, d1);
    /* back at rest, from the pushed multipliers: the first force again */
    double f3[6];
    force_at(ff, x, f3);
    cr_assert_leq(fabs(f3[1] - f[1]), 1e-9 * sum_n, "back: %.17g vs %.17g", f3[1], f[1]);
    /* at the corrected position the contacts are already met: (almost)
     * no force, as SOFA's haptics test finds */
    double xcf[7], f5[6];
    memcpy(xcf, xc, sizeof xcf);
    force_at(ff, xcf, f5);
    cr_assert_leq(fabs(f5[1]), 1e-6 * sum_n, "at the corrected position: %.17g", f5[1]);
    /* lifted clear of the floor: no force */
    double up[7];
    memcpy(up, x, sizeof up);
    up[1] += 0.5;
    double f4[6];
    force_at(ff, up, f4);
    for (int k = 0; k < 6; k++)
        cr_assert_eq(f4[k], 0.0, "lifted: f[%d] = %g", k, f4[k]);
    /* the wrench: the same computation for the tool's pose */
    double force[3], torque[3];
    st_error err = {0};
    cr_assert_eq(lcp_force_feedback_wrench(ff, x, x + 3, force, torque, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_leq(fabs(force[1] - f[1]), 1e-9 * sum_n, "wrench %.17g vs %.17g", force[1], f[1]);
    st_scene_destroy(&s);
    free(y);
}

Test(lcp_force_feedback, coefficient_and_activation)
{
    char *y = cube_yaml(LCP, FF(""));
    st_scene *s = scene_load(&T, y);
    scene_steps(&T, s, 40);
    st_component *ff = scene_object(s, "ff");
    double x[7], f[6], g[6];
    free_position(ff, x);
    force_at(ff, x, f);
    st_error err = {0};
    cr_assert_eq(st_component_set(ff, "forceCoef", "0.03", &err), ST_OK);
    force_at(ff, x, g);
    cr_assert_leq(fabs(g[1] - 0.03 * f[1]), 1e-12, "coef: %.17g vs %.17g", g[1], 0.03 * f[1]);
    cr_assert_eq(st_component_set(ff, "activate", "false", &err), ST_OK);
    g[1] = 1.0;
    force_at(ff, x, g);
    for (int k = 0; k < 6; k++)
        cr_assert_eq(g[k], 0.0, "inactive: f[%d] = %g", k, g[k]);
    st_scene_destroy(&s);
    free(y);
}

Test(lcp_force_feedback, unsupported_setups_are_refused)
{
    char *y = cube_yaml("GenericConstraintSolver: {name: cs, tolerance: 1e-10}", FF(""));
    scene_refused(&T, y, "re-solves an LCPConstraintSolver's problem");
    free(y);
    /* no constraint solver at all: the default animation loop's scene */
    const char *none = "format: settee/1\n"
                       "root:\n"
                       "  objects:\n"
                       "    - RequiredPlugin: {pluginName: Haptics}\n"
                       "    - MechanicalObject: {template: Rigid3d}\n"
                       "    - LCPForceFeedback: {}\n";
    scene_refused(&T, none, "no binding ConstraintSolver");
    /* a Vec3d state: not one of the class's types */
    y = cube_yaml(LCP, "- LCPForceFeedback: {template: Vec3d}");
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_neq(scene_try_load(&T, y, &s, &err), ST_OK);
    cr_assert(strstr(err.msg, "Vec3d"), "%s", err.msg);
    st_scene_destroy(&s);
    free(y);
}
