/* fem_test_util.h - what the elastic FEM tests share: a runtime with the
 * plugins their scenes use, scenes loaded from SOFA XML text, steps,
 * tolerant comparisons and one add_force call on a given state. */
#ifndef SETTEE_TESTS_FEM_TEST_UTIL_H
#define SETTEE_TESTS_FEM_TEST_UTIL_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../plugins/SolidMechanics.FEM.Elastic/fem.h"
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

/* Patch-test check on the forces f (3 per vertex, n vertices): some
 * force at all (the largest above fmin), and at the interior vertices
 * inner[0..ni) none beyond tol times the largest. Returns the largest. */
static inline double fem_assert_interior_free(const double *f, size_t n, const unsigned *inner,
                                              size_t ni, double tol, double fmin,
                                              const char *what)
{
    double fmax = 0;
    for (size_t i = 0; i < 3 * n; i++)
        fmax = fmax > fabs(f[i]) ? fmax : fabs(f[i]);
    cr_assert_gt(fmax, fmin, "%s: boundary forces expected", what);
    for (size_t v = 0; v < ni; v++)
        for (int c = 0; c < 3; c++)
            cr_assert(fabs(f[3 * inner[v] + c]) <= tol * fmax,
                      "%s: interior vertex %u residual %g (max force %g)", what, inner[v],
                      f[3 * inner[v] + c], fmax);
    return fmax;
}

/* The rest positions x0 of the system turned by a fixed rotation and
 * translated: the force field must exert no force there (|f| <= tol). */
static inline void fem_assert_rigid_free(st_component *ff, st_system *sys, const double *x0,
                                         double tol)
{
    size_t n = sys->nall;
    double *x = calloc(3 * n, sizeof *x), *f = calloc(3 * n, sizeof *f);
    const double a = 1.1, c = cos(a), sn = sin(a);
    const double R[9] = {c, -sn, 0, sn * 0.6, c * 0.6, -0.8, sn * 0.8, c * 0.8, 0.6};
    for (size_t i = 0; i < n; i++) {
        fem_mulv3(x + 3 * i, R, x0 + 3 * i);
        x[3 * i] += 3.0, x[3 * i + 1] -= 1.5, x[3 * i + 2] += 0.7;
    }
    fem_forces_at(ff, sys, x, f);
    for (size_t i = 0; i < 3 * n; i++)
        cr_assert(fabs(f[i]) <= tol, "%s: force %g on a rigidly moved rest shape",
                  ff->cls->name, f[i]);
    free(x), free(f);
}

/* The scene fmt (one %s for the solver components; its state is named
 * "dof") under the three solver paths: implicit Euler with CG converged
 * tightly (nsteps of dt) and with SparseLDL must agree to 1e-7 of the
 * displacement of coordinate axis of vertex v from rest; symplectic
 * explicit Euler (100 times as many steps, dt / 100) must move it by the
 * same amount to 10% (the two differ by their O(dt) damping). */
static inline void fem_three_solvers(const char *fmt, size_t v, int axis, int nsteps, double dt)
{
    static const char *const solvers[] = {
        "<EulerImplicitSolver/><CGLinearSolver iterations='5000' tolerance='1e-16' "
        "threshold='1e-30'/>",
        "<EulerImplicitSolver/><SparseLDLSolver/>", "<EulerExplicitSolver symplectic='true'/>"};
    double got[3][3], rest = 0;
    for (int k = 0; k < 3; k++) {
        test_rt t;
        fem_open_rt(&t);
        size_t len = strlen(fmt) + strlen(solvers[k]) + 1;
        char *xml = malloc(len);
        snprintf(xml, len, fmt, solvers[k]);
        st_scene *s = fem_load_xml(&t, xml);
        free(xml);
        st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
        cr_assert_not_null(ms, "the scene needs a state named dof");
        rest = ms->rest_position.r[3 * v + (size_t)axis];
        fem_step(s, k < 2 ? nsteps : 100 * nsteps, k < 2 ? dt : dt / 100);
        memcpy(got[k], ms->position.r + 3 * v, sizeof got[k]);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
    double move = got[0][axis] - rest;
    cr_assert_gt(fabs(move), 1e-4, "the vertex must move: %g", move);
    for (int c = 0; c < 3; c++)
        fem_near(got[1][c], got[0][c], 1e-7 * fabs(move) + 1e-9, "SparseLDL vs CG");
    fem_near(got[2][axis] - rest, move, 0.1 * fabs(move), "explicit vs implicit");
}

#endif
