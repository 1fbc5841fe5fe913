/* test_pcr_constraint_solver.c - PreconditionedConjugateResidual:
 *   - on the chain of two bilateral constraints (W and dfree known in
 *     closed form, lagrangian_test_util.h) its multipliers are W^-1 (-dfree)
 *     from LAPACK's dgesv, and residualNorm is |W lambda + dfree|;
 *   - on a diagonal W (a held particle, one correction) it stops at the
 *     exact solution instead of dividing 0 by 0 (SOFA's NaN), and the
 *     particle stays put;
 *   - its warning about SOFA's error measure is given once at init. */
#include <criterion/criterion.h>
#include <math.h>

#include "lagrangian_test_util.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(pcr_constraint_solver, .init = setup, .fini = teardown);

#define G 9.81
#define H 0.01

Test(pcr_constraint_solver, chain_multipliers_are_the_linear_solution)
{
    const double x[6] = {1, 0, 0, 2, 0.3, -0.2};
    char yaml[8192];
    lag_chain_yaml(yaml, sizeof yaml, G, H,
                   "PreconditionedConjugateResidual: {name: pcr, tolerance: 1e-12,"
                   " computeConstraintForces: true}",
                   "BilateralLagrangianConstraint", x, NULL);
    st_scene *s = scene_load(&T, yaml);
    cr_assert(strstr(T.log, "one residual entry per iteration"), "%s", T.log);
    scene_steps(&T, s, 1);
    double W[36], dfree[6], lam[6];
    lag_chain_problem(G, H, x, NULL, W, dfree);
    for (int i = 0; i < 6; i++)
        lam[i] = -dfree[i];
    cr_assert_eq(test_dense_solve(6, W, lam), 0);
    const st_array *f = scene_field(s, "pcr", "constraintForces");
    cr_assert_eq(f->n, 6u);
    double d = 0, m = 0;
    for (int i = 0; i < 6; i++) {
        d = fmax(d, fabs(f->r[i] - lam[i]));
        m = fmax(m, fabs(lam[i]));
    }
    const double *res = scene_field(s, "pcr", "residualNorm");
    cr_log_info("PCR vs dgesv %.3g (max |lambda| %.3g), residualNorm %.3g", d, m, *res);
    cr_assert_gt(m, 1e-3);
    cr_assert_leq(d, 1e-9 * m, "PCR's multipliers differ from W^-1 (-dfree) by %.3g", d);
    cr_assert_leq(*res, 1e-9, "residualNorm %g", *res);
    st_scene_destroy(&s);
}

Test(pcr_constraint_solver, diagonal_compliance_no_nan)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             LAG_HEADER
             "    - FreeMotionAnimationLoop: {}\n"
             "    - PreconditionedConjugateResidual: {name: pcr, tolerance: 1e-12}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: dofs, position: [0, 1, 0], velocity: [1, 2, 3]}\n"
             "        - UniformMass: {vertexMass: 2}\n"
             "        - FixedLagrangianConstraint: {indices: [0]}\n"
             "        - UncoupledConstraintCorrection: {compliance: [0.5]}\n",
             -G, H);
    st_scene *s = scene_load(&T, yaml);
    scene_steps(&T, s, 5);
    const double *x = scene_state(s, "dofs")->position.p;
    cr_assert(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]));
    cr_assert_leq(fabs(x[0]) + fabs(x[1] - 1.0) + fabs(x[2]), 1e-12, "held at %g %g %g", x[0],
                  x[1], x[2]);
    cr_assert(*(const bool *)scene_field(s, "pcr", "converged"));
    st_scene_destroy(&s);
}
