/* test_joint_springs.c - JointSpringForceField (6D springs between Rigid3d
 * frames) against closed forms: SOFA's defaults, soft and hard axes in the
 * frame of the first end, locked and limited rotations, a pivot, damping,
 * rests from REST_R and REST_T; its tangent against finite differences at a
 * rest state (settee/check.h); bad spring texts; and RigidMapping onto a
 * Rigid3d output (frames carried by a rigid: positions, velocities, J^T as
 * the transpose of J, J against finite differences of apply). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(joint_springs, .init = setup, .fini = teardown);

#define PLUGINS                                                                                    \
    "  <RequiredPlugin name=\"Sofa.Component.SolidMechanics.Spring\"/>\n"                          \
    "  <RequiredPlugin name=\"Sofa.Component.Mapping.NonLinear\"/>\n"                              \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Forward\"/>\n"                              \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Backward\"/>\n"                             \
    "  <RequiredPlugin name=\"Sofa.Component.LinearSolver.Iterative\"/>\n"                         \
    "  <RequiredPlugin name=\"Sofa.Component.Constraint.Projective\"/>\n"                          \
    "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"

#define S2 0.70710678118654752440

/* Two rigid frames in one state joined by one JointSpringForceField. */
static st_status load_pair(const char *pos, const char *vel, const char *spring, st_scene **out,
                           st_error *err)
{
    char text[4096];
    snprintf(text, sizeof text,
             "<Node name=\"root\" dt=\"0.01\" gravity=\"0 0 0\">\n" PLUGINS
             "  <Node name=\"Pair\">\n"
             "    <EulerExplicitSolver/>\n"
             "    <MechanicalObject name=\"dofs\" template=\"Rigid3d\" position=\"%s\"%s%s%s/>\n"
             "    <UniformMass totalMass=\"2\"/>\n"
             "    <JointSpringForceField name=\"joint\" template=\"Rigid3d\" spring=\"%s\"/>\n"
             "  </Node>\n"
             "</Node>\n",
             pos, vel ? " velocity=\"" : "", vel ? vel : "", vel ? "\"" : "", spring);
    const char *path = test_write_temp("pair.scn", text);
    ST_TRY(st_scene_load(T.rt, path, out, err));
    return st_scene_init(*out, err);
}

static st_scene *pair(const char *pos, const char *vel, const char *spring)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_pair(pos, vel, spring, &s, &err), ST_OK, "%s %s %s", err.where, err.path,
                 err.msg);
    return s;
}

/* The spring force on the two frames (f[0..5] on the first, f[6..11] on
 * the second) at the state's positions and velocities. */
static void pair_force(st_scene *s, double f[12])
{
    st_component *ff = test_find_object(s, "joint");
    cr_assert_not_null(ff);
    cr_assert_eq(s->nsystems, 1);
    st_system *sys = s->systems[0];
    double *buf = calloc(sys->size_all, sizeof *buf);
    cr_assert_not_null(buf);
    ff->cls->forcefield->add_force(ff, &sys->mp, buf, sys->x, sys->v);
    memcpy(f, buf, 12 * sizeof *f);
    free(buf);
}

static void assert_vec(const double *got, const double *want, size_t n, double tol,
                       const char *what)
{
    for (size_t i = 0; i < n; i++)
        cr_assert(fabs(got[i] - want[i]) <= tol * (1.0 + fabs(want[i])),
                  "%s[%zu]: got %.12g, want %.12g", what, i, got[i], want[i]);
}

/* Equal and opposite on the two ends. */
static void assert_opposite(const double f[12])
{
    for (int k = 0; k < 6; k++)
        cr_assert(fabs(f[k] + f[6 + k]) <= 1e-12 * (1 + fabs(f[k])), "f2 != -f1 at %d", k);
}

Test(joint_springs, defaults_lock_translations_with_10000)
{
    /* the default spring: translations hard (10000), rotations free and soft (0) */
    st_scene *s = pair("0 0 0 0 0 0 1  0.01 -0.02 0.03 0 0 0.0998334166 0.9950041653", NULL,
                       "BEGIN_SPRING 0 1 END_SPRING");
    double f[12];
    pair_force(s, f);
    const double want[6] = {100, -200, 300, 0, 0, 0};
    assert_vec(f, want, 6, 1e-9, "f1");
    assert_opposite(f);
    st_scene_destroy(&s);
}

Test(joint_springs, soft_axis_is_in_the_first_frame)
{
    /* q1 = 90 degrees about z: its local x is the world y. d = (1 2 3):
     * local (2 -1 3), KT (5 100 100) -> (10 -100 300), back to world
     * (100 10 300). */
    char pos[256];
    snprintf(pos, sizeof pos, "0 0 0 0 0 %.17g %.17g  1 2 3 0 0 %.17g %.17g", S2, S2, S2, S2);
    st_scene *s = pair(pos, NULL, "BEGIN_SPRING 0 1 FREE_AXIS 1 0 0 1 1 1 KS_T 5 100 END_SPRING");
    double f[12];
    pair_force(s, f);
    const double want[6] = {100, 10, 300, 0, 0, 0};
    assert_vec(f, want, 6, 1e-9, "f1");
    assert_opposite(f);
    st_scene_destroy(&s);
}

Test(joint_springs, locked_rotation_pulls_back_with_the_hard_stiffness)
{
    /* q2 = 0.3 rad about z, every rotation locked: torque KR * 0.3 on z */
    char pos[256];
    snprintf(pos, sizeof pos, "0 0 0 0 0 0 1  0 0 0 0 0 %.17g %.17g", sin(0.15), cos(0.15));
    st_scene *s = pair(pos, NULL, "BEGIN_SPRING 0 1 FREE_AXIS 0 0 0 0 0 0 KS_R 3 50 END_SPRING");
    double f[12];
    pair_force(s, f);
    const double want[6] = {0, 0, 0, 0, 0, 50 * 0.3};
    assert_vec(f, want, 6, 1e-9, "f1");
    assert_opposite(f);
    st_scene_destroy(&s);
    /* free rotations (the default) inside their limits: the soft stiffness */
    s = pair(pos, NULL, "BEGIN_SPRING 0 1 KS_R 3 50 END_SPRING");
    pair_force(s, f);
    const double soft[6] = {0, 0, 0, 0, 0, 3 * 0.3};
    assert_vec(f, soft, 6, 1e-9, "f1 soft");
    st_scene_destroy(&s);
}

Test(joint_springs, rotation_past_a_limit_pulls_with_the_blocking_stiffness)
{
    /* tau_z = 0.3 past R_LIM_Z 0.1: the excess 0.2 times KS_B 7 */
    char pos[256];
    snprintf(pos, sizeof pos, "0 0 0 0 0 0 1  0 0 0 0 0 %.17g %.17g", sin(0.15), cos(0.15));
    st_scene *s = pair(pos, NULL, "BEGIN_SPRING 0 1 KS_R 3 50 KS_B 7 R_LIM_Z -0.1 0.1 END_SPRING");
    double f[12];
    pair_force(s, f);
    const double want[6] = {0, 0, 0, 0, 0, 7 * 0.2};
    assert_vec(f, want, 6, 1e-9, "f1");
    st_scene_destroy(&s);
    /* KS_B not given: the hard rotational stiffness / 100 */
    s = pair(pos, NULL, "BEGIN_SPRING 0 1 KS_R 3 500 R_LIM_Z -0.1 0.1 END_SPRING");
    pair_force(s, f);
    const double dflt[6] = {0, 0, 0, 0, 0, 5 * 0.2};
    assert_vec(f, dflt, 6, 1e-9, "f1 default KS_B");
    st_scene_destroy(&s);
    /* equal limits lock the axis: the hard stiffness on the whole angle */
    s = pair(pos, NULL, "BEGIN_SPRING 0 1 KS_R 3 500 R_LIM_Z 0 0 END_SPRING");
    pair_force(s, f);
    const double locked[6] = {0, 0, 0, 0, 0, 500 * 0.3};
    assert_vec(f, locked, 6, 1e-9, "f1 locked");
    st_scene_destroy(&s);
}

Test(joint_springs, pivot_brings_the_free_axis_back)
{
    /* pivot about z, q2 = 0.2 rad about x: the image of z is
     * (0, -sin a, cos a), theta = a, torque_x = KR a sin a */
    char pos[256];
    snprintf(pos, sizeof pos, "0 0 0 0 0 0 1  0 0 0 %.17g 0 0 %.17g", sin(0.1), cos(0.1));
    st_scene *s =
        pair(pos, NULL, "BEGIN_SPRING 0 1 FREE_AXIS 0 0 0 0 0 1 KS_R 0 1000 END_SPRING");
    double f[12];
    pair_force(s, f);
    const double want[6] = {0, 0, 0, 1000 * 0.2 * sin(0.2), 0, 0};
    assert_vec(f, want, 6, 1e-9, "f1");
    st_scene_destroy(&s);
}

Test(joint_springs, damping_on_the_relative_velocity)
{
    st_scene *s = pair("0 0 0 0 0 0 1  0 0 0 0 0 0 1", "0 1 0 0 0 0  1 1 0 0 0 3",
                       "BEGIN_SPRING 0 1 KD 2 END_SPRING");
    double f[12];
    pair_force(s, f);
    const double want[6] = {2, 0, 0, 0, 0, 6};
    assert_vec(f, want, 6, 1e-12, "f1");
    assert_opposite(f);
    st_scene_destroy(&s);
}

Test(joint_springs, rest_from_rest_r_and_from_the_positions)
{
    /* q1 = 90 degrees about z, q2 = identity: REST_R = q2^-1 q1 makes it a rest */
    char pos[256], spring[256];
    snprintf(pos, sizeof pos, "0 0 0 0 0 %.17g %.17g  0 0 0 0 0 0 1", S2, S2);
    snprintf(spring, sizeof spring,
             "BEGIN_SPRING 0 1 FREE_AXIS 0 0 0 0 0 0 REST_R 0 0 %.17g %.17g END_SPRING", S2, S2);
    st_scene *s = pair(pos, NULL, spring);
    double f[12];
    pair_force(s, f);
    const double zero[6] = {0};
    assert_vec(f, zero, 6, 1e-9, "f1 at REST_R");
    st_scene_destroy(&s);
    /* without it, the locked rotation pulls back by 90 degrees about z */
    s = pair(pos, NULL, "BEGIN_SPRING 0 1 FREE_AXIS 0 0 0 0 0 0 KS_R 0 10 END_SPRING");
    pair_force(s, f);
    const double back[6] = {0, 0, 0, 0, 0, -10 * M_PI / 2};
    assert_vec(f, back, 6, 1e-9, "f1 without REST_R");
    st_scene_destroy(&s);
    /* REST_T: as in SOFA the rest is the positions (same orientations here),
     * the values given are not used, and a warning says so */
    s = pair("0 0 0 0 0 0 1  1 2 3 0 0 0 1", NULL, "BEGIN_SPRING 0 1 REST_T 5 5 5 END_SPRING");
    pair_force(s, f);
    assert_vec(f, zero, 6, 1e-12, "f1 with REST_T");
    cr_assert(strstr(T.log, "REST_T is given"), "%s", T.log);
    st_scene_destroy(&s);
}

Test(joint_springs, tangent_matches_finite_differences_at_a_rest)
{
    /* q1 and q2 arbitrary, REST_R = q2^-1 q1, the centres together:
     * a rest state, where SOFA's tangent is the exact Jacobian */
    const double q1[4] = {0.2, -0.3, 0.4, sqrt(1 - 0.29)};
    const double q2[4] = {-0.5, 0.1, 0.2, sqrt(1 - 0.30)};
    double inv2[4] = {-q2[0], -q2[1], -q2[2], q2[3]}, r[4];
    st_quat_mul(r, inv2, q1);
    char pos[512], spring[512];
    snprintf(pos, sizeof pos, "1 2 3 %.17g %.17g %.17g %.17g  1 2 3 %.17g %.17g %.17g %.17g",
             q1[0], q1[1], q1[2], q1[3], q2[0], q2[1], q2[2], q2[3]);
    snprintf(spring, sizeof spring,
             "BEGIN_SPRING 0 1 FREE_AXIS 1 0 1 1 1 0 KS_T 30 400 KS_R 20 300 KD 1 "
             "REST_R %.17g %.17g %.17g %.17g END_SPRING",
             r[0], r[1], r[2], r[3]);
    st_scene *s = pair(pos, NULL, spring);
    st_component *ff = test_find_object(s, "joint");
    st_jacobian_check chk = {.struct_size = sizeof chk, .h = 1e-6};
    st_error err = {0};
    cr_assert_eq(st_check_forcefield(ff, &chk, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(chk.size, 12);
    cr_assert_gt(chk.scale, 100.0, "stiffnesses 20 to 400: scale %g", chk.scale);
    cr_assert(chk.dforce_error >= 0 && chk.dforce_error <= 1e-6, "add_dforce: %.3g at %zu,%zu",
              chk.dforce_error, chk.worst_row, chk.worst_col);
    cr_assert(chk.matrix_error >= 0 && chk.matrix_error <= 1e-6, "matrix: %.3g",
              chk.matrix_error);
    st_scene_destroy(&s);
}

static void expect_error(const char *spring, const char *needle)
{
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = load_pair("0 0 0 0 0 0 1  1 0 0 0 0 0 1", NULL, spring, &s, &err);
    cr_assert_neq(st, ST_OK, "'%s' was accepted", spring);
    cr_assert(strstr(err.msg, needle), "'%s': %s", spring, err.msg);
    cr_assert(strstr(err.where, "pair.scn:"), "no location: '%s'", err.where);
    st_scene_destroy(&s);
}

Test(joint_springs, bad_spring_texts_are_errors)
{
    expect_error("BEGIN_SPRING 0 1 KS_Q 1 END_SPRING", "unknown attribute 'KS_Q'");
    expect_error("BEGIN_SPRING 0 2 END_SPRING", "second index 2 is not a point");
    expect_error("BEGIN_SPRING 0 1 KS_T 5", "KS_T expects 2 numbers");
    expect_error("BEGIN_SPRING 0 1 KD x END_SPRING", "KD expects 1 numbers, got 'x'");
    expect_error("BEGIN_SPRING 0 1", "ends before END_SPRING");
    expect_error("0 1 END_SPRING", "expected BEGIN_SPRING");
}

Test(joint_springs, vec3d_states_and_files_are_refused)
{
    const char *text = "<Node name=\"root\">\n" PLUGINS
                       "  <EulerExplicitSolver/>\n"
                       "  <MechanicalObject position=\"0 0 0  1 0 0\"/>\n"
                       "  <JointSpringForceField spring=\"BEGIN_SPRING 0 1 END_SPRING\"/>\n"
                       "</Node>\n";
    st_scene *s = NULL;
    st_error err = {0};
    const char *path = test_write_temp("vec.scn", text);
    st_status st = st_scene_load(T.rt, path, &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "Vec3d") || strstr(err.msg, "Rigid3d"), "%s", err.msg);
    st_scene_destroy(&s);
    char pos[] = "0 0 0 0 0 0 1  1 0 0 0 0 0 1";
    char t2[2048];
    snprintf(t2, sizeof t2,
             "<Node name=\"root\">\n" PLUGINS "  <EulerExplicitSolver/>\n"
             "  <MechanicalObject template=\"Rigid3d\" position=\"%s\"/>\n"
             "  <JointSpringForceField outfile=\"out.txt\" "
             "spring=\"BEGIN_SPRING 0 1 END_SPRING\"/>\n"
             "</Node>\n",
             pos);
    path = test_write_temp("file.scn", t2);
    memset(&err, 0, sizeof err);
    st = st_scene_load(T.rt, path, &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "not supported"), "%s", err.msg);
    st_scene_destroy(&s);
}

/* ---- RigidMapping onto Rigid3d frames ---- */

static const char *RIGID_FRAMES =
    "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -9.81 0\">\n" PLUGINS
    "  <DefaultAnimationLoop/>\n"
    "  <Node name=\"Body\">\n"
    "    <EulerImplicitSolver rayleighStiffness=\"0\" rayleighMass=\"0\"/>\n"
    "    <CGLinearSolver iterations=\"100\" tolerance=\"1e-20\" threshold=\"1e-20\"/>\n"
    "    <MechanicalObject name=\"dofs\" template=\"Rigid3d\"\n"
    "        position=\"1 2 3 0 0 0.38941834230865 0.92106099400289  -1 0 0 0 0 0 1\"\n"
    "        velocity=\"0.5 0 0 0 0 2  0 0 0 1 0 0\"/>\n"
    "    <UniformMass totalMass=\"2\"/>\n"
    "    <Node name=\"Frames\">\n"
    "      <MechanicalObject name=\"frames\" template=\"Rigid3d\"\n"
    "          position=\"1 0 0 0 0 0 1  0 1 0 0.6 0 0 0.8  0 0 2 0 0 0 1\"/>\n"
    "      <RigidMapping name=\"map\" template=\"Rigid3d,Rigid3d\" rigidIndexPerPoint=\"0 0 1\"/>\n"
    "    </Node>\n"
    "  </Node>\n"
    "</Node>\n";

Test(joint_springs, rigid_mapping_carries_frames)
{
    const char *path = test_write_temp("frames.scn", RIGID_FRAMES);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s %s", err.path, err.msg);
    st_mstate *out = (st_mstate *)test_find_object(s, "frames");
    st_component *map = test_find_object(s, "map");
    st_system *sys = s->systems[0];
    const double *x = st_slice_x(sys->x, out), *v = st_slice(sys->v, out);
    /* frame 1: centre c + R p, orientation q s (q: 0.8 rad about z) */
    const double q[4] = {0, 0, 0.38941834230865, 0.92106099400289};
    const double p[3] = {0, 1, 0}, sq[4] = {0.6, 0, 0, 0.8};
    double rp[3], qs[4];
    st_quat_rotate(rp, q, p);
    st_quat_mul(qs, q, sq);
    const double want_x[7] = {1 + rp[0], 2 + rp[1], 3 + rp[2], qs[0], qs[1], qs[2], qs[3]};
    assert_vec(x + 7, want_x, 7, 1e-12, "frame 1");
    /* its velocity: v + w x r, and the rigid's w */
    const double want_v[6] = {0.5 - 2 * rp[1], 2 * rp[0], 0, 0, 0, 2};
    assert_vec(v + 6, want_v, 6, 1e-12, "frame 1 velocity");
    /* frame 2 on rigid 1: (-1 0 0) + (0 0 2), angular velocity (1 0 0) */
    const double want_x2[7] = {-1, 0, 2, 0, 0, 0, 1};
    assert_vec(x + 14, want_x2, 7, 1e-12, "frame 2");
    const double want_v2[6] = {0, -2, 0, 1, 0, 0};
    assert_vec(v + 12, want_v2, 6, 1e-12, "frame 2 velocity");

    /* J^T is the transpose of J: <J u, g> = <u, J^T g> */
    const st_mapping_ops *ops = map->cls->mapping;
    double *u = calloc(sys->size_all, sizeof *u), *g = calloc(sys->size_all, sizeof *g);
    cr_assert(u && g);
    st_mstate *in = (st_mstate *)test_find_object(s, "dofs");
    double *ui = st_slice(u, in), *go = st_slice(g, out);
    for (int k = 0; k < 12; k++)
        ui[k] = 0.1 * (k + 1) * (k % 2 ? -1 : 1);
    for (int k = 0; k < 18; k++)
        go[k] = 0.05 * (k + 3) * (k % 3 ? 1 : -1);
    ops->apply_j(map, &sys->mp, u);
    double lhs = 0, rhs = 0;
    const double *uo = st_slice(u, out);
    for (int k = 0; k < 18; k++)
        lhs += uo[k] * go[k];
    double *gi = st_slice(g, in);
    memset(gi, 0, 12 * sizeof *gi);
    ops->apply_jt(map, &sys->mp, g);
    for (int k = 0; k < 12; k++)
        rhs += ui[k] * gi[k];
    cr_assert(fabs(lhs - rhs) <= 1e-12 * (1 + fabs(lhs)), "<Ju,g> %.15g, <u,J^T g> %.15g", lhs,
              rhs);

    /* J against central differences of apply: move the input by h u, map,
     * and compare the output's difference (rigid: rotation vectors) with J u */
    const st_state_type *rt = &st_rigid3d_type;
    double *xp = malloc(sys->xsize_all * sizeof *xp), *xm = malloc(sys->xsize_all * sizeof *xm);
    cr_assert(xp && xm);
    const double h = 1e-6;
    memcpy(xp, sys->x, sys->xsize_all * sizeof *xp);
    memcpy(xm, sys->x, sys->xsize_all * sizeof *xm);
    rt->add_deriv(st_slice_x(xp, in), st_slice_x(sys->x, in), ui, h, 2);
    rt->add_deriv(st_slice_x(xm, in), st_slice_x(sys->x, in), ui, -h, 2);
    ops->apply(map, &sys->mp, xp);
    ops->apply(map, &sys->mp, xm);
    double fd[18];
    rt->diff(fd, st_slice_x(xp, out), st_slice_x(xm, out), 3);
    for (int k = 0; k < 18; k++)
        fd[k] /= 2 * h;
    assert_vec(fd, uo, 18, 1e-7, "J u against finite differences");
    ops->apply(map, &sys->mp, sys->x);
    free(xp);
    free(xm);
    free(u);
    free(g);

    /* and it steps */
    for (int i = 0; i < 20; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_scene_destroy(&s);
}

/* A chain of two bodies hinged by a joint spring through mapped frames
 * (as SOFA's joint scenes): the free body swings down from the fixed one
 * about the hinge axis only, and the joint holds the two attach frames
 * together: the gap stays below 1% of the arm while the body turns by about
 * 2 rad (one linearised implicit step per 0.01 s, without the mapping's
 * geometric stiffness, lags a little behind the rotation). */
Test(joint_springs, a_hinged_pair_hangs_together)
{
    const char *text =
        "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -9.81 0\">\n" PLUGINS
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Chain\">\n"
        "    <EulerImplicitSolver rayleighStiffness=\"0.1\" rayleighMass=\"0.1\"/>\n"
        "    <CGLinearSolver iterations=\"200\" tolerance=\"1e-16\" threshold=\"1e-16\"/>\n"
        "    <MechanicalObject name=\"dofs\" template=\"Rigid3d\"\n"
        "        position=\"0 0 0 0 0 0 1  2 0 0 0 0 0 1\"/>\n"
        "    <UniformMass totalMass=\"2\"/>\n"
        "    <FixedProjectiveConstraint indices=\"0\"/>\n"
        "    <Node name=\"Attaches\">\n"
        "      <MechanicalObject name=\"attaches\" template=\"Rigid3d\"\n"
        "          position=\"1 0 0 0 0 0 1  -1 0 0 0 0 0 1\"/>\n"
        "      <RigidMapping template=\"Rigid3d,Rigid3d\" rigidIndexPerPoint=\"0 1\"/>\n"
        "      <JointSpringForceField name=\"joint\" template=\"Rigid3d\"\n"
        "          spring=\"BEGIN_SPRING 0 1 FREE_AXIS 0 0 0 0 0 1 KS_T 0 100000 KS_R 0 100000 "
        "END_SPRING\"/>\n"
        "    </Node>\n"
        "  </Node>\n"
        "</Node>\n";
    const char *path = test_write_temp("hinge.scn", text);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s %s", err.path, err.msg);
    for (int i = 0; i < 100; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_mstate *att = (st_mstate *)test_find_object(s, "attaches");
    st_mstate *dofs = (st_mstate *)test_find_object(s, "dofs");
    st_system *sys = s->systems[0];
    const double *a = st_slice_x(sys->x, att), *b = st_slice_x(sys->x, dofs);
    double gap = sqrt(pow(a[7] - a[0], 2) + pow(a[8] - a[1], 2) + pow(a[9] - a[2], 2));
    cr_assert_lt(gap, 1e-2, "gap %g", gap);
    /* the body swung down about z: its centre went below the hinge */
    cr_assert_lt(b[8], -0.05, "centre y %g", b[8]);
    /* and rotated about z only (the hinge axis) */
    cr_assert_lt(fabs(b[10]) + fabs(b[11]), 1e-6, "q %g %g %g %g", b[10], b[11], b[12], b[13]);
    st_scene_destroy(&s);
}
