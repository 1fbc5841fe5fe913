/* dynamic_containers.c - SOFA's dynamic topology containers
 * (PointSet/EdgeSet/TriangleSet/QuadSet/TetrahedronSet/HexahedronSet
 * TopologyContainer). They hold the same lists as MeshTopology, following
 * SOFA's class chain (QuadSet and HexahedronSet have no triangles;
 * TetrahedronSet has no quads). Their elements can be removed while the
 * scene runs (st_topology_remove, dynamic_change.c). */
#include "topology_fields.h"

static const st_field point_set_fields[] = {DYN_POINT_FIELDS, ST_FIELD_END};
static const st_field edge_set_fields[] = {DYN_EDGE_FIELDS, ST_FIELD_END};
static const st_field triangle_set_fields[] = {DYN_EDGE_FIELDS, TOPO_F_TRIANGLES(0),
                                               ST_FIELD_END};
static const st_field quad_set_fields[] = {DYN_EDGE_FIELDS, TOPO_F_QUADS(0), ST_FIELD_END};
static const st_field tetra_set_fields[] = {
    DYN_EDGE_FIELDS, TOPO_F_TRIANGLES(0), TOPO_F_TETRAS(0),
    ST_IGNORED(topo, create_triangle_array, "createTriangleArray", ST_T_BOOL, bool, "false",
               "Force the creation of a set of triangles associated with each tetrahedron (the "
               "triangles are derived when needed anyway)"),
    ST_FIELD_END};
static const st_field hexa_set_fields[] = {DYN_HEXA_FIELDS, ST_FIELD_END};

static st_status dyn_create(st_component *self, st_error *err)
{
    (void)err;
    ((topo *)self)->kind = TOPO_DYNAMIC;
    return ST_OK;
}

#define DYN_CLASS(var, cname, desc, table)                                                        \
    const st_class var = {                                                                        \
        .struct_size = sizeof(st_class),                                                          \
        .name = cname,                                                                            \
        .category = "Topology",                                                                   \
        .description = desc,                                                                      \
        .instance_size = sizeof(topo),                                                            \
        .fields = table,                                                                          \
        .create = dyn_create,                                                                     \
        .init = topo_init,                                                                        \
        .reinit = topo_reinit,                                                                    \
        .topology = &topo_ops,                                                                    \
        .parsed = topo_parsed,                                                                    \
    }

DYN_CLASS(point_set_container_class, "PointSetTopologyContainer",
          "Topology container for points", point_set_fields);
DYN_CLASS(edge_set_container_class, "EdgeSetTopologyContainer",
          "Topology container for an edge topology", edge_set_fields);
DYN_CLASS(triangle_set_container_class, "TriangleSetTopologyContainer",
          "Topology container for a triangular topology", triangle_set_fields);
DYN_CLASS(quad_set_container_class, "QuadSetTopologyContainer",
          "Topology container for a quad topology", quad_set_fields);
DYN_CLASS(tetra_set_container_class, "TetrahedronSetTopologyContainer",
          "Topology container for a tetrahedral topology", tetra_set_fields);
DYN_CLASS(hexa_set_container_class, "HexahedronSetTopologyContainer",
          "Topology container for an hexahedral topology", hexa_set_fields);
