/* test_fem_corot.c - TetrahedralCorotationalFEMForceField: the values
 * SOFA's own tests check (BaseTetrahedronFEMForceField_test instantiated for
 * it: the element data of one tetrahedron, the 4x10x4 grid beam after 100
 * steps, wrong and empty inputs), the patch test, rigid-motion invariance
 * of large and polar, the von Mises output, and the three solver paths
 * (explicit, implicit matrix-free CG, implicit assembled SparseLDL) on one
 * beam. The Jacobian checks are in test_jacobians. */
#include <stdio.h>

#include "plugins/SolidMechanics.FEM.Elastic/tetrahedron_fem.h"
#include "fem_test_util.h"
#include "sofa_fem_values.h"

static tetra_fem *fem_of(st_scene *s)
{
    return (tetra_fem *)fem_find(s, "FEM", "TetrahedralCorotationalFEMForceField");
}

/* SOFA's element data: initial and current rotation, rest shape in the
 * frame, material (diagonal, off-diagonal, shear), strain-displacement. */
static void check_tet(const tet *e, const double R0[9], const double R[9], const double P[4][3],
                      const double K[3], const double J[12][6])
{
    for (int i = 0; i < 9; i++) {
        fem_near(e->R0[i], R0[i], 1e-4, "initial rotation");
        fem_near(e->R[i], R[i], 1e-4, "current rotation");
    }
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++)
            fem_near(e->rest[k][c], P[k][c], 1e-4, "rotated initial position");
    fem_near(e->kd, K[0], 1e-3, "K(0,0)");
    fem_near(e->ko, K[1], 1e-4, "K(0,1)");
    fem_near(e->ks, K[2], 1e-4, "K(3,3)");
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 6; j++)
            fem_near(e->J[i][j], J[i][j], 1e-4, "strain-displacement");
}

#define ONE_TETRA(E, NU, METHOD)                                                                  \
    "<Node name='root' gravity='0 0 0'>"                                                          \
    "<DefaultAnimationLoop/><EulerExplicitSolver/>"                                               \
    "<MechanicalObject name='dofs' position='0 0 0  1 0 0  0 1 0  0 0 1'/>"                       \
    "<TetrahedronSetTopologyContainer name='topo' tetrahedra='2 3 1 0'/>"                         \
    "<TetrahedralCorotationalFEMForceField name='FEM' youngModulus='" E "' poissonRatio='" NU     \
    "' method='" METHOD "'/>"                                                                     \
    "<DiagonalMass massDensity='0.1'/></Node>"

/* SOFA: TetrahedralCorotationalFEMForceField_test, init (checkInit). */
Test(fem_corot, sofa_single_tetrahedron_init)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, ONE_TETRA("1000", "0.3", "large"));
    tetra_fem *f = fem_of(s);
    cr_assert_eq(f->ne, 1);
    const tet *e = &f->e[0];
    check_tet(e, sofa_tet1_R, sofa_tet1_R, sofa_tet1_P, sofa_tet1_K, sofa_tet1_J);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA: checkWrongAttributes: negative modulus and ratio, unknown method:
 * warnings, 5000, 0.45 and large. */
Test(fem_corot, sofa_wrong_attributes)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, ONE_TETRA("-100", "-0.3", "toto"));
    tetra_fem *f = fem_of(s);
    cr_assert_eq(f->meth, M_LARGE);
    fem_near(f->young_modulus.r[0], 5000, 0, "youngModulus");
    fem_near(f->poisson_ratio.r[0], 0.45, 0, "poissonRatio");
    cr_assert_eq(f->base.state, ST_CSTATE_VALID);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA: emptyTology (a warning, no error) and noTopology (an error). */
Test(fem_corot, sofa_empty_and_missing_topology)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, "<Node name='root'><DefaultAnimationLoop/>"
                               "<MechanicalObject position='0 0 0  1 0 0  0 1 0  0 0 1'/>"
                               "<TetrahedronSetTopologyContainer/>"
                               "<TetrahedralCorotationalFEMForceField name='FEM'/></Node>");
    tetra_fem *f = fem_of(s);
    cr_assert_eq(f->ne, 0);
    cr_assert_eq(f->base.state, ST_CSTATE_VALID);
    fem_step(s, 1, 0.01);
    st_scene_destroy(&s);
    const char *xml = "<Node name='root'><DefaultAnimationLoop/>"
                      "<MechanicalObject position='0 0 0  1 0 0  0 1 0  0 0 1'/>"
                      "<TetrahedralCorotationalFEMForceField name='FEM'/></Node>";
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(t.rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK);
    cr_assert_neq(st_scene_init(s, &err), ST_OK, "init without a topology must fail");
    cr_assert(strstr(err.msg, "topology") != NULL, "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

#define BEAM(SOLVER, CLS, METHOD)                                                                 \
    "<Node name='root' gravity='0 10 0' dt='0.01'>"                                               \
    "<DefaultAnimationLoop/>"                                                                     \
    "<RegularGridTopology name='grid' n='4 10 4' min='0 0 20' max='10 40 30'/>"                   \
    "<Node name='Beam'>" SOLVER "<MechanicalObject name='dof' position='@../grid.position'/>"     \
    "<TetrahedronSetTopologyContainer name='topo'/>"                                              \
    "<TetrahedronSetTopologyModifier name='Modifier'/>"                                           \
    "<TetrahedronSetGeometryAlgorithms name='GeomAlgo'/>"                                         \
    "<Hexa2TetraTopologicalMapping input='@../grid' output='@topo'/>"                             \
    "<BoxROI name='ROI1' box='-1 -1 0 10 1 50'/>"                                                 \
    "<FixedProjectiveConstraint mstate='@dof' name='fixC' indices='@ROI1.indices'/>"              \
    "<DiagonalMass name='mass' massDensity='1.0'/>"                                               \
    "<" CLS " name='FEM' youngModulus='600' poissonRatio='0.3' "                                  \
    "method='" METHOD "'/>"                                                                       \
    "</Node></Node>"
#define TCF "TetrahedralCorotationalFEMForceField"
#define FTCF "FastTetrahedralCorotationalForceField"
#define GRID_BEAM(SOLVER, METHOD) BEAM(SOLVER, TCF, METHOD)
#define FAST_BEAM(SOLVER, METHOD) BEAM(SOLVER, FTCF, METHOD)
#define SOFA_CG                                                                                   \
    "<EulerImplicitSolver/><CGLinearSolver iterations='20' tolerance='1e-5' threshold='1e-6'/>"

/* SOFA: TetrahedralCorotationalFEMForceField_test, FEMValues (vertex 159
 * after 100 steps, and the data of element 100). */
Test(fem_corot, sofa_grid_beam_values)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, GRID_BEAM(SOFA_CG, "large"));
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    cr_assert_eq(ms->n, 160);
    fem_step(s, 100, 0.01);
    const double *p = ms->position.r + 3 * 159;
    for (int c = 0; c < 3; c++)
        fem_near(p[c], sofa_beam_tip[c], 1e-4, "vertex 159");
    tetra_fem *f = fem_of(s);
    const tet *e = &f->e[100];
    check_tet(e, sofa_beam_R0, sofa_beam_R, sofa_beam_P, sofa_beam_K, sofa_beam_J);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The beam of force field cls under the three solver paths (its tip,
 * vertex 159, sags along +y). */
static void solver_paths(const char *cls, const char *method)
{
    char fmt[4096];
    snprintf(fmt, sizeof fmt, BEAM("%%s", "%s", "%s"), cls, method);
    fem_three_solvers(fmt, 159, 1, 20, 0.01);
}

Test(fem_corot, solver_paths_large) { solver_paths(TCF, "large"); }
Test(fem_corot, solver_paths_polar) { solver_paths(TCF, "polar"); }
Test(fem_corot, solver_paths_small) { solver_paths(TCF, "small"); }

/* A unit cube of 3x3x3 grid vertices cut into 48 tetrahedra (vertex 13 is
 * the only interior one). */
#define CUBE(METHOD, EXTRA)                                                                       \
    "<Node name='root' gravity='0 0 0' dt='0.01'>"                                                \
    "<DefaultAnimationLoop/>"                                                                     \
    "<RegularGridTopology name='grid' n='3 3 3' min='0 0 0' max='1 1 1'/>"                        \
    "<Node name='Body'><EulerImplicitSolver/><SparseLDLSolver/>"                                  \
    "<MechanicalObject name='dof' position='@../grid.position'/>"                                 \
    "<TetrahedronSetTopologyContainer name='topo'/>"                                              \
    "<TetrahedronSetTopologyModifier/>"                                                           \
    "<Hexa2TetraTopologicalMapping input='@../grid' output='@topo'/>"                             \
    "<TetrahedralCorotationalFEMForceField name='FEM' youngModulus='1000' poissonRatio='0.3' "    \
    "method='" METHOD "' " EXTRA "/>"                                                             \
    "</Node></Node>"

/* Patch test: u = A x + b; the interior vertex feels no force (small; and
 * large and polar for a symmetric A with a rotation on top, where the
 * corotational strain is the linear one up to second order). */
static void patch(const char *method, double rot_angle, double tol)
{
    test_rt t;
    fem_open_rt(&t);
    char xml[4096];
    snprintf(xml, sizeof xml, CUBE("%s", ""), method);
    st_scene *s = fem_load_xml(&t, xml);
    tetra_fem *fem = fem_of(s);
    st_system *sys = s->systems[0];
    cr_assert_eq(fem->ne, 48);
    const double A[9] = {1e-3, 2e-4, -3e-4, 2e-4, -2e-3, 1e-4, -3e-4, 1e-4, 1.5e-3};
    const double b[3] = {0.1, -0.2, 0.05};
    double c = cos(rot_angle), sn = sin(rot_angle);
    const double Q[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1};
    size_t n = sys->nall;
    double *x = calloc(3 * n, sizeof *x), *f = calloc(3 * n, sizeof *f);
    for (size_t i = 0; i < n; i++) {
        const double *p = fem->initial_points.r + 3 * i;
        double u[3], q[3];
        fem_mulv3(u, A, p);
        for (int k = 0; k < 3; k++)
            u[k] += p[k];
        fem_mulv3(q, Q, u);
        for (int k = 0; k < 3; k++)
            x[3 * i + k] = q[k] + b[k];
    }
    fem_forces_at(&fem->base, sys, x, f);
    const unsigned inner[1] = {13};
    fem_assert_interior_free(f, n, inner, 1, tol, 1e-3, method);
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(fem_corot, patch_test_small) { patch("small", 0.0, 1e-12); }
/* Second-order terms of a 2e-3 strain: residual within 1e-2 of the forces. */
Test(fem_corot, patch_test_large_rotated) { patch("large", 0.8, 1e-2); }
Test(fem_corot, patch_test_polar_rotated) { patch("polar", 0.8, 1e-2); }

static void check_rigid(const char *method)
{
    test_rt t;
    fem_open_rt(&t);
    char xml[4096];
    snprintf(xml, sizeof xml, CUBE("%s", ""), method);
    st_scene *s = fem_load_xml(&t, xml);
    tetra_fem *fem = fem_of(s);
    fem_assert_rigid_free(&fem->base, s->systems[0], fem->initial_points.r, 1e-11);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(fem_corot, rigid_motion_large) { check_rigid("large"); }
Test(fem_corot, rigid_motion_polar) { check_rigid("polar"); }

/* computeVonMisesStress (method large): SOFA takes the gradient of the
 * displacement in the element frame with the shape functions of the world
 * rest shape, and its Lame coefficients from its material matrix, divided
 * by 36 V. On a tetrahedron whose large frame is the world frame (first
 * edge along x, first face in xy), under a pure stretch diag(e1, e2, e3):
 * vonMises * 36 V = the von Mises stress of the strain (to second order);
 * small and polar give 0, as in SOFA. */
static double von_mises_one(const char *method, double *want)
{
    test_rt t;
    fem_open_rt(&t);
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/><EulerExplicitSolver/>"
             "<MechanicalObject name='dofs' position='0 0 0  2 0 0  0 1 0  0 0 1.5'/>"
             "<MeshTopology tetrahedra='0 1 2 3'/>"
             "<TetrahedralCorotationalFEMForceField name='FEM' youngModulus='1000' "
             "poissonRatio='0.3' method='%s' computeVonMisesStress='true'/></Node>",
             method);
    st_scene *s = fem_load_xml(&t, xml);
    tetra_fem *fem = fem_of(s);
    st_system *sys = s->systems[0];
    const double e[3] = {1e-4, -2e-4, 3e-4};
    double x[12], f[12];
    for (int i = 0; i < 12; i++)
        x[i] = fem->initial_points.r[i] * (1 + e[i % 3]);
    memcpy(fem->ms->position.r, x, sizeof x);
    fem_forces_at(&fem->base, sys, x, f);
    double E = 1000, nu = 0.3, V = 2 * 1 * 1.5 / 6.0;
    double lam = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    double tr = e[0] + e[1] + e[2], sg[3];
    for (int k = 0; k < 3; k++)
        sg[k] = (2 * mu * e[k] + lam * tr) / (36 * V);
    *want = sqrt(sg[0] * sg[0] + sg[1] * sg[1] + sg[2] * sg[2] - sg[0] * sg[1] - sg[1] * sg[2] -
                 sg[2] * sg[0]);
    cr_assert_eq(fem->von_mises_elem.n, 1);
    cr_assert_eq(fem->von_mises_node.n, 4);
    double vm = fem->von_mises_elem.r[0];
    for (int i = 0; i < 4; i++)
        fem_near(fem->von_mises_node.r[i], vm, 0, "von Mises per node (one element)");
    st_scene_destroy(&s);
    test_rt_close(&t);
    return vm;
}

Test(fem_corot, von_mises)
{
    double want, got = von_mises_one("large", &want);
    cr_assert_gt(want, 0.0);
    fem_near(got, want, 1e-3 * want, "von Mises, large");
    fem_near(von_mises_one("small", &want), 0, 0, "von Mises, small");
    fem_near(von_mises_one("polar", &want), 0, 0, "von Mises, polar");
}

/* SOFA has no potential energy for this force field (0); settee's is the
 * strain energy: a uniform 1% stretch of the unit cube, e = 0.01 I, gives
 * 1/2 (lambda tr(e)^2 + 2 mu e:e) V = 0.375 (E 1000, nu 0.3). */
Test(fem_corot, potential_energy_uniform_stretch)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, CUBE("small", ""));
    tetra_fem *fem = fem_of(s);
    st_system *sys = s->systems[0];
    size_t n = 3 * sys->nall;
    double *x = calloc(n, sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = fem->initial_points.r[i] * 1.01;
    const double lambda = 1000 * 0.3 / (1.3 * 0.4), mu = 1000 / 2.6;
    const double want = 0.5 * (lambda * 9e-4 + 2 * mu * 3e-4);
    fem_near(fem->base.cls->forcefield->potential_energy(&fem->base, &sys->mp, x), want,
             1e-12 * want, "strain energy of a uniform stretch");
    free(x);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- FastTetrahedralCorotationalForceField ---- */

#include "plugins/SolidMechanics.FEM.Elastic/fast_tetra.h"

static ftc_fem *fast_of(st_scene *s)
{
    return (ftc_fem *)fem_find(s, "FEM", "FastTetrahedralCorotationalForceField");
}

static void check_fast_element(const ftc_elem *e, const double sv[4][3], const double Ld[4][9],
                               const double L[6][9])
{
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++)
            fem_near(e->sv[j][k], sv[j][k], 1e-4, "shape vector");
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 9; k++)
            fem_near(e->Ld[j][k], Ld[j][k], 1e-4, "linearDfDxDiag");
    for (int j = 0; j < 6; j++)
        for (int k = 0; k < 9; k++)
            fem_near(e->L[j][k], L[j][k], 1e-4, "linearDfDx");
}

/* SOFA: FastTetrahedralCorotationalForceField_test, checkInit: the rest
 * frame, shape vectors and stiffness blocks of the tetrahedron "2 3 1 0". */
Test(fem_fast, sofa_single_tetrahedron_init)
{
    test_rt t;
    fem_open_rt(&t);
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/><EulerExplicitSolver/>"
             "<MechanicalObject name='dofs' position='0 0 0  1 0 0  0 1 0  0 0 1'/>"
             "<TetrahedronSetTopologyContainer name='topo' tetrahedra='2 3 1 0'/>"
             "<FastTetrahedralCorotationalForceField name='FEM' youngModulus='1000' "
             "poissonRatio='0.3' method='large'/><DiagonalMass massDensity='0.1'/></Node>");
    st_scene *s = fem_load_xml(&t, xml);
    ftc_fem *f = fast_of(s);
    cr_assert_eq(f->ne, 1);
    const ftc_elem *e = &f->e[0];
    double Rt[9];
    fem_transpose3(Rt, e->rest_rot);
    for (int i = 0; i < 9; i++)
        fem_near(Rt[i], sofa_tet1_R[i], 1e-4, "rest rotation (transposed)");
    const double sv[4][3] = {{0, 1, 0}, {0, 0, 1}, {1, 0, 0}, {-1, -1, -1}};
    const double Ld[4][9] = {{64.1026, 0, 0, 0, 224.359, 0, 0, 0, 64.1026},
                             {64.1026, 0, 0, 0, 64.1026, 0, 0, 0, 224.359},
                             {224.359, 0, 0, 0, 64.1026, 0, 0, 0, 64.1026},
                             {352.5641, 160.25641, 160.25641, 160.25641, 352.5641, 160.25641,
                              160.25641, 160.25641, 352.5641}};
    const double L[6][9] = {{0, 0, 0, 0, 0, 64.1026, 0, 96.1538, 0},
                            {0, 96.1538, 0, 64.1026, 0, 0, 0, 0, 0},
                            {-64.1026, -96.1538, 0, -64.1026, -224.359, -64.1026, 0, -96.1538,
                             -64.1026},
                            {0, 0, 96.1538, 0, 0, 0, 64.1026, 0, 0},
                            {-64.1026, 0, -96.1538, 0, -64.1026, -96.1538, -64.1026, -64.1026,
                             -224.359},
                            {-224.359, -64.1026, -64.1026, -96.1538, -64.1026, 0, -96.1538, 0,
                             -64.1026}};
    check_fast_element(e, sv, Ld, L);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA: checkFEMValues for FastTetrahedralCorotationalForceField (vertex
 * 159 after 100 steps, element 100's frames, shape vectors and blocks). */
Test(fem_fast, sofa_grid_beam_values)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, FAST_BEAM(SOFA_CG, "large"));
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    fem_step(s, 100, 0.01);
    const double *p = ms->position.r + 3 * 159;
    for (int c = 0; c < 3; c++)
        fem_near(p[c], sofa_beam_tip[c], 1e-4, "vertex 159");
    ftc_fem *f = fast_of(s);
    const ftc_elem *e = &f->e[100];
    const double R[9] = {0.99999985, 0.00032076406, -0.00043657642, -0.00033142383, 0.99969634,
                         -0.024639719, 0.00042854031, 0.024639861, 0.9996963};
    double Rt[9];
    fem_transpose3(Rt, e->rest_rot);
    for (int i = 0; i < 9; i++) {
        fem_near(Rt[i], sofa_beam_R0[i], 1e-4, "rest rotation (transposed)");
        fem_near(e->rot[i], R[i], 1e-4, "current rotation");
    }
    const double sv[4][3] = {{0.3, 0.224999, -0.3}, {-0.3, 0, 0.3}, {0, 0, -0.3},
                             {0, -0.224999, 0.3}};
    const double Ld[4][9] = {
        {865.38462, 320.51282, -427.35043, 320.51282, 678.4188, -320.51282, -427.35043,
         -320.51282, 865.38462},
        {769.23077, 0, -427.35043, 0, 341.88034, 0, -427.35043, 0, 769.23077},
        {170.94017, 0, 0, 0, 170.94017, 0, 0, 0, 598.2906},
        {267.09402, 0, 0, 0, 507.47863, -320.51282, 0, -320.51282, 694.44444}};
    const double L[6][9] = {
        {-769.23077, -192.30769, 427.35043, -128.20513, -341.88034, 128.20513, 427.35043,
         192.30769, -769.23077},
        {170.94017, 0, -170.94017, 0, 170.94017, -128.20513, -256.41026, -192.30769, 598.2906},
        {-267.09402, -128.20513, 170.94017, -192.30769, -507.47863, 320.51282, 256.41026,
         320.51282, -694.44444},
        {-170.94017, 0, 170.94017, 0, -170.94017, 0, 256.41026, 0, -598.2906},
        {170.94017, 128.20513, -170.94017, 192.30769, 170.94017, -192.30769, -256.41026,
         -128.20513, 598.2906},
        {-170.94017, 0, 0, 0, -170.94017, 192.30769, 0, 128.20513, -598.2906}};
    check_fast_element(e, sv, Ld, L);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA: wrong attributes: negative modulus and ratio become 5000 and 0.45;
 * an unknown method is an error here (SOFA logs an error and runs on with an
 * undefined rotation method); no tetrahedra is an error (SOFA: msg_error). */
Test(fem_fast, wrong_inputs)
{
    test_rt t;
    fem_open_rt(&t);
    const char *fmt = "<Node name='root'><DefaultAnimationLoop/>"
                      "<MechanicalObject position='0 0 0  1 0 0  0 1 0  0 0 1'/>"
                      "<TetrahedronSetTopologyContainer %s/>"
                      "<FastTetrahedralCorotationalForceField name='FEM' youngModulus='-100' "
                      "poissonRatio='-0.3' method='%s'/></Node>";
    char xml[1024];
    snprintf(xml, sizeof xml, fmt, "tetrahedra='2 3 1 0'", "polar2");
    st_scene *s = fem_load_xml(&t, xml);
    ftc_fem *f = fast_of(s);
    fem_near(f->young_modulus.r[0], 5000, 0, "youngModulus");
    fem_near(f->poisson_ratio.r[0], 0.45, 0, "poissonRatio");
    cr_assert_eq(f->meth, FT_POLAR2);
    st_scene_destroy(&s);
    const char *bad[2][2] = {{"tetrahedra='2 3 1 0'", "toto"}, {"", "qr"}};
    const char *want[2] = {"cannot recognize method toto", "No tetrahedra"};
    for (int k = 0; k < 2; k++) {
        snprintf(xml, sizeof xml, fmt, bad[k][0], bad[k][1]);
        st_error err = {0};
        cr_assert_eq(st_scene_load_string(t.rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK);
        cr_assert_neq(st_scene_init(s, &err), ST_OK, "%s must fail", want[k]);
        cr_assert(strstr(err.msg, want[k]) != NULL, "%s", err.msg);
        st_scene_destroy(&s);
    }
    test_rt_close(&t);
}

Test(fem_fast, solver_paths_qr) { solver_paths(FTCF, "qr"); }
Test(fem_fast, solver_paths_polar) { solver_paths(FTCF, "polar"); }
Test(fem_fast, solver_paths_polar2) { solver_paths(FTCF, "polar2"); }
Test(fem_fast, solver_paths_none) { solver_paths(FTCF, "none"); }

#define FAST_CUBE(METHOD)                                                                         \
    "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/>"                                   \
    "<RegularGridTopology name='grid' n='3 3 3' min='0 0 0' max='1 1 1'/>"                        \
    "<Node name='Body'><EulerImplicitSolver/><SparseLDLSolver/>"                                  \
    "<MechanicalObject name='dof' position='@../grid.position'/>"                                 \
    "<TetrahedronSetTopologyContainer name='topo'/>"                                              \
    "<Hexa2TetraTopologicalMapping input='@../grid' output='@topo'/>"                             \
    "<FastTetrahedralCorotationalForceField name='FEM' youngModulus='1000' "                      \
    "poissonRatio='0.3' method='" METHOD "'/>"                                                    \
    "<TetrahedralCorotationalFEMForceField name='REF' youngModulus='1000' "                       \
    "poissonRatio='0.3' method='small'/></Node></Node>"

/* Patch test for none (exact), which also gives the same forces as
 * TetrahedralCorotational small. */
Test(fem_fast, patch_test_none)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, FAST_CUBE("none"));
    ftc_fem *fem = fast_of(s);
    st_component *ref = test_find_object(s, "REF");
    st_system *sys = s->systems[0];
    size_t n = sys->nall;
    const double *x0 = fem->ms->rest_position.r;
    double *x = calloc(3 * n, sizeof *x), *f = calloc(3 * n, sizeof *f), *g = calloc(3 * n, 8);
    const double A[9] = {1e-3, 2e-4, -3e-4, 5e-4, -2e-3, 1e-4, 0, 3e-4, 1.5e-3};
    for (size_t i = 0; i < n; i++) {
        double u[3];
        fem_mulv3(u, A, x0 + 3 * i);
        for (int k = 0; k < 3; k++)
            x[3 * i + k] = x0[3 * i + k] + u[k] + 0.3 * (k + 1);
    }
    fem_forces_at(&fem->base, sys, x, f);
    const unsigned inner[1] = {13};
    double fmax = fem_assert_interior_free(f, n, inner, 1, 1e-10, 1e-3, "none");
    fem_forces_at(ref, sys, x, g);
    for (size_t i = 0; i < 3 * n; i++)
        fem_near(f[i], g[i], 1e-10 * fmax, "none = TetrahedralCorotational small");
    free(x), free(f), free(g);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void fast_rigid(const char *method)
{
    test_rt t;
    fem_open_rt(&t);
    char xml[4096];
    snprintf(xml, sizeof xml, FAST_CUBE("%s"), method);
    st_scene *s = fem_load_xml(&t, xml);
    ftc_fem *fem = fast_of(s);
    fem_assert_rigid_free(&fem->base, s->systems[0], fem->ms->rest_position.r, 1e-11);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(fem_fast, rigid_motion_qr) { fast_rigid("qr"); }
Test(fem_fast, rigid_motion_polar) { fast_rigid("polar"); }
Test(fem_fast, rigid_motion_polar2) { fast_rigid("polar2"); }

/* SOFA's context topology is the last one of the node: with a grid and a
 * tetrahedron container (filled by Hexa2TetraTopologicalMapping) in the
 * same node, as SOFA's example scenes write it, the force field reads the
 * container. */
Test(fem_corot, context_topology_is_the_last_of_the_node)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(
        &t, "<Node name='root' gravity='0 -9.81 0'><DefaultAnimationLoop/>"
            "<Node name='Beam'><EulerImplicitSolver/><SparseLDLSolver/>"
            "<RegularGridTopology name='grid' min='-1 -1 0' max='1 1 4' n='3 3 5'/>"
            "<MechanicalObject name='dof'/>"
            "<TetrahedronSetTopologyContainer name='Tetra_topo'/>"
            "<TetrahedronSetTopologyModifier/>"
            "<Hexa2TetraTopologicalMapping input='@grid' output='@Tetra_topo'/>"
            "<DiagonalMass massDensity='0.2'/>"
            "<TetrahedralCorotationalFEMForceField name='FEM' youngModulus='1000' "
            "poissonRatio='0.3'/>"
            "<FastTetrahedralCorotationalForceField name='FAST' youngModulus='1000' "
            "poissonRatio='0.3'/></Node></Node>");
    tetra_fem *f = fem_of(s);
    ftc_fem *g = (ftc_fem *)fem_find(s, "FAST", "FastTetrahedralCorotationalForceField");
    cr_assert_str_eq(f->topology->name, "Tetra_topo");
    cr_assert_eq(f->ne, 16 * 6, "%zu tetrahedra", f->ne);
    cr_assert_eq(g->ne, 16 * 6);
    fem_step(s, 5, 0.01);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
