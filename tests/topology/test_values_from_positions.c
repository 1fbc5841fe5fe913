/* test_values_from_positions.c - ValuesFromPositions: three points at x =
 * 0, 1, 2 and the values 10, 20, 40 interpolated along x (points: 10, 20,
 * 40; the edge 0-1 at its centre: 15; the triangle: 20), one value (all
 * equal), the Vector field type (the direction for every element), an
 * unknown field type refused. */
#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(values_from_positions, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Select]}\n"
#define MESH "position: [0,0,0, 1,0,0, 2,0,0], edges: [0,1], triangles: [0,1,2]"

Test(values_from_positions, scalar_and_vector)
{
    st_scene *s = topo_scene(&T, HEAD "    - ValuesFromPositions: {name: v, " MESH
                                      ", direction: [1,0,0], inputValues: [10,20,40]}\n"
                                      "    - ValuesFromPositions: {name: one, " MESH
                                      ", inputValues: [7]}\n"
                                      "    - ValuesFromPositions: {name: w, " MESH
                                      ", direction: [1,1,0], fieldType: Vector}\n");
    st_component *v = topo_get(s, "v");
    const st_array *pv = topo_arr(v, "values");
    cr_assert_eq(pv->n, 3);
    cr_assert(pv->r[0] == 10 && pv->r[1] == 20 && pv->r[2] == 40, "%g %g %g", pv->r[0], pv->r[1],
              pv->r[2]);
    cr_assert_float_eq(topo_arr(v, "edgeValues")->r[0], 15.0, 1e-12);
    cr_assert_float_eq(topo_arr(v, "triangleValues")->r[0], 20.0, 1e-12);
    cr_assert_eq(topo_arr(v, "tetrahedronValues")->n, 0);
    const st_array *po = topo_arr(topo_get(s, "one"), "values");
    cr_assert(po->n == 3 && po->r[1] == 7);
    st_component *w = topo_get(s, "w");
    const st_array *tv = topo_arr(w, "triangleVectors");
    cr_assert_eq(tv->n, 1);
    cr_assert(tv->r[0] == 1 && tv->r[1] == 1 && tv->r[2] == 0);
    cr_assert_eq(topo_arr(w, "pointVectors")->n, 3);
    cr_assert_eq(topo_arr(w, "values")->n, 0);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - ValuesFromPositions: {fieldType: Tensor}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "Tensor"), "%s", err.msg);
    st_scene_destroy(&s);
}
