/* lagrangian_test_util.h - the scenes the Lagrangian constraint tests
 * share (test_lagrangian*.c, test_lcp_friction.c): a pendulum, a chain of
 * two bilateral constraints and its W and dfree, a spring chain for the
 * animation loops, a collision root, a particle against a unilateral
 * constraint. Gravity is along -y unless given; every builder writes
 * settee YAML into buf (size bytes). */
#ifndef SETTEE_TESTS_LAGRANGIAN_TEST_UTIL_H
#define SETTEE_TESTS_LAGRANGIAN_TEST_UTIL_H

#include <stdio.h>
#include <string.h>

#include "scene_test_util.h"

/* The plugins of every scene below. */
#define LAG_PLUGINS                                                                               \
    "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative,\n"           \
    "        LinearSolver.Direct, Mass, Topology, Mapping.NonLinear, SolidMechanics.Spring,\n"    \
    "        Constraint.Projective, Collision, Constraint.Lagrangian.Solver,\n"                   \
    "        Constraint.Lagrangian.Correction, Constraint.Lagrangian.Model]}\n"

/* The root with gravity (0, -g, 0) and dt h (format it with -g, h first),
 * its objects follow; LAG_HEADER: with the plugins as first object. */
#define LAG_ROOT                                                                                  \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  gravity: [0, %.17g, 0]\n"                                                                  \
    "  dt: %.17g\n"                                                                               \
    "  objects:\n"
#define LAG_HEADER LAG_ROOT LAG_PLUGINS

/* A particle "dofs" of mass 2 in node Particle held by a
 * BilateralLagrangianConstraint at rest_vector (1 0 0) from a pivot at
 * (0 2 0), starting with velocity (0 0 0.5); GenericConstraintSolver
 * "csolver" of tolerance tol storing its constraintForces; EulerImplicitSolver
 * "ode", then the linear solver and correction lines. */
static inline void lag_pendulum_yaml(char *buf, size_t size, double g, double h, double tol,
                                     const char *correction, const char *linsolver)
{
    snprintf(buf, size,
             LAG_HEADER
             "    - FreeMotionAnimationLoop: {}\n"
             "    - GenericConstraintSolver: {name: csolver, tolerance: %.17g,\n"
             "                                computeConstraintForces: true}\n"
             "    - BilateralLagrangianConstraint: {name: hold, object1: '@Pivot/pivot',\n"
             "        object2: '@Particle/dofs', first_point: [0], second_point: [0],\n"
             "        rest_vector: [[1, 0, 0]]}\n"
             "  children:\n"
             "    - name: Pivot\n"
             "      objects:\n"
             "        - MechanicalObject: {name: pivot, position: [0, 2, 0]}\n"
             "    - name: Particle\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {name: ode}\n"
             "        - %s\n"
             "        - MechanicalObject: {name: dofs, position: [1, 2, 0],\n"
             "                             velocity: [0, 0, 0.5]}\n"
             "        - UniformMass: {vertexMass: 2}\n"
             "        - %s\n",
             -g, h, tol, linsolver, correction);
}

/* The chain's compliances (UncoupledConstraintCorrection of B and C). */
#define LAG_CHAIN_CB 0.5
#define LAG_CHAIN_CC 0.25

/* A chain pivot - B - C: BilateralLagrangianConstraint pivot-B and a `link`
 * (BilateralLagrangianConstraint or an alias of it) B-C, rest_vector
 * (1 0 0); B and C the points of state "dofs" at x, with velocity v (NULL:
 * at rest), vertex mass 1, compliances LAG_CHAIN_CB and LAG_CHAIN_CC,
 * CGLinearSolver; `solver` the constraint solver line. */
static inline void lag_chain_yaml(char *buf, size_t size, double g, double h, const char *solver,
                                  const char *link, const double x[6], const double v[6])
{
    char vel[256] = "";
    if (v)
        snprintf(vel, sizeof vel,
                 ",\n                             velocity: [%.17g, %.17g, %.17g, %.17g, %.17g, "
                 "%.17g]",
                 v[0], v[1], v[2], v[3], v[4], v[5]);
    snprintf(buf, size,
             LAG_HEADER
             "    - FreeMotionAnimationLoop: {}\n"
             "    - %s\n"
             "    - BilateralLagrangianConstraint: {object1: '@Pivot/pivot', object2: "
             "'@Chain/dofs',\n"
             "        first_point: [0], second_point: [0], rest_vector: [[1, 0, 0]]}\n"
             "    - %s: {object1: '@Chain/dofs', object2: '@Chain/dofs',\n"
             "        first_point: [0], second_point: [1], rest_vector: [[1, 0, 0]]}\n"
             "  children:\n"
             "    - name: Pivot\n"
             "      objects:\n"
             "        - MechanicalObject: {name: pivot, position: [0, 0, 0]}\n"
             "    - name: Chain\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: dofs, position: [%.17g, %.17g, %.17g, %.17g, "
             "%.17g, %.17g]%s}\n"
             "        - UniformMass: {vertexMass: 1}\n"
             "        - UncoupledConstraintCorrection: {compliance: [%.17g, %.17g]}\n",
             -g, h, solver, link, x[0], x[1], x[2], x[3], x[4], x[5], vel, LAG_CHAIN_CB,
             LAG_CHAIN_CC);
}

/* The chain's W = h [[cb I, -cb I], [-cb I, (cb + cc) I]] (symmetric, so
 * LAPACK's column-major is the same) and dfree after one free step from x
 * with velocity v (NULL: at rest): x_free = x + h (v + h g). */
static inline void lag_chain_problem(double g, double h, const double x[6], const double v[6],
                                     double W[36], double dfree[6])
{
    const double cb = LAG_CHAIN_CB, cc = LAG_CHAIN_CC;
    double xf[6];
    for (int i = 0; i < 6; i++)
        xf[i] = x[i] + h * ((v ? v[i] : 0.0) + h * ((i % 3) == 1 ? -g : 0.0));
    for (int k = 0; k < 3; k++) {
        dfree[k] = xf[k] - (k == 0 ? 1.0 : 0.0);
        dfree[3 + k] = xf[3 + k] - xf[k] - (k == 0 ? 1.0 : 0.0);
    }
    memset(W, 0, 36 * sizeof(double));
    for (int k = 0; k < 3; k++) {
        W[k * 6 + k] = h * cb;
        W[k * 6 + 3 + k] = W[(3 + k) * 6 + k] = -h * cb;
        W[(3 + k) * 6 + 3 + k] = h * (cb + cc);
    }
}

/* Three points "dofs" in node Chain, two springs, point 0 fixed, Rayleigh
 * damping, CGLinearSolver of the given tolerance and threshold; gravity
 * 9.81, dt dt; `loop` the animation loop line(s). */
static inline void lag_spring_yaml(char *buf, size_t size, const char *loop, double dt,
                                   double cg_tolerance, double cg_threshold)
{
    snprintf(buf, size,
             LAG_HEADER
             "    - %s\n"
             "  children:\n"
             "    - name: Chain\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
             "        - CGLinearSolver: {iterations: 25, tolerance: %.17g, threshold: %.17g}\n"
             "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0, 2, 0.1, 0],\n"
             "                             velocity: [0, 0, 0, 0, 0, 1, 0.5, 0, 0]}\n"
             "        - UniformMass: {vertexMass: 0.5}\n"
             "        - SpringForceField: {spring: \"0 1 100 0.5 1  1 2 80 0.2 1\"}\n"
             "        - FixedProjectiveConstraint: {indices: [0]}\n",
             -9.81, dt, loop, cg_tolerance, cg_threshold);
}

/* The root of a collision scene: gravity, dt, FreeMotionAnimationLoop
 * "loop", the constraint solver line, CollisionPipeline "pipe" with
 * brute-force broad phase, BVH narrow phase, MinProximityIntersection
 * (alarm, contact distances) and CollisionResponse "resp" with the
 * `response` fields; ends with "  children:". Returns the length written. */
static inline int lag_contact_root(char *buf, size_t size, const double gravity[3], double dt,
                                   const char *solver, double alarm, double contact,
                                   const char *response)
{
    return snprintf(buf, size,
                    "format: settee/1\n"
                    "root:\n"
                    "  name: root\n"
                    "  gravity: [%.17g, %.17g, %.17g]\n"
                    "  dt: %.17g\n"
                    "  objects:\n" LAG_PLUGINS
                    "    - FreeMotionAnimationLoop: {name: loop}\n"
                    "    - %s\n"
                    "    - CollisionPipeline: {name: pipe}\n"
                    "    - BruteForceBroadPhase: {}\n"
                    "    - BVHNarrowPhase: {}\n"
                    "    - MinProximityIntersection: {alarmDistance: %.17g,\n"
                    "        contactDistance: %.17g}\n"
                    "    - CollisionResponse: {name: resp, %s}\n"
                    "  children:\n",
                    gravity[0], gravity[1], gravity[2], dt, solver, alarm, contact, response);
}

/* A particle "block" of mass m at the origin (node Block, CGLinearSolver,
 * UncoupledConstraintCorrection of the given compliance) against a static
 * point "anchor" (node Anchor) by a unilateral constraint of class `cls`
 * (UnilateralLagrangianConstraint or an alias) of normal (nx, ny, 0) and
 * friction mu; `solver` the constraint solver line. */
static inline void lag_unilateral_yaml(char *buf, size_t size, double g, double h,
                                       const char *solver, const char *cls, double nx, double ny,
                                       double mu, double m, double compliance)
{
    snprintf(buf, size,
             LAG_HEADER
             "    - FreeMotionAnimationLoop: {}\n"
             "    - %s\n"
             "    - %s: {object1: '@Anchor/anchor',\n"
             "        object2: '@Block/block', first_point: [0], second_point: [0],\n"
             "        normals: [[%.17g, %.17g, 0]], mu: %.17g}\n"
             "  children:\n"
             "    - name: Anchor\n"
             "      objects:\n"
             "        - MechanicalObject: {name: anchor, position: [[0, 0, 0]]}\n"
             "    - name: Block\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: block, position: [[0, 0, 0]]}\n"
             "        - UniformMass: {vertexMass: %.17g}\n"
             "        - UncoupledConstraintCorrection: {compliance: [%.17g]}\n",
             -g, h, solver, cls, nx, ny, mu, m, compliance);
}

#endif
