/* plugin.c - the LinearSolver.Direct plugin: SparseLDLSolver,
 * SparseCholeskySolver (CHOLMOD), SparseLUSolver (UMFPACK) and
 * MetisOrderingMethod. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include <settee/settee.h>

#include "direct_common.h"

extern const st_class sparse_ldl_solver_class;
extern const st_class sparse_cholesky_solver_class;
extern const st_class sparse_lu_solver_class;
extern const st_class metis_ordering_method_class;

/* CHOLMOD's OpenMP (libgomp) worker threads outlive a factorization: a
 * runtime destroyed after a solve would unload libgomp under them and a
 * later wake-up of those threads would crash the process. Once loaded, the
 * plugin (and so its libraries) stays loaded (RTLD_NODELETE), as a plugin
 * is in SOFA. */
static void stay_loaded(void)
{
    Dl_info info;
    if (dladdr((void *)stay_loaded, &info) && info.dli_fname)
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

static st_status register_classes(st_registry *r, st_error *err)
{
    stay_loaded();
    direct_use_kernel_allocator();
    ST_TRY(st_registry_add(r, &sparse_ldl_solver_class, err));
    ST_TRY(st_registry_add(r, &sparse_cholesky_solver_class, err));
    ST_TRY(st_registry_add(r, &sparse_lu_solver_class, err));
    ST_TRY(st_registry_add(r, &metis_ordering_method_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.LinearSolver.Direct", NULL};

ST_PLUGIN_DEFINE("LinearSolver.Direct", "0.1.0",
                 "Direct sparse linear solvers on SuiteSparse (CHOLMOD, UMFPACK)", "LGPL-2.1-or-later",
                 provides, register_classes)
