/* test_engines_transform.c - Engine.Transform's TransformEngine (SOFA's
 * TransformEngine_test values for Vec1d, Vec2d, Vec3d and Rigid3d, the
 * inverse, the quaternion) and DifferenceEngine (hand-worked values). */
#include <math.h>
#include <stdio.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(engines_transform, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Transform]}\n"

static void assert_reals(const st_array *a, const double *want, size_t nvals, double tol,
                         const char *what)
{
    for (size_t i = 0; i < nvals; i++)
        cr_assert(fabs(a->r[i] - want[i]) <= tol, "%s[%zu] = %.17g, expected %.17g", what, i,
                  a->r[i], want[i]);
}

/* Runs one TransformEngine on SOFA's input point (1,0,0) (identity
 * orientation for Rigid3d) with the given extra fields; returns the output. */
static void run(const char *tmpl, const char *extra, const double *want, size_t nvals)
{
    static const char *const inputs[] = {"[1]", "[[1,0]]", "[[1,0,0]]", "[[1,0,0,0,0,0,1]]"};
    const char *in = !strcmp(tmpl, "Vec1d")   ? inputs[0]
                     : !strcmp(tmpl, "Vec2d") ? inputs[1]
                     : !strcmp(tmpl, "Vec3d") ? inputs[2]
                                              : inputs[3];
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             HEAD "    - TransformEngine: {name: t, template: %s, input_position: %s%s}\n", tmpl, in,
             extra);
    st_scene *s = topo_scene(&T, yaml);
    const st_array *out = topo_arr(topo_get(s, "t"), "output_position");
    cr_assert_eq(out->n, 1, "%s %s", tmpl, extra);
    assert_reals(out, want, nvals, 1e-5, tmpl);
    st_scene_destroy(&s);
}

#define SQ 0.70710678118654752

Test(engines_transform, sofa_translation)
{
    const double w[] = {2, 2, 3, 0, 0, 0, 1};
    run("Vec1d", ", translation: [1,2,3]", w, 1);
    run("Vec2d", ", translation: [1,2,3]", w, 2);
    run("Vec3d", ", translation: [1,2,3]", w, 3);
    run("Rigid3d", ", translation: [1,2,3]", w, 7);
}

Test(engines_transform, sofa_rotation)
{
    const double w[] = {0, 1, 0, 0, 0, SQ, SQ};
    run("Vec1d", ", rotation: [0,0,90]", w, 1);
    run("Vec2d", ", rotation: [0,0,90]", w, 2);
    run("Vec3d", ", rotation: [0,0,90]", w, 3);
    run("Rigid3d", ", rotation: [0,0,90]", w, 7);
}

Test(engines_transform, sofa_scale_and_composites)
{
    const double sc[] = {5, 0, 0, 0, 0, 0, 1};
    run("Vec3d", ", scale: [5,10,20]", sc, 3);
    run("Rigid3d", ", scale: [5,10,20]", sc, 7);
    const double ts[] = {6, 2, 3};
    run("Vec3d", ", translation: [1,2,3], scale: [5,10,20]", ts, 3);
    const double tr[] = {1, 3, 3, 0, 0, SQ, SQ};
    run("Rigid3d", ", translation: [1,2,3], rotation: [0,0,90]", tr, 7);
    const double rs[] = {0, 5, 0, 0, 0, SQ, SQ};
    run("Rigid3d", ", rotation: [0,0,90], scale: [5,10,20]", rs, 7);
    const double trs[] = {1, 7, 3, 0, 0, SQ, SQ};
    run("Vec2d", ", translation: [1,2,3], rotation: [0,0,90], scale: [5,10,20]", trs, 2);
    run("Rigid3d", ", translation: [1,2,3], rotation: [0,0,90], scale: [5,10,20]", trs, 7);
}

Test(engines_transform, quaternion_and_inverse)
{
    /* The quaternion of a quarter turn about z acts as rotation 0 0 90. */
    const double w[] = {0, 1, 0, 0, 0, SQ, SQ};
    run("Rigid3d", ", quaternion: [0,0,0.70710678118654752,0.70710678118654752]", w, 7);
    /* The inverse of scale, rotate, translate maps (1,7,3) back to (1,0,0). */
    const double back[] = {1, 0, 0};
    st_scene *s = topo_scene(
        &T, HEAD "    - TransformEngine: {name: t, input_position: [[1,7,3]], translation: [1,2,3],"
                 " rotation: [0,0,90], scale: [5,10,20], inverse: true}\n");
    assert_reals(topo_arr(topo_get(s, "t"), "output_position"), back, 3, 1e-12, "inverse");
    st_scene_destroy(&s);
    /* Euler angles go through SOFA's createQuaterFromEuler (order ZYX):
     * (90, 90, 0) gives q = (0.5, 0.5, -0.5, 0.5), worked by hand, which
     * maps (1,0,0) to (0,0,-1). */
    const double xy[] = {0, 0, -1};
    run("Vec3d", ", rotation: [90,90,0]", xy, 3);
}

Test(engines_transform, output_follows_the_input)
{
    /* A chained engine sees the first one's output. */
    st_scene *s = topo_scene(
        &T, HEAD "    - TransformEngine: {name: a, input_position: [[1,0,0],[0,1,0]],"
                 " translation: [0,0,1]}\n"
                 "    - TransformEngine: {name: b, input_position: \"@a.output_position\","
                 " scale: [2,2,2]}\n"
                 "    - DifferenceEngine: {name: reader, input: \"@b.output_position\","
                 " substractor: [[0,0,0],[0,0,0]]}\n");
    const double w[] = {2, 0, 2, 0, 2, 2};
    assert_reals(topo_arr(topo_get(s, "b"), "output_position"), w, 6, 0, "chained");
    st_error err = {0};
    st_component *a = topo_get(s, "a");
    cr_assert_eq(st_component_set(a, "translation", "0 0 2", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_component_update_inputs(topo_get(s, "reader"), &err), ST_OK, "%s", err.msg);
    const double w2[] = {2, 0, 4, 0, 2, 4};
    assert_reals(topo_arr(topo_get(s, "b"), "output_position"), w2, 6, 0, "after the change");
    st_scene_destroy(&s);
}

Test(engines_transform, difference_engine)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - DifferenceEngine: {name: d, input: [[1,2,3],[4,5,6]],"
                 " substractor: [[0.5,0.5,0.5],[4,5,7]]}\n"
                 "    - DifferenceEngine: {name: d1, template: Vec1d, input: [3, 2],"
                 " substractor: [1, 5]}\n"
                 "    - DifferenceEngine: {name: bad, input: [[1,2,3]], substractor: []}\n");
    const double w[] = {0.5, 1.5, 2.5, 0, 0, -1}, w1[] = {2, -3};
    assert_reals(topo_arr(topo_get(s, "d"), "output"), w, 6, 0, "Vec3d");
    assert_reals(topo_arr(topo_get(s, "d1"), "output"), w1, 2, 0, "Vec1d");
    cr_assert_eq(topo_arr(topo_get(s, "bad"), "output")->n, 0, "sizes differ: nothing computed");
    st_scene_destroy(&s);
}
