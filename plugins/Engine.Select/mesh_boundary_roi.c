/* mesh_boundary_roi.c - MeshBoundaryROI: the points of the border edges of
 * a triangle and quad mesh, sorted, each once. An edge is a border edge
 * when exactly one of the elements lies on it, counting only elements whose
 * points are all in inputROI (all elements when inputROI is empty). When
 * the scene leaves triangles or quads unset they are linked to the
 * topology of the node (SOFA's local search), at the first update. */
#include <stdlib.h>

#include "../shared/engine_util.h"

typedef struct mesh_boundary_roi {
    st_component base;
    st_array triangles, quads;
    st_array input_roi; /* indices */
    st_array indices;   /* output */
    bool linked;
} mesh_boundary_roi;

static const st_field mesh_boundary_roi_fields[] = {
    ST_TRIANGLES(mesh_boundary_roi, triangles, "triangles", NULL, "input triangles"),
    ST_QUADS(mesh_boundary_roi, quads, "quads", NULL, "input quads"),
    ST_UINTS(mesh_boundary_roi, input_roi, "inputROI", NULL, "optional subset of the input mesh"),
    ST_OUTPUT(mesh_boundary_roi, indices, "indices", ST_T_UINTS, st_array,
              "Index lists of the closing vertices"),
    ST_FIELD_END};

static int cmp_edge(const void *a, const void *b)
{
    const unsigned *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int cmp_u(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

static bool in_roi(const unsigned *sorted, size_t n, unsigned v)
{
    return n == 0 || bsearch(&v, sorted, n, sizeof v, cmp_u) != NULL;
}

static st_status mesh_boundary_roi_update(st_component *self, st_error *err)
{
    mesh_boundary_roi *m = (mesh_boundary_roi *)self;
    if (!m->linked) {
        m->linked = true;
        const bool tset = st_component_is_set(self, "triangles"),
                   qset = st_component_is_set(self, "quads");
        st_component *topo = eng_local(self, ST_ROLE_TOPOLOGY);
        if (topo && !tset)
            ST_TRY(eng_link(self, "triangles", topo, "triangles", err));
        if (topo && !qset)
            ST_TRY(eng_link(self, "quads", topo, "quads", err));
        if (!topo && !tset && !qset)
            st_component_warn(self, "No topology given. No mesh to process.");
        ST_TRY(st_component_update_inputs(self, err));
    }
    const size_t nroi = m->input_roi.n;
    unsigned *roi = st_malloc((nroi ? nroi : 1) * sizeof *roi);
    unsigned *edges = st_malloc((3 * m->triangles.n + 4 * m->quads.n + 1) * 2 * sizeof *edges);
    if (!roi || !edges) {
        st_free(roi), st_free(edges);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    if (nroi)
        memcpy(roi, m->input_roi.u, nroi * sizeof *roi);
    qsort(roi, nroi, sizeof *roi, cmp_u);
    size_t ne = 0;
    const st_array *lists[2] = {&m->triangles, &m->quads};
    for (int l = 0; l < 2; l++) {
        const unsigned w = l ? 4 : 3;
        for (size_t i = 0; i < lists[l]->n; i++) {
            const unsigned *v = lists[l]->u + (size_t)w * i;
            bool in = true;
            for (unsigned j = 0; j < w && in; j++)
                in = in_roi(roi, nroi, v[j]);
            if (!in)
                continue;
            for (unsigned j = 0; j < w; j++) {
                unsigned a = v[j], b = v[(j + 1) % w];
                edges[2 * ne] = a < b ? a : b;
                edges[2 * ne + 1] = a < b ? b : a;
                ne++;
            }
        }
    }
    qsort(edges, ne, 2 * sizeof *edges, cmp_edge);
    /* The points of the edges met once, then sorted and made unique. */
    size_t np = 0;
    for (size_t i = 0; i < ne;) {
        size_t j = i + 1;
        while (j < ne && !cmp_edge(edges + 2 * i, edges + 2 * j))
            j++;
        if (j - i == 1) {
            edges[np++] = edges[2 * i];
            edges[np++] = edges[2 * i + 1];
        }
        i = j;
    }
    qsort(edges, np, sizeof *edges, cmp_u);
    eng_clear(&m->indices);
    st_status st = ST_OK;
    for (size_t i = 0; i < np && st == ST_OK; i++)
        if (i == 0 || edges[i] != edges[i - 1])
            st = eng_push_index(&m->indices, edges[i], err);
    st_free(roi);
    st_free(edges);
    return st;
}

static const st_engine_ops mesh_boundary_roi_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = mesh_boundary_roi_update,
};

const st_class mesh_boundary_roi_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshBoundaryROI",
    .category = "Engine",
    .description = "Outputs indices of boundary vertices of a triangle/quad mesh",
    .instance_size = sizeof(mesh_boundary_roi),
    .fields = mesh_boundary_roi_fields,
    .engine = &mesh_boundary_roi_engine,
};
