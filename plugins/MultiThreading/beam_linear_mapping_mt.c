/* beam_linear_mapping_mt.c - BeamLinearMapping_mt: BeamLinearMapping
 * (plugins/Mapping.Linear, compiled into this plugin) with apply, applyJ and
 * applyJT parallel over the mapped points, as SOFA's MultiThreading plugin
 * has it, plus SOFA's `granularity`: with at most 2 x granularity points the
 * sequential loops run.
 *
 * apply and applyJ compute each point on its own: the threads take fixed
 * ranges of points. applyJT adds each point's force and torque to the two
 * frames of its segment; a frame whose points all lie in one thread's range
 * gets them from that thread, in point order, and the others' values wait in
 * a per-point buffer and are added after, point by point (mt_adjacency,
 * with a frame's force and torque as two 3-vectors). Every frame therefore
 * receives the sequential loop's additions in its order: the results are
 * BeamLinearMapping's to the bit at any thread count. get_j (the assembled
 * J) stays sequential. The thread count is the scene's (TaskSchedulerSettings,
 * else `settee run --threads`, SETTEE_THREADS, else 1): SOFA's class uses its
 * main task scheduler and has no nbThreads of its own. */
#include <string.h>

#include "beam_linear_mapping.h"
#include "mt_pool.h"

typedef struct beam_mt_tail {
    unsigned granularity; /* "granularity" */
    mt_pool *pool;
    bool follows;
    mt_adjacency adj;
    unsigned *verts; /* n x 4: the 3-vectors 2j .. 2j + 3 of point i's frames j, j + 1 */
    double *g;       /* n x 12: buffered J^T values of points with shared frames */
    size_t n;        /* points verts and g are for (0: not built) */
    size_t nin;
    /* The current run. */
    beam_mapping *m;
    const double *in;
    double *out;
    int phase; /* 0 apply, 1 applyJ, 2 applyJT, 3 applyJT's shared frames */
} beam_mt_tail;

static beam_mt_tail *tail_of(st_component *self)
{
    return mt_tail(self, sizeof(beam_mt_tail));
}

static void run_part(void *ctx, unsigned part, unsigned nparts)
{
    beam_mt_tail *t = ctx;
    size_t b, e;
    if (t->phase == 3) {
        mt_range(t->adj.nshared, part, nparts, &b, &e);
        mt_adjacency_add_shared(&t->adj, t->out, t->g, 1, b, e);
        return;
    }
    mt_range(t->n, part, nparts, &b, &e);
    if (t->phase == 0) {
        beam_mapping_apply_range(t->m, t->in, t->out, b, e);
        return;
    }
    if (t->phase == 1) {
        beam_mapping_apply_j_range(t->m, t->in, t->out, b, e);
        return;
    }
    const unsigned *owner = t->adj.owner;
    for (size_t i = b; i < e; i++) {
        double g[12];
        beam_mapping_jt_point(t->m, i, t->in + 3 * i, g);
        for (unsigned k = 0; k < 4; k++) {
            const size_t slot = 4 * i + k;
            const unsigned v = t->verts[slot];
            if (owner[v] != part) {
                memcpy(t->g + 3 * slot, g + 3 * k, 3 * sizeof *g);
            } else {
                double *fv = t->out + 3 * (size_t)v;
                fv[0] += g[3 * k], fv[1] += g[3 * k + 1], fv[2] += g[3 * k + 2];
            }
        }
    }
}

/* The buffers and the adjacency for m's points; false (run the sequential
 * loops) with one thread, few points, or when they cannot be had. */
static bool ready(beam_mt_tail *t, st_component *self)
{
    if (t->follows && st_threads_default() != mt_pool_threads(t->pool)) {
        st_error err = {0};
        if (mt_pool_ensure(&t->pool, st_threads_default(), &err) != ST_OK)
            st_component_warn(self, "%s: running sequentially", err.msg);
    }
    beam_mapping *m = (beam_mapping *)self;
    const unsigned nparts = t->pool ? mt_pool_threads(t->pool) : 1;
    if (nparts < 2 || !beam_mapping_ready(m) || m->n <= 2 * (size_t)t->granularity)
        return false;
    if (t->n == m->n && t->nin == m->nin && t->adj.nparts == nparts)
        return true;
    st_free(t->verts);
    st_free(t->g);
    t->n = 0;
    t->verts = st_calloc(4 * m->n, sizeof *t->verts);
    t->g = st_calloc(12 * m->n, sizeof *t->g);
    if (!t->verts || !t->g)
        return false;
    const double zero[3] = {0, 0, 0};
    for (size_t i = 0; i < m->n; i++) {
        double g[12];
        const size_t j = beam_mapping_jt_point(m, i, zero, g);
        for (unsigned k = 0; k < 4; k++)
            t->verts[4 * i + k] = (unsigned)(2 * j + k);
    }
    st_error err = {0};
    if (mt_adjacency_update(&t->adj, t->verts, 4, m->n, 4, 2 * m->nin, nparts, &err) != ST_OK)
        return false;
    t->n = m->n;
    t->nin = m->nin;
    return true;
}

static const st_class *base_class(void) { return &beam_linear_mapping_class; }

static void mt_apply(st_component *self, const st_mparams *mp, double *x)
{
    beam_mt_tail *t = tail_of(self);
    beam_mapping *m = (beam_mapping *)self;
    double *xout = ready(t, self) ? map_head_xout(&m->h, x) : NULL;
    if (!xout) {
        base_class()->mapping->apply(self, mp, x);
        return;
    }
    t->m = m;
    t->in = st_slice_x(x, m->h.in);
    t->out = xout;
    t->phase = 0;
    mt_pool_run(t->pool, run_part, t);
    map_head_touch_visual(&m->h);
}

static void mt_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    beam_mt_tail *t = tail_of(self);
    beam_mapping *m = (beam_mapping *)self;
    if (!ready(t, self) || !beam_mapping_ready_mech(m)) {
        base_class()->mapping->apply_j(self, mp, v);
        return;
    }
    t->m = m;
    t->in = st_slice(v, m->h.in);
    t->out = st_slice(v, m->h.out);
    t->phase = 1;
    mt_pool_run(t->pool, run_part, t);
}

static void mt_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    beam_mt_tail *t = tail_of(self);
    beam_mapping *m = (beam_mapping *)self;
    if (!ready(t, self) || !beam_mapping_ready_mech(m)) {
        base_class()->mapping->apply_jt(self, mp, f);
        return;
    }
    t->m = m;
    t->in = st_slice(f, m->h.out);
    t->out = st_slice(f, m->h.in);
    t->phase = 2;
    mt_pool_run(t->pool, run_part, t);
    if (t->adj.nshared > 0) {
        t->phase = 3;
        mt_pool_run(t->pool, run_part, t);
    }
}

static st_status mt_init(st_component *self, st_error *err)
{
    beam_mt_tail *t = tail_of(self);
    ST_TRY(base_class()->init(self, err));
    const mt_user scene = {.nb_threads = 0, .scheduler_type = (char *)"_default"};
    unsigned n;
    ST_TRY(mt_thread_count(self, &scene, &n, &t->follows, err));
    ST_TRY(mt_pool_ensure(&t->pool, n, err));
    t->n = 0; /* the points may have changed: rebuilt now, so that steps allocate nothing */
    (void)ready(t, self);
    return ST_OK;
}

static void mt_cleanup(st_component *self)
{
    beam_mt_tail *t = tail_of(self);
    if (base_class()->cleanup)
        base_class()->cleanup(self);
    mt_pool_destroy(&t->pool);
    mt_adjacency_free(&t->adj);
    st_free(t->verts);
    st_free(t->g);
    t->verts = NULL;
    t->g = NULL;
    t->n = 0;
}

static const st_field tail_fields[] = {
    ST_UINT(beam_mt_tail, granularity, "granularity", "32",
            "minimum number of Beam points for task creation (with at most twice as many "
            "points, the sequential loops run)"),
    ST_FIELD_END};

enum { BEAM_MT_FIELDS = 48 };
static st_field fields[BEAM_MT_FIELDS];
static st_mapping_ops ops;
static st_class cls;

/* Called once per process (the plugin's pthread_once). */
const st_class *beam_linear_mapping_mt_class(void)
{
    if (!mt_twin_class(&cls, base_class(), "BeamLinearMapping_mt",
                       "BeamLinearMapping with apply, applyJ and applyJT parallel over the "
                       "points (the same values to the bit at any thread count)",
                       sizeof(beam_mt_tail), tail_fields, fields, BEAM_MT_FIELDS))
        return NULL;
    ops = *base_class()->mapping;
    ops.apply = mt_apply;
    ops.apply_j = mt_apply_j;
    ops.apply_jt = mt_apply_jt;
    cls.mapping = &ops;
    cls.init = mt_init;
    cls.reinit = mt_init;
    cls.cleanup = mt_cleanup;
    return &cls;
}
