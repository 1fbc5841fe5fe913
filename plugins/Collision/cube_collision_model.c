/* cube_collision_model.c - CubeCollisionModel: collision model representing a bounding box (the hierarchy level of other models; alone it makes no contacts).
 * Common data, boxes and the contact forces: model_common.c. */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_FIELD_END};

static const char *const aliases[] = {"CubeModel", NULL};

CMODEL_CLASS(cube_collision_model_class, "CubeCollisionModel", CM_CUBE,
             "Collision model representing a bounding box (the hierarchy level of other models; alone it makes no contacts)",
             NULL);
