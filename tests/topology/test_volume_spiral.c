/* test_volume_spiral.c - VolumeFromTriangles on a 2 x 3 x 4 box (volume
 * 24, as 6 quads and as 12 triangles, orientation ignored; position from
 * the node's MechanicalObject and the lists from its topology when unset),
 * VolumeFromVolumetricElements (a unit hexahedron: 1, plus a tetrahedron:
 * 1/6; the alias VolumeFromTetrahedrons) and Spiral (the point at the
 * origin goes out along the capped normal (-0.6, 0.8, 0) (SOFA's float 0.8f); a point at arc
 * length l lands at radius A t, angle t, with A/2 (t sqrt(1+t^2) +
 * asinh t) = l). */
#include <math.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(volume_spiral, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Generate,"                         \
    " Sofa.Component.StateContainer, Sofa.Component.Topology.Container.Constant]}\n"

#define BOX                                                                                       \
    "position: [0,0,0, 2,0,0, 0,3,0, 2,3,0, 0,0,4, 2,0,4, 0,3,4, 2,3,4]"
#define BOX_QUADS "[0,4,6,2, 1,3,7,5, 0,1,5,4, 2,6,7,3, 0,2,3,1, 4,5,7,6]"

static double real_of(st_component *c, const char *f)
{
    return *(double *)st_component_field_ptr(c, st_component_field(c, f));
}

Test(volume_spiral, box_volume_from_its_surface)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - VolumeFromTriangles: {name: q, " BOX ", quads: " BOX_QUADS "}\n"
                 "    - VolumeFromTriangles: {name: t, " BOX ", triangles: [0,6,4, 0,2,6,"
                 " 1,3,7, 1,7,5, 0,1,5, 0,5,4, 2,6,7, 2,7,3, 0,2,3, 0,3,1, 4,5,7, 4,7,6]}\n"
                 "  children:\n"
                 "    - name: N\n"
                 "      objects:\n"
                 "        - MeshTopology: {" BOX ", quads: " BOX_QUADS "}\n"
                 "        - MechanicalObject: {}\n"
                 "        - VolumeFromTriangles: {name: c}\n");
    cr_assert_float_eq(real_of(topo_get(s, "q"), "volume"), 24.0, 1e-12);
    cr_assert_float_eq(real_of(topo_get(s, "t"), "volume"), 24.0, 1e-12);
    cr_assert_float_eq(real_of(topo_get(s, "N/c"), "volume"), 24.0, 1e-12);
    st_scene_destroy(&s);
}

Test(volume_spiral, volume_of_elements)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - VolumeFromVolumetricElements: {name: v, position: [0,0,0, 1,0,0, 1,1,0,"
                 " 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1], hexas: [0,1,2,3,4,5,6,7],"
                 " tetras: [0,1,3,4]}\n"
                 "    - VolumeFromTetrahedrons: {name: w, position: [0,0,0, 2,0,0, 0,2,0, 0,0,2],"
                 " tetras: [0,2,1,3]}\n");
    cr_assert_float_eq(real_of(topo_get(s, "v"), "volume"), 1.0 + 1.0 / 6, 1e-12);
    cr_assert_float_eq(real_of(topo_get(s, "w"), "volume"), 8.0 / 6, 1e-12);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - VolumeFromVolumetricElements: {position:"
                                            " [0,0,0], tetras: [0,1,2,3]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "too large"), "%s", err.msg);
    st_scene_destroy(&s);
}

Test(volume_spiral, spiral_points)
{
    st_scene *s = topo_scene(&T, HEAD "    - Spiral: {name: s, curvature: 0.5,"
                                      " rest_position: [0,0.5,2, 3,0,0, -3,0,0]}\n");
    const st_array *x = topo_arr(topo_get(s, "s"), "position");
    cr_assert_eq(x->n, 3);
    /* SOFA caps with the float 0.8f. */
    const double ny = (double)0.8f, nx = -sqrt(1 - ny * ny);
    cr_assert_float_eq(x->r[0], 0.5 * nx, 1e-15);
    cr_assert_float_eq(x->r[1], 0.5 * ny, 1e-15);
    cr_assert_float_eq(x->r[0], -0.3, 1e-7);
    cr_assert_float_eq(x->r[2], 2.0, 1e-12);
    const double A = 0.5, *p = x->r + 3;
    double r = sqrt(p[0] * p[0] + p[1] * p[1]), t = r / A;
    cr_assert_float_eq(A / 2 * (t * sqrt(1 + t * t) + asinh(t)), 3.0, 1e-9, "arc length");
    cr_assert_float_eq(atan2(p[1], p[0]), remainder(t, 2 * M_PI), 1e-9, "angle t");
    /* x <= 0: the same t, radius negated (the point opposite). */
    cr_assert_float_eq(x->r[6], -p[0], 1e-12);
    cr_assert_float_eq(x->r[7], -p[1], 1e-12);
    st_scene_destroy(&s);
}
