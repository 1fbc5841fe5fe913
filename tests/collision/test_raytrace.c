/* test_raytrace.c - RayTraceNarrowPhase with TriangleOctreeCollisionModel:
 * a unit cube sunk 0.2 into a static slab. From the second step (SOFA's
 * octree model has no normals at its first), each of the cube's four
 * bottom corners is found inside the slab: the contact joins the corner to
 * the point where the ray along minus the corner's normal leaves the
 * slab's top (y = 0), at depth t = 0.2 / |n_y|; the slab, which does not
 * move, casts no ray (SOFA's). The penalty response lifts the cube. Other
 * model kinds get no pair with the ray-trace narrow phase. RayTraceDetection
 * is both phases: the same contacts and motion, to the bit. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(raytrace, .init = setup, .fini = teardown);

/* A box's 8 corners and 12 outward triangles, as scene text. */
static void box_text(const double lo[3], const double hi[3], char *pos, size_t np, char *tri,
                     size_t nt)
{
    int k = 0;
    for (int i = 0; i < 8; i++)
        k += snprintf(pos + k, np - (size_t)k, "%g %g %g  ", (i & 1) ? hi[0] : lo[0],
                      (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2]);
    /* corners: bit 0 x, bit 1 y, bit 2 z */
    static const int t[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, /* z- z+ */
                                 {0, 1, 4}, {1, 5, 4}, {2, 6, 3}, {3, 6, 7}, /* y- y+ */
                                 {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}}; /* x- x+ */
    k = 0;
    for (int i = 0; i < 12; i++)
        k += snprintf(tri + k, nt - (size_t)k, "%d %d %d  ", t[i][0], t[i][1], t[i][2]);
}

/* The detection written in the scene: SOFA's two phases, or RayTraceDetection
 * (which adds those two in SOFA). */
#define PHASES "<BruteForceBroadPhase/> <RayTraceNarrowPhase/>"

static st_scene *scene(const char *narrow, const char *model)
{
    char sp[512], st[512], cp[512], ct[512], text[8192];
    const double slo[3] = {-5, -1, -5}, shi[3] = {5, 0, 5};
    const double clo[3] = {-0.5, -0.2, -0.5}, chi[3] = {0.5, 0.8, 0.5};
    box_text(slo, shi, sp, sizeof sp, st, sizeof st);
    box_text(clo, chi, cp, sizeof cp, ct, sizeof ct);
    snprintf(text, sizeof text,
             "<Node name=\"root\" dt=\"0.01\" gravity=\"0 0 0\">\n"
             "  <RequiredPlugin name=\"Sofa.Component.Collision.Detection.Algorithm\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.Collision.Detection.Intersection\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.Collision.Geometry\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.Collision.Response.Contact\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Backward\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.LinearSolver.Iterative\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Constant\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"
             "  <CollisionPipeline name=\"pipeline\"/>\n"
             "  %s\n"
             "  <NewProximityIntersection alarmDistance=\"0.5\" contactDistance=\"0.1\"/>\n"
             "  <CollisionResponse response=\"PenalityContactForceField\"/>\n"
             "  <Node name=\"Slab\">\n"
             "    <MeshTopology position=\"%s\" triangles=\"%s\"/>\n"
             "    <MechanicalObject position=\"%s\"/>\n"
             "    <%s name=\"slab\" simulated=\"0\" moving=\"0\" contactStiffness=\"10\"/>\n"
             "  </Node>\n"
             "  <Node name=\"Cube\">\n"
             "    <EulerImplicitSolver/>\n"
             "    <CGLinearSolver iterations=\"100\" tolerance=\"1e-20\" threshold=\"1e-30\"/>\n"
             "    <MeshTopology position=\"%s\" triangles=\"%s\"/>\n"
             "    <MechanicalObject name=\"dofs\" position=\"%s\"/>\n"
             "    <UniformMass totalMass=\"1\"/>\n"
             "    <%s name=\"cube\" contactStiffness=\"10\"/>\n"
             "  </Node>\n"
             "</Node>\n",
             narrow, sp, st, sp, model, cp, ct, cp, model);
    const char *path = test_write_temp("raytrace.scn", text);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s %s", err.where, err.msg);
    return s;
}

static const st_array *out(st_scene *s, const char *field)
{
    st_component *p = test_find_object(s, "pipeline");
    return st_component_field_ptr(p, st_component_field(p, field));
}

Test(raytrace, sunk_corners_are_found_along_their_normals)
{
    st_scene *s = scene(PHASES, "TriangleOctreeCollisionModel");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(out(s, "contactCounts")->n, 1);
    cr_expect_eq(out(s, "contactCounts")->u[0], 0, "step 1: no normals yet, no ray");
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(out(s, "contactCounts")->u[0], 4, "step 2: %u contacts",
                 out(s, "contactCounts")->u[0]);
    const st_array *pts = out(s, "contactPoints"), *nrm = out(s, "contactNormals");
    const st_mstate *cube = (const st_mstate *)test_find_object(s, "dofs");
    for (int c = 0; c < 4; c++) {
        const double *a = pts->r + 6 * c, *b = a + 3, *n = nrm->r + 3 * c;
        /* one point is a bottom corner of the cube, the other on the slab's top */
        const double *corner = a[1] < b[1] ? a : b;
        const double *q = corner == a ? b : a;
        cr_expect(fabs(fabs(corner[0]) - 0.5) < 1e-6 && fabs(fabs(corner[2]) - 0.5) < 1e-6 &&
                      fabs(corner[1] + 0.2) < 1e-12,
                  "contact %d: corner %g %g %g", c, corner[0], corner[1], corner[2]);
        cr_expect(fabs(q[1]) < 1e-12, "contact %d: hit point y = %.17g (slab top 0)", c, q[1]);
        /* Q - corner runs along the normal (the corner's), depth 0.2 / |n_y| */
        double d[3] = {q[0] - corner[0], q[1] - corner[1], q[2] - corner[2]};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        double dot = fabs(d[0] * n[0] + d[1] * n[1] + d[2] * n[2]);
        cr_expect(fabs(dot - len) < 1e-9, "contact %d: Q - P not along the normal", c);
        cr_expect(n[1] < 0 && fabs(len - (q[1] - corner[1]) / fabs(n[1])) < 1e-9,
                  "contact %d: depth %g, normal %g %g %g", c, len, n[0], n[1], n[2]);
    }
    /* The penalty lifts the cube */
    double y0 = cube->position.r[1];
    for (int i = 0; i < 20; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_expect(cube->position.r[1] > y0 + 1e-3, "cube y %g -> %g", y0, cube->position.r[1]);
    st_scene_destroy(&s);
}

Test(raytrace, only_octree_models_pair_with_ray_tracing)
{
    st_scene *s = scene(PHASES, "TriangleCollisionModel");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_expect_eq(out(s, "contactCounts")->n, 0, "triangle models: no pair");
    st_scene_destroy(&s);
}

Test(raytrace, raytrace_detection_is_both_phases)
{
    st_scene *a = scene(PHASES, "TriangleOctreeCollisionModel");
    st_scene *b = scene("<RayTraceDetection name=\"detection\"/>", "TriangleOctreeCollisionModel");
    st_error err = {0};
    for (int i = 0; i < 15; i++) {
        cr_assert_eq(st_scene_step(a, 0, &err), ST_OK, "%s", err.msg);
        cr_assert_eq(st_scene_step(b, 0, &err), ST_OK, "%s", err.msg);
        const st_array *pa = out(a, "contactPoints"), *pb = out(b, "contactPoints");
        cr_assert_eq(pa->n, pb->n, "step %d", i);
        if (i == 1)
            cr_assert_gt(pb->n, 0, "step %d: RayTraceDetection finds the sunk corners", i);
        if (pa->n)
            cr_assert_eq(memcmp(pa->r, pb->r, pa->n * 3 * sizeof(double)), 0, "step %d", i);
    }
    const st_mstate *ca = (const st_mstate *)test_find_object(a, "dofs");
    const st_mstate *cb = (const st_mstate *)test_find_object(b, "dofs");
    cr_assert_eq(memcmp(ca->position.r, cb->position.r, 3 * ca->n * sizeof(double)), 0);
    st_scene_destroy(&a);
    st_scene_destroy(&b);
    /* Like RayTraceNarrowPhase, it pairs octree models only. */
    st_scene *c = scene("<RayTraceDetection/>", "TriangleCollisionModel");
    cr_assert_eq(st_scene_step(c, 0, &err), ST_OK, "%s", err.msg);
    cr_expect_eq(out(c, "contactCounts")->n, 0, "triangle models: no pair");
    st_scene_destroy(&c);
}
