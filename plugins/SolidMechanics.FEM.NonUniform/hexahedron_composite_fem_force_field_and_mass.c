/* hexahedron_composite_fem_force_field_and_mass.c -
 * HexahedronCompositeFEMForceFieldAndMass: SOFA's
 * NonUniformHexahedronFEMForceFieldAndMass whose coarse element matrices
 * come from a static condensation of the sparse grid's finer levels
 * (Nesme, Faure, Payan 2008, "Accurate interactive animation of deformable
 * models at arbitrary resolution"), with the interpolation weights that
 * HexahedronCompositeFEMMapping uses to place the fine points.
 *
 * SOFA's computation (finestToCoarse false, the default): recursively from
 * the coarse hexahedron down nbVirtualFinerLevels = L levels. A cell of
 * level L (the grid's level Lg - L) gets the classical stiffness and mass of
 * its axis-aligned shape (grid spacing times the state's scale3d), material
 * of element 0, times its stiffness coefficient (the filled fraction of its
 * finest cells, as NonUniformHexahedronFEMForceFieldAndMass; SOFA uses it
 * for the mass too). A cell above gathers its 8 children on the 27 nodes
 * of a 3 x 3 x 3 lattice:
 *  - K_real, M_real: the children that exist, assembled;
 *  - K_static: the same plus, for each missing child, a stiff element
 *    (SOFA's RIGID_STIFFNESS: the trilinear element of a unit cube with
 *    E = 1.02e12, nu = 0, whatever the cell's size);
 *  - the 8 lattice corners are the cell's own nodes; the 19 others follow
 *    them by static equilibrium of K_static: u_f = -K_ff^-1 K_fc u_c;
 *  - the weights keep, per fine node and component, only the same
 *    component of the corners whose trilinear weight at the node is not
 *    zero (an edge node depends on its edge's 2 corners, a face node on its
 *    face's 4), and are normalised to sum 1 per row;
 *  - K = W^T K_real W, M = W^T M_real W; the rows of W at each child's
 *    8 nodes are the child's 24 x 24 weight.
 * The weights of a level-L cell from its coarse hexahedron are the
 * products of the weights down the levels (SOFA's computeFinalWeights).
 * finestToCoarse true: the same condensation in one pass, over all the
 * level-L cells of the coarse hexahedron on a (2^L + 1)^3 lattice, with no
 * stiff element for the missing cells (SOFA's
 * computeMechanicalMatricesDirectlyFromTheFinestToCoarse; dense, L <= 3
 * here).
 *
 * Ramification: the cells taken are those of the sparse grid's finest level
 * that belong to the coarse hexahedron (finestCells), so a coarse cell
 * split in several hexahedra condenses each piece alone, the other pieces'
 * cells counting as missing. SOFA additionally keeps separate nodes for the
 * pieces of an intermediate level that meet at one lattice position
 * (useRamification with a SparseGridRamificationTopology); settee merges
 * them. completeInterpolation (SOFA's ad-hoc cross-component terms for the
 * mapping only, scaled by poissonRatio * 0.3) is not reproduced: the masked
 * weights are used, with a warning. homogenizationMethod is read by SOFA
 * nowhere; drawType, drawColor and drawSize only serve SOFA's drawing.
 * Without virtual levels the element matrices are the classical ones with
 * the grid's coefficients, as NonUniformHexahedronFEMForceFieldAndMass. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nonuniform.h"

/* Corner c of a hexahedron: 0 or 1 along each axis (SOFA's order). */
static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

typedef double mat24[24][24];

/* ---- one condensation on an (m+1)^3 lattice ---- */

typedef struct lattice_cell {
    int o[3];          /* origin on the lattice */
    const mat24 *K, *M; /* NULL K: a missing cell (the stiff element in K_static only) */
} lattice_cell;

/* Solves A X = B in place (A n x n, B n x nr, row-major), partial pivoting;
 * false when A is singular. */
static bool lu_solve(double *A, double *B, size_t n, size_t nr)
{
    /* each row's largest entry, to tell a pivot that cancelled out (a
     * floating piece) from a soft but held node */
    double *rmax = st_malloc((n + 1) * sizeof *rmax);
    if (!rmax)
        return false;
    for (size_t i = 0; i < n; i++) {
        rmax[i] = 0.0;
        for (size_t j = 0; j < n; j++)
            rmax[i] = fmax(rmax[i], fabs(A[i * n + j]));
    }
    bool ok = true;
    for (size_t k = 0; k < n && ok; k++) {
        size_t p = k;
        for (size_t i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k]))
                p = i;
        if (!(fabs(A[p * n + k]) > 1e-14 * rmax[p])) {
            ok = false; /* singular: a piece of matter no corner holds */
            break;
        }
        if (p != k) {
            double tr = rmax[k];
            rmax[k] = rmax[p], rmax[p] = tr;
            for (size_t j = 0; j < n; j++) {
                double t = A[k * n + j];
                A[k * n + j] = A[p * n + j], A[p * n + j] = t;
            }
            for (size_t j = 0; j < nr; j++) {
                double t = B[k * nr + j];
                B[k * nr + j] = B[p * nr + j], B[p * nr + j] = t;
            }
        }
        const double inv = 1.0 / A[k * n + k];
        for (size_t i = k + 1; i < n; i++) {
            const double f = A[i * n + k] * inv;
            if (f == 0.0)
                continue;
            for (size_t j = k; j < n; j++)
                A[i * n + j] -= f * A[k * n + j];
            for (size_t j = 0; j < nr; j++)
                B[i * nr + j] -= f * B[k * nr + j];
        }
    }
    st_free(rmax);
    if (!ok)
        return false;
    for (size_t k = n; k-- > 0;) {
        const double inv = 1.0 / A[k * n + k];
        for (size_t j = 0; j < nr; j++) {
            double acc = B[k * nr + j];
            for (size_t i = k + 1; i < n; i++)
                acc -= A[k * n + i] * B[i * nr + j];
            B[k * nr + j] = acc * inv;
        }
    }
    return true;
}

/* Condenses the cells on a lattice of m cells per axis onto its 8 corners:
 * K, M (24 x 24) and W, 3 rows of 24 per lattice node ((m+1)^3 nodes; rows
 * of nodes no cell touches are left zero). rigid: the stiff element. */
static st_status condense_lattice(int m, const lattice_cell *cells, size_t nc, const mat24 *rigid,
                                  mat24 K, mat24 M, double *W, st_error *err)
{
    const int m1 = m + 1;
    const size_t nn = (size_t)m1 * (size_t)m1 * (size_t)m1;
    /* node -> local index in the assembly, corners first */
    size_t *loc = st_malloc(nn * sizeof *loc);
    int *cidx = st_malloc(nn * sizeof *cidx);
    if (!loc || !cidx) {
        st_free(loc), st_free(cidx);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t g = 0; g < nn; g++)
        loc[g] = SIZE_MAX, cidx[g] = -1;
    for (int j = 0; j < 8; j++) {
        size_t g = (size_t)(corner[j][0] * m) +
                   (size_t)m1 * ((size_t)(corner[j][1] * m) + (size_t)m1 * (size_t)(corner[j][2] * m));
        cidx[g] = j;
    }
    size_t nu = 0;
    for (size_t c = 0; c < nc; c++)
        for (int k = 0; k < 8; k++) {
            size_t g = (size_t)(cells[c].o[0] + corner[k][0]) +
                       (size_t)m1 * ((size_t)(cells[c].o[1] + corner[k][1]) +
                                     (size_t)m1 * (size_t)(cells[c].o[2] + corner[k][2]));
            if (loc[g] == SIZE_MAX)
                loc[g] = nu++;
        }
    /* free nodes: used, not a corner; their index among the free ones */
    size_t nf = 0;
    size_t *fidx = st_malloc(nn * sizeof *fidx);
    if (!fidx) {
        st_free(loc), st_free(cidx);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t g = 0; g < nn; g++)
        fidx[g] = loc[g] != SIZE_MAX && cidx[g] < 0 ? nf++ : SIZE_MAX;
    const size_t n3 = 3 * nf;
    double *A = st_calloc(n3 * n3 + n3 * 24 + 1, sizeof *A);
    if (!A) {
        st_free(loc), st_free(cidx), st_free(fidx);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu free fine nodes)", nf);
    }
    double *B = A + n3 * n3;
    /* K_ff into A, -K_fc into B (K_static) */
    for (size_t c = 0; c < nc; c++) {
        const mat24 *Ke = cells[c].K ? cells[c].K : rigid;
        size_t g[8];
        for (int k = 0; k < 8; k++)
            g[k] = (size_t)(cells[c].o[0] + corner[k][0]) +
                   (size_t)m1 * ((size_t)(cells[c].o[1] + corner[k][1]) +
                                 (size_t)m1 * (size_t)(cells[c].o[2] + corner[k][2]));
        for (int a = 0; a < 8; a++) {
            if (fidx[g[a]] == SIZE_MAX)
                continue;
            for (int b = 0; b < 8; b++)
                for (int x = 0; x < 3; x++)
                    for (int y = 0; y < 3; y++) {
                        double v = (*Ke)[3 * a + x][3 * b + y];
                        size_t r = 3 * fidx[g[a]] + (size_t)x;
                        if (fidx[g[b]] != SIZE_MAX)
                            A[r * n3 + 3 * fidx[g[b]] + (size_t)y] += v;
                        else
                            B[r * 24 + (size_t)(3 * cidx[g[b]] + y)] -= v;
                    }
        }
    }
    bool ok = nf == 0 || lu_solve(A, B, n3, 24);
    if (!ok) {
        st_free(A), st_free(loc), st_free(cidx), st_free(fidx);
        return st_error_set(err, ST_ESOLVER, "the fine nodes' stiffness is singular (matter "
                                             "that no corner of the coarse element holds): no "
                                             "static condensation");
    }
    /* W: identity at the corners, the solution elsewhere, masked by the
     * trilinear support and normalised per row */
    memset(W, 0, nn * 72 * sizeof *W);
    for (size_t g = 0; g < nn; g++) {
        if (loc[g] == SIZE_MAX)
            continue;
        double *w = W + 72 * g;
        if (cidx[g] >= 0) {
            for (int x = 0; x < 3; x++)
                w[24 * x + 3 * cidx[g] + x] = 1.0;
            continue;
        }
        int p[3] = {(int)(g % (size_t)m1), (int)(g / (size_t)m1 % (size_t)m1),
                    (int)(g / ((size_t)m1 * (size_t)m1))};
        for (int x = 0; x < 3; x++) {
            double sum = 0.0;
            for (int j = 0; j < 8; j++) {
                double tri = 1.0;
                for (int a = 0; a < 3; a++) {
                    double t = (double)p[a] / m;
                    tri *= corner[j][a] ? t : 1.0 - t;
                }
                if (tri > 1e-5) {
                    double v = B[(3 * fidx[g] + (size_t)x) * 24 + (size_t)(3 * j + x)];
                    w[24 * x + 3 * j + x] = v;
                    sum += v;
                }
            }
            if (!(fabs(sum) > 1e-12) || !isfinite(sum)) {
                st_free(A), st_free(loc), st_free(cidx), st_free(fidx);
                return st_error_set(err, ST_ESOLVER, "a fine node's interpolation weights sum "
                                                     "to %g: no static condensation", sum);
            }
            for (int c = 0; c < 24; c++)
                w[24 * x + c] /= sum;
        }
    }
    /* K = W^T K_real W, M = W^T M_real W, element by element */
    memset(K, 0, sizeof(mat24));
    memset(M, 0, sizeof(mat24));
    for (size_t c = 0; c < nc; c++) {
        if (!cells[c].K)
            continue;
        double Wc[24][24], T[24][24];
        for (int k = 0; k < 8; k++) {
            size_t g = (size_t)(cells[c].o[0] + corner[k][0]) +
                       (size_t)m1 * ((size_t)(cells[c].o[1] + corner[k][1]) +
                                     (size_t)m1 * (size_t)(cells[c].o[2] + corner[k][2]));
            memcpy(Wc[3 * k], W + 72 * g, 72 * sizeof(double));
        }
        for (int pass = 0; pass < 2; pass++) {
            const mat24 *E = pass ? cells[c].M : cells[c].K;
            double(*out)[24] = pass ? M : K;
            for (int r = 0; r < 24; r++)
                for (int j = 0; j < 24; j++) {
                    double acc = 0.0;
                    for (int k = 0; k < 24; k++)
                        acc += (*E)[r][k] * Wc[k][j];
                    T[r][j] = acc;
                }
            for (int i = 0; i < 24; i++)
                for (int j = 0; j < 24; j++) {
                    double acc = 0.0;
                    for (int k = 0; k < 24; k++)
                        acc += Wc[k][i] * T[k][j];
                    out[i][j] += acc;
                }
        }
    }
    st_free(A), st_free(loc), st_free(cidx), st_free(fidx);
    return ST_OK;
}

/* ---- the hierarchy of one coarse hexahedron ---- */

typedef struct hier {
    int L, S;               /* levels below the coarse cell; S = 2^L */
    const double *coef;     /* S^3 level-L cells: stiffness coefficient */
    const unsigned char *in; /* S^3 level-L cells: belongs to the hexahedron */
    const mat24 *Kcell, *Mcell, *rigid;
    double *wl[9];          /* per level l >= 1: (2^l)^3 weights of 576 (zero: missing) */
    unsigned char *ex[9];   /* per level l: (2^l)^3 existence flags */
} hier;

static size_t lidx(int l, const int c[3])
{
    size_t s = (size_t)1 << l;
    return (size_t)c[0] + s * ((size_t)c[1] + s * (size_t)c[2]);
}

/* K, M of cell c of level l (existing); records the children's weights. */
static st_status cond_rec(hier *h, int l, const int c[3], mat24 K, mat24 M, st_error *err)
{
    if (l == h->L) {
        double k = h->coef[lidx(l, c)];
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++) {
                K[i][j] = k * (*h->Kcell)[i][j];
                M[i][j] = k * (*h->Mcell)[i][j];
            }
        return ST_OK;
    }
    mat24 *KM = st_malloc(16 * sizeof *KM);
    if (!KM)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    lattice_cell cells[8];
    int cc[8][3];
    for (int ch = 0; ch < 8; ch++) {
        for (int a = 0; a < 3; a++)
            cc[ch][a] = 2 * c[a] + ((ch >> a) & 1);
        cells[ch].o[0] = (ch >> 0) & 1, cells[ch].o[1] = (ch >> 1) & 1,
        cells[ch].o[2] = (ch >> 2) & 1;
        cells[ch].K = cells[ch].M = NULL;
        if (h->ex[l + 1][lidx(l + 1, cc[ch])]) {
            st_status st = cond_rec(h, l + 1, cc[ch], KM[2 * ch], KM[2 * ch + 1], err);
            if (st != ST_OK) {
                st_free(KM);
                return st;
            }
            cells[ch].K = (const mat24 *)&KM[2 * ch];
            cells[ch].M = (const mat24 *)&KM[2 * ch + 1];
        }
    }
    double W[27 * 72];
    st_status st = condense_lattice(2, cells, 8, h->rigid, K, M, W, err);
    if (st == ST_OK)
        for (int ch = 0; ch < 8; ch++) {
            if (!cells[ch].K)
                continue;
            double *w = h->wl[l + 1] + 576 * lidx(l + 1, cc[ch]);
            for (int k = 0; k < 8; k++) {
                size_t g = (size_t)(cells[ch].o[0] + corner[k][0]) +
                           3 * ((size_t)(cells[ch].o[1] + corner[k][1]) +
                                3 * (size_t)(cells[ch].o[2] + corner[k][2]));
                memcpy(w + 72 * k, W + 72 * g, 72 * sizeof(double));
            }
        }
    st_free(KM);
    return st;
}

/* out = A B (24 x 24). */
static void mul24(double *out, const double *A, const double *B)
{
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++) {
            double acc = 0.0;
            for (int k = 0; k < 24; k++)
                acc += A[24 * i + k] * B[24 * k + j];
            out[24 * i + j] = acc;
        }
}

/* ---- init ---- */

static void composite_free(composite_fem *c)
{
    st_free(c->fine_cell), st_free(c->fine_hexa), st_free(c->fine_w);
    c->fine_cell = NULL, c->fine_hexa = NULL, c->fine_w = NULL;
    c->nfine = 0;
}

/* The condensation of every coarse hexahedron (see the top). */
static st_status composite_condense(composite_fem *cf, st_component *g, int grid_levels,
                                    st_error *err)
{
    hexa_fem *s = &cf->n.h;
    st_component *self = &s->base;
    finest_level fl;
    ST_TRY(nonuniform_finest(self, g, &fl, err));
    const double *fmin = fl.fmin, *fmax = fl.fmax;
    const st_array *cells = fl.cells, *coefs = fl.coefs;
    const int *nf = fl.nf;
    const size_t nc = fl.nc;
    const int L = cf->n.nb_virtual_finer, skip = grid_levels - L, S = 1 << L;
    if (L > 8 || (cf->finest_to_coarse && L > 3))
        return st_component_error(self, "nbVirtualFinerLevels", err, ST_EINVAL,
                                  "%d virtual levels: at most %s here", L,
                                  cf->finest_to_coarse ? "3 with finestToCoarse" : "8");
    const size_t S3 = (size_t)S * (size_t)S * (size_t)S;
    if (s->ne > ((size_t)1 << 24) / S3)
        return st_component_error(self, "nbVirtualFinerLevels", err, ST_EINVAL,
                                  "%zu elements with %d virtual levels: more than 2^24 "
                                  "descendant cells",
                                  s->ne, L);
    double *acc = st_calloc(s->ne * S3, sizeof *acc);
    unsigned char *in = st_calloc(s->ne * S3, 1);
    int(*cijk)[3] = st_malloc(s->ne * sizeof *cijk);
    if (!acc || !in || !cijk) {
        st_free(acc), st_free(in), st_free(cijk);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu descendant cells)", s->ne * S3);
    }
    for (size_t i = 0; i < s->ne; i++)
        cijk[i][0] = -1;
    for (size_t c = 0; c < nc; c++) {
        unsigned H = cells->u[c];
        if (H == UINT_MAX || H >= s->ne)
            continue;
        size_t r = c;
        int ijk[3];
        for (int a = 0; a < 3; a++) {
            ijk[a] = (int)(r % (size_t)(nf[a] - 1));
            r /= (size_t)(nf[a] - 1);
        }
        size_t o = 0;
        for (int a = 2; a >= 0; a--)
            o = o * (size_t)S + (size_t)((ijk[a] >> skip) - ((ijk[a] >> grid_levels) << L));
        acc[(size_t)H * S3 + o] += coefs->r[c];
        in[(size_t)H * S3 + o] = 1;
        for (int a = 0; a < 3; a++)
            cijk[H][a] = ijk[a] >> grid_levels;
    }
    const double div = ldexp(1.0, 3 * skip);
    for (size_t k = 0; k < s->ne * S3; k++)
        acc[k] /= div;
    /* the fine level's regular grid and cell shape */
    double nodes[8][3];
    for (int a = 0; a < 3; a++) {
        cf->fine_n[a] = (nf[a] - 1) / (1 << skip) + 1;
        cf->fine_min[a] = fmin[a];
        cf->fine_d[a] = (fmax[a] - fmin[a]) / (nf[a] - 1) * ldexp(1.0, skip);
    }
    for (int k = 0; k < 8; k++)
        for (int a = 0; a < 3; a++)
            nodes[k][a] = corner[k][a] * cf->fine_d[a] * s->ms->scale3d[a];
    mat24 *mats = st_malloc(3 * sizeof *mats);
    size_t nw = 0;
    for (int l = 1; l <= L; l++)
        nw += (size_t)1 << (3 * l);
    double *wbuf = st_malloc(nw * 576 * sizeof *wbuf);
    unsigned char *ebuf = st_malloc(nw + 1);
    size_t nfine = 0;
    for (size_t k = 0; k < s->ne * S3; k++)
        nfine += in[k];
    cf->fine_cell = st_malloc((nfine + 1) * sizeof *cf->fine_cell);
    cf->fine_hexa = st_malloc((nfine + 1) * sizeof *cf->fine_hexa);
    cf->fine_w = st_malloc((nfine + 1) * sizeof *cf->fine_w);
    st_status st = ST_OK;
    if (!mats || !wbuf || !ebuf || !cf->fine_cell || !cf->fine_hexa || !cf->fine_w)
        st = st_error_set(err, ST_ENOMEM, "out of memory (%zu fine cells)", nfine);
    if (st == ST_OK) {
        hexa_element_stiffness(mats[0], s->e[0].U, s->e[0].V, s->e[0].W, nodes);
        hexa_element_mass(mats[1], nodes, s->density);
        /* SOFA's RIGID_STIFFNESS: unit cube, E = 1.02e12, nu = 0 */
        double unit[8][3];
        for (int k = 0; k < 8; k++)
            for (int a = 0; a < 3; a++)
                unit[k][a] = corner[k][a];
        hexa_element_stiffness(mats[2], 1.02e12, 0.0, 0.51e12, unit);
    }
    hier h = {.L = L, .S = S, .Kcell = (const mat24 *)&mats[0], .Mcell = (const mat24 *)&mats[1],
              .rigid = (const mat24 *)&mats[2]};
    if (st == ST_OK) {
        size_t off = 0;
        for (int l = 1; l <= L; l++) {
            h.wl[l] = wbuf + 576 * off;
            h.ex[l] = ebuf + off;
            off += (size_t)1 << (3 * l);
        }
    }
    for (size_t H = 0; H < s->ne && st == ST_OK; H++) {
        h.coef = acc + H * S3;
        h.in = in + H * S3;
        if (cijk[H][0] < 0) {
            st = st_component_error(self, "topology", err, ST_EPLUGIN,
                                    "hexahedron %zu of '%s' holds no cell of the finest level",
                                    H, g->name);
            break;
        }
        double *Wd = NULL;
        if (cf->finest_to_coarse || L == 0) {
            /* one lattice of S cells per axis */
            lattice_cell *lc = st_malloc((S3 + 1) * sizeof *lc);
            mat24 *km = st_malloc((2 * S3 + 1) * sizeof *km);
            size_t nn = (size_t)(S + 1) * (size_t)(S + 1) * (size_t)(S + 1);
            Wd = st_malloc(nn * 72 * sizeof *Wd);
            size_t n = 0;
            if (!lc || !km || !Wd)
                st = st_error_set(err, ST_ENOMEM, "out of memory");
            for (size_t o = 0; o < S3 && st == ST_OK; o++) {
                if (!h.in[o])
                    continue;
                lc[n].o[0] = (int)(o % (size_t)S), lc[n].o[1] = (int)(o / (size_t)S % (size_t)S),
                lc[n].o[2] = (int)(o / ((size_t)S * (size_t)S));
                for (int i = 0; i < 24; i++)
                    for (int j = 0; j < 24; j++) {
                        km[2 * n][i][j] = h.coef[o] * mats[0][i][j];
                        km[2 * n + 1][i][j] = h.coef[o] * mats[1][i][j];
                    }
                lc[n].K = (const mat24 *)&km[2 * n];
                lc[n].M = (const mat24 *)&km[2 * n + 1];
                n++;
            }
            if (st == ST_OK) {
                st = condense_lattice(S, lc, n, h.rigid, s->e[H].K, s->M[H], Wd, err);
                if (st != ST_OK && st != ST_ENOMEM) {
                    char why[sizeof err->msg];
                    snprintf(why, sizeof why, "%s", err->msg);
                    st = st_component_error(self, "finestToCoarse", err, st,
                                            "hexahedron %zu: %s; finestToCoarse false fills "
                                            "the empty cells with SOFA's stiff element",
                                            H, why);
                }
            }
            st_free(lc), st_free(km);
        } else {
            /* existence per level, bottom-up */
            memcpy(h.ex[L], h.in, S3);
            for (int l = L - 1; l >= 1; l--) {
                size_t sl = (size_t)1 << l;
                memset(h.ex[l], 0, sl * sl * sl);
                size_t sf = 2 * sl;
                for (size_t k = 0; k < sf * sf * sf; k++)
                    if (h.ex[l + 1][k]) {
                        int c[3] = {(int)(k % sf) / 2, (int)(k / sf % sf) / 2,
                                    (int)(k / (sf * sf)) / 2};
                        h.ex[l][lidx(l, c)] = 1;
                    }
            }
            memset(wbuf, 0, nw * 576 * sizeof *wbuf);
            const int root[3] = {0, 0, 0};
            st = cond_rec(&h, 0, root, s->e[H].K, s->M[H], err);
            if (st != ST_OK && st != ST_ENOMEM) {
                char why[sizeof err->msg];
                snprintf(why, sizeof why, "%s", err->msg);
                st = st_component_error(self, "nbVirtualFinerLevels", err, st, "hexahedron %zu: %s",
                                        H, why);
            }
            /* final weights, top-down: W_l(c) <- W_l(c) W_{l-1}(parent) */
            for (int l = 2; l <= L && st == ST_OK; l++) {
                size_t sl = (size_t)1 << l;
                for (size_t k = 0; k < sl * sl * sl; k++) {
                    if (!h.ex[l][k])
                        continue;
                    int pc[3] = {(int)(k % sl) / 2, (int)(k / sl % sl) / 2,
                                 (int)(k / (sl * sl)) / 2};
                    double tmp[576];
                    mul24(tmp, h.wl[l] + 576 * k, h.wl[l - 1] + 576 * lidx(l - 1, pc));
                    memcpy(h.wl[l] + 576 * k, tmp, sizeof tmp);
                }
            }
        }
        /* the fine cells of this hexahedron */
        for (size_t o = 0; o < S3 && st == ST_OK; o++) {
            if (!h.in[o])
                continue;
            int oc[3] = {(int)(o % (size_t)S), (int)(o / (size_t)S % (size_t)S),
                         (int)(o / ((size_t)S * (size_t)S))};
            size_t gc = 0;
            for (int a = 2; a >= 0; a--)
                gc = gc * (size_t)(cf->fine_n[a] - 1) + (size_t)(cijk[H][a] * S + oc[a]);
            cf->fine_cell[cf->nfine] = gc;
            cf->fine_hexa[cf->nfine] = (unsigned)H;
            if (Wd) {
                for (int k = 0; k < 8; k++) {
                    size_t gn = (size_t)(oc[0] + corner[k][0]) +
                               (size_t)(S + 1) * ((size_t)(oc[1] + corner[k][1]) +
                                                  (size_t)(S + 1) * (size_t)(oc[2] + corner[k][2]));
                    memcpy(cf->fine_w[cf->nfine][3 * k], Wd + 72 * gn, 72 * sizeof(double));
                }
            } else {
                memcpy(cf->fine_w[cf->nfine], h.wl[L] + 576 * o, 576 * sizeof(double));
            }
            cf->nfine++;
        }
        st_free(Wd);
    }
    st_free(mats), st_free(wbuf), st_free(ebuf), st_free(acc), st_free(in), st_free(cijk);
    return st;
}

static st_status composite_init(st_component *self, st_error *err)
{
    composite_fem *cf = (composite_fem *)self;
    nonuniform_fem *n = &cf->n;
    composite_free(cf);
    ST_TRY(hfem_init_common(self, true, err));
    self->state = ST_CSTATE_INVALID;
    int grid_levels = 0;
    n->condensed = false;
    if (n->h.ne && nonuniform_grid_usable(n, n->h.topology, &grid_levels)) {
        ST_TRY(composite_condense(cf, n->h.topology, grid_levels, err));
        n->condensed = true;
    }
    if (cf->draw_size == -1.0) {
        const double *lo = nonuniform_grid_field(n->h.topology, "min", ST_T_VEC3);
        const double *hi = nonuniform_grid_field(n->h.topology, "max", ST_T_VEC3);
        if (lo && hi)
            cf->draw_size = (double)(float)((hi[0] - lo[0]) * 0.004f);
    }
    ST_TRY(nonuniform_refresh(n, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static st_status composite_reinit(st_component *self, st_error *err)
{
    (void)err;
    st_component_warn(self, "Composite mechanical properties can't be updated, changes on "
                            "mechanical properties (young, poisson, density) are not taken into "
                            "account.");
    return ST_OK;
}

static void (*base_cleanup)(st_component *self);

static void composite_cleanup(st_component *self)
{
    composite_free((composite_fem *)self);
    if (base_cleanup)
        base_cleanup(self);
}

/* ---- the class ---- */

#define T composite_fem
static const st_field own_fields[] = {
    ST_BOOL(T, finest_to_coarse, "finestToCoarse", "false",
            "Does the homogenization is done directly from the finest level to the coarse one?"),
    ST_INT(T, homogenization_method, "homogenizationMethod", "0",
           "0->static, 1->constrained static, 2->modal analysis (SOFA reads it nowhere: the "
           "static condensation is always used)"),
    ST_BOOL(T, complete_interpolation, "completeInterpolation", "false",
            "Is the non-linear, complete interpolation used? (not supported: "
            "HexahedronCompositeFEMMapping warns and uses the masked interpolation)"),
    ST_BOOL(T, use_ramification, "useRamification", "true",
            "If SparseGridRamification, are ramifications taken into account? (settee always "
            "condenses each ramified hexahedron from its own finest cells)"),
    ST_INT(T, draw_type, "drawType", "0", "Drawing of the fine elements (no drawing here)"),
    ST_INT(T, draw_color, "drawColor", "0", "Colour of the fine elements (no drawing here)"),
    ST_REAL(T, draw_size, "drawSize", "-1",
            "Size of the drawn fine points; -1: 0.4 % of the grid's x extent, set at init"),
    ST_FIELD_END};
#undef T

enum { HC_MAX_FIELDS = 80 };
static st_field fields[HC_MAX_FIELDS];
static st_class cls;

const st_class *hexahedron_composite_fem_class(void)
{
    const st_class *base = nonuniform_hexahedron_fem_class();
    if (!base)
        return NULL;
    size_t nf = 0;
    for (const st_field *f = base->fields; f->name; f++) {
        if (nf + 1 >= HC_MAX_FIELDS)
            return NULL;
        fields[nf++] = *f;
    }
    for (const st_field *f = own_fields; f->name; f++) {
        if (nf + 1 >= HC_MAX_FIELDS)
            return NULL;
        fields[nf++] = *f;
    }
    fields[nf] = own_fields[sizeof own_fields / sizeof *own_fields - 1];
    cls = *base;
    cls.name = "HexahedronCompositeFEMForceFieldAndMass";
    cls.description = "Non uniform Hexahedral finite elements whose coarse element matrices are "
                      "the static condensation of the sparse grid's finer levels (composite "
                      "elements)";
    cls.aliases = NULL;
    cls.instance_size = sizeof(composite_fem);
    cls.fields = fields;
    cls.init = composite_init;
    cls.reinit = composite_reinit;
    base_cleanup = base->cleanup;
    cls.cleanup = composite_cleanup;
    return &cls;
}
