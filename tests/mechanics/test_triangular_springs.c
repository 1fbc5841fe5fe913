/* test_triangular_springs.c - TriangularQuadraticSpringsForceField and
 * TriangularBiquadraticSpringsForceField on an equilateral triangle scaled
 * about its centre, where every edge stretches alike and the force on each
 * vertex points to the centre: its size against the closed forms of the
 * springs' stiffnesses (cot = 1/sqrt 3), with and without the angular
 * couplings and the compression penalty; the tangent against finite
 * differences; initialPoints; a degenerate triangle. */
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
TestSuite(triangular_springs, .init = setup, .fini = teardown);

#define PLUGINS                                                                                    \
    "  <RequiredPlugin name=\"Sofa.Component.SolidMechanics.Spring\"/>\n"                          \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Forward\"/>\n"                              \
    "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Dynamic\"/>\n"                     \
    "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"

#define H3 0.86602540378443864676 /* sqrt(3)/2 */

static st_status load(const char *pos, const char *tris, const char *ff, st_scene **out,
                      st_error *err)
{
    char text[4096];
    snprintf(text, sizeof text,
             "<Node name=\"root\" dt=\"0.01\" gravity=\"0 0 0\">\n" PLUGINS
             "  <Node name=\"Body\">\n"
             "    <EulerExplicitSolver/>\n"
             "    <MechanicalObject name=\"dofs\" position=\"%s\"/>\n"
             "    <TriangleSetTopologyContainer triangles=\"%s\"/>\n"
             "    <UniformMass totalMass=\"1\"/>\n"
             "    %s\n"
             "  </Node>\n"
             "</Node>\n",
             pos, tris, ff);
    const char *path = test_write_temp("ts.scn", text);
    ST_TRY(st_scene_load(T.rt, path, out, err));
    return st_scene_init(*out, err);
}

static st_scene *equilateral(const char *ff)
{
    char pos[256];
    snprintf(pos, sizeof pos, "0 0 0  1 0 0  0.5 %.17g 0", H3);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load(pos, "0 1 2", ff, &s, &err), ST_OK, "%s %s", err.path, err.msg);
    return s;
}

/* The force on each vertex after scaling the triangle by `scale` about its
 * centre; returns the component towards the centre (the same on all three,
 * checked) and checks the force has no other component. */
static double radial_force(st_scene *s, double scale)
{
    st_component *ff = test_find_object(s, "ts");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    st_system *sys = s->systems[0];
    const double p[9] = {0, 0, 0, 1, 0, 0, 0.5, H3, 0};
    const double c[3] = {0.5, H3 / 3, 0};
    double *x = st_slice_x(sys->x, ms);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            x[3 * i + k] = c[k] + scale * (p[3 * i + k] - c[k]);
    double *f = calloc(sys->size_all, sizeof *f);
    cr_assert_not_null(f);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x, sys->v);
    const double *fs = st_slice(f, ms);
    double r[3];
    for (int i = 0; i < 3; i++) {
        double u[3] = {c[0] - p[3 * i], c[1] - p[3 * i + 1], 0};
        double n = sqrt(u[0] * u[0] + u[1] * u[1]);
        r[i] = (fs[3 * i] * u[0] + fs[3 * i + 1] * u[1]) / n;
        double t = fs[3 * i] * u[1] / n - fs[3 * i + 1] * u[0] / n;
        cr_assert(fabs(t) < 1e-9 * (1 + fabs(r[i])) && fabs(fs[3 * i + 2]) < 1e-12,
                  "vertex %d: not radial (%g %g %g)", i, fs[3 * i], fs[3 * i + 1], fs[3 * i + 2]);
    }
    cr_assert(fabs(r[1] - r[0]) < 1e-9 * (1 + fabs(r[0])) &&
              fabs(r[2] - r[0]) < 1e-9 * (1 + fabs(r[0])));
    free(f);
    return r[0];
}

static void assert_close(double got, double want, const char *what)
{
    cr_assert(fabs(got - want) <= 1e-9 * (1 + fabs(want)), "%s: got %.15g, want %.15g", what,
              got, want);
}

/* E 120, nu 0.25: SOFA's lambda = E nu / (1 - nu^2) = 32, mu = E / (1 + nu) = 96 */
#define LAM 32.0
#define MU 96.0

Test(triangular_springs, quadratic_stretch)
{
    /* s = L0^2 (2 cot^2 (l+m) + m) / (8A), g = L0^2 (2 cot^2 (l+m) - m) / (8A),
     * A = sqrt 3 / 4, cot^2 = 1/3; each edge pulls its ends with s e (+ 2 g e
     * with the angular couplings), e = L - L0; radial resultant sqrt 3 times */
    double A = sqrt(3.0) / 4, s = (2.0 / 3 * (LAM + MU) + MU) / (8 * A),
           g = (2.0 / 3 * (LAM + MU) - MU) / (8 * A), eps = 0.02;
    st_scene *sc = equilateral("<TriangularQuadraticSpringsForceField name=\"ts\" "
                               "youngModulus=\"120\" poissonRatio=\"0.25\" "
                               "useAngularSprings=\"false\"/>");
    assert_close(radial_force(sc, 1 + eps), sqrt(3.0) * s * eps, "springs only");
    st_scene_destroy(&sc);
    sc = equilateral("<TriangularQuadraticSpringsForceField name=\"ts\" youngModulus=\"120\" "
                     "poissonRatio=\"0.25\"/>");
    assert_close(radial_force(sc, 1 + eps), sqrt(3.0) * (s + 2 * g) * eps, "with angular");
    assert_close(radial_force(sc, 1), 0.0, "at rest");
    st_scene_destroy(&sc);
}

Test(triangular_springs, biquadratic_stretch_and_compression)
{
    /* s = (2 cot^2 (l+m) + m) / (16A), g = (2 cot^2 (l+m) - m) / (16A); an
     * edge pulls with (s + 2g) e L, e = L^2 - L0^2 */
    double A = sqrt(3.0) / 4, s = (2.0 / 3 * (LAM + MU) + MU) / (16 * A),
           g = (2.0 / 3 * (LAM + MU) - MU) / (16 * A);
    st_scene *sc = equilateral("<TriangularBiquadraticSpringsForceField name=\"ts\" "
                               "youngModulus=\"120\" poissonRatio=\"0.25\"/>");
    double L = 1.03;
    assert_close(radial_force(sc, L), sqrt(3.0) * (s + 2 * g) * (L * L - 1) * L, "stretched");
    /* compressed: J = L^2 < 1 adds 3 (l+m) |J-1|^3 |n x dp| / 2 outwards,
     * |dp| = L */
    L = 0.9;
    double J = L * L, comp = 3 * (LAM + MU) * pow(1 - J, 3) * L / 2;
    assert_close(radial_force(sc, L), sqrt(3.0) * (s + 2 * g) * (L * L - 1) * L - comp,
                 "compressed");
    st_scene_destroy(&sc);
    sc = equilateral("<TriangularBiquadraticSpringsForceField name=\"ts\" youngModulus=\"120\" "
                     "poissonRatio=\"0.25\" compressible=\"false\"/>");
    assert_close(radial_force(sc, L), sqrt(3.0) * (s + 2 * g) * (L * L - 1) * L,
                 "compressed, not compressible");
    st_scene_destroy(&sc);
}

static void check_fd(const char *ff, double perturb, double tol)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load("0 0 0  1 0 0  0 1 0  1.1 0.9 0.2", "0 1 2  1 3 2", ff, &s, &err), ST_OK,
                 "%s", err.msg);
    st_system *sys = s->systems[0];
    for (size_t i = 0; i < sys->xsize; i++)
        sys->x[i] += perturb * sin(2.0 * (double)i + 0.5);
    st_jacobian_check chk = {.struct_size = sizeof chk, .h = 1e-6};
    cr_assert_eq(st_check_forcefield(test_find_object(s, "ts"), &chk, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_gt(chk.scale, 1.0);
    cr_assert(chk.dforce_error >= 0 && chk.dforce_error < tol, "%s: dforce %g", ff,
              chk.dforce_error);
    cr_assert(chk.matrix_error >= 0 && chk.matrix_error < tol, "%s: matrix %g", ff,
              chk.matrix_error);
    st_scene_destroy(&s);
}

Test(triangular_springs, tangent_matches_finite_differences)
{
    /* the edge springs alone: SOFA's tangent is exact anywhere */
    check_fd("<TriangularQuadraticSpringsForceField name=\"ts\" useAngularSprings=\"false\"/>",
             0.08, 1e-6);
    check_fd("<TriangularBiquadraticSpringsForceField name=\"ts\" useAngularSprings=\"false\"/>",
             0.08, 1e-6);
    /* with the angular couplings: exact at the rest shape */
    check_fd("<TriangularQuadraticSpringsForceField name=\"ts\"/>", 0.0, 1e-6);
    check_fd("<TriangularBiquadraticSpringsForceField name=\"ts\"/>", 0.0, 1e-6);
}

Test(triangular_springs, initial_points_and_bad_triangles)
{
    st_scene *s = equilateral("<TriangularQuadraticSpringsForceField name=\"ts\"/>");
    st_component *ff = test_find_object(s, "ts");
    const st_array *ip = st_component_field_ptr(ff, st_component_field(ff, "initialPoints"));
    cr_assert_eq(ip->n, 3);
    cr_assert(fabs(ip->r[7] - H3) < 1e-15, "initialPoints[2].y = %g", ip->r[7]);
    st_scene_destroy(&s);
    st_error err = {0};
    cr_assert_neq(load("0 0 0  1 0 0  2 0 0", "0 1 2",
                       "<TriangularBiquadraticSpringsForceField name=\"ts\"/>", &s, &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "no rest area"), "%s", err.msg);
    st_scene_destroy(&s);
}
