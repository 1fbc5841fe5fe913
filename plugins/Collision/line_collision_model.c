/* line_collision_model.c - LineCollisionModel: collision model using a linear mesh, as described in a topology (its edges, else the edges of its triangles).
 * Common data, boxes and the contact forces: model_common.c. */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_IGNORED(cmodel, both_side, "bothSide", ST_T_BOOL, bool, "false",
               "activate collision on both side of the line model (when surface normals are "
               "defined on these lines) (no effect with MinProximityIntersection)"),
    ST_IGNORED(cmodel, display_free_position, "displayFreePosition", ST_T_BOOL, bool, "false",
               "Display Collision Model Points free position(in green) (no display)"),
    ST_LINK(cmodel, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the topology of the node or above)"),
    ST_FIELD_END};

static const char *const aliases[] = {"LineModel", NULL};

CMODEL_CLASS(line_collision_model_class, "LineCollisionModel", CM_LINE,
             "Collision model using a linear mesh, as described in a topology (its edges, else the edges of its triangles)",
             NULL);
