/* test_frame_springs.c - FrameSpringForceField (SOFA's 6D springs between
 * Rigid3d frames) against hand-worked values: the attachment vectors and
 * their torques, the rotation vector of q1^-1 q2 used unrotated as a world
 * torque, the damping (with SOFA's sign on the second frame), attributes
 * carried from one spring to the next as SOFA's reader does, SOFA's
 * approximate tangent (not scaled by the solver's factor) against its
 * formula and against finite differences where it is exact, and bad texts. */
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
TestSuite(frame_springs, .init = setup, .fini = teardown);

#define S2 0.70710678118654752440
#define PI 3.14159265358979323846

static st_status load_pair(const char *pos, const char *vel, const char *spring, st_scene **out,
                           st_error *err)
{
    char text[4096];
    snprintf(text, sizeof text,
             "<Node name=\"root\" dt=\"0.01\" gravity=\"0 0 0\">\n"
             "  <RequiredPlugin name=\"Sofa.Component.SolidMechanics.Spring\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Forward\"/>\n"
             "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"
             "  <Node name=\"Pair\">\n"
             "    <EulerExplicitSolver/>\n"
             "    <MechanicalObject name=\"dofs\" template=\"Rigid3d\" position=\"%s\"%s%s%s/>\n"
             "    <UniformMass totalMass=\"2\"/>\n"
             "    <FrameSpringForceField name=\"frame\" template=\"Rigid3d\" spring=\"%s\"/>\n"
             "  </Node>\n"
             "</Node>\n",
             pos, vel ? " velocity=\"" : "", vel ? vel : "", vel ? "\"" : "", spring);
    const char *path = test_write_temp("frame.scn", text);
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

static void pair_force(st_scene *s, double f[12])
{
    st_component *ff = test_find_object(s, "frame");
    cr_assert_not_null(ff);
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

Test(frame_springs, attachment_vectors_and_their_torques)
{
    /* c1 = 0, q1 = id, c2 = (1 0 0), q2 = 90 deg about z; VEC1 (0.5 0 0),
     * VEC2 (1 0 0) -> r2 = (0 1 0). fT = 10 ((1 1 0) - (0.5 0 0)) = (5 10 0);
     * r1 x fT = (0 0 5), r2 x fT = (0 0 -5). */
    char pos[256];
    snprintf(pos, sizeof pos, "0 0 0 0 0 0 1  1 0 0 0 0 %.17g %.17g", S2, S2);
    st_scene *s = pair(pos, NULL, "BEGIN_SPRING 0 1 KS_T 10 VEC1 0.5 0 0 VEC2 1 0 0 END_SPRING");
    double f[12];
    pair_force(s, f);
    const double want[12] = {5, 10, 0, 0, 0, 5, -5, -10, 0, 0, 0, 5};
    assert_vec(f, want, 12, 1e-12, "f");
    st_scene_destroy(&s);
    /* KS_R 4 adds fR = 4 (0 0 pi/2) to C1 and C2 */
    s = pair(pos, NULL, "BEGIN_SPRING 0 1 KS_T 10 KS_R 4 VEC1 0.5 0 0 VEC2 1 0 0 END_SPRING");
    pair_force(s, f);
    const double want_r[12] = {5, 10, 0, 0, 0, 5 + 2 * PI, -5, -10, 0, 0, 0, 5 - 2 * PI};
    assert_vec(f, want_r, 12, 1e-12, "f with KS_R");
    st_scene_destroy(&s);
}

Test(frame_springs, rotation_vector_is_a_world_torque_unrotated)
{
    /* q1 = 90 deg about x, q2 = q1 * (0.3 rad about z): q1^-1 q2 is 0.3
     * about z, and SOFA applies kr (0 0 0.3) as is (frame 1's z is the
     * world's -y). */
    double q1[4] = {S2, 0, 0, S2}, qz[4] = {0, 0, sin(0.15), cos(0.15)}, q2[4];
    st_quat_mul(q2, q1, qz);
    char pos[256];
    snprintf(pos, sizeof pos, "0 0 0 %.17g %.17g %.17g %.17g  0 0 0 %.17g %.17g %.17g %.17g", q1[0],
             q1[1], q1[2], q1[3], q2[0], q2[1], q2[2], q2[3]);
    st_scene *s = pair(pos, NULL, "BEGIN_SPRING 0 1 KS_R 50 END_SPRING");
    double f[12];
    pair_force(s, f);
    const double want[12] = {0, 0, 0, 0, 0, 15, 0, 0, 0, 0, 0, -15};
    assert_vec(f, want, 12, 1e-12, "f");
    st_scene_destroy(&s);
    /* a relative turn past pi: the angle is read in [0, pi], so 4 rad about
     * z is 2 pi - 4 about -z */
    snprintf(pos, sizeof pos, "0 0 0 0 0 0 1  0 0 0 0 0 %.17g %.17g", sin(2.0), cos(2.0));
    s = pair(pos, NULL, "BEGIN_SPRING 0 1 KS_R 1 END_SPRING");
    pair_force(s, f);
    cr_assert(fabs(f[5] - (4.0 - 2 * PI)) < 1e-12, "torque %.17g, want 4 - 2 pi", f[5]);
    st_scene_destroy(&s);
}

Test(frame_springs, damping_with_sofas_sign_on_the_second_frame)
{
    /* v2 - v1 = (1 0 0), w2 - w1 = (0 0 2), KD 3: fT = (3 0 0), the angular
     * damping +6 on frame 1 and +6 (not -6) on frame 2 */
    st_scene *s = pair("0 0 0 0 0 0 1  1 0 0 0 0 0 1", "0 0 0 0 0 0  1 0 0 0 0 2",
                       "BEGIN_SPRING 0 1 KD 3 END_SPRING");
    double f[12];
    pair_force(s, f);
    const double want[12] = {3, 0, 0, 0, 0, 6, -3, 0, 0, 0, 0, 6};
    assert_vec(f, want, 12, 1e-12, "f");
    st_scene_destroy(&s);
}

Test(frame_springs, attributes_carry_over_to_the_next_spring)
{
    /* the second group gives no KS_T: SOFA's reader keeps 7 from the first */
    st_scene *s = pair("0 0 0 0 0 0 1  1 0 0 0 0 0 1",
                       NULL, "BEGIN_SPRING 0 1 KS_T 7 END_SPRING BEGIN_SPRING 0 1 END_SPRING");
    double f[12];
    pair_force(s, f);
    cr_assert(fabs(f[0] - 14.0) < 1e-12, "f1x %.17g, want 2 x 7", f[0]);
    st_scene_destroy(&s);
    /* with no attribute at all the spring is 0 */
    s = pair("0 0 0 0 0 0 1  1 0 0 0 0 0 1", NULL, "BEGIN_SPRING 0 1 END_SPRING");
    pair_force(s, f);
    for (int k = 0; k < 12; k++)
        cr_assert_eq(f[k], 0.0, "f[%d] = %g", k, f[k]);
    st_scene_destroy(&s);
}

Test(frame_springs, tangent_is_sofas_unscaled_formula)
{
    /* q1 = 90 deg about x; R1 (k R1^T d) = k d: df1 = (ks dv, kr dw) with
     * dv, dw of dx2 - dx1, whatever kfactor (SOFA ignores it) */
    char pos[256];
    snprintf(pos, sizeof pos, "0 0 0 %.17g 0 0 %.17g  1 2 3 0 0.6 0 0.8", S2, S2);
    st_scene *s = pair(pos, NULL, "BEGIN_SPRING 0 1 KS_T 10 KS_R 4 VEC1 1 0 0 END_SPRING");
    st_component *ff = test_find_object(s, "frame");
    st_system *sys = s->systems[0];
    double f[12];
    pair_force(s, f); /* caches q1 */
    double dx[12] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 1, 1, 1, 1, 1, 1};
    double *d = calloc(sys->size_all, sizeof *d), *df = calloc(sys->size_all, sizeof *df);
    cr_assert(d && df);
    memcpy(d, dx, sizeof dx);
    ff->cls->forcefield->add_dforce(ff, &sys->mp, df, d, -0.25, 0.0);
    const double want[12] = {9, 8, 7, 2.4, 2, 1.6, -9, -8, -7, -2.4, -2, -1.6};
    assert_vec(df, want, 12, 1e-12, "df");
    /* no product asked (both factors 0): nothing added */
    memset(df, 0, sys->size_all * sizeof *df);
    ff->cls->forcefield->add_dforce(ff, &sys->mp, df, d, 0.0, 0.0);
    for (int k = 0; k < 12; k++)
        cr_assert_eq(df[k], 0.0);
    free(d);
    free(df);
    st_scene_destroy(&s);
}

Test(frame_springs, tangent_matches_finite_differences_where_exact)
{
    /* both orientations the identity, no attachment vectors, no damping:
     * the force is ks (c2 - c1) and kr rotvec(q1^-1 q2), whose derivative
     * at q1 = q2 is the tangent */
    st_scene *s = pair("0 0 0 0 0 0 1  1 2 3 0 0 0 1", NULL,
                       "BEGIN_SPRING 0 1 KS_T 30 KS_R 20 END_SPRING");
    st_component *ff = test_find_object(s, "frame");
    st_jacobian_check chk = {.struct_size = sizeof chk, .h = 1e-6};
    st_error err = {0};
    cr_assert_eq(st_check_forcefield(ff, &chk, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(chk.size, 12);
    cr_assert_gt(chk.scale, 19.0);
    cr_assert(chk.dforce_error >= 0 && chk.dforce_error <= 1e-6, "add_dforce: %.3g at %zu,%zu",
              chk.dforce_error, chk.worst_row, chk.worst_col);
    cr_assert_eq(chk.matrix_error, -1.0, "SOFA's class assembles no matrix");
    st_scene_destroy(&s);
    /* with an attachment vector the tangent misses the cross products */
    s = pair("0 0 0 0 0 0 1  1 2 3 0 0 0 1", NULL,
             "BEGIN_SPRING 0 1 KS_T 30 KS_R 20 VEC1 1 0 0 END_SPRING");
    ff = test_find_object(s, "frame");
    cr_assert_eq(st_check_forcefield(ff, &chk, &err), ST_OK, "%s", err.msg);
    cr_assert_gt(chk.dforce_error, 0.1, "approximate tangent: %.3g", chk.dforce_error);
    st_scene_destroy(&s);
}

static void expect_error(const char *spring, const char *needle)
{
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = load_pair("0 0 0 0 0 0 1  1 0 0 0 0 0 1", NULL, spring, &s, &err);
    cr_assert_neq(st, ST_OK, "'%s' was accepted", spring);
    cr_assert(strstr(err.msg, needle), "'%s': %s", spring, err.msg);
    cr_assert(strstr(err.where, "frame.scn:"), "no location: '%s'", err.where);
    st_scene_destroy(&s);
}

Test(frame_springs, bad_spring_texts_are_errors)
{
    expect_error("BEGIN_SPRING 0 1 KS_R_X 1 END_SPRING", "unknown attribute 'KS_R_X'");
    expect_error("BEGIN_SPRING 0 2 END_SPRING", "second index 2 is not a point");
    expect_error("BEGIN_SPRING 0 1 VEC1 1 2", "VEC1 expects 3 numbers");
    expect_error("BEGIN_SPRING 0 1 KD x END_SPRING", "KD expects 1 numbers, got 'x'");
    expect_error("BEGIN_SPRING 0 1", "ends before END_SPRING");
    expect_error("BEGIN_SPRING 0 1 END_SPRING 0 1 END_SPRING", "expected BEGIN_SPRING");
}

Test(frame_springs, vec3d_states_are_refused)
{
    const char *text = "<Node name=\"root\">\n"
                       "  <RequiredPlugin name=\"Sofa.Component.SolidMechanics.Spring\"/>\n"
                       "  <MechanicalObject position=\"0 0 0  1 0 0\"/>\n"
                       "  <FrameSpringForceField spring=\"BEGIN_SPRING 0 1 END_SPRING\"/>\n"
                       "</Node>\n";
    const char *path = test_write_temp("frame_vec3.scn", text);
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = st_scene_load(T.rt, path, &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "Rigid3d"), "%s", err.msg);
    st_scene_destroy(&s);
}
