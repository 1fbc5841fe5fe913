/* triangular_biquadratic_springs_force_field.c - TriangularBiquadratic
 * SpringsForceField: Delingette's biquadratic triangular springs (springs
 * on the squared edge lengths, angular couplings, and a penalty on the
 * compression of each triangle's area), SOFA's class. The formulas are in
 * triangular_springs.c. */
#include "tri_springs.h"

static st_status tbs_init(st_component *self, st_error *err)
{
    return tri_springs_init((tri_springs *)self, true, err);
}

static const st_field tbs_fields[] = {
    TRI_SPRINGS_FIELDS,
    ST_BOOL(tri_springs, compressible, "compressible", "true",
            "If additional energy penalizing compressibility should be used"),
    ST_IGNORED(tri_springs, regularization, "matrixRegularization", ST_T_REAL, double, "0.4",
               "Regularization of the Stiffnes Matrix (between 0 and 1); SOFA does not read it "
               "either"),
    ST_FIELD_END};

const st_class triangular_biquadratic_springs_class = {
    .struct_size = sizeof(st_class),
    .name = "TriangularBiquadraticSpringsForceField",
    .category = "ForceField",
    .description = "Biquadratic springs on the edges of triangles, with angular couplings and "
                   "an area compression penalty, from the membrane's Young modulus and Poisson "
                   "ratio",
    .instance_size = sizeof(tri_springs),
    .fields = tbs_fields,
    .init = tbs_init,
    .reinit = tbs_init,
    .cleanup = tri_springs_cleanup,
    .forcefield = &tri_springs_ops,
    .checkpoint = &tri_springs_ck,
};
