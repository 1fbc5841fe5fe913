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

/* SOFA's computeAcc for the Runge-Kutta solvers: a = P M^-1 f(x, v) after
 * projecting and propagating x and v; f is scratch. */
static inline st_status forward_compute_acc(st_system *sys, double *f, double *a, double *x,
                                            double *v, st_error *err)
{
    st_system_project_position(sys, x);
    st_system_project_velocity(sys, v);
    st_system_propagate_x(sys, x);
    st_system_propagate_v(sys, v);
    st_system_compute_force(sys, f, x, v);
    ST_TRY(st_system_acc_from_f(sys, a, f, err));
    st_system_project_response(sys, a);
    return ST_OK;
}

#endif
