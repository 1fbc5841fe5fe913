/* test_obb_capsule.c - SOFA's CollisionOBBCapsule models in scenes of our
 * own: for each pair, one step's detection (the pipeline's contactPoints,
 * contactNormals and contactDistances) against values worked by hand: two
 * boxes face to face (the middle of the faces' overlap) and edge to edge
 * (the two edges' closest points), a capsule lying on a box's face (the
 * middle of its flat stretch, Vec3d and Rigid3d capsules), two crossing
 * capsules, a sphere above a box, a capsule above a triangle; which pairs
 * each method tests (SOFA's table: triangle-OBB only with
 * NewProximityIntersection); a box falling on a static box and on a
 * triangle floor comes to rest where the penalty force carries its weight;
 * a box on a Vec3d state is refused at init. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(obb_capsule, .init = setup, .fini = teardown);

/* A root with no gravity (detection only), the method and its distances,
 * then the children. */
#define HEAD(method, gravity)                                                      \
    "format: settee/1\n"                                                                           \
    "root:\n"                                                                                      \
    "  name: root\n"                                                                               \
    "  gravity: [0, " gravity ", 0]\n"                                                             \
    "  dt: 0.01\n"                                                                                 \
    "  objects:\n"                                                                                 \
    "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,\n"      \
    "        Topology, Collision]}\n"                                                              \
    "    - DefaultAnimationLoop: {}\n"                                                             \
    "    - CollisionPipeline: {}\n"                                                                \
    "    - BruteForceBroadPhase: {}\n"                                                             \
    "    - BVHNarrowPhase: {}\n"                                                                   \
    "    - " method "\n"                                                                           \
    "    - CollisionResponse: {}\n"                                                                \
    "  children:\n"

/* The moving body: a solver, a state and its mass (indent 4). */
#define BODY(name, templ, pos)                                                                     \
    "    - name: " name "\n"                                                                       \
    "      objects:\n"                                                                             \
    "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"               \
    "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"            \
    "        - MechanicalObject: {name: " name "Dofs, template: " templ ", position: " pos "}\n"  \
    "        - UniformMass: {totalMass: 1}\n"

#define STATIC(name, templ, pos)                                                                   \
    "    - name: " name "\n"                                                                       \
    "      objects:\n"                                                                             \
    "        - MechanicalObject: {name: " name "Dofs, template: " templ ", position: " pos "}\n"

#define Q45Z "0, 0, 0.38268343236509, 0.923879532511287"
#define Q45X "0.38268343236509, 0, 0, 0.923879532511287"
#define Q90Z "0, 0, 0.70710678118654752, 0.70710678118654752"

static st_scene *load(const char *yaml)
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

static const st_array *out(st_scene *s, const char *field)
{
    st_component *p = test_find_object(s, "CollisionPipeline1");
    cr_assert_not_null(p);
    return st_component_field_ptr(p, st_component_field(p, field));
}

static void assert_vec(const double *a, double x, double y, double z, double tol, const char *what)
{
    cr_assert(fabs(a[0] - x) <= tol && fabs(a[1] - y) <= tol && fabs(a[2] - z) <= tol,
              "%s: (%.17g %.17g %.17g), expected (%.17g %.17g %.17g)", what, a[0], a[1], a[2], x, y,
              z);
}

/* One step, then exactly one contact: its two points, normal and distance. */
static void one_contact(const char *yaml, const double p0[3], const double p1[3],
                        const double n[3], double dist, double tol)
{
    st_scene *s = load(yaml);
    run(s, 1);
    const st_array *pts = out(s, "contactPoints"), *nor = out(s, "contactNormals"),
                   *dd = out(s, "contactDistances");
    cr_assert_eq(nor->n, 1, "%zu contacts, expected 1\n%s", nor->n, yaml);
    assert_vec(pts->r, p0[0], p0[1], p0[2], tol, "point on the first");
    assert_vec(pts->r + 3, p1[0], p1[1], p1[2], tol, "point on the second");
    assert_vec(nor->r, n[0], n[1], n[2], tol, "normal");
    cr_assert(fabs(dd->r[0] - dist) <= tol, "distance %.17g, expected %.17g", dd->r[0], dist);
    st_scene_destroy(&s);
}

/* Box A (half-width 1) at the origin; box B (half-width 0.5) above it, its
 * bottom face 1 above A's top, shifted by 0.9 along x: the faces overlap
 * on x in [0.4, 1], z in [-0.5, 0.5], whose middle is x = 0.7, z = 0. B
 * comes later in the scene: SOFA's first model of a pair of one kind. */
Test(obb_capsule, obb_obb_face_to_face)
{
    const char *yaml = HEAD("NewProximityIntersection: {alarmDistance: 1.5, contactDistance: 0.1}", "0")
        STATIC("A", "Rigid3d", "[[0, 0, 0, 0, 0, 0, 1]]")
        "        - OBBCollisionModel: {}\n"
        BODY("B", "Rigid3d", "[[0.9, 2.5, 0, 0, 0, 0, 1]]")
        "        - OBBCollisionModel: {defaultExtent: 0.5}\n";
    one_contact(yaml, (double[]){0.7, 2, 0}, (double[]){0.7, 1, 0}, (double[]){0, -1, 0},
                1.0 - 0.1, 1e-12);
}

/* A turned 45 degrees about z shows an edge along z on top, at height
 * sqrt(2)/2; B turned 45 degrees about x shows an edge along x below, at
 * its centre's height minus sqrt(2)/2: the edges cross above the origin,
 * 0.1 apart, and the separating axis is their cross product, y. The face
 * normals separate less. */
Test(obb_capsule, obb_obb_edge_to_edge)
{
    const char *yaml = HEAD("MinProximityIntersection: {alarmDistance: 0.5, contactDistance: 0.05}", "0")
        STATIC("A", "Rigid3d", "[[0, 0, 0, " Q45Z "]]")
        "        - OBBCollisionModel: {extents: [[0.5, 0.5, 0.5]]}\n"
        BODY("B", "Rigid3d", "[[0, 1.5142135623730950, 0, " Q45X "]]")
        "        - OBBCollisionModel: {defaultExtent: 0.5}\n";
    double h = sqrt(0.5);
    one_contact(yaml, (double[]){0, h + 0.1, 0}, (double[]){0, h, 0}, (double[]){0, -1, 0},
                0.1 - 0.05, 1e-9);
}

/* A capsule of radius 0.25 lying along x at height 1.5 over a box of
 * half-width 1, its axis from x = -0.8 to 1.2: the axis is 0.5 above the
 * top face from x = -0.8 to 1 (farther beyond), so the contact is at the
 * middle of that stretch, x = 0.1. The capsule is SOFA's first model; its
 * point is on its axis, its radius in the rest distance: the distance is
 * 0.5 - 0.25 - contactDistance. Vec3d (an edge) and Rigid3d (a frame
 * turned 90 degrees about z, local y along x, height 2) capsules, the
 * latter as RigidCapsuleCollisionModel and as SOFA writes it,
 * CapsuleCollisionModel on a Rigid3d state. */
Test(obb_capsule, capsule_on_obb_face)
{
    const char *vec = HEAD("DiscreteIntersection: {}", "0")
        STATIC("A", "Rigid3d", "[[0, 0, 0, 0, 0, 0, 1]]")
        "        - OBBCollisionModel: {}\n"
        BODY("C", "Vec3d", "[[-0.8, 1.5, 0], [1.2, 1.5, 0]]")
        "        - MeshTopology: {edges: [[0, 1]]}\n"
        "        - CapsuleCollisionModel: {defaultRadius: 0.25}\n";
    /* DiscreteIntersection: no alarm distance, so the capsule must touch */
    const char *vec_touch = HEAD("DiscreteIntersection: {}", "0")
        STATIC("A", "Rigid3d", "[[0, 0, 0, 0, 0, 0, 1]]")
        "        - OBBCollisionModel: {}\n"
        BODY("C", "Vec3d", "[[-0.8, 1.2, 0], [1.2, 1.2, 0]]")
        "        - MeshTopology: {edges: [[0, 1]]}\n"
        "        - CapsuleCollisionModel: {defaultRadius: 0.25}\n";
    const char *rigid = HEAD("MinProximityIntersection: {alarmDistance: 1, contactDistance: 0.1}", "0")
        STATIC("A", "Rigid3d", "[[0, 0, 0, 0, 0, 0, 1]]")
        "        - OBBCollisionModel: {}\n"
        BODY("C", "Rigid3d", "[[0.2, 1.5, 0, " Q90Z "]]")
        "        - RigidCapsuleCollisionModel: {radii: [0.25]}\n";
    const char *rigid_sofa = HEAD("MinProximityIntersection: {alarmDistance: 1, contactDistance: 0.1}", "0")
        STATIC("A", "Rigid3d", "[[0, 0, 0, 0, 0, 0, 1]]")
        "        - OBBCollisionModel: {}\n"
        BODY("C", "Rigid3d", "[[0.2, 1.5, 0, " Q90Z "]]")
        "        - CapsuleCollisionModel: {template: Rigid3d, radii: [0.25], listCapsuleRadii: [9]}\n";
    st_scene *s = load(vec);
    run(s, 1);
    cr_assert_eq(out(s, "contactNormals")->n, 0, "0.25 apart, no alarm distance: no contact");
    st_scene_destroy(&s);
    one_contact(vec_touch, (double[]){0.1, 1.2, 0}, (double[]){0.1, 1, 0}, (double[]){0, -1, 0},
                0.2 - 0.25, 1e-7);
    one_contact(rigid, (double[]){0.1, 1.5, 0}, (double[]){0.1, 1, 0}, (double[]){0, -1, 0},
                0.5 - 0.25 - 0.1, 1e-7);
    /* SOFA's name for it: CapsuleCollisionModel on a Rigid3d state, which
     * reads radii (listCapsuleRadii is the Vec3d capsules') */
    one_contact(rigid_sofa, (double[]){0.1, 1.5, 0}, (double[]){0.1, 1, 0}, (double[]){0, -1, 0},
                0.5 - 0.25 - 0.1, 1e-7);
}

/* Two capsules of radius 0.5 crossing at right angles, 1.2 apart: the
 * contact joins their axes' closest points, distance 1.2 - 1 - 0.1. */
Test(obb_capsule, capsules_crossing)
{
    const char *yaml = HEAD("NewProximityIntersection: {alarmDistance: 1, contactDistance: 0.1}", "0")
        STATIC("L", "Vec3d", "[[-1, 0, 0], [1, 0, 0]]")
        "        - MeshTopology: {edges: [[0, 1]]}\n"
        "        - CapsuleCollisionModel: {}\n"
        BODY("U", "Vec3d", "[[0.3, 1.2, -1], [0.3, 1.2, 1]]")
        "        - MeshTopology: {edges: [[0, 1]]}\n"
        "        - CapsuleCollisionModel: {listCapsuleRadii: [0.5]}\n";
    one_contact(yaml, (double[]){0.3, 1.2, 0}, (double[]){0.3, 0, 0}, (double[]){0, -1, 0},
                1.2 - 1.0 - 0.1, 1e-12);
}

/* A Vec3d sphere of radius 0.3 at (0.5, 1.8, 0.2) over a box of
 * half-width 1: the box's closest point is below it on the top face; the
 * sphere is the first model, its point its centre. */
Test(obb_capsule, sphere_over_obb)
{
    const char *yaml = HEAD("LocalMinDistance: {alarmDistance: 1, contactDistance: 0.1}", "0")
        STATIC("A", "Rigid3d", "[[0, 0, 0, 0, 0, 0, 1]]")
        "        - OBBCollisionModel: {}\n"
        BODY("S", "Vec3d", "[[0.5, 1.8, 0.2]]")
        "        - SphereCollisionModel: {radius: 0.3}\n";
    one_contact(yaml, (double[]){0.5, 1.8, 0.2}, (double[]){0.5, 1, 0.2}, (double[]){0, -1, 0},
                0.8 - 0.3 - 0.1, 1e-7);
}

/* A capsule of radius 0.2 along x at height 0.5 above a triangle of the
 * plane y = 0 (NewProximityIntersection's capsule-triangle): its end
 * inside the triangle is the closest point, 0.5 - 0.2 - 0.1 away. */
Test(obb_capsule, capsule_over_triangle)
{
    const char *yaml = HEAD("NewProximityIntersection: {alarmDistance: 1, contactDistance: 0.1}", "0")
        STATIC("F", "Vec3d", "[[0, 0, 0], [4, 0, 0], [0, 0, 4]]")
        "        - MeshTopology: {triangles: [[0, 2, 1]]}\n"
        "        - TriangleCollisionModel: {}\n"
        BODY("C", "Vec3d", "[[1, 0.5, 1], [6, 0.5, 1]]")
        "        - MeshTopology: {edges: [[0, 1]]}\n"
        "        - CapsuleCollisionModel: {defaultRadius: 0.2}\n";
    one_contact(yaml, (double[]){1, 0.5, 1}, (double[]){1, 0, 1}, (double[]){0, -1, 0},
                0.5 - 0.2 - 0.1, 1e-12);
}

/* SOFA's table: triangle-OBB is NewProximityIntersection's only; with
 * MinProximityIntersection the pair is not even formed. */
Test(obb_capsule, triangle_obb_only_with_new_proximity)
{
#define TRI_OBB(method)                                                                            \
    HEAD(method, "0")                                                                  \
    STATIC("F", "Vec3d", "[[-4, 0, -4], [4, 0, -4], [4, 0, 4], [-4, 0, 4]]")                       \
    "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"                                \
    "        - TriangleCollisionModel: {}\n"                                                       \
    BODY("B", "Rigid3d", "[[0.5, 0.8, 0.25, 0, 0, 0, 1]]")                                         \
    "        - OBBCollisionModel: {defaultExtent: 0.5}\n"
    st_scene *s = load(TRI_OBB("MinProximityIntersection: {alarmDistance: 1, contactDistance: 0.1}"));
    run(s, 1);
    cr_assert_eq(out(s, "contactCounts")->n, 0, "no pair without NewProximityIntersection");
    st_scene_destroy(&s);
    s = load(TRI_OBB("NewProximityIntersection: {alarmDistance: 1, contactDistance: 0.1}"));
    run(s, 1);
    const st_array *nor = out(s, "contactNormals"), *pts = out(s, "contactPoints"),
                   *dd = out(s, "contactDistances");
    /* one contact per triangle under the box's bottom face: the middle of
     * the overlap of the face with each triangle, 0.3 below it */
    cr_assert_eq(nor->n, 2);
    for (size_t k = 0; k < 2; k++) {
        assert_vec(nor->r + 3 * k, 0, 1, 0, 1e-12, "normal from the floor up");
        cr_assert_float_eq(pts->r[6 * k + 1], 0.0, 1e-12);
        cr_assert_float_eq(pts->r[6 * k + 4], 0.3, 1e-12);
        cr_assert_float_eq(dd->r[k], 0.3 - 0.1, 1e-12);
        /* both points inside the bottom face's outline */
        cr_assert(pts->r[6 * k] >= 0 && pts->r[6 * k] <= 1 && pts->r[6 * k + 2] >= -0.25 &&
                  pts->r[6 * k + 2] <= 0.75);
    }
    st_scene_destroy(&s);
}

/* A unit-mass box of half-width 0.5 falls on a static box (top at y = 1):
 * it rests where the penalty force carries its weight, ks pen = m g with
 * ks = k k / d (both contactStiffness 1000, d = contactDistance 0.05),
 * its centre 1 + 0.5 + d - m g / ks, at rest, not turned. The same on a
 * floor of four triangles meeting under the box's centre
 * (NewProximityIntersection): each triangle holds one contact, in the
 * middle of its overlap with the box's bottom face, so 4 ks pen = m g. (On
 * two triangles the two contacts would leave the box free to tip about
 * the line through them: one contact per element pair, as in SOFA.) */
Test(obb_capsule, falling_box_rests)
{
    const char *on_box = HEAD("NewProximityIntersection: {alarmDistance: 0.2, contactDistance: 0.05}", "-9.81")
        STATIC("Floor", "Rigid3d", "[[0, 0, 0, 0, 0, 0, 1]]")
        "        - OBBCollisionModel: {extents: [[10, 1, 10]], contactStiffness: 1000,\n"
        "            moving: false, simulated: false}\n"
        BODY("Box", "Rigid3d", "[[0.3, 2.2, -0.4, 0, 0, 0, 1]]")
        "        - OBBCollisionModel: {defaultExtent: 0.5, contactStiffness: 1000}\n";
    const char *on_tri = HEAD("NewProximityIntersection: {alarmDistance: 0.2, contactDistance: 0.05}", "-9.81")
        STATIC("Floor", "Vec3d",
               "[[-5, 1, -5], [5, 1, -5], [5, 1, 5], [-5, 1, 5], [0.3, 1, 0.3]]")
        "        - MeshTopology: {triangles: [[4, 1, 0], [4, 2, 1], [4, 3, 2], [4, 0, 3]]}\n"
        "        - TriangleCollisionModel: {contactStiffness: 1000, moving: false,\n"
        "            simulated: false}\n"
        BODY("Box", "Rigid3d", "[[0.3, 2.2, 0.3, 0, 0, 0, 1]]")
        "        - OBBCollisionModel: {defaultExtent: 0.5, contactStiffness: 1000}\n";
    const char *scenes[2] = {on_box, on_tri};
    for (int k = 0; k < 2; k++) {
        st_scene *s = load(scenes[k]);
        run(s, 300);
        st_mstate *b = (st_mstate *)test_find_object(s, "BoxDofs");
        cr_assert_not_null(b);
        const double *x = b->position.r, *v = b->velocity.r;
        double ks = 1000.0 * 1000.0 / 0.05, rest = 1.0 + 0.5 + 0.05 - 9.81 / ((k ? 4 : 1) * ks);
        double z0 = k ? 0.3 : -0.4;
        cr_assert(fabs(x[1] - rest) < 1e-5, "scene %d: height %.10g, expected %.10g", k, x[1],
                  rest);
        cr_assert(fabs(x[0] - 0.3) < 1e-6 && fabs(x[2] - z0) < 1e-6, "scene %d: slid", k);
        cr_assert(fabs(x[6]) > 1 - 1e-9, "scene %d: turned (qw %.12g)", k, x[6]);
        for (int a = 0; a < 6; a++)
            cr_assert(fabs(v[a]) < 1e-3, "scene %d: velocity[%d] %g", k, a, v[a]);
        st_scene_destroy(&s);
    }
}

Test(obb_capsule, obb_needs_rigid_state)
{
    const char *yaml = HEAD("NewProximityIntersection: {alarmDistance: 1, contactDistance: 0.1}", "0")
        BODY("B", "Vec3d", "[[0, 0, 0]]")
        "        - OBBCollisionModel: {}\n";
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, yaml, &s, &e), ST_OK, "load: %s", e.msg);
    cr_assert_neq(st_scene_init(s, &e), ST_OK);
    cr_assert(strstr(e.msg, "Rigid3d") != NULL, "%s", e.msg);
    st_scene_destroy(&s);
}
