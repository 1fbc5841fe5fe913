/* test_scene_templates.c - the state types SOFA instantiates for
 * ConstantForceField (Vec1d, Vec2d, Rigid3d), the linear projective
 * constraints (Rigid3d), IdentityMapping Rigid3d -> Vec3d, with scenes of
 * our own and numbers worked out by hand. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#define HEADER                                                                                    \
    "<Node name='root' dt='0.1' gravity='0 0 0'>"                                                 \
    "<RequiredPlugin name='Sofa.Component.ODESolver.Forward'/>"                                   \
    "<RequiredPlugin name='Sofa.Component.ODESolver.Backward'/>"                                  \
    "<RequiredPlugin name='Sofa.Component.LinearSolver.Iterative'/>"                              \
    "<RequiredPlugin name='Sofa.Component.Mass'/>"                                                \
    "<RequiredPlugin name='Sofa.Component.MechanicalLoad'/>"                                      \
    "<RequiredPlugin name='Sofa.Component.Constraint.Projective'/>"                               \
    "<RequiredPlugin name='Sofa.Component.Mapping.Linear'/>"

static test_rt T;
static st_error E;

static void open_rt(void)
{
    test_rt_open(&T);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_BUILD_PLUGIN_DIR, &E), ST_OK);
}

/* Loads and initialises XML text; returns the first failing status. */
static st_status load(const char *xml, st_scene **s)
{
    st_error_clear(&E);
    *s = NULL;
    st_status st = st_scene_load_string(T.rt, xml, strlen(xml), "test.scn", s, &E);
    if (st == ST_OK)
        st = st_scene_init(*s, &E);
    return st;
}

static st_scene *load_ok(const char *xml)
{
    st_scene *s;
    cr_assert_eq(load(xml, &s), ST_OK, "%s: %s", E.where, E.msg);
    return s;
}

static void steps(st_scene *s, int n)
{
    for (int k = 0; k < n; k++)
        cr_assert_eq(st_scene_step(s, 0.1, &E), ST_OK, "step %d: %s", k, E.msg);
}

static const st_mstate *state(st_scene *s, const char *name)
{
    const st_mstate *ms = (const st_mstate *)test_find_object(s, name);
    cr_assert(ms, "no state %s", name);
    return ms;
}

static void near(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol, "%s: %.17g, expected %.17g", what, got, want);
}

/* The forces a force field adds at the current positions. */
static void forces_of(st_scene *s, st_component *ff, double *f, size_t n)
{
    st_system *sys = s->systems[0];
    memset(f, 0, n * sizeof *f);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x, sys->v);
}

/* Unit quaternion of a rotation by angle a about unit axis u. */
static void axis_quat(const double u[3], double a, double q[4])
{
    for (int k = 0; k < 3; k++)
        q[k] = u[k] * sin(a / 2);
    q[3] = cos(a / 2);
}

static void quat_near(const double *q, const double *want, double tol, const char *what)
{
    /* q and -q are the same rotation */
    double sgn = q[0] * want[0] + q[1] * want[1] + q[2] * want[2] + q[3] * want[3] < 0 ? -1 : 1;
    for (int k = 0; k < 4; k++)
        cr_assert(fabs(sgn * q[k] - want[k]) <= tol, "%s[%d]: %.17g, expected %.17g", what, k,
                  sgn * q[k], want[k]);
}

TestSuite(scene_templates, .init = open_rt, .fini = NULL);

/* ---- ConstantForceField ---- */

/* A Rigid3d frame of mass 2 (SOFA's Rigid3Mass: inertia the identity,
 * scaled by the mass) under force (0 4 0) and torque (0 0 6), from rest at
 * the origin. Symplectic Euler, step h: v = h F/m = (0 2h 0), w = h T/m =
 * (0 0 3h); centre h v = (0 2h^2 0); the orientation turns about z by
 * h |w| = 3h^2. */
Test(scene_templates, constant_force_on_a_rigid_frame_is_force_then_torque)
{
    st_scene *s = load_ok(HEADER "<Node name='body'><EulerExplicitSolver/>"
                                 "<MechanicalObject name='frame' template='Rigid3d' "
                                 "position='0 0 0 0 0 0 1'/>"
                                 "<UniformMass totalMass='2'/>"
                                 "<ConstantForceField name='load' forces='0 4 0  0 0 6'/>"
                                 "</Node></Node>");
    const st_mstate *ms = state(s, "frame");
    st_component *ff = test_find_object(s, "load");
    const st_array *tf = st_component_field_ptr(ff, st_component_field(ff, "totalForce"));
    cr_assert_eq(tf->n, 1);
    const double want_tf[6] = {0, 4, 0, 0, 0, 6};
    for (int k = 0; k < 6; k++)
        cr_assert_eq(tf->r[k], want_tf[k], "totalForce[%d] %g", k, tf->r[k]);
    /* No potential energy for a rigid frame (SOFA returns 0). */
    st_system *sys = s->systems[0];
    cr_assert_eq(ff->cls->forcefield->potential_energy(ff, &sys->mp, sys->x), 0.0);
    steps(s, 1);
    const double h = 0.1;
    const double want_v[6] = {0, 2 * h, 0, 0, 0, 3 * h};
    for (int k = 0; k < 6; k++)
        near(ms->velocity.r[k], want_v[k], 1e-15, "velocity");
    near(ms->position.r[0], 0, 0, "x"), near(ms->position.r[1], 2 * h * h, 1e-15, "y");
    double q[4];
    axis_quat((const double[3]){0, 0, 1}, 3 * h * h, q);
    quat_near(ms->position.r + 3, q, 1e-15, "orientation");
    st_scene_destroy(&s);
    test_rt_close(&T);
}

/* totalForce on two frames: each index gets half of it, torque included;
 * indices name the frames (here only frame 1 and 2 of three). */
Test(scene_templates, constant_force_rigid_total_force_is_split)
{
    st_scene *s = load_ok(HEADER "<Node name='body'><EulerExplicitSolver/>"
                                 "<MechanicalObject template='Rigid3d' "
                                 "position='0 0 0 0 0 0 1  1 0 0 0 0 0 1  2 0 0 0 0 0 1'/>"
                                 "<UniformMass totalMass='3'/>"
                                 "<ConstantForceField name='load' indices='1 2' "
                                 "totalForce='2 4 6 8 10 12'/>"
                                 "</Node></Node>");
    st_component *ff = test_find_object(s, "load");
    double f[18];
    forces_of(s, ff, f, 18);
    for (int k = 0; k < 6; k++) {
        cr_assert_eq(f[k], 0.0, "frame 0 [%d]", k);
        cr_assert_eq(f[6 + k], (k + 1.0), "frame 1 [%d] %g", k, f[6 + k]);
        cr_assert_eq(f[12 + k], (k + 1.0), "frame 2 [%d] %g", k, f[12 + k]);
    }
    st_scene_destroy(&s);
    test_rt_close(&T);
}

/* Vec2d and Vec1d: x_n = x0 + h^2 a n (n + 1) / 2 with symplectic Euler,
 * a = F / m; potential energy -F . x. */
Test(scene_templates, constant_force_on_vec2d_and_vec1d_states)
{
    st_scene *s = load_ok(HEADER "<Node name='plane'><EulerExplicitSolver/>"
                                 "<MechanicalObject name='p2' template='Vec2d' position='1 2'/>"
                                 "<UniformMass totalMass='2'/>"
                                 "<ConstantForceField name='f2' forces='1 -3'/></Node>"
                                 "<Node name='line'><EulerExplicitSolver/>"
                                 "<MechanicalObject name='p1' template='Vec1d' position='5 6'/>"
                                 "<UniformMass totalMass='2'/>"
                                 "<ConstantForceField name='f1' totalForce='4'/></Node>"
                                 "</Node>");
    st_component *f2 = test_find_object(s, "f2");
    st_system *sys = s->systems[0];
    cr_assert_eq(f2->cls->forcefield->potential_energy(f2, &sys->mp, sys->x), -(1 * 1 - 3 * 2.0));
    const int n = 10;
    steps(s, n);
    const double h = 0.1, c = h * h * n * (n + 1) / 2.0;
    const st_mstate *p2 = state(s, "p2"), *p1 = state(s, "p1");
    near(p2->position.r[0], 1 + c * 0.5, 1e-13, "Vec2d x");
    near(p2->position.r[1], 2 + c * -1.5, 1e-13, "Vec2d y");
    /* totalForce 4 over two points of mass 1 each: a = 2 */
    near(p1->position.r[0], 5 + c * 2, 1e-13, "Vec1d point 0");
    near(p1->position.r[1], 6 + c * 2, 1e-13, "Vec1d point 1");
    st_scene_destroy(&s);
    test_rt_close(&T);
}

Test(scene_templates, constant_force_total_force_takes_one_derivative)
{
    st_scene *s;
    cr_assert_neq(load(HEADER "<Node name='body'><EulerExplicitSolver/>"
                              "<MechanicalObject template='Rigid3d' position='0 0 0 0 0 0 1'/>"
                              "<UniformMass totalMass='1'/>"
                              "<ConstantForceField totalForce='1 0 0 0 0 0  1 0 0 0 0 0'/>"
                              "</Node></Node>",
                       &s),
                  ST_OK);
    cr_assert(strstr(E.msg, "expects one Rigid3d derivative (6 values), got 2"), "%s", E.msg);
    st_scene_destroy(&s);
    test_rt_close(&T);
}

/* ---- LinearMovementProjectiveConstraint on Rigid3d ---- */

/* A frame at (1 2 3) turned by 0.5 about x; keys 0 and 1 with movements 0
 * and (translation (2 0 0), Euler angles (0 0 1.2)): a turn of 1.2 about z
 * (SOFA's ZYX Euler order: angles (0 0 c) is a rotation about z). At time
 * t in [0, 1] the centre is (1 + 2t, 2, 3) and the orientation q0 r(t),
 * r(t) the rotation by 1.2 t about z (slerp along the great circle); the
 * velocity is (2 0 0 0 0 1.2). The positions after the step from t to t+h
 * are those of time t (the loop projects before the time advances). */
Test(scene_templates, linear_movement_moves_and_turns_a_rigid_frame)
{
    double q0[4];
    axis_quat((const double[3]){1, 0, 0}, 0.5, q0);
    char xml[2048];
    snprintf(xml, sizeof xml,
             HEADER "<Node name='body'><EulerImplicitSolver/>"
                    "<CGLinearSolver iterations='20' tolerance='1e-12' threshold='1e-20'/>"
                    "<MechanicalObject name='frame' template='Rigid3d' "
                    "position='1 2 3 %.17g %.17g %.17g %.17g'/>"
                    "<UniformMass totalMass='1'/>"
                    "<LinearMovementProjectiveConstraint template='Rigid3d' keyTimes='0 1' "
                    "movements='0 0 0 0 0 0   2 0 0 0 0 1.2'/>"
                    "</Node></Node>",
             q0[0], q0[1], q0[2], q0[3]);
    st_scene *s = load_ok(xml);
    const st_mstate *ms = state(s, "frame");
    const int n = 4;
    steps(s, n);
    const double t = (n - 1) * 0.1;
    near(ms->position.r[0], 1 + 2 * t, 1e-14, "x");
    near(ms->position.r[1], 2, 1e-14, "y");
    near(ms->position.r[2], 3, 1e-14, "z");
    double r[4], want[4];
    axis_quat((const double[3]){0, 0, 1}, 1.2 * t, r);
    st_quat_mul(want, q0, r);
    quat_near(ms->position.r + 3, want, 1e-14, "orientation");
    const double want_v[6] = {2, 0, 0, 0, 0, 1.2};
    for (int k = 0; k < 6; k++)
        near(ms->velocity.r[k], want_v[k], 1e-14, "velocity");
    st_scene_destroy(&s);
    test_rt_close(&T);
}

/* Absolute movements: the centre is the movement and the orientation the
 * interpolated turn alone (about x here: Euler angles (0.8 0 0)). */
Test(scene_templates, linear_movement_absolute_rigid)
{
    st_scene *s = load_ok(HEADER "<Node name='body'><EulerExplicitSolver/>"
                                 "<MechanicalObject name='frame' template='Rigid3d' "
                                 "position='5 5 5 0 0 0 1'/>"
                                 "<UniformMass totalMass='1'/>"
                                 "<LinearMovementProjectiveConstraint relativeMovements='false' "
                                 "keyTimes='0 2' movements='0 0 0 0 0 0   0 4 0 0.8 0 0'/>"
                                 "</Node></Node>");
    const st_mstate *ms = state(s, "frame");
    steps(s, 6);
    const double t = 0.5, s_ = t / 2;
    near(ms->position.r[0], 0, 1e-14, "x");
    near(ms->position.r[1], 4 * s_, 1e-14, "y");
    near(ms->position.r[2], 0, 1e-14, "z");
    double want[4];
    axis_quat((const double[3]){1, 0, 0}, 0.8 * s_, want);
    quat_near(ms->position.r + 3, want, 1e-14, "orientation");
    st_scene_destroy(&s);
    test_rt_close(&T);
}

/* More movements than key times: SOFA pairs them in order and ignores the
 * rest; settee does the same and says so. */
Test(scene_templates, linear_movement_extra_movements_warn)
{
    st_scene *s = load_ok(HEADER "<Node name='body'><EulerExplicitSolver/>"
                                 "<MechanicalObject name='p' position='0 0 0'/>"
                                 "<UniformMass totalMass='1'/>"
                                 "<LinearMovementProjectiveConstraint keyTimes='0 1' "
                                 "movements='0 0 0  1 0 0  9 9 9'/>"
                                 "</Node></Node>");
    cr_assert(strstr(T.log, "3 movements for 2 key times: as in SOFA, key time i takes movement i and "
                            "the last 1 movements are not used"), "%s",
              T.log);
    steps(s, 3);
    near(state(s, "p")->position.r[0], 0.2, 1e-15, "x at t = 0.2");
    st_scene_destroy(&s);
    test_rt_close(&T);
}

/* ---- LinearVelocityProjectiveConstraint on Rigid3d ---- */

/* A constant imposed velocity (1 0 0 0 0 2) over [0, 10]: each projection
 * moves the centre by h along x and turns the frame by 2h about z (SOFA's
 * RigidCoord + RigidDeriv), so after k projections the centre is at k h
 * and the orientation a turn of 2 k h about z, whatever k. */
Test(scene_templates, linear_velocity_integrates_a_rigid_frame)
{
    st_scene *s = load_ok(HEADER "<Node name='body'><EulerExplicitSolver/>"
                                 "<MechanicalObject name='frame' template='Rigid3d' "
                                 "position='0 0 0 0 0 0 1'/>"
                                 "<UniformMass totalMass='1'/>"
                                 "<LinearVelocityProjectiveConstraint keyTimes='0 10' "
                                 "velocities='1 0 0 0 0 2   1 0 0 0 0 2'/>"
                                 "</Node></Node>");
    const st_mstate *ms = state(s, "frame");
    const int n = 5;
    steps(s, n);
    const double h = 0.1;
    double k = ms->position.r[0] / h;
    cr_assert(fabs(k - round(k)) < 1e-9 && round(k) >= n && round(k) <= n + 1, "k = %g", k);
    double want[4];
    axis_quat((const double[3]){0, 0, 1}, 2 * round(k) * h, want);
    quat_near(ms->position.r + 3, want, 1e-14, "orientation");
    const double want_v[6] = {1, 0, 0, 0, 0, 2};
    for (int i = 0; i < 6; i++)
        near(ms->velocity.r[i], want_v[i], 0, "velocity");
    st_scene_destroy(&s);
    test_rt_close(&T);
}

Test(scene_templates, linear_velocity_rigid_refuses_angular_coordinates)
{
    st_scene *s;
    cr_assert_neq(load(HEADER "<Node name='body'><EulerExplicitSolver/>"
                              "<MechanicalObject template='Rigid3d' position='0 0 0 0 0 0 1'/>"
                              "<UniformMass totalMass='1'/>"
                              "<LinearVelocityProjectiveConstraint keyTimes='0 1' coordinates='4' "
                              "velocities='0 0 0 0 0 1  0 0 0 0 0 1'/>"
                              "</Node></Node>",
                       &s),
                  ST_OK);
    cr_assert(strstr(E.msg, "coordinate 4 is not an axis of the Rigid3d state (0 to 2)"), "%s",
              E.msg);
    st_scene_destroy(&s);
    test_rt_close(&T);
}

/* ---- IdentityMapping Rigid3d -> Vec3d ---- */

/* The child point is the frame's centre; a force on it reaches the frame
 * as a force without torque: v = h F / m, w = 0, the orientation kept.
 * Explicit and implicit (matrix-free CG: apply_j and apply_jt) agree, the
 * force being constant. */
static void identity_rigid_vec(const char *solver)
{
    char xml[2048];
    snprintf(xml, sizeof xml,
             HEADER "<Node name='body'>%s"
                    "<MechanicalObject name='frame' template='Rigid3d' "
                    "position='1 2 3 0 0 0.6 0.8'/>"
                    "<UniformMass totalMass='2'/>"
                    "<Node name='centre'><MechanicalObject name='c' template='Vec3d'/>"
                    "<IdentityMapping template='Rigid3d,Vec3d'/>"
                    "<ConstantForceField forces='0 6 0'/></Node>"
                    "</Node></Node>",
             solver);
    st_scene *s = load_ok(xml);
    const st_mstate *frame = state(s, "frame"), *c = state(s, "c");
    cr_assert_eq(c->n, 1);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(c->position.r[k], frame->position.r[k], "centre[%d]", k);
    steps(s, 2);
    const double h = 0.1, a = 3;
    near(frame->velocity.r[1], 2 * h * a, 1e-12, "vy");
    near(frame->position.r[1], 2 + 3 * h * h * a, 1e-12, "y");
    for (int k = 3; k < 6; k++)
        near(frame->velocity.r[k], 0, 1e-15, "angular velocity");
    quat_near(frame->position.r + 3, (const double[4]){0, 0, 0.6, 0.8}, 1e-15, "orientation");
    for (int k = 0; k < 3; k++)
        near(c->position.r[k], frame->position.r[k], 0, "mapped centre");
    near(c->velocity.r[1], frame->velocity.r[1], 0, "mapped velocity");
    st_scene_destroy(&s);
    test_rt_close(&T);
}

Test(scene_templates, identity_mapping_rigid_to_vec3_explicit)
{
    identity_rigid_vec("<EulerExplicitSolver/>");
}

Test(scene_templates, identity_mapping_rigid_to_vec3_implicit)
{
    identity_rigid_vec("<EulerImplicitSolver/><CGLinearSolver iterations='50' tolerance='1e-20' "
                       "threshold='1e-30'/>");
}

Test(scene_templates, identity_mapping_vec3_to_rigid_is_refused)
{
    st_scene *s;
    cr_assert_neq(load(HEADER "<Node name='body'><EulerExplicitSolver/>"
                              "<MechanicalObject position='0 0 0'/><UniformMass totalMass='1'/>"
                              "<Node name='m'><MechanicalObject template='Rigid3d'/>"
                              "<IdentityMapping/></Node></Node></Node>",
                       &s),
                  ST_OK);
    cr_assert(strstr(E.msg, "or a Rigid3d state to a Vec3d one"), "%s", E.msg);
    st_scene_destroy(&s);
    test_rt_close(&T);
}

/* ---- MeshSpringForceField on Vec2d and Vec1d ---- */

/* Vec2d: rest (0 0), (3 4): l0 = 5, ks = stiffness / l0 = 10 / 5 = 2.
 * Stretched to (6 8), length 10: the force on point 1 is -ks (10 - 5) u,
 * u = (0.6 0.8): (-6 -8), and the opposite on point 0. Vec1d: rest 0 and 2
 * (ks = 4 / 2 = 2), at 0 and 5: -2 (5 - 2) = -6 on point 1. Energy
 * ks (l - l0)^2 / 2: 25 and 9. */
Test(scene_templates, mesh_springs_on_vec2d_and_vec1d_states)
{
    st_scene *s = load_ok(HEADER "<RequiredPlugin name='Sofa.Component.SolidMechanics.Spring'/>"
                                 "<RequiredPlugin name='Sofa.Component.Topology.Container.Constant'/>"
                                 "<Node name='plane'><EulerExplicitSolver/>"
                                 "<MechanicalObject template='Vec2d' position='0 0  6 8' "
                                 "rest_position='0 0  3 4'/>"
                                 "<UniformMass totalMass='2'/><MeshTopology edges='0 1'/>"
                                 "<MeshSpringForceField name='s2' stiffness='10'/></Node>"
                                 "<Node name='line'><EulerExplicitSolver/>"
                                 "<MechanicalObject template='Vec1d' position='0 5' "
                                 "rest_position='0 2'/>"
                                 "<UniformMass totalMass='2'/><MeshTopology edges='0 1'/>"
                                 "<MeshSpringForceField name='s1' stiffness='4'/></Node>"
                                 "</Node>");
    st_component *s2 = test_find_object(s, "s2"), *s1 = test_find_object(s, "s1");
    double f[8];
    st_system *sys2 = s->systems[0], *sys1 = s->systems[1];
    memset(f, 0, sizeof f);
    s2->cls->forcefield->add_force(s2, &sys2->mp, f, sys2->x, sys2->v);
    const double want2[4] = {6, 8, -6, -8};
    for (int k = 0; k < 4; k++)
        near(f[k], want2[k], 1e-14, "Vec2d spring force");
    near(s2->cls->forcefield->potential_energy(s2, &sys2->mp, sys2->x), 25, 1e-13, "Vec2d energy");
    memset(f, 0, sizeof f);
    s1->cls->forcefield->add_force(s1, &sys1->mp, f, sys1->x, sys1->v);
    near(f[0], 6, 1e-14, "Vec1d force 0"), near(f[1], -6, 1e-14, "Vec1d force 1");
    near(s1->cls->forcefield->potential_energy(s1, &sys1->mp, sys1->x), 9, 1e-13, "Vec1d energy");
    /* One step of symplectic Euler, mass 1 per point: v1 = h f1. */
    steps(s, 1);
    const st_mstate *p1 = (const st_mstate *)sys1->states[0];
    near(p1->velocity.r[1], 0.1 * -6, 1e-14, "Vec1d velocity");
    st_scene_destroy(&s);
    test_rt_close(&T);
}

/* ---- FreeMotionAnimationLoop solveVelocityConstraintFirst ---- */

/* One particle of mass 1 at (0.1 0 0), rest position the origin, gravity
 * (0 -10 0), h = 0.1, held at rest by UniformLagrangianConstraint through
 * an UncoupledConstraintCorrection of compliance 1 without the ODE
 * factors (W factor 1, correctionPositionFactor 1, correctionVelocity-
 * Factor 0.5). Free velocity v_f = (0 -1 0).
 * VEL order (SOFA): d = v_f + (x_t - x0) / h = (1 -1 0), lambda = -d,
 *   v = v_f + 0.5 (-d) = (-0.5 -0.5 0), x = x_t + h v = (0.05 -0.05 0).
 * Default order: d = x_free - x0 = (0.1 -0.1 0), x = x_free - d = 0,
 *   v = v_f + (0.5 / h) (-d) = (-0.5 -0.5 0). */
static st_scene *velocity_first_scene(bool first)
{
    char xml[3072];
    snprintf(xml, sizeof xml,
             "<Node name='root' dt='0.1' gravity='0 -10 0'>"
             "<RequiredPlugin name='Sofa.Component.ODESolver.Backward'/>"
             "<RequiredPlugin name='Sofa.Component.LinearSolver.Iterative'/>"
             "<RequiredPlugin name='Sofa.Component.Mass'/>"
             "<RequiredPlugin name='Sofa.Component.Constraint.Lagrangian.Model'/>"
             "<RequiredPlugin name='Sofa.Component.Constraint.Lagrangian.Correction'/>"
             "<RequiredPlugin name='Sofa.Component.Constraint.Lagrangian.Solver'/>"
             "<FreeMotionAnimationLoop solveVelocityConstraintFirst='%s'/>"
             "<BlockGaussSeidelConstraintSolver tolerance='1e-14' maxIterations='100'/>"
             "<Node name='p'><EulerImplicitSolver/>"
             "<CGLinearSolver iterations='20' tolerance='1e-20' threshold='1e-30'/>"
             "<MechanicalObject name='dofs' position='0.1 0 0' rest_position='0 0 0'/>"
             "<UniformMass totalMass='1'/>"
             "<UniformLagrangianConstraint constrainToRestPos='true'/>"
             "<UncoupledConstraintCorrection compliance='1' "
             "useOdeSolverIntegrationFactors='false' correctionVelocityFactor='0.5' "
             "correctionPositionFactor='1'/>"
             "</Node></Node>",
             first ? "true" : "false");
    return load_ok(xml);
}

static void velocity_first_check(bool first)
{
    const double want_x[2][3] = {{0, 0, 0}, {0.05, -0.05, 0}};
    st_scene *s = velocity_first_scene(first);
    steps(s, 1);
    const st_mstate *ms = state(s, "dofs");
    for (int k = 0; k < 3; k++) {
        near(ms->position.r[k], want_x[first][k], 1e-12, first ? "VEL x" : "default x");
        near(ms->velocity.r[k], k < 2 ? -0.5 : 0.0, 1e-12, first ? "VEL v" : "default v");
    }
    st_scene_destroy(&s);
    test_rt_close(&T);
}

Test(scene_templates, solve_velocity_constraint_first_follows_sofas_vel_order)
{
    velocity_first_check(true);
}

Test(scene_templates, solve_velocity_constraint_first_default_order_differs)
{
    velocity_first_check(false);
}

/* The root of the VEL-order scenes below: dt 0.1, gravity -10 y, the
 * plugins, FreeMotionAnimationLoop solving velocity constraints first. */
#define VEL_ROOT                                                                                   \
    "<Node name='root' dt='0.1' gravity='0 -10 0'>"                                                \
    "<RequiredPlugin name='Sofa.Component.ODESolver.Backward'/>"                                   \
    "<RequiredPlugin name='Sofa.Component.LinearSolver.Direct'/>"                                  \
    "<RequiredPlugin name='Sofa.Component.Mass'/>"                                                 \
    "<RequiredPlugin name='Sofa.Component.Constraint.Lagrangian.Model'/>"                          \
    "<RequiredPlugin name='Sofa.Component.Constraint.Lagrangian.Correction'/>"                     \
    "<RequiredPlugin name='Sofa.Component.Constraint.Lagrangian.Solver'/>"                         \
    "<FreeMotionAnimationLoop solveVelocityConstraintFirst='true'/>"

/* GenericConstraintCorrection in the VEL order (SOFA's): W = cf vf A^-1,
 * lambda = -d / W, the velocities corrected by vf A^-1 lambda without cf,
 * the positions not at all (then integrated from the velocities). The
 * particle of velocity_first_scene (mass 1, no stiffness: A = 1), d =
 * (1 -1 0): v = v_f - d / cf, x = x_t + h v. With cf = 1 it stops at the
 * rest position; with cf = 0.5, as in SOFA, it overshoots, with a warning. */
Test(scene_templates, solve_velocity_constraint_first_generic_correction)
{
    const double cfs[2] = {1.0, 0.5};
    for (int k = 0; k < 2; k++) {
        if (k) /* the suite's setup opened the first runtime */
            test_rt_open(&T);
        char xml[3072];
        snprintf(xml, sizeof xml,
                 VEL_ROOT
                 "<BlockGaussSeidelConstraintSolver tolerance='1e-14' maxIterations='100'/>"
                 "<EulerImplicitSolver/><SparseLDLSolver/>"
                 "<GenericConstraintCorrection complianceFactor='%g'/>"
                 "<MechanicalObject name='dofs' position='0.1 0 0' rest_position='0 0 0'/>"
                 "<UniformMass totalMass='1'/>"
                 "<UniformLagrangianConstraint constrainToRestPos='true'/>"
                 "</Node>",
                 cfs[k]);
        st_scene *s = load_ok(xml);
        steps(s, 1);
        const st_mstate *ms = state(s, "dofs");
        const double v[3] = {-1.0 / cfs[k], -1.0 + 1.0 / cfs[k], 0.0};
        for (int i = 0; i < 3; i++) {
            near(ms->velocity.r[i], v[i], 1e-12, "VEL v");
            near(ms->position.r[i], (i == 0 ? 0.1 : 0.0) + 0.1 * v[i], 1e-12, "VEL x");
        }
        cr_assert_eq(strstr(T.log, "not the correction") != NULL, k == 1, "%s", T.log);
        st_scene_destroy(&s);
        test_rt_close(&T);
    }
}

/* A correction that cannot correct velocities alone is named. */
Test(scene_templates, solve_velocity_constraint_first_names_what_cannot)
{
    const char *xml =
        VEL_ROOT
        "<GenericConstraintSolver tolerance='1e-14' maxIterations='100'/>"
        "<Node name='p'><EulerImplicitSolver/><SparseLDLSolver/>"
        "<MechanicalObject name='dofs' position='0.1 0 0' rest_position='0 0 0'/>"
        "<UniformMass totalMass='1'/>"
        "<UniformLagrangianConstraint constrainToRestPos='true'/>"
        "<LinearSolverConstraintCorrection/>"
        "</Node></Node>";
    st_scene *s = load_ok(xml);
    cr_assert_neq(st_scene_step(s, 0.1, &E), ST_OK);
    cr_assert(strstr(E.msg, "LinearSolverConstraintCorrection") &&
                  strstr(E.msg, "cannot solve velocity constraints"),
              "%s", E.msg);
    st_scene_destroy(&s);
    test_rt_close(&T);
}
