/* smooth_mesh_engine.c - SmoothMeshEngine: nb_iterations passes of
 * Laplacian smoothing of input_position over the topology (`topology`, else
 * the context's): each pass moves every point (or only those listed in
 * input_indices) to the mean of its neighbours (the other ends of its
 * edges, in the topology's edge order), all from the previous pass's
 * positions; a point without neighbours stays. No topology: SOFA's error,
 * as a warning, and no output. A point index beyond the positions is an
 * error (SOFA reads out of bounds). */
#include <stdlib.h>

#include "../shared/engine_util.h"

typedef struct smooth_mesh_engine {
    st_component base;
    st_array input, indices, output;
    unsigned iterations;
    bool show_input, show_output;
    st_component *topology; /* link */
    bool warned;
} smooth_mesh_engine;

static const st_field smooth_mesh_engine_fields[] = {
    ST_COORDS(smooth_mesh_engine, input, "input_position", NULL, "Input position"),
    ST_UINTS(smooth_mesh_engine, indices, "input_indices", NULL,
             "Position indices that need to be smoothed, leave empty for all positions"),
    ST_OUTPUT(smooth_mesh_engine, output, "output_position", ST_T_COORDS, st_array,
              "Output position"),
    ST_UINT(smooth_mesh_engine, iterations, "nb_iterations", "1",
            "Number of iterations of laplacian smoothing"),
    ST_IGNORED(smooth_mesh_engine, show_input, "showInput", ST_T_BOOL, bool, "false", "showInput"),
    ST_IGNORED(smooth_mesh_engine, show_output, "showOutput", ST_T_BOOL, bool, "false",
               "showOutput"),
    ST_LINK(smooth_mesh_engine, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container"),
    ST_FIELD_END};

static st_status smooth_update(st_component *self, st_error *err)
{
    smooth_mesh_engine *e = (smooth_mesh_engine *)self;
    st_component *topo =
        e->topology ? e->topology : st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!topo || !topo->cls->topology) {
        if (!e->warned)
            st_component_warn(self, "No topology component found, nor in current context: %s "
                                    "(SOFA's error: no output)",
                              st_node_name(self->node));
        e->warned = true;
        return ST_OK;
    }
    const unsigned cw = eng_coord_size(self);
    const size_t n = e->input.n;
    if (n == 0) {
        eng_clear(&e->output);
        return ST_OK;
    }
    const st_array *edges = topo->cls->topology->elements(topo, ST_T_EDGES);
    const size_t ne = edges ? edges->n : 0;
    for (size_t i = 0; i < 2 * ne; i++)
        if (edges->u[i] >= n)
            return st_component_error(self, "input_position", err, ST_EINVAL,
                                      "the topology's edges name point %u of %zu", edges->u[i],
                                      n);
    for (size_t i = 0; i < e->indices.n; i++)
        if (e->indices.u[i] >= n)
            return st_component_error(self, "input_indices", err, ST_EINVAL,
                                      "index %u beyond the %zu points", e->indices.u[i], n);
    ST_TRY(st_array_resize_width(&e->output, cw, n, err));
    if (n)
        memcpy(e->output.r, e->input.r, n * cw * sizeof(double));
    /* Neighbours per point (CSR), in edge order. */
    size_t *start = st_calloc(n + 1, sizeof *start);
    unsigned *nb = st_malloc((2 * ne + 1) * sizeof *nb);
    double *t = st_malloc((n * cw + 1) * sizeof *t);
    if (!start || !nb || !t) {
        st_free(start), st_free(nb), st_free(t);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < 2 * ne; k++)
        start[edges->u[k] + 1]++;
    for (size_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    size_t *fill = st_calloc(n + 1, sizeof *fill);
    if (!fill) {
        st_free(start), st_free(nb), st_free(t);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < ne; k++) {
        unsigned a = edges->u[2 * k], b = edges->u[2 * k + 1];
        nb[start[a] + fill[a]++] = b;
        nb[start[b] + fill[b]++] = a;
    }
    st_free(fill);
    double *x = e->output.r;
    for (unsigned it = 0; it < e->iterations; it++) {
        memcpy(t, x, n * cw * sizeof(double));
        const size_t count = e->indices.n ? e->indices.n : n;
        for (size_t j = 0; j < count; j++) {
            const size_t i = e->indices.n ? e->indices.u[j] : j;
            const size_t deg = start[i + 1] - start[i];
            if (!deg)
                continue;
            for (unsigned c = 0; c < cw; c++) {
                double s = 0;
                for (size_t k = start[i]; k < start[i + 1]; k++)
                    s += x[(size_t)cw * nb[k] + c];
                t[(size_t)cw * i + c] = s / (double)deg;
            }
        }
        memcpy(x, t, n * cw * sizeof(double));
    }
    st_free(start), st_free(nb), st_free(t);
    return ST_OK;
}

static const st_engine_ops smooth_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = smooth_update,
};

const st_class smooth_mesh_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "SmoothMeshEngine",
    .category = "Engine",
    .description = "Compute the laplacian smoothing of a mesh.",
    .instance_size = sizeof(smooth_mesh_engine),
    .fields = smooth_mesh_engine_fields,
    .engine = &smooth_engine,
};
