/* matrix_free_system.c - MatrixFreeSystem: SOFA's linear system of the
 * matrix-free iterative solvers (CGLinearSolver, MinResLinearSolver): a
 * system whose matrix is never assembled, the products going through the
 * force fields and masses. SOFA creates one beside such a solver when the
 * scene has none; a scene may also declare it and link it
 * (`CGLinearSolver linearSystem="@system"`). settee's matrix-free solvers
 * do their products themselves, so the component holds SOFA's data and the
 * solve is the same with it or without it. */
#include "iterative_common.h"

typedef struct iter_mfs {
    st_component base;
    char *template_name;
    bool enable_assembly, factorization_invalidation;
    st_array matrix_size;
} iter_mfs;

static const st_field mfs_fields[] = {LINSYS_F_BASE(iter_mfs), ST_FIELD_END};

static st_status mfs_init(st_component *self, st_error *err)
{
    iter_mfs *s = (iter_mfs *)self;
    return linsys_require_true(self, "enableAssembly", s->enable_assembly, err);
}

const st_class matrix_free_system_class = {
    .struct_size = sizeof(st_class),
    .name = "MatrixFreeSystem",
    .category = "LinearSystem",
    .description = "Matrix-free linear system (CGLinearSolver's): the products go through the "
                   "force fields and masses",
    .instance_size = sizeof(iter_mfs),
    .fields = mfs_fields,
    .init = mfs_init,
};
