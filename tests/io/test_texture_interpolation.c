/* test_texture_interpolation.c - TextureInterpolation (GL.Engine): a
 * field's values mapped to u in [0, 1] over their own range or over
 * manual_scale's, the mean of the components without scalarField, the
 * planar mapping of coordinates when no field is given, and the error of
 * a manual scale whose min is not below its max. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(texture_interpolation, .init = setup, .fini = teardown);

static st_status load(const char *engine, st_scene **out, st_error *err)
{
    char text[2048];
    snprintf(text, sizeof text,
             "<Node name=\"root\">\n"
             "  <RequiredPlugin name=\"Sofa.GL.Component.Engine\"/>\n"
             "  <MechanicalObject name=\"T\" template=\"Vec2\" position=\"1 3  2 5  5 1  3 3\"/>\n"
             "  %s\n"
             "</Node>\n",
             engine);
    const char *path = test_write_temp("ti.scn", text);
    ST_TRY(st_scene_load(T.rt, path, out, err));
    return st_scene_init(*out, err);
}

static const st_array *output(st_scene *s)
{
    st_component *e = test_find_object(s, "ti");
    return st_component_field_ptr(e, st_component_field(e, "output_coordinates"));
}

static void expect_u(const char *engine, const double *u, size_t n)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load(engine, &s, &err), ST_OK, "%s", err.msg);
    const st_array *o = output(s);
    cr_assert_eq(o->n, 2 * n, "%zu values", o->n);
    for (size_t i = 0; i < n; i++) {
        cr_expect_float_eq(o->r[2 * i], u[i], 1e-15, "%s: u[%zu] = %.17g", engine, i,
                           o->r[2 * i]);
        cr_expect_eq(o->r[2 * i + 1], 0.0);
    }
    st_scene_destroy(&s);
}

Test(texture_interpolation, values_to_u)
{
    /* first components 1 2 5 3 over [1, 5] */
    const double own[] = {0, 0.25, 1, 0.5};
    expect_u("<TextureInterpolation name=\"ti\" template=\"Vec2\" input_states=\"@T.position\"/>",
             own, 4);
    /* manual scale [0, 10] */
    const double manual[] = {0.1, 0.2, 0.5, 0.3};
    expect_u("<TextureInterpolation name=\"ti\" template=\"Vec2\" input_states=\"@T.position\" "
             "manual_scale=\"1\" min_value=\"0\" max_value=\"10\"/>",
             manual, 4);
    /* means 2 3.5 3 3 over [2, 3.5] */
    const double mean[] = {0, 1, 2.0 / 3, 2.0 / 3};
    expect_u("<TextureInterpolation name=\"ti\" template=\"Vec2\" input_states=\"@T.position\" "
             "scalarField=\"0\"/>",
             mean, 4);
}

Test(texture_interpolation, planar_mapping_and_bad_scale)
{
    st_scene *s = NULL;
    st_error err = {0};
    /* z is flat: u from x over [0, 2], v from y over [1, 5] */
    cr_assert_eq(load("<TextureInterpolation name=\"ti\" "
                      "input_coordinates=\"0 1 7  2 5 7  1 2 7\"/>",
                      &s, &err),
                 ST_OK, "%s", err.msg);
    const st_array *o = output(s);
    const double want[] = {0, 0, 1, 1, 0.5, 0.25};
    cr_assert_eq(o->n, 6, "%zu", o->n);
    for (int i = 0; i < 6; i++)
        cr_expect_float_eq(o->r[i], want[i], 1e-15, "%d: %g", i, o->r[i]);
    st_scene_destroy(&s);
    memset(&err, 0, sizeof err);
    cr_assert_neq(load("<TextureInterpolation name=\"ti\" template=\"Vec2\" "
                       "input_states=\"@T.position\" manual_scale=\"1\" min_value=\"2\" "
                       "max_value=\"1\"/>",
                       &s, &err),
                  ST_OK);
    cr_expect(strstr(err.msg, "min_value is not smaller than max_value") != NULL, "%s", err.msg);
    st_scene_destroy(&s);
}
