/* mesh_sampler.c - MeshSampler: `number` well spread points of a mesh, as
 * SOFA's engine picks them: farthest point sampling from point 0 (each new
 * sample the point farthest from those chosen; stop when all are at
 * distance 0), then up to maxIter Lloyd passes (each sample moves to the
 * point of its Voronoi region nearest to the region's centroid; stop when
 * none moves). Distances are geodesic along `edges` (Dijkstra, ties taken
 * by point index as SOFA's ordered set) when edges are given, else squared
 * Euclidean distances. outputIndices are the samples, outputPosition their
 * positions. No positions: empty outputs (SOFA reads position 0 of an
 * empty list); an edge index beyond the positions is an error. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "../shared/engine_util.h"

typedef struct mesh_sampler {
    st_component base;
    unsigned number, max_iter;
    st_array position, edges;
    st_array out_indices, out_position; /* outputs */
} mesh_sampler;

static const st_field mesh_sampler_fields[] = {
    ST_UINT(mesh_sampler, number, "number", "1", "Sample number"),
    ST_COORDS(mesh_sampler, position, "position", NULL, "Input positions."),
    ST_EDGES(mesh_sampler, edges, "edges", NULL,
             "Input edges for geodesic sampling (Euclidean distances are used if not specified)."),
    ST_UINT(mesh_sampler, max_iter, "maxIter", "100", "Max number of Lloyd iterations."),
    ST_OUTPUT(mesh_sampler, out_indices, "outputIndices", ST_T_UINTS, st_array,
              "Computed sample indices."),
    ST_OUTPUT(mesh_sampler, out_position, "outputPosition", ST_T_COORDS, st_array,
              "Computed sample coordinates."),
    ST_FIELD_END};

/* Work arrays of one update. */
typedef struct sampler_work {
    const double *x;  /* positions, cw per point */
    unsigned cw, sp;
    size_t np;
    size_t *start;    /* neighbours (CSR), NULL without edges */
    unsigned *nb;
    double *dist;     /* np */
    unsigned *region; /* np: the sample index of each point */
    unsigned *samples;
    size_t ns;
    /* Heap of (distance, point) for Dijkstra. */
    double *hd;
    unsigned *hp;
    size_t hn;
} sampler_work;

static bool heap_less(const sampler_work *w, size_t a, size_t b)
{
    return w->hd[a] < w->hd[b] || (w->hd[a] == w->hd[b] && w->hp[a] < w->hp[b]);
}

static void heap_swap(sampler_work *w, size_t a, size_t b)
{
    double d = w->hd[a];
    unsigned p = w->hp[a];
    w->hd[a] = w->hd[b], w->hp[a] = w->hp[b];
    w->hd[b] = d, w->hp[b] = p;
}

static void heap_push(sampler_work *w, double d, unsigned p)
{
    size_t i = w->hn++;
    w->hd[i] = d, w->hp[i] = p;
    while (i && heap_less(w, i, (i - 1) / 2)) {
        heap_swap(w, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heap_pop(sampler_work *w, double *d, unsigned *p)
{
    *d = w->hd[0], *p = w->hp[0];
    w->hn--;
    w->hd[0] = w->hd[w->hn], w->hp[0] = w->hp[w->hn];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < w->hn && heap_less(w, l, m))
            m = l;
        if (r < w->hn && heap_less(w, r, m))
            m = r;
        if (m == i)
            break;
        heap_swap(w, i, m);
        i = m;
    }
}

static double dist2(const sampler_work *w, size_t a, size_t b)
{
    double s = 0;
    for (unsigned k = 0; k < w->sp; k++) {
        double d = w->x[(size_t)w->cw * a + k] - w->x[(size_t)w->cw * b + k];
        s += d * d;
    }
    return s;
}

static void compute_distances(sampler_work *w)
{
    for (size_t i = 0; i < w->np; i++)
        w->dist[i] = DBL_MAX, w->region[i] = 0;
    if (!w->start) {
        for (size_t i = 0; i < w->np; i++)
            for (size_t j = 0; j < w->ns; j++) {
                double d = dist2(w, i, w->samples[j]);
                if (d < w->dist[i])
                    w->dist[i] = d, w->region[i] = (unsigned)j;
            }
        return;
    }
    w->hn = 0;
    for (size_t j = 0; j < w->ns; j++) {
        w->dist[w->samples[j]] = 0;
        w->region[w->samples[j]] = (unsigned)j;
        heap_push(w, 0, w->samples[j]);
    }
    while (w->hn) {
        double d;
        unsigned v;
        heap_pop(w, &d, &v);
        if (d != w->dist[v])
            continue; /* stale: the point was reached by a shorter path since */
        for (size_t k = w->start[v]; k < w->start[v + 1]; k++) {
            unsigned v2 = w->nb[k];
            double nd = w->dist[v] + sqrt(dist2(w, v, v2));
            if (w->dist[v2] > nd) {
                w->region[v2] = w->region[v];
                w->dist[v2] = nd;
                heap_push(w, nd, v2);
            }
        }
    }
}

static bool lloyd(sampler_work *w, double *center, unsigned *count, double *d, double *dmin)
{
    const unsigned cw = w->cw;
    memset(center, 0, w->ns * cw * sizeof *center);
    memset(count, 0, w->ns * sizeof *count);
    for (size_t i = 0; i < w->np; i++) {
        for (unsigned k = 0; k < cw; k++)
            center[(size_t)cw * w->region[i] + k] += w->x[(size_t)cw * i + k];
        count[w->region[i]]++;
    }
    for (size_t j = 0; j < w->ns; j++)
        for (unsigned k = 0; k < cw; k++)
            center[(size_t)cw * j + k] /= (double)count[j];
    for (size_t i = 0; i < w->np; i++) {
        double s = 0;
        for (unsigned k = 0; k < w->sp; k++) {
            double t = w->x[(size_t)cw * i + k] - center[(size_t)cw * w->region[i] + k];
            s += t * t;
        }
        d[i] = s;
    }
    for (size_t j = 0; j < w->ns; j++)
        dmin[j] = d[w->samples[j]];
    bool changed = false;
    for (size_t i = 0; i < w->np; i++)
        if (d[i] < dmin[w->region[i]]) {
            dmin[w->region[i]] = d[i];
            w->samples[w->region[i]] = (unsigned)i;
            changed = true;
        }
    compute_distances(w);
    return changed;
}

static st_status mesh_sampler_update(st_component *self, st_error *err)
{
    mesh_sampler *m = (mesh_sampler *)self;
    sampler_work w = {.x = m->position.r, .cw = eng_coord_size(self),
                      .sp = eng_spatial_size(self), .np = m->position.n};
    eng_clear(&m->out_indices);
    eng_clear(&m->out_position);
    if (w.np == 0)
        return ST_OK;
    const size_t ne = m->edges.n;
    for (size_t i = 0; i < 2 * ne; i++)
        if (m->edges.u[i] >= w.np)
            return st_component_error(self, "edges", err, ST_EINVAL,
                                      "index %u beyond the %zu positions", m->edges.u[i], w.np);
    size_t nbc = m->number < w.np ? m->number : w.np;
    if (nbc == 0)
        nbc = 1; /* SOFA always takes point 0 */
    st_status st = ST_OK;
    w.dist = st_malloc(w.np * sizeof *w.dist);
    w.region = st_malloc(w.np * sizeof *w.region);
    w.samples = st_malloc(nbc * sizeof *w.samples);
    w.hd = st_malloc((2 * ne + nbc + 1) * sizeof *w.hd);
    w.hp = st_malloc((2 * ne + nbc + 1) * sizeof *w.hp);
    double *center = st_malloc(nbc * w.cw * sizeof *center), *d = st_malloc(w.np * sizeof *d);
    double *dmin = st_malloc(nbc * sizeof *dmin);
    unsigned *count = st_malloc(nbc * sizeof *count);
    if (ne) {
        w.start = st_calloc(w.np + 1, sizeof *w.start);
        w.nb = st_malloc(2 * ne * sizeof *w.nb);
    }
    if (!w.dist || !w.region || !w.samples || !w.hd || !w.hp || !center || !d || !dmin ||
        !count || (ne && (!w.start || !w.nb))) {
        st = st_error_set(err, ST_ENOMEM, "out of memory");
        goto done;
    }
    if (ne) {
        /* One-ring neighbours in edge order (SOFA's lists). */
        for (size_t k = 0; k < 2 * ne; k++)
            w.start[m->edges.u[k] + 1]++;
        for (size_t i = 0; i < w.np; i++)
            w.start[i + 1] += w.start[i];
        size_t *fill = st_calloc(w.np, sizeof *fill);
        if (!fill) {
            st = st_error_set(err, ST_ENOMEM, "out of memory");
            goto done;
        }
        for (size_t k = 0; k < ne; k++) {
            unsigned a = m->edges.u[2 * k], b = m->edges.u[2 * k + 1];
            w.nb[w.start[a] + fill[a]++] = b;
            w.nb[w.start[b] + fill[b]++] = a;
        }
        st_free(fill);
    }
    w.samples[0] = 0;
    w.ns = 1;
    compute_distances(&w);
    while (w.ns < nbc) {
        double dmax = 0;
        unsigned imax = 0;
        for (size_t i = 0; i < w.np; i++)
            if (w.dist[i] > dmax)
                dmax = w.dist[i], imax = (unsigned)i;
        if (dmax == 0)
            break;
        w.samples[w.ns++] = imax;
        compute_distances(&w);
    }
    for (unsigned it = 0; it < m->max_iter; it++)
        if (!lloyd(&w, center, count, d, dmin))
            break;
    for (size_t j = 0; j < w.ns && st == ST_OK; j++) {
        st = eng_push_index(&m->out_indices, w.samples[j], err);
        if (st == ST_OK)
            st = eng_push_r(&m->out_position, w.cw, w.x + (size_t)w.cw * w.samples[j], err);
    }
done:
    st_free(w.dist), st_free(w.region), st_free(w.samples), st_free(w.hd), st_free(w.hp);
    st_free(center), st_free(d), st_free(dmin), st_free(count), st_free(w.start), st_free(w.nb);
    return st;
}

static const st_engine_ops mesh_sampler_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = mesh_sampler_update,
};

const st_class mesh_sampler_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshSampler",
    .category = "Engine",
    .description = "Select uniformly distributed points on a mesh based on Euclidean or "
                   "Geodesic distance measure.",
    .instance_size = sizeof(mesh_sampler),
    .fields = mesh_sampler_fields,
    .engine = &mesh_sampler_engine,
};
