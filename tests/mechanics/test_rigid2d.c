/* test_rigid2d.c - Rigid2d states (SOFA's Rigid2Types: x y theta), their
 * UniformMass ("m v I"), RigidMapping Rigid2d -> Vec2d and PlaneForceField
 * on SOFA's other templates (Vec1d, Vec2d, Rigid3d), against closed forms
 * and recurrences worked out by hand, in SOFA-format scenes of our own. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static void open_rt(test_rt *t)
{
    static const char *const plugins[] = {"ODESolver.Forward",     "ODESolver.Backward",
                                          "LinearSolver.Direct",   "LinearSolver.Iterative",
                                          "Mass",                  "Constraint.Projective",
                                          "Mapping.NonLinear",     "MechanicalLoad"};
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

/* The error text of a scene that must fail (load or init). */
static void expect_error(const char *xml, const char *part)
{
    test_rt t;
    open_rt(&t);
    st_error err = {0};
    st_scene *s = NULL;
    st_status st = st_scene_load_string(t.rt, xml, strlen(xml), "test.scn", &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    cr_assert_neq(st, ST_OK, "expected an error containing '%s'", part);
    cr_assert(strstr(err.msg, part), "error '%s' lacks '%s'", err.msg, part);
    if (s)
        st_scene_destroy(&s);
    test_rt_close(&t);
}

static void steps(st_scene *s, int n)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step: %s", err.msg);
}

static st_mstate *state(st_scene *s, const char *name)
{
    st_component *c = test_find_object(s, name);
    cr_assert(c && st_component_has_role(c, ST_ROLE_STATE), "no state %s", name);
    return (st_mstate *)c;
}

static void near(double got, double want, double tol, const char *what)
{
    double scale = fabs(want) > 1.0 ? fabs(want) : 1.0;
    cr_assert(fabs(got - want) <= tol * scale, "%s: got %.17g, want %.17g", what, got, want);
}

/* A Rigid2d body thrown under gravity with symplectic Euler: the centre
 * follows y_n = y0 + h^2 g n (n + 1) / 2, x_n = vx n h; no torque, so the
 * angle grows at its constant rate w (theta_n = theta0 + w n h). The mass
 * "2 1 0.5" (SOFA's "m v I") puts gravity m g on the centre only. */
Test(rigid2d, falling_body)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_scn(&t, "<Node name='root' gravity='0 -10 0' dt='0.01'>"
                               "<EulerExplicitSolver symplectic='1'/>"
                               "<MechanicalObject name='body' template='Rigid2' "
                               "position='0 10 0.3' velocity='0.5 0 2'/>"
                               "<UniformMass vertexMass='2 1 0.5'/></Node>");
    st_mstate *ms = state(s, "body");
    cr_assert_eq(ms->type, &st_rigid2d_type);
    const int n = 40;
    const double h = 0.01;
    steps(s, n);
    near(ms->position.r[0], 0.5 * n * h, 1e-12, "x");
    near(ms->position.r[1], 10.0 - 10.0 * h * h * n * (n + 1) / 2.0, 1e-12, "y");
    near(ms->position.r[2], 0.3 + 2.0 * n * h, 1e-12, "theta");
    near(ms->velocity.r[1], -10.0 * n * h, 1e-12, "vy");
    near(ms->velocity.r[2], 2.0, 1e-15, "w");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A couple of forces (0, F) and (0, -F) on two points mapped at (1, 0) and
 * (-1, 0) of a Rigid2d frame: no net force, the torque 2 F cos(theta)
 * (r_i x f_i, SOFA's RigidMapping applyJT) turns the frame; its inertia is
 * m I = 2 * 0.5 = 1 ("2 1 0.5"). Symplectic Euler gives the recurrence
 * w += h 2 F cos(theta) / (m I), theta += h w, checked step by step, and the
 * mapped points sit at R(theta) p_i. */
Test(rigid2d, frame_under_a_couple)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_scn(&t, "<Node name='root' gravity='0 0 0' dt='0.02'>"
                               "<EulerExplicitSolver symplectic='1'/>"
                               "<Node name='frame'><MechanicalObject name='body' template='Rigid2' "
                               "position='0 0 0'/><UniformMass vertexMass='2 1 0.5'/>"
                               "<Node name='ends'><MechanicalObject name='ends' template='Vec2' "
                               "position='1 0  -1 0'/><RigidMapping/>"
                               "<ConstantForceField forces='0 3  0 -3'/></Node></Node></Node>");
    st_mstate *body = state(s, "body"), *ends = state(s, "ends");
    double theta = 0.0, w = 0.0;
    const double h = 0.02, F = 3.0, mI = 1.0;
    for (int k = 0; k < 30; k++) {
        steps(s, 1);
        w += h * 2.0 * F * cos(theta) / mI;
        theta += h * w;
        near(body->velocity.r[2], w, 1e-12, "w");
        near(body->position.r[2], theta, 1e-12, "theta");
    }
    cr_assert(theta > 0.5, "the couple turned the frame by %g rad", theta);
    near(body->position.r[0], 0.0, 1e-14, "centre x");
    near(body->position.r[1], 0.0, 1e-14, "centre y");
    steps(s, 0);
    near(ends->position.r[0], cos(theta), 1e-12, "end x");
    near(ends->position.r[1], sin(theta), 1e-12, "end y");
    near(ends->position.r[2], -cos(theta), 1e-12, "other end x");
    near(ends->position.r[3], -sin(theta), 1e-12, "other end y");
    /* v_i = v + w (-r_y, r_x) after the last step (the mapping's applyJ) */
    const double *v = ends->velocity.r;
    near(v[0], -w * sin(theta), 1e-9, "end vx");
    near(v[1], w * cos(theta), 1e-9, "end vy");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A Rigid2d square dropped on a PlaneForceField through its mapped corners:
 * the implicit step solved matrix-free (CG: the mapping's applyJ/applyJT)
 * and assembled (SparseLDL: J^T K J from the mapping's Jacobian blocks)
 * must agree, and the body must rest on the plane. */
static st_scene *dropped_square(test_rt *t, const char *linear)
{
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 -10 0' dt='0.01'>"
             "<EulerImplicitSolver rayleighStiffness='0.1' rayleighMass='0.1'/>%s"
             "<Node name='box'><MechanicalObject name='body' template='Rigid2' "
             "position='0 0.6 0.2'/><UniformMass vertexMass='1 1 0.1667'/>"
             "<Node name='corners'><MechanicalObject template='Vec2' "
             "position='-0.5 -0.5  0.5 -0.5  0.5 0.5  -0.5 0.5'/><RigidMapping/>"
             "<PlaneForceField stiffness='2000' damping='5'/></Node></Node></Node>",
             linear);
    return load_scn(t, xml);
}

Test(rigid2d, dropped_square_cg_and_ldl_agree)
{
    test_rt t1, t2;
    open_rt(&t1);
    open_rt(&t2);
    st_scene *a = dropped_square(&t1, "<CGLinearSolver iterations='200' tolerance='1e-20' "
                                      "threshold='1e-20'/>");
    st_scene *b = dropped_square(&t2, "<SparseLDLSolver/>");
    st_mstate *ma = state(a, "body"), *mb = state(b, "body");
    for (int k = 0; k < 100; k++) {
        steps(a, 1);
        steps(b, 1);
        for (int j = 0; j < 3; j++)
            near(ma->position.r[j], mb->position.r[j], 1e-8, "CG vs LDL");
    }
    steps(a, 400);
    /* at rest: flat on the plane, the centre half a side above it (minus
     * the penalty's sag m g / (2 k) on two corners) */
    near(ma->position.r[1], 0.5 - 10.0 / (2 * 2000.0), 2e-3, "rest height");
    near(fmod(ma->position.r[2], M_PI / 2), 0.0, 2e-3, "flat");
    st_scene_destroy(&a);
    st_scene_destroy(&b);
    test_rt_close(&t1);
    test_rt_close(&t2);
}

/* One explicit step of a point 0.1 under the plane, at rest, mass 1:
 * f = stiffness 0.1 along the normal (SOFA's -stiffness * penetration),
 * on the position part only (a Rigid3d body gets no torque). */
Test(rigid2d, plane_force_field_templates)
{
    static const struct {
        const char *tmpl, *pos, *normal;
        unsigned axis, cw;
    } k[] = {{"Vec1", "-0.1", "1 0 0", 0, 1},
             {"Vec2", "3 -0.1", "0 1 0", 1, 2},
             {"Vec3", "3 -0.1 2", "0 1 0", 1, 3},
             {"Rigid3", "3 -0.1 2 0 0 0 1", "0 1 0", 1, 7}};
    const double h = 0.01, kst = 100.0;
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        test_rt t;
        open_rt(&t);
        char xml[1024];
        snprintf(xml, sizeof xml,
                 "<Node name='root' gravity='0 0 0' dt='0.01'><EulerExplicitSolver/>"
                 "<MechanicalObject name='p' template='%s' position='%s'/>"
                 "<UniformMass vertexMass='1'/>"
                 "<PlaneForceField template='%s' normal='%s' stiffness='100' damping='7'/></Node>",
                 k[i].tmpl, k[i].pos, k[i].tmpl, k[i].normal);
        st_scene *s = load_scn(&t, xml);
        st_mstate *ms = state(s, "p");
        double x0[7];
        memcpy(x0, ms->position.r, k[i].cw * sizeof(double));
        steps(s, 1);
        double v1 = h * kst * 0.1;
        for (unsigned c = 0; c < k[i].cw; c++) {
            double want = x0[c] + (c == k[i].axis ? h * v1 : 0.0);
            near(ms->position.r[c], want, 1e-14, k[i].tmpl);
        }
        near(ms->velocity.r[k[i].axis], v1, 1e-14, k[i].tmpl);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* SOFA's Rigid2 mass is "m v I"; given to a Rigid3d or a Vec2d state it is
 * refused with a message saying so. */
Test(rigid2d, mass_text)
{
    expect_error("<Node name='root'><MechanicalObject template='Rigid3' position='0 0 0 0 0 0 1'/>"
                 "<UniformMass vertexMass='1 1 0.8'/></Node>",
                 "Rigid2d");
    expect_error("<Node name='root'><MechanicalObject template='Vec2' position='0 0'/>"
                 "<UniformMass vertexMass='1 1 0.8'/></Node>",
                 "rigid states");
    expect_error("<Node name='root'><MechanicalObject template='Rigid2' position='0 0 0'/>"
                 "<UniformMass vertexMass='1 1 0'/></Node>",
                 "non-zero");
    expect_error("<Node name='root'><MechanicalObject template='Rigid2' position='0 0 0'/>"
                 "<Node name='c'><MechanicalObject template='Vec3' position='1 0 0'/>"
                 "<RigidMapping/></Node></Node>",
                 "Vec2d output");
}
