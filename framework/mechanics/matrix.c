/* matrix.c - assembly of mf M + bf B + kf K into point-block compressed
 * sparse rows (derivative space: a block couples two points and has their
 * derivative sizes, 3x3 between Vec3d points, 6x6 between Rigid3d points),
 * with projective constraints applied. It, system.c and mapping.c call
 * each other by design (mechanics.h says why).
 *
 * Design: "recorded call sequence". The first st_matrix_assemble records
 * every st_matrix_add_block / st_matrix_add_diag / st_matrix_project_dof
 * call (kind, row, column) with its values, builds the block pattern once
 * (structurally symmetric, sorted columns, every diagonal block present) and
 * a slot table giving, for each call, where its values go. Later assemblies
 * clear the values and write each call straight into its slot: no search, no
 * allocation. Each call is checked against the recording (two integer
 * compares); when the sequence differs (the topology changed) the assembly
 * is redone in recording mode, the pattern rebuilt and pattern_version
 * bumped.
 *
 * Changing active sets (contacts, unilateral constraints): when the sequence
 * differs but every block it writes is already in the pattern, only the
 * slots are recomputed (a binary search per call, no new pattern, no new
 * symbolic analysis for the linear solver). The pattern only grows: a
 * rebuild keeps every block of the previous pattern, so a set of contacts
 * seen once costs nothing when it comes back. A force field can also
 * declare, once, the blocks it may ever write (reserve_pattern and
 * st_matrix_reserve_block): they are part of every pattern built, and the
 * call buffers are sized for them, so a changing active set inside the
 * declared superset never allocates.
 *
 * Calls name points by the scalar index of their first derivative
 * component (ms->doffset + deriv_size * i), so replay compares two integers
 * as before, whatever the sizes.
 *
 * Storage: the values of block row p (point p, d(p) scalar rows) live in
 * scalar CSR order, so that the scalar view st_matrix_csr() is the storage
 * itself (no copy): each scalar row of the block row holds, for each block
 * of the row, that block's row. Block k starts at bbase[k] and its rows are
 * W(p) = (sum of the row's block widths) apart, which is also the length of
 * each scalar row (rowptr[r + 1] - rowptr[r]). With only Vec3d states this
 * is the 3x3 layout of ABI 1, value for value.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mechanics/mechanics.h"

/* A role function is present when the plugin's ops struct is large enough
 * to hold it and it is set. */
#define HAS_OP(ops, type, member)                                                                  \
    ((ops) && (ops)->struct_size >= offsetof(type, member) + sizeof((ops)->member) &&             \
     (ops)->member)

enum { CALL_BLOCK = 0, CALL_DIAG, CALL_PROJECT };

typedef struct mcall {
    int kind;      /* CALL_* */
    unsigned row;  /* first scalar row of the block (a point's doffset) */
    unsigned col;  /* first scalar column of the block; the axis for CALL_PROJECT */
} mcall;

/* Largest point derivative (Rigid3d): recorded values per call. */
#define MAXD 6
#define MAXB (MAXD * MAXD)

enum { MODE_RECORD = 0, MODE_REPLAY };

struct st_matrix {
    st_system *sys;
    size_t nb;                 /* block rows = points of the independent states */
    int *poff;                 /* nb + 1: first scalar of each point */
    unsigned char *pdim;       /* nb: derivative size of each point */
    int *point_at;             /* n: the point a scalar belongs to */
    /* The system's components, scene order (borrowed). */
    st_component **masses, **ffs, **projs;
    size_t nmass, nff, nproj;

    /* Block pattern. */
    size_t nblocks;
    int *browptr;              /* nb + 1 */
    int *bcol;                 /* nblocks: block column of each block */
    int *btrans;               /* nblocks: index of the transposed block */
    int *bdiag;                /* nb: index of the diagonal block of each row */
    size_t *bbase;             /* nblocks: index in values of each block's first entry */

    /* Scalar CSR view (the storage of the values). */
    size_t n, nnz;
    int *rowptr;               /* n + 1 */
    int *colind;               /* nnz */
    double *values;            /* nnz */
    unsigned long pattern_version;

    /* The recorded call sequence and each call's slot. */
    mcall *calls;
    size_t ncalls, capcalls;
    size_t *slot;              /* per call: base index in values (blocks, diag) */
    size_t capslot;            /* capacity of slot */
    /* Declared blocks (reserve_pattern): (row, col) scalar offsets. */
    unsigned *resv;            /* 2 per block */
    size_t nresv, capresv;
    bool reserving;            /* add_block calls are reservations */
    bool rebuilt;              /* the last assembly rebuilt the pattern */
    bool single;               /* one component alone: no mapping stiffness */
    double *recvals;           /* recording only: each call's values, back to back */
    size_t nrec, caprec;       /* values recorded, capacity (doubles) */
    size_t cursor;             /* next call in replay */
    int mode;
    bool recorded;             /* a pattern exists */
    bool mismatch;             /* replay met a different call */
    bool failed;               /* recording ran out of memory */
    bool out_of_range;         /* a call named a point outside the independent states */
    const st_component *current; /* the component being assembled */
    const st_component *offender;
    const st_mstate *bad_state;
    size_t bad_index;
    bool no_jacobian;          /* the out-of-range point is on a mapped state without J */
};

static st_status gather(st_system *sys, st_role role, st_component ***out, size_t *n,
                        st_error *err)
{
    size_t k = st__system_components(sys, role, NULL, 0);
    *out = NULL;
    *n = 0;
    if (!k)
        return ST_OK;
    *out = st_calloc(k, sizeof **out);
    if (!*out)
        return st_error_set(err, ST_ENOMEM, "out of memory while collecting the system's components");
    *n = st__system_components(sys, role, *out, k);
    return ST_OK;
}

/* ---- creation ---- */

st_status st_matrix_create(st_system *sys, st_matrix **out, st_error *err)
{
    *out = NULL;
    if (!sys)
        return st_error_set(err, ST_EINVAL, "st_matrix_create: no mechanical system");
    if (sys->size > (size_t)INT_MAX / MAXD)
        return st_error_set(err, ST_EINVAL, "system too large for matrix assembly (%zu values)",
                            sys->size);
    st_matrix *m = st_calloc(1, sizeof *m);
    if (!m)
        return st_error_set(err, ST_ENOMEM, "out of memory creating a system matrix");
    m->sys = sys;
    m->nb = sys->ndof;
    m->n = sys->size;
    m->poff = st_malloc((m->nb + 1) * sizeof *m->poff);
    m->pdim = st_malloc((m->nb ? m->nb : 1) * sizeof *m->pdim);
    m->point_at = st_malloc((m->n ? m->n : 1) * sizeof *m->point_at);
    if (!m->poff || !m->pdim || !m->point_at) {
        st_matrix_destroy(&m);
        return st_error_set(err, ST_ENOMEM, "out of memory creating a system matrix");
    }
    /* Points of the independent states, in the derivative layout. */
    size_t p = 0;
    for (size_t k = 0; k < sys->nindep; k++) {
        const st_mstate *ms = sys->states[k];
        unsigned d = ms->type->deriv_size;
        for (size_t i = 0; i < ms->n && p < m->nb; i++, p++) {
            m->poff[p] = (int)(ms->doffset + d * i);
            m->pdim[p] = (unsigned char)d;
            for (unsigned a = 0; a < d; a++)
                m->point_at[ms->doffset + d * i + a] = (int)p;
        }
    }
    m->poff[m->nb] = (int)m->n;
    st_status s;
    if ((s = gather(sys, ST_ROLE_MASS, &m->masses, &m->nmass, err)) != ST_OK ||
        (s = gather(sys, ST_ROLE_FORCEFIELD, &m->ffs, &m->nff, err)) != ST_OK ||
        (s = gather(sys, ST_ROLE_PROJECTIVE, &m->projs, &m->nproj, err)) != ST_OK) {
        st_matrix_destroy(&m);
        return s;
    }
    *out = m;
    return ST_OK;
}

st_status st__matrix_create_single(st_system *sys, st_component *ff, st_matrix **out,
                                   st_error *err)
{
    ST_TRY(st_matrix_create(sys, out, err));
    st_matrix *m = *out;
    m->nmass = m->nproj = 0;
    st_component **one = st_realloc(m->ffs, sizeof *one);
    if (!one) {
        st_matrix_destroy(out);
        return st_error_set(err, ST_ENOMEM, "out of memory creating a system matrix");
    }
    one[0] = ff;
    m->ffs = one;
    m->nff = 1;
    m->single = true;
    return ST_OK;
}

st_status st_matrix_create_component(st_system *sys, st_component *c, st_matrix **out,
                                     st_error *err)
{
    *out = NULL;
    if (!c)
        return st_error_set(err, ST_EINVAL, "st_matrix_create_component: no component");
    bool ff = st_component_has_role(c, ST_ROLE_FORCEFIELD);
    bool mass = st_component_has_role(c, ST_ROLE_MASS);
    if (!ff && !mass)
        return st_component_error(c, NULL, err, ST_EINVAL,
                                  "%s is neither a force field nor a mass: it has no matrix",
                                  c->cls->name);
    ST_TRY(st_matrix_create(sys, out, err));
    st_matrix *m = *out;
    /* Keep c only, in the lists of its roles (it must be one of the system's). */
    bool found = false;
    size_t nff = 0, nmass = 0;
    for (size_t i = 0; i < m->nff; i++)
        if (m->ffs[i] == c)
            found = true, nff = 1;
    for (size_t i = 0; i < m->nmass; i++)
        if (m->masses[i] == c)
            found = true, nmass = 1;
    if (!found) {
        st_matrix_destroy(out);
        return st_component_error(c, NULL, err, ST_EINVAL,
                                  "not part of this mechanical system (no ODE solver above its "
                                  "state, or the scene is not initialised)");
    }
    if (nff)
        m->ffs[0] = c;
    if (nmass)
        m->masses[0] = c;
    m->nff = nff;
    m->nmass = nmass;
    m->nproj = 0;
    m->single = true;
    return ST_OK;
}

static void free_pattern(st_matrix *m)
{
    st_free(m->browptr);
    st_free(m->bcol);
    st_free(m->btrans);
    st_free(m->bdiag);
    st_free(m->bbase);
    st_free(m->rowptr);
    st_free(m->colind);
    st_free(m->values);
    m->browptr = m->bcol = m->btrans = m->bdiag = m->rowptr = m->colind = NULL;
    m->bbase = NULL;
    m->values = NULL;
    m->nblocks = m->nnz = 0;
    m->recorded = false;
}

void st_matrix_destroy(st_matrix **pm)
{
    if (!pm || !*pm)
        return;
    st_matrix *m = *pm;
    free_pattern(m);
    st_free(m->slot);
    st_free(m->calls);
    st_free(m->recvals);
    st_free(m->resv);
    st_free(m->masses);
    st_free(m->ffs);
    st_free(m->projs);
    st_free(m->poff);
    st_free(m->pdim);
    st_free(m->point_at);
    st_free(m);
    *pm = NULL;
}

/* ---- recording ---- */

static void record(st_matrix *m, int kind, size_t row, size_t col, const double *vals, int nv)
{
    if (m->failed)
        return;
    if (m->ncalls == m->capcalls) {
        size_t cap = m->capcalls ? 2 * m->capcalls : 256;
        mcall *c = st_realloc(m->calls, cap * sizeof *c);
        if (!c) {
            m->failed = true;
            return;
        }
        m->calls = c;
        m->capcalls = cap;
    }
    if (m->nrec + (size_t)nv > m->caprec) {
        size_t cap = m->caprec ? 2 * m->caprec : 256 * MAXB;
        double *r = st_realloc(m->recvals, cap * sizeof *r);
        if (!r) {
            m->failed = true;
            return;
        }
        m->recvals = r;
        m->caprec = cap;
    }
    mcall *c = &m->calls[m->ncalls];
    c->kind = kind;
    c->row = (unsigned)row;
    c->col = (unsigned)col;
    /* (a call of no values, from an element of no degree of freedom, keeps
     * its place in the sequence; recvals may still be NULL then) */
    for (int i = 0; i < nv; i++)
        m->recvals[m->nrec + (size_t)i] = vals[i];
    m->nrec += (size_t)nv;
    m->ncalls++;
}

/* Appends a declared block (reserve_pattern). */
static void reserve_push(st_matrix *m, size_t row, size_t col)
{
    if (m->failed)
        return;
    if (m->nresv == m->capresv) {
        size_t cap = m->capresv ? 2 * m->capresv : 256;
        unsigned *r = st_realloc(m->resv, 2 * cap * sizeof *r);
        if (!r) {
            m->failed = true;
            return;
        }
        m->resv = r;
        m->capresv = cap;
    }
    m->resv[2 * m->nresv] = (unsigned)row;
    m->resv[2 * m->nresv + 1] = (unsigned)col;
    m->nresv++;
}

/* Records the first call naming a point outside the matrix; false. */
static bool point_error(st_matrix *m, const st_mstate *ms, size_t i)
{
    if (!m->out_of_range) {
        m->out_of_range = true;
        m->offender = m->current;
        m->bad_state = ms;
        m->bad_index = i;
    }
    return false;
}

/* Point i of ms must be a point of the system's independent states (mapped
 * states come after them, so the bound excludes them too). */
static inline bool check_point(st_matrix *m, const st_mstate *ms, size_t i)
{
    if (ms && ms->system == m->sys && i < ms->n &&
        ms->doffset + (size_t)ms->type->deriv_size * (i + 1) <= m->n)
        return true;
    return point_error(m, ms, i);
}

/* Replay: the next recorded call must be the same one. */
static bool replay_match(st_matrix *m, int kind, size_t row, size_t col)
{
    if (m->mismatch)
        return false;
    if (m->cursor >= m->ncalls) {
        m->mismatch = true;
        return false;
    }
    const mcall *c = &m->calls[m->cursor];
    if (c->kind != kind || c->row != row || c->col != col) {
        m->mismatch = true;
        return false;
    }
    return true;
}

/* Clears scalar row and column r0 + axis of point v, diagonal 1. */
static void apply_project(st_matrix *m, size_t v, unsigned axis)
{
    double *val = m->values;
    size_t r = (size_t)m->poff[v] + axis;
    size_t rb = (size_t)m->rowptr[r], re = (size_t)m->rowptr[r + 1];
    for (size_t j = rb; j < re; j++)
        val[j] = 0.0;
    /* Column r: in each block (q, v), the transposes of row v's blocks. */
    int b0 = m->browptr[v], b1 = m->browptr[v + 1];
    for (int k = b0; k < b1; k++) {
        int t = m->btrans[k];
        size_t q = (size_t)m->bcol[k];
        size_t stride = (size_t)(m->rowptr[m->poff[q] + 1] - m->rowptr[m->poff[q]]);
        size_t base = m->bbase[t] + axis;
        for (unsigned a = 0; a < m->pdim[q]; a++)
            val[base + a * stride] = 0.0;
    }
    size_t stride = re - rb;
    val[m->bbase[m->bdiag[v]] + axis * stride + axis] = 1.0;
}

/* Adds a da x db block (row-major) at values + base, rows stride apart. */
static inline void add_values(double *v, size_t stride, const double *b, unsigned da, unsigned db)
{
    if (da == 3 && db == 3) {
        v[0] += b[0];
        v[1] += b[1];
        v[2] += b[2];
        v += stride;
        v[0] += b[3];
        v[1] += b[4];
        v[2] += b[5];
        v += stride;
        v[0] += b[6];
        v[1] += b[7];
        v[2] += b[8];
        return;
    }
    for (unsigned a = 0; a < da; a++, v += stride, b += db)
        for (unsigned c = 0; c < db; c++)
            v[c] += b[c];
}

/* A block on a mapped state goes to the independent states through the
 * total Jacobians (mapping.c), which call back with independent points. */
static bool add_mapped(st_matrix *m, const st_mstate *a, size_t i, const st_mstate *b, size_t j,
                       const double *blk)
{
    if (!(a && a->mapped && a->system == m->sys) && !(b && b->mapped && b->system == m->sys))
        return false;
    if (!st__mapgraph_add_block(st__system_mapgraph(m->sys), m, a, i, b, j, blk) &&
        !m->out_of_range) {
        m->out_of_range = true;
        m->no_jacobian = true;
        m->offender = m->current;
        m->bad_state = a && a->mapped ? a : b;
        m->bad_index = a && a->mapped ? i : j;
    }
    return true;
}

void st_matrix_add_block(st_matrix *m, const st_mstate *a, size_t i, const st_mstate *b,
                         size_t j, const double *blk)
{
    if (add_mapped(m, a, i, b, j, blk))
        return;
    if (!a || !b)
        return (void)point_error(m, a ? b : a, a ? j : i);
    unsigned da = a->type->deriv_size, db = b->type->deriv_size;
    size_t row = a->doffset + (size_t)da * i, col = b->doffset + (size_t)db * j;
    /* Both points inside the independent states of this system. */
    if (a->system != m->sys || i >= a->n || row + da > m->n)
        return (void)point_error(m, a, i);
    if (b->system != m->sys || j >= b->n || col + db > m->n)
        return (void)point_error(m, b, j);
    if (m->reserving) {
        reserve_push(m, row, col);
        return;
    }
    if (m->mode == MODE_RECORD) {
        record(m, CALL_BLOCK, row, col, blk, (int)(da * db));
        return;
    }
    if (!replay_match(m, CALL_BLOCK, row, col))
        return;
    size_t base = m->slot[m->cursor++];
    add_values(m->values + base, (size_t)(m->rowptr[row + 1] - m->rowptr[row]), blk, da, db);
}

void st_matrix_reserve_block(st_matrix *m, const st_mstate *a, size_t i, const st_mstate *b,
                             size_t j)
{
    /* Only meaningful while the kernel asks for reservations; a block on a
     * mapped state reserves the blocks its Jacobians spread it to. */
    if (!m || !m->reserving)
        return;
    static const double zero[MAXB];
    st_matrix_add_block(m, a, i, b, j, zero);
}

void st_matrix_add_diag(st_matrix *m, const st_mstate *ms, size_t i, double d)
{
    if (ms && ms->mapped && ms->system == m->sys) {
        double blk[MAXB] = {0};
        unsigned dd = ms->type->deriv_size;
        for (unsigned a = 0; a < dd; a++)
            blk[a * dd + a] = d;
        add_mapped(m, ms, i, ms, i, blk);
        return;
    }
    if (!check_point(m, ms, i))
        return;
    unsigned dd = ms->type->deriv_size;
    size_t row = ms->doffset + (size_t)dd * i;
    if (m->mode == MODE_RECORD) {
        record(m, CALL_DIAG, row, row, &d, 1);
        return;
    }
    if (!replay_match(m, CALL_DIAG, row, row))
        return;
    size_t base = m->slot[m->cursor++];
    size_t stride = (size_t)(m->rowptr[row + 1] - m->rowptr[row]);
    for (unsigned a = 0; a < dd; a++)
        m->values[base + a * stride + a] += d;
}

void st_matrix_project_dof(st_matrix *m, const st_mstate *ms, size_t i, unsigned axis)
{
    /* A constraint on a mapped state leaves the parent's matrix alone, as
     * SOFA's linear system does. */
    if (ms && ms->mapped && ms->system == m->sys)
        return;
    if (!ms || axis >= ms->type->deriv_size || !check_point(m, ms, i))
        return;
    size_t row = ms->doffset + (size_t)ms->type->deriv_size * i;
    if (m->mode == MODE_RECORD) {
        record(m, CALL_PROJECT, row, axis, NULL, 0);
        return;
    }
    if (!replay_match(m, CALL_PROJECT, row, axis))
        return;
    m->cursor++;
    apply_project(m, (size_t)m->point_at[row], axis);
}

/* ---- pattern ---- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Index of block (row, col) in the pattern, or -1. */
static int find_block(const st_matrix *m, size_t row, int col)
{
    int lo = m->browptr[row], hi = m->browptr[row + 1] - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (m->bcol[mid] < col)
            lo = mid + 1;
        else if (m->bcol[mid] > col)
            hi = mid - 1;
        else
            return mid;
    }
    return -1;
}

/* Counts (then, with tmp, lists) the off-diagonal block pairs of a pattern
 * rebuild: the recorded calls, the declared blocks and the blocks of the
 * previous pattern, each with its transpose. */
static void candidates(const st_matrix *m, size_t *cnt, int *tmp, size_t *fill)
{
    for (size_t i = 0; i < m->ncalls; i++) {
        const mcall *c = &m->calls[i];
        if (c->kind != CALL_BLOCK || c->row == c->col)
            continue;
        int pr = m->point_at[c->row], pc = m->point_at[c->col];
        if (tmp) {
            tmp[fill[pr]++] = pc;
            tmp[fill[pc]++] = pr;
        } else {
            cnt[pr + 1]++;
            cnt[pc + 1]++;
        }
    }
    for (size_t i = 0; i < m->nresv; i++) {
        int pr = m->point_at[m->resv[2 * i]], pc = m->point_at[m->resv[2 * i + 1]];
        if (pr == pc)
            continue;
        if (tmp) {
            tmp[fill[pr]++] = pc;
            tmp[fill[pc]++] = pr;
        } else {
            cnt[pr + 1]++;
            cnt[pc + 1]++;
        }
    }
    if (!m->recorded)
        return;
    for (size_t r = 0; r < m->nb; r++)
        for (int k = m->browptr[r]; k < m->browptr[r + 1]; k++) {
            if (m->bcol[k] == (int)r)
                continue;
            if (tmp)
                tmp[fill[r]++] = m->bcol[k];
            else
                cnt[r + 1]++;
        }
}

/* The slot of each recorded call in the current pattern; false when a block
 * is missing from it. Grows the slot table when needed (the only
 * allocation, and only when the number of calls exceeds every earlier one). */
static bool compute_slots(st_matrix *m, bool *nomem)
{
    *nomem = false;
    if (m->ncalls > m->capslot) {
        size_t cap = m->capcalls > m->ncalls ? m->capcalls : m->ncalls;
        size_t *sl = st_realloc(m->slot, (cap ? cap : 1) * sizeof *sl);
        if (!sl) {
            *nomem = true;
            return false;
        }
        m->slot = sl;
        m->capslot = cap;
    }
    for (size_t i = 0; i < m->ncalls; i++) {
        const mcall *c = &m->calls[i];
        if (c->kind == CALL_PROJECT) {
            m->slot[i] = 0;
            continue;
        }
        int pr = m->point_at[c->row];
        int k = c->kind == CALL_DIAG ? m->bdiag[pr] : find_block(m, (size_t)pr, m->point_at[c->col]);
        if (k < 0)
            return false;
        m->slot[i] = m->bbase[k];
    }
    return true;
}

/* Builds the block pattern and the scalar CSR arrays from the recorded
 * calls, the declared blocks and the previous pattern. */
static st_status build_pattern(st_matrix *m, st_error *err)
{
    size_t nb = m->nb;
    /* Candidate entries per point row: the diagonal, each call and its transpose. */
    size_t *cnt = st_calloc(nb + 1, sizeof *cnt);
    if (!cnt)
        goto nomem;
    for (size_t r = 0; r < nb; r++)
        cnt[r + 1] = 1;
    candidates(m, cnt, NULL, NULL);
    for (size_t r = 0; r < nb; r++)
        cnt[r + 1] += cnt[r];
    size_t total = cnt[nb];
    int *tmp = st_malloc((total ? total : 1) * sizeof *tmp);
    size_t *fill = st_malloc((nb + 1) * sizeof *fill);
    int *rowptr = st_malloc((nb + 1) * sizeof *rowptr);
    if (!tmp || !fill || !rowptr) {
        st_free(tmp);
        st_free(fill);
        st_free(rowptr);
        st_free(cnt);
        goto nomem;
    }
    memcpy(fill, cnt, (nb + 1) * sizeof *fill);
    for (size_t r = 0; r < nb; r++)
        tmp[fill[r]++] = (int)r;
    candidates(m, cnt, tmp, fill);
    st_free(fill);
    /* The previous pattern is in tmp now. */
    free_pattern(m);
    m->browptr = rowptr;
    /* Sort and deduplicate each row, compacting in place. */
    size_t w = 0, nnz = 0;
    m->browptr[0] = 0;
    for (size_t r = 0; r < nb; r++) {
        size_t a = cnt[r], b = cnt[r + 1];
        qsort(tmp + a, b - a, sizeof *tmp, cmp_int);
        for (size_t k = a; k < b; k++)
            if (k == a || tmp[k] != tmp[k - 1]) {
                nnz += (size_t)m->pdim[r] * m->pdim[tmp[k]];
                tmp[w++] = tmp[k];
            }
        if (nnz > (size_t)INT_MAX) {
            st_free(tmp);
            st_free(cnt);
            free_pattern(m);
            return st_error_set(err, ST_EINVAL,
                                "system matrix too large for 32-bit sparse indices (%zu entries)",
                                nnz);
        }
        m->browptr[r + 1] = (int)w;
    }
    st_free(cnt);
    m->nblocks = w;
    m->bcol = st_realloc(tmp, (w ? w : 1) * sizeof *tmp);
    if (!m->bcol) {
        m->bcol = tmp;
        goto nomem_pattern;
    }
    m->btrans = st_malloc((w ? w : 1) * sizeof *m->btrans);
    m->bbase = st_malloc((w ? w : 1) * sizeof *m->bbase);
    m->bdiag = st_malloc((nb ? nb : 1) * sizeof *m->bdiag);
    m->nnz = nnz;
    m->rowptr = st_malloc((m->n + 1) * sizeof *m->rowptr);
    m->colind = st_malloc((m->nnz ? m->nnz : 1) * sizeof *m->colind);
    m->values = st_calloc(m->nnz ? m->nnz : 1, sizeof *m->values);
    if (!m->btrans || !m->bbase || !m->bdiag || !m->rowptr || !m->colind || !m->values)
        goto nomem_pattern;
    for (size_t r = 0; r < nb; r++) {
        for (int k = m->browptr[r]; k < m->browptr[r + 1]; k++) {
            m->btrans[k] = find_block(m, (size_t)m->bcol[k], (int)r);
            if (m->bcol[k] == (int)r)
                m->bdiag[r] = k;
        }
    }
    /* Scalar CSR view and each block's base. */
    size_t start = 0;
    for (size_t r = 0; r < nb; r++) {
        int b0 = m->browptr[r], b1 = m->browptr[r + 1];
        size_t width = 0;
        for (int k = b0; k < b1; k++)
            width += m->pdim[m->bcol[k]];
        for (unsigned i = 0; i < m->pdim[r]; i++) {
            size_t rs = start + i * width, col = 0;
            m->rowptr[(size_t)m->poff[r] + i] = (int)rs;
            for (int k = b0; k < b1; k++) {
                int q = m->bcol[k];
                if (i == 0)
                    m->bbase[k] = start + col;
                for (unsigned j = 0; j < m->pdim[q]; j++)
                    m->colind[rs + col + j] = m->poff[q] + (int)j;
                col += m->pdim[q];
            }
        }
        start += m->pdim[r] * width;
    }
    m->rowptr[m->n] = (int)m->nnz;
    m->recorded = true;
    bool nomem_slots;
    if (!compute_slots(m, &nomem_slots))
        goto nomem_pattern; /* every call is in the pattern: only memory can fail */
    m->pattern_version++;
    return ST_OK;
nomem_pattern:
    free_pattern(m);
nomem:
    return st_error_set(err, ST_ENOMEM, "out of memory building the system matrix pattern");
}

/* After recording: scatter the recorded values into their slots and apply
 * the recorded projections, in call order. */
static void scatter_recorded(st_matrix *m)
{
    if (m->nnz)
        memset(m->values, 0, m->nnz * sizeof *m->values);
    size_t rec = 0; /* the calls' values are back to back, in call order */
    for (size_t i = 0; i < m->ncalls; i++) {
        const mcall *c = &m->calls[i];
        /* (NULL when no call so far had values: elements of no degree of freedom) */
        const double *r = m->recvals ? m->recvals + rec : NULL;
        int pr = m->point_at[c->row];
        if (c->kind == CALL_PROJECT) {
            apply_project(m, (size_t)pr, c->col);
            continue;
        }
        size_t stride = (size_t)(m->rowptr[c->row + 1] - m->rowptr[c->row]);
        double *v = m->values + m->slot[i];
        unsigned da = m->pdim[pr];
        if (c->kind == CALL_DIAG) {
            for (unsigned a = 0; a < da; a++)
                v[a * stride + a] += r[0];
            rec += 1;
        } else {
            unsigned db = m->pdim[m->point_at[c->col]];
            add_values(v, stride, r, da, db);
            rec += (size_t)da * db;
        }
    }
}

/* ---- assembly ---- */

/* Calls every component's matrix functions with SOFA's factors. */
static void run_components(st_matrix *m, st_system *sys, double mf, double bf, double kf)
{
    const st_mparams *mp = &sys->mp;
    st_mapgraph *g = st__system_mapgraph(sys);
    for (size_t i = 0; i < m->nmass; i++) {
        st_component *c = m->masses[i];
        if (!st__mapgraph_active(g, c))
            continue;
        const st_mass_ops *ops = c->cls->mass;
        double rm = HAS_OP(ops, st_mass_ops, rayleigh_mass) ? ops->rayleigh_mass(c) : 0.0;
        double f = mf - bf * rm;
        if (f != 0.0 && HAS_OP(ops, st_mass_ops, add_m_to_matrix)) {
            m->current = c;
            ops->add_m_to_matrix(c, mp, m, f);
        }
    }
    for (size_t i = 0; i < m->nff; i++) {
        st_component *c = m->ffs[i];
        const st_forcefield_ops *ops = c->cls->forcefield;
        if (!st__mapgraph_active(g, c))
            continue;
        double rs =
            HAS_OP(ops, st_forcefield_ops, rayleigh_stiffness) ? ops->rayleigh_stiffness(c) : 0.0;
        double k = kf + bf * rs;
        m->current = c;
        if (k != 0.0 && HAS_OP(ops, st_forcefield_ops, add_k_to_matrix))
            ops->add_k_to_matrix(c, mp, m, k);
        if (bf != 0.0 && HAS_OP(ops, st_forcefield_ops, add_b_to_matrix))
            ops->add_b_to_matrix(c, mp, m, bf);
    }
    /* Geometric stiffness of the non-linear mappings. */
    m->current = NULL;
    if (!m->single)
        st__mapgraph_add_k(g, m, kf);
    for (size_t i = 0; i < m->nproj; i++) {
        st_component *c = m->projs[i];
        const st_projective_ops *ops = c->cls->projective;
        if (HAS_OP(ops, st_projective_ops, apply_to_matrix)) {
            m->current = c;
            ops->apply_to_matrix(c, mp, m);
        }
    }
    m->current = NULL;
}

/* Asks every force field for the blocks it may ever write (ABI 2.2). */
static st_status reserve_blocks(st_matrix *m, st_system *sys)
{
    st_mapgraph *g = st__system_mapgraph(sys);
    m->nresv = 0;
    m->reserving = true;
    for (size_t i = 0; i < m->nff; i++) {
        st_component *c = m->ffs[i];
        const st_forcefield_ops *ops = c->cls->forcefield;
        if (!st__mapgraph_active(g, c) || !HAS_OP(ops, st_forcefield_ops, reserve_pattern))
            continue;
        m->current = c;
        ops->reserve_pattern(c, &sys->mp, m);
    }
    m->reserving = false;
    m->current = NULL;
    return ST_OK;
}

/* Room for the recorded calls plus one call per declared block, so that an
 * active set moving inside the declared blocks records without allocating. */
static bool reserve_capacity(st_matrix *m)
{
    size_t calls = m->ncalls + m->nresv;
    if (calls > m->capcalls) {
        mcall *c = st_realloc(m->calls, calls * sizeof *c);
        if (!c)
            return false;
        m->calls = c;
        m->capcalls = calls;
    }
    size_t vals = m->nrec + m->nresv * MAXB;
    if (vals > m->caprec) {
        double *r = st_realloc(m->recvals, vals * sizeof *r);
        if (!r)
            return false;
        m->recvals = r;
        m->caprec = vals;
    }
    return true;
}

static st_status assemble(st_matrix *m, st_system *sys, double mf, double bf, double kf,
                         st_error *err);

st_status st_matrix_assemble(st_matrix *m, st_system *sys, double mf, double bf, double kf,
                             st_error *err)
{
    double t0 = st_time_now();
    st_status st = assemble(m, sys, mf, bf, kf, err);
    if (sys)
        sys->time_assembly += st_time_now() - t0;
    return st;
}

static st_status assemble(st_matrix *m, st_system *sys, double mf, double bf, double kf,
                         st_error *err)
{
    if (!m || !sys || m->sys != sys)
        return st_error_set(err, ST_EINVAL, "st_matrix_assemble: matrix of another system");
    m->out_of_range = false;
    m->no_jacobian = false;
    ST_TRY(st__mapgraph_update(st__system_mapgraph(sys), err));
    if (m->recorded) {
        m->mode = MODE_REPLAY;
        m->cursor = 0;
        m->mismatch = false;
        memset(m->values, 0, m->nnz * sizeof *m->values);
        run_components(m, sys, mf, bf, kf);
        if (!m->mismatch && m->cursor == m->ncalls && !m->out_of_range)
            return ST_OK;
    }
    if (m->out_of_range)
        goto range;
    /* First assembly, or the call sequence changed: record it. */
    m->mode = MODE_RECORD;
    m->ncalls = 0;
    m->nrec = 0;
    m->failed = false;
    m->rebuilt = false;
    run_components(m, sys, mf, bf, kf);
    m->mode = MODE_REPLAY;
    if (m->out_of_range)
        goto range;
    if (m->failed)
        goto nomem;
    bool nomem_slots = false;
    if (!m->recorded || !compute_slots(m, &nomem_slots)) {
        if (nomem_slots)
            goto nomem;
        /* A block outside the pattern (or none yet): the declared blocks,
         * then a pattern holding them, the calls and the previous pattern. */
        ST_TRY(reserve_blocks(m, sys));
        if (m->out_of_range)
            goto range;
        if (m->failed || !reserve_capacity(m))
            goto nomem;
        ST_TRY(build_pattern(m, err));
        m->rebuilt = true;
    }
    scatter_recorded(m);
    return ST_OK;
nomem:
    free_pattern(m);
    return st_error_set(err, ST_ENOMEM, "out of memory recording the system matrix");
range: {
    char path[256] = "", spath[256] = "";
    if (m->offender)
        st_component_path(m->offender, path, sizeof path);
    if (m->bad_state)
        st_component_path(&m->bad_state->base, spath, sizeof spath);
    if (m->no_jacobian)
        st_error_set(err, ST_EINVAL,
                     "%s%svertex %zu of mapped state %s: the mapping writing this state (or one "
                     "above it) gives no Jacobian (get_j), so its matrix cannot be assembled",
                     path[0] ? path : "", path[0] ? ": " : "", m->bad_index,
                     spath[0] ? spath : "(none)");
    else
        st_error_set(err, ST_EINVAL,
                     "%s%svertex %zu of state %s is not one of the system's %zu independent "
                     "vertices",
                     path[0] ? path : "", path[0] ? ": " : "", m->bad_index,
                     spath[0] ? spath : "(none)", m->nb);
    if (path[0])
        st_error_set_path(err, path);
    return ST_EINVAL;
}
}

void st_matrix_csr(const st_matrix *m, st_csr *out)
{
    out->n = m->recorded ? m->n : 0;
    out->nnz = m->nnz;
    out->rowptr = m->rowptr;
    out->colind = m->colind;
    out->values = m->values;
    out->pattern_version = m->pattern_version;
}

void st_matrix_mul(const st_matrix *m, double *y, const double *x)
{
    if (!m->recorded) {
        memset(y, 0, m->n * sizeof *y);
        return;
    }
    const int *rp = m->rowptr, *ci = m->colind;
    const double *v = m->values;
    for (size_t i = 0; i < m->n; i++) {
        double s = 0.0;
        for (int k = rp[i]; k < rp[i + 1]; k++)
            s += v[k] * x[ci[k]];
        y[i] = s;
    }
}
