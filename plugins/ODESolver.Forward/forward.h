/* forward.h - the classes of the ODESolver.Forward plugin. */
#ifndef SETTEE_PLUGIN_ODESOLVER_FORWARD_H
#define SETTEE_PLUGIN_ODESOLVER_FORWARD_H

#include <settee/settee.h>

/* SOFA's threadSafeVisitor: a memory-management switch of SOFA's visitors,
 * without effect on the result; accepted and ignored. */
#define FORWARD_F_THREAD_SAFE(S)                                                                      \
    ST_IGNORED(S, thread_safe_visitor, "threadSafeVisitor", ST_T_BOOL, bool, "false",             \
               "If true, do not use realloc and free visitors in fwdInteractionForceField.")

extern const st_class st_euler_explicit_solver_class;

#endif
