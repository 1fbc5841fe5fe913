/* linear_solver_constraint_correction.c - LinearSolverConstraintCorrection:
 * the compliance of a state through the linear solver of its ODE solver,
 * A the matrix the solver set up for the free motion (EulerImplicitSolver:
 * M - h B - h^2 K), as SOFA:
 *   W += factor * J A^-1 J^T (one solve per row on the state), factor the
 *   ODE solver's position integration factor, plus regularizationTerm on
 *   those rows' diagonal;
 *   dx = A^-1 J^T lambda, x = x_free + pf dx, v = v_free + vf dx.
 * Works with any linear solver (SparseLDLSolver reuses its factorization,
 * CGLinearSolver iterates). The right-hand sides are projected by the
 * system's projective constraints. The state must be an independent one
 * (not the output of a mapping). */
#include "correction_common.h"

typedef struct lsc {
    st_component base;
    bool wire_optimization;     /* "wire_optimization" */
    double regularization;      /* "regularizationTerm" */
    st_component *linear_solver; /* "linearSolver" */
    st_component *ode_solver;   /* "ODESolver" */
    /* Runtime: the state at init, the rest at the end of init. */
    st_mstate *ms;
    corr_binding b;
} lsc;

static const st_field lsc_fields[] = {
    ST_IGNORED(lsc, wire_optimization, "wire_optimization", ST_T_BOOL, bool, "false",
               "constraints are reordered along a wire-like topology (from tip to base) "
               "(SOFA reorders only the unbuilt Gauss-Seidel's sequence, LCPConstraintSolver "
               "build_lcp=false; settee builds that system, where the order does not apply)"),
    ST_REAL(lsc, regularization, "regularizationTerm", "0",
            "Add regularization factor times the identity matrix to the compliance W when "
            "solving constraints"),
    ST_LINK(lsc, linear_solver, "linearSolver", ST_LINK_LINEAR_SOLVER,
            "Link towards the linear solver used to compute the compliance matrix, requiring "
            "the inverse of the linear system matrix"),
    ST_LINK(lsc, ode_solver, "ODESolver", ST_LINK_ODE_SOLVER,
            "Link towards the ODE solver used to recover the integration factors"),
    ST_FIELD_END};

static st_status lsc_init(st_component *self, st_error *err)
{
    lsc *c = (lsc *)self;
    c->ms = st_component_mstate(self);
    if (!c->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors to correct");
    return corr_check_solver_links(self, c->linear_solver, c->ode_solver, err);
}

/* The system, solvers and vectors, once the systems exist. */
static st_status lsc_bind(st_component *self, st_error *err)
{
    lsc *c = (lsc *)self;
    c->b.sys = c->ms->system;
    if (!c->b.sys)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "state '%s' is integrated by no ODE solver", c->ms->base.name);
    if (c->ms->mapped)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "state '%s' is the output of a mapping: not supported yet",
                                  c->ms->base.name);
    return corr_bind_system(self, &c->b, c->ode_solver, c->linear_solver, err);
}

static void lsc_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    corr_bind_on_init_done(self, ev, &((lsc *)self)->b, lsc_bind);
}

static st_status lsc_add_compliance(st_component *self, const st_cjacobian *J, double *W,
                                    size_t dim, st_error *err)
{
    lsc *c = (lsc *)self;
    if (!c->b.ready)
        ST_TRY(lsc_bind(self, err));
    double factor = corr_position_factor(c->b.ode, corr_dt(self, c->ms));
    return corr_add_solved_compliance(&c->b, c->ms, J, factor, c->regularization, W, dim, err);
}

static st_status lsc_apply(st_component *self, const st_cjacobian *J, const double *lambda,
                           st_error *err)
{
    lsc *c = (lsc *)self;
    if (!c->b.ready)
        ST_TRY(lsc_bind(self, err));
    double dt = corr_dt(self, c->ms);
    double pf = corr_position_factor(c->b.ode, dt), vf = corr_velocity_factor(c->b.ode, dt);
    corr_rhs_jt_lambda(&c->b, c->ms, J, lambda); /* solved even when it is zero */
    ST_TRY(corr_solve(c->b.ls, c->b.sys, c->b.sol, c->b.rhs, err));
    corr_move_state(c->ms, st_slice(c->b.sol, c->ms), pf, vf);
    return ST_OK;
}

static const st_ccorrection_ops lsc_ops = {
    .struct_size = sizeof(st_ccorrection_ops),
    .add_compliance = lsc_add_compliance,
    .apply_correction = lsc_apply,
};

static const char *const lsc_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Rigid3d", NULL};

const st_class linear_solver_constraint_correction_class = {
    .struct_size = sizeof(st_class),
    .name = "LinearSolverConstraintCorrection",
    .category = "ConstraintCorrection",
    .description = "Component computing constraint forces within a simulated body using the "
                   "compliance method through the linear solver of the body's ODE solver",
    .instance_size = sizeof(lsc),
    .fields = lsc_fields,
    .init = lsc_init,
    .on_event = lsc_on_event,
    .templates = lsc_templates,
    .constraint_correction = &lsc_ops,
};
