/* collision_group_manager.c - DefaultCollisionGroupManager (alias
 * CollisionGroupManager). SOFA merges the integration groups of two objects
 * in contact under one solver. Its presence tells the collision pipeline
 * to merge, at init, the ODE solvers whose subtrees hold models that may
 * collide (collision_pipeline.c, pipeline_solver_groups): the kernel then
 * compiles one system per group, integrated by its first solver. Without
 * it such pairs are refused. */
#include "collision.h"

static const st_field fields[] = {ST_FIELD_END};

static const char *const aliases[] = {"CollisionGroupManager", NULL};

const st_class collision_group_manager_class = {
    .struct_size = sizeof(st_class),
    .name = "DefaultCollisionGroupManager",
    .category = "CollisionAlgorithm",
    .description = "Collision group manager: objects under different ODE solvers whose "
                   "collision models may collide are integrated by one solver (settee: merged at "
                   "init, integrated by the group's first solver)",
    .aliases = aliases,
    .instance_size = sizeof(st_component),
    .fields = fields,
};
