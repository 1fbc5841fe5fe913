/* bench_penalty.c - what a step with penalty contacts costs, on the kind of
 * scene issue 33 measured SOFA on: a soft cube of N x N x N nodes over
 * [0, 1]^3 (RegularGridTopology cut into 6 (N-1)^3 tetrahedra by
 * Hexa2TetraTopologicalMapping: N = 20, 41,154 tetrahedra),
 * TetrahedronFEMForceField method large (E 3000, nu 0.3), UniformMass
 * totalMass 1, EulerImplicitSolver with CGLinearSolver (25 iterations, SOFA's
 * usual), every node a PointCollisionModel point, on a static floor of
 * 2 M^2 triangles (M = 40: 3,200), CollisionPipeline, BruteForceBroadPhase,
 * BVHNarrowPhase, MinProximityIntersection (alarm 0.02, contact 0.005) and
 * SOFA's default response (PenalityContactForceField). The cube starts 0.002
 * above the floor: its N x N bottom nodes touch it (400 contacts at N = 20).
 *
 * After WARM steps, STEPS steps are timed (wall and CPU of the process) and
 * split with the kernel's counters: the solver's whole solve (solver_ms), of
 * which forces (force_ms: the right-hand side, contacts included) and the
 * linear solve with its matrix-free products (linsolve_ms); the rest of the
 * step (other_ms) is the collision detection and response, the mapping and
 * projection propagation and the loop. Prints one key=value line.
 * With KIND friction, the same cube with Lagrangian friction contacts, the
 * other row of issue 33's contact measurements ("FreeMotionAnimationLoop +
 * Gauss-Seidel + friction, 85 contacts"): FreeMotionAnimationLoop,
 * GenericConstraintSolver (SOFA's defaults: projected Gauss-Seidel,
 * tolerance 1e-3, 1000 iterations), UncoupledConstraintCorrection,
 * FrictionContactConstraint mu 0.5, on a floor over [-0.5, 0.45]^2 so that
 * only the cube's 9 x 9 corner nodes at N = 20 touch it (81 contacts).
 * Usage: bench_penalty [N [M [STEPS [KIND]]]] (default 20, 40, 20, penalty). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define WARM 5

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
    unsigned m = argc > 2 ? (unsigned)atoi(argv[2]) : 40;
    int steps = argc > 3 ? atoi(argv[3]) : 20;
    const char *kind = argc > 4 ? argv[4] : "penalty";
    const bool friction = strcmp(kind, "friction") == 0;
    if (n < 2 || m < 1 || steps < 1 || (!friction && strcmp(kind, "penalty") != 0)) {
        fprintf(stderr, "usage: bench_penalty [N >= 2 [M >= 1 [STEPS >= 1 [penalty|friction]]]]\n");
        return 2;
    }
    const double floor_max = friction ? 0.45 : 1.5;
    /* the floor: (m + 1)^2 points over [-0.5, 1.5]^2 at y = 0, 2 m^2 triangles */
    size_t np = (size_t)(m + 1) * (m + 1), nt = 2 * (size_t)m * m;
    size_t cap = 4096 + np * 64 + nt * 40;
    char *yaml = malloc(cap);
    if (!yaml)
        return 1;
    int k = snprintf(
        yaml, cap,
        "format: settee/1\n"
        "root:\n"
        "  name: root\n"
        "  gravity: [0, -9.81, 0]\n"
        "  dt: 0.01\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,\n"
        "        Topology, SolidMechanics.FEM.Elastic, Collision, Constraint.Lagrangian.Solver,\n"
        "        Constraint.Lagrangian.Correction]}\n"
        "%s"
        "    - CollisionPipeline: {name: pipeline}\n"
        "    - BruteForceBroadPhase: {}\n"
        "    - BVHNarrowPhase: {}\n"
        "    - MinProximityIntersection: {alarmDistance: 0.02, contactDistance: 0.005}\n"
        "    - CollisionResponse: {%s}\n"
        "  children:\n"
        "    - name: Cube\n"
        "      objects:\n"
        "        - EulerImplicitSolver: {name: ode}\n"
        "        - CGLinearSolver: {iterations: 25, tolerance: 1e-9, threshold: 1e-9}\n"
        "        - RegularGridTopology: {name: grid, nx: %u, ny: %u, nz: %u, xmin: 0, xmax: 1,"
        " ymin: 0.007, ymax: 1.007, zmin: 0, zmax: 1}\n"
        "        - MechanicalObject: {name: dofs}\n"
        "        - UniformMass: {totalMass: 1}\n"
        "        - PointCollisionModel: {}\n"
        "%s"
        "      children:\n"
        "        - name: Tetra\n"
        "          objects:\n"
        "            - TetrahedronSetTopologyContainer: {name: tets}\n"
        "            - Hexa2TetraTopologicalMapping: {input: \"@../grid\", output: \"@tets\"}\n"
        "            - TetrahedronFEMForceField: {youngModulus: 3000, poissonRatio: 0.3,"
        " method: large}\n"
        "    - name: Floor\n"
        "      objects:\n"
        "        - MechanicalObject: {position: [",
        friction ? "    - FreeMotionAnimationLoop: {}\n    - GenericConstraintSolver: {name: solver}\n"
                 : "    - DefaultAnimationLoop: {}\n",
        friction ? "response: FrictionContactConstraint, responseParams: \"mu=0.5\"" : "",
        n, n, n, friction ? "        - UncoupledConstraintCorrection: {}\n" : "");
    for (unsigned j = 0; j <= m; j++)
        for (unsigned i = 0; i <= m; i++)
            k += snprintf(yaml + k, cap - (size_t)k, "%s[%.17g, 0, %.17g]", i || j ? ", " : "",
                          -0.5 + (floor_max + 0.5) * i / m, -0.5 + (floor_max + 0.5) * j / m);
    k += snprintf(yaml + k, cap - (size_t)k, "]}\n        - MeshTopology: {triangles: [");
    for (unsigned j = 0; j < m; j++)
        for (unsigned i = 0; i < m; i++) {
            unsigned a = j * (m + 1) + i, b = a + 1, c = a + m + 1, d = c + 1;
            /* normals up (+y): counter-clockwise seen from above */
            k += snprintf(yaml + k, cap - (size_t)k, "%s[%u, %u, %u], [%u, %u, %u]",
                          i || j ? ", " : "", a, c, b, b, c, d);
        }
    snprintf(yaml + k, cap - (size_t)k,
             "]}\n        - TriangleCollisionModel: {moving: false, simulated: false}\n");
    st_runtime *rt = NULL;
    st_scene *s = NULL;
    st_error err = {0};
    if (st_runtime_create(&rt, &err) != ST_OK ||
        st_scene_load_string(rt, yaml, strlen(yaml), "bench.yaml", &s, &err) != ST_OK ||
        st_scene_init(s, &err) != ST_OK) {
        fprintf(stderr, "bench_penalty: %s\n", err.msg);
        return 1;
    }
    free(yaml);
    for (int i = 0; i < WARM; i++)
        if (st_scene_step(s, 0.0, &err) != ST_OK) {
            fprintf(stderr, "bench_penalty: %s\n", err.msg);
            return 1;
        }
    const st_mstate *dofs = (const st_mstate *)find(s, "dofs");
    st_system *sys = dofs ? dofs->system : NULL;
    if (!sys) {
        fprintf(stderr, "bench_penalty: the cube has no system\n");
        return 1;
    }
    double ph0[3] = {sys->time_step, sys->time_force, sys->time_linsolve};
    unsigned long a0 = st_alloc_count();
    double w0 = st_time_now(), c0 = cpu_now();
    for (int i = 0; i < steps; i++)
        if (st_scene_step(s, 0.0, &err) != ST_OK) {
            fprintf(stderr, "bench_penalty: %s\n", err.msg);
            return 1;
        }
    double wall = (st_time_now() - w0) / steps, cpu = (cpu_now() - c0) / steps;
    unsigned long allocs = st_alloc_count() - a0;
    double ph[3] = {(sys->time_step - ph0[0]) / steps, (sys->time_force - ph0[1]) / steps,
                    (sys->time_linsolve - ph0[2]) / steps};
    st_component *pipe = find(s, "pipeline");
    const st_field *f = pipe ? st_component_field(pipe, "contactCounts") : NULL;
    const st_array *counts = f ? st_component_field_ptr(pipe, f) : NULL;
    unsigned contacts = 0;
    for (size_t i = 0; counts && i < counts->n; i++)
        contacts += counts->u[i];
    printf("bench=%s n=%u tetrahedra=%u floor_triangles=%zu contacts=%u step_ms=%.2f "
           "step_cpu_ms=%.2f solver_ms=%.2f force_ms=%.2f linsolve_ms=%.2f other_ms=%.2f "
           "step_allocs=%lu\n",
           kind, n, 6 * (n - 1) * (n - 1) * (n - 1), nt, contacts, 1e3 * wall, 1e3 * cpu,
           1e3 * ph[0], 1e3 * ph[1], 1e3 * ph[2], 1e3 * (wall - ph[0]), allocs);
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
    return contacts == 0 || allocs != 0;
}
