/* spring_test_util.h - what the spring test suites share: a scene built in
 * code (root, node "Body" with an EulerExplicitSolver and MechanicalObject
 * "dofs") opened and closed around each test, field helpers, init that must
 * succeed or fail, and one add_force call on the system's parameters. For
 * tests/mechanics/test_springs.c and test_bending_springs_sff.c. */
#ifndef SETTEE_TESTS_SPRING_TEST_UTIL_H
#define SETTEE_TESTS_SPRING_TEST_UTIL_H

#include <criterion/criterion.h>
#include <math.h>
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

#define CLOSE(a, b) (fabs((a) - (b)) <= 1e-12 * (fabs(b) + 1.0))

static test_rt T;
static st_scene *S;
static st_node *B;
static st_component *DOFS;

static void setup(void)
{
    st_error err = {0};
    test_rt_open(&T);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    const char *plugins[] = {"ODESolver.Forward", "Topology",
                             "Sofa.Component.SolidMechanics.Spring"};
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(st_runtime_load_plugin(T.rt, plugins[i], &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_create(T.rt, &S, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_add_child(st_scene_root(S), "Body", &B, &err), ST_OK, "%s", err.msg);
    add(B, "EulerExplicitSolver", "solver");
    DOFS = add(B, "MechanicalObject", "dofs");
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

static st_error init_fails(void)
{
    st_error err = {0};
    cr_assert_neq(st_scene_init(S, &err), ST_OK, "init should fail\nlog:\n%s", T.log);
    return err;
}

/* f = force field's add_force at (x, v), 3 n doubles. */
static void force(st_component *ff, const double *x, const double *v, double *f, size_t n)
{
    st_system *sys = S->systems[0];
    memset(f, 0, 3 * n * sizeof *f);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, x, v);
}

#endif
