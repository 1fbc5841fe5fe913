/* alloc.h - the kernel's allocator, with counters and fault injection.
 *
 * Every allocation of libsettee and of well-behaved plugins goes through
 * these functions, so tests can count allocations (a step must make none)
 * and make the Nth allocation fail.
 */
#ifndef SETTEE_ALLOC_H
#define SETTEE_ALLOC_H

#include <stddef.h>

#include "settee/export.h"

#ifdef __cplusplus
extern "C" {
#endif

ST_API void *st_malloc(size_t size);
ST_API void *st_calloc(size_t n, size_t size);
ST_API void *st_realloc(void *p, size_t size);
ST_API void st_free(void *p);
ST_API char *st_strdup(const char *s);

/* Number of successful st_malloc/st_calloc/st_realloc calls since start. */
ST_API unsigned long st_alloc_count(void);
/* Makes the allocation after `n` more succeed fail (n = 0: the next one);
 * a negative n disables fault injection. */
ST_API void st_alloc_fail_after(long n);

/* For the allocator hooks of third-party libraries a plugin uses (CHOLMOD
 * and UMFPACK through SuiteSparse_config): fault injection reaches them as
 * it reaches st_malloc, and they are counted apart, by st_alloc_lib_count,
 * so that st_alloc_count stays the count of settee's own allocations.
 * Memory from them is freed with st_free (or free). */
ST_API void *st_lib_malloc(size_t size);
ST_API void *st_lib_calloc(size_t n, size_t size);
ST_API void *st_lib_realloc(void *p, size_t size);
ST_API unsigned long st_alloc_lib_count(void);

#ifdef __cplusplus
}
#endif
#endif
