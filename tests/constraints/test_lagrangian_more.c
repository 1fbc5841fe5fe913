/* test_lagrangian_more.c - the rest of the Lagrangian catalogue:
 * UnbuiltGaussSeidelConstraintSolver, NNCGConstraintSolver,
 * LCPConstraintSolver and GenericConstraintSolver's resolution methods
 * against a dense LAPACK solve of the same problem; Sliding, Stopper,
 * Uniform and Rigid3d Bilateral constraints against closed forms;
 * GenericConstraintCorrection and PrecomputedConstraintCorrection (its
 * file written, reused, and read) against LinearSolverConstraintCorrection;
 * MultiStepAnimationLoop against DefaultAnimationLoop with dt/n; and the
 * rigid chain example scene. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lagrangian_test_util.h"

/* Loads and expects init to fail with a message holding what. */
static void refused(const char *yaml, const char *what)
{
    test_rt t;
    test_rt_open(&t);
    scene_refused(&t, yaml, what);
    test_rt_close(&t);
}

static const double H = 0.01, G = 9.81;

/* The chain of lagrangian_test_util.h at rest at x, solved by solver. */
static void chain_yaml(char *buf, size_t size, const char *solver, const double x[6])
{
    lag_chain_yaml(buf, size, G, H, solver, "BilateralLagrangianConstraint", x, NULL);
}

/* One step of the chain with solver; its constraintForces into lam. */
static void chain_run(const char *solver, const double x[6], double lam[6], int *iterations)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    chain_yaml(yaml, sizeof yaml, solver, x);
    st_scene *s = scene_load(&t, yaml);
    scene_steps(&t, s, 1);
    st_array *cf = scene_field(s, "csolver", "constraintForces");
    cr_assert_eq(cf->n, 6u, "%s", solver);
    memcpy(lam, cf->p, 6 * sizeof(double));
    if (iterations)
        *iterations = *(int *)scene_field(s, "csolver", "currentIterations");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void dense(const double x[6], double lam[6])
{
    double W[36], d[6];
    lag_chain_problem(G, H, x, NULL, W, d);
    for (int i = 0; i < 6; i++)
        lam[i] = -d[i];
    cr_assert_eq(test_dense_solve(6, W, lam), 0);
}

static const double MIXED[6] = {1.1, 0.2, 0, 2, -0.1, 0.3};

/* Every Gauss-Seidel-like method gives the dense solution (multipliers of
 * both signs: the bilateral resolution). */
Test(lagrangian_more, solvers_agree_with_dense_solve)
{
    const char *solvers[] = {
        "GenericConstraintSolver: {name: csolver, computeConstraintForces: true, "
        "maxIterations: 100000, tolerance: 1e-15}",
        "BlockGaussSeidelConstraintSolver: {name: csolver, computeConstraintForces: true, "
        "maxIterations: 100000, tolerance: 1e-15}",
        "UnbuiltGaussSeidelConstraintSolver: {name: csolver, computeConstraintForces: true, "
        "maxIterations: 100000, tolerance: 1e-15}",
        "NNCGConstraintSolver: {name: csolver, computeConstraintForces: true, "
        "maxIterations: 100000, tolerance: 1e-15}",
        "GenericConstraintSolver: {name: csolver, computeConstraintForces: true, "
        "maxIterations: 100000, tolerance: 1e-15, resolutionMethod: UnbuiltGaussSeidel}",
        "GenericConstraintSolver: {name: csolver, computeConstraintForces: true, "
        "maxIterations: 10, newtonIterations: 100000, tolerance: 1e-15, resolutionMethod: "
        "NonsmoothNonlinearConjugateGradient}",
    };
    double ref[6];
    dense(MIXED, ref);
    bool neg = false, pos = false;
    for (int i = 0; i < 6; i++) {
        neg |= ref[i] < -1e-3;
        pos |= ref[i] > 1e-3;
    }
    cr_assert(neg && pos, "the problem needs multipliers of both signs");
    int its[6];
    for (size_t k = 0; k < sizeof solvers / sizeof *solvers; k++) {
        double lam[6];
        chain_run(solvers[k], MIXED, lam, &its[k]);
        for (int i = 0; i < 6; i++)
            cr_assert_float_eq(lam[i], ref[i], 1e-9 * (1.0 + fabs(ref[i])),
                               "%s row %d: %.17g vs %.17g", solvers[k], i, lam[i], ref[i]);
        cr_assert_gt(its[k], 2, "%s: %d iterations", solvers[k], its[k]);
    }
    /* The methods are distinct: NNCG's acceleration needs fewer sweeps
     * than the plain Gauss-Seidel on this chain. */
    cr_assert_lt(its[3], its[0], "NNCG %d, GS %d", its[3], its[0]);
    cr_assert_eq(its[4], its[2], "Generic's UnbuiltGaussSeidel is the unbuilt solver");
    cr_assert_eq(its[5], its[3], "Generic's NNCG is NNCGConstraintSolver");
    /* There, newtonIterations bounds it (SOFA's count: iterations + 1). */
    double lam[6];
    int it;
    chain_run("GenericConstraintSolver: {name: csolver, computeConstraintForces: true, "
              "tolerance: 1e-15, newtonIterations: 3, resolutionMethod: "
              "NonsmoothNonlinearConjugateGradient}",
              MIXED, lam, &it);
    cr_assert_eq(it, 3);
}

/* A chain pulled towards the pivot: every multiplier is positive, so the
 * LCP (every row unilateral, SOFA's gaussSeidelLCP1) has the dense
 * solution too. */
Test(lagrangian_more, lcp_equals_dense_solve_when_every_row_pushes)
{
    const double x[6] = {0.95, -0.05, -0.02, 1.9, -0.1, -0.04};
    double ref[6], lam[6], gs[6];
    dense(x, ref);
    for (int i = 0; i < 6; i++)
        cr_assert_gt(ref[i], 1e-3, "row %d: %g", i, ref[i]);
    chain_run("LCPConstraintSolver: {name: csolver, mu: 0, computeConstraintForces: true, "
              "maxIt: 100000, tolerance: 1e-15}",
              x, lam, NULL);
    chain_run("GenericConstraintSolver: {name: csolver, computeConstraintForces: true, "
              "maxIterations: 100000, tolerance: 1e-15}",
              x, gs, NULL);
    for (int i = 0; i < 6; i++) {
        cr_assert_float_eq(lam[i], ref[i], 1e-9 * (1.0 + fabs(ref[i])), "LCP row %d", i);
        cr_assert_float_eq(gs[i], ref[i], 1e-9 * (1.0 + fabs(ref[i])), "GS row %d", i);
    }
}

/* With multipliers of both signs, the LCP's answer is complementary:
 * f >= 0, w = dfree + W f >= 0, f . w = 0 (to the tolerance), and differs
 * from the bilateral one. */
Test(lagrangian_more, lcp_solution_is_complementary)
{
    double lam[6], W[36], d[6], ref[6];
    chain_run("LCPConstraintSolver: {name: csolver, mu: 0, computeConstraintForces: true, "
              "maxIt: 100000, tolerance: 1e-15}",
              MIXED, lam, NULL);
    lag_chain_problem(G, H, MIXED, NULL, W, d);
    dense(MIXED, ref);
    double diff = 0.0;
    for (int i = 0; i < 6; i++) {
        double w = d[i];
        for (int k = 0; k < 6; k++)
            w += W[i * 6 + k] * lam[k];
        cr_assert_geq(lam[i], 0.0, "row %d force %g", i, lam[i]);
        cr_assert_geq(w, -1e-12, "row %d w %g", i, w);
        cr_assert_lt(fabs(w * lam[i]), 1e-12, "row %d: w %g f %g", i, w, lam[i]);
        diff += fabs(lam[i] - ref[i]);
    }
    cr_assert_gt(diff, 1e-2, "the LCP is not the bilateral solve");
}

Test(lagrangian_more, unimplemented_solver_settings_are_refused)
{
    char yaml[4096];
    /* LCPConstraintSolver's mu > 0 (friction) runs: tests/constraints/test_lcp_friction.c. */
    chain_yaml(yaml, sizeof yaml,
               "GenericConstraintSolver: {name: csolver, resolutionMethod: Jacobi}", MIXED);
    refused(yaml, "resolutionMethod");
    chain_yaml(yaml, sizeof yaml, "LCPConstraintSolver: {name: csolver, mu: 0, multi_grid: true}",
               MIXED);
    refused(yaml, "multi_grid");
    chain_yaml(yaml, sizeof yaml,
               "PrecomputedConstraintCorrection: {name: csolver, rotations: true}", MIXED);
    refused(yaml, "rotations");
    /* Model settings: a rigid-only field on Vec3d, two state types. */
    const char *models[][2] = {
        {"BilateralLagrangianConstraint: {object1: '@A/a', object2: '@B/b', first_point: [0], "
         "second_point: [0], keepOrientationDifference: true}",
         "keepOrientationDifference"},
        {"BilateralLagrangianConstraint: {object1: '@A/a', object2: '@R/r', first_point: [0], "
         "second_point: [0]}",
         "same type"},
        {"SlidingLagrangianConstraint: {object1: '@A/a', object2: '@B/b', axis_2: 5}",
         "axis_2"},
    };
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        snprintf(yaml, sizeof yaml,
                 LAG_HEADER
                 "    - FreeMotionAnimationLoop: {}\n"
                 "    - GenericConstraintSolver: {}\n"
                 "    - %s\n"
                 "  children:\n"
                 "    - name: A\n"
                 "      objects: [{MechanicalObject: {name: a, position: [0, 0, 0]}}]\n"
                 "    - name: B\n"
                 "      objects: [{MechanicalObject: {name: b, position: [0, 0, 0, 1, 0, 0, 2, "
                 "0, 0]}}]\n"
                 "    - name: R\n"
                 "      objects: [{MechanicalObject: {name: r, template: Rigid3d, position: [0, "
                 "0, 0, 0, 0, 0, 1]}}]\n",
                 -G, H, models[i][0]);
        refused(yaml, models[i][1]);
    }
}

/* A Vec1d point launched upwards at 2 m/s stops at max = 0.05: the stopper
 * holds it there (lambda = (max - x_free)/w, the impulse) and releases it
 * when it moves back. */
Test(lagrangian_more, stopper_keeps_the_point_in_range)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             LAG_HEADER
             "    - FreeMotionAnimationLoop: {}\n"
             "    - GenericConstraintSolver: {name: csolver, computeConstraintForces: true,\n"
             "                                tolerance: 1e-12}\n"
             "  children:\n"
             "    - name: Slider\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 10, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: dofs, template: Vec1d, position: [0, 0],\n"
             "                             velocity: [2, -3]}\n"
             "        - UniformMass: {vertexMass: 2}\n"
             "        - UncoupledConstraintCorrection: {compliance: [0.5, 0.5]}\n"
             "        - StopperConstraint: {index: 0, min: -0.5, max: 0.05}\n"
             "        - StopperLagrangianConstraint: {name: low, index: 1, min: -0.04, max: 1}\n",
             0.0, H);
    st_scene *s = scene_load(&t, yaml);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    const double *x = ms->position.p;
    st_array *cf = scene_field(s, "csolver", "constraintForces");
    scene_steps(&t, s, 5);
    /* Free motion: +0.02 per step for point 0, -0.03 for point 1; each is
     * stopped at its bound (0.05 at step 3, -0.04 at step 2) with its
     * velocity cancelled, then rests there with a zero multiplier. */
    cr_assert_float_eq(x[0], 0.05, 1e-12, "x0 %.17g", x[0]);
    cr_assert_float_eq(x[1], -0.04, 1e-12, "x1 %.17g", x[1]);
    cr_assert_eq(cf->n, 2u);
    cr_assert_float_eq(((double *)cf->p)[0], 0.0, 1e-9);
    cr_assert_float_eq(ms->velocity.p ? ((double *)ms->velocity.p)[0] : 0.0, 0.0, 1e-9);
    st_scene_destroy(&s);
    test_rt_close(&t);

    /* The multipliers of the first contacts. */
    test_rt_open(&t);
    s = scene_load(&t, yaml);
    ms = (st_mstate *)test_find_object(s, "dofs");
    cf = scene_field(s, "csolver", "constraintForces");
    scene_steps(&t, s, 2);
    /* Step 2: point 1's x_free -0.06 is below min -0.04: lambda = (min -
     * x_free) / (h c) = 4; point 0 is free. */
    cr_assert_float_eq(((double *)cf->p)[0], 0.0, 1e-12);
    cr_assert_float_eq(((double *)cf->p)[1], (-0.04 + 0.06) / (H * 0.5), 1e-9);
    scene_steps(&t, s, 1);
    /* Step 3: point 0's x_free 0.06 is above max 0.05: lambda -2. */
    cr_assert_float_eq(((double *)cf->p)[0], (0.05 - 0.06) / (H * 0.5), 1e-9, "lambda %.17g",
                       ((double *)cf->p)[0]);
    st_scene_destroy(&s);
    test_rt_close(&t);

    snprintf(yaml, sizeof yaml,
             LAG_HEADER
             "    - FreeMotionAnimationLoop: {}\n"
             "    - GenericConstraintSolver: {}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - MechanicalObject: {position: [0, 0, 0]}\n"
             "        - StopperLagrangianConstraint: {index: 0}\n",
             0.0, H);
    refused(yaml, "Vec1d");
}

/* UniformLagrangianConstraint pulls every coordinate to zero (or to the
 * rest position): after one step x = 0 exactly, lambda_i = -x_free_i/(h c);
 * iterative and block resolutions agree. */
Test(lagrangian_more, uniform_constraint_zeroes_the_state)
{
    const char *variants[] = {"iterative: true", "iterative: false",
                              "constrainToRestPos: true"};
    for (int k = 0; k < 3; k++) {
        test_rt t;
        test_rt_open(&t);
        char yaml[4096];
        snprintf(yaml, sizeof yaml,
                 LAG_HEADER
                 "    - FreeMotionAnimationLoop: {}\n"
                 "    - GenericConstraintSolver: {name: csolver, computeConstraintForces: "
                 "true,\n"
                 "                                tolerance: 1e-14, maxIterations: 10000}\n"
                 "  children:\n"
                 "    - name: P\n"
                 "      objects:\n"
                 "        - EulerImplicitSolver: {}\n"
                 "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: "
                 "1e-30}\n"
                 "        - MechanicalObject: {name: dofs, template: Vec2d, position: [0.1, "
                 "-0.2, 0.3, 0.05],\n"
                 "                             rest_position: [0.2, 0.2, -0.1, 0]}\n"
                 "        - UniformMass: {vertexMass: 1}\n"
                 "        - StiffSpringForceField: {spring: \"0 1 50 0 0.2\"}\n"
                 "        - LinearSolverConstraintCorrection: {}\n"
                 "        - UniformConstraint: {%s}\n",
                 0.0, H, variants[k]);
        st_scene *s = scene_load(&t, yaml);
        scene_steps(&t, s, 1);
        const double *x = ((st_mstate *)test_find_object(s, "dofs"))->position.p;
        const double rest[4] = {0.2, 0.2, -0.1, 0};
        for (int i = 0; i < 4; i++)
            cr_assert_float_eq(x[i], k == 2 ? rest[i] : 0.0, 1e-10, "%s: x[%d] = %.17g",
                               variants[k], i, x[i]);
        cr_assert_eq(((st_array *)scene_field(s, "csolver", "constraintForces"))->n, 4u);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* The block resolution on more rows than a contact's (SOFA's InextensiblePendulum
 * has 19): four Vec3d points, 12 rows solved as one block, zeroed in one
 * step like the iterative resolution does. */
Test(lagrangian_more, uniform_constraint_block_of_twelve_rows)
{
    for (int iterative = 0; iterative < 2; iterative++) {
        test_rt t;
        test_rt_open(&t);
        char yaml[4096];
        snprintf(yaml, sizeof yaml,
                 LAG_HEADER
                 "    - FreeMotionAnimationLoop: {}\n"
                 "    - GenericConstraintSolver: {name: csolver, tolerance: 1e-14, "
                 "maxIterations: 10000}\n"
                 "  children:\n"
                 "    - name: P\n"
                 "      objects:\n"
                 "        - EulerImplicitSolver: {}\n"
                 "        - SparseLDLSolver: {}\n"
                 "        - MechanicalObject: {name: dofs, position: [0.1, -0.2, 0.3, 1, 0.05, "
                 "0, 0.4, 1, 1, -0.3, 0, 2]}\n"
                 "        - UniformMass: {vertexMass: 1}\n"
                 "        - StiffSpringForceField: {spring: \"0 1 50 0 1  1 2 30 0 1  2 3 40 0 1\"}\n"
                 "        - LinearSolverConstraintCorrection: {}\n"
                 "        - UniformConstraint: {iterative: %s}\n",
                 0.0, H, iterative ? "true" : "false");
        st_scene *s = scene_load(&t, yaml);
        scene_steps(&t, s, 1);
        const double *x = ((st_mstate *)test_find_object(s, "dofs"))->position.p;
        for (int i = 0; i < 12; i++)
            cr_assert_float_eq(x[i], 0.0, 1e-10, "iterative %d: x[%d] = %.17g", iterative, i,
                               x[i]);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* A bead on a fixed segment A (0 0 0) - B (1 0 0) tilted by gravity along
 * -x: it stays on the line and the end stop holds it at A. The x rows are
 * unilateral: the stop's multiplier is positive, the bead never passes A. */
Test(lagrangian_more, sliding_bead_stops_at_the_end)
{
    /* Vec3d, then Rigid3d (the bead a body, the rail two frames: the rows
     * act on the centres only, the compliance (2, identity rotation)). */
    static const char *const states[2][3] = {
        {"position: [0, 0, 0, 1, 0, 0]", "position: [0.5, 0, 0], velocity: [0.2, 0, 0]",
         "compliance: [2]"},
        {"template: Rigid3d, position: [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1]",
         "template: Rigid3d, position: [0.5, 0, 0, 0, 0, 0, 1], velocity: [0.2, 0, 0, 0, 0, 0]",
         "compliance: [2, 1, 0, 0, 1, 0, 1]"}};
    for (int k = 0; k < 2; k++) {
        test_rt t;
        test_rt_open(&t);
        char yaml[4096];
        snprintf(yaml, sizeof yaml,
                 "format: settee/1\n"
                 "root:\n"
                 "  name: root\n"
                 "  gravity: [-3, -9.81, 2]\n"
                 "  dt: 0.01\n"
                 "  objects:\n" LAG_PLUGINS
                 "    - FreeMotionAnimationLoop: {}\n"
                 "    - GenericConstraintSolver: {name: csolver, tolerance: 1e-12,\n"
                 "                                maxIterations: 10000}\n"
                 "    - SlidingConstraint: {name: slide, object1: '@Bead/bead', object2: "
                 "'@Rail/rail',\n"
                 "        sliding_point: 0, axis_1: 0, axis_2: 1}\n"
                 "  children:\n"
                 "    - name: Rail\n"
                 "      objects:\n"
                 "        - MechanicalObject: {name: rail, %s}\n"
                 "    - name: Bead\n"
                 "      objects:\n"
                 "        - EulerImplicitSolver: {}\n"
                 "        - CGLinearSolver: {iterations: 10, tolerance: 1e-20, threshold: "
                 "1e-30}\n"
                 "        - MechanicalObject: {name: bead, %s}\n"
                 "        - UniformMass: {vertexMass: 0.5}\n"
                 "        - UncoupledConstraintCorrection: {%s}\n",
                 states[k][0], states[k][1], states[k][2]);
        st_scene *s = scene_load(&t, yaml);
        const double *x = ((st_mstate *)test_find_object(s, "bead"))->position.p;
        double xmin = 1.0, off = 0.0, xmax = 0.0;
        for (int n = 0; n < 200; n++) {
            scene_steps(&t, s, 1);
            double o = sqrt(x[1] * x[1] + x[2] * x[2]);
            off = o > off ? o : off;
            xmin = x[0] < xmin ? x[0] : xmin;
            xmax = x[0] > xmax ? x[0] : xmax;
            if (n == 9) {
                /* Free sliding along the rail, implicit Euler: v += h a,
                 * x += h v, a = -3. */
                double xe = 0.5, v = 0.2;
                for (int i = 0; i < 10; i++) {
                    v += H * -3.0;
                    xe += H * v;
                }
                cr_assert_float_eq(x[0], xe, 1e-10, "%d: x %.17g vs %.17g", k, x[0], xe);
            }
        }
        cr_assert_lt(off, 1e-10, "%d: left the rail by %g", k, off);
        cr_assert_geq(xmin, -1e-10, "%d: passed the end A: %g", k, xmin);
        cr_assert_float_eq(x[0], 0.0, 1e-10, "%d: rests at A: %g", k, x[0]);
        cr_assert_gt(xmax, 0.5, "moved up first");
        const double *f = scene_field(s, "slide", "force");
        /* At rest at A the multipliers are impulses: the end stop takes the
         * along-rail weight over a step, 3 * 0.5 * h, the normal rows the
         * rest. */
        cr_assert_float_eq(f[0], 3.0 * 0.5 * H, 1e-9, "%d: force %g %g %g", k, f[0], f[1],
                           f[2]);
        cr_assert_float_eq(f[1], 9.81 * 0.5 * H, 1e-9, "%d: force %g %g %g", k, f[0], f[1],
                           f[2]);
        cr_assert_float_eq(f[2], -2.0 * 0.5 * H, 1e-9, "%d: force %g %g %g", k, f[0], f[1],
                           f[2]);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* BilateralLagrangianConstraint on Rigid3d welds a body to a fixed frame:
 * six rows, its pose (offset rest_vector, or the initial difference with
 * keepOrientationDifference) is kept under gravity and a spin. */
Test(lagrangian_more, rigid_bilateral_welds_the_body)
{
    const char *opts[] = {"rest_vector: [[1, 0, 0, 0, 0, 0]]", "keepOrientationDifference: true"};
    for (int k = 0; k < 2; k++) {
        test_rt t;
        test_rt_open(&t);
        char yaml[4096];
        /* Body at (1 0 0), rotated 0.3 rad about z when keeping the
         * difference. */
        double qz = k ? sin(0.15) : 0.0, qw = k ? cos(0.15) : 1.0;
        snprintf(yaml, sizeof yaml,
                 LAG_HEADER
                 "    - FreeMotionAnimationLoop: {}\n"
                 "    - GenericConstraintSolver: {name: csolver, tolerance: 1e-14,\n"
                 "        maxIterations: 1000, computeConstraintForces: true}\n"
                 "    - BilateralLagrangianConstraint: {template: Rigid3d, object1: "
                 "'@Frame/frame',\n"
                 "        object2: '@Body/body', first_point: [0], second_point: [0], %s}\n"
                 "  children:\n"
                 "    - name: Frame\n"
                 "      objects:\n"
                 "        - MechanicalObject: {name: frame, template: Rigid3d, position: [0, 0, "
                 "0, 0, 0, 0, 1]}\n"
                 "    - name: Body\n"
                 "      objects:\n"
                 "        - EulerImplicitSolver: {}\n"
                 "        - SparseLDLSolver: {}\n"
                 "        - MechanicalObject: {name: body, template: Rigid3d,\n"
                 "            position: [1, 0, 0, 0, 0, %.17g, %.17g], velocity: [0, 0.5, 0, 1, "
                 "0, 2]}\n"
                 "        - UniformMass: {vertexMass: \"2 1  0.2 0 0  0 0.3 0  0 0 0.4\"}\n"
                 "        - UncoupledConstraintCorrection: {}\n",
                 -G, H, opts[k], qz, qw);
        st_scene *s = scene_load(&t, yaml);
        const double *x = ((st_mstate *)test_find_object(s, "body"))->position.p;
        scene_steps(&t, s, 100);
        cr_assert_eq(((st_array *)scene_field(s, "csolver", "constraintForces"))->n, 6u);
        cr_assert_float_eq(x[0], 1.0, 1e-9, "x %.17g", x[0]);
        cr_assert_float_eq(x[1], 0.0, 1e-9, "y %.17g", x[1]);
        cr_assert_float_eq(x[2], 0.0, 1e-9, "z %.17g", x[2]);
        cr_assert_float_eq(fabs(x[5]), qz, 1e-8, "qz %.17g", x[5]);
        cr_assert_float_eq(fabs(x[6]), qw, 1e-8, "qw %.17g", x[6]);
        cr_assert_float_eq(x[3], 0.0, 1e-8);
        cr_assert_float_eq(x[4], 0.0, 1e-8);
        /* The weld carries the weight: the y multiplier of a step is m g h. */
        const double *l = ((st_array *)scene_field(s, "csolver", "constraintForces"))->p;
        cr_assert_float_eq(l[1], 2.0 * G * H, 1e-9, "lambda_y %.17g", l[1]);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* The pendulum of test_lagrangian.c (a particle held 1 m from a pivot)
 * with a given correction and linear solver. */
/* The pendulum of lagrangian_test_util.h, its solver's tolerance 1e-12. */
static void pendulum_yaml(char *buf, size_t size, const char *correction, const char *linsolver)
{
    lag_pendulum_yaml(buf, size, G, H, 1e-12, correction, linsolver);
}

static void pendulum_run(const char *correction, const char *linsolver, int steps, double x[3],
                         double lam[3])
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    pendulum_yaml(yaml, sizeof yaml, correction, linsolver);
    st_scene *s = scene_load(&t, yaml);
    scene_steps(&t, s, steps);
    memcpy(x, ((st_mstate *)test_find_object(s, "dofs"))->position.p, 3 * sizeof(double));
    memcpy(lam, ((st_array *)scene_field(s, "csolver", "constraintForces"))->p, 3 * sizeof(double));
    st_scene_destroy(&s);
    test_rt_close(&t);
}

#define LDL "SparseLDLSolver: {template: CompressedRowSparseMatrixMat3x3d}"

Test(lagrangian_more, generic_correction_is_the_linear_solver_one)
{
    double xl[3], ll[3], xg[3], lg[3], xc[3], lc[3];
    pendulum_run("LinearSolverConstraintCorrection: {}", LDL, 50, xl, ll);
    pendulum_run("GenericConstraintCorrection: {linearSolver: '@SparseLDLSolver1', ODESolver: "
                 "'@ode'}",
                 LDL, 50, xg, lg);
    pendulum_run("GenericConstraintCorrection: {}",
                 "CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}", 50, xc,
                 lc);
    for (int k = 0; k < 3; k++) {
        cr_assert_float_eq(xg[k], xl[k], 1e-12, "x[%d]", k);
        cr_assert_float_eq(lg[k], ll[k], 1e-12, "lambda[%d]", k);
        cr_assert_float_eq(xc[k], xl[k], 1e-10, "CG x[%d]", k);
    }
    cr_assert_float_eq(lg[1], 2.0 * G * H, 1e-9);
    /* complianceFactor scales W and the correction alike: same motion, the
     * multipliers divided by the factor. */
    pendulum_run("GenericConstraintCorrection: {complianceFactor: 2}", LDL, 50, xg, lg);
    for (int k = 0; k < 3; k++) {
        cr_assert_float_eq(xg[k], xl[k], 1e-10, "cf 2: x[%d]", k);
        cr_assert_float_eq(lg[k], ll[k] / 2.0, 1e-10, "cf 2: lambda[%d]", k);
    }
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The compliance is computed at the first solve and written as
 * "<node>-<rows>-<dt>.comp" in fileDir; a second run reads it back (same
 * trajectory, equal to LinearSolverConstraintCorrection's); a file with
 * another compliance is what the run uses. */
Test(lagrangian_more, precomputed_compliance_file_is_written_and_reused)
{
    char dir[512], corr[1024], path[1200];
    test_make_dir(dir, sizeof dir, "precomp");
    snprintf(corr, sizeof corr, "PrecomputedConstraintCorrection: {fileDir: '%s'}", dir);
    snprintf(path, sizeof path, "%s/Particle-3-0.01.comp", dir);
    double x1[3], l1[3], x2[3], l2[3], xl[3], ll[3];
    pendulum_run(corr, LDL, 100, x1, l1);
    cr_assert_eq(file_size(path), (long)(9 * sizeof(double)), "%s", path);
    /* The file holds h M^-1 = 0.01 / 2 on the diagonal. */
    FILE *fp = fopen(path, "rb");
    cr_assert(fp);
    double C[9];
    cr_assert_eq(fread(C, sizeof(double), 9, fp), 9u);
    fclose(fp);
    for (int i = 0; i < 9; i++)
        cr_assert_float_eq(C[i], i % 4 == 0 ? H / 2.0 : 0.0, 1e-15, "C[%d] = %g", i, C[i]);
    struct stat before;
    cr_assert_eq(stat(path, &before), 0);
    pendulum_run(corr, LDL, 100, x2, l2);
    pendulum_run("LinearSolverConstraintCorrection: {}", LDL, 100, xl, ll);
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(x2[k], x1[k], "reused run differs at x[%d]", k);
        cr_assert_float_eq(x1[k], xl[k], 1e-12, "vs LinearSolverConstraintCorrection x[%d]", k);
        cr_assert_float_eq(l1[k], ll[k], 1e-12);
    }
    /* The file is read: a compliance twice as large halves the impulse of
     * the first step (lambda = -v_free / C). */
    for (int i = 0; i < 9; i++)
        C[i] *= 2.0;
    fp = fopen(path, "wb");
    cr_assert(fp);
    cr_assert_eq(fwrite(C, sizeof(double), 9, fp), 9u);
    fclose(fp);
    pendulum_run(corr, LDL, 1, x2, l2);
    pendulum_run("LinearSolverConstraintCorrection: {}", LDL, 1, xl, ll);
    cr_assert_float_eq(l2[2], ll[2] / 2.0, 1e-12, "lambda_z %g vs %g", l2[2], ll[2]);
    /* fileCompliance names the file to read (a full path here). */
    char named[1400];
    snprintf(named, sizeof named, "PrecomputedConstraintCorrection: {fileCompliance: '%s'}",
             path);
    pendulum_run(named, LDL, 1, x2, l2);
    cr_assert_float_eq(l2[2], ll[2] / 2.0, 1e-12);
    test_remove_dir(dir);
}

/* The spring chain of lagrangian_test_util.h, CG to 1e-12 (threshold 1e-15). */
static void spring_yaml(char *buf, size_t size, const char *loop, double dt)
{
    lag_spring_yaml(buf, size, loop, dt, 1e-12, 1e-15);
}

/* integrationSteps n: one step is n DefaultAnimationLoop steps of dt/n
 * (bit for bit), time included. */
Test(lagrangian_more, multistep_loop_is_default_loop_with_dt_over_n)
{
    char yaml[4096];
    double xs[2][9], ts[2];
    for (int k = 0; k < 2; k++) {
        test_rt t;
        test_rt_open(&t);
        spring_yaml(yaml, sizeof yaml,
                    k ? "MultiStepAnimationLoop: {integrationSteps: 4}"
                      : "DefaultAnimationLoop: {}",
                    k ? 0.04 : 0.01);
        st_scene *s = scene_load(&t, yaml);
        scene_steps(&t, s, k ? 50 : 200);
        memcpy(xs[k], ((st_mstate *)test_find_object(s, "dofs"))->position.p, sizeof xs[k]);
        ts[k] = s->root->time;
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
    cr_assert_eq(memcmp(xs[0], xs[1], sizeof xs[0]), 0, "positions differ: %.17g %.17g",
                 xs[0][4], xs[1][4]);
    cr_assert_float_eq(ts[0], ts[1], 1e-12);
    cr_assert_gt(fabs(xs[0][4]), 1e-3, "the chain moved");
    /* collisionSteps 2 x integrationSteps 2: four sub-steps of dt/4, the
     * trajectory of dt/4; SOFA sets the time within each collision step
     * from the step's start: t advances by dt/2 per step. */
    test_rt t;
    test_rt_open(&t);
    spring_yaml(yaml, sizeof yaml,
                "MultiStepAnimationLoop: {collisionSteps: 2, integrationSteps: 2}", 0.04);
    st_scene *s = scene_load(&t, yaml);
    scene_steps(&t, s, 50);
    const double *x = ((st_mstate *)test_find_object(s, "dofs"))->position.p;
    cr_assert_eq(memcmp(x, xs[0], sizeof xs[0]), 0, "2 x 2 differs");
    cr_assert_float_eq(s->root->time, 50 * 0.02, 1e-12, "time %g", s->root->time);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The example scene: a chain of four rigid bars hung from a pivot, ball
 * joints made of bilateral constraints between points mapped on the bars'
 * ends. Over 2 s of swing each joint stays closed and the first bar's top
 * stays at the pivot to the solver's tolerance; scenes/sofa/rigid_chain.scn
 * is the same scene. */
Test(lagrangian_more, rigid_chain_scene_keeps_its_joints)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(t.rt, SETTEE_SOURCE_DIR "/scenes/rigid_chain.yaml", &s, &err),
                 ST_OK, "%s\n%s", err.msg, t.log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s\n%s", err.msg, t.log);
    const char *ends[4][2] = {{"ends0", NULL}, {"ends1", NULL}, {"ends2", NULL}, {"ends3", NULL}};
    st_mstate *e[4];
    for (int i = 0; i < 4; i++) {
        e[i] = (st_mstate *)test_find_object(s, ends[i][0]);
        cr_assert(e[i], "no %s", ends[i][0]);
    }
    const double *c3 = ((st_mstate *)test_find_object(s, "bar3"))->position.p;
    double worst = 0.0, lowest = 0.0;
    for (int n = 0; n < 2000; n++) {
        scene_steps(&t, s, 1);
        const double *p0 = e[0]->position.p;
        worst = fmax(worst, sqrt(p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2]));
        for (int i = 0; i + 1 < 4; i++) {
            const double *a = (const double *)e[i]->position.p + 3;
            const double *b = e[i + 1]->position.p;
            double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                            (a[2] - b[2]) * (a[2] - b[2]));
            worst = fmax(worst, d);
        }
        lowest = fmin(lowest, c3[1]);
    }
    cr_log_info("rigid chain: worst joint gap %g, lowest centre %g", worst, lowest);
    cr_assert_lt(worst, 1e-8, "a joint opened by %g", worst);
    cr_assert_lt(lowest, -2.0, "the chain swung down (last bar centre %g)", lowest);
    double yaml_pose[4][7];
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "bar%d", i);
        memcpy(yaml_pose[i], ((st_mstate *)test_find_object(s, name))->position.p,
               sizeof yaml_pose[i]);
    }
    st_scene_destroy(&s);

    /* The SOFA XML version of the scene gives the same numbers, bit for bit. */
    cr_assert_eq(st_scene_load(t.rt, SETTEE_SOURCE_DIR "/scenes/sofa/rigid_chain.scn", &s, &err),
                 ST_OK, "%s\n%s", err.msg, t.log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s\n%s", err.msg, t.log);
    scene_steps(&t, s, 2000);
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "bar%d", i);
        const double *x = ((st_mstate *)test_find_object(s, name))->position.p;
        cr_assert_eq(memcmp(x, yaml_pose[i], sizeof yaml_pose[i]), 0, "bar %d differs", i);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* After the first steps, the new solvers, corrections, models and loop
 * allocate nothing. */
Test(lagrangian_more, steps_do_not_allocate)
{
    char dir[512], corr[1024], yaml[4096];
    test_make_dir(dir, sizeof dir, "alloc");
    snprintf(corr, sizeof corr, "PrecomputedConstraintCorrection: {fileDir: '%s'}", dir);
    for (int k = 0; k < 6; k++) {
        test_rt t;
        test_rt_open(&t);
        static const char *const solvers[] = {
            "NNCGConstraintSolver: {name: csolver, computeConstraintForces: true}",
            "UnbuiltGaussSeidelConstraintSolver: {name: csolver, computeConstraintForces: "
            "true}",
            "LCPConstraintSolver: {name: csolver, mu: 0, computeConstraintForces: true}"};
        if (k < 3)
            chain_yaml(yaml, sizeof yaml, solvers[k], MIXED);
        else if (k == 3)
            pendulum_yaml(yaml, sizeof yaml, "GenericConstraintCorrection: {}", LDL);
        else if (k == 4)
            pendulum_yaml(yaml, sizeof yaml, corr, LDL);
        else
            spring_yaml(yaml, sizeof yaml,
                        "MultiStepAnimationLoop: {collisionSteps: 2, integrationSteps: 3}", 0.03);
        st_scene *s = scene_load(&t, yaml);
        scene_steps(&t, s, 2);
        scene_steps_allocate_nothing(&t, s, 20, yaml);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
    test_remove_dir(dir);
}

/* GenericConstraintCorrection covers the states its linear solver
 * integrates, the rows reaching them through mappings: on the compound
 * pendulum (a rigid body held by a point RigidMapping puts on it) it moves
 * the body as UncoupledConstraintCorrection does from the mass (h A^-1 =
 * h M^-1 with no force field). */
Test(lagrangian_more, generic_correction_through_a_mapping)
{
    char *text = test_read_file(SETTEE_SOURCE_DIR "/scenes/compound_pendulum_lagrangian.yaml");
    cr_assert_not_null(text);
    const char *unc = "UncoupledConstraintCorrection: {}";
    char *at = strstr(text, unc);
    cr_assert_not_null(at);
    double pose[2][7];
    for (int k = 0; k < 2; k++) {
        char yaml[8192];
        snprintf(yaml, sizeof yaml, "%.*s%s%s", (int)(at - text), text,
                 k ? "GenericConstraintCorrection: {}" : unc, at + strlen(unc));
        test_rt t;
        test_rt_open(&t);
        st_scene *s = scene_load(&t, yaml);
        scene_steps(&t, s, 300);
        memcpy(pose[k], ((st_mstate *)test_find_object(s, "body"))->position.p, sizeof pose[k]);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
    free(text);
    for (int i = 0; i < 7; i++)
        cr_assert_float_eq(pose[1][i], pose[0][i], 1e-10, "[%d] %.17g vs %.17g", i, pose[1][i],
                           pose[0][i]);
    cr_assert_lt(pose[0][1], -0.1, "the body swung (centre y %g)", pose[0][1]);
}
