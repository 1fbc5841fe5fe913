/* constant_sparsity_projection_method.c - ConstantSparsityProjectionMethod:
 * SOFA's MatrixProjectionMethod that keeps the sparsity intersections of
 * its products K J2 and J1^T (K J2) from one assembly to the next (and can
 * run them in parallel): the same J1^T K J2, computed faster when the
 * pattern does not change. settee's kernel projects every mapped matrix
 * itself into a matrix whose pattern and slots are recorded at the first
 * assembly (st_matrix), so, as MatrixProjectionMethod, this component checks
 * its states and changes nothing: the system, and so every step, is the
 * one the plain projection gives. */
#include "projection_method.h"

static const st_field fields[] = {
    PROJECTION_METHOD_FIELDS,
    ST_IGNORED(projection_method, parallel_product, "parallelProduct", ST_T_BOOL, bool, "true",
               "Compute the matrix product in parallel (settee: the kernel's projection)"),
    ST_FIELD_END};

const st_class constant_sparsity_projection_method_class = {
    .struct_size = sizeof(st_class),
    .name = "ConstantSparsityProjectionMethod",
    .category = "LinearSystem",
    .description = "Matrix mapping computing the matrix projection taking advantage of the "
                   "constant sparsity pattern (settee's kernel projects every mapped matrix "
                   "into a constant pattern: accepted, states checked)",
    .instance_size = sizeof(projection_method),
    .fields = fields,
    .init = projection_method_init,
};
