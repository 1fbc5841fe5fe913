/* bench_fem.c - the cost of the corotational finite elements (issue 12):
 *   tet - a cube of N x N x N nodes (N-1)^3 cells over [0,1]^3 cut into
 *         6 (N-1)^3 tetrahedra by Hexa2TetraTopologicalMapping,
 *         TetrahedronFEMForceField method large (E 3000, nu 0.3);
 *   hex - a beam of NX x NX x NZ cells over [0,1]^2 x [0,NZ/NX] (RegularGridTopology),
 *         HexahedronFEMForceField method large (E 3000, nu 0.3);
 *   beam - M cantilevers of 10 BeamFEMForceField beams each (10 M beams) between
 *         Rigid3d frames 0.1 apart along x, the cantilevers 0.2 apart along z
 *         (one EdgeSetTopologyContainer), radius 0.05, E 2e7, nu 0.3, as
 *         scenes/beam_fem_rigid.yaml; the first frame of each fixed.
 * All: UniformMass totalMass 1, the z = 0 face (beam: the first frames) fixed
 * (BoxROI / indices + FixedProjectiveConstraint), gravity -9.81 y, dt 0.01,
 * EulerImplicitSolver
 * (SOFA defaults) with CGLinearSolver (iterations 25, tolerance 1e-30 and
 * threshold 1e-30, so that every step runs exactly 25 iterations) or
 * SparseLDLSolver (CHOLMOD).
 *
 * Usage: bench_fem tet N [CG_STEPS [LDL_STEPS]]
 *        bench_fem hex NX NZ [CG_STEPS [LDL_STEPS]]
 *        bench_fem beam M [CG_STEPS [LDL_STEPS]]
 * (defaults: 6 CG steps, 3 LDL steps; LDL_STEPS 0 skips the direct solver).
 *
 * Printed, one key=value line per solver:
 *  - add_force_ns, add_dforce_ns: nanoseconds per element of the force
 *    field's own add_force / add_dforce (its role functions, called directly
 *    on the system's vectors after two real steps, so that the state is
 *    deformed; add_dforce with no products announced, i.e. the element
 *    loop), product_ns: add_dforce as the solver's products run it (with the
 *    assembled stiffness when the linear solver announces enough products),
 *    assemble_ns: the assembly of that stiffness (add_force then one product,
 *    less the two alone), best of REPEATS runs of CALLS calls; wall (clock_gettime
 *    MONOTONIC) and CPU (CLOCK_PROCESS_CPUTIME_ID, this process only: the
 *    machine is shared, the CPU time is the one that does not count other
 *    processes' time slices) for each;
 *  - steps_per_s: whole st_scene_step calls, wall and CPU, the first step
 *    timed apart (first_step_ms: the recording assembly and, for LDL, the
 *    symbolic analysis), the median of the others;
 *  - force_ms, assembly_ms, factor_ms, linsolve_ms: the kernel's wall-clock
 *    phase counters (st_system time_force, time_assembly, time_factor,
 *    time_linsolve) per step after the first, means: the right-hand side's
 *    forces, SparseLDLSolver's assembly and numeric factorization, and the
 *    solves (CG: all iterations with their matrix-free products);
 *  - step_allocs: settee allocations (st_alloc_count) in all steps after
 *    the first (CHOLMOD's own allocator is not counted);
 *  - max_disp: the largest displacement component from the rest shape
 *    after the steps (the body sags);
 *  - finite: every position after the run is finite.
 * Run with one thread: SETTEE_THREADS is set to 1 unless already set
 * (LinearSolver.Direct reads it for OpenBLAS and CHOLMOD's OpenMP). The exit
 * status is 1 when a step after the first allocated or a position is not
 * finite. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <settee/settee.h>

#include "bench_util.h"

#define REPEATS 3
#define MAX_STEPS 64

static double clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double wall(void) { return clock_of(CLOCK_MONOTONIC); }
static double cpu(void) { return clock_of(CLOCK_PROCESS_CPUTIME_ID); }

static int fail(const char *what, const st_error *err)
{
    char buf[ST_ERROR_MSG_MAX + 1024];
    fprintf(stderr, "bench_fem: %s: %s\n", what, st_error_format(err, buf, sizeof buf));
    return 1;
}

static const char cg_yaml[] =
    "CGLinearSolver: {name: ls, iterations: 25, tolerance: 1e-30, threshold: 1e-30}";
static const char ldl_yaml[] =
    "SparseLDLSolver: {name: ls, template: CompressedRowSparseMatrixMat3x3d}";

/* What every bench scene begins with, up to the body's solvers. */
#define SCENE_HEAD                                                                                \
    "format: settee/1\n"                                                                         \
    "root:\n"                                                                                    \
    "  gravity: [0, -9.81, 0]\n"                                                                 \
    "  dt: 0.01\n"                                                                               \
    "  objects:\n"                                                                               \
    "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct,\n"             \
    "        LinearSolver.Iterative, Mass, Topology, Engine.Select,\n"                           \
    "        Constraint.Projective, SolidMechanics.FEM.Elastic]}\n"                              \
    "    - DefaultAnimationLoop: {}\n"

/* The scene: tet (nx = ny = nz nodes, Hexa2Tetra) or hex (nx x nx x nz cells). */
static st_status load(st_runtime *rt, bool tet, int nx, int nz, const char *solver,
                      st_scene **out, st_error *err)
{
    char grid[256], yaml[4096];
    int n = tet ? nx : nx + 1, m = tet ? nx : nz + 1;
    snprintf(grid, sizeof grid,
             "RegularGridTopology: {name: grid, n: [%d, %d, %d], min: [0, 0, 0], max: [1, 1, %g]}",
             n, n, m, tet ? 1.0 : (double)nz / (double)nx);
    /* tet: the grid at the root, the tetrahedra mapped from it in the body
     * (as scenes/hyperelastic_block.yaml); hex: the grid in the body. */
    char top[300], body[1024];
    snprintf(top, sizeof top, "    - %s\n", grid);
    if (tet)
        snprintf(body, sizeof body,
                 "        - MechanicalObject: {name: dofs, position: \"@../grid.position\"}\n"
                 "        - TetrahedronSetTopologyContainer: {name: tetras}\n"
                 "        - TetrahedronSetTopologyModifier: {}\n"
                 "        - Hexa2TetraTopologicalMapping: {input: \"@../grid\","
                 " output: \"@tetras\"}\n");
    else
        snprintf(body, sizeof body, "        - MechanicalObject: {name: dofs}\n        - %s\n",
                 grid);
    snprintf(yaml, sizeof yaml,
             SCENE_HEAD
             "%s"
             "  children:\n"
             "    - name: Body\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - %s\n"
             "%s"
             "        - UniformMass: {totalMass: 1}\n"
             "        - BoxROI: {name: box, box: [-0.01, -0.01, -0.01, 1.01, 1.01, 0.001]}\n"
             "        - FixedProjectiveConstraint: {indices: \"@box.indices\"}\n"
             "        - %sFEMForceField: {name: fem, method: large,"
             " youngModulus: 3000, poissonRatio: 0.3}\n",
             tet ? top : "", solver, body, tet ? "Tetrahedron" : "Hexahedron");
    ST_TRY(st_scene_load_string(rt, yaml, strlen(yaml), "bench_fem.yaml", out, err));
    return st_scene_init(*out, err);
}

/* The beam scene: m cantilevers of 10 beams (11 Rigid3d frames each). */
static st_status load_beam(st_runtime *rt, int m, const char *solver, st_scene **out,
                           st_error *err)
{
    const size_t nn = 11 * (size_t)m, cap = 200 * nn + 4096;
    char *y = malloc(cap);
    if (!y)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t len = (size_t)snprintf(
        y, cap,
        SCENE_HEAD
        "  children:\n"
        "    - name: Body\n"
        "      objects:\n"
        "        - EulerImplicitSolver: {}\n"
        "        - %s\n"
        "        - MechanicalObject:\n"
        "            name: dofs\n"
        "            template: Rigid3d\n"
        "            position: [",
        solver);
    for (size_t i = 0; i < nn; i++)
        len += (size_t)snprintf(y + len, cap - len, "%s%g, 0, %g, 0, 0, 0, 1", i ? ", " : "",
                                0.1 * (double)(i % 11), 0.2 * (double)(i / 11));
    len += (size_t)snprintf(y + len, cap - len,
                            "]\n        - EdgeSetTopologyContainer:\n            edges: [");
    for (size_t i = 0; i < nn; i++)
        if (i % 11 != 10)
            len += (size_t)snprintf(y + len, cap - len, "%s%zu, %zu", i ? ", " : "", i, i + 1);
    len += (size_t)snprintf(y + len, cap - len,
                            "]\n        - BeamFEMForceField: {name: fem, radius: 0.05,"
                            " youngModulus: 2e7, poissonRatio: 0.3}\n"
                            "        - UniformMass: {totalMass: 1}\n"
                            "        - FixedProjectiveConstraint:\n            indices: [");
    for (size_t i = 0; i < (size_t)m; i++)
        len += (size_t)snprintf(y + len, cap - len, "%s%zu", i ? ", " : "", 11 * i);
    snprintf(y + len, cap - len, "]\n");
    st_status st = st_scene_load_string(rt, y, strlen(y), "bench_fem_beam.yaml", out, err);
    free(y);
    ST_TRY(st);
    return st_scene_init(*out, err);
}

/* Best of REPEATS runs of calls calls of fn: wall and CPU seconds per call. */
typedef struct timing {
    double wall, cpu;
} timing;

/* mode 0: add_force; 1: add_dforce; 2: add_force then add_dforce. */
static timing time_force(const st_forcefield_ops *ops, st_component *ff, st_system *sys,
                         const st_mparams *mp, double *f, const double *dx, int mode, int calls)
{
    timing best = {INFINITY, INFINITY};
    for (int r = 0; r < REPEATS; r++) {
        double w0 = wall(), c0 = cpu();
        for (int k = 0; k < calls; k++) {
            if (mode != 1)
                ops->add_force(ff, mp, f, sys->x, sys->v);
            if (mode != 0)
                ops->add_dforce(ff, mp, f, dx, -1e-4, 0.0);
        }
        double w = (wall() - w0) / calls, c = (cpu() - c0) / calls;
        best.wall = fmin(best.wall, w);
        best.cpu = fmin(best.cpu, c);
    }
    return best;
}

enum { K_TET, K_HEX, K_BEAM };
static const char *const kind_names[] = {"tet", "hex", "beam"};

static int run(int kind, int nx, int nz, bool ldl, int steps)
{
    const bool tet = kind == K_TET;
    st_error err = {0};
    st_runtime *rt = NULL;
    st_scene *s = NULL;
    if (st_runtime_create(&rt, &err) != ST_OK)
        return fail("runtime", &err);
    double t_init = wall();
    st_status ls = kind == K_BEAM ? load_beam(rt, nx, ldl ? "SparseLDLSolver: {name: ls}" : cg_yaml,
                                              &s, &err)
                                  : load(rt, tet, nx, nz, ldl ? ldl_yaml : cg_yaml, &s, &err);
    if (ls != ST_OK)
        return fail("load", &err);
    t_init = wall() - t_init;
    st_mstate *ms = (st_mstate *)find(s, "dofs");
    st_component *ff = find(s, "fem");
    if (!ms || !ff || !ms->system || !ff->cls->forcefield) {
        fprintf(stderr, "bench_fem: scene objects missing\n");
        return 1;
    }
    st_system *sys = ms->system;
    size_t ne = tet              ? 6 * (size_t)(nx - 1) * (size_t)(nx - 1) * (size_t)(nx - 1)
                : kind == K_BEAM ? 10 * (size_t)nx
                                 : (size_t)nx * (size_t)nx * (size_t)nz;

    /* Steps: the first apart, then the median of the others. */
    double tw[MAX_STEPS], tc[MAX_STEPS];
    double w0 = wall(), c0 = cpu();
    if (st_scene_step(s, 0, &err) != ST_OK)
        return fail("step 1", &err);
    double first_w = wall() - w0, first_c = cpu() - c0;
    unsigned long allocs = st_alloc_count();
    double ph0[4] = {sys->time_force, sys->time_assembly, sys->time_factor, sys->time_linsolve};
    for (int k = 1; k < steps; k++) {
        w0 = wall(), c0 = cpu();
        if (st_scene_step(s, 0, &err) != ST_OK)
            return fail("step", &err);
        tw[k - 1] = wall() - w0;
        tc[k - 1] = cpu() - c0;
    }
    allocs = st_alloc_count() - allocs;
    double ph[4] = {sys->time_force, sys->time_assembly, sys->time_factor, sys->time_linsolve};
    for (int k = 0; k < 4; k++)
        ph[k] = 1e3 * (ph[k] - ph0[k]) / (double)(steps - 1);
    double step_w = median(tw, (size_t)steps - 1), step_c = median(tc, (size_t)steps - 1);

    /* The force field's role functions on the deformed state. */
    const size_t len = sys->size_all;
    double *f = calloc(len, sizeof *f), *dx = calloc(len, sizeof *dx);
    if (!f || !dx) {
        fprintf(stderr, "bench_fem: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < len; i++)
        dx[i] = 1e-3 * sin(0.37 * (double)i + 1.0);
    int calls = (int)(2e6 / (double)ne);
    if (calls < 3)
        calls = 3;
    const st_forcefield_ops *ops = ff->cls->forcefield;
    unsigned long a0 = st_alloc_count();
    /* the element loop (no products announced), the product with the
     * assembled K (as CG's products run), and add_force followed by the
     * first product, which assembles: the assembly is that less the other two */
    st_mparams loop_mp = sys->mp;
    loop_mp.dforce_calls = 0;
    timing tf = time_force(ops, ff, sys, &sys->mp, f, dx, 0, calls);
    timing td = time_force(ops, ff, sys, &loop_mp, f, dx, 1, calls);
    timing tp = time_force(ops, ff, sys, &sys->mp, f, dx, 1, calls);
    timing tfa = time_force(ops, ff, sys, &sys->mp, f, dx, 2, calls);
    const bool assembles = sys->mp.dforce_calls > 0;
    timing ta = {assembles ? tfa.wall - tf.wall - tp.wall : 0.0,
                 assembles ? tfa.cpu - tf.cpu - tp.cpu : 0.0};
    allocs += st_alloc_count() - a0;

    int finite = 1;
    const size_t cs = ms->type->coord_size;
    for (size_t i = 0; i < cs * ms->n; i++)
        if (!isfinite(ms->position.r[i]))
            finite = 0;
    /* The largest displacement from the rest shape (of the centres): the body sags. */
    double disp = 0;
    for (size_t i = 0; i < ms->n && i < ms->rest_position.n; i++)
        for (int c = 0; c < 3; c++)
            disp = fmax(disp, fabs(ms->position.r[cs * i + c] - ms->rest_position.r[cs * i + c]));

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("bench=fem kind=%s grid=%dx%dx%d nodes=%zu elements=%zu solver=%s steps=%d "
           "init_s=%.2f first_step_ms=%.1f first_step_cpu_ms=%.1f step_ms=%.2f "
           "step_cpu_ms=%.2f force_ms=%.2f assembly_ms=%.2f factor_ms=%.2f linsolve_ms=%.2f "
           "steps_per_s=%.2f steps_per_s_cpu=%.2f calls=%d "
           "add_force_ns=%.1f add_force_cpu_ns=%.1f add_dforce_ns=%.1f add_dforce_cpu_ns=%.1f "
           "product_ns=%.1f product_cpu_ns=%.1f assemble_ns=%.1f assemble_cpu_ns=%.1f "
           "step_allocs=%lu max_disp=%.3g finite=%s peak_rss_mb=%.1f\n",
           kind_names[kind], tet ? nx : kind == K_BEAM ? 11 : nx + 1,
           tet ? nx : kind == K_BEAM ? nx : nx + 1, tet ? nx : kind == K_BEAM ? 1 : nz + 1, ms->n,
           ne, ldl ? "ldl" : "cg", steps, t_init, 1e3 * first_w, 1e3 * first_c, 1e3 * step_w,
           1e3 * step_c, ph[0], ph[1], ph[2], ph[3], 1.0 / step_w, 1.0 / step_c, calls, 1e9 * tf.wall / (double)ne,
           1e9 * tf.cpu / (double)ne, 1e9 * td.wall / (double)ne, 1e9 * td.cpu / (double)ne,
           1e9 * tp.wall / (double)ne, 1e9 * tp.cpu / (double)ne, 1e9 * ta.wall / (double)ne,
           1e9 * ta.cpu / (double)ne,
           allocs, disp, finite ? "yes" : "no", (double)ru.ru_maxrss / 1024.0);
    fflush(stdout);
    free(dx);
    free(f);
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
    return allocs == 0 && finite ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *kind = argc > 1 ? argv[1] : "";
    bool tet = strcmp(kind, "tet") == 0, hex = strcmp(kind, "hex") == 0,
         beam = strcmp(kind, "beam") == 0;
    int a = hex ? 4 : 3; /* first optional argument */
    int nx = argc > 2 ? atoi(argv[2]) : 0;
    int nz = hex && argc > 3 ? atoi(argv[3]) : nx;
    int cg_steps = argc > a ? atoi(argv[a]) : 6;
    int ldl_steps = argc > a + 1 ? atoi(argv[a + 1]) : 3;
    if ((!tet && !hex && !beam) || nx < (beam ? 1 : 2) || nz < 1 || (hex && argc < 4) || cg_steps < 2 ||
        cg_steps > MAX_STEPS || ldl_steps < 0 || ldl_steps == 1 || ldl_steps > MAX_STEPS) {
        fprintf(stderr, "usage: bench_fem tet N [CG_STEPS [LDL_STEPS]]\n"
                        "       bench_fem hex NX NZ [CG_STEPS [LDL_STEPS]]\n"
                        "       bench_fem beam M [CG_STEPS [LDL_STEPS]]\n"
                        "       (steps 2 to %d; LDL_STEPS 0 skips SparseLDLSolver)\n",
                MAX_STEPS);
        return 2;
    }
    setenv("SETTEE_THREADS", "1", 0);
    const int k = tet ? K_TET : hex ? K_HEX : K_BEAM;
    int status = run(k, nx, nz, false, cg_steps);
    if (ldl_steps > 0)
        status |= run(k, nx, nz, true, ldl_steps);
    return status;
}
