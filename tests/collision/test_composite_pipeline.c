/* test_composite_pipeline.c - CompositeCollisionPipeline and
 * SubCollisionPipeline: two identical sphere-above-sphere setups (a gap of
 * 0.05), each handled by its own sub-pipeline with its own intersection
 * distances: both find the contact (on the axis, along y, at the gap minus
 * their own contact distance), and only the one whose contact distance
 * exceeds the gap pushes its ball away; a model no
 * sub-pipeline lists gets SOFA's warning; a sub-pipeline alone does
 * nothing; bad links are errors naming them. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(composite_pipeline, .init = setup, .fini = teardown);

/* A static sphere of radius 1 at (x, 0, 0) and a free one of radius 1 at
 * (x, 2.05, 0): a gap of 0.05 between their surfaces. */
#define SETUP(N, X)                                                                                \
    "  <Node name=\"" N "\">\n"                                                                    \
    "    <Node name=\"Ball\">\n"                                                                   \
    "      <EulerImplicitSolver/>\n"                                                               \
    "      <CGLinearSolver iterations=\"25\" tolerance=\"1e-12\" threshold=\"1e-12\"/>\n"          \
    "      <MechanicalObject name=\"dofs\" position=\"" X " 2.05 0\"/>\n"                           \
    "      <UniformMass totalMass=\"1\"/>\n"                                                       \
    "      <SphereCollisionModel name=\"ball\" radius=\"1\"/>\n"                                   \
    "    </Node>\n"                                                                                \
    "    <Node name=\"Ground\">\n"                                                                 \
    "      <MechanicalObject position=\"" X " 0 0\"/>\n"                                           \
    "      <SphereCollisionModel name=\"ground\" radius=\"1\" simulated=\"0\" moving=\"0\"/>\n"    \
    "    </Node>\n"                                                                                \
    "  </Node>\n"

#define HEAD                                                                                       \
    "<Node name=\"root\" dt=\"0.001\" gravity=\"0 0 0\">\n"                                        \
    "  <RequiredPlugin name=\"Sofa.Component.Collision.Detection.Algorithm\"/>\n"                  \
    "  <RequiredPlugin name=\"Sofa.Component.Collision.Detection.Intersection\"/>\n"               \
    "  <RequiredPlugin name=\"Sofa.Component.Collision.Geometry\"/>\n"                             \
    "  <RequiredPlugin name=\"Sofa.Component.Collision.Response.Contact\"/>\n"                     \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Backward\"/>\n"                             \
    "  <RequiredPlugin name=\"Sofa.Component.LinearSolver.Iterative\"/>\n"                         \
    "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"                                           \
    SETUP("A", "0") SETUP("B", "10")                                                               \
    "  <BruteForceBroadPhase name=\"broadA\"/> <BVHNarrowPhase name=\"narrowA\"/>\n"               \
    "  <NewProximityIntersection name=\"interA\" alarmDistance=\"1\" contactDistance=\"0.1\"/>\n"  \
    "  <CollisionResponse name=\"respA\" response=\"PenalityContactForceField\"/>\n"               \
    "  <BruteForceBroadPhase name=\"broadB\"/> <BVHNarrowPhase name=\"narrowB\"/>\n"               \
    "  <NewProximityIntersection name=\"interB\" alarmDistance=\"0.5\" contactDistance=\"0.01\"/>\n"\
    "  <CollisionResponse name=\"respB\" response=\"PenalityContactForceField\"/>\n"

#define SUB(NAME, MODELS, S)                                                                       \
    "  <SubCollisionPipeline name=\"" NAME "\" collisionModels=\"" MODELS "\" "                   \
    "broadPhaseDetection=\"@broad" S "\" narrowPhaseDetection=\"@narrow" S "\" "                  \
    "intersectionMethod=\"@inter" S "\" contactManager=\"@resp" S "\"/>\n"

static st_status load(const char *text, st_scene **out, st_error *err)
{
    const char *path = test_write_temp("composite.scn", text);
    ST_TRY(st_scene_load(T.rt, path, out, err));
    return st_scene_init(*out, err);
}

static const st_array *out(st_scene *s, const char *obj, const char *field)
{
    st_component *c = test_find_object(s, obj);
    cr_assert_not_null(c, "%s", obj);
    return st_component_field_ptr(c, st_component_field(c, field));
}

Test(composite_pipeline, each_sub_pipeline_uses_its_own_distances)
{
    static const char *scene =
        HEAD SUB("subA", "@A/Ball/ball @A/Ground/ground", "A")
            SUB("subB", "@B/Ball/ball @/B/Ground/ground", "B")
        "  <CompositeCollisionPipeline subCollisionPipelines=\"@subA @subB\"/>\n"
        "</Node>\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load(scene, &s, &err), ST_OK, "%s %s", err.where, err.msg);
    cr_expect(strstr(T.log, "not handled by any SubCollisionPipeline") == NULL, "%s", T.log);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const st_array *ca = out(s, "subA", "contactCounts"), *cb = out(s, "subB", "contactCounts");
    cr_assert_eq(ca->n, 1);
    cr_assert_eq(cb->n, 1);
    cr_expect_eq(ca->u[0], 1, "sub A: %u contacts", ca->u[0]);
    cr_expect_eq(cb->u[0], 1, "sub B: %u contacts", cb->u[0]);
    const char *subs[2] = {"subA", "subB"};
    const double dist[2] = {0.05 - 0.1, 0.05 - 0.01};
    for (int k = 0; k < 2; k++) {
        const st_array *n = out(s, subs[k], "contactNormals");
        const st_array *d = out(s, subs[k], "contactDistances");
        const st_array *p = out(s, subs[k], "contactPoints");
        cr_assert_eq(n->n, 1);
        cr_expect(fabs(fabs(n->r[1]) - 1) < 1e-12 && fabs(n->r[0]) < 1e-12 &&
                      fabs(n->r[2]) < 1e-12,
                  "%s: normal %g %g %g", subs[k], n->r[0], n->r[1], n->r[2]);
        cr_expect(fabs(d->r[0] - dist[k]) < 1e-9, "%s: distance %.17g, expected %g", subs[k],
                  d->r[0], dist[k]);
        cr_assert_eq(p->n, 2);
        double x0 = k == 0 ? 0 : 10;
        for (int j = 0; j < 2; j++)
            cr_expect(fabs(p->r[3 * j] - x0) < 1e-12 && fabs(p->r[3 * j + 2]) < 1e-12,
                      "%s: point %d off the axis: %g %g %g", subs[k], j, p->r[3 * j],
                      p->r[3 * j + 1], p->r[3 * j + 2]);
    }
    for (int i = 0; i < 20; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const st_mstate *ma = (const st_mstate *)test_find_object(s, "dofs");
    double ya = ma->position.r[1];
    st_component *nb = NULL;
    st_error e2 = {0};
    cr_assert_eq(st_node_resolve(s->root, "B/Ball/dofs", ST_LINK_STATE, &nb, &e2), ST_OK, "%s",
                 e2.msg);
    double yb = ((const st_mstate *)nb)->position.r[1];
    cr_expect(ya > 2.05 + 1e-6, "ball A (contact distance 0.1 > gap): y = %.17g", ya);
    cr_expect_float_eq(yb, 2.05, 1e-15, "ball B (contact distance 0.01 < gap): y = %.17g", yb);
    st_scene_destroy(&s);
}

Test(composite_pipeline, uncovered_models_and_lone_sub_pipelines)
{
    static const char *uncovered =
        HEAD SUB("subA", "@A/Ball/ball @A/Ground/ground", "A")
        "  <CompositeCollisionPipeline subCollisionPipelines=\"@subA\"/>\n"
        "</Node>\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load(uncovered, &s, &err), ST_OK, "%s", err.msg);
    cr_expect(strstr(T.log, "CollisionModel /B/Ball/ball is not handled by any "
                            "SubCollisionPipeline") != NULL,
              "%s", T.log);
    cr_expect(strstr(T.log, "CollisionModel /B/Ground/ground is not handled") != NULL, "%s",
              T.log);
    st_scene_destroy(&s);
    /* Without the composite, nothing runs the sub-pipeline (as SOFA). */
    static const char *lone = HEAD SUB("subA", "@A/Ball/ball @A/Ground/ground", "A") "</Node>\n";
    cr_assert_eq(load(lone, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_expect_eq(out(s, "subA", "contactCounts")->n, 0);
    st_scene_destroy(&s);
}

Test(composite_pipeline, bad_links_are_errors)
{
    static const char *not_model =
        HEAD SUB("subA", "@A/Ball/dofs @A/Ground/ground", "A")
        "  <CompositeCollisionPipeline subCollisionPipelines=\"@subA\"/>\n"
        "</Node>\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_neq(load(not_model, &s, &err), ST_OK);
    cr_expect(strstr(err.msg, "'@A/Ball/dofs' is a MechanicalObject, not a collision model"),
              "%s", err.msg);
    st_scene_destroy(&s);
    static const char *not_sub =
        HEAD SUB("subA", "@A/Ball/ball @A/Ground/ground", "A")
        "  <CompositeCollisionPipeline subCollisionPipelines=\"@subA @respA\"/>\n"
        "</Node>\n";
    memset(&err, 0, sizeof err);
    cr_assert_neq(load(not_sub, &s, &err), ST_OK);
    cr_expect(strstr(err.msg, "'@respA' is a CollisionResponse, not a SubCollisionPipeline"),
              "%s", err.msg);
    st_scene_destroy(&s);
    static const char *swapped =
        HEAD "  <SubCollisionPipeline name=\"subA\" collisionModels=\"@A/Ball/ball\" "
             "broadPhaseDetection=\"@interA\" narrowPhaseDetection=\"@narrowA\" "
             "intersectionMethod=\"@interA\" contactManager=\"@respA\"/>\n"
        "  <CompositeCollisionPipeline subCollisionPipelines=\"@subA\"/>\n"
        "</Node>\n";
    memset(&err, 0, sizeof err);
    cr_assert_neq(load(swapped, &s, &err), ST_OK);
    cr_expect(strstr(err.msg, "'interA' (NewProximityIntersection) is not a broad phase"), "%s",
              err.msg);
    st_scene_destroy(&s);
}
