/* backward_common.c - helpers shared by the implicit ODE solvers
 * (EulerImplicitSolver, NewmarkImplicitSolver, StaticSolver). */
#include "backward_common.h"

st_status backward_linear_solver(st_component *self, st_component *link, st_component **out,
                                 st_error *err)
{
    st_component *ls = link ? link : st_node_find(self->node, ST_ROLE_LINSOLVER, ST_SEARCH_DOWN);
    *out = ls;
    if (!ls)
        return st_component_error(self, "linearSolver", err, ST_ESCENE,
                                  "A linear solver is required by this component but has not "
                                  "been found.");
    if (!st_component_has_role(ls, ST_ROLE_LINSOLVER))
        return st_component_error(self, "linearSolver", err, ST_ELINK,
                                  "the linked component is not a linear solver");
    return ST_OK;
}
