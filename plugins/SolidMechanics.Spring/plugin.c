/* plugin.c - the SolidMechanics.Spring plugin: SOFA's linear springs
 * (explicit lists, springs from a mesh or a regular grid, springs to the
 * rest shape), bending springs (triangles, quads, Volino's linear model)
 * joint springs between rigid frames, and Delingette's triangular (bi)quadratic
 * springs, and springs with rest vectors (VectorSpringForceField). */
#include <settee/settee.h>

#include "springs.h"

extern const st_class vector_spring_force_field_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &spring_force_field_class, err));
    ST_TRY(st_registry_add(r, &mesh_spring_force_field_class, err));
    ST_TRY(st_registry_add(r, &rest_shape_springs_force_field_class, err));
    ST_TRY(st_registry_add(r, &triangular_bending_springs_class, err));
    ST_TRY(st_registry_add(r, &fast_triangular_bending_springs_class, err));
    ST_TRY(st_registry_add(r, &quadular_bending_springs_class, err));
    ST_TRY(st_registry_add(r, &regular_grid_spring_force_field_class, err));
    ST_TRY(st_registry_add(r, &quad_bending_springs_class, err));
    ST_TRY(st_registry_add(r, &triangle_bending_springs_class, err));
    ST_TRY(st_registry_add(r, &joint_spring_force_field_class, err));
    ST_TRY(st_registry_add(r, &triangular_quadratic_springs_class, err));
    ST_TRY(st_registry_add(r, &triangular_biquadratic_springs_class, err));
    ST_TRY(st_registry_add(r, &polynomial_springs_force_field_class, err));
    ST_TRY(st_registry_add(r, &polynomial_rest_shape_springs_force_field_class, err));
    ST_TRY(st_registry_add(r, &gear_spring_force_field_class, err));
    ST_TRY(st_registry_add(r, &repulsive_spring_force_field_class, err));
    ST_TRY(st_registry_add(r, &angular_spring_force_field_class, err));
    ST_TRY(st_registry_add(r, &frame_spring_force_field_class, err));
    ST_TRY(st_registry_add(r, &vector_spring_force_field_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.SolidMechanics.Spring", NULL};

ST_PLUGIN_DEFINE("SolidMechanics.Spring", "0.1.0",
                 "Linear springs: listed, along mesh elements, towards a rest shape, on regular "
                 "grids, bending springs, and 6D joint springs between rigid frames",
                 "LGPL-2.1-or-later", provides, register_classes)
