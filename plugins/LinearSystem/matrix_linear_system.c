/* matrix_linear_system.c - MatrixLinearSystem: SOFA's component assembling
 * the global matrix of an implicit step for its linear solver. settee's
 * kernel does that assembly for every assembled linear solver (the same
 * contributions in the same order, the pattern recorded at the first
 * assembly), so this component changes nothing here: it is accepted so
 * that SOFA scenes load. With its switches at SOFA's defaults it is the
 * solver's system; with parts switched off it is an observer whose A()
 * (Python) assembles those parts (linear_system_common.h). */
#include "linear_system_common.h"

static st_status matrix_linear_system_init(st_component *self, st_error *err)
{
    if (matrix_system_partial((matrix_system *)self))
        return matrix_system_check_partial(self, err);
    return matrix_system_check(self, err);
}

static const st_field fields[] = {LINSYS_F_BASE(matrix_system), LINSYS_F_MATRIX(matrix_system),
                                  ST_FIELD_END};

const st_class matrix_linear_system_class = {
    .struct_size = sizeof(st_class),
    .name = "MatrixLinearSystem",
    .category = "LinearSystem",
    .description = "Assembled linear system of an implicit step (settee's kernel assembles it "
                   "for every assembled linear solver: accepted for SOFA scenes; with parts "
                   "switched off, an observer whose matrix Python reads)",
    .instance_size = sizeof(matrix_system),
    .fields = fields,
    .init = matrix_linear_system_init,
};
