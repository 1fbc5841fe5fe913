/* free_motion_animation_loop.c - the built-in FreeMotionAnimationLoop:
 * SOFA's step for Lagrangian constraints. Begin event, engine inputs, the
 * free motion (each ODE solver integrates its subtree without constraints;
 * the free velocity is projected and the free position recomputed as
 * x_t (+) dt v_free, as SOFA's loop does), then the constraint solver
 * (build, solve, correction: roles.h st_csolver_ops), then projection,
 * mapping propagation, externalForce cleared, time advanced, end event.
 * With no constraint in the scene the trajectory is DefaultAnimationLoop's.
 * Collision detection runs after the free motion on the positions of the
 * start of the step, as SOFA's (its free motion writes freePosition and
 * detection reads position): the free positions are set aside, x_t put
 * back and propagated for the detection, then the free positions restored.
 * The time of each phase of the last step is in settee's outputs
 * timeFreeMotion, timeCollision and timeConstraints (seconds).
 *
 * solveVelocityConstraintFirst, SOFA's VEL constraint order: the free
 * position is not recomputed; the states are put back at x_t with their
 * free velocities, the solver solves velocity violations and the
 * corrections change velocities only (st_corder), then x = x_t (+) dt v,
 * as SOFA's `pos.eq(pos, vel, dt)`. The solver and every constraint and
 * correction must support that order (else an error naming the one that
 * does not). */
#include <string.h>

#include "builtin/builtin.h"

typedef struct free_motion_loop {
    st_component base;
    bool solve_velocity_first;      /* "solveVelocityConstraintFirst" */
    bool thread_safe_visitor;       /* "threadSafeVisitor" */
    bool parallel_collision;        /* "parallelCollisionDetectionAndFreeMotion" */
    bool parallel_ode_solving;      /* "parallelODESolving" */
    bool compute_bounding_box;      /* "computeBoundingBox" */
    bool continue_on_failure;       /* "continueOnSolverFailure" (settee) */
    st_component *constraint_solver; /* "constraintSolver" link */
    /* Runtime. */
    st__loop_links links;
    st_component *csolver;          /* the constraint solver in use, or NULL */
    bool has_constraints;           /* the scene holds constraint models */
    double **xt;                    /* per system: the positions at the start of the step */
    double **xf;                    /* per system: the free positions, during the detection */
    size_t nxt;
    bool has_collision;             /* a collision pipeline is in the scene */
    double time_free, time_collision, time_constraints; /* outputs */
} free_motion_loop;

static const st_field free_motion_fields[] = {
    ST_BOOL(free_motion_loop, solve_velocity_first, "solveVelocityConstraintFirst", "false",
            "solve separately velocity constraint violations before position constraint "
            "violations (SOFA's VEL order: velocity violations, velocity corrections, then "
            "x = x_t + dt v)"),
    ST_IGNORED(free_motion_loop, thread_safe_visitor, "threadSafeVisitor", ST_T_BOOL, bool,
               "false",
               "If true, do not use realloc and free visitors in fwdInteractionForceField "
               "(settee never reallocates during a step)"),
    ST_IGNORED(free_motion_loop, parallel_collision, "parallelCollisionDetectionAndFreeMotion",
               ST_T_BOOL, bool, "false",
               "If true, executes free motion step and collision detection step in parallel "
               "(settee runs them in sequence, with the same result)"),
    ST_IGNORED(free_motion_loop, parallel_ode_solving, "parallelODESolving", ST_T_BOOL, bool,
               "false",
               "If true, solves all the ODEs in parallel during the free motion step (settee "
               "solves them in sequence, with the same result)"),
    ST_IGNORED(free_motion_loop, compute_bounding_box, "computeBoundingBox", ST_T_BOOL, bool,
               "true",
               "If true, compute the global bounding box of the scene at each time step (no "
               "effect without a GUI)"),
    ST_BOOL(free_motion_loop, continue_on_failure, "continueOnSolverFailure", "false",
            "A failed linear or nonlinear solve stops the run with an error (false) or is "
            "reported as a warning and the run goes on (true) (settee)"),
    ST_LINK(free_motion_loop, constraint_solver, "constraintSolver", ST_LINK_ANY,
            "The ConstraintSolver used in this animation loop (required)"),
    ST_OUTPUT(free_motion_loop, time_free, "timeFreeMotion", ST_T_REAL, double,
              "settee: OUTPUT: seconds the last step spent in the free motion (ODE solvers)"),
    ST_OUTPUT(free_motion_loop, time_collision, "timeCollision", ST_T_REAL, double,
              "settee: OUTPUT: seconds the last step spent in collision detection and response"),
    ST_OUTPUT(free_motion_loop, time_constraints, "timeConstraints", ST_T_REAL, double,
              "settee: OUTPUT: seconds the last step spent in the constraint solver (build, solve, "
              "correction)"),
    ST_FIELD_END};

static bool is_csolver(const st_component *c)
{
    return ST_CLASS_HAS(c->cls, constraint_solver) && c->cls->constraint_solver;
}

static bool is_constraint(const st_component *c)
{
    return ST_CLASS_HAS(c->cls, constraint) && c->cls->constraint;
}

/* The first constraint solver under n (scene order), and whether any
 * constraint model is there. */
static void scan(st_node *n, st_component **solver, bool *constraints)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (!*solver && is_csolver(c))
            *solver = c;
        if (is_constraint(c))
            *constraints = true;
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        scan(st_node_child(n, i), solver, constraints);
}

/* The rows the constraint models under n write this step (a contact
 * response has none while nothing touches). */
static size_t rows_under(st_node *n)
{
    size_t total = 0;
    if (!st_node_activated(n))
        return 0;
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (!is_constraint(c))
            continue;
        size_t r = 0, t = 0;
        c->cls->constraint->size(c, &r, &t);
        total += r;
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        total += rows_under(st_node_child(n, i));
    return total;
}

static st_status fm_init(st_component *self, st_error *err)
{
    free_motion_loop *l = (free_motion_loop *)self;
    if (l->constraint_solver && !is_csolver(l->constraint_solver))
        return st_component_error(self, "constraintSolver", err, ST_EINVAL,
                                  "constraintSolver: '%s' is not a constraint solver",
                                  l->constraint_solver->name);
    return ST_OK;
}

static void free_xt(free_motion_loop *l)
{
    st__loop_sysvecs_free(l->xt, l->nxt);
    st__loop_sysvecs_free(l->xf, l->nxt);
    l->xt = l->xf = NULL;
    l->nxt = 0;
}

/* One coordinate vector per system, for x_t (allocated when the systems
 * are known: at the end of init, and again only if they change). */
static st_status alloc_xt(free_motion_loop *l, st_scene *s, st_error *err)
{
    free_xt(l);
    l->xt = st__loop_sysvecs(s, true);
    l->xf = st__loop_sysvecs(s, true);
    l->nxt = s->nsystems;
    if (!l->xt || !l->xf)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    return ST_OK;
}

static void fm_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    if (ev != ST_EVENT_INIT_DONE || !self->node)
        return;
    free_motion_loop *l = (free_motion_loop *)self;
    st__loop_links_init(&l->links, self);
    st_node *root = self->node; /* the root, or the child scene it steps */
    st_component *found = NULL;
    l->has_constraints = false;
    scan(root, &found, &l->has_constraints);
    l->csolver = l->constraint_solver ? l->constraint_solver : found;
    l->has_collision = st__loop_has_collision(root);
    if (!l->csolver)
        st_component_warn(self, "no constraint solver in the scene: constraints are not "
                                "solved (add a GenericConstraintSolver or "
                                "BlockGaussSeidelConstraintSolver)");
    st_error e = {0};
    if (root->scene && alloc_xt(l, root->scene, &e) != ST_OK)
        free_xt(l);
}

static void fm_cleanup(st_component *self)
{
    free_motion_loop *l = (free_motion_loop *)self;
    st__loop_links_free(&l->links);
    free_xt(l);
}

static st_status fm_step(st_component *self, st_node *root, double dt, st_error *err)
{
    free_motion_loop *l = (free_motion_loop *)self;
    st_scene *s = root->scene;
    if (dt <= 0.0)
        dt = root->dt;
    double t0 = root->time;

    if (!l->csolver && l->has_constraints && rows_under(root) > 0)
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "the scene has Lagrangian constraints but no constraint "
                                  "solver (add a GenericConstraintSolver)");
    if (l->nxt != s->nsystems || !l->xt)
        ST_TRY(alloc_xt(l, s, err));

    st__loop_send_event(root, ST_EVENT_ANIMATE_BEGIN, dt);
    ST_TRY(st__loop_update_inputs(&l->links, root, err));
    /* A topological change at the begin event (TopologicalChangeProcessor)
     * or at the end of the last step (TopologyBoundingTrasher) unbound the
     * systems: they are rebuilt before the free motion integrates them, and
     * the copies of their positions take their new sizes. */
    bool stale = s->systems_stale;
    ST_TRY(st__scene_refresh_systems(s, err));
    if (stale || l->nxt != s->nsystems || !l->xt)
        ST_TRY(alloc_xt(l, s, err));

    /* Free motion: x_t kept, each solver integrates its subtree. */
    double tstart = st_time_now();
    st_status rc;
    for (size_t i = 0; i < s->nsystems; i++)
        if (st__loop_owns(root, s->systems[i]))
            memcpy(l->xt[i], s->systems[i]->x, s->systems[i]->xsize_all * sizeof(double));
    ST_TRY(st__loop_solve_node(s, root, dt, err));
    for (size_t i = 0; i < s->nsystems; i++) {
        st_system *sys = s->systems[i];
        if (!st__loop_owns(root, sys))
            continue;
        sys->mp.time = t0;
        /* SOFA: projectResponse(freeVel), propagateDx(freeVel), then
         * freePos = pos + dt freeVel. */
        st_system_project_response(sys, sys->v);
        st_system_propagate_v(sys, sys->v);
        if (l->solve_velocity_first)
            continue; /* SOFA's VEL order keeps the solver's free position */
        st_vec_x_op(sys, sys->x, l->xt[i], sys->v, dt);
        st_system_propagate_x(sys, sys->x);
    }
    double t1 = st_time_now();
    l->time_free = t1 - tstart;
    /* SOFA's sequential order: collision detection after the free motion,
     * on the positions x_t (penalty contacts found here act in the next
     * step's free motion; Lagrangian contacts in this step's solve, at the
     * free positions). */
    rc = st__loop_collision_at(root, l->has_collision, l->xt, l->xf, err);
    ST_TRY(rc);
    double t2 = st_time_now();
    l->time_collision = t2 - t1;

    if (l->csolver && l->solve_velocity_first) {
        const st_csolver_ops *ops = l->csolver->cls->constraint_solver;
        if (ops->struct_size < offsetof(st_csolver_ops, solve_constraint_order) +
                                   sizeof ops->solve_constraint_order ||
            !ops->solve_constraint_order)
            return st_component_error(self, "solveVelocityConstraintFirst", err, ST_EINVAL,
                                      "solveVelocityConstraintFirst: the constraint solver %s "
                                      "'%s' cannot solve velocity constraints in settee",
                                      l->csolver->cls->name, l->csolver->name);
        /* The constraints read x_t and the free velocities. */
        for (size_t i = 0; i < s->nsystems; i++) {
            st_system *sys = s->systems[i];
            if (!st__loop_owns(root, sys))
                continue;
            memcpy(sys->x, l->xt[i], sys->xsize_all * sizeof(double));
            st_system_propagate_x(sys, sys->x);
        }
        rc = ops->solve_constraint_order(l->csolver, root, dt, ST_CORDER_VEL, err);
        if (rc != ST_OK) {
            char path[256];
            st_component_path(l->csolver, path, sizeof path);
            if (!err->path[0])
                st_error_set_path(err, path);
            return rc;
        }
        for (size_t i = 0; i < s->nsystems; i++) {
            st_system *sys = s->systems[i];
            if (!st__loop_owns(root, sys))
                continue;
            st_vec_x_op(sys, sys->x, l->xt[i], sys->v, dt);
            st_system_propagate_x(sys, sys->x);
        }
    } else if (l->csolver) {
        rc = l->csolver->cls->constraint_solver->solve_constraint(l->csolver, root, dt, err);
        if (rc != ST_OK) {
            char path[256];
            st_component_path(l->csolver, path, sizeof path);
            if (!err->path[0])
                st_error_set_path(err, path);
            return rc;
        }
    }
    l->time_constraints = st_time_now() - t2;

    st__loop_end_step(root, t0, dt);
    return ST_OK;
}

static const st_animloop_ops free_motion_ops = {
    .struct_size = sizeof(st_animloop_ops),
    .step = fm_step,
};

const st_class st__free_motion_animation_loop_class = {
    .struct_size = sizeof(st_class),
    .name = "FreeMotionAnimationLoop",
    .category = "AnimationLoop",
    .description = "The animation loop to use with constraints: free motion, constraint "
                   "solve, correction",
    .instance_size = sizeof(free_motion_loop),
    .fields = free_motion_fields,
    .init = fm_init,
    .cleanup = fm_cleanup,
    .on_event = fm_on_event,
    .animloop = &free_motion_ops,
};
