/* test_mesh2point.c - Mesh2PointTopologicalMapping: points made from the
 * input's points (offsets), edges (midpoints), triangles, quads (SOFA's
 * corner order: q2 weighs (1-fx) fy, so (0.25, 0.5) on the unit square
 * (0,0) (1,0) (1,1) (0,1) is (0.5, 0.5), not the bilinear (0.25, 0.5)),
 * tetrahedra and hexahedra (trilinear: the unit cube maps (fx, fy, fz) to
 * itself); the copies of edges onto the first point of each point; the
 * copy refused without pointBaryCoords; a change of the input stops the
 * run. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(mesh2point, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic,"             \
    " Sofa.Component.Topology.Container.Constant, Sofa.Component.Topology.Mapping,"               \
    " Sofa.Component.StateContainer]}\n"

static st_scene *scene(const char *input, const char *opts)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "  children:\n"
                  "    - name: In\n"
                  "      objects:\n"
                  "        - %s\n"
                  "      children:\n"
                  "        - name: Out\n"
                  "          objects:\n"
                  "            - EdgeSetTopologyContainer: {name: c}\n"
                  "            - Mesh2PointTopologicalMapping: {name: m, input: \"@../in\","
                  " output: \"@c\", %s}\n"
                  "            - MechanicalObject: {name: dofs}\n",
             input, opts);
    return topo_scene(&T, yaml);
}

static void assert_point(const st_array *x, size_t i, double a, double b, double c)
{
    cr_assert_lt(i, x->n, "point %zu of %zu", i, x->n);
    const double *p = x->r + 3 * i;
    cr_assert(fabs(p[0] - a) < 1e-15 && fabs(p[1] - b) < 1e-15 && fabs(p[2] - c) < 1e-15,
              "point %zu is (%g %g %g), expected (%g %g %g)", i, p[0], p[1], p[2], a, b, c);
}

#define SQUARE                                                                                    \
    "MeshTopology: {name: in, position: [0,0,0, 1,0,0, 1,1,0, 0,1,0], quads: [0,1,2,3],"       \
    " edges: [0,1, 1,2], triangles: [0,1,2]}"

Test(mesh2point, points_edges_triangles_quads_in_sofa_order)
{
    st_scene *s = scene(SQUARE, "pointBaryCoords: [0,0,0, 0,0,1], edgeBaryCoords: [0.5,0,0],"
                                " triangleBaryCoords: [0.5,0.25,0], quadBaryCoords: [0.25,0.5,0],"
                                " copyEdges: true");
    st_component *c = topo_get(s, "In/Out/c");
    const st_array *x = topo_arr(c, "position");
    /* 4 points x 2, 2 edges, 1 triangle, 1 quad. */
    cr_assert_eq(x->n, 12, "%zu points", x->n);
    assert_point(x, 0, 0, 0, 0);
    assert_point(x, 1, 0, 0, 1);
    assert_point(x, 7, 0, 1, 1);
    assert_point(x, 8, 0.5, 0, 0);
    assert_point(x, 9, 1, 0.5, 0);
    /* (1 - .5 - .25) (0,0) + .5 (1,0) + .25 (1,1) */
    assert_point(x, 10, 0.75, 0.25, 0);
    assert_point(x, 11, 0.5, 0.5, 0);
    const unsigned e[] = {0, 2, 2, 4};
    topo_assert_tuples(topo_arr(c, "edges"), 2, e, 2, "edges copied onto the first points");
    cr_assert_eq(*(unsigned *)st_component_field_ptr(c, st_component_field(c, "nbPoints")), 12);
    cr_assert_eq(topo_arr(topo_get(s, "In/Out/dofs"), "position")->n, 12);
    st_scene_destroy(&s);
}

Test(mesh2point, tetra_and_hexa_coordinates)
{
    st_scene *s = scene("MeshTopology: {name: in, position: [0,0,0, 1,0,0, 1,1,0, 0,1,0,"
                        " 0,0,1, 1,0,1, 1,1,1, 0,1,1], hexahedra: [0,1,2,3,4,5,6,7],"
                        " tetrahedra: [0,1,3,4]}",
                        "tetraBaryCoords: [0.25,0.25,0.25, 0.1,0.2,0.3],"
                        " hexaBaryCoords: [0.25,0.5,0.75]");
    const st_array *x = topo_arr(topo_get(s, "In/Out/c"), "position");
    cr_assert_eq(x->n, 3);
    /* (0,0,0)(1-.75) + .25 (1,0,0) + .25 (0,1,0) + .25 (0,0,1) */
    assert_point(x, 0, 0.25, 0.25, 0.25);
    assert_point(x, 1, 0.1, 0.2, 0.3);
    assert_point(x, 2, 0.25, 0.5, 0.75);
    st_scene_destroy(&s);
}

Test(mesh2point, copy_without_point_coords_is_turned_off)
{
    st_scene *s = scene(SQUARE, "edgeBaryCoords: [0.5,0,0], copyEdges: true");
    st_component *m = topo_get(s, "In/Out/m");
    cr_assert_not(*(bool *)st_component_field_ptr(m, st_component_field(m, "copyEdges")));
    cr_assert_eq(topo_arr(topo_get(s, "In/Out/c"), "position")->n, 2);
    cr_assert_eq(topo_arr(topo_get(s, "In/Out/c"), "edges")->n, 0);
    st_scene_destroy(&s);
}

Test(mesh2point, input_change_stops_the_run)
{
    st_scene *s = scene("TetrahedronSetTopologyContainer: {name: in, position: [0,0,0, 1,0,0,"
                        " 0,1,0, 0,0,1, 1,1,1], tetrahedra: [0,1,2,3, 1,2,3,4]}\n"
                        "        - TetrahedronSetTopologyModifier: {}",
                        "tetraBaryCoords: [0.25,0.25,0.25]");
    cr_assert_eq(topo_arr(topo_get(s, "In/Out/c"), "position")->n, 2);
    st_error err = {0};
    const unsigned id = 0;
    cr_assert_neq(st_topology_remove(topo_get(s, "In/in"), ST_ELEM_TETRAHEDRON, &id, 1, &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "Mesh2PointTopologicalMapping") || strstr(err.msg, "/In/Out/m"),
              "%s", err.msg);
    st_scene_destroy(&s);
}
