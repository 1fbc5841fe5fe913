/* direct_common.h - what the direct solvers of LinearSolver.Direct share:
 * the CHOLMOD backend (symbolic analysis once per matrix pattern, numeric
 * factorization every step, solves without allocation) and the parsing of
 * SOFA's `template` values. Private to this plugin. */
#ifndef LINEARSOLVER_DIRECT_COMMON_H
#define LINEARSOLVER_DIRECT_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#include <cholmod.h>

#include <settee/settee.h>

/* SOFA's MatrixLinearSolver data, which every linear solver of this plugin
 * has; S has members parallel_inverse (bool) and linear_system (link).
 * Both are accepted and ignored: the product J M^-1 J^T is only
 * parallelized, and settee assembles the system itself. */
#define DIRECT_F_MATRIX_SOLVER(S)                                                                    \
    ST_IGNORED(S, parallel_inverse, "parallelInverseProduct", ST_T_BOOL, bool, "false",           \
               "Parallelize the computation of the product J*M^{-1}*J^T where M is the matrix "   \
               "of the linear system and J is any matrix with compatible dimensions"),            \
        {"linearSystem", ST_T_LINK,                                                               \
         offsetof(S, linear_system) + ST_FIELD_CHECK_(S, linear_system, st_component *), NULL,    \
         "The linear system to solve", ST_F_IGNORED, NULL, ST_LINK_ANY, 0.0, 0.0}

/* Fill-reducing orderings. */
typedef enum direct_ordering {
    DIRECT_ORDER_NATURAL = 0,
    DIRECT_ORDER_AMD,
    DIRECT_ORDER_METIS,
    DIRECT_ORDER_COLAMD   /* LU only: UMFPACK's unsymmetric strategy */
} direct_ordering;

/* A CHOLMOD factorization of a symmetric matrix given as the scalar CSR of
 * an st_matrix (both triangles stored; the upper one is read). */
typedef struct direct_chol {
    cholmod_common c;
    bool started;
    cholmod_factor *L;
    cholmod_dense *X, *Y, *E;     /* solve workspace, allocated once */
    unsigned long version;        /* pattern_version of the analysed matrix */
    bool analysed;
    direct_ordering ordering;
    bool allow_ldl;               /* fall back to LDL^T when LL^T fails */
    bool ldl;                     /* the fall-back happened (or LDL^T from the start) */
    bool simplicial;              /* LL^T simplicial, never supernodal (EigenSimplicialLLT) */
    unsigned long nsymbolic;      /* symbolic analyses done */
    unsigned long nnumeric;       /* numeric factorizations done */
    size_t n;                     /* size of the factored matrix */
    double *est;                  /* 2n: the condition estimate's vectors, allocated once */
    size_t est_n;
    bool warned_pivots;           /* the LDL^T pivot-spread warning was given */
} direct_chol;

/* Starts CHOLMOD (never prints). */
st_status direct_chol_start(direct_chol *ch, direct_ordering ord, bool allow_ldl,
                            const st_component *self, st_error *err);
/* Frees everything; accepts a chol never started. */
void direct_chol_finish(direct_chol *ch);
/* Factors a (symbolic analysis first when the pattern changed or always is
 * true). Errors name self, the factorization count and CHOLMOD's status. */
st_status direct_chol_factor(direct_chol *ch, const st_csr *a, bool always_analyse,
                             const st_component *self, double time, st_error *err);
/* Checkpoints: whether the LDL^T fall-back happened and the counts; the
 * next factorization analyses the matrix again, in the restored mode. */
st_status direct_chol_checkpoint(direct_chol *ch, st_checkpoint *ck, st_error *err);
/* Hager and Higham's estimate of 1 / cond_1(A) for the factored a (a few
 * solves with the factor): 0 when a solve overflows. */
st_status direct_chol_rcond_estimate(direct_chol *ch, const st_csr *a, const st_component *self,
                                     double *rc, st_error *err);
/* x = A^-1 b over the first n entries. */
st_status direct_chol_solve(direct_chol *ch, double *x, const double *b,
                            const st_component *self, st_error *err);
/* Nonzeros of the factor (L_nnz). */
size_t direct_chol_lnnz(const direct_chol *ch);
/* Routes CHOLMOD's and UMFPACK's allocations (SuiteSparse_config) to the
 * kernel allocator's hooks for libraries (st_lib_malloc...), so that fault
 * injection reaches the factorizations; counted by st_alloc_lib_count. */
void direct_use_kernel_allocator(void);
/* How many SuiteSparse allocations have failed so far: a call during which
 * it changes is out of memory, whatever the library made of it. */
unsigned long direct_lib_failures(void);
/* UMFPACK leaks what its METIS ordering (through CHOLMOD) allocated when an
 * allocation there fails. Between begin and end, the blocks SuiteSparse
 * allocates and does not free are recorded; end(true) frees them: call it
 * after freeing every object the library returned. */
void direct_lib_track_begin(void);
void direct_lib_track_end(bool release);
/* ST_ENOMEM naming self and what was running ("symbolic analysis"). */
st_status direct_lib_oom(const st_component *self, st_error *err, const char *what);
/* CHOLMOD's status as text ("CHOLMOD_NOT_POSDEF"). */
const char *direct_cholmod_status_name(int status);
/* The settee status for a failed CHOLMOD call: ST_ENOMEM when CHOLMOD ran
 * out of memory, ST_ESOLVER otherwise. */
st_status direct_cholmod_code(int status);

/* Checks a `template` value against SOFA's names for compressed sparse row
 * matrices (CompressedRowSparseMatrixd, CompressedRowSparseMatrixMat3x3d and
 * their aliases). */
st_status direct_check_template(st_component *self, const char *value, st_error *err);
/* Chooses the ordering of a direct solver: the ordering component that its
 * `orderingMethod` link names (link, may be NULL), else the first ordering
 * component of its node, else the solver's own option `field`, already
 * parsed into *ord. A link to a component that is not an ordering, an
 * ordering component together with the option set in the scene (field NULL:
 * no such option), and
 * COLAMDOrderingMethod for a symmetric solver (colamd_ok false) are errors. */
st_status direct_resolve_ordering(st_component *self, st_component *link, const char *field,
                                  bool colamd_ok, direct_ordering *ord, st_error *err);
/* Parses SOFA's "permutation" option (None, SuiteSparse, METIS). */
st_status direct_parse_permutation(st_component *self, const char *field, const char *value,
                                   direct_ordering *out, st_error *err);

/* ---- SOFA's Eigen* direct solvers on SuiteSparse (eigen_common.c) ---- */

/* Which factorization an Eigen-named solver runs. */
typedef enum eigen_kind {
    EIGEN_LDLT = 0,  /* EigenSimplicialLDLT: CHOLMOD simplicial LDL^T */
    EIGEN_LLT        /* EigenSimplicialLLT: CHOLMOD simplicial LL^T */
} eigen_kind;

/* The data every Eigen-named solver has: SOFA's EigenDirectSparseSolver is
 * a MatrixLinearSolver with an ordering link and nothing else. */
typedef struct direct_eigen {
    st_component base;
    char *template_name;           /* "template" */
    st_component *ordering_method; /* "orderingMethod" link */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    /* Runtime. */
    eigen_kind kind;
    st_system *sys;
    st_matrix *m;
    direct_chol ch;
    direct_ordering ord;
} direct_eigen;

#define DIRECT_F_EIGEN(S)                                                                          \
    ST_STRING(S, template_name, "template", "CompressedRowSparseMatrixd",                          \
              "Matrix type: CompressedRowSparseMatrixd or CompressedRowSparseMatrixMat3x3d "       \
              "(settee assembles 3x3 blocks; both give the same numbers)"),                        \
        ST_LINK(S, ordering_method, "orderingMethod", ST_LINK_ANY,                                 \
                "Ordering method used by this component (MetisOrderingMethod, "                    \
                "AMDOrderingMethod, NaturalOrderingMethod); when unset, the one in this node, "   \
                "else METIS as SOFA creates"),                                                     \
        DIRECT_F_MATRIX_SOLVER(S)

/* Checks the template and resolves the ordering (METIS when no ordering
 * component is linked or in the node; colamd_ok for LU and QR). */
st_status direct_eigen_init(st_component *self, direct_ordering *ord, const char *template_name,
                            st_component *link, bool colamd_ok, st_error *err);
/* The CHOLMOD-backed Eigen solvers (LDLT, LLT): set kind in init. */
extern const st_linsolver_ops direct_eigen_chol_ops;
void direct_eigen_chol_cleanup(st_component *self);

/* ---- UMFPACK LU shared by SparseLUSolver and EigenSparseLU ---- */

/* The data of an UMFPACK LU solver (sparse_lu_solver.c). */
typedef struct direct_lu {
    st_component base;
    char *template_name;  /* "template" */
    double tolerance;     /* "tolerance": pivot tolerance */
    char *permutation;    /* "permutation": None, SuiteSparse, METIS */
    st_component *ordering_method; /* "orderingMethod" link */
    int l_nnz;            /* "L_nnz" (output) */
    bool verbose;         /* "verbose" (ignored) */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    /* Runtime. */
    st_system *sys;
    st_matrix *m;
    direct_ordering ord;
    double control[20];   /* UMFPACK_CONTROL */
    double info[90];      /* UMFPACK_INFO */
    void *symbolic, *numeric;
    unsigned long version;
    unsigned long nnumeric;
    size_t n;
    const int *rowptr, *colind;
    const double *values;
    int *wi;
    double *w;
} direct_lu;

extern const st_linsolver_ops direct_lu_ops;
void direct_lu_cleanup(st_component *self);

/* ---- A single-precision copy of a CHOLMOD factor (factor_single.c) ---- */

/* For solves that may be approximate (a stale factor preconditioning PCG):
 * the factor in float, half the bytes to read per solve. */
typedef struct direct_sfactor {
    bool valid;
    bool super_;          /* supernodal (else simplicial) */
    bool ll;              /* LL^T (else LDL^T, simplicial only) */
    size_t n, nsuper, nnz;
    int *perm;            /* n: the fill-reducing permutation */
    int *super, *pi, *s;  /* supernodal: CHOLMOD's arrays; simplicial: s = row indices */
    size_t *px;           /* supernodal: value offsets; simplicial: column pointers */
    float *x;             /* the values */
    float *w, *t;         /* solve workspace (n, largest supernode's rows) */
    size_t cap_perm, cap_super, cap_pi, cap_s, cap_px, cap_x, cap_w, cap_t;
} direct_sfactor;

/* Copies L (numeric, LL^T supernodal or simplicial) to single precision;
 * the arrays are reused when large enough. */
st_status direct_sfactor_copy(direct_sfactor *f, const cholmod_factor *L, const st_component *self,
                              st_error *err);
/* x = A^-1 b with the float factor (x may not alias b). */
void direct_sfactor_solve(const direct_sfactor *f, double *x, const double *b);
void direct_sfactor_free(direct_sfactor *f);

/* ---- SparseLDLSolver's data, shared with AsyncSparseLDLSolver ---- */

typedef struct direct_ldl {
    st_component base;
    char *template_name;        /* "template" */
    bool precompute_symbolic;   /* "precomputeSymbolicDecomposition" */
    int l_nnz;                  /* "L_nnz" (output) */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    char *ordering;             /* "ordering" (settee): AMD, METIS or natural */
    int nsymbolic;              /* "symbolicAnalyses" (settee, output) */
    st_component *ordering_method; /* "orderingMethod" link */
    bool enable_assembly;       /* "enableAssembly" (AsyncSparseLDLSolver only) */
    char *solve_precision;      /* "solvePrecision" (settee, SparseLDLSolver only) */
    /* Runtime. */
    st_system *sys;
    st_matrix *m;
    direct_chol ch;
    direct_ordering ord;
    bool single;                /* solvePrecision single: solves with sf */
    direct_sfactor sf;
} direct_ldl;

#define DIRECT_F_LDL(S)                                                                            \
    ST_STRING(S, template_name, "template", "CompressedRowSparseMatrixd",                          \
              "Matrix type: CompressedRowSparseMatrixd or CompressedRowSparseMatrixMat3x3d "       \
              "(settee always assembles 3x3 blocks; both give the same numbers)"),                 \
        ST_BOOL(S, precompute_symbolic, "precomputeSymbolicDecomposition", "true",                 \
                "If true, the symbolic decomposition is computed once per matrix pattern; else "  \
                "at every step"),                                                                  \
        ST_OUTPUT(S, l_nnz, "L_nnz", ST_T_INT, int, "Number of non-zero values in the factor L"), \
        DIRECT_F_MATRIX_SOLVER(S),                                                                 \
        ST_STRING(S, ordering, "ordering", "METIS",                                                \
                  "Fill-reducing ordering (settee): METIS (nested dissection; SOFA's default "     \
                  "when its METIS plugin is present), AMD or natural. Changes only round-off"),    \
        ST_LINK(S, ordering_method, "orderingMethod", ST_LINK_ANY,                                 \
                "Ordering component (MetisOrderingMethod, AMDOrderingMethod, "                     \
                "NaturalOrderingMethod); when unset, the one in this node, else the 'ordering' "  \
                "field"),                                                                          \
        ST_OUTPUT(S, nsymbolic, "symbolicAnalyses", ST_T_INT, int,                                 \
                  "Number of symbolic analyses (ordering, elimination tree, supernodes) done so "  \
                  "far (settee): 1 while the matrix pattern does not change")

st_status direct_ldl_init(st_component *self, st_error *err);
extern const st_linsolver_ops direct_ldl_ops;
void direct_ldl_cleanup(st_component *self);

#endif
