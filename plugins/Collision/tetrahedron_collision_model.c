/* tetrahedron_collision_model.c - TetrahedronCollisionModel: collision model using a tetrahedral mesh, as described in its topology.
 * SOFA's methods test it against points only (TetrahedronDiscreteIntersection:
 * a point of a model with computeNormals inside a tetrahedron; intersect_volume.c).
 * Common data, boxes and the contact forces: model_common.c. */
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_LINK(cmodel, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the topology of the node or above)"),
    ST_FIELD_END};

static const char *const aliases[] = {"TetrahedronModel", NULL};

CMODEL_CLASS(tetrahedron_collision_model_class, "TetrahedronCollisionModel", CM_TETRA,
             "Collision model using a tetrahedral mesh, as described in BaseMeshTopology.",
             NULL);
