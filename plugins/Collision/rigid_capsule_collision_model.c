/* rigid_capsule_collision_model.c - RigidCapsuleCollisionModel (SOFA's
 * CapsuleCollisionModel<Rigid3d>, CollisionOBBCapsule plugin): one capsule
 * per frame of a Rigid3d state, its axis along the frame's local y, from
 * centre - h/2 y to centre + h/2 y, radius radii[i] (else defaultRadius),
 * height heights[i] (else SOFA's "dafaultHeight", spelled as SOFA does;
 * "defaultHeight" is accepted too). */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_REALS(cmodel, radii, "radii", NULL, "Radius of each capsule"),
    ST_REALS(cmodel, heights, "heights", NULL, "The capsule heights"),
    ST_REAL(cmodel, default_radius, "defaultRadius", "0.5", "The default radius"),
    ST_FIELD_EX(cmodel, default_height, "dafaultHeight", ST_T_REAL, double, "2",
                "The default height (SOFA's spelling; defaultHeight is accepted too)", 0,
                "defaultHeight", 0.0, 0.0),
    ST_FIELD_END};

static const char *const aliases[] = {"RigidCapsuleModel", "CapsuleCollisionModel<Rigid3d>",
                                      NULL};

static const char *const templates[] = {"Rigid3d", NULL};

CMODEL_CLASS(rigid_capsule_collision_model_class, "RigidCapsuleCollisionModel", CM_RIGIDCAPSULE,
             "Collision model which represents a set of rigid capsules, one per frame of its "
             "Rigid3d state",
             templates);
