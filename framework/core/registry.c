/* registry.c - component classes by name and alias, with the plugin that
 * registered each.
 *
 * Two plugins may register the same name (SOFA's factory keeps several
 * creators per class name too). Such a name is ambiguous: a scene names the
 * one it wants as "Plugin::Class", or the runtime prefers a plugin
 * (st_registry_prefer, SETTEE_PREFER_PLUGIN); an ambiguous name left
 * unresolved is an error naming every provider, never a silent choice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/core.h"

typedef struct entry {
    const char *name;      /* the class name or one of its aliases */
    const st_class *cls;
    char *plugin;          /* owned */
    char *file;            /* owned */
    bool alias;
} entry;

struct st_registry {
    entry *e;
    size_t n, cap;
    /* Attribution of st_registry_add (NULL = kernel): borrowed from the
     * caller for the duration of a registration, copied into each entry. */
    const char *cur_plugin;
    const char *cur_file;
    /* Preferred plugins, most recent first wins (owned). */
    char **prefer;
    size_t nprefer;
    /* Scene readers by extension (reader.h, ABI 2.4), with their plugins. */
    struct reader_entry {
        const st_scene_reader *rd;
        char *plugin; /* owned */
    } *readers;
    size_t nreaders;
};

st_status st__registry_create(st_registry **out, st_error *err)
{
    *out = st_calloc(1, sizeof **out);
    if (!*out)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    return ST_OK;
}

void st__registry_destroy(st_registry **r)
{
    if (!r || !*r)
        return;
    for (size_t i = 0; i < (*r)->n; i++) {
        st_free((*r)->e[i].plugin);
        st_free((*r)->e[i].file);
    }
    for (size_t i = 0; i < (*r)->nprefer; i++)
        st_free((*r)->prefer[i]);
    st_free((*r)->prefer);
    for (size_t i = 0; i < (*r)->nreaders; i++)
        st_free((*r)->readers[i].plugin);
    st_free((*r)->readers);
    st_free((*r)->e);
    st_free(*r);
    *r = NULL;
}

void st__registry_set_current(st_registry *r, const char *plugin, const char *file)
{
    /* Nothing is allocated here: a failure could only be silent. */
    r->cur_plugin = plugin;
    r->cur_file = file;
}

static st_status push(st_registry *r, const char *name, const st_class *cls, bool alias,
                      st_error *err)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        entry *e = st_realloc(r->e, cap * sizeof *e);
        if (!e)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        r->e = e;
        r->cap = cap;
    }
    entry *e = &r->e[r->n];
    e->name = name;
    e->cls = cls;
    e->alias = alias;
    e->plugin = st_strdup(r->cur_plugin ? r->cur_plugin : "(kernel)");
    e->file = st_strdup(r->cur_file ? r->cur_file : "");
    if (!e->plugin || !e->file) {
        st_free(e->plugin);
        st_free(e->file);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    r->n++;
    return ST_OK;
}

static st_status check_class(const st_class *cls, st_error *err)
{
    if (!cls || !cls->name || !cls->name[0])
        return st_error_set(err, ST_EINVAL, "a class without a name cannot be registered");
    if (cls->struct_size < offsetof(st_class, forcefield))
        return st_error_set(err, ST_EABI, "class '%s': struct_size %zu is too small", cls->name,
                            cls->struct_size);
    if (cls->instance_size < sizeof(st_component))
        return st_error_set(err, ST_EINVAL,
                            "class '%s': instance_size %zu is smaller than st_component", cls->name,
                            cls->instance_size);
    for (const st_field *f = cls->fields; f && f->name; f++) {
        if ((unsigned)f->type == 0 || f->type >= ST_T_TYPE_COUNT)
            return st_error_set(err, ST_EINVAL, "class '%s': field '%s' has an unknown type",
                                cls->name, f->name);
        if (f->offset + sizeof(double) > cls->instance_size + sizeof(double) &&
            f->offset >= cls->instance_size)
            return st_error_set(err, ST_EINVAL,
                                "class '%s': field '%s' lies outside the instance", cls->name,
                                f->name);
    }
    return ST_OK;
}

st_status st_registry_add(st_registry *r, const st_class *cls, st_error *err)
{
    ST_TRY(check_class(cls, err));
    const char *names[64];
    size_t nn = 0;
    names[nn++] = cls->name;
    for (const char *const *a = cls->aliases; a && *a && nn < 64; a++)
        names[nn++] = *a;
    const char *mine = r->cur_plugin ? r->cur_plugin : "(kernel)";
    const char *myfile = r->cur_file ? r->cur_file : "";
    for (size_t i = 0; i < nn; i++) {
        if (strstr(names[i], "::"))
            return st_error_set(err, ST_EINVAL,
                                "class '%s': '::' is reserved for naming the plugin "
                                "(\"Plugin::Class\")",
                                names[i]);
        /* Another plugin's class of the same name is allowed (the name
         * becomes ambiguous); the same plugin twice is not. */
        for (size_t j = 0; j < r->n; j++)
            if (!strcmp(r->e[j].name, names[i]) && !strcmp(r->e[j].plugin, mine))
                return st_error_set(err, ST_EPLUGIN,
                                    "class '%s' is registered twice by plugin %s%s%s%s", names[i],
                                    mine, myfile[0] ? " (" : "", myfile, myfile[0] ? ")" : "");
    }
    for (size_t i = 0; i < nn; i++)
        ST_TRY(push(r, names[i], cls, i > 0, err));
    return ST_OK;
}

static bool preferred(const st_registry *r, const char *plugin, size_t *rank)
{
    for (size_t i = r->nprefer; i-- > 0;)
        if (!strcmp(r->prefer[i], plugin)) {
            *rank = i;
            return true;
        }
    return false;
}

/* The entry a name resolves to, or NULL (unknown, or ambiguous: *nprov > 1
 * providers and none preferred). */
static const entry *resolve(const st_registry *r, const char *name, size_t *nprov)
{
    *nprov = 0;
    const char *sep = strstr(name, "::");
    if (sep) {
        size_t lp = (size_t)(sep - name);
        for (size_t i = 0; i < r->n; i++)
            if (!strcmp(r->e[i].name, sep + 2) && strlen(r->e[i].plugin) == lp &&
                !strncmp(r->e[i].plugin, name, lp)) {
                *nprov = 1;
                return &r->e[i];
            }
        return NULL;
    }
    const entry *found = NULL, *best = NULL;
    size_t best_rank = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(r->e[i].name, name))
            continue;
        (*nprov)++;
        found = &r->e[i];
        size_t rank;
        if (preferred(r, r->e[i].plugin, &rank) && (!best || rank > best_rank)) {
            best = &r->e[i];
            best_rank = rank;
        }
    }
    if (*nprov == 1)
        return found;
    return best;
}

const st_class *st_registry_find(const st_registry *r, const char *name)
{
    if (!r || !name)
        return NULL;
    size_t np;
    const entry *e = resolve(r, name, &np);
    return e ? e->cls : NULL;
}

size_t st_registry_providers(const st_registry *r, const char *name, const char **plugins,
                             const char **files, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; r && name && i < r->n; i++)
        if (!strcmp(r->e[i].name, name)) {
            if (k < max) {
                if (plugins)
                    plugins[k] = r->e[i].plugin;
                if (files)
                    files[k] = r->e[i].file;
            }
            k++;
        }
    return k;
}

st_status st_registry_prefer(st_registry *r, const char *plugin, st_error *err)
{
    if (!r || !plugin || !plugin[0])
        return st_error_set(err, ST_EINVAL, "st_registry_prefer: no plugin name");
    char **p = st_realloc(r->prefer, (r->nprefer + 1) * sizeof *p);
    if (!p)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    r->prefer = p;
    if (!(p[r->nprefer] = st_strdup(plugin)))
        return st_error_set(err, ST_ENOMEM, "out of memory");
    r->nprefer++;
    return ST_OK;
}

const char *st__registry_ambiguity(const st_registry *r, const char *name, char *buf, size_t size)
{
    const char *pl[8], *fl[8];
    size_t n = st_registry_providers(r, name, pl, fl, 8);
    buf[0] = 0;
    if (n < 2 || strstr(name, "::"))
        return NULL;
    size_t len = 0;
    int k = snprintf(buf, size, "component '%s' is registered by %zu plugins:", name, n);
    len = k > 0 ? (size_t)k : 0;
    for (size_t i = 0; i < n && i < 8 && len < size; i++) {
        k = snprintf(buf + len, size - len, "%s %s%s%s%s", i ? "," : "", pl[i],
                     fl[i][0] ? " (" : "", fl[i], fl[i][0] ? ")" : "");
        len += k > 0 ? (size_t)k : 0;
    }
    if (len < size)
        snprintf(buf + len, size - len,
                 "; write '%s::%s' to choose one, or prefer a plugin with "
                 "SETTEE_PREFER_PLUGIN=%s",
                 pl[n > 1 ? 1 : 0], name, pl[n > 1 ? 1 : 0]);
    return buf;
}

size_t st_registry_suggest(const st_registry *r, const char *name, const char **out, size_t max)
{
    if (!r || !r->n)
        return 0;
    const char **cands = st_malloc(r->n * sizeof *cands);
    if (!cands)
        return 0;
    for (size_t i = 0; i < r->n; i++)
        cands[i] = r->e[i].name;
    size_t k = st__suggest(name, cands, r->n, out, max);
    st_free(cands);
    return k;
}

size_t st_registry_count(const st_registry *r)
{
    size_t k = 0;
    for (size_t i = 0; r && i < r->n; i++)
        k += !r->e[i].alias;
    return k;
}

const st_class *st_registry_class(const st_registry *r, size_t i)
{
    for (size_t j = 0; r && j < r->n; j++)
        if (!r->e[j].alias && i-- == 0)
            return r->e[j].cls;
    return NULL;
}

const char *st_registry_class_plugin(const st_registry *r, const st_class *cls)
{
    for (size_t j = 0; r && j < r->n; j++)
        if (r->e[j].cls == cls)
            return r->e[j].plugin;
    return NULL;
}

const char *st__registry_class_file(const st_registry *r, const st_class *cls)
{
    for (size_t j = 0; r && j < r->n; j++)
        if (r->e[j].cls == cls)
            return r->e[j].file;
    return "";
}

const char *st__registry_name(const st_registry *r, size_t i)
{
    return r && i < r->n ? r->e[i].name : NULL;
}

const char *st__registry_reader_ext(const st_registry *r, size_t i)
{
    return r && i < r->nreaders ? r->readers[i].rd->extension : NULL;
}

void st__registry_remove_plugin(st_registry *r, const char *plugin)
{
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (!strcmp(r->e[i].plugin, plugin)) {
            st_free(r->e[i].plugin);
            st_free(r->e[i].file);
            continue;
        }
        r->e[k++] = r->e[i];
    }
    r->n = k;
    k = 0;
    for (size_t i = 0; i < r->nreaders; i++) {
        if (!strcmp(r->readers[i].plugin, plugin)) {
            st_free(r->readers[i].plugin);
            continue;
        }
        r->readers[k++] = r->readers[i];
    }
    r->nreaders = k;
}

/* ---- scene readers (reader.h) ---- */

static bool has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), m = strlen(ext);
    return m > 1 && n > m && !strcasecmp(path + n - m, ext);
}

st_status st_registry_add_reader(st_registry *r, const st_scene_reader *rd, st_error *err)
{
    if (!r || !rd || rd->struct_size < offsetof(st_scene_reader, read) + sizeof rd->read ||
        !rd->read || !rd->extension || rd->extension[0] != '.' || !rd->extension[1])
        return st_error_set(err, ST_EINVAL,
                            "a scene reader needs struct_size, an extension starting with '.' "
                            "(\".py\") and a read function");
    static const char *const own[] = {".yaml", ".yml", ".scn", ".xml"};
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (!strcasecmp(rd->extension, own[i]))
            return st_error_set(err, ST_EINVAL,
                                "scene reader for '%s': the kernel reads %s files itself",
                                rd->extension, own[i]);
    const char *mine = r->cur_plugin ? r->cur_plugin : "(kernel)";
    for (size_t i = 0; i < r->nreaders; i++)
        if (!strcasecmp(r->readers[i].rd->extension, rd->extension))
            return st_error_set(err, ST_EPLUGIN,
                                "plugin %s registers a scene reader for '%s', which plugin %s "
                                "already reads",
                                mine, rd->extension, r->readers[i].plugin);
    struct reader_entry *v = st_realloc(r->readers, (r->nreaders + 1) * sizeof *v);
    if (!v)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    r->readers = v;
    v[r->nreaders].rd = rd;
    v[r->nreaders].plugin = st_strdup(mine);
    if (!v[r->nreaders].plugin)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    r->nreaders++;
    return ST_OK;
}

const st_scene_reader *st_registry_find_reader(const st_registry *r, const char *path)
{
    if (!r || !path)
        return NULL;
    for (size_t i = 0; i < r->nreaders; i++)
        if (has_ext(path, r->readers[i].rd->extension))
            return r->readers[i].rd;
    return NULL;
}

bool st__class_has_role(const st_class *cls, st_role role)
{
    switch (role) {
    case ST_ROLE_ANY:
        return true;
    case ST_ROLE_STATE:
        return CLASS_HAS(cls, state);
    case ST_ROLE_FORCEFIELD:
        return cls->forcefield != NULL;
    case ST_ROLE_MASS:
        return cls->mass != NULL;
    case ST_ROLE_PROJECTIVE:
        return cls->projective != NULL;
    case ST_ROLE_MAPPING:
        return cls->mapping != NULL;
    case ST_ROLE_ODESOLVER:
        return cls->odesolver != NULL;
    case ST_ROLE_LINSOLVER:
        return cls->linsolver != NULL;
    case ST_ROLE_TOPOLOGY:
        return cls->topology != NULL;
    case ST_ROLE_ENGINE:
        return cls->engine != NULL;
    case ST_ROLE_ANIMLOOP:
        return cls->animloop != NULL;
    }
    return false;
}

st_registry *st_runtime_registry(st_runtime *rt) { return rt ? rt->reg : NULL; }
