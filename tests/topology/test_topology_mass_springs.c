/* test_topology_mass_springs.c - masses, springs, index lists and loads
 * across topological changes (issue 27), as SOFA's handlers: DiagonalMass
 * and MeshMatrixMass take the removed elements' masses off their vertices,
 * UniformMass updates totalMass or vertexMass, springs on removed points
 * go and the others are renumbered, index lists follow as SOFA's
 * TopologySubsetIndices, and a run after a removal matches a fresh scene
 * built from the remaining mesh.
 *
 * The mesh (hand-worked): points 0 (0,0,0), 1 (1,0,0), 2 (0,1,0),
 * 3 (0,0,1), 4 (1,1,1); tetrahedron A = (0 1 2 3), volume 1/6, and B =
 * (1 2 3 4), volume 1/3, sharing the face (1 2 3). Removing A leaves point
 * 0 isolated: it is removed and point 4 takes its place (index 0). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static const char *const plugins[] = {"ODESolver.Forward",      "ODESolver.Backward",
                                      "LinearSolver.Direct",    "LinearSolver.Iterative",
                                      "Mass",                   "Topology",
                                      "Topology.Utility",       "Constraint.Projective",
                                      "Engine.Select",          "SolidMechanics.Spring",
                                      "MechanicalLoad",         "SolidMechanics.FEM.Elastic"};

static test_rt T;

static void setup(void)
{
    st_error err = {0};
    test_rt_open(&T);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(T.rt, plugins[i], &err), ST_OK, "%s", err.msg);
}
static void teardown(void) { test_rt_close(&T); }
TestSuite(topo_mass, .init = setup, .fini = teardown);

static st_scene *load_xml(const char *xml)
{
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s: %s", err.path, err.msg);
    return s;
}

static st_component *get(st_scene *s, const char *name)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no component %s", name);
    return c;
}

static st_array *arr(st_component *c, const char *field)
{
    const st_field *f = st_component_field(c, field);
    cr_assert(f, "%s has no field %s", c->cls->name, field);
    return st_component_field_ptr(c, f);
}

static double real(st_component *c, const char *field)
{
    const st_field *f = st_component_field(c, field);
    cr_assert(f, "%s has no field %s", c->cls->name, field);
    return *(const double *)st_component_field_ptr(c, f);
}

static void near(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol, "%s: %.15g, expected %.15g", what, got, want);
}

static void remove_elems(st_scene *s, const char *topo, st_elem kind, const unsigned *ids,
                         size_t n)
{
    st_error err = {0};
    cr_assert_eq(st_topology_remove(get(s, topo), kind, ids, n, &err), ST_OK, "remove: %s: %s",
                 err.path, err.msg);
}

static inline void steps(st_scene *s, int n, double dt)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, dt, &err), ST_OK, "step: %s: %s", err.path, err.msg);
}

#define TWO_TETS_POS "0 0 0  1 0 0  0 1 0  0 0 1  1 1 1"
#define TWO_TETS_HEAD(GRAVITY)                                                                    \
    "<Node name='root' gravity='" GRAVITY "' dt='0.01'>"                                          \
    "<DefaultAnimationLoop/>"                                                                     \
    "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"                               \
    "<CGLinearSolver iterations='200' tolerance='1e-12' threshold='1e-20'/>"                      \
    "<MechanicalObject name='dofs' position='" TWO_TETS_POS "'/>"                                 \
    "<TetrahedronSetTopologyContainer name='topo' tetrahedra='0 1 2 3  1 2 3 4'/>"                \
    "<TetrahedronSetTopologyModifier/>"

/* DiagonalMass, massDensity 6: A gives 1/4 to each of its vertices, B 1/2;
 * total 3. Removing A (SOFA's applyTetrahedronDestruction): 1/4 off 0..3,
 * total 2; point 0 removed (its mass, now 0, off the total), 4 becomes 0. */
Test(topo_mass, diagonal_mass_tetra_removed)
{
    st_scene *s = load_xml(TWO_TETS_HEAD("0 0 0") "<DiagonalMass name='mass' massDensity='6'/>"
                                                  "</Node>");
    st_component *m = get(s, "mass");
    const double before[5] = {0.25, 0.75, 0.75, 0.75, 0.5};
    for (int i = 0; i < 5; i++)
        near(arr(m, "vertexMass")->r[i], before[i], 1e-14, "vertexMass before");
    near(real(m, "totalMass"), 3.0, 1e-14, "totalMass before");
    const unsigned a[] = {0};
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    cr_assert_eq(arr(m, "vertexMass")->n, 4);
    for (int i = 0; i < 4; i++)
        near(arr(m, "vertexMass")->r[i], 0.5, 1e-14, "vertexMass after");
    near(real(m, "totalMass"), 2.0, 1e-14, "totalMass after = rho V(B)");
    /* Then B: nothing left. */
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    cr_assert_eq(arr(m, "vertexMass")->n, 0);
    near(real(m, "totalMass"), 0.0, 1e-14, "totalMass with no element");
    st_scene_destroy(&s);
}
