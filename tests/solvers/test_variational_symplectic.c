/* test_variational_symplectic.c - VariationalSymplecticSolver on one mass
 * m on a spring of stiffness k to its rest position (RestShapeSprings-
 * ForceField, f = -k q), against the recurrences of SOFA's scheme written
 * out by hand:
 *   implicit: r = (2 p / h - k q) / (4 m / h^2 + k) (Newton converges in one
 *     iteration on a linear force; the second finds the same r and stops),
 *     v' = 2 r / h, q' = q + h v', p' = m v' - h/2 k (q + r),
 *     Hamiltonian p'^2 / 2m + U, U' = U + 2 k (q + r) r;
 *   explicit: v' = (h f(q) + p) / m, q' = q + h v', p' = m v';
 * with Rayleigh mass damping the implicit matrix gains 4 rM m / h. The
 * midpoint rule keeps the energy of the linear spring: the Hamiltonian
 * stays at its initial value. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#define K 100.0
#define M 2.0
#define H 0.01

static st_scene *load(test_rt *t, const char *options)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: %g\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Mass,\n"
             "                      SolidMechanics.Spring]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - VariationalSymplecticSolver: {name: vs%s}\n"
             "        - SparseLDLSolver: {template: CompressedRowSparseMatrixd}\n"
             "        - MechanicalObject: {name: dofs, position: [1, 0, 0], velocity: [0.5, 0, 0],\n"
             "                             rest_position: [0, 0, 0]}\n"
             "        - UniformMass: {totalMass: %g}\n"
             "        - RestShapeSpringsForceField: {stiffness: %g}\n",
             H, options, M, K);
    test_rt_open(t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t->log);
    return s;
}

static double output(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f);
    return *(const double *)st_component_field_ptr(c, f);
}

static void implicit_run(double rm)
{
    test_rt t;
    char opt[128];
    snprintf(opt, sizeof opt, ", rayleighMass: %g, newtonError: 1e-10", rm);
    st_scene *s = load(&t, opt);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    st_component *vs = test_find_object(s, "vs");
    double q = 1.0, v = 0.5, p = M * v, u = 0.5 * K * q * q;
    const double h0 = 0.5 * M * v * v + u;
    st_error err = {0};
    for (int n = 1; n <= 100; n++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s", n, err.msg);
        const double r = (2 * p / H - K * q) / (4 * M / (H * H) + 4 * rm * M / H + K);
        v = 2 * r / H;
        u += 2 * K * (q + r) * r;
        p = M * v - H / 2 * K * (q + r);
        q += H * v;
        cr_assert_float_eq(ms->position.r[0], q, 1e-12, "q at step %d: %.17g vs %.17g", n,
                           ms->position.r[0], q);
        cr_assert_float_eq(ms->velocity.r[0], v, 1e-10, "v at step %d: %.17g vs %.17g", n,
                           ms->velocity.r[0], v);
        cr_assert_eq(ms->position.r[1], 0.0);
        const double ham = p * p / (2 * M) + u;
        cr_assert_float_eq(output(vs, "hamiltonianEnergy"), ham, 1e-9, "H at step %d: %.17g "
                           "vs %.17g", n, output(vs, "hamiltonianEnergy"), ham);
        if (rm == 0.0)
            cr_assert_float_eq(ham, h0, 1e-9 * h0, "energy drift at step %d: %.17g vs %.17g", n,
                               ham, h0);
    }
    /* It oscillated: about 1.6 periods of 2 pi sqrt(m / k) = 0.89 s. */
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(variational_symplectic, implicit_steps_follow_the_midpoint_recurrence)
{
    implicit_run(0.0);
}

Test(variational_symplectic, rayleigh_mass_enters_the_matrix)
{
    implicit_run(0.5);
}

Test(variational_symplectic, explicit_steps_follow_their_recurrence)
{
    test_rt t;
    st_scene *s = load(&t, ", explicitIntegration: true");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    double q = 1.0, v = 0.5, p = M * v;
    st_error err = {0};
    for (int n = 1; n <= 50; n++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s", n, err.msg);
        v = (H * -K * q + p) / M;
        q += H * v;
        p = M * v;
        cr_assert_float_eq(ms->position.r[0], q, 1e-13, "q at step %d: %.17g vs %.17g", n,
                           ms->position.r[0], q);
        cr_assert_float_eq(ms->velocity.r[0], v, 1e-12, "v at step %d", n);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(variational_symplectic, energy_file_and_missing_name)
{
    test_rt t;
    char path[512], opt[700];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/vs_energy.csv", dir ? dir : ".");
    snprintf(opt, sizeof opt, ", saveEnergyInFile: true, file: '%s'", path);
    st_scene *s = load(&t, opt);
    st_error err = {0};
    for (int n = 0; n < 3; n++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
    char *text = test_read_file(path);
    cr_assert_not_null(text);
    cr_assert(strncmp(text, "time,kinetic energy,potential energy, hamiltonian energy\n0,", 59) ==
                  0,
              "%s", text);
    int lines = 0;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    cr_assert_eq(lines, 4, "%s", text);
    free(text);

    /* saveEnergyInFile without a file name. */
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct]}\n"
             "    - VariationalSymplecticSolver: {saveEnergyInFile: true}\n"
             "    - SparseLDLSolver: {}\n"
             "    - MechanicalObject: {position: [0, 0, 0]}\n");
    test_rt_open(&t);
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "no file"), "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
