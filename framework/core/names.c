/* names.c - lookups that stay fast in big nodes (10^5 objects or children):
 * duplicate-name checks by sorting, name indexes for link resolution while
 * a scene initialises, the first object of each role, and per-class counts
 * for SOFA's default names. Each index is rebuilt or extended lazily and is
 * only trusted while the node's counts match what it was built from. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* ---- names ---- */

st_status st__name_check(const char *what, const char *name, st_mark m, st_error *err)
{
    if (name && strchr(name, '/'))
        return st__error_at(err, ST_ESCENE, m,
                            "%s name '%s' contains '/', which separates the parts of a path "
                            "(\"@../node/object\"): choose a name without it",
                            what, name);
    return ST_OK;
}

/* An entry to sort: a name and its position in the node. */
typedef struct named {
    const char *name;
    size_t pos;
} named;

static int cmp_named(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Sorts n names (by name, then position) into a fresh array, NULL when out
 * of memory. */
static named *sort_names(size_t n, const char *(*get)(const st_node *, size_t),
                         const st_node *node)
{
    named *v = st_malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++)
        v[i] = (named){get(node, i), i};
    qsort(v, n, sizeof *v, cmp_named);
    return v;
}

static const char *object_name(const st_node *n, size_t i) { return n->objects[i]->name; }
static const char *child_name(const st_node *n, size_t i) { return n->children[i]->name; }

st_status st__node_index(st_node *n, st__dup_fn on_dup, void *ud, st_error *err)
{
    st__node_unindex_one(n);
    named *o = sort_names(n->nobjects, object_name, n);
    named *c = o ? sort_names(n->nchildren, child_name, n) : NULL;
    st_component **ov = c ? st_malloc((n->nobjects ? n->nobjects : 1) * sizeof *ov) : NULL;
    st_node **cv = ov ? st_malloc((n->nchildren ? n->nchildren : 1) * sizeof *cv) : NULL;
    if (!cv) {
        st_free(o);
        st_free(c);
        st_free(ov);
        return st_error_set(err, ST_ENOMEM, "out of memory indexing node '%s' (%zu objects, %zu "
                            "children)", n->name, n->nobjects, n->nchildren);
    }
    for (size_t i = 0; i < n->nobjects; i++) {
        ov[i] = n->objects[o[i].pos];
        /* The first of equal names (in scene order) sorts first. */
        if (on_dup && i > 0 && !strcmp(o[i].name, o[i - 1].name))
            on_dup(ud, n, n->objects[o[i].pos], n->objects[o[i - 1].pos], NULL, NULL);
    }
    for (size_t i = 0; i < n->nchildren; i++) {
        cv[i] = n->children[c[i].pos];
        if (on_dup && i > 0 && !strcmp(c[i].name, c[i - 1].name))
            on_dup(ud, n, NULL, NULL, n->children[c[i].pos], n->children[c[i - 1].pos]);
    }
    st_free(o);
    st_free(c);
    n->objs_by_name = ov;
    n->nobjs_by_name = n->nobjects;
    n->children_by_name = cv;
    n->nchildren_by_name = n->nchildren;
    return ST_OK;
}

void st__node_unindex_one(st_node *n)
{
    st_free(n->objs_by_name);
    st_free(n->children_by_name);
    n->objs_by_name = NULL;
    n->children_by_name = NULL;
    n->nobjs_by_name = n->nchildren_by_name = 0;
}

void st__node_unindex(st_node *n)
{
    st__node_unindex_one(n);
    for (size_t i = 0; i < n->nchildren; i++)
        st__node_unindex(n->children[i]);
}

/* Compares a NUL-terminated name with (s, len). */
static int cmp_len(const char *name, const char *s, size_t len)
{
    int c = strncmp(name, s, len);
    if (c)
        return c;
    return name[len] != '\0';
}

/* Binary search in a sorted index of count entries; name_at gives entry i's name. */
static size_t search(const void *const *v, size_t count, const char *(*name_at)(const void *),
                     const char *s, size_t len)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_len(name_at(v[mid]), s, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && cmp_len(name_at(v[lo]), s, len) == 0 ? lo : count;
}

static const char *cname(const void *p) { return ((const st_component *)p)->name; }
static const char *nname(const void *p) { return ((const st_node *)p)->name; }

st_component *st__node_object_named(const st_node *n, const char *name, size_t len)
{
    if (n->objs_by_name && n->nobjs_by_name == n->nobjects) {
        size_t k = search((const void *const *)n->objs_by_name, n->nobjects, cname, name, len);
        return k < n->nobjects ? n->objs_by_name[k] : NULL;
    }
    for (size_t i = 0; i < n->nobjects; i++)
        if (cmp_len(n->objects[i]->name, name, len) == 0)
            return n->objects[i];
    return NULL;
}

st_node *st__node_child_named(const st_node *n, const char *name, size_t len)
{
    if (n->children_by_name && n->nchildren_by_name == n->nchildren) {
        size_t k = search((const void *const *)n->children_by_name, n->nchildren, nname, name, len);
        return k < n->nchildren ? n->children_by_name[k] : NULL;
    }
    for (size_t i = 0; i < n->nchildren; i++)
        if (cmp_len(n->children[i]->name, name, len) == 0)
            return n->children[i];
    return NULL;
}

/* ---- roles ---- */

st_component *st__node_first_role(const st_node *cn, st_role role)
{
    st_node *n = (st_node *)cn; /* the cache is not part of the node's value */
    if ((unsigned)role >= ST__NROLES)
        return NULL;
    if (n->roles_scanned > n->nobjects) { /* cannot shrink; be safe */
        memset(n->role_first, 0, sizeof n->role_first);
        n->roles_scanned = 0;
    }
    for (size_t i = n->roles_scanned; i < n->nobjects; i++)
        for (unsigned r = 0; r < ST__NROLES; r++)
            if (!n->role_first[r] && st__class_has_role(n->objects[i]->cls, (st_role)r))
                n->role_first[r] = i + 1;
    n->roles_scanned = n->nobjects;
    return n->role_first[role] ? n->objects[n->role_first[role] - 1] : NULL;
}

/* ---- per-class counts ---- */

static size_t hash_ptr(const void *p, size_t cap)
{
    size_t h = (size_t)(uintptr_t)p;
    h ^= h >> 17;
    h *= (size_t)0x9E3779B97F4A7C15ull;
    return (h >> 7) & (cap - 1);
}

static st__clscount *slot(st__clscount *v, size_t cap, const st_class *cls)
{
    size_t i = hash_ptr(cls, cap);
    while (v[i].cls && v[i].cls != cls)
        i = (i + 1) & (cap - 1);
    return &v[i];
}

/* Makes room for one more class; false when out of memory. */
static bool grow(st_node *n)
{
    if (2 * (n->nclscount + 1) <= n->capclscount)
        return true;
    size_t cap = n->capclscount ? 2 * n->capclscount : 16;
    st__clscount *v = st_calloc(cap, sizeof *v);
    if (!v)
        return false;
    for (size_t i = 0; i < n->capclscount; i++)
        if (n->clscount[i].cls)
            *slot(v, cap, n->clscount[i].cls) = n->clscount[i];
    st_free(n->clscount);
    n->clscount = v;
    n->capclscount = cap;
    return true;
}

size_t st__node_class_count(st_node *n, const st_class *cls)
{
    bool ok = true;
    for (; ok && n->clscounted < n->nobjects; n->clscounted++) {
        const st_class *c = n->objects[n->clscounted]->cls;
        st__clscount *e = n->capclscount ? slot(n->clscount, n->capclscount, c) : NULL;
        if (!e || !e->cls) {
            ok = grow(n);
            if (!ok)
                break;
            e = slot(n->clscount, n->capclscount, c);
            e->cls = c;
            n->nclscount++;
        }
        e->n++;
    }
    if (!ok) { /* out of memory: count the slow way */
        size_t k = 0;
        for (size_t i = 0; i < n->nobjects; i++)
            k += n->objects[i]->cls == cls;
        return k;
    }
    st__clscount *e = n->capclscount ? slot(n->clscount, n->capclscount, cls) : NULL;
    return e && e->cls ? e->n : 0;
}

void st__node_caches_reset(st_node *n)
{
    memset(n->role_first, 0, sizeof n->role_first);
    n->roles_scanned = 0;
    st_free(n->clscount);
    n->clscount = NULL;
    n->nclscount = n->capclscount = n->clscounted = 0;
}
