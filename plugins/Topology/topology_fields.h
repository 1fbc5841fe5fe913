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
     "Component (a mesh loader, a grid, another topology) whose lists (position, edges, "       \
     "triangles, quads, tetrahedra, hexahedra) are used for the lists the scene does not give",   \
     0, NULL, ST_LINK_ANY, 0.0, 0.0}

/* SOFA's BaseMeshTopology "filename": every container has it. */
#define TOPO_F_FILENAME                                                                           \
    ST_FIELD_EX(topo, filename, "filename", ST_T_STRING, char *, NULL,                            \
                "Filename of the mesh (.obj, .msh, .vtk, .vtu), read into the lists at load "     \
                "(grids refuse it)",                                                              \
                0, "fileTopology", 0.0, 0.0)

/* The MeshTopology fields every static container has, but position. */
#define TOPO_MESH_LISTS(flags)                                                                    \
    TOPO_F_EDGES(flags), TOPO_F_TRIANGLES(flags), TOPO_F_QUADS(flags), TOPO_F_TETRAS(flags),      \
        TOPO_F_HEXAS(flags),                                                                      \
        TOPO_ALIAS(prisms, "prisms", ST_T_UINTS, st_array,                                        \
                   "List of prisms indices, 6 per prism (read by the element framework: "      \
                   "LinearSmallStrainFEMForceField, CorotationalFEMForceField, FEMMass)",         \
                   NULL, flags),                                                                  \
        TOPO_ALIAS(pyramids, "pyramids", ST_T_UINTS, st_array,                                    \
                   "List of pyramids indices, 5 per pyramid (read by the element framework: "  \
                   "LinearSmallStrainFEMForceField, CorotationalFEMForceField, FEMMass)",         \
                   NULL, flags),                                                                  \
        TOPO_F_FILENAME,                                                                          \
        TOPO_ALIAS(uv, "uv", ST_T_REALS, st_array,                                                \
                   "Texture coordinates, two reals per point", "texcoords", flags),               \
        ST_IGNORED(topo, compute_all_buffers, "computeAllBuffers", ST_T_BOOL, bool, "false",      \
                   "Compute the cross-element buffers at init instead of on demand"),             \
        TOPO_DRAW(draw_edges, "drawEdges", "edges"),                                              \
        TOPO_DRAW(draw_triangles, "drawTriangles", "triangles"),                                  \
        TOPO_DRAW(draw_quads, "drawQuads", "quads"),                                              \
        TOPO_DRAW(draw_tetrahedra, "drawTetrahedra", "tetrahedra"),                               \
        TOPO_DRAW(draw_hexahedra, "drawHexahedra", "hexahedra")
#define TOPO_DRAW(m, key, what)                                                                   \
    ST_IGNORED(topo, m, key, ST_T_BOOL, bool, "false", "if true, draw the topology " what)
/* MeshTopology's fields. */
#define TOPO_MESH_COMMON(flags) TOPO_F_POSITION(flags), TOPO_MESH_LISTS(flags)

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
        ST_IGNORED(topo, create_tex_coords, "createTexCoords", ST_T_BOOL, bool, "false",          \
                   "If set to true, virtual texture coordinates will be generated using 3D "      \
                   "interpolation (texture coordinates serve drawing only)")

/* The dynamic containers' fields, in SOFA's class chain (PointSet, EdgeSet). */
#define DYN_POINT_FIELDS                                                                          \
    TOPO_F_POSITION(0),                                                                           \
        ST_UINT(topo, nb_points, "nbPoints", "0",                                                 \
                "Number of points (0: the number of positions, or 1 + the largest index used)"),  \
        ST_IGNORED(topo, check_topology, "checkTopology", ST_T_BOOL, bool, "false",               \
                   "Parameter to activate internal topology checks (might slow down the "         \
                   "simulation)"),                                                                \
        TOPO_F_FILENAME, TOPO_F_SRC
#define DYN_EDGE_FIELDS                                                                           \
    DYN_POINT_FIELDS, TOPO_F_EDGES(0),                                                            \
        ST_IGNORED(topo, check_connexity, "checkConnexity", ST_T_BOOL, bool, "false",             \
                   "It true, will check the connexity of the mesh.")

/* HexahedronSetTopologyContainer's fields (its subclasses start with them). */
#define DYN_HEXA_FIELDS                                                                           \
    DYN_EDGE_FIELDS, TOPO_F_QUADS(0), TOPO_F_HEXAS(0),                                            \
        ST_IGNORED(topo, create_quad_array, "createQuadArray", ST_T_BOOL, bool, "false",          \
                   "Force the creation of a set of quads associated with the hexahedra (the "     \
                   "quads are derived when needed anyway)")

#endif
