/* test_lagrangian.c - Lagrangian constraints: FreeMotionAnimationLoop,
 * GenericConstraintSolver / BlockGaussSeidelConstraintSolver,
 * UncoupledConstraintCorrection, LinearSolverConstraintCorrection,
 * BilateralLagrangianConstraint. Closed forms: a point held at a fixed
 * offset from a pivot (lambda = -m v_free, the impulse), the projected
 * Gauss-Seidel against a dense solve of W lambda = -dfree, a solve stopped
 * by maxIterations, and FreeMotionAnimationLoop without constraints against
 * DefaultAnimationLoop bit for bit. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lagrangian_test_util.h"

static const double M = 2.0, H = 0.01, G = 9.81;

/* The pendulum (lagrangian_test_util.h): a particle of mass M (its 2) held
 * at (1 0 0) from a pivot, starting with velocity (0 0 0.5). */
static void pendulum_yaml(char *buf, size_t size, const char *correction, const char *linsolver)
{
    lag_pendulum_yaml(buf, size, G, H, 1e-9, correction, linsolver);
}

/* Runs the pendulum 10,000 steps: the length stays 1 to the solver's
 * tolerance, and lambda is the impulse that cancels the free motion:
 * first step -M v_free with v_free = (0, -h g, 0.5), then (0, M h g, 0). */
static void run_pendulum(const char *correction, const char *linsolver, double *final_x)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    pendulum_yaml(yaml, sizeof yaml, correction, linsolver);
    st_scene *s = scene_load(&t, yaml);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    st_array *lam = scene_field(s, "csolver", "constraintForces");
    double worst = 0.0;
    for (int n = 0; n < 10000; n++) {
        scene_steps(&t, s, 1);
        const double *x = ms->position.p;
        double len = sqrt(x[0] * x[0] + (x[1] - 2.0) * (x[1] - 2.0) + x[2] * x[2]);
        if (fabs(len - 1.0) > worst)
            worst = fabs(len - 1.0);
        cr_assert_eq(lam->n, 3u);
        const double *l = lam->p;
        if (n == 0) {
            cr_assert_float_eq(l[0], 0.0, 1e-12);
            cr_assert_float_eq(l[1], M * H * G, 1e-12, "lambda_y %.17g", l[1]);
            cr_assert_float_eq(l[2], -M * 0.5, 1e-12, "lambda_z %.17g", l[2]);
        } else {
            cr_assert_float_eq(l[1], M * H * G, 1e-9, "step %d lambda_y %.17g", n, l[1]);
            cr_assert_float_eq(l[2], 0.0, 1e-9, "step %d lambda_z %.17g", n, l[2]);
        }
    }
    cr_assert_lt(worst, 1e-9, "length drift %g", worst);
    const double *v = ms->velocity.p;
    cr_assert_lt(fabs(v[0]) + fabs(v[1]) + fabs(v[2]), 1e-9);
    memcpy(final_x, ms->position.p, 3 * sizeof(double));
    cr_assert_eq(*(int *)scene_field(s, "csolver", "currentNumConstraints"), 3);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(lagrangian, pendulum_uncoupled_and_linear_solver_corrections)
{
    double xu[3], xl[3];
    char unc[128];
    snprintf(unc, sizeof unc, "UncoupledConstraintCorrection: {compliance: [%.17g]}", 1.0 / M);
    run_pendulum(unc, "CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}",
                 xu);
    run_pendulum("LinearSolverConstraintCorrection: {}",
                 "SparseLDLSolver: {template: CompressedRowSparseMatrixMat3x3d}", xl);
    for (int k = 0; k < 3; k++)
        cr_assert_float_eq(xu[k], xl[k], 1e-12);
    /* Through an iterative linear solver too. */
    run_pendulum("LinearSolverConstraintCorrection: {}",
                 "CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}", xl);
    for (int k = 0; k < 3; k++)
        cr_assert_float_eq(xu[k], xl[k], 1e-12);
    cr_assert_float_eq(xu[0], 1.0, 1e-9);
    cr_assert_float_eq(xu[1], 2.0, 1e-9);
    /* wire_optimization reorders only SOFA's unbuilt Gauss-Seidel sequence:
     * with a built solver the run is the same to the last bit. */
    double xw[3];
    run_pendulum("LinearSolverConstraintCorrection: {wire_optimization: true}",
                 "CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}", xw);
    cr_assert_eq(memcmp(xw, xl, sizeof xw), 0);
}

/* The chain (lagrangian_test_util.h) moving, the B-C constraint under its
 * alias BilateralInteractionConstraint, solved by BlockGaussSeidel with the
 * solver_extra settings. */
static const double CHAIN_X[6] = {1.1, 0.2, 0, 2, -0.1, 0.3};
static const double CHAIN_V[6] = {0, 1, 0.3, 0.2, -0.5, 0};

static void chain_yaml(char *buf, size_t size, const char *solver_extra)
{
    char solver[256];
    snprintf(solver, sizeof solver,
             "BlockGaussSeidelConstraintSolver: {name: csolver, computeConstraintForces: true, "
             "%s}",
             solver_extra);
    lag_chain_yaml(buf, size, G, H, solver, "BilateralInteractionConstraint", CHAIN_X, CHAIN_V);
}

Test(lagrangian, gauss_seidel_equals_dense_solve)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    chain_yaml(yaml, sizeof yaml, "maxIterations: 100000, tolerance: 1e-15");
    st_scene *s = scene_load(&t, yaml);
    scene_steps(&t, s, 1);
    double W[36], lam[6];
    lag_chain_problem(G, H, CHAIN_X, CHAIN_V, W, lam);
    for (int i = 0; i < 6; i++)
        lam[i] = -lam[i];
    /* LAPACK is column-major; W is symmetric. */
    cr_assert_eq(test_dense_solve(6, W, lam), 0);
    st_array *cf = scene_field(s, "csolver", "constraintForces");
    cr_assert_eq(cf->n, 6u);
    const double *l = cf->p;
    for (int i = 0; i < 6; i++)
        cr_assert_float_eq(l[i], lam[i], 1e-9 * (1.0 + fabs(lam[i])), "row %d: %.17g vs %.17g",
                           i, l[i], lam[i]);
    int it = *(int *)scene_field(s, "csolver", "currentIterations");
    cr_assert_gt(it, 2, "a coupled chain needs several sweeps (%d)", it);
    cr_assert_lt(it, 100001);
    /* The corrected chain satisfies both constraints to the tolerance. */
    const double *x = ((st_mstate *)test_find_object(s, "dofs"))->position.p;
    cr_assert_float_eq(x[0], 1.0, 1e-9);
    cr_assert_float_eq(x[1], 0.0, 1e-9);
    cr_assert_float_eq(x[3] - x[0], 1.0, 1e-9);
    cr_assert_float_eq(x[4] - x[1], 0.0, 1e-9);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(lagrangian, max_iterations_reached_is_reported)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    chain_yaml(yaml, sizeof yaml, "maxIterations: 2, tolerance: 1e-12");
    st_scene *s = scene_load(&t, yaml);
    scene_steps(&t, s, 1);
    /* SOFA's result_output reports the iterations done plus one. */
    cr_assert_eq(*(int *)scene_field(s, "csolver", "currentIterations"), 3);
    double e = *(double *)scene_field(s, "csolver", "currentError");
    cr_assert_gt(e, 6e-12, "error %g", e);
    cr_assert(strstr(t.log, "warning|") && strstr(t.log, "no convergence after 2 iterations"),
              "log:\n%s", t.log);
    /* A run of unconverged steps is reported once, the outputs every step. */
    scene_steps(&t, s, 2);
    cr_assert_eq(*(int *)scene_field(s, "csolver", "currentIterations"), 3);
    const char *first = strstr(t.log, "no convergence");
    cr_assert_null(strstr(first + 1, "no convergence"), "log:\n%s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(lagrangian, free_motion_without_constraints_is_default_loop)
{
    char yaml[4096];
    double xs[2][9], vs[2][9];
    const char *loops[2] = {"DefaultAnimationLoop: {}",
                            "FreeMotionAnimationLoop: {}\n    - GenericConstraintSolver: {}"};
    for (int k = 0; k < 2; k++) {
        test_rt t;
        test_rt_open(&t);
        lag_spring_yaml(yaml, sizeof yaml, loops[k], 0.01, 1e-9, 1e-9);
        st_scene *s = scene_load(&t, yaml);
        scene_steps(&t, s, 300);
        st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
        memcpy(xs[k], ms->position.p, sizeof xs[k]);
        memcpy(vs[k], ms->velocity.p, sizeof vs[k]);
        if (k == 1)
            cr_assert_eq(
                *(int *)scene_field(s, "GenericConstraintSolver1", "currentNumConstraints"), 0);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
    cr_assert_eq(memcmp(xs[0], xs[1], sizeof xs[0]), 0, "positions differ");
    cr_assert_eq(memcmp(vs[0], vs[1], sizeof vs[0]), 0, "velocities differ");
    cr_assert_gt(fabs(xs[0][4]), 1e-3, "the chain moved");
}

Test(lagrangian, unimplemented_settings_are_refused)
{
    const char *bad[][2] = {
        {"GenericConstraintSolver: {resolutionMethod: Jacobi}", "resolutionMethod"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        test_rt t;
        test_rt_open(&t);
        char yaml[2048];
        snprintf(yaml, sizeof yaml,
                 "format: settee/1\n"
                 "root:\n"
                 "  name: root\n"
                 "  objects:\n"
                 "    - RequiredPlugin: {pluginName: [Constraint.Lagrangian.Solver]}\n"
                 "    - %s\n",
                 bad[i][0]);
        st_scene *s = NULL;
        st_error err = {0};
        cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
        cr_assert_neq(st_scene_init(s, &err), ST_OK, "%s accepted", bad[i][0]);
        cr_assert(strstr(err.msg, bad[i][1]), "%s", err.msg);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* After the first step has sized the constraint problem, steps allocate
 * nothing (both corrections, the solver, the loop). */
Test(lagrangian, steps_do_not_allocate)
{
    char yaml[4096];
    for (int k = 0; k < 2; k++) {
        test_rt t;
        test_rt_open(&t);
        if (k == 0)
            chain_yaml(yaml, sizeof yaml, "maxIterations: 100000, tolerance: 1e-12");
        else
            pendulum_yaml(yaml, sizeof yaml, "LinearSolverConstraintCorrection: {}",
                          "SparseLDLSolver: {template: CompressedRowSparseMatrixMat3x3d}");
        st_scene *s = scene_load(&t, yaml);
        scene_steps(&t, s, 2);
        scene_steps_allocate_nothing(&t, s, 20, yaml);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* Rigid3d: UncoupledConstraintCorrection's compliance computed from the
 * UniformMass (1/m and (m I)^-1) equals LinearSolverConstraintCorrection's
 * h J M^-1 J^T through SparseLDLSolver (A = M: no force field), and both
 * corrections move the body by the same dx. */
Test(lagrangian, rigid_uncoupled_compliance_from_mass)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: %.17g\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Mass,\n"
             "        Constraint.Lagrangian.Solver, Constraint.Lagrangian.Correction]}\n"
             "    - FreeMotionAnimationLoop: {}\n"
             "    - GenericConstraintSolver: {}\n"
             "  children:\n"
             "    - name: Body\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - SparseLDLSolver: {}\n"
             "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"
             "                             position: [1, 0, 0, 0, 0, 0, 1]}\n"
             "        - UniformMass: {vertexMass: \"2 1  3 0.5 0  0.5 2 0  0 0 1\"}\n"
             "        - UncoupledConstraintCorrection: {name: unc}\n"
             "        - LinearSolverConstraintCorrection: {name: lsc}\n",
             H);
    st_scene *s = scene_load(&t, yaml);
    scene_steps(&t, s, 1); /* the linear solver holds A = M */
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    st_cterm terms[2];
    size_t row_end[2];
    st_cjacobian J = {0, 0, row_end, terms, 2, 2};
    const double n0[6] = {1, 0, 0, 0.3, -0.2, 0.5}, n1[6] = {0, 1, 0.5, 0.1, 0.4, -0.3};
    st_cjac_row(&J);
    st_cjac_add(&J, ms, 0, n0, 6);
    st_cjac_row(&J);
    st_cjac_add(&J, ms, 0, n1, 6);
    st_component *unc = test_find_object(s, "unc"), *lsc = test_find_object(s, "lsc");
    double Wu[4] = {0}, Wl[4] = {0};
    st_error err = {0};
    cr_assert_eq(unc->cls->constraint_correction->add_compliance(unc, &J, Wu, 2, &err), ST_OK);
    cr_assert_eq(lsc->cls->constraint_correction->add_compliance(lsc, &J, Wl, 2, &err), ST_OK,
                 "%s", err.msg);
    for (int i = 0; i < 4; i++)
        cr_assert_float_eq(Wu[i], Wl[i], 1e-12, "W[%d]: %.17g vs %.17g", i, Wu[i], Wl[i]);
    /* Translation alone would give h / m; the rotation adds to it. */
    cr_assert_gt(Wu[0], H / 2.0 + 1e-6);
    cr_assert_float_eq(Wu[1], Wu[2], 1e-15);
    /* The same corrective motion from both. */
    const double lambda[2] = {0.7, -0.4};
    double x0[7], xu[7], vu[6];
    memcpy(x0, ms->position.p, sizeof x0);
    cr_assert_eq(unc->cls->constraint_correction->apply_correction(unc, &J, lambda, &err), ST_OK);
    memcpy(xu, ms->position.p, sizeof xu);
    memcpy(vu, ms->velocity.p, sizeof vu);
    memcpy(ms->position.p, x0, sizeof x0);
    memset(ms->velocity.p, 0, sizeof vu);
    cr_assert_eq(lsc->cls->constraint_correction->apply_correction(lsc, &J, lambda, &err), ST_OK);
    const double *xl = ms->position.p, *vl = ms->velocity.p;
    for (int i = 0; i < 7; i++)
        cr_assert_float_eq(xu[i], xl[i], 1e-12, "x[%d]", i);
    for (int i = 0; i < 6; i++)
        cr_assert_float_eq(vu[i], vl[i], 1e-12, "v[%d]", i);
    cr_assert_gt(fabs(vu[0]), 0.1, "the body was corrected");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A bilateral constraint between a fixed point (FixedProjectiveConstraint)
 * and a free one of the same state: J's column on the fixed point is
 * projected out, so W = h c1 I, the fixed point does not move and the free
 * one ends exactly at rest_vector from it: lambda = -(x1_free - x0 - r) / (h c1). */
Test(lagrangian, projective_constraints_project_the_jacobian)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             LAG_ROOT
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative,\n"
             "        Mass, Constraint.Projective, Constraint.Lagrangian.Solver,\n"
             "        Constraint.Lagrangian.Correction, Constraint.Lagrangian.Model]}\n"
             "    - FreeMotionAnimationLoop: {}\n"
             "    - GenericConstraintSolver: {name: csolver, computeConstraintForces: true,\n"
             "                                tolerance: 1e-12}\n"
             "  children:\n"
             "    - name: Body\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0.1, 0],\n"
             "                             velocity: [0, 0, 0, 0, 0, 1]}\n"
             "        - UniformMass: {vertexMass: 1}\n"
             "        - FixedProjectiveConstraint: {indices: [0]}\n"
             "        - UncoupledConstraintCorrection: {compliance: [1, 0.5]}\n"
             "        - BilateralLagrangianConstraint: {first_point: [0], second_point: [1],\n"
             "                                          rest_vector: [[1, 0, 0]]}\n",
             -G, H);
    st_scene *s = scene_load(&t, yaml);
    scene_steps(&t, s, 1);
    const double *x = ((st_mstate *)test_find_object(s, "dofs"))->position.p;
    for (int k = 0; k < 3; k++)
        cr_assert_eq(x[k], 0.0, "fixed point moved: x[%d] = %g", k, x[k]);
    cr_assert_float_eq(x[3], 1.0, 1e-12);
    cr_assert_float_eq(x[4], 0.0, 1e-12);
    cr_assert_float_eq(x[5], 0.0, 1e-12);
    /* x1_free = (1, 0.1 - h^2 g, h); W = h * 0.5 I. */
    const double *l = ((st_array *)scene_field(s, "csolver", "constraintForces"))->p;
    cr_assert_float_eq(l[0], 0.0, 1e-12);
    cr_assert_float_eq(l[1], -(0.1 - H * H * G) / (H * 0.5), 1e-9, "%.17g", l[1]);
    cr_assert_float_eq(l[2], -H / (H * 0.5), 1e-9, "%.17g", l[2]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Bad values: a clear error naming the field, never a crash. */
Test(lagrangian, bad_values_are_errors)
{
    const char *bad[][2] = {
        {"UncoupledConstraintCorrection: {compliance: [1, 0]}", "compliance"},
        {"UncoupledConstraintCorrection: {defaultCompliance: 0}", "defaultCompliance"},
        {"BilateralLagrangianConstraint: {first_point: [0], second_point: [5]}", "out of range"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        test_rt t;
        test_rt_open(&t);
        char yaml[2048];
        snprintf(yaml, sizeof yaml,
                 LAG_ROOT
                 "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative,\n"
                 "        Mass, Constraint.Lagrangian.Solver, Constraint.Lagrangian.Correction,\n"
                 "        Constraint.Lagrangian.Model]}\n"
                 "    - FreeMotionAnimationLoop: {}\n"
                 "    - GenericConstraintSolver: {}\n"
                 "  children:\n"
                 "    - name: Body\n"
                 "      objects:\n"
                 "        - EulerImplicitSolver: {}\n"
                 "        - CGLinearSolver: {}\n"
                 "        - MechanicalObject: {position: [0, 0, 0, 1, 0, 0]}\n"
                 "        - UniformMass: {vertexMass: 1}\n"
                 "        - %s\n",
                 -G, H, bad[i][0]);
        st_scene *s = NULL;
        st_error err = {0};
        cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
        cr_assert_neq(st_scene_init(s, &err), ST_OK, "%s accepted", bad[i][0]);
        cr_assert(strstr(err.msg, bad[i][1]), "%s: %s", bad[i][0], err.msg);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* A compound pendulum: a rigid body (centre 1 m from the pivot) whose tip,
 * a point mapped by RigidMapping, is held at the pivot by a bilateral
 * constraint. The rows on the mapped tip reach the body through the
 * mapping's J^T; UncoupledConstraintCorrection takes the body's compliance
 * from its UniformMass. The body swings down while the tip stays at the
 * pivot and the centre stays 1 m from it over 10,000 steps (to round-off:
 * 4e-11 over the first 500). */
Test(lagrangian, compound_pendulum_through_rigid_mapping)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             LAG_ROOT
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Mass,\n"
             "        Mapping.NonLinear, Constraint.Lagrangian.Solver,\n"
             "        Constraint.Lagrangian.Correction, Constraint.Lagrangian.Model]}\n"
             "    - FreeMotionAnimationLoop: {}\n"
             "    - GenericConstraintSolver: {name: csolver, tolerance: 1e-12}\n"
             "    - BilateralLagrangianConstraint: {object1: '@Pivot/pivot',\n"
             "        object2: '@Body/Tip/tip', first_point: [0], second_point: [0]}\n"
             "  children:\n"
             "    - name: Pivot\n"
             "      objects:\n"
             "        - MechanicalObject: {name: pivot, position: [0, 0, 0]}\n"
             "    - name: Body\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - SparseLDLSolver: {}\n"
             "        - MechanicalObject: {name: body, template: Rigid3d,\n"
             "                             position: [1, 0, 0, 0, 0, 0, 1]}\n"
             "        - UniformMass: {vertexMass: \"1 1  0.1 0 0  0 0.1 0  0 0 0.1\"}\n"
             "        - UncoupledConstraintCorrection: {}\n"
             "      children:\n"
             "        - name: Tip\n"
             "          objects:\n"
             "            - MechanicalObject: {name: tip, position: [-1, 0, 0]}\n"
             "            - RigidMapping: {template: \"Rigid3d,Vec3d\", input: \"@../body\",\n"
             "                             output: \"@tip\"}\n",
             -G, 0.001);
    st_scene *s = scene_load(&t, yaml);
    st_mstate *body = (st_mstate *)test_find_object(s, "body");
    st_mstate *tip = (st_mstate *)test_find_object(s, "tip");
    double worst_tip = 0.0, worst_len = 0.0, lowest = 0.0;
    for (int n = 0; n < 10000; n++) {
        scene_steps(&t, s, 1);
        const double *p = tip->position.p, *c = body->position.p;
        double d = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        double len = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        if (d > worst_tip)
            worst_tip = d;
        if (fabs(len - 1.0) > worst_len)
            worst_len = fabs(len - 1.0);
        if (c[1] < lowest)
            lowest = c[1];
        if (n == 499)
            cr_assert_lt(c[1], -0.3, "0.5 s: centre (%g %g %g)", c[0], c[1], c[2]);
    }
    const double *c = body->position.p;
    /* 10 s of swing in the x-y plane, through the bottom. */
    cr_assert_lt(lowest, -0.999, "lowest centre %g", lowest);
    cr_assert_float_eq(c[2], 0.0, 1e-12);
    cr_assert_lt(worst_tip, 1e-8, "tip left the pivot by %g", worst_tip);
    cr_assert_lt(worst_len, 1e-8, "centre-pivot distance drifted by %g", worst_len);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A step's own dt (st_scene_step, settee run --dt) is the one the
 * corrections' integration factors use, not the node's. */
Test(lagrangian, step_dt_overrides_node_dt)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096], unc[128];
    snprintf(unc, sizeof unc, "UncoupledConstraintCorrection: {compliance: [%.17g]}", 1.0 / M);
    pendulum_yaml(yaml, sizeof yaml, unc,
                  "CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}");
    st_scene *s = scene_load(&t, yaml);
    const double h = 0.004;
    st_error err = {0};
    for (int n = 0; n < 3; n++)
        cr_assert_eq(st_scene_step(s, h, &err), ST_OK, "%s", err.msg);
    const double *l = ((st_array *)scene_field(s, "csolver", "constraintForces"))->p;
    cr_assert_float_eq(l[1], M * h * G, 1e-12, "lambda_y %.17g", l[1]);
    const double *x = ((st_mstate *)test_find_object(s, "dofs"))->position.p;
    cr_assert_float_eq(x[0], 1.0, 1e-12);
    cr_assert_float_eq(x[1], 2.0, 1e-12);
    cr_assert_float_eq(x[2], 0.0, 1e-12);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* useSVDForRegularization (SOFA's BuiltConstraintSolver): regularizationTerm
 * goes only on the rows of antagonist constraints, found in the null space
 * of W's SVD. A fixed point p0; p1 held at (1 0 0) from it by one bilateral
 * constraint, p2 at (3 0 0) by two identical ones (W singular), both 0.1 too
 * high. With a = h c = 0.005 per row and r = 0.05: p1's rows keep W = a, so
 * p1 ends exactly in place; p2's duplicate rows get r: (2a + r) lambda =
 * -0.1 each, p2 ends 0.1 r / (2a + r) high. Without the SVD every row gets
 * r: p1 ends 0.1 r / (a + r) high. */
static void svd_regularization(bool svd, double *y1, double *y2)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             LAG_ROOT
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative,\n"
             "        Mass, Constraint.Projective, Constraint.Lagrangian.Solver,\n"
             "        Constraint.Lagrangian.Correction, Constraint.Lagrangian.Model]}\n"
             "    - FreeMotionAnimationLoop: {}\n"
             "    - BlockGaussSeidelConstraintSolver: {tolerance: 1e-14, maxIterations: 10000,\n"
             "        regularizationTerm: 0.05, useSVDForRegularization: %s}\n"
             "  children:\n"
             "    - name: Body\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0.1, 0, 3, 0.1, 0]}\n"
             "        - UniformMass: {vertexMass: 1}\n"
             "        - FixedProjectiveConstraint: {indices: [0]}\n"
             "        - UncoupledConstraintCorrection: {compliance: [1, 0.5, 0.5]}\n"
             "        - BilateralLagrangianConstraint: {first_point: [0], second_point: [1],\n"
             "                                          rest_vector: [[1, 0, 0]]}\n"
             "        - BilateralLagrangianConstraint: {first_point: [0], second_point: [2],\n"
             "                                          rest_vector: [[3, 0, 0]]}\n"
             "        - BilateralLagrangianConstraint: {first_point: [0], second_point: [2],\n"
             "                                          rest_vector: [[3, 0, 0]]}\n",
             0.0, H, svd ? "true" : "false");
    st_scene *s = scene_load(&t, yaml);
    scene_steps(&t, s, 1);
    const double *x = ((st_mstate *)test_find_object(s, "dofs"))->position.p;
    cr_assert(isfinite(x[4]) && isfinite(x[7]));
    cr_assert_float_eq(x[3], 1.0, 1e-12);
    *y1 = x[4];
    *y2 = x[7];
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(lagrangian, svd_regularization_only_on_antagonist_rows)
{
    const double a = H * 0.5, r = 0.05;
    double y1, y2;
    svd_regularization(true, &y1, &y2);
    cr_assert(fabs(y1) < 1e-10, "p1 at y = %g: its row was regularized", y1);
    cr_assert_float_eq(y2, 0.1 * r / (2 * a + r), 1e-10, "p2 at y = %.17g", y2);
    svd_regularization(false, &y1, &y2);
    cr_assert_float_eq(y1, 0.1 * r / (a + r), 1e-10, "p1 at y = %.17g", y1);
}
