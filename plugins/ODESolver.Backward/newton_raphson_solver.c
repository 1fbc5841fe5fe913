/* newton_raphson_solver.c - NewtonRaphsonSolver: the data of SOFA's Newton
 * iterations (thresholds, line search, status, residual graph), and the
 * iterations on a generic equation (newton_solve, used by StaticSolver and
 * BDFOdeSolver). */
#include <math.h>
#include <string.h>

#include "newton_raphson.h"

static const st_field newton_fields[] = {
    ST_UINT(newton_raphson, p.max_it, "maxNbIterationsNewton", "1",
            "Maximum number of iterations of the Newton's method if it has not converged."),
    ST_REAL(newton_raphson, p.rel_successive, "relativeSuccessiveStoppingThreshold", "1e-5",
            "Threshold for the relative successive progress criterion (ratio of residual norms "
            "between two iterations); <= 0 disables it"),
    ST_REAL(newton_raphson, p.rel_initial, "relativeInitialStoppingThreshold", "1e-5",
            "Threshold for the relative initial progress criterion (ratio of the residual norm "
            "over the initial one); <= 0 disables it"),
    ST_REAL(newton_raphson, p.abs_residual, "absoluteResidualStoppingThreshold", "1e-5",
            "Threshold for the absolute residual criterion; <= 0 disables it"),
    ST_REAL(newton_raphson, p.rel_estimate, "relativeEstimateDifferenceThreshold", "0",
            "Threshold for the relative estimate difference criterion; <= 0 disables it"),
    ST_REAL(newton_raphson, p.abs_estimate, "absoluteEstimateDifferenceThreshold", "0",
            "Threshold for the absolute estimate difference criterion; <= 0 disables it"),
    ST_UINT(newton_raphson, p.max_ls, "maxNbIterationsLineSearch", "1",
            "Maximum number of iterations of the line search method if it has not converged."),
    ST_REAL(newton_raphson, p.ls_coef, "lineSearchCoefficient", "0.5",
            "Line search coefficient"),
    ST_BOOL(newton_raphson, p.update_when_diverged, "updateStateWhenDiverged", "true",
            "Update the states within the last iteration even if the iterative process is "
            "considered diverged."),
    ST_OUTPUT(newton_raphson, status, "status", ST_T_STRING, char *,
              "status of the last solve: Undefined, Running, ConvergedEquilibrium, "
              "DivergedLineSearch, DivergedMaxIterations, Converged..."),
    ST_OUTPUT(newton_raphson, residual_graph, "residualGraph", ST_T_REALS, st_array,
              "Squared residual norms of the last solve, one per evaluation"),
    ST_BOOL(newton_raphson, p.warn_ls, "warnWhenLineSearchFails", "true",
            "Trigger a warning if line search fails"),
    ST_BOOL(newton_raphson, p.warn_diverge, "warnWhenDiverge", "true",
            "Trigger a warning if Newton-Raphson diverges"),
    ST_FIELD_END};

/* Status text storage: one buffer of NR_STATUS_SIZE bytes, written in
 * place by StaticSolver during a step (no allocation there). */
static st_status nr_init(st_component *self, st_error *err)
{
    newton_raphson *s = (newton_raphson *)self;
    st_free(s->status);
    s->status = st_calloc(NR_STATUS_SIZE, 1);
    if (!s->status)
        return st_component_error(self, "status", err, ST_ENOMEM, "out of memory");
    strcpy(s->status, "Undefined");
    s->residual_graph.n = 0;
    return ST_OK;
}

/* Back to the state before the first solve: status Undefined, no residuals. */
static void nr_reset(st_component *self)
{
    newton_raphson *s = (newton_raphson *)self;
    if (s->status)
        strcpy(s->status, "Undefined");
    s->residual_graph.n = 0;
}

const st_class newton_raphson_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "NewtonRaphsonSolver",
    .category = "NonLinearSolver",
    .description = "Newton-Raphson iterations (data used by StaticSolver)",
    .instance_size = sizeof(newton_raphson),
    .fields = newton_fields,
    .init = nr_init,
    .reset = nr_reset,
};

newton_raphson *newton_find(st_component *self)
{
    st_component *all[64];
    size_t n = st_node_find_all(self->node, ST_ROLE_ANY, ST_SEARCH_DOWN, all, 64);
    for (size_t i = 0; i < n && i < 64; i++)
        if (all[i]->cls == &newton_raphson_solver_class)
            return (newton_raphson *)all[i];
    return NULL;
}

static void put_status(char *buf, const char *text)
{
    if (buf) {
        strncpy(buf, text, NR_STATUS_SIZE - 1);
        buf[NR_STATUS_SIZE - 1] = 0;
    }
}

static void push_graph(st_array *g, double v)
{
    if (g && g->n < g->cap)
        g->r[g->n++] = v;
}

st_status newton_solve(const st_component *self, const newton_params *p,
                       const newton_function *f, char *status, st_array *graph, st_error *err)
{
    if (graph)
        graph->n = 0;
    put_status(status, "Running");
    const double r0 = f->evaluate(f->ctx);
    push_graph(graph, r0);
    const double abs_res2 = p->abs_residual * p->abs_residual;
    if (p->abs_residual > 0.0 && r0 <= abs_res2) {
        put_status(status, "ConvergedEquilibrium");
        st_timer_val_set("nb_iterations", 0.0);
        st_timer_val_set("residual", sqrt(r0));
        return ST_OK;
    }
    const double rel_succ2 = p->rel_successive * p->rel_successive;
    const double rel_init2 = p->rel_initial * p->rel_initial;
    const double rel_est2 = p->rel_estimate * p->rel_estimate;
    const double abs_est2 = p->abs_estimate * p->abs_estimate;
    const unsigned tries = p->max_ls > 0 ? p->max_ls : 1;
    double rn = r0;
    bool converged = false;
    unsigned k = 0;
    for (; k < p->max_it && !converged; k++) {
        st_timer_step_begin("NewtonStep"); /* SOFA's timer labels */
        const double prev = rn;
        const double xprev2 = p->rel_estimate > 0.0 ? f->squared_guess(f->ctx) : 0.0;
        ST_TRY(f->solve_linear(f->ctx, err));
        double alpha = 1.0, previous = 0.0;
        bool success = false;
        for (unsigned t = 0; t < tries; t++) {
            f->update(f->ctx, alpha - previous);
            rn = f->evaluate(f->ctx);
            if (rn < prev) {
                success = true;
                break;
            }
            previous = alpha;
            alpha *= p->ls_coef;
        }
        if (!success) {
            /* SOFA warns here; settee says it below, once the iteration's
             * convergence is known. */
            put_status(status, "DivergedLineSearch");
            if (tries > 1) {
                f->update(f->ctx, 1.0 - previous);
                rn = f->evaluate(f->ctx);
            }
        }
        push_graph(graph, rn);
        bool ls_failed = !success;
        if (p->rel_successive > 0.0 && rn < rel_succ2 * prev) {
            put_status(status, "ConvergedResidualSuccessiveRatio");
            converged = true;
        } else if (p->rel_initial > 0.0 && rn < rel_init2 * r0) {
            put_status(status, "ConvergedResidualInitialRatio");
            converged = true;
        } else if (p->abs_residual > 0.0 && rn < abs_res2) {
            put_status(status, "ConvergedAbsoluteResidual");
            converged = true;
        } else if (p->rel_estimate > 0.0 || p->abs_estimate > 0.0) {
            const double dx2 = f->squared_norm_dx(f->ctx);
            if (p->rel_estimate > 0.0 && xprev2 > 0.0 && dx2 < rel_est2 * xprev2) {
                put_status(status, "ConvergedRelativeEstimateDifference");
                converged = true;
            } else if (p->abs_estimate > 0.0 && dx2 < abs_est2) {
                put_status(status, "ConvergedAbsoluteEstimateDifference");
                converged = true;
            }
        }
        if (ls_failed && p->warn_ls) {
            /* A converged iteration whose residual did not grow (beyond
             * round-off) had no decrease left to find: SOFA's warning would
             * mislead there. */
            if (converged && rn <= prev * (1.0 + 1e-6))
                st_component_info(self,
                                  "Newton iteration %u converged (residual squared norm %.3g); "
                                  "its line search found no further decrease, as expected at "
                                  "that residual",
                                  k, rn);
            else
                st_component_warn(self, "Line search failed at Newton iteration %u.", k);
        }
        st_timer_step_end("NewtonStep");
    }
    st_timer_val_set("nb_iterations", (double)k);
    st_timer_val_set("residual", sqrt(rn));
    if (!converged) {
        if (p->warn_diverge)
            st_component_warn(self,
                              "Newton-Raphson method failed to converge after %u iteration(s) "
                              "with residual squared norm = %.17g.",
                              k, rn);
        put_status(status, "DivergedMaxIterations");
    }
    return ST_OK;
}
