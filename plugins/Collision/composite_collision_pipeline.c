/* composite_collision_pipeline.c - CompositeCollisionPipeline: runs the
 * SubCollisionPipelines it lists, one after the other, where the animation
 * loop runs a collision pipeline. Each sub-pipeline has its own models,
 * intersection method (with its own distances), phases and contact
 * manager. As SOFA: an empty list is a warning and the composite does
 * nothing; a collision model of the scene that no sub-pipeline handles is
 * a warning naming it. parallelDetection is accepted; settee runs the
 * sub-pipelines in sequence (the same contacts). */
#include <string.h>

#include "collision.h"
#include "detection_phases.h"

typedef struct composite {
    st_component base;
    bool parallel;       /* "parallelDetection" */
    st_array sub_paths;  /* "subCollisionPipelines": "@path" items */
    /* Set at init. */
    st_component **subs;
    size_t nsubs;
} composite;

static st_status composite_init(st_component *self, st_error *err)
{
    composite *c = (composite *)self;
    st_free(c->subs);
    c->subs = NULL;
    c->nsubs = 0;
    if (!c->sub_paths.n) {
        st_component_warn(self, "No SubCollisionPipeline defined in CompositeCollisionPipeline. "
                                "Nothing will be done.");
        return ST_OK;
    }
    c->subs = st_calloc(c->sub_paths.n, sizeof *c->subs);
    if (!c->subs)
        return st_error_set(err, ST_ENOMEM, "out of memory listing sub-pipelines");
    for (size_t i = 0; i < c->sub_paths.n; i++) {
        const char *path = c->sub_paths.s[i];
        st_component *s = NULL;
        if (st_node_resolve(self->node, path[0] == '@' ? path + 1 : path, ST_LINK_ANY, &s,
                            err) != ST_OK)
            return st_component_error(self, "subCollisionPipelines", err, ST_ELINK,
                                      "'%s' does not resolve: %s", path, err->msg);
        if (s->cls != &sub_collision_pipeline_class)
            return st_component_error(self, "subCollisionPipelines", err, ST_ELINK,
                                      "One of the subCollisionPipeline is incorrect: '%s' is a "
                                      "%s, not a SubCollisionPipeline",
                                      path, s->cls->name);
        c->subs[c->nsubs++] = s;
    }
    return ST_OK;
}

static void composite_cleanup(st_component *self)
{
    composite *c = (composite *)self;
    st_free(c->subs);
    c->subs = NULL;
    c->nsubs = 0;
}

/* Warns about the scene's collision models that no sub-pipeline handles. */
static void warn_uncovered(composite *c, st_node *n)
{
    if (!st_node_activated(n))
        return;
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *m = st_node_object(n, i);
        if (!st_is_collision_model(m))
            continue;
        bool covered = false;
        for (size_t k = 0; k < c->nsubs && !covered; k++)
            covered = sub_collision_pipeline_has(c->subs[k], m);
        if (!covered) {
            char path[256];
            st_component_warn(&c->base,
                              "CollisionModel %s is not handled by any SubCollisionPipeline.",
                              st_component_path(m, path, sizeof path));
        }
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        warn_uncovered(c, st_node_child(n, i));
}

static st_status composite_bind(st_component *self, st_node *root, st_error *err)
{
    composite *c = (composite *)self;
    for (size_t k = 0; k < c->nsubs; k++)
        ST_TRY(sub_collision_pipeline_ops.bind(c->subs[k], root, err));
    if (c->nsubs)
        warn_uncovered(c, root);
    return ST_OK;
}

static st_status composite_compute(st_component *self, st_node *root, st_error *err)
{
    composite *c = (composite *)self;
    for (size_t k = 0; k < c->nsubs; k++)
        ST_TRY(sub_collision_pipeline_ops.compute(c->subs[k], root, err));
    return ST_OK;
}

static st_status composite_groups(st_component *self, st_node *root,
                                  st_component *const *solvers, size_t n, size_t *group,
                                  st_error *err)
{
    composite *c = (composite *)self;
    for (size_t k = 0; k < c->nsubs; k++)
        ST_TRY(sub_collision_pipeline_ops.solver_groups(c->subs[k], root, solvers, n, group, err));
    return ST_OK;
}

static st_status composite_integrate_begin(st_component *self, st_node *root, st_error *err)
{
    composite *c = (composite *)self;
    for (size_t k = 0; k < c->nsubs; k++)
        ST_TRY(sub_collision_pipeline_ops.integrate_begin(c->subs[k], root, err));
    return ST_OK;
}

static st_status composite_detections(st_component *self, const st_component *narrow,
                                      st_detection_fn fn, void *ud, st_error *err)
{
    composite *c = (composite *)self;
    for (size_t k = 0; k < c->nsubs; k++)
        ST_TRY(sub_collision_pipeline_ops.detections(c->subs[k], narrow, fn, ud, err));
    return ST_OK;
}

static st_status composite_request(st_component *self, const st_component *a,
                                   const st_component *b, st_error *err)
{
    composite *c = (composite *)self;
    for (size_t k = 0; k < c->nsubs; k++)
        ST_TRY(sub_collision_pipeline_ops.request_detections(c->subs[k], a, b, err));
    return ST_OK;
}

static const st_collision_ops composite_ops = {
    .struct_size = sizeof(st_collision_ops),
    .bind = composite_bind,
    .compute = composite_compute,
    .solver_groups = composite_groups,
    .integrate_begin = composite_integrate_begin,
    .detections = composite_detections,
    .request_detections = composite_request,
};

static const st_field composite_fields[] = {
    ST_IGNORED(composite, parallel, "parallelDetection", ST_T_BOOL, bool, "false",
               "Parallelize collision detection. (settee runs the sub-pipelines in sequence)"),
    ST_FIELD_EX(composite, sub_paths, "subCollisionPipelines", ST_T_STRINGS, st_array, NULL,
                "List of sub collision pipelines to handle.", ST_F_NOLINK, NULL, 0.0, 0.0),
    ST_FIELD_END};

const st_class composite_collision_pipeline_class = {
    .struct_size = sizeof(st_class),
    .name = "CompositeCollisionPipeline",
    .category = "CollisionAlgorithm",
    .description = "Multiple collision pipelines in one: runs its SubCollisionPipelines in turn",
    .instance_size = sizeof(composite),
    .fields = composite_fields,
    .init = composite_init,
    .cleanup = composite_cleanup,
    .collision = &composite_ops,
};
