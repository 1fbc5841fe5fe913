/* threads.h - how many threads a component runs on, by settee's one rule
 * (ABI 2.10): settee uses 1 thread unless told otherwise (`settee run
 * --threads N`, which sets SETTEE_THREADS, or SETTEE_THREADS itself), and a
 * scene may ask for more, as SOFA's scenes do: the scene's first
 * TaskSchedulerSettings (its nbThreads) or the component's own nbThreads.
 * A count n > 0 is n threads (at most 1024); n <= 0 is the machine's cores
 * plus n (at least 1), SOFA's reading (0: all cores). */
#ifndef SETTEE_THREADS_H
#define SETTEE_THREADS_H

#include <stdbool.h>

#include "settee/export.h"

#ifdef __cplusplus
extern "C" {
#endif

struct st_component;

/* SETTEE_THREADS as settee reads it: a whole number from 1 to 1024, else
 * (unset, empty, malformed or out of range) 1. */
ST_API unsigned st_threads_default(void);
/* A scene's count n as above: n > 0 (capped at 1024), or cores + n. */
ST_API unsigned st_threads_resolve(int n);
/* The count for c: the nbThreads of the first TaskSchedulerSettings of c's
 * scene (depth first from the root) when not 0, else own when not 0, else
 * st_threads_default(). *follows (may be NULL): whether the count is the
 * default (a component that follows it may change with SETTEE_THREADS). */
ST_API unsigned st_threads_for(const struct st_component *c, int own, bool *follows);

#ifdef __cplusplus
}
#endif

#endif
