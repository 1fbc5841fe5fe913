/* point_collision_model.c - PointCollisionModel: collision model which represents a set of points;
 * SpatialGridPointModel (SOFA's SofaSphFluid), the same points under another bounding tree.
 * Common data, boxes and the contact forces: model_common.c. */
#include <string.h>

#include "collision.h"

#define POINT_MODEL_FIELDS                                                                         \
    CMODEL_COMMON_FIELDS,                                                                       \
    ST_IGNORED(cmodel, both_side, "bothSide", ST_T_BOOL, bool, "false",                         \
               "activate collision on both side of the point model (when surface normals are "   \
               "defined on these points) (no effect with MinProximityIntersection)"),            \
    ST_BOOL(cmodel, compute_normals, "computeNormals", "false",                                 \
            "activate computation of normal vectors (required for some collision detection "     \
            "algorithms: the tetrahedron-point test)"),                                          \
    ST_IGNORED(cmodel, display_free_position, "displayFreePosition", ST_T_BOOL, bool, "false",  \
               "Display Collision Model Points free position(in green) (no display)")

static const st_field fields[] = {POINT_MODEL_FIELDS, ST_FIELD_END};

static const char *const aliases[] = {"PointModel", NULL};

CMODEL_CLASS(point_collision_model_class, "PointCollisionModel", CM_POINT,
             "Collision model which represents a set of points",
             NULL);

/* SpatialGridPointModel: SOFA's point model whose bounding tree is an
 * octree of the SpatialGridContainer's cells (the points' ranges in the
 * grid's sorted order). The points, their tests and their contacts are
 * PointCollisionModel's; settee's broad and narrow phases do not read a
 * model's tree, so only the pruning differs, never the contacts. SOFA
 * reports an error and goes on as a point model without a
 * SpatialGridContainer above it; settee warns. (SOFA's grid with
 * sortPoints reorders the state so that each cell's points are
 * consecutive; settee never reorders a state, and needs not: the contacts
 * are the same, numbered by the scene's order.) */
static const st_field grid_fields[] = {
    POINT_MODEL_FIELDS,
    ST_IGNORED(cmodel, leaf_scale, "leafScale", ST_T_INT, int, "0",
               "at which level should the first cube layer be constructed. Note that this must "
               "not be greater than GRIDDIM_LOG2 (shapes SOFA's bounding tree only)"),
    ST_FIELD_END};

static st_status grid_point_init(st_component *self, st_error *err)
{
    ST_TRY(cmodel_init((cmodel *)self, CM_POINT, err));
    for (st_node *n = self->node; n; n = st_node_parent(n))
        for (size_t k = 0; k < st_node_object_count(n); k++)
            if (strcmp(st_node_object(n, k)->cls->name, "SpatialGridContainer") == 0)
                return ST_OK;
    st_component_warn(self, "Requires a Vec3 SpatialGridContainer (none in this node or above): "
                            "it works as a PointCollisionModel, as SOFA's does then");
    return ST_OK;
}

const st_class spatial_grid_point_model_class = {
    .struct_size = sizeof(st_class),
    .name = "SpatialGridPointModel",
    .category = "CollisionModel",
    .description = "Collision model which represents a set of points, bounded by the cells of "
                   "the node's SpatialGridContainer (SofaSphFluid; its contacts are "
                   "PointCollisionModel's)",
    .instance_size = sizeof(cmodel),
    .fields = grid_fields,
    .init = grid_point_init,
    .cleanup = cmodel_cleanup,
    .forcefield = &cmodel_forcefield_ops,
};
