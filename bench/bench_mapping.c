/* bench_mapping.c - what a mechanical mapping costs: the explicit spring beam
 * of bench_beam (EulerExplicitSolver symplectic false, UniformMass totalMass
 * 15, base fixed by BoxROI + FixedProjectiveConstraint, MeshSpringForceField
 * stiffness 300, dt 1e-5, gravity -9.81 y) on a RegularGridTopology of
 * NX x NY x NZ nodes over [-1.5,1.5]^2 x [0,10], in three variants:
 *   plain   - the beam alone;
 *   child   - the same beam plus a child node whose MechanicalObject has as
 *             many points as the parent (its own grid of the same size),
 *             mapped by a BarycentricMapping: the mapping's apply (x), apply_j
 *             (v) and apply_jt (f) run every step;
 *   springs - the springs moved into that mapped child: every force goes
 *             through the mapping;
 *   child8  - as child, the child's points moved by half a cell (translation
 *             0.1 0.1 0.0625): each point inside a cell, eight weights (the
 *             last layers outside, extrapolated from the nearest cell).
 * On grid nodes most of BarycentricMapping's weights are exactly 0 and
 * dropped, so `child` costs one term per point; `child8` is the general
 * case.
 * Usage: bench_mapping [NX NY NZ [STEPS]] (default 16 16 81, 20 steps per
 * round). The variants take turns, one round of STEPS steps each, 30 rounds,
 * so that all see the same load of the shared machine; each variant's best
 * and median round (per step) are printed as one line of key=value, with
 * overhead_pct = the variant's best over plain's best, minus 1, in percent
 * (the best round is the least disturbed by other processes), and
 * median_overhead_pct the same for the medians. Exit status 1 when a timed
 * step allocated or a position is not finite. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <settee/settee.h>

#define ROUNDS 30
#define NVARIANTS 4

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *const names[NVARIANTS] = {"plain", "child", "springs", "child8"};

static st_scene *load(st_runtime *rt, int variant, size_t nx, size_t ny, size_t nz, st_error *err)
{
    char grid[256], yaml[4096];
    snprintf(grid, sizeof grid,
             "RegularGridTopology: {nx: %zu, ny: %zu, nz: %zu, xmin: -1.5, xmax: 1.5, ymin: -1.5,"
             " ymax: 1.5, zmin: 0, zmax: 10}",
             nx, ny, nz);
    const char *springs = "MeshSpringForceField: {stiffness: 300}";
    int n = snprintf(yaml, sizeof yaml,
                     "format: settee/1\n"
                     "root:\n"
                     "  name: root\n"
                     "  gravity: [0, -9.81, 0]\n"
                     "  dt: 0.00001\n"
                     "  objects:\n"
                     "    - DefaultAnimationLoop: {}\n"
                     "  children:\n"
                     "    - name: Beam\n"
                     "      objects:\n"
                     "        - EulerExplicitSolver: {symplectic: false}\n"
                     "        - MechanicalObject: {name: dofs}\n"
                     "        - %s\n"
                     "        - UniformMass: {totalMass: 15}\n"
                     "        - BoxROI: {name: box, box: [-1.5, -1.5, 0, 1.5, 1.5, 0.0001]}\n"
                     "        - FixedProjectiveConstraint: {indices: \"@box.indices\"}\n"
                     "%s%s%s",
                     grid, variant == 2 ? "" : "        - ", variant == 2 ? "" : springs,
                     variant == 2 ? "" : "\n");
    if (variant > 0)
        snprintf(yaml + n, sizeof yaml - (size_t)n,
                 "      children:\n"
                 "        - name: mapped\n"
                 "          objects:\n"
                 "            - %s\n"
                 "            - MechanicalObject: {name: points%s}\n"
                 "            - BarycentricMapping: {input: \"@../dofs\", output: \"@points\"}\n"
                 "%s%s%s",
                 grid, variant == 3 ? ", translation: [0.1, 0.1, 0.0625]" : "",
                 variant == 2 ? "            - " : "", variant == 2 ? springs : "",
                 variant == 2 ? "\n" : "");
    st_scene *s = NULL;
    if (st_scene_load_string(rt, yaml, strlen(yaml), "bench_mapping.yaml", &s, err) != ST_OK)
        return NULL;
    if (st_scene_init(s, err) != ST_OK) {
        st_scene_destroy(&s);
        return NULL;
    }
    return s;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    size_t nx = 16, ny = 16, nz = 81;
    long steps = 20;
    if (argc > 1 && argc < 4) {
        fprintf(stderr, "usage: bench_mapping [NX NY NZ [STEPS]]\n");
        return 2;
    }
    if (argc >= 4) {
        nx = strtoul(argv[1], NULL, 10);
        ny = strtoul(argv[2], NULL, 10);
        nz = strtoul(argv[3], NULL, 10);
    }
    if (argc > 4)
        steps = atol(argv[4]);
    if (nx < 2 || ny < 2 || nz < 2 || steps < 1) {
        fprintf(stderr, "bench_mapping: NX, NY, NZ must be at least 2, STEPS at least 1\n");
        return 2;
    }
    st_error err = {0};
    st_runtime *rt = NULL;
    char buf[ST_ERROR_MSG_MAX + 1024];
    if (st_runtime_create(&rt, &err) != ST_OK)
        goto fail;
    static const char *const plugins[] = {"ODESolver.Forward",     "Mass",
                                          "Topology",              "Engine.Select",
                                          "Constraint.Projective", "SolidMechanics.Spring",
                                          "Mapping.Linear"};
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        if (st_runtime_load_plugin(rt, plugins[i], &err) != ST_OK)
            goto fail;
    st_scene *s[NVARIANTS];
    for (int v = 0; v < NVARIANTS; v++)
        if (!(s[v] = load(rt, v, nx, ny, nz, &err)))
            goto fail;
    /* Warm-up, then rounds of steps per variant in turn. */
    double t[NVARIANTS][ROUNDS];
    unsigned long allocs = 0;
    for (int r = -1; r < ROUNDS; r++)
        for (int v = 0; v < NVARIANTS; v++) {
            long k = r < 0 ? 20 : steps;
            unsigned long a0 = st_alloc_count();
            double t0 = now();
            for (long i = 0; i < k; i++)
                if (st_scene_step(s[v], 0, &err) != ST_OK)
                    goto fail;
            if (r >= 0) {
                t[v][r] = (now() - t0) / (double)k;
                allocs += st_alloc_count() - a0;
            }
        }
    int finite = 1;
    for (int v = 0; v < NVARIANTS; v++) {
        st_mstate *ms = NULL;
        st_component *c = NULL;
        if (st_node_resolve(st_scene_root(s[v]), "/Beam/dofs", ST_LINK_STATE, &c, &err) != ST_OK)
            goto fail;
        ms = (st_mstate *)c;
        for (size_t i = 0; i < 3 * ms->n; i++)
            finite = finite && isfinite(ms->position.r[i]);
    }
    double med[NVARIANTS], best[NVARIANTS];
    for (int v = 0; v < NVARIANTS; v++) {
        qsort(t[v], ROUNDS, sizeof(double), cmp);
        med[v] = t[v][ROUNDS / 2];
        best[v] = t[v][0];
    }
    for (int v = 0; v < NVARIANTS; v++)
        printf("bench=mapping variant=%s grid=%zux%zux%zu nodes=%zu steps=%ld rounds=%d "
               "step_ms=%.4f overhead_pct=%.1f median_step_ms=%.4f median_overhead_pct=%.1f "
               "step_allocs=%lu finite=%s\n",
               names[v], nx, ny, nz, nx * ny * nz, steps, ROUNDS, 1e3 * best[v],
               100.0 * (best[v] / best[0] - 1.0), 1e3 * med[v], 100.0 * (med[v] / med[0] - 1.0),
               allocs, finite ? "yes" : "no");
    for (int v = 0; v < NVARIANTS; v++)
        st_scene_destroy(&s[v]);
    st_runtime_destroy(&rt);
    return allocs == 0 && finite ? 0 : 1;
fail:
    fprintf(stderr, "bench_mapping: %s\n", st_error_format(&err, buf, sizeof buf));
    return 1;
}
