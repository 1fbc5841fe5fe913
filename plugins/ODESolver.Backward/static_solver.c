/* static_solver.c - StaticSolver: static equilibrium by Newton-Raphson
 * iterations on the residual r(x) = P f(x), solving (-K) dx = r with the
 * linear solver, with SOFA's line search and convergence tests. The data
 * of the iterations live in a NewtonRaphsonSolver (link "newtonSolver",
 * else the first one below the solver's node); without one the solver uses
 * its own defaults (as SOFA's automatically created one), fed by the
 * deprecated attributes. dt and v are ignored. */
#include <string.h>

#include "backward_common.h"
#include "newton_raphson.h"

typedef struct static_solver {
    st_component base;
    st_component *newton_link;   /* "newtonSolver" link */
    st_component *linear_solver; /* "linearSolver" link */
    /* Deprecated attributes forwarded to the Newton data. */
    unsigned newton_iterations;  /* "newton_iterations" */
    double abs_corr, rel_corr, abs_res, rel_res; /* "*_tolerance_threshold" */
    bool diverge_growing;        /* "should_diverge_when_residual_is_growing" */
    /* Runtime. */
    st_component *ls;
    newton_raphson *nr;          /* the NewtonRaphsonSolver, or NULL */
    newton_params own;           /* used when nr is NULL */
    char *status;                /* status buffer when nr is NULL */
    double *r, *dx, *x0;         /* system-owned */
} static_solver;

static const st_field static_fields[] = {
    ST_LINK(static_solver, newton_link, "newtonSolver", ST_LINK_ANY,
            "Link to a NewtonRaphsonSolver"),
    ST_LINK(static_solver, linear_solver, "linearSolver", ST_LINK_LINEAR_SOLVER,
            "Linear solver used by this component"),
    ST_UINT(static_solver, newton_iterations, "newton_iterations", "1",
            "Deprecated: use maxNbIterationsNewton of a NewtonRaphsonSolver"),
    ST_REAL(static_solver, abs_corr, "absolute_correction_tolerance_threshold", "0",
            "Deprecated: use absoluteEstimateDifferenceThreshold of a NewtonRaphsonSolver"),
    ST_REAL(static_solver, rel_corr, "relative_correction_tolerance_threshold", "0",
            "Deprecated: use relativeEstimateDifferenceThreshold of a NewtonRaphsonSolver"),
    ST_REAL(static_solver, abs_res, "absolute_residual_tolerance_threshold", "1e-5",
            "Deprecated: use absoluteResidualStoppingThreshold of a NewtonRaphsonSolver"),
    ST_REAL(static_solver, rel_res, "relative_residual_tolerance_threshold", "1e-5",
            "Deprecated: use relativeInitialStoppingThreshold of a NewtonRaphsonSolver"),
    ST_BOOL(static_solver, diverge_growing, "should_diverge_when_residual_is_growing", "false",
            "Deprecated (accepted, unused)"),
    ST_FIELD_END};

static const char *const deprecated[] = {
    "newton_iterations", "absolute_correction_tolerance_threshold",
    "relative_correction_tolerance_threshold", "absolute_residual_tolerance_threshold",
    "relative_residual_tolerance_threshold", "should_diverge_when_residual_is_growing", NULL};

static st_status ss_init(st_component *self, st_error *err)
{
    static_solver *s = (static_solver *)self;
    ST_TRY(backward_linear_solver(self, s->linear_solver, &s->ls, err));
    if (s->newton_link) {
        if (s->newton_link->cls != &newton_raphson_solver_class)
            return st_component_error(self, "newtonSolver", err, ST_ELINK,
                                      "the linked component is not a NewtonRaphsonSolver");
        s->nr = (newton_raphson *)s->newton_link;
    } else {
        s->nr = newton_find(self);
    }
    bool any_deprecated = false;
    for (size_t i = 0; deprecated[i]; i++)
        if (st_component_is_set(self, deprecated[i])) {
            any_deprecated = true;
            st_component_warn(self, "'%s' is deprecated: set the data of a NewtonRaphsonSolver "
                                    "instead",
                              deprecated[i]);
        }
    if (!s->nr) {
        st_component_warn(self, "A Newton-Raphson solver is required by this component but has "
                                "not been found. It will be created automatically");
        /* NewtonRaphsonSolver's defaults, then the deprecated attributes. */
        s->own = (newton_params){1, 1e-5, 1e-5, 1e-5, 0.0, 0.0, 1, 0.5, true, true, true};
        if (any_deprecated) {
            if (st_component_is_set(self, "newton_iterations"))
                s->own.max_it = s->newton_iterations;
            if (st_component_is_set(self, "absolute_correction_tolerance_threshold"))
                s->own.abs_estimate = s->abs_corr;
            if (st_component_is_set(self, "relative_correction_tolerance_threshold"))
                s->own.rel_estimate = s->rel_corr;
            if (st_component_is_set(self, "absolute_residual_tolerance_threshold"))
                s->own.abs_residual = s->abs_res;
            if (st_component_is_set(self, "relative_residual_tolerance_threshold"))
                s->own.rel_estimate = s->rel_res; /* as SOFA forwards it */
        }
    }
    return ST_OK;
}

static st_status ss_bind(st_component *self, st_system *sys, st_error *err)
{
    static_solver *s = (static_solver *)self;
    ST_TRY(st_system_vec_alloc(sys, &s->r, err));
    ST_TRY(st_system_vec_alloc(sys, &s->dx, err));
    ST_TRY(st_system_xvec_alloc(sys, &s->x0, err));
    /* Status text and residual graph storage, allocated once. */
    char **status = s->nr ? &s->nr->status : &s->status;
    st_free(*status);
    *status = st_calloc(NR_STATUS_SIZE, 1);
    if (!*status)
        return st_component_error(self, NULL, err, ST_ENOMEM, "out of memory");
    strcpy(*status, "Undefined");
    if (s->nr) {
        unsigned max_it = s->nr->p.max_it;
        ST_TRY(st_array_resize(&s->nr->residual_graph, ST_T_REALS, (size_t)max_it + 1, err));
        s->nr->residual_graph.n = 0;
    }
    return ST_OK;
}

static void ss_cleanup(st_component *self)
{
    static_solver *s = (static_solver *)self;
    st_free(s->status);
    s->status = NULL;
}

/* r = P f(x); returns |r|^2. */
static double residual(st_system *sys, double *r)
{
    st_system_compute_force(sys, r, sys->x, sys->v);
    st_system_project_response(sys, r);
    return st_vec_dot(sys, r, r);
}

/* |x|^2 over the independent states' coordinates, summed per point then per
 * state as st_vec_dot does. */
static double coord_norm2(const st_system *sys)
{
    double r = 0.0;
    for (size_t k = 0; k < sys->nindep; k++) {
        const st_mstate *ms = sys->states[k];
        const double *x = st_slice_x(sys->x, ms);
        unsigned w = ms->type->coord_size;
        double rs = 0.0;
        for (size_t i = 0; i < ms->n; i++) {
            double p = 0.0;
            for (unsigned j = 0; j < w; j++)
                p += x[w * i + j] * x[w * i + j];
            rs += p;
        }
        r += rs;
    }
    return r;
}

/* The equation P f(x) = 0 for newton_solve. */
typedef struct static_eq {
    static_solver *s;
    st_system *sys;
} static_eq;

static double eq_evaluate(void *ctx)
{
    static_eq *e = ctx;
    return residual(e->sys, e->s->r);
}

/* (-K) dx = r. */
static st_status eq_solve_linear(void *ctx, st_error *err)
{
    static_eq *e = ctx;
    ST_TRY(st_linsolver_set_system(e->s->ls, e->sys, 0.0, 0.0, -1.0, err));
    return st_linsolver_solve(e->s->ls, e->sys, e->s->dx, e->s->r, err);
}

/* x += alpha dx, then the mapped positions. */
static void eq_update(void *ctx, double alpha)
{
    static_eq *e = ctx;
    st_vec_x_peq(e->sys, e->sys->x, e->s->dx, alpha);
    st_system_propagate_x(e->sys, e->sys->x);
}

static double eq_norm_dx(void *ctx)
{
    static_eq *e = ctx;
    return st_vec_dot(e->sys, e->s->dx, e->s->dx);
}

static double eq_norm_guess(void *ctx)
{
    static_eq *e = ctx;
    return coord_norm2(e->sys);
}

/* One solve: SOFA's Newton-Raphson iterations (SOFA's NewtonRaphsonSolver.cpp; newton_solve).
 * A failed line search does not stop the iterations: the status becomes
 * DivergedLineSearch, the state goes back to the full step (when more than
 * one try was allowed), the convergence tests still run and the next
 * iteration starts from there; without convergence after maxIt iterations
 * the final status is DivergedMaxIterations. */
static st_status ss_solve(st_component *self, st_system *sys, double dt, st_error *err)
{
    static_solver *s = (static_solver *)self;
    const newton_params *p = s->nr ? &s->nr->p : &s->own;
    char *status = s->nr ? s->nr->status : s->status;
    (void)dt;
    sys->mp.implicit = true;
    st_vec_x_eq(sys, s->x0, sys->x);
    static_eq e = {s, sys};
    const newton_function f = {&e, eq_evaluate, eq_solve_linear, eq_update, eq_norm_dx,
                               eq_norm_guess};
    st_timer_step_begin("StaticSolver::Solve");
    st_status rc = newton_solve(self, p, &f, status, s->nr ? &s->nr->residual_graph : NULL, err);
    st_timer_step_end("StaticSolver::Solve");
    ST_TRY(rc);
    /* updateStateWhenDiverged = false puts back the state the solve started
     * from. (settee's reading of the field: some SOFA
     * versions declare it but never read it.) */
    if (status && strcmp(status, "DivergedMaxIterations") == 0 && !p->update_when_diverged) {
        st_vec_x_eq(sys, sys->x, s->x0);
        st_system_propagate_x(sys, sys->x);
    }
    return ST_OK;
}

static const st_odesolver_ops ss_ops = {
    .struct_size = sizeof(st_odesolver_ops),
    .bind = ss_bind,
    .solve = ss_solve,
};

const st_class static_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "StaticSolver",
    .category = "OdeSolver",
    .description = "Static equilibrium solver: Newton-Raphson iterations on P f(x) = 0",
    .instance_size = sizeof(static_solver),
    .fields = static_fields,
    .init = ss_init,
    .cleanup = ss_cleanup,
    .odesolver = &ss_ops,
};
