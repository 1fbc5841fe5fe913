/* linear_system.h - the data of SOFA's linear-system components
 * (MatrixLinearSystem, ConstantSparsityPatternSystem in LinearSystem;
 * PreconditionedMatrixFreeSystem in LinearSolver.Iterative). settee
 * assembles the system itself (every mass, damping, stiffness, mapped
 * contribution and projective constraint, with the pattern recorded at the
 * first assembly), so these components select nothing: their switches are
 * accepted at SOFA's defaults, and a value that would change what is
 * assembled is an error naming the field. Header-only, shared by plugins. */
#ifndef PLUGINS_SHARED_LINEAR_SYSTEM_H
#define PLUGINS_SHARED_LINEAR_SYSTEM_H

#include <stdbool.h>

#include <settee/settee.h>

/* BaseMatrixLinearSystem's data; S has members template_name (char *),
 * enable_assembly, factorization_invalidation (bool) and matrix_size
 * (st_array). */
#define LINSYS_F_BASE(S)                                                                           \
    ST_STRING(S, template_name, "template", "",                                                    \
              "Matrix type (CompressedRowSparseMatrixd, CompressedRowSparseMatrixMat3x3d, "        \
              "GraphScattered...): settee assembles 3x3 blocks whatever it says"),                 \
        ST_BOOL(S, enable_assembly, "enableAssembly", "true",                                      \
                "Allows to assemble the system matrix (settee always assembles: false is an "     \
                "error)"),                                                                         \
        ST_IGNORED(S, factorization_invalidation, "factorizationInvalidation", ST_T_BOOL, bool,    \
                   "false", "Internal Data indicating a change in the matrix"),                    \
        ST_IGNORED(S, matrix_size, "matrixSize", ST_T_UINTS, st_array, "",                         \
                   "Size of the global matrix (settee: not filled; the system's size is in "      \
                   "`settee inspect`)")

/* MatrixLinearSystem's switches; S has the bool members named below. */
#define LINSYS_OBSERVER_ " (settee: false only in an observer MatrixLinearSystem, docs/solvers.md)"
#define LINSYS_F_MATRIX(S)                                                                         \
    ST_BOOL(S, assemble_stiffness, "assembleStiffness", "true",                                    \
            "If true, the stiffness is added to the global matrix" LINSYS_OBSERVER_),              \
        ST_BOOL(S, assemble_mass, "assembleMass", "true",                                          \
                "If true, the mass is added to the global matrix" LINSYS_OBSERVER_),               \
        ST_BOOL(S, assemble_damping, "assembleDamping", "true",                                    \
                "If true, the damping is added to the global matrix" LINSYS_OBSERVER_),            \
        ST_BOOL(S, assemble_geometric_stiffness, "assembleGeometricStiffness", "true",             \
                "If true, the geometric stiffness of mappings is added to the global "            \
                "matrix" LINSYS_OBSERVER_),                                                        \
        ST_BOOL(S, apply_projective, "applyProjectiveConstraints", "true",                         \
                "If true, projective constraints are applied on the global "                      \
                "matrix" LINSYS_OBSERVER_),                                                        \
        ST_BOOL(S, apply_mapped, "applyMappedComponents", "true",                                  \
                "If true, mapped components contribute to the global matrix (settee: false is "   \
                "an error)"),                                                                      \
        ST_IGNORED(S, check_indices, "checkIndices", ST_T_BOOL, bool, "false",                     \
                   "If true, indices are verified before being added in to the global matrix, "   \
                   "favoring security over speed (settee checks them always)"),                    \
        ST_IGNORED(S, parallel_assembly, "parallelAssemblyIndependentMatrices", ST_T_BOOL, bool,   \
                   "false",                                                                        \
                   "If true, independent matrices (global matrix vs mapped matrices) are "        \
                   "assembled in parallel (settee: sequential, same numbers)")

/* An error when a boolean switch that must stay true was set false. */
static inline st_status linsys_require_true(st_component *self, const char *field, bool value,
                                            st_error *err)
{
    if (value)
        return ST_OK;
    return st_component_error(self, field, err, ST_ESCENE,
                              "%s false is not supported: settee assembles the whole system "
                              "(mass, damping, stiffness, mapped components, projective "
                              "constraints) every time",
                              field);
}

#endif
