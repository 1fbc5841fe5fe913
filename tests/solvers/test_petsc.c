/* test_petsc.c - PETScLinearSolver (plugin LinearSolver.PETSc, built only
 * when PETSc is installed; every test is skipped otherwise): on the seeds'
 * 4x4x11 spring beam, PETSc's CG with GAMG (rigid-body near-null space) and
 * with Jacobi, GMRES with ILU through the options string, and a direct
 * Cholesky give SparseLDLSolver's trajectory to their tolerance; the
 * residual output is |b - A x| / |b|; GAMG needs fewer iterations than
 * Jacobi; non-convergence and bad options are errors naming the solver. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#define STEPS 10

/* Loads the beam with the given solver line (named ls); NULL when the PETSc
 * plugin is not available (the caller skips). */
static st_scene *beam(test_rt *t, const char *solver, st_error *err)
{
    const char *yaml = test_beam_yaml(
        ", LinearSolver.PETSc", "EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}",
        solver);
    st_scene *s = NULL;
    st_status st = test_load_string(t, yaml, &s, err);
    if (st != ST_OK && strstr(err->msg, "LinearSolver.PETSc"))
        return NULL;
    cr_assert_eq(st, ST_OK, "load: %s\n%s", err->msg, t->log);
    if (st_scene_init(s, err) != ST_OK) {
        st_scene_destroy(&s);
        return NULL;
    }
    return s;
}

static bool petsc_available(void)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    st_scene *s = beam(&t, "SparseLDLSolver: {name: ls}", &err);
    bool ok = s != NULL;
    st_scene_destroy(&s);
    test_rt_close(&t);
    return ok;
}

/* Positions after STEPS steps; *iters and *res from the solver's outputs. */
static void run(const char *solver, double *x, size_t *n, unsigned *iters, double *res)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    st_scene *s = beam(&t, solver, &err);
    cr_assert_not_null(s, "%s: %s", solver, err.msg);
    for (int i = 0; i < STEPS; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s step %d: %s", solver, i, err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    *n = 3 * ms->n;
    memcpy(x, ms->position.r, *n * sizeof *x);
    st_component *ls = test_find_object(s, "ls");
    if (iters)
        *iters = *(const unsigned *)st_component_field_ptr(
            ls, st_component_field(ls, "nbIterations"));
    if (res)
        *res = *(const double *)st_component_field_ptr(ls, st_component_field(ls, "residual"));
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static double max_rel_diff(const double *a, const double *b, size_t n)
{
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        m = fmax(m, fabs(b[i]));
    }
    return d / m;
}

Test(petsc, trajectories_match_sparse_ldl)
{
    if (!petsc_available())
        cr_skip_test("LinearSolver.PETSc not built (no libpetsc-real-dev)");
    static double x0[3 * 176], x[3 * 176];
    size_t n = 0;
    run("SparseLDLSolver: {name: ls}", x0, &n, NULL, NULL);
    static const char *const lines[] = {
        "PETScLinearSolver: {name: ls, tolerance: 1e-12,\n"
        "                    options: \"-ksp_norm_type unpreconditioned\"}",
        "PETScLinearSolver: {name: ls, pcType: jacobi, tolerance: 1e-12}",
        "PETScLinearSolver: {name: ls, kspType: gmres, pcType: ilu, tolerance: 1e-12}",
        "PETScLinearSolver: {name: ls, kspType: preonly, pcType: cholesky}",
    };
    for (size_t k = 0; k < sizeof lines / sizeof *lines; k++) {
        unsigned it = 0;
        double res = 1;
        run(lines[k], x, &n, &it, &res);
        const double d = max_rel_diff(x, x0, n);
        cr_log_info("%s: %u iterations, residual %.3g, vs SparseLDL %.3g", lines[k], it, res, d);
        cr_assert_leq(res, 1e-10, "%s: |b - Ax|/|b| = %.3g", lines[k], res);
        cr_assert_leq(d, 1e-10, "%s: positions differ from SparseLDLSolver by %.3g", lines[k],
                      d);
    }
}

Test(petsc, gamg_beats_jacobi)
{
    if (!petsc_available())
        cr_skip_test("LinearSolver.PETSc not built (no libpetsc-real-dev)");
    static double x[3 * 176];
    size_t n = 0;
    unsigned gamg = 0, jacobi = 0;
    run("PETScLinearSolver: {name: ls, pcType: gamg}", x, &n, &gamg, NULL);
    run("PETScLinearSolver: {name: ls, pcType: jacobi}", x, &n, &jacobi, NULL);
    cr_log_info("iterations: gamg %u, jacobi %u", gamg, jacobi);
    cr_assert_lt(gamg, jacobi, "gamg %u, jacobi %u", gamg, jacobi);
}

Test(petsc, failures_are_errors)
{
    if (!petsc_available())
        cr_skip_test("LinearSolver.PETSc not built (no libpetsc-real-dev)");
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    st_scene *s = beam(&t,
                       "PETScLinearSolver: {name: ls, pcType: none, maxIterations: 2, "
                       "tolerance: 1e-14}",
                       &err);
    cr_assert_not_null(s, "%s", err.msg);
    cr_assert_neq(st_scene_step(s, 0, &err), ST_OK);
    cr_assert(strstr(err.msg, "did not converge") && strstr(err.msg, "DIVERGED_ITS"), "%s",
              err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);

    test_rt_open(&t);
    s = beam(&t, "PETScLinearSolver: {name: ls, kspType: nosuchksp}", &err);
    cr_assert_null(s);
    cr_assert(strstr(err.msg, "PETSc") && strstr(err.msg, "KSPSetType"), "%s", err.msg);
    test_rt_close(&t);
}
