/* scene_test_util.h - what the scene tests share: a scene loaded and
 * initialised (or its failure), steps, named components and their fields;
 * each helper fails the test with the error and the runtime's log. */
#ifndef SETTEE_TESTS_SCENE_TEST_UTIL_H
#define SETTEE_TESTS_SCENE_TEST_UTIL_H

#include <criterion/criterion.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* The scene of yaml, loaded and initialised. */
static inline st_scene *scene_load(test_rt *t, const char *yaml)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s (%s)\n%s", err.msg, err.where,
                 t->log);
    return s;
}

/* Loads then initialises yaml: the status of the first that failed (err
 * its error), ST_OK when both passed; *s to destroy either way. */
static inline st_status scene_try_load(test_rt *t, const char *yaml, st_scene **s,
                                       st_error *err)
{
    *s = NULL;
    st_status st = test_load_string(t, yaml, s, err);
    return st == ST_OK ? st_scene_init(*s, err) : st;
}

/* Loading then initialising yaml fails, with a message holding what (NULL:
 * any message); returns the error. */
static inline st_error scene_refused(test_rt *t, const char *yaml, const char *what)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_neq(scene_try_load(t, yaml, &s, &err), ST_OK, "accepted:\n%s", yaml);
    cr_assert(!what || strstr(err.msg, what), "'%s' not in: %s", what, err.msg);
    st_scene_destroy(&s);
    return err;
}

/* n steps of s. */
static inline void scene_steps(test_rt *t, st_scene *s, int n)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, 0.0, &err), ST_OK, "step %d: %s\n%s", i, err.msg, t->log);
}

/* n steps of s that allocate nothing (what names the case in the
 * message). */
static inline void scene_steps_allocate_nothing(test_rt *t, st_scene *s, int n, const char *what)
{
    unsigned long before = st_alloc_count();
    scene_steps(t, s, n);
    cr_assert_eq(st_alloc_count(), before, "%s: %lu allocations in %d steps", what,
                 st_alloc_count() - before, n);
}

/* The component named name. */
static inline st_component *scene_object(st_scene *s, const char *name)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no object %s", name);
    return c;
}

/* The state (MechanicalObject) named name. */
static inline st_mstate *scene_state(st_scene *s, const char *name)
{
    st_component *c = scene_object(s, name);
    cr_assert(st_component_has_role(c, ST_ROLE_STATE), "%s is no state", name);
    return (st_mstate *)c;
}

/* The value of the field name of the component named obj. */
static inline void *scene_field(st_scene *s, const char *obj, const char *name)
{
    st_component *c = scene_object(s, obj);
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f, "no field %s.%s", obj, name);
    return st_component_field_ptr(c, f);
}

#endif
