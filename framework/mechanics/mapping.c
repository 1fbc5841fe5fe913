/* mapping.c - the mechanical mappings of a system as a graph: each
 * mapping's Jacobian (recorded through st_jbuilder, pattern fixed after the
 * first call), the total Jacobian T of each mapped state with respect to
 * the independent states (products of the mappings' Jacobians along the
 * chain), SOFA's mapForces switch per state, and the projection of matrix
 * blocks written on mapped states into the independent states' matrix
 * (T_a^T K T_b). It, system.c and matrix.c call each other by design
 * (mechanics.h says why).
 *
 * Everything is allocated when the graph is created or when a mapping's
 * Jacobian changes pattern; updating values allocates nothing. */
#include <string.h>

#include "mechanics/mechanics.h"

#define MAXD 6
#define MAXB (MAXD * MAXD)

/* One block of a Jacobian: output point i, point j of state s (index in
 * sys->states). */
typedef struct jkey {
    unsigned i, s, j;
} jkey;

/* A mapping's Jacobian, blocks in call order (MAXB values each). */
typedef struct mapjac {
    st_component *map;
    unsigned out;        /* index of the output state */
    bool has_j;          /* the mapping implements get_j */
    jkey *keys;
    double *vals;
    size_t n, cap;
    bool recorded;
} mapjac;

/* A block of a total Jacobian: point p of independent state s. */
typedef struct tkey {
    unsigned s, p;
} tkey;

/* One term of a total Jacobian's values: vals[dst] += J[jb] (direct, src
 * < 0) or J[jb] * T_in[src] (through the input's total Jacobian). */
typedef struct tterm {
    unsigned dst, jb;
    long src;
} tterm;

/* Total Jacobian of a mapped state: rows by output point. */
typedef struct ttotal {
    size_t *rowptr;      /* n + 1 */
    tkey *keys;
    double *vals;        /* MAXB per block */
    size_t nblocks;
    tterm *terms;
    size_t nterms;
    bool valid;          /* every mapping on the chain has a Jacobian */
} ttotal;

struct st_mapgraph {
    st_system *sys;
    size_t nmaps;
    mapjac *mj;          /* nmaps */
    long *map_of;        /* per state: the mapping writing it, or -1 */
    unsigned *flags;     /* per state: effective ST_MAP_* (independent: all) */
    ttotal *t;           /* per state (independent ones unused) */
    bool patterns_ok;    /* total patterns built for the current Jacobian patterns */
};

struct st_jbuilder {
    st_mapgraph *g;
    mapjac *mj;
    size_t cursor;
    bool record, mismatch, failed;
    bool nomem; /* failed because an allocation failed */
};

static unsigned dsz(const st_system *sys, unsigned s) { return sys->states[s]->type->deriv_size; }

static long state_index(const st_system *sys, const st_mstate *ms)
{
    if (!ms)
        return -1;
    for (size_t k = 0; k < sys->nstates; k++)
        if (sys->states[k] == ms)
            return (long)k;
    return -1;
}

size_t st__mapping_inputs(const st_component *map, st_mstate **out, size_t max)
{
    const st_mapping_ops *ops = map->cls->mapping;
    if (HAS_MOP(ops, inputs))
        return ops->inputs(map, out, max);
    st_mstate *in = ops->input ? ops->input(map) : NULL;
    if (in && max)
        out[0] = in;
    return in ? 1 : 0;
}

static unsigned map_flags(const st_component *c)
{
    const st_mapping_ops *ops = c->cls->mapping;
    return HAS_MOP(ops, flags) ? ops->flags(c) : ST_MAP_ALL;
}

st_status st__mapgraph_create(st_system *sys, st_component *const *maps, size_t nmaps,
                              st_mapgraph **out, st_error *err)
{
    *out = NULL;
    st_mapgraph *g = st_calloc(1, sizeof *g);
    if (!g)
        return st_error_set(err, ST_ENOMEM, "out of memory creating the mapping graph");
    g->sys = sys;
    g->nmaps = nmaps;
    size_t ns = sys->nstates ? sys->nstates : 1;
    g->mj = st_calloc(nmaps ? nmaps : 1, sizeof *g->mj);
    g->map_of = st_malloc(ns * sizeof *g->map_of);
    g->flags = st_malloc(ns * sizeof *g->flags);
    g->t = st_calloc(ns, sizeof *g->t);
    if (!g->mj || !g->map_of || !g->flags || !g->t) {
        st__mapgraph_destroy(&g);
        return st_error_set(err, ST_ENOMEM, "out of memory creating the mapping graph");
    }
    for (size_t k = 0; k < sys->nstates; k++) {
        g->map_of[k] = -1;
        g->flags[k] = ST_MAP_ALL;
    }
    /* Scene order: a mapping's input is written before its output. */
    for (size_t m = 0; m < nmaps; m++) {
        st_component *c = maps[m];
        const st_mapping_ops *ops = c->cls->mapping;
        mapjac *mj = &g->mj[m];
        mj->map = c;
        long o = state_index(sys, ops->output ? ops->output(c) : NULL);
        mj->out = o < 0 ? (unsigned)-1 : (unsigned)o;
        mj->has_j = HAS_MOP(ops, get_j);
        if (o < 0)
            continue;
        g->map_of[o] = (long)m;
        st_mstate *ins[ST_MAP_MAX_INPUTS];
        size_t nin = st__mapping_inputs(c, ins, ST_MAP_MAX_INPUTS);
        g->flags[o] = map_flags(c);
        for (size_t k = 0; k < nin && k < ST_MAP_MAX_INPUTS; k++) {
            long in = state_index(sys, ins[k]);
            if (in >= 0)
                g->flags[o] &= g->flags[in];
        }
    }
    *out = g;
    return ST_OK;
}

void st__mapgraph_destroy(st_mapgraph **pg)
{
    if (!pg || !*pg)
        return;
    st_mapgraph *g = *pg;
    for (size_t m = 0; g->mj && m < g->nmaps; m++) {
        st_free(g->mj[m].keys);
        st_free(g->mj[m].vals);
    }
    for (size_t k = 0; g->t && k < g->sys->nstates; k++) {
        st_free(g->t[k].rowptr);
        st_free(g->t[k].keys);
        st_free(g->t[k].vals);
        st_free(g->t[k].terms);
    }
    st_free(g->mj);
    st_free(g->map_of);
    st_free(g->flags);
    st_free(g->t);
    st_free(g);
    *pg = NULL;
}

bool st__mapgraph_active(const st_mapgraph *g, const st_component *c)
{
    if (!g)
        return true;
    const st_mstate *ms = st_component_mstate(c);
    if (!ms || !ms->mapped)
        return true;
    long k = state_index(g->sys, ms);
    return k < 0 || (g->flags[k] & ST_MAP_FORCES);
}

bool st__mapgraph_maps_forces(const st_mapgraph *g, const st_component *map)
{
    if (!g)
        return true;
    for (size_t m = 0; m < g->nmaps; m++)
        if (g->mj[m].map == map)
            return g->mj[m].out == (unsigned)-1 || (g->flags[g->mj[m].out] & ST_MAP_FORCES);
    return true;
}

/* ---- the Jacobian builder ---- */

static void jb_put(st_jbuilder *jb, size_t i, const st_mstate *in, size_t j, const double *blk,
                   double w)
{
    if (jb->failed || jb->mismatch)
        return;
    st_mapgraph *g = jb->g;
    mapjac *mj = jb->mj;
    long s = state_index(g->sys, in);
    const st_mstate *out = g->sys->states[mj->out];
    if (s < 0 || j >= in->n || i >= out->n) {
        jb->failed = true;
        return;
    }
    unsigned dout = out->type->deriv_size, din = in->type->deriv_size;
    double tmp[MAXB];
    if (!blk) {
        memset(tmp, 0, sizeof tmp);
        for (unsigned a = 0; a < dout && a < din && a < 3; a++)
            tmp[a * din + a] = w;
        if (dout == din)
            for (unsigned a = 3; a < dout; a++)
                tmp[a * din + a] = w;
        blk = tmp;
    }
    jkey key = {(unsigned)i, (unsigned)s, (unsigned)j};
    if (!jb->record) {
        if (jb->cursor >= mj->n || memcmp(&mj->keys[jb->cursor], &key, sizeof key) != 0) {
            jb->mismatch = true;
            return;
        }
    } else if (jb->cursor == mj->cap) {
        size_t cap = mj->cap ? 2 * mj->cap : 64;
        jkey *k = st_realloc(mj->keys, cap * sizeof *k);
        if (!k) {
            jb->failed = jb->nomem = true;
            return;
        }
        mj->keys = k;
        double *v = st_realloc(mj->vals, cap * MAXB * sizeof *v);
        if (!v) {
            jb->failed = jb->nomem = true;
            return;
        }
        mj->vals = v;
        mj->cap = cap;
    }
    if (jb->record)
        mj->keys[jb->cursor] = key;
    memcpy(mj->vals + MAXB * jb->cursor, blk, dout * din * sizeof(double));
    jb->cursor++;
}

void st_jbuilder_add(st_jbuilder *jb, size_t i, const st_mstate *in, size_t j, const double *block)
{
    if (jb && block)
        jb_put(jb, i, in, j, block, 0.0);
}

void st_jbuilder_add_diag(st_jbuilder *jb, size_t i, const st_mstate *in, size_t j, double w)
{
    if (jb)
        jb_put(jb, i, in, j, NULL, w);
}

/* Runs a mapping's get_j: replay into the recorded pattern, or record anew
 * when the calls differ. *changed tells that the pattern was rebuilt. */
static st_status update_one(st_mapgraph *g, mapjac *mj, bool *changed, st_error *err)
{
    st_component *c = mj->map;
    st_jbuilder jb = {g, mj, 0, !mj->recorded, false, false, false};
    c->cls->mapping->get_j(c, &g->sys->mp, &jb);
    if (!jb.record && !jb.mismatch && !jb.failed && jb.cursor == mj->n)
        return ST_OK;
    if (!jb.record && !jb.failed) {
        jb = (st_jbuilder){g, mj, 0, true, false, false, false};
        c->cls->mapping->get_j(c, &g->sys->mp, &jb);
    }
    if (jb.failed) {
        mj->recorded = false;
        if (jb.nomem)
            return st_component_error(c, NULL, err, ST_ENOMEM,
                                      "out of memory recording the mapping's Jacobian");
        return st_component_error(c, NULL, err, ST_EINVAL,
                                  "the mapping's Jacobian names a point outside its states, or "
                                  "memory ran out recording it");
    }
    mj->n = jb.cursor;
    mj->recorded = true;
    *changed = true;
    return ST_OK;
}

/* ---- total Jacobians ---- */

/* Index of key (s, p) in row [b, e) of t, or -1. */
static long find_key(const ttotal *t, size_t b, size_t e, unsigned s, unsigned p)
{
    for (size_t k = b; k < e; k++)
        if (t->keys[k].s == s && t->keys[k].p == p)
            return (long)k;
    return -1;
}

typedef struct growbuf {
    void *p;
    size_t n, cap, size;
} growbuf;

static void *grow(growbuf *b)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        void *p = st_realloc(b->p, cap * b->size);
        if (!p)
            return NULL;
        b->p = p;
        b->cap = cap;
    }
    return (char *)b->p + b->size * b->n++;
}

/* Builds the pattern and the terms of the total Jacobian of state o,
 * written by mapping mj; the inputs' totals exist already. */
static st_status build_total(st_mapgraph *g, mapjac *mj, st_error *err)
{
    st_system *sys = g->sys;
    ttotal *t = &g->t[mj->out];
    st_free(t->rowptr);
    st_free(t->keys);
    st_free(t->vals);
    st_free(t->terms);
    memset(t, 0, sizeof *t);
    const st_mstate *out = sys->states[mj->out];
    t->valid = mj->has_j && mj->recorded;
    for (size_t k = 0; k < mj->n && t->valid; k++)
        if (mj->keys[k].s >= sys->nindep && !g->t[mj->keys[k].s].valid)
            t->valid = false;
    if (!t->valid)
        return ST_OK;
    size_t n = out->n;
    t->rowptr = st_calloc(n + 1, sizeof *t->rowptr);
    /* Blocks of J by output row (counting sort of the call order). */
    size_t *rp = st_calloc(n + 1, sizeof *rp), *order = st_malloc((mj->n ? mj->n : 1) * sizeof *order);
    growbuf keys = {NULL, 0, 0, sizeof(tkey)}, terms = {NULL, 0, 0, sizeof(tterm)};
    if (!t->rowptr || !rp || !order)
        goto nomem;
    for (size_t k = 0; k < mj->n; k++)
        rp[mj->keys[k].i + 1]++;
    for (size_t i = 0; i < n; i++)
        rp[i + 1] += rp[i];
    {
        size_t *fill = st_malloc((n + 1) * sizeof *fill);
        if (!fill)
            goto nomem;
        memcpy(fill, rp, (n + 1) * sizeof *fill);
        for (size_t k = 0; k < mj->n; k++)
            order[fill[mj->keys[k].i]++] = k;
        st_free(fill);
    }
    for (size_t i = 0; i < n; i++) {
        size_t b = keys.n;
        for (size_t q = rp[i]; q < rp[i + 1]; q++) {
            size_t k = order[q];
            const jkey *jk = &mj->keys[k];
            const ttotal *ti = jk->s < sys->nindep ? NULL : &g->t[jk->s];
            size_t sb = ti ? ti->rowptr[jk->j] : 0, se = ti ? ti->rowptr[jk->j + 1] : 1;
            for (size_t r = sb; r < se; r++) {
                tkey key = ti ? ti->keys[r] : (tkey){jk->s, jk->j};
                t->keys = keys.p;
                long dst = find_key(t, b, keys.n, key.s, key.p);
                if (dst < 0) {
                    tkey *nk = grow(&keys);
                    if (!nk)
                        goto nomem;
                    *nk = key;
                    dst = (long)(keys.n - 1);
                }
                tterm *tt = grow(&terms);
                if (!tt)
                    goto nomem;
                *tt = (tterm){(unsigned)dst, (unsigned)k, ti ? (long)r : -1};
            }
        }
        t->rowptr[i + 1] = keys.n;
    }
    t->keys = keys.p;
    t->nblocks = keys.n;
    t->terms = terms.p;
    t->nterms = terms.n;
    t->vals = st_malloc((t->nblocks ? t->nblocks : 1) * MAXB * sizeof *t->vals);
    st_free(rp);
    st_free(order);
    if (!t->vals)
        return st_error_set(err, ST_ENOMEM, "out of memory building a mapped state's Jacobian");
    return ST_OK;
nomem:
    st_free(rp);
    st_free(order);
    st_free(keys.p);
    st_free(terms.p);
    t->keys = NULL;
    t->valid = false;
    return st_error_set(err, ST_ENOMEM, "out of memory building a mapped state's Jacobian");
}

/* Values of a total Jacobian from its terms. */
static void eval_total(st_mapgraph *g, mapjac *mj)
{
    st_system *sys = g->sys;
    ttotal *t = &g->t[mj->out];
    unsigned dout = dsz(sys, mj->out);
    memset(t->vals, 0, t->nblocks * MAXB * sizeof *t->vals);
    for (size_t k = 0; k < t->nterms; k++) {
        const tterm *tt = &t->terms[k];
        const jkey *jk = &mj->keys[tt->jb];
        const double *J = mj->vals + MAXB * tt->jb;
        double *dst = t->vals + MAXB * tt->dst;
        unsigned dmid = dsz(sys, jk->s);
        if (tt->src < 0) {
            for (unsigned a = 0; a < dout * dmid; a++)
                dst[a] += J[a];
            continue;
        }
        const ttotal *ti = &g->t[jk->s];
        const double *B = ti->vals + MAXB * tt->src;
        unsigned dt = dsz(sys, ti->keys[tt->src].s);
        for (unsigned a = 0; a < dout; a++)
            for (unsigned c = 0; c < dt; c++) {
                double s = 0.0;
                for (unsigned b = 0; b < dmid; b++)
                    s += J[a * dmid + b] * B[b * dt + c];
                dst[a * dt + c] += s;
            }
    }
}

st_status st__mapgraph_update(st_mapgraph *g, st_error *err)
{
    if (!g)
        return ST_OK;
    bool changed = !g->patterns_ok;
    for (size_t m = 0; m < g->nmaps; m++) {
        mapjac *mj = &g->mj[m];
        if (mj->out == (unsigned)-1 || !mj->has_j)
            continue;
        ST_TRY(update_one(g, mj, &changed, err));
    }
    for (size_t m = 0; m < g->nmaps; m++) {
        mapjac *mj = &g->mj[m];
        if (mj->out == (unsigned)-1)
            continue;
        if (changed)
            ST_TRY(build_total(g, mj, err));
        if (g->t[mj->out].valid)
            eval_total(g, mj);
    }
    g->patterns_ok = true;
    return ST_OK;
}

/* Row i of state k's total Jacobian: keys and values; an independent
 * state's row is the identity (one block, values NULL). */
static bool total_row(const st_mapgraph *g, unsigned k, size_t i, const tkey **keys,
                      const double **vals, size_t *n, tkey *self)
{
    if (k < g->sys->nindep) {
        *self = (tkey){k, (unsigned)i};
        *keys = self;
        *vals = NULL;
        *n = 1;
        return true;
    }
    const ttotal *t = &g->t[k];
    if (!t->valid || i >= g->sys->states[k]->n)
        return false;
    *keys = t->keys + t->rowptr[i];
    *vals = t->vals + MAXB * t->rowptr[i];
    *n = t->rowptr[i + 1] - t->rowptr[i];
    return true;
}

bool st__mapgraph_add_block(st_mapgraph *g, st_matrix *m, const st_mstate *a, size_t i,
                            const st_mstate *b, size_t j, const double *blk)
{
    st_system *sys = g ? g->sys : NULL;
    long ka = sys ? state_index(sys, a) : -1, kb = sys ? state_index(sys, b) : -1;
    if (ka < 0 || kb < 0)
        return false;
    const tkey *ra, *rb;
    const double *va, *vb;
    size_t na, nb;
    tkey sa, sb;
    if (!total_row(g, (unsigned)ka, i, &ra, &va, &na, &sa) ||
        !total_row(g, (unsigned)kb, j, &rb, &vb, &nb, &sb))
        return false;
    unsigned da = a->type->deriv_size, db = b->type->deriv_size;
    double left[MAXB], out[MAXB];
    for (size_t x = 0; x < na; x++) {
        unsigned ds = dsz(sys, ra[x].s);
        const double *A = va ? va + MAXB * x : NULL;
        /* left = A^T K (ds x db) */
        for (unsigned r = 0; r < ds; r++)
            for (unsigned c = 0; c < db; c++) {
                double s = 0.0;
                if (A) {
                    for (unsigned q = 0; q < da; q++)
                        s += A[q * ds + r] * blk[q * db + c];
                } else {
                    s = blk[r * db + c];
                }
                left[r * db + c] = s;
            }
        for (size_t y = 0; y < nb; y++) {
            unsigned dt = dsz(sys, rb[y].s);
            const double *B = vb ? vb + MAXB * y : NULL;
            const double *res = left;
            if (B) {
                for (unsigned r = 0; r < ds; r++)
                    for (unsigned c = 0; c < dt; c++) {
                        double s = 0.0;
                        for (unsigned q = 0; q < db; q++)
                            s += left[r * db + q] * B[q * dt + c];
                        out[r * dt + c] = s;
                    }
                res = out;
            }
            st_matrix_add_block(m, sys->states[ra[x].s], ra[x].p, sys->states[rb[y].s], rb[y].p,
                                res);
        }
    }
    return true;
}

void st__mapgraph_add_k(st_mapgraph *g, st_matrix *m, double kf)
{
    if (!g || kf == 0.0)
        return;
    for (size_t k = 0; k < g->nmaps; k++) {
        st_component *c = g->mj[k].map;
        const st_mapping_ops *ops = c->cls->mapping;
        if (HAS_MOP(ops, get_k) && st__mapgraph_maps_forces(g, c))
            ops->get_k(c, &g->sys->mp, m, kf);
    }
}

st_status st__mapgraph_dense_j(st_system *sys, const st_component *map, double *J, size_t rows,
                               size_t cols, st_error *err)
{
    st_mapgraph *g = st__system_mapgraph(sys);
    if (!g)
        return st_error_set(err, ST_EINVAL, "the system has no mapping");
    ST_TRY(st__mapgraph_update(g, err));
    for (size_t m = 0; m < g->nmaps; m++) {
        const mapjac *mj = &g->mj[m];
        if (mj->map != map)
            continue;
        if (!mj->has_j || mj->out == (unsigned)-1)
            return st_error_set(err, ST_EINVAL, "the mapping gives no Jacobian");
        unsigned dout = dsz(sys, mj->out);
        memset(J, 0, rows * cols * sizeof *J);
        for (size_t k = 0; k < mj->n; k++) {
            const jkey *jk = &mj->keys[k];
            const st_mstate *in = sys->states[jk->s];
            unsigned din = in->type->deriv_size;
            for (unsigned a = 0; a < dout; a++)
                for (unsigned b = 0; b < din; b++) {
                    size_t r = (size_t)dout * jk->i + a, c = in->doffset + (size_t)din * jk->j + b;
                    if (r < rows && c < cols)
                        J[r * cols + c] += mj->vals[MAXB * k + a * din + b];
                }
        }
        return ST_OK;
    }
    return st_error_set(err, ST_EINVAL, "the mapping is not in the system");
}
