/* test_topology_contacts.c - the collision pipeline across topological
 * changes: a ball resting on a static floor of 8 triangles (a 3 x 3 grid of
 * points in the plane y = 0) whose triangles TopologicalChangeProcessor
 * removes at t = 0.1 while the ball's contacts exist. The systems are built
 * again after the change and the pipeline binds its pairs again: the old
 * pairs must be let go by the models that applied their forces (a model
 * still listing a freed pair reads freed memory; one keeping it applies its
 * last contacts twice, for ever). Penalty (DefaultAnimationLoop) and
 * Lagrangian (FreeMotionAnimationLoop, FrictionContactConstraint) responses. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

/* Floor triangles: quad (ix, iz) of corners a = ix + 3 iz, b = a + 1,
 * c = a + 4, d = a + 3 gives (a c b) and (a d c), normals +y. The ball at
 * x = 0.6, z = 0.3 lies over triangle 6, (4 8 5). */
#define ALL_TRIANGLES "0 4 1  0 3 4  1 5 2  1 4 5  3 7 4  3 6 7  4 8 5  4 7 8"
#define NO_QUAD_0 "1 5 2  1 4 5  3 7 4  3 6 7  4 8 5  4 7 8"

/* The scene, with `triangles`, a processor removing `remove` at t = 0.1
 * (none when NULL) and the penalty or the friction response. */
static const char *floor_scene(const char *triangles, const char *remove, bool lagrangian)
{
    static char buf[4096];
    char processor[256] = "";
    if (remove)
        snprintf(processor, sizeof processor,
                 "<TopologicalChangeProcessor useDataInputs=\"1\" timeToRemove=\"0.1\" "
                 "trianglesToRemove=\"%s\"/>",
                 remove);
    snprintf(buf, sizeof buf,
             "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -9.81 0\">\n"
             "  <RequiredPlugin pluginName=\"Topology Topology.Utility Collision "
             "ODESolver.Backward LinearSolver.Iterative Mass Constraint.Lagrangian.Solver "
             "Constraint.Lagrangian.Correction\"/>\n"
             "  %s\n"
             "  <CollisionPipeline name=\"pipeline\"/>\n"
             "  <BruteForceBroadPhase/>\n"
             "  <BVHNarrowPhase/>\n"
             "  <MinProximityIntersection alarmDistance=\"0.2\" contactDistance=\"0.05\"/>\n"
             "  <CollisionResponse response=\"%s\"/>\n"
             "  <Node name=\"Floor\">\n"
             "    <TriangleSetTopologyContainer name=\"topo\" position=\"-1 0 -1  0 0 -1  1 0 -1  "
             "-1 0 0  0 0 0  1 0 0  -1 0 1  0 0 1  1 0 1\" triangles=\"%s\"/>\n"
             "    <TriangleSetTopologyModifier/>\n"
             "    <MechanicalObject name=\"dofs\"/>\n"
             "    <TriangleCollisionModel simulated=\"0\" moving=\"0\"/>\n"
             "    %s\n"
             "  </Node>\n"
             "  <Node name=\"Ball\">\n"
             "    <EulerImplicitSolver rayleighStiffness=\"0\" rayleighMass=\"0\"/>\n"
             "    <CGLinearSolver iterations=\"50\" tolerance=\"1e-12\" threshold=\"1e-12\"/>\n"
             "    <MechanicalObject name=\"dofs\" position=\"0.6 %s 0.3\"/>\n"
             "    <UniformMass totalMass=\"1\"/>\n"
             "    %s\n"
             "    <SphereCollisionModel radius=\"0.1\" contactStiffness=\"1000\"/>\n"
             "  </Node>\n"
             "</Node>\n",
             lagrangian ? "<FreeMotionAnimationLoop/><GenericConstraintSolver maxIterations=\"100\" "
                          "tolerance=\"1e-9\"/>"
                        : "<DefaultAnimationLoop/>",
             lagrangian ? "FrictionContactConstraint\" responseParams=\"mu=0.1"
                        : "PenalityContactForceField",
             triangles, processor, lagrangian ? "0.16" : "0.1",
             lagrangian ? "<UncoupledConstraintCorrection/>" : "");
    return buf;
}

typedef struct run_result {
    double y[60];            /* the ball's height after each step */
    unsigned contacts[60];   /* the pipeline's contacts at each step */
    size_t triangles;        /* the floor's triangles at the end */
} run_result;

static void run(const char *scene, run_result *r)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(t.rt, scene, strlen(scene), "floor.scn", &s, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s %s", err.path, err.msg);
    st_component *ball = topo_get(s, "/Ball/dofs"), *pipe = topo_get(s, "/pipeline");
    for (int i = 0; i < 60; i++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s %s", i, err.path, err.msg);
        r->y[i] = topo_arr(ball, "position")->r[1];
        const st_array *counts = topo_arr(pipe, "contactCounts");
        r->contacts[i] = 0;
        for (size_t k = 0; k < counts->n; k++)
            r->contacts[i] += counts->u[k];
    }
    r->triangles = topo_arr(topo_get(s, "/Floor/topo"), "triangles")->n;
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void same_as_floor_without_quad_0(bool lagrangian)
{
    run_result cut, direct;
    run(floor_scene(ALL_TRIANGLES, "0 1", lagrangian), &cut);
    run(floor_scene(NO_QUAD_0, NULL, lagrangian), &direct);
    cr_assert_eq(cut.triangles, 6);
    cr_assert_gt(cut.contacts[9], 0, "the ball touches the floor before the change");
    for (int i = 0; i < 60; i++) {
        cr_assert_gt(cut.contacts[i], 0, "step %d: no contact", i);
        cr_assert_eq(cut.contacts[i], direct.contacts[i], "step %d: %u contacts, want %u", i,
                     cut.contacts[i], direct.contacts[i]);
        cr_assert_eq(cut.y[i], direct.y[i], "step %d: ball at y = %.17g, want %.17g", i,
                     cut.y[i], direct.y[i]);
    }
    cr_assert(cut.y[59] > 0.14 && cut.y[59] < 0.16, "the ball rests (y = %g)", cut.y[59]);
}

static void falls_through_the_hole(bool lagrangian)
{
    run_result r;
    run(floor_scene(ALL_TRIANGLES, "6", lagrangian), &r);
    cr_assert_eq(r.triangles, 7);
    cr_assert_gt(r.contacts[9], 0, "the ball touches the floor before the change");
    for (int i = 11; i < 60; i++)
        cr_assert_eq(r.contacts[i], 0, "step %d: %u contacts over the hole", i, r.contacts[i]);
    cr_assert_lt(r.y[59], -0.5, "the ball falls through the hole (y = %g)", r.y[59]);
}

Test(topology_contacts, penalty_contacts_bound_again_after_a_removal)
{
    same_as_floor_without_quad_0(false);
}

Test(topology_contacts, penalty_ball_falls_through_removed_triangle) { falls_through_the_hole(false); }

Test(topology_contacts, lagrangian_contacts_bound_again_after_a_removal)
{
    same_as_floor_without_quad_0(true);
}

Test(topology_contacts, lagrangian_ball_falls_through_removed_triangle)
{
    falls_through_the_hole(true);
}
