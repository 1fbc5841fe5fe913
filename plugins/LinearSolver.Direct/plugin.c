/* plugin.c - the LinearSolver.Direct plugin: SparseLDLSolver,
 * AsyncSparseLDLSolver, SparseCholeskySolver, EigenSimplicialLDLT,
 * EigenSimplicialLLT, PrecomputedLinearSolver (CHOLMOD), SparseLUSolver,
 * EigenSparseLU (UMFPACK), EigenSparseQR (SPQR), SVDLinearSolver (LAPACK),
 * BTDLinearSolver (block tridiagonal, our own code) and MetisOrderingMethod. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#include <settee/settee.h>

#include "direct_common.h"

extern const st_class sparse_ldl_solver_class;
extern const st_class sparse_cholesky_solver_class;
extern const st_class sparse_lu_solver_class;
extern const st_class metis_ordering_method_class;
extern const st_class eigen_simplicial_ldlt_class;
extern const st_class eigen_simplicial_llt_class;
extern const st_class eigen_sparse_lu_class;
extern const st_class eigen_sparse_qr_class;
extern const st_class svd_linear_solver_class;
extern const st_class cholesky_solver_class;
extern const st_class precomputed_linear_solver_class;
extern const st_class async_sparse_ldl_solver_class;
extern const st_class btd_linear_solver_class;

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

/* OpenBLAS's and OpenMP's own controls (libopenblas, libgomp). */
extern void openblas_set_num_threads(int n);
extern void omp_set_num_threads(int n);

/* Threads of the linear algebra under the direct solvers: SETTEE_THREADS
 * (set by `settee run --threads N`), else 1. OpenBLAS (supernodal
 * CHOLMOD, LAPACK) and OpenMP (CHOLMOD's own loops, which do not read
 * OMP_NUM_THREADS once OpenMP has started) are set together: on a small
 * system, or a machine another process keeps busy, extra threads only
 * cost (docs/performance.md). */
static void set_threads(void)
{
    const unsigned n = st_threads_default();
    openblas_set_num_threads((int)n);
    omp_set_num_threads((int)n);
}

static st_status register_classes(st_registry *r, st_error *err)
{
    stay_loaded();
    set_threads();
    direct_use_kernel_allocator();
    ST_TRY(st_registry_add(r, &sparse_ldl_solver_class, err));
    ST_TRY(st_registry_add(r, &sparse_cholesky_solver_class, err));
    ST_TRY(st_registry_add(r, &sparse_lu_solver_class, err));
    ST_TRY(st_registry_add(r, &metis_ordering_method_class, err));
    ST_TRY(st_registry_add(r, &eigen_simplicial_ldlt_class, err));
    ST_TRY(st_registry_add(r, &eigen_simplicial_llt_class, err));
    ST_TRY(st_registry_add(r, &eigen_sparse_lu_class, err));
    ST_TRY(st_registry_add(r, &eigen_sparse_qr_class, err));
    ST_TRY(st_registry_add(r, &svd_linear_solver_class, err));
    ST_TRY(st_registry_add(r, &cholesky_solver_class, err));
    ST_TRY(st_registry_add(r, &precomputed_linear_solver_class, err));
    ST_TRY(st_registry_add(r, &async_sparse_ldl_solver_class, err));
    ST_TRY(st_registry_add(r, &btd_linear_solver_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.LinearSolver.Direct", NULL};

ST_PLUGIN_DEFINE("LinearSolver.Direct", "0.1.0",
                 "Direct linear solvers on SuiteSparse (CHOLMOD, UMFPACK, SPQR) and LAPACK",
                 "LGPL-2.1-or-later",
                 provides, register_classes)
