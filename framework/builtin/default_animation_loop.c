/* default_animation_loop.c - the built-in DefaultAnimationLoop: one step of
 * the scene as SOFA's loop does it (begin event, engine inputs, the
 * collision pipeline of the root node, the ODE
 * solvers met first going down from the root, projection and mapping
 * propagation, externalForce cleared, time advanced, end event). A step
 * never allocates. */
#include <stdio.h>
#include <string.h>

#include "builtin/builtin.h"

typedef struct default_loop {
    st_component base;
    bool parallel_ode_solving;
    bool compute_bounding_box;
    bool continue_on_failure;
    st__loop_links links;
} default_loop;

static const st_field default_loop_fields[] = {
    ST_IGNORED(default_loop, parallel_ode_solving, "parallelODESolving", ST_T_BOOL, bool, "false",
               "If true, solves all the ODEs in parallel (settee solves them in sequence, with "
               "the same result)"),
    ST_IGNORED(default_loop, compute_bounding_box, "computeBoundingBox", ST_T_BOOL, bool, "true",
               "If true, compute the global bounding box of the scene at each time step (no "
               "effect without a GUI)"),
    ST_BOOL(default_loop, continue_on_failure, "continueOnSolverFailure", "false",
            "A failed linear or nonlinear solve stops the run with an error (false) or is "
            "reported as a warning and the run goes on (true) (settee)"),
    ST_FIELD_END};

/* Sends an event to every component that listens, in scene order. */
void st__loop_send_event(st_node *n, st_event ev, double dt)
{
    if (!n->activated)
        return;
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (c->cls->on_event)
            c->cls->on_event(c, ev, dt);
    }
    for (size_t i = 0; i < n->nchildren; i++)
        st__loop_send_event(n->children[i], ev, dt);
}

/* The components with data-linked inputs, scene order, active nodes only. */
static st_status collect_linked(st__loop_links *l, st_node *n, st_error *err)
{
    if (!n->activated)
        return ST_OK;
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (!st__cinfo(c)->has_links)
            continue;
        if (l->nlinked == l->caplinked) {
            size_t cap = l->caplinked ? 2 * l->caplinked : 16;
            st_component **p = st_realloc(l->linked, cap * sizeof *p);
            if (!p)
                return st_error_set(err, ST_ENOMEM, "out of memory listing linked components");
            l->linked = p;
            l->caplinked = cap;
        }
        l->linked[l->nlinked++] = c;
    }
    for (size_t i = 0; i < n->nchildren; i++)
        ST_TRY(collect_linked(l, n->children[i], err));
    return ST_OK;
}

/* Brings data-linked inputs up to date (engines recompute lazily). The list
 * of components to visit is rebuilt only when the graph changed. */
st_status st__loop_update_inputs(st__loop_links *l, st_node *root, st_error *err)
{
    st_scene *s = root->scene;
    if (!l->listed || l->version != s->graph_version) {
        l->nlinked = 0;
        ST_TRY(collect_linked(l, root, err));
        l->version = s->graph_version;
        l->listed = true;
    }
    for (size_t i = 0; i < l->nlinked; i++)
        ST_TRY(st_component_update_inputs(l->linked[i], err));
    return ST_OK;
}

/* The list is built once the scene is initialised, so that the first step
 * does not allocate either. */
void st__loop_links_init(st__loop_links *l, st_component *self)
{
    st_node *root = self->node; /* the root, or a child scene's node (its own loop) */
    st_error e = {0};
    l->nlinked = 0;
    l->listed = collect_linked(l, root, &e) == ST_OK;
    l->version = root->scene ? root->scene->graph_version : 0;
}

void st__loop_links_free(st__loop_links *l)
{
    st_free(l->linked);
    l->linked = NULL;
    l->nlinked = l->caplinked = 0;
}

static void default_loop_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    if (ev == ST_EVENT_INIT_DONE && self->node)
        st__loop_links_init(&((default_loop *)self)->links, self);
}

static void default_loop_cleanup(st_component *self)
{
    st__loop_links_free(&((default_loop *)self)->links);
}

bool st__loop_owns(const st_node *root, const st_system *sys)
{
    if (!sys)
        return false;
    if (!root->parent)
        return true;
    for (const st_node *n = sys->solver ? sys->solver->node : NULL; n; n = n->parent)
        if (n == root)
            return true;
    return false;
}

st_system *st__loop_system_of(st_scene *s, const st_component *solver)
{
    for (size_t i = 0; i < s->nsystems; i++)
        if (s->systems[i] && s->systems[i]->solver == solver)
            return s->systems[i];
    return NULL;
}

/* SOFA's SolveVisitor: the first node(s) holding ODE solvers, going down
 * from the root; each of their solvers integrates its subtree; deeper
 * solvers are left to them. Several solvers in one node all run, in scene
 * order, on the system compiled for the first (SOFA's sequentialSolve).
 * With a tag (SOFA's visitor tags: MultiTagAnimationLoop), only the solvers
 * that carry it count: a node whose solvers do not is gone through. */
st_status st__loop_solve_tagged(st_scene *s, st_node *n, double dt, const char *tag,
                                st_error *err)
{
    if (!n->activated)
        return ST_OK;
    bool found = false, first = true;
    st_system *sys = NULL;
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (!c->cls->odesolver)
            continue;
        if (first) /* the system compiled for the node's first solver */
            sys = st__loop_system_of(s, c);
        first = false;
        if (tag && !st__component_has_tag(c, tag))
            continue;
        found = true;
        if (!sys || !c->cls->odesolver->solve)
            continue;
        sys->mp.dt = dt;
        sys->mp.time = n->time;
        memcpy(sys->mp.gravity, n->gravity, sizeof n->gravity);
        char label[ST_TIMER_LABEL_MAX] = "";
        if (st_timer_active()) /* SOFA's SolveVisitor timer: "Mechanical (node)" */
            snprintf(label, sizeof label, "Mechanical (%s)", n->name);
        st_timer_step_begin(label);
        double t0 = st_time_now();
        st_status rc = c->cls->odesolver->solve(c, sys, dt, err);
        sys->time_step += st_time_now() - t0;
        st_timer_step_end(label);
        if (rc != ST_OK) {
            char path[256];
            st_component_path(c, path, sizeof path);
            if (!err->path[0])
                st_error_set_path(err, path);
            st_error_prefix(err, "while %s integrated its subtree: ", path);
            return rc;
        }
    }
    if (found)
        return ST_OK;
    for (size_t i = 0; i < n->nchildren; i++)
        ST_TRY(st__loop_solve_tagged(s, n->children[i], dt, tag, err));
    return ST_OK;
}

st_status st__loop_solve_node(st_scene *s, st_node *n, double dt, st_error *err)
{
    return st__loop_solve_tagged(s, n, dt, NULL, err);
}

/* SOFA's computeCollision: the collision pipeline of the root node (the
 * first object playing the collision role) runs after the engines' inputs
 * are up to date and before the ODE solvers integrate. */
st_status st__loop_compute_collision(st_node *root, st_error *err)
{
    return st__loop_compute_collision_tagged(root, NULL, err);
}

bool st__loop_has_collision(const st_node *root)
{
    for (size_t i = 0; i < root->nobjects; i++) {
        const st_component *c = root->objects[i];
        if (ST_CLASS_HAS(c->cls, collision) && c->cls->collision)
            return true;
    }
    return false;
}

st_status st__loop_collision_at(st_node *root, bool has_collision, double **xt, double **xf,
                                st_error *err)
{
    st_scene *s = root->scene;
    if (has_collision)
        for (size_t i = 0; i < s->nsystems; i++) {
            st_system *sys = s->systems[i];
            if (!st__loop_owns(root, sys))
                continue;
            memcpy(xf[i], sys->x, sys->xsize_all * sizeof(double));
            memcpy(sys->x, xt[i], sys->xsize_all * sizeof(double));
            st_system_propagate_x(sys, sys->x);
        }
    st_status rc = st__loop_compute_collision(root, err);
    if (has_collision)
        for (size_t i = 0; i < s->nsystems; i++) {
            st_system *sys = s->systems[i];
            if (!st__loop_owns(root, sys))
                continue;
            memcpy(sys->x, xf[i], sys->xsize_all * sizeof(double));
            st_system_propagate_x(sys, sys->x);
        }
    return rc;
}

double **st__loop_sysvecs(const st_scene *s, bool coords)
{
    double **v = st_calloc(s->nsystems ? s->nsystems : 1, sizeof *v);
    for (size_t i = 0; v && i < s->nsystems; i++) {
        const st_system *sys = s->systems[i];
        if (!sys)
            continue;
        size_t n = coords ? sys->xsize_all : sys->size_all;
        v[i] = st_malloc((n ? n : 1) * sizeof(double));
        if (!v[i]) {
            st__loop_sysvecs_free(v, i);
            return NULL;
        }
    }
    return v;
}

void st__loop_sysvecs_free(double **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        st_free(v[i]);
    st_free(v);
}

/* The same, with a tag: only a pipeline that carries it runs. */
st_status st__loop_compute_collision_tagged(st_node *root, const char *tag, st_error *err)
{
    /* Every loop gets here after the begin event, before its solvers: the
     * systems are rebuilt first when a topology changed. */
    ST_TRY(st__scene_refresh_systems(root->scene, err));
    for (size_t i = 0; i < root->nobjects; i++) {
        st_component *c = root->objects[i];
        if (!ST_CLASS_HAS(c->cls, collision) || !c->cls->collision || !c->cls->collision->compute)
            continue;
        if (tag && !st__component_has_tag(c, tag))
            return ST_OK;
        st_status rc = c->cls->collision->compute(c, root, err);
        if (rc != ST_OK) {
            char path[256];
            if (!err->path[0])
                st_error_set_path(err, st_component_path(c, path, sizeof path));
        }
        return rc;
    }
    return ST_OK;
}

st_status st__loop_isolated_forces(st_node *root, st_error *err)
{
    for (size_t i = 0; i < root->nobjects; i++) {
        st_component *c = root->objects[i];
        if (!ST_CLASS_HAS(c->cls, collision) || !c->cls->collision)
            continue;
        const st_collision_ops *ops = c->cls->collision;
        if (ops->struct_size < offsetof(st_collision_ops, integrate_begin) +
                                   sizeof ops->integrate_begin ||
            !ops->integrate_begin)
            return ST_OK;
        st_status rc = ops->integrate_begin(c, root, err);
        if (rc != ST_OK) {
            char path[256];
            if (!err->path[0])
                st_error_set_path(err, st_component_path(c, path, sizeof path));
        }
        return rc;
    }
    return ST_OK;
}

static st_status default_loop_step(st_component *self, st_node *root, double dt, st_error *err)
{
    st_scene *s = root->scene;
    if (dt <= 0.0)
        dt = root->dt;
    double t0 = root->time;

    st__loop_send_event(root, ST_EVENT_ANIMATE_BEGIN, dt);
    ST_TRY(st__loop_update_inputs(&((default_loop *)self)->links, root, err));
    ST_TRY(st__loop_compute_collision(root, err));
    ST_TRY(st__loop_isolated_forces(root, err));
    st_timer_step_begin("solve"); /* SOFA's DefaultAnimationLoop timer */
    st_status rc = st__loop_solve_node(s, root, dt, err);
    st_timer_step_end("solve");
    ST_TRY(rc);

    st__loop_end_step(root, t0, dt);
    return ST_OK;
}

/* Projection and mapping propagation of every system, externalForce
 * cleared, time advanced, end event. */
void st__loop_end_step(st_node *root, double t0, double dt)
{
    st_scene *s = root->scene;
    for (size_t i = 0; i < s->nsystems; i++) {
        st_system *sys = s->systems[i];
        if (!st__loop_owns(root, sys))
            continue;
        /* SOFA's projection visitor carries t0 + dt, but its components read
         * the context's time, which advances only after it: t0. */
        sys->mp.time = t0;
        st_system_project_position(sys, sys->x);
        st_system_project_velocity(sys, sys->v);
        st_system_propagate_x(sys, sys->x);
        st_system_propagate_v(sys, sys->v);
        st__system_end_step(sys);
    }
    /* SOFA's UpdateMappingVisitor: visual models follow their inputs. */
    st__visual_update(root);

    root->time = t0 + dt;
    st__node_propagate_context(root);
    st__loop_send_event(root, ST_EVENT_ANIMATE_END, dt);
}

static const st_animloop_ops default_loop_ops = {
    .struct_size = sizeof(st_animloop_ops),
    .step = default_loop_step,
};

const st_class st__default_animation_loop_class = {
    .struct_size = sizeof(st_class),
    .name = "DefaultAnimationLoop",
    .category = "AnimationLoop",
    .description = "Simulation loop: each ODE solver integrates its subtree, then mappings "
                   "propagate and time advances",
    .instance_size = sizeof(default_loop),
    .fields = default_loop_fields,
    .cleanup = default_loop_cleanup,
    .on_event = default_loop_on_event,
    .animloop = &default_loop_ops,
};
