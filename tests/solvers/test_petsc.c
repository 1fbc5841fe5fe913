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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* preconditionerUpdateStep: over STEPS (10) assemblies the preconditioner is
 * built once (0), at each (1), or at the 1st, 4th, 7th and 10th (3); a stale
 * multigrid still brings the solve to the current matrix's tolerance, and
 * never in fewer iterations than a fresh one. */
Test(petsc, preconditioner_update_step)
{
    if (!petsc_available())
        cr_skip_test("LinearSolver.PETSc not built (no libpetsc-real-dev)");
    static double x0[3 * 176];
    size_t n = 0;
    run("SparseLDLSolver: {name: ls}", x0, &n, NULL, NULL);
    static const struct {
        unsigned step, builds;
    } cases[] = {{1, 10}, {0, 1}, {3, 4}};
    unsigned its[3] = {0};
    for (size_t k = 0; k < 3; k++) {
        char line[256];
        snprintf(line, sizeof line,
                 "PETScLinearSolver: {name: ls, tolerance: 1e-12, preconditionerUpdateStep: %u,\n"
                 "                    options: \"-ksp_norm_type unpreconditioned\"}",
                 cases[k].step);
        test_rt t;
        test_rt_open(&t);
        st_error err = {0};
        st_scene *s = beam(&t, line, &err);
        cr_assert_not_null(s, "%s", err.msg);
        st_component *ls = test_find_object(s, "ls");
        const st_field *fi = st_component_field(ls, "nbIterations");
        for (int i = 0; i < STEPS; i++) {
            cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s step %d: %s", line, i, err.msg);
            its[k] += *(const unsigned *)st_component_field_ptr(ls, fi);
        }
        const unsigned builds = *(const unsigned *)st_component_field_ptr(
            ls, st_component_field(ls, "preconditionerBuilds"));
        const double res =
            *(const double *)st_component_field_ptr(ls, st_component_field(ls, "residual"));
        st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
        const double d = max_rel_diff(ms->position.r, x0, n);
        cr_log_info("update step %u: %u builds, %u iterations, vs SparseLDL %.3g",
                    cases[k].step, builds, its[k], d);
        cr_assert_eq(builds, cases[k].builds, "update step %u: %u builds", cases[k].step,
                     builds);
        cr_assert_leq(res, 1e-10, "update step %u: |b - Ax|/|b| = %.3g", cases[k].step, res);
        cr_assert_leq(d, 1e-9, "update step %u: positions differ from SparseLDL by %.3g",
                      cases[k].step, d);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
    cr_assert_geq(its[1], its[0], "stale %u iterations, fresh %u", its[1], its[0]);
}

/* PETSc is finalised at the process's exit, so its reports asked for in the
 * options (here -log_view into a file) are written. */
Test(petsc, log_view_is_written_at_exit)
{
    if (!petsc_available())
        cr_skip_test("LinearSolver.PETSc not built (no libpetsc-real-dev)");
    char dir[] = "/tmp/settee-petsc-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char scene[300], log[300], cmd[2000];
    snprintf(scene, sizeof scene, "%s/beam.yaml", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    FILE *f = fopen(scene, "w");
    cr_assert_not_null(f);
    fputs(test_beam_yaml(", LinearSolver.PETSc", "EulerImplicitSolver: {}",
                         "PETScLinearSolver: {name: ls}"),
          f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' run -n 2 --quiet '%s' 2>&1", SETTEE_CLI, scene);
    char *env = NULL;
    cr_assert_gt(asprintf(&env, "-log_view :%s", log), 0);
    setenv("PETSC_OPTIONS", env, 1);
    free(env);
    static char out[1 << 16];
    const int rc = test_run(cmd, out, sizeof out);
    unsetenv("PETSC_OPTIONS");
    cr_assert_eq(rc, 0, "%s", out);
    f = fopen(log, "r");
    cr_assert_not_null(f, "no PETSc log written: %s", out);
    static char text[1 << 16];
    const size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    cr_assert(strstr(text, "KSPSolve") && strstr(text, "PCSetUp"), "%.2000s", text);
    remove(log);
    remove(scene);
    rmdir(dir);
}
