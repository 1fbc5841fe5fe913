/* factor_single.c - a single-precision copy of a CHOLMOD factor and its
 * solves (settee's SparseLDLSolver option solvePrecision: single).
 *
 * What it is for: a stale factor used as the preconditioner of PCG is read
 * whole by each application (two triangular solves), and on a large system
 * those reads are the cost of the iteration. A float copy halves the bytes.
 * The solve is z = P^T L^-T L^-1 P r with L rounded to float and the
 * arithmetic in float: an approximation of A^-1 to about 1e-7 x cond(A),
 * which a preconditioner can be and a direct solver cannot. The copy keeps
 * CHOLMOD's layout (supernodal: each supernode's rows and its dense
 * column-major block; simplicial: compressed columns, LL^T or LDL^T), so
 * that the solves run over contiguous memory in the factor's order. */
#include "direct_common.h"

#include <string.h>

#include <cblas.h>

void direct_sfactor_free(direct_sfactor *f)
{
    st_free(f->perm);
    st_free(f->super);
    st_free(f->pi);
    st_free(f->s);
    st_free(f->px);
    st_free(f->x);
    st_free(f->w);
    st_free(f->t);
    memset(f, 0, sizeof *f);
}

/* Grows an array to at least n elements of size sz (contents lost). */
static bool grow(void **p, size_t *cap, size_t n, size_t sz)
{
    if (*cap >= n && *p)
        return true;
    st_free(*p);
    *p = st_malloc((n ? n : 1) * sz);
    *cap = *p ? n : 0;
    return *p != NULL;
}

st_status direct_sfactor_copy(direct_sfactor *f, const cholmod_factor *L, const st_component *self,
                              st_error *err)
{
    const size_t n = L->n;
    const int *perm = L->Perm;
    bool ok = grow((void **)&f->perm, &f->cap_perm, n, sizeof *f->perm) &&
              grow((void **)&f->w, &f->cap_w, n, sizeof *f->w);
    if (ok)
        memcpy(f->perm, perm, n * sizeof *f->perm);
    f->n = n;
    f->super_ = L->is_super;
    f->ll = L->is_ll;
    const double *lx = L->x;
    if (ok && L->is_super) {
        const size_t ns = L->nsuper;
        const int *super = L->super, *pi = L->pi, *s = L->s, *px = L->px;
        size_t maxrow = 0;
        for (size_t k = 0; k < ns; k++)
            if ((size_t)(pi[k + 1] - pi[k]) > maxrow)
                maxrow = (size_t)(pi[k + 1] - pi[k]);
        ok = grow((void **)&f->super, &f->cap_super, ns + 1, sizeof *f->super) &&
             grow((void **)&f->pi, &f->cap_pi, ns + 1, sizeof *f->pi) &&
             grow((void **)&f->px, &f->cap_px, ns + 1, sizeof *f->px) &&
             grow((void **)&f->s, &f->cap_s, (size_t)pi[ns], sizeof *f->s) &&
             grow((void **)&f->x, &f->cap_x, (size_t)px[ns], sizeof *f->x) &&
             grow((void **)&f->t, &f->cap_t, maxrow, sizeof *f->t);
        if (ok) {
            f->nsuper = ns;
            memcpy(f->super, super, (ns + 1) * sizeof *f->super);
            memcpy(f->pi, pi, (ns + 1) * sizeof *f->pi);
            for (size_t k = 0; k <= ns; k++)
                f->px[k] = (size_t)px[k];
            memcpy(f->s, s, (size_t)pi[ns] * sizeof *f->s);
            for (size_t k = 0; k < (size_t)px[ns]; k++)
                f->x[k] = (float)lx[k];
            f->nnz = (size_t)px[ns];
        }
    } else if (ok) {
        /* Simplicial: column j holds its nz[j] entries from p[j], the
         * diagonal (LL^T) or D(j) (LDL^T) first; packed here in column
         * order, s as the row indices and px as the column pointers. */
        const int *p = L->p, *li = L->i, *nz = L->nz;
        size_t total = 0;
        for (size_t j = 0; j < n; j++)
            total += (size_t)nz[j];
        ok = grow((void **)&f->px, &f->cap_px, n + 1, sizeof *f->px) &&
             grow((void **)&f->s, &f->cap_s, total, sizeof *f->s) &&
             grow((void **)&f->x, &f->cap_x, total, sizeof *f->x);
        if (ok) {
            size_t q = 0;
            for (size_t j = 0; j < n; j++) {
                f->px[j] = q;
                for (int k = p[j]; k < p[j] + nz[j]; k++, q++) {
                    f->s[q] = li[k];
                    f->x[q] = (float)lx[k];
                }
            }
            f->px[n] = q;
            f->nnz = q;
        }
    }
    if (!ok)
        return st_component_error(self, NULL, err, ST_ENOMEM,
                                  "out of memory copying the factor to single precision");
    f->valid = true;
    return ST_OK;
}

/* Supernodes with fewer columns than this are solved by plain loops (a
 * BLAS call costs more than the work); wider ones by OpenBLAS's strsv and
 * sgemv on the dense block. */
#define SMALL_SUPER 8

static void super_forward(const direct_sfactor *f, float *w)
{
    float *t = f->t;
    for (size_t k = 0; k < f->nsuper; k++) {
        const int k1 = f->super[k], nscol = f->super[k + 1] - k1;
        const int nsrow = f->pi[k + 1] - f->pi[k], nsub = nsrow - nscol;
        const int *rows = f->s + f->pi[k];
        const float *a = f->x + f->px[k];
        float *x1 = w + k1;
        if (nscol < SMALL_SUPER) {
            for (int j = 0; j < nscol; j++) {
                const float *c = a + (size_t)j * nsrow;
                const float xj = x1[j] / c[j];
                x1[j] = xj;
                for (int i = j + 1; i < nscol; i++)
                    x1[i] -= c[i] * xj;
            }
            for (int i = 0; i < nsub; i++)
                t[i] = 0.0f;
            for (int j = 0; j < nscol; j++) {
                const float *c = a + (size_t)j * nsrow + nscol;
                const float xj = x1[j];
                for (int i = 0; i < nsub; i++)
                    t[i] += c[i] * xj;
            }
        } else {
            cblas_strsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, nscol, a, nsrow,
                        x1, 1);
            if (nsub > 0)
                cblas_sgemv(CblasColMajor, CblasNoTrans, nsub, nscol, 1.0f, a + nscol, nsrow, x1,
                            1, 0.0f, t, 1);
        }
        for (int i = 0; i < nsub; i++)
            w[rows[nscol + i]] -= t[i];
    }
}

static void super_backward(const direct_sfactor *f, float *w)
{
    float *t = f->t;
    for (size_t k = f->nsuper; k-- > 0;) {
        const int k1 = f->super[k], nscol = f->super[k + 1] - k1;
        const int nsrow = f->pi[k + 1] - f->pi[k], nsub = nsrow - nscol;
        const int *rows = f->s + f->pi[k];
        const float *a = f->x + f->px[k];
        float *x1 = w + k1;
        for (int i = 0; i < nsub; i++)
            t[i] = w[rows[nscol + i]];
        if (nscol < SMALL_SUPER) {
            for (int j = 0; j < nscol; j++) {
                const float *c = a + (size_t)j * nsrow + nscol;
                float sum = 0.0f;
                for (int i = 0; i < nsub; i++)
                    sum += c[i] * t[i];
                x1[j] -= sum;
            }
            for (int j = nscol; j-- > 0;) {
                const float *c = a + (size_t)j * nsrow;
                float xj = x1[j];
                for (int i = j + 1; i < nscol; i++)
                    xj -= c[i] * x1[i];
                x1[j] = xj / c[j];
            }
        } else {
            if (nsub > 0)
                cblas_sgemv(CblasColMajor, CblasTrans, nsub, nscol, -1.0f, a + nscol, nsrow, t, 1,
                            1.0f, x1, 1);
            cblas_strsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, nscol, a, nsrow, x1,
                        1);
        }
    }
}

static void simplicial_solve(const direct_sfactor *f, float *w)
{
    const size_t n = f->n;
    const size_t *p = f->px;
    const int *ri = f->s;
    const float *lx = f->x;
    /* L y = b (LL^T: divide by the diagonal; LDL^T: unit diagonal). */
    for (size_t j = 0; j < n; j++) {
        float xj = f->ll ? w[j] / lx[p[j]] : w[j];
        w[j] = xj;
        for (size_t k = p[j] + 1; k < p[j + 1]; k++)
            w[ri[k]] -= lx[k] * xj;
    }
    if (!f->ll)
        for (size_t j = 0; j < n; j++)
            w[j] /= lx[p[j]];
    /* L^T x = y */
    for (size_t j = n; j-- > 0;) {
        float xj = w[j];
        for (size_t k = p[j] + 1; k < p[j + 1]; k++)
            xj -= lx[k] * w[ri[k]];
        w[j] = f->ll ? xj / lx[p[j]] : xj;
    }
}

void direct_sfactor_solve(const direct_sfactor *f, double *x, const double *b)
{
    const size_t n = f->n;
    float *w = f->w;
    for (size_t k = 0; k < n; k++)
        w[k] = (float)b[f->perm[k]];
    if (f->super_) {
        super_forward(f, w);
        super_backward(f, w);
    } else {
        simplicial_solve(f, w);
    }
    for (size_t k = 0; k < n; k++)
        x[f->perm[k]] = (double)w[k];
}
