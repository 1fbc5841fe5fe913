/* test_collision_volumes.c - the volume collision models:
 * TetrahedronCollisionModel with SOFA's tetrahedron-point test (a point of
 * a model with computeNormals inside a tetrahedron, pushed out along its
 * normal; intersect_volume.c, compiled in) against closed forms, in a
 * scene (a plate resting in a static tetrahedron at the depth its weight
 * and the stiffness give), and the cylinder's bounding boxes
 * (CylinderCollisionModel: SOFA's methods give it no contact). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collision.h"
#include "internal.h"
#include "support.h"

#define EPS 1e-14

static void assert_vec(const double *a, double x, double y, double z, double tol, const char *what)
{
    cr_assert(fabs(a[0] - x) <= tol && fabs(a[1] - y) <= tol && fabs(a[2] - z) <= tol,
              "%s: (%.17g %.17g %.17g), expected (%.17g %.17g %.17g)", what, a[0], a[1], a[2], x, y,
              z);
}

static const double A[3] = {0, 0, 0}, B[3] = {1, 0, 0}, C[3] = {0, 1, 0}, E[3] = {0, 0, 1};

/* Along -n to the face y = 0: l = p.y, the surface point below p. */
Test(collision_volumes, tetra_point_to_a_face)
{
    const double p[3] = {0.2, 0.1, 0.3}, n[3] = {0, 1, 0};
    cdetect d;
    cr_assert_eq(st_coll_tetra_point(A, B, C, E, p, n, &d), 1);
    assert_vec(d.p[0], 0.2, 0, 0.3, EPS, "surface point");
    assert_vec(d.p[1], 0.2, 0.1, 0.3, 0, "point");
    assert_vec(d.normal, 0, -1, 0, 0, "normal");
    cr_assert_float_eq(d.value, -0.1, EPS);
    /* X = A + 0.2 (B - A) + 0 (C - A) + 0.3 (E - A) */
    cr_assert_float_eq(d.w[0][0], 0.5, EPS);
    cr_assert_float_eq(d.w[0][1], 0.2, EPS);
    cr_assert_float_eq(d.w[0][2], 0.0, EPS);
    cr_assert_float_eq(d.w[0][3], 0.3, EPS);
}

/* Along -n = (1 1 1)/sqrt 3 to the slanted face x + y + z = 1. */
Test(collision_volumes, tetra_point_to_the_slanted_face)
{
    const double p[3] = {0.2, 0.1, 0.3}, s = 1 / sqrt(3.0), n[3] = {-s, -s, -s};
    cdetect d;
    cr_assert_eq(st_coll_tetra_point(A, B, C, E, p, n, &d), 1);
    double l = 0.4 / sqrt(3.0);
    cr_assert(fabs(d.value + l) < 1e-15, "value %.17g, expected %.17g", d.value, -l);
    assert_vec(d.p[0], 0.2 + 0.4 / 3, 0.1 + 0.4 / 3, 0.3 + 0.4 / 3, 1e-15, "surface point");
    cr_assert_float_eq(d.p[0][0] + d.p[0][1] + d.p[0][2], 1.0, 1e-15);
    assert_vec(d.normal, s, s, s, 0, "normal");
    cr_assert_float_eq(d.w[0][0], 0.0, 1e-15);
}

/* Outside, on the boundary, or without a normal. */
Test(collision_volumes, tetra_point_degenerate)
{
    const double n[3] = {0, 1, 0}, zero[3] = {0, 0, 0};
    const double out[3] = {0.5, 0.5, 0.5}, below[3] = {0.2, -0.01, 0.2}, in[3] = {0.1, 0.1, 0.1};
    cdetect d;
    cr_assert_eq(st_coll_tetra_point(A, B, C, E, out, n, &d), 0);
    cr_assert_eq(st_coll_tetra_point(A, B, C, E, below, n, &d), 0);
    cr_assert_eq(st_coll_tetra_point(A, B, C, E, in, zero, &d), 0, "no normal: no contact");
    /* On the face y = 0: a contact of length 0. */
    const double on[3] = {0.2, 0, 0.2};
    cr_assert_eq(st_coll_tetra_point(A, B, C, E, on, n, &d), 1);
    cr_assert_eq(d.value, 0.0);
    /* A flat tetrahedron has no inside. */
    const double flat[3] = {1, 1, 0};
    cr_assert_eq(st_coll_tetra_point(A, B, C, flat, in, n, &d), 0);
    /* The vertex order does not matter for the result (a mirrored tetrahedron). */
    cr_assert_eq(st_coll_tetra_point(A, C, B, E, (const double[3]){0.2, 0.1, 0.3}, n, &d), 1);
    assert_vec(d.p[0], 0.2, 0, 0.3, EPS, "mirrored surface point");
}

/* SOFA's cylinder box: the end discs' centres widened by r on every axis. */
Test(collision_volumes, cylinder_box)
{
    const double c[3] = {1, 2, 3}, y[3] = {0, 1, 0};
    double b[6];
    st_coll_cylinder_box(c, y, 0.5, 2, b);
    /* SOFA widens along the axis too */
    assert_vec(b, 0.5, 0.5, 2.5, 0, "min");
    assert_vec(b + 3, 1.5, 3.5, 3.5, 0, "max");
    const double s = sqrt(0.5), d[3] = {s, s, 0};
    st_coll_cylinder_box(c, d, 0.5, 2, b);
    assert_vec(b, 1 - s - 0.5, 2 - s - 0.5, 2.5, 1e-15, "min, tilted");
    assert_vec(b + 3, 1 + s + 0.5, 2 + s + 0.5, 3.5, 1e-15, "max, tilted");
}

/* ---- scenes ---- */

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(collision_volume_scenes, .init = setup, .fini = teardown);

/* A plate (three points, one triangle turned so that its normal points
 * down, computeNormals) falls into a static tetrahedron whose top face is
 * y = 0. */
static st_scene *plate_scene(const char *method, double y0)
{
    char y[4096];
    snprintf(y, sizeof y,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.005\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,"
             " Topology, Collision]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - CollisionPipeline: {}\n"
             "    - BruteForceBroadPhase: {}\n"
             "    - BVHNarrowPhase: {}\n"
             "    - %s\n"
             "    - CollisionResponse: {}\n"
             "  children:\n"
             "    - name: Plate\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 1}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: plate, position: [[-0.2, %g, -0.1], [0.2, %g, -0.1],"
             " [0, %g, 0.2]]}\n"
             "        - MeshTopology: {triangles: [[0, 1, 2]]}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - PointCollisionModel: {computeNormals: true, contactStiffness: 100}\n"
             "    - name: Block\n"
             "      objects:\n"
             "        - MechanicalObject: {position: [[-2, 0, -2], [2, 0, -2], [0, 0, 2], [0, -2, 0]]}\n"
             "        - MeshTopology: {tetrahedra: [[0, 1, 2, 3]]}\n"
             "        - TetrahedronCollisionModel: {moving: false, simulated: false,"
             " contactStiffness: 100}\n",
             method, y0, y0, y0);
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, y, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s", e.msg);
    return s;
}

/* DiscreteIntersection: contact distance 0, so ks = 100 100 and each point
 * (mass 1/3) rests where ks l = g / 3. */
Test(collision_volume_scenes, plate_rests_in_the_tetrahedron)
{
    st_scene *s = plate_scene("DiscreteIntersection: {}", 0.02);
    st_error e = {0};
    for (int i = 0; i < 800; i++)
        cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "step %d: %s", i, e.msg);
    const double *x = ((st_mstate *)test_find_object(s, "plate"))->position.r;
    double want = -9.81 / 3 / 1e4;
    for (int k = 0; k < 3; k++)
        cr_assert(fabs(x[3 * k + 1] - want) < 1e-7, "point %d at %.9g, rest %.9g", k, x[3 * k + 1],
                  want);
    cr_assert(strstr(T.log, "/Block/TetrahedronCollisionModel1 - /Plate/PointCollisionModel1: 3 contacts"),
              "%s", T.log);
    st_scene_destroy(&s);
}

/* The tetrahedron-point test is in every method (SOFA registers it in
 * DiscreteIntersection, which the proximity methods derive from); a
 * cylinder has no test, so no pair. */
Test(collision_volume_scenes, every_method_pairs_tetrahedra_and_points)
{
    const char *methods[3] = {"MinProximityIntersection: {}", "NewProximityIntersection: {}",
                              "LocalMinDistance: {}"};
    for (int k = 0; k < 3; k++) {
        st_scene *s = plate_scene(methods[k], -0.1);
        st_error e = {0};
        cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "%s", e.msg);
        cr_assert(strstr(T.log, "TetrahedronCollisionModel1 - /Plate/PointCollisionModel1: 3 "
                                "contacts"),
                  "%s: %s", methods[k], T.log);
        st_scene_destroy(&s);
        test_log_clear(&T);
        T.len = 0;
    }
}

/* A cylinder's box follows its frame; it makes no contact (SOFA's methods
 * have no cylinder test) and a Vec3d state is refused. */
Test(collision_volume_scenes, cylinder_model)
{
    char y[4096];
    snprintf(y, sizeof y,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Collision]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - CollisionPipeline: {}\n"
             "    - BruteForceBroadPhase: {}\n"
             "    - BVHNarrowPhase: {}\n"
             "    - MinProximityIntersection: {}\n"
             "    - CollisionResponse: {}\n"
             "  children:\n"
             "    - name: Cyl\n"
             "      objects:\n"
             "        - MechanicalObject: {template: Rigid3d, position: [[1, 2, 3, 0, 0, 0.7071067811865476,"
             " 0.7071067811865476], [0, 0, 0, 0, 0, 0, 1]]}\n"
             "        - CylinderCollisionModel: {radii: [0.25], heights: [4]}\n");
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, y, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s", e.msg);
    cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "%s", e.msg);
    cmodel *m = (cmodel *)test_find_object(s, "CylinderCollisionModel1");
    cr_assert_eq(m->nelem, 2);
    /* Frame 0 turned 90 degrees about z: the axis y becomes -x; radius 0.25,
     * height 4. Frame 1: the defaults (radius 0.5, height 2, axis y). */
    assert_vec(m->box, 1 - 2 - 0.25, 2 - 0.25, 3 - 0.25, 1e-12, "min 0");
    /* (SOFA widens by r along the axis too.) */
    assert_vec(m->box + 3, 1 + 2 + 0.25, 2 + 0.25, 3 + 0.25, 1e-12, "max 0");
    assert_vec(m->box + 6, -0.5, -1.5, -0.5, 1e-15, "min 1");
    assert_vec(m->box + 9, 0.5, 1.5, 0.5, 1e-15, "max 1");
    st_scene_destroy(&s);
    const char *bad = "format: settee/1\n"
                      "root:\n"
                      "  name: root\n"
                      "  objects:\n"
                      "    - RequiredPlugin: {pluginName: [Collision]}\n"
                      "    - MechanicalObject: {position: [[0, 0, 0]]}\n"
                      "    - CylinderCollisionModel: {}\n";
    cr_assert_eq(test_load_string(&T, bad, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_neq(st_scene_init(s, &e), ST_OK);
    cr_assert(strstr(e.msg, "Rigid3d"), "%s", e.msg);
    st_scene_destroy(&s);
}

/* A ray's box is its origin (SOFA's rays start with a zero direction, set
 * only by picking) and it makes no contact, even with a sphere around its
 * origin: no method tests rays yet. defaultLength reads SOFA's default 1;
 * a Rigid3d state is refused (SOFA requires Vec3). */
static const char *ray_scene(const char *ray_fields)
{
    static char y[4096];
    snprintf(y, sizeof y,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Collision]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - CollisionPipeline: {}\n"
             "    - BruteForceBroadPhase: {}\n"
             "    - BVHNarrowPhase: {}\n"
             "    - MinProximityIntersection: {alarmDistance: 1, contactDistance: 0.5}\n"
             "    - CollisionResponse: {}\n"
             "  children:\n"
             "    - name: Rays\n"
             "      objects:\n"
             "        - MechanicalObject: {position: [[1, 2, 3], [-1, 0, 0.5]]}\n"
             "        - RayCollisionModel: {%s}\n"
             "    - name: Ball\n"
             "      objects:\n"
             "        - MechanicalObject: {position: [[1, 2, 3.1]]}\n"
             "        - SphereCollisionModel: {radius: 0.5}\n",
             ray_fields);
    return y;
}

Test(collision_volume_scenes, ray_model)
{
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, ray_scene(""), &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s", e.msg);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(st_scene_step(s, 0.01, &e), ST_OK, "%s", e.msg);
    cmodel *m = (cmodel *)test_find_object(s, "RayCollisionModel1");
    cr_assert_not_null(m);
    cr_assert_eq(m->kind, CM_RAY);
    cr_assert_eq(m->nelem, 2);
    cr_assert_float_eq(m->default_length, 1.0, 0.0);
    assert_vec(m->box, 1, 2, 3, 0.0, "min 0");
    assert_vec(m->box + 3, 1, 2, 3, 0.0, "max 0");
    assert_vec(m->box + 6, -1, 0, 0.5, 0.0, "min 1");
    assert_vec(m->box + 9, -1, 0, 0.5, 0.0, "max 1");
    cr_assert_eq(m->number_of_contacts, 0);
    cmodel *b = (cmodel *)test_find_object(s, "SphereCollisionModel1");
    cr_assert_not_null(b);
    cr_assert_eq(b->number_of_contacts, 0);
    /* no contact, and the run says so at init */
    cr_assert(strstr(T.log, "RayCollisionModel1") && strstr(T.log, "its rays make no contact"),
              "%s", T.log);
    st_scene_destroy(&s);
    cr_assert_eq(test_load_string(&T, ray_scene("defaultLength: 5"), &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s", e.msg);
    m = (cmodel *)test_find_object(s, "RayCollisionModel1");
    cr_assert_float_eq(m->default_length, 5.0, 0.0);
    st_scene_destroy(&s);
    const char *bad = "format: settee/1\n"
                      "root:\n"
                      "  name: root\n"
                      "  objects:\n"
                      "    - RequiredPlugin: {pluginName: [Collision]}\n"
                      "    - MechanicalObject: {template: Rigid3d, position: [[0, 0, 0, 0, 0, 0, 1]]}\n"
                      "    - RayCollisionModel: {}\n";
    cr_assert_eq(test_load_string(&T, bad, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_neq(st_scene_init(s, &e), ST_OK);
    cr_assert(strstr(e.msg, "Vec3d"), "%s", e.msg);
    st_scene_destroy(&s);
}
