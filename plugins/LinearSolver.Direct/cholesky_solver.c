/* cholesky_solver.c - CholeskySolver: the assembled system made dense and
 * factored A = L L^T column by column (SOFA's algorithm: for each column j,
 * L_jj = sqrt(A_jj - sum_k<j L_jk^2), then L_ij = (A_ij - sum_k<j L_ik L_jk)
 * / L_jj below it), then solved by a forward and a backward substitution.
 * Dense: O(n^3) per factorization, O(n^2) memory, for small systems. A
 * pivot that is not positive is an error naming the row (SOFA logs "matrix
 * is not positive definite" and goes on with NaNs). */
#include <math.h>
#include <string.h>

#include "direct_common.h"

typedef struct cholesky_solver {
    st_component base;
    char *template_name;         /* "template" */
    bool parallel_inverse;       /* "parallelInverseProduct" (ignored) */
    st_component *linear_system; /* "linearSystem" (ignored) */
    /* Runtime. */
    st_system *sys;
    st_matrix *m;
    size_t n;
    double *l; /* n x n, column-major; the lower triangle holds L */
    bool factored;
} cholesky_solver;

static const st_field cholesky_fields[] = {
    ST_STRING(cholesky_solver, template_name, "template", "SparseMatrix",
              "Matrix type: SparseMatrix (SOFA's default) or FullMatrix (both give the same "
              "numbers: the matrix is made dense)"),
    DIRECT_F_MATRIX_SOLVER(cholesky_solver),
    ST_FIELD_END};

static const char *const cholesky_templates[] = {"SparseMatrix", "SparseMatrixd", "FullMatrix",
                                                 "FullMatrixd", NULL};

static st_status cholesky_init(st_component *self, st_error *err)
{
    cholesky_solver *s = (cholesky_solver *)self;
    if (!s->template_name)
        return ST_OK;
    /* SOFA writes the vector type too: "SparseMatrix,FullVector". */
    size_t len = strcspn(s->template_name, ",");
    for (const char *const *t = cholesky_templates; *t; t++)
        if (strlen(*t) == len && strncmp(*t, s->template_name, len) == 0)
            return ST_OK;
    return st_component_error(self, "template", err, ST_EINVAL,
                              "unsupported template '%s': expected SparseMatrix or FullMatrix",
                              s->template_name);
}

static void cholesky_free(cholesky_solver *s)
{
    st_free(s->l);
    s->l = NULL;
    st_matrix_destroy(&s->m);
}

static st_status cholesky_bind(st_component *self, st_system *sys, st_error *err)
{
    cholesky_solver *s = (cholesky_solver *)self;
    cholesky_free(s);
    s->sys = sys;
    s->factored = false;
    ST_TRY(st_matrix_create(sys, &s->m, err));
    s->n = sys->size;
    s->l = st_malloc((s->n ? s->n * s->n : 1) * sizeof *s->l);
    if (!s->l)
        return st_component_error(self, NULL, err, ST_ENOMEM,
                                  "out of memory for the dense %zux%zu matrix", s->n, s->n);
    return ST_OK;
}

static st_status cholesky_set_system(st_component *self, st_system *sys, double mf, double bf,
                                     double kf, st_error *err)
{
    cholesky_solver *s = (cholesky_solver *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    s->factored = false;
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    st_csr a;
    st_matrix_csr(s->m, &a);
    const size_t n = a.n;
    double *l = s->l;
    if (n == 0)
        return ST_OK;
    /* The lower triangle of A, column-major (the matrix is symmetric: row i
     * of the CSR is column i). */
    memset(l, 0, n * n * sizeof *l);
    for (size_t i = 0; i < n; i++)
        for (int k = a.rowptr[i]; k < a.rowptr[i + 1]; k++)
            if ((size_t)a.colind[k] >= i)
                l[i * n + (size_t)a.colind[k]] = a.values[k];
    for (size_t j = 0; j < n; j++) {
        double *cj = l + j * n;
        double d = cj[j];
        for (size_t k = 0; k < j; k++)
            d -= l[k * n + j] * l[k * n + j];
        if (!(d > 0.0))
            return st_component_error(self, NULL, err, ST_ESOLVER,
                                      "the matrix is not positive definite: pivot %g at row %zu "
                                      "of %zu (a Cholesky factorization needs a symmetric "
                                      "positive definite system; SparseLDLSolver does not)",
                                      d, j, n);
        const double ljj = sqrt(d);
        cj[j] = ljj;
        for (size_t i = j + 1; i < n; i++) {
            double v = cj[i];
            for (size_t k = 0; k < j; k++)
                v -= l[k * n + i] * l[k * n + j];
            cj[i] = v / ljj;
        }
    }
    s->factored = true;
    return ST_OK;
}

static st_status cholesky_solve(st_component *self, st_system *sys, double *x, const double *b,
                                st_error *err)
{
    (void)sys;
    cholesky_solver *s = (cholesky_solver *)self;
    const size_t n = s->n;
    const double *l = s->l;
    if (n == 0)
        return ST_OK;
    if (!s->factored)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "solve called before the matrix was factored");
    /* L u = b, column by column. */
    if (x != b)
        memcpy(x, b, n * sizeof *x);
    for (size_t j = 0; j < n; j++) {
        const double *cj = l + j * n;
        x[j] /= cj[j];
        const double xj = x[j];
        for (size_t i = j + 1; i < n; i++)
            x[i] -= cj[i] * xj;
    }
    /* L^T x = u: row j of L^T is column j of L. */
    for (size_t j = n; j-- > 0;) {
        const double *cj = l + j * n;
        double v = x[j];
        for (size_t i = j + 1; i < n; i++)
            v -= cj[i] * x[i];
        x[j] = v / cj[j];
    }
    return ST_OK;
}

static void cholesky_cleanup(st_component *self) { cholesky_free((cholesky_solver *)self); }

static const st_linsolver_ops cholesky_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = cholesky_bind,
    .set_system = cholesky_set_system,
    .solve = cholesky_solve,
};

const st_class cholesky_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "CholeskySolver",
    .category = "LinearSolver",
    .description = "Direct linear solver based on Cholesky factorization, for dense matrices.",
    .instance_size = sizeof(cholesky_solver),
    .fields = cholesky_fields,
    .init = cholesky_init,
    .cleanup = cholesky_cleanup,
    .linsolver = &cholesky_ops,
};
