/* plugin.c - the Constraint.Lagrangian.Solver plugin: GenericConstraintSolver,
 * BlockGaussSeidelConstraintSolver, UnbuiltGaussSeidelConstraintSolver,
 * NNCGConstraintSolver, PreconditionedConjugateResidual and
 * LCPConstraintSolver, on the built compliance
 * W = J C J^T. */
#include <settee/settee.h>

extern const st_class generic_constraint_solver_class;
extern const st_class block_gauss_seidel_constraint_solver_class;
extern const st_class unbuilt_gauss_seidel_constraint_solver_class;
extern const st_class nncg_constraint_solver_class;
extern const st_class preconditioned_conjugate_residual_class;
extern const st_class lcp_constraint_solver_class;
extern const st_class improved_jacobi_constraint_solver_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &generic_constraint_solver_class, err));
    ST_TRY(st_registry_add(r, &block_gauss_seidel_constraint_solver_class, err));
    ST_TRY(st_registry_add(r, &unbuilt_gauss_seidel_constraint_solver_class, err));
    ST_TRY(st_registry_add(r, &nncg_constraint_solver_class, err));
    ST_TRY(st_registry_add(r, &preconditioned_conjugate_residual_class, err));
    ST_TRY(st_registry_add(r, &lcp_constraint_solver_class, err));
    ST_TRY(st_registry_add(r, &improved_jacobi_constraint_solver_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Constraint.Lagrangian.Solver", NULL};

ST_PLUGIN_DEFINE("Constraint.Lagrangian.Solver", "0.1.0",
                 "Lagrangian constraint solvers (Gauss-Seidel, NNCG, LCP)", "LGPL-2.1-or-later", provides,
                 register_classes)
