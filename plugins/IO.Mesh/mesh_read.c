/* mesh_read.c - a mesh file read for a component that is not a loader.
 * SOFA's topology containers take a "filename" and fill their own lists
 * from it (BaseMeshTopology::load through MeshTopologyLoader): .obj faces
 * of 2 vertices become edges, of 4 quads, larger ones fans of triangles;
 * .msh and .vtk give every element list the file holds. settee reads them
 * with the loaders' own parsers (mesh_format), into a scratch loader whose
 * component head is the owner's, so that errors name the owner and its
 * "filename". No transformation, sub-elements or normals: SOFA's topology
 * load applies none. This file is compiled into IO.Mesh and Topology. */
#include <string.h>

#include "mesh_loader.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static const mesh_format *format_of(const char *filename)
{
    if (ends_with(filename, ".obj"))
        return &mesh_obj_format;
    if (ends_with(filename, ".msh"))
        return &mesh_gmsh_format;
    if (ends_with(filename, ".vtk") || ends_with(filename, ".vtu"))
        return &mesh_vtk_format;
    return NULL;
}

void mesh_data_free(mesh_data *d)
{
    st_array_free(&d->position, ST_T_VEC3S);
    st_array_free(&d->edges, ST_T_EDGES);
    st_array_free(&d->triangles, ST_T_TRIANGLES);
    st_array_free(&d->quads, ST_T_QUADS);
    st_array_free(&d->tetrahedra, ST_T_TETRAS);
    st_array_free(&d->hexahedra, ST_T_HEXAS);
}

st_status mesh_read_file(const st_component *owner, const char *filename, mesh_data *out,
                         st_error *err)
{
    memset(out, 0, sizeof *out);
    const mesh_format *fmt = format_of(filename);
    if (!fmt)
        return st_component_error(owner, "filename", err, ST_EINVAL,
                                  "cannot read '%s' as a topology: SOFA's topology containers "
                                  "read .obj, .msh and .vtk files (load other formats with a "
                                  "loader and link it with src)",
                                  filename);
    mesh_loader *l = st_calloc(1, fmt->loader_size);
    if (!l)
        return st_error_set(err, ST_ENOMEM, "out of memory reading '%s'", filename);
    /* the owner's head: messages name it; the parsers touch no field */
    l->base = *owner;
    mesh_file f;
    st_status s = mesh_file_read(&l->base, filename, &f, err);
    if (s == ST_OK) {
        s = fmt->parse(l, &f, err);
        if (s == ST_OK && l->position.n == 0)
            st_component_warn_field(owner, "filename", "'%s' holds no points: the topology is "
                                    "empty", f.path);
        if (s == ST_OK) {
            snprintf(out->path, sizeof out->path, "%s", f.path);
            out->position = l->position;
            out->edges = l->edges;
            out->triangles = l->triangles;
            out->quads = l->quads;
            out->tetrahedra = l->tetrahedra;
            out->hexahedra = l->hexahedra;
            memset(&l->position, 0, sizeof l->position);
            memset(&l->edges, 0, sizeof l->edges);
            memset(&l->triangles, 0, sizeof l->triangles);
            memset(&l->quads, 0, sizeof l->quads);
            memset(&l->tetrahedra, 0, sizeof l->tetrahedra);
            memset(&l->hexahedra, 0, sizeof l->hexahedra);
        }
        mesh_file_free(&f);
    }
    if (fmt->release)
        fmt->release(l);
    loader_clear(l);
    st_free(l->path);
    st_free(l);
    return s;
}
