/* test_mesh_select.c - MeshBoundaryROI on a 3 x 3 grid of quads (the 12
 * border points of its 16, not the 4 inner ones; with inputROI the quads
 * left out make new borders; triangles and quads linked from the node's
 * topology when unset) and MeshSubsetEngine (points picked and elements
 * kept and renumbered only when all their points are picked) and MeshSampler
 * (farthest points, then Lloyd) and MeshSplittingEngine (regions, pairs). */
#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(mesh_select, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Select,"                           \
    " Sofa.Component.Topology.Container.Grid]}\n"

/* Points x + 4 y of a 4 x 4 grid; quad (i, j) = b, b+1, b+5, b+4 with b = i + 4 j. */
#define QUADS                                                                                     \
    "quads: [0,1,5,4, 1,2,6,5, 2,3,7,6, 4,5,9,8, 5,6,10,9, 6,7,11,10, 8,9,13,12,"                \
    " 9,10,14,13, 10,11,15,14]"

Test(mesh_select, boundary_of_a_quad_grid)
{
    st_scene *s = topo_scene(&T, HEAD "    - MeshBoundaryROI: {name: a, " QUADS "}\n"
                                      "    - MeshBoundaryROI: {name: b, " QUADS ","
                                      " inputROI: [0,1,2,4,5,6,8,9,10]}\n");
    const unsigned a[] = {0, 1, 2, 3, 4, 7, 8, 11, 12, 13, 14, 15};
    topo_assert_tuples(topo_arr(topo_get(s, "a"), "indices"), 1, a, 12, "border");
    cr_assert_eq(topo_arr(topo_get(s, "a"), "indices")->n, 12);
    /* Only the 4 quads of points 0..10 count: 5 is their inner point. */
    const unsigned b[] = {0, 1, 2, 4, 6, 8, 9, 10};
    topo_assert_tuples(topo_arr(topo_get(s, "b"), "indices"), 1, b, 8, "border in the ROI");
    cr_assert_eq(topo_arr(topo_get(s, "b"), "indices")->n, 8);
    st_scene_destroy(&s);
}

Test(mesh_select, boundary_from_the_nodes_topology)
{
    /* A 3 x 3 point grid without triangles: 8 border points of 9. */
    st_scene *s = topo_scene(&T, HEAD "    - RegularGridTopology: {n: [3,3,1], min: [0,0,0],"
                                      " max: [2,2,0], computeTriangleList: false}\n"
                                      "    - MeshBoundaryROI: {name: r}\n");
    const unsigned want[] = {0, 1, 2, 3, 5, 6, 7, 8};
    const st_array *ix = topo_arr(topo_get(s, "r"), "indices");
    cr_assert_eq(ix->n, 8);
    topo_assert_tuples(ix, 1, want, 8, "grid border");
    st_scene_destroy(&s);
}

Test(mesh_select, subset_renumbers)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - MeshSubsetEngine: {name: m, inputPosition: [0,0,0, 1,0,0, 2,0,0, 3,0,0],"
                 " inputEdges: [0,1, 1,2, 2,3], inputTriangles: [1,2,3, 0,1,3],"
                 " indices: [3,1,2]}\n");
    st_component *m = topo_get(s, "m");
    const st_array *x = topo_arr(m, "position");
    cr_assert_eq(x->n, 3);
    cr_assert(x->r[0] == 3 && x->r[3] == 1 && x->r[6] == 2);
    const unsigned e[] = {1, 2, 2, 0};
    topo_assert_tuples(topo_arr(m, "edges"), 2, e, 2, "edges");
    cr_assert_eq(topo_arr(m, "edges")->n, 2);
    const unsigned t[] = {1, 2, 0};
    topo_assert_tuples(topo_arr(m, "triangles"), 3, t, 1, "triangles");
    cr_assert_eq(topo_arr(m, "triangles")->n, 1);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MeshSubsetEngine: {inputPosition: [0,0,0],"
                                            " indices: [1]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "beyond"), "%s", err.msg);
    st_scene_destroy(&s);
}

/* MeshSampler on 10 points of a line: farthest point sampling takes 0 and
 * 9; Lloyd moves them to the middles of their halves, 2 and 7, and stops;
 * the same with geodesic distances along the chain of edges. */
#define LINE "position: [0,0,0, 1,0,0, 2,0,0, 3,0,0, 4,0,0, 5,0,0, 6,0,0, 7,0,0, 8,0,0, 9,0,0]"

Test(mesh_select, sampler_farthest_then_lloyd)
{
    st_scene *s = topo_scene(&T, HEAD "    - MeshSampler: {name: e, number: 2, " LINE "}\n"
                                      "    - MeshSampler: {name: g, number: 2, " LINE ","
                                      " edges: [0,1, 1,2, 2,3, 3,4, 4,5, 5,6, 6,7, 7,8, 8,9]}\n"
                                      "    - MeshSampler: {name: f, number: 3, maxIter: 0, "
                                      LINE "}\n");
    const unsigned want[] = {2, 7};
    topo_assert_tuples(topo_arr(topo_get(s, "e"), "outputIndices"), 1, want, 2, "Euclidean");
    topo_assert_tuples(topo_arr(topo_get(s, "g"), "outputIndices"), 1, want, 2, "geodesic");
    const st_array *x = topo_arr(topo_get(s, "g"), "outputPosition");
    cr_assert(x->n == 2 && x->r[0] == 2 && x->r[3] == 7);
    /* Without Lloyd: 0, 9, then the farthest from both, 4 (5 ties it, the first wins). */
    const unsigned fps[] = {0, 9, 4};
    topo_assert_tuples(topo_arr(topo_get(s, "f"), "outputIndices"), 1, fps, 3, "farthest points");
    st_scene_destroy(&s);
}

/* MeshSplittingEngine: region 1 takes point 3, region 2 the points of both
 * edges (0 1 2 3), the first region winning point 3; point 4 is left to the
 * remainder, position3. */
Test(mesh_select, splitting_regions_and_pairs)
{
    st_scene *s = topo_scene(&T, HEAD "    - MeshSplittingEngine: {name: m, nbInputs: 2,"
                                      " position: [0,0,0, 1,0,0, 2,0,0, 3,0,0, 4,0,0],"
                                      " edges: [0,1, 2,3], indices1: [3, 17],"
                                      " edgeIndices2: [0, 1]}\n");
    st_component *m = topo_get(s, "m");
    const unsigned pairs[] = {1, 0, 1, 1, 1, 2, 0, 0, 2, 0};
    topo_assert_tuples(topo_arr(m, "indexPairs"), 1, pairs, 10, "indexPairs");
    const st_array *p1 = topo_arr(m, "position1"), *p2 = topo_arr(m, "position2"),
                   *p3 = topo_arr(m, "position3");
    cr_assert(p1->n == 1 && p1->r[0] == 3);
    cr_assert(p2->n == 3 && p2->r[0] == 0 && p2->r[3] == 1 && p2->r[6] == 2);
    cr_assert(p3->n == 1 && p3->r[0] == 4);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MeshSplittingEngine: {nbInputs: 1,"
                                            " position: [0,0,0], indices2: [0]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "raise nbInputs to 2"), "%s", err.msg);
    st_scene_destroy(&s);
}
