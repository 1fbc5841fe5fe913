/* mesh_loader.h - what the IO.Mesh loaders share: SOFA's MeshLoader data
 * (outputs position and element lists; translation, rotation, scale3d),
 * file lookup relative to the scene, line reading with line numbers, and
 * the transformation and sub-element steps. Private to the plugin. */
#ifndef SETTEE_PLUGIN_MESH_LOADER_H
#define SETTEE_PLUGIN_MESH_LOADER_H

#include <stdio.h>

#include <settee/settee.h>

typedef struct mesh_loader {
    st_component base;
    char *filename;                 /* "filename" (relative to the scene file's directory) */
    st_vec3 translation, rotation;  /* "translation", "rotation" (degrees, R = Rz Ry Rx) */
    st_vec3 scale3d;                /* "scale3d" */
    double scale;                   /* parse-only "scale": multiplies scale3d */
    bool flip_normals, triangulate, create_subelements, only_attached_points;
    bool handle_seams, load_material; /* MeshOBJLoader */
    /* Outputs. */
    st_array position, normals;     /* vec3[] */
    st_array edges, triangles, quads, tetrahedra, hexahedra;
    /* Set at load. */
    char *path;                     /* the resolved file name */
} mesh_loader;

/* A text file read line by line, counting lines from 1. */
typedef struct line_reader {
    FILE *f;
    char *buf;
    size_t cap;
    int line;
    const char *path;
} line_reader;

/* Opens the loader's file (resolving it against the scene's directory). */
st_status loader_open(mesh_loader *l, line_reader *r, st_error *err);
/* Reads the next line (without its end-of-line); false at end of file. */
bool loader_next_line(line_reader *r);
void loader_close(line_reader *r);
/* Records a parse error at the file's own line. */
st_status loader_file_error(mesh_loader *l, const line_reader *r, st_error *err, st_status code,
                            const char *fmt, ...) ST_PRINTF(5, 6);

/* Clears every output list. */
void loader_clear(mesh_loader *l);
/* Appends one tuple; triangles and quads are reversed with flipNormals. */
st_status loader_push(mesh_loader *l, st_array *a, st_type t, const unsigned *v, bool flip,
                      st_error *err);
/* SOFA's MeshLoader::reinit: applies T R S to the positions, derives the
 * sub-elements when asked and computes the normals. */
st_status loader_finish(mesh_loader *l, st_error *err);
/* Marks every output as modified. */
void loader_touch_outputs(mesh_loader *l);

/* A loader field that a src="@loader" elsewhere does not link: SOFA's
 * MeshLoader calls setAutoLink(false) on its transformation and its
 * options, so a model fed by src does not apply them a second time. */
#define NOAUTO(m, key, T, CT, def, help)                                                          \
    ST_FIELD_EX(mesh_loader, m, key, T, CT, def, help, ST_F_NOAUTOLINK, NULL, 0.0, 0.0)

/* Field table fragments. */
#define LOADER_FIELDS                                                                             \
    ST_FIELD_EX(mesh_loader, filename, "filename", ST_T_STRING, char *, NULL,                     \
                "Filename of the object (relative to the scene file's directory)",                \
                ST_F_REQUIRED, NULL, 0.0, 0.0),                                                   \
        NOAUTO(translation, "translation", ST_T_VEC3, st_vec3, "0 0 0",                          \
               "Translation of the DOFs"),                                                        \
        NOAUTO(rotation, "rotation", ST_T_VEC3, st_vec3, "0 0 0",                                 \
               "Rotation of the DOFs (Euler angles in degrees, R = Rz Ry Rx)"),                   \
        NOAUTO(scale3d, "scale3d", ST_T_VEC3, st_vec3, "1 1 1",                                   \
               "Scale of the DOFs in 3 dimensions"),                                              \
        ST_REAL(mesh_loader, scale, "scale", "1", "Uniform scale multiplying scale3d"),           \
        NOAUTO(flip_normals, "flipNormals", ST_T_BOOL, bool, "false", "Flip Normals"),            \
        NOAUTO(triangulate, "triangulate", ST_T_BOOL, bool, "false",                              \
               "Divide all polygons into triangles"),                                             \
        NOAUTO(only_attached_points, "onlyAttachedPoints", ST_T_BOOL, bool, "false",              \
               "Only keep points attached to elements of the mesh (not supported: must be "       \
               "false)"),                                                                         \
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
                  "Normals of the mesh loaded")

#endif
