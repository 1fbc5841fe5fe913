/* rotation_matrix_system.h - RotationMatrixSystem's data, read by
 * WarpPreconditioner (its linearSystem link, or the one in its node).
 * Private to this plugin. */
#ifndef LINEARSOLVER_ITERATIVE_ROTATION_MATRIX_SYSTEM_H
#define LINEARSOLVER_ITERATIVE_ROTATION_MATRIX_SYSTEM_H

#include <settee/settee.h>

typedef struct rotation_matrix_system {
    st_component base;
    char *template_name;
    bool enable_assembly, factorization_invalidation;
    st_array matrix_size;
    unsigned assembling_rate;     /* "assemblingRate" */
    st_component *main_system;    /* "mainSystem" (ignored) */
    st_component *rotation_finder; /* "rotationFinder" */
} rotation_matrix_system;

extern const st_class rotation_matrix_system_class;

#endif
