/* mt_pool.h - the MultiThreading plugin's worker pool and what its
 * components share: a fixed team of threads that runs one function over
 * fixed parts of a range, the thread count of a component (TaskSchedulerUser
 * fields, TaskSchedulerSettings, settee's --threads), the class of a parallel
 * twin built from its sequential class, and the per-vertex sums of
 * per-element values in element order. Internal to the plugin. */
#ifndef SETTEE_PLUGIN_MT_POOL_H
#define SETTEE_PLUGIN_MT_POOL_H

#include <stddef.h>

#include <settee/settee.h>

typedef struct mt_pool mt_pool;

/* One part of a parallel run: part in [0, nparts). */
typedef void (*mt_task_fn)(void *ctx, unsigned part, unsigned nparts);

/* A team of nthreads (>= 1): nthreads - 1 workers plus the calling thread.
 * *out is owned by the caller (mt_pool_destroy). Errors: ST_ENOMEM, or
 * ST_ESTATE when a thread cannot be started (with the system's reason). */
st_status mt_pool_create(unsigned nthreads, mt_pool **out, st_error *err) ST_WARN_UNUSED;
/* Stops and joins the workers; accepts NULL and clears *p. */
void mt_pool_destroy(mt_pool **p);
unsigned mt_pool_threads(const mt_pool *p);
/* Runs fn(ctx, part, n) for every part of the team, part 0 on the calling
 * thread, and returns when all are done. Part k always goes to the same
 * thread; a pool of one thread calls fn(ctx, 0, 1) directly. */
void mt_pool_run(mt_pool *p, mt_task_fn fn, void *ctx);
/* mt_pool_run with the pool as void * (fem.h's fem_bsr_pool). */
static inline void mt_pool_run_any(void *p, mt_task_fn fn, void *ctx) { mt_pool_run(p, fn, ctx); }

/* Part `part` of nparts of [0, n): [*begin, *end), contiguous, in order. */
static inline void mt_range(size_t n, unsigned part, unsigned nparts, size_t *begin, size_t *end)
{
    *begin = n * part / nparts;
    *end = n * (part + 1) / nparts;
}

/* ---- Thread counts (SOFA's TaskSchedulerUser) ---- */

/* The fields every parallel component has, after its twin's. */
typedef struct mt_user {
    int nb_threads;          /* "nbThreads": 0 settee's --threads, n > 0 n, -n cores - n */
    char *scheduler_type;    /* "taskSchedulerType" */
} mt_user;

/* The TaskSchedulerSettings instance. */
typedef struct mt_settings {
    st_component base;
    mt_user u;
} mt_settings;

/* The fields of mt_user in the instance struct S (member `member`). */
#define MT_USER_FIELDS(S, member)                                                                 \
    ST_INT(S, member.nb_threads, "nbThreads", "0",                                                \
           "Threads of the task scheduler: n > 0 that many, -n the cores minus n, 0 settee's "   \
           "count (`settee run --threads N` or SETTEE_THREADS, else 1; SOFA: all cores). A "     \
           "TaskSchedulerSettings of the scene with nbThreads != 0 decides for every parallel "  \
           "component"),                                                                          \
        ST_STRING(S, member.scheduler_type, "taskSchedulerType", "_default",                      \
                  "Type of task scheduler to use (_default or std: settee's pool of threads "    \
                  "that sleep between runs)")

/* The thread count of component self with the fields u: a
 * TaskSchedulerSettings of the scene with nbThreads != 0 first, then the
 * component's own nbThreads != 0, then settee's (`settee run --threads N`,
 * SETTEE_THREADS), then 1. An unknown taskSchedulerType is an error.
 * *follows (when not NULL): true when the count is settee's, which may
 * change while the scene runs (SofaPython3's TaskScheduler.init(n) sets
 * SETTEE_THREADS, as SOFA's re-initialises its main task scheduler). */
st_status mt_thread_count(st_component *self, const mt_user *u, unsigned *out, bool *follows,
                          st_error *err) ST_WARN_UNUSED;
/* Creates, keeps or re-creates *pool for count threads. */
st_status mt_pool_ensure(mt_pool **pool, unsigned count, st_error *err) ST_WARN_UNUSED;

/* ---- Parallel twins ---- */

/* A twin's instance is its sequential class's instance, then (at
 * mt_tail_offset of the base size) the twin's own tail struct. */
#define MT_TAIL_ALIGN 16
static inline size_t mt_tail_offset(size_t base_size)
{
    return (base_size + MT_TAIL_ALIGN - 1) / MT_TAIL_ALIGN * MT_TAIL_ALIGN;
}
/* The tail (of tail_size bytes) of a twin instance. */
static inline void *mt_tail(st_component *self, size_t tail_size)
{
    return (char *)self + self->cls->instance_size - tail_size;
}

/* Makes *out the class of a parallel twin of base: base's class with the
 * given name and description, an instance of base's plus a tail of
 * tail_size bytes, and base's fields followed by extra (ST_FIELD_END-
 * terminated, offsets within the tail). fields is storage for the joined
 * table (cap entries); false when it does not fit. The caller then
 * replaces the callbacks it needs. */
bool mt_twin_class(st_class *out, const st_class *base, const char *name,
                   const char *description, size_t tail_size, const st_field *extra,
                   st_field *fields, size_t cap);

/* ---- Element force fields ---- */

/* What a parallel element force field needs of its sequential class (the
 * functions of its element loops over a range, tetrahedron_fem.h). */
typedef struct mt_elem_ops {
    const st_class *base;
    const char *name, *description;
    unsigned nv; /* vertices per element */
    /* The current elements: vertex k of element e at verts[e * stride + k]
     * (stride in unsigned), ne of them, on a state of np points. */
    void (*elements)(st_component *self, const unsigned **verts, size_t *stride, size_t *ne,
                     size_t *np);
    st_mstate *(*mstate)(st_component *self);
    /* The revision of the topology the elements follow (st_topology_revision):
     * while it, the element count and the array stay the same, the vertices
     * are not compared with the adjacency's again. NULL: compared at each
     * add_force. */
    unsigned long (*revision)(st_component *self);
    bool (*has_force)(st_component *self); /* NULL: always */
    void (*forces)(st_component *self, const double *p, const double *v, size_t b, size_t e,
                   double *g);
    void (*dforces)(st_component *self, const double *d, double kfactor, size_t b, size_t e,
                    double *g);
    void (*finish)(st_component *self); /* after add_force's loop, or NULL */
    /* Optional: the block rows of the assembled stiffness the sequential
     * class's add_dforce uses for this call, assembled now if needed (0: it
     * uses the element loop; the assembly runs on pool, split by rows), and
     * df -= kfactor K dx over rows [b, e). The
     * rows are shared among the threads: each row's sum is the sequential
     * one, so the bits are the same at any thread count. */
    size_t (*assembled)(st_component *self, const st_mparams *mp, mt_pool *pool);
    void (*assembled_rows)(st_component *self, double *df, const double *dx, double kfactor,
                           size_t b, size_t e);
} mt_elem_ops;

/* The class of ops' twin (built once; NULL when its tables are too small). */
const st_class *mt_elem_class(const mt_elem_ops *ops);
/* The ops of a twin instance's class (NULL for other classes). */
const mt_elem_ops *mt_elem_ops_of(const st_component *self);

/* ---- Sums per vertex of per-element values, in element order ---- */

/* For each of np vertices, the slots (element * nv + corner) that name it,
 * in increasing slot order, i.e. in the order a sequential loop over the
 * elements adds to it; and, for nparts contiguous element ranges
 * (mt_range), the part that owns each vertex: the one whose range holds
 * every element around it (it adds to the vertex itself, in element
 * order), or MT_SHARED (the parts leave the vertex's values in a buffer,
 * added after, slot by slot). */
#define MT_SHARED 0xffffffffu
typedef struct mt_adjacency {
    size_t ne, np;
    unsigned nv;          /* vertices per element */
    unsigned *verts;      /* ne x nv, the elements' vertices when built */
    size_t *start;        /* np + 1 */
    unsigned *slot;       /* ne x nv */
    unsigned nparts;      /* the parts owner was computed for (0: not yet) */
    unsigned *owner;      /* np: owning part or MT_SHARED */
    unsigned *shared;     /* the shared vertices, increasing */
    size_t nshared;
} mt_adjacency;

/* (Re)builds a from ne elements of nv vertices, vertex k of element e at
 * verts[e * stride + k] (stride in unsigned), when they differ from what it
 * was built from, and its owners for nparts parts. A vertex index >= np is
 * an error. */
st_status mt_adjacency_update(mt_adjacency *a, const unsigned *verts, size_t stride, size_t ne,
                              unsigned nv, size_t np, unsigned nparts,
                              st_error *err) ST_WARN_UNUSED;
void mt_adjacency_free(mt_adjacency *a);
/* For the shared vertices [begin, end) of a->shared: f[v] += g[slot]
 * (sign > 0) or -= (sign < 0), 3 scalars per vertex and per slot, slot
 * after slot. */
void mt_adjacency_add_shared(const mt_adjacency *a, double *f, const double *g, int sign,
                             size_t begin, size_t end);

/* The classes. */
extern const st_class task_scheduler_settings_class;
const st_class *parallel_tetrahedron_fem_class(void);
const st_class *parallel_hexahedron_fem_class(void);
const st_class *parallel_spring_force_field_class(void);
const st_class *parallel_mesh_spring_force_field_class(void);
const st_class *parallel_cg_linear_solver_class(void);
const st_class *beam_linear_mapping_mt_class(void);

#endif
