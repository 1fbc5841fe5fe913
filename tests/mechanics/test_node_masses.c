/* test_node_masses.c - several masses in one node, as SOFA runs them.
 *
 * SOFA's node keeps its last mass as "the" mass (node->mass) and lists
 * every mass among its force fields. So with masses m1 then m2 on one
 * particle under gravity g:
 *   - the force is (m1 + m2) g (each mass adds its gravity, as a force field);
 *   - M dx + B dx + K dx and the assembled matrix hold m1 + m2;
 *   - a = M^-1 f, M dx (addMdx) and the kinetic energy use m2 alone;
 *   - the potential energy is every mass's: -(m1 + m2) g.x.
 * Every expectation below is worked out by hand from those rules. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static test_rt T;
static st_error E;

static void open_rt(void)
{
    test_rt_open(&T);
    st_error_clear(&E);
}

static void close_rt(void) { test_rt_close(&T); }

TestSuite(node_masses, .init = open_rt, .fini = close_rt, .timeout = 60);

static const double h = 0.01, g = -10.0;

/* A particle at the origin under g (y), with the solver lines and two
 * UniformMass (vertexMass m1 then m2). */
static st_scene *particle(const char *solvers, const char *m1, const char *m2)
{
    char y[2048];
    snprintf(y, sizeof y,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, %g, 0]\n"
             "  dt: %g\n"
             "  objects:\n"
             "    - RequiredPlugin: {name: Sofa.Component.ODESolver.Forward}\n"
             "    - RequiredPlugin: {name: Sofa.Component.ODESolver.Backward}\n"
             "    - RequiredPlugin: {name: Sofa.Component.LinearSolver.Iterative}\n"
             "    - RequiredPlugin: {name: Sofa.Component.LinearSolver.Direct}\n"
             "    - RequiredPlugin: {name: Sofa.Component.Mass}\n"
             "  children:\n"
             "    - name: p\n"
             "      objects:\n"
             "%s"
             "        - MechanicalObject: {name: dofs, position: [0, 0, 0]}\n"
             "        - UniformMass: {name: first, vertexMass: %s}\n"
             "        - UniformMass: {name: second, vertexMass: %s}\n",
             g, h, solvers, m1, m2);
    st_scene *s = NULL;
    cr_assert_eq(test_load_string(&T, y, &s, &E), ST_OK, "%s", E.msg);
    cr_assert_eq(st_scene_init(s, &E), ST_OK, "%s", E.msg);
    return s;
}

static const st_mstate *dofs(st_scene *s)
{
    return (const st_mstate *)test_find_object(s, "dofs");
}

static void step(st_scene *s)
{
    cr_assert_eq(st_scene_step(s, h, &E), ST_OK, "%s", E.msg);
}

#define NEAR(a, b) cr_assert(fabs((a) - (b)) <= 1e-12 * (1 + fabs(b)), "%.17g, expected %.17g", (a), (b))

/* Symplectic explicit Euler: a = (m1 + m2) g / m2 (the node's mass is the
 * last); v = h a, x = h v. Swapping the masses swaps the divisor. */
Test(node_masses, explicit_euler_divides_by_the_last_mass)
{
    st_scene *s = particle("        - EulerExplicitSolver: {}\n", "1", "3");
    step(s);
    const double a = (1 + 3) * g / 3;
    NEAR(dofs(s)->velocity.r[1], h * a);
    NEAR(dofs(s)->position.r[1], h * h * a);
    cr_assert_eq(dofs(s)->position.r[0], 0.0);
    st_scene_destroy(&s);

    s = particle("        - EulerExplicitSolver: {}\n", "3", "1");
    step(s);
    NEAR(dofs(s)->velocity.r[1], h * (3 + 1) * g / 1);
    NEAR(dofs(s)->position.r[1], h * h * (3 + 1) * g / 1);
    st_scene_destroy(&s);
}

/* Implicit Euler: (m1 + m2) dv = h (m1 + m2) g, so v = h g and x = h v,
 * with the matrix-free CG and with the assembled matrix of a direct
 * solver. Then the kinetic energy is m2 |v|^2 / 2 and the potential
 * energy -(m1 + m2) g.x. */
Test(node_masses, implicit_euler_sums_the_masses_and_kinetic_energy_is_the_last)
{
    const char *solvers[] = {
        "        - EulerImplicitSolver: {}\n"
        "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n",
        "        - EulerImplicitSolver: {}\n"
        "        - SparseLDLSolver: {template: CompressedRowSparseMatrixd}\n",
    };
    for (int k = 0; k < 2; k++) {
        st_scene *s = particle(solvers[k], "1", "3");
        step(s);
        NEAR(dofs(s)->velocity.r[1], h * g);
        NEAR(dofs(s)->position.r[1], h * h * g);
        cr_assert_eq(s->nsystems, 1);
        st_system *sys = s->systems[0];
        const double v = h * g, x = h * h * g;
        NEAR(st_system_kinetic_energy(sys), 0.5 * 3 * v * v);
        NEAR(st_system_potential_energy(sys), -(1 + 3) * g * x);
        /* a = M^-1 f with the node's mass: f = 4 g gives 4 g / 3. */
        st_system_compute_force(sys, sys->f, sys->x, sys->v);
        NEAR(sys->f[1], 4 * g);
        cr_assert(st_system_mass_is_diagonal(sys));
        cr_assert_eq(st_system_acc_from_f(sys, sys->dx, sys->f, &E), ST_OK, "%s", E.msg);
        NEAR(sys->dx[1], 4 * g / 3);
        /* M dx + ... sums both; addMdx takes the node's mass alone. */
        double dx[3] = {1, 2, 3}, r[3] = {0, 0, 0};
        st_system_add_mbkdx(sys, r, dx, 1.0, 0.0, 0.0, true);
        NEAR(r[2], 4 * 3.0);
        r[0] = r[1] = r[2] = 0;
        st_system_add_mdx(sys, r, dx, 2.0);
        NEAR(r[2], 2 * 3 * 3.0);
        st_scene_destroy(&s);
    }
}

/* The explicit variational scheme keeps the momentum p = M v with SOFA's
 * addMdx (the node's mass, m2). From rest: step 1, a = (m1 + m2) g / m2,
 * v1 = h a, p1 = m2 v1; step 2, a = ((m1 + m2) g + p1 / h) / m2,
 * v2 = h a, x2 = h v1 + h v2. */
Test(node_masses, variational_momentum_uses_the_node_mass)
{
    st_scene *s = particle("        - VariationalSymplecticSolver: {explicitIntegration: true}\n",
                           "1", "3");
    step(s);
    const double a1 = 4 * g / 3, v1 = h * a1, p1 = 3 * v1;
    NEAR(dofs(s)->velocity.r[1], v1);
    step(s);
    const double v2 = h * (4 * g + p1 / h) / 3;
    NEAR(dofs(s)->velocity.r[1], v2);
    NEAR(dofs(s)->position.r[1], h * v1 + h * v2);
    st_scene_destroy(&s);
}

/* Nothing about two masses is reported as a problem. */
Test(node_masses, two_masses_load_quietly)
{
    st_scene *s = particle("        - EulerExplicitSolver: {}\n", "1", "3");
    cr_assert_null(strstr(T.log, "mass"), "%s", T.log);
    st_scene_destroy(&s);
}
