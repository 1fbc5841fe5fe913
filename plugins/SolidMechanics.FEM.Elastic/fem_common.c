/* fem_common.c - helpers shared by the elastic FEM force fields: SOFA's
 * polar decomposition, a stable SVD-based rotation, small inverses, the
 * material checks and the topology lookup. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fem.h"
#include "../shared/sym3_eigen.h"

void fem_normalize(double v[3])
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > DBL_EPSILON)
        v[0] /= n, v[1] /= n, v[2] /= n;
}

bool fem_invert3(double inv[9], const double m[9]) { return st_m3_inverse(inv, m) != 0.0; }

bool fem_invert4(double inv[16], const double m[16])
{
    double a[4][8];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            a[i][j] = m[4 * i + j];
            a[i][4 + j] = i == j ? 1.0 : 0.0;
        }
    for (int c = 0; c < 4; c++) {
        int p = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(a[r][c]) > fabs(a[p][c]))
                p = r;
        if (a[p][c] == 0.0)
            return false;
        if (p != c)
            for (int j = 0; j < 8; j++) {
                double t = a[c][j];
                a[c][j] = a[p][j];
                a[p][j] = t;
            }
        double piv = a[c][c];
        for (int j = 0; j < 8; j++)
            a[c][j] /= piv;
        for (int r = 0; r < 4; r++)
            if (r != c && a[r][c] != 0.0) {
                double f = a[r][c];
                for (int j = 0; j < 8; j++)
                    a[r][j] -= f * a[c][j];
            }
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            inv[4 * i + j] = a[i][4 + j];
    return true;
}

/* Largest column (one) and row (inf) absolute sums. */
static double one_norm(const double m[9])
{
    double n = 0;
    for (int j = 0; j < 3; j++) {
        double s = fabs(m[j]) + fabs(m[3 + j]) + fabs(m[6 + j]);
        if (s > n)
            n = s;
    }
    return n;
}

static double inf_norm(const double m[9])
{
    double n = 0;
    for (int i = 0; i < 3; i++) {
        double s = fabs(m[3 * i]) + fabs(m[3 * i + 1]) + fabs(m[3 * i + 2]);
        if (s > n)
            n = s;
    }
    return n;
}

double fem_polar(const double m[9], double q[9])
{
    double mk[9], adj[9], e[9], det = 0;
    fem_transpose3(mk, m);
    double m_one = one_norm(mk), m_inf = inf_norm(mk), e_one;
    /* At most 100 steps: the iteration converges quadratically; the bound
     * only guards against non-finite input. */
    for (int it = 0; it < 100; it++) {
        fem_cross(adj, mk + 3, mk + 6);
        fem_cross(adj + 3, mk + 6, mk);
        fem_cross(adj + 6, mk, mk + 3);
        det = mk[0] * adj[0] + mk[1] * adj[1] + mk[2] * adj[2];
        if (det == 0.0)
            break;
        double adj_one = one_norm(adj), adj_inf = inf_norm(adj);
        double gamma = sqrt(sqrt((adj_one * adj_inf) / (m_one * m_inf)) / fabs(det));
        double g1 = gamma * 0.5, g2 = 0.5 / (gamma * det);
        for (int k = 0; k < 9; k++) {
            double next = mk[k] * g1 + adj[k] * g2;
            e[k] = mk[k] - next;
            mk[k] = next;
        }
        e_one = one_norm(e);
        m_one = one_norm(mk);
        m_inf = inf_norm(mk);
        if (!(e_one > m_one * 1e-8))
            break;
    }
    fem_transpose3(q, mk);
    return det;
}


/* A unit vector orthogonal to u. */
static void any_orthogonal(double r[3], const double u[3])
{
    double e[3] = {0, 0, 0};
    int k = fabs(u[0]) <= fabs(u[1]) ? (fabs(u[0]) <= fabs(u[2]) ? 0 : 2)
                                     : (fabs(u[1]) <= fabs(u[2]) ? 1 : 2);
    e[k] = 1;
    fem_cross(r, u, e);
    fem_normalize(r);
}

void fem_polar_stable(const double m[9], double q[9])
{
    double mt[9], s[9], w[3], v[9];
    fem_transpose3(mt, m);
    fem_mul3(s, mt, m);
    sym3_eigen(s, w, v);
    /* Sort by decreasing eigenvalue. */
    int ord[3] = {0, 1, 2};
    for (int i = 0; i < 2; i++)
        for (int j = i + 1; j < 3; j++)
            if (w[ord[j]] > w[ord[i]]) {
                int t = ord[i];
                ord[i] = ord[j];
                ord[j] = t;
            }
    double V[3][3], U[3][3], sig[3];
    for (int i = 0; i < 3; i++) {
        sig[i] = sqrt(w[ord[i]] > 0 ? w[ord[i]] : 0);
        for (int k = 0; k < 3; k++)
            V[i][k] = v[3 * k + ord[i]];
    }
    double cv[3];
    fem_cross(cv, V[0], V[1]);
    if (cv[0] * V[2][0] + cv[1] * V[2][1] + cv[2] * V[2][2] < 0)
        for (int k = 0; k < 3; k++)
            V[2][k] = -V[2][k];
    double tol = 1e-12 * (sig[0] > 0 ? sig[0] : 1);
    if (sig[0] <= tol) {
        for (int i = 0; i < 9; i++)
            q[i] = i % 4 == 0 ? 1.0 : 0.0;
        return;
    }
    for (int i = 0; i < 2; i++) {
        if (i == 1 && sig[1] <= tol) {
            any_orthogonal(U[1], U[0]);
            continue;
        }
        fem_mulv3(U[i], m, V[i]);
        fem_normalize(U[i]);
    }
    /* The third direction completes a proper rotation: when det m < 0 this
     * flips the smallest singular value, as an inversion-aware SVD does. */
    fem_cross(U[2], U[0], U[1]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            q[3 * i + j] = U[0][i] * V[0][j] + U[1][i] * V[1][j] + U[2][i] * V[2][j];
}

void fem_rotation_large(double r[9], const double *pa, const double *pb, const double *pc)
{
    double ex[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    double ey[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
    fem_frame(r, ex, ey);
}

void fem_frame(double r[9], const double *x, const double *y)
{
    double ex[3] = {x[0], x[1], x[2]}, ey[3] = {y[0], y[1], y[2]}, ez[3];
    fem_normalize(ex);
    fem_cross(ez, ex, ey);
    fem_normalize(ez);
    fem_cross(ey, ez, ex);
    memcpy(r, ex, sizeof ex);
    memcpy(r + 3, ey, sizeof ey);
    memcpy(r + 6, ez, sizeof ez);
}

bool fem_tri_strain_local(double J[6][3], const double *b, const double *c)
{
    double det = b[0] * c[1];
    if (fabs(det) < DBL_EPSILON)
        return false;
    double inv = 1 / det;
    memset(J, 0, 18 * sizeof(double));
    J[0][0] = J[1][2] = -c[1] * inv;
    J[0][2] = J[1][1] = (c[0] - b[0]) * inv;
    J[2][0] = J[3][2] = c[1] * inv;
    J[2][2] = J[3][1] = -c[0] * inv;
    J[4][2] = J[5][1] = b[0] * inv;
    return true;
}

void fem_tri_stiffness_blocks(const double J[6][3], const double K[9], const double R[9],
                              double scale, double b[3][3][9])
{
    double JK[6][3], S[6][6];
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 3; c++)
            JK[r][c] = J[r][0] * K[c] + J[r][1] * K[3 + c] + J[r][2] * K[6 + c];
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++)
            S[r][c] = JK[r][0] * J[c][0] + JK[r][1] * J[c][1] + JK[r][2] * J[c][2];
    for (int n1 = 0; n1 < 3; n1++)
        for (int n2 = 0; n2 < 3; n2++)
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) {
                    double a = 0;
                    for (int k = 0; k < 2; k++)
                        for (int l = 0; l < 2; l++)
                            a += R[3 * r + k] * S[2 * n1 + k][2 * n2 + l] * R[3 * c + l];
                    b[n1][n2][3 * r + c] = a * scale;
                }
}

double fem_value_in_element(const st_array *a, size_t i, double def)
{
    if (a->n > i)
        return a->r[i];
    if (a->n > 0)
        return a->r[0];
    return def;
}

st_status fem_check_material(st_component *self, st_array *young, st_array *poisson,
                             st_error *err)
{
    if (young->n == 0) {
        ST_TRY(st_array_resize(young, ST_T_REALS, 1, err));
        young->r[0] = FEM_DEFAULT_YOUNG;
    }
    if (poisson->n == 0) {
        ST_TRY(st_array_resize(poisson, ST_T_REALS, 1, err));
        poisson->r[0] = FEM_DEFAULT_POISSON;
    }
    for (size_t i = 0; i < young->n; i++)
        if (young->r[i] < 0) {
            st_component_warn(self,
                              "Young's modulus must be positive, but a negative value has been "
                              "provided (%g). It is set to %g to ensure the correct behavior",
                              young->r[i], FEM_DEFAULT_YOUNG);
            young->r[i] = FEM_DEFAULT_YOUNG;
        }
    for (size_t i = 0; i < poisson->n; i++)
        if (!(poisson->r[i] >= 0 && poisson->r[i] < 0.5)) {
            st_component_warn(self,
                              "Poisson's ratio must be in the range [0, 0.5), but an "
                              "out-of-bounds value has been provided (%g). It is set to %g to "
                              "ensure the correct behavior",
                              poisson->r[i], FEM_DEFAULT_POISSON);
            poisson->r[i] = FEM_DEFAULT_POISSON;
        }
    return ST_OK;
}

st_status fem_bind(st_component *self, st_array *young, st_array *poisson, st_mstate **ms,
                   st_component **topo, st_error *err)
{
    ST_TRY(fem_check_material(self, young, poisson, err));
    *ms = st_component_mstate(self);
    if (!*ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors (%s needs one)",
                                  self->cls->name);
    return fem_find_topology(self, topo, err);
}

int fem_method_index(const char *method, const char *const *names, int n)
{
    for (int m = 0; method && m < n; m++)
        if (!strcmp(method, names[m]))
            return m;
    return -1;
}

/* SOFA's context topology (getMeshTopology): a node holds one, the last
 * topology added to it, else its parent's. */
static st_component *context_topology(const st_node *n)
{
    for (; n; n = st_node_parent(n))
        for (size_t i = st_node_object_count(n); i-- > 0;) {
            st_component *c = st_node_object(n, i);
            if (c->cls->topology && st_component_has_role(c, ST_ROLE_TOPOLOGY))
                return c;
        }
    return NULL;
}

st_status fem_find_topology(st_component *self, st_component **topo, st_error *err)
{
    st_component *t = *topo;
    if (!t)
        t = context_topology(self->node);
    if (!t || !t->cls->topology)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: %s, nor in current "
                                  "context: %s",
                                  t ? t->name : "(none)", st_node_name(self->node));
    *topo = t;
    return ST_OK;
}

const st_array *fem_elements(st_component *topo, st_type kind)
{
    const st_array *a = topo->cls->topology->elements(topo, kind);
    return a && a->n ? a : NULL;
}

void fem_grid_cells(st_component *topo, int *nx, int *ny)
{
    *nx = 2;
    *ny = 1;
    const st_field *f = st_component_field(topo, "n");
    if (!f || f->type != ST_T_VEC3 || !strstr(topo->cls->name, "Grid"))
        return;
    const double *n = st_component_field_ptr(topo, f);
    *nx = (int)n[0] - 1;
    *ny = (int)n[1] - 1;
}

st_status fem_check_indices(st_component *self, const unsigned *idx, size_t n, unsigned width,
                            size_t npoints, const char *what, st_error *err)
{
    for (size_t i = 0; i < n * width; i++)
        if (idx[i] >= npoints)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "%s %zu of the topology uses vertex %u but the state has "
                                      "%zu points",
                                      what, i / width, idx[i], npoints);
    return ST_OK;
}

/* ---- Per-vertex rotations ---- */

void fem_rotation_add(double *acc, const unsigned *v, int nv, const double q[9])
{
    for (int k = 0; k < nv; k++) {
        double *a = acc + 9 * (size_t)v[k];
        for (int c = 0; c < 9; c++)
            a[c] += q[c];
    }
}

void fem_rotation_identity(double *acc, size_t np)
{
    for (size_t i = 0; i < np; i++)
        for (int c = 0; c < 9; c++)
            acc[9 * i + (size_t)c] = c % 4 == 0 ? 1.0 : 0.0;
}

bool fem_rotation_begin(double *acc, size_t np, bool small)
{
    if (small) {
        fem_rotation_identity(acc, np);
        return false;
    }
    memset(acc, 0, 9 * np * sizeof *acc);
    return true;
}

void fem_rotation_finish(double *acc, size_t np, bool gram_schmidt)
{
    for (size_t i = 0; i < np; i++) {
        double *a = acc + 9 * i;
        bool zero = true;
        for (int c = 0; c < 9 && zero; c++)
            zero = a[c] == 0.0;
        if (zero) {
            fem_rotation_identity(a, 1);
        } else if (gram_schmidt) {
            double ex[3] = {a[0], a[1], a[2]}, ey[3] = {a[3], a[4], a[5]}, ez[3];
            fem_normalize(ex);
            fem_normalize(ey);
            fem_cross(ez, ex, ey);
            fem_normalize(ez);
            fem_cross(ey, ez, ex);
            fem_normalize(ey);
            memcpy(a, ex, sizeof ex);
            memcpy(a + 3, ey, sizeof ey);
            memcpy(a + 6, ez, sizeof ez);
        } else {
            double m[9];
            memcpy(m, a, sizeof m);
            fem_polar(m, a);
        }
    }
}

/* ---- Topological changes ---- */

st_status fem_reread_vertices(st_component *self, void *elems, size_t ne, size_t size,
                              const st_array *list, unsigned nv, st_error *err)
{
    size_t have = list ? list->n : 0;
    if (have != ne)
        return st_component_error(self, "topology", err, ST_ESOLVER,
                                  "holds %zu elements after a topological change, but its "
                                  "topology has %zu",
                                  ne, have);
    for (size_t i = 0; i < ne; i++)
        memcpy((char *)elems + i * size, list->u + (size_t)nv * i, nv * sizeof(unsigned));
    return ST_OK;
}

void fem_follow_list(st_component *self, const char *field, st_array *a, size_t tuples,
                     size_t width, st_elem elem, const st_topo_event *ev, size_t nev)
{
    bool moved = false;
    for (size_t e = 0; e < nev; e++) {
        if (ev[e].elem != elem || ev[e].change != ST_TOPO_REMOVED || !ev[e].n)
            continue;
        if (a->n != tuples * ev[e].before || ev[e].before < 2 || (a->cap == 0 && a->p))
            return;
        size_t w = tuples * width;
        for (size_t k = 0; k < ev[e].n; k++) {
            size_t i = ev[e].index[k], last = ev[e].before - 1 - k;
            if (i != last)
                memcpy(a->r + w * i, a->r + w * last, w * sizeof(double));
        }
        a->n -= tuples * ev[e].n;
        moved = true;
    }
    if (moved)
        st_component_touch(self, st_component_field(self, field));
}

void fem_follow_rotations(st_array *rot, size_t np)
{
    if (rot->n == 0 || rot->n == 9 * np || (rot->cap == 0 && rot->p))
        return;
    if (rot->n > 9 * np) {
        rot->n = 9 * np;
        return;
    }
    st_error err = {0};
    size_t old = rot->n / 9;
    if (st_array_resize(rot, ST_T_REALS, 9 * np, &err) == ST_OK)
        fem_rotation_identity(rot->r + 9 * old, np - old);
}

/* ---- fem_bsr ---- */

void fem_bsr_free(fem_bsr *b)
{
    st_free(b->row);
    st_free(b->col);
    st_free(b->val);
    st_free(b->slot);
    *b = (fem_bsr){0};
}

void fem_bsr_forget(fem_bsr *b)
{
    b->pattern = false;
    b->valid = false;
}

static int cmp_unsigned(const void *a, const void *b)
{
    const unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* Row i's columns: the vertices of every element around i, sorted, unique;
 * then each element pair's slot by binary search in its row. */
static st_status bsr_pattern(fem_bsr *b, size_t n, const unsigned *verts, size_t stride,
                             size_t ne, unsigned nv, st_error *err)
{
    fem_bsr_free(b);
    const size_t pairs = ne * nv * nv;
    size_t *count = st_calloc(n + 1, sizeof *count);
    unsigned *tmp = st_malloc((pairs ? pairs : 1) * sizeof *tmp);
    b->row = st_calloc(n + 1, sizeof *b->row);
    b->slot = st_malloc((pairs ? pairs : 1) * sizeof *b->slot);
    if (!count || !tmp || !b->row || !b->slot) {
        st_free(count);
        st_free(tmp);
        fem_bsr_free(b);
        return st_error_set(err, ST_ENOMEM, "out of memory for the assembled stiffness");
    }
    for (size_t e = 0; e < ne; e++)
        for (unsigned i = 0; i < nv; i++)
            count[verts[e * stride + i]] += nv;
    size_t *start = b->row; /* row starts of tmp, before duplicates go */
    for (size_t r = 0; r < n; r++)
        start[r + 1] = start[r] + count[r];
    memset(count, 0, (n + 1) * sizeof *count);
    for (size_t e = 0; e < ne; e++)
        for (unsigned i = 0; i < nv; i++) {
            const unsigned r = verts[e * stride + i];
            for (unsigned j = 0; j < nv; j++)
                tmp[start[r] + count[r]++] = verts[e * stride + j];
        }
    size_t nnz = 0;
    for (size_t r = 0; r < n; r++) {
        unsigned *c = tmp + start[r];
        const size_t m = start[r + 1] - start[r];
        qsort(c, m, sizeof *c, cmp_unsigned);
        size_t u = 0;
        for (size_t k = 0; k < m; k++)
            if (u == 0 || c[k] != c[u - 1])
                c[u++] = c[k];
        count[r] = u;
        nnz += u;
    }
    b->col = st_malloc((nnz ? nnz : 1) * sizeof *b->col);
    b->val = st_calloc(9 * (nnz ? nnz : 1), sizeof *b->val);
    if (!b->col || !b->val) {
        st_free(count);
        st_free(tmp);
        fem_bsr_free(b);
        return st_error_set(err, ST_ENOMEM, "out of memory for the assembled stiffness");
    }
    size_t at = 0;
    for (size_t r = 0; r < n; r++) {
        memcpy(b->col + at, tmp + start[r], count[r] * sizeof *b->col);
        start[r] = at; /* start doubles as row: rewritten in place, r only read before */
        at += count[r];
    }
    b->row[n] = at;
    for (size_t e = 0; e < ne; e++)
        for (unsigned i = 0; i < nv; i++) {
            const unsigned r = verts[e * stride + i];
            const unsigned *c = b->col + b->row[r];
            const size_t m = b->row[r + 1] - b->row[r];
            for (unsigned j = 0; j < nv; j++) {
                const unsigned want = verts[e * stride + j];
                size_t lo = 0, hi = m;
                while (hi - lo > 1) {
                    const size_t mid = (lo + hi) / 2;
                    if (c[mid] <= want)
                        lo = mid;
                    else
                        hi = mid;
                }
                b->slot[(e * nv + i) * nv + j] = (unsigned)(b->row[r] + lo);
            }
        }
    st_free(count);
    st_free(tmp);
    b->n = n;
    b->ne = ne;
    b->nv = nv;
    b->pattern = true;
    return ST_OK;
}

st_status fem_bsr_begin(fem_bsr *b, size_t n, const unsigned *verts, size_t stride, size_t ne,
                        unsigned nv, st_error *err)
{
    b->valid = false;
    if (!b->pattern || b->n != n || b->ne != ne || b->nv != nv)
        ST_TRY(bsr_pattern(b, n, verts, stride, ne, nv, err));
    memset(b->val, 0, 9 * b->row[n] * sizeof *b->val);
    b->part = false;
    return ST_OK;
}

/* One part of a parallel assembly: the rows of the part, the elements in
 * order, each through a copy of b that adds to those rows' blocks only. */
typedef struct bsr_parts {
    const fem_bsr *b;
    const unsigned *verts;
    size_t stride;
    void (*element)(fem_bsr *b, size_t e, const void *ctx);
    const void *ctx;
} bsr_parts;

static void bsr_part(void *ctx, unsigned part, unsigned nparts)
{
    const bsr_parts *p = ctx;
    const fem_bsr *b = p->b;
    const size_t r0 = b->n * part / nparts, r1 = b->n * (part + 1) / nparts;
    fem_bsr mine = *b;
    mine.part = true;
    mine.lo = b->row[r0];
    mine.hi = b->row[r1];
    memset(b->val + 9 * mine.lo, 0, 9 * (mine.hi - mine.lo) * sizeof *b->val);
    for (size_t e = 0; e < b->ne; e++) {
        const unsigned *v = p->verts + e * p->stride;
        unsigned k = 0;
        while (k < b->nv && (v[k] < r0 || v[k] >= r1))
            k++;
        if (k < b->nv)
            p->element(&mine, e, p->ctx);
    }
}

const fem_bsr *fem_bsr_assembled(fem_bsr *b, const st_mparams *mp, size_t n,
                                 const unsigned *verts, size_t stride, size_t ne, unsigned nv,
                                 void (*element)(fem_bsr *b, size_t e, const void *ctx),
                                 const void *ctx, const fem_bsr_pool *pool)
{
    if (b->valid) {
        /* eagerly assembled values are taken when a lazy assembly would
         * have been made: the first call that announces enough products */
        if (!b->claimed && mp->dforce_calls < FEM_BSR_MIN_CALLS)
            return NULL;
        b->claimed = true;
        return b;
    }
    if (!fem_bsr_wanted(b, mp) || ne == 0)
        return NULL;
    st_error err = {0};
    if (pool) {
        b->valid = false;
        if (!b->pattern || b->n != n || b->ne != ne || b->nv != nv)
            if (bsr_pattern(b, n, verts, stride, ne, nv, &err) != ST_OK)
                return NULL;
        bsr_parts p = {b, verts, stride, element, ctx};
        pool->run(pool->pool, bsr_part, &p);
        b->valid = true;
        b->claimed = true;
        return b;
    }
    if (fem_bsr_begin(b, n, verts, stride, ne, nv, &err) != ST_OK)
        return NULL;
    for (size_t e = 0; e < ne; e++)
        element(b, e, ctx);
    b->valid = true;
    b->claimed = true;
    b->eager = true; /* (set after the assembly: a new pattern clears b) */
    return b;
}

bool fem_bsr_eager_begin(fem_bsr *b, size_t n, const unsigned *verts, size_t stride, size_t ne,
                         unsigned nv)
{
    if (!b->eager || ne == 0)
        return false;
    if (b->valid && !b->claimed) { /* the last eager assembly was not used */
        b->eager = false;
        return false;
    }
    st_error err = {0};
    if (fem_bsr_begin(b, n, verts, stride, ne, nv, &err) != ST_OK)
        return false;
    b->eager = true; /* a new pattern clears b */
    return true;
}

void fem_bsr_mul_sub(const fem_bsr *b, double *df, const double *dx, double kfactor, size_t r0,
                     size_t r1)
{
    for (size_t r = r0; r < r1; r++) {
        double y0 = 0, y1 = 0, y2 = 0;
        for (size_t k = b->row[r]; k < b->row[r + 1]; k++) {
            const double *m = b->val + 9 * k, *x = dx + 3 * (size_t)b->col[k];
            y0 += m[0] * x[0] + m[1] * x[1] + m[2] * x[2];
            y1 += m[3] * x[0] + m[4] * x[1] + m[5] * x[2];
            y2 += m[6] * x[0] + m[7] * x[1] + m[8] * x[2];
        }
        double *o = df + 3 * r;
        o[0] -= kfactor * y0;
        o[1] -= kfactor * y1;
        o[2] -= kfactor * y2;
    }
}
