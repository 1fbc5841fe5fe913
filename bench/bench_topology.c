/* bench_topology.c - the cost of a topological change against re-initialising
 * the scene (issue 27): a corotational tetrahedral block (TetrahedronFEM-
 * ForceField large, UniformMass, EulerImplicitSolver + CGLinearSolver of 25
 * iterations, a TetrahedronSetTopologyContainer) of NX x NY x NZ cubes cut
 * into 6 tetrahedra each (100,800 by default), from which 1% of the
 * tetrahedra (spread through the block, a fixed choice) are removed with
 * st_topology_remove between two steps.
 *
 * Prints: load + init of the scene (what re-initialising costs), the
 * removal itself (the container's lists, the isolated sub-elements, every
 * follower renumbered), the first step after it (which rebuilds the
 * mechanical systems and the solver's vectors) against a step without a
 * change, and the median step before and after the change with the CG
 * iterations of each: the cost of one CG iteration, before and after, is
 * what must stay as it is (the body moves on, and its steps may need more
 * iterations after the change).
 * Usage: bench_topology [NX NY NZ [STEPS]]  (default 20 20 42, 5) */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

static int fail(const char *what, const st_error *err)
{
    char buf[1024];
    fprintf(stderr, "bench_topology: %s: %s\n", what, st_error_format(err, buf, sizeof buf));
    return 1;
}

/* Appends formatted text to a growing buffer. */
typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k >= 0 && (size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        b->cap = 2 * b->cap + (size_t)(k > 0 ? k : 0) + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) {
            fprintf(stderr, "bench_topology: out of memory\n");
            exit(1);
        }
    }
}

/* The block as YAML: points, and the 6 tetrahedra around each cube's main
 * diagonal (the same cut in every cube, so the mesh is conforming). */
static char *block_yaml(int nx, int ny, int nz, size_t *ntets)
{
    sbuf b = {malloc(1 << 20), 0, 1 << 20};
    put(&b, "format: settee/1\nroot:\n  name: root\n  gravity: [0, -9.81, 0]\n  dt: 0.01\n"
            "  objects:\n    - RequiredPlugin: {pluginName: [ODESolver.Backward, "
            "LinearSolver.Iterative, Topology, Mass, SolidMechanics.FEM.Elastic]}\n"
            "    - DefaultAnimationLoop: {}\n  children:\n    - name: Block\n      objects:\n"
            "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
            "        - CGLinearSolver: {name: cg, iterations: 25, tolerance: 1e-9, threshold: 1e-12}\n"
            "        - MechanicalObject: {name: dofs}\n"
            "        - TetrahedronSetTopologyContainer: {name: topo, position: [");
    int px = nx + 1, py = ny + 1, pz = nz + 1;
    for (int k = 0; k < pz; k++)
        for (int j = 0; j < py; j++)
            for (int i = 0; i < px; i++)
                put(&b, "%s[%g, %g, %g]", i || j || k ? ", " : "", 0.01 * i, 0.01 * j, 0.01 * k);
    put(&b, "], tetrahedra: [");
    static const int tet6[6][4] = {{0, 1, 3, 7}, {0, 1, 7, 5}, {0, 5, 7, 4},
                                   {0, 3, 2, 7}, {0, 2, 6, 7}, {0, 6, 4, 7}};
    size_t n = 0;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                int c[8];
                for (int v = 0; v < 8; v++)
                    c[v] = (i + (v & 1)) + px * ((j + ((v >> 1) & 1)) + py * (k + (v >> 2)));
                for (int t = 0; t < 6; t++, n++)
                    put(&b, "%s[%d, %d, %d, %d]", n ? ", " : "", c[tet6[t][0]], c[tet6[t][1]],
                        c[tet6[t][2]], c[tet6[t][3]]);
            }
    put(&b, "]}\n        - TetrahedronSetTopologyModifier: {}\n"
            "        - UniformMass: {totalMass: 10}\n"
            "        - TetrahedronFEMForceField: {name: fem, method: large, youngModulus: 1e5, "
            "poissonRatio: 0.3}\n");
    *ntets = n;
    return b.p;
}

int main(int argc, char **argv)
{
    int nx = argc > 3 ? atoi(argv[1]) : 20, ny = argc > 3 ? atoi(argv[2]) : 20,
        nz = argc > 3 ? atoi(argv[3]) : 42, steps = argc > 4 ? atoi(argv[4]) : 5;
    if (nx < 1 || ny < 1 || nz < 1 || steps < 1) {
        fprintf(stderr, "usage: bench_topology [NX NY NZ [STEPS]]\n");
        return 2;
    }
    size_t ntets;
    char *yaml = block_yaml(nx, ny, nz, &ntets);
    st_runtime *rt = NULL;
    st_scene *s = NULL;
    st_error err = {0};
    if (st_runtime_create(&rt, &err) != ST_OK)
        return fail("runtime", &err);
    double t0 = st_time_now();
    if (st_scene_load_string(rt, yaml, strlen(yaml), "bench_topology.yaml", &s, &err) != ST_OK)
        return fail("load", &err);
    if (st_scene_init(s, &err) != ST_OK)
        return fail("init", &err);
    double t_init = st_time_now() - t0;
    free(yaml);

    double *before = calloc((size_t)steps, sizeof *before), *after = calloc((size_t)steps,
                                                                            sizeof *after);
    st_component *cg = find(s, "cg");
    double its_before = 0, its_after = 0;
    for (int i = 0; i < steps; i++) {
        double t = st_time_now();
        if (st_scene_step(s, 0, &err) != ST_OK)
            return fail("step", &err);
        before[i] = st_time_now() - t;
        its_before += bench_field_num(cg, "nbIterations") / steps;
    }
    /* 1% of the tetrahedra, spread through the block (a fixed stride). */
    size_t nrem = ntets / 100;
    unsigned *ids = malloc(nrem * sizeof *ids);
    for (size_t i = 0; i < nrem; i++)
        ids[i] = (unsigned)(i * 100 + 37);
    st_component *topo = find(s, "topo");
    unsigned long allocs = st_alloc_count();
    double t = st_time_now();
    if (st_topology_remove(topo, ST_ELEM_TETRAHEDRON, ids, nrem, &err) != ST_OK)
        return fail("remove", &err);
    double t_remove = st_time_now() - t;
    t = st_time_now();
    if (st_scene_step(s, 0, &err) != ST_OK)
        return fail("step after the change", &err);
    double t_first = st_time_now() - t;
    for (int i = 0; i < steps; i++) {
        unsigned long a0 = st_alloc_count();
        t = st_time_now();
        if (st_scene_step(s, 0, &err) != ST_OK)
            return fail("step", &err);
        after[i] = st_time_now() - t;
        its_after += bench_field_num(cg, "nbIterations") / steps;
        if (st_alloc_count() != a0)
            fprintf(stderr, "bench_topology: a step without a change allocated %lu times\n",
                    st_alloc_count() - a0);
    }
    double mb = median(before, (size_t)steps), ma = median(after, (size_t)steps);
    const st_array *tl = topo->cls->topology->elements(topo, ST_T_TETRAS);
    printf("bench=topology tetrahedra=%zu removed=%zu left=%zu init_s=%.4f remove_s=%.4f "
           "remove_vs_init=%.4f first_step_s=%.4f step_before_s=%.4f step_after_s=%.4f "
           "rebuild_s=%.4f allocs_in_change=%lu cg_iterations_before=%.1f "
           "cg_iterations_after=%.1f iteration_s_before=%.6f iteration_s_after=%.6f\n",
           ntets, nrem, tl ? tl->n : 0, t_init, t_remove, t_remove / t_init, t_first, mb, ma,
           t_first - ma, st_alloc_count() - allocs, its_before, its_after,
           its_before > 0 ? mb / its_before : 0.0, its_after > 0 ? ma / its_after : 0.0);
    free(ids);
    free(before);
    free(after);
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
    return 0;
}
