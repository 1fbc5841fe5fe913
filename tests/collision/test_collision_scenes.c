/* test_collision_scenes.c - SOFA's collision pipeline in whole scenes: a
 * ball on a static triangle floor rests where the penalty force carries its
 * weight (SOFA's stiffness rule ks = ks1 ks2 / (contactDistance + radii) and
 * rest distance; Rigid3d and Vec3d spheres; explicit, matrix-free and
 * assembled implicit); a deformable cube with a mapped surface rests on the
 * floor without tunnelling, its contact forces summing to its weight, the
 * same through CG and LDL; runs are bit-identical twice and with another
 * broad phase; steady steps allocate nothing; a pair across two solvers is
 * refused at init; the contacts' stiffness is their force's derivative;
 * the narrow phase finds what testing every element pair finds, and each
 * element search (grid, DirectSAP, IncrSAP) gives exactly the pairs whose
 * boxes meet, in order, on random, touching, NaN and moving boxes; a cloth
 * falls on a static sphere and stays outside it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision.h"
#include "element_search.h"
#include "internal.h"
#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(collision_scenes, .init = setup, .fini = teardown);

#define HEADER                                                                                     \
    "format: settee/1\n"                                                                           \
    "root:\n"                                                                                      \
    "  name: root\n"                                                                               \
    "  gravity: [0, -9.81, 0]\n"                                                                   \
    "  dt: %g\n"                                                                                   \
    "  objects:\n"                                                                                 \
    "    - RequiredPlugin: {pluginName: [ODESolver.Backward, ODESolver.Forward,\n"                 \
    "        LinearSolver.Direct, LinearSolver.Iterative, Mass, Topology,\n"                      \
    "        SolidMechanics.Spring, Mapping.Linear, Collision]}\n"                                 \
    "    - DefaultAnimationLoop: {}\n"                                                             \
    "    - CollisionPipeline: {}\n"                                                                \
    "    - %s: {}\n"                                                                               \
    "    - BVHNarrowPhase: {}\n"                                                                   \
    "    - MinProximityIntersection: {alarmDistance: %g, contactDistance: %g}\n"                  \
    "    - CollisionResponse: {}\n"                                                                \
    "  children:\n"

#define FLOOR                                                                                      \
    "    - name: Floor\n"                                                                          \
    "      objects:\n"                                                                             \
    "        - MechanicalObject: {name: floor, position: [[-3, 0, -3], [4, 0, -3], [4, 0, 3],"     \
    " [-3, 0, 3]]}\n"                                                                              \
    "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"                                \
    "        - TriangleCollisionModel: {moving: false, simulated: false, contactStiffness: %g}\n"

/* The broad phase preceded by SOFA's collision group manager, for HEADER:
 * contacts between two simulated bodies under one solver below the root
 * are then integrated by that solver (without it SOFA leaves them in the
 * root, outside every solver: explicit). */
#define GROUPED_BRUTE_FORCE "DefaultCollisionGroupManager: {}\n    - BruteForceBroadPhase"

static const char *IMPLICIT_CG = "EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
                                 "        - CGLinearSolver: {iterations: 200, tolerance: 1e-20,"
                                 " threshold: 1e-30}";
static const char *IMPLICIT_LDL = "EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
                                  "        - SparseLDLSolver: {template: "
                                  "CompressedRowSparseMatrixMat3x3d}";
static const char *EXPLICIT = "EulerExplicitSolver: {symplectic: true}";

static st_scene *load(const char *yaml)
{
    st_scene *s = NULL;
    st_error e = {0};
    st_status rc = test_load_string(&T, yaml, &s, &e);
    cr_assert_eq(rc, ST_OK, "load: %s\n%s", e.msg, yaml);
    rc = st_scene_init(s, &e);
    cr_assert_eq(rc, ST_OK, "init: %s (%s)", e.msg, e.where);
    return s;
}

static void run(st_scene *s, int steps)
{
    st_error e = {0};
    for (int i = 0; i < steps; i++)
        cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "step %d: %s", i, e.msg);
}

static st_mstate *state(st_scene *s, const char *name)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no %s", name);
    return (st_mstate *)c;
}

/* A ball of mass 1 and radius r on the floor (ks of both models k),
 * dropped from h0 (or placed at h0 at rest). */
static char *ball_yaml(const char *solver, bool rigid, double h0, double k, double dt)
{
    char *y = malloc(8192);
    int n = snprintf(y, 8192, HEADER, dt, "BruteForceBroadPhase", 0.8, 0.5);
    n += snprintf(y + n, 8192 - (size_t)n,
                  "    - name: Ball\n"
                  "      objects:\n"
                  "        - %s\n"
                  "        - MechanicalObject: {name: ball, template: %s, position: [[0.3, %.17g,"
                  " 0.2%s]]}\n"
                  "        - UniformMass: {totalMass: 1}\n"
                  "        - SphereCollisionModel: {radius: 0.1, contactStiffness: %g}\n",
                  solver, rigid ? "Rigid3d" : "Vec3d", h0, rigid ? ", 0, 0, 0, 1" : "", k);
    snprintf(y + n, 8192 - (size_t)n, FLOOR, k);
    return y;
}

/* SOFA's rule: distance d = contactDistance + r (the triangle has none),
 * ks = k k / d; the Rigid3d sphere's contact point is on its surface, so
 * its rest height is d + r, a Vec3d sphere's (its centre) d. */
static double rest_height(bool rigid, double k)
{
    double d = 0.5 + 0.1, ks = k * k / d;
    return d + (rigid ? 0.1 : 0.0) - 9.81 / ks;
}

static void check_ball_rests(const char *solver, bool rigid, double k, double dt, int steps,
                             double tol)
{
    char *y = ball_yaml(solver, rigid, 1.5, k, dt);
    st_scene *s = load(y);
    run(s, steps);
    st_mstate *b = state(s, "ball");
    double h = b->position.r[1], want = rest_height(rigid, k);
    cr_assert(fabs(h - want) < tol, "%s %s: rests at %.15g, closed form %.15g", solver,
              rigid ? "Rigid3d" : "Vec3d", h, want);
    cr_assert(fabs(b->velocity.r[1]) < 1e-6, "still moving: %g", b->velocity.r[1]);
    /* The contact point lies below the centre: no torque, no spin. */
    if (rigid)
        for (int a = 3; a < 6; a++)
            cr_assert(fabs(b->velocity.r[a]) < 1e-12, "spins: %g", b->velocity.r[a]);
    st_scene_destroy(&s);
    free(y);
}

Test(collision_scenes, rigid_ball_rests_at_penalty_depth_implicit)
{
    check_ball_rests(IMPLICIT_CG, true, 1000, 0.005, 2000, 1e-9);
    check_ball_rests(IMPLICIT_LDL, true, 1000, 0.005, 2000, 1e-9);
}

Test(collision_scenes, vec3_ball_rests_at_penalty_depth_implicit)
{
    check_ball_rests(IMPLICIT_CG, false, 1000, 0.005, 2000, 1e-9);
    check_ball_rests(IMPLICIT_LDL, false, 1000, 0.005, 2000, 1e-9);
}

/* listRadius shorter than the state: as in SOFA the spheres past its end
 * take the default radius (`radius`), with a warning. Three balls of mass 1,
 * listRadius [0.1], radius 0.3: the first rests where a 0.1 ball does, the
 * others where 0.3 balls do (d = contactDistance + r, ks = k k / d). */
/* Balls under IMPLICIT_LDL (their node's objects after the solver:
 * `balls`) on the floor of stiffness 1000, loaded and initialised. */
static st_scene *balls_on_floor(const char *balls)
{
    char *y = malloc(8192);
    int n = snprintf(y, 8192, HEADER, 0.005, "BruteForceBroadPhase", 0.8, 0.5);
    n += snprintf(y + n, 8192 - (size_t)n,
                  "    - name: Balls\n"
                  "      objects:\n"
                  "        - %s\n%s",
                  IMPLICIT_LDL, balls);
    snprintf(y + n, 8192 - (size_t)n, FLOOR, 1000.0);
    st_scene *s = load(y);
    free(y);
    return s;
}

Test(collision_scenes, short_list_radius_pads_with_the_default_radius)
{
    st_scene *s = balls_on_floor("        - MechanicalObject: {name: balls, position: [[0.3, 1.5, "
                                 "0.2], [1.8, 1.5, 0.2], [-1.5, 1.5, -1]]}\n"
                                 "        - UniformMass: {totalMass: 3}\n"
                                 "        - SphereCollisionModel: {listRadius: [0.1], radius: "
                                 "0.3, contactStiffness: 1000}\n");
    cr_assert(strstr(T.log, "listRadius has 1 radii for 3 spheres") &&
                  strstr(T.log, "default radius 0.3"),
              "%s", T.log);
    run(s, 2000);
    st_mstate *b = state(s, "balls");
    for (int i = 0; i < 3; i++) {
        const double d = 0.5 + (i == 0 ? 0.1 : 0.3), want = d - 9.81 * d / (1000.0 * 1000.0);
        cr_assert(fabs(b->position.r[3 * i + 1] - want) < 1e-9, "ball %d rests at %.15g, want %.15g",
                  i, b->position.r[3 * i + 1], want);
    }
    st_scene_destroy(&s);
}

/* Spheres on a state its IdentityMapping sizes at init, the model listed
 * before the mapping (as SOFA scenes often do: MechanicalObject, model,
 * mapping): the model follows the state's size, as SOFA's resizes in its
 * bounding tree, so every sphere collides, not only the first (the state
 * had one point when the model was initialised). Both balls (mass 1 each)
 * rest where a Vec3d ball does: d - g / ks, d = contactDistance + r. */
Test(collision_scenes, spheres_on_a_state_sized_by_its_mapping_all_collide)
{
    st_scene *s = balls_on_floor("        - MechanicalObject: {name: balls, position: [[0.3, 1.5, "
                                 "0.2], [1.3, 1.5, -0.7]]}\n"
                                 "        - UniformMass: {totalMass: 2}\n"
                                 "      children:\n"
                                 "        - name: Collision\n"
                                 "          objects:\n"
                                 "            - MechanicalObject: {name: spheres}\n"
                                 "            - SphereCollisionModel: {radius: 0.1, "
                                 "contactStiffness: 1000}\n"
                                 "            - IdentityMapping: {}\n");
    run(s, 2000);
    st_mstate *b = state(s, "balls");
    double want = rest_height(false, 1000);
    for (int i = 0; i < 2; i++)
        cr_assert(fabs(b->position.r[3 * i + 1] - want) < 1e-9, "ball %d rests at %.15g, want %.15g",
                  i, b->position.r[3 * i + 1], want);
    st_scene_destroy(&s);
}

/* Explicit integration has no damping: placed at the closed-form height at
 * rest, the ball stays there (the force balances the weight to
 * round-off); placed a little higher, it oscillates about that height. */
Test(collision_scenes, ball_balances_weight_explicit)
{
    for (int rigid = 0; rigid < 2; rigid++) {
        double want = rest_height(rigid, 20);
        char *y = ball_yaml(EXPLICIT, rigid, want, 20, 0.001);
        st_scene *s = load(y);
        run(s, 500);
        st_mstate *b = state(s, "ball");
        cr_assert(fabs(b->position.r[1] - want) < 1e-12, "explicit %d: %.17g vs %.17g", rigid,
                  b->position.r[1], want);
        st_scene_destroy(&s);
        free(y);
        /* 1 cm higher: min and max heights symmetric about the rest height
         * (a linear spring, the ball never leaving the contact). */
        y = ball_yaml(EXPLICIT, rigid, want + 0.01, 20, 0.0005);
        s = load(y);
        b = state(s, "ball");
        double lo = 1e9, hi = -1e9;
        st_error e = {0};
        for (int i = 0; i < 4000; i++) {
            cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "%s", e.msg);
            lo = fmin(lo, b->position.r[1]);
            hi = fmax(hi, b->position.r[1]);
        }
        cr_assert(fabs(0.5 * (lo + hi) - want) < 2e-4, "oscillates about %.9g, want %.9g",
                  0.5 * (lo + hi), want);
        cr_assert(fabs(hi - want - 0.01) < 2e-4, "amplitude %.9g", hi - want);
        st_scene_destroy(&s);
        free(y);
    }
}

/* The cube: a 3x3x3 spring grid, its surface (8 corners and the bottom
 * centre, 14 triangles) mapped by a BarycentricMapping. */
static char *cube_yaml(const char *solver, const char *broad)
{
    char *y = malloc(16384);
    int n = snprintf(y, 16384, HEADER, 0.01, broad, 0.15, 0.05);
    n += snprintf(
        y + n, 16384 - (size_t)n,
        "    - name: Cube\n"
        "      objects:\n"
        "        - %s\n"
        "        - MechanicalObject: {name: dofs}\n"
        "        - RegularGridTopology: {nx: 3, ny: 3, nz: 3, xmin: -0.5, xmax: 0.5, ymin: 0.3,"
        " ymax: 1.3, zmin: -0.5, zmax: 0.5}\n"
        "        - UniformMass: {totalMass: 1}\n"
        "        - MeshSpringForceField: {stiffness: 500, damping: 1}\n"
        "      children:\n"
        "        - name: Surface\n"
        "          objects:\n"
        "            - MechanicalObject: {name: surf, position: [[-0.5, 0.3, -0.5], [0.5, 0.3, -0.5],"
        " [0.5, 0.3, 0.5], [-0.5, 0.3, 0.5], [-0.5, 1.3, -0.5], [0.5, 1.3, -0.5], [0.5, 1.3, 0.5],"
        " [-0.5, 1.3, 0.5], [0, 0.3, 0]]}\n"
        "            - MeshTopology: {triangles: [[0, 1, 8], [1, 2, 8], [2, 3, 8], [3, 0, 8],"
        " [4, 6, 5], [4, 7, 6], [0, 4, 5], [0, 5, 1], [1, 5, 6], [1, 6, 2], [2, 6, 7], [2, 7, 3],"
        " [3, 7, 4], [3, 4, 0]]}\n"
        "            - TriangleCollisionModel: {contactStiffness: 100}\n"
        "            - LineCollisionModel: {contactStiffness: 100}\n"
        "            - PointCollisionModel: {contactStiffness: 100}\n"
        "            - BarycentricMapping: {input: \"@..\", output: \"@surf\"}\n",
        solver);
    snprintf(y + n, 16384 - (size_t)n, FLOOR, 100.0);
    return y;
}

static void check_cube_rests(st_scene *s, const char *what)
{
    st_mstate *g = state(s, "dofs"), *surf = state(s, "surf");
    for (size_t i = 0; i < g->position.n; i++)
        cr_assert(g->position.r[3 * i + 1] > 0.0, "%s: grid point %zu below the floor (%g)", what,
                  i, g->position.r[3 * i + 1]);
    double vmax = 0;
    for (size_t i = 0; i < 3 * g->velocity.n; i++)
        vmax = fmax(vmax, fabs(g->velocity.r[i]));
    cr_assert(vmax < 1e-4, "%s: still moving (%g)", what, vmax);
    /* The five bottom points carry the weight: sum ks pen = m g with
     * ks = 100 100 / 0.05 and pen = 0.05 - y. */
    const unsigned bottom[5] = {0, 1, 2, 3, 8};
    double ks = 100.0 * 100.0 / 0.05, sum = 0;
    for (int k = 0; k < 5; k++) {
        double y = surf->position.r[3 * bottom[k] + 1];
        cr_assert(y < 0.05 && y > 0.04, "%s: bottom point %u at %g", what, bottom[k], y);
        sum += ks * (0.05 - y);
    }
    cr_assert(fabs(sum - 9.81) < 1e-4, "%s: contact forces sum to %.9g, weight 9.81", what, sum);
}

Test(collision_scenes, deformable_cube_rests_on_floor)
{
    const char *solvers[2] = {IMPLICIT_CG, IMPLICIT_LDL};
    double *final[2];
    size_t n = 0;
    for (int k = 0; k < 2; k++) {
        char *y = cube_yaml(solvers[k], "BruteForceBroadPhase");
        st_scene *s = load(y);
        run(s, 400);
        check_cube_rests(s, k ? "LDL" : "CG");
        st_mstate *g = state(s, "dofs");
        n = 3 * g->position.n;
        final[k] = malloc(n * sizeof(double));
        memcpy(final[k], g->position.r, n * sizeof(double));
        st_scene_destroy(&s);
        free(y);
    }
    /* The assembled stiffness (J^T K J through the mapping) and the
     * matrix-free products give the same motion. */
    for (size_t i = 0; i < n; i++)
        cr_assert(fabs(final[0][i] - final[1][i]) < 1e-8, "CG and LDL differ at %zu: %g %g", i,
                  final[0][i], final[1][i]);
    free(final[0]);
    free(final[1]);
}

/* Same scene twice, and with DirectSAP, IncrSAP, SOFA's deprecated
 * BruteForceDetection (first in scene order: the broad and the narrow
 * phase) and the parallel phases on 2 and 3 threads (the model pairs'
 * narrow phases on threads): bit-identical trajectories. */
Test(collision_scenes, deterministic)
{
    const char *broad[7] = {
        "BruteForceBroadPhase", "BruteForceBroadPhase", "DirectSAP", "IncrSAP",
        "BruteForceDetection",
        "ParallelBVHNarrowPhase: {nbThreads: 2}\n    - ParallelBruteForceBroadPhase",
        "ParallelBruteForceBroadPhase: {nbThreads: 3}\n    - ParallelBVHNarrowPhase"};
    double *out[7];
    size_t n = 0;
    for (int k = 0; k < 7; k++) {
        char *y = cube_yaml(IMPLICIT_CG, broad[k]);
        st_scene *s = load(y);
        run(s, 150);
        st_mstate *g = state(s, "dofs");
        n = 3 * g->position.n;
        out[k] = malloc(n * sizeof(double));
        memcpy(out[k], g->position.r, n * sizeof(double));
        st_scene_destroy(&s);
        free(y);
    }
    cr_assert(memcmp(out[0], out[1], n * sizeof(double)) == 0, "two runs differ");
    cr_assert(memcmp(out[0], out[2], n * sizeof(double)) == 0, "DirectSAP differs");
    cr_assert(memcmp(out[0], out[3], n * sizeof(double)) == 0, "IncrSAP differs");
    cr_assert(memcmp(out[0], out[4], n * sizeof(double)) == 0, "BruteForceDetection differs");
    cr_assert(memcmp(out[0], out[5], n * sizeof(double)) == 0, "the parallel narrow phase differs");
    cr_assert(memcmp(out[0], out[6], n * sizeof(double)) == 0, "the parallel broad phase differs");
    for (int k = 0; k < 7; k++)
        free(out[k]);
}

/* Five balls of 0.1 under one implicit solver, two of them stacked, over
 * the floor: ten model pairs (ball - floor, ball - ball). BROAD is the
 * broad phase line of HEADER. */
static char *balls_yaml(const char *broad)
{
    char *y = malloc(16384);
    int n = snprintf(y, 16384, HEADER, 0.01, broad, 0.08, 0.05);
    n += snprintf(y + n, 16384 - (size_t)n,
                  "    - name: Balls\n      objects:\n        - %s\n      children:\n",
                  IMPLICIT_CG);
    const double pos[5][3] = {{0, 0.3, 0}, {0.5, 0.2, 0.1}, {1, 0.25, -0.3},
                              {1.02, 0.47, -0.29}, {-0.6, 0.15, 0.4}};
    for (int b = 0; b < 5; b++)
        n += snprintf(y + n, 16384 - (size_t)n,
                      "        - name: B%d\n"
                      "          objects:\n"
                      "            - MechanicalObject: {name: ball%d, position: [[%g, %g, %g]]}\n"
                      "            - UniformMass: {totalMass: %g}\n"
                      "            - SphereCollisionModel: {radius: 0.1, contactStiffness: 50}\n",
                      b, b, pos[b][0], pos[b][1], pos[b][2], 1.0 + 0.1 * b);
    snprintf(y + n, 16384 - (size_t)n, FLOOR, 50.0);
    return y;
}

/* The parallel phases run the ten pairs' narrow phases on 2, 3 and 4
 * threads: every ball's trajectory is the sequential phases' to the bit. */
Test(collision_scenes, parallel_phases_bit_identical)
{
    const char *phases[4] = {
        "BruteForceBroadPhase",
        "ParallelBVHNarrowPhase: {nbThreads: 2}\n    - ParallelBruteForceBroadPhase",
        "ParallelBVHNarrowPhase: {nbThreads: 3}\n    - BruteForceBroadPhase",
        "ParallelBruteForceBroadPhase: {nbThreads: 4}\n    - ParallelBVHNarrowPhase"};
    double ref[15];
    for (int k = 0; k < 4; k++) {
        char *y = balls_yaml(phases[k]);
        st_scene *s = load(y);
        run(s, 120);
        for (int b = 0; b < 5; b++) {
            char name[16];
            snprintf(name, sizeof name, "ball%d", b);
            const double *x = state(s, name)->position.r;
            if (k == 0)
                memcpy(ref + 3 * b, x, 3 * sizeof *x);
            else
                cr_assert(memcmp(ref + 3 * b, x, 3 * sizeof *x) == 0,
                          "%s: ball %d at %.17g %.17g %.17g, sequential %.17g %.17g %.17g",
                          phases[k], b, x[0], x[1], x[2], ref[3 * b], ref[3 * b + 1],
                          ref[3 * b + 2]);
        }
        st_scene_destroy(&s);
        free(y);
    }
    /* the balls came down onto the floor: contacts happened */
    for (int b = 0; b < 5; b++)
        cr_assert(ref[3 * b + 1] < 0.2 && ref[3 * b + 1] > 0.0, "ball %d at height %g", b,
                  ref[3 * b + 1]);
}

/* Once the contact lists have their size, a step allocates nothing, with
 * each broad phase. */
Test(collision_scenes, steady_steps_allocate_nothing)
{
    static const char *const broad[] = {"BruteForceBroadPhase", "DirectSAP", "IncrSAP"};
    for (int b = 0; b < 3; b++) {
        char *y = cube_yaml(IMPLICIT_CG, broad[b]);
        st_scene *s = load(y);
        run(s, 300);
        st_error e = {0};
        unsigned long a0 = st_alloc_count();
        for (int i = 0; i < 20; i++)
            cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "%s", e.msg);
        cr_assert_eq(st_alloc_count() - a0, 0, "%s: %lu allocations in 20 resting steps",
                     broad[b], st_alloc_count() - a0);
        st_scene_destroy(&s);
        free(y);
    }
}

/* ---- the element search (element_search.c) against every pair ---- */

static double rnd(unsigned long *r)
{
    *r = *r * 6364136223846793005ul + 1442695040888963407ul;
    return (double)(*r >> 11) / 9007199254740992.0;
}

/* The model's box and widest element, as cmodel_update_boxes makes them. */
static void model_box(cmodel *m)
{
    for (int k = 0; k < 3; k++) {
        m->mbox[k] = 1e300;
        m->mbox[k + 3] = -1e300;
        m->ext[k] = 0.0;
    }
    for (size_t e = 0; e < m->nelem; e++) {
        const double *b = m->box + 6 * e;
        for (int k = 0; k < 3; k++) {
            if (b[k] < m->mbox[k])
                m->mbox[k] = b[k];
            if (b[k + 3] > m->mbox[k + 3])
                m->mbox[k + 3] = b[k + 3];
            if (b[k + 3] - b[k] > m->ext[k])
                m->ext[k] = b[k + 3] - b[k];
        }
    }
}

/* Random boxes, some on a lattice (touching faces, equal end points, -0),
 * some degenerate (points), one NaN, one huge. */
static void random_boxes(cmodel *m, size_t n, unsigned long *r, double shift)
{
    for (size_t e = 0; e < n; e++) {
        double *b = m->box + 6 * e;
        for (int k = 0; k < 3; k++) {
            double lo, w;
            if (e % 3 == 0) { /* lattice: integer corners, unit widths */
                lo = floor(rnd(r) * 8.0) - 4.0;
                lo = lo == 0.0 ? -0.0 : lo;
                w = 1.0;
            } else {
                lo = rnd(r) * 8.0 - 4.0;
                w = e % 3 == 1 ? 0.0 : rnd(r) * 0.8;
            }
            b[k] = lo + shift;
            b[k + 3] = lo + w + shift;
        }
    }
    if (n > 10) {
        m->box[6 * 7 + 1] = NAN;
        for (int k = 0; k < 3; k++) {
            m->box[6 * 9 + k] = -100.0;
            m->box[6 * 9 + k + 3] = 100.0;
        }
    }
    m->nelem = n;
    model_box(m);
}

static void expect_every_pair(const cmodel *m0, const cmodel *m1, double alarm, const char *what)
{
    static const cs_kind kinds[] = {CS_GRID, CS_DIRECT_SAP, CS_INCR_SAP};
    static csearch s[3]; /* kept across calls: IncrSAP re-sorts its list */
    bool self = m0 == m1;
    st_error err = {0};
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(cs_find(&s[k], kinds[k], m0, m1, alarm, &err), ST_OK, "%s", err.msg);
        size_t at = 0;
        for (size_t i = 0; i < m0->nelem; i++) {
            cr_assert_eq(s[k].ostart[i], at, "%s, search %d: element %zu starts at %u, not %zu",
                         what, k, i, s[k].ostart[i], at);
            for (size_t j = self ? i + 1 : 0; j < m1->nelem; j++)
                if (cs_boxes_meet(m0->box + 6 * i, m1->box + 6 * j, alarm)) {
                    cr_assert(at < s[k].ostart[i + 1] && s[k].oj[at] == j,
                              "%s, search %d: pair (%zu, %zu) missing or out of order", what, k,
                              i, j);
                    at++;
                }
            cr_assert_eq(s[k].ostart[i + 1], at, "%s, search %d: extra pairs of %zu", what, k,
                         i);
        }
        cr_assert(at > 0, "%s: no pairs at all", what);
    }
    if (!strcmp(what, "last"))
        for (int k = 0; k < 3; k++)
            cs_free(&s[k]);
}

Test(collision_scenes, element_search_finds_every_pair_in_order)
{
    enum { N0 = 400, N1 = 300 };
    static double b0[6 * N0], b1[6 * N1];
    cmodel m0 = {.box = b0}, m1 = {.box = b1};
    unsigned long r = 99;
    /* A point in the top cell of the grid, met by a box whose widened
     * lower bound falls inside that cell (a pair the grid once missed). */
    static double pa[6] = {0, 0, 9.9, 0.1, 0, 10},
                  pb[12] = {0.05, 0.02, 0.03, 0.05, 0.02, 0.03, 0.05, 0.02, 9.9, 0.05, 0.02, 9.9};
    cmodel one = {.box = pa, .nelem = 1}, two = {.box = pb, .nelem = 2};
    model_box(&one);
    model_box(&two);
    expect_every_pair(&one, &two, 0.04, "top cell");
    /* Two models, then one against itself; alarm 0 (touching boxes only)
     * and 0.3; then the same boxes moved (IncrSAP's kept order). */
    for (int step = 0; step < 3; step++) {
        double shift = 0.05 * step;
        random_boxes(&m0, N0, &r, shift);
        random_boxes(&m1, N1, &r, -shift);
        expect_every_pair(&m0, &m1, step == 1 ? 0.0 : 0.3, "two models");
    }
    for (int step = 0; step < 3; step++) { /* small moves: IncrSAP's insertion sort */
        for (size_t e = 0; e < 6 * N1; e++)
            b1[e] += 0.03 * (double)((e / 6) % 5) - 0.06;
        model_box(&m1);
        expect_every_pair(&m0, &m1, 0.3, "two models, moved");
    }
    for (int step = 0; step < 3; step++) {
        random_boxes(&m0, N0, &r, 0.1 * step);
        expect_every_pair(&m0, &m0, step == 1 ? 0.0 : 0.3, step == 2 ? "last" : "self");
    }
}

/* Two balls overlapping by 0.05, under two ODE solvers, no group manager,
 * no gravity: SOFA puts their contact force field in the root, outside
 * both solvers, and its force at the positions before the solvers run
 * (ks pen = 10 10 / 0.25 * 0.05 = 20) acts on each ball as a constant
 * external force, with no stiffness in the implicit solves: after one
 * implicit Euler step of 0.01 each unit mass moves apart at exactly
 * dt F / m = 0.2 (an implicit contact would give 0.2 / (1 + dt^2 ks / m)
 * per ball, about 0.185). With MultiStepAnimationLoop and two
 * integrations per collision step, the force is taken again before the
 * second at the new positions: 0.1 + 0.005 * 400 * (0.05 - 0.001) =
 * 0.198. Written in SOFA's format. */
static st_scene *balls_on_two_solvers(const char *loop)
{
    char y[4096];
    int n = snprintf(y, sizeof y,
                     "<Node name='root' gravity='0 0 0' dt='0.01'>\n"
                     "  <RequiredPlugin pluginName='ODESolver.Backward LinearSolver.Iterative "
                     "Mass Collision'/>\n"
                     "  %s\n"
                     "  <CollisionPipeline/>\n"
                     "  <BruteForceBroadPhase/>\n"
                     "  <BVHNarrowPhase/>\n"
                     "  <MinProximityIntersection alarmDistance='0.2' contactDistance='0.05'/>\n"
                     "  <CollisionResponse response='PenalityContactForceField'/>\n",
                     loop);
    for (int k = 0; k < 2; k++)
        n += snprintf(y + n, sizeof y - (size_t)n,
                      "  <Node name='B%d'>\n"
                      "    <EulerImplicitSolver name='ode%d' rayleighStiffness='0' "
                      "rayleighMass='0'/>\n"
                      "    <CGLinearSolver iterations='50' tolerance='1e-30' threshold='1e-30'/>\n"
                      "    <MechanicalObject name='ball%d' position='%g 1 0'/>\n"
                      "    <UniformMass totalMass='1'/>\n"
                      "    <SphereCollisionModel radius='0.1' contactStiffness='10'/>\n"
                      "  </Node>\n",
                      k, k, k, 0.2 * k);
    snprintf(y + n, sizeof y - (size_t)n, "</Node>\n");
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(st_scene_load_string(T.rt, y, strlen(y), "balls.scn", &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s", e.msg);
    cr_assert_eq(s->nsystems, 2);
    cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "%s", e.msg);
    return s;
}

Test(collision_scenes, pair_across_two_solvers_is_explicit)
{
    st_scene *s = balls_on_two_solvers("<DefaultAnimationLoop/>");
    st_mstate *b0 = state(s, "ball0"), *b1 = state(s, "ball1");
    cr_assert(fabs(b0->velocity.r[0] + 0.2) < 1e-12 && fabs(b1->velocity.r[0] - 0.2) < 1e-12,
              "velocities %.17g %.17g", b0->velocity.r[0], b1->velocity.r[0]);
    cr_assert(fabs(b1->position.r[0] - 0.202) < 1e-12, "x %.17g", b1->position.r[0]);
    /* The external force acted for that step only. */
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(b1->external_force.r[i], 0.0);
    st_scene_destroy(&s);
    s = balls_on_two_solvers("<MultiStepAnimationLoop collisionSteps='1' integrationSteps='2'/>");
    b1 = state(s, "ball1");
    cr_assert(fabs(b1->velocity.r[0] - 0.198) < 1e-12, "velocity %.17g", b1->velocity.r[0]);
    st_scene_destroy(&s);
}

/* The verbose log names each pair and its contacts at each step. */
Test(collision_scenes, contacts_per_pair_are_logged)
{
    char *y = ball_yaml(IMPLICIT_CG, true, rest_height(true, 1000), 1000, 0.005);
    st_scene *s = load(y);
    run(s, 2);
    cr_assert(strstr(T.log, "step 2: /Floor/TriangleCollisionModel1 - /Ball/SphereCollisionModel1:"
                            " 1 contacts"),
              "%s", T.log);
    /* The same in the pipeline's outputs: one pair, one contact, its points
     * (the floor's under the ball, the ball's lowest point), the normal up
     * and the distance -pen = -m g / ks. */
    st_component *pipe = test_find_object(s, "CollisionPipeline1");
    const st_array *cnt = st_component_field_ptr(pipe, st_component_field(pipe, "contactCounts"));
    const st_array *pts = st_component_field_ptr(pipe, st_component_field(pipe, "contactPoints"));
    const st_array *nor = st_component_field_ptr(pipe, st_component_field(pipe, "contactNormals"));
    const st_array *dis = st_component_field_ptr(pipe, st_component_field(pipe, "contactDistances"));
    cr_assert_eq(cnt->n, 1);
    cr_assert_eq(cnt->u[0], 1);
    cr_assert_eq(pts->n, 2);
    cr_assert_eq(nor->n, 1);
    double h = rest_height(true, 1000);
    cr_assert_float_eq(pts->r[0], 0.3, 1e-12);
    cr_assert_float_eq(pts->r[1], 0.0, 1e-12);
    cr_assert_float_eq(pts->r[2], 0.2, 1e-12);
    cr_assert_float_eq(pts->r[4], h - 0.1, 1e-9);
    cr_assert_float_eq(nor->r[1], 1.0, 1e-12);
    cr_assert_float_eq(dis->r[0], -9.81 / (1000.0 * 1000.0 / 0.6), 1e-9);
    st_scene_destroy(&s);
    free(y);
}

/* Two bodies under one solver, B resting 2 cm into A's contact distance
 * (triangle-point, line-line, line-point contacts between two mapped
 * surfaces): the contacts' stiffness (add_dforce, and the assembled
 * J^T K J) is the derivative of their force, by central differences. */
static bool body_springs; /* give the bodies springs (a 2x2x2 grid of them) */

static const char *body(const char *name, double x0, double y0, double z0, double a)
{
    static char buf[2][4096];
    static int k;
    char *b = buf[k++ & 1];
    snprintf(b, sizeof buf[0],
             "        - name: %s\n"
             "          objects:\n"
             "            - MechanicalObject: {name: %s_dofs}\n"
             "            - RegularGridTopology: {nx: 2, ny: 2, nz: 2, xmin: %g, xmax: %g, ymin: %g,"
             " ymax: %g, zmin: %g, zmax: %g}\n"
             "            - UniformMass: {totalMass: 1}\n"
             "%s"
             "          children:\n"
             "            - name: S\n"
             "              objects:\n"
             "                - MechanicalObject: {name: %s_surf, position: [[%g, %g, %g], [%g, %g, %g],"
             " [%g, %g, %g], [%g, %g, %g], [%g, %g, %g], [%g, %g, %g], [%g, %g, %g], [%g, %g, %g]]}\n"
             "                - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2], [4, 6, 5], [4, 7, 6],"
             " [0, 4, 5], [0, 5, 1], [1, 5, 6], [1, 6, 2], [2, 6, 7], [2, 7, 3], [3, 7, 4], [3, 4, 0]]}\n"
             "                - TriangleCollisionModel: {contactStiffness: 30}\n"
             "                - LineCollisionModel: {contactStiffness: 30}\n"
             "                - PointCollisionModel: {contactStiffness: 30}\n"
             "                - BarycentricMapping: {input: \"@..\", output: \"@%s_surf\"}\n",
             name, name, x0, x0 + a, y0, y0 + a, z0, z0 + a,
             body_springs ? "            - MeshSpringForceField: {stiffness: 500, damping: 2}\n" : "",
             name, x0, y0, z0, x0 + a, y0, z0,
             x0 + a, y0, z0 + a, x0, y0, z0 + a, x0, y0 + a, z0, x0 + a, y0 + a, z0, x0 + a,
             y0 + a, z0 + a, x0, y0 + a, z0 + a, name);
    return b;
}

Test(collision_scenes, contact_stiffness_is_the_force_derivative)
{
    char y[16384];
    int n = snprintf(y, sizeof y, HEADER, 0.01, GROUPED_BRUTE_FORCE, 0.1, 0.05);
    snprintf(y + n, sizeof y - (size_t)n,
             "    - name: Pair\n"
             "      objects:\n"
             "        - %s\n"
             "      children:\n%s%s",
             IMPLICIT_LDL, body("A", -0.5, 0.0, -0.5, 1.0), body("B", -0.25, 1.02, -0.4, 0.6));
    st_scene *s = load(y);
    st_component *pipe = test_find_object(s, "CollisionPipeline1");
    cr_assert_not_null(pipe);
    st_error err = {0};
    cr_assert_eq(pipe->cls->collision->compute(pipe, st_scene_root(s), &err), ST_OK, "%s", err.msg);
    cr_assert(strstr(T.log, "/Pair/A/S/TriangleCollisionModel1 - /Pair/B/S/PointCollisionModel1: 4 contacts"),
              "%s", T.log);
    cr_assert(strstr(T.log, "/Pair/B/S/LineCollisionModel1 - /Pair/A/S/LineCollisionModel1: "), "%s", T.log);
    st_system *sys = s->systems[0];
    size_t nd = sys->size_all, nx = sys->xsize_all;
    double *x0 = malloc(nx * sizeof *x0), *xp = malloc(nx * sizeof *xp);
    double *fp = calloc(nd, sizeof *fp), *fm = calloc(nd, sizeof *fm);
    double *dx = calloc(nd, sizeof *dx), *df = calloc(nd, sizeof *df), *km = calloc(nd, sizeof *km);
    memcpy(x0, sys->x, nx * sizeof *x0);
    st_matrix *mat = NULL;
    st_system_compute_force(sys, fp, x0, sys->v);
    cr_assert_eq(st_matrix_create(sys, &mat, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(mat, sys, 0.0, 0.0, 1.0, &err), ST_OK, "%s", err.msg);
    const double eps = 1e-6;
    double worst = 0, worst_m = 0, kmax = 0;
    double *f0 = calloc(nd, sizeof *f0);
    for (size_t col = 0; col < sys->size; col++) {
        double *f2[2] = {fm, fp};
        for (int sg = 0; sg < 2; sg++) {
            memcpy(xp, x0, nx * sizeof *xp);
            xp[col] += (sg ? eps : -eps); /* Vec3d states: coordinates = derivatives */
            st_system_propagate_x(sys, xp);
            st_system_compute_force(sys, f2[sg], xp, sys->v);
        }
        /* Back at x0: the contacts' penetrations are those of x0 again. */
        st_system_propagate_x(sys, x0);
        st_system_compute_force(sys, f0, x0, sys->v);
        memset(dx, 0, nd * sizeof *dx);
        dx[col] = 1.0;
        st_system_add_mbkdx(sys, df, dx, 0.0, 0.0, 1.0, true);
        st_matrix_mul(mat, km, dx);
        for (size_t r = 0; r < sys->size; r++) {
            double fd = (fp[r] - fm[r]) / (2 * eps);
            worst = fmax(worst, fabs(fd - df[r]));
            worst_m = fmax(worst_m, fabs(km[r] - df[r]));
            kmax = fmax(kmax, fabs(fd));
        }
    }
    free(f0);
    cr_assert(kmax > 100, "no contact stiffness seen (%g)", kmax);
    cr_log_info("contact stiffness: max %g, add_dforce vs FD %g, matrix vs add_dforce %g", kmax,
                worst, worst_m);
    cr_assert(worst < 1e-5 * kmax, "add_dforce vs finite differences: %g (of %g)", worst, kmax);
    cr_assert(worst_m < 1e-10 * kmax, "assembled K vs add_dforce: %g (of %g)", worst_m, kmax);
    st_matrix_destroy(&mat);
    free(x0), free(xp), free(fp), free(fm), free(dx), free(df), free(km);
    st_scene_destroy(&s);
}

/* The narrow phase (its spatial hash) finds what testing every element
 * pair finds: a cloud of points over a 20 x 20 floor (800 triangles), the number of
 * contacts against a brute-force count with the same primitive test and
 * SOFA's duplicate rule (one contact per point, the closest). */
static void narrow_case(bool spheres)
{
    enum { N = 21, NP = 600 };
    static char y[1 << 17];
    int n = snprintf(y, sizeof y, HEADER, 0.01, "BruteForceBroadPhase", 0.2, 0.05);
    n += snprintf(y + n, sizeof y - (size_t)n,
                  "    - name: Cloud\n"
                  "      objects:\n"
                  "        - EulerImplicitSolver: {}\n"
                  "        - CGLinearSolver: {}\n"
                  "        - MechanicalObject: {name: cloud, position: [");
    static double pts[NP][3];
    unsigned long r = 12345;
    for (int i = 0; i < NP; i++) {
        for (int k = 0; k < 3; k++) {
            r = r * 6364136223846793005ul + 1442695040888963407ul;
            double u = (double)(r >> 11) / 9007199254740992.0;
            pts[i][k] = k == 1 ? -0.1 + 0.45 * u : -0.3 + 10.6 * u;
        }
        n += snprintf(y + n, sizeof y - (size_t)n, "%s%.17g, %.17g, %.17g", i ? ", " : "",
                      pts[i][0], pts[i][1], pts[i][2]);
    }
    n += snprintf(y + n, sizeof y - (size_t)n,
                  "]}\n"
                  "        - UniformMass: {totalMass: 1}\n"
                  "        - %s\n"
                  "    - name: Floor\n"
                  "      objects:\n"
                  "        - RegularGridTopology: {nx: %d, ny: 1, nz: %d, xmin: 0, xmax: 10, ymin: 0,"
                  " ymax: 0, zmin: 0, zmax: 10}\n"
                  "        - MechanicalObject: {name: floor}\n"
                  "        - MeshTopology: {name: tri, triangles: [",
                  spheres ? "SphereCollisionModel: {radius: 0.3}" : "PointCollisionModel: {}", N, N);
    static unsigned tri[2 * (N - 1) * (N - 1)][3];
    static double fv[N * N][3];
    size_t nt = 0;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < N; k++) {
            fv[i * N + k][0] = 10.0 * k / (N - 1);
            fv[i * N + k][1] = 0;
            fv[i * N + k][2] = 10.0 * i / (N - 1);
        }
    for (int i = 0; i + 1 < N; i++)
        for (int k = 0; k + 1 < N; k++) {
            unsigned a = (unsigned)(i * N + k), b = a + 1, c = a + N + 1, d = a + N;
            unsigned t[2][3] = {{a, c, b}, {a, d, c}};
            for (int h = 0; h < 2; h++, nt++) {
                memcpy(tri[nt], t[h], sizeof t[h]);
                n += snprintf(y + n, sizeof y - (size_t)n, "%s%u, %u, %u", nt ? ", " : "", t[h][0],
                              t[h][1], t[h][2]);
            }
        }
    snprintf(y + n, sizeof y - (size_t)n,
             "]}\n"
             "        - TriangleCollisionModel: {topology: \"@tri\", moving: false, simulated: false}\n");
    st_scene *s = load(y);
    /* The grid's points, in the grid's own order, are what fv holds. */
    st_mstate *fl = state(s, "floor");
    cr_assert_eq(fl->position.n, (size_t)(N * N));
    for (int i = 0; i < N * N; i++)
        for (int k = 0; k < 3; k++)
            cr_assert_float_eq(fl->position.r[3 * i + k], fv[i][k], 1e-12);
    st_component *pipe = test_find_object(s, "CollisionPipeline1");
    st_error err = {0};
    cr_assert_eq(pipe->cls->collision->compute(pipe, st_scene_root(s), &err), ST_OK, "%s", err.msg);
    size_t want = 0;
    for (int p = 0; p < NP; p++) {
        bool any = false;
        for (size_t t = 0; t < nt && !any; t++) {
            cdetect d;
            if (spheres)
                any = st_coll_triangle_sphere(fv[tri[t][0]], fv[tri[t][1]], fv[tri[t][2]], pts[p],
                                              0.3, false, 0.2, 0.05, &d) == 1;
            else
                any = st_coll_triangle_point(fv[tri[t][0]], fv[tri[t][1]], fv[tri[t][2]], pts[p],
                                             0.2, 0.05, &d) == 1;
        }
        want += any;
    }
    char line[256];
    snprintf(line, sizeof line, "/Floor/TriangleCollisionModel1 - /Cloud/%sCollisionModel1: %zu "
             "contacts", spheres ? "Sphere" : "Point", want);
    cr_assert(want > 100, "only %zu points near the floor", want);
    cr_assert(strstr(T.log, line), "expected '%s' in\n%s", line, T.log);
    st_scene_destroy(&s);
}

Test(collision_scenes, narrow_phase_finds_every_contact) { narrow_case(false); }
Test(collision_scenes, narrow_phase_finds_every_sphere_contact) { narrow_case(true); }

/* The shipped cloth falls on the static ball: no cloth sphere ends inside
 * the ball (distance of centres at least the two radii) and the cloth is
 * held up (its centre near the top of the ball, at 1 + 0.02 + 0.02). */
Test(collision_scenes, cloth_stays_outside_the_ball)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/collision_cloth_on_sphere.yaml", SETTEE_SOURCE_DIR);
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "%s", e.msg);
    run(s, 300);
    st_mstate *c = state(s, "cloth");
    double dmin = 1e9;
    for (size_t i = 0; i < c->position.n; i++) {
        const double *p = c->position.r + 3 * i;
        dmin = fmin(dmin, sqrt(p[0] * p[0] + (p[1] - 0.5) * (p[1] - 0.5) + p[2] * p[2]));
    }
    cr_assert(dmin > 0.52, "a cloth sphere entered the ball: %g", dmin);
    const double *mid = c->position.r + 3 * (10 * 21 + 10);
    cr_assert(fabs(mid[1] - 1.04) < 0.01, "cloth centre at %g", mid[1]);
    st_scene_destroy(&s);
}

/* The shipped liver-like body dropped on the floor (SOFA's set-up: border
 * triangles by Tetra2TriangleTopologicalMapping, collision models on the
 * parent's state): no node ever goes through the floor, the lowest node
 * ends at the contact distance (to a millimetre) and every contact pushes
 * the body up. */
Test(collision_scenes, liver_rests_on_the_floor, .timeout = 600)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/collision_liver_on_floor.yaml", SETTEE_SOURCE_DIR);
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "%s", e.msg);
    st_mstate *x = state(s, "dofs");
    double ymin = 1e9;
    for (int k = 0; k < 60; k++) {
        run(s, 1);
        for (size_t i = 0; i < x->position.n; i++)
            ymin = fmin(ymin, x->position.r[3 * i + 1]);
    }
    cr_assert(ymin > 0.0, "a node went through the floor: y = %g", ymin);
    double yend = 1e9;
    for (size_t i = 0; i < x->position.n; i++)
        yend = fmin(yend, x->position.r[3 * i + 1]);
    cr_assert(fabs(yend - 0.005) < 1e-3, "lowest node at %g, not at the contact distance 0.005",
              yend);
    st_component *pipe = test_find_object(s, "CollisionPipeline1");
    cr_assert_not_null(pipe);
    const st_array *cnt = st_component_field_ptr(pipe, st_component_field(pipe, "contactCounts"));
    const st_array *nrm = st_component_field_ptr(pipe, st_component_field(pipe, "contactNormals"));
    cr_assert(cnt->n >= 1 && nrm->n > 50, "%zu contacts", nrm->n);
    /* The floor has Line and Point models too: the contacts of the liver's
     * edges with the floor's edges lean (line-line normals are the edges'
     * common perpendicular), but each pushes up, and together they push
     * straight up. */
    double sum[3] = {0, 0, 0};
    for (size_t i = 0; i < nrm->n; i++) {
        cr_assert(nrm->r[3 * i + 1] > 0.0, "contact %zu pushes along %g", i, nrm->r[3 * i + 1]);
        for (int k = 0; k < 3; k++)
            sum[k] += nrm->r[3 * i + k];
    }
    cr_assert(sum[1] > 0.99 * sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]),
              "the contacts push along (%g %g %g)", sum[0], sum[1], sum[2]);
    st_scene_destroy(&s);
}

/* The cube dropped with an explicit solver (symplectic Euler, a step well
 * inside the contact's stability limit 2 / sqrt(ks / m)): no grid point
 * ever goes below the floor, and it ends resting on it. */
Test(collision_scenes, deformable_cube_explicit_does_not_tunnel)
{
    char *y = cube_yaml(EXPLICIT, "BruteForceBroadPhase");
    /* dt 0.01 in cube_yaml: explicit steps of 2e-4 given to st_scene_step. */
    st_scene *s = load(y);
    st_mstate *g = state(s, "dofs");
    st_error e = {0};
    double ymin = 1e9;
    for (int i = 0; i < 6000; i++) {
        cr_assert_eq(st_scene_step(s, 2e-4, &e), ST_OK, "step %d: %s", i, e.msg);
        for (size_t k = 0; k < g->position.n; k++)
            ymin = fmin(ymin, g->position.r[3 * k + 1]);
    }
    cr_assert(ymin > 0.0, "a grid point went through the floor (y = %g)", ymin);
    cr_assert(ymin < 0.05, "the cube never reached the floor (lowest y %g)", ymin);
    st_scene_destroy(&s);
    free(y);
}

/* Two deformable bodies under one solver: B dropped on A, A on the floor.
 * B lands on A's top and never goes into it beyond the contact distance, A
 * stays on the floor. (A 2x2x2 spring grid is not stiff in shear: the
 * bodies keep rocking, so rest is not asked for.) */
Test(collision_scenes, two_deformable_bodies_collide)
{
    char y[16384];
    int n = snprintf(y, sizeof y, HEADER, 0.01, GROUPED_BRUTE_FORCE, 0.1, 0.05);
    body_springs = true;
    n += snprintf(y + n, sizeof y - (size_t)n,
                  "    - name: Pair\n"
                  "      objects:\n"
                  "        - %s\n"
                  "      children:\n%s%s",
                  IMPLICIT_CG, body("A", -0.5, 0.1, -0.5, 1.0), body("B", -0.25, 1.6, -0.4, 0.6));
    body_springs = false;
    snprintf(y + n, sizeof y - (size_t)n, FLOOR, 30.0);
    st_scene *s = load(y);
    st_mstate *a = state(s, "A_surf"), *b = state(s, "B_surf");
    double a_top = 0, a_bottom = 0, b_bottom = 0, gap_min = 1e9;
    st_error e = {0};
    for (int i = 0; i < 600; i++) {
        cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "step %d: %s", i, e.msg);
        a_top = -1e9, a_bottom = 1e9, b_bottom = 1e9;
        for (int k = 0; k < 4; k++) {
            a_bottom = fmin(a_bottom, a->position.r[3 * k + 1]);
            a_top = fmax(a_top, a->position.r[3 * (k + 4) + 1]);
            b_bottom = fmin(b_bottom, b->position.r[3 * k + 1]);
        }
        gap_min = fmin(gap_min, b_bottom - a_top);
        cr_assert(a_bottom > 0.0, "step %d: A went through the floor (%g)", i, a_bottom);
    }
    /* B landed on A (it started 0.5 above) and never went into it beyond
     * the contact distance. */
    cr_assert(a_bottom < 0.05, "A's bottom at %g", a_bottom);
    cr_assert(b_bottom < a_top + 0.05, "B did not land: bottom %g, A's top %g", b_bottom, a_top);
    cr_assert(gap_min > -0.05, "B went %g into A", -gap_min);
    st_scene_destroy(&s);
}

/* ---- contacts that cannot happen (SOFA's point-triangle rule, kept) ---- */

/* A particle dropped exactly above the diagonal of a floor made of two
 * triangles: its projection falls on the shared edge, which SOFA's
 * point-triangle test leaves to Line models. Without them it falls through,
 * as in SOFA, and settee says why: a warning at init, an information line
 * when it is below the floor with no contact. With LineCollisionModel and
 * PointCollisionModel on the floor it bounces, and nothing is said. */
static const char *DIAGONAL_DROP =
    "format: settee/1\n"
    "root:\n"
    "  gravity: [0, -9.81, 0]\n"
    "  dt: 0.01\n"
    "  objects:\n"
    "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, Topology, Collision]}\n"
    "    - DefaultAnimationLoop: {}\n"
    "    - CollisionPipeline: {}\n"
    "    - BruteForceBroadPhase: {}\n"
    "    - BVHNarrowPhase: {}\n"
    "    - MinProximityIntersection: {alarmDistance: 0.2, contactDistance: 0.1}\n"
    "    - CollisionResponse: {}\n"
    "  children:\n"
    "    - name: Floor\n"
    "      objects:\n"
    "        - MechanicalObject: {name: floor, position: [[-3, 0, -3], [4, 0, -3], [4, 0, 3],"
    " [-3, 0, 3]]}\n"
    "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
    "        - TriangleCollisionModel: {moving: false, simulated: false}\n"
    "%s"
    "    - name: Drop\n"
    "      objects:\n"
    "        - EulerExplicitSolver: {symplectic: true}\n"
    "        - MechanicalObject: {name: dofs, position: [[0.5, 1, 0]]}\n"
    "        - UniformMass: {totalMass: 0.1}\n"
    "        - PointCollisionModel: {}\n";

static double drop_on_diagonal(bool with_lines)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, DIAGONAL_DROP,
             with_lines ? "        - LineCollisionModel: {moving: false, simulated: false}\n"
                          "        - PointCollisionModel: {moving: false, simulated: false}\n"
                        : "");
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, yaml, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "%s", e.msg);
    for (int i = 0; i < 100; i++)
        cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "step %d: %s", i, e.msg);
    const st_mstate *ms = st_node_mstate(st_node_child(st_scene_root(s), 1));
    double y = ms->position.r[1];
    st_scene_destroy(&s);
    return y;
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

Test(collision_scenes, point_over_a_shared_edge_passes_and_is_said)
{
    double y = drop_on_diagonal(false);
    cr_assert(y < -1.0, "the point should fall through the edge as in SOFA, y = %g", y);
    cr_assert_eq(count_of(T.log, "no LineCollisionModel and PointCollisionModel on its state "
                                 "/Floor/floor"), 1, "%s", T.log);
    cr_assert_eq(count_of(T.log, "/Drop/PointCollisionModel1 - /Floor/TriangleCollisionModel1: "
                                 "no contact, yet point 0 is"), 1, "%s", T.log);
    cr_assert(strstr(T.log, "behind triangle"), "%s", T.log);
    /* not a force field that acts on nothing: a static floor is how SOFA's
     * scenes are written */
    cr_assert_null(strstr(T.log, "acts on nothing"), "%s", T.log);
}

Test(collision_scenes, point_over_a_shared_edge_with_line_models_bounces_quietly)
{
    double y = drop_on_diagonal(true);
    cr_assert(y > 0.0, "the Line and Point models should catch the point, y = %g", y);
    cr_assert_null(strstr(T.log, "no LineCollisionModel"), "%s", T.log);
    cr_assert_null(strstr(T.log, "no contact, yet"), "%s", T.log);
}

/* A listRadius shorter than the state: SOFA pads it with radius (its
 * resize, and getRadius past the end), with a warning here. Two particles
 * of mass 1 resting on the floor: the first with its listed radius 0.3, the
 * second with radius 0.1, each at d - g / ks, d = 0.05 + r, ks = 100 100 / d. */
Test(collision_scenes, short_list_radius_is_padded_with_radius)
{
    char y[8192];
    int n = snprintf(y, sizeof y, HEADER, 0.01, "BruteForceBroadPhase", 0.1, 0.05);
    n += snprintf(y + n, sizeof y - (size_t)n,
                  "    - name: Balls\n"
                  "      objects:\n"
                  "        - %s\n"
                  "        - MechanicalObject: {name: balls, position: [[0, 0.5, 0], [1, 0.5, 0]]}\n"
                  "        - UniformMass: {totalMass: 2}\n"
                  "        - SphereCollisionModel: {listRadius: [0.3], radius: 0.1,"
                  " contactStiffness: 100}\n",
                  IMPLICIT_CG);
    snprintf(y + n, sizeof y - (size_t)n, FLOOR, 100.0);
    st_scene *s = load(y);
    cr_assert(strstr(T.log, "listRadius has 1 radii for 2 spheres (the state's points): "
                            "spheres 1 to 1 take the default radius 0.1"),
              "%s", T.log);
    run(s, 600);
    st_mstate *b = state(s, "balls");
    for (int k = 0; k < 2; k++) {
        double d = 0.05 + (k ? 0.1 : 0.3), rest = d - 9.81 / (100.0 * 100.0 / d);
        cr_assert(fabs(b->position.r[3 * k + 1] - rest) < 1e-4, "ball %d at %.9g, rest %.9g", k,
                  b->position.r[3 * k + 1], rest);
    }
    st_scene_destroy(&s);
}

/* SpatialGridPointModel (SofaSphFluid) is SOFA's point model under another
 * bounding tree: the same contacts, so the same run to the bit as
 * PointCollisionModel; without a SpatialGridContainer above it, a warning
 * (SOFA's error, after which it works as a point model). */
static const char *GRID_POINT_DROP =
    "format: settee/1\n"
    "root:\n"
    "  gravity: [0, -9.81, 0]\n"
    "  dt: 0.01\n"
    "  objects:\n"
    "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, Topology, Collision, "
    "SofaSphFluid]}\n"
    "    - DefaultAnimationLoop: {}\n"
    "    - CollisionPipeline: {}\n"
    "    - BruteForceBroadPhase: {}\n"
    "    - BVHNarrowPhase: {}\n"
    "    - MinProximityIntersection: {alarmDistance: 0.2, contactDistance: 0.1}\n"
    "    - CollisionResponse: {}\n"
    "  children:\n"
    "    - name: Floor\n"
    "      objects:\n"
    "        - MechanicalObject: {position: [[-3, 0, -3], [4, 0, -3], [4, 0, 3], [-3, 0, 3]]}\n"
    "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
    "        - TriangleCollisionModel: {moving: false, simulated: false}\n"
    "    - name: Drop\n"
    "      objects:\n"
    "        - EulerExplicitSolver: {symplectic: true}\n"
    "        - MechanicalObject: {name: dofs, position: [[1.5, 1, -1], [-1, 0.8, 1.5]]}\n"
    "        - UniformMass: {totalMass: 0.1}\n"
    "%s"
    "        - %s: {}\n";

/* y: the points' heights after the run, then their lowest over it. */
static void drop_points(const char *model, const char *grid, double y[4], test_rt *t)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, GRID_POINT_DROP, grid, model);
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "%s", e.msg);
    const st_mstate *ms = st_node_mstate(st_node_child(st_scene_root(s), 1));
    y[2] = y[3] = 1.0;
    for (int i = 0; i < 150; i++) {
        cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "step %d: %s", i, e.msg);
        y[2] = fmin(y[2], ms->position.r[1]);
        y[3] = fmin(y[3], ms->position.r[4]);
    }
    y[0] = ms->position.r[1];
    y[1] = ms->position.r[4];
    st_scene_destroy(&s);
}

Test(collision_scenes, spatial_grid_point_model_is_a_point_model)
{
    double a[4], b[4];
    drop_points("PointCollisionModel", "", a, &T);
    /* they reach the floor (free fall would take them 10 m lower) and it
     * holds them */
    cr_assert(a[2] > -0.1 && a[3] > -0.1 && a[2] < 0.2 && a[3] < 0.2,
              "the floor holds the points: lowest %g %g", a[2], a[3]);
    test_log_clear(&T);
    drop_points("SpatialGridPointModel", "        - SpatialGridContainer: {cellWidth: 0.5}\n", b,
                &T);
    cr_assert(a[0] == b[0] && a[1] == b[1], "%.17g %.17g against %.17g %.17g", b[0], b[1], a[0],
              a[1]);
    cr_assert_null(strstr(T.log, "Requires a Vec3 SpatialGridContainer"), "%s", T.log);
    test_log_clear(&T);
    drop_points("SpatialGridPointModel", "", b, &T);
    cr_assert(a[0] == b[0] && a[1] == b[1], "without the grid too");
    cr_assert(strstr(T.log, "Requires a Vec3 SpatialGridContainer"), "log: %s", T.log);
}
