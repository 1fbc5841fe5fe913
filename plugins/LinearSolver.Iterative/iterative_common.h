/* iterative_common.h - the operator product shared by the iterative solvers
 * of LinearSolver.Iterative: q = A p, either matrix-free through the
 * components (SOFA's GraphScattered) or with the assembled, projected
 * matrix. Private to this plugin. */
#ifndef LINEARSOLVER_ITERATIVE_COMMON_H
#define LINEARSOLVER_ITERATIVE_COMMON_H

#include <stdbool.h>
#include <string.h>

#include <settee/settee.h>

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
} iter_op;

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
        st_matrix_mul(op->m, q, p);
        return;
    }
    st_system_add_mbkdx(op->sys, q, p, op->mf, op->bf, op->kf, true);
    st_system_project_response(op->sys, q);
}

static inline void iter_op_free(iter_op *op) { st_matrix_destroy(&op->m); }

#endif
