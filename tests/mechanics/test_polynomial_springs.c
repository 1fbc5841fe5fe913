/* test_polynomial_springs.c - PolynomialSpringsForceField and
 * PolynomialRestShapeSpringsForceField against hand-computed forces: a
 * polynomial of the strain along the spring (rest-shape: with SOFA's
 * smoothed direction d / sqrt(|d|^2 + e^(shift - scale |d|^2))), the
 * compression rule (no force unless compressible), one polynomial per
 * spring or the first for all; their stiffness against central finite
 * differences of the force (the interaction springs: the whole 3x3 block in
 * extension; the rest-shape springs: SOFA's diagonal); and bad input. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static st_scene *load(test_rt *t, const char *objects)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.001\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, SolidMechanics.Spring]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerExplicitSolver: {}\n"
             "%s",
             objects);
    test_rt_open(t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t->log);
    return s;
}

/* The force field ff's force at the system's x with point p of ms moved to
 * pos (scratch f of the system's size). */
static void force_at(st_component *ff, st_system *sys, st_mstate *ms, size_t p,
                     const double pos[3], double *x, double *f)
{
    memcpy(x, sys->x, sys->xsize_all * sizeof *x);
    memcpy(st_slice_x(x, ms) + 3 * p, pos, 3 * sizeof *pos);
    memset(f, 0, sys->size_all * sizeof *f);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, x, sys->v);
}

static const char *interaction =
    "        - MechanicalObject: {name: a, position: [0, 0, 0, 1, 1, 1]}\n"
    "        - UniformMass: {totalMass: 2}\n"
    "        - name: B\n"
    "          objects:\n"
    "            - MechanicalObject: {name: b, position: [2, 0, 0, 1, 1, 4]}\n"
    "            - UniformMass: {totalMass: 2}\n"
    "            - PolynomialSpringsForceField: {name: ps, object1: '@../a', object2: '@.',\n"
    "                firstObjectPoints: [0, 1], secondObjectPoints: [0, 1], %s}\n";

#define CUBIC "polynomialDegree: [3], polynomialStiffness: [20, 10, 50]"

static st_scene *load_interaction(test_rt *t, const char *extra)
{
    char objects[2048];
    /* "children" must follow the objects: B is the child node of P. */
    snprintf(objects, sizeof objects, interaction, extra);
    char *cut = strstr(objects, "        - name: B\n");
    char buf[2048];
    snprintf(buf, sizeof buf, "%.*s      children:\n%s", (int)(cut - objects), objects,
             cut);
    /* re-indent the child by 2 spaces is not needed: YAML lists under
     * children start at the same column as objects' items. */
    return load(t, buf);
}

/* P(s) = 20 s + 10 s^2 + 50 s^3 */
static double p3(double s) { return 20 * s + 10 * s * s + 50 * s * s * s; }
static double dp3(double s) { return 20 + 20 * s + 150 * s * s; }

Test(polynomial_springs, force_is_the_polynomial_of_the_strain)
{
    test_rt t;
    st_scene *s = load_interaction(&t, CUBIC);
    st_component *ff = test_find_object(s, "ps");
    st_mstate *a = (st_mstate *)test_find_object(s, "a");
    st_mstate *b = (st_mstate *)test_find_object(s, "b");
    st_system *sys = a->system;
    cr_assert_not_null(sys);
    double x[64], f[64];
    /* Spring 0: rest length 2 (computeZeroLength), stretched to 2.5. */
    force_at(ff, sys, b, 0, (double[]){2.5, 0, 0}, x, f);
    const double pv = p3(0.25); /* 6.40625 */
    cr_assert_float_eq(pv, 6.40625, 1e-15);
    cr_assert_float_eq(st_slice(f, a)[0], pv, 1e-13, "%.17g", st_slice(f, a)[0]);
    cr_assert_float_eq(st_slice(f, b)[0], -pv, 1e-13);
    cr_assert_float_eq(st_slice(f, a)[1], 0.0, 1e-15);
    /* Spring 1 untouched: at rest length 3, no force. */
    cr_assert_float_eq(st_slice(f, a)[3 + 2], 0.0, 1e-15);
    cr_assert_float_eq(st_slice(f, b)[3 + 2], 0.0, 1e-15);
    /* Compressed to 1.5: not compressible (default), no force. */
    force_at(ff, sys, b, 0, (double[]){1.5, 0, 0}, x, f);
    cr_assert_eq(st_slice(f, a)[0], 0.0);
    cr_assert_eq(st_slice(f, b)[0], 0.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(polynomial_springs, compressible_springs_push_back)
{
    test_rt t;
    st_scene *s = load_interaction(&t, CUBIC ", compressible: true");
    st_component *ff = test_find_object(s, "ps");
    st_mstate *a = (st_mstate *)test_find_object(s, "a");
    st_mstate *b = (st_mstate *)test_find_object(s, "b");
    double x[64], f[64];
    force_at(ff, a->system, b, 0, (double[]){1.5, 0, 0}, x, f);
    /* strain |1.5 - 2| / 2 = 0.25, sign -1: a pushed to -x, b to +x. */
    cr_assert_float_eq(st_slice(f, a)[0], -6.40625, 1e-13);
    cr_assert_float_eq(st_slice(f, b)[0], 6.40625, 1e-13);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(polynomial_springs, one_polynomial_per_spring_and_given_lengths)
{
    test_rt t;
    /* Two degrees for two springs: spring 0 is 4 s, spring 1 is 1 s + 2 s^2;
     * rest lengths given (1 and 2) instead of computed. */
    st_scene *s = load_interaction(&t, "polynomialDegree: [1, 2], polynomialStiffness: [4, 1, "
                                       "2], computeZeroLength: 0, zeroLength: [1, 2]");
    st_component *ff = test_find_object(s, "ps");
    st_mstate *a = (st_mstate *)test_find_object(s, "a");
    double f[64];
    memset(f, 0, sizeof f);
    st_system *sys = a->system;
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x, sys->v);
    /* Spring 0: length 2, L0 1, s = 1: 4 along +x on a. Spring 1: length
     * 3, L0 2, s = 0.5: 0.5 + 0.5 = 1 along +z on a. */
    cr_assert_float_eq(st_slice(f, a)[0], 4.0, 1e-14);
    cr_assert_float_eq(st_slice(f, a)[5], 1.0, 1e-14);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(polynomial_springs, stiffness_is_the_derivative_of_the_force_in_extension)
{
    test_rt t;
    st_scene *s = load_interaction(&t, CUBIC);
    st_component *ff = test_find_object(s, "ps");
    st_mstate *a = (st_mstate *)test_find_object(s, "a");
    st_mstate *b = (st_mstate *)test_find_object(s, "b");
    st_system *sys = a->system;
    double x[64], f[64], fp[64], fm[64], df[64], dx[64];
    const double pos[3] = {2.3, 0.4, -0.2}; /* length 2.3775 > 2 */
    force_at(ff, sys, b, 0, pos, x, f);
    /* Column c of K for a moved point b0: finite differences against
     * add_dforce with dx = e_c on b0 (the Jacobian of the last add_force). */
    const double h = 1e-6;
    for (int c = 0; c < 3; c++) {
        double q[3] = {pos[0], pos[1], pos[2]};
        q[c] += h;
        force_at(ff, sys, b, 0, q, x, fp);
        q[c] -= 2 * h;
        force_at(ff, sys, b, 0, q, x, fm);
        force_at(ff, sys, b, 0, pos, x, f);
        memset(dx, 0, sizeof dx);
        memset(df, 0, sizeof df);
        st_slice(dx, b)[c] = 1.0;
        ff->cls->forcefield->add_dforce(ff, &sys->mp, df, dx, 1.0, 0.0);
        for (int r = 0; r < 3; r++) {
            const double fd_a = (st_slice(fp, a)[r] - st_slice(fm, a)[r]) / (2 * h);
            const double fd_b = (st_slice(fp, b)[r] - st_slice(fm, b)[r]) / (2 * h);
            cr_assert_float_eq(st_slice(df, a)[r], fd_a, 1e-6, "dfa[%d]/dxb[%d]: %g vs %g", r, c,
                               st_slice(df, a)[r], fd_a);
            cr_assert_float_eq(st_slice(df, b)[r], fd_b, 1e-6, "dfb[%d]/dxb[%d]: %g vs %g", r, c,
                               st_slice(df, b)[r], fd_b);
        }
    }
    /* Along the spring the stiffness is P'(s) / L0. */
    const double len = sqrt(2.3 * 2.3 + 0.16 + 0.04), st = (len - 2) / 2;
    const double u[3] = {2.3 / len, 0.4 / len, -0.2 / len};
    memset(dx, 0, sizeof dx);
    memset(df, 0, sizeof df);
    memcpy(st_slice(dx, b), u, sizeof u);
    ff->cls->forcefield->add_dforce(ff, &sys->mp, df, dx, 1.0, 0.0);
    const double along = -(st_slice(df, b)[0] * u[0] + st_slice(df, b)[1] * u[1] +
                           st_slice(df, b)[2] * u[2]);
    cr_assert_float_eq(along, dp3(st) / 2, 1e-12, "%.17g vs %.17g", along, dp3(st) / 2);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static const char *rest_shape =
    "        - MechanicalObject: {name: p, position: [1.1, 0, 0, 0, 0.5, 0],\n"
    "                             rest_position: [0, 0, 0, 0, 0, 0]}\n"
    "        - UniformMass: {totalMass: 2}\n"
    "        - PolynomialRestShapeSpringsForceField: {name: rs, %s}\n";

#define QUADRATIC "polynomialStiffness: [10, 10], polynomialDegree: [2]"

static st_scene *load_rest(test_rt *t, const char *extra)
{
    char objects[2048];
    snprintf(objects, sizeof objects, rest_shape, extra);
    return load(t, objects);
}

Test(polynomial_rest_shape_springs, one_explicit_step_gives_the_smoothed_force)
{
    test_rt t;
    /* smoothShift 0, smoothScale 1 (SOFA's defaults), initialLength 1. */
    st_scene *s = load_rest(&t, QUADRATIC);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_mstate *p = (st_mstate *)test_find_object(s, "p");
    /* Point 0: d = 1.1, s = 1.1, P = 11 + 12.1 = 23.1,
     * D = sqrt(1.21 + e^-1.21); f = -P d / D; symplectic Euler, m = 1:
     * v = dt f. */
    const double den = sqrt(1.21 + exp(-1.21));
    const double f0 = -23.1 * 1.1 / den;
    cr_assert_float_eq(p->velocity.r[0], 0.001 * f0, 1e-15, "%.17g vs %.17g", p->velocity.r[0],
                       0.001 * f0);
    /* Point 1: d = 0.5 along y, s = 0.5, P = 5 + 2.5 = 7.5. */
    const double den1 = sqrt(0.25 + exp(-0.25));
    cr_assert_float_eq(p->velocity.r[4], 0.001 * (-7.5 * 0.5 / den1), 1e-15);
    cr_assert_eq(p->velocity.r[3], 0.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(polynomial_rest_shape_springs, sharp_smoothing_and_per_point_polynomials)
{
    test_rt t;
    /* smoothScale 1e7 makes the correction vanish away from 0: the force is
     * P(|d| / L0) along d. One polynomial per point: [10, 10] (degree 2)
     * for point 0, [3] (degree 1) for point 1; lengths 2 and 0.25. */
    st_scene *s = load_rest(&t, "smoothShift: 0.0001, smoothScale: 10000000, "
                                "polynomialDegree: [2, 1], polynomialStiffness: [10, 10, 3], "
                                "initialLength: [2, 0.25]");
    st_component *ff = test_find_object(s, "rs");
    st_mstate *p = (st_mstate *)test_find_object(s, "p");
    st_system *sys = p->system;
    double f[16] = {0};
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x, sys->v);
    /* s = 0.55: 5.5 + 3.025 = 8.525; point 1: s = 2, 6. */
    cr_assert_float_eq(f[0], -8.525, 1e-12, "%.17g", f[0]);
    cr_assert_float_eq(f[4], -6.0, 1e-12, "%.17g", f[4]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The diagonal stiffness against finite differences of the force at p0
 * moved to pos; returns the force. */
static void check_diagonal_fd(st_component *ff, st_system *sys, st_mstate *p, const double pos[3],
                              double tol)
{
    double x[16], f[16], fp[16], fm[16], df[16], dx[16];
    const double h = 1e-6;
    for (int c = 0; c < 3; c++) {
        double q[3] = {pos[0], pos[1], pos[2]};
        q[c] += h;
        force_at(ff, sys, p, 0, q, x, fp);
        q[c] -= 2 * h;
        force_at(ff, sys, p, 0, q, x, fm);
        force_at(ff, sys, p, 0, pos, x, f);
        memset(dx, 0, sizeof dx);
        memset(df, 0, sizeof df);
        dx[c] = 1.0;
        ff->cls->forcefield->add_dforce(ff, &sys->mp, df, dx, 1.0, 0.0);
        const double fd = (fp[c] - fm[c]) / (2 * h);
        cr_assert_float_eq(df[c], fd, tol * fabs(fd), "axis %d: %.10g vs %.10g", c, df[c], fd);
        /* Only the diagonal: SOFA's approximation couples no axes. */
        cr_assert_eq(df[(c + 1) % 3], 0.0);
        /* Point 1 is not listed: no force on it. */
        cr_assert_eq(f[4], 0.0);
    }
}

Test(polynomial_rest_shape_springs, diagonal_stiffness_is_the_derivative_when_smoothing_is_sharp)
{
    test_rt t;
    /* SOFA's scene's smoothing: away from 0 the direction is d / |d|, and
     * SOFA's per-axis formula is the diagonal of the exact Jacobian. */
    st_scene *s = load_rest(&t, QUADRATIC ", points: [0], smoothShift: 0.0001, "
                                          "smoothScale: 10000000");
    st_component *ff = test_find_object(s, "rs");
    st_mstate *p = (st_mstate *)test_find_object(s, "p");
    check_diagonal_fd(ff, p->system, p, (double[]){0.7, -0.4, 0.3}, 1e-6);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(polynomial_rest_shape_springs, diagonal_stiffness_is_sofas_formula)
{
    test_rt t;
    /* With the default smoothing (shift 0, scale 1) SOFA's formula is not
     * the exact derivative (its P' term has e' u_a^2 where the derivative
     * has d_a^2 / (|d| D)): we keep SOFA's, checked by hand here. */
    st_scene *s = load_rest(&t, QUADRATIC ", points: [0]");
    st_component *ff = test_find_object(s, "rs");
    st_mstate *p = (st_mstate *)test_find_object(s, "p");
    st_system *sys = p->system;
    double x[16], f[16], df[16], dx[16];
    const double pos[3] = {0.7, -0.4, 0.3};
    force_at(ff, sys, p, 0, pos, x, f);
    const double n2 = 0.49 + 0.16 + 0.09, len = sqrt(n2);
    const double e = exp(-n2), den = sqrt(n2 + e), ed = 1 - e;
    const double pv = 10 * len + 10 * n2, dp = 10 + 20 * len;
    for (int c = 0; c < 3; c++) {
        memset(dx, 0, sizeof dx);
        memset(df, 0, sizeof df);
        dx[c] = 1.0;
        ff->cls->forcefield->add_dforce(ff, &sys->mp, df, dx, 1.0, 0.0);
        const double u = pos[c] / den;
        const double j = (dp - pv / den) * ed * u * u + pv / den;
        cr_assert_float_eq(df[c], -j, 1e-13, "axis %d: %.17g vs %.17g", c, df[c], -j);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void expect_init_error(const char *objects, const char *needle)
{
    test_rt t;
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, SolidMechanics.Spring]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerExplicitSolver: {}\n"
             "        - MechanicalObject: {position: [0, 0, 0, 1, 0, 0]}\n"
             "        - UniformMass: {totalMass: 2}\n"
             "%s",
             objects);
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t.log);
    cr_assert_neq(st_scene_init(s, &err), ST_OK, "init should fail (%s)", needle);
    cr_assert(strstr(err.msg, needle), "message '%s' lacks '%s'", err.msg, needle);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(polynomial_springs, bad_input_is_an_error)
{
    expect_init_error("        - PolynomialRestShapeSpringsForceField: {polynomialDegree: [3], "
                      "polynomialStiffness: [1, 2]}\n",
                      "add up to 3 coefficients");
    expect_init_error("        - PolynomialRestShapeSpringsForceField: {points: [5]}\n",
                      "out of range");
    expect_init_error("        - PolynomialRestShapeSpringsForceField: {initialLength: [0]}\n",
                      "must be > 0");
    expect_init_error("        - PolynomialSpringsForceField: {firstObjectPoints: [0],\n"
                      "            secondObjectPoints: [0]}\n",
                      "rest length 0");
    expect_init_error("        - PolynomialSpringsForceField: {firstObjectPoints: [0, 1],\n"
                      "            secondObjectPoints: [1]}\n",
                      "different");
    expect_init_error("        - PolynomialSpringsForceField: {firstObjectPoints: [0],\n"
                      "            secondObjectPoints: [1], computeZeroLength: 0}\n",
                      "zeroLength must give");
}
