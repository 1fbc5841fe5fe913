/* scene_build.c - the scene description (scene_desc.h): its memory, error
 * reporting shared by the readers, and the builder that makes the graph. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenefile/scene_desc.h"

/* ---- memory ---- */

static bool pool_push(void ***items, size_t *n, size_t *cap, void *p)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        void **q = st_realloc(*items, c * sizeof *q);
        if (!q)
            return false;
        *items = q;
        *cap = c;
    }
    (*items)[(*n)++] = p;
    return true;
}

static void *desc_alloc(st_desc *d, size_t size)
{
    void *p = st_calloc(1, size);
    if (p && !pool_push(&d->blocks, &d->nblocks, &d->capblocks, p)) {
        st_free(p);
        return NULL;
    }
    return p;
}

const char *st__desc_strn(st_desc *d, const char *s, size_t n)
{
    char *p = st_malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    if (!pool_push((void ***)&d->strings, &d->nstrings, &d->capstrings, p)) {
        st_free(p);
        return NULL;
    }
    return p;
}

const char *st__desc_str(st_desc *d, const char *s)
{
    return s ? st__desc_strn(d, s, strlen(s)) : NULL;
}

/* Grows an array kept in a description (the old block stays in the pool
 * until the description is freed: descriptions are small). */
static bool grow(st_desc *d, void **items, size_t *cap, size_t n, size_t esize)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? 2 * *cap : 4;
    void *p = desc_alloc(d, c * esize);
    if (!p)
        return false;
    if (n)
        memcpy(p, *items, n * esize);
    *items = p;
    *cap = c;
    return true;
}

bool st__desc_add_item(st_desc *d, st_dnode *parent, st_ditem it)
{
    if (!grow(d, (void **)&parent->items, &parent->capitems, parent->nitems, sizeof it))
        return false;
    parent->items[parent->nitems++] = it;
    return true;
}

st_dnode *st__desc_node(st_desc *d, st_dnode *parent, const char *name, st_mark mark)
{
    st_dnode *n = desc_alloc(d, sizeof *n);
    if (!n)
        return NULL;
    n->name = name ? st__desc_str(d, name) : NULL;
    n->mark = n->name_mark = mark;
    if ((name && !n->name) || (parent && !st__desc_add_item(d, parent, (st_ditem){NULL, n})))
        return NULL;
    if (!parent && !d->root)
        d->root = n;
    return n;
}

st_dobj *st__desc_obj(st_desc *d, st_dnode *parent, const char *type, st_mark mark)
{
    st_dobj *o = desc_alloc(d, sizeof *o);
    if (!o)
        return NULL;
    o->type = st__desc_str(d, type);
    o->mark = mark;
    if (!o->type || !st__desc_add_item(d, parent, (st_ditem){o, NULL}))
        return NULL;
    return o;
}

static bool copy_value(st_desc *d, st_value *dst, const st_value *src)
{
    *dst = *src;
    dst->items = NULL;
    if (src->kind == ST_VAL_SCALAR) {
        dst->text = st__desc_str(d, src->text ? src->text : "");
        return dst->text != NULL;
    }
    dst->text = NULL;
    if (!src->n)
        return true;
    dst->items = desc_alloc(d, src->n * sizeof *dst->items);
    if (!dst->items)
        return false;
    for (size_t i = 0; i < src->n; i++)
        if (!copy_value(d, &dst->items[i], &src->items[i]))
            return false;
    return true;
}

st_dattr *st__desc_attr(st_desc *d, st_dattr **attrs, size_t *n, size_t *cap, const char *key,
                        st_mark kmark, const st_value *val)
{
    if (!grow(d, (void **)attrs, cap, *n, sizeof **attrs))
        return NULL;
    st_dattr *a = &(*attrs)[*n];
    memset(a, 0, sizeof *a);
    a->key = st__desc_str(d, key);
    a->kmark = kmark;
    if (!a->key || !copy_value(d, &a->val, val))
        return NULL;
    (*n)++;
    return a;
}

st_dattr *st__desc_attr_text(st_desc *d, st_dattr **attrs, size_t *n, size_t *cap,
                             const char *key, st_mark kmark, const char *text, st_mark vmark)
{
    st_value v = {ST_VAL_SCALAR, text, true, NULL, 0, vmark};
    return st__desc_attr(d, attrs, n, cap, key, kmark, &v);
}

const st_dattr *st__desc_get(const st_dattr *attrs, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(attrs[i].key, key))
            return &attrs[i];
    return NULL;
}

void st__desc_free(st_desc *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nstrings; i++)
        st_free(d->strings[i]);
    for (size_t i = 0; i < d->nblocks; i++)
        st_free(d->blocks[i]);
    st_free(d->strings);
    st_free(d->blocks);
    memset(d, 0, sizeof *d);
}

/* ---- reporting ---- */

bool st__report_stopped(const st_report *r) { return r->nerrors >= ST_LOAD_MAX_ERRORS; }

/* "file:12:7" -> length of "file", 12, 7. */
static bool where_split(const char *w, size_t *flen, long *line, long *col)
{
    const char *c2 = strrchr(w, ':');
    if (!c2 || c2 == w)
        return false;
    const char *c1 = c2 - 1;
    while (c1 > w && *c1 != ':')
        c1--;
    if (*c1 != ':')
        return false;
    char *end;
    *line = strtol(c1 + 1, &end, 10);
    if (end != c2)
        return false;
    *col = strtol(c2 + 1, &end, 10);
    *flen = (size_t)(c1 - w);
    return !*end;
}

void st__report(st_report *r, st_error *e)
{
    if (e->code == ST_OK)
        e->code = ST_EINTERNAL;
    r->nerrors++;
    if (!e->reported && r->nerrors <= ST_LOAD_MAX_ERRORS)
        st__log_error(r->rt, e);
    e->reported = true;
    if (r->nerrors == ST_LOAD_MAX_ERRORS)
        st__log(r->rt, ST_LOG_ERROR, ST_NO_MARK, NULL,
                "too many errors (%d): giving up on this scene", ST_LOAD_MAX_ERRORS);
    /* The first error is the first in the file: readers report structure
     * before the builder reports meaning, so compare positions. */
    const st_error *f = r->first;
    bool earlier = f->code == ST_OK;
    size_t fl, el;
    long fline, fcol, eline, ecol;
    if (!earlier && where_split(f->where, &fl, &fline, &fcol) &&
        where_split(e->where, &el, &eline, &ecol) && fl == el && !strncmp(f->where, e->where, fl))
        earlier = eline < fline || (eline == fline && ecol < fcol);
    if (earlier)
        *r->first = *e;
}

void st__report_at(st_report *r, st_status code, st_mark m, const char *path, const char *fmt,
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
    st__report(r, &e);
}

void st__report_kernel(st_report *r, st_error *e, const char *path)
{
    if (path && path[0] && strcmp(path, "/") && !e->path[0])
        st_error_set_path(e, path);
    st__report(r, e);
}

const char *st__did_you_mean(const char **sugg, size_t n, char *buf, size_t size)
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

/* ---- building ---- */

static bool is_required_plugin(const st_class *cls)
{
    return cls == &st__required_plugin_class || !strcmp(cls->name, "RequiredPlugin");
}

static void unknown_component(st_report *r, const char *type, st_mark m, const char *node_path,
                              bool xml)
{
    char plugin[256], hint[512], dym[512];
    const char *sugg[4];
    size_t ns = st_registry_suggest(st_runtime_registry(r->rt), type, sugg, 3);
    st__did_you_mean(sugg, ns, dym, sizeof dym);
    hint[0] = 0;
    if (st_runtime_which_plugin(r->rt, type, plugin, sizeof plugin)) {
        if (xml)
            snprintf(hint, sizeof hint,
                     "; it is provided by plugin %s: add `<RequiredPlugin name=\"%s\"/>` before "
                     "it",
                     plugin, plugin);
        else
            snprintf(hint, sizeof hint,
                     "; it is provided by plugin %s: add `- RequiredPlugin: {pluginName: %s}` "
                     "before it",
                     plugin, plugin);
    }
    st__report_at(r, ST_ESCENE, m, node_path, "unknown component '%s'%s%s", type,
                  hint[0] ? hint : dym,
                  hint[0] || ns ? ""
                                : " (no loaded or installed plugin provides it; `settee inspect` "
                                  "lists the components)");
}

static bool is_xml_mark(st_mark m) { return st__mark_is_xml(m); }

/* SOFA's single-precision templates ("Vec3f", "Rigid3f", "Vec3f,Rigid3f")
 * as their double types: settee computes in double only. Writes the
 * rewritten template into buf and returns it, or NULL when no part is a
 * float type with a double twin. */
static const char *double_template(const char *t, char *buf, size_t size)
{
    size_t k = 0;
    bool changed = false;
    buf[0] = 0;
    for (const char *p = t; p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char part[64];
        if (len == 0 || len >= sizeof part)
            return NULL;
        memcpy(part, p, len);
        part[len] = 0;
        if (!st_state_type_find(part) && part[len - 1] == 'f') {
            part[len - 1] = 'd';
            if (st_state_type_find(part))
                changed = true;
            else
                part[len - 1] = 'f';
        }
        int w = snprintf(buf + k, size - k, "%s%s", k ? "," : "", part);
        if (w < 0 || (size_t)w >= size - k)
            return NULL;
        k += (size_t)w;
        p = e ? e + 1 : NULL;
    }
    return changed ? buf : NULL;
}

static void build_object(st_report *r, st_node *node, const st_dobj *o, const char *node_path)
{
    const st_class *cls = st_registry_find(st_runtime_registry(r->rt), o->type);
    char amb[1024];
    if (!cls && st__registry_ambiguity(st_runtime_registry(r->rt), o->type, amb, sizeof amb)) {
        st__report_at(r, ST_ESCENE, o->mark, node_path, "%s", amb);
        return;
    }
    if (!cls && is_xml_mark(o->mark)) {
        /* SOFA's runSofa has its installed components at hand: a SOFA scene
         * that uses a class without its RequiredPlugin works there, with a
         * warning. The same here for .scn/.xml scenes (YAML scenes say what
         * they load). */
        char plugin[256];
        st_error le = {0};
        if (st_runtime_which_plugin(r->rt, o->type, plugin, sizeof plugin) &&
            st_runtime_load_plugin(r->rt, plugin, &le) == ST_OK) {
            cls = st_registry_find(st_runtime_registry(r->rt), o->type);
            if (cls)
                st__log(r->rt, ST_LOG_WARNING, o->mark, node_path,
                        "%s is provided by plugin %s, which the scene does not require: loaded "
                        "it, as SOFA does; add <RequiredPlugin name=\"%s\"/> to the scene",
                        o->type, plugin, plugin);
        }
    }
    if (!cls) {
        unknown_component(r, o->type, o->mark, node_path, is_xml_mark(o->mark));
        return;
    }
    /* The name goes to creation (SOFA's default naming when absent). */
    const char *name = NULL;
    const st_dattr *na = st__desc_get(o->attrs, o->nattrs, "name");
    if (na) {
        name = na->val.kind == ST_VAL_SCALAR ? na->val.text : NULL;
        if (!name || !name[0]) {
            st__report_at(r, ST_ESCENE, na->val.mark, node_path,
                          "%s: field 'name' expects a non-empty string, found %s", o->type,
                          name ? "an empty value" : "a list");
            name = NULL;
        }
    }
    st_component *comp = NULL;
    st_error e = {0};
    if (st__component_create(node, cls, name, o->mark, &comp, &e) != ST_OK) {
        st__report_kernel(r, &e, node_path);
        return;
    }
    char cpath[ST_ERROR_PATH_MAX];
    st_component_path(comp, cpath, sizeof cpath);
    int before = r->nerrors;
    /* "template" first: it says how the state vectors parse. */
    const st_dattr *ta = st__desc_get(o->attrs, o->nattrs, "template");
    for (size_t k = 0; k <= o->nattrs && !st__report_stopped(r); k++) {
        const st_dattr *a = k == 0 ? ta : &o->attrs[k - 1];
        if (!a || a == na || (k > 0 && a == ta))
            continue;
        st_value val = a->val;
        char dt[256];
        if (a == ta && val.kind == ST_VAL_SCALAR &&
            (val.text = double_template(a->val.text, dt, sizeof dt)) != NULL) {
            static const char float_note = 0;
            if (st__runtime_first_note(r->rt, &float_note, &float_note))
                st__log(r->rt, ST_LOG_INFO, val.mark, cpath,
                        "template '%s' read as '%s': settee computes in double precision only "
                        "(SOFA's single-precision templates are read as their double twins; "
                        "said once per run)",
                        a->val.text, val.text);
        } else {
            val.text = a->val.text;
        }
        /* An unknown field is reported at its key, other errors at the value. */
        if (st__component_field_index(comp, a->key) < 0 && strcmp(a->key, "src"))
            val.mark = a->kmark;
        st_error_clear(&e);
        if (st__component_set_value(comp, a->key, &val, &e) == ST_OK)
            continue;
        if (is_xml_mark(o->mark) && !r->rt->strict && st__component_field_index(comp, a->key) < 0 &&
            strstr(e.msg, " has no field '")) {
            /* SOFA warns about an attribute no Data reads and goes on. */
            st__log(r->rt, ST_LOG_WARNING, val.mark, cpath,
                    "%s (ignored, as SOFA does; --strict makes it an error)", e.msg);
            continue;
        }
        st__report_kernel(r, &e, cpath);
    }
    /* The class's own parse step (AddDataRepository), before later objects. */
    if (ST_CLASS_HAS(cls, parsed) && cls->parsed && r->nerrors == before) {
        st_error_clear(&e);
        if (cls->parsed(comp, &e) != ST_OK)
            st__report_kernel(r, &e, cpath);
    }
    /* SOFA loads plugins while parsing, so later objects can use them. */
    if (is_required_plugin(cls) && r->nerrors == before) {
        st_error_clear(&e);
        if (st__required_plugin_load(comp, &e) != ST_OK) {
            if (!e.where[0]) {
                char msg[ST_ERROR_MSG_MAX];
                memcpy(msg, e.msg, sizeof msg);
                st__error_at(&e, e.code, o->mark, "%s", msg);
            }
            st__report_kernel(r, &e, cpath);
        }
    }
}

static void build_node(st_report *r, st_scene *s, const st_dnode *dn, st_node *parent)
{
    char ppath[ST_ERROR_PATH_MAX] = "";
    if (parent)
        st_node_path(parent, ppath, sizeof ppath);
    const char *name = dn->name ? dn->name : (parent ? "unnamed" : "root");
    st_node *node = NULL;
    st_error e = {0};
    if (st__node_create(s, parent, name, dn->mark, &node, &e) != ST_OK) {
        st__report_kernel(r, &e, ppath);
        return;
    }
    char path[ST_ERROR_PATH_MAX];
    st_node_path(node, path, sizeof path);
    for (size_t i = 0; i < dn->nattrs && !st__report_stopped(r); i++) {
        st_error_clear(&e);
        if (st__node_set_value(node, dn->attrs[i].key, &dn->attrs[i].val, &e) != ST_OK)
            st__report_kernel(r, &e, path);
    }
    for (size_t i = 0; i < dn->nitems && !st__report_stopped(r); i++) {
        if (dn->items[i].obj)
            build_object(r, node, dn->items[i].obj, path);
        else
            build_node(r, s, dn->items[i].node, node);
    }
}

void st__desc_build(st_desc *d, st_scene *s, st_report *r)
{
    if (d->root && !st__report_stopped(r))
        build_node(r, s, d->root, NULL);
}
