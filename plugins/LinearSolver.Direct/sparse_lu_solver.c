/* sparse_lu_solver.c - SparseLUSolver: LU with partial pivoting of the
 * assembled system on UMFPACK, for non-symmetric systems. Symbolic analysis
 * once per matrix pattern, numeric factorization every step, solves with
 * preallocated workspace (umfpack_di_wsolve). */
#include <float.h>
#include <string.h>

#include <umfpack.h>

#include "direct_common.h"

_Static_assert(UMFPACK_CONTROL <= 20 && UMFPACK_INFO <= 90, "direct_lu's UMFPACK arrays");

static const st_field sparse_lu_fields[] = {
    ST_STRING(direct_lu, template_name, "template", "CompressedRowSparseMatrixd",
              "Matrix type: CompressedRowSparseMatrixd or CompressedRowSparseMatrixMat3x3d"),
    ST_REAL(direct_lu, tolerance, "tolerance", "0.001", "tolerance of factorization"),
    ST_STRING(direct_lu, permutation, "permutation", "METIS",
              "Type of fill reducing permutation: None, SuiteSparse (AMD) or METIS (SOFA's older "
              "option; settee's default is METIS, as SOFA's ordering components give)"),
    ST_LINK(direct_lu, ordering_method, "orderingMethod", ST_LINK_ANY,
            "Ordering component (MetisOrderingMethod, AMDOrderingMethod, NaturalOrderingMethod, "
            "COLAMDOrderingMethod); when unset, the one in this node, else 'permutation'"),
    ST_OUTPUT(direct_lu, l_nnz, "L_nnz", ST_T_INT, int,
              "Number of non-zero values in the lower triangular matrix of the factorization"),
    ST_IGNORED(direct_lu, verbose, "verbose", ST_T_BOOL, bool, "false",
               "Dump system state at each iteration"),
    DIRECT_F_MATRIX_SOLVER(direct_lu),
    ST_FIELD_END};

static const char *umf_status_name(int s)
{
    switch (s) {
    case UMFPACK_OK: return "UMFPACK_OK";
    case UMFPACK_WARNING_singular_matrix: return "UMFPACK_WARNING_singular_matrix";
    case UMFPACK_ERROR_out_of_memory: return "UMFPACK_ERROR_out_of_memory";
    case UMFPACK_ERROR_invalid_Numeric_object: return "UMFPACK_ERROR_invalid_Numeric_object";
    case UMFPACK_ERROR_invalid_Symbolic_object: return "UMFPACK_ERROR_invalid_Symbolic_object";
    case UMFPACK_ERROR_argument_missing: return "UMFPACK_ERROR_argument_missing";
    case UMFPACK_ERROR_n_nonpositive: return "UMFPACK_ERROR_n_nonpositive";
    case UMFPACK_ERROR_invalid_matrix: return "UMFPACK_ERROR_invalid_matrix";
    case UMFPACK_ERROR_different_pattern: return "UMFPACK_ERROR_different_pattern";
    case UMFPACK_ERROR_invalid_system: return "UMFPACK_ERROR_invalid_system";
    case UMFPACK_ERROR_invalid_permutation: return "UMFPACK_ERROR_invalid_permutation";
    case UMFPACK_ERROR_internal_error: return "UMFPACK_ERROR_internal_error";
    case UMFPACK_ERROR_file_IO: return "UMFPACK_ERROR_file_IO";
    case UMFPACK_ERROR_ordering_failed: return "UMFPACK_ERROR_ordering_failed";
    default: return "UMFPACK status unknown";
    }
}

/* The settee status for a failed UMFPACK call. */
static st_status umf_code(int s)
{
    return s == UMFPACK_ERROR_out_of_memory ? ST_ENOMEM : ST_ESOLVER;
}

static void lu_free(direct_lu *s)
{
    if (s->numeric)
        umfpack_di_free_numeric(&s->numeric);
    if (s->symbolic)
        umfpack_di_free_symbolic(&s->symbolic);
    st_free(s->wi);
    st_free(s->w);
    s->wi = NULL;
    s->w = NULL;
    st_matrix_destroy(&s->m);
}

static st_status lu_init(st_component *self, st_error *err)
{
    direct_lu *s = (direct_lu *)self;
    ST_TRY(direct_check_template(self, s->template_name, err));
    ST_TRY(direct_parse_permutation(self, "permutation", s->permutation, &s->ord, err));
    return direct_resolve_ordering(self, s->ordering_method, "permutation", true, &s->ord, err);
}

static st_status lu_bind(st_component *self, st_system *sys, st_error *err)
{
    direct_lu *s = (direct_lu *)self;
    lu_free(s);
    s->sys = sys;
    s->version = 0;
    s->nnumeric = 0;
    umfpack_di_defaults(s->control);
    s->control[UMFPACK_PRL] = 0; /* the library never prints */
    s->control[UMFPACK_PIVOT_TOLERANCE] = s->tolerance;
    s->control[UMFPACK_SYM_PIVOT_TOLERANCE] = s->tolerance;
    s->control[UMFPACK_ORDERING] = s->ord == DIRECT_ORDER_NATURAL ? UMFPACK_ORDERING_NONE
                                   : s->ord == DIRECT_ORDER_METIS ? UMFPACK_ORDERING_METIS
                                                                  : UMFPACK_ORDERING_AMD;
    /* COLAMD: UMFPACK's unsymmetric strategy orders the columns of A with
     * COLAMD (UMFPACK_ORDERING_AMD selects it there). */
    if (s->ord == DIRECT_ORDER_COLAMD)
        s->control[UMFPACK_STRATEGY] = UMFPACK_STRATEGY_UNSYMMETRIC;
    ST_TRY(st_matrix_create(sys, &s->m, err));
    size_t n = sys->size;
    s->wi = st_malloc((n ? n : 1) * sizeof *s->wi);
    s->w = st_malloc((n ? 5 * n : 1) * sizeof *s->w);
    if (!s->wi || !s->w)
        return st_component_error(self, NULL, err, ST_ENOMEM, "out of memory");
    return ST_OK;
}

static st_status lu_set_system(st_component *self, st_system *sys, double mf, double bf, double kf,
                               st_error *err)
{
    direct_lu *s = (direct_lu *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    st_csr a;
    st_matrix_csr(s->m, &a);
    s->n = a.n;
    s->rowptr = a.rowptr;
    s->colind = a.colind;
    s->values = a.values;
    if (a.n == 0)
        return ST_OK;
    /* The CSR arrays read as compressed columns describe A^T; solves use
     * UMFPACK_At, which gives A x = b. */
    int n = (int)a.n;
    int st;
    if (!s->symbolic || s->version != a.pattern_version) {
        if (s->symbolic)
            umfpack_di_free_symbolic(&s->symbolic);
        unsigned long failures0 = direct_lib_failures();
        direct_lib_track_begin();
        st = umfpack_di_symbolic(n, n, a.rowptr, a.colind, a.values, &s->symbolic, s->control,
                                 s->info);
        bool oom = direct_lib_failures() != failures0;
        if (oom && s->symbolic) /* e.g. METIS: AMD instead, or ordering_failed */
            umfpack_di_free_symbolic(&s->symbolic);
        direct_lib_track_end(oom);
        if (oom)
            return direct_lib_oom(self, err, "symbolic analysis");
        if (st != UMFPACK_OK)
            return st_component_error(self, NULL, err, umf_code(st),
                                      "symbolic analysis of the %zux%zu system matrix failed (%s)",
                                      a.n, a.n, umf_status_name(st));
        s->version = a.pattern_version;
    }
    if (s->numeric)
        umfpack_di_free_numeric(&s->numeric);
    unsigned long failures0 = direct_lib_failures();
    st = umfpack_di_numeric(a.rowptr, a.colind, a.values, s->symbolic, &s->numeric, s->control,
                            s->info);
    if (direct_lib_failures() != failures0 && st == UMFPACK_OK)
        st = UMFPACK_ERROR_out_of_memory; /* recovered, but not as asked */
    if (st != UMFPACK_OK && st != UMFPACK_WARNING_singular_matrix) {
        if (s->numeric)
            umfpack_di_free_numeric(&s->numeric);
        return st_component_error(self, NULL, err, umf_code(st),
                                  "LU factorization %lu (time %g) of the %zux%zu system matrix "
                                  "failed: %s (%s)",
                                  s->nnumeric + 1, sys->mp.time, a.n, a.n,
                                  st == UMFPACK_ERROR_out_of_memory ? "out of memory"
                                                                    : "UMFPACK failed",
                                  umf_status_name(st));
    }
    unsigned long step = ++s->nnumeric;
    s->l_nnz = (int)s->info[UMFPACK_LNZ];
    /* Singular exactly (a zero pivot: UMFPACK still returns the factors) or
     * to working precision: UMFPACK's estimate min |U_ii| / max |U_ii| below
     * n eps, the usual rank tolerance (a pivot that size is round-off; a
     * free body under a StaticSolver gives about eps). The run stops as for
     * CHOLMOD's factorizations, unless the scene asks to continue (the
     * factors are kept; the state check stops a run made non-finite). */
    double rc = s->info[UMFPACK_RCOND];
    if (st == UMFPACK_WARNING_singular_matrix)
        return st_component_solver_failure(
            self, err,
            "LU factorization %lu of the %zux%zu system matrix is singular (%s): is every "
            "rigid motion fixed?",
            step, a.n, a.n, umf_status_name(st));
    if (!(rc >= (double)a.n * DBL_EPSILON))
        return st_component_solver_failure(
            self, err,
            "LU factorization %lu of the %zux%zu system matrix is singular to working precision "
            "(reciprocal condition estimate %g, below n eps = %g): is every rigid motion fixed?",
            step, a.n, a.n, rc, (double)a.n * DBL_EPSILON);
    return ST_OK;
}

static st_status lu_solve(st_component *self, st_system *sys, double *x, const double *b,
                          st_error *err)
{
    direct_lu *s = (direct_lu *)self;
    if (s->n == 0)
        return ST_OK;
    if (!s->numeric)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "solve called before the matrix was factored");
    int st = umfpack_di_wsolve(UMFPACK_At, s->rowptr, s->colind, s->values, x, b, s->numeric,
                               s->control, s->info, s->wi, s->w);
    /* A singular factorization the scene chose to continue past solves with
     * UMFPACK's warning again; the state check judges the result. */
    if (st != UMFPACK_OK && st != UMFPACK_WARNING_singular_matrix)
        return st_component_error(self, NULL, err, umf_code(st), "umfpack_di_wsolve failed (%s)",
                                  umf_status_name(st));
    return ST_OK;
}

void direct_lu_cleanup(st_component *self) { lu_free((direct_lu *)self); }

const st_linsolver_ops direct_lu_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = lu_bind,
    .set_system = lu_set_system,
    .solve = lu_solve,
};

const st_class sparse_lu_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "SparseLUSolver",
    .category = "LinearSolver",
    .description = "Direct linear solver of the assembled system: UMFPACK LU with partial "
                   "pivoting (non-symmetric systems)",
    .instance_size = sizeof(direct_lu),
    .fields = sparse_lu_fields,
    .init = lu_init,
    .cleanup = direct_lu_cleanup,
    .linsolver = &direct_lu_ops,
};
