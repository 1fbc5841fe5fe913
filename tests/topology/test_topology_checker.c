/* test_topology_checker.c - TopologyChecker (SOFA's, in
 * Sofa.Component.Topology.Utility): consistent containers pass (a
 * tetrahedral block whose lists the container derived, and again after
 * tetrahedra are removed during the run, with eachStep); lists given
 * inconsistently are reported with SOFA's wording: an edge missing from a
 * triangle's edges, a triangle with two identical vertices, a hexahedron's
 * face missing from the quads; SOFA checks at
 * reinit and with eachStep, not at init. */
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(topology_checker, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  dt: 0.01\n"                                                                                \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic,"             \
    " Sofa.Component.Topology.Container.Constant, Sofa.Component.Topology.Utility,"               \
    " Sofa.Component.StateContainer]}\n"

static bool checked_ok(st_scene *s)
{
    st_component *c = topo_get(s, "checker");
    return *(bool *)st_component_field_ptr(c, st_component_field(c, "checkTopology"));
}

/* Runs the check now (SOFA's reinit). */
static void reinit(st_scene *s)
{
    st_component *c = topo_get(s, "checker");
    st_error err = {0};
    cr_assert_eq(c->cls->reinit(c, &err), ST_OK, "%s", err.msg);
}

static st_scene *container(const char *topology)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "    - %s\n"
                  "    - TopologyChecker: {name: checker, topology: \"@topo\"}\n",
             topology);
    return topo_scene(&T, yaml);
}

Test(topology_checker, derived_lists_are_consistent)
{
    st_scene *s = container("TetrahedronSetTopologyContainer: {name: topo, position: [0,0,0,"
                            " 1,0,0, 0,1,0, 0,0,1, 1,1,1], tetrahedra: [0,1,2,3, 1,2,3,4]}");
    reinit(s);
    cr_assert(checked_ok(s), "log: %s", T.log);
    cr_assert_null(strstr(T.log, "failed"), "log: %s", T.log);
    st_scene_destroy(&s);
}

Test(topology_checker, not_at_init)
{
    st_scene *s = container("MeshTopology: {name: topo, position: [0,0,0, 1,0,0, 0,1,0],"
                            " triangles: [0,1,2], edges: [0,1]}");
    cr_assert(checked_ok(s), "SOFA checks at reinit and each step only");
    cr_assert_null(strstr(T.log, "failed"), "log: %s", T.log);
    st_scene_destroy(&s);
}

Test(topology_checker, missing_edges_of_a_triangle)
{
    /* edges given: only 0-1; the triangle's 1-2 and 2-0 are missing */
    st_scene *s = container("MeshTopology: {name: topo, position: [0,0,0, 1,0,0, 0,1,0],"
                            " triangles: [0,1,2], edges: [0,1]}");
    reinit(s);
    cr_assert_not(checked_ok(s));
    cr_assert_not_null(strstr(T.log, "CheckTriangleTopology failed: EdgesInTriangle of triangle 0"
                                     " has an invalid ID: its edge 1 [1 2]"),
                       "log: %s", T.log);
    cr_assert_not_null(strstr(T.log, "its edge 2 [0 2]"), "log: %s", T.log);
    st_scene_destroy(&s);
}

/* (A vertex beyond the points is refused by the containers at init already,
 * with the scene's line.) */
Test(topology_checker, identical_vertices)
{
    st_scene *s = container("MeshTopology: {name: topo, position: [0,0,0, 1,0,0, 0,1,0],"
                            " triangles: [0,0,1, 0,1,2]}");
    reinit(s);
    cr_assert_not(checked_ok(s));
    cr_assert_not_null(strstr(T.log, "CheckTriangleTopology failed: triangle 0 has 2 identical "
                                     "vertices: 0 0 1"),
                       "log: %s", T.log);
    cr_assert_null(strstr(T.log, "triangle 1 has"), "log: %s", T.log);
    st_scene_destroy(&s);
}

Test(topology_checker, hexahedron_face_missing)
{
    /* the unit cube with its quads given but the top one (4 5 6 7) left out */
    st_scene *s = container(
        "MeshTopology: {name: topo, position: [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1,"
        " 0,1,1], hexahedra: [0,1,2,3,4,5,6,7], quads: [0,1,2,3, 0,1,5,4, 1,2,6,5, 2,3,7,6,"
        " 3,0,4,7]}");
    reinit(s);
    cr_assert_not(checked_ok(s));
    cr_assert_not_null(strstr(T.log, "CheckHexahedronTopology failed: QuadsInHexahedron of "
                                     "hexahedron 0 has an invalid ID: its quad 1 [4 5 6 7]"),
                       "log: %s", T.log);
    st_scene_destroy(&s);
}

/* eachStep: checked at the end of every step, here across removals. */
Test(topology_checker, each_step_across_removals)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "    - TetrahedronSetTopologyContainer: {name: topo, position: [0,0,0, 1,0,0,"
                  " 0,1,0, 0,0,1, 1,1,1, 2,2,2], tetrahedra: [0,1,2,3, 1,2,3,4, 2,3,4,5]}\n"
                  "    - TetrahedronSetTopologyModifier: {}\n"
                  "    - TopologyChecker: {name: checker, topology: \"@topo\", eachStep: true}\n");
    st_scene *s = topo_scene(&T, yaml);
    st_error err = {0};
    const unsigned id = 1;
    cr_assert_eq(st_topology_remove(topo_get(s, "topo"), ST_ELEM_TETRAHEDRON, &id, 1, &err), ST_OK,
                 "%s", err.msg);
    cr_assert_eq(st_scene_step(s, 0.0, &err), ST_OK, "%s", err.msg);
    cr_assert(checked_ok(s), "log: %s", T.log);
    cr_assert_null(strstr(T.log, "failed"), "log: %s", T.log);
    st_scene_destroy(&s);
}

Test(topology_checker, each_step_runs_the_check)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "    - MeshTopology: {name: topo, position: [0,0,0, 1,0,0, 0,1,0],"
                  " triangles: [0,1,2], edges: [0,1]}\n"
                  "    - TopologyChecker: {name: checker, topology: \"@topo\", eachStep: true}\n");
    st_scene *s = topo_scene(&T, yaml);
    cr_assert(checked_ok(s));
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0.0, &err), ST_OK, "%s", err.msg);
    cr_assert_not(checked_ok(s), "eachStep: the end of the step checks");
    st_scene_destroy(&s);
}
