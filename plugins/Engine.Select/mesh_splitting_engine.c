/* mesh_splitting_engine.c - MeshSplittingEngine: splits the points of a
 * mesh among nbInputs regions and a remainder. Region i (1-based in the
 * field names) claims the points in indicesI and the points of the
 * elements listed in edgeIndicesI, triangleIndicesI, quadIndicesI,
 * tetrahedronIndicesI and hexahedronIndicesI; a point claimed by several
 * regions goes to the first (SOFA parses the regions last to first). The
 * points of region i go to positionI in point order, the others to
 * position(nbInputs+1); indexPairs gives, for each input point, its region
 * (nbInputs for the remainder) and its place there, as SubsetMultiMapping
 * reads it. SOFA creates the numbered fields up to nbInputs when it reads
 * the scene; settee's field tables are static, so at most 8 regions (a
 * larger nbInputs, or a numbered field beyond it, is an error). An element
 * index beyond its list is an error (SOFA reads out of bounds); a point
 * index beyond the positions is skipped, as SOFA does. */
#include <stdio.h>

#include "../shared/engine_util.h"

#define MS_MAX 8

typedef struct mesh_splitting {
    st_component base;
    st_array pos, edges, tris, quads, tetras, hexas; /* inputs */
    unsigned nb_inputs;
    st_array idx[6][MS_MAX]; /* indices, edge, triangle, quad, tetrahedron, hexahedron */
    st_array pairs;              /* output */
    st_array out[MS_MAX + 1];    /* outputs: position1 .. position(nb+1) */
} mesh_splitting;

#define MS_IN(i)                                                                                  \
    ST_UINTS(mesh_splitting, idx[0][i - 1], "indices" #i, NULL, "input vertex indices"),          \
        ST_UINTS(mesh_splitting, idx[1][i - 1], "edgeIndices" #i, NULL, "input edge indices"),    \
        ST_UINTS(mesh_splitting, idx[2][i - 1], "triangleIndices" #i, NULL,                       \
                 "input triangle indices"),                                                       \
        ST_UINTS(mesh_splitting, idx[3][i - 1], "quadIndices" #i, NULL, "input quad indices"),    \
        ST_UINTS(mesh_splitting, idx[4][i - 1], "tetrahedronIndices" #i, NULL,                    \
                 "input tetrahedron indices"),                                                    \
        ST_UINTS(mesh_splitting, idx[5][i - 1], "hexahedronIndices" #i, NULL,                     \
                 "input hexahedron indices")
#define MS_OUT(i)                                                                                 \
    ST_OUTPUT(mesh_splitting, out[i - 1], "position" #i, ST_T_VEC3S, st_array, "output vertices")

static const st_field mesh_splitting_fields[] = {
    ST_VEC3S(mesh_splitting, pos, "position", NULL, "input vertices"),
    ST_EDGES(mesh_splitting, edges, "edges", NULL, "input edges"),
    ST_TRIANGLES(mesh_splitting, tris, "triangles", NULL, "input triangles"),
    ST_QUADS(mesh_splitting, quads, "quads", NULL, "input quads"),
    ST_TETRAS(mesh_splitting, tetras, "tetrahedra", NULL, "input tetrahedra"),
    ST_HEXAS(mesh_splitting, hexas, "hexahedra", NULL, "input hexahedra"),
    ST_FIELD_EX(mesh_splitting, nb_inputs, "nbInputs", ST_T_UINT, unsigned, "0",
                "Number of input vectors (at most 8 in settee)", 0, NULL, 0, MS_MAX),
    MS_IN(1), MS_IN(2), MS_IN(3), MS_IN(4), MS_IN(5), MS_IN(6), MS_IN(7), MS_IN(8),
    ST_OUTPUT(mesh_splitting, pairs, "indexPairs", ST_T_UINTS, st_array,
              "couples for input vertices: ROI index + index in the ROI"),
    MS_OUT(1), MS_OUT(2), MS_OUT(3), MS_OUT(4), MS_OUT(5), MS_OUT(6), MS_OUT(7), MS_OUT(8),
    MS_OUT(9),
    ST_FIELD_END};

static const char *const ms_names[6] = {"indices", "edgeIndices", "triangleIndices",
                                        "quadIndices", "tetrahedronIndices", "hexahedronIndices"};

static st_status mesh_splitting_update(st_component *self, st_error *err)
{
    mesh_splitting *m = (mesh_splitting *)self;
    const unsigned nb = m->nb_inputs;
    for (unsigned i = nb; i < MS_MAX; i++)
        for (int k = 0; k < 6; k++) {
            char key[40];
            snprintf(key, sizeof key, "%s%u", ms_names[k], i + 1);
            if (st_component_is_set(self, key))
                return st_component_error(self, key, err, ST_ESCENE,
                                          "%s is set but nbInputs is %u: raise nbInputs to %u",
                                          key, nb, i + 1);
        }
    const size_t np = m->pos.n;
    ST_TRY(st_array_resize(&m->pairs, ST_T_UINTS, 2 * np, err));
    for (size_t i = 0; i < np; i++)
        m->pairs.u[2 * i] = nb;
    const st_array *cells[6] = {NULL, &m->edges, &m->tris, &m->quads, &m->tetras, &m->hexas};
    static const unsigned widths[6] = {1, 2, 3, 4, 4, 8};
    for (int r = (int)nb - 1; r >= 0; r--)
        for (int k = 0; k < 6; k++) {
            const st_array *ix = &m->idx[k][r];
            for (size_t j = 0; j < ix->n; j++) {
                const unsigned e = ix->u[j];
                if (k == 0) {
                    if (e < np)
                        m->pairs.u[2 * (size_t)e] = (unsigned)r;
                    continue;
                }
                if (e >= cells[k]->n) {
                    char key[40];
                    snprintf(key, sizeof key, "%s%d", ms_names[k], r + 1);
                    return st_component_error(self, key, err, ST_EINVAL,
                                              "element %u beyond the %zu of the input list", e,
                                              cells[k]->n);
                }
                for (unsigned c = 0; c < widths[k]; c++) {
                    const unsigned p = cells[k]->u[(size_t)widths[k] * e + c];
                    if (p < np)
                        m->pairs.u[2 * (size_t)p] = (unsigned)r;
                }
            }
        }
    for (unsigned i = 0; i <= MS_MAX; i++)
        eng_clear(&m->out[i]);
    for (size_t i = 0; i < np; i++) {
        st_array *o = &m->out[m->pairs.u[2 * i]];
        m->pairs.u[2 * i + 1] = (unsigned)o->n;
        ST_TRY(eng_push_r(o, 3, m->pos.r + 3 * i, err));
    }
    return ST_OK;
}

static const st_engine_ops mesh_splitting_engine_ops = {
    .struct_size = sizeof(st_engine_ops),
    .update = mesh_splitting_update,
};

const st_class mesh_splitting_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshSplittingEngine",
    .category = "Engine",
    .description = "Engine breaking a mesh in multiple parts, based on selected vertices or "
                   "cells.",
    .instance_size = sizeof(mesh_splitting),
    .fields = mesh_splitting_fields,
    .engine = &mesh_splitting_engine_ops,
};
