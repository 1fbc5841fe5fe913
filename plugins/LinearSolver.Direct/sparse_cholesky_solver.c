/* sparse_cholesky_solver.c - SparseCholeskySolver: LL^T of the assembled
 * system on CHOLMOD (supernodal, BLAS). A matrix that is not positive
 * definite is an error (no LDL^T fall-back). */
#include "direct_common.h"

typedef struct sparse_cholesky {
    st_component base;
    char *template_name;  /* "template" */
    char *permutation;    /* "permutation": None, SuiteSparse, METIS */
    st_component *ordering_method; /* "orderingMethod" link */
    bool verbose;         /* "verbose" (deprecated in SOFA, accepted) */
    int l_nnz;            /* "L_nnz" (settee, output) */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    st_system *sys;
    st_matrix *m;
    direct_chol ch;
    direct_ordering ord;
} sparse_cholesky;

static const st_field sparse_cholesky_fields[] = {
    ST_STRING(sparse_cholesky, template_name, "template", "CompressedRowSparseMatrixd",
              "Matrix type: CompressedRowSparseMatrixd or CompressedRowSparseMatrixMat3x3d"),
    ST_STRING(sparse_cholesky, permutation, "permutation", "METIS",
              "Type of fill reducing permutation: None, SuiteSparse (AMD) or METIS (SOFA's older "
              "option; settee's default is METIS, as SOFA's ordering components give)"),
    ST_LINK(sparse_cholesky, ordering_method, "orderingMethod", ST_LINK_ANY,
            "Ordering component (MetisOrderingMethod, AMDOrderingMethod, NaturalOrderingMethod); "
            "when unset, the one in this node, else 'permutation'"),
    ST_IGNORED(sparse_cholesky, verbose, "verbose", ST_T_BOOL, bool, "false",
               "Dump system state at each iteration"),
    DIRECT_F_MATRIX_SOLVER(sparse_cholesky),
    ST_OUTPUT(sparse_cholesky, l_nnz, "L_nnz", ST_T_INT, int,
              "Number of non-zero values in the factor L (settee, as SparseLDLSolver's)"),
    ST_FIELD_END};

static st_status chol_init(st_component *self, st_error *err)
{
    sparse_cholesky *s = (sparse_cholesky *)self;
    ST_TRY(direct_check_template(self, s->template_name, err));
    ST_TRY(direct_parse_permutation(self, "permutation", s->permutation, &s->ord, err));
    return direct_resolve_ordering(self, s->ordering_method, "permutation", false, &s->ord, err);
}

static st_status chol_bind(st_component *self, st_system *sys, st_error *err)
{
    sparse_cholesky *s = (sparse_cholesky *)self;
    direct_chol_finish(&s->ch);
    st_matrix_destroy(&s->m);
    s->sys = sys;
    ST_TRY(st_matrix_create(sys, &s->m, err));
    return direct_chol_start(&s->ch, s->ord, false, self, err);
}

static st_status chol_set_system(st_component *self, st_system *sys, double mf, double bf,
                                 double kf, st_error *err)
{
    sparse_cholesky *s = (sparse_cholesky *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    st_csr a;
    st_matrix_csr(s->m, &a);
    ST_TRY(direct_chol_factor(&s->ch, &a, false, self, sys->mp.time, err));
    s->l_nnz = (int)direct_chol_lnnz(&s->ch);
    return ST_OK;
}

static st_status chol_solve(st_component *self, st_system *sys, double *x, const double *b,
                            st_error *err)
{
    sparse_cholesky *s = (sparse_cholesky *)self;
    return direct_chol_solve(&s->ch, x, b, self, err);
}

static void chol_cleanup(st_component *self)
{
    sparse_cholesky *s = (sparse_cholesky *)self;
    direct_chol_finish(&s->ch);
    st_matrix_destroy(&s->m);
}

static const st_linsolver_ops chol_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = chol_bind,
    .set_system = chol_set_system,
    .solve = chol_solve,
};

static st_status sparse_cholesky_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    return direct_chol_checkpoint(&((sparse_cholesky *)self)->ch, ck, err);
}

static const st_checkpoint_ops sparse_cholesky_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = sparse_cholesky_checkpoint,
};

const st_class sparse_cholesky_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "SparseCholeskySolver",
    .category = "LinearSolver",
    .description = "Direct linear solver of the assembled system: CHOLMOD supernodal LL^T "
                   "(positive definite matrices only)",
    .instance_size = sizeof(sparse_cholesky),
    .fields = sparse_cholesky_fields,
    .init = chol_init,
    .cleanup = chol_cleanup,
    .linsolver = &chol_ops,
    .checkpoint = &sparse_cholesky_checkpoint_ops,
};
