/* async_sparse_ldl_solver.c - AsyncSparseLDLSolver: SOFA's SparseLDLSolver
 * whose factorization runs on another thread while the main one solves
 * with the previous factor. settee factors synchronously: every solve uses
 * the factor of the current step's matrix, which is what SOFA computes
 * whenever its background factorization ends before the solve that needs
 * it (otherwise SOFA's result depends on thread timing: a factor one or
 * more steps old). Same backend and fields as SparseLDLSolver, plus
 * enableAssembly. */
#include "direct_common.h"

static const st_field async_fields[] = {
    DIRECT_F_LDL(direct_ldl),
    ST_BOOL(direct_ldl, enable_assembly, "enableAssembly", "true",
            "Allow assembly of the linear system (settee factors synchronously, so assembly is "
            "always allowed: false is an error)"),
    ST_FIELD_END};

static st_status async_init(st_component *self, st_error *err)
{
    direct_ldl *s = (direct_ldl *)self;
    if (!s->enable_assembly)
        return st_component_error(self, "enableAssembly", err, ST_ESCENE,
                                  "enableAssembly false is not supported: settee factors "
                                  "synchronously and assembles every step");
    return direct_ldl_init(self, err);
}

const st_class async_sparse_ldl_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "AsyncSparseLDLSolver",
    .category = "LinearSolver",
    .description = "Direct linear solver of the assembled system (SparseLDLSolver whose "
                   "factorization is asynchronous in SOFA; synchronous here)",
    .instance_size = sizeof(direct_ldl),
    .fields = async_fields,
    .init = async_init,
    .cleanup = direct_ldl_cleanup,
    .linsolver = &direct_ldl_ops,
};
