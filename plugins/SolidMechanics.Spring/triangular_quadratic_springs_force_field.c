/* triangular_quadratic_springs_force_field.c - TriangularQuadraticSprings
 * ForceField: Delingette's quadratic triangular springs (springs on the
 * edge lengths, coupled per triangle by "angular" terms), SOFA's class.
 * The formulas are in triangular_springs.c. */
#include "tri_springs.h"

static st_status tqs_init(st_component *self, st_error *err)
{
    return tri_springs_init((tri_springs *)self, false, err);
}

static const st_field tqs_fields[] = {TRI_SPRINGS_FIELDS, ST_FIELD_END};

const st_class triangular_quadratic_springs_class = {
    .struct_size = sizeof(st_class),
    .name = "TriangularQuadraticSpringsForceField",
    .category = "ForceField",
    .description = "Quadratic springs on the edges of triangles, with angular couplings, from "
                   "the membrane's Young modulus and Poisson ratio",
    .instance_size = sizeof(tri_springs),
    .fields = tqs_fields,
    .init = tqs_init,
    .reinit = tqs_init,
    .cleanup = tri_springs_cleanup,
    .forcefield = &tri_springs_ops,
    .checkpoint = &tri_springs_ck,
};
