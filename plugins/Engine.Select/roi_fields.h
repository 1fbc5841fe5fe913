/* roi_fields.h - field table fragments shared by BoxROI and SphereROI
 * (SOFA's Data names and defaults). Private to the Engine.Select plugin. */
#ifndef SETTEE_PLUGIN_ROI_FIELDS_H
#define SETTEE_PLUGIN_ROI_FIELDS_H

#include "roi.h"

#define ROI_OUT(m, key, T, help) ST_OUTPUT(roi, m, key, T, st_array, help)
#define ROI_IN_ALIAS(m, key, T, help, alias)                                                      \
    ST_FIELD_EX(roi, m, key, T, st_array, NULL, help, 0, alias, 0.0, 0.0)

#define ROI_INPUTS                                                                                \
    ST_VEC3S(roi, position, "position",  NULL,                                                    \
             "Rest position coordinates of the degrees of freedom (default: the node's "         \
             "MechanicalObject rest_position)"),                                                  \
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
                "If true, will compute tetrahedra list and index list inside the ROI.")

#define ROI_OUTPUTS                                                                               \
    ROI_OUT(indices, "indices", ST_T_UINTS, "Indices of the points contained in the ROI"),        \
        ROI_OUT(edge_indices, "edgeIndices", ST_T_UINTS,                                          \
                "Indices of the edges contained in the ROI"),                                     \
        ROI_OUT(triangle_indices, "triangleIndices", ST_T_UINTS,                                  \
                "Indices of the triangles contained in the ROI"),                                 \
        ROI_OUT(quad_indices, "quadIndices", ST_T_UINTS,                                          \
                "Indices of the quads contained in the ROI"),                                     \
        ROI_OUT(tetrahedron_indices, "tetrahedronIndices", ST_T_UINTS,                            \
                "Indices of the tetrahedra contained in the ROI"),                                \
        ROI_OUT(points_in_roi, "pointsInROI", ST_T_VEC3S, "Points contained in the ROI"),         \
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
        ROI_OUT(points_out_roi, "pointsOutROI", ST_T_VEC3S, "Points not in the ROI"),             \
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
        ROI_OUT(tetrahedra_out_roi, "tetrahedraOutROI", ST_T_TETRAS, "Tetrahedra not in the ROI")

#define ROI_DRAW                                                                                  \
    ST_BOOL(roi, draw_points, "drawPoints", "false", "Draw Points (no-op headless)"),             \
        ST_BOOL(roi, draw_edges, "drawEdges", "false", "Draw Edges (no-op headless)"),            \
        ST_BOOL(roi, draw_triangles, "drawTriangles", "false", "Draw Triangles (no-op headless)"),\
        ST_BOOL(roi, draw_quads, "drawQuads", "false", "Draw Quads (no-op headless)"),            \
        ST_BOOL(roi, draw_tetrahedra, "drawTetrahedra", "false",                                  \
                "Draw Tetrahedra (no-op headless)"),                                              \
        ST_REAL(roi, draw_size, "drawSize", "1", "rendering size for ROI and topological elements")

#endif
