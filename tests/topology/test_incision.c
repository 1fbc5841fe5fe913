/* test_incision.c - TopologicalChangeProcessor's INCISE= (SOFA's
 * computeIntersectedObjectsList, SplitAlongPath and InciseAlongEdgeList) on
 * a small surface of our own: a 2 x 2 square of 8 triangles, points
 * i + 3 j at (i, j, 0),
 *
 *     6---7---8        triangles, each cell's lower-left a:
 *     | / | / |        [a, a+1, a+4] [a, a+4, a+3]
 *     3---4---5        T0 [0,1,4] T1 [0,4,3] T2 [1,2,5] T3 [1,5,4]
 *     | / | / |        T4 [3,4,7] T5 [3,7,6] T6 [4,5,8] T7 [4,8,7]
 *     0---1---2
 *
 * (and the same scaled by 2), cut by SOFA's steps: the path, SnapAlongPath,
 * SnapBorderPath, SplitAlongPath, InciseAlongEdgeList. The new points and
 * the triangle lists after each cut are worked by hand from SOFA's
 * algorithm in the tests' comments; the mass is conserved and a cut from
 * border to border makes two pieces that move apart. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static const char *const plugins[] = {"ODESolver.Backward", "LinearSolver.Direct", "Mass",
                                      "Topology", "Topology.Utility", "Constraint.Projective",
                                      "SolidMechanics.FEM.Elastic", "MechanicalLoad"};

static test_rt T;

static void setup(void)
{
    st_error err = {0};
    test_rt_open(&T);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(T.rt, plugins[i], &err), ST_OK, "%s", err.msg);
}
static void teardown(void) { test_rt_close(&T); }
TestSuite(incision, .init = setup, .fini = teardown);

#define SQUARE                                                                                   \
    "<MechanicalObject name='dofs' position='0 0 0 1 0 0 2 0 0 0 1 0 1 1 0 2 1 0 0 2 0 1 2 0 "   \
    "2 2 0'/>"                                                                                   \
    "<TriangleSetTopologyContainer name='topo' triangles='0 1 4 0 4 3 1 2 5 1 5 4 3 4 7 3 7 6 " \
    "4 5 8 4 8 7'/>"                                                                             \
    "<TriangleSetTopologyModifier name='mod'/>"

/* The scene of objects and a TopologicalChangeProcessor reading changes
 * (extra: its other fields), with the root's dt. */
static st_scene *load_dt(const char *dt, const char *objects, const char *changes,
                         const char *extra)
{
    static char xml[8192];
    const char *path = test_write_temp("incise.txt", changes);
    snprintf(xml, sizeof xml,
             "<Node name='root' dt='%s' gravity='0 0 0'><DefaultAnimationLoop/>"
             "<Node name='Body'>%s<TopologicalChangeProcessor name='tcp' filename='%s' %s/>"
             "</Node></Node>",
             dt, objects, path, extra);
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s: %s", err.path, err.msg);
    return s;
}

static st_scene *load(const char *objects, const char *changes, const char *extra)
{
    return load_dt("0.01", objects, changes, extra);
}

static const st_array *arr(st_scene *s, const char *name, const char *field)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no component %s", name);
    const st_field *f = st_component_field(c, field);
    cr_assert_not_null(f, "%s has no field %s", name, field);
    return st_component_field_ptr(c, f);
}

static void step(st_scene *s, int n)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step: %s: %s", err.path, err.msg);
}

static void assert_tris(const st_array *a, const unsigned *want, size_t n)
{
    char got[2048] = "", *p = got;
    for (size_t i = 0; i < a->n && p < got + sizeof got - 40; i++)
        p += sprintf(p, "[%u %u %u] ", a->u[3 * i], a->u[3 * i + 1], a->u[3 * i + 2]);
    cr_assert_eq(a->n, n, "%zu triangles, want %zu: %s", a->n, n, got);
    for (size_t i = 0; i < 3 * n; i++)
        cr_assert_eq(a->u[i], want[i], "triangle %zu: %s", i / 3, got);
}

/* The number of pieces (triangles joined by shared points) of a surface. */
static int pieces(const st_array *tris, size_t np)
{
    int parent[256];
    cr_assert(np <= 256);
    for (size_t i = 0; i < np; i++)
        parent[i] = (int)i;
    for (size_t k = 0; k < tris->n; k++)
        for (int j = 1; j < 3; j++) {
            int a = (int)tris->u[3 * k], b = (int)tris->u[3 * k + (size_t)j];
            while (parent[a] != a)
                a = parent[a];
            while (parent[b] != b)
                b = parent[b];
            parent[b] = a;
        }
    bool used[256] = {0};
    for (size_t k = 0; k < 3 * tris->n; k++)
        used[tris->u[k]] = true;
    int n = 0;
    for (size_t i = 0; i < np; i++)
        n += used[i] && parent[i] == (int)i;
    return n;
}

/* The same square scaled by 2 (points i + 3 j at (2 i, 2 j, 0)): SOFA's
 * projection onto a border edge (SnapBorderPath) needs edges longer than 1
 * (see cut_onto_the_borders_opens_it_in_two). */
#define SQUARE2                                                                                  \
    "<MechanicalObject name='dofs' position='0 0 0 2 0 0 4 0 0 0 2 0 2 2 0 4 2 0 0 4 0 2 4 0 "   \
    "4 4 0'/>"                                                                                   \
    "<TriangleSetTopologyContainer name='topo' triangles='0 1 4 0 4 3 1 2 5 1 5 4 3 4 7 3 7 6 " \
    "4 5 8 4 8 7'/>"                                                                             \
    "<TriangleSetTopologyModifier name='mod'/>"

/* The path from (1.5, 0) to (1.5, 2), worked by hand from SOFA's steps.
 * The container's edges (as SOFA derives them): e6 (5, 1), e7 (1, 2), e8
 * (5, 4), e14 (8, 4), e15 (8, 7). Path: (1.5, 0) inside T2 [1,2,5] (weights
 * 0.5 0.5 0), (5, 1) at 0.5, (5, 4) at 0.5, (8, 4) at 0.5, (1.5, 2) inside
 * T7 [4,8,7] (0 0.5 0.5). No crossing is within epsilonSnapPath of a
 * vertex. Both ends have a weight 0 (below epsilonSnapBorder) opposite a
 * border edge, but SOFA's projection onto it fails (an end exactly on the
 * edge's line projects only onto its first vertex): both ends stay inside
 * their triangles, new points 9 ... 13.
 * Split: T2 -> [9,2,5] [9,1,2] [9,5,10] [9,10,1] (triangle to edge);
 * T3 [1,5,4] -> [5,11,10] and, Delaunay, [11,4,10] [4,1,10]; T6 [4,5,8] ->
 * [4,11,12] [11,5,12] [5,8,12]; T7 -> [13,7,4] [13,8,7] [13,4,12]
 * [13,12,8] (8 ... 21); then T7 T6 T3 T2 removed, each hole filled by the
 * last triangle (21 20 19 18).
 * Incision: the ends are not on a border (9's triangle [9,1,2] is flat but
 * closes the border there), so 10 11 12 get copies 14 15 16. The side: the
 * first triangle around the first path edge 9-10, the first added holding
 * it, [9,5,10] (now 10); turning around 10 towards 11: 10, [5,11,10] (12);
 * around 11: [11,5,12] (16); around 12: [5,8,12] (17), [13,12,8] (7): the
 * right side (x > 1.5). Replaced in increasing index order, 7 10 12 16 17
 * removed. The surface stays one piece: a slit from (1.5, 0.5) to (1.5,
 * 1.5). */
Test(incision, cut_across_a_square_follows_sofas_steps)
{
    st_scene *s = load(SQUARE, "T= 0.01\nINCISE= 2\n1.5 0 0 1.5 2 0\n", "");
    step(s, 1); /* t = 0: nothing yet */
    cr_assert_eq(arr(s, "topo", "triangles")->n, 8);
    step(s, 1);
    static const unsigned want[] = {0,  1, 4,  0, 4,  3,  13, 7, 4,  13, 8,  7, 3,  4, 7,  3, 7,
                                    6,  13, 4, 12, 13, 16, 8, 9, 2,  5,  9,  1, 2,  9, 5,  14,
                                    9,  10, 1, 5,  15, 14, 11, 4, 10, 4,  1,  10, 4, 11, 12, 15,
                                    5,  16, 5, 8,  16};
    const st_array *tris = arr(s, "topo", "triangles");
    assert_tris(tris, want, 18);
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 17);
    /* the path's points, then the copies of 10 11 12 */
    static const double y[8] = {0, 0.5, 1, 1.5, 2, 0.5, 1, 1.5};
    for (size_t i = 0; i < 8; i++) {
        const double *p = x->r + 3 * (9 + i);
        cr_assert(fabs(p[0] - 1.5) < 1e-12 && fabs(p[1] - y[i]) < 1e-12 && p[2] == 0,
                  "point %zu at (%g %g %g)", 9 + i, p[0], p[1], p[2]);
    }
    cr_assert_eq(pieces(tris, x->n), 1);
    st_scene_destroy(&s);
    /* SOFA's other form, a triangle index before each point's
     * coordinates: the same cut */
    s = load(SQUARE, "T= 0.01\nINCISE= 2\n2 1.5 0 0 7 1.5 2 0\n", "");
    step(s, 2);
    assert_tris(arr(s, "topo", "triangles"), want, 18);
    st_scene_destroy(&s);
}

/* SnapBorderPath onto border edges, on SQUARE2, from (3, 0.0005) to (3,
 * 3.9995): the first end is in T2 [1,2,5] with weights (0.5, 0.49975,
 * 0.00025), below epsilonSnapBorder opposite the border edge (1, 2), 2
 * long, and 0.0005 from it: it goes onto the edge, at (3, 0) (weight 0.5);
 * the last, in T7 [4,8,7] (0.00025, 0.5, 0.49975), onto (8, 7) at (3, 4).
 * Path: 9 on (1, 2), 10 on (5, 1), 11 on (5, 4), 12 on (8, 4), 13 on (8, 7).
 * Split (edge to edge, each quad by the Delaunay test): T2 -> [1,9,10]
 * [9,2,10] [2,5,10]; T3 -> [5,11,10] [11,4,10] [4,1,10]; T6 -> [4,11,12]
 * [11,5,12] [5,8,12]; T7 [4,8,7] (corner 8) -> [8,13,12] [13,7,12]
 * [7,4,12] (8 ... 19); T7 T6 T3 T2 removed (19 18 17 16 fill them).
 * Incision: both ends on the border, all five points get copies 14 ...
 * 18; the side of [1,9,10] (8), the first triangle holding 9-10, turned
 * around each point: 8 13 12 14 7 6, the left side (x < 3). The square
 * falls apart in two pieces. */
Test(incision, cut_onto_the_borders_opens_it_in_two)
{
    st_scene *s = load(SQUARE2, "T= 0.01\nINCISE= 2\n3 0.0005 0 3 3.9995 0\n", "");
    step(s, 2);
    static const unsigned want[] = {0, 1,  4,  0, 4,  3,  5,  8,  12, 8,  13, 12, 3,  4,  7, 3,
                                    7, 6,  18, 7, 17, 7,  4,  17, 1,  14, 15, 9,  2,  10, 2, 5,
                                    10, 5, 11, 10, 16, 4, 15, 4,  1,  15, 4,  16, 17, 11, 5, 12};
    const st_array *tris = arr(s, "topo", "triangles");
    assert_tris(tris, want, 16);
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 19);
    static const double y[5] = {0, 1, 2, 3, 4};
    for (size_t i = 0; i < 5; i++)
        for (size_t c = 0; c < 2; c++) {
            const double *p = x->r + 3 * (9 + i + 5 * c);
            cr_assert(fabs(p[0] - 3) < 1e-12 && fabs(p[1] - y[i]) < 1e-12 && p[2] == 0,
                      "point %zu at (%g %g %g)", 9 + i + 5 * c, p[0], p[1], p[2]);
        }
    cr_assert_eq(pieces(tris, x->n), 2);
    st_scene_destroy(&s);
    /* 0.01 from the borders the ends stay inside their triangles (SOFA's
     * projection wants 1e-3): one piece */
    s = load(SQUARE2, "T= 0.01\nINCISE= 2\n3 0.01 0 3 3.99 0\n", "");
    step(s, 2);
    x = arr(s, "dofs", "position");
    cr_assert_eq(pieces(arr(s, "topo", "triangles"), x->n), 1);
    st_scene_destroy(&s);
}

/* The cut of cut_onto_the_borders_opens_it_in_two with a mass and an FEM:
 * the state's vectors follow, DiagonalMass keeps the total (the cut
 * changes no area), and pulling the right piece while the left one is
 * fixed moves only the right piece. */
Test(incision, mass_and_fem_follow_and_the_pieces_separate)
{
    st_scene *s = load("<EulerImplicitSolver/><SparseLDLSolver/>" SQUARE2
                       "<DiagonalMass name='mass' massDensity='2'/>"
                       "<TriangularFEMForceField youngModulus='1000' poissonRatio='0.3'/>"
                       "<FixedProjectiveConstraint indices='0 3 6'/>"
                       "<ConstantForceField name='pull' indices='2 5 8' forces='1 0 0'/>",
                       "T= 0.01\nINCISE= 2\n3 0.0005 0 3 3.9995 0\n", "");
    const st_array *m = arr(s, "mass", "vertexMass");
    double before = 0;
    for (size_t i = 0; i < m->n; i++)
        before += m->r[i];
    cr_assert(fabs(before - 32.0) < 1e-12, "mass %g (area 16, density 2)", before);
    step(s, 2);
    m = arr(s, "mass", "vertexMass");
    cr_assert_eq(m->n, 19, "%zu masses", m->n);
    double after = 0;
    for (size_t i = 0; i < m->n; i++)
        after += m->r[i];
    cr_assert(fabs(after - before) < 1e-12, "mass %g after the cut, %g before", after, before);
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 19);
    double x0[19];
    for (size_t i = 0; i < 19; i++)
        x0[i] = x->r[3 * i];
    step(s, 200);
    x = arr(s, "dofs", "position");
    /* the left piece (0 1 3 4 6 7 and the copies 14 ... 18) stays; the
     * right one (2 5 8, 9 ... 13) runs off in +x */
    static const unsigned left[] = {0, 1, 3, 4, 6, 7, 14, 15, 16, 17, 18};
    static const unsigned right[] = {2, 5, 8, 9, 10, 11, 12, 13};
    for (size_t i = 0; i < sizeof left / sizeof *left; i++)
        cr_assert(fabs(x->r[3 * left[i]] - x0[left[i]]) < 0.05, "left point %u moved to %g",
                  left[i], x->r[3 * left[i]]);
    for (size_t i = 0; i < sizeof right / sizeof *right; i++)
        cr_assert(x->r[3 * right[i]] - x0[right[i]] > 0.5, "right point %u at %g", right[i],
                  x->r[3 * right[i]]);
    st_scene_destroy(&s);
}

/* A cut that ends inside the surface (SOFA's end point not on a border)
 * opens nothing at that end: on SQUARE2 from (3, 0.0005) to (3, 1.5), the
 * path is 9 on (1, 2) (the border snap), 10 on (5, 1), and 11 inside T3
 * [1,5,4] at (3, 1.5). Only 9 (on the border) and 10 are copied; 11, the
 * tip, joins both sides. */
Test(incision, cut_ending_inside_keeps_its_tip)
{
    st_scene *s = load(SQUARE2, "T= 0.01\nINCISE= 2\n3 0.0005 0 3 1.5 0\n", "");
    step(s, 2);
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 14, "9 points, 3 on the path, 2 copies: %zu", x->n);
    const double *tip = x->r + 3 * 11;
    cr_assert(fabs(tip[0] - 3) < 1e-12 && fabs(tip[1] - 1.5) < 1e-12);
    const double *c0 = x->r + 3 * 12, *c1 = x->r + 3 * 13;
    cr_assert(fabs(c0[0] - 3) < 1e-12 && fabs(c0[1]) < 1e-12, "copy of 9 at (%g %g)", c0[0],
              c0[1]);
    cr_assert(fabs(c1[0] - 3) < 1e-12 && fabs(c1[1] - 1) < 1e-12);
    const st_array *tris = arr(s, "topo", "triangles");
    cr_assert_eq(pieces(tris, x->n), 1);
    /* the tip is used by triangles of both sides: some with copies, some
     * with the originals */
    bool with_copy = false, with_orig = false;
    for (size_t k = 0; k < tris->n; k++) {
        const unsigned *t = tris->u + 3 * k;
        if (t[0] != 11 && t[1] != 11 && t[2] != 11)
            continue;
        for (int j = 0; j < 3; j++) {
            with_copy |= t[j] == 13;
            with_orig |= t[j] == 10;
        }
    }
    cr_assert(with_copy && with_orig);
    st_scene_destroy(&s);
}

/* saveIndicesAtInit: the incision's points are kept on the surface from
 * init, so that they move with it. The square is moved by +10 in x before
 * the cut's time: the cut happens at x = 11.5, the same triangles as
 * above; without it, the file's coordinates are on no triangle and the
 * cut is not made (SOFA's "Invalid path"), with a warning. */
Test(incision, saved_indices_follow_the_surface)
{
    st_scene *s = load(SQUARE, "T= 0.02\nINCISE= 2\n1.5 0 0 1.5 2 0\n",
                       "saveIndicesAtInit='true'");
    step(s, 1);
    st_array *x = (st_array *)arr(s, "dofs", "position");
    for (size_t i = 0; i < x->n; i++)
        x->r[3 * i] += 10;
    step(s, 2);
    x = (st_array *)arr(s, "dofs", "position");
    cr_assert_eq(x->n, 17);
    cr_assert(fabs(x->r[3 * 9] - 11.5) < 1e-12, "cut at x = %g", x->r[3 * 9]);
    cr_assert_eq(arr(s, "topo", "triangles")->n, 18);
    st_scene_destroy(&s);

    s = load(SQUARE, "T= 0.02\nINCISE= 2\n1.5 0 0 1.5 2 0\n", "");
    step(s, 1);
    x = (st_array *)arr(s, "dofs", "position");
    for (size_t i = 0; i < x->n; i++)
        x->r[3 * i] += 10;
    step(s, 2);
    cr_assert_eq(arr(s, "dofs", "position")->n, 9, "no cut off the surface");
    st_scene_destroy(&s);
}

/* SnapAlongPath (epsilonSnapPath 0.1), from (1.05, 0.3) inside T3 [1,5,4]
 * (weights 0.7 0.05 0.25) to (1.05, 1.7) inside T7 [4,8,7] (0.3 0.05
 * 0.65): the path crosses (5, 4) and (8, 4) at weight 0.95 of 4, the
 * inner vertex (1, 1): both crossings gather there; the first becomes the
 * vertex 4, the second leaves the path (the ends, with weights below 0.9,
 * stay). Path: 9 inside T3, 4, 10 inside T7; 4 moves to the mean of the
 * two crossings, (1.05, 1.025), made of its path neighbours 9 (1.05, 0.3)
 * and 10 (1.05, 1.7) with SOFA's weights (the distances to 10 and to 9 over
 * their distance: 0.675 / 1.4 and 0.725 / 1.4). No end is near a border
 * edge, and the edges near them are inner ones whose vertices are far
 * (SnapBorderPath leaves them).
 * Split: T3 -> [9,1,5] [9,5,4] [9,4,1], T7 -> [4,8,10] [8,7,10] [7,4,10]
 * (8 ... 13); T7, T3 removed (13, 12 fill them).
 * Incision: only 4 is copied (11); the side of [9,5,4] (9), turned around
 * 4 until 10: 9, T6 [4,5,8] (6), [4,8,10] (11): the right side; 6 9 11
 * replaced in that order. Without snapping (0, with saveIndicesAtInit: SOFA
 * reads the field there only), the path crosses both edges: 4 new points,
 * 2 copies, and 4 stays at (1, 1). */
Test(incision, snap_path_moves_a_vertex_to_the_mean)
{
    st_scene *s = load(SQUARE, "T= 0.01\nINCISE= 2\n1.05 0.3 0 1.05 1.7 0\n",
                       "epsilonSnapPath='0.1'");
    step(s, 2);
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 12, "%zu points", x->n);
    static const double want_x[4][3] = {
        {1.05, 1.025, 0}, {1.05, 0.3, 0}, {1.05, 1.7, 0}, {1.05, 1.025, 0}};
    static const unsigned at[4] = {4, 9, 10, 11};
    for (size_t i = 0; i < 4; i++)
        for (int c = 0; c < 3; c++)
            cr_assert(fabs(x->r[3 * at[i] + (size_t)c] - want_x[i][c]) < 1e-12,
                      "point %u at (%g %g %g)", at[i], x->r[3 * at[i]], x->r[3 * at[i] + 1],
                      x->r[3 * at[i] + 2]);
    /* the rest position moves too (SOFA remakes every vector) */
    const st_array *x0 = arr(s, "dofs", "rest_position");
    cr_assert(fabs(x0->r[3 * 4] - 1.05) < 1e-12 && fabs(x0->r[3 * 4 + 1] - 1.025) < 1e-12,
              "rest place of 4 (%g %g)", x0->r[3 * 4], x0->r[3 * 4 + 1]);
    static const unsigned want[] = {0, 1, 4, 0,  4, 3, 1, 2,  5, 8, 7, 10, 3,  4, 7, 3, 7, 6,
                                    11, 5, 8, 7, 4, 10, 9, 1, 5, 9, 5, 11, 9, 4, 1, 11, 8, 10};
    const st_array *tris = arr(s, "topo", "triangles");
    assert_tris(tris, want, 12);
    cr_assert_eq(pieces(tris, x->n), 1);
    st_scene_destroy(&s);
    s = load(SQUARE, "T= 0.01\nINCISE= 2\n1.05 0.3 0 1.05 1.7 0\n",
             "saveIndicesAtInit='true' epsilonSnapPath='0'");
    step(s, 2);
    x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 15, "%zu points", x->n);
    cr_assert(x->r[3 * 4] == 1 && x->r[3 * 4 + 1] == 1, "4 at (%g %g)", x->r[12], x->r[13]);
    st_scene_destroy(&s);
    /* SOFA reads the field for the incisions of saveIndicesAtInit only: the
     * others snap with 0.1 */
    s = load(SQUARE, "T= 0.01\nINCISE= 2\n1.05 0.3 0 1.05 1.7 0\n", "epsilonSnapPath='0'");
    step(s, 2);
    cr_assert_eq(arr(s, "dofs", "position")->n, 12);
    st_scene_destroy(&s);
}

/* SnapBorderPath onto vertices, from (0.9, 0.85) inside T0 [0,1,4]
 * (weights 0.1 0.05 0.85) to (1.9, 0.85) inside T2 [1,2,5] (0.1 0.05 0.85).
 * Path: T0's point, (1, 4) at 0.85 of 4, (5, 1) at 0.15 of 1, T2's point
 * (no weight passes 1 - epsilonSnapPath). The first end's weight 0.1 is
 * below epsilonSnapBorder opposite the inner edge (1, 4): it goes onto the
 * vertex 4 (0.85 > 0.75), and the crossing of (1, 4), on its edges, leaves
 * the path. The last end's weight 0.1 is opposite the border edge (2, 5),
 * 1 long: SOFA's projection fails there; its 0.05 is opposite the inner
 * edge (5, 1): onto 5, and the crossing of (5, 1) leaves. The path is the
 * existing edge 4-5: nothing to split. Incision: the edge as the container
 * stores it, (5, 4); 5 is on the border: copied (9); the side is T3
 * [1,5,4], which runs along 5 -> 4, turned around 5 to the border: T3, T2.
 * A slit from the right border to the centre. */
Test(incision, border_snap_onto_vertices_cuts_along_an_edge)
{
    st_scene *s = load(SQUARE, "T= 0.01\nINCISE= 2\n0.9 0.85 0 1.9 0.85 0\n", "");
    step(s, 2);
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 10, "%zu points", x->n);
    cr_assert(x->r[27] == 2 && x->r[28] == 1 && x->r[29] == 0, "copy of 5 at (%g %g %g)",
              x->r[27], x->r[28], x->r[29]);
    cr_assert(x->r[12] == 1 && x->r[13] == 1, "4 stays at (%g %g)", x->r[12], x->r[13]);
    static const unsigned want[] = {0, 1, 4, 0, 4, 3, 1, 2, 9, 1, 9, 4,
                                    3, 4, 7, 3, 7, 6, 4, 5, 8, 4, 8, 7};
    assert_tris(arr(s, "topo", "triangles"), want, 8);
    st_scene_destroy(&s);
}

/* With saveIndicesAtInit, the saved triangle of the first point is SOFA's
 * ind_ta: (1.5, 0.5) is on the edge (5, 1) between T2 and T3; written with
 * T3 [1,5,4] the cut up to (1.5, 1.5) starts in T3 and is made (9 inside
 * T3, 10 on (5, 4), 11 inside T6, a copy of 10: 13 points); with T2
 * [1,2,5] the segment leaves T2 through no edge ahead (it runs along the
 * edge it starts on): no path, the cut is left with a warning. */
Test(incision, saved_triangle_is_the_first_points)
{
    static const struct {
        const char *file;
        size_t points;
    } cases[] = {
        {"T= 0.01\nINCISE= 2\n3 1.5 0.5 0 6 1.5 1.5 0\n", 13},
        {"T= 0.01\nINCISE= 2\n2 1.5 0.5 0 6 1.5 1.5 0\n", 9},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        st_scene *s = load(SQUARE, cases[i].file, "saveIndicesAtInit='true'");
        step(s, 2);
        cr_assert_eq(arr(s, "dofs", "position")->n, cases[i].points, "case %zu: %zu points", i,
                     arr(s, "dofs", "position")->n);
        st_scene_destroy(&s);
    }
}

/* Bad INCISE= lines are errors at the file's line. */
Test(incision, bad_lines_are_errors_at_the_line)
{
    static const struct {
        const char *file, *want;
    } cases[] = {
        {"T= 0.01\nINCISE= 1\n0 0 0\n", "incise.txt:2: 'INCISE=' needs the number of points"},
        {"T= 0.01\nINCISE= 2\n0 0 0 1 1\n", "incise.txt:3: INCISE= announced"},
        {"T= 0.01\nINCISE= 2\n0 0 0 1 x 0\n", "incise.txt:3: 'x' is not a coordinate"},
        {"T= 0.01\nINCISE= 2", "incise.txt:2: 'INCISE=' must be followed by a line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static char xml[4096];
        const char *path = test_write_temp("incise.txt", cases[i].file);
        snprintf(xml, sizeof xml,
                 "<Node name='root'><DefaultAnimationLoop/><Node name='Body'>" SQUARE
                 "<TopologicalChangeProcessor filename='%s'/></Node></Node>",
                 path);
        st_error err = {0};
        st_scene *s = NULL;
        cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK);
        cr_assert_neq(st_scene_init(s, &err), ST_OK, "case %zu", i);
        cr_assert(strstr(err.msg, cases[i].want), "case %zu: want '%s' in '%s'", i,
                  cases[i].want, err.msg);
        st_scene_destroy(&s);
    }
}

/* Runs scene.scn (with cuts.txt) 5 steps, and 2 steps to a checkpoint then
 * on to 5 from it: the two final exports must be the same text, returned
 * (to free). */
static char *resumed_equals_full(const char *scene, const char *cuts)
{
    char dir[512], path[1024], cmd[4096], out[8192];
    test_make_dir(dir, sizeof dir, "incck");
    const char *const files[2][2] = {{"scene.scn", scene}, {"cuts.txt", cuts}};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fputs(files[i][1], f);
        fclose(f);
    }
    static const char *const runs[] = {"-n 5 --export-state full.json", "-n 2 --checkpoint ck.bin",
                                       "-n 5 --resume ck.bin --export-state resumed.json"};
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && SETTEE_PLUGIN_PATH=%s %s run scene.scn --no-progress %s", dir,
                 SETTEE_BUILD_PLUGIN_DIR, SETTEE_CLI, runs[i]);
        cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
    }
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/full.json", dir);
    snprintf(b, sizeof b, "%s/resumed.json", dir);
    char *fa = test_read_file(a), *fb = test_read_file(b);
    cr_assert(fa && fb);
    cr_assert_str_eq(fa, fb);
    free(fb);
    test_remove_dir(dir);
    return fa;
}

#define CUTS_TWO                                                                                  \
    "T= 0.01\nINCISE= 2\n1.5 0 0 1.5 1.2 0\nT= 0.03\nINCISE= 2\n0.2 1.5 0 1.8 1.5 0\n"

/* A checkpoint between two cuts with saveIndicesAtInit (the first, from the
 * bottom border to inside T6, at t = 0.01; the second, across the upper
 * cells, at t = 0.03): the points, triangles and states the first cut made
 * and the saved points found again after it come back from the
 * checkpoint, and the resumed run ends as the uninterrupted one, bit for
 * bit (27 points: 9 + 4 new and 3 copies, then 6 new and 5 copies). */
Test(incision, checkpoint_between_cuts_resumes_bit_identically)
{
    char *fa = resumed_equals_full(
        "<Node name='root' dt='0.01' gravity='0 0 0'><DefaultAnimationLoop/>"
        "<RequiredPlugin name='Topology'/><RequiredPlugin name='Topology.Utility'/>"
        "<Node name='Body'>" SQUARE
        "<TopologicalChangeProcessor filename='cuts.txt' saveIndicesAtInit='true'/>"
        "</Node></Node>",
        CUTS_TWO);
    cr_assert(strstr(fa, "[1.8, 1.5, 0]"), "the second cut's last point: %s", fa);
    free(fa);
}

/* The same with the square hanging from its points 0 1 2 under gravity, with
 * TriangularBendingSprings: the springs' per-edge information after the
 * first cut comes back from the checkpoint (a followed array) and the
 * springs are made again from it, so that the resumed run moves as the
 * uninterrupted one. */
Test(incision, checkpoint_keeps_the_bending_springs_of_a_cut)
{
    char *fa = resumed_equals_full(
        "<Node name='root' dt='0.01' gravity='0 0 -10'><DefaultAnimationLoop/>"
        "<RequiredPlugin name='Topology'/><RequiredPlugin name='Topology.Utility'/>"
        "<RequiredPlugin name='ODESolver.Backward'/><RequiredPlugin name='Mass'/>"
        "<RequiredPlugin name='LinearSolver.Iterative'/>"
        "<RequiredPlugin name='SolidMechanics.Spring'/>"
        "<RequiredPlugin name='Constraint.Projective'/>"
        "<Node name='Body'><EulerImplicitSolver/><CGLinearSolver iterations='25' "
        "tolerance='1e-12' threshold='1e-20'/>" SQUARE
        "<DiagonalMass massDensity='1'/><FixedProjectiveConstraint indices='0 1 2'/>"
        "<TriangularBendingSprings stiffness='50' damping='1'/>"
        "<TopologicalChangeProcessor filename='cuts.txt' saveIndicesAtInit='true'/>"
        "</Node></Node>",
        CUTS_TWO);
    free(fa);
}

/* The triangle written before the first point is taken as that point's
 * triangle, as SOFA's INCISE= reads ind_ta (it searches only when the line
 * holds coordinates alone). (1.5, 0, 0) lies in T2 [1,2,5] only: written
 * with T2 the cut is the one of cut_across_a_square_follows_sofas_steps
 * (18 triangles); written with T0 [0,1,4], which does not hold it, or with a
 * triangle the square does not have (99), the path cannot start and the cut
 * is not made (settee's warning, SOFA's "Invalid path"): the 8 triangles
 * and 9 points stay. */
Test(incision, written_triangle_is_the_first_points)
{
    static const struct {
        const char *file;
        size_t tris, points;
    } cases[] = {
        {"T= 0.01\nINCISE= 2\n2 1.5 0 0 7 1.5 2 0\n", 18, 17},
        {"T= 0.01\nINCISE= 2\n0 1.5 0 0 7 1.5 2 0\n", 8, 9},
        {"T= 0.01\nINCISE= 2\n99 1.5 0 0 7 1.5 2 0\n", 8, 9},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        st_scene *s = load(SQUARE, cases[i].file, "");
        step(s, 2);
        cr_assert_eq(arr(s, "topo", "triangles")->n, cases[i].tris, "case %zu", i);
        cr_assert_eq(arr(s, "dofs", "position")->n, cases[i].points, "case %zu", i);
        st_scene_destroy(&s);
    }
}

/* With saveIndicesAtInit the written triangle is the one the point is kept
 * in (SOFA's triangleIndices), with the point's weights there even when
 * the triangle does not hold it, and the cut starts from it (SOFA's ind_ta
 * is triangleIndices[0], never searched). (1.5, 0, 0) written with T2
 * [1,2,5] is 0.5 of 1 and 0.5 of 2: moving 2 from (2, 0) to (2.2, 0)
 * before the cut moves it to (1.6, 0), where the cut's first point 9 is
 * made. Written with T0 [0,1,4] it is -0.5 of 0 and 1.5 of 1 and stays at
 * (1.5, 0); SOFA's walk starts in T0: the line x = 1.5 meets T0's sides'
 * lines at (1.5, 0) (side 0-1, at 1.5 of it, and not ahead of a), nowhere
 * (side 1-4, parallel) and at (1.5, 1.5) (side 4-0, at -0.5 of it): no
 * side is crossed, the walk ends in T0, not in b's T7: SOFA's "Invalid
 * path", the cut is not made (9 points stay). A triangle the surface does
 * not have is an error at the line at init. */
Test(incision, saved_indices_use_the_written_triangle)
{
    static const struct {
        const char *file;
        double x9;
    } cases[] = {
        {"T= 0.02\nINCISE= 2\n2 1.5 0 0 7 1.5 2 0\n", 1.6},
        {"T= 0.02\nINCISE= 2\n0 1.5 0 0 7 1.5 2 0\n", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        st_scene *s = load(SQUARE, cases[i].file, "saveIndicesAtInit='true'");
        step(s, 1);
        st_array *x = (st_array *)arr(s, "dofs", "position");
        x->r[3 * 2] = 2.2;
        step(s, 2);
        x = (st_array *)arr(s, "dofs", "position");
        if (cases[i].x9 < 0) {
            cr_assert_eq(x->n, 9, "case %zu: the cut is made", i);
            cr_assert_eq(arr(s, "topo", "triangles")->n, 8, "case %zu", i);
            st_scene_destroy(&s);
            continue;
        }
        cr_assert_gt(x->n, 9, "case %zu: no cut", i);
        cr_assert(fabs(x->r[3 * 9] - cases[i].x9) < 1e-12 && fabs(x->r[3 * 9 + 1]) < 1e-12,
                  "case %zu: point 9 at (%g %g)", i, x->r[3 * 9], x->r[3 * 9 + 1]);
        st_scene_destroy(&s);
    }
    static char xml[4096];
    const char *path = test_write_temp("incise.txt", "T= 0.01\nINCISE= 2\n99 1.5 0 0 7 1.5 2 0\n");
    snprintf(xml, sizeof xml,
             "<Node name='root'><DefaultAnimationLoop/><Node name='Body'>" SQUARE
             "<TopologicalChangeProcessor filename='%s' saveIndicesAtInit='true'/></Node></Node>",
             path);
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "incise.txt:3: the incision point's triangle 99"), "%s", err.msg);
    st_scene_destroy(&s);
}

/* A segment exactly through the inner vertex 4 (1, 1), worked by hand from
 * SOFA's computeSegmentTriangleIntersection (exact here: the square lies
 * in z = 0, its normals are (0, 0, -1) exactly) and
 * computeIntersectedPointsList. From (0.75, 0.25) inside T0 [0,1,4] to
 * (1.25, 1.75) inside T7 [4,8,7]: T0's sides (1, 4) and (4, 0) both meet
 * the segment at 4, at the same parameter 0.5; the first tested, (1, 4),
 * is kept, at its weight 1 exactly: the path's crossing is the edge
 * (1, 4) at 4 (a vertex is crossed as an edge point of weight 0 or 1). The
 * walk then tests the triangles around 4 in SOFA's order (T0 T1 T3 T4 T6
 * T7, T0 left out): only T7 is crossed (by (8, 7), beyond b), and T7, the
 * last tested, is b's: the path is T0's point, (1, 4) at 4, T7's point. No
 * snap (4 gathers one path point), and SOFA's SplitAlongPath finds the
 * edge (1, 4) in no side of T7 (its EDGE::TRIANGLE case): it stops before
 * any change. From (0.75, 1.25) inside T4 [3,4,7] to (1.25, 0.75) inside
 * T3 [1,5,4] the crossing is (4, 3) at 4 (weight 0 of 3), the walk around 4 finds T3 (by (1, 5)) but the last triangle it tests is
 * T7, not b's T3: SOFA's path is not reached ("Invalid path"). Either way
 * the surface stays as it was: 8 triangles, 9 points, where settee's own
 * walk of before went through the vertex and cut. */
Test(incision, cut_through_a_vertex_is_sofas)
{
    static const char *const files[] = {"T= 0.01\nINCISE= 2\n0.75 0.25 0 1.25 1.75 0\n",
                                        "T= 0.01\nINCISE= 2\n0.75 1.25 0 1.25 0.75 0\n"};
    static const unsigned square[] = {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4,
                                      3, 4, 7, 3, 7, 6, 4, 5, 8, 4, 8, 7};
    for (size_t i = 0; i < 2; i++) {
        st_scene *s = load(SQUARE, files[i], "");
        step(s, 2);
        assert_tris(arr(s, "topo", "triangles"), square, 8);
        cr_assert_eq(arr(s, "dofs", "position")->n, 9, "case %zu", i);
        st_scene_destroy(&s);
    }
}

/* Two successive cuts (one INCISE= of three points) where the order of the
 * triangles around an edge decides the side of the copies, worked by hand
 * from SOFA's algorithm and its around-arrays.
 * Cut 1, (1.75, 0.25) inside T2 [1,2,5] (weights 0.25 0.5 0.25) to
 * (1.25, 0.5) inside T3 [1,5,4] (0.5 0.25 0.25), crosses (5, 1) at 7/12
 * of 1: new points 9 10 11. Split: T2 -> [9,2,5] [9,1,2] [9,5,10]
 * [9,10,1], T3 -> [11,4,1] [11,5,4] [11,1,10] [11,10,5] (8 ... 15; new
 * edges 16 ... 25: (2,9) (5,9) (1,9) (5,10) (9,10) (1,10) (4,11) (1,11)
 * (5,11) (10,11)); T3 then T2 removed (15, 14 fill them). Incision: both
 * ends inside, 10 copied (12); the side of [9,5,10] (10), turned around 10
 * to 11: [11,10,5] (3); replaced: [11,12,5] (3), [9,5,12] (10). The edge
 * (5, 11) now has around it [11,5,4] (13), added first, then [11,12,5]
 * (3): SOFA's list [13, 3].
 * Cut 2 starts at SOFA's a_last 11 with ind_ta the triangle b was found in
 * before cut 1 (3, now [11,12,5]: the segment does not cross it ahead),
 * so the triangles around 11 are tried: [11,4,1] no, [11,5,4] crossed by
 * (5, 4). Path: 11, (5, 4) at 5/24 of 4, (1.9, 1.1) inside T6 [4,5,8]
 * (0.1 0.8 0.1). SnapBorderPath: the weight 0.1 opposite the border edge
 * (5, 8) cannot project (an edge 1 long); the 0.1 opposite the inner edge
 * (4, 5) puts the end on 5 (0.8 > 0.75), and the crossing of (5, 4)
 * leaves. The path is the edge (5, 11), as stored: 5 then 11. Both are on
 * a border (fewer triangles than edges around them: 5 on the square's,
 * 11 at the tip of cut 1's slit), so both are copied (13, 14). The side:
 * the first triangle around (5, 11), [11,5,4] (13), turned around 5 to
 * the border: 13, T6 [4,5,8] (6); around 11: 13, [11,4,1] (12), [11,1,10]
 * (2), up to the slit. Replaced in increasing order: [14,1,10] [4,13,8]
 * [14,4,1] [14,13,4] (14 ... 17), then 13 12 6 2 removed (17 16 15 14
 * fill them). (Taking the triangle that runs along the stored edge,
 * [11,12,5], as settee did, would have copied 5 and 11 on the lower
 * side.) */
Test(incision, successive_cuts_follow_sofas_around_order)
{
    st_scene *s = load(SQUARE, "T= 0.01\nINCISE= 3\n1.75 0.25 0 1.25 0.5 0 1.9 1.1 0\n", "");
    step(s, 2);
    static const unsigned want[] = {0,  1,  4, 0,  4,  3, 14, 1, 10, 11, 12, 5, 3,  4,
                                    7,  3,  7, 6,  4,  13, 8, 4, 8,  7,  9,  2, 5,  9,
                                    1,  2,  9, 5,  12, 9,  10, 1, 14, 4,  1,  14, 13, 4};
    const st_array *tris = arr(s, "topo", "triangles");
    assert_tris(tris, want, 14);
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 15, "%zu points", x->n);
    static const double at[6][3] = {{1.75, 0.25, 0},
                                    {1 + 5.0 / 12, 5.0 / 12, 0},
                                    {1.25, 0.5, 0},
                                    {1 + 5.0 / 12, 5.0 / 12, 0},
                                    {2, 1, 0},
                                    {1.25, 0.5, 0}};
    for (size_t i = 0; i < 6; i++)
        for (int c = 0; c < 3; c++)
            cr_assert(fabs(x->r[3 * (9 + i) + (size_t)c] - at[i][c]) < 1e-12,
                      "point %zu at (%g %g %g)", 9 + i, x->r[3 * (9 + i)],
                      x->r[3 * (9 + i) + 1], x->r[3 * (9 + i) + 2]);
    cr_assert(x->r[15] == 2 && x->r[16] == 1, "5 stays at (%g %g)", x->r[15], x->r[16]);
    st_scene_destroy(&s);
}

/* SOFA moves a snapped vertex last (movePointsProcess after
 * addRemoveTriangles): the components that follow the topology make the
 * new triangles' data on the places before the move. The cut of
 * snap_path_moves_a_vertex_to_the_mean with DiagonalMass (massDensity 1):
 * 1 (1, 0) had 0.5 (a third of T0, T2, T3, each 0.5); T3 goes (-1/6) and
 * its pieces holding 1, [9,1,5] (0.125) and [9,4,1] (0.025, with 4 still
 * at (1, 1)), come (+0.05): 0.38333...; the incision touches no triangle
 * of 1. Had 4 moved first (to (1.05, 1.025)), T3 would have gone with
 * 0.4875 and [9,4,1] come with 0.018125: 0.385208... The total stays 4
 * either way. */
Test(incision, snapped_vertex_moves_after_the_new_triangles)
{
    st_scene *s = load(SQUARE "<DiagonalMass name='mass' massDensity='1'/>",
                       "T= 0.01\nINCISE= 2\n1.05 0.3 0 1.05 1.7 0\n", "epsilonSnapPath='0.1'");
    step(s, 2);
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 12, "%zu points", x->n);
    cr_assert(fabs(x->r[12] - 1.05) < 1e-12 && fabs(x->r[13] - 1.025) < 1e-12,
              "4 at (%g %g)", x->r[12], x->r[13]);
    const st_array *m = arr(s, "mass", "vertexMass");
    cr_assert_eq(m->n, 12);
    cr_assert(fabs(m->r[1] - (0.5 - 0.5 / 3 + 0.15 / 3)) < 1e-12, "mass of 1: %.17g", m->r[1]);
    double total = 0;
    for (size_t i = 0; i < m->n; i++)
        total += m->r[i];
    cr_assert(fabs(total - 4) < 1e-12, "total %.17g", total);
    st_scene_destroy(&s);
}

/* The cut of border_snap_onto_vertices_cuts_along_an_edge after T3 [1,5,4]
 * was removed (REMOVE=: T7 fills its place, 3) and added again (ADD=: it
 * is 7 now). SOFA's list of the triangles around the edge (5, 4) was
 * [T3, T6] (T3 runs along it, first at init); T3 left it and came back at
 * its end: [6, 7]. The path is the same (T0's end onto 4, T2's onto 5: the
 * walk crosses (1, 4) into 7 and (5, 1) into T2), the edge (5, 4), 5
 * copied (9); the side is now T6 [4,5,8] (6), turned around 5 to the
 * border at (5, 8): only 6 is replaced, [4,9,8] (8, then 6). (The
 * triangle that runs along 5 -> 4, 7, would have copied 5 below the edge.) */
Test(incision, earlier_changes_order_the_triangles_around_an_edge)
{
    st_scene *s = load(SQUARE,
                       "T= 0.01\nREMOVE= 1\n3\nADD= Triangles 1\n1 5 4\n"
                       "T= 0.02\nINCISE= 2\n0.9 0.85 0 1.9 0.85 0\n",
                       "");
    step(s, 3);
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 10, "%zu points", x->n);
    cr_assert(x->r[27] == 2 && x->r[28] == 1 && x->r[29] == 0, "copy of 5 at (%g %g %g)",
              x->r[27], x->r[28], x->r[29]);
    static const unsigned want[] = {0, 1, 4, 0, 4, 3, 1, 2, 5, 4, 8, 7,
                                    3, 4, 7, 3, 7, 6, 4, 9, 8, 1, 5, 4};
    assert_tris(arr(s, "topo", "triangles"), want, 8);
    st_scene_destroy(&s);
}

/* With saveIndicesAtInit the incision made is the one saved for the node's
 * time (SOFA's findIndexInListOfTime, within 1e-10), whatever INCISE= line
 * the step read. With dt 0.2 the node's times add up to 1.5999999999999999
 * and 1.7999999999999998: "T= 1.6" is not reached at the ninth step (4.4e-16
 * short, more than SOFA's machine epsilon), and at the tenth the lines of
 * T= 1.6 are read while "T= 1.8" is not yet: SOFA cuts the incision saved
 * for 1.8 (B, from (0.5, 1.3) inside T4 [3,4,7] to (1.5, 1.3) inside T6
 * [4,5,8]); at the eleventh (1.9999999999999998) the lines of T= 1.8 are
 * read, but no incision is saved for that time: nothing more is cut. The
 * incision of T= 1.6 (A, from (1.5, 0) up to (1.5, 2)) is never made. B
 * alone: its ends (weights 0.5 0.2 0.3 in T4 and 0.5 0.2 0.3 in T6, no
 * border edge opposite a weight below 0.25) and its crossings of (4, 7)
 * at (1, 1.3) and of (4, 8) at (1.3, 1.3) (weights 0.3: no snap) are 4 new
 * points, the two crossings copied: 15 points; no point at (1.5, 0), where
 * A would start. */
Test(incision, saved_incision_is_the_one_of_the_nodes_time)
{
    st_scene *s = load_dt("0.2", SQUARE,
                          "T= 1.6\nINCISE= 2\n1.5 0 0 1.5 2 0\n"
                          "T= 1.8\nINCISE= 2\n0.5 1.3 0 1.5 1.3 0\n",
                          "saveIndicesAtInit='true'");
    step(s, 9);
    cr_assert_eq(arr(s, "dofs", "position")->n, 9, "nothing cut before the tenth step");
    step(s, 1);
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 15, "B alone: %zu points", x->n);
    step(s, 2);
    x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 15, "nothing more: %zu points", x->n);
    bool b_start = false, a_start = false;
    for (size_t i = 0; i < x->n; i++) {
        const double *p = x->r + 3 * i;
        b_start |= fabs(p[0] - 0.5) < 1e-12 && fabs(p[1] - 1.3) < 1e-12;
        a_start |= fabs(p[0] - 1.5) < 1e-12 && fabs(p[1]) < 1e-12;
    }
    cr_assert(b_start, "B's first point (0.5, 1.3) is made");
    cr_assert(!a_start, "A is not made");
    st_scene_destroy(&s);
}

/* After a cut, SOFA's updateTriangleIncisionInformation finds every saved
 * point again at its coordinates from before the cut (findElementIndex)
 * and keeps it there, in the triangle holding it now: a vertex the cut
 * moves does not carry the points of later incisions. The cut of
 * snap_path_moves_a_vertex_to_the_mean (t = 0.01) moves 4 from (1, 1) to
 * (1.05, 1.025) and gives T6 [4,5,8] the copy 11 (at 4's place): [11,5,8]
 * (6); T7 [4,8,7] is split ([11,8,10] is 11, 10 at (1.05, 1.7)). The
 * incision of t = 0.02, saved at init from (1.5, 1.2) in T6 (weight 0.5 of
 * 4) to (1.5, 1.8) in T7 (0.2 of 4), is found again at those places: only
 * 6 holds (1.5, 1.2) (the line 11-8 passes 1.487 there, 5-11 1.013); only
 * 11 holds (1.5, 1.8) (below 8-10 at 1.842, above 11-8). It is cut from
 * there: (1.5, 1.2), the crossing of (11, 8) at (1.5, 1.487) (0.47 of the
 * edge: no snap), (1.5, 1.8), the crossing copied: 16 points. (Kept on 4's
 * weights, the points would have moved with it to (1.525, 1.2125) and
 * (1.51, 1.805).) No snap onto a border (epsilonSnapBorder 0). */
Test(incision, saved_points_stay_where_they_were_before_a_cut)
{
    st_scene *s = load(SQUARE,
                       "T= 0.01\nINCISE= 2\n1.05 0.3 0 1.05 1.7 0\n"
                       "T= 0.02\nINCISE= 2\n1.5 1.2 0 1.5 1.8 0\n",
                       "saveIndicesAtInit='true' epsilonSnapPath='0.1' epsilonSnapBorder='0'");
    step(s, 2);
    cr_assert_eq(arr(s, "dofs", "position")->n, 12);
    step(s, 1);
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, 16, "%zu points", x->n);
    static const double want[3][2] = {{1.5, 1.2}, {1.5, 1.025 + 0.975 * 0.45 / 0.95}, {1.5, 1.8}};
    for (int k = 0; k < 3; k++) {
        bool found = false;
        for (size_t i = 12; i < x->n; i++)
            found |= fabs(x->r[3 * i] - want[k][0]) < 1e-12 &&
                     fabs(x->r[3 * i + 1] - want[k][1]) < 1e-12;
        cr_assert(found, "no new point at (%g %g)", want[k][0], want[k][1]);
    }
    st_scene_destroy(&s);
}

/* SOFA's saveIndices keeps one incision per time: an INCISE= under a "T="
 * of a time already saved adds its points to that incision. Both blocks of
 * t = 0.01 are reached at the second step; the second "T=" leaves only its
 * own INCISE= line to run (SOFA's readNext), which cuts the incision saved
 * for 0.01: the path (1.5, 0), (1.5, 1.2), (1.5, 1.5), (1.5, 2). Its first
 * cut starts at (1.5, 0) inside T2 [1,2,5] (weights 0.5 0.5 0: SOFA's
 * projection onto the border edge fails there, see
 * cut_across_a_square_follows_sofas_steps): a new point at (1.5, 0), which
 * the second block's path alone would not make. */
Test(incision, saved_incisions_of_one_time_make_one_path)
{
    st_scene *s = load(SQUARE,
                       "T= 0.01\nINCISE= 2\n1.5 0 0 1.5 1.2 0\n"
                       "T= 0.01\nINCISE= 2\n1.5 1.5 0 1.5 2 0\n",
                       "saveIndicesAtInit='true'");
    step(s, 2);
    const st_array *x = arr(s, "dofs", "position");
    bool start = false;
    for (size_t i = 9; i < x->n; i++)
        start |= fabs(x->r[3 * i] - 1.5) < 1e-12 && fabs(x->r[3 * i + 1]) < 1e-12;
    cr_assert(start, "no point made at (1.5, 0): %zu points", x->n);
    st_scene_destroy(&s);
}
