/* cg_linear_solver.c - CGLinearSolver: SOFA's conjugate gradient, loop for
 * loop (stopping tests, first-solve exceptions, update order), matrix-free
 * by default (template GraphScattered) or on the assembled matrix. */
#include <math.h>

#include "iterative_common.h"

typedef struct cg_solver {
    st_component base;
    char *template_name;   /* "template" */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    unsigned iterations;   /* "iterations" */
    double tolerance;      /* "tolerance": on |r| / |b| */
    double threshold;      /* "threshold": on |p.Ap| */
    bool warm_start;       /* "warmStart" */
    unsigned nb_iterations; /* "nbIterations" (output) */
    double residual;       /* "residual" (output): |r| / |b| at the end */
    /* Runtime. */
    iter_op op;
    double *r, *p, *q;     /* scratch vectors, owned by the system */
    unsigned long time_step_count;
} cg_solver;

static const st_field cg_fields[] = {
    ST_STRING(cg_solver, template_name, "template", "GraphScattered",
              "GraphScattered (matrix-free products through the components) or an assembled "
              "matrix type (CompressedRowSparseMatrixd, CompressedRowSparseMatrixMat3x3d, ...)"),
    ST_FIELD_EX(cg_solver, iterations, "iterations", ST_T_UINT, unsigned, "25",
                "Maximum number of iterations of the Conjugate Gradient solution (at least 1: "
                "0 would never solve)", 0, NULL, 1.0, 4294967295.0),
    ST_REAL(cg_solver, tolerance, "tolerance", "1e-5",
            "Desired accuracy of the Conjugate Gradient solution evaluating: |r|/|b| (ratio of "
            "current residual norm over initial residual norm)"),
    ST_REAL(cg_solver, threshold, "threshold", "1e-5",
            "Minimum value of the denominator (pT A p) in the conjugate Gradient solution"),
    ST_BOOL(cg_solver, warm_start, "warmStart", "false",
            "Use previous solution as initial solution"),
    ST_OUTPUT(cg_solver, nb_iterations, "nbIterations", ST_T_UINT, unsigned,
              "Number of iterations done by the last solve (settee)"),
    ST_OUTPUT(cg_solver, residual, "residual", ST_T_REAL, double,
              "Relative residual |r|/|b| at the end of the last solve (settee)"),
    ITER_F_MATRIX_SOLVER(cg_solver),
    ST_FIELD_END};

/* Whether the fused update below applies: every independent state has 3
 * derivative scalars per point and together they cover the vectors'
 * first sys->size scalars in order. */
static bool cg_fusable(const st_system *sys)
{
    size_t off = 0;
    for (size_t k = 0; k < sys->nindep; k++) {
        const st_mstate *ms = sys->states[k];
        if (ms->type->deriv_size != 3 || ms->doffset != off)
            return false;
        off += 3 * ms->n;
    }
    return off == sys->size;
}

/* x += alpha p; r -= alpha q; returns r.r: st_vec_peq twice then
 * st_vec_dot(r, r) in one pass over the vectors, with the same operations
 * in the same order (each point's x*x + y*y + z*z added to its state's sum,
 * the states' sums added in order), so every bit is the same as the three
 * separate calls' (tests/solvers/test_precond_bandwidth.c checks trajectories against the
 * hashes of the unfused solver's). Only where cg_fusable holds. */
static double cg_update(const st_system *sys, double *x, double *r, const double *p,
                        const double *q, double alpha)
{
    const double nalpha = -alpha;
    double total = 0.0;
    for (size_t k = 0; k < sys->nindep; k++) {
        const st_mstate *ms = sys->states[k];
        const size_t o = ms->doffset, n = ms->n;
        double *xs = x + o, *rs = r + o;
        const double *ps = p + o, *qs = q + o;
        double sum = 0.0;
        for (size_t i = 0; i < n; i++) {
            double *xi = xs + 3 * i, *ri = rs + 3 * i;
            const double *pi = ps + 3 * i, *qi = qs + 3 * i;
            xi[0] += pi[0] * alpha;
            xi[1] += pi[1] * alpha;
            xi[2] += pi[2] * alpha;
            const double r0 = ri[0] + qi[0] * nalpha, r1 = ri[1] + qi[1] * nalpha,
                         r2 = ri[2] + qi[2] * nalpha;
            ri[0] = r0;
            ri[1] = r1;
            ri[2] = r2;
            sum += r0 * r0 + r1 * r1 + r2 * r2;
        }
        total += sum;
    }
    return total;
}

iter_op *cg_linear_solver_op(st_component *self) { return &((cg_solver *)self)->op; }

static st_status cg_init(st_component *self, st_error *err)
{
    cg_solver *s = (cg_solver *)self;
    ST_TRY(iter_parse_template(self, s->template_name, &s->op.assembled, err));
    /* SOFA marks the three as required: a warning when unset. */
    static const char *const required[] = {"iterations", "tolerance", "threshold"};
    static const char *const defaults[] = {"25", "1e-05", "1e-05"};
    for (int i = 0; i < 3; i++)
        if (!st_component_is_set(self, required[i]))
            st_component_warn(self, "Required data \"%s\" has not been set. Falling back to "
                                    "default value: %s",
                              required[i], defaults[i]);
    if (s->tolerance < 0.0) {
        st_component_warn(self, "'tolerance' must be a positive value: set to 1e-05");
        s->tolerance = 1e-5;
    }
    if (s->threshold < 0.0) {
        st_component_warn(self, "'threshold' must be a positive value: set to 1e-05");
        s->threshold = 1e-5;
    }
    s->time_step_count = 0;
    s->residual = 0.0;
    s->nb_iterations = 0;
    return ST_OK;
}

static st_status cg_bind(st_component *self, st_system *sys, st_error *err)
{
    cg_solver *s = (cg_solver *)self;
    ST_TRY(iter_op_bind(&s->op, sys, err));
    ST_TRY(st_system_vec_alloc(sys, &s->r, err));
    ST_TRY(st_system_vec_alloc(sys, &s->p, err));
    ST_TRY(st_system_vec_alloc(sys, &s->q, err));
    s->time_step_count = 0;
    /* the products each solve may ask for, the right-hand side's included:
     * element force fields assemble their stiffness at the first product of
     * a step when that pays (st_mparams.dforce_calls) */
    if (!s->op.assembled)
        sys->mp.dforce_calls = s->iterations;
    return ST_OK;
}

static st_status cg_set_system(st_component *self, st_system *sys, double mf, double bf, double kf,
                               st_error *err)
{
    cg_solver *s = (cg_solver *)self;
    if (s->op.sys != sys || !s->r)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    return iter_op_set(&s->op, mf, bf, kf, err);
}

static st_status cg_solve(st_component *self, st_system *sys, double *x, const double *b,
                          st_error *err)
{
    cg_solver *s = (cg_solver *)self;
    if (s->op.sys != sys || !s->r)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    double *r = s->r, *p = s->p, *q = s->q;
    const bool first_solve = s->time_step_count == 0;
    if (!s->op.assembled)
        sys->mp.dforce_calls = s->iterations; /* as cg_bind (iterations may have changed) */
    if (s->warm_start) {
        /* r = b - A x */
        iter_op_mul(&s->op, q, x);
        st_vec_op(sys, r, b, q, -1.0);
    } else {
        st_vec_clear(sys, x);
        st_vec_eq(sys, r, b);
    }
    const double nb = st_vec_norm(sys, b);
    unsigned done = 0;
    if (nb != 0.0) {
        const bool fused = cg_fusable(sys);
        double rho_prev = 0.0, rho_next = 0.0;
        bool have_next = false; /* rho_next is r.r of the current r */
        for (unsigned it = 1; it <= s->iterations; it++) {
            const double rho = have_next ? rho_next : st_vec_dot(sys, r, r);
            const double e = sqrt(rho) / nb;
            if (e <= s->tolerance) {
                if (it == 1 && first_solve)
                    st_component_warn(self, "tolerance reached at first iteration of CG. Check "
                                            "the 'tolerance' data field, you might decrease it");
                else
                    break;
            }
            if (it == 1)
                st_vec_eq(sys, p, r);
            else
                st_vec_op(sys, p, r, p, rho / rho_prev); /* p = r + beta p */
            iter_op_mul(&s->op, q, p);
            const double den = st_vec_dot(sys, p, q);
            if (den == 0.0) {
                st_component_warn(self, "den = 0.0, break the iterations");
                break;
            }
            if (fabs(den) <= s->threshold) {
                if (it == 1 && first_solve)
                    st_component_warn(self, "denominator threshold reached at first iteration "
                                            "of CG. Check the 'threshold' data field, you might "
                                            "decrease it");
                else
                    break;
            }
            const double alpha = rho / den;
            if (fused) {
                rho_next = cg_update(sys, x, r, p, q, alpha);
                have_next = true;
            } else {
                st_vec_peq(sys, x, p, alpha);
                st_vec_peq(sys, r, q, -alpha);
            }
            rho_prev = rho;
            done = it;
        }
        s->residual = sqrt(have_next && done > 0 ? rho_next : st_vec_dot(sys, r, r)) / nb;
    } else {
        s->residual = 0.0;
        if (first_solve) {
            st_vec_eq(sys, p, r);
            iter_op_mul(&s->op, q, p);
            const double den = st_vec_dot(sys, p, q);
            if (den != 0.0 && fabs(den) <= s->threshold)
                st_component_warn(self, "denominator threshold reached at first iteration of "
                                        "CG. Check the 'threshold' data field, you might "
                                        "decrease it");
        }
    }
    s->nb_iterations = done;
    st_timer_val_set("CG iterations", (double)done); /* SOFA's timer label */
    s->time_step_count++;
    if (!isfinite(s->residual))
        return st_component_solver_failure(self, err,
                                           "the residual is %g after %u iterations: the system "
                                           "matrix or right-hand side is not finite",
                                           s->residual, done);
    return ST_OK;
}

static void cg_cleanup(st_component *self)
{
    cg_solver *s = (cg_solver *)self;
    iter_op_free(&s->op);
}

/* Checkpoints: the solve counter (the first solve's warnings); a warm
 * start's previous solution is the ODE solver's system vector. */
static st_status cg_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    cg_solver *s = (cg_solver *)self;
    return st_checkpoint_data(ck, &s->time_step_count, sizeof s->time_step_count, err);
}

static const st_checkpoint_ops cg_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = cg_checkpoint,
};

static const st_linsolver_ops cg_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = cg_bind,
    .set_system = cg_set_system,
    .solve = cg_solve,
};

const st_class cg_linear_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "CGLinearSolver",
    .category = "LinearSolver",
    .description = "Linear system solver using the conjugate gradient iterative algorithm",
    .instance_size = sizeof(cg_solver),
    .fields = cg_fields,
    .init = cg_init,
    .cleanup = cg_cleanup,
    .linsolver = &cg_ops,
    .checkpoint = &cg_checkpoint_ops,
};
