/* test_engines_generate.c - Engine.Generate's GenerateGrid (hand-worked
 * grids, flat and solid, Vec2d), MergeMeshes (shifted element lists),
 * MergePoints (SOFA's MergePoints_test addition values, injection,
 * noUpdate) and NormEngine (every norm type on one vector). */
#include <math.h>
#include <stdio.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(engines_generate, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Generate]}\n"

static void assert_reals(const st_array *a, const double *want, size_t nvals, double tol,
                         const char *what)
{
    for (size_t i = 0; i < nvals; i++)
        cr_assert(fabs(a->r[i] - want[i]) <= tol, "%s[%zu] = %.17g, expected %.17g", what, i,
                  a->r[i], want[i]);
}

static double tet_volume(const double *x, const unsigned *t)
{
    const double *a = x + 3 * t[0], *b = x + 3 * t[1], *c = x + 3 * t[2], *d = x + 3 * t[3];
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; k++)
        u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
    return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
            u[2] * (v[0] * w[1] - v[1] * w[0])) /
           6;
}

/* The first n tuples of width w of a equal want. */
static void assert_prefix(const st_array *a, unsigned w, const unsigned *want, size_t n,
                          const char *what)
{
    cr_assert_geq(a->n, n, "%s: %zu tuples", what, a->n);
    for (size_t i = 0; i < n * w; i++)
        cr_assert_eq(a->u[i], want[i], "%s: entry %zu is %u, expected %u", what, i, a->u[i],
                     want[i]);
}

/* ---- GenerateGrid ---- */

Test(engines_generate, grid_solid)
{
    st_scene *s = topo_scene(&T, HEAD "    - GenerateGrid: {name: g, min: [0,0,0], max: [2,1,1],"
                                      " resolution: [2,1,1]}\n");
    st_component *g = topo_get(s, "g");
    const st_array *x = topo_arr(g, "output_position");
    cr_assert_eq(x->n, 12);
    const double p5[] = {2, 1, 0}, p11[] = {2, 1, 1};
    assert_reals(&(st_array){.r = x->r + 15, .n = 1}, p5, 3, 0, "point 5");
    assert_reals(&(st_array){.r = x->r + 33, .n = 1}, p11, 3, 0, "point 11");
    const unsigned hex[] = {0, 1, 4, 3, 6, 7, 10, 9, 1, 2, 5, 4, 7, 8, 11, 10};
    topo_assert_tuples(topo_arr(g, "hexahedra"), 8, hex, 2, "hexahedra");
    const st_array *t = topo_arr(g, "tetrahedra");
    cr_assert_eq(t->n, 12);
    const unsigned t0[] = {0, 7, 1, 10};
    assert_prefix(t, 4, t0, 1, "first tetrahedron (corners 0 5 1 6)");
    /* The six tetrahedra fill each unit cell. */
    double vol = 0;
    for (size_t i = 0; i < t->n; i++)
        vol += fabs(tet_volume(x->r, t->u + 4 * i));
    cr_assert_float_eq(vol, 2.0, 1e-12);
    cr_assert_eq(topo_arr(g, "quads")->n, 0, "a solid grid gives no quads");
    st_scene_destroy(&s);
}

Test(engines_generate, grid_flat_and_vec2)
{
    st_scene *s = topo_scene(&T, HEAD "    - GenerateGrid: {name: g, max: [2,2,0],"
                                      " resolution: [2,2,0]}\n"
                                      "    - GenerateGrid: {name: g2, template: Vec2d, min: [1,2,0],"
                                      " max: [3,4,0], resolution: [1,1,0]}\n");
    st_component *g = topo_get(s, "g");
    cr_assert_eq(topo_arr(g, "position")->n, 9);
    const unsigned q[] = {0, 1, 4, 3, 3, 4, 7, 6};
    assert_prefix(topo_arr(g, "quads"), 4, q, 2, "quads");
    cr_assert_eq(topo_arr(g, "quads")->n, 4);
    const unsigned t[] = {0, 1, 3, 3, 1, 4};
    assert_prefix(topo_arr(g, "triangles"), 3, t, 2, "triangles");
    cr_assert_eq(topo_arr(g, "triangles")->n, 8);
    cr_assert_eq(topo_arr(g, "hexahedra")->n, 0);
    const double p2[] = {1, 2, 3, 2, 1, 4, 3, 4};
    const st_array *x2 = topo_arr(topo_get(s, "g2"), "output_position");
    cr_assert_eq(x2->n, 4);
    assert_reals(x2, p2, 8, 0, "Vec2d grid");
    st_scene_destroy(&s);
}

Test(engines_generate, grid_default_resolution)
{
    /* SOFA's defaults: a 3x3x3 grid of a degenerate box (min = max = 0). */
    st_scene *s = topo_scene(&T, HEAD "    - GenerateGrid: {name: g}\n");
    cr_assert_eq(topo_arr(topo_get(s, "g"), "position")->n, 64);
    cr_assert_eq(topo_arr(topo_get(s, "g"), "tetrahedra")->n, 162);
    st_scene_destroy(&s);
}

/* ---- MergeMeshes ---- */

Test(engines_generate, merge_meshes_shifts_elements)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - MergeMeshes: {name: m, nbMeshes: 3,"
                 " position1: [[0,0,0],[1,0,0],[0,1,0]], triangles1: [[0,1,2]], edges1: [[0,1]],"
                 " position2: [[5,0,0],[6,0,0]], edges2: [[0,1]],"
                 " position3: [[7,0,0],[8,0,0],[7,1,0],[7,0,1]], tetrahedra3: [[0,1,2,3]],"
                 " triangles3: [[1,2,3]]}\n");
    st_component *m = topo_get(s, "m");
    cr_assert_eq(*(unsigned *)st_component_field_ptr(m, st_component_field(m, "npoints")), 9);
    const st_array *x = topo_arr(m, "position");
    cr_assert_eq(x->n, 9);
    cr_assert_eq(x->r[3 * 3], 5.0);
    const unsigned e[] = {0, 1, 3, 4}, t[] = {0, 1, 2, 6, 7, 8}, tet[] = {5, 6, 7, 8};
    topo_assert_tuples(topo_arr(m, "edges"), 2, e, 2, "edges");
    topo_assert_tuples(topo_arr(m, "triangles"), 3, t, 2, "triangles");
    topo_assert_tuples(topo_arr(m, "tetrahedra"), 4, tet, 1, "tetrahedra");
    st_scene_destroy(&s);
}

Test(engines_generate, merge_meshes_limits)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MergeMeshes: {position3: [[0,0,0]]}\n", &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "nbMeshes"), "%s", err.msg);
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MergeMeshes: {nbMeshes: 9}\n", &err), ST_OK);
}

/* ---- MergePoints ---- */

Test(engines_generate, merge_points_sofa_addition)
{
    st_scene *s = topo_scene(&T, HEAD "    - MergePoints: {name: m, position1: [[0,0,0],[1,0,0]],"
                                      " position2: [[0,1,0],[0,0,1]]}\n");
    st_component *m = topo_get(s, "m");
    const double p[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    cr_assert_eq(topo_arr(m, "points")->n, 4);
    assert_reals(topo_arr(m, "points"), p, 12, 0, "points");
    const unsigned i1[] = {0, 1}, i2[] = {2, 3};
    topo_assert_tuples(topo_arr(m, "indices1"), 1, i1, 2, "indices1");
    topo_assert_tuples(topo_arr(m, "indices2"), 1, i2, 2, "indices2");
    st_scene_destroy(&s);
}

Test(engines_generate, merge_points_injection_and_rigid)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - MergePoints: {name: m, position1: [[0,0,0],[1,0,0],[2,0,0],[3,0,0]],"
                 " position2: [[9,9,9],[8,8,8]], mappingX2: [3, 1]}\n"
                 "    - MergePoints: {name: r, template: Rigid3d, position1: [[0,0,0,0,0,0,1]],"
                 " position2: [[1,2,3,0,0,1,0]]}\n");
    st_component *m = topo_get(s, "m");
    const double p[] = {0, 0, 0, 8, 8, 8, 2, 0, 0, 9, 9, 9};
    assert_reals(topo_arr(m, "points"), p, 12, 0, "points");
    const unsigned i1[] = {0, 2}, i2[] = {1, 3};
    topo_assert_tuples(topo_arr(m, "indices1"), 1, i1, 2, "indices1");
    topo_assert_tuples(topo_arr(m, "indices2"), 1, i2, 2, "indices2");
    const st_array *r = topo_arr(topo_get(s, "r"), "points");
    cr_assert_eq(r->n, 2);
    cr_assert_eq(r->r[7 + 5], 1.0);
    st_scene_destroy(&s);
}

Test(engines_generate, merge_points_no_update)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - MergePoints: {name: m, position1: [[0,0,0]], position2: [[1,1,1]],"
                 " noUpdate: true}\n"
                 "    - MergePoints: {name: reader, position1: \"@m.points\"}\n");
    st_error err = {0};
    cr_assert_eq(st_component_set(topo_get(s, "m"), "position2", "5 5 5", &err), ST_OK);
    cr_assert_eq(st_component_update_inputs(topo_get(s, "reader"), &err), ST_OK, "%s", err.msg);
    cr_assert_eq(topo_arr(topo_get(s, "m"), "points")->r[3], 1.0, "noUpdate keeps the first merge");
    st_scene_destroy(&s);
}

/* ---- NormEngine ---- */

Test(engines_generate, norm_engine_every_type)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - NormEngine: {name: n2, input: [[3,-4,0],[1,2,2]]}\n"
                 "    - NormEngine: {name: n1, input: [[3,-4,0]], normType: 1}\n"
                 "    - NormEngine: {name: n0, input: [[3,-4,0]], normType: 0}\n"
                 "    - NormEngine: {name: ninf, input: [[3,-4,0]], normType: -1}\n"
                 "    - NormEngine: {name: n3, input: [[3,-4,0]], normType: 3}\n");
    const double w2[] = {5, 3};
    assert_reals(topo_arr(topo_get(s, "n2"), "output"), w2, 2, 0, "l2");
    cr_assert_eq(topo_arr(topo_get(s, "n1"), "output")->r[0], 7.0);
    cr_assert_eq(topo_arr(topo_get(s, "n0"), "output")->r[0], 2.0);
    cr_assert_eq(topo_arr(topo_get(s, "ninf"), "output")->r[0], 4.0);
    cr_assert_float_eq(topo_arr(topo_get(s, "n3"), "output")->r[0], cbrt(91.0), 1e-12);
    st_scene_destroy(&s);
}

/* ---- JoinPoints ---- */

Test(engines_generate, join_points_sofa_cases)
{
    /* SOFA's JoinPoints_test: the unit square's corners merge into their
     * centre within distance 2 (worked by hand: (0,0,0) takes (1,0,0), then
     * (1,1,0), then (0,1,0), weights 1, 2, 3), and stay apart within 0.5. */
    st_scene *s = topo_scene(
        &T, HEAD "    - JoinPoints: {name: j, points: [[0,0,0],[1,1,0],[1,0,0],[0,1,0]],"
                 " distance: 2}\n"
                 "    - JoinPoints: {name: k, points: [[0,0,0],[1,1,0],[1,0,0],[0,1,0]],"
                 " distance: 0.5}\n");
    const st_array *j = topo_arr(topo_get(s, "j"), "mergedPoints");
    cr_assert_eq(j->n, 1);
    const double c[] = {0.5, 0.5, 0};
    assert_reals(j, c, 3, 1e-15, "merged");
    const st_array *k = topo_arr(topo_get(s, "k"), "mergedPoints");
    const double all[] = {0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0};
    cr_assert_eq(k->n, 4);
    assert_reals(k, all, 12, 0, "unmerged");
    st_scene_destroy(&s);
}

Test(engines_generate, join_points_pairs)
{
    /* Two clusters, each merged into its mean. */
    st_scene *s = topo_scene(&T, HEAD "    - JoinPoints: {name: j, points: [[10,0,0],[0,0,0],"
                                      "[0.1,0,0],[10.3,0,0]], distance: 0.5}\n");
    const st_array *j = topo_arr(topo_get(s, "j"), "mergedPoints");
    const double want[] = {10.15, 0, 0, 0.05, 0, 0};
    cr_assert_eq(j->n, 2);
    assert_reals(j, want, 6, 1e-14, "clusters");
    st_scene_destroy(&s);
}
