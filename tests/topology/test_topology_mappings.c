/* test_topology_mappings.c - topological changes through the topological
 * mappings (SOFA's updateTopologicalMappingTopDown), worked by hand on small
 * meshes from SOFA's algorithms: Tetra2Triangle (exposed faces added,
 * oriented outward of the tetrahedron that stays and rotated to the smallest
 * index, in SOFA's order; flipNormals, noNewTriangles, noInitialTriangles),
 * Hexa2Quad, Quad2Triangle, Triangle2Edge, Hexa2Tetra (no propagation), and
 * the components that follow a changing state or topology: IdentityMapping,
 * BarycentricMapping, collision models, OglModel. */
#include <math.h>
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

/* Adding T1 to a container holding T0 alone (SOFA's addTetrahedra, then
 * the mapping's EDGESADDED and TETRAHEDRAADDED). T0's triangles, derived:
 * 0 (1,2,3) 1 (0,3,2) 2 (0,1,3) 3 (0,2,1), all on the border: the output
 * o0..o3 the same, Loc2Glob [0,1,2,3], its edges (2,3) (3,1) (1,2) (2,0)
 * (0,3) (0,1). T1 = (1,2,3,4) adds the input's triangles 4 (2,3,4),
 * 5 (1,4,3), 6 (2,4,1) (SOFA's slot orientation, not rotated) and edges
 * (3,4) (4,2) (1,4), which the output adds too. Its slots 0..2 are on the
 * border and not mapped: o4 (2,3,4) o5 (1,4,3) o6 (2,4,1), as the input
 * holds them; slot 3 is triangle 0, now held by two tetrahedra: o0 goes,
 * o6 takes its place: [(2,4,1) (0,3,2) (0,1,3) (0,2,1) (2,3,4) (1,4,3)],
 * the border of the two tetrahedra. No edge is left isolated. */
Test(topology_mappings, tetra2triangle_added_tetrahedron_covers_a_face)
{
    static const char *one =
        HEAD "  children:\n"
             "    - name: T\n"
             "      objects:\n"
             "        - TetrahedronSetTopologyContainer: {name: Container, "
             "position: [0,0,0, 1,0,0, 0,1,0, 0,0,1, 1,1,1], tetrahedra: [0,1,2,3]}\n"
             "        - TetrahedronSetTopologyModifier: {}\n"
             "        - MechanicalObject: {name: dofs}\n"
             "      children:\n"
             "        - name: T2\n"
             "          objects:\n"
             "            - TriangleSetTopologyContainer: {name: Container}\n"
             "            - TriangleSetTopologyModifier: {}\n"
             "            - Tetra2TriangleTopologicalMapping: {input: \"@../Container\", "
             "output: \"@Container\"}\n";
    st_scene *s = topo_scene(&T, one);
    st_component *in = topo_get(s, "/T/Container"), *out = topo_get(s, "/T/T2/Container");
    static const unsigned before[] = {1, 2, 3, 0, 3, 2, 0, 1, 3, 0, 2, 1};
    topo_assert_tuples(topo_arr(out, "triangles"), 3, before, 4, "output triangles before");
    st_error err = {0};
    cr_assert_eq(st_topology_add(in, ST_ELEM_TETRAHEDRON, (const unsigned[]){1, 2, 3, 4}, 1,
                                 &err),
                 ST_OK, "add: %s", err.msg);
    static const unsigned tris[] = {1, 2, 3, 0, 3, 2, 0, 1, 3, 0, 2, 1,
                                    2, 3, 4, 1, 4, 3, 2, 4, 1};
    topo_assert_tuples(topo_arr(in, "triangles"), 3, tris, 7, "input triangles");
    static const unsigned border[] = {2, 4, 1, 0, 3, 2, 0, 1, 3, 0, 2, 1, 2, 3, 4, 1, 4, 3};
    topo_assert_tuples(topo_arr(out, "triangles"), 3, border, 6, "output triangles");
    static const unsigned edges[] = {2, 3, 3, 1, 1, 2, 2, 0, 0, 3, 0, 1, 3, 4, 4, 2, 1, 4};
    topo_assert_tuples(topo_arr(out, "edges"), 2, edges, 9, "output edges");
    /* Removing T1 again gives T0's border back (its slot 0 exposed). */
    remove_ids(in, ST_ELEM_TETRAHEDRON, (const unsigned[]){1}, 1);
    cr_assert_eq(topo_arr(out, "triangles")->n, 4);
    st_scene_destroy(&s);
}

/* Points added to the input (SOFA's POINTSADDED): the output adds as many,
 * the state the input's point in the middle of the edge (1, 4). */
Test(topology_mappings, tetra2triangle_points_added_reach_the_output)
{
    st_scene *s = t2t_scene("", "");
    st_component *in = topo_get(s, "/T/Container"), *out = topo_get(s, "/T/T2/Container");
    cr_assert_eq(nb_points(out), 5);
    st_error err = {0};
    const size_t start[] = {0, 2};
    cr_assert_eq(st_topology_add_points(in, 1, start, (const unsigned[]){1, 4},
                                        (const double[]){0.5, 0.5}, &err),
                 ST_OK, "add: %s", err.msg);
    cr_assert_eq(nb_points(out), 6);
    const st_array *x = topo_arr(topo_get(s, "/T/dofs"), "position");
    cr_assert_eq(x->n, 6);
    cr_assert(x->r[15] == 1.0 && x->r[16] == 0.5 && x->r[17] == 0.5, "(%g %g %g)", x->r[15],
              x->r[16], x->r[17]);
    cr_assert_eq(topo_arr(in, "position")->n, 6, "the input's own positions follow");
    cr_assert_eq(topo_arr(out, "triangles")->n, 6, "no element changes");
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

/* A mapping from a container of `in_class` holding `in_fields` to an
 * `out_class` container in a child node. */
static st_scene *chain(const char *in_class, const char *in_fields, const char *out_class,
                       const char *mapping)
{
    char yaml[8192];
    snprintf(yaml, sizeof yaml,
             HEAD "  children:\n"
                  "    - name: A\n"
                  "      objects:\n"
                  "        - %sTopologyContainer: {name: Container, %s}\n"
                  "        - %sTopologyModifier: {}\n"
                  "        - MechanicalObject: {name: dofs}\n"
                  "      children:\n"
                  "        - name: B\n"
                  "          objects:\n"
                  "            - %sTopologyContainer: {name: Container}\n"
                  "            - %sTopologyModifier: {}\n"
                  "            - %s: {input: \"@../Container\", output: \"@Container\"}\n",
             in_class, in_fields, in_class, out_class, out_class, mapping);
    return topo_scene(&T, yaml);
}

/* ---- Hexa2QuadTopologicalMapping ----
 * Points x + 3y + 6z (x 0..2, y, z 0..1); H0 = (0,1,4,3,6,7,10,9),
 * H1 = (1,2,5,4,7,8,11,10). The container's quads (faces in SOFA's
 * QuadsInHexahedron order, rotated to the smallest index, first kept):
 * q0 (0,3,4,1) q1 (6,7,10,9) q2 (0,1,7,6) q3 (1,4,10,7) q4 (3,9,10,4)
 * q5 (0,6,9,3) q6 (1,4,5,2) q7 (7,8,11,10) q8 (1,2,8,7) q9 (2,5,11,8)
 * q10 (4,10,11,5). Border: all but q3; Loc2Glob [0,1,2,4,5,6,7,8,9,10].
 * Removing H0: HEXAHEDRAREMOVED [0]: q3 is H1's slot 5:
 * H1[(3,0,4,7)] = (4,1,7,10), added as o10 (Loc2Glob ... ,3). QUADSREMOVED
 * [5,4,2,1,0], one quad at a time, each removal moving the output's last
 * quad into the hole and the input's last id onto the removed one:
 * g5: o4 <- o10; g4: o3 <- q10; g2: o2 <- q9; g1: o1 <- q8; g0: o0 <- q7:
 * [q7 q8 q9 q10 (4,1,7,10) q6] (a batch removal would give
 * [q6 q7 q8 q9 (4,1,7,10) q10]). POINTSREMOVED [9,6,3,0]: 11 -> 9 -> 3,
 * 10 -> 6, 8 -> 0. */
Test(topology_mappings, hexa2quad_remove_hexahedron_quad_by_quad)
{
    st_scene *s = chain("HexahedronSet",
                        "position: [0,0,0, 1,0,0, 2,0,0, 0,1,0, 1,1,0, 2,1,0, 0,0,1, 1,0,1, "
                        "2,0,1, 0,1,1, 1,1,1, 2,1,1], "
                        "hexahedra: [0,1,4,3,6,7,10,9, 1,2,5,4,7,8,11,10]",
                        "QuadSet", "Hexa2QuadTopologicalMapping");
    st_component *in = topo_get(s, "/A/Container"), *out = topo_get(s, "/A/B/Container");
    static const unsigned quads[] = {0, 3, 4,  1,  6, 7, 10, 9,  0,  1, 7,  6, 1, 4, 10, 7,
                                     3, 9, 10, 4,  0, 6, 9,  3,  1,  4, 5,  2, 7, 8, 11, 10,
                                     1, 2, 8,  7,  2, 5, 11, 8,  4,  10, 11, 5};
    topo_assert_tuples(topo_arr(in, "quads"), 4, quads, 11, "input quads");
    cr_assert_eq(topo_arr(out, "quads")->n, 10);
    remove_ids(in, ST_ELEM_HEXAHEDRON, (const unsigned[]){0}, 1);
    static const unsigned want[] = {7, 0, 3, 6, 1, 2, 0, 7, 2, 5, 3, 0,
                                    4, 6, 3, 5, 4, 1, 7, 6, 1, 4, 5, 2};
    topo_assert_tuples(topo_arr(out, "quads"), 4, want, 6, "output quads");
    cr_assert_eq(nb_points(out), 8);
    st_scene_destroy(&s);
}

/* ---- Quad2TriangleTopologicalMapping ----
 * Q0 = (0,1,4,3), Q1 = (1,2,5,4), not a grid (scale 2): Q0 gives (1,4,0)
 * (3,0,4), Q1 (swapped) (1,2,4) (5,4,2); Loc2Glob [0,0,1,1]. Removing Q0:
 * its triangles [1,0] go (o1 <- (5,4,2), o0 <- (1,2,4)); points [3,0]:
 * 5 -> 3, 4 -> 0: [(1,2,0) (3,0,2)]. */
Test(topology_mappings, quad2triangle_remove_quad)
{
    st_scene *s = chain("QuadSet",
                        "position: [0,0,0, 1,0,0, 2,0,0, 0,1,0, 1,1,0, 2,1,0], "
                        "quads: [0,1,4,3, 1,2,5,4]",
                        "TriangleSet", "Quad2TriangleTopologicalMapping");
    st_component *in = topo_get(s, "/A/Container"), *out = topo_get(s, "/A/B/Container");
    static const unsigned init[] = {1, 4, 0, 3, 0, 4, 1, 2, 4, 5, 4, 2};
    topo_assert_tuples(topo_arr(out, "triangles"), 3, init, 4, "initial triangles");
    remove_ids(in, ST_ELEM_QUAD, (const unsigned[]){0}, 1);
    static const unsigned want[] = {1, 2, 0, 3, 0, 2};
    topo_assert_tuples(topo_arr(out, "triangles"), 3, want, 2, "after removal");
    cr_assert_eq(nb_points(out), 4);
    st_scene_destroy(&s);
}

/* The output's components hear of the removed triangles while the shared
 * state has already lost its points (the output's point removal comes
 * next): a TriangularFEMForceField and TriangularBendingSprings on the
 * output wait for it instead of refusing
 * vertex 5 of a 5-point state (SOFA's own RemovingQuad2TriangleProcess and
 * RemovingTetra2Triangle_options scenes stopped there). The run goes on, and
 * every element of the output names an existing point. */
Test(topology_mappings, quad2triangle_output_force_fields_wait_for_the_points)
{
    static const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  gravity: [0, -9.81, 0]\n"
        "  dt: 0.01\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic,"
        " Sofa.Component.Topology.Mapping, Sofa.Component.StateContainer, Sofa.Component.Mass,"
        " Sofa.Component.ODESolver.Backward, Sofa.Component.LinearSolver.Iterative,"
        " Sofa.Component.SolidMechanics.FEM.Elastic, Sofa.Component.SolidMechanics.Spring]}\n"
        "    - DefaultAnimationLoop: {}\n"
        "  children:\n"
        "    - name: A\n"
        "      objects:\n"
        "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
        "        - CGLinearSolver: {iterations: 50, tolerance: 1e-12, threshold: 1e-20}\n"
        "        - QuadSetTopologyContainer: {name: Container, position: [0,0,0, 1,0,0, 2,0,0,"
        " 0,1,0, 1,1,0, 2,1,0], quads: [0,1,4,3, 1,2,5,4]}\n"
        "        - QuadSetTopologyModifier: {}\n"
        "        - MechanicalObject: {name: dofs}\n"
        "        - UniformMass: {vertexMass: 1}\n"
        "      children:\n"
        "        - name: B\n"
        "          objects:\n"
        "            - TriangleSetTopologyContainer: {name: Container}\n"
        "            - TriangleSetTopologyModifier: {}\n"
        "            - Quad2TriangleTopologicalMapping: {input: \"@../Container\","
        " output: \"@Container\"}\n"
        "            - TriangularFEMForceField: {youngModulus: 1000, poissonRatio: 0.3}\n"
        "            - TriangularBendingSprings: {stiffness: 100, damping: 1}\n";
    st_scene *s = topo_scene(&T, yaml);
    st_component *in = topo_get(s, "/A/Container"), *out = topo_get(s, "/A/B/Container");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    remove_ids(in, ST_ELEM_QUAD, (const unsigned[]){0}, 1);
    const st_array *tri = topo_arr(out, "triangles");
    cr_assert_eq(tri->n, 2);
    for (size_t i = 0; i < 3 * tri->n; i++)
        cr_assert_lt(tri->u[i], 4u, "vertex %u of a 4-point state", tri->u[i]);
    for (int k = 0; k < 10; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s: %s", k, err.path, err.msg);
    st_scene_destroy(&s);
}

/* ---- Triangle2EdgeTopologicalMapping ----
 * T0 = (0,1,2), T1 = (1,3,2); edges (oriented as first met): e0 (1,2)
 * e1 (2,0) e2 (0,1) e3 (3,2) e4 (1,3); border [e1 e2 e3 e4]. Removing T0:
 * TRIANGLESREMOVED [0]: its slot 0 edge e0 is shared with T1: (1,2) added
 * (sorted) as o4. EDGESREMOVED [2,1], edge by edge: g2 (local 1): o1 <-
 * (1,2), input 4 -> 2; g1 (local 0): o0 <- (1,3). Point 0 removed: 3 -> 0:
 * [(1,0) (1,2) (0,2)]. */
Test(topology_mappings, triangle2edge_remove_triangle)
{
    st_scene *s = chain("TriangleSet",
                        "position: [0,0,0, 1,0,0, 0,1,0, 1,1,0], triangles: [0,1,2, 1,3,2]",
                        "EdgeSet", "Triangle2EdgeTopologicalMapping");
    st_component *in = topo_get(s, "/A/Container"), *out = topo_get(s, "/A/B/Container");
    static const unsigned init[] = {2, 0, 0, 1, 3, 2, 1, 3};
    topo_assert_tuples(topo_arr(out, "edges"), 2, init, 4, "initial border");
    remove_ids(in, ST_ELEM_TRIANGLE, (const unsigned[]){0}, 1);
    static const unsigned want[] = {1, 0, 1, 2, 0, 2};
    topo_assert_tuples(topo_arr(out, "edges"), 2, want, 3, "after removal");
    st_scene_destroy(&s);
}

/* Chained: Tetra2Triangle's additions reach a Triangle2Edge below it
 * (TRIANGLESADDED): removing T0 of the two tetrahedra leaves the output
 * surface (1,0,3) (1,2,0) (1,3,2) (2,3,0), closed: no border edge. */
Test(topology_mappings, tetra2triangle_then_triangle2edge)
{
    st_scene *s = t2t_scene("", "          children:\n"
                                "            - name: E\n"
                                "              objects:\n"
                                "                - EdgeSetTopologyContainer: {name: Container}\n"
                                "                - EdgeSetTopologyModifier: {}\n"
                                "                - Triangle2EdgeTopologicalMapping: {input: "
                                "\"@../Container\", output: \"@Container\"}\n");
    st_component *in = topo_get(s, "/T/Container"), *edges = topo_get(s, "/T/T2/E/Container");
    cr_assert_eq(topo_arr(edges, "edges")->n, 0); /* the closed surface of two tetrahedra */
    remove_ids(in, ST_ELEM_TETRAHEDRON, (const unsigned[]){0}, 1);
    cr_assert_eq(topo_arr(topo_get(s, "/T/T2/Container"), "triangles")->n, 4);
    cr_assert_eq(topo_arr(edges, "edges")->n, 0);
    st_scene_destroy(&s);
}

/* Hexa2Tetra does not propagate (SOFA: "not yet implemented"): removing
 * points under it is an error, never stale indices. */
Test(topology_mappings, hexa2tetra_refuses_point_removal)
{
    st_scene *s = chain("HexahedronSet",
                        "position: [0,0,0, 1,0,0, 2,0,0, 0,1,0, 1,1,0, 2,1,0, 0,0,1, 1,0,1, "
                        "2,0,1, 0,1,1, 1,1,1, 2,1,1], "
                        "hexahedra: [0,1,4,3,6,7,10,9, 1,2,5,4,7,8,11,10]",
                        "TetrahedronSet", "Hexa2TetraTopologicalMapping");
    st_component *in = topo_get(s, "/A/Container");
    cr_assert_eq(topo_arr(topo_get(s, "/A/B/Container"), "tetrahedra")->n, 12);
    st_error err = {0};
    unsigned id = 0;
    cr_assert_neq(st_topology_remove(in, ST_ELEM_HEXAHEDRON, &id, 1, &err), ST_OK);
    cr_assert(strstr(err.msg, "does not propagate"), "%s", err.msg);
    st_scene_destroy(&s);
}

/* ---- components that follow: IdentityMapping, OglModel, collision models ----
 * The visual model under the triangle output takes its faces from it and
 * follows them; the IdentityMapping resizes its positions to the state's
 * (SOFA's handleTopologyChange: init() when the sizes differ); the collision
 * models read their elements again before the next detection. */
Test(topology_mappings, visual_and_collision_models_follow)
{
    st_scene *s = t2t_scene("", "            - TriangleCollisionModel: {}\n"
                                "            - LineCollisionModel: {}\n"
                                "            - PointCollisionModel: {}\n"
                                "          children:\n"
                                "            - name: Visu\n"
                                "              objects:\n"
                                "                - OglModel: {name: Visual}\n"
                                "                - IdentityMapping: {input: \"@../../dofs\", "
                                "output: \"@Visual\"}\n");
    st_component *in = topo_get(s, "/T/Container"), *vis = topo_get(s, "/T/T2/Visu/Visual");
    st_component *dofs = topo_get(s, "/T/dofs");
    cr_assert_eq(topo_arr(vis, "triangles")->n, 6);
    cr_assert_eq(topo_arr(vis, "position")->n, 5);
    remove_ids(in, ST_ELEM_TETRAHEDRON, (const unsigned[]){0}, 1);
    static const unsigned tris[] = {1, 0, 3, 1, 2, 0, 1, 3, 2, 2, 3, 0};
    topo_assert_tuples(topo_arr(vis, "triangles"), 3, tris, 4, "visual triangles");
    const st_array *p = topo_arr(vis, "position"), *x = topo_arr(dofs, "position");
    cr_assert_eq(p->n, 4);
    cr_assert_eq(x->n, 4);
    /* Point 0 is the former point 4, (1,1,1). */
    for (size_t i = 0; i < 12; i++)
        cr_assert_eq(p->r[i], x->r[i]);
    cr_assert(x->r[0] == 1 && x->r[1] == 1 && x->r[2] == 1);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(topo_arr(vis, "position")->n, 4);
    st_scene_destroy(&s);
}

/* With a collision pipeline, the models read the 4 remaining triangles
 * and their edges and points before the detection of the next step. */
Test(topology_mappings, collision_pipeline_after_removal)
{
    char yaml[8192];
    snprintf(yaml, sizeof yaml,
             HEAD "    - DefaultAnimationLoop: {}\n"
                  "    - CollisionPipeline: {}\n"
                  "    - BruteForceBroadPhase: {}\n"
                  "    - BVHNarrowPhase: {}\n"
                  "    - MinProximityIntersection: {alarmDistance: 0.8, contactDistance: 0.5}\n"
                  "    - CollisionResponse: {}\n"
                  "  children:\n"
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
                  "            - Tetra2TriangleTopologicalMapping: {input: \"@../Container\", "
                  "output: \"@Container\"}\n"
                  "            - TriangleCollisionModel: {}\n"
                  "            - LineCollisionModel: {}\n"
                  "            - PointCollisionModel: {}\n"
                  "    - name: Floor\n"
                  "      objects:\n"
                  "        - MechanicalObject: {position: [-2,-2,-0.3, 2,-2,-0.3, 2,2,-0.3]}\n"
                  "        - TriangleSetTopologyContainer: {triangles: [0,1,2]}\n"
                  "        - TriangleCollisionModel: {moving: false, simulated: false}\n"
                  "        - PointCollisionModel: {moving: false, simulated: false}\n");
    st_scene *s = topo_scene(&T, yaml);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    remove_ids(topo_get(s, "/T/Container"), ST_ELEM_TETRAHEDRON, (const unsigned[]){1}, 1);
    for (int k = 0; k < 2; k++)
        cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(topo_arr(topo_get(s, "/T/dofs"), "position")->n, 4);
    st_scene_destroy(&s);
}

/* ---- Edge2QuadTopologicalMapping ---- */

/* Three Rigid3d frames on x, the middle one turned 90 degrees about x;
 * their edges; a child node with the quad container and a Vec3d state. */
static st_scene *edge2quad_scene(const char *fields, st_error *err, st_status *status)
{
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "  children:\n"
                  "    - name: B\n"
                  "      objects:\n"
                  "        - EdgeSetTopologyContainer: {name: edges, edges: [0,1, 1,2]}\n"
                  "        - MechanicalObject: {name: frames, template: Rigid3d, position: \"0 0 0 "
                  "0 0 0 1  1 0 0 0.70710678118654752 0 0 0.70710678118654752  2 0 0 0 0 0 1\"}\n"
                  "      children:\n"
                  "        - name: T\n"
                  "          objects:\n"
                  "            - QuadSetTopologyContainer: {name: quads}\n"
                  "            - QuadSetTopologyModifier: {}\n"
                  "            - MechanicalObject: {name: tube}\n"
                  "            - Edge2QuadTopologicalMapping: {name: map, input: \"@../edges\","
                  " output: \"@quads\", nbPointsOnEachCircle: 4%s}\n",
             fields);
    st_scene *s = NULL;
    *status = topo_scene_fails(&T, yaml, err) == ST_OK ? ST_OK : ST_ESCENE;
    if (*status == ST_OK)
        s = topo_scene(&T, yaml);
    return s;
}

Test(topology_mappings, edge2quad_tube_quads_and_circles)
{
    st_error err = {0};
    st_status st;
    st_scene *s = edge2quad_scene(", radius: 2", &err, &st);
    cr_assert_eq(st, ST_OK, "%s", err.msg);
    st_component *quads = topo_get(s, "/B/T/quads");
    cr_assert_eq(nb_points(quads), 12u);
    static const unsigned want[] = {0, 4, 5, 1,  1, 5, 6, 2,  2, 6, 7, 3,  3, 7, 4, 0,
                                    4, 8, 9, 5,  5, 9, 10, 6, 6, 10, 11, 7, 7, 11, 8, 4};
    topo_assert_tuples(topo_arr(quads, "quads"), 4, want, 8, "quads");
    /* Circles of radius 2 in each frame's y-z plane: frame 1 is turned so
     * that its y is the world's z. */
    const st_mstate *tube = (const st_mstate *)topo_get(s, "/B/T/tube");
    cr_assert_eq(tube->n, 12u);
    const double *x = tube->position.r;
    static const double w[12][3] = {{0, 2, 0}, {0, 0, 2}, {0, -2, 0}, {0, 0, -2},
                                    {1, 0, 2}, {1, -2, 0}, {1, 0, -2}, {1, 2, 0},
                                    {2, 2, 0}, {2, 0, 2}, {2, -2, 0}, {2, 0, -2}};
    for (int i = 0; i < 12; i++)
        for (int k = 0; k < 3; k++)
            cr_assert_leq(fabs(x[3 * i + k] - w[i][k]), 1e-12, "point %d: %g %g %g", i,
                          x[3 * i], x[3 * i + 1], x[3 * i + 2]);
    st_scene_destroy(&s);
}

Test(topology_mappings, edge2quad_flip_edge_list_ellipse_and_refusals)
{
    st_error err = {0};
    st_status st;
    st_scene *s = edge2quad_scene(", radius: 2, flipNormals: true", &err, &st);
    cr_assert_eq(st, ST_OK, "%s", err.msg);
    const st_array *q = topo_arr(topo_get(s, "/B/T/quads"), "quads");
    cr_assert_eq(q->n, 8u);
    cr_assert(q->u[0] == 1 && q->u[1] == 5 && q->u[2] == 4 && q->u[3] == 0, "%u %u %u %u",
              q->u[0], q->u[1], q->u[2], q->u[3]);
    st_scene_destroy(&s);
    /* An edge list, flipped: SOFA's other order (q0, q3, q2, q1). */
    s = edge2quad_scene(", radius: 2, flipNormals: true, edgeList: [1]", &err, &st);
    cr_assert_eq(st, ST_OK, "%s", err.msg);
    q = topo_arr(topo_get(s, "/B/T/quads"), "quads");
    cr_assert_eq(q->n, 4u);
    cr_assert(q->u[0] == 4 && q->u[1] == 5 && q->u[2] == 9 && q->u[3] == 8, "%u %u %u %u",
              q->u[0], q->u[1], q->u[2], q->u[3]);
    st_scene_destroy(&s);
    /* An ellipse: radius along Y0 = focalAxis x e_x, radiusFocal along
     * focalAxis (frame 0 is the identity). */
    s = edge2quad_scene(", radius: 2, radiusFocal: 0.5, focalAxis: [0, 1, 0]", &err, &st);
    cr_assert_eq(st, ST_OK, "%s", err.msg);
    const double *x = ((const st_mstate *)topo_get(s, "/B/T/tube"))->position.r;
    /* Y0 = (0,1,0) x (1,0,0) = (0,0,-1): j = 0 at -2 z, j = 1 at 0.5 y */
    cr_assert_leq(fabs(x[0]) + fabs(x[1]) + fabs(x[2] + 2.0), 1e-12);
    cr_assert_leq(fabs(x[3]) + fabs(x[4] - 0.5) + fabs(x[5]), 1e-12, "%g %g %g", x[3], x[4],
                  x[5]);
    st_scene_destroy(&s);
    s = edge2quad_scene("", &err, &st);
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "No radius (neither radius nor radiusFocal) defined"), "%s",
              err.msg);
    s = edge2quad_scene(", radius: 0", &err, &st);
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "Radius is zero or negative"), "%s", err.msg);
    s = edge2quad_scene(", radius: 1, edgeList: [2]", &err, &st);
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "edge 2 is out of range"), "%s", err.msg);
}

/* ---- Edge2QuadTopologicalMapping across changes of its input ---- */

/* Frames f0..f3 on x (f1 turned 90 degrees about x); the scene has the
 * frames `frames` (indices into f), the edges `edges` (a YAML list) and a
 * modifier beside them; N = 4. */
static st_scene *edge2quad_scene_of(const char *frames, const char *edges, bool tubular);

static st_scene *edge2quad_chain(const char *frames, const char *edges)
{
    return edge2quad_scene_of(frames, edges, false);
}

/* The same, moving: the frames under EulerExplicitSolver with one velocity,
 * the tube's state by TubularMapping (SOFA's scene). */
static st_scene *edge2quad_moving(const char *frames, const char *edges)
{
    return edge2quad_scene_of(frames, edges, true);
}

static st_scene *edge2quad_scene_of(const char *frames, const char *edges, bool tubular)
{
    static const char *const f[4] = {"0 0 0 0 0 0 1", "1 0 0 0.70710678118654752 0 0 "
                                     "0.70710678118654752", "2 0 0 0 0 0 1",
                                     "3 0.5 0 0 0 0.38268343236508978 0.92387953251128674"};
    char pos[512] = "";
    for (const char *c = frames; *c; c++)
        if (*c >= '0' && *c <= '3') {
            strcat(pos, pos[0] ? "  " : "");
            strcat(pos, f[*c - '0']);
        }
    char vel[256] = "";
    for (const char *c = frames; *c && tubular; c++)
        if (*c >= '0' && *c <= '3')
            strcat(vel, "0.1 0.2 0 0.3 0 0.5 ");
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "  children:\n"
                  "    - name: B\n"
                  "      objects:\n"
                  "%s"
                  "        - EdgeSetTopologyContainer: {name: edges, edges: %s}\n"
                  "        - EdgeSetTopologyModifier: {}\n"
                  "        - MechanicalObject: {name: frames, template: Rigid3d, position: \"%s\"%s%s%s}\n"
                  "%s"
                  "      children:\n"
                  "        - name: T\n"
                  "          objects:\n"
                  "            - QuadSetTopologyContainer: {name: quads}\n"
                  "            - QuadSetTopologyModifier: {}\n"
                  "            - MechanicalObject: {name: tube}\n"
                  "            - Edge2QuadTopologicalMapping: {name: map, input: \"@../edges\","
                  " output: \"@quads\", nbPointsOnEachCircle: 4, radius: 0.5}\n"
                  "%s",
             tubular ? "        - RequiredPlugin: {pluginName: [Sofa.Component.ODESolver.Forward, "
                       "Sofa.Component.Mass]}\n"
                       "        - EulerExplicitSolver: {}\n"
                     : "",
             edges, pos, tubular ? ", velocity: \"" : "", vel, tubular ? "\"" : "",
             tubular ? "        - UniformMass: {vertexMass: 1}\n" : "",
             tubular ? "            - TubularMapping: {nbPointsOnEachCircle: 4, radius: 0.5, "
                       "input: \"@../frames\", output: \"@tube\"}\n"
                     : "");
    return topo_scene(&T, yaml);
}

/* The output's quads and the tube's positions equal those of scene b. */
static void assert_same_tube(st_scene *a, st_scene *b, const char *what)
{
    const st_array *qa = topo_arr(topo_get(a, "/B/T/quads"), "quads");
    const st_array *qb = topo_arr(topo_get(b, "/B/T/quads"), "quads");
    topo_assert_tuples(qa, 4, qb->u, qb->n, what);
    cr_assert_eq(nb_points(topo_get(a, "/B/T/quads")), nb_points(topo_get(b, "/B/T/quads")),
                 "%s: nbPoints", what);
    const st_mstate *ta = (const st_mstate *)topo_get(a, "/B/T/tube");
    const st_mstate *tb = (const st_mstate *)topo_get(b, "/B/T/tube");
    cr_assert_eq(ta->position.n, tb->position.n, "%s: %zu tube points, want %zu", what,
                 ta->position.n, tb->position.n);
    for (size_t i = 0; i < 3 * ta->position.n; i++)
        cr_assert_eq(ta->position.r[i], tb->position.r[i], "%s: tube point %zu: %.17g, want %.17g",
                     what, i / 3, ta->position.r[i], tb->position.r[i]);
}

/* Removing the last edge (2 3) removes its 4 quads and, with input point
 * 3, its circle (points 12..15): the chain of 3 frames. */
Test(topology_mappings, edge2quad_removed_last_edge_equals_a_shorter_chain)
{
    st_scene *a = edge2quad_chain("0123", "[0,1, 1,2, 2,3]");
    cr_assert_eq(topo_arr(topo_get(a, "/B/T/quads"), "quads")->n, 12);
    remove_ids(topo_get(a, "/B/edges"), ST_ELEM_EDGE, (const unsigned[]){2}, 1);
    cr_assert_eq(((const st_mstate *)topo_get(a, "/B/frames"))->position.n, 3);
    st_scene *b = edge2quad_chain("012", "[0,1, 1,2]");
    assert_same_tube(a, b, "edge 2 removed");
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

/* Removing edge 0 (0 1): the last edge (2 3) takes its place, point 0 goes
 * and point 3 takes its place: edges [2 0, 1 2] on frames [f3 f1 f2]. The
 * output's quads of edge 0 (0..3) are filled by the last ones (8..11), and
 * circle 0 by circle 3: quad j = (8 + j, j, (j + 1) % 4, 8 + (j + 1) % 4). */
Test(topology_mappings, edge2quad_removed_first_edge_renumbers_as_the_input)
{
    st_scene *a = edge2quad_chain("0123", "[0,1, 1,2, 2,3]");
    remove_ids(topo_get(a, "/B/edges"), ST_ELEM_EDGE, (const unsigned[]){0}, 1);
    const st_array *e = topo_arr(topo_get(a, "/B/edges"), "edges");
    static const unsigned want_edges[] = {2, 0, 1, 2};
    topo_assert_tuples(e, 2, want_edges, 2, "input edges");
    static const unsigned want[] = {8, 0, 1, 9,  9, 1, 2, 10,  10, 2, 3, 11,  11, 3, 0, 8,
                                    4, 8, 9, 5,  5, 9, 10, 6,  6, 10, 11, 7,  7, 11, 8, 4};
    topo_assert_tuples(topo_arr(topo_get(a, "/B/T/quads"), "quads"), 4, want, 8, "quads");
    st_scene *b = edge2quad_chain("312", "[2,0, 1,2]");
    assert_same_tube(a, b, "edge 0 removed");
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

/* An edge added to the input (0 2) adds its 4 quads (q0 q1 q2 q3) at the
 * end of the output; removing it again gives the first tube back. */
Test(topology_mappings, edge2quad_added_edge_adds_its_quads)
{
    st_scene *a = edge2quad_chain("012", "[0,1, 1,2]");
    st_error err = {0};
    cr_assert_eq(st_topology_add(topo_get(a, "/B/edges"), ST_ELEM_EDGE, (const unsigned[]){0, 2},
                                 1, &err),
                 ST_OK, "%s", err.msg);
    const st_array *q = topo_arr(topo_get(a, "/B/T/quads"), "quads");
    cr_assert_eq(q->n, 12);
    static const unsigned want[] = {0, 8, 9, 1,  1, 9, 10, 2,  2, 10, 11, 3,  3, 11, 8, 0};
    for (int i = 0; i < 16; i++)
        cr_assert_eq(q->u[32 + i], want[i], "new quad %d entry %d: %u, want %u", i / 4, i % 4,
                     q->u[32 + i], want[i]);
    remove_ids(topo_get(a, "/B/edges"), ST_ELEM_EDGE, (const unsigned[]){2}, 1);
    st_scene *b = edge2quad_chain("012", "[0,1, 1,2]");
    assert_same_tube(a, b, "edge added and removed");
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

/* SOFA's scene: the tube's state moved by TubularMapping. After edge 0 is
 * removed (frames [f3 f1 f2] left), the tube follows the moving frames as
 * in a chain built with them (same velocity for every frame). */
Test(topology_mappings, edge2quad_with_tubular_mapping_follows_a_removal)
{
    st_scene *a = edge2quad_moving("0123", "[0,1, 1,2, 2,3]");
    st_error err = {0};
    cr_assert_eq(st_scene_step(a, 0.01, &err), ST_OK, "%s", err.msg);
    remove_ids(topo_get(a, "/B/edges"), ST_ELEM_EDGE, (const unsigned[]){0}, 1);
    st_scene *b = edge2quad_moving("312", "[2,0, 1,2]");
    cr_assert_eq(st_scene_step(b, 0.01, &err), ST_OK, "%s", err.msg);
    for (int n = 0; n < 3; n++) {
        cr_assert_eq(st_scene_step(a, 0.01, &err), ST_OK, "%s %s", err.path, err.msg);
        cr_assert_eq(st_scene_step(b, 0.01, &err), ST_OK, "%s", err.msg);
    }
    /* the frames moved: the tube is not at its first place */
    const st_mstate *fr = (const st_mstate *)topo_get(a, "/B/frames");
    cr_assert_gt(fr->position.r[1], 0.005, "frame 0 moved up (y = %g)", fr->position.r[1]);
    const st_mstate *ta = (const st_mstate *)topo_get(a, "/B/T/tube");
    const st_mstate *tb = (const st_mstate *)topo_get(b, "/B/T/tube");
    cr_assert_eq(ta->position.n, 12);
    for (size_t i = 0; i < 36; i++)
        cr_assert(fabs(ta->position.r[i] - tb->position.r[i]) <= 1e-12,
                  "tube point %zu: %.17g, chain built directly %.17g", i / 3, ta->position.r[i],
                  tb->position.r[i]);
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}
