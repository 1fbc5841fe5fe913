/* scene_set.c - st_scene_set: a field of a loaded scene set from text by
 * its path ("/Beam/springs.stiffness", "dt"), the base of `--set` and of
 * parameter studies. The value goes through the field's own parser. */
#include <stdio.h>
#include <string.h>

#include "scenefile/scene_desc.h"

static const char *const node_keys[] = {"gravity", "dt", "time", "animate", "activated"};

/* Names of a node's children and objects, for suggestions. */
static size_t names_in(const st_node *n, const char **out, size_t max, bool objects)
{
    size_t k = 0;
    for (size_t i = 0; i < n->nchildren && k < max; i++)
        out[k++] = n->children[i]->name;
    for (size_t i = 0; objects && i < n->nobjects && k < max; i++)
        out[k++] = n->objects[i]->name;
    return k;
}

static st_status no_such(st_error *err, const char *target, const char *what, const char *name,
                         const char *in, const char **cands, size_t n)
{
    const char *sugg[1];
    size_t ns = st__suggest(name, cands, n, sugg, 1);
    return st_error_set(err, ST_ENOTFOUND, "--set %s: %s has no %s '%s'%s%s%s", target, in, what,
                        name, ns ? " (did you mean '" : "", ns ? sugg[0] : "", ns ? "'?)" : "");
}

st_status st_scene_set(st_scene *s, const char *target, const char *value, st_error *err)
{
    if (!s || !target || !value)
        return st_error_set(err, ST_EINVAL, "st_scene_set: scene, target and value are required");
    char buf[ST_ERROR_PATH_MAX + 128];
    if (strlen(target) >= sizeof buf)
        return st_error_set(err, ST_EINVAL, "--set: path too long");
    snprintf(buf, sizeof buf, "%s", target);
    /* The field follows the last '.' after the last '/'. */
    char *slash = strrchr(buf, '/'), *dot = strrchr(slash ? slash : buf, '.');
    const char *field = dot ? dot + 1 : buf;
    if (dot)
        *dot = 0;
    const char *path = dot ? buf : "";
    if (!field[0])
        return st_error_set(err, ST_EINVAL,
                            "--set %s: no field named (write PATH.FIELD=VALUE, e.g. "
                            "/Beam/springs.stiffness=500, or dt=0.005)",
                            target);
    st_node *n = s->root;
    st_component *c = NULL;
    char where[ST_ERROR_PATH_MAX] = "/";
    const char *p = path[0] == '/' ? path + 1 : path;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char seg[256];
        if (len >= sizeof seg)
            return st_error_set(err, ST_EINVAL, "--set %s: name too long", target);
        memcpy(seg, p, len);
        seg[len] = 0;
        p += len + (e ? 1 : 0);
        if (!len)
            continue;
        if (c)
            return st_error_set(err, ST_EINVAL, "--set %s: '%s' is a component, not a node",
                                target, c->name);
        st_node *child = NULL;
        for (size_t i = 0; i < n->nchildren && !child; i++)
            if (!strcmp(n->children[i]->name, seg))
                child = n->children[i];
        if (child) {
            n = child;
            st_node_path(n, where, sizeof where);
            continue;
        }
        for (size_t i = 0; i < n->nobjects && !c; i++)
            if (!strcmp(n->objects[i]->name, seg))
                c = n->objects[i];
        if (!c) {
            const char *cands[256];
            size_t k = names_in(n, cands, 256, true);
            char in[ST_ERROR_PATH_MAX + 16];
            snprintf(in, sizeof in, "node '%s'", where);
            return no_such(err, target, "child node or component", seg, in, cands, k);
        }
    }
    st_status rc;
    if (c) {
        if (!st_component_field(c, field)) {
            const char *cands[256];
            size_t k = 0;
            st_cinfo *ci = st__cinfo(c);
            for (size_t i = 0; i < ci->nfields && k < 256; i++)
                cands[k++] = ci->fields[i]->name;
            char in[ST_ERROR_PATH_MAX + 64], cp[ST_ERROR_PATH_MAX];
            snprintf(in, sizeof in, "%s '%s'", c->cls->name, st_component_path(c, cp, sizeof cp));
            return no_such(err, target, "field", field, in, cands, k);
        }
        char label[ST_ERROR_PATH_MAX + 256];
        snprintf(label, sizeof label, "--set %s=%s", target, value);
        const char *kept = st__scene_intern(s, label);
        rc = kept ? st__component_set_labelled(c, field, value, kept, err)
                  : st_error_set(err, ST_ENOMEM, "out of memory");
    } else {
        bool known = false;
        for (size_t i = 0; i < sizeof node_keys / sizeof *node_keys; i++)
            known = known || !strcmp(field, node_keys[i]);
        if (!known) {
            char in[ST_ERROR_PATH_MAX + 16];
            snprintf(in, sizeof in, "node '%s'", where);
            const char *cands[300];
            size_t k = 0;
            for (size_t i = 0; i < sizeof node_keys / sizeof *node_keys; i++)
                cands[k++] = node_keys[i];
            k += names_in(n, cands + k, 256, true);
            return no_such(err, target, "key", field, in, cands, k);
        }
        if (n->parent)
            return st_error_set(err, ST_EINVAL,
                                "--set %s: '%s' is context data, which only the root node sets "
                                "(write --set %s=...)",
                                target, field, field);
        rc = st_node_set(n, field, value, err);
    }
    if (rc != ST_OK)
        st_error_prefix(err, "--set %s=%s: ", target, value);
    return rc;
}
