/* nncg_constraint_solver.c - NNCGConstraintSolver: SOFA's nonsmooth
 * nonlinear conjugate gradient over the block Gauss-Seidel sweeps
 * (solver_methods.c); SOFA's fields are the block Gauss-Seidel's. */
#include "solver_common.h"

static const st_field nncg_fields[] = {LAGRANGE_SOLVER_FIELDS, ST_FIELD_END};

static st_status nncg_init(st_component *self, st_error *err)
{
    ST_TRY(lagrange_solver_init(self, err));
    return lagrange_nncg_attach((lagrange_solver *)self, 0, err);
}

static void nncg_cleanup(st_component *self)
{
    lagrange_nncg_detach((lagrange_solver *)self);
    lagrange_solver_cleanup(self);
}

const st_class nncg_constraint_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "NNCGConstraintSolver",
    .category = "ConstraintSolver",
    .description = "A Constraint Solver using the Linear Complementarity Problem formulation to "
                   "solve Constraint based components using the Non-smooth Non-linear "
                   "Conjugate Gradient method",
    .instance_size = sizeof(lagrange_solver),
    .fields = nncg_fields,
    .init = nncg_init,
    .cleanup = nncg_cleanup,
    .constraint_solver = &lagrange_solver_ops,
};
