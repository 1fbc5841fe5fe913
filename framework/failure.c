/* failure.c - run-time failures: a solve that fails (st_component_solver_failure)
 * and a state that is no longer finite after a step (st__scene_check_finite).
 * Both stop the run with an error naming the component, the step and the
 * time; a scene may ask to continue past solver failures with the animation
 * loop's `continueOnSolverFailure: true` (they become warnings). A
 * non-finite state always stops the run: nothing after it is meaningful. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

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

st_status st__scene_check_finite(st_scene *s, st_error *err)
{
    for (size_t k = 0; k < s->nsystems; k++) {
        st_system *sys = s->systems[k];
        /* The independent states: mapped ones are computed from them. */
        if (all_finite(sys->x, sys->xsize) && all_finite(sys->v, sys->size))
            continue;
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
        char force[160] = "";
        if (sys->f && locate(sys, sys->f, false, &fms, &fv, &fval))
            snprintf(force, sizeof force, "; the force on vertex %zu of that solve was already %g",
                     fv, fval);
        st_error_set(err, ST_ESOLVER,
                     "step %lu (t = %g): the %s of vertex %zu is %g after this step: the "
                     "simulation diverged under %s%s (a smaller dt, stiffer constraints or "
                     "a positive mass may help)",
                     s->steps + 1, s->root->time, what, vertex, value, solver, force);
        if (ms)
            st_error_set_path(err, st_component_path(&ms->base, path, sizeof path));
        return ST_ESOLVER;
    }
    return ST_OK;
}
