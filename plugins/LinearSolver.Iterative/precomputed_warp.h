/* precomputed_warp.h - PrecomputedMatrixSystem's data, checked by
 * PrecomputedWarpPreconditioner (its linearSystem link). Private to this
 * plugin. */
#ifndef LINEARSOLVER_ITERATIVE_PRECOMPUTED_WARP_H
#define LINEARSOLVER_ITERATIVE_PRECOMPUTED_WARP_H

#include <settee/settee.h>

typedef struct precomputed_matrix_system {
    st_component base;
    char *template_name;
    bool enable_assembly, factorization_invalidation;
    st_array matrix_size;
} precomputed_matrix_system;

extern const st_class precomputed_matrix_system_class;

#endif
