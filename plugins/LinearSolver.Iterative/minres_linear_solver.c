/* minres_linear_solver.c - MinResLinearSolver: SOFA's MINRES (Paige and
 * Saunders' minimum residual method on the Lanczos process, without a
 * preconditioner), loop for loop: symmetric systems, definite or
 * indefinite. Starts from the solution vector as given; stops on SOFA's
 * tests (||r|| / (||A|| ||x||) or ||A r|| / (||A|| ||r||) at or below
 * tolerance, the iteration limit, an estimated condition number beyond
 * 0.1 / eps, or a residual at round-off). Matrix-free by default. */
#include <float.h>
#include <math.h>

#include "iterative_common.h"

typedef struct minres_solver {
    st_component base;
    char *template_name;           /* "template" */
    unsigned iterations;           /* "iterations" */
    double tolerance;              /* "tolerance" */
    unsigned nb_iterations;        /* "nbIterations" (output) */
    double residual;               /* "residual" (output): ||r|| / (||A|| ||x||) */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    /* Runtime. */
    iter_op op;
    double *r1, *r2, *y, *w, *w2, *v;
} minres_solver;

static const st_field minres_fields[] = {
    ST_STRING(minres_solver, template_name, "template", "GraphScattered",
              "GraphScattered (matrix-free products) or an assembled matrix type"),
    ST_FIELD_EX(minres_solver, iterations, "iterations", ST_T_UINT, unsigned, "25",
                "maximum number of iterations of the Conjugate Gradient solution (at least 1)",
                0, NULL, 1.0, 4294967295.0),
    ST_REAL(minres_solver, tolerance, "tolerance", "1e-5",
            "desired precision of the Conjugate Gradient Solution (ratio of current residual "
            "norm over initial residual norm)"),
    ST_OUTPUT(minres_solver, nb_iterations, "nbIterations", ST_T_UINT, unsigned,
              "Number of iterations done by the last solve (settee)"),
    ST_OUTPUT(minres_solver, residual, "residual", ST_T_REAL, double,
              "||r|| / (||A|| ||x||) at the end of the last solve (settee)"),
    ITER_F_MATRIX_SOLVER(minres_solver),
    ST_FIELD_END};

static st_status minres_init(st_component *self, st_error *err)
{
    minres_solver *s = (minres_solver *)self;
    ST_TRY(iter_parse_template(self, s->template_name, &s->op.assembled, err));
    static const char *const required[] = {"iterations", "tolerance"};
    static const char *const defaults[] = {"25", "1e-05"};
    for (int i = 0; i < 2; i++)
        if (!st_component_is_set(self, required[i]))
            st_component_warn(self, "Required data \"%s\" has not been set. Falling back to "
                                    "default value: %s",
                              required[i], defaults[i]);
    return ST_OK;
}

static st_status minres_bind(st_component *self, st_system *sys, st_error *err)
{
    minres_solver *s = (minres_solver *)self;
    ST_TRY(iter_op_bind(&s->op, sys, err));
    double **vecs[] = {&s->r1, &s->r2, &s->y, &s->w, &s->w2, &s->v};
    for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++)
        ST_TRY(st_system_vec_alloc(sys, vecs[i], err));
    return ST_OK;
}

static st_status minres_set_system(st_component *self, st_system *sys, double mf, double bf,
                                   double kf, st_error *err)
{
    minres_solver *s = (minres_solver *)self;
    if (s->op.sys != sys || !s->r1)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    return iter_op_set(&s->op, mf, bf, kf, err);
}

static st_status minres_solve(st_component *self, st_system *sys, double *x, const double *b,
                              st_error *err)
{
    minres_solver *s = (minres_solver *)self;
    if (s->op.sys != sys || !s->r1)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    double *r1 = s->r1, *r2 = s->r2, *y = s->y, *w = s->w, *w2 = s->w2, *v = s->v;
    const double tol = s->tolerance;
    const unsigned max_iter = s->iterations;
    /* r1 = b - A x */
    iter_op_mul(&s->op, r1, x);
    st_vec_op(sys, r1, b, r1, -1.0);
    double beta1 = st_vec_dot(sys, r1, r1);
    unsigned itn = 0;
    s->residual = 0.0;
    if (beta1 > 0) {
        beta1 = sqrt(beta1);
        st_vec_eq(sys, y, r1);
        st_vec_clear(sys, w);
        st_vec_clear(sys, w2);
        double oldb = 0.0, beta = beta1, dbar = 0.0, epsln = 0.0, oldeps;
        double phi, phibar = beta1, tnorm2 = 0.0, cs = -1.0, sn = 0.0;
        double gmax = 0.0, gmin = DBL_MAX, alpha, gamma, delta, gbar;
        const double eps = DBL_EPSILON;
        for (itn = 0; itn < max_iter; ++itn) {
            st_vec_eq(sys, r2, y);
            st_vec_eq(sys, v, y); /* v = y / beta */
            st_vec_teq(sys, v, 1.0 / beta);
            iter_op_mul(&s->op, y, v);
            if (itn)
                st_vec_peq(sys, y, r1, -beta / oldb);
            alpha = st_vec_dot(sys, v, y);
            st_vec_peq(sys, y, r2, -alpha / beta);
            double *t = r1;
            r1 = r2;
            r2 = t;
            oldb = beta;
            beta = st_vec_dot(sys, y, y);
            if (beta < 0)
                break;
            beta = sqrt(beta);
            tnorm2 += alpha * alpha + oldb * oldb + beta * beta;
            oldeps = epsln;
            delta = cs * dbar + sn * alpha;
            gbar = sn * dbar - cs * alpha;
            epsln = sn * beta;
            dbar = -cs * beta;
            const double root = sqrt(gbar * gbar + dbar * dbar);
            gamma = sqrt(gbar * gbar + beta * beta);
            gamma = fmax(gamma, eps);
            const double denom = 1.0 / gamma;
            cs = gbar * denom;
            sn = beta * denom;
            phi = cs * phibar;
            phibar = sn * phibar;
            t = w;
            w = w2;
            w2 = t;
            /* w = (-oldeps w - delta w2 + v) / gamma */
            st_vec_teq(sys, w, -oldeps);
            st_vec_peq(sys, w, w2, -delta);
            st_vec_peq(sys, w, v, 1.0);
            st_vec_teq(sys, w, denom);
            st_vec_peq(sys, x, w, phi);
            if (itn == 0 && beta / beta1 < 10.0 * eps) {
                itn++;
                break;
            }
            const double anorm = sqrt(tnorm2);
            const double ynorm = sqrt(st_vec_dot(sys, x, x));
            const double test1 = phibar / (anorm * ynorm);
            s->residual = test1;
            gmax = fmax(gmax, gamma);
            gmin = fmin(gmin, gamma);
            const double test2 = root / anorm;
            if (test1 <= 0. || test2 <= 0. || itn >= max_iter - 1 || gmax / gmin >= .1 / eps ||
                anorm * eps * ynorm >= beta1 || test2 <= tol || test1 <= tol) {
                itn++;
                break;
            }
        }
    }
    s->nb_iterations = itn;
    if (!isfinite(st_vec_dot(sys, x, x)))
        return st_component_solver_failure(self, err,
                                           "the solution is not finite after %u iterations: the "
                                           "system matrix or right-hand side is not finite",
                                           itn);
    return ST_OK;
}

static void minres_cleanup(st_component *self) { iter_op_free(&((minres_solver *)self)->op); }

static const st_linsolver_ops minres_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = minres_bind,
    .set_system = minres_set_system,
    .solve = minres_solve,
};

const st_class minres_linear_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "MinResLinearSolver",
    .category = "LinearSolver",
    .description = "Linear system solver using the MINRES iterative algorithm (symmetric "
                   "systems, definite or indefinite)",
    .instance_size = sizeof(minres_solver),
    .fields = minres_fields,
    .init = minres_init,
    .cleanup = minres_cleanup,
    .linsolver = &minres_ops,
};
