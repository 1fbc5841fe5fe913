/* articulated_hierarchy_bvh_controller.c - ArticulatedHierarchyBVHController:
 * plays the frames of the BVH file read by the ArticulatedHierarchyContainer
 * below its node onto the articulation values, at the start of each step.
 * Each Articulation built from the file (the centers below the controller's
 * node) writes its value into the first Vec1d state below the node: a
 * position channel as it is, a rotation channel (degrees) times 3.14/180
 * (SOFA's factor, not pi/180), interpolated between frame f and f + 1 with
 * weight alpha:
 *  - by default (SOFA's own clock, which ignores dt): with ndiv = 1 /
 *    frameTime, step n of a frame has alpha = n / ndiv; after the step, n
 *    goes up until n >= ndiv - 1, then n = 0 and f += inc (inc = 1, or
 *    int(frameTime) when the frame time is over 1), while f + inc <= frames
 *    - 2; at f = frames - 2 the motion stops;
 *  - with useExternalTime: f = floor(externalTime / frameTime) (at most
 *    frames - 2, at least 0 where SOFA reads before the first frame),
 *    alpha = the fractional part.
 * A file of one frame holds that frame (SOFA reads past its end). When no
 * ODE solver integrates the values, the controller places the bodies of
 * the ArticulatedSystemMappings they feed (SOFA maps them after the step).
 * The
 * inherited fields of ArticulatedHierarchyController are accepted; as in
 * SOFA, keys and the mouse do not move the articulations of this class. */
#include <math.h>
#include <string.h>

#include "../shared/state_view.h"
#include "articulated.h"
#include "bvh.h"

typedef struct bvh_ctl {
    st_component base;
    st_array indices;         /* "articulationsIndices" (unused, inherited) */
    st_array keys;            /* "bindingKeys" (unused, inherited) */
    double angle_delta;       /* "angleDelta" (unused, inherited) */
    bool propagate;           /* "propagateUserInteraction" (unused, inherited) */
    bool use_external_time;   /* "useExternalTime" */
    double external_time;     /* "externalTime" */
    /* Set at init. */
    articulated_hierarchy_container *container;
    articulation **arts;      /* the articulations that play a BVH column */
    size_t narts;
    st_mstate *values;        /* the first Vec1d state below the node */
    st_component **maps;      /* the ArticulatedSystemMappings below values' node */
    size_t nmaps;
    /* The clock (checkpointed). */
    long frame;
    long n;
} bvh_ctl;

static const st_field bvh_ctl_fields[] = {
    ARTIC_CONTROLLER_FIELDS(bvh_ctl),
    ST_BOOL(bvh_ctl, use_external_time, "useExternalTime", "false", "use the external time line"),
    ST_REAL(bvh_ctl, external_time, "externalTime", "0", " value of the External Time"),
    ST_FIELD_END};

/* SOFA's degrees-to-radians factor in this class. */
#define SOFA_DEG_TO_RAD (3.14 / 180.0)

static st_component *find_class(const st_node *n, const st_class *cls)
{
    for (size_t i = 0; i < st_node_object_count(n); i++)
        if (st_node_object(n, i)->cls == cls)
            return st_node_object(n, i);
    for (size_t i = 0; i < st_node_child_count(n); i++) {
        st_component *c = find_class(st_node_child(n, i), cls);
        if (c)
            return c;
    }
    return NULL;
}

static st_mstate *first_vec1(const st_node *n)
{
    st_mstate *ms = st_node_mstate(n);
    if (ms && ms->type == &st_vec1d_type)
        return ms;
    for (size_t i = 0; i < st_node_child_count(n); i++)
        if ((ms = first_vec1(st_node_child(n, i))))
            return ms;
    return NULL;
}

/* The Articulations of n's subtree that play a BVH column (counts them
 * when out is NULL). */
static size_t collect(const st_node *n, articulation **out, size_t k)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (c->cls == &articulation_class && ((articulation *)c)->has_motion) {
            if (out)
                out[k] = (articulation *)c;
            k++;
        }
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        k = collect(st_node_child(n, i), out, k);
    return k;
}

/* The ArticulatedSystemMappings of n's subtree (counts them when out is NULL). */
static size_t collect_maps(const st_node *n, st_component **out, size_t k)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (c->cls == &articulated_system_mapping_class) {
            if (out)
                out[k] = c;
            k++;
        }
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        k = collect_maps(st_node_child(n, i), out, k);
    return k;
}

static st_status ctl_init(st_component *self, st_error *err)
{
    bvh_ctl *c = (bvh_ctl *)self;
    st_free(c->arts);
    st_free(c->maps);
    c->arts = NULL, c->narts = 0;
    c->maps = NULL, c->nmaps = 0;
    c->frame = 0, c->n = 0;
    c->container = (articulated_hierarchy_container *)find_class(
        self->node, &articulated_hierarchy_container_class);
    if (!c->container || !c->container->filename || !c->container->filename[0])
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "ArticulatedHierarchyBVHController plays a BVH file: it needs "
                                  "an ArticulatedHierarchyContainer with a filename in or below "
                                  "node '%s'%s",
                                  st_node_name(self->node),
                                  c->container ? " (the one found has no filename)" : "");
    c->values = first_vec1(self->node);
    if (!c->values)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no Vec1d MechanicalObject (the articulation values) in or below "
                                  "node '%s'",
                                  st_node_name(self->node));
    size_t n = collect(self->node, NULL, 0);
    c->arts = st_calloc(n ? n : 1, sizeof *c->arts);
    if (!c->arts)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu articulations)", n);
    c->narts = collect(self->node, c->arts, 0);
    size_t nm = collect_maps(c->values->base.node, NULL, 0);
    c->maps = st_calloc(nm ? nm : 1, sizeof *c->maps);
    if (!c->maps)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu mappings)", nm);
    c->nmaps = collect_maps(c->values->base.node, c->maps, 0);
    return ST_OK;
}

static void ctl_reset(st_component *self)
{
    bvh_ctl *c = (bvh_ctl *)self;
    c->frame = 0, c->n = 0;
}

static void ctl_cleanup(st_component *self)
{
    bvh_ctl *c = (bvh_ctl *)self;
    st_free(c->arts);
    st_free(c->maps);
    c->arts = NULL, c->narts = 0;
    c->maps = NULL, c->nmaps = 0;
}

/* SOFA's applyController: writes frame f (+ alpha toward f + 1), then
 * advances its own clock. */
static void ctl_apply(bvh_ctl *c)
{
    const bvh *b = c->container->motion;
    if (!b)
        return;
    const long last = (long)b->nframes - 2; /* the last frame an interval starts at */
    double alpha = 0.0, ndiv = 0.0;
    long inc = 1;
    if (c->use_external_time) {
        double t = c->external_time / b->frame_time;
        double f = floor(t);
        alpha = t - f;
        c->frame = f > (double)last ? last : f < 0 ? 0 : (long)f;
    } else {
        ndiv = 1.0 / b->frame_time;
        alpha = (double)c->n / ndiv;
        if (ndiv < 1.0)
            inc = (long)((double)b->nframes / ((double)b->nframes / b->frame_time));
    }
    size_t f0 = c->frame < 0 ? 0 : (size_t)c->frame;
    size_t f1 = f0 + 1 < b->nframes ? f0 + 1 : f0;
    st_mstate *ms = c->values;
    bool moved = false;
    for (size_t i = 0; i < c->narts; i++) {
        articulation *a = c->arts[i];
        if (a->articulation_index < 0 || (size_t)a->articulation_index >= ms->position.n ||
            a->motion_column >= b->ncolumns)
            continue;
        double v0 = b->frames[f0 * b->ncolumns + a->motion_column];
        double v1 = b->frames[f1 * b->ncolumns + a->motion_column];
        if (!a->translation)
            v0 *= SOFA_DEG_TO_RAD, v1 *= SOFA_DEG_TO_RAD;
        ms->position.r[a->articulation_index] = v0 + alpha * (v1 - v0);
        moved = true;
    }
    if (moved) {
        state_view_propagate(ms);
        /* No ODE solver moves these values (SOFA's BVH scene has none):
         * the bodies follow here, as SOFA's UpdateMappingVisitor does. */
        if (!ms->system)
            for (size_t i = 0; i < c->nmaps; i++)
                articulated_mapping_refresh(c->maps[i], ms);
    }
    if (!c->use_external_time && c->frame < last) {
        if ((double)c->n < ndiv - 1.0) {
            c->n++;
        } else {
            if (c->frame + inc <= last)
                c->frame += inc;
            c->n = 0;
        }
    }
}

static void ctl_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    bvh_ctl *c = (bvh_ctl *)self;
    if (ev == ST_EVENT_ANIMATE_BEGIN && c->container && c->values)
        ctl_apply(c);
}

static st_status ctl_transfer(st_component *self, st_checkpoint *ck, st_error *err)
{
    bvh_ctl *c = (bvh_ctl *)self;
    ST_TRY(st_checkpoint_data(ck, &c->frame, sizeof c->frame, err));
    return st_checkpoint_data(ck, &c->n, sizeof c->n, err);
}

static const st_checkpoint_ops ctl_checkpoint = {sizeof(st_checkpoint_ops), ctl_transfer};

const st_class articulated_hierarchy_bvh_controller_class = {
    .struct_size = sizeof(st_class),
    .name = "ArticulatedHierarchyBVHController",
    .category = "Controller",
    .description = "Implements a handler that controls the values of the articulations of an "
                   "articulated hierarchy container using a .bvh file.",
    .instance_size = sizeof(bvh_ctl),
    .fields = bvh_ctl_fields,
    .init = ctl_init,
    .reset = ctl_reset,
    .cleanup = ctl_cleanup,
    .on_event = ctl_on_event,
    .checkpoint = &ctl_checkpoint,
};
