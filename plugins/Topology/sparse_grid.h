/* sparse_grid.h - what SparseGridTopology (sparse_grid_topology.c) and
 * SparseGridRamificationTopology (sparse_grid_ramification.c) share: the
 * regular grid the cells come from, the levels of the hierarchy, the
 * surface read from the scene. Private to the Topology plugin. */
#ifndef SETTEE_PLUGIN_SPARSE_GRID_H
#define SETTEE_PLUGIN_SPARSE_GRID_H

#include <math.h>
#include <stddef.h>

#include "topology.h"

enum { CELL_OUTSIDE = 0, CELL_BOUNDARY = 1, CELL_INSIDE = 2 };

/* ---- the regular grid the cells come from ---- */

typedef struct sgrid {
    int n[3];
    double p0[3], d[3], inv[3]; /* origin, spacing, 1 / spacing^2 */
    double lo[3], hi[3];        /* the box */
} sgrid;

static inline void grid_pos(const sgrid *g, int i, int j, int k, double p[3])
{
    p[0] = g->p0[0] + g->d[0] * i;
    p[1] = g->p0[1] + g->d[1] * j;
    p[2] = g->p0[2] + g->d[2] * k;
}

static inline size_t cell_index(const sgrid *g, int i, int j, int k)
{
    return (size_t)i + (size_t)(g->n[0] - 1) * ((size_t)j + (size_t)(g->n[1] - 1) * (size_t)k);
}

static inline void cell_coords(const sgrid *g, size_t c, int ijk[3])
{
    ijk[0] = (int)(c % (size_t)(g->n[0] - 1));
    c /= (size_t)(g->n[0] - 1);
    ijk[1] = (int)(c % (size_t)(g->n[1] - 1));
    ijk[2] = (int)(c / (size_t)(g->n[1] - 1));
}

/* SOFA's RegularGridTopology::findCube; (size_t)-1 when outside. */
static inline size_t find_cell(const sgrid *g, const double pos[3])
{
    int ijk[3];
    for (int a = 0; a < 3; a++) {
        double f = ((pos[a] - g->p0[a]) * g->d[a]) * g->inv[a];
        ijk[a] = (int)floor(f);
        if (ijk[a] < 0 || ijk[a] > g->n[a] - 2)
            return (size_t)-1;
    }
    return cell_index(g, ijk[0], ijk[1], ijk[2]);
}

/* The corners of cell (i, j, k) as grid point indices, SOFA's order. */
static inline void cell_corners(const sgrid *g, int i, int j, int k, size_t c[8])
{
    static const int off[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                  {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    for (int m = 0; m < 8; m++)
        c[m] = (size_t)(i + off[m][0]) +
               (size_t)g->n[0] * ((size_t)(j + off[m][1]) + (size_t)g->n[1] * (size_t)(k + off[m][2]));
}

static inline void grid_setup(sgrid *g, const int n[3], const double lo[3], const double hi[3])
{
    for (int a = 0; a < 3; a++) {
        g->n[a] = n[a];
        g->lo[a] = g->p0[a] = lo[a];
        g->hi[a] = hi[a];
        g->d[a] = (hi[a] - lo[a]) / (n[a] - 1);
        g->inv[a] = 1 / (g->d[a] * g->d[a]);
    }
}

static inline size_t grid_cells(const sgrid *g)
{
    return (size_t)(g->n[0] - 1) * (size_t)(g->n[1] - 1) * (size_t)(g->n[2] - 1);
}

/* ---- the surface ---- */

typedef struct surface {
    double *x;          /* 3 per vertex */
    size_t nv;
    unsigned *idx;      /* facet vertex indices, concatenated */
    size_t *start;      /* nf + 1 offsets into idx */
    size_t nf;
    size_t cap_idx, cap_f, cap_v;
} surface;

/* One level of SOFA's sparse grid hierarchy: the hexahedra in their order,
 * each with its regular cell, its type and its stiffness and mass
 * coefficients (SOFA's getStiffnessCoef / getMassCoef). */
typedef struct level {
    sgrid g;
    size_t nh;
    size_t *cell;          /* regular cell index per hexahedron */
    unsigned char *type;   /* CELL_BOUNDARY or CELL_INSIDE per hexahedron */
    double *kcoef, *mcoef; /* per hexahedron */
    size_t *hexa_of;       /* per regular cell: its hexahedron, or (size_t)-1 */
} level;

void sg_level_free(level *L);
/* Allocates the per-cell arrays of L for its grid (no hexahedron yet). */
st_status sg_level_alloc(level *L, st_error *err);
/* Appends cell c as the next hexahedron of L. */
void sg_level_push(level *L, size_t c, unsigned char type, double k, double m);

/* Fills the component's edges and quads from its hexahedra (each
 * hexahedron's 12 edges and 6 faces as SOFA writes them, sorted,
 * duplicates removed), and sets n, min and max from grid g. */
st_status sg_mesh_tail(topo *t, const sgrid *g, st_error *err);

/* Records the finest level F's per-cell stiffness coefficients
 * (finestStiffnessCoefs, 0 where F has no hexahedron) and its grid
 * (finestN, finestMin, finestMax). */
st_status sg_record_finest(topo *t, const level *F, st_error *err);

/* SparseGridRamificationTopology (sparse_grid_ramification.c): from the
 * finest level F (built from the surface s, which has nv == 0 for a voxel
 * file), finds the connexions, coarsens `levels` times and fills the
 * component's lists and its hidden lookup outputs; all_cells: the nearest
 * search takes every finest cell (a .raw grid), else its BOUNDARY cells.
 * F is emptied. */
st_status sg_ramify(topo *t, level *F, int levels, const surface *s, bool all_cells,
                    st_error *err);
/* The lookup outputs of a SparseGridRamificationTopology built as a plain
 * sparse grid (no virtual level, finestConnectivity off): L is the final
 * level, left as it is. */
st_status sg_lookup_plain(topo *t, level *L, bool all_cells, st_error *err);

#endif
