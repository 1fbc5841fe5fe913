/* precomputed_matrix_system.c - PrecomputedMatrixSystem: SOFA's linear
 * system of PrecomputedWarpPreconditioner (a TypedMatrixLinearSystem with
 * no data of its own). settee's kernel assembles the system matrix for the
 * preconditioner, so the component only carries SOFA's base data, at its
 * defaults; PrecomputedWarpPreconditioner checks that its linearSystem link
 * names one. */
#include "iterative_common.h"
#include "precomputed_warp.h"

#define T precomputed_matrix_system
static const st_field pms_fields[] = {LINSYS_F_BASE(T), ST_FIELD_END};
#undef T

static st_status pms_init(st_component *self, st_error *err)
{
    precomputed_matrix_system *s = (precomputed_matrix_system *)self;
    return linsys_require_true(self, "enableAssembly", s->enable_assembly, err);
}

const st_class precomputed_matrix_system_class = {
    .struct_size = sizeof(st_class),
    .name = "PrecomputedMatrixSystem",
    .category = "LinearSystem",
    .description = "Precomputed matrix system. (The linear system of "
                   "PrecomputedWarpPreconditioner: settee's kernel assembles its matrix)",
    .instance_size = sizeof(precomputed_matrix_system),
    .fields = pms_fields,
    .init = pms_init,
};
