/* test_bdf.c - BDFOdeSolver (SOFA's velocity-based BDF with a
 * NewtonRaphsonSolver) on a damped harmonic oscillator: a unit mass on a
 * RestShapeSpringsForceField of stiffness k = 1 with Rayleigh mass damping
 * c, x'' = -x - c x', x(0) = 1, v(0) = 0, whose closed form is
 * x(t) = e^(-c t / 2) (cos(w t) + c / (2 w) sin(w t)), w = sqrt(1 - c^2 / 4).
 * The error at t = 1 halves with dt at order 1 and quarters at order 2; the
 * first step of any order is BDF1's (SOFA's start-up); a missing Newton
 * solver is SOFA's error. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#define DAMPING 0.1

static double exact(double t)
{
    const double w = sqrt(1 - DAMPING * DAMPING / 4);
    return exp(-DAMPING * t / 2) * (cos(w * t) + DAMPING / (2 * w) * sin(w * t));
}

/* x after steps steps of dt with the given order; *status gets the Newton
 * solver's last status. */
static double run(unsigned order, double dt, int steps, char *status, size_t size)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: %.17g\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Mass,\n"
             "                      SolidMechanics.Spring]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - BDFOdeSolver: {order: %u, rayleighMass: %g}\n"
             "        - NewtonRaphsonSolver: {name: newton, maxNbIterationsNewton: 10,\n"
             "                                absoluteResidualStoppingThreshold: 1e-13,\n"
             "                                relativeSuccessiveStoppingThreshold: 0,\n"
             "                                relativeInitialStoppingThreshold: 0}\n"
             "        - EigenSimplicialLDLT: {}\n"
             "        - MechanicalObject: {name: dofs, position: [1, 0, 0],\n"
             "                             rest_position: [0, 0, 0]}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - RestShapeSpringsForceField: {points: [0], stiffness: 1}\n",
             dt, order, DAMPING);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t.log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t.log);
    for (int i = 0; i < steps; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s", i, err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    const double x = ms->position.r[0];
    st_component *nr = test_find_object(s, "newton");
    if (status) {
        const char *const *st = st_component_field_ptr(nr, st_component_field(nr, "status"));
        snprintf(status, size, "%s", *st);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
    return x;
}

static double error_at_1(unsigned order, int n)
{
    return fabs(run(order, 1.0 / n, n, NULL, 0) - exact(1.0));
}

Test(bdf, order_one_converges_linearly)
{
    const double e1 = error_at_1(1, 100), e2 = error_at_1(1, 200), e3 = error_at_1(1, 400);
    cr_log_info("BDF1 errors %.3g %.3g %.3g", e1, e2, e3);
    cr_assert(e1 < 5e-3, "%.3g", e1);
    cr_assert(fabs(e1 / e2 - 2) < 0.1 && fabs(e2 / e3 - 2) < 0.1, "ratios %.4g %.4g", e1 / e2,
              e2 / e3);
}

Test(bdf, order_two_converges_quadratically)
{
    const double e1 = error_at_1(2, 100), e2 = error_at_1(2, 200), e3 = error_at_1(2, 400);
    cr_log_info("BDF2 errors %.3g %.3g %.3g", e1, e2, e3);
    cr_assert(e1 < 5e-5, "%.3g", e1);
    cr_assert(fabs(e1 / e2 - 4) < 0.3 && fabs(e2 / e3 - 4) < 0.3, "ratios %.4g %.4g", e1 / e2,
              e2 / e3);
    /* Far more accurate than BDF1 at the same step. */
    cr_assert_lt(e1, error_at_1(1, 100) / 50);
}

/* SOFA's start-up: the order grows with the states available, so the first
 * step of BDF2 and BDF3 is BDF1's (backward Euler), bit for bit; the Newton
 * iterations converge on the absolute residual. */
Test(bdf, first_step_is_backward_euler)
{
    char st[64];
    const double x1 = run(1, 0.01, 1, st, sizeof st);
    cr_assert_str_eq(st, "ConvergedAbsoluteResidual");
    cr_assert_eq(run(2, 0.01, 1, NULL, 0), x1);
    cr_assert_eq(run(3, 0.01, 1, NULL, 0), x1);
    /* Backward Euler on the linear oscillator, by hand:
     * v1 = (v0 - h x0) / (1 + h c + h^2), x1 = x0 + h v1. */
    const double h = 0.01, v1 = (0.0 - h * 1.0) / (1 + h * DAMPING + h * h);
    cr_assert(fabs(x1 - (1.0 + h * v1)) < 1e-14, "%.17g vs %.17g", x1, 1.0 + h * v1);
    /* The second step of BDF2 differs from BDF1's. */
    cr_assert_neq(run(2, 0.01, 2, NULL, 0), run(1, 0.01, 2, NULL, 0));
}

Test(bdf, newton_solver_required)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t,
                                  "format: settee/1\n"
                                  "root:\n"
                                  "  name: root\n"
                                  "  objects:\n"
                                  "    - RequiredPlugin: {pluginName: [ODESolver.Backward, "
                                  "LinearSolver.Direct, Mass]}\n"
                                  "  children:\n"
                                  "    - name: P\n"
                                  "      objects:\n"
                                  "        - BDFOdeSolver: {}\n"
                                  "        - SparseLDLSolver: {}\n"
                                  "        - MechanicalObject: {position: [0, 0, 0]}\n"
                                  "        - UniformMass: {totalMass: 1}\n",
                                  &s, &err),
                 ST_OK, "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "Newton-Raphson solver is required"), "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
