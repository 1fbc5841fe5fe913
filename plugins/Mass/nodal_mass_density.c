/* nodal_mass_density.c - NodalMassDensity: SOFA's nodal mass density, one
 * value per vertex ("property"), read by FEMMass. A vertex past the end of
 * the list takes the last value; an empty list gives 1. */
#include "mass.h"

static const st_field nmd_fields[] = {
    ST_REALS(nodal_mass_density, property, "property", "1", "Nodal property"),
    ST_FIELD_END};

const st_class st_nodal_mass_density_class = {
    .struct_size = sizeof(st_class),
    .name = "NodalMassDensity",
    .category = "Mass",
    .description = "Definition of a nodal mass density (one value per dof), read by FEMMass",
    .instance_size = sizeof(nodal_mass_density),
    .fields = nmd_fields,
};

double nodal_mass_density_at(const nodal_mass_density *d, size_t i)
{
    if (i < d->property.n)
        return d->property.r[i];
    return d->property.n ? d->property.r[d->property.n - 1] : 1.0;
}
