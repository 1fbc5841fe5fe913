/* backward_common.h - what the implicit ODE solvers of this plugin share.
 * Private to ODESolver.Backward. */
#ifndef ODESOLVER_BACKWARD_COMMON_H
#define ODESOLVER_BACKWARD_COMMON_H

#include <settee/settee.h>

/* The linear solver of an implicit ODE solver: its `linearSolver` link when
 * set, else the first linear solver below its node (SOFA's search). None
 * found is ST_ESCENE with SOFA's message; a link to a component that is not
 * a linear solver is ST_ELINK. */
st_status backward_linear_solver(st_component *self, st_component *link, st_component **out,
                                 st_error *err);

#endif
