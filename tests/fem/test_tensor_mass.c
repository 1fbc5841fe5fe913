/* test_tensor_mass.c - TriangularTensorMassForceField and
 * TetrahedralTensorMassForceField: their force against linear elasticity
 * written out here from the elements' shape gradients (small strain,
 * sigma = lambda tr(eps) I + 2 G eps; plane stress on triangles), SOFA's
 * Lame coefficients, no force under a translation, the tangent against
 * finite differences, a membrane under gravity, and bad input. */
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
TestSuite(tensor_mass, .init = setup, .fini = teardown);

#define PLUGINS                                                                                    \
    "  <RequiredPlugin name=\"Sofa.Component.SolidMechanics.TensorMass\"/>\n"                      \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Forward\"/>\n"                              \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Backward\"/>\n"                             \
    "  <RequiredPlugin name=\"Sofa.Component.LinearSolver.Iterative\"/>\n"                         \
    "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Dynamic\"/>\n"                     \
    "  <RequiredPlugin name=\"Sofa.Component.Constraint.Projective\"/>\n"                          \
    "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"

static st_status load(const char *rest, const char *topo, const char *ff, st_scene **out,
                      st_error *err)
{
    char text[4096];
    snprintf(text, sizeof text,
             "<Node name=\"root\" dt=\"0.01\" gravity=\"0 0 0\">\n" PLUGINS
             "  <Node name=\"Body\">\n"
             "    <EulerExplicitSolver/>\n"
             "    <MechanicalObject name=\"dofs\" position=\"%s\"/>\n"
             "    %s\n"
             "    <UniformMass totalMass=\"1\"/>\n"
             "    %s\n"
             "  </Node>\n"
             "</Node>\n",
             rest, topo, ff);
    const char *path = test_write_temp("tm.scn", text);
    ST_TRY(st_scene_load(T.rt, path, out, err));
    return st_scene_init(*out, err);
}

static st_scene *scene(const char *rest, const char *topo, const char *ff)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load(rest, topo, ff, &s, &err), ST_OK, "%s %s %s", err.where, err.path,
                 err.msg);
    return s;
}

/* The force at positions x (n points). */
static void force_at(st_scene *s, const double *x, size_t n, double *f)
{
    st_component *ff = test_find_object(s, "tm");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    st_system *sys = s->systems[0];
    memcpy(st_slice_x(sys->x, ms), x, 3 * n * sizeof *x);
    double *buf = calloc(sys->size_all, sizeof *buf);
    cr_assert_not_null(buf);
    ff->cls->forcefield->add_force(ff, &sys->mp, buf, sys->x, sys->v);
    memcpy(f, st_slice(buf, ms), 3 * n * sizeof *f);
    free(buf);
}

/* Linear elasticity of one simplex of d+1 vertices in dimension d (2: in
 * the z = 0 plane; 3), written from the barycentric gradients:
 * f_i = -V sigma g_i. */
static void reference_force(int d, const double *p, const double *u, double lambda, double g_mod,
                            double *f)
{
    int nv = d + 1;
    double g[4][3] = {{0}}, vol;
    if (d == 2) {
        double a = (p[3] - p[0]) * (p[7] - p[1]) - (p[4] - p[1]) * (p[6] - p[0]);
        for (int i = 0; i < 3; i++) {
            int j = (i + 1) % 3, k = (i + 2) % 3;
            g[i][0] = (p[3 * j + 1] - p[3 * k + 1]) / a;
            g[i][1] = (p[3 * k] - p[3 * j]) / a;
        }
        vol = fabs(a) / 2;
    } else {
        /* solve for the gradients: rows of the inverse of [p1-p0 p2-p0 p3-p0]^T */
        double m[3][3], inv[3][3];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                m[r][c] = p[3 * (r + 1) + c] - p[c];
        double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                int r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
                inv[c][r] = (m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]) / det;
            }
        for (int i = 1; i < 4; i++)
            for (int c = 0; c < 3; c++)
                g[i][c] = inv[c][i - 1];
        for (int c = 0; c < 3; c++)
            g[0][c] = -(g[1][c] + g[2][c] + g[3][c]);
        vol = fabs(det) / 6;
    }
    double eps[3][3] = {{0}}, sig[3][3];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            for (int i = 0; i < nv; i++)
                eps[a][b] += 0.5 * (u[3 * i + a] * g[i][b] + u[3 * i + b] * g[i][a]);
        }
    double tr = eps[0][0] + eps[1][1] + eps[2][2];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            sig[a][b] = (a == b ? lambda * tr : 0) + 2 * g_mod * eps[a][b];
    for (int i = 0; i < nv; i++)
        for (int a = 0; a < 3; a++)
            f[3 * i + a] = -vol * (sig[a][0] * g[i][0] + sig[a][1] * g[i][1] + sig[a][2] * g[i][2]);
}

static void assert_close(const double *got, const double *want, size_t n, double tol,
                         const char *what)
{
    double scale = 0;
    for (size_t i = 0; i < n; i++)
        scale = fmax(scale, fabs(want[i]));
    cr_assert_gt(scale, 0.0, "%s: the reference is zero", what);
    for (size_t i = 0; i < n; i++)
        cr_assert(fabs(got[i] - want[i]) <= tol * scale, "%s[%zu]: got %.15g, want %.15g", what,
                  i, got[i], want[i]);
}

Test(tensor_mass, tetrahedron_is_linear_elasticity)
{
    static const double p[12] = {0, 0, 0, 1.2, 0.1, 0, 0.2, 0.9, 0.1, 0.1, 0.3, 1.1};
    st_scene *s = scene("0 0 0  1.2 0.1 0  0.2 0.9 0.1  0.1 0.3 1.1",
                        "<TetrahedronSetTopologyContainer tetrahedra=\"0 1 2 3\"/>",
                        "<TetrahedralTensorMassForceField name=\"tm\" youngModulus=\"250\" "
                        "poissonRatio=\"0.35\"/>");
    const double u[12] = {0.01, -0.02, 0.03, 0.05, 0.01, -0.01, -0.02, 0.04, 0.0, 0.03, 0.0, -0.05};
    double x[12], f[12], ref[12];
    for (int i = 0; i < 12; i++)
        x[i] = p[i] + u[i];
    force_at(s, x, 4, f);
    double E = 250, nu = 0.35;
    reference_force(3, p, u, E * nu / ((1 - 2 * nu) * (1 + nu)), E / (2 * (1 + nu)), ref);
    assert_close(f, ref, 12, 1e-12, "tetrahedron");
    /* a translation: no force */
    for (int i = 0; i < 12; i++)
        x[i] = p[i] + (i % 3 == 1 ? 0.7 : -0.2);
    force_at(s, x, 4, f);
    for (int i = 0; i < 12; i++)
        cr_assert(fabs(f[i]) < 1e-12, "translated: f[%d] = %g", i, f[i]);
    st_scene_destroy(&s);
}

Test(tensor_mass, triangle_is_plane_stress_elasticity)
{
    static const double p[9] = {0, 0, 0, 1, 0, 0, 0.2, 1, 0};
    st_scene *s = scene("0 0 0  1 0 0  0.2 1 0",
                        "<TriangleSetTopologyContainer triangles=\"0 1 2\"/>",
                        "<TriangularTensorMassForceField name=\"tm\" youngModulus=\"100\" "
                        "poissonRatio=\"0.3\"/>");
    const double u[9] = {0.01, -0.03, 0, 0.1, 0.02, 0, -0.02, 0.05, 0};
    double x[9], f[9], ref[9];
    for (int i = 0; i < 9; i++)
        x[i] = p[i] + u[i];
    force_at(s, x, 3, f);
    /* SOFA's lambda = E nu / (1 - nu^2) (plane stress); its mu = E (1 - nu)
     * / (1 - nu^2) = E / (1 + nu) is twice the shear modulus */
    double E = 100, nu = 0.3;
    reference_force(2, p, u, E * nu / (1 - nu * nu), E / (2 * (1 + nu)), ref);
    assert_close(f, ref, 9, 1e-12, "triangle");
    /* out of the plane: the cotangent (membrane) term alone, f_k = -(lambda
     * + mu)/2 sum cot (u_k - u_l); a pure translation along z: nothing */
    for (int i = 0; i < 9; i++)
        x[i] = p[i] + (i % 3 == 2 ? 0.3 : 0);
    force_at(s, x, 3, f);
    for (int i = 0; i < 9; i++)
        cr_assert(fabs(f[i]) < 1e-12, "translated: f[%d] = %g", i, f[i]);
    st_scene_destroy(&s);
}

Test(tensor_mass, tangent_matches_finite_differences)
{
    const char *topos[2] = {"<TriangleSetTopologyContainer triangles=\"0 1 2  1 3 2\"/>",
                            "<TetrahedronSetTopologyContainer tetrahedra=\"0 1 2 3  1 2 3 4\"/>"};
    const char *ffs[2] = {"<TriangularTensorMassForceField name=\"tm\" youngModulus=\"300\"/>",
                          "<TetrahedralTensorMassForceField name=\"tm\" youngModulus=\"300\"/>"};
    const char *pos[2] = {"0 0 0  1 0 0  0 1 0  1.1 0.9 0.2",
                          "0 0 0  1 0 0  0 1 0  0 0 1  1 1 1"};
    for (int k = 0; k < 2; k++) {
        st_scene *s = scene(pos[k], topos[k], ffs[k]);
        st_system *sys = s->systems[0];
        for (size_t i = 0; i < sys->xsize; i++)
            sys->x[i] += 0.05 * sin(3.0 * (double)i + 1);
        st_jacobian_check chk = {.struct_size = sizeof chk, .h = 1e-6};
        st_error err = {0};
        cr_assert_eq(st_check_forcefield(test_find_object(s, "tm"), &chk, &err), ST_OK, "%s",
                     err.msg);
        cr_assert_gt(chk.scale, 1.0);
        cr_assert(chk.dforce_error >= 0 && chk.dforce_error < 1e-7, "%d dforce %g", k,
                  chk.dforce_error);
        cr_assert(chk.matrix_error >= 0 && chk.matrix_error < 1e-7, "%d matrix %g", k,
                  chk.matrix_error);
        st_scene_destroy(&s);
    }
}

Test(tensor_mass, a_membrane_hangs_under_gravity)
{
    const char *text =
        "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -9.81 0\">\n" PLUGINS
        "  <Node name=\"Sheet\">\n"
        "    <EulerImplicitSolver rayleighStiffness=\"0.1\" rayleighMass=\"0.1\"/>\n"
        "    <CGLinearSolver iterations=\"200\" tolerance=\"1e-16\" threshold=\"1e-16\"/>\n"
        "    <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0  2 0 0  0 -1 0  1 -1 0  2 -1 0\"/>\n"
        "    <TriangleSetTopologyContainer triangles=\"0 3 1  1 3 4  1 4 2  2 4 5\"/>\n"
        "    <UniformMass totalMass=\"0.6\"/>\n"
        "    <FixedProjectiveConstraint indices=\"0 1 2\"/>\n"
        "    <TriangularTensorMassForceField name=\"tm\" youngModulus=\"1000\" poissonRatio=\"0.3\"/>\n"
        "  </Node>\n"
        "</Node>\n";
    const char *path = test_write_temp("sheet.scn", text);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    for (int i = 0; i < 300; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    const double *x = st_slice_x(s->systems[0]->x, ms);
    /* the free row sags a little and stays in its plane */
    for (int i = 3; i < 6; i++) {
        cr_assert(x[3 * i + 1] < -1.0 && x[3 * i + 1] > -1.1, "y[%d] = %g", i, x[3 * i + 1]);
        cr_assert(fabs(x[3 * i + 2]) < 1e-12, "z[%d] = %g", i, x[3 * i + 2]);
    }
    /* and has come to rest (Rayleigh damping): the velocities are small */
    const double *v = st_slice(s->systems[0]->v, ms);
    for (int i = 9; i < 18; i++)
        cr_assert(fabs(v[i]) < 1e-3, "v[%d] = %g", i, v[i]);
    st_scene_destroy(&s);
}

Test(tensor_mass, degenerate_elements_and_no_topology_are_errors)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_neq(load("0 0 0  1 0 0  2 0 0",
                       "<TriangleSetTopologyContainer triangles=\"0 1 2\"/>",
                       "<TriangularTensorMassForceField name=\"tm\"/>", &s, &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "no rest area"), "%s", err.msg);
    st_scene_destroy(&s);
    memset(&err, 0, sizeof err);
    cr_assert_neq(load("0 0 0  1 0 0  0 1 0  1 1 0",
                       "<TetrahedronSetTopologyContainer tetrahedra=\"0 1 2 3\"/>",
                       "<TetrahedralTensorMassForceField name=\"tm\"/>", &s, &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "no rest volume"), "%s", err.msg);
    st_scene_destroy(&s);
    memset(&err, 0, sizeof err);
    cr_assert_neq(load("0 0 0  1 0 0  0 1 0", "", "<TriangularTensorMassForceField name=\"tm\"/>",
                       &s, &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "No topology"), "%s", err.msg);
    st_scene_destroy(&s);
}

/* Without a topology link the force field takes its context's topology as
 * SOFA does: the last one of its node (a grid followed by the container a
 * topological mapping fills gives the container). */
Test(tensor_mass, the_node_s_last_topology_is_used)
{
    st_scene *s = scene("0 0 0  1 0 0  0 1 0  0 0 1",
                        "<MeshTopology name=\"first\" triangles=\"0 1 2\"/>\n"
                        "    <TetrahedronSetTopologyContainer name=\"last\" tetrahedra=\"0 1 2 3\"/>",
                        "<TetrahedralTensorMassForceField name=\"tm\"/>");
    st_component *ff = test_find_object(s, "tm");
    st_component *topo = *(st_component **)st_component_field_ptr(
        ff, st_component_field(ff, "topology"));
    cr_assert_not_null(topo);
    cr_assert_str_eq(topo->name, "last");
    cr_assert_not(strstr(T.log, "No tetrahedra"), "%s", T.log);
    double x[12] = {0, 0, 0, 1.1, 0, 0, 0, 1, 0, 0, 0, 1}, f[12];
    force_at(s, x, 4, f);
    cr_assert_lt(f[3], -1.0, "the stretched edge pulls back: f1.x = %g", f[3]);
    st_scene_destroy(&s);
}

/* After a triangle is removed (its isolated point with it), the force is
 * the one of a mesh built from the remaining triangle: the edge tensors
 * follow the change. */
Test(tensor_mass, a_removed_triangle_takes_its_tensors_away)
{
    st_scene *s = scene("0 0 0  1 0 0  0 1 0  1.2 1.1 0",
                        "<TriangleSetTopologyContainer name=\"topo\" triangles=\"0 1 2  1 3 2\"/>\n"
                        "    <TriangleSetTopologyModifier/>",
                        "<TriangularTensorMassForceField name=\"tm\" youngModulus=\"200\"/>");
    st_error err = {0};
    cr_assert_eq(st_topology_remove(test_find_object(s, "topo"), ST_ELEM_TRIANGLE,
                                    (const unsigned[]){1}, 1, &err),
                 ST_OK, "%s", err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    cr_assert_eq(ms->n, 3, "the isolated point 3 goes with its triangle");
    double x[9] = {0.02, 0, 0, 1.1, -0.03, 0, 0, 1.05, 0.01}, f[9], ref[9];
    force_at(s, x, 3, f);
    st_scene *one = scene("0 0 0  1 0 0  0 1 0",
                          "<TriangleSetTopologyContainer triangles=\"0 1 2\"/>",
                          "<TriangularTensorMassForceField name=\"tm\" youngModulus=\"200\"/>");
    force_at(one, x, 3, ref);
    assert_close(f, ref, 9, 1e-12, "after the removal");
    st_scene_destroy(&one);
    st_scene_destroy(&s);
}
