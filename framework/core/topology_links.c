/* topology_links.c - who follows which topology (settee/topology.h): the
 * records a component makes when it says that an array of its own is
 * indexed by a topology's elements, that an index list names them, that it
 * listens to the topology's changes, or that it reads it without following.
 * The records live in the scene; applying a change to them is the
 * simulation layer's (simulation/topology_change.c). */
#include <string.h>

#include "core/core.h"

static const unsigned elem_vertices[ST_ELEM_COUNT] = {1, 2, 3, 4, 4, 8};
static const char *const elem_names[ST_ELEM_COUNT] = {"points",     "edges",      "triangles",
                                                      "quads",      "tetrahedra", "hexahedra"};

unsigned st_elem_vertices(st_elem e)
{
    return (unsigned)e < ST_ELEM_COUNT ? elem_vertices[e] : 0;
}

const char *st_elem_name(st_elem e)
{
    return (unsigned)e < ST_ELEM_COUNT ? elem_names[e] : "?";
}

unsigned long st_topology_revision(const st_component *topology)
{
    return topology && topology->kernel ? st__cinfo(topology)->topo_revision : 0;
}

static st_scene *scene_of(const st_component *c)
{
    return c && c->node ? c->node->scene : NULL;
}

/* Checks the common arguments and appends a record (filled by the caller). */
static st_status add_record(st_component *owner, st_component *topology, st_elem elem,
                            st__topo_link_kind kind, st__topo_link **out, st_error *err)
{
    *out = NULL;
    st_scene *s = scene_of(owner);
    if (!s || !topology || !topology->kernel || scene_of(topology) != s)
        return st_error_set(err, ST_EINVAL,
                            "st_topology_*: the owner and the topology must be components of "
                            "the same scene");
    if (!st__class_has_role(topology->cls, ST_ROLE_TOPOLOGY))
        return st_component_error(owner, NULL, err, ST_EINVAL,
                                  "'%s' is not a topology: it cannot be followed",
                                  topology->name ? topology->name : "?");
    if ((unsigned)elem >= ST_ELEM_COUNT)
        return st_component_error(owner, NULL, err, ST_EINVAL, "unknown element kind %u",
                                  (unsigned)elem);
    if (s->ntopo_links == s->captopo_links) {
        size_t cap = s->captopo_links ? 2 * s->captopo_links : 16;
        st__topo_link *l = st_realloc(s->topo_links, cap * sizeof *l);
        if (!l)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        s->topo_links = l;
        s->captopo_links = cap;
    }
    st__topo_link *r = &s->topo_links[s->ntopo_links++];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->owner = owner;
    r->topology = topology;
    r->elem = elem;
    r->field = -1;
    st__cinfo(owner)->topo_linked = true;
    st__cinfo(topology)->topo_linked = true;
    *out = r;
    return ST_OK;
}

st_status st_topology_follow(st_component *owner, st_component *topology, st_elem elem,
                             void **items, size_t *n, size_t item_size,
                             const st_topo_follow_ops *ops, void *ud, st_error *err)
{
    if (!items || !n || !item_size)
        return st_error_set(err, ST_EINVAL, "st_topology_follow: items, n and item_size needed");
    st__topo_link *r;
    ST_TRY(add_record(owner, topology, elem, ST__TOPO_ITEMS, &r, err));
    r->items = items;
    r->n = n;
    r->item_size = item_size;
    r->ops = ops;
    r->ud = ud;
    return ST_OK;
}

/* The owner's array field named field, as a record's field index. */
static st_status array_field(st_component *owner, const char *field, bool index_list, int *out,
                             st_error *err)
{
    int k = field ? st__component_field_index(owner, field) : -1;
    if (k < 0)
        return st_component_error(owner, NULL, err, ST_EINVAL, "no field '%s' to follow a topology",
                                  field ? field : "(null)");
    const st_field *f = st__cinfo(owner)->fields[k];
    bool ok = index_list ? f->type == ST_T_UINTS : st__field_tuple_bytes(owner, f) > 0;
    if (!ok)
        return st_component_error(owner, field, err, ST_EINVAL,
                                  "a field of type %s cannot follow a topology's %s",
                                  st_type_name(f->type),
                                  index_list ? "elements as an index list" : "elements");
    *out = k;
    return ST_OK;
}

st_status st_topology_follow_field(st_component *owner, const char *field, st_component *topology,
                                   st_elem elem, const st_topo_follow_ops *ops, void *ud,
                                   st_error *err)
{
    int k = -1;
    ST_TRY(array_field(owner, field, false, &k, err));
    st__topo_link *r;
    ST_TRY(add_record(owner, topology, elem, ST__TOPO_FIELD, &r, err));
    r->field = k;
    r->ops = ops;
    r->ud = ud;
    return ST_OK;
}

st_status st_topology_follow_subset(st_component *owner, const char *field, st_component *topology,
                                    st_elem elem, st_error *err)
{
    int k = -1;
    ST_TRY(array_field(owner, field, true, &k, err));
    st__topo_link *r;
    ST_TRY(add_record(owner, topology, elem, ST__TOPO_SUBSET, &r, err));
    r->field = k;
    return ST_OK;
}

st_status st_topology_follow_vertices(st_component *owner, const char *field,
                                      st_component *topology, st_error *err)
{
    int k = field ? st__component_field_index(owner, field) : -1;
    const st_field *f = k >= 0 ? st__cinfo(owner)->fields[k] : NULL;
    if (!f || !st__type_is_index_list(f->type))
        return st_component_error(owner, NULL, err, ST_EINVAL,
                                  "no index field '%s' to follow a topology's points",
                                  field ? field : "(null)");
    st__topo_link *r;
    ST_TRY(add_record(owner, topology, ST_ELEM_POINT, ST__TOPO_VERTICES, &r, err));
    r->field = k;
    return ST_OK;
}

st_status st_topology_listen(st_component *owner, st_component *topology, st_topo_listener fn,
                             st_error *err)
{
    if (!fn)
        return st_error_set(err, ST_EINVAL, "st_topology_listen: a listener is needed");
    st__topo_link *r;
    ST_TRY(add_record(owner, topology, ST_ELEM_POINT, ST__TOPO_LISTEN, &r, err));
    r->fn = fn;
    return ST_OK;
}

st_status st_topology_use(st_component *owner, st_component *topology, st_error *err)
{
    st_scene *s = scene_of(owner);
    if (s)
        for (size_t i = 0; i < s->ntopo_links; i++)
            if (s->topo_links[i].owner == owner && s->topo_links[i].topology == topology &&
                s->topo_links[i].kind == ST__TOPO_USE)
                return ST_OK;
    st__topo_link *r;
    return add_record(owner, topology, ST_ELEM_POINT, ST__TOPO_USE, &r, err);
}

void st__topology_forget(st_component *c)
{
    st_scene *s = scene_of(c);
    if (!s || s->destroying || !c->kernel)
        return;
    size_t k = 0;
    for (size_t i = 0; i < s->nresize_links; i++)
        if (s->resize_links[i].owner != c && &s->resize_links[i].ms->base != c)
            s->resize_links[k++] = s->resize_links[i];
    s->nresize_links = k;
    if (!st__cinfo(c)->topo_linked)
        return;
    k = 0;
    for (size_t i = 0; i < s->ntopo_links; i++)
        if (s->topo_links[i].owner != c && s->topo_links[i].topology != c)
            s->topo_links[k++] = s->topo_links[i];
    s->ntopo_links = k;
}
