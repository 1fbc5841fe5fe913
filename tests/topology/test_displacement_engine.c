/* test_displacement_engine.c - DisplacementTransformEngine on two Rigid3d
 * frames given as 7 reals each (x0, x): a frame turned 90 degrees about z
 * and moved to (1,2,3) from the origin gives the matrix rows (0 -1 0 1) (1 0 0 2) (0 0 1 3)
 * (0 0 0 1); a frame at rest the identity; with Rigid3,Rigid3 the frames
 * x x0^-1; a template other than Rigid3,Mat4x4 / Rigid3,Rigid3 refused. */
#include <math.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(displacement_engine, .init = setup, .fini = teardown);

#define FRAMES                                                                                    \
    "x0: [0,0,0, 0,0,0,1, 1,0,0, 0,0,0,1],"                                                       \
    " x: [1,2,3, 0,0,0.70710678118654752,0.70710678118654752, 2,0,0, 0,0,0,1]"

#define BASE                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Transform,"                        \
    " Sofa.Component.StateContainer]}\n"

#define HEAD                                                                                      \
    BASE                                                                                          \
    "    - DisplacementTransformEngine: {name: m, template: \"Rigid3,Mat4x4\", " FRAMES "}\n"  \
    "    - DisplacementTransformEngine: {name: f, template: \"Rigid3,Rigid3\", " FRAMES "}\n"

Test(displacement_engine, matrices_and_frames)
{
    st_scene *s = topo_scene(&T, HEAD);
    const st_array *d = topo_arr(topo_get(s, "m"), "displacements");
    cr_assert_eq(d->n, 32);
    const double want[32] = {0, -1, 0, 1, 1, 0, 0, 2, 0, 0, 1, 3, 0, 0, 0, 1,
                             1, 0,  0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int i = 0; i < 32; i++)
        cr_assert_float_eq(d->r[i], want[i], 1e-12, "matrix entry %d is %g", i, d->r[i]);
    const st_array *f = topo_arr(topo_get(s, "f"), "displacements");
    cr_assert_eq(f->n, 14);
    cr_assert_float_eq(f->r[2], 3.0, 1e-12);
    cr_assert_float_eq(f->r[5], 0.70710678118654752, 1e-12);
    cr_assert_float_eq(f->r[7], 1.0, 1e-12, "second frame: moved by (1,0,0)");
    cr_assert_float_eq(f->r[13], 1.0, 1e-12);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, BASE "    - DisplacementTransformEngine: {template:"
                                            " \"Rigid3,Vec3\", x0: [0,0,0, 0,0,0,1]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "Rigid3,Mat4x4"), "%s", err.msg);
    st_scene_destroy(&s);
}
