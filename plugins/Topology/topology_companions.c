/* topology_companions.c - the ...GeometryAlgorithms and ...TopologyModifier
 * companions of SOFA's dynamic containers. Scenes declare them next to a
 * container; here they keep their data and do nothing (geometric queries
 * and topological changes are not needed by the scenes we run). */
#include <settee/settee.h>

typedef struct geo_algo {
    st_component base;
    double show_indices_scale; /* "showIndicesScale" */
    bool show_point_indices;   /* "showPointIndices" */
    bool draw;                 /* "drawEdges" / "drawTriangles" / ... */
    st_component *topology;    /* "topology" */
} geo_algo;

typedef struct topo_modifier {
    st_component base;
    bool propagate_to_dof; /* "propagateToDOF" */
} topo_modifier;

#define GEO_BASE                                                                                  \
    ST_REAL(geo_algo, show_indices_scale, "showIndicesScale", "0.02",                             \
            "Debug : scale for view topology indices (no-op headless)"),                          \
        ST_BOOL(geo_algo, show_point_indices, "showPointIndices", "false",                        \
                "Debug : view Point indices (no-op headless)"),                                   \
        {"topology", ST_T_LINK,                                                                   \
         offsetof(geo_algo, topology) + ST_FIELD_CHECK_(geo_algo, topology, st_component *),      \
         NULL, "Link to the topology container", 0, NULL, ST_LINK_TOPOLOGY, 0.0, 0.0}

static const st_field point_geo_fields[] = {GEO_BASE, ST_FIELD_END};
static const st_field edge_geo_fields[] = {
    GEO_BASE, ST_BOOL(geo_algo, draw, "drawEdges", "false", "Debug : view Edges (no-op headless)"),
    ST_FIELD_END};
static const st_field triangle_geo_fields[] = {
    GEO_BASE,
    ST_BOOL(geo_algo, draw, "drawTriangles", "false", "Debug : view Triangles (no-op headless)"),
    ST_FIELD_END};
static const st_field quad_geo_fields[] = {
    GEO_BASE, ST_BOOL(geo_algo, draw, "drawQuads", "false", "Debug : view Quads (no-op headless)"),
    ST_FIELD_END};
static const st_field tetra_geo_fields[] = {
    GEO_BASE,
    ST_BOOL(geo_algo, draw, "drawTetrahedra", "false", "Debug : view Tetrahedra (no-op headless)"),
    ST_FIELD_END};
static const st_field hexa_geo_fields[] = {
    GEO_BASE,
    ST_BOOL(geo_algo, draw, "drawHexahedra", "false", "Debug : view Hexahedra (no-op headless)"),
    ST_FIELD_END};

static const st_field modifier_fields[] = {
    ST_BOOL(topo_modifier, propagate_to_dof, "propagateToDOF", "true",
            "Propagate changes to Mechanical object DOFs"),
    ST_FIELD_END};

static st_status companion_init(st_component *self, st_error *err)
{
    (void)err;
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

#define GEO_CLASS(var, cname, table)                                                              \
    const st_class var = {.struct_size = sizeof(st_class),                                        \
                          .name = cname,                                                          \
                          .category = "TopologyObject",                                           \
                          .description = "Geometry algorithms of a dynamic topology (accepted, "  \
                                         "no-op headless)",                                      \
                          .instance_size = sizeof(geo_algo),                                      \
                          .fields = table,                                                        \
                          .init = companion_init}
#define MOD_CLASS(var, cname)                                                                     \
    const st_class var = {.struct_size = sizeof(st_class),                                        \
                          .name = cname,                                                          \
                          .category = "TopologyObject",                                           \
                          .description = "Topology modifier of a dynamic topology (accepted; "    \
                                         "topological changes are not supported)",               \
                          .instance_size = sizeof(topo_modifier),                                 \
                          .fields = modifier_fields,                                              \
                          .init = companion_init}

GEO_CLASS(point_set_geo_class, "PointSetGeometryAlgorithms", point_geo_fields);
GEO_CLASS(edge_set_geo_class, "EdgeSetGeometryAlgorithms", edge_geo_fields);
GEO_CLASS(triangle_set_geo_class, "TriangleSetGeometryAlgorithms", triangle_geo_fields);
GEO_CLASS(quad_set_geo_class, "QuadSetGeometryAlgorithms", quad_geo_fields);
GEO_CLASS(tetra_set_geo_class, "TetrahedronSetGeometryAlgorithms", tetra_geo_fields);
GEO_CLASS(hexa_set_geo_class, "HexahedronSetGeometryAlgorithms", hexa_geo_fields);
MOD_CLASS(point_set_mod_class, "PointSetTopologyModifier");
MOD_CLASS(edge_set_mod_class, "EdgeSetTopologyModifier");
MOD_CLASS(triangle_set_mod_class, "TriangleSetTopologyModifier");
MOD_CLASS(quad_set_mod_class, "QuadSetTopologyModifier");
MOD_CLASS(tetra_set_mod_class, "TetrahedronSetTopologyModifier");
MOD_CLASS(hexa_set_mod_class, "HexahedronSetTopologyModifier");
