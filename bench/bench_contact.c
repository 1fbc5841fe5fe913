/* bench_contact.c - what a step with Lagrangian friction contacts costs: a
 * deformable slab (RegularGridTopology of N x 3 x N nodes over 1 x 0.2 x 1,
 * HexahedronFEMForceField method large, E 5000, nu 0.3, UniformMass
 * totalMass 1, EulerImplicitSolver with CGLinearSolver, 25 iterations,
 * UncoupledConstraintCorrection) resting on a static floor of two
 * triangles, every node a PointCollisionModel point, MinProximityIntersection
 * (alarm 0.02, contact 0.005), CollisionResponse FrictionContactConstraint
 * mu=0.5, FreeMotionAnimationLoop and GenericConstraintSolver (tolerance
 * 1e-6, 3 rows per contact). The N x N bottom nodes touch the floor (N = 32:
 * 1,024 contacts, 3,072 constraint rows). After WARM steps the slab has
 * settled; STEPS steps are timed and split as the loop and the solver time
 * each step (FreeMotionAnimationLoop's timeFreeMotion, timeCollision; the
 * solver's timeBuild: J, violations, W; timeSolve: Gauss-Seidel; and
 * timeCorrection), means per step in ms, printed as one key=value line with the
 * active contacts and the solver's iterations.
 * Usage: bench_contact [N [STEPS]] (default 32, 20). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define WARM 10

static double real_of(st_scene *s, const char *obj, const char *name)
{
    st_component *c = find(s, obj);
    const st_field *f = c ? st_component_field(c, name) : NULL;
    void *p = f ? st_component_field_ptr(c, f) : NULL;
    if (!p)
        return -1.0;
    return f->type == ST_T_REAL ? *(double *)p
           : f->type == ST_T_INT ? *(int *)p
           : f->type == ST_T_UINT ? *(unsigned *)p
                                  : -1.0;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 32;
    int steps = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 2 || steps < 1) {
        fprintf(stderr, "usage: bench_contact [N >= 2 [STEPS >= 1]]\n");
        return 2;
    }
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,\n"
             "        Topology, SolidMechanics.FEM.Elastic, Collision, Constraint.Lagrangian.Solver,\n"
             "        Constraint.Lagrangian.Correction]}\n"
             "    - FreeMotionAnimationLoop: {name: loop}\n"
             "    - GenericConstraintSolver: {name: csolver, tolerance: 1e-6, maxIterations: 1000}\n"
             "    - CollisionPipeline: {}\n"
             "    - BruteForceBroadPhase: {}\n"
             "    - BVHNarrowPhase: {}\n"
             "    - MinProximityIntersection: {alarmDistance: 0.02, contactDistance: 0.005}\n"
             "    - CollisionResponse: {name: resp, response: FrictionContactConstraint,"
             " responseParams: mu=0.5}\n"
             "  children:\n"
             "    - name: Slab\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 25, tolerance: 1e-30, threshold: 1e-30}\n"
             "        - RegularGridTopology: {nx: %u, ny: 3, nz: %u, xmin: 0, xmax: 1, ymin: 0.005,"
             " ymax: 0.205, zmin: 0, zmax: 1}\n"
             "        - MechanicalObject: {}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - HexahedronFEMForceField: {youngModulus: 5000, poissonRatio: 0.3, method: large}\n"
             "        - PointCollisionModel: {}\n"
             "        - UncoupledConstraintCorrection: {defaultCompliance: %.17g}\n"
             "    - name: Floor\n"
             "      objects:\n"
             "        - MechanicalObject: {position: [[-1, 0, -1.3], [2, 0, -1], [2.2, 0, 2],"
             " [-1, 0, 2]]}\n"
             "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
             "        - TriangleCollisionModel: {moving: false, simulated: false}\n",
             n, n, (double)(3 * n * n));
    st_runtime *rt = NULL;
    st_scene *s = NULL;
    st_error err = {0};
    if (st_runtime_create(&rt, &err) != ST_OK ||
        st_scene_load_string(rt, yaml, strlen(yaml), "bench.yaml", &s, &err) != ST_OK ||
        st_scene_init(s, &err) != ST_OK) {
        fprintf(stderr, "bench_contact: %s\n", err.msg);
        return 1;
    }
    for (int k = 0; k < WARM; k++)
        if (st_scene_step(s, 0.0, &err) != ST_OK) {
            fprintf(stderr, "bench_contact: %s\n", err.msg);
            return 1;
        }
    static const char *const objs[5] = {"loop", "loop", "csolver", "csolver", "csolver"};
    static const char *const keys[5] = {"timeFreeMotion", "timeCollision", "timeBuild",
                                        "timeSolve", "timeCorrection"};
    double t1[5] = {0};
    double iters = 0.0;
    double w0 = st_time_now();
    for (int k = 0; k < steps; k++) {
        if (st_scene_step(s, 0.0, &err) != ST_OK) {
            fprintf(stderr, "bench_contact: %s\n", err.msg);
            return 1;
        }
        iters += real_of(s, "csolver", "currentIterations");
        for (int i = 0; i < 5; i++)
            t1[i] += real_of(s, objs[i], keys[i]) / steps;
    }
    double wall = (st_time_now() - w0) / steps;
    printf("bench=contact n=%u nodes=%u contacts=%.0f rows=%.0f iterations_mean=%.1f "
           "step_ms=%.2f free_motion_ms=%.2f detection_ms=%.2f build_ms=%.2f solve_ms=%.2f "
           "correction_ms=%.2f\n",
           n, 3 * n * n, real_of(s, "resp", "numberOfActiveContacts"),
           real_of(s, "csolver", "currentNumConstraints"), iters / steps, 1e3 * wall,
           1e3 * t1[0], 1e3 * t1[1], 1e3 * t1[2], 1e3 * t1[3], 1e3 * t1[4]);
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
    return 0;
}
