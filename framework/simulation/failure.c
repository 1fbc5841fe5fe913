/* failure.c - run-time failures: a solve that fails (st_component_solver_failure)
 * and a state that is no longer finite after a step (st__scene_check_finite).
 * Both stop the run with an error naming the component, the step and the
 * time; a scene may ask to continue past solver failures with the animation
 * loop's `continueOnSolverFailure: true` (they become warnings). A
 * non-finite state always stops the run: nothing after it is meaningful.
 * Then, on that failure path only, the scene is replayed to the start of the
 * failing step to name the force field whose force first went non-finite.
 * It and scene.c call each other by design (simulation.h says why). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "simulation/simulation.h"

/* A point farther than this many times the scene's initial size from its
 * centre has diverged (docs/solvers.md): 10^6 lets any plausible motion
 * through, and a blow-up reaches it within a few steps. */
#define DIVERGED_FACTOR 1e6
#define DIVERGED_STEPS 3

st_status st_component_solver_failure(const st_component *c, st_error *err, const char *fmt, ...)
{
    char msg[ST_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    st_scene *s = c && c->node ? c->node->scene : NULL;
    if (s && s->continue_on_failure) {
        st_component_warn(c, "%s (continuing: continueOnSolverFailure is set)", msg);
        return ST_OK;
    }
    if (!c)
        return st_error_set(err, ST_ESOLVER, "%s", msg);
    double t = s && s->root ? s->root->time : 0.0;
    return st_component_error(c, NULL, err, ST_ESOLVER,
                              "step %lu (t = %g): %s (set continueOnSolverFailure: true on the "
                              "animation loop to go on regardless)",
                              s ? s->steps + 1 : 0UL, t, msg);
}

/* True when every value of v[0..n) is finite: one multiply-add per value,
 * which the compiler vectorises (inf * 0 and nan * 0 are nan). */
static bool all_finite(const double *v, size_t n)
{
    double acc = 0.0;
    for (size_t i = 0; i < n; i++)
        acc += v[i] * 0.0;
    return acc == 0.0;
}

/* The first non-finite value of v (coordinates when coord) in sys: its
 * state and vertex. */
static bool locate(const st_system *sys, const double *v, bool coord, st_mstate **ms,
                   size_t *vertex, double *value)
{
    for (size_t k = 0; k < sys->nstates; k++) {
        const st_mstate *m = sys->states[k];
        unsigned w = coord ? m->type->coord_size : m->type->deriv_size;
        const double *sl = coord ? st_slice_x(v, m) : st_slice(v, m);
        for (size_t i = 0; i < w * m->n; i++)
            if (!isfinite(sl[i])) {
                *ms = sys->states[k];
                *vertex = i / w;
                *value = sl[i];
                return true;
            }
    }
    return false;
}

/* Steps replayed at most to name a force field (the failure path only). */
#define REPLAY_MAX_STEPS 10000

/* True when c is one of sys's force fields: in the solver's subtree, and no
 * node between them has an ODE solver of its own (that one owns c). */
static bool in_system(const st_system *sys, const st_component *c)
{
    for (const st_node *n = c->node; n; n = st_node_parent(n)) {
        if (n == sys->node)
            return true;
        if (st_node_find(n, ST_ROLE_ODESOLVER, ST_SEARCH_LOCAL))
            return false;
    }
    return false;
}

/* Evaluates the force fields of sys one by one, in scene order, on its
 * current state; names in out the first whose force is not finite. */
static void first_nonfinite_force(st_scene *s, const st_system *sys, char *out, size_t size)
{
    size_t n = st_node_find_all(sys->node, ST_ROLE_FORCEFIELD, ST_SEARCH_DOWN, NULL, 0);
    st_component **ffs = st_calloc(n ? n : 1, sizeof *ffs);
    double *f = st_malloc((sys->size_all ? sys->size_all : 1) * sizeof *f);
    st_mparams mp = sys->mp;
    mp.time = s->root->time;
    bool any = false;
    if (ffs && f) {
        n = st_node_find_all(sys->node, ST_ROLE_FORCEFIELD, ST_SEARCH_DOWN, ffs, n);
        for (size_t i = 0; i < n; i++) {
            st_component *c = ffs[i];
            if (!c->cls->forcefield || !c->cls->forcefield->add_force || !in_system(sys, c))
                continue;
            any = true;
            memset(f, 0, sys->size_all * sizeof *f);
            c->cls->forcefield->add_force(c, &mp, f, sys->x, sys->v);
            st_mstate *ms = NULL;
            size_t vertex = 0;
            double value = 0.0;
            if (locate(sys, f, false, &ms, &vertex, &value)) {
                char path[ST_ERROR_PATH_MAX], state[ST_ERROR_PATH_MAX];
                snprintf(out, size,
                         "; at the state this step started from, %s already gives the force %g "
                         "on vertex %zu of %s",
                         st_component_path(c, path, sizeof path), value, vertex,
                         st_component_path(&ms->base, state, sizeof state));
                break;
            }
        }
        if (any && !out[0])
            snprintf(out, size, "; at the state this step started from every force field "
                                "gives finite forces: the solve itself diverged");
    }
    st_free(ffs);
    st_free(f);
}

/* Names the force field whose force first went non-finite: the scene is
 * reset and replayed, silently, to the start of the failing step (steps are
 * deterministic), and the force fields of system k are evaluated there one
 * by one. Only when the run used one dt throughout and is short enough to
 * replay; the state is then the one the failing step started
 * from. Nothing of this runs before a failure. */
static void replay_and_name(st_scene *s, size_t k, char *out, size_t size)
{
    out[0] = 0;
    unsigned long steps = s->steps;
    if (s->dt_varied || steps > REPLAY_MAX_STEPS)
        return;
    st_runtime *rt = s->rt;
    st_log_fn log = rt->log;
    rt->log = NULL;
    st_error e = {0};
    st_status st = st_scene_reset(s, &e);
    const st_animloop_ops *ops = s->loop->cls->animloop;
    for (unsigned long i = 0; st == ST_OK && i < steps; i++) {
        st = ops->step(s->loop, s->root, s->step_dt, &e);
        s->steps = i + 1;
    }
    rt->log = log;
    s->steps = steps;
    if (st == ST_OK)
        first_nonfinite_force(s, s->systems[k], out, size);
}

/* What may help a diverging solver: an implicit one for an explicit one. */
static const char *advice(const st_component *solver)
{
    const char *n = solver ? solver->cls->name : "";
    bool explicit_ = strstr(n, "Explicit") || strstr(n, "RungeKutta") ||
                     strstr(n, "CentralDifference") || strstr(n, "Symplectic");
    return explicit_ ? "a smaller dt, an implicit ODE solver (EulerImplicitSolver), stiffer "
                       "constraints or a positive mass may help"
                     : "a smaller dt, stiffer constraints or a positive mass may help";
}

/* The scene's size at init: the largest distance of an independent point
 * from the points' centre, at least 1 (scene units). */
void st__scene_note_extent(st_scene *s)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t k = 0; k < s->nsystems; k++) {
        const st_system *sys = s->systems[k];
        for (size_t i = 0; i < sys->nstates; i++) {
            const st_mstate *ms = sys->states[i];
            const double *x = st_slice_x(sys->x, ms);
            unsigned cw = ms->type->coord_size, sp = ms->type->spatial_size;
            for (size_t p = 0; p < ms->n; p++)
                for (unsigned a = 0; a < sp && a < 3; a++) {
                    double v = x[cw * p + a];
                    if (v < lo[a])
                        lo[a] = v;
                    if (v > hi[a])
                        hi[a] = v;
                }
        }
    }
    double d = 0.0;
    for (int a = 0; a < 3; a++)
        if (hi[a] >= lo[a]) {
            s->centre[a] = 0.5 * (lo[a] + hi[a]);
            d += (hi[a] - lo[a]) * (hi[a] - lo[a]);
        }
    s->extent = sqrt(d) > 1.0 ? sqrt(d) : 1.0;
}

/* The farthest independent point of system k from the scene's centre (its
 * distance computed without overflow). */
static double farthest(const st_scene *s, const st_system *sys, st_mstate **ms, size_t *vertex)
{
    double best = 0.0;
    for (size_t i = 0; i < sys->nstates; i++) {
        st_mstate *m = sys->states[i];
        const double *x = st_slice_x(sys->x, m);
        unsigned cw = m->type->coord_size, sp = m->type->spatial_size;
        for (size_t p = 0; p < m->n; p++) {
            double d[3] = {0, 0, 0}, big = 0.0;
            for (unsigned a = 0; a < sp && a < 3; a++) {
                d[a] = fabs(x[cw * p + a] - s->centre[a]);
                if (d[a] > big)
                    big = d[a];
            }
            if (big <= best)
                continue;
            double r = 0.0;
            for (int a = 0; a < 3; a++)
                r += (d[a] / big) * (d[a] / big);
            double dist = big * sqrt(r);
            if (dist > best) {
                best = dist;
                *ms = m;
                *vertex = p;
            }
        }
    }
    return best;
}

st_status st__scene_check_finite(st_scene *s, st_error *err)
{
    for (size_t k = 0; k < s->nsystems; k++) {
        st_system *sys = s->systems[k];
        /* The independent states: mapped ones are computed from them. */
        if (all_finite(sys->x, sys->xsize) && all_finite(sys->v, sys->size)) {
            /* Finite, but a blow-up: beyond DIVERGED_FACTOR times the scene's
             * size, and more than doubling its distance at each of the last
             * DIVERGED_STEPS steps (a geometric growth, not a fast motion). */
            st_mstate *ms = NULL;
            size_t vertex = 0;
            double dist = s->extent > 0 ? farthest(s, sys, &ms, &vertex) : 0.0;
            double *prev = k < ST__DIVERGE_SYSTEMS ? &s->far_prev[k] : NULL;
            unsigned *streak = k < ST__DIVERGE_SYSTEMS ? &s->far_streak[k] : NULL;
            if (prev) {
                bool growing = dist > DIVERGED_FACTOR * s->extent && dist > 2.0 * *prev;
                *streak = growing ? *streak + 1 : 0;
                *prev = dist;
            }
            if (streak && *streak >= DIVERGED_STEPS) {
                char path[ST_ERROR_PATH_MAX], solver[ST_ERROR_PATH_MAX];
                st_component_path(sys->solver, solver, sizeof solver);
                st_error_set(err, ST_ESOLVER,
                             "step %lu (t = %g): vertex %zu is %g from the scene's centre after "
                             "this step, more than %g times the scene's initial size (%g), and "
                             "the farthest point has more than doubled its distance at each of "
                             "the last %d steps: the simulation diverged under %s, with finite "
                             "values (%s)",
                             s->steps + 1, s->root->time, vertex, dist, DIVERGED_FACTOR,
                             s->extent, DIVERGED_STEPS, solver, advice(sys->solver));
                st_error_set_path(err, st_component_path(&ms->base, path, sizeof path));
                return ST_ESOLVER;
            }
            continue;
        }
        st_mstate *ms = NULL;
        size_t vertex = 0;
        double value = 0.0;
        const char *what = "position";
        if (!locate(sys, sys->x, true, &ms, &vertex, &value)) {
            what = "velocity";
            locate(sys, sys->v, false, &ms, &vertex, &value);
        }
        char path[ST_ERROR_PATH_MAX], solver[ST_ERROR_PATH_MAX];
        st_component_path(sys->solver, solver, sizeof solver);
        /* Which force went non-finite, when the last force vector says so. */
        st_mstate *fms = NULL;
        size_t fv = 0;
        double fval = 0.0;
        char force[160] = "", culprit[2 * ST_ERROR_PATH_MAX + 160];
        if (sys->f && locate(sys, sys->f, false, &fms, &fv, &fval))
            snprintf(force, sizeof force, "; the force on vertex %zu of that solve was already %g",
                     fv, fval);
        if (ms)
            st_component_path(&ms->base, path, sizeof path);
        double t = s->root->time;
        replay_and_name(s, k, culprit, sizeof culprit);
        st_error_set(err, ST_ESOLVER,
                     "step %lu (t = %g): the %s of vertex %zu is %g after this step: the "
                     "simulation diverged under %s%s%s (%s)",
                     s->steps + 1, t, what, vertex, value, solver, force, culprit,
                     advice(sys->solver));
        if (ms)
            st_error_set_path(err, path);
        return ST_ESOLVER;
    }
    return ST_OK;
}
