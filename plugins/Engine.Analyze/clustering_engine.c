/* clustering_engine.c - ClusteringEngine: overlapping clusters of points.
 * Centres: every point (number = -1), else farthest-point sampling from
 * point 0 (geodesic distances along the topology's edges with useTopo and
 * a topology, Euclidean ones otherwise) until `number` centres or no point
 * is farther than 0. Members: with a topology, the centre, then ring by
 * ring the neighbours that lie within `radius` of the centre or in the
 * centre's Voronoi cell; without, every point within `radius` of a centre
 * (a point within none joins the nearest centre), and fixed points within
 * fixedRadius, numbered after the mechanical ones.
 *
 * SOFA's cluster is a vector of vectors; settee has no ragged list type, so
 * "cluster" holds them flat, each cluster as its size then its point
 * indices ("3 0 1 2  2 3 4": clusters {0,1,2} and {3,4}), the layout of
 * SOFA's cluster files (inFile, outFile: useTopo radius fixedRadius
 * nbClusters number, then the clusters so). */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../shared/engine_util.h"
#include "../../common/regular_file.h"

typedef struct clustering_engine {
    st_component base;
    bool use_topo;
    double radius, fixed_radius;
    int number;
    st_array fixed_position; /* coord[] */
    st_array position;       /* coord[] */
    st_array cluster;        /* output: size-prefixed clusters */
    char *in_file, *out_file;
    st_array edges;          /* hidden: the topology's edges */
    char *loaded;            /* the cluster file read last */
    bool topo_linked;
} clustering_engine;

static const st_field clustering_fields[] = {
    ST_BOOL(clustering_engine, use_topo, "useTopo", "true",
            "Use available topology to compute neighborhood."),
    ST_REAL(clustering_engine, radius, "radius", "1", "Neighborhood range."),
    ST_REAL(clustering_engine, fixed_radius, "fixedRadius", "1",
            "Neighborhood range (for non mechanical particles)."),
    ST_INT(clustering_engine, number, "number", "-1",
           "Number of clusters (-1 means that all input points are selected)."),
    ST_COORDS(clustering_engine, fixed_position, "fixedPosition", NULL,
              "Input positions of fixed (non mechanical) particles."),
    ST_COORDS(clustering_engine, position, "position", NULL, "Input rest positions."),
    ST_OUTPUT(clustering_engine, cluster, "cluster", ST_T_UINTS, st_array,
              "Computed clusters (settee: each cluster as its size, then its point indices)"),
    ST_STRING(clustering_engine, in_file, "inFile", NULL, "import precomputed clusters"),
    ST_STRING(clustering_engine, out_file, "outFile", NULL, "export clusters"),
    ST_FIELD_EX(clustering_engine, edges, "topologyEdges", ST_T_EDGES, st_array, NULL,
                "settee: the edges of the node's topology (linked at init when useTopo)",
                ST_F_HIDDEN, NULL, 0.0, 0.0),
    ST_FIELD_END};

/* Vertex adjacency in CSR form, neighbours in edge order (SOFA's
 * getVerticesAroundVertex). */
typedef struct adjacency {
    size_t *start; /* n + 1 */
    unsigned *nb;
} adjacency;

static void adj_free(adjacency *a)
{
    st_free(a->start);
    st_free(a->nb);
}

static st_status adj_build(const st_array *edges, size_t n, adjacency *a, st_error *err)
{
    a->start = st_calloc(n + 1, sizeof *a->start);
    a->nb = st_calloc(2 * edges->n + 1, sizeof *a->nb);
    size_t *fill = st_calloc(n + 1, sizeof *fill);
    if (!a->start || !a->nb || !fill) {
        st_free(fill);
        adj_free(a);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t e = 0; e < edges->n; e++)
        for (int k = 0; k < 2; k++)
            if (edges->u[2 * e + k] < n)
                a->start[edges->u[2 * e + k] + 1]++;
    for (size_t i = 0; i < n; i++)
        a->start[i + 1] += a->start[i];
    for (size_t e = 0; e < edges->n; e++) {
        unsigned u = edges->u[2 * e], v = edges->u[2 * e + 1];
        if (u >= n || v >= n)
            continue;
        a->nb[a->start[u] + fill[u]++] = v;
        a->nb[a->start[v] + fill[v]++] = u;
    }
    st_free(fill);
    return ST_OK;
}

static double dist(const double *a, const double *b)
{
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* Dijkstra from the centres, popping the smallest (distance, index) first
 * as SOFA's ordered set does (a plain O(n^2) scan: clustering runs once). */
static st_status dijkstra(const clustering_engine *e, const adjacency *a, const unsigned *centres,
                          size_t nc, double *d, unsigned *vor, st_error *err)
{
    size_t n = e->position.n;
    bool *queued = st_calloc(n + 1, sizeof *queued);
    if (!queued)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < nc; i++) {
        d[centres[i]] = 0;
        vor[centres[i]] = (unsigned)i;
        queued[centres[i]] = true;
    }
    const double *x = e->position.r;
    for (;;) {
        size_t v = n;
        for (size_t i = 0; i < n; i++)
            if (queued[i] && (v == n || d[i] < d[v]))
                v = i;
        if (v == n)
            break;
        queued[v] = false;
        for (size_t k = a->start[v]; k < a->start[v + 1]; k++) {
            unsigned w = a->nb[k];
            double dd = d[v] + dist(x + 3 * v, x + 3 * (size_t)w);
            if (d[w] > dd) {
                vor[w] = vor[v];
                d[w] = dd;
                queued[w] = true;
            }
        }
    }
    st_free(queued);
    return ST_OK;
}

static void voronoi(const clustering_engine *e, const unsigned *centres, size_t nc, double *d,
                    unsigned *vor)
{
    const double *x = e->position.r;
    for (size_t i = 0; i < e->position.n; i++)
        for (size_t j = 0; j < nc; j++) {
            double dd = dist(x + 3 * i, x + 3 * (size_t)centres[j]);
            if (dd < d[i]) {
                d[i] = dd;
                vor[i] = (unsigned)j;
            }
        }
}

/* A growable list of unsigned. */
typedef struct ulist {
    unsigned *v;
    size_t n, cap;
} ulist;

static st_status ulist_push(ulist *l, unsigned x, st_error *err)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        unsigned *v = st_realloc(l->v, cap * sizeof *v);
        if (!v)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        l->v = v, l->cap = cap;
    }
    l->v[l->n++] = x;
    return ST_OK;
}

static bool ulist_has(const ulist *l, size_t from, unsigned x)
{
    for (size_t i = from; i < l->n; i++)
        if (l->v[i] == x)
            return true;
    return false;
}

/* Appends cluster i (centre c) grown ring by ring along the topology. */
static st_status grow(const clustering_engine *e, const adjacency *a, const unsigned *vor,
                      unsigned i, unsigned c, ulist *out, st_error *err)
{
    size_t head = out->n;
    ST_TRY(ulist_push(out, 0, err)); /* the size, written at the end */
    size_t first = out->n;
    ST_TRY(ulist_push(out, c, err));
    const double *x = e->position.r, *p = x + 3 * (size_t)c;
    size_t ring_lo = first, ring_hi = out->n; /* the ring grown last */
    while (ring_lo < ring_hi) {
        for (size_t r = ring_lo; r < ring_hi; r++) {
            unsigned v = out->v[r];
            for (size_t k = a->start[v]; k < a->start[v + 1]; k++) {
                unsigned w = a->nb[k];
                if ((vor[v] == i || dist(p, x + 3 * (size_t)w) < e->radius) &&
                    !ulist_has(out, first, w))
                    ST_TRY(ulist_push(out, w, err));
            }
        }
        ring_lo = ring_hi;
        ring_hi = out->n;
    }
    out->v[head] = (unsigned)(out->n - first);
    return ST_OK;
}

/* Clusters without a topology: every point within radius of a centre. */
static st_status by_radius(const clustering_engine *e, const unsigned *centres, size_t nc,
                           ulist *out, st_error *err)
{
    size_t n = e->position.n, nf = e->fixed_position.n;
    const double *x = e->position.r, *xf = e->fixed_position.r;
    ulist *cl = st_calloc(nc + 1, sizeof *cl);
    if (!cl)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    st_status st = ST_OK;
    for (size_t i = 0; i < nc && st == ST_OK; i++)
        st = ulist_push(&cl[i], centres[i], err);
    for (size_t j = 0; j < n && st == ST_OK; j++) {
        bool inserted = false;
        for (size_t i = 0; i < nc && st == ST_OK; i++)
            if (j != centres[i] && dist(x + 3 * j, x + 3 * (size_t)centres[i]) < e->radius) {
                st = ulist_push(&cl[i], (unsigned)j, err);
                inserted = true;
            }
        if (inserted || st != ST_OK)
            continue;
        double dmin = DBL_MAX;
        size_t imin = nc;
        for (size_t i = 0; i < nc; i++)
            if (j != centres[i]) {
                double d = dist(x + 3 * j, x + 3 * (size_t)centres[i]);
                if (d < dmin)
                    dmin = d, imin = i;
            }
        if (imin < nc)
            st = ulist_push(&cl[imin], (unsigned)j, err);
    }
    for (size_t j = 0; j < nf && st == ST_OK; j++)
        for (size_t i = 0; i < nc && st == ST_OK; i++)
            if (dist(xf + 3 * j, x + 3 * (size_t)centres[i]) < e->fixed_radius)
                st = ulist_push(&cl[i], (unsigned)(j + n), err);
    for (size_t i = 0; i < nc && st == ST_OK; i++) {
        st = ulist_push(out, (unsigned)cl[i].n, err);
        for (size_t k = 0; k < cl[i].n && st == ST_OK; k++)
            st = ulist_push(out, cl[i].v[k], err);
    }
    for (size_t i = 0; i < nc; i++)
        st_free(cl[i].v);
    st_free(cl);
    return st;
}

/* Reads inFile (true) when set and not read yet; false to compute. */
static st_status load(clustering_engine *e, bool *done, st_error *err)
{
    *done = false;
    if (!e->in_file || !e->in_file[0])
        return ST_OK;
    char path[4096];
    ST_TRY(st_component_find_file(&e->base, "inFile", e->in_file, path, sizeof path, err));
    if (e->loaded && !strcmp(e->loaded, path)) {
        *done = true;
        return ST_OK;
    }
    bool not_regular = false;
    int fd = regular_open(path, &not_regular);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        if (not_regular)
            return st_component_error(&e->base, "inFile", err, ST_EINVAL,
                                      "'%s' is not a regular file", path);
        return st_component_error(&e->base, "inFile", err, ST_EIO, "cannot open %s", path);
    }
    int use_topo = 0, number = 0;
    unsigned nb = 0;
    double r = 0, rf = 0;
    st_status st = ST_OK;
    if (fscanf(f, "%d %lf %lf %u %d", &use_topo, &r, &rf, &nb, &number) != 5)
        st = st_component_error(&e->base, "inFile", err, ST_EPARSE,
                                "%s: expected useTopo radius fixedRadius nbClusters number", path);
    ulist out = {0};
    for (unsigned i = 0; i < nb && st == ST_OK; i++) {
        unsigned m = 0;
        if (fscanf(f, "%u", &m) != 1) {
            st = st_component_error(&e->base, "inFile", err, ST_EPARSE,
                                    "%s: cluster %u: expected its size", path, i);
            break;
        }
        st = ulist_push(&out, m, err);
        for (unsigned k = 0; k < m && st == ST_OK; k++) {
            unsigned v = 0;
            if (fscanf(f, "%u", &v) != 1)
                st = st_component_error(&e->base, "inFile", err, ST_EPARSE,
                                        "%s: cluster %u: expected %u indices", path, i, m);
            else
                st = ulist_push(&out, v, err);
        }
    }
    fclose(f);
    if (st == ST_OK)
        st = st_array_resize(&e->cluster, ST_T_UINTS, out.n, err);
    if (st == ST_OK) {
        if (out.n)
            memcpy(e->cluster.u, out.v, out.n * sizeof *out.v);
        e->use_topo = use_topo != 0, e->radius = r, e->fixed_radius = rf, e->number = number;
        st_free(e->loaded);
        e->loaded = st_strdup(path);
        *done = true;
    }
    st_free(out.v);
    return st;
}

static st_status save(clustering_engine *e, size_t nclusters, st_error *err)
{
    if (!e->out_file || !e->out_file[0])
        return ST_OK;
    FILE *f = fopen(e->out_file, "w");
    if (!f)
        return st_component_error(&e->base, "outFile", err, ST_EIO, "cannot open %s",
                                  e->out_file);
    fprintf(f, "%d %.17g %.17g %zu %d \n", e->use_topo ? 1 : 0, e->radius, e->fixed_radius,
            nclusters, e->number);
    for (size_t at = 0; at < e->cluster.n;) {
        unsigned m = e->cluster.u[at++];
        fprintf(f, "%u ", m);
        for (unsigned k = 0; k < m && at < e->cluster.n; k++)
            fprintf(f, "%u ", e->cluster.u[at++]);
        fprintf(f, "\n");
    }
    return fclose(f) ? st_component_error(&e->base, "outFile", err, ST_EIO,
                                          "cannot write %s", e->out_file)
                     : ST_OK;
}

/* Links topologyEdges to the node's topology once (from update: links made
 * at init are resolved only later). */
static st_status link_topology(clustering_engine *e, st_error *err)
{
    st_component *self = &e->base;
    if (e->topo_linked)
        return ST_OK;
    e->topo_linked = true;
    if (!e->use_topo || st_component_is_set(self, "topologyEdges"))
        return ST_OK;
    st_component *topo = eng_local(self, ST_ROLE_TOPOLOGY);
    if (topo && st_component_field(topo, "edges"))
        ST_TRY(eng_link(self, "topologyEdges", topo, "edges", err));
    return st_component_update_inputs(self, err);
}

static st_status compute(clustering_engine *e, st_error *err)
{
    size_t n = e->position.n;
    bool topo = e->use_topo && e->edges.n > 0;
    adjacency a = {0};
    if (topo)
        ST_TRY(adj_build(&e->edges, n, &a, err));
    unsigned *centres = st_calloc(n + 1, sizeof *centres);
    unsigned *vor = st_calloc(n + 1, sizeof *vor);
    double *d = st_calloc(n + 1, sizeof *d);
    ulist out = {0};
    st_status st = ST_OK;
    size_t nc = 0;
    if (!centres || !vor || !d) {
        st = st_error_set(err, ST_ENOMEM, "out of memory");
        goto done;
    }
    if (e->number == -1) {
        for (size_t i = 0; i < n; i++)
            centres[i] = vor[i] = (unsigned)i;
        nc = n;
    } else if (n) {
        size_t want = e->number < 0 ? 0 : (size_t)e->number;
        if (want > n)
            want = n;
        for (size_t i = 0; i < n; i++)
            d[i] = DBL_MAX;
        centres[nc++] = 0;
        for (;;) {
            if (topo)
                st = dijkstra(e, &a, centres, nc, d, vor, err);
            else
                voronoi(e, centres, nc, d, vor);
            if (st != ST_OK || nc >= want)
                break;
            double dmax = 0;
            size_t imax = 0;
            for (size_t i = 0; i < n; i++)
                if (d[i] > dmax)
                    dmax = d[i], imax = i;
            if (dmax == 0)
                break;
            centres[nc++] = (unsigned)imax;
        }
    }
    if (st == ST_OK && topo) {
        for (size_t i = 0; i < nc && st == ST_OK; i++)
            st = grow(e, &a, vor, (unsigned)i, centres[i], &out, err);
    } else if (st == ST_OK) {
        st = by_radius(e, centres, nc, &out, err);
    }
    if (st == ST_OK)
        st = st_array_resize(&e->cluster, ST_T_UINTS, out.n, err);
    if (st == ST_OK && out.n)
        memcpy(e->cluster.u, out.v, out.n * sizeof *out.v);
    if (st == ST_OK)
        st = save(e, nc, err);
done:
    st_free(out.v);
    st_free(centres);
    st_free(vor);
    st_free(d);
    adj_free(&a);
    return st;
}

static st_status clustering_update(st_component *self, st_error *err)
{
    clustering_engine *e = (clustering_engine *)self;
    bool loaded = false;
    ST_TRY(load(e, &loaded, err));
    if (!loaded)
        ST_TRY(link_topology(e, err));
    return loaded ? ST_OK : compute(e, err);
}

static void clustering_cleanup(st_component *self)
{
    clustering_engine *e = (clustering_engine *)self;
    st_free(e->loaded);
    e->loaded = NULL;
}

static const st_engine_ops clustering_engine_ops = {
    .struct_size = sizeof(st_engine_ops),
    .update = clustering_update,
};

static const char *const clustering_templates[] = {"Vec3d", NULL};

const st_class clustering_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "ClusteringEngine",
    .category = "Engine",
    .description = "Group points into overlapping clusters according to a user defined number of "
                   "clusters and radius.",
    .instance_size = sizeof(clustering_engine),
    .fields = clustering_fields,
    .cleanup = clustering_cleanup,
    .engine = &clustering_engine_ops,
    .templates = clustering_templates,
};
