/* roi_fields.h - field table fragments shared by BoxROI and SphereROI
 * (SOFA's Data names and defaults). Private to the Engine.Select plugin. */
#ifndef SETTEE_PLUGIN_ROI_FIELDS_H
#define SETTEE_PLUGIN_ROI_FIELDS_H

#include "roi.h"

#define ROI_OUT(m, key, T, help) ST_OUTPUT(roi, m, key, T, st_array, help)
#define ROI_IN_ALIAS(m, key, T, help, alias)                                                      \
    ST_FIELD_EX(roi, m, key, T, st_array, NULL, help, 0, alias, 0.0, 0.0)

/* SOFA's BaseROI inputs; pos_alias is the class's alias of position (or NULL). */
#define ROI_INPUTS(pos_alias) ROI_INPUTS_STRICT(pos_alias, "true")
/* The same with the class's default of strict (MeshROI: "false"). */
#define ROI_INPUTS_STRICT(pos_alias, strict_def)                                                  \
    ROI_IN_ALIAS(position, "position", ST_T_COORDS,                                                \
                 "Rest position coordinates of the degrees of freedom (default: the node's "      \
                 "MechanicalObject rest_position)",                                               \
                 pos_alias),                                                                      \
        ST_EDGES(roi, edges, "edges", NULL, "Edge Topology (default: the node's topology)"),      \
        ST_TRIANGLES(roi, triangles, "triangles", NULL, "Triangle Topology"),                     \
        ROI_IN_ALIAS(quads, "quads", ST_T_QUADS, "Quad Topology", "quad"),                        \
        ST_TETRAS(roi, tetrahedra, "tetrahedra", NULL, "Tetrahedron Topology"),                   \
        ST_BOOL(roi, compute_edges, "computeEdges", "true",                                       \
                "If true, will compute edge list and index list inside the ROI."),                \
        ST_BOOL(roi, compute_triangles, "computeTriangles", "true",                               \
                "If true, will compute triangle list and index list inside the ROI."),            \
        ST_FIELD_EX(roi, compute_quads, "computeQuads", ST_T_BOOL, bool, "true",                  \
                    "If true, will compute quad list and index list inside the ROI.", 0,          \
                    "computeQuad", 0.0, 0.0),                                                     \
        ST_BOOL(roi, compute_tetrahedra, "computeTetrahedra", "true",                             \
                "If true, will compute tetrahedra list and index list inside the ROI."),          \
        ST_HEXAS(roi, hexahedra, "hexahedra", NULL, "Hexahedron Topology"),                       \
        ST_BOOL(roi, compute_hexahedra, "computeHexahedra", "true",                               \
                "If true, will compute hexahedra list and index list inside the ROI."),           \
        ST_BOOL(roi, strict, "strict", strict_def,                                                \
                "If true, an element is inside the box if all of its nodes are inside. If "       \
                "False, only the center point of the element is checked."),                       \
        ST_BOOL(roi, do_update, "doUpdate", "true",                                               \
                "If true, updates the selection at each change")

/* SOFA's BaseROI outputs; idx_alias is the class's alias of indices (or NULL). */
#define ROI_OUTPUTS(idx_alias)                                                                    \
    ST_FIELD_EX(roi, indices, "indices", ST_T_UINTS, st_array, NULL,                              \
                "Indices of the points contained in the ROI", ST_F_OUTPUT, idx_alias, 0.0, 0.0),  \
        ROI_OUT(edge_indices, "edgeIndices", ST_T_UINTS,                                          \
                "Indices of the edges contained in the ROI"),                                     \
        ROI_OUT(triangle_indices, "triangleIndices", ST_T_UINTS,                                  \
                "Indices of the triangles contained in the ROI"),                                 \
        ROI_OUT(quad_indices, "quadIndices", ST_T_UINTS,                                          \
                "Indices of the quads contained in the ROI"),                                     \
        ROI_OUT(tetrahedron_indices, "tetrahedronIndices", ST_T_UINTS,                            \
                "Indices of the tetrahedra contained in the ROI"),                                \
        ROI_OUT(points_in_roi, "pointsInROI", ST_T_COORDS, "Points contained in the ROI"),         \
        ROI_OUT(edges_in_roi, "edgesInROI", ST_T_EDGES, "Edges contained in the ROI"),            \
        ROI_OUT(triangles_in_roi, "trianglesInROI", ST_T_TRIANGLES,                               \
                "Triangles contained in the ROI"),                                                \
        ST_FIELD_EX(roi, quads_in_roi, "quadsInROI", ST_T_QUADS, st_array, NULL,                  \
                    "Quads contained in the ROI", ST_F_OUTPUT, "quadInROI", 0.0, 0.0),            \
        ROI_OUT(tetrahedra_in_roi, "tetrahedraInROI", ST_T_TETRAS,                                \
                "Tetrahedra contained in the ROI"),                                               \
        ST_FIELD_EX(roi, nb_indices, "nbIndices", ST_T_UINT, unsigned, NULL,                      \
                    "Number of selected indices", ST_F_OUTPUT, NULL, 0.0, 0.0),                   \
        ROI_OUT(indices_out, "indicesOut", ST_T_UINTS, "Indices of the points not in the ROI"),   \
        ROI_OUT(points_out_roi, "pointsOutROI", ST_T_COORDS, "Points not in the ROI"),             \
        ROI_OUT(edge_out_indices, "edgeOutIndices", ST_T_UINTS,                                   \
                "Indices of the edges not in the ROI"),                                           \
        ROI_OUT(edges_out_roi, "edgesOutROI", ST_T_EDGES, "Edges not in the ROI"),                \
        ROI_OUT(triangle_out_indices, "triangleOutIndices", ST_T_UINTS,                           \
                "Indices of the triangles not in the ROI"),                                       \
        ROI_OUT(triangles_out_roi, "trianglesOutROI", ST_T_TRIANGLES,                             \
                "Triangles not in the ROI"),                                                      \
        ROI_OUT(quad_out_indices, "quadOutIndices", ST_T_UINTS,                                   \
                "Indices of the quads not in the ROI"),                                           \
        ROI_OUT(quads_out_roi, "quadsOutROI", ST_T_QUADS, "Quads not in the ROI"),                \
        ROI_OUT(tetrahedron_out_indices, "tetrahedronOutIndices", ST_T_UINTS,                     \
                "Indices of the tetrahedra not in the ROI"),                                      \
        ROI_OUT(tetrahedra_out_roi, "tetrahedraOutROI", ST_T_TETRAS, "Tetrahedra not in the ROI"),\
        ROI_OUT(hexahedron_indices, "hexahedronIndices", ST_T_UINTS,                              \
                "Indices of the hexahedra contained in the ROI"),                                 \
        ROI_OUT(hexahedra_in_roi, "hexahedraInROI", ST_T_HEXAS, "Hexahedra contained in the ROI"),\
        ROI_OUT(hexahedron_out_indices, "hexahedronOutIndices", ST_T_UINTS,                       \
                "Indices of the hexahedra not in the ROI"),                                       \
        ROI_OUT(hexahedra_out_roi, "hexahedraOutROI", ST_T_HEXAS, "Hexahedra not in the ROI")

/* SOFA's BaseROI display data (settee draws nothing); draw_alias is the
 * class's alias of drawROI. */
#define ROI_DRAW_IGN(m, key, help) ST_IGNORED(roi, m, key, ST_T_BOOL, bool, "false", help)
#define ROI_DRAW(draw_alias)                                                                      \
    ST_FIELD_EX(roi, draw_roi, "drawROI", ST_T_BOOL, bool, "false", "Draw the ROI.",             \
                ST_F_IGNORED, draw_alias, 0.0, 0.0),                                              \
        ROI_DRAW_IGN(draw_points, "drawPoints", "Draw Points."),                                  \
        ROI_DRAW_IGN(draw_edges, "drawEdges", "Draw Edges."),                                     \
        ROI_DRAW_IGN(draw_triangles, "drawTriangles", "Draw Triangles."),                         \
        ROI_DRAW_IGN(draw_quads, "drawQuads", "Draw Quads."),                                     \
        ROI_DRAW_IGN(draw_tetrahedra, "drawTetrahedra", "Draw Tetrahedra."),                      \
        ROI_DRAW_IGN(draw_hexahedra, "drawHexahedra", "Draw Hexahedra."),                         \
        ST_IGNORED(roi, draw_size, "drawSize", ST_T_REAL, double, "1",                            \
                   "rendering size for ROI and topological elements")

#endif
