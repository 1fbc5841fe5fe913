/* test_angular_springs.c - AngularSpringForceField against hand values:
 * the torque on a frame turned 30 degrees about z from the frame before it
 * (k_i, or angularStiffness[0] past the list), none on an aligned frame nor
 * on the first listed one; SOFA's diagonal stiffness on every listed frame
 * in add_dforce and in the assembled matrix; an implicit run; bad indices. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#define Q30 "0 0 0.25881904510252074 0.96592582628906831"

static st_scene *load(test_rt *t, const char *extra, st_error *err)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Mass,"
             " SolidMechanics.Spring]}\n"
             "    - EulerImplicitSolver: {}\n"
             "    - SparseLDLSolver: {}\n"
             "    - MechanicalObject: {name: dofs, template: Rigid3d, position: '0 0 0 0 0 0 1"
             "  1 0 0 " Q30 "  2 0 0 " Q30 "'}\n"
             "    - UniformMass: {vertexMass: '1 1 1 0 0 0 1 0 0 0 1'}\n"
             "    - AngularSpringForceField: {name: ff, %s}\n",
             extra);
    test_rt_open(t);
    st_scene *s = NULL;
    if (test_load_string(t, yaml, &s, err) != ST_OK || st_scene_init(s, err) != ST_OK) {
        st_scene_destroy(&s);
        return NULL;
    }
    return s;
}

Test(angular_springs, torque_and_stiffness)
{
    test_rt t;
    st_error err = {0};
    st_scene *s = load(&t, "indices: [0, 1, 2], angularStiffness: [10, 20]", &err);
    cr_assert_not_null(s, "%s\n%s", err.msg, t.log);
    st_component *ff = test_find_object(s, "ff");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    st_system *sys = ms->system;
    double f[18] = {0}, dx[18], df[18] = {0};
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x, sys->v);
    /* frame 1: dq = q1 (frame 0 is the identity); SOFA's acos branch */
    double half = acos(0.96592582628906831), sh = sin(half);
    double tz = -(0.25881904510252074 / sh) * (2 * half) * 20;
    for (int i = 0; i < 18; i++)
        cr_assert(f[i] == (i == 6 + 5 ? tz : 0.0), "f[%d] = %.17g (torque z %.17g)", i, f[i], tz);
    cr_assert(fabs(tz + 20 * M_PI / 6) < 1e-12, "about -k pi / 6");
    for (int i = 0; i < 18; i++)
        dx[i] = 1.0;
    ff->cls->forcefield->add_dforce(ff, &sys->mp, df, dx, 1.0, 0.0);
    const double k[3] = {10, 20, 10};
    for (int p = 0; p < 3; p++)
        for (int c = 0; c < 6; c++)
            cr_assert(df[6 * p + c] == (c < 3 ? 0.0 : -k[p]), "df[%d][%d] = %g", p, c,
                      df[6 * p + c]);
    /* the implicit solver (assembled matrix) runs and turns frame 1 back */
    for (int n = 0; n < 20; n++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert(ms->position.r[7 + 5] < 0.25881904510252074 - 1e-3, "frame 1 turns back: qz %g",
              ms->position.r[7 + 5]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(angular_springs, defaults_and_errors)
{
    test_rt t;
    st_error err = {0};
    st_scene *s = load(&t, "indices: [1]", &err);
    cr_assert_not_null(s, "%s", err.msg);
    cr_assert(strstr(t.log, "assuming equal stiffness on each node, k = 100.0"), "%s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
    s = load(&t, "indices: [1, 0]", &err);
    cr_assert_null(s);
    cr_assert(strstr(err.msg, "indices[1] is frame 0"), "%s", err.msg);
    test_rt_close(&t);
    err = (st_error){0};
    s = load(&t, "indices: [0, 7]", &err);
    cr_assert_null(s);
    cr_assert(strstr(err.msg, "index 7 beyond the 3 frames"), "%s", err.msg);
    test_rt_close(&t);
}
