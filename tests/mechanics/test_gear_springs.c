/* test_gear_springs.c - GearSpringForceField on Rigid3d frames, against
 * hand-computed forces: the coupling torque -soft (r angle_1 + angle_2)
 * about each gear's free axis (1/r of it on the second), the hard torque
 * that brings a tilted gear's axis back onto its parent's, the
 * translational spring to the parent (and its reaction on the parent), the
 * accumulation of the angle across calls, SOFA's linearised coupling in
 * add_dforce, and bad input. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static st_scene *load(test_rt *t, const char *spring, bool expect_ok, const char *needle)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative,\n"
             "                      Mass, SolidMechanics.Spring]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-14}\n"
             "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"
             "            position: [0, 0, 0, 0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, "
             "1]}\n"
             "        - UniformMass: {vertexMass: [1, 1, [1, 0, 0, 0, 1, 0, 0, 0, 1]]}\n"
             "        - GearSpringForceField: {name: gears, template: Rigid3d, spring: '%s'}\n",
             spring);
    test_rt_open(t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    st_status st = st_scene_init(s, &err);
    if (expect_ok) {
        cr_assert_eq(st, ST_OK, "init: %s\n%s", err.msg, t->log);
    } else {
        cr_assert_neq(st, ST_OK, "init should fail: %s", needle);
        cr_assert(strstr(err.msg, needle), "'%s' lacks '%s'", err.msg, needle);
    }
    return s;
}

/* Rotation by angle about axis a, as (x y z w). */
static void quat(double q[4], int a, double angle)
{
    q[0] = q[1] = q[2] = 0.0;
    q[a] = sin(angle / 2);
    q[3] = cos(angle / 2);
}

/* The force at x (the system's coordinates) into f (18 values). */
static void force(st_component *g, st_system *sys, const double *x, double *f)
{
    memset(f, 0, 18 * sizeof *f);
    g->cls->forcefield->add_force(g, &sys->mp, f, x, sys->v);
}

Test(gear_springs, coupling_torque_about_the_free_axes)
{
    test_rt t;
    /* Both gears are their own parents (their init frames), free about z,
     * soft 50, ratio 2, no damping. */
    st_scene *s = load(&t, "BEGIN_SPRING 0 0 1 1 AXIS 2 2 KS_T 1000 KS_R 50 1000 KD 0 RATIO 2 "
                           "END_SPRING", true, NULL);
    st_component *g = test_find_object(s, "gears");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    st_system *sys = ms->system;
    double x[21], f[18];
    memcpy(x, ms->position.r, sizeof x);
    const double t0 = 0.1, t1 = -0.04;
    quat(x + 3, 2, t0);
    quat(x + 7 + 3, 2, t1);
    force(g, sys, x, f);
    const double tq = -50.0 * (2 * t0 + t1);
    cr_assert_float_eq(f[5], tq, 1e-12, "gear 0 torque %.17g vs %.17g", f[5], tq);
    cr_assert_float_eq(f[6 + 5], tq / 2, 1e-12, "gear 1 torque %.17g", f[6 + 5]);
    for (int a = 0; a < 5; a++) {
        cr_assert_float_eq(f[a], 0.0, 1e-12, "gear 0 component %d: %g", a, f[a]);
        cr_assert_float_eq(f[6 + a], 0.0, 1e-12);
    }
    /* The angle accumulates by the change since the last call: calling
     * again at the same frames gives the same torque. */
    force(g, sys, x, f);
    cr_assert_float_eq(f[5], tq, 1e-12);
    /* Add 0.05 more on gear 0. */
    quat(x + 3, 2, t0 + 0.05);
    force(g, sys, x, f);
    cr_assert_float_eq(f[5], -50.0 * (2 * (t0 + 0.05) + t1), 1e-12);
    /* SOFA's linearised coupling: a rotation increment about z on gear 0
     * gives -soft r on gear 0 and -soft on gear 1. */
    double dx[18] = {0}, df[18] = {0};
    dx[5] = 1.0;
    g->cls->forcefield->add_dforce(g, &sys->mp, df, dx, 1.0, 0.0);
    cr_assert_float_eq(df[5], -100.0, 1e-9, "%.17g", df[5]);
    cr_assert_float_eq(df[6 + 5], -50.0, 1e-9, "%.17g", df[6 + 5]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(gear_springs, hard_springs_hold_the_gear_on_its_parent)
{
    test_rt t;
    /* Gear 0 on the support 2, free about z; gear 1 its own parent. */
    st_scene *s = load(&t, "BEGIN_SPRING 2 0 1 1 AXIS 2 2 KS_T 1000 KS_R 50 2000 KD 0 "
                           "END_SPRING", true, NULL);
    st_component *g = test_find_object(s, "gears");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    st_system *sys = ms->system;
    double x[21], f[18];
    memcpy(x, ms->position.r, sizeof x);
    /* The support is at (1, 1, 0), the gear at 0: kt (p - c) = (1000, 1000, 0)
     * on the gear, the opposite on the support. Tilt the gear by 0.2 about
     * x: its z axis comes back with -hard 0.2 about x. The angle about z
     * from the support's frame is SOFA's mean over the x and y axes of
     * their unsigned angles, signed only when the rotation points against
     * z: the x axis' 0 and the y axis' 0.2 (about x, perpendicular to z,
     * counted positive): 0.1, so the coupling adds -50 (1 * 0.1) about the
     * gear's tilted z axis (0, -sin 0.2, cos 0.2). */
    quat(x + 3, 0, 0.2);
    force(g, sys, x, f);
    cr_assert_float_eq(f[0], 1000.0, 1e-9);
    cr_assert_float_eq(f[1], 1000.0, 1e-9);
    cr_assert_float_eq(f[12], -1000.0, 1e-9);
    cr_assert_float_eq(f[13], -1000.0, 1e-9);
    cr_assert_float_eq(f[3], -2000.0 * 0.2, 1e-9, "%.17g", f[3]);
    cr_assert_float_eq(f[12 + 3], 2000.0 * 0.2, 1e-9);
    cr_assert_float_eq(f[4], -5.0 * -sin(0.2), 1e-9, "%.17g", f[4]);
    cr_assert_float_eq(f[5], -5.0 * cos(0.2), 1e-9, "%.17g", f[5]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(gear_springs, runs_and_turns_the_second_gear)
{
    test_rt t;
    /* Gear 0 starts spinning about z; the coupling drives gear 1 the other
     * way (angle_1 r + angle_2 -> 0). */
    st_scene *s = load(&t, "BEGIN_SPRING 0 0 1 1 AXIS 2 2 KS_T 1000 KS_R 50 1000 KD 0 RATIO 2 "
                           "END_SPRING", true, NULL);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    ms->velocity.r[5] = 1.0;
    st_error err = {0};
    for (int i = 0; i < 10; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_lt(ms->velocity.r[6 + 5], -1e-3, "gear 1 w_z %g", ms->velocity.r[6 + 5]);
    cr_assert_lt(ms->velocity.r[5], 1.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(gear_springs, bad_input)
{
    test_rt t;
    st_scene *s = load(&t, "BEGIN_SPRING 0 0 1 1 SPEED 3 END_SPRING", false, "unknown attribute");
    st_scene_destroy(&s);
    test_rt_close(&t);
    s = load(&t, "BEGIN_SPRING 0 0 7 1 END_SPRING", false, "p2 index 7");
    st_scene_destroy(&s);
    test_rt_close(&t);
    s = load(&t, "BEGIN_SPRING 0 0 1 1 AXIS 0 3 END_SPRING", false, "AXIS 3");
    st_scene_destroy(&s);
    test_rt_close(&t);
    s = load(&t, "BEGIN_SPRING 0 0 1 1 KS_R 5", false, "KS_R expects 2");
    st_scene_destroy(&s);
    test_rt_close(&t);
}
