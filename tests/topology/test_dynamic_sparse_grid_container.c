/* test_dynamic_sparse_grid_container.c - DynamicSparseGridTopologyContainer:
 * two unit hexahedra side by side, the occupied voxels 4 and 1 of a
 * 3 x 2 x 1 voxel grid (voxel index = x + 3 y). init builds the reverse map
 * (voxel 1 -> hexahedron 1, voxel 4 -> hexahedron 0) and the dense
 * occupancy (255 on voxels 1 and 4). Bad voxel indices are refused. */
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(dynamic_sparse_grid_container, .init = setup, .fini = teardown);

#define SCENE(extra)                                                                              \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic]}\n"         \
    "    - DynamicSparseGridTopologyContainer: {name: g, resolution: [3, 2, 1], "               \
    "position: [[1,1,0],[2,1,0],[2,2,0],[1,2,0],[1,1,1],[2,1,1],[2,2,1],[1,2,1],"              \
    "[1,0,0],[1,0,1],[2,0,0],[2,0,1]], "                                                          \
    "hexahedra: [[0,1,2,3,4,5,6,7],[8,10,1,0,9,11,5,4]], " extra "}\n"                        \
    "    - DynamicSparseGridTopologyModifier: {name: mod}\n"                                     \
    "    - DynamicSparseGridGeometryAlgorithms: {name: geo}\n"

Test(dynamic_sparse_grid_container, maps_voxels_and_hexahedra)
{
    st_scene *sc = topo_scene(&T, SCENE("idxInRegularGrid: [4, 1], voxelSize: [1, 1, 1]"));
    st_component *g = topo_get(sc, "g");
    topo_assert_tuples(topo_arr(g, "idInRegularGrid2IndexInTopo"), 1,
                       (const unsigned[]){1, 1, 4, 0}, 4, "idInRegularGrid2IndexInTopo");
    topo_assert_tuples(topo_arr(g, "valuesIndexedInRegularGrid"), 1,
                       (const unsigned[]){0, 255, 0, 0, 255, 0}, 6, "valuesIndexedInRegularGrid");
    topo_assert_tuples(topo_arr(g, "valuesIndexedInTopology"), 1, (const unsigned[]){255, 255},
                       2, "valuesIndexedInTopology");
    /* Still a hexahedron container: its quads are derived. */
    cr_assert_eq(topo_arr(g, "hexahedra")->n, 2);
    st_scene_destroy(&sc);
}

Test(dynamic_sparse_grid_container, keeps_given_topology_values)
{
    st_scene *sc =
        topo_scene(&T, SCENE("idxInRegularGrid: [4, 1], valuesIndexedInTopology: [7, 9]"));
    topo_assert_tuples(topo_arr(topo_get(sc, "g"), "valuesIndexedInTopology"), 1,
                       (const unsigned[]){7, 9}, 2, "valuesIndexedInTopology");
    st_scene_destroy(&sc);
}

Test(dynamic_sparse_grid_container, refuses_bad_voxels)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, SCENE("idxInRegularGrid: [4, 6]"), &err), ST_OK);
    cr_assert(strstr(err.msg, "outside"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, SCENE("idxInRegularGrid: [4, 4]"), &err), ST_OK);
    cr_assert(strstr(err.msg, "two hexahedra"), "%s", err.msg);
}

/* MultilevelHexahedronSetTopologyContainer on the same two voxels: at init
 * each hexahedron is its own component on both levels. */
#define MULTI(extra)                                                                              \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic]}\n"         \
    "    - MultilevelHexahedronSetTopologyContainer: {name: m, level: 1, resolution: [3, 2, 1], " \
    "position: [[1,1,0],[2,1,0],[2,2,0],[1,2,0],[1,1,1],[2,1,1],[2,2,1],[1,2,1],"              \
    "[1,0,0],[1,0,1],[2,0,0],[2,0,1]], "                                                          \
    "hexahedra: [[0,1,2,3,4,5,6,7],[8,10,1,0,9,11,5,4]], " extra "}\n"

Test(dynamic_sparse_grid_container, multilevel_one_voxel_components)
{
    st_scene *sc = topo_scene(&T, MULTI("idxInRegularGrid: [4, 1]"));
    st_component *m = topo_get(sc, "m");
    topo_assert_tuples(topo_arr(m, "fineComponents"), 1, (const unsigned[]){4, 1}, 2,
                       "fineComponents");
    topo_assert_tuples(topo_arr(m, "coarseComponents"), 1, (const unsigned[]){4, 1}, 2,
                       "coarseComponents");
    st_scene_destroy(&sc);
}

Test(dynamic_sparse_grid_container, multilevel_refuses_bad_indices)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, MULTI("idxInRegularGrid: [4]"), &err), ST_OK);
    cr_assert(strstr(err.msg, "one voxel index per"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, MULTI("idxInRegularGrid: [4, 9]"), &err), ST_OK);
    cr_assert(strstr(err.msg, "outside"), "%s", err.msg);
}
