/* plugin.c - the Constraint.Projective plugin: SOFA's projective
 * constraints (fixed points, partially fixed points, fixed planes, motions
 * and velocities imposed at key times). */
#include <settee/settee.h>

#include "projective.h"

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &fixed_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &partial_fixed_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &fixed_plane_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &linear_movement_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &linear_velocity_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &line_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &plane_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &point_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &direction_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &affine_movement_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &patch_test_movement_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &attach_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &oscillator_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &skeletal_motion_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &parabolic_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &fixed_rotation_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &fixed_translation_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &position_based_dynamics_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &hermite_spline_projective_constraint_class, err));
    ST_TRY(st_registry_add(r, &partial_linear_movement_projective_constraint_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Constraint.Projective", NULL};

ST_PLUGIN_DEFINE("Constraint.Projective", "0.1.0",
                 "Projective constraints: fixed points, partially fixed points, fixed planes, "
                 "linear movements and velocities",
                 "LGPL-2.1-or-later", provides, register_classes)
