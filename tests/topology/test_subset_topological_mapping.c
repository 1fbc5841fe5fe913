/* test_subset_topological_mapping.c - SubsetTopologicalMapping: the maps
 * between an input topology and an output holding a subset of it, both
 * directions (4294967295, SOFA's InvalidID, where there is none): points
 * by equal coordinates (output points reordered), elements by vertex set
 * whatever their vertex order, through the point map; samePoints (no point
 * maps, elements by the same indices); one-to-one points without
 * positions; an unmatched triangle; different point counts without
 * positions refused; a change of the input stops the run. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(subset_topological_mapping, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic,"             \
    " Sofa.Component.Topology.Container.Constant, Sofa.Component.Topology.Mapping]}\n"

/* Input: the unit square split in two triangles (0 1 2) (0 2 3), plus a
 * triangle (1 4 2) on a fifth point. */
#define INPUT                                                                                     \
    "TriangleSetTopologyContainer: {name: in, position: [0,0,0, 1,0,0, 1,1,0, 0,1,0, 2,0.5,0],"  \
    " triangles: [0,1,2, 0,2,3, 1,4,2]}\n"                                                       \
    "        - TriangleSetTopologyModifier: {}"

static st_scene *scene(const char *output, const char *opts)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "  children:\n"
                  "    - name: In\n"
                  "      objects:\n"
                  "        - " INPUT "\n"
                  "      children:\n"
                  "        - name: Out\n"
                  "          objects:\n"
                  "            - %s\n"
                  "            - SubsetTopologicalMapping: {name: m, input: \"@../in\","
                  " output: \"@out\"%s}\n",
             output, opts);
    return topo_scene(&T, yaml);
}

static void assert_map(st_component *m, const char *field, const unsigned *want, size_t n)
{
    const st_array *a = topo_arr(m, field);
    cr_assert_eq(a->n, n, "%s holds %zu values, expected %zu", field, a->n, n);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(a->u[i], want[i], "%s[%zu] = %u, expected %u", field, i, a->u[i], want[i]);
}

#define NONE UINT_MAX

Test(subset_topological_mapping, points_by_coordinates_and_triangles_by_vertex_set)
{
    /* The output: points 2, 4, 1 of the input (in that order) and the
     * triangle (1 4 2) written from another vertex: (2 1 0) in its
     * numbering. */
    st_scene *s = scene("TriangleSetTopologyContainer: {name: out, position: [1,1,0, 2,0.5,0,"
                        " 1,0,0], triangles: [2,1,0]}",
                        ", handleTriangles: true");
    st_component *m = topo_get(s, "In/Out/m");
    assert_map(m, "pointD2S", (const unsigned[]){2, 4, 1}, 3);
    assert_map(m, "pointS2D", (const unsigned[]){NONE, 2, 0, NONE, 1}, 5);
    assert_map(m, "triangleD2S", (const unsigned[]){2}, 1);
    assert_map(m, "triangleS2D", (const unsigned[]){NONE, NONE, 0}, 3);
    /* Kinds not handled keep empty maps. */
    cr_assert_eq(topo_arr(m, "edgeD2S")->n, 0);
    st_scene_destroy(&s);
}

Test(subset_topological_mapping, same_points_and_an_unmatched_triangle)
{
    /* samePoints: the output's triangles use the input's indices; (0 3 2)
     * is the input's triangle 1 (vertex set {0 2 3}); (0 1 3) is none. */
    st_scene *s = scene("TriangleSetTopologyContainer: {name: out, position: [0,0,0, 1,0,0,"
                        " 1,1,0, 0,1,0, 2,0.5,0], triangles: [0,3,2, 0,1,3]}",
                        ", samePoints: true, handleTriangles: true");
    st_component *m = topo_get(s, "In/Out/m");
    cr_assert_eq(topo_arr(m, "pointD2S")->n, 0, "samePoints: no point maps");
    assert_map(m, "triangleD2S", (const unsigned[]){1, NONE}, 2);
    assert_map(m, "triangleS2D", (const unsigned[]){NONE, 0, NONE}, 3);
    st_scene_destroy(&s);
}

Test(subset_topological_mapping, points_one_to_one_without_positions)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "  children:\n"
                  "    - name: N\n"
                  "      objects:\n"
                  "        - EdgeSetTopologyContainer: {name: in, nbPoints: 3, edges: [0,1, 1,2]}\n"
                  "        - EdgeSetTopologyContainer: {name: out, nbPoints: 3, edges: [2,1]}\n"
                  "        - SubsetTopologicalMapping: {name: m, input: \"@in\", output: \"@out\","
                  " handleEdges: true}\n");
    st_scene *s = topo_scene(&T, yaml);
    st_component *m = topo_get(s, "N/m");
    assert_map(m, "pointD2S", (const unsigned[]){0, 1, 2}, 3);
    assert_map(m, "edgeD2S", (const unsigned[]){1}, 1);
    assert_map(m, "edgeS2D", (const unsigned[]){NONE, 0}, 2);
    st_scene_destroy(&s);
    /* Different counts without positions: SOFA's error. */
    snprintf(yaml, sizeof yaml,
             HEAD "  children:\n"
                  "    - name: N\n"
                  "      objects:\n"
                  "        - EdgeSetTopologyContainer: {name: in, nbPoints: 3, edges: [0,1, 1,2]}\n"
                  "        - EdgeSetTopologyContainer: {name: out, nbPoints: 2, edges: [0,1]}\n"
                  "        - SubsetTopologicalMapping: {name: m, input: \"@in\", output: \"@out\"}\n");
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "must have associated positions"), "%s", err.msg);
}

/* The input's changes follow (SOFA's updateTopologicalMappingTopDown).
 * The output is input points 0 1 2 and triangle 0. Removing input
 * triangle 2 [1,4,2] (and its isolated edges and point 4) touches nothing
 * of the output: the source maps shrink. Removing input triangle 0 then
 * removes the output's triangle; the input's isolated point 1 (its last,
 * 3, moving in) removes output point 1 (its last, 2, moving in). */
Test(subset_topological_mapping, input_changes_follow)
{
    st_scene *s = scene("TriangleSetTopologyContainer: {name: out, position: [0,0,0, 1,0,0,"
                        " 1,1,0], triangles: [0,1,2]}",
                        ", handleTriangles: true");
    st_component *m = topo_get(s, "In/Out/m");
    st_error err = {0};
    unsigned id = 2;
    cr_assert_eq(st_topology_remove(topo_get(s, "In/in"), ST_ELEM_TRIANGLE, &id, 1, &err), ST_OK,
                 "%s", err.msg);
    assert_map(m, "triangleS2D", (const unsigned[]){0, NONE}, 2);
    assert_map(m, "triangleD2S", (const unsigned[]){0}, 1);
    assert_map(m, "pointS2D", (const unsigned[]){0, 1, 2, NONE}, 4);
    cr_assert_eq(topo_arr(topo_get(s, "In/Out/out"), "triangles")->n, 1);
    id = 0;
    cr_assert_eq(st_topology_remove(topo_get(s, "In/in"), ST_ELEM_TRIANGLE, &id, 1, &err), ST_OK,
                 "%s", err.msg);
    assert_map(m, "triangleS2D", (const unsigned[]){NONE}, 1);
    assert_map(m, "triangleD2S", (const unsigned[]){0}, 0);
    assert_map(m, "pointS2D", (const unsigned[]){0, NONE, 1}, 3);
    assert_map(m, "pointD2S", (const unsigned[]){0, 2}, 2);
    const st_array *out = topo_arr(topo_get(s, "In/Out/out"), "triangles");
    const st_array *pos = topo_arr(topo_get(s, "In/Out/out"), "position");
    cr_assert_eq(out->n, 0);
    cr_assert_eq(pos->n, 2);
    cr_assert(pos->r[3] == 1 && pos->r[4] == 1, "output point 1 at (%g %g)", pos->r[3], pos->r[4]);
    st_scene_destroy(&s);
}
