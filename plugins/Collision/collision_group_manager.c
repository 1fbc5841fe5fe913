/* collision_group_manager.c - DefaultCollisionGroupManager (alias
 * CollisionGroupManager). SOFA merges the systems of two objects in contact
 * under one solver; settee's contacts act within one system (a pair across
 * two ODE solvers' systems is refused by the pipeline at init), so the
 * component is accepted and has nothing to do. */
#include "collision.h"

static const st_field fields[] = {ST_FIELD_END};

static const char *const aliases[] = {"CollisionGroupManager", NULL};

const st_class collision_group_manager_class = {
    .struct_size = sizeof(st_class),
    .name = "DefaultCollisionGroupManager",
    .category = "CollisionAlgorithm",
    .description = "Collision group manager (settee: contacts act within one solver's system; "
                   "pairs across two solvers are refused)",
    .aliases = aliases,
    .instance_size = sizeof(st_component),
    .fields = fields,
};
