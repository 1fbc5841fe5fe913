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
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "scenefile/scene_desc.h"
#include "common/regular_file.h"
#include "common/yaml_depth.h"

#define LD_MAX_DEPTH 64          /* nesting of nodes, values and merges */
#define LD_MAX_EVENT_DEPTH 256   /* any nesting in the file (checked before loading) */
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
    st_desc *desc;      /* what the file describes */
    st_report *rep;     /* errors */
    const char *file;   /* interned by the scene */
    const char *text;   /* the source, for hints on syntax errors */
    size_t len;
    yaml_document_t doc;
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

static bool ld_stopped(const loader *ld) { return st__report_stopped(ld->rep); }

/* Reports an error at a position, about a component or node path (may be NULL). */
#define ld_error_at(ld, ...) st__report_at((ld)->rep, __VA_ARGS__)

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

#define did_you_mean st__did_you_mean

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
    ld->rep->nerrors = ST_LOAD_MAX_ERRORS; /* stop everything */
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

/* Loads one entry of a node's `objects` list. */
static void ld_object(loader *ld, st_dnode *node, yaml_node_t *item, const char *node_path)
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
    char what[512];
    snprintf(what, sizeof what, "%s", type);
    if (!ld_is_null(v) && v->type != YAML_MAPPING_NODE) {
        ld_error_at(ld, ST_ESCENE, ld_mark(ld, v->start_mark), node_path,
                    "the fields of %s must be a mapping (`%s: {name: x}`) or empty, found %s",
                    type, type, kind_name(v));
        return;
    }
    st_dobj *o = st__desc_obj(ld->desc, node, type, m);
    if (!o) {
        ld_oom(ld);
        return;
    }
    ld_kvlist fields = {0};
    if (v->type == YAML_MAPPING_NODE)
        ld_flatten(ld, v, what, "field", node_path, &fields, 0);
    for (size_t i = 0; i < fields.n && !ld_stopped(ld); i++) {
        const ld_kv *f = &fields.items[i];
        char fwhat[640];
        snprintf(fwhat, sizeof fwhat, "%s: field '%s'", what, f->key);
        st_value val;
        if (!ld_value(ld, f->val, &val, fwhat, node_path, 0))
            continue;
        if (!st__desc_attr(ld->desc, &o->attrs, &o->nattrs, &o->capattrs, f->key,
                           ld_mark(ld, f->knode->start_mark), &val))
            ld_oom(ld);
        ld_value_free(&val);
    }
    kv_free(&fields);
}

/* ---- nodes ---- */

static void ld_node_tree(loader *ld, yaml_node_t *yn, st_dnode *parent, int depth,
                         const char *ppath);

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

static void ld_objects(loader *ld, st_dnode *node, const ld_kv *kv, const char *path)
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

static void ld_children(loader *ld, st_dnode *node, const ld_kv *kv, const char *path, int depth)
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
        ld_node_tree(ld, c, node, depth + 1, path);
    }
}

/* Reads a node (a mapping) and its subtree. parent NULL: the root. ppath
 * is the parent's path in messages. */
static void ld_node_tree(loader *ld, yaml_node_t *yn, st_dnode *parent, int depth,
                         const char *ppath)
{
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
    st_dnode *node = st__desc_node(ld->desc, parent, name, ld_mark(ld, yn->start_mark));
    if (!node) {
        ld_oom(ld);
        kv_free(&keys);
        return;
    }
    if (nkv)
        node->name_mark = ld_mark(ld, nkv->val->start_mark);
    char path[ST_ERROR_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", parent && strcmp(ppath, "/") ? ppath : "",
             parent ? (name ? name : "unnamed") : "");

    /* Context data and key checks first, then objects, then children. */
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
            snprintf(what, sizeof what, "node '%s': `%s`", name ? name : "unnamed", kv->key);
            st_value val;
            if (!ld_value(ld, kv->val, &val, what, path, 0))
                continue;
            if (!st__desc_attr(ld->desc, &node->attrs, &node->nattrs, &node->capattrs, kv->key,
                               ld_mark(ld, kv->knode->start_mark), &val))
                ld_oom(ld);
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
        ld_node_tree(ld, root->val, NULL, 0, "");
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

/* Walks the event stream once, before libyaml builds the document, and
 * refuses nesting deeper than any scene needs: building a document of 10^5
 * nested lists takes libyaml minutes, the event stream stops at the limit.
 * A syntax error is left to the load that follows (it reports it). */
static bool ld_depth_ok(loader *ld)
{
    yaml_mark_t at;
    bool oom;
    if (yaml_depth_ok(ld->text, ld->len, LD_MAX_EVENT_DEPTH, &at, &oom))
        return true;
    if (oom)
        ld_oom(ld);
    else
        ld_error_at(ld, ST_ESCENE, ld_mark(ld, at), NULL, "values nested more than %d levels deep",
                    LD_MAX_EVENT_DEPTH);
    return false;
}

void st__yaml_read(st_scene *s, const char *file, const char *text, size_t len, st_desc *d,
                   st_report *r)
{
    loader ld = {0};
    ld.rt = r->rt;
    ld.scene = s;
    ld.desc = d;
    ld.rep = r;
    ld.file = file;
    ld.text = text ? text : "";
    ld.len = len;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        ld_oom(&ld);
        return;
    }
    if (!ld_depth_ok(&ld)) {
        yaml_parser_delete(&parser);
        return;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)ld.text, len);
    if (!yaml_parser_load(&parser, &ld.doc)) {
        ld_syntax_error(&ld, &parser);
    } else {
        ld.budget = LD_BUDGET_BASE +
                    LD_BUDGET_PER_NODE * (unsigned long)(ld.doc.nodes.top - ld.doc.nodes.start);
        ld_top(&ld);
        /* One document per file: a second one is an error, not ignored. */
        if (r->nerrors == 0) {
            yaml_document_t next;
            if (!yaml_parser_load(&parser, &next)) {
                ld_syntax_error(&ld, &parser);
            } else {
                yaml_node_t *root = yaml_document_get_root_node(&next);
                if (root)
                    ld_error_at(&ld, ST_ESCENE, ld_mark(&ld, root->start_mark), NULL,
                                "a scene file holds one YAML document; remove this second one "
                                "(or the `---` before it)");
                yaml_document_delete(&next);
            }
        }
        yaml_document_delete(&ld.doc);
    }
    yaml_parser_delete(&parser);
}

st_scene_format st__scene_format_of(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (n >= 4 && (!strcasecmp(path + n - 4, ".scn") || !strcasecmp(path + n - 4, ".xml")))
        return ST_FMT_XML;
    return ST_FMT_YAML;
}

/* Reads text in the format its name implies into a description; the scene
 * (created here) interns file names. On error nothing is returned. */
st_status st__scene_describe(st_runtime *rt, const char *text, size_t len, const char *name,
                             st_scene **scene, st_desc *d, st_report *r)
{
    st_error *err = r->first;
    if (st__scene_new(rt, name, scene, err) != ST_OK) {
        st__log_error(rt, err);
        err->reported = true;
        return err->code;
    }
    const char *file = st__scene_intern(*scene, name);
    if (!file)
        file = (*scene)->file;
    if (st__scene_format_of(name) == ST_FMT_XML)
        st__xml_read(*scene, file, text, len, d, r);
    else
        st__yaml_read(*scene, file, text, len, d, r);
    return r->nerrors || err->code != ST_OK ? (err->code != ST_OK ? err->code : ST_EINTERNAL)
                                            : ST_OK;
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
    st__log_forget(rt);
    st_report rep = {rt, err, 0};
    st_desc d = {0};
    st_scene *s = NULL;
    /* Build even after reading errors, so that one pass reports them all. */
    if (st__scene_describe(rt, text ? text : "", len, name, &s, &d, &rep) != ST_OK && !s)
        return err->code;
    st__desc_build(&d, s, &rep);
    st__desc_free(&d);
    if (rep.nerrors || err->code != ST_OK) {
        st_scene_destroy(&s);
        return err->code != ST_OK ? err->code : ST_EINTERNAL;
    }
    *out = s;
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
    bool handled = false;
    st_status rs = st__scene_load_by_reader(rt, path, out, &handled, err);
    if (handled)
        return rs;
    char *buf = NULL;
    size_t len = 0;
    if (st__read_file(path, &buf, &len, err) != ST_OK) {
        if (err->code == ST_EIO && strncmp(err->msg, "cannot read scene file", 22)) {
            char msg[ST_ERROR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg + strlen("cannot read "));
            st_error_set_at(err, ST_EIO, path, 0, 0, "cannot read scene file %s", msg);
        }
        st__log_error(rt, err);
        err->reported = true;
        return err->code;
    }
    st_status s = ld_run(rt, buf, len, path, out, err);
    st_free(buf);
    return s;
}
