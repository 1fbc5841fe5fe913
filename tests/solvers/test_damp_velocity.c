/* test_damp_velocity.c - DampVelocitySolver after an EulerExplicitSolver in
 * the same node, with no force: each step the integrator moves x by dt v,
 * then the filter scales v by exp(-rate dt), so after n steps
 * v_n = v_0 e^(-rate dt n) and x_n = x_0 + dt v_0 sum_{k<n} e^(-rate dt k);
 * a point slower than `threshold` after the scaling is stopped, per point
 * (the norm of its velocity, not per component). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "internal.h"
#include "support.h"

static st_scene *load(test_rt *t, double rate, double threshold)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.1\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerExplicitSolver: {}\n"
             "        - DampVelocitySolver: {name: damp, rate: %g, threshold: %g}\n"
             "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 0, 0, 0, 0, 0, 0],\n"
             "                             velocity: [1, 0, 0, 0.006, 0.006, 0, 0.008, 0.008, 0]}\n"
             "        - UniformMass: {totalMass: 3}\n",
             rate, threshold);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t->log);
    return s;
}

Test(damp_velocity, velocity_decays_exponentially_and_positions_follow)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = load(&t, 0.5, 0.0);
    st_error err = {0};
    const double f = exp(-0.5 * 0.1);
    double x = 0.0;
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    for (int n = 1; n <= 20; n++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s", n, err.msg);
        x += 0.1 * pow(f, n - 1);
        cr_assert_float_eq(ms->velocity.r[0], pow(f, n), 1e-14, "v at step %d: %.17g", n,
                           ms->velocity.r[0]);
        cr_assert_float_eq(ms->position.r[0], x, 1e-14, "x at step %d: %.17g", n,
                           ms->position.r[0]);
    }
    /* Without a threshold slow points keep decaying, never zero. */
    cr_assert_float_eq(ms->velocity.r[3], 0.006 * pow(f, 20), 1e-16);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(damp_velocity, threshold_stops_slow_points_by_norm)
{
    test_rt t;
    test_rt_open(&t);
    /* After one step (factor e^-0.05 = 0.951): point 1 has norm
     * 0.006 sqrt(2) 0.951 = 0.00807 < 0.01, stopped; point 2 has
     * 0.008 sqrt(2) 0.951 = 0.01076, kept although each component is
     * below the threshold. */
    st_scene *s = load(&t, 0.5, 0.01);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    const double f = exp(-0.05);
    cr_assert_eq(ms->velocity.r[3], 0.0);
    cr_assert_eq(ms->velocity.r[4], 0.0);
    cr_assert_float_eq(ms->velocity.r[6], 0.008 * f, 1e-16);
    cr_assert_float_eq(ms->velocity.r[7], 0.008 * f, 1e-16);
    cr_assert_float_eq(ms->velocity.r[0], f, 1e-15);
    /* The stopped point moved during the step, before the filter. */
    cr_assert_float_eq(ms->position.r[3], 0.0006, 1e-16);
    /* Next step: point 2 falls to 0.01023 > 0.01, then 0.00973: stopped. */
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_float_eq(ms->velocity.r[6], 0.008 * f * f, 1e-16);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(ms->velocity.r[6], 0.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(damp_velocity, defaults_are_sofas)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = load(&t, 0.99, 0.0);
    st_component *d = test_find_object(s, "damp");
    const st_class *cls = d->cls;
    cr_assert_str_eq(cls->fields[0].name, "rate");
    cr_assert_str_eq(cls->fields[0].def, "0.99");
    cr_assert_str_eq(cls->fields[1].name, "threshold");
    cr_assert_str_eq(cls->fields[1].def, "0");
    st_scene_destroy(&s);
    test_rt_close(&t);
}
