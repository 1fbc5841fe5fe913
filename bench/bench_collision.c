/* bench_collision.c - what collision detection costs: two flat surface
 * meshes in close contact, a static floor (TriangleCollisionModel and
 * LineCollisionModel on a RegularGridTopology of N x 1 x N nodes over
 * 10 x 10, its quads cut in two) and a simulated sheet of N-1 x N-1 nodes
 * shifted by half a cell and lifted by 0.2 h (h the cell size), with
 * alarm 0.4 h and contact 0.15 h so that the contacts per element do not
 * grow with N. Two scenes:
 * - points: the sheet's PointCollisionModel and LineCollisionModel under
 *   MinProximityIntersection (triangle-point, line-line, line-point);
 * - triangles: the sheet's TriangleCollisionModel under
 *   NewProximityIntersection (triangle-triangle, triangle-line).
 * Each broad phase (BruteForceBroadPhase + BVHNarrowPhase, DirectSAP,
 * IncrSAP) runs the same scene. The pipeline's detection and response
 * (CollisionPipeline's compute: boxes, element search, primitive tests,
 * penalty contacts) is timed alone, ROUNDS rounds of STEPS calls, the
 * sheet moved a little sideways before each call (so that IncrSAP's
 * kept order has work to do); best and median per call (wall and
 * thread CPU time) printed as one line of key=value with the triangle
 * count, the contacts and a hash of the contact points (equal across
 * broad phases: same contacts, same order); exit status 1 when a timed
 * call allocated or the broad phases disagree.
 * Usage: bench_collision [N [STEPS [BROAD [SCENE]]]] (default: N = 71,
 * 100, 141, 224: ~10,000 to ~100,000 floor triangles, STEPS 5, every
 * broad phase, both scenes). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <settee/settee.h>

#define ROUNDS 7

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void) { return clock_s(CLOCK_MONOTONIC); }
/* CPU time of this thread: what the call costs, whatever the machine's
 * other load (the machine is shared). */
static double cpu(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static st_component *find(st_node *n, const char *name)
{
    for (size_t i = 0; i < st_node_object_count(n); i++)
        if (!strcmp(st_node_object(n, i)->name, name))
            return st_node_object(n, i);
    for (size_t i = 0; i < st_node_child_count(n); i++) {
        st_component *c = find(st_node_child(n, i), name);
        if (c)
            return c;
    }
    return NULL;
}

/* One configuration; *hash receives the hash of the last call's contact
 * points, *ncontacts their number. */
static int run(unsigned n, int steps, const char *broad, bool tri, uint64_t *hash,
               size_t *ncontacts)
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
             "    - %s: {}\n"
             "    - BVHNarrowPhase: {}\n"
             "    - %s: {alarmDistance: %.17g, contactDistance: %.17g}\n"
             "    - CollisionResponse: {}\n"
             "  children:\n"
             "    - name: Sheet\n"
             "      objects:\n"
             "        - EulerExplicitSolver: {}\n"
             "        - RegularGridTopology: {nx: %u, ny: 1, nz: %u, xmin: %.17g, xmax: %.17g,"
             " ymin: %.17g, ymax: %.17g, zmin: %.17g, zmax: %.17g}\n"
             "        - MechanicalObject: {name: sheet}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "%s"
             "    - name: Floor\n"
             "      objects:\n"
             "        - RegularGridTopology: {nx: %u, ny: 1, nz: %u, xmin: 0, xmax: 10, ymin: 0,"
             " ymax: 0, zmin: 0, zmax: 10, computeTriangleList: false}\n"
             "        - MechanicalObject: {}\n"
             "        - TriangleCollisionModel: {name: floor, moving: false, simulated: false}\n"
             "        - LineCollisionModel: {moving: false, simulated: false}\n",
             broad, tri ? "NewProximityIntersection" : "MinProximityIntersection", 0.4 * h,
             0.15 * h, n - 1, n - 1, 0.5 * h, 10 - 0.5 * h, 0.2 * h, 0.2 * h, 0.3 * h,
             10 - 0.7 * h,
             tri ? "        - TriangleCollisionModel: {}\n"
                 : "        - LineCollisionModel: {}\n        - PointCollisionModel: {}\n",
             n, n);
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
    st_component *pipe = find(root, "pipe");
    st_mstate *sheet = (st_mstate *)find(root, "sheet");
    size_t nx = sheet->position.n;
    double *x0 = malloc(3 * nx * sizeof *x0);
    memcpy(x0, sheet->position.r, 3 * nx * sizeof *x0);
    /* Warm up: the contact lists reach their size. */
    if (pipe->cls->collision->compute(pipe, root, &err) != ST_OK) {
        fprintf(stderr, "bench_collision: %s\n", err.msg);
        return 1;
    }
    double best = 1e300, per[ROUNDS], best_cpu = 1e300, per_cpu[ROUNDS];
    unsigned long allocs = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double spent = 0.0, spent_cpu = 0.0;
        for (int k = 0; k < steps; k++) {
            /* The sheet slides by up to 0.1 h along x and z. */
            double dx = 0.1 * h * sin(0.7 * (r * steps + k + 1)), dz = 0.05 * h * cos(0.3 * k);
            for (size_t i = 0; i < nx; i++) {
                sheet->position.r[3 * i] = x0[3 * i] + dx;
                sheet->position.r[3 * i + 2] = x0[3 * i + 2] + dz;
            }
            unsigned long a0 = st_alloc_count();
            double t0 = now(), c0 = cpu();
            if (pipe->cls->collision->compute(pipe, root, &err) != ST_OK) {
                fprintf(stderr, "bench_collision: %s\n", err.msg);
                return 1;
            }
            spent_cpu += cpu() - c0;
            spent += now() - t0;
            allocs += st_alloc_count() - a0;
        }
        per[r] = spent / steps;
        per_cpu[r] = spent_cpu / steps;
        best = per[r] < best ? per[r] : best;
        best_cpu = per_cpu[r] < best_cpu ? per_cpu[r] : best_cpu;
    }
    qsort(per, ROUNDS, sizeof *per, cmp);
    qsort(per_cpu, ROUNDS, sizeof *per_cpu, cmp);
    const st_array *pts = st_component_field_ptr(pipe, st_component_field(pipe, "contactPoints"));
    uint64_t hv = 1469598103934665603ull;
    for (size_t i = 0; i < 3 * pts->n; i++) {
        uint64_t u;
        memcpy(&u, &pts->r[i], sizeof u);
        hv = (hv ^ u) * 1099511628211ull;
    }
    *hash = hv;
    *ncontacts = pts->n / 2;
    printf("bench=collision scene=%s broad=%s n=%u floor_triangles=%u sheet_elements=%u "
           "contacts=%zu hash=%016llx detect_ms_best=%.3f detect_ms_median=%.3f "
           "detect_cpu_ms_best=%.3f detect_cpu_ms_median=%.3f allocs_per_call=%lu\n",
           tri ? "triangles" : "points", broad, n, 2 * (n - 1) * (n - 1),
           tri ? 2 * (n - 2) * (n - 2) : (n - 1) * (n - 1), *ncontacts, (unsigned long long)hv,
           1e3 * best, 1e3 * per[ROUNDS / 2], 1e3 * best_cpu, 1e3 * per_cpu[ROUNDS / 2],
           allocs / (unsigned long)(ROUNDS * steps));
    fflush(stdout);
    free(x0);
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
    return allocs ? 1 : 0;
}

int main(int argc, char **argv)
{
    static const char *const broads[] = {"BruteForceBroadPhase", "DirectSAP", "IncrSAP"};
    static const unsigned sizes[] = {71, 100, 141, 224};
    int steps = argc > 2 ? atoi(argv[2]) : 5;
    const char *only = argc > 3 && strcmp(argv[3], "all") ? argv[3] : NULL;
    const char *scene = argc > 4 ? argv[4] : NULL;
    int rc = 0;
    for (int t = 0; t < 2; t++) {
        if (scene && strcmp(scene, t ? "triangles" : "points"))
            continue;
        for (size_t k = 0; k < 4; k++) {
            unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : sizes[k];
            uint64_t h0 = 0;
            size_t c0 = 0;
            for (int b = 0; b < 3; b++) {
                if (only && strcmp(only, broads[b]))
                    continue;
                uint64_t hv;
                size_t nc;
                rc |= run(n, steps, broads[b], t == 1, &hv, &nc);
                if (b && !only && (hv != h0 || nc != c0)) {
                    fprintf(stderr, "bench_collision: %s gives other contacts than %s\n",
                            broads[b], broads[0]);
                    rc = 1;
                }
                h0 = hv;
                c0 = nc;
            }
            if (argc > 1)
                break;
        }
    }
    return rc;
}
