/* mt_elements.c - the parallel element force fields: add_force and
 * add_dforce of a sequential class run on a pool of threads (mt_pool.h,
 * mt_elem_ops). Each thread computes the world-frame values of a fixed range
 * of elements, a chunk at a time, with the sequential class's own element
 * functions. A vertex whose elements all lie in the thread's range gets
 * them added at once, in element order; the values for the other (shared)
 * vertices go to a per-element buffer, and after all threads are done each
 * thread adds, for a fixed range of the shared vertices, their buffered
 * values in element order (mt_adjacency). Either way every vertex sees the
 * sequential loop's additions in its order, so the forces are the same to
 * the bit at any thread count. One thread runs the sequential class's
 * functions directly. */
#include <string.h>

#include "mt_pool.h"

/* The tail of a twin instance. */
typedef struct mt_elem_tail {
    mt_user u;
    const mt_elem_ops *ops;
    mt_pool *pool;
    mt_adjacency adj;
    double *g;           /* ne x 3 nv element values (shared vertices only), owned */
    size_t g_n;          /* elements g holds */
    double *chunks;      /* per part: MT_CHUNK x 3 nv values, owned */
    unsigned chunk_parts; /* parts chunks holds */
    /* The elements the adjacency was checked against. */
    const unsigned *everts; /* vertex k of element e at everts[e * estride + k] */
    size_t estride;
    unsigned long revision;
    bool checked;          /* false: compare at the next add_force */
    bool follows;          /* the thread count is settee's: checked at each add_force */
    /* The current run. */
    st_component *self;
    const double *in;    /* positions (add_force) or dx (add_dforce), the state's slice */
    const double *vel;   /* velocities (add_force), the state's slice */
    double *out;         /* f or df, the state's slice */
    double kfactor;
    size_t ne;
    size_t rows;         /* phase 4: block rows of the assembled stiffness */
    int phase;           /* 0 force, 1 dforce, 2 shared + (force), 3 shared - (dforce),
                            4 assembled dforce */
    bool add;            /* phase 0: the forces are added (mt_elem_ops.has_force) */
} mt_elem_tail;

enum { MT_CHUNK = 64 }; /* elements per call of the sequential range functions */

static mt_elem_tail *tail_of(st_component *self)
{
    return mt_tail(self, sizeof(mt_elem_tail));
}

/* The twins built so far, to find a class's ops. */
enum { MT_MAX_ELEM = 8, MT_MAX_FIELDS = 96 };
static struct {
    const mt_elem_ops *ops;
    st_class cls;
    st_forcefield_ops ff;
    st_field fields[MT_MAX_FIELDS];
} twins[MT_MAX_ELEM];
static size_t ntwins;

const mt_elem_ops *mt_elem_ops_of(const st_component *self)
{
    for (size_t i = 0; i < ntwins; i++)
        if (self->cls == &twins[i].cls)
            return twins[i].ops;
    return NULL;
}

/* Elements [b, e) of part `part`: their values, added at once to the
 * vertices this part owns, buffered for the shared ones. */
static void elements_part(mt_elem_tail *t, unsigned part, size_t b, size_t e)
{
    const unsigned nv = t->ops->nv;
    const size_t per = 3 * (size_t)nv;
    double *chunk = t->chunks + (size_t)part * MT_CHUNK * per;
    const unsigned *owner = t->adj.owner, *verts = t->adj.verts;
    double *f = t->out;
    for (size_t c = b; c < e; c += MT_CHUNK) {
        const size_t c2 = e - c > MT_CHUNK ? c + MT_CHUNK : e;
        if (t->phase == 0)
            t->ops->forces(t->self, t->in, t->vel, c, c2, chunk);
        else
            t->ops->dforces(t->self, t->in, t->kfactor, c, c2, chunk);
        if (t->phase == 0 && !t->add)
            continue;
        for (size_t i = c; i < c2; i++)
            for (unsigned k = 0; k < nv; k++) {
                const size_t slot = i * nv + k;
                const unsigned v = verts[slot];
                const double *gv = chunk + per * (i - c) + 3 * k;
                if (owner[v] != part) {
                    memcpy(t->g + 3 * slot, gv, 3 * sizeof *gv);
                } else if (t->phase == 0) {
                    double *fv = f + 3 * (size_t)v;
                    fv[0] += gv[0], fv[1] += gv[1], fv[2] += gv[2];
                } else {
                    double *fv = f + 3 * (size_t)v;
                    fv[0] -= gv[0], fv[1] -= gv[1], fv[2] -= gv[2];
                }
            }
    }
}

static void run_part(void *ctx, unsigned part, unsigned nparts)
{
    mt_elem_tail *t = ctx;
    size_t b, e;
    if (t->phase == 4) {
        mt_range(t->rows, part, nparts, &b, &e);
        t->ops->assembled_rows(t->self, t->out, t->in, t->kfactor, b, e);
    } else if (t->phase <= 1) {
        mt_range(t->ne, part, nparts, &b, &e);
        elements_part(t, part, b, e);
    } else {
        mt_range(t->adj.nshared, part, nparts, &b, &e);
        mt_adjacency_add_shared(&t->adj, t->out, t->g, t->phase == 2 ? 1 : -1, b, e);
    }
}

/* The buffers and the adjacency for the current elements; false (run the
 * sequential loop) with one thread or when they cannot be had. check: the
 * adjacency is compared with the elements (add_force); else it is the one
 * add_force checked (topological changes come between steps). */
static bool ready(mt_elem_tail *t, st_component *self, bool check)
{
    const unsigned nparts = mt_pool_threads(t->pool);
    if (nparts < 2)
        return false;
    const unsigned *verts;
    size_t stride, ne, np;
    t->ops->elements(self, &verts, &stride, &ne, &np);
    if (ne == 0)
        return false;
    const bool same = t->g && t->g_n == ne && t->adj.ne == ne && t->adj.np == np &&
                      t->adj.nparts == nparts && t->chunk_parts == nparts &&
                      t->everts == verts && t->estride == stride;
    if (!check)
        return same;
    const unsigned long rev = t->ops->revision ? t->ops->revision(self) : 0;
    if (same && t->checked && t->ops->revision && rev == t->revision)
        return true;
    t->checked = false;
    const size_t per = 3 * (size_t)t->ops->nv;
    if (t->g_n != ne) {
        st_free(t->g);
        t->g_n = 0;
        t->g = st_calloc(per * ne, sizeof *t->g);
        if (!t->g)
            return false;
        t->g_n = ne;
    }
    if (t->chunk_parts != nparts) {
        st_free(t->chunks);
        t->chunk_parts = 0;
        t->chunks = st_calloc((size_t)nparts * MT_CHUNK * per, sizeof *t->chunks);
        if (!t->chunks)
            return false;
        t->chunk_parts = nparts;
    }
    st_error err = {0};
    if (mt_adjacency_update(&t->adj, verts, stride, ne, t->ops->nv, np, nparts, &err) != ST_OK)
        return false;
    t->everts = verts;
    t->estride = stride;
    t->revision = rev;
    t->checked = true;
    return true;
}

static void elem_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    mt_elem_tail *t = tail_of(self);
    if (t->follows && st_threads_default() != mt_pool_threads(t->pool)) {
        /* TaskScheduler.init(n) changed settee's count between steps; a pool
         * that cannot be had leaves the sequential loop (pool NULL). */
        st_error err = {0};
        if (mt_pool_ensure(&t->pool, st_threads_default(), &err) != ST_OK)
            st_component_warn(self, "%s: running sequentially", err.msg);
    }
    if (!ready(t, self, true)) {
        t->ops->base->forcefield->add_force(self, mp, f, x, v);
        return;
    }
    const st_mstate *ms = t->ops->mstate(self);
    t->self = self;
    t->ne = t->g_n;
    t->in = st_slice_x(x, ms);
    t->vel = st_slice(v, ms);
    t->out = st_slice(f, ms);
    t->add = !t->ops->has_force || t->ops->has_force(self);
    t->phase = 0;
    mt_pool_run(t->pool, run_part, t);
    if (t->add && t->adj.nshared > 0) {
        t->phase = 2;
        mt_pool_run(t->pool, run_part, t);
    }
    if (t->ops->finish)
        t->ops->finish(self);
}

static void elem_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                            double kfactor, double bfactor)
{
    mt_elem_tail *t = tail_of(self);
    if (!ready(t, self, false)) {
        t->ops->base->forcefield->add_dforce(self, mp, df, dx, kfactor, bfactor);
        return;
    }
    const st_mstate *ms = t->ops->mstate(self);
    t->self = self;
    t->ne = t->g_n;
    t->in = st_slice(dx, ms); /* a derivative vector */
    t->out = st_slice(df, ms);
    t->kfactor = kfactor;
    t->rows = t->ops->assembled ? t->ops->assembled(self, mp, t->pool) : 0;
    if (t->rows) {
        t->phase = 4;
        mt_pool_run(t->pool, run_part, t);
        return;
    }
    t->phase = 1;
    mt_pool_run(t->pool, run_part, t);
    if (t->adj.nshared > 0) {
        t->phase = 3;
        mt_pool_run(t->pool, run_part, t);
    }
}

static st_status elem_init(st_component *self, st_error *err)
{
    mt_elem_tail *t = tail_of(self);
    t->ops = mt_elem_ops_of(self);
    t->checked = false; /* init rebuilds the elements */
    ST_TRY(t->ops->base->init(self, err));
    unsigned n;
    ST_TRY(mt_thread_count(self, &t->u, &n, &t->follows, err));
    ST_TRY(mt_pool_ensure(&t->pool, n, err));
    /* buffers and adjacency now, so that the steps allocate nothing (a
     * topological change rebuilds them at the next add_force) */
    (void)ready(t, self, true);
    return ST_OK;
}

static void elem_cleanup(st_component *self)
{
    mt_elem_tail *t = tail_of(self);
    const mt_elem_ops *ops = mt_elem_ops_of(self);
    if (ops->base->cleanup)
        ops->base->cleanup(self);
    mt_pool_destroy(&t->pool);
    mt_adjacency_free(&t->adj);
    st_free(t->g);
    st_free(t->chunks);
    t->g = t->chunks = NULL;
    t->g_n = 0;
    t->chunk_parts = 0;
}

static const st_field elem_fields[] = {MT_USER_FIELDS(mt_elem_tail, u), ST_FIELD_END};

/* Called once per process (the plugin's pthread_once). */
const st_class *mt_elem_class(const mt_elem_ops *ops)
{
    if (ntwins == MT_MAX_ELEM)
        return NULL;
    size_t i = ntwins;
    if (!mt_twin_class(&twins[i].cls, ops->base, ops->name, ops->description,
                       sizeof(mt_elem_tail), elem_fields, twins[i].fields, MT_MAX_FIELDS))
        return NULL;
    twins[i].ops = ops;
    twins[i].ff = *ops->base->forcefield;
    twins[i].ff.add_force = elem_add_force;
    twins[i].ff.add_dforce = elem_add_dforce;
    twins[i].cls.forcefield = &twins[i].ff;
    twins[i].cls.init = elem_init;
    twins[i].cls.reinit = elem_init;
    twins[i].cls.cleanup = elem_cleanup;
    ntwins++;
    return &twins[i].cls;
}
