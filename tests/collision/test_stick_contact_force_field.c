/* test_stick_contact_force_field.c - the StickContactForceField response
 * (SOFA's BarycentricStickContact: a vector spring per contact, rest
 * vector the detection vector, stiffness both contactStiffness). A ball
 * touching a fixed ball is launched away at v0: the first step, whose
 * spring is at rest, gives the implicit Euler closed form
 * v1 = v0 / (1 + h^2 k / m); once the ball has left the alarm distance the
 * kept springs (keepAlive, the default) pull it back, where with
 * keepAlive=0 or the penalty response it flies away at v0. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(stick_contact_ff, .init = setup, .fini = teardown);

static st_scene *ball_scene(const char *response)
{
    char text[4096];
    snprintf(text, sizeof text,
             "<Node name=\"root\" dt=\"0.01\" gravity=\"0 0 0\">\n"
             "  <RequiredPlugin name=\"Sofa.Component.Collision.Detection.Algorithm\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.Collision.Detection.Intersection\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.Collision.Geometry\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.Collision.Response.Contact\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Backward\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.LinearSolver.Iterative\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"
             "  <CollisionPipeline name=\"pipeline\"/>\n"
             "  <BruteForceBroadPhase/> <BVHNarrowPhase/>\n"
             "  <NewProximityIntersection alarmDistance=\"0.5\" contactDistance=\"0.1\"/>\n"
             "  <CollisionResponse response=\"%s\"/>\n"
             "  <Node name=\"Ball\">\n"
             "    <EulerImplicitSolver/>\n"
             "    <CGLinearSolver iterations=\"50\" tolerance=\"1e-20\" threshold=\"1e-30\"/>\n"
             "    <MechanicalObject name=\"dofs\" position=\"0 2.2 0\" velocity=\"0 5 0\"/>\n"
             "    <UniformMass totalMass=\"1\"/>\n"
             "    <SphereCollisionModel radius=\"1\" contactStiffness=\"60\"/>\n"
             "  </Node>\n"
             "  <Node name=\"Fixed\">\n"
             "    <MechanicalObject position=\"0 0 0\"/>\n"
             "    <SphereCollisionModel radius=\"1\" contactStiffness=\"40\" simulated=\"0\" "
             "moving=\"0\"/>\n"
             "  </Node>\n"
             "</Node>\n",
             response);
    const char *path = test_write_temp("stick.scn", text);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s %s", err.where, err.msg);
    return s;
}

static const st_mstate *ball(st_scene *s) { return (const st_mstate *)test_find_object(s, "dofs"); }

Test(stick_contact_ff, first_step_is_the_implicit_spring)
{
    st_scene *s = ball_scene("StickContactForceField");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_component *pl = test_find_object(s, "pipeline");
    const st_array *counts = st_component_field_ptr(pl, st_component_field(pl, "contactCounts"));
    cr_assert_eq(counts->n, 1);
    cr_expect_eq(counts->u[0], 1);
    /* k = 60 + 40, m = 1, h = 0.01: v1 = 5 / (1 + 0.01) */
    double v1 = ball(s)->velocity.r[1];
    cr_expect_float_eq(v1, 5.0 / 1.01, 1e-10, "v1 = %.17g", v1);
    cr_expect_float_eq(ball(s)->position.r[1], 2.2 + 0.01 * 5.0 / 1.01, 1e-10, "y1 = %.17g",
                       ball(s)->position.r[1]);
    st_scene_destroy(&s);
}

/* The ball's largest height over n steps, and its height at the end. */
static void run(st_scene *s, int n, double *ymax, double *yend)
{
    st_error err = {0};
    *ymax = -1e300;
    for (int i = 0; i < n; i++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        double y = ball(s)->position.r[1];
        *ymax = y > *ymax ? y : *ymax;
    }
    *yend = ball(s)->position.r[1];
}

Test(stick_contact_ff, kept_springs_pull_the_ball_back)
{
    double ymax, yend;
    st_scene *s = ball_scene("StickContactForceField");
    run(s, 200, &ymax, &yend);
    /* It leaves the alarm distance (y > 2.5), then the last springs
     * (rest vector about 2.5) hold it: it never gets far and comes back. */
    cr_expect(ymax > 2.5 && ymax < 3.5, "ymax = %g", ymax);
    cr_expect(yend < 3.0, "y after 2 s = %g", yend);
    st_scene_destroy(&s);
    s = ball_scene("StickContactForceField?keepAlive=0");
    run(s, 200, &ymax, &yend);
    cr_expect(yend > 8.0, "keepAlive=0: y after 2 s = %g (flies away)", yend);
    st_scene_destroy(&s);
    s = ball_scene("PenalityContactForceField");
    run(s, 200, &ymax, &yend);
    cr_expect_float_eq(yend, 2.2 + 2.0 * 5.0, 1e-9, "penalty: y after 2 s = %.17g", yend);
    st_scene_destroy(&s);
}
