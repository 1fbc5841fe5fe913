/* jacobi_preconditioner.c - JacobiPreconditioner: a linear solver that
 * inverts only the diagonal of the assembled system, x = b / diag(A); used
 * as the preconditioner of PCGLinearSolver. */
#include <math.h>
#include <string.h>

#include "iterative_common.h"

typedef struct jacobi_pre {
    st_component base;
    st_system *sys;
    st_matrix *m;
    double *inv_diag;  /* sys->size_all, owned by the system */
    char *template_name;           /* "template": SOFA's only one, DiagonalMatrix */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
} jacobi_pre;

static st_status jacobi_bind(st_component *self, st_system *sys, st_error *err)
{
    jacobi_pre *s = (jacobi_pre *)self;
    if (s->template_name && s->template_name[0] && strcmp(s->template_name, "DiagonalMatrix"))
        return st_component_error(self, "template", err, ST_ESCENE,
                                  "unsupported template '%s': JacobiPreconditioner has one, "
                                  "DiagonalMatrix (the diagonal of the assembled matrix)",
                                  s->template_name);
    st_matrix_destroy(&s->m);
    s->sys = sys;
    ST_TRY(st_matrix_create(sys, &s->m, err));
    return st_system_vec_alloc(sys, &s->inv_diag, err);
}

static st_status jacobi_set_system(st_component *self, st_system *sys, double mf, double bf,
                                   double kf, st_error *err)
{
    jacobi_pre *s = (jacobi_pre *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    st_csr a;
    st_matrix_csr(s->m, &a);
    iter_diagonal(&a, s->inv_diag);
    for (size_t i = 0; i < a.n; i++)
        s->inv_diag[i] = s->inv_diag[i] != 0.0 ? 1.0 / s->inv_diag[i] : 1.0;
    return ST_OK;
}

static st_status jacobi_solve(st_component *self, st_system *sys, double *x, const double *b,
                              st_error *err)
{
    jacobi_pre *s = (jacobi_pre *)self;
    for (size_t i = 0; i < sys->size; i++)
        x[i] = b[i] * s->inv_diag[i];
    return ST_OK;
}

static void jacobi_cleanup(st_component *self) { st_matrix_destroy(&((jacobi_pre *)self)->m); }

static const st_linsolver_ops jacobi_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = jacobi_bind,
    .set_system = jacobi_set_system,
    .solve = jacobi_solve,
};

static const st_field jacobi_fields[] = {
    ST_STRING(jacobi_pre, template_name, "template", "DiagonalMatrix",
              "matrix type: DiagonalMatrix, SOFA's only one for this class (the inverse of the "
              "assembled matrix's diagonal)"),
    ITER_F_MATRIX_SOLVER(jacobi_pre), ST_FIELD_END};

const st_class jacobi_preconditioner_class = {
    .struct_size = sizeof(st_class),
    .name = "JacobiPreconditioner",
    .category = "LinearSolver",
    .description = "Linear solver inverting the diagonal of the assembled system (Jacobi "
                   "preconditioner)",
    .instance_size = sizeof(jacobi_pre),
    .fields = jacobi_fields,
    .cleanup = jacobi_cleanup,
    .linsolver = &jacobi_ops,
};
