/* bench_precond.c - converged implicit steps on the spring beam of issue 15:
 * n x n x (5n+1) nodes (n = 16: 16x16x81, 62208 DOFs), base fixed,
 * UniformMass 15, MeshSpringForceField stiffness 300, EulerImplicitSolver
 * (SOFA's defaults), dt 0.01, every step's linear system solved to
 * ||r|| / ||b|| <= 1e-10, one thread (SETTEE_THREADS=1 unless set), all the
 * configurations in the same run:
 *   ldl      SparseLDLSolver, refactorized every step (the reference
 *            trajectory)
 *   cg       CGLinearSolver, matrix-free, tolerance 1e-10 (its test is
 *            ||r|| / ||b||), threshold 1e-30
 *   pcg-ldl-U  PCGLinearSolver preconditioned by a SparseLDLSolver whose
 *            factor is rebuilt every U steps (update_step U; U = 0: built at
 *            the first step only), PCG tolerance chosen so that
 *            ||r|| / ||b|| <= 1e-10 (checked: max_rel_residual)
 *   pcg-ldl-U-single  the same with the factor's float copy for the
 *            solves (SparseLDLSolver solvePrecision: single, settee's option)
 *   cg-sofa  CGLinearSolver with SOFA's settings (1000 iterations, tolerance
 *            and threshold 1e-12): time per iteration against the bytes an
 *            iteration moves (cg_traffic) and the triad bandwidth; it stops
 *            on the threshold (not held to 1e-10)
 *   triad    not a solver: STREAM's triad over 3 x 64 MB (beyond the L3)
 *            and 3 x 4 MB (in cache), best of 10, GB/s
 *   pcg-jacobi, pcg-ssor  PCG with the cheap preconditioners
 *   pcg-amg-U  PCG preconditioned by AMGPreconditioner (settee's smoothed
 *            aggregation multigrid, one V-cycle with block Gauss-Seidel),
 *            its hierarchy rebuilt every U steps (0: built at the first step
 *            only); PCG tolerance 2e-20 (r.z / b.b), which brings
 *            ||r|| / ||b|| below 1e-10 here (checked: max_rel_residual)
 *   pcg-amg-x  the same built once, with the AMGPreconditioner fields given
 *            in $AMGX (e.g. AMGX="smoothingSteps: 2, strengthThreshold: 0.04")
 *            and PCG's tolerance in $PCGTOL (default 1e-22): for studies
 *   petsc-gamg  PETScLinearSolver: PETSc's CG with algebraic multigrid (GAMG,
 *            rigid-body near-null space), unpreconditioned residual norm,
 *            rtol 1e-10 (skipped when the plugin is not built);
 *            petsc-gamg-reuse: the same, the multigrid hierarchy built at the
 *            first step only (preconditionerUpdateStep: 0: a stale AMG)
 * For each: ms per step, wall clock and CPU time of the process (mean
 * over all steps, factorizations included; with one thread the CPU time is
 * the work, which the load of a shared machine does not inflate), the CPU
 * time of step 1 and the mean of the later steps (a factor built once is
 * paid in step 1: the ratio over N steps follows from the two),
 * iterations per step (mean), max ||r||/||b|| over the steps, the
 * trajectory's difference from ldl after the run (max |x - x_ldl| over
 * max |x_ldl - x_0|, i.e. relative to the displacement), the milliseconds
 * of all assemblies and of the linear solvers' setups (factorizations,
 * multigrid builds), and time relative to cg: wall clock and CPU over all
 * steps, and CPU of the steps after the first (later_cpu_vs_cg: where a
 * preconditioner built once tends over a long run).
 *
 * Usage: bench_precond [N [STEPS [CONFIG...]]]   (default 16 40, all)
 * One line per configuration, key=value. The ldl reference runs first
 * unless only cg* configurations (and triad) are asked for, or
 * SETTEE_BENCH_PRECOND_NO_REF=1 (dx_vs_ldl is then nan). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <settee/settee.h>

#include "bench_util.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the process: with one thread, the work itself, whatever the
 * load of the shared machine does to the wall clock. */
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(const char *what, const st_error *err)
{
    char buf[ST_ERROR_MSG_MAX + 1024];
    fprintf(stderr, "bench_precond: %s: %s\n", what, st_error_format(err, buf, sizeof buf));
    return 1;
}

static const struct config {
    const char *name;
    const char *yaml; /* the linear solver(s); the ODE solver's is "ls" */
} configs[] = {
    {"ldl", "SparseLDLSolver: {name: ls, template: CompressedRowSparseMatrixMat3x3d}"},
    {"cg", "CGLinearSolver: {name: ls, iterations: 100000, tolerance: 1e-10, threshold: 1e-30}"},
    /* Issue 15's second figure: SOFA's settings; time per iteration
     * against the bytes one iteration moves (see cg_traffic). */
    {"cg-sofa", "CGLinearSolver: {name: ls, iterations: 1000, tolerance: 1e-12, threshold: 1e-12}"},
    {"pcg-ldl-1",
     "PCGLinearSolver: {name: ls, iterations: 100000, tolerance: 1e-22, preconditioner: \"@pre\",\n"
     "                           update_step: 1}\n"
     "        - SparseLDLSolver: {name: pre, template: CompressedRowSparseMatrixMat3x3d}"},
    {"pcg-ldl-10",
     "PCGLinearSolver: {name: ls, iterations: 100000, tolerance: 1e-22, preconditioner: \"@pre\",\n"
     "                           update_step: 10}\n"
     "        - SparseLDLSolver: {name: pre, template: CompressedRowSparseMatrixMat3x3d}"},
    {"pcg-ldl-0",
     "PCGLinearSolver: {name: ls, iterations: 100000, tolerance: 1e-22, preconditioner: \"@pre\",\n"
     "                           update_step: 0}\n"
     "        - SparseLDLSolver: {name: pre, template: CompressedRowSparseMatrixMat3x3d}"},
    {"pcg-jacobi",
     "PCGLinearSolver: {name: ls, template: CompressedRowSparseMatrixMat3x3d, iterations: 100000,\n"
     "                           tolerance: 1e-22, preconditioner: \"@pre\"}\n"
     "        - JacobiPreconditioner: {name: pre}"},
    {"petsc-gamg",
     "PETScLinearSolver: {name: ls, kspType: cg, pcType: gamg, tolerance: 1e-10,\n"
     "                             options: \"-ksp_norm_type unpreconditioned\"}"},
    {"petsc-gamg-reuse",
     "PETScLinearSolver: {name: ls, kspType: cg, pcType: gamg, tolerance: 1e-10,\n"
     "                             preconditionerUpdateStep: 0,\n"
     "                             options: \"-ksp_norm_type unpreconditioned\"}"},
    {"pcg-ldl-0-single",
     "PCGLinearSolver: {name: ls, iterations: 100000, tolerance: 1e-22, preconditioner: \"@pre\",\n"
     "                           update_step: 0}\n"
     "        - SparseLDLSolver: {name: pre, template: CompressedRowSparseMatrixMat3x3d,\n"
     "                           solvePrecision: single}"},
    {"pcg-ldl-10-single",
     "PCGLinearSolver: {name: ls, iterations: 100000, tolerance: 1e-22, preconditioner: \"@pre\",\n"
     "                           update_step: 10}\n"
     "        - SparseLDLSolver: {name: pre, template: CompressedRowSparseMatrixMat3x3d,\n"
     "                           solvePrecision: single}"},
    {"pcg-amg-0",
     "PCGLinearSolver: {name: ls, iterations: 100000, tolerance: 2e-20, preconditioner: \"@pre\",\n"
     "                           update_step: 0}\n"
     "        - AMGPreconditioner: {name: pre}"},
    {"pcg-amg-10",
     "PCGLinearSolver: {name: ls, iterations: 100000, tolerance: 2e-20, preconditioner: \"@pre\",\n"
     "                           update_step: 10}\n"
     "        - AMGPreconditioner: {name: pre}"},
    {"pcg-amg-x",
     "PCGLinearSolver: {name: ls, iterations: 100000, tolerance: TOLX, preconditioner: \"@pre\",\n"
     "                           update_step: 0}\n"
     "        - AMGPreconditioner: {name: pre, AMGX}"},
    {"pcg-amg-1",
     "PCGLinearSolver: {name: ls, iterations: 100000, tolerance: 2e-20, preconditioner: \"@pre\",\n"
     "                           update_step: 1}\n"
     "        - AMGPreconditioner: {name: pre}"},
    {"pcg-ssor",
     "PCGLinearSolver: {name: ls, template: CompressedRowSparseMatrixMat3x3d, iterations: 100000,\n"
     "                           tolerance: 1e-22, preconditioner: \"@pre\"}\n"
     "        - SSORPreconditioner: {name: pre}"},
};
#define NCONFIGS (sizeof configs / sizeof *configs)

static st_status load_beam(st_runtime *rt, int n, const char *linsolver, st_scene **out,
                           st_error *err)
{
    const int nz = 5 * n + 1;
    char yaml[4096], lsbuf[2048];
    const char *amgx = strstr(linsolver, "AMGX");
    if (amgx) {
        const char *opt = getenv("AMGX");
        snprintf(lsbuf, sizeof lsbuf, "%.*s%s%s", (int)(amgx - linsolver), linsolver,
                 opt && opt[0] ? opt : "smoothingSteps: 1", amgx + 4);
        linsolver = lsbuf;
        char *t = strstr(lsbuf, "TOLX");
        if (t) {
            const char *tol = getenv("PCGTOL");
            char rest[2048];
            snprintf(rest, sizeof rest, "%s", t + 4);
            snprintf(t, sizeof lsbuf - (size_t)(t - lsbuf), "%s%s", tol ? tol : "1e-22", rest);
        }
    }
    /* The body: the spring beam, or (SETTEE_BENCH_PRECOND_BODY) the same
     * grid as a corotational FEM body, tetrahedra (`tet`, each cell cut in
     * six by Hexa2TetraTopologicalMapping) or hexahedra (`hex`). */
    const char *kind = getenv("SETTEE_BENCH_PRECOND_BODY");
    const bool tet = kind && strcmp(kind, "tet") == 0;
    const bool hex = kind && strcmp(kind, "hex") == 0;
    char grid[512], top[600] = "", body[1024];
    snprintf(grid, sizeof grid,
             "RegularGridTopology: {name: grid, nx: %d, ny: %d, nz: %d,\n"
             "                                xmin: 0, xmax: %d, ymin: 0, ymax: %d, zmin: 0, zmax: %d}",
             n, n, nz, n - 1, n - 1, nz - 1);
    if (tet) {
        snprintf(top, sizeof top, "    - %s\n", grid);
        snprintf(body, sizeof body,
                 "        - MechanicalObject: {name: dofs, position: \"@../grid.position\"}\n"
                 "        - TetrahedronSetTopologyContainer: {name: tetras}\n"
                 "        - TetrahedronSetTopologyModifier: {}\n"
                 "        - Hexa2TetraTopologicalMapping: {input: \"@../grid\", output: \"@tetras\"}\n");
    } else {
        snprintf(body, sizeof body, "        - MechanicalObject: {name: dofs}\n        - %s\n", grid);
    }
    const char *force = tet ? "TetrahedronFEMForceField: {name: fem, method: large, youngModulus: 3000,"
                              " poissonRatio: 0.3}"
                        : hex ? "HexahedronFEMForceField: {name: fem, method: large, youngModulus: 3000,"
                                " poissonRatio: 0.3}"
                              : "MeshSpringForceField: {name: springs, stiffness: 300}";
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct,\n"
             "                      LinearSolver.Iterative, Mass, Topology, SolidMechanics.Spring,\n"
             "                      SolidMechanics.FEM.Elastic, Constraint.Projective, Engine.Select%s]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "%s"
             "  children:\n"
             "    - name: Beam\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {name: ode, linearSolver: \"@ls\"}\n"
             "        - %s\n"
             "%s"
             "        - UniformMass: {totalMass: 15}\n"
             "        - BoxROI: {name: box, box: [-0.5, -0.5, -0.5, %d, %d, 0.0001]}\n"
             "        - FixedProjectiveConstraint: {indices: \"@box.indices\"}\n"
             "        - %s\n",
             strstr(linsolver, "PETSc") ? ", LinearSolver.PETSc" : "", top, linsolver, body, n, n,
             force);
    ST_TRY(st_scene_load_string(rt, yaml, strlen(yaml), "bench_precond.yaml", out, err));
    return st_scene_init(*out, err);
}

static double field_real(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    if (!f)
        return NAN;
    if (f->type == ST_T_UINT)
        return (double)*(const unsigned *)st_component_field_ptr(c, f);
    return *(const double *)st_component_field_ptr(c, f);
}

typedef struct result {
    double ms_per_step, cpu_ms_per_step, iters, max_res, dx;
    double cpu_first_ms, cpu_rest_ms; /* CPU ms of step 1, mean of steps 2.. */
    unsigned builds;
    size_t springs;
    double assembly_ms, setup_ms; /* wall ms of all assemblies, and of the linear solvers'
                                     set_system besides them (factorizations, multigrid
                                     setups), over the run */
} result;

/* Runs one configuration; x gets the final positions (and x0 the initial
 * ones when not NULL). */
static int run(int n, int steps, const struct config *c, double *x, double *x0, size_t *len,
               result *r)
{
    st_error err = {0};
    st_runtime *rt = NULL;
    st_scene *s = NULL;
    if (st_runtime_create(&rt, &err) != ST_OK)
        return fail("runtime", &err);
    if (load_beam(rt, n, c->yaml, &s, &err) != ST_OK)
        return fail(c->name, &err);
    st_mstate *ms = (st_mstate *)find(s, "dofs");
    st_component *ls = find(s, "ls");
    if (!ms || !ls) {
        fprintf(stderr, "bench_precond: scene objects missing\n");
        return 1;
    }
    *len = 3 * ms->n;
    if (x0)
        memcpy(x0, ms->position.r, *len * sizeof *x0);
    const bool iterative = st_component_field(ls, "nbIterations") != NULL;
    const bool pcg = st_component_field(ls, "residualNorm") != NULL;
    const bool petsc = st_component_field(ls, "preconditionerBuilds") != NULL && !pcg;
    double total = 0.0, total_cpu = 0.0, iters = 0.0, max_res = 0.0;
    r->cpu_first_ms = r->cpu_rest_ms = 0.0;
    for (int k = 0; k < steps; k++) {
        double t0 = now(), c0 = cpu();
        if (st_scene_step(s, 0, &err) != ST_OK)
            return fail(c->name, &err);
        total += now() - t0;
        total_cpu += cpu() - c0;
        if (k == 0)
            r->cpu_first_ms = 1e3 * (cpu() - c0);
        else
            r->cpu_rest_ms += 1e3 * (cpu() - c0) / (steps - 1);
        if (iterative) {
            iters += field_real(ls, "nbIterations");
            double res = field_real(ls, pcg ? "residualNorm" : "residual");
            max_res = fmax(max_res, res);
        }
    }
    memcpy(x, ms->position.r, *len * sizeof *x);
    r->assembly_ms = 1e3 * ms->system->time_assembly;
    r->setup_ms = 1e3 * ms->system->time_factor;
    r->ms_per_step = 1e3 * total / steps;
    r->cpu_ms_per_step = 1e3 * total_cpu / steps;
    r->iters = iters / steps;
    r->max_res = max_res;
    r->builds = (pcg || petsc) ? (unsigned)field_real(ls, "preconditionerBuilds") : 0;
    st_component *springs = find(s, "springs");
    const st_field *sf = springs ? st_component_field(springs, "spring") : NULL;
    /* "spring": five reals per spring (indices, stiffness, damping, rest length). */
    r->springs = sf ? ((const st_array *)st_component_field_ptr(springs, sf))->n / 5 : 0;
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
    return 0;
}

/* STREAM's triad a = b + s c over n doubles per array, best of reps: GB/s
 * counted as STREAM does (24 bytes per element: two reads, one write). */
static double triad(size_t n, int reps)
{
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return NAN;
    }
    for (size_t i = 0; i < n; i++)
        a[i] = 0.0, b[i] = 1.0 + (double)(i % 7), c[i] = 2.0 - (double)(i % 5);
    double best = INFINITY;
    /* Small arrays: repeat inside the timing so that it lasts a few ms. */
    const int inner = n < 4000000 ? (int)(4000000 / n) + 1 : 1;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int k = 0; k < inner; k++) {
            const double f = 3.0 + 1e-3 * k;
            for (size_t i = 0; i < n; i++)
                a[i] = b[i] + f * c[i];
            __asm__ volatile("" ::"r"(a) : "memory");
        }
        best = fmin(best, (now() - t0) / inner);
    }
    volatile double sink = a[n / 2];
    (void)sink;
    free(a);
    free(b);
    free(c);
    return 24.0 * (double)n / best * 1e-9;
}

/* Bytes one iteration of CGLinearSolver (matrix-free, one Vec3d state)
 * has to move at least: the springs' cached Jacobians and end indices,
 * read once by the product, and 13 passes over vectors of the system's
 * size (the product reads p and writes q; p.q reads both; x += a p and
 * r -= a q with r.r read x, p, r, q and write x, r; p = r + b p reads two
 * and writes one). spring_bytes: 48 (8 bytes of indices, 5 doubles), 112
 * before (the 40-byte spring record and the 9-double block). */
static double cg_traffic(size_t springs, size_t dofs, double spring_bytes)
{
    return (double)springs * spring_bytes + 13.0 * 8.0 * (double)dofs;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
    int steps = argc > 2 ? atoi(argv[2]) : 40;
    if (n < 2 || steps < 1) {
        fprintf(stderr, "usage: bench_precond [N >= 2 [STEPS >= 1 [CONFIG...]]]\n");
        return 2;
    }
    setenv("SETTEE_THREADS", getenv("SETTEE_THREADS") ? getenv("SETTEE_THREADS") : "1", 1);
    /* With one thread, OpenBLAS must not start its pool either: its idle
     * workers spin for a while after the library loads (about 7% of this
     * benchmark's process CPU time, mostly in the first step), which the
     * process CPU time would count as work. */
    if (strcmp(getenv("SETTEE_THREADS"), "1") == 0)
        setenv("OPENBLAS_NUM_THREADS", "1", 0);
    const size_t cap = 3 * (size_t)n * (size_t)n * (size_t)(5 * n + 1);
    double *xref = calloc(cap, sizeof *xref), *x0 = calloc(cap, sizeof *x0),
           *x = calloc(cap, sizeof *x);
    if (!xref || !x0 || !x)
        return 1;
    size_t len = 0;
    result ref, cg = {0};
    /* Only CG configurations (or the triad): no reference needed. */
    bool need_ref = argc <= 3, want_triad = argc <= 3;
    for (int a = 3; a < argc; a++) {
        if (strcmp(argv[a], "triad") == 0)
            want_triad = true;
        else if (strncmp(argv[a], "cg", 2) != 0)
            need_ref = true;
    }
    /* SETTEE_BENCH_PRECOND_NO_REF=1: no reference run (dx_vs_ldl nan). */
    if (getenv("SETTEE_BENCH_PRECOND_NO_REF") && atoi(getenv("SETTEE_BENCH_PRECOND_NO_REF")))
        need_ref = false;
    if (want_triad) {
        /* DRAM: 3 x 64 MB, beyond the 32 MB L3; cache: 3 x 4 MB, about
         * the working set of a CG iteration on the 16x16x81 beam. */
        const double dram = triad((size_t)8 << 20, 10), cache = triad((size_t)1 << 19, 10);
        printf("bench=triad dram_GBps=%.1f cache_GBps=%.1f\n", dram, cache);
        fflush(stdout);
    }
    /* The reference first (also when not asked for, unless only CG is). */
    if (need_ref && run(n, steps, &configs[0], xref, x0, &len, &ref) != 0)
        return 1;
    if (!need_ref)
        memset(&ref, 0, sizeof ref);
    double disp = 0.0;
    for (size_t i = 0; i < len; i++)
        disp = fmax(disp, fabs(xref[i] - x0[i]));
    int status = 0;
    for (size_t k = 0; k < NCONFIGS; k++) {
        bool wanted = argc <= 3;
        for (int a = 3; a < argc; a++)
            wanted = wanted || strcmp(argv[a], configs[k].name) == 0;
        if (!wanted)
            continue;
        result r = ref;
        if (k == 0 && !need_ref)
            continue;
        if (k > 0 && run(n, steps, &configs[k], x, need_ref ? NULL : x0, &len, &r) != 0) {
            if (strstr(configs[k].yaml, "PETSc")) {
                printf("# %s skipped (LinearSolver.PETSc not built?)\n", configs[k].name);
                continue;
            }
            return 1;
        }
        double d = 0.0;
        for (size_t i = 0; k > 0 && i < len; i++)
            d = fmax(d, fabs(x[i] - xref[i]));
        r.dx = need_ref ? d / disp : NAN;
        if (k == 1)
            cg = r;
        printf("bench=precond n=%d dofs=%zu steps=%d config=%s ms_per_step=%.1f "
               "cpu_ms_per_step=%.1f cpu_ms_step1=%.1f cpu_ms_later=%.1f iters_per_step=%.1f "
               "max_rel_residual=%.2e precond_builds=%u dx_vs_ldl=%.2e assembly_ms=%.1f "
               "setup_ms=%.1f ",
               n, len, steps, configs[k].name, r.ms_per_step, r.cpu_ms_per_step,
               r.cpu_first_ms, r.cpu_rest_ms, r.iters, r.max_res, r.builds, r.dx, r.assembly_ms,
               r.setup_ms);
        if (strncmp(configs[k].name, "cg", 2) == 0 && r.iters > 0) {
            const double ms_it = r.cpu_ms_per_step / r.iters;
            const double bytes = cg_traffic(r.springs, len, 48.0);
            printf("springs=%zu cpu_ms_per_iter=%.3f bytes_per_iter=%.0f achieved_GBps=%.1f ", r.springs,
                   ms_it, bytes, bytes / ms_it * 1e-6);
        }
        if (cg.ms_per_step > 0)
            printf("time_vs_cg=%.3f cpu_vs_cg=%.3f later_cpu_vs_cg=%.3f",
                   r.ms_per_step / cg.ms_per_step, r.cpu_ms_per_step / cg.cpu_ms_per_step,
                   steps > 1 ? r.cpu_rest_ms / cg.cpu_rest_ms : NAN);
        else
            printf("time_vs_cg=n/a cpu_vs_cg=n/a later_cpu_vs_cg=n/a");
        printf("\n");
        fflush(stdout);
        if (k > 0 && r.iters > 0 && !(r.max_res <= 1e-10) &&
            strcmp(configs[k].name, "cg-sofa") != 0) {
            fprintf(stderr, "bench_precond: %s: ||r||/||b|| reached %.2e > 1e-10\n",
                    configs[k].name, r.max_res);
            status = 1;
        }
    }
    free(x);
    free(x0);
    free(xref);
    return status;
}
