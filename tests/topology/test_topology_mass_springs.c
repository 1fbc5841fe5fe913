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
                                      "MechanicalLoad",         "SolidMechanics.FEM.Elastic",
                                      "Constraint.Lagrangian.Model",
                                      "Constraint.Lagrangian.Solver",
                                      "Constraint.Lagrangian.Correction",
                                      "SolidMechanics.FEM.HyperElastic"};

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

/* The same scene with only B, numbered as the container numbers it after
 * A's removal: old point 4 first, then 1, 2, 3. */
#define B_ONLY_HEAD(GRAVITY)                                                                      \
    "<Node name='root' gravity='" GRAVITY "' dt='0.01'>"                                          \
    "<DefaultAnimationLoop/>"                                                                     \
    "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"                               \
    "<CGLinearSolver iterations='200' tolerance='1e-12' threshold='1e-20'/>"                      \
    "<MechanicalObject name='dofs' position='1 1 1  1 0 0  0 1 0  0 0 1'/>"                       \
    "<TetrahedronSetTopologyContainer name='topo' tetrahedra='1 2 3 0'/>"                         \
    "<TetrahedronSetTopologyModifier/>"

/* MeshMatrixMass, massDensity 1: A gives V/10 = 1/60 to its vertices and
 * V/20 = 1/120 to its edges, B 1/30 and 1/60; total 1/2. After A's removal
 * the masses are those of a fresh scene of B: 1/30 on each vertex, 1/60 on
 * each of its 6 edges, total 1/3. */
Test(topo_mass, mesh_matrix_mass_tetra_removed_matches_fresh)
{
    st_scene *s = load_xml(TWO_TETS_HEAD("0 0 0") "<MeshMatrixMass name='mass' massDensity='1'/>"
                                                  "</Node>");
    st_component *m = get(s, "mass");
    near(real(m, "totalMass"), 0.5, 1e-14, "totalMass before");
    cr_assert_eq(arr(m, "edgeMass")->n, 9);
    const unsigned a[] = {0};
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    st_scene *f = load_xml(B_ONLY_HEAD("0 0 0") "<MeshMatrixMass name='mass' massDensity='1'/>"
                                                "</Node>");
    st_component *mf = get(f, "mass");
    cr_assert_eq(arr(m, "vertexMass")->n, 4);
    for (int i = 0; i < 4; i++) {
        near(arr(m, "vertexMass")->r[i], 1.0 / 30, 1e-15, "vertexMass after");
        near(arr(m, "vertexMass")->r[i], arr(mf, "vertexMass")->r[i], 1e-15, "vs fresh");
    }
    cr_assert_eq(arr(m, "edgeMass")->n, 6);
    cr_assert_eq(arr(mf, "edgeMass")->n, 6);
    for (int i = 0; i < 6; i++)
        near(arr(m, "edgeMass")->r[i], 1.0 / 60, 1e-15, "edgeMass after");
    near(real(m, "totalMass"), 1.0 / 3, 1e-14, "totalMass after = rho V(B)");
    near(real(mf, "totalMass"), 1.0 / 3, 1e-14, "fresh totalMass");
    st_scene_destroy(&f);
    st_scene_destroy(&s);
}

/* UniformMass (SOFA's updateMassOnResize): vertexMass 1 on 5 points, total
 * 5; 4 points left: totalMass 4. With preserveTotalMass and totalMass 5:
 * vertexMass 5/4. */
Test(topo_mass, uniform_mass_total_or_vertex_mass)
{
    const unsigned a[] = {0};
    st_scene *s = load_xml(TWO_TETS_HEAD("0 0 0") "<UniformMass name='mass' vertexMass='1'/>"
                                                  "</Node>");
    st_component *m = get(s, "mass");
    near(real(m, "totalMass"), 5.0, 0, "totalMass before");
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    near(real(m, "totalMass"), 4.0, 0, "totalMass = n vertexMass");
    cr_assert_eq(arr(m, "indices")->n, 4);
    /* SOFA's TopologySubsetIndices: 0 erased (order kept), 4 renamed 0. */
    const unsigned want[4] = {1, 2, 3, 0};
    for (unsigned i = 0; i < 4; i++)
        cr_assert_eq(arr(m, "indices")->u[i], want[i]);
    st_scene_destroy(&s);

    s = load_xml(TWO_TETS_HEAD("0 0 0") "<UniformMass name='mass' totalMass='5' "
                                        "preserveTotalMass='true'/></Node>");
    m = get(s, "mass");
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    near(real(m, "totalMass"), 5.0, 0, "totalMass preserved");
    const st_field *vf = st_component_field(m, "vertexMass");
    const double *vm = st_component_field_ptr(m, vf); /* Vec3d: the mass first */
    near(vm[0], 1.25, 1e-15, "vertexMass = totalMass / n");
    st_scene_destroy(&s);
}

/* MeshSpringForceField: one spring per vertex pair, 9 on the two
 * tetrahedra; A's removal removes point 0, so the 3 springs on it go (SOFA
 * keeps springs on removed edges whose points stay: none here) and point 4
 * becomes 0: the springs are B's 6 edges, rest lengths kept. */
Test(topo_mass, mesh_springs_follow_point_removal)
{
    st_scene *s = load_xml(TWO_TETS_HEAD("0 0 0") "<UniformMass vertexMass='1'/>"
                                                  "<MeshSpringForceField name='sp' "
                                                  "stiffness='100' damping='0'/></Node>");
    st_component *sp = get(s, "sp");
    cr_assert_eq(arr(sp, "spring")->n, 5 * 9);
    const unsigned a[] = {0};
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    const st_array *l = arr(sp, "spring");
    cr_assert_eq(l->n, 5 * 6);
    static const double pos[4][3] = {{1, 1, 1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    unsigned seen = 0;
    for (size_t k = 0; k < 6; k++) {
        const double *r = l->r + 5 * k;
        unsigned i = (unsigned)r[0], j = (unsigned)r[1];
        cr_assert(i < 4 && j < 4 && i != j, "spring %zu: %u %u", k, i, j);
        double d = sqrt(pow(pos[i][0] - pos[j][0], 2) + pow(pos[i][1] - pos[j][1], 2) +
                        pow(pos[i][2] - pos[j][2], 2));
        near(r[4], d, 1e-15, "rest length of a renumbered spring");
        near(r[2], 100.0 / d, 1e-12, "ks = stiffness / length");
        seen |= 1u << (i < j ? 4 * i + j : 4 * j + i);
    }
    cr_assert_eq(seen, (1u << 1) | (1u << 2) | (1u << 3) | (1u << 6) | (1u << 7) | (1u << 11),
                 "each pair of the 4 points once");
    st_scene_destroy(&s);
}

/* SpringForceField (SOFA's applyRemovedPoints): springs 0-4, 1-4, 2-3; point
 * 0 removed, 4 renumbered 0: springs 1-0 and 2-3, lists rebuilt. */
Test(topo_mass, spring_force_field_lists_renumbered)
{
    st_scene *s = load_xml(TWO_TETS_HEAD("0 0 0") "<UniformMass vertexMass='1'/>"
                                                  "<SpringForceField name='sp' indices1='0 1 2' "
                                                  "indices2='4 4 3' stiffness='10 20 30' "
                                                  "damping='1' lengths='1 2 3'/></Node>");
    st_component *sp = get(s, "sp");
    const unsigned a[] = {0};
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    const st_array *i1 = arr(sp, "springsIndices1"), *i2 = arr(sp, "springsIndices2");
    cr_assert_eq(i1->n, 2);
    cr_assert_eq(i2->n, 2);
    cr_assert_eq(i1->u[0], 1);
    cr_assert_eq(i2->u[0], 0);
    cr_assert_eq(i1->u[1], 2);
    cr_assert_eq(i2->u[1], 3);
    near(arr(sp, "stiffness")->r[0], 20, 0, "stiffness follows its spring");
    near(arr(sp, "stiffness")->r[1], 30, 0, "stiffness follows its spring");
    near(arr(sp, "lengths")->r[0], 2, 0, "length follows its spring");
    cr_assert_eq(arr(sp, "stiffness")->n, 2);
    st_scene_destroy(&s);
}

/* ConstantForceField: indices 0 4 2 with their forces; point 0 removed and
 * 4 renumbered 0: indices 0 2, forces (4's, 2's), totalForce their sum.
 * With totalForce given, it is spread again over the indices left. */
Test(topo_mass, constant_force_indices_and_forces)
{
    const unsigned a[] = {0};
    st_scene *s = load_xml(TWO_TETS_HEAD("0 0 0") "<UniformMass vertexMass='1'/>"
                                                  "<ConstantForceField name='cf' indices='0 4 2' "
                                                  "forces='1 0 0  0 2 0  0 0 3'/></Node>");
    st_component *cf = get(s, "cf");
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    const st_array *idx = arr(cf, "indices"), *f = arr(cf, "forces");
    cr_assert_eq(idx->n, 2);
    cr_assert_eq(idx->u[0], 0);
    cr_assert_eq(idx->u[1], 2);
    cr_assert_eq(f->n, 2);
    const double want[6] = {0, 2, 0, 0, 0, 3};
    for (int k = 0; k < 6; k++)
        near(f->r[k], want[k], 0, "forces follow their indices");
    const double *tf =
        ((const st_array *)st_component_field_ptr(cf, st_component_field(cf, "totalForce")))->r;
    near(tf[0], 0, 0, "totalForce x"), near(tf[1], 2, 0, "totalForce y");
    near(tf[2], 3, 0, "totalForce z");
    st_scene_destroy(&s);

    s = load_xml(TWO_TETS_HEAD("0 0 0") "<UniformMass vertexMass='1'/>"
                                        "<ConstantForceField name='cf' indices='0 4 2' "
                                        "totalForce='0 0 -6'/></Node>");
    cf = get(s, "cf");
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    f = arr(cf, "forces");
    cr_assert_eq(f->n, 2);
    near(f->r[2], -3, 0, "totalForce spread over 2");
    near(f->r[5], -3, 0, "totalForce spread over 2");
    st_scene_destroy(&s);
}

/* A fixed point survives the renumbering: FixedProjectiveConstraint on
 * point 4 (SOFA's TopologySubsetIndices: it becomes 0) does not move under
 * gravity, the others fall; the run matches a fresh scene of B alone. */
#define RUN_TAIL                                                                                  \
    "<DiagonalMass name='mass' massDensity='6'/>"                                                 \
    "<MeshSpringForceField name='sp' stiffness='1000' damping='0'/>"

static void assert_same_positions(st_scene *a, st_scene *b, double tol)
{
    const st_array *pa = arr(get(a, "dofs"), "position"), *pb = arr(get(b, "dofs"), "position");
    cr_assert_eq(pa->n, pb->n);
    for (size_t i = 0; i < 3 * pa->n; i++)
        near(pa->r[i], pb->r[i], tol, "position vs a fresh scene");
}

Test(topo_mass, fixed_point_renumbered_and_run_matches_fresh)
{
    st_scene *s = load_xml(TWO_TETS_HEAD("0 -10 0") "<FixedProjectiveConstraint name='fix' "
                                                    "indices='4'/>" RUN_TAIL "</Node>");
    steps(s, 3, 0.01);
    const unsigned a[] = {0};
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    cr_assert_eq(arr(get(s, "fix"), "indices")->n, 1);
    cr_assert_eq(arr(get(s, "fix"), "indices")->u[0], 0);
    /* The fresh scene starts where the first one is. */
    const st_array *p = arr(get(s, "dofs"), "position"), *v = arr(get(s, "dofs"), "velocity");
    char xml[4096], pos[512], vel[512];
    size_t lp = 0, lv = 0;
    for (size_t i = 0; i < 12; i++) {
        lp += (size_t)snprintf(pos + lp, sizeof pos - lp, "%.17g ", p->r[i]);
        lv += (size_t)snprintf(vel + lv, sizeof vel - lv, "%.17g ", v->r[i]);
    }
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 -10 0' dt='0.01'><DefaultAnimationLoop/>"
             "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"
             "<CGLinearSolver iterations='200' tolerance='1e-12' threshold='1e-20'/>"
             "<MechanicalObject name='dofs' position='%s' velocity='%s' "
             "rest_position='1 1 1  1 0 0  0 1 0  0 0 1'/>"
             "<TetrahedronSetTopologyContainer name='topo' tetrahedra='1 2 3 0'/>"
             "<TetrahedronSetTopologyModifier/>"
             "<FixedProjectiveConstraint name='fix' indices='0'/>" RUN_TAIL "</Node>",
             pos, vel);
    st_scene *f = load_xml(xml);
    near(real(get(s, "mass"), "totalMass"), real(get(f, "mass"), "totalMass"), 1e-14,
         "totalMass vs fresh");
    steps(s, 10, 0.01);
    steps(f, 10, 0.01);
    p = arr(get(s, "dofs"), "position");
    near(p->r[0], 1, 0, "fixed x"), near(p->r[1], 1, 0, "fixed y"), near(p->r[2], 1, 0, "fixed z");
    cr_assert(p->r[4] < -0.01, "a free point falls (y %g)", p->r[4]);
    assert_same_positions(s, f, 1e-9);
    st_scene_destroy(&f);
    st_scene_destroy(&s);
}

/* indices="@box.indices": the BoxROI recomputes its list from the
 * renumbered rest positions (SOFA's engines re-evaluate on dirty inputs),
 * and the constraint gets it: point 4, now 0, stays fixed. */
Test(topo_mass, fixed_indices_linked_to_box_roi)
{
    st_scene *s = load_xml(TWO_TETS_HEAD("0 -10 0") "<BoxROI name='box' box='0.9 0.9 0.9 1.1 1.1 "
                                                    "1.1'/><FixedProjectiveConstraint name='fix' "
                                                    "indices='@box.indices'/>" RUN_TAIL
                                                    "</Node>");
    steps(s, 2, 0.01);
    cr_assert_eq(arr(get(s, "fix"), "indices")->u[0], 4);
    const unsigned a[] = {0};
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    steps(s, 5, 0.01);
    const st_array *idx = arr(get(s, "fix"), "indices");
    cr_assert_eq(idx->n, 1);
    cr_assert_eq(idx->u[0], 0);
    cr_assert_eq(arr(get(s, "box"), "indices")->u[0], 0);
    const st_array *p = arr(get(s, "dofs"), "position");
    near(p->r[0], 1, 0, "fixed x"), near(p->r[1], 1, 0, "fixed y"), near(p->r[2], 1, 0, "fixed z");
    st_scene_destroy(&s);
}

/* A triangle strip: 0 (0,0,0) 1 (1,0,0) 2 (1,1,0) 3 (0,1,0) 4 (2,0,0);
 * T0 (0 1 2), T1 (0 2 3), T2 (1 4 2). Bending springs on the edges with
 * two triangles: (0,2) gives 1-3, (1,2) gives 0-4. Removing T1 removes
 * point 3 (4 takes its place) and T2 becomes triangle 1: one bending spring
 * left, 0-3 (SOFA deactivates the spring of the edge that lost a
 * triangle); the pressure's triangleList [2, 0] becomes [1, 0]. */
#define STRIP(EXTRA)                                                                              \
    "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>"                          \
    "<EulerImplicitSolver/><CGLinearSolver iterations='50' tolerance='1e-12' threshold='1e-20'/>" \
    "<MechanicalObject name='dofs' position='0 0 0  1 0 0  1 1 0  0 1 0  2 0 0'/>"                \
    "<TriangleSetTopologyContainer name='topo' triangles='0 1 2  0 2 3  1 4 2'/>"                 \
    "<TriangleSetTopologyModifier/><UniformMass vertexMass='1'/>" EXTRA "</Node>"

Test(topo_mass, bending_springs_and_pressure_follow_triangles)
{
    st_scene *s = load_xml(STRIP("<TriangularBendingSprings name='bend' stiffness='10'/>"
                                 "<TrianglePressureForceField name='pr' triangleList='2 0' "
                                 "pressure='0 0 1'/>"));
    const unsigned t1[] = {1};
    remove_elems(s, "topo", ST_ELEM_TRIANGLE, t1, 1);
    const st_array *tl = arr(get(s, "pr"), "triangleList");
    cr_assert_eq(tl->n, 2);
    cr_assert_eq(tl->u[0], 1);
    cr_assert_eq(tl->u[1], 0);
    steps(s, 3, 0.01);
    /* Both loaded triangles have area 1/2: a third of (0 0 1/2) on each of
     * their vertices, point 1 and 2 in both; nothing resists but the bending
     * spring, at rest. Point 3 (old 4) is in T2 only. */
    const st_array *v = arr(get(s, "dofs"), "velocity");
    cr_assert_eq(v->n, 4);
    near(v->r[3 * 3 + 2], 3 * 0.01 * (0.5 / 3), 1e-12, "old point 4 pushed by T2 only");
    st_scene_destroy(&s);
}

/* RestShapeSpringsForceField's points follow the topology (SOFA's
 * TopologySubsetIndices): removing A removes point 0, point 4 becomes 0, so
 * points '0 4' becomes '0', and the run matches a fresh scene of B alone
 * (its points in the renumbered order) holding point 0. When every listed
 * point is gone, SOFA's empty list means all points: kept, and warned. */
#define RS_TAIL "<UniformMass vertexMass='1'/>"                                                  \
                "<MeshSpringForceField name='sp' stiffness='300' damping='0'/>"
Test(topo_mass, rest_shape_springs_points_follow)
{
    const unsigned a[] = {0};
    st_scene *s = load_xml(TWO_TETS_HEAD("0 -10 0") RS_TAIL
                           "<RestShapeSpringsForceField name='rs' points='0 4' stiffness='100'/>"
                           "</Node>");
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    const st_array *pts = arr(get(s, "rs"), "points");
    cr_assert_eq(pts->n, 1);
    cr_assert_eq(pts->u[0], 0);
    steps(s, 20, 0.01);
    st_scene *fresh = load_xml(
        "<Node name='root' gravity='0 -10 0' dt='0.01'>"
        "<DefaultAnimationLoop/>"
        "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"
        "<CGLinearSolver iterations='200' tolerance='1e-12' threshold='1e-20'/>"
        "<MechanicalObject name='dofs' position='1 1 1  1 0 0  0 1 0  0 0 1'/>"
        "<TetrahedronSetTopologyContainer name='topo' tetrahedra='1 2 3 0'/>"
        "<TetrahedronSetTopologyModifier/>" RS_TAIL
        "<RestShapeSpringsForceField name='rs' points='0' stiffness='100'/></Node>");
    steps(fresh, 20, 0.01);
    assert_same_positions(s, fresh, 1e-12);
    /* point 0 (the old 4) is held: it moved much less than the others */
    const st_array *p = arr(get(s, "dofs"), "position");
    cr_assert(1.0 - p->r[1] < 0.0 - p->r[4], "held point fell %g, free one %g", 1.0 - p->r[1],
              0.0 - p->r[4]);
    st_scene_destroy(&fresh);
    st_scene_destroy(&s);

    s = load_xml(TWO_TETS_HEAD("0 -10 0") RS_TAIL
                 "<RestShapeSpringsForceField name='rs' points='0' stiffness='100'/></Node>");
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    cr_assert_eq(arr(get(s, "rs"), "points")->n, 0);
    cr_assert(strstr(T.log, "every point listed in 'points' was removed"), "%s", T.log);
    steps(s, 5, 0.01);
    st_scene_destroy(&s);
}

/* SurfacePressureForceField reads the topology's triangles at each step, as
 * SOFA's does: after T1 is removed (point 3 with it, 4 renumbered to 3) the
 * pressure acts on T0 and the old T2 only. Each triangle has area 1/2 and
 * gives p |ab x ac| / 6 = 1/6 to each of its vertices, along +z. */
Test(topo_mass, surface_pressure_reads_the_changed_triangles)
{
    st_scene *s = load_xml(STRIP("<SurfacePressureForceField name='sp' pressure='1' "
                                 "useTangentStiffness='false'/>"));
    const unsigned t1[] = {1};
    remove_elems(s, "topo", ST_ELEM_TRIANGLE, t1, 1);
    steps(s, 3, 0.01);
    const st_array *v = arr(get(s, "dofs"), "velocity");
    cr_assert_eq(v->n, 4);
    const double want[4] = {1.0 / 6, 2.0 / 6, 2.0 / 6, 1.0 / 6};
    for (int i = 0; i < 4; i++) {
        near(v->r[3 * i + 2], 3 * 0.01 * want[i], 1e-12, "v_z after the removal");
        near(v->r[3 * i], 0, 1e-6, "v_x (the normals tilt as the points rise unevenly)");
    }
    st_scene_destroy(&s);
}

/* Line, Plane, Point and Direction projective constraints: indices follow
 * as SOFA's TopologySubsetIndices. Point 4, constrained to move within the
 * plane y = const (normal along y), on the x axis (a line/direction along
 * x) or not at all (a point), becomes point 0 when A goes, and still cannot
 * fall under gravity along y. */
Test(topo_mass, subspace_projections_follow)
{
    static const char *cons[] = {
        "<PlaneProjectiveConstraint name='pc' indices='0 4' normal='0 1 0' origin='1 1 1'/>",
        "<LineProjectiveConstraint name='pc' indices='0 4' direction='1 0 0' origin='1 1 1'/>",
        "<DirectionProjectiveConstraint name='pc' indices='0 4' direction='1 0 0'/>",
        "<PointProjectiveConstraint name='pc' indices='0 4' point='1 1 1'/>"};
    const unsigned a[] = {0};
    for (int k = 0; k < 4; k++) {
        char xml[2048];
        snprintf(xml, sizeof xml, "%s%s%s</Node>", TWO_TETS_HEAD("0 -10 0"), RS_TAIL, cons[k]);
        st_scene *s = load_xml(xml);
        remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
        const st_array *idx = arr(get(s, "pc"), "indices");
        cr_assert_eq(idx->n, 1, "%s", cons[k]);
        cr_assert_eq(idx->u[0], 0, "%s", cons[k]);
        steps(s, 10, 0.01);
        const st_array *p = arr(get(s, "dofs"), "position");
        /* A direction's anchor stays at the list's place 0, taken at init
         * from the removed point 0 (0 0 0): as in SOFA (m_origin), the
         * point goes onto the x axis through it, and settee says so. */
        bool dir = k == 2;
        near(p->r[1], dir ? 0.0 : 1.0, 1e-12, cons[k]);
        if (k <= 2) /* the log accumulates: the point constraint comes after */
            cr_assert_eq(strstr(T.log, "takes the anchor of the list's place 0, taken at init "
                                       "from a point since removed") != NULL,
                         dir, "%s", T.log);
        cr_assert(p->r[4] < -0.01, "a free point falls: %g", p->r[4]);
        st_scene_destroy(&s);
    }
}

/* EdgePressureForceField's edges are SOFA's EdgeSubsetData. Edges (0,1)
 * (1,2) (2,3), loaded: 0 and 2, constant pressure (0 1 0) times the rest
 * length 1. Removing edge 0: its slot takes the last one (edge 2); point 0,
 * isolated, goes and point 3 becomes 0, edge 2 (2,3) becomes edge 0 (2,0).
 * One explicit step: the old point 3 and point 2 get 1/2 each, point 1 none. */
Test(topo_mass, edge_pressure_edges_follow)
{
    st_scene *s = load_xml("<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>"
                           "<EulerExplicitSolver symplectic='1'/>"
                           "<MechanicalObject name='dofs' position='0 0 0  1 0 0  2 0 0  3 0 0'/>"
                           "<EdgeSetTopologyContainer name='topo' edges='0 1  1 2  2 3'/>"
                           "<EdgeSetTopologyModifier/><UniformMass vertexMass='1'/>"
                           "<EdgePressureForceField name='ep' edgeIndices='0 2' "
                           "pressure='0 1 0'/></Node>");
    const unsigned e0[] = {0};
    remove_elems(s, "topo", ST_ELEM_EDGE, e0, 1);
    steps(s, 1, 0.01);
    const st_array *v = arr(get(s, "dofs"), "velocity");
    cr_assert_eq(v->n, 3);
    near(v->r[1], 0.005, 1e-15, "old point 3 (now 0)");
    near(v->r[4], 0.0, 0, "point 1");
    near(v->r[7], 0.005, 1e-15, "point 2");
    st_scene_destroy(&s);
}

/* Triangles added (st_topology_add, as TopologicalChangeProcessor's ADD=)
 * before the first step: TriangularFEMForceField computes the new
 * triangles' rest data from the rest positions, as SOFA's creation
 * callback, so the run equals a scene that had them from the start. */
#define ADD_HEAD                                                                                  \
    "<Node name='root' gravity='0 -10 0' dt='0.01'><DefaultAnimationLoop/>"                       \
    "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"                               \
    "<CGLinearSolver iterations='200' tolerance='1e-12' threshold='1e-20'/>"                      \
    "<MechanicalObject name='dofs' position='0 0 0  1 0 0  1 1 0  0 1 0  2 0 0'/>"
#define ADD_TAIL                                                                                  \
    "<TriangleSetTopologyModifier/><UniformMass vertexMass='1'/>"                                 \
    "<FixedProjectiveConstraint indices='0 3'/>"                                                  \
    "<TriangularFEMForceField name='fem' youngModulus='500' poissonRatio='0.3' "                  \
    "method='large'/></Node>"
Test(topo_mass, triangular_fem_follows_added_triangles)
{
    st_scene *s = load_xml(ADD_HEAD "<TriangleSetTopologyContainer name='topo' "
                                    "triangles='0 1 2  0 2 3'/>" ADD_TAIL);
    const unsigned t[] = {1, 4, 2};
    st_error err = {0};
    cr_assert_eq(st_topology_add(get(s, "topo"), ST_ELEM_TRIANGLE, t, 1, &err), ST_OK, "%s",
                 err.msg);
    steps(s, 20, 0.01);
    st_scene *fresh = load_xml(ADD_HEAD "<TriangleSetTopologyContainer name='topo' "
                                        "triangles='0 1 2  0 2 3  1 4 2'/>" ADD_TAIL);
    steps(fresh, 20, 0.01);
    assert_same_positions(s, fresh, 1e-12);
    st_scene_destroy(&fresh);
    st_scene_destroy(&s);
}

/* AffineMovementProjectiveConstraint: indices follow as SOFA's
 * TopologySubsetIndices (points '0 4' become '0' when A goes). */
Test(topo_mass, affine_movement_indices_follow)
{
    const unsigned a[] = {0};
    st_scene *s = load_xml(TWO_TETS_HEAD("0 -10 0") RS_TAIL
                           "<AffineMovementProjectiveConstraint name='am' indices='0 4' "
                           "translation='0 0 0' beginConstraintTime='0' endConstraintTime='1'/>"
                           "</Node>");
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, a, 1);
    const st_array *idx = arr(get(s, "am"), "indices");
    cr_assert_eq(idx->n, 1);
    cr_assert_eq(idx->u[0], 0);
    steps(s, 5, 0.01);
    st_scene_destroy(&s);
}

/* ---- Volumes added (st_topology_add, as TopologicalChangeProcessor's ADD=
 * Tetrahedra / Hexahedra) ---- */

#define A_ONLY_HEAD(GRAVITY)                                                                      \
    "<Node name='root' gravity='" GRAVITY "' dt='0.01'>"                                          \
    "<DefaultAnimationLoop/>"                                                                     \
    "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"                               \
    "<CGLinearSolver iterations='200' tolerance='1e-12' threshold='1e-20'/>"                      \
    "<MechanicalObject name='dofs' position='" TWO_TETS_POS "'/>"                                 \
    "<TetrahedronSetTopologyContainer name='topo' tetrahedra='0 1 2 3'/>"                         \
    "<TetrahedronSetTopologyModifier/>"

static void add_elems(st_scene *s, const char *topo, st_elem kind, const unsigned *v, size_t n)
{
    st_error err = {0};
    cr_assert_eq(st_topology_add(get(s, topo), kind, v, n, &err), ST_OK, "add: %s: %s", err.path,
                 err.msg);
}

/* DiagonalMass, massDensity 6 (SOFA's applyTetrahedronCreation): A alone
 * gives 1/4 to 0..3 and nothing to 4, total 1; adding B = (1 2 3 4),
 * volume 1/3, gives 1/2 more to each of its vertices: the masses of the
 * scene that had both, {1/4, 3/4, 3/4, 3/4, 1/2}, total 3. */
Test(topo_mass, diagonal_mass_tetra_added)
{
    st_scene *s = load_xml(A_ONLY_HEAD("0 0 0") "<DiagonalMass name='mass' massDensity='6'/>"
                                                "</Node>");
    st_component *m = get(s, "mass");
    near(real(m, "totalMass"), 1.0, 1e-14, "totalMass before");
    near(arr(m, "vertexMass")->r[4], 0.0, 1e-14, "point 4 before");
    add_elems(s, "topo", ST_ELEM_TETRAHEDRON, (const unsigned[]){1, 2, 3, 4}, 1);
    const double after[5] = {0.25, 0.75, 0.75, 0.75, 0.5};
    cr_assert_eq(arr(m, "vertexMass")->n, 5);
    for (int i = 0; i < 5; i++)
        near(arr(m, "vertexMass")->r[i], after[i], 1e-14, "vertexMass after");
    near(real(m, "totalMass"), 3.0, 1e-14, "totalMass after = rho (V(A) + V(B))");
    st_scene_destroy(&s);
}

/* MeshMatrixMass, massDensity 1: A alone, total 1/6; adding B gives the
 * masses of the scene that had both: B's V/10 = 1/30 on its vertices, V/20
 * = 1/60 on its edges (the three new edges and the three it shares with
 * A), total 1/2, nine edges. */
Test(topo_mass, mesh_matrix_mass_tetra_added_matches_fresh)
{
    st_scene *s = load_xml(A_ONLY_HEAD("0 0 0") "<MeshMatrixMass name='mass' massDensity='1'/>"
                                                "</Node>");
    st_component *m = get(s, "mass");
    near(real(m, "totalMass"), 1.0 / 6, 1e-14, "totalMass before");
    cr_assert_eq(arr(m, "edgeMass")->n, 6);
    add_elems(s, "topo", ST_ELEM_TETRAHEDRON, (const unsigned[]){1, 2, 3, 4}, 1);
    st_scene *f = load_xml(TWO_TETS_HEAD("0 0 0") "<MeshMatrixMass name='mass' massDensity='1'/>"
                                                  "</Node>");
    st_component *mf = get(f, "mass");
    near(real(m, "totalMass"), 0.5, 1e-14, "totalMass after");
    near(real(mf, "totalMass"), 0.5, 1e-14, "fresh totalMass");
    const double vm[5] = {1.0 / 60, 1.0 / 60 + 1.0 / 30, 1.0 / 60 + 1.0 / 30,
                          1.0 / 60 + 1.0 / 30, 1.0 / 30};
    cr_assert_eq(arr(m, "vertexMass")->n, 5);
    for (int i = 0; i < 5; i++) {
        near(arr(m, "vertexMass")->r[i], vm[i], 1e-15, "vertexMass after");
        near(arr(m, "vertexMass")->r[i], arr(mf, "vertexMass")->r[i], 1e-15, "vs fresh");
    }
    cr_assert_eq(arr(m, "edgeMass")->n, 9);
    /* The edges A and B share carry both shares: 1/120 + 1/60. */
    double sum = 0, sum_fresh = 0;
    for (int i = 0; i < 9; i++) {
        sum += arr(m, "edgeMass")->r[i];
        sum_fresh += arr(mf, "edgeMass")->r[i];
    }
    near(sum, 6.0 / 120 + 6.0 / 60, 1e-15, "edge masses summed");
    near(sum_fresh, sum, 1e-15, "edge masses summed, fresh");
    /* The new edges (the container's last three) carry B's share alone. */
    for (int i = 6; i < 9; i++)
        near(arr(m, "edgeMass")->r[i], 1.0 / 60, 1e-15, "a new edge's mass");
    st_scene_destroy(&f);
    st_scene_destroy(&s);
}

/* A tetrahedral FEM (each method) after B was added before the first step
 * runs as the scene that had both: the new element's rest data come from
 * the rest positions (SOFA's createTetrahedronInformation). */
Test(topo_mass, tetra_fem_follows_added_tetrahedron)
{
    static const char *const fems[] = {
        "<TetrahedronFEMForceField youngModulus='100' poissonRatio='0.3' method='large'/>",
        "<TetrahedronFEMForceField youngModulus='100' poissonRatio='0.3' method='small'/>",
        "<TetrahedralCorotationalFEMForceField youngModulus='100' poissonRatio='0.3' "
        "method='large'/>",
        "<FastTetrahedralCorotationalForceField youngModulus='100' poissonRatio='0.3'/>",
        "<TetrahedronHyperelasticityFEMForceField materialName='StVenantKirchhoff' "
        "ParameterSet='40 60'/>",
        "<StandardTetrahedralFEMForceField materialName='NeoHookean' ParameterSet='40 60'/>"};
    for (size_t k = 0; k < sizeof fems / sizeof *fems; k++) {
        char xml[4096];
        snprintf(xml, sizeof xml,
                 "%s<UniformMass vertexMass='1'/><FixedProjectiveConstraint indices='0'/>%s"
                 "</Node>",
                 A_ONLY_HEAD("0 -10 0"), fems[k]);
        st_scene *s = load_xml(xml);
        add_elems(s, "topo", ST_ELEM_TETRAHEDRON, (const unsigned[]){1, 2, 3, 4}, 1);
        steps(s, 20, 0.01);
        snprintf(xml, sizeof xml,
                 "%s<UniformMass vertexMass='1'/><FixedProjectiveConstraint indices='0'/>%s"
                 "</Node>",
                 TWO_TETS_HEAD("0 -10 0"), fems[k]);
        st_scene *fresh = load_xml(xml);
        steps(fresh, 20, 0.01);
        assert_same_positions(s, fresh, 1e-12);
        /* And it moved: point 4 hangs below its rest place. */
        const st_array *x = arr(get(s, "dofs"), "position");
        cr_assert(x->r[13] < 1.0 - 1e-4, "%s: point 4 at y %g", fems[k], x->r[13]);
        st_scene_destroy(&fresh);
        st_scene_destroy(&s);
    }
}

/* The same for hexahedra: H1 added beside H0 (12 points, x + 3y + 6z). */
#define BAR_NO_MASS(HEXAS)                                                                        \
    "<Node name='root' gravity='0 -10 0' dt='0.01'><DefaultAnimationLoop/>"                       \
    "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"                               \
    "<CGLinearSolver iterations='200' tolerance='1e-12' threshold='1e-20'/>"                      \
    "<MechanicalObject name='dofs' position='0 0 0  1 0 0  2 0 0  0 1 0  1 1 0  2 1 0  "          \
    "0 0 1  1 0 1  2 0 1  0 1 1  1 1 1  2 1 1'/>"                                                 \
    "<HexahedronSetTopologyContainer name='topo' hexahedra='" HEXAS "'/>"                         \
    "<HexahedronSetTopologyModifier/><FixedProjectiveConstraint indices='0 3 6 9'/>"
#define BAR_HEAD(HEXAS) BAR_NO_MASS(HEXAS) "<UniformMass vertexMass='1'/>"
Test(topo_mass, hexa_fem_follows_added_hexahedron)
{
    static const char *const fems[] = {
        "<HexahedronFEMForceField youngModulus='100' poissonRatio='0.3' method='large'/>",
        "<HexahedronFEMForceField youngModulus='100' poissonRatio='0.3' method='polar'/>",
        "<HexahedralFEMForceField youngModulus='100' poissonRatio='0.3'/>"};
    for (size_t k = 0; k < sizeof fems / sizeof *fems; k++) {
        char xml[4096];
        snprintf(xml, sizeof xml, "%s%s</Node>", BAR_HEAD("0 1 4 3 6 7 10 9"), fems[k]);
        st_scene *s = load_xml(xml);
        add_elems(s, "topo", ST_ELEM_HEXAHEDRON, (const unsigned[]){1, 2, 5, 4, 7, 8, 11, 10}, 1);
        steps(s, 20, 0.01);
        snprintf(xml, sizeof xml, "%s%s</Node>",
                 BAR_HEAD("0 1 4 3 6 7 10 9  1 2 5 4 7 8 11 10"), fems[k]);
        st_scene *fresh = load_xml(xml);
        steps(fresh, 20, 0.01);
        assert_same_positions(s, fresh, 1e-12);
        const st_array *x = arr(get(s, "dofs"), "position");
        cr_assert(x->r[3 * 11 + 1] < 1.0 - 1e-4, "%s: point 11 at y %g", fems[k],
                  x->r[3 * 11 + 1]);
        st_scene_destroy(&fresh);
        st_scene_destroy(&s);
    }
}

/* RegularGridSpringForceField beside a changing (non-grid) topology: no
 * grid springs, its `spring` list follows the points as SOFA's
 * SpringForceField handler. Quads (0 1 4 3) (1 2 5 4); removing the second
 * isolates points 2 and 5, removed in descending order: 5 is the last
 * point, its spring (2 5) goes; then 2, whose place the last point 4 takes:
 * (1 4) becomes (1 2). */
Test(topo_mass, regular_grid_springs_list_follows_points)
{
    st_scene *s = load_xml(
        "<Node name='root' gravity='0 -10 0' dt='0.01'><DefaultAnimationLoop/>"
        "<EulerImplicitSolver/><CGLinearSolver iterations='100' tolerance='1e-12' "
        "threshold='1e-20'/>"
        "<MechanicalObject name='dofs' position='0 0 0  1 0 0  2 0 0  0 1 0  1 1 0  2 1 0'/>"
        "<QuadSetTopologyContainer name='topo' quads='0 1 4 3  1 2 5 4'/>"
        "<QuadSetTopologyModifier/><UniformMass vertexMass='1'/>"
        "<RegularGridSpringForceField name='rg' spring='0 1 10 0 1  2 5 20 0 1  1 4 30 0 1'/>"
        "</Node>");
    st_component *rg = get(s, "rg");
    remove_elems(s, "topo", ST_ELEM_QUAD, (const unsigned[]){1}, 1);
    const st_array *l = arr(rg, "spring");
    const double want[] = {0, 1, 10, 0, 1, 1, 2, 30, 0, 1};
    cr_assert_eq(l->n, 10, "%zu numbers", l->n);
    for (int i = 0; i < 10; i++)
        near(l->r[i], want[i], 0, "spring list");
    steps(s, 3, 0.01);
    st_scene_destroy(&s);
}

/* BilateralLagrangianConstraint (SOFA's first_point / second_point
 * TopologySubsetIndices with a PointsRemoved callback): two lines of four
 * points, edges (0 1) (1 2) (2 3) each; pairs (0,1) (2,2) (3,3). Removing
 * edge 0 of A isolates its point 0: the callback erases the first pair
 * whose first point is 0 (pair 0, both sides and its rest vector), then
 * first_point's own handler gives point 0 to the last point 3:
 * first_point [2 0], second_point [2 3], rest_vector's second and third
 * entries. */
Test(topo_mass, bilateral_pairs_follow_point_removal)
{
    st_scene *s = load_xml(
        "<Node name='root' gravity='0 -10 0' dt='0.01'><FreeMotionAnimationLoop/>"
        "<GenericConstraintSolver maxIterations='100' tolerance='1e-10'/>"
        "<Node name='A'><EulerImplicitSolver/><CGLinearSolver iterations='50' "
        "tolerance='1e-12' threshold='1e-20'/>"
        "<MechanicalObject name='dofs' position='0 0 0  1 0 0  2 0 0  3 0 0'/>"
        "<EdgeSetTopologyContainer name='ta' edges='0 1  1 2  2 3'/><EdgeSetTopologyModifier/>"
        "<UniformMass vertexMass='1'/><FixedProjectiveConstraint indices='1'/>"
        "<UncoupledConstraintCorrection defaultCompliance='1'/></Node>"
        "<Node name='B'><EulerImplicitSolver/><CGLinearSolver iterations='50' "
        "tolerance='1e-12' threshold='1e-20'/>"
        "<MechanicalObject position='0 1 0  1 1 0  2 1 0  3 1 0'/>"
        "<EdgeSetTopologyContainer name='tb' edges='0 1  1 2  2 3'/><EdgeSetTopologyModifier/>"
        "<UniformMass vertexMass='1'/>"
        "<UncoupledConstraintCorrection defaultCompliance='1'/></Node>"
        "<BilateralLagrangianConstraint name='bil' object1='@A/dofs' object2='@B' "
        "topology1='@A/ta' topology2='@B/tb' first_point='0 2 3' second_point='1 2 3' "
        "rest_vector='0 1 0  0 2 0  0 3 0'/></Node>");
    st_component *b = get(s, "bil");
    remove_elems(s, "ta", ST_ELEM_EDGE, (const unsigned[]){0}, 1);
    const st_array *m1 = arr(b, "first_point"), *m2 = arr(b, "second_point");
    const st_array *rest = arr(b, "rest_vector");
    cr_assert_eq(m1->n, 2);
    cr_assert_eq(m2->n, 2);
    cr_assert_eq(m1->u[0], 2);
    cr_assert_eq(m1->u[1], 0);
    cr_assert_eq(m2->u[0], 2);
    cr_assert_eq(m2->u[1], 3);
    cr_assert_eq(rest->n, 2);
    near(rest->r[1], 2.0, 0, "rest_vector[0].y");
    near(rest->r[4], 3.0, 0, "rest_vector[1].y");
    /* The run goes on with two pairs (six rows) on A's three points. */
    steps(s, 5, 0.01);
    const st_array *xa = arr(get(s, "dofs"), "position");
    cr_assert_eq(xa->n, 3);
    for (size_t i = 0; i < 9; i++)
        cr_assert(isfinite(xa->r[i]));
    st_scene_destroy(&s);
}

/* Points added (st_topology_add_points, SOFA's addPoints with ancestors):
 * the state's vectors get the weighted sums of the ancestors' (point 5
 * halfway between points 1 and 4: (1, 0.5, 0.5), its velocity the same
 * sum), UniformMass keeps vertexMass and counts the new point in its
 * totalMass (SOFA's updateMassOnResize: 5 points of mass 1, then 6). An
 * ancestor that is not a point is refused before anything changes. */
Test(topo_mass, points_added_from_ancestors)
{
    st_scene *s = load_xml(A_ONLY_HEAD("0 0 0") "<UniformMass name='mass' vertexMass='1'/>"
                                                "</Node>");
    st_component *dofs = get(s, "dofs"), *m = get(s, "mass");
    arr(dofs, "velocity")->r[3 * 4] = 2.0; /* point 4 moves along x */
    const size_t start[] = {0, 2};
    const unsigned anc[] = {1, 4};
    const double w[] = {0.5, 0.5};
    st_error err = {0};
    cr_assert_eq(st_topology_add_points(get(s, "topo"), 1, start, anc, w, &err), ST_OK, "%s",
                 err.msg);
    const st_array *x = arr(dofs, "position"), *v = arr(dofs, "velocity");
    const st_array *x0 = arr(dofs, "rest_position");
    cr_assert_eq(x->n, 6);
    const double want[3] = {1.0, 0.5, 0.5};
    for (int c = 0; c < 3; c++) {
        near(x->r[15 + c], want[c], 1e-15, "new position");
        near(x0->r[15 + c], want[c], 1e-15, "new rest position");
    }
    near(v->r[15], 1.0, 1e-15, "new velocity x");
    near(real(m, "totalMass"), 6.0, 1e-14, "totalMass");
    steps(s, 2, 0.01);
    cr_assert_eq(arr(dofs, "position")->n, 6);
    /* A refused addition changes nothing (and stops the next step). */
    const unsigned bad[] = {1, 9};
    cr_assert_eq(st_topology_add_points(get(s, "topo"), 1, start, bad, w, &err), ST_EINVAL);
    cr_assert(strstr(err.msg, "its ancestor 9 is not one of the 6 points"), "%s", err.msg);
    cr_assert_eq(arr(dofs, "position")->n, 6);
    st_scene_destroy(&s);
}

/* DiagonalMass and MeshMatrixMass on hexahedra: H1 (unit cube) added beside
 * H0, massDensity 3: each gives 3/8 to its eight vertices; the shared face's
 * four points get both shares; total 6, as the scene that had both. */
Test(topo_mass, hexa_masses_follow_added_hexahedron)
{
    static const char *const masses[] = {"<DiagonalMass name='mass' massDensity='3'/>",
                                         "<MeshMatrixMass name='mass' massDensity='3'/>"};
    for (size_t k = 0; k < 2; k++) {
        char xml[4096];
        snprintf(xml, sizeof xml, "%s%s</Node>", BAR_NO_MASS("0 1 4 3 6 7 10 9"), masses[k]);
        st_scene *s = load_xml(xml);
        st_component *m = get(s, "mass");
        near(real(m, "totalMass"), 3.0, 1e-12, "totalMass before");
        add_elems(s, "topo", ST_ELEM_HEXAHEDRON, (const unsigned[]){1, 2, 5, 4, 7, 8, 11, 10}, 1);
        near(real(m, "totalMass"), 6.0, 1e-12, "totalMass after");
        snprintf(xml, sizeof xml, "%s%s</Node>",
                 BAR_NO_MASS("0 1 4 3 6 7 10 9  1 2 5 4 7 8 11 10"), masses[k]);
        st_scene *fresh = load_xml(xml);
        st_component *mf = get(fresh, "mass");
        cr_assert_eq(arr(m, "vertexMass")->n, 12);
        for (int i = 0; i < 12; i++)
            near(arr(m, "vertexMass")->r[i], arr(mf, "vertexMass")->r[i], 1e-14, masses[k]);
        if (k == 0) /* DiagonalMass: point 1 is on both, point 0 on H0 only */
            near(arr(m, "vertexMass")->r[1], 0.75, 1e-14, "shared vertex");
        st_scene_destroy(&fresh);
        st_scene_destroy(&s);
    }
}

/* FastTetrahedralCorotationalForceField after a removal (SOFA's
 * tetrahedronInfo and edgeInfo follow): removing A runs as the scene of B
 * alone, numbered as the container numbers it. */
Test(topo_mass, fast_tetra_corot_follows_removal)
{
    st_scene *s = load_xml(TWO_TETS_HEAD("0 -10 0") "<UniformMass vertexMass='1'/>"
                                                    "<FixedProjectiveConstraint indices='1'/>"
                                                    "<FastTetrahedralCorotationalForceField "
                                                    "youngModulus='100' poissonRatio='0.3'/>"
                                                    "</Node>");
    remove_elems(s, "topo", ST_ELEM_TETRAHEDRON, (const unsigned[]){0}, 1);
    steps(s, 20, 0.01);
    st_scene *f = load_xml(B_ONLY_HEAD("0 -10 0") "<UniformMass vertexMass='1'/>"
                                                  "<FixedProjectiveConstraint indices='1'/>"
                                                  "<FastTetrahedralCorotationalForceField "
                                                  "youngModulus='100' poissonRatio='0.3'/>"
                                                  "</Node>");
    steps(f, 20, 0.01);
    assert_same_positions(s, f, 1e-12);
    st_scene_destroy(&f);
    st_scene_destroy(&s);
}

/* TriangularBendingSprings follows a change as SOFA's handlers, not by
 * building again. Points 0 (0,0,0), 1 (1,0,0), 2 (0,1,0) and 3, at rest at
 * (1,1,0) but placed at (2,2,0); T0 = (0 1 2). With T1 = (1 3 2) from the
 * start, the edge (1, 2) has two triangles: a spring between the opposite
 * vertices 0 and 3, rest length sqrt 2, stretched to 2 sqrt 2: one step
 * pulls 3 towards 0 (equal negative x and y velocities). With T1 added
 * after init, SOFA's applyTriangleCreation finds the edge (1, 2) already
 * initialised (at init, with one triangle: no spring) and leaves it: no
 * spring at all, and nothing moves. */
#define BEND_HEAD                                                                                 \
    "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>"                         \
    "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"                               \
    "<CGLinearSolver iterations='50' tolerance='1e-12' threshold='1e-20'/>"                       \
    "<MechanicalObject name='dofs' position='0 0 0  1 0 0  0 1 0  2 2 0' "                        \
    "rest_position='0 0 0  1 0 0  0 1 0  1 1 0'/>"
#define BEND_TAIL                                                                                 \
    "<TriangleSetTopologyModifier/><UniformMass vertexMass='1'/>"                                 \
    "<TriangularBendingSprings name='bend' stiffness='10' damping='0'/></Node>"
Test(topo_mass, bending_edge_initialised_with_one_triangle_keeps_no_spring)
{
    st_scene *s = load_xml(BEND_HEAD "<TriangleSetTopologyContainer name='topo' "
                                     "triangles='0 1 2  1 3 2'/>" BEND_TAIL);
    steps(s, 1, 0.01);
    const st_array *v = arr(get(s, "dofs"), "velocity");
    cr_assert_lt(v->r[9], -1e-3, "3 pulled towards 0: vx %g", v->r[9]);
    near(v->r[10], v->r[9], 1e-12, "vy = vx");
    st_scene_destroy(&s);

    s = load_xml(BEND_HEAD "<TriangleSetTopologyContainer name='topo' triangles='0 1 2'/>"
                 BEND_TAIL);
    const unsigned t1[] = {1, 3, 2};
    add_elems(s, "topo", ST_ELEM_TRIANGLE, t1, 1);
    cr_assert_eq(arr(get(s, "topo"), "triangles")->n, 2);
    steps(s, 1, 0.01);
    v = arr(get(s, "dofs"), "velocity");
    for (size_t i = 0; i < v->n; i++)
        cr_assert_eq(v->r[i], 0.0, "velocity %zu: %g", i, v->r[i]);
    st_scene_destroy(&s);
}

/* A rest length stays when a change moves its points: SOFA's
 * movePointsProcess (an incision's SnapAlongPath) moves the point in every
 * vector of the state, rest positions too, and the bending springs, which
 * do not follow it, keep the rest lengths they had. On a 2 x 2 square
 * (points i + 3 j at (i, j, 0), triangles [a, a+1, a+4] [a, a+4, a+3] of
 * each cell's lower-left a), the cut from (1.05, 0.3) to (1.05, 1.7) at
 * t = 0.01 moves 4 from (1, 1) to (1.05, 1.025) (test_incision's
 * snap_path_moves_a_vertex_to_the_mean); [3,4,7] and [3,7,6] keep their
 * edge (3, 7), whose spring between 4 and 6 keeps its rest length sqrt 2
 * while 4 and 6 are now 1.43287 apart: stretched by 0.01866, it pulls 6
 * (mass 1, ks 10) towards 4, along (1.05, -0.975) / 1.43287, with 0.1866 N:
 * in the step of dt 0.01 after the cut 6 gains about (0.001367, -0.001270)
 * (6 has no other spring; the implicit step and 4's own motion, pulled by
 * the springs the cut made before the move, change that by less than 1%).
 * Rebuilt from the moved rest positions, every spring
 * would be at rest and nothing would move. */
Test(topo_mass, bending_rest_length_stays_when_a_point_moves)
{
    static char xml[4096];
    const char *path =
        test_write_temp("bend_cut.txt", "T= 0.01\nINCISE= 2\n1.05 0.3 0 1.05 1.7 0\n");
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>"
             "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"
             "<CGLinearSolver iterations='100' tolerance='1e-14' threshold='1e-30'/>"
             "<MechanicalObject name='dofs' position='0 0 0 1 0 0 2 0 0 0 1 0 1 1 0 2 1 0 0 2 0 "
             "1 2 0 2 2 0'/>"
             "<TriangleSetTopologyContainer name='topo' triangles='0 1 4 0 4 3 1 2 5 1 5 4 3 4 "
             "7 3 7 6 4 5 8 4 8 7'/>"
             "<TriangleSetTopologyModifier/><UniformMass vertexMass='1'/>"
             "<TriangularBendingSprings name='bend' stiffness='10' damping='0'/>"
             "<TopologicalChangeProcessor filename='%s'/></Node>",
             path);
    st_scene *s = load_xml(xml);
    steps(s, 1, 0.01);
    const st_array *v = arr(get(s, "dofs"), "velocity");
    for (size_t i = 0; i < v->n; i++)
        cr_assert_eq(v->r[i], 0.0, "at rest before the cut");
    steps(s, 1, 0.01);
    const st_array *x = arr(get(s, "dofs"), "rest_position");
    near(x->r[12], 1.05, 1e-12, "4 moved (rest x)");
    near(x->r[13], 1.025, 1e-12, "4 moved (rest y)");
    v = arr(get(s, "dofs"), "velocity");
    double f = 10 * (sqrt(1.05 * 1.05 + 0.975 * 0.975) - sqrt(2.0));
    double ux = 1.05 / sqrt(1.05 * 1.05 + 0.975 * 0.975), uy = -0.975 / (1.05 / ux);
    near(v->r[18], 0.01 * f * ux, 1e-2 * 0.01 * f, "6 pulled towards 4 (x)");
    near(v->r[19], 0.01 * f * uy, 1e-2 * 0.01 * f, "6 pulled towards 4 (y)");
    st_scene_destroy(&s);
}
