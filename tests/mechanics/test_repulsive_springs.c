/* test_repulsive_springs.c - RepulsiveSpringForceField against hand
 * values: a spring shorter than its rest length pushes its ends apart with
 * SpringForceField's force ks (d - L0) (+ damping), a longer one does
 * nothing (where SpringForceField pulls); its Jacobian against finite
 * differences; no potential energy (SOFA's 0). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#include <settee/check.h>

static st_scene *load(test_rt *t, const char *pos, const char *cls)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, SolidMechanics.Spring]}\n"
             "    - EulerExplicitSolver: {}\n"
             "    - MechanicalObject: {name: dofs, position: [%s]}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - %s: {name: ff, spring: '0 1 10 0.5 1'}\n",
             pos, cls);
    test_rt_open(t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t->log);
    return s;
}

/* The force of ff alone at the current state, into f (the system's size). */
static void force(st_scene *s, double *f, size_t n)
{
    st_component *ff = test_find_object(s, "ff");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    st_system *sys = ms->system;
    cr_assert(sys && sys->size_all <= n);
    memset(f, 0, n * sizeof *f);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x, sys->v);
}

Test(repulsive_springs, compressed_pushes_extended_is_free)
{
    test_rt t;
    double f[6];
    /* d = 0.5 < L0 = 1, at rest: F = 10 (0.5 - 1) = -5 along u = +x */
    st_scene *s = load(&t, "[0,0,0], [0.5,0,0]", "RepulsiveSpringForceField");
    force(s, f, 6);
    const double want[6] = {-5, 0, 0, 5, 0, 0};
    for (int i = 0; i < 6; i++)
        cr_assert(f[i] == want[i], "f[%d] = %.17g, expected %g", i, f[i], want[i]);
    st_component *ff = test_find_object(s, "ff");
    st_jacobian_check jc = {.struct_size = sizeof jc};
    st_error err = {0};
    cr_assert_eq(st_check_forcefield(ff, &jc, &err), ST_OK, "%s", err.msg);
    cr_assert(jc.dforce_error < 1e-6 && jc.matrix_error < 1e-6, "dforce %g, matrix %g",
              jc.dforce_error, jc.matrix_error);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    cr_assert_eq(ff->cls->forcefield->potential_energy(ff, &ms->system->mp, ms->system->x), 0.0);
    st_scene_destroy(&s);
    test_rt_close(&t);

    /* d = 2 > L0: nothing, where SpringForceField pulls with 10 (2 - 1) */
    s = load(&t, "[0,0,0], [2,0,0]", "RepulsiveSpringForceField");
    force(s, f, 6);
    for (int i = 0; i < 6; i++)
        cr_assert(f[i] == 0, "f[%d] = %g", i, f[i]);
    st_scene_destroy(&s);
    test_rt_close(&t);
    s = load(&t, "[0,0,0], [2,0,0]", "SpringForceField");
    force(s, f, 6);
    cr_assert(f[0] == 10 && f[3] == -10, "SpringForceField pulls: %g %g", f[0], f[3]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Two unit masses 0.5 apart, rest length 1, explicit steps: they separate
 * until the spring reaches its rest length, then drift apart freely (no
 * pull back), so the gap keeps growing past 1. */
Test(repulsive_springs, bodies_separate_and_are_not_pulled_back)
{
    test_rt t;
    st_scene *s = load(&t, "[0,0,0], [0.5,0,0]", "RepulsiveSpringForceField");
    st_error err = {0};
    for (int k = 0; k < 400; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    double gap = ms->position.r[3] - ms->position.r[0];
    cr_assert(gap > 1.2, "gap %g", gap);
    cr_assert(ms->velocity.r[3] > 0 && ms->velocity.r[0] < 0, "moving apart");
    st_scene_destroy(&s);
    test_rt_close(&t);
}
