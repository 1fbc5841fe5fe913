/* test_tetra_stuffing.c - MeshTetraStuffing on a cube of half-width 1/4
 * centred on a lattice point (cell size 1, vbbox [-1, 1]^3): only that
 * point is inside, so the mesh is the 24 lattice tetrahedra around it
 * (6 long edges x 4, each of volume 1/12: total 2); cut at the surface
 * (long edges at 1/4, short edges at 1/2) they fill the cube exactly
 * (24 x 1/12 x 1/4 x 1/2 x 1/2 = 1/8). Snapping with alphaLong above 1/4
 * moves that point onto the surface and leaves no tetrahedron (SOFA's
 * rule: a tetrahedron with no inside point is dropped). The input's box
 * grown by 1% becomes vbbox when the scene gives none. */
#include <math.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(tetra_stuffing, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Generate]}\n"

/* Corners v = x + 2y + 4z of [-1/4, 1/4]^3; faces outward. */
#define CUBE_POINTS                                                                               \
    "inputPoints: [[-0.25,-0.25,-0.25],[0.25,-0.25,-0.25],[-0.25,0.25,-0.25],[0.25,0.25,-0.25]," \
    "[-0.25,-0.25,0.25],[0.25,-0.25,0.25],[-0.25,0.25,0.25],[0.25,0.25,0.25]]"
#define CUBE_QUADS                                                                                \
    "inputQuads: [[0,4,6,2],[1,3,7,5],[0,1,5,4],[2,6,7,3],[0,2,3,1],[4,5,7,6]]"
#define CUBE_TRIANGLES                                                                            \
    "inputTriangles: [[0,4,6],[0,6,2],[1,3,7],[1,7,5],[0,1,5],[0,5,4],[2,6,7],[2,7,3],"         \
    "[0,2,3],[0,3,1],[4,5,7],[4,7,6]]"

static double volume(const st_array *x, const st_array *t)
{
    double v = 0;
    for (size_t i = 0; i < t->n; i++) {
        const unsigned *q = t->u + 4 * i;
        const double *a = x->r + 3 * q[0], *b = x->r + 3 * q[1], *c = x->r + 3 * q[2],
                     *d = x->r + 3 * q[3];
        double u[3], w[3], z[3];
        for (int k = 0; k < 3; k++)
            u[k] = b[k] - a[k], w[k] = c[k] - a[k], z[k] = d[k] - a[k];
        double v6 = u[0] * (w[1] * z[2] - w[2] * z[1]) - u[1] * (w[0] * z[2] - w[2] * z[0]) +
                    u[2] * (w[0] * z[1] - w[1] * z[0]);
        cr_assert_gt(v6, 0, "tetrahedron %zu is not positively oriented (6V = %g)", i, v6);
        v += v6 / 6;
    }
    return v;
}

Test(tetra_stuffing, whole_lattice_tetrahedra)
{
    st_scene *s = topo_scene(&T, HEAD "    - MeshTetraStuffing: {name: m, size: 1,"
                                      " vbbox: [-1,-1,-1,1,1,1], " CUBE_POINTS ", " CUBE_QUADS
                                      "}\n");
    st_component *m = topo_get(s, "m");
    const st_array *x = topo_arr(m, "outputPoints"), *t = topo_arr(m, "outputTetras");
    cr_assert_eq(t->n, 24, "%zu tetrahedra", t->n);
    cr_assert_eq(x->n, 15, "%zu points (the inside one, 6 + 8 neighbours)", x->n);
    cr_assert_float_eq(volume(x, t), 2.0, 1e-12);
    st_scene_destroy(&s);
}

Test(tetra_stuffing, split_fills_the_cube)
{
    st_scene *s = topo_scene(&T, HEAD "    - MeshTetraStuffing: {name: m, size: 1, splitTetras: true,"
                                      " vbbox: [-1,-1,-1,1,1,1], " CUBE_POINTS ", " CUBE_TRIANGLES
                                      "}\n");
    st_component *m = topo_get(s, "m");
    const st_array *x = topo_arr(m, "outputPoints"), *t = topo_arr(m, "outputTetrahedra");
    cr_assert_eq(t->n, 24);
    cr_assert_eq(x->n, 15, "the inside point and 14 cut points: %zu", x->n);
    cr_assert_float_eq(volume(x, t), 0.125, 1e-12);
    size_t on_surface = 0;
    for (size_t i = 0; i < x->n; i++) {
        double mx = fmax(fabs(x->r[3 * i]), fmax(fabs(x->r[3 * i + 1]), fabs(x->r[3 * i + 2])));
        on_surface += fabs(mx - 0.25) < 1e-15;
        cr_assert(mx < 1e-15 || fabs(mx - 0.25) < 1e-15, "point %zu off the surface (%g)", i, mx);
    }
    cr_assert_eq(on_surface, 14);
    st_scene_destroy(&s);
}

Test(tetra_stuffing, snapping_the_only_inside_point_empties_the_mesh)
{
    /* Default alphas: cuts at 1/4 (long) and 1/2 (short) violate nothing. */
    st_scene *s = topo_scene(&T, HEAD "    - MeshTetraStuffing: {name: a, size: 1, snapPoints: true,"
                                      " vbbox: [-1,-1,-1,1,1,1], " CUBE_POINTS ", " CUBE_QUADS
                                      "}\n"
                                      "    - MeshTetraStuffing: {name: b, size: 1, snapPoints: true,"
                                      " alphaLong: 0.3, vbbox: [-1,-1,-1,1,1,1], " CUBE_POINTS
                                      ", " CUBE_QUADS "}\n");
    cr_assert_eq(topo_arr(topo_get(s, "a"), "outputTetras")->n, 24);
    cr_assert_eq(topo_arr(topo_get(s, "b"), "outputTetras")->n, 0);
    cr_assert_eq(topo_arr(topo_get(s, "b"), "outputPoints")->n, 0);
    st_scene_destroy(&s);
}

Test(tetra_stuffing, default_box_and_size)
{
    /* vbbox: the input's box grown by 1% of its size; size -8: 8 cells
     * along the longest side, 0.51 / 8 each. */
    st_scene *s = topo_scene(&T, HEAD "    - MeshTetraStuffing: {name: m, " CUBE_POINTS
                                      ", " CUBE_QUADS "}\n");
    st_component *m = topo_get(s, "m");
    const st_array *bb = topo_arr(m, "vbbox");
    cr_assert_eq(bb->n, 6);
    for (int k = 0; k < 3; k++) {
        cr_assert_float_eq(bb->r[k], -0.255, 1e-15);
        cr_assert_float_eq(bb->r[3 + k], 0.255, 1e-15);
    }
    const st_array *x = topo_arr(m, "outputPoints"), *t = topo_arr(m, "outputTetras");
    cr_assert_gt(t->n, 24);
    /* Whole lattice tetrahedra cover the cube: at least its volume. */
    cr_assert_geq(volume(x, t), 0.125);
    st_scene_destroy(&s);
}

Test(tetra_stuffing, empty_input_warns_and_gives_nothing)
{
    st_scene *s = topo_scene(&T, HEAD "    - MeshTetraStuffing: {name: m}\n");
    cr_assert_eq(topo_arr(topo_get(s, "m"), "outputTetras")->n, 0);
    st_scene_destroy(&s);
}

Test(tetra_stuffing, bad_index_is_an_error)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MeshTetraStuffing: {name: m, " CUBE_POINTS
                                             ", inputTriangles: [[0,1,9]]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "point index 9 beyond the 8 input points"), "%s", err.msg);
}
