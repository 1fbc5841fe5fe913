/* cylinder_collision_model.c - CylinderCollisionModel: collision model which represents a set of rigid cylinders, one per frame of its Rigid3d state.
 * Cylinder i: centre and orientation of frame i, radius radii[i] (else
 * defaultRadius), height heights[i] (else defaultHeight), axis
 * defaultLocalAxis turned by the frame. Its boxes are SOFA's; SOFA's
 * intersection methods (MinProximity, NewProximity, LocalMinDistance,
 * Discrete) register no test for cylinders, so it makes no contact with
 * them, as in SOFA. Common data, boxes: model_common.c. */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_REALS(cmodel, radii, "radii", NULL, "Radius of each cylinder"),
    ST_REALS(cmodel, heights, "heights", NULL, "The cylinder heights"),
    ST_REAL(cmodel, default_radius, "defaultRadius", "0.5", "The default radius"),
    ST_REAL(cmodel, default_height, "defaultHeight", "2", "The default height"),
    ST_VEC3(cmodel, default_axis, "defaultLocalAxis", "0 1 0",
            "The default local axis cylinder is modeled around"),
    ST_FIELD_END};

static const char *const aliases[] = {"CylinderModel", NULL};

static const char *const templates[] = {"Rigid3d", NULL};

CMODEL_CLASS(cylinder_collision_model_class, "CylinderCollisionModel", CM_CYLINDER,
             "Collision model which represents a set of rigid cylinders.", templates);
