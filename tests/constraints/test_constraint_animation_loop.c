/* test_constraint_animation_loop.c - ConstraintAnimationLoop, SOFA's older
 * loop that solves the Lagrangian constraints with its own projected
 * Gauss-Seidel over the constraint corrections' compliance. A particle
 * held by a bilateral constraint stays where it is and carries its weight
 * (lambda = m g dt per step); a particle dropped on a unilateral
 * constraint lands and rests on it; a chain of two bilateral constraints
 * gives FreeMotionAnimationLoop + GenericConstraintSolver's trajectory
 * (within the Gauss-Seidel tolerance); the loop's tolerance and
 * maxIterations, not a constraint solver's in the scene, rule the solve;
 * a state with no constraint correction does not move, as in SOFA; a
 * sphere falling on a floor through the collision pipeline rests on it,
 * doCollisionsFirst or not; bad values are refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene_test_util.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(constraint_animation_loop, .init = setup, .fini = teardown);

static const double G = 9.81, DT = 0.01;

#define PLUGINS                                                                                   \
    "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,\n"    \
    "        Collision, Topology, Constraint.Lagrangian.Solver, Constraint.Lagrangian.Correction,\n"       \
    "        Constraint.Lagrangian.Model]}\n"

/* Root with gravity -G y and dt DT, the loop line and an extra root line
 * ("" for none), then a static point "pivot" at the origin (node Pivot)
 * and a particle "a" of mass 2 at (0.5, 1, 0) (node A) under an
 * EulerImplicitSolver with its correction line (`corr`, "" for none). */
static void scene(char *y, size_t size, const char *loop, const char *extra, const char *constraint,
                  const char *corr)
{
    snprintf(y, size,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, %.17g, 0]\n"
             "  dt: %.17g\n"
             "  objects:\n" PLUGINS "    - %s\n"
             "    %s\n"
             "    - %s\n"
             "  children:\n"
             "    - name: Pivot\n"
             "      objects:\n"
             "        - MechanicalObject: {name: pivot, position: [[0, 0, 0]]}\n"
             "    - name: A\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: a, position: [[0.5, 1, 0]]}\n"
             "        - UniformMass: {vertexMass: 2}\n"
             "        %s\n",
             -G, DT, loop, extra, constraint, corr);
}

#define HOLD                                                                                      \
    "BilateralLagrangianConstraint: {name: hold, object1: '@Pivot/pivot', object2: '@A/a',"     \
    " first_point: [0], second_point: [0], rest_vector: [[0.5, 1, 0]]}"
#define FLOOR                                                                                     \
    "UnilateralLagrangianConstraint: {name: floor, object1: '@Pivot/pivot', object2: '@A/a',"   \
    " first_point: [0], second_point: [0], normals: [[0, 1, 0]], mu: 0}"
#define UNCOUPLED "- UncoupledConstraintCorrection: {compliance: [0.5]}"

static const double *pos(st_scene *s, const char *name)
{
    return (const double *)scene_state(s, name)->position.p;
}

Test(constraint_animation_loop, defaults_are_sofas)
{
    char y[8192];
    scene(y, sizeof y, "ConstraintAnimationLoop: {name: loop}", "", HOLD, UNCOUPLED);
    st_scene *s = scene_load(&T, y);
    cr_assert_float_eq(*(double *)scene_field(s, "loop", "tolerance"), 1e-5, 0.0);
    cr_assert_eq(*(int *)scene_field(s, "loop", "maxIterations"), 1000);
    cr_assert_float_eq(*(double *)scene_field(s, "loop", "sor"), 1.0, 0.0);
    cr_assert(*(bool *)scene_field(s, "loop", "scaleTolerance"));
    cr_assert(!*(bool *)scene_field(s, "loop", "allVerified"));
    cr_assert(!*(bool *)scene_field(s, "loop", "doCollisionsFirst"));
    cr_assert(!*(bool *)scene_field(s, "loop", "doubleBuffer"));
    cr_assert(!*(bool *)scene_field(s, "loop", "schemeCorrection"));
    cr_assert(!*(bool *)scene_field(s, "loop", "realTimeCompensation"));
    cr_assert(!*(bool *)scene_field(s, "loop", "displayTime"));
    cr_assert(strstr(T.log, "deprecated"), "no deprecation warning:\n%s", T.log);
    st_scene_destroy(&s);
}

/* Held by a bilateral constraint at its place, the particle does not fall
 * (without it, 4.9 m in a second) and the constraint carries its weight. */
Test(constraint_animation_loop, bilateral_holds_the_particle)
{
    char y[8192];
    scene(y, sizeof y, "ConstraintAnimationLoop: {name: loop}", "", HOLD, UNCOUPLED);
    st_scene *s = scene_load(&T, y);
    scene_steps(&T, s, 100);
    const double *x = pos(s, "a");
    cr_assert(fabs(x[0] - 0.5) < 1e-8 && fabs(x[1] - 1.0) < 1e-8 && fabs(x[2]) < 1e-8,
              "moved to (%g %g %g)", x[0], x[1], x[2]);
    const st_array *f = scene_field(s, "loop", "graphForces");
    cr_assert_eq(f->n, 3);
    /* The impulse of a step: m g dt along +y. */
    cr_assert_float_eq(((double *)f->p)[1], 2.0 * G * DT, 1e-6, "lambda_y %g",
                       ((double *)f->p)[1]);
    cr_assert_eq(*(int *)scene_field(s, "loop", "currentNumConstraints"), 3);
    cr_assert(*(bool *)scene_field(s, "loop", "converged"));
    st_scene_destroy(&s);
}

/* Dropped from 1 m on a unilateral constraint of normal +y at the pivot,
 * the particle lands (0.45 s) and rests on it, carrying its weight. */
Test(constraint_animation_loop, unilateral_floor_stops_the_fall)
{
    char y[8192];
    scene(y, sizeof y, "ConstraintAnimationLoop: {name: loop}", "", FLOOR, UNCOUPLED);
    st_scene *s = scene_load(&T, y);
    double lowest = 1.0;
    for (int i = 0; i < 100; i++) {
        scene_steps(&T, s, 1);
        double yy = pos(s, "a")[1];
        if (yy < lowest)
            lowest = yy;
    }
    cr_assert(lowest > -1e-6, "went through the floor: y = %g", lowest);
    const double *x = pos(s, "a");
    cr_assert(fabs(x[1]) < 1e-6, "not resting on the floor: y = %g", x[1]);
    const st_array *f = scene_field(s, "loop", "graphForces");
    cr_assert_eq(f->n, 1);
    cr_assert_float_eq(((double *)f->p)[0], 2.0 * G * DT, 1e-6, "lambda %g", ((double *)f->p)[0]);
    st_scene_destroy(&s);
}

/* A chain pivot - a - b of two bilateral constraints whose rows couple,
 * b started sideways: the loop's Gauss-Seidel and GenericConstraintSolver's
 * give the same trajectory within the tolerance. */
static void chain(char *y, size_t size, const char *loop, const char *solver)
{
    snprintf(y, size,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, %.17g, 0]\n"
             "  dt: %.17g\n"
             "  objects:\n" PLUGINS "    - %s\n"
             "    %s\n"
             "    - BilateralLagrangianConstraint: {object1: '@Pivot/pivot', object2: '@A/a',\n"
             "        first_point: [0], second_point: [0], rest_vector: [[1, 0, 0]]}\n"
             "    - BilateralLagrangianConstraint: {object1: '@A/a', object2: '@B/b',\n"
             "        first_point: [0], second_point: [0], rest_vector: [[1, 0, 0]]}\n"
             "  children:\n"
             "    - name: Pivot\n"
             "      objects:\n"
             "        - MechanicalObject: {name: pivot, position: [[0, 0, 0]]}\n"
             "    - name: A\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: a, position: [[1, 0, 0]]}\n"
             "        - UniformMass: {vertexMass: 1}\n"
             "        - UncoupledConstraintCorrection: {compliance: [1]}\n"
             "    - name: B\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: b, position: [[2, 0, 0]], velocity: [[0, 0, 1]]}\n"
             "        - UniformMass: {vertexMass: 3}\n"
             "        - UncoupledConstraintCorrection: {compliance: [0.33333333333333331]}\n",
             -G, DT, loop, solver);
}

static void run_chain(const char *loop, const char *solver, int steps, double out[6], int *iters)
{
    char y[8192];
    chain(y, sizeof y, loop, solver);
    st_scene *s = scene_load(&T, y);
    scene_steps(&T, s, steps);
    memcpy(out, pos(s, "a"), 3 * sizeof(double));
    memcpy(out + 3, pos(s, "b"), 3 * sizeof(double));
    if (iters)
        *iters = *(int *)scene_field(s, "loop", "currentIterations");
    st_scene_destroy(&s);
}

Test(constraint_animation_loop, chain_matches_free_motion_and_generic_solver)
{
    double c[6], f[6];
    int it = 0;
    run_chain("ConstraintAnimationLoop: {name: loop, tolerance: 1e-12}", "", 50, c, &it);
    run_chain("FreeMotionAnimationLoop: {}",
              "- GenericConstraintSolver: {tolerance: 1e-12, maxIterations: 1000}", 50, f, NULL);
    for (int k = 0; k < 6; k++)
        cr_assert_float_eq(c[k], f[k], 1e-9, "coordinate %d: %.12g vs %.12g", k, c[k], f[k]);
    cr_assert_gt(it, 1, "the coupled rows need several sweeps (%d)", it);
    /* The points held at their places: the chain did not fall. */
    cr_assert_float_eq(c[0], 1.0, 1e-8);
    cr_assert_float_eq(c[3], 2.0, 1e-8);
    /* At the default tolerance (1e-5 times the rows) within a few 1e-5. */
    run_chain("ConstraintAnimationLoop: {name: loop}", "", 50, c, NULL);
    for (int k = 0; k < 6; k++)
        cr_assert_float_eq(c[k], f[k], 1e-4, "coordinate %d: %.12g vs %.12g", k, c[k], f[k]);
}

/* The loop's own fields rule: a GenericConstraintSolver in the scene is not
 * used (warned), maxIterations 1 stops the solve after one sweep. */
Test(constraint_animation_loop, its_own_fields_rule_the_solve)
{
    double c[6];
    int it = 0;
    run_chain("ConstraintAnimationLoop: {name: loop, maxIterations: 1}",
              "- GenericConstraintSolver: {name: unused, tolerance: 1e-12, maxIterations: 1000}",
              1, c, &it);
    cr_assert_eq(it, 1, "sweeps: %d", it);
    cr_assert(strstr(T.log, "unused") && strstr(T.log, "is not used"),
              "no warning about the unused solver:\n%s", T.log);
    char y[8192];
    chain(y, sizeof y, "ConstraintAnimationLoop: {name: loop, maxIterations: 1}", "");
    st_scene *s = scene_load(&T, y);
    scene_steps(&T, s, 1);
    cr_assert(!*(bool *)scene_field(s, "loop", "converged"));
    st_scene_destroy(&s);
}

/* SOFA's loop writes positions only through the corrections: a particle
 * without one stays where it is (warned at init). */
Test(constraint_animation_loop, a_state_without_correction_does_not_move)
{
    char y[8192];
    scene(y, sizeof y, "ConstraintAnimationLoop: {name: loop}", "", FLOOR, "");
    st_scene *s = scene_load(&T, y);
    cr_assert(strstr(T.log, "no constraint correction"), "no warning:\n%s", T.log);
    scene_steps(&T, s, 10);
    const double *x = pos(s, "a");
    cr_assert(x[0] == 0.5 && x[1] == 1.0 && x[2] == 0.0, "moved to (%g %g %g)", x[0], x[1],
              x[2]);
    st_scene_destroy(&s);
}

/* A sphere dropped on a floor of triangles through the collision pipeline
 * (FrictionContactConstraint contacts) rests on it, with the detection
 * after the free motion (default) or before it (doCollisionsFirst). */
static double drop_sphere(const char *loop)
{
    char y[8192];
    snprintf(y, sizeof y,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, %.17g, 0]\n"
             "  dt: %.17g\n"
             "  objects:\n" PLUGINS "    - %s\n"
             "    - CollisionPipeline: {}\n"
             "    - BruteForceBroadPhase: {}\n"
             "    - BVHNarrowPhase: {}\n"
             "    - MinProximityIntersection: {alarmDistance: 0.2, contactDistance: 0.05}\n"
             "    - CollisionResponse: {response: FrictionContactConstraint}\n"
             "  children:\n"
             "    - name: Floor\n"
             "      objects:\n"
             "        - MechanicalObject: {position: [[-5, 0, -5], [5, 0, -5], [5, 0, 5],"
             " [-5, 0, 5]]}\n"
             "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
             "        - TriangleCollisionModel: {moving: false, simulated: false}\n"
             "    - name: Ball\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: ball, position: [[0.3, 0.6, 0.2]]}\n"
             "        - UniformMass: {vertexMass: 1}\n"
             "        - SphereCollisionModel: {radius: 0.1}\n"
             "        - UncoupledConstraintCorrection: {compliance: [1]}\n",
             -G, DT, loop);
    st_scene *s = scene_load(&T, y);
    double lowest = 1.0;
    for (int i = 0; i < 150; i++) {
        scene_steps(&T, s, 1);
        double yy = pos(s, "ball")[1];
        if (yy < lowest)
            lowest = yy;
    }
    double last = pos(s, "ball")[1];
    st_scene_destroy(&s);
    /* The sphere's surface never sinks below the contact distance (a
     * step's fall of margin). */
    cr_assert(lowest > 0.1, "%s: sank to %g", loop, lowest);
    return last;
}

Test(constraint_animation_loop, sphere_rests_on_the_floor)
{
    double after = drop_sphere("ConstraintAnimationLoop: {}");
    double first = drop_sphere("ConstraintAnimationLoop: {doCollisionsFirst: true}");
    /* Resting at radius + contact distance. */
    cr_assert_float_eq(after, 0.15, 2e-3, "after: %g", after);
    cr_assert_float_eq(first, 0.15, 2e-3, "first: %g", first);
}

Test(constraint_animation_loop, bad_values_are_refused)
{
    char y[8192];
    scene(y, sizeof y, "ConstraintAnimationLoop: {schemeCorrection: true}", "", HOLD, UNCOUPLED);
    scene_refused(&T, y, "schemeCorrection");
    scene(y, sizeof y, "ConstraintAnimationLoop: {sor: 3}", "", HOLD, UNCOUPLED);
    scene_refused(&T, y, "sor");
    scene(y, sizeof y, "ConstraintAnimationLoop: {tolerance: -1}", "", HOLD, UNCOUPLED);
    scene_refused(&T, y, "tolerance");
    scene(y, sizeof y, "ConstraintAnimationLoop: {maxIterations: 0}", "", HOLD, UNCOUPLED);
    scene_refused(&T, y, "maxIterations");
}

/* realTimeCompensation: each step lasts at least dt of wall-clock time
 * (4 steps after the first of dt 0.02: 0.08 s at least); displayTime tells
 * each step's phases. */
Test(constraint_animation_loop, real_time_compensation_and_display_time)
{
    char y[8192];
    scene(y, sizeof y,
          "ConstraintAnimationLoop: {name: loop, realTimeCompensation: true, displayTime: true}",
          "", HOLD, UNCOUPLED);
    char *at = strstr(y, "dt: ");
    cr_assert_not_null(at);
    memcpy(at, "dt: 0.02", 8); /* "dt: 0.01" */
    st_scene *s = scene_load(&T, y);
    scene_steps(&T, s, 1);
    double t0 = st_time_now();
    scene_steps(&T, s, 4);
    double spent = st_time_now() - t0;
    cr_assert_geq(spent, 0.079, "4 steps of dt 0.02 took %g s", spent);
    cr_assert(strstr(T.log, "free motion") && strstr(T.log, "with 3 constraints"),
              "no timing from displayTime:\n%s", T.log);
    st_scene_destroy(&s);
}

/* scenes/constraint_loop_ball_on_floor.scn (SOFA's XML): the ball rests at
 * radius + contactDistance above the floor, the weight hangs still. */
Test(constraint_animation_loop, shipped_scene_ball_on_floor)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/constraint_loop_ball_on_floor.scn", SETTEE_SOURCE_DIR);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    scene_steps(&T, s, 150);
    const double *b = pos(s, "ball"), *w = pos(s, "weight");
    cr_assert_float_eq(b[1], 0.15, 1e-6, "ball at %g", b[1]);
    cr_assert(fabs(w[0] - 1.0) < 1e-9 && fabs(w[1] - 0.5) < 1e-9 && fabs(w[2]) < 1e-9,
              "weight moved to (%g %g %g)", w[0], w[1], w[2]);
    st_scene_destroy(&s);
}

/* `settee run` tells the loop's Gauss-Seidel in its solver summary. */
Test(constraint_animation_loop, run_summary_names_the_loop)
{
    char cmd[2048], out[16384];
    snprintf(cmd, sizeof cmd, "'%s' run '%s/scenes/constraint_loop_ball_on_floor.scn' -n 50",
             SETTEE_CLI, SETTEE_SOURCE_DIR);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%.3000s", out);
    cr_assert(strstr(out, "ConstraintAnimationLoop /loop: currentNumConstraints") &&
                  strstr(out, "converged true x50"),
              "%.3000s", out);
}
