/* test_distance_grid.c - SOFA's SofaDistanceGrid plugin: the distance grid
 * itself (SOFA's DistanceGrid_test: sizes, box tests, invalid sizes taken
 * as 0; then values worked by hand on a cube: the analytic "#cube" grid
 * and the fast-marching grid of a cube's OBJ surface, inside and outside,
 * interpolation, gradient, eval outside the grid, quickeval), and scenes of
 * our own: DistanceGridForceField's push on a point inside a cube, the
 * contact of RigidDistanceGridCollisionModel and FFDDistanceGridCollisionModel
 * with a point above the cube's top face (points, normal, distance), the
 * rigid grid's frame moving it, and a particle falling on a rigid grid that
 * comes to rest on the face. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plugins/SofaDistanceGrid/distance_grid.h"
#include "support.h"

/* ---- the grid (SOFA's DistanceGrid_test, re-derived) ---- */

Test(distance_grid, valid_constructor)
{
    const double lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    dgrid *g = dgrid_create(10, 10, 10, lo, hi);
    cr_assert_not_null(g);
    cr_assert_eq(g->nx, 10);
    cr_assert_eq(g->ny, 10);
    cr_assert_eq(g->nz, 10);
    cr_assert_eq(g->n, 1000);
    const double out[6][3] = {{-2, 0, 0}, {0, -2, 0}, {0, 0, -2}, {2, 0, 0}, {0, 2, 0}, {0, 0, 2}};
    for (int i = 0; i < 6; i++)
        cr_assert(!dgrid_in_bbox(g, out[i], 0.0), "point %d is outside the box", i);
    const double in[3] = {0.5, -0.5, 0.9};
    cr_assert(dgrid_in_bbox(g, in, 0.0));
    cr_assert_eq(g->cube_dim, 0.0, "not a cube");
    cr_assert_float_eq(g->cell[0], 2.0 / 9.0, 1e-15);
    dgrid_free(g);
}

Test(distance_grid, invalid_sizes_are_zero)
{
    const int dims[7][3] = {{-10, 10, 10}, {10, -10, 10}, {10, 10, -10}, {10, 10, 0},
                            {10, 0, 10},   {0, 10, 0},    {0, 10, 0}};
    const double lo[2][3] = {{-1, -1, -1}, {-1, 1, -1}}, hi[2][3] = {{1, 1, 1}, {1, -1, 1}};
    for (int i = 0; i < 7; i++) {
        int b = i == 6;
        dgrid *g = dgrid_create(dims[i][0], dims[i][1], dims[i][2], lo[b], hi[b]);
        cr_assert_not_null(g);
        cr_assert_eq(g->n, 0, "case %d: a negative or zero size gives an empty grid", i);
        cr_assert(g->nx >= 0 && g->ny >= 0 && g->nz >= 0);
        dgrid_free(g);
    }
    dgrid *g = NULL;
    st_error e = {0};
    cr_assert_neq(dgrid_load("#cube", 1, 0, 1, 64, 64, lo[0], hi[0], &g, &e), ST_OK);
    cr_assert_null(g);
    cr_assert(strstr(e.msg, "at least 2"), "%s", e.msg);
}

static dgrid *load(const char *path, int n)
{
    const double zero[3] = {0, 0, 0};
    dgrid *g = NULL;
    st_error e = {0};
    cr_assert_eq(dgrid_load(path, 1.0, 0.0, n, n, n, zero, zero, &g, &e), ST_OK, "%s", e.msg);
    return g;
}

/* "#cube" of half-width 1: the grid spans the cube widened by 10 % of its
 * size (0.2) on each side; a point above the top face, where every value
 * of its cell is (y - 1), interpolates exactly to y - 1 with gradient
 * (0, cell, 0); inside near the +x face, x - 1. */
Test(distance_grid, analytic_cube)
{
    dgrid *g = load("#cube", 64);
    cr_assert_float_eq(g->pmin[0], -1.2, 1e-15);
    cr_assert_float_eq(g->pmax[2], 1.2, 1e-15);
    cr_assert_eq(g->cube_dim, 1.0);
    cr_assert_eq(g->npts, 98, "5 x 5 points on each face: %zu", g->npts);
    const double above[3] = {0.3, 1.05, 0.2}, inside[3] = {0.5, 0.1, 0.05};
    cr_assert_float_eq(dgrid_interp(g, above), 0.05, 1e-12);
    cr_assert_float_eq(dgrid_interp(g, inside), -0.5, 1e-12);
    double gr[3];
    dgrid_grad(g, above, gr);
    cr_assert_float_eq(gr[0], 0.0, 1e-12);
    cr_assert_float_eq(gr[1], 2.4 / 63, 1e-12);
    cr_assert_float_eq(gr[2], 0.0, 1e-12);
    /* outside the grid: the value at the clamped point and the distance to it */
    const double far[3] = {0.3, 1.5, 0.2}, clamped[3] = {0.3, 1.2, 0.2};
    double dc = dgrid_interp(g, clamped);
    cr_assert_float_eq(dc, 0.2, 1e-12);
    cr_assert_float_eq(dgrid_eval(g, far), sqrt(0.3 * 0.3 + dc * dc), 1e-12);
    cr_assert_float_eq(dgrid_eval2(g, far), 0.3 * 0.3 + dc * dc, 1e-12);
    cr_assert_float_eq(dgrid_eval(g, above), 0.05, 1e-12);
    cr_assert(dgrid_in_grid(g, above) && !dgrid_in_grid(g, far));
    /* quickeval: the cell's first value minus a cell width */
    double k[3];
    int i = dgrid_index(g, above, k);
    cr_assert_float_eq(dgrid_quickeval(g, above), g->dists[i] - 2.4 / 63, 1e-15);
    dgrid_free(g);
}

/* The fast-marching grid of the cube [-1, 1]^3 given as an OBJ surface of
 * 6 quads: grid values next to an axis-aligned face get their exact
 * distance and the front adds whole cell widths along the axes, so the
 * values nearest the centre, half a cell from it, are -(1 - h/2) with
 * 12 values per axis (h = 2.4 / 11), the centre interpolates to that, and
 * its gradient is 0 by symmetry; outside, above the top face, positive. */
Test(distance_grid, fast_marching_cube)
{
    const char *obj = "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\n"
                      "v -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\n"
                      "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
    const char *path = test_write_temp("cube.obj", obj);
    dgrid *g = load(path, 12);
    const double h = 2.4 / 11;
    const double centre[3] = {0, 0, 0};
    cr_assert_float_eq(dgrid_interp(g, centre), -(1 - h / 2), 1e-12, "%.17g",
                       dgrid_interp(g, centre));
    double gr[3];
    dgrid_grad(g, centre, gr);
    cr_assert(fabs(gr[0]) < 1e-12 && fabs(gr[1]) < 1e-12 && fabs(gr[2]) < 1e-12);
    const double above[3] = {0, 1.1, 0}, below[3] = {0, -0.9, 0};
    cr_assert_gt(dgrid_interp(g, above), 0.0);
    cr_assert_lt(dgrid_interp(g, below), 0.0);
    cr_assert_float_eq(dgrid_interp(g, above), 0.1, h, "%g", dgrid_interp(g, above));
    cr_assert_eq(g->npts, 8, "the mesh's vertices are its points");
    cr_assert_float_eq(g->bbmin[0], -1.0, 0.0);
    cr_assert_float_eq(g->bbmax[1], 1.0, 0.0);
    dgrid_free(g);
    /* a face naming a missing vertex is an error naming the line */
    path = test_write_temp("bad.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\n");
    const double zero[3] = {0, 0, 0};
    st_error e = {0};
    g = NULL;
    cr_assert_neq(dgrid_load(path, 1, 0, 8, 8, 8, zero, zero, &g, &e), ST_OK);
    cr_assert(strstr(e.msg, "bad.obj:3"), "%s", e.msg);
}

/* ---- scenes ---- */

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(distance_grid_scenes, .init = setup, .fini = teardown);

static st_scene *load_scene(const char *yaml)
{
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, yaml, &s, &e), ST_OK, "load: %s\n%s", e.msg, yaml);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s (%s)", e.msg, e.where);
    return s;
}

static void run(st_scene *s, int steps)
{
    st_error e = {0};
    for (int i = 0; i < steps; i++)
        cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "step %d: %s", i, e.msg);
}

static const st_array *field(st_scene *s, const char *obj, const char *name)
{
    st_component *c = test_find_object(s, obj);
    cr_assert_not_null(c, "%s", obj);
    return st_component_field_ptr(c, st_component_field(c, name));
}

/* A unit mass at (0.5, 0.1, 0.05) inside a "#cube" grid of 21 values per
 * axis: d = -0.5 and gradient (0.12, 0, 0) per cell, so stiffnessIn 500
 * pushes it with 0.12 x 500 x 0.5 = 30 along x; one symplectic Euler step
 * of 0.01 gives v = 0.3. */
Test(distance_grid_scenes, force_field_pushes_out)
{
    const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  name: root\n"
        "  gravity: [0, 0, 0]\n"
        "  dt: 0.01\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, SofaDistanceGrid]}\n"
        "    - DefaultAnimationLoop: {}\n"
        "  children:\n"
        "    - name: P\n"
        "      objects:\n"
        "        - EulerExplicitSolver: {}\n"
        "        - MechanicalObject: {name: dofs, position: [[0.5, 0.1, 0.05]]}\n"
        "        - UniformMass: {totalMass: 1}\n"
        "        - DistanceGridForceField: {filename: '#cube', nx: 21, ny: 21, nz: 21,\n"
        "            stiffnessIn: 500}\n";
    st_scene *s = load_scene(yaml);
    run(s, 1);
    const st_array *v = field(s, "dofs", "velocity");
    cr_assert_float_eq(v->r[0], 0.3, 1e-12, "%.17g", v->r[0]);
    cr_assert_float_eq(v->r[1], 0.0, 1e-12);
    cr_assert_float_eq(v->r[2], 0.0, 1e-12);
    st_scene_destroy(&s);
}

#define HEAD                                                                                       \
    "format: settee/1\n"                                                                           \
    "root:\n"                                                                                      \
    "  name: root\n"                                                                               \
    "  gravity: [0, 0, 0]\n"                                                                       \
    "  dt: 0.01\n"                                                                                 \
    "  objects:\n"                                                                                 \
    "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,\n"      \
    "        Topology, Collision, SofaDistanceGrid]}\n"                                            \
    "    - DefaultAnimationLoop: {}\n"                                                             \
    "    - CollisionPipeline: {}\n"                                                                \
    "    - BruteForceBroadPhase: {}\n"                                                             \
    "    - BVHNarrowPhase: {}\n"                                                                   \
    "    - MinProximityIntersection: {alarmDistance: 0.5, contactDistance: 0.02}\n"             \
    "    - CollisionResponse: {}\n"                                                                \
    "  children:\n"

#define PARTICLE(pos)                                                                              \
    "    - name: P\n"                                                                              \
    "      objects:\n"                                                                             \
    "        - EulerImplicitSolver: {}\n"                                                          \
    "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"            \
    "        - MechanicalObject: {name: dofs, position: [" pos "]}\n"                              \
    "        - UniformMass: {totalMass: 1}\n"                                                      \
    "        - PointCollisionModel: {}\n"

/* One step, then one contact: its points, normal and value. */
static void one_contact(const char *yaml, const double p0[3], const double p1[3],
                        const double n[3], double value, double tol)
{
    st_scene *s = load_scene(yaml);
    run(s, 1);
    const st_array *pts = field(s, "CollisionPipeline1", "contactPoints");
    const st_array *nor = field(s, "CollisionPipeline1", "contactNormals");
    const st_array *dd = field(s, "CollisionPipeline1", "contactDistances");
    cr_assert_eq(nor->n, 1, "%zu contacts, expected 1", nor->n);
    for (int k = 0; k < 3; k++) {
        cr_assert_float_eq(pts->r[k], p0[k], tol, "grid point %d: %.17g", k, pts->r[k]);
        cr_assert_float_eq(pts->r[3 + k], p1[k], tol, "other point %d: %.17g", k, pts->r[3 + k]);
        cr_assert_float_eq(nor->r[k], n[k], tol, "normal %d: %.17g", k, nor->r[k]);
    }
    cr_assert_float_eq(dd->r[0], value, tol, "value %.17g", dd->r[0]);
    st_scene_destroy(&s);
}

/* The point 0.015 above the top face of a "#cube" rigid grid, within the
 * margin 0.001 + 0.02 (the method's contact distance; SOFA's grid tests do
 * not look as far as the alarm distance): a contact from the face below
 * it, normal +y, value 0.015 - 0.02. */
Test(distance_grid_scenes, rigid_grid_point_contact)
{
    const char *yaml = HEAD
        "    - name: G\n"
        "      objects:\n"
        "        - MechanicalObject: {template: Rigid3d, position: [[0, 0, 0, 0, 0, 0, 1]]}\n"
        "        - RigidDistanceGridCollisionModel: {filename: '#cube'}\n"
        PARTICLE("[0.3, 1.015, 0.2]");
    one_contact(yaml, (double[]){0.3, 1, 0.2}, (double[]){0.3, 1.015, 0.2}, (double[]){0, 1, 0},
                -0.005, 1e-12);
}

/* The frame places the grid: lowered by 1 and turned a quarter about z,
 * the top face (now the -x face, then lowered) is at x = -1, y in [-2, 0]:
 * a point at x = -1.015 meets it along -x. A point 0.3 above the face, past
 * the margin (0.001 + 0.02), gets none. */
Test(distance_grid_scenes, rigid_grid_frame)
{
    const char *yaml = HEAD
        "    - name: G\n"
        "      objects:\n"
        "        - MechanicalObject: {template: Rigid3d,\n"
        "            position: [[0, -1, 0, 0, 0, 0.70710678118654752, 0.70710678118654752]]}\n"
        "        - RigidDistanceGridCollisionModel: {filename: '#cube'}\n"
        PARTICLE("[-1.015, -0.7, 0.2]");
    one_contact(yaml, (double[]){-1, -0.7, 0.2}, (double[]){-1.015, -0.7, 0.2},
                (double[]){-1, 0, 0}, -0.005, 1e-9);
    const char *far = HEAD
        "    - name: G\n"
        "      objects:\n"
        "        - MechanicalObject: {template: Rigid3d, position: [[0, 0, 0, 0, 0, 0, 1]]}\n"
        "        - RigidDistanceGridCollisionModel: {filename: '#cube'}\n"
        PARTICLE("[0.3, 1.3, 0.2]");
    st_scene *s = load_scene(far);
    run(s, 1);
    cr_assert_eq(field(s, "CollisionPipeline1", "contactNormals")->n, 0);
    st_scene_destroy(&s);
}

/* The FFD grid: a "#cube" grid inside one hexahedron [-1.5, 1.5]^3 of a
 * RegularGridTopology; undeformed, the point 0.015 above the top face gets
 * the rigid grid's contact (the rest-space point, here the world's). */
Test(distance_grid_scenes, ffd_grid_point_contact)
{
    const char *yaml = HEAD
        "    - name: G\n"
        "      objects:\n"
        "        - RegularGridTopology: {name: grid, n: [2, 2, 2], min: [-1.5, -1.5, -1.5],\n"
        "            max: [1.5, 1.5, 1.5]}\n"
        "        - MechanicalObject: {}\n"
        "        - FFDDistanceGridCollisionModel: {filename: '#cube', topology: '@grid'}\n"
        PARTICLE("[0.3, 1.015, 0.2]");
    one_contact(yaml, (double[]){0.3, 1, 0.2}, (double[]){0.3, 1.015, 0.2}, (double[]){0, 1, 0},
                -0.005, 1e-9);
}

/* A particle falling on a rigid grid's top face stops on it: after 2 s its
 * height is above the face, below where it started, and it is at rest. */
Test(distance_grid_scenes, particle_rests_on_rigid_grid)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, "%s", HEAD
        "    - name: G\n"
        "      objects:\n"
        "        - MechanicalObject: {template: Rigid3d, position: [[0, 0, 0, 0, 0, 0, 1]]}\n"
        "        - RigidDistanceGridCollisionModel: {filename: '#cube', contactStiffness: 100,\n"
        "            simulated: false}\n"
        PARTICLE("[0.3, 1.3, 0.2]"));
    char *g = strstr(yaml, "gravity: [0, 0, 0]");
    memcpy(g, "gravity: [0,-9, 0]", strlen("gravity: [0,-9, 0]"));
    st_scene *s = load_scene(yaml);
    run(s, 200);
    const st_array *x = field(s, "dofs", "position"), *v = field(s, "dofs", "velocity");
    cr_assert(x->r[1] > 0.95 && x->r[1] < 1.3, "height %g", x->r[1]);
    cr_assert(fabs(v->r[1]) < 1e-2, "vertical speed %g", v->r[1]);
    cr_assert_float_eq(x->r[0], 0.3, 1e-9);
    st_scene_destroy(&s);
}

/* Two rigid grids of an OBJ cube (not "#cube"s: SOFA's general grid-grid
 * test): a half-size cube dropped on a static unit cube comes to rest on
 * its top face, its bottom corners (its mesh points) pushed up by the
 * static grid; it neither sinks through nor flies off. */
Test(distance_grid_scenes, rigid_grid_rests_on_rigid_grid)
{
    const char *obj = "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\n"
                      "v -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\n"
                      "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
    const char *path = test_write_temp("cube.obj", obj);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.005\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,\n"
             "        Collision]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - CollisionPipeline: {}\n"
             "    - BruteForceBroadPhase: {}\n"
             "    - BVHNarrowPhase: {}\n"
             "    - MinProximityIntersection: {alarmDistance: 0.1, contactDistance: 0.02}\n"
             "    - CollisionResponse: {}\n"
             "  children:\n"
             "    - name: A\n"
             "      objects:\n"
             "        - MechanicalObject: {template: Rigid3d, position: [[0, 0, 0, 0, 0, 0, 1]]}\n"
             "        - RigidDistanceGridCollisionModel: {filename: '%s', nx: 32, ny: 32, nz: 32,\n"
             "            simulated: false, contactStiffness: 100}\n"
             "    - name: B\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.5}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: body, template: Rigid3d,\n"
             "            position: [[0, 1.6, 0, 0, 0, 0, 1]]}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - RigidDistanceGridCollisionModel: {filename: '%s', scale: 0.5, nx: 32,\n"
             "            ny: 32, nz: 32, contactStiffness: 100}\n",
             path, path);
    st_scene *s = load_scene(yaml);
    run(s, 1);
    cr_assert_eq(field(s, "CollisionPipeline1", "contactNormals")->n, 0, "apart at first");
    run(s, 400);
    const st_array *x = field(s, "body", "position"), *v = field(s, "body", "velocity");
    /* resting: the bottom face (centre - 0.5) near the top face (1) */
    cr_assert(x->r[1] > 1.3 && x->r[1] < 1.6, "height %g", x->r[1]);
    cr_assert(fabs(v->r[1]) < 0.05, "vertical speed %g", v->r[1]);
    cr_assert_gt(field(s, "CollisionPipeline1", "contactNormals")->n, 0, "in contact");
    st_scene_destroy(&s);
}

/* An FFD grid (a "#cube" grid in one hexahedron of a RegularGridTopology,
 * not simulated) under a half-size rigid OBJ cube grid: SOFA's FFD - rigid
 * test (the FFD grid's mesh points in the rigid grid, the rigid grid's
 * points in the cube) holds the rigid cube on the top face. */
Test(distance_grid_scenes, rigid_grid_rests_on_ffd_grid)
{
    const char *obj = "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\n"
                      "v -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\n"
                      "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
    const char *path = test_write_temp("cube.obj", obj);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.005\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,\n"
             "        Topology, Collision]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - CollisionPipeline: {}\n"
             "    - BruteForceBroadPhase: {}\n"
             "    - BVHNarrowPhase: {}\n"
             "    - MinProximityIntersection: {alarmDistance: 0.1, contactDistance: 0.02}\n"
             "    - CollisionResponse: {}\n"
             "  children:\n"
             "    - name: F\n"
             "      objects:\n"
             "        - RegularGridTopology: {name: grid, n: [2, 2, 2], min: [-1.5, -1.5, -1.5],\n"
             "            max: [1.5, 1.5, 1.5]}\n"
             "        - MechanicalObject: {}\n"
             "        - FFDDistanceGridCollisionModel: {filename: '#cube', topology: '@grid',\n"
             "            nx: 32, ny: 32, nz: 32, simulated: false, contactStiffness: 100}\n"
             "    - name: B\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.5}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: body, template: Rigid3d,\n"
             "            position: [[0, 1.6, 0, 0, 0, 0, 1]]}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - RigidDistanceGridCollisionModel: {filename: '%s', scale: 0.5, nx: 32,\n"
             "            ny: 32, nz: 32, contactStiffness: 100}\n",
             path);
    st_scene *s = load_scene(yaml);
    run(s, 400);
    const st_array *x = field(s, "body", "position"), *v = field(s, "body", "velocity");
    cr_assert(x->r[1] > 1.3 && x->r[1] < 1.6, "height %g", x->r[1]);
    cr_assert(fabs(v->r[1]) < 0.05, "vertical speed %g", v->r[1]);
    cr_assert_gt(field(s, "CollisionPipeline1", "contactNormals")->n, 0, "in contact");
    st_scene_destroy(&s);
}
