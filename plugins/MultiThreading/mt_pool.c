/* mt_pool.c - the MultiThreading plugin's worker pool (pthreads), the
 * thread count of its components, parallel twin classes and per-vertex sums
 * in element order (mt_pool.h). Workers sleep on a condition variable
 * between runs: no spinning on a shared machine. */
#include "mt_pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mt_pool {
    unsigned n;               /* threads, the caller included */
    pthread_t *tid;           /* n - 1 workers */
    pthread_mutex_t lock;
    pthread_cond_t start, done;
    unsigned long generation; /* bumped by each run */
    unsigned pending;         /* workers still running the current run */
    bool stop;
    mt_task_fn fn;
    void *ctx;
    size_t started;           /* workers created */
};

typedef struct worker_arg {
    mt_pool *pool;
    unsigned part;
} worker_arg;

static void *worker_main(void *arg)
{
    worker_arg *w = arg;
    mt_pool *p = w->pool;
    const unsigned part = w->part;
    st_free(w);
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->start, &p->lock);
        if (p->stop)
            break;
        seen = p->generation;
        mt_task_fn fn = p->fn;
        void *ctx = p->ctx;
        pthread_mutex_unlock(&p->lock);
        fn(ctx, part, p->n);
        pthread_mutex_lock(&p->lock);
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

st_status mt_pool_create(unsigned nthreads, mt_pool **out, st_error *err)
{
    *out = NULL;
    if (nthreads < 1)
        nthreads = 1;
    mt_pool *p = st_calloc(1, sizeof *p);
    if (!p)
        return st_error_set(err, ST_ENOMEM, "out of memory (thread pool)");
    p->n = nthreads;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    if (nthreads > 1) {
        p->tid = st_calloc(nthreads - 1, sizeof *p->tid);
        if (!p->tid) {
            mt_pool_destroy(&p);
            return st_error_set(err, ST_ENOMEM, "out of memory (thread pool of %u)", nthreads);
        }
    }
    for (unsigned k = 1; k < nthreads; k++) {
        worker_arg *w = st_calloc(1, sizeof *w);
        if (!w) {
            mt_pool_destroy(&p);
            return st_error_set(err, ST_ENOMEM, "out of memory (thread pool of %u)", nthreads);
        }
        w->pool = p;
        w->part = k;
        int rc = pthread_create(&p->tid[k - 1], NULL, worker_main, w);
        if (rc != 0) {
            st_free(w);
            mt_pool_destroy(&p);
            return st_error_set(err, ST_ESTATE, "cannot start worker thread %u of %u: %s", k,
                                nthreads, strerror(rc));
        }
        p->started++;
    }
    *out = p;
    return ST_OK;
}

void mt_pool_destroy(mt_pool **pp)
{
    if (!pp || !*pp)
        return;
    mt_pool *p = *pp;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);
    for (size_t k = 0; k < p->started; k++)
        pthread_join(p->tid[k], NULL);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    st_free(p->tid);
    st_free(p);
    *pp = NULL;
}

unsigned mt_pool_threads(const mt_pool *p) { return p ? p->n : 1; }

void mt_pool_run(mt_pool *p, mt_task_fn fn, void *ctx)
{
    if (!p || p->n == 1) {
        fn(ctx, 0, 1);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->pending = p->n - 1;
    p->generation++;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);
    fn(ctx, 0, p->n);
    pthread_mutex_lock(&p->lock);
    while (p->pending > 0)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

/* ---- Thread counts ---- */

/* SOFA's task scheduler types; settee has one pool kind for them all. */
static bool known_scheduler(const char *t)
{
    return !t || !*t || !strcmp(t, "_default") || !strcmp(t, "default") ||
           !strcmp(t, "std");
}

st_status mt_thread_count(st_component *self, const mt_user *u, unsigned *out, bool *follows,
                          st_error *err)
{
    if (!known_scheduler(u->scheduler_type))
        return st_component_error(self, "taskSchedulerType", err, ST_ESCENE,
                                  "unknown task scheduler type '%s': expected _default or std",
                                  u->scheduler_type);
    *out = st_threads_for(self, u->nb_threads, follows);
    return ST_OK;
}

st_status mt_pool_ensure(mt_pool **pool, unsigned count, st_error *err)
{
    if (*pool && mt_pool_threads(*pool) == count)
        return ST_OK;
    mt_pool_destroy(pool);
    return mt_pool_create(count, pool, err);
}

/* ---- Parallel twins ---- */

bool mt_twin_class(st_class *out, const st_class *base, const char *name,
                   const char *description, size_t tail_size, const st_field *extra,
                   st_field *fields, size_t cap)
{
    const size_t off = mt_tail_offset(base->instance_size);
    size_t k = 0;
    for (const st_field *f = base->fields; f && f->name; f++) {
        if (k + 1 >= cap)
            return false;
        fields[k++] = *f;
    }
    for (const st_field *f = extra; f->name; f++) {
        if (k + 1 >= cap)
            return false;
        fields[k] = *f;
        fields[k++].offset += off;
    }
    memset(&fields[k], 0, sizeof fields[k]);
    *out = *base;
    out->name = name;
    out->description = description;
    out->aliases = NULL;
    out->instance_size = off + tail_size;
    out->fields = fields;
    return true;
}

/* ---- Per-vertex sums ---- */

void mt_adjacency_free(mt_adjacency *a)
{
    st_free(a->verts);
    st_free(a->start);
    st_free(a->slot);
    st_free(a->owner);
    st_free(a->shared);
    memset(a, 0, sizeof *a);
}

static bool adjacency_same(const mt_adjacency *a, const unsigned *verts, size_t stride, size_t ne,
                           unsigned nv, size_t np)
{
    if (!a->start || a->ne != ne || a->nv != nv || a->np != np)
        return false;
    for (size_t e = 0; e < ne; e++)
        for (unsigned k = 0; k < nv; k++)
            if (a->verts[e * nv + k] != verts[e * stride + k])
                return false;
    return true;
}

static st_status adjacency_build(mt_adjacency *a, const unsigned *verts, size_t stride, size_t ne,
                                 unsigned nv, size_t np, st_error *err)
{
    mt_adjacency_free(a);
    const size_t ns = ne * nv;
    a->verts = st_calloc(ns ? ns : 1, sizeof *a->verts);
    a->start = st_calloc(np + 1, sizeof *a->start);
    a->slot = st_calloc(ns ? ns : 1, sizeof *a->slot);
    if (!a->verts || !a->start || !a->slot) {
        mt_adjacency_free(a);
        return st_error_set(err, ST_ENOMEM, "out of memory (element adjacency of %zu vertices)",
                            np);
    }
    for (size_t e = 0; e < ne; e++)
        for (unsigned k = 0; k < nv; k++) {
            unsigned v = verts[e * stride + k];
            if (v >= np) {
                mt_adjacency_free(a);
                return st_error_set(err, ST_ESTATE,
                                    "element %zu names vertex %u, but the state has %zu", e, v,
                                    np);
            }
            a->verts[e * nv + k] = v;
            a->start[v + 1]++;
        }
    for (size_t v = 0; v < np; v++)
        a->start[v + 1] += a->start[v];
    /* slots in increasing order: the fill below walks them in order */
    size_t *next = st_calloc(np ? np : 1, sizeof *next);
    if (!next) {
        mt_adjacency_free(a);
        return st_error_set(err, ST_ENOMEM, "out of memory (element adjacency)");
    }
    memcpy(next, a->start, np * sizeof *next);
    for (size_t s = 0; s < ns; s++)
        a->slot[next[a->verts[s]]++] = (unsigned)s;
    st_free(next);
    a->ne = ne;
    a->nv = nv;
    a->np = np;
    return ST_OK;
}

/* The part of element e among nparts ranges of ne (mt_range). */
static unsigned part_of(size_t e, size_t ne, unsigned nparts)
{
    unsigned k = (unsigned)(e * nparts / ne);
    size_t b, end;
    for (;;) { /* the guess is off by at most one */
        mt_range(ne, k, nparts, &b, &end);
        if (e < b)
            k--;
        else if (e >= end)
            k++;
        else
            return k;
    }
}

static st_status adjacency_partition(mt_adjacency *a, unsigned nparts, st_error *err)
{
    st_free(a->owner);
    st_free(a->shared);
    a->shared = NULL;
    a->nshared = 0;
    a->nparts = 0;
    a->owner = st_calloc(a->np ? a->np : 1, sizeof *a->owner);
    if (!a->owner)
        return st_error_set(err, ST_ENOMEM, "out of memory (vertex owners)");
    size_t nshared = 0;
    for (size_t v = 0; v < a->np; v++) {
        const size_t s0 = a->start[v], s1 = a->start[v + 1];
        if (s0 == s1) {
            a->owner[v] = 0; /* no element: nothing is added to it */
            continue;
        }
        unsigned p0 = part_of(a->slot[s0] / a->nv, a->ne, nparts);
        unsigned p1 = part_of(a->slot[s1 - 1] / a->nv, a->ne, nparts);
        a->owner[v] = p0 == p1 ? p0 : MT_SHARED;
        nshared += p0 != p1;
    }
    a->shared = st_calloc(nshared ? nshared : 1, sizeof *a->shared);
    if (!a->shared)
        return st_error_set(err, ST_ENOMEM, "out of memory (shared vertices)");
    for (size_t v = 0; v < a->np; v++)
        if (a->owner[v] == MT_SHARED)
            a->shared[a->nshared++] = (unsigned)v;
    a->nparts = nparts;
    return ST_OK;
}

st_status mt_adjacency_update(mt_adjacency *a, const unsigned *verts, size_t stride, size_t ne,
                              unsigned nv, size_t np, unsigned nparts, st_error *err)
{
    if (!adjacency_same(a, verts, stride, ne, nv, np))
        ST_TRY(adjacency_build(a, verts, stride, ne, nv, np, err));
    if (a->nparts != nparts) {
        st_status s = adjacency_partition(a, nparts, err);
        if (s != ST_OK) {
            mt_adjacency_free(a);
            return s;
        }
    }
    return ST_OK;
}

void mt_adjacency_add_shared(const mt_adjacency *a, double *f, const double *g, int sign,
                             size_t begin, size_t end)
{
    for (size_t k = begin; k < end; k++) {
        const size_t v = a->shared[k];
        double *fv = f + 3 * v;
        double x = fv[0], y = fv[1], z = fv[2];
        const unsigned *s = a->slot + a->start[v], *s_end = a->slot + a->start[v + 1];
        if (sign > 0)
            for (; s < s_end; s++) {
                const double *gs = g + 3 * (size_t)*s;
                x += gs[0], y += gs[1], z += gs[2];
            }
        else
            for (; s < s_end; s++) {
                const double *gs = g + 3 * (size_t)*s;
                x -= gs[0], y -= gs[1], z -= gs[2];
            }
        fv[0] = x, fv[1] = y, fv[2] = z;
    }
}
