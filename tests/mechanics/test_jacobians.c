/* test_jacobians.c - for every force field of SolidMechanics.Spring (the
 * bending and grid springs also f = -dE/dx by finite differences), the
 * penalty force fields of MechanicalLoad (plane, sphere) and the elastic
 * FEM force fields (TetrahedronFEMForceField and HexahedronFEMForceField
 * small at a deformed state; their corotational methods at a rotated and
 * translated rest state, where SOFA's tangent R K R^T, which leaves out the
 * derivative of R, is exact),
 * add_dforce and the assembled stiffness matrix equal a central finite
 * difference Jacobian of add_force (to 1e-6 relative); for every mass of the
 * Mass plugin, the assembled mass matrix equals add_m_dx column by column. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static void set(st_component *c, const char *name, const char *text)
{
    st_error err = {0};
    cr_assert_eq(st_component_set(c, name, text, &err), ST_OK, "set %s=%s: %s", name, text,
                 err.msg);
}

static st_component *add(st_node *n, const char *cls, const char *name)
{
    st_component *c = NULL;
    st_error err = {0};
    cr_assert_eq(st_node_add_object(n, cls, name, &c, &err), ST_OK, "add %s: %s", cls, err.msg);
    return c;
}

static st_node *child(st_node *n, const char *name)
{
    st_node *c = NULL;
    st_error err = {0};
    cr_assert_eq(st_node_add_child(n, name, &c, &err), ST_OK, "%s", err.msg);
    return c;
}

static st_scene *new_scene(test_rt *t)
{
    st_error err = {0};
    test_rt_open(t);
    cr_assert_eq(st_runtime_add_plugin_path(t->rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    const char *plugins[] = {"ODESolver.Forward", "Mass", "Topology", "SolidMechanics.Spring",
                             "Constraint.Projective", "MechanicalLoad",
                             "SolidMechanics.FEM.Elastic"};
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(t->rt, plugins[i], &err), ST_OK, "%s", err.msg);
    st_scene *s = NULL;
    cr_assert_eq(st_scene_create(t->rt, &s, &err), ST_OK, "%s", err.msg);
    return s;
}

static st_system *init_scene(st_scene *s)
{
    st_error err = {0};
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s", err.msg);
    cr_assert_geq(s->nsystems, 1);
    return s->systems[0];
}

/* Deterministic pseudo-random numbers in [-1, 1]. */
static double rnd(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return ((*state >> 8) & 0xFFFF) / 32767.5 - 1.0;
}

/* Compares the force field's add_dforce and assembled K with central
 * differences of add_force at a perturbed state (zero velocity: SOFA's
 * spring Jacobian leaves out the derivative of the damping term, which
 * vanishes there), with the SDK's check (settee/check.h). */
static void check_forcefield(st_system *sys, st_component *ff, double perturb, unsigned seed)
{
    for (size_t i = 0; i < sys->xsize; i++)
        sys->x[i] += perturb * rnd(&seed);
    st_jacobian_check chk = {.struct_size = sizeof chk, .h = 1e-6};
    st_error err = {0};
    cr_assert_eq(st_check_forcefield(ff, &chk, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(chk.size, sys->size);
    cr_assert_gt(chk.scale, 0.0, "%s: the Jacobian is zero, the test would prove nothing",
                 ff->cls->name);
    cr_assert(chk.dforce_error >= 0.0 && chk.dforce_error <= 1e-6,
              "%s add_dforce: relative error %.3g (worst at %zu,%zu)", ff->cls->name,
              chk.dforce_error, chk.worst_row, chk.worst_col);
    cr_assert(chk.matrix_error >= 0.0 && chk.matrix_error <= 1e-6,
              "%s assembled: relative error %.3g (worst at %zu,%zu)", ff->cls->name,
              chk.matrix_error, chk.worst_row, chk.worst_col);
}

static st_node *grid_node(st_scene *s, const char *n, st_component **dofs)
{
    st_node *b = child(st_scene_root(s), "Beam");
    add(b, "EulerExplicitSolver", "solver");
    *dofs = add(b, "MechanicalObject", "dofs");
    st_component *g = add(b, "RegularGridTopology", "grid");
    set(g, "n", n);
    set(g, "min", "0 0 0");
    set(g, "max", "1 1.5 2");
    return b;
}

Test(jacobians, spring_force_field_list)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_node *b = child(st_scene_root(s), "P");
    add(b, "EulerExplicitSolver", "solver");
    st_component *dofs = add(b, "MechanicalObject", "dofs");
    set(dofs, "position", "0 0 0  1 0 0  0 1 0  0 0 1  1 1 1");
    st_component *ff = add(b, "SpringForceField", "springs");
    set(ff, "spring", "0 1 100 5 0.8  1 2 50 1 1.2  2 3 70 0 1  3 4 20 2 0.5  0 4 10 1 1.5");
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, 0.1, 7);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(jacobians, spring_force_field_two_states)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_node *root = st_scene_root(s);
    st_node *p = child(root, "P");
    add(p, "EulerExplicitSolver", "solver");
    st_node *a = child(p, "A"), *bb = child(p, "B");
    set(add(a, "MechanicalObject", "dofs"), "position", "0 0 0  1 0 0");
    set(add(bb, "MechanicalObject", "dofs"), "position", "0 1 0  1 1 1  2 0 0");
    st_component *ff = add(p, "SpringForceField", "springs");
    set(ff, "object1", "@A/dofs");
    set(ff, "object2", "@B/dofs");
    set(ff, "indices1", "0 1 1");
    set(ff, "indices2", "0 1 2");
    set(ff, "stiffness", "30 40 50");
    set(ff, "lengths", "0.5 1 2");
    st_system *sys = init_scene(s);
    cr_assert_eq(sys->ndof, 5);
    check_forcefield(sys, ff, 0.1, 11);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(jacobians, mesh_spring_force_field)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_component *dofs;
    st_node *b = grid_node(s, "3 2 2", &dofs);
    st_component *ff = add(b, "MeshSpringForceField", "springs");
    set(ff, "stiffness", "300");
    set(ff, "damping", "4");
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, 0.05, 3);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(jacobians, rest_shape_springs)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_component *dofs;
    st_node *b = grid_node(s, "2 2 2", &dofs);
    st_component *ff = add(b, "RestShapeSpringsForceField", "rs");
    set(ff, "points", "1 3 4 6");
    set(ff, "stiffness", "10 20 30 40");
    set(ff, "activeDirections", "1 0 1");
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, 0.1, 5);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Energy consistency: f = -dE/dx by central differences of
 * potential_energy at a perturbed state (zero velocity), to 1e-6 relative. */
static void check_energy(st_system *sys, st_component *ff, double perturb, unsigned seed)
{
    const st_forcefield_ops *ops = ff->cls->forcefield;
    size_t N = sys->size, NA = 3 * sys->nall;
    double *x = calloc(NA, sizeof *x), *v = calloc(NA, sizeof *v), *f = calloc(NA, sizeof *f);
    memcpy(x, sys->x, NA * sizeof *x);
    for (size_t i = 0; i < N; i++)
        x[i] += perturb * rnd(&seed);
    ops->add_force(ff, &sys->mp, f, x, v);
    double fmax = 0;
    for (size_t i = 0; i < N; i++)
        fmax = fabs(f[i]) > fmax ? fabs(f[i]) : fmax;
    cr_assert_gt(fmax, 0.0, "%s: no force, the test would prove nothing", ff->cls->name);
    const double h = 1e-6;
    for (size_t j = 0; j < N; j++) {
        double xj = x[j];
        x[j] = xj + h;
        double ep = ops->potential_energy(ff, &sys->mp, x);
        x[j] = xj - h;
        double em = ops->potential_energy(ff, &sys->mp, x);
        x[j] = xj;
        double g = -(ep - em) / (2 * h);
        cr_assert(fabs(g - f[j]) <= 1e-6 * fmax, "%s: f[%zu] = %.12g, -dE/dx = %.12g",
                  ff->cls->name, j, f[j], g);
    }
    free(x), free(v), free(f);
}

/* Adds the force field cls (fields kv) to node b, initialises the scene,
 * checks add_dforce, K and f = -dE/dx at a perturbed state, and closes. */
static void check_ff_and_energy(test_rt *t, st_scene *s, st_node *b, const char *cls,
                                const char *const *kv, size_t nkv, double perturb, unsigned seed)
{
    st_component *ff = add(b, cls, "ff");
    for (size_t i = 0; i + 1 < nkv; i += 2)
        set(ff, kv[i], kv[i + 1]);
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, perturb, seed);
    check_energy(sys, ff, perturb, seed + 1);
    st_scene_destroy(&s);
    test_rt_close(t);
}

/* A 4 x 3 grid of points in the plane z = 0 (triangles, quads, edges). */
static void check_surface_ff(const char *cls, const char *const *kv, size_t nkv, unsigned seed)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_component *dofs;
    st_node *b = grid_node(s, "4 3 1", &dofs);
    check_ff_and_energy(&t, s, b, cls, kv, nkv, 0.1, seed);
}

Test(jacobians, triangular_bending_springs)
{
    const char *kv[] = {"stiffness", "500", "damping", "2"};
    check_surface_ff("TriangularBendingSprings", kv, 4, 41);
}

Test(jacobians, fast_triangular_bending_springs)
{
    const char *kv[] = {"bendingStiffness", "7"};
    check_surface_ff("FastTriangularBendingSprings", kv, 2, 43);
}

Test(jacobians, quadular_bending_springs)
{
    const char *kv[] = {"stiffness", "300", "damping", "1"};
    check_surface_ff("QuadularBendingSprings", kv, 4, 47);
}

Test(jacobians, quad_bending_springs)
{
    const char *kv[] = {"stiffness", "300", "damping", "1"};
    check_surface_ff("QuadBendingSprings", kv, 4, 59);
}

Test(jacobians, triangle_bending_springs)
{
    const char *kv[] = {"stiffness", "400", "damping", "2"};
    check_surface_ff("TriangleBendingSprings", kv, 4, 61);
}

Test(jacobians, regular_grid_spring_force_field)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_component *dofs;
    st_node *b = grid_node(s, "3 2 2", &dofs);
    const char *kv[] = {"linesStiffness", "300", "quadsStiffness", "200", "cubesStiffness", "100",
                        "spring", "0 11 50 1 0.5"};
    check_ff_and_energy(&t, s, b, "RegularGridSpringForceField", kv, 8, 0.05, 53);
}

/* A closed surface (the unit cube's 12 outward triangles) under a pressure
 * force field: add_dforce, K and the energy (closed: f = -dE/dx). */
static void check_closed_surface(const char *cls, const char *const *kv, size_t nkv,
                                 unsigned seed)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_node *b = child(st_scene_root(s), "Body");
    add(b, "EulerExplicitSolver", "solver");
    set(add(b, "MechanicalObject", "dofs"), "position",
        "0 0 0  1 0 0  0 1 0  1 1 0  0 0 1  1 0 1  0 1 1  1 1 1");
    set(add(b, "MeshTopology", "topo"), "triangles",
        "0 2 3  0 3 1  4 5 7  4 7 6  0 1 5  0 5 4  2 6 7  2 7 3  0 4 6  0 6 2  1 3 7  1 7 5");
    check_ff_and_energy(&t, s, b, cls, kv, nkv, 0.1, seed);
}

Test(jacobians, surface_pressure_force_field)
{
    const char *kv[] = {"pressure", "3"};
    check_closed_surface("SurfacePressureForceField", kv, 2, 61);
}

Test(jacobians, tait_surface_pressure_force_field)
{
    const char *kv[] = {"p0", "2", "B", "10", "gamma", "1.5"};
    check_closed_surface("TaitSurfacePressureForceField", kv, 6, 67);
}

Test(jacobians, tait_surface_pressure_ideal_gas)
{
    const char *kv[] = {"B", "4", "gamma", "1"};
    check_closed_surface("TaitSurfacePressureForceField", kv, 4, 71);
}

/* Penalty contacts: points on both sides of the surface, none within the
 * finite-difference step of it; K is taken on the contacts recorded by
 * add_force (zero velocity: SOFA leaves out the damping term's derivative). */
static void check_contact(const char *cls, const char *const *kv, size_t nkv)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_node *b = child(st_scene_root(s), "P");
    add(b, "EulerExplicitSolver", "solver");
    set(add(b, "MechanicalObject", "dofs"), "position",
        "0.2 -0.3 0.1  1 0.8 0.4  -0.5 0.25 0.6  0.3 1.9 -0.2  2 -1 1");
    st_component *ff = add(b, cls, "contact");
    for (size_t i = 0; i + 1 < nkv; i += 2)
        set(ff, kv[i], kv[i + 1]);
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, 0.01, 13);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(jacobians, tetrahedron_fem_small)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_component *dofs;
    st_node *b = grid_node(s, "3 2 2", &dofs);
    st_component *ff = add(b, "TetrahedronFEMForceField", "fem");
    set(ff, "method", "small");
    set(ff, "youngModulus", "1000 3000 2000");
    set(ff, "poissonRatio", "0.3");
    set(ff, "localStiffnessFactor", "1 2");
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, 0.05, 17);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(jacobians, tetrahedron_fem_small_global_matrix)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_component *dofs;
    st_node *b = grid_node(s, "2 2 3", &dofs);
    st_component *ff = add(b, "TetrahedronFEMForceField", "fem");
    set(ff, "method", "small");
    set(ff, "computeGlobalMatrix", "true");
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, 0.05, 19);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The points p[0..n) as a position string (rest), and turned by a fixed
 * rotation and translated (pos; p itself when !rotate). Each string holds
 * size bytes. */
static void rigid_strings(const double (*p)[3], int n, bool rotate, char *rest, char *pos,
                          size_t size)
{
    const double a = 0.9, c = cos(a), sn = sin(a);
    const double R[9] = {c, -sn, 0, sn * 0.6, c * 0.6, -0.8, sn * 0.8, c * 0.8, 0.6};
    size_t lr = 0, lp = 0;
    rest[0] = pos[0] = '\0';
    for (int i = 0; i < n; i++) {
        double q[3];
        for (int r = 0; r < 3; r++)
            q[r] = rotate ? R[3 * r] * p[i][0] + R[3 * r + 1] * p[i][1] + R[3 * r + 2] * p[i][2] +
                                r - 0.5
                          : p[i][r];
        lr += (size_t)snprintf(rest + lr, size - lr, "%.17g %.17g %.17g ", p[i][0], p[i][1],
                               p[i][2]);
        lp += (size_t)snprintf(pos + lp, size - lp, "%.17g %.17g %.17g ", q[0], q[1], q[2]);
        cr_assert(lr < size && lp < size, "position strings too long");
    }
}

/* Two tetrahedra sharing a face of class cls, at rest, rotated and
 * translated (or, with perturb > 0, in place and randomly deformed). */
static void check_tetra_class(const char *cls, const char *method, double perturb,
                              bool global_matrix)
{
    static const double p[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1.2}};
    char rest[512], pos[512];
    rigid_strings(p, 5, true, rest, pos, sizeof rest);
    test_rt t;
    st_scene *s = new_scene(&t);
    st_node *b = child(st_scene_root(s), "Body");
    add(b, "EulerExplicitSolver", "solver");
    st_component *dofs = add(b, "MechanicalObject", "dofs");
    set(dofs, "position", perturb > 0 ? rest : pos);
    set(dofs, "rest_position", rest);
    set(add(b, "MeshTopology", "topo"), "tetrahedra", "0 1 2 3  1 2 3 4");
    st_component *ff = add(b, cls, "fem");
    if (method)
        set(ff, "method", method);
    if (global_matrix)
        set(ff, "computeGlobalMatrix", "true");
    set(ff, "youngModulus", perturb > 0 ? "2000 3000" : "2000");
    set(ff, "poissonRatio", perturb > 0 ? "0.35 0.2" : "0.35");
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, perturb, 23);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void check_tetra_rigid(const char *method)
{
    check_tetra_class("TetrahedronFEMForceField", method, 0.0, false);
}

Test(jacobians, tetrahedron_fem_large_rigid) { check_tetra_rigid("large"); }
Test(jacobians, tetrahedron_fem_polar_rigid) { check_tetra_rigid("polar"); }
Test(jacobians, tetrahedron_fem_svd_rigid) { check_tetra_rigid("svd"); }

#define TCOROT "TetrahedralCorotationalFEMForceField"
Test(jacobians, tetrahedral_corotational_small)
{
    check_tetra_class(TCOROT, "small", 0.05, false);
}
Test(jacobians, tetrahedral_corotational_small_global_matrix)
{
    check_tetra_class(TCOROT, "small", 0.05, true);
}
Test(jacobians, tetrahedral_corotational_large_rigid)
{
    check_tetra_class(TCOROT, "large", 0.0, false);
}
Test(jacobians, tetrahedral_corotational_large_global_matrix_rigid)
{
    check_tetra_class(TCOROT, "large", 0.0, true);
}
#define FTCOROT "FastTetrahedralCorotationalForceField"
Test(jacobians, fast_tetrahedral_corotational_none)
{
    check_tetra_class(FTCOROT, "none", 0.05, false);
}
Test(jacobians, fast_tetrahedral_corotational_qr_rigid)
{
    check_tetra_class(FTCOROT, "qr", 0.0, false);
}
Test(jacobians, fast_tetrahedral_corotational_polar_rigid)
{
    check_tetra_class(FTCOROT, "polar", 0.0, false);
}
Test(jacobians, fast_tetrahedral_corotational_polar2_rigid)
{
    check_tetra_class(FTCOROT, "polar2", 0.0, false);
}
Test(jacobians, tetrahedral_corotational_polar_rigid)
{
    check_tetra_class(TCOROT, "polar", 0.0, false);
}

Test(jacobians, hexahedron_fem_small)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_component *dofs;
    st_node *b = grid_node(s, "3 2 2", &dofs);
    st_component *ff = add(b, "HexahedronFEMForceField", "fem");
    set(ff, "method", "small");
    set(ff, "youngModulus", "1000 3000");
    set(ff, "poissonRatio", "0.3 0.1");
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, 0.05, 29);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Two hexahedra sharing a face (one of them skewed, so that its stiffness
 * is integrated with a varying Jacobian), at rest, rotated and translated:
 * there SOFA's corotational tangent is exact. */
static void check_hexa_rigid(const char *method)
{
    static const double p[12][3] = {{0, 0, 0},     {1, 0, 0},      {2.1, 0.1, 0}, {0, 1, 0},
                                    {1, 1, 0},     {2.2, 1.3, 0.1}, {0, 0, 1},    {1, 0, 1},
                                    {2, -0.1, 1.2}, {0, 1, 1},      {1, 1, 1},    {2.3, 1.1, 0.9}};
    char rest[1024], pos[1024];
    rigid_strings(p, 12, true, rest, pos, sizeof rest);
    test_rt t;
    st_scene *s = new_scene(&t);
    st_node *b = child(st_scene_root(s), "Body");
    add(b, "EulerExplicitSolver", "solver");
    st_component *dofs = add(b, "MechanicalObject", "dofs");
    set(dofs, "position", pos);
    set(dofs, "rest_position", rest);
    set(add(b, "MeshTopology", "topo"), "hexahedra", "0 1 4 3 6 7 10 9  1 2 5 4 7 8 11 10");
    st_component *ff = add(b, "HexahedronFEMForceField", "fem");
    set(ff, "method", method);
    set(ff, "youngModulus", "2000");
    set(ff, "poissonRatio", "0.35");
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, 0.0, 31);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* HexahedralFEMForceField on a grid of cubes at rest, where its
 * corotational tangent R^T K R is exact: SOFA's closed-form K (its shear
 * terms use the cell's size along the row's axis) annihilates the
 * infinitesimal rotations only for cubes, so on other boxes, or a rotated
 * rest shape, the tangent leaves out a term, as SOFA's does. */
static void check_hexahedral(const char *method)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_node *b = child(st_scene_root(s), "Beam");
    add(b, "EulerExplicitSolver", "solver");
    add(b, "MechanicalObject", "dofs");
    st_component *g = add(b, "RegularGridTopology", "grid");
    set(g, "n", "4 3 2");
    set(g, "min", "0 0 0");
    set(g, "max", "1.5 1 0.5");
    st_component *ff = add(b, "HexahedralFEMForceField", "fem");
    set(ff, "method", method);
    set(ff, "youngModulus", "1500 2500");
    set(ff, "poissonRatio", "0.3");
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, 0.0, 71);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(jacobians, hexahedral_fem_large) { check_hexahedral("large"); }
Test(jacobians, hexahedral_fem_polar) { check_hexahedral("polar"); }

Test(jacobians, hexahedron_fem_large_rigid) { check_hexa_rigid("large"); }
Test(jacobians, hexahedron_fem_polar_rigid) { check_hexa_rigid("polar"); }
Test(jacobians, hexahedron_fem_small_rigid) { check_hexa_rigid("small"); }

/* A flat mesh of 4 triangles at rest, rotated and translated (large), or in
 * the xy plane (small): there SOFA's tangent, which leaves out the
 * derivatives of J and R, is exact. */
static void check_triangle_class(const char *cls, const char *method, bool rotate)
{
    static const double p[5][3] = {{0, 0, 0}, {1, 0, 0}, {1.2, 0.9, 0}, {-0.1, 1.1, 0},
                                   {0.5, 0.4, 0}};
    char rest[512], pos[512];
    rigid_strings(p, 5, rotate, rest, pos, sizeof rest);
    test_rt t;
    st_scene *s = new_scene(&t);
    st_node *b = child(st_scene_root(s), "Body");
    add(b, "EulerExplicitSolver", "solver");
    st_component *dofs = add(b, "MechanicalObject", "dofs");
    set(dofs, "position", pos);
    set(dofs, "rest_position", rest);
    set(add(b, "MeshTopology", "topo"), "triangles", "0 1 4  1 2 4  2 3 4  3 0 4");
    st_component *ff = add(b, cls, "fem");
    if (method)
        set(ff, "method", method);
    set(ff, "youngModulus", "2000 1000");
    set(ff, "poissonRatio", "0.35");
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, 0.0, 37);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void check_triangle(const char *method, bool rotate)
{
    check_triangle_class("TriangleFEMForceField", method, rotate);
}

Test(jacobians, triangle_fem_large_rigid) { check_triangle("large", true); }
Test(jacobians, triangle_fem_small_rest) { check_triangle("small", false); }
Test(jacobians, triangular_fem_large_rigid)
{
    check_triangle_class("TriangularFEMForceField", "large", true);
}
Test(jacobians, triangular_fem_small_rest)
{
    check_triangle_class("TriangularFEMForceField", "small", false);
}
Test(jacobians, triangular_anisotropic_fem_large_rigid)
{
    check_triangle_class("TriangularAnisotropicFEMForceField", "large", true);
}
Test(jacobians, triangular_anisotropic_fem_small_rest)
{
    check_triangle_class("TriangularAnisotropicFEMForceField", "small", false);
}
Test(jacobians, triangular_fem_optim_rigid)
{
    check_triangle_class("TriangularFEMForceFieldOptim", NULL, true);
}

/* QuadBendingFEMForceField on a 3x2 grid of quads in the xy plane, at
 * rest (its K depends on the current edge lengths; at rest that
 * dependence does not enter the Jacobian). */
Test(jacobians, quad_bending_fem_rest)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_node *b = child(st_scene_root(s), "Plate");
    add(b, "EulerExplicitSolver", "solver");
    set(add(b, "MechanicalObject", "dofs"), "position",
        "0 0 0  1 0 0  2 0 0  3 0 0  0 0.7 0  1 0.7 0  2 0.7 0  3 0.7 0  "
        "0 1.4 0  1 1.4 0  2 1.4 0  3 1.4 0");
    set(add(b, "MeshTopology", "topo"), "quads", "0 1 5 4  1 2 6 5  2 3 7 6  4 5 9 8  5 6 10 9");
    st_component *ff = add(b, "QuadBendingFEMForceField", "fem");
    set(ff, "youngModulus", "2000 1000");
    set(ff, "poissonRatio", "0.3");
    set(ff, "thickness", "0.2");
    st_system *sys = init_scene(s);
    check_forcefield(sys, ff, 0.0, 41);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(jacobians, plane_force_field)
{
    const char *kv[] = {"normal", "0.3 1 -0.2", "d", "0.4", "stiffness", "700"};
    check_contact("PlaneForceField", kv, 6);
}

Test(jacobians, plane_force_field_bilateral_local_range)
{
    const char *kv[] = {"normal", "0 0.6 0.8", "d", "-0.1", "bilateral", "true", "localRange",
                        "1 3"};
    check_contact("PlaneForceField", kv, 8);
}

Test(jacobians, sphere_force_field)
{
    const char *kv[] = {"center", "0.4 0.5 0.3", "radius", "1.2", "stiffness", "300"};
    check_contact("SphereForceField", kv, 6);
}

/* The assembled mass matrix (mf = 1) equals add_m_dx applied to unit
 * vectors, and a diagonal mass's acc_from_f inverts it. */
static void check_mass(const char *cls, const char *const *fields, size_t nf, bool diagonal)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_component *dofs;
    st_node *b = grid_node(s, "3 2 2", &dofs);
    st_component *mc = add(b, cls, "mass");
    for (size_t i = 0; i + 1 < nf; i += 2)
        set(mc, fields[i], fields[i + 1]);
    st_system *sys = init_scene(s);
    const st_mass_ops *ops = mc->cls->mass;
    cr_assert_eq(ops->is_diagonal(mc), diagonal, "%s is_diagonal", cls);
    size_t N = sys->size, NA = 3 * sys->nall;
    double *e = calloc(NA, sizeof *e), *col = calloc(NA, sizeof *col);
    st_matrix *m = NULL;
    st_error err = {0};
    cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, sys, 1.0, 0.0, 0.0, &err), ST_OK, "%s", err.msg);
    st_csr csr;
    st_matrix_csr(m, &csr);
    double *M = calloc(N * N, sizeof *M);
    for (size_t r = 0; r < N; r++)
        for (int k = csr.rowptr[r]; k < csr.rowptr[r + 1]; k++)
            M[r * N + (size_t)csr.colind[k]] += csr.values[k];
    double mmax = 0;
    for (size_t i = 0; i < N * N; i++)
        mmax = fmax(mmax, fabs(M[i]));
    cr_assert_gt(mmax, 0.0);
    for (size_t j = 0; j < N; j++) {
        memset(e, 0, NA * sizeof *e);
        memset(col, 0, NA * sizeof *col);
        e[j] = 1.0;
        ops->add_m_dx(mc, &sys->mp, col, e, 1.0);
        for (size_t i = 0; i < N; i++)
            cr_assert(fabs(col[i] - M[i * N + j]) <= 1e-12 * mmax,
                      "%s: M(%zu,%zu) = %.17g assembled, %.17g from add_m_dx", cls, i, j,
                      M[i * N + j], col[i]);
        if (diagonal) {
            double a[3 * 64] = {0};
            cr_assert_leq(NA, sizeof a / sizeof *a);
            ops->acc_from_f(mc, &sys->mp, a, col);
            for (size_t i = 0; i < N; i++)
                cr_assert(fabs(a[i] - e[i]) <= 1e-12, "%s acc_from_f(M e_%zu)[%zu] = %g", cls,
                          j, i, a[i]);
        }
    }
    /* Gravity is g times each row sum of M. */
    double *f = calloc(NA, sizeof *f);
    ops->add_gravity_to_force(mc, &sys->mp, f, sys->x, sys->v);
    for (size_t i = 0; i < N; i++) {
        double rs = 0;
        for (size_t j = i % 3; j < N; j += 3)
            rs += M[i * N + j];
        double want = sys->mp.gravity[i % 3] * rs;
        cr_assert(fabs(f[i] - want) <= 1e-12 * (fabs(want) + 1), "%s gravity[%zu] = %.17g, "
                                                                   "g * row sum = %.17g",
                  cls, i, f[i], want);
    }
    st_matrix_destroy(&m);
    free(e), free(col), free(M), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(jacobians, diagonal_mass)
{
    const char *f[] = {"totalMass", "3"};
    check_mass("DiagonalMass", f, 2, true);
}

Test(jacobians, mesh_matrix_mass_consistent)
{
    const char *f[] = {"massDensity", "2"};
    check_mass("MeshMatrixMass", f, 2, false);
}

Test(jacobians, mesh_matrix_mass_lumped)
{
    const char *f[] = {"totalMass", "5", "lumping", "true"};
    check_mass("MeshMatrixMass", f, 4, true);
}

Test(jacobians, mesh_matrix_mass_exact_hexahedra)
{
    const char *f[] = {"totalMass", "5", "exactHexahedra", "true"};
    check_mass("MeshMatrixMass", f, 4, false);
}

/* The check itself catches a wrong derivative: a force field whose
 * add_dforce and matrix are twice its true stiffness, and whose energy has
 * the wrong sign, fails each comparison by about 100 %. */
typedef struct wrong_ff {
    st_component base;
} wrong_ff;

static void wrong_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                            const double *v)
{
    st_mstate *ms = st_component_mstate(self);
    double *fs = st_slice(f, ms);
    const double *xs = st_slice_x(x, ms);
    for (size_t i = 0; i < 3 * ms->n; i++)
        fs[i] -= 10.0 * xs[i] * xs[i] * xs[i]; /* f = -10 x^3, K = -30 x^2 */
}

static void wrong_add_dforce(st_component *self, const st_mparams *mp, double *df,
                             const double *dx, double kf, double bf)
{
    st_mstate *ms = st_component_mstate(self);
    double *d = st_slice(df, ms);
    const double *u = st_slice(dx, ms);
    const double *x = ms->position.r;
    for (size_t i = 0; i < 3 * ms->n; i++)
        d[i] -= kf * 60.0 * x[i] * x[i] * u[i];
}

static void wrong_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kf)
{
    st_mstate *ms = st_component_mstate(self);
    const double *x = ms->position.r;
    for (size_t i = 0; i < ms->n; i++) {
        double b[9] = {0};
        for (int a = 0; a < 3; a++)
            b[4 * a] = -kf * 60.0 * x[3 * i + a] * x[3 * i + a];
        st_matrix_add_block(m, ms, i, ms, i, b);
    }
}

static double wrong_energy(st_component *self, const st_mparams *mp, const double *x)
{
    st_mstate *ms = st_component_mstate(self);
    const double *xs = st_slice_x(x, ms);
    double e = 0.0;
    for (size_t i = 0; i < 3 * ms->n; i++)
        e -= 2.5 * xs[i] * xs[i] * xs[i] * xs[i]; /* the right one is +2.5 x^4 */
    return e;
}

static const st_forcefield_ops wrong_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = wrong_add_force,
    .add_dforce = wrong_add_dforce,
    .add_k_to_matrix = wrong_add_k,
    .potential_energy = wrong_energy,
};

static const st_class wrong_class = {
    .struct_size = sizeof(st_class),
    .name = "TestWrongStiffness",
    .category = "ForceField",
    .description = "a force field with a wrong stiffness",
    .instance_size = sizeof(wrong_ff),
    .forcefield = &wrong_ops,
};

Test(jacobians, sdk_check_catches_a_wrong_stiffness)
{
    test_rt t;
    st_scene *s = new_scene(&t);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(t.rt), &wrong_class, &err), ST_OK, "%s",
                 err.msg);
    st_node *b = child(st_scene_root(s), "P");
    add(b, "EulerExplicitSolver", "solver");
    set(add(b, "MechanicalObject", "dofs"), "position", "1 0.5 -1  0.3 2 1");
    st_component *ff = add(b, "TestWrongStiffness", "wrong");
    init_scene(s);
    st_jacobian_check chk = {.struct_size = sizeof chk};
    cr_assert_eq(st_check_forcefield(ff, &chk, &err), ST_OK, "%s", err.msg);
    /* Largest entry: -30 * 2^2 = -120; wrong by as much. */
    cr_assert(fabs(chk.scale - 120.0) < 1e-4, "scale %.17g", chk.scale);
    cr_assert(fabs(chk.dforce_error - 1.0) < 1e-6, "dforce error %.17g", chk.dforce_error);
    cr_assert(fabs(chk.matrix_error - 1.0) < 1e-6, "matrix error %.17g", chk.matrix_error);
    cr_assert_eq(chk.worst_row, 4);
    cr_assert_eq(chk.worst_col, 4);
    /* f = -dE/dx with the right sign would give 0; with the wrong one, 2 |f|. */
    cr_assert(fabs(chk.energy_error - 2.0) < 1e-6, "energy error %.17g", chk.energy_error);
    /* A mapped state or a non-force-field is refused with a message. */
    st_component *dofs = test_find_object(s, "dofs");
    cr_assert_neq(st_check_forcefield(dofs, &chk, &err), ST_OK);
    cr_assert(strstr(err.msg, "not a force field"), "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
