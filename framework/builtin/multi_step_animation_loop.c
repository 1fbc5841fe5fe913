/* multi_step_animation_loop.c - the built-in MultiStepAnimationLoop:
 * SOFA's loop with several collision steps per animation step and several
 * integration steps per collision step. Begin event, engine inputs, then
 * collisionSteps times: the collision pipeline, then integrationSteps
 * times: each ODE solver integrates its subtree with dt / (collisionSteps
 * integrationSteps), projection and mapping propagation, externalForce
 * cleared, time set; then the end event. As in SOFA, the time after
 * integration step i of a collision step is t0 + (i + 1) dt_sub: with
 * collisionSteps > 1 the time of the scene advances by dt / collisionSteps
 * per animation step, not dt (SOFA's MultiStepAnimationLoop::step). With one
 * collision step and n integration steps, a step is n DefaultAnimationLoop
 * steps of dt / n (with one begin and one end event). */
#include <string.h>

#include "builtin/builtin.h"

typedef struct multi_step_loop {
    st_component base;
    int collision_steps;        /* "collisionSteps" */
    int integration_steps;      /* "integrationSteps" */
    bool compute_bounding_box;  /* "computeBoundingBox" */
    st__loop_links links;
} multi_step_loop;

static const st_field multi_step_fields[] = {
    ST_FIELD_EX(multi_step_loop, collision_steps, "collisionSteps", ST_T_INT, int, "1",
                "number of collision steps between each frame rendering", 0, NULL, 1.0,
                2147483647.0),
    ST_FIELD_EX(multi_step_loop, integration_steps, "integrationSteps", ST_T_INT, int, "1",
                "number of integration steps between each collision detection", 0, NULL, 1.0,
                2147483647.0),
    ST_IGNORED(multi_step_loop, compute_bounding_box, "computeBoundingBox", ST_T_BOOL, bool,
               "true",
               "If true, compute the global bounding box of the scene at each time step (no "
               "effect without a GUI)"),
    ST_FIELD_END};

static void ms_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    if (ev == ST_EVENT_INIT_DONE && self->node)
        st__loop_links_init(&((multi_step_loop *)self)->links, self);
}

static void ms_cleanup(st_component *self)
{
    st__loop_links_free(&((multi_step_loop *)self)->links);
}

/* SOFA's integrate: the contacts outside every solver (their force at
 * the current positions into externalForce), the solvers, then projection and mapping propagation
 * of every system, externalForce cleared; the time set to t. */
static st_status integrate(st_node *root, double dt, double t_before, double t, st_error *err)
{
    st_scene *s = root->scene;
    ST_TRY(st__loop_isolated_forces(root, err));
    ST_TRY(st__loop_solve_node(s, root, dt, err));
    for (size_t i = 0; i < s->nsystems; i++) {
        st_system *sys = s->systems[i];
        if (!st__loop_owns(root, sys))
            continue;
        sys->mp.time = t_before;
        st_system_project_position(sys, sys->x);
        st_system_project_velocity(sys, sys->v);
        st_system_propagate_x(sys, sys->x);
        st_system_propagate_v(sys, sys->v);
        st__system_end_step(sys);
    }
    st__visual_update(root); /* visual models follow (SOFA's UpdateMappingVisitor) */
    root->time = t;
    st__node_propagate_context(root);
    return ST_OK;
}

static st_status ms_step(st_component *self, st_node *root, double dt, st_error *err)
{
    multi_step_loop *l = (multi_step_loop *)self;
    if (dt <= 0.0)
        dt = root->dt;
    double t0 = root->time;
    int nc = l->collision_steps, ni = l->integration_steps;
    double h = dt / ((double)nc * (double)ni);

    st__loop_send_event(root, ST_EVENT_ANIMATE_BEGIN, dt);
    ST_TRY(st__loop_update_inputs(&l->links, root, err));
    for (int c = 0; c < nc; c++) {
        ST_TRY(st__loop_compute_collision(root, err));
        for (int i = 0; i < ni; i++)
            ST_TRY(integrate(root, h, root->time, t0 + (double)(i + 1) * h, err));
    }
    st__loop_send_event(root, ST_EVENT_ANIMATE_END, dt);
    return ST_OK;
}

static const st_animloop_ops multi_step_ops = {
    .struct_size = sizeof(st_animloop_ops),
    .step = ms_step,
};

const st_class st__multi_step_animation_loop_class = {
    .struct_size = sizeof(st_class),
    .name = "MultiStepAnimationLoop",
    .category = "AnimationLoop",
    .description = "Multi steps animation loop, multi integration steps in a single animation "
                   "step are managed.",
    .instance_size = sizeof(multi_step_loop),
    .fields = multi_step_fields,
    .cleanup = ms_cleanup,
    .on_event = ms_on_event,
    .animloop = &multi_step_ops,
};
