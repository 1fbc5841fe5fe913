/* topology_companions.c - the ...GeometryAlgorithms and ...TopologyModifier
 * companions of SOFA's dynamic containers. Scenes declare them next to a
 * container; here they keep their data and do nothing (geometric queries
 * and topological changes are not needed by the scenes we run). */
#include <stddef.h>

#include <settee/settee.h>

typedef struct geo_algo {
    st_component base;
    /* PointSetGeometryAlgorithms */
    double show_indices_scale;   /* "showIndicesScale" */
    bool show_point_indices;     /* "showPointIndices" */
    char *tag_mechanics;         /* "tagMechanics" */
    st_component *topology;      /* "topology" */
    /* EdgeSet */
    bool show_edge_indices, draw_edges;
    st_vec4 color_edges;
    /* TriangleSet */
    bool show_triangle_indices, draw_triangles, draw_normals;
    st_vec4 color_triangles;
    double draw_normal_length;
    bool recompute_orientation, flip_normals; /* refused when true */
    /* QuadSet */
    bool show_quad_indices, draw_quads;
    st_vec4 color_quads;
    /* TetrahedronSet */
    bool show_tetra_indices, draw_tetrahedra;
    double draw_scale_tetrahedra;
    st_vec4 color_tetrahedra;
    /* HexahedronSet */
    bool show_hexa_indices, draw_hexahedra;
    double draw_scale_hexahedra;
    st_vec4 color_hexahedra;
} geo_algo;

typedef struct topo_modifier {
    st_component base;
    bool propagate_to_dof;   /* "propagateToDOF" */
    bool remove_isolated;    /* "removeIsolated" (tetrahedra, hexahedra) */
    st_array list_out;       /* "list_Out" (triangles; output, stays empty) */
} topo_modifier;

/* SOFA's geometry algorithms draw and query; settee runs headless and
 * never changes a topology, so their display data are accepted and
 * ignored. The tables follow SOFA's class chain (Edge < Triangle <
 * Tetrahedron, Edge < Quad < Hexahedron). */
#define GEO_IGN(m, key, T, CT, def, help) ST_IGNORED(geo_algo, m, key, T, CT, def, help)
#define GEO_IGN_ALIAS(m, key, def, help, alias)                                                   \
    ST_FIELD_EX(geo_algo, m, key, ST_T_BOOL, bool, def, help, ST_F_IGNORED, alias, 0.0, 0.0)
#define GEO_POINT                                                                                 \
    GEO_IGN(show_indices_scale, "showIndicesScale", ST_T_REAL, double, "1",                       \
            "Debug : scale for view topology indices"),                                           \
        GEO_IGN(show_point_indices, "showPointIndices", ST_T_BOOL, bool, "false",                 \
                "Debug : view Point indices"),                                                    \
        GEO_IGN(tag_mechanics, "tagMechanics", ST_T_STRING, char *, NULL,                         \
                "Tag of the Mechanical Object"),                                                  \
        {"topology", ST_T_LINK,                                                                   \
         offsetof(geo_algo, topology) + ST_FIELD_CHECK_(geo_algo, topology, st_component *),      \
         NULL, "link to the topology container", 0, NULL, ST_LINK_TOPOLOGY, 0.0, 0.0}
#define GEO_EDGE                                                                                  \
    GEO_POINT,                                                                                    \
        GEO_IGN(show_edge_indices, "showEdgeIndices", ST_T_BOOL, bool, "false",                   \
                "Debug : view Edge indices"),                                                     \
        GEO_IGN(draw_edges, "drawEdges", ST_T_BOOL, bool, "false",                                \
                "if true, draw the edges in the topology"),                                       \
        GEO_IGN(color_edges, "drawColorEdges", ST_T_RGBA, st_vec4, "0.4 1 0.3 1",                 \
                "RGB code color used to draw edges")
#define GEO_TRIANGLE                                                                              \
    GEO_EDGE,                                                                                     \
        GEO_IGN(show_triangle_indices, "showTriangleIndices", ST_T_BOOL, bool, "false",           \
                "Debug : view Triangle indices"),                                                 \
        GEO_IGN(draw_triangles, "drawTriangles", ST_T_BOOL, bool, "false",                        \
                "if true, draw the triangles in the topology"),                                   \
        GEO_IGN(color_triangles, "drawColorTriangles", ST_T_RGBA, st_vec4, "0.3 0.5 0.8 1",       \
                "RGBA code color used to draw triangles"),                                        \
        GEO_IGN(draw_normals, "drawNormals", ST_T_BOOL, bool, "false",                            \
                "if true, draw the triangles normals"),                                           \
        GEO_IGN(draw_normal_length, "drawNormalLength", ST_T_REAL, double, "10",                  \
                "Fiber length visualisation."),                                                   \
        ST_BOOL(geo_algo, recompute_orientation, "recomputeTrianglesOrientation", "false",        \
                "if true, will recompute triangles orientation according to normals (not "        \
                "supported yet: an error when true)"),                                            \
        ST_BOOL(geo_algo, flip_normals, "flipNormals", "false",                                   \
                "if true, will flip normal of the first triangle used to recompute triangle "     \
                "orientation (not supported yet: an error when true)")
#define GEO_QUAD                                                                                  \
    GEO_EDGE,                                                                                     \
        GEO_IGN(show_quad_indices, "showQuadIndices", ST_T_BOOL, bool, "false",                   \
                "Debug : view Quad indices"),                                                     \
        GEO_IGN(draw_quads, "drawQuads", ST_T_BOOL, bool, "false",                                \
                "if true, draw the quads in the topology"),                                       \
        GEO_IGN(color_quads, "drawColorQuads", ST_T_RGBA, st_vec4, "0 0.4 0.4 1",                 \
                "RGB code color used to draw quads")

static const st_field point_geo_fields[] = {GEO_POINT, ST_FIELD_END};
static const st_field edge_geo_fields[] = {GEO_EDGE, ST_FIELD_END};
static const st_field triangle_geo_fields[] = {GEO_TRIANGLE, ST_FIELD_END};
static const st_field quad_geo_fields[] = {GEO_QUAD, ST_FIELD_END};
static const st_field tetra_geo_fields[] = {
    GEO_TRIANGLE,
    GEO_IGN_ALIAS(show_tetra_indices, "showTetrahedraIndices", "false",
                  "Debug : view Tetrahedrons indices", "showTetrasIndices"),
    GEO_IGN_ALIAS(draw_tetrahedra, "drawTetrahedra", "false",
                  "if true, draw the tetrahedra in the topology", "drawTetra"),
    GEO_IGN(draw_tetrahedra, "drawTetrahedron", ST_T_BOOL, bool, "false",
            "SOFA's second alias of drawTetrahedra"),
    GEO_IGN(draw_scale_tetrahedra, "drawScaleTetrahedra", ST_T_REAL, double, "1",
            "Scale of the terahedra (between 0 and 1; if <1.0, it produces gaps between the "
            "tetrahedra)"),
    GEO_IGN(color_tetrahedra, "drawColorTetrahedra", ST_T_RGBA, st_vec4, "1 1 0 1",
            "RGBA code color used to draw tetrahedra."),
    ST_FIELD_END};
static const st_field hexa_geo_fields[] = {
    GEO_QUAD,
    GEO_IGN(show_hexa_indices, "showHexaIndices", ST_T_BOOL, bool, "false",
            "Debug : view Hexa indices"),
    GEO_IGN_ALIAS(draw_hexahedra, "drawHexahedra", "false",
                  "if true, draw the Hexahedron in the topology", "drawHexa"),
    GEO_IGN(draw_hexahedra, "drawHexahedron", ST_T_BOOL, bool, "false",
            "SOFA's second alias of drawHexahedra"),
    GEO_IGN(draw_scale_hexahedra, "drawScaleHexahedra", ST_T_REAL, double, "1",
            "Scale of the hexahedra (between 0 and 1; if <1.0, it produces gaps between the "
            "hexahedra)"),
    GEO_IGN(color_hexahedra, "drawColorHexahedra", ST_T_RGBA, st_vec4, "1 0.5 0 1",
            "RGBA code color used to draw hexahedra."),
    ST_FIELD_END};

#define MOD_PROPAGATE                                                                             \
    ST_IGNORED(topo_modifier, propagate_to_dof, "propagateToDOF", ST_T_BOOL, bool, "true",        \
               "Propagate changes to Mechanical object DOFs (settee makes no topological "        \
               "changes)")
static const st_field modifier_fields[] = {MOD_PROPAGATE, ST_FIELD_END};
static const st_field triangle_modifier_fields[] = {
    MOD_PROPAGATE,
    ST_OUTPUT(topo_modifier, list_out, "list_Out", ST_T_TRIANGLES, st_array,
              "triangles with at least one null values (settee: always empty)"),
    ST_FIELD_END};
static const st_field volume_modifier_fields[] = {
    MOD_PROPAGATE,
    ST_IGNORED(topo_modifier, remove_isolated, "removeIsolated", ST_T_BOOL, bool, "true",
               "Remove isolated DOFs (settee makes no topological changes)"),
    ST_FIELD_END};

static st_status geo_init(st_component *self, st_error *err)
{
    geo_algo *g = (geo_algo *)self;
    if (g->recompute_orientation || g->flip_normals)
        return st_component_error(self,
                                  g->recompute_orientation ? "recomputeTrianglesOrientation"
                                                           : "flipNormals",
                                  err, ST_EINVAL,
                                  "reorienting the triangles of a topology is not supported by "
                                  "settee yet");
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

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
                          .init = geo_init}
#define MOD_CLASS(var, cname, table)                                                              \
    const st_class var = {.struct_size = sizeof(st_class),                                        \
                          .name = cname,                                                          \
                          .category = "TopologyObject",                                           \
                          .description = "Topology modifier of a dynamic topology (accepted; "    \
                                         "topological changes are not supported)",               \
                          .instance_size = sizeof(topo_modifier),                                 \
                          .fields = table,                                                        \
                          .init = companion_init}

GEO_CLASS(point_set_geo_class, "PointSetGeometryAlgorithms", point_geo_fields);
GEO_CLASS(edge_set_geo_class, "EdgeSetGeometryAlgorithms", edge_geo_fields);
GEO_CLASS(triangle_set_geo_class, "TriangleSetGeometryAlgorithms", triangle_geo_fields);
GEO_CLASS(quad_set_geo_class, "QuadSetGeometryAlgorithms", quad_geo_fields);
GEO_CLASS(tetra_set_geo_class, "TetrahedronSetGeometryAlgorithms", tetra_geo_fields);
GEO_CLASS(hexa_set_geo_class, "HexahedronSetGeometryAlgorithms", hexa_geo_fields);
MOD_CLASS(point_set_mod_class, "PointSetTopologyModifier", modifier_fields);
MOD_CLASS(edge_set_mod_class, "EdgeSetTopologyModifier", modifier_fields);
MOD_CLASS(triangle_set_mod_class, "TriangleSetTopologyModifier", triangle_modifier_fields);
MOD_CLASS(quad_set_mod_class, "QuadSetTopologyModifier", modifier_fields);
MOD_CLASS(tetra_set_mod_class, "TetrahedronSetTopologyModifier", volume_modifier_fields);
MOD_CLASS(hexa_set_mod_class, "HexahedronSetTopologyModifier", volume_modifier_fields);
/* SOFA's DynamicSparseGrid companions derive from the HexahedronSet ones
 * with no field of their own. */
GEO_CLASS(dynamic_sparse_grid_geo_class, "DynamicSparseGridGeometryAlgorithms", hexa_geo_fields);
MOD_CLASS(dynamic_sparse_grid_mod_class, "DynamicSparseGridTopologyModifier",
          volume_modifier_fields);
