/* multi_tag_animation_loop.c - the built-in MultiTagAnimationLoop: SOFA's
 * loop that animates the scene one tag after another. Its own `tags` are
 * the list (SOFA takes them off the loop at init). A step: the begin event,
 * engine inputs, then for each tag in order: the collision pipeline if it
 * carries the tag, and the ODE solvers that carry it, each over its
 * subtree (SOFA's CollisionVisitor and MechanicalIntegrationVisitor with
 * the tag: a solver without the tag does not run, and its node is gone
 * through to deeper tagged solvers); then projection and mapping
 * propagation of every system, time advanced, the end event. Components
 * without any of the tags (the solvers, a pipeline) do not run at all, as
 * in SOFA. A step never allocates. */
#include <string.h>

#include "builtin/builtin.h"

enum { MAX_TAGS = 32 };

typedef struct multi_tag_loop {
    st_component base;
    bool compute_bounding_box;
    st__loop_links links;
    /* Set at init: the tags, in the order given. */
    char *tag_text;         /* owned copy of the loop's tags, cut into the list */
    const char *tag[MAX_TAGS];
    size_t ntags;
} multi_tag_loop;

static const st_field multi_tag_fields[] = {
    ST_IGNORED(multi_tag_loop, compute_bounding_box, "computeBoundingBox", ST_T_BOOL, bool,
               "true",
               "If true, compute the global bounding box of the scene at each time step (no "
               "effect without a GUI)"),
    ST_FIELD_END};

static st_status mt_init(st_component *self, st_error *err)
{
    multi_tag_loop *l = (multi_tag_loop *)self;
    st_free(l->tag_text);
    l->tag_text = NULL;
    l->ntags = 0;
    const char *tags = st__cinfo(self)->tags;
    if (!tags || !*tags) {
        st_component_warn(self, "no tags: each step only advances time (give the loop the tags "
                                "of the solvers to run, in order: tags: \"A B\")");
        return ST_OK;
    }
    l->tag_text = st_strdup(tags);
    if (!l->tag_text)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (char *p = l->tag_text; *p;) {
        while (*p == ' ' || *p == ',' || *p == '\t')
            *p++ = '\0';
        if (!*p)
            break;
        if (l->ntags == MAX_TAGS)
            return st_component_error(self, "tags", err, ST_ESCENE, "more than %d tags",
                                      MAX_TAGS);
        l->tag[l->ntags++] = p;
        while (*p && *p != ' ' && *p != ',' && *p != '\t')
            p++;
    }
    return ST_OK;
}

/* SOFA runs an ODE solver that carries none of the loop's tags never, and
 * says nothing: settee says so once, naming it. */
static void warn_untagged(const multi_tag_loop *l, const st_node *n)
{
    for (size_t i = 0; i < n->nobjects; i++) {
        const st_component *c = n->objects[i];
        if (!c->cls->odesolver)
            continue;
        bool tagged = false;
        for (size_t k = 0; k < l->ntags && !tagged; k++)
            tagged = st__component_has_tag(c, l->tag[k]);
        if (!tagged) {
            char path[256];
            st_component_warn(&l->base,
                              "the ODE solver %s carries none of this loop's tags: it never "
                              "runs, and its subtree does not move (as in SOFA)",
                              st_component_path(c, path, sizeof path));
        }
    }
    for (size_t i = 0; i < n->nchildren; i++)
        warn_untagged(l, n->children[i]);
}

static void mt_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    multi_tag_loop *l = (multi_tag_loop *)self;
    if (ev == ST_EVENT_INIT_DONE && self->node) {
        st__loop_links_init(&l->links, self);
        if (l->ntags)
            warn_untagged(l, self->node);
    }
}

static void mt_cleanup(st_component *self)
{
    multi_tag_loop *l = (multi_tag_loop *)self;
    st__loop_links_free(&l->links);
    st_free(l->tag_text);
    l->tag_text = NULL;
    l->ntags = 0;
}

static st_status mt_step(st_component *self, st_node *root, double dt, st_error *err)
{
    multi_tag_loop *l = (multi_tag_loop *)self;
    st_scene *s = root->scene;
    if (dt <= 0.0)
        dt = root->dt;
    const double t0 = root->time;
    st__loop_send_event(root, ST_EVENT_ANIMATE_BEGIN, dt);
    ST_TRY(st__loop_update_inputs(&l->links, root, err));
    for (size_t k = 0; k < l->ntags; k++) {
        ST_TRY(st__loop_compute_collision_tagged(root, l->tag[k], err));
        ST_TRY(st__loop_solve_tagged(s, root, dt, l->tag[k], err));
    }
    if (l->ntags == 0) /* the systems are rebuilt after a change all the same */
        ST_TRY(st__scene_refresh_systems(s, err));
    st__loop_end_step(root, t0, dt);
    return ST_OK;
}

static const st_animloop_ops multi_tag_ops = {
    .struct_size = sizeof(st_animloop_ops),
    .step = mt_step,
};

const st_class st__multi_tag_animation_loop_class = {
    .struct_size = sizeof(st_class),
    .name = "MultiTagAnimationLoop",
    .category = "AnimationLoop",
    .description = "Simple animation loop that given a list of tags, animate the graph one tag "
                   "after another.",
    .instance_size = sizeof(multi_tag_loop),
    .fields = multi_tag_fields,
    .init = mt_init,
    .cleanup = mt_cleanup,
    .on_event = mt_on_event,
    .animloop = &multi_tag_ops,
};
