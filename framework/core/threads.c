/* threads.c - settee's thread-count rule (settee/threads.h), read in one
 * place by the kernel (the plugin loader's OpenMP and OpenBLAS limits, the
 * parallel scheduler) and by the plugins (direct solvers, parallel
 * collision phases, MultiThreading). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settee/component.h"
#include "settee/field.h"
#include "settee/node.h"
#include "settee/threads.h"

unsigned st_threads_default(void)
{
    const char *env = getenv("SETTEE_THREADS");
    if (!env || !*env)
        return 1;
    char *end = NULL;
    long n = strtol(env, &end, 10);
    if (n < 1 || n > 1024 || (end && *end))
        return 1;
    return (unsigned)n;
}

unsigned st_threads_resolve(int n)
{
    if (n > 0)
        return n > 1024 ? 1024u : (unsigned)n;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long v = (cores > 0 ? cores : 1) + n;
    return v < 1 ? 1u : (unsigned)v;
}

/* The first TaskSchedulerSettings below n, depth first, or NULL. */
static st_component *find_settings(const st_node *n)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (strcmp(c->cls->name, "TaskSchedulerSettings") == 0)
            return c;
    }
    for (size_t i = 0; i < st_node_child_count(n); i++) {
        st_component *c = find_settings(st_node_child(n, i));
        if (c)
            return c;
    }
    return NULL;
}

unsigned st_threads_for(const st_component *c, int own, bool *follows)
{
    st_component *g = c && c->node ? find_settings(st_node_root(c->node)) : NULL;
    const st_field *f = g ? st_component_field(g, "nbThreads") : NULL;
    const int scene = f && f->type == ST_T_INT ? *(const int *)st_component_field_ptr(g, f) : 0;
    if (follows)
        *follows = !scene && !own;
    if (scene)
        return st_threads_resolve(scene);
    if (own)
        return st_threads_resolve(own);
    return st_threads_default();
}
