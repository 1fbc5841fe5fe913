/* state_resize.c - a state resized directly, without a topology
 * (settee/mechanics.h: st_mstate_resize, st_mstate_replace_value): SOFA's
 * BaseMechanicalState::resize and replaceValue, which its ParticleSource
 * and ParticleSink call when their node has no topology container.
 *
 * Nothing is renumbered: the components that said they handle a new size
 * (st_mstate_follow_resize) hear of it; a resize is refused while a
 * component that may hold data sized by the state's points has not said
 * so, rather than leave it reading past the state's end. The systems are
 * unbound while the state owns its vectors and rebuilt before the next
 * solve, as after a topological change (topology_change.c). */
#include <string.h>

#include "simulation/simulation.h"

static st_scene *scene_of(const st_component *c)
{
    return c && c->node ? c->node->scene : NULL;
}

st_status st_mstate_follow_resize(st_component *owner, st_mstate *ms, st_resize_listener fn,
                                  st_error *err)
{
    st_scene *s = scene_of(owner);
    if (!s || !ms || scene_of(&ms->base) != s || !st__is_mstate(&ms->base))
        return st_error_set(err, ST_EINVAL,
                            "st_mstate_follow_resize: the owner and the state must be components "
                            "of the same scene");
    for (size_t i = 0; i < s->nresize_links; i++)
        if (s->resize_links[i].owner == owner && s->resize_links[i].ms == ms) {
            s->resize_links[i].fn = fn;
            return ST_OK;
        }
    if (s->nresize_links == s->capresize_links) {
        size_t cap = s->capresize_links ? 2 * s->capresize_links : 8;
        st__resize_link *l = st_realloc(s->resize_links, cap * sizeof *l);
        if (!l)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        s->resize_links = l;
        s->capresize_links = cap;
    }
    s->resize_links[s->nresize_links++] = (st__resize_link){owner, ms, fn};
    return ST_OK;
}

static const st_state_ops *resize_ops(const st_mstate *ms)
{
    const st_state_ops *ops = ms->base.cls->state;
    if (!ops || ops->struct_size < offsetof(st_state_ops, replace_value) + sizeof ops->replace_value ||
        !ops->resize || !ops->replace_value)
        return NULL;
    return ops;
}

/* The topology whose points ms's vectors follow, or NULL. */
static const st_component *followed_topology(const st_scene *s, const st_mstate *ms)
{
    for (size_t i = 0; i < s->ntopo_links; i++)
        if (s->topo_links[i].owner == &ms->base && s->topo_links[i].kind != ST__TOPO_USE)
            return s->topo_links[i].topology;
    return NULL;
}

bool st_mstate_can_resize(const st_mstate *ms)
{
    st_scene *s = ms ? scene_of(&ms->base) : NULL;
    return s && resize_ops(ms) && !ms->mapped && !followed_topology(s, ms);
}

static bool follows_resize(const st_scene *s, const st_component *c, const st_mstate *ms)
{
    for (size_t i = 0; i < s->nresize_links; i++)
        if (s->resize_links[i].owner == c && s->resize_links[i].ms == ms)
            return true;
    return false;
}

/* The first component of n's subtree that may hold data sized by ms's
 * points without following its resizes; outside ms's own subtree, only
 * those that link to ms. */
static const st_component *holder_not_following(const st_scene *s, const st_mstate *ms,
                                                const st_node *n, bool below)
{
    below = below || n == ms->base.node;
    for (size_t i = 0; i < n->nobjects; i++) {
        const st_component *c = n->objects[i];
        if (c == &ms->base || st__class_has_role(c->cls, ST_ROLE_STATE) ||
            st__class_has_role(c->cls, ST_ROLE_TOPOLOGY))
            continue;
        if (st__may_hold_point_data(c) && (below || st__links_to(c, &ms->base)) &&
            !follows_resize(s, c, ms))
            return c;
    }
    for (size_t i = 0; i < n->nchildren; i++) {
        const st_component *c = holder_not_following(s, ms, n->children[i], below);
        if (c)
            return c;
    }
    return NULL;
}

static st_status check_resize(st_mstate *ms, st_scene **out, st_error *err)
{
    st_component *self = &ms->base;
    st_scene *s = scene_of(self);
    *out = s;
    if (!s || !self->kernel)
        return st_error_set(err, ST_EINVAL, "st_mstate_resize: not a state of a scene");
    if (!resize_ops(ms))
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "%s cannot be resized without a topology", self->cls->name);
    if (ms->mapped)
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "a mapping's output is not resized directly: its mapping "
                                  "sizes it");
    const st_component *t = followed_topology(s, ms);
    char path[ST_ERROR_PATH_MAX];
    if (t)
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "its points follow topology %s: add or remove them through it",
                                  st_component_path(t, path, sizeof path));
    const st_component *u = holder_not_following(s, ms, st_node_root(self->node), false);
    if (u)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "cannot be resized without a topology: %s (%s) may hold data "
                                  "sized by its points, and settee's %s does not follow such a "
                                  "resize (add a PointSetTopologyContainer and a "
                                  "PointSetTopologyModifier beside the state)",
                                  st_component_path(u, path, sizeof path), u->cls->name,
                                  u->cls->name);
    return ST_OK;
}

/* Keeps the first failed resize's error for the step to stop with (an
 * event handler cannot return it), as a failed topological change. */
static st_status remember(const st_mstate *ms, st_status st, const st_error *err)
{
    st_scene *s = ms ? scene_of(&ms->base) : NULL;
    if (st != ST_OK && s && s->initialised && s->change_error.code == ST_OK)
        s->change_error = *err;
    return st;
}

static st_status resize(st_mstate *ms, size_t n, st_error *err)
{
    st_scene *s;
    ST_TRY(check_resize(ms, &s, err));
    size_t before = ms->n;
    if (n == before)
        return ST_OK;
    if (s->initialised)
        st__scene_unbind_systems(s);
    ST_TRY(ms->base.cls->state->resize(&ms->base, n, err));
    if (ms->n != n || ms->position.n != n)
        return st_component_error(&ms->base, NULL, err, ST_ESTATE,
                                  "resized to %zu points, but holds %zu", n, ms->position.n);
    st__scene_touch(s);
    return st__mstate_tell_resized(s, ms, before, err);
}

st_status st__mstate_tell_resized(st_scene *s, st_mstate *ms, size_t before, st_error *err)
{
    /* Listeners may register more of them: iterate by index. */
    for (size_t i = 0; i < s->nresize_links; i++) {
        st__resize_link r = s->resize_links[i];
        if (r.ms == ms && r.fn)
            ST_TRY(r.fn(r.owner, ms, before, err));
    }
    return ST_OK;
}

st_status st_mstate_resize(st_mstate *ms, size_t n, st_error *err)
{
    return remember(ms, resize(ms, n, err), err);
}

static st_status replace_value(st_mstate *ms, size_t from, size_t to, st_error *err)
{
    st_scene *s;
    ST_TRY(check_resize(ms, &s, err));
    if (from >= ms->n || to >= ms->n)
        return st_component_error(&ms->base, NULL, err, ST_EINVAL,
                                  "replaceValue(%zu, %zu): the state has %zu points", from, to,
                                  ms->n);
    if (from != to)
        ms->base.cls->state->replace_value(&ms->base, from, to);
    return ST_OK;
}

st_status st_mstate_replace_value(st_mstate *ms, size_t from, size_t to, st_error *err)
{
    return remember(ms, replace_value(ms, from, to, err), err);
}
