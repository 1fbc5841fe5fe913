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

/* DisplacementMatrixEngine in SOFA's format, x0 and x linked to a Rigid3d
 * state's rest_position and position (their 7 values per frame in order):
 * D = H(x) (S H(x0^-1)). Frame 0 rests at (1,2,3) and is at (1,2,4) turned
 * 90 degrees about z, scales (2 1 1): rows (0 -1 0 3) (2 0 0 0) (0 0 1 1)
 * (0 0 0 1). Frame 1 at rest at the origin, scales (1 1 0.1): diag(1, 1,
 * 0.1 as a float, 1), SOFA's cast. The output is SOFA's "displaceMats"; a
 * second engine without scales gets ones, written back. */
Test(displacement_engine, matrix_engine_from_rigid_state_links)
{
    const char *xml =
        "<Node name='root'>"
        "<RequiredPlugin pluginName='Sofa.Component.Engine.Transform'/>"
        "<MechanicalObject template='Rigid3' name='bones'"
        " position='1 2 4 0 0 0.70710678118654752 0.70710678118654752  0 0 0 0 0 0 1'"
        " rest_position='1 2 3 0 0 0 1  0 0 0 0 0 0 1'/>"
        "<DisplacementMatrixEngine name='d' template='Rigid3' x0='@bones.rest_position'"
        " x='@bones.position' scales='2 1 1  1 1 0.1'/>"
        "<DisplacementMatrixEngine name='plain' x0='@bones.rest_position' x='@bones.position'/>"
        "</Node>";
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    const st_array *d = topo_arr(topo_get(s, "d"), "displaceMats");
    cr_assert_eq(d->n, 32);
    const double want[32] = {0, -1, 0, 3, 2, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1,
                             1, 0,  0, 0, 0, 1, 0, 0, 0, 0, (double)(float)0.1, 0, 0, 0, 0, 1};
    for (int i = 0; i < 32; i++)
        cr_assert_float_eq(d->r[i], want[i], 1e-12, "entry %d is %.17g", i, d->r[i]);
    cr_assert_eq(d->r[26], (double)(float)0.1, "the scale enters as a float, as in SOFA");
    const st_array *sc = topo_arr(topo_get(s, "plain"), "scales");
    cr_assert_eq(sc->n, 2);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(sc->r[i], 1.0);
    const st_array *p = topo_arr(topo_get(s, "plain"), "displaceMats");
    cr_assert_float_eq(p->r[3], 3.0, 1e-12, "%.17g", p->r[3]);
    cr_assert_float_eq(p->r[4], 1.0, 1e-12, "unscaled: %.17g", p->r[4]);
    st_scene_destroy(&s);
}
