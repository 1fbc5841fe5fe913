/* cube_collision_model.c - CubeCollisionModel: collision model representing a bounding box (the hierarchy level of other models; alone it makes no contacts).
 * Common data, boxes and the contact forces: model_common.c. */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_FIELD_END};

static st_status init(st_component *self, st_error *err)
{
    return cmodel_init((cmodel *)self, CM_CUBE, err);
}

static const char *const aliases[] = {"CubeModel", NULL};

const st_class cube_collision_model_class = {
    .struct_size = sizeof(st_class),
    .name = "CubeCollisionModel",
    .category = "CollisionModel",
    .description = "Collision model representing a bounding box (the hierarchy level of other models; alone it makes no contacts)",
    .aliases = aliases,
    .instance_size = sizeof(cmodel),
    .fields = fields,
    .init = init,
    .cleanup = cmodel_cleanup,
    .forcefield = &cmodel_forcefield_ops,
};
