/* tetrahedron_hyperelasticity_fem_force_field.c -
 * TetrahedronHyperelasticityFEMForceField: SOFA's hyperelastic tetrahedron
 * with any of its eight materials (the element code is hyper_fem.c). A
 * topology without tetrahedra is an error, as in SOFA. */
#include "hyper_fem.h"

static st_status thff_init(st_component *self, st_error *err)
{
    return hyper_fem_init(self, true, err);
}

#define T hyper_ff
static const st_field thff_fields[] = {
    HYPER_F_COMMON(T),
    ST_STRING(T, material_name, "materialName", "ArrudaBoyce",
              "the name of the material to be used. Possible options are: 'ArrudaBoyce', "
              "'Costa', 'MooneyRivlin', 'NeoHookean', 'Ogden', 'StVenantKirchhoff', "
              "'VerondaWestman', 'StableNeoHookean'. A number selects by position in SOFA's "
              "option list (0 ArrudaBoyce, 1 StVenantKirchhoff, 2 NeoHookean, 3 MooneyRivlin, 4 "
              "VerondaWestman, 5 Costa, 6 Ogden, 7 StableNeoHookean), with a warning"),
    ST_IGNORED(T, matrix_regularization, "matrixRegularization", ST_T_BOOL, bool, "false",
               "Regularization of the Stiffness Matrix (between true or false); declared but "
               "never read by SOFA"),
    ST_FIELD_END};
#undef T

const st_class tetrahedron_hyperelasticity_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "TetrahedronHyperelasticityFEMForceField",
    .category = "ForceField",
    .description = "Hyperelastic tetrahedral finite elements (total Lagrangian): StVenantKirchhoff, "
                   "NeoHookean, MooneyRivlin, ArrudaBoyce, Ogden, VerondaWestman, Costa, "
                   "StableNeoHookean",
    .instance_size = sizeof(hyper_ff),
    .fields = thff_fields,
    .init = thff_init,
    .reinit = thff_init,
    .cleanup = hyper_fem_cleanup,
    .forcefield = &hyper_fem_ops,
};
