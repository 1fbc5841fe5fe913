/* test_falling.c - falling particles against the closed form (symplectic
 * and not), no allocation during steps, and MechanicalObject init. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#define REL_TOL 1e-12

static void check_rel(double got, double want, const char *what)
{
    double scale = fabs(want) > 1.0 ? fabs(want) : 1.0;
    cr_assert(fabs(got - want) <= REL_TOL * scale, "%s: got %.17g, want %.17g", what, got, want);
}

static void set(st_component *c, const char *name, const char *text)
{
    st_error err = {0};
    cr_assert_eq(st_component_set(c, name, text, &err), ST_OK, "set %s=%s: %s", name, text, err.msg);
}

static st_component *add(st_node *n, const char *cls, const char *name)
{
    st_component *c = NULL;
    st_error err = {0};
    cr_assert_eq(st_node_add_object(n, cls, name, &c, &err), ST_OK, "add %s: %s", cls, err.msg);
    return c;
}

static void load_plugins(test_rt *t)
{
    st_error err = {0};
    cr_assert_eq(st_runtime_add_plugin_path(t->rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    cr_assert_eq(st_runtime_load_plugin(t->rt, "ODESolver.Forward", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_runtime_load_plugin(t->rt, "Sofa.Component.Mass", &err), ST_OK, "%s", err.msg);
}

/* root (gravity g, dt h) / Particle: solver, dofs, mass. */
static st_scene *particle_scene(test_rt *t, const char *symplectic, const char *pos, const char *vel,
                                st_mstate **ms)
{
    load_plugins(t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_create(t->rt, &s, &err), ST_OK, "%s", err.msg);
    st_node *root = st_scene_root(s);
    cr_assert_eq(st_node_set(root, "gravity", "0.3 -9.81 0.1", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_set(root, "dt", "0.01", &err), ST_OK, "%s", err.msg);
    st_node *p = NULL;
    cr_assert_eq(st_node_add_child(root, "Particle", &p, &err), ST_OK, "%s", err.msg);
    st_component *solver = add(p, "EulerExplicitSolver", "solver");
    if (symplectic)
        set(solver, "symplectic", symplectic);
    st_component *dofs = add(p, "MechanicalObject", "dofs");
    set(dofs, "position", pos);
    if (vel)
        set(dofs, "velocity", vel);
    st_component *mass = add(p, "UniformMass", "mass");
    set(mass, "vertexMass", "2.5");
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s", err.msg);
    *ms = (st_mstate *)dofs;
    return s;
}

static void run_falling(bool symplectic)
{
    test_rt t;
    test_rt_open(&t);
    st_mstate *ms = NULL;
    st_scene *s = particle_scene(&t, symplectic ? "true" : "false", "1 2 3  -4 5 0.5",
                                 "0.5 1 -2  3 0 1", &ms);
    const double x0[2][3] = {{1, 2, 3}, {-4, 5, 0.5}};
    const double v0[2][3] = {{0.5, 1, -2}, {3, 0, 1}};
    const double g[3] = {0.3, -9.81, 0.1};
    const double h = 0.01;
    const int steps = 100;
    st_error err = {0};
    for (int k = 0; k < steps; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step: %s", err.msg);
    double n = steps;
    double c = symplectic ? n * (n + 1) / 2 : n * (n - 1) / 2;
    cr_assert_eq(ms->n, 2);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            char what[64];
            snprintf(what, sizeof what, "v[%d][%d]", i, j);
            check_rel(ms->velocity.r[3 * i + j], v0[i][j] + n * h * g[j], what);
            snprintf(what, sizeof what, "x[%d][%d]", i, j);
            check_rel(ms->position.r[3 * i + j], x0[i][j] + n * h * v0[i][j] + h * h * g[j] * c, what);
        }
    check_rel(st_scene_time(s), 1.0, "time");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(falling, symplectic_closed_form) { run_falling(true); }

Test(falling, explicit_closed_form) { run_falling(false); }

Test(falling, first_step_values)
{
    /* One symplectic step from rest: v = h g, x = x0 + h^2 g. */
    test_rt t;
    test_rt_open(&t);
    st_mstate *ms = NULL;
    st_scene *s = particle_scene(&t, NULL, "0 0 0", NULL, &ms);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    /* Bit-exact with SOFA's order: f = m g; a = f / m; v += a h; x += v h. */
    volatile double m = 2.5, g = -9.81, h = 0.01;
    double a = (g * m) / m;
    double v = 0.0 + a * h;
    cr_assert_eq(ms->velocity.r[1], v);
    cr_assert_eq(ms->position.r[1], 0.0 + v * h);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(falling, no_allocation_during_steps)
{
    test_rt t;
    test_rt_open(&t);
    st_mstate *ms = NULL;
    st_scene *s = particle_scene(&t, NULL, "0 0 0  1 1 1  2 2 2", "1 0 0", &ms);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    unsigned long before = st_alloc_count();
    for (int k = 0; k < 100; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    unsigned long after = st_alloc_count();
    cr_assert_eq(after, before, "%lu allocations during 100 steps", after - before);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(falling, reset_restores_initial_state)
{
    test_rt t;
    test_rt_open(&t);
    st_mstate *ms = NULL;
    st_scene *s = particle_scene(&t, NULL, "1 2 3", "0 4 0", &ms);
    st_error err = {0};
    for (int k = 0; k < 10; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_neq(ms->position.r[1], 2.0);
    cr_assert_eq(st_scene_reset(s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(ms->position.r[0], 1.0);
    cr_assert_eq(ms->position.r[1], 2.0);
    cr_assert_eq(ms->velocity.r[1], 4.0);
    cr_assert_eq(st_scene_time(s), 0.0);
    /* Still bound to the system: stepping again follows the same path. */
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    check_rel(ms->velocity.r[1], 4.0 + 0.01 * -9.81, "v after reset and one step");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- MechanicalObject init (no solver needed) ---- */

static st_scene *mo_scene(test_rt *t, st_mstate **ms, st_node **node)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_create(t->rt, &s, &err), ST_OK, "%s", err.msg);
    st_node *n = NULL;
    cr_assert_eq(st_node_add_child(st_scene_root(s), "Object", &n, &err), ST_OK);
    *ms = (st_mstate *)add(n, "MechanicalObject", "dofs");
    if (node)
        *node = n;
    return s;
}

static void init_ok(st_scene *s)
{
    st_error err = {0};
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s", err.msg);
}

static void check_vec(const double *got, double x, double y, double z, const char *what)
{
    check_rel(got[0], x, what);
    check_rel(got[1], y, what);
    check_rel(got[2], z, what);
}

Test(mechanical_object, default_is_one_vertex)
{
    test_rt t;
    test_rt_open(&t);
    st_mstate *ms;
    st_scene *s = mo_scene(&t, &ms, NULL);
    init_ok(s);
    cr_assert_eq(ms->n, 1);
    cr_assert_eq(ms->position.n, 1);
    cr_assert_eq(ms->velocity.n, 1);
    cr_assert_eq(ms->rest_position.n, 1);
    cr_assert_eq(ms->size, 1);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_object, scale_rotation_translation_then_rest_then_second_transform)
{
    test_rt t;
    test_rt_open(&t);
    st_mstate *ms;
    st_scene *s = mo_scene(&t, &ms, NULL);
    st_component *c = &ms->base;
    set(c, "position", "1 0 0  0 1 0");
    set(c, "scale3d", "2 3 4");
    set(c, "rotation", "0 0 90");
    set(c, "translation", "1 2 3");
    set(c, "rotation2", "90 0 0");
    set(c, "translation2", "0 0 10");
    init_ok(s);
    /* scaled (2,0,0), (0,3,0); rotated about z: (0,2,0), (-3,0,0); translated. */
    check_vec(ms->rest_position.r, 1, 4, 3, "rest 0");
    check_vec(ms->rest_position.r + 3, -2, 2, 3, "rest 1");
    /* then rotation2 about x by 90 degrees: (x, y, z) -> (x, -z, y), and +10 in z. */
    check_vec(ms->position.r, 1, -3, 14, "pos 0");
    check_vec(ms->position.r + 3, -2, -3, 12, "pos 1");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_object, rotation_order_is_x_then_y_then_z)
{
    test_rt t;
    test_rt_open(&t);
    st_mstate *ms;
    st_scene *s = mo_scene(&t, &ms, NULL);
    set(&ms->base, "position", "0 1 0");
    set(&ms->base, "rotation", "90 90 0");
    init_ok(s);
    /* Rx(90) (0,1,0) = (0,0,1); Ry(90) (0,0,1) = (1,0,0). */
    cr_assert(fabs(ms->position.r[0] - 1.0) < 1e-15);
    cr_assert(fabs(ms->position.r[1]) < 1e-15);
    cr_assert(fabs(ms->position.r[2]) < 1e-15);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_object, rest_scale_and_given_rest_position)
{
    test_rt t;
    test_rt_open(&t);
    st_mstate *ms;
    st_scene *s = mo_scene(&t, &ms, NULL);
    set(&ms->base, "position", "1 2 3  4 5 6");
    set(&ms->base, "restScale", "2");
    init_ok(s);
    check_vec(ms->rest_position.r + 3, 8, 10, 12, "scaled rest");
    check_vec(ms->position.r + 3, 4, 5, 6, "position");
    st_scene_destroy(&s);

    /* Only rest_position given: SOFA first resizes every set vector to the
     * largest size, so position (always set) is zero-padded to 3 entries and
     * its "position := rest_position" branch never fires; the rest position
     * is kept as given. */
    s = mo_scene(&t, &ms, NULL);
    set(&ms->base, "rest_position", "1 1 1  2 2 2  3 3 3");
    init_ok(s);
    cr_assert_eq(ms->n, 3);
    check_vec(ms->position.r + 6, 0, 0, 0, "position padded");
    check_vec(ms->rest_position.r + 6, 3, 3, 3, "rest kept");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_object, size_pads_with_zeros)
{
    test_rt t;
    test_rt_open(&t);
    st_mstate *ms;
    st_scene *s = mo_scene(&t, &ms, NULL);
    set(&ms->base, "size", "5");
    set(&ms->base, "position", "1 2 3  4 5 6");
    init_ok(s);
    cr_assert_eq(ms->n, 5);
    cr_assert_eq(ms->velocity.n, 5);
    cr_assert_eq(ms->force.n, 5);
    check_vec(ms->position.r + 3, 4, 5, 6, "given");
    check_vec(ms->position.r + 12, 0, 0, 0, "padded");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_object, size_mismatch_warns)
{
    test_rt t;
    test_rt_open(&t);
    st_mstate *ms;
    st_scene *s = mo_scene(&t, &ms, NULL);
    set(&ms->base, "position", "0 0 0  1 0 0  2 0 0");
    set(&ms->base, "velocity", "1 0 0  2 0 0");
    init_ok(s);
    cr_assert(strstr(t.log, "don't match the size of the others") && strstr(t.log, "velocity(size 2)"),
              "%s", t.log);
    cr_assert_eq(ms->velocity.n, 3);
    check_vec(ms->velocity.r + 6, 0, 0, 0, "zero-padded");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_object, velocity_padding_quirk)
{
    /* N positions and one velocity: the velocity is zero-padded (SOFA's
     * resize of every set vector), not copied to every vertex. */
    test_rt t;
    test_rt_open(&t);
    st_mstate *ms;
    st_scene *s = mo_scene(&t, &ms, NULL);
    set(&ms->base, "position", "0 0 0  1 0 0  2 0 0");
    set(&ms->base, "velocity", "1 2 3");
    init_ok(s);
    cr_assert_eq(ms->velocity.n, 3);
    check_vec(ms->velocity.r, 1, 2, 3, "v0");
    check_vec(ms->velocity.r + 3, 0, 0, 0, "v1");
    check_vec(ms->velocity.r + 6, 0, 0, 0, "v2");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_object, unsupported_template_is_an_error)
{
    test_rt t;
    test_rt_open(&t);
    st_mstate *ms;
    st_scene *s = mo_scene(&t, &ms, NULL);
    set(&ms->base, "template", "Vec5d");
    st_error err = {0};
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "Vec5d") && strstr(err.msg, "Vec3d"), "%s", err.msg);
    st_scene_destroy(&s);

    s = mo_scene(&t, &ms, NULL);
    set(&ms->base, "template", "Vec3");
    init_ok(s);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_object, positions_from_topology)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_add_plugin_path(t.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    if (st_runtime_load_plugin(t.rt, "Topology", &err) != ST_OK ||
        !st_registry_find(st_runtime_registry(t.rt), "RegularGridTopology")) {
        test_rt_close(&t);
        cr_skip_test("the Topology plugin (RegularGridTopology) is not available");
    }
    st_mstate *ms;
    st_node *n;
    st_scene *s = mo_scene(&t, &ms, &n);
    set(&ms->base, "velocity", "0 1 0");
    set(&ms->base, "translation", "10 0 0");
    st_component *grid = add(n, "RegularGridTopology", "grid");
    set(grid, "n", "2 2 2");
    set(grid, "min", "0 0 0");
    set(grid, "max", "1 1 1");
    init_ok(s);
    cr_assert_eq(ms->n, 8);
    /* x fastest: vertex 1 = (1,0,0), vertex 7 = (1,1,1); then translated. */
    check_vec(ms->position.r + 3, 11, 0, 0, "p1");
    check_vec(ms->position.r + 21, 11, 1, 1, "p7");
    /* With topology positions the velocity's last entry is copied to every vertex. */
    check_vec(ms->velocity.r + 21, 0, 1, 0, "v7");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(falling, example_scene_matches_closed_form)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_add_plugin_path(t.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load(t.rt, SETTEE_SOURCE_DIR "/scenes/falling_particles.yaml", &s, &err),
                 ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_mstate *ms[2];
    cr_assert_eq(st_scene_states(s, ms, 2), 1);
    cr_assert_eq(ms[0]->n, 10);
    double x0[30], v0[30];
    memcpy(x0, ms[0]->position.r, sizeof x0);
    memcpy(v0, ms[0]->velocity.r, sizeof v0);
    for (int k = 0; k < 100; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const double h = 0.01, n = 100, g[3] = {0, -9.81, 0};
    for (int i = 0; i < 30; i++) {
        double want = x0[i] + n * h * v0[i] + h * h * g[i % 3] * n * (n + 1) / 2;
        cr_assert(fabs(ms[0]->position.r[i] - want) <= 1e-12 * (fabs(want) > 1 ? fabs(want) : 1),
                  "x[%d] = %.17g, want %.17g", i, ms[0]->position.r[i], want);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_object, positions_from_a_data_link_in_yaml)
{
    /* "@../Source/src.position" arrives as a filled position field, then the
     * usual init (here a translation) applies. */
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_add_plugin_path(t.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  name: root\n"
                       "  children:\n"
                       "    - name: Source\n"
                       "      objects:\n"
                       "        - MechanicalObject: {name: src, position: [[1, 2, 3], [4, 5, 6]]}\n"
                       "    - name: Copy\n"
                       "      objects:\n"
                       "        - MechanicalObject: {name: dst, position: \"@../Source/src.position\",\n"
                       "                             translation: [0, 0, 1]}\n";
    st_scene *s = NULL;
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_mstate *ms[2];
    cr_assert_eq(st_scene_states(s, ms, 2), 2);
    cr_assert_eq(ms[1]->n, 2);
    check_vec(ms[1]->position.r + 3, 4, 5, 7, "linked and translated");
    check_vec(ms[0]->position.r + 3, 4, 5, 6, "source unchanged");
    st_scene_destroy(&s);
    test_rt_close(&t);
}
