/* corotational_fem_force_field.c - CorotationalFEMForceField: SOFA's
 * Hooke's law using the corotational approach, f = -R K (R^T (x - c) -
 * (x0 - c0)) per element, R by rotationMethod (default: the frame of the
 * first three nodes for Vec3d tetrahedra and triangles, of the two mean
 * edge directions for hexahedra, relative to the same frame at rest; the
 * stable polar decomposition for the other elements). Templates: Vec2d
 * and Vec3d edges, triangles and quads, Vec3d tetrahedra, hexahedra,
 * prisms and pyramids (SOFA does not register Vec1d). The shared element
 * code is in element_fem_common.c. */
#include "element_fem.h"

#define T element_fem
static const st_field corot_fields[] = {
    EFEM_F_COMMON(T),
    ST_STRING(T, rotation_method, "rotationMethod", "",
              "The method used to compute the element rotations: stable_polar (Stable polar "
              "decomposition), polar (Polar decomposition), identity, and for Vec3d "
              "tetrahedra and triangles triangle (Gram-Schmidt frame of the first three "
              "nodes), for hexahedra hexahedron (frame of two average edges). Empty: triangle "
              "for Vec3d tetrahedra and triangles, hexahedron for hexahedra, stable_polar "
              "otherwise"),
    ST_FIELD_END};
#undef T

static const char *const corot_templates[] = {"Vec2d", "Vec3d", NULL};

const st_class corotational_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "CorotationalFEMForceField",
    .category = "ForceField",
    .description = "Hooke's law using the corotational approach (SOFA's element framework; "
                   "template Vec2d or Vec3d with Edge, Triangle or Quad, Vec3d with "
                   "Tetrahedron, Hexahedron, Prism or Pyramid). Tangent without the derivative "
                   "of the rotation, as SOFA's; potential energy: 0, as SOFA returns",
    .instance_size = sizeof(element_fem),
    .fields = corot_fields,
    .init = efem_init,
    .reinit = efem_init,
    .cleanup = efem_cleanup,
    .forcefield = &efem_ops,
    .templates = corot_templates,
};
