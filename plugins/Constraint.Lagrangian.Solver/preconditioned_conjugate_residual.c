/* preconditioned_conjugate_residual.c - PreconditionedConjugateResidual:
 * SOFA's constraint solver that solves W lambda = -dfree as a linear
 * system (no projection: every row is treated as bilateral, whatever the
 * models' resolutions), by the conjugate residual method (Saad 2003) on the
 * Jacobi-scaled system M = D^-1/2 W D^-1/2, D = diag(W), from lambda = 0:
 *   r = -D^-1/2 dfree, p = r, Mp = M p, Mr = M r
 *   alpha = r.Mr / Mp.Mp, y += alpha p, r -= alpha Mp, Mr = M r,
 *   beta = r.Mr(new) / r.Mr(old), p = r + beta p, Mp = Mr + beta Mp,
 * at most min(maxIterations, rows) iterations, then lambda = D^-1/2 y.
 * Its error is SOFA's: for each constraint block of nb rows,
 * sqrt(nb r[i]^2) summed, i the iteration's index (SOFA reads r[i], one
 * entry, not the block's own rows); it stops when that error is below the
 * tolerance after the first iteration (every block below it with
 * allVerified). That measure can stop early or late: settee keeps SOFA's
 * numbers, warns once at init, and gives the true residual |W lambda +
 * dfree| in its output residualNorm. A row with W_jj <= 0 (no correction
 * on its state) leaves the constraints unsolved with a warning. When an
 * iteration reaches the exact solution (r = 0: a diagonal W does in one),
 * SOFA's next one divides 0 by 0 and gives NaN forces; settee stops there. */
#include <math.h>
#include <string.h>

#include "solver_common.h"

typedef struct pcr_solver {
    lagrange_solver s;     /* first: the plugin's solver */
    double residual_norm;  /* "residualNorm" (settee, output) */
    double *v;             /* work: M (dim^2), r, p, Mp, Mr, sq (dim each) */
    size_t cap;
} pcr_solver;

static const st_field pcr_fields[] = {
    LAGRANGE_SOLVER_FIELDS,
    ST_OUTPUT(pcr_solver, residual_norm, "residualNorm", ST_T_REAL, double,
              "settee: OUTPUT: |W lambda + dfree| after the last solve (SOFA's currentError "
              "reads one residual entry per iteration)"),
    ST_FIELD_END};

static double dot(const double *a, const double *b, size_t n)
{
    double r = 0.0;
    for (size_t i = 0; i < n; i++)
        r += a[i] * b[i];
    return r;
}

static void matvec(double *y, const double *M, const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = dot(M + i * n, x, n);
}

static bool pcr_method(lagrange_solver *ls, size_t dim, lagrange_outcome *out)
{
    pcr_solver *c = (pcr_solver *)ls;
    if (c->cap < dim) {
        double *v = st_realloc(c->v, (dim * dim + 5 * dim) * sizeof *v);
        if (!v) {
            st_component_warn(&ls->base, "out of memory: constraints left unsolved");
            return false;
        }
        c->v = v;
        c->cap = dim;
    }
    double *M = c->v, *r = M + dim * dim, *p = r + dim, *Mp = p + dim, *Mr = Mp + dim,
           *sq = Mr + dim;
    const double *W = ls->W, *dfree = ls->dfree;
    for (size_t j = 0; j < dim; j++) {
        if (!(W[j * dim + j] > 0.0)) {
            st_component_warn(&ls->base, "row %zu of the compliance W has W_jj = %g <= 0 (no "
                                         "constraint correction on its state?): constraints "
                                         "left unsolved",
                              j, W[j * dim + j]);
            return false;
        }
        sq[j] = 1.0 / sqrt(W[j * dim + j]);
    }
    for (size_t j = 0; j < dim; j++)
        for (size_t k = 0; k < dim; k++)
            M[j * dim + k] = W[j * dim + k] * sq[j] * sq[k];
    double *y = ls->lambda;
    for (size_t j = 0; j < dim; j++) {
        r[j] = -dfree[j] * sq[j];
        p[j] = r[j];
        y[j] = 0.0;
    }
    matvec(Mp, M, p, dim);
    matvec(Mr, M, r, dim);
    double rmr = dot(r, Mr, dim);
    double tol = lagrange_solver_tolerance(ls, dim), error = 0.0;
    bool converged = false;
    size_t max_it = (size_t)ls->max_it < dim ? (size_t)ls->max_it : dim;
    int count = 0;
    for (size_t i = 0; i < max_it; i++) {
        count++;
        bool verified = true;
        /* An exact solution reached (r = 0, so M p = 0): SOFA divides 0 by
         * 0 here and its forces become NaN; settee stops. */
        double den = dot(Mp, Mp, dim);
        if (den == 0.0) {
            converged = dot(r, r, dim) == 0.0;
            break;
        }
        double alpha = rmr / den;
        for (size_t j = 0; j < dim; j++) {
            y[j] += alpha * p[j];
            r[j] -= alpha * Mp[j];
        }
        matvec(Mr, M, r, dim);
        double old = rmr;
        rmr = dot(r, Mr, dim);
        double beta = rmr / old;
        for (size_t j = 0; j < dim; j++)
            p[j] = r[j] + beta * p[j];
        /* SOFA's error: r[i] for every row of every block. */
        error = 0.0;
        for (size_t b = 0; b < ls->nblocks; b++) {
            double e = 0.0;
            for (unsigned l = 0; l < ls->blocks[b].nb; l++) {
                e += r[i] * r[i];
                verified = verified && e < tol * tol;
            }
            error += sqrt(e);
        }
        if (ls->all_verified ? verified : (error < tol && i > 0)) {
            converged = true;
            break;
        }
        for (size_t j = 0; j < dim; j++)
            Mp[j] = Mr[j] + beta * Mp[j];
    }
    for (size_t j = 0; j < dim; j++)
        y[j] *= sq[j];
    /* The true residual, for the output. */
    double res = 0.0;
    for (size_t j = 0; j < dim; j++) {
        double e = dot(W + j * dim, y, dim) + dfree[j];
        res += e * e;
    }
    c->residual_norm = sqrt(res);
    *out = (lagrange_outcome){.converged = converged, .iterations = count + 1, .done = count,
                              .error = error, .tol = tol};
    return true;
}

static st_status pcr_init(st_component *self, st_error *err)
{
    ST_TRY(lagrange_solver_init(self, err));
    ((lagrange_solver *)self)->method = pcr_method;
    st_component_warn(self, "SOFA's PreconditionedConjugateResidual measures its error with one "
                            "residual entry per iteration (r[i], i the iteration), not each "
                            "constraint's rows: settee keeps SOFA's stopping rule and "
                            "currentError, and gives |W lambda + dfree| in residualNorm");
    return ST_OK;
}

static void pcr_cleanup(st_component *self)
{
    pcr_solver *c = (pcr_solver *)self;
    st_free(c->v);
    c->v = NULL;
    c->cap = 0;
    lagrange_solver_cleanup(self);
}

const st_class preconditioned_conjugate_residual_class = {
    .struct_size = sizeof(st_class),
    .name = "PreconditionedConjugateResidual",
    .category = "ConstraintSolver",
    .description = "A constraint solver solving W lambda = -dfree by a Jacobi-preconditioned "
                   "conjugate residual method (every constraint treated as bilateral)",
    .instance_size = sizeof(pcr_solver),
    .fields = pcr_fields,
    .init = pcr_init,
    .cleanup = pcr_cleanup,
    .constraint_solver = &lagrange_solver_ops,
};
