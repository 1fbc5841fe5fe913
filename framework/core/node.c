/* node.c - scene graph nodes: context data, lookups, path resolution,
 * visitors, and building scenes in code. It and component.c call each
 * other by design (core.h says why). */
#include <stdio.h>
#include <string.h>

#include "core/core.h"

static const st_field node_fields[] = {
    ST_VEC3(struct st_node, gravity, "gravity", "0 -9.81 0",
            "Gravity vector; only the root's value matters (children copy it, as in SOFA)"),
    ST_FIELD_EX(struct st_node, dt, "dt", ST_T_REAL, double, "0.01",
                "Time step; only the root's value matters", 0, NULL, 0.0, 1e300),
    ST_REAL(struct st_node, time, "time", "0", "Simulated time"),
    ST_BOOL(struct st_node, animate, "animate", "false", "Animate at start-up (kept for SOFA scenes)"),
    ST_BOOL(struct st_node, activated, "activated", "true",
            "An inactive node and its subtree are skipped by every visitor"),
    ST_FIELD_END};

st_status st__node_create(st_scene *s, st_node *parent, const char *name, st_mark mark,
                          st_node **out, st_error *err)
{
    *out = NULL;
    /* a name with '/' (<include name="a/b">, a YAML name) would be two */
    ST_TRY(st__name_check("a node", name, mark, err));
    st_node *n = st_calloc(1, sizeof *n);
    if (!n)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    n->name = st_strdup(name ? name : (parent ? "node" : "root"));
    n->scene = s;
    n->parent = parent;
    n->mark = mark;
    if (!n->name) {
        st_free(n);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (const st_field *f = node_fields; f->name; f++)
        if (st__field_set_default(f, (char *)n + f->offset, err) != ST_OK) {
            st__node_destroy(n);
            return ST_EINTERNAL;
        }
    if (parent) {
        if (parent->nchildren == parent->capchildren) {
            size_t cap = parent->capchildren ? 2 * parent->capchildren : 4;
            st_node **c = st_realloc(parent->children, cap * sizeof *c);
            if (!c) {
                st__node_destroy(n);
                return st_error_set(err, ST_ENOMEM, "out of memory");
            }
            parent->children = c;
            parent->capchildren = cap;
        }
        parent->children[parent->nchildren++] = n;
        memcpy(n->gravity, parent->gravity, sizeof n->gravity);
        n->dt = parent->dt;
        n->time = parent->time;
        n->animate = parent->animate;
    } else if (s) {
        s->root = n;
    }
    st__scene_touch(s);
    *out = n;
    return ST_OK;
}

void st__node_destroy(st_node *n)
{
    if (!n)
        return;
    /* Children first, objects in reverse order. */
    for (size_t i = n->nchildren; i-- > 0;)
        st__node_destroy(n->children[i]);
    for (size_t i = n->nobjects; i-- > 0;)
        st__component_destroy(n->objects[i]);
    st__node_unindex_one(n);
    st__node_caches_reset(n);
    st_free(n->children);
    st_free(n->objects);
    st_free(n->name);
    st_free(n);
}

st_status st__node_set_value(st_node *n, const char *key, const st_value *v, st_error *err)
{
    for (const st_field *f = node_fields; f->name; f++) {
        if (strcmp(f->name, key))
            continue;
        ST_TRY(st__field_parse(f, v, (char *)n + f->offset, err));
        st__scene_touch(n->scene);
        if (n->parent && strcmp(key, "activated") && n->scene)
            st__log(n->scene->rt, ST_LOG_WARNING, v->mark, NULL,
                    "'%s' on node '%s' is overwritten by the root's value (as in SOFA, only the "
                    "root's context data matters)",
                    key, n->name);
        return ST_OK;
    }
    const char *names[8], *sugg[1];
    size_t k = 0;
    for (const st_field *f = node_fields; f->name; f++)
        names[k++] = f->name;
    names[k++] = "name";
    names[k++] = "objects";
    names[k++] = "children";
    size_t ns = st__suggest(key, names, k, sugg, 1);
    return st__error_at(err, ST_ESCENE, v->mark,
                        "node '%s' has no key '%s'%s%s%s (a node has name, gravity, dt, time, "
                        "animate, activated, objects, children)",
                        n->name, key, ns ? " (did you mean '" : "", ns ? sugg[0] : "",
                        ns ? "'?)" : "");
}

st_status st_node_set(st_node *n, const char *key, const char *text, st_error *err)
{
    st_value v = {ST_VAL_SCALAR, text ? text : "", false, NULL, 0, ST_NO_MARK};
    return st__node_set_value(n, key, &v, err);
}

void st__node_propagate_context(st_node *n)
{
    for (size_t i = 0; i < n->nchildren; i++) {
        st_node *c = n->children[i];
        memcpy(c->gravity, c->own_gravity ? c->context_gravity : n->gravity, sizeof c->gravity);
        c->dt = n->dt;
        c->time = n->time;
        c->animate = n->animate;
        st__node_propagate_context(c);
    }
}

st_status st__node_prepend_object(st_node *n, st_component *c, st_error *err)
{
    /* c was appended by st__component_create: move it to the front. */
    size_t i = 0;
    while (i < n->nobjects && n->objects[i] != c)
        i++;
    if (i == n->nobjects)
        return st_error_set(err, ST_EINTERNAL, "component not in node");
    memmove(n->objects + 1, n->objects, i * sizeof *n->objects);
    n->objects[0] = c;
    st__node_caches_reset(n);
    return ST_OK;
}

const char *st_node_name(const st_node *n) { return n ? n->name : NULL; }
st_node *st_node_parent(const st_node *n) { return n ? n->parent : NULL; }
st_node *st_node_root(const st_node *n)
{
    while (n && n->parent)
        n = n->parent;
    return (st_node *)n;
}
size_t st_node_child_count(const st_node *n) { return n ? n->nchildren : 0; }
st_node *st_node_child(const st_node *n, size_t i) { return n && i < n->nchildren ? n->children[i] : NULL; }
size_t st_node_object_count(const st_node *n) { return n ? n->nobjects : 0; }
st_component *st_node_object(const st_node *n, size_t i)
{
    return n && i < n->nobjects ? n->objects[i] : NULL;
}

const char *st_node_path(const st_node *n, char *buf, size_t size)
{
    if (!buf || !size)
        return buf;
    if (!n || !n->parent) {
        snprintf(buf, size, "/");
        return buf;
    }
    const st_node *chain[64];
    size_t k = 0;
    for (const st_node *p = n; p->parent && k < 64; p = p->parent)
        chain[k++] = p;
    size_t len = 0;
    buf[0] = 0;
    while (k-- > 0 && len < size) {
        int w = snprintf(buf + len, size - len, "/%s", chain[k]->name);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return buf;
}

void st_node_gravity(const st_node *n, double g[3]) { memcpy(g, n->gravity, sizeof n->gravity); }

/* The subtree below n takes n's gravity, except where a node keeps its own. */
static void gravity_below(st_node *n)
{
    for (size_t i = 0; i < n->nchildren; i++) {
        st_node *c = n->children[i];
        if (c->own_gravity)
            continue;
        memcpy(c->gravity, n->gravity, sizeof c->gravity);
        gravity_below(c);
    }
}

void st_node_set_context_gravity(st_node *n, const double g[3])
{
    if (!n)
        return;
    memcpy(n->context_gravity, g, sizeof n->context_gravity);
    memcpy(n->gravity, g, sizeof n->gravity);
    n->own_gravity = true;
    gravity_below(n);
}
double st_node_dt(const st_node *n) { return n->dt; }
double st_node_time(const st_node *n) { return n->time; }
bool st_node_animate(const st_node *n) { return n->animate; }
bool st_node_activated(const st_node *n) { return n->activated; }

st_mstate *st_node_mstate(const st_node *n)
{
    return n ? (st_mstate *)st__node_first_role(n, ST_ROLE_STATE) : NULL;
}

/* ---- searches ---- */

typedef struct finder {
    st_role role;
    st_component **out;
    size_t max, count;
} finder;

static void find_local(const st_node *n, finder *f)
{
    for (size_t i = 0; i < n->nobjects; i++)
        if (st__class_has_role(n->objects[i]->cls, f->role)) {
            if (f->out && f->count < f->max)
                f->out[f->count] = n->objects[i];
            f->count++;
        }
}

static void find_down(const st_node *n, finder *f)
{
    find_local(n, f);
    for (size_t i = 0; i < n->nchildren; i++)
        find_down(n->children[i], f);
}

size_t st_node_find_all(const st_node *n, st_role role, st_search dir, st_component **out,
                        size_t max)
{
    finder f = {role, out, max, 0};
    if (!n)
        return 0;
    switch (dir) {
    case ST_SEARCH_LOCAL:
        find_local(n, &f);
        break;
    case ST_SEARCH_UP:
        for (const st_node *p = n; p; p = p->parent)
            find_local(p, &f);
        break;
    case ST_SEARCH_DOWN:
        find_down(n, &f);
        break;
    case ST_SEARCH_ROOT:
        find_down(st_node_root(n), &f);
        break;
    }
    return f.count;
}

/* The first object with a role in a subtree, in pre-order. */
static st_component *first_down(const st_node *n, st_role role)
{
    st_component *c = st__node_first_role(n, role);
    for (size_t i = 0; !c && i < n->nchildren; i++)
        c = first_down(n->children[i], role);
    return c;
}

st_component *st_node_find(const st_node *n, st_role role, st_search dir)
{
    if (!n)
        return NULL;
    st_component *c = NULL;
    switch (dir) {
    case ST_SEARCH_LOCAL:
        return st__node_first_role(n, role);
    case ST_SEARCH_UP:
        for (const st_node *p = n; p && !c; p = p->parent)
            c = st__node_first_role(p, role);
        return c;
    case ST_SEARCH_DOWN:
        return first_down(n, role);
    case ST_SEARCH_ROOT:
        return first_down(st_node_root(n), role);
    }
    return NULL;
}

/* ---- path resolution ---- */

static st_role kind_role(st_link_kind k)
{
    switch (k) {
    case ST_LINK_STATE:
        return ST_ROLE_STATE;
    case ST_LINK_TOPOLOGY:
        return ST_ROLE_TOPOLOGY;
    case ST_LINK_LINEAR_SOLVER:
        return ST_ROLE_LINSOLVER;
    case ST_LINK_ODE_SOLVER:
        return ST_ROLE_ODESOLVER;
    default:
        return ST_ROLE_ANY;
    }
}

static bool kind_ok(const st_component *c, st_link_kind k)
{
    if (k == ST_LINK_LOADER)
        return c->cls->category && !strcmp(c->cls->category, "Loader");
    return st__class_has_role(c->cls, kind_role(k));
}

static const char *kind_name(st_link_kind k)
{
    static const char *const names[] = {"component", "MechanicalObject", "topology",
                                        "linear solver", "ODE solver", "loader"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "component";
}

#define child_named st__node_child_named
#define object_named st__node_object_named


/* " (did you mean 'a' or 'b'?)" for a link segment that names nothing:
 * the names of n's children and objects (and its ancestors' when the
 * segment was searched upward), or "" when none is close. */
static void link_suggestions(const st_node *n, bool upward, const char *seg, size_t len,
                             char *out, size_t size)
{
    out[0] = 0;
    char want[256];
    snprintf(want, sizeof want, "%.*s", (int)(len < 255 ? len : 255), seg);
    size_t cap = 0, nc = 0;
    for (const st_node *m = n; m; m = upward ? m->parent : NULL)
        cap += m->nchildren + m->nobjects;
    const char **cands = st_calloc(cap ? cap : 1, sizeof *cands);
    if (!cands)
        return;
    for (const st_node *m = n; m; m = upward ? m->parent : NULL) {
        for (size_t i = 0; i < m->nchildren; i++)
            if (m->children[i]->name)
                cands[nc++] = m->children[i]->name;
        for (size_t i = 0; i < m->nobjects; i++)
            if (m->objects[i]->name)
                cands[nc++] = m->objects[i]->name;
    }
    const char *sugg[3];
    size_t ns = st__suggest(want, cands, nc, sugg, 3);
    size_t k = 0;
    for (size_t i = 0; i < ns && k < size; i++) {
        int w = snprintf(out + k, size - k, "%s'%s'%s", i == 0 ? " (did you mean " :
                         i + 1 == ns ? " or " : ", ", sugg[i], i + 1 == ns ? "?)" : "");
        if (w < 0)
            break;
        k += (size_t)w;
    }
    st_free(cands);
}

st_status st_node_resolve(st_node *from, const char *path, st_link_kind kind, st_component **out,
                          st_error *err)
{
    *out = NULL;
    if (!from)
        return st_error_set(err, ST_ELINK, "no node to resolve '@%s' from", path);
    const char *p = path;
    st_node *n = from;
    bool based = false;
    if (*p == '/') {
        n = st_node_root(from);
        based = true;
        while (*p == '/')
            p++;
    }
    st_component *obj = NULL;
    bool first = true;
    while (*p) {
        const char *seg = p;
        while (*p && *p != '/')
            p++;
        size_t len = (size_t)(p - seg);
        while (*p == '/')
            p++;
        if (len == 0)
            continue;
        if (obj)
            return st_error_set(err, ST_ELINK, "'@%s': '%.*s' follows an object, not a node", path,
                                (int)len, seg);
        if (len == 1 && seg[0] == '.') {
            based = true;
            continue;
        }
        if (len == 2 && seg[0] == '.' && seg[1] == '.') {
            if (!n->parent)
                return st_error_set(err, ST_ELINK, "'@%s' goes above the root node", path);
            n = n->parent;
            based = true;
            continue;
        }
        st_node *c = child_named(n, seg, len);
        st_component *o = c ? NULL : object_named(n, seg, len);
        if (!c && !o && first && !based) {
            /* The first segment of a relative path is searched upwards. */
            for (st_node *up = n->parent; up && !c && !o; up = up->parent) {
                c = child_named(up, seg, len);
                o = c ? NULL : object_named(up, seg, len);
            }
        }
        if (!c && !o) {
            char np[ST_ERROR_PATH_MAX], dym[ST_ERROR_MSG_MAX / 2];
            link_suggestions(n, first && !based, seg, len, dym, sizeof dym);
            return st_error_set(err, ST_ELINK, "'@%s' does not resolve: no node or object named "
                                "'%.*s' in %s%s%s",
                                path, (int)len, seg, st_node_path(n, np, sizeof np),
                                first && !based ? " or its ancestors" : "", dym);
        }
        first = false;
        based = true;
        if (c)
            n = c;
        else
            obj = o;
    }
    if (!obj) {
        if (kind == ST_LINK_ANY) {
            /* A node stands for its mechanical state (SOFA's mapping
             * output="@." and the like), when it has exactly one. */
            st_component *state = NULL;
            size_t nstates = 0;
            for (size_t i = 0; i < n->nobjects; i++)
                if (kind_ok(n->objects[i], ST_LINK_STATE)) {
                    state = n->objects[i];
                    nstates++;
                }
            /* No MechanicalObject: a visual model with positions (an
             * OglModel) or a MappedObject (flat positions of its
             * template), which SOFA's State lookup also finds. */
            for (size_t i = 0; !nstates && i < n->nobjects; i++) {
                const st_component *o = n->objects[i];
                const st_field *pf = st_component_field(o, "position");
                const st_field *vf = st_component_field(o, "velocity");
                bool visual = o->cls->category && !strcmp(o->cls->category, "Visual") && pf &&
                              pf->type == ST_T_VEC3S;
                bool mapped = o->cls->category && !strcmp(o->cls->category, "State") && pf &&
                              vf && pf->type == ST_T_REALS && vf->type == ST_T_REALS;
                if (visual || mapped) {
                    state = n->objects[i];
                    nstates = 1;
                }
            }
            char np[ST_ERROR_PATH_MAX];
            if (nstates != 1)
                return st_error_set(err, ST_ELINK,
                                    "'@%s' names the node %s, not a component (a node stands for "
                                    "its MechanicalObject, or else its visual model, and it has "
                                    "%zu MechanicalObjects)",
                                    path, st_node_path(n, np, sizeof np), nstates);
            *out = state;
            return ST_OK;
        }
        st_component *found = NULL;
        size_t count = 0;
        for (size_t i = 0; i < n->nobjects; i++)
            if (kind_ok(n->objects[i], kind)) {
                if (!found)
                    found = n->objects[i];
                count++;
            }
        /* None here: SOFA's path resolution then takes the node's context
         * slot for the single components (Node::getState, getTopology,
         * getOdeSolver), which searches the ancestors: "@.." on a node
         * without a state stands for the nearest state above it. */
        if (!found && (kind == ST_LINK_STATE || kind == ST_LINK_TOPOLOGY ||
                       kind == ST_LINK_ODE_SOLVER))
            for (const st_node *up = n->parent; up && !found; up = up->parent)
                for (size_t i = 0; i < up->nobjects && !found; i++)
                    if (kind_ok(up->objects[i], kind))
                        found = up->objects[i];
        char np[ST_ERROR_PATH_MAX];
        if (!found)
            return st_error_set(err, ST_ELINK, "'@%s': node %s has no %s%s", path,
                                st_node_path(n, np, sizeof np), kind_name(kind),
                                kind == ST_LINK_STATE || kind == ST_LINK_TOPOLOGY ||
                                        kind == ST_LINK_ODE_SOLVER
                                    ? ", nor has any node above it"
                                    : "");
        if (count > 1 && kind != ST_LINK_STATE)
            return st_error_set(err, ST_ELINK, "'@%s': node %s has %zu %ss; name one", path,
                                st_node_path(n, np, sizeof np), count, kind_name(kind));
        obj = found;
    }
    if (kind != ST_LINK_ANY && !kind_ok(obj, kind))
        return st_error_set(err, ST_ELINK, "'@%s' is a %s, not a %s", path, obj->cls->name,
                            kind_name(kind));
    *out = obj;
    return ST_OK;
}

/* ---- visitors ---- */

static void top_down(st_node *n, const st_visitor *v)
{
    n->pruned = false;
    if (!n->activated)
        return;
    if (v->top_down && v->top_down(n, v->ud) == ST_VISIT_PRUNE) {
        n->pruned = true;
        return;
    }
    for (size_t i = 0; i < n->nchildren; i++)
        top_down(n->children[i], v);
}

/* Reverse order of the top-down calls: for a tree visited in pre-order that
 * is the children in reverse order first, then the node. */
static void bottom_up(st_node *n, const st_visitor *v)
{
    if (!n->activated)
        return;
    if (!n->pruned)
        for (size_t i = n->nchildren; i-- > 0;)
            bottom_up(n->children[i], v);
    v->bottom_up(n, v->ud);
}

void st_node_execute(st_node *n, const st_visitor *v)
{
    if (!n || !v)
        return;
    top_down(n, v);
    if (v->bottom_up)
        bottom_up(n, v);
}

/* ---- building in code ---- */

st_status st_node_add_child(st_node *parent, const char *name, st_node **out, st_error *err)
{
    if (!parent || !name || !name[0])
        return st_error_set(err, ST_EINVAL, "st_node_add_child: a parent and a name are needed");
    return st__node_create(parent->scene, parent, name, ST_NO_MARK, out, err);
}

st_status st_node_add_object(st_node *n, const char *class_name, const char *name,
                             st_component **out, st_error *err)
{
    if (!n || !class_name)
        return st_error_set(err, ST_EINVAL, "st_node_add_object: a node and a class are needed");
    st_runtime *rt = n->scene ? n->scene->rt : NULL;
    const st_class *cls = rt ? st_registry_find(rt->reg, class_name) : NULL;
    char amb[1024];
    if (!cls && rt && st__registry_ambiguity(rt->reg, class_name, amb, sizeof amb))
        return st_error_set(err, ST_ENOTFOUND, "%s", amb);
    if (!cls) {
        const char *sugg[3];
        size_t ns = rt ? st_registry_suggest(rt->reg, class_name, sugg, 3) : 0;
        return st_error_set(err, ST_ENOTFOUND, "unknown component '%s'%s%s%s", class_name,
                            ns ? " (did you mean '" : "", ns ? sugg[0] : "", ns ? "'?)" : "");
    }
    st_component *c = NULL;
    ST_TRY(st__component_create(n, cls, name, ST_NO_MARK, &c, err));
    if (out)
        *out = c;
    return ST_OK;
}

void st_node_send_input(st_node *n, const st_input_event *ev)
{
    if (!n || !n->activated || !ev)
        return;
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (ST_CLASS_HAS(c->cls, on_input) && c->cls->on_input)
            c->cls->on_input(c, ev);
    }
    for (size_t i = 0; i < n->nchildren; i++)
        st_node_send_input(n->children[i], ev);
}

void st_node_send_event(st_node *n, st_event ev, double dt)
{
    if (!n || !n->activated)
        return;
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (c->cls->on_event)
            c->cls->on_event(c, ev, dt);
    }
    for (size_t i = 0; i < n->nchildren; i++)
        st_node_send_event(n->children[i], ev, dt);
}
