/* plugin.c - the ODESolver.Forward plugin descriptor: explicit integrators. */
#include <settee/settee.h>

#include "forward.h"

extern const st_class st_runge_kutta4_solver_class;       /* runge_kutta4_solver.c */
extern const st_class st_runge_kutta2_solver_class;       /* runge_kutta2_solver.c */
extern const st_class st_central_difference_solver_class; /* central_difference_solver.c */
extern const st_class st_damp_velocity_solver_class;       /* damp_velocity_solver.c */

static st_status forward_register(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &st_euler_explicit_solver_class, err));
    ST_TRY(st_registry_add(r, &st_runge_kutta4_solver_class, err));
    ST_TRY(st_registry_add(r, &st_runge_kutta2_solver_class, err));
    ST_TRY(st_registry_add(r, &st_central_difference_solver_class, err));
    ST_TRY(st_registry_add(r, &st_damp_velocity_solver_class, err));
    return ST_OK;
}

static const char *const forward_provides[] = {"Sofa.Component.ODESolver.Forward", NULL};

ST_PLUGIN_DEFINE("ODESolver.Forward", "0.1.0", "Explicit time integrators",
                 "LGPL-2.1-or-later", forward_provides, forward_register)
