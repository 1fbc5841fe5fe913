/* test_timer.c - the kernel's timers (settee/timer.h, SOFA's AdvancedTimer):
 * only an enabled, running timer records; steps nest and carry times; the
 * default animation loop, an implicit Euler solver and its CG report SOFA's
 * labels; a timer on another thread sees nothing of this one's. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "support.h"

static const char *const SCENE =
    "format: settee/1\n"
    "root:\n"
    "  name: root\n"
    "  dt: 0.01\n"
    "  gravity: [0, -9.81, 0]\n"
    "  objects:\n"
    "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,\n"
    "                                    SolidMechanics.Spring]}\n"
    "    - DefaultAnimationLoop: {}\n"
    "  children:\n"
    "    - name: beam\n"
    "      objects:\n"
    "        - EulerImplicitSolver: {}\n"
    "        - CGLinearSolver: {name: cg, iterations: 4, tolerance: 1e-30, threshold: 1e-30}\n"
    "        - MechanicalObject: {name: dofs, position: [0 0 0, 1 0.3 0, 2 0 0.2]}\n"
    "        - UniformMass: {totalMass: 1}\n"
    "        - RestShapeSpringsForceField: {stiffness: [10]}\n";

/* Index of the first record of type ty and label after `from`, or n. */
static size_t find(const st_timer_record *r, size_t n, size_t from, st_timer_record_type ty,
                   const char *label)
{
    for (size_t i = from; i < n; i++)
        if (r[i].type == ty && !strcmp(r[i].label, label))
            return i;
    return n;
}

Test(timer, records_only_while_enabled_and_running)
{
    st_timer_clear();
    const st_timer_record *r;
    size_t n;
    bool trunc;
    st_timer_step_begin("x"); /* nothing runs */
    st_timer_begin("t");      /* not enabled: does not start */
    cr_assert(!st_timer_active());
    st_timer_records("t", &r, &n, &trunc);
    cr_assert_eq(n, 0);
    st_timer_set_enabled("t", true);
    cr_assert(st_timer_is_enabled("t") && !st_timer_is_enabled("u"));
    st_timer_begin("t");
    cr_assert(st_timer_active());
    st_timer_step_begin("a");
    st_timer_val_set("v", 2.5);
    st_timer_step_end("a");
    st_timer_end("t");
    cr_assert(!st_timer_active());
    st_timer_step_begin("after"); /* stopped: not recorded */
    st_timer_records("t", &r, &n, &trunc);
    cr_assert_eq(n, 5);
    cr_assert(!trunc);
    const st_timer_record_type want[] = {ST_TIMER_BEGIN, ST_TIMER_STEP_BEGIN, ST_TIMER_VAL_SET,
                                         ST_TIMER_STEP_END, ST_TIMER_END};
    for (size_t i = 0; i < 5; i++) {
        cr_assert_eq(r[i].type, want[i]);
        cr_assert(i == 0 || r[i].time >= r[i - 1].time);
    }
    cr_assert_str_eq(r[0].label, "t");
    cr_assert_eq(r[2].value, 2.5);
    /* a new run drops the old records */
    st_timer_begin("t");
    st_timer_records("t", &r, &n, &trunc);
    cr_assert_eq(n, 1);
    st_timer_clear();
    cr_assert(!st_timer_active() && !st_timer_is_enabled("t"));
}

Test(timer, a_step_reports_sofa_labels)
{
    st_timer_clear();
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, SCENE, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_timer_set_enabled("step", true);
    st_timer_begin("step");
    cr_assert_eq(st_scene_step(s, 0.0, &err), ST_OK, "%s", err.msg);
    st_timer_end("step");
    const st_timer_record *r;
    size_t n;
    st_timer_records("step", &r, &n, NULL);
    size_t solve = find(r, n, 0, ST_TIMER_STEP_BEGIN, "solve");
    size_t mech = find(r, n, solve, ST_TIMER_STEP_BEGIN, "Mechanical (beam)");
    size_t force = find(r, n, mech, ST_TIMER_STEP_BEGIN, "ComputeForce");
    size_t lin = find(r, n, mech, ST_TIMER_STEP_BEGIN, "MBKSolve");
    size_t cg = find(r, n, lin, ST_TIMER_VAL_SET, "CG iterations");
    size_t lin_end = find(r, n, lin, ST_TIMER_STEP_END, "MBKSolve");
    size_t mech_end = find(r, n, mech, ST_TIMER_STEP_END, "Mechanical (beam)");
    size_t solve_end = find(r, n, mech_end, ST_TIMER_STEP_END, "solve");
    cr_assert(solve < mech && mech < force && force < mech_end);
    cr_assert(lin < cg && cg < lin_end && lin_end < mech_end && mech_end < solve_end,
              "%zu %zu %zu %zu %zu", lin, cg, lin_end, mech_end, solve_end);
    cr_assert(solve_end < n);
    /* the same count as the CG's own output */
    st_component *c = test_find_object(s, "cg");
    cr_assert_not_null(c);
    const unsigned *its = st_component_field_ptr(c, st_component_field(c, "nbIterations"));
    cr_assert(*its >= 1 && *its <= 4);
    cr_assert_eq(r[cg].value, (double)*its);
    cr_assert(r[solve_end].time >= r[solve].time);
    st_scene_destroy(&s);
    test_rt_close(&t);
    st_timer_clear();
}

static void *other_thread(void *arg)
{
    size_t *n = arg;
    const st_timer_record *r;
    st_timer_records("main", &r, n, NULL); /* this thread has no timer "main" */
    st_timer_step_begin("from another thread");
    return NULL;
}

Test(timer, timers_are_per_thread)
{
    st_timer_clear();
    st_timer_set_enabled("main", true);
    st_timer_begin("main");
    size_t seen = 99;
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, other_thread, &seen), 0);
    cr_assert_eq(pthread_join(th, NULL), 0);
    cr_assert_eq(seen, 0);
    const st_timer_record *r;
    size_t n;
    st_timer_records("main", &r, &n, NULL);
    cr_assert_eq(n, 1); /* only its BEGIN */
    st_timer_clear();
}
