/* state_view.h - the one place the output components (VTKExporter,
 * WriteState, CompareState, ...) and `settee run --output` read a
 * MechanicalObject's vectors: a read-only view of its positions,
 * velocities, forces and rest positions, 3 doubles per vertex. When the
 * kernel's state layout changes (typed states, slices), only this header
 * changes. Header-only; compiled into whatever includes it. */
#ifndef SETTEE_SHARED_STATE_VIEW_H
#define SETTEE_SHARED_STATE_VIEW_H

#include <stddef.h>

#include <settee/settee.h>

typedef struct state_view {
    size_t n;         /* vertices */
    const double *x;  /* positions, 3 x n (never NULL when n > 0) */
    const double *v;  /* velocities, 3 x n, or NULL when the state has none */
    const double *f;  /* forces, 3 x n, or NULL */
    const double *x0; /* rest positions, 3 x n, or NULL */
} state_view;

/* The vector of an st_array holding at least n tuples, else NULL. */
static inline const double *state_view_vec_(const st_array *a, size_t n)
{
    return a->n >= n && a->r ? a->r : NULL;
}

/* The views hold 3 doubles per vertex: an output component checks at init
 * that its state is Vec3d, so that it never reads another type's points as
 * vec3 (an error naming the component and the type). */
static inline st_status state_view_check(const st_component *self, const st_mstate *ms,
                                         st_error *err)
{
    if (!ms || !ms->type || ms->type == &st_vec3d_type)
        return ST_OK;
    return st_component_error(self, NULL, err, ST_ESCENE,
                              "%s reads Vec3d states; the state '%s' is %s", self->cls->name,
                              ms->base.name, ms->type->name);
}

/* Fills v with the current vectors of ms (borrowed: valid until the next
 * step or until the state is resized). */
static inline void state_view_of(const st_mstate *ms, state_view *v)
{
    size_t n = ms->n ? ms->n : ms->position.n;
    v->n = state_view_vec_(&ms->position, n) ? n : 0;
    v->x = state_view_vec_(&ms->position, n);
    v->v = state_view_vec_(&ms->velocity, n);
    v->f = state_view_vec_(&ms->force, n);
    v->x0 = state_view_vec_(&ms->rest_position, n);
}

/* Writable positions and velocities of ms (ReadState): NULL when the state
 * has none of that size. After writing, call state_view_propagate. */
static inline double *state_view_edit_x(st_mstate *ms)
{
    return (double *)state_view_vec_(&ms->position, ms->n ? ms->n : ms->position.n);
}
static inline double *state_view_edit_v(st_mstate *ms)
{
    return (double *)state_view_vec_(&ms->velocity, ms->n ? ms->n : ms->position.n);
}

/* Marks the vectors of ms as written and brings the states mapped from it
 * up to date. */
static inline void state_view_propagate(st_mstate *ms)
{
    if (ms->system) {
        st_system_propagate_x(ms->system, ms->system->x);
        st_system_propagate_v(ms->system, ms->system->v);
    }
    const st_field *f = st_component_field(&ms->base, "position");
    if (f)
        st_component_touch(&ms->base, f);
    f = st_component_field(&ms->base, "velocity");
    if (f)
        st_component_touch(&ms->base, f);
}

#endif
