/* plugin.c - the SolidMechanics.FEM.HyperElastic plugin: SOFA's
 * hyperelastic finite elements. */
#include <settee/settee.h>

extern const st_class tetrahedron_hyperelasticity_fem_force_field_class;
extern const st_class standard_tetrahedral_fem_force_field_class;
extern const st_class plastic_material_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &tetrahedron_hyperelasticity_fem_force_field_class, err));
    ST_TRY(st_registry_add(r, &standard_tetrahedral_fem_force_field_class, err));
    ST_TRY(st_registry_add(r, &plastic_material_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.SolidMechanics.FEM.HyperElastic", NULL};

ST_PLUGIN_DEFINE("SolidMechanics.FEM.HyperElastic", "0.1.0",
                 "Hyperelastic finite elements: TetrahedronHyperelasticityFEMForceField, "
                 "StandardTetrahedralFEMForceField, PlasticMaterial",
                 "LGPL-2.1-or-later", provides, register_classes)
