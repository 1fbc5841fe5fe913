/* amg_preconditioner.c - AMGPreconditioner: a smoothed-aggregation algebraic
 * multigrid (Vanek, Mandel and Brezina, 1996) for PCGLinearSolver's
 * `preconditioner` link. settee's own component: SOFA has no multigrid
 * preconditioner in its core.
 *
 * Built from the assembled, projected system matrix at each set_system call
 * (PCG's update_step decides when; update_step 0 keeps the first hierarchy
 * for the whole run, which pays on systems whose matrix changes little):
 *   - level 0 is the matrix in 3x3 point blocks; the near-null space is the
 *     six rigid-body modes, built from the positions (translations only
 *     when a state is not a Vec3 type, or with nullSpace: translations);
 *     degrees of freedom fixed by projective constraints (rows with only
 *     their diagonal) are left out of it;
 *   - each level aggregates the blocks greedily over the strong couplings
 *     (|A_ij|_F^2 >= theta^2 |A_ii|_F |A_jj|_F), orthonormalizes the
 *     near-null space on each aggregate (tentative prolongator, and the
 *     coarse near-null space from its R factors), smooths the prolongator
 *     with one damped block-Jacobi step, P = (I - w D^-1 A) P_t with
 *     w = 4 / (3 rho(D^-1 A)), and forms A_c = P^T A P;
 *   - the coarsest level (at most coarseSize unknowns) is factored densely
 *     (Cholesky).
 * Each application is one V-cycle from a zero guess, smoothed by block
 * Gauss-Seidel (smoothingSteps sweeps before the coarse correction and as
 * many after it, coarseSmoothingSteps on the levels below the finest, where
 * they cost little; see vcycle for their order): a symmetric positive
 * definite operator for an SPD system. The setup works in double; the cycle
 * works in single precision (its smoother's blocks, vectors and sums) and
 * reads the transfers in bfloat16: a preconditioner only has to be a fixed
 * operator close to A^-1, and PCG still converges to the double system.
 * Each level keeps only the blocks below the diagonal (the matrix is
 * symmetric), its diagonal blocks' inverses, and the prolongator with its
 * transpose. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "iterative_common.h"

/* The cycle's kernels are compiled three times on
 * x86-64 (GCC's function multiversioning, chosen once at load by the CPU):
 * for x86-64-v3 (AVX2 and FMA: 8-float vectors in one instruction, fused
 * multiply-adds; about 10% of a converged step on the spring beam), for
 * x86-64-v4 (AVX-512VL: the same vectors, and the two-source shuffles of
 * the packed blocks and of the bfloat16 widening in one instruction) and
 * for the baseline. They round differently, so the preconditioner (not the
 * solution PCG converges to) differs in its last bits between CPUs, as
 * OpenBLAS's kernels already make direct solvers do. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define AMG_HOT                                                                                    \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"),              \
                   optimize("fp-contract=fast")))
#else
#define AMG_HOT
#endif

/* Block sparse rows: nr x nc blocks of br x bc scalars, row-major blocks. */
typedef struct bsr {
    int nr, nc, br, bc;
    int *ptr, *col;
    double *val;  /* setup values (freed once the cycle's copy is made) */
    float *fval;  /* the cycle's values: smoother blocks in single precision */
    uint16_t *hval; /* the cycle's values: transfers in bfloat16 */
    bool sym;     /* fval holds symmetric 3x3 blocks as 6 floats (bsr_lower_single) */
} bsr;

/* Scalars per point in the cycle's vectors: points of 3 take 4 and points
 * of 6 take 8 (the last ones unused), the width of the vectors the cycle
 * loads them with, so that a point's loads and stores never overlap the
 * next point (an overlapping store stalls the load after it). */
static inline int vstride(int b) { return b == 3 ? 4 : 8; }

typedef struct amg_level {
    bsr a;        /* this level's operator (double, for the setup) */
    bsr low;      /* its blocks below the diagonal (single), for the smoother;
                     its col holds each block's point offset in x (col * vstride) */
    bsr p, r;     /* prolongator from the next level, and its transpose */
    float *dinv;  /* inverses of the diagonal blocks, br*br per block row */
    float *dcol;  /* with packed blocks (low.sym): the same inverses as 3 columns
                     of 4 floats (the last 0), for sweep_3s's vector product */
    double omega; /* prolongator smoothing's damping: 4 / (3 rho(D^-1 A)) */
    float *x, *b, *t; /* work vectors (single precision, vstride(br) per point) */
} amg_level;

enum { AMG_MAX_LEVELS = 24 };

typedef struct amg_pre {
    st_component base;
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    double theta;                  /* "strengthThreshold" */
    unsigned coarse_size;          /* "coarseSize" */
    unsigned max_levels;           /* "maxLevels" */
    unsigned sweeps;               /* "smoothingSteps" */
    unsigned coarse_sweeps;        /* "coarseSmoothingSteps" */
    char *null_space;              /* "nullSpace": rigid or translations */
    unsigned nlevels;              /* "nbLevels" (output) */
    double complexity;             /* "operatorComplexity" (output) */
    unsigned coarsest;             /* "coarsestSize" (output) */
    bool packed;                   /* "symmetricBlocks" (output) */
    /* Runtime. */
    st_system *sys;
    st_matrix *m;
    bool rigid;
    amg_level lev[AMG_MAX_LEVELS];
    int nlev;
    double *chol;                  /* coarsest level: dense Cholesky factor */
    double *csol;                  /* its right-hand side and solution */
    unsigned builds;
    int nchol;
} amg_pre;

static const st_field amg_fields[] = {
    ST_REAL_RANGE(amg_pre, theta, "strengthThreshold", "0",
                  "Strength of connection: blocks i and j are aggregated together when "
                  "|A_ij|^2 >= theta^2 |A_ii| |A_jj| (Frobenius norms); 0 takes every coupling",
                  0.0, 1.0),
    ST_FIELD_EX(amg_pre, coarse_size, "coarseSize", ST_T_UINT, unsigned, "500",
                "Largest number of unknowns of the coarsest level, which is factored densely",
                0, NULL, 6.0, 20000.0),
    ST_FIELD_EX(amg_pre, max_levels, "maxLevels", ST_T_UINT, unsigned, "10",
                "Largest number of levels (the finest included)", 0, NULL, 2.0,
                (double)AMG_MAX_LEVELS),
    ST_FIELD_EX(amg_pre, sweeps, "smoothingSteps", ST_T_UINT, unsigned, "1",
                "Block Gauss-Seidel sweeps on the finest level before the coarse correction, "
                "and as many after it (forward and backward alternating, ending forward before "
                "and starting backward after, so that the cycle is symmetric)",
                0, NULL, 1.0, 100.0),
    ST_FIELD_EX(amg_pre, coarse_sweeps, "coarseSmoothingSteps", ST_T_UINT, unsigned, "2",
                "Block Gauss-Seidel sweeps before and after the coarse correction on the levels "
                "below the finest (as smoothingSteps): these levels are an order of magnitude "
                "smaller, so more sweeps there cut iterations cheaply",
                0, NULL, 1.0, 100.0),
    ST_STRING(amg_pre, null_space, "nullSpace", "rigid",
              "Near-null space of the finest level: rigid (the three translations and three "
              "rotations, from the positions; translations when a state is not Vec3) or "
              "translations"),
    ST_OUTPUT(amg_pre, nlevels, "nbLevels", ST_T_UINT, unsigned,
              "Number of levels of the last hierarchy built (settee)"),
    ST_OUTPUT(amg_pre, complexity, "operatorComplexity", ST_T_REAL, double,
              "Stored blocks' scalars of all levels over those of the finest (settee)"),
    ST_OUTPUT(amg_pre, coarsest, "coarsestSize", ST_T_UINT, unsigned,
              "Unknowns of the coarsest level, factored densely (settee)"),
    ST_OUTPUT(amg_pre, packed, "symmetricBlocks", ST_T_BOOL, bool,
              "Whether the finest level's blocks below the diagonal are all symmetric 3x3 blocks "
              "(springs' are), which the smoother then stores in 6 floats instead of 9 (settee)"),
    ITER_F_MATRIX_SOLVER(amg_pre),
    ST_FIELD_END};

/* ---- block sparse rows ------------------------------------------------ */

static void bsr_free(bsr *m)
{
    st_free(m->ptr);
    st_free(m->col);
    st_free(m->val);
    st_free(m->fval);
    st_free(m->hval);
    memset(m, 0, sizeof *m);
}

static bool bsr_alloc(bsr *m, int nr, int nc, int br, int bc, size_t nnzb)
{
    m->nr = nr;
    m->nc = nc;
    m->br = br;
    m->bc = bc;
    m->ptr = st_calloc((size_t)nr + 1, sizeof *m->ptr);
    m->col = st_malloc((nnzb ? nnzb : 1) * sizeof *m->col);
    m->val = st_calloc((nnzb ? nnzb : 1) * (size_t)(br * bc), sizeof *m->val);
    return m->ptr && m->col && m->val;
}

/* bfloat16: the upper half of a float (8 bits of mantissa), rounded to
 * nearest, ties to even. The transfers are stored so: they are read twice
 * per cycle, and the coarse operator is formed from the rounded
 * prolongator (bsr_round_bf16 before the Galerkin product), so that the
 * hierarchy stays exactly Galerkin for its own, barely different, coarse
 * space. */
static inline uint16_t to_bf16(double d)
{
    const float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static inline double from_bf16(uint16_t h)
{
    const uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void bsr_round_bf16(bsr *m)
{
    const size_t n = (size_t)m->ptr[m->nr] * (size_t)(m->br * m->bc);
    for (size_t k = 0; k < n; k++)
        m->val[k] = from_bf16(to_bf16(m->val[k]));
}

/* Replaces the double values by the bfloat16 copy the cycle reads, each
 * block stored column by column (its bc columns of br scalars) when
 * by_columns: the layout prolong_3x3 and prolong_6x6 read (prolong_3x6p
 * reads P by rows). */
static bool bsr_make_bf16(bsr *m, bool by_columns)
{
    const size_t nb = (size_t)m->ptr[m->nr];
    const int br = m->br, bc = m->bc;
    m->hval = st_calloc(nb * (size_t)(br * bc) + 16, sizeof *m->hval); /* padding: wide loads */
    if (!m->hval)
        return false;
    for (size_t q = 0; q < nb; q++)
        for (int r = 0; r < br; r++)
            for (int c = 0; c < bc; c++)
                m->hval[q * (size_t)(br * bc) + (size_t)(by_columns ? c * br + r : r * bc + c)] =
                    to_bf16(m->val[q * (size_t)(br * bc) + (size_t)(r * bc + c)]);
    st_free(m->val);
    m->val = NULL;
    return true;
}

/* Whether every block of a strictly below the diagonal is 3x3 and
 * symmetric once rounded to single precision (springs' couplings are:
 * k (u u^T) + c I): the smoother then stores each in 6 floats. */
static bool bsr_lower_symmetric(const bsr *a)
{
    if (a->br != 3 || a->bc != 3)
        return false;
    for (int i = 0; i < a->nr; i++)
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++) {
            if (a->col[k] >= i)
                continue;
            const double *v = a->val + (size_t)k * 9;
            if ((float)v[1] != (float)v[3] || (float)v[2] != (float)v[6] ||
                (float)v[5] != (float)v[7])
                return false;
        }
    return true;
}

/* low = the blocks of a strictly below the diagonal, single precision
 * (the smoother's operator: a is symmetric, so these hold all of it).
 * Symmetric 3x3 blocks [a b c; b d e; c e f] (bsr_lower_symmetric) are
 * stored as the 6 floats a b c e f d: rows 0 and 2 are then 3 floats in
 * a row (at 0 and at 2), row 1 one shuffle of the two (sweep_3s); a
 * third fewer bytes for the sweeps to read. */
static bool bsr_lower_single(const bsr *a, bsr *low)
{
    const int bs = a->br * a->bc;
    size_t nnz = 0;
    for (int i = 0; i < a->nr; i++)
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++)
            nnz += a->col[k] < i;
    low->nr = a->nr;
    low->nc = a->nc;
    low->br = a->br;
    low->bc = a->bc;
    low->sym = bsr_lower_symmetric(a);
    const int stored = low->sym ? 6 : bs;
    low->ptr = st_malloc(((size_t)a->nr + 1) * sizeof *low->ptr);
    low->col = st_malloc((nnz ? nnz : 1) * sizeof *low->col);
    /* Padding: the cycle loads rows 4 or 8 floats wide. */
    low->fval = st_calloc(nnz * (size_t)stored + 8, sizeof *low->fval);
    if (!low->ptr || !low->col || !low->fval)
        return false;
    static const int sym_order[6] = {0, 1, 2, 5, 8, 4}; /* a b c e f d */
    size_t pos = 0;
    for (int i = 0; i < a->nr; i++) {
        low->ptr[i] = (int)pos;
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++)
            if (a->col[k] < i) {
                low->col[pos] = a->col[k] * vstride(a->bc); /* the point's offset in x */
                const double *v = a->val + (size_t)k * (size_t)bs;
                float *f = low->fval + pos * (size_t)stored;
                for (int e = 0; e < stored; e++)
                    f[e] = (float)v[low->sym ? sym_order[e] : e];
                pos++;
            }
    }
    low->ptr[a->nr] = (int)pos;
    return true;
}

/* c += a b for one block pair (a: br x k, b: k x bc); the shapes of the
 * setup's products are unrolled. */
#define BLOCK_MULADD(BR, K, BC)                                                                    \
    static void muladd_##BR##K##BC(double *restrict c, const double *restrict a,                  \
                                   const double *restrict b)                                      \
    {                                                                                              \
        for (int r = 0; r < BR; r++)                                                               \
            for (int q = 0; q < K; q++)                                                            \
                for (int s = 0; s < BC; s++)                                                       \
                    c[r * BC + s] += a[r * K + q] * b[q * BC + s];                                 \
    }
BLOCK_MULADD(3, 3, 6)
BLOCK_MULADD(6, 3, 6)
BLOCK_MULADD(6, 6, 6)
#undef BLOCK_MULADD

static inline void block_muladd(double *restrict c, const double *restrict a,
                                const double *restrict b, int br, int k, int bc)
{
    if (br == 3 && k == 3 && bc == 6)
        muladd_336(c, a, b);
    else if (br == 6 && k == 3 && bc == 6)
        muladd_636(c, a, b);
    else if (br == 6 && k == 6 && bc == 6)
        muladd_666(c, a, b);
    else
        for (int r = 0; r < br; r++)
            for (int q = 0; q < k; q++)
                for (int s = 0; s < bc; s++)
                    c[r * bc + s] += a[r * k + q] * b[q * bc + s];
}

/* c = a b (Gustavson's row-by-row product; columns in first-touch order). */
/* c = a b; with upper (a square result), only the blocks on and above
 * the diagonal (the coarse operator is symmetric: bsr_from_upper). */
static bool bsr_mul(const bsr *a, const bsr *b, bsr *c, bool upper)
{
    const int br = a->br, k = a->bc, bc = b->bc, bs = br * bc;
    int *mark = st_malloc((size_t)(b->nc ? b->nc : 1) * sizeof *mark);
    if (!mark)
        return false;
    for (int j = 0; j < b->nc; j++)
        mark[j] = -1;
    size_t nnz = 0;
    for (int i = 0; i < a->nr; i++)
        for (int ka = a->ptr[i]; ka < a->ptr[i + 1]; ka++) {
            const int j = a->col[ka];
            for (int kb = b->ptr[j]; kb < b->ptr[j + 1]; kb++)
                if (mark[b->col[kb]] != i && (!upper || b->col[kb] >= i)) {
                    mark[b->col[kb]] = i;
                    nnz++;
                }
        }
    if (!bsr_alloc(c, a->nr, b->nc, br, bc, nnz)) {
        st_free(mark);
        return false;
    }
    for (int j = 0; j < b->nc; j++)
        mark[j] = -1;
    size_t pos = 0;
    for (int i = 0; i < a->nr; i++) {
        const size_t row0 = pos;
        c->ptr[i] = (int)pos;
        for (int ka = a->ptr[i]; ka < a->ptr[i + 1]; ka++) {
            const int j = a->col[ka];
            const double *ab = a->val + (size_t)ka * (size_t)(br * k);
            for (int kb = b->ptr[j]; kb < b->ptr[j + 1]; kb++) {
                const int jj = b->col[kb];
                if (upper && jj < i)
                    continue;
                if (mark[jj] < (int)row0) {
                    mark[jj] = (int)pos;
                    c->col[pos++] = jj;
                }
                double *cb = c->val + (size_t)mark[jj] * (size_t)bs;
                const double *bb = b->val + (size_t)kb * (size_t)(k * bc);
                block_muladd(cb, ab, bb, br, k, bc);
            }
        }
    }
    c->ptr[a->nr] = (int)pos;
    st_free(mark);
    return true;
}

/* full = the symmetric matrix whose blocks on and above the diagonal are
 * those of u (square blocks): each row gets the mirrored blocks first. */
static bool bsr_from_upper(const bsr *u, bsr *full)
{
    const int n = u->nr, b = u->br, bs = b * b;
    size_t nnz = 0;
    int *count = st_calloc((size_t)n + 1, sizeof *count);
    if (!count)
        return false;
    for (int i = 0; i < n; i++)
        for (int k = u->ptr[i]; k < u->ptr[i + 1]; k++) {
            count[i]++;
            if (u->col[k] != i)
                count[u->col[k]]++;
        }
    for (int i = 0; i < n; i++)
        nnz += (size_t)count[i];
    if (!bsr_alloc(full, n, n, b, b, nnz)) {
        st_free(count);
        return false;
    }
    for (int i = 0; i < n; i++)
        full->ptr[i + 1] = full->ptr[i] + count[i];
    for (int i = 0; i < n; i++)
        count[i] = full->ptr[i]; /* next free slot of row i */
    for (int i = 0; i < n; i++)
        for (int k = u->ptr[i]; k < u->ptr[i + 1]; k++) {
            const int j = u->col[k];
            const double *v = u->val + (size_t)k * (size_t)bs;
            int dst = count[i]++;
            full->col[dst] = j;
            memcpy(full->val + (size_t)dst * (size_t)bs, v, (size_t)bs * sizeof *v);
            if (j == i)
                continue;
            dst = count[j]++;
            full->col[dst] = i;
            double *t = full->val + (size_t)dst * (size_t)bs;
            for (int r = 0; r < b; r++)
                for (int c = 0; c < b; c++)
                    t[c * b + r] = v[r * b + c];
        }
    st_free(count);
    return true;
}

/* t = a^T (blocks transposed). */
static bool bsr_transpose(const bsr *a, bsr *t)
{
    const size_t nnz = (size_t)a->ptr[a->nr];
    const int br = a->br, bc = a->bc;
    if (!bsr_alloc(t, a->nc, a->nr, bc, br, nnz))
        return false;
    for (size_t k = 0; k < nnz; k++)
        t->ptr[a->col[k] + 1]++;
    for (int j = 0; j < a->nc; j++)
        t->ptr[j + 1] += t->ptr[j];
    int *next = st_malloc((size_t)(a->nc ? a->nc : 1) * sizeof *next);
    if (!next)
        return false;
    memcpy(next, t->ptr, (size_t)a->nc * sizeof *next);
    for (int i = 0; i < a->nr; i++)
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++) {
            const int dst = next[a->col[k]]++;
            t->col[dst] = i;
            const double *s = a->val + (size_t)k * (size_t)(br * bc);
            double *d = t->val + (size_t)dst * (size_t)(br * bc);
            for (int r = 0; r < br; r++)
                for (int c = 0; c < bc; c++)
                    d[c * br + r] = s[r * bc + c];
        }
    st_free(next);
    return true;
}

/* y = a x (double values: the setup's products). */
static void bsr_mv_double(const bsr *a, double *y, const double *x)
{
    const int br = a->br, bc = a->bc;
    if (br == 3 && bc == 3) {
        for (int i = 0; i < a->nr; i++) {
            double y0 = 0.0, y1 = 0.0, y2 = 0.0;
            for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++) {
                const double *restrict v = a->val + 9 * (size_t)k, *restrict xx = x + 3 * (size_t)a->col[k];
                y0 += v[0] * xx[0] + v[1] * xx[1] + v[2] * xx[2];
                y1 += v[3] * xx[0] + v[4] * xx[1] + v[5] * xx[2];
                y2 += v[6] * xx[0] + v[7] * xx[1] + v[8] * xx[2];
            }
            y[3 * (size_t)i] = y0;
            y[3 * (size_t)i + 1] = y1;
            y[3 * (size_t)i + 2] = y2;
        }
        return;
    }
    for (int i = 0; i < a->nr; i++) {
        double acc[6] = {0};
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++) {
            const double *v = a->val + (size_t)k * (size_t)(br * bc), *xx = x + (size_t)a->col[k] * (size_t)bc;
            for (int r = 0; r < br; r++)
                for (int c = 0; c < bc; c++)
                    acc[r] += v[r * bc + c] * xx[c];
        }
        for (int r = 0; r < br; r++)
            y[(size_t)i * (size_t)br + (size_t)r] = acc[r];
    }
}

/* The diagonal block of row i (NULL when not stored). */
static const double *bsr_diag(const bsr *a, int i)
{
    for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++)
        if (a->col[k] == i)
            return a->val + (size_t)k * (size_t)(a->br * a->bc);
    return NULL;
}

static double frob(const double *v, int n)
{
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += v[k] * v[k];
    return sqrt(s);
}

/* ---- small dense algebra ----------------------------------------------- */

/* LAPACK (OpenBLAS): the coarsest level's dense Cholesky. */
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info);

/* In-place Cholesky of the n x n SPD matrix a (symmetric: row- and
 * column-major alike); false when it is not positive definite. */
static bool dense_cholesky(double *a, int n)
{
    int info = 0;
    dpotrf_("L", &n, a, &n, &info);
    return info == 0;
}

static void dense_cholesky_solve(const double *l, int n, double *x)
{
    int info = 0, one = 1;
    dpotrs_("L", &n, &one, l, &n, x, &n, &info);
}

/* Inverse of an SPD-ish b x b block by Gauss-Jordan with partial pivoting;
 * false when singular. */
static bool invert_block(const double *a, double *inv, int b)
{
    double m[6][12];
    for (int r = 0; r < b; r++)
        for (int c = 0; c < 2 * b; c++)
            m[r][c] = c < b ? a[r * b + c] : (c - b == r ? 1.0 : 0.0);
    for (int c = 0; c < b; c++) {
        int p = c;
        for (int r = c + 1; r < b; r++)
            if (fabs(m[r][c]) > fabs(m[p][c]))
                p = r;
        if (m[p][c] == 0.0 || !isfinite(m[p][c]))
            return false;
        if (p != c)
            for (int k = 0; k < 2 * b; k++) {
                const double t = m[p][k];
                m[p][k] = m[c][k];
                m[c][k] = t;
            }
        const double f = 1.0 / m[c][c];
        for (int k = 0; k < 2 * b; k++)
            m[c][k] *= f;
        for (int r = 0; r < b; r++)
            if (r != c && m[r][c] != 0.0) {
                const double g = m[r][c];
                for (int k = 0; k < 2 * b; k++)
                    m[r][k] -= g * m[c][k];
            }
    }
    for (int r = 0; r < b; r++)
        for (int c = 0; c < b; c++)
            inv[r * b + c] = m[r][b + c];
    return true;
}

/* ---- setup -------------------------------------------------------------- */


static void level_free(amg_level *l)
{
    bsr_free(&l->a);
    bsr_free(&l->low);
    bsr_free(&l->p);
    bsr_free(&l->r);
    st_free(l->dinv);
    st_free(l->dcol);
    st_free(l->x);
    st_free(l->b);
    st_free(l->t);
    memset(l, 0, sizeof *l);
}

static void amg_free(amg_pre *s)
{
    for (int i = 0; i < AMG_MAX_LEVELS; i++)
        level_free(&s->lev[i]);
    st_free(s->chol);
    st_free(s->csol);
    s->chol = s->csol = NULL;
    s->nlev = 0;
}

/* The scalar CSR matrix in 3x3 blocks (the union of the rows' block
 * columns). */
static bool csr_to_bsr(const st_csr *a, bsr *m)
{
    enum { br = 3 }; /* a constant: the divisions below are multiplications */
    const int nb = (int)(a->n / (size_t)br);
    int *mark = st_malloc((size_t)(nb ? nb : 1) * sizeof *mark);
    if (!mark)
        return false;
    for (int j = 0; j < nb; j++)
        mark[j] = -1;
    size_t nnz = 0;
    for (int i = 0; i < nb; i++)
        for (int r = 0; r < br; r++)
            for (int k = a->rowptr[i * br + r]; k < a->rowptr[i * br + r + 1]; k++) {
                const int j = a->colind[k] / br;
                if (mark[j] != i) {
                    mark[j] = i;
                    nnz++;
                }
            }
    if (!bsr_alloc(m, nb, nb, br, br, nnz)) {
        st_free(mark);
        return false;
    }
    for (int j = 0; j < nb; j++)
        mark[j] = -1;
    size_t pos = 0;
    for (int i = 0; i < nb; i++) {
        const int row0 = (int)pos;
        m->ptr[i] = row0;
        for (int r = 0; r < br; r++)
            for (int k = a->rowptr[i * br + r]; k < a->rowptr[i * br + r + 1]; k++) {
                const int c = a->colind[k], j = c / br;
                if (mark[j] < row0) {
                    mark[j] = (int)pos;
                    m->col[pos++] = j;
                }
                m->val[(size_t)mark[j] * (size_t)(br * br) + (size_t)(r * br + c % br)] =
                    a->values[k];
            }
    }
    m->ptr[nb] = (int)pos;
    st_free(mark);
    return true;
}

/* Block-diagonal inverses (double, for the setup) of a level; an error
 * names a singular block. */
static st_status level_dinv(amg_pre *s, const bsr *a, double *dinv, int level, st_error *err)
{
    const int b = a->br;
    for (int i = 0; i < a->nr; i++) {
        const double *d = bsr_diag(a, i);
        if (!d || !invert_block(d, dinv + (size_t)i * (size_t)(b * b), b))
            return st_component_solver_failure(&s->base, err,
                                               "diagonal block %d of level %d of the multigrid "
                                               "is singular",
                                               i, level);
    }
    return ST_OK;
}

/* rho(D^-1 A): 10 power iterations from a fixed start, times 1.1. The
 * power iteration approaches rho from below, slowly where the top of the
 * spectrum is clustered (on the spring beam: 1.79 after 10, 1.83 after 20,
 * 1.92 after 60); the usual safety factor brings it near the top. The
 * smoothing weight w = 4 / (3 rho) is not critical (w from 0.67 to 0.73
 * give the same iterations there), but an estimate from below makes it too
 * large. */
static double spectral_radius(const bsr *a, const double *dinv, double *u, double *w)
{
    const int b = a->br;
    const size_t n = (size_t)a->nr * (size_t)b;
    for (size_t k = 0; k < n; k++)
        u[k] = 1.0 + 0.5 * sin(1.3 * (double)k + 0.7);
    double rho = 0.0;
    for (int it = 0; it < 10; it++) {
        double nu = 0.0;
        for (size_t k = 0; k < n; k++)
            nu += u[k] * u[k];
        nu = sqrt(nu);
        if (nu == 0.0)
            return 0.0;
        for (size_t k = 0; k < n; k++)
            u[k] /= nu;
        bsr_mv_double(a, w, u);
        double nw = 0.0;
        for (int i = 0; i < a->nr; i++) {
            const double *di = dinv + (size_t)i * (size_t)(b * b);
            double t[6];
            for (int r = 0; r < b; r++) {
                t[r] = 0.0;
                for (int c = 0; c < b; c++)
                    t[r] += di[r * b + c] * w[(size_t)i * b + c];
            }
            for (int r = 0; r < b; r++) {
                u[(size_t)i * b + r] = t[r];
                nw += t[r] * t[r];
            }
        }
        rho = sqrt(nw);
    }
    return 1.1 * rho;
}

/* Greedy aggregation over strong couplings; agg[i] = aggregate of block i,
 * -1 for blocks left out (no strong coupling: their rows are solved by the
 * smoother). Returns the number of aggregates, -1 when out of memory. */
static int aggregate(const bsr *a, double theta, int *agg)
{
    const int n = a->nr, bs = a->br * a->bc;
    double *dn = st_malloc((size_t)(n ? n : 1) * sizeof *dn);
    if (!dn)
        return -1;
    for (int i = 0; i < n; i++) {
        const double *d = bsr_diag(a, i);
        dn[i] = d ? frob(d, bs) : 0.0;
    }
    /* strong[k]: the block k couples its row strongly to another block. */
    const size_t nnz = (size_t)a->ptr[n];
    unsigned char *strong = st_malloc(nnz ? nnz : 1);
    if (!strong) {
        st_free(dn);
        return -1;
    }
    for (int i = 0; i < n; i++)
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++) {
            const double f = a->col[k] == i ? 0.0 : frob(a->val + (size_t)k * (size_t)bs, bs);
            strong[k] = f > 0.0 && f * f >= theta * theta * dn[i] * dn[a->col[k]];
        }
#define STRONG(i, k) strong[k]
    for (int i = 0; i < n; i++)
        agg[i] = -2; /* not yet aggregated */
    int na = 0;
    /* Blocks without a strong coupling stay out. */
    for (int i = 0; i < n; i++) {
        bool any = false;
        for (int k = a->ptr[i]; k < a->ptr[i + 1] && !any; k++)
            any = STRONG(i, k);
        if (!any)
            agg[i] = -1;
    }
    /* Pass 1: a block whose strong neighbours are all free starts an
     * aggregate with them. */
    for (int i = 0; i < n; i++) {
        if (agg[i] != -2)
            continue;
        bool free_nb = true;
        for (int k = a->ptr[i]; k < a->ptr[i + 1] && free_nb; k++)
            if (STRONG(i, k) && agg[a->col[k]] >= 0)
                free_nb = false;
        if (!free_nb)
            continue;
        agg[i] = na;
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++)
            if (STRONG(i, k) && agg[a->col[k]] == -2)
                agg[a->col[k]] = na;
        na++;
    }
    /* Pass 2: the rest join the aggregate of their strongest aggregated
     * neighbour (marked with -3 - aggregate so that they do not chain). */
    for (int i = 0; i < n; i++) {
        if (agg[i] != -2)
            continue;
        double best = -1.0;
        int ba = -2;
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++)
            if (STRONG(i, k) && agg[a->col[k]] >= 0) {
                const double f = frob(a->val + (size_t)k * (size_t)bs, bs);
                if (f > best) {
                    best = f;
                    ba = agg[a->col[k]];
                }
            }
        if (ba >= 0)
            agg[i] = -3 - ba;
    }
    for (int i = 0; i < n; i++)
        if (agg[i] <= -3)
            agg[i] = -3 - agg[i];
    /* Pass 3: what is left forms aggregates with its free neighbours. */
    for (int i = 0; i < n; i++) {
        if (agg[i] != -2)
            continue;
        agg[i] = na;
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++)
            if (STRONG(i, k) && agg[a->col[k]] == -2)
                agg[a->col[k]] = na;
        na++;
    }
#undef STRONG
    st_free(strong);
    st_free(dn);
    return na;
}

/* Tentative prolongator: for each aggregate, the rows of the near-null
 * space b (n blocks of br x k) orthonormalized (modified Gram-Schmidt,
 * twice; a column that is dependent on the earlier ones is dropped: zero
 * column, zero row of R). pt gets n x na blocks of br x k; bc the coarse
 * near-null space (na blocks of k x k, the R factors). */
static bool tentative(const bsr *a, const int *agg, int na, const double *bns, int k, bsr *pt,
                      double *bc)
{
    const int n = a->nr, br = a->br;
    size_t nnz = 0;
    for (int i = 0; i < n; i++)
        nnz += agg[i] >= 0;
    if (!bsr_alloc(pt, n, na, br, k, nnz))
        return false;
    /* Members of each aggregate, in block order. */
    int *start = st_calloc((size_t)na + 1, sizeof *start);
    int *memb = st_malloc((nnz ? nnz : 1) * sizeof *memb);
    int *slot = st_malloc((size_t)(n ? n : 1) * sizeof *slot);
    if (!start || !memb || !slot) {
        st_free(start);
        st_free(memb);
        st_free(slot);
        return false;
    }
    for (int i = 0; i < n; i++)
        if (agg[i] >= 0)
            start[agg[i] + 1]++;
    for (int g = 0; g < na; g++)
        start[g + 1] += start[g];
    {
        int *fill = st_malloc((size_t)(na ? na : 1) * sizeof *fill);
        if (!fill) {
            st_free(start);
            st_free(memb);
            st_free(slot);
            return false;
        }
        memcpy(fill, start, (size_t)na * sizeof *fill);
        for (int i = 0; i < n; i++)
            if (agg[i] >= 0)
                memb[fill[agg[i]]++] = i;
        st_free(fill);
    }
    /* Rows of P_t in block order: one block per aggregated row. */
    size_t pos = 0;
    for (int i = 0; i < n; i++) {
        pt->ptr[i] = (int)pos;
        if (agg[i] >= 0) {
            pt->col[pos] = agg[i];
            slot[i] = (int)pos++;
        } else
            slot[i] = -1;
    }
    pt->ptr[n] = (int)pos;
    memset(bc, 0, (size_t)na * (size_t)(k * k) * sizeof *bc);
    for (int g = 0; g < na; g++) {
        const int m0 = start[g], nm = start[g + 1] - start[g];
        /* Column j of the aggregate's block: entries (member, row r). */
        for (int j = 0; j < k; j++) {
            double *rg = bc + (size_t)g * (size_t)(k * k); /* R, k x k row-major */
#define QV(mi, r, c) pt->val[(size_t)slot[memb[m0 + (mi)]] * (size_t)(br * k) + (size_t)((r) * k + (c))]
            double n0 = 0.0;
            for (int mi = 0; mi < nm; mi++)
                for (int r = 0; r < br; r++) {
                    const double v = bns[(size_t)memb[m0 + mi] * (size_t)(br * k) + (size_t)(r * k + j)];
                    QV(mi, r, j) = v;
                    n0 += v * v;
                }
            n0 = sqrt(n0);
            for (int pass = 0; pass < 2; pass++)
                for (int q = 0; q < j; q++) {
                    double d = 0.0;
                    for (int mi = 0; mi < nm; mi++)
                        for (int r = 0; r < br; r++)
                            d += QV(mi, r, q) * QV(mi, r, j);
                    rg[q * k + j] += d;
                    for (int mi = 0; mi < nm; mi++)
                        for (int r = 0; r < br; r++)
                            QV(mi, r, j) -= d * QV(mi, r, q);
                }
            double nj = 0.0;
            for (int mi = 0; mi < nm; mi++)
                for (int r = 0; r < br; r++)
                    nj += QV(mi, r, j) * QV(mi, r, j);
            nj = sqrt(nj);
            if (n0 == 0.0 || nj <= 1e-10 * n0) {
                for (int mi = 0; mi < nm; mi++)
                    for (int r = 0; r < br; r++)
                        QV(mi, r, j) = 0.0;
                continue;
            }
            rg[j * k + j] = nj;
            for (int mi = 0; mi < nm; mi++)
                for (int r = 0; r < br; r++)
                    QV(mi, r, j) /= nj;
#undef QV
        }
    }
    st_free(start);
    st_free(memb);
    st_free(slot);
    return true;
}

/* Scalars stored in a level's blocks. */
static double bsr_scalars(const bsr *m) { return (double)m->ptr[m->nr] * m->br * m->bc; }

static st_status oom(amg_pre *s, st_error *err)
{
    return st_component_error(&s->base, NULL, err, ST_ENOMEM, "out of memory building the "
                                                              "multigrid hierarchy");
}

/* Near-null space of the finest level: n blocks of 3 x k (k = 6 with the
 * rotations about the positions' centroid, 3 with translations only);
 * rows of DOFs whose matrix row holds only its diagonal (fixed by a
 * projective constraint) are zero. */
static bool fine_null_space(amg_pre *s, const st_csr *csr, double **out, int *kout)
{
    st_system *sys = s->sys;
    const int n = (int)(sys->size / 3);
    const int k = s->rigid ? 6 : 3;
    double *b = st_calloc((size_t)(n ? n : 1) * (size_t)(3 * k), sizeof *b);
    if (!b)
        return false;
    double c[3] = {0, 0, 0};
    if (s->rigid) {
        for (int i = 0; i < n; i++)
            for (int d = 0; d < 3; d++)
                c[d] += sys->x[3 * (size_t)i + (size_t)d] / n;
    }
    for (int i = 0; i < n; i++) {
        double *bi = b + (size_t)i * (size_t)(3 * k);
        for (int d = 0; d < 3; d++)
            bi[d * k + d] = 1.0;
        if (s->rigid) {
            const double px = sys->x[3 * (size_t)i] - c[0], py = sys->x[3 * (size_t)i + 1] - c[1],
                         pz = sys->x[3 * (size_t)i + 2] - c[2];
            /* Rotations about x, y, z: omega x p. */
            bi[0 * k + 4] = pz;
            bi[0 * k + 5] = -py;
            bi[1 * k + 3] = -pz;
            bi[1 * k + 5] = px;
            bi[2 * k + 3] = py;
            bi[2 * k + 4] = -px;
        }
        for (int d = 0; d < 3; d++) {
            const size_t row = 3 * (size_t)i + (size_t)d;
            bool diag_only = true;
            for (int q = csr->rowptr[row]; q < csr->rowptr[row + 1] && diag_only; q++)
                if ((size_t)csr->colind[q] != row && csr->values[q] != 0.0)
                    diag_only = false;
            if (diag_only)
                for (int j = 0; j < k; j++)
                    bi[d * k + j] = 0.0;
        }
    }
    *out = b;
    *kout = k;
    return true;
}

static bool level_vectors(amg_level *l)
{
    const size_t n = (size_t)l->a.nr * (size_t)vstride(l->a.br);
    l->t = st_calloc(n + 8, sizeof *l->t);
    l->x = st_calloc(n + 8, sizeof *l->x);
    l->b = st_calloc(n + 8, sizeof *l->b);
    return l->t && l->x && l->b;
}

/* dcol: the diagonal blocks' inverses column by column, 4 floats a column
 * (the 4th 0, so that x_i's unused lane stays 0). */
static bool level_dcol(amg_level *l)
{
    const int n = l->low.nr;
    l->dcol = st_calloc((size_t)(n ? n : 1) * 12, sizeof *l->dcol);
    if (!l->dcol)
        return false;
    for (int i = 0; i < n; i++)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                l->dcol[(size_t)i * 12 + (size_t)(c * 4 + r)] = l->dinv[(size_t)i * 9 + (size_t)(r * 3 + c)];
    return true;
}

static st_status amg_build(amg_pre *s, st_error *err)
{
    st_csr csr;
    st_matrix_csr(s->m, &csr);
    amg_free(s);
    double *bns = NULL, *dinv = NULL, *u = NULL, *w = NULL;
    int k = 0;
    st_status st = ST_OK;
    if (!csr_to_bsr(&csr, &s->lev[0].a) || !fine_null_space(s, &csr, &bns, &k))
        goto nomem;
    const double fine_scalars = bsr_scalars(&s->lev[0].a);
    double all_scalars = fine_scalars;
    int l = 0;
    for (;;) {
        amg_level *lv = &s->lev[l];
        bsr *a = &lv->a;
        const int b = a->br, n = a->nr;
        const size_t dofs = (size_t)n * (size_t)b;
        dinv = st_malloc((size_t)(n ? n : 1) * (size_t)(b * b) * sizeof *dinv);
        u = st_malloc((dofs ? dofs : 1) * sizeof *u);
        w = st_malloc((dofs ? dofs : 1) * sizeof *w);
        if (!dinv || !u || !w)
            goto nomem;
        if ((st = level_dinv(s, a, dinv, l, err)) != ST_OK)
            goto fail;
        const double rho = spectral_radius(a, dinv, u, w);
        lv->omega = rho > 0.0 ? 4.0 / (3.0 * rho) : 1.0;
        lv->dinv = st_malloc((size_t)(n ? n : 1) * (size_t)(b * b) * sizeof *lv->dinv);
        if (!lv->dinv || !level_vectors(lv))
            goto nomem;
        for (size_t q = 0; q < (size_t)n * (size_t)(b * b); q++)
            lv->dinv[q] = (float)dinv[q];
        /* Coarsest: dense Cholesky. */
        if (dofs <= s->coarse_size || l + 1 >= (int)s->max_levels) {
            if (dofs > 20000) {
                st = st_component_error(&s->base, "maxLevels", err, ST_ESCENE,
                                        "the coarsest level still has %zu unknowns after %d "
                                        "levels: raise maxLevels or strengthThreshold",
                                        dofs, l + 1);
                goto fail;
            }
            break;
        }
        int *agg = st_malloc((size_t)(n ? n : 1) * sizeof *agg);
        if (!agg)
            goto nomem;
        const int na = aggregate(a, s->theta, agg);
        if (na < 0) {
            st_free(agg);
            goto nomem;
        }
        if (na == 0 || (size_t)na * (size_t)k >= dofs) {
            st_free(agg);
            break; /* no coarsening: this level is the coarsest */
        }
        bsr pt = {0}, apt = {0};
        double *bc = st_malloc((size_t)na * (size_t)(k * k) * sizeof *bc);
        const bool ok = bc && tentative(a, agg, na, bns, k, &pt, bc);
        st_free(agg);
        if (!ok || !bsr_mul(a, &pt, &apt, false)) {
            st_free(bc);
            bsr_free(&pt);
            bsr_free(&apt);
            goto nomem;
        }
        /* P = P_t - w D^-1 (A P_t), on A P_t's pattern (which holds P_t's:
         * the diagonal blocks are stored). */
        const double wp = lv->omega;
        for (int i = 0; i < n; i++) {
            const double *di = dinv + (size_t)i * (size_t)(b * b);
            for (int q = apt.ptr[i]; q < apt.ptr[i + 1]; q++) {
                double *blk = apt.val + (size_t)q * (size_t)(b * k);
                double t[36];
                for (int r = 0; r < b; r++)
                    for (int c = 0; c < k; c++) {
                        double acc = 0.0;
                        for (int m = 0; m < b; m++)
                            acc += di[r * b + m] * blk[m * k + c];
                        t[r * k + c] = -wp * acc;
                    }
                for (int p2 = pt.ptr[i]; p2 < pt.ptr[i + 1]; p2++)
                    if (pt.col[p2] == apt.col[q])
                        for (int e = 0; e < b * k; e++)
                            t[e] += pt.val[(size_t)p2 * (size_t)(b * k) + (size_t)e];
                memcpy(blk, t, (size_t)(b * k) * sizeof *blk);
            }
        }
        bsr_free(&pt);
        bsr_round_bf16(&apt);
        lv->p = apt;
        bsr ap = {0};
        amg_level *next = &s->lev[l + 1];
        bsr up = {0};
        const bool built = bsr_transpose(&lv->p, &lv->r) && bsr_mul(a, &lv->p, &ap, false) &&
                           bsr_mul(&lv->r, &ap, &up, true) && bsr_from_upper(&up, &next->a);
        bsr_free(&up);
        if (!built) {
            bsr_free(&ap);
            st_free(bc);
            goto nomem;
        }
        bsr_free(&ap);
        /* Coarse unknowns whose column was dropped have an empty row and
         * column: their diagonal becomes 1 (decoupled, zero right-hand
         * side). */
        for (int i = 0; i < next->a.nr; i++) {
            double *d = (double *)bsr_diag(&next->a, i);
            if (!d)
                continue;
            for (int r = 0; r < k; r++)
                if (d[r * k + r] == 0.0)
                    d[r * k + r] = 1.0;
        }
        /* P by rows for points of 3 to points of 6 (the finest level with
         * the rigid modes: prolong_3x6), by columns for the other shapes. */
        const bool p_rows = lv->p.br == 3 && lv->p.bc == 6;
        if (!bsr_make_bf16(&lv->p, !p_rows) || !bsr_make_bf16(&lv->r, false) ||
            !bsr_lower_single(a, &lv->low) || (lv->low.sym && !level_dcol(lv))) {
            st_free(bc);
            goto nomem;
        }
        all_scalars += bsr_scalars(&next->a);
        {
            /* Only the single-precision lower part is used from here. */
            const int nr = a->nr, nc = a->nc, br = a->br, bc2 = a->bc;
            bsr_free(a);
            a->nr = nr;
            a->nc = nc;
            a->br = br;
            a->bc = bc2;
        }
        st_free(bns);
        bns = bc;
        st_free(dinv);
        st_free(u);
        st_free(w);
        dinv = u = w = NULL;
        l++;
    }
    /* Coarsest level: dense. */
    {
        bsr *a = &s->lev[l].a;
        const int n = a->nr * a->br, b = a->br;
        s->chol = st_calloc((size_t)(n ? n : 1) * (size_t)(n ? n : 1), sizeof *s->chol);
        s->csol = st_malloc((size_t)(n ? n : 1) * sizeof *s->csol);
        if (!s->chol || !s->csol)
            goto nomem;
        for (int i = 0; i < a->nr; i++)
            for (int q = a->ptr[i]; q < a->ptr[i + 1]; q++)
                for (int r = 0; r < b; r++)
                    for (int c = 0; c < b; c++)
                        s->chol[(size_t)(i * b + r) * (size_t)n + (size_t)(a->col[q] * b + c)] =
                            a->val[(size_t)q * (size_t)(b * b) + (size_t)(r * b + c)];
        if (!dense_cholesky(s->chol, n)) {
            st = st_component_solver_failure(&s->base, err,
                                             "the coarsest multigrid level (%d unknowns) is not "
                                             "positive definite: AMGPreconditioner needs a "
                                             "symmetric positive definite system",
                                             n);
            goto fail;
        }
        s->nchol = n;
        s->nlev = l + 1;
        s->nlevels = (unsigned)s->nlev;
        s->packed = s->lev[0].low.sym;
        s->complexity = all_scalars / fine_scalars;
        s->coarsest = (unsigned)n;
        if (s->builds++ == 0) {
            char sizes[256];
            size_t len = 0;
            sizes[0] = 0;
            for (int q = 0; q < s->nlev && len + 24 < sizeof sizes; q++)
                len += (size_t)snprintf(sizes + len, sizeof sizes - len, "%s%d", q ? " > " : "",
                                        s->lev[q].a.nr * s->lev[q].a.br);
            st_component_info(&s->base, "multigrid of %d levels (%s unknowns), operator "
                                        "complexity %.3f",
                              s->nlev, sizes, s->complexity);
        }
    }
    st_free(bns);
    st_free(dinv);
    st_free(u);
    st_free(w);
    return ST_OK;
nomem:
    st = oom(s, err);
fail:
    st_free(bns);
    st_free(dinv);
    st_free(u);
    st_free(w);
    amg_free(s);
    return st;
}

/* ---- the cycle ------------------------------------------------------------ */

/* The smoother: block Gauss-Seidel, forward before the coarse correction
 * and backward after it (so that the cycle is symmetric), over the blocks
 * below the diagonal only (L; the blocks above are their transposes).
 *
 * One sweep visits the rows in order (forward) or in reverse (backward);
 * row i takes x_i = D_i^-1 (b_i - sum_{j<i} L_ij x_j - acc_i), then adds
 * sign * L_ij^T x_i to acc_j for its blocks j < i while they are in cache.
 *   - Forward from x: acc starts as u = L^T x(old) (0 from a zero guess) and
 *     sign is -1, so rows see their upper part at the old x, and acc ends as
 *     the residual b - A x(new) = u - L^T x(new), which the coarse
 *     correction needs: the residual costs no extra pass.
 *   - Backward: acc starts at 0 and sign is +1: rows see their upper part
 *     at the new x, the lower at the old.
 *
 * The cycle's kernels use GCC's vector extensions (SSE on x86-64, NEON on
 * ARM): a point of B = 3 (or 6) scalars is one vector of W = 4 (or 8)
 * floats. A block row of B values is loaded W wide (the next W - B values
 * ride along: never summed, or masked out; the arrays carry 8 floats of
 * padding):
 *   - L_ij x_j: lane-wise products row_r * x_j accumulated over the row's
 *     blocks, summed across lanes 0..B-1 once per row;
 *   - L_ij^T x_i: the rows scaled by x_i's entries, summed, masked (the
 *     packed sweep_3s leaves the 4th lane unmasked: see there).
 * The points' unused lanes of x stay 0 (no kernel writes them non-zero). */
/* The 8-wide vectors are passed between static functions only: the note
 * that their ABI differs with and without AVX does not apply. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wunknown-warning-option"
#pragma clang diagnostic ignored "-Wpsabi"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef float v4sf __attribute__((vector_size(16)));
typedef int v4si __attribute__((vector_size(16)));
typedef float v8sf __attribute__((vector_size(32)));
typedef int v8si __attribute__((vector_size(32)));
typedef uint16_t v4hu __attribute__((vector_size(8)));
typedef uint32_t v4su __attribute__((vector_size(16)));
typedef uint16_t v8hu __attribute__((vector_size(16)));
typedef uint32_t v8su __attribute__((vector_size(32)));

static inline v4sf splat4(float f) { return (v4sf){f, f, f, f}; }
static inline v8sf splat8(float f) { return (v8sf){f, f, f, f, f, f, f, f}; }

#define AMG_VECTOR_KERNELS(B, W, VF, VI, VH, VU, SPLAT)                                            \
    static inline VF load_##B(const float *p)                                                      \
    {                                                                                              \
        VF v;                                                                                      \
        memcpy(&v, p, sizeof v);                                                                   \
        return v;                                                                                  \
    }                                                                                              \
    static inline VF loadh_##B(const uint16_t *p) /* W bfloat16 widened to floats */              \
    {                                                                                              \
        VH h;                                                                                      \
        memcpy(&h, p, sizeof h);                                                                   \
        const VU u = __builtin_convertvector(h, VU) << 16;                                         \
        VF v;                                                                                      \
        memcpy(&v, &u, sizeof v);                                                                  \
        return v;                                                                                  \
    }                                                                                              \
    static inline float hsum_##B(VF v)                                                             \
    {                                                                                              \
        float t = 0.0f;                                                                            \
        for (int c = 0; c < B; c++)                                                                \
            t += v[c];                                                                             \
        return t;                                                                                  \
    }                                                                                              \
    static inline VF splat_##B(float f) /* one broadcast (a loop of lane stores compiled to */     \
    {                                   /* a chain of W inserts) */                               \
        return SPLAT(f);                                                                           \
    }                                                                                              \
    static inline VF mask_##B(VF v)                                                                \
    {                                                                                              \
        VI m;                                                                                      \
        for (int c = 0; c < W; c++)                                                                \
            m[c] = c < B ? -1 : 0;                                                                 \
        return (VF)((VI)v & m);                                                                    \
    }                                                                                              \
    AMG_HOT static void sweep_##B(const amg_level *l, float *restrict x,                         \
                                  const float *restrict b, float *restrict acc, bool backward,     \
                                  float sign)                                                      \
    {                                                                                              \
        const bsr *lo = &l->low;                                                                   \
        const int n = lo->nr, step = backward ? -1 : 1;                                            \
        for (int q = 0, i = backward ? n - 1 : 0; q < n; q++, i += step) {                         \
            /* Rows run downwards in memory when backward, which the                               \
             * hardware prefetcher follows less well: fetch the row after next. */                 \
            if (backward && i >= 2)                                                                \
                for (const char *pf = (const char *)(lo->fval + (size_t)lo->ptr[i - 2] * (B * B)); \
                     pf < (const char *)(lo->fval + (size_t)lo->ptr[i - 1] * (B * B)); pf += 64)   \
                    __builtin_prefetch(pf);                                                        \
            VF t[B];                                                                               \
            for (int r = 0; r < B; r++)                                                            \
                t[r] = splat_##B(0.0f);                                                            \
            for (int k = lo->ptr[i]; k < lo->ptr[i + 1]; k++) {                                    \
                const float *v = lo->fval + (size_t)k * (B * B);                                   \
                const VF xj = load_##B(x + lo->col[k]);                                            \
                for (int r = 0; r < B; r++)                                                        \
                    t[r] += load_##B(v + B * r) * xj;                                              \
            }                                                                                      \
            const float *bi = b + (size_t)i * W, *ai = acc + (size_t)i * W;                        \
            float sum[B];                                                                          \
            for (int r = 0; r < B; r++)                                                            \
                sum[r] = bi[r] - ai[r] - hsum_##B(t[r]);                                           \
            const float *d = l->dinv + (size_t)i * (B * B);                                        \
            float *xi = x + (size_t)i * W;                                                         \
            for (int r = 0; r < B; r++) {                                                          \
                float y = 0.0f;                                                                    \
                for (int c = 0; c < B; c++)                                                        \
                    y += d[r * B + c] * sum[c];                                                    \
                xi[r] = y;                                                                         \
            }                                                                                      \
            VF g[B];                                                                               \
            for (int r = 0; r < B; r++)                                                            \
                g[r] = splat_##B(sign * xi[r]);                                                    \
            for (int k = lo->ptr[i]; k < lo->ptr[i + 1]; k++) {                                    \
                const float *v = lo->fval + (size_t)k * (B * B);                                   \
                float *aj = acc + lo->col[k];                                                      \
                VF u = load_##B(v) * g[0];                                                         \
                for (int r = 1; r < B; r++)                                                        \
                    u += load_##B(v + B * r) * g[r];                                               \
                const VF nv = load_##B(aj) + mask_##B(u); /* the unused lanes stay 0 */            \
                memcpy(aj, &nv, sizeof nv);                                                        \
            }                                                                                      \
        }                                                                                          \
    }
AMG_VECTOR_KERNELS(3, 4, v4sf, v4si, v4hu, v4su, splat4)
AMG_VECTOR_KERNELS(6, 8, v8sf, v8si, v8hu, v8su, splat8)
#undef AMG_VECTOR_KERNELS

/* sweep_3 over symmetric blocks stored as a b c e f d (bsr_lower_single):
 * row 0 (a b c) is the 4 floats at 0, row 2 (c e f) those at 2, row 1
 * (b d e) lane 1 of the first load and lanes 3 and 1 of the second. The block is its own
 * transpose, so the scatter uses the same three rows. */
/* Row 1 (b d e) of a packed block from its two loads: lanes 1 of r0, 3 and
 * 1 of r2, 0 of r0 (the last is padding). GCC and clang spell the shuffle
 * differently. */
#if defined(__clang__)
#define SHUF2(a, b, i, j, k, l) __builtin_shufflevector((a), (b), i, j, k, l)
#else
#define SHUF2(a, b, i, j, k, l) __builtin_shuffle((a), (b), (v4si){i, j, k, l})
#endif
#define ROW1_OF(r0, r2) SHUF2(r0, r2, 1, 7, 5, 0)
/* Two blocks at once: two 4-float vectors as one of 8 and back, a lane of
 * 4 broadcast to 8, and row 1 of both blocks (clang and GCC 12 have
 * __builtin_shufflevector; older GCC gets copies through memory, which it
 * compiles to inserts and extracts). */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define PAIR(a, b) __builtin_shufflevector((a), (b), 0, 1, 2, 3, 4, 5, 6, 7)
#define LOW4(a) __builtin_shufflevector((a), (a), 0, 1, 2, 3)
#define HIGH4(a) __builtin_shufflevector((a), (a), 4, 5, 6, 7)
#define BCAST8(a, c) __builtin_shufflevector((a), (a), c, c, c, c, c, c, c, c)
#define ROW1_OF_PAIR(r0, r2) __builtin_shufflevector((r0), (r2), 1, 11, 9, 0, 5, 15, 13, 4)
#else
static inline v8sf PAIR(v4sf a, v4sf b)
{
    float f[8];
    memcpy(f, &a, sizeof a);
    memcpy(f + 4, &b, sizeof b);
    v8sf v;
    memcpy(&v, f, sizeof v);
    return v;
}
static inline v4sf half4(v8sf a, int h)
{
    v4sf v;
    memcpy(&v, (const float *)&a + 4 * h, sizeof v);
    return v;
}
#define LOW4(a) half4((a), 0)
#define HIGH4(a) half4((a), 1)
#define BCAST8(a, c) PAIR(SHUF2((a), (a), c, c, c, c), SHUF2((a), (a), c, c, c, c))
#define ROW1_OF_PAIR(r0, r2) __builtin_shuffle((r0), (r2), (v8si){1, 11, 9, 0, 5, 15, 13, 4})
#endif

AMG_HOT static void sweep_3s(const amg_level *l, float *restrict x, const float *restrict b,
                             float *restrict acc, bool backward, float sign)
{
    const bsr *lo = &l->low;
    const int *restrict col = lo->col;
    const float *restrict val = lo->fval;
    const int n = lo->nr, step = backward ? -1 : 1;
    for (int q = 0, i = backward ? n - 1 : 0; q < n; q++, i += step) {
        if (backward && i >= 2)
            for (const char *pf = (const char *)(val + (size_t)lo->ptr[i - 2] * 6);
                 pf < (const char *)(val + (size_t)lo->ptr[i - 1] * 6); pf += 64)
                __builtin_prefetch(pf);
        /* Two blocks per 8-float vector (lanes 0-3 the even block, 4-7
         * the odd one), in the gather as in the scatter. */
        v8sf w0 = splat_6(0.0f), w1 = w0, w2 = w0;
        int k = lo->ptr[i];
        const int end = lo->ptr[i + 1];
        for (; k + 1 < end; k += 2) {
            const float *v = val + (size_t)k * 6;
            const v8sf r0 = PAIR(load_3(v), load_3(v + 6)), r2 = PAIR(load_3(v + 2), load_3(v + 8));
            const v8sf xp = PAIR(load_3(x + col[k]), load_3(x + col[k + 1]));
            w0 += r0 * xp;
            w1 += ROW1_OF_PAIR(r0, r2) * xp;
            w2 += r2 * xp;
        }
        v4sf t0 = LOW4(w0) + HIGH4(w0), t1 = LOW4(w1) + HIGH4(w1), t2 = LOW4(w2) + HIGH4(w2);
        if (k < end) {
            const float *v = val + (size_t)k * 6;
            const v4sf r0 = load_3(v), r2 = load_3(v + 2);
            const v4sf r1 = ROW1_OF(r0, r2);
            const v4sf xj = load_3(x + col[k]);
            t0 += r0 * xj;
            t1 += r1 * xj;
            t2 += r2 * xj;
        }
        /* The three sums across lanes as one vector (t_r's 4th lane is 0:
         * the points' 4th lanes in x are). */
        const v4sf p01 = SHUF2(t0, t1, 0, 4, 2, 6) + SHUF2(t0, t1, 1, 5, 3, 7);
        const v4sf p22 = SHUF2(t2, t2, 0, 0, 2, 2) + SHUF2(t2, t2, 1, 1, 3, 3);
        const v4sf h = SHUF2(p01, p22, 0, 1, 4, 4) + SHUF2(p01, p22, 2, 3, 6, 6);
        const v4sf sum = load_3(b + (size_t)i * 4) - load_3(acc + (size_t)i * 4) - h;
        const float *d = l->dcol + (size_t)i * 12;
        const v4sf xi = load_3(d) * splat_3(sum[0]) + load_3(d + 4) * splat_3(sum[1]) +
                        load_3(d + 8) * splat_3(sum[2]);
        memcpy(x + (size_t)i * 4, &xi, sizeof xi);
        const v4sf xs = xi * splat_3(sign);
        const v8sf g0 = BCAST8(xs, 0), g1 = BCAST8(xs, 1), g2 = BCAST8(xs, 2);
        /* The scatter leaves garbage in acc's 4th lanes (never read as a
         * value: sums across lanes stop at 3, and x_i's 4th lane is 0 from
         * dcol's), which saves masking each block's product. */
        for (k = lo->ptr[i]; k + 1 < end; k += 2) {
            const float *v = val + (size_t)k * 6;
            const v8sf r0 = PAIR(load_3(v), load_3(v + 6)), r2 = PAIR(load_3(v + 2), load_3(v + 8));
            const v8sf u = r0 * g0 + ROW1_OF_PAIR(r0, r2) * g1 + r2 * g2;
            float *aj = acc + col[k], *ak = acc + col[k + 1];
            const v4sf nj = load_3(aj) + LOW4(u), nk = load_3(ak) + HIGH4(u);
            memcpy(aj, &nj, sizeof nj);
            memcpy(ak, &nk, sizeof nk);
        }
        if (k < end) {
            const float *v = val + (size_t)k * 6;
            const v4sf r0 = load_3(v), r2 = load_3(v + 2);
            const v4sf r1 = ROW1_OF(r0, r2);
            float *aj = acc + col[k];
            const v4sf nv = load_3(aj) + (r0 * LOW4(g0) + r1 * LOW4(g1) + r2 * LOW4(g2));
            memcpy(aj, &nv, sizeof nv);
        }
    }
}

static void sweep(const amg_level *l, float *x, const float *b, float *acc, bool backward,
                  float sign)
{
    if (l->low.sym)
        sweep_3s(l, x, b, acc, backward, sign);
    else if (l->low.br == 3)
        sweep_3(l, x, b, acc, backward, sign);
    else
        sweep_6(l, x, b, acc, backward, sign);
}

/* Transfers from a level of points of B to the next, of points of K (the
 * shapes: 3 to 6 on the finest level with the rigid modes, whose kernels
 * follow below, then 6 to 6; 3 to 3 with translations only), with the
 * vectors of points of B:
 * P and R are stored in bfloat16 (bsr_make_bf16), widened to floats as
 * they are loaded:
 *   - x += P x_c, P's BxK blocks stored as K columns of B: the columns
 *     scaled by x_c's entries, summed, lanes 0..B-1 added to x;
 *   - b_c = R t, R's KxB blocks stored as K rows of B: lane-wise products
 *     row_r * t_j summed over the row's blocks, then across lanes. */
#define AMG_TRANSFER(B, K, VF)                                                                     \
    AMG_HOT static void prolong_##B##x##K(const bsr *p, float *restrict x,                       \
                                          const float *restrict xc)                                \
    {                                                                                              \
        for (int i = 0; i < p->nr; i++) {                                                          \
            /* Two sums (even and odd columns): one would chain every                              \
             * multiply-add of the row to the one before it. */                                    \
            VF y = splat_##B(0.0f), z = y;                                                         \
            for (int k = p->ptr[i]; k < p->ptr[i + 1]; k++) {                                      \
                const uint16_t *v = p->hval + (size_t)k * (B * K);                                 \
                const float *c = xc + (size_t)p->col[k] * vstride(K);                              \
                for (int q = 0; q + 1 < K; q += 2) {                                               \
                    y += loadh_##B(v + B * q) * splat_##B(c[q]);                                   \
                    z += loadh_##B(v + B * (q + 1)) * splat_##B(c[q + 1]);                         \
                }                                                                                  \
                if (K % 2)                                                                         \
                    y += loadh_##B(v + B * (K - 1)) * splat_##B(c[K - 1]);                         \
            }                                                                                      \
            y += z;                                                                                \
            float *xi = x + (size_t)i * vstride(B);                                                \
            for (int r = 0; r < B; r++)                                                            \
                xi[r] += y[r];                                                                     \
        }                                                                                          \
    }                                                                                              \
    AMG_HOT static void restrict_##K##x##B(const bsr *r, float *restrict bc,                     \
                                           const float *restrict t)                                \
    {                                                                                              \
        for (int i = 0; i < r->nr; i++) {                                                          \
            VF a[K];                                                                               \
            for (int q = 0; q < K; q++)                                                            \
                a[q] = splat_##B(0.0f);                                                            \
            for (int k = r->ptr[i]; k < r->ptr[i + 1]; k++) {                                      \
                const uint16_t *v = r->hval + (size_t)k * (B * K);                                 \
                const VF tj = load_##B(t + (size_t)r->col[k] * vstride(B));                        \
                for (int q = 0; q < K; q++)                                                        \
                    a[q] += loadh_##B(v + B * q) * tj;                                             \
            }                                                                                      \
            float *bi = bc + (size_t)i * vstride(K);                                               \
            for (int q = 0; q < K; q++)                                                            \
                bi[q] = hsum_##B(a[q]);                                                            \
        }                                                                                          \
    }
AMG_TRANSFER(3, 3, v4sf)
AMG_TRANSFER(6, 6, v8sf)
#undef AMG_TRANSFER

/* 8 bfloat16 at p widened to floats: a 16-lane shuffle that puts each
 * under a zero half, from a 32-byte load (the 16 bytes after p are read,
 * not used; the arrays carry 16 values of padding). GCC compiles it to two
 * instructions (vpermq, vpunpcklwd; one vpermi2w with AVX-512), where its
 * widening conversion of the 4-float kernels takes five. */
typedef uint16_t v16hu __attribute__((vector_size(32)));
static inline v8sf loadh8(const uint16_t *p)
{
    v16hu h;
    memcpy(&h, p, sizeof h);
#if defined(__clang__)
    const v16hu w = __builtin_shufflevector((v16hu){0}, h, 0, 16, 0, 17, 0, 18, 0, 19, 0, 20, 0,
                                            21, 0, 22, 0, 23);
#else
    const v16hu w = __builtin_shuffle((v16hu){0}, h,
                                      (v16hu){0, 16, 0, 17, 0, 18, 0, 19, 0, 20, 0, 21, 0, 22, 0, 23});
#endif
    v8sf v;
    memcpy(&v, &w, sizeof v);
    return v;
}

/* x += P x_c, P's 3x6 blocks stored as 3 rows of 6: each row times x_c
 * lane-wise (x_c's lanes 6 and 7 are 0, so the next row's 2 values riding
 * along in lanes 6 and 7 add nothing), summed across lanes once per row. */
AMG_HOT static void prolong_3x6p(const bsr *p, float *restrict x, const float *restrict xc)
{
    const int *restrict col = p->col;
    for (int i = 0; i < p->nr; i++) {
        v8sf y0 = splat_6(0.0f), y1 = y0, y2 = y0;
        for (int k = p->ptr[i]; k < p->ptr[i + 1]; k++) {
            const uint16_t *v = p->hval + (size_t)k * 18;
            const v8sf c = load_6(xc + (size_t)col[k] * 8);
            y0 += loadh8(v) * c;
            y1 += loadh8(v + 6) * c;
            y2 += loadh8(v + 12) * c;
        }
        float *xi = x + (size_t)i * 4;
        xi[0] += hsum_6(y0);
        xi[1] += hsum_6(y1);
        xi[2] += hsum_6(y2);
    }
}

/* b_c = R t, R's 6x3 blocks stored as 6 rows of 3: two rows per vector
 * (lanes 0-2 and 3-5) times t_j twice, summed across each half once per
 * coarse row. (Restricting from P's blocks instead, P^T t as a scatter into
 * b_c, saves R's 3.3 MB but is slower: consecutive fine rows update the same
 * coarse points, a chain through memory.) */
#if defined(__clang__)
#define T_TWICE(a) __builtin_shufflevector((a), (a), 0, 1, 2, 0, 1, 2, 0, 0)
#else
#define T_TWICE(a) __builtin_shuffle((a), (v8si){0, 1, 2, 0, 1, 2, 0, 0})
#endif
AMG_HOT static void restrict_6x3w(const bsr *r, float *restrict bc, const float *restrict t)
{
    const int *restrict col = r->col;
    for (int i = 0; i < r->nr; i++) {
        v8sf a0 = splat_6(0.0f), a1 = a0, a2 = a0;
        for (int k = r->ptr[i]; k < r->ptr[i + 1]; k++) {
            const uint16_t *v = r->hval + (size_t)k * 18;
            /* t_j twice (its 4th lane and the next point's are not used). */
            const v8sf tj = T_TWICE(load_6(t + (size_t)col[k] * 4));
            a0 += loadh8(v) * tj;
            a1 += loadh8(v + 6) * tj;
            a2 += loadh8(v + 12) * tj;
        }
        float *bi = bc + (size_t)i * 8;
        bi[0] = a0[0] + a0[1] + a0[2];
        bi[1] = a0[3] + a0[4] + a0[5];
        bi[2] = a1[0] + a1[1] + a1[2];
        bi[3] = a1[3] + a1[4] + a1[5];
        bi[4] = a2[0] + a2[1] + a2[2];
        bi[5] = a2[3] + a2[4] + a2[5];
    }
}

static void restrict_to(const amg_level *l, float *bc, const float *t)
{
    const bsr *r = &l->r;
    if (r->bc == 3)
        (r->br == 6 ? restrict_6x3w : restrict_3x3)(r, bc, t);
    else
        restrict_6x6(r, bc, t);
}

static void prolong_add(const bsr *p, float *x, const float *xc)
{
    if (p->br == 3)
        (p->bc == 6 ? prolong_3x6p : prolong_3x3)(p, x, xc);
    else
        prolong_6x6(p, x, xc);
}

/* Forward sweep; t gets the residual b - A x after it. */
/* A forward sweep from x = 0 (zero), or right after a backward sweep,
 * whose t then holds L^T x for the x it left (its upper parts): the u the
 * forward sweep starts from, for free. t ends as the residual b - A x. */
static void forward(const amg_level *l, float *x, const float *b, float *t, bool zero)
{
    if (zero)
        memset(t, 0, (size_t)l->low.nr * (size_t)vstride(l->low.br) * sizeof *t);
    sweep(l, x, b, t, false, -1.0f);
}

/* A backward sweep (x = 0 first when zero); t ends as L^T x. */
static void backward(const amg_level *l, float *x, const float *b, float *t, bool zero)
{
    const size_t n = (size_t)l->low.nr * (size_t)vstride(l->low.br);
    if (zero)
        memset(x, 0, n * sizeof *x);
    memset(t, 0, n * sizeof *t);
    sweep(l, x, b, t, true, 1.0f);
}

/* x = V-cycle(b) at level l (single precision). */
static void vcycle(amg_pre *s, int l, float *x, const float *b)
{
    amg_level *lv = &s->lev[l];
    if (l == s->nlev - 1) {
        const int bs = lv->a.br, vs = vstride(bs);
        for (int i = 0; i < lv->a.nr; i++)
            for (int c = 0; c < bs; c++)
                s->csol[i * bs + c] = b[i * vs + c];
        dense_cholesky_solve(s->chol, s->nchol, s->csol);
        for (int i = 0; i < lv->a.nr; i++)
            for (int c = 0; c < bs; c++)
                x[i * vs + c] = (float)s->csol[i * bs + c];
        return;
    }
    /* k sweeps before, alternating and ending with a forward one (which
     * leaves the residual), S_1 ... S_k; after, their adjoints in reverse
     * order, S_k* ... S_1* (the adjoint of a forward sweep is a backward
     * one), which makes the cycle symmetric. A forward sweep always follows
     * a backward one or starts from zero: no sweep needs an extra pass. */
    const unsigned k = l == 0 ? s->sweeps : s->coarse_sweeps;
    for (unsigned q = 0; q < k; q++) {
        if ((k - 1 - q) % 2 == 0)
            forward(lv, x, b, lv->t, q == 0);
        else
            backward(lv, x, b, lv->t, q == 0);
    }
    amg_level *nx = &s->lev[l + 1];
    restrict_to(lv, nx->b, lv->t);
    vcycle(s, l + 1, nx->x, nx->b);
    prolong_add(&lv->p, x, nx->x);
    for (unsigned q = 0; q < k; q++) {
        if (q % 2 == 0)
            backward(lv, x, b, lv->t, false);
        else
            forward(lv, x, b, lv->t, false);
    }
}

/* ---- the component --------------------------------------------------------- */

static st_status amg_init(st_component *self, st_error *err)
{
    amg_pre *s = (amg_pre *)self;
    if (strcmp(s->null_space, "rigid") != 0 && strcmp(s->null_space, "translations") != 0)
        return st_component_error(self, "nullSpace", err, ST_ESCENE,
                                  "unknown value '%s': expected rigid or translations",
                                  s->null_space);
    return ST_OK;
}

static st_status amg_bind(st_component *self, st_system *sys, st_error *err)
{
    amg_pre *s = (amg_pre *)self;
    st_matrix_destroy(&s->m);
    amg_free(s);
    s->sys = sys;
    if (sys->size % 3 != 0)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the system has %zu scalar degrees of freedom, not a multiple "
                                  "of the 3x3 point blocks the multigrid works on",
                                  sys->size);
    s->rigid = strcmp(s->null_space, "rigid") == 0;
    for (size_t i = 0; i < sys->nindep && s->rigid; i++)
        if (sys->states[i]->type->coord_size != 3 || sys->states[i]->type->deriv_size != 3)
            s->rigid = false;
    if (!s->rigid && strcmp(s->null_space, "rigid") == 0)
        st_component_warn(self, "a state is not a Vec3 type: the near-null space is the "
                                "translations only");
    return st_matrix_create(sys, &s->m, err);
}

static st_status amg_set_system(st_component *self, st_system *sys, double mf, double bf,
                                double kf, st_error *err)
{
    amg_pre *s = (amg_pre *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    return amg_build(s, err);
}

static st_status amg_solve(st_component *self, st_system *sys, double *x, const double *b,
                           st_error *err)
{
    amg_pre *s = (amg_pre *)self;
    if (s->sys != sys || s->nlev == 0)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "the multigrid hierarchy is not built for this system");
    amg_level *l0 = &s->lev[0];
    const size_t np = sys->size / 3;
    for (size_t i = 0; i < np; i++)
        for (int c = 0; c < 3; c++)
            l0->b[4 * i + (size_t)c] = (float)b[3 * i + (size_t)c];
    vcycle(s, 0, l0->x, l0->b);
    for (size_t i = 0; i < np; i++)
        for (int c = 0; c < 3; c++)
            x[3 * i + (size_t)c] = (double)l0->x[4 * i + (size_t)c];
    return ST_OK;
}

static void amg_cleanup(st_component *self)
{
    amg_pre *s = (amg_pre *)self;
    st_matrix_destroy(&s->m);
    amg_free(s);
}

static const st_linsolver_ops amg_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = amg_bind,
    .set_system = amg_set_system,
    .solve = amg_solve,
};

const st_class amg_preconditioner_class = {
    .struct_size = sizeof(st_class),
    .name = "AMGPreconditioner",
    .category = "LinearSolver",
    .description = "Smoothed-aggregation algebraic multigrid on 3x3 point blocks with the "
                   "rigid-body near-null space; one V-cycle per application (settee's own, "
                   "meant as PCGLinearSolver's preconditioner)",
    .instance_size = sizeof(amg_pre),
    .fields = amg_fields,
    .init = amg_init,
    .cleanup = amg_cleanup,
    .linsolver = &amg_ops,
};
