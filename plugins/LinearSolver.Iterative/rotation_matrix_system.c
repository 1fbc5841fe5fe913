/* rotation_matrix_system.c - RotationMatrixSystem: SOFA's (v25.12) linear
 * system of WarpPreconditioner, whose matrix is the block-diagonal rotation
 * R. It carries the warp's schedule (assemblingRate: the wrapped solver's
 * matrix is rebuilt at the first system and every assemblingRate-th one)
 * and the rotation finder (link rotationFinder, else the first one of its
 * node). settee's warp keeps R itself; the main assembled system is the
 * wrapped solver's own, so mainSystem is accepted and not needed. */
#include "iterative_common.h"
#include "rotation_matrix_system.h"

#include "../shared/rotation_finder.h"

#define T rotation_matrix_system
static const st_field rms_fields[] = {
    LINSYS_F_BASE(T),
    ST_UINT(T, assembling_rate, "assemblingRate", "1",
            "Rate of update of the preconditioner matrix"),
    ST_FIELD_EX(T, main_system, "mainSystem", ST_T_LINK, st_component *, NULL,
                "Main assembled linear system that will be warped (settee: the wrapped "
                "solver assembles its own matrix)",
                ST_F_IGNORED, NULL, 0.0, 0.0),
    ST_LINK(T, rotation_finder, "rotationFinder", ST_LINK_ANY,
            "Link toward the rotation finder used to compute the rotation matrix (default: the "
            "first one of this node)"),
    ST_FIELD_END};
#undef T

static st_status rms_init(st_component *self, st_error *err)
{
    rotation_matrix_system *s = (rotation_matrix_system *)self;
    ST_TRY(linsys_require_true(self, "enableAssembly", s->enable_assembly, err));
    if (s->rotation_finder && !rotfinder_field(s->rotation_finder))
        return st_component_error(self, "rotationFinder", err, ST_ELINK,
                                  "'%s' (%s) is not a rotation finder: expected "
                                  "TetrahedronFEMForceField, HexahedronFEMForceField or "
                                  "TetrahedralCorotationalFEMForceField",
                                  s->rotation_finder->name, s->rotation_finder->cls->name);
    if (!s->rotation_finder) {
        st_component *local[256];
        size_t n = st_node_find_all(self->node, ST_ROLE_ANY, ST_SEARCH_LOCAL, local, 256);
        for (size_t i = 0; i < n && i < 256 && !s->rotation_finder; i++)
            if (rotfinder_field(local[i]))
                s->rotation_finder = local[i];
        if (!s->rotation_finder)
            return st_component_error(self, "rotationFinder", err, ST_ESCENE,
                                      "A RotationFinder is required by RotationMatrixSystem but "
                                      "has not been found. The list of available rotation "
                                      "finders is: TetrahedronFEMForceField, "
                                      "HexahedronFEMForceField, "
                                      "TetrahedralCorotationalFEMForceField");
    }
    return ST_OK;
}

const st_class rotation_matrix_system_class = {
    .struct_size = sizeof(st_class),
    .name = "RotationMatrixSystem",
    .category = "LinearSystem",
    .description = "Linear system of WarpPreconditioner: the per-vertex rotations of a rotation "
                   "finder, and how often the wrapped solver's matrix is rebuilt "
                   "(assemblingRate)",
    .instance_size = sizeof(rotation_matrix_system),
    .fields = rms_fields,
    .init = rms_init,
};
