/* eigen_sparse_qr.c - EigenSparseQR: SOFA's wrapper of Eigen's SparseQR,
 * here SuiteSparseQR (SPQR, multifrontal Householder QR) with its default
 * rank tolerance (20 (m + n) eps times the largest column norm, Eigen's
 * default threshold too). Non-symmetric and rank-deficient systems.
 *
 * The assembled CSR arrays read as compressed columns are A^T, so SPQR
 * factors A^T E = Q R without a copy of the values, and A x = b is solved
 * as x = Q (R^-T (E^T b)). Symbolic analysis once per matrix pattern (the
 * 64-bit index copy SPQR's C interface needs is made then), numeric
 * factorization every step; a solve allocates its two dense results
 * through SPQR's C interface. */
#include <string.h>

#include <SuiteSparseQR_C.h>

#include "direct_common.h"

typedef struct eigen_qr {
    st_component base;
    char *template_name;           /* "template" */
    st_component *ordering_method; /* "orderingMethod" link */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    /* Runtime. */
    st_system *sys;
    st_matrix *m;
    direct_ordering ord;
    cholmod_common c;
    bool started;
    SuiteSparseQR_C_factorization *qr;
    unsigned long version;
    bool analysed, factored;
    SuiteSparse_long *p, *i;       /* 64-bit copy of the pattern */
    cholmod_sparse A;              /* header over p, i and the CSR values */
    size_t n;
} eigen_qr;

static const st_field qr_fields[] = {DIRECT_F_EIGEN(eigen_qr), ST_FIELD_END};

static st_status qr_init(st_component *self, st_error *err)
{
    eigen_qr *s = (eigen_qr *)self;
    return direct_eigen_init(self, &s->ord, s->template_name, s->ordering_method, true, err);
}

static void qr_free(eigen_qr *s)
{
    if (s->started) {
        if (s->qr)
            SuiteSparseQR_C_free(&s->qr, &s->c);
        cholmod_l_finish(&s->c);
        s->started = false;
    }
    st_free(s->p);
    st_free(s->i);
    s->p = s->i = NULL;
    s->analysed = s->factored = false;
    st_matrix_destroy(&s->m);
}

static st_status qr_bind(st_component *self, st_system *sys, st_error *err)
{
    eigen_qr *s = (eigen_qr *)self;
    qr_free(s);
    s->sys = sys;
    ST_TRY(st_matrix_create(sys, &s->m, err));
    if (!cholmod_l_start(&s->c))
        return st_component_error(self, NULL, err, ST_ENOMEM, "cholmod_l_start failed");
    s->started = true;
    s->c.print = 0;
    s->c.error_handler = NULL;
    return ST_OK;
}

static int spqr_ordering(direct_ordering o)
{
    switch (o) {
    case DIRECT_ORDER_NATURAL: return SPQR_ORDERING_FIXED;
    case DIRECT_ORDER_AMD: return SPQR_ORDERING_AMD;
    case DIRECT_ORDER_COLAMD: return SPQR_ORDERING_COLAMD;
    default: return SPQR_ORDERING_METIS;
    }
}

/* The 64-bit pattern and the header over it (once per pattern). */
static st_status qr_pattern(eigen_qr *s, const st_csr *a, st_error *err)
{
    st_free(s->p);
    st_free(s->i);
    s->p = st_malloc((a->n + 1) * sizeof *s->p);
    s->i = st_malloc((a->nnz ? a->nnz : 1) * sizeof *s->i);
    if (!s->p || !s->i)
        return st_component_error(&s->base, NULL, err, ST_ENOMEM, "out of memory");
    for (size_t k = 0; k <= a->n; k++)
        s->p[k] = a->rowptr[k];
    for (size_t k = 0; k < a->nnz; k++)
        s->i[k] = a->colind[k];
    memset(&s->A, 0, sizeof s->A);
    s->A.nrow = s->A.ncol = a->n;
    s->A.nzmax = a->nnz;
    s->A.p = s->p;
    s->A.i = s->i;
    s->A.stype = 0; /* unsymmetric: all of A^T */
    s->A.itype = CHOLMOD_LONG;
    s->A.xtype = CHOLMOD_REAL;
    s->A.dtype = CHOLMOD_DOUBLE;
    s->A.sorted = 1;
    s->A.packed = 1;
    return ST_OK;
}

static st_status qr_set_system(st_component *self, st_system *sys, double mf, double bf,
                               double kf, st_error *err)
{
    eigen_qr *s = (eigen_qr *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    st_csr a;
    st_matrix_csr(s->m, &a);
    s->n = a.n;
    s->factored = false;
    if (a.n == 0)
        return ST_OK;
    if (!s->analysed || s->version != a.pattern_version) {
        if (s->qr)
            SuiteSparseQR_C_free(&s->qr, &s->c);
        ST_TRY(qr_pattern(s, &a, err));
        s->A.x = (void *)a.values;
        s->qr = SuiteSparseQR_C_symbolic(spqr_ordering(s->ord), 1, &s->A, &s->c);
        if (!s->qr)
            return st_component_error(self, NULL, err, direct_cholmod_code(s->c.status),
                                      "SPQR symbolic analysis of the %zux%zu system matrix "
                                      "failed (%s)",
                                      a.n, a.n, direct_cholmod_status_name(s->c.status));
        s->version = a.pattern_version;
        s->analysed = true;
    }
    s->A.x = (void *)a.values;
    if (!SuiteSparseQR_C_numeric(SPQR_DEFAULT_TOL, &s->A, s->qr, &s->c))
        return st_component_error(self, NULL, err, direct_cholmod_code(s->c.status),
                                  "SPQR factorization (time %g) of the %zux%zu system matrix "
                                  "failed (%s)",
                                  sys->mp.time, a.n, a.n, direct_cholmod_status_name(s->c.status));
    s->factored = true;
    return ST_OK;
}

static st_status qr_solve(st_component *self, st_system *sys, double *x, const double *b,
                          st_error *err)
{
    eigen_qr *s = (eigen_qr *)self;
    if (s->n == 0)
        return ST_OK;
    if (!s->factored)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "solve called before the matrix was factored");
    cholmod_dense B;
    memset(&B, 0, sizeof B);
    B.nrow = s->n;
    B.ncol = 1;
    B.nzmax = s->n;
    B.d = s->n;
    B.x = (void *)b;
    B.xtype = CHOLMOD_REAL;
    B.dtype = CHOLMOD_DOUBLE;
    cholmod_dense *y = SuiteSparseQR_C_solve(SPQR_RTX_EQUALS_ETB, s->qr, &B, &s->c);
    cholmod_dense *z = y ? SuiteSparseQR_C_qmult(SPQR_QX, s->qr, y, &s->c) : NULL;
    if (z)
        memcpy(x, z->x, s->n * sizeof *x);
    if (y)
        cholmod_l_free_dense(&y, &s->c);
    if (!z)
        return st_component_error(self, NULL, err, direct_cholmod_code(s->c.status),
                                  "SPQR solve failed (%s)",
                                  direct_cholmod_status_name(s->c.status));
    cholmod_l_free_dense(&z, &s->c);
    return ST_OK;
}

static void qr_cleanup(st_component *self) { qr_free((eigen_qr *)self); }

static const st_linsolver_ops qr_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = qr_bind,
    .set_system = qr_set_system,
    .solve = qr_solve,
};

const st_class eigen_sparse_qr_class = {
    .struct_size = sizeof(st_class),
    .name = "EigenSparseQR",
    .category = "LinearSolver",
    .description = "Direct linear solver of the assembled system: sparse QR (Eigen's SparseQR "
                   "in SOFA; SuiteSparseQR here), non-symmetric and rank-deficient systems",
    .instance_size = sizeof(eigen_qr),
    .fields = qr_fields,
    .init = qr_init,
    .cleanup = qr_cleanup,
    .linsolver = &qr_ops,
};
