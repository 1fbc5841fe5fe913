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

/* NNCG's stop on a sweep's error (every block verified with allVerified). */
static bool stop(const lagrange_solver *s, bool verified, double error, double tol)
{
    return s->all_verified ? verified : error < tol;
}

bool lagrange_unbuilt_gauss_seidel(lagrange_solver *s, size_t dim, lagrange_outcome *out)
{
    out->tol = lagrange_solver_tolerance(s, dim);
    lagrange_solver_init_resolutions(s, dim);
    memset(s->lambda, 0, dim * sizeof *s->lambda);
    out->done = lagrange_solver_iterate(s, dim, out->tol, &out->error, &out->converged);
    /* SOFA's loop index + 1: the sweeps done when converged, one more when not. */
    out->iterations = out->converged ? out->done : out->done + 1;
    return true;
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

bool lagrange_nncg(lagrange_solver *s, size_t dim, lagrange_outcome *out)
{
    double tol = lagrange_solver_tolerance(s, dim);
    double *lam = nncg_vectors(s, dim);
    if (!lam) {
        st_component_warn(&s->base, "out of memory: constraints left unsolved");
        return false;
    }
    double *df = lam + dim, *dfn = lam + 2 * dim, *p = lam + 3 * dim;
    lagrange_solver_init_resolutions(s, dim);
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
    *out = (lagrange_outcome){.converged = converged, .iterations = count + 1,
                              .done = count + 1, .error = error, .tol = tol};
    return true;
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
