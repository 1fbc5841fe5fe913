/* test_newton_newmark.c - StaticSolver + NewtonRaphsonSolver (line search,
 * statuses, each convergence test, residualGraph, updateStateWhenDiverged,
 * warnings) on a one-point scene driven by a test-only nonlinear force
 * field, checked against closed forms and against a scalar Newton iteration
 * written here from sofa-notes 3.4; and the integration factors of
 * NewmarkImplicitSolver. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* ---- TestLawForceField: a per-axis nonlinear force ----
 *
 * For each point and axis d, with u = x_d - center_d:
 *   f_d = -(stiffness_d u + atan_d atan(u) + quadratic_d u^2 + offset_d)
 * so K = df/dx is diagonal with K_dd = -(stiffness_d + atan_d / (1 + u^2)
 * + 2 quadratic_d u), taken at the u of the last add_force. It counts its
 * add_force calls: one per residual evaluation of the StaticSolver. */

#define LAW_MAXP 4

typedef struct test_law {
    st_component base;
    st_vec3 k, a, q, b, c;
    double u[3 * LAW_MAXP];  /* u at the last add_force */
    unsigned long nforce;    /* add_force calls */
} test_law;

static const st_field test_law_fields[] = {
    ST_VEC3(test_law, k, "stiffness", "0 0 0", "linear coefficient per axis"),
    ST_VEC3(test_law, a, "atan", "0 0 0", "atan coefficient per axis"),
    ST_VEC3(test_law, q, "quadratic", "0 0 0", "u^2 coefficient per axis"),
    ST_VEC3(test_law, b, "offset", "0 0 0", "constant term per axis"),
    ST_VEC3(test_law, c, "center", "0 0 0", "u = x - center"),
    ST_FIELD_END};

static void law_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    (void)mp;
    (void)v;
    test_law *s = (test_law *)self;
    st_mstate *ms = st_component_mstate(self);
    double *fs = st_slice(f, ms);
    const double *xs = st_slice(x, ms);
    for (size_t i = 0; i < ms->n && i < LAW_MAXP; i++)
        for (int d = 0; d < 3; d++) {
            const double u = xs[3 * i + d] - s->c[d];
            s->u[3 * i + d] = u;
            fs[3 * i + d] -= s->k[d] * u + s->a[d] * atan(u) + s->q[d] * u * u + s->b[d];
        }
    s->nforce++;
}

static double law_kdd(const test_law *s, size_t i, int d)
{
    const double u = s->u[3 * i + d];
    return -(s->k[d] + s->a[d] / (1.0 + u * u) + 2.0 * s->q[d] * u);
}

static void law_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                           double kfactor, double bfactor)
{
    (void)mp;
    (void)bfactor;
    test_law *s = (test_law *)self;
    st_mstate *ms = st_component_mstate(self);
    double *dfs = st_slice(df, ms);
    const double *dxs = st_slice(dx, ms);
    for (size_t i = 0; i < ms->n && i < LAW_MAXP; i++)
        for (int d = 0; d < 3; d++)
            dfs[3 * i + d] += kfactor * law_kdd(s, i, d) * dxs[3 * i + d];
}

static void law_add_k_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m,
                                double kfactor)
{
    (void)mp;
    test_law *s = (test_law *)self;
    st_mstate *ms = st_component_mstate(self);
    for (size_t i = 0; i < ms->n && i < LAW_MAXP; i++) {
        double blk[9] = {0};
        for (int d = 0; d < 3; d++)
            blk[4 * d] = kfactor * law_kdd(s, i, d);
        st_matrix_add_block(m, ms, i, ms, i, blk);
    }
}

static const st_forcefield_ops law_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = law_add_force,
    .add_dforce = law_add_dforce,
    .add_k_to_matrix = law_add_k_to_matrix,
};

static const st_class test_law_class = {
    .struct_size = sizeof(st_class),
    .name = "TestLawForceField",
    .category = "ForceField",
    .description = "per-axis nonlinear test force",
    .instance_size = sizeof(test_law),
    .fields = test_law_fields,
    .forcefield = &law_ops,
};

/* ---- the NewtonRaphsonSolver's data and the scene ---- */

typedef struct nr_opts {
    unsigned max_it;
    double rs, ri, ar, re, ae; /* the five thresholds, in SOFA's test order */
    unsigned max_ls;
    double coef;
    bool keep_diverged;        /* updateStateWhenDiverged */
    bool warn_ls, warn_div;
} nr_opts;

/* Every criterion disabled, one iteration, one line-search try. */
static nr_opts opts_none(void)
{
    return (nr_opts){.max_it = 1, .max_ls = 1, .coef = 0.5, .keep_diverged = true,
                     .warn_ls = true, .warn_div = true};
}

/* The scalar law along x: g(x) = k u + a atan(u) + q u^2 + b, u = x - c;
 * the residual is r = -g and the Jacobian of g is g'. */
typedef struct law1 {
    double k, a, q, b, c;
} law1;

static double g_of(const law1 *l, double x)
{
    const double u = x - l->c;
    return l->k * u + l->a * atan(u) + l->q * u * u + l->b;
}

static double dg_of(const law1 *l, double x)
{
    const double u = x - l->c;
    return l->k + l->a / (1.0 + u * u) + 2.0 * l->q * u;
}

typedef struct fixture {
    test_rt t;
    st_scene *s;
    st_mstate *ms;
    test_law *law;
    st_component *newton;
} fixture;

/* One point at (x0, 0, 0); along y and z a unit linear spring at rest, so
 * only x moves and |r|^2 is the x part alone. */
static void open_scene(fixture *fx, const nr_opts *o, const law1 *l, double x0)
{
    test_rt_open(&fx->t);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(fx->t.rt), &test_law_class, &err), ST_OK,
                 "%s", err.msg);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.1\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - NewtonRaphsonSolver: {name: newton, maxNbIterationsNewton: %u,\n"
             "        relativeSuccessiveStoppingThreshold: %.17g,\n"
             "        relativeInitialStoppingThreshold: %.17g,\n"
             "        absoluteResidualStoppingThreshold: %.17g,\n"
             "        relativeEstimateDifferenceThreshold: %.17g,\n"
             "        absoluteEstimateDifferenceThreshold: %.17g,\n"
             "        maxNbIterationsLineSearch: %u, lineSearchCoefficient: %.17g,\n"
             "        updateStateWhenDiverged: %s, warnWhenLineSearchFails: %s,\n"
             "        warnWhenDiverge: %s}\n"
             "    - StaticSolver: {name: static, newtonSolver: \"@newton\"}\n"
             "    - SparseLDLSolver: {}\n"
             "    - MechanicalObject: {name: dofs, position: [%.17g, 0, 0]}\n"
             "    - TestLawForceField: {name: law, stiffness: [%.17g, 1, 1],\n"
             "        atan: [%.17g, 0, 0], quadratic: [%.17g, 0, 0], offset: [%.17g, 0, 0],\n"
             "        center: [%.17g, 0, 0]}\n",
             o->max_it, o->rs, o->ri, o->ar, o->re, o->ae, o->max_ls, o->coef,
             o->keep_diverged ? "true" : "false", o->warn_ls ? "true" : "false",
             o->warn_div ? "true" : "false", x0, l->k, l->a, l->q, l->b, l->c);
    cr_assert_eq(test_load_string(&fx->t, yaml, &fx->s, &err), ST_OK, "load: %s\n%s", err.msg,
                 fx->t.log);
    cr_assert_eq(st_scene_init(fx->s, &err), ST_OK, "init: %s\n%s", err.msg, fx->t.log);
    fx->ms = (st_mstate *)test_find_object(fx->s, "dofs");
    fx->law = (test_law *)test_find_object(fx->s, "law");
    fx->newton = test_find_object(fx->s, "newton");
    cr_assert(fx->ms && fx->law && fx->newton);
}

static void close_scene(fixture *fx)
{
    st_scene_destroy(&fx->s);
    test_rt_close(&fx->t);
}

static const char *status_of(fixture *fx)
{
    const st_field *f = st_component_field(fx->newton, "status");
    cr_assert(f);
    return *(char **)st_component_field_ptr(fx->newton, f);
}

static const st_array *graph_of(fixture *fx)
{
    const st_field *f = st_component_field(fx->newton, "residualGraph");
    cr_assert(f);
    return (const st_array *)st_component_field_ptr(fx->newton, f);
}

/* One step; returns the number of residual evaluations it made. */
static unsigned long step(fixture *fx)
{
    st_error err = {0};
    const unsigned long before = fx->law->nforce;
    cr_assert_eq(st_scene_step(fx->s, 0, &err), ST_OK, "step: %s\n%s", err.msg, fx->t.log);
    return fx->law->nforce - before;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* ---- the reference: sofa-notes 3.4 on the scalar law, written anew ----
 * Trial points are x_i + alpha dx computed directly (the solver moves by
 * differences of alpha), so exact agreement is not expected in general. */

typedef struct ref_run {
    const char *status;
    double x;
    double graph[64];
    size_t ngraph;
    unsigned long evals;
    int ls_failures;
    bool failed_at[64];
} ref_run;

static void reference(const nr_opts *o, const law1 *l, double x0, ref_run *out)
{
    memset(out, 0, sizeof *out);
    double x = x0;
    double r0 = pow(g_of(l, x), 2);
    out->graph[out->ngraph++] = r0;
    out->evals = 1;
    out->status = "Running";
    if (o->ar > 0 && r0 <= o->ar * o->ar) {
        out->status = "ConvergedEquilibrium";
        out->x = x;
        return;
    }
    double prev = r0;
    bool done = false;
    for (unsigned it = 0; it < o->max_it && !done; it++) {
        const double xi = x, dx = -g_of(l, xi) / dg_of(l, xi);
        const unsigned tries = o->max_ls ? o->max_ls : 1;
        double alpha = 1.0, rn = 0.0;
        bool ok = false;
        for (unsigned t = 0; t < tries; t++, alpha *= o->coef) {
            x = xi + alpha * dx;
            rn = pow(g_of(l, x), 2);
            out->evals++;
            if (rn < prev) {
                ok = true;
                break;
            }
        }
        if (!ok) {
            out->ls_failures++;
            out->failed_at[it] = true;
            if (tries > 1) {
                x = xi + dx;
                rn = pow(g_of(l, x), 2);
                out->evals++;
            }
        }
        out->graph[out->ngraph++] = rn;
        if (o->rs > 0 && rn < o->rs * o->rs * prev)
            out->status = "ConvergedResidualSuccessiveRatio";
        else if (o->ri > 0 && rn < o->ri * o->ri * r0)
            out->status = "ConvergedResidualInitialRatio";
        else if (o->ar > 0 && rn < o->ar * o->ar)
            out->status = "ConvergedAbsoluteResidual";
        else if (o->re > 0 && xi * xi > 0 && dx * dx < o->re * o->re * xi * xi)
            out->status = "ConvergedRelativeEstimateDifference";
        else if (o->ae > 0 && dx * dx < o->ae * o->ae)
            out->status = "ConvergedAbsoluteEstimateDifference";
        done = strncmp(out->status, "Converged", 9) == 0;
        prev = rn;
    }
    if (!done) {
        out->status = "DivergedMaxIterations";
        if (!o->keep_diverged)
            x = x0;
    }
    out->x = x;
}

static bool close_to(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-300;
}

/* Runs one step and checks status, x, residualGraph and the number of
 * residual evaluations against the reference. */
static void check_against_reference(const nr_opts *o, const law1 *l, double x0,
                                    const char *want_status, size_t want_ngraph)
{
    ref_run ref;
    reference(o, l, x0, &ref);
    cr_assert_str_eq(ref.status, want_status, "reference itself: %s", ref.status);
    cr_assert_eq(ref.ngraph, want_ngraph, "reference itself: %zu entries", ref.ngraph);
    fixture fx;
    open_scene(&fx, o, l, x0);
    const unsigned long evals = step(&fx);
    cr_assert_str_eq(status_of(&fx), want_status, "log:\n%s", fx.t.log);
    cr_assert_eq(evals, ref.evals, "evaluations %lu, reference %lu", evals, ref.evals);
    cr_assert(close_to(fx.ms->position.r[0], ref.x, 1e-12), "x %.17g, reference %.17g",
              fx.ms->position.r[0], ref.x);
    cr_assert_eq(fx.ms->position.r[1], 0.0);
    cr_assert_eq(fx.ms->position.r[2], 0.0);
    const st_array *gr = graph_of(&fx);
    cr_assert_eq(gr->n, ref.ngraph, "graph has %zu entries, reference %zu", gr->n, ref.ngraph);
    for (size_t i = 0; i < gr->n; i++)
        cr_assert(close_to(gr->r[i], ref.graph[i], 1e-10), "graph[%zu] %.17g, reference %.17g", i,
                  gr->r[i], ref.graph[i]);
    close_scene(&fx);
}

/* ---- (a) the line search must shrink alpha ---- */

/* SOFA's square-root law: g = u^2 - 612 from x = 1, dx = 611 / 2 = 305.5.
 * alpha = 1, 1/2, 1/4, 1/8 give x = 306.5, 153.75, 77.375, 39.1875 and
 * |g| = 93330.25, 23027.06, 5374.89, 923.67, all above |g0| = 611; alpha =
 * 1/16 gives x = 20.09375, |g| = 208.24: the fifth try succeeds. Every x
 * here is exact in binary; the linear solver may round dx by an ulp. */
static const law1 sqrt612 = {.q = 1.0, .b = -612.0};

Test(newton_line_search, shrinks_alpha_until_the_residual_drops)
{
    nr_opts o = opts_none();
    o.max_ls = 5;
    fixture fx;
    open_scene(&fx, &o, &sqrt612, 1.0);
    cr_assert_str_eq(status_of(&fx), "Undefined");
    const unsigned long evals = step(&fx);
    cr_assert_eq(evals, 1 + 5, "r0 then five tries: %lu evaluations", evals);
    cr_assert(close_to(fx.ms->position.r[0], 20.09375, 1e-14), "x = %.17g", fx.ms->position.r[0]);
    /* No criterion enabled: one iteration, no convergence, no line-search
     * failure (the fifth try succeeded). */
    cr_assert_str_eq(status_of(&fx), "DivergedMaxIterations");
    cr_assert_eq(count(fx.t.log, "Line search failed"), 0, "%s", fx.t.log);
    cr_assert_eq(count(fx.t.log, "Newton-Raphson method failed to converge after 1 "
                                 "iteration(s)"),
                 1, "%s", fx.t.log);
    const st_array *gr = graph_of(&fx);
    cr_assert_eq(gr->n, 2);
    cr_assert_eq(gr->r[0], 611.0 * 611.0);
    const double g1 = 20.09375 * 20.09375 - 612.0;
    cr_assert(close_to(gr->r[1], g1 * g1, 1e-12), "%.17g", gr->r[1]);
    close_scene(&fx);
}

/* atan from x = 2: dx = -5 atan 2 = -5.5357; the full step lands on
 * -3.5357 where |atan| = 1.2952 > atan 2 = 1.1071; alpha = 0.5 lands on
 * 2 - 2.5 atan 2 = -0.7679, |atan| = 0.6548: two tries. */
static const law1 atan0 = {.a = 1.0};

Test(newton_line_search, atan_overshoot_halved_once)
{
    nr_opts o = opts_none();
    o.max_ls = 3;
    fixture fx;
    open_scene(&fx, &o, &atan0, 2.0);
    cr_assert_eq(step(&fx), 1 + 2);
    const double want = 2.0 - 0.5 * 5.0 * atan(2.0);
    cr_assert(close_to(fx.ms->position.r[0], want, 1e-14), "x %.17g want %.17g",
              fx.ms->position.r[0], want);
    const st_array *gr = graph_of(&fx);
    cr_assert_eq(gr->n, 2);
    cr_assert(close_to(gr->r[1], pow(atan(want), 2), 1e-13));
    close_scene(&fx);
}

/* lineSearchCoefficient is the factor between tries: with 0.25 the second
 * try is alpha = 1/4, x = 1 + 305.5/4 = 77.375, still too far; the third,
 * 1/16, gives 20.09375 again. */
Test(newton_line_search, coefficient_is_the_ratio_between_tries)
{
    nr_opts o = opts_none();
    o.max_ls = 3;
    o.coef = 0.25;
    fixture fx;
    open_scene(&fx, &o, &sqrt612, 1.0);
    cr_assert_eq(step(&fx), 1 + 3);
    cr_assert(close_to(fx.ms->position.r[0], 20.09375, 1e-14), "x = %.17g", fx.ms->position.r[0]);
    close_scene(&fx);
}

/* ---- (b) line search exhausted ---- */

/* Four tries (1, 1/2, 1/4, 1/8) all fail: the state goes back to alpha = 1
 * (x = 306.5, one more evaluation), the warning names iteration 0, and the
 * residual graph holds the residual at alpha = 1. The solve then goes on:
 * with one iteration allowed the final status is DivergedMaxIterations
 * (SOFA overwrites DivergedLineSearch when no criterion is met). */
Test(newton_line_search, exhausted_reapplies_the_full_step)
{
    nr_opts o = opts_none();
    o.max_ls = 4;
    fixture fx;
    open_scene(&fx, &o, &sqrt612, 1.0);
    cr_assert_eq(step(&fx), 1 + 4 + 1);
    cr_assert(close_to(fx.ms->position.r[0], 306.5, 1e-14), "x = %.17g", fx.ms->position.r[0]);
    cr_assert_eq(count(fx.t.log, "warning|"), 2, "%s", fx.t.log);
    cr_assert(strstr(fx.t.log, "Line search failed at Newton iteration 0."), "%s", fx.t.log);
    cr_assert_str_eq(status_of(&fx), "DivergedMaxIterations");
    const st_array *gr = graph_of(&fx);
    cr_assert_eq(gr->n, 2);
    const double g1 = 306.5 * 306.5 - 612.0;
    cr_assert(close_to(gr->r[1], g1 * g1, 1e-12), "%.17g", gr->r[1]);
    close_scene(&fx);
}

/* With a single try there is nothing to re-apply: the state stays at the
 * full step, one evaluation per iteration. */
Test(newton_line_search, exhausted_single_try_stays_at_full_step)
{
    nr_opts o = opts_none();
    fixture fx;
    open_scene(&fx, &o, &sqrt612, 1.0);
    cr_assert_eq(step(&fx), 1 + 1);
    cr_assert(close_to(fx.ms->position.r[0], 306.5, 1e-14), "x = %.17g", fx.ms->position.r[0]);
    cr_assert(strstr(fx.t.log, "Line search failed at Newton iteration 0."), "%s", fx.t.log);
    close_scene(&fx);
}

/* warnWhenLineSearchFails = false silences that warning only. */
Test(newton_line_search, warning_can_be_disabled)
{
    nr_opts o = opts_none();
    o.max_ls = 4;
    o.warn_ls = false;
    fixture fx;
    open_scene(&fx, &o, &sqrt612, 1.0);
    step(&fx);
    cr_assert(close_to(fx.ms->position.r[0], 306.5, 1e-14), "x = %.17g", fx.ms->position.r[0]);
    cr_assert_eq(count(fx.t.log, "Line search failed"), 0, "%s", fx.t.log);
    cr_assert_eq(count(fx.t.log, "failed to converge"), 1, "%s", fx.t.log);
    close_scene(&fx);
}

/* A failed line search does not stop Newton: SOFA's own square-root test
 * (NewtonRaphsonSquareRootTest.squareRoot612_1, one try, nine iterations,
 * every criterion off) goes 1, 306.5, 154.2483686786, 79.1079978644,
 * 43.4221286822, 28.7581624288, 25.0195385369, 24.7402106712,
 * 24.7386338040, 24.7386337537. Only iteration 0 fails its line search. */
Test(newton_line_search, failure_does_not_stop_the_iterations)
{
    static const double seq[] = {306.5,         154.2483686786, 79.1079978644,
                                 43.4221286822, 28.7581624288,  25.0195385369,
                                 24.7402106712, 24.7386338040,  24.7386337537};
    for (unsigned n = 1; n <= 9; n++) {
        nr_opts o = opts_none();
        o.max_it = n;
        fixture fx;
        open_scene(&fx, &o, &sqrt612, 1.0);
        cr_assert_eq(step(&fx), 1 + n);
        cr_assert(fabs(fx.ms->position.r[0] - seq[n - 1]) <= 1e-10, "%u iterations: x %.17g",
                  n, fx.ms->position.r[0]);
        cr_assert_eq(count(fx.t.log, "Line search failed"), 1, "%s", fx.t.log);
        cr_assert_str_eq(status_of(&fx), "DivergedMaxIterations");
        cr_assert_eq(graph_of(&fx)->n, 1 + n);
        close_scene(&fx);
    }
}

/* After a failed line search the criteria are still tested: here the
 * absolute estimate difference (|dx| = 305.5 < 400) ends the solve. */
Test(newton_line_search, criteria_still_tested_after_a_failure)
{
    nr_opts o = opts_none();
    o.max_it = 5;
    o.ae = 400.0;
    fixture fx;
    open_scene(&fx, &o, &sqrt612, 1.0);
    cr_assert_eq(step(&fx), 2);
    cr_assert(close_to(fx.ms->position.r[0], 306.5, 1e-14), "x = %.17g", fx.ms->position.r[0]);
    cr_assert_str_eq(status_of(&fx), "ConvergedAbsoluteEstimateDifference");
    cr_assert(strstr(fx.t.log, "Line search failed at Newton iteration 0."), "%s", fx.t.log);
    cr_assert_eq(count(fx.t.log, "failed to converge"), 0, "%s", fx.t.log);
    close_scene(&fx);
}

/* A solve that starts at the solution (here u = 0 with no absolute
 * residual criterion to stop it before iterating) finds no decrease to
 * make: SOFA warns that the line search failed, but the iteration
 * converges (estimate difference 0), so settee says that instead, as an
 * information, not a warning. */
static const law1 linear1 = {.k = 1.0};

Test(newton_line_search, no_warning_when_a_converged_solve_finds_nothing_to_decrease)
{
    nr_opts o = opts_none();
    o.max_it = 5;
    o.ae = 1e-6;
    fixture fx;
    open_scene(&fx, &o, &linear1, 0.0);
    step(&fx);
    cr_assert_str_eq(status_of(&fx), "ConvergedAbsoluteEstimateDifference");
    cr_assert_eq(count(fx.t.log, "warning|"), 0, "%s", fx.t.log);
    cr_assert_eq(count(fx.t.log, "Line search failed"), 0, "%s", fx.t.log);
    cr_assert(strstr(fx.t.log, "Newton iteration 0 converged"), "%s", fx.t.log);
    close_scene(&fx);
}

/* ---- (c) DivergedMaxIterations and updateStateWhenDiverged ---- */

/* atan from 1: Newton goes 1, -0.5708, 0.1169, -0.00106, ... */
Test(newton_diverged, update_state_true_keeps_the_last_iterate)
{
    nr_opts o = opts_none();
    o.max_it = 2;
    check_against_reference(&o, &atan0, 1.0, "DivergedMaxIterations", 3);
    fixture fx;
    open_scene(&fx, &o, &atan0, 1.0);
    step(&fx);
    /* Two Newton steps by hand: x1 = 1 - 2 atan 1, x2 = x1 - (1 + x1^2) atan x1. */
    const double x1 = 1.0 - 2.0 * atan(1.0), x2 = x1 - (1.0 + x1 * x1) * atan(x1);
    cr_assert(close_to(fx.ms->position.r[0], x2, 1e-13), "x %.17g want %.17g",
              fx.ms->position.r[0], x2);
    cr_assert(strstr(fx.t.log, "warning|"), "%s", fx.t.log);
    cr_assert(strstr(fx.t.log, "Newton-Raphson method failed to converge after 2 iteration(s)"),
              "%s", fx.t.log);
    close_scene(&fx);
}

Test(newton_diverged, update_state_false_restores_the_start)
{
    nr_opts o = opts_none();
    o.max_it = 2;
    o.keep_diverged = false;
    check_against_reference(&o, &atan0, 1.0, "DivergedMaxIterations", 3);
    fixture fx;
    open_scene(&fx, &o, &atan0, 1.0);
    cr_assert_eq(step(&fx), 3);
    cr_assert_eq(fx.ms->position.r[0], 1.0);
    /* The graph still records the iterations that were made. */
    cr_assert_eq(graph_of(&fx)->n, 3);
    close_scene(&fx);
}

Test(newton_diverged, converged_solve_ignores_update_state_false)
{
    nr_opts o = opts_none();
    o.max_it = 10;
    o.ar = 0.3;
    o.keep_diverged = false;
    check_against_reference(&o, &atan0, 1.0, "ConvergedAbsoluteResidual", 3);
}

Test(newton_diverged, warning_can_be_disabled)
{
    nr_opts o = opts_none();
    o.max_it = 2;
    o.warn_div = false;
    fixture fx;
    open_scene(&fx, &o, &atan0, 1.0);
    step(&fx);
    cr_assert_str_eq(status_of(&fx), "DivergedMaxIterations");
    cr_assert_eq(count(fx.t.log, "warning|"), 0, "%s", fx.t.log);
    close_scene(&fx);
}

/* ---- (d) each convergence test alone ----
 * atan from 1 (center 0): per iteration k = 0, 1, 2, 3
 *   |r_k|/|r_{k-1}| = 0.660, 0.224, 0.00912, 7.5e-7
 *   |r_k|/|r_0|     = 0.660, 0.148, 0.00135, 1.0e-9
 *   |r_k|           = 0.519, 0.116, 0.00106, 8.0e-10
 *   |dx_k|          = 1.571, 0.688, 0.118,   0.00106
 * The thresholds below fire at a different iteration if a test compared
 * norms instead of squared norms, or used the wrong reference residual. */

Test(newton_criteria, relative_successive_alone)
{
    nr_opts o = opts_none();
    o.max_it = 10;
    o.rs = 0.2; /* iteration 2 (0.224 at iteration 1 is not below) */
    check_against_reference(&o, &atan0, 1.0, "ConvergedResidualSuccessiveRatio", 4);
}

Test(newton_criteria, relative_initial_alone)
{
    nr_opts o = opts_none();
    o.max_it = 10;
    o.ri = 0.5; /* iteration 1 (0.148); unsquared, 0.660^2 < 0.5 would fire at 0 */
    check_against_reference(&o, &atan0, 1.0, "ConvergedResidualInitialRatio", 3);
}

Test(newton_criteria, absolute_residual_alone)
{
    nr_opts o = opts_none();
    o.max_it = 10;
    o.ar = 0.3; /* iteration 1 (0.116); |r_0|^2 = 0.617 is not below 0.3 */
    check_against_reference(&o, &atan0, 1.0, "ConvergedAbsoluteResidual", 3);
}

Test(newton_criteria, absolute_estimate_alone)
{
    nr_opts o = opts_none();
    o.max_it = 10;
    o.ae = 0.5; /* iteration 2 (0.118); 0.688^2 = 0.473 is below 0.5 */
    check_against_reference(&o, &atan0, 1.0, "ConvergedAbsoluteEstimateDifference", 4);
}

/* Relative estimate: centred at 10, x from 11, |dx_k| / |x_k| = 0.143,
 * 0.0729, 0.0117: 0.05 fires at iteration 2 (squared); unsquared it would
 * fire at once. */
static const law1 atan10 = {.a = 1.0, .c = 10.0};

Test(newton_criteria, relative_estimate_alone)
{
    nr_opts o = opts_none();
    o.max_it = 10;
    o.re = 0.05;
    check_against_reference(&o, &atan10, 11.0, "ConvergedRelativeEstimateDifference", 4);
}

/* Tests at one iteration run in SOFA's order: successive, initial,
 * absolute, relative estimate, absolute estimate. At iteration 0 the
 * successive and initial ratios are the same number. */
Test(newton_criteria, order_when_several_fire_together)
{
    struct {
        double rs, ri, ar, re, ae;
        const char *want;
    } cases[] = {
        {0.7, 0.7, 0.6, 0.15, 2.0, "ConvergedResidualSuccessiveRatio"},
        {0.0, 0.7, 0.6, 0.15, 2.0, "ConvergedResidualInitialRatio"},
        {0.0, 0.0, 0.6, 0.15, 2.0, "ConvergedAbsoluteResidual"},
        {0.0, 0.0, 0.0, 0.15, 2.0, "ConvergedRelativeEstimateDifference"},
        {0.0, 0.0, 0.0, 0.0, 2.0, "ConvergedAbsoluteEstimateDifference"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nr_opts o = opts_none();
        o.max_it = 10;
        o.rs = cases[i].rs;
        o.ri = cases[i].ri;
        o.ar = cases[i].ar;
        o.re = cases[i].re;
        o.ae = cases[i].ae;
        check_against_reference(&o, &atan10, 11.0, cases[i].want, 2);
    }
}

/* Strictness on a linear law (g = u, one exact step from 0.5 to 0):
 * |r_0|^2 = 0.25, |dx|^2 = 0.25, |x_prev|^2 = 0.25 + 2^2 (y at 2). */
static void linear_case(const nr_opts *o, const char *want, double want_x, size_t want_graph)
{
    static const law1 lin = {.k = 1.0};
    fixture fx;
    check_against_reference(o, &lin, 0.5, want, want_graph);
    open_scene(&fx, o, &lin, 0.5);
    step(&fx);
    cr_assert(fabs(fx.ms->position.r[0] - want_x) <= 1e-15, "x = %.17g", fx.ms->position.r[0]);
    close_scene(&fx);
}

Test(newton_criteria, equilibrium_is_not_strict)
{
    nr_opts o = opts_none();
    o.ar = 0.5; /* 0.25 <= 0.25: no iteration at all */
    linear_case(&o, "ConvergedEquilibrium", 0.5, 1);
}

Test(newton_criteria, absolute_estimate_is_strict)
{
    nr_opts o = opts_none();
    o.ae = 0.5; /* 0.25 < 0.25 is false */
    linear_case(&o, "DivergedMaxIterations", 0.0, 2);
    o.ae = 0.5000001;
    linear_case(&o, "ConvergedAbsoluteEstimateDifference", 0.0, 2);
}

/* The relative estimate test divides by |x| before the iteration: with y
 * at 2, |x_prev|^2 = 4.25 and 0.25 < 0.0625 * 4.25 holds; with |x_new|^2
 * = 4 it would not (0.25 < 0.25). */
Test(newton_criteria, relative_estimate_uses_the_previous_state)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(t.rt), &test_law_class, &err), ST_OK);
    const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  name: root\n"
        "  gravity: [0, 0, 0]\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct]}\n"
        "    - NewtonRaphsonSolver: {name: newton, maxNbIterationsNewton: 1,\n"
        "        relativeSuccessiveStoppingThreshold: 0, relativeInitialStoppingThreshold: 0,\n"
        "        absoluteResidualStoppingThreshold: 0, relativeEstimateDifferenceThreshold: "
        "0.25}\n"
        "    - StaticSolver: {newtonSolver: \"@newton\"}\n"
        "    - SparseLDLSolver: {}\n"
        "    - MechanicalObject: {name: dofs, position: [0.5, 2, 0]}\n"
        "    - TestLawForceField: {stiffness: [1, 1, 1], center: [0, 2, 0]}\n";
    st_scene *s = NULL;
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_component *nr = test_find_object(s, "newton");
    cr_assert_str_eq(*(char **)st_component_field_ptr(nr, st_component_field(nr, "status")),
                     "ConvergedRelativeEstimateDifference");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The estimate tests use the Newton direction dx, not alpha dx: from the
 * atan overshoot at 2 (alpha = 0.5 kept), |dx| = 5.54 and |alpha dx| =
 * 2.77: a threshold of 4 must not fire, 6 must. */
Test(newton_criteria, estimate_uses_the_unscaled_direction)
{
    nr_opts o = opts_none();
    o.max_ls = 2;
    o.ae = 4.0;
    check_against_reference(&o, &atan0, 2.0, "DivergedMaxIterations", 2);
    o.ae = 6.0;
    check_against_reference(&o, &atan0, 2.0, "ConvergedAbsoluteEstimateDifference", 2);
}

/* ---- (e) residualGraph ---- */

/* A longer run mixing line-search successes and a failure: every entry of
 * the graph is a squared norm, the first one |r_0|^2. */
Test(newton_graph, squared_norms_over_a_long_solve)
{
    nr_opts o = opts_none();
    o.max_it = 12;
    o.max_ls = 3;
    o.ar = 1e-9;
    check_against_reference(&o, &sqrt612, 1.0, "ConvergedAbsoluteResidual", 10);
}

Test(newton_graph, first_entry_and_reset)
{
    nr_opts o = opts_none();
    o.max_it = 3;
    fixture fx;
    open_scene(&fx, &o, &atan0, 1.0);
    step(&fx);
    const st_array *gr = graph_of(&fx);
    cr_assert_eq(gr->n, 4);
    cr_assert_eq(gr->r[0], atan(1.0) * atan(1.0), "%.17g", gr->r[0]);
    /* Each solve starts a new graph. */
    step(&fx);
    cr_assert_eq(gr->n, 4);
    st_error err = {0};
    cr_assert_eq(st_scene_reset(fx.s, &err), ST_OK, "%s", err.msg);
    cr_assert_str_eq(status_of(&fx), "Undefined");
    cr_assert_eq(graph_of(&fx)->n, 0);
    close_scene(&fx);
}

/* ---- NewmarkImplicitSolver: integration factors ----
 * SOFA's NewmarkImplicitSolver overrides the four functions with the
 * factors of a backward Euler step solved on s = a dt, independent of
 * gamma and beta: x row [1, dt, 0], v row [0, 1, 0], a row [0, 0, 0];
 * solution [dt, 1, 1/dt]; velocity factor 1, position factor dt. */

Test(newmark, integration_factors)
{
    test_rt t;
    test_rt_open(&t);
    const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  name: root\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Mass]}\n"
        "    - NewmarkImplicitSolver: {name: nm, gamma: 0.6, beta: 0.3}\n"
        "    - SparseLDLSolver: {}\n"
        "    - MechanicalObject: {position: [0, 0, 0]}\n"
        "    - UniformMass: {totalMass: 1}\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_component *nm = test_find_object(s, "nm");
    const st_odesolver_ops *o = nm->cls->odesolver;
    cr_assert(o->integration_factor && o->solution_integration_factor &&
              o->velocity_integration_factor && o->position_integration_factor);
    const double dts[] = {0.25, 0.01, 3.0};
    for (size_t k = 0; k < 3; k++) {
        const double dt = dts[k];
        const double want[3][3] = {{1.0, dt, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 0.0}};
        for (int out = 0; out < 3; out++)
            for (int in = 0; in < 3; in++)
                cr_assert_eq(o->integration_factor(nm, in, out, dt), want[out][in],
                             "dt %g in %d out %d: %g", dt, in, out,
                             o->integration_factor(nm, in, out, dt));
        cr_assert_eq(o->solution_integration_factor(nm, 0, dt), dt);
        cr_assert_eq(o->solution_integration_factor(nm, 1, dt), 1.0);
        cr_assert_eq(o->solution_integration_factor(nm, 2, dt), 1.0 / dt);
        cr_assert_eq(o->velocity_integration_factor(nm, dt), 1.0);
        cr_assert_eq(o->position_integration_factor(nm, dt), dt);
        /* Orders outside 0..2 give 0. */
        cr_assert_eq(o->integration_factor(nm, 3, 0, dt), 0.0);
        cr_assert_eq(o->integration_factor(nm, 0, 3, dt), 0.0);
        cr_assert_eq(o->integration_factor(nm, -1, 0, dt), 0.0);
        cr_assert_eq(o->solution_integration_factor(nm, 3, dt), 0.0);
        cr_assert_eq(o->solution_integration_factor(nm, -1, dt), 0.0);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}
