/* ssor_preconditioner.c - SSORPreconditioner: a linear solver applying one
 * symmetric successive over-relaxation sweep of the assembled system,
 * z = (D/w + U)^-1 D/w (D/w + L)^-1 r up to SOFA's scaling: first the
 * backward sweep (D/w + U) t = r over the rows' upper entries, then the
 * forward sweep (I + w D^-1 L) z = t over their lower entries, then z *=
 * 2 - w when w != 1, as SOFA's SSORPreconditioner does on a compressed row
 * matrix. Meant as the preconditioner of PCGLinearSolver. */
#include "iterative_common.h"

typedef struct ssor_pre {
    st_component base;
    double omega;                  /* "omega" */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    /* Runtime. */
    st_system *sys;
    st_matrix *m;
    st_csr a;
    double *inv_diag;
} ssor_pre;

static const st_field ssor_fields[] = {
    ST_REAL(ssor_pre, omega, "omega", "1", "Omega coefficient"),
    ITER_F_MATRIX_SOLVER(ssor_pre),
    ST_FIELD_END};

static st_status ssor_bind(st_component *self, st_system *sys, st_error *err)
{
    ssor_pre *s = (ssor_pre *)self;
    st_matrix_destroy(&s->m);
    s->sys = sys;
    ST_TRY(st_matrix_create(sys, &s->m, err));
    return st_system_vec_alloc(sys, &s->inv_diag, err);
}

static st_status ssor_set_system(st_component *self, st_system *sys, double mf, double bf,
                                 double kf, st_error *err)
{
    ssor_pre *s = (ssor_pre *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    st_matrix_csr(s->m, &s->a);
    ST_TRY(iter_inverse_diagonal(self, &s->a, s->inv_diag, err));
    return ST_OK;
}

static st_status ssor_solve(st_component *self, st_system *sys, double *z, const double *r,
                            st_error *err)
{
    ssor_pre *s = (ssor_pre *)self;
    const st_csr *a = &s->a;
    const size_t n = a->n;
    const double w = s->omega;
    /* (D/w + U) t = r, rows from the last */
    for (size_t j = n; j-- > 0;) {
        double temp = 0.0;
        for (int k = a->rowptr[j]; k < a->rowptr[j + 1]; k++)
            if ((size_t)a->colind[k] > j)
                temp += z[a->colind[k]] * a->values[k];
        z[j] = (r[j] - temp) * w * s->inv_diag[j];
    }
    /* (I + w D^-1 L) z = t, rows from the first */
    for (size_t j = 0; j < n; j++) {
        double temp = 0.0;
        for (int k = a->rowptr[j]; k < a->rowptr[j + 1] && (size_t)a->colind[k] < j; k++)
            temp += z[a->colind[k]] * a->values[k];
        z[j] -= temp * w * s->inv_diag[j];
    }
    if (w != 1.0)
        for (size_t j = 0; j < n; j++)
            z[j] *= 2 - w;
    return ST_OK;
}

static void ssor_cleanup(st_component *self) { st_matrix_destroy(&((ssor_pre *)self)->m); }

static const st_linsolver_ops ssor_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = ssor_bind,
    .set_system = ssor_set_system,
    .solve = ssor_solve,
};

const st_class ssor_preconditioner_class = {
    .struct_size = sizeof(st_class),
    .name = "SSORPreconditioner",
    .category = "LinearSolver",
    .description = "Linear solver based on a Symmetric Successive Over-Relaxation sweep of the "
                   "assembled system (preconditioner of PCGLinearSolver)",
    .instance_size = sizeof(ssor_pre),
    .fields = ssor_fields,
    .cleanup = ssor_cleanup,
    .linsolver = &ssor_ops,
};
