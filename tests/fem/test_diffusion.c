/* test_diffusion.c - TetrahedronDiffusionFEMForceField: its force on one
 * tetrahedron against the P1 Laplacian written out here (f = -K T with
 * K_ab = D V grad(l_a) . grad(l_b), the barycentric gradients found by
 * inverting the tetrahedron's matrix), the flux of a linear field, the
 * anisotropic coefficient, the geometry taken from the parent's Vec3d
 * state, the steady state of a bar held at 0 and 1 at its ends (the linear
 * profile), conservation of heat under MeshMatrixMass Vec1d, bad input. */
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
TestSuite(diffusion, .init = setup, .fini = teardown);

#define PLUGINS                                                                                    \
    "  <RequiredPlugin name=\"Sofa.Component.Diffusion\"/>\n"                                      \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Backward\"/>\n"                             \
    "  <RequiredPlugin name=\"Sofa.Component.LinearSolver.Iterative\"/>\n"                         \
    "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Dynamic\"/>\n"                     \
    "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Grid\"/>\n"                        \
    "  <RequiredPlugin name=\"Sofa.Component.Topology.Mapping\"/>\n"                               \
    "  <RequiredPlugin name=\"Sofa.Component.Constraint.Projective\"/>\n"                          \
    "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"

static st_status load_text(const char *text, st_scene **out, st_error *err)
{
    const char *path = test_write_temp("diffusion.scn", text);
    ST_TRY(st_scene_load(T.rt, path, out, err));
    return st_scene_init(*out, err);
}

/* One tetrahedron p (4 x 3) as a Vec3d geometry in the root, the Vec1d
 * field T (4 values) in a child node, with the force field's extra
 * attributes. */
static st_status load_tet(const double *p, const double *temp, const char *ff, st_scene **out,
                          st_error *err)
{
    char pos[512], tv[256], text[4096];
    int k = 0;
    for (int i = 0; i < 12; i++)
        k += snprintf(pos + k, sizeof pos - (size_t)k, "%.17g ", p[i]);
    k = 0;
    for (int i = 0; i < 4; i++)
        k += snprintf(tv + k, sizeof tv - (size_t)k, "%.17g ", temp[i]);
    snprintf(text, sizeof text,
             "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -9.81 0\">\n" PLUGINS
             "  <TetrahedronSetTopologyContainer name=\"topo\" position=\"%s\" "
             "tetrahedra=\"0 1 2 3\"/>\n"
             "  <MechanicalObject name=\"geom\" position=\"%s\"/>\n"
             "  <Node name=\"Heat\">\n"
             "    <EulerImplicitSolver firstOrder=\"true\"/>\n"
             "    <CGLinearSolver iterations=\"100\" tolerance=\"1e-14\" threshold=\"1e-30\"/>\n"
             "    <MechanicalObject name=\"T\" template=\"Vec1\" position=\"%s\"/>\n"
             "    <MeshMatrixMass template=\"Vec1,Vec3\" massDensity=\"1\" topology=\"@../topo\" "
             "geometryState=\"@../geom\"/>\n"
             "    <TetrahedronDiffusionFEMForceField name=\"ff\" template=\"Vec1\" "
             "topology=\"@../topo\" %s/>\n"
             "  </Node>\n"
             "</Node>\n",
             pos, pos, tv, ff);
    return load_text(text, out, err);
}

static st_scene *tet_scene(const double *p, const double *temp, const char *ff)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_tet(p, temp, ff, &s, &err), ST_OK, "%s %s %s", err.where, err.path,
                 err.msg);
    return s;
}

/* The force of the field "ff" on the state "T" at its current values. */
static void force(st_scene *s, double *f, size_t n)
{
    st_component *ff = test_find_object(s, "ff");
    st_mstate *ms = (st_mstate *)test_find_object(s, "T");
    cr_assert_eq(ms->n, n);
    st_system *sys = s->systems[0];
    double *buf = calloc(sys->size_all, sizeof *buf);
    cr_assert_not_null(buf);
    ff->cls->forcefield->add_force(ff, &sys->mp, buf, sys->x, sys->v);
    memcpy(f, st_slice(buf, ms), n * sizeof *f);
    free(buf);
}

/* Barycentric gradients g (4 x 3) and volume of tetrahedron p: the rows of
 * the inverse of [p1-p0, p2-p0, p3-p0] give grad l1..l3, grad l0 is minus
 * their sum. */
static double gradients(const double *p, double g[4][3])
{
    double a[3][3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            a[r][c] = p[3 * (c + 1) + r] - p[r]; /* columns: the edge vectors */
    double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                 a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                 a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    /* inverse rows (cofactors transposed) */
    double inv[3][3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
            inv[r][c] = (a[r1][c1] * a[r2][c2] - a[r1][c2] * a[r2][c1]) / det;
        }
    for (int q = 0; q < 3; q++) {
        g[0][q] = 0;
        for (int j = 1; j < 4; j++) {
            g[j][q] = inv[j - 1][q];
            g[0][q] -= g[j][q];
        }
    }
    return fabs(det) / 6;
}

Test(diffusion, unit_tetrahedron_closed_form)
{
    /* grad l0 = (-1 -1 -1), grad l_i = e_i, V = 1/6: K_0i = -D/6, K_ij = 0
     * (i, j > 0), so T = (0 1 0 0) gives f = (D/6, -D/6, 0, 0). */
    static const double p[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const double t[4] = {0, 1, 0, 0};
    st_scene *s = tet_scene(p, t, "constantDiffusionCoefficient=\"2\"");
    double f[4];
    force(s, f, 4);
    double expect[4] = {2.0 / 6, -2.0 / 6, 0, 0};
    for (int i = 0; i < 4; i++)
        cr_expect_float_eq(f[i], expect[i], 1e-14, "f[%d] = %.17g", i, f[i]);
    st_scene_destroy(&s);
}

Test(diffusion, general_tetrahedron_against_p1_laplacian)
{
    static const double p[12] = {0.1, -0.2, 0.05, 1.3, 0.1, -0.1, 0.2, 0.9, 0.3, -0.1, 0.25, 1.1};
    static const double t[4] = {0.3, -1.2, 2.5, 0.7};
    const double d = 0.75;
    st_scene *s = tet_scene(p, t, "constantDiffusionCoefficient=\"0.75\"");
    double f[4], g[4][3];
    force(s, f, 4);
    double v = gradients(p, g);
    for (int a = 0; a < 4; a++) {
        double ref = 0;
        for (int b = 0; b < 4; b++)
            ref -= d * v * st_v3_dot(g[a], g[b]) * t[b];
        cr_expect_float_eq(f[a], ref, 1e-12, "f[%d] = %.17g, Laplacian %.17g", a, f[a], ref);
    }
    st_scene_destroy(&s);
}

Test(diffusion, linear_field_gives_the_flux_through_the_faces)
{
    /* T = a . x + b: f_i = -D V grad(l_i) . a (the flux of the uniform
     * gradient), which sums to 0 (heat is conserved); a constant field
     * gives no force. */
    static const double p[12] = {0.1, -0.2, 0.05, 1.3, 0.1, -0.1, 0.2, 0.9, 0.3, -0.1, 0.25, 1.1};
    static const double a[3] = {2, -3, 0.5};
    double t[4], g[4][3];
    for (int i = 0; i < 4; i++)
        t[i] = st_v3_dot(a, p + 3 * i) + 4;
    st_scene *s = tet_scene(p, t, "constantDiffusionCoefficient=\"10\"");
    double f[4], sum = 0;
    force(s, f, 4);
    double v = gradients(p, g);
    for (int i = 0; i < 4; i++) {
        cr_expect_float_eq(f[i], -10 * v * st_v3_dot(g[i], a), 1e-12, "f[%d] = %.17g", i, f[i]);
        sum += f[i];
    }
    cr_expect(fabs(sum) < 1e-12, "sum of f = %g", sum);
    st_scene_destroy(&s);
    static const double c[4] = {3, 3, 3, 3};
    s = tet_scene(p, c, "constantDiffusionCoefficient=\"10\"");
    force(s, f, 4);
    for (int i = 0; i < 4; i++)
        cr_expect(fabs(f[i]) < 1e-12, "constant field: f[%d] = %g", i, f[i]);
    st_scene_destroy(&s);
}

Test(diffusion, anisotropy_and_per_tetrahedron_coefficient)
{
    /* Direction a = x, r = 3: c_01 = D V (g0.g1 + 2 (g0.a)(g1.a)) = D (-1 - 2)/6
     * = -D/2, c_02 = D (-1 + 0)/6: T = (0 1 1 0) gives f_0 = D/2 + D/6. The
     * per-tetrahedron coefficient 4 replaces the constant 1. */
    static const double p[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const double t[4] = {0, 1, 1, 0};
    st_scene *s = tet_scene(p, t,
                            "tetraDiffusionCoefficient=\"4\" anisotropyRatio=\"3\" "
                            "transverseAnisotropyArray=\"1 0 0\"");
    double f[4];
    force(s, f, 4);
    cr_expect_float_eq(f[0], 4.0 / 2 + 4.0 / 6, 1e-13, "f0 = %.17g", f[0]);
    cr_expect_float_eq(f[1], -4.0 / 2, 1e-13, "f1 = %.17g", f[1]);
    cr_expect_float_eq(f[2], -4.0 / 6, 1e-13, "f2 = %.17g", f[2]);
    cr_expect_float_eq(f[3], 0.0, 1e-13, "f3 = %.17g", f[3]);
    st_scene_destroy(&s);
}

/* A bar of nx x 2 x 2 grid points cut into tetrahedra, its Vec1d
 * temperature starting at t0 (0 at x = 0, 1 at x = nx - 1, a ragged
 * profile between), with the ends held by a FixedProjectiveConstraint
 * when fix is true. */
static st_scene *bar_scene(int nx, bool fix, double *t0)
{
    char temps[2048], fixed[512], constraint[700] = "", text[8192];
    int k = 0, kf = 0;
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < nx; x++) {
                int i = x + nx * (y + 2 * z);
                t0[i] = x == nx - 1 ? 1.0 : (x == 0 ? 0.0 : 0.3 * ((i * 7) % 5) / 4.0);
                k += snprintf(temps + k, sizeof temps - (size_t)k, "%.17g ", t0[i]);
                if (x == 0 || x == nx - 1)
                    kf += snprintf(fixed + kf, sizeof fixed - (size_t)kf, "%d ", i);
            }
    if (fix)
        snprintf(constraint, sizeof constraint, "<FixedProjectiveConstraint indices=\"%s\"/>",
                 fixed);
    snprintf(text, sizeof text,
             "<Node name=\"root\" dt=\"1\" gravity=\"0 0 0\">\n" PLUGINS
             "  <RegularGridTopology name=\"grid\" n=\"%d 2 2\" min=\"0 0 0\" max=\"%d 1 1\"/>\n"
             "  <Node name=\"Tetra\">\n"
             "    <TetrahedronSetTopologyContainer name=\"topo\"/>\n"
             "    <TetrahedronSetTopologyModifier/>\n"
             "    <Hexa2TetraTopologicalMapping input=\"@../grid\" output=\"@topo\"/>\n"
             "    <MechanicalObject name=\"geom\" position=\"@../grid.position\"/>\n"
             "    <Node name=\"Heat\">\n"
             "      <EulerImplicitSolver firstOrder=\"true\"/>\n"
             "      <CGLinearSolver iterations=\"500\" tolerance=\"1e-20\" threshold=\"1e-30\"/>\n"
             "      <MechanicalObject name=\"T\" template=\"Vec1\" position=\"%s\"/>\n"
             "      <MeshMatrixMass template=\"Vec1,Vec3\" massDensity=\"1\" "
             "topology=\"@../topo\" geometryState=\"@../geom\"/>\n"
             "      %s\n"
             "      <TetrahedronDiffusionFEMForceField name=\"ff\" template=\"Vec1\" "
             "constantDiffusionCoefficient=\"0.5\" tagMechanics=\"geometry\"/>\n"
             "    </Node>\n"
             "  </Node>\n"
             "</Node>\n",
             nx, nx - 1, temps, constraint);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_text(text, &s, &err), ST_OK, "%s %s %s", err.where, err.path, err.msg);
    return s;
}

Test(diffusion, bar_reaches_the_linear_steady_state)
{
    enum { NX = 6 };
    double t0[4 * NX];
    st_scene *s = bar_scene(NX, true, t0);
    st_error err = {0};
    for (int i = 0; i < 200; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "T");
    cr_assert_eq(ms->n, 4 * NX);
    for (int i = 0; i < 4 * NX; i++) {
        double expect = (double)(i % NX) / (NX - 1);
        cr_expect_float_eq(ms->position.r[i], expect, 1e-8, "T[%d] = %.17g, steady %.17g", i,
                           ms->position.r[i], expect);
    }
    st_scene_destroy(&s);
}

Test(diffusion, heat_is_conserved_without_constraints)
{
    /* The Laplacian's rows sum to 0 and K is symmetric, so implicit Euler
     * keeps 1^T M T; the field flattens towards its mean. */
    enum { NX = 5 };
    double t0[4 * NX];
    st_scene *s = bar_scene(NX, false, t0);
    st_component *mass = NULL;
    st_node *heat = test_find_object(s, "T")->node;
    for (size_t i = 0; i < st_node_object_count(heat); i++)
        if (st_component_has_role(st_node_object(heat, i), ST_ROLE_MASS))
            mass = st_node_object(heat, i);
    cr_assert_not_null(mass);
    st_mstate *ms = (st_mstate *)test_find_object(s, "T");
    st_system *sys = s->systems[0];
    double *ones = calloc(sys->size_all, sizeof *ones), *m1 = calloc(sys->size_all, sizeof *m1);
    cr_assert(ones && m1);
    for (size_t i = 0; i < ms->n; i++)
        st_slice(ones, ms)[i] = 1;
    mass->cls->mass->add_m_dx(mass, &sys->mp, m1, ones, 1.0);
    double heat0 = 0, spread0 = 0;
    for (size_t i = 0; i < ms->n; i++)
        heat0 += st_slice(m1, ms)[i] * ms->position.r[i];
    double mean = heat0 / 4.0; /* the bar's volume is 4 x 1 x 1 */
    for (size_t i = 0; i < ms->n; i++)
        spread0 += fabs(ms->position.r[i] - mean);
    st_error err = {0};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    double heat1 = 0, spread1 = 0;
    for (size_t i = 0; i < ms->n; i++) {
        heat1 += st_slice(m1, ms)[i] * ms->position.r[i];
        spread1 += fabs(ms->position.r[i] - mean);
    }
    cr_expect_float_eq(heat1, heat0, 1e-10 * fabs(heat0), "heat %.17g -> %.17g", heat0, heat1);
    cr_expect(spread1 < 0.5 * spread0, "spread %g -> %g", spread0, spread1);
    free(ones);
    free(m1);
    st_scene_destroy(&s);
}

Test(diffusion, bad_input)
{
    static const double p[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const double t[4] = {0, 1, 0, 0};
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_neq(load_tet(p, t, "tetraDiffusionCoefficient=\"1 2\"", &s, &err), ST_OK);
    cr_expect(strstr(err.msg, "2 coefficients for 1 tetrahedra") != NULL, "%s", err.msg);
    st_scene_destroy(&s);
    memset(&err, 0, sizeof err);
    cr_assert_neq(load_tet(p, t, "anisotropyRatio=\"2\"", &s, &err), ST_OK);
    cr_expect(strstr(err.msg, "transverseAnisotropyArray") != NULL, "%s", err.msg);
    st_scene_destroy(&s);
    static const double flat[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    memset(&err, 0, sizeof err);
    cr_assert_neq(load_tet(flat, t, "", &s, &err), ST_OK);
    cr_expect(strstr(err.msg, "no volume") != NULL, "%s", err.msg);
    st_scene_destroy(&s);
}
