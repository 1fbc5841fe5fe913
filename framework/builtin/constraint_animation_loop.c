/* constraint_animation_loop.c - the built-in ConstraintAnimationLoop:
 * SOFA's older loop for Lagrangian constraints (deprecated there in favour
 * of FreeMotionAnimationLoop + GenericConstraintSolver), which solves the
 * constraints itself instead of through a constraint solver component.
 *
 * Its step, in SOFA's order: begin event, engine inputs; collision
 * detection first when doCollisionsFirst; the free motion (each ODE
 * solver integrates its subtree; the free positions are projected and
 * propagated, the solver's own free position kept: no x_t + dt v_free as
 * FreeMotionAnimationLoop recomputes); collision detection on the positions
 * of the start of the step otherwise (as FreeMotionAnimationLoop, the free
 * positions set aside meanwhile); then the constraint problem at the free
 * positions (J, violations, W = J C J^T from the constraint corrections),
 * its projected block Gauss-Seidel with the loop's tolerance,
 * maxIterations, sor, scaleTolerance and allVerified, the corrective motion
 * x = x_free + pf C J^T lambda, v = v_free + vf C J^T lambda; end of step.
 *
 * The build, the Gauss-Seidel sweeps and the correction are
 * GenericConstraintSolver's (Constraint.Lagrangian.Solver plugin): SOFA's
 * two Gauss-Seidel loops sweep the same blocks with the same error and
 * tolerance rule (tolerance times the rows unless allVerified, each
 * block's error |W_jj (lambda_j - lambda_j_old)|), so the loop drives a
 * solver of that class that it owns, kept out of the scene graph, with its
 * own fields copied into it. Two details of SOFA's loop are not
 * reproduced: it never stops after the first sweep (GenericConstraintSolver
 * may: one more sweep, within the tolerance), and it leaves a block whose
 * W diagonal is zero (rows on states without a correction) at force 0
 * without calling its resolution (settee's bilateral models warn and leave
 * such a block unsolved; its states do not move under this loop anyway).
 *
 * As in SOFA, where the ODE solvers write freePosition and freeVelocity and
 * only the constraint corrections write position and velocity, an
 * independent state with no constraint correction in its node stays where
 * it was (init warns, naming it). */
#include <string.h>
#include <time.h>

#include "builtin/builtin.h"
#include "core/core.h"

typedef struct constraint_loop {
    st_component base;
    bool display_time;          /* "displayTime" */
    double tolerance;           /* "tolerance" */
    int max_it;                 /* "maxIterations" */
    bool collisions_first;      /* "doCollisionsFirst" */
    bool double_buffer;         /* "doubleBuffer" (ignored) */
    bool scale_tolerance;       /* "scaleTolerance" */
    bool all_verified;          /* "allVerified" */
    double sor;                 /* "sor" */
    bool scheme_correction;     /* "schemeCorrection" */
    bool real_time;             /* "realTimeCompensation" */
    bool compute_bounding_box;  /* "computeBoundingBox" (ignored) */
    st_array graph_errors;      /* "graphErrors" (output) */
    st_array graph_constraints; /* "graphConstraints" (output) */
    st_array graph_forces;      /* "graphForces" (output) */
    int num_constraints;        /* "currentNumConstraints" (settee output) */
    int iterations;             /* "currentIterations" (settee output) */
    double error;               /* "currentError" (settee output) */
    bool converged;             /* "converged" (settee output) */
    /* Runtime. */
    st__loop_links links;
    st_component *solver;       /* the owned GenericConstraintSolver */
    double **xt, **vt;          /* per system: x and v at the start of the step */
    double **xf;                /* per system: the free positions, during the detection */
    size_t nxt;
    bool has_collision;
    bool *frozen;               /* per state of the scene: no correction (st_scene_states order) */
    st_mstate **states;
    size_t nstates;
    double comp_time;           /* realTimeCompensation: when the last step was released */
    bool late_said;
} constraint_loop;

static const st_field constraint_loop_fields[] = {
    ST_BOOL(constraint_loop, display_time, "displayTime", "false",
            "Display time for each important step of ConstraintAnimationLoop."),
    ST_REAL(constraint_loop, tolerance, "tolerance", "1e-05", "Tolerance of the Gauss-Seidel"),
    ST_FIELD_EX(constraint_loop, max_it, "maxIterations", ST_T_INT, int, "1000",
                "Maximum number of iterations of the Gauss-Seidel", 0, NULL, 1.0, 2147483647.0),
    ST_BOOL(constraint_loop, collisions_first, "doCollisionsFirst", "false",
            "Compute the collisions first (to support penality-based contacts)"),
    ST_IGNORED(constraint_loop, double_buffer, "doubleBuffer", ST_T_BOOL, bool, "false",
               "Double the buffer dedicated to the constraint problem to make it accessible to "
               "another thread (settee: no other thread reads it)"),
    ST_BOOL(constraint_loop, scale_tolerance, "scaleTolerance", "true",
            "Scale the error tolerance with the number of constraints"),
    ST_BOOL(constraint_loop, all_verified, "allVerified", "false",
            "All constraints must be verified (each constraint's error < tolerance)"),
    ST_REAL_RANGE(constraint_loop, sor, "sor", "1",
                  "Successive Over Relaxation parameter (0-2)", 0.0, 2.0),
    ST_BOOL(constraint_loop, scheme_correction, "schemeCorrection", "false",
            "Apply new scheme where compliance is progressively corrected (settee: only false)"),
    ST_BOOL(constraint_loop, real_time, "realTimeCompensation", "false",
            "If the total computational time T < dt, sleep(dt-T)"),
    ST_IGNORED(constraint_loop, compute_bounding_box, "computeBoundingBox", ST_T_BOOL, bool,
               "true",
               "If true, compute the global bounding box of the scene at each time step (no "
               "effect without a GUI)"),
    ST_OUTPUT(constraint_loop, graph_errors, "graphErrors", ST_T_REALS, st_array,
              "Sum of the constraints' errors at each iteration (settee: OUTPUT, the last "
              "step's error after its last iteration; SOFA's GUI graph of every iteration is "
              "not kept)"),
    ST_OUTPUT(constraint_loop, graph_constraints, "graphConstraints", ST_T_REALS, st_array,
              "Graph of each constraint's error at the end of the resolution (settee: OUTPUT, "
              "not computed: always empty)"),
    ST_OUTPUT(constraint_loop, graph_forces, "graphForces", ST_T_REALS, st_array,
              "Graph of each constraint's force at each step of the resolution (settee: "
              "OUTPUT, the last step's final forces, one per constraint row)"),
    ST_OUTPUT(constraint_loop, num_constraints, "currentNumConstraints", ST_T_INT, int,
              "settee: OUTPUT: constraint rows of the last step"),
    ST_OUTPUT(constraint_loop, iterations, "currentIterations", ST_T_INT, int,
              "settee: OUTPUT: Gauss-Seidel iterations (sweeps) of the last step, SOFA's "
              "'GS iterations'"),
    ST_OUTPUT(constraint_loop, error, "currentError", ST_T_REAL, double,
              "settee: OUTPUT: Gauss-Seidel error of the last step"),
    ST_OUTPUT(constraint_loop, converged, "converged", ST_T_BOOL, bool,
              "settee: OUTPUT: the last step's Gauss-Seidel met the tolerance within "
              "maxIterations"),
    ST_FIELD_END};

#define SOLVER_CLASS "GenericConstraintSolver"
#define SOLVER_PLUGIN "Constraint.Lagrangian.Solver"

static bool is_csolver(const st_component *c)
{
    return ST_CLASS_HAS(c->cls, constraint_solver) && c->cls->constraint_solver;
}

static bool is_correction(const st_component *c)
{
    return ST_CLASS_HAS(c->cls, constraint_correction) && c->cls->constraint_correction;
}

/* The owned solver's class, its plugin loaded if it is not yet. */
static st_status solver_class(constraint_loop *l, const st_class **out, st_error *err)
{
    st_runtime *rt = st_component_runtime(&l->base);
    st_registry *reg = rt ? st_runtime_registry(rt) : NULL;
    *out = reg ? st_registry_find(reg, SOLVER_CLASS) : NULL;
    if (*out)
        return ST_OK;
    if (!rt)
        return st_component_error(&l->base, NULL, err, ST_EINVAL, "no runtime");
    st_status rc = st_runtime_load_plugin(rt, SOLVER_PLUGIN, err);
    if (rc != ST_OK) {
        st_error_prefix(err, "its Gauss-Seidel is " SOLVER_CLASS "'s, from plugin " SOLVER_PLUGIN
                             ": ");
        return rc;
    }
    *out = st_registry_find(reg, SOLVER_CLASS);
    if (!*out)
        return st_component_error(&l->base, NULL, err, ST_ENOTFOUND,
                                  "plugin " SOLVER_PLUGIN " did not register " SOLVER_CLASS);
    return ST_OK;
}

static st_status set_real(st_component *c, const char *name, double v, st_error *err)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v);
    return st_component_set(c, name, buf, err);
}

static st_status cl_init(st_component *self, st_error *err)
{
    constraint_loop *l = (constraint_loop *)self;
    if (l->tolerance < 0.0)
        return st_component_error(self, "tolerance", err, ST_EINVAL,
                                  "tolerance: %g is negative", l->tolerance);
    if (l->scheme_correction)
        return st_component_error(self, "schemeCorrection", err, ST_EINVAL,
                                  "schemeCorrection: true (the predictive scheme, constraint "
                                  "directions taken before the free motion) is not implemented "
                                  "in settee");
    st_component_warn(self, "ConstraintAnimationLoop is deprecated in SOFA; "
                            "FreeMotionAnimationLoop with a GenericConstraintSolver replaces it");
    if (l->solver) {
        st__component_destroy(l->solver);
        l->solver = NULL;
    }
    const st_class *cls = NULL;
    ST_TRY(solver_class(l, &cls, err));
    ST_TRY(st__component_create_detached(self->node, cls, self->name, &l->solver, err));
    st_status rc = set_real(l->solver, "tolerance", l->tolerance, err);
    if (rc == ST_OK)
        rc = set_real(l->solver, "maxIterations", l->max_it, err);
    if (rc == ST_OK)
        rc = set_real(l->solver, "sor", l->sor, err);
    if (rc == ST_OK)
        rc = st_component_set(l->solver, "scaleTolerance", l->scale_tolerance ? "1" : "0", err);
    if (rc == ST_OK)
        rc = st_component_set(l->solver, "allVerified", l->all_verified ? "1" : "0", err);
    if (rc == ST_OK && cls->init)
        rc = cls->init(l->solver, err);
    if (rc != ST_OK) {
        st__component_destroy(l->solver);
        l->solver = NULL;
        return rc;
    }
    return ST_OK;
}

static void free_vectors(constraint_loop *l)
{
    st__loop_sysvecs_free(l->xt, l->nxt);
    st__loop_sysvecs_free(l->vt, l->nxt);
    st__loop_sysvecs_free(l->xf, l->nxt);
    l->xt = l->vt = l->xf = NULL;
    l->nxt = 0;
}

/* x_t, v_t and a place for the free positions, per system (allocated when
 * the systems are known, again only if they change). */
static st_status alloc_vectors(constraint_loop *l, st_scene *s, st_error *err)
{
    free_vectors(l);
    l->xt = st__loop_sysvecs(s, true);
    l->vt = st__loop_sysvecs(s, false);
    l->xf = st__loop_sysvecs(s, true);
    l->nxt = s->nsystems;
    if (!l->xt || !l->vt || !l->xf)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    return ST_OK;
}

/* Marks the states with a constraint correction under n. */
static void mark_corrected(st_node *n, st_mstate **states, size_t ns, bool *frozen)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (!is_correction(c))
            continue;
        st_mstate *ms = st_component_mstate(c);
        for (size_t k = 0; k < ns; k++)
            if (states[k] == ms)
                frozen[k] = false;
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        mark_corrected(st_node_child(n, i), states, ns, frozen);
}

static void warn_solvers(constraint_loop *l, st_node *n)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (is_csolver(c)) {
            char path[256];
            st_component_warn(&l->base,
                              "%s '%s' is not used: ConstraintAnimationLoop solves the "
                              "constraints with its own Gauss-Seidel (its fields tolerance, "
                              "maxIterations, sor...)",
                              c->cls->name, st_component_path(c, path, sizeof path));
        }
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        warn_solvers(l, st_node_child(n, i));
}

/* The independent, integrated states with no constraint correction: SOFA's
 * loop never writes their position and velocity. */
static st_status find_frozen(constraint_loop *l, st_node *root, st_error *err)
{
    st_free(l->states);
    st_free(l->frozen);
    l->states = NULL;
    l->frozen = NULL;
    l->nstates = 0;
    st_scene *s = root->scene;
    size_t ns = st_scene_states(s, NULL, 0);
    if (!ns)
        return ST_OK;
    l->states = st_calloc(ns, sizeof *l->states);
    l->frozen = st_calloc(ns, sizeof *l->frozen);
    if (!l->states || !l->frozen)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    l->nstates = st_scene_states(s, l->states, ns);
    for (size_t k = 0; k < l->nstates; k++)
        l->frozen[k] = !l->states[k]->mapped && l->states[k]->system &&
                       st__loop_owns(root, l->states[k]->system);
    mark_corrected(root, l->states, l->nstates, l->frozen);
    for (size_t k = 0; k < l->nstates; k++)
        if (l->frozen[k]) {
            char path[256];
            st_component_warn(&l->base,
                              "state '%s' has no constraint correction: under "
                              "ConstraintAnimationLoop it does not move (as in SOFA, only the "
                              "corrections write positions; add an "
                              "UncoupledConstraintCorrection)",
                              st_component_path(&l->states[k]->base, path, sizeof path));
        }
    return ST_OK;
}

static void cl_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    if (ev != ST_EVENT_INIT_DONE || !self->node)
        return;
    constraint_loop *l = (constraint_loop *)self;
    st__loop_links_init(&l->links, self);
    st_node *root = self->node;
    l->has_collision = st__loop_has_collision(root);
    warn_solvers(l, root);
    st_error e = {0};
    if (root->scene && alloc_vectors(l, root->scene, &e) != ST_OK)
        free_vectors(l);
    if (root->scene && find_frozen(l, root, &e) != ST_OK)
        l->nstates = 0;
}

static void cl_cleanup(st_component *self)
{
    constraint_loop *l = (constraint_loop *)self;
    st__loop_links_free(&l->links);
    free_vectors(l);
    st_free(l->states);
    st_free(l->frozen);
    l->states = NULL;
    l->frozen = NULL;
    if (l->solver)
        st__component_destroy(l->solver);
    l->solver = NULL;
}

/* realTimeCompensation: each step lasts at least dt of wall-clock time. */
static void compensate(constraint_loop *l, double dt)
{
    double now = st_time_now();
    if (l->comp_time > 0.0) {
        double left = dt - (now - l->comp_time);
        if (left > 0.0) {
            struct timespec ts;
            ts.tv_sec = (time_t)left;
            ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
            nanosleep(&ts, NULL);
        } else if (!l->late_said) {
            st_component_warn(&l->base,
                              "realTimeCompensation: cannot achieve frequency for dt = %g "
                              "(said once)",
                              dt);
            l->late_said = true;
        }
    }
    l->comp_time = st_time_now();
}

/* The owned solver's outputs, copied to the loop's. */
static st_status read_outputs(constraint_loop *l, st_error *err)
{
    st_component *c = l->solver;
    const st_field *f;
    if ((f = st_component_field(c, "currentNumConstraints")))
        l->num_constraints = *(int *)st_component_field_ptr(c, f);
    /* The solver reports SOFA's GenericConstraintSolver count (sweeps + 1);
     * this loop's ("GS iterations" in SOFA's timer) is the sweeps. */
    if ((f = st_component_field(c, "currentIterations")))
        l->iterations = *(int *)st_component_field_ptr(c, f);
    if (l->iterations > 0)
        l->iterations--;
    if ((f = st_component_field(c, "currentError")))
        l->error = *(double *)st_component_field_ptr(c, f);
    if ((f = st_component_field(c, "converged")))
        l->converged = *(bool *)st_component_field_ptr(c, f);
    st_cproblem p = {.struct_size = sizeof p};
    const st_csolver_ops *ops = c->cls->constraint_solver;
    size_t dim = 0;
    if (ops->problem)
        ops->problem(c, &p);
    dim = p.lambda ? p.dim : 0;
    if (l->graph_forces.n != dim)
        ST_TRY(st_array_resize(&l->graph_forces, ST_T_REALS, dim, err));
    if (dim)
        memcpy(l->graph_forces.p, p.lambda, dim * sizeof(double));
    size_t ne = dim ? 1 : 0;
    if (l->graph_errors.n != ne)
        ST_TRY(st_array_resize(&l->graph_errors, ST_T_REALS, ne, err));
    if (ne)
        ((double *)l->graph_errors.p)[0] = l->error;
    const char *names[] = {"graphForces", "graphErrors", "currentNumConstraints",
                           "currentIterations", "currentError", "converged"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if ((f = st_component_field(&l->base, names[i])))
            st_component_touch(&l->base, f);
    return ST_OK;
}

static st_status cl_step(st_component *self, st_node *root, double dt, st_error *err)
{
    constraint_loop *l = (constraint_loop *)self;
    st_scene *s = root->scene;
    if (dt <= 0.0)
        dt = root->dt;
    double t0 = root->time;
    if (!l->solver)
        return st_component_error(self, NULL, err, ST_EINVAL, "not initialised");

    st__loop_send_event(root, ST_EVENT_ANIMATE_BEGIN, dt);
    ST_TRY(st__loop_update_inputs(&l->links, root, err));
    bool stale = s->systems_stale;
    ST_TRY(st__scene_refresh_systems(s, err));
    if (stale || l->nxt != s->nsystems || !l->xt) {
        ST_TRY(alloc_vectors(l, s, err));
        ST_TRY(find_frozen(l, root, err));
    }
    if (l->real_time)
        compensate(l, dt);
    double tstart = st_time_now();

    if (l->collisions_first)
        ST_TRY(st__loop_compute_collision(root, err));
    double t1 = st_time_now();

    /* Free motion: x_t and v_t kept, each solver integrates its subtree,
     * the free positions projected and propagated. */
    for (size_t i = 0; i < s->nsystems; i++) {
        st_system *sys = s->systems[i];
        if (!st__loop_owns(root, sys))
            continue;
        memcpy(l->xt[i], sys->x, sys->xsize_all * sizeof(double));
        memcpy(l->vt[i], sys->v, sys->size_all * sizeof(double));
    }
    ST_TRY(st__loop_solve_node(s, root, dt, err));
    for (size_t i = 0; i < s->nsystems; i++) {
        st_system *sys = s->systems[i];
        if (!st__loop_owns(root, sys))
            continue;
        sys->mp.time = t0;
        st_system_project_position(sys, sys->x);
        st_system_propagate_x(sys, sys->x);
    }
    double t2 = st_time_now();

    st_status rc = ST_OK;
    if (!l->collisions_first)
        ST_TRY(st__loop_collision_at(root, l->has_collision, l->xt, l->xf, err));
    double t3 = st_time_now();

    /* The constraint problem at the free positions, its Gauss-Seidel, the
     * corrective motion. */
    rc = l->solver->cls->constraint_solver->solve_constraint(l->solver, root, dt, err);
    if (rc != ST_OK) {
        char path[256];
        st_component_path(self, path, sizeof path);
        if (!err->path[0])
            st_error_set_path(err, path);
        return rc;
    }
    ST_TRY(read_outputs(l, err));
    /* Only the corrections write positions and velocities. */
    for (size_t k = 0; k < l->nstates; k++) {
        st_mstate *ms = l->states[k];
        if (!l->frozen[k] || !ms->system)
            continue;
        for (size_t i = 0; i < s->nsystems; i++) {
            if (s->systems[i] != ms->system || !l->xt || !l->xt[i])
                continue;
            memcpy(st_slice_x(ms->system->x, ms), st_slice_x(l->xt[i], ms),
                   ms->n * ms->type->coord_size * sizeof(double));
            memcpy(st_slice(ms->system->v, ms), st_slice(l->vt[i], ms),
                   ms->n * ms->type->deriv_size * sizeof(double));
        }
    }
    double t4 = st_time_now();
    if (l->display_time)
        st_component_info(self,
                          "collision %.3f ms, free motion %.3f ms, constraints (build, "
                          "Gauss-Seidel, corrections) %.3f ms = total %.3f ms, with %d "
                          "constraints, %d iterations",
                          1e3 * ((t1 - tstart) + (t3 - t2)), 1e3 * (t2 - t1), 1e3 * (t4 - t3),
                          1e3 * (t4 - tstart), l->num_constraints, l->iterations);

    st__loop_end_step(root, t0, dt);
    return ST_OK;
}

static const st_animloop_ops constraint_loop_ops = {
    .struct_size = sizeof(st_animloop_ops),
    .step = cl_step,
};

const st_class st__constraint_animation_loop_class = {
    .struct_size = sizeof(st_class),
    .name = "ConstraintAnimationLoop",
    .category = "AnimationLoop",
    .description = "Constraint animation loop manager: free motion, then its own projected "
                   "Gauss-Seidel over the constraint corrections' compliance, then the "
                   "corrective motion",
    .instance_size = sizeof(constraint_loop),
    .fields = constraint_loop_fields,
    .init = cl_init,
    .cleanup = cl_cleanup,
    .on_event = cl_on_event,
    .animloop = &constraint_loop_ops,
};
