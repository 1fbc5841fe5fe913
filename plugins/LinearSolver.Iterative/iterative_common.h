/* iterative_common.h - the operator product shared by the iterative solvers
 * of LinearSolver.Iterative: q = A p, either matrix-free through the
 * components (SOFA's GraphScattered) or with the assembled, projected
 * matrix. Private to this plugin. */
#ifndef LINEARSOLVER_ITERATIVE_COMMON_H
#define LINEARSOLVER_ITERATIVE_COMMON_H

#include <stdbool.h>
#include <string.h>

#include <settee/settee.h>

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
