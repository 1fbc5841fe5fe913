/* test_merge_visual_models.c - MergeVisualModels: an OglModel holding the
 * union of its inputs made at init (positions one after the other, faces
 * shifted by the points of the models before, texture coordinates
 * concatenated), with seams (vertices and vertPosIdx) kept consistent,
 * and its errors (an input past nb, more than 8 inputs, an input that is
 * not a visual model). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(merge_visual_models, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.GL.Component.Rendering3D]}\n"                      \
    "    - DefaultAnimationLoop: {}\n"

/* A unit square (two triangles) and a triangle moved by 10 along x. */
#define TWO_MODELS                                                                                \
    "    - OglModel: {name: a, position: [[0,0,0],[1,0,0],[1,1,0],[0,1,0]],"                     \
    " triangles: [[0,1,2],[0,2,3]], texcoords: [0,0, 1,0, 1,1, 0,1]}\n"                          \
    "    - OglModel: {name: b, position: [[0,0,0],[1,0,0],[0,0,1]], triangles: [[0,1,2]],"        \
    " translation: [10, 0, 0], texcoords: [0,0, 1,0, 0,1]}\n"

static st_scene *loads(const char *objects)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, HEAD "%s", objects);
    return topo_scene(&T, yaml);
}

static st_status fails(const char *objects, st_error *err)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, HEAD "%s", objects);
    memset(err, 0, sizeof *err);
    return topo_scene_fails(&T, yaml, err);
}

Test(merge_visual_models, positions_and_shifted_faces)
{
    /* The merged model's own translation and flip apply to nothing (SOFA
     * merges after its init). */
    st_scene *s = loads(TWO_MODELS "    - MergeVisualModels: {name: m, nb: 2, input1: '@a',"
                                   " input2: '@b', color: red, translation: [0, 7, 0],"
                                   " flip: true}\n");
    st_component *m = topo_get(s, "m");
    const st_array *p = topo_arr(m, "position"), *t = topo_arr(m, "triangles"),
                   *tc = topo_arr(m, "texcoords"), *rest = topo_arr(m, "restPosition"),
                   *n = topo_arr(m, "normal");
    cr_assert_eq(p->n, 7);
    /* b's points, moved by its own translation. */
    cr_assert_float_eq(p->r[3 * 4], 10, 1e-15);
    cr_assert_float_eq(p->r[3 * 4 + 1], 0, 1e-15);
    cr_assert_float_eq(p->r[3 * 5], 11, 1e-15);
    cr_assert_float_eq(p->r[3 * 6 + 2], 1, 1e-15);
    cr_assert_eq(t->n, 3);
    const unsigned want[9] = {0, 1, 2, 0, 2, 3, 4, 5, 6};
    for (int i = 0; i < 9; i++)
        cr_assert_eq(t->u[i], want[i], "triangle index %d: %u", i, t->u[i]);
    cr_assert_eq(tc->n, 14);
    cr_assert_float_eq(tc->r[13], 1, 0);
    cr_assert_eq(rest->n, 7);
    /* Normals computed for the merged faces: +z for the square, -y for b. */
    cr_assert_eq(n->n, 7);
    cr_assert_float_eq(n->r[2], 1, 1e-12);
    cr_assert_float_eq(n->r[3 * 5 + 1], -1, 1e-12);
    st_scene_destroy(&s);
}

/* A model with seams (vertex 4 is position 0 again): the merged model's
 * vertices are a's five then b's three, vertPosIdx a's then b's identity
 * shifted by a's 4 positions, b's face shifted by a's 5 vertices. */
Test(merge_visual_models, seams_stay_consistent)
{
    st_scene *s = loads(
        "    - OglModel: {name: a, position: [[0,0,0],[1,0,0],[1,1,0],[0,1,0],[0,0,0]],"
        " vertPosIdx: [0,1,2,3,0], triangles: [[0,1,2],[4,2,3]]}\n"
        "    - OglModel: {name: b, position: [[5,0,0],[6,0,0],[5,0,1]], triangles: [[0,1,2]]}\n"
        "    - MergeVisualModels: {name: m, nb: 2, input1: '@a', input2: '@b'}\n");
    st_component *m = topo_get(s, "m");
    const st_array *p = topo_arr(m, "position"), *v = topo_arr(m, "vertices"),
                   *idx = topo_arr(m, "vertPosIdx"), *t = topo_arr(m, "triangles");
    cr_assert_eq(p->n, 7);
    cr_assert_eq(v->n, 8);
    const unsigned wi[8] = {0, 1, 2, 3, 0, 4, 5, 6};
    for (int i = 0; i < 8; i++)
        cr_assert_eq(idx->u[i], wi[i]);
    const unsigned wt[9] = {0, 1, 2, 4, 2, 3, 5, 6, 7};
    for (int i = 0; i < 9; i++)
        cr_assert_eq(t->u[i], wt[i]);
    /* Each vertex is its position. */
    for (int i = 0; i < 8; i++)
        for (int a = 0; a < 3; a++)
            cr_assert_float_eq(v->r[3 * i + a], p->r[3 * idx->u[i] + (unsigned)a], 0);
    st_scene_destroy(&s);
}

Test(merge_visual_models, only_nb_inputs_count)
{
    /* nb 1: input1 only. */
    st_scene *s = loads(TWO_MODELS "    - MergeVisualModels: {name: m, input1: '@b'}\n");
    cr_assert_eq(topo_arr(topo_get(s, "m"), "position")->n, 3);
    st_scene_destroy(&s);
    st_error err;
    cr_assert_neq(fails(TWO_MODELS "    - MergeVisualModels: {name: m, input1: '@a',"
                                   " input2: '@b'}\n",
                        &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "raise nb to 2"), "%s", err.msg);
    cr_assert_neq(fails(TWO_MODELS "    - MergeVisualModels: {name: m, nb: 9}\n", &err), ST_OK);
    cr_assert(strstr(err.msg, "at most 8"), "%s", err.msg);
    cr_assert_neq(fails(TWO_MODELS "    - MechanicalObject: {name: dofs, position: [0,0,0]}\n"
                                   "    - MergeVisualModels: {name: m, input1: '@dofs'}\n",
                        &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "not a visual model"), "%s", err.msg);
}
