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

/* The first NewtonRaphsonSolver in or below self's node, or NULL. */
newton_raphson *newton_find(st_component *self);

/* SOFA's BaseNonLinearFunction: what the Newton-Raphson iterations need
 * from the equation r(x) = 0 they solve. */
typedef struct newton_function {
    void *ctx;
    /* r(x) at the current guess; returns the squared norm of r. */
    double (*evaluate)(void *ctx);
    /* Jacobian at the current guess, then dx from J dx = -r. */
    st_status (*solve_linear)(void *ctx, st_error *err);
    /* Guess += alpha dx (alpha: the change of the line search factor). */
    void (*update)(void *ctx, double alpha);
    /* |dx|^2 and |x|^2 (the estimate tests). */
    double (*squared_norm_dx)(void *ctx);
    double (*squared_guess)(void *ctx);
} newton_function;

/* SOFA's NewtonRaphsonSolver::solve on f with the parameters p: first
 * evaluation, iterations with line search and the convergence tests in
 * SOFA's order. status (NR_STATUS_SIZE bytes) and graph (squared residual
 * norms, up to its capacity) may be NULL; self names the warnings. */
st_status newton_solve(const st_component *self, const newton_params *p,
                       const newton_function *f, char *status, st_array *graph,
                       st_error *err);

#endif
