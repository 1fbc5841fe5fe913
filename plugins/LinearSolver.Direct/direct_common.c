/* direct_common.c - the CHOLMOD backend shared by SparseLDLSolver and
 * SparseCholeskySolver, and the option parsing shared by the direct solvers.
 *
 * The matrix comes from st_matrix_csr: scalar CSR with both triangles and
 * sorted columns. Read as compressed columns it is A^T = A, so it is handed
 * to CHOLMOD without a copy as a symmetric matrix (stype = 1: the upper
 * triangle is used, the lower one ignored). Symbolic analysis (ordering,
 * elimination tree, supernodes) runs once per pattern; numeric
 * factorization runs every step into the same factor object; solves reuse
 * their workspace (cholmod_solve2). */
#include "direct_common.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <SuiteSparse_config.h>

const char *direct_cholmod_status_name(int status)
{
    switch (status) {
    case CHOLMOD_OK: return "CHOLMOD_OK";
    case CHOLMOD_NOT_INSTALLED: return "CHOLMOD_NOT_INSTALLED";
    case CHOLMOD_OUT_OF_MEMORY: return "CHOLMOD_OUT_OF_MEMORY";
    case CHOLMOD_TOO_LARGE: return "CHOLMOD_TOO_LARGE";
    case CHOLMOD_INVALID: return "CHOLMOD_INVALID";
    case CHOLMOD_GPU_PROBLEM: return "CHOLMOD_GPU_PROBLEM";
    case CHOLMOD_NOT_POSDEF: return "CHOLMOD_NOT_POSDEF";
    case CHOLMOD_DSMALL: return "CHOLMOD_DSMALL";
    default: return "CHOLMOD status unknown";
    }
}

/* ---- SuiteSparse's allocations go to the kernel allocator ---- */

/* Allocations of SuiteSparse that failed (CHOLMOD hides some failures). */
static unsigned long lib_failures;

static void *noted(void *p, size_t size)
{
    if (!p && size)
        lib_failures++;
    return p;
}

/* Blocks SuiteSparse allocated, and has not freed, since
 * direct_lib_track_begin (a few dozen per analysis; beyond the table,
 * tracking stops and nothing is released). */
static struct {
    bool on, overflow;
    size_t n;
    void *p[512];
} track;

static void *tracked(void *p, void *old)
{
    if (!track.on)
        return p;
    for (size_t i = 0; old && p && i < track.n; i++)
        if (track.p[i] == old) {
            track.p[i] = p;
            return p;
        }
    if (p && p != old) {
        if (track.n < sizeof track.p / sizeof *track.p)
            track.p[track.n++] = p;
        else
            track.overflow = true;
    }
    return p;
}

static void *ss_malloc(size_t size) { return tracked(noted(st_lib_malloc(size), size), NULL); }
static void *ss_calloc(size_t n, size_t size)
{
    return tracked(noted(st_lib_calloc(n, size), n * size), NULL);
}
static void *ss_realloc(void *p, size_t size)
{
    return tracked(noted(st_lib_realloc(p, size), size), p);
}
static void ss_free(void *p)
{
    for (size_t i = 0; track.on && p && i < track.n; i++)
        if (track.p[i] == p) {
            track.p[i] = track.p[--track.n];
            break;
        }
    st_free(p);
}

void direct_use_kernel_allocator(void)
{
    SuiteSparse_config.malloc_func = ss_malloc;
    SuiteSparse_config.calloc_func = ss_calloc;
    SuiteSparse_config.realloc_func = ss_realloc;
    SuiteSparse_config.free_func = ss_free;
}

void direct_lib_track_begin(void)
{
    track.on = true;
    track.overflow = false;
    track.n = 0;
}

void direct_lib_track_end(bool release)
{
    track.on = false;
    for (size_t i = 0; release && !track.overflow && i < track.n; i++)
        st_free(track.p[i]);
    track.n = 0;
}

unsigned long direct_lib_failures(void) { return lib_failures; }

st_status direct_lib_oom(const st_component *self, st_error *err, const char *what)
{
    return st_component_error(self, NULL, err, ST_ENOMEM,
                              "%s: out of memory in SuiteSparse (an allocation failed; the "
                              "library would have gone on another way)",
                              what);
}

st_status direct_cholmod_code(int status)
{
    return status == CHOLMOD_OUT_OF_MEMORY ? ST_ENOMEM : ST_ESOLVER;
}

/* Applies the ordering and the factorization kind to CHOLMOD's settings. */
static void configure(direct_chol *ch)
{
    cholmod_common *c = &ch->c;
    c->nmethods = 1;
    switch (ch->ordering) {
    case DIRECT_ORDER_NATURAL: c->method[0].ordering = CHOLMOD_NATURAL; break;
    case DIRECT_ORDER_METIS: c->method[0].ordering = CHOLMOD_METIS; break;
    default: c->method[0].ordering = CHOLMOD_AMD; break;
    }
    c->postorder = 1;
    if (ch->ldl) {
        /* Simplicial LDL^T: factors symmetric indefinite matrices too. */
        c->supernodal = CHOLMOD_SIMPLICIAL;
        c->final_ll = 0;
    } else if (ch->simplicial) {
        /* Simplicial LL^T (Eigen's SimplicialLLT). */
        c->supernodal = CHOLMOD_SIMPLICIAL;
        c->final_ll = 1;
    } else {
        /* LL^T, supernodal on BLAS (OpenBLAS) when the fronts are big. */
        c->supernodal = CHOLMOD_AUTO; /* supernodal when dense enough */
        c->final_ll = 1;
    }
}

st_status direct_chol_start(direct_chol *ch, direct_ordering ord, bool allow_ldl,
                            const st_component *self, st_error *err)
{
    memset(ch, 0, sizeof *ch);
    if (!cholmod_start(&ch->c))
        return st_component_error(self, NULL, err, direct_cholmod_code(ch->c.status),
                                  "cholmod_start failed (%s)",
                                  direct_cholmod_status_name(ch->c.status));
    ch->started = true;
    ch->c.print = 0; /* the library never prints */
    ch->c.error_handler = NULL;
    ch->ordering = ord;
    ch->allow_ldl = allow_ldl;
    configure(ch);
    return ST_OK;
}

void direct_chol_finish(direct_chol *ch)
{
    if (!ch->started)
        return;
    if (ch->L)
        cholmod_free_factor(&ch->L, &ch->c);
    if (ch->X)
        cholmod_free_dense(&ch->X, &ch->c);
    if (ch->Y)
        cholmod_free_dense(&ch->Y, &ch->c);
    if (ch->E)
        cholmod_free_dense(&ch->E, &ch->c);
    free(ch->est);
    ch->est = NULL;
    ch->est_n = 0;
    cholmod_finish(&ch->c);
    ch->started = false;
}

/* A CHOLMOD header over the CSR arrays (no copy). */
static void wrap(cholmod_sparse *A, const st_csr *a)
{
    memset(A, 0, sizeof *A);
    A->nrow = a->n;
    A->ncol = a->n;
    A->nzmax = a->nnz;
    A->p = (void *)a->rowptr;
    A->i = (void *)a->colind;
    A->x = (void *)a->values;
    A->stype = 1;
    A->itype = CHOLMOD_INT;
    A->xtype = CHOLMOD_REAL;
    A->dtype = CHOLMOD_DOUBLE;
    A->sorted = 1;
    A->packed = 1;
}

static st_status analyse(direct_chol *ch, cholmod_sparse *A, const st_component *self,
                         st_error *err)
{
    if (ch->L)
        cholmod_free_factor(&ch->L, &ch->c);
    configure(ch);
    unsigned long failures0 = lib_failures;
    ch->L = cholmod_analyze(A, &ch->c);
    if (!ch->L || ch->c.status < CHOLMOD_OK)
        return st_component_error(self, NULL, err, direct_cholmod_code(ch->c.status),
                                  "symbolic analysis of the %zux%zu system matrix failed (%s)",
                                  (size_t)A->nrow, (size_t)A->ncol,
                                  direct_cholmod_status_name(ch->c.status));
    /* CHOLMOD recovers from some failed allocations by changing its course
     * (METIS out of memory: AMD instead, with status OK): the factor would
     * differ from the one the scene asked for. Not silently. */
    if (lib_failures != failures0)
        return direct_lib_oom(self, err, "symbolic analysis");
    ch->nsymbolic++;
    ch->analysed = true;
    return ST_OK;
}

/* Allocates cholmod_solve2's workspace (X: n x 1, Y: n entries in either
 * shape, E: the supernodal fronts) before the first solve: CHOLMOD 3's
 * cholmod_solve2 can crash when it runs out of memory allocating them
 * itself. Large enough, they are reused as they are. */
static st_status solve_workspace(direct_chol *ch, const st_component *self, st_error *err)
{
    size_t n = ch->n, e = ch->L->is_super && ch->L->maxesize ? ch->L->maxesize : 1;
    if (!ch->X)
        ch->X = cholmod_allocate_dense(n, 1, n, CHOLMOD_REAL, &ch->c);
    if (!ch->Y)
        ch->Y = cholmod_allocate_dense(n, 1, n, CHOLMOD_REAL, &ch->c);
    if (ch->E && ch->E->nzmax < e)
        cholmod_free_dense(&ch->E, &ch->c);
    if (!ch->E)
        ch->E = cholmod_allocate_dense(e, 1, e, CHOLMOD_REAL, &ch->c);
    if (!ch->X || !ch->Y || !ch->E)
        return st_component_error(self, NULL, err, ST_ENOMEM,
                                  "out of memory allocating the solve workspace (%s)",
                                  direct_cholmod_status_name(ch->c.status));
    return ST_OK;
}

st_status direct_chol_factor(direct_chol *ch, const st_csr *a, bool always_analyse,
                             const st_component *self, double time, st_error *err)
{
    ch->n = a->n;
    if (a->n == 0)
        return ST_OK;
    cholmod_sparse A;
    wrap(&A, a);
    if (!ch->analysed || ch->version != a->pattern_version || always_analyse) {
        ST_TRY(analyse(ch, &A, self, err));
        ch->version = a->pattern_version;
    }
    unsigned long step = ch->nnumeric + 1;
    unsigned long failures0 = lib_failures;
    int ok = cholmod_factorize(&A, ch->L, &ch->c);
    if (ok && ch->c.status == CHOLMOD_NOT_POSDEF && ch->allow_ldl && !ch->ldl) {
        /* Not positive definite: LDL^T, kept for the following steps. */
        ch->ldl = true;
        ST_TRY(analyse(ch, &A, self, err));
        ok = cholmod_factorize(&A, ch->L, &ch->c);
    }
    if (lib_failures != failures0)
        return direct_lib_oom(self, err, "numeric factorization");
    if (!ok || ch->c.status < CHOLMOD_OK || ch->c.status == CHOLMOD_NOT_POSDEF) {
        const char *what = ch->c.status == CHOLMOD_NOT_POSDEF
                               ? (ch->ldl ? "the matrix is singular (zero pivot in LDL^T)"
                                          : "the matrix is not positive definite")
                           : ch->c.status == CHOLMOD_OUT_OF_MEMORY ? "out of memory"
                                                                    : "CHOLMOD failed";
        return st_component_error(
            self, NULL, err, direct_cholmod_code(ch->c.status),
            "%s factorization %lu (time %g) of the %zux%zu system matrix failed: %s (%s, "
            "column %zu)",
            ch->ldl ? "LDL^T" : "LL^T", step, time, a->n, a->n, what,
            direct_cholmod_status_name(ch->c.status), (size_t)ch->L->minor);
    }
    ch->nnumeric++;
    ST_TRY(solve_workspace(ch, self, err));
    /* A factorization that went through but is singular to working
     * precision (a structure with nothing fixed under a StaticSolver): its
     * solution would be noise of size 1/pivot. For LL^T the spread of the
     * pivots measures the condition; for LDL^T of an indefinite matrix it
     * does not (without pivoting, as SOFA's LDL^T, a small pivot makes the
     * later ones grow): there the condition is estimated from solves. */
    double rc = cholmod_rcond(ch->L, &ch->c);
    if (!(rc >= DBL_EPSILON) && ch->ldl) {
        double est;
        ST_TRY(direct_chol_rcond_estimate(ch, a, self, &est, err));
        if (est >= DBL_EPSILON) {
            if (!ch->warned_pivots)
                st_component_warn(
                    self,
                    "LDL^T factorization %lu of the %zux%zu indefinite system matrix has "
                    "pivots %.3g times apart (CHOLMOD's estimate %g), but the matrix's "
                    "reciprocal condition number is about %.3g: going on, as SOFA's "
                    "SparseLDLSolver does (it stops at an exact zero pivot only); its "
                    "solution carries a relative error of up to about %.1g (shown once)",
                    step, a->n, a->n, 1 / rc, rc, est, DBL_EPSILON / est);
            ch->warned_pivots = true;
            return ST_OK;
        }
        rc = est;
    }
    if (!(rc >= DBL_EPSILON))
        return st_component_solver_failure(
            self, err,
            "%s factorization %lu of the %zux%zu system matrix is singular to working "
            "precision (reciprocal condition estimate %g): is every rigid motion fixed?",
            ch->ldl ? "LDL^T" : "LL^T", step, a->n, a->n, rc);
    return ST_OK;
}

/* y = A^-1 v and its 1-norm in *s (infinity or NaN when the solve overflows). */
static st_status solve_norm1(direct_chol *ch, double *y, const double *v, size_t n,
                             const st_component *self, double *s, st_error *err)
{
    ST_TRY(direct_chol_solve(ch, y, v, self, err));
    *s = 0;
    for (size_t i = 0; i < n; i++)
        *s += fabs(y[i]);
    return ST_OK;
}

/* Hager and Higham's estimate of the 1-norm condition number of the
 * factored matrix (LAPACK's xLACN2 iteration; A symmetric, so A^-T = A^-1),
 * from at most 5 + 1 solves: *rc = 1 / (||A||_1 ||A^-1||_1), 0 when a solve
 * gives infinity or NaN. */
st_status direct_chol_rcond_estimate(direct_chol *ch, const st_csr *a, const st_component *self,
                                     double *rc, st_error *err)
{
    size_t n = a->n;
    *rc = 0;
    if (n == 0) {
        *rc = 1;
        return ST_OK;
    }
    if (ch->est_n < n) {
        free(ch->est);
        ch->est = malloc(2 * n * sizeof *ch->est);
        if (!ch->est) {
            ch->est_n = 0;
            return st_component_error(self, NULL, err, ST_ENOMEM,
                                      "out of memory for the condition estimate (%zu unknowns)",
                                      n);
        }
        ch->est_n = n;
    }
    double anorm = 0;
    for (size_t r = 0; r < n; r++) {
        double sum = 0;
        for (int q = a->rowptr[r]; q < a->rowptr[r + 1]; q++)
            sum += fabs(a->values[q]);
        if (sum > anorm)
            anorm = sum;
    }
    double *v = ch->est, *y = ch->est + n, inorm = 0;
    for (size_t i = 0; i < n; i++)
        v[i] = 1.0 / (double)n;
    size_t jlast = n;
    for (int it = 0; it < 5; it++) {
        double s;
        ST_TRY(solve_norm1(ch, y, v, n, self, &s, err));
        if (!isfinite(s))
            return ST_OK;
        if (it > 0 && s <= inorm)
            break;
        inorm = s;
        for (size_t i = 0; i < n; i++)
            v[i] = y[i] >= 0 ? 1.0 : -1.0;
        ST_TRY(direct_chol_solve(ch, y, v, self, err));
        size_t j = 0;
        for (size_t i = 1; i < n; i++)
            if (fabs(y[i]) > fabs(y[j]))
                j = i;
        if (j == jlast)
            break;
        jlast = j;
        memset(v, 0, n * sizeof *v);
        v[j] = 1;
    }
    /* Higham's alternative vector, against cancellation in the iteration */
    for (size_t i = 0; i < n; i++)
        v[i] = (i % 2 ? -1.0 : 1.0) * (1.0 + (n > 1 ? (double)i / (double)(n - 1) : 0.0));
    double s;
    ST_TRY(solve_norm1(ch, y, v, n, self, &s, err));
    if (!isfinite(s))
        return ST_OK;
    s = 2 * s / (3 * (double)n);
    if (s > inorm)
        inorm = s;
    *rc = anorm > 0 && inorm > 0 ? 1 / (anorm * inorm) : 0;
    return ST_OK;
}

st_status direct_chol_checkpoint(direct_chol *ch, st_checkpoint *ck, st_error *err)
{
    bool ldl = ch->ldl;
    ST_TRY(st_checkpoint_data(ck, &ldl, sizeof ldl, err));
    ST_TRY(st_checkpoint_data(ck, &ch->nnumeric, sizeof ch->nnumeric, err));
    if (st_checkpoint_reading(ck) && ldl != ch->ldl) {
        ch->ldl = ldl;
        ch->analysed = false;
    }
    return ST_OK;
}

st_status direct_chol_solve(direct_chol *ch, double *x, const double *b, const st_component *self,
                            st_error *err)
{
    if (ch->n == 0)
        return ST_OK;
    if (!ch->L || !ch->nnumeric)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "solve called before the matrix was factored");
    cholmod_dense B;
    memset(&B, 0, sizeof B);
    B.nrow = ch->n;
    B.ncol = 1;
    B.nzmax = ch->n;
    B.d = ch->n;
    B.x = (void *)b;
    B.xtype = CHOLMOD_REAL;
    B.dtype = CHOLMOD_DOUBLE;
    unsigned long failures0 = lib_failures;
    int ok = cholmod_solve2(CHOLMOD_A, ch->L, &B, NULL, &ch->X, NULL, &ch->Y, &ch->E, &ch->c);
    if (lib_failures != failures0)
        return direct_lib_oom(self, err, "solve");
    if (!ok)
        return st_component_error(self, NULL, err, direct_cholmod_code(ch->c.status),
                                  "cholmod_solve2 failed (%s)",
                                  direct_cholmod_status_name(ch->c.status));
    memcpy(x, ch->X->x, ch->n * sizeof *x);
    return ST_OK;
}

size_t direct_chol_lnnz(const direct_chol *ch)
{
    if (!ch->L)
        return 0;
    if (ch->L->is_super)
        return (size_t)ch->L->xsize;
    const int *p = ch->L->p;
    return p ? (size_t)p[ch->L->n] : 0;
}

static const char *const template_names[] = {
    "CompressedRowSparseMatrixd", "CompressedRowSparseMatrixMat3x3d", "CompressedRowSparseMatrix",
    "CompressedRowSparseMatrixMat3x3", NULL};

st_status direct_check_template(st_component *self, const char *value, st_error *err)
{
    if (!value || !value[0])
        return ST_OK;
    for (size_t i = 0; template_names[i]; i++)
        if (strcmp(value, template_names[i]) == 0)
            return ST_OK;
    return st_component_error(self, "template", err, ST_ESCENE,
                              "unsupported template '%s': expected CompressedRowSparseMatrixd or "
                              "CompressedRowSparseMatrixMat3x3d",
                              value);
}

/* The ordering an ordering component stands for, by class; false when the
 * component is not one. */
static bool ordering_of(const st_component *c, direct_ordering *out)
{
    static const struct {
        const char *cls;
        direct_ordering ord;
    } known[] = {{"AMDOrderingMethod", DIRECT_ORDER_AMD},
                 {"MetisOrderingMethod", DIRECT_ORDER_METIS},
                 {"NaturalOrderingMethod", DIRECT_ORDER_NATURAL},
                 {"COLAMDOrderingMethod", DIRECT_ORDER_COLAMD}};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strcmp(c->cls->name, known[i].cls) == 0) {
            *out = known[i].ord;
            return true;
        }
    return false;
}

st_status direct_resolve_ordering(st_component *self, st_component *link, const char *field,
                                  bool colamd_ok, direct_ordering *ord, st_error *err)
{
    st_component *method = link;
    direct_ordering found = DIRECT_ORDER_AMD;
    if (method && !ordering_of(method, &found))
        return st_component_error(self, "orderingMethod", err, ST_ELINK,
                                  "'%s' is a %s, not an ordering method: expected "
                                  "AMDOrderingMethod, MetisOrderingMethod or NaturalOrderingMethod",
                                  method->name, method->cls->name);
    if (!method) {
        st_component *local[64];
        size_t n = st_node_find_all(self->node, ST_ROLE_ANY, ST_SEARCH_LOCAL, local, 64);
        for (size_t i = 0; i < n && i < 64 && !method; i++)
            if (ordering_of(local[i], &found))
                method = local[i];
    }
    if (!method)
        return ST_OK; /* the solver's own option decides */
    if (field && st_component_is_set(self, field))
        return st_component_error(self, field, err, ST_ESCENE,
                                  "both '%s' and the ordering component '%s' choose the ordering: "
                                  "keep one",
                                  field, method->name);
    if (found == DIRECT_ORDER_COLAMD && !colamd_ok)
        return st_component_error(self, "orderingMethod", err, ST_ESCENE,
                                  "COLAMDOrderingMethod '%s' orders the columns of an LU "
                                  "factorization; %s factors a symmetric matrix: use "
                                  "MetisOrderingMethod, AMDOrderingMethod or NaturalOrderingMethod",
                                  method->name, self->cls->name);
    *ord = found;
    return ST_OK;
}

st_status direct_parse_permutation(st_component *self, const char *field, const char *value,
                                   direct_ordering *out, st_error *err)
{
    if (!value || !value[0] || strcmp(value, "None") == 0 || strcmp(value, "natural") == 0)
        *out = DIRECT_ORDER_NATURAL;
    else if (strcmp(value, "SuiteSparse") == 0 || strcmp(value, "AMD") == 0)
        *out = DIRECT_ORDER_AMD;
    else if (strcmp(value, "METIS") == 0)
        *out = DIRECT_ORDER_METIS;
    else
        return st_component_error(self, field, err, ST_ESCENE,
                                  "unknown %s '%s': expected None, SuiteSparse (AMD) or METIS",
                                  field, value);
    return ST_OK;
}
