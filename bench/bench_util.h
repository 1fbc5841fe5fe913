/* bench_util.h - small helpers shared by the benchmarks (header only: each
 * bench_*.c is its own program). */
#ifndef SETTEE_BENCH_UTIL_H
#define SETTEE_BENCH_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n timings (sorted in place). */
static inline double median(double *t, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(t, n, sizeof *t, bench_cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* The first component named name in the scene (the first 64 searched). */
static inline st_component *find(st_scene *s, const char *name)
{
    st_component *all[64];
    size_t n = st_node_find_all(st_scene_root(s), ST_ROLE_ANY, ST_SEARCH_DOWN, all, 64);
    for (size_t i = 0; i < n && i < 64; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

/* A numeric field of c (uint or real) as a double; NAN when c has none. */
static inline double bench_field_num(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    if (!f)
        return NAN;
    if (f->type == ST_T_UINT)
        return (double)*(const unsigned *)st_component_field_ptr(c, f);
    return *(const double *)st_component_field_ptr(c, f);
}

#endif
