/* log.c - the runtime's log sink and the messages the kernel sends to it
 * (each ignored SOFA field noted once), and the clock the run's timings use. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "core/core.h"

double st_time_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void st_runtime_set_log(st_runtime *rt, st_log_fn fn, void *ud)
{
    rt->log = fn;
    rt->log_ud = ud;
}

void st_runtime_get_log(const st_runtime *rt, st_log_fn *fn, void **ud)
{
    *fn = rt ? rt->log : NULL;
    *ud = rt ? rt->log_ud : NULL;
}

void st_runtime_set_strict(st_runtime *rt, bool strict)
{
    if (rt)
        rt->strict = strict;
}

void st_runtime_log(st_runtime *rt, st_log_level level, const char *where, const char *path,
                    const char *fmt, ...)
{
    if (!rt || !rt->log)
        return;
    char msg[ST_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rt->log(level, where ? where : "", path ? path : "", msg, rt->log_ud);
}

/* FNV-1a over the message's parts. */
static uint64_t message_hash(st_log_level level, const char *where, const char *path,
                             const char *msg)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)level;
    const char *parts[3] = {where, path, msg};
    for (int k = 0; k < 3; k++) {
        for (const unsigned char *p = (const unsigned char *)(parts[k] ? parts[k] : ""); *p; p++)
            h = (h ^ *p) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull; /* a separator */
    }
    return h;
}

/* True the first time an error or warning (level, place, path, text) is
 * said since the scene began loading: several components that meet the same
 * mistake (a state's bad template, asked for by each of its readers) report
 * it once. Information lines repeat (per step, per contact pair). The last
 * 256 messages are remembered. */
static bool first_saying(st_runtime *rt, st_log_level level, const char *where, const char *path,
                         const char *msg)
{
    if (level == ST_LOG_INFO)
        return true;
    uint64_t h = message_hash(level, where, path, msg);
    size_t n = rt->nsaid < 256 ? rt->nsaid : 256;
    for (size_t i = 0; i < n; i++)
        if (rt->said[i] == h)
            return false;
    rt->said[rt->nsaid++ % 256] = h;
    return true;
}

void st__log_forget(st_runtime *rt)
{
    if (rt)
        rt->nsaid = 0;
}

/* Messages may come from several threads at once (the child scenes of
 * AnimationLoopParallelScheduler step in parallel): the remembered
 * messages and the sink are used under one lock. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void say(st_runtime *rt, st_log_level level, const char *where, const char *path,
                const char *msg)
{
    pthread_mutex_lock(&log_lock);
    if (first_saying(rt, level, where, path, msg))
        rt->log(level, where, path, msg, rt->log_ud);
    pthread_mutex_unlock(&log_lock);
}

void st__log(st_runtime *rt, st_log_level level, st_mark m, const char *path, const char *fmt, ...)
{
    if (!rt || !rt->log)
        return;
    char msg[ST_ERROR_MSG_MAX], where[ST_ERROR_WHERE_MAX] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (m.file && m.line > 0)
        snprintf(where, sizeof where, "%s:%d:%d", m.file, m.line, m.col > 0 ? m.col : 1);
    else if (m.file && m.line < 0) /* a label: "--set PATH=VALUE" */
        snprintf(where, sizeof where, "%s", m.file);
    say(rt, level, where, path ? path : "", msg);
}

void st__log_error(st_runtime *rt, const st_error *err)
{
    if (!err || err->code == ST_OK || err->reported)
        return;
    if (rt && rt->log)
        say(rt, ST_LOG_ERROR, err->where, err->path, err->msg);
    ((st_error *)err)->reported = true;
}

static bool first_note(st_runtime *rt, const void *a, const void *b);

bool st__runtime_first_note(st_runtime *rt, const void *a, const void *b)
{
    if (!rt)
        return true;
    pthread_mutex_lock(&log_lock);
    bool first = first_note(rt, a, b);
    pthread_mutex_unlock(&log_lock);
    return first;
}

static bool first_note(st_runtime *rt, const void *a, const void *b)
{
    for (size_t i = 0; i + 1 < rt->nnoted; i += 2)
        if (rt->noted[i] == a && rt->noted[i + 1] == b)
            return false;
    if (rt->nnoted + 2 > rt->capnoted) {
        size_t cap = rt->capnoted ? 2 * rt->capnoted : 32;
        const void **p = st_realloc(rt->noted, cap * sizeof *p);
        if (!p)
            return true; /* no memory to remember it: say it again */
        rt->noted = p;
        rt->capnoted = cap;
    }
    rt->noted[rt->nnoted++] = a;
    rt->noted[rt->nnoted++] = b;
    return true;
}
