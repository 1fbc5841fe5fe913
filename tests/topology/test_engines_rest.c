/* test_engines_rest.c - the rest of SOFA's engine modules, against hand
 * computations: SumEngine (Vec3d and Vec1d sums), MathOp (each operation,
 * the shortest input, one input), ROIValueMapper and Indices2ValuesMapper
 * (values by index, defaults), MapIndices (permutation and transpose),
 * ComplementaryROI (the points in no set), MergeROIs and SelectLabelROI
 * (lists of lists, flat), NormalsFromPoints (face normals, corner angles,
 * quads), MergeSets (the four set operations), the two extrusions (points,
 * edges, quads and hexahedra numbered as SOFA), DilateEngine (normals,
 * thickness by ray casting), SelectConnectedLabelsROI, ProjectiveTransformEngine,
 * and their errors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(engines_rest, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Transform,"                       \
    " Sofa.Component.Engine.Select, Sofa.Component.Engine.Analyze,"                               \
    " Sofa.Component.StateContainer, Sofa.Component.Engine.Generate]}\n"

static void assert_reals(const st_array *a, const double *want, size_t n, const char *what)
{
    cr_assert_eq(a->n, n, "%s: %zu values, expected %zu", what, a->n, n);
    for (size_t i = 0; i < n; i++)
        cr_assert(a->r[i] == want[i], "%s[%zu] = %.17g, expected %.17g", what, i, a->r[i],
                  want[i]);
}

Test(engines_rest, sum_engine)
{
    st_scene *s = topo_scene(&T, HEAD "    - SumEngine: {name: s3, input: [1,2,3, 4,5,6, -1,0,0.5]}\n"
                                      "    - SumEngine: {name: s1, template: Vec1d, input: [1, 2, 4]}\n"
                                      "    - SumEngine: {name: s0}\n");
    const double w3[] = {4, 7, 9.5}, w1[] = {7}, w0[] = {0, 0, 0};
    assert_reals(topo_arr(topo_get(s, "s3"), "output"), w3, 1, "s3");
    cr_assert(!memcmp(topo_arr(topo_get(s, "s3"), "output")->r, w3, sizeof w3));
    assert_reals(topo_arr(topo_get(s, "s1"), "output"), w1, 1, "s1");
    cr_assert(!memcmp(topo_arr(topo_get(s, "s0"), "output")->r, w0, sizeof w0), "empty: zero");
    st_scene_destroy(&s);
}

Test(engines_rest, math_op)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - MathOp: {name: add, input1: [1, 2, 3], input2: [10, 20]}\n"
                 "    - MathOp: {name: sub, op: '-', nbInputs: 3, input1: [10, 10], input2: [1, 2],"
                 " input3: [3, 4]}\n"
                 "    - MathOp: {name: mul, op: '*', input1: [2, 3], input2: [4, -1]}\n"
                 "    - MathOp: {name: div, op: '/', input1: [1, 9], input2: [4, 3]}\n"
                 "    - MathOp: {name: mn, op: '<', nbInputs: 3, input1: [5, 1], input2: [2, 7],"
                 " input3: [3, 0]}\n"
                 "    - MathOp: {name: mx, op: '>', input1: [5, 1], input2: [2, 7]}\n"
                 "    - MathOp: {name: neg, op: '-', nbInputs: 1, input1: [2, -3]}\n"
                 "    - MathOp: {name: inv, op: '/', nbInputs: 1, input1: [4, 0.5]}\n");
    const double add[] = {11, 22}, sub[] = {6, 4}, mul[] = {8, -3}, dv[] = {0.25, 3},
                 mn[] = {2, 0}, mx[] = {5, 7}, neg[] = {-2, 3}, inv[] = {0.25, 2};
    assert_reals(topo_arr(topo_get(s, "add"), "output"), add, 2, "+ (shortest input)");
    assert_reals(topo_arr(topo_get(s, "sub"), "output"), sub, 2, "-");
    assert_reals(topo_arr(topo_get(s, "mul"), "output"), mul, 2, "*");
    assert_reals(topo_arr(topo_get(s, "div"), "output"), dv, 2, "/");
    assert_reals(topo_arr(topo_get(s, "mn"), "output"), mn, 2, "<");
    assert_reals(topo_arr(topo_get(s, "mx"), "output"), mx, 2, ">");
    assert_reals(topo_arr(topo_get(s, "neg"), "output"), neg, 2, "- of one");
    assert_reals(topo_arr(topo_get(s, "inv"), "output"), inv, 2, "/ of one");
    st_scene_destroy(&s);
}

Test(engines_rest, math_op_errors)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MathOp: {op: '%', input1: [1]}\n", &err), ST_OK);
    cr_assert(strstr(err.msg, "unknown operation '%'"), "%s", err.msg);
    err = (st_error){0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MathOp: {template: 'vector<bool>', input1: [1]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "template 'vector<bool>' is not supported"), "%s", err.msg);
}

Test(engines_rest, roi_value_mapper_and_indices2values_mapper)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - ROIValueMapper: {name: r, nbROIs: 2, indices1: [0, 3], value1: 5,"
                 " indices2: [3, 5], value2: 7, defaultValue: -1}\n"
                 "    - ROIValueMapper: {name: r0, indices1: [1], value1: 5}\n"
                 "    - Indices2ValuesMapper: {name: i2v, inputValues: [3, 1, 9, 1],"
                 " indices: [1, 3, 1], values: [10, 30, 99]}\n");
    const double r[] = {5, -1, -1, 7, -1, 7}, i2v[] = {30, 10, 1, 10};
    assert_reals(topo_arr(topo_get(s, "r"), "outputValues"), r, 6, "ROIValueMapper");
    cr_assert_eq(topo_arr(topo_get(s, "r0"), "outputValues")->n, 0, "nbROIs 0: nothing");
    assert_reals(topo_arr(topo_get(s, "i2v"), "outputValues"), i2v, 4, "Indices2ValuesMapper");
    st_scene_destroy(&s);
}

Test(engines_rest, map_indices)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - MapIndices: {name: m, in: [4, 2, 7, 4], indices: [2, 4, 9]}\n"
                 "    - MapIndices: {name: t, in: [0, 2, 5], indices: [7, 8, 9], transpose: true}\n");
    /* indices[0] = 2 and indices[1] = 4: 2 -> 0, 4 -> 1; 7 is kept */
    const unsigned m[] = {1, 0, 7, 1}, t[] = {7, 9, 5};
    topo_assert_tuples(topo_arr(topo_get(s, "m"), "out"), 1, m, 4, "MapIndices");
    topo_assert_tuples(topo_arr(topo_get(s, "t"), "out"), 1, t, 3, "MapIndices transpose");
    st_component *mc = topo_get(s, "m");
    char *const *str = st_component_field_ptr(mc, st_component_field(mc, "outStr"));
    cr_assert(*str && !strcmp(*str, "1 0 7 1"), "outStr '%s'", *str ? *str : "(null)");
    st_scene_destroy(&s);
}

Test(engines_rest, complementary_roi)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - ComplementaryROI: {name: c, position: [0,0,0, 1,0,0, 2,0,0, 3,0,0, 4,0,0],"
                 " nbSet: 2, setIndices1: [0, 3], setIndices2: [1]}\n");
    const unsigned idx[] = {2, 4};
    topo_assert_tuples(topo_arr(topo_get(s, "c"), "indices"), 1, idx, 2, "indices");
    const double pts[] = {2, 0, 0, 4, 0, 0};
    const st_array *p = topo_arr(topo_get(s, "c"), "pointsInROI");
    cr_assert_eq(p->n, 2);
    cr_assert(!memcmp(p->r, pts, sizeof pts), "pointsInROI");
    st_scene_destroy(&s);
    /* an index that is no point: SOFA's message, and the rest still computed */
    s = topo_scene(&T, HEAD "    - ComplementaryROI: {name: c, position: [0,0,0, 1,0,0],"
                            " nbSet: 1, setIndices1: [5, 0]}\n");
    cr_assert(strstr(T.log, "index 5 does not exist"), "%s", T.log);
    const unsigned one[] = {1};
    topo_assert_tuples(topo_arr(topo_get(s, "c"), "indices"), 1, one, 1, "indices");
    st_scene_destroy(&s);
}

Test(engines_rest, merge_rois_and_select_label_roi)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - MergeROIs: {name: m, nbROIs: 3, indices1: [4, 1], indices2: [],"
                 " indices3: [7]}\n"
                 "    - SelectLabelROI: {name: l, labels: [2, 1, 4,  1, 3,  0,  3, 5, 6, 4],"
                 " selectLabels: [4, 9]}\n");
    const unsigned m[] = {2, 4, 1, 0, 1, 7}, l[] = {0, 3};
    topo_assert_tuples(topo_arr(topo_get(s, "m"), "roiIndices"), 1, m, 6, "roiIndices");
    topo_assert_tuples(topo_arr(topo_get(s, "l"), "indices"), 1, l, 2, "SelectLabelROI");
    st_scene_destroy(&s);
    /* an input beyond the count: SOFA never creates it; a warning here */
    s = topo_scene(&T, HEAD "    - MergeROIs: {name: m, nbROIs: 1, indices1: [3], indices2: [5]}\n");
    cr_assert(strstr(T.log, "indices2 is set but nbROIs is 1: it is not used"), "%s", T.log);
    const unsigned m1[] = {1, 3};
    topo_assert_tuples(topo_arr(topo_get(s, "m"), "roiIndices"), 1, m1, 2, "roiIndices");
    st_scene_destroy(&s);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - SelectLabelROI: {labels: [2, 1, 4,  3, 5]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "list 1 announces 3 entries but only 1 follow"), "%s", err.msg);
}

/* Two triangles meeting at the edge 0-1: T1 in z = 0 (normal +z), T2 in
 * y = 0 (normal +y, p3 = (0, 0, 2)). At point 1 the corners are 45 degrees
 * (T1) and atan 2 (T2): useAngles weighs the unit normals by them. A unit
 * quad in z = 0 gives +z at its corners; invertNormals gives -z. */
Test(engines_rest, normals_from_points)
{
    st_scene *s = topo_scene(
        &T, "format: settee/1\nroot:\n  objects:\n"
            "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Generate]}\n"
            "    - NormalsFromPoints: {name: n, position: [0,0,0, 1,0,0, 0,1,0, 0,0,2],"
            " triangles: [0,1,2, 0,3,1]}\n"
            "    - NormalsFromPoints: {name: a, position: [0,0,0, 1,0,0, 0,1,0, 0,0,2],"
            " triangles: [0,1,2, 0,3,1], useAngles: true}\n"
            "    - NormalsFromPoints: {name: q, position: [0,0,0, 2,0,0, 2,1,0, 0,1,0],"
            " quads: [0,1,2,3], invertNormals: true}\n");
    const double r = sqrt(0.5);
    const double *n = topo_arr(topo_get(s, "n"), "normals")->r;
    const double wn[] = {0, r, r, 0, r, r, 0, 0, 1, 0, 1, 0};
    for (int i = 0; i < 12; i++)
        cr_assert(fabs(n[i] - wn[i]) < 1e-15, "normals[%d] = %.17g, expected %.17g", i, n[i],
                  wn[i]);
    const double *a = topo_arr(topo_get(s, "a"), "normals")->r;
    const double g = atan(2.0), h = M_PI / 4, l = sqrt(g * g + h * h);
    cr_assert(fabs(a[3] - 0) < 1e-15 && fabs(a[4] - g / l) < 1e-15 && fabs(a[5] - h / l) < 1e-15,
              "point 1 with angles: %g %g %g", a[3], a[4], a[5]);
    cr_assert(fabs(a[1] - r) < 1e-15 && fabs(a[2] - r) < 1e-15, "point 0: two right angles");
    const double *q = topo_arr(topo_get(s, "q"), "normals")->r;
    for (int i = 0; i < 4; i++)
        cr_assert(q[3 * i] == 0 && q[3 * i + 1] == 0 && q[3 * i + 2] == -1, "quad corner %d", i);
    st_scene_destroy(&s);
}

Test(engines_rest, merge_sets)
{
    st_scene *s = topo_scene(
        &T, "format: settee/1\nroot:\n  objects:\n"
            "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Generate]}\n"
            "    - MergeSets: {name: u, in1: [3, 1, 3, 5], in2: [5, 7, 1]}\n"
            "    - MergeSets: {name: i, in1: [3, 1, 3, 5], in2: [5, 7, 1], op: intersection}\n"
            "    - MergeSets: {name: d, in1: [3, 1, 3, 5], in2: [5, 7, 1], op: difference}\n"
            "    - MergeSets: {name: x, in1: [3, 1, 3, 5], in2: [5, 7, 1],"
            " op: symmetric_difference}\n"
            "    - MergeSets: {name: z, in1: [3], in2: [5], op: xor}\n");
    const unsigned u[] = {1, 3, 5, 7}, in[] = {1, 5}, d[] = {3}, x[] = {3, 7};
    topo_assert_tuples(topo_arr(topo_get(s, "u"), "out"), 1, u, 4, "union");
    topo_assert_tuples(topo_arr(topo_get(s, "i"), "out"), 1, in, 2, "intersection");
    topo_assert_tuples(topo_arr(topo_get(s, "d"), "out"), 1, d, 1, "difference");
    topo_assert_tuples(topo_arr(topo_get(s, "x"), "out"), 1, x, 2, "symmetric difference");
    cr_assert_eq(topo_arr(topo_get(s, "z"), "out")->n, 0, "unknown op: SOFA's empty set");
    st_scene_destroy(&s);
}

/* An open curve of 3 points along x, extruded along (0, 2, 0) (not unit:
 * SOFA moves back by direction * thicknessIn as written) in 3 sections of
 * (0.5 + 1) / 3: section n is the curve at y = -1 + 0.5 n. */
Test(engines_rest, extrude_edges_and_generate_quads)
{
    st_scene *s = topo_scene(
        &T, "format: settee/1\nroot:\n  objects:\n"
            "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Generate]}\n"
            "    - ExtrudeEdgesAndGenerateQuads: {name: x, curveVertices: [0,0,0, 1,0,0, 2,0,0],"
            " curveEdges: [0,1, 1,2], extrudeDirection: [0, 2, 0], thicknessIn: 0.5,"
            " numberOfSections: 3}\n");
    st_component *x = topo_get(s, "x");
    const st_array *v = topo_arr(x, "extrudedVertices");
    cr_assert_eq(v->n, 12);
    for (unsigned n = 0; n < 4; n++)
        for (unsigned i = 0; i < 3; i++) {
            const double *p = v->r + 3 * (3 * n + i);
            cr_assert(p[0] == i && p[1] == -1 + 0.5 * n && p[2] == 0, "section %u point %u", n, i);
        }
    const unsigned edges[] = {0, 1, 3, 4, 6, 7, 9, 10, 0, 3, 3, 6, 6, 9,
                              1, 2, 4, 5, 7, 8, 10, 11, 1, 4, 4, 7, 7, 10,
                              2, 5, 5, 8, 8, 11};
    topo_assert_tuples(topo_arr(x, "extrudedEdges"), 2, edges, 17, "extrudedEdges");
    const unsigned quads[] = {0, 1, 4, 3, 3, 4, 7, 6, 6, 7, 10, 9,
                              1, 2, 5, 4, 4, 5, 8, 7, 7, 8, 11, 10};
    topo_assert_tuples(topo_arr(x, "extrudedQuads"), 4, quads, 6, "extrudedQuads");
    st_scene_destroy(&s);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, "format: settee/1\nroot:\n  objects:\n"
                                       "    - RequiredPlugin: {pluginName: [Engine.Generate]}\n"
                                       "    - ExtrudeEdgesAndGenerateQuads: {curveVertices: "
                                       "[0,0,0, 1,0,0], curveEdges: [0,1], numberOfSections: 0}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "numberOfSections is 0"), "%s", err.msg);
}

/* A unit quad in z = 0 (normal +z), scale (2, 1, 1), 2 slices of 1 / 2:
 * vertex i slice n is point 3 i + n at (2 x_i, y_i, n / 2). */
Test(engines_rest, extrude_quads_and_generate_hexas)
{
    st_scene *s = topo_scene(
        &T, "format: settee/1\nroot:\n  objects:\n"
            "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Generate]}\n"
            "    - ExtrudeQuadsAndGenerateHexas: {name: x, surfaceVertices: [0,0,0, 1,0,0, 1,1,0,"
            " 0,1,0], surfaceQuads: [0,1,2,3], scale: [2, 1, 1], numberOfSlices: 2}\n"
            "    - ExtrudeQuadsAndGenerateHexas: {name: f, surfaceVertices: [0,0,0, 1,0,0, 1,1,0,"
            " 0,1,0], surfaceQuads: [0,1,2,3], flipNormals: true}\n");
    st_component *x = topo_get(s, "x");
    const st_array *v = topo_arr(x, "extrudedVertices");
    const double base[4][2] = {{0, 0}, {2, 0}, {2, 1}, {0, 1}};
    cr_assert_eq(v->n, 12);
    for (unsigned i = 0; i < 4; i++)
        for (unsigned n = 0; n < 3; n++) {
            const double *p = v->r + 3 * (3 * i + n);
            cr_assert(p[0] == base[i][0] && p[1] == base[i][1] && p[2] == 0.5 * n,
                      "vertex %u slice %u: %g %g %g", i, n, p[0], p[1], p[2]);
        }
    const unsigned surf[] = {0, 3, 6, 9};
    topo_assert_tuples(topo_arr(x, "extrudedSurfaceQuads"), 4, surf, 1, "surface");
    const unsigned quads[] = {0, 3, 6, 9,  11, 8, 5, 2,  1, 4, 7, 10,  10, 7, 4, 1,
                              0, 1, 4, 3,  3, 4, 7, 6,   6, 7, 10, 9,  9, 10, 1, 0,
                              1, 2, 5, 4,  4, 5, 8, 7,   7, 8, 11, 10, 10, 11, 2, 1};
    topo_assert_tuples(topo_arr(x, "extrudedQuads"), 4, quads, 12, "extrudedQuads");
    const unsigned hexas[] = {9, 6, 3, 0, 10, 7, 4, 1, 10, 7, 4, 1, 11, 8, 5, 2};
    topo_assert_tuples(topo_arr(x, "extrudedHexas"), 8, hexas, 2, "extrudedHexas");
    const unsigned flipped[] = {0, 2, 4, 6, 1, 3, 5, 7};
    topo_assert_tuples(topo_arr(topo_get(s, "f"), "extrudedHexas"), 8, flipped, 1, "flipNormals");
    st_scene_destroy(&s);
}

/* A slab of two triangles facing out (bottom z = 0 normal -z, top z = 1
 * normal +z): every point is 1 from the other face along -normal. With
 * minThickness 3 each moves by distance + (3 - 1) / 2 = 1.5 outwards;
 * without, by distance. A quad's corners move along +z. */
Test(engines_rest, dilate_engine)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - DilateEngine: {name: d, position: [0,0,0, 4,0,0, 0,4,0, 0,0,1, 4,0,1, 0,4,1],"
                 " triangles: [0,2,1, 3,4,5], distance: 0.5, minThickness: 3}\n"
                 "    - DilateEngine: {name: p, input_position: [0,0,0, 4,0,0, 0,4,0, 0,0,1, 4,0,1,"
                 " 0,4,1], triangles: [0,2,1, 3,4,5], distance: 0.5}\n"
                 "    - DilateEngine: {name: q, input_position: [0,0,0, 1,0,0, 1,1,0, 0,1,0],"
                 " quads: [0,1,2,3], distance: -0.25}\n");
    const st_array *th = topo_arr(topo_get(s, "d"), "thickness");
    cr_assert_eq(th->n, 6);
    for (int i = 0; i < 6; i++)
        cr_assert(fabs(th->r[i] - 1) < 1e-15, "thickness[%d] = %.17g", i, th->r[i]);
    const double *o = topo_arr(topo_get(s, "d"), "output_position")->r;
    const double *p = topo_arr(topo_get(s, "p"), "output_position")->r;
    for (int i = 0; i < 6; i++) {
        cr_assert(fabs(o[3 * i + 2] - (i < 3 ? -1.5 : 2.5)) < 1e-15, "point %d z %g", i, o[3 * i + 2]);
        cr_assert(fabs(p[3 * i + 2] - (i < 3 ? -0.5 : 1.5)) < 1e-15, "point %d z %g", i, p[3 * i + 2]);
    }
    cr_assert_eq(topo_arr(topo_get(s, "p"), "thickness")->n, 0, "no thickness without minThickness");
    const double *q = topo_arr(topo_get(s, "q"), "output_position")->r;
    for (int i = 0; i < 4; i++)
        cr_assert(q[3 * i + 2] == -0.25, "quad corner %d", i);
    st_scene_destroy(&s);
}

/* Two label lists over 4 points; connectLabels pairs (1, 7) and (2, 8).
 * Point 0: 1 in list 1, 7 in list 2: selected. Point 1: 7 and 1 swapped
 * between the lists: selected (pairs go both ways). Point 2: 1 and 8, not a
 * pair. Point 3: 1 and 7 both in list 1 (same list): not selected. */
Test(engines_rest, select_connected_labels_roi)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - SelectConnectedLabelsROI: {name: c, nbLabels: 2,"
                 " labels1: [1, 1,  1, 7,  1, 1,  2, 1, 7], labels2: [1, 7,  1, 1,  1, 8,  0],"
                 " connectLabels: [1, 7, 2, 8]}\n"
                 "    - SelectConnectedLabelsROI: {name: one, nbLabels: 1, labels1: [1, 1]}\n");
    const unsigned want[] = {0, 1};
    topo_assert_tuples(topo_arr(topo_get(s, "c"), "indices"), 1, want, 2, "indices");
    cr_assert_eq(topo_arr(topo_get(s, "one"), "indices")->n, 0, "one list: nothing");
    st_scene_destroy(&s);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - SelectConnectedLabelsROI: {nbLabels: 2,"
                                            " labels1: [1, 1,  1, 2], labels2: [1, 7]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "labels2 has 1 points, labels1 2"), "%s", err.msg);
}

/* A pinhole camera P = [I | (0, 0, 1)] with focal distance 2: y = (x, y,
 * z + 1) scaled by 2 / (z + 1). The default (all zeros) gives SOFA's
 * non-finite values with a warning. */
Test(engines_rest, projective_transform_engine)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - ProjectiveTransformEngine: {name: p, input_position: [1,2,3, -1,0,1],"
                 " proj_mat: [1,0,0,0, 0,1,0,0, 0,0,1,1], focal_distance: 2}\n"
                 "    - ProjectiveTransformEngine: {name: z, input_position: [1,2,3]}\n");
    const double *y = topo_arr(topo_get(s, "p"), "output_position")->r;
    const double want[] = {1 * (2.0 / 4), 2 * (2.0 / 4), 4 * (2.0 / 4), -1 * (2.0 / 2), 0, 2};
    for (int i = 0; i < 6; i++)
        cr_assert(y[i] == want[i], "output[%d] = %.17g, expected %.17g", i, y[i], want[i]);
    cr_assert(!isfinite(topo_arr(topo_get(s, "z"), "output_position")->r[0]));
    cr_assert(strstr(T.log, "projects to depth 0"), "%s", T.log);
    st_scene_destroy(&s);
}

/* IndicesFromValues: strings by default (words), numbers with a scalar
 * template (1 equals 1.0), pairs with an Edge tuple, a value not found
 * (SOFA's message, skipped), recursiveSearch (every match, and every
 * non-match once per value in otherIndices), and a link from an index
 * list read as text. */
Test(engines_rest, indices_from_values)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - IndicesFromValues: {name: s, values: 'b a z', global: 'a b c b'}\n"
                 "    - IndicesFromValues: {name: n, template: double, values: '1 3', "
                 "global: '3.0 2 1.0'}\n"
                 "    - IndicesFromValues: {name: e, template: Edge, values: '1 2', "
                 "global: '0 1 1 2 2 3'}\n"
                 "    - IndicesFromValues: {name: r, template: int, values: '2', "
                 "global: '2 5 2 7', recursiveSearch: true}\n"
                 "    - MergeSets: {name: set, in1: [4, 9]}\n"
                 "    - IndicesFromValues: {name: l, template: 'unsigned int', values: '@set.out',"
                 " global: '9 8 7 6 5 4'}\n");
    const unsigned sv[] = {1, 0}, nv[] = {2, 0}, ev[] = {1}, rv[] = {0, 2}, ro[] = {1, 3},
                   lv[] = {5, 0};
    topo_assert_tuples(topo_arr(topo_get(s, "s"), "indices"), 1, sv, 2, "strings");
    cr_assert(strstr(T.log, "Input value 2 not found : z"), "%s", T.log);
    topo_assert_tuples(topo_arr(topo_get(s, "n"), "indices"), 1, nv, 2, "numbers");
    topo_assert_tuples(topo_arr(topo_get(s, "e"), "indices"), 1, ev, 1, "edges");
    topo_assert_tuples(topo_arr(topo_get(s, "r"), "indices"), 1, rv, 2, "recursive");
    topo_assert_tuples(topo_arr(topo_get(s, "r"), "otherIndices"), 1, ro, 2, "others");
    topo_assert_tuples(topo_arr(topo_get(s, "l"), "indices"), 1, lv, 2, "linked");
    st_scene_destroy(&s);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - IndicesFromValues: {template: Edge, values: '1',"
                                            " global: '0 1'}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "1 numbers do not make whole entries of 2"), "%s", err.msg);
}
