/* sofa_ldl_proxy.c - an honest stand-in for SOFA's SparseLDLSolver, which
 * cannot be installed here, run on settee's assembled matrix so that
 * bench_implicit can compare it with settee's SparseLDLSolver (CHOLMOD).
 *
 * What SOFA does per factorization (sofa-notes 9.3, SparseLDLSolver.inl and
 * SparseLDLSolverImpl.h), and what this file does in its place:
 *  1. copy the system matrix into a scalar CSR keeping the non-zero entries
 *     only (copyNonZeros + compress), compare that pattern with the stored
 *     one, copy the values (memcpy): the same three passes here;
 *  2. on a new pattern only: fill-reducing ordering (METIS by default when
 *     SOFA has it: here cholmod_metis, METIS_NodeND without postordering),
 *     elimination tree and column counts (SOFA's CSPARSE_symbolic is Tim
 *     Davis's LDL symbolic: here ldl_symbolic of SuiteSparse's LDL package),
 *     allocation of L and L^T, the counting pass of L^T's column pointers;
 *  3. every time: up-looking numeric LDL^T on the permuted matrix (SOFA's
 *     CSPARSE_numeric is LDL's ldl_numeric: here ldl_numeric itself), D
 *     replaced by 1/D, L scattered into L^T (CSC of L^T = CSR of L).
 * The solve follows SOFA's solve_cpu: permute b, forward solve with L^T
 * read as the CSR of L, multiply by 1/D, backward solve with L (ldl_ltsolve
 * does exactly SOFA's upper CSR solve on L's columns), un-permute.
 * The matrix is read as compressed columns: both triangles are stored with
 * sorted columns, so the CSR of a symmetric matrix is its CSC too.
 * Allocation happens only on a new pattern or a larger input, as in SOFA. */
#include "sofa_ldl_proxy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cholmod.h>
#include <ldl.h>

struct sofa_ldl {
    cholmod_common c;
    int n;
    /* The filtered copy of A (SOFA's Mfiltered). */
    int *a_rowptr, *a_colind;
    double *a_values;
    size_t a_cap, a_nnz;
    /* The stored pattern and value copy (SOFA's P_colptr, P_rowind,
     * P_values). */
    int *p_rowptr, *p_colind;
    double *p_values;
    size_t p_nnz;
    int analysed;
    /* Ordering, elimination tree and LDL's work arrays. */
    int *perm, *pinv, *parent, *lnz, *flag, *pattern;
    double *y;
    /* L (CSC, unit diagonal not stored), 1/D, L^T (CSC). */
    int *lp, *li, *ltp, *lti, *count;
    double *lx, *invd, *ltx, *tmp;
    size_t l_nnz;
    unsigned long nsymbolic;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Frees everything that depends on the pattern. */
static void free_pattern(sofa_ldl *s)
{
    void *all[] = {s->p_rowptr, s->p_colind, s->p_values, s->perm, s->pinv, s->parent,
                   s->lnz,      s->flag,     s->pattern,  s->y,    s->lp,   s->li,
                   s->ltp,      s->lti,      s->count,    s->lx,   s->invd, s->ltx,
                   s->tmp};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]);
    s->p_rowptr = s->p_colind = NULL;
    s->p_values = NULL;
    s->perm = s->pinv = s->parent = s->lnz = s->flag = s->pattern = NULL;
    s->y = NULL;
    s->lp = s->li = s->ltp = s->lti = s->count = NULL;
    s->lx = s->invd = s->ltx = s->tmp = NULL;
    s->analysed = 0;
    s->l_nnz = 0;
}

sofa_ldl *sofa_ldl_create(void)
{
    sofa_ldl *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (!cholmod_start(&s->c)) {
        free(s);
        return NULL;
    }
    s->c.print = 0;
    s->c.error_handler = NULL;
    return s;
}

void sofa_ldl_destroy(sofa_ldl *s)
{
    if (!s)
        return;
    free_pattern(s);
    free(s->a_rowptr);
    free(s->a_colind);
    free(s->a_values);
    cholmod_finish(&s->c);
    free(s);
}

/* Step 1: the filtered copy, the pattern comparison and the value copy.
 * Returns 1 when the pattern differs from the stored one, 0 when not, -1
 * when out of memory. */
static int copy_matrix(sofa_ldl *s, const st_csr *a)
{
    if (a->nnz > s->a_cap || !s->a_rowptr || (size_t)s->n != a->n) {
        free(s->a_rowptr);
        free(s->a_colind);
        free(s->a_values);
        s->a_rowptr = malloc((a->n + 1) * sizeof *s->a_rowptr);
        s->a_colind = malloc((a->nnz ? a->nnz : 1) * sizeof *s->a_colind);
        s->a_values = malloc((a->nnz ? a->nnz : 1) * sizeof *s->a_values);
        s->a_cap = a->nnz;
        if (!s->a_rowptr || !s->a_colind || !s->a_values)
            return -1;
    }
    size_t k = 0;
    s->a_rowptr[0] = 0;
    for (size_t i = 0; i < a->n; i++) {
        for (int p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
            if (a->values[p] != 0.0) {
                s->a_colind[k] = a->colind[p];
                s->a_values[k] = a->values[p];
                k++;
            }
        }
        s->a_rowptr[i + 1] = (int)k;
    }
    s->a_nnz = k;
    int changed = !s->analysed || (size_t)s->n != a->n || s->p_nnz != k ||
                  memcmp(s->p_rowptr, s->a_rowptr, (a->n + 1) * sizeof(int)) != 0 ||
                  memcmp(s->p_colind, s->a_colind, k * sizeof(int)) != 0;
    if (!changed)
        memcpy(s->p_values, s->a_values, k * sizeof(double));
    return changed;
}

/* Step 2: ordering, symbolic factorization and allocation (new pattern). */
static int analyse(sofa_ldl *s, size_t n, char *msg, size_t msg_len)
{
    free_pattern(s);
    s->n = (int)n;
    size_t nn = n ? n : 1, nz = s->a_nnz ? s->a_nnz : 1;
    s->p_nnz = s->a_nnz;
    s->p_rowptr = malloc((n + 1) * sizeof(int));
    s->p_colind = malloc(nz * sizeof(int));
    s->p_values = malloc(nz * sizeof(double));
    s->perm = malloc(nn * sizeof(int));
    s->pinv = malloc(nn * sizeof(int));
    s->parent = malloc(nn * sizeof(int));
    s->lnz = malloc(nn * sizeof(int));
    s->flag = malloc(nn * sizeof(int));
    s->pattern = malloc(nn * sizeof(int));
    s->y = malloc(nn * sizeof(double));
    s->lp = malloc((n + 1) * sizeof(int));
    s->ltp = malloc((n + 1) * sizeof(int));
    s->count = malloc(nn * sizeof(int));
    s->invd = malloc(nn * sizeof(double));
    s->tmp = malloc(nn * sizeof(double));
    if (!s->p_rowptr || !s->p_colind || !s->p_values || !s->perm || !s->pinv || !s->parent ||
        !s->lnz || !s->flag || !s->pattern || !s->y || !s->lp || !s->ltp || !s->count ||
        !s->invd || !s->tmp) {
        snprintf(msg, msg_len, "out of memory (n = %zu)", n);
        return -1;
    }
    memcpy(s->p_rowptr, s->a_rowptr, (n + 1) * sizeof(int));
    memcpy(s->p_colind, s->a_colind, s->a_nnz * sizeof(int));
    memcpy(s->p_values, s->a_values, s->a_nnz * sizeof(double));

    /* METIS nested dissection through CHOLMOD (the upper triangle of the
     * symmetric matrix is read; CHOLMOD forms the graph of A + A^T). */
    cholmod_sparse A;
    bench_cholmod_wrap(&A, n, s->a_nnz, s->p_rowptr, s->p_colind, NULL);
    if (!cholmod_metis(&A, NULL, 0, 0, s->perm, &s->c)) {
        snprintf(msg, msg_len, "cholmod_metis failed (status %d)", s->c.status);
        return -1;
    }
    ldl_symbolic(s->n, s->p_rowptr, s->p_colind, s->lp, s->parent, s->lnz, s->flag, s->perm,
                 s->pinv);
    s->l_nnz = (size_t)s->lp[n];
    size_t lz = s->l_nnz ? s->l_nnz : 1;
    s->li = malloc(lz * sizeof(int));
    s->lx = malloc(lz * sizeof(double));
    s->lti = malloc(lz * sizeof(int));
    s->ltx = malloc(lz * sizeof(double));
    if (!s->li || !s->lx || !s->lti || !s->ltx) {
        snprintf(msg, msg_len, "out of memory (L_nnz = %zu)", s->l_nnz);
        return -1;
    }
    s->analysed = 1;
    s->nsymbolic++;
    return 0;
}

int sofa_ldl_factor(sofa_ldl *s, const st_csr *a, sofa_ldl_times *t, char *msg, size_t msg_len)
{
    memset(t, 0, sizeof *t);
    double c0 = now();
    int changed = copy_matrix(s, a);
    if (changed < 0) {
        snprintf(msg, msg_len, "out of memory (nnz = %zu)", a->nnz);
        return -1;
    }
    double c1 = now();
    t->copy = c1 - c0;
    if (changed) {
        if (analyse(s, a->n, msg, msg_len) != 0)
            return -1;
        t->new_pattern = 1;
    }
    double c2 = now();
    t->symbolic = c2 - c1;

    const int n = s->n;
    int done = ldl_numeric(n, s->a_rowptr, s->a_colind, s->a_values, s->lp, s->parent, s->lnz,
                           s->li, s->lx, s->invd, s->y, s->pattern, s->flag, s->perm, s->pinv);
    if (done != n) {
        snprintf(msg, msg_len, "Failed to factorize, D(k,k) is zero (k = %d)", done);
        return -1;
    }
    for (int i = 0; i < n; i++)
        s->invd[i] = 1.0 / s->invd[i];
    double c3 = now();
    t->numeric = c3 - c2;

    if (changed) {
        /* The counting pass of L^T's column pointers (new pattern only). */
        memset(s->count, 0, (size_t)n * sizeof(int));
        for (size_t p = 0; p < s->l_nnz; p++)
            s->count[s->li[p]]++;
        s->ltp[0] = 0;
        for (int j = 0; j < n; j++)
            s->ltp[j + 1] = s->ltp[j] + s->count[j];
    }
    double c4 = now();
    t->symbolic += c4 - c3;

    /* The scatter of L into L^T (every time). */
    memset(s->count, 0, (size_t)n * sizeof(int));
    for (int j = 0; j < n; j++) {
        for (int p = s->lp[j]; p < s->lp[j + 1]; p++) {
            int row = s->li[p];
            int q = s->ltp[row] + s->count[row]++;
            s->lti[q] = j;
            s->ltx[q] = s->lx[p];
        }
    }
    t->transpose = now() - c4;
    return 0;
}

void sofa_ldl_solve(sofa_ldl *s, double *x, const double *b)
{
    const int n = s->n;
    double *y = s->tmp;
    ldl_perm(n, y, (double *)b, s->perm);
    /* L y = b, L read row by row from L^T's columns. */
    for (int i = 0; i < n; i++) {
        double yi = y[i];
        for (int q = s->ltp[i]; q < s->ltp[i + 1]; q++)
            yi -= s->ltx[q] * y[s->lti[q]];
        y[i] = yi;
    }
    for (int i = 0; i < n; i++)
        y[i] *= s->invd[i];
    ldl_ltsolve(n, y, s->lp, s->li, s->lx);
    ldl_permt(n, x, y, s->perm);
}

size_t sofa_ldl_nnz(const sofa_ldl *s)
{
    return s->a_nnz;
}

size_t sofa_ldl_lnnz(const sofa_ldl *s)
{
    return s->l_nnz;
}

double sofa_ldl_flops(const sofa_ldl *s)
{
    double fl = 0.0;
    for (int j = 0; s->lp && j < s->n; j++) {
        double c = (double)(s->lp[j + 1] - s->lp[j]) + 1.0;
        fl += c * c;
    }
    return fl;
}

size_t sofa_ldl_bytes(const sofa_ldl *s)
{
    size_t n = s->analysed ? (size_t)s->n : 0;
    size_t in = s->a_cap * (sizeof(int) + sizeof(double)) + (n + 1) * sizeof(int);
    size_t pat = s->p_nnz * (sizeof(int) + sizeof(double)) + (n + 1) * sizeof(int);
    size_t work = n * (7 * sizeof(int) + 3 * sizeof(double)) + 2 * (n + 1) * sizeof(int);
    size_t factor = 2 * s->l_nnz * (sizeof(int) + sizeof(double));
    return in + pat + work + factor;
}

unsigned long sofa_ldl_symbolic_count(const sofa_ldl *s)
{
    return s->nsymbolic;
}
