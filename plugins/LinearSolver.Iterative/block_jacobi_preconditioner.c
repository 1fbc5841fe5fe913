/* block_jacobi_preconditioner.c - BlockJacobiPreconditioner: a linear
 * solver inverting the 3x3 diagonal blocks of the assembled system (SOFA's
 * BlockDiagonalMatrix<3>: the blocks off the diagonal are dropped), x =
 * blockdiag(A)^-1 b. Meant as the preconditioner of PCGLinearSolver. */
#include <math.h>

#include "iterative_common.h"

typedef struct block_jacobi {
    st_component base;
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    /* Runtime. */
    st_system *sys;
    st_matrix *m;
    size_t nb;                     /* blocks */
    double *inv;                   /* 9 per block, row-major, owned */
} block_jacobi;

static const st_field bj_fields[] = {ITER_F_MATRIX_SOLVER(block_jacobi), ST_FIELD_END};

static st_status bj_bind(st_component *self, st_system *sys, st_error *err)
{
    block_jacobi *s = (block_jacobi *)self;
    st_matrix_destroy(&s->m);
    st_free(s->inv);
    s->inv = NULL;
    s->sys = sys;
    if (sys->size % 3 != 0)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the system has %zu scalar degrees of freedom, not a multiple "
                                  "of the 3x3 blocks",
                                  sys->size);
    s->nb = sys->size / 3;
    s->inv = st_calloc(9 * (s->nb ? s->nb : 1), sizeof *s->inv);
    if (!s->inv)
        return st_component_error(self, NULL, err, ST_ENOMEM, "out of memory");
    return st_matrix_create(sys, &s->m, err);
}

/* Inverse of the 3x3 row-major block b into out; false when singular. */
static bool invert3(const double *b, double *out)
{
    const double c00 = b[4] * b[8] - b[5] * b[7], c01 = b[5] * b[6] - b[3] * b[8],
                 c02 = b[3] * b[7] - b[4] * b[6];
    const double det = b[0] * c00 + b[1] * c01 + b[2] * c02;
    if (det == 0.0 || !isfinite(det))
        return false;
    const double id = 1.0 / det;
    out[0] = c00 * id;
    out[1] = (b[2] * b[7] - b[1] * b[8]) * id;
    out[2] = (b[1] * b[5] - b[2] * b[4]) * id;
    out[3] = c01 * id;
    out[4] = (b[0] * b[8] - b[2] * b[6]) * id;
    out[5] = (b[2] * b[3] - b[0] * b[5]) * id;
    out[6] = c02 * id;
    out[7] = (b[1] * b[6] - b[0] * b[7]) * id;
    out[8] = (b[0] * b[4] - b[1] * b[3]) * id;
    return true;
}

static st_status bj_set_system(st_component *self, st_system *sys, double mf, double bf,
                               double kf, st_error *err)
{
    block_jacobi *s = (block_jacobi *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    st_csr a;
    st_matrix_csr(s->m, &a);
    for (size_t bi = 0; bi < s->nb; bi++) {
        double b[9] = {0};
        for (int r = 0; r < 3; r++) {
            const size_t i = 3 * bi + (size_t)r;
            for (int k = a.rowptr[i]; k < a.rowptr[i + 1]; k++) {
                const size_t j = (size_t)a.colind[k];
                if (j >= 3 * bi && j < 3 * bi + 3)
                    b[3 * r + (int)(j - 3 * bi)] = a.values[k];
            }
        }
        if (!invert3(b, s->inv + 9 * bi))
            return st_component_solver_failure(self, err,
                                               "diagonal block %zu of the system matrix is "
                                               "singular",
                                               bi);
    }
    return ST_OK;
}

static st_status bj_solve(st_component *self, st_system *sys, double *x, const double *b,
                          st_error *err)
{
    block_jacobi *s = (block_jacobi *)self;
    for (size_t bi = 0; bi < s->nb; bi++) {
        const double *m = s->inv + 9 * bi, *bb = b + 3 * bi;
        double *xx = x + 3 * bi;
        const double b0 = bb[0], b1 = bb[1], b2 = bb[2];
        xx[0] = m[0] * b0 + m[1] * b1 + m[2] * b2;
        xx[1] = m[3] * b0 + m[4] * b1 + m[5] * b2;
        xx[2] = m[6] * b0 + m[7] * b1 + m[8] * b2;
    }
    return ST_OK;
}

static void bj_cleanup(st_component *self)
{
    block_jacobi *s = (block_jacobi *)self;
    st_matrix_destroy(&s->m);
    st_free(s->inv);
    s->inv = NULL;
}

static const st_linsolver_ops bj_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = bj_bind,
    .set_system = bj_set_system,
    .solve = bj_solve,
};

const st_class block_jacobi_preconditioner_class = {
    .struct_size = sizeof(st_class),
    .name = "BlockJacobiPreconditioner",
    .category = "LinearSolver",
    .description = "Linear solver inverting the 3x3 diagonal blocks of the assembled system "
                   "(block Jacobi preconditioner)",
    .instance_size = sizeof(block_jacobi),
    .fields = bj_fields,
    .cleanup = bj_cleanup,
    .linsolver = &bj_ops,
};
