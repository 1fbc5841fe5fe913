/* topology_fields.h - field table fragments shared by the Topology plugin's
 * container classes (SOFA's Data names, defaults and aliases). Private to
 * this plugin. */
#ifndef SETTEE_PLUGIN_TOPOLOGY_FIELDS_H
#define SETTEE_PLUGIN_TOPOLOGY_FIELDS_H

#include "topology.h"

#define TOPO_ALIAS(m, key, T, CT, help, alias, flags)                                             \
    ST_FIELD_EX(topo, m, key, T, CT, NULL, help, flags, alias, 0.0, 0.0)

#define TOPO_F_POSITION(flags)                                                                    \
    TOPO_ALIAS(position, "position", ST_T_VEC3S, st_array, "List of point positions", "points",  \
               flags)
#define TOPO_F_EDGES(flags)                                                                       \
    TOPO_ALIAS(edges, "edges", ST_T_EDGES, st_array, "List of edge indices", "lines", flags)
#define TOPO_F_TRIANGLES(flags)                                                                   \
    TOPO_ALIAS(triangles, "triangles", ST_T_TRIANGLES, st_array, "List of triangle indices",      \
               NULL, flags)
#define TOPO_F_QUADS(flags)                                                                       \
    TOPO_ALIAS(quads, "quads", ST_T_QUADS, st_array, "List of quad indices", NULL, flags)
#define TOPO_F_TETRAS(flags)                                                                      \
    TOPO_ALIAS(tetrahedra, "tetrahedra", ST_T_TETRAS, st_array, "List of tetrahedron indices",    \
               "tetras", flags)
#define TOPO_F_HEXAS(flags)                                                                       \
    TOPO_ALIAS(hexahedra, "hexahedra", ST_T_HEXAS, st_array, "List of hexahedron indices",        \
               "hexas", flags)
#define TOPO_F_SRC                                                                                \
    {"src", ST_T_LINK, offsetof(topo, src) + ST_FIELD_CHECK_(topo, src, st_component *), NULL,    \
     "Mesh loader whose lists (position, edges, triangles, quads, tetrahedra, hexahedra) are "    \
     "used for the lists the scene does not give",                                                \
     0, NULL, ST_LINK_LOADER, 0.0, 0.0}

/* The MeshTopology fields every static container has. */
#define TOPO_MESH_COMMON(flags)                                                                   \
    TOPO_F_POSITION(flags), TOPO_F_EDGES(flags), TOPO_F_TRIANGLES(flags), TOPO_F_QUADS(flags),    \
        TOPO_F_TETRAS(flags), TOPO_F_HEXAS(flags),                                                \
        TOPO_ALIAS(uv, "uv", ST_T_REALS, st_array,                                                \
                   "Texture coordinates, two reals per point", "texcoords", flags),               \
        ST_BOOL(topo, compute_all_buffers, "computeAllBuffers", "false",                          \
                "Compute the cross-element buffers at init instead of on demand"),                \
        ST_BOOL(topo, draw_edges, "drawEdges", "false", "Display the edges (no-op headless)"),    \
        ST_BOOL(topo, draw_triangles, "drawTriangles", "false",                                   \
                "Display the triangles (no-op headless)"),                                        \
        ST_BOOL(topo, draw_quads, "drawQuads", "false", "Display the quads (no-op headless)"),    \
        ST_BOOL(topo, draw_tetrahedra, "drawTetrahedra", "false",                                 \
                "Display the tetrahedra (no-op headless)"),                                       \
        ST_BOOL(topo, draw_hexahedra, "drawHexahedra", "false",                                   \
                "Display the hexahedra (no-op headless)")

/* GridTopology's own fields. */
#define TOPO_GRID_COMMON                                                                          \
    ST_VEC3(topo, n, "n", "2 2 2", "Grid resolution (number of points per axis, integers >= 1)"), \
        ST_INT(topo, nx, "nx", "0", "Resolution along x (used when nx, ny and nz are all given)"), \
        ST_INT(topo, ny, "ny", "0", "Resolution along y (used when nx, ny and nz are all given)"), \
        ST_INT(topo, nz, "nz", "0", "Resolution along z (used when nx, ny and nz are all given)"), \
        ST_BOOL(topo, compute_hexa_list, "computeHexaList", "true",                               \
                "Put true if the list of Hexahedra is needed during init"),                       \
        ST_BOOL(topo, compute_quad_list, "computeQuadList", "true",                               \
                "Put true if the list of Quad is needed during init"),                            \
        ST_BOOL(topo, compute_triangle_list, "computeTriangleList", "true",                       \
                "Put true if the list of triangle is needed during init (brings one diagonal "    \
                "edge per quad into the edge list)"),                                             \
        ST_BOOL(topo, compute_edge_list, "computeEdgeList", "true",                               \
                "Put true if the list of Lines is needed during init"),                           \
        ST_BOOL(topo, compute_point_list, "computePointList", "true",                             \
                "Put true if the list of Points is needed during init"),                          \
        ST_BOOL(topo, create_tex_coords, "createTexCoords", "false",                              \
                "If set to true, virtual texture coordinates will be generated using 3D "         \
                "interpolation (not done headless)")

#endif
