/* capsule_collision_model.c - CapsuleCollisionModel (SOFA's
 * CollisionOBBCapsule plugin). On a Vec3d state: one capsule per edge of
 * the topology (the edge's two points are its axis' ends), radius
 * listCapsuleRadii[i] (else defaultRadius); contacts sit on the edge with
 * line weights and the radius joins the rest distance (SOFA's
 * CapsuleContactMapper). On a Rigid3d state (SOFA's
 * CapsuleCollisionModel<Rigid3d>, also RigidCapsuleCollisionModel here):
 * one capsule per frame, radii, heights, defaultRadius, dafaultHeight
 * (rigid_capsule_collision_model.c). Boxes: the two ends widened by the
 * radius. */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_REALS(cmodel, list_radius, "listCapsuleRadii", NULL, "Radius of each capsule (Vec3d)"),
    ST_REAL(cmodel, default_radius, "defaultRadius", "0.5", "The default radius"),
    ST_REALS(cmodel, radii, "radii", NULL, "Radius of each capsule (Rigid3d)"),
    ST_REALS(cmodel, heights, "heights", NULL, "The capsule heights (Rigid3d)"),
    ST_FIELD_EX(cmodel, default_height, "dafaultHeight", ST_T_REAL, double, "2",
                "The default height (Rigid3d; SOFA's spelling, defaultHeight is accepted too)", 0,
                "defaultHeight", 0.0, 0.0),
    ST_FIELD_END};

static const char *const aliases[] = {"CapsuleModel", "Capsule", NULL};

static const char *const templates[] = {"Vec3d", "Rigid3d", NULL};

CMODEL_CLASS(capsule_collision_model_class, "CapsuleCollisionModel", CM_CAPSULE,
             "Collision model which represents a set of capsules, one per edge of its topology "
             "(Vec3d) or one per frame (Rigid3d)",
             templates);
