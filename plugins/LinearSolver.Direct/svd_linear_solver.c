/* svd_linear_solver.c - SVDLinearSolver: the assembled system, made dense,
 * decomposed A = U S V^T by LAPACK's dgesdd (OpenBLAS; the divide-and-
 * conquer SVD, 5 to 8 times faster than dgesvd's QR iteration on the
 * systems SOFA's examples give it, and as accurate: SOFA's Eigen JacobiSVD
 * and both LAPACK drivers agree to round-off), and solved in the
 * least-squares sense x = V S^+ U^T b, singular values at or below
 * minSingularValue counted as zero (SOFA's stabilization of ill-conditioned
 * systems). Dense: O(n^3) per step, for small systems. SOFA decomposes in
 * solve(); settee decomposes once per assembly, which gives the same
 * numbers. */
#include <math.h>
#include <string.h>

#include "direct_common.h"

/* LAPACK (Fortran interface). */
extern void dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda,
                    double *s, double *u, const int *ldu, double *vt, const int *ldvt,
                    double *work, const int *lwork, int *iwork, int *info);

typedef struct svd_solver {
    st_component base;
    char *template_name;           /* "template" */
    bool verbose;                  /* "verbose" (ignored) */
    double min_singular;           /* "minSingularValue" */
    double condition_number;       /* "conditionNumber" (output) */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    /* Runtime. */
    st_system *sys;
    st_matrix *m;
    size_t n;
    double *a, *u, *vt, *s, *work, *tmp; /* dense, column-major */
    int *iwork;                          /* dgesdd's 8 n integers */
    int lwork;
    bool decomposed;
} svd_solver;

static const st_field svd_fields[] = {
    ST_STRING(svd_solver, template_name, "template", "FullMatrix",
              "Matrix type: FullMatrix, CompressedRowSparseMatrixd or "
              "CompressedRowSparseMatrixMat3x3d (all give the same numbers: the matrix is made "
              "dense)"),
    ST_IGNORED(svd_solver, verbose, "verbose", ST_T_BOOL, bool, "false",
               "Dump system state at each iteration (settee: use `settee inspect` instead)"),
    ST_REAL(svd_solver, min_singular, "minSingularValue", "1e-6",
            "Thershold under which a singular value is set to 0, for the stabilization of "
            "ill-conditioned system."),
    ST_OUTPUT(svd_solver, condition_number, "conditionNumber", ST_T_REAL, double,
              "Condition number of the matrix: ratio between the largest and smallest singular "
              "values. Computed in method solve."),
    DIRECT_F_MATRIX_SOLVER(svd_solver),
    ST_FIELD_END};

static st_status svd_init(st_component *self, st_error *err)
{
    svd_solver *s = (svd_solver *)self;
    if (s->template_name && strcmp(s->template_name, "FullMatrix") == 0)
        return ST_OK;
    return direct_check_template(self, s->template_name, err);
}

static void svd_free(svd_solver *s)
{
    st_free(s->a);
    st_free(s->u);
    st_free(s->vt);
    st_free(s->s);
    st_free(s->work);
    st_free(s->tmp);
    st_free(s->iwork);
    s->a = s->u = s->vt = s->s = s->work = s->tmp = NULL;
    s->iwork = NULL;
    st_matrix_destroy(&s->m);
}

static st_status svd_bind(st_component *self, st_system *sys, st_error *err)
{
    svd_solver *s = (svd_solver *)self;
    svd_free(s);
    s->sys = sys;
    s->decomposed = false;
    ST_TRY(st_matrix_create(sys, &s->m, err));
    size_t n = sys->size, nn = n > 0 ? n * n : 1;
    s->n = n;
    s->a = st_malloc(nn * sizeof *s->a);
    s->u = st_malloc(nn * sizeof *s->u);
    s->vt = st_malloc(nn * sizeof *s->vt);
    s->s = st_malloc((n ? n : 1) * sizeof *s->s);
    s->tmp = st_malloc((n ? n : 1) * sizeof *s->tmp);
    s->iwork = st_malloc((n ? 8 * n : 1) * sizeof *s->iwork);
    if (!s->a || !s->u || !s->vt || !s->s || !s->tmp || !s->iwork)
        return st_component_error(self, NULL, err, ST_ENOMEM,
                                  "out of memory for the dense %zux%zu matrix and its SVD", n, n);
    /* Workspace query. */
    int ni = (int)n, lw = -1, info = 0;
    double q = 0.0;
    if (n) {
        dgesdd_("S", &ni, &ni, s->a, &ni, s->s, s->u, &ni, s->vt, &ni, &q, &lw, s->iwork, &info);
        s->lwork = info == 0 ? (int)q : 4 * ni * ni + 7 * ni;
    } else {
        s->lwork = 1;
    }
    s->work = st_malloc((size_t)s->lwork * sizeof *s->work);
    if (!s->work)
        return st_component_error(self, NULL, err, ST_ENOMEM, "out of memory");
    return ST_OK;
}

static st_status svd_set_system(st_component *self, st_system *sys, double mf, double bf,
                                double kf, st_error *err)
{
    svd_solver *s = (svd_solver *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    st_csr a;
    st_matrix_csr(s->m, &a);
    const size_t n = a.n;
    if (n == 0)
        return ST_OK;
    memset(s->a, 0, n * n * sizeof *s->a);
    for (size_t i = 0; i < n; i++)
        for (int k = a.rowptr[i]; k < a.rowptr[i + 1]; k++)
            s->a[(size_t)a.colind[k] * n + i] = a.values[k]; /* column-major */
    int ni = (int)n, info = 0;
    dgesdd_("S", &ni, &ni, s->a, &ni, s->s, s->u, &ni, s->vt, &ni, s->work, &s->lwork, s->iwork,
            &info);
    if (info != 0)
        return st_component_error(self, NULL, err, ST_ESOLVER,
                                  "LAPACK dgesdd of the %zux%zu system matrix failed (info %d)",
                                  n, n, info);
    s->condition_number = s->s[0] / s->s[n - 1];
    s->decomposed = true;
    return ST_OK;
}

static st_status svd_solve(st_component *self, st_system *sys, double *x, const double *b,
                           st_error *err)
{
    svd_solver *s = (svd_solver *)self;
    const size_t n = s->n;
    if (n == 0)
        return ST_OK;
    if (!s->decomposed)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "solve called before the matrix was decomposed");
    /* tmp = S^+ U^T b */
    for (size_t j = 0; j < n; j++) {
        double d = 0.0;
        const double *uj = s->u + j * n;
        for (size_t i = 0; i < n; i++)
            d += uj[i] * b[i];
        s->tmp[j] = s->s[j] > s->min_singular ? d / s->s[j] : 0.0;
    }
    /* x = V tmp (V^T stored column-major: V(i, j) = vt[i * n + j]) */
    for (size_t i = 0; i < n; i++)
        x[i] = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double *vti = s->vt + i * n; /* column i of V^T: V(i, :) */
        double d = 0.0;
        for (size_t j = 0; j < n; j++)
            d += vti[j] * s->tmp[j];
        x[i] = d;
    }
    return ST_OK;
}

static void svd_cleanup(st_component *self) { svd_free((svd_solver *)self); }

static const st_linsolver_ops svd_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = svd_bind,
    .set_system = svd_set_system,
    .solve = svd_solve,
};

const st_class svd_linear_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "SVDLinearSolver",
    .category = "LinearSolver",
    .description = "Linear system solver using a Singular Value Decomposition of the dense "
                   "matrix (least-squares solution; small systems)",
    .instance_size = sizeof(svd_solver),
    .fields = svd_fields,
    .init = svd_init,
    .cleanup = svd_cleanup,
    .linsolver = &svd_ops,
};
