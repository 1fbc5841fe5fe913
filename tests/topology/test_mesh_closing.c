/* test_mesh_closing.c - MeshClosingEngine on a unit cube without its top
 * face: one border loop of the 4 top points, closed by their centroid
 * (0.5, 0.5, 1) and a fan of 4 triangles oriented like the rest, so that
 * the closed surface encloses volume 1 (divergence theorem); the closing
 * part alone (closingPosition, closingTriangles, indices); a closed cube is
 * left as it is. */
#include <math.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(mesh_closing, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Generate]}\n"
#define CUBE                                                                                      \
    "inputPosition: [0,0,0, 1,0,0, 0,1,0, 1,1,0, 0,0,1, 1,0,1, 0,1,1, 1,1,1]"
#define SIDES "0,4,6,2, 1,3,7,5, 0,1,5,4, 2,6,7,3, 0,2,3,1"

static double term(const double *a, const double *b, const double *c)
{
    return ((b[1] - a[1]) * (c[2] - a[2]) - (c[1] - a[1]) * (b[2] - a[2])) * (a[0] + b[0] + c[0]) /
           6;
}

Test(mesh_closing, open_box_is_closed)
{
    st_scene *s = topo_scene(&T, HEAD "    - MeshClosingEngine: {name: c, " CUBE
                                      ", inputQuads: [" SIDES "]}\n");
    st_component *c = topo_get(s, "c");
    const st_array *x = topo_arr(c, "position"), *t = topo_arr(c, "triangles"),
                   *q = topo_arr(c, "quads");
    cr_assert_eq(x->n, 9);
    cr_assert(x->r[24] == 0.5 && x->r[25] == 0.5 && x->r[26] == 1, "centroid");
    cr_assert_eq(t->n, 4);
    cr_assert_eq(q->n, 5);
    double v = 0;
    for (size_t i = 0; i < q->n; i++) {
        const unsigned *f = q->u + 4 * i;
        v += term(x->r + 3 * f[0], x->r + 3 * f[1], x->r + 3 * f[2]);
        v += term(x->r + 3 * f[0], x->r + 3 * f[2], x->r + 3 * f[3]);
    }
    for (size_t i = 0; i < t->n; i++) {
        const unsigned *f = t->u + 3 * i;
        cr_assert_eq(f[0], 8, "fan around the centroid");
        v += term(x->r + 3 * f[0], x->r + 3 * f[1], x->r + 3 * f[2]);
    }
    cr_assert_float_eq(fabs(v), 1.0, 1e-12, "closed volume %g", v);
    const st_array *ix = topo_arr(c, "indices");
    cr_assert_eq(ix->n, 5);
    cr_assert_eq(ix->u[0], 4, "the loop starts at the smallest border point");
    cr_assert_eq(ix->u[4], 8);
    unsigned seen = 0;
    for (int i = 0; i < 4; i++)
        seen |= 1u << ix->u[i];
    cr_assert_eq(seen, 0xf0u);
    cr_assert_eq(topo_arr(c, "closingPosition")->n, 5);
    const st_array *ct = topo_arr(c, "closingTriangles");
    cr_assert_eq(ct->n, 4);
    cr_assert(ct->u[0] == 4 && ct->u[1] == 0 && ct->u[2] == 3, "first closing triangle");
    st_scene_destroy(&s);
}

Test(mesh_closing, closed_cube_unchanged)
{
    st_scene *s = topo_scene(&T, HEAD "    - MeshClosingEngine: {name: c, " CUBE
                                      ", inputQuads: [" SIDES ", 4,5,7,6]}\n");
    st_component *c = topo_get(s, "c");
    cr_assert_eq(topo_arr(c, "position")->n, 8);
    cr_assert_eq(topo_arr(c, "triangles")->n, 0);
    cr_assert_eq(topo_arr(c, "closingPosition")->n, 0);
    st_scene_destroy(&s);
}
