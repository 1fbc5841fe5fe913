/* test_roi.c - BoxROI and SphereROI: defaults (the (0,0,0,1,1,1) box,
 * inclusive bounds, rest positions of the node's MechanicalObject, element
 * lists from the node's topology), every field, outputs recomputed when an
 * input changes, and bad values. */
#include <math.h>
#include <stdio.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(roi, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Select,"                           \
    " Sofa.Component.Topology.Container.Grid, Sofa.Component.Topology.Container.Constant]}\n"

#define THREE_POINTS "    - MechanicalObject: {name: dofs, position: [[0,0,0],[1,1,1],[2,2,2]]}\n"

static void assert_uints(const st_array *a, const unsigned *want, size_t n, const char *what)
{
    topo_assert_tuples(a, 1, want, n, what);
}

Test(roi, default_box_bounds_inclusive)
{
    st_scene *s = topo_scene(&T, HEAD THREE_POINTS "    - BoxROI: {name: box}\n");
    st_component *b = topo_get(s, "box");
    const unsigned want[] = {0, 1};
    assert_uints(topo_arr(b, "indices"), want, 2, "indices");
    const st_array *box = topo_arr(b, "box");
    cr_assert_eq(box->n, 6);
    cr_assert(box->r[3] == 1 && box->r[0] == 0);
    const st_array *pin = topo_arr(b, "pointsInROI");
    cr_assert_eq(pin->n, 2);
    cr_assert_eq(pin->r[3], 1.0);
    const unsigned out[] = {2};
    assert_uints(topo_arr(b, "indicesOut"), out, 1, "indicesOut");
    cr_assert_eq(*(unsigned *)st_component_field_ptr(b, st_component_field(b, "nbIndices")), 2);
    st_scene_destroy(&s);
}

Test(roi, uses_rest_positions)
{
    /* The current position moved away; the rest position decides. */
    st_scene *s = topo_scene(&T, HEAD "    - MechanicalObject: {name: dofs, position: [[5,5,5],"
                                      "[0.5,0.5,0.5]], rest_position: [[0.5,0.5,0.5],[5,5,5]]}\n"
                                      "    - BoxROI: {name: box}\n");
    const unsigned want[] = {0};
    assert_uints(topo_arr(topo_get(s, "box"), "indices"), want, 1, "indices");
    st_scene_destroy(&s);
}

static const char *BEAM =
    HEAD "    - MechanicalObject: {name: dofs}\n"
         "    - RegularGridTopology: {name: topology, nx: 4, ny: 4, nz: 11, xmin: -1.5, xmax: 1.5,"
         " ymin: -1.5, ymax: 1.5, zmin: 0, zmax: 10}\n"
         "    - BoxROI: {name: box, box: \"-1.5 -1.5 0 1.5 1.5 0.0001\"%s}\n";

Test(roi, seed_beam_box_selects_the_bottom_layer)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, BEAM, "");
    st_scene *s = topo_scene(&T, yaml);
    st_component *b = topo_get(s, "box");
    unsigned want[16];
    for (unsigned i = 0; i < 16; i++)
        want[i] = i;
    assert_uints(topo_arr(b, "indices"), want, 16, "indices");
    /* Elements from the node's topology: 9 bottom quads, 18 triangles, 12 + 12 + 9 edges,
     * no hexahedra. */
    cr_assert_eq(topo_arr(b, "quadsInROI")->n, 9);
    cr_assert_eq(topo_arr(b, "quadIndices")->n, 9);
    cr_assert_eq(topo_arr(b, "trianglesInROI")->n, 18);
    cr_assert_eq(topo_arr(b, "edgesInROI")->n, 33);
    cr_assert_eq(topo_arr(b, "hexahedraInROI")->n, 0);
    cr_assert_eq(topo_arr(b, "hexahedronOutIndices")->n, 90);
    /* Indices increase. */
    const st_array *ei = topo_arr(b, "edgeIndices");
    for (size_t i = 1; i < ei->n; i++)
        cr_assert_lt(ei->u[i - 1], ei->u[i]);
    st_scene_destroy(&s);
}

Test(roi, strict_false_tests_barycentres)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, BEAM, ", strict: false");
    /* Box around z in [0, 1.0001]: hexahedra of the first layer have their centre at z = 0.5. */
    char *p = strstr(yaml, "0.0001");
    memcpy(p, "1.0001", 6);
    st_scene *s = topo_scene(&T, yaml);
    cr_assert_eq(topo_arr(topo_get(s, "box"), "hexahedraInROI")->n, 9);
    st_scene_destroy(&s);
    snprintf(yaml, sizeof yaml, BEAM, ", strict: true, computeHexahedra: false");
    p = strstr(yaml, "0.0001");
    memcpy(p, "1.0001", 6);
    s = topo_scene(&T, yaml);
    cr_assert_eq(topo_arr(topo_get(s, "box"), "hexahedraInROI")->n, 0);
    cr_assert_eq(topo_arr(topo_get(s, "box"), "hexahedronOutIndices")->n, 0);
    cr_assert_eq(topo_arr(topo_get(s, "box"), "indices")->n, 32);
    st_scene_destroy(&s);
}

Test(roi, several_boxes_and_reversed_bounds)
{
    st_scene *s = topo_scene(&T, HEAD "    - MechanicalObject: {name: dofs, position: [[0,0,0],"
                                      "[1,1,1],[2,2,2],[3,3,3]]}\n"
                                      "    - BoxROI: {name: box, box: [1,1,1, 0,0,0, "
                                      "2.5,2.5,2.5, 3,3,3]}\n");
    st_component *b = topo_get(s, "box");
    const unsigned want[] = {0, 1, 3};
    assert_uints(topo_arr(b, "indices"), want, 3, "indices");
    const st_array *box = topo_arr(b, "box");
    cr_assert(box->r[0] == 0 && box->r[3] == 1, "reversed bounds swapped at init");
    st_scene_destroy(&s);
}

Test(roi, oriented_box)
{
    /* Unit square in the xy plane from (0,0,0), extruded 0.2 along z. */
    st_scene *s = topo_scene(&T, HEAD "    - MechanicalObject: {name: dofs, position: [[0.5,0.5,0],"
                                      "[0.5,0.5,0.2],[1.5,0.5,0],[0.5,0.5,0.1]]}\n"
                                      "    - BoxROI: {name: box, orientedBox: [0,0,0, 1,0,0, "
                                      "1,1,0, 0.2]}\n");
    st_component *b = topo_get(s, "box");
    const unsigned want[] = {0, 3};
    assert_uints(topo_arr(b, "indices"), want, 2, "indices");
    /* Given an oriented box only, no default aligned box is added. */
    cr_assert_eq(topo_arr(b, "box")->n, 0);
    st_scene_destroy(&s);
}

Test(roi, explicit_position_and_lists)
{
    st_scene *s = topo_scene(&T, HEAD "    - BoxROI: {name: box, position: [[0,0,0],[3,0,0],"
                                      "[0.5,0,0]], edges: [[0, 1], [0, 2]], box: [0,0,0,1,1,1]}\n");
    st_component *b = topo_get(s, "box");
    const unsigned want[] = {0, 2};
    assert_uints(topo_arr(b, "indices"), want, 2, "indices");
    const unsigned e[] = {1};
    assert_uints(topo_arr(b, "edgeIndices"), e, 1, "edgeIndices");
    const unsigned eo[] = {0};
    assert_uints(topo_arr(b, "edgeOutIndices"), eo, 1, "edgeOutIndices");
    st_scene_destroy(&s);
}

Test(roi, outputs_recompute_when_an_input_changes)
{
    st_scene *s = topo_scene(&T, HEAD THREE_POINTS
                             "    - BoxROI: {name: box}\n"
                             "  children:\n"
                             "    - name: reader\n"
                             "      objects:\n"
                             "        - MeshTopology: {name: sel, position: \"@../box.pointsInROI\"}\n");
    st_component *b = topo_get(s, "box"), *sel = topo_get(s, "/reader/sel");
    cr_assert_eq(topo_arr(sel, "position")->n, 2);
    st_error err = {0};
    cr_assert_eq(st_component_set(b, "box", "1.5 1.5 1.5 3 3 3", &err), ST_OK, "%s", err.msg);
    /* The reader pulls: the engine runs because its input changed. */
    cr_assert_eq(st_component_update_inputs(sel, &err), ST_OK, "%s", err.msg);
    const st_array *p = topo_arr(sel, "position");
    cr_assert_eq(p->n, 1);
    cr_assert_eq(p->r[0], 2.0);
    const unsigned want[] = {2};
    assert_uints(topo_arr(b, "indices"), want, 1, "indices");
    /* doUpdate false: the selection stays. */
    cr_assert_eq(st_component_set(b, "doUpdate", "false", &err), ST_OK);
    cr_assert_eq(st_component_set(b, "box", "0 0 0 3 3 3", &err), ST_OK);
    cr_assert_eq(st_component_update_inputs(sel, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(topo_arr(b, "indices")->n, 1);
    st_scene_destroy(&s);
}

/* Index lists of different widths link into each other as SOFA's text
 * conversion does: triangles into an index list flatten, an index list into
 * triangles regroups, and a count that is not whole elements is refused. */
Test(roi, index_lists_link_across_widths)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, BEAM, "");
    char full[4096];
    snprintf(full, sizeof full,
             "%s    - RequiredPlugin: {pluginName: Sofa.Component.Constraint.Projective}\n"
             "    - FixedProjectiveConstraint: {name: fix, indices: \"@box.trianglesInROI\"}\n"
             "    - BoxROI: {name: back, box: \"-9 -9 -9 9 9 9\", triangles: \"@fix.indices\"}\n",
             yaml);
    st_scene *s = topo_scene(&T, full);
    const st_array *tri = topo_arr(topo_get(s, "box"), "trianglesInROI");
    const st_array *idx = topo_arr(topo_get(s, "fix"), "indices");
    cr_assert_eq(tri->n, 18);
    cr_assert_eq(idx->n, 54);
    for (size_t i = 0; i < 54; i++)
        cr_assert_eq(idx->u[i], tri->u[i], "index %zu", i);
    const st_array *back = topo_arr(topo_get(s, "back"), "trianglesInROI");
    cr_assert_eq(back->n, 18);
    for (size_t i = 0; i < 54; i++)
        cr_assert_eq(back->u[i], tri->u[i], "regrouped index %zu", i);
    st_scene_destroy(&s);

    snprintf(full, sizeof full,
             "%s    - BoxROI: {name: odd, box: \"-9 -9 -9 9 9 9\", triangles: \"@box.indices\"}\n",
             yaml);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, full, &err), ST_OK);
    cr_assert(strstr(err.msg, "16 indices") && strstr(err.msg, "triangles"), "%s", err.msg);
}

Test(roi, bad_values_are_errors)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD THREE_POINTS "    - BoxROI: {box: [0, 0, 0, 1, 1]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "6 reals"), "%s", err.msg);
    cr_assert(strstr(err.where, "test.yaml:7:"), "%s", err.where);
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, HEAD THREE_POINTS "    - BoxROI: {orientedBox: [0, 0, 0]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "10 reals"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - BoxROI: {}\n", &err), ST_OK);
    cr_assert(strstr(err.msg, "no position"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, HEAD THREE_POINTS "    - BoxROI: {indices: [1]}\n", &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "read-only"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, HEAD THREE_POINTS "    - BoxROI: {strict: maybe}\n", &err),
                  ST_OK);
    cr_assert(strstr(err.where, "test.yaml:7:"), "%s", err.where);
}

Test(roi, aliases)
{
    st_scene *s = topo_scene(&T, HEAD THREE_POINTS "    - BoxROI: {name: box, drawBoxes: true,"
                                                   " computeQuad: false, quad: [[0, 1, 2, 0]]}\n");
    st_component *b = topo_get(s, "box");
    cr_assert(*(bool *)st_component_field_ptr(b, st_component_field(b, "drawROI")));
    cr_assert_eq(topo_arr(b, "quadInROI")->n, 0);
    st_scene_destroy(&s);
}

Test(roi, sphere_roi)
{
    st_scene *s = topo_scene(&T, HEAD "    - MechanicalObject: {name: dofs, position: [[0,0,0],"
                                      "[1,0,0],[0,0.5,0],[3,0,0],[3.5,0,0]]}\n"
                                      "    - MeshTopology: {name: t, edges: [[0,1],[0,2],[3,4],"
                                      "[1,3]]}\n"
                                      "    - SphereROI: {name: sph, centers: [[0,0,0],[3,0,0]],"
                                      " radii: [1, 0.5]}\n");
    st_component *r = topo_get(s, "sph");
    const unsigned want[] = {0, 1, 2, 3, 4};
    assert_uints(topo_arr(r, "indices"), want, 5, "indices");
    /* (1,3) has both ends selected but in different spheres: not in the ROI. */
    const unsigned e[] = {0, 1, 2};
    assert_uints(topo_arr(r, "edgeIndices"), e, 3, "edgeIndices");
    st_scene_destroy(&s);

    /* One radius serves every center. */
    s = topo_scene(&T, HEAD THREE_POINTS "    - SphereROI: {name: sph, centers: [[0,0,0],[2,2,2]],"
                                         " radii: [0.1]}\n");
    const unsigned w2[] = {0, 2};
    assert_uints(topo_arr(topo_get(s, "sph"), "indices"), w2, 2, "indices");
    st_scene_destroy(&s);

    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD THREE_POINTS "    - SphereROI: {centers: [[0,0,0],"
                                                         "[1,1,1]], radii: [1, 2, 3]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "mismatch"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, HEAD THREE_POINTS "    - SphereROI: {centers: [[0,0,0]],"
                                                         " radii: [-1]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "negative"), "%s", err.msg);
}
