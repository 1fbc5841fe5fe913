/* test_implicit.c - implicit integrators against SOFA's own solver tests
 * (sofa-notes section 10: EulerImplicitSolver and NewmarkImplicitSolver on
 * the mass-spring scene, convergence to equilibrium) and a single spring
 * stepped with every EulerImplicitSolver option against its closed-form
 * recurrence. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* ---- the mass-spring scene of SOFA's ODESolverSpringTest ---- */

/* prepareScene(K, m, L0 = 1) with the given solver line and linear solver
 * line, gravity (0, -10, 0), dt h. The mass's own rayleighMass and the
 * spring's rayleighStiffness are extra (settee) knobs, 0 in SOFA's tests. */
static st_scene *spring_scene(test_rt *t, double K, double m, double h, const char *solver,
                              const char *linsolver, const char *mass_extra,
                              const char *spring_extra)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -10, 0]\n"
             "  dt: %.17g\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative,\n"
             "                                    LinearSolver.Direct, Mass, SolidMechanics.Spring,\n"
             "                                    Constraint.Projective]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - %s\n"
             "    - SpringForceField: {name: ff, spring: \"0 0 %.17g 0 1\", %s\n"
             "                         object1: \"@FixedPointNode/fixedPoint\",\n"
             "                         object2: \"@MassNode/massDof\"}\n"
             "    - %s\n"
             "  children:\n"
             "    - name: FixedPointNode\n"
             "      objects:\n"
             "        - MechanicalObject: {name: fixedPoint, template: Vec3d, position: [0, 2, 0],\n"
             "                             velocity: [0, 0, 0]}\n"
             "        - FixedProjectiveConstraint: {name: fixed, indices: [0]}\n"
             "    - name: MassNode\n"
             "      objects:\n"
             "        - MechanicalObject: {name: massDof, template: Vec3d, position: [0, 1, 0],\n"
             "                             velocity: [0, 0, 0]}\n"
             "        - UniformMass: {name: mass, totalMass: %.17g %s}\n",
             h, linsolver, K, spring_extra ? spring_extra : "", solver, m,
             mass_extra ? mass_extra : "");
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t->log);
    return s;
}

static st_mstate *find_state(st_scene *s, const char *name)
{
    st_mstate *all[8];
    size_t n = st_scene_states(s, all, 8);
    for (size_t i = 0; i < n && i < 8; i++)
        if (strcmp(all[i]->base.name, name) == 0)
            return all[i];
    cr_assert_fail("no state %s", name);
    return NULL;
}

static st_component *find_object(st_scene *s, const char *cls)
{
    st_component *all[32];
    size_t n = st_node_find_all(st_scene_root(s), ST_ROLE_ANY, ST_SEARCH_DOWN, all, 32);
    for (size_t i = 0; i < n && i < 32; i++)
        if (strcmp(all[i]->cls->name, cls) == 0)
            return all[i];
    cr_assert_fail("no %s", cls);
    return NULL;
}

static const char *const CG_TIGHT = "CGLinearSolver: {iterations: 3000, tolerance: 1e-12, "
                                    "threshold: 1e-12}";

/* ---- 10.2 EulerImplicitSolverDynamic_test ---- */

typedef struct ei_case {
    double K, m, h, rm, rk, tol, p1, p2, plast;
} ei_case;

static void run_euler_dynamic(const ei_case *c, const char *linsolver, double tol)
{
    test_rt t;
    test_rt_open(&t);
    char solver[256];
    snprintf(solver, sizeof solver,
             "EulerImplicitSolver: {rayleighStiffness: %.17g, rayleighMass: %.17g}", c->rk, c->rm);
    st_scene *s = spring_scene(&t, c->K, c->m, c->h, solver, linsolver, NULL, NULL);
    st_mstate *ms = find_state(s, "massDof");
    const double z0 = 1.0, g = 10.0, K = c->K, m = c->m, h = c->h;
    const double D = h * (h + c->rk) * K + (1 + h * c->rm) * m;
    const double cc = -(c->rk + h) * K - c->rm * m;
    double p = 1.0, v = 0.0, plast = 0.0;
    int i = 0;
    st_error err = {0};
    do {
        double y = ms->position.r[1];
        cr_assert(fabs(y - p) <= tol, "step %d: y = %.17g, reference %.17g (diff %.3g)", i, y, p,
                  fabs(y - p));
        if (i == 1)
            cr_assert(fabs(y - c->p1) <= tol, "p1 = %.17g, want %.17g", y, c->p1);
        if (i == 2)
            cr_assert(fabs(y - c->p2) <= tol, "p2 = %.17g, want %.17g", y, c->p2);
        plast = y;
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step: %s", err.msg);
        v = v + h * (-K * (p - z0) - m * g + cc * v) / D;
        p = p + h * v;
        i++;
    } while (st_scene_time(s) < 2.0);
    cr_assert_eq(i, (int)(2.0 / h + 0.5) + (h < 0.005 ? 1 : 0), "comparisons: %d", i);
    cr_assert(fabs(plast - c->plast) <= tol * 10, "last = %.17g, want %.17g", plast, c->plast);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static const ei_case EI_CASES[] = {
    {100, 10, 0.1, 0, 0, 5e-16, 0.9090909090909091, 0.743801652892562, 0.3616232443589806},
    {100, 10, 0.1, 0.1, 0.1, 5e-16, 0.9173553719008265, 0.7732395328187965, 0.08907262755818457},
    {10, 10, 0.01, 0, 0.1, 6e-15, 0.9990010987913296, 0.9970044937383383, -12.208951370938662},
    {10, 100, 0.001, 0.1, 0, 5e-16, 0.9999900010008999, 0.9999700040044989, -17.12944903531882},
};

Test(euler_implicit_dynamic, high_dt_without_damping) { run_euler_dynamic(&EI_CASES[0], CG_TIGHT, EI_CASES[0].tol); }
Test(euler_implicit_dynamic, high_dt_with_damping) { run_euler_dynamic(&EI_CASES[1], CG_TIGHT, EI_CASES[1].tol); }
Test(euler_implicit_dynamic, medium_dt_with_rayleigh_stiffness) { run_euler_dynamic(&EI_CASES[2], CG_TIGHT, EI_CASES[2].tol); }
Test(euler_implicit_dynamic, small_dt_with_rayleigh_mass, .timeout = 60) { run_euler_dynamic(&EI_CASES[3], CG_TIGHT, EI_CASES[3].tol); }

/* The same cases with the direct solvers (round-off of a factorization
 * instead of one CG step: 1e-12). */
Test(euler_implicit_dynamic, sparse_ldl)
{
    for (int k = 0; k < 3; k++)
        run_euler_dynamic(&EI_CASES[k], "SparseLDLSolver: {template: CompressedRowSparseMatrixMat3x3d}",
                          1e-12);
}

Test(euler_implicit_dynamic, sparse_lu)
{
    for (int k = 0; k < 3; k++)
        run_euler_dynamic(&EI_CASES[k], "SparseLUSolver: {}", 1e-12);
}

Test(euler_implicit_dynamic, assembled_cg)
{
    for (int k = 0; k < 3; k++)
        run_euler_dynamic(&EI_CASES[k],
                          "CGLinearSolver: {template: CompressedRowSparseMatrixMat3x3d, "
                          "iterations: 3000, tolerance: 1e-12, threshold: 1e-12}",
                          1e-12);
}

/* ---- every EulerImplicitSolver option on a single spring ---- */

typedef struct ei_opts {
    double rk, rm;       /* solver Rayleigh */
    double rsc, rmc;     /* component Rayleigh (spring, mass) */
    double vd;           /* vdamping */
    bool trap, first, residual;
} ei_opts;

static void run_options(const ei_opts *o, const char *linsolver)
{
    test_rt t;
    test_rt_open(&t);
    const double K = 50, m = 2, h = 0.02, z0 = 1.0, g = 10.0;
    char solver[512], mextra[64], sextra[64];
    snprintf(solver, sizeof solver,
             "EulerImplicitSolver: {rayleighStiffness: %.17g, rayleighMass: %.17g, vdamping: "
             "%.17g, trapezoidalScheme: %s, firstOrder: %s, computeResidual: %s}",
             o->rk, o->rm, o->vd, o->trap ? "true" : "false", o->first ? "true" : "false",
             o->residual ? "true" : "false");
    snprintf(mextra, sizeof mextra, ", rayleighMass: %.17g", o->rmc);
    snprintf(sextra, sizeof sextra, "rayleighStiffness: %.17g,", o->rsc);
    st_scene *s = spring_scene(&t, K, m, h, solver, linsolver, mextra, sextra);
    st_mstate *ms = find_state(s, "massDof");
    st_component *ei = find_object(s, "EulerImplicitSolver");
    const st_field *fres = st_component_field(ei, "residual");
    cr_assert_not_null(fres);
    const double *res = st_component_field_ptr(ei, fres);
    const double tr = o->trap ? 0.5 : 1.0;
    double p = 1.0, v = 0.0;
    st_error err = {0};
    for (int i = 0; i < 150; i++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step: %s", err.msg);
        const double f = -K * (p - z0) - m * g;
        if (o->first) {
            /* (M - tr h K_sofa) v' = f with K_sofa = -K; component Rayleigh
             * does not enter (bFactor = 0). */
            v = f / (m + tr * h * K);
        } else {
            const double mf = 1 + tr * h * o->rm, kf = -tr * h * (tr * h + o->rk);
            const double bfac = -tr * h;
            const double A = (mf - bfac * o->rmc) * m - (kf + bfac * o->rsc) * K;
            const double b = h * (f - o->rm * m * v - (h * tr + o->rk) * K * v);
            v = v + b / A;
        }
        p = p + h * v;
        if (o->vd != 0.0)
            v *= exp(-h * o->vd);
        const double scale = fabs(p) > 1 ? fabs(p) : 1;
        cr_assert(fabs(ms->position.r[1] - p) <= 1e-12 * scale, "step %d: y %.17g, want %.17g",
                  i + 1, ms->position.r[1], p);
        cr_assert(fabs(ms->velocity.r[1] - v) <= 1e-12 * (fabs(v) > 1 ? fabs(v) : 1),
                  "step %d: vy %.17g, want %.17g", i + 1, ms->velocity.r[1], v);
        cr_assert_eq(ms->position.r[0], 0.0);
        cr_assert_eq(ms->position.r[2], 0.0);
        if (o->residual) {
            /* r = -h f(x', v'), projected; residual = r.r */
            const double f1 = -K * (p - z0) - m * g;
            const double want = h * h * f1 * f1;
            cr_assert(fabs(*res - want) <= 1e-9 * (want > 1 ? want : 1),
                      "step %d: residual %.17g, want %.17g", i + 1, *res, want);
        } else {
            cr_assert_eq(*res, DBL_MAX, "residual untouched without computeResidual");
        }
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static const char *const LDL = "SparseLDLSolver: {template: CompressedRowSparseMatrixMat3x3d}";

Test(euler_implicit_options, defaults) { run_options(&(ei_opts){0}, LDL); }
Test(euler_implicit_options, rayleigh) { run_options(&(ei_opts){.rk = 0.05, .rm = 0.3}, LDL); }
Test(euler_implicit_options, component_rayleigh)
{
    run_options(&(ei_opts){.rk = 0.05, .rm = 0.3, .rsc = 0.02, .rmc = 0.7}, LDL);
}
Test(euler_implicit_options, trapezoidal)
{
    run_options(&(ei_opts){.rk = 0.05, .rm = 0.3, .trap = true}, LDL);
}
Test(euler_implicit_options, first_order) { run_options(&(ei_opts){.first = true}, LDL); }
Test(euler_implicit_options, first_order_trapezoidal)
{
    run_options(&(ei_opts){.first = true, .trap = true}, LDL);
}
Test(euler_implicit_options, vdamping) { run_options(&(ei_opts){.vd = 1.5, .rk = 0.01}, LDL); }
Test(euler_implicit_options, residual) { run_options(&(ei_opts){.residual = true}, LDL); }
Test(euler_implicit_options, everything_cg)
{
    run_options(&(ei_opts){.rk = 0.05, .rm = 0.3, .rsc = 0.02, .rmc = 0.7, .vd = 0.5,
                           .trap = true, .residual = true},
                CG_TIGHT);
}
Test(euler_implicit_options, everything_lu)
{
    run_options(&(ei_opts){.rk = 0.05, .rm = 0.3, .rsc = 0.02, .rmc = 0.7, .vd = 0.5,
                           .trap = true, .residual = true},
                "SparseLUSolver: {}");
}

/* ---- integration factors and the linear solver requirement ---- */

Test(euler_implicit, integration_factors)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = spring_scene(&t, 10, 1, 0.1, "EulerImplicitSolver: {}", CG_TIGHT, NULL, NULL);
    st_component *ei = find_object(s, "EulerImplicitSolver");
    const st_odesolver_ops *o = ei->cls->odesolver;
    const double dt = 0.25;
    cr_assert_eq(o->integration_factor(ei, 0, 0, dt), 1.0);
    cr_assert_eq(o->integration_factor(ei, 1, 0, dt), dt);
    cr_assert_eq(o->integration_factor(ei, 2, 0, dt), 0.0);
    cr_assert_eq(o->integration_factor(ei, 1, 1, dt), 1.0);
    cr_assert_eq(o->integration_factor(ei, 0, 1, dt), 0.0);
    cr_assert_eq(o->integration_factor(ei, 2, 2, dt), 0.0);
    cr_assert_eq(o->solution_integration_factor(ei, 0, dt), dt);
    cr_assert_eq(o->solution_integration_factor(ei, 1, dt), 1.0);
    cr_assert_eq(o->solution_integration_factor(ei, 2, dt), 1.0 / dt);
    cr_assert_eq(o->velocity_integration_factor(ei, dt), 1.0);
    cr_assert_eq(o->position_integration_factor(ei, dt), dt);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(euler_implicit, missing_linear_solver_is_an_error)
{
    test_rt t;
    test_rt_open(&t);
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  name: root\n"
                       "  objects:\n"
                       "    - RequiredPlugin: {pluginName: [ODESolver.Backward, Mass]}\n"
                       "    - EulerImplicitSolver: {name: odesolver}\n"
                       "    - MechanicalObject: {position: [0, 0, 0]}\n"
                       "    - UniformMass: {totalMass: 1}\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "A linear solver is required"), "message: %s", err.msg);
    cr_assert(strstr(err.path, "odesolver"), "path: %s", err.path);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The three implicit solvers find their linear solver the same way: none
 * is SOFA's "required" error, a link to something else is refused. */
Test(euler_implicit, linear_solver_lookup_of_every_implicit_solver)
{
    static const char *const solvers[] = {"EulerImplicitSolver", "NewmarkImplicitSolver",
                                          "StaticSolver"};
    for (size_t k = 0; k < 3; k++)
        for (int linked = 0; linked < 2; linked++) {
            test_rt t;
            test_rt_open(&t);
            char yaml[1024];
            snprintf(yaml, sizeof yaml,
                     "format: settee/1\n"
                     "root:\n"
                     "  name: root\n"
                     "  objects:\n"
                     "    - RequiredPlugin: {pluginName: [ODESolver.Backward, Mass]}\n"
                     "    - %s: {name: odesolver%s}\n"
                     "    - MechanicalObject: {name: dofs, position: [0, 0, 0]}\n"
                     "    - UniformMass: {totalMass: 1}\n",
                     solvers[k], linked ? ", linearSolver: \"@dofs\"" : "");
            st_scene *s = NULL;
            st_error err = {0};
            st_status st = test_load_string(&t, yaml, &s, &err);
            if (st == ST_OK)
                st = st_scene_init(s, &err);
            cr_assert_neq(st, ST_OK, "%s", solvers[k]);
            if (linked)
                cr_assert(strstr(err.msg, "linear solver") && strstr(err.msg, "linearSolver"),
                          "%s: %s", solvers[k], err.msg);
            else
                cr_assert(strstr(err.msg, "A linear solver is required") &&
                              strstr(err.path, "odesolver"),
                          "%s: %s at %s", solvers[k], err.msg, err.path);
            st_scene_destroy(&s);
            test_rt_close(&t);
        }
}

Test(euler_implicit, solve_constraint_warns)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = spring_scene(&t, 10, 1, 0.1, "EulerImplicitSolver: {solveConstraint: true}",
                               CG_TIGHT, NULL, NULL);
    cr_assert(strstr(t.log, "solveConstraint"), "log: %s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- 10.6 NewmarkImplicitSolverDynamic_test ---- */

static void run_newmark(double K, double m, double h, double rm, double rk, double tol,
                        double p1, double p2, double plast)
{
    test_rt t;
    test_rt_open(&t);
    char solver[256];
    snprintf(solver, sizeof solver,
             "NewmarkImplicitSolver: {rayleighStiffness: %.17g, rayleighMass: %.17g}", rk, rm);
    st_scene *s = spring_scene(&t, K, m, h, solver, CG_TIGHT, NULL, NULL);
    st_mstate *ms = find_state(s, "massDof");
    const double z0 = 1, g = 10, be = 0.25, ga = 0.5;
    const double D = (h * h * be + h * ga * rk) * K + m * (1 + h * ga * rm);
    const double cA = h * (-rm * m * (1 - ga) - K * h * (0.5 - be) - rk * K * (1 - ga));
    const double cV = -rm * m - K * (h + rk), c2 = h * h * (1 - 2 * be) / 2;
    double p = 1, v = 0, a = -g, last = 0;
    int i = 0;
    st_error err = {0};
    do {
        double y = ms->position.r[1];
        cr_assert(fabs(y - p) <= tol, "step %d: y %.17g, reference %.17g", i, y, p);
        if (i == 1)
            cr_assert(fabs(y - p1) <= tol, "p1 %.17g want %.17g", y, p1);
        if (i == 2)
            cr_assert(fabs(y - p2) <= tol, "p2 %.17g want %.17g", y, p2);
        last = y;
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step: %s", err.msg);
        double an = (-K * (p - z0) - m * g + cA * a + cV * v) / D;
        double vn = v + h * (1 - ga) * a + h * ga * an;
        p = p + h * v + c2 * a + h * h * be * an;
        v = vn;
        a = an;
        i++;
    } while (st_scene_time(s) < 2.0);
    cr_assert(fabs(last - plast) <= 10 * tol, "last %.17g want %.17g", last, plast);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(newmark_dynamic, high_dt_without_damping)
{
    run_newmark(100, 10, 0.1, 0, 0, 5e-16, 0.9512195121951219, 0.8096371207614514,
                0.9479092900428358);
}
Test(newmark_dynamic, high_dt_with_damping)
{
    run_newmark(100, 10, 0.1, 0.1, 0.1, 5e-16, 0.9537037037037037, 0.8238168724279836,
                0.30531499901742104);
}
Test(newmark_dynamic, medium_dt_with_rayleigh_stiffness)
{
    run_newmark(10, 10, 0.01, 0, 0.1, 6e-15, 0.9995002623622599, 0.9980015988719938,
                -12.249678891851662);
}
Test(newmark_dynamic, small_dt_with_rayleigh_mass, .timeout = 60)
{
    run_newmark(10, 100, 0.001, 0.1, 0, 9e-16, 0.9999950002501125, 0.9999800015008998,
                -17.12295702894726);
}

/* ---- 10.3 EulerImplicitSolverStatic_test A: two particles to equilibrium ---- */

Test(euler_implicit_static, two_particles_to_equilibrium)
{
    test_rt t;
    test_rt_open(&t);
    const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  name: root\n"
        "  gravity: [0, -9.81, 0]\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,\n"
        "                                    SolidMechanics.Spring, Constraint.Projective]}\n"
        "    - DefaultAnimationLoop: {}\n"
        "    - EulerImplicitSolver: {}\n"
        "    - CGLinearSolver: {iterations: 25, tolerance: 1e-5, threshold: 1e-5}\n"
        "  children:\n"
        "    - name: string_1\n"
        "      objects:\n"
        "        - MechanicalObject: {name: dofs, size: 2, position: [0, 1, 0, 0, 0, 0]}\n"
        "        - UniformMass: {vertexMass: 1.0}\n"
        "        - SpringForceField: {spring: \"0 1 1000 0.1 1\"}\n"
        "        - FixedProjectiveConstraint: {indices: [0]}\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s\n%s", err.msg, t.log);
    st_mstate *ms = find_state(s, "dofs");
    double prev[12];
    int steps = 0;
    for (;;) {
        memcpy(prev, ms->position.r, 6 * sizeof(double));
        memcpy(prev + 6, ms->velocity.r, 6 * sizeof(double));
        cr_assert_eq(st_scene_step(s, 1.0, &err), ST_OK, "%s", err.msg);
        steps++;
        double change = 0;
        for (int k = 0; k < 6; k++) {
            change = fmax(change, fabs(ms->position.r[k] - prev[k]));
            change = fmax(change, fabs(ms->velocity.r[k] - prev[6 + k]));
        }
        if (change <= 1e-4)
            break;
        cr_assert_lt(steps, 100, "no convergence in 100 steps");
    }
    cr_assert(fabs(ms->position.r[3]) <= 1e-4);
    cr_assert(fabs(ms->position.r[4] + 0.00981) <= 1e-4, "y = %.17g", ms->position.r[4]);
    cr_assert(fabs(ms->position.r[5]) <= 1e-4);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- StaticSolver: a linear spring reaches equilibrium in one Newton step ---- */

Test(static_solver, linear_spring_equilibrium)
{
    test_rt t;
    test_rt_open(&t);
    /* The spring's stiffness acts along y only: x and z are held by a
     * partial constraint, else -K is singular. */
    st_scene *s = spring_scene(&t, 100, 10, 0.1, "StaticSolver: {}", "SparseLDLSolver: {}",
                               "}\n        - PartialFixedProjectiveConstraint: {indices: [0], "
                               "fixedDirections: [1, 0, 1]",
                               NULL);
    cr_assert(strstr(t.log, "Newton-Raphson solver is required"), "log: %s", t.log);
    st_mstate *ms = find_state(s, "massDof");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    /* K (1 - y) = m g along the spring: y = 1 - m g / K. The spring stays
     * vertical, so the problem is linear: one Newton step is exact. */
    cr_assert(fabs(ms->position.r[1] - (1.0 - 10.0 * 10.0 / 100.0)) <= 1e-12, "y = %.17g",
              ms->position.r[1]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- 10.8 RungeKutta4, RungeKutta2 and 10.10 CentralDifference (ODESolver.Forward) ---- */

typedef struct explicit_case {
    double K, m, h, rm, tol, p1, p2, plast;
} explicit_case;

/* order: 4 or 2 for the Runge-Kutta recurrences, 0 for central differences. */
static void run_explicit(const char *solver, const explicit_case *c, int order)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_load_plugin(t.rt, "ODESolver.Forward", &err), ST_OK, "%s", err.msg);
    st_scene *s = spring_scene(&t, c->K, c->m, c->h, solver, CG_TIGHT, NULL, NULL);
    st_mstate *ms = find_state(s, "massDof");
    const double z0 = 1, g = 10, K = c->K, m = c->m, h = c->h, rm = c->rm;
#define ACC(p) ((-K * ((p) - z0) - m * g) / m)
    double p = 1, v = 0, last = 0;
    int i = 0;
    do {
        double y = ms->position.r[1];
        cr_assert(fabs(y - p) <= c->tol, "step %d: y %.17g, reference %.17g", i, y, p);
        if (i == 1)
            cr_assert(fabs(y - c->p1) <= c->tol, "p1 %.17g want %.17g", y, c->p1);
        if (i == 2)
            cr_assert(fabs(y - c->p2) <= c->tol, "p2 %.17g want %.17g", y, c->p2);
        last = y;
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step: %s", err.msg);
        if (order == 2) {
            double a1 = ACC(p), vm = v + h / 2 * a1, a2 = ACC(p + h / 2 * v);
            p = p + h * vm;
            v = v + h * a2;
        } else if (order == 4) {
            double k1v = v, k1a = ACC(p);
            double k2v = v + h / 2 * k1a, k2a = ACC(p + h / 2 * k1v);
            double k3v = v + h / 2 * k2a, k3a = ACC(p + h / 2 * k2v);
            double k4v = v + h * k3a, k4a = ACC(p + h * k3v);
            p = p + h / 6 * k1v + h / 3 * k2v + h / 3 * k3v + h / 6 * k4v;
            v = v + h / 6 * k1a + h / 3 * k2a + h / 3 * k3a + h / 6 * k4a;
        } else {
            double a = ACC(p);
            if (rm == 0)
                v = v + h * a;
            else
                v = v * ((1 / h - rm / 2) / (1 / h + rm / 2)) + a / (1 / h + rm / 2);
            p = p + h * v;
        }
        i++;
    } while (st_scene_time(s) < 2.0);
#undef ACC
    cr_assert(fabs(last - c->plast) <= 10 * c->tol, "last %.17g want %.17g", last, c->plast);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(runge_kutta4_dynamic, cases, .timeout = 60)
{
    const explicit_case cs[] = {
        {100, 10, 0.01, 0, 5e-16, 0.9995000416666667, 0.998000666597224, 0.9999524951951307},
        {1000, 10, 0.1, 0, 5e-16, 0.9541666666666666, 0.8598958333333333, 0.9889454735232635},
        {100, 100, 0.001, 0, 9e-16, 0.9999950000004166, 0.9999800000066665, -13.16146836547134},
    };
    for (int k = 0; k < 3; k++)
        run_explicit("RungeKutta4Solver: {}", &cs[k], 4);
}

/* SOFA's RungeKutta2Solver (midpoint): the same spring, first positions
 * and the one before the last step from the recurrence by hand (time summed
 * in steps of h, as the scene sums it, until it reaches 2). */
Test(runge_kutta2_dynamic, cases, .timeout = 60)
{
    const explicit_case cs[] = {
        {100, 10, 0.01, 0, 5e-16, 0.9995, 0.99800025, 0.9999666003796429},
        {1000, 10, 0.1, 0, 5e-16, 0.95, 0.825, 0.41907138824462753},
        {100, 100, 0.001, 0, 9e-16, 0.999995, 0.9999800000025, -13.161471397502089},
    };
    for (int k = 0; k < 3; k++)
        run_explicit("RungeKutta2Solver: {}", &cs[k], 2);
}

Test(central_difference_dynamic, cases, .timeout = 60)
{
    const explicit_case cs[] = {
        {100, 10, 0.01, 0, 4e-16, 0.999, 0.997001, 0.9997916248721143},
        {1000, 10, 0.1, 0.1, 5e-16, 0.900497512437811, 0.8014900621271751, 0.9004682986081558},
        {100, 100, 0.001, 0.1, 2e-16, 0.999990000499975, 0.999970002509824, -12.336614205526198},
    };
    for (int k = 0; k < 3; k++) {
        char solver[128];
        snprintf(solver, sizeof solver, "CentralDifferenceSolver: {rayleighMass: %.17g}",
                 cs[k].rm);
        run_explicit(solver, &cs[k], 0);
    }
}
