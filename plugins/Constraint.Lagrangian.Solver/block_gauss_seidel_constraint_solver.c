/* block_gauss_seidel_constraint_solver.c - BlockGaussSeidelConstraintSolver:
 * SOFA's default constraint solver, the projected Gauss-Seidel with one
 * update per constraint block (solver_common.c). */
#include "solver_common.h"

static const st_field block_gs_fields[] = {LAGRANGE_SOLVER_FIELDS, ST_FIELD_END};

const st_class block_gauss_seidel_constraint_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "BlockGaussSeidelConstraintSolver",
    .category = "ConstraintSolver",
    .description = "A Constraint Solver using the Linear Complementarity Problem formulation to "
                   "solve Constraint based components using a Block Gauss-Seidel iterative "
                   "method",
    .instance_size = sizeof(lagrange_solver),
    .fields = block_gs_fields,
    .init = lagrange_solver_init,
    .cleanup = lagrange_solver_cleanup,
    .constraint_solver = &lagrange_solver_ops,
};
