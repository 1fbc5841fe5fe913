/* test_engines_analyze.c - Engine.Analyze: AverageCoord (mean of all
 * points, of some indices, of rest positions; recomputed at each step's
 * start as the points move), HausdorffDistance (two clouds whose directed
 * distances differ: d12 = 1, d21 = 3) and a string field linked to a
 * coordinate (OglLabel's label showing "@avg.average" as its text, SOFA's
 * conversion of any data into a string). */
#include <math.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(engines_analyze, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Analyze,"                          \
    " Sofa.Component.StateContainer, Sofa.GL.Component.Rendering2D]}\n"                          \
    "    - DefaultAnimationLoop: {}\n"

static double real_of(st_component *c, const char *f)
{
    return *(double *)st_component_field_ptr(c, st_component_field(c, f));
}

Test(engines_analyze, average_coord)
{
    st_scene *s = topo_scene(&T, HEAD "    - MechanicalObject: {name: dofs, position: [0,0,0, 2,0,0,"
                                      " 4,6,0], rest_position: [1,1,1, 1,1,1, 4,4,4],"
                                      " velocity: [0,0,0, 0,0,0, 0,0,3]}\n"
                                      "    - AverageCoord: {name: all}\n"
                                      "    - AverageCoord: {name: some, indices: [0,2]}\n"
                                      "    - AverageCoord: {name: rest, vecId: 2}\n"
                                      "    - OglLabel: {name: label, label: \"@all.average\"}\n");
    const st_array *a = topo_arr(topo_get(s, "all"), "average");
    cr_assert_eq(a->n, 1);
    cr_assert(a->r[0] == 2 && a->r[1] == 2 && a->r[2] == 0);
    const st_array *b = topo_arr(topo_get(s, "some"), "average");
    cr_assert(b->r[0] == 2 && b->r[1] == 3 && b->r[2] == 0);
    const st_array *r = topo_arr(topo_get(s, "rest"), "average");
    cr_assert(r->r[0] == 2 && r->r[1] == 2 && r->r[2] == 2);
    st_component *l = topo_get(s, "label");
    st_error err = {0};
    cr_assert_eq(st_component_update_inputs(l, &err), ST_OK, "%s", err.msg);
    const char *text = *(char **)st_component_field_ptr(l, st_component_field(l, "label"));
    cr_assert_str_eq(text, "2 2 0");
    /* No solver: the point keeps still; a step recomputes from the state. */
    st_mstate *ms = (st_mstate *)topo_get(s, "dofs");
    ms->position.r[8] = 3;
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_float_eq(topo_arr(topo_get(s, "all"), "average")->r[2], 1.0, 1e-15);
    st_scene_destroy(&s);
}

Test(engines_analyze, hausdorff_distance)
{
    /* 1 -> 2: (0,0,0) is 1 from (1,0,0); 2 -> 1: (4,0,0) is 3 from (1,0,0)... */
    st_scene *s = topo_scene(&T, HEAD "    - HausdorffDistance: {name: h, points1: [0,0,0, 1,0,0],"
                                      " points2: [1,0,0, 4,0,0]}\n");
    st_component *h = topo_get(s, "h");
    cr_assert_float_eq(real_of(h, "d12"), 1.0, 1e-15);
    cr_assert_float_eq(real_of(h, "d21"), 3.0, 1e-15);
    cr_assert_float_eq(real_of(h, "max"), 3.0, 1e-15);
    st_scene_destroy(&s);
}
