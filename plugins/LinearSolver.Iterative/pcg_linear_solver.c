/* pcg_linear_solver.c - PCGLinearSolver and ShewchukPCGLinearSolver (its
 * former name in SOFA, same data and algorithm): SOFA's preconditioned
 * conjugate gradient. The preconditioner is another linear solver (link
 * "preconditioner": JacobiPreconditioner, BlockJacobiPreconditioner,
 * SSORPreconditioner, or a direct solver such as SparseLDLSolver); without
 * one it runs as a plain conjugate gradient with SOFA's PCG stopping test
 * (r.z <= tolerance * b.b). Starts from the solution vector as given.
 *
 * The preconditioner's matrix (and factor) is rebuilt at the first system
 * and then every update_step-th one (SOFA's PCG before v25.12; never again
 * with update_step 0 or build_precond false), or, when the PCG works with
 * a PreconditionedMatrixFreeSystem (its linearSystem link, or the one in
 * its node), every assemblingRate-th one as that component says (SOFA's
 * PCG since v25.12). In between, the stale factor preconditions the
 * current matrix: the iterations still converge to the current system. */
#include <math.h>

#include "iterative_common.h"

typedef struct pcg_solver {
    st_component base;
    char *template_name;   /* "template" */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem": a PreconditionedMatrixFreeSystem */
    unsigned iterations;   /* "iterations" */
    double tolerance;      /* "tolerance": on r.z / b.b */
    bool use_precond;      /* "use_precond" */
    st_component *preconditioner; /* "preconditioner" link */
    unsigned update_step;  /* "update_step" */
    bool build_precond;    /* "build_precond" */
    unsigned nb_iterations; /* "nbIterations" (output) */
    double residual;       /* "residual" (output): r.z / b.b at the end */
    unsigned nbuilds;      /* "preconditionerBuilds" (output) */
    double residual_norm;  /* "residualNorm" (output): |r| / |b| at the end */
    /* Runtime. */
    iter_op op;
    double *r, *w, *s;
    iter_pmfs *system;     /* the PreconditionedMatrixFreeSystem, if any */
    bool first;
    unsigned next_refresh; /* SOFA's next_refresh_step */
    unsigned counter;      /* the system's assembly counter */
    /* The state the preconditioner was last built at, for checkpoints: x
     * and v are system scratch vectors (saved by the kernel), the factors
     * and time are saved by pcg_checkpoint. After a resume the
     * preconditioner is rebuilt there before the first solve. */
    double *bx, *bv;
    double *tx, *tv, *tf;  /* own memory: the current state while rebuilding */
    double bmf, bbf, bkf, btime;
    bool built, pending;
} pcg_solver;

static const st_field pcg_fields[] = {
    ST_STRING(pcg_solver, template_name, "template", "GraphScattered",
              "GraphScattered (matrix-free products) or an assembled matrix type"),
    ST_FIELD_EX(pcg_solver, iterations, "iterations", ST_T_UINT, unsigned, "25",
                "Maximum number of iterations after which the iterative descent of the Conjugate "
                "Gradient must stop (at least 1: 0 would never solve)", 0, NULL, 1.0,
                4294967295.0),
    ST_REAL(pcg_solver, tolerance, "tolerance", "1e-5",
            "Desired accuracy of the Conjugate Gradient solution evaluating: |r|^2/|b|^2 (ratio "
            "of current residual norm over initial residual norm)"),
    ST_BOOL(pcg_solver, use_precond, "use_precond", "true", "Use a preconditioner"),
    ST_LINK(pcg_solver, preconditioner, "preconditioner", ST_LINK_LINEAR_SOLVER,
            "Link towards the linear solver used to precondition the conjugate gradient"),
    ST_UINT(pcg_solver, update_step, "update_step", "1",
            "Number of steps before the next refresh of preconditioners (0: built at the first "
            "step only). With a PreconditionedMatrixFreeSystem, its assemblingRate instead"),
    ST_BOOL(pcg_solver, build_precond, "build_precond", "true",
            "Build the preconditioners, if false build the preconditioner only at the initial "
            "step"),
    ST_OUTPUT(pcg_solver, nb_iterations, "nbIterations", ST_T_UINT, unsigned,
              "Number of iterations done by the last solve (settee)"),
    ST_OUTPUT(pcg_solver, residual, "residual", ST_T_REAL, double,
              "r.z / b.b at the end of the last solve (settee)"),
    ST_OUTPUT(pcg_solver, residual_norm, "residualNorm", ST_T_REAL, double,
              "|r| / |b| at the end of the last solve, r the recurrence's residual (settee; "
              "CGLinearSolver's residual measure)"),
    ST_OUTPUT(pcg_solver, nbuilds, "preconditionerBuilds", ST_T_UINT, unsigned,
              "Number of times the preconditioner's matrix was built (and factored) so far "
              "(settee)"),
    ST_IGNORED(pcg_solver, parallel_inverse, "parallelInverseProduct", ST_T_BOOL, bool, "false",
               "Parallelize the computation of the product J*M^{-1}*J^T where M is the matrix "
               "of the linear system and J is any matrix with compatible dimensions"),
    ST_LINK(pcg_solver, linear_system, "linearSystem", ST_LINK_ANY,
            "The linear system to solve: a PreconditionedMatrixFreeSystem (its assemblingRate "
            "sets the preconditioner's refresh); when unset, the one in this node if any"),
    ST_FIELD_END};

static st_status pcg_init(st_component *self, st_error *err)
{
    pcg_solver *s = (pcg_solver *)self;
    ST_TRY(iter_parse_template(self, s->template_name, &s->op.assembled, err));
    if (!s->preconditioner)
        st_component_info(self, "Link 'preconditioner' to the desired linear solver should be set "
                                "to precondition the conjugate gradient. Without preconditioner, "
                                "the solver will act as a regular conjugate gradient solver.");
    else if (!st_component_has_role(s->preconditioner, ST_ROLE_LINSOLVER) ||
             s->preconditioner == self)
        return st_component_error(self, "preconditioner", err, ST_ELINK,
                                  "the preconditioner must be another linear solver");
    ST_TRY(iter_find_pmfs(self, s->linear_system, &s->system, err));
    if (s->system && (st_component_is_set(self, "update_step") ||
                      st_component_is_set(self, "build_precond")))
        return st_component_error(self, st_component_is_set(self, "update_step") ? "update_step" : "build_precond", err,
                                  ST_ESCENE,
                                  "both this solver's update_step/build_precond and the "
                                  "assemblingRate of '%s' set the preconditioner's refresh: "
                                  "keep one",
                                  s->system->base.name);
    s->first = true;
    s->nbuilds = 0;
    return ST_OK;
}

static st_status pcg_bind(st_component *self, st_system *sys, st_error *err)
{
    pcg_solver *s = (pcg_solver *)self;
    ST_TRY(iter_op_bind(&s->op, sys, err));
    ST_TRY(st_system_vec_alloc(sys, &s->r, err));
    ST_TRY(st_system_vec_alloc(sys, &s->w, err));
    ST_TRY(st_system_vec_alloc(sys, &s->s, err));
    s->first = true;
    s->counter = s->system ? s->system->assembling_rate : 0;
    if (s->preconditioner) {
        ST_TRY(st_system_xvec_alloc(sys, &s->bx, err));
        ST_TRY(st_system_vec_alloc(sys, &s->bv, err));
        st_free(s->tx);
        st_free(s->tv);
        st_free(s->tf);
        s->tx = st_malloc((sys->xsize_all ? sys->xsize_all : 1) * sizeof(double));
        s->tv = st_malloc((sys->size_all ? sys->size_all : 1) * sizeof(double));
        s->tf = st_malloc((sys->size_all ? sys->size_all : 1) * sizeof(double));
        if (!s->tx || !s->tv || !s->tf)
            return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    return ST_OK;
}

/* After a resume: builds the preconditioner again at the state, factors and
 * time it was built at before the checkpoint (so that its factor is the same
 * to the bit), then puts the current state back and computes the forces
 * there again, so that the force fields' kept state (rotations, directions)
 * is the current one. */
static st_status rebuild_saved(pcg_solver *s, st_system *sys, st_error *err)
{
    memcpy(s->tx, sys->x, sys->xsize_all * sizeof(double));
    memcpy(s->tv, sys->v, sys->size_all * sizeof(double));
    double t = sys->mp.time;
    memcpy(sys->x, s->bx, sys->xsize_all * sizeof(double));
    memcpy(sys->v, s->bv, sys->size_all * sizeof(double));
    sys->mp.time = s->btime;
    st_system_compute_force(sys, s->tf, sys->x, sys->v);
    st_status st = s->preconditioner->cls->linsolver->set_system(s->preconditioner, sys, s->bmf,
                                                                 s->bbf, s->bkf, err);
    memcpy(sys->x, s->tx, sys->xsize_all * sizeof(double));
    memcpy(sys->v, s->tv, sys->size_all * sizeof(double));
    sys->mp.time = t;
    st_system_compute_force(sys, s->tf, sys->x, sys->v);
    return st;
}

/* Whether this system's preconditioner matrix is built (SOFA's schedule). */
static bool refresh_due(pcg_solver *s)
{
    if (s->system) {
        /* PreconditionedMatrixFreeSystem: counter starts at the rate. */
        if (++s->counter >= s->system->assembling_rate) {
            s->counter = 0;
            return true;
        }
        return false;
    }
    if (s->first) {
        s->first = false;
        s->next_refresh = 1;
        return true;
    }
    if (!s->build_precond || s->update_step == 0)
        return false;
    if (s->next_refresh >= s->update_step) {
        s->next_refresh = 1;
        return true;
    }
    s->next_refresh++;
    return false;
}

static bool apply_precond(const pcg_solver *s) { return s->preconditioner && s->use_precond; }

static st_status pcg_set_system(st_component *self, st_system *sys, double mf, double bf,
                                double kf, st_error *err)
{
    pcg_solver *s = (pcg_solver *)self;
    if (s->op.sys != sys || !s->r)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    ST_TRY(iter_op_set(&s->op, mf, bf, kf, err));
    if (s->pending && apply_precond(s)) {
        s->pending = false;
        ST_TRY(rebuild_saved(s, sys, err));
    }
    if (apply_precond(s) && refresh_due(s)) {
        ST_TRY(s->preconditioner->cls->linsolver->set_system(s->preconditioner, sys, mf, bf, kf,
                                                             err));
        s->nbuilds++;
        if (s->bx) {
            memcpy(s->bx, sys->x, sys->xsize_all * sizeof(double));
            memcpy(s->bv, sys->v, sys->size_all * sizeof(double));
            s->bmf = mf;
            s->bbf = bf;
            s->bkf = kf;
            s->btime = sys->mp.time;
            s->built = true;
        }
    }
    return ST_OK;
}

static st_status pcg_solve(st_component *self, st_system *sys, double *x, const double *b,
                           st_error *err)
{
    pcg_solver *s = (pcg_solver *)self;
    if (s->op.sys != sys || !s->r)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    double *r = s->r, *w = s->w, *q = s->s;
    const bool pre = apply_precond(s);
    const st_linsolver_ops *pops = pre ? s->preconditioner->cls->linsolver : NULL;
    const double b_norm = st_vec_dot(sys, b, b);
    const double tol = s->tolerance * b_norm;
    /* r = b - A x */
    iter_op_mul(&s->op, r, x);
    st_vec_op(sys, r, b, r, -1.0);
    if (pre)
        ST_TRY(pops->solve(s->preconditioner, sys, w, r, err));
    else
        st_vec_eq(sys, w, r);
    double r_norm = st_vec_dot(sys, r, w);
    unsigned it = 1;
    while (it <= s->iterations && r_norm > tol) {
        iter_op_mul(&s->op, q, w);
        const double dtq = st_vec_dot(sys, w, q);
        const double alpha = r_norm / dtq;
        st_vec_peq(sys, x, w, alpha);
        st_vec_peq(sys, r, q, -alpha);
        if (pre)
            ST_TRY(pops->solve(s->preconditioner, sys, q, r, err));
        else
            st_vec_eq(sys, q, r);
        const double delta_old = r_norm;
        r_norm = st_vec_dot(sys, r, q);
        st_vec_op(sys, w, q, w, r_norm / delta_old); /* w = s + beta w */
        it++;
    }
    s->nb_iterations = it - 1;
    s->residual = b_norm != 0.0 ? r_norm / b_norm : 0.0;
    s->residual_norm = b_norm != 0.0 ? sqrt(st_vec_dot(sys, r, r) / b_norm) : 0.0;
    if (!isfinite(r_norm) || !isfinite(b_norm))
        return st_component_solver_failure(self, err,
                                           "the residual is %g after %u iterations: the system "
                                           "matrix, the preconditioner or the right-hand side "
                                           "is not finite",
                                           r_norm, s->nb_iterations);
    return ST_OK;
}

static void pcg_cleanup(st_component *self)
{
    pcg_solver *s = (pcg_solver *)self;
    iter_op_free(&s->op);
    st_free(s->tx);
    st_free(s->tv);
    st_free(s->tf);
    s->tx = s->tv = s->tf = NULL;
}

static const st_linsolver_ops pcg_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = pcg_bind,
    .set_system = pcg_set_system,
    .solve = pcg_solve,
};

/* Checkpoints: the refresh schedule, and where the preconditioner was last
 * built (factors and time; x and v are system scratch vectors, which the
 * kernel saves), so that a resumed run rebuilds the same stale factor. */
static st_status pcg_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    pcg_solver *s = (pcg_solver *)self;
    ST_TRY(st_checkpoint_data(ck, &s->first, sizeof s->first, err));
    ST_TRY(st_checkpoint_data(ck, &s->next_refresh, sizeof s->next_refresh, err));
    ST_TRY(st_checkpoint_data(ck, &s->counter, sizeof s->counter, err));
    ST_TRY(st_checkpoint_data(ck, &s->nbuilds, sizeof s->nbuilds, err));
    double f[4] = {s->bmf, s->bbf, s->bkf, s->btime};
    ST_TRY(st_checkpoint_data(ck, f, sizeof f, err));
    ST_TRY(st_checkpoint_data(ck, &s->built, sizeof s->built, err));
    if (st_checkpoint_reading(ck)) {
        s->bmf = f[0];
        s->bbf = f[1];
        s->bkf = f[2];
        s->btime = f[3];
        s->pending = s->built && s->bx;
    }
    return ST_OK;
}

static const st_checkpoint_ops pcg_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = pcg_checkpoint,
};

const st_class pcg_linear_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "PCGLinearSolver",
    .category = "LinearSolver",
    .description = "Linear system solver using the preconditioned conjugate gradient",
    .instance_size = sizeof(pcg_solver),
    .fields = pcg_fields,
    .init = pcg_init,
    .cleanup = pcg_cleanup,
    .linsolver = &pcg_ops,
    .checkpoint = &pcg_checkpoint_ops,
};

const st_class shewchuk_pcg_linear_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "ShewchukPCGLinearSolver",
    .category = "LinearSolver",
    .description = "PCGLinearSolver under its former SOFA name (renamed in SOFA v24.12): same "
                   "data, same algorithm",
    .instance_size = sizeof(pcg_solver),
    .fields = pcg_fields,
    .init = pcg_init,
    .cleanup = pcg_cleanup,
    .linsolver = &pcg_ops,
    .checkpoint = &pcg_checkpoint_ops,
};
