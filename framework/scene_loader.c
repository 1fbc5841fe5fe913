/* scene_loader.c - reads settee/1 YAML scenes into a scene graph.
 *
 * The text is parsed with libyaml's document API (aliases resolved), then
 * walked: the top-level mapping (format, root), nodes (name, context data,
 * objects, children) and objects (`Type: {field: value}`). Scalars are passed
 * to the kernel as text with their position: field types, not YAML's guesses,
 * decide what a value means. The merge key `<<` and duplicate keys, which
 * libyaml leaves to the application, are handled here. Every error found is
 * sent to the runtime's log sink; the first one is returned and the scene is
 * destroyed, so nothing half-loaded escapes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <yaml.h>

#include "internal.h"

#define LD_MAX_DEPTH 64          /* nesting of nodes, values and merges */
#define LD_MAX_ERRORS 100        /* errors reported before giving up */
#define LD_BUDGET_BASE 1000000ul /* work units (values, merges, nodes, objects) beyond */
#define LD_BUDGET_PER_NODE 8ul   /* ... this many per YAML node: bounds alias expansion */
#define LD_FORMAT "settee/1"

/* One key of a mapping after merge keys are expanded. */
typedef struct ld_kv {
    const char *key;
    yaml_node_t *knode;
    yaml_node_t *val;
} ld_kv;

typedef struct ld_kvlist {
    ld_kv *items;
    size_t n, cap;
} ld_kvlist;

typedef struct loader {
    st_runtime *rt;
    st_scene *scene;
    const char *file;   /* interned by the scene */
    const char *text;   /* the source, for hints on syntax errors */
    size_t len;
    yaml_document_t doc;
    st_error *first;    /* the caller's error: the first one found */
    int nerrors;
    unsigned long spent, budget; /* work done, and the most allowed */
    bool over;                   /* the budget ran out (reported once) */
} loader;

static const char *const node_keys[] = {"name", "gravity", "dt",      "time",
                                        "animate", "activated", "objects", "children"};
static const char *const top_keys[] = {"format", "root"};
#define NKEYS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- reporting ---- */

static st_mark ld_mark(const loader *ld, yaml_mark_t m)
{
    return (st_mark){ld->file, (int)m.line + 1, (int)m.column + 1};
}

static bool ld_stopped(const loader *ld) { return ld->nerrors >= LD_MAX_ERRORS; }

/* Sends an error to the log sink (unless already sent) and keeps the first. */
static void ld_report(loader *ld, st_error *e)
{
    if (e->code == ST_OK)
        e->code = ST_EINTERNAL;
    ld->nerrors++;
    if (!e->reported && ld->nerrors <= LD_MAX_ERRORS)
        st__log_error(ld->rt, e);
    e->reported = true;
    if (ld->nerrors == LD_MAX_ERRORS)
        st__log(ld->rt, ST_LOG_ERROR, ST_NO_MARK, NULL,
                "too many errors (%d): giving up on this scene", LD_MAX_ERRORS);
    if (ld->first->code == ST_OK)
        *ld->first = *e;
}

/* Reports an error at a position, about a component or node path (may be NULL). */
static void ld_error_at(loader *ld, st_status code, st_mark m, const char *path, const char *fmt,
                        ...) ST_PRINTF(5, 6);
static void ld_error_at(loader *ld, st_status code, st_mark m, const char *path, const char *fmt,
                        ...)
{
    char msg[ST_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    st_error e = {0};
    st__error_at(&e, code, m, "%s", msg);
    if (path && path[0] && strcmp(path, "/"))
        st_error_set_path(&e, path);
    ld_report(ld, &e);
}

/* Reports an error that came back from the kernel, adding the path when it has none. */
static void ld_report_kernel(loader *ld, st_error *e, const char *path)
{
    if (path && path[0] && strcmp(path, "/"))
        st_error_set_path(e, path);
    ld_report(ld, e);
}

static const char *kind_name(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SCALAR_NODE:
        return "a scalar";
    case YAML_SEQUENCE_NODE:
        return "a list";
    case YAML_MAPPING_NODE:
        return "a mapping";
    default:
        return "nothing";
    }
}

/* "did you mean 'a' or 'b'?" into buf, or "" when nothing is close. */
static const char *did_you_mean(const char **sugg, size_t n, char *buf, size_t size)
{
    buf[0] = 0;
    if (!n)
        return buf;
    size_t k = (size_t)snprintf(buf, size, "; did you mean ");
    for (size_t i = 0; i < n && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s'%s'",
                              i == 0 ? "" : (i + 1 == n ? " or " : ", "), sugg[i]);
    if (k < size)
        snprintf(buf + k, size - k, "?");
    return buf;
}

/* ---- YAML helpers ---- */

static yaml_node_t *ld_node(loader *ld, int id) { return yaml_document_get_node(&ld->doc, id); }

static const char *ld_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A plain empty, "~" or "null" scalar: YAML's null. */
static bool ld_is_null(const yaml_node_t *n)
{
    if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = (const char *)n->data.scalar.value;
    return !s[0] || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
           !strcmp(s, "NULL");
}

static size_t ld_pair_count(const yaml_node_t *n)
{
    return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
}

static const ld_kv *kv_get(const ld_kvlist *l, const char *key)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->items[i].key, key))
            return &l->items[i];
    return NULL;
}

static st_status kv_push(ld_kvlist *l, const char *key, yaml_node_t *k, yaml_node_t *v)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        ld_kv *p = st_realloc(l->items, cap * sizeof *p);
        if (!p)
            return ST_ENOMEM;
        l->items = p;
        l->cap = cap;
    }
    l->items[l->n++] = (ld_kv){key, k, v};
    return ST_OK;
}

static void kv_free(ld_kvlist *l)
{
    st_free(l->items);
    memset(l, 0, sizeof *l);
}

static void ld_oom(loader *ld)
{
    ld_error_at(ld, ST_ENOMEM, ST_NO_MARK, NULL, "out of memory while loading the scene");
}

/* Counts one unit of work; false (reported once) when aliases expand the
 * document beyond any reasonable size ("billion laughs"). */
static bool ld_spend(loader *ld, const yaml_node_t *at)
{
    if (++ld->spent <= ld->budget)
        return true;
    if (!ld->over)
        ld_error_at(ld, ST_ESCENE, ld_mark(ld, at->start_mark), NULL,
                    "the scene expands to more than %lu values through aliases; refusing it",
                    ld->budget);
    ld->over = true;
    ld->nerrors = LD_MAX_ERRORS; /* stop everything */
    return false;
}

/* Appends the keys of mapping map to out, expanding merge keys (`<<: *a`,
 * `<<: [*a, *b]`). Keys already in out (from a mapping of higher priority)
 * are kept; a key written twice in the same mapping is an error reported at
 * the second occurrence. what names the mapping's owner in messages. */
static void ld_flatten(loader *ld, yaml_node_t *map, const char *what, const char *keyword,
                       const char *path, ld_kvlist *out, int depth)
{
    if (depth > LD_MAX_DEPTH) {
        ld_error_at(ld, ST_ESCENE, ld_mark(ld, map->start_mark), path,
                    "%s: merge keys nested too deeply (a recursive alias?)", what);
        return;
    }
    if (!ld_spend(ld, map))
        return;
    size_t start = out->n;
    yaml_node_t *first_merge = NULL;
    /* Local keys first: they override merged ones. */
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = ld_node(ld, p->key), *v = ld_node(ld, p->value);
        if (!k || !v)
            continue;
        const char *key = ld_scalar(k);
        if (!key) {
            ld_error_at(ld, ST_ESCENE, ld_mark(ld, k->start_mark), path,
                        "%s: a key must be a plain name, found %s", what, kind_name(k));
            continue;
        }
        if (!strcmp(key, "<<") && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
            if (first_merge) {
                ld_error_at(ld, ST_ESCENE, ld_mark(ld, k->start_mark), path,
                            "%s: the merge key `<<` is written twice (first at line %d); merge "
                            "several mappings with `<<: [*a, *b]`",
                            what, (int)first_merge->start_mark.line + 1);
                continue;
            }
            first_merge = k;
            continue;
        }
        bool skip = false;
        for (size_t i = 0; i < out->n; i++) {
            if (strcmp(out->items[i].key, key))
                continue;
            if (i >= start)
                ld_error_at(ld, ST_ESCENE, ld_mark(ld, k->start_mark), path,
                            "%s: %s '%s' is set twice (first at line %d, column %d)", what,
                            keyword, key,
                            (int)out->items[i].knode->start_mark.line + 1,
                            (int)out->items[i].knode->start_mark.column + 1);
            skip = true;
            break;
        }
        if (!skip && kv_push(out, key, k, v) != ST_OK) {
            ld_oom(ld);
            return;
        }
    }
    if (!first_merge)
        return;
    /* Then the merged mappings, the first one listed winning. */
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = ld_node(ld, p->key), *v = ld_node(ld, p->value);
        if (k != first_merge || !v)
            continue;
        if (v->type == YAML_MAPPING_NODE) {
            ld_flatten(ld, v, what, keyword, path, out, depth + 1);
        } else if (v->type == YAML_SEQUENCE_NODE) {
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++) {
                yaml_node_t *m = ld_node(ld, *it);
                if (m && m->type == YAML_MAPPING_NODE) {
                    ld_flatten(ld, m, what, keyword, path, out, depth + 1);
                } else if (m) {
                    ld_error_at(ld, ST_ESCENE, ld_mark(ld, m->start_mark), path,
                                "%s: the merge key `<<` takes mappings (`<<: [*a, *b]`), found %s",
                                what, kind_name(m));
                }
            }
        } else {
            ld_error_at(ld, ST_ESCENE, ld_mark(ld, v->start_mark), path,
                        "%s: the merge key `<<` takes a mapping or a list of mappings (`<<: "
                        "*defaults`), found %s",
                        what, kind_name(v));
        }
    }
}

/* ---- values ---- */

static void ld_value_free(st_value *v)
{
    if (v->kind == ST_VAL_SEQ) {
        for (size_t i = 0; i < v->n; i++)
            ld_value_free(&v->items[i]);
        st_free(v->items);
    }
    memset(v, 0, sizeof *v);
}

/* Converts a YAML scalar or sequence into an st_value. Scalars keep their
 * text (borrowed from the document) and whether they were quoted. Returns
 * false after reporting an error. */
static bool ld_value(loader *ld, yaml_node_t *n, st_value *v, const char *what, const char *path,
                     int depth)
{
    memset(v, 0, sizeof *v);
    v->mark = ld_mark(ld, n->start_mark);
    if (depth > LD_MAX_DEPTH) {
        ld_error_at(ld, ST_ESCENE, v->mark, path,
                    "%s: value nested too deeply (a recursive alias?)", what);
        return false;
    }
    if (!ld_spend(ld, n))
        return false;
    switch (n->type) {
    case YAML_SCALAR_NODE:
        v->kind = ST_VAL_SCALAR;
        v->text = (const char *)n->data.scalar.value;
        v->quoted = n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                    n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        return true;
    case YAML_SEQUENCE_NODE: {
        size_t cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
        v->kind = ST_VAL_SEQ;
        if (!cnt)
            return true;
        v->items = st_calloc(cnt, sizeof *v->items);
        if (!v->items) {
            ld_oom(ld);
            return false;
        }
        for (size_t i = 0; i < cnt; i++) {
            yaml_node_t *c = ld_node(ld, n->data.sequence.items.start[i]);
            if (!c || !ld_value(ld, c, &v->items[i], what, path, depth + 1)) {
                v->n = i;
                ld_value_free(v);
                return false;
            }
        }
        v->n = cnt;
        return true;
    }
    default:
        ld_error_at(ld, ST_ESCENE, v->mark, path,
                    "%s: expected a value or a list of values, found a mapping", what);
        return false;
    }
}

/* ---- objects ---- */

static bool is_required_plugin(const st_class *cls)
{
    return cls == &st__required_plugin_class || !strcmp(cls->name, "RequiredPlugin");
}

static void ld_unknown_component(loader *ld, const char *type, st_mark m, const char *node_path)
{
    char plugin[256], hint[512], dym[512];
    const char *sugg[4];
    size_t ns = st_registry_suggest(st_runtime_registry(ld->rt), type, sugg, 3);
    did_you_mean(sugg, ns, dym, sizeof dym);
    hint[0] = 0;
    if (st_runtime_which_plugin(ld->rt, type, plugin, sizeof plugin))
        snprintf(hint, sizeof hint,
                 "; it is provided by plugin %s: add `- RequiredPlugin: {pluginName: %s}` before "
                 "it",
                 plugin, plugin);
    ld_error_at(ld, ST_ESCENE, m, node_path, "unknown component '%s'%s%s", type,
                hint[0] ? hint : dym,
                hint[0] || ns ? ""
                              : " (no loaded or installed plugin provides it; `settee inspect` "
                                "lists the components)");
}

/* Loads one entry of a node's `objects` list. */
static void ld_object(loader *ld, st_node *node, yaml_node_t *item, const char *node_path)
{
    st_mark m = ld_mark(ld, item->start_mark);
    if (!ld_spend(ld, item))
        return;
    if (item->type != YAML_MAPPING_NODE || ld_pair_count(item) == 0) {
        ld_error_at(ld, ST_ESCENE, m, node_path,
                    "an object is a one-key mapping `Type: {field: value, ...}` (e.g. `- "
                    "MechanicalObject: {name: dofs}`), found %s",
                    item->type == YAML_MAPPING_NODE ? "an empty mapping" : kind_name(item));
        return;
    }
    yaml_node_pair_t *p0 = item->data.mapping.pairs.start;
    yaml_node_t *k = ld_node(ld, p0->key), *v = ld_node(ld, p0->value);
    if (!k || !v)
        return;
    const char *type = ld_scalar(k);
    if (ld_pair_count(item) > 1) {
        char keys[256];
        size_t len = 0;
        keys[0] = 0;
        for (yaml_node_pair_t *p = p0; p < item->data.mapping.pairs.top && len < sizeof keys; p++) {
            const char *s = ld_scalar(ld_node(ld, p->key));
            len += (size_t)snprintf(keys + len, sizeof keys - len, "%s%s", p == p0 ? "" : ", ",
                                    s ? s : "?");
        }
        ld_error_at(ld, ST_ESCENE, m, node_path,
                    "an object is a one-key mapping `Type: {field: value, ...}`, this one has %zu "
                    "keys (%s)%s",
                    ld_pair_count(item), keys,
                    ld_is_null(v) ? ": indent the fields under the type, or write them in braces "
                                    "on its line (`- MechanicalObject: {name: dofs}`)"
                                  : "");
        return;
    }
    if (!type || !type[0]) {
        ld_error_at(ld, ST_ESCENE, ld_mark(ld, k->start_mark), node_path,
                    "an object's key is its component type (e.g. `MechanicalObject`), found %s",
                    type ? "an empty key" : kind_name(k));
        return;
    }
    m = ld_mark(ld, k->start_mark);
    const st_class *cls = st_registry_find(st_runtime_registry(ld->rt), type);
    if (!cls) {
        ld_unknown_component(ld, type, m, node_path);
        return;
    }
    char what[512];
    snprintf(what, sizeof what, "%s", type);
    if (!ld_is_null(v) && v->type != YAML_MAPPING_NODE) {
        ld_error_at(ld, ST_ESCENE, ld_mark(ld, v->start_mark), node_path,
                    "the fields of %s must be a mapping (`%s: {name: x}`) or empty, found %s",
                    type, type, kind_name(v));
        return;
    }
    ld_kvlist fields = {0};
    if (v->type == YAML_MAPPING_NODE)
        ld_flatten(ld, v, what, "field", node_path, &fields, 0);

    /* The name goes to creation (SOFA's default naming when absent). */
    const char *name = NULL;
    const ld_kv *nkv = kv_get(&fields, "name");
    if (nkv) {
        name = ld_scalar(nkv->val);
        if (!name || !name[0]) {
            ld_error_at(ld, ST_ESCENE, ld_mark(ld, nkv->val->start_mark), node_path,
                        "%s: field 'name' expects a non-empty string, found %s", type,
                        name ? "an empty value" : kind_name(nkv->val));
            name = NULL;
        }
    }
    st_component *comp = NULL;
    st_error e = {0};
    if (st__component_create(node, cls, name, m, &comp, &e) != ST_OK) {
        ld_report_kernel(ld, &e, node_path);
        kv_free(&fields);
        return;
    }
    char cpath[ST_ERROR_PATH_MAX];
    st_component_path(comp, cpath, sizeof cpath);
    snprintf(what, sizeof what, "%s '%s'", type, comp->name);
    int before = ld->nerrors;
    for (size_t i = 0; i < fields.n && !ld_stopped(ld); i++) {
        const ld_kv *f = &fields.items[i];
        if (f == nkv)
            continue;
        char fwhat[640];
        snprintf(fwhat, sizeof fwhat, "%s: field '%s'", what, f->key);
        st_value val;
        if (!ld_value(ld, f->val, &val, fwhat, cpath, 0))
            continue;
        /* An unknown field is reported at its key, other errors at the value. */
        if (st__component_field_index(comp, f->key) < 0)
            val.mark = ld_mark(ld, f->knode->start_mark);
        st_error_clear(&e);
        if (st__component_set_value(comp, f->key, &val, &e) != ST_OK)
            ld_report_kernel(ld, &e, cpath);
        ld_value_free(&val);
    }
    kv_free(&fields);
    /* SOFA loads plugins while parsing, so later objects can use them. */
    if (is_required_plugin(cls) && ld->nerrors == before) {
        st_error_clear(&e);
        if (st__required_plugin_load(comp, &e) != ST_OK) {
            if (!e.where[0]) {
                char msg[ST_ERROR_MSG_MAX];
                memcpy(msg, e.msg, sizeof msg);
                st__error_at(&e, e.code, m, "%s", msg);
            }
            ld_report_kernel(ld, &e, cpath);
        }
    }
}

/* ---- nodes ---- */

static void ld_node_tree(loader *ld, yaml_node_t *yn, st_node *parent, int depth);

static bool is_context_key(const char *k)
{
    for (size_t i = 1; i <= 5; i++)
        if (!strcmp(k, node_keys[i]))
            return true;
    return false;
}

static void ld_unknown_node_key(loader *ld, const ld_kv *kv, const char *path)
{
    const char *sugg[3];
    char dym[256], extra[512];
    size_t ns = st__suggest(kv->key, node_keys, NKEYS(node_keys), sugg, 2);
    did_you_mean(sugg, ns, dym, sizeof dym);
    extra[0] = 0;
    if (!ns && st_registry_find(st_runtime_registry(ld->rt), kv->key))
        snprintf(extra, sizeof extra,
                 "; '%s' is a component: list it under the node's `objects` (`- %s: {...}`)",
                 kv->key, kv->key);
    else if (!ns && !strcmp(kv->key, "format"))
        snprintf(extra, sizeof extra, "; `format` belongs at the top of the file");
    ld_error_at(ld, ST_ESCENE, ld_mark(ld, kv->knode->start_mark), path,
                "unknown node key '%s'%s%s (a node has: name, gravity, dt, time, animate, "
                "activated, objects, children)",
                kv->key, dym, extra);
}

static void ld_objects(loader *ld, st_node *node, const ld_kv *kv, const char *path)
{
    yaml_node_t *v = kv->val;
    if (ld_is_null(v))
        return;
    if (v->type != YAML_SEQUENCE_NODE) {
        ld_error_at(ld, ST_ESCENE, ld_mark(ld, v->start_mark), path,
                    "`objects` must be a list of one-key mappings (`- MechanicalObject: {name: "
                    "dofs}`), found %s",
                    kind_name(v));
        return;
    }
    for (yaml_node_item_t *it = v->data.sequence.items.start;
         it < v->data.sequence.items.top && !ld_stopped(ld); it++) {
        yaml_node_t *item = ld_node(ld, *it);
        if (item)
            ld_object(ld, node, item, path);
    }
}

static void ld_children(loader *ld, st_node *node, const ld_kv *kv, const char *path, int depth)
{
    yaml_node_t *v = kv->val;
    if (ld_is_null(v))
        return;
    if (v->type != YAML_SEQUENCE_NODE) {
        ld_error_at(ld, ST_ESCENE, ld_mark(ld, v->start_mark), path,
                    "`children` must be a list of nodes (`- name: Child`), found %s",
                    kind_name(v));
        return;
    }
    for (yaml_node_item_t *it = v->data.sequence.items.start;
         it < v->data.sequence.items.top && !ld_stopped(ld); it++) {
        yaml_node_t *c = ld_node(ld, *it);
        if (!c)
            continue;
        if (c->type != YAML_MAPPING_NODE) {
            ld_error_at(ld, ST_ESCENE, ld_mark(ld, c->start_mark), path,
                        "a child node must be a mapping (`- name: Child`, objects, children), "
                        "found %s",
                        kind_name(c));
            continue;
        }
        ld_node_tree(ld, c, node, depth + 1);
    }
}

/* Loads a node (a mapping) and its subtree. parent NULL: the root. */
static void ld_node_tree(loader *ld, yaml_node_t *yn, st_node *parent, int depth)
{
    char ppath[ST_ERROR_PATH_MAX] = "";
    if (parent)
        st_node_path(parent, ppath, sizeof ppath);
    if (depth > LD_MAX_DEPTH) {
        ld_error_at(ld, ST_ESCENE, ld_mark(ld, yn->start_mark), ppath,
                    "nodes nested too deeply (more than %d levels)", LD_MAX_DEPTH);
        return;
    }
    if (!ld_spend(ld, yn))
        return;
    ld_kvlist keys = {0};
    ld_flatten(ld, yn, "node", "key", ppath, &keys, 0);

    const char *name = parent ? NULL : "root";
    const ld_kv *nkv = kv_get(&keys, "name");
    if (nkv) {
        const char *s = ld_scalar(nkv->val);
        if (!s || !s[0] || strchr(s, '/'))
            ld_error_at(ld, ST_ESCENE, ld_mark(ld, nkv->val->start_mark), ppath,
                        "a node's `name` must be a non-empty name without '/', found %s",
                        !s ? kind_name(nkv->val) : (s[0] ? "a path" : "an empty value"));
        else
            name = s;
    } else if (parent) {
        ld_error_at(ld, ST_ESCENE, ld_mark(ld, yn->start_mark), ppath,
                    "a child node needs a `name` (`- name: Child`)");
    }
    st_node *node = NULL;
    st_error e = {0};
    if (st__node_create(ld->scene, parent, name ? name : "unnamed", ld_mark(ld, yn->start_mark),
                        &node, &e) != ST_OK) {
        ld_report_kernel(ld, &e, ppath);
        kv_free(&keys);
        return;
    }
    char path[ST_ERROR_PATH_MAX];
    st_node_path(node, path, sizeof path);

    /* Context data and key checks first, then objects (which may load
     * plugins), then children. */
    const ld_kv *objects = NULL, *children = NULL;
    for (size_t i = 0; i < keys.n && !ld_stopped(ld); i++) {
        const ld_kv *kv = &keys.items[i];
        if (kv == nkv)
            continue;
        if (!strcmp(kv->key, "objects")) {
            objects = kv;
        } else if (!strcmp(kv->key, "children")) {
            children = kv;
        } else if (is_context_key(kv->key)) {
            char what[128];
            snprintf(what, sizeof what, "node '%s': `%s`", node->name, kv->key);
            st_value val;
            if (!ld_value(ld, kv->val, &val, what, path, 0))
                continue;
            st_error_clear(&e);
            if (st__node_set_value(node, kv->key, &val, &e) != ST_OK)
                ld_report_kernel(ld, &e, path);
            ld_value_free(&val);
        } else {
            ld_unknown_node_key(ld, kv, path);
        }
    }
    if (objects && !ld_stopped(ld))
        ld_objects(ld, node, objects, path);
    if (children && !ld_stopped(ld))
        ld_children(ld, node, children, path, depth);
    kv_free(&keys);
}

/* ---- the file ---- */

static void ld_top(loader *ld)
{
    yaml_node_t *top = yaml_document_get_root_node(&ld->doc);
    if (!top) {
        ld_error_at(ld, ST_ESCENE, (st_mark){ld->file, 1, 1}, NULL,
                    "empty scene: a scene file starts with `format: " LD_FORMAT
                    "` followed by `root:` (the root node)");
        return;
    }
    st_mark tm = ld_mark(ld, top->start_mark);
    if (top->type != YAML_MAPPING_NODE) {
        ld_error_at(ld, ST_ESCENE, tm, NULL,
                    "a scene file is a mapping with `format: " LD_FORMAT
                    "` and `root:` (the root node), found %s",
                    kind_name(top));
        return;
    }
    ld_kvlist keys = {0};
    ld_flatten(ld, top, "scene", "key", NULL, &keys, 0);
    const ld_kv *fmt = kv_get(&keys, "format"), *root = kv_get(&keys, "root");
    if (!fmt) {
        ld_error_at(ld, ST_ESCENE, tm, NULL,
                    "missing `format: " LD_FORMAT "` (the first line of a settee scene)");
    } else {
        const char *s = ld_scalar(fmt->val);
        if (!s || strcmp(s, LD_FORMAT)) {
            ld_error_at(ld, ST_ESCENE, ld_mark(ld, fmt->val->start_mark), NULL,
                        "unsupported scene format '%s': this version of settee reads `format: "
                        "" LD_FORMAT "`",
                        s ? s : kind_name(fmt->val));
            kv_free(&keys);
            return;
        }
    }
    for (size_t i = 0; i < keys.n; i++) {
        const ld_kv *kv = &keys.items[i];
        if (kv == fmt || kv == root)
            continue;
        const char *sugg[2];
        char dym[256];
        size_t ns = st__suggest(kv->key, top_keys, NKEYS(top_keys), sugg, 2);
        bool nodekey = false;
        for (size_t j = 0; j < NKEYS(node_keys); j++)
            nodekey = nodekey || !strcmp(kv->key, node_keys[j]);
        ld_error_at(ld, ST_ESCENE, ld_mark(ld, kv->knode->start_mark), NULL,
                    "unknown top-level key '%s'%s (a scene file has `format` and `root`)%s",
                    kv->key, did_you_mean(sugg, ns, dym, sizeof dym),
                    nodekey ? "; node keys such as this one go under `root:`" : "");
    }
    if (!root) {
        ld_error_at(ld, ST_ESCENE, tm, NULL,
                    "missing `root:` (the root node: name, objects, children)");
    } else if (root->val->type != YAML_MAPPING_NODE) {
        ld_error_at(ld, ST_ESCENE, ld_mark(ld, root->val->start_mark), NULL,
                    "`root` must be a mapping (a node with name, objects, children), found %s",
                    ld_is_null(root->val) ? "nothing" : kind_name(root->val));
    } else {
        ld_node_tree(ld, root->val, NULL, 0);
    }
    kv_free(&keys);
}

/* The byte offset of a libyaml mark (line and column in characters). */
static size_t ld_offset(const loader *ld, yaml_mark_t m)
{
    size_t i = 0, line = 0;
    while (i < ld->len && line < m.line) {
        if (ld->text[i] == '\n')
            line++;
        i++;
    }
    for (size_t c = 0; i < ld->len && c < m.column && ld->text[i] != '\n'; c++) {
        i++;
        while (i < ld->len && ((unsigned char)ld->text[i] & 0xC0) == 0x80)
            i++;
    }
    return i;
}

/* A YAML syntax error: libyaml's words plus a hint for common mistakes. */
static void ld_syntax_error(loader *ld, const yaml_parser_t *p)
{
    if (p->error == YAML_MEMORY_ERROR) {
        ld_oom(ld);
        return;
    }
    yaml_mark_t pm = p->problem_mark;
    if (p->error == YAML_READER_ERROR) {
        /* Reader errors carry a byte offset, not a mark. */
        memset(&pm, 0, sizeof pm);
        for (size_t i = 0; i < p->problem_offset && i < ld->len; i++) {
            if (ld->text[i] == '\n') {
                pm.line++;
                pm.column = 0;
            } else if (((unsigned char)ld->text[i] & 0xC0) != 0x80) {
                pm.column++;
            }
        }
    }
    const char *problem = p->problem ? p->problem : "unknown error";
    char ctx[256] = "", hint[512] = "";
    if (p->context && (p->context_mark.line != pm.line || p->context_mark.column != pm.column))
        snprintf(ctx, sizeof ctx, " (%s at line %d, column %d)", p->context,
                 (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);

    size_t off = ld_offset(ld, pm);
    size_t ls = off;
    while (ls > 0 && ld->text[ls - 1] != '\n')
        ls--;
    /* Tabs in the indentation of the line of the error (or the one where
     * the construct began). */
    bool tab = off < ld->len && ld->text[off] == '\t';
    for (size_t i = ls; !tab && i < ld->len && (ld->text[i] == ' ' || ld->text[i] == '\t'); i++)
        tab = ld->text[i] == '\t';
    if (tab) {
        snprintf(hint, sizeof hint, ": YAML forbids tabs for indentation, indent with spaces");
    } else if (off < ld->len && ld->text[off] == '@') {
        size_t e = off;
        while (e < ld->len && !strchr(" \t\r\n,]}#", ld->text[e]))
            e++;
        snprintf(hint, sizeof hint, ": quote links: \"%.*s\" (YAML reserves '@' at the start of "
                 "a plain value)",
                 (int)(e - off > 200 ? 200 : e - off), ld->text + off);
    } else if (p->context && (strstr(p->context, "flow sequence") ||
                              strstr(p->context, "flow mapping"))) {
        bool seq = strstr(p->context, "flow sequence") != NULL;
        snprintf(hint, sizeof hint, ": the '%c' opened at line %d, column %d is not closed (a "
                 "missing '%c' or ',')",
                 seq ? '[' : '{', (int)p->context_mark.line + 1, (int)p->context_mark.column + 1,
                 seq ? ']' : '}');
    } else if (p->context && strstr(p->context, "quoted scalar")) {
        snprintf(hint, sizeof hint, ": the quote opened at line %d, column %d is not closed",
                 (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
    }
    ld_error_at(ld, ST_EPARSE, ld_mark(ld, pm), NULL, "YAML syntax error: %s%s%s", problem, ctx,
                hint);
}

static st_status ld_run(st_runtime *rt, const char *text, size_t len, const char *name,
                        st_scene **out, st_error *err)
{
    st_error_clear(err);
    st_error local = {0};
    if (!err)
        err = &local;
    if (out)
        *out = NULL;
    if (!rt || !out || (!text && len))
        return st_error_set(err, ST_EINVAL, "st_scene_load: runtime, text and out are required");
    if (!name)
        name = "<string>";

    loader ld = {0};
    ld.rt = rt;
    ld.first = err;
    ld.text = text ? text : "";
    ld.len = len;
    if (st__scene_new(rt, name, &ld.scene, err) != ST_OK) {
        st__log_error(rt, err);
        err->reported = true;
        return err->code;
    }
    ld.file = st__scene_intern(ld.scene, name);
    if (!ld.file)
        ld.file = ld.scene->file;

    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        ld_oom(&ld);
        st_scene_destroy(&ld.scene);
        return err->code;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)ld.text, len);
    if (!yaml_parser_load(&parser, &ld.doc)) {
        ld_syntax_error(&ld, &parser);
    } else {
        ld.budget = LD_BUDGET_BASE +
                    LD_BUDGET_PER_NODE * (unsigned long)(ld.doc.nodes.top - ld.doc.nodes.start);
        ld_top(&ld);
        /* One document per file: a second one is an error, not ignored. */
        if (ld.nerrors == 0) {
            yaml_document_t next;
            if (!yaml_parser_load(&parser, &next)) {
                ld_syntax_error(&ld, &parser);
            } else {
                yaml_node_t *r = yaml_document_get_root_node(&next);
                if (r)
                    ld_error_at(&ld, ST_ESCENE, ld_mark(&ld, r->start_mark), NULL,
                                "a scene file holds one YAML document; remove this second one "
                                "(or the `---` before it)");
                yaml_document_delete(&next);
            }
        }
        yaml_document_delete(&ld.doc);
    }
    yaml_parser_delete(&parser);

    if (ld.nerrors || err->code != ST_OK) {
        st_scene_destroy(&ld.scene);
        return err->code != ST_OK ? err->code : ST_EINTERNAL;
    }
    *out = ld.scene;
    return ST_OK;
}

st_status st_scene_load_string(st_runtime *rt, const char *text, size_t len, const char *name,
                               st_scene **out, st_error *err)
{
    return ld_run(rt, text, len, name, out, err);
}

st_status st_scene_load(st_runtime *rt, const char *path, st_scene **out, st_error *err)
{
    st_error local = {0};
    if (!err)
        err = &local;
    st_error_clear(err);
    if (out)
        *out = NULL;
    if (!rt || !path || !out)
        return st_error_set(err, ST_EINVAL, "st_scene_load: runtime, path and out are required");
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int saved = 0;
    if (f) {
        for (;;) {
            if (len + 4096 + 1 > cap) {
                size_t ncap = cap ? 2 * cap : 16384;
                char *p = st_realloc(buf, ncap);
                if (!p) {
                    st_free(buf);
                    fclose(f);
                    st_error_set(err, ST_ENOMEM, "out of memory reading scene file '%s'", path);
                    st__log_error(rt, err);
                    err->reported = true;
                    return ST_ENOMEM;
                }
                buf = p;
                cap = ncap;
            }
            size_t k = fread(buf + len, 1, cap - len - 1, f);
            len += k;
            if (k == 0) {
                if (ferror(f))
                    saved = errno ? errno : EIO;
                break;
            }
        }
        fclose(f);
    } else {
        saved = errno;
    }
    if (!f || saved) {
        st_free(buf);
        st_error_set_at(err, ST_EIO, path, 0, 0, "cannot read scene file '%s': %s", path,
                        strerror(saved));
        st__log_error(rt, err);
        err->reported = true;
        return ST_EIO;
    }
    buf[len] = 0;
    st_status s = ld_run(rt, buf, len, path, out, err);
    st_free(buf);
    return s;
}
