/* linear_system_common.h - the data MatrixLinearSystem and
 * ConstantSparsityPatternSystem share (SOFA's second derives from the
 * first). Private to this plugin. */
#ifndef LINEARSYSTEM_COMMON_H
#define LINEARSYSTEM_COMMON_H

#include "../shared/linear_system.h"

typedef struct matrix_system {
    st_component base;
    char *template_name;
    bool enable_assembly, factorization_invalidation;
    st_array matrix_size;
    bool assemble_stiffness, assemble_mass, assemble_damping, assemble_geometric_stiffness;
    bool apply_projective, apply_mapped, check_indices, parallel_assembly;
} matrix_system;

/* Every switch that must stay true is true (else an error naming it). */
static inline st_status matrix_system_check(st_component *self, st_error *err)
{
    matrix_system *s = (matrix_system *)self;
    ST_TRY(linsys_require_true(self, "enableAssembly", s->enable_assembly, err));
    ST_TRY(linsys_require_true(self, "assembleStiffness", s->assemble_stiffness, err));
    ST_TRY(linsys_require_true(self, "assembleMass", s->assemble_mass, err));
    ST_TRY(linsys_require_true(self, "assembleDamping", s->assemble_damping, err));
    ST_TRY(linsys_require_true(self, "assembleGeometricStiffness",
                               s->assemble_geometric_stiffness, err));
    ST_TRY(linsys_require_true(self, "applyProjectiveConstraints", s->apply_projective, err));
    return linsys_require_true(self, "applyMappedComponents", s->apply_mapped, err);
}

#endif
