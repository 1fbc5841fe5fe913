/* mesh_loader.h - what the IO.Mesh loaders share: SOFA's MeshLoader data
 * (outputs position and element lists; translation, rotation, scale3d,
 * transformation), file lookup through the kernel's data path, reading a
 * whole file with a cursor that counts lines, errors at the file's own line
 * or byte offset, and the transformation and sub-element steps. Private to
 * the plugin. */
#ifndef SETTEE_PLUGIN_MESH_LOADER_H
#define SETTEE_PLUGIN_MESH_LOADER_H

#include <stdio.h>

#include <settee/settee.h>

typedef struct mesh_loader {
    st_component base;
    char *filename;                 /* "filename" (scene folder, then the data paths) */
    st_vec3 translation, rotation;  /* "translation", "rotation" (degrees, R = Rz Ry Rx) */
    st_vec3 scale3d;                /* "scale3d" */
    double scale;                   /* parse-only "scale": multiplies scale3d */
    st_array transformation;        /* "transformation": 4x4 row-major, replaces T R S */
    bool flip_normals, triangulate, create_subelements, only_attached_points;
    /* Outputs. */
    st_array position, normals;     /* vec3[] */
    st_array edges, triangles, quads, tetrahedra, hexahedra;
    /* SOFA outputs settee has no type for (ragged lists, prisms, pyramids,
     * high-order points): accepted, always empty. groups: SOFA's
     * PrimitiveGroup lists (edges, triangles, quads, polygons, tetrahedra,
     * hexahedra, prisms, pyramids), 5 strings per group
     * (LOADER_GROUPS_HELP), filled by the OBJ and Gmsh loaders. */
    st_array polylines, polygons, prisms, pyramids, high_order[5], groups[8];
    /* Set at load. */
    char *path;                     /* the resolved file name */
} mesh_loader;

/* A whole file in memory (NUL-terminated) and the name it was found at. */
typedef struct mesh_file {
    char path[4096];
    char *data;
    size_t size;
} mesh_file;

/* A text cursor over a mesh_file that counts lines from 1. */
typedef struct text_cursor {
    const char *path;
    const char *begin, *p, *end;
    int line;  /* line of the last line or token returned */
    int pline; /* line of p */
    char eol;  /* '\n', or '\r' in a file whose lines end with CR alone */
} text_cursor;

/* Finds c's "filename" through st_component_find_file and reads it whole;
 * refuses non-regular files. f->data is owned by the caller
 * (mesh_file_free). */
st_status mesh_file_read(st_component *c, const char *filename, mesh_file *f, st_error *err);
void mesh_file_free(mesh_file *f);
void text_cursor_init(text_cursor *c, const mesh_file *f);
/* Next line (without its end of line; a '\r' before it is dropped); false
 * at the end. Its number is c->line afterwards. */
bool text_next_line(text_cursor *c, const char **s, size_t *len);
/* Next whitespace-separated token, across lines; false at the end. Its
 * line is c->line afterwards. */
bool text_next_token(text_cursor *c, const char **s, size_t *len);
/* Strict number parsing of a token (the whole token must be the number). */
bool parse_real(const char *s, size_t len, double *out);
bool parse_long(const char *s, size_t len, long long *out);

/* Records an error about the file: "PATH:LINE: msg" when line > 0, else
 * "PATH: byte OFFSET: msg". */
st_status loader_error_at(const st_component *c, const char *path, int line, size_t offset,
                          st_error *err, st_status code, const char *fmt, ...) ST_PRINTF(7, 8);

/* Clears every output list. */
void loader_clear(mesh_loader *l);
/* Reads a file into the outputs. */
typedef st_status (*loader_parse_fn)(mesh_loader *l, const mesh_file *f, st_error *err);
/* The whole load of a MeshLoader: checks, finds and reads the file, clears
 * the outputs, parses, then loader_finish; on failure the outputs are left
 * empty. */
st_status loader_load(mesh_loader *l, loader_parse_fn parse, st_error *err);
/* Fills the outputs of a procedural MeshLoader (no file). */
typedef st_status (*loader_build_fn)(mesh_loader *l, st_error *err);
/* The load of a procedural MeshLoader: checks, clears the outputs, builds,
 * then loader_finish; on failure the outputs are left empty. */
st_status loader_generate(mesh_loader *l, loader_build_fn build, st_error *err);
/* Common checks before loading (transformation). */
st_status loader_check(mesh_loader *l, st_error *err);
/* Appends one tuple; triangles and quads are reversed with flipNormals. */
st_status loader_push(mesh_loader *l, st_array *a, st_type t, const unsigned *v, bool flip,
                      st_error *err);
/* Appends one position. */
st_status loader_push_point(st_array *a, const double p[3], st_error *err);
/* Appends a group (SOFA's PrimitiveGroup(p0, nbp, materialName, groupName,
 * materialId)) to a groups output: five strings. */
st_status loader_add_group(st_array *groups, long long p0, long long nbp, const char *material,
                           const char *name, int material_id, st_error *err);
/* Adds the edge {a, b} (sorted) unless the set already has it: SOFA's
 * edgeSet for second-order elements. */
st_status loader_push_edge_once(mesh_loader *l, unsigned a, unsigned b, st_error *err);
/* SOFA's MeshLoader::reinit: applies T R S to the positions, derives the
 * sub-elements when asked, keeps only attached points when asked and
 * computes the normals (unless the file gave one per position). */
st_status loader_finish(mesh_loader *l, st_error *err);
/* Marks every output as modified. */
void loader_touch_outputs(mesh_loader *l);
/* MeshOffLoader's parser (mesh_off_loader.c), read by OffSequenceLoader. */
st_status off_parse(mesh_loader *l, const mesh_file *f, st_error *err);
/* x' = T R S x with SOFA's Euler angles (degrees): M is 3 x 4 (last column T). */
void loader_trs_matrix(const double t[3], const double r_deg[3], const double s[3],
                       double M[3][4]);
/* One file format's reader, shared by its loader class and by
 * mesh_read_file: the loader struct it parses into (mesh_loader or a larger
 * one that begins with it), its parse function and what frees the extra
 * arrays of the larger struct (may be NULL). */
typedef struct mesh_format {
    size_t loader_size;
    loader_parse_fn parse;
    void (*release)(mesh_loader *l);
} mesh_format;
extern const mesh_format mesh_obj_format, mesh_gmsh_format, mesh_vtk_format;

/* A mesh read for a component that is not a loader. */
typedef struct mesh_data {
    char path[4096]; /* the resolved file name */
    st_array position, edges, triangles, quads, tetrahedra, hexahedra;
} mesh_data;
/* SOFA's BaseMeshTopology::load: reads `filename` (found as owner's field
 * "filename" is) with the reader of its extension (.obj, .msh, .vtk, .vtu)
 * and no transformation, sub-elements or normals. Errors and warnings name
 * owner. `out` is zeroed first; mesh_data_free releases it. */
st_status mesh_read_file(const st_component *owner, const char *filename, mesh_data *out,
                         st_error *err);
void mesh_data_free(mesh_data *d);

/* Frees the resolved path (the class's cleanup). */
void loader_cleanup(st_component *self);

/* Field table fragments. */
#define LOADER_IGNORED_OUT(m, key, help)                                                          \
    ST_FIELD_EX(mesh_loader, m, key, ST_T_UINTS, st_array, NULL, help,                            \
                ST_F_OUTPUT | ST_F_IGNORED, NULL, 0.0, 0.0)
/* SOFA's vector<PrimitiveGroup> outputs: five strings per group, as SOFA
 * writes one (groupName materialName materialId p0 nbp: the group's
 * elements are p0 .. p0 + nbp - 1). */
#define LOADER_GROUPS_HELP                                                                        \
    ": groupName materialName materialId p0 nbp per group (filled by MeshOBJLoader and "         \
    "MeshGmshLoader)"
#define LOADER_GROUPS_OUT(m, key, help)                                                           \
    ST_FIELD_EX(mesh_loader, m, key, ST_T_STRINGS, st_array, NULL, help, ST_F_OUTPUT, NULL, 0.0,  \
                0.0)
#define LOADER_IGNORED_GROUPS(m, key, help)                                                       \
    ST_FIELD_EX(mesh_loader, m, key, ST_T_STRINGS, st_array, NULL, help,                          \
                ST_F_OUTPUT | ST_F_IGNORED, NULL, 0.0, 0.0)
/* Loader settings another component's src="@loader" never links (SOFA
 * disables their auto-link: a MechanicalObject must not translate again). */
#define LOADER_NOAUTO(m, key, T, CT, def, help)                                                   \
    ST_FIELD_EX(mesh_loader, m, key, T, CT, def, help, ST_F_NOAUTOLINK, NULL, 0.0, 0.0)
/* Every MeshLoader field: the required filename, then the shared rest. */
#define LOADER_FIELDS                                                                             \
    ST_FIELD_EX(mesh_loader, filename, "filename", ST_T_STRING, char *, NULL,                     \
                "Filename of the object (the scene's folder, then SETTEE_DATA_PATH and "          \
                "SOFA_DATA_PATH)",                                                                \
                ST_F_REQUIRED, NULL, 0.0, 0.0),                                                   \
        LOADER_BASE_FIELDS
/* The filename of a procedural creator: accepted as in SOFA (read-only
 * there), never read. */
#define LOADER_CREATOR_FILENAME                                                                   \
    ST_FIELD_EX(mesh_loader, filename, "filename", ST_T_STRING, char *, NULL,                     \
                "Filename of the object (not used: the mesh is created procedurally)",            \
                ST_F_IGNORED, NULL, 0.0, 0.0)
/* MeshLoader's fields after filename: the transformation, the element
 * options and the outputs (procedural creators declare their own filename). */
#define LOADER_BASE_FIELDS                                                                        \
    LOADER_NOAUTO(translation, "translation", ST_T_VEC3, st_vec3, "0 0 0",                   \
                      "Translation of the DOFs"),                                                 \
        LOADER_NOAUTO(rotation, "rotation", ST_T_VEC3, st_vec3, "0 0 0",                          \
                      "Rotation of the DOFs (Euler angles in degrees, R = Rz Ry Rx)"),            \
        LOADER_NOAUTO(scale3d, "scale3d", ST_T_VEC3, st_vec3, "1 1 1",                            \
                      "Scale of the DOFs in 3 dimensions"),                                       \
        LOADER_NOAUTO(scale, "scale", ST_T_REAL, double, "1", "Uniform scale multiplying scale3d"), \
        LOADER_NOAUTO(transformation, "transformation", ST_T_REALS, st_array,                     \
                      "1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1",                                          \
                      "4x4 Homogeneous matrix to transform the DOFs (when present replace any)"), \
        LOADER_NOAUTO(flip_normals, "flipNormals", ST_T_BOOL, bool, "false", "Flip Normals"),     \
        LOADER_NOAUTO(triangulate, "triangulate", ST_T_BOOL, bool, "false",                       \
                      "Divide all polygons into triangles"),                                      \
        LOADER_NOAUTO(only_attached_points, "onlyAttachedPoints", ST_T_BOOL, bool, "false",       \
                      "Only keep points attached to elements of the mesh"),                       \
        ST_OUTPUT(mesh_loader, position, "position", ST_T_VEC3S, st_array,                        \
                  "Vertices of the mesh loaded"),                                                 \
        ST_OUTPUT(mesh_loader, edges, "edges", ST_T_EDGES, st_array, "Edges of the mesh loaded"), \
        ST_OUTPUT(mesh_loader, triangles, "triangles", ST_T_TRIANGLES, st_array,                  \
                  "Triangles of the mesh loaded"),                                                \
        ST_OUTPUT(mesh_loader, quads, "quads", ST_T_QUADS, st_array, "Quads of the mesh loaded"), \
        ST_FIELD_EX(mesh_loader, tetrahedra, "tetrahedra", ST_T_TETRAS, st_array, NULL,           \
                    "Tetrahedra of the mesh loaded", ST_F_OUTPUT, "tetras", 0.0, 0.0),            \
        ST_FIELD_EX(mesh_loader, hexahedra, "hexahedra", ST_T_HEXAS, st_array, NULL,              \
                    "Hexahedra of the mesh loaded", ST_F_OUTPUT, "hexas", 0.0, 0.0),              \
        ST_OUTPUT(mesh_loader, normals, "normals", ST_T_VEC3S, st_array,                          \
                  "Normals of the mesh loaded"),                                                  \
        LOADER_IGNORED_OUT(polylines, "polylines", "Polylines of the mesh loaded (not filled)"),  \
        LOADER_IGNORED_OUT(polygons, "polygons", "Polygons of the mesh loaded (not filled)"),     \
        LOADER_IGNORED_OUT(prisms, "prisms", "Prisms of the mesh loaded (not filled)"),           \
        LOADER_IGNORED_OUT(pyramids, "pyramids", "Pyramids of the mesh loaded (not filled)"),     \
        LOADER_IGNORED_OUT(high_order[0], "highOrderEdgePositions",                               \
                           "High order edge points of the mesh loaded (not filled)"),             \
        LOADER_IGNORED_OUT(high_order[1], "highOrderTrianglePositions",                           \
                           "High order triangle points of the mesh loaded (not filled)"),         \
        LOADER_IGNORED_OUT(high_order[2], "highOrderQuadPositions",                               \
                           "High order quad points of the mesh loaded (not filled)"),             \
        LOADER_IGNORED_OUT(high_order[3], "highOrderTetrahedronPositions",                        \
                           "High order tetrahedron points of the mesh loaded (not filled)"),      \
        LOADER_IGNORED_OUT(high_order[4], "highOrderHexahedronPositions",                         \
                           "High order hexahedron points of the mesh loaded (not filled)"),       \
        LOADER_GROUPS_OUT(groups[0], "edgesGroups", "Groups of Edges" LOADER_GROUPS_HELP),        \
        LOADER_GROUPS_OUT(groups[1], "trianglesGroups",                                           \
                          "Groups of Triangles" LOADER_GROUPS_HELP),                              \
        LOADER_GROUPS_OUT(groups[2], "quadsGroups", "Groups of Quads" LOADER_GROUPS_HELP),        \
        LOADER_IGNORED_GROUPS(groups[3], "polygonsGroups", "Groups of Polygons (not filled)"),    \
        LOADER_GROUPS_OUT(groups[4], "tetrahedraGroups",                                          \
                          "Groups of Tetrahedra" LOADER_GROUPS_HELP),                             \
        LOADER_GROUPS_OUT(groups[5], "hexahedraGroups",                                           \
                          "Groups of Hexahedra" LOADER_GROUPS_HELP),                              \
        ST_FIELD_EX(mesh_loader, groups[6], "prismsGroups", ST_T_STRINGS, st_array, NULL,         \
                    "Groups of Prisms (not filled)", ST_F_OUTPUT | ST_F_IGNORED,                  \
                    "pentahedraGroups", 0.0, 0.0),                                                \
        LOADER_IGNORED_GROUPS(groups[7], "pyramidsGroups", "Groups of Pyramids (not filled)")

/* The createSubelements field with SOFA's default for the loader. */
#define LOADER_SUBELEMENTS(def)                                                                   \
    LOADER_NOAUTO(create_subelements, "createSubelements", ST_T_BOOL, bool, def,                  \
                  "Divide all n-D elements into their (n-1)-D boundary elements (e.g. tetrahedra " \
                  "to triangles)")

#endif
