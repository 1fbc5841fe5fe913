/* sphere_collision_model.c - SphereCollisionModel: collision model which represents a set of spheres, one per point of its state (Vec3d: centres; Rigid3d: frames).
 * Common data, boxes and the contact forces: model_common.c. */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_REALS(cmodel, list_radius, "listRadius", NULL, "Radius of each sphere"),
    ST_REAL(cmodel, radius, "radius", "1", "Default radius"),
    ST_IGNORED(cmodel, show_impostors, "showImpostors", ST_T_BOOL, bool, "true",
               "Draw spheres as impostors instead of \"real\" spheres (no display)"),
    ST_FIELD_END};

static const char *const aliases[] = {"SphereModel", NULL};

CMODEL_CLASS(sphere_collision_model_class, "SphereCollisionModel", CM_SPHERE,
             "Collision model which represents a set of spheres, one per point of its state (Vec3d: centres; Rigid3d: frames)",
             cmodel_sphere_templates);
