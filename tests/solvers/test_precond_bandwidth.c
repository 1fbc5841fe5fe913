/* test_precond_bandwidth.c - issue 15's two speed changes, checked for
 * what they must not change and for what they compute:
 *   - CGLinearSolver's fused vector update and the springs' compact
 *     Jacobian cache (5 factors instead of the 3x3 block): trajectories
 *     identical to the bit to those of the code before the change (hashes
 *     recorded with commit 2e0348c), matrix-free and assembled;
 *   - SparseLDLSolver's solvePrecision single (settee's option): solves
 *     with a float copy of the factor, supernodal and simplicial, LL^T and
 *     LDL^T, agree with the double solve to float accuracy (and are not the
 *     double solve); as PCG's stale preconditioner the converged steps give
 *     the direct solver's trajectory; no allocation during steps; a bad
 *     value is an error naming the field. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_test_util.h"

/* A spring beam of nx x ny x nz nodes, base fixed, EulerImplicitSolver
 * with Rayleigh damping; `solvers` are the linear solver lines (the ODE
 * solver uses "ls"). */
static st_scene *beam(test_rt *t, int nx, int ny, int nz, const char *solvers)
{
    return scene_spring_beam(t, nx, ny, nz, "rayleighStiffness: 0.1, rayleighMass: 0.1, ",
                             solvers);
}

/* FNV-1a over the bytes of the positions then the velocities (the hash the
 * recorded values were computed with, from the same run's exported state). */
static uint64_t state_hash(const st_mstate *ms)
{
    uint64_t h = 0xcbf29ce484222325u;
    const double *arrays[2] = {ms->position.r, ms->velocity.r};
    for (int a = 0; a < 2; a++)
        for (size_t i = 0; i < 3 * ms->n; i++) {
            unsigned char b[sizeof(double)];
            memcpy(b, &arrays[a][i], sizeof b);
            for (size_t k = 0; k < sizeof b; k++) {
                h ^= b[k];
                h *= 0x100000001b3u;
            }
        }
    return h;
}

/* The 5 x 5 x 21 beam, CGLinearSolver with SOFA's settings of the issue's
 * second figure (1000 iterations, tolerance and threshold 1e-12), 20 steps:
 * the state hashes of commit 2e0348c, before the fused update and the
 * compact spring cache (little-endian IEEE doubles, SSE2 arithmetic). */
Test(precond_bandwidth, cg_trajectory_unchanged_to_the_bit)
{
    static const struct {
        const char *templ;
        uint64_t hash;
    } cases[] = {{"GraphScattered", 0xf177083aa153a639u},
                 {"CompressedRowSparseMatrixMat3x3d", 0xe33900df6a9c3d3au}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char solver[512];
        snprintf(solver, sizeof solver,
                 "        - CGLinearSolver: {name: ls, template: %s, iterations: 1000,\n"
                 "                           tolerance: 1e-12, threshold: 1e-12}\n",
                 cases[c].templ);
        test_rt t;
        test_rt_open(&t);
        st_scene *s = beam(&t, 5, 5, 21, solver);
        st_error err = {0};
        unsigned iters = 0;
        st_component *ls = scene_object(s, "ls");
        for (int i = 0; i < 20; i++) {
            cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
            iters += *(const unsigned *)st_component_field_ptr(
                ls, st_component_field(ls, "nbIterations"));
        }
        cr_assert_gt(iters, 20u * 20u, "%s: the solves iterate (%u iterations)", cases[c].templ,
                     iters);
        const st_mstate *ms = scene_state(s, "dofs");
        uint64_t h = state_hash(ms);
        cr_assert_eq(h, cases[c].hash, "%s: state hash %#llx, expected %#llx (an iterate changed)",
                     cases[c].templ, (unsigned long long)h, (unsigned long long)cases[c].hash);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* Solves the current system with "dbl" and "sgl" (the same SparseLDLSolver
 * in double and single precision) at factors (mf, kf), b random; returns the
 * largest |x_single - x_double| over the largest |x_double|. */
static double single_vs_double(st_scene *s, double mf, double kf, double *res_single)
{
    st_system *sys = s->systems[0];
    st_error err = {0};
    const size_t n = sys->size;
    double *b = calloc(sys->size_all, sizeof *b), *xd = calloc(sys->size_all, sizeof *xd),
           *xs = calloc(sys->size_all, sizeof *xs), *ax = calloc(sys->size_all, sizeof *ax);
    srand(11);
    for (size_t i = 0; i < n; i++)
        b[i] = (double)rand() / RAND_MAX - 0.5;
    st_system_project_response(sys, b);
    st_component *dbl = scene_object(s, "dbl"), *sgl = scene_object(s, "sgl");
    cr_assert_eq(dbl->cls->linsolver->set_system(dbl, sys, mf, 0, kf, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(dbl->cls->linsolver->solve(dbl, sys, xd, b, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(sgl->cls->linsolver->set_system(sgl, sys, mf, 0, kf, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(sgl->cls->linsolver->solve(sgl, sys, xs, b, &err), ST_OK, "%s", err.msg);
    /* Same factor structure. */
    cr_assert_eq(*(const int *)st_component_field_ptr(dbl, st_component_field(dbl, "L_nnz")),
                 *(const int *)st_component_field_ptr(sgl, st_component_field(sgl, "L_nnz")));
    double dmax = 0.0, xmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        dmax = fmax(dmax, fabs(xs[i] - xd[i]));
        xmax = fmax(xmax, fabs(xd[i]));
    }
    /* The single solve's residual through the assembled matrix. */
    st_matrix *m = NULL;
    cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, sys, mf, 0, kf, &err), ST_OK, "%s", err.msg);
    st_matrix_mul(m, ax, xs);
    double rn = 0.0, bn = 0.0;
    for (size_t i = 0; i < n; i++) {
        rn += (b[i] - ax[i]) * (b[i] - ax[i]);
        bn += b[i] * b[i];
    }
    *res_single = sqrt(rn / bn);
    st_matrix_destroy(&m);
    free(b);
    free(xd);
    free(xs);
    free(ax);
    cr_assert_gt(xmax, 0.0);
    return dmax / xmax;
}

static const char ldl_pair[] =
    "        - SparseLDLSolver: {name: ls, template: CompressedRowSparseMatrixMat3x3d}\n"
    "        - SparseLDLSolver: {name: dbl, template: CompressedRowSparseMatrixMat3x3d}\n"
    "        - SparseLDLSolver: {name: sgl, template: CompressedRowSparseMatrixMat3x3d,\n"
    "                            solvePrecision: single}\n";

/* A beam big enough for CHOLMOD's supernodal factor (supernodes solved
 * with plain loops and with OpenBLAS), a small one (simplicial LL^T), and
 * the small one's indefinite -M + kf K (simplicial LDL^T fall-back). */
Test(precond_bandwidth, single_precision_solves_are_float_accurate)
{
    static const struct {
        int nx, ny, nz;
        double mf, kf;
    } cases[] = {{6, 6, 20, 1.0, -1e-4}, {2, 2, 4, 1.0, -1e-4}, {2, 2, 4, -1.0, -1e-6}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        test_rt t;
        test_rt_open(&t);
        st_scene *s = beam(&t, cases[c].nx, cases[c].ny, cases[c].nz, ldl_pair);
        st_error err = {0};
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        double res = 0.0;
        double d = single_vs_double(s, cases[c].mf, cases[c].kf, &res);
        /* Float rounding: about 1e-7 relative times a modest condition
         * number; exactly the double solve would mean no float at all. */
        cr_assert(d > 1e-12 && d < 1e-4, "case %zu: single differs from double by %.3g", c, d);
        cr_assert(res < 1e-4, "case %zu: single solve residual %.3g", c, res);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* PCG with a single-precision stale factor (built at the first step only)
 * converges every step to the asked tolerance, and its trajectory is the
 * refactorized direct solver's to the tolerance; no allocation in steps. */
Test(precond_bandwidth, pcg_with_single_precision_stale_factor)
{
    static const char pcg[] =
        "        - PCGLinearSolver: {name: ls, iterations: 1000, tolerance: 1e-24,\n"
        "                            preconditioner: \"@pre\", update_step: 0}\n"
        "        - SparseLDLSolver: {name: pre, template: CompressedRowSparseMatrixMat3x3d,\n"
        "                            solvePrecision: single}\n";
    static const char ldl[] =
        "        - SparseLDLSolver: {name: ls, template: CompressedRowSparseMatrixMat3x3d}\n";
    double *ref = NULL;
    size_t n = 0;
    for (int k = 0; k < 2; k++) {
        test_rt t;
        test_rt_open(&t);
        st_scene *s = beam(&t, 4, 4, 16, k == 0 ? ldl : pcg);
        st_error err = {0};
        st_component *ls = scene_object(s, "ls");
        unsigned long before = 0;
        for (int i = 0; i < 30; i++) {
            if (i == 1)
                before = st_alloc_count();
            cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
            if (k == 1) {
                const double rn = *(const double *)st_component_field_ptr(
                    ls, st_component_field(ls, "residualNorm"));
                const unsigned it = *(const unsigned *)st_component_field_ptr(
                    ls, st_component_field(ls, "nbIterations"));
                cr_assert_leq(rn, 1e-11, "step %d: |r|/|b| %.3g", i, rn);
                cr_assert(it >= 1 && it <= 10, "step %d: %u iterations", i, it);
            }
        }
        cr_assert_eq(st_alloc_count(), before, "%lu allocations in 29 steps",
                     st_alloc_count() - before);
        const st_mstate *ms = scene_state(s, "dofs");
        if (k == 0) {
            n = 3 * ms->n;
            ref = malloc(n * sizeof *ref);
            memcpy(ref, ms->position.r, n * sizeof *ref);
        } else {
            double d = 0.0, disp = 0.0;
            for (size_t i = 0; i < n; i++) {
                d = fmax(d, fabs(ms->position.r[i] - ref[i]));
                disp = fmax(disp, fabs(ref[i] - ms->rest_position.r[i]));
            }
            cr_assert_gt(disp, 1e-3);
            cr_assert(d <= 1e-9 * disp, "trajectory differs from the direct solve by %.3g (%.3g)",
                      d, disp);
        }
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
    free(ref);
}

Test(precond_bandwidth, bad_precision_is_an_error)
{
    test_rt t;
    test_rt_open(&t);
    const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  name: root\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [LinearSolver.Direct]}\n"
        "    - SparseLDLSolver: {name: ls, solvePrecision: half}\n";
    st_error err = scene_refused(&t, yaml, "half");
    cr_assert(strstr(err.msg, "single"), "%s", err.msg);
    cr_assert(strstr(err.path, "solvePrecision") || strstr(err.msg, "solvePrecision"), "%s %s",
              err.path, err.msg);
    test_rt_close(&t);
}
