/* test_identity_center_point_mappings.c - IdentityTopologicalMapping and
 * CenterPointTopologicalMapping (issue 30), on small meshes worked by hand:
 * the identity mapping leaves the output's lists equal to the input's after
 * removals and additions of triangles and points (and builds nothing at
 * init, as SOFA's); the centre-point mapping gives the output one point per
 * hexahedron (its state resized) and follows hexahedra removed and added. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(identity_center_point, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic,"              \
    " Sofa.Component.Topology.Mapping, Sofa.Component.StateContainer]}\n"

static unsigned nb_points(st_component *c)
{
    return *(unsigned *)st_component_field_ptr(c, st_component_field(c, "nbPoints"));
}

static void assert_same_list(st_component *a, st_component *b, const char *field)
{
    const st_array *x = topo_arr(a, field), *y = topo_arr(b, field);
    cr_assert_eq(x->n, y->n, "%s: %zu vs %zu", field, x->n, y->n);
    unsigned w = st_type_width(st_component_field(a, field)->type);
    if (x->n)
        cr_assert_eq(memcmp(x->u, y->u, x->n * w * sizeof(unsigned)), 0, "%s differ", field);
}

/* Four points, triangles t0 (0,1,2), t1 (1,3,2), t2 (2,3,4) on five points;
 * the output made identical by the scene. */
#define TRI_LISTS "position: [0,0,0, 1,0,0, 0,1,0, 1,1,0, 0,2,0], triangles: [0,1,2, 1,3,2, 2,3,4]"
static const char *IDENTITY = HEAD
    "  children:\n"
    "    - name: In\n"
    "      objects:\n"
    "        - TriangleSetTopologyContainer: {name: in, " TRI_LISTS "}\n"
    "        - TriangleSetTopologyModifier: {}\n"
    "        - MechanicalObject: {name: dofs}\n"
    "      children:\n"
    "        - name: Out\n"
    "          objects:\n"
    "            - TriangleSetTopologyContainer: {name: out, " TRI_LISTS "}\n"
    "            - TriangleSetTopologyModifier: {}\n"
    "            - IdentityTopologicalMapping: {input: \"@../in\", output: \"@out\"}\n";

Test(identity_center_point, identity_follows_removals_and_additions)
{
    st_scene *s = topo_scene(&T, IDENTITY);
    st_component *in = topo_get(s, "In/in"), *out = topo_get(s, "In/Out/out");
    assert_same_list(in, out, "triangles");
    assert_same_list(in, out, "edges");
    st_error err = {0};
    /* removing t0 leaves point 0 alone: the input removes t0, the edges
     * (0,1) and (2,0), then point 0 (the last point, 4, takes its place) */
    unsigned id = 0;
    cr_assert_eq(st_topology_remove(in, ST_ELEM_TRIANGLE, &id, 1, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(topo_arr(in, "triangles")->n, 2u);
    cr_assert_eq(nb_points(in), 4u, "the isolated point went");
    assert_same_list(in, out, "triangles");
    assert_same_list(in, out, "edges");
    cr_assert_eq(nb_points(out), nb_points(in));
    cr_assert_eq(topo_arr(out, "position")->n, 4u);
    /* t2 (2,3,4) was renumbered to (2,3,0) in both */
    const st_array *to = topo_arr(out, "triangles");
    cr_assert(to->u[0] == 2 && to->u[1] == 3 && to->u[2] == 0, "(%u %u %u)", to->u[0], to->u[1],
              to->u[2]);
    /* a new point between 1 and 3, then a triangle on it */
    const size_t start[2] = {0, 2};
    const unsigned anc[2] = {1, 3};
    const double coefs[2] = {0.5, 0.5};
    cr_assert_eq(st_topology_add_points(in, 1, start, anc, coefs, &err), ST_OK, "%s", err.msg);
    const unsigned tri[3] = {1, 4, 3};
    cr_assert_eq(st_topology_add(in, ST_ELEM_TRIANGLE, tri, 1, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(nb_points(out), 5u);
    assert_same_list(in, out, "triangles");
    assert_same_list(in, out, "edges");
    const st_array *po = topo_arr(out, "position");
    cr_assert_eq(po->n, 5u);
    cr_assert_eq(po->r[12], 1.0, "the new point's x: %g", po->r[12]);
    cr_assert_eq(po->r[13], 0.5, "the new point's y: %g", po->r[13]);
    st_scene_destroy(&s);
}

Test(identity_center_point, identity_builds_nothing_at_init)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "  children:\n"
                  "    - name: In\n"
                  "      objects:\n"
                  "        - TriangleSetTopologyContainer: {name: in, " TRI_LISTS "}\n"
                  "      children:\n"
                  "        - name: Out\n"
                  "          objects:\n"
                  "            - TriangleSetTopologyContainer: {name: out}\n"
                  "            - IdentityTopologicalMapping: {input: \"@../in\", output:"
                  " \"@out\"}\n");
    st_scene *s = topo_scene(&T, yaml);
    cr_assert_eq(topo_arr(topo_get(s, "In/Out/out"), "triangles")->n, 0u,
                 "SOFA's init copies nothing");
    st_scene_destroy(&s);
}

/* Two unit cubes side by side: 12 points, 2 hexahedra. */
static const char *CENTER = HEAD
    "  children:\n"
    "    - name: In\n"
    "      objects:\n"
    "        - HexahedronSetTopologyContainer: {name: in, position: [0,0,0, 1,0,0, 1,1,0,"
    " 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1, 2,0,0, 2,1,0, 2,0,1, 2,1,1],"
    " hexahedra: [0,1,2,3,4,5,6,7, 1,8,9,2,5,10,11,6]}\n"
    "        - HexahedronSetTopologyModifier: {}\n"
    "        - MechanicalObject: {name: dofs}\n"
    "      children:\n"
    "        - name: Out\n"
    "          objects:\n"
    "            - PointSetTopologyContainer: {name: out}\n"
    "            - PointSetTopologyModifier: {}\n"
    "            - CenterPointTopologicalMapping: {input: \"@../in\", output: \"@out\"}\n"
    "            - MechanicalObject: {name: centres}\n";

Test(identity_center_point, center_point_one_point_per_hexahedron)
{
    st_scene *s = topo_scene(&T, CENTER);
    st_component *in = topo_get(s, "In/in"), *out = topo_get(s, "In/Out/out");
    const st_mstate *c = (const st_mstate *)topo_get(s, "In/Out/centres");
    cr_assert_eq(nb_points(out), 2u);
    cr_assert_eq(c->n, 2u, "the state has one point per hexahedron: %zu", c->n);
    st_error err = {0};
    unsigned id = 0;
    cr_assert_eq(st_topology_remove(in, ST_ELEM_HEXAHEDRON, &id, 1, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(nb_points(out), 1u);
    cr_assert_eq(c->n, 1u);
    const unsigned hexa[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    st_component *in2 = topo_get(s, "In/in");
    size_t np = in2->cls->topology->nb_points(in2);
    cr_assert_geq(np, 8u);
    cr_assert_eq(st_topology_add(in, ST_ELEM_HEXAHEDRON, hexa, 1, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(nb_points(out), 2u);
    cr_assert_eq(c->n, 2u);
    st_scene_destroy(&s);
}

Test(identity_center_point, center_point_refuses_a_non_dynamic_output)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "    - RequiredPlugin: {pluginName: Sofa.Component.Topology.Container.Constant}\n"
                  "  children:\n"
                  "    - name: In\n"
                  "      objects:\n"
                  "        - HexahedronSetTopologyContainer: {name: in, position: [0,0,0, 1,0,0,"
                  " 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1], hexahedra: [0,1,2,3,4,5,6,7]}\n"
                  "        - MeshTopology: {name: out}\n"
                  "        - CenterPointTopologicalMapping: {input: \"@in\", output: \"@out\"}\n");
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "output must link a dynamic topology container"), "%s", err.msg);
}
