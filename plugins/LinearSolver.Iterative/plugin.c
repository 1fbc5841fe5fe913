/* plugin.c - the LinearSolver.Iterative plugin: CGLinearSolver,
 * MinResLinearSolver, PCGLinearSolver (and its former name
 * ShewchukPCGLinearSolver), its PreconditionedMatrixFreeSystem, and the
 * preconditioners JacobiPreconditioner, BlockJacobiPreconditioner and
 * SSORPreconditioner, WarpPreconditioner with its RotationMatrixSystem,
 * PrecomputedWarpPreconditioner with its PrecomputedMatrixSystem, and AMGPreconditioner
 * (settee's smoothed-aggregation multigrid). */
#include <settee/settee.h>

extern const st_class cg_linear_solver_class;
extern const st_class pcg_linear_solver_class;
extern const st_class jacobi_preconditioner_class;
extern const st_class shewchuk_pcg_linear_solver_class;
extern const st_class minres_linear_solver_class;
extern const st_class ssor_preconditioner_class;
extern const st_class block_jacobi_preconditioner_class;
extern const st_class preconditioned_matrix_free_system_class, matrix_free_system_class;
extern const st_class warp_preconditioner_class;
extern const st_class rotation_matrix_system_class;
extern const st_class amg_preconditioner_class;
extern const st_class precomputed_warp_preconditioner_class;
extern const st_class precomputed_matrix_system_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &cg_linear_solver_class, err));
    ST_TRY(st_registry_add(r, &pcg_linear_solver_class, err));
    ST_TRY(st_registry_add(r, &jacobi_preconditioner_class, err));
    ST_TRY(st_registry_add(r, &shewchuk_pcg_linear_solver_class, err));
    ST_TRY(st_registry_add(r, &minres_linear_solver_class, err));
    ST_TRY(st_registry_add(r, &ssor_preconditioner_class, err));
    ST_TRY(st_registry_add(r, &block_jacobi_preconditioner_class, err));
    ST_TRY(st_registry_add(r, &preconditioned_matrix_free_system_class, err));
    ST_TRY(st_registry_add(r, &matrix_free_system_class, err));
    ST_TRY(st_registry_add(r, &warp_preconditioner_class, err));
    ST_TRY(st_registry_add(r, &rotation_matrix_system_class, err));
    ST_TRY(st_registry_add(r, &amg_preconditioner_class, err));
    ST_TRY(st_registry_add(r, &precomputed_warp_preconditioner_class, err));
    ST_TRY(st_registry_add(r, &precomputed_matrix_system_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.LinearSolver.Iterative",
                                       "Sofa.Component.LinearSolver.Preconditioner", NULL};

ST_PLUGIN_DEFINE("LinearSolver.Iterative", "0.1.0",
                 "Iterative linear solvers (CG, PCG, MINRES), matrix-free or assembled, and preconditioners",
                 "LGPL-2.1-or-later", provides, register_classes)
