/* improved_jacobi_constraint_solver.c - ImprovedJacobiConstraintSolver:
 * SOFA's projected Jacobi on the built problem (W, dfree), with two
 * optional accelerations. Every iteration first brings each row's
 * violation up to date with the whole last change of the multipliers,
 * d += W dlambda (d starts at dfree, dlambda at 0: the models' warm starts
 * are not in d), then every block resolves on rho d (a Jacobi sweep: all
 * blocks see the same d), and its multipliers take the momentum
 * lambda += beta dlambda_prev before their change is recorded. The
 * spectral correction rho = spectralCorrectionFactor min(1, 1.8 / r) uses
 * r = max |eigenvalue of W|^2 (SOFA takes std::norm of the eigenvalues,
 * the squared modulus; kept), else rho = 1; the conjugate residue's
 * beta = min(1, (i / maxIterations)^conjugateResidueSpeedFactor) at
 * iteration i (0 when off). A block's error is the norm of W dlambda over
 * its rows (SOFA accumulates it across the rows, and checks every row's
 * running sum against the tolerance for allVerified); the solve stops when
 * every block is verified (allVerified) or the summed error is below the
 * tolerance after the first iteration. LAPACK's dsyev gives W's eigenvalues
 * (W is symmetric). Without the spectral correction the iteration fails
 * whenever W is far from diagonal: an unconverged solve then says so and
 * points to useSpectralCorrection. */
#include <math.h>
#include <string.h>

#include "solver_common.h"

extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
                   double *w, double *work, const int *lwork, int *info);

typedef struct jacobi_solver {
    lagrange_solver ls;          /* first: LAGRANGE_SOLVER_FIELDS' offsets are its own */
    bool spectral;               /* "useSpectralCorrection" */
    double spectral_factor;      /* "spectralCorrectionFactor" */
    bool conjugate_residue;      /* "useConjugateResidue" */
    double residue_speed;        /* "conjugateResidueSpeedFactor" */
    /* Scratch: last lambda, its change, rho d (dim each), W's copy (dim^2)
     * and its eigenvalues (dim) with dsyev's work; grown, never shrunk. */
    double *v, *a;
    size_t cap, acap;
    bool hinted;                 /* the spectral correction hint was given (until a solve converges) */
} jacobi_solver;

static const st_field jacobi_fields[] = {
    LAGRANGE_SOLVER_FIELDS,
    ST_BOOL(jacobi_solver, spectral, "useSpectralCorrection", "false",
            "If set to true, the solution found after each iteration will be multiplied by "
            "spectralCorrectionFactor*2/spr(W), with spr() denoting the spectral radius."),
    ST_REAL(jacobi_solver, spectral_factor, "spectralCorrectionFactor", "1",
            "Factor used to modulate the spectral correction"),
    ST_BOOL(jacobi_solver, conjugate_residue, "useConjugateResidue", "false",
            "If set to true, the solution found after each iteration will be corrected along "
            "the solution direction using `\\lambda^{i+1} -= beta^{i} * (\\lambda^{i} - "
            "\\lambda^{i-1})` with beta following the formula beta^{i} = min(1, "
            "(i/maxIterations)^{conjugateResidueSpeedFactor}) "),
    ST_REAL(jacobi_solver, residue_speed, "conjugateResidueSpeedFactor", "10",
            "Factor used to modulate the speed in which beta used in the conjugate residue part "
            "reaches 1.0. The higher the value, the slower the reach. "),
    ST_FIELD_END};

/* The largest squared modulus of W's eigenvalues, or -1 when LAPACK fails
 * or memory runs out. */
static double spectral_radius2(jacobi_solver *j, size_t dim)
{
    const size_t need = dim * dim + dim + 3 * dim + 64;
    if (j->acap < need) {
        double *p = st_realloc(j->a, need * sizeof *p);
        if (!p)
            return -1.0;
        j->a = p;
        j->acap = need;
    }
    double *a = j->a, *ev = a + dim * dim, *work = ev + dim;
    memcpy(a, j->ls.W, dim * dim * sizeof *a);
    int n = (int)dim, lwork = (int)(3 * dim + 64), info = 0;
    dsyev_("N", "U", &n, a, &n, ev, work, &lwork, &info);
    if (info != 0)
        return -1.0;
    double r = 0.0;
    for (size_t i = 0; i < dim; i++)
        r = fmax(r, ev[i] * ev[i]);
    return r;
}

static bool jacobi_method(lagrange_solver *s, size_t dim, lagrange_outcome *out)
{
    jacobi_solver *j = (jacobi_solver *)s;
    if (j->cap < dim) {
        double *p = st_realloc(j->v, 3 * dim * sizeof *p);
        if (!p) {
            st_component_warn(&s->base, "out of memory: constraints left unsolved");
            return false;
        }
        j->v = p;
        j->cap = dim;
    }
    double *last = j->v, *delta = last + dim, *cd = delta + dim;
    memset(j->v, 0, 3 * dim * sizeof *j->v);
    const double *W = s->W;
    double *d = s->d, *lambda = s->lambda;
    memcpy(d, s->dfree, dim * sizeof *d);
    const double tol = lagrange_solver_tolerance(s, dim);
    lagrange_solver_init_resolutions(s, dim);

    double rho = 1.0;
    if (j->spectral) {
        double r = spectral_radius2(j, dim);
        if (r < 0.0) {
            st_component_warn(&s->base, "the eigenvalues of W could not be computed (LAPACK "
                                        "dsyev or memory): constraints left unsolved");
            return false;
        }
        rho = j->spectral_factor * fmin(1.0, 0.9 * 2.0 / r);
    }
    double error = 0.0;
    bool converged = false;
    int count = 0;
    for (int i = 0; i < s->max_it; i++) {
        count++;
        bool verified = true;
        error = 0.0;
        const double beta = j->conjugate_residue
                                ? fmin(1.0, pow((double)i / s->max_it, j->residue_speed))
                                : 0.0;
        for (size_t l = 0; l < dim; l++) {
            const double *w = W + l * dim;
            double v = d[l];
            for (size_t k = 0; k < dim; k++)
                v += w[k] * delta[k];
            d[l] = v;
            cd[l] = rho * v;
        }
        for (size_t b = 0; b < s->nblocks; b++) {
            const lagrange_block *bk = &s->blocks[b];
            const size_t r0 = bk->row;
            bk->owner->cls->constraint->resolution(bk->owner, r0, W, dim, cd, lambda);
            for (size_t l = r0; l < r0 + bk->nb; l++) {
                lambda[l] += beta * delta[l];
                delta[l] = lambda[l] - last[l];
                last[l] = lambda[l];
            }
            double cerr = 0.0;
            for (size_t l = r0; l < r0 + bk->nb; l++) {
                const double *w = W + l * dim;
                for (size_t k = 0; k < dim; k++) {
                    const double e = w[k] * delta[k];
                    cerr += e * e;
                }
                verified = verified && cerr < tol * tol;
            }
            error += sqrt(cerr);
        }
        if (s->all_verified ? verified : (error < tol && i > 0)) {
            converged = true;
            break;
        }
    }
    /* Plain projected Jacobi converges only when 2 D - W is positive
     * definite (D W's diagonal blocks); many contacts on one body couple
     * far more than that and the iterates oscillate or grow, in SOFA as
     * here (Contact_ImprovedJacobi.scn). Said once per run of failures. */
    if (converged)
        j->hinted = false;
    else if (!j->spectral && !j->hinted) {
        j->hinted = true;
        st_component_warn(&s->base,
                          "useSpectralCorrection is false: SOFA's plain projected Jacobi (rho = "
                          "1, the same iteration as here) converges only when W is close to "
                          "diagonal; with constraints coupled through the same bodies (e.g. "
                          "many contacts of one body on a floor) it oscillates or diverges; set "
                          "useSpectralCorrection: true (rho = spectralCorrectionFactor min(1, "
                          "1.8 / r), r the largest squared modulus of W's eigenvalues) or use "
                          "GenericConstraintSolver");
    }
    /* SOFA's result_output reports the iterations + 1. */
    *out = (lagrange_outcome){.converged = converged, .iterations = count + 1, .done = count,
                              .error = error, .tol = tol};
    return true;
}

static st_status jacobi_init(st_component *self, st_error *err)
{
    ST_TRY(lagrange_solver_init(self, err));
    jacobi_solver *j = (jacobi_solver *)self;
    j->ls.method = jacobi_method;
    return ST_OK;
}

static void jacobi_cleanup(st_component *self)
{
    jacobi_solver *j = (jacobi_solver *)self;
    st_free(j->v);
    st_free(j->a);
    j->v = j->a = NULL;
    j->cap = j->acap = 0;
    lagrange_solver_cleanup(self);
}

const st_class improved_jacobi_constraint_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "ImprovedJacobiConstraintSolver",
    .category = "ConstraintSolver",
    .description = "A Constraint Solver using the Linear Complementarity Problem formulation to "
                   "solve Constraint based components using a Projected Jacobi iterative method",
    .instance_size = sizeof(jacobi_solver),
    .fields = jacobi_fields,
    .init = jacobi_init,
    .cleanup = jacobi_cleanup,
    .constraint_solver = &lagrange_solver_ops,
};
