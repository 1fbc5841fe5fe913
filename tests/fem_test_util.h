/* fem_test_util.h - what the elastic FEM tests share: a runtime with the
 * plugins their scenes use, scenes loaded from SOFA XML text, steps,
 * tolerant comparisons and one add_force call on a given state. */
#ifndef SETTEE_TESTS_FEM_TEST_UTIL_H
#define SETTEE_TESTS_FEM_TEST_UTIL_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* Opens t with the plugins of the FEM test scenes loaded. */
static inline void fem_open_rt(test_rt *t)
{
    static const char *const plugins[] = {"ODESolver.Forward", "ODESolver.Backward",
                                          "LinearSolver.Direct", "LinearSolver.Iterative",
                                          "Mass", "Topology", "Constraint.Projective",
                                          "Engine.Select", "SolidMechanics.FEM.Elastic"};
    st_error err = {0};
    test_rt_open(t);
    cr_assert_eq(st_runtime_add_plugin_path(t->rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(t->rt, plugins[i], &err), ST_OK, "%s", err.msg);
}

/* Loads a SOFA XML scene from text and initialises it. */
static inline st_scene *fem_load_xml(test_rt *t, const char *xml)
{
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(t->rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s", err.msg);
    return s;
}

static inline void fem_step(st_scene *s, int n, double dt)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, dt, &err), ST_OK, "step: %s", err.msg);
}

static inline void fem_near(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol, "%s: %.12g, expected %.12g (tolerance %g)", what, got,
              want, tol);
}

/* f = the force field's add_force at x (zero velocity). */
static inline void fem_forces_at(st_component *ff, st_system *sys, const double *x, double *f)
{
    size_t n = 3 * sys->nall;
    double *v = calloc(n, sizeof *v);
    memset(f, 0, n * sizeof *f);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, x, v);
    free(v);
}

/* The component named name, checked to be of class cls. */
static inline st_component *fem_find(st_scene *s, const char *name, const char *cls)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no component %s", name);
    cr_assert_str_eq(c->cls->name, cls);
    return c;
}

#endif
