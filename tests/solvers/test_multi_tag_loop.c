/* test_multi_tag_loop.c - MultiTagAnimationLoop (SOFA's, built in): the
 * loop's own tags, in order, each run the ODE solvers (and the collision
 * pipeline) that carry it. Three falling bodies under their own implicit
 * solvers tagged A, B and C, the loop with "A B": A's and B's bodies move
 * exactly as under DefaultAnimationLoop (the same bits), C's does not move
 * at all (SOFA's visitors skip components without the tag; settee warns,
 * naming the solver), and time advances by dt per step. Without tags the loop warns and only advances
 * time. */
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(multi_tag_loop, .init = setup, .fini = teardown);

#define BODY(NAME, TAG, X)                                                                        \
    "    - name: " NAME "\n"                                                                      \
    "      objects:\n"                                                                            \
    "        - EulerImplicitSolver: {" TAG "rayleighStiffness: 0.1, rayleighMass: 0.1}\n"         \
    "        - CGLinearSolver: {iterations: 25, tolerance: 1e-9, threshold: 1e-9}\n"             \
    "        - MechanicalObject: {name: dofs, position: [" X ",0,0, " X ",1,0, " X ",0,1]}\n"   \
    "        - UniformMass: {totalMass: 1}\n"                                                     \
    "        - MeshSpringForceField: {stiffness: 100}\n"                                          \
    "        - MeshTopology: {edges: [0,1, 1,2, 2,0]}\n"

static st_scene *scene(const char *loop)
{
    char yaml[8192];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: 0.01\n"
             "  gravity: [0, -9.81, 0]\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.ODESolver.Backward,"
             " Sofa.Component.LinearSolver.Iterative, Sofa.Component.Mass,"
             " Sofa.Component.SolidMechanics.Spring, Sofa.Component.Topology.Container.Constant]}\n"
             "    - %s\n"
             "  children:\n" BODY("A", "tags: A, ", "0") BODY("B", "tags: B, ", "3")
                 BODY("C", "tags: C, ", "6"),
             loop);
    return topo_scene(&T, yaml);
}

static const double *pos(st_scene *s, const char *path)
{
    return ((const st_mstate *)topo_get(s, path))->position.r;
}

static void steps(st_scene *s, int n)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, 0.0, &err), ST_OK, "%s", err.msg);
}

Test(multi_tag_loop, tags_run_their_solvers_only)
{
    st_scene *tagged = scene("MultiTagAnimationLoop: {tags: \"A B\"}");
    st_scene *plain = scene("DefaultAnimationLoop: {}");
    double c0[9];
    memcpy(c0, pos(tagged, "C/dofs"), sizeof c0);
    steps(tagged, 20);
    steps(plain, 20);
    cr_assert(memcmp(pos(tagged, "A/dofs"), pos(plain, "A/dofs"), 9 * sizeof(double)) == 0,
              "A's body must move as under DefaultAnimationLoop");
    cr_assert(memcmp(pos(tagged, "B/dofs"), pos(plain, "B/dofs"), 9 * sizeof(double)) == 0,
              "B's body must move as under DefaultAnimationLoop");
    cr_assert(memcmp(pos(tagged, "C/dofs"), c0, sizeof c0) == 0,
              "C's solver has no tag of the loop: its body must not move");
    cr_assert_lt(pos(plain, "C/dofs")[1], -0.01, "under DefaultAnimationLoop C falls");
    cr_assert_not_null(strstr(T.log, "the ODE solver /C/EulerImplicitSolver1 carries none of "
                                     "this loop's tags"),
                       "log: %s", T.log);
    cr_assert_null(strstr(T.log, "/A/EulerImplicitSolver1 carries none"), "log: %s", T.log);
    cr_assert_lt(pos(tagged, "A/dofs")[1], -0.01, "A falls");
    cr_assert_eq(st_node_time(st_scene_root(tagged)), st_node_time(st_scene_root(plain)));
    st_scene_destroy(&tagged);
    st_scene_destroy(&plain);
}

Test(multi_tag_loop, no_tags_warns_and_only_advances_time)
{
    st_scene *s = scene("MultiTagAnimationLoop: {}");
    cr_assert_not_null(strstr(T.log, "no tags"), "log: %s", T.log);
    double a0[9];
    memcpy(a0, pos(s, "A/dofs"), sizeof a0);
    steps(s, 3);
    cr_assert(memcmp(pos(s, "A/dofs"), a0, sizeof a0) == 0);
    cr_assert_float_eq(st_node_time(st_scene_root(s)), 0.03, 1e-15);
    st_scene_destroy(&s);
}
