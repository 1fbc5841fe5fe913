/* plugin.c - the LinearSolver.Iterative plugin: CGLinearSolver,
 * PCGLinearSolver and its JacobiPreconditioner. */
#include <settee/settee.h>

extern const st_class cg_linear_solver_class;
extern const st_class pcg_linear_solver_class;
extern const st_class jacobi_preconditioner_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &cg_linear_solver_class, err));
    ST_TRY(st_registry_add(r, &pcg_linear_solver_class, err));
    ST_TRY(st_registry_add(r, &jacobi_preconditioner_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.LinearSolver.Iterative", NULL};

ST_PLUGIN_DEFINE("LinearSolver.Iterative", "0.1.0",
                 "Iterative linear solvers: conjugate gradient, matrix-free or assembled",
                 "LGPL-2.1-or-later", provides, register_classes)
