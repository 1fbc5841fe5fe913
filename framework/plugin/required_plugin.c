/* required_plugin.c - RequiredPlugin: loads plugins while the scene is read,
 * so that the objects after it can use their components. */
#include <stdio.h>
#include <string.h>

#include "plugin/loader.h"

typedef struct required_plugin {
    st_component base;
    st_array plugin_name;    /* strings */
    bool require_all;
    bool require_one;
    bool stop_after_first;
    st_array loaded;         /* strings, output */
    st_array suffix_map;     /* strings, ignored */
    bool stop_after_first_suffix; /* ignored */
} required_plugin;

static const st_field required_plugin_fields[] = {
    ST_STRINGS(required_plugin, plugin_name, "pluginName", NULL,
               "Plugins to load (our names, \"ODESolver.Forward\", or SOFA's module names, "
               "\"Sofa.Component.ODESolver.Forward\"); a string or a list"),
    ST_BOOL(required_plugin, require_all, "requireAll", "true",
            "Fail when any of the plugins cannot be loaded"),
    ST_BOOL(required_plugin, require_one, "requireOne", "false",
            "Fail only when none of the plugins can be loaded (with requireAll false)"),
    ST_BOOL(required_plugin, stop_after_first, "stopAfterFirstNameFound", "false",
            "Stop after the first plugin that loads"),
    ST_IGNORED(required_plugin, suffix_map, "suffixMap", ST_T_STRINGS, st_array, NULL,
               "standard->custom suffixes pairs (settee plugins have no debug suffix)"),
    ST_IGNORED(required_plugin, stop_after_first_suffix, "stopAfterFirstSuffixFound", ST_T_BOOL,
               bool, "true",
               "For each plugin name, stop after the first suffix that is loaded successfully "
               "(settee plugins have no suffix)"),
    ST_FIELD_EX(required_plugin, loaded, "loadedPlugins", ST_T_STRINGS, st_array, NULL,
                "The plugins this component loaded (output)", ST_F_OUTPUT, NULL, 0.0, 0.0),
    ST_FIELD_END};

static st_status push_loaded(required_plugin *rp, const char *name, st_error *err)
{
    size_t n = rp->loaded.n;
    ST_TRY(st_array_resize(&rp->loaded, ST_T_STRINGS, n + 1, err));
    rp->loaded.s[n] = st_strdup(name);
    return rp->loaded.s[n] ? ST_OK : st_error_set(err, ST_ENOMEM, "out of memory");
}

st_status st__required_plugin_load(st_component *c, st_error *err)
{
    required_plugin *rp = (required_plugin *)c;
    st_cinfo *ci = st__cinfo(c);
    st_runtime *rt = ci->rt;
    const char *single[1];
    const char *const *names;
    size_t n;
    if (rp->plugin_name.n) {
        names = (const char *const *)rp->plugin_name.s;
        n = rp->plugin_name.n;
    } else if (st_component_is_set(c, "name")) {
        /* SOFA's older form: the plugin named by the component's name. */
        single[0] = c->name;
        names = single;
        n = 1;
    } else {
        return st_component_error(c, NULL, err, ST_ESCENE,
                                  "no plugin named: set pluginName (a name or a list)");
    }
    int pidx = st__component_field_index(c, rp->plugin_name.n ? "pluginName" : "name");
    st_mark m = pidx >= 0 && ci->fs[pidx].mark.file ? ci->fs[pidx].mark : ci->mark;
    st_status first = ST_OK;
    size_t nloaded = 0;
    for (size_t i = 0; i < n; i++) {
        st_error e = {0};
        st_status s = st_runtime_load_plugin(rt, names[i], &e);
        if (s == ST_OK) {
            nloaded++;
            ST_TRY(push_loaded(rp, names[i], err));
            if (rp->stop_after_first)
                break;
            continue;
        }
        if (rp->require_all) {
            char path[ST_ERROR_PATH_MAX];
            char msg[ST_ERROR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", e.msg);
            st__error_at(&e, s, m, "RequiredPlugin: %s", msg);
            st_error_set_path(&e, st_component_path(c, path, sizeof path));
            st__log_error(rt, &e);
            if (first == ST_OK) {
                *err = e;
                first = s;
            }
        } else {
            st__log(rt, ST_LOG_WARNING, m, NULL, "unable to load optional plugin '%s': %s",
                    names[i], e.msg);
        }
    }
    if (first != ST_OK)
        return first;
    if (!rp->require_all && rp->require_one && nloaded == 0)
        return st_component_error(c, "pluginName", err, ST_EPLUGIN,
                                  "none of the %zu plugins could be loaded", n);
    st_component_touch(c, st_component_field(c, "loadedPlugins"));
    return ST_OK;
}

const st_class st__required_plugin_class = {
    .struct_size = sizeof(st_class),
    .name = "RequiredPlugin",
    .category = "Plugin",
    .description = "Loads plugins by name while the scene is read",
    .instance_size = sizeof(required_plugin),
    .fields = required_plugin_fields,
};
