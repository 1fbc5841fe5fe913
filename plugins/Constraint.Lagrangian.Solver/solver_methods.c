/* solver_methods.c - the resolution methods other than the projected block
 * Gauss-Seidel of solver_common.c, on the same built problem (J, dfree, W)
 * and the same per-block resolutions of the constraint models:
 *   - SOFA's UnbuiltGaussSeidelConstraintSolver iteration: the models'
 *     resolutions are prepared (their warm start written) and then every
 *     multiplier is cleared, so each solve starts from zero; the sweeps are
 *     the block Gauss-Seidel's (d = dfree + W lambda per block, error the
 *     change |W_bb dlambda|), currentIterations the iterations done (SOFA
 *     passes the loop index to result_output, which adds one). SOFA never
 *     builds W there and accumulates d through the corrections; settee
 *     builds W, which gives the same iterates to round-off.
 *   - SOFA's NNCGConstraintSolver (nonsmooth nonlinear conjugate gradient):
 *     a first sweep from the warm start gives dF = -(lambda1 - lambda0) and
 *     p = -dF; then each iteration sweeps, stops on the error, else
 *     dF' = -(lambda - lambda_prev), beta = |dF'|^2 / |dF|^2, dF = dF',
 *     and when beta <= 1: lambda += beta p, p = beta p - dF (p cleared when
 *     beta > 1); it also stops when |dF'| < tol. */
#include <math.h>
#include <string.h>

#include "solver_common.h"

/* The tolerance in use (scaleTolerance multiplies it by the rows). */
static double scaled_tolerance(const lagrange_solver *s, size_t dim)
{
    double tol = s->tolerance;
    if (s->scale_tolerance && !s->all_verified)
        tol *= (double)dim;
    return tol;
}

/* The models prepare their blocks and write their warm starts. */
static void init_resolutions(lagrange_solver *s, size_t dim)
{
    memset(s->lambda, 0, dim * sizeof *s->lambda);
    for (size_t i = 0; i < s->ncons; i++) {
        const st_constraint_ops *ops = s->cons[i]->cls->constraint;
        if (ops->init_resolution)
            ops->init_resolution(s->cons[i], s->first[i], s->W, dim, s->lambda);
    }
}

/* SOFA's result_output: the outputs, the report of a failed solve (once
 * per run of failures), the models keep their multipliers. */
static bool finish(lagrange_solver *s, double error, int count, int iterations, double tol,
                   bool converged)
{
    s->current_error = error;
    s->current_iterations = count + 1;
    if (!converged && !s->failing)
        st_component_warn(&s->base,
                          "no convergence after %d iterations (maxIterations): error %g, "
                          "tolerance %g (reported again only after a solve converged)",
                          iterations, error, tol);
    s->failing = !converged;
    for (size_t i = 0; i < s->ncons; i++) {
        const st_constraint_ops *ops = s->cons[i]->cls->constraint;
        if (ops->store)
            ops->store(s->cons[i], s->first[i], s->lambda, converged);
    }
    return converged;
}

static bool stop(const lagrange_solver *s, bool verified, double error, double tol)
{
    return s->all_verified ? verified : error < tol;
}

/* SOR: lambda = sor lambda + (1 - sor) lambda_before (tmp). */
static void relax(lagrange_solver *s, size_t dim)
{
    if (s->sor == 1.0)
        return;
    for (size_t j = 0; j < dim; j++)
        s->lambda[j] = s->sor * s->lambda[j] + (1.0 - s->sor) * s->tmp[j];
}

bool lagrange_unbuilt_gauss_seidel(lagrange_solver *s, size_t dim)
{
    double tol = scaled_tolerance(s, dim);
    init_resolutions(s, dim);
    memset(s->lambda, 0, dim * sizeof *s->lambda);
    double error = 0.0;
    bool converged = false;
    int it = 0;
    for (; it < s->max_it; it++) {
        bool verified = true;
        if (s->sor != 1.0)
            memcpy(s->tmp, s->lambda, dim * sizeof *s->tmp);
        error = 0.0;
        lagrange_solver_sweep(s, dim, tol, &verified, &error);
        relax(s, dim);
        if (stop(s, verified, error, tol)) {
            converged = true;
            break;
        }
    }
    return finish(s, error, it, converged ? it + 1 : it, tol, converged);
}

/* NNCG's vectors: lam (lambda before a sweep), dF, dF', p; 4 dim each, kept
 * in method_data (grown like the solver's buffers). */
typedef struct nncg_work {
    double *v;
    size_t cap;
    int iterations;  /* the bound, or 0 for maxIterations */
} nncg_work;

static double *nncg_vectors(lagrange_solver *s, size_t dim)
{
    nncg_work *w = s->method_data;
    if (!w)
        return NULL;
    if (w->cap < dim) {
        double *p = st_realloc(w->v, 4 * dim * sizeof *p);
        if (!p)
            return NULL;
        w->v = p;
        w->cap = dim;
    }
    memset(w->v, 0, 4 * dim * sizeof *w->v);
    return w->v;
}

static double dot(const double *a, const double *b, size_t n)
{
    double r = 0.0;
    for (size_t i = 0; i < n; i++)
        r += a[i] * b[i];
    return r;
}

bool lagrange_nncg(lagrange_solver *s, size_t dim)
{
    double tol = scaled_tolerance(s, dim);
    double *lam = nncg_vectors(s, dim);
    if (!lam) {
        st_component_warn(&s->base, "out of memory: constraints left unsolved");
        return false;
    }
    double *df = lam + dim, *dfn = lam + 2 * dim, *p = lam + 3 * dim;
    init_resolutions(s, dim);
    double error = 0.0;
    bool verified = true;
    /* The first sweep gives the initial direction. */
    memcpy(lam, s->lambda, dim * sizeof *lam);
    lagrange_solver_sweep(s, dim, tol, &verified, &error);
    for (size_t j = 0; j < dim; j++) {
        df[j] = -(s->lambda[j] - lam[j]);
        p[j] = -df[j];
    }
    bool converged = false;
    int count = 0;
    int max_it = ((nncg_work *)s->method_data)->iterations;
    if (max_it <= 0)
        max_it = s->max_it;
    for (int i = 1; i < max_it; i++) {
        count++;
        verified = true;
        memcpy(lam, s->lambda, dim * sizeof *lam);
        error = 0.0;
        lagrange_solver_sweep(s, dim, tol, &verified, &error);
        if (stop(s, verified, error, tol)) {
            converged = true;
            break;
        }
        for (size_t j = 0; j < dim; j++)
            dfn[j] = -(s->lambda[j] - lam[j]);
        double den = dot(df, df, dim);
        double beta = den > 0.0 ? dot(dfn, dfn, dim) / den : 2.0;
        memcpy(df, dfn, dim * sizeof *df);
        if (beta > 1.0) {
            memset(p, 0, dim * sizeof *p);
        } else {
            for (size_t j = 0; j < dim; j++) {
                s->lambda[j] += beta * p[j];
                p[j] = beta * p[j] - df[j];
            }
        }
        if (sqrt(dot(dfn, dfn, dim)) < tol)
            break;
    }
    return finish(s, error, count, count + 1, tol, converged);
}

st_status lagrange_nncg_attach(lagrange_solver *s, int iterations, st_error *err)
{
    if (!s->method_data) {
        s->method_data = st_calloc(1, sizeof(nncg_work));
        if (!s->method_data)
            return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    ((nncg_work *)s->method_data)->iterations = iterations;
    s->method = lagrange_nncg;
    return ST_OK;
}

void lagrange_nncg_detach(lagrange_solver *s)
{
    nncg_work *w = s->method_data;
    if (w)
        st_free(w->v);
    st_free(w);
    s->method_data = NULL;
}
