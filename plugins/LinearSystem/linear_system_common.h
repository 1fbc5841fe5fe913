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

/* MatrixLinearSystem: SOFA's secondary systems (a CompositeLinearSystem's
 * other systems, access_mass_matrix.py's mass-only system) switch parts
 * off. settee's linear solvers always solve the kernel's whole system, so a
 * system with a switch off is an observer: SofaPython3's A() assembles its
 * parts (mass, stiffness) without projective constraints (the geometric
 * stiffness of mappings is not available there: A() says so). It may serve
 * no linear solver: one in its node would take it, an error. */
static inline bool matrix_system_partial(const matrix_system *s)
{
    return !(s->assemble_stiffness && s->assemble_mass && s->assemble_damping &&
             s->assemble_geometric_stiffness && s->apply_projective);
}

static inline st_status matrix_system_check_partial(st_component *self, st_error *err)
{
    matrix_system *s = (matrix_system *)self;
    if (!matrix_system_partial(s))
        return ST_OK;
    ST_TRY(linsys_require_true(self, "enableAssembly", s->enable_assembly, err));
    ST_TRY(linsys_require_true(self, "applyMappedComponents", s->apply_mapped, err));
    const char *off = !s->assemble_mass               ? "assembleMass"
                      : !s->assemble_stiffness        ? "assembleStiffness"
                      : !s->assemble_damping          ? "assembleDamping"
                      : !s->assemble_geometric_stiffness ? "assembleGeometricStiffness"
                                                       : "applyProjectiveConstraints";
    for (size_t i = 0; self->node && i < st_node_object_count(self->node); i++) {
        const st_component *c = st_node_object(self->node, i);
        if (c->cls->linsolver)
            return st_component_error(self, off, err, ST_ESCENE,
                                      "%s false: a system with parts switched off cannot serve "
                                      "the linear solver %s of its node (settee's solvers "
                                      "solve the whole system); put it in another node, as an "
                                      "observer (SOFA's CompositeLinearSystem)",
                                      off, c->name);
    }
    if (s->apply_projective)
        return st_component_error(self, "applyProjectiveConstraints", err, ST_ESCENE,
                                  "a system with assembleMass, assembleStiffness, "
                                  "assembleDamping or assembleGeometricStiffness false is an "
                                  "observer in settee (its linear solver solves the whole "
                                  "system); it needs applyProjectiveConstraints false");
    return ST_OK;
}

#endif
