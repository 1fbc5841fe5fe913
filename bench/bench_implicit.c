/* bench_implicit.c - the implicit spring beam (issue 4): n x n x (5n+1) nodes
 * 1 apart (RegularGridTopology), base layer fixed (BoxROI +
 * FixedProjectiveConstraint), UniformMass totalMass 15, MeshSpringForceField
 * stiffness 300, EulerImplicitSolver (SOFA defaults: no Rayleigh damping),
 * dt 0.01, gravity -9.81 y, with SparseLDLSolver (CHOLMOD) or CGLinearSolver
 * (matrix-free, iterations 25, tolerance 1e-5, threshold 1e-5).
 *
 * Usage: bench_implicit ldl|cg N [STEPS] (default 200 steps),
 *        bench_implicit sofa-ldl N [REPS] (default 3 factorizations).
 *
 * Step 1 is timed apart (it holds the symbolic analysis). The other steps
 * alternate between two kinds, so that both see the same load of the shared
 * machine, and the median of each timing is printed as one line of
 * key=value:
 *  - real steps: st_scene_step (the animation loop, EulerImplicitSolver, the
 *    linear solver): step_ms.
 *  - split steps: the same step driven by the benchmark itself through the
 *    public functions, in EulerImplicitSolver's order (sofa-notes 3.1), each
 *    phase timed with clock_gettime:
 *      force = st_system_compute_force + right-hand side + projection,
 *      set_system = the linear solver's set_system (assembly + numeric
 *                   factorization for SparseLDLSolver; for matrix-free CG it
 *                   only records the factors),
 *      solve = the linear solver's solve (CHOLMOD's solve; for CG all the
 *              iterations with their matrix-free products),
 *      update = v += dv, x += h v.
 *    The assembly inside set_system cannot be timed from outside, so the
 *    benchmark assembles the same matrix (same factors, same state) into a
 *    matrix of its own right after set_system, untimed for the step, and
 *    times that (its first, recording, assembly runs beforehand, untimed):
 *    assembly = that time, factorization = set_system - assembly.
 *    other = step_ms - (force + set_system + solve + update): the animation
 *    loop, events, field touches.
 * step_allocs counts settee allocations (st_alloc_count) in all steps after
 * the first (CHOLMOD's and UMFPACK's own allocator is not counted).
 * pattern_rebuilds counts changes of the benchmark matrix's pattern_version
 * after its first assembly: SparseLDLSolver analyses again only when its
 * (identically built) pattern changes, so 0 means one symbolic analysis per
 * run. peak_rss_mb is read after step 2, before the benchmark's own matrix
 * exists. The exit status is 1 when a step allocated, the pattern changed or
 * the state is not finite.
 * The ldl mode also prints the solver's L_nnz field (CHOLMOD's stored
 * entries: for a supernodal factor the whole supernode blocks, padding
 * included) and, from a CHOLMOD analysis of the benchmark's last matrix with
 * the solver's ordering (untimed, after the run), lnz = nnz(L) with the
 * diagonal and flops = CHOLMOD's flop measure (sum over columns of the
 * squared column count, cholmod_common.fl). factor_mb = 8 bytes x L_nnz, the
 * factor's values (its integer index arrays are far smaller for a
 * supernodal factor). symbolic_analyses is the solver's symbolicAnalyses
 * output after the run, which must be 1 (else the exit status is 1).
 *
 * sofa-ldl mode: SOFA's own SparseLDLSolver cannot be installed here, so
 * sofa_ldl_proxy.c runs its algorithm (up-looking LDL^T of SuiteSparse's
 * LDL package on the METIS-permuted matrix, 1/D, L^T rebuilt; see that
 * file) on the same matrix as the ldl mode: the same scene, 2 real steps
 * with settee's solver so that the beam is deformed (at rest, axis-aligned
 * springs leave exact zeros that SOFA's copy would drop), then the matrix
 * mf = 1, bf = -h, kf = -h^2 assembled once per factorization (untimed, the
 * same values each time). Printed: symbolic_ms (first factorization only:
 * ordering, ldl_symbolic, allocation, L^T counting), factor_ms (median of
 * the per-step work: copy_ms + numeric_ms + transpose_ms, each also given
 * as a median), solve_ms (median), L_nnz (SOFA's: below the diagonal), lnz
 * and flops as in the ldl mode, nnz (the filtered copy), proxy_mb (the
 * proxy's own arrays) and peak_rss_mb (the whole process, settee's solver
 * and its factor included). The exit status is 1 when the relative residual
 * ||A x - b|| / ||b|| of a solve with a non-trivial b is not below 1e-10 or
 * the pattern was analysed more than once; 77 when the proxy was not built
 * (no SuiteSparse LDL). The proxy is slow (seconds to minutes per
 * factorization from n = 12), hence the few repetitions: bench/run gives it
 * 3 factorizations at n = 4, 8, 12 and 1 at n = 16, 20. n = 20 was measured
 * once before deciding (factorization 161 s, whole run 2 min 57 s with the
 * set-up, load average about 3, 3.5 GB peak RSS) and is kept, being within
 * the ~3 minute budget; SETTEE_BENCH_SOFA_SIZES="4 8 12 16" drops it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <cholmod.h>

#include <settee/settee.h>

#include "bench_util.h"

#include "sofa_ldl_proxy.h" /* bench_cholmod_wrap; the proxy itself when built */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(const char *what, const st_error *err)
{
    char buf[ST_ERROR_MSG_MAX + 1024];
    fprintf(stderr, "bench_implicit: %s: %s\n", what, st_error_format(err, buf, sizeof buf));
    return 1;
}

/* Loads and initialises the beam n x n x (5n+1) with the given linear
 * solver (one YAML flow mapping named ls). */
static st_status load_beam(st_runtime *rt, int n, const char *linsolver, st_scene **out,
                           st_error *err)
{
    const int nz = 5 * n + 1;
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct,\n"
             "                      LinearSolver.Iterative, Mass, Topology, SolidMechanics.Spring,\n"
             "                      Constraint.Projective, Engine.Select]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: Beam\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {name: ode}\n"
             "        - %s\n"
             "        - MechanicalObject: {name: dofs}\n"
             "        - RegularGridTopology: {name: grid, nx: %d, ny: %d, nz: %d,\n"
             "                                xmin: 0, xmax: %d, ymin: 0, ymax: %d, zmin: 0, zmax: %d}\n"
             "        - UniformMass: {totalMass: 15}\n"
             "        - BoxROI: {name: box, box: [-0.5, -0.5, -0.5, %d, %d, 0.0001]}\n"
             "        - FixedProjectiveConstraint: {indices: \"@box.indices\"}\n"
             "        - MeshSpringForceField: {name: springs, stiffness: 300}\n",
             linsolver, n, n, nz, n - 1, n - 1, nz - 1, n, n);
    ST_TRY(st_scene_load_string(rt, yaml, strlen(yaml), "bench_implicit.yaml", out, err));
    return st_scene_init(*out, err);
}

static const char ldl_solver_yaml[] =
    "SparseLDLSolver: {name: ls, template: CompressedRowSparseMatrixMat3x3d}";

/* CHOLMOD's analysis of a with the given ordering (AMD, METIS, natural):
 * nnz(L) with the diagonal and the flop measure cholmod_common.fl. Returns
 * 0, or -1 when the ordering is unknown or the analysis fails. */
static int chol_stats(const st_csr *a, const char *ordering, double *lnz, double *fl)
{
    int method;
    if (strcmp(ordering, "AMD") == 0)
        method = CHOLMOD_AMD;
    else if (strcmp(ordering, "METIS") == 0)
        method = CHOLMOD_METIS;
    else if (strcmp(ordering, "natural") == 0 || strcmp(ordering, "None") == 0)
        method = CHOLMOD_NATURAL;
    else
        return -1;
    cholmod_common c;
    if (!cholmod_start(&c))
        return -1;
    c.print = 0;
    c.error_handler = NULL;
    c.nmethods = 1;
    c.method[0].ordering = method;
    c.postorder = 1;
    c.supernodal = CHOLMOD_SIMPLICIAL; /* the counts do not depend on it */
    cholmod_sparse A;
    bench_cholmod_wrap(&A, a->n, a->nnz, a->rowptr, a->colind, a->values);
    cholmod_factor *L = cholmod_analyze(&A, &c);
    int ok = L != NULL && c.status == CHOLMOD_OK;
    *lnz = c.lnz;
    *fl = c.fl;
    if (L)
        cholmod_free_factor(&L, &c);
    cholmod_finish(&c);
    return ok ? 0 : -1;
}

#ifdef SETTEE_BENCH_SOFA_LDL
/* The sofa-ldl mode (see the top of this file). */
static int run_sofa_ldl(int n, int reps)
{
    const double h = 0.01, mf = 1.0, bf = -h, kf = -h * h;
    const int warmup = 2;
    st_error err = {0};
    st_runtime *rt = NULL;
    st_scene *s = NULL;
    if (st_runtime_create(&rt, &err) != ST_OK)
        return fail("runtime", &err);
    if (load_beam(rt, n, ldl_solver_yaml, &s, &err) != ST_OK)
        return fail("load", &err);
    st_mstate *ms = (st_mstate *)find(s, "dofs");
    if (!ms || !ms->system) {
        fprintf(stderr, "bench_implicit: scene objects missing\n");
        return 1;
    }
    st_system *sys = ms->system;
    for (int k = 0; k < warmup; k++)
        if (st_scene_step(s, 0, &err) != ST_OK)
            return fail("step", &err);
    st_matrix *m = NULL;
    if (st_matrix_create(sys, &m, &err) != ST_OK)
        return fail("matrix", &err);
    sofa_ldl *p = sofa_ldl_create();
    const size_t len = sys->size;
    double *b = calloc(len, sizeof *b), *x = calloc(len, sizeof *x), *r = calloc(len, sizeof *r);
    double *tt = calloc((size_t)reps * 5, sizeof *tt);
    if (!p || !b || !x || !r || !tt) {
        fprintf(stderr, "bench_implicit: out of memory\n");
        return 1;
    }
    double *t_factor = tt, *t_copy = tt + reps, *t_num = tt + 2 * reps,
           *t_tr = tt + 3 * reps, *t_solve = tt + 4 * reps;
    for (size_t i = 0; i < len; i++)
        b[i] = sin(0.37 * (double)i + 1.0) * (1.0 + (double)(i % 5));
    double symbolic = 0.0;
    size_t nnz_in = 0;
    st_csr a;
    char msg[256];
    for (int k = 0; k < reps; k++) {
        if (st_matrix_assemble(m, sys, mf, bf, kf, &err) != ST_OK)
            return fail("assemble", &err);
        st_matrix_csr(m, &a);
        nnz_in = a.nnz;
        sofa_ldl_times t;
        if (sofa_ldl_factor(p, &a, &t, msg, sizeof msg) != 0) {
            fprintf(stderr, "bench_implicit: sofa-ldl factorization: %s\n", msg);
            return 1;
        }
        if (t.new_pattern)
            symbolic += t.symbolic;
        t_copy[k] = t.copy;
        t_num[k] = t.numeric;
        t_tr[k] = t.transpose;
        t_factor[k] = t.copy + t.numeric + t.transpose;
        double c0 = now();
        sofa_ldl_solve(p, x, b);
        t_solve[k] = now() - c0;
    }
    /* The proxy's own residual: ||A x - b|| / ||b||. */
    st_matrix_mul(m, r, x);
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < len; i++) {
        num += (r[i] - b[i]) * (r[i] - b[i]);
        den += b[i] * b[i];
    }
    double residual = sqrt(num / den);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    size_t lnnz = sofa_ldl_lnnz(p);
    unsigned long nsym = sofa_ldl_symbolic_count(p);
    printf("bench=implicit solver=sofa-ldl n=%d nodes=%zu dofs=%zu nnz_assembled=%zu nnz=%zu "
           "ordering=METIS L_nnz=%zu lnz=%zu flops=%.4g reps=%d symbolic_ms=%.2f "
           "factor_ms=%.2f copy_ms=%.3f numeric_ms=%.2f transpose_ms=%.3f solve_ms=%.3f "
           "residual=%.2e symbolic_analyses=%lu proxy_mb=%.1f peak_rss_mb=%.1f\n",
           n, sys->ndof, sys->size, nnz_in, sofa_ldl_nnz(p), lnnz, lnnz + len,
           sofa_ldl_flops(p), reps, 1e3 * symbolic, 1e3 * median(t_factor, (size_t)reps),
           1e3 * median(t_copy, (size_t)reps), 1e3 * median(t_num, (size_t)reps),
           1e3 * median(t_tr, (size_t)reps), 1e3 * median(t_solve, (size_t)reps), residual, nsym,
           (double)sofa_ldl_bytes(p) / (1024.0 * 1024.0), (double)ru.ru_maxrss / 1024.0);
    int ok = isfinite(residual) && residual < 1e-10 && nsym == 1;
    if (!ok)
        fprintf(stderr, "bench_implicit: sofa-ldl check failed: residual %.3e (< 1e-10 expected), "
                        "%lu symbolic analyses (1 expected)\n", residual, nsym);
    sofa_ldl_destroy(p);
    st_matrix_destroy(&m);
    free(tt);
    free(r);
    free(x);
    free(b);
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
    return ok ? 0 : 1;
}
#endif

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    int n = argc > 2 ? atoi(argv[2]) : 0;
    bool sofa = strcmp(which, "sofa-ldl") == 0;
    int steps = argc > 3 ? atoi(argv[3]) : sofa ? 3 : 200;
    bool ldl = strcmp(which, "ldl") == 0, cg = strcmp(which, "cg") == 0;
    if ((!ldl && !cg && !sofa) || n < 2 || steps < (sofa ? 1 : 3)) {
        fprintf(stderr, "usage: bench_implicit ldl|cg N [STEPS >= 3]\n"
                        "       bench_implicit sofa-ldl N [REPS >= 1]\n");
        return 2;
    }
    if (sofa) {
#ifdef SETTEE_BENCH_SOFA_LDL
        return run_sofa_ldl(n, steps);
#else
        fprintf(stderr, "bench_implicit: sofa-ldl not built (SuiteSparse LDL not found)\n");
        return 77;
#endif
    }
    const double h = 0.01;
    st_error err = {0};
    st_runtime *rt = NULL;
    st_scene *s = NULL;
    if (st_runtime_create(&rt, &err) != ST_OK)
        return fail("runtime", &err);
    double t_init = now();
    if (load_beam(rt, n,
                  ldl ? ldl_solver_yaml
                      : "CGLinearSolver: {name: ls, iterations: 25, tolerance: 1e-5, threshold: 1e-5}",
                  &s, &err) != ST_OK)
        return fail("load", &err);
    t_init = now() - t_init;
    st_mstate *ms = (st_mstate *)find(s, "dofs");
    st_component *ls = find(s, "ls"), *box = find(s, "box");
    if (!ms || !ls || !box || !ms->system) {
        fprintf(stderr, "bench_implicit: scene objects missing\n");
        return 1;
    }
    st_system *sys = ms->system;
    const st_array *fixed = st_component_field_ptr(box, st_component_field(box, "indices"));
    if (!fixed || fixed->n != (size_t)(n * n)) {
        fprintf(stderr, "bench_implicit: expected %d fixed nodes, got %zu\n", n * n,
                fixed ? fixed->n : 0);
        return 1;
    }
    const size_t len = sys->size_all;
    double *b = calloc(len, sizeof *b), *dv = calloc(len, sizeof *dv);
    int half = steps / 2;
    double *tt = calloc((size_t)half * 6, sizeof *tt);
    double *t_real = tt, *t_force = tt + half, *t_set = tt + 2 * half, *t_asm = tt + 3 * half,
           *t_solve = tt + 4 * half, *t_upd = tt + 5 * half;
    if (!b || !dv || !tt) {
        fprintf(stderr, "bench_implicit: out of memory\n");
        return 1;
    }
    const double mf = 1.0, bf = -h, kf = -h * h;
    const st_linsolver_ops *lso = ls->cls->linsolver;
    unsigned long version = 0, rebuilds = 0, allocs = 0;
    st_matrix *m = NULL;
    struct rusage ru;
    double peak_mb = 0.0;

    /* Step 1 apart: it holds the symbolic analysis. */
    double t0 = now();
    if (st_scene_step(s, 0, &err) != ST_OK)
        return fail("step 1", &err);
    double t_first = now() - t0;
    /* Then real and split steps alternate, so that both see the same load
     * of the shared machine; medians are reported. */
    int nreal = 0, nsplit = 0;
    for (int k = 1; k < steps; k++) {
        unsigned long a0 = st_alloc_count();
        if (k % 2 == 1 && nreal < half) {
            double c0 = now();
            if (st_scene_step(s, 0, &err) != ST_OK)
                return fail("step", &err);
            t_real[nreal++] = now() - c0;
            allocs += st_alloc_count() - a0;
            continue;
        }
        if (nsplit >= half)
            continue;
        double c0 = now();
        sys->mp.implicit = true;
        st_system_compute_force(sys, sys->f, sys->x, sys->v);
        st_vec_eq(sys, b, sys->f);
        st_system_add_mbkdx(sys, b, sys->v, 0.0, 0.0, h, false);
        st_vec_teq(sys, b, h);
        st_system_project_response(sys, b);
        double c1 = now();
        if (lso->set_system(ls, sys, mf, bf, kf, &err) != ST_OK)
            return fail("set_system", &err);
        double c2 = now();
        if (lso->solve(ls, sys, dv, b, &err) != ST_OK)
            return fail("solve", &err);
        double c3 = now();
        st_vec_op(sys, sys->v, sys->v, dv, 1.0);
        st_vec_peq(sys, sys->x, sys->v, h);
        double c4 = now();
        allocs += st_alloc_count() - a0;
        t_force[nsplit] = c1 - c0;
        t_set[nsplit] = c2 - c1;
        t_solve[nsplit] = c3 - c2;
        t_upd[nsplit] = c4 - c3;
        if (ldl) {
            if (!m) {
                /* Peak memory is read before the benchmark's own matrix
                 * exists: steps 1 and 2 already ran, so the solver's
                 * matrix and CHOLMOD's factor are at their full size. */
                getrusage(RUSAGE_SELF, &ru);
                peak_mb = (double)ru.ru_maxrss / 1024.0;
                if (st_matrix_create(sys, &m, &err) != ST_OK ||
                    st_matrix_assemble(m, sys, mf, bf, kf, &err) != ST_OK)
                    return fail("matrix", &err);
                /* That first assembly recorded the pattern (untimed). */
                st_csr csr;
                st_matrix_csr(m, &csr);
                version = csr.pattern_version;
            }
            double a1 = now();
            if (st_matrix_assemble(m, sys, mf, bf, kf, &err) != ST_OK)
                return fail("assemble", &err);
            t_asm[nsplit] = now() - a1;
            st_csr csr;
            st_matrix_csr(m, &csr);
            if (csr.pattern_version != version)
                rebuilds++;
            version = csr.pattern_version;
        }
        nsplit++;
    }
    if (!m) {
        getrusage(RUSAGE_SELF, &ru);
        peak_mb = (double)ru.ru_maxrss / 1024.0;
    }
    double tip_y = ms->position.r[3 * (ms->n - 1) + 1];
    unsigned cg_iters = 0;
    if (cg) {
        const unsigned *it = st_component_field_ptr(ls, st_component_field(ls, "nbIterations"));
        cg_iters = it ? *it : 0;
    }
    double t_steps = median(t_real, (size_t)nreal), tf = median(t_force, (size_t)nsplit),
           ts = median(t_set, (size_t)nsplit), tl = median(t_solve, (size_t)nsplit),
           tu = median(t_upd, (size_t)nsplit), ta = ldl ? median(t_asm, (size_t)nsplit) : 0.0;
    double factor = ldl ? ts - ta : 0.0;
    double other = t_steps - (tf + ts + tl + tu);
    if (!m && st_matrix_create(sys, &m, &err) != ST_OK)
        return fail("matrix", &err);
    /* The pattern's size (for CG too, assembled once here, untimed) and
     * the number of coupled vertex pairs (springs without duplicates). */
    if (cg && st_matrix_assemble(m, sys, mf, bf, kf, &err) != ST_OK)
        return fail("assemble", &err);
    size_t nnz = 0;
    {
        st_csr csr;
        st_matrix_csr(m, &csr);
        nnz = csr.nnz;
    }
    size_t pairs = (nnz / 9 - sys->ndof) / 2;
    /* The factor's size and flop measure (ldl mode, untimed). */
    int l_nnz = 0, nsymbolic = 0;
    double lnz = 0.0, flops = 0.0;
    const char *ordering = "none";
    if (ldl) {
        const int *ln = st_component_field_ptr(ls, st_component_field(ls, "L_nnz"));
        l_nnz = ln ? *ln : 0;
        const int *ns = st_component_field_ptr(ls, st_component_field(ls, "symbolicAnalyses"));
        nsymbolic = ns ? *ns : -1;
        char *const *o = st_component_field_ptr(ls, st_component_field(ls, "ordering"));
        ordering = o && *o ? *o : "unknown";
        st_csr csr;
        st_matrix_csr(m, &csr);
        if (chol_stats(&csr, ordering, &lnz, &flops) != 0)
            lnz = flops = 0.0;
    }
    /* Everything outside CHOLMOD (its numeric factorization and solve),
     * as a share of the step rebuilt from the medians of its parts. */
    double whole = tf + ts + tl + tu + fmax(other, 0.0);
    double outside = ldl ? (tf + ta + tu + fmax(other, 0.0)) / whole : 1.0;
    printf("bench=implicit solver=%s n=%d nodes=%zu dofs=%zu pairs=%zu nnz=%zu steps=%d "
           "real_steps=%d split_steps=%d init_ms=%.2f first_step_ms=%.2f step_ms=%.3f force_ms=%.3f "
           "assembly_ms=%.3f factor_ms=%.3f solve_ms=%.3f update_ms=%.3f other_ms=%.3f "
           "outside_cholmod=%.1f%% cg_iterations=%u pattern_rebuilds=%lu step_allocs=%lu "
           "peak_rss_mb=%.1f tip_y=%.6f ordering=%s L_nnz=%d factor_mb=%.1f lnz=%.0f flops=%.4g "
           "symbolic_analyses=%d\n",
           which, n, sys->ndof, sys->size, pairs, nnz, steps, nreal, nsplit, 1e3 * t_init,
           1e3 * t_first, 1e3 * t_steps, 1e3 * tf, 1e3 * ta, 1e3 * factor, 1e3 * tl, 1e3 * tu,
           1e3 * other, 100.0 * outside, cg_iters, rebuilds, allocs, peak_mb, tip_y, ordering,
           l_nnz, 8e-6 * l_nnz, lnz, flops, nsymbolic);
    st_matrix_destroy(&m);
    free(tt);
    free(b);
    free(dv);
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
    return allocs == 0 && isfinite(tip_y) && rebuilds == 0 && (!ldl || nsymbolic == 1) ? 0 : 1;
}
