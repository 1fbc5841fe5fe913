/* unbuilt_gauss_seidel_constraint_solver.c - UnbuiltGaussSeidelConstraintSolver:
 * SOFA's Gauss-Seidel started from zero multipliers at each solve (SOFA
 * does not build W for it; settee solves the same iteration on the built W:
 * solver_methods.c). */
#include "solver_common.h"

static const st_field unbuilt_fields[] = {LAGRANGE_SOLVER_FIELDS, ST_FIELD_END};

static st_status unbuilt_init(st_component *self, st_error *err)
{
    ST_TRY(lagrange_solver_init(self, err));
    ((lagrange_solver *)self)->method = lagrange_unbuilt_gauss_seidel;
    return ST_OK;
}

const st_class unbuilt_gauss_seidel_constraint_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "UnbuiltGaussSeidelConstraintSolver",
    .category = "ConstraintSolver",
    .description = "A Constraint Solver using the Linear Complementarity Problem formulation to "
                   "solve Constraint based components using an Unbuilt version of the "
                   "Gauss-Seidel iterative method",
    .instance_size = sizeof(lagrange_solver),
    .fields = unbuilt_fields,
    .init = unbuilt_init,
    .cleanup = lagrange_solver_cleanup,
    .constraint_solver = &lagrange_solver_ops,
};
