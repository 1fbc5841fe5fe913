/* bench_multithreading.c - the MultiThreading plugin (issue 33): a
 * corotational tetrahedral block of NX x NY x NZ cells cut into 6
 * tetrahedra each (default 20 x 20 x 42: 100,800 tetrahedra, 18,963
 * nodes), TetrahedronFEMForceField method large (E 3000, nu 0.3), against
 * ParallelTetrahedronFEMForceField with 1 and with T threads (default 2).
 * EulerImplicitSolver + CGLinearSolver (25 iterations every step:
 * tolerance and threshold 1e-30), UniformMass 1, z = 0 fixed, gravity -y.
 *
 * Usage: bench_multithreading [NX NY NZ [T [REPS]]]   (REPS default 7)
 *
 * The three scenes are loaded side by side and, after two real steps (a
 * deformed state), timed in turn in each repetition, so that all see the
 * same load of the shared machine: add_force and add_dforce (the CG
 * matrix-vector product: the force field's share of every product) called
 * directly on the system's vectors, and whole steps. Printed per
 * configuration: the medians in ms, wall and CPU (the process's, all its
 * threads: CPU near T x wall means the T threads did run at once); and the ratios
 * sequential / parallel. The load average before and after is printed: on a
 * loaded 2-core machine the second thread waits for a core. The exit status
 * is 1 when the parallel results are not the sequential ones to the bit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define NCONF 3

/* CPU time of the process (all its threads), ms. */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}
#define MAX_REPS 64

static void print_load(const char *when)
{
    char buf[128] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            strcpy(buf, "?\n");
        fclose(f);
    }
    printf("# load average %s: %s", when, buf);
}

static st_status load(st_runtime *rt, int nx, int ny, int nz, const char *ff, st_scene **out,
                      st_error *err)
{
    char text[4096];
    snprintf(text, sizeof text,
             "<Node name='root' gravity='0 -9.81 0' dt='0.01'>"
             "<RequiredPlugin pluginName='ODESolver.Backward LinearSolver.Iterative Mass "
             "Topology SolidMechanics.FEM.Elastic Constraint.Projective Engine.Select "
             "MultiThreading'/>"
             "<DefaultAnimationLoop/>"
             "<Node name='block'>"
             "<EulerImplicitSolver/>"
             "<CGLinearSolver iterations='25' tolerance='1e-30' threshold='1e-30'/>"
             "<RegularGridTopology name='grid' n='%d %d %d' min='0 0 0' max='%g %g %g'/>"
             "<MechanicalObject name='dofs'/>"
             "<UniformMass totalMass='1'/>"
             "%s"
             "<BoxROI name='box' box='-0.1 -0.1 -0.01 10 10 0.01'/>"
             "<FixedProjectiveConstraint indices='@box.indices'/>"
             "</Node></Node>",
             nx + 1, ny + 1, nz + 1, nx / 20.0, ny / 20.0, nz / 20.0, ff);
    ST_TRY(st_scene_load_string(rt, text, strlen(text), "bench.scn", out, err));
    return st_scene_init(*out, err);
}

int main(int argc, char **argv)
{
    int nx = argc > 3 ? atoi(argv[1]) : 20, ny = argc > 3 ? atoi(argv[2]) : 20,
        nz = argc > 3 ? atoi(argv[3]) : 42;
    int threads = argc > 4 ? atoi(argv[4]) : 2, reps = argc > 5 ? atoi(argv[5]) : 7;
    if (nx < 1 || ny < 1 || nz < 1 || threads < 1 || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "usage: bench_multithreading [NX NY NZ [THREADS [REPS]]]\n");
        return 2;
    }
    char ff[NCONF][256];
    snprintf(ff[0], sizeof ff[0],
             "<TetrahedronFEMForceField name='fem' youngModulus='3000' poissonRatio='0.3'/>");
    snprintf(ff[1], sizeof ff[1],
             "<ParallelTetrahedronFEMForceField name='fem' youngModulus='3000' "
             "poissonRatio='0.3' nbThreads='1'/>");
    snprintf(ff[2], sizeof ff[2],
             "<ParallelTetrahedronFEMForceField name='fem' youngModulus='3000' "
             "poissonRatio='0.3' nbThreads='%d'/>",
             threads);
    const char *names[NCONF] = {"sequential", "parallel-1", "parallel-T"};
    print_load("before");
    st_error err = {0};
    st_runtime *rt = NULL;
    if (st_runtime_create(&rt, &err) != ST_OK) {
        fprintf(stderr, "bench_multithreading: %s\n", err.msg);
        return 1;
    }
    st_scene *s[NCONF] = {0};
    st_component *fem[NCONF];
    st_system *sys[NCONF];
    for (int c = 0; c < NCONF; c++) {
        if (load(rt, nx, ny, nz, ff[c], &s[c], &err) != ST_OK ||
            st_scene_step(s[c], 0, &err) != ST_OK || st_scene_step(s[c], 0, &err) != ST_OK) {
            fprintf(stderr, "bench_multithreading: %s: %s\n", names[c], err.msg);
            return 1;
        }
        fem[c] = find(s[c], "fem");
        sys[c] = ((st_mstate *)find(s[c], "dofs"))->system;
    }
    const size_t len = sys[0]->size_all;
    double *f[NCONF], *dx = calloc(len, sizeof *dx);
    for (size_t i = 0; i < len; i++)
        dx[i] = 1e-3 * sin(0.37 * (double)i + 1.0);
    double tf[NCONF][MAX_REPS], td[NCONF][MAX_REPS], ts[NCONF][MAX_REPS], tp[NCONF][MAX_REPS];
    double cf[NCONF][MAX_REPS], cd[NCONF][MAX_REPS];
    for (int c = 0; c < NCONF; c++)
        f[c] = calloc(len, sizeof *f[c]);
    for (int r = 0; r < reps; r++)
        for (int c = 0; c < NCONF; c++) {
            const st_forcefield_ops *ops = fem[c]->cls->forcefield;
            memset(f[c], 0, len * sizeof *f[c]);
            double t0 = bench_now_ms(), c0 = cpu_ms();
            ops->add_force(fem[c], &sys[c]->mp, f[c], sys[c]->x, sys[c]->v);
            tf[c][r] = bench_now_ms() - t0;
            cf[c][r] = cpu_ms() - c0;
            t0 = bench_now_ms(), c0 = cpu_ms();
            ops->add_dforce(fem[c], &sys[c]->mp, f[c], dx, -1e-4, 0.0);
            td[c][r] = bench_now_ms() - t0;
            cd[c][r] = cpu_ms() - c0;
            /* the first product after add_force assembled K (CG announces 25
             * products); the next ones, CG's, multiply by it */
            t0 = bench_now_ms();
            ops->add_dforce(fem[c], &sys[c]->mp, f[c], dx, -1e-4, 0.0);
            tp[c][r] = bench_now_ms() - t0;
            t0 = bench_now_ms();
            if (st_scene_step(s[c], 0, &err) != ST_OK) {
                fprintf(stderr, "bench_multithreading: step: %s\n", err.msg);
                return 1;
            }
            ts[c][r] = bench_now_ms() - t0;
        }
    /* Same state, same steps: the same bits. */
    int same = 1;
    for (int c = 1; c < NCONF; c++)
        if (memcmp(f[0], f[c], len * sizeof *f[0]) != 0 ||
            memcmp(sys[0]->x, sys[c]->x, len * sizeof *f[0]) != 0)
            same = 0;
    double mf[NCONF], md[NCONF], ms[NCONF], mp[NCONF];
    for (int c = 0; c < NCONF; c++) {
        mf[c] = median(tf[c], (size_t)reps);
        md[c] = median(td[c], (size_t)reps);
        ms[c] = median(ts[c], (size_t)reps);
        mp[c] = median(tp[c], (size_t)reps);
        printf("bench=multithreading conf=%s threads=%d tetrahedra=%d add_force_ms=%.2f "
               "add_force_cpu_ms=%.2f add_dforce_ms=%.2f add_dforce_cpu_ms=%.2f product_ms=%.3f "
               "step_ms=%.1f\n",
               names[c], c == 2 ? threads : 1, 6 * nx * ny * nz, mf[c],
               median(cf[c], (size_t)reps), md[c], median(cd[c], (size_t)reps), mp[c], ms[c]);
    }
    printf("bench=multithreading ratio_seq_over_T: add_force=%.2f add_dforce=%.2f product=%.2f "
           "step=%.2f (parallel-1 over sequential: add_force=%.2f add_dforce=%.2f) identical=%s\n",
           mf[0] / mf[2], md[0] / md[2], mp[0] / mp[2], ms[0] / ms[2], mf[1] / mf[0],
           md[1] / md[0], same ? "yes" : "no");
    print_load("after");
    for (int c = 0; c < NCONF; c++) {
        st_scene_destroy(&s[c]);
        free(f[c]);
    }
    free(dx);
    st_runtime_destroy(&rt);
    return same ? 0 : 1;
}
