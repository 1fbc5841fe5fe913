/* test_constraints.c - FixedProjectiveConstraint,
 * PartialFixedProjectiveConstraint and FixedPlaneProjectiveConstraint:
 * defaults, every field, projections, the assembled matrix, bad values. */
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

static test_rt T;
static st_scene *S;
static st_node *B;
static st_component *DOFS;

static void setup(void)
{
    st_error err = {0};
    test_rt_open(&T);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    const char *plugins[] = {"ODESolver.Forward", "SolidMechanics.Spring",
                             "Sofa.Component.Constraint.Projective"};
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(st_runtime_load_plugin(T.rt, plugins[i], &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_create(T.rt, &S, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_add_child(st_scene_root(S), "Body", &B, &err), ST_OK, "%s", err.msg);
    add(B, "EulerExplicitSolver", "solver");
    DOFS = add(B, "MechanicalObject", "dofs");
    set(DOFS, "position", "0 0 0  1 0 0  2 0 0  3 0 0");
}

static void teardown(void)
{
    st_scene_destroy(&S);
    test_rt_close(&T);
}

static void init_ok(void)
{
    st_error err = {0};
    cr_assert_eq(st_scene_init(S, &err), ST_OK, "init: %s\nlog:\n%s", err.msg, T.log);
}

static void ones(double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = 1.0 + (double)i;
}

static st_mparams *mp(void) { return &S->systems[0]->mp; }

TestSuite(fixed, .init = setup, .fini = teardown);

Test(fixed, default_index_zero)
{
    st_component *c = add(B, "FixedProjectiveConstraint", "fix");
    init_ok();
    double v[12];
    ones(v, 12);
    c->cls->projective->project_response(c, mp(), v);
    cr_assert(v[0] == 0 && v[1] == 0 && v[2] == 0, "index 0 fixed by default");
    cr_assert(v[3] == 4 && v[11] == 12, "the others are free");
    /* projectVelocity only with activate_projectVelocity; positions untouched */
    ones(v, 12);
    c->cls->projective->project_velocity(c, mp(), v);
    cr_assert_eq(v[0], 1.0);
    c->cls->projective->project_position(c, mp(), v);
    cr_assert_eq(v[0], 1.0);
}

Test(fixed, alias_fix_all_and_velocity)
{
    st_component *c = add(B, "FixedConstraint", "fix");
    cr_assert_str_eq(c->cls->name, "FixedProjectiveConstraint");
    set(c, "fixAll", "true");
    set(c, "activate_projectVelocity", "true");
    init_ok();
    double v[12];
    ones(v, 12);
    c->cls->projective->project_velocity(c, mp(), v);
    for (int i = 0; i < 12; i++)
        cr_assert_eq(v[i], 0.0);
}

Test(fixed, invalid_index_removed)
{
    st_component *c = add(B, "FixedProjectiveConstraint", "fix");
    set(c, "indices", "2 9 3");
    init_ok();
    cr_assert(strstr(T.log, "Index 9 not valid"), "%s", T.log);
    const st_array *ix = st_component_field_ptr(c, st_component_field(c, "indices"));
    cr_assert_eq(ix->n, 2);
    cr_assert(ix->u[0] == 2 && ix->u[1] == 3);
}

Test(fixed, end_time)
{
    st_component *c = add(B, "FixedProjectiveConstraint", "fix");
    set(c, "endTime", "0.5");
    init_ok();
    double v[12];
    st_mparams p = *mp();
    p.time = 0.4;
    ones(v, 12);
    c->cls->projective->project_response(c, &p, v);
    cr_assert_eq(v[0], 0.0, "active before endTime");
    p.time = 0.6;
    ones(v, 12);
    c->cls->projective->project_response(c, &p, v);
    cr_assert_eq(v[0], 1.0, "inactive after endTime");
}

/* Springs 0-1-2-3, constraint on vertex 1: the assembled matrix has row and
 * column 3..5 cleared and a unit diagonal there. */
Test(fixed, assembled_matrix)
{
    st_component *ff = add(B, "SpringForceField", "s");
    set(ff, "spring", "0 1 10 0 0.5  1 2 10 0 0.5  2 3 10 0 0.5");
    st_component *c = add(B, "FixedProjectiveConstraint", "fix");
    set(c, "indices", "1");
    init_ok();
    st_system *sys = S->systems[0];
    double f[12] = {0}, v[12] = {0};
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x, v);
    st_matrix *m = NULL;
    st_error err = {0};
    cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, sys, 0, 0, 1, &err), ST_OK, "%s", err.msg);
    st_csr csr;
    st_matrix_csr(m, &csr);
    int nonzero_elsewhere = 0;
    for (size_t r = 0; r < 12; r++)
        for (int k = csr.rowptr[r]; k < csr.rowptr[r + 1]; k++) {
            size_t col = (size_t)csr.colind[k];
            bool fixed_r = r >= 3 && r < 6, fixed_c = col >= 3 && col < 6;
            if (fixed_r || fixed_c)
                cr_assert_eq(csr.values[k], r == col ? 1.0 : 0.0, "A(%zu,%zu) = %g", r, col,
                             csr.values[k]);
            else if (csr.values[k] != 0)
                nonzero_elsewhere++;
        }
    cr_assert_gt(nonzero_elsewhere, 0);
    st_matrix_destroy(&m);
}

Test(fixed, missing_state_warns)
{
    st_node *n = NULL;
    st_error err = {0};
    cr_assert_eq(st_node_add_child(st_scene_root(S), "Empty", &n, &err), ST_OK);
    add(n, "FixedProjectiveConstraint", "fix");
    init_ok();
    cr_assert(strstr(T.log, "Missing mstate"), "%s", T.log);
}

Test(fixed, yaml_bad_value)
{
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  objects:\n"
                       "    - RequiredPlugin: {pluginName: [Constraint.Projective]}\n"
                       "    - MechanicalObject: {position: [0, 0, 0]}\n"
                       "    - FixedProjectiveConstraint: {indices: [0, -1]}\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_neq(test_load_string(&T, yaml, &s, &err), ST_OK);
    cr_assert(strstr(err.where, ":6:"), "error at line 6: '%s' %s", err.where, err.msg);
}

TestSuite(partial_fixed, .init = setup, .fini = teardown);

Test(partial_fixed, directions)
{
    st_component *c = add(B, "PartialFixedProjectiveConstraint", "fix");
    set(c, "indices", "0 2");
    set(c, "fixedDirections", "0 1 0");
    init_ok();
    double v[12];
    ones(v, 12);
    c->cls->projective->project_response(c, mp(), v);
    cr_assert(v[0] == 1 && v[1] == 0 && v[2] == 3);
    cr_assert(v[6] == 7 && v[7] == 0 && v[8] == 9);
    cr_assert(v[4] == 5);
    ones(v, 12);
    c->cls->projective->project_velocity(c, mp(), v);
    cr_assert_eq(v[1], 2.0, "no velocity projection by default");
    set(c, "projectVelocity", "true");
    c->cls->projective->project_velocity(c, mp(), v);
    cr_assert_eq(v[1], 0.0);
}

Test(partial_fixed, default_all_directions)
{
    st_component *c = add(B, "PartialFixedProjectiveConstraint", "fix");
    init_ok();
    double v[12];
    ones(v, 12);
    c->cls->projective->project_response(c, mp(), v);
    cr_assert(v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 4);
}

TestSuite(fixed_plane, .init = setup, .fini = teardown);

Test(fixed_plane, selection_and_projection)
{
    st_component *c = add(B, "FixedPlaneProjectiveConstraint", "plane");
    set(c, "direction", "1 0 0");
    set(c, "dmin", "0.5");
    set(c, "dmax", "2.5");
    init_ok();
    const st_array *ix = st_component_field_ptr(c, st_component_field(c, "indices"));
    cr_assert_eq(ix->n, 2, "vertices 1 and 2 are strictly between the planes");
    cr_assert(ix->u[0] == 1 && ix->u[1] == 2);
    double v[12];
    ones(v, 12);
    c->cls->projective->project_response(c, mp(), v);
    cr_assert(v[3] == 0 && v[4] == 5 && v[6] == 0 && v[0] == 1);
}

Test(fixed_plane, defaults_and_bad_index)
{
    st_component *c = add(B, "FixedPlaneProjectiveConstraint", "plane");
    set(c, "indices", "8");
    st_error err = {0};
    cr_assert_neq(st_scene_init(S, &err), ST_OK);
    cr_assert(strstr(err.msg, "out of range"), "%s", err.msg);
}

/* In a running scene, endTime compares with the time at the start of the
 * step, as SOFA's constraints read the context's time, which advances only
 * after the step's last projection: with dt 0.01 and endTime 0.05 the point
 * is held for the steps that start at 0 ... 0.04 and falls from the step
 * that starts at 0.05. */
Test(fixed, end_time_in_a_running_scene_is_sofas)
{
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  gravity: [0, -10, 0]\n"
                       "  dt: 0.01\n"
                       "  objects:\n"
                       "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, "
                       "Constraint.Projective]}\n"
                       "    - EulerExplicitSolver: {symplectic: true}\n"
                       "    - MechanicalObject: {name: p, position: [[0, 0, 0]]}\n"
                       "    - UniformMass: {totalMass: 1}\n"
                       "    - FixedProjectiveConstraint: {indices: [0], endTime: 0.05}\n";
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_mstate *p = (st_mstate *)test_find_object(s, "p");
    for (int k = 0; k < 5; k++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK);
        cr_assert_eq(p->position.r[1], 0.0, "held during step %d", k);
    }
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK);
    /* Symplectic Euler from rest: v = -g dt, x = -g dt^2. */
    cr_assert_float_eq(p->position.r[1], -10 * 0.01 * 0.01, 1e-15);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
