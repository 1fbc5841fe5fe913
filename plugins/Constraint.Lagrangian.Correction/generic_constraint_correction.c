/* generic_constraint_correction.c - GenericConstraintCorrection: the
 * compliance of every state of a linear system through its linear solver
 * (SOFA's buildComplianceMatrix / applyConstraintForce), A the matrix the
 * solver set up for the free motion:
 *   W += cf * pf * J A^-1 J^T over the rows with a term on the system (one
 *   solve per such row), plus regularizationTerm on their diagonal;
 *   dx = A^-1 J^T lambda, x = x_free + cf pf dx, v = v_free + cf vf dx,
 * cf the complianceFactor, pf and vf the ODE solver's integration factors
 * (the "ODESolver" link, else the system's). Unlike
 * LinearSolverConstraintCorrection it covers every independent state the
 * solver integrates, not only its node's; the rows reach them through the
 * mappings (the constraint solver took them down already).
 * In the VEL order (solveVelocityConstraintFirst), SOFA's
 * applyVelocityCorrection: W takes cf times the velocity factor,
 * v = v_free + vf dx (cf not applied), x is left to the animation loop. */
#include "correction_common.h"

typedef struct gcc {
    st_component base;
    st_component *linear_solver; /* "linearSolver" */
    st_component *ode_solver;    /* "ODESolver" */
    double compliance_factor;    /* "complianceFactor" */
    double regularization;       /* "regularizationTerm" */
    corr_binding b;              /* runtime, set at the end of init */
    bool vel_warned;             /* the VEL order's complianceFactor said */
} gcc;

static const st_field gcc_fields[] = {
    ST_LINK(gcc, linear_solver, "linearSolver", ST_LINK_LINEAR_SOLVER,
            "Link towards the linear solver used to compute the compliance matrix, requiring "
            "the inverse of the linear system matrix"),
    ST_LINK(gcc, ode_solver, "ODESolver", ST_LINK_ODE_SOLVER,
            "Link towards the ODE solver used to recover the integration factors"),
    ST_REAL(gcc, compliance_factor, "complianceFactor", "1",
            "Factor applied to the position factor and velocity factor used to calculate "
            "compliance matrix"),
    ST_REAL(gcc, regularization, "regularizationTerm", "0",
            "Add regularization factor times the identity matrix to the compliance W when "
            "solving constraints"),
    ST_FIELD_END};

static st_status gcc_init(st_component *self, st_error *err)
{
    gcc *c = (gcc *)self;
    return corr_check_solver_links(self, c->linear_solver, c->ode_solver, err);
}

/* The system: the one of the state of the node (else of its nearest
 * ancestor), else of the state of the node of the linked ODE solver or of
 * the ODE solver of the node or above. */
static st_system *find_system(gcc *c)
{
    st_mstate *ms = st_component_mstate(&c->base);
    if (ms && ms->system)
        return ms->system;
    st_component *ode = c->ode_solver
                            ? c->ode_solver
                            : st_node_find(c->base.node, ST_ROLE_ODESOLVER, ST_SEARCH_UP);
    if (ode && ode->node) {
        ms = st_node_mstate(ode->node);
        if (ms && ms->system)
            return ms->system;
    }
    return NULL;
}

static st_status gcc_bind(st_component *self, st_error *err)
{
    gcc *c = (gcc *)self;
    c->b.sys = find_system(c);
    if (!c->b.sys)
        return st_component_error(self, "ODESolver", err, ST_ESCENE,
                                  "No ODESolver component found (the state of this node or "
                                  "its ancestors is integrated by no ODE solver)");
    return corr_bind_system(self, &c->b, c->ode_solver, c->linear_solver, err);
}

static void gcc_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    corr_bind_on_init_done(self, ev, &((gcc *)self)->b, gcc_bind);
}

static double step_dt(const gcc *c)
{
    return c->b.sys->mp.dt > 0.0 ? c->b.sys->mp.dt : st_node_dt(c->base.node);
}

/* The rows reach every independent state of the system (ms NULL). */
static st_status gcc_add_compliance(st_component *self, const st_cjacobian *J, double *W,
                                    size_t dim, st_error *err)
{
    gcc *c = (gcc *)self;
    if (!c->b.ready)
        ST_TRY(gcc_bind(self, err));
    /* SOFA's correctionFactor: the position factor, the velocity one in the
     * VEL order (solveVelocityConstraintFirst). */
    double dt = step_dt(c);
    double factor = (J->order == ST_CORDER_VEL ? corr_velocity_factor(c->b.ode, dt)
                                               : corr_position_factor(c->b.ode, dt)) *
                    c->compliance_factor;
    return corr_add_solved_compliance(&c->b, NULL, J, factor, c->regularization, W, dim, err);
}

static st_status gcc_apply(st_component *self, const st_cjacobian *J, const double *lambda,
                           st_error *err)
{
    gcc *c = (gcc *)self;
    if (!c->b.ready)
        ST_TRY(gcc_bind(self, err));
    double dt = step_dt(c);
    double pf = corr_position_factor(c->b.ode, dt) * c->compliance_factor;
    double vf = corr_velocity_factor(c->b.ode, dt) * c->compliance_factor;
    /* The VEL order corrects the velocities only, and (as SOFA's
     * applyVelocityCorrection) without the complianceFactor. */
    if (J->order == ST_CORDER_VEL) {
        pf = 0.0;
        vf = corr_velocity_factor(c->b.ode, dt);
        if (c->compliance_factor != 1.0 && !c->vel_warned) {
            st_component_warn_field(self, "complianceFactor",
                                    "complianceFactor %g scales the compliance but, as in "
                                    "SOFA's velocity correction, not the correction: in the "
                                    "VEL order (solveVelocityConstraintFirst) the velocities "
                                    "are corrected %g times what the constraints ask",
                                    c->compliance_factor, 1.0 / c->compliance_factor);
            c->vel_warned = true;
        }
    }
    if (!corr_rhs_jt_lambda(&c->b, NULL, J, lambda))
        return ST_OK;
    ST_TRY(corr_solve(c->b.ls, c->b.sys, c->b.sol, c->b.rhs, err));
    for (size_t s = 0; s < c->b.sys->nindep; s++) {
        st_mstate *ms = c->b.sys->states[s];
        corr_move_state(ms, st_slice(c->b.sol, ms), pf, vf); /* pf 0: velocities only */
    }
    return ST_OK;
}

static const st_ccorrection_ops gcc_ops = {
    .struct_size = sizeof(st_ccorrection_ops),
    .add_compliance = gcc_add_compliance,
    .apply_correction = gcc_apply,
    .velocity_order = true,
};

const st_class generic_constraint_correction_class = {
    .struct_size = sizeof(st_class),
    .name = "GenericConstraintCorrection",
    .category = "ConstraintCorrection",
    .description = "Component computing constraint forces within a simulated body using the "
                   "compliance method.",
    .instance_size = sizeof(gcc),
    .fields = gcc_fields,
    .init = gcc_init,
    .on_event = gcc_on_event,
    .constraint_correction = &gcc_ops,
};
