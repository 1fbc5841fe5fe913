/* scene_test_util.h - what the scene tests share: a scene loaded and
 * initialised (or its failure), steps, named components and their fields;
 * each helper fails the test with the error and the runtime's log. */
#ifndef SETTEE_TESTS_SCENE_TEST_UTIL_H
#define SETTEE_TESTS_SCENE_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
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

/* The spring beam of issue 15's solver figures: nx x ny x nz nodes of a
 * unit grid along z, base (z = 0) fixed, UniformMass 15, MeshSpringForceField
 * stiffness 300, gravity -9.81 y, dt 0.01, an EulerImplicitSolver named ode
 * with the extra fields ode_fields ("" or "key: value, ...") whose linear
 * solver is "ls"; `solvers` are the linear solver lines. Loaded and
 * initialised. */
static inline st_scene *scene_spring_beam(test_rt *t, int nx, int ny, int nz,
                                          const char *ode_fields, const char *solvers)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative,\n"
             "                      LinearSolver.Direct, Mass, Topology, SolidMechanics.Spring,\n"
             "                      Constraint.Projective, Engine.Select]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: Beam\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {name: ode, %slinearSolver: \"@ls\"}\n"
             "%s"
             "        - MechanicalObject: {name: dofs}\n"
             "        - RegularGridTopology: {name: grid, nx: %d, ny: %d, nz: %d, xmin: 0,\n"
             "                                xmax: %d, ymin: 0, ymax: %d, zmin: 0, zmax: %d}\n"
             "        - UniformMass: {totalMass: 15}\n"
             "        - BoxROI: {name: box, box: [-0.5, -0.5, -0.5, %d, %d, 0.0001]}\n"
             "        - FixedProjectiveConstraint: {indices: \"@box.indices\"}\n"
             "        - MeshSpringForceField: {name: springs, stiffness: 300}\n",
             ode_fields, solvers, nx, ny, nz, nx - 1, ny - 1, nz - 1, nx, ny);
    return scene_load(t, yaml);
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
