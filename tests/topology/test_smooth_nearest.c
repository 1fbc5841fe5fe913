/* test_smooth_nearest.c - SmoothMeshEngine on a path 0 - 1 - 2 at x = 0,
 * 1, 5 (one pass: 1, 2.5, 1; two passes: 2.5, 1, 2.5; only point 1: 0,
 * 2.5, 5) and NearestPointROI pairing points of b with the nearest of a
 * within the radius (indices, SOFA's edges 2 i2, 2 i2 + 1, indexPairs and
 * distances), on rest positions. */
#include <math.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(smooth_nearest, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Transform,"                        \
    " Sofa.Component.Engine.Select, Sofa.Component.StateContainer,"                               \
    " Sofa.Component.Topology.Container.Constant]}\n"

static void expect_x(const st_array *x, double a, double b, double c)
{
    cr_assert_eq(x->n, 3);
    cr_assert(x->r[0] == a && x->r[3] == b && x->r[6] == c, "x = %g %g %g, expected %g %g %g",
              x->r[0], x->r[3], x->r[6], a, b, c);
}

Test(smooth_nearest, laplacian_passes)
{
    st_scene *s = topo_scene(&T, HEAD "    - MeshTopology: {position: [0,0,0, 1,0,0, 5,0,0],"
                                      " edges: [0,1, 1,2]}\n"
                                      "    - SmoothMeshEngine: {name: one,"
                                      " input_position: [0,0,0, 1,0,0, 5,0,0]}\n"
                                      "    - SmoothMeshEngine: {name: two, nb_iterations: 2,"
                                      " input_position: [0,0,0, 1,0,0, 5,0,0]}\n"
                                      "    - SmoothMeshEngine: {name: sel, input_indices: [1],"
                                      " input_position: [0,0,0, 1,0,0, 5,0,0]}\n");
    expect_x(topo_arr(topo_get(s, "one"), "output_position"), 1, 2.5, 1);
    expect_x(topo_arr(topo_get(s, "two"), "output_position"), 2.5, 1, 2.5);
    expect_x(topo_arr(topo_get(s, "sel"), "output_position"), 0, 2.5, 5);
    st_scene_destroy(&s);
}

Test(smooth_nearest, nearest_pairs)
{
    st_scene *s = topo_scene(&T, HEAD "    - MechanicalObject: {name: a, position: [0,0,0, 1,0,0]}\n"
                                      "    - MechanicalObject: {name: b, position: [0,0,0.01,"
                                      " 5,0,0, 0.9,0,0]}\n"
                                      "    - NearestPointROI: {name: np, object1: \"@a\","
                                      " object2: \"@b\", radius: 0.5}\n");
    st_component *np = topo_get(s, "np");
    const unsigned i1[] = {0, 1}, i2[] = {0, 2}, e[] = {0, 1, 4, 5}, p[] = {0, 0, 1, 0,
                                                                              0, 1, 1, 2};
    topo_assert_tuples(topo_arr(np, "indices1"), 1, i1, 2, "indices1");
    topo_assert_tuples(topo_arr(np, "indices2"), 1, i2, 2, "indices2");
    cr_assert_eq(topo_arr(np, "indices2")->n, 2);
    topo_assert_tuples(topo_arr(np, "edges"), 2, e, 2, "edges");
    topo_assert_tuples(topo_arr(np, "indexPairs"), 1, p, 8, "indexPairs");
    const st_array *d = topo_arr(np, "distances");
    cr_assert_float_eq(d->r[0], 0.01, 1e-15);
    cr_assert_float_eq(d->r[1], 0.1, 1e-15);
    st_scene_destroy(&s);
}

/* SOFA's NearestPointROI.scn shape: BoxROIs written before the
 * NearestPointROI that reads their indices, in a node whose topology takes
 * its edges from the NearestPointROI. The BoxROIs read the topology's edges
 * at their init, which pulls the NearestPointROI before its turn (SOFA's
 * lazy data links: it is initialised there), which pulls the BoxROIs again
 * (a cycle, closed on their current values as SOFA's DDG does, with a
 * warning). The final pairs use the boxes: b's point at x = 10 pairs with
 * a's point 2, not with a's point 3 at x = 10 (outside box1). */
Test(smooth_nearest, nearest_point_roi_read_before_its_turn)
{
    const char *xml =
        "<Node name='root'>"
        "<RequiredPlugin pluginName='Sofa.Component.Engine.Select'/>"
        "<RequiredPlugin pluginName='Sofa.Component.Topology.Container.Dynamic'/>"
        "<Node name='A'><MechanicalObject name='mo' position='0 0 0  1 0 0  2 0 0  10 0 0'/></Node>"
        "<Node name='B'><MechanicalObject name='mo' position='0 0 0.1  1.2 0 0  10 0 0.2'/></Node>"
        "<Node name='merge'>"
        "<BoxROI name='box1' position='@../A/mo.position' box='-1 -1 -1 3 1 1'/>"
        "<BoxROI name='box2' position='@../B/mo.position' box='-1 -1 -1 11 1 1'/>"
        "<NearestPointROI name='np' object1='@../A/mo' object2='@../B/mo' radius='20'"
        " inputIndices1='@box1.indices' inputIndices2='@box2.indices'/>"
        "<EdgeSetTopologyContainer name='topo' edges='@np.edges'/>"
        "</Node></Node>";
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    cr_assert(strstr(T.log, "their data links form a cycle"), "%s", T.log);
    st_component *np = topo_get(s, "merge/np");
    const unsigned i1[] = {0, 1, 2}, i2[] = {0, 1, 2}, e[] = {0, 1, 2, 3, 4, 5};
    topo_assert_tuples(topo_arr(np, "indices1"), 1, i1, 3, "indices1");
    topo_assert_tuples(topo_arr(np, "indices2"), 1, i2, 3, "indices2");
    topo_assert_tuples(topo_arr(topo_get(s, "merge/topo"), "edges"), 2, e, 3, "topology edges");
    cr_assert_float_eq(topo_arr(np, "distances")->r[2], sqrt(64.0 + 0.04), 1e-12);
    st_scene_destroy(&s);
}
