/* test_mechanical_load_catalogue.c - the MechanicalLoad classes of issue 30
 * (SOFA's Sofa.Component.MechanicalLoad catalogue): EdgePressureForceField,
 * Gravity, Uniform- and DiagonalVelocityDampingForceField, against closed
 * forms and worked values, with finite-difference checks of the
 * derivatives (st_check_forcefield). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "settee/check.h"
#include "support.h"

#define PLUGINS                                                                                    \
    "ODESolver.Forward, ODESolver.Backward, LinearSolver.Direct, "                                 \
    "LinearSolver.Iterative, Mass, MechanicalLoad, Topology, SolidMechanics.Spring, "              \
    "Constraint.Projective"

static st_scene *load_status(test_rt *t, const char *g, const char *objects, st_status *rc,
                             st_error *err)
{
    static char yaml[8192];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [%s]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [" PLUGINS "]}\n"
             "%s",
             g, objects);
    test_rt_open(t);
    st_scene *s = NULL;
    cr_assert_eq(test_load_string(t, yaml, &s, err), ST_OK, "load: %s\n%s", err->msg, yaml);
    *rc = st_scene_init(s, err);
    return s;
}

static st_scene *load(test_rt *t, const char *g, const char *objects)
{
    st_error err = {0};
    st_status rc;
    st_scene *s = load_status(t, g, objects, &rc, &err);
    cr_assert_eq(rc, ST_OK, "init: %s\n%s", err.msg, t->log);
    return s;
}

static void steps(st_scene *s, int n)
{
    st_error err = {0};
    for (int k = 0; k < n; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s", k, err.msg);
}

static void done(st_scene **s, test_rt *t)
{
    st_scene_destroy(s);
    test_rt_close(t);
}

static void near(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol * (fabs(want) > 1 ? fabs(want) : 1),
              "%s: got %.17g, want %.17g", what, got, want);
}

/* The force of component `name` alone at the system's current state, into
 * f (the system's derivative size, at most 64). */
static st_component *force_of(st_scene *s, const char *name, double *f)
{
    st_component *c = test_find_object(s, name);
    cr_assert(c, "no %s", name);
    st_mstate *ms = st_component_mstate(c);
    st_system *sys = ms->system;
    cr_assert(sys && sys->size_all <= 64);
    memset(f, 0, sys->size_all * sizeof *f);
    c->cls->forcefield->add_force(c, &sys->mp, f, sys->x, sys->v);
    return c;
}

/* energy: whether the component gives the potential of its force. */
static void check_derivatives(st_component *c, double tol, bool energy)
{
    st_jacobian_check chk = {.struct_size = sizeof chk};
    st_error err = {0};
    cr_assert_eq(st_check_forcefield(c, &chk, &err), ST_OK, "%s", err.msg);
    if (chk.dforce_error >= 0)
        cr_assert_lt(chk.dforce_error, tol, "dforce %g (row %zu, column %zu, scale %g)",
                     chk.dforce_error, chk.worst_row, chk.worst_col, chk.scale);
    if (chk.matrix_error >= 0)
        cr_assert_lt(chk.matrix_error, tol, "matrix %g", chk.matrix_error);
    if (energy)
        cr_assert_lt(chk.energy_error, tol, "energy %g", chk.energy_error);
}

/* ---- EdgePressureForceField ---- */

#define EP_BODY(pos, topo)                                                                         \
    "    - EulerExplicitSolver: {}\n"                                                              \
    "    - MechanicalObject: {name: dofs, position: " pos "}\n"                                    \
    "    - UniformMass: {vertexMass: 1}\n"                                                         \
    "    - " topo "\n"

/* pressure x rest length, half on each vertex: edges (0,0,0)-(2,0,0) and
 * (2,0,0)-(2,1,0) under pressure (0, 3, 0) carry (0, 6, 0) and (0, 3, 0):
 * f = (0, 3, 0), (0, 4.5, 0), (0, 1.5, 0). A constant force: zero
 * derivative, energy -sum F.(xa + xb)/2. */
Test(edge_pressure, constant_pressure_on_listed_edges)
{
    test_rt t;
    st_scene *s = load(
        &t, "0, 0, 0",
        EP_BODY(
            "[[0,0,0],[2,0,0],[2,1,0]]",
            "EdgeSetTopologyContainer: {edges: [[0,1],[1,2]]}") "    - EdgePressureForceField: "
                                                                "{name: ep, pressure: [0, 3, 0], "
                                                                "edgeIndices: [0, 1]}\n");
    double f[64];
    st_component *c = force_of(s, "ep", f);
    const double want[9] = {0, 3, 0, 0, 4.5, 0, 0, 1.5, 0};
    for (int k = 0; k < 9; k++)
        near(f[k], want[k], 1e-15, "f");
    st_system *sys = st_component_mstate(c)->system;
    /* E = -(6 (0 + 0)/2 + 3 (0 + 1)/2) in y. */
    near(c->cls->forcefield->potential_energy(c, &sys->mp, sys->x), -1.5, 1e-15, "energy");
    check_derivatives(c, 1e-6, true);
    /* A free fall with a constant extra force: v = h k (f/m). */
    steps(s, 10);
    st_mstate *ms = st_component_mstate(c);
    near(ms->velocity.r[4], 0.01 * 10 * 4.5, 1e-13, "v1");
    done(&s, &t);
}

/* Selection by a slab of the rest positions (dmin < p.normal < dmax,
 * strict) and by an edge list (replacing the other selections). */
Test(edge_pressure, plane_and_edge_list_selection)
{
    test_rt t;
    st_scene *s = load(
        &t, "0, 0, 0",
        EP_BODY(
            "[[0,0,0],[0,1,0],[1,1,0]]",
            "EdgeSetTopologyContainer: {edges: [[0,1],[1,2]]}") "    - EdgePressureForceField: "
                                                                "{name: ep, pressure: [2, 0, 0], "
                                                                "normal: [1, 0, 0], dmin: -0.1, "
                                                                "dmax: 0.1}\n"
                                                                "    - EdgePressureForceField: "
                                                                "{name: ep2, pressure: [0, 0, 1], "
                                                                "normal: [1, 0, 0], dmin: -0.1, "
                                                                "dmax: 0.1, edges: [[1, 2]]}\n");
    double f[64];
    force_of(s, "ep", f);
    const double want[9] = {1, 0, 0, 1, 0, 0, 0, 0, 0};
    for (int k = 0; k < 9; k++)
        near(f[k], want[k], 1e-15, "slab selection");
    force_of(s, "ep2", f);
    const double want2[9] = {0, 0, 0, 0, 0, 0.5, 0, 0, 0.5};
    for (int k = 0; k < 9; k++)
        near(f[k], want2[k], 1e-15, "edge list");
    done(&s, &t);
}

/* Intensity with a binormal: F = I L unit(b x t). SOFA's timing: each
 * add_force applies the forces the previous one computed, then recomputes
 * them from the state's positions. */
Test(edge_pressure, intensity_binormal_and_its_timing)
{
    test_rt t;
    st_scene *s =
        load(&t, "0, 0, 0",
             EP_BODY("[[0,0,0],[1,0,0]]",
                     "EdgeSetTopologyContainer: {edges: [[0,1]]}") "    - EdgePressureForceField: "
                                                                   "{name: ep, p_intensity: [2], "
                                                                   "binormal: [0, 0, 5], "
                                                                   "edgeIndices: [0]}\n");
    double f[64];
    force_of(s, "ep", f);
    near(f[1], 1, 1e-15, "z x x = y, I L / 2");
    near(f[4], 1, 1e-15, "second vertex");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    ms->position.r[3] = 0, ms->position.r[4] = 1; /* the edge turns to y */
    force_of(s, "ep", f);
    near(f[1], 1, 1e-15, "the force of the previous update");
    force_of(s, "ep", f);
    near(f[0], -1, 1e-15, "z x y = -x");
    near(f[1], 0, 1e-15, "now along -x");
    done(&s, &t);
}

/* Intensity without binormal: the boundary edge (0,0,0)-(1,0,0) of the
 * triangle with (0,1,0) is pushed towards the triangle: F = (0, 3, 0). */
Test(edge_pressure, intensity_towards_the_triangle)
{
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0",
                       EP_BODY("[[0,0,0],[1,0,0],[0,1,0]]",
                               "MeshTopology: {edges: [[0,1],[1,2],[2,0]], triangles: "
                               "[[0,1,2]]}") "    - EdgePressureForceField: {name: ep, "
                                             "p_intensity: [3], "
                                             "edgeIndices: [0]}\n");
    double f[64];
    st_component *c = force_of(s, "ep", f);
    const double want[9] = {0, 1.5, 0, 0, 1.5, 0, 0, 0, 0};
    for (int k = 0; k < 9; k++)
        near(f[k], want[k], 1e-15, "f");
    /* No derivative (as SOFA's: the direction is updated after each force,
     * not differentiated) and no energy (SOFA's is 0). */
    check_derivatives(c, 1e-6, false);
    done(&s, &t);
}

Test(edge_pressure, out_of_range_edge_index_is_an_error)
{
    test_rt t;
    st_error err = {0};
    st_status rc;
    st_scene *s = load_status(
        &t, "0, 0, 0",
        EP_BODY("[[0,0,0],[1,0,0]]",
                "EdgeSetTopologyContainer: {edges: [[0,1]]}") "    - EdgePressureForceField: "
                                                              "{pressure: [1, 0, 0], "
                                                              "edgeIndices: [3]}\n",
        &rc, &err);
    cr_assert_neq(rc, ST_OK);
    cr_assert(strstr(err.msg, "out of edge indices bounds"), "%s", err.msg);
    done(&s, &t);
}

/* ---- Gravity ---- */

/* A Gravity in the root overrides the root's gravity attribute: a particle
 * in a child node falls with it (symplectic Euler: x = h^2 g k (k+1)/2). */
Test(gravity, overrides_the_root_attribute)
{
    test_rt t;
    st_scene *s = load(&t, "0, -9.81, 0",
                       "    - Gravity: {gravity: [0, 0, -2]}\n"
                       "  children:\n"
                       "    - name: Body\n"
                       "      objects:\n"
                       "        - EulerExplicitSolver: {}\n"
                       "        - MechanicalObject: {name: dofs, position: [[0, 0, 0]]}\n"
                       "        - UniformMass: {vertexMass: 1}\n");
    steps(s, 10);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    near(ms->position.r[1], 0, 0, "no y gravity");
    near(ms->position.r[2], -2 * 1e-4 * 55, 1e-14, "z");
    done(&s, &t);
}

/* Below the root, as in SOFA, a Gravity sets the gravity of its subtree:
 * two bodies under their own solvers fall in opposite directions, a node
 * below one of them holding its own Gravity keeps it, and all of this
 * survives the kernel's copy of the context after each step. */
Test(gravity, below_the_root_sets_its_subtree)
{
    test_rt t;
    st_scene *s = load(&t, "0, -9.81, 0",
                       "  children:\n"
                       "    - name: Up\n"
                       "      objects:\n"
                       "        - Gravity: {gravity: [0, 10, 0]}\n"
                       "        - EulerExplicitSolver: {}\n"
                       "        - MechanicalObject: {name: up, position: [[0, 0, 0]]}\n"
                       "        - UniformMass: {vertexMass: 1}\n"
                       "      children:\n"
                       "        - name: Side\n"
                       "          objects:\n"
                       "            - Gravity: {gravity: [4, 0, 0]}\n"
                       "            - EulerExplicitSolver: {}\n"
                       "            - MechanicalObject: {name: side, position: [[0, 0, 0]]}\n"
                       "            - UniformMass: {vertexMass: 1}\n"
                       "    - name: Down\n"
                       "      objects:\n"
                       "        - EulerExplicitSolver: {}\n"
                       "        - MechanicalObject: {name: down, position: [[0, 0, 0]]}\n"
                       "        - UniformMass: {vertexMass: 1}\n");
    steps(s, 10);
    const double k = 1e-4 * 55; /* h^2 k (k+1) / 2 with h = 0.01, k = 10 */
    st_mstate *up = (st_mstate *)test_find_object(s, "up");
    st_mstate *side = (st_mstate *)test_find_object(s, "side");
    st_mstate *down = (st_mstate *)test_find_object(s, "down");
    near(up->position.r[1], 10 * k, 1e-14, "up y");
    near(side->position.r[0], 4 * k, 1e-14, "side x");
    near(side->position.r[1], 0, 0, "side y");
    near(down->position.r[1], -9.81 * k, 1e-14, "down y");
    double g[3];
    st_node_gravity(st_scene_root(s), g);
    near(g[1], -9.81, 0, "the root keeps its own");
    done(&s, &t);
}

/* Built in code (no reading step): init sets the value everywhere, so the
 * first step already uses it. */
Test(gravity, scene_built_in_code)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    const char *plugins[] = {"ODESolver.Forward", "Mass", "MechanicalLoad"};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(st_runtime_load_plugin(t.rt, plugins[i], &err), ST_OK, "%s", err.msg);
    st_scene *s = NULL;
    cr_assert_eq(st_scene_create(t.rt, &s, &err), ST_OK);
    st_node *root = st_scene_root(s), *b = NULL;
    cr_assert_eq(st_node_add_child(root, "Body", &b, &err), ST_OK);
    st_component *c = NULL;
    cr_assert_eq(st_node_add_object(root, "Gravity", NULL, &c, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_component_set(c, "gravity", "3 0 0", &err), ST_OK);
    cr_assert_eq(st_node_add_object(b, "EulerExplicitSolver", NULL, &c, &err), ST_OK);
    cr_assert_eq(st_node_add_object(b, "MechanicalObject", "dofs", &c, &err), ST_OK);
    cr_assert_eq(st_component_set(c, "position", "0 0 0", &err), ST_OK);
    cr_assert_eq(st_node_add_object(b, "UniformMass", NULL, &c, &err), ST_OK);
    cr_assert_eq(st_component_set(c, "vertexMass", "1", &err), ST_OK);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    steps(s, 1);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    near(ms->position.r[0], 3 * 1e-4, 1e-15, "x after one step");
    near(ms->position.r[1], 0, 0, "no default gravity");
    done(&s, &t);
}

/* ---- Uniform- and DiagonalVelocityDampingForceField ---- */

/* A free point of mass m launched with v0, no gravity, f = -c v:
 *  symplectic Euler, or implicit Euler with an explicit force (implicit
 *  false): v_k = v0 (1 - h c/m)^k;
 *  implicit Euler with B = -c I (implicit true): v_k = v0 (m/(m + h c))^k. */
static void damping_run(const char *solver, const char *tmpl, const char *pos, const char *vel,
                        const char *ff, int nd, const double *c, double m, bool implicit_b)
{
    char objs[2048];
    snprintf(objs, sizeof objs,
             "%s"
             "    - MechanicalObject: {name: dofs, template: %s, position: \"%s\", "
             "velocity: \"%s\"}\n"
             "    - UniformMass: {vertexMass: %g}\n"
             "    - %s\n",
             solver, tmpl, pos, vel, m, ff);
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0", objs);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    double v0[12];
    memcpy(v0, ms->velocity.r, (size_t)nd * sizeof *v0);
    const int k = 25;
    const double h = 0.01;
    steps(s, k);
    for (int j = 0; j < nd; j++) {
        double r = implicit_b ? m / (m + h * c[j]) : 1 - h * c[j] / m;
        char what[64];
        snprintf(what, sizeof what, "%s v[%d]", tmpl, j);
        near(ms->velocity.r[j], v0[j] * pow(r, k), 1e-12, what);
    }
    done(&s, &t);
}

#define EXPLICIT "    - EulerExplicitSolver: {symplectic: true}\n"
#define IMPLICIT_CG                                                                                \
    "    - EulerImplicitSolver: {rayleighStiffness: 0, rayleighMass: 0}\n"                         \
    "    - CGLinearSolver: {iterations: 100, tolerance: 1e-30, threshold: 1e-30}\n"
#define IMPLICIT_LDL                                                                               \
    "    - EulerImplicitSolver: {rayleighStiffness: 0, rayleighMass: 0}\n"                         \
    "    - SparseLDLSolver: {}\n"

Test(velocity_damping, uniform_explicit_and_implicit)
{
    const double c[3] = {3, 3, 3};
    damping_run(EXPLICIT, "Vec3d", "0 0 0", "1 -2 0.5",
                "UniformVelocityDampingForceField: {dampingCoefficient: 3}", 3, c, 2, false);
    damping_run(IMPLICIT_CG, "Vec3d", "0 0 0", "1 -2 0.5",
                "UniformVelocityDampingForceField: {damping: 3, implicit: true}", 3, c, 2, true);
    damping_run(IMPLICIT_LDL, "Vec3d", "0 0 0", "1 -2 0.5",
                "UniformVelocityDampingForceField: {damping: 3, implicit: true}", 3, c, 2, true);
    /* An explicit force inside an implicit solver. */
    damping_run(IMPLICIT_LDL, "Vec3d", "0 0 0", "1 -2 0.5",
                "UniformVelocityDampingForceField: {damping: 3}", 3, c, 2, false);
}

Test(velocity_damping, uniform_default_and_other_templates)
{
    const double c[6] = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
    damping_run(EXPLICIT, "Vec1d", "0", "2", "UniformVelocityDampingForceField: {}", 1, c, 0.5,
                false);
    damping_run(IMPLICIT_LDL, "Vec2d", "0 0", "2 1",
                "UniformVelocityDampingForceField: {implicit: true}", 2, c, 0.5, true);
    /* Rigid3d: linear and angular velocities alike (UniformMass's inertia
     * per unit mass is the identity). */
    damping_run(EXPLICIT, "Rigid3d", "0 0 0 0 0 0 1", "1 2 3 0.5 -1 2",
                "UniformVelocityDampingForceField: {}", 6, c, 0.5, false);
    damping_run(IMPLICIT_LDL, "Rigid3d", "0 0 0 0 0 0 1", "1 2 3 0.5 -1 2",
                "UniformVelocityDampingForceField: {implicit: true}", 6, c, 0.5, true);
}

Test(velocity_damping, diagonal_per_dof_and_padding)
{
    /* Two Vec2d points, one coefficient vector: the second point uses it
     * too. The template is written: settee reads derivative lists before it
     * knows the state's type, as Vec3d points unless told. */
    const double c1[4] = {1, 2, 1, 2};
    damping_run(IMPLICIT_LDL, "Vec2d", "0 0  1 1", "1 1  -1 2",
                "DiagonalVelocityDampingForceField: {template: Vec2d, dampingCoefficient: \"1 2\"}",
                4, c1, 1, true);
    const double c2[4] = {1, 2, 3, 4};
    damping_run(
        IMPLICIT_CG, "Vec2d", "0 0  1 1", "1 1  -1 2",
        "DiagonalVelocityDampingForceField: {template: Vec2d, dampingCoefficient: \"1 2  3 4\"}", 4,
        c2, 1, true);
    damping_run(
        EXPLICIT, "Vec2d", "0 0  1 1", "1 1  -1 2",
        "DiagonalVelocityDampingForceField: {template: Vec2d, dampingCoefficient: \"1 2  3 4\"}", 4,
        c2, 1, false);
    const double c6[6] = {1, 2, 3, 4, 5, 6};
    damping_run(IMPLICIT_LDL, "Rigid3d", "0 0 0 0 0 0 1", "1 2 3 0.5 -1 2",
                "DiagonalVelocityDampingForceField: {dampingCoefficient: \"1 2 3 4 5 6\"}", 6, c6,
                2, true);
}

/* No stiffness: the finite-difference check sees K = 0 on both. */
Test(velocity_damping, derivatives)
{
    test_rt t;
    st_scene *s =
        load(&t, "0, 0, 0",
             IMPLICIT_LDL "    - MechanicalObject: {name: dofs, position: [[0,0,0],[1,2,3]], "
                          "velocity: [[1,2,3],[4,5,6]]}\n"
                          "    - UniformMass: {vertexMass: 1}\n"
                          "    - UniformVelocityDampingForceField: {name: u, implicit: true}\n"
                          "    - DiagonalVelocityDampingForceField: {name: d, "
                          "dampingCoefficient: [[1, 2, 3]]}\n");
    /* Forces without a potential (SOFA's energy is 0): no energy check. */
    check_derivatives(test_find_object(s, "u"), 1e-9, false);
    check_derivatives(test_find_object(s, "d"), 1e-9, false);
    done(&s, &t);
}

/* ---- LinearForceField ---- */

/* Keys (0, 0) and (0.2, (2, 0, 0)), scale 3: during step j (time j h) the
 * force on point 1 is 3 * 2 * j h / 0.2 = 30 j h; from t = 0.2 on it is
 * forces[last] = (2, 0, 0), unscaled (SOFA's rule). Symplectic Euler, m 1:
 * v_n = h sum_j F_j. */
Test(linear_force, interpolation_and_last_key)
{
    test_rt t;
    st_scene *s =
        load(&t, "0, 0, 0",
             EXPLICIT "    - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0]]}\n"
                      "    - UniformMass: {vertexMass: 1}\n"
                      "    - LinearForceField: {name: lf, points: [1], force: 3, times: [0, 0.2], "
                      "forces: [[0,0,0],[2,0,0]]}\n");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    const double h = 0.01;
    steps(s, 10);
    near(ms->velocity.r[3], h * 30 * h * 45, 1e-12, "ramp");
    near(ms->velocity.r[0], 0, 0, "point 0 has no force");
    st_component *lf = test_find_object(s, "lf");
    check_derivatives(lf, 1e-6, true);
    steps(s, 30); /* t = 0.4 at the last step */
    double v = 0;
    for (int j = 0; j < 40; j++) {
        double tj = j * h;
        v += h * (tj < 0.2 - 1e-12 ? 30 * tj : 2);
    }
    near(ms->velocity.r[3], v, 1e-9, "after the last key: unscaled");
    done(&s, &t);
}

Test(linear_force, rigid3d_torque)
{
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0",
                       EXPLICIT "    - MechanicalObject: {name: dofs, template: Rigid3d, "
                                "position: \"0 0 0 0 0 0 1\"}\n"
                                "    - UniformMass: {vertexMass: 1}\n"
                                "    - LinearForceField: {points: [0], times: [0], "
                                "forces: \"0 0 0 0 0 0.5\"}\n");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    steps(s, 10);
    near(ms->velocity.r[5], 10 * 0.01 * 0.5, 1e-12, "angular velocity under a constant torque");
    done(&s, &t);
}

/* ---- TorsionForceField ---- */

/* Axis z (given as (0, 0, 2)), torque 3, origin 0: the point (1, 0, 5)
 * feels 3 z x (1, 0, 0) = (0, 3, 0). Rigid3d adds the torque (0, 0, 3).
 * The stiffness is SOFA's symmetric 3 (I - z z^T), not the force's
 * derivative: add_dforce gives it, and the direct and CG paths agree. */
Test(torsion, force_and_stiffness)
{
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0",
                       IMPLICIT_LDL
                       "    - MechanicalObject: {name: dofs, position: [[1,0,5],[0,2,0],[4,4,4]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - TorsionForceField: {name: tf, indices: [0, 1], torque: 3, "
                       "axis: [0, 0, 2]}\n");
    double f[64];
    st_component *c = force_of(s, "tf", f);
    const double want[9] = {0, 3, 0, -6, 0, 0, 0, 0, 0};
    for (int k = 0; k < 9; k++)
        near(f[k], want[k], 1e-15, "f");
    st_system *sys = st_component_mstate(c)->system;
    double dx[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, df[9] = {0};
    c->cls->forcefield->add_dforce(c, &sys->mp, df, dx, 2.0, 0.0);
    const double wdf[9] = {6, 12, 0, 24, 30, 0, 0, 0, 0};
    for (int k = 0; k < 9; k++)
        near(df[k], wdf[k], 1e-15, "df = 2 * 3 (I - zz^T) dx");
    done(&s, &t);

    s = load(&t, "0, 0, 0",
             IMPLICIT_LDL
             "    - MechanicalObject: {name: dofs, template: Rigid3d, "
             "position: \"1 0 5 0 0 0 1\"}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - TorsionForceField: {name: tf, indices: [0], torque: 3, axis: [0, 0, 1]}\n");
    force_of(s, "tf", f);
    const double wr[6] = {0, 3, 0, 0, 0, 3};
    for (int k = 0; k < 6; k++)
        near(f[k], wr[k], 1e-15, "rigid f");
    done(&s, &t);
}

/* A ring of four points on springs, turned by the torque: the assembled
 * (LDL) and matrix-free (CG) paths give the same trajectory, and the four
 * points stay symmetric. */
static void twister(const char *solver, double *out)
{
    char objs[2048];
    snprintf(objs, sizeof objs,
             "%s"
             "    - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0],[0,1,0],[-1,0,0],"
             "[0,-1,0]]}\n"
             "    - UniformMass: {vertexMass: 0.5}\n"
             "    - SpringForceField: {indices1: [0,0,0,0], indices2: [1,2,3,4], "
             "stiffness: [200,200,200,200], damping: [1,1,1,1], lengths: [1,1,1,1]}\n"
             "    - TorsionForceField: {indices: [1, 2, 3, 4], torque: 2, axis: [0, 0, 1]}\n"
             "    - FixedProjectiveConstraint: {indices: [0]}\n",
             solver);
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0", objs);
    steps(s, 50);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    memcpy(out, ms->position.r, 15 * sizeof *out);
    done(&s, &t);
}

Test(torsion, direct_and_cg_agree)
{
    double a[15], b[15];
    twister(IMPLICIT_LDL, a);
    twister(IMPLICIT_CG, b);
    for (int k = 0; k < 15; k++)
        near(a[k], b[k], 1e-9, "LDL vs CG");
    /* Point 2 is point 1 turned by 90 degrees. */
    near(a[6], -a[4], 1e-12, "symmetry x");
    near(a[7], a[3], 1e-12, "symmetry y");
    cr_assert_gt(a[4], 0.05, "the ring turned counterclockwise");
}

/* ---- ConicalForceField ---- */

/* Apex 0, axis (0, 0, 2), 45 degrees, k = 500, at rest:
 *  (0, 0, 3) is beyond the bounding sphere by 1: f = (0, 0, -500);
 *  (1, 0, 0.5) is outside the angle: its projection on the surface is
 *  (0.75, 0, 0.75), d = 0.25 sqrt2, f = 500 (-0.25, 0, 0.25);
 *  (0, 1, -1) is behind the apex: f = 500 (0, -1, 1);
 *  (0, 0, 1) is inside: no force.
 * add_dforce is -k (u . dx) u at each contact. */
Test(conical, worked_forces_and_stiffness)
{
    test_rt t;
    st_scene *s =
        load(&t, "0, 0, 0",
             IMPLICIT_LDL
             "    - MechanicalObject: {name: dofs, position: [[0,0,3],[1,0,0.5],[0,1,-1],"
             "[0,0,1]]}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - ConicalForceField: {name: cone, coneHeight: [0, 0, 2], coneAngle: 45}\n");
    double f[64];
    st_component *c = force_of(s, "cone", f);
    const double want[12] = {0, 0, -500, -125, 0, 125, 0, -500, 500, 0, 0, 0};
    for (int k = 0; k < 12; k++)
        near(f[k], want[k], 1e-12, "f");
    st_system *sys = st_component_mstate(c)->system;
    double dx[12] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}, df[12] = {0};
    c->cls->forcefield->add_dforce(c, &sys->mp, df, dx, 1.0, 0.0);
    /* Contact 1: u = (-1, 0, 1)/sqrt2, u . dx = sqrt2: df = -500 (-1, 0, 1). */
    near(df[2], -1500, 1e-12, "contact 0: -k dz");
    near(df[3], 500, 1e-12, "contact 1 x");
    near(df[5], -500, 1e-12, "contact 1 z");
    near(df[9], 0, 0, "no contact");
    steps(s, 20); /* the direct path runs with the contact blocks */
    done(&s, &t);
}

/* ---- OscillatingTorsionPressureForceField ---- */

/* Four rim points at radius 1 around z and the centre, four triangles: by
 * symmetry each rim point takes a quarter of the moment (the centre, on
 * the axis, none). At rest and t = 0 the penalty is zero and the moment 2
 * is spread as tangential forces 2/4 / 1. With the rim turned by 0.1 rad
 * and point 0 pushed out by 0.01, the mean angle is 0.1, point 0 is pulled
 * back by the penalty (1000 x 0.01, radial: no moment) and its tangential
 * force becomes 0.5 / 1.01. */
#define OTP_BODY(pos)                                                                              \
    EXPLICIT "    - MechanicalObject: {name: dofs, position: " pos "}\n"                           \
             "    - MeshTopology: {triangles: [[0,1,4],[1,2,4],[2,3,4],[3,0,4]]}\n"                \
             "    - UniformMass: {vertexMass: 1}\n"                                                \
             "    - OscillatingTorsionPressureForceField: {name: otp, moment: 2, "                 \
             "triangleList: [0, 1, 2, 3]}\n"

Test(oscillating_torsion, spread_moment_and_penalty)
{
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0", OTP_BODY("[[1,0,0],[0,1,0],[-1,0,0],[0,-1,0],[0,0,0]]"));
    double f[64];
    force_of(s, "otp", f);
    const double want[15] = {0, 0.5, 0, -0.5, 0, 0, 0, -0.5, 0, 0.5, 0, 0, 0, 0, 0};
    for (int k = 0; k < 15; k++)
        near(f[k], want[k], 1e-12, "rest");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    const double th = 0.1, c = cos(th), sn = sin(th);
    for (int i = 0; i < 4; i++) {
        double x = ms->rest_position.r[3 * i], y = ms->rest_position.r[3 * i + 1];
        double g = i == 0 ? 1.01 : 1.0;
        ms->position.r[3 * i] = g * (c * x - sn * y);
        ms->position.r[3 * i + 1] = g * (sn * x + c * y);
    }
    force_of(s, "otp", f);
    /* Point 0 at 1.01 (cos 0.1, sin 0.1): radial pull -10, tangent 0.5/1.01. */
    near(f[0], -10 * c - 0.5 / 1.01 * sn, 1e-9, "point 0 x");
    near(f[1], -10 * sn + 0.5 / 1.01 * c, 1e-9, "point 0 y");
    near(f[3], -0.5 * c, 1e-9, "point 1 x: tangent only");
    done(&s, &t);
}

/* ---- InteractionEllipsoidForceField ---- */

/* Points (node A) and a rigid frame (node B) under one solver. */
static st_scene *ellipsoid_scene(test_rt *t, const char *points, const char *frame, const char *ff)
{
    char objs[4096];
    snprintf(objs, sizeof objs,
             IMPLICIT_LDL
             "  children:\n"
             "    - name: A\n"
             "      objects:\n"
             "        - MechanicalObject: {name: pts, position: %s}\n"
             "        - UniformMass: {vertexMass: 1}\n"
             "        - InteractionEllipsoidForceField: {name: ie, object2: \"@../B/frame\", "
             "%s}\n"
             "    - name: B\n"
             "      objects:\n"
             "        - MechanicalObject: {name: frame, template: Rigid3d, position: "
             "\"%s\"}\n"
             "        - UniformMass: {vertexMass: 1}\n",
             points, ff, frame);
    return load(t, "0, 0, 0", objs);
}

/* Frame at (1, 0, 0) turned 90 degrees about z, ellipsoid radii (2, 1, 1)
 * at its origin: the point (1, 1, 0) sits at (1, 0, 0) in the frame, n =
 * 1/4, s = -1/2, g = (1/4, 0, 0): f_local = 500 (1/2)/(1/4) (1/4, 0, 0) =
 * (250, 0, 0), in the world (0, 250, 0); the frame's centre takes the
 * opposite. A point outside feels nothing. */
Test(interaction_ellipsoid, worked_force)
{
    test_rt t;
    st_scene *s = ellipsoid_scene(&t, "[[1, 1, 0], [5, 5, 5]]",
                                  "1 0 0 0 0 0.70710678118654752 0.70710678118654752",
                                  "center: [[0, 0, 0]], vradius: [[2, 1, 1]]");
    double f[64];
    st_component *c = force_of(s, "ie", f);
    st_mstate *pts = (st_mstate *)test_find_object(s, "pts");
    st_mstate *fr = (st_mstate *)test_find_object(s, "frame");
    const double *fp = f + pts->doffset, *ff = f + fr->doffset;
    near(fp[0], 0, 1e-12, "f1 x");
    near(fp[1], 250, 1e-12, "f1 y");
    near(fp[5], 0, 0, "outside: no force");
    near(ff[1], -250, 1e-12, "frame centre y");
    near(ff[5], 0, 0, "no torque (SOFA's)");
    (void)c;
    steps(s, 5);
    done(&s, &t);
}

/* A sphere centred on the frame's origin does not depend on the frame's
 * orientation, so the stiffness (which leaves the rotation out, as SOFA's)
 * is the whole derivative there: the finite-difference check passes for
 * the points and the frame's centre, with the assembled matrix too. An
 * ellipsoid with the frame turned checks the radii's terms. */
Test(interaction_ellipsoid, derivatives_on_a_sphere)
{
    test_rt t;
    st_scene *s =
        ellipsoid_scene(&t, "[[1.3, 0.2, 0.1], [0.6, -0.5, 0.3], [3, 3, 3]]", "1 0 0 0 0 0 1",
                        "center: [[0, 0, 0]], vradius: [[1, 1, 1]], damping: 0");
    check_derivatives(test_find_object(s, "ie"), 1e-6, false);
    done(&s, &t);
    /* An ellipsoid off the frame's origin, frame turned: the force depends
     * on the frame's rotation, which no stiffness covers (as SOFA); the
     * columns of the points and of the frame's centre are checked by
     * central differences. */
    s = ellipsoid_scene(&t, "[[1.3, 0.2, 0.1], [0.6, -0.5, 0.3]]",
                        "1 0 0 0.2 0.1 0.3 0.92736184954957", /* |q| = 1 */
                        "center: [[0.1, 0, 0]], vradius: [[1.5, 1, 0.7]], damping: 0");
    st_component *c = test_find_object(s, "ie");
    st_system *sys = st_component_mstate(c)->system;
    double fp[64], fm[64], f0[64], worst = 0, scale = 0;
    force_of(s, "ie", f0);
    for (int j = 0; j < 9; j++) { /* 6 point coordinates, then the frame's centre */
        const double h = 1e-6;
        sys->x[j] += h;
        force_of(s, "ie", fp);
        sys->x[j] -= 2 * h;
        force_of(s, "ie", fm);
        sys->x[j] += h;
        force_of(s, "ie", f0);
        double dx[64] = {0}, df[64] = {0};
        dx[j] = 1; /* coordinates and derivatives coincide for these */
        c->cls->forcefield->add_dforce(c, &sys->mp, df, dx, 1.0, 0.0);
        for (int r = 0; r < 12; r++) {
            double fd = (fp[r] - fm[r]) / (2 * h);
            scale = fmax(scale, fabs(fd));
            worst = fmax(worst, fabs(fd - df[r]));
        }
    }
    cr_assert_lt(worst / scale, 1e-6, "ellipsoid stiffness: relative error %g", worst / scale);
    done(&s, &t);
}

/* Negative stiffness keeps points inside: a point outside the unit sphere
 * is pulled back, f = -|k| s g/|g| with s > 0. */
Test(interaction_ellipsoid, negative_stiffness_pulls_in)
{
    test_rt t;
    st_scene *s = ellipsoid_scene(&t, "[[2, 0, 0]]", "0 0 0 0 0 0 1",
                                  "center: [[0, 0, 0]], vradius: [[1, 1, 1]], stiffness: -100, "
                                  "object2_forces: false");
    double f[64];
    force_of(s, "ie", f);
    st_mstate *pts = (st_mstate *)test_find_object(s, "pts");
    st_mstate *fr = (st_mstate *)test_find_object(s, "frame");
    near(f[pts->doffset], -100, 1e-12, "pulled in by |k| (|q| - 1)");
    near(f[fr->doffset], 0, 0, "object2_forces false");
    done(&s, &t);
}
