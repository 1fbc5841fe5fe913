/* alloc.c - the kernel allocator: counts allocations and can fail on demand. */
#include <stdlib.h>
#include <string.h>

#include "settee/alloc.h"

#include <stdint.h>

/* Requests above this size fail (NULL) without reaching malloc: no machine
 * settee runs on has that much memory, and sanitizer allocators abort on
 * such requests instead of returning NULL. */
#if UINTPTR_MAX > 0xffffffffu
#define ALLOC_MAX ((size_t)1 << 40)
#else
#define ALLOC_MAX ((size_t)1 << 31)
#endif

/* Counted from any thread (the child scenes of AnimationLoopParallelScheduler
 * step in parallel). */
static _Atomic unsigned long alloc_count;
static long fail_countdown = -1;

static int should_fail(void)
{
    if (fail_countdown < 0)
        return 0;
    if (fail_countdown == 0) {
        fail_countdown = -1;
        return 1;
    }
    fail_countdown--;
    return 0;
}

void *st_malloc(size_t size)
{
    if (size > ALLOC_MAX || should_fail())
        return NULL;
    void *p = malloc(size ? size : 1);
    if (p)
        alloc_count++;
    return p;
}

void *st_calloc(size_t n, size_t size)
{
    if ((size && n > ALLOC_MAX / size) || should_fail())
        return NULL;
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p)
        alloc_count++;
    return p;
}

void *st_realloc(void *p, size_t size)
{
    if (size > ALLOC_MAX || should_fail())
        return NULL;
    void *q = realloc(p, size ? size : 1);
    if (q)
        alloc_count++;
    return q;
}

void st_free(void *p) { free(p); }

char *st_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = st_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

unsigned long st_alloc_count(void) { return alloc_count; }

/* Third-party libraries' allocations: fault injection applies, the count is
 * their own (st_alloc_count stays settee's). */
static _Atomic unsigned long lib_count;

static void *lib_counted(void *p)
{
    if (p)
        lib_count++;
    return p;
}

void *st_lib_malloc(size_t size)
{
    return lib_counted(size > ALLOC_MAX || should_fail() ? NULL : malloc(size ? size : 1));
}

void *st_lib_calloc(size_t n, size_t size)
{
    return lib_counted((size && n > ALLOC_MAX / size) || should_fail()
                           ? NULL
                           : calloc(n ? n : 1, size ? size : 1));
}

void *st_lib_realloc(void *p, size_t size)
{
    return lib_counted(size > ALLOC_MAX || should_fail() ? NULL : realloc(p, size ? size : 1));
}

unsigned long st_alloc_lib_count(void) { return lib_count; }

void st_alloc_fail_after(long n) { fail_countdown = n; }
