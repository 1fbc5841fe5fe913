/* plugin.c - the Mass plugin descriptor: mass components. */
#include <settee/settee.h>

#include "mass.h"

/* DiagonalMass and MeshMatrixMass (diagonal_mass.c, mesh_matrix_mass.c). */
extern const st_class st_diagonal_mass_class;
extern const st_class st_mesh_matrix_mass_class;

static st_status mass_register(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &st_uniform_mass_class, err));
    ST_TRY(st_registry_add(r, &st_diagonal_mass_class, err));
    ST_TRY(st_registry_add(r, &st_mesh_matrix_mass_class, err));
    ST_TRY(st_registry_add(r, &st_nodal_mass_density_class, err));
    ST_TRY(st_registry_add(r, &st_fem_mass_class, err));
    return ST_OK;
}

static const char *const mass_provides[] = {"Sofa.Component.Mass", NULL};

ST_PLUGIN_DEFINE("Mass", "0.1.0", "Masses: uniform, diagonal (lumped), mesh (consistent or lumped) and finite-element with a nodal density", "LGPL-2.1-or-later", mass_provides,
                 mass_register)
