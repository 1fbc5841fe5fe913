/* triangle_collision_model.c - TriangleCollisionModel: collision model using a triangular mesh, as described in a topology (its triangles, and its quads cut in two).
 * Common data, boxes and the contact forces: model_common.c. */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_IGNORED(cmodel, both_side, "bothSide", ST_T_BOOL, bool, "false",
               "activate collision on both side of the triangle model (no effect with "
               "MinProximityIntersection)"),
    ST_IGNORED(cmodel, compute_normals, "computeNormals", ST_T_BOOL, bool, "true",
               "set to false to disable computation of triangles normal (normals are not used "
               "by MinProximityIntersection)"),
    ST_IGNORED(cmodel, use_curvature, "useCurvature", ST_T_BOOL, bool, "false",
               "use the curvature of the mesh to avoid some self-intersection test (not used)"),
    ST_LINK(cmodel, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the topology of the node or above)"),
    ST_FIELD_END};

static const char *const aliases[] = {"TriangleModel", NULL};

CMODEL_CLASS(triangle_collision_model_class, "TriangleCollisionModel", CM_TRIANGLE,
             "Collision model using a triangular mesh, as described in a topology (its triangles, and its quads cut in two)",
             NULL);
