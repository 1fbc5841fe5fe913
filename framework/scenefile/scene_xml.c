/* scene_xml.c - reads SOFA's XML scenes (.scn, .xml) into a scene
 * description, with libxml2.
 *
 * SOFA's semantics (Sofa/framework/Simulation/Common/src/sofa/simulation/
 * common/xml/ in SOFA's source): the document's root element is the root
 * node; `<Node>` elements are nodes; `<include href=...>` inserts another
 * file (as a child node, or its children into this node when its root is
 * named Group/_Group_, or merged into this node when named _Merge_), with
 * the include's other attributes overriding the included objects' values
 * (`attr="v"` in every object that has attr, `Obj__attr="v"` in the objects
 * named Obj); `<Object type="T">` is the legacy spelling of `<T>`; every
 * other element is an object of its tag's class. Attributes are data
 * strings; those whose name starts with '_' or "NO" are comments.
 *
 * libxml2 gives elements' lines but not attributes' columns, so the text is
 * scanned alongside the tree (both in document order) to find where each
 * start tag and attribute value begins: errors carry FILE:LINE:COL as in
 * YAML scenes. Network access, DTDs and external entities are off: a scene
 * with a DTD is refused (no XXE, no entity expansion bombs).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "scenefile/scene_desc.h"
#include "common/xml_prescan.h"

#define XR_MAX_DEPTH 64    /* nested elements */
#define XR_MAX_INCLUDES 16 /* nested includes */
#define XR_MAX_ATTRS 4096  /* attributes of one element */
/* What one scene may include in all: the depth bound alone lets a tree of
 * includes fan out (ten includes of a file that includes ten ...). */
#define XR_MAX_INCLUDED_FILES 10000
#define XR_MAX_INCLUDED_BYTES ((size_t)64 << 20)

/* A repair of the text (see repair()): extra bytes inserted at pos. */
typedef struct xfix {
    size_t pos;         /* offset in the repaired text */
    size_t extra;       /* bytes the repaired text has more than the original there */
} xfix;

/* One file being read: its text and a cursor that follows the tree. */
typedef struct xfile {
    const char *name;   /* interned */
    const char *text;   /* repaired text */
    size_t len;
    xfix *fixes;        /* in increasing pos */
    size_t nfixes;
    size_t cursor;      /* just after the last start tag matched */
    size_t *lines;      /* byte offset of each line start */
    size_t nlines;
    int depth;          /* include depth */
} xfile;

/* An include's attribute overrides for the objects it brings. */
typedef struct override {
    const char *target; /* object name, or NULL: every object with the attribute */
    const char *key;
    const char *value;
    st_mark mark;
} override;

typedef struct xreader {
    st_scene *scene;
    st_desc *d;
    st_report *r;
    const override *ov;
    size_t nov;
    size_t nincluded, included_bytes; /* over the whole scene */
    bool include_budget_spent;        /* reported once, then includes are skipped */
} xreader;

/* ---- positions ---- */

static bool index_lines(xfile *f)
{
    size_t n = 1;
    for (size_t i = 0; i < f->len; i++)
        n += f->text[i] == '\n';
    f->lines = st_malloc(n * sizeof *f->lines);
    if (!f->lines)
        return false;
    f->lines[0] = 0;
    f->nlines = 1;
    for (size_t i = 0; i < f->len; i++)
        if (f->text[i] == '\n')
            f->lines[f->nlines++] = i + 1;
    return true;
}

static st_mark mark_at(const xfile *f, size_t off)
{
    size_t lo = 0, hi = f->nlines;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (f->lines[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    int col = 1;
    for (size_t i = f->lines[lo]; i < off && i < f->len; i++)
        col += ((unsigned char)f->text[i] & 0xC0) != 0x80;
    for (size_t k = 0; k < f->nfixes; k++) /* columns of the original text */
        if (f->fixes[k].pos > f->lines[lo] && f->fixes[k].pos <= off)
            col -= (int)f->fixes[k].extra;
    return (st_mark){f->name, (int)lo + 1, col < 1 ? 1 : col};
}

static st_mark line_mark(const xfile *f, long line) { return (st_mark){f->name, (int)line, 1}; }

static bool name_char(char c)
{
    return c && !strchr(" \t\r\n/>=\"'", c);
}

/* The offset just after the first `close` in t[from, len), or len: texts
 * from memory need not end with a NUL, and may hold NULs. */
static size_t past(const char *t, size_t from, size_t len, const char *close)
{
    size_t n = strlen(close);
    const char *e = from < len ? memmem(t + from, len - from, close, n) : NULL;
    return e ? (size_t)(e - t) + n : len;
}

/* Skips from text[i] == '<' over a comment, CDATA, processing instruction
 * or declaration; returns the offset after it, or i when it is none. */
static size_t skip_markup(const xfile *f, size_t i)
{
    const char *t = f->text;
    size_t len = f->len;
    if (len - i >= 4 && !strncmp(t + i, "<!--", 4))
        return past(t, i + 4, len, "-->");
    if (len - i >= 9 && !strncmp(t + i, "<![CDATA[", 9))
        return past(t, i + 9, len, "]]>");
    if (len - i >= 2 && !strncmp(t + i, "<?", 2))
        return past(t, i + 2, len, "?>");
    if (len - i >= 2 && !strncmp(t + i, "<!", 2))
        return past(t, i + 2, len, ">");
    return i;
}

/* Finds the next start tag `<tag` from the cursor; returns its offset and
 * the offset of its end ('>') in *tag_end, or (size_t)-1. */
static size_t find_tag(xfile *f, const char *tag, size_t *tag_end)
{
    size_t tl = strlen(tag), i = f->cursor;
    while (i < f->len) {
        if (f->text[i] != '<') {
            i++;
            continue;
        }
        size_t j = skip_markup(f, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (!strncmp(f->text + i + 1, tag, tl) && !name_char(f->text[i + 1 + tl])) {
            char q = 0;
            size_t k = i + 1 + tl;
            for (; k < f->len; k++) {
                if (q) {
                    if (f->text[k] == q)
                        q = 0;
                } else if (f->text[k] == '"' || f->text[k] == '\'') {
                    q = f->text[k];
                } else if (f->text[k] == '>') {
                    break;
                }
            }
            *tag_end = k;
            f->cursor = i + 1;
            return i;
        }
        i++;
    }
    return (size_t)-1;
}

/* Where attribute key is written in the start tag [start, end): marks of
 * the key and of the value's first character. */
static bool find_attr(const xfile *f, size_t start, size_t end, const char *key, st_mark *km,
                      st_mark *vm)
{
    size_t kl = strlen(key);
    const char *t = f->text;
    size_t i = start + 1;
    while (i < end && name_char(t[i])) /* the tag name */
        i++;
    while (i < end) {
        while (i < end && strchr(" \t\r\n/", t[i]))
            i++;
        size_t ks = i;
        while (i < end && name_char(t[i]))
            i++;
        size_t ke = i;
        while (i < end && strchr(" \t\r\n=", t[i]))
            i++;
        if (i >= end || (t[i] != '"' && t[i] != '\''))
            return false;
        char q = t[i++];
        size_t vs = i;
        while (i < end && t[i] != q)
            i++;
        i++;
        if (ke - ks == kl && !strncmp(t + ks, key, kl)) {
            *km = mark_at(f, ks);
            *vm = mark_at(f, vs);
            return true;
        }
    }
    return false;
}

/* ---- SOFA's XML, as its parser (tinyxml2) reads it ---- */

typedef struct rbuf {
    char *p;
    size_t n, cap;
    xfix *fixes;
    size_t nfixes, capfixes;
    bool oom;
} rbuf;

static void rb_put(rbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4096;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = st_realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

/* Writes s (replacing n original bytes) and records the growth. */
static void rb_fix(rbuf *b, const char *s, size_t n_orig)
{
    size_t pos = b->n, len = strlen(s);
    rb_put(b, s, len);
    if (b->oom || len <= n_orig)
        return;
    if (b->nfixes == b->capfixes) {
        size_t cap = b->capfixes ? 2 * b->capfixes : 16;
        xfix *q = st_realloc(b->fixes, cap * sizeof *q);
        if (!q) {
            b->oom = true;
            return;
        }
        b->fixes = q;
        b->capfixes = cap;
    }
    b->fixes[b->nfixes++] = (xfix){pos + len, len - n_orig};
}

static bool entity_at(const char *t, size_t i, size_t len)
{
    /* &name; or &#123; or &#x1F; */
    size_t k = i + 1;
    if (k < len && t[k] == '#') {
        k++;
        if (k < len && (t[k] == 'x' || t[k] == 'X'))
            k++;
        size_t d = k;
        while (k < len && isxdigit((unsigned char)t[k]))
            k++;
        return k > d && k < len && t[k] == ';';
    }
    size_t d = k;
    while (k < len && (isalnum((unsigned char)t[k]) || t[k] == '_'))
        k++;
    return k > d && k < len && t[k] == ';';
}

/* The position of byte off of text t (for the few repair messages). */
static st_mark raw_mark(const char *name, const char *t, size_t off)
{
    int line = 1, col = 1;
    for (size_t i = 0; i < off; i++) {
        if (t[i] == '\n') {
            line++;
            col = 1;
        } else if (((unsigned char)t[i] & 0xC0) != 0x80) {
            col++;
        }
    }
    return (st_mark){name, line, col};
}

/* SOFA reads scenes with tinyxml2, which accepts three things XML forbids
 * and SOFA's own scenes contain: '<' inside an attribute value
 * (template="Data<double>"), '&' that starts no entity (params="a=1&b=2"),
 * and attributes without white space between them (a="1"b="2"). The text
 * is repaired into well-formed XML with the same meaning before libxml2
 * reads it, and each repair is reported as information. Positions are
 * mapped back to the original text. */
static bool repair(xreader *x, const char *name, const char *t, size_t len, rbuf *b)
{
    size_t i = 0, copied = 0;
    int nrep = 0;
    while (i < len) {
        if (t[i] != '<' || i + 1 >= len || strchr("!?/", t[i + 1])) {
            if (t[i] == '<' && i + 3 < len && !strncmp(t + i, "<!--", 4)) {
                i = past(t, i + 4, len, "-->");
            } else if (t[i] == '<' && i + 8 < len && !strncmp(t + i, "<![CDATA[", 9)) {
                i = past(t, i + 9, len, "]]>");
            } else {
                i++;
            }
            continue;
        }
        /* A start tag: walk its attributes. */
        size_t k = i + 1;
        while (k < len && name_char(t[k]))
            k++;
        while (k < len && t[k] != '>') {
            if (t[k] != '"' && t[k] != '\'') {
                k++;
                continue;
            }
            char q = t[k++];
            while (k < len && t[k] != q) {
                const char *rep = NULL;
                if (t[k] == '<')
                    rep = "&lt;";
                else if (t[k] == '&' && !entity_at(t, k, len))
                    rep = "&amp;";
                if (rep) {
                    rb_put(b, t + copied, k - copied);
                    rb_fix(b, rep, 1);
                    copied = k + 1;
                    if (nrep++ < 20)
                        st__log(x->r->rt, ST_LOG_INFO, raw_mark(name, t, k), NULL,
                                "'%c' in an attribute value is not well-formed XML; read as "
                                "SOFA reads it",
                                t[k]);
                }
                k++;
            }
            if (k < len)
                k++; /* closing quote */
            if (k < len && name_char(t[k]) && t[k] != '=') {
                rb_put(b, t + copied, k - copied);
                rb_fix(b, " ", 0);
                copied = k;
                if (nrep++ < 20)
                    st__log(x->r->rt, ST_LOG_INFO, raw_mark(name, t, k), NULL,
                            "attributes without white space between them are not well-formed "
                            "XML; read as SOFA reads them");
            }
        }
        i = k;
    }
    rb_put(b, t + copied, len - copied);
    return !b->oom;
}

/* ---- reading ---- */

typedef struct xelem {
    xmlNode *el;
    size_t start, end;  /* start tag in the text, or (size_t)-1 */
    st_mark mark;       /* of the tag name */
} xelem;

static xelem locate(xfile *f, xmlNode *el)
{
    xelem e = {el, (size_t)-1, 0, line_mark(f, xmlGetLineNo(el))};
    e.start = find_tag(f, (const char *)el->name, &e.end);
    if (e.start != (size_t)-1)
        e.mark = mark_at(f, e.start + 1);
    return e;
}

static void attr_marks(const xfile *f, const xelem *e, const char *key, st_mark *km,
                       st_mark *vm)
{
    *km = *vm = e->mark;
    if (e->start != (size_t)-1)
        find_attr(f, e->start, e->end, key, km, vm);
}

/* An attribute's value (entities and character references resolved). */
static char *attr_value(xmlAttr *a)
{
    xmlChar *v = xmlNodeListGetString(a->doc, a->children, 1);
    return (char *)(v ? v : xmlStrdup((const xmlChar *)""));
}

static bool is_comment_attr(const char *k) { return k[0] == '_' || !strncmp(k, "NO", 2); }

static void read_children(xreader *x, xfile *f, xmlNode *parent, st_dnode *dn,
                          const char *path, int depth);

/* Node attributes SOFA's Node and its root accept besides the context data
 * settee uses: accepted, with no effect here. */
static const char *const sofa_node_attrs[] = {
    "bbox", "sleeping", "multiThreadSimulation", "depend", "tags", "listening", "printLog",
    "componentState", "canChangeSleepingState", "showBoundingTree", "showBehavior",
    "showBehaviorModels", "showCollision", "showCollisionModels", "showMapping",
    "showMechanicalMappings", "showForceFields", "showInteractionForceFields",
    "showVisual", "showVisualModels", "showWireFrame", "showNormals", "showAll",
    "showProcessorColor", "showWireframe"};

static bool is_context_attr(const char *k)
{
    return !strcmp(k, "gravity") || !strcmp(k, "dt") || !strcmp(k, "time") ||
           !strcmp(k, "animate") || !strcmp(k, "activated");
}

static void oom(xreader *x)
{
    st__report_at(x->r, ST_ENOMEM, ST_NO_MARK, NULL, "out of memory while loading the scene");
}

static void read_node_attrs(xreader *x, xfile *f, const xelem *e, st_dnode *dn,
                            const char *path)
{
    for (xmlAttr *a = e->el->properties; a; a = a->next) {
        const char *k = (const char *)a->name;
        if (!strcmp(k, "name") || is_comment_attr(k))
            continue;
        st_mark km, vm;
        attr_marks(f, e, k, &km, &vm);
        if (is_context_attr(k)) {
            char *v = attr_value(a);
            if (!st__desc_attr_text(x->d, &dn->attrs, &dn->nattrs, &dn->capattrs, k, km, v, vm))
                oom(x);
            xmlFree(v);
            continue;
        }
        bool known = false;
        for (size_t i = 0; i < sizeof sofa_node_attrs / sizeof *sofa_node_attrs; i++)
            known = known || !strcmp(k, sofa_node_attrs[i]);
        if (known) {
            st__log(x->r->rt, ST_LOG_INFO, km, path,
                    "node attribute '%s' is accepted for SOFA compatibility and has no effect in "
                    "settee",
                    k);
        } else {
            const char *cands[] = {"name", "gravity", "dt", "time", "animate", "activated"};
            const char *sugg[1];
            char dym[128];
            size_t ns = st__suggest(k, cands, 6, sugg, 1);
            st__log(x->r->rt, ST_LOG_WARNING, km, path,
                    "unknown node attribute '%s' ignored (as SOFA does)%s", k,
                    st__did_you_mean(sugg, ns, dym, sizeof dym));
        }
    }
}

/* The override for attribute key of an object named name, or NULL. */
static const override *find_override(const xreader *x, const char *name, const char *key)
{
    for (size_t i = x->nov; i-- > 0;) { /* the outermost include wins: listed first */
        const override *o = &x->ov[i];
        if (!strcmp(o->key, key) && (!o->target || (name && !strcmp(o->target, name))))
            return o;
    }
    return NULL;
}

static void read_object(xreader *x, xfile *f, const xelem *e, st_dnode *dn, const char *path)
{
    const char *type = (const char *)e->el->name;
    bool legacy = !strcmp(type, "Object");
    st_mark tm = e->mark;
    if (legacy) {
        xmlChar *t = xmlGetNoNsProp(e->el, (const xmlChar *)"type");
        if (!t) {
            st__report_at(x->r, ST_ESCENE, e->mark, path,
                          "<Object> needs a type attribute (<Object type=\"MechanicalObject\"/>), "
                          "or write the class as the tag (<MechanicalObject/>)");
            return;
        }
        st_mark km;
        attr_marks(f, e, "type", &km, &tm);
        st_dobj *o = st__desc_obj(x->d, dn, (const char *)t, tm);
        xmlFree(t);
        if (!o)
            return oom(x);
        xmlChar *nm = xmlGetNoNsProp(e->el, (const xmlChar *)"name");
        for (xmlAttr *a = e->el->properties; a; a = a->next) {
            const char *k = (const char *)a->name;
            if (!strcmp(k, "type") || is_comment_attr(k))
                continue;
            st_mark vm;
            attr_marks(f, e, k, &km, &vm);
            char *v = attr_value(a);
            const override *ov = strcmp(k, "name") ? find_override(x, (const char *)nm, k) : NULL;
            if (!st__desc_attr_text(x->d, &o->attrs, &o->nattrs, &o->capattrs, k, km,
                                    ov ? ov->value : v, ov ? ov->mark : vm))
                oom(x);
            xmlFree(v);
        }
        xmlFree(nm);
        return;
    }
    st_dobj *o = st__desc_obj(x->d, dn, type, tm);
    if (!o)
        return oom(x);
    xmlChar *nm = xmlGetNoNsProp(e->el, (const xmlChar *)"name");
    for (xmlAttr *a = e->el->properties; a; a = a->next) {
        const char *k = (const char *)a->name;
        if (is_comment_attr(k))
            continue;
        st_mark km, vm;
        attr_marks(f, e, k, &km, &vm);
        char *v = attr_value(a);
        const override *ov = strcmp(k, "name") ? find_override(x, (const char *)nm, k) : NULL;
        if (!st__desc_attr_text(x->d, &o->attrs, &o->nattrs, &o->capattrs, k, km,
                                ov ? ov->value : v, ov ? ov->mark : vm))
            oom(x);
        xmlFree(v);
    }
    xmlFree(nm);
}

static void read_node(xreader *x, xfile *f, const xelem *e, st_dnode *parent, const char *ppath,
                      int depth, st_dnode **out)
{
    xmlChar *nm = xmlGetNoNsProp(e->el, (const xmlChar *)"name");
    const char *name = nm ? (const char *)nm : (parent ? NULL : "root");
    if (name && (!name[0] || strchr(name, '/'))) {
        st_mark km, vm;
        attr_marks(f, e, "name", &km, &vm);
        st__report_at(x->r, ST_ESCENE, vm, ppath,
                      "a node's name must be a non-empty name without '/', found '%s'", name);
        name = NULL;
    }
    st_dnode *dn = st__desc_node(x->d, parent, name ? name : (parent ? "Node" : "root"), e->mark);
    xmlFree(nm);
    if (!dn)
        return oom(x);
    if (out)
        *out = dn;
    char path[ST_ERROR_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", parent && strcmp(ppath, "/") ? ppath : "",
             parent ? dn->name : "");
    read_node_attrs(x, f, e, dn, path);
    read_children(x, f, e->el, dn, path, depth);
}

/* ---- includes ---- */

static void read_file(xreader *x, const char *name, const char *text, size_t len, int depth,
                      st_dnode *into, const char *path, st_mark from, const xelem *inc,
                      const xfile *incf);

static void merge_nodes(xreader *x, st_dnode *dst, const st_dnode *src)
{
    for (size_t i = 0; i < src->nattrs; i++) {
        const st_dattr *a = &src->attrs[i];
        if (!st__desc_attr(x->d, &dst->attrs, &dst->nattrs, &dst->capattrs, a->key, a->kmark,
                           &a->val))
            oom(x);
    }
    for (size_t i = 0; i < src->nitems; i++) {
        const st_ditem *it = &src->items[i];
        st_dnode *match = NULL;
        if (it->node)
            for (size_t j = 0; j < dst->nitems && !match; j++)
                if (dst->items[j].node && !strcmp(dst->items[j].node->name, it->node->name))
                    match = dst->items[j].node;
        if (match) {
            merge_nodes(x, match, it->node);
            continue;
        }
        if (!st__desc_add_item(x->d, dst, *it))
            return oom(x);
    }
}

/* Reads the file an <include> names (href), or, for an object element
 * whose class nobody provides, SOFA's replacement file (as_href,
 * "Objects/<class>.xml"). */
static void read_include(xreader *x, xfile *f, const xelem *e, st_dnode *dn, const char *path,
                         const char *as_href)
{
    xmlChar *href = as_href ? xmlStrdup((const xmlChar *)as_href)
                            : xmlGetNoNsProp(e->el, (const xmlChar *)"href");
    st_mark km, vm;
    attr_marks(f, e, "href", &km, &vm);
    if (!href || !href[0]) {
        xmlFree(href);
        st__report_at(x->r, ST_ESCENE, e->mark, path,
                      "<include> needs a non-empty href (<include href=\"part.scn\"/>)");
        return;
    }
    if (f->depth + 1 > XR_MAX_INCLUDES) {
        st__report_at(x->r, ST_ESCENE, vm, path,
                      "includes nested more than %d deep (does '%s' include itself?)",
                      XR_MAX_INCLUDES, (const char *)href);
        xmlFree(href);
        return;
    }
    char dir[4096], found[4096], tried[1536];
    bool not_regular = false;
    bool ok = st__data_find(st__dir_of(f->name, dir, sizeof dir), NULL, (const char *)href, found,
                            sizeof found, tried, sizeof tried, &not_regular);
    if (!ok) {
        if (not_regular)
            st__report_at(x->r, ST_ESCENE, vm, path, "include '%s': '%s' is not a regular file",
                          (const char *)href, found);
        else
            st__report_at(x->r, ST_ENOTFOUND, vm, path,
                          "cannot find included file '%s' (tried %s; relative names are searched "
                          "in the including file's folder, then SETTEE_DATA_PATH and "
                          "SOFA_DATA_PATH)",
                          (const char *)href, tried);
        xmlFree(href);
        return;
    }
    char *text = NULL;
    size_t len = 0;
    st_error err = {0};
    if (x->include_budget_spent) {
        xmlFree(href);
        return;
    }
    if (++x->nincluded > XR_MAX_INCLUDED_FILES) {
        x->include_budget_spent = true;
        st__report_at(x->r, ST_ESCENE, vm, path,
                      "include '%s': the scene includes more than %d files in all (a tree of "
                      "includes that fans out?)",
                      (const char *)href, XR_MAX_INCLUDED_FILES);
        xmlFree(href);
        return;
    }
    if (st__read_file(found, &text, &len, &err) != ST_OK) {
        st__report_at(x->r, err.code, vm, path, "include: %s", err.msg);
        xmlFree(href);
        return;
    }
    x->included_bytes += len;
    if (x->included_bytes > XR_MAX_INCLUDED_BYTES) {
        x->include_budget_spent = true;
        st__report_at(x->r, ST_ESCENE, vm, path,
                      "include '%s': the included files add up to more than %zu MiB (a tree "
                      "of includes that fans out?)",
                      (const char *)href, XR_MAX_INCLUDED_BYTES >> 20);
        xmlFree(href);
        st_free(text);
        return;
    }
    xmlFree(href);
    const char *iname = st__scene_intern(x->scene, found);
    if (!iname)
        oom(x);
    else
        read_file(x, iname, text, len, f->depth + 1, dn, path, vm, e, f);
    st_free(text);
}

/* ---- the tree ---- */

/* SOFA's XML reader replaces an object whose class no factory knows by
 * the file "Objects/<class>.xml" of its data path (BoxConstraint: a BoxROI
 * and a FixedProjectiveConstraint), read as an <include> whose attributes
 * are the element's. True, with its name in buf, when that applies. */
static bool replacement_file(xreader *x, const xfile *f, const char *cls, char *buf, size_t size)
{
    st_runtime *rt = x->scene->rt;
    if (!rt || (size_t)snprintf(buf, size, "Objects/%s.xml", cls) >= size)
        return false;
    /* The file first: asking which installed plugin has a class opens
     * every plugin, too slow for every element of every scene. */
    char dir[4096], found[4096], tried[256];
    bool not_regular = false;
    if (!st__data_find(st__dir_of(f->name, dir, sizeof dir), NULL, buf, found, sizeof found,
                       tried, sizeof tried, &not_regular))
        return false;
    char plugin[256];
    return !st_registry_find(st_runtime_registry(rt), cls) &&
           !st_runtime_which_plugin(rt, cls, plugin, sizeof plugin);
}

/* SOFA's long form of an attribute, inside an object:
 *   <Attribute type="position"><Data value="0 0 0"/></Attribute>
 * sets the object's attribute "position" (the last <Data> wins; the long
 * form replaces the same attribute written in the start tag). */
static void read_attribute_element(xreader *x, xfile *f, const xelem *ae, st_dobj *o,
                                   const char *path, const char *tag)
{
    xmlChar *key = xmlGetNoNsProp(ae->el, (const xmlChar *)"type");
    if (!key || !key[0]) {
        st__report_at(x->r, ST_ESCENE, ae->mark, path,
                      "<Attribute> in <%s> needs the attribute's name as type "
                      "(<Attribute type=\"position\"><Data value=\"0 0 0\"/></Attribute>)",
                      tag);
        xmlFree(key);
        return;
    }
    xelem de = {NULL, (size_t)-1, 0, ae->mark};
    for (xmlNode *g = ae->el->children; g; g = g->next) {
        if (g->type != XML_ELEMENT_NODE)
            continue;
        xelem ge = locate(f, g);
        if (strcmp((const char *)g->name, "Data")) {
            st__report_at(x->r, ST_ESCENE, ge.mark, path,
                          "<%s> is inside <Attribute>: it holds <Data value=\"...\"/> only",
                          (const char *)g->name);
            xmlFree(key);
            return;
        }
        de = ge;
    }
    xmlChar *v = de.el ? xmlGetNoNsProp(de.el, (const xmlChar *)"value") : NULL;
    if (!v) {
        st__report_at(x->r, ST_ESCENE, de.el ? de.mark : ae->mark, path,
                      "<Attribute type=\"%s\"> in <%s> needs a <Data value=\"...\"/> inside it",
                      (const char *)key, tag);
        xmlFree(key);
        return;
    }
    st_mark km, vm;
    attr_marks(f, ae, "type", &km, &vm);
    st_mark dkm, dvm;
    attr_marks(f, &de, "value", &dkm, &dvm);
    const char *k = (const char *)key;
    st_dattr *old = (st_dattr *)st__desc_get(o->attrs, o->nattrs, k);
    if (old) {
        const char *text = st__desc_str(x->d, (const char *)v);
        if (!text)
            oom(x);
        else
            old->val = (st_value){ST_VAL_SCALAR, text, true, NULL, 0, dvm};
    } else if (!st__desc_attr_text(x->d, &o->attrs, &o->nattrs, &o->capattrs, k, vm,
                                   (const char *)v, dvm)) {
        oom(x);
    }
    xmlFree(v);
    xmlFree(key);
}

static void read_children(xreader *x, xfile *f, xmlNode *parent, st_dnode *dn,
                          const char *path, int depth)
{
    char repl[320];
    for (xmlNode *c = parent->children; c && !st__report_stopped(x->r); c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        xelem e = locate(f, c);
        if (depth + 1 > XR_MAX_DEPTH) {
            st__report_at(x->r, ST_ESCENE, e.mark, path,
                          "elements nested too deeply (more than %d levels)", XR_MAX_DEPTH);
            return;
        }
        const char *tag = (const char *)c->name;
        if (!strcmp(tag, "Node"))
            read_node(x, f, &e, dn, path, depth + 1, NULL);
        else if (!strcmp(tag, "include"))
            read_include(x, f, &e, dn, path, NULL);
        else if (replacement_file(x, f, tag, repl, sizeof repl))
            read_include(x, f, &e, dn, path, repl);
        else {
            size_t before = dn->nitems;
            read_object(x, f, &e, dn, path);
            st_dobj *o = dn->nitems > before ? dn->items[dn->nitems - 1].obj : NULL;
            /* Inside an object SOFA's grammar has <Attribute> elements only. */
            for (xmlNode *g = c->children; g; g = g->next)
                if (g->type == XML_ELEMENT_NODE && o && !strcmp((const char *)g->name, "Attribute")) {
                    xelem ge = locate(f, g);
                    read_attribute_element(x, f, &ge, o, path, tag);
                } else if (g->type == XML_ELEMENT_NODE) {
                    xelem ge = locate(f, g);
                    st__report_at(x->r, ST_ESCENE, ge.mark, path,
                                  "<%s> is inside <%s>: objects hold no elements; close the "
                                  "object (<%s .../>) before it",
                                  (const char *)g->name, tag, tag);
                    break;
                }
        }
    }
}

static void silent_error(void *ctx, const char *msg, ...) { (void)ctx, (void)msg; }

/* libxml2's first error of a parse (its last one is often a consequence,
 * "Premature end of data", far from the cause). */
typedef struct first_error {
    bool set;
    int line, col;
    char msg[512];
} first_error;

static void keep_first_error(void *ctx, xmlErrorPtr e)
{
    first_error *fe = ctx;
    if (!fe || fe->set || !e || e->level < XML_ERR_ERROR)
        return;
    fe->set = true;
    fe->line = e->line;
    fe->col = e->int2;
    snprintf(fe->msg, sizeof fe->msg, "%s", e->message ? e->message : "not well-formed");
}

static xmlParserInputPtr no_external(const char *url, const char *id, xmlParserCtxtPtr ctxt)
{
    (void)url, (void)id, (void)ctxt;
    return NULL;
}

/* Reads one file. into NULL: the scene's root file (its root element is the
 * root node). Otherwise an include: inc is the <include> element in incf. */
static void read_file(xreader *x, const char *name, const char *text, size_t len, int depth,
                      st_dnode *into, const char *path, st_mark from, const xelem *inc,
                      const xfile *incf)
{
    rbuf rb = {0};
    if (!repair(x, name, text, len, &rb)) {
        st_free(rb.p);
        st_free(rb.fixes);
        return oom(x);
    }
    /* A file whose lines end with CR alone (old Mac OS): libxml2 counts
     * lines by LF, so every error was at line 1. XML reads CR as LF anyway
     * (XML 1.0, 2.11), so the copy's CRs become LFs. */
    if (rb.p && rb.n && !memchr(rb.p, '\n', rb.n))
        for (char *c = memchr(rb.p, '\r', rb.n); c; c = memchr(c, '\r', rb.n - (size_t)(c - rb.p)))
            *c = '\n';
    text = rb.p ? rb.p : "";
    len = rb.n;
    xfile f = {name, text, len, rb.fixes, rb.nfixes, 0, NULL, 0, depth};
    if (!index_lines(&f)) {
        st_free(rb.p);
        st_free(rb.fixes);
        return oom(x);
    }
    if (len > (size_t)INT32_MAX) {
        st__report_at(x->r, ST_ESCENE, (st_mark){name, 1, 1}, NULL, "scene file too large");
        st_free(f.lines);
        st_free(rb.p);
        st_free(rb.fixes);
        return;
    }
    xmlExternalEntityLoader old_loader = xmlGetExternalEntityLoader();
    xmlSetExternalEntityLoader(no_external);
    /* libxml2's duplicate-attribute check is quadratic: an element with
     * tens of thousands of attributes is refused before it runs */
    xml_prescan ps;
    if (!xml_prescan_text(text, len, XR_MAX_ATTRS, &ps) && ps.attrs_line) {
        xmlSetExternalEntityLoader(old_loader);
        st__report_at(x->r, ST_ESCENE, (st_mark){name, ps.attrs_line, ps.attrs_col},
                      into ? path : NULL,
                      "an element with more than %d attributes: refused before parsing (no "
                      "component has that many fields)",
                      XR_MAX_ATTRS);
        st_free(f.lines);
        st_free(rb.p);
        st_free(rb.fixes);
        return;
    }
    first_error fe = {0};
    xmlSetGenericErrorFunc(NULL, silent_error);
    xmlSetStructuredErrorFunc(&fe, keep_first_error);
    xmlResetLastError();
    xmlDoc *doc = xmlReadMemory(text, (int)len, name, NULL,
                                XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOWARNING |
                                    XML_PARSE_NOERROR | XML_PARSE_NOCDATA);
    xmlSetExternalEntityLoader(old_loader);
    xmlSetStructuredErrorFunc(NULL, NULL);
    if (!doc) {
        const xmlError *last = xmlGetLastError();
        char msg[512] = "not well-formed";
        int eline = fe.set ? fe.line : last ? last->line : 0,
            ecol = fe.set ? fe.col : last ? last->int2 : 0;
        if (fe.set || (last && last->message)) {
            snprintf(msg, sizeof msg, "%s", fe.set ? fe.msg : last->message);
            size_t n = strlen(msg);
            while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
                msg[--n] = 0;
            if (strstr(msg, "Excessive depth")) /* libxml2's limit, without its advice */
                snprintf(msg, sizeof msg, "elements nested more than 256 levels deep");
        }
        st_mark m = {name, eline > 0 ? eline : 1, ecol > 0 ? ecol : 1};
        st__report_at(x->r, ST_EPARSE, m, into ? path : NULL, "XML syntax error: %s%s", msg,
                      into ? "" : " (a SOFA scene is XML: <Node name=\"root\"> ... </Node>)");
        if (into)
            st__report_at(x->r, ST_EPARSE, from, path, "in the file included here");
        st_free(f.lines);
        st_free(rb.p);
        st_free(rb.fixes);
        return;
    }
    if (doc->intSubset || doc->extSubset) {
        st__report_at(x->r, ST_ESCENE, (st_mark){name, 1, 1}, NULL,
                      "scene files may not declare a DTD (<!DOCTYPE ...>): settee refuses "
                      "document type declarations and external entities");
        xmlFreeDoc(doc);
        st_free(f.lines);
        st_free(rb.p);
        st_free(rb.fixes);
        return;
    }
    xmlNode *root = xmlDocGetRootElement(doc);
    if (!root) {
        st__report_at(x->r, ST_ESCENE, (st_mark){name, 1, 1}, NULL,
                      "empty scene: a SOFA scene is <Node name=\"root\"> ... </Node>");
    } else if (!into) {
        xelem e = locate(&f, root);
        if (strcmp((const char *)root->name, "Node"))
            st__report_at(x->r, ST_ESCENE, e.mark, NULL,
                          "the root element of a scene is <Node> (the root node), found <%s>",
                          (const char *)root->name);
        else
            read_node(x, &f, &e, NULL, "", 0, NULL);
    } else {
        /* An include: its overrides apply to the objects it brings. */
        size_t nov0 = x->nov;
        const override *ov0 = x->ov;
        override *ov = NULL;
        size_t n = 0, cap = 0;
        const char *rename = NULL;
        for (xmlAttr *a = inc->el->properties; a; a = a->next) {
            const char *k = (const char *)a->name;
            if (!strcmp(k, "href") || is_comment_attr(k))
                continue;
            char *v = attr_value(a);
            const char *vs = st__desc_str(x->d, v);
            xmlFree(v);
            if (!vs)
                return oom(x);
            if (!strcmp(k, "name")) {
                rename = vs;
                continue;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 8;
                override *p = st_realloc(ov, (cap + nov0) * sizeof *p);
                if (!p) {
                    st_free(ov);
                    return oom(x);
                }
                ov = p;
            }
            st_mark km, vm;
            attr_marks(incf, inc, k, &km, &vm);
            const char *sep = strstr(k, "__");
            override o = {NULL, NULL, vs, vm};
            o.key = st__desc_str(x->d, sep ? sep + 2 : k);
            o.target = sep ? st__desc_strn(x->d, k, (size_t)(sep - k)) : NULL;
            if (!o.key || (sep && !o.target)) {
                st_free(ov);
                return oom(x);
            }
            ov[n++] = o;
        }
        /* Outer overrides are kept after this include's and win. */
        if (nov0) {
            override *p = st_realloc(ov, (n + nov0) * sizeof *p);
            if (!p) {
                st_free(ov);
                return oom(x);
            }
            ov = p;
            memcpy(ov + n, ov0, nov0 * sizeof *ov);
        }
        x->ov = ov;
        x->nov = n + nov0;
        xelem e = locate(&f, root);
        /* As SOFA: the file's own root name decides first (Group/_Group_:
         * its children join this node; _Merge_: merged), then a `name` on
         * the include renames it and decides again only when it is one of
         * those names; so an Objects/TYPE.xml replacement rooted at Group
         * and named by its element still adds its objects here. */
        const char *rname = NULL;
        xmlChar *own = xmlGetNoNsProp(root, (const xmlChar *)"name");
        if (own)
            rname = st__desc_str(x->d, (const char *)own);
        bool no_name = own && !rname; /* out of memory */
        xmlFree(own);
        bool group = rname && (!strcmp(rname, "Group") || !strcmp(rname, "_Group_"));
        bool merge = rname && !strcmp(rname, "_Merge_");
        if (rename) {
            if (!strcmp(rename, "Group") || !strcmp(rename, "_Group_"))
                group = true, merge = false;
            else if (!strcmp(rename, "_Merge_"))
                merge = true, group = false;
        }
        if (no_name) {
            oom(x);
        } else if (strcmp((const char *)root->name, "Node")) {
            /* An included file whose root is an object adds that object. */
            read_object(x, &f, &e, into, path);
        } else if (group) {
            read_node_attrs(x, &f, &e, into, path);
            read_children(x, &f, root, into, path, 0);
        } else if (merge) {
            /* Read into a detached node, then merged into this one by name. */
            st_dnode *holder = st__desc_node(x->d, NULL, "_Merge_", e.mark);
            if (holder) {
                read_node_attrs(x, &f, &e, holder, path);
                read_children(x, &f, root, holder, path, 0);
                merge_nodes(x, into, holder);
            } else {
                oom(x);
            }
        } else {
            st_dnode *child = NULL;
            read_node(x, &f, &e, into, path, 0, &child);
            if (child && rename)
                child->name = rename;
        }
        x->ov = ov0;
        x->nov = nov0;
        st_free(ov);
    }
    xmlFreeDoc(doc);
    st_free(f.lines);
    st_free(rb.p);
    st_free(rb.fixes);
}

void st__xml_read(st_scene *s, const char *file, const char *text, size_t len, st_desc *d,
                  st_report *r)
{
    xreader x = {s, d, r, NULL, 0};
    read_file(&x, file, text, len, 0, NULL, "", ST_NO_MARK, NULL, NULL);
}
