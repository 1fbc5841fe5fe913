/* preconditioned_matrix_free_system.c - PreconditionedMatrixFreeSystem:
 * SOFA's matrix-free linear system of PCGLinearSolver that also builds the
 * matrix of the preconditioner's own system every assemblingRate time
 * steps (or Newton iterations). In settee the PCG does the matrix-free
 * products itself and the preconditioner assembles its own matrix, so this
 * component carries only the rate: a PCG whose linearSystem link names it
 * (or in whose node it is) rebuilds its preconditioner on its schedule. */
#include "iterative_common.h"

static const st_field pmfs_fields[] = {
    LINSYS_F_BASE(iter_pmfs),
    ST_FIELD_EX(iter_pmfs, assembling_rate, "assemblingRate", ST_T_UINT, unsigned, "1",
                "Rate of update of the preconditioner matrix, in number of time steps or Newton "
                "iterations",
                0, "update_step", 0.0, 4294967295.0),
    {"preconditionerSystem", ST_T_LINK,
     offsetof(iter_pmfs, preconditioner_system) +
         ST_FIELD_CHECK_(iter_pmfs, preconditioner_system, st_component *),
     NULL,
     "Link toward the linear system of the preconditioner (settee: the preconditioner "
     "assembles its own matrix)",
     ST_F_IGNORED, NULL, ST_LINK_ANY, 0.0, 0.0},
    ST_FIELD_END};

static st_status pmfs_init(st_component *self, st_error *err)
{
    iter_pmfs *s = (iter_pmfs *)self;
    return linsys_require_true(self, "enableAssembly", s->enable_assembly, err);
}

const st_class preconditioned_matrix_free_system_class = {
    .struct_size = sizeof(st_class),
    .name = "PreconditionedMatrixFreeSystem",
    .category = "LinearSystem",
    .description = "Matrix-free linear system of PCGLinearSolver; sets how often the "
                   "preconditioner's matrix is rebuilt (assemblingRate)",
    .instance_size = sizeof(iter_pmfs),
    .fields = pmfs_fields,
    .init = pmfs_init,
};
