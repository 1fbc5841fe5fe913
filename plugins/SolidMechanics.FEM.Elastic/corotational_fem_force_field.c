/* corotational_fem_force_field.c - CorotationalFEMForceField: SOFA's
 * Hooke's law using the corotational approach, f = -R K (R^T (x - c) -
 * (x0 - c0)) per element, R by rotationMethod (default: the frame of the
 * first three nodes for tetrahedra, of the two mean edge directions for
 * hexahedra, relative to the same frame at rest). The shared element code
 * is in element_fem_common.c. */
#include "element_fem.h"

#define T element_fem
static const st_field corot_fields[] = {
    EFEM_F_COMMON(T),
    ST_STRING(T, rotation_method, "rotationMethod", "",
              "The method used to compute the element rotations: stable_polar (Stable polar "
              "decomposition), polar (Polar decomposition), identity, triangle (tetrahedra: "
              "Gram-Schmidt frame of the first three nodes) or hexahedron (hexahedra: frame of "
              "two average edges). Empty: triangle for tetrahedra, hexahedron for hexahedra"),
    ST_FIELD_END};
#undef T

const st_class corotational_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "CorotationalFEMForceField",
    .category = "ForceField",
    .description = "Hooke's law using the corotational approach, on tetrahedra or hexahedra "
                   "(SOFA's element framework; template Vec3d,Tetrahedron or "
                   "Vec3d,Hexahedron). Tangent without the derivative of the rotation, as "
                   "SOFA's; potential energy: 0, as SOFA returns",
    .instance_size = sizeof(element_fem),
    .fields = corot_fields,
    .init = efem_init,
    .reinit = efem_init,
    .cleanup = efem_cleanup,
    .forcefield = &efem_ops,
};
