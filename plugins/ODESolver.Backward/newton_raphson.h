/* newton_raphson.h - the NewtonRaphsonSolver component's data, shared with
 * StaticSolver inside this plugin. */
#ifndef ODESOLVER_BACKWARD_NEWTON_RAPHSON_H
#define ODESOLVER_BACKWARD_NEWTON_RAPHSON_H

#include <settee/settee.h>

/* Size of the status text buffers (longest status and its NUL fit). */
#define NR_STATUS_SIZE 48

typedef struct newton_params {
    unsigned max_it;            /* "maxNbIterationsNewton" */
    double rel_successive;      /* "relativeSuccessiveStoppingThreshold" */
    double rel_initial;         /* "relativeInitialStoppingThreshold" */
    double abs_residual;        /* "absoluteResidualStoppingThreshold" */
    double rel_estimate;        /* "relativeEstimateDifferenceThreshold" */
    double abs_estimate;        /* "absoluteEstimateDifferenceThreshold" */
    unsigned max_ls;            /* "maxNbIterationsLineSearch" */
    double ls_coef;             /* "lineSearchCoefficient" */
    bool update_when_diverged;  /* "updateStateWhenDiverged" */
    bool warn_ls;               /* "warnWhenLineSearchFails" */
    bool warn_diverge;          /* "warnWhenDiverge" */
} newton_params;

typedef struct newton_raphson {
    st_component base;
    newton_params p;
    char *status;               /* "status" (output) */
    st_array residual_graph;    /* "residualGraph" (output): squared norms */
} newton_raphson;

extern const st_class newton_raphson_solver_class;

#endif
