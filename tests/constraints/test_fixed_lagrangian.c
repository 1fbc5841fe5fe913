/* test_fixed_lagrangian.c - FixedLagrangianConstraint:
 *   - Vec3d: of two free-falling particles, the fixed one stays at its rest
 *     position with zero velocity; the other falls as implicit Euler says,
 *     y_n = y_0 - g h^2 n (n + 1) / 2;
 *   - Rigid3d: its violation is the centre's offset and SOFA's Euler angles
 *     of q q_rest^-1 (worked values); a spinning, falling body stays put
 *     while an unconstrained twin turns and falls;
 *   - Vec1d with fixAll fixes every point; an index out of range is an error
 *     naming the field. */
#include <criterion/criterion.h>
#include <math.h>

#include "lagrangian_test_util.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(fixed_lagrangian, .init = setup, .fini = teardown);

#define G 10.0
#define H 0.01

Test(fixed_lagrangian, vec3_point_held_other_falls_freely)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             LAG_HEADER
             "    - FreeMotionAnimationLoop: {}\n"
             "    - GenericConstraintSolver: {tolerance: 1e-14, maxIterations: 100}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {name: ode}\n"
             "        - SparseLDLSolver: {name: ls}\n"
             "        - MechanicalObject: {name: dofs, position: [[0, 1, 0], [2, 1, 0]]}\n"
             "        - UniformMass: {vertexMass: 2}\n"
             "        - FixedLagrangianConstraint: {indices: [0]}\n"
             "        - LinearSolverConstraintCorrection: {}\n",
             -G, H);
    st_scene *s = scene_load(&T, yaml);
    const int n = 20;
    scene_steps(&T, s, n);
    st_mstate *ms = scene_state(s, "dofs");
    const double *x = ms->position.p, *v = ms->velocity.p;
    cr_assert_leq(fabs(x[0]) + fabs(x[1] - 1.0) + fabs(x[2]), 1e-12, "held point at %g %g %g",
                  x[0], x[1], x[2]);
    cr_assert_leq(fabs(v[0]) + fabs(v[1]) + fabs(v[2]), 1e-10, "held point moves: %g", v[1]);
    double y = 1.0 - G * H * H * n * (n + 1) / 2.0;
    cr_assert_leq(fabs(x[4] - y), 1e-12, "free point y %.17g, implicit Euler %.17g", x[4], y);
    cr_assert_leq(fabs(v[4] + G * H * n), 1e-12);
    st_scene_destroy(&s);
}

/* The build callback's rows and violations at a given pose. */
static void rigid_violation(const char *position, const char *rest, double out[6])
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             LAG_HEADER
             "    - MechanicalObject: {name: dofs, template: Rigid3d, position: \"%s\",\n"
             "                         rest_position: \"%s\"}\n"
             "    - FixedLagrangianConstraint: {name: fix, indices: [0]}\n",
             0.0, H, position, rest);
    st_scene *s = scene_load(&T, yaml);
    st_component *c = scene_object(s, "fix");
    size_t rows = 0, terms = 0;
    c->cls->constraint->size(c, &rows, &terms);
    cr_assert_eq(rows, 6u);
    cr_assert_eq(terms, 6u);
    size_t row_end[6];
    st_cterm t[6];
    st_cjacobian J = {0, 0, row_end, t, 6, 6, ST_CORDER_POS_AND_VEL};
    st_error err = {0};
    cr_assert_eq(c->cls->constraint->build(c, &J, out, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(J.nrows, 6u);
    for (size_t r = 0; r < 6; r++) {
        cr_assert_eq(row_end[r], r + 1);
        for (size_t k = 0; k < 6; k++)
            cr_assert_eq(t[r].d[k], k == r ? 1.0 : 0.0, "J(%zu, %zu)", r, k);
    }
    st_scene_destroy(&s);
}

Test(fixed_lagrangian, rigid_violation_is_offset_and_euler_angles)
{
    double v[6];
    /* Rest turned 0.5 about z, pose turned 0.8 about z and moved: the
     * difference is 0.3 about z. */
    rigid_violation("1 2 3 0 0 0.38941834230865052 0.92106099400288510",
                    "0.5 2 2.75 0 0 0.24740395925452294 0.96891242171064473", v);
    const double want[6] = {0.5, 0.0, 0.25, 0.0, 0.0, 0.3};
    for (int k = 0; k < 6; k++)
        cr_assert_leq(fabs(v[k] - want[k]), 1e-12, "violation %d: %.17g, want %g", k, v[k],
                      want[k]);
    /* A turn of 0.25 about y from the identity: pitch 0.25. */
    rigid_violation("0 0 0 0 0.12467473338522769 0 0.99219766722932900", "0 0 0 0 0 0 1", v);
    cr_assert_leq(fabs(v[3]) + fabs(v[5]), 1e-12);
    cr_assert_leq(fabs(v[4] - 0.25), 1e-12, "pitch %.17g", v[4]);
}

/* A rigid body spinning about z and falling, its rest pose the start. */
static void spin(bool fixed, double x[7])
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             LAG_HEADER
             "    - FreeMotionAnimationLoop: {}\n"
             "    - GenericConstraintSolver: {tolerance: 1e-14, maxIterations: 100}\n"
             "  children:\n"
             "    - name: B\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {name: ode}\n"
             "        - SparseLDLSolver: {name: ls}\n"
             "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"
             "            position: \"0 1 0 0 0 0 1\", velocity: \"0.5 0 0 0.2 0.1 2\"}\n"
             "        - UniformMass: {vertexMass: \"2 1 0.5 0 0 0 0.5 0 0 0 0.5\"}\n"
             "%s"
             "        - LinearSolverConstraintCorrection: {}\n",
             -G, H, fixed ? "        - FixedLagrangianConstraint: {indices: [0]}\n" : "");
    st_scene *s = scene_load(&T, yaml);
    scene_steps(&T, s, 20);
    memcpy(x, scene_state(s, "dofs")->position.p, 7 * sizeof *x);
    st_scene_destroy(&s);
}

Test(fixed_lagrangian, rigid_body_held_in_place_and_orientation)
{
    double held[7], free_[7];
    spin(true, held);
    spin(false, free_);
    const double rest[7] = {0, 1, 0, 0, 0, 0, 1};
    double dc = 0, dq = 0;
    for (int k = 0; k < 3; k++)
        dc = fmax(dc, fabs(held[k] - rest[k]));
    for (int k = 3; k < 7; k++)
        dq = fmax(dq, fabs(held[k] - rest[k]));
    cr_log_info("held: centre off by %.3g, quaternion by %.3g; free z turn %.3g", dc, dq,
                free_[5]);
    cr_assert_leq(dc, 1e-12, "centre moved by %g", dc);
    /* The Euler-angle violation is exact to first order; the second-order
     * rest of each step is taken back by the next one's. */
    cr_assert_leq(dq, 1e-10, "orientation moved by %g", dq);
    cr_assert_gt(fabs(free_[5]), 0.1, "the free twin turns: qz %g", free_[5]);
    cr_assert_lt(free_[1], 0.9, "the free twin falls: y %g", free_[1]);
}

Test(fixed_lagrangian, vec1_fix_all_and_bad_index)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             LAG_HEADER
             "    - FreeMotionAnimationLoop: {}\n"
             "    - GenericConstraintSolver: {tolerance: 1e-14}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {name: ode}\n"
             "        - SparseLDLSolver: {name: ls}\n"
             "        - MechanicalObject: {name: dofs, template: Vec1d, position: [1, 2, 3],\n"
             "                             velocity: [1, -1, 2]}\n"
             "        - UniformMass: {vertexMass: 1}\n"
             "        - %s\n"
             "        - LinearSolverConstraintCorrection: {}\n",
             -G, H, "FixedLagrangianConstraint: {fixAll: true}");
    st_scene *s = scene_load(&T, yaml);
    scene_steps(&T, s, 5);
    const double *x = scene_state(s, "dofs")->position.p;
    for (int i = 0; i < 3; i++)
        cr_assert_leq(fabs(x[i] - (double)(i + 1)), 1e-12, "point %d at %.17g", i, x[i]);
    st_scene_destroy(&s);

    snprintf(yaml, sizeof yaml,
             LAG_HEADER
             "    - MechanicalObject: {name: dofs, position: [[0, 0, 0], [1, 0, 0]]}\n"
             "    - FixedLagrangianConstraint: {indices: [0, 2]}\n",
             -G, H);
    st_error err = scene_refused(&T, yaml, "index 2 is out of range: 'dofs' has 2 points");
    cr_assert(strstr(err.where, "test.yaml:") || err.where[0], "%s", err.where);
}
