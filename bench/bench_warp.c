/* bench_warp.c - WarpPreconditioner on the corotational beam of
 * scenes/sofa/warp_beam.scn (issue 15): a 10 x 1 x 1 beam of NX x 5 x 5
 * vertices (NX = 41: 1025 vertices, 3075 DOFs) cut into tetrahedra,
 * TetrahedronFEMForceField method large (E 5e6, nu 0.3), DiagonalMass
 * (rho 1000), clamped at x = 0, EulerImplicitSolver (rayleighStiffness
 * 0.01, rayleighMass 0.1), dt 0.01, swinging down under gravity (the tip
 * turns by about 1 rad in 150 steps). Every configuration solves each
 * step's system to ||r|| / ||b|| <= 1e-10, on one thread:
 *   ldl        SparseLDLSolver refactorized every step (reference)
 *   cg         CGLinearSolver, matrix-free, tolerance 1e-10 (|r|/|b|),
 *              threshold 1e-30
 *   pcg-ldl    PCGLinearSolver with a SparseLDLSolver factor of the first
 *              step's matrix (update_step 0), PCG tolerance 1e-23 (on r.z /
 *              b.b; the outcome is checked: max_rel_residual)
 *   pcg-warp   the same stale factor wrapped by a WarpPreconditioner
 *              (update_step 1000000: never rebuilt)
 * For each: CPU and wall time per step (mean, factorizations included),
 * iterations per step (mean and max), max ||r||/||b||, and the
 * trajectory's largest difference from ldl's over all steps, relative to
 * the largest displacement.
 *
 * Usage: bench_warp [NX [STEPS [CONFIG...]]]   (default 41 150, all)
 * One line per configuration, key=value; exit 1 when a configuration does
 * not reach 1e-10. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <settee/settee.h>

#include "bench_util.h"

static double clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const struct config {
    const char *name;
    const char *xml; /* the linear solver(s); the ODE solver's is "ls" */
} configs[] = {
    {"ldl", "<SparseLDLSolver name='ls' template='CompressedRowSparseMatrixMat3x3d'/>"},
    {"cg", "<CGLinearSolver name='ls' iterations='100000' tolerance='1e-10' threshold='1e-30'/>"},
    {"pcg-ldl", "<PCGLinearSolver name='ls' iterations='100000' tolerance='1e-23' "
                "preconditioner='@ldl' update_step='0'/>"
                "<SparseLDLSolver name='ldl' template='CompressedRowSparseMatrixMat3x3d'/>"},
    {"pcg-warp", "<PCGLinearSolver name='ls' iterations='100000' tolerance='1e-23' "
                 "preconditioner='@warp'/>"
                 "<WarpPreconditioner name='warp' linearSolver='@ldl' update_step='1000000'/>"
                 "<SparseLDLSolver name='ldl' template='CompressedRowSparseMatrixMat3x3d'/>"},
};
#define NCONFIGS (sizeof configs / sizeof *configs)

static st_status load_beam(st_runtime *rt, int nx, const char *solvers, st_scene **out,
                           st_error *err)
{
    char xml[8192];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 -9.81 0' dt='0.01'>"
             "<RequiredPlugin name='ODESolver.Backward'/>"
             "<RequiredPlugin name='LinearSolver.Direct'/>"
             "<RequiredPlugin name='LinearSolver.Iterative'/>"
             "<RequiredPlugin name='Topology'/><RequiredPlugin name='Mass'/>"
             "<RequiredPlugin name='Engine.Select'/>"
             "<RequiredPlugin name='Constraint.Projective'/>"
             "<RequiredPlugin name='SolidMechanics.FEM.Elastic'/>"
             "<DefaultAnimationLoop/>"
             "<RegularGridTopology name='grid' n='%d 5 5' min='0 -0.5 -0.5' max='10 0.5 0.5'/>"
             "<Node name='Beam'>"
             "<EulerImplicitSolver name='ode' rayleighStiffness='0.01' rayleighMass='0.1' "
             "linearSolver='@ls'/>%s"
             "<MechanicalObject name='dofs' position='@../grid.position'/>"
             "<TetrahedronSetTopologyContainer name='tetras'/><TetrahedronSetTopologyModifier/>"
             "<Hexa2TetraTopologicalMapping input='@../grid' output='@tetras'/>"
             "<DiagonalMass massDensity='1000'/>"
             "<BoxROI name='clamp' box='-0.01 -1 -1 0.01 1 1'/>"
             "<FixedProjectiveConstraint indices='@clamp.indices'/>"
             "<TetrahedronFEMForceField name='fem' method='large' youngModulus='5e6' "
             "poissonRatio='0.3'/></Node></Node>",
             nx, solvers);
    ST_TRY(st_scene_load_string(rt, xml, strlen(xml), "bench_warp.scn", out, err));
    return st_scene_init(*out, err);
}

typedef struct result {
    double wall_ms, cpu_ms, iters, max_res, dx;
    unsigned max_iters;
} result;

/* Runs one configuration; traj gets the positions after each step. */
static int run(int nx, int steps, const struct config *c, double *traj, size_t *len, result *r)
{
    st_error err = {0};
    st_runtime *rt = NULL;
    st_scene *s = NULL;
    char buf[ST_ERROR_MSG_MAX + 1024];
    if (st_runtime_create(&rt, &err) != ST_OK || load_beam(rt, nx, c->xml, &s, &err) != ST_OK) {
        fprintf(stderr, "bench_warp: %s: %s\n", c->name, st_error_format(&err, buf, sizeof buf));
        return 1;
    }
    st_mstate *ms = (st_mstate *)find(s, "dofs");
    st_component *ls = find(s, "ls");
    *len = 3 * ms->n;
    const bool iterative = st_component_field(ls, "nbIterations") != NULL;
    const bool pcg = st_component_field(ls, "residualNorm") != NULL;
    double wall = 0, cpu = 0, iters = 0, max_res = 0;
    unsigned max_iters = 0;
    for (int k = 0; k < steps; k++) {
        const double w0 = clock_of(CLOCK_MONOTONIC), c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID);
        if (st_scene_step(s, 0, &err) != ST_OK) {
            fprintf(stderr, "bench_warp: %s: %s\n", c->name,
                    st_error_format(&err, buf, sizeof buf));
            return 1;
        }
        wall += clock_of(CLOCK_MONOTONIC) - w0;
        cpu += clock_of(CLOCK_PROCESS_CPUTIME_ID) - c0;
        memcpy(traj + (size_t)k * *len, ms->position.r, *len * sizeof *traj);
        if (iterative) {
            const double it = bench_field_num(ls, "nbIterations");
            iters += it;
            max_iters = it > max_iters ? (unsigned)it : max_iters;
            max_res = fmax(max_res, bench_field_num(ls, pcg ? "residualNorm" : "residual"));
        }
    }
    r->wall_ms = 1e3 * wall / steps;
    r->cpu_ms = 1e3 * cpu / steps;
    r->iters = iters / steps;
    r->max_iters = max_iters;
    r->max_res = max_res;
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
    return 0;
}

int main(int argc, char **argv)
{
    const int nx = argc > 1 ? atoi(argv[1]) : 41;
    const int steps = argc > 2 ? atoi(argv[2]) : 150;
    if (nx < 2 || steps < 1) {
        fprintf(stderr, "usage: bench_warp [NX >= 2 [STEPS >= 1 [CONFIG...]]]\n");
        return 2;
    }
    setenv("SETTEE_THREADS", getenv("SETTEE_THREADS") ? getenv("SETTEE_THREADS") : "1", 1);
    const size_t len_max = 3 * 25 * (size_t)nx, n = len_max * (size_t)steps;
    double *ref = calloc(n, sizeof *ref), *traj = calloc(n, sizeof *traj);
    if (!ref || !traj)
        return 1;
    size_t len = 0;
    result rref = {0};
    if (run(nx, steps, &configs[0], ref, &len, &rref) != 0)
        return 1;
    /* The scale of the trajectories: the largest motion after the first
     * step; the tip's largest rotation: the turn of its cross-section's
     * vertical edge (vertices (nx-1, 0, 2) and (nx-1, 4, 2)). */
    double disp = 0, tip = 0;
    const size_t lo = 3 * ((size_t)nx - 1 + (size_t)nx * 10), hi = lo + 3 * 4 * (size_t)nx;
    for (int k = 0; k < steps; k++) {
        const double *x = ref + (size_t)k * len;
        for (size_t i = 0; i < len; i++)
            disp = fmax(disp, fabs(x[i] - ref[i]));
        const double d[3] = {x[hi] - x[lo], x[hi + 1] - x[lo + 1], x[hi + 2] - x[lo + 2]};
        tip = fmax(tip, acos(d[1] / sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])));
    }
    printf("# bench_warp: tip rotation up to %.3f rad\n", tip);
    int status = 0;
    for (size_t c = 0; c < NCONFIGS; c++) {
        bool wanted = argc <= 3;
        for (int a = 3; a < argc; a++)
            wanted = wanted || strcmp(argv[a], configs[c].name) == 0;
        if (!wanted)
            continue;
        result r = rref;
        if (c > 0 && run(nx, steps, &configs[c], traj, &len, &r) != 0)
            return 1;
        double d = 0;
        for (size_t i = 0; c > 0 && i < len * (size_t)steps; i++)
            d = fmax(d, fabs(traj[i] - ref[i]));
        r.dx = disp > 0 ? d / disp : 0;
        printf("bench=warp nx=%d dofs=%zu steps=%d config=%s wall_ms_per_step=%.2f "
               "cpu_ms_per_step=%.2f iters_per_step=%.2f max_iters=%u max_rel_residual=%.2e "
               "dx_vs_ldl=%.2e\n",
               nx, len, steps, configs[c].name, r.wall_ms, r.cpu_ms, r.iters, r.max_iters,
               r.max_res, r.dx);
        fflush(stdout);
        if (c > 0 && !(r.max_res <= 1e-10)) {
            fprintf(stderr, "bench_warp: %s: ||r||/||b|| reached %.2e > 1e-10\n",
                    configs[c].name, r.max_res);
            status = 1;
        }
    }
    free(ref);
    free(traj);
    return status;
}
