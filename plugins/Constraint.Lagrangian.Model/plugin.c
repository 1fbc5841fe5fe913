/* plugin.c - the Constraint.Lagrangian.Model plugin: Lagrangian constraint
 * models (rows of the constraint Jacobian, violations, resolutions). */
#include <settee/settee.h>

extern const st_class bilateral_lagrangian_constraint_class;
extern const st_class fixed_lagrangian_constraint_class;
extern const st_class sliding_lagrangian_constraint_class;
extern const st_class stopper_lagrangian_constraint_class;
extern const st_class uniform_lagrangian_constraint_class;
extern const st_class unilateral_lagrangian_constraint_class;
extern const st_class augmented_lagrangian_constraint_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &bilateral_lagrangian_constraint_class, err));
    ST_TRY(st_registry_add(r, &fixed_lagrangian_constraint_class, err));
    ST_TRY(st_registry_add(r, &sliding_lagrangian_constraint_class, err));
    ST_TRY(st_registry_add(r, &stopper_lagrangian_constraint_class, err));
    ST_TRY(st_registry_add(r, &uniform_lagrangian_constraint_class, err));
    ST_TRY(st_registry_add(r, &unilateral_lagrangian_constraint_class, err));
    ST_TRY(st_registry_add(r, &augmented_lagrangian_constraint_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Constraint.Lagrangian.Model", NULL};

ST_PLUGIN_DEFINE("Constraint.Lagrangian.Model", "0.1.0", "Lagrangian constraint models",
                 "LGPL-2.1-or-later", provides, register_classes)
