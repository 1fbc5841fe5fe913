/* test_subset_topology.c - SubsetTopology: a strip of 6 triangles over
 * the points (x, y) = (0..3, 0..1) split by a box holding x <= 1.5 and by
 * a sphere, with SOFA's local renumbering (border points first), and a
 * two-tetrahedron mesh split by tetrahedraInput. Every list below is
 * worked by hand from SOFA's rules. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(subset_topology, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Select, "                        \
    "Sofa.Component.StateContainer]}\n"

/* Points 0..3 at y = 0, 4..7 at y = 1, x = index mod 4; cell c has the
 * triangles (c, c+1, c+5) and (c, c+5, c+4). */
#define STRIP                                                                                     \
    "rest_position: [[0,0,0],[1,0,0],[2,0,0],[3,0,0],[0,1,0],[1,1,0],[2,1,0],[3,1,0]], "          \
    "edges: [[0,1],[1,2],[2,3]], "                                                                \
    "triangles: [[0,1,5],[0,5,4],[1,2,6],[1,6,5],[2,3,7],[2,7,6]]"

static st_scene *subset(const char *fields)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, HEAD "    - SubsetTopology: {name: s, %s}\n", fields);
    return topo_scene(&T, yaml);
}

static void assert_uints(st_component *c, const char *field, const unsigned *want, size_t n)
{
    const st_array *a = topo_arr(c, field);
    unsigned w = st_type_width(st_component_field(c, field)->type);
    topo_assert_tuples(a, w, want, n, field);
}

/* Box x in [-0.5, 1.5]: points 0 1 4 5 inside; the triangles of cell 0
 * inside, edge 0 inside. */
Test(subset_topology, box_split)
{
    st_scene *sc = subset(STRIP ", box: [1.5, -1, -1, -0.5, 2, 1]"); /* reversed x bounds */
    st_component *s = topo_get(sc, "s");
    assert_uints(s, "indices", (const unsigned[]){0, 1, 4, 5}, 4);
    assert_uints(s, "triangleIndices", (const unsigned[]){0, 1}, 2);
    assert_uints(s, "trianglesInROI", (const unsigned[]){0, 1, 5, 0, 5, 4}, 2);
    assert_uints(s, "trianglesOutROI", (const unsigned[]){1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6}, 4);
    assert_uints(s, "edgeIndices", (const unsigned[]){0}, 1);
    assert_uints(s, "edgesOutROI", (const unsigned[]){1, 2, 2, 3}, 2);
    const st_array *pin = topo_arr(s, "pointsInROI"), *pout = topo_arr(s, "pointsOutROI");
    cr_assert_eq(pin->n, 4);
    cr_assert_eq(pout->n, 4);
    cr_assert(pin->r[3 * 3] == 1 && pin->r[3 * 3 + 1] == 1, "point in 3 is point 5 (1, 1)");
    cr_assert(pout->r[0] == 2 && pout->r[3 * 2] == 2 && pout->r[3 * 2 + 1] == 1);
    cr_assert_eq(*(unsigned *)st_component_field_ptr(s, st_component_field(s, "nbrborder")), 0);
    st_scene_destroy(&sc);
}

/* localIndices: the triangles of cell 1 have vertices on both sides; their
 * inside vertices 1 and 5 are the border (nbrborder 2), first in both point
 * lists. Local numbers: 1 -> 0, 5 -> 1; inside 0 -> 2, 4 -> 3; outside
 * 2 -> 2, 3 -> 3, 6 -> 4, 7 -> 5. */
Test(subset_topology, local_indices)
{
    st_scene *sc = subset(STRIP ", box: [-0.5, -1, -1, 1.5, 2, 1], localIndices: true");
    st_component *s = topo_get(sc, "s");
    cr_assert_eq(*(unsigned *)st_component_field_ptr(s, st_component_field(s, "nbrborder")), 2);
    assert_uints(s, "indices", (const unsigned[]){1, 5, 0, 4}, 4);
    assert_uints(s, "trianglesInROI", (const unsigned[]){2, 0, 1, 2, 1, 3}, 2);
    assert_uints(s, "trianglesOutROI", (const unsigned[]){0, 2, 4, 0, 4, 1, 2, 3, 5, 2, 5, 4}, 4);
    assert_uints(s, "edgesInROI", (const unsigned[]){2, 0}, 1);
    assert_uints(s, "edgesOutROI", (const unsigned[]){0, 2, 2, 3}, 2);
    const st_array *pin = topo_arr(s, "pointsInROI"), *pout = topo_arr(s, "pointsOutROI");
    cr_assert_eq(pin->n, 4);
    cr_assert_eq(pout->n, 6);
    /* out point 1 is the border point 5 at (1, 1); out point 5 is point 7 */
    cr_assert(pout->r[3] == 1 && pout->r[4] == 1);
    cr_assert(pout->r[15] == 3 && pout->r[16] == 1);
    st_scene_destroy(&sc);
}

/* Sphere of radius 1.2 at the origin: points 0, 1 (distance 1) and 4; point
 * 5 is sqrt 2 away. Centers and radii of different counts: a warning and
 * no selection (the outputs keep their defaults: indices "0"). */
Test(subset_topology, spheres)
{
    st_scene *sc = subset(STRIP ", centers: [[0, 0, 0]], radii: [1.2]");
    assert_uints(topo_get(sc, "s"), "indices", (const unsigned[]){0, 1, 4}, 3);
    assert_uints(topo_get(sc, "s"), "triangleIndices", (const unsigned[]){0}, 0);
    st_scene_destroy(&sc);
    sc = subset(STRIP ", centers: [[0, 0, 0]], radii: [1.2, 3]");
    assert_uints(topo_get(sc, "s"), "indices", (const unsigned[]){0}, 1);
    st_scene_destroy(&sc);
}

/* tetrahedraInput [1] on the tetrahedra (0 1 2 3) and (1 2 3 4): the
 * inside points are tetrahedron 1's vertices in order of use, the outside
 * ones tetrahedron 0's; "indices" keeps the default box's points (all 5)
 * before them, as SOFA. localIndices numbers each side's vertices. */
Test(subset_topology, tetrahedra_input)
{
    const char *tets = "rest_position: [[0,0,0],[1,0,0],[0,1,0],[0,0,1],[1,1,1]], "
                       "tetrahedra: [[0,1,2,3],[1,2,3,4]], tetrahedraInput: [1]";
    char f[512];
    snprintf(f, sizeof f, "%s", tets);
    st_scene *sc = subset(f);
    st_component *s = topo_get(sc, "s");
    assert_uints(s, "indices", (const unsigned[]){0, 1, 2, 3, 4, 1, 2, 3, 4}, 9);
    assert_uints(s, "tetrahedronIndices", (const unsigned[]){1}, 1);
    assert_uints(s, "tetrahedraInROI", (const unsigned[]){1, 2, 3, 4}, 1);
    assert_uints(s, "tetrahedraOutROI", (const unsigned[]){0, 1, 2, 3}, 1);
    cr_assert_eq(topo_arr(s, "pointsInROI")->n, 4);
    cr_assert_eq(topo_arr(s, "pointsInROI")->r[0], 1.0); /* point 1 first */
    cr_assert_eq(topo_arr(s, "pointsOutROI")->n, 4);
    st_scene_destroy(&sc);
    snprintf(f, sizeof f, "%s, localIndices: true", tets);
    sc = subset(f);
    s = topo_get(sc, "s");
    assert_uints(s, "tetrahedraInROI", (const unsigned[]){0, 1, 2, 3}, 1);
    assert_uints(s, "tetrahedraOutROI", (const unsigned[]){0, 1, 2, 3}, 1);
    st_scene_destroy(&sc);
}

/* rest_position defaults to the node's state; an element naming a point
 * beyond it is refused with the field's name. */
Test(subset_topology, defaults_and_refusals)
{
    st_scene *sc = topo_scene(
        &T, HEAD "    - MechanicalObject: {name: m, position: [[0,0,0],[5,0,0]]}\n"
                 "    - SubsetTopology: {name: s, edges: [[0, 1]]}\n");
    st_component *s = topo_get(sc, "s");
    assert_uints(s, "indices", (const unsigned[]){0}, 1);
    assert_uints(s, "edgesOutROI", (const unsigned[]){0, 1}, 1);
    cr_assert_eq(topo_arr(s, "pointsOutROI")->n, 1);
    st_scene_destroy(&sc);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T,
                                   HEAD "    - SubsetTopology: {name: s, rest_position: [[0,0,0]], "
                                        "edges: [[0, 3]]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "uses point 3"), "%s", err.msg);
}
