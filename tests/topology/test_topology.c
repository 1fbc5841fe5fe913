/* test_topology.c - the Topology plugin: RegularGridTopology (orderings of
 * nodes, hexahedra, quads, triangles and edges as SOFA's, the 3x3x3 grid's
 * 90 edges, parameters and bad values), GridTopology, MeshTopology
 * (derived lists), the dynamic containers and their companions,
 * Hexa2QuadTopologicalMapping, and MechanicalObject taking its positions
 * from a grid. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(topology, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Grid]}\n"

static st_scene *grid(const char *fields)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, HEAD "    - RegularGridTopology: {name: g, %s}\n", fields);
    return topo_scene(&T, yaml);
}

Test(topology, grid_3x3x3_counts_and_90_edges)
{
    st_scene *s = grid("n: [3, 3, 3], min: [0, 0, 0], max: [2, 2, 2]");
    st_component *g = topo_get(s, "g");
    cr_assert_eq(topo_arr(g, "position")->n, 27);
    cr_assert_eq(topo_arr(g, "hexahedra")->n, 8);
    cr_assert_eq(topo_arr(g, "quads")->n, 36);
    cr_assert_eq(topo_arr(g, "triangles")->n, 72);
    cr_assert_eq(topo_arr(g, "edges")->n, 90);
    /* The role interface gives the same lists. */
    cr_assert_eq(g->cls->topology->nb_points(g), 27);
    cr_assert_eq(g->cls->topology->elements(g, ST_T_EDGES)->n, 90);
    /* First edges: those of triangle (0, 1, 4), as met. */
    const unsigned e0[] = {1, 4, 4, 0, 0, 1};
    st_array first = *topo_arr(g, "edges");
    first.n = 3;
    topo_assert_tuples(&first, 2, e0, 3, "edges");
    /* Hexahedron 0 and 7. */
    const st_array *h = topo_arr(g, "hexahedra");
    const unsigned h0[] = {0, 1, 4, 3, 9, 10, 13, 12};
    for (int k = 0; k < 8; k++)
        cr_assert_eq(h->u[k], h0[k]);
    const unsigned h7[] = {13, 14, 17, 16, 22, 23, 26, 25};
    for (int k = 0; k < 8; k++)
        cr_assert_eq(h->u[56 + k], h7[k]);
    st_scene_destroy(&s);
}

Test(topology, grid_2x2x2_orderings_match_sofa)
{
    st_scene *s = grid("n: [2, 2, 2]");
    st_component *g = topo_get(s, "g");
    const unsigned quads[] = {0, 1, 3, 2, 4, 5, 7, 6, 0, 1, 5, 4, 2, 3, 7, 6, 0, 2, 6, 4, 1, 3, 7, 5};
    topo_assert_tuples(topo_arr(g, "quads"), 4, quads, 6, "quads");
    const unsigned tris[] = {0, 1, 3, 0, 3, 2, 4, 5, 7, 4, 7, 6};
    st_array t4 = *topo_arr(g, "triangles");
    cr_assert_eq(t4.n, 12);
    t4.n = 4;
    topo_assert_tuples(&t4, 3, tris, 4, "triangles");
    const unsigned edges[] = {1, 3, 3, 0, 0, 1, 3, 2, 2, 0, 5, 7, 7, 4, 4, 5, 7, 6,
                              6, 4, 1, 5, 5, 0, 4, 0, 3, 7, 7, 2, 6, 2, 6, 0, 7, 1};
    topo_assert_tuples(topo_arr(g, "edges"), 2, edges, 18, "edges");
    const unsigned hexa[] = {0, 1, 3, 2, 4, 5, 7, 6};
    topo_assert_tuples(topo_arr(g, "hexahedra"), 8, hexa, 1, "hexahedra");
    st_scene_destroy(&s);
}

Test(topology, grid_positions_x_fastest_and_float_bounds)
{
    st_scene *s = grid("nx: 4, ny: 4, nz: 11, xmin: -1.5, xmax: 1.5, ymin: -1.5, ymax: 1.5, "
                       "zmin: 0, zmax: 10");
    st_component *g = topo_get(s, "g");
    const st_array *p = topo_arr(g, "position");
    cr_assert_eq(p->n, 176);
    double q[3];
    g->cls->topology->get_point(g, 1, q);
    cr_assert(q[0] == -0.5 && q[1] == -1.5 && q[2] == 0.0, "%g %g %g", q[0], q[1], q[2]);
    g->cls->topology->get_point(g, 175, q);
    cr_assert(q[0] == 1.5 && q[1] == 1.5 && q[2] == 10.0, "%g %g %g", q[0], q[1], q[2]);
    /* index(i, j, k) = i + nx (j + ny k): (2, 1, 3) is 2 + 4 (1 + 4 * 3) = 54. */
    cr_assert_eq(p->r[3 * 54 + 0], 0.5);
    cr_assert_eq(p->r[3 * 54 + 1], -0.5);
    cr_assert_eq(p->r[3 * 54 + 2], 3.0);
    cr_assert_eq(topo_arr(g, "hexahedra")->n, 3 * 3 * 10);
    /* Quads: (nx-1)(ny-1)nz + (nx-1)ny(nz-1) + nx(ny-1)(nz-1). */
    cr_assert_eq(topo_arr(g, "quads")->n, 99 + 120 + 120);
    /* xmin..zmax are read as float (SOFA): 0.1 becomes 0.100000001490116... */
    st_scene_destroy(&s);
    s = grid("n: [2, 2, 2], xmin: 0, xmax: 0.1, ymin: 0, ymax: 1, zmin: 0, zmax: 1");
    g = topo_get(s, "g");
    g->cls->topology->get_point(g, 1, q);
    cr_assert_eq(q[0], (double)0.1f);
    st_scene_destroy(&s);
}

Test(topology, grid_defaults)
{
    st_scene *s = grid("computeTriangleList: true");
    st_component *g = topo_get(s, "g");
    cr_assert_eq(g->cls->topology->nb_points(g), 8);
    const st_array *p = topo_arr(g, "position");
    /* Default min (0,0,0), max (1,1,1), n (2,2,2): point 7 is (1,1,1). */
    cr_assert(p->r[21] == 1 && p->r[22] == 1 && p->r[23] == 1);
    cr_assert_eq(topo_arr(g, "edges")->n, 18);
    st_scene_destroy(&s);
}

Test(topology, grid_without_triangles_has_axis_edges_only)
{
    st_scene *s = grid("n: [3, 3, 3], computeTriangleList: false");
    st_component *g = topo_get(s, "g");
    const st_array *e = topo_arr(g, "edges");
    cr_assert_eq(e->n, 54);
    cr_assert_eq(topo_arr(g, "triangles")->n, 0);
    /* X edges first, then Y, then Z. */
    cr_assert(e->u[0] == 0 && e->u[1] == 1);
    cr_assert(e->u[2 * 18] == 0 && e->u[2 * 18 + 1] == 3);
    cr_assert(e->u[2 * 36] == 0 && e->u[2 * 36 + 1] == 9);
    st_scene_destroy(&s);
}

Test(topology, grid_switches)
{
    st_scene *s = grid("n: [3, 3, 3], computeHexaList: false, computeQuadList: false, "
                       "computeEdgeList: false");
    st_component *g = topo_get(s, "g");
    cr_assert_eq(topo_arr(g, "hexahedra")->n, 0);
    cr_assert_eq(topo_arr(g, "quads")->n, 0);
    cr_assert_eq(topo_arr(g, "triangles")->n, 72);
    cr_assert_eq(topo_arr(g, "edges")->n, 0);
    st_scene_destroy(&s);
    s = grid("n: [3, 3, 3], computePointList: false");
    cr_assert_eq(topo_arr(topo_get(s, "g"), "position")->n, 0);
    st_scene_destroy(&s);
}

Test(topology, grid_flat_axis_and_p0)
{
    /* nz = 1: z stays at zmin; ny = 1: y centred. */
    st_scene *s = grid("n: [3, 1, 1], min: [0, 0, 4], max: [2, 2, 6]");
    st_component *g = topo_get(s, "g");
    double q[3];
    g->cls->topology->get_point(g, 2, q);
    cr_assert(q[0] == 2 && q[1] == 1 && q[2] == 4, "%g %g %g", q[0], q[1], q[2]);
    cr_assert_eq(topo_arr(g, "hexahedra")->n, 0);
    cr_assert_eq(topo_arr(g, "quads")->n, 0);
    cr_assert_eq(topo_arr(g, "edges")->n, 2);
    st_scene_destroy(&s);
    /* A user p0 is the origin; spacing still from min and max. */
    s = grid("n: [2, 2, 2], min: [0, 0, 0], max: [2, 2, 2], p0: [10, 0, 0]");
    g = topo_get(s, "g");
    g->cls->topology->get_point(g, 1, q);
    cr_assert(q[0] == 12 && q[1] == 0 && q[2] == 0, "%g %g %g", q[0], q[1], q[2]);
    st_scene_destroy(&s);
}

Test(topology, grid_partial_nx_is_ignored)
{
    /* nx alone is ignored (SOFA needs all three): n stays 2 2 2. */
    st_scene *s = grid("nx: 5");
    cr_assert_eq(topo_get(s, "g")->cls->topology->nb_points(topo_get(s, "g")), 8);
    st_scene_destroy(&s);
}

Test(topology, grid_bad_resolution_warns_and_uses_default)
{
    st_scene *s = grid("n: [0, 3, 3]");
    st_component *g = topo_get(s, "g");
    cr_assert_eq(g->cls->topology->nb_points(g), 8);
    cr_assert(strstr(T.log, "outside the validity range"), "%s", T.log);
    st_scene_destroy(&s);
}

Test(topology, grid_bad_values_are_errors)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - RegularGridTopology: {n: [2.5, 2, 2]}\n", &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "integers"), "%s", err.msg);
    cr_assert(strstr(err.where, ":"), "error has a position: '%s'", err.where);
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - RegularGridTopology: {edges: [[0, 1]]}\n", &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "read-only"), "%s", err.msg);
    cr_assert(strstr(err.where, "test.yaml:6:"), "%s", err.where);
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - RegularGridTopology: {cellWidth: -1}\n", &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "cellWidth"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - RegularGridTopology: {nx: two}\n", &err), ST_OK);
    cr_assert(strstr(err.where, "test.yaml:6:"), "%s", err.where);
}

Test(topology, grid_cell_width)
{
    st_scene *s = grid("min: [0, 0, 0], max: [2, 1, 1], cellWidth: 0.5");
    st_component *g = topo_get(s, "g");
    cr_assert_eq(g->cls->topology->nb_points(g), 5 * 3 * 3);
    st_scene_destroy(&s);
}

Test(topology, grid_topology_without_geometry)
{
    st_scene *s = topo_scene(&T, HEAD "    - GridTopology: {name: g, n: [3, 2, 2]}\n");
    st_component *g = topo_get(s, "g");
    cr_assert_eq(g->cls->topology->nb_points(g), 12);
    cr_assert_eq(topo_arr(g, "hexahedra")->n, 2);
    double q[3] = {1, 1, 1};
    g->cls->topology->get_point(g, 5, q);
    cr_assert(q[0] == 0 && q[1] == 0 && q[2] == 0);
    st_scene_destroy(&s);
}

Test(topology, mechanical_object_takes_grid_positions_even_before_it)
{
    st_scene *s = topo_scene(&T, HEAD "    - MechanicalObject: {name: dofs}\n"
                                      "    - RegularGridTopology: {n: [3, 3, 3], max: [2, 2, 2]}\n");
    st_mstate *ms = (st_mstate *)topo_get(s, "dofs");
    cr_assert_eq(ms->position.n, 27);
    cr_assert_eq(ms->position.r[3 * 26 + 2], 2.0);
    cr_assert_eq(ms->rest_position.n, 27);
    st_scene_destroy(&s);
}

#define MESH_HEAD                                                                                 \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Constant]}\n"

Test(topology, mesh_topology_derives_from_tetrahedra)
{
    st_scene *s = topo_scene(&T, MESH_HEAD
                             "    - MeshTopology: {name: m, position: [[0,0,0],[1,0,0],[0,1,0],"
                             "[0,0,1],[1,1,1]], tetrahedra: [[0, 1, 2, 3], [1, 2, 3, 4]]}\n");
    st_component *m = topo_get(s, "m");
    /* Edges from volumes: sorted pairs in first-met order (tetra edge table). */
    const unsigned edges[] = {0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3, 1, 4, 2, 4, 3, 4};
    topo_assert_tuples(topo_arr(m, "edges"), 2, edges, 9, "edges");
    /* Triangles: faces (1,2,3), (0,3,2), (1,3,0), (0,2,1) rotated so the smallest is
     * first; the shared face appears once. */
    const unsigned tris[] = {1, 2, 3, 0, 3, 2, 0, 1, 3, 0, 2, 1, 2, 3, 4, 1, 4, 3, 1, 2, 4};
    topo_assert_tuples(topo_arr(m, "triangles"), 3, tris, 7, "triangles");
    cr_assert_eq(m->cls->topology->nb_points(m), 5);
    st_scene_destroy(&s);
}

Test(topology, mesh_topology_derives_from_surfaces_and_hexahedra)
{
    st_scene *s = topo_scene(&T, MESH_HEAD
                             "    - MeshTopology: {name: m, position: [[0,0,0],[1,0,0],[1,1,0],"
                             "[0,1,0]], triangles: [[0, 1, 2], [0, 2, 3]]}\n");
    st_component *m = topo_get(s, "m");
    /* Triangle edges keep the orientation they are met with. */
    const unsigned edges[] = {1, 2, 2, 0, 0, 1, 2, 3, 3, 0};
    topo_assert_tuples(topo_arr(m, "edges"), 2, edges, 5, "edges");
    st_scene_destroy(&s);

    s = topo_scene(&T, MESH_HEAD "    - MeshTopology: {name: m, hexahedra: [[0,1,2,3,4,5,6,7]]}\n");
    m = topo_get(s, "m");
    const unsigned quads[] = {0, 3, 2, 1, 4, 5, 6, 7, 0, 1, 5, 4,
                              1, 2, 6, 5, 2, 3, 7, 6, 0, 4, 7, 3};
    topo_assert_tuples(topo_arr(m, "quads"), 4, quads, 6, "quads");
    cr_assert_eq(topo_arr(m, "edges")->n, 12);
    /* No positions: nb_points is 0 (MechanicalObject keeps its own). */
    cr_assert_eq(m->cls->topology->nb_points(m), 0);
    st_scene_destroy(&s);
}

Test(topology, mesh_topology_bad_index)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, MESH_HEAD "    - MeshTopology: {position: [[0,0,0],[1,0,0]],"
                                                 " edges: [[0, 2]]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "point 2"), "%s", err.msg);
    cr_assert(strstr(err.where, "test.yaml:6:"), "%s", err.where);
}

Test(topology, mesh_topology_aliases)
{
    st_scene *s = topo_scene(&T, MESH_HEAD "    - MeshTopology: {name: m, points: [[0,0,0],[1,0,0]],"
                                           " lines: [[0, 1]]}\n");
    st_component *m = topo_get(s, "m");
    cr_assert_eq(topo_arr(m, "position")->n, 2);
    cr_assert_eq(topo_arr(m, "edges")->n, 1);
    st_scene_destroy(&s);
}

#define DYN_HEAD                                                                                  \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic,"              \
    " Sofa.Component.Topology.Container.Grid, Sofa.Component.Topology.Mapping]}\n"

Test(topology, dynamic_containers_and_companions_load)
{
    static const char *kinds[] = {"PointSet", "EdgeSet", "TriangleSet", "QuadSet", "TetrahedronSet",
                                  "HexahedronSet"};
    for (size_t i = 0; i < 6; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 DYN_HEAD "    - %sTopologyContainer: {name: c, position: [[0,0,0],[1,0,0]]}\n"
                          "    - %sTopologyModifier: {}\n    - %sGeometryAlgorithms: {}\n",
                 kinds[i], kinds[i], kinds[i]);
        st_scene *s = topo_scene(&T, yaml);
        st_component *c = topo_get(s, "c");
        cr_assert_eq(c->cls->topology->nb_points(c), 2, "%s", kinds[i]);
        cr_assert_eq(*(unsigned *)st_component_field_ptr(c, st_component_field(c, "nbPoints")), 2);
        st_scene_destroy(&s);
    }
}

Test(topology, quad_container_derives_edges_and_has_no_triangles)
{
    st_scene *s = topo_scene(&T, DYN_HEAD "    - QuadSetTopologyContainer: {name: c, quads: "
                                          "[[0, 1, 2, 3]]}\n");
    st_component *c = topo_get(s, "c");
    cr_assert_eq(topo_arr(c, "edges")->n, 4);
    cr_assert_null(st_component_field(c, "triangles"));
    cr_assert_eq(*(unsigned *)st_component_field_ptr(c, st_component_field(c, "nbPoints")), 4);
    st_scene_destroy(&s);
}

static const char *H2Q =
    DYN_HEAD "  children:\n"
             "    - name: beam\n"
             "      objects:\n"
             "        - RegularGridTopology: {name: topology, nx: 4, ny: 4, nz: 11, xmin: -1.5,"
             " xmax: 1.5, ymin: -1.5, ymax: 1.5, zmin: 0, zmax: 10}\n"
             "        - HexahedronSetGeometryAlgorithms: {}\n"
             "      children:\n"
             "        - name: visual\n"
             "          objects:\n"
             "            - QuadSetTopologyContainer: {name: Container}\n"
             "%s"
             "            - Hexa2QuadTopologicalMapping: {input: \"@../topology\", output: "
             "\"@Container\"%s}\n";

Test(topology, hexa2quad_keeps_boundary_quads_in_input_order)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, H2Q, "            - QuadSetTopologyModifier: {}\n", "");
    st_scene *s = topo_scene(&T, yaml);
    st_component *c = topo_get(s, "/beam/visual/Container");
    const st_array *q = topo_arr(c, "quads");
    /* 2*9 (z faces) + 2*30 (y faces) + 2*30 (x faces). */
    cr_assert_eq(q->n, 138);
    /* The first is the grid's first quad (bottom face z = 0). */
    cr_assert(q->u[0] == 0 && q->u[1] == 1 && q->u[2] == 5 && q->u[3] == 4);
    cr_assert_eq(*(unsigned *)st_component_field_ptr(c, st_component_field(c, "nbPoints")), 176);
    /* Edges derived from the boundary quads. */
    cr_assert_gt(topo_arr(c, "edges")->n, 0);
    st_scene_destroy(&s);

    snprintf(yaml, sizeof yaml, H2Q, "            - QuadSetTopologyModifier: {}\n",
             ", flipNormals: true");
    s = topo_scene(&T, yaml);
    q = topo_arr(topo_get(s, "/beam/visual/Container"), "quads");
    cr_assert(q->u[0] == 4 && q->u[1] == 5 && q->u[2] == 1 && q->u[3] == 0);
    st_scene_destroy(&s);
}

Test(topology, hexa2quad_needs_a_modifier_and_a_quad_container)
{
    char yaml[4096];
    st_error err = {0};
    snprintf(yaml, sizeof yaml, H2Q, "", "");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "QuadSetTopologyModifier"), "%s", err.msg);
}

Test(topology, plugin_answers_sofa_module_names)
{
    st_error err = {0};
    const char *names[] = {"Sofa.Component.Topology.Container.Grid",
                           "Sofa.Component.Topology.Container.Dynamic",
                           "Sofa.Component.Topology.Container.Constant",
                           "Sofa.Component.Topology.Mapping"};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(st_runtime_load_plugin(T.rt, names[i], &err), ST_OK, "%s: %s", names[i],
                     err.msg);
        const st_plugin_info *p = st_runtime_find_plugin(T.rt, names[i]);
        cr_assert(p && !strcmp(p->name, "Topology"));
    }
    /* with Hexa2Tetra, Tetra2Triangle, Triangle2Edge, Quad2Triangle, Hexa2Prism,
     * SparseGridTopology, SparseGridRamificationTopology, CylinderGridTopology,
     * SphereGridTopology, CubeTopology, SparseGridMultipleTopology,
     * Edge2QuadTopologicalMapping, Mesh2PointTopologicalMapping,
     * SubsetTopologicalMapping, SimpleTesselatedTetraTopologicalMapping and
     * SphereQuadTopology, IdentityTopologicalMapping, CenterPointTopologicalMapping,
     * DynamicSparseGridTopologyContainer, MultilevelHexahedronSetTopologyContainer,
     * DynamicSparseGridGeometryAlgorithms, DynamicSparseGridTopologyModifier */
    cr_assert_eq(st_runtime_plugin_classes(T.rt, "Topology", NULL, 0), 44);
}

/* ---- Tetra2Triangle, Triangle2Edge, Quad2Triangle, Hexa2Prism ---- */

static void point_of(st_component *c, unsigned i, double p[3]) { c->cls->topology->get_point(c, i, p); }

/* Signed volume of the tetrahedron (a, b, c, d) times 6. */
static double vol6(const double *a, const double *b, const double *c, const double *d)
{
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; k++)
        u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
           u[2] * (v[0] * w[1] - v[1] * w[0]);
}

static const char *T2T =
    DYN_HEAD "  children:\n"
             "    - name: vol\n"
             "      objects:\n"
             "        - RegularGridTopology: {name: grid, n: [3, 3, 3], min: [0, 0, 0], "
             "max: [2, 2, 2]}\n"
             "        - TetrahedronSetTopologyContainer: {name: tetras}\n"
             "        - TetrahedronSetTopologyModifier: {}\n"
             "        - Hexa2TetraTopologicalMapping: {input: \"@grid\", output: \"@tetras\"}\n"
             "      children:\n"
             "        - name: surf\n"
             "          objects:\n"
             "            - TriangleSetTopologyContainer: {name: tris}\n"
             "            - TriangleSetTopologyModifier: {}\n"
             "            - Tetra2TriangleTopologicalMapping: {input: \"@../tetras\", output: "
             "\"@tris\"%s}\n";

Test(topology, tetra2triangle_keeps_border_triangles_oriented_outward)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, T2T, "");
    st_scene *s = topo_scene(&T, yaml);
    st_component *grid = topo_get(s, "/vol/grid");
    st_component *tetras = topo_get(s, "/vol/tetras");
    const st_array *all = topo_arr(tetras, "triangles");
    const st_array *t = topo_arr(topo_get(s, "/vol/surf/tris"), "triangles");
    /* 6 faces of 4 grid quads, 2 triangles each. */
    cr_assert_eq(t->n, 48);
    /* Each is one of the input's triangles, in the input's order, and every
     * triangle points away from the cube's centre (1, 1, 1). */
    size_t j = 0;
    double c[3] = {1, 1, 1};
    for (size_t i = 0; i < t->n; i++) {
        while (j < all->n && memcmp(all->u + 3 * j, t->u + 3 * i, 3 * sizeof(unsigned)))
            j++;
        cr_assert_lt(j, all->n, "output triangle %zu is not an input triangle in order", i);
        double a[3], b[3], d[3];
        point_of(grid, t->u[3 * i], a);
        point_of(grid, t->u[3 * i + 1], b);
        point_of(grid, t->u[3 * i + 2], d);
        cr_assert_lt(vol6(a, b, d, c), 0.0, "triangle %zu points inward", i);
        /* On the border: some coordinate is 0 or 2 for all three points. */
        bool border = false;
        for (int k = 0; k < 3; k++)
            border |= (a[k] == b[k] && b[k] == d[k] && (a[k] == 0 || a[k] == 2));
        cr_assert(border, "triangle %zu is not on the cube's border", i);
    }
    /* nbPoints follows the input; edges are derived from the new triangles
     * (a closed 2-manifold: E = 3F/2). */
    st_component *tris = topo_get(s, "/vol/surf/tris");
    cr_assert_eq(*(unsigned *)st_component_field_ptr(tris, st_component_field(tris, "nbPoints")),
                 27);
    cr_assert_eq(topo_arr(tris, "edges")->n, 72);
    unsigned first[3] = {t->u[0], t->u[1], t->u[2]};
    st_scene_destroy(&s);

    /* flipNormals: (v0, v2, v1). */
    snprintf(yaml, sizeof yaml, T2T, ", flipNormals: true");
    s = topo_scene(&T, yaml);
    t = topo_arr(topo_get(s, "/vol/surf/tris"), "triangles");
    cr_assert_eq(t->n, 48);
    cr_assert(t->u[0] == first[0] && t->u[1] == first[2] && t->u[2] == first[1]);
    st_scene_destroy(&s);

    /* noInitialTriangles: empty. */
    snprintf(yaml, sizeof yaml, T2T, ", noInitialTriangles: true");
    s = topo_scene(&T, yaml);
    cr_assert_eq(topo_arr(topo_get(s, "/vol/surf/tris"), "triangles")->n, 0);
    st_scene_destroy(&s);
}

Test(topology, tetra2triangle_single_tetrahedron_in_sofa_order)
{
    st_scene *s = topo_scene(
        &T, DYN_HEAD "    - TetrahedronSetTopologyContainer: {name: tet, position: [[0,0,0],"
                     "[1,0,0],[0,1,0],[0,0,1]], tetrahedra: [[0, 1, 2, 3]]}\n"
                     "    - TriangleSetTopologyContainer: {name: tris}\n"
                     "    - Tetra2TriangleTopologicalMapping: {input: \"@tet\", output: "
                     "\"@tris\"}\n");
    /* The container's faces (1,2,3), (0,3,2), (1,3,0), (0,2,1), each rotated
     * to start at its smallest index: all four are on the border. */
    const unsigned want[] = {1, 2, 3, 0, 3, 2, 0, 1, 3, 0, 2, 1};
    topo_assert_tuples(topo_arr(topo_get(s, "tris"), "triangles"), 3, want, 4, "triangles");
    st_scene_destroy(&s);
}

Test(topology, triangle2edge_keeps_border_edges_in_input_order)
{
    const char *yaml =
        DYN_HEAD "    - TriangleSetTopologyContainer: {name: tri, position: [[0,0,0],[1,0,0],"
                 "[1,1,0],[0,1,0]], triangles: [[0, 1, 2], [0, 2, 3]]}\n"
                 "  children:\n"
                 "    - name: e\n"
                 "      objects:\n"
                 "        - EdgeSetTopologyContainer: {name: edges}\n"
                 "%s"
                 "        - Triangle2EdgeTopologicalMapping: {input: \"@../tri\", output: "
                 "\"@edges\"}\n";
    char buf[2048];
    snprintf(buf, sizeof buf, yaml, "        - EdgeSetTopologyModifier: {}\n");
    st_scene *s = topo_scene(&T, buf);
    /* Input edges: (1,2) (2,0) (0,1) (2,3) (3,0); (2,0) is shared. */
    const unsigned want[] = {1, 2, 0, 1, 2, 3, 3, 0};
    topo_assert_tuples(topo_arr(topo_get(s, "/e/edges"), "edges"), 2, want, 4, "edges");
    st_scene_destroy(&s);
    /* Without an EdgeSetTopologyModifier: an error naming it. */
    snprintf(buf, sizeof buf, yaml, "");
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, buf, &err), ST_OK);
    cr_assert(strstr(err.msg, "EdgeSetTopologyModifier"), "%s", err.msg);
}

static const char *Q2T =
    DYN_HEAD "  children:\n"
             "    - name: cloth\n"
             "      objects:\n"
             "        - RegularGridTopology: {name: grid, n: [3, 3, 1], min: [0, 0, 0], "
             "max: [2, 2, 0]}\n"
             "      children:\n"
             "        - name: tri\n"
             "          objects:\n"
             "            - TriangleSetTopologyContainer: {name: tris}\n"
             "            - TriangleSetTopologyModifier: {}\n"
             "            - Quad2TriangleTopologicalMapping: {input: \"@../grid\", output: "
             "\"@tris\"%s}\n";

Test(topology, quad2triangle_alternates_diagonals_on_a_grid)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, Q2T, "");
    st_scene *s = topo_scene(&T, yaml);
    const st_array *q = topo_arr(topo_get(s, "/cloth/grid"), "quads");
    const st_array *t = topo_arr(topo_get(s, "/cloth/tri/tris"), "triangles");
    cr_assert_eq(q->n, 4);
    cr_assert_eq(t->n, 8);
    /* 2 cells along x: quads 1 and 2 take the other diagonal (checkerboard). */
    for (size_t i = 0; i < 4; i++) {
        const unsigned *p = q->u + 4 * i;
        bool sw = i == 1 || i == 2;
        unsigned want[6] = {p[1], p[2], p[0], p[3], p[0], p[2]};
        unsigned swapped[6] = {p[0], p[1], p[3], p[2], p[3], p[1]};
        for (int k = 0; k < 6; k++)
            cr_assert_eq(t->u[6 * i + (size_t)k], sw ? swapped[k] : want[k], "quad %zu", i);
    }
    st_scene_destroy(&s);

    snprintf(yaml, sizeof yaml, Q2T, ", swapping: false");
    s = topo_scene(&T, yaml);
    q = topo_arr(topo_get(s, "/cloth/grid"), "quads");
    t = topo_arr(topo_get(s, "/cloth/tri/tris"), "triangles");
    for (size_t i = 0; i < 4; i++) {
        const unsigned *p = q->u + 4 * i;
        unsigned want[6] = {p[1], p[2], p[0], p[3], p[0], p[2]};
        for (int k = 0; k < 6; k++)
            cr_assert_eq(t->u[6 * i + (size_t)k], want[k], "quad %zu", i);
    }
    /* 16 edges: 12 grid edges and 4 diagonals. */
    cr_assert_eq(topo_arr(topo_get(s, "/cloth/tri/tris"), "edges")->n, 16);
    st_scene_destroy(&s);
}

Test(topology, quad2triangle_needs_a_triangle_modifier)
{
    st_error err = {0};
    const char *yaml =
        DYN_HEAD "    - QuadSetTopologyContainer: {name: q, quads: [[0, 1, 2, 3]]}\n"
                 "    - TriangleSetTopologyContainer: {name: t}\n"
                 "    - Quad2TriangleTopologicalMapping: {input: \"@q\", output: \"@t\"}\n";
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "TriangleSetTopologyModifier"), "%s", err.msg);
}

Test(topology, hexa2prism_two_prisms_per_hexahedron)
{
    st_scene *s = topo_scene(
        &T, DYN_HEAD "    - RegularGridTopology: {name: grid, n: [2, 2, 3], min: [0, 0, 0], "
                     "max: [1, 1, 2]}\n"
                     "    - MeshTopology: {name: out}\n"
                     "    - Hexa2PrismTopologicalMapping: {input: \"@grid\", output: \"@out\"}\n");
    st_component *grid = topo_get(s, "grid");
    const st_array *h = topo_arr(grid, "hexahedra");
    const st_array *p = topo_arr(topo_get(s, "out"), "prisms");
    cr_assert_eq(h->n, 2);
    cr_assert_eq(p->n, 24);
    const unsigned *c = h->u;
    const unsigned want[12] = {c[0], c[5], c[1], c[3], c[6], c[2],
                               c[0], c[4], c[5], c[3], c[7], c[6]};
    for (int k = 0; k < 12; k++)
        cr_assert_eq(p->u[k], want[k]);
    /* The two prisms of each unit hexahedron fill it: volumes 1/2 each (a
     * prism as three tetrahedra). */
    for (size_t e = 0; e < 4; e++) {
        double v[6][3];
        for (int k = 0; k < 6; k++)
            point_of(grid, p->u[6 * e + (size_t)k], v[k]);
        cr_assert(fabs(fabs(vol6(v[0], v[1], v[2], v[3])) + fabs(vol6(v[1], v[2], v[3], v[4])) +
                       fabs(vol6(v[2], v[3], v[4], v[5])) - 3.0) < 1e-12,
                  "prism %zu volume x6 is not 3", e);
    }
    st_scene_destroy(&s);
}

/* ---- SparseGridTopology ---- */

#define SPARSE_HEAD                                                                               \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Grid]}\n"

/* SOFA's SparseGridTopology_test (buildFromMeshParams): the pyramid with
 * apex (0, 0, 1) over the square z = -1 of half-width 1, n = 10: 392
 * points, 209 hexahedra, the first point at (-1.02, -0.34, -1.02) (the box
 * grows by 1 %, cells 2.04 / 9 wide). */
Test(topology, sparse_grid_pyramid_as_sofa)
{
    st_scene *s = topo_scene(
        &T, SPARSE_HEAD "    - SparseGridTopology: {name: g, n: [10, 10, 10], position: "
                        "[[0, 0, 1], [-1, 0, -1], [0, 1, -1], [1, 0, -1], [0, -1, -1]], "
                        "triangles: [[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 1], [1, 2, 3], "
                        "[3, 4, 1]]}\n");
    st_component *g = topo_get(s, "g");
    const st_array *p = topo_arr(g, "position");
    const st_array *h = topo_arr(g, "hexahedra");
    cr_assert_eq(p->n, 392);
    cr_assert_eq(h->n, 209);
    cr_assert(fabs(p->r[0] - -1.02) < 1e-4 && fabs(p->r[1] - -0.34) < 1e-4 &&
                  fabs(p->r[2] - -1.02) < 1e-4,
              "first point %g %g %g", p->r[0], p->r[1], p->r[2]);
    cr_assert_eq(g->cls->topology->nb_points(g), 392);
    /* Points sorted by x, then y, then z; every hexahedron is a cell of
     * width 2.04 / 9 with SOFA's corner order. */
    for (size_t i = 1; i < p->n; i++) {
        const double *a = p->r + 3 * (i - 1), *b = p->r + 3 * i;
        cr_assert(a[0] < b[0] || (a[0] == b[0] && (a[1] < b[1] || (a[1] == b[1] && a[2] < b[2]))),
                  "points %zu, %zu out of order", i - 1, i);
    }
    const double w = 2.04 / 9;
    static const int off[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                  {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    for (size_t e = 0; e < h->n; e++) {
        const double *c0 = p->r + 3 * h->u[8 * e];
        for (int k = 0; k < 8; k++) {
            const double *c = p->r + 3 * h->u[8 * e + (size_t)k];
            for (int a = 0; a < 3; a++)
                cr_assert(fabs(c[a] - c0[a] - off[k][a] * w) < 1e-12, "hexahedron %zu corner %d",
                          e, k);
        }
    }
    /* Boundary cells first, then inside cells; coefficients 0.5 / 1. */
    const st_array *types = topo_arr(g, "cellTypes");
    const st_array *coef = topo_arr(g, "stiffnessCoefs");
    cr_assert_eq(types->n, 209);
    size_t nb = 0;
    while (nb < types->n && types->u[nb] == 1)
        nb++;
    cr_assert_gt(nb, 0);
    cr_assert_lt(nb, 209, "the pyramid has inside cells");
    for (size_t e = nb; e < types->n; e++)
        cr_assert_eq(types->u[e], 2);
    cr_assert(coef->r[0] == 0.5 && coef->r[208] == 1.0);
    /* Edges and quads derived from the hexahedra, without duplicates. */
    cr_assert_gt(topo_arr(g, "edges")->n, 0);
    cr_assert_gt(topo_arr(g, "quads")->n, 0);
    cr_assert_eq(topo_arr(g, "triangles")->n, 0);
    st_scene_destroy(&s);

    /* onlyInsideCells keeps the inside cells only. */
    s = topo_scene(
        &T, SPARSE_HEAD "    - SparseGridTopology: {name: g, n: [10, 10, 10], onlyInsideCells: "
                        "true, position: [[0, 0, 1], [-1, 0, -1], [0, 1, -1], [1, 0, -1], "
                        "[0, -1, -1]], triangles: [[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 1], "
                        "[1, 2, 3], [3, 4, 1]]}\n");
    cr_assert_eq(topo_arr(topo_get(s, "g"), "hexahedra")->n, 209 - nb);
    st_scene_destroy(&s);
}

/* A unit cube surface (12 triangles) in an OBJ file, on a 5 x 5 x 5 grid
 * over its box grown by 1 %: every one of the 64 cells touches or lies
 * inside the cube (125 points); the outer layer of 56 cells meets the
 * surface, the 8 cells within are inside. */
Test(topology, sparse_grid_cube_from_obj_file)
{
    const char *path = topo_unit_cube_obj();
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             SPARSE_HEAD "    - SparseGridTopology: {name: g, n: [5, 5, 5], fileTopology: \"%s\"}\n",
             path);
    st_scene *s = topo_scene(&T, yaml);
    st_component *g = topo_get(s, "g");
    cr_assert_eq(topo_arr(g, "position")->n, 125);
    cr_assert_eq(topo_arr(g, "hexahedra")->n, 64);
    const st_array *types = topo_arr(g, "cellTypes");
    size_t inside = 0;
    for (size_t e = 0; e < types->n; e++)
        inside += types->u[e] == 2;
    cr_assert_eq(inside, 8);
    /* 3 * 5 * 5 * 4 = 300 edges and 3 * 5 * 4 * 4 = 240 faces. */
    cr_assert_eq(topo_arr(g, "edges")->n, 300);
    cr_assert_eq(topo_arr(g, "quads")->n, 240);
    st_scene_destroy(&s);
    /* cellWidth sets n from the box (1.02 + 0.02 = 1.04 wide): ceil(1.04 /
     * 0.5) + 1 = 4 points per axis. */
    snprintf(yaml, sizeof yaml,
             SPARSE_HEAD "    - SparseGridTopology: {name: g, cellWidth: 0.5, fileTopology: \"%s\"}\n",
             path);
    s = topo_scene(&T, yaml);
    const double *n = st_component_field_ptr(topo_get(s, "g"), st_component_field(topo_get(s, "g"), "n"));
    cr_assert(n[0] == 4 && n[1] == 4 && n[2] == 4, "n = %g %g %g", n[0], n[1], n[2]);
    st_scene_destroy(&s);
}

Test(topology, sparse_grid_refusals)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, SPARSE_HEAD "    - SparseGridTopology: {name: g}\n", &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "no filename"), "%s", err.msg);
    cr_assert_neq(topo_scene_fails(&T,
                                   SPARSE_HEAD "    - SparseGridTopology: {name: g, fileTopology: "
                                               "\"x.stl\"}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "only OBJ surfaces and .voxel"), "%s", err.msg);
    cr_assert_neq(topo_scene_fails(&T,
                                   SPARSE_HEAD "    - SparseGridTopology: {name: g, "
                                               "nbVirtualFinerLevels: -1, position: [[0,0,0]]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "nbVirtualFinerLevels"), "%s", err.msg);
}

/* ---- SparseGridTopology from voxel files ---- */

/* Writes n bytes to a file under the test's TMPDIR. */
static const char *write_bytes(const char *name, const unsigned char *b, size_t n)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/settee-test-%d-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid(), name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(b, 1, n, f), n);
    fclose(f);
    return path;
}

static st_scene *sparse_file(const char *path, const char *fields)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             SPARSE_HEAD "    - SparseGridTopology: {name: g, fileTopology: \"%s\"%s%s}\n", path,
             fields[0] ? ", " : "", fields);
    return topo_scene(&T, yaml);
}

static void assert_point(const st_array *p, size_t i, double x, double y, double z)
{
    const double *q = p->r + 3 * i;
    cr_assert(fabs(q[0] - x) < 1e-12 && fabs(q[1] - y) < 1e-12 && fabs(q[2] - z) < 1e-12,
              "point %zu = (%g %g %g), expected (%g %g %g)", i, q[0], q[1], q[2], x, y, z);
}

/* An ASCII .voxel file of 3 x 2 x 1 voxels of size 0.75 x 1.5 x 2.5 with
 * voxels (0,0), (1,0), (1,1) full. SOFA: n = counts + 1 = 4 3 2, min 0,
 * max = (int)(size * count) = (int)2.25, (int)3, (int)2.5 = 2 3 2; the
 * full voxels are INSIDE cells 0, 1, 4 in that order; their 16 corners,
 * sorted by x, y, z, are numbered 0..15 below. */
Test(topology, sparse_grid_voxel_file_as_sofa)
{
    const char *path = test_write_temp("grid.voxel", "3 2 1\n0.75 1.5 2.5\n1 1 0\n0 255 0\n");
    st_scene *s = sparse_file(path, "n: [7, 7, 7], fillWeighted: true");
    st_component *g = topo_get(s, "g");
    const double *n = st_component_field_ptr(g, st_component_field(g, "n"));
    const double *mx = st_component_field_ptr(g, st_component_field(g, "max"));
    cr_assert(n[0] == 4 && n[1] == 3 && n[2] == 2, "n = %g %g %g", n[0], n[1], n[2]);
    cr_assert(mx[0] == 2 && mx[1] == 3 && mx[2] == 2, "max = %g %g %g", mx[0], mx[1], mx[2]);
    const st_array *p = topo_arr(g, "position");
    cr_assert_eq(p->n, 16);
    /* Grid points (i, j, k) at (2i/3, 1.5 j, 2 k). */
    static const int ijk[16][3] = {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 1}, {1, 0, 0}, {1, 0, 1},
                                   {1, 1, 0}, {1, 1, 1}, {1, 2, 0}, {1, 2, 1}, {2, 0, 0}, {2, 0, 1},
                                   {2, 1, 0}, {2, 1, 1}, {2, 2, 0}, {2, 2, 1}};
    for (size_t i = 0; i < 16; i++)
        assert_point(p, i, ijk[i][0] * 2.0 / 3.0, ijk[i][1] * 1.5, ijk[i][2] * 2.0);
    const unsigned hexa[] = {0, 4, 6, 2, 1, 5, 7, 3,  4, 10, 12, 6, 5, 11, 13, 7,
                             6, 12, 14, 8, 7, 13, 15, 9};
    topo_assert_tuples(topo_arr(g, "hexahedra"), 8, hexa, 3, "hexahedra");
    const st_array *types = topo_arr(g, "cellTypes"), *k = topo_arr(g, "stiffnessCoefs");
    for (size_t e = 0; e < 3; e++)
        cr_assert(types->u[e] == 2 && k->r[e] == 1.0, "voxel cells are INSIDE with coefficient 1");
    st_scene_destroy(&s);
    /* onlyInsideCells keeps them all (there are no boundary cells). */
    s = sparse_file(path, "onlyInsideCells: true");
    cr_assert_eq(topo_arr(topo_get(s, "g"), "hexahedra")->n, 3);
    st_scene_destroy(&s);
}

/* A binary .raw file of dataResolution 4 x 2 x 2 (x fastest) on a grid n =
 * 3 3 2, voxelSize 0.5 1 2: the grid spans 0..(2, 2, 4); voxel (x, y, z)
 * falls in cell ((int)(x/2), (int)y, (int)(z/2)). Voxels (3,0,0), (0,1,1)
 * and (1,1,1) give cells 1 = (1,0,0) and 2 = (0,1,0). */
Test(topology, sparse_grid_raw_file_as_sofa)
{
    unsigned char b[16] = {0};
    b[3 + 0 + 0] = 7;
    b[0 + 4 + 8] = 1;
    b[1 + 4 + 8] = 200;
    const char *path = write_bytes("grid.raw", b, sizeof b);
    st_scene *s = sparse_file(path, "n: [3, 3, 2], dataResolution: [4, 2, 2], voxelSize: [0.5, 1, 2]");
    st_component *g = topo_get(s, "g");
    const double *mx = st_component_field_ptr(g, st_component_field(g, "max"));
    cr_assert(mx[0] == 2 && mx[1] == 2 && mx[2] == 4, "max = %g %g %g", mx[0], mx[1], mx[2]);
    const st_array *p = topo_arr(g, "position");
    cr_assert_eq(p->n, 14);
    static const int ijk[14][3] = {{0, 1, 0}, {0, 1, 1}, {0, 2, 0}, {0, 2, 1}, {1, 0, 0},
                                   {1, 0, 1}, {1, 1, 0}, {1, 1, 1}, {1, 2, 0}, {1, 2, 1},
                                   {2, 0, 0}, {2, 0, 1}, {2, 1, 0}, {2, 1, 1}};
    for (size_t i = 0; i < 14; i++)
        assert_point(p, i, ijk[i][0], ijk[i][1], ijk[i][2] * 4.0);
    const unsigned hexa[] = {4, 10, 12, 6, 5, 11, 13, 7, 0, 6, 8, 2, 1, 7, 9, 3};
    topo_assert_tuples(topo_arr(g, "hexahedra"), 8, hexa, 2, "hexahedra");
    st_scene_destroy(&s);
    /* A file shorter than dataResolution, a missing dataResolution, and
     * virtual levels on a .raw file (SOFA builds nothing) are errors. */
    st_error err = {0};
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             SPARSE_HEAD "    - SparseGridTopology: {name: g, fileTopology: \"%s\", n: [3, 3, 2], "
                         "dataResolution: [4, 2, 3]}\n",
             path);
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "needs 24 bytes, the file has 16"), "%s", err.msg);
    snprintf(yaml, sizeof yaml,
             SPARSE_HEAD "    - SparseGridTopology: {name: g, fileTopology: \"%s\"}\n", path);
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "dataResolution"), "%s", err.msg);
    snprintf(yaml, sizeof yaml,
             SPARSE_HEAD "    - SparseGridTopology: {name: g, fileTopology: \"%s\", "
                         "dataResolution: [4, 2, 2], nbVirtualFinerLevels: 1}\n",
             path);
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "empty grid"), "%s", err.msg);
}

Test(topology, sparse_grid_bad_voxel_files)
{
    st_error err = {0};
    char yaml[2048];
    const char *bad[][2] = {{"short.voxel", "2 2 1\n1 1 1\n1 0 1\n"},
                            {"head.voxel", "2 2\n"},
                            {"flat.voxel", "3 1 1\n0.2 1 1\n1 1 1\n"}};
    const char *want[] = {"4 voxel values expected, found 3", "starts with the voxel counts",
                          "truncates"};
    for (int i = 0; i < 3; i++) {
        snprintf(yaml, sizeof yaml,
                 SPARSE_HEAD "    - SparseGridTopology: {name: g, fileTopology: \"%s\"}\n",
                 test_write_temp(bad[i][0], bad[i][1]));
        cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
        cr_assert(strstr(err.msg, want[i]), "%s: %s", bad[i][0], err.msg);
    }
}

/* ---- nbVirtualFinerLevels ---- */

/* A .voxel file of 4 x 4 x 2 unit voxels with one virtual finer level: the
 * file is the finer level (n 5 5 3); the coarse grid has 5/2+1 = 3, 3, 3/2+1
 * = 2 points per axis, cells twice as wide, visited x slowest: (0,0), (0,1),
 * (1,0), (1,1). Coarse (0,0) holds 8 full voxels (INSIDE, 1), (0,1) 2
 * (BOUNDARY, 2/8), (1,0) 1 (1/8), (1,1) 4 (4/8). */
Test(topology, sparse_grid_virtual_level_from_voxels)
{
    /* values[z][y][x] */
    int v[2][4][4] = {{{0}}};
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 2; x++)
                v[z][y][x] = 1;
    v[0][0][2] = 1;
    v[0][2][0] = v[1][3][1] = 1;
    v[0][2][2] = v[0][2][3] = v[1][3][2] = v[1][3][3] = 1;
    char text[512] = "4 4 2\n1 1 1\n";
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++)
                strcat(text, v[z][y][x] ? "1 " : "0 ");
    const char *path = test_write_temp("virtual.voxel", text);
    st_scene *s = sparse_file(path, "n: [3, 3, 2], nbVirtualFinerLevels: 1");
    st_component *g = topo_get(s, "g");
    const st_array *p = topo_arr(g, "position");
    cr_assert_eq(p->n, 18);
    for (size_t i = 0; i < 18; i++)
        assert_point(p, i, 2.0 * (double)(i / 6), 2.0 * (double)(i / 2 % 3), 2.0 * (double)(i % 2));
    /* Corner (i, j, k) is point 6i + 2j + k. */
    const unsigned hexa[] = {0, 6, 8, 2, 1, 7, 9, 3,   2, 8, 10, 4, 3, 9, 11, 5,
                             6, 12, 14, 8, 7, 13, 15, 9, 8, 14, 16, 10, 9, 15, 17, 11};
    topo_assert_tuples(topo_arr(g, "hexahedra"), 8, hexa, 4, "hexahedra");
    const st_array *types = topo_arr(g, "cellTypes"), *k = topo_arr(g, "stiffnessCoefs"),
                   *m = topo_arr(g, "massCoefs");
    const unsigned want_t[] = {2, 1, 1, 1};
    const double want_k[] = {1, 0.25, 0.125, 0.5};
    for (size_t e = 0; e < 4; e++) {
        cr_assert_eq(types->u[e], want_t[e], "type of hexahedron %zu", e);
        cr_assert(k->r[e] == want_k[e] && m->r[e] == want_k[e], "coefficient of %zu: %g", e,
                  k->r[e]);
    }
    st_scene_destroy(&s);
}

/* The unit cube OBJ with n = 3 and one virtual level: the finer 5 x 5 x 5
 * grid has 56 BOUNDARY cells and 8 INSIDE ones (see the test above); each
 * of the 8 coarse cells holds 7 boundary children and 1 inside one, so it
 * is BOUNDARY with coefficient (7 * 0.5 + 1) / 8 = 0.5625 with
 * fillWeighted, 8 / 8 = 1 without. The hexahedra come k fastest. */
Test(topology, sparse_grid_virtual_level_from_surface)
{
    const char *path = topo_unit_cube_obj();
    for (int fw = 0; fw < 2; fw++) {
        st_scene *s = sparse_file(path, fw ? "n: [3, 3, 3], nbVirtualFinerLevels: 1"
                                           : "n: [3, 3, 3], nbVirtualFinerLevels: 1, "
                                             "fillWeighted: false");
        st_component *g = topo_get(s, "g");
        cr_assert_eq(topo_arr(g, "position")->n, 27);
        const st_array *h = topo_arr(g, "hexahedra");
        cr_assert_eq(h->n, 8);
        /* Hexahedron 1 is cell (0, 0, 1); point (i, j, k) is 9i + 3j + k. */
        const unsigned h1[] = {1, 10, 13, 4, 2, 11, 14, 5};
        for (int c = 0; c < 8; c++)
            cr_assert_eq(h->u[8 + c], h1[c]);
        const st_array *types = topo_arr(g, "cellTypes"), *k = topo_arr(g, "stiffnessCoefs");
        for (size_t e = 0; e < 8; e++)
            cr_assert(types->u[e] == 1 && k->r[e] == (fw ? 0.5625 : 1.0), "hexahedron %zu: %u %g",
                      e, types->u[e], k->r[e]);
        st_scene_destroy(&s);
    }
}

/* The pyramid of SOFA's test with n = 10 and two virtual levels against the
 * same pyramid voxelised directly with n = (10 - 1) * 4 + 1 = 37 (the same
 * box): every coarse hexahedron's coefficient is the mean over its 64
 * fine cells (0.5 boundary, 1 inside, 0 absent), it is INSIDE exactly when
 * all 64 are INSIDE, and no coarse cell with a fine cell is missing. */
Test(topology, sparse_grid_virtual_levels_match_the_fine_grid)
{
#define PYRAMID                                                                                   \
    "position: [[0, 0, 1], [-1, 0, -1], [0, 1, -1], [1, 0, -1], [0, -1, -1]], triangles: [[0, "   \
    "1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 1], [1, 2, 3], [3, 4, 1]]"
    st_scene *fs = topo_scene(&T, SPARSE_HEAD "    - SparseGridTopology: {name: g, n: [37, 37, "
                                              "37], " PYRAMID "}\n");
    st_scene *cs = topo_scene(&T, SPARSE_HEAD "    - SparseGridTopology: {name: g, n: [10, 10, "
                                              "10], nbVirtualFinerLevels: 2, " PYRAMID "}\n");
    st_component *f = topo_get(fs, "g"), *c = topo_get(cs, "g");
    const st_array *fp = topo_arr(f, "position"), *fh = topo_arr(f, "hexahedra");
    const st_array *ft = topo_arr(f, "cellTypes");
    const st_array *cp = topo_arr(c, "position"), *ch = topo_arr(c, "hexahedra");
    const st_array *ct = topo_arr(c, "cellTypes"), *ck = topo_arr(c, "stiffnessCoefs");
    const double lo = -1.02, w = 2.04 / 36; /* fine cell width */
    static double sum[9][9][9];
    static int full[9][9][9], seen[9][9][9];
    memset(sum, 0, sizeof sum), memset(full, 0, sizeof full), memset(seen, 0, sizeof seen);
    for (size_t e = 0; e < fh->n; e++) {
        const double *q = fp->r + 3 * fh->u[8 * e];
        int i = (int)floor((q[0] - lo) / w + 0.5), j = (int)floor((q[1] - lo) / w + 0.5),
            k = (int)floor((q[2] - lo) / w + 0.5);
        sum[i / 4][j / 4][k / 4] += ft->u[e] == 1 ? 0.5 : 1.0;
        full[i / 4][j / 4][k / 4] += ft->u[e] == 2;
    }
    cr_assert_gt(ch->n, 0);
    int last = -1;
    for (size_t e = 0; e < ch->n; e++) {
        const double *q = cp->r + 3 * ch->u[8 * e];
        int i = (int)floor((q[0] - lo) / (4 * w) + 0.5), j = (int)floor((q[1] - lo) / (4 * w) + 0.5),
            k = (int)floor((q[2] - lo) / (4 * w) + 0.5);
        int order = (i * 9 + j) * 9 + k;
        cr_assert_gt(order, last, "coarse hexahedra come x slowest, z fastest");
        last = order;
        seen[i][j][k] = 1;
        cr_assert(fabs(ck->r[e] - sum[i][j][k] / 64) < 1e-15, "cell %d %d %d: %g vs %g", i, j, k,
                  ck->r[e], sum[i][j][k] / 64);
        cr_assert_eq(ct->u[e], full[i][j][k] == 64 ? 2u : 1u);
    }
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++)
            for (int k = 0; k < 9; k++)
                cr_assert(seen[i][j][k] || sum[i][j][k] == 0, "cell %d %d %d missing", i, j, k);
    st_scene_destroy(&fs);
    st_scene_destroy(&cs);
#undef PYRAMID
}
