/* scene_hooks.c - what reader.h adds to scenes (ABI 2.4): loading a file
 * type through the plugin that reads it, destroy hooks, and failures
 * reported by role functions that return no status (st_component_fail). */
#include <string.h>
#include <strings.h>

#include "simulation/simulation.h"

typedef struct hook {
    st_scene_hook_fn fn;
    void *ud;
} hook;

struct st__scene_hooks {
    hook *v;
    size_t n;
    bool failed;       /* a failure is pending */
    st_error failure;  /* the first one since the last take */
};

static st__scene_hooks *hooks_of(st_scene *s)
{
    if (!s->hooks)
        s->hooks = st_calloc(1, sizeof *s->hooks);
    return s->hooks;
}

st_status st_scene_add_destroy_hook(st_scene *s, st_scene_hook_fn fn, void *ud, st_error *err)
{
    if (!s || !fn)
        return st_error_set(err, ST_EINVAL, "st_scene_add_destroy_hook: scene and fn required");
    st__scene_hooks *h = hooks_of(s);
    hook *v = h ? st_realloc(h->v, (h->n + 1) * sizeof *v) : NULL;
    if (!v)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    h->v = v;
    v[h->n++] = (hook){fn, ud};
    return ST_OK;
}

void st__scene_hooks_run_destroy(st_scene *s)
{
    st__scene_hooks *h = s ? s->hooks : NULL;
    if (!h)
        return;
    for (size_t i = h->n; i-- > 0;)
        h->v[i].fn(s, h->v[i].ud);
    st_free(h->v);
    st_free(h);
    s->hooks = NULL;
}

void st_component_fail(const st_component *c, const st_error *e)
{
    if (!c || !e)
        return;
    st_node *root = c->node ? st_node_root(c->node) : NULL;
    st_scene *s = root ? root->scene : NULL;
    st__scene_hooks *h = s ? hooks_of(s) : NULL;
    char path[ST_ERROR_PATH_MAX];
    st_component_path(c, path, sizeof path);
    if (!h || h->failed) {
        /* A later failure of the same step, or no memory to keep it. */
        st_runtime_log(st_component_runtime(c), ST_LOG_ERROR, e->where, path, "%s", e->msg);
        return;
    }
    h->failure = *e;
    if (h->failure.code == ST_OK)
        h->failure.code = ST_EINTERNAL;
    if (!h->failure.path[0])
        st_error_set_path(&h->failure, path);
    h->failure.reported = false;
    h->failed = true;
}

st_status st__scene_take_failure(st_scene *s, st_error *err)
{
    st__scene_hooks *h = s ? s->hooks : NULL;
    if (!h || !h->failed)
        return ST_OK;
    h->failed = false;
    if (err)
        *err = h->failure;
    return h->failure.code;
}

st_status st__scene_load_by_reader(st_runtime *rt, const char *path, st_scene **out,
                                   bool *handled, st_error *err)
{
    *handled = false;
    size_t n = strlen(path);
    static const char *const own[] = {".yaml", ".yml", ".scn", ".xml"};
    for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
        size_t m = strlen(own[i]);
        if (n >= m && !strcasecmp(path + n - m, own[i]))
            return ST_OK;
    }
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash) || dot == path || dot[-1] == '/')
        return ST_OK; /* no extension: YAML, as before readers existed */
    const st_scene_reader *rd = st_registry_find_reader(rt->reg, path);
    if (!rd) {
        bool found = false;
        st_status s = st__plugin_load_reader(rt, path, &found, err);
        if (s != ST_OK) {
            *handled = true;
            st__log_error(rt, err);
            return s;
        }
        rd = found ? st_registry_find_reader(rt->reg, path) : NULL;
        if (!rd)
            return ST_OK; /* nobody reads it: the YAML reader says what is wrong */
    }
    *handled = true;
    st_scene *s = NULL;
    st_status st = st__scene_new(rt, path, &s, err);
    st_node *root = NULL;
    if (st == ST_OK)
        st = st__node_create(s, NULL, "root", ST_NO_MARK, &root, err);
    if (st == ST_OK) {
        st = rd->read(s, path, err);
        if (st == ST_OK && err && err->code != ST_OK)
            st = err->code;
    }
    if (st != ST_OK) {
        if (err && err->code == ST_OK)
            st_error_set_at(err, st, path, 0, 0, "%s: the %s reader failed without a message",
                            path, rd->extension);
        st__log_error(rt, err);
        st_scene_destroy(&s);
        return st;
    }
    *out = s;
    return ST_OK;
}
