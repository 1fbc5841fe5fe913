/* test_vec6d.c - Vec6d states (SOFA's Vec6Types: six scalars per point)
 * and the components that take them: PlaneForceField with a six-component
 * normal, UniformMass (gravity on the first three), ConstantForceField,
 * FixedProjectiveConstraint; one explicit step worked by hand, in
 * SOFA-format scenes of our own. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static void open_rt(test_rt *t)
{
    static const char *const plugins[] = {"ODESolver.Forward", "ODESolver.Backward",
                                          "LinearSolver.Iterative", "Mass",
                                          "Constraint.Projective", "MechanicalLoad"};
    st_error err = {0};
    test_rt_open(t);
    cr_assert_eq(st_runtime_add_plugin_path(t->rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(t->rt, plugins[i], &err), ST_OK, "%s", err.msg);
}

static st_scene *load_scn(test_rt *t, const char *xml)
{
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(t->rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s", err.msg);
    return s;
}

static void near(double got, double want, double tol, const char *what, int k)
{
    cr_assert(fabs(got - want) <= tol, "%s[%d]: got %.17g, want %.17g", what, k, got, want);
}

Test(vec6d, type_names_and_sizes)
{
    const char *names[] = {"Vec6d", "Vec6", "Vec6Types"};
    for (int i = 0; i < 3; i++) {
        const st_state_type *t = st_state_type_find(names[i]);
        cr_assert_eq(t, &st_vec6d_type, "%s", names[i]);
    }
    cr_assert_eq(st_vec6d_type.coord_size, 6u);
    cr_assert_eq(st_vec6d_type.deriv_size, 6u);
    cr_assert_eq(st_vec6d_type.spatial_size, 3u);
    cr_assert(!st_vec6d_type.rigid);
    double x[6] = {1, 2, 3, 4, 5, 6}, v[6] = {1, 1, 1, 1, 1, -1}, d[6];
    st_vec6d_type.add_deriv(x, x, v, 0.5, 1);
    st_vec6d_type.diff(d, x, (const double[6]){1, 2, 3, 4, 5, 6}, 1);
    for (int k = 0; k < 6; k++)
        near(d[k], 0.5 * v[k], 0.0, "x (+) v/2 (-) x", k);
}

/* Point 0 at (1 2 3 4 5 c) with c = -0.1 / 0.8 + ... placed so that its
 * penetration of the plane n . x = d, n = (0 0 0 0.6 0 0.8), d = 5.9 is
 * p = 0.6 * 4 + 0.8 * c - 5.9 = -0.1 (c = 4.25); point 1 fixed. Mass 2 per
 * point, gravity (0 -10 0) on the first three scalars, a constant force
 * (0 0 0 0 3 0) on point 0. One explicit Euler step (SOFA's symplectic:
 * v1 = h f / m, x1 = x0 + h v1) with f = -stiffness p n + gravity + F
 * (no damping term at rest). */
Test(vec6d, plane_mass_force_and_fixed_point_one_step)
{
    test_rt t;
    open_rt(&t);
    const char *xml =
        "<Node name='root' gravity='0 -10 0' dt='0.01'><EulerExplicitSolver/>"
        "<MechanicalObject name='p' template='Vec6' position='1 2 3 4 5 4.25  0 0 0 0 0 -9'/>"
        "<UniformMass vertexMass='2'/>"
        "<FixedProjectiveConstraint indices='1'/>"
        "<ConstantForceField indices='0' forces='0 0 0 0 3 0'/>"
        "<PlaneForceField template='Vec6' normal='0 0 0 0.6 0 0.8' d='5.9' stiffness='100' "
        "damping='7'/></Node>";
    st_scene *s = load_scn(&t, xml);
    st_component *c = test_find_object(s, "p");
    cr_assert(c && st_component_has_role(c, ST_ROLE_STATE));
    st_mstate *ms = (st_mstate *)c;
    cr_assert_eq(ms->type, &st_vec6d_type);
    cr_assert_eq(ms->n, 2u);
    const double x0[6] = {1, 2, 3, 4, 5, 4.25};
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const double h = 0.01, m = 2.0, pen = -0.1, k = 100.0;
    const double n[6] = {0, 0, 0, 0.6, 0, 0.8};
    const double g[6] = {0, -10 * m, 0, 0, 0, 0}, F[6] = {0, 0, 0, 0, 3, 0};
    for (int a = 0; a < 6; a++) {
        double f = -k * pen * n[a] + g[a] + F[a];
        double v1 = h * f / m;
        near(ms->velocity.r[a], v1, 1e-14, "v", a);
        near(ms->position.r[a], x0[a] + h * v1, 1e-14, "x", a);
        near(ms->position.r[6 + a], a == 5 ? -9.0 : 0.0, 0.0, "fixed point", a);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The default normal of a Vec6d plane is (0 1 0 0 0 0): a point below
 * y = 0 is pushed up along y only; more than six components are refused. */
Test(vec6d, plane_default_normal_and_too_many_components)
{
    test_rt t;
    open_rt(&t);
    const char *xml = "<Node name='root' gravity='0 0 0' dt='0.01'><EulerExplicitSolver/>"
                      "<MechanicalObject name='p' template='Vec6' position='0 -0.5 0 -3 -3 -3'/>"
                      "<UniformMass vertexMass='1'/>"
                      "<PlaneForceField template='Vec6' stiffness='10'/></Node>";
    st_scene *s = load_scn(&t, xml);
    st_mstate *ms = (st_mstate *)test_find_object(s, "p");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    for (int a = 0; a < 6; a++)
        near(ms->velocity.r[a], a == 1 ? 0.01 * 10 * 0.5 : 0.0, 1e-15, "v", a);
    st_scene_destroy(&s);
    const char *bad = "<Node name='root'><MechanicalObject template='Vec6' position='0 0 0 0 0 0'/>"
                      "<PlaneForceField template='Vec6' normal='0 0 0 0 0 0 1'/></Node>";
    st_scene *b = NULL;
    st_status st = st_scene_load_string(t.rt, bad, strlen(bad), "bad.scn", &b, &err);
    if (st == ST_OK)
        st = st_scene_init(b, &err);
    cr_assert_neq(st, ST_OK, "a 7-component normal was accepted");
    cr_assert(strstr(err.msg, "normal"), "%s", err.msg);
    if (b)
        st_scene_destroy(&b);
    test_rt_close(&t);
}
