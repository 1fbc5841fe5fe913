/* oscillator_projective_constraint.c - OscillatorProjectiveConstraint
 * (formerly OscillatorConstraint): listed points follow a sine, as SOFA's.
 *
 * oscillators is SOFA's list of entries "index mean amplitude pulsation
 * phase" (mean a coordinate, amplitude a derivative: 9 numbers per entry
 * for Vec3d, 16 for Rigid3d). With t the node's time, point `index` gets
 *   x = mean (+) amplitude sin(w t + p),   v = amplitude w cos(w t + p)
 * ((+): the state type's x + v, Rigid3d: exponential of the rotation), and
 * its responses are zeroed, at all times. SOFA projects no matrix for this
 * class; settee clears the points' rows and columns with a unit diagonal so
 * that the direct and matrix-free paths agree (the response is zero there).
 * Templates: Vec3d, Rigid3d. */
#include <math.h>
#include <string.h>

#include "projective.h"

typedef struct oscillator {
    st_component base;
    st_array entries;       /* "oscillators": the numbers of every entry */
    double end_time;        /* "endTime" */
    int group;              /* "group" (ignored) */
    st_component *topology; /* "topology" */
    st_component *mstate;   /* "mstate" */
    st_mstate *ms;          /* set by init */
    size_t n;               /* entries */
    unsigned width;         /* numbers per entry */
    st_array points;        /* uint[n]: the entries' points (kernel array, owned here) */
} oscillator;

static void os_cleanup(st_component *self)
{
    oscillator *o = (oscillator *)self;
    st_array_free(&o->points, ST_T_UINTS);
}

static st_status os_init(st_component *self, st_error *err)
{
    oscillator *o = (oscillator *)self;
    os_cleanup(self);
    ST_TRY(projective_check_mstate(self, o->mstate, err));
    o->ms = st_component_mstate(self);
    if (!o->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mstate: no MechanicalObject in this node or its "
                                  "ancestors to constrain");
    const st_state_type *t = o->ms->type;
    o->width = 1 + t->coord_size + t->deriv_size + 2;
    if (o->entries.n % o->width)
        return st_component_error(self, "oscillators", err, ST_ESCENE,
                                  "%zu numbers are not whole entries: each is 'index mean(%u) "
                                  "amplitude(%u) pulsation phase' (%u numbers for %s)",
                                  o->entries.n, t->coord_size, t->deriv_size, o->width, t->name);
    o->n = o->entries.n / o->width;
    ST_TRY(st_array_resize(&o->points, ST_T_UINTS, o->n, err));
    for (size_t i = 0; i < o->n; i++) {
        double id = o->entries.r[o->width * i];
        if (id < 0 || id != floor(id) || id >= (double)o->ms->n)
            return st_component_error(self, "oscillators", err, ST_ESCENE,
                                      "entry %zu: index %g is not a point of the state (%zu "
                                      "points)",
                                      i, id, o->ms->n);
        o->points.u[i] = (unsigned)id;
    }
    return ST_OK;
}

static void os_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    oscillator *o = (oscillator *)self;
    if (!o->ms || !projective_active(o->end_time, mp))
        return;
    unsigned d = o->ms->type->deriv_size;
    double *s = st_slice(dx, o->ms);
    for (size_t i = 0; i < o->n; i++)
        memset(s + (size_t)d * o->points.u[i], 0, d * sizeof *s);
}

static void os_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    oscillator *o = (oscillator *)self;
    if (!o->ms || !projective_active(o->end_time, mp))
        return;
    const st_state_type *t = o->ms->type;
    double time = st_node_time(self->node), *s = st_slice(v, o->ms);
    for (size_t i = 0; i < o->n; i++) {
        const double *e = o->entries.r + o->width * i;
        const double *amp = e + 1 + t->coord_size;
        double w = amp[t->deriv_size], p = amp[t->deriv_size + 1];
        double *vi = s + (size_t)t->deriv_size * o->points.u[i];
        for (unsigned k = 0; k < t->deriv_size; k++)
            vi[k] = amp[k] * w * cos(w * time + p);
    }
}

static void os_project_position(st_component *self, const st_mparams *mp, double *x)
{
    oscillator *o = (oscillator *)self;
    if (!o->ms || !projective_active(o->end_time, mp))
        return;
    const st_state_type *t = o->ms->type;
    double time = st_node_time(self->node), *s = st_slice_x(x, o->ms);
    for (size_t i = 0; i < o->n; i++) {
        const double *e = o->entries.r + o->width * i;
        const double *mean = e + 1, *amp = e + 1 + t->coord_size;
        double w = amp[t->deriv_size], p = amp[t->deriv_size + 1];
        t->add_deriv(s + (size_t)t->coord_size * o->points.u[i], mean, amp, sin(w * time + p), 1);
    }
}

static void os_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    oscillator *o = (oscillator *)self;
    if (!o->ms || !projective_active(o->end_time, mp))
        return;
    for (size_t i = 0; i < o->n; i++)
        for (unsigned a = 0; a < o->ms->type->deriv_size; a++)
            st_matrix_project_dof(m, o->ms, o->points.u[i], a);
}

static const st_projective_ops os_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = os_project_response,
    .project_velocity = os_project_velocity,
    .project_position = os_project_position,
    .apply_to_matrix = os_apply_to_matrix,
};

static const st_field os_fields[] = {
    ST_REALS(oscillator, entries, "oscillators", NULL,
             "Define a sequence of oscillating particules: [index, Mean(x,y,z), amplitude(x,y,z), "
             "pulsation, phase] (mean a coordinate and amplitude a derivative of the state)"),
    PROJ_F_COMMON(oscillator, ), ST_FIELD_END};

static const char *const os_aliases[] = {"OscillatorConstraint", NULL};
static const char *const os_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class oscillator_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "OscillatorProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Apply a sinusoidal trajectory to given points",
    .aliases = os_aliases,
    .instance_size = sizeof(oscillator),
    .fields = os_fields,
    .init = os_init,
    .reinit = os_init,
    .cleanup = os_cleanup,
    .projective = &os_ops,
    .templates = os_templates,
};
