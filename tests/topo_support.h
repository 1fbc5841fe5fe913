/* topo_support.h - small helpers for the topology, ROI, loader and mapping
 * suites: load and initialise a scene from YAML text, find a component by
 * path, read a field's array. Header-only (static functions). */
#ifndef SETTEE_TEST_TOPO_SUPPORT_H
#define SETTEE_TEST_TOPO_SUPPORT_H

#include <criterion/criterion.h>
#include <string.h>

#include "support.h"

/* Loads and initialises a scene; asserts success. */
static inline st_scene *topo_scene(test_rt *t, const char *yaml)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s: %s", err.where, err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s: %s %s", err.where, err.path, err.msg);
    return s;
}

/* Loads and initialises a scene expected to fail; returns the error. */
static inline st_status topo_scene_fails(test_rt *t, const char *yaml, st_error *err)
{
    st_scene *s = NULL;
    st_status st = test_load_string(t, yaml, &s, err);
    if (st == ST_OK) {
        st = st_scene_init(s, err);
        st_scene_destroy(&s);
    }
    return st;
}

static inline st_component *topo_get(st_scene *s, const char *path)
{
    st_component *c = NULL;
    st_error err = {0};
    cr_assert_eq(st_node_resolve(st_scene_root(s), path, ST_LINK_ANY, &c, &err), ST_OK,
                 "resolve %s: %s", path, err.msg);
    return c;
}

static inline st_array *topo_arr(st_component *c, const char *field)
{
    const st_field *f = st_component_field(c, field);
    cr_assert(f, "%s has no field %s", c->cls->name, field);
    return st_component_field_ptr(c, f);
}

/* Asserts that n tuples of width w equal the expected values. */
static inline void topo_assert_tuples(const st_array *a, unsigned w, const unsigned *want,
                                      size_t n, const char *what)
{
    cr_assert_eq(a->n, n, "%s: %zu tuples, expected %zu", what, a->n, n);
    for (size_t i = 0; i < n * w; i++)
        cr_assert_eq(a->u[i], want[i], "%s: tuple %zu entry %zu is %u, expected %u", what, i / w,
                     i % w, a->u[i], want[i]);
}

/* Writes the unit cube [0,1]^3 as an OBJ surface (8 vertices, 12
 * triangles, oriented outward) under the test's TMPDIR; returns its path. */
static inline const char *topo_unit_cube_obj(void)
{
    return test_write_temp("cube.obj",
                           "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\n"
                           "v 1 1 1\nf 1 3 4\nf 1 4 2\nf 5 6 8\nf 5 8 7\nf 1 2 6\nf 1 6 5\n"
                           "f 3 7 8\nf 3 8 4\nf 1 5 7\nf 1 7 3\nf 2 4 8\nf 2 8 6\n");
}

#endif
