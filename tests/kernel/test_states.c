/* test_states.c - state types (Vec1d, Vec2d, Vec3d, Rigid3d): their algebra,
 * typed MechanicalObjects, x (+) f v in the solvers (a Rigid3d body spinning
 * freely, a rigid torsion pendulum converging at its integrator's order),
 * Vec1d/Vec2d spring chains against the Vec3d chain, Rigid3d masses and
 * angular springs against hand computations, projective constraints on
 * every type, 6x6 matrix blocks, and unsupported combinations. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#define PLUGINS                                                                                    \
    "    - RequiredPlugin: {pluginName: [ODESolver.Forward, ODESolver.Backward, Mass,\n"          \
    "                                    SolidMechanics.Spring, Constraint.Projective,\n"         \
    "                                    LinearSolver.Iterative, LinearSolver.Direct, Topology,\n" \
    "                                    Engine.Select]}\n"

static st_scene *load(test_rt *t, const char *yaml)
{
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    return s;
}

static void step(st_scene *s, int n)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
}

static st_mstate *state(st_scene *s, const char *name)
{
    st_component *c = test_find_object(s, name);
    cr_assert(c && st_component_has_role(c, ST_ROLE_STATE), "no state %s", name);
    return (st_mstate *)c;
}

/* ---- the types' algebra ---- */

Test(states, names_sizes_and_spellings)
{
    const struct {
        const char *name;
        const st_state_type *t;
        unsigned c, d;
    } k[] = {{"Vec1d", &st_vec1d_type, 1, 1}, {"Vec1", &st_vec1d_type, 1, 1},
             {"Vec2", &st_vec2d_type, 2, 2},  {"Vec3Types", &st_vec3d_type, 3, 3},
             {"Vec3", &st_vec3d_type, 3, 3},  {"Rigid3d", &st_rigid3d_type, 7, 6},
             {"Rigid", &st_rigid3d_type, 7, 6}, {"Rigid3", &st_rigid3d_type, 7, 6},
             {"Rigid2d", &st_rigid2d_type, 3, 3}, {"Rigid2", &st_rigid2d_type, 3, 3}};
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        cr_assert_eq(st_state_type_find(k[i].name), k[i].t, "%s", k[i].name);
        cr_assert_eq(k[i].t->coord_size, k[i].c);
        cr_assert_eq(k[i].t->deriv_size, k[i].d);
    }
    cr_assert_null(st_state_type_find("Rigid2f3"));
    cr_assert_eq(st_rigid2d_type.spatial_size, 2);
    cr_assert(st_rigid2d_type.rigid);
}

/* SOFA's RigidCoord<2> += RigidDeriv<2> adds the angle; the difference
 * brings it to [-pi, pi) (coordDifference). */
Test(states, rigid2d_add_and_diff)
{
    const st_state_type *t = &st_rigid2d_type;
    double x[3] = {1, 2, 3.0}, v[3] = {0.5, -1, 4}, o[3], d[3];
    t->add_deriv(o, x, v, 0.5, 1);
    cr_assert_eq(o[0], 1.25);
    cr_assert_eq(o[1], 1.5);
    cr_assert_eq(o[2], 5.0); /* not wrapped: the angle accumulates */
    t->diff(d, o, x, 1);
    cr_assert_eq(d[0], 0.25);
    cr_assert_eq(d[1], -0.5);
    cr_assert_float_eq(d[2], 2.0, 1e-15);
    double a[3] = {0, 0, 3.0}, b[3] = {0, 0, -3.0};
    t->diff(d, a, b, 1); /* 6 rad is -0.283 rad the short way */
    cr_assert_float_eq(d[2], 6.0 - 2.0 * M_PI, 1e-14);
}

Test(states, vec_add_and_diff)
{
    const st_state_type *ts[] = {&st_vec1d_type, &st_vec2d_type, &st_vec3d_type};
    for (int k = 0; k < 3; k++) {
        double x[6] = {1, 2, 3, 4, 5, 6}, v[6] = {0.5, -1, 2, 0.25, 3, -2}, o[6], d[6];
        ts[k]->add_deriv(o, x, v, 0.1, 2);
        for (unsigned i = 0; i < 2 * ts[k]->coord_size; i++)
            cr_assert_eq(o[i], x[i] + v[i] * 0.1);
        ts[k]->diff(d, o, x, 2);
        for (unsigned i = 0; i < 2 * ts[k]->coord_size; i++)
            cr_assert_eq(d[i], o[i] - x[i]);
    }
}

/* Rigid3d: x (+) f v rotates by |w| f about w (world frame, left product),
 * keeps |q| = 1, and diff is its inverse. */
Test(states, rigid_add_is_the_exponential)
{
    const double w[3] = {0.3, -0.4, 1.2}, f = 0.7;
    double x[7] = {1, 2, 3, 0, 0, 0, 1}, v[6] = {1, 0, -1, w[0], w[1], w[2]}, o[7];
    /* start from a rotated orientation */
    double q0[4] = {sin(0.2), 0, 0, cos(0.2)};
    memcpy(x + 3, q0, sizeof q0);
    st_rigid3d_type.add_deriv(o, x, v, f, 1);
    cr_assert_eq(o[0], 1 + 1 * f);
    cr_assert_eq(o[2], 3 - 1 * f);
    double nw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), th = nw * f;
    double e[4] = {sin(th / 2) * w[0] / nw, sin(th / 2) * w[1] / nw, sin(th / 2) * w[2] / nw,
                   cos(th / 2)};
    double want[4];
    st_quat_mul(want, e, q0);
    for (int i = 0; i < 4; i++)
        cr_assert(fabs(o[3 + i] - want[i]) < 1e-15, "q[%d] %.17g vs %.17g", i, o[3 + i], want[i]);
    double n2 = o[3] * o[3] + o[4] * o[4] + o[5] * o[5] + o[6] * o[6];
    cr_assert(fabs(n2 - 1) < 1e-15);
    double d[6];
    st_rigid3d_type.diff(d, o, x, 1);
    for (int i = 0; i < 6; i++)
        cr_assert(fabs(d[i] - v[i] * f) < 1e-14, "d[%d] = %.17g, want %.17g", i, d[i], v[i] * f);
}

/* ---- MechanicalObject per type ---- */

Test(states, mechanical_object_parses_each_type)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = load(&t, "format: settee/1\n"
                           "root:\n"
                           "  objects:\n"
                           "    - MechanicalObject: {name: a, template: Vec1, position: [1, 2, 3]}\n"
                           "    - MechanicalObject: {name: b, template: Vec2d, position: \"1 2 3 4\",\n"
                           "                         translation: [10, 20, 30]}\n"
                           "    - MechanicalObject: {name: r, position: \"1 2 3 0 0 0 1\",\n"
                           "                         template: Rigid3d, rotation: [0, 0, 90]}\n"
                           "    - MechanicalObject: {name: d, template: Rigid}\n");
    st_mstate *a = state(s, "a"), *b = state(s, "b"), *r = state(s, "r"), *d = state(s, "d");
    cr_assert_eq(a->type, &st_vec1d_type);
    cr_assert_eq(a->n, 3);
    cr_assert_eq(a->velocity.n, 3);
    cr_assert_eq(b->n, 2);
    cr_assert_eq(b->position.r[2], 13);
    cr_assert_eq(b->position.r[3], 24);
    cr_assert_eq(r->type, &st_rigid3d_type);
    cr_assert_eq(r->n, 1);
    /* rotation about z by 90 degrees: centre (1 2 3) -> (-2 1 3), q = (0 0 s s) */
    cr_assert(fabs(r->position.r[0] + 2) < 1e-12 && fabs(r->position.r[1] - 1) < 1e-12);
    cr_assert(fabs(r->position.r[5] - sqrt(0.5)) < 1e-12 && fabs(r->position.r[6] - sqrt(0.5)) < 1e-12);
    cr_assert_eq(r->velocity.n, 1);
    /* default: one point at the identity */
    cr_assert_eq(d->n, 1);
    cr_assert_eq(d->position.r[6], 1.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(states, bad_template_and_arity_are_errors)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(test_load_string(&t,
                                  "format: settee/1\nroot:\n  objects:\n"
                                  "    - MechanicalObject: {template: Rigid3x, position: [0, 0, 0]}\n",
                                  &s, &err),
                 ST_OK, "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "Rigid3x") && strstr(err.msg, "did you mean") &&
                  strstr(err.msg, "Vec1d") && strstr(err.msg, "Rigid3d"),
              "%s", err.msg);
    st_scene_destroy(&s);
    st_error_clear(&err);
    cr_assert_eq(test_load_string(&t,
                                  "format: settee/1\nroot:\n  objects:\n"
                                  "    - MechanicalObject: {template: Rigid3d,\n"
                                  "                         position: [0, 0, 0, 0, 0, 1]}\n",
                                  &s, &err),
                 ST_EPARSE, "%s", err.msg);
    cr_assert(strstr(err.where, "test.yaml:5:") && strstr(err.msg, "position") &&
                  strstr(err.msg, "Rigid3d coordinates") && strstr(err.msg, "multiple of 7"),
              "%s: %s", err.where, err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- a freely spinning rigid body ---- */

/* A node "Body" without gravity: the solver lines, then the objects. */
static st_scene *rigid_scene(test_rt *t, double dt, const char *solver, const char *objects)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: %.17g\n"
             "  objects:\n" PLUGINS "  children:\n"
             "    - name: Body\n"
             "      objects:\n"
             "%s%s",
             dt, solver, objects);
    return load(t, yaml);
}

static st_scene *spinning(test_rt *t, const char *solver, double dt)
{
    return rigid_scene(t, dt, solver,
                       "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"
                       "                             position: [1, 0, 0, 0, 0, 0, 1],\n"
                       "                             velocity: [0.5, 0, 0, 0.3, -0.2, 1.5]}\n"
                       "        - UniformMass: {vertexMass: \"2 1  3 0.5 0  0.5 2 0  0 0 1\"}\n");
}

static const char *const EXPLICIT = "        - EulerExplicitSolver: {}\n";
static const char *const IMPLICIT_LDL = "        - EulerImplicitSolver: {}\n"
                                        "        - SparseLDLSolver: {}\n";
static const char *const IMPLICIT_CG = "        - EulerImplicitSolver: {}\n"
                                       "        - CGLinearSolver: {iterations: 100, "
                                       "tolerance: 1e-20, threshold: 1e-30}\n";

/* The orientation after t seconds of constant world angular velocity w. */
static void closed_form(const double w[3], double t, double q[4])
{
    double nw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), th = nw * t;
    for (int i = 0; i < 3; i++)
        q[i] = sin(th / 2) * w[i] / nw;
    q[3] = cos(th / 2);
}

Test(states, rigid_spins_freely_with_unit_quaternion)
{
    const char *solvers[] = {EXPLICIT, IMPLICIT_LDL, IMPLICIT_CG};
    const double w[3] = {0.3, -0.2, 1.5};
    for (int k = 0; k < 3; k++) {
        test_rt t;
        test_rt_open(&t);
        const double dt = 0.01;
        st_scene *s = spinning(&t, solvers[k], dt);
        st_mstate *ms = state(s, "dofs");
        const int n = 2000;
        step(s, 1);
        /* Typed states keep the rule: no allocation during a step. */
        unsigned long before = st_alloc_count();
        step(s, n - 1);
        cr_assert_eq(st_alloc_count(), before, "solver %d allocated during steps", k);
        const double *x = ms->position.r, *v = ms->velocity.r;
        double n2 = x[3] * x[3] + x[4] * x[4] + x[5] * x[5] + x[6] * x[6];
        cr_assert(fabs(n2 - 1) < 1e-12, "solver %d: |q|^2 - 1 = %g", k, n2 - 1);
        /* No torque: the angular momentum (mass * inertia) w keeps its value
         * (SOFA's world-frame inertia: w itself is constant), to round-off
         * whatever dt, since the integrators are exact for it. */
        for (int i = 0; i < 3; i++)
            cr_assert(fabs(v[3 + i] - w[i]) < 1e-12 * (1 + fabs(w[i])), "solver %d: w drifted", k);
        /* The exponential integration is exact for constant w: the
         * orientation follows the closed form to round-off. */
        double q[4];
        closed_form(w, n * dt, q);
        double dot = fabs(q[0] * x[3] + q[1] * x[4] + q[2] * x[5] + q[3] * x[6]);
        cr_assert(fabs(dot - 1) < 1e-10, "solver %d: orientation error %g", k, 1 - dot);
        /* The centre moves at constant velocity. */
        cr_assert(fabs(x[0] - (1 + 0.5 * n * dt)) < 1e-9, "solver %d: centre %.17g", k, x[0]);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* ---- a rigid torsion pendulum (angular RestShapeSprings) ---- */

/* Inertia I = m * 2 about z, angular stiffness ka: omega0 = sqrt(ka / (2 m)).
 * Started at rest rotated by a0 about z: angle(t) = a0 cos(omega0 t). */
static double torsion_error(const char *solver, double dt)
{
    test_rt t;
    test_rt_open(&t);
    const double a0 = 0.1, T = 1.0;
    char objects[1024];
    snprintf(objects, sizeof objects,
             "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"
             "                             rest_position: [0, 0, 0, 0, 0, 0, 1],\n"
             "                             position: [0, 0, 0, 0, 0, %.17g, %.17g]}\n"
             "        - UniformMass: {vertexMass: \"1 1  2 0 0  0 2 0  0 0 2\"}\n"
             "        - RestShapeSpringsForceField: {stiffness: [5], angularStiffness: [8]}\n",
             sin(a0 / 2), cos(a0 / 2));
    st_scene *s = rigid_scene(&t, dt, solver, objects);
    st_mstate *ms = state(s, "dofs");
    int n = (int)lround(T / dt);
    step(s, n);
    const double *q = ms->position.r + 3;
    double angle = 2 * atan2(q[2], q[3]);
    double want = a0 * cos(2.0 * T); /* omega0 = sqrt(8 / 2) = 2 */
    st_scene_destroy(&s);
    test_rt_close(&t);
    return fabs(angle - want);
}

Test(states, rigid_torsion_converges_at_first_order)
{
    const char *solvers[] = {EXPLICIT, IMPLICIT_LDL};
    for (int k = 0; k < 2; k++) {
        double e1 = torsion_error(solvers[k], 1e-3), e2 = torsion_error(solvers[k], 5e-4);
        cr_assert(e1 < 5e-3, "solver %d: error %g at dt = 1e-3", k, e1);
        /* First order: halving dt halves the error (ratio 2, +-25%). */
        double ratio = e1 / e2;
        cr_assert(ratio > 1.5 && ratio < 2.5, "solver %d: error ratio %g (%g, %g)", k, ratio, e1, e2);
    }
}

/* ---- Vec1d and Vec2d spring chains against the Vec3d chain ---- */

/* A chain of 6 points, 1 apart along x (Vec1d: x; Vec2d: x y with y = 0.3 i),
 * point 0 fixed, springs between neighbours, gravity in the chain's axes. */
static st_scene *chain(test_rt *t, const char *tpl, int dim, int gdim, const char *solver)
{
    char pos[512] = "", springs[512] = "";
    size_t lp = 0, ls = 0;
    for (int i = 0; i < 6; i++) {
        double c[3] = {1.0 * i, 0.3 * i, 0};
        for (int a = 0; a < dim; a++)
            lp += (size_t)snprintf(pos + lp, sizeof pos - lp, "%.17g ", c[a]);
        if (i)
            ls += (size_t)snprintf(springs + ls, sizeof springs - ls, "%d %d 200 0.5 0.9  ", i - 1,
                                   i);
    }
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [-3, %s, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n" PLUGINS "  children:\n"
             "    - name: Chain\n"
             "      objects:\n"
             "%s"
             "        - MechanicalObject: {name: dofs, template: %s, position: \"%s\"}\n"
             "        - UniformMass: {totalMass: 3}\n"
             "        - FixedProjectiveConstraint: {indices: [0]}\n"
             "        - SpringForceField: {spring: \"%s\"}\n",
             gdim >= 2 ? "-9.81" : "0", solver, tpl, pos, springs);
    return load(t, yaml);
}

static void compare_chains(const char *solver)
{
    test_rt t3, tl;
    test_rt_open(&t3);
    test_rt_open(&tl);
    for (int dim = 1; dim <= 2; dim++) {
        st_scene *s3 = chain(&t3, "Vec3d", 3, dim, solver);
        st_scene *sl = chain(&tl, dim == 1 ? "Vec1d" : "Vec2d", dim, dim, solver);
        /* The Vec3d chain with zero y (dim 1) and z: the 1-D chain has no y. */
        st_mstate *m3 = state(s3, "dofs"), *ml = state(sl, "dofs");
        if (dim == 1)
            for (int i = 0; i < 6; i++)
                m3->position.r[3 * i + 1] = m3->rest_position.r[3 * i + 1] = 0;
        for (int k = 0; k < 50; k++) {
            step(s3, 1);
            step(sl, 1);
            for (int i = 0; i < 6; i++)
                for (int a = 0; a < dim; a++) {
                    cr_assert_eq(ml->position.r[dim * i + a], m3->position.r[3 * i + a],
                                 "dim %d step %d point %d axis %d: %.17g vs %.17g", dim, k, i, a,
                                 ml->position.r[dim * i + a], m3->position.r[3 * i + a]);
                    cr_assert_eq(ml->velocity.r[dim * i + a], m3->velocity.r[3 * i + a]);
                }
        }
        cr_assert(ml->position.r[dim * 5] != 5.0, "the chain moved");
        st_scene_destroy(&s3);
        st_scene_destroy(&sl);
    }
    test_rt_close(&t3);
    test_rt_close(&tl);
}

Test(states, vec1_vec2_chains_match_vec3_explicit) { compare_chains(EXPLICIT); }
Test(states, vec1_vec2_chains_match_vec3_implicit_cg) { compare_chains(IMPLICIT_CG); }

/* ---- Rigid3d masses and springs ---- */

/* M dx and the assembled 6x6 block of a Rigid3d UniformMass: mass on the
 * linear diagonal, mass * inertia in the angular block. */
Test(states, rigid_uniform_mass_inertia)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = spinning(&t, IMPLICIT_LDL, 0.01);
    st_mstate *ms = state(s, "dofs");
    st_system *sys = ms->system;
    cr_assert_eq(sys->size, 6);
    cr_assert_eq(sys->xsize, 7);
    const double I[9] = {3, 0.5, 0, 0.5, 2, 0, 0, 0, 1}, m = 2;
    double dx[6] = {1, 2, 3, 0.5, -1, 2}, df[6];
    st_system_add_mbkdx(sys, df, dx, 1.0, 0.0, 0.0, true);
    for (int a = 0; a < 3; a++) {
        cr_assert_eq(df[a], dx[a] * m);
        double want = m * (I[3 * a] * dx[3] + I[3 * a + 1] * dx[4] + I[3 * a + 2] * dx[5]);
        cr_assert(fabs(df[3 + a] - want) < 1e-14, "angular %d: %g vs %g", a, df[3 + a], want);
    }
    /* kinetic energy: (m |v|^2 + w.(m I w)) / 2 */
    const double *v = ms->velocity.r;
    double e = m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int a = 0; a < 3; a++)
        e += v[3 + a] * m * (I[3 * a] * v[3] + I[3 * a + 1] * v[4] + I[3 * a + 2] * v[5]);
    cr_assert(fabs(st_system_kinetic_energy(sys) - e / 2) < 1e-13);
    st_error err = {0};
    st_matrix *mat = NULL;
    cr_assert_eq(st_matrix_create(sys, &mat, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(mat, sys, 1.0, 0.0, 0.0, &err), ST_OK, "%s", err.msg);
    st_csr a;
    st_matrix_csr(mat, &a);
    cr_assert_eq(a.n, 6);
    cr_assert_eq(a.nnz, 36);
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) {
            double want = r < 3 ? (r == c ? m : 0) : c < 3 ? 0 : m * I[3 * (r - 3) + (c - 3)];
            cr_assert_eq(a.colind[6 * r + c], c);
            cr_assert(fabs(a.values[6 * r + c] - want) < 1e-15, "M(%d,%d) = %g", r, c,
                      a.values[6 * r + c]);
        }
    st_matrix_destroy(&mat);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The angular spring's torque for a rotation by alpha about n is
 * -ka alpha n; the linear part -k (c - c0). */
Test(states, rigid_rest_shape_spring_torque)
{
    test_rt t;
    test_rt_open(&t);
    const double alpha = 0.4, n[3] = {2 / 3.0, -1 / 3.0, 2 / 3.0}, k = 5, ka = 8;
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, 0, 0]\n"
             "  objects:\n" PLUGINS "  children:\n"
             "    - name: Body\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - SparseLDLSolver: {}\n"
             "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"
             "                             rest_position: [0, 0, 0, 0, 0, 0, 1],\n"
             "                             position: [0.1, 0.2, -0.3, %.17g, %.17g, %.17g, %.17g]}\n"
             "        - UniformMass: {vertexMass: 1}\n"
             "        - RestShapeSpringsForceField: {stiffness: [%g], angularStiffness: [%g]}\n",
             sin(alpha / 2) * n[0], sin(alpha / 2) * n[1], sin(alpha / 2) * n[2], cos(alpha / 2),
             k, ka);
    st_scene *s = load(&t, yaml);
    st_system *sys = state(s, "dofs")->system;
    st_system_compute_force(sys, sys->f, sys->x, sys->v);
    const double c[3] = {0.1, 0.2, -0.3};
    for (int a = 0; a < 3; a++) {
        cr_assert(fabs(sys->f[a] + k * c[a]) < 1e-14, "force %d: %g", a, sys->f[a]);
        cr_assert(fabs(sys->f[3 + a] + ka * alpha * n[a]) < 1e-12, "torque %d: %.17g vs %.17g", a,
                  sys->f[3 + a], -ka * alpha * n[a]);
    }
    /* Its stiffness: -k on the linear, -ka on the angular diagonal. */
    double dx[6] = {1, 1, 1, 1, 1, 1}, df[6];
    st_system_add_mbkdx(sys, df, dx, 0.0, 0.0, 1.0, true);
    for (int a = 0; a < 6; a++)
        cr_assert_eq(df[a], a < 3 ? -k : -ka);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- projective constraints on every type ---- */

Test(states, fixed_constraints_on_every_type)
{
    const struct {
        const char *tpl, *pos, *extra;
        unsigned d;
    } k[] = {{"Vec1d", "0 1 2", "", 1},
             {"Vec2d", "0 0  1 0  2 0", "", 2},
             {"Vec3d", "0 0 0  1 0 0  2 0 0", "", 3},
             {"Rigid3d", "0 0 0 0 0 0 1  1 0 0 0 0 0 1  2 0 0 0 0 0 1",
              "        - PartialFixedProjectiveConstraint: {indices: [2], "
              "fixedDirections: [0, 1, 1, 1, 1, 0]}\n",
              6}};
    const char *solvers[] = {EXPLICIT, IMPLICIT_LDL};
    for (size_t i = 0; i < sizeof k / sizeof *k; i++)
        for (int sv = 0; sv < 2; sv++) {
            test_rt t;
            test_rt_open(&t);
            char yaml[4096];
            snprintf(yaml, sizeof yaml,
                     "format: settee/1\n"
                     "root:\n"
                     "  gravity: [-1, -2, -3]\n"
                     "  dt: 0.01\n"
                     "  objects:\n" PLUGINS "  children:\n"
                     "    - name: N\n"
                     "      objects:\n"
                     "%s"
                     "        - MechanicalObject: {name: dofs, template: %s, position: \"%s\",\n"
                     "                             velocity: \"%s\"}\n"
                     "        - UniformMass: {vertexMass: 1}\n"
                     "        - FixedProjectiveConstraint: {indices: [1]}\n"
                     "%s",
                     solvers[sv], k[i].tpl, k[i].pos,
                     k[i].d == 6 ? "0 0 0 0 0 0  0 0 0 0 0 0  1 1 1 1 1 1" : "", k[i].extra);
            st_scene *s = load(&t, yaml);
            st_mstate *ms = state(s, "dofs");
            unsigned w = ms->type->coord_size;
            double before[21];
            memcpy(before, ms->position.r, 3 * w * sizeof(double));
            step(s, 10);
            for (unsigned a = 0; a < w; a++)
                cr_assert_eq(ms->position.r[w + a], before[w + a], "%s: fixed point moved",
                             k[i].tpl);
            cr_assert_neq(ms->position.r[0], before[0], "%s: free point did not fall", k[i].tpl);
            if (k[i].d == 6) {
                /* Partial: x and wz free, the rest fixed (velocity 1 kept on free axes). */
                const double *v = ms->velocity.r + 12;
                cr_assert_neq(v[0], 0.0);
                cr_assert_eq(v[1], 1.0);
                cr_assert_eq(v[2], 1.0);
                cr_assert_eq(v[3], 1.0);
                cr_assert_eq(v[4], 1.0);
                cr_assert_eq(v[5], 1.0);
            }
            st_scene_destroy(&s);
            test_rt_close(&t);
        }
}

/* ---- unsupported combinations ---- */

static void expect_refusal(const char *objects, const char *c1, const char *c2)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\nroot:\n  objects:\n" PLUGINS "  children:\n"
             "    - name: N\n"
             "      objects:\n%s",
             objects);
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK, "accepted: %s", objects);
    cr_assert(strstr(err.msg, c1) && strstr(err.msg, c2), "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(states, unsupported_types_are_errors_naming_both)
{
    expect_refusal("        - MechanicalObject: {template: Rigid3d}\n"
                   "        - MeshSpringForceField: {stiffness: 1}\n",
                   "MeshSpringForceField", "Rigid3d");
    /* MeshMatrixMass has SOFA's Vec1d, Vec2d and Vec3d instances: not Rigid3d */
    expect_refusal("        - MechanicalObject: {template: Rigid3d}\n"
                   "        - MeshMatrixMass: {massDensity: 1}\n",
                   "MeshMatrixMass", "Rigid3d");
    expect_refusal("        - MechanicalObject: {template: Vec1d}\n"
                   "        - FixedPlaneProjectiveConstraint: {direction: [1, 0, 0]}\n",
                   "FixedPlaneProjectiveConstraint", "Vec1d");
    /* A template that contradicts the state it acts on. */
    expect_refusal("        - MechanicalObject: {template: Vec3d}\n"
                   "        - UniformMass: {template: Rigid3d, vertexMass: 1}\n",
                   "UniformMass", "Rigid3d");
    /* Rigid mass data on a Vec3d state. */
    expect_refusal("        - MechanicalObject: {}\n"
                   "        - UniformMass: {vertexMass: \"1 1 2 0 0 0 2 0 0 0 2\"}\n",
                   "vertexMass", "Vec3d");
}

/* Points of different sizes copy point by point, as SOFA's
 * genericCopyValueFrom: a Vec3d reader linked to Rigid3d coordinates reads
 * the frames' centres (never 7 values read as vec3s), and a Rigid3d state
 * given Vec3d points gets frames there with the identity rotation. */
Test(states, links_between_point_sizes_copy_each_point)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = load(&t, "format: settee/1\nroot:\n  objects:\n" PLUGINS "  children:\n"
                           "    - name: N\n"
                           "      objects:\n"
                           "        - MechanicalObject: {name: r, template: Rigid3d,\n"
                           "            position: \"0 0 0 0 0 0 1 1 0 0 0 0 0 1 2 0 0 0.6 0 0.8 0\"}\n"
                           "        - SphereROI: {name: roi, centers: [0, 0, 0], radii: [1.5]}\n"
                           "    - name: M\n"
                           "      objects:\n"
                           "        - MechanicalObject: {name: p, position: [[1, 2, 3], [4, 5, 6]]}\n"
                           "        - MechanicalObject: {name: f, template: Rigid3d,"
                           " position: \"@p.position\"}\n");
    st_component *roi = test_find_object(s, "roi");
    const st_array *x = st_component_field_ptr(roi, st_component_field(roi, "position"));
    const double want[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
    cr_assert_eq(x->n, 3);
    for (int i = 0; i < 9; i++)
        cr_assert_eq(x->r[i], want[i], "value %d: %g", i, x->r[i]);
    const st_array *idx = st_component_field_ptr(roi, st_component_field(roi, "indices"));
    cr_assert_eq(idx->n, 2, "%zu points in the sphere", idx->n);
    st_mstate *f = (st_mstate *)test_find_object(s, "f");
    const double wantf[14] = {1, 2, 3, 0, 0, 0, 1, 4, 5, 6, 0, 0, 0, 1};
    cr_assert_eq(f->position.n, 2);
    for (int i = 0; i < 14; i++)
        cr_assert_eq(f->position.r[i], wantf[i], "value %d: %g", i, f->position.r[i]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- BoxROI on each type's positions ---- */

Test(states, box_roi_on_every_type)
{
    const struct {
        const char *tpl, *pos;
        unsigned in0, in1;
    } k[] = {{"Vec1d", "0 1 2 3", 1, 2},
             {"Vec2d", "0 0  1 5  2 0.5  3 0", 2, 2},
             {"Vec3d", "0 0 0  1 0 0  2 0.5 0  3 0 0", 1, 2},
             {"Rigid3d", "0 0 0 0 0 0 1  1 0 0 0 0 0 1  2 0.5 0 0 0 0 1  3 0 0 0 0 0 1", 1, 2}};
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        test_rt t;
        test_rt_open(&t);
        char yaml[2048];
        /* Box x in [0.5, 2.5], y in [0, 1], z in [-1, 1]: Vec1d tests x only,
         * Vec2d x and y, the others x y z (Rigid3d: the centre). */
        snprintf(yaml, sizeof yaml,
                 "format: settee/1\nroot:\n  objects:\n"
                 "    - RequiredPlugin: {pluginName: [Engine.Select]}\n"
                 "    - MechanicalObject: {name: dofs, template: %s, position: \"%s\"}\n"
                 "    - BoxROI: {name: box, box: [0.5, 0, -1, 2.5, 1, 1]}\n",
                 k[i].tpl, k[i].pos);
        st_scene *s = load(&t, yaml);
        st_component *box = test_find_object(s, "box");
        cr_assert_eq(st_component_state_type(box), state(s, "dofs")->type, "%s", k[i].tpl);
        const st_array *idx = st_component_field_ptr(box, st_component_field(box, "indices"));
        const st_array *pin = st_component_field_ptr(box, st_component_field(box, "pointsInROI"));
        cr_assert_eq(idx->n, k[i].in0 == k[i].in1 ? 1 : 2, "%s: %zu indices", k[i].tpl, idx->n);
        cr_assert_eq(idx->u[0], k[i].in0, "%s", k[i].tpl);
        cr_assert_eq(idx->u[idx->n - 1], k[i].in1, "%s", k[i].tpl);
        /* the points keep their type's coordinates (Rigid3d: 7 values) */
        const st_mstate *ms = state(s, "dofs");
        cr_assert_eq(pin->n, idx->n);
        cr_assert_eq(memcmp(pin->r, ms->position.r + ms->type->coord_size * idx->u[0],
                            ms->type->coord_size * sizeof(double)),
                     0, "%s", k[i].tpl);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* ---- a state class from a plugin ---- */

/* A minimal state class, as a third-party plugin would write it: the
 * instance begins with st_mstate, the role tells its type (Vec2d, fixed),
 * init sizes it. The kernel integrates it like a MechanicalObject. */
static const st_field plane_state_fields[] = {
    ST_COORDS(st_mstate, position, "position", NULL, "positions"),
    ST_DERIVS(st_mstate, velocity, "velocity", NULL, "velocities"),
    ST_DERIVS(st_mstate, force, "force", NULL, "forces"),
    ST_DERIVS(st_mstate, external_force, "externalForce", NULL, "external forces"),
    ST_COORDS(st_mstate, rest_position, "rest_position", NULL, "rest positions"),
    ST_DERIVS(st_mstate, derivx, "derivX", NULL, "dx"),
    ST_FIELD_END};

static st_status plane_state_type(st_component *self, const st_state_type **out, st_error *err)
{
    (void)self, (void)err;
    *out = &st_vec2d_type;
    return ST_OK;
}

static st_status plane_state_init(st_component *self, st_error *err)
{
    st_mstate *ms = (st_mstate *)self;
    ms->n = ms->position.n;
    ST_TRY(st_array_resize_width(&ms->velocity, 2, ms->n, err));
    ST_TRY(st_array_resize_width(&ms->rest_position, 2, ms->n, err));
    memcpy(ms->rest_position.r, ms->position.r, 2 * ms->n * sizeof(double));
    return ST_OK;
}

static const st_state_ops plane_state_ops = {sizeof(st_state_ops), plane_state_type};

static const st_class plane_state_class = {
    .struct_size = sizeof(st_class),
    .name = "PlaneState",
    .category = "State",
    .description = "test: a Vec2d state class",
    .instance_size = sizeof(st_mstate),
    .fields = plane_state_fields,
    .init = plane_state_init,
    .state = &plane_state_ops,
    .templates = (const char *const[]){"Vec2d", NULL},
};

Test(states, a_plugin_state_class_is_integrated)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(t.rt), &plane_state_class, &err), ST_OK,
                 "%s", err.msg);
    st_scene *s = load(&t, "format: settee/1\n"
                           "root:\n"
                           "  gravity: [0, -10, 0]\n"
                           "  dt: 0.1\n"
                           "  objects:\n" PLUGINS "  children:\n"
                           "    - name: N\n"
                           "      objects:\n"
                           "        - EulerExplicitSolver: {}\n"
                           "        - PlaneState: {name: p, position: [0, 0, 1, 1]}\n"
                           "        - UniformMass: {vertexMass: 2}\n"
                           "        - FixedProjectiveConstraint: {indices: [0]}\n");
    st_mstate *ms = state(s, "p");
    cr_assert_eq(ms->type, &st_vec2d_type);
    cr_assert_eq(st_node_mstate(ms->base.node), ms);
    step(s, 2);
    /* symplectic Euler: v1 = -1, x1 = 0.9; v2 = -2, x2 = 0.7 */
    cr_assert_eq(ms->position.r[0], 0.0);
    cr_assert(fabs(ms->position.r[3] - 0.7) < 1e-15, "%.17g", ms->position.r[3]);
    cr_assert_eq(ms->position.r[2], 1.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* DiagonalMass on Rigid3d: one RigidMass per point from vertexMass, a short
 * list padded with its last entry. */
Test(states, rigid_diagonal_mass)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = rigid_scene(&t, 0.01, IMPLICIT_LDL,
                              "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"
                              "            position: \"0 0 0 0 0 0 1  1 0 0 0 0 0 1  2 0 0 0 0 0 1\"}\n"
                              "        - MeshTopology: {edges: [0, 1, 1, 2]}\n"
                              "        - DiagonalMass: {vertexMass: \"2 1 1 0 0 0 2 0 0 0 3  "
                              "4 1 5 0 0 0 5 1 0 1 5\"}\n");
    st_system *sys = state(s, "dofs")->system;
    cr_assert_eq(sys->size, 18);
    double dx[18], df[18];
    for (int i = 0; i < 18; i++)
        dx[i] = 1 + 0.5 * i;
    st_system_add_mbkdx(sys, df, dx, 1.0, 0.0, 0.0, true);
    const double m[3] = {2, 4, 4};
    const double I[3][9] = {{1, 0, 0, 0, 2, 0, 0, 0, 3},
                            {5, 0, 0, 0, 5, 1, 0, 1, 5},
                            {5, 0, 0, 0, 5, 1, 0, 1, 5}};
    for (int p = 0; p < 3; p++) {
        const double *d = dx + 6 * p, *r = df + 6 * p;
        for (int a = 0; a < 3; a++) {
            cr_assert_eq(r[a], d[a] * m[p]);
            double want = m[p] * (I[p][3 * a] * d[3] + I[p][3 * a + 1] * d[4] +
                                  I[p][3 * a + 2] * d[5]);
            cr_assert(fabs(r[3 + a] - want) < 1e-12, "point %d angular %d: %g vs %g", p, a,
                      r[3 + a], want);
        }
    }
    /* a = M^-1 (M dx) = dx */
    double a[18];
    st_error err = {0};
    cr_assert_eq(st_system_acc_from_f(sys, a, df, &err), ST_OK, "%s", err.msg);
    for (int i = 0; i < 18; i++)
        cr_assert(fabs(a[i] - dx[i]) < 1e-12, "a[%d] = %.17g vs %g", i, a[i], dx[i]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- matrix blocks of every size ---- */

/* A test interaction force field coupling point 0 of a Vec3d state and
 * point 0 of a Rigid3d state with a 3x6 block (and its 6x3 transpose). */
typedef struct couple {
    st_component base;
    st_component *object1, *object2;
} couple;

static const st_field couple_fields[] = {
    ST_LINK(couple, object1, "object1", ST_LINK_STATE, "Vec3d state"),
    ST_LINK(couple, object2, "object2", ST_LINK_STATE, "Rigid3d state"), ST_FIELD_END};

static void couple_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    couple *c = (couple *)self;
    const st_mstate *a = (const st_mstate *)c->object1, *b = (const st_mstate *)c->object2;
    double k36[18], k63[18];
    for (int r = 0; r < 3; r++)
        for (int q = 0; q < 6; q++) {
            k36[6 * r + q] = kfactor * (1 + 6 * r + q);
            k63[3 * q + r] = k36[6 * r + q];
        }
    st_matrix_add_block(m, a, 0, b, 0, k36);
    st_matrix_add_block(m, b, 0, a, 0, k63);
}

static const st_forcefield_ops couple_ops = {.struct_size = sizeof(st_forcefield_ops),
                                             .add_k_to_matrix = couple_add_k};

static const st_class couple_class = {
    .struct_size = sizeof(st_class),
    .name = "Couple",
    .category = "ForceField",
    .description = "test: a 3x6 coupling",
    .instance_size = sizeof(couple),
    .fields = couple_fields,
    .forcefield = &couple_ops,
    .templates = st_all_state_types,
};

Test(states, mixed_matrix_blocks)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(t.rt), &couple_class, &err), ST_OK, "%s",
                 err.msg);
    st_scene *s = load(&t, "format: settee/1\n"
                           "root:\n"
                           "  gravity: [0, 0, 0]\n"
                           "  objects:\n" PLUGINS
                           "    - EulerImplicitSolver: {}\n"
                           "    - SparseLDLSolver: {}\n"
                           "    - Couple: {object1: \"@P/p\", object2: \"@R/r\"}\n"
                           "  children:\n"
                           "    - name: P\n"
                           "      objects:\n"
                           "        - MechanicalObject: {name: p, position: [0, 0, 0, 1, 0, 0]}\n"
                           "        - UniformMass: {vertexMass: 2}\n"
                           "    - name: R\n"
                           "      objects:\n"
                           "        - MechanicalObject: {name: r, template: Rigid3d}\n"
                           "        - UniformMass: {vertexMass: 3}\n");
    st_mstate *p = state(s, "p"), *r = state(s, "r");
    st_system *sys = p->system;
    cr_assert_eq(sys->size, 12);
    cr_assert_eq(sys->xsize, 13);
    cr_assert_eq(r->doffset, 6);
    cr_assert_eq(r->xoffset, 6);
    st_matrix *mat = NULL;
    cr_assert_eq(st_matrix_create(sys, &mat, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(mat, sys, 1.0, 0.0, 1.0, &err), ST_OK, "%s", err.msg);
    st_csr a;
    st_matrix_csr(mat, &a);
    cr_assert_eq(a.n, 12);
    /* Dense copy of the CSR. */
    double d[12][12] = {{0}};
    for (size_t i = 0; i < a.n; i++) {
        cr_assert_lt(a.rowptr[i], a.rowptr[i + 1]);
        for (int k = a.rowptr[i]; k < a.rowptr[i + 1]; k++) {
            if (k > a.rowptr[i])
                cr_assert_gt(a.colind[k], a.colind[k - 1], "row %zu columns sorted", i);
            d[i][a.colind[k]] = a.values[k];
        }
    }
    cr_assert_eq(a.rowptr[a.n], (int)a.nnz);
    /* masses on the diagonal (point 0 of p: 2 + its share), the coupling at
     * rows 0-2 / columns 6-11 and its transpose */
    for (int i = 0; i < 12; i++)
        cr_assert_eq(d[i][i], i < 6 ? 2.0 : 3.0, "M(%d,%d) = %g", i, i, d[i][i]);
    for (int r0 = 0; r0 < 3; r0++)
        for (int q = 0; q < 6; q++) {
            cr_assert_eq(d[r0][6 + q], 1 + 6 * r0 + q);
            cr_assert_eq(d[6 + q][r0], 1 + 6 * r0 + q);
            cr_assert_eq(d[3 + r0][6 + q], 0.0, "point 1 of p is not coupled");
        }
    /* A second assembly replays into the same slots, scaled. */
    unsigned long version = a.pattern_version;
    cr_assert_eq(st_matrix_assemble(mat, sys, 1.0, 0.0, 2.0, &err), ST_OK, "%s", err.msg);
    st_matrix_csr(mat, &a);
    cr_assert_eq(a.pattern_version, version);
    double y[12], x[12] = {0};
    x[8] = 1; /* column 8: rigid angular x */
    st_matrix_mul(mat, y, x);
    cr_assert_eq(y[0], 2.0 * 3);
    cr_assert_eq(y[1], 2.0 * 9);
    cr_assert_eq(y[8], 3.0);
    st_matrix_destroy(&mat);
    /* The implicit solve runs through SparseLDL with the mixed blocks. */
    step(s, 2);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Vec1d and Vec2d chains through the assembled path (1x1 and 2x2 blocks,
 * CHOLMOD) agree with the Vec3d chain to round-off. */
Test(states, vec1_vec2_chains_match_vec3_implicit_ldl)
{
    test_rt t3, tl;
    test_rt_open(&t3);
    test_rt_open(&tl);
    for (int dim = 1; dim <= 2; dim++) {
        st_scene *s3 = chain(&t3, "Vec3d", 3, dim, IMPLICIT_LDL);
        st_scene *sl = chain(&tl, dim == 1 ? "Vec1d" : "Vec2d", dim, dim, IMPLICIT_LDL);
        st_mstate *m3 = state(s3, "dofs"), *ml = state(sl, "dofs");
        if (dim == 1)
            for (int i = 0; i < 6; i++)
                m3->position.r[3 * i + 1] = m3->rest_position.r[3 * i + 1] = 0;
        step(s3, 30);
        step(sl, 30);
        for (int i = 0; i < 6; i++)
            for (int a = 0; a < dim; a++)
                cr_assert(fabs(ml->position.r[dim * i + a] - m3->position.r[3 * i + a]) < 1e-12,
                          "dim %d point %d axis %d: %.17g vs %.17g", dim, i, a,
                          ml->position.r[dim * i + a], m3->position.r[3 * i + a]);
        cr_assert(fabs(ml->position.r[dim * 5] - 5.0) > 1e-3, "the chain moved");
        st_scene_destroy(&s3);
        st_scene_destroy(&sl);
    }
    test_rt_close(&t3);
    test_rt_close(&tl);
}
