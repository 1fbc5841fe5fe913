/* timer.h - SOFA's AdvancedTimer: named timers that record, while they run,
 * the steps (nested, timed scopes) and the values that the kernel and the
 * components report, so that a step can be read as a tree of phases
 * (SofaPython3's SofaRuntime.Timer.getRecords).
 *
 * The timers are per thread, as SOFA's: a step or a value recorded on a
 * thread goes to every timer running on that thread. When no timer runs,
 * st_timer_step_begin / _end / st_timer_val_set return at once (one
 * thread-local test), so the kernel and components may call them in every
 * step. Labels and ids are copied (at most ST_TIMER_LABEL_MAX - 1 bytes).
 * ABI 2.7. */
#ifndef SETTEE_TIMER_H
#define SETTEE_TIMER_H

#include <stdbool.h>
#include <stddef.h>

#include "settee/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ST_TIMER_LABEL_MAX 96

typedef enum st_timer_record_type {
    ST_TIMER_BEGIN,      /* the timer started (label: its id) */
    ST_TIMER_END,        /* the timer stopped */
    ST_TIMER_STEP_BEGIN, /* a step began */
    ST_TIMER_STEP_END,   /* a step ended */
    ST_TIMER_VAL_SET     /* a value (value) was reported */
} st_timer_record_type;

typedef struct st_timer_record {
    st_timer_record_type type;
    char label[ST_TIMER_LABEL_MAX];
    double time;  /* st_time_now() when recorded, seconds */
    double value; /* ST_TIMER_VAL_SET */
} st_timer_record;

/* (ABI 2.6, timer) Enables or disables timer id; only enabled timers record
 * (SOFA: a timer is enabled explicitly). */
ST_API void st_timer_set_enabled(const char *id, bool enabled);
ST_API bool st_timer_is_enabled(const char *id);
/* Starts timer id when it is enabled: its records of the previous run are
 * dropped, a BEGIN record is the first. Nothing when it is disabled or
 * already running. */
ST_API void st_timer_begin(const char *id);
/* Stops timer id (an END record); its records stay readable until it
 * begins again. */
ST_API void st_timer_end(const char *id);
/* True when a timer runs on this thread. */
ST_API bool st_timer_active(void);
/* A step of the running timers begins or ends; a value is reported. */
ST_API void st_timer_step_begin(const char *label);
ST_API void st_timer_step_end(const char *label);
ST_API void st_timer_val_set(const char *label, double value);
/* The records of timer id's current or last run: *n records at *out, valid
 * until the timer begins again or st_timer_clear. *n = 0 when it never ran.
 * A run holds at most ST_TIMER_RECORDS_MAX records; later ones are dropped
 * (*truncated set). */
#define ST_TIMER_RECORDS_MAX (1u << 20)
ST_API void st_timer_records(const char *id, const st_timer_record **out, size_t *n,
                             bool *truncated);
/* Stops and forgets every timer of this thread. */
ST_API void st_timer_clear(void);

#ifdef __cplusplus
}
#endif

#endif
