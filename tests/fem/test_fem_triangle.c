/* test_fem_triangle.c - TriangleFEMForceField: the values SOFA's own tests
 * check (element data of two triangles; the 40x40 membrane after 100
 * steps). The Jacobian checks are in test_jacobians. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/SolidMechanics.FEM.Elastic/triangle_fem.h"
#include "internal.h"
#include "support.h"
#include "sofa_fem_values.h"

static const char *const plugins[] = {"ODESolver.Forward", "ODESolver.Backward",
                                      "LinearSolver.Iterative", "Mass", "Topology",
                                      "Constraint.Projective", "SolidMechanics.FEM.Elastic"};

static void open_rt(test_rt *t)
{
    st_error err = {0};
    test_rt_open(t);
    cr_assert_eq(st_runtime_add_plugin_path(t->rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(t->rt, plugins[i], &err), ST_OK, "%s", err.msg);
}

static st_scene *load_xml(test_rt *t, const char *xml)
{
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(t->rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s", err.msg);
    return s;
}

static tri_fem *fem_of(st_scene *s)
{
    st_component *c = test_find_object(s, "FEM");
    cr_assert_not_null(c);
    cr_assert_str_eq(c->cls->name, "TriangleFEMForceField");
    return (tri_fem *)c;
}

static void near(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol, "%s: %.10g, expected %.10g", what, got, want);
}

/* SOFA's element data: rest positions in the frame, R (element to world),
 * material matrix, strain-displacement (6x3). */
static void check_element(const tri *e, const double P[3][3], const double R[9],
                          const double K[9], const double J[6][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            near(e->rest[i][j], P[i][j], 1e-4, "rotated initial position");
            near(e->R[3 * i + j], R[3 * i + j], 1e-4, "rotation");
            near(e->K[3 * i + j], K[3 * i + j], 1e-4, "material stiffness");
        }
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 3; j++)
            near(e->J[i][j], J[i][j], 1e-4, "strain-displacement");
}

/* SOFA: TriangleFEMForceField_test, checkInit. */
Test(fem_triangle, sofa_init)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_xml(
        &t, "<Node name='root'><DefaultAnimationLoop/>"
            "<MechanicalObject position='0 0 0  1 0 0  0 1 0  1 1 1'/>"
            "<TriangleSetTopologyContainer triangles='0 1 2  1 3 2'/>"
            "<TriangleFEMForceField name='FEM' youngModulus='100' poissonRatio='0.3' "
            "method='large'/><DiagonalMass massDensity='0.1'/></Node>");
    tri_fem *f = fem_of(s);
    cr_assert_eq(f->ne, 2);
    check_element(&f->e[0], sofa_tri_P[0], sofa_tri_R[0], sofa_tri_K[0], sofa_tri_J[0]);
    check_element(&f->e[1], sofa_tri_P[1], sofa_tri_R[1], sofa_tri_K[1], sofa_tri_J[1]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA: TriangleFEMForceField_test, checkFEMValues: a 40x40 membrane
 * hanging from two corners, 100 implicit steps. (SOFA's container reads the
 * grid with src='@../grid'; here its triangles are linked.) */
Test(fem_triangle, sofa_grid_values)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_xml(
        &t, "<Node name='root' gravity='0 10 0' dt='0.01'><DefaultAnimationLoop/>"
            "<RegularGridTopology name='grid' n='40 40 1' min='0 0 0' max='10 10 0'/>"
            "<Node name='TriangleFEM'><EulerImplicitSolver/>"
            "<CGLinearSolver iterations='20' tolerance='1e-5' threshold='1e-6'/>"
            "<MechanicalObject name='dof' position='@../grid.position'/>"
            "<TriangleSetTopologyContainer name='topo' position='@../grid.position' triangles='@../grid.triangles'/>"
            "<TriangleSetTopologyModifier name='Modifier'/>"
            "<TriangleFEMForceField name='FEM' youngModulus='100' poissonRatio='0.3' "
            "method='large'/>"
            "<DiagonalMass name='mass' massDensity='0.1'/>"
            "<FixedProjectiveConstraint name='fix' indices='0 39'/></Node></Node>");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    cr_assert_eq(ms->n, 1600);
    const double *p = ms->position.r + 3 * 1515;
    near(p[0], 8.97436, 1e-4, "x1515"), near(p[1], 9.48718, 1e-4, "y1515");
    st_error err = {0};
    for (int i = 0; i < 100; i++)
        cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    p = ms->position.r + 3 * 1515;
    near(p[0], 8.9135, 1e-4, "x1515");
    near(p[1], 14.2499, 1e-4, "y1515");
    near(p[2], 0, 1e-4, "z1515");
    tri_fem *f = fem_of(s);
    check_element(&f->e[42], sofa_membrane_P, sofa_membrane_R, sofa_membrane_K,
                  sofa_membrane_J);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
