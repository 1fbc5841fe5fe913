/* test_improved_jacobi.c - ImprovedJacobiConstraintSolver on the pivot -
 * B - C chain of lagrangian_test_util.h, whose W couples the two
 * bilateral blocks (per axis [[a, -a], [-a, a + c]], Jacobi's iteration
 * matrix has spectral radius sqrt(a / (a + c)) = 0.82 < 1): the solve
 * converges to the dense solution; the first iterates are the hand-written
 * block Jacobi lambda' = lambda - rho D^-1 (dfree + W lambda) (D the
 * diagonal blocks, no warm start on the first step), with the spectral
 * factor rho and the conjugate residue's momentum beta (lambda_{i-1} -
 * lambda_{i-2}), beta = (i / maxIterations)^speed; SOFA's iteration count
 * (iterations + 1); and Jacobi needs more iterations than Gauss-Seidel. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lagrangian_test_util.h"

static const double H = 0.01, G = 9.81;
static const double X[6] = {1.1, 0.2, 0, 2, -0.1, 0.3};

static void run(const char *solver, double lam[6], int *iterations)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    lag_chain_yaml(yaml, sizeof yaml, G, H, solver, "BilateralLagrangianConstraint", X, NULL);
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

/* `iters` iterations of the block Jacobi by hand. */
static void by_hand(int iters, double rho, int max_it, double speed, bool residue, double lam[6])
{
    double W[36], d0[6], delta[6] = {0}, d[6];
    lag_chain_problem(G, H, X, NULL, W, d0);
    memcpy(d, d0, sizeof d);
    memset(lam, 0, 6 * sizeof *lam);
    for (int i = 0; i < iters; i++) {
        const double beta = residue ? fmin(1.0, pow((double)i / max_it, speed)) : 0.0;
        for (int l = 0; l < 6; l++)
            for (int k = 0; k < 6; k++)
                d[l] += W[l * 6 + k] * delta[k];
        for (int l = 0; l < 6; l++) {
            const double prev = lam[l];
            lam[l] -= rho * d[l] / W[l * 6 + l];
            lam[l] += beta * delta[l];
            delta[l] = lam[l] - prev;
        }
    }
}

Test(improved_jacobi, converges_to_the_dense_solution)
{
    double W[36], lam[6], ref[6], gs[6];
    lag_chain_problem(G, H, X, NULL, W, ref);
    for (int i = 0; i < 6; i++)
        ref[i] = -ref[i];
    cr_assert_eq(test_dense_solve(6, W, ref), 0);
    int it = 0, it_gs = 0;
    run("ImprovedJacobiConstraintSolver: {name: csolver, computeConstraintForces: true, "
        "maxIterations: 100000, tolerance: 1e-15}",
        lam, &it);
    for (int i = 0; i < 6; i++)
        cr_assert_float_eq(lam[i], ref[i], 1e-9 * (1.0 + fabs(ref[i])), "row %d: %.17g vs %.17g",
                           i, lam[i], ref[i]);
    run("BlockGaussSeidelConstraintSolver: {name: csolver, computeConstraintForces: true, "
        "maxIterations: 100000, tolerance: 1e-15}",
        gs, &it_gs);
    cr_assert_gt(it, it_gs, "Jacobi %d iterations, Gauss-Seidel %d", it, it_gs);
    cr_assert_lt(it, 100000);
}

Test(improved_jacobi, first_iterates_are_the_block_jacobi)
{
    double lam[6], ref[6];
    int it = 0;
    for (int n = 1; n <= 3; n++) {
        char solver[512];
        snprintf(solver, sizeof solver,
                 "ImprovedJacobiConstraintSolver: {name: csolver, computeConstraintForces: "
                 "true, maxIterations: %d, tolerance: 1e-30}",
                 n);
        run(solver, lam, &it);
        by_hand(n, 1.0, n, 10.0, false, ref);
        cr_assert_eq(it, n + 1, "SOFA's count: %d", it);
        for (int i = 0; i < 6; i++)
            cr_assert_float_eq(lam[i], ref[i], 1e-12 * (1.0 + fabs(ref[i])),
                               "%d iterations, row %d: %.17g vs %.17g", n, i, lam[i], ref[i]);
    }
}

Test(improved_jacobi, spectral_factor_and_conjugate_residue)
{
    double lam[6], ref[6];
    /* W's eigenvalues are below 0.02: 1.8 / r^2 > 1, rho = the factor. */
    run("ImprovedJacobiConstraintSolver: {name: csolver, computeConstraintForces: true, "
        "maxIterations: 3, tolerance: 1e-30, useSpectralCorrection: true, "
        "spectralCorrectionFactor: 0.5}",
        lam, NULL);
    by_hand(3, 0.5, 3, 10.0, false, ref);
    for (int i = 0; i < 6; i++)
        cr_assert_float_eq(lam[i], ref[i], 1e-12 * (1.0 + fabs(ref[i])), "spectral row %d", i);
    run("ImprovedJacobiConstraintSolver: {name: csolver, computeConstraintForces: true, "
        "maxIterations: 4, tolerance: 1e-30, useConjugateResidue: true, "
        "conjugateResidueSpeedFactor: 2}",
        lam, NULL);
    by_hand(4, 1.0, 4, 2.0, true, ref);
    double plain[6];
    by_hand(4, 1.0, 4, 2.0, false, plain);
    double diff = 0.0;
    for (int i = 0; i < 6; i++) {
        cr_assert_float_eq(lam[i], ref[i], 1e-12 * (1.0 + fabs(ref[i])), "residue row %d: "
                           "%.17g vs %.17g", i, lam[i], ref[i]);
        diff = fmax(diff, fabs(ref[i] - plain[i]));
    }
    cr_assert_gt(diff, 1e-6, "the momentum changed nothing");
}

/* Three unilateral rows on the same particle along the same normal:
 * W = c ones(3), 2 D - W is not positive definite and plain projected
 * Jacobi (rho 1) swings between pushing three times too hard and not at
 * all, as SOFA's does: the solve fails and says to use the spectral
 * correction; with it (r = (3 c)^2, rho = 1.8 / r) the three rows share the
 * force that holds the particle (W's diagonal is the compliance 1:
 * useOdeSolverIntegrationFactors false). */
static st_scene *coupled_rows(test_rt *t, bool spectral)
{
    char solver[256], yaml[4096];
    snprintf(solver, sizeof solver,
             "ImprovedJacobiConstraintSolver: {name: csolver, computeConstraintForces: true, "
             "maxIterations: 200, tolerance: "
             "1e-12, useSpectralCorrection: %s}",
             spectral ? "true" : "false");
    snprintf(yaml, sizeof yaml,
             LAG_HEADER
             "    - FreeMotionAnimationLoop: {}\n"
             "    - %s\n"
             "    - UnilateralLagrangianConstraint: {object1: '@Anchor/anchor',\n"
             "        object2: '@Block/block', first_point: [0, 0, 0],\n"
             "        second_point: [0, 0, 0], normals: [[0, 1, 0], [0, 1, 0], [0, 1, 0]]}\n"
             "  children:\n"
             "    - name: Anchor\n"
             "      objects:\n"
             "        - MechanicalObject: {name: anchor, position: [[0, 0, 0]]}\n"
             "    - name: Block\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: block, position: [[0, 0, 0]]}\n"
             "        - UniformMass: {vertexMass: 1}\n"
             "        - UncoupledConstraintCorrection: {compliance: [1],\n"
             "            useOdeSolverIntegrationFactors: false}\n",
             -G, H, solver);
    return scene_load(t, yaml);
}

Test(improved_jacobi, coupled_rows_need_the_spectral_correction)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = coupled_rows(&t, false);
    scene_steps(&t, s, 2);
    cr_assert(!*(bool *)scene_field(s, "csolver", "converged"), "plain Jacobi converged");
    cr_assert(strstr(t.log, "useSpectralCorrection: true"), "no hint:\n%s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);

    test_rt_open(&t);
    s = coupled_rows(&t, true);
    scene_steps(&t, s, 2);
    cr_assert(*(bool *)scene_field(s, "csolver", "converged"), "%s", t.log);
    cr_assert(!strstr(t.log, "useSpectralCorrection: true"), "hint given:\n%s", t.log);
    st_array *cf = scene_field(s, "csolver", "constraintForces");
    cr_assert_eq(cf->n, 3u);
    const double *f = cf->p;
    /* The rows hold the particle: together they cancel the free motion's
     * fall (the particle stays at the anchor). */
    const double *y = scene_state(s, "block")->position.r;
    cr_assert(fabs(y[1]) < 1e-9, "particle at y %g", y[1]);
    cr_assert(f[0] + f[1] + f[2] > 0.0, "no force");
    st_scene_destroy(&s);
    test_rt_close(&t);
}
