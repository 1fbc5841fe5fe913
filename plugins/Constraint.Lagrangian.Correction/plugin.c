/* plugin.c - the Constraint.Lagrangian.Correction plugin: the compliance of
 * a state in constraint space and the corrective motion. */
#include <settee/settee.h>

extern const st_class uncoupled_constraint_correction_class;
extern const st_class linear_solver_constraint_correction_class;
extern const st_class generic_constraint_correction_class;
extern const st_class precomputed_constraint_correction_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &uncoupled_constraint_correction_class, err));
    ST_TRY(st_registry_add(r, &linear_solver_constraint_correction_class, err));
    ST_TRY(st_registry_add(r, &generic_constraint_correction_class, err));
    ST_TRY(st_registry_add(r, &precomputed_constraint_correction_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Constraint.Lagrangian.Correction", NULL};

ST_PLUGIN_DEFINE("Constraint.Lagrangian.Correction", "0.1.0", "Lagrangian constraint corrections",
                 "LGPL-2.1-or-later", provides, register_classes)
