/* test_ccd.c - CCDTightInclusionIntersection: a particle moving 0.2 per
 * step towards a floor 0.05 below it would pass through in one step; the
 * continuous test finds the contact between the start and the free
 * positions, at the right place (the point's projection on the floor, at
 * the start of the step), normal (up) and distance (0.05 minus the
 * separation), and the Lagrangian response stops the particle on the
 * floor; the same scene with NewProximityIntersection lets it through.
 * Also: two segments crossing during the step (edge-edge), and a point
 * moving parallel to a triangle (no contact). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(ccd, .init = setup, .fini = teardown);

#define PLUGINS                                                                                    \
    "  <RequiredPlugin name=\"Sofa.Component.Collision.Detection.Algorithm\"/>\n"                  \
    "  <RequiredPlugin name=\"Sofa.Component.Collision.Detection.Intersection\"/>\n"               \
    "  <RequiredPlugin name=\"Sofa.Component.Collision.Geometry\"/>\n"                             \
    "  <RequiredPlugin name=\"Sofa.Component.Collision.Response.Contact\"/>\n"                     \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Backward\"/>\n"                             \
    "  <RequiredPlugin name=\"Sofa.Component.LinearSolver.Iterative\"/>\n"                         \
    "  <RequiredPlugin name=\"Sofa.Component.Constraint.Lagrangian.Solver\"/>\n"                   \
    "  <RequiredPlugin name=\"Sofa.Component.Constraint.Lagrangian.Correction\"/>\n"               \
    "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Constant\"/>\n"                    \
    "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"

static st_scene *load(const char *text)
{
    const char *path = test_write_temp("ccd.scn", text);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s %s", err.where, err.msg);
    return s;
}

static st_scene *falling(const char *intersection, const char *velocity)
{
    char text[4096];
    snprintf(text, sizeof text,
             "<Node name=\"root\" dt=\"0.01\" gravity=\"0 0 0\">\n" PLUGINS
             "  <FreeMotionAnimationLoop/>\n"
             "  <GenericConstraintSolver tolerance=\"1e-12\" maxIterations=\"1000\"/>\n"
             "  <CollisionPipeline name=\"pipeline\"/>\n"
             "  <BruteForceBroadPhase/> <BVHNarrowPhase/>\n"
             "  <CollisionResponse response=\"FrictionContactConstraint\" "
             "responseParams=\"mu=0\"/>\n"
             "  %s\n"
             "  <Node name=\"Floor\">\n"
             "    <MechanicalObject position=\"-1 0 -1  1 0 -1  1 0 1  -1 0 1\"/>\n"
             "    <MeshTopology triangles=\"0 2 1  0 3 2\"/>\n"
             "    <TriangleCollisionModel name=\"floor\" moving=\"0\" simulated=\"0\"/>\n"
             "  </Node>\n"
             "  <Node name=\"Particle\">\n"
             "    <EulerImplicitSolver/>\n"
             "    <CGLinearSolver iterations=\"50\" tolerance=\"1e-20\" threshold=\"1e-30\"/>\n"
             "    <MechanicalObject name=\"dofs\" position=\"0.1 0.05 0.2\" velocity=\"%s\"/>\n"
             "    <UniformMass vertexMass=\"1\"/>\n"
             "    <PointCollisionModel/>\n"
             "    <UncoupledConstraintCorrection compliance=\"1\"/>\n"
             "  </Node>\n"
             "</Node>\n",
             intersection, velocity);
    return load(text);
}

static const st_array *out(st_scene *s, const char *field)
{
    st_component *p = test_find_object(s, "pipeline");
    return st_component_field_ptr(p, st_component_field(p, field));
}

#define CCD                                                                                        \
    "<CCDTightInclusionIntersection continuousCollisionType=\"FreeMotion\" alarmDistance=\"0\" "  \
    "contactDistance=\"1e-5\"/>"

Test(ccd, a_fast_particle_stops_on_the_floor)
{
    st_scene *s = falling(CCD, "0 -20 0");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const st_array *c = out(s, "contactCounts");
    cr_assert_eq(c->n, 1);
    cr_assert_eq(c->u[0], 1, "%u contacts", c->u[0]);
    const st_array *p = out(s, "contactPoints"), *n = out(s, "contactNormals");
    const double on_floor[3] = {0.1, 0, 0.2}, start[3] = {0.1, 0.05, 0.2};
    for (int k = 0; k < 3; k++) {
        cr_expect(fabs(p->r[k] - on_floor[k]) < 1e-9, "floor point[%d] = %.17g", k, p->r[k]);
        cr_expect(fabs(p->r[3 + k] - start[k]) < 1e-12, "particle point[%d] = %.17g", k,
                  p->r[3 + k]);
    }
    cr_expect(fabs(n->r[1] - 1) < 1e-12, "normal %g %g %g", n->r[0], n->r[1], n->r[2]);
    const st_mstate *ms = (const st_mstate *)test_find_object(s, "dofs");
    for (int i = 0; i < 5; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_expect(ms->position.r[1] > -1e-6, "the particle went through: y = %g", ms->position.r[1]);
    cr_expect(ms->position.r[1] < 0.01, "the particle did not reach the floor: y = %g",
              ms->position.r[1]);
    st_scene_destroy(&s);
    /* The discrete test misses it */
    s = falling("<NewProximityIntersection alarmDistance=\"0.01\" contactDistance=\"1e-5\"/>",
                "0 -20 0");
    for (int i = 0; i < 6; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    ms = (const st_mstate *)test_find_object(s, "dofs");
    cr_expect(ms->position.r[1] < -0.5, "discrete: y = %g", ms->position.r[1]);
    st_scene_destroy(&s);
}

Test(ccd, a_particle_moving_along_the_floor_finds_nothing)
{
    st_scene *s = falling(CCD, "20 0 0");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_expect_eq(out(s, "contactCounts")->u[0], 0);
    st_scene_destroy(&s);
}

Test(ccd, crossing_segments)
{
    /* A moving segment along z at x = 0, y = 0.1, falling at 20 per
     * second onto a fixed one along x at y = 0: they cross in one step. */
    static const char *text =
        "<Node name=\"root\" dt=\"0.01\" gravity=\"0 0 0\">\n" PLUGINS
        "  <FreeMotionAnimationLoop/>\n"
        "  <GenericConstraintSolver tolerance=\"1e-12\" maxIterations=\"1000\"/>\n"
        "  <CollisionPipeline name=\"pipeline\"/>\n"
        "  <BruteForceBroadPhase/> <BVHNarrowPhase/>\n"
        "  <CollisionResponse response=\"FrictionContactConstraint\" responseParams=\"mu=0\"/>\n"
        "  " CCD "\n"
        "  <Node name=\"Fixed\">\n"
        "    <MechanicalObject position=\"-1 0 0  1 0 0\"/>\n"
        "    <MeshTopology edges=\"0 1\"/>\n"
        "    <LineCollisionModel moving=\"0\" simulated=\"0\"/>\n"
        "  </Node>\n"
        "  <Node name=\"Bar\">\n"
        "    <EulerImplicitSolver/>\n"
        "    <CGLinearSolver iterations=\"50\" tolerance=\"1e-20\" threshold=\"1e-30\"/>\n"
        "    <MechanicalObject name=\"dofs\" position=\"0.3 0.1 -1  0.3 0.1 1\" "
        "velocity=\"0 -20 0  0 -20 0\"/>\n"
        "    <UniformMass vertexMass=\"1\"/>\n"
        "    <MeshTopology edges=\"0 1\"/>\n"
        "    <LineCollisionModel/>\n"
        "    <UncoupledConstraintCorrection compliance=\"1\"/>\n"
        "  </Node>\n"
        "</Node>\n";
    st_scene *s = load(text);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const st_array *c = out(s, "contactCounts");
    cr_assert_eq(c->n, 1);
    cr_assert_eq(c->u[0], 1);
    const st_array *p = out(s, "contactPoints"), *n = out(s, "contactNormals");
    /* closest points at the start: (0.3, 0, 0) on the fixed bar, (0.3, 0.1, 0) on the moving one */
    const double *a = p->r, *b = p->r + 3;
    const double *fixed = fabs(a[1]) < 1e-12 ? a : b, *moving = fixed == a ? b : a;
    cr_expect(fabs(fixed[0] - 0.3) < 1e-9 && fabs(fixed[2]) < 1e-9, "fixed %g %g %g", fixed[0],
              fixed[1], fixed[2]);
    cr_expect(fabs(moving[0] - 0.3) < 1e-9 && fabs(moving[1] - 0.1) < 1e-12 &&
                  fabs(moving[2]) < 1e-9,
              "moving %g %g %g", moving[0], moving[1], moving[2]);
    cr_expect(fabs(fabs(n->r[1]) - 1) < 1e-6, "normal %g %g %g", n->r[0], n->r[1], n->r[2]);
    st_scene_destroy(&s);
}
