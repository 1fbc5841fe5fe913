/* plugin.c - the LinearSolver.PETSc plugin: PETScLinearSolver, a linear
 * solver of the assembled system on PETSc's KSP and PC. Built only when
 * PETSc is installed (libpetsc-real-dev). */
#define _GNU_SOURCE
#include <dlfcn.h>

#include <settee/settee.h>

extern const st_class petsc_linear_solver_class;

/* PETSc (and MPI under it) is initialised once per process and never
 * finalised: once loaded, the plugin and its libraries stay loaded
 * (RTLD_NODELETE), as LinearSolver.Direct does for CHOLMOD's OpenMP. */
static void stay_loaded(void)
{
    Dl_info info;
    if (dladdr((void *)stay_loaded, &info) && info.dli_fname)
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

static st_status register_classes(st_registry *r, st_error *err)
{
    stay_loaded();
    return st_registry_add(r, &petsc_linear_solver_class, err);
}

static const char *const provides[] = {NULL};

ST_PLUGIN_DEFINE("LinearSolver.PETSc", "0.1.0",
                 "Krylov solvers and preconditioners of PETSc (KSP, PC) on the assembled system",
                 "LGPL-2.1-or-later", provides, register_classes)
