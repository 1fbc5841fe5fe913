/* runtime.c - creating and destroying a runtime: its registry with the
 * built-in classes (and SETTEE_PREFER_PLUGIN's order), and at the end the
 * plugins it loaded. The log sink is core/log.c; plugin loading is
 * plugin/plugin.c. */
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"

st_status st_runtime_create(st_runtime **out, st_error *err)
{
    *out = NULL;
    st_runtime *rt = st_calloc(1, sizeof *rt);
    if (!rt)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    st_status s = st__registry_create(&rt->reg, err);
    if (s == ST_OK)
        s = st__builtins_register(rt, err);
    /* SETTEE_PREFER_PLUGIN=A:B: classes of B, then A, win over other
     * plugins' classes of the same name. */
    const char *pref = getenv("SETTEE_PREFER_PLUGIN");
    while (s == ST_OK && pref && *pref) {
        const char *end = strchr(pref, ':');
        size_t len = end ? (size_t)(end - pref) : strlen(pref);
        char name[256];
        if (len && len < sizeof name) {
            memcpy(name, pref, len);
            name[len] = 0;
            s = st_registry_prefer(rt->reg, name, err);
        }
        pref = end ? end + 1 : NULL;
    }
    if (s != ST_OK) {
        st_runtime_destroy(&rt);
        return s;
    }
    *out = rt;
    return ST_OK;
}

void st_runtime_destroy(st_runtime **prt)
{
    if (!prt || !*prt)
        return;
    st_runtime *rt = *prt;
    /* Classes point into plugins: drop the registry before unloading them. */
    st__registry_destroy(&rt->reg);
    st__plugins_unload_all(rt);
    for (size_t i = 0; i < rt->npaths; i++)
        st_free(rt->paths[i]);
    st_free(rt->paths);
    for (size_t i = 0; i < rt->ndirs; i++)
        st_free(rt->dirs[i]);
    st_free(rt->dirs);
    st_free(rt->noted);
    st_free(rt);
    *prt = NULL;
}
