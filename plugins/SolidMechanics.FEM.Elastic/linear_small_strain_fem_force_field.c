/* linear_small_strain_fem_force_field.c - LinearSmallStrainFEMForceField:
 * SOFA's Hooke's law assuming small strain, f = -K (x - x0), on tetrahedra
 * (one quadrature point) or trilinear hexahedra (2x2x2 Gauss points). The
 * shared element code is in element_fem_common.c. */
#include "element_fem.h"

#define T element_fem
static const st_field lss_fields[] = {EFEM_F_COMMON(T), ST_FIELD_END};
#undef T

const st_class linear_small_strain_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "LinearSmallStrainFEMForceField",
    .category = "ForceField",
    .description = "Hooke's law assuming small strain, on tetrahedra or hexahedra (SOFA's element "
                   "framework; template Vec3d,Tetrahedron or Vec3d,Hexahedron). Potential "
                   "energy: 0, as SOFA returns",
    .instance_size = sizeof(element_fem),
    .fields = lss_fields,
    .init = efem_init,
    .reinit = efem_init,
    .cleanup = efem_cleanup,
    .forcefield = &efem_ops,
};
