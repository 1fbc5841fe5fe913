/* bench_collision.c - what collision detection costs: two flat surface
 * meshes in close contact, a static floor (TriangleCollisionModel on a
 * RegularGridTopology of N x 1 x N nodes over 10 x 10, its quads cut in
 * two) and a sheet of N-1 x N-1 nodes shifted by half a cell and lifted by
 * 0.2 h (points and lines, with an ODE solver so that it is simulated; h
 * the cell size), under MinProximityIntersection (alarm 0.4 h, contact
 * 0.15 h, so that the contacts per element do not grow with N): every sheet point
 * meets one floor triangle, and sheet lines cross floor lines. The
 * pipeline's detection and response (CollisionPipeline's compute: boxes,
 * sort, sweep, primitive tests, penalty contacts) is timed alone, ROUNDS
 * rounds of STEPS calls, best and median per call printed as one line of
 * key=value with the triangle count; exit status 1 when a
 * timed call allocated.
 * Usage: bench_collision [N [STEPS]] (default: N = 71, 224: ~10,000 and
 * ~100,000 floor triangles; STEPS 5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <settee/settee.h>

#define ROUNDS 7

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int run(unsigned n, int steps)
{
    char yaml[4096];
    double h = 10.0 / (n - 1);
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, Topology, Collision]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - CollisionPipeline: {name: pipe}\n"
             "    - BruteForceBroadPhase: {}\n"
             "    - BVHNarrowPhase: {}\n"
             "    - MinProximityIntersection: {alarmDistance: %.17g, contactDistance: %.17g}\n"
             "    - CollisionResponse: {}\n"
             "  children:\n"
             "    - name: Sheet\n"
             "      objects:\n"
             "        - EulerExplicitSolver: {}\n"
             "        - RegularGridTopology: {nx: %u, ny: 1, nz: %u, xmin: %.17g, xmax: %.17g,"
             " ymin: %.17g, ymax: %.17g, zmin: %.17g, zmax: %.17g}\n"
             "        - MechanicalObject: {}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - LineCollisionModel: {}\n"
             "        - PointCollisionModel: {}\n"
             "    - name: Floor\n"
             "      objects:\n"
             "        - RegularGridTopology: {nx: %u, ny: 1, nz: %u, xmin: 0, xmax: 10, ymin: 0,"
             " ymax: 0, zmin: 0, zmax: 10, computeTriangleList: false}\n"
             "        - MechanicalObject: {}\n"
             "        - TriangleCollisionModel: {name: floor, moving: false, simulated: false}\n"
             "        - LineCollisionModel: {moving: false, simulated: false}\n",
             0.4 * h, 0.15 * h, n - 1, n - 1, 0.5 * h, 10 - 0.5 * h, 0.2 * h, 0.2 * h, 0.3 * h,
             10 - 0.7 * h, n, n);
    st_runtime *rt = NULL;
    st_scene *s = NULL;
    st_error err = {0};
    if (st_runtime_create(&rt, &err) != ST_OK ||
        st_scene_load_string(rt, yaml, strlen(yaml), "bench.yaml", &s, &err) != ST_OK ||
        st_scene_init(s, &err) != ST_OK) {
        fprintf(stderr, "bench_collision: %s\n", err.msg);
        return 1;
    }
    st_node *root = st_scene_root(s);
    st_component *pipe = NULL;
    for (size_t i = 0; i < st_node_object_count(root); i++)
        if (!strcmp(st_node_object(root, i)->name, "pipe"))
            pipe = st_node_object(root, i);
    /* Warm up: the contact lists reach their size. */
    if (pipe->cls->collision->compute(pipe, root, &err) != ST_OK) {
        fprintf(stderr, "bench_collision: %s\n", err.msg);
        return 1;
    }
    double best = 1e300, per[ROUNDS];
    unsigned long allocs = 0;
    for (int r = 0; r < ROUNDS; r++) {
        unsigned long a0 = st_alloc_count();
        double t0 = now();
        for (int k = 0; k < steps; k++)
            if (pipe->cls->collision->compute(pipe, root, &err) != ST_OK) {
                fprintf(stderr, "bench_collision: %s\n", err.msg);
                return 1;
            }
        per[r] = (now() - t0) / steps;
        allocs += st_alloc_count() - a0;
        if (per[r] < best)
            best = per[r];
    }
    qsort(per, ROUNDS, sizeof *per, cmp);
    printf("bench=collision n=%u floor_triangles=%u sheet_points=%u detect_ms_best=%.3f "
           "detect_ms_median=%.3f allocs_per_call=%lu\n",
           n, 2 * (n - 1) * (n - 1), (n - 1) * (n - 1), 1e3 * best, 1e3 * per[ROUNDS / 2],
           allocs / (unsigned long)(ROUNDS * steps));
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
    return allocs ? 1 : 0;
}

int main(int argc, char **argv)
{
    int steps = argc > 2 ? atoi(argv[2]) : 5;
    if (argc > 1)
        return run((unsigned)atoi(argv[1]), steps);
    int rc = 0;
    for (unsigned n = 0, sizes[] = {71, 224}; n < 2; n++)
        rc |= run(sizes[n], steps);
    return rc;
}
