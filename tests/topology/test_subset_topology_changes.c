/* test_subset_topology_changes.c - SubsetTopologicalMapping follows its
 * input's topological changes (SOFA's updateTopologicalMappingTopDown): a
 * removal worked by hand on the output and both maps, and an incision of
 * the input (points added with ancestors, triangles added and removed)
 * replayed on a subset that holds half of it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

static test_rt T;

static void setup(void)
{
    st_error err = {0};
    test_rt_open(&T);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    static const char *const plugins[] = {"Topology", "Topology.Utility"};
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(st_runtime_load_plugin(T.rt, plugins[i], &err), ST_OK, "%s", err.msg);
}
static void teardown(void) { test_rt_close(&T); }
TestSuite(subset_changes, .init = setup, .fini = teardown);

#define INV 4294967295u

/* The input: a 2 x 2 square, points i + 3 j at (i, j, 0), triangles
 * T0 [0,1,4] T1 [0,4,3] T2 [1,2,5] T3 [1,5,4] T4 [3,4,7] T5 [3,7,6]
 * T6 [4,5,8] T7 [4,8,7]. The output: its right column, points (1,0)
 * (2,0) (1,1) (2,1) (1,2) (2,2) = input 1 2 4 5 7 8, triangles T2 T3 T6
 * T7 in that numbering. */
static st_scene *load(const char *changes)
{
    static char xml[4096];
    char proc[1024] = "";
    if (changes)
        snprintf(proc, sizeof proc, "<TopologicalChangeProcessor filename='%s'/>",
                 test_write_temp("subset.txt", changes));
    snprintf(xml, sizeof xml,
             "<Node name='root' dt='0.01' gravity='0 0 0'><DefaultAnimationLoop/>"
             "<Node name='Body'>"
             "<MechanicalObject name='dofs' position='0 0 0 1 0 0 2 0 0 0 1 0 1 1 0 2 1 0 0 2 0 "
             "1 2 0 2 2 0'/>"
             "<TriangleSetTopologyContainer name='in' position='0 0 0 1 0 0 2 0 0 0 1 0 1 1 0 "
             "2 1 0 0 2 0 1 2 0 2 2 0' triangles='0 1 4 0 4 3 1 2 5 1 5 4 3 4 7 3 7 6 4 5 8 4 "
             "8 7'/>"
             "<TriangleSetTopologyModifier/>%s"
             "<Node name='Half'>"
             "<TriangleSetTopologyContainer name='out' position='1 0 0 2 0 0 1 1 0 2 1 0 1 2 0 "
             "2 2 0' triangles='0 1 3 0 3 2 2 3 5 2 5 4'/>"
             "<TriangleSetTopologyModifier/>"
             "<SubsetTopologicalMapping name='map' input='@../in' output='@out' "
             "handleTriangles='true'/>"
             "</Node></Node></Node>",
             proc);
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s: %s", err.path, err.msg);
    return s;
}

static const st_array *arr(st_scene *s, const char *name, const char *field)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no component %s", name);
    const st_field *f = st_component_field(c, field);
    cr_assert_not_null(f, "%s has no field %s", name, field);
    return st_component_field_ptr(c, f);
}

static void assert_list(const st_array *a, size_t width, const unsigned *want, size_t n,
                        const char *what)
{
    cr_assert_eq(a->n, n, "%s: %zu, want %zu", what, a->n, n);
    for (size_t i = 0; i < n * width; i++)
        cr_assert_eq(a->u[i], want[i], "%s: entry %zu is %u, want %u", what, i, a->u[i],
                     want[i]);
}

/* Removing input triangle 3 [1,5,4] (the last, T7, takes its place): the
 * output's triangle 1 [0,3,2] goes, its last [2,5,4] takes slot 1. Maps:
 * triangleS2D [-,-,0,1,-,-,2,3] becomes [-,-,0,1,-,-,2] (T7, now 3, is
 * output 1), triangleD2S [2,3,6,7] becomes [2,3,6]. */
Test(subset_changes, removal_follows_worked_by_hand)
{
    st_scene *s = load(NULL);
    static const unsigned s2d0[] = {INV, INV, 0, 1, INV, INV, 2, 3}, d2s0[] = {2, 3, 6, 7},
                          p2d[] = {INV, 0, 1, INV, 2, 3, INV, 4, 5};
    assert_list(arr(s, "map", "triangleS2D"), 1, s2d0, 8, "triangleS2D at init");
    assert_list(arr(s, "map", "triangleD2S"), 1, d2s0, 4, "triangleD2S at init");
    assert_list(arr(s, "map", "pointS2D"), 1, p2d, 9, "pointS2D at init");
    st_error err = {0};
    const unsigned id = 3;
    cr_assert_eq(st_topology_remove(test_find_object(s, "in"), ST_ELEM_TRIANGLE, &id, 1, &err),
                 ST_OK, "%s", err.msg);
    static const unsigned tris[] = {0, 1, 3, 2, 5, 4, 2, 3, 5};
    assert_list(arr(s, "out", "triangles"), 3, tris, 3, "output triangles");
    static const unsigned s2d[] = {INV, INV, 0, 1, INV, INV, 2}, d2s[] = {2, 3, 6};
    assert_list(arr(s, "map", "triangleS2D"), 1, s2d, 7, "triangleS2D");
    assert_list(arr(s, "map", "triangleD2S"), 1, d2s, 3, "triangleD2S");
    st_scene_destroy(&s);
}

/* An incision of the input along x = 1.5 (test_incision.c works it by
 * hand, cut_across_a_square_follows_sofas_steps): its 5 new points and 3
 * copies have ancestors in the output, so the output gets them (14
 * points), and the 14 pieces of T2 T3 T6 T7 (every new triangle has its
 * vertices in the output). Whatever the
 * numbering, each output triangle is, through pointD2S, the input
 * triangle triangleD2S names, and each output point is at its input
 * point's place. */
Test(subset_changes, incision_of_the_input_follows)
{
    st_scene *s = load("T= 0.01\nINCISE= 2\n1.5 0 0 1.5 2 0\n");
    st_error err = {0};
    for (int i = 0; i < 2; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s: %s", err.path, err.msg);
    const st_array *in = arr(s, "in", "triangles"), *out = arr(s, "out", "triangles");
    const st_array *pd2s = arr(s, "map", "pointD2S"), *td2s = arr(s, "map", "triangleD2S");
    const st_array *x = arr(s, "dofs", "position"), *y = arr(s, "out", "position");
    cr_assert_eq(in->n, 18);
    cr_assert_eq(out->n, 14);
    cr_assert_eq(pd2s->n, 14);
    cr_assert_eq(y->n, 14);
    cr_assert_eq(td2s->n, 14);
    for (size_t d = 0; d < out->n; d++) {
        unsigned t = td2s->u[d];
        cr_assert(t < in->n, "output triangle %zu has no source", d);
        for (int j = 0; j < 3; j++)
            cr_assert_eq(pd2s->u[out->u[3 * d + (size_t)j]], in->u[3 * (size_t)t + (size_t)j],
                         "output triangle %zu vertex %d", d, j);
    }
    for (size_t d = 0; d < y->n; d++)
        for (int c = 0; c < 3; c++)
            cr_assert(fabs(y->r[3 * d + (size_t)c] - x->r[3 * (size_t)pd2s->u[d] + (size_t)c]) <
                          1e-12,
                      "output point %zu", d);
    st_scene_destroy(&s);
}
