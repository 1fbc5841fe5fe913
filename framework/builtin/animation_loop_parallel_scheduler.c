/* animation_loop_parallel_scheduler.c - the built-in
 * AnimationLoopParallelScheduler (SOFA's MultiThreading plugin): the root's
 * loop of a scene made of independent child scenes. Each step, every child
 * node that has an animation loop of its own is stepped by that loop, the
 * children in parallel on a team of threads; then the root's time advances
 * and the DataExchange components copy their data (SOFA's
 * DataExchangeEvent). Child nodes without a loop do not move, as in SOFA.
 *
 * A child's loop steps the child's subtree only: its begin and end events,
 * its engines' inputs, its collision pipeline, the solvers below it and
 * their systems (st__loop_owns). The children must not share anything a
 * step writes, which is what the scheduler is for in SOFA too; what they
 * exchange goes through DataExchange, after the threads are done. Child k
 * always runs on thread k mod n, and each child's step is the same whatever
 * thread runs it: results do not depend on the thread count.
 *
 * The thread count: a TaskSchedulerSettings of the scene with nbThreads != 0,
 * else this loop's nbThreads != 0 (n > 0: n; -n: the cores minus n), else
 * settee's (`settee run --threads N`, SETTEE_THREADS), else 1; never more
 * than the children. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin/builtin.h"

typedef struct sched_worker sched_worker;

typedef struct parallel_scheduler {
    st_component base;
    int nb_threads;       /* "nbThreads" */
    char *scheduler_type; /* "taskSchedulerType" */
    bool compute_bounding_box; /* "computeBoundingBox" */
    /* The team: nworkers threads besides the caller, started at init, that
     * sleep between steps. */
    sched_worker *workers;
    unsigned nworkers;
    pthread_mutex_t mu;
    pthread_cond_t go, finished;
    bool sync;             /* mu, go and finished exist */
    unsigned long generation; /* bumped for each step the team runs */
    unsigned pending;      /* workers still running the current step */
    bool quit;
    /* The current step. */
    st_node **children;   /* the children with a loop, scene order */
    st_component **loops; /* their loops */
    st_error *errs;       /* one per child */
    st_status *rcs;
    size_t nchildren, capchildren;
    unsigned long listed_version; /* the scene's graph_version when listed */
    double dt;
} parallel_scheduler;

struct sched_worker {
    parallel_scheduler *s;
    unsigned index; /* 1 .. nworkers (0 is the caller) */
    pthread_t thread;
};

static const st_field sched_fields[] = {
    ST_INT(parallel_scheduler, nb_threads, "nbThreads", "0",
           "Threads of the task scheduler: n > 0 that many, -n the cores minus n, 0 settee's "
           "count (`settee run --threads N` or SETTEE_THREADS, else 1; SOFA: all cores). A "
           "TaskSchedulerSettings of the scene with nbThreads != 0 decides; never more than "
           "the child scenes"),
    ST_STRING(parallel_scheduler, scheduler_type, "taskSchedulerType", "_default",
              "Type of task scheduler to use (_default or std: settee's team of threads that "
              "sleep between steps)"),
    ST_IGNORED(parallel_scheduler, compute_bounding_box, "computeBoundingBox", ST_T_BOOL, bool,
               "true",
               "If true, compute the global bounding box of the scene at each time step (no "
               "effect without a GUI)"),
    ST_FIELD_END};

/* Children k, k + n, k + 2n, ... of the step, on thread k of n. */
static void run_share(parallel_scheduler *s, unsigned k, unsigned n)
{
    for (size_t i = k; i < s->nchildren; i += n) {
        st_component *loop = s->loops[i];
        s->errs[i] = (st_error){0};
        s->rcs[i] = loop->cls->animloop->step(loop, s->children[i], s->dt, &s->errs[i]);
    }
}

static void *worker_main(void *arg)
{
    sched_worker *w = arg;
    parallel_scheduler *s = w->s;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (s->generation == seen && !s->quit)
            pthread_cond_wait(&s->go, &s->mu);
        if (s->quit) {
            pthread_mutex_unlock(&s->mu);
            return NULL;
        }
        seen = s->generation;
        const unsigned n = s->nworkers + 1;
        pthread_mutex_unlock(&s->mu);
        run_share(s, w->index, n);
        pthread_mutex_lock(&s->mu);
        if (--s->pending == 0)
            pthread_cond_signal(&s->finished);
        pthread_mutex_unlock(&s->mu);
    }
}

/* One step of every child: the caller takes share 0. */
static void run_step(parallel_scheduler *s)
{
    if (s->nworkers == 0) {
        run_share(s, 0, 1);
        return;
    }
    pthread_mutex_lock(&s->mu);
    s->pending = s->nworkers;
    s->generation++;
    pthread_cond_broadcast(&s->go);
    pthread_mutex_unlock(&s->mu);
    run_share(s, 0, s->nworkers + 1);
    pthread_mutex_lock(&s->mu);
    while (s->pending > 0)
        pthread_cond_wait(&s->finished, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

static void stop_team(parallel_scheduler *s)
{
    if (s->sync) {
        pthread_mutex_lock(&s->mu);
        s->quit = true;
        pthread_cond_broadcast(&s->go);
        pthread_mutex_unlock(&s->mu);
        for (unsigned i = 0; i < s->nworkers; i++)
            pthread_join(s->workers[i].thread, NULL);
        pthread_cond_destroy(&s->go);
        pthread_cond_destroy(&s->finished);
        pthread_mutex_destroy(&s->mu);
        s->sync = false;
    }
    st_free(s->workers);
    s->workers = NULL;
    s->nworkers = 0;
    s->quit = false;
}

/* A team of nthreads with the caller; fewer when a thread cannot start
 * (said in a warning). */
static st_status start_team(parallel_scheduler *s, unsigned nthreads, st_error *err)
{
    stop_team(s);
    if (nthreads < 2)
        return ST_OK;
    s->workers = st_calloc(nthreads - 1, sizeof *s->workers);
    if (!s->workers)
        return st_error_set(err, ST_ENOMEM, "out of memory starting the scheduler's threads");
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->go, NULL);
    pthread_cond_init(&s->finished, NULL);
    s->sync = true;
    s->generation = 0;
    for (unsigned i = 0; i < nthreads - 1; i++) {
        s->workers[i] = (sched_worker){.s = s, .index = i + 1};
        if (pthread_create(&s->workers[i].thread, NULL, worker_main, &s->workers[i]) != 0) {
            st_component_warn(&s->base, "could start %u of %u threads: the child scenes share "
                                        "those",
                              i + 1, nthreads);
            break;
        }
        s->nworkers = i + 1;
    }
    return ST_OK;
}

/* n for a count v != 0: n > 0 n; -n the cores minus n, at least 1. */
static unsigned thread_count(parallel_scheduler *s)
{
    return st_threads_for(&s->base, s->nb_threads, NULL);
}

/* The children of the root that have their own loop, and their loops. */
static st_status list_children(parallel_scheduler *s, st_error *err)
{
    st_node *root = s->base.node;
    s->nchildren = 0;
    for (size_t i = 0; i < root->nchildren; i++) {
        st_node *c = root->children[i];
        st_component *loop = st_node_find(c, ST_ROLE_ANIMLOOP, ST_SEARCH_LOCAL);
        if (!loop || !c->activated)
            continue;
        if (s->nchildren == s->capchildren) {
            size_t cap = s->capchildren ? 2 * s->capchildren : 8;
            st_node **ch = st_realloc(s->children, cap * sizeof *ch);
            if (ch)
                s->children = ch;
            st_component **lo = st_realloc(s->loops, cap * sizeof *lo);
            if (lo)
                s->loops = lo;
            st_error *er = st_realloc(s->errs, cap * sizeof *er);
            if (er)
                s->errs = er;
            st_status *rc = st_realloc(s->rcs, cap * sizeof *rc);
            if (rc)
                s->rcs = rc;
            if (!ch || !lo || !er || !rc)
                return st_error_set(err, ST_ENOMEM, "out of memory listing the child scenes");
            s->capchildren = cap;
        }
        s->children[s->nchildren] = c;
        s->loops[s->nchildren++] = loop;
    }
    return ST_OK;
}

static st_status sched_init(st_component *self, st_error *err)
{
    parallel_scheduler *s = (parallel_scheduler *)self;
    if (s->scheduler_type && strcmp(s->scheduler_type, "_default") &&
        strcmp(s->scheduler_type, "std"))
        return st_component_error(self, "taskSchedulerType", err, ST_ESCENE,
                                  "unknown task scheduler type '%s': expected _default or std",
                                  s->scheduler_type);
    if (self->node && st_node_parent(self->node))
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "AnimationLoopParallelScheduler steps the child scenes of the "
                                  "root: put it in the root node");
    ST_TRY(list_children(s, err));
    s->listed_version = self->node->scene ? self->node->scene->graph_version : 0;
    unsigned n = thread_count(s);
    if (n > s->nchildren)
        n = s->nchildren ? (unsigned)s->nchildren : 1;
    ST_TRY(start_team(s, n, err));
    if (s->nchildren == 0)
        st_component_warn(self, "no child node of the root has an animation loop: nothing "
                                "moves (each child scene needs its own, e.g. "
                                "DefaultAnimationLoop or FreeMotionAnimationLoop)");
    return ST_OK;
}

static st_status sched_step(st_component *self, st_node *root, double dt, st_error *err)
{
    parallel_scheduler *s = (parallel_scheduler *)self;
    if (dt <= 0.0)
        dt = root->dt;
    const double t0 = root->time;
    /* The systems are whole here (a change at the end of the last step was
     * applied by st_scene_step): the children only read the list. */
    ST_TRY(st__scene_refresh_systems(root->scene, err));
    if (root->scene->graph_version != s->listed_version) { /* nodes or loops changed */
        ST_TRY(list_children(s, err));
        s->listed_version = root->scene->graph_version;
    }
    s->dt = dt;
    run_step(s);
    for (size_t i = 0; i < s->nchildren; i++)
        if (s->rcs[i] != ST_OK) {
            *err = s->errs[i];
            return s->rcs[i];
        }
    root->time = t0 + dt;
    st__data_exchange_all(root);
    return ST_OK;
}

static void sched_cleanup(st_component *self)
{
    parallel_scheduler *s = (parallel_scheduler *)self;
    stop_team(s);
    st_free(s->children);
    st_free(s->loops);
    st_free(s->errs);
    st_free(s->rcs);
    s->children = NULL;
    s->loops = NULL;
    s->errs = NULL;
    s->rcs = NULL;
    s->nchildren = s->capchildren = 0;
}

static const st_animloop_ops sched_ops = {
    .struct_size = sizeof(st_animloop_ops),
    .step = sched_step,
};

const st_class st__animation_loop_parallel_scheduler_class = {
    .struct_size = sizeof(st_class),
    .name = "AnimationLoopParallelScheduler",
    .category = "AnimationLoop",
    .description = "Parallel animation loop: each child node of the root with its own "
                   "animation loop is stepped by it, the children on a team of threads; then "
                   "DataExchange components copy their data",
    .instance_size = sizeof(parallel_scheduler),
    .fields = sched_fields,
    .init = sched_init,
    .cleanup = sched_cleanup,
    .animloop = &sched_ops,
};
