/* test_mesh2point_changes.c - Mesh2PointTopologicalMapping and
 * Mesh2PointMechanicalMapping follow their input's topological changes
 * (SOFA's updateTopologicalMappingTopDown): a removal worked by hand on a
 * two-triangle square, and a tetrahedral scene of removals and an
 * addition whose output SOFA's own run recorded. */
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
    static const char *const plugins[] = {"Topology", "Topology.Utility", "Mapping.Linear",
                                          "ODESolver.Backward", "LinearSolver.Iterative",
                                          "Mass"};
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(T.rt, plugins[i], &err), ST_OK, "%s", err.msg);
}
static void teardown(void) { test_rt_close(&T); }
TestSuite(mesh2point_changes, .init = setup, .fini = teardown);

#define INV 4294967295u

static st_scene *load(const char *xml)
{
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

static void assert_uints(const st_array *a, const unsigned *want, size_t n, const char *what)
{
    cr_assert_eq(a->n, n, "%s: %zu entries, want %zu", what, a->n, n);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(a->u[i], want[i], "%s: entry %zu is %u, want %u", what, i, a->u[i],
                     want[i]);
}

static void assert_points(const st_array *a, const double *want, size_t n, const char *what)
{
    cr_assert_eq(a->n, n, "%s: %zu points, want %zu", what, a->n, n);
    for (size_t i = 0; i < 3 * n; i++)
        cr_assert(fabs(a->r[i] - want[i]) < 1e-12, "%s: point %zu coordinate %zu is %.17g, "
                  "want %.17g", what, i / 3, i % 3, a->r[i], want[i]);
}

/* Input: P0 (0,0,0) P1 (1,0,0) P2 (0,1,0) P3 (1,1,0), triangles T0 [0 1 2]
 * T1 [1 3 2]; one output point per input point (offset 0) and one per
 * triangle [a b c] at a/2 + b/4 + c/4. At init the output is P0..P3, then
 * 4 = (0.25, 0.25, 0) from T0 and 5 = (0.75, 0.5, 0) from T1:
 * pointsMappedFromPoint [0 1 2 3], pointsMappedFromTriangle [4 5].
 * Removing T0, SOFA's modifier propagates three rounds:
 * 1. triangle 0: T1 takes slot 0 (its output 5 now names triangle 0) and
 *    output 4 goes: output 5 takes its place, triangle map [4];
 * 2. the edges T0 left alone: no map, nothing;
 * 3. point P0, left alone: P3 takes slot 0 (point map [3 1 2 0], then
 *    [3 1 2]) and output 0 goes: output 4 (from the triangle) takes its
 *    place, triangle map [0].
 * Output: (0.75 0.5 0) from the triangle, then P1 P2 P3; the input's
 * triangle is now [1 0 2] and a/2 + b/4 + c/4 is still (0.75, 0.5, 0).
 * SOFA's run of this scene (the removal by a TopologicalChangeProcessor)
 * gives the same four points in the same order. */
Test(mesh2point_changes, removal_worked_by_hand)
{
    st_scene *s = load(
        "<Node name='root' dt='0.01' gravity='0 0 0'><DefaultAnimationLoop/>"
        "<Node name='Body'>"
        "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"
        "<CGLinearSolver iterations='25' tolerance='1e-12' threshold='1e-12'/>"
        "<MechanicalObject name='dofs' position='0 0 0 1 0 0 0 1 0 1 1 0'/>"
        "<TriangleSetTopologyContainer name='in' position='0 0 0 1 0 0 0 1 0 1 1 0' "
        "triangles='0 1 2 1 3 2'/>"
        "<TriangleSetTopologyModifier/><UniformMass totalMass='1'/>"
        "<Node name='Out'><PointSetTopologyContainer name='out'/><PointSetTopologyModifier/>"
        "<Mesh2PointTopologicalMapping name='m2p' input='@../in' output='@out' "
        "pointBaryCoords='0 0 0' triangleBaryCoords='0.25 0.25 0'/>"
        "<MechanicalObject name='pts'/>"
        "<Mesh2PointMechanicalMapping input='@../dofs' output='@pts'/>"
        "</Node></Node></Node>");
    static const double x0[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.25, 0.25, 0, 0.75, 0.5, 0};
    assert_points(arr(s, "pts", "position"), x0, 6, "output at init");
    static const unsigned pm0[] = {0, 1, 2, 3}, tm0[] = {4, 5};
    assert_uints(arr(s, "m2p", "pointsMappedFromPoint"), pm0, 4, "point map at init");
    assert_uints(arr(s, "m2p", "pointsMappedFromTriangle"), tm0, 2, "triangle map at init");
    st_error err = {0};
    const unsigned id = 0;
    cr_assert_eq(st_topology_remove(test_find_object(s, "in"), ST_ELEM_TRIANGLE, &id, 1, &err),
                 ST_OK, "%s", err.msg);
    static const unsigned pm[] = {3, 1, 2}, tm[] = {0};
    assert_uints(arr(s, "m2p", "pointsMappedFromPoint"), pm, 3, "point map");
    assert_uints(arr(s, "m2p", "pointsMappedFromTriangle"), tm, 1, "triangle map");
    static const unsigned src[] = {2, 0, 0, 1, 0, 2, 0, 0};
    assert_uints(arr(s, "m2p", "pointSource"), src, 8, "pointSource");
    static const double x[] = {0.75, 0.5, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    assert_points(arr(s, "pts", "position"), x, 4, "output after the removal");
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s: %s", err.path, err.msg);
    assert_points(arr(s, "pts", "position"), x, 4, "output mapped after a step");
    st_scene_destroy(&s);
}

/* SOFA's output after step 7 of the scene below. */
static const double sofa7[] = {
    0.5,  1,   0.2, 0.25, 1,    0,    0,   1,   0,   0,    0,    1,    1,   1,    1,   1,
    1,    0,   1,   1,    0.75, 0.25, 0.25, 0.75, 0.7, 0.7, 0.5,  0.5,  0.8, 0.2,  0.7, 0.8,
    0.5,  0,   0.75, 0.25, 0.5,  0.75, 0.5, 0.25, 1,   0.25, 0.25, 0.25, 1,   0.3,  0.8, 0.5};

static st_scene *load_tetras(void)
{
    const char *changes = test_write_temp("m2p_changes.txt",
                                          "T= 0.02\nREMOVE= 1\n0\n"
                                          "T= 0.04\nADD= Tetrahedra 1\n0 2 3 4\n"
                                          "T= 0.06\nREMOVE= 2\n1 0\n");
    static char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name='root' dt='0.01' gravity='0 0 0'><DefaultAnimationLoop/>"
             "<Node name='Body'>"
             "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"
             "<CGLinearSolver iterations='25' tolerance='1e-12' threshold='1e-12'/>"
             "<MechanicalObject name='dofs' position='0 0 0 1 0 0 0 1 0 0 0 1 1 1 1 1 1 0'/>"
             "<TetrahedronSetTopologyContainer name='in' position='0 0 0 1 0 0 0 1 0 0 0 1 "
             "1 1 1 1 1 0' tetrahedra='0 1 2 3 1 2 3 4 1 5 2 4'/>"
             "<TetrahedronSetTopologyModifier/><UniformMass totalMass='1'/>"
             "<TopologicalChangeProcessor filename='%s'/>"
             "<Node name='Out'><PointSetTopologyContainer name='out'/><PointSetTopologyModifier/>"
             "<Mesh2PointTopologicalMapping name='m2p' input='@../in' output='@out' "
             "pointBaryCoords='0 0 0' edgeBaryCoords='0.25 0 0' triangleBaryCoords='0.2 0.3 0' "
             "tetraBaryCoords='0.1 0.2 0.3 0.25 0.25 0.25'/>"
             "<MechanicalObject name='pts'/>"
             "<Mesh2PointMechanicalMapping input='@../dofs' output='@pts'/>"
             "</Node></Node></Node>",
             changes);
    return load(xml);
}

/* Three tetrahedra on 6 points; output points from points (offset 0),
 * edges (1/4 along), triangles (0.2 0.3) and tetrahedra (two per
 * tetrahedron); tetrahedron 0 is removed at t = 0.02 (point 0 with it), one
 * is added at t = 0.04 (new triangles and an edge), two are removed at
 * t = 0.06. SOFA (commit 2a278d89, tools/sofa-oracle/run_scene on this
 * scene, dt 0.01, 8 steps) gives the output 34 34 25 25 30 30 16 16 points
 * after steps 1..8; its removal of two tetrahedra after the addition
 * renumbers the output in its three rounds (an output removal at the end
 * of the change alone would give another order), and its positions after
 * step 7 are sofa7 above, which settee matches bit for bit. Gravity is
 * off, so each is its element's combination of rest positions. */
Test(mesh2point_changes, tetrahedra_removed_and_added_as_sofa)
{
    st_scene *s = load_tetras();
    static const size_t sofa_counts[8] = {34, 34, 25, 25, 30, 30, 16, 16};
    st_error err = {0};
    for (int k = 0; k < 7; k++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s: %s", k + 1, err.path,
                     err.msg);
        cr_assert_eq(arr(s, "pts", "position")->n, sofa_counts[k], "step %d: %zu points, SOFA %zu",
                     k + 1, arr(s, "pts", "position")->n, sofa_counts[k]);
        cr_assert_eq(arr(s, "out", "position")->n, sofa_counts[k]);
    }
    assert_points(arr(s, "pts", "position"), sofa7, 16, "output after step 7 (SOFA's)");
    st_scene_destroy(&s);
}

/* A run resumed from a checkpoint written after the addition (step 6)
 * removes the two tetrahedra at step 7 from the restored maps, as the run
 * that went on. */
Test(mesh2point_changes, resumed_run_follows_the_restored_maps)
{
    st_scene *s = load_tetras();
    st_error err = {0};
    for (int k = 0; k < 6; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s: %s", err.path, err.msg);
    const char *ck = test_write_temp("m2p.ck", "");
    cr_assert_eq(st_scene_checkpoint_write(s, ck, "", &err), ST_OK, "%s", err.msg);
    st_scene_destroy(&s);
    s = load_tetras();
    unsigned long steps = 0;
    cr_assert_eq(st_scene_checkpoint_read(s, ck, "", &steps, &err), ST_OK, "%s: %s", err.path,
                 err.msg);
    cr_assert_eq(steps, 6);
    cr_assert_eq(arr(s, "pts", "position")->n, 30, "30 output points restored");
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s: %s", err.path, err.msg);
    assert_points(arr(s, "pts", "position"), sofa7, 16, "output after step 7, resumed");
    st_scene_destroy(&s);
}
