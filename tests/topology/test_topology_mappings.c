/* test_topology_mappings.c - topological changes through the topological
 * mappings (SOFA's updateTopologicalMappingTopDown), worked by hand on small
 * meshes from SOFA's algorithms: Tetra2Triangle (exposed faces added,
 * oriented outward of the tetrahedron that stays and rotated to the smallest
 * index, in SOFA's order; flipNormals, noNewTriangles, noInitialTriangles),
 * Hexa2Quad, Quad2Triangle, Triangle2Edge, Hexa2Tetra (no propagation), and
 * the components that follow a changing state or topology: IdentityMapping,
 * BarycentricMapping, collision models, OglModel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(topology_mappings, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic,"              \
    " Sofa.Component.Topology.Container.Grid, Sofa.Component.Topology.Mapping,"                   \
    " Sofa.Component.StateContainer, Sofa.Component.Mapping.Linear,"                              \
    " Sofa.Component.Collision.Geometry, Sofa.GL.Component.Rendering3D]}\n"

static void remove_ids(st_component *topo, st_elem e, const unsigned *ids, size_t n)
{
    st_error err = {0};
    cr_assert_eq(st_topology_remove(topo, e, ids, n, &err), ST_OK, "remove: %s", err.msg);
}

static unsigned nb_points(st_component *c)
{
    return *(unsigned *)st_component_field_ptr(c, st_component_field(c, "nbPoints"));
}

/* ---- Tetra2TriangleTopologicalMapping ----
 *
 * Two tetrahedra sharing the face {1,2,3}: T0 = (0,1,2,3), T1 = (1,2,3,4),
 * both positive. The container's triangles (faces in SOFA's order, slot j
 * opposite vertex j, rotated to the smallest index, first occurrence kept):
 * 0 (1,2,3)  1 (0,3,2)  2 (0,1,3)  3 (0,2,1)  4 (2,3,4)  5 (1,4,3)  6 (1,2,4).
 * Border triangles (one tetrahedron): 1..6, so the output starts as
 * o0 (0,3,2) o1 (0,1,3) o2 (0,2,1) o3 (2,3,4) o4 (1,4,3) o5 (1,2,4),
 * Loc2Glob [1,2,3,4,5,6]; its edges (TriangleSet, oriented as first met):
 * (3,2) (2,0) (0,3) (1,3) (0,1) (2,1) (3,4) (4,2) (1,4). */
static const char *T2T = HEAD "  children:\n"
                              "    - name: T\n"
                              "      objects:\n"
                              "        - TetrahedronSetTopologyContainer: {name: Container, "
                              "position: [0,0,0, 1,0,0, 0,1,0, 0,0,1, 1,1,1], "
                              "tetrahedra: [0,1,2,3, 1,2,3,4]}\n"
                              "        - TetrahedronSetTopologyModifier: {}\n"
                              "        - MechanicalObject: {name: dofs}\n"
                              "      children:\n"
                              "        - name: T2\n"
                              "          objects:\n"
                              "            - TriangleSetTopologyContainer: {name: Container}\n"
                              "            - TriangleSetTopologyModifier: {}\n"
                              "            - Tetra2TriangleTopologicalMapping: {input: "
                              "\"@../Container\", output: \"@Container\"%s}\n"
                              "%s";

static st_scene *t2t_scene(const char *opts, const char *extra)
{
    char yaml[8192];
    snprintf(yaml, sizeof yaml, T2T, opts, extra);
    return topo_scene(&T, yaml);
}

Test(topology_mappings, tetra2triangle_initial_border_and_edges)
{
    st_scene *s = t2t_scene("", "");
    st_component *in = topo_get(s, "/T/Container"), *out = topo_get(s, "/T/T2/Container");
    static const unsigned tris[] = {1, 2, 3, 0, 3, 2, 0, 1, 3, 0, 2, 1, 2, 3, 4, 1, 4, 3, 1, 2, 4};
    topo_assert_tuples(topo_arr(in, "triangles"), 3, tris, 7, "input triangles");
    static const unsigned border[] = {0, 3, 2, 0, 1, 3, 0, 2, 1, 2, 3, 4, 1, 4, 3, 1, 2, 4};
    topo_assert_tuples(topo_arr(out, "triangles"), 3, border, 6, "output triangles");
    static const unsigned edges[] = {3, 2, 2, 0, 0, 3, 1, 3, 0, 1, 2, 1, 3, 4, 4, 2, 1, 4};
    topo_assert_tuples(topo_arr(out, "edges"), 2, edges, 9, "output edges");
    st_scene_destroy(&s);
}

/* Removing T0: SOFA's TETRAHEDRAREMOVED [0]: its face slot 0 (1,2,3) is
 * shared with T1, where it is slot 3: T1[(0,2,1)] = (1,3,2), already
 * rotated; added as o6, Loc2Glob [1,2,3,4,5,6,0]. TRIANGLESREMOVED
 * [3,2,1] (before 7): Loc2Glob entries 3, 2, 1 (locals 2, 1, 0) go, the
 * input's last triangles 6, 5, 4 take their ids: [_,_,_,1,2,3,0]; the
 * output removes [2,1,0] at once (swap with last): o2 <- (1,3,2),
 * o1 <- (1,2,4), o0 <- (1,4,3): [(1,4,3) (1,2,4) (1,3,2) (2,3,4)]. Its
 * isolated edges (2,0) (0,3) (0,1) = [4,2,1] go: e4 <- (1,4), e2 <- (4,2),
 * e1 <- (3,4). Then POINTSREMOVED [0]: point 4 becomes 0 everywhere. */
Test(topology_mappings, tetra2triangle_remove_tetrahedron_adds_exposed_face)
{
    st_scene *s = t2t_scene("", "");
    st_component *in = topo_get(s, "/T/Container"), *out = topo_get(s, "/T/T2/Container");
    remove_ids(in, ST_ELEM_TETRAHEDRON, (const unsigned[]){0}, 1);
    static const unsigned tris[] = {1, 0, 3, 1, 2, 0, 1, 3, 2, 2, 3, 0};
    topo_assert_tuples(topo_arr(out, "triangles"), 3, tris, 4, "output triangles");
    static const unsigned edges[] = {3, 2, 3, 0, 0, 2, 1, 3, 1, 0, 2, 1};
    topo_assert_tuples(topo_arr(out, "edges"), 2, edges, 6, "output edges");
    cr_assert_eq(nb_points(out), 4);
    cr_assert_eq(topo_arr(topo_get(s, "/T/dofs"), "position")->n, 4);
    st_scene_destroy(&s);
}

/* Removing T1: its face slot 3 (1,3,2) is T0's slot 0: T0[(1,2,3)] =
 * (1,2,3), added as o6 (Loc2Glob [1,2,3,4,5,6,0]); TRIANGLESREMOVED [6,5,4]
 * removes locals [5,4,3] (swap with last: each takes (1,2,3) in turn):
 * [(0,3,2) (0,1,3) (0,2,1) (1,2,3)]; edges (3,4) (4,2) (1,4) = [8,7,6] go;
 * point 4 (the last) goes. */
Test(topology_mappings, tetra2triangle_remove_last_tetrahedron)
{
    st_scene *s = t2t_scene("", "");
    st_component *in = topo_get(s, "/T/Container"), *out = topo_get(s, "/T/T2/Container");
    remove_ids(in, ST_ELEM_TETRAHEDRON, (const unsigned[]){1}, 1);
    static const unsigned tris[] = {0, 3, 2, 0, 1, 3, 0, 2, 1, 1, 2, 3};
    topo_assert_tuples(topo_arr(out, "triangles"), 3, tris, 4, "output triangles");
    static const unsigned edges[] = {3, 2, 2, 0, 0, 3, 1, 3, 0, 1, 2, 1};
    topo_assert_tuples(topo_arr(out, "edges"), 2, edges, 6, "output edges");
    cr_assert_eq(nb_points(out), 4);
    st_scene_destroy(&s);
}

/* flipNormals: the initial border is (t0,t2,t1); the exposed face of T0's
 * removal is (1,3,2) flipped to (1,2,3). With noNewTriangles nothing is
 * added: the three triangles of T0 go, T1's three stay. */
Test(topology_mappings, tetra2triangle_flip_normals_and_no_new_triangles)
{
    st_scene *s = t2t_scene(", flipNormals: true", "");
    st_component *in = topo_get(s, "/T/Container"), *out = topo_get(s, "/T/T2/Container");
    static const unsigned init[] = {0, 2, 3, 0, 3, 1, 0, 1, 2, 2, 4, 3, 1, 3, 4, 1, 4, 2};
    topo_assert_tuples(topo_arr(out, "triangles"), 3, init, 6, "flipped border");
    remove_ids(in, ST_ELEM_TETRAHEDRON, (const unsigned[]){0}, 1);
    /* As above with the flipped faces: o2 <- (1,2,3), o1 <- (1,4,2),
     * o0 <- (1,3,4), then point 4 -> 0. */
    static const unsigned tris[] = {1, 3, 0, 1, 0, 2, 1, 2, 3, 2, 0, 3};
    topo_assert_tuples(topo_arr(out, "triangles"), 3, tris, 4, "flipped after removal");
    st_scene_destroy(&s);

    s = t2t_scene(", noNewTriangles: true", "");
    in = topo_get(s, "/T/Container"), out = topo_get(s, "/T/T2/Container");
    remove_ids(in, ST_ELEM_TETRAHEDRON, (const unsigned[]){0}, 1);
    /* Loc2Glob [1..6] -> locals [2,1,0] go (inputs 3,2,1): o2 <- (1,2,4),
     * o1 <- (1,4,3), o0 <- (2,3,4); then point 4 -> 0. */
    static const unsigned none[] = {2, 3, 0, 1, 0, 3, 1, 2, 0};
    topo_assert_tuples(topo_arr(out, "triangles"), 3, none, 3, "noNewTriangles");
    st_scene_destroy(&s);
}

/* noInitialTriangles: the output starts empty; removing T0 adds only the
 * exposed face (1,3,2), then renumbered (no 4 in it): [(1,3,2)]. */
Test(topology_mappings, tetra2triangle_no_initial_triangles)
{
    st_scene *s = t2t_scene(", noInitialTriangles: true", "");
    st_component *in = topo_get(s, "/T/Container"), *out = topo_get(s, "/T/T2/Container");
    cr_assert_eq(topo_arr(out, "triangles")->n, 0);
    remove_ids(in, ST_ELEM_TETRAHEDRON, (const unsigned[]){0}, 1);
    static const unsigned tris[] = {1, 3, 2};
    topo_assert_tuples(topo_arr(out, "triangles"), 3, tris, 1, "only the new face");
    st_scene_destroy(&s);
}
