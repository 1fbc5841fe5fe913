/* sparse_grid_topology.c - SparseGridTopology: the cells of a regular grid
 * that a closed surface mesh touches or encloses, as hexahedra, built the
 * way SOFA builds them.
 *
 * The surface: fileTopology (an OBJ file), else position with triangles and
 * quads (given, or copied from a loader by src). Steps:
 *  1. The box: min and max when either is set, else the surface's bounding
 *     box grown by 1 % of its size on each side; cellWidth > 0 gives
 *     n = ceil((max - min) / cellWidth) + 1; n is at least 2 per axis.
 *  2. A regular grid over the box: point (i, j, k) = min + (i dx, j dy,
 *     k dz), d = (max - min) / (n - 1); cell (i, j, k) has index
 *     i + (nx-1) (j + (ny-1) k) and SOFA's hexahedron corner order.
 *  3. Every cell starts INSIDE. The cell holding each surface vertex becomes
 *     BOUNDARY (a vertex on the box's faces is moved half a cell inwards to
 *     find its cell, for the next step only). Each facet, cut in a fan of
 *     triangles, marks BOUNDARY every cell of its vertices' cell range that
 *     it intersects: the triangle is scaled into the cell's unit cube (in
 *     single precision, as SOFA) and tested with the Voorhies / Green /
 *     Hatch polygon-cube test (trivial vertex, edge-plane and corner-plane
 *     rejects, then segment-cube and cube-diagonal tests).
 *  4. A flood fill from every cell of the grid's border through non-BOUNDARY
 *     cells marks them OUTSIDE; the rest stay INSIDE.
 *  5. The hexahedra: the BOUNDARY cells (unless onlyInsideCells) in cell
 *     order, then the INSIDE cells; the points: their corners, sorted by
 *     position (x, then y, then z), as SOFA's map of positions orders them.
 *     edges and quads: SOFA's SparseGridTopology lists (each hexahedron's 12
 *     edges and 6 faces as SOFA writes them, sorted, duplicates removed).
 * fillWeighted gives boundary cells a stiffness and mass coefficient of 0.5
 * (outputs stiffnessCoefs and massCoefs, 1 elsewhere; SOFA keeps them
 * internal). The input surface's triangles and quads are replaced (SOFA
 * leaves the surface's triangles in place, indexing the surface's points).
 *
 * Voxel files, as SOFA's buildFromVoxelFile / buildFromRawVoxelFile read
 * them: an ASCII .voxel (counts, voxel size, values) sets n, min and max
 * from the file; a binary .raw (one byte per voxel of dataResolution) keeps
 * n and spans voxelSize * dataResolution. Their non-zero voxels are INSIDE
 * cells (no BOUNDARY cells, coefficients 1).
 *
 * nbVirtualFinerLevels = L > 0 (SOFA's buildVirtualFinerLevels and
 * buildFromFiner): the source is voxelised on a finer grid of
 * (n - 1) 2^L + 1 points per axis, then coarsened L times, each coarse cell
 * gathering 2 x 2 x 2 fine cells. The hexahedra then come in the order
 * x slowest, z fastest, BOUNDARY and INSIDE mixed; a coarse cell is INSIDE
 * only when its 8 children are INSIDE cells; its coefficients are the sum
 * of its children's over 8, i.e. its filled fraction (whatever fillWeighted
 * says; fillWeighted only sets the finest boundary cells' 0.5).
 * Facets and the marching-cubes surface SOFA writes for a .raw grid into an
 * empty child topology are not supported. The grid is built once (SOFA's
 * init runs once), at its init or before, when a component first asks for
 * its points or elements (SOFA's getNbPoints and getHexahedra call init).
 *
 * SparseGridRamificationTopology (sparse_grid_ramification.c) builds its
 * finest level here, then ramifies it; SparseGridMultipleTopology
 * voxelises each file of fileTopologies on the finest grid and assembles
 * their types and coefficients (finest_from_multiple). */
#define _POSIX_C_SOURCE 200809L /* fdopen */
#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sparse_grid.h"
#include "topology_fields.h"
#include "../IO.Mesh/mesh_loader.h"
#include "../../common/regular_file.h"


/* ---- the polygon / unit cube test, in single precision ---- */

/* Sets bit pos (value > limit) or neg (value < -limit), for pairs still in
 * mask. */
static unsigned long plane_pair(unsigned long mask, unsigned long pos, unsigned long neg,
                                float value, double limit)
{
    if (!(mask & (pos | neg)))
        return 0;
    if ((mask & pos) && value > limit)
        return pos;
    if ((mask & neg) && value < -limit)
        return neg;
    return 0;
}

static unsigned long outside_faces(const float p[3], unsigned long mask)
{
    return plane_pair(mask, 0x001, 0x002, p[0], 0.5) | plane_pair(mask, 0x004, 0x008, p[1], 0.5) |
           plane_pair(mask, 0x010, 0x020, p[2], 0.5);
}

static unsigned long outside_edges(const float p[3], unsigned long mask)
{
    return plane_pair(mask, 0x001, 0x002, p[0] + p[1], 1.0) |
           plane_pair(mask, 0x004, 0x008, p[0] - p[1], 1.0) |
           plane_pair(mask, 0x010, 0x020, p[0] + p[2], 1.0) |
           plane_pair(mask, 0x040, 0x080, p[0] - p[2], 1.0) |
           plane_pair(mask, 0x100, 0x200, p[1] + p[2], 1.0) |
           plane_pair(mask, 0x400, 0x800, p[1] - p[2], 1.0);
}

static unsigned long outside_corners(const float p[3], unsigned long mask)
{
    return plane_pair(mask, 0x001, 0x002, p[0] + p[1] + p[2], 1.5) |
           plane_pair(mask, 0x004, 0x008, p[0] + p[1] - p[2], 1.5) |
           plane_pair(mask, 0x010, 0x020, p[0] - p[1] + p[2], 1.5) |
           plane_pair(mask, 0x040, 0x080, p[0] - p[1] - p[2], 1.5);
}

/* 1: a vertex is inside the cube; 0: all vertices beyond one plane; -1:
 * undecided. */
static int trivial_tests(int n, const float v[][3])
{
    unsigned long all = ~0UL;
    for (int i = 0; i < n; i++) {
        unsigned long bits = outside_faces(v[i], ~0UL);
        if (!bits)
            return 1;
        all &= bits;
    }
    if (all)
        return 0;
    all = ~0UL;
    for (int i = 0; i < n && all; i++)
        all = outside_edges(v[i], all);
    if (all)
        return 0;
    all = ~0UL;
    for (int i = 0; i < n && all; i++)
        all = outside_corners(v[i], all);
    if (all)
        return 0;
    return -1;
}

static int sign_nonzero(float x) { return x < 0 ? -1 : 1; }

/* Whether the segment (a, b) meets the unit cube: the origin against the
 * cube dragged from a to b. */
static bool segment_meets_cube(const float a[3], const float b[3])
{
    float e[3];
    int s[3];
    for (int i = 0; i < 3; i++) {
        e[i] = b[i] - a[i];
        s[i] = sign_nonzero(e[i]);
    }
    for (int i = 0; i < 3; i++) {
        if (a[i] * (float)s[i] > 0.5)
            return false;
        if (b[i] * (float)s[i] < -0.5)
            return false;
    }
    for (int i = 0; i < 3; i++) {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        float d0 = e[i2] * a[i1] - e[i1] * a[i2];
        float dc = 0.5f * (e[i2] * (float)s[i1] + e[i1] * (float)s[i2]);
        if (d0 * d0 > dc * dc)
            return false;
    }
    return true;
}

/* Winding count of point q (in the polygon's plane) in the polygon. */
static int polygon_winding(int n, const float v[][3], const float nrm[3], const float q[3])
{
    float a[3] = {fabsf(nrm[0]), fabsf(nrm[1]), fabsf(nrm[2])};
    int z = a[0] > a[2] ? (a[0] > a[1] ? 0 : 1) : (a[1] > a[2] ? 1 : 2);
    int x = nrm[z] < 0 ? (z + 2) % 3 : (z + 1) % 3;
    int y = nrm[z] < 0 ? (z + 1) % 3 : (z + 2) % 3;
    int count = 0;
    for (int i = 0; i < n; i++) {
        const float *p = v[i], *w = v[(i + 1) % n];
        int dir = (w[x] > q[x]) - (p[x] > q[x]);
        if (!dir)
            continue;
        if ((w[y] > q[y]) - (p[y] > q[y])) {
            if ((float)dir * (q[x] - p[x]) * (w[y] - p[y]) <=
                (float)dir * (q[y] - p[y]) * (w[x] - p[x]))
                count += dir;
        } else if (p[y] <= q[y]) {
            count += dir;
        }
    }
    return count;
}

/* Whether the polygon meets the unit cube centred at the origin. */
static bool polygon_meets_cube(int n, const float v[][3], const float nrm[3])
{
    int quick = trivial_tests(n, v);
    if (quick >= 0)
        return quick == 1;
    for (int i = 0; i < n; i++)
        if (segment_meets_cube(v[i], v[(i + 1) % n]))
            return true;
    if (nrm[0] == 0 && nrm[1] == 0 && nrm[2] == 0)
        return false;
    /* The cube diagonal most normal to the plane. */
    int d[3] = {sign_nonzero(nrm[0]), sign_nonzero(nrm[1]), sign_nonzero(nrm[2])};
    float t = (nrm[0] * v[0][0] + nrm[1] * v[0][1] + nrm[2] * v[0][2]) /
              (nrm[0] * (float)d[0] + nrm[1] * (float)d[1] + nrm[2] * (float)d[2]);
    if (!(((double)t + 0.5) * ((double)t - 0.5) <= 0))
        return false;
    float q[3] = {t * (float)d[0], t * (float)d[1], t * (float)d[2]};
    return polygon_winding(n, v, nrm, q) != 0;
}

/* path opened for reading only when it is a regular file, never blocking
 * on a FIFO swapped in after st_component_find_file looked (regular_open) */
static FILE *open_regular(const char *path, const char *mode)
{
    bool not_regular;
    int fd = regular_open(path, &not_regular);
    FILE *f = fd >= 0 ? fdopen(fd, mode) : NULL;
    if (!f && fd >= 0)
        close(fd);
    return f;
}

/* ---- the surface ---- */


static void surface_free(surface *s)
{
    st_free(s->x), st_free(s->idx), st_free(s->start);
    memset(s, 0, sizeof *s);
}

static st_status grow(void **p, size_t *cap, size_t need, size_t esize, st_error *err)
{
    if (need <= *cap)
        return ST_OK;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = st_realloc(*p, c * esize);
    if (!q)
        return st_error_set(err, ST_ENOMEM, "out of memory reading the surface");
    *p = q;
    *cap = c;
    return ST_OK;
}

static st_status add_vertex(surface *s, const double p[3], st_error *err)
{
    ST_TRY(grow((void **)&s->x, &s->cap_v, 3 * (s->nv + 1), sizeof *s->x, err));
    memcpy(s->x + 3 * s->nv++, p, 3 * sizeof *p);
    return ST_OK;
}

static st_status add_facet(surface *s, const unsigned *v, size_t n, st_error *err)
{
    size_t base = s->nf ? s->start[s->nf] : 0;
    ST_TRY(grow((void **)&s->idx, &s->cap_idx, base + n, sizeof *s->idx, err));
    ST_TRY(grow((void **)&s->start, &s->cap_f, s->nf + 2, sizeof *s->start, err));
    if (s->nf == 0)
        s->start[0] = 0;
    memcpy(s->idx + base, v, n * sizeof *v);
    s->start[++s->nf] = base + n;
    return ST_OK;
}

/* The surface of an OBJ file, read by MeshOBJLoader's own checked parser
 * (plugins/IO.Mesh/mesh_read.c, as SOFA's SparseGridTopology loads it
 * through MeshTopology::load): its triangles, then its quads (faces of more
 * vertices are fans of triangles there); voxelisation marks cells, so the
 * facets' order does not matter. */
static st_status read_obj_file(topo *t, const char *name, surface *s, st_error *err)
{
    mesh_data d;
    ST_TRY(mesh_read_file(&t->base, name, &d, err));
    st_status st = ST_OK;
    for (size_t i = 0; st == ST_OK && i < d.position.n; i++)
        st = add_vertex(s, d.position.r + 3 * i, err);
    for (size_t i = 0; st == ST_OK && i < d.triangles.n; i++)
        st = add_facet(s, d.triangles.u + 3 * i, 3, err);
    for (size_t i = 0; st == ST_OK && i < d.quads.n; i++)
        st = add_facet(s, d.quads.u + 4 * i, 4, err);
    mesh_data_free(&d);
    return st;
}

/* The surface from the component's own lists (position, triangles, quads). */
static st_status surface_from_lists(topo *t, surface *s, st_error *err)
{
    for (size_t i = 0; i < t->position.n; i++)
        ST_TRY(add_vertex(s, t->position.r + 3 * i, err));
    for (size_t i = 0; i < t->triangles.n; i++)
        ST_TRY(add_facet(s, t->triangles.u + 3 * i, 3, err));
    for (size_t i = 0; i < t->quads.n; i++)
        ST_TRY(add_facet(s, t->quads.u + 4 * i, 4, err));
    for (size_t i = 0; i < s->nf; i++)
        for (size_t k = s->start[i]; k < s->start[i + 1]; k++)
            if (s->idx[k] >= s->nv)
                return st_component_error(&t->base, i < t->triangles.n ? "triangles" : "quads",
                                          err, ST_EINVAL,
                                          "facet %zu uses point %u but position has %zu points",
                                          i, s->idx[k], s->nv);
    return ST_OK;
}

/* ---- voxelisation ---- */

/* Marks the cells the triangle (A, B, C), with vertices in cells ca, cb,
 * cc, intersects. */
static void mark_triangle(const sgrid *g, unsigned char *type, const double *A, const double *B,
                          const double *C, size_t ca, size_t cb, size_t cc)
{
    int a[3], b[3], c[3];
    cell_coords(g, ca, a), cell_coords(g, cb, b), cell_coords(g, cc, c);
    int lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = a[k] < b[k] ? a[k] : b[k];
        lo[k] = c[k] < lo[k] ? c[k] : lo[k];
        hi[k] = a[k] > b[k] ? a[k] : b[k];
        hi[k] = c[k] > hi[k] ? c[k] : hi[k];
    }
    const double *P[3] = {A, B, C};
    for (int x = lo[0]; x <= hi[0]; x++)
        for (int y = lo[1]; y <= hi[1]; y++)
            for (int z = lo[2]; z <= hi[2]; z++) {
                size_t idx = cell_index(g, x, y, z);
                if (type[idx] == CELL_BOUNDARY)
                    continue;
                double c0[3], c6[3], diag[3], mid[3];
                grid_pos(g, x, y, z, c0);
                grid_pos(g, x + 1, y + 1, z + 1, c6);
                for (int k = 0; k < 3; k++) {
                    diag[k] = c6[k] - c0[k];
                    mid[k] = c0[k] + diag[k] * 0.5;
                }
                float v[3][3];
                for (int m = 0; m < 3; m++)
                    for (int k = 0; k < 3; k++)
                        v[m][k] = (float)((P[m][k] - mid[k]) / diag[k]);
                float e1[3], e2[3], nrm[3];
                for (int k = 0; k < 3; k++)
                    e1[k] = v[1][k] - v[0][k], e2[k] = v[2][k] - v[0][k];
                nrm[0] = e1[1] * e2[2] - e1[2] * e2[1];
                nrm[1] = e1[2] * e2[0] - e1[0] * e2[2];
                nrm[2] = e1[0] * e2[1] - e1[1] * e2[0];
                if (polygon_meets_cube(3, (const float(*)[3])v, nrm))
                    type[idx] = CELL_BOUNDARY;
            }
}

/* Flood fill from the border cells through non-boundary cells. */
static st_status mark_outside(const sgrid *g, unsigned char *type, size_t ncells, st_error *err)
{
    size_t *stack = st_malloc((ncells + 1) * sizeof *stack);
    unsigned char *seen = st_calloc(ncells + 1, 1);
    if (!stack || !seen) {
        st_free(stack), st_free(seen);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu cells)", ncells);
    }
    int m[3] = {g->n[0] - 1, g->n[1] - 1, g->n[2] - 1};
    size_t top = 0;
    for (int z = 0; z < m[2]; z++)
        for (int y = 0; y < m[1]; y++)
            for (int x = 0; x < m[0]; x++) {
                if (x && y && z && x < m[0] - 1 && y < m[1] - 1 && z < m[2] - 1)
                    continue;
                size_t c = cell_index(g, x, y, z);
                if (seen[c] || type[c] == CELL_BOUNDARY)
                    continue;
                seen[c] = 1;
                stack[top++] = c;
                while (top) {
                    size_t cur = stack[--top];
                    type[cur] = CELL_OUTSIDE;
                    int ijk[3];
                    cell_coords(g, cur, ijk);
                    for (int a = 0; a < 3; a++)
                        for (int s = -1; s <= 1; s += 2) {
                            int q[3] = {ijk[0], ijk[1], ijk[2]};
                            q[a] += s;
                            if (q[a] < 0 || q[a] >= m[a])
                                continue;
                            size_t nb = cell_index(g, q[0], q[1], q[2]);
                            if (seen[nb] || type[nb] == CELL_BOUNDARY)
                                continue;
                            seen[nb] = 1;
                            stack[top++] = nb;
                        }
                }
            }
    st_free(stack), st_free(seen);
    return ST_OK;
}

static st_status voxelize(topo *t, const sgrid *g, const surface *s, unsigned char *type,
                          size_t ncells, st_error *err)
{
    memset(type, CELL_INSIDE, ncells);
    size_t *vcell = st_malloc((s->nv + 1) * sizeof *vcell);
    if (!vcell)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu vertices)", s->nv);
    const double half[3] = {g->d[0] / 2, g->d[1] / 2, g->d[2] / 2};
    for (size_t i = 0; i < s->nv; i++) {
        const double *p = s->x + 3 * i;
        size_t c = find_cell(g, p);
        if (c != (size_t)-1) {
            type[c] = CELL_BOUNDARY;
        } else {
            double q[3];
            for (int a = 0; a < 3; a++) {
                q[a] = p[a];
                if (p[a] - FLT_EPSILON < g->lo[a])
                    q[a] = g->lo[a] + half[a];
                else if (p[a] + FLT_EPSILON > g->hi[a])
                    q[a] = g->hi[a] - half[a];
            }
            c = find_cell(g, q);
            if (c == (size_t)-1)
                st_component_warn(&t->base, "vertex %zu not found in hexahedral topology", i);
        }
        vcell[i] = c;
    }
    for (size_t f = 0; f < s->nf; f++) {
        const unsigned *v = s->idx + s->start[f];
        size_t n = s->start[f + 1] - s->start[f];
        for (size_t j = 2; j < n; j++) {
            size_t c0 = vcell[v[0]], c1 = vcell[v[j - 1]], c2 = vcell[v[j]];
            if (c0 == (size_t)-1 || c1 == (size_t)-1 || c2 == (size_t)-1)
                continue;
            if (c0 == c1 && c0 == c2 && type[c0] == CELL_BOUNDARY)
                continue;
            mark_triangle(g, type, s->x + 3 * v[0], s->x + 3 * v[j - 1], s->x + 3 * v[j], c0,
                          c1, c2);
        }
    }
    st_free(vcell);
    return mark_outside(g, type, ncells, err);
}

/* ---- sparse levels: the kept cells of a regular grid ---- */


void sg_level_free(level *L)
{
    st_free(L->cell), st_free(L->type), st_free(L->kcoef), st_free(L->mcoef);
    st_free(L->hexa_of);
    memset(L, 0, sizeof *L);
}

st_status sg_level_alloc(level *L, st_error *err)
{
    size_t nc = grid_cells(&L->g);
    L->nh = 0;
    L->cell = st_malloc((nc + 1) * sizeof *L->cell);
    L->type = st_malloc(nc + 1);
    L->kcoef = st_malloc((nc + 1) * sizeof *L->kcoef);
    L->mcoef = st_malloc((nc + 1) * sizeof *L->mcoef);
    L->hexa_of = st_malloc((nc + 1) * sizeof *L->hexa_of);
    if (!L->cell || !L->type || !L->kcoef || !L->mcoef || !L->hexa_of)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu cells)", nc);
    for (size_t c = 0; c < nc; c++)
        L->hexa_of[c] = (size_t)-1;
    return ST_OK;
}

void sg_level_push(level *L, size_t c, unsigned char type, double k, double m)
{
    L->hexa_of[c] = L->nh;
    L->cell[L->nh] = c;
    L->type[L->nh] = type;
    L->kcoef[L->nh] = k;
    L->mcoef[L->nh++] = m;
}

/* SOFA's buildFromRegularGridTypes and buildAsFinest's coefficients: the
 * BOUNDARY cells (unless only_inside) in cell order, then the INSIDE ones;
 * 0.5 for a boundary cell with fill_weighted, else 1. */
static st_status level_from_types(level *L, const unsigned char *regtype, bool only_inside,
                                  bool fill_weighted, st_error *err)
{
    ST_TRY(sg_level_alloc(L, err));
    size_t nc = grid_cells(&L->g);
    for (int pass = 0; pass < 2; pass++) {
        unsigned char want = pass == 0 ? CELL_BOUNDARY : CELL_INSIDE;
        if (pass == 0 && only_inside)
            continue;
        double coef = pass == 0 && fill_weighted ? 0.5 : 1.0;
        for (size_t c = 0; c < nc; c++)
            if (regtype[c] == want)
                sg_level_push(L, c, want, coef, coef);
    }
    return ST_OK;
}

/* SOFA's buildFromFiner: the coarse grid has n / 2 + 1 points per axis
 * (integer division of the fine n), the fine min, and cells twice as wide.
 * Coarse cell (i, j, k), visited with i slowest and k fastest, gathers the
 * fine cells (2i + a, 2j + b, 2k + c); it is dropped when none of them is a
 * fine hexahedron, INSIDE when all eight are INSIDE hexahedra, BOUNDARY
 * otherwise. Its coefficients are the sum of its children's over 8. */
static st_status level_coarsen(const level *F, level *C, st_error *err)
{
    int n[3];
    double hi[3];
    for (int a = 0; a < 3; a++) {
        n[a] = F->g.n[a] / 2 + 1;
        hi[a] = F->g.lo[a] + (n[a] - 1) * 2.0 * F->g.d[a];
    }
    grid_setup(&C->g, n, F->g.lo, hi);
    ST_TRY(sg_level_alloc(C, err));
    for (int i = 0; i < n[0] - 1; i++)
        for (int j = 0; j < n[1] - 1; j++)
            for (int k = 0; k < n[2] - 1; k++) {
                bool inside = true, outside = true;
                double ks = 0, ms = 0;
                for (int w = 0; w < 8; w++) {
                    int x = 2 * i + (w & 1), y = 2 * j + (w >> 1 & 1), z = 2 * k + (w >> 2 & 1);
                    size_t h = (size_t)-1;
                    if (x < F->g.n[0] - 1 && y < F->g.n[1] - 1 && z < F->g.n[2] - 1)
                        h = F->hexa_of[cell_index(&F->g, x, y, z)];
                    if (h == (size_t)-1) {
                        inside = false;
                        continue;
                    }
                    outside = false;
                    if (F->type[h] == CELL_BOUNDARY)
                        inside = false;
                    ks += F->kcoef[h];
                    ms += F->mcoef[h];
                }
                if (!outside)
                    sg_level_push(C, cell_index(&C->g, i, j, k),
                               inside ? CELL_INSIDE : CELL_BOUNDARY, ks / 8.0, ms / 8.0);
            }
    return ST_OK;
}

/* ---- the hexahedral mesh ---- */

static const double *sort_pos; /* qsort context: grid point positions */

static int cmp_point(const void *a, const void *b)
{
    const double *p = sort_pos + 3 * *(const size_t *)a, *q = sort_pos + 3 * *(const size_t *)b;
    for (int k = 0; k < 3; k++)
        if (p[k] != q[k])
            return p[k] < q[k] ? -1 : 1;
    return 0;
}

static int cmp_tuple2(const void *a, const void *b)
{
    const unsigned *p = a, *q = b;
    for (int k = 0; k < 2; k++)
        if (p[k] != q[k])
            return p[k] < q[k] ? -1 : 1;
    return 0;
}

static int cmp_tuple4(const void *a, const void *b)
{
    const unsigned *p = a, *q = b;
    for (int k = 0; k < 4; k++)
        if (p[k] != q[k])
            return p[k] < q[k] ? -1 : 1;
    return 0;
}

/* Sorts n tuples of width w and removes duplicates; returns the count. */
static size_t sort_unique(unsigned *v, size_t n, unsigned w)
{
    if (n == 0)
        return 0;
    qsort(v, n, w * sizeof *v, w == 2 ? cmp_tuple2 : cmp_tuple4);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (memcmp(v + w * i, v + w * (m - 1), w * sizeof *v))
            memmove(v + w * m++, v + w * i, w * sizeof *v);
    return m;
}

st_status sg_mesh_tail(topo *t, const sgrid *g, st_error *err)
{
    size_t nh = t->hexahedra.n;
    ST_TRY(st_array_resize(&t->edges, ST_T_EDGES, 12 * nh, err));
    ST_TRY(st_array_resize(&t->quads, ST_T_QUADS, 6 * nh, err));
    static const int ed[12][2] = {{0, 1}, {3, 2}, {4, 5}, {7, 6}, {0, 3}, {1, 2},
                                  {4, 7}, {5, 6}, {0, 4}, {1, 5}, {3, 7}, {2, 6}};
    static const int fa[6][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                 {3, 2, 6, 7}, {0, 4, 7, 3}, {1, 5, 6, 2}};
    for (size_t h = 0; h < nh; h++) {
        const unsigned *hx = t->hexahedra.u + 8 * h;
        for (int e = 0; e < 12; e++)
            for (int k = 0; k < 2; k++)
                t->edges.u[2 * (12 * h + (size_t)e) + (size_t)k] = hx[ed[e][k]];
        for (int f = 0; f < 6; f++)
            for (int k = 0; k < 4; k++)
                t->quads.u[4 * (6 * h + (size_t)f) + (size_t)k] = hx[fa[f][k]];
    }
    t->edges.n = sort_unique(t->edges.u, t->edges.n, 2);
    t->quads.n = sort_unique(t->quads.u, t->quads.n, 4);
    for (int a = 0; a < 3; a++) {
        t->n[a] = g->n[a];
        t->min[a] = g->lo[a];
        t->max[a] = g->hi[a];
    }
    return ST_OK;
}

/* The component's lists from the final level: the points are the used
 * corners sorted by position (SOFA's map of positions), the hexahedra
 * follow the level's order. */
static st_status build_mesh(topo *t, const level *L, st_error *err)
{
    const sgrid *g = &L->g;
    size_t npts = (size_t)g->n[0] * (size_t)g->n[1] * (size_t)g->n[2];
    size_t nh = L->nh;
    size_t *remap = st_malloc((npts + 1) * sizeof *remap);
    size_t *used = st_malloc((npts + 1) * sizeof *used);
    double *gp = st_malloc((3 * npts + 1) * sizeof *gp);
    st_status s = ST_OK;
    if (!remap || !used || !gp) {
        s = st_error_set(err, ST_ENOMEM, "out of memory (%zu grid points)", npts);
        goto done;
    }
    for (size_t i = 0; i < npts; i++) {
        remap[i] = (size_t)-1;
        int x = (int)(i % (size_t)g->n[0]), y = (int)(i / (size_t)g->n[0] % (size_t)g->n[1]),
            z = (int)(i / ((size_t)g->n[0] * (size_t)g->n[1]));
        grid_pos(g, x, y, z, gp + 3 * i);
    }
    size_t nu = 0;
    for (size_t h = 0; h < nh; h++) {
        int ijk[3];
        size_t c[8];
        cell_coords(g, L->cell[h], ijk);
        cell_corners(g, ijk[0], ijk[1], ijk[2], c);
        for (int m = 0; m < 8; m++)
            if (remap[c[m]] == (size_t)-1) {
                remap[c[m]] = 0;
                used[nu++] = c[m];
            }
    }
    sort_pos = gp;
    qsort(used, nu, sizeof *used, cmp_point);
    sort_pos = NULL;
    if ((s = st_array_resize(&t->position, ST_T_VEC3S, nu, err)) != ST_OK)
        goto done;
    for (size_t i = 0; i < nu; i++) {
        remap[used[i]] = i;
        memcpy(t->position.r + 3 * i, gp + 3 * used[i], 3 * sizeof(double));
    }
    if ((s = st_array_resize(&t->hexahedra, ST_T_HEXAS, nh, err)) != ST_OK ||
        (s = st_array_resize(&t->cell_types, ST_T_UINTS, nh, err)) != ST_OK ||
        (s = st_array_resize(&t->stiffness_coefs, ST_T_REALS, nh, err)) != ST_OK ||
        (s = st_array_resize(&t->mass_coefs, ST_T_REALS, nh, err)) != ST_OK)
        goto done;
    for (size_t h = 0; h < nh; h++) {
        int ijk[3];
        size_t c[8];
        cell_coords(g, L->cell[h], ijk);
        cell_corners(g, ijk[0], ijk[1], ijk[2], c);
        unsigned *hx = t->hexahedra.u + 8 * h;
        for (int m = 0; m < 8; m++)
            hx[m] = (unsigned)remap[c[m]];
        t->cell_types.u[h] = L->type[h];
        t->stiffness_coefs.r[h] = L->kcoef[h];
        t->mass_coefs.r[h] = L->mcoef[h];
    }
    s = sg_mesh_tail(t, g, err);
done:
    st_free(remap), st_free(used), st_free(gp);
    return s;
}

/* SOFA tests the extension as written (case-sensitive), after at least one
 * more character. */
static bool has_ext(const char *s, const char *ext)
{
    size_t n = strlen(s), m = strlen(ext);
    return n > m && strcmp(s + n - m, ext) == 0;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    if (n < m)
        return false;
    for (size_t i = 0; i < m; i++)
        if (tolower((unsigned char)s[n - m + i]) != suf[i])
            return false;
    return true;
}

static void touch_all(topo *t)
{
    static const char *const names[] = {"position",  "edges",          "triangles",
                                        "quads",     "hexahedra",      "n",
                                        "min",       "max",            "cellTypes",
                                        "stiffnessCoefs", "massCoefs", "elementStiffnessCoefs",
                                        "elementMassCoefs", NULL};
    for (size_t i = 0; names[i]; i++) {
        const st_field *f = st_component_field(&t->base, names[i]);
        if (f && (f->flags & ST_F_OUTPUT || !strcmp(names[i], "position") ||
                  !strcmp(names[i], "n") || !strcmp(names[i], "min") || !strcmp(names[i], "max") ||
                  !strcmp(names[i], "edges") || !strcmp(names[i], "triangles") ||
                  !strcmp(names[i], "quads") || !strcmp(names[i], "hexahedra")))
            st_component_touch(&t->base, f);
    }
}

/* ---- the finest level, from each source ---- */

/* A closed surface: the box (min and max, else the surface's bounding box
 * grown by 1 %), cellWidth (when use_width) giving n, then the
 * voxelisation. */
static st_status finest_from_surface(topo *t, surface *s, const int n_in[3], bool use_width,
                                     bool only_inside, level *L, st_error *err)
{
    double lo[3], hi[3];
    int n[3] = {n_in[0], n_in[1], n_in[2]};
    bool box_set = t->min[0] != 0 || t->min[1] != 0 || t->min[2] != 0 || t->max[0] != 0 ||
                   t->max[1] != 0 || t->max[2] != 0;
    if (box_set) {
        memcpy(lo, t->min, sizeof lo);
        memcpy(hi, t->max, sizeof hi);
    } else {
        for (int a = 0; a < 3; a++)
            lo[a] = hi[a] = s->x[a];
        for (size_t i = 1; i < s->nv; i++)
            for (int a = 0; a < 3; a++) {
                double v = s->x[3 * i + (size_t)a];
                if (v > hi[a])
                    hi[a] = v;
                else if (v < lo[a])
                    lo[a] = v;
            }
        for (int a = 0; a < 3; a++) {
            double grow_by = (hi[a] - lo[a]) / 100.0;
            lo[a] -= grow_by;
            hi[a] += grow_by;
        }
    }
    if (use_width && t->cell_width > 0)
        for (int a = 0; a < 3; a++)
            n[a] = (int)ceil((hi[a] - lo[a]) / t->cell_width) + 1;
    grid_setup(&L->g, n, lo, hi);
    size_t ncells = grid_cells(&L->g);
    unsigned char *type = st_malloc(ncells + 1);
    if (!type)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu cells)", ncells);
    st_status st = voxelize(t, &L->g, s, type, ncells, err);
    if (st == ST_OK)
        st = level_from_types(L, type, only_inside, t->fill_weighted, err);
    st_free(type);
    return st;
}

/* An ASCII .voxel file as SOFA's buildFromVoxelFile reads it: the voxel
 * counts nx ny nz, the voxel size dx dy dz (single precision), then one
 * integer per voxel, x fastest, z slowest; non-zero is matter. The grid has
 * n + 1 points per axis from 0 to (int)(dx nx) (SOFA truncates the extent
 * to an integer); every non-zero voxel is an INSIDE cell. */
static st_status finest_from_voxel_file(topo *t, const char *path, bool only_inside, level *L,
                                        st_error *err)
{
    FILE *fp = open_regular(path, "r");
    if (!fp)
        return st_component_error(&t->base, "fileTopology", err, ST_EIO, "cannot open '%s'",
                                  path);
    int nv[3];
    float dv[3];
    st_status st = ST_OK;
    if (fscanf(fp, "%d %d %d %f %f %f", &nv[0], &nv[1], &nv[2], &dv[0], &dv[1], &dv[2]) != 6) {
        st = st_component_error(&t->base, "fileTopology", err, ST_EINVAL,
                                "%s: a .voxel file starts with the voxel counts nx ny nz and "
                                "the voxel size dx dy dz",
                                path);
        goto done;
    }
    int n[3];
    double lo[3] = {0, 0, 0}, hi[3];
    for (int a = 0; a < 3; a++) {
        if (nv[a] < 1 || nv[a] > 100000) {
            st = st_component_error(&t->base, "fileTopology", err, ST_EINVAL,
                                    "%s: voxel count %d on axis %d must be in 1..100000", path,
                                    nv[a], a);
            goto done;
        }
        n[a] = nv[a] + 1;
        /* the extent is checked before SOFA's truncation to an int */
        double ext = (double)dv[a] * nv[a];
        if (!(ext > -1e9 && ext < 1e9)) {
            st = st_component_error(&t->base, "fileTopology", err, ST_EINVAL,
                                    "%s: the grid extent on axis %d, %g * %d, is not a finite "
                                    "size below 1e9",
                                    path, a, (double)dv[a], nv[a]);
            goto done;
        }
        hi[a] = (int)(dv[a] * (float)nv[a]);
        if (!(hi[a] > 0)) {
            st = st_component_error(&t->base, "fileTopology", err, ST_EINVAL,
                                    "%s: the grid extent on axis %d, (int)(%g * %d), is %g: SOFA "
                                    "truncates dx * nx to an integer, so voxels this small give "
                                    "a flat grid",
                                    path, a, (double)dv[a], nv[a], hi[a]);
            goto done;
        }
    }
    grid_setup(&L->g, n, lo, hi);
    size_t nc = grid_cells(&L->g);
    unsigned char *type = st_malloc(nc + 1);
    if (!type) {
        st = st_error_set(err, ST_ENOMEM, "out of memory (%zu voxels)", nc);
        goto done;
    }
    for (size_t i = 0; i < nc && st == ST_OK; i++) {
        int v;
        if (fscanf(fp, "%d", &v) != 1)
            st = st_component_error(&t->base, "fileTopology", err, ST_EINVAL,
                                    "%s: %zu voxel values expected, found %zu", path, nc, i);
        type[i] = v != 0 ? CELL_INSIDE : CELL_OUTSIDE;
    }
    if (st == ST_OK)
        st = level_from_types(L, type, only_inside, t->fill_weighted, err);
    st_free(type);
done:
    fclose(fp);
    return st;
}

/* A binary .raw file as SOFA's buildFromRawVoxelFile reads it: one byte per
 * voxel of dataResolution (x fastest), non-zero is matter. The grid keeps n
 * and spans 0 to voxelSize * dataResolution; voxel (x, y, z) marks INSIDE
 * the cell (int)(x t0), (int)(y t1), (int)(z t2) with t = (n - 1) /
 * dataResolution. */
static st_status finest_from_raw_file(topo *t, const char *path, const int n[3],
                                      bool only_inside, level *L, st_error *err)
{
    int res[3];
    double lo[3] = {0, 0, 0}, hi[3], tr[3];
    for (int a = 0; a < 3; a++) {
        double r = t->data_resolution[a];
        if (r != floor(r) || !(r >= 1 && r <= 100000))
            return st_component_error(&t->base, "dataResolution", err, ST_EINVAL,
                                      "a .raw file needs dataResolution: three integers >= 1 "
                                      "(the voxel counts), got %g %g %g",
                                      t->data_resolution[0], t->data_resolution[1],
                                      t->data_resolution[2]);
        res[a] = (int)r;
        hi[a] = t->voxel_size[a] * res[a];
        tr[a] = (n[a] - 1) / (double)res[a];
        if (!(hi[a] > 0))
            return st_component_error(&t->base, "voxelSize", err, ST_EINVAL,
                                      "voxelSize must be > 0, got %g %g %g", t->voxel_size[0],
                                      t->voxel_size[1], t->voxel_size[2]);
    }
    FILE *fp = open_regular(path, "rb");
    if (!fp)
        return st_component_error(&t->base, "fileTopology", err, ST_EIO, "cannot open '%s'",
                                  path);
    grid_setup(&L->g, n, lo, hi);
    size_t nc = grid_cells(&L->g);
    size_t nvox = (size_t)res[0] * (size_t)res[1] * (size_t)res[2];
    unsigned char *type = st_calloc(nc + 1, 1); /* CELL_OUTSIDE */
    st_status st = ST_OK;
    if (!type) {
        st = st_error_set(err, ST_ENOMEM, "out of memory (%zu cells)", nc);
        goto done;
    }
    for (size_t i = 0; i < nvox; i++) {
        int v = getc(fp);
        if (v == EOF) {
            st = st_component_error(&t->base, "fileTopology", err, ST_EINVAL,
                                    "%s: dataResolution %d x %d x %d needs %zu bytes, the file "
                                    "has %zu",
                                    path, res[0], res[1], res[2], nvox, i);
            goto done;
        }
        if (v == 0)
            continue;
        size_t x = i % (size_t)res[0], y = i / (size_t)res[0] % (size_t)res[1],
               z = i / ((size_t)res[0] * (size_t)res[1]);
        type[cell_index(&L->g, (int)(unsigned)((double)x * tr[0]),
                        (int)(unsigned)((double)y * tr[1]), (int)(unsigned)((double)z * tr[2]))] =
            CELL_INSIDE;
    }
    st = level_from_types(L, type, only_inside, t->fill_weighted, err);
done:
    st_free(type);
    fclose(fp);
    return st;
}

/* SparseGridMultipleTopology's buildAsFinest: every file of fileTopologies
 * (OBJ surfaces; a file not found is skipped, as SOFA does) voxelised on
 * one grid over the box of them all (min and max when set, else their
 * bounding box grown by 1 % per side); then, file after file, a cell INSIDE
 * in it (or BOUNDARY without fillWeighted) becomes INSIDE with the file's
 * coefficients, a BOUNDARY cell (fillWeighted) becomes BOUNDARY unless
 * already INSIDE, its coefficients the file's (erasePreviousCoef) or the
 * mean of the previous ones and the file's, in single precision, the
 * previous ones starting at 0. */
static st_status finest_from_multiple(topo *t, const int n[3], bool only_inside, level *L,
                                      st_error *err)
{
    st_component *self = &t->base;
    size_t nf = t->file_topologies.n;
    surface *sf = st_calloc(nf + 1, sizeof *sf);
    if (!sf)
        return st_error_set(err, ST_ENOMEM, "out of memory reading %zu surfaces", nf);
    st_status st = ST_OK;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < nf && st == ST_OK; i++) {
        const char *name = t->file_topologies.s[i];
        char path[4096];
        st_error miss = {0};
        if (!name || st_component_find_file(self, "fileTopologies", name, path, sizeof path,
                                            &miss) != ST_OK) {
            st_component_warn_field(self, "fileTopologies",
                                    "'%s' not found: skipped (as SOFA does)", name ? name : "");
            continue;
        }
        if (!has_suffix(name, ".obj")) {
            st = st_component_error(self, "fileTopologies", err, ST_EINVAL,
                                    "'%s': only OBJ surfaces are read here (SOFA also reads "
                                    ".trian)",
                                    name);
            break;
        }
        st = read_obj_file(t, path, &sf[i], err);
        for (size_t v = 0; st == ST_OK && v < sf[i].nv; v++)
            for (int a = 0; a < 3; a++) {
                double x = sf[i].x[3 * v + (size_t)a];
                lo[a] = x < lo[a] ? x : lo[a];
                hi[a] = x > hi[a] ? x : hi[a];
            }
    }
    bool box_set = t->min[0] != 0 || t->min[1] != 0 || t->min[2] != 0 || t->max[0] != 0 ||
                   t->max[1] != 0 || t->max[2] != 0;
    if (st == ST_OK && !box_set && !(lo[0] <= hi[0]))
        st = st_component_error(self, "fileTopologies", err, ST_ESCENE,
                                "none of the %zu fileTopologies was found or has points", nf);
    unsigned char *type = NULL, *all = NULL;
    float *k = NULL, *m = NULL;
    if (st == ST_OK) {
        double blo[3], bhi[3];
        for (int a = 0; a < 3; a++) {
            double grow_by = (hi[a] - lo[a]) / 100.0;
            blo[a] = box_set ? t->min[a] : lo[a] - grow_by;
            bhi[a] = box_set ? t->max[a] : hi[a] + grow_by;
        }
        grid_setup(&L->g, n, blo, bhi);
        size_t nc = grid_cells(&L->g);
        type = st_malloc(nc + 1);
        all = st_calloc(nc + 1, 1); /* CELL_OUTSIDE */
        k = st_calloc(nc + 1, sizeof *k);
        m = st_calloc(nc + 1, sizeof *m);
        if (!type || !all || !k || !m)
            st = st_error_set(err, ST_ENOMEM, "out of memory (%zu cells)", nc);
        for (size_t i = 0; i < nf && st == ST_OK; i++) {
            if (!sf[i].nv)
                continue;
            st = voxelize(t, &L->g, &sf[i], type, nc, err);
            float ks = i < t->data_stiffness.n ? (float)t->data_stiffness.r[i] : 1.0f;
            float ms = i < t->data_mass.n ? (float)t->data_mass.r[i] : 1.0f;
            for (size_t c = 0; c < nc && st == ST_OK; c++) {
                if (type[c] == CELL_INSIDE || (type[c] == CELL_BOUNDARY && !t->fill_weighted)) {
                    all[c] = CELL_INSIDE;
                    k[c] = ks;
                    m[c] = ms;
                } else if (type[c] == CELL_BOUNDARY) {
                    if (all[c] != CELL_INSIDE)
                        all[c] = CELL_BOUNDARY;
                    k[c] = t->erase_previous_coef ? ks : (k[c] + ks) * .5f;
                    m[c] = t->erase_previous_coef ? ms : (m[c] + ms) * .5f;
                }
            }
        }
    }
    if (st == ST_OK)
        st = level_from_types(L, all, only_inside, false, err);
    for (size_t h = 0; st == ST_OK && h < L->nh; h++) {
        L->kcoef[h] = k[L->cell[h]];
        L->mcoef[h] = m[L->cell[h]];
    }
    for (size_t i = 0; i < nf; i++)
        surface_free(&sf[i]);
    st_free(sf), st_free(type), st_free(all), st_free(k), st_free(m);
    return st;
}

enum { SRC_SURFACE, SRC_VOXEL, SRC_RAW, SRC_MULTIPLE };

st_status sg_record_finest(topo *t, const level *F, st_error *err)
{
    size_t nc = grid_cells(&F->g);
    ST_TRY(st_array_resize(&t->finest_kcoefs, ST_T_REALS, nc, err));
    ST_TRY(st_array_resize(&t->finest_cells, ST_T_UINTS, nc, err));
    for (size_t c = 0; c < nc; c++) {
        size_t h = F->hexa_of[c];
        t->finest_kcoefs.r[c] = h == (size_t)-1 ? 0.0 : F->kcoef[h];
        t->finest_cells.u[c] = h == (size_t)-1 ? UINT_MAX : 0;
    }
    for (int a = 0; a < 3; a++) {
        t->finest_n[a] = F->g.n[a];
        t->finest_min[a] = F->g.lo[a];
        t->finest_max[a] = F->g.hi[a];
    }
    return ST_OK;
}

/* A plain grid's finestCells: each finest cell holding a hexahedron gets
 * the coarsest hexahedron of its ancestor cell, `levels` times coarser. */
static void finest_to_coarsest(topo *t, const sgrid *fine, const level *C, int levels)
{
    size_t nc = grid_cells(fine);
    for (size_t c = 0; c < nc; c++) {
        if (t->finest_cells.u[c] == UINT_MAX)
            continue;
        int ijk[3];
        cell_coords(fine, c, ijk);
        size_t h = C->hexa_of[cell_index(&C->g, ijk[0] >> levels, ijk[1] >> levels,
                                         ijk[2] >> levels)];
        t->finest_cells.u[c] = h == (size_t)-1 ? UINT_MAX : (unsigned)h;
    }
}

static st_status sparse_build(topo *t, int src, const char *path, surface *s, st_error *err)
{
    int n[3] = {(int)t->n[0], (int)t->n[1], (int)t->n[2]};
    int levels = t->nb_virtual_finer;
    /* SOFA's buildVirtualFinerLevels: the finest level is a fresh grid of
     * (n - 1) 2^levels + 1 points per axis over the same min and max, built
     * from the same source with fillWeighted copied and every other field at
     * its default (onlyInsideCells false, cellWidth 0); each coarser level is
     * built from the one below, the component itself last. */
    for (int l = 0; l < levels; l++)
        for (int a = 0; a < 3; a++)
            n[a] = (n[a] - 1) * 2 + 1;
    bool only_inside = levels ? false : t->only_inside_cells;
    level cur = {0};
    st_status st;
    if (src == SRC_MULTIPLE)
        st = finest_from_multiple(t, n, only_inside, &cur, err);
    else if (src == SRC_VOXEL)
        st = finest_from_voxel_file(t, path, only_inside, &cur, err);
    else if (src == SRC_RAW)
        st = finest_from_raw_file(t, path, n, only_inside, &cur, err);
    else
        st = finest_from_surface(t, s, n, levels == 0, only_inside, &cur, err);
    if (st == ST_OK) {
        st_array_free(&t->triangles, ST_T_TRIANGLES);
        st_array_free(&t->tetrahedra, ST_T_TETRAS);
    }
    sgrid finest_grid = cur.g;
    if (st == ST_OK && levels > 0)
        st = sg_record_finest(t, &cur, err);
    /* SparseGridRamificationTopology: connexions from the finest level when
     * it has virtual levels or tests the finest connectivity; otherwise it
     * builds as SparseGridTopology. */
    if (st == ST_OK && t->ramification && (levels > 0 || t->finest_connectivity))
        return sg_ramify(t, &cur, levels, s, src == SRC_RAW, err);
    for (int l = 0; l < levels && st == ST_OK; l++) {
        level coarse = {0};
        st = level_coarsen(&cur, &coarse, err);
        sg_level_free(&cur);
        cur = coarse;
    }
    if (st == ST_OK && levels > 0)
        finest_to_coarsest(t, &finest_grid, &cur, levels);
    if (st == ST_OK)
        st = build_mesh(t, &cur, err);
    if (st == ST_OK && t->ramification)
        st = sg_lookup_plain(t, &cur, src == SRC_RAW, err);
    sg_level_free(&cur);
    return st;
}

static st_status sparse_init(st_component *self, st_error *err)
{
    topo *t = (topo *)self;
    if (t->sparse_built)
        return ST_OK;
    if (t->nb_virtual_finer < 0 || t->nb_virtual_finer > 8)
        return st_component_error(self, "nbVirtualFinerLevels", err, ST_EINVAL,
                                  "nbVirtualFinerLevels must be in 0..8, got %d",
                                  t->nb_virtual_finer);
    if (t->facets.n)
        return st_component_error(self, "facets", err, ST_EINVAL,
                                  "facets are not supported by settee yet: give the surface as "
                                  "triangles and quads, or fileTopology");
    for (int a = 0; a < 3; a++) {
        if (t->n[a] != floor(t->n[a]) || !(fabs(t->n[a]) < 1e6))
            return st_component_error(self, "n", err, ST_EINVAL,
                                      "n must hold three integers, got %g %g %g", t->n[0],
                                      t->n[1], t->n[2]);
        if (t->n[a] < 2)
            t->n[a] = 2;
        if (t->nb_virtual_finer && ldexp(t->n[a] - 1, t->nb_virtual_finer) > 4096)
            return st_component_error(self, "nbVirtualFinerLevels", err, ST_EINVAL,
                                      "the finest virtual level would have (%g - 1) * 2^%d + 1 "
                                      "points on an axis: more than 4097",
                                      t->n[a], t->nb_virtual_finer);
    }
    if (t->cell_width < 0)
        return st_component_error(self, "cellWidth", err, ST_EINVAL,
                                  "cellWidth must be >= 0, got %g", t->cell_width);
    surface s = {0};
    st_status st = ST_OK;
    int src = SRC_SURFACE;
    char path[4096] = "";
    if (t->filename && t->filename[0]) {
        if (has_ext(t->filename, ".raw"))
            src = SRC_RAW;
        else if (has_ext(t->filename, ".voxel"))
            src = SRC_VOXEL;
        else if (!has_suffix(t->filename, ".obj"))
            return st_component_error(self, "fileTopology", err, ST_EINVAL,
                                      "Loading mesh %s failed: only OBJ surfaces and .voxel / "
                                      ".raw voxel files are read here (or give position, "
                                      "triangles and quads, e.g. from a loader with src)",
                                      t->filename);
        if (src == SRC_RAW && t->nb_virtual_finer)
            return st_component_error(self, "nbVirtualFinerLevels", err, ST_EINVAL,
                                      "a .raw file with virtual finer levels: SOFA gives its "
                                      "finest virtual level neither dataResolution nor "
                                      "voxelSize, so it builds an empty grid; use "
                                      "nbVirtualFinerLevels 0 or a .voxel file");
        ST_TRY(st_component_find_file(self, "fileTopology", t->filename, path, sizeof path,
                                      err));
        if (src == SRC_SURFACE)
            st = read_obj_file(t, t->filename, &s, err);
    } else {
        ST_TRY(topo_copy_src(t, err));
        st = surface_from_lists(t, &s, err);
    }
    if (t->multiple) {
        /* The surfaces are fileTopologies; fileTopology (or the lists) only
         * serves the finest connectivity test. */
        if (src != SRC_SURFACE)
            return st_component_error(self, "fileTopology", err, ST_EINVAL,
                                      "a SparseGridMultipleTopology voxelises fileTopologies; "
                                      "fileTopology may only be an OBJ surface (for "
                                      "finestConnectivity)");
        if (t->file_topologies.n == 0)
            st = st_component_error(self, "fileTopologies", err, ST_ESCENE,
                                    "No file topology provided: give the surfaces to voxelise "
                                    "in fileTopologies");
        if (st == ST_OK && t->data_stiffness.n < t->file_topologies.n)
            st_component_warn_field(self, "stiffnessCoefs",
                                    "not enough stiffnessCoefs (%zu for %zu files): 1 for the "
                                    "others",
                                    t->data_stiffness.n, t->file_topologies.n);
        if (st == ST_OK && t->data_mass.n < t->file_topologies.n)
            st_component_warn_field(self, "massCoefs",
                                    "not enough massCoefs (%zu for %zu files): 1 for the others",
                                    t->data_mass.n, t->file_topologies.n);
        t->ramification = t->compute_ramifications;
        src = SRC_MULTIPLE;
    }
    if (st == ST_OK && src == SRC_SURFACE && s.nv == 0)
        st = st_component_error(self, "fileTopology", err, ST_ESCENE,
                                "no filename specified nor vertices given as parameters: give "
                                "fileTopology or position with triangles and quads");
    if (st == ST_OK && (src == SRC_SURFACE || src == SRC_MULTIPLE) && t->nb_virtual_finer &&
        t->cell_width > 0)
        st_component_warn_field(self, "cellWidth",
                                "ignored with nbVirtualFinerLevels (as in SOFA, the grids use "
                                "n = %g %g %g)",
                                t->n[0], t->n[1], t->n[2]);
    if (st == ST_OK && t->nb_virtual_finer && t->only_inside_cells)
        st_component_warn_field(self, "onlyInsideCells",
                                "ignored with nbVirtualFinerLevels (as in SOFA, the coarse grid "
                                "keeps every cell holding a fine cell)");
    if (st == ST_OK)
        st = sparse_build(t, src, path, &s, err);
    surface_free(&s);
    ST_TRY(st);
    if (t->hexahedra.n == 0)
        st_component_warn(self, "the surface encloses no cell of the %gx%gx%g grid", t->n[0],
                          t->n[1], t->n[2]);
    t->sparse_built = true;
    t->lists_ready = true;
    touch_all(t);
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* SOFA's SparseGridTopology builds itself when first asked for its points
 * or hexahedra (getNbPoints, getHexahedra call init): a MechanicalObject
 * before the grid in its node gets the grid's points. Errors are left to
 * the grid's own init, which reports them. */
static void sparse_ensure(st_component *self)
{
    topo *t = (topo *)self;
    if (t->sparse_built)
        return;
    st_error err = {0};
    if (st_component_update_inputs(self, &err) == ST_OK)
        (void)sparse_init(self, &err);
}

static size_t sparse_nb_points(st_component *self)
{
    sparse_ensure(self);
    return ((topo *)self)->position.n;
}

static void sparse_get_point(st_component *self, size_t i, double p[3])
{
    topo *t = (topo *)self;
    sparse_ensure(self);
    if (i < t->position.n)
        memcpy(p, t->position.r + 3 * i, 3 * sizeof(double));
    else
        p[0] = p[1] = p[2] = 0.0;
}

static const st_array *sparse_elements(st_component *self, st_type kind)
{
    topo *t = (topo *)self;
    sparse_ensure(self);
    switch (kind) {
    case ST_T_EDGES: return &t->edges;
    case ST_T_TRIANGLES: return &t->triangles;
    case ST_T_QUADS: return &t->quads;
    case ST_T_TETRAS: return &t->tetrahedra;
    case ST_T_HEXAS: return &t->hexahedra;
    default: return NULL;
    }
}

static const st_topology_ops sparse_ops = {
    .struct_size = sizeof(st_topology_ops),
    .nb_points = sparse_nb_points,
    .get_point = sparse_get_point,
    .elements = sparse_elements,
    .remove = topo_remove,
    .add = topo_add,
    .can_change = topo_can_change,
};

static st_status sparse_create(st_component *self, st_error *err)
{
    (void)err;
    ((topo *)self)->kind = TOPO_MESH;
    return ST_OK;
}

static st_status ramification_create(st_component *self, st_error *err)
{
    (void)err;
    ((topo *)self)->kind = TOPO_MESH;
    ((topo *)self)->ramification = true;
    return ST_OK;
}

/* SparseGridTopology's fields, SparseGridRamificationTopology's first. */
#define SPARSE_GRID_HEAD                                                                           \
    TOPO_F_POSITION(0),                                                                            \
    TOPO_F_EDGES(0),                                                                               \
    TOPO_F_TRIANGLES(0),                                                                           \
    TOPO_F_QUADS(0),                                                                               \
    TOPO_F_TETRAS(0),                                                                              \
    TOPO_F_HEXAS(0),                                                                               \
    ST_FIELD_EX(topo, filename, "filename", ST_T_STRING, char *, NULL,                             \
                "Closed surface to voxelise (an OBJ file), or a voxel file (.voxel ASCII, .raw "   \
                "binary)", 0,                                                                      \
                "fileTopology", 0.0, 0.0),                                                         \
    TOPO_F_SRC,                                                                                    \
    ST_VEC3(topo, n, "n", "2 2 2", "grid resolution"),                                             \
    ST_VEC3(topo, min, "min", "0 0 0", "Min"),                                                     \
    ST_VEC3(topo, max, "max", "0 0 0", "Max"),                                                     \
    ST_REAL(topo, cell_width, "cellWidth", "0",                                                    \
            "if > 0 : dimension of each cell in the created grid"),                                \
    ST_BOOL(topo, fill_weighted, "fillWeighted", "true",                                           \
            "Is quantity of matter inside a cell taken into account? (.5 for boundary, 1 for "     \
            "inside)"),                                                                            \
    ST_BOOL(topo, only_inside_cells, "onlyInsideCells", "false",                                   \
            "Select only inside cells (exclude boundary cells)"),                                  \
    ST_INT(topo, nb_virtual_finer, "nbVirtualFinerLevels", "0",                                    \
           "create virtual (not in the animation tree) finer sparse grids in order to dispose of " \
           "finest information (useful to compute better mechanical properties for example)"),     \
    ST_VEC3(topo, data_resolution, "dataResolution", "0 0 0",                                      \
            "Dimension of the voxel File (voxels per axis of a .raw file)"),                       \
    ST_VEC3(topo, voxel_size, "voxelSize", "1 1 1", "Dimension of one voxel (.raw files)"),        \
    ST_IGNORED(topo, mc_step, "marchingCubeStep", ST_T_UINT, unsigned, "1",                        \
               "Step of the Marching Cube algorithm (ignored: only for the marching-cubes surface "\
               "SOFA writes from a .raw grid into an empty child topology, not generated here)"),  \
    ST_IGNORED(topo, conv_size, "convolutionSize", ST_T_UINT, unsigned, "0",                       \
               "Dimension of the convolution kernel to smooth the voxels (ignored: only for the "  \
               "marching-cubes surface of a .raw grid, not generated here)"),                      \
    ST_UINTS(topo, facets, "facets", NULL,                                                         \
             "Input mesh facets (not supported yet: an error when given; use triangles and "       \
             "quads)"),                                                                            \
    ST_OUTPUT(topo, cell_types, "cellTypes", ST_T_UINTS, st_array,                                 \
              "settee output: per hexahedron, 1 on the surface (BOUNDARY), 2 inside (INSIDE)")

#define SPARSE_GRID_COEFS                                                                          \
    ST_OUTPUT(topo, stiffness_coefs, "stiffnessCoefs", ST_T_REALS, st_array,                       \
              "settee output: per hexahedron, SOFA's getStiffnessCoef (0.5 on the boundary with "  \
              "fillWeighted, else 1; with nbVirtualFinerLevels the filled fraction)"),             \
    ST_OUTPUT(topo, mass_coefs, "massCoefs", ST_T_REALS, st_array,                                 \
              "settee output: per hexahedron, SOFA's getMassCoef (0.5 on the boundary with "       \
              "fillWeighted, else 1; with nbVirtualFinerLevels the filled fraction)")

#define SPARSE_GRID_TAIL                                                                           \
    ST_IGNORED(topo, compute_all_buffers, "computeAllBuffers", ST_T_BOOL, bool, "false",           \
               "Compute the cross-element buffers at init instead of on demand"),                  \
    TOPO_DRAW(draw_edges, "drawEdges", "edges"),                                                   \
    TOPO_DRAW(draw_triangles, "drawTriangles", "triangles"),                                       \
    TOPO_DRAW(draw_quads, "drawQuads", "quads"),                                                   \
    TOPO_DRAW(draw_tetrahedra, "drawTetrahedra", "tetrahedra"),                                    \
    TOPO_DRAW(draw_hexahedra, "drawHexahedra", "hexahedra")

#define SPARSE_GRID_FIELDS SPARSE_GRID_HEAD, SPARSE_GRID_COEFS, SPARSE_GRID_TAIL

/* Internal outputs (not listed by inspect): the ramified grids' lookup;
 * the finest virtual level's stiffness coefficients. */
#define HIDDEN_OUT(m, key, T, CT, help)                                                           \
    ST_FIELD_EX(topo, m, key, T, CT, NULL, help, ST_F_OUTPUT | ST_F_HIDDEN, NULL, 0.0, 0.0)
#define FINEST_COEFS                                                                               \
    HIDDEN_OUT(finest_kcoefs, "finestStiffnessCoefs", ST_T_REALS, st_array,                        \
               "per regular cell of the finest virtual level: its stiffness coefficient (0: no "   \
               "hexahedron)")
#define FINEST_GRID                                                                                \
    HIDDEN_OUT(finest_n, "finestN", ST_T_VEC3, st_vec3, "points per axis of the finest level"),    \
    HIDDEN_OUT(finest_min, "finestMin", ST_T_VEC3, st_vec3, "min of the finest level"),            \
    HIDDEN_OUT(finest_max, "finestMax", ST_T_VEC3, st_vec3, "max of the finest level"),            \
    HIDDEN_OUT(finest_cells, "finestCells", ST_T_UINTS, st_array,                                  \
               "per regular cell of the finest level: its coarsest hexahedron (4294967295: none)")

static const st_field sparse_fields[] = {SPARSE_GRID_FIELDS, FINEST_GRID, FINEST_COEFS,
                                         ST_FIELD_END};

static const char *const sparse_aliases[] = {"SparseGrid", NULL};

const st_class sparse_grid_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "SparseGridTopology",
    .category = "Topology",
    .description = "Sparse grid in 3D: the cells of a regular grid touched or enclosed by a "
                   "closed surface",
    .aliases = sparse_aliases,
    .instance_size = sizeof(topo),
    .fields = sparse_fields,
    .create = sparse_create,
    .init = sparse_init,
    .reinit = sparse_init,
    .topology = &sparse_ops,
};

static const st_field ramification_fields[] = {
    SPARSE_GRID_FIELDS,
    ST_BOOL(topo, finest_connectivity, "finestConnectivity", "true",
            "Test for connectivity at the finest level? (more precise but slower by testing all "
            "intersections between the model mesh and the faces between boundary cubes)"),
    HIDDEN_OUT(finest_n, "finestN", ST_T_VEC3, st_vec3, "points per axis of the finest level"),
    HIDDEN_OUT(finest_min, "finestMin", ST_T_VEC3, st_vec3, "min of the finest level"),
    HIDDEN_OUT(finest_max, "finestMax", ST_T_VEC3, st_vec3, "max of the finest level"),
    HIDDEN_OUT(finest_cells, "finestCells", ST_T_UINTS, st_array,
               "per regular cell of the finest level: its coarsest hexahedron (4294967295: none)"),
    HIDDEN_OUT(finest_nearest, "finestNearestCells", ST_T_UINTS, st_array,
               "finest regular cells searched for the nearest cube, in hexahedron order"),
    FINEST_COEFS,
    ST_FIELD_END};

const st_class sparse_grid_ramification_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "SparseGridRamificationTopology",
    .category = "Topology",
    .description = "Sparse grid in 3D (modified): a SparseGridTopology where each cube holds one "
                   "connected piece of the object; a cube holding several pieces is repeated, "
                   "one hexahedron with its own points per piece",
    .instance_size = sizeof(topo),
    .fields = ramification_fields,
    .create = ramification_create,
    .init = sparse_init,
    .reinit = sparse_init,
    .topology = &sparse_ops,
};

static st_status multiple_create(st_component *self, st_error *err)
{
    (void)err;
    topo *t = (topo *)self;
    t->kind = TOPO_MESH;
    t->multiple = true;
    return ST_OK;
}

/* SparseGridMultipleTopology: its per-file stiffnessCoefs and massCoefs
 * are inputs, so the per-hexahedron coefficients come out as
 * elementStiffnessCoefs and elementMassCoefs. */
static const st_field multiple_fields[] = {
    SPARSE_GRID_HEAD,
    ST_OUTPUT(topo, stiffness_coefs, "elementStiffnessCoefs", ST_T_REALS, st_array,
              "settee output: per hexahedron, SOFA's getStiffnessCoef (from the files' "
              "stiffnessCoefs; with nbVirtualFinerLevels the children's sum over 8)"),
    ST_OUTPUT(topo, mass_coefs, "elementMassCoefs", ST_T_REALS, st_array,
              "settee output: per hexahedron, SOFA's getMassCoef (from the files' massCoefs; "
              "with nbVirtualFinerLevels the children's sum over 8)"),
    SPARSE_GRID_TAIL,
    ST_BOOL(topo, finest_connectivity, "finestConnectivity", "true",
            "Test for connectivity at the finest level? (more precise but slower by testing all "
            "intersections between the model mesh and the faces between boundary cubes; the "
            "model mesh is fileTopology)"),
    ST_STRINGS(topo, file_topologies, "fileTopologies", NULL,
               "All topology filenames (OBJ surfaces voxelised on the grid, in order)"),
    ST_REALS(topo, data_stiffness, "stiffnessCoefs", NULL,
             "A stiffness coefficient for each topology filename (1 when missing)"),
    ST_REALS(topo, data_mass, "massCoefs", NULL,
             "A mass coefficient for each topology filename (1 when missing)"),
    ST_BOOL(topo, compute_ramifications, "computeRamifications", "true",
            "Are ramifications wanted?"),
    ST_BOOL(topo, erase_previous_coef, "erasePreviousCoef", "false",
            "Does a new stiffness/mass coefficient replace the previous or blend half/half with "
            "it?"),
    HIDDEN_OUT(finest_n, "finestN", ST_T_VEC3, st_vec3, "points per axis of the finest level"),
    HIDDEN_OUT(finest_min, "finestMin", ST_T_VEC3, st_vec3, "min of the finest level"),
    HIDDEN_OUT(finest_max, "finestMax", ST_T_VEC3, st_vec3, "max of the finest level"),
    HIDDEN_OUT(finest_cells, "finestCells", ST_T_UINTS, st_array,
               "per regular cell of the finest level: its coarsest hexahedron (4294967295: none)"),
    HIDDEN_OUT(finest_nearest, "finestNearestCells", ST_T_UINTS, st_array,
               "finest regular cells searched for the nearest cube, in hexahedron order"),
    FINEST_COEFS,
    ST_FIELD_END};

const st_class sparse_grid_multiple_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "SparseGridMultipleTopology",
    .category = "Topology",
    .description = "Sparse grid in 3D from several surfaces, each with its stiffness and mass "
                   "coefficients (the last file holding a cell sets them; ramified as "
                   "SparseGridRamificationTopology unless computeRamifications is false)",
    .instance_size = sizeof(topo),
    .fields = multiple_fields,
    .create = multiple_create,
    .init = sparse_init,
    .reinit = sparse_init,
    .topology = &sparse_ops,
};
