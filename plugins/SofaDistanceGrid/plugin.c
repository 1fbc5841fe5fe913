/* plugin.c - the SofaDistanceGrid plugin: SOFA's distance grids (a signed
 * distance field on a regular grid, distance_grid.c) and the force field
 * that pushes points out of one. The distance grid collision models
 * (RigidDistanceGridCollisionModel, FFDDistanceGridCollisionModel) are
 * registered by the Collision plugin, whose pipeline they belong to
 * (plugins/Collision/distance_grid_collision.c, built from the same
 * distance_grid.c). */
#include <settee/settee.h>

extern const st_class distance_grid_force_field_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    return st_registry_add(r, &distance_grid_force_field_class, err);
}

static const char *const provides[] = {"SofaDistanceGrid", NULL};

ST_PLUGIN_DEFINE("SofaDistanceGrid", "0.1.0",
                 "SOFA's SofaDistanceGrid plugin: distance grids built from a closed surface by "
                 "fast marching, and DistanceGridForceField (the collision models are in the "
                 "Collision plugin)",
                 "LGPL-2.1-or-later", provides, register_classes)
