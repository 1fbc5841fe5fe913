/* point_collision_model.c - PointCollisionModel: collision model which represents a set of points.
 * Common data, boxes and the contact forces: model_common.c. */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_IGNORED(cmodel, both_side, "bothSide", ST_T_BOOL, bool, "false",
               "activate collision on both side of the point model (when surface normals are "
               "defined on these points) (no effect with MinProximityIntersection)"),
    ST_BOOL(cmodel, compute_normals, "computeNormals", "false",
            "activate computation of normal vectors (required for some collision detection "
            "algorithms: the tetrahedron-point test)"),
    ST_IGNORED(cmodel, display_free_position, "displayFreePosition", ST_T_BOOL, bool, "false",
               "Display Collision Model Points free position(in green) (no display)"),
    ST_FIELD_END};

static const char *const aliases[] = {"PointModel", NULL};

CMODEL_CLASS(point_collision_model_class, "PointCollisionModel", CM_POINT,
             "Collision model which represents a set of points",
             NULL);
