/* plastic_material.c - SOFA's PlasticMaterial: a standalone material object
 * (SOFA's hyperelastic BaseMaterial: a piecewise-linear plane-stress law
 * over the von Mises strain, slopes youngModulus and youngModulus / 2)
 * that no component of SOFA's reads: SOFA's force fields take their
 * materials by name (TetrahedronHyperelasticityFEMForceField's
 * materialName), never through this object, so in a SOFA scene it changes
 * nothing. settee accepts it with SOFA's fields and defaults, checks them,
 * and says once that it has no effect, rather than refusing a scene that
 * names it or pretending to use it. */
#include <settee/settee.h>

typedef struct plastic_material {
    st_component base;
    double poisson_ratio, young_modulus;
} plastic_material;

static const st_field plastic_fields[] = {
    ST_REAL(plastic_material, poisson_ratio, "poissonRatio", "0.45",
            "Poisson ratio in Hooke's law"),
    ST_REAL(plastic_material, young_modulus, "youngModulus", "3000",
            "Young modulus in Hooke's law"),
    ST_FIELD_END};

static st_status plastic_init(st_component *self, st_error *err)
{
    plastic_material *m = (plastic_material *)self;
    if (!(m->poisson_ratio > -1.0 && m->poisson_ratio < 0.5))
        return st_component_error(self, "poissonRatio", err, ST_EINVAL,
                                  "%g is outside (-1, 0.5), where Hooke's law holds",
                                  m->poisson_ratio);
    st_component_warn(self, "PlasticMaterial has no effect: as in SOFA, no force field reads "
                            "this object (TetrahedronHyperelasticityFEMForceField takes its "
                            "material by materialName)");
    return ST_OK;
}

const st_class plastic_material_class = {
    .struct_size = sizeof(st_class),
    .name = "PlasticMaterial",
    .category = "Misc",
    .description = "Plastic material (SOFA's standalone material object; no force field reads "
                   "it, in SOFA as in settee: it has no effect on a scene)",
    .instance_size = sizeof(plastic_material),
    .fields = plastic_fields,
    .init = plastic_init,
    .reinit = plastic_init,
};
