/* mesh_subset_engine.c - MeshSubsetEngine: the points listed in indices
 * (position[i] = inputPosition[indices[i]]) and the input elements whose
 * points are all listed, renumbered to the subset (a point listed twice
 * takes its last place, as SOFA's map). An index beyond inputPosition is an
 * error (SOFA reads out of bounds). */
#include "../shared/engine_util.h"

typedef struct mesh_subset_engine {
    st_component base;
    st_array in_pos, in_edges, in_tris, in_quads, in_tetras, in_hexas;
    st_array indices;
    st_array pos, edges, tris, quads, tetras, hexas; /* outputs */
} mesh_subset_engine;

#define MSE_OUT(m, key, T, help) ST_OUTPUT(mesh_subset_engine, m, key, T, st_array, help)

static const st_field mesh_subset_engine_fields[] = {
    ST_VEC3S(mesh_subset_engine, in_pos, "inputPosition", NULL, "input vertices"),
    ST_EDGES(mesh_subset_engine, in_edges, "inputEdges", NULL, "input edges"),
    ST_TRIANGLES(mesh_subset_engine, in_tris, "inputTriangles", NULL, "input triangles"),
    ST_QUADS(mesh_subset_engine, in_quads, "inputQuads", NULL, "input quads"),
    ST_TETRAS(mesh_subset_engine, in_tetras, "inputTetrahedra", NULL, "input tetrahedra"),
    ST_HEXAS(mesh_subset_engine, in_hexas, "inputHexahedra", NULL, "input hexahedra"),
    ST_UINTS(mesh_subset_engine, indices, "indices", NULL, "Index lists of the selected vertices"),
    MSE_OUT(pos, "position", ST_T_VEC3S, "Vertices of mesh subset"),
    MSE_OUT(edges, "edges", ST_T_EDGES, "edges of mesh subset"),
    MSE_OUT(tris, "triangles", ST_T_TRIANGLES, "Triangles of mesh subset"),
    MSE_OUT(quads, "quads", ST_T_QUADS, "Quads of mesh subset"),
    MSE_OUT(tetras, "tetrahedra", ST_T_TETRAS, "Tetrahedra of mesh subset"),
    MSE_OUT(hexas, "hexahedra", ST_T_HEXAS, "Hexahedra of mesh subset"),
    ST_FIELD_END};

static st_status extract(const st_array *in, st_array *out, st_type t, const unsigned *map,
                         size_t nmap, st_error *err)
{
    const unsigned w = st_type_width(t);
    eng_clear(out);
    for (size_t i = 0; i < in->n; i++) {
        unsigned v[8];
        bool inside = true;
        for (unsigned j = 0; j < w && inside; j++) {
            unsigned p = in->u[(size_t)w * i + j];
            inside = p < nmap && map[p] != UINT32_MAX;
            if (inside)
                v[j] = map[p];
        }
        if (inside)
            ST_TRY(eng_push_u(out, t, v, err));
    }
    return ST_OK;
}

static st_status mesh_subset_engine_update(st_component *self, st_error *err)
{
    mesh_subset_engine *m = (mesh_subset_engine *)self;
    const size_t np = m->in_pos.n, ni = m->indices.n;
    for (size_t i = 0; i < ni; i++)
        if (m->indices.u[i] >= np)
            return st_component_error(self, "indices", err, ST_EINVAL,
                                      "index %u (entry %zu) beyond the %zu input points",
                                      m->indices.u[i], i, np);
    ST_TRY(st_array_resize(&m->pos, ST_T_VEC3S, ni, err));
    unsigned *map = st_malloc((np ? np : 1) * sizeof *map);
    if (!map)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < np; i++)
        map[i] = UINT32_MAX;
    for (size_t i = 0; i < ni; i++) {
        memcpy(m->pos.r + 3 * i, m->in_pos.r + 3 * (size_t)m->indices.u[i], 3 * sizeof(double));
        map[m->indices.u[i]] = (unsigned)i;
    }
    st_status st = extract(&m->in_edges, &m->edges, ST_T_EDGES, map, np, err);
    if (st == ST_OK)
        st = extract(&m->in_tris, &m->tris, ST_T_TRIANGLES, map, np, err);
    if (st == ST_OK)
        st = extract(&m->in_quads, &m->quads, ST_T_QUADS, map, np, err);
    if (st == ST_OK)
        st = extract(&m->in_tetras, &m->tetras, ST_T_TETRAS, map, np, err);
    if (st == ST_OK)
        st = extract(&m->in_hexas, &m->hexas, ST_T_HEXAS, map, np, err);
    st_free(map);
    return st;
}

static const st_engine_ops mesh_subset_engine_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = mesh_subset_engine_update,
};

const st_class mesh_subset_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshSubsetEngine",
    .category = "Engine",
    .description = "Extract a mesh subset based on selected vertices.",
    .instance_size = sizeof(mesh_subset_engine),
    .fields = mesh_subset_engine_fields,
    .engine = &mesh_subset_engine_engine,
};
