/* topology_common.c - code shared by the Topology plugin's containers: grid
 * geometry and element lists in SOFA's orderings, derivation of missing
 * lists as SOFA's MeshTopology derives them, copying from a loader, and the
 * st_topology_ops every container implements. */
#include <limits.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "topology.h"
#include "../IO.Mesh/mesh_loader.h"

/* ---- small helpers ---- */

st_status topo_push(st_array *a, st_type type, const unsigned *v, st_error *err)
{
    unsigned w = st_type_width(type);
    if (a->n == a->cap || a->cap == 0) {
        /* Grow geometrically; st_array_resize keeps contents and zero-fills. */
        size_t n = a->n;
        size_t want = a->cap ? 2 * a->cap : 64;
        if (want < n + 1)
            want = n + 1;
        ST_TRY(st_array_resize(a, type, want, err));
        a->n = n;
    }
    memcpy(a->u + a->n * w, v, w * sizeof(unsigned));
    a->n++;
    return ST_OK;
}

/* Sets a's length to n tuples (growing storage when needed). */
static st_status arr_set_len(st_array *a, st_type type, size_t n, st_error *err)
{
    return st_array_resize(a, type, n, err);
}

void topo_sort_small(unsigned *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        unsigned k = v[i], j = i;
        while (j > 0 && v[j - 1] > k) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = k;
    }
}

static const st_field *field_of(topo *t, const char *name)
{
    return st_component_field(&t->base, name);
}

static void touch(topo *t, const char *name)
{
    const st_field *f = field_of(t, name);
    if (f)
        st_component_touch(&t->base, f);
}

/* ---- grids ---- */

/* The vec3 `n` holds three integers an int can store. */
static bool grid_n_integral(const double *n)
{
    for (int a = 0; a < 3; a++)
        if (!isfinite(n[a]) || n[a] != floor(n[a]) || fabs(n[a]) > INT_MAX)
            return false;
    return true;
}

/* The machine's physical memory in bytes, or 0 when unknown. */
static double physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

st_status topo_grid_check(topo *t, st_error *err)
{
    st_component *self = &t->base;
    bool ints = st_component_is_set(self, "nx") && st_component_is_set(self, "ny") &&
                st_component_is_set(self, "nz");
    if (!ints && !grid_n_integral(t->n))
        return st_component_error(self, "n", err, ST_EINVAL,
                                  "n must hold three integers between 1 and %d (grid resolution "
                                  "per axis), got %g %g %g",
                                  INT_MAX, t->n[0], t->n[1], t->n[2]);
    grid_geom g;
    topo_grid_geom(t, &g);
    double n0 = g.n[0], n1 = g.n[1], n2 = g.n[2];
    double points = n0 * n1 * n2, cells = (n0 - 1) * (n1 - 1) * (n2 - 1);
    /* Points (3 reals), hexahedra (8 indices), about 3 quads (4) and 3 edges
     * (2) per point: what the lists alone take, before any state vector. */
    double bytes = points * (3 * 8 + 3 * 16 + 3 * 8) + cells * 32;
    double mem = physical_memory();
    const char *field = ints ? "nx" : "n";
    if (points > (double)UINT_MAX)
        return st_component_error(self, field, err, ST_EINVAL,
                                  "a %d x %d x %d grid has %.4g points; point indices are 32-bit "
                                  "(at most %u points)",
                                  g.n[0], g.n[1], g.n[2], points, UINT_MAX);
    if (mem > 0 && bytes > mem)
        return st_component_error(self, field, err, ST_ENOMEM,
                                  "a %d x %d x %d grid needs at least %.3g GB for its element "
                                  "lists alone; this machine has %.3g GB of memory",
                                  g.n[0], g.n[1], g.n[2], bytes / 1e9, mem / 1e9);
    return ST_OK;
}

void topo_grid_geom(topo *t, grid_geom *g)
{
    st_component *c = &t->base;
    int n[3];
    if (st_component_is_set(c, "nx") && st_component_is_set(c, "ny") &&
        st_component_is_set(c, "nz")) {
        n[0] = t->nx;
        n[1] = t->ny;
        n[2] = t->nz;
    } else if (!grid_n_integral(t->n)) {
        n[0] = n[1] = n[2] = 2; /* refused by topo_grid_check at init */
    } else {
        for (int a = 0; a < 3; a++)
            n[a] = (int)t->n[a];
    }
    if (n[0] < 1 || n[1] < 1 || n[2] < 1) {
        if (!t->grid_warned) {
            t->grid_warned = true;
            st_component_warn(c,
                              "The grid resolution: [%d; %d; %d] is outside the validity range "
                              "(every value >= 1). Continuing with default value=[2; 2; 2].",
                              n[0], n[1], n[2]);
        }
        n[0] = n[1] = n[2] = 2;
    }
    memcpy(g->n, n, sizeof n);
    memset(g->d, 0, sizeof g->d);
    memset(g->p0, 0, sizeof g->p0);
    if (t->kind != TOPO_REGULAR_GRID)
        return;

    double lo[3], hi[3];
    if (st_component_is_set(c, "xmin") && st_component_is_set(c, "ymin") &&
        st_component_is_set(c, "zmin") && st_component_is_set(c, "xmax") &&
        st_component_is_set(c, "ymax") && st_component_is_set(c, "zmax")) {
        /* SOFA reads these attributes as float, then multiplies by the float scale. */
        double s = st_float_round(t->scale);
        const double v[6] = {t->xmin, t->ymin, t->zmin, t->xmax, t->ymax, t->zmax};
        for (int a = 0; a < 3; a++) {
            lo[a] = st_float_round(v[a]) * s;
            hi[a] = st_float_round(v[3 + a]) * s;
        }
    } else {
        for (int a = 0; a < 3; a++) {
            lo[a] = t->min[a];
            hi[a] = t->max[a];
        }
    }
    double p0[3] = {lo[0], lo[1], lo[2]};
    for (int a = 0; a < 3; a++) {
        int m = n[a] - 1;
        if (m > 0) {
            g->d[a][a] = (hi[a] - lo[a]) / m;
        } else {
            g->d[a][a] = hi[a] - lo[a];
            /* x and y are centred; z stays at zmin (as SOFA does). */
            p0[a] = a < 2 ? (hi[a] + lo[a]) / 2 : lo[a];
        }
    }
    if (st_component_is_set(c, "p0"))
        memcpy(g->p0, t->p0, sizeof g->p0);
    else
        memcpy(g->p0, p0, sizeof p0);
}

static void grid_point(const grid_geom *g, size_t idx, double p[3])
{
    size_t nx = (size_t)g->n[0], ny = (size_t)g->n[1];
    double i = (double)(idx % nx), j = (double)((idx / nx) % ny), k = (double)(idx / (nx * ny));
    for (int a = 0; a < 3; a++) {
        double v = g->p0[a] + g->d[0][a] * i;
        v = v + g->d[1][a] * j;
        v = v + g->d[2][a] * k;
        p[a] = v;
    }
}

bool topo_is_grid(const topo *t)
{
    return t->kind == TOPO_GRID || t->kind == TOPO_REGULAR_GRID ||
           t->kind == TOPO_CYLINDER_GRID || t->kind == TOPO_SPHERE_GRID;
}

static void cross3(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static void normalize3(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 1e-300)
        for (int a = 0; a < 3; a++)
            v[a] /= l;
}

/* SOFA's CylinderGridTopology and SphereGridTopology getPointInGrid: the
 * frame Z = axis, X = (1,0,0) (or (0,1,0) when the axis is x), Y = Z x X,
 * X = Y x Z, all normalised; the point (i, j) of a square of half-width r
 * (and k of a cube for the sphere) is scaled by max |component| / |p|
 * onto the circle (sphere) through it; the cylinder puts k at k l / (nz-1)
 * along the axis. */
static void curved_point(const topo *t, const grid_geom *g, size_t idx, double out[3])
{
    size_t nx = (size_t)g->n[0], ny = (size_t)g->n[1];
    int i = (int)(idx % nx), j = (int)((idx / nx) % ny), k = (int)(idx / (nx * ny));
    double r = t->radius;
    double Z[3] = {t->axis[0], t->axis[1], t->axis[2]}, X[3], Y[3];
    normalize3(Z);
    double dx = Z[0] - 1;
    bool on_x = sqrt(dx * dx + Z[1] * Z[1] + Z[2] * Z[2]) < 0.000001;
    X[0] = on_x ? 0 : 1, X[1] = on_x ? 1 : 0, X[2] = 0;
    cross3(Y, Z, X);
    cross3(X, Y, Z);
    normalize3(X), normalize3(Y), normalize3(Z);
    double p[3] = {(double)(i * 2) * r / (g->n[0] - 1) - r, (double)(j * 2) * r / (g->n[1] - 1) - r,
                   0};
    bool sphere = t->kind == TOPO_SPHERE_GRID;
    if (sphere)
        p[2] = (double)(k * 2) * r / (g->n[2] - 1) - r;
    double norm = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    if (norm > 0.0000001) {
        double m = fmax(fabs(p[0]), fabs(p[1]));
        if (sphere)
            m = fmax(m, fabs(p[2]));
        for (int a = 0; a < 3; a++)
            p[a] *= m / norm;
    }
    if (!sphere && g->n[2] > 1)
        p[2] = (double)k * t->length / (g->n[2] - 1);
    for (int a = 0; a < 3; a++)
        out[a] = t->center[a] + X[a] * p[0] + Y[a] * p[1] + Z[a] * p[2];
}

static void any_grid_point(const topo *t, const grid_geom *g, size_t idx, double p[3])
{
    if (t->kind == TOPO_CYLINDER_GRID || t->kind == TOPO_SPHERE_GRID)
        curved_point(t, g, idx, p);
    else
        grid_point(g, idx, p);
}

st_status topo_grid_lists(topo *t, st_error *err)
{
    ST_TRY(topo_grid_check(t, err));
    grid_geom g;
    topo_grid_geom(t, &g);
    unsigned nx = (unsigned)g.n[0], ny = (unsigned)g.n[1], nz = (unsigned)g.n[2];
#define P(x, y, z) ((x) + nx * ((y) + ny * (z)))
    st_array_free(&t->hexahedra, ST_T_HEXAS);
    st_array_free(&t->quads, ST_T_QUADS);
    st_array_free(&t->triangles, ST_T_TRIANGLES);
    st_array_free(&t->edges, ST_T_EDGES);

    if (t->compute_hexa_list && nx > 1 && ny > 1 && nz > 1) {
        ST_TRY(arr_set_len(&t->hexahedra, ST_T_HEXAS, (size_t)(nx - 1) * (ny - 1) * (nz - 1), err));
        unsigned *h = t->hexahedra.u;
        for (unsigned z = 0; z + 1 < nz; z++)
            for (unsigned y = 0; y + 1 < ny; y++)
                for (unsigned x = 0; x + 1 < nx; x++) {
                    const unsigned v[8] = {P(x, y, z),         P(x + 1, y, z),
                                           P(x + 1, y + 1, z), P(x, y + 1, z),
                                           P(x, y, z + 1),     P(x + 1, y, z + 1),
                                           P(x + 1, y + 1, z + 1), P(x, y + 1, z + 1)};
                    memcpy(h, v, sizeof v);
                    h += 8;
                }
    }

    /* Quads: XY, XZ then YZ faces, all internal ones included. */
    st_array quads = {0};
    {
        size_t nq = 0;
        if (nx > 1 && ny > 1)
            nq += (size_t)(nx - 1) * (ny - 1) * nz;
        if (nx > 1 && nz > 1)
            nq += (size_t)(nx - 1) * ny * (nz - 1);
        if (ny > 1 && nz > 1)
            nq += (size_t)nx * (ny - 1) * (nz - 1);
        if (nq > 0) {
            ST_TRY(arr_set_len(&quads, ST_T_QUADS, nq, err));
            unsigned *q = quads.u;
            for (unsigned z = 0; z < nz; z++)
                for (unsigned y = 0; y + 1 < ny; y++)
                    for (unsigned x = 0; x + 1 < nx; x++) {
                        const unsigned v[4] = {P(x, y, z), P(x + 1, y, z), P(x + 1, y + 1, z),
                                               P(x, y + 1, z)};
                        memcpy(q, v, sizeof v);
                        q += 4;
                    }
            for (unsigned z = 0; z + 1 < nz; z++)
                for (unsigned y = 0; y < ny; y++)
                    for (unsigned x = 0; x + 1 < nx; x++) {
                        const unsigned v[4] = {P(x, y, z), P(x + 1, y, z), P(x + 1, y, z + 1),
                                               P(x, y, z + 1)};
                        memcpy(q, v, sizeof v);
                        q += 4;
                    }
            for (unsigned z = 0; z + 1 < nz; z++)
                for (unsigned y = 0; y + 1 < ny; y++)
                    for (unsigned x = 0; x < nx; x++) {
                        const unsigned v[4] = {P(x, y, z), P(x, y + 1, z), P(x, y + 1, z + 1),
                                               P(x, y, z + 1)};
                        memcpy(q, v, sizeof v);
                        q += 4;
                    }
        }
    }

    st_status s = ST_OK;
    if (t->compute_triangle_list && quads.n > 0) {
        s = arr_set_len(&t->triangles, ST_T_TRIANGLES, 2 * quads.n, err);
        if (s == ST_OK)
            for (size_t i = 0; i < quads.n; i++) {
                const unsigned *q = quads.u + 4 * i;
                unsigned *tr = t->triangles.u + 6 * i;
                tr[0] = q[0], tr[1] = q[1], tr[2] = q[2];
                tr[3] = q[0], tr[4] = q[2], tr[5] = q[3];
            }
    }
    if (s == ST_OK && t->compute_quad_list) {
        t->quads = quads;
        quads = (st_array){0};
    }
    st_array_free(&quads, ST_T_QUADS);
    if (s != ST_OK)
        return s;

    if (t->compute_edge_list) {
        if (t->triangles.n > 0) {
            /* Edges of the triangles, oriented as first met. */
            tuple_set set = {.width = 2};
            for (size_t i = 0; i < t->triangles.n && s == ST_OK; i++) {
                const unsigned *tr = t->triangles.u + 3 * i;
                for (unsigned j = 0; j < 3 && s == ST_OK; j++) {
                    unsigned e[2] = {tr[(j + 1) % 3], tr[(j + 2) % 3]};
                    unsigned k[2] = {e[0] < e[1] ? e[0] : e[1], e[0] < e[1] ? e[1] : e[0]};
                    bool fresh = false;
                    s = tuple_set_insert(&set, k, &fresh, err);
                    if (s == ST_OK && fresh)
                        s = topo_push(&t->edges, ST_T_EDGES, e, err);
                }
            }
            tuple_set_free(&set);
            if (s != ST_OK)
                return s;
        } else {
            for (unsigned z = 0; z < nz; z++)
                for (unsigned y = 0; y < ny; y++)
                    for (unsigned x = 0; x + 1 < nx; x++) {
                        unsigned e[2] = {P(x, y, z), P(x + 1, y, z)};
                        ST_TRY(topo_push(&t->edges, ST_T_EDGES, e, err));
                    }
            for (unsigned z = 0; z < nz; z++)
                for (unsigned y = 0; y + 1 < ny; y++)
                    for (unsigned x = 0; x < nx; x++) {
                        unsigned e[2] = {P(x, y, z), P(x, y + 1, z)};
                        ST_TRY(topo_push(&t->edges, ST_T_EDGES, e, err));
                    }
            for (unsigned z = 0; z + 1 < nz; z++)
                for (unsigned y = 0; y < ny; y++)
                    for (unsigned x = 0; x < nx; x++) {
                        unsigned e[2] = {P(x, y, z), P(x, y, z + 1)};
                        ST_TRY(topo_push(&t->edges, ST_T_EDGES, e, err));
                    }
        }
    }
#undef P
    t->lists_ready = true;
    touch(t, "hexahedra");
    touch(t, "quads");
    touch(t, "triangles");
    touch(t, "edges");
    return ST_OK;
}

/* ---- meshes ---- */

static const unsigned tetra_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
static const unsigned tetra_tris[4][3] = {{1, 2, 3}, {0, 3, 2}, {1, 3, 0}, {0, 2, 1}};
static const unsigned hexa_edges[12][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                           {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
static const unsigned hexa_quads[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                          {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};

/* Adds the edge (a, b) when its unordered pair is new; stores it as given. */
static st_status add_edge(topo *t, tuple_set *set, unsigned a, unsigned b, st_error *err)
{
    unsigned k[2] = {a < b ? a : b, a < b ? b : a};
    bool fresh = false;
    ST_TRY(tuple_set_insert(set, k, &fresh, err));
    if (!fresh)
        return ST_OK;
    unsigned e[2] = {a, b};
    return topo_push(&t->edges, ST_T_EDGES, e, err);
}

static st_status derive_edges(topo *t, st_error *err)
{
    tuple_set set = {.width = 2};
    st_status s = ST_OK;
    if (t->tetrahedra.n > 0 || t->hexahedra.n > 0) {
        /* From volumes: sorted pairs, tetrahedra first. */
        for (size_t i = 0; i < t->tetrahedra.n && s == ST_OK; i++) {
            const unsigned *e = t->tetrahedra.u + 4 * i;
            for (unsigned j = 0; j < 6 && s == ST_OK; j++) {
                unsigned a = e[tetra_edges[j][0]], b = e[tetra_edges[j][1]];
                s = add_edge(t, &set, a < b ? a : b, a < b ? b : a, err);
            }
        }
        for (size_t i = 0; i < t->hexahedra.n && s == ST_OK; i++) {
            const unsigned *e = t->hexahedra.u + 8 * i;
            for (unsigned j = 0; j < 12 && s == ST_OK; j++) {
                unsigned a = e[hexa_edges[j][0]], b = e[hexa_edges[j][1]];
                s = add_edge(t, &set, a < b ? a : b, a < b ? b : a, err);
            }
        }
    } else {
        /* From surfaces: triangle edges oriented as met, quad edges sorted. */
        for (size_t i = 0; i < t->triangles.n && s == ST_OK; i++) {
            const unsigned *e = t->triangles.u + 3 * i;
            for (unsigned j = 0; j < 3 && s == ST_OK; j++)
                s = add_edge(t, &set, e[(j + 1) % 3], e[(j + 2) % 3], err);
        }
        for (size_t i = 0; i < t->quads.n && s == ST_OK; i++) {
            const unsigned *e = t->quads.u + 4 * i;
            for (unsigned j = 0; j < 4 && s == ST_OK; j++) {
                unsigned a = e[(j + 1) % 4], b = e[(j + 2) % 4];
                s = add_edge(t, &set, a < b ? a : b, a < b ? b : a, err);
            }
        }
    }
    tuple_set_free(&set);
    return s;
}

static st_status derive_triangles(topo *t, st_error *err)
{
    tuple_set set = {.width = 3};
    st_status s = ST_OK;
    for (size_t i = 0; i < t->tetrahedra.n && s == ST_OK; i++) {
        const unsigned *e = t->tetrahedra.u + 4 * i;
        for (unsigned j = 0; j < 4 && s == ST_OK; j++) {
            unsigned v[3];
            for (unsigned k = 0; k < 3; k++)
                v[k] = e[tetra_tris[j][k]];
            /* Rotate so that the smallest index comes first (orientation kept). */
            while (v[0] > v[1] || v[0] > v[2]) {
                unsigned x = v[0];
                v[0] = v[1], v[1] = v[2], v[2] = x;
            }
            unsigned key[3] = {v[0], v[1], v[2]};
            topo_sort_small(key, 3);
            bool fresh = false;
            s = tuple_set_insert(&set, key, &fresh, err);
            if (s == ST_OK && fresh)
                s = topo_push(&t->triangles, ST_T_TRIANGLES, v, err);
        }
    }
    tuple_set_free(&set);
    return s;
}

static st_status derive_quads(topo *t, st_error *err)
{
    tuple_set set = {.width = 4};
    st_status s = ST_OK;
    for (size_t i = 0; i < t->hexahedra.n && s == ST_OK; i++) {
        const unsigned *e = t->hexahedra.u + 8 * i;
        for (unsigned j = 0; j < 6 && s == ST_OK; j++) {
            unsigned v[4];
            for (unsigned k = 0; k < 4; k++)
                v[k] = e[hexa_quads[j][k]];
            while (v[0] > v[1] || v[0] > v[2] || v[0] > v[3]) {
                unsigned x = v[0];
                v[0] = v[1], v[1] = v[2], v[2] = v[3], v[3] = x;
            }
            unsigned key[4] = {v[0], v[1], v[2], v[3]};
            topo_sort_small(key, 4);
            bool fresh = false;
            s = tuple_set_insert(&set, key, &fresh, err);
            if (s == ST_OK && fresh)
                s = topo_push(&t->quads, ST_T_QUADS, v, err);
        }
    }
    tuple_set_free(&set);
    return s;
}

/* Checks that every index of a list is below npoints. */
static st_status check_indices(topo *t, const st_array *a, st_type type, const char *name,
                               size_t npoints, st_error *err)
{
    unsigned w = st_type_width(type);
    for (size_t i = 0; i < a->n * w; i++)
        if (a->u[i] >= npoints)
            return st_component_error(&t->base, name, err, ST_EINVAL,
                                      "%s: element %zu uses point %u but the topology has %zu "
                                      "points (indices must be < %zu)",
                                      name, i / w, a->u[i], npoints, npoints);
    return ST_OK;
}

static size_t max_index_plus_one(const topo *t)
{
    const st_array *lists[5] = {&t->edges, &t->triangles, &t->quads, &t->tetrahedra,
                                &t->hexahedra};
    const unsigned widths[5] = {2, 3, 4, 4, 8};
    size_t m = 0;
    for (int l = 0; l < 5; l++)
        for (size_t i = 0; i < lists[l]->n * widths[l]; i++)
            if (lists[l]->u[i] + (size_t)1 > m)
                m = lists[l]->u[i] + (size_t)1;
    return m;
}

st_status topo_mesh_derive(topo *t, st_error *err)
{
    bool volume = t->tetrahedra.n > 0 || t->hexahedra.n > 0;
    bool surface = t->triangles.n > 0 || t->quads.n > 0;
    /* Triangles and quads from volumes first, then edges (as SOFA's lazy
     * updates resolve them). */
    if (t->triangles.n == 0 && t->tetrahedra.n > 0) {
        ST_TRY(derive_triangles(t, err));
        touch(t, "triangles");
    }
    if (t->quads.n == 0 && t->hexahedra.n > 0) {
        ST_TRY(derive_quads(t, err));
        touch(t, "quads");
    }
    if (t->edges.n == 0 && (volume || surface)) {
        ST_TRY(derive_edges(t, err));
        touch(t, "edges");
    }
    t->lists_ready = true;
    return ST_OK;
}

/* ---- copying from a loader ("src") ---- */

/* A topology as src (SOFA scenes give a grid as a container's src): its
 * lists as the topology role computes them (a grid's are not fields). */
static st_status copy_from_topology(topo *t, const st_field *mine, st_error *err)
{
    const st_topology_ops *ops = t->src->cls->topology;
    st_array *to = st_component_field_ptr(&t->base, mine);
    if (mine->type == ST_T_VEC3S) {
        size_t n = ops->nb_points ? ops->nb_points(t->src) : 0;
        if (!n)
            return ST_OK;
        ST_TRY(st_array_resize(to, ST_T_VEC3S, n, err));
        for (size_t i = 0; i < n; i++)
            ops->get_point(t->src, i, to->r + 3 * i);
    } else {
        const st_array *from = ops->elements ? ops->elements(t->src, mine->type) : NULL;
        if (!from || !from->n)
            return ST_OK;
        unsigned w = st_type_width(mine->type);
        ST_TRY(st_array_resize(to, mine->type, from->n, err));
        memcpy(to->p, from->p, from->n * w * sizeof(unsigned));
    }
    st_component_touch(&t->base, mine);
    return ST_OK;
}

static st_status copy_list(topo *t, const char *name, st_error *err)
{
    if (!t->src || st_component_is_set(&t->base, name))
        return ST_OK;
    const st_field *mine = field_of(t, name);
    if (mine && t->src->cls->topology)
        return copy_from_topology(t, mine, err);
    const st_field *theirs = st_component_field(t->src, name);
    if (!mine || !theirs || theirs->type != mine->type)
        return ST_OK;
    const st_array *from = st_component_field_ptr(t->src, theirs);
    st_array *to = st_component_field_ptr(&t->base, mine);
    unsigned w = st_type_width(mine->type);
    size_t esize = mine->type == ST_T_VEC3S || mine->type == ST_T_REALS ? sizeof(double)
                                                                          : sizeof(unsigned);
    ST_TRY(st_array_resize(to, mine->type, from->n, err));
    if (from->n)
        memcpy(to->p, from->p, from->n * w * esize);
    st_component_touch(&t->base, mine);
    return ST_OK;
}

st_status topo_copy_src(topo *t, st_error *err)
{
    if (!t->src)
        return ST_OK;
    /* sources whose own src leads back here would copy each other's empty
     * lists: followed through every component with a "src" link field */
    const st_component *k = t->src;
    for (size_t hops = 0; k && hops < 4096; hops++) {
        const st_field *f = st_component_field(k, "src");
        if (!f || f->type != ST_T_LINK)
            break;
        const st_component *next = *(st_component *const *)((const char *)k + f->offset);
        if (next == &t->base)
            return st_component_error(&t->base, "src", err, ST_ELINK,
                                      "src '%s' leads back to this component ('%s' has src "
                                      "'%s'): src links must not form a cycle",
                                      t->src->name, k->name, t->base.name);
        k = next;
    }
    ST_TRY(st_component_update_inputs(t->src, err));
    static const char *const names[] = {"position",   "edges",     "triangles",
                                        "quads",      "tetrahedra", "hexahedra"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        ST_TRY(copy_list(t, names[i], err));
    return ST_OK;
}

/* ---- the role interface and lifecycle ---- */

st_status topo_ensure_lists(topo *t, st_error *err)
{
    if (t->lists_ready)
        return ST_OK;
    if (topo_is_grid(t))
        return topo_grid_lists(t, err);
    return topo_mesh_derive(t, err);
}

static size_t ops_nb_points(st_component *self)
{
    topo *t = (topo *)self;
    if (topo_is_grid(t)) {
        st_error err = {0};
        if (topo_grid_check(t, &err) != ST_OK)
            return 0; /* the grid's init reports it */
        grid_geom g;
        topo_grid_geom(t, &g);
        return (size_t)g.n[0] * (size_t)g.n[1] * (size_t)g.n[2];
    }
    return t->position.n;
}

static void ops_get_point(st_component *self, size_t i, double p[3])
{
    topo *t = (topo *)self;
    if (t->kind == TOPO_REGULAR_GRID || t->kind == TOPO_CYLINDER_GRID ||
        t->kind == TOPO_SPHERE_GRID) {
        grid_geom g;
        topo_grid_geom(t, &g);
        any_grid_point(t, &g, i, p);
        return;
    }
    if (i < t->position.n) {
        memcpy(p, t->position.r + 3 * i, 3 * sizeof(double));
        return;
    }
    p[0] = p[1] = p[2] = 0.0;
}

static const st_array *ops_elements(st_component *self, st_type kind)
{
    topo *t = (topo *)self;
    st_error err = {0};
    if (topo_ensure_lists(t, &err) != ST_OK) {
        st_component_warn(self, "cannot compute the element lists: %s", err.msg);
        return NULL;
    }
    switch (kind) {
    case ST_T_EDGES: return &t->edges;
    case ST_T_TRIANGLES: return &t->triangles;
    case ST_T_QUADS: return &t->quads;
    case ST_T_TETRAS: return &t->tetrahedra;
    case ST_T_HEXAS: return &t->hexahedra;
    default: return NULL;
    }
}

const st_topology_ops topo_ops = {
    .struct_size = sizeof(st_topology_ops),
    .nb_points = ops_nb_points,
    .get_point = ops_get_point,
    .elements = ops_elements,
    .remove = topo_remove,
    .add = topo_add,
    .add_points = topo_add_points,
    .can_change = topo_can_change,
};

/* Fills a grid's `position` list from its geometry. */
static st_status grid_fill_points(topo *t, st_error *err)
{
    grid_geom g;
    topo_grid_geom(t, &g);
    size_t n = (size_t)g.n[0] * (size_t)g.n[1] * (size_t)g.n[2];
    ST_TRY(st_array_resize(&t->position, ST_T_VEC3S, n, err));
    for (size_t i = 0; i < n; i++)
        any_grid_point(t, &g, i, t->position.r + 3 * i);
    touch(t, "position");
    return ST_OK;
}

/* One list read from a file: moved into the container's list when the
 * class has it; otherwise dropped with a warning (SOFA's containers refuse
 * elements above their own kind: a TriangleSetTopologyContainer has no
 * tetrahedra). */
static void take_list(topo *t, const char *name, st_array *mine, st_array *read, st_type type,
                      const char *path)
{
    if (field_of(t, name)) {
        st_array_free(mine, type);
        *mine = *read;
        memset(read, 0, sizeof *read);
        touch(t, name);
    } else if (read->n) {
        st_component_warn_field(&t->base, "filename",
                                "'%s' holds %zu %s, which a %s does not hold: they are "
                                "ignored",
                                path, read->n, name, t->base.cls->name);
    }
}

/* SOFA's BaseMeshTopology::load: the container's lists are emptied, then
 * filled from the file (points into `position`, each element list into
 * the container's list of that kind). The lists missing from the file are
 * derived at init as for lists given in the scene. */
static st_status topo_load_file(topo *t, st_error *err)
{
    if (t->file_read || !t->filename || !t->filename[0])
        return ST_OK;
    mesh_data d;
    ST_TRY(mesh_read_file(&t->base, t->filename, &d, err));
    take_list(t, "position", &t->position, &d.position, ST_T_VEC3S, d.path);
    take_list(t, "edges", &t->edges, &d.edges, ST_T_EDGES, d.path);
    take_list(t, "triangles", &t->triangles, &d.triangles, ST_T_TRIANGLES, d.path);
    take_list(t, "quads", &t->quads, &d.quads, ST_T_QUADS, d.path);
    take_list(t, "tetrahedra", &t->tetrahedra, &d.tetrahedra, ST_T_TETRAS, d.path);
    take_list(t, "hexahedra", &t->hexahedra, &d.hexahedra, ST_T_HEXAS, d.path);
    mesh_data_free(&d);
    if (t->kind == TOPO_DYNAMIC) {
        t->nb_points = (unsigned)t->position.n;
        touch(t, "nbPoints");
    }
    t->lists_ready = false;
    t->file_read = true;
    return ST_OK;
}

st_status topo_parsed(st_component *self, st_error *err)
{
    topo *t = (topo *)self;
    if (t->kind != TOPO_MESH && t->kind != TOPO_DYNAMIC)
        return ST_OK;
    return topo_load_file(t, err);
}

st_status topo_init(st_component *self, st_error *err)
{
    topo *t = (topo *)self;
    if (t->filename && t->filename[0] && t->kind != TOPO_MESH && t->kind != TOPO_DYNAMIC)
        return st_component_error(self, "filename", err, ST_EINVAL,
                                  "reading a grid from a file ('%s') is not supported by "
                                  "settee: give the grid's resolution and bounds",
                                  t->filename);
    ST_TRY(topo_load_file(t, err));
    if (t->prisms.n % 6 || t->pyramids.n % 5)
        return st_component_error(self, t->prisms.n % 6 ? "prisms" : "pyramids", err, ST_EINVAL,
                                  "%s: %zu indices, not a whole number of elements (%d each)",
                                  t->prisms.n % 6 ? "prisms" : "pyramids",
                                  t->prisms.n % 6 ? t->prisms.n : t->pyramids.n,
                                  t->prisms.n % 6 ? 6 : 5);
    if (topo_is_grid(t)) {
        if (t->kind == TOPO_REGULAR_GRID && t->cell_width < 0)
            return st_component_error(self, "cellWidth", err, ST_EINVAL,
                                      "cellWidth must be >= 0 (0: cells from min, max and n), "
                                      "got %g",
                                      t->cell_width);
        ST_TRY(topo_grid_check(t, err));
        if (t->kind == TOPO_REGULAR_GRID && t->cell_width > 0) {
            /* Resolution from the cell width. */
            for (int a = 0; a < 3; a++)
                t->n[a] = ceil((t->max[a] - t->min[a]) / t->cell_width) + 1;
            t->nx = t->ny = t->nz = 0;
            ST_TRY(topo_grid_check(t, err));
        }
        /* `n` holds the resolution in use (SOFA's parse writes nx, ny, nz
         * into it): components reading a grid's size read `n`. */
        grid_geom g;
        topo_grid_geom(t, &g);
        if (t->n[0] != g.n[0] || t->n[1] != g.n[1] || t->n[2] != g.n[2]) {
            for (int a = 0; a < 3; a++)
                t->n[a] = g.n[a];
            touch(t, "n");
        }
        t->lists_ready = false;
        ST_TRY(topo_grid_lists(t, err));
        if ((t->kind == TOPO_CYLINDER_GRID || t->kind == TOPO_SPHERE_GRID) &&
            (g.n[0] < 2 || g.n[1] < 2 || (t->kind == TOPO_SPHERE_GRID && g.n[2] < 2)))
            return st_component_error(self, "n", err, ST_EINVAL,
                                      "a %s needs at least 2 points along x and y%s (SOFA "
                                      "divides by n - 1 there), got %d %d %d",
                                      self->cls->name,
                                      t->kind == TOPO_SPHERE_GRID ? " and z" : "", g.n[0],
                                      g.n[1], g.n[2]);
        if (t->kind != TOPO_GRID && t->compute_point_list)
            ST_TRY(grid_fill_points(t, err));
        self->state = ST_CSTATE_VALID;
        return ST_OK;
    }

    ST_TRY(topo_copy_src(t, err));
    /* Lists given by the scene must use existing points. */
    size_t np = t->position.n;
    if (t->kind == TOPO_DYNAMIC && np == 0 && t->nb_points > 0)
        np = t->nb_points;
    if (np > 0) {
        ST_TRY(check_indices(t, &t->edges, ST_T_EDGES, "edges", np, err));
        ST_TRY(check_indices(t, &t->triangles, ST_T_TRIANGLES, "triangles", np, err));
        ST_TRY(check_indices(t, &t->quads, ST_T_QUADS, "quads", np, err));
        ST_TRY(check_indices(t, &t->tetrahedra, ST_T_TETRAS, "tetrahedra", np, err));
        ST_TRY(check_indices(t, &t->hexahedra, ST_T_HEXAS, "hexahedra", np, err));
    }
    if (t->kind == TOPO_DYNAMIC && t->nb_points == 0) {
        size_t m = t->position.n ? t->position.n : max_index_plus_one(t);
        t->nb_points = (unsigned)m;
        touch(t, "nbPoints");
    }
    t->lists_ready = false;
    ST_TRY(topo_mesh_derive(t, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

st_status topo_reinit_with(st_component *self, st_error *err,
                           st_status (*init)(st_component *, st_error *))
{
    topo *t = (topo *)self;
    t->grid_warned = false;
    t->file_read = false;
    return init(self, err);
}

st_status topo_reinit(st_component *self, st_error *err)
{
    return topo_reinit_with(self, err, topo_init);
}

bool topo_node_has_class(st_node *n, const char *a, const char *b)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        const char *cn = st_node_object(n, i)->cls->name;
        if (!strcmp(cn, a) || (b && !strcmp(cn, b)))
            return true;
    }
    return false;
}
