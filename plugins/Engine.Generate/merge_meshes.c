/* merge_meshes.c - MergeMeshes: the union of nbMeshes meshes, positions
 * one after the other and element lists with their vertex numbers shifted
 * by the number of points of the meshes before. SOFA creates the inputs
 * position1, edges1, ... up to nbMeshes when it reads the scene; settee's
 * field tables are static, so a MergeMeshes takes at most 8 meshes (a
 * larger nbMeshes is an error). SOFA's polygons output, declared but
 * never filled by SOFA, is not provided. */
#include "../shared/engine_util.h"

#define MM_MAX 8

typedef struct merge_meshes {
    st_component base;
    unsigned nb_meshes;
    st_array position[MM_MAX], edges[MM_MAX], triangles[MM_MAX], quads[MM_MAX],
        tetrahedra[MM_MAX], hexahedra[MM_MAX];
    unsigned npoints; /* output */
    st_array out_position, out_edges, out_triangles, out_quads, out_tetrahedra, out_hexahedra;
} merge_meshes;

#define MM_IN(i)                                                                                  \
    ST_COORDS(merge_meshes, position[i - 1], "position" #i, NULL,                                \
              "input positions for mesh " #i),                                                    \
        ST_EDGES(merge_meshes, edges[i - 1], "edges" #i, NULL, "input edges for mesh " #i),      \
        ST_TRIANGLES(merge_meshes, triangles[i - 1], "triangles" #i, NULL,                        \
                     "input triangles for mesh " #i),                                             \
        ST_QUADS(merge_meshes, quads[i - 1], "quads" #i, NULL, "input quads for mesh " #i),      \
        ST_TETRAS(merge_meshes, tetrahedra[i - 1], "tetrahedra" #i, NULL,                         \
                  "input tetrahedra for mesh " #i),                                               \
        ST_HEXAS(merge_meshes, hexahedra[i - 1], "hexahedra" #i, NULL,                            \
                 "input hexahedra for mesh " #i)

#define MM_OUT(m, key, T, help) ST_OUTPUT(merge_meshes, m, key, T, st_array, help)

static const st_field merge_meshes_fields[] = {
    ST_FIELD_EX(merge_meshes, nb_meshes, "nbMeshes", ST_T_UINT, unsigned, "2",
                "number of meshes to merge (at most 8 in settee)", 0, NULL, 0, MM_MAX),
    ST_FIELD_EX(merge_meshes, npoints, "npoints", ST_T_UINT, unsigned, "0",
                "Number Of out points", ST_F_OUTPUT, NULL, 0.0, 0.0),
    MM_OUT(out_position, "position", ST_T_COORDS, "Output Vertices of the merged mesh"),
    MM_OUT(out_edges, "edges", ST_T_EDGES, "Output Edges of the merged mesh"),
    MM_OUT(out_triangles, "triangles", ST_T_TRIANGLES, "Output Triangles of the merged mesh"),
    MM_OUT(out_quads, "quads", ST_T_QUADS, "Output Quads of the merged mesh"),
    MM_OUT(out_tetrahedra, "tetrahedra", ST_T_TETRAS, "Output Tetrahedra of the merged mesh"),
    MM_OUT(out_hexahedra, "hexahedra", ST_T_HEXAS, "Output Hexahedra of the merged mesh"),
    MM_IN(1), MM_IN(2), MM_IN(3), MM_IN(4), MM_IN(5), MM_IN(6), MM_IN(7), MM_IN(8),
    ST_FIELD_END};

/* Concatenates the element lists in[0..nb), shifting vertex numbers. */
static st_status merge_list(const merge_meshes *m, const st_array *in, st_type t, st_array *out,
                            st_error *err)
{
    unsigned w = st_type_width(t);
    size_t total = 0;
    for (unsigned i = 0; i < m->nb_meshes; i++)
        total += in[i].n;
    ST_TRY(st_array_resize(out, t, total, err));
    size_t at = 0;
    unsigned shift = 0;
    for (unsigned i = 0; i < m->nb_meshes; i++) {
        for (size_t k = 0; k < in[i].n * w; k++)
            out->u[at * w + k] = in[i].u[k] + shift;
        at += in[i].n;
        shift += (unsigned)m->position[i].n;
    }
    return ST_OK;
}

static st_status merge_meshes_update(st_component *self, st_error *err)
{
    merge_meshes *m = (merge_meshes *)self;
    unsigned cw = eng_coord_size(self);
    size_t total = 0;
    for (unsigned i = 0; i < m->nb_meshes; i++)
        total += m->position[i].n;
    ST_TRY(st_array_resize_width(&m->out_position, cw, total, err));
    size_t at = 0;
    for (unsigned i = 0; i < m->nb_meshes; i++) {
        if (m->position[i].n)
            memcpy(m->out_position.r + at * cw, m->position[i].r,
                   m->position[i].n * cw * sizeof(double));
        at += m->position[i].n;
    }
    ST_TRY(merge_list(m, m->edges, ST_T_EDGES, &m->out_edges, err));
    ST_TRY(merge_list(m, m->triangles, ST_T_TRIANGLES, &m->out_triangles, err));
    ST_TRY(merge_list(m, m->quads, ST_T_QUADS, &m->out_quads, err));
    ST_TRY(merge_list(m, m->tetrahedra, ST_T_TETRAS, &m->out_tetrahedra, err));
    ST_TRY(merge_list(m, m->hexahedra, ST_T_HEXAS, &m->out_hexahedra, err));
    m->npoints = (unsigned)total;
    return ST_OK;
}

/* Inputs of meshes beyond nbMeshes are refused: SOFA does not create them. */
static st_status merge_meshes_init(st_component *self, st_error *err)
{
    merge_meshes *m = (merge_meshes *)self;
    static const char *const names[] = {"position", "edges", "triangles", "quads", "tetrahedra",
                                        "hexahedra"};
    for (unsigned i = m->nb_meshes; i < MM_MAX; i++)
        for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
            char key[32];
            snprintf(key, sizeof key, "%s%u", names[k], i + 1);
            if (st_component_is_set(self, key))
                return st_component_error(self, key, err, ST_ESCENE,
                                          "%s is set but nbMeshes is %u: raise nbMeshes to %u", key,
                                          m->nb_meshes, i + 1);
        }
    return ST_OK;
}

static const st_engine_ops merge_meshes_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = merge_meshes_update,
};

static const char *const merge_meshes_templates[] = {"Vec3d", "Vec1d", "Vec2d", "Rigid3d", NULL};

const st_class merge_meshes_class = {
    .struct_size = sizeof(st_class),
    .name = "MergeMeshes",
    .category = "Engine",
    .description = "Merge several meshes",
    .instance_size = sizeof(merge_meshes),
    .fields = merge_meshes_fields,
    .init = merge_meshes_init,
    .engine = &merge_meshes_engine,
    .templates = merge_meshes_templates,
};
