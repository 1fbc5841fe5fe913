/* test_skinning.c - SkinningMapping and CenterOfMassMapping (Rigid3d to
 * Vec3d): positions against closed forms (1/d^2 weights of the nearest
 * frames, given weights, the rest frames; the mass-weighted centre with
 * UniformMass and DiagonalMass), their Jacobians against central finite
 * differences of apply and J^T as the transpose of J, a skinned body
 * stepping under gravity with an implicit solver, and bad input;
 * LineSetSkinningMapping with SOFA's line weights and neighbourhoods. */
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
TestSuite(skinning, .init = setup, .fini = teardown);

#define PLUGINS                                                                                    \
    "  <RequiredPlugin name=\"Sofa.Component.Mapping.Linear\"/>\n"                                 \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Forward\"/>\n"                              \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Backward\"/>\n"                             \
    "  <RequiredPlugin name=\"Sofa.Component.LinearSolver.Iterative\"/>\n"                         \
    "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"                                           \
    "  <RequiredPlugin name=\"Sofa.Component.MechanicalLoad\"/>\n"

/* A Rigid3d body (frames) with a child Vec3d state mapped by `mapping`
 * (its attributes in map_attrs). */
static st_status load_body(const char *frames, const char *mass, const char *points,
                           const char *mapping, st_scene **out, st_error *err)
{
    char text[8192];
    snprintf(text, sizeof text,
             "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -9.81 0\">\n" PLUGINS
             "  <Node name=\"Body\">\n"
             "    <EulerImplicitSolver rayleighStiffness=\"0\" rayleighMass=\"0\"/>\n"
             "    <CGLinearSolver iterations=\"200\" tolerance=\"1e-20\" threshold=\"1e-20\"/>\n"
             "    <MechanicalObject name=\"frames\" template=\"Rigid3d\" %s/>\n"
             "    %s\n"
             "    <Node name=\"Skin\">\n"
             "      <MechanicalObject name=\"points\" position=\"%s\"/>\n"
             "      %s\n"
             "    </Node>\n"
             "  </Node>\n"
             "</Node>\n",
             frames, mass, points, mapping);
    const char *path = test_write_temp("body.scn", text);
    ST_TRY(st_scene_load(T.rt, path, out, err));
    return st_scene_init(*out, err);
}

static st_scene *body(const char *frames, const char *mass, const char *points,
                      const char *mapping)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_body(frames, mass, points, mapping, &s, &err), ST_OK, "%s %s %s",
                 err.where, err.path, err.msg);
    return s;
}

static void assert_vec(const double *got, const double *want, size_t n, double tol,
                       const char *what)
{
    for (size_t i = 0; i < n; i++)
        cr_assert(fabs(got[i] - want[i]) <= tol * (1.0 + fabs(want[i])),
                  "%s[%zu]: got %.12g, want %.12g", what, i, got[i], want[i]);
}

static const double *points_x(st_scene *s)
{
    st_mstate *p = (st_mstate *)test_find_object(s, "points");
    return st_slice_x(s->systems[0]->x, p);
}

/* The mapping's J: J^T is its transpose (<J u, g> = <u, J^T g>) and J u
 * equals central differences of apply along u (rotations through the
 * state's exponential map). */
static void check_jacobian(st_scene *s)
{
    st_component *map = test_find_object(s, "map");
    cr_assert_not_null(map);
    const st_mapping_ops *ops = map->cls->mapping;
    st_system *sys = s->systems[0];
    st_mstate *in = (st_mstate *)test_find_object(s, "frames");
    st_mstate *out = (st_mstate *)test_find_object(s, "points");
    size_t nin = 6 * in->n, nout = 3 * out->n;
    double *u = calloc(sys->size_all, sizeof *u), *g = calloc(sys->size_all, sizeof *g);
    double *xp = malloc(sys->xsize_all * sizeof *xp), *xm = malloc(sys->xsize_all * sizeof *xm);
    double *fd = malloc(nout * sizeof *fd);
    cr_assert(u && g && xp && xm && fd);
    double *ui = st_slice(u, in), *go = st_slice(g, out), *gi = st_slice(g, in);
    for (size_t k = 0; k < nin; k++)
        ui[k] = 0.3 * sin(1.0 + 1.7 * (double)k);
    for (size_t k = 0; k < nout; k++)
        go[k] = 0.2 * cos(0.5 + 2.3 * (double)k);
    ops->apply(map, &sys->mp, sys->x);
    ops->apply_j(map, &sys->mp, u);
    const double *uo = st_slice(u, out);
    double lhs = 0, rhs = 0, scale = 0;
    for (size_t k = 0; k < nout; k++) {
        lhs += uo[k] * go[k];
        scale = fmax(scale, fabs(uo[k]));
    }
    cr_assert_gt(scale, 1e-3, "J u is zero: the check would prove nothing");
    ops->apply_jt(map, &sys->mp, g);
    for (size_t k = 0; k < nin; k++)
        rhs += ui[k] * gi[k];
    cr_assert(fabs(lhs - rhs) <= 1e-12 * (1 + fabs(lhs)), "<Ju,g> %.15g, <u,J^T g> %.15g", lhs,
              rhs);
    const double h = 1e-6;
    const st_state_type *rt = &st_rigid3d_type;
    memcpy(xp, sys->x, sys->xsize_all * sizeof *xp);
    memcpy(xm, sys->x, sys->xsize_all * sizeof *xm);
    rt->add_deriv(st_slice_x(xp, in), st_slice_x(sys->x, in), ui, h, in->n);
    rt->add_deriv(st_slice_x(xm, in), st_slice_x(sys->x, in), ui, -h, in->n);
    ops->apply(map, &sys->mp, xp);
    ops->apply(map, &sys->mp, xm);
    const double *op = st_slice_x(xp, out), *om = st_slice_x(xm, out);
    for (size_t k = 0; k < nout; k++)
        fd[k] = (op[k] - om[k]) / (2 * h);
    ops->apply(map, &sys->mp, sys->x);
    assert_vec(fd, uo, nout, 1e-7, "J u against finite differences");
    free(u), free(g), free(xp), free(xm), free(fd);
}

Test(skinning, nearest_frames_by_inverse_square_distance)
{
    /* frames at (0 0 0) and (2 0 0), a point at (0.5 0 0): 1/d^2 = 4 and
     * 4/9, normalised 0.9 and 0.1; the rest frames are the positions */
    st_scene *s = body("position=\"0 0 0 0 0 0 1  2 0 0 0 0 0 1\"", "<UniformMass totalMass=\"2\"/>",
                       "0.5 0 0  1.5 1 0", "<SkinningMapping name=\"map\" nbRef=\"2\"/>");
    const double *x = points_x(s);
    const double want[6] = {0.5, 0, 0, 1.5, 1, 0};
    assert_vec(x, want, 6, 1e-12, "mapped at rest");
    /* the computed groups are written back in SOFA's text: point 1 at
     * (1.5 1 0) is nearer frame 1 (d^2 1.25 against 3.25) */
    st_component *map = test_find_object(s, "map");
    const char *ind = *(char **)st_component_field_ptr(map, st_component_field(map, "indices"));
    const char *wt = *(char **)st_component_field_ptr(map, st_component_field(map, "weight"));
    cr_assert_str_eq(ind, "[ 0, 1 ] [ 1, 0 ]");
    double w[4];
    cr_assert_eq(sscanf(wt, "[ %lf, %lf ] [ %lf, %lf ]", &w[0], &w[1], &w[2], &w[3]), 4, "%s",
                 wt);
    const double want_w[4] = {0.9, 0.1, 0.8 / (0.8 + 1 / 3.25), 1 / 3.25 / (0.8 + 1 / 3.25)};
    assert_vec(w, want_w, 4, 1e-15, "weights");
    st_scene_destroy(&s);
    /* the frames moved from their rest: frame 1 turned 90 degrees about z
     * and moved to (2 1 0). Point 0: 0.9 (0.5 0 0) + 0.1 ((2 1 0) + Rz
     * (-1.5 0 0)) = (0.45 0 0) + 0.1 (2, -0.5, 0) = (0.65, -0.05, 0). */
    double c = sqrt(0.5);
    char frames[512];
    snprintf(frames, sizeof frames,
             "position=\"0 0 0 0 0 0 1  2 1 0 0 0 %.17g %.17g\" "
             "rest_position=\"0 0 0 0 0 0 1  2 0 0 0 0 0 1\"",
             c, c);
    s = body(frames, "<UniformMass totalMass=\"2\"/>", "0.5 0 0", "<SkinningMapping name=\"map\" nbRef=\"2\"/>");
    x = points_x(s);
    const double moved[3] = {0.65, -0.05, 0};
    assert_vec(x, moved, 3, 1e-12, "mapped from moved frames");
    check_jacobian(s);
    st_scene_destroy(&s);
}

Test(skinning, given_indices_and_weights)
{
    /* point 0 follows frame 1 only, point 1 half and half (weights 2 2) */
    st_scene *s =
        body("position=\"0 0 0 0 0 0 1  2 0 0 0 0 0 1\" velocity=\"0 0 0 0 0 1  1 0 0 0 0 0\"",
             "<UniformMass totalMass=\"2\"/>", "0 1 0  1 0 0",
             "<SkinningMapping name=\"map\" nbRef=\"2\" indices=\"[ 1, 0 ] [ 0, 1 ]\" "
             "weight=\"[ 1, 0 ] [ 2, 2 ]\"/>");
    const double *x = points_x(s);
    const double want[6] = {0, 1, 0, 1, 0, 0};
    assert_vec(x, want, 6, 1e-12, "positions");
    /* velocities: point 0 = v1 + w1 x (0 1 0 - 2 0 0) = (1 0 0); point 1 =
     * 0.5 (w0 x (1 0 0)) + 0.5 v1 = (0.5, 0.5, 0) */
    st_mstate *p = (st_mstate *)test_find_object(s, "points");
    const double *v = st_slice(s->systems[0]->v, p);
    const double wv[6] = {1, 0, 0, 0.5, 0.5, 0};
    assert_vec(v, wv, 6, 1e-12, "velocities");
    check_jacobian(s);
    st_scene_destroy(&s);
}

Test(skinning, a_skinned_body_falls_with_gravity)
{
    /* the points carry a mass: the frames fall as one body, all points by
     * the same g t^2-like amount (implicit Euler: sum of dt^2 g) */
    st_scene *s = body("position=\"0 0 0 0 0 0 1  1 0 0 0 0 0 1\"", "<UniformMass totalMass=\"2\"/>",
                       "0 0 1  1 0 1  0.5 1 0", "<SkinningMapping name=\"map\" nbRef=\"2\"/>");
    st_error err = {0};
    for (int i = 0; i < 10; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const double *x = points_x(s);
    double drop = 9.81 * 0.01 * 0.01 * 55; /* sum over 10 steps of k dt^2 g */
    const double want[9] = {0, -drop, 1, 1, -drop, 1, 0.5, 1 - drop, 0};
    assert_vec(x, want, 9, 1e-9, "after 10 steps");
    st_scene_destroy(&s);
}

static void expect_error(const char *mapping, const char *needle)
{
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = load_body("position=\"0 0 0 0 0 0 1  2 0 0 0 0 0 1\"", "<UniformMass totalMass=\"2\"/>",
                             "0 1 0  1 0 0", mapping, &s, &err);
    cr_assert_neq(st, ST_OK, "'%s' was accepted", mapping);
    cr_assert(strstr(err.msg, needle), "'%s': %s", mapping, err.msg);
    st_scene_destroy(&s);
}

Test(skinning, bad_weights_are_errors)
{
    expect_error("<SkinningMapping nbRef=\"1\" indices=\"[ 0 ] [ 5 ]\" weight=\"[ 1 ] [ 1 ]\"/>",
                 "index 5 is not a frame");
    expect_error("<SkinningMapping nbRef=\"1\" indices=\"[ 0 1 ] [ 1 ]\" weight=\"[ 1 ] [ 1 ]\"/>",
                 "expected ',' or ']'");
    expect_error("<SkinningMapping nbRef=\"2\" indices=\"[ 0 ] [ 1 ]\" weight=\"[ 1 ] [ 1 ]\"/>",
                 "nbRef asks for 2");
    expect_error("<SkinningMapping indices=\"0 1\"/>", "expected '['");
}

/* ---- CenterOfMassMapping ---- */

Test(skinning, center_of_mass_with_uniform_and_diagonal_masses)
{
    st_scene *s = body("position=\"0 0 0 0 0 0 1  2 0 0 0 0 0 1  4 3 0 0 0 0 1\"",
                       "<UniformMass totalMass=\"3\"/>", "9 9 9",
                       "<CenterOfMassMapping name=\"map\"/>");
    const double *x = points_x(s);
    const double want[3] = {2, 1, 0};
    assert_vec(x, want, 3, 1e-12, "uniform");
    check_jacobian(s);
    st_scene_destroy(&s);
    /* masses 1, 2, 5: (0 + 4 + 20, 15, 0) / 8 */
    s = body("position=\"0 0 0 0 0 0 1  2 0 0 0 0 0 1  4 3 0 0 0 0 1\"",
             "<DiagonalMass vertexMass=\"1 1 1 0 0 0 1 0 0 0 1  2 1 1 0 0 0 1 0 0 0 1  "
             "5 1 1 0 0 0 1 0 0 0 1\"/>",
             "9 9 9", "<CenterOfMassMapping name=\"map\"/>");
    x = points_x(s);
    const double dm[3] = {3, 15.0 / 8, 0};
    assert_vec(x, dm, 3, 1e-12, "diagonal");
    check_jacobian(s);
    st_scene_destroy(&s);
}

Test(skinning, center_of_mass_needs_a_mass)
{
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = load_body("position=\"0 0 0 0 0 0 1\"", "", "0 0 0",
                             "<CenterOfMassMapping name=\"map\"/>", &s, &err);
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "no mass in the node"), "%s", err.msg);
    st_scene_destroy(&s);
}

/* ---- LineSetSkinningMapping ---- */

#define CHAIN_FRAMES                                                                               \
    "position=\"0 0 0 0 0 0 1  2 0 0 0 0 0 1  4 0 0 0 0 0 1  6 0 0 0 0 0 1  8 0 0 0 0 0 1\""
#define CHAIN_LINES                                                                                \
    "<UniformMass totalMass=\"5\"/> <MeshTopology name=\"lines\" lines=\"0 1 1 2 2 3 3 4\"/>"

/* SOFA's weight of line (a, b) for point p, coefficient 4. */
static double line_weight(const double a[3], const double b[3], const double p[3])
{
    double sum = 0, l[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    for (int i = 0; i <= 1000; i++) {
        double d[3];
        for (int k = 0; k < 3; k++)
            d[k] = ((l[k] * i) / 1000 + a[k]) - p[k];
        sum += pow(1 / sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), 4);
    }
    return sum * sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]) / 1000;
}

/* A point near the first of four lines along x: at init it stays where it
 * is; frame 0 turned 90 degrees about z moves it by w0 (R0 - I)(p - c0),
 * w0 its line's share among the four lines within 3 levels of line 0
 * (SOFA's weights); J against finite differences and J^T its transpose.
 * With neighborhoodLevel 1 only lines 0 and 1 pull: turning frame 2 (line
 * 2's first frame) no longer moves the point. */
Test(skinning, line_set_skinning)
{
    st_scene *s = body(CHAIN_FRAMES, CHAIN_LINES, "1 0.5 0",
                       "<LineSetSkinningMapping name=\"map\"/>");
    const double p[3] = {1, 0.5, 0};
    assert_vec(points_x(s), p, 3, 1e-12, "mapped at init");
    st_component *map = test_find_object(s, "map");
    st_mstate *fr = (st_mstate *)test_find_object(s, "frames");
    st_system *sys = s->systems[0];
    double *x = st_slice_x(sys->x, fr);
    double c[5][3], w[4], sum = 0;
    for (int k = 0; k < 5; k++)
        memcpy(c[k], x + 7 * k, sizeof c[k]);
    for (int k = 0; k < 4; k++)
        sum += w[k] = line_weight(c[k], c[k + 1], p);
    const double r = sqrt(0.5);
    x[5] = r, x[6] = r; /* frame 0: 90 degrees about z */
    map->cls->mapping->apply(map, &sys->mp, sys->x);
    const double w0 = w[0] / sum;
    const double want[3] = {p[0] + w0 * (-0.5 - 1), p[1] + w0 * (1 - 0.5), 0};
    assert_vec(points_x(s), want, 3, 1e-12, "frame 0 turned");
    check_jacobian(s);
    x[5] = 0, x[6] = 1;
    x[14 + 5] = r, x[14 + 6] = r; /* frame 2 turned instead */
    map->cls->mapping->apply(map, &sys->mp, sys->x);
    cr_assert(fabs(points_x(s)[0] - p[0]) > 1e-4, "level 3: line 2 pulls the point");
    st_scene_destroy(&s);

    s = body(CHAIN_FRAMES, CHAIN_LINES, "1 0.5 0",
             "<LineSetSkinningMapping name=\"map\" neighborhoodLevel=\"1\"/>");
    map = test_find_object(s, "map");
    sys = s->systems[0];
    x = st_slice_x(sys->x, (st_mstate *)test_find_object(s, "frames"));
    x[14 + 5] = r, x[14 + 6] = r;
    map->cls->mapping->apply(map, &sys->mp, sys->x);
    assert_vec(points_x(s), p, 3, 1e-12, "level 1: line 2 is not a neighbour of line 0");
    x[5] = r, x[6] = r;
    map->cls->mapping->apply(map, &sys->mp, sys->x);
    const double w01 = w[0] / (w[0] + w[1]);
    const double want1[3] = {p[0] + w01 * (-0.5 - 1), p[1] + w01 * (1 - 0.5), 0};
    assert_vec(points_x(s), want1, 3, 1e-12, "level 1: lines 0 and 1 share the point");
    st_scene_destroy(&s);

    st_error err = {0};
    cr_assert_neq(load_body(CHAIN_FRAMES, CHAIN_LINES, "1 0.5 0",
                            "<LineSetSkinningMapping name=\"map\" neighborhoodLevel=\"0\"/>", &s,
                            &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "neighborhoodLevel is 0"), "%s", err.msg);
    st_scene_destroy(&s);
}
