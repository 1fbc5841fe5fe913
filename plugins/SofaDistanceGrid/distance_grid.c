/* distance_grid.c - SOFA's DistanceGrid: building the signed distance field
 * (fast marching from a closed surface, or a cube), sampling its surface,
 * and evaluating it (trilinear interpolation and gradient). The arithmetic
 * follows SOFA's order of operations, so grids built from the same mesh
 * hold the same values. */
#define _POSIX_C_SOURCE 200809L
#include "distance_grid.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fast-marching status of a grid value: >= 0 its entry in the heap. */
enum { FMM_FAR = -1, FMM_KNOWN_OUT = -2, FMM_KNOWN_IN = -3 };

static int valid_dim(int n) { return n < 0 ? 0 : n; }

dgrid *dgrid_create(int nx, int ny, int nz, const double pmin[3], const double pmax[3])
{
    dgrid *g = st_calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->nx = valid_dim(nx), g->ny = valid_dim(ny), g->nz = valid_dim(nz);
    g->nxny = g->nx * g->ny;
    g->n = g->nxny * g->nz;
    g->dists = st_calloc((size_t)g->n + 1, sizeof *g->dists);
    if (!g->dists) {
        st_free(g);
        return NULL;
    }
    const int dims[3] = {g->nx, g->ny, g->nz};
    for (int c = 0; c < 3; c++) {
        g->pmin[c] = pmin[c], g->pmax[c] = pmax[c];
        g->cell[c] = (pmax[c] - pmin[c]) / (dims[c] - 1);
        g->inv_cell[c] = (dims[c] - 1) / (pmax[c] - pmin[c]);
        g->bbmin[c] = pmin[c], g->bbmax[c] = pmax[c];
    }
    return g;
}

void dgrid_free(dgrid *g)
{
    if (!g)
        return;
    st_free(g->dists);
    st_free(g->pts);
    st_free(g);
}

static void coord(const dgrid *g, int x, int y, int z, double p[3])
{
    p[0] = g->pmin[0] + x * g->cell[0];
    p[1] = g->pmin[1] + y * g->cell[1];
    p[2] = g->pmin[2] + z * g->cell[2];
}

static int axis_cell(const dgrid *g, const double p[3], int c)
{
    return (int)floor((p[c] - g->pmin[c]) * g->inv_cell[c]);
}

int dgrid_index(const dgrid *g, const double p[3], double coefs[3])
{
    const int dims[3] = {g->nx, g->ny, g->nz};
    int i[3];
    for (int c = 0; c < 3; c++) {
        coefs[c] = (p[c] - g->pmin[c]) * g->inv_cell[c];
        i[c] = (int)floor(coefs[c]);
        if (i[c] < 0)
            i[c] = 0;
        else if (i[c] >= dims[c] - 1)
            i[c] = dims[c] - 2;
        coefs[c] -= i[c];
    }
    return i[0] + g->nx * (i[1] + g->ny * i[2]);
}

static double lerp(double t, double a, double b) { return a + t * (b - a); }

static double interp_at(const dgrid *g, int i, const double k[3])
{
    const double *d = g->dists;
    const int nx = g->nx, nxny = g->nxny;
    return lerp(k[2],
                lerp(k[1], lerp(k[0], d[i], d[i + 1]), lerp(k[0], d[i + nx], d[i + 1 + nx])),
                lerp(k[1], lerp(k[0], d[i + nxny], d[i + 1 + nxny]),
                     lerp(k[0], d[i + nx + nxny], d[i + 1 + nx + nxny])));
}

static void grad_at(const dgrid *g, int i, const double k[3], double out[3])
{
    const double *d = g->dists;
    const int nx = g->nx, nxny = g->nxny;
    const double d000 = d[i], d100 = d[i + 1], d010 = d[i + nx], d110 = d[i + 1 + nx];
    const double d001 = d[i + nxny], d101 = d[i + 1 + nxny], d011 = d[i + nx + nxny],
                 d111 = d[i + 1 + nx + nxny];
    out[0] = lerp(k[2], lerp(k[1], d100 - d000, d110 - d010), lerp(k[1], d101 - d001, d111 - d011));
    out[1] = lerp(k[2], lerp(k[0], d010 - d000, d110 - d100), lerp(k[0], d011 - d001, d111 - d101));
    out[2] = lerp(k[1], lerp(k[0], d001 - d000, d101 - d100), lerp(k[0], d011 - d010, d111 - d110));
}

double dgrid_interp(const dgrid *g, const double p[3])
{
    double k[3];
    int i = dgrid_index(g, p, k);
    return interp_at(g, i, k);
}

void dgrid_grad(const dgrid *g, const double p[3], double out[3])
{
    double k[3];
    int i = dgrid_index(g, p, k);
    grad_at(g, i, k, out);
}

bool dgrid_in_bbox(const dgrid *g, const double p[3], double margin)
{
    for (int c = 0; c < 3; c++)
        if (p[c] < g->bbmin[c] - margin || p[c] > g->bbmax[c] + margin)
            return false;
    return true;
}

bool dgrid_in_grid(const dgrid *g, const double p[3])
{
    for (int c = 0; c < 3; c++) {
        double eps = g->cell[c] * 0.1;
        if (p[c] < g->pmin[c] + eps || p[c] > g->pmax[c] - eps)
            return false;
    }
    return true;
}

static void clamp(const dgrid *g, const double p[3], double out[3])
{
    for (int c = 0; c < 3; c++)
        out[c] = p[c] < g->pmin[c] ? g->pmin[c] : p[c] > g->pmax[c] ? g->pmax[c] : p[c];
}

static double dist2(const double a[3], const double b[3])
{
    double s = 0;
    for (int c = 0; c < 3; c++)
        s += (a[c] - b[c]) * (a[c] - b[c]);
    return s;
}

double dgrid_eval(const dgrid *g, const double p[3])
{
    if (dgrid_in_grid(g, p))
        return dgrid_interp(g, p);
    double q[3];
    clamp(g, p, q);
    double d = dgrid_interp(g, q);
    return sqrt(dist2(p, q) + d * d);
}

static double quick(const dgrid *g, const double p[3])
{
    double k[3];
    return g->dists[dgrid_index(g, p, k)] - g->cell[0];
}

double dgrid_quickeval(const dgrid *g, const double p[3])
{
    if (dgrid_in_grid(g, p))
        return quick(g, p);
    double q[3];
    clamp(g, p, q);
    double d = quick(g, q);
    return sqrt(dist2(p, q) + d * d);
}

double dgrid_eval2(const dgrid *g, const double p[3])
{
    if (dgrid_in_grid(g, p)) {
        double d = dgrid_interp(g, p);
        return d * d;
    }
    double q[3];
    clamp(g, p, q);
    double d = dgrid_interp(g, q);
    return dist2(p, q) + d * d;
}

double dgrid_quickeval2(const dgrid *g, const double p[3])
{
    if (dgrid_in_grid(g, p)) {
        double d = quick(g, p);
        return d * d;
    }
    double q[3];
    clamp(g, p, q);
    double d = quick(g, q);
    return dist2(p, q) + d * d;
}

void dgrid_compute_bbox(dgrid *g)
{
    if (g->npts == 0) {
        memcpy(g->bbmin, g->pmin, sizeof g->bbmin);
        memcpy(g->bbmax, g->pmax, sizeof g->bbmax);
        return;
    }
    memcpy(g->bbmin, g->pts, sizeof g->bbmin);
    memcpy(g->bbmax, g->pts, sizeof g->bbmax);
    /* SOFA's loop: a coordinate below the minimum is not compared with the
     * maximum (the same box for any point set whose first point is not an
     * extreme of both) */
    for (size_t i = 1; i < g->npts; i++)
        for (int c = 0; c < 3; c++) {
            double v = g->pts[3 * i + c];
            if (v < g->bbmin[c])
                g->bbmin[c] = v;
            else if (v > g->bbmax[c])
                g->bbmax[c] = v;
        }
}

st_status dgrid_calc_cube(dgrid *g, double dim, int np, st_error *err)
{
    g->cube_dim = dim;
    if (np > 1) {
        size_t nbp = (size_t)(np * np * np - (np - 2) * (np - 2) * (np - 2));
        double *pts = st_malloc(3 * nbp * sizeof *pts);
        if (!pts)
            return st_error_set(err, ST_ENOMEM, "out of memory for %zu cube points", nbp);
        st_free(g->pts);
        g->pts = pts, g->npts = nbp;
        size_t i = 0;
        for (int z = 0; z < np; z++)
            for (int y = 0; y < np; y++)
                for (int x = 0; x < np; x++)
                    if (z == 0 || z == np - 1 || y == 0 || y == np - 1 || x == 0 || x == np - 1) {
                        pts[3 * i + 0] = x * dim * 2 / (np - 1) - dim;
                        pts[3 * i + 1] = y * dim * 2 / (np - 1) - dim;
                        pts[3 * i + 2] = z * dim * 2 / (np - 1) - dim;
                        i++;
                    }
    }
    const double dim2 = dim;
    for (int i = 0, z = 0; z < g->nz; z++)
        for (int y = 0; y < g->ny; y++)
            for (int x = 0; x < g->nx; x++, i++) {
                double p[3], s[3];
                coord(g, x, y, z, p);
                memcpy(s, p, sizeof s);
                bool out = false;
                for (int c = 0; c < 3; c++) {
                    if (s[c] < -dim2)
                        s[c] = -dim2, out = true;
                    else if (s[c] > dim2)
                        s[c] = dim2, out = true;
                }
                double d;
                if (out)
                    d = sqrt(dist2(p, s));
                else
                    d = fmax(fmax(fabs(s[0]), fabs(s[1])), fabs(s[2])) - dim2;
                g->dists[i] = d - (dim - dim2);
            }
    for (int c = 0; c < 3; c++)
        g->bbmin[c] = -dim, g->bbmax[c] = dim;
    return ST_OK;
}

/* ---- fast marching ---- */

typedef struct fmm {
    dgrid *g;
    int *status;   /* per value: FMM_* or its heap entry */
    int *heap;     /* value indices, a binary min-heap on the distances */
    int size;
} fmm;

static void fmm_swap(fmm *f, int e1, int e2)
{
    int i1 = f->heap[e1], i2 = f->heap[e2];
    f->heap[e1] = i2, f->heap[e2] = i1;
    f->status[i1] = e2, f->status[i2] = e1;
}

/* Moves entry i down while a child is smaller (SOFA's sift). */
static void fmm_down(fmm *f, int i, double phi)
{
    const double *d = f->g->dists;
    while (i * 2 + 1 < f->size) {
        double phi1 = d[f->heap[i * 2 + 1]];
        if (i * 2 + 2 < f->size) {
            double phi2 = d[f->heap[i * 2 + 2]];
            if (phi1 < phi) {
                if (phi1 < phi2)
                    fmm_swap(f, i, i * 2 + 1), i = i * 2 + 1;
                else
                    fmm_swap(f, i, i * 2 + 2), i = i * 2 + 2;
            } else if (phi2 < phi)
                fmm_swap(f, i, i * 2 + 2), i = i * 2 + 2;
            else
                break;
        } else if (phi1 < phi)
            fmm_swap(f, i, i * 2 + 1), i = i * 2 + 1;
        else
            break;
    }
}

static int fmm_pop(fmm *f)
{
    int res = f->heap[0];
    --f->size;
    if (f->size > 0) {
        fmm_swap(f, 0, f->size);
        fmm_down(f, 0, f->g->dists[f->heap[0]]);
    }
    return res;
}

static void fmm_push(fmm *f, int index)
{
    const double *d = f->g->dists;
    double phi = d[index];
    int i;
    if (f->status[index] >= 0) {
        i = f->status[index];
        while (i > 0 && phi < d[f->heap[(i - 1) / 2]])
            fmm_swap(f, i, (i - 1) / 2), i = (i - 1) / 2;
        fmm_down(f, i, phi);
    } else {
        i = f->size++;
        f->heap[i] = index;
        f->status[index] = i;
        while (i > 0 && phi < d[f->heap[(i - 1) / 2]])
            fmm_swap(f, i, (i - 1) / 2), i = (i - 1) / 2;
    }
}

/* u, v: the two axes of the plane the point is projected on. */
static bool point_in_triangle(int u, int v, const double p[3], const double p0[3],
                              const double p1[3], const double p2[3])
{
    double u0 = p[u] - p0[u], v0 = p[v] - p0[v];
    double u1 = p1[u] - p0[u], v1 = p1[v] - p0[v];
    double u2 = p2[u] - p0[u], v2 = p2[v] - p0[v];
    double alpha, beta;
    if (u1 == 0) {
        beta = u0 / u2;
        if (beta < 0 || beta > 1)
            return false;
        alpha = (v0 - beta * v2) / v1;
        if (alpha < 0 || (alpha + beta) > 1)
            return false;
    } else {
        beta = (v0 * u1 - u0 * v1) / (v2 * u1 - u2 * v1);
        if (beta < 0 || beta > 1)
            return false;
        alpha = (u0 - beta * u2) / u1;
        if (alpha < 0 || (alpha + beta) > 1)
            return false;
    }
    return true;
}

/* The grid edge from value ind along axis c (to ind2) crosses the plane of
 * the triangle at dist1 from ind: both ends get their distance to it, the
 * end on the normal's side outside. */
static void cross_edge(fmm *f, const double pos[3], const double n[3], double dist, int c,
                       int ind, int ind2, const double *p0, const double *p1, const double *p2)
{
    static const int uv[3][2] = {{1, 2}, {2, 0}, {0, 1}};
    dgrid *g = f->g;
    if (!(fabs(n[c]) > 1e-6))
        return;
    double dist1 = -dist / n[c];
    if (!(dist1 >= -0.01 * g->cell[c] && dist1 <= 1.01 * g->cell[c]))
        return;
    if (!point_in_triangle(uv[c][0], uv[c][1], pos, p0, p1, p2))
        return;
    double dist2 = g->cell[c] - dist1;
    int s1 = n[c] < 0 ? FMM_KNOWN_OUT : FMM_KNOWN_IN;
    int s2 = n[c] < 0 ? FMM_KNOWN_IN : FMM_KNOWN_OUT;
    if (dist1 < g->dists[ind])
        g->dists[ind] = dist1, f->status[ind] = s1;
    if (dist2 < g->dists[ind2])
        g->dists[ind2] = dist2, f->status[ind2] = s2;
}

static void scaled(const double *v, unsigned i, double scale, double out[3])
{
    for (int c = 0; c < 3; c++)
        out[c] = v[3 * (size_t)i + c] * scale;
}

static void init_triangle(fmm *f, const double p0[3], const double p1[3], const double p2[3])
{
    dgrid *g = f->g;
    double bbmin[3], bbmax[3];
    memcpy(bbmin, p0, sizeof bbmin);
    memcpy(bbmax, p0, sizeof bbmax);
    for (int c = 0; c < 3; c++) {
        if (p1[c] < bbmin[c])
            bbmin[c] = p1[c];
        else if (p1[c] > bbmax[c])
            bbmax[c] = p1[c];
    }
    for (int c = 0; c < 3; c++) {
        if (p2[c] < bbmin[c])
            bbmin[c] = p2[c];
        else if (p2[c] > bbmax[c])
            bbmax[c] = p2[c];
    }
    double e1[3], e2[3], n[3];
    for (int c = 0; c < 3; c++)
        e1[c] = p1[c] - p0[c], e2[c] = p2[c] - p0[c];
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (len > DBL_EPSILON) /* SOFA's Vec::normalize leaves a tiny vector as it is */
        n[0] /= len, n[1] /= len, n[2] /= len;
    double d = -(p0[0] * n[0] + p0[1] * n[1] + p0[2] * n[2]);
    const int dims[3] = {g->nx, g->ny, g->nz};
    int lo[3], hi[3];
    for (int c = 0; c < 3; c++) {
        lo[c] = axis_cell(g, bbmin, c) - 1;
        if (lo[c] < 0)
            lo[c] = 0;
        hi[c] = axis_cell(g, bbmax, c) + 2;
        if (hi[c] >= dims[c])
            hi[c] = dims[c] - 1;
    }
    for (int z = lo[2]; z < hi[2]; z++)
        for (int y = lo[1]; y < hi[1]; y++)
            for (int x = lo[0]; x < hi[0]; x++) {
                double pos[3];
                coord(g, x, y, z, pos);
                int ind = x + g->nx * (y + g->ny * z);
                double dist = pos[0] * n[0] + pos[1] * n[1] + pos[2] * n[2] + d;
                cross_edge(f, pos, n, dist, 0, ind, ind + 1, p0, p1, p2);
                cross_edge(f, pos, n, dist, 1, ind, ind + g->nx, p0, p1, p2);
                cross_edge(f, pos, n, dist, 2, ind, ind + g->nxny, p0, p1, p2);
            }
}

/* A far value next to a known one gets dist2 when smaller, and enters the
 * front. */
static void relax(fmm *f, int ind2, double dist2)
{
    if (f->status[ind2] >= FMM_FAR && f->g->dists[ind2] > dist2) {
        f->g->dists[ind2] = dist2;
        fmm_push(f, ind2);
    }
}

st_status dgrid_calc_distance(dgrid *g, const double *v, const unsigned *idx,
                              const size_t *start, size_t nf, double scale, st_error *err)
{
    fmm f = {.g = g};
    f.status = st_malloc(((size_t)g->n + 1) * sizeof *f.status);
    f.heap = st_malloc(((size_t)g->n + 1) * sizeof *f.heap);
    if (!f.status || !f.heap) {
        st_free(f.status), st_free(f.heap);
        return st_error_set(err, ST_ENOMEM, "out of memory for a %dx%dx%d distance grid", g->nx,
                            g->ny, g->nz);
    }
    for (int i = 0; i < g->n; i++)
        f.status[i] = FMM_FAR, g->dists[i] = DBL_MAX;
    /* the grid edges crossing each triangle (facets cut in fans) */
    for (size_t i = 0; i < nf; i++) {
        size_t b = start[i], e = start[i + 1];
        double p0[3], p1[3], p2[3];
        if (e - b < 3)
            continue;
        scaled(v, idx[b], scale, p0);
        for (size_t k = b + 2; k < e; k++) {
            scaled(v, idx[k - 1], scale, p1);
            scaled(v, idx[k], scale, p2);
            init_triangle(&f, p0, p1, p2);
        }
    }
    /* the first front: the neighbours of the known values. SOFA tests x > 0
     * for every neighbour (not only the one at x - 1): kept, so that the
     * values are SOFA's. */
    for (int z = 0, ind = 0; z < g->nz; z++)
        for (int y = 0; y < g->ny; y++)
            for (int x = 0; x < g->nx; x++, ind++) {
                if (f.status[ind] >= FMM_FAR || x == 0)
                    continue;
                double d1 = g->dists[ind];
                relax(&f, ind - 1, d1 + g->cell[0]);
                if (x < g->nx - 1)
                    relax(&f, ind + 1, d1 + g->cell[0]);
                if (y > 0)
                    relax(&f, ind - g->nx, d1 + g->cell[1]);
                if (y < g->ny - 1)
                    relax(&f, ind + g->nx, d1 + g->cell[1]);
                if (z > 0)
                    relax(&f, ind - g->nxny, d1 + g->cell[2]);
                if (z < g->nz - 1)
                    relax(&f, ind + g->nxny, d1 + g->cell[2]);
            }
    /* the march: the nearest front value becomes known, inside when most
     * of its known neighbours are */
    while (f.size > 0) {
        int ind = fmm_pop(&f);
        int x = ind % g->nx, y = (ind / g->nx) % g->ny, z = ind / g->nxny;
        int nbin = 0, nbout = 0;
        const double d1 = g->dists[ind];
        const int nb[6] = {x > 0 ? ind - 1 : -1,
                           x < g->nx - 1 ? ind + 1 : -1,
                           y > 0 ? ind - g->nx : -1,
                           y < g->ny - 1 ? ind + g->nx : -1,
                           z > 0 ? ind - g->nxny : -1,
                           z < g->nz - 1 ? ind + g->nxny : -1};
        for (int k = 0; k < 6; k++) {
            int ind2 = nb[k];
            if (ind2 < 0)
                continue;
            double dist2 = d1 + g->cell[k / 2];
            if (f.status[ind2] < FMM_FAR) {
                if (f.status[ind2] == FMM_KNOWN_IN)
                    ++nbin;
                else
                    ++nbout;
            } else if (g->dists[ind2] > dist2) {
                g->dists[ind2] = dist2;
                fmm_push(&f, ind2);
            }
        }
        f.status[ind] = nbin > nbout ? FMM_KNOWN_IN : FMM_KNOWN_OUT;
    }
    for (int i = 0; i < g->n; i++)
        if (f.status[i] == FMM_KNOWN_IN)
            g->dists[i] = -g->dists[i];
    st_free(f.status);
    st_free(f.heap);
    return ST_OK;
}

/* ---- surface sampling ---- */

static void normalize(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > DBL_EPSILON)
        v[0] /= l, v[1] /= l, v[2] /= l;
}

typedef struct ptbuf {
    double *p;
    size_t n, cap;
} ptbuf;

static st_status ptbuf_add(ptbuf *b, const double p[3], st_error *err)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        double *np = st_realloc(b->p, 3 * cap * sizeof *np);
        if (!np)
            return st_error_set(err, ST_ENOMEM, "out of memory for %zu sample points", cap);
        b->p = np, b->cap = cap;
    }
    memcpy(b->p + 3 * b->n++, p, 3 * sizeof *p);
    return ST_OK;
}

/* Pushes pos (distance d, gradient n there) onto the surface along the
 * gradient, up to 10 steps; false when it did not converge (SOFA's loop). */
static bool project(const dgrid *g, double pos[3], double n[3], double d, double maxd)
{
    normalize(n);
    for (int c = 0; c < 3; c++)
        pos[c] -= n[c] * (d * 0.99);
    d = dgrid_interp(g, pos);
    int it = 1;
    while (fabs(d) > 0.01 * maxd && it < 10) {
        dgrid_grad(g, pos, n);
        normalize(n);
        for (int c = 0; c < 3; c++)
            pos[c] -= n[c] * (d * 0.99);
        d = dgrid_interp(g, pos);
        ++it;
    }
    return !(it == 10 && fabs(d) > 0.1 * maxd);
}

st_status dgrid_sample_surface(dgrid *g, double sampling, st_error *err)
{
    ptbuf b = {0};
    st_status st = ST_OK;
    if (sampling <= -1.0 && sampling == floor(sampling)) {
        int step = (int)(-sampling);
        double maxd = sqrt((g->cell[0] * step) * (g->cell[0] * step) +
                           (g->cell[1] * step) * (g->cell[1] * step) +
                           (g->cell[2] * step) * (g->cell[2] * step));
        for (int z = 1; st == ST_OK && z < g->nz - 1; z += step)
            for (int y = 1; st == ST_OK && y < g->ny - 1; y += step)
                for (int x = 1; st == ST_OK && x < g->nx - 1; x += step) {
                    int ind = x + g->nx * (y + g->ny * z);
                    double d = g->dists[ind];
                    if (fabs(d) > maxd)
                        continue;
                    double pos[3], n[3];
                    const double zero[3] = {0, 0, 0};
                    coord(g, x, y, z, pos);
                    grad_at(g, ind, zero, n);
                    if (!project(g, pos, n, d, maxd))
                        continue;
                    st = ptbuf_add(&b, pos, err);
                }
    } else {
        if (sampling < 0)
            sampling = g->cell[0] * (-sampling);
        double maxd = sqrt(3.0) * sampling;
        int ns[3];
        double p0[3];
        for (int c = 0; c < 3; c++)
            ns[c] = (int)ceil((g->pmax[c] - g->pmin[c]) / sampling);
        for (int c = 0; c < 3; c++)
            p0[c] = g->pmin[c] + ((g->pmax[c] - g->pmin[c]) - ns[c] * sampling) * 0.5;
        for (int z = 0; st == ST_OK && z <= ns[2]; z++)
            for (int y = 0; st == ST_OK && y <= ns[1]; y++)
                for (int x = 0; st == ST_OK && x <= ns[0]; x++) {
                    double pos[3] = {p0[0] + x * sampling, p0[1] + y * sampling,
                                     p0[2] + z * sampling};
                    if (!dgrid_in_grid(g, pos))
                        continue;
                    double d = dgrid_interp(g, pos);
                    if (fabs(d) > maxd)
                        continue;
                    double n[3];
                    dgrid_grad(g, pos, n);
                    if (!project(g, pos, n, d, maxd))
                        continue;
                    st = ptbuf_add(&b, pos, err);
                }
    }
    if (st != ST_OK) {
        st_free(b.p);
        return st;
    }
    st_free(g->pts);
    g->pts = b.p, g->npts = b.n;
    return ST_OK;
}

/* ---- files ---- */

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

typedef struct objmesh {
    double *v;
    size_t nv, capv;
    unsigned *idx;
    size_t nidx, capidx;
    size_t *start;
    size_t nf, capf;
} objmesh;

static void objmesh_free(objmesh *m)
{
    st_free(m->v), st_free(m->idx), st_free(m->start);
}

static st_status grow(void **p, size_t *cap, size_t need, size_t size, st_error *err)
{
    if (need <= *cap)
        return ST_OK;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *np = st_realloc(*p, c * size);
    if (!np)
        return st_error_set(err, ST_ENOMEM, "out of memory reading a mesh");
    *p = np, *cap = c;
    return ST_OK;
}

/* SOFA's Mesh::Create for ".obj" as the distance grid reads it: the "v"
 * lines' positions and the "f" lines' polygons (first number of each
 * "v/vt/vn" corner; negative: from the end), in file order. */
static st_status read_obj(const char *path, objmesh *m, st_error *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return st_error_set(err, ST_EIO, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    st_status st = ST_OK;
    ssize_t len;
    unsigned *face = NULL;
    size_t nface = 0, capface = 0;
    while (st == ST_OK && (len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (s[0] == 'v' && (s[1] == ' ' || s[1] == '\t')) {
            double p[3];
            char *e = s + 1;
            for (int c = 0; c < 3; c++) {
                char *q;
                p[c] = strtod(e, &q);
                if (q == e || !isfinite(p[c])) {
                    st = st_error_set(err, ST_EPARSE, "%s:%ld: expected 3 numbers after 'v'",
                                      path, lineno);
                    break;
                }
                e = q;
            }
            if (st == ST_OK && (st = grow((void **)&m->v, &m->capv, 3 * (m->nv + 1),
                                          sizeof *m->v, err)) == ST_OK)
                memcpy(m->v + 3 * m->nv++, p, sizeof p);
        } else if (s[0] == 'f' && (s[1] == ' ' || s[1] == '\t')) {
            char *e = s + 1;
            nface = 0;
            for (;;) {
                while (*e == ' ' || *e == '\t' || *e == '\r' || *e == '\n')
                    e++;
                if (!*e)
                    break;
                char *q;
                long k = strtol(e, &q, 10);
                if (q == e || k == 0) {
                    st = st_error_set(err, ST_EPARSE, "%s:%ld: bad face corner '%.20s'", path,
                                      lineno, e);
                    break;
                }
                long vi = k > 0 ? k - 1 : (long)m->nv + k;
                if (vi < 0 || (size_t)vi >= m->nv) {
                    st = st_error_set(err, ST_EPARSE,
                                      "%s:%ld: face corner %ld names no vertex (%zu so far)",
                                      path, lineno, k, m->nv);
                    break;
                }
                if ((st = grow((void **)&face, &capface, nface + 1, sizeof *face, err)) != ST_OK)
                    break;
                face[nface++] = (unsigned)vi;
                e = q;
                while (*e && *e != ' ' && *e != '\t' && *e != '\r' && *e != '\n')
                    e++; /* the "/vt/vn" part */
            }
            if (st != ST_OK)
                break;
            if ((st = grow((void **)&m->idx, &m->capidx, m->nidx + nface, sizeof *m->idx,
                           err)) != ST_OK ||
                (st = grow((void **)&m->start, &m->capf, m->nf + 2, sizeof *m->start, err)) !=
                    ST_OK)
                break;
            if (m->nf == 0)
                m->start[0] = 0;
            memcpy(m->idx + m->nidx, face, nface * sizeof *face);
            m->nidx += nface;
            m->start[++m->nf] = m->nidx;
        }
    }
    st_free(face);
    free(line);
    if (st == ST_OK && ferror(fp))
        st = st_error_set(err, ST_EIO, "%s: read error", path);
    fclose(fp);
    return st;
}

static st_status box_and_grid(const double *pts, size_t npts, double absscale, double sampling,
                              int nx, int ny, int nz, const double pmin_in[3],
                              const double pmax_in[3], dgrid **out, st_error *err)
{
    double bbmin[3] = {0, 0, 0}, bbmax[3] = {0, 0, 0}, pmin[3], pmax[3];
    (void)sampling;
    if (npts) {
        memcpy(bbmin, pts, sizeof bbmin);
        memcpy(bbmax, pts, sizeof bbmax);
        for (size_t i = 1; i < npts; i++)
            for (int c = 0; c < 3; c++) {
                if (pts[3 * i + c] < bbmin[c])
                    bbmin[c] = pts[3 * i + c];
                else if (pts[3 * i + c] > bbmax[c])
                    bbmax[c] = pts[3 * i + c];
            }
        for (int c = 0; c < 3; c++)
            bbmin[c] *= absscale, bbmax[c] *= absscale;
    }
    memcpy(pmin, pmin_in, sizeof pmin);
    memcpy(pmax, pmax_in, sizeof pmax);
    if (pmin[0] <= pmax[0]) {
        for (int c = 0; c < 3; c++) {
            double margin = (bbmax[c] - bbmin[c]) * 0.1;
            pmin[c] = bbmin[c] - margin;
            pmax[c] = bbmax[c] + margin;
        }
    } else if (npts) {
        for (int c = 0; c < 3; c++) {
            if (bbmin[c] < pmin[c])
                pmin[c] = bbmin[c];
            if (bbmax[c] > pmax[c])
                pmax[c] = bbmax[c];
        }
    }
    *out = dgrid_create(nx, ny, nz, pmin, pmax);
    if (!*out)
        return st_error_set(err, ST_ENOMEM, "out of memory for a %dx%dx%d distance grid", nx, ny,
                            nz);
    return ST_OK;
}

st_status dgrid_load(const char *path, double scale, double sampling, int nx, int ny, int nz,
                     const double pmin[3], const double pmax[3], dgrid **out, st_error *err)
{
    *out = NULL;
    if (nx < 2 || ny < 2 || nz < 2)
        return st_error_set(err, ST_EINVAL,
                            "a distance grid needs at least 2 values along each axis, not "
                            "%d x %d x %d",
                            nx, ny, nz);
    const double absscale = fabs(scale);
    dgrid *g = NULL;
    st_status st = ST_OK;
    if (strcmp(path, "#cube") == 0) {
        double dim = (float)scale;
        const double cube[6] = {-dim, -dim, -dim, dim, dim, dim};
        ST_TRY(box_and_grid(cube, 2, 1.0, sampling, nx, ny, nz, pmin, pmax, &g, err));
        st = dgrid_calc_cube(g, dim, 5, err);
    } else if (has_suffix(path, ".raw")) {
        g = dgrid_create(nx, ny, nz, pmin, pmax);
        if (!g)
            return st_error_set(err, ST_ENOMEM, "out of memory for a %dx%dx%d distance grid", nx,
                                ny, nz);
        FILE *fp = fopen(path, "rb");
        if (!fp)
            st = st_error_set(err, ST_EIO, "%s: cannot open: %s", path, strerror(errno));
        else {
            size_t got = fread(g->dists, sizeof *g->dists, (size_t)g->n, fp);
            fclose(fp);
            if (got != (size_t)g->n)
                st = st_error_set(err, ST_EPARSE,
                                  "%s: holds %zu doubles, a %dx%dx%d grid needs %d", path, got,
                                  nx, ny, nz, g->n);
            for (int i = 0; st == ST_OK && i < g->n; i++) {
                if (!isfinite(g->dists[i]))
                    st = st_error_set(err, ST_EPARSE, "%s: value %d is not a finite number",
                                      path, i);
                else if (scale != 1.0)
                    g->dists[i] *= (float)scale;
            }
            if (st == ST_OK)
                dgrid_compute_bbox(g);
        }
    } else if (has_suffix(path, ".obj")) {
        objmesh m = {0};
        st = read_obj(path, &m, err);
        if (st == ST_OK)
            st = box_and_grid(m.v, m.nv, absscale, sampling, nx, ny, nz, pmin, pmax, &g, err);
        if (st == ST_OK)
            st = dgrid_calc_distance(g, m.v, m.idx, m.start, m.nf, scale, err);
        if (st == ST_OK && !sampling && m.nv) {
            g->pts = st_malloc(3 * m.nv * sizeof *g->pts);
            if (!g->pts)
                st = st_error_set(err, ST_ENOMEM, "out of memory for %zu mesh points", m.nv);
            else {
                for (size_t i = 0; i < 3 * m.nv; i++)
                    g->pts[i] = m.v[i] * absscale;
                g->npts = m.nv;
            }
        }
        objmesh_free(&m);
    } else {
        return st_error_set(err, ST_EINVAL,
                            "%s: unknown distance grid file type (expected .obj, .raw or "
                            "#cube; SOFA's .vtk and .fmesh are not read)",
                            path);
    }
    if (st == ST_OK && sampling)
        st = dgrid_sample_surface(g, sampling, err);
    if (st == ST_OK && !has_suffix(path, ".raw") && strcmp(path, "#cube") != 0)
        dgrid_compute_bbox(g);
    if (st != ST_OK) {
        dgrid_free(g);
        return st;
    }
    *out = g;
    return ST_OK;
}
