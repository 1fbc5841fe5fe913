/* backward_common.h - what the implicit ODE solvers of this plugin share.
 * Private to ODESolver.Backward. */
#ifndef ODESOLVER_BACKWARD_COMMON_H
#define ODESOLVER_BACKWARD_COMMON_H

#include <settee/settee.h>

/* SOFA's threadSafeVisitor: a memory-management switch of SOFA's visitors,
 * without effect on the result; accepted and ignored. */
#define BACKWARD_F_THREAD_SAFE(S)                                                                      \
    ST_IGNORED(S, thread_safe_visitor, "threadSafeVisitor", ST_T_BOOL, bool, "false",             \
               "If true, do not use realloc and free visitors in fwdInteractionForceField.")

/* The linear solver of an implicit ODE solver: its `linearSolver` link when
 * set, else the first linear solver below its node (SOFA's search). None
 * found is ST_ESCENE with SOFA's message; a link to a component that is not
 * a linear solver is ST_ELINK. */
st_status backward_linear_solver(st_component *self, st_component *link, st_component **out,
                                 st_error *err);

#endif
