/* test_mechanics.c - the mechanical system: layout and binding, vector
 * operations, force order, M/B/K products with Rayleigh factors,
 * externalForce, UniformMass precedence and energies. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* ---- a probe force field registered by the test ---- */

/* f_x[0] := 10 f_x[0] + id, so the final value encodes the call order;
 * K = id I on vertex 0; energy = id. */
typedef struct probe {
    st_component base;
    double id;
    double rs;
} probe;

static const st_field probe_fields[] = {
    ST_REAL(probe, id, "id", "0", "probe id"),
    ST_REAL(probe, rs, "rayleighStiffness", "0", "Rayleigh stiffness"),
    ST_FIELD_END};

static void probe_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                            const double *v)
{
    double *fs = st_slice(f, st_component_mstate(self));
    fs[0] = fs[0] * 10.0 + ((probe *)self)->id;
}

static void probe_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                             double kfactor, double bfactor)
{
    st_mstate *ms = st_component_mstate(self);
    st_slice(df, ms)[0] += kfactor * ((probe *)self)->id * st_slice(dx, ms)[0];
}

static double probe_energy(st_component *self, const st_mparams *mp, const double *x)
{
    return ((probe *)self)->id;
}

static double probe_rs(const st_component *self) { return ((const probe *)self)->rs; }

static const st_forcefield_ops probe_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = probe_add_force,
    .add_dforce = probe_add_dforce,
    .potential_energy = probe_energy,
    .rayleigh_stiffness = probe_rs,
};

static const st_class probe_class = {
    .struct_size = sizeof(st_class),
    .name = "ProbeForceField",
    .category = "ForceField",
    .description = "test probe",
    .instance_size = sizeof(probe),
    .fields = probe_fields,
    .forcefield = &probe_ops,
};

/* A mass that is not diagonal (no acc_from_f). */
typedef struct full_mass {
    st_component base;
} full_mass;

static bool full_mass_diag(const st_component *self) { return false; }

static const st_mass_ops full_mass_ops = {
    .struct_size = sizeof(st_mass_ops),
    .is_diagonal = full_mass_diag,
};

static const st_class full_mass_class = {
    .struct_size = sizeof(st_class),
    .name = "ProbeFullMass",
    .category = "Mass",
    .description = "test mass without a diagonal",
    .instance_size = sizeof(full_mass),
    .mass = &full_mass_ops,
};

/* ---- helpers ---- */

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

static void open_rt(test_rt *t)
{
    test_rt_open(t);
    st_error err = {0};
    cr_assert_eq(st_runtime_add_plugin_path(t->rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    cr_assert_eq(st_runtime_load_plugin(t->rt, "ODESolver.Forward", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_runtime_load_plugin(t->rt, "Mass", &err), ST_OK, "%s", err.msg);
    st_registry *r = st_runtime_registry(t->rt);
    cr_assert_eq(st_registry_add(r, &probe_class, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_registry_add(r, &full_mass_class, &err), ST_OK, "%s", err.msg);
}

static st_scene *new_scene(test_rt *t, const char *gravity, st_node **body)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_create(t->rt, &s, &err), ST_OK, "%s", err.msg);
    st_node *root = st_scene_root(s);
    cr_assert_eq(st_node_set(root, "gravity", gravity, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_set(root, "dt", "0.1", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_add_child(root, "Body", body, &err), ST_OK, "%s", err.msg);
    add(*body, "EulerExplicitSolver", "solver");
    return s;
}

static st_system *the_system(st_scene *s)
{
    cr_assert_eq(s->nsystems, 1);
    return s->systems[0];
}

static void init_ok(st_scene *s)
{
    st_error err = {0};
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s", err.msg);
}

/* ---- layout, binding and vector operations ---- */

Test(system, layout_binding_and_vector_ops)
{
    test_rt t;
    open_rt(&t);
    st_node *body, *child;
    st_scene *s = new_scene(&t, "0 0 0", &body);
    st_mstate *a = (st_mstate *)add(body, "MechanicalObject", "a");
    set(&a->base, "position", "1 2 3  4 5 6");
    st_error err = {0};
    cr_assert_eq(st_node_add_child(body, "Child", &child, &err), ST_OK);
    st_mstate *b = (st_mstate *)add(child, "MechanicalObject", "b");
    set(&b->base, "position", "7 8 9  10 11 12  13 14 15");
    init_ok(s);

    st_system *sys = the_system(s);
    cr_assert_eq(sys->nstates, 2);
    cr_assert_eq(sys->nindep, 2);
    cr_assert_eq(sys->states[0], a);
    cr_assert_eq(sys->states[1], b);
    cr_assert_eq(a->doffset, 0);
    cr_assert_eq(b->doffset, 6);
    cr_assert_eq(sys->ndof, 5);
    cr_assert_eq(sys->nall, 5);
    cr_assert_eq(sys->size, 15);
    cr_assert_eq(a->system, sys);
    /* The state arrays are views into the global vectors (borrowed). */
    cr_assert_eq(b->position.r, sys->x + 6);
    cr_assert_eq(b->position.cap, 0);
    cr_assert_eq(b->velocity.r, sys->v + 6);
    cr_assert_eq(b->rest_position.r, sys->x0 + 6);
    for (int i = 0; i < 15; i++)
        cr_assert_eq(sys->x[i], i + 1.0);

    double *u = NULL, *w = NULL;
    cr_assert_eq(st_system_vec_alloc(sys, &u, &err), ST_OK);
    cr_assert_eq(st_system_vec_alloc(sys, &w, &err), ST_OK);
    for (int i = 0; i < 15; i++)
        cr_assert_eq(u[i], 0.0);
    st_vec_eq(sys, u, sys->x);                /* u = x */
    st_vec_teq(sys, u, 2.0);                  /* u = 2x */
    st_vec_op(sys, w, sys->x, u, -0.5);       /* w = x - x = 0 */
    for (int i = 0; i < 15; i++)
        cr_assert_eq(w[i], 0.0);
    st_vec_peq(sys, w, sys->x, 3.0);          /* w = 3x */
    cr_assert_eq(w[14], 45.0);
    /* sum of (i+1)^2 for i < 15 = 1240 */
    cr_assert_eq(st_vec_dot(sys, sys->x, sys->x), 1240.0);
    cr_assert_float_eq(st_vec_norm(sys, u), 2.0 * sqrt(1240.0), 1e-12);
    st_vec_clear(sys, u);
    cr_assert_eq(st_vec_dot(sys, u, u), 0.0);

    /* Destroying the scene gives the states their arrays back first. */
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(system, unbind_gives_owned_copies)
{
    test_rt t;
    open_rt(&t);
    st_node *body;
    st_scene *s = new_scene(&t, "0 0 0", &body);
    st_mstate *a = (st_mstate *)add(body, "MechanicalObject", "a");
    set(&a->base, "position", "1 2 3  4 5 6");
    init_ok(s);
    st_system *sys = the_system(s);
    sys->x[4] = 42.0;
    st__system_unbind(sys);
    cr_assert_neq(a->position.r, sys->x);
    cr_assert_geq(a->position.cap, 2);
    cr_assert_eq(a->position.n, 2);
    cr_assert_eq(a->position.r[4], 42.0);
    cr_assert_null(a->system);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- force order and products ---- */

Test(system, compute_force_follows_scene_order)
{
    test_rt t;
    open_rt(&t);
    st_node *body, *child;
    st_scene *s = new_scene(&t, "1 0 0", &body);
    st_mstate *a = (st_mstate *)add(body, "MechanicalObject", "a");
    set(&a->base, "position", "0 0 0  1 1 1");
    set(add(body, "ProbeForceField", "p1"), "id", "1");
    set(add(body, "UniformMass", "m"), "vertexMass", "1");
    set(add(body, "ProbeForceField", "p2"), "id", "2");
    st_error err = {0};
    cr_assert_eq(st_node_add_child(body, "Child", &child, &err), ST_OK);
    add(child, "MechanicalObject", "b");
    set(add(child, "ProbeForceField", "p3"), "id", "3");
    init_ok(s);
    st_system *sys = the_system(s);
    st_system_compute_force(sys, sys->f, sys->x, sys->v);
    /* p1, then the mass's gravity (once: a mass is not also a force field), then p2. */
    cr_assert_eq(sys->f[0], ((0.0 * 10 + 1) + 1) * 10 + 2, "f = %g", sys->f[0]);
    cr_assert_eq(sys->f[3], 1.0); /* vertex 1: gravity only */
    cr_assert_eq(sys->f[6], 3.0); /* child state: its own probe */
    /* Energies: the probes' and the mass's potential -m g.x. */
    cr_assert_eq(st_system_potential_energy(sys), 1.0 + 2.0 + 3.0 - 1.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(system, add_mbkdx_with_rayleigh_factors)
{
    test_rt t;
    open_rt(&t);
    st_node *body;
    st_scene *s = new_scene(&t, "0 0 0", &body);
    add(body, "MechanicalObject", "a");
    st_component *m = add(body, "UniformMass", "m");
    set(m, "vertexMass", "2");
    set(m, "rayleighMass", "0.5");
    st_component *p = add(body, "ProbeForceField", "p");
    set(p, "id", "3");
    set(p, "rayleighStiffness", "0.25");
    init_ok(s);
    st_system *sys = the_system(s);
    double dx[3] = {1.0, 10.0, 0.0};
    memcpy(sys->dx, dx, sizeof dx);
    const double mf = 1.5, bf = 0.2, kf = -0.7;
    st_system_add_mbkdx(sys, sys->df, sys->dx, mf, bf, kf, true);
    /* mass: (mf - bf rm) m dx; probe: (kf + bf rs) id dx on x only. */
    double mfi = mf - bf * 0.5, kfi = kf + bf * 0.25;
    cr_assert_float_eq(sys->df[0], mfi * 2.0 * 1.0 + kfi * 3.0 * 1.0, 1e-15);
    cr_assert_float_eq(sys->df[1], mfi * 2.0 * 10.0, 1e-15);
    /* Without clear it accumulates. */
    st_system_add_mbkdx(sys, sys->df, sys->dx, 0.0, 0.0, 1.0, false);
    cr_assert_float_eq(sys->df[0], mfi * 2.0 + kfi * 3.0 + 3.0, 1e-15);
    cr_assert_float_eq(sys->df[1], mfi * 2.0 * 10.0, 1e-15);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- externalForce ---- */

Test(system, external_force_acts_during_one_step)
{
    test_rt t;
    open_rt(&t);
    st_node *body;
    st_scene *s = new_scene(&t, "0 0 0", &body);
    st_mstate *a = (st_mstate *)add(body, "MechanicalObject", "a");
    set(&a->base, "externalForce", "0 10 0");
    set(add(body, "UniformMass", "m"), "vertexMass", "2");
    init_ok(s);
    cr_assert(a->has_external_force);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_float_eq(a->velocity.r[1], 0.5, 1e-15); /* (10 / 2) * 0.1 */
    cr_assert_not(a->has_external_force);
    cr_assert_eq(a->external_force.r[1], 0.0);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_float_eq(a->velocity.r[1], 0.5, 1e-15);
    /* Setting it again between steps applies it to the next step only. */
    set(&a->base, "externalForce", "4 0 0");
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_float_eq(a->velocity.r[0], 0.2, 1e-15);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_float_eq(a->velocity.r[0], 0.2, 1e-15);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- UniformMass ---- */

static st_scene *mass_scene(test_rt *t, const char *vm, const char *tm, st_component **mass)
{
    st_node *body;
    st_scene *s = new_scene(t, "0 -10 0", &body);
    st_mstate *a = (st_mstate *)add(body, "MechanicalObject", "a");
    set(&a->base, "position", "0 1 0  0 2 0  0 3 0  0 4 0");
    *mass = add(body, "UniformMass", "mass");
    if (vm)
        set(*mass, "vertexMass", vm);
    if (tm)
        set(*mass, "totalMass", tm);
    return s;
}

static double field_real(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f);
    return *(double *)st_component_field_ptr(c, f);
}

Test(uniform_mass, total_mass_wins_with_a_warning)
{
    test_rt t;
    open_rt(&t);
    st_component *m;
    st_scene *s = mass_scene(&t, "5", "8", &m);
    init_ok(s);
    cr_assert_eq(field_real(m, "vertexMass"), 2.0);
    cr_assert_eq(field_real(m, "totalMass"), 8.0);
    cr_assert(strstr(t.log, "warning|") && strstr(t.log, "totalMass value overriding"), "%s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(uniform_mass, vertex_mass_only_derives_total)
{
    test_rt t;
    open_rt(&t);
    st_component *m;
    st_scene *s = mass_scene(&t, "1.5", NULL, &m);
    init_ok(s);
    cr_assert_eq(field_real(m, "totalMass"), 6.0);
    cr_assert_null(strstr(t.log, "overriding"));
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(uniform_mass, no_mass_is_an_error)
{
    test_rt t;
    open_rt(&t);
    st_component *m;
    st_scene *s = mass_scene(&t, NULL, NULL, &m);
    st_error err = {0};
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "No input mass information"), "%s", err.msg);
    cr_assert(strstr(err.path, "/Body/mass"), "path '%s'", err.path);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(uniform_mass, negative_mass_is_an_error)
{
    test_rt t;
    open_rt(&t);
    st_component *m;
    st_scene *s = mass_scene(&t, NULL, "-8", &m);
    st_error err = {0};
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "totalMass"), "%s", err.msg);
    st_scene_destroy(&s);

    /* A negative vertexMass overridden by a valid totalMass is fine. */
    s = mass_scene(&t, "-4", "8", &m);
    init_ok(s);
    cr_assert_eq(field_real(m, "vertexMass"), 2.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(uniform_mass, local_range_selects_vertices)
{
    test_rt t;
    open_rt(&t);
    st_component *m;
    st_scene *s = mass_scene(&t, NULL, "4", &m);
    set(m, "localRange", "1 2");
    init_ok(s);
    cr_assert_eq(field_real(m, "vertexMass"), 2.0);
    st_system *sys = the_system(s);
    st_system_compute_force(sys, sys->f, sys->x, sys->v);
    cr_assert_eq(sys->f[1], 0.0);
    cr_assert_eq(sys->f[4], -20.0);
    cr_assert_eq(sys->f[7], -20.0);
    cr_assert_eq(sys->f[10], 0.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(uniform_mass, energies)
{
    test_rt t;
    open_rt(&t);
    st_component *m;
    st_scene *s = mass_scene(&t, "2", NULL, &m);
    init_ok(s);
    st_system *sys = the_system(s);
    sys->v[0] = 3.0;
    sys->v[4] = 4.0;
    /* 1/2 m |v|^2 = 0.5 * 2 * (9 + 16) */
    cr_assert_eq(st_system_kinetic_energy(sys), 25.0);
    /* -sum m g.x = 2 * 10 * (1 + 2 + 3 + 4) */
    cr_assert_eq(st_system_potential_energy(sys), 200.0);
    /* a = M^-1 f after gravity: g everywhere. */
    st_system_compute_force(sys, sys->f, sys->x, sys->v);
    cr_assert(st_system_mass_is_diagonal(sys));
    st_error err = {0};
    cr_assert_eq(st_system_acc_from_f(sys, sys->dx, sys->f, &err), ST_OK);
    cr_assert_eq(sys->dx[10], -10.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(uniform_mass, separate_gravity_goes_to_velocity)
{
    test_rt t;
    open_rt(&t);
    st_component *m;
    st_scene *s = mass_scene(&t, "2", NULL, &m);
    set(m, "separateGravity", "true");
    init_ok(s);
    st_system *sys = the_system(s);
    st_system_compute_force(sys, sys->f, sys->x, sys->v);
    cr_assert_eq(sys->f[1], 0.0);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_float_eq(sys->v[1], -1.0, 1e-15); /* dt g */
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- solver errors ---- */

Test(euler_explicit, non_diagonal_mass_needs_a_linear_solver)
{
    test_rt t;
    open_rt(&t);
    st_node *body;
    st_scene *s = new_scene(&t, "0 -10 0", &body);
    add(body, "MechanicalObject", "a");
    add(body, "ProbeFullMass", "m");
    init_ok(s);
    cr_assert_not(st_system_mass_is_diagonal(the_system(s)));
    st_error err = {0};
    cr_assert_neq(st_scene_step(s, 0, &err), ST_OK);
    cr_assert(strstr(err.msg, "Due to the presence of non-diagonal masses, the solver requires a "
                              "linear solver"),
              "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(euler_explicit, integration_factors)
{
    test_rt t;
    open_rt(&t);
    st_node *body;
    st_scene *s = new_scene(&t, "0 0 0", &body);
    st_component *solver = st_node_object(body, 0);
    const st_odesolver_ops *ops = solver->cls->odesolver;
    cr_assert_eq(ops->integration_factor(solver, 2, 0, 0.1), 0.1 * 0.1);
    cr_assert_eq(ops->integration_factor(solver, 1, 0, 0.1), 0.1);
    cr_assert_eq(ops->integration_factor(solver, 0, 1, 0.1), 0.0);
    cr_assert_eq(ops->solution_integration_factor(solver, 1, 0.1), 0.1);
    cr_assert_eq(ops->position_integration_factor(solver, 0.1), 0.1 * 0.1);
    set(solver, "symplectic", "false");
    cr_assert_eq(ops->integration_factor(solver, 2, 0, 0.1), 0.0);
    cr_assert_eq(ops->velocity_integration_factor(solver, 0.1), 0.1);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(animation_loop, only_the_first_solver_going_down_integrates)
{
    test_rt t;
    open_rt(&t);
    st_node *body, *inner;
    st_scene *s = new_scene(&t, "0 -10 0", &body);
    add(body, "MechanicalObject", "a");
    set(add(body, "UniformMass", "m"), "vertexMass", "1");
    st_error err = {0};
    cr_assert_eq(st_node_add_child(body, "Inner", &inner, &err), ST_OK);
    add(inner, "EulerExplicitSolver", "inner_solver");
    st_mstate *b = (st_mstate *)add(inner, "MechanicalObject", "b");
    set(add(inner, "UniformMass", "m"), "vertexMass", "1");
    init_ok(s);
    st_system *sys = the_system(s);
    cr_assert_eq(sys->nstates, 2);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    /* Integrated once (by the outer solver), not twice. */
    cr_assert_float_eq(b->velocity.r[1], -1.0, 1e-15);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(system, mapped_states_come_last_and_forces_map_back)
{
    test_rt t;
    open_rt(&t);
    st_error err = {0};
    if (st_runtime_load_plugin(t.rt, "Mapping.Linear", &err) != ST_OK) {
        test_rt_close(&t);
        cr_skip_test("the Mapping.Linear plugin is not available");
    }
    st_node *body, *mapped;
    st_scene *s = new_scene(&t, "1 0 0", &body);
    cr_assert_eq(st_node_add_child(body, "Mapped", &mapped, &err), ST_OK);
    /* The mapped node comes first in scene order, yet is laid out last. */
    st_mstate *b = (st_mstate *)add(mapped, "MechanicalObject", "b");
    st_component *map = add(mapped, "IdentityMapping", "map");
    set(map, "input", "@../a");
    set(map, "output", "@b");
    set(add(mapped, "ProbeForceField", "p"), "id", "5");
    /* Children come after the node's objects, so add a's node objects now. */
    st_mstate *a = (st_mstate *)add(body, "MechanicalObject", "a");
    set(&a->base, "position", "1 2 3  4 5 6");
    set(add(body, "UniformMass", "m"), "vertexMass", "1");
    init_ok(s);
    st_system *sys = the_system(s);
    cr_assert_eq(sys->nstates, 2);
    cr_assert_eq(sys->nindep, 1);
    cr_assert_eq(sys->states[0], a);
    cr_assert_eq(sys->states[1], b);
    cr_assert(b->mapped);
    cr_assert_not(a->mapped);
    cr_assert_eq(b->doffset, 6);
    cr_assert_eq(sys->ndof, 2);
    cr_assert_eq(sys->nall, 4);
    cr_assert_eq(sys->size, 6);
    /* Positions were propagated at init. */
    cr_assert_eq(b->position.r[4], 5.0);
    st_system_compute_force(sys, sys->f, sys->x, sys->v);
    /* a: gravity 1, plus the probe's 5 mapped back by J^T. */
    cr_assert_eq(sys->f[0], 6.0, "f = %g", sys->f[0]);
    cr_assert_eq(sys->f[3], 1.0);
    cr_assert(st_system_mass_is_diagonal(sys));
    /* A step moves b with a. */
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(b->position.r[0], a->position.r[0]);
    cr_assert_neq(a->position.r[0], 1.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
