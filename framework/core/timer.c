/* timer.c - SOFA's AdvancedTimer (settee/timer.h): per-thread named timers
 * that record steps and values while they run. */
#include <string.h>

#include "core/core.h"
#include "settee/runtime.h"
#include "settee/timer.h"

enum { MAX_TIMERS = 16 };

typedef struct timer {
    char id[ST_TIMER_LABEL_MAX];
    bool enabled, running, truncated;
    st_timer_record *rec;
    size_t n, cap;
} timer;

static _Thread_local timer timers[MAX_TIMERS];
static _Thread_local size_t ntimers;
static _Thread_local unsigned nrunning;

static void copy_label(char *dst, const char *src)
{
    size_t k = src ? strlen(src) : 0;
    if (k >= ST_TIMER_LABEL_MAX)
        k = ST_TIMER_LABEL_MAX - 1;
    if (k)
        memcpy(dst, src, k);
    dst[k] = '\0';
}

/* Timer id, made when create and there is room. */
static timer *find(const char *id, bool create)
{
    char key[ST_TIMER_LABEL_MAX];
    copy_label(key, id);
    for (size_t i = 0; i < ntimers; i++)
        if (!strcmp(timers[i].id, key))
            return &timers[i];
    if (!create || ntimers == MAX_TIMERS)
        return NULL;
    timer *t = &timers[ntimers++];
    memset(t, 0, sizeof *t);
    memcpy(t->id, key, sizeof key);
    return t;
}

static void push(timer *t, st_timer_record_type type, const char *label, double now, double v)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        if (cap > ST_TIMER_RECORDS_MAX)
            cap = ST_TIMER_RECORDS_MAX;
        st_timer_record *r = t->n < cap ? st_realloc(t->rec, cap * sizeof *r) : NULL;
        if (!r) {
            t->truncated = true;
            return;
        }
        t->rec = r;
        t->cap = cap;
    }
    st_timer_record *r = &t->rec[t->n++];
    r->type = type;
    copy_label(r->label, label);
    r->time = now;
    r->value = v;
}

/* Appends a record to every running timer. */
static void record(st_timer_record_type type, const char *label, double v)
{
    double now = st_time_now();
    for (size_t i = 0; i < ntimers; i++)
        if (timers[i].running)
            push(&timers[i], type, label, now, v);
}

void st_timer_set_enabled(const char *id, bool enabled)
{
    timer *t = find(id, enabled);
    if (t)
        t->enabled = enabled;
}

bool st_timer_is_enabled(const char *id)
{
    const timer *t = find(id, false);
    return t && t->enabled;
}

void st_timer_begin(const char *id)
{
    timer *t = find(id, false);
    if (!t || !t->enabled || t->running)
        return;
    t->n = 0;
    t->truncated = false;
    t->running = true;
    nrunning++;
    push(t, ST_TIMER_BEGIN, t->id, st_time_now(), 0.0);
}

void st_timer_end(const char *id)
{
    timer *t = find(id, false);
    if (!t || !t->running)
        return;
    push(t, ST_TIMER_END, t->id, st_time_now(), 0.0);
    t->running = false;
    nrunning--;
}

bool st_timer_active(void) { return nrunning > 0; }

void st_timer_step_begin(const char *label)
{
    if (nrunning)
        record(ST_TIMER_STEP_BEGIN, label, 0.0);
}

void st_timer_step_end(const char *label)
{
    if (nrunning)
        record(ST_TIMER_STEP_END, label, 0.0);
}

void st_timer_val_set(const char *label, double value)
{
    if (nrunning)
        record(ST_TIMER_VAL_SET, label, value);
}

void st_timer_records(const char *id, const st_timer_record **out, size_t *n, bool *truncated)
{
    const timer *t = find(id, false);
    *out = t ? t->rec : NULL;
    *n = t ? t->n : 0;
    if (truncated)
        *truncated = t && t->truncated;
}

void st_timer_clear(void)
{
    for (size_t i = 0; i < ntimers; i++)
        st_free(timers[i].rec);
    memset(timers, 0, sizeof timers);
    ntimers = 0;
    nrunning = 0;
}
