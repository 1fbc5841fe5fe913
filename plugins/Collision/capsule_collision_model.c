/* capsule_collision_model.c - CapsuleCollisionModel (SOFA's
 * CollisionOBBCapsule plugin): one capsule per edge of the topology of a
 * Vec3d state (the edge's two points are its axis' ends), radius
 * listCapsuleRadii[i] (else defaultRadius). Contacts sit on the edge with
 * line weights and the radius joins the rest distance (SOFA's
 * CapsuleContactMapper). Boxes: the two ends widened by the radius. */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_REALS(cmodel, radii, "listCapsuleRadii", NULL, "Radius of each capsule"),
    ST_REAL(cmodel, default_radius, "defaultRadius", "0.5", "The default radius"),
    ST_FIELD_END};

static const char *const aliases[] = {"CapsuleModel", "Capsule", NULL};

static const char *const templates[] = {"Vec3d", NULL};

CMODEL_CLASS(capsule_collision_model_class, "CapsuleCollisionModel", CM_CAPSULE,
             "Collision model which represents a set of capsules, one per edge of its topology",
             templates);
