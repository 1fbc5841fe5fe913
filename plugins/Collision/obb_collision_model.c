/* obb_collision_model.c - OBBCollisionModel (SOFA's CollisionOBBCapsule
 * plugin): one oriented box per frame of a Rigid3d state, centred on the
 * frame and turned with it, half-widths extents[i] (else defaultExtent on
 * each axis). Its boxes are the boxes of the 8 corners widened by
 * contactDistance, as SOFA's; the tests: obb_capsule.c. */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_VEC3S(cmodel, extents, "extents", NULL, "Extents in x,y and z directions"),
    ST_REAL(cmodel, default_extent, "defaultExtent", "1", "Default extent"),
    ST_FIELD_END};

static const char *const aliases[] = {"OBBModel", "OBB", NULL};

static const char *const templates[] = {"Rigid3d", NULL};

CMODEL_CLASS(obb_collision_model_class, "OBBCollisionModel", CM_OBB,
             "Collision model which represents a set of oriented bounding boxes, one per frame "
             "of its Rigid3d state",
             templates);
