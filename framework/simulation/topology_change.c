/* topology_change.c - a topology's change reaching everyone who must hear
 * of it (settee/topology.h): the followed arrays renumbered event by event
 * (SOFA's TopologyData and TopologySubsetData), the listeners told, and the
 * mechanical systems unbound so that the states own their vectors while
 * they shrink or grow; the systems are rebuilt before the next solve
 * (st__scene_refresh_systems, scene.c). */
#include <string.h>

#include "simulation/simulation.h"

/* An array being edited: count items of size bytes at *p. */
typedef struct span {
    void **p;
    size_t *n;
    size_t size;
    st_array *arr; /* FIELD: the st_array (capacity bookkeeping), else NULL */
} span;

static const char *name_of(const st_component *c) { return c && c->name ? c->name : "?"; }

static st_status inconsistent(const st__topo_link *r, const char *what, size_t count,
                              const st_topo_event *ev, unsigned i, st_error *err)
{
    const char *field = r->field >= 0 ? st__cinfo(r->owner)->fields[r->field]->name : NULL;
    return st_component_error(r->owner, field, err, ST_ESOLVER,
                              "%s %zu entries, but topology '%s' %s %s %u of %zu: the array "
                              "does not follow that topology's %s",
                              what, count, name_of(r->topology),
                              ev->change == ST_TOPO_REMOVED ? "removed" : "added",
                              st_elem_name(ev->elem), i, ev->before, st_elem_name(ev->elem));
}

/* A field's st_array made the owner's own memory (it may be borrowed). */
static st_status own_array(st_array *a, size_t size, st_error *err)
{
    if (a->cap || !a->p || !a->n)
        return ST_OK;
    void *copy = st_malloc(a->n * size);
    if (!copy)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    memcpy(copy, a->p, a->n * size);
    a->p = copy;
    a->cap = a->n;
    return ST_OK;
}

static st_status span_of(st__topo_link *r, span *sp, st_error *err)
{
    if (r->kind == ST__TOPO_ITEMS) {
        *sp = (span){r->items, r->n, r->item_size, NULL};
        return ST_OK;
    }
    const st_field *f = st__cinfo(r->owner)->fields[r->field];
    st_array *a = (st_array *)((char *)r->owner + f->offset);
    size_t size = st__field_tuple_bytes(r->owner, f);
    ST_TRY(own_array(a, size, err));
    *sp = (span){&a->p, &a->n, size, a};
    return ST_OK;
}

static st_status grow(span *sp, size_t n, st_error *err)
{
    if (sp->arr && sp->arr->cap >= n)
        return ST_OK;
    void *p = st_realloc(*sp->p, (n ? n : 1) * sp->size);
    if (!p)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    *sp->p = p;
    if (sp->arr)
        sp->arr->cap = n;
    return ST_OK;
}

/* SOFA's TopologyData::remove and ::add on one array. */
static st_status apply_items(st__topo_link *r, const st_topo_event *ev, st_error *err)
{
    span sp;
    ST_TRY(span_of(r, &sp, err));
    size_t count = *sp.n;
    if (count == 0 && r->kind == ST__TOPO_FIELD)
        return ST_OK; /* an empty field stays empty */
    if (count != ev->before)
        return inconsistent(r, "holds", count, ev, ev->n ? ev->index[0] : 0, err);
    char *base = *sp.p;
    const st_topo_follow_ops *ops = r->ops;
    if (ev->change == ST_TOPO_REMOVED) {
        for (size_t k = 0; k < ev->n; k++) {
            size_t i = ev->index[k], last = count - 1 - k;
            if (k >= count || i > last)
                return inconsistent(r, "holds", count, ev, ev->index[k], err);
            if (ops && ops->destroy)
                ops->destroy(r->ud, i, base + i * sp.size);
            if (i != last)
                memcpy(base + i * sp.size, base + last * sp.size, sp.size);
        }
        *sp.n = count - ev->n;
        return ST_OK;
    }
    ST_TRY(grow(&sp, count + ev->n, err));
    base = *sp.p;
    memset(base + count * sp.size, 0, ev->n * sp.size);
    *sp.n = count + ev->n;
    if (ops && ops->create)
        for (size_t k = 0; k < ev->n; k++)
            ops->create(r->ud, count + k, base + (count + k) * sp.size, ev, k);
    return ST_OK;
}

/* SOFA's TopologySubsetIndices: entries naming a removed element are erased
 * (the list keeps its order); entries naming the then-last element take
 * the removed one's index. Additions add nothing to a subset. */
static st_status apply_subset(st__topo_link *r, const st_topo_event *ev, st_error *err)
{
    if (ev->change != ST_TOPO_REMOVED)
        return ST_OK;
    span sp;
    ST_TRY(span_of(r, &sp, err));
    unsigned *v = *sp.p;
    size_t last = ev->before;
    for (size_t k = 0; k < ev->n && *sp.n; k++) {
        unsigned id = ev->index[k];
        size_t w = 0;
        for (size_t j = 0; j < *sp.n; j++)
            if (v[j] != id)
                v[w++] = v[j];
        *sp.n = w;
        if (last == 0)
            continue;
        last--;
        for (size_t j = 0; j < w; j++)
            if (v[j] == last)
                v[j] = id;
    }
    return ST_OK;
}

/* Point indices renumbered as the containers renumber their elements: the
 * last point moves into each removed one's place. */
static st_status apply_vertices(st__topo_link *r, const st_topo_event *ev, st_error *err)
{
    if (ev->change != ST_TOPO_REMOVED || ev->elem != ST_ELEM_POINT)
        return ST_OK;
    const st_field *f = st__cinfo(r->owner)->fields[r->field];
    st_array *a = (st_array *)((char *)r->owner + f->offset);
    size_t size = st__field_tuple_bytes(r->owner, f);
    ST_TRY(own_array(a, size, err));
    size_t total = a->n * (size / sizeof(unsigned));
    unsigned *v = a->u;
    for (size_t k = 0; k < ev->n; k++) {
        unsigned id = ev->index[k];
        unsigned last = (unsigned)(ev->before - 1 - k);
        for (size_t j = 0; j < total; j++) {
            if (v[j] == id && id != last)
                return st_component_error(r->owner, f->name, err, ST_ESOLVER,
                                          "names point %u, which topology '%s' removed: the "
                                          "elements using it must go first",
                                          id, name_of(r->topology));
            if (v[j] == last)
                v[j] = id;
        }
    }
    return ST_OK;
}

static bool follows(const st_scene *s, const st_component *c, const st_component *topology)
{
    for (size_t j = 0; j < s->ntopo_links; j++)
        if (s->topo_links[j].kind != ST__TOPO_USE && s->topo_links[j].owner == c &&
            s->topo_links[j].topology == topology)
            return true;
    return false;
}

/* Whether c follows some topology: then its data are indexed by that one
 * (the nearest of its context: a topological mapping's output, which the
 * mapping keeps in step with this topology), not by this one. */
static bool follows_one(const st_scene *s, const st_component *c)
{
    for (size_t j = 0; j < s->ntopo_links; j++)
        if (s->topo_links[j].kind != ST__TOPO_USE && s->topo_links[j].owner == c)
            return true;
    return false;
}

bool st__links_to(const st_component *c, const st_component *topology)
{
    const st_cinfo *ci = st__cinfo(c);
    for (size_t i = 0; i < ci->nfields; i++) {
        const st_field *f = ci->fields[i];
        if (f->type == ST_T_LINK &&
            *(st_component *const *)((const char *)c + f->offset) == topology)
            return true;
    }
    return false;
}

/* A topological mapping whose output is the topology: it reads its input
 * only (SOFA's mappings do not hear of changes made to their output). */
static bool maps_into(const st_component *c, const st_component *topology)
{
    if (!c->cls->category || strcmp(c->cls->category, "TopologicalMapping"))
        return false;
    int k = st__component_field_index(c, "output");
    const st_field *f = k >= 0 ? st__cinfo(c)->fields[k] : NULL;
    return f && f->type == ST_T_LINK &&
           *(st_component *const *)((const char *)c + f->offset) == topology;
}

/* A component of the subtree of n, outside the topology's own subtree, that
 * links to the topology and may hold data indexed by it without following. */
static const st_component *linker_not_following(const st_scene *s, const st_component *topology,
                                                const st_node *n)
{
    if (n == topology->node)
        return NULL;
    for (size_t i = 0; i < n->nobjects; i++) {
        const st_component *c = n->objects[i];
        if (st__may_hold_point_data(c) && st__links_to(c, topology) && !follows(s, c, topology))
            return c;
    }
    for (size_t i = 0; i < n->nchildren; i++) {
        const st_component *c = linker_not_following(s, topology, n->children[i]);
        if (c)
            return c;
    }
    return NULL;
}

/* Whether c may hold data indexed by the topology of its context: the
 * roles and kinds of SOFA's components that handle topological changes
 * (force fields, masses, constraints, mappings, engines, collision and
 * visual models). States follow by themselves; solvers, loops, loaders and
 * the topology's companions hold nothing of the kind. */
bool st__may_hold_point_data(const st_component *c)
{
    static const st_role roles[] = {ST_ROLE_FORCEFIELD, ST_ROLE_MASS, ST_ROLE_PROJECTIVE,
                                    ST_ROLE_MAPPING, ST_ROLE_ENGINE};
    for (size_t i = 0; i < sizeof roles / sizeof *roles; i++)
        if (st__class_has_role(c->cls, roles[i]))
            return true;
    const char *cat = c->cls->category ? c->cls->category : "";
    if (!strcmp(cat, "CollisionModel") || !strcmp(cat, "Constraint") ||
        !strcmp(cat, "TopologicalMapping"))
        return true;
    return !strcmp(cat, "Visual") && st__component_field_index(c, "position") >= 0;
}

/* The first component that may read topology's elements without
 * following its changes: one that says it reads it (st_topology_use), or
 * one that may hold data indexed by it (st__may_hold_point_data) below the
 * topology's node or linking to it. A change would leave it with stale
 * indices. */
static const st_component *reader_not_following(const st_scene *s, const st_component *topology,
                                                const st_node *n)
{
    if (!n) {
        for (size_t i = 0; i < s->ntopo_links; i++) {
            const st__topo_link *u = &s->topo_links[i];
            if (u->kind == ST__TOPO_USE && u->topology == topology &&
                !follows(s, u->owner, topology))
                return u->owner;
        }
        n = topology->node;
    }
    for (size_t i = 0; i < n->nobjects; i++) {
        const st_component *c = n->objects[i];
        if (c == topology || st__class_has_role(c->cls, ST_ROLE_STATE) ||
            st__class_has_role(c->cls, ST_ROLE_TOPOLOGY) || maps_into(c, topology))
            continue;
        if (st__may_hold_point_data(c) && !follows(s, c, topology) &&
            (n == topology->node || !follows_one(s, c)))
            return c;
    }
    for (size_t i = 0; i < n->nchildren; i++) {
        const st_component *c = reader_not_following(s, topology, n->children[i]);
        if (c)
            return c;
    }
    if (n == topology->node && n->parent) /* components elsewhere that link to it */
        return linker_not_following(s, topology, st_node_root(n));
    return NULL;
}

/* Refuses a change that a component would not follow (before the topology
 * changes anything: st_topology_remove asks first). */
static st_status check_followers(st_scene *s, st_component *topology, st_error *err)
{
    const st_component *u = reader_not_following(s, topology, NULL);
    if (!u)
        return ST_OK;
    char path[ST_ERROR_PATH_MAX];
    return st_component_error(topology, NULL, err, ST_ESCENE,
                              "cannot change: %s (%s) may hold data indexed by this topology, "
                              "and settee's %s does not follow topological changes yet",
                              st_component_path(u, path, sizeof path), u->cls->name,
                              u->cls->name);
}

void st__scene_unbind_systems(st_scene *s)
{
    if (s->systems_stale)
        return;
    for (size_t i = 0; i < s->nsystems; i++)
        st__system_unbind(s->systems[i]);
    s->systems_stale = s->nsystems > 0;
}

static st_status apply_change(st_component *topology, const st_topo_event *ev, size_t nev,
                              st_error *err)
{
    st_scene *s = topology && topology->node ? topology->node->scene : NULL;
    if (!s || !topology->kernel)
        return st_error_set(err, ST_EINVAL, "st_topology_changed: not a component of a scene");
    for (size_t e = 0; e < nev; e++)
        if ((unsigned)ev[e].elem >= ST_ELEM_COUNT || (ev[e].n && !ev[e].index) ||
            (ev[e].change != ST_TOPO_REMOVED && ev[e].change != ST_TOPO_ADDED))
            return st_component_error(topology, NULL, err, ST_EINVAL,
                                      "a topological change event is malformed");
    ST_TRY(check_followers(s, topology, err));
    if (s->initialised)
        st__scene_unbind_systems(s);
    for (size_t e = 0; e < nev; e++) {
        if (!ev[e].n)
            continue;
        for (size_t i = 0; i < s->ntopo_links; i++) {
            st__topo_link *r = &s->topo_links[i];
            if (r->topology != topology)
                continue;
            st_status st = ST_OK;
            if ((r->kind == ST__TOPO_ITEMS || r->kind == ST__TOPO_FIELD) && r->elem == ev[e].elem)
                st = apply_items(r, &ev[e], err);
            else if (r->kind == ST__TOPO_SUBSET && r->elem == ev[e].elem)
                st = apply_subset(r, &ev[e], err);
            else if (r->kind == ST__TOPO_VERTICES)
                st = apply_vertices(r, &ev[e], err);
            if (st != ST_OK)
                return st;
            if (r->kind == ST__TOPO_FIELD || r->kind == ST__TOPO_SUBSET ||
                r->kind == ST__TOPO_VERTICES)
                st_component_touch(r->owner, st__cinfo(r->owner)->fields[r->field]);
        }
    }
    st__cinfo(topology)->topo_revision++;
    st__scene_touch(s);
    /* Listeners may change their own outputs (a topological mapping changes
     * its output topology): iterate by index, the list may grow. */
    for (size_t i = 0; i < s->ntopo_links; i++) {
        st__topo_link r = s->topo_links[i];
        if (r.kind != ST__TOPO_LISTEN || r.topology != topology)
            continue;
        ST_TRY(r.fn(r.owner, topology, ev, nev, err));
    }
    return ST_OK;
}

/* Keeps the first failed change's error for the step to stop with. */
static st_status remember(st_component *topology, st_status st, const st_error *err)
{
    st_scene *s = topology && topology->node ? topology->node->scene : NULL;
    if (st != ST_OK && s && s->change_error.code == ST_OK)
        s->change_error = *err;
    return st;
}

bool st_topology_can_change(const st_component *topology, st_topo_change change, st_elem elem)
{
    if (!topology || !st__class_has_role(topology->cls, ST_ROLE_TOPOLOGY) ||
        (unsigned)elem >= ST_ELEM_COUNT)
        return false;
    const st_topology_ops *ops = topology->cls->topology;
#define HAS_TOP(f) (ops->struct_size >= offsetof(st_topology_ops, f) + sizeof ops->f && ops->f)
    bool has = change == ST_TOPO_REMOVED ? HAS_TOP(remove)
               : change == ST_TOPO_ADDED ? (elem == ST_ELEM_POINT ? HAS_TOP(add_points) : HAS_TOP(add))
                                         : false;
    if (has && HAS_TOP(can_change))
        has = ops->can_change(topology, change, elem);
#undef HAS_TOP
    return has;
}

static st_status remove_elements(st_component *topology, st_elem elem, const unsigned *ids,
                                 size_t n, st_error *err)
{
    if (!topology || !st__class_has_role(topology->cls, ST_ROLE_TOPOLOGY))
        return st_error_set(err, ST_EINVAL, "st_topology_remove: not a topology");
    const st_topology_ops *ops = topology->cls->topology;
    if (!st_topology_can_change(topology, ST_TOPO_REMOVED, ST_ELEM_POINT))
        return st_component_error(topology, NULL, err, ST_EINVAL,
                                  "%s cannot change while the scene runs (use one of the "
                                  "*SetTopologyContainer classes)",
                                  topology->cls->name);
    if ((unsigned)elem >= ST_ELEM_COUNT)
        return st_component_error(topology, NULL, err, ST_EINVAL, "unknown element kind %u",
                                  (unsigned)elem);
    st_scene *s = topology->node ? topology->node->scene : NULL;
    if (s)
        ST_TRY(check_followers(s, topology, err));
    return ops->remove(topology, elem, ids, n, err);
}

static st_status add_elements(st_component *topology, st_elem elem, const unsigned *verts,
                              size_t n, st_error *err)
{
    if (!topology || !st__class_has_role(topology->cls, ST_ROLE_TOPOLOGY))
        return st_error_set(err, ST_EINVAL, "st_topology_add: not a topology");
    const st_topology_ops *ops = topology->cls->topology;
    if (!st_topology_can_change(topology, ST_TOPO_ADDED, ST_ELEM_EDGE))
        return st_component_error(topology, NULL, err, ST_EINVAL,
                                  "%s cannot add elements while the scene runs (use one of the "
                                  "*SetTopologyContainer classes)",
                                  topology->cls->name);
    if ((unsigned)elem >= ST_ELEM_COUNT || elem == ST_ELEM_POINT)
        return st_component_error(topology, NULL, err, ST_EINVAL,
                                  "st_topology_add adds elements on existing points, not %s",
                                  (unsigned)elem < ST_ELEM_COUNT ? st_elem_name(elem) : "?");
    if (n && !verts)
        return st_error_set(err, ST_EINVAL, "st_topology_add: no vertices");
    st_scene *s = topology->node ? topology->node->scene : NULL;
    if (s)
        ST_TRY(check_followers(s, topology, err));
    return ops->add(topology, elem, verts, n, err);
}

static st_status add_points(st_component *topology, size_t n, const size_t *start,
                             const unsigned *anc, const double *coefs, st_error *err)
{
    if (!topology || !st__class_has_role(topology->cls, ST_ROLE_TOPOLOGY))
        return st_error_set(err, ST_EINVAL, "st_topology_add_points: not a topology");
    const st_topology_ops *ops = topology->cls->topology;
    if (!st_topology_can_change(topology, ST_TOPO_ADDED, ST_ELEM_POINT))
        return st_component_error(topology, NULL, err, ST_EINVAL,
                                  "%s cannot add points while the scene runs (use one of the "
                                  "*SetTopologyContainer classes)",
                                  topology->cls->name);
    if ((start == NULL) != (anc == NULL) || (anc == NULL) != (coefs == NULL))
        return st_error_set(err, ST_EINVAL,
                            "st_topology_add_points: give ancestor_start, ancestors and coefs "
                            "together, or none of them");
    /* A container without positions counts its points by its state's. */
    size_t np = ops->nb_points ? ops->nb_points(topology) : 0;
    const st_mstate *ms = topology->node ? st_node_mstate(topology->node) : NULL;
    if (!np && ms)
        np = ms->n;
    for (size_t k = 0; start && k < n; k++) {
        if (start[k + 1] < start[k])
            return st_error_set(err, ST_EINVAL,
                                "st_topology_add_points: ancestor_start decreases at point %zu",
                                k);
        for (size_t j = start[k]; j < start[k + 1]; j++)
            if (anc[j] >= np)
                return st_component_error(topology, NULL, err, ST_EINVAL,
                                          "new point %zu: its ancestor %u is not one of the %zu "
                                          "points",
                                          k, anc[j], np);
    }
    st_scene *s = topology->node ? topology->node->scene : NULL;
    if (s)
        ST_TRY(check_followers(s, topology, err));
    return ops->add_points(topology, n, start, anc, coefs, err);
}

st_status st_topology_add_points(st_component *topology, size_t n, const size_t *ancestor_start,
                                 const unsigned *ancestors, const double *coefs, st_error *err)
{
    return remember(topology, add_points(topology, n, ancestor_start, ancestors, coefs, err),
                    err);
}

st_status st_topology_changed(st_component *topology, const st_topo_event *ev, size_t nev,
                              st_error *err)
{
    return remember(topology, apply_change(topology, ev, nev, err), err);
}

st_status st_topology_remove(st_component *topology, st_elem elem, const unsigned *ids, size_t n,
                             st_error *err)
{
    return remember(topology, remove_elements(topology, elem, ids, n, err), err);
}

st_status st_topology_add(st_component *topology, st_elem elem, const unsigned *verts, size_t n,
                          st_error *err)
{
    return remember(topology, add_elements(topology, elem, verts, n, err), err);
}
