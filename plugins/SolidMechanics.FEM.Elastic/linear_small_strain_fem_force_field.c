/* linear_small_strain_fem_force_field.c - LinearSmallStrainFEMForceField:
 * SOFA's Hooke's law assuming small strain, f = -K (x - x0), on SOFA's
 * elements with their quadrature rules: edges (Vec1d, Vec2d, Vec3d),
 * triangles and quads (Vec2d, Vec3d), tetrahedra, hexahedra, prisms and
 * pyramids (Vec3d). The shared element code is in element_fem_common.c. */
#include "element_fem.h"

#define T element_fem
static const st_field lss_fields[] = {EFEM_F_COMMON(T), ST_FIELD_END};
#undef T

static const char *const lss_templates[] = {"Vec1d", "Vec2d", "Vec3d", NULL};

const st_class linear_small_strain_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "LinearSmallStrainFEMForceField",
    .category = "ForceField",
    .description = "Hooke's law assuming small strain (SOFA's element framework; template "
                   "Vec1d, Vec2d or Vec3d with Edge, Vec2d or Vec3d with Triangle or Quad, "
                   "Vec3d with Tetrahedron, Hexahedron, Prism or Pyramid). Potential energy: 0, "
                   "as SOFA returns",
    .instance_size = sizeof(element_fem),
    .fields = lss_fields,
    .init = efem_init,
    .reinit = efem_init,
    .cleanup = efem_cleanup,
    .forcefield = &efem_ops,
    .templates = lss_templates,
};
