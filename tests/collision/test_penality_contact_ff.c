/* test_penality_contact_ff.c - PenalityContactForceField as a scene object
 * (SOFA's Sofa.Component.Collision.Response.Contact): the force of a
 * contact in penetration worked by hand, none out of it, the product
 * -ks n n^T on the relative displacement, the assembled matrix giving the
 * matrix-free solver's steps, pen written back, and bad contacts refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(penality_contact_ff, .init = setup, .fini = teardown);

/* A floor point (node Floor) and a ball point (node Ball), one contact with
 * normal +y from the floor point to the ball's, dist 1 and ks 100. */
static st_scene *scene(const char *ball_y, const char *solver, const char *contacts)
{
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, -10, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, "
             "LinearSolver.Direct, Mass, Collision, Constraint.Projective]}\n"
             "    - EulerImplicitSolver: {rayleighStiffness: 0, rayleighMass: 0}\n"
             "    - %s\n"
             "  children:\n"
             "    - name: Floor\n"
             "      objects:\n"
             "        - MechanicalObject: {name: floor, position: [[0, 0, 0]]}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - FixedProjectiveConstraint: {indices: [0]}\n"
             "    - name: Ball\n"
             "      objects:\n"
             "        - MechanicalObject: {name: ball, position: [[0.2, %s, 0]]}\n"
             "        - UniformMass: {totalMass: 0.5}\n"
             "        - PenalityContactForceField: {name: pc, object1: '@../Floor/floor', "
             "object2: '@ball', contacts: [%s]}\n",
             solver, ball_y, contacts);
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, yaml, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "%s\n%s", e.msg, T.log);
    return s;
}

#define CG "CGLinearSolver: {iterations: 200, tolerance: 1e-30, threshold: 1e-30}"
#define ONE "0, 0, 0, 0, 0, 1, 0, 1, 100, 0, 0"

Test(penality_contact_ff, force_product_and_pen)
{
    st_scene *s = scene("0.4", CG, ONE);
    st_system *sys = s->systems[0];
    double f[6] = {0};
    cr_assert_eq(sys->size_all, 6);
    memset(f, 0, sizeof f);
    st_system_compute_force(sys, f, sys->x, sys->v);
    /* gravity is in the force too: subtract it (m g) */
    const st_mstate *floor = (const st_mstate *)test_find_object(s, "floor");
    size_t fo = floor == sys->states[0] ? 0 : 3, bo = 3 - fo;
    /* pen = 1 - 0.4 = 0.6: the floor point gets -ks pen n, the ball +60 */
    cr_assert(fabs(f[fo + 1] - (-60.0 - 10.0)) < 1e-12, "floor fy %.17g", f[fo + 1]);
    cr_assert(fabs(f[bo + 1] - (60.0 - 5.0)) < 1e-12, "ball fy %.17g", f[bo + 1]);
    cr_assert(f[fo] == 0 && f[bo] == 0 && f[fo + 2] == 0 && f[bo + 2] == 0);
    st_component *pc = test_find_object(s, "pc");
    const st_array *c = st_component_field_ptr(pc, st_component_field(pc, "contacts"));
    cr_assert(fabs(c->r[9] - 0.6) < 1e-15, "pen written back: %g", c->r[9]);
    /* the product: dpen = -(dx2 - dx1).n; df1 = -n ks dpen kf, df2 = -df1 */
    double dx[6] = {0}, df[6] = {0};
    dx[fo + 1] = 0.1, dx[bo + 1] = 0.3, dx[bo] = 7; /* tangential motion does nothing */
    st_system_add_mbkdx(sys, df, dx, 0, 0, 2.0, false);
    const double dpen = -(0.3 - 0.1), want = -1 * 100 * dpen * 2.0;
    cr_assert(fabs(df[fo + 1] - want) < 1e-12 && fabs(df[bo + 1] + want) < 1e-12,
              "df %g %g want %g", df[fo + 1], df[bo + 1], want);
    cr_assert(df[fo] == 0 && df[bo] == 0);
    st_scene_destroy(&s);

    /* out of penetration (pen < 0): no force beyond gravity, no product */
    s = scene("1.5", CG, ONE);
    sys = s->systems[0];
    memset(f, 0, sizeof f);
    st_system_compute_force(sys, f, sys->x, sys->v);
    cr_assert(fabs(f[bo + 1] + 5.0) < 1e-12 && fabs(f[fo + 1] + 10.0) < 1e-12);
    memset(df, 0, sizeof df);
    st_system_add_mbkdx(sys, df, dx, 0, 0, 1.0, false);
    for (int k = 0; k < 6; k++)
        cr_assert_eq(df[k], 0.0);
    st_scene_destroy(&s);
}

/* The ball dropped from 1.2: it falls into the contact and is held up near
 * y = 1 - m g / ks = 0.95; the assembled matrix (SparseLDLSolver) gives
 * the matrix-free solver's steps. */
Test(penality_contact_ff, a_ball_held_by_the_contact_assembled_or_not)
{
    double y[2];
    const char *solvers[2] = {CG, "SparseLDLSolver: {}"};
    for (int k = 0; k < 2; k++) {
        st_scene *s = scene("1.2", solvers[k], ONE);
        st_error e = {0};
        for (int i = 0; i < 300; i++)
            cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "%s", e.msg);
        const st_mstate *b = (const st_mstate *)test_find_object(s, "ball");
        y[k] = b->position.r[1];
        st_scene_destroy(&s);
    }
    cr_assert(fabs(y[0] - 0.95) < 0.02, "rest height %g", y[0]);
    cr_assert(fabs(y[0] - y[1]) < 1e-9, "CG %.17g, LDL %.17g", y[0], y[1]);
}

Test(penality_contact_ff, bad_contacts_are_refused)
{
    const char *bad[2] = {"0, 3, 0, 0, 0, 1, 0, 1, 100, 0, 0", "0, 0, 0, 0, 0, 1, 0, 1, 100"};
    const char *why[2] = {"m2 = 3 is not a point", "a contact is 11"};
    for (int k = 0; k < 2; k++) {
        static char yaml[2048];
        snprintf(yaml, sizeof yaml,
                 "format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - RequiredPlugin: {pluginName: [Collision]}\n"
                 "    - MechanicalObject: {name: a, position: [[0, 0, 0]]}\n"
                 "    - PenalityContactForceField: {contacts: [%s]}\n",
                 bad[k]);
        st_scene *s = NULL;
        st_error e = {0};
        cr_assert_eq(test_load_string(&T, yaml, &s, &e), ST_OK, "%s", e.msg);
        cr_assert_neq(st_scene_init(s, &e), ST_OK);
        cr_assert(strstr(e.msg, why[k]), "%s", e.msg);
        st_scene_destroy(&s);
    }
}
