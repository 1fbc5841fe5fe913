/* sofa_ldl_proxy.h - a stand-in for SOFA's SparseLDLSolver factorization,
 * used by bench_implicit's `sofa-ldl` mode (see sofa_ldl_proxy.c). */
#ifndef SETTEE_BENCH_SOFA_LDL_PROXY_H
#define SETTEE_BENCH_SOFA_LDL_PROXY_H

#include <stddef.h>
#include <string.h>

#include <cholmod.h>

#include <settee/settee.h>

typedef struct sofa_ldl sofa_ldl;

/* A CHOLMOD header (no copy) over a symmetric scalar CSR with both
 * triangles and sorted columns, read as compressed columns (stype 1: the
 * upper triangle); values NULL gives a pattern-only matrix. */
static inline void bench_cholmod_wrap(cholmod_sparse *A, size_t n, size_t nnz, const int *rowptr,
                        const int *colind, const double *values)
{
    memset(A, 0, sizeof *A);
    A->nrow = A->ncol = n;
    A->nzmax = nnz;
    A->p = (void *)rowptr;
    A->i = (void *)colind;
    A->x = (void *)values;
    A->stype = 1;
    A->itype = CHOLMOD_INT;
    A->xtype = values ? CHOLMOD_REAL : CHOLMOD_PATTERN;
    A->dtype = CHOLMOD_DOUBLE;
    A->sorted = 1;
    A->packed = 1;
}

/* Wall-clock times of one factorization, in seconds. */
typedef struct sofa_ldl_times {
    double copy;      /* non-zero filtering copy, pattern comparison, value copy */
    double symbolic;  /* ordering, ldl_symbolic, allocation, L^T counting (new pattern only) */
    double numeric;   /* ldl_numeric and the inversion of D */
    double transpose; /* the scatter of L into L^T */
    int new_pattern;  /* 1 when this factorization analysed a new pattern */
} sofa_ldl_times;

/* Creates an empty solver (NULL when out of memory or CHOLMOD fails to
 * start). */
sofa_ldl *sofa_ldl_create(void);
/* Frees the solver; accepts NULL. */
void sofa_ldl_destroy(sofa_ldl *s);
/* Factors a (scalar CSR with both triangles, read as symmetric) as SOFA's
 * SparseLDLSolver does at each step; fills t. Returns 0, or -1 with a
 * message in msg (out of memory, ordering failed, zero pivot). */
int sofa_ldl_factor(sofa_ldl *s, const st_csr *a, sofa_ldl_times *t, char *msg, size_t msg_len);
/* x = A^-1 b with the last factorization (x and b of the factored size,
 * distinct arrays). */
void sofa_ldl_solve(sofa_ldl *s, double *x, const double *b);
/* Entries of the last filtered copy of A (explicit zeros dropped). */
size_t sofa_ldl_nnz(const sofa_ldl *s);
/* Entries of L below the diagonal (SOFA's L_nnz). */
size_t sofa_ldl_lnnz(const sofa_ldl *s);
/* CHOLMOD's flop measure of the factor: the sum over columns of the square
 * of the column's entry count, diagonal included (cholmod_common.fl). */
double sofa_ldl_flops(const sofa_ldl *s);
/* Bytes held by the solver's arrays (matrix copies, L, L^T, work). */
size_t sofa_ldl_bytes(const sofa_ldl *s);
/* Symbolic analyses done so far. */
unsigned long sofa_ldl_symbolic_count(const sofa_ldl *s);

#endif
