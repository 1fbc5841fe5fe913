/* standard_tetrahedral_fem_force_field.c - StandardTetrahedralFEMForceField:
 * SOFA's older hyperelastic tetrahedron. Same element, stress and exact
 * tangent as TetrahedronHyperelasticityFEMForceField (hyper_fem.c; SOFA
 * builds its tangent from each material's 6x6 elasticity tensor, the same
 * matrix), with SOFA's differences: its material list has no
 * StableNeoHookean, a topology without tetrahedra is only a warning (the
 * force field then does nothing), and it has the unused ParameterFile
 * field. */
#include <string.h>

#include "hyper_fem.h"

static st_status stff_init(st_component *self, st_error *err)
{
    hyper_ff *s = (hyper_ff *)self;
    if (s->material_name && !strcmp(s->material_name, hyper_stable_neo_hookean.name))
        return st_component_error(self, "materialName", err, ST_EINVAL,
                                  "Material name '%s' is not valid: StandardTetrahedralFEM"
                                  "ForceField takes ArrudaBoyce, StVenantKirchhoff, NeoHookean, "
                                  "MooneyRivlin, VerondaWestman, Costa or Ogden (use "
                                  "TetrahedronHyperelasticityFEMForceField for "
                                  "StableNeoHookean)",
                                  s->material_name);
    return hyper_fem_init(self, false, err);
}

#define T hyper_ff
static const st_field stff_fields[] = {
    HYPER_F_COMMON(T),
    ST_STRING(T, material_name, "materialName", "ArrudaBoyce",
              "the name of the material to be used: 'ArrudaBoyce', 'StVenantKirchhoff', "
              "'NeoHookean', 'MooneyRivlin', 'VerondaWestman', 'Costa' or 'Ogden'"),
    ST_IGNORED(T, parameter_file, "ParameterFile", ST_T_STRING, char *, "myFile.param",
               "the name of the file describing the material parameters for all tetrahedra "
               "(declared but never read by SOFA)"),
    ST_FIELD_END};
#undef T

const st_class standard_tetrahedral_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "StandardTetrahedralFEMForceField",
    .category = "ForceField",
    .description = "Hyperelastic tetrahedral finite elements, SOFA's older implementation: "
                   "StVenantKirchhoff, NeoHookean, MooneyRivlin, ArrudaBoyce, Ogden, "
                   "VerondaWestman, Costa",
    .instance_size = sizeof(hyper_ff),
    .fields = stff_fields,
    .init = stff_init,
    .reinit = stff_init,
    .cleanup = hyper_fem_cleanup,
    .forcefield = &hyper_fem_ops,
};
