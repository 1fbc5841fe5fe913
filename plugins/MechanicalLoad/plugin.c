/* plugin.c - the MechanicalLoad plugin: SOFA's Sofa.Component.MechanicalLoad
 * loads (constant forces, penalty contacts with a plane, a sphere and an
 * ellipsoid, pressures on triangles, quads and surfaces, Tait's enclosed
 * fluid). */
#include <settee/settee.h>

#include "mechanical_load.h"

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &constant_force_field_class, err));
    ST_TRY(st_registry_add(r, &plane_force_field_class, err));
    ST_TRY(st_registry_add(r, &sphere_force_field_class, err));
    ST_TRY(st_registry_add(r, &ellipsoid_force_field_class, err));
    ST_TRY(st_registry_add(r, &triangle_pressure_force_field_class, err));
    ST_TRY(st_registry_add(r, &quad_pressure_force_field_class, err));
    ST_TRY(st_registry_add(r, &surface_pressure_force_field_class, err));
    ST_TRY(st_registry_add(r, &tait_surface_pressure_force_field_class, err));
    ST_TRY(st_registry_add(r, &edge_pressure_force_field_class, err));
    ST_TRY(st_registry_add(r, &gravity_class, err));
    ST_TRY(st_registry_add(r, &uniform_velocity_damping_force_field_class, err));
    ST_TRY(st_registry_add(r, &diagonal_velocity_damping_force_field_class, err));
    ST_TRY(st_registry_add(r, &linear_force_field_class, err));
    ST_TRY(st_registry_add(r, &torsion_force_field_class, err));
    ST_TRY(st_registry_add(r, &conical_force_field_class, err));
    ST_TRY(st_registry_add(r, &oscillating_torsion_pressure_force_field_class, err));
    ST_TRY(st_registry_add(r, &interaction_ellipsoid_force_field_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.MechanicalLoad", NULL};

ST_PLUGIN_DEFINE("MechanicalLoad", "0.1.0",
                 "Loads: constant forces, penalty obstacles (planes, spheres, ellipsoids) and "
                 "pressures on surfaces",
                 "LGPL-2.1-or-later", provides, register_classes)
