/* test_masses.c - DiagonalMass and MeshMatrixMass: defaults, fields, mass
 * precedence, bad values, and the values SOFA's own tests check (the 3x3x3
 * grid of MeshMatrixMass_test, DiagonalMass with totalMass = -10). */
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

static const st_array *arr(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f, "field %s", name);
    return st_component_field_ptr(c, f);
}

static double real(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f, "field %s", name);
    return *(const double *)st_component_field_ptr(c, f);
}

#define CLOSE(a, b) (fabs((a) - (b)) <= 1e-12 * (fabs(b) + 1e-300) + 1e-15)

static test_rt T;
static st_scene *S;
static st_node *B;

static void setup(void)
{
    st_error err = {0};
    test_rt_open(&T);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    const char *plugins[] = {"ODESolver.Forward", "Mass", "Topology"};
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(st_runtime_load_plugin(T.rt, plugins[i], &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_create(T.rt, &S, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_add_child(st_scene_root(S), "Body", &B, &err), ST_OK, "%s", err.msg);
    add(B, "EulerExplicitSolver", "solver");
    add(B, "MechanicalObject", "dofs");
}

static void teardown(void)
{
    st_scene_destroy(&S);
    test_rt_close(&T);
}

static st_component *grid(const char *n, const char *min, const char *max)
{
    st_component *g = add(B, "RegularGridTopology", "grid");
    set(g, "n", n);
    set(g, "min", min);
    set(g, "max", max);
    return g;
}

static void init_ok(void)
{
    st_error err = {0};
    cr_assert_eq(st_scene_init(S, &err), ST_OK, "init: %s\nlog:\n%s", err.msg, T.log);
}

static st_error init_fails(void)
{
    st_error err = {0};
    cr_assert_neq(st_scene_init(S, &err), ST_OK, "init should fail\nlog:\n%s", T.log);
    return err;
}

/* A cube [0,2]^3 cut into 6 tetrahedra (volume 8). */
static void tetra_cube(void)
{
    st_component *m = add(B, "MeshTopology", "mesh");
    set(m, "position", "0 0 0  2 0 0  2 2 0  0 2 0  0 0 2  2 0 2  2 2 2  0 2 2");
    set(m, "tetrahedra", "0 5 1 6  0 1 3 6  1 3 6 2  6 3 0 7  6 7 0 5  7 5 4 0");
}

/* ---- MeshMatrixMass: SOFA's MeshMatrixMass_test on the 3x3x3 grid ---- */

TestSuite(mesh_matrix_mass, .init = setup, .fini = teardown);

Test(mesh_matrix_mass, sofa_grid_total_mass)
{
    grid("3 3 3", "0 0 0", "2 2 2");
    st_component *m = add(B, "MeshMatrixMass", "mass");
    set(m, "totalMass", "2");
    init_ok();
    const st_array *vm = arr(m, "vertexMass"), *em = arr(m, "edgeMass");
    cr_assert_eq(vm->n, 27);
    cr_assert_eq(em->n, 90, "90 edges (54 grid edges + 36 quad diagonals), got %zu", em->n);
    double rho = 0.25;
    cr_assert(CLOSE(arr(m, "massDensity")->r[0], rho), "density %.17g", arr(m, "massDensity")->r[0]);
    cr_assert(CLOSE(vm->r[0], rho / 20), "vertexMass[0] = %.17g", vm->r[0]);
    cr_assert(CLOSE(vm->r[1], 2 * rho / 20), "vertexMass[1] = %.17g", vm->r[1]);
    cr_assert(CLOSE(vm->r[13], 8 * rho / 20), "centre vertex");
    cr_assert(CLOSE(em->r[0], 2 * rho / 40), "edgeMass[0] = %.17g", em->r[0]);
    cr_assert(CLOSE(em->r[2], rho / 40), "edgeMass[2] = %.17g", em->r[2]);
    cr_assert(CLOSE(real(m, "totalMass"), 2.0));
    /* Sum of M's entries = totalMass. */
    double s = 0;
    for (size_t i = 0; i < vm->n; i++)
        s += vm->r[i];
    for (size_t i = 0; i < em->n; i++)
        s += 2 * em->r[i];
    cr_assert(CLOSE(s, 2.0), "sum of M = %.17g", s);
    cr_assert(strstr(T.log, "indefinite"), "the indefinite hexahedron mass is reported:\n%s",
              T.log);
}

Test(mesh_matrix_mass, sofa_grid_density_lumped)
{
    grid("3 3 3", "0 0 0", "2 2 2");
    st_component *m = add(B, "MeshMatrixMass", "mass");
    set(m, "massDensity", "1");
    set(m, "lumping", "true");
    init_ok();
    cr_assert(CLOSE(real(m, "totalMass"), 8.0), "totalMass %.17g", real(m, "totalMass"));
    cr_assert(CLOSE(arr(m, "vertexMass")->r[0], 0.05));
    cr_assert(!strstr(T.log, "indefinite"), "no indefinite warning when lumped");
    cr_assert(m->cls->mass->is_diagonal(m));
}

Test(mesh_matrix_mass, negative_total_mass_falls_back)
{
    grid("3 3 3", "0 0 0", "2 2 2");
    st_component *m = add(B, "MeshMatrixMass", "mass");
    set(m, "totalMass", "-2");
    init_ok();
    cr_assert(CLOSE(real(m, "totalMass"), 1.0));
    cr_assert(CLOSE(arr(m, "massDensity")->r[0], 0.125));
    cr_assert(CLOSE(arr(m, "vertexMass")->r[0], 0.00625));
    cr_assert(strstr(T.log, "Switching back to default values: totalMass = 1.0"), "%s", T.log);
}

Test(mesh_matrix_mass, defaults)
{
    grid("2 2 2", "0 0 0", "1 1 1");
    st_component *m = add(B, "MeshMatrixMass", "mass");
    init_ok();
    cr_assert(CLOSE(real(m, "totalMass"), 1.0));
    cr_assert(!m->cls->mass->is_diagonal(m));
    cr_assert(CLOSE(arr(m, "vertexMass")->r[0], 1.0 / 20));
    /* gravity: g * c * vertexMass = g / 8 per vertex of a lone hexahedron */
    st_system *sys = S->systems[0];
    double f[24] = {0};
    m->cls->mass->add_gravity_to_force(m, &sys->mp, f, sys->x, sys->v);
    cr_assert(CLOSE(f[1], -9.81 / 8), "f_y = %.17g", f[1]);
    /* kinetic energy of a uniform velocity = 1/2 M |v|^2 */
    double v[24];
    for (int i = 0; i < 24; i++)
        v[i] = i % 3 == 0 ? 2.0 : 0.0;
    cr_assert(CLOSE(m->cls->mass->kinetic_energy(m, &sys->mp, v), 2.0));
}

Test(mesh_matrix_mass, exact_hexahedra)
{
    grid("2 2 2", "0 0 0", "1 1 1");
    st_component *m = add(B, "MeshMatrixMass", "mass");
    set(m, "massDensity", "1");
    set(m, "exactHexahedra", "true");
    init_ok();
    cr_assert(CLOSE(arr(m, "vertexMass")->r[0], 1.0 / 27), "diag %.17g", arr(m, "vertexMass")->r[0]);
    const st_array *em = arr(m, "edgeMass");
    /* grid edges get V/54, the (q0,q2) face diagonals V/108 */
    cr_assert(CLOSE(em->r[2], 1.0 / 54), "edge (0,1): %.17g", em->r[2]);
    cr_assert(CLOSE(em->r[1], 1.0 / 108), "face diagonal (3,0): %.17g", em->r[1]);
    cr_assert(CLOSE(real(m, "totalMass"), 1.0));
    cr_assert(!strstr(T.log, "indefinite"));
    /* M is positive definite: the checkerboard mode has positive energy. */
    st_system *sys = S->systems[0];
    double v[24] = {0};
    for (int i = 0; i < 8; i++) {
        int x = i & 1, y = (i >> 1) & 1, z = (i >> 2) & 1;
        v[3 * i] = ((x + y + z) % 2) ? 1.0 : -1.0;
    }
    cr_assert_gt(m->cls->mass->kinetic_energy(m, &sys->mp, v), 0.0);
}

Test(mesh_matrix_mass, sofa_hexahedron_is_indefinite)
{
    grid("2 2 2", "0 0 0", "1 1 1");
    st_component *m = add(B, "MeshMatrixMass", "mass");
    set(m, "massDensity", "1");
    init_ok();
    st_system *sys = S->systems[0];
    double v[24] = {0};
    for (int i = 0; i < 8; i++) {
        int x = i & 1, y = (i >> 1) & 1, z = (i >> 2) & 1;
        v[3 * i] = ((x + y + z) % 2) ? 1.0 : -1.0;
    }
    /* v^T M v = 8 (-V/40) for the checkerboard mode: KE = -1/10 */
    cr_assert(CLOSE(m->cls->mass->kinetic_energy(m, &sys->mp, v), -0.1),
              "KE %.17g", m->cls->mass->kinetic_energy(m, &sys->mp, v));
}

Test(mesh_matrix_mass, tetrahedra_and_triangles)
{
    tetra_cube();
    st_component *m = add(B, "MeshMatrixMass", "mass");
    set(m, "massDensity", "0.5");
    init_ok();
    cr_assert(CLOSE(real(m, "totalMass"), 4.0), "total %.17g", real(m, "totalMass"));
    const st_array *vm = arr(m, "vertexMass");
    double s = 0;
    for (size_t i = 0; i < vm->n; i++)
        s += vm->r[i];
    /* diagonal terms are rho V / 10 per tetrahedron vertex: 2/5 of the mass */
    cr_assert(CLOSE(s, 4.0 * 4 / 10), "sum diag %.17g", s);
}

Test(mesh_matrix_mass, vertex_mass_needs_lumping)
{
    grid("2 2 2", "0 0 0", "1 1 1");
    st_component *m = add(B, "MeshMatrixMass", "mass");
    set(m, "vertexMass", "1 1 1 1 1 1 1 1");
    init_ok();
    cr_assert(strstr(T.log, "requires the lumping option"), "%s", T.log);
    cr_assert(CLOSE(real(m, "totalMass"), 1.0));
}

Test(mesh_matrix_mass, vertex_mass_lumped)
{
    grid("2 2 2", "0 0 0", "2 2 2");
    st_component *m = add(B, "MeshMatrixMass", "mass");
    set(m, "vertexMass", "1 1 1 1 1 1 1 1");
    set(m, "lumping", "true");
    init_ok();
    cr_assert(CLOSE(real(m, "totalMass"), 8.0));
    cr_assert(CLOSE(arr(m, "massDensity")->r[0], 1.0), "%.17g", arr(m, "massDensity")->r[0]);
    cr_assert(CLOSE(arr(m, "vertexMass")->r[3], 1.0));
}

Test(mesh_matrix_mass, acc_from_f_needs_lumping)
{
    grid("2 2 2", "0 0 0", "1 1 1");
    st_component *m = add(B, "MeshMatrixMass", "mass");
    init_ok();
    st_system *sys = S->systems[0];
    double a[24] = {0}, f[24];
    for (int i = 0; i < 24; i++)
        f[i] = 1;
    m->cls->mass->acc_from_f(m, &sys->mp, a, f);
    cr_assert(strstr(T.log, "accFromF"), "%s", T.log);
    cr_assert_eq(a[0], 0.0);
}

Test(mesh_matrix_mass, no_topology_is_an_error)
{
    add(B, "MeshMatrixMass", "mass");
    st_error err = init_fails();
    cr_assert(strstr(err.msg, "No topology"), "%s", err.msg);
}

/* ---- DiagonalMass ---- */

TestSuite(diagonal_mass, .init = setup, .fini = teardown);

Test(diagonal_mass, negative_total_mass_sofa_test)
{
    tetra_cube();
    st_component *m = add(B, "DiagonalMass", "mass");
    set(m, "totalMass", "-10");
    init_ok();
    cr_assert(CLOSE(real(m, "totalMass"), 1.0));
    cr_assert(CLOSE(real(m, "massDensity"), 0.125), "density %.17g", real(m, "massDensity"));
    cr_assert(strstr(T.log, "Switching back to default values: totalMass = 1.0"), "%s", T.log);
}

Test(diagonal_mass, defaults_hexahedra)
{
    grid("2 2 2", "0 0 0", "1 1 1");
    st_component *m = add(B, "DiagonalMass", "mass");
    init_ok();
    const st_array *vm = arr(m, "vertexMass");
    cr_assert_eq(vm->n, 8);
    for (size_t i = 0; i < 8; i++)
        cr_assert(CLOSE(vm->r[i], 1.0 / 8));
    cr_assert(CLOSE(real(m, "massDensity"), 1.0));
    cr_assert(m->cls->mass->is_diagonal(m));
}

Test(diagonal_mass, mass_density)
{
    grid("3 2 2", "0 0 0", "1 1.5 2");
    st_component *m = add(B, "DiagonalMass", "mass");
    set(m, "massDensity", "2");
    init_ok();
    cr_assert(CLOSE(real(m, "totalMass"), 2 * 3.0), "total %.17g", real(m, "totalMass"));
    /* corner vertex: one hexahedron of volume 1.5 / 8 */
    cr_assert(CLOSE(arr(m, "vertexMass")->r[0], 2 * 1.5 / 8));
    cr_assert(CLOSE(arr(m, "vertexMass")->r[1], 2 * 2 * 1.5 / 8));
}

Test(diagonal_mass, total_mass_wins)
{
    grid("2 2 2", "0 0 0", "1 1 1");
    st_component *m = add(B, "DiagonalMass", "mass");
    set(m, "massDensity", "5");
    set(m, "totalMass", "16");
    init_ok();
    cr_assert(CLOSE(arr(m, "vertexMass")->r[5], 2.0));
    cr_assert(CLOSE(real(m, "massDensity"), 16.0));
    cr_assert(strstr(T.log, "totalMass value overriding"), "%s", T.log);
}

Test(diagonal_mass, vertex_mass)
{
    grid("2 2 2", "0 0 0", "2 2 2");
    st_component *m = add(B, "DiagonalMass", "mass");
    set(m, "vertexMass", "1 2 3 4");
    init_ok();
    const st_array *vm = arr(m, "vertexMass");
    cr_assert_eq(vm->n, 8, "a short vertexMass is padded to the state size");
    cr_assert(CLOSE(vm->r[7], 4.0));
    cr_assert(CLOSE(real(m, "totalMass"), 1 + 2 + 3 + 4 * 5.0));
    cr_assert(CLOSE(real(m, "massDensity"), 26.0 / 8));
    /* M dx, M^-1 f, gravity */
    st_system *sys = S->systems[0];
    double dx[24], r[24] = {0}, a[24] = {0}, f[24] = {0};
    for (int i = 0; i < 24; i++)
        dx[i] = i + 1;
    m->cls->mass->add_m_dx(m, &sys->mp, r, dx, 0.5);
    cr_assert(CLOSE(r[4], 5 * 2 * 0.5));
    m->cls->mass->acc_from_f(m, &sys->mp, a, r);
    cr_assert(CLOSE(a[4], 5 * 0.5));
    m->cls->mass->add_gravity_to_force(m, &sys->mp, f, sys->x, sys->v);
    cr_assert(CLOSE(f[7], -9.81 * 3));
}

Test(diagonal_mass, edges_and_triangles)
{
    st_component *t = add(B, "MeshTopology", "mesh");
    set(t, "position", "0 0 0  3 0 0  3 4 0");
    set(t, "triangles", "0 1 2");
    st_component *m = add(B, "DiagonalMass", "mass");
    set(m, "massDensity", "1");
    init_ok();
    cr_assert(CLOSE(real(m, "totalMass"), 6.0), "triangle area 6: %.17g", real(m, "totalMass"));
    cr_assert(CLOSE(arr(m, "vertexMass")->r[2], 2.0));
}

Test(diagonal_mass, edges_only)
{
    st_component *t = add(B, "MeshTopology", "mesh");
    set(t, "position", "0 0 0  3 0 0  3 4 0");
    set(t, "edges", "0 1  1 2");
    st_component *m = add(B, "DiagonalMass", "mass");
    set(m, "massDensity", "2");
    init_ok();
    cr_assert(CLOSE(real(m, "totalMass"), 14.0));
    cr_assert(CLOSE(arr(m, "vertexMass")->r[1], 7.0));
}

Test(diagonal_mass, bad_values)
{
    grid("2 2 2", "0 0 0", "1 1 1");
    st_component *m = add(B, "DiagonalMass", "mass");
    set(m, "filename", "mass.xs3");
    st_error err = init_fails();
    cr_assert(strstr(err.msg, "not supported"), "%s", err.msg);
    cr_assert(strstr(err.path, "mass"), "the error names the component: '%s'", err.path);
}

Test(diagonal_mass, negative_density_falls_back)
{
    grid("2 2 2", "0 0 0", "1 1 1");
    st_component *m = add(B, "DiagonalMass", "mass");
    set(m, "massDensity", "-3");
    init_ok();
    cr_assert(CLOSE(real(m, "totalMass"), 1.0));
    cr_assert(strstr(T.log, "Negative value of massDensity"), "%s", T.log);
}

Test(diagonal_mass, yaml_scene)
{
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  name: root\n"
                       "  objects:\n"
                       "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, Topology]}\n"
                       "  children:\n"
                       "    - name: B\n"
                       "      objects:\n"
                       "        - EulerExplicitSolver: {}\n"
                       "        - MechanicalObject: {}\n"
                       "        - RegularGridTopology: {n: [2, 2, 2]}\n"
                       "        - DiagonalMass: {massDensity: abc}\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_neq(test_load_string(&T, yaml, &s, &err), ST_OK);
    cr_assert(strstr(err.where, ":12:"), "error at the scene line: '%s' %s", err.where, err.msg);
}

/* ---- separateGravity: g dt goes to the velocities, not into the force ---- */

/* Steps the 2x2x2 grid once with the mass class `cls` (separateGravity
 * true) under gravity (0, -10, 0), dt 0.01: the force holds no gravity and
 * every velocity is g dt. */
static void separate_gravity(const char *cls, bool lumping)
{
    st_error err = {0};
    cr_assert_eq(st_node_set(st_scene_root(S), "gravity", "0 -10 0", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_set(st_scene_root(S), "dt", "0.01", &err), ST_OK, "%s", err.msg);
    grid("2 2 2", "0 0 0", "2 2 2");
    st_component *m = add(B, cls, "mass");
    set(m, "totalMass", "8");
    set(m, "separateGravity", "true");
    if (lumping)
        set(m, "lumping", "true");
    init_ok();
    st_mstate *ms = st_component_mstate(m);
    cr_assert_not_null(ms);
    st_system *sys = ms->system;
    st_system_compute_force(sys, sys->f, sys->x, sys->v);
    for (size_t i = 0; i < 3 * ms->n; i++)
        cr_assert_eq(sys->f[i], 0.0, "%s: f[%zu] = %g", cls, i, sys->f[i]);
    cr_assert_eq(st_scene_step(S, 0, &err), ST_OK, "%s", err.msg);
    for (size_t i = 0; i < ms->n; i++) {
        cr_assert_eq(ms->velocity.r[3 * i], 0.0);
        cr_assert(CLOSE(ms->velocity.r[3 * i + 1], -0.1), "%s: v[%zu] = %.17g", cls, i,
                  ms->velocity.r[3 * i + 1]);
        cr_assert_eq(ms->velocity.r[3 * i + 2], 0.0);
    }
}

Test(diagonal_mass, separate_gravity_goes_to_velocity) { separate_gravity("DiagonalMass", false); }

Test(mesh_matrix_mass, separate_gravity_goes_to_velocity)
{
    separate_gravity("MeshMatrixMass", true);
}
