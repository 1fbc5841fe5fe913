/* sparse_grid_ramification.c - the "ramification" of SparseGridRamificationTopology:
 * a coarse cell holding several separate pieces of the object becomes one
 * hexahedron per piece, each with its own points, as SOFA builds it.
 *
 * A connexion is one connected piece of one cell. At the finest level every
 * hexahedron is one connexion; two face-adjacent hexahedra are neighbours
 * unless finestConnectivity is set and both are BOUNDARY cells whose common
 * face no edge of the surface crosses (SOFA's sharingTriangle: for each
 * facet, the segments between its consecutive vertices v[j-1], v[j],
 * j = 1..n-1 (the closing edge is not tested), against the face cut in the
 * triangles (a, b, c) and (a, c, d); a segment parallel to the triangle
 * plane within 1e-10 of its direction never meets it, and, as SOFA passes
 * the first vertex where its test wants the segment's centre, a crossing
 * up to one segment length behind v[j-1] counts too).
 *
 * Coarsening (SOFA's buildFromFiner): the coarse grid and its non-ramified
 * cells are those of SparseGridTopology; then in each coarse cell the
 * connexions of its 8 children (children in place order 0..7) are split in
 * groups connected through neighbour links inside the cell, each group a
 * coarse connexion (ordered by the first member found); two coarse
 * connexions are neighbours when two of their children are. A cell with one
 * connexion keeps its type; the connexions of a split cell are BOUNDARY.
 * The coefficients of a coarse hexahedron are the sum of its children's
 * over 8, the children taken as SOFA takes them: for an unsplit cell the
 * finer level's non-ramified indices, for a split one only the place of its
 * last child; SOFA reads both, and the finer level's types, as indices of
 * the finer level's (ramified) hexahedra, and so does this file.
 *
 * Points (SOFA's buildRamifiedFinestLevel and the end of buildFromFiner):
 * each connexion is a hexahedron of 8 new points; then, connexion after
 * connexion, the face it shares with each neighbour BEFORE (z - 1), DOWN
 * (y - 1) and LEFT (x - 1) is glued: each of its 4 points is renamed, in
 * every hexahedron, to the neighbour's point (a union of classes keeping
 * the neighbour's name). The points are then numbered by name. Cells that
 * touch only by an edge or a corner share those points only through a
 * chain of glued faces. SOFA keeps a cell's neighbours in a set ordered by
 * address; here they are ordered by creation, which can change the point
 * order (never the points) when a connexion has several neighbours on one
 * side. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "sparse_grid.h"

enum { UP, DOWN, RIGHT, LEFT, BEFORE, BEHIND, NDIR };
#define NONE SIZE_MAX

/* A sorted set of connexion indices. */
typedef struct nset {
    size_t *v;
    size_t n, cap;
} nset;

typedef struct conn {
    size_t cell;       /* its non-ramified cell in the level */
    size_t parent;     /* connexion of the next coarser level, or NONE */
    size_t last_child; /* the finer connexion gathered last, or NONE */
    long tmp;          /* component number while grouping */
    nset nb[NDIR];
} conn;

/* One level of the ramified hierarchy. Connexion k is hexahedron k. */
typedef struct rlevel {
    level L;              /* non-ramified cells (SOFA's cube map and nonRamifiedTypes) */
    conn *c;
    size_t nconn;
    size_t *first;        /* L.nh + 1: connexions of cell i are first[i] .. first[i+1]-1 */
    unsigned char *htype; /* per hexahedron (SOFA's _types) */
    double *hk, *hm;      /* per hexahedron (stiffness and mass coefficients) */
} rlevel;

static void rlevel_free(rlevel *R)
{
    for (size_t k = 0; k < R->nconn; k++)
        for (int d = 0; d < NDIR; d++)
            st_free(R->c[k].nb[d].v);
    st_free(R->c), st_free(R->first), st_free(R->htype), st_free(R->hk), st_free(R->hm);
    sg_level_free(&R->L);
    memset(R, 0, sizeof *R);
}

static st_status nset_insert(nset *s, size_t x, st_error *err)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < s->n && s->v[lo] == x)
        return ST_OK;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 2;
        size_t *v = st_realloc(s->v, cap * sizeof *v);
        if (!v)
            return st_error_set(err, ST_ENOMEM, "out of memory linking grid cells");
        s->v = v;
        s->cap = cap;
    }
    memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof *s->v);
    s->v[lo] = x;
    s->n++;
    return ST_OK;
}

static st_status link(conn *c, size_t a, size_t b, int dir_of_b, st_error *err)
{
    static const int opposite[NDIR] = {DOWN, UP, LEFT, RIGHT, BEHIND, BEFORE};
    ST_TRY(nset_insert(&c[a].nb[dir_of_b], b, err));
    return nset_insert(&c[b].nb[opposite[dir_of_b]], a, err);
}

static st_status rlevel_alloc_conn(rlevel *R, size_t nconn, size_t ncells, st_error *err)
{
    R->c = st_calloc(nconn + 1, sizeof *R->c);
    R->first = st_calloc(ncells + 1, sizeof *R->first);
    R->htype = st_calloc(nconn + 1, 1);
    R->hk = st_calloc(nconn + 1, sizeof *R->hk);
    R->hm = st_calloc(nconn + 1, sizeof *R->hm);
    if (!R->c || !R->first || !R->htype || !R->hk || !R->hm)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu grid cells)", nconn);
    return ST_OK;
}

/* ---- the finest level ---- */

static void sub(double r[3], const double a[3], const double b[3])
{
    r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

/* SOFA's intersectionSegmentTriangle (Eberly's segment / triangle test on
 * the unit direction; parallel within 1e-10 is no intersection). */
static bool segment_meets_triangle(const double s0[3], const double s1[3], const double t0[3],
                                   const double t1[3], const double t2[3])
{
    double q[3], e1[3], e2[3], nrm[3], dir[3];
    sub(q, s0, t0);
    sub(e1, t1, t0);
    sub(e2, t2, t0);
    cross(nrm, e1, e2);
    sub(dir, s1, s0);
    double len = sqrt(dot(dir, dir));
    for (int a = 0; a < 3; a++)
        dir[a] /= len;
    double ddn = dot(dir, nrm), sign;
    if (ddn > 1.0e-10) {
        sign = 1.0;
    } else if (ddn < -1.0e-10) {
        sign = -1.0;
        ddn = -ddn;
    } else {
        return false;
    }
    double t[3];
    cross(t, q, e2);
    double b1 = sign * dot(dir, t);
    if (b1 < 0)
        return false;
    cross(t, e1, q);
    double b2 = sign * dot(dir, t);
    if (b2 < 0 || b1 + b2 > ddn)
        return false;
    double qdn = -sign * dot(q, nrm), ext = len * ddn;
    return -ext <= qdn && qdn <= ext;
}

/* SOFA's sharingTriangle for cell (x, y, z) and its neighbour on side dir
 * (LEFT, DOWN or BEFORE): whether an edge of the surface crosses their
 * common face. */
static bool face_crossed(const sgrid *g, const surface *s, int x, int y, int z, int dir)
{
    /* The face's corners (SOFA's hexahedron corners 0 4 7 3, 0 1 5 4 or
     * 0 1 2 3). */
    static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                     {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    static const int face_left[4] = {0, 4, 7, 3}, face_down[4] = {0, 1, 5, 4},
                     face_before[4] = {0, 1, 2, 3};
    const int *f = dir == LEFT ? face_left : dir == DOWN ? face_down : face_before;
    double q[4][3];
    for (int m = 0; m < 4; m++)
        grid_pos(g, x + corner[f[m]][0], y + corner[f[m]][1], z + corner[f[m]][2], q[m]);
    for (size_t k = 0; k < s->nf; k++)
        for (size_t j = s->start[k] + 1; j < s->start[k + 1]; j++) {
            const double *A = s->x + 3 * (size_t)s->idx[j - 1], *B = s->x + 3 * (size_t)s->idx[j];
            if (segment_meets_triangle(A, B, q[0], q[1], q[2]) ||
                segment_meets_triangle(A, B, q[0], q[2], q[3]))
                return true;
        }
    return false;
}

/* SOFA's findConnexionsAtFinestLevel: one connexion per hexahedron, linked
 * to its face neighbours (x - 1, y - 1, z - 1 as LEFT, DOWN, BEFORE). With
 * `test` two BOUNDARY cells are linked only when the surface crosses their
 * common face. */
static st_status finest_connexions(rlevel *R, const surface *s, bool test, st_error *err)
{
    level *L = &R->L;
    ST_TRY(rlevel_alloc_conn(R, L->nh, L->nh, err));
    R->nconn = L->nh;
    for (size_t h = 0; h < L->nh; h++) {
        R->c[h].cell = h;
        R->c[h].parent = R->c[h].last_child = NONE;
        R->first[h] = h;
        R->htype[h] = L->type[h];
        R->hk[h] = L->kcoef[h];
        R->hm[h] = L->mcoef[h];
    }
    R->first[L->nh] = L->nh;
    const sgrid *g = &L->g;
    for (int z = 0; z < g->n[2] - 1; z++)
        for (int y = 0; y < g->n[1] - 1; y++)
            for (int x = 0; x < g->n[0] - 1; x++) {
                size_t h = L->hexa_of[cell_index(g, x, y, z)];
                if (h == NONE)
                    continue;
                const int dirs[3] = {LEFT, DOWN, BEFORE};
                for (int a = 0; a < 3; a++) {
                    int q[3] = {x, y, z};
                    if (--q[a] < 0)
                        continue;
                    size_t o = L->hexa_of[cell_index(g, q[0], q[1], q[2])];
                    if (o == NONE)
                        continue;
                    if (test && L->type[h] == CELL_BOUNDARY && L->type[o] == CELL_BOUNDARY &&
                        !face_crossed(g, s, x, y, z, dirs[a]))
                        continue;
                    ST_TRY(link(R->c, h, o, dirs[a], err));
                }
            }
    return ST_OK;
}

/* ---- coarsening ---- */

static st_status coarsen(rlevel *F, rlevel *C, st_error *err)
{
    const sgrid *fg = &F->L.g;
    int n[3];
    double hi[3];
    for (int a = 0; a < 3; a++) {
        n[a] = fg->n[a] / 2 + 1;
        hi[a] = fg->lo[a] + (n[a] - 1) * 2.0 * fg->d[a];
    }
    grid_setup(&C->L.g, n, fg->lo, hi);
    ST_TRY(sg_level_alloc(&C->L, err));
    size_t ncells = grid_cells(&C->L.g);
    size_t *ch = st_malloc((8 * ncells + 1) * sizeof *ch);
    size_t *members = st_malloc((8 * F->nconn + 8) * sizeof *members);
    unsigned char *place = st_malloc(8 * F->nconn + 8);
    size_t *stamp = st_malloc((F->nconn + 1) * sizeof *stamp);
    size_t *stack = st_malloc((F->nconn + 1) * sizeof *stack);
    st_status st = ST_OK;
    if (!ch || !members || !place || !stamp || !stack) {
        st = st_error_set(err, ST_ENOMEM, "out of memory (%zu grid cells)", ncells);
        goto done;
    }
    /* The non-ramified coarse cells, x slowest, z fastest; the finer types
     * read at the children's non-ramified indices (as SOFA's getType). */
    for (int i = 0; i < n[0] - 1; i++)
        for (int j = 0; j < n[1] - 1; j++)
            for (int k = 0; k < n[2] - 1; k++) {
                size_t kids[8];
                bool inside = true, outside = true;
                for (int w = 0; w < 8; w++) {
                    int x = 2 * i + (w & 1), y = 2 * j + (w >> 1 & 1), z = 2 * k + (w >> 2 & 1);
                    kids[w] = NONE;
                    if (x < fg->n[0] - 1 && y < fg->n[1] - 1 && z < fg->n[2] - 1)
                        kids[w] = F->L.hexa_of[cell_index(fg, x, y, z)];
                    if (kids[w] == NONE) {
                        inside = false;
                    } else if (F->htype[kids[w]] == CELL_BOUNDARY) {
                        inside = outside = false;
                    } else if (F->htype[kids[w]] == CELL_INSIDE) {
                        outside = false;
                    }
                }
                if (outside)
                    continue;
                memcpy(ch + 8 * C->L.nh, kids, sizeof kids);
                sg_level_push(&C->L, cell_index(&C->L.g, i, j, k),
                              inside ? CELL_INSIDE : CELL_BOUNDARY, 0, 0);
            }
    size_t nc = C->L.nh;
    /* At most one coarse connexion per finer connexion. */
    if ((st = rlevel_alloc_conn(C, F->nconn, nc, err)) != ST_OK)
        goto done;
    for (size_t k = 0; k < F->nconn; k++)
        stamp[k] = NONE;
    for (size_t idx = 0; idx < nc; idx++) {
        size_t nm = 0;
        for (int w = 0; w < 8; w++) {
            size_t kid = ch[8 * idx + (size_t)w];
            if (kid == NONE)
                continue;
            for (size_t k = F->first[kid]; k < F->first[kid + 1]; k++) {
                members[nm] = k;
                place[nm++] = (unsigned char)w;
                F->c[k].tmp = -1;
                stamp[k] = idx;
            }
        }
        /* Component numbers: the position of the first member reached. */
        for (size_t m = 0; m < nm; m++) {
            if (F->c[members[m]].tmp != -1)
                continue;
            size_t top = 0;
            stack[top++] = members[m];
            F->c[members[m]].tmp = (long)m;
            while (top) {
                const conn *cur = &F->c[stack[--top]];
                for (int d = 0; d < NDIR; d++)
                    for (size_t q = 0; q < cur->nb[d].n; q++) {
                        size_t o = cur->nb[d].v[q];
                        if (stamp[o] != idx || F->c[o].tmp != -1)
                            continue;
                        F->c[o].tmp = (long)m;
                        stack[top++] = o;
                    }
            }
        }
        C->first[idx] = C->nconn;
        for (size_t m = 0; m < nm; m++) {
            if (F->c[members[m]].tmp != (long)m)
                continue;
            size_t id = C->nconn++;
            conn *cc = &C->c[id];
            cc->cell = idx;
            cc->parent = NONE;
            cc->last_child = NONE;
            for (size_t r = m; r < nm; r++)
                if (F->c[members[r]].tmp == (long)m) {
                    F->c[members[r]].parent = id;
                    cc->last_child = members[r];
                }
        }
    }
    C->first[nc] = C->nconn;
    /* Neighbours: through the children's links that cross coarse cells. */
    for (size_t k = 0; k < F->nconn && st == ST_OK; k++) {
        size_t p1 = F->c[k].parent;
        for (int d = 0; d < NDIR && st == ST_OK; d++)
            for (size_t q = 0; q < F->c[k].nb[d].n && st == ST_OK; q++) {
                size_t p2 = F->c[F->c[k].nb[d].v[q]].parent;
                if (C->c[p1].cell != C->c[p2].cell)
                    st = link(C->c, p1, p2, d, err);
            }
    }
    if (st != ST_OK)
        goto done;
    /* Types and coefficients per coarse hexahedron. */
    for (size_t idx = 0; idx < nc; idx++) {
        const size_t *kids = ch + 8 * idx;
        bool split = C->first[idx + 1] - C->first[idx] > 1;
        for (size_t h = C->first[idx]; h < C->first[idx + 1]; h++) {
            size_t hier[8];
            if (!split) {
                memcpy(hier, kids, sizeof hier);
                C->htype[h] = C->L.type[idx];
            } else {
                size_t lc = C->c[h].last_child;
                for (int p = 0; p < 8; p++)
                    hier[p] = F->c[lc].cell == kids[p] ? lc : NONE;
                C->htype[h] = CELL_BOUNDARY;
            }
            double ks = 0, ms = 0;
            for (int w = 0; w < 8; w++)
                if (hier[w] != NONE) {
                    ks += F->hk[hier[w]];
                    ms += F->hm[hier[w]];
                }
            C->hk[h] = ks / 8.0;
            C->hm[h] = ms / 8.0;
        }
    }
done:
    st_free(ch), st_free(members), st_free(place), st_free(stamp), st_free(stack);
    return st;
}

/* ---- the hexahedra and points ---- */

static size_t uf_find(size_t *parent, size_t x)
{
    size_t r = x;
    while (parent[r] != r)
        r = parent[r];
    while (parent[x] != r) {
        size_t next = parent[x];
        parent[x] = r;
        x = next;
    }
    return r;
}

static st_status ramified_mesh(topo *t, const rlevel *R, st_error *err)
{
    const sgrid *g = &R->L.g;
    size_t nh = R->nconn, ns = 8 * nh;
    size_t *parent = st_malloc((ns + 1) * sizeof *parent);
    size_t *label = st_malloc((ns + 1) * sizeof *label);
    size_t *index = st_malloc((ns + 1) * sizeof *index);
    st_status st = ST_OK;
    if (!parent || !label || !index) {
        st = st_error_set(err, ST_ENOMEM, "out of memory (%zu hexahedra)", nh);
        goto done;
    }
    for (size_t i = 0; i < ns; i++)
        parent[i] = label[i] = i;
    /* Glue: (this corner, the neighbour's corner) per side. */
    static const struct {
        int dir;
        int pair[4][2];
    } glue[3] = {{BEFORE, {{0, 4}, {1, 5}, {2, 6}, {3, 7}}},
                 {DOWN, {{0, 3}, {4, 7}, {5, 6}, {1, 2}}},
                 {LEFT, {{0, 1}, {4, 5}, {7, 6}, {3, 2}}}};
    for (size_t h = 0; h < nh; h++)
        for (int s = 0; s < 3; s++) {
            const nset *nb = &R->c[h].nb[glue[s].dir];
            for (size_t q = 0; q < nb->n; q++)
                for (int m = 0; m < 4; m++) {
                    size_t a = uf_find(parent, 8 * h + (size_t)glue[s].pair[m][0]);
                    size_t b = uf_find(parent, 8 * nb->v[q] + (size_t)glue[s].pair[m][1]);
                    if (a != b)
                        parent[a] = b; /* the class keeps the neighbour's name */
                }
        }
    /* Points numbered by name; a name is used when it names a class. */
    for (size_t i = 0; i < ns; i++)
        index[i] = NONE;
    for (size_t i = 0; i < ns; i++)
        index[label[uf_find(parent, i)]] = 0;
    size_t np = 0;
    for (size_t i = 0; i < ns; i++)
        if (index[i] != NONE)
            index[i] = np++;
    if ((st = st_array_resize(&t->position, ST_T_VEC3S, np, err)) != ST_OK ||
        (st = st_array_resize(&t->hexahedra, ST_T_HEXAS, nh, err)) != ST_OK ||
        (st = st_array_resize(&t->cell_types, ST_T_UINTS, nh, err)) != ST_OK ||
        (st = st_array_resize(&t->stiffness_coefs, ST_T_REALS, nh, err)) != ST_OK ||
        (st = st_array_resize(&t->mass_coefs, ST_T_REALS, nh, err)) != ST_OK)
        goto done;
    static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                     {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    for (size_t h = 0; h < nh; h++) {
        int ijk[3];
        cell_coords(g, R->L.cell[R->c[h].cell], ijk);
        for (int m = 0; m < 8; m++) {
            size_t p = index[label[uf_find(parent, 8 * h + (size_t)m)]];
            t->hexahedra.u[8 * h + (size_t)m] = (unsigned)p;
            grid_pos(g, ijk[0] + corner[m][0], ijk[1] + corner[m][1], ijk[2] + corner[m][2],
                     t->position.r + 3 * p);
        }
        t->cell_types.u[h] = R->htype[h];
        t->stiffness_coefs.r[h] = R->hk[h];
        t->mass_coefs.r[h] = R->hm[h];
    }
    st = sg_mesh_tail(t, g, err);
done:
    st_free(parent), st_free(label), st_free(index);
    return st;
}

/* The hidden outputs BarycentricMapping locates points with: the finest
 * grid, each of its cells' coarsest hexahedron, and the cells of SOFA's
 * nearest search (BOUNDARY hexahedra of the finest level, or all of them
 * for a .raw grid; hexahedron 0 when there is none). */
static st_status finest_lookup(topo *t, const rlevel *finest, const rlevel *const *chain,
                               int nchain, bool all_cells, st_error *err)
{
    const level *L = &finest->L;
    size_t nc = grid_cells(&L->g);
    ST_TRY(st_array_resize(&t->finest_cells, ST_T_UINTS, nc, err));
    for (size_t c = 0; c < nc; c++) {
        size_t h = L->hexa_of[c];
        if (h != NONE) {
            h = finest->first[h];
            for (int l = 0; l < nchain; l++)
                h = chain[l]->c[h].parent;
        }
        t->finest_cells.u[c] = h == NONE ? UINT_MAX : (unsigned)h;
    }
    size_t nn = 0;
    for (size_t h = 0; h < L->nh; h++)
        nn += all_cells || L->type[h] == CELL_BOUNDARY;
    ST_TRY(st_array_resize(&t->finest_nearest, ST_T_UINTS, nn ? nn : 1, err));
    t->finest_nearest.u[0] = L->nh ? (unsigned)L->cell[0] : 0;
    nn = 0;
    for (size_t h = 0; h < L->nh; h++)
        if (all_cells || L->type[h] == CELL_BOUNDARY)
            t->finest_nearest.u[nn++] = (unsigned)L->cell[h];
    for (int a = 0; a < 3; a++) {
        t->finest_n[a] = L->g.n[a];
        t->finest_min[a] = L->g.lo[a];
        t->finest_max[a] = L->g.hi[a];
    }
    return ST_OK;
}

st_status sg_lookup_plain(topo *t, level *L, bool all_cells, st_error *err)
{
    rlevel R = {0};
    R.L = *L;
    R.first = st_malloc((L->nh + 1) * sizeof *R.first);
    if (!R.first)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu hexahedra)", L->nh);
    for (size_t h = 0; h <= L->nh; h++)
        R.first[h] = h;
    st_status st = finest_lookup(t, &R, NULL, 0, all_cells, err);
    st_free(R.first);
    return st;
}

st_status sg_ramify(topo *t, level *F, int levels, const surface *s, bool all_cells,
                    st_error *err)
{
    rlevel *R = st_calloc((size_t)levels + 1, sizeof *R);
    const rlevel **chain = st_calloc((size_t)levels + 1, sizeof *chain);
    st_status st = ST_OK;
    if (!R || !chain) {
        st_free(R), st_free(chain);
        sg_level_free(F);
        return st_error_set(err, ST_ENOMEM, "out of memory (%d grid levels)", levels + 1);
    }
    R[0].L = *F;
    memset(F, 0, sizeof *F);
    bool test = t->finest_connectivity;
    if (test && s->nv == 0) {
        /* SOFA finds no mesh to test (a voxel file, or a
         * SparseGridMultipleTopology without fileTopology) and gives up
         * linking: one connexion per hexahedron, no link. */
        st_component_warn_field(&t->base, "finestConnectivity",
                                "the finest connectivity test needs a surface mesh "
                                "(fileTopology as an OBJ file, or position with triangles): no "
                                "cell is linked to its neighbours, as in SOFA, so every "
                                "hexahedron keeps its own 8 points");
        st = finest_connexions(&R[0], s, false, err);
        for (size_t k = 0; st == ST_OK && k < R[0].nconn; k++)
            for (int d = 0; d < NDIR; d++)
                R[0].c[k].nb[d].n = 0;
    } else {
        st = finest_connexions(&R[0], s, test, err);
    }
    for (int l = 0; l < levels && st == ST_OK; l++) {
        st = coarsen(&R[l], &R[l + 1], err);
        chain[l] = &R[l];
    }
    if (st == ST_OK)
        st = ramified_mesh(t, &R[levels], err);
    if (st == ST_OK)
        st = finest_lookup(t, &R[0], chain, levels, all_cells, err);
    for (int l = 0; l <= levels; l++)
        rlevel_free(&R[l]);
    st_free(R), st_free(chain);
    return st;
}
