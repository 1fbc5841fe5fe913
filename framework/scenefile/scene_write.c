/* scene_write.c - writes a scene description as settee YAML or SOFA XML
 * (`settee convert`). Values are written as their text: a SOFA string of
 * numbers becomes a YAML flow list of the same numbers, a YAML list becomes
 * a space-separated SOFA string, and everything else is quoted. Both forms
 * parse to the same field values, so a round trip builds the same graph. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "scenefile/scene_desc.h"

/* ---- YAML ---- */

static bool plain_ok(const char *s)
{
    /* A plain YAML scalar that reads back as the same text: letters, digits
     * and a few safe punctuation marks, not a YAML keyword. */
    if (!s[0])
        return false;
    static const char *const kw[] = {"null", "Null", "NULL", "~", "yes", "no", "on", "off",
                                     "Yes", "No", "On", "Off", "YES", "NO", "ON", "OFF", "y", "n"};
    for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
        if (!strcmp(s, kw[i]))
            return false;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("._+-", *p))
            return false;
    return true;
}

static void yaml_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void yaml_scalar(FILE *f, const char *s)
{
    if (plain_ok(s))
        fputs(s, f);
    else
        yaml_quoted(f, s);
}

/* True when text is two or more white-space separated tokens, each one a
 * plain scalar (numbers, words): written as a flow list. */
static bool is_word_list(const char *s)
{
    size_t n = 0;
    const char *p = s;
    char tok[256];
    while (*p) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        size_t len = 0;
        while (p[len] && !isspace((unsigned char)p[len]))
            len++;
        if (len >= sizeof tok)
            return false;
        memcpy(tok, p, len);
        tok[len] = 0;
        if (!plain_ok(tok) || tok[0] == '@')
            return false;
        n++;
        p += len;
    }
    return n >= 2;
}

/* How a scene text value of a field of type t is written: a string field
 * (a name, SOFA's displayFlags "showVisual showBehaviorModels") stays one
 * string; lists and tuples become flow lists; t == 0 (a class or field this
 * runtime does not know) falls back on the look of the text. */
static bool as_word_list(st_type t, const char *s)
{
    if (t == ST_T_STRING || t == ST_T_LINK || t == ST_T_BOOL || t == ST_T_INT ||
        t == ST_T_UINT || t == ST_T_REAL)
        return false;
    return is_word_list(s);
}

static void yaml_value(FILE *f, const st_value *v, st_type t)
{
    if (v->kind == ST_VAL_SEQ) {
        fputc('[', f);
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                fputs(", ", f);
            yaml_value(f, &v->items[i], t == ST_T_STRINGS ? ST_T_STRING : 0);
        }
        fputc(']', f);
        return;
    }
    const char *s = v->text ? v->text : "";
    if (as_word_list(t, s)) {
        fputc('[', f);
        const char *p = s;
        bool first = true;
        while (*p) {
            while (*p && isspace((unsigned char)*p))
                p++;
            if (!*p)
                break;
            size_t len = 0;
            while (p[len] && !isspace((unsigned char)p[len]))
                len++;
            fprintf(f, "%s%.*s", first ? "" : ", ", (int)len, p);
            first = false;
            p += len;
        }
        fputc(']', f);
        return;
    }
    yaml_scalar(f, s);
}

/* The field key of class type, or NULL when this runtime does not know
 * them. */
static const st_field *field_of(const st_registry *reg, const char *type, const char *key)
{
    const st_class *cls = reg ? st_registry_find(reg, type) : NULL;
    for (const st_field *fl = cls ? cls->fields : NULL; fl && fl->name; fl++)
        if (!strcmp(fl->name, key) || (fl->alias && !strcmp(fl->alias, key)))
            return fl;
    return NULL;
}

/* The type of field key of class type, or 0 when this runtime does not
 * know them. */
static st_type field_type(const st_registry *reg, const char *type, const char *key)
{
    if (!strcmp(key, "name"))
        return ST_T_STRING;
    const st_field *fl = field_of(reg, type, key);
    return fl ? fl->type : 0;
}

/* True when every white-space separated token of s is a number. */
static bool all_numbers(const char *s)
{
    size_t n = 0;
    for (const char *p = s; *p;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        char *end;
        strtod(p, &end);
        if (end == p || (*end && !isspace((unsigned char)*end)))
            return false;
        n++;
        p = end;
    }
    return n > 0;
}

/* An object's attribute in YAML. SOFA's bracketed text of a rigid mass or
 * a matrix ("1 1 [1 0 0,0 1 0,0 0 1]") becomes the plain list of its
 * numbers, which YAML reads exactly: for the fields that read it
 * (ST_T_MASS, ST_F_BRACKETS), or any field of a class this runtime does
 * not know when the text is numbers in brackets. */
static void yaml_attr(FILE *f, const st_registry *reg, const char *type, const st_dattr *a)
{
    const st_field *fl = field_of(reg, type, a->key);
    st_type t = field_type(reg, type, a->key);
    const char *s = a->val.kind == ST_VAL_SCALAR ? a->val.text : NULL;
    bool reads = !fl || fl->type == ST_T_MASS || (fl->flags & ST_F_BRACKETS);
    char *plain = reads && s && strchr(s, '[') ? st_strdup(s) : NULL;
    for (char *p = plain; p && *p; p++)
        if (*p == '[' || *p == ']' || *p == ',')
            *p = ' ';
    if (!plain || !all_numbers(plain)) {
        st_free(plain);
        yaml_value(f, &a->val, t);
        return;
    }
    st_value v = a->val;
    v.text = plain;
    yaml_value(f, &v, t == ST_T_MASS ? ST_T_REALS : t);
    st_free(plain);
}

static void indent(FILE *f, int n)
{
    for (int i = 0; i < n; i++)
        fputc(' ', f);
}

/* Comments where SOFA's meaning is not obvious from the YAML alone. */
static void yaml_object_notes(FILE *f, const st_dobj *o, int ind, const char **from,
                              const char *root_file)
{
    const char *file = o->mark.file;
    if (file && root_file && strcmp(file, root_file)) {
        const char *base = strrchr(file, '/');
        indent(f, ind);
        fprintf(f, "# from %s (an <include> in the SOFA scene)\n", base ? base + 1 : file);
    }
    (void)from;
    const st_dattr *src = st__desc_get(o->attrs, o->nattrs, "src");
    if (src && src->val.kind == ST_VAL_SCALAR) {
        indent(f, ind);
        fprintf(f, "# src: each field not set here reads the same-named field of %s\n",
                src->val.text);
    }
}

static void yaml_node(FILE *f, const st_dnode *n, int ind, bool root, const char *root_file,
                      const st_registry *reg, const char (*plugins)[128], size_t nplugins)
{
    if (root) {
        indent(f, ind);
        fputs("name: ", f);
    } else {
        indent(f, ind - 2);
        fputs("- name: ", f);
    }
    yaml_scalar(f, n->name ? n->name : "root");
    fputc('\n', f);
    for (size_t i = 0; i < n->nattrs; i++) {
        indent(f, ind);
        fprintf(f, "%s: ", n->attrs[i].key);
        yaml_value(f, &n->attrs[i].val, !strcmp(n->attrs[i].key, "name") ? ST_T_STRING : 0);
        fputc('\n', f);
    }
    size_t nobj = 0, nchild = 0;
    for (size_t i = 0; i < n->nitems; i++)
        n->items[i].obj ? nobj++ : nchild++;
    /* YAML scenes list objects before children; SOFA creates them in
     * document order. A node's objects are initialised before its children
     * in both (and links resolve at init), so this is the same graph. */
    if (nobj || nplugins) {
        indent(f, ind);
        fputs("objects:\n", f);
        if (nplugins) {
            indent(f, ind + 2);
            fputs("# the plugins of classes the SOFA scene uses before (or without) a "
                  "RequiredPlugin\n", f);
            indent(f, ind + 2);
            fputs("- RequiredPlugin: {pluginName: [", f);
            for (size_t i = 0; i < nplugins; i++)
                fprintf(f, "%s%s", i ? ", " : "", plugins[i]);
            fputs("]}\n", f);
        }
        const char *from = n->mark.file;
        for (size_t i = 0; i < n->nitems; i++) {
            const st_dobj *o = n->items[i].obj;
            if (!o)
                continue;
            yaml_object_notes(f, o, ind + 2, &from, root_file);
            indent(f, ind + 2);
            fprintf(f, "- %s: {", o->type);
            for (size_t k = 0; k < o->nattrs; k++) {
                fprintf(f, "%s", k ? ", " : "");
                yaml_scalar(f, o->attrs[k].key);
                fputs(": ", f);
                yaml_attr(f, reg, o->type, &o->attrs[k]);
            }
            fputs("}\n", f);
        }
    }
    if (nchild) {
        indent(f, ind);
        fputs("children:\n", f);
        for (size_t i = 0; i < n->nitems; i++)
            if (n->items[i].node)
                yaml_node(f, n->items[i].node, ind + 4, false, root_file, reg, NULL, 0);
    }
}

/* ---- XML ---- */

static void xml_text(FILE *f, const char *s)
{
    for (const char *p = s; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\n': fputs("&#10;", f); break;
        case '\t': fputs("&#9;", f); break;
        default: fputc(*p, f);
        }
    }
}

/* A value as one SOFA string: lists flattened with spaces. */
static void xml_value(FILE *f, const st_value *v, bool *first)
{
    if (v->kind == ST_VAL_SEQ) {
        for (size_t i = 0; i < v->n; i++)
            xml_value(f, &v->items[i], first);
        return;
    }
    if (!*first)
        fputc(' ', f);
    *first = false;
    xml_text(f, v->text ? v->text : "");
}

static void xml_attr(FILE *f, const st_dattr *a)
{
    fprintf(f, " %s=\"", a->key);
    bool first = true;
    xml_value(f, &a->val, &first);
    fputc('"', f);
}

static void xml_node(FILE *f, const st_dnode *n, int ind)
{
    indent(f, ind);
    fputs("<Node name=\"", f);
    xml_text(f, n->name ? n->name : "root");
    fputc('"', f);
    for (size_t i = 0; i < n->nattrs; i++)
        xml_attr(f, &n->attrs[i]);
    if (!n->nitems) {
        fputs("/>\n", f);
        return;
    }
    fputs(">\n", f);
    for (size_t i = 0; i < n->nitems; i++) {
        const st_dobj *o = n->items[i].obj;
        if (!o) {
            xml_node(f, n->items[i].node, ind + 4);
            continue;
        }
        indent(f, ind + 4);
        fprintf(f, "<%s", o->type);
        for (size_t k = 0; k < o->nattrs; k++)
            xml_attr(f, &o->attrs[k]);
        fputs("/>\n", f);
    }
    indent(f, ind);
    fputs("</Node>\n", f);
}

static bool valid_xml_name(const char *s)
{
    if (!s[0] || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
            return false;
    return true;
}

static st_status check_xml_names(const st_dnode *n, st_error *err)
{
    for (size_t i = 0; i < n->nattrs; i++)
        if (!valid_xml_name(n->attrs[i].key))
            return st_error_set(err, ST_EINVAL, "'%s' cannot be an XML attribute name",
                                n->attrs[i].key);
    for (size_t i = 0; i < n->nitems; i++) {
        const st_dobj *o = n->items[i].obj;
        if (!o) {
            ST_TRY(check_xml_names(n->items[i].node, err));
            continue;
        }
        if (!valid_xml_name(o->type))
            return st_error_set(err, ST_EINVAL, "'%s' cannot be an XML element name", o->type);
        for (size_t k = 0; k < o->nattrs; k++)
            if (!valid_xml_name(o->attrs[k].key))
                return st_error_set(err, ST_EINVAL, "%s: '%s' cannot be an XML attribute name",
                                    o->type, o->attrs[k].key);
    }
    return ST_OK;
}

st_status st__desc_write(const st_desc *d, st_scene_format fmt, FILE *f,
                         const st_registry *reg, const char (*plugins)[128], size_t nplugins,
                         st_error *err)
{
    if (!d->root)
        return st_error_set(err, ST_EINVAL, "nothing to write: the scene has no root node");
    if (fmt == ST_FMT_YAML) {
        fputs("# settee scene (converted by `settee convert`)\n", f);
        fputs("format: settee/1\nroot:\n", f);
        yaml_node(f, d->root, 2, true, d->root->mark.file, reg, plugins, nplugins);
    } else {
        ST_TRY(check_xml_names(d->root, err));
        fputs("<?xml version=\"1.0\"?>\n<!-- converted by `settee convert` -->\n", f);
        xml_node(f, d->root, 0);
    }
    if (ferror(f))
        return st_error_set(err, ST_EIO, "write error");
    return ST_OK;
}

/* The plugins the scene names, so that the writer knows its fields' types
 * (a plugin that does not load leaves its classes' values to the text's
 * look). */
/* Names of plugins (each at most PLUGIN_NAME_MAX), a small set. */
#define PLUGIN_NAME_MAX 128
typedef struct name_set {
    char (*v)[PLUGIN_NAME_MAX];
    size_t n, cap;
} name_set;

static bool set_has(const name_set *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], name))
            return true;
    return false;
}

static void set_add(name_set *s, const char *name)
{
    if (!name || !*name || set_has(s, name))
        return;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        char(*v)[PLUGIN_NAME_MAX] = st_realloc(s->v, cap * sizeof *v);
        if (!v)
            return; /* no memory: the name is left out, the YAML says less */
        s->v = v;
        s->cap = cap;
    }
    snprintf(s->v[s->n++], PLUGIN_NAME_MAX, "%s", name);
}

/* The plugins a RequiredPlugin object names (SOFA writes several in one
 * string), loaded; the plugins they are added to covered. */
static void require(st_runtime *rt, const st_dobj *o, name_set *covered)
{
    for (size_t k = 0; k < o->nattrs; k++) {
        if (strcmp(o->attrs[k].key, "pluginName") && strcmp(o->attrs[k].key, "name"))
            continue;
        const st_value *v = &o->attrs[k].val;
        size_t nv = v->kind == ST_VAL_SEQ ? v->n : 1;
        for (size_t j = 0; j < nv; j++) {
            const st_value *x = v->kind == ST_VAL_SEQ ? &v->items[j] : v;
            if (x->kind != ST_VAL_SCALAR || !x->text)
                continue;
            char buf[512];
            const char *p = x->text;
            while (*p) {
                while (*p == ' ' || *p == '\t' || *p == ',')
                    p++;
                size_t len = strcspn(p, " \t,");
                if (!len)
                    break;
                snprintf(buf, sizeof buf, "%.*s", (int)(len < 511 ? len : 511), p);
                st_error ignored = {0};
                if (st_runtime_load_plugin(rt, buf, &ignored) != ST_OK)
                    st_error_clear(&ignored); /* its values keep the text's look */
                const st_plugin_info *pi = st_runtime_find_plugin(rt, buf);
                if (pi)
                    set_add(covered, pi->name);
                p += len;
            }
        }
    }
}

/* In document order: the plugins the scene's RequiredPlugin objects name
 * are loaded (so that the writer knows the fields' types), and the plugins
 * of classes met before any RequiredPlugin names them are listed in
 * missing: SOFA's XML gets them by class, settee's YAML names them first. */
static void scan_plugins(st_runtime *rt, const st_dnode *n, name_set *covered,
                         name_set *missing)
{
    const st_registry *reg = st_runtime_registry(rt);
    /* The YAML's order: a node's objects, then its children. */
    for (size_t i = 0; i < n->nitems; i++) {
        if (n->items[i].node)
            continue;
        const st_dobj *o = n->items[i].obj;
        if (!o)
            continue;
        if (!strcmp(o->type, "RequiredPlugin")) {
            require(rt, o, covered);
            continue;
        }
        const st_class *cls = st_registry_find(reg, o->type);
        const char *plugin = cls ? st_registry_class_plugin(reg, cls) : NULL;
        char buf[PLUGIN_NAME_MAX];
        if (!cls && st_runtime_which_plugin(rt, o->type, buf, sizeof buf))
            plugin = buf;
        if (!plugin || !*plugin || set_has(covered, plugin))
            continue;
        const st_plugin_info *pi = st_runtime_find_plugin(rt, plugin);
        if (pi && (!pi->file || !strcmp(pi->file, "(built in)"))) /* Core, StateContainer */
            continue;
        set_add(missing, plugin);
    }
    for (size_t i = 0; i < n->nitems; i++)
        if (n->items[i].node)
            scan_plugins(rt, n->items[i].node, covered, missing);
}

static int cmp_names(const void *a, const void *b) { return strcmp(a, b); }

st_status st_scene_convert(st_runtime *rt, const char *in, const char *out, st_error *err)
{
    st_error local = {0};
    if (!err)
        err = &local;
    st_error_clear(err);
    if (!rt || !in)
        return st_error_set(err, ST_EINVAL, "st_scene_convert: runtime and input are required");
    st_scene_format from = st__scene_format_of(in);
    st_scene_format to = out ? st__scene_format_of(out) : (from == ST_FMT_XML ? ST_FMT_YAML
                                                                              : ST_FMT_XML);
    char *text = NULL;
    size_t len = 0;
    if (st__read_file(in, &text, &len, err) != ST_OK) {
        st__log_error(rt, err);
        err->reported = true;
        return err->code;
    }
    st_report rep = {rt, err, 0};
    st_desc d = {0};
    st_scene *s = NULL;
    st_status rc = st__scene_describe(rt, text, len, in, &s, &d, &rep);
    st_free(text);
    if (rc == ST_OK) {
        /* Write to a temporary file next to the output, then rename, so a
         * failed conversion never leaves a partial file. */
        char tmp[4096];
        FILE *f = stdout;
        if (out) {
            int k = snprintf(tmp, sizeof tmp, "%s.tmp%ld", out, (long)getpid());
            f = k > 0 && (size_t)k < sizeof tmp ? fopen(tmp, "w") : NULL;
            if (!f)
                rc = st_error_set(err, ST_EIO, "cannot write '%s': %s", out, strerror(errno));
        }
        if (rc == ST_OK) {
            name_set covered = {0}, missing = {0};
            scan_plugins(rt, d.root, &covered, &missing);
            if (to != ST_FMT_YAML)
                missing.n = 0;
            if (missing.n)
                qsort(missing.v, missing.n, sizeof *missing.v, cmp_names);
            rc = st__desc_write(&d, to, f, st_runtime_registry(rt),
                                (const char(*)[128])missing.v, missing.n, err);
            st_free(covered.v);
            st_free(missing.v);
            if (out) {
                if (fclose(f) != 0 && rc == ST_OK)
                    rc = st_error_set(err, ST_EIO, "cannot write '%s': %s", out,
                                      strerror(errno));
                if (rc == ST_OK && rename(tmp, out) != 0)
                    rc = st_error_set(err, ST_EIO, "cannot write '%s': %s", out,
                                      strerror(errno));
                if (rc != ST_OK)
                    remove(tmp);
            } else {
                fflush(stdout);
            }
        }
        if (rc != ST_OK) {
            st__log_error(rt, err);
            err->reported = true;
        }
    }
    st__desc_free(&d);
    st_scene_destroy(&s);
    return rc;
}
