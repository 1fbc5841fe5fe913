/* constant_sparsity_pattern_system.c - ConstantSparsityPatternSystem:
 * SOFA's MatrixLinearSystem that records the sparsity pattern at the first
 * assembly and later writes each contribution straight into its slot.
 * That is how settee's kernel assembles every system matrix (st_matrix:
 * pattern and slots recorded at the first assembly, no search nor
 * allocation after), so this component changes nothing here: it is
 * accepted so that SOFA scenes load, with MatrixLinearSystem's switches at
 * SOFA's defaults. */
#include "linear_system_common.h"

static const st_field fields[] = {LINSYS_F_BASE(matrix_system), LINSYS_F_MATRIX(matrix_system),
                                  ST_FIELD_END};

const st_class constant_sparsity_pattern_system_class = {
    .struct_size = sizeof(st_class),
    .name = "ConstantSparsityPatternSystem",
    .category = "LinearSystem",
    .description = "Assembled linear system whose sparsity pattern is recorded once (what "
                   "settee's kernel always does: accepted for SOFA scenes, no effect)",
    .instance_size = sizeof(matrix_system),
    .fields = fields,
    .init = matrix_system_check,
};
