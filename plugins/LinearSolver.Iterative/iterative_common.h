/* iterative_common.h - the operator product shared by the iterative solvers
 * of LinearSolver.Iterative: q = A p, either matrix-free through the
 * components (SOFA's GraphScattered) or with the assembled, projected
 * matrix. Private to this plugin. */
#ifndef LINEARSOLVER_ITERATIVE_COMMON_H
#define LINEARSOLVER_ITERATIVE_COMMON_H

#include <stdbool.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/linear_system.h"

/* SOFA's MatrixLinearSolver data, which every linear solver of this plugin
 * has; S has members parallel_inverse (bool) and linear_system (link).
 * Both are accepted and ignored: the product J M^-1 J^T is only
 * parallelized, and settee assembles the system itself. */
#define ITER_F_MATRIX_SOLVER(S)                                                                    \
    ST_IGNORED(S, parallel_inverse, "parallelInverseProduct", ST_T_BOOL, bool, "false",           \
               "Parallelize the computation of the product J*M^{-1}*J^T where M is the matrix "   \
               "of the linear system and J is any matrix with compatible dimensions"),            \
        {"linearSystem", ST_T_LINK,                                                               \
         offsetof(S, linear_system) + ST_FIELD_CHECK_(S, linear_system, st_component *), NULL,    \
         "The linear system to solve", ST_F_IGNORED, NULL, ST_LINK_ANY, 0.0, 0.0}

/* The operator of one linear solver. */
typedef struct iter_op {
    st_system *sys;
    bool assembled;      /* false: matrix-free (GraphScattered) */
    st_matrix *m;        /* assembled templates only */
    double mf, bf, kf;   /* factors of the current system */
    /* The assembled product q = m p when another does it (ParallelCGLinearSolver's
     * rows on threads), else NULL: st_matrix_mul. */
    void (*mul)(void *ctx, const st_matrix *m, double *q, const double *p);
    void *mul_ctx;
} iter_op;

/* CGLinearSolver's operator (for its parallel twin, plugins/MultiThreading). */
iter_op *cg_linear_solver_op(st_component *self);

/* True when a template value names the matrix-free operator; false for an
 * assembled one; an error for an unknown value. */
static inline st_status iter_parse_template(st_component *self, const char *t, bool *assembled,
                                            st_error *err)
{
    static const char *const assembled_names[] = {
        "FullMatrix", "SparseMatrix", "CompressedRowSparseMatrix", "CompressedRowSparseMatrixd",
        "CompressedRowSparseMatrixMat2x2d", "CompressedRowSparseMatrixMat3x3d",
        "CompressedRowSparseMatrixMat3x3", "CompressedRowSparseMatrixMat4x4d",
        "CompressedRowSparseMatrixMat6x6d", "CompressedRowSparseMatrixMat8x8d", NULL};
    if (!t || !t[0] || strcmp(t, "GraphScattered") == 0) {
        *assembled = false;
        return ST_OK;
    }
    for (size_t i = 0; assembled_names[i]; i++)
        if (strcmp(t, assembled_names[i]) == 0) {
            *assembled = true;
            return ST_OK;
        }
    /* The MultiThreading plugin's matrices, which SOFA offers to
     * ParallelCGLinearSolver only: assembled, the product's rows on the
     * solver's threads. */
    if (strncmp(self->cls->name, "Parallel", 8) == 0 &&
        (strcmp(t, "ParallelCompressedRowSparseMatrixd") == 0 ||
         strcmp(t, "ParallelCompressedRowSparseMatrixMat3x3d") == 0)) {
        *assembled = true;
        return ST_OK;
    }
    return st_component_error(self, "template", err, ST_ESCENE,
                              "unsupported template '%s': expected GraphScattered (matrix-free), "
                              "CompressedRowSparseMatrixd, CompressedRowSparseMatrixMat3x3d or "
                              "FullMatrix",
                              t);
}

/* Binds the operator to a system (assembled: creates the matrix). */
static inline st_status iter_op_bind(iter_op *op, st_system *sys, st_error *err)
{
    st_matrix_destroy(&op->m);
    op->sys = sys;
    if (op->assembled)
        return st_matrix_create(sys, &op->m, err);
    return ST_OK;
}

/* Remembers the factors; assembles the matrix for assembled templates. */
static inline st_status iter_op_set(iter_op *op, double mf, double bf, double kf, st_error *err)
{
    op->mf = mf;
    op->bf = bf;
    op->kf = kf;
    if (op->assembled)
        return st_matrix_assemble(op->m, op->sys, mf, bf, kf, err);
    return ST_OK;
}

/* q = A p: matrix-free, (mf M + bf B + kf K) p then projectResponse(q), as
 * SOFA's GraphScattered product; assembled, the projected matrix times p. */
static inline void iter_op_mul(iter_op *op, double *q, const double *p)
{
    if (op->assembled) {
        if (op->mul)
            op->mul(op->mul_ctx, op->m, q, p);
        else
            st_matrix_mul(op->m, q, p);
        return;
    }
    st_system_add_mbkdx(op->sys, q, p, op->mf, op->bf, op->kf, true);
    st_system_project_response(op->sys, q);
}

static inline void iter_op_free(iter_op *op) { st_matrix_destroy(&op->m); }

/* d[i] = A(i, i) of a CSR matrix (0 where the diagonal is not stored). */
static inline void iter_diagonal(const st_csr *a, double *d)
{
    for (size_t i = 0; i < a->n; i++) {
        d[i] = 0.0;
        for (int k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            if ((size_t)a->colind[k] == i) {
                d[i] = a->values[k];
                break;
            }
    }
}

/* inv[i] = 1 / A(i, i); a zero diagonal entry is an error naming the row. */
static inline st_status iter_inverse_diagonal(st_component *self, const st_csr *a, double *inv,
                                              st_error *err)
{
    iter_diagonal(a, inv);
    for (size_t i = 0; i < a->n; i++) {
        if (inv[i] == 0.0)
            return st_component_solver_failure(self, err,
                                               "the system matrix has a zero diagonal entry at "
                                               "row %zu",
                                               i);
        inv[i] = 1.0 / inv[i];
    }
    return ST_OK;
}

/* PreconditionedMatrixFreeSystem's data (preconditioned_matrix_free_system.c),
 * read by PCGLinearSolver for its preconditioner's refresh. */
typedef struct iter_pmfs {
    st_component base;
    char *template_name;
    bool enable_assembly, factorization_invalidation;
    st_array matrix_size;
    unsigned assembling_rate;       /* "assemblingRate" (alias update_step) */
    st_component *preconditioner_system; /* "preconditionerSystem" (ignored) */
} iter_pmfs;

extern const st_class preconditioned_matrix_free_system_class;

/* The PreconditionedMatrixFreeSystem of a PCG: its linearSystem link (an
 * error when it names another kind of component, as in SOFA), else the
 * first one in its node, else none (*out NULL). */
static inline st_status iter_find_pmfs(st_component *self, st_component *link, iter_pmfs **out,
                                       st_error *err)
{
    *out = NULL;
    if (link) {
        if (link->cls != &preconditioned_matrix_free_system_class &&
            strcmp(link->cls->name, preconditioned_matrix_free_system_class.name) != 0)
            return st_component_error(self, "linearSystem", err, ST_ELINK,
                                      "This linear solver is designed to work with a "
                                      "PreconditionedMatrixFreeSystem linear system, but a %s "
                                      "was found",
                                      link->cls->name);
        *out = (iter_pmfs *)link;
        return ST_OK;
    }
    st_component *local[64];
    size_t n = st_node_find_all(self->node, ST_ROLE_ANY, ST_SEARCH_LOCAL, local, 64);
    for (size_t i = 0; i < n && i < 64; i++)
        if (strcmp(local[i]->cls->name, preconditioned_matrix_free_system_class.name) == 0) {
            *out = (iter_pmfs *)local[i];
            break;
        }
    return ST_OK;
}

#endif
