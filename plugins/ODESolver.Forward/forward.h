/* forward.h - the classes of the ODESolver.Forward plugin. */
#ifndef SETTEE_PLUGIN_ODESOLVER_FORWARD_H
#define SETTEE_PLUGIN_ODESOLVER_FORWARD_H

#include <settee/settee.h>

extern const st_class st_euler_explicit_solver_class;

#endif
