/* test_engines_select.c - Engine.Select's PairBoxROI, PlaneROI,
 * PointsFromIndices and ValuesFromIndices: hand-worked selections, SOFA's
 * PlaneROI unit-test values, default links to the node's state and
 * topology, templates, and bad values. */
#include <math.h>
#include <stdio.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(engines_select, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Select,"                           \
    " Sofa.Component.Topology.Container.Grid, Sofa.Component.Topology.Container.Constant]}\n"

static void assert_idx(st_component *c, const char *field, const unsigned *want, size_t n)
{
    topo_assert_tuples(topo_arr(c, field), 1, want, n, field);
}

static void assert_reals(const st_array *a, const double *want, size_t nvals, const char *what)
{
    for (size_t i = 0; i < nvals; i++)
        cr_assert_float_eq(a->r[i], want[i], 1e-14, "%s[%zu] = %g, expected %g", what, i,
                           a->r[i], want[i]);
}

/* ---- PairBoxROI ---- */

Test(engines_select, pair_box_between_the_boxes)
{
    /* Inside [0,1]^3, outside [0.25,0.75]^3 (bounds closed): 0, 2 and 4. */
    st_scene *s = topo_scene(
        &T, HEAD "    - MechanicalObject: {name: dofs, position: [[0,0,0],[0.5,0.5,0.5],[0.9,0,0],"
                 "[2,0,0],[1,1,1],[0.75,0.75,0.75]]}\n"
                 "    - PairBoxROI: {name: roi, inclusiveBox: [1,1,1,0,0,0],"
                 " includedBox: [0.25,0.25,0.25,0.75,0.75,0.75]}\n");
    st_component *r = topo_get(s, "roi");
    const unsigned want[] = {0, 2, 4};
    assert_idx(r, "indices", want, 3);
    const double pts[] = {0, 0, 0, 0.9, 0, 0, 1, 1, 1};
    cr_assert_eq(topo_arr(r, "pointsInBox")->n, 3);
    assert_reals(topo_arr(r, "pointsInROI"), pts, 9, "pointsInROI");
    /* Reversed bounds were swapped. */
    cr_assert_eq(topo_arr(r, "inclusiveBox")->r[0], 0.0);
    st_scene_destroy(&s);
}

Test(engines_select, pair_box_zero_box_computes_nothing)
{
    st_scene *s = topo_scene(&T, HEAD "    - MechanicalObject: {name: dofs, position: [[0,0,0]]}\n"
                                      "    - PairBoxROI: {name: roi, inclusiveBox: [0,0,0,1,1,1]}\n");
    cr_assert_eq(topo_arr(topo_get(s, "roi"), "indices")->n, 0);
    st_scene_destroy(&s);
}

Test(engines_select, pair_box_rigid_uses_centres_and_rest_positions)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - MechanicalObject: {name: dofs, template: Rigid3d, position: "
                 "[[9,9,9,0,0,0,1],[9,9,9,0,0,0,1]], rest_position: [[0.1,0.1,0.1,0,0,0,1],"
                 "[0.5,0.5,0.5,0,0,0.7071067811865476,0.7071067811865476]]}\n"
                 "    - PairBoxROI: {name: roi, inclusiveBox: [0,0,0,1,1,1],"
                 " includedBox: [0.4,0.4,0.4,0.6,0.6,0.6]}\n");
    st_component *r = topo_get(s, "roi");
    const unsigned want[] = {0};
    assert_idx(r, "indices", want, 1);
    const st_array *p = topo_arr(r, "pointsInROI");
    cr_assert_eq(p->n, 1);
    cr_assert_eq(p->r[6], 1.0, "a whole Rigid3d coordinate is copied");
    st_scene_destroy(&s);
}

Test(engines_select, pair_box_box_needs_six_values)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T,
                                   HEAD "    - MechanicalObject: {name: dofs, position: [[0,0,0]]}\n"
                                        "    - PairBoxROI: {inclusiveBox: [0,0,0,1,1]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "inclusiveBox"), "%s", err.msg);
}

/* ---- PlaneROI ---- */

/* SOFA's PlaneROI_test: plane p0 (2,0,0), p1 (0,0,0), p2 (2,2,0), depth 2,
 * i.e. the region [0,2]^2 x [-1,1]. */
#define SOFA_PLANE "plane: [2,0,0, 0,0,0, 2,2,0, 2]"

Test(engines_select, plane_sofa_points_and_edges)
{
    st_scene *s = topo_scene(&T, HEAD "    - PlaneROI: {name: roi, " SOFA_PLANE
                                      ", position: [[1,0,0],[1,1,0],[-1,0,0]],"
                                      " edges: [[0,1],[1,2]]}\n");
    st_component *r = topo_get(s, "roi");
    const unsigned pts[] = {0, 1}, e[] = {0}, ein[] = {0, 1};
    assert_idx(r, "indices", pts, 2);
    assert_idx(r, "edgeIndices", e, 1);
    topo_assert_tuples(topo_arr(r, "edgesInROI"), 2, ein, 1, "edgesInROI");
    st_scene_destroy(&s);
}

Test(engines_select, plane_sofa_triangles_and_tetrahedra)
{
    st_scene *s = topo_scene(&T, HEAD "    - PlaneROI: {name: roi, " SOFA_PLANE
                                      ", position: [[0,0,0],[1,0,0],[1,1,0],[3,0,0]],"
                                      " triangles: [[0,1,2],[1,3,2]]}\n"
                                      "    - PlaneROI: {name: roi2, " SOFA_PLANE
                                      ", position: [[0,0,0],[1,0,0],[1,1,0],[1,0,1],[3,0,0]],"
                                      " tetrahedra: [[0,1,2,3],[1,2,4,3]]}\n");
    const unsigned t[] = {0}, tin[] = {0, 1, 2}, tet[] = {0, 1, 2, 3};
    assert_idx(topo_get(s, "roi"), "triangleIndices", t, 1);
    topo_assert_tuples(topo_arr(topo_get(s, "roi"), "trianglesInROI"), 3, tin, 1, "tris");
    assert_idx(topo_get(s, "roi2"), "tetrahedronIndices", t, 1);
    topo_assert_tuples(topo_arr(topo_get(s, "roi2"), "tetrahedraInROI"), 4, tet, 1, "tetras");
    st_scene_destroy(&s);
}

Test(engines_select, plane_hand_worked_region)
{
    /* p0 (0,0,0), p1 (2,0,0), p2 (2,1,0), depth 0.2: x in [0,2], y in [0,1],
     * z in [-0.1,0.1]. */
    st_scene *s = topo_scene(
        &T, HEAD "    - MechanicalObject: {name: dofs, position: [[1,0.5,0],[1,0.5,0.2],"
                 "[2.5,0.5,0],[0,0,0.1],[1,1.01,0],[2,1,-0.1]]}\n"
                 "    - PlaneROI: {name: roi, plane: [0,0,0, 2,0,0, 2,1,0, 0.2]}\n");
    const unsigned want[] = {0, 3, 5};
    assert_idx(topo_get(s, "roi"), "indices", want, 3);
    st_scene_destroy(&s);
}

Test(engines_select, plane_several_planes_and_node_topology)
{
    /* A 3x1x1 grid of unit cells along x; two thin planes at x = 0 and x = 3
     * take the end faces; elements come from the node's topology. */
    st_scene *s = topo_scene(
        &T, HEAD "    - MechanicalObject: {name: dofs}\n"
                 "    - RegularGridTopology: {name: grid, n: [4,2,2], min: [0,0,0], max: [3,1,1]}\n"
                 "    - PlaneROI: {name: roi, plane: [0,0,0, 0,1,0, 0,1,1, 0.01,"
                 "  3,0,0, 3,1,0, 3,1,1, 0.01]}\n");
    st_component *r = topo_get(s, "roi");
    /* Grid order: x fastest; x = 0 is 0,4,8,12 and x = 3 is 3,7,11,15. */
    const unsigned want[] = {0, 3, 4, 7, 8, 11, 12, 15};
    assert_idx(r, "indices", want, 8);
    /* Two end faces: 2 triangles each, 5 edges each (4 sides + a diagonal). */
    cr_assert_eq(topo_arr(r, "trianglesInROI")->n, 4);
    cr_assert_eq(topo_arr(r, "edgesInROI")->n, 10);
    st_scene_destroy(&s);
}

Test(engines_select, plane_default_selects_everything)
{
    /* SOFA's all-zero default plane is degenerate: every test passes. */
    st_scene *s = topo_scene(&T, HEAD "    - MechanicalObject: {name: dofs, position: [[0,0,0],"
                                      "[5,-3,2]]}\n"
                                      "    - PlaneROI: {name: roi}\n");
    const unsigned want[] = {0, 1};
    assert_idx(topo_get(s, "roi"), "indices", want, 2);
    st_scene_destroy(&s);
}

Test(engines_select, plane_needs_whole_planes)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - PlaneROI: {plane: [0,0,0,1,0,0,1,1,0]}\n", &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "10"), "%s", err.msg);
}

/* ---- PointsFromIndices ---- */

Test(engines_select, points_from_indices_links_the_state)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - MechanicalObject: {name: dofs, position: [[0,0,0],[1,2,3],[4,5,6],[1,2,3]]}\n"
                 "    - PointsFromIndices: {name: pfi, indices: [2, 0, 2, 1, 3]}\n");
    /* Repeated indices and equal coordinates (1 and 3) appear once. */
    const double want[] = {4, 5, 6, 0, 0, 0, 1, 2, 3};
    const st_array *a = topo_arr(topo_get(s, "pfi"), "indices_position");
    cr_assert_eq(a->n, 3);
    assert_reals(a, want, 9, "indices_position");
    st_scene_destroy(&s);
}

Test(engines_select, points_from_indices_bad_index)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - PointsFromIndices: {position: [[0,0,0]],"
                                            " indices: [1]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "index 1"), "%s", err.msg);
}

/* ---- ValuesFromIndices ---- */

Test(engines_select, values_from_indices_vec3_and_vec1)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - ValuesFromIndices: {name: v3, template: Vec3, in: [[1,2,3],[4,5,6]],"
                 " indices: [1, 0, 1]}\n"
                 "    - ValuesFromIndices: {name: v1, template: Vec1d, input: [0.5, 1.5, 2.5],"
                 " indices: [2, 0]}\n"
                 "    - ValuesFromIndices: {name: chained, template: Vec1d, in: \"@v1.out\","
                 " indices: [1]}\n");
    const double w3[] = {4, 5, 6, 1, 2, 3, 4, 5, 6}, w1[] = {2.5, 0.5};
    st_component *v3 = topo_get(s, "v3");
    cr_assert_eq(topo_arr(v3, "output")->n, 3);
    assert_reals(topo_arr(v3, "out"), w3, 9, "out");
    char **str = st_component_field_ptr(v3, st_component_field(v3, "outStr"));
    cr_assert_str_eq(*str, "4 5 6 1 2 3 4 5 6");
    assert_reals(topo_arr(topo_get(s, "v1"), "out"), w1, 2, "out");
    cr_assert_eq(topo_arr(topo_get(s, "chained"), "out")->r[0], 0.5);
    st_scene_destroy(&s);
}

Test(engines_select, values_from_indices_bad_index)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - ValuesFromIndices: {in: [[1,2,3]],"
                                            " indices: [0, 4]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "4 >= 1"), "%s", err.msg);
}
