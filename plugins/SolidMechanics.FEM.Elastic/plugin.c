/* plugin.c - the SolidMechanics.FEM.Elastic plugin: SOFA's linear elastic
 * finite elements. */
#include <settee/settee.h>

#include "element_fem.h"
#include "fem.h"
#include "hexahedron_fem.h"

extern const st_class hexahedral_fem_force_field_and_mass_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &tetrahedron_fem_force_field_class, err));
    ST_TRY(st_registry_add(r, &hexahedron_fem_force_field_class, err));
    ST_TRY(st_registry_add(r, &hexahedron_fem_force_field_and_mass_class, err));
    ST_TRY(st_registry_add(r, &hexahedral_fem_force_field_class, err));
    ST_TRY(st_registry_add(r, &hexahedral_fem_force_field_and_mass_class, err));
    ST_TRY(st_registry_add(r, &triangle_fem_force_field_class, err));
    ST_TRY(st_registry_add(r, &tetrahedral_corotational_fem_force_field_class, err));
    ST_TRY(st_registry_add(r, &triangular_fem_force_field_class, err));
    ST_TRY(st_registry_add(r, &triangular_fem_force_field_optim_class, err));
    ST_TRY(st_registry_add(r, &triangular_anisotropic_fem_force_field_class, err));
    ST_TRY(st_registry_add(r, &fast_tetrahedral_corotational_force_field_class, err));
    ST_TRY(st_registry_add(r, &quad_bending_fem_force_field_class, err));
    ST_TRY(st_registry_add(r, &beam_fem_force_field_class, err));
    ST_TRY(st_registry_add(r, &linear_small_strain_fem_force_field_class, err));
    ST_TRY(st_registry_add(r, &corotational_fem_force_field_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.SolidMechanics.FEM.Elastic", NULL};

ST_PLUGIN_DEFINE("SolidMechanics.FEM.Elastic", "0.1.0",
                 "Linear elastic finite elements on tetrahedra, hexahedra, triangles, quads and beams",
                 "LGPL-2.1-or-later", provides, register_classes)
