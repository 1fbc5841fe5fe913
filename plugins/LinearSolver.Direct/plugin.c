/* plugin.c - the LinearSolver.Direct plugin: SparseLDLSolver,
 * SparseCholeskySolver (CHOLMOD), SparseLUSolver (UMFPACK) and
 * MetisOrderingMethod. */
#include <settee/settee.h>

extern const st_class sparse_ldl_solver_class;
extern const st_class sparse_cholesky_solver_class;
extern const st_class sparse_lu_solver_class;
extern const st_class metis_ordering_method_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &sparse_ldl_solver_class, err));
    ST_TRY(st_registry_add(r, &sparse_cholesky_solver_class, err));
    ST_TRY(st_registry_add(r, &sparse_lu_solver_class, err));
    ST_TRY(st_registry_add(r, &metis_ordering_method_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.LinearSolver.Direct", NULL};

ST_PLUGIN_DEFINE("LinearSolver.Direct", "0.1.0",
                 "Direct sparse linear solvers on SuiteSparse (CHOLMOD, UMFPACK)", "LGPL-2.1",
                 provides, register_classes)
