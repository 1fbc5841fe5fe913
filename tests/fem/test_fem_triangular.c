/* test_fem_triangular.c - TriangularFEMForceField and
 * TriangularFEMForceFieldOptim: the values SOFA's own tests check
 * (TriangleFEMForceField_test: the element data of two triangles, the 40x40
 * membrane after 100 steps, wrong, default and empty inputs), the patch
 * test, rigid-motion invariance, principal stress outputs, and the three
 * solver paths on the membrane. The Jacobian checks are in test_jacobians. */
#include <stdio.h>

#include "plugins/SolidMechanics.FEM.Elastic/triangular_fem.h"
#include "fem_test_util.h"
#include "sofa_fem_values.h"

static st_component *ff_of(st_scene *s, const char *cls)
{
    return fem_find(s, "FEM", cls);
}

#define TRF "TriangularFEMForceField"

#define TWO_TRIANGLES(CLS, E, NU, METHOD)                                                         \
    "<Node name='root'><DefaultAnimationLoop/>"                                                   \
    "<MechanicalObject position='0 0 0  1 0 0  0 1 0  1 1 1'/>"                                   \
    "<TriangleSetTopologyContainer triangles='0 1 2  1 3 2'/>"                                    \
    "<" CLS " name='FEM' youngModulus='" E "' poissonRatio='" NU "' method='" METHOD "'/>"        \
    "<DiagonalMass massDensity='0.1'/></Node>"

/* SOFA's element data: rest positions in the frame, R (element to world),
 * material matrix, strain-displacement (6x3). */
static void check_element(const trf_elem *e, const double P[3][3], const double R[9],
                          const double K[9], const double J[6][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            fem_near(e->rest[i][j], P[i][j], 1e-4, "rotated initial position");
            fem_near(e->R[3 * i + j], R[3 * i + j], 1e-4, "rotation");
            fem_near(e->K[3 * i + j], K[3 * i + j], 1e-4, "material stiffness");
        }
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 3; j++)
            fem_near(e->J[i][j], J[i][j], 1e-4, "strain-displacement");
}

/* SOFA: TriangleFEMForceField_test, checkTriangularFEMForceField_init. */
Test(fem_triangular, sofa_init)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, TWO_TRIANGLES(TRF, "100", "0.3", "large"));
    trf_fem *f = (trf_fem *)ff_of(s, TRF);
    cr_assert_eq(f->ne, 2);
    check_element(&f->e[0], sofa_tri_P[0], sofa_tri_R[0], sofa_tri_K[0], sofa_tri_J[0]);
    check_element(&f->e[1], sofa_tri_P[1], sofa_tri_R[1], sofa_tri_K[1], sofa_tri_J[1]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA: checkWrongAttributes and checkDefaultAttributes: warnings, then
 * 5000, 0.45 and large. */
Test(fem_triangular, sofa_wrong_and_default_attributes)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, TWO_TRIANGLES(TRF, "-100", "-0.3", "toto"));
    trf_fem *f = (trf_fem *)ff_of(s, TRF);
    cr_assert_eq(f->meth, TRF_LARGE);
    fem_near(f->young_modulus.r[0], 5000, 0, "youngModulus");
    fem_near(f->poisson_ratio.r[0], 0.45, 0, "poissonRatio");
    st_scene_destroy(&s);
    s = fem_load_xml(&t, "<Node name='root'><DefaultAnimationLoop/>"
                     "<MechanicalObject position='0 0 0  1 0 0  0 1 0'/>"
                     "<TriangleSetTopologyContainer triangles='0 1 2'/>"
                     "<TriangularFEMForceField name='FEM'/></Node>");
    f = (trf_fem *)ff_of(s, TRF);
    cr_assert_eq(f->meth, TRF_LARGE);
    fem_near(f->young_modulus.r[0], 5000, 0, "default youngModulus");
    fem_near(f->poisson_ratio.r[0], 0.45, 0, "default poissonRatio");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA: checkEmptyTopology (a warning) and checkNoTopology (an error). */
Test(fem_triangular, sofa_empty_and_missing_topology)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, "<Node name='root'><DefaultAnimationLoop/>"
                               "<MechanicalObject position='0 0 0  1 0 0  0 1 0'/>"
                               "<TriangleSetTopologyContainer/>"
                               "<TriangularFEMForceField name='FEM'/></Node>");
    trf_fem *f = (trf_fem *)ff_of(s, TRF);
    cr_assert_eq(f->ne, 0);
    fem_step(s, 1, 0.01);
    st_scene_destroy(&s);
    const char *xml = "<Node name='root'><DefaultAnimationLoop/>"
                      "<MechanicalObject position='0 0 0  1 0 0  0 1 0'/>"
                      "<TriangularFEMForceField name='FEM'/></Node>";
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(t.rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK);
    cr_assert_neq(st_scene_init(s, &err), ST_OK, "init without a topology must fail");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA's 40x40 membrane hanging from two corners (gravity +y). */
#define MEMBRANE(CLS, SOLVER, METHOD)                                                             \
    "<Node name='root' gravity='0 10 0' dt='0.01'><DefaultAnimationLoop/>"                        \
    "<RegularGridTopology name='grid' n='40 40 1' min='0 0 0' max='10 10 0'/>"                    \
    "<Node name='Membrane'>" SOLVER "<MechanicalObject name='dof' position='@../grid.position'/>" \
    "<TriangleSetTopologyContainer name='topo' position='@../grid.position' "                     \
    "triangles='@../grid.triangles'/>"                                                            \
    "<TriangleSetTopologyModifier name='Modifier'/>"                                              \
    "<" CLS " name='FEM' youngModulus='100' poissonRatio='0.3' method='" METHOD "'/>"             \
    "<DiagonalMass name='mass' massDensity='0.1'/>"                                               \
    "<FixedProjectiveConstraint name='fix' indices='0 39'/></Node></Node>"
#define SOFA_CG                                                                                   \
    "<EulerImplicitSolver/><CGLinearSolver iterations='20' tolerance='1e-5' threshold='1e-6'/>"

/* SOFA: checkTriangularFEMForceField_values (vertex 1515 after 100 steps,
 * the data of triangle 42). */
Test(fem_triangular, sofa_grid_values)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, MEMBRANE(TRF, SOFA_CG, "large"));
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    cr_assert_eq(ms->n, 1600);
    const double *p = ms->position.r + 3 * 1515;
    fem_near(p[0], 8.97436, 1e-4, "x1515"), fem_near(p[1], 9.48718, 1e-4, "y1515");
    fem_step(s, 100, 0.01);
    p = ms->position.r + 3 * 1515;
    fem_near(p[0], 8.9135, 1e-4, "x1515");
    fem_near(p[1], 14.2499, 1e-4, "y1515");
    fem_near(p[2], 0, 1e-4, "z1515");
    trf_fem *f = (trf_fem *)ff_of(s, TRF);
    check_element(&f->e[42], sofa_membrane_P, sofa_membrane_R, sofa_membrane_K,
                  sofa_membrane_J);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The 12x12 membrane hanging from two corners under the three solver
 * paths (vertex 137, on the far edge, falls along +y). */
static void solver_paths(const char *cls, const char *method)
{
    char fmt[2048];
    snprintf(fmt, sizeof fmt,
             "<Node name='root' gravity='0 10 0' dt='0.01'><DefaultAnimationLoop/>"
             "<RegularGridTopology name='grid' n='12 12 1' min='0 0 0' max='10 10 0'/>"
             "<Node name='Membrane'>%%s"
             "<MechanicalObject name='dof' position='@../grid.position'/>"
             "<MeshTopology name='topo' triangles='@../grid.triangles'/>"
             "<%s name='FEM' youngModulus='100' poissonRatio='0.3' method='%s'/>"
             "<DiagonalMass name='mass' massDensity='0.1'/>"
             "<FixedProjectiveConstraint name='fix' indices='0 11'/></Node></Node>",
             cls, method);
    fem_three_solvers(fmt, 137, 1, 10, 0.01);
}

Test(fem_triangular, solver_paths_large) { solver_paths(TRF, "large"); }
Test(fem_triangular, solver_paths_small) { solver_paths(TRF, "small"); }

/* A flat 3x3-vertex square (vertex 4 interior) of 8 triangles, in the xy
 * plane (small) or rotated out of it (large). */
#define SQUARE(CLS, METHOD, EXTRA)                                                                \
    "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/><EulerExplicitSolver/>"             \
    "<MechanicalObject name='dof' position='0 0 0  0.5 0 0  1 0 0  0 0.5 0  0.45 0.55 0  "       \
    "1 0.5 0  "                                                                                   \
    "0 1 0  0.5 1 0  1 1 0'/>"                                                                    \
    "<MeshTopology triangles='0 1 4  0 4 3  1 2 5  1 5 4  3 4 7  3 7 6  4 5 8  4 8 7'/>"          \
    "<" CLS " name='FEM' youngModulus='1000' poissonRatio='0.3' method='" METHOD "' " EXTRA       \
    "/></Node>"

/* Patch test: u = A x + b in the plane; the interior vertex feels no force
 * and every element carries the stress C A_sym (small: exactly; large
 * with a rigid rotation on top: to second order in the strain). */
static void patch(const char *method, double angle, double tol)
{
    test_rt t;
    fem_open_rt(&t);
    char xml[2048];
    snprintf(xml, sizeof xml, SQUARE(TRF, "%s", "computePrincipalStress='true'"), method);
    st_scene *s = fem_load_xml(&t, xml);
    trf_fem *fem = (trf_fem *)ff_of(s, TRF);
    st_system *sys = s->systems[0];
    const double A[4] = {1e-3, 4e-4, 4e-4, -2e-3};
    const double b[3] = {0.1, -0.2, 0.05};
    double c = cos(angle), sn = sin(angle);
    const double Q[9] = {c, 0, -sn, 0, 1, 0, sn, 0, c}; /* about y: out of the plane */
    size_t n = sys->nall;
    double *x = calloc(3 * n, sizeof *x), *f = calloc(3 * n, sizeof *f);
    for (size_t i = 0; i < n; i++) {
        const double *p = fem->ms->rest_position.r + 3 * i;
        double u[3] = {p[0] + A[0] * p[0] + A[1] * p[1], p[1] + A[2] * p[0] + A[3] * p[1], 0}, q[3];
        fem_mulv3(q, Q, u);
        for (int k = 0; k < 3; k++)
            x[3 * i + k] = q[k] + b[k];
    }
    fem_forces_at(&fem->base, sys, x, f);
    const unsigned inner[1] = {4};
    fem_assert_interior_free(f, n, inner, 1, tol, 1e-3, method);
    /* Plane stress of the strain (exx, eyy, gxy) = (A0, A3, A1 + A2). */
    double E = 1000, nu = 0.3, k = E / (1 - nu * nu);
    double sx = k * (A[0] + nu * A[3]), sy = k * (nu * A[0] + A[3]), txy = k * (1 - nu) / 2 * 8e-4;
    double m = 0.5 * (sx + sy), d = 0.5 * (sx - sy), r = sqrt(d * d + txy * txy);
    double smax = fabs(m + r) > fabs(m - r) ? fabs(m + r) : fabs(m - r);
    /* SOFA's stress is the material matrix times the area times the strain,
     * with J of the current shape (small too): exact to the strain's order. */
    for (size_t i = 0; i < fem->ne; i++)
        fem_near(fem->max_stress.r[i] / fem->e[i].area, smax, 1e-2 * smax, "principal stress");
    /* Vertex 0 lies on triangles 0 and 1: their area-weighted average. */
    const double *ms = fem->max_stress.r;
    double a0 = fem->e[0].area, a1 = fem->e[1].area;
    fem_near(fem->vertex_stress.r[0], (ms[0] * a0 + ms[1] * a1) / (a0 + a1), 1e-12 * smax,
         "stress per vertex");
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(fem_triangular, patch_test_small) { patch("small", 0.0, 1e-12); }
Test(fem_triangular, patch_test_large_rotated) { patch("large", 0.7, 1e-2); }

/* A rigidly moved (large) rest shape feels no force. */
Test(fem_triangular, rigid_motion_large)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, SQUARE(TRF, "large", ""));
    trf_fem *fem = (trf_fem *)ff_of(s, TRF);
    fem_assert_rigid_free(&fem->base, s->systems[0], fem->ms->rest_position.r, 1e-11);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- TriangularFEMForceFieldOptim ---- */

#define TRO "TriangularFEMForceFieldOptim"

/* SOFA: checkTriangularFEMOptim_init: rest shape in the frame, frame,
 * material matrix times area (SOFA's test multiplies its (gamma + mu, ...)
 * matrix by 1 / (4 ss_factor) = area). */
Test(fem_triangular, optim_sofa_init)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, TWO_TRIANGLES(TRO, "100", "0.3", "large"));
    trf_fem *f = (trf_fem *)ff_of(s, TRO);
    cr_assert_eq(f->ne, 2);
    for (int id = 0; id < 2; id++) {
        const trf_elem *e = &f->e[id];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                fem_near(e->rest[i][j], sofa_tri_P[id][i][j], 1e-4,
                         "rotated initial position");
                fem_near(e->K[3 * i + j], sofa_tri_K[id][3 * i + j], 1e-4,
                         "material stiffness * area");
            }
        /* SOFA's frame (2x3) is the first two columns of R, transposed. */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                fem_near(e->R[3 * i + j], sofa_tri_R[id][3 * i + j], 1e-4, "frame");
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA: checkTriangularFEMOptim_values: vertex 1515 after 100 steps (SOFA
 * notes its difference from TriangularFEMForceField), triangle 42. */
Test(fem_triangular, optim_sofa_grid_values)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, MEMBRANE(TRO, SOFA_CG, "large"));
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    fem_step(s, 100, 0.01);
    const double *p = ms->position.r + 3 * 1515;
    fem_near(p[0], 9.03591, 1e-4, "x1515");
    fem_near(p[1], 12.8705, 1e-4, "y1515");
    fem_near(p[2], 0, 1e-4, "z1515");
    trf_fem *f = (trf_fem *)ff_of(s, TRO);
    const trf_elem *e = &f->e[42];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            fem_near(e->rest[i][j], sofa_membrane_P[i][j], 1e-4, "rotated initial position");
            fem_near(e->K[3 * i + j], sofa_membrane_K[3 * i + j], 1e-4,
                     "material stiffness * area");
            if (j < 2) /* SOFA's own tolerance for this frame: 0.1 */
                fem_near(e->R[3 * i + j], sofa_membrane_R[3 * i + j], 1e-1, "frame");
        }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(fem_triangular, optim_solver_paths) { solver_paths(TRO, "large"); }

Test(fem_triangular, optim_wrong_method_warns_and_is_large)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, TWO_TRIANGLES(TRO, "-100", "-0.3", "small"));
    trf_fem *f = (trf_fem *)ff_of(s, TRO);
    cr_assert_eq(f->meth, TRF_LARGE);
    fem_near(f->young_modulus.r[0], 5000, 0, "youngModulus");
    fem_near(f->poisson_ratio.r[0], 0.45, 0, "poissonRatio");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Patch test with the rest-shape J: a linear in-plane map, rotated out of
 * the plane, gives no interior force (to second order) and stressMaxValue =
 * the largest principal value of minus half the stress (SOFA's convention). restScale
 * 1.1 pre-stretches: the rest shape itself is then under compression. */
Test(fem_triangular, optim_patch_and_stress_max)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, SQUARE(TRO, "large", "computePrincipalStress='true'"));
    trf_fem *fem = (trf_fem *)ff_of(s, TRO);
    st_system *sys = s->systems[0];
    const double A[4] = {1e-3, 4e-4, 4e-4, -2e-3};
    const double c = cos(0.7), sn = sin(0.7);
    const double Q[9] = {c, 0, -sn, 0, 1, 0, sn, 0, c};
    size_t n = sys->nall;
    double *x = calloc(3 * n, sizeof *x), *f = calloc(3 * n, sizeof *f);
    for (size_t i = 0; i < n; i++) {
        const double *p = fem->ms->rest_position.r + 3 * i;
        double u[3] = {p[0] + A[0] * p[0] + A[1] * p[1], p[1] + A[2] * p[0] + A[3] * p[1], 0};
        fem_mulv3(x + 3 * i, Q, u);
    }
    fem_forces_at(&fem->base, sys, x, f);
    const unsigned inner[1] = {4};
    fem_assert_interior_free(f, n, inner, 1, 1e-2, 1e-3, "optim");
    double E = 1000, nu = 0.3, k = E / (1 - nu * nu);
    double sx = k * (A[0] + nu * A[3]), sy = k * (nu * A[0] + A[3]), txy = k * (1 - nu) / 2 * 8e-4;
    double m = 0.5 * (sx + sy), d = 0.5 * (sx - sy), r = sqrt(d * d + txy * txy);
    /* SOFA's strain is J^T (rest - current): its stress is minus half the
     * physical one, and its largest value here is -(m - r) / 2. */
    fem_near(fem->stress_max_value, 0.5 * (r - m), 1e-2 * (r - m), "stressMaxValue");
    free(x), free(f);
    st_scene_destroy(&s);
    /* restScale: the same rest shape, scaled, pulls on itself */
    s = fem_load_xml(&t, SQUARE(TRO, "large", "restScale='1.1'"));
    fem = (trf_fem *)ff_of(s, TRO);
    sys = s->systems[0];
    x = calloc(3 * n, sizeof *x), f = calloc(3 * n, sizeof *f);
    memcpy(x, fem->ms->rest_position.r, 3 * n * sizeof *x);
    fem_forces_at(&fem->base, sys, x, f);
    /* corner 0 at the origin is pushed outwards (-x, -y): the rest is larger */
    cr_assert_lt(f[0], 0.0);
    cr_assert_lt(f[1], 0.0);
    fem_near(fem->e[0].rest[1][0], 0.55, 1e-12, "scaled rest edge");
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The shipped scene scenes/cloth_triangular_fem.yaml: after 0.5 s (a
 * quarter of its swing about the held edge) the two held corners have not
 * moved, the free corners have fallen by more than half the cloth's size,
 * and every edge of the membrane is stretched by less than 10%. */
Test(fem_triangular, cloth_scene_falls)
{
    test_rt t;
    fem_open_rt(&t);
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/cloth_triangular_fem.yaml", SETTEE_SOURCE_DIR);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(t.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    fem_step(s, 50, 0.01);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    trf_fem *fem = (trf_fem *)test_find_object(s, "fem");
    cr_assert_eq(ms->n, 400);
    cr_assert_eq(fem->ne, 722);
    const double *x = ms->position.r, *x0 = ms->rest_position.r;
    for (int c = 0; c < 3; c++) {
        fem_near(x[c], x0[c], 0, "held corner 0");
        fem_near(x[3 * 19 + c], x0[3 * 19 + c], 0, "held corner 19");
    }
    cr_assert_lt(x[3 * 380 + 1], 0.5, "free corner 380 must fall: y = %g", x[3 * 380 + 1]);
    cr_assert_lt(x[3 * 399 + 1], 0.5, "free corner 399 must fall: y = %g", x[3 * 399 + 1]);
    for (size_t i = 0; i < fem->ne; i++)
        for (int k = 0; k < 3; k++) {
            unsigned a = fem->e[i].v[k], b = fem->e[i].v[(k + 1) % 3];
            double l = 0, l0 = 0;
            for (int c = 0; c < 3; c++) {
                l += (x[3 * a + c] - x[3 * b + c]) * (x[3 * a + c] - x[3 * b + c]);
                l0 += (x0[3 * a + c] - x0[3 * b + c]) * (x0[3 * a + c] - x0[3 * b + c]);
            }
            cr_assert(sqrt(l / l0) < 1.10, "edge %u-%u stretched by %g", a, b, sqrt(l / l0));
        }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- TriangularAnisotropicFEMForceField ---- */

#define TRA "TriangularAnisotropicFEMForceField"

/* One triangle whose first edge lies along x: its element frame is the
 * world frame, so the material matrix is SOFA's Q turned by the fiber
 * angle. */
static trf_fem *aniso_one(test_rt *t, st_scene **s, const char *extra)
{
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/><EulerExplicitSolver/>"
             "<MechanicalObject position='0 0 0  2 0 0  0.5 1 0'/>"
             "<MeshTopology triangles='0 1 2'/>"
             "<" TRA " name='FEM' youngModulus='3000' poissonRatio='0.3' %s/></Node>",
             extra);
    *s = fem_load_xml(t, xml);
    return (trf_fem *)ff_of(*s, TRA);
}

Test(fem_triangular, anisotropic_material)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s;
    double E = 3000, nu = 0.3, E2 = 1000, nu2 = nu * E2 / E;
    double q11 = E / (1 - nu * nu2), q12 = nu * E2 / (1 - nu * nu2), q22 = E2 / (1 - nu * nu2);
    double q66 = E / (2 * (1 + nu));
    /* fiber along x (default angle 0, default transverse modulus 1000) */
    trf_fem *f = aniso_one(&t, &s, "");
    const double K0[9] = {q11, q12, 0, q12, q22, 0, 0, 0, q66};
    for (int k = 0; k < 9; k++)
        fem_near(f->e[0].K[k], K0[k], 1e-9 * q11, "K, fiber along x");
    fem_near(f->local_fiber.r[0], 1, 1e-12, "local fiber x");
    fem_near(f->local_fiber.r[1], 0, 1e-12, "local fiber y");
    st_scene_destroy(&s);
    /* fiber along y: the two directions swap */
    f = aniso_one(&t, &s, "fiberAngle='90'");
    const double K90[9] = {q22, q12, 0, q12, q11, 0, 0, 0, q66};
    for (int k = 0; k < 9; k++)
        fem_near(f->e[0].K[k], K90[k], 1e-9 * q11, "K, fiber along y");
    /* in the (ab, ac) basis: ab = (2, 0), ac = (0.5, 1): y = -0.25 ab + ac */
    fem_near(f->local_fiber.r[0], -0.25 / sqrt(1.0625), 1e-12, "local fiber a");
    fem_near(f->local_fiber.r[1], 1 / sqrt(1.0625), 1e-12, "local fiber b");
    st_scene_destroy(&s);
    /* transverse modulus = E: isotropic, whatever the angle; equal to
     * TriangularFEMForceField's matrix divided by the area (SOFA's
     * anisotropic matrix has no area factor) */
    f = aniso_one(&t, &s, "fiberAngle='33' transverseYoungModulus='3000'");
    double k = E / (1 - nu * nu);
    const double Ki[9] = {k, k * nu, 0, k * nu, k, 0, 0, 0, k * (1 - nu) / 2};
    for (int j = 0; j < 9; j++)
        fem_near(f->e[0].K[j], Ki[j], 1e-9 * k, "isotropic K");
    st_scene_destroy(&s);
    /* concentric fibers about (1, 5, 0): n x (center - centroid) with n = z,
     * centroid (5/6, 1/3): direction (-(5 - 1/3), 1 - 5/6) */
    f = aniso_one(&t, &s, "fiberCenter='1 5 0'");
    double gx = -(5 - 1.0 / 3), gy = 1 - 5.0 / 6, gn = sqrt(gx * gx + gy * gy);
    double cs = gx / gn, sn = gy / gn, c2 = cs * cs, s2 = sn * sn;
    double k11 = c2 * c2 * q11 + 2 * c2 * s2 * (q12 + 2 * q66) + s2 * s2 * q22;
    fem_near(f->e[0].K[0], k11, 1e-9 * q11,
         "K11, concentric fibers");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A rigidly moved rest shape feels no force (large). */
Test(fem_triangular, anisotropic_rigid_motion)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s =
        fem_load_xml(&t, SQUARE(TRA, "large", "fiberAngle='25' transverseYoungModulus='300'"));
    st_component *ff = ff_of(s, TRA);
    st_system *sys = s->systems[0];
    trf_fem *fem = (trf_fem *)ff;
    fem_assert_rigid_free(ff, sys, fem->ms->rest_position.r, 1e-11);
    size_t n = sys->nall;
    double *x = calloc(3 * n, sizeof *x), *f = calloc(3 * n, sizeof *f);
    /* and pulling the corner along x (25 degrees from the stiff fiber) meets
     * more resistance than along y (65 degrees from it) */
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            x[3 * i + k] = fem->ms->rest_position.r[3 * i + k];
    x[3 * 8] += 0.01;
    fem_forces_at(ff, sys, x, f);
    double fx = f[3 * 8];
    x[3 * 8] -= 0.01, x[3 * 8 + 1] += 0.01;
    fem_forces_at(ff, sys, x, f);
    cr_assert_lt(fx, 0.0);
    cr_assert_lt(f[3 * 8 + 1], 0.0);
    cr_assert_gt(-fx, -f[3 * 8 + 1], "fx %g, fy %g", fx, f[3 * 8 + 1]);
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* One triangle (rest a = 0, b = (2, 0, 0), c = (0, 1, 0)) stretched 10%
 * along ab, then rotated by 0.7 about z and moved: plane stress gives
 * sigma_xx = E eps / (1 - nu^2), sigma_yy = nu sigma_xx; with area 1 and
 * the shape gradients (1/2, 0) of b and (0, 1) of c, f_b = -R (sigma_xx /
 * 2, 0, 0) and f_c = -R (0, sigma_yy, 0), f_a = -f_b - f_c (by hand). The
 * Optim's add_dforce (SOFA's order of operations) equals its assembled
 * matrix (settee's generic 6x3 products) at that state. */
Test(fem_triangular, optim_stretched_rotated_triangle_by_hand)
{
    const double E = 600, nu = 0.3, eps = 0.1, th = 0.7, co = cos(th), si = sin(th);
    double loc[3][2] = {{0, 0}, {2 * (1 + eps), 0}, {0, 1}}, x[9];
    for (int k = 0; k < 3; k++) {
        x[3 * k] = co * loc[k][0] - si * loc[k][1] + 3;
        x[3 * k + 1] = si * loc[k][0] + co * loc[k][1] - 1;
        x[3 * k + 2] = 0.5;
    }
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/><EulerExplicitSolver/>"
             "<MechanicalObject position='%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g "
             "%.17g' rest_position='0 0 0 2 0 0 0 1 0'/>"
             "<TriangleSetTopologyContainer triangles='0 1 2'/>"
             "<" TRO " name='FEM' youngModulus='600' poissonRatio='0.3'/></Node>",
             x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8]);
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, xml);
    st_system *sys = s->systems[0];
    st_component *c = ff_of(s, TRO);
    const st_forcefield_ops *ops = c->cls->forcefield;
    double f[9] = {0}, v[9] = {0};
    ops->add_force(c, &sys->mp, f, sys->x, v);
    double sxx = E * eps / (1 - nu * nu), syy = nu * sxx;
    double fb[3] = {-co * sxx / 2, -si * sxx / 2, 0}, fc[3] = {si * syy, -co * syy, 0};
    double want[9] = {-fb[0] - fc[0], -fb[1] - fc[1], 0, fb[0], fb[1], 0, fc[0], fc[1], 0};
    for (int i = 0; i < 9; i++)
        cr_assert(fabs(f[i] - want[i]) <= 1e-12 * sxx, "f[%d] = %.17g, by hand %.17g", i, f[i],
                  want[i]);
    st_matrix *m = NULL;
    st_error err = {0};
    cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, sys, 0.0, 0.0, -2.0, &err), ST_OK, "%s", err.msg);
    double dx[9] = {0.3, -0.1, 0.2, -0.4, 0.5, 0.1, 0.2, 0.7, -0.6}, df[9] = {0}, Kdx[9];
    ops->add_dforce(c, &sys->mp, df, dx, -2.0, 0.0);
    st_matrix_mul(m, Kdx, dx);
    for (int i = 0; i < 9; i++)
        cr_assert(fabs(df[i] - Kdx[i]) <= 1e-12 * sxx, "df[%d] = %.17g, K dx %.17g", i, df[i],
                  Kdx[i]);
    st_matrix_destroy(&m);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
