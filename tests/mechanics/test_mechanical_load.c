/* test_mechanical_load.c - the MechanicalLoad plugin (ConstantForceField,
 * PlaneForceField, SphereForceField, EllipsoidForceField, the pressures:
 * Triangle-, Quad-, Surface- and TaitSurfacePressureForceField) and the key-time
 * projective constraints (LinearMovementProjectiveConstraint,
 * LinearVelocityProjectiveConstraint) against closed forms and SOFA's
 * rules; contacts that come and go keep the matrix pattern (issue 19). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static void set(st_component *c, const char *name, const char *text)
{
    st_error err = {0};
    cr_assert_eq(st_component_set(c, name, text, &err), ST_OK, "set %s=%s: %s", name, text,
                 err.msg);
}

static st_component *add(st_node *n, const char *cls, const char *name)
{
    st_component *c = NULL;
    st_error err = {0};
    cr_assert_eq(st_node_add_object(n, cls, name, &c, &err), ST_OK, "add %s: %s", cls, err.msg);
    return c;
}

static void check_rel(double got, double want, double tol, const char *what)
{
    double scale = fabs(want) > 1.0 ? fabs(want) : 1.0;
    cr_assert(fabs(got - want) <= tol * scale, "%s: got %.17g, want %.17g", what, got, want);
}

/* A scene with the plugins loaded; root gravity g and dt h. */
static st_scene *new_scene(test_rt *t, const char *g, const char *h)
{
    st_error err = {0};
    test_rt_open(t);
    cr_assert_eq(st_runtime_add_plugin_path(t->rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    const char *plugins[] = {"ODESolver.Forward",  "ODESolver.Backward",
                             "LinearSolver.Direct", "LinearSolver.Iterative",
                             "Mass",                "Constraint.Projective",
                             "Sofa.Component.MechanicalLoad", "Topology"};
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(t->rt, plugins[i], &err), ST_OK, "%s", err.msg);
    st_scene *s = NULL;
    cr_assert_eq(st_scene_create(t->rt, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_set(st_scene_root(s), "gravity", g, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_set(st_scene_root(s), "dt", h, &err), ST_OK, "%s", err.msg);
    return s;
}

/* A child node with an ODE solver ("explicit", "implicit" with
 * SparseLDLSolver, or "cg" with a tight CGLinearSolver), points and a
 * uniform vertex mass. */
static st_node *body(st_scene *s, const char *solver, const char *pos, const char *vmass,
                     st_mstate **ms)
{
    st_node *b = NULL;
    st_error err = {0};
    cr_assert_eq(st_node_add_child(st_scene_root(s), "Body", &b, &err), ST_OK, "%s", err.msg);
    if (strcmp(solver, "explicit") == 0) {
        add(b, "EulerExplicitSolver", "solver");
    } else {
        add(b, "EulerImplicitSolver", "solver");
        if (strcmp(solver, "cg") == 0) {
            st_component *cg = add(b, "CGLinearSolver", "linear");
            set(cg, "iterations", "100");
            set(cg, "tolerance", "1e-30");
            set(cg, "threshold", "1e-30");
        } else {
            add(b, "SparseLDLSolver", "linear");
        }
    }
    st_component *dofs = add(b, "MechanicalObject", "dofs");
    set(dofs, "position", pos);
    set(add(b, "UniformMass", "mass"), "vertexMass", vmass);
    *ms = (st_mstate *)dofs;
    return b;
}

static void init_ok(st_scene *s)
{
    st_error err = {0};
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s", err.msg);
}

static void step_ok(st_scene *s)
{
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step: %s", err.msg);
}

static st_status init_status(st_scene *s, st_error *err) { return st_scene_init(s, err); }

/* ---- ConstantForceField ---- */

/* A free particle under F: with symplectic or implicit Euler (K = 0 for a
 * constant force) v_n = n h a and x_n = x0 + h^2 a n (n + 1) / 2. */
static void constant_force_closed_form(const char *solver)
{
    test_rt t;
    st_scene *s = new_scene(&t, "0 0 0", "0.01");
    st_mstate *ms;
    st_node *b = body(s, solver, "1 2 3", "2", &ms);
    set(add(b, "ConstantForceField", "load"), "forces", "1 -2 0.5");
    init_ok(s);
    const int n = 100;
    for (int k = 0; k < n; k++)
        step_ok(s);
    const double a[3] = {0.5, -1, 0.25}, x0[3] = {1, 2, 3}, h = 0.01;
    for (int j = 0; j < 3; j++) {
        char what[64];
        snprintf(what, sizeof what, "%s v[%d]", solver, j);
        check_rel(ms->velocity.r[j], n * h * a[j], 1e-12, what);
        snprintf(what, sizeof what, "%s x[%d]", solver, j);
        check_rel(ms->position.r[j], x0[j] + h * h * a[j] * n * (n + 1) / 2.0, 1e-12, what);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_load, constant_force_explicit) { constant_force_closed_form("explicit"); }
Test(mechanical_load, constant_force_implicit_ldl) { constant_force_closed_form("implicit"); }
Test(mechanical_load, constant_force_implicit_cg) { constant_force_closed_form("cg"); }

/* The force field's per-point forces after init, read through add_force. */
static void forces_of(st_scene *s, st_component *ff, double *f, size_t n)
{
    st_system *sys = s->systems[0];
    memset(f, 0, 3 * n * sizeof *f);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x, sys->v);
}

static st_component *cff_scene(test_rt *t, st_scene **s, const char *const *kv, size_t nkv)
{
    *s = new_scene(t, "0 0 0", "0.01");
    st_mstate *ms;
    st_node *b = body(*s, "explicit", "0 0 0  1 0 0  2 0 0  3 0 0", "1", &ms);
    st_component *ff = add(b, "ConstantForceField", "load");
    for (size_t i = 0; i + 1 < nkv; i += 2)
        set(ff, kv[i], kv[i + 1]);
    return ff;
}

Test(mechanical_load, constant_force_total_force_split_and_indices)
{
    test_rt t;
    st_scene *s;
    const char *kv[] = {"indices", "1 3", "totalForce", "2 4 6"};
    st_component *ff = cff_scene(&t, &s, kv, 4);
    init_ok(s);
    double f[12];
    forces_of(s, ff, f, 4);
    const double want[12] = {0, 0, 0, 1, 2, 3, 0, 0, 0, 1, 2, 3};
    for (int i = 0; i < 12; i++)
        cr_assert_eq(f[i], want[i], "f[%d] = %g", i, f[i]);
    /* Potential energy: -sum f . x = -(1 * 1 + 1 * 3). */
    st_system *sys = s->systems[0];
    cr_assert_eq(ff->cls->forcefield->potential_energy(ff, &sys->mp, sys->x), -4.0);
    st_scene_destroy(&s);
    test_rt_close(&t);

    /* One force in `forces`: the same on every index (all points when
     * indices is empty); totalForce becomes n f. */
    const char *kv1[] = {"forces", "1 0 -1"};
    ff = cff_scene(&t, &s, kv1, 2);
    init_ok(s);
    forces_of(s, ff, f, 4);
    for (int i = 0; i < 4; i++)
        cr_assert(f[3 * i] == 1 && f[3 * i + 1] == 0 && f[3 * i + 2] == -1, "point %d", i);
    const st_array *tfa = st_component_field_ptr(ff, st_component_field(ff, "totalForce"));
    const double *tf = tfa->r;
    cr_assert(tfa->n == 1 && tf[0] == 4 && tf[2] == -4, "totalForce %g %g %g", tf[0], tf[1],
              tf[2]);
    st_scene_destroy(&s);
    test_rt_close(&t);

    /* indexFromEnd: index 0 is the last point; forces wins over totalForce
     * (with a warning). */
    const char *kv2[] = {"indices",    "0 2",  "indexFromEnd", "true", "forces", "1 0 0  0 1 0",
                         "totalForce", "9 9 9"};
    ff = cff_scene(&t, &s, kv2, 8);
    init_ok(s);
    cr_assert(strstr(t.log, "cannot be used simultaneously"), "%s", t.log);
    forces_of(s, ff, f, 4);
    const double want2[12] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    for (int i = 0; i < 12; i++)
        cr_assert_eq(f[i], want2[i], "indexFromEnd f[%d] = %g", i, f[i]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_load, constant_force_refusals)
{
    static const struct {
        const char *k1, *v1, *k2, *v2, *msg;
    } cases[] = {
        {"indices", "1", NULL, NULL, "No input force has been set"},
        {"forces", "1 0 0  0 1 0", NULL, NULL, "mismatches with indices size"},
        {"indices", "4", "totalForce", "1 1 1", "exceeds system size"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        test_rt t;
        st_scene *s;
        const char *kv[] = {cases[k].k1, cases[k].v1, cases[k].k2, cases[k].v2};
        cff_scene(&t, &s, kv, cases[k].k2 ? 4 : 2);
        st_error err = {0};
        cr_assert_neq(init_status(s, &err), ST_OK, "case %zu initialised", k);
        char msg[ST_ERROR_MSG_MAX + 512];
        st_error_format(&err, msg, sizeof msg);
        cr_assert(strstr(msg, cases[k].msg) && strstr(msg, "/Body/load"), "case %zu: %s", k,
                  msg);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* ---- PlaneForceField, SphereForceField ---- */

/* A particle of mass m dropped from rest under gravity g comes to rest with
 * the penetration SOFA's law gives: k p = m g. */
Test(mechanical_load, particle_rests_on_plane_and_sphere)
{
    const double m = 0.5, g = 9.81, k = 2000;
    for (int which = 0; which < 2; which++) {
        test_rt t;
        st_scene *s = new_scene(&t, "0 -9.81 0", "0.01");
        st_mstate *ms;
        st_node *b = body(s, "implicit", which ? "0.3 1.2 0.4" : "0.3 0.2 0.4", "0.5", &ms);
        st_component *ff = add(b, which ? "SphereForceField" : "PlaneForceField", "contact");
        set(ff, "stiffness", "2000");
        set(ff, "damping", "20");
        if (which) {
            /* Straight above the centre, so the rest point is on the axis. */
            set(ff, "center", "0.3 0 0.4");
            set(ff, "radius", "1");
        }
        init_ok(s);
        for (int i = 0; i < 3000; i++)
            step_ok(s);
        double want = which ? 1 - m * g / k : -m * g / k;
        check_rel(ms->position.r[1], want, 1e-9, which ? "sphere rest height" : "plane rest");
        check_rel(ms->position.r[0], 0.3, 1e-12, "x");
        check_rel(ms->position.r[2], 0.4, 1e-12, "z");
        cr_assert(fabs(ms->velocity.r[1]) < 1e-9, "still moving: %g", ms->velocity.r[1]);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* SOFA's force law, one evaluation: plane with damping and maxForce. */
Test(mechanical_load, plane_force_law_and_max_force)
{
    test_rt t;
    st_scene *s = new_scene(&t, "0 0 0", "0.01");
    st_mstate *ms;
    st_node *b = body(s, "explicit", "0 -0.1 0  0 0.5 0  0 -2 0", "1", &ms);
    st_component *ff = add(b, "PlaneForceField", "plane");
    set(ff, "stiffness", "100");
    set(ff, "damping", "3");
    set(ff, "maxForce", "50");
    set(ms ? &ms->base : NULL, "velocity", "1 2 0  0 0 0  0 0 0");
    init_ok(s);
    double f[9];
    forces_of(s, ff, f, 3);
    /* p = -0.1: f = 10 n + 3 (-0.1) v = (-0.3, 9.4, 0). */
    check_rel(f[0], -0.3, 1e-15, "f0x");
    check_rel(f[1], 10 - 0.6, 1e-15, "f0y");
    cr_assert(f[3] == 0 && f[4] == 0 && f[5] == 0, "point above the plane got a force");
    /* p = -2: f = 200 n, clamped to 50. */
    check_rel(f[7], 50, 1e-15, "clamped");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static int int_output(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f, "no field %s", name);
    return *(const int *)st_component_field_ptr(c, f);
}

/* Particles bouncing on a plane and on a sphere with SparseLDLSolver: the
 * contact sets change many times, yet after the first step 1,000 steps
 * allocate nothing and the pattern is analysed once (issue 19). */
Test(mechanical_load, contacts_come_and_go_without_allocation)
{
    test_rt t;
    st_scene *s = new_scene(&t, "0 -9.81 0", "0.005");
    st_mstate *ms;
    st_node *b = body(s, "implicit",
                      "0 0.05 0  1 0.2 0  2 0.4 0  3 0.01 0  "
                      "5 2.1 5  5.2 2.3 5  4.9 2.6 5.1",
                      "0.1", &ms);
    set(&ms->base, "velocity", "0 0 0  0 -1 0  0 1 0  0 -3 0  0 0 0  0 -2 0  0 1 0");
    st_component *plane = add(b, "PlaneForceField", "plane");
    set(plane, "stiffness", "3000");
    set(plane, "damping", "0.1");
    st_component *sphere = add(b, "SphereForceField", "sphere");
    set(sphere, "center", "5 0 5");
    set(sphere, "radius", "2");
    set(sphere, "stiffness", "3000");
    set(sphere, "damping", "0.1");
    init_ok(s);
    step_ok(s);
    st_component *ldl = test_find_object(s, "linear");
    const st_field *cf = st_component_field(sphere, "contacts");
    const st_array *contacts = st_component_field_ptr(sphere, cf);
    unsigned long before = st_alloc_count();
    size_t last = contacts->n;
    int changes = 0;
    for (int i = 0; i < 1000; i++) {
        step_ok(s);
        if (contacts->n != last)
            changes++;
        last = contacts->n;
    }
    unsigned long allocs = st_alloc_count() - before;
    cr_assert_gt(changes, 4, "the sphere's contacts changed only %d times", changes);
    cr_assert_eq(allocs, 0, "%lu allocations in 1000 steps", allocs);
    cr_assert_eq(int_output(ldl, "symbolicAnalyses"), 1, "%d symbolic analyses",
                 int_output(ldl, "symbolicAnalyses"));
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* EllipsoidForceField: add_dforce and the assembled matrix are SOFA's
 * contact matrix, which equals the finite-difference Jacobian of add_force
 * once SOFA's b term is replaced by the exact one (see
 * ellipsoid_force_field.c). */
Test(mechanical_load, ellipsoid_jacobian_is_sofas)
{
    test_rt t;
    st_scene *s = new_scene(&t, "0 0 0", "0.01");
    st_mstate *ms;
    const double center[3] = {0.1, -0.2, 0.3}, r[3] = {1, 2, 1.5}, ks = 40;
    st_node *b = body(s, "explicit", "0.5 0.4 0.2  0.1 1.1 0.9  -0.6 -0.9 0.1  3 0 0", "1", &ms);
    st_component *ff = add(b, "EllipsoidForceField", "ell");
    set(ff, "center", "0.1 -0.2 0.3");
    set(ff, "vradius", "1 2 1.5");
    set(ff, "stiffness", "40");
    init_ok(s);
    st_system *sys = s->systems[0];
    const st_forcefield_ops *ops = ff->cls->forcefield;
    size_t N = sys->size;
    double x[12], v[12] = {0}, fp[12], fm[12], df[12], e[12];
    memcpy(x, sys->x, sizeof x);
    double f0[12] = {0};
    ops->add_force(ff, &sys->mp, f0, x, v);
    const st_array *contacts = st_component_field_ptr(ff, st_component_field(ff, "contacts"));
    cr_assert_eq(contacts->n, 3 * 10, "%zu contact values", contacts->n);
    st_matrix *m = NULL;
    st_error err = {0};
    cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, sys, 0.0, 0.0, 1.0, &err), ST_OK, "%s", err.msg);
    double K[12 * 12] = {0};
    for (size_t c = 0; c < N; c++) {
        memset(e, 0, sizeof e);
        e[c] = 1;
        st_matrix_mul(m, df, e);
        for (size_t i = 0; i < N; i++)
            K[i * N + c] = df[i];
    }
    for (size_t c = 0; c < N; c++) {
        memset(e, 0, sizeof e);
        memset(df, 0, sizeof df);
        e[c] = 1;
        /* The contacts cached at x (the differences below move them). */
        ops->add_force(ff, &sys->mp, f0, x, v);
        ops->add_dforce(ff, &sys->mp, df, e, 1.0, 0.0);
        const double h = 1e-6, xc = x[c];
        memset(fp, 0, sizeof fp);
        memset(fm, 0, sizeof fm);
        x[c] = xc + h;
        ops->add_force(ff, &sys->mp, fp, x, v);
        x[c] = xc - h;
        ops->add_force(ff, &sys->mp, fm, x, v);
        x[c] = xc;
        size_t p = c / 3, q = c % 3;
        /* SOFA's b term minus the exact one, for point p. */
        double u[3], gr[3], sum = 0, gn2 = 0;
        for (int j = 0; j < 3; j++) {
            u[j] = x[3 * p + j] - center[j];
            gr[j] = u[j] / (r[j] * r[j]);
            sum += u[j] * gr[j];
            gn2 += gr[j] * gr[j];
        }
        double ev = sqrt(sum) - 1, gn = sqrt(gn2);
        bool in = (sum - 1) * ks < 0;
        for (size_t i = 0; i < N; i++) {
            cr_assert(fabs(df[i] - K[i * N + c]) <= 1e-12 * ks, "K(%zu,%zu): add_dforce %.17g, "
                                                                "assembled %.17g",
                      i, c, df[i], K[i * N + c]);
            double fd = (fp[i] - fm[i]) / (2 * h), corr = 0;
            if (in && i / 3 == p)
                corr = gr[i % 3] * gr[q] / (r[q] * r[q]) * (-ks * ev / gn2 - ks * ev / (gn2 * gn));
            cr_assert(fabs(df[i] - corr - fd) <= 1e-6 * ks, "K(%zu,%zu): %.12g - %.12g vs fd %.12g",
                      i, c, df[i], corr, fd);
        }
    }
    st_matrix_destroy(&m);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- LinearMovementProjectiveConstraint ---- */

/* SOFA's interpolation at time t for keyTimes 0, 0.5, 1 and movements 0,
 * (1 0 0), (1 2 0); acts on [0, 1). */
static bool movement_at(double t, double m[3], double w[3])
{
    static const double kt[3] = {0, 0.5, 1}, mv[3][3] = {{0, 0, 0}, {1, 0, 0}, {1, 2, 0}};
    if (t < 0 || t >= 1)
        return false;
    int k = t < 0.5 ? 0 : 1;
    double s = (t - kt[k]) / (kt[k + 1] - kt[k]);
    for (int j = 0; j < 3; j++) {
        m[j] = mv[k][j] + (mv[k + 1][j] - mv[k][j]) * s;
        w[j] = (mv[k + 1][j] - mv[k][j]) * (1.0 / (kt[k + 1] - kt[k]));
    }
    return true;
}

static void linear_movement(bool relative, const char *solver)
{
    test_rt t;
    /* dt = 1/8: key times fall exactly on step times. */
    st_scene *s = new_scene(&t, "0 -9.81 0", "0.125");
    st_mstate *ms;
    st_node *b = body(s, solver, "0.5 1 2  3 3 3", "1", &ms);
    st_component *lm = add(b, "LinearMovementProjectiveConstraint", "move");
    set(lm, "indices", "0");
    set(lm, "keyTimes", "0 0.5 1");
    set(lm, "movements", "0 0 0  1 0 0  1 2 0");
    if (!relative)
        set(lm, "relativeMovements", "false");
    init_ok(s);
    const double x0[3] = {0.5, 1, 2};
    double m[3], w[3], last_v[3] = {0};
    for (int k = 1; k <= 12; k++) {
        step_ok(s);
        /* The loop projects before the time advances: after the step from
         * t0 to t0 + h the point is where the motion is at t0. */
        double t0 = (k - 1) * 0.125;
        if (movement_at(t0, m, w)) {
            for (int j = 0; j < 3; j++) {
                double want = relative ? x0[j] + m[j] : m[j];
                cr_assert_eq(ms->position.r[j], want, "%s step %d x[%d] = %.17g, want %.17g",
                             solver, k, j, ms->position.r[j], want);
                cr_assert_eq(ms->velocity.r[j], w[j], "%s step %d v[%d]", solver, k, j);
                last_v[j] = w[j];
            }
        } else {
            /* After the last key time the point is free (gravity acts). */
            cr_assert_lt(ms->velocity.r[1], last_v[1], "step %d: the point is not free", k);
        }
    }
    /* The other point fell freely all along. */
    cr_assert_lt(ms->position.r[4], 3.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_load, linear_movement_relative_explicit) { linear_movement(true, "explicit"); }
Test(mechanical_load, linear_movement_absolute_implicit) { linear_movement(false, "implicit"); }

/* Matrix rows and columns of the moving points are identity, responses zero. */
Test(mechanical_load, linear_movement_projects_matrix_and_response)
{
    test_rt t;
    st_scene *s = new_scene(&t, "0 0 0", "0.125");
    st_mstate *ms;
    st_node *b = body(s, "implicit", "0 0 0  1 0 0  2 0 0", "2", &ms);
    st_component *lm = add(b, "LinearMovementProjectiveConstraint", "move");
    set(lm, "indices", "1");
    set(lm, "keyTimes", "0 1");
    set(lm, "movements", "0 0 0  1 1 1");
    init_ok(s);
    st_system *sys = s->systems[0];
    st_matrix *m = NULL;
    st_error err = {0};
    cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, sys, 1.0, 0.0, 0.0, &err), ST_OK, "%s", err.msg);
    double e[9], y[9];
    for (int c = 0; c < 9; c++) {
        memset(e, 0, sizeof e);
        e[c] = 1;
        st_matrix_mul(m, y, e);
        for (int r = 0; r < 9; r++) {
            double want = r == c ? ((r / 3 == 1) ? 1.0 : 2.0) : 0.0;
            cr_assert_eq(y[r], want, "M(%d,%d) = %g", r, c, y[r]);
        }
    }
    st_matrix_destroy(&m);
    double dx[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    st_system_project_response(sys, dx);
    cr_assert(dx[3] == 0 && dx[4] == 0 && dx[5] == 0 && dx[0] == 1 && dx[8] == 9);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- LinearVelocityProjectiveConstraint ---- */

static void linear_velocity(bool continue_after_end, const char *coordinates)
{
    test_rt t;
    st_scene *s = new_scene(&t, "0 -9.81 0", "0.125");
    st_mstate *ms;
    st_node *b = body(s, "implicit", "0 1 0", "1", &ms);
    st_component *lv = add(b, "LinearVelocityProjectiveConstraint", "vel");
    set(lv, "keyTimes", "0 1");
    set(lv, "velocities", "1 0 2  3 0 -2");
    if (continue_after_end)
        set(lv, "continueAfterEnd", "true");
    if (coordinates)
        set(lv, "coordinates", coordinates);
    init_ok(s);
    const double h = 0.125;
    /* Init projects at t = 0: the point already moved by h w(0). */
    double xp[3] = {h * 1, 1, h * 2};
    if (coordinates)
        xp[2] = 0;
    for (int j = 0; j < 3; j += 2)
        cr_assert_eq(ms->position.r[j], xp[j], "init x[%d] = %.17g", j, ms->position.r[j]);
    const double v0[3] = {1, 0, 2}, v1[3] = {3, 0, -2};
    for (int k = 1; k <= 12; k++) {
        step_ok(s);
        /* Projected at the step's start time t0; SOFA still acts at the last
         * key time, with its velocity, and after it only with
         * continueAfterEnd. */
        double t0 = (k - 1) * h, w[3];
        for (int j = 0; j < 3; j++)
            w[j] = t0 <= 1 ? (v1[j] - v0[j]) * t0 + v0[j] : v1[j];
        if (t0 > 1 && !continue_after_end) {
            cr_assert_lt(ms->velocity.r[1], -1e-3, "step %d: the point is not free", k);
            continue;
        }
        for (int j = 0; j < 3; j += 2) {
            if (coordinates && j == 2)
                continue;
            xp[j] = xp[j] + w[j] * h;
            check_rel(ms->position.r[j], xp[j], 1e-14, "x");
            check_rel(ms->velocity.r[j], w[j], 1e-14, "v");
        }
        cr_assert_eq(ms->velocity.r[1], 0.0, "step %d: the response was not projected", k);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_load, linear_velocity_stops_after_end) { linear_velocity(false, NULL); }
Test(mechanical_load, linear_velocity_continue_after_end) { linear_velocity(true, NULL); }
Test(mechanical_load, linear_velocity_coordinates) { linear_velocity(true, "0"); }

/* The shipped SOFA scene: particles at rest on the floor sink by m g / k,
 * the pushed ones slide. */
Test(mechanical_load, shipped_scene_particles_on_plane)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    char msg[4096];
    cr_assert_eq(st_scene_load(t.rt, SETTEE_SOURCE_DIR "/scenes/particles_on_plane.scn", &s, &err),
                 ST_OK, "%s", st_error_format(&err, msg, sizeof msg));
    init_ok(s);
    for (int i = 0; i < 1000; i++)
        step_ok(s);
    st_mstate *ms = NULL;
    cr_assert_eq(st_scene_states(s, &ms, 1), 1);
    for (int i = 0; i < 4; i++)
        check_rel(ms->position.r[3 * i + 1], -0.25 * 9.81 / 10000, 1e-9, "rest depth");
    cr_assert_eq(ms->position.r[6], 1.0, "particle 2 was pushed");
    cr_assert_gt(ms->position.r[0], 5.0, "particle 0 did not slide");
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- pressures ---- */

/* The unit cube's 8 points (x fastest) and its faces, oriented outward. */
#define CUBE_POINTS "0 0 0  1 0 0  0 1 0  1 1 0  0 0 1  1 0 1  0 1 1  1 1 1"
#define CUBE_QUADS "0 2 3 1  4 5 7 6  0 1 5 4  2 6 7 3  0 4 6 2  1 3 7 5"
#define CUBE_TRIS                                                                                 \
    "0 2 3  0 3 1  4 5 7  4 7 6  0 1 5  0 5 4  2 6 7  2 7 3  0 4 6  0 6 2  1 3 7  1 7 5"

/* A body with a MeshTopology (field = list) and a force field cls. */
static st_component *pressure_scene(test_rt *t, st_scene **s, const char *pos, const char *field,
                                    const char *list, const char *cls, const char *const *kv,
                                    size_t nkv)
{
    *s = new_scene(t, "0 0 0", "0.5");
    st_mstate *ms;
    st_node *b = body(*s, "explicit", pos, "1", &ms);
    set(add(b, "MeshTopology", "topo"), field, list);
    st_component *ff = add(b, cls, "load");
    for (size_t i = 0; i + 1 < nkv; i += 2)
        set(ff, kv[i], kv[i + 1]);
    init_ok(*s);
    return ff;
}

static void sum_force(const double *f, size_t n, double out[3])
{
    out[0] = out[1] = out[2] = 0;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            out[k] += f[3 * i + k];
}

/* SOFA's TrianglePressureForceField_test: pressure (0, 0, 0.6) on the
 * triangle (0,0,0) (1,0,0) (1,1,0) of area 1/2: (0, 0, 0.1) on each vertex. */
Test(mechanical_load, triangle_pressure_sofa_value)
{
    test_rt t;
    st_scene *s;
    const char *kv[] = {"pressure", "0 0 0.6", "triangleList", "0"};
    st_component *ff = pressure_scene(&t, &s, "0 0 0  1 0 0  1 1 0", "triangles", "0 1 2",
                                      "TrianglePressureForceField", kv, 4);
    double f[9];
    forces_of(s, ff, f, 3);
    for (int i = 0; i < 3; i++) {
        check_rel(f[3 * i + 2], 0.1, 1e-15, "f.z");
        cr_assert(f[3 * i] == 0 && f[3 * i + 1] == 0);
    }
    /* A constant force: energy -f . x. */
    st_system *sys = s->systems[0];
    check_rel(ff->cls->forcefield->potential_energy(ff, &sys->mp, sys->x), 0.0, 1e-15, "E");
    double x[9] = {0, 0, 1, 1, 0, 1, 1, 1, 1};
    check_rel(ff->cls->forcefield->potential_energy(ff, &sys->mp, x), -0.3, 1e-15, "E(z = 1)");
    cr_assert_null(ff->cls->forcefield->add_dforce);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_load, triangle_pressure_total_is_pressure_times_area)
{
    /* The cube's 12 triangles, pressure (1, 2, 3) on the two of the top
     * face: total (1, 2, 3) x 1, whatever the orientation. */
    test_rt t;
    st_scene *s;
    const char *kv[] = {"pressure", "1 2 3", "triangleList", "2 3"};
    st_component *ff = pressure_scene(&t, &s, CUBE_POINTS, "triangles", CUBE_TRIS,
                                      "TrianglePressureForceField", kv, 4);
    double f[24], tot[3];
    forces_of(s, ff, f, 8);
    sum_force(f, 8, tot);
    check_rel(tot[0], 1, 1e-15, "Fx");
    check_rel(tot[1], 2, 1e-15, "Fy");
    check_rel(tot[2], 3, 1e-15, "Fz");
    /* Vertex 4 is in both triangles: 2 x (1/2 x (1,2,3) / 3). */
    check_rel(f[3 * 4 + 2], 1.0, 1e-15, "f4.z");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_load, triangle_pressure_cauchy_stress)
{
    /* useConstantForce false: sigma (area vector / 3) on each vertex; with
     * sigma = diag(1, 2, 4) and the triangle of area 1/2 in z = 0 (normal
     * +z): (0, 0, 4 x 1/2 / 3). */
    test_rt t;
    st_scene *s;
    const char *kv[] = {"useConstantForce", "false", "cauchyStress", "1 0 2 0 0 4",
                        "triangleList", "0"};
    st_component *ff = pressure_scene(&t, &s, "0 0 0  1 0 0  1 1 0", "triangles", "0 1 2",
                                      "TrianglePressureForceField", kv, 6);
    double f[9];
    forces_of(s, ff, f, 3);
    for (int i = 0; i < 3; i++)
        check_rel(f[3 * i + 2], 4.0 / 6.0, 1e-15, "f.z");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA's QuadPressureForceField_test: the unit quad (0 1 3 2) in z = 0,
 * selected by the slab -0.01 < z < 0.01, pressure (0, 0, 0.2): 0.05 on each
 * vertex. */
Test(mechanical_load, quad_pressure_sofa_value_and_selection)
{
    test_rt t;
    st_scene *s;
    const char *kv[] = {"normal", "0 0 1", "dmin", "-0.01", "dmax", "0.01", "pressure",
                        "0 0 0.2"};
    st_component *ff = pressure_scene(&t, &s, "0 0 0  1 0 0  0 1 0  1 1 0", "quads", "0 1 3 2",
                                      "QuadPressureForceField", kv, 8);
    double f[12];
    forces_of(s, ff, f, 4);
    for (int i = 0; i < 4; i++)
        check_rel(f[3 * i + 2], 0.05, 1e-15, "f.z");
    st_scene_destroy(&s);
    test_rt_close(&t);

    /* The cube: the slab 0.5 < x < 2 selects the face x = 1 only; quadList
     * (when given) wins over the slab. */
    const char *kv2[] = {"normal", "1 0 0", "dmin", "0.5", "dmax", "2", "pressure", "0 0 4"};
    ff = pressure_scene(&t, &s, CUBE_POINTS, "quads", CUBE_QUADS, "QuadPressureForceField", kv2,
                        8);
    double g[24], tot[3];
    forces_of(s, ff, g, 8);
    sum_force(g, 8, tot);
    check_rel(tot[2], 4.0, 1e-15, "total");
    for (int i = 1; i < 8; i += 2)
        check_rel(g[3 * i + 2], 1.0, 1e-15, "x = 1 vertex");
    for (int i = 0; i < 8; i += 2)
        cr_assert_eq(g[3 * i + 2], 0.0);
    st_scene_destroy(&s);
    test_rt_close(&t);

    const char *kv3[] = {"normal", "1 0 0", "dmin", "0.5", "dmax", "2", "pressure", "0 0 4",
                         "quadList", "0 1"};
    ff = pressure_scene(&t, &s, CUBE_POINTS, "quads", CUBE_QUADS, "QuadPressureForceField", kv3,
                        10);
    forces_of(s, ff, g, 8);
    sum_force(g, 8, tot);
    check_rel(tot[2], 8.0, 1e-15, "two faces");
    check_rel(g[2], 1.0, 1e-15, "vertex 0 (bottom only)");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA's SurfacePressureForceField_test: pressure 0.6 on the triangle
 * (0,0,0) (1,0,0) (1,1,0): (0, 0, 0.1) on each vertex. */
Test(mechanical_load, surface_pressure_sofa_value)
{
    test_rt t;
    st_scene *s;
    const char *kv[] = {"pressure", "0.6"};
    st_component *ff = pressure_scene(&t, &s, "0 0 0  1 0 0  1 1 0", "triangles", "0 1 2",
                                      "SurfacePressureForceField", kv, 2);
    double f[9];
    forces_of(s, ff, f, 3);
    for (int i = 0; i < 3; i++)
        check_rel(f[3 * i + 2], 0.1, 1e-15, "f.z");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void surface_pressure_cube(const char *field, const char *list)
{
    /* The closed cube: no net force; the box z >= 0.9 presses the top face
     * only: p x area along +z. Energy -p V on the closed surface. */
    test_rt t;
    st_scene *s;
    const char *kv[] = {"pressure", "3"};
    st_component *ff =
        pressure_scene(&t, &s, CUBE_POINTS, field, list, "SurfacePressureForceField", kv, 2);
    double f[24], tot[3];
    forces_of(s, ff, f, 8);
    sum_force(f, 8, tot);
    for (int k = 0; k < 3; k++)
        cr_assert(fabs(tot[k]) < 1e-14, "closed surface: F[%d] = %g", k, tot[k]);
    st_system *sys = s->systems[0];
    check_rel(ff->cls->forcefield->potential_energy(ff, &sys->mp, sys->x), -3.0, 1e-14, "E");
    set(ff, "min", "-1 -1 0.9");
    set(ff, "max", "2 2 1.1");
    st_error err = {0};
    cr_assert_eq(ff->cls->reinit(ff, &err), ST_OK, "%s", err.msg);
    forces_of(s, ff, f, 8);
    sum_force(f, 8, tot);
    check_rel(tot[2], 3.0, 1e-14, "top face");
    cr_assert(fabs(tot[0]) < 1e-15 && fabs(tot[1]) < 1e-15);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_load, surface_pressure_cube_triangles) { surface_pressure_cube("triangles", CUBE_TRIS); }
Test(mechanical_load, surface_pressure_cube_quads) { surface_pressure_cube("quads", CUBE_QUADS); }

/* Quads get no tangent stiffness in SOFA (the frog of its
 * SurfacePressureForceField.scn diverges in quads, not in triangles): the
 * same numbers here, and a warning when quads are pressed with
 * useTangentStiffness on; none for triangles or with it off. */
Test(mechanical_load, surface_pressure_quads_without_stiffness_are_said)
{
    test_rt t;
    st_scene *s;
    const char *kv[] = {"pressure", "3"};
    pressure_scene(&t, &s, CUBE_POINTS, "quads", CUBE_QUADS, "SurfacePressureForceField", kv, 2);
    cr_assert(strstr(t.log, "6 quads are pressed, and as in SOFA quads get no tangent stiffness"),
              "%s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
    pressure_scene(&t, &s, CUBE_POINTS, "triangles", CUBE_TRIS, "SurfacePressureForceField", kv,
                   2);
    cr_assert_null(strstr(t.log, "tangent stiffness"), "%s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
    const char *kv_off[] = {"pressure", "3", "useTangentStiffness", "false"};
    pressure_scene(&t, &s, CUBE_POINTS, "quads", CUBE_QUADS, "SurfacePressureForceField", kv_off,
                   4);
    cr_assert_null(strstr(t.log, "tangent stiffness"), "%s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_load, surface_pressure_pulse_and_volume_conservation)
{
    /* pulseMode: from 0 up to 2 at 1 per second, then back down to 0.5,
     * one move per step of 0.5 s. */
    test_rt t;
    st_scene *s;
    const char *kv[] = {"pressure", "2", "pulseMode", "true", "pressureSpeed", "1",
                        "pressureLowerBound", "0.5", "triangleIndices", "2 3"};
    st_component *ff = pressure_scene(&t, &s, CUBE_POINTS, "triangles", CUBE_TRIS,
                                      "SurfacePressureForceField", kv, 10);
    /* Fix the points: only the pressure history matters. */
    const double want[] = {0.5, 1, 1.5, 2, 1.5, 1, 0.5, 1, 1.5};
    double f[24], tot[3];
    st_system *sys = s->systems[0];
    for (int n = 0; n < 9; n++) {
        step_ok(s);
        memcpy(sys->x, sys->x0, 24 * sizeof(double));
        forces_of(s, ff, f, 8);
        sum_force(f, 8, tot);
        check_rel(tot[2], want[n], 1e-14, "pulse pressure x top area");
    }
    st_scene_destroy(&s);
    test_rt_close(&t);

    /* volumeConservationMode: p V0 / V; the first call takes V0. */
    const char *kv2[] = {"pressure", "3", "volumeConservationMode", "true"};
    ff = pressure_scene(&t, &s, CUBE_POINTS, "triangles", CUBE_TRIS, "SurfacePressureForceField",
                        kv2, 4);
    forces_of(s, ff, f, 8);
    check_rel(*(double *)st_component_field_ptr(ff, st_component_field(ff, "defaultVolume")), 1.0,
              1e-14, "defaultVolume");
    sys = s->systems[0];
    for (size_t i = 0; i < 24; i++)
        sys->x[i] = 2 * sys->x0[i]; /* V = 8: p = 3/8, top area 4 */
    double g[24] = {0};
    ff->cls->forcefield->add_force(ff, &sys->mp, g, sys->x, sys->v);
    double topz = 0;
    for (int i = 4; i < 8; i++)
        topz += g[3 * i + 2];
    /* The side faces add no z force; the top's is 3/8 x 4 (vertices
     * 4..7 carry all of it). */
    check_rel(topz, 1.5, 1e-14, "p V0 / V x area");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(mechanical_load, tait_ideal_gas_cube)
{
    /* gamma = 1: P = p0 - B (V / v0 - 1); the unit cube (v0 = 1) scaled by
     * s = 1.1: V = 1.331. Each face carries P x area: the top face's four
     * vertices get P s^2 along z in total. */
    test_rt t;
    st_scene *s;
    const char *kv[] = {"p0", "2", "B", "10", "gamma", "1"};
    st_component *ff = pressure_scene(&t, &s, CUBE_POINTS, "quads", CUBE_QUADS,
                                      "TaitSurfacePressureForceField", kv, 6);
    double *iv = st_component_field_ptr(ff, st_component_field(ff, "initialVolume"));
    double *cp = st_component_field_ptr(ff, st_component_field(ff, "currentPressure"));
    double *ck = st_component_field_ptr(ff, st_component_field(ff, "currentStiffness"));
    check_rel(*iv, 1.0, 1e-15, "initialVolume");
    check_rel(*cp, 2.0, 1e-15, "p at rest");
    check_rel(*ck, -10.0, 1e-15, "dP/dV");
    cr_assert_eq(((st_array *)st_component_field_ptr(ff, st_component_field(ff,
                                                                            "pressureTriangles")))
                     ->n,
                 12);
    st_system *sys = s->systems[0];
    for (size_t i = 0; i < 24; i++)
        sys->x[i] = 1.1 * sys->x0[i] + 0.3;
    double f[24], tot[3];
    forces_of(s, ff, f, 8);
    double V = 1.331, P = 2 - 10 * (V - 1);
    check_rel(*(double *)st_component_field_ptr(ff, st_component_field(ff, "currentVolume")), V,
              1e-14, "V");
    check_rel(*cp, P, 1e-13, "P");
    sum_force(f, 8, tot);
    for (int k = 0; k < 3; k++)
        cr_assert(fabs(tot[k]) < 1e-13, "closed: %g", tot[k]);
    double topz = 0;
    for (int i = 4; i < 8; i++)
        topz += f[3 * i + 2];
    /* The top vertices also carry the side faces' forces, which have no z
     * component. */
    check_rel(topz, P * 1.21, 1e-13, "top face");
    /* Injection: v0 follows injectedVolume at maxInjectionRate. */
    set(ff, "injectedVolume", "0.4");
    set(ff, "maxInjectionRate", "0.5");
    memcpy(sys->x, sys->x0, 24 * sizeof(double));
    step_ok(s);
    check_rel(*(double *)st_component_field_ptr(ff, st_component_field(ff, "v0")), 1.25, 1e-15,
              "v0 after one step");
    step_ok(s);
    check_rel(*(double *)st_component_field_ptr(ff, st_component_field(ff, "v0")), 1.4, 1e-15,
              "v0 after two steps");
    st_scene_destroy(&s);
    test_rt_close(&t);
}
