/* sparse_ldl_solver.c - SparseLDLSolver: a direct solver of the assembled
 * system on CHOLMOD. Supernodal LL^T (BLAS) while the matrix is positive
 * definite; on the first failure it switches to CHOLMOD's simplicial LDL^T,
 * which also factors symmetric indefinite matrices, as SOFA's LDL^T does.
 * Symbolic analysis once per pattern, numeric factorization every step. */
#include <string.h>

#include "direct_common.h"

static const st_field sparse_ldl_fields[] = {
    DIRECT_F_LDL(direct_ldl),
    ST_STRING(direct_ldl, solve_precision, "solvePrecision", "double",
              "Precision of the solves (settee): double (SOFA), or single: after each "
              "factorization the factor is copied to float and the solves run on the copy (half "
              "the bytes read per solve; the result is A^-1 b to about 1e-7 x cond(A), an "
              "approximation meant for a stale factor preconditioning PCGLinearSolver, never "
              "for a direct solve)"),
    ST_FIELD_END};

st_status direct_ldl_init(st_component *self, st_error *err)
{
    direct_ldl *s = (direct_ldl *)self;
    ST_TRY(direct_check_template(self, s->template_name, err));
    if (!st_component_is_set(self, "template"))
        st_component_info(self, "no template given: template=\"CompressedRowSparseMatrixMat3x3d\" "
                                "suits pure 3D degrees of freedom");
    const char *o = s->ordering ? s->ordering : "METIS";
    if (strcmp(o, "AMD") == 0)
        s->ord = DIRECT_ORDER_AMD;
    else if (strcmp(o, "METIS") == 0)
        s->ord = DIRECT_ORDER_METIS;
    else if (strcmp(o, "natural") == 0 || strcmp(o, "None") == 0)
        s->ord = DIRECT_ORDER_NATURAL;
    else
        return st_component_error(self, "ordering", err, ST_ESCENE,
                                  "unknown ordering '%s': expected METIS, AMD or natural", o);
    const char *p = s->solve_precision ? s->solve_precision : "double";
    if (strcmp(p, "double") == 0 || strcmp(p, "single") == 0)
        s->single = strcmp(p, "single") == 0;
    else
        return st_component_error(self, "solvePrecision", err, ST_ESCENE,
                                  "unknown precision '%s': expected double or single", p);
    return direct_resolve_ordering(self, s->ordering_method, "ordering", false, &s->ord, err);
}

static st_status ldl_bind(st_component *self, st_system *sys, st_error *err)
{
    direct_ldl *s = (direct_ldl *)self;
    direct_chol_finish(&s->ch);
    st_matrix_destroy(&s->m);
    s->sys = sys;
    ST_TRY(st_matrix_create(sys, &s->m, err));
    return direct_chol_start(&s->ch, s->ord, true, self, err);
}

static st_status ldl_set_system(st_component *self, st_system *sys, double mf, double bf, double kf,
                                st_error *err)
{
    direct_ldl *s = (direct_ldl *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    st_csr a;
    st_matrix_csr(s->m, &a);
    if (a.n == 0 && s->ch.nnumeric == 0)
        st_component_warn(self, "Invalid Linear System to solve (null size). Please insure that "
                                "there is enough constraints (not rank deficient).");
    ST_TRY(direct_chol_factor(&s->ch, &a, !s->precompute_symbolic, self, sys->mp.time, err));
    if (s->single && a.n > 0)
        ST_TRY(direct_sfactor_copy(&s->sf, s->ch.L, self, err));
    s->l_nnz = (int)direct_chol_lnnz(&s->ch);
    s->nsymbolic = (int)s->ch.nsymbolic;
    return ST_OK;
}

static st_status ldl_solve(st_component *self, st_system *sys, double *x, const double *b,
                           st_error *err)
{
    direct_ldl *s = (direct_ldl *)self;
    if (s->single && s->sf.valid && s->ch.n > 0) {
        direct_sfactor_solve(&s->sf, x, b);
        return ST_OK;
    }
    return direct_chol_solve(&s->ch, x, b, self, err);
}

void direct_ldl_cleanup(st_component *self)
{
    direct_ldl *s = (direct_ldl *)self;
    direct_chol_finish(&s->ch);
    direct_sfactor_free(&s->sf);
    st_matrix_destroy(&s->m);
}

const st_linsolver_ops direct_ldl_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = ldl_bind,
    .set_system = ldl_set_system,
    .solve = ldl_solve,
};

static st_status sparse_ldl_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    return direct_chol_checkpoint(&((direct_ldl *)self)->ch, ck, err);
}

static const st_checkpoint_ops sparse_ldl_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = sparse_ldl_checkpoint,
};

const st_class sparse_ldl_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "SparseLDLSolver",
    .category = "LinearSolver",
    .description = "Direct linear solver of the assembled system: CHOLMOD supernodal LL^T, "
                   "simplicial LDL^T for indefinite matrices",
    .instance_size = sizeof(direct_ldl),
    .fields = sparse_ldl_fields,
    .init = direct_ldl_init,
    .cleanup = direct_ldl_cleanup,
    .linsolver = &direct_ldl_ops,
    .checkpoint = &sparse_ldl_checkpoint_ops,
};
