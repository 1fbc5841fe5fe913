/* newton_raphson_solver.c - NewtonRaphsonSolver: the data of SOFA's Newton
 * iterations (thresholds, line search, status, residual graph). The
 * iterations themselves run in StaticSolver (static_solver.c). */
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
