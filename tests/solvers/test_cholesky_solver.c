/* test_cholesky_solver.c - CholeskySolver (SOFA's dense L L^T) drives the
 * same trajectory as SparseLDLSolver (CHOLMOD) on a sagging spring beam of
 * 528 unknowns under EulerImplicitSolver, step after step; an indefinite
 * system (a spring of negative stiffness stronger than the mass term) is an
 * error naming the pivot's row, where SOFA goes on with NaNs; a template
 * SOFA does not have is refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static st_scene *load(test_rt *t, const char *yaml)
{
    test_rt_open(t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    return s;
}

Test(cholesky_solver, trajectory_equals_sparse_ldl)
{
    test_rt ta, tb;
    st_scene *a = load(&ta, test_beam_yaml("", "EulerImplicitSolver: {}", "CholeskySolver: {}"));
    st_scene *b = load(&tb, test_beam_yaml("", "EulerImplicitSolver: {}",
                                           "SparseLDLSolver: {template: CompressedRowSparseMatrixd}"));
    st_error err = {0};
    cr_assert_eq(st_scene_init(a, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(b, &err), ST_OK, "%s", err.msg);
    st_mstate *ma = (st_mstate *)test_find_object(a, "dofs");
    st_mstate *mb = (st_mstate *)test_find_object(b, "dofs");
    cr_assert_eq(ma->n, 176u);
    cr_assert_eq(ma->system->size, 528u);
    double tip0 = ma->position.r[3 * 175 + 1];
    for (int k = 0; k < 20; k++) {
        cr_assert_eq(st_scene_step(a, 0, &err), ST_OK, "step %d: %s", k, err.msg);
        cr_assert_eq(st_scene_step(b, 0, &err), ST_OK, "step %d: %s", k, err.msg);
        double d = 0.0, v = 0.0;
        for (size_t i = 0; i < 3 * ma->n; i++) {
            d = fmax(d, fabs(ma->position.r[i] - mb->position.r[i]));
            v = fmax(v, fabs(ma->velocity.r[i] - mb->velocity.r[i]));
        }
        cr_assert(d <= 1e-11 && v <= 1e-9, "step %d: positions differ by %.3g, velocities by %.3g",
                  k, d, v);
    }
    /* The beam sagged: the comparison is not between two resting beams. */
    cr_assert(ma->position.r[3 * 175 + 1] < tip0 - 0.05, "tip y %.17g (from %.17g)",
              ma->position.r[3 * 175 + 1], tip0);
    st_scene_destroy(&a);
    st_scene_destroy(&b);
    test_rt_close(&ta);
    test_rt_close(&tb);
}

static const char *indefinite =
    "format: settee/1\n"
    "root:\n"
    "  name: root\n"
    "  gravity: [0, 0, 0]\n"
    "  dt: 0.01\n"
    "  objects:\n"
    "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Mass,\n"
    "                      SolidMechanics.Spring]}\n"
    "    - DefaultAnimationLoop: {}\n"
    "  children:\n"
    "    - name: P\n"
    "      objects:\n"
    "        - EulerImplicitSolver: {}\n"
    "        - CholeskySolver: {%s}\n"
    "        - MechanicalObject: {name: dofs, position: [1, 0, 0, 2, 0, 0]}\n"
    "        - UniformMass: {totalMass: 2}\n"
    "        - RestShapeSpringsForceField: {points: [1], stiffness: %s}\n";

Test(cholesky_solver, indefinite_system_is_an_error)
{
    test_rt t;
    char yaml[2048];
    /* A = M - dt^2 K: 1 + 1e-4 (-1e6) = -99 on point 1 (rows 3 to 5). */
    snprintf(yaml, sizeof yaml, indefinite, "", "-1e6");
    st_scene *s = load(&t, yaml);
    st_error err = {0};
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_status st = st_scene_step(s, 0, &err);
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "not positive definite") && strstr(err.msg, "row 3"), "%s",
              err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
    /* A weaker negative spring leaves A positive definite: x follows
     * (M - dt^2 K) dv = dt f by hand, point 1 pushed away by 0.5 k. */
    snprintf(yaml, sizeof yaml, indefinite, "template: FullMatrix", "-5000");
    s = load(&t, yaml);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    /* rest positions are the initial ones: no force at the first step;
     * move point 1 by 0.1 first. */
    ms->position.r[3] = 2.1;
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    /* f = 5000 * 0.1 = 500, A = 1 - 1e-4 * 5000 = 0.5: dv = 0.01 * 500 / 0.5 = 10. */
    cr_assert_float_eq(ms->velocity.r[3], 10.0, 1e-10, "%.17g", ms->velocity.r[3]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(cholesky_solver, unknown_template_is_refused)
{
    test_rt t;
    char yaml[2048];
    snprintf(yaml, sizeof yaml, indefinite, "template: CompressedRowSparseMatrixMat3x3d", "1");
    st_scene *s = load(&t, yaml);
    st_error err = {0};
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "unsupported template"), "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
