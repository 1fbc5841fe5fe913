/* plugin.c - the ODESolver.Backward plugin: EulerImplicitSolver,
 * StaticSolver with NewtonRaphsonSolver, NewmarkImplicitSolver, BDFOdeSolver. */
#include <settee/settee.h>

#include "newton_raphson.h"

extern const st_class euler_implicit_solver_class;
extern const st_class static_solver_class;
extern const st_class newmark_implicit_solver_class;
extern const st_class bdf_ode_solver_class;
extern const st_class variational_symplectic_solver_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &euler_implicit_solver_class, err));
    ST_TRY(st_registry_add(r, &static_solver_class, err));
    ST_TRY(st_registry_add(r, &newton_raphson_solver_class, err));
    ST_TRY(st_registry_add(r, &newmark_implicit_solver_class, err));
    ST_TRY(st_registry_add(r, &bdf_ode_solver_class, err));
    ST_TRY(st_registry_add(r, &variational_symplectic_solver_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.ODESolver.Backward", NULL};

ST_PLUGIN_DEFINE("ODESolver.Backward", "0.1.0", "Implicit time integrators", "LGPL-2.1-or-later",
                 provides, register_classes)
