/* node_remove.c - removing objects and child nodes from a scene that is
 * not initialised yet (ABI 2.4; SofaPython3's removeObject, removeChild).
 * After init the mechanical systems hold pointers into the graph, so
 * removal is refused then. */
#include <string.h>

#include "core/core.h"

static st_status refuse_if_initialised(const st_node *n, const char *what, st_error *err)
{
    const st_node *root = st_node_root(n);
    if (root && root->scene && root->scene->initialised)
        return st_error_set(err, ST_ESTATE,
                            "%s: the scene is initialised (its mechanical systems point into the "
                            "graph); remove objects and nodes before init",
                            what);
    return ST_OK;
}

st_status st_node_remove_object(st_node *n, st_component *c, st_error *err)
{
    if (!n || !c)
        return st_error_set(err, ST_EINVAL, "remove object: node and component required");
    /* A component added after init and never initialised (its init failed,
     * st_scene_init_added) is in no mechanical system: it may go. */
    if (st__cinfo(c)->initialised)
        ST_TRY(refuse_if_initialised(n, "remove object", err));
    for (size_t i = 0; i < n->nobjects; i++) {
        if (n->objects[i] != c)
            continue;
        memmove(n->objects + i, n->objects + i + 1, (n->nobjects - i - 1) * sizeof *n->objects);
        n->nobjects--;
        st__node_unindex_one(n);
        st__node_caches_reset(n);
        st__scene_touch(st_node_root(n)->scene);
        st__component_destroy(c);
        return ST_OK;
    }
    return st_error_set(err, ST_ENOTFOUND, "remove object: '%s' is not an object of node '%s'",
                        c->name, n->name);
}

st_status st_node_remove_child(st_node *parent, st_node *child, st_error *err)
{
    if (!parent || !child)
        return st_error_set(err, ST_EINVAL, "remove child: parent and child required");
    ST_TRY(refuse_if_initialised(parent, "remove child", err));
    for (size_t i = 0; i < parent->nchildren; i++) {
        if (parent->children[i] != child)
            continue;
        memmove(parent->children + i, parent->children + i + 1,
                (parent->nchildren - i - 1) * sizeof *parent->children);
        parent->nchildren--;
        st__node_unindex_one(parent);
        st__node_caches_reset(parent);
        st__scene_touch(st_node_root(parent)->scene);
        st__node_destroy(child);
        return ST_OK;
    }
    return st_error_set(err, ST_ENOTFOUND, "remove child: '%s' is not a child of node '%s'",
                        child->name, parent->name);
}

st_scene *st_node_scene(const st_node *n)
{
    const st_node *root = n ? st_node_root(n) : NULL;
    return root ? root->scene : NULL;
}

bool st_scene_is_initialised(const st_scene *s) { return s && s->initialised; }
