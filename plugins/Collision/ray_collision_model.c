/* ray_collision_model.c - RayCollisionModel: collision model representing a ray in space, e.g. a mouse click.
 * Ray i starts at point i of its Vec3d state; SOFA gives it a direction
 * (zero at first) and a length (defaultLength), both set only by the
 * picking code through addRay/setDirection. settee has no picking yet, so
 * every ray keeps SOFA's initial zero direction: its box is its origin
 * point and no intersection method tests it. SOFA's RayDiscreteIntersection
 * ray-triangle and ray-sphere tests are in intersect.c (st_coll_ray_*), for
 * the picking to come. Common data, boxes: model_common.c. */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_REAL(cmodel, default_length, "defaultLength", "1",
            "The default length for all rays in this collision model"),
    ST_FIELD_END};

static const char *const aliases[] = {"RayModel", NULL};

CMODEL_CLASS(ray_collision_model_class, "RayCollisionModel", CM_RAY,
             "Collision model representing a ray in space, e.g. a mouse click", NULL);
