/* plugin.c - the SolidMechanics.TensorMass plugin: SOFA's tensor-mass
 * force fields (linear elasticity with its stiffness stored per edge) on
 * triangles and tetrahedra. */
#include <settee/settee.h>

#include "tensor_mass.h"

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &triangular_tensor_mass_force_field_class, err));
    return st_registry_add(r, &tetrahedral_tensor_mass_force_field_class, err);
}

static const char *const provides[] = {"Sofa.Component.SolidMechanics.TensorMass", NULL};

ST_PLUGIN_DEFINE("SolidMechanics.TensorMass", "0.1.0",
                 "Tensor-mass linear elasticity on triangles and tetrahedra",
                 "LGPL-2.1-or-later", provides, register_classes)
