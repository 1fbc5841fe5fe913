/* position_based_dynamics_projective_constraint.c -
 * PositionBasedDynamicsProjectiveConstraint (formerly
 * PositionBasedDynamicsConstraint): every point is pulled towards a target
 * position after each step, and its velocity becomes its displacement over
 * the step, as SOFA's.
 *
 * position (the targets) must have one coordinate per point. At each
 * position projection (end of step, and once at init), with s = stiffness
 * and h the node's dt (none when h = 0):
 *   x <- x + s (target - x),   u <- (x - x_old) / h,   x_old <- x,
 * and the velocity projection then sets v = u. Rigid3d: the centre as
 * above; the orientation becomes the target's (s = 1) or SOFA's slerp from
 * the current one at s (without the shortest-path flip, s rounded to
 * float as SOFA passes it); the angular part of u is the axis-angle of
 * q q_old^-1 over h. x_old starts as the positions at the first
 * projection; a reset sets u = 0 and x_old = x. Responses and matrices are
 * left alone (SOFA's). The velocity and old_position fields are SOFA's
 * internal data, accepted and overwritten. Templates: Vec3d, Vec2d, Vec1d,
 * Rigid3d (SOFA also has Vec6d).
 *
 * The targets are read when the projection runs, after the solver has
 * written the new positions: as in SOFA, where the solver's write marks the
 * state's position changed and reading the target data pulls the engines
 * upstream (ShapeMatching.scn: targetPosition computed from the integrated
 * positions, not from the previous step's). */
#include <math.h>
#include <string.h>

#include "projective.h"

typedef struct pbd {
    st_component base;
    double stiffness;     /* "stiffness" */
    st_array target;      /* "position", coord[] */
    st_array vel_f;       /* "velocity", deriv[] (SOFA's internal data) */
    st_array old_f;       /* "old_position", coord[] (SOFA's internal data) */
    double end_time;      /* "endTime" */
    int group;            /* "group" (ignored) */
    st_component *mstate; /* "mstate" */
    st_mstate *ms;        /* set by init */
    double *vel, *old;    /* n derivatives, n coordinates, owned */
    bool have_old;
    bool warned; /* a failed target update was reported */
} pbd;

static void pbd_cleanup(st_component *self)
{
    pbd *c = (pbd *)self;
    st_free(c->vel);
    st_free(c->old);
    c->vel = c->old = NULL;
    c->have_old = false;
}

static st_status pbd_init(st_component *self, st_error *err)
{
    pbd *c = (pbd *)self;
    pbd_cleanup(self);
    ST_TRY(projective_check_mstate(self, c->mstate, err));
    c->ms = st_component_mstate(self);
    if (!c->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mstate: no MechanicalObject in this node or its "
                                  "ancestors to constrain");
    if (c->target.n != c->ms->n)
        st_component_warn_field(self, "position",
                                "Invalid target position vector size (%zu targets for %zu points): "
                                "the constraint does nothing",
                                c->target.n, c->ms->n);
    const st_state_type *t = c->ms->type;
    c->vel = st_calloc(t->deriv_size * (c->ms->n + 1), sizeof *c->vel);
    c->old = st_calloc(t->coord_size * (c->ms->n + 1), sizeof *c->old);
    if (!c->vel || !c->old)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu points", c->ms->n);
    /* SOFA's old_position when the scene gives a whole one. */
    if (c->ms->n && c->old_f.n == c->ms->n) {
        memcpy(c->old, c->old_f.r, t->coord_size * c->ms->n * sizeof *c->old);
        c->have_old = true;
    }
    if (c->ms->n && c->vel_f.n == c->ms->n)
        memcpy(c->vel, c->vel_f.r, t->deriv_size * c->ms->n * sizeof *c->vel);
    return ST_OK;
}

static void pbd_reset(st_component *self)
{
    pbd *c = (pbd *)self;
    if (!c->ms || !c->vel || !c->ms->n)
        return;
    const st_state_type *t = c->ms->type;
    memset(c->vel, 0, t->deriv_size * c->ms->n * sizeof *c->vel);
    memcpy(c->old, c->ms->position.r, t->coord_size * c->ms->n * sizeof *c->old);
    c->have_old = true;
}

/* SOFA's slerp of a to b at t, without the shortest-path flip. */
static void slerp(double out[4], const double a[4], const double b[4], double t)
{
    double ca = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], c1, c2;
    if (1.0 - fabs(ca) < 0.01) {
        c1 = 1.0 - t;
        c2 = t;
    } else {
        double ang = acos(fabs(ca)), sa = sin(ang);
        c1 = sin(ang * (1.0 - t)) / sa;
        c2 = sin(ang * t) / sa;
    }
    for (int k = 0; k < 4; k++)
        out[k] = c1 * a[k] + c2 * b[k];
}

/* The solver has just written the state's positions: say so, and pull the
 * targets through their links (engines upstream re-run on the new values). */
static void pbd_refresh_targets(pbd *c)
{
    st_component *msc = &c->ms->base;
    const st_field *pf = st_component_field(msc, "position");
    if (pf)
        st_component_touch(msc, pf);
    st_error e = {0};
    if (st_component_update_inputs(&c->base, &e) != ST_OK && !c->warned) {
        st_component_warn(&c->base, "targets not updated after the step: %s", e.msg);
        c->warned = true;
    }
}

static void pbd_project_position(st_component *self, const st_mparams *mp, double *x)
{
    pbd *c = (pbd *)self;
    if (c->ms && c->vel && st_slice_x(x, c->ms) == c->ms->position.r)
        pbd_refresh_targets(c);
    if (!c->ms || !c->vel || c->target.n != c->ms->n || !projective_active(c->end_time, mp))
        return;
    double h = st_node_dt(self->node);
    if (h == 0.0)
        return;
    const st_state_type *t = c->ms->type;
    unsigned cs = t->coord_size, ds = t->deriv_size;
    double *xs = st_slice_x(x, c->ms), s = c->stiffness;
    size_t n = c->ms->n;
    if (!c->have_old) {
        memcpy(c->old, xs, cs * n * sizeof *c->old);
        c->have_old = true;
    }
    for (size_t i = 0; i < n; i++) {
        double *p = xs + cs * i, *o = c->old + cs * i, *u = c->vel + ds * i;
        const double *g = c->target.r + cs * i;
        if (!t->rigid) {
            for (unsigned k = 0; k < cs; k++) {
                p[k] += (g[k] - p[k]) * s;
                u[k] = (p[k] - o[k]) / h;
                o[k] = p[k];
            }
            continue;
        }
        for (int k = 0; k < 3; k++)
            p[k] += (g[k] - p[k]) * s;
        if (s == 1.0) {
            memcpy(p + 3, g + 3, 4 * sizeof *p);
        } else {
            double q[4];
            slerp(q, p + 3, g + 3, (double)(float)s);
            memcpy(p + 3, q, sizeof q);
        }
        for (int k = 0; k < 3; k++)
            u[k] = (p[k] - o[k]) / h;
        double inv[4] = {-o[3], -o[4], -o[5], o[6]}, d[4], axis[3], phi;
        st_quat_mul(d, p + 3, inv);
        st_quat_to_axis(d, axis, &phi);
        for (int k = 0; k < 3; k++)
            u[3 + k] = axis[k] * phi / h;
        memcpy(o, p, cs * sizeof *o);
    }
}

static void pbd_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    pbd *c = (pbd *)self;
    if (!c->ms || !c->vel || c->target.n != c->ms->n || !projective_active(c->end_time, mp))
        return;
    memcpy(st_slice(v, c->ms), c->vel, c->ms->type->deriv_size * c->ms->n * sizeof(double));
}

static st_status pbd_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    pbd *c = (pbd *)self;
    if (!c->ms || !c->vel)
        return ST_OK;
    ST_TRY(
        st_checkpoint_data(ck, c->vel, c->ms->type->deriv_size * c->ms->n * sizeof *c->vel, err));
    ST_TRY(
        st_checkpoint_data(ck, c->old, c->ms->type->coord_size * c->ms->n * sizeof *c->old, err));
    ST_TRY(st_checkpoint_data(ck, &c->have_old, sizeof c->have_old, err));
    return ST_OK;
}

static const st_checkpoint_ops pbd_checkpoint_ops = {.struct_size = sizeof(st_checkpoint_ops),
                                                     .transfer = pbd_checkpoint};

static const st_projective_ops pbd_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_velocity = pbd_project_velocity,
    .project_position = pbd_project_position,
};

static const st_field pbd_fields[] = {
    ST_REAL(pbd, stiffness, "stiffness", "1", "Blending between current pos and target pos."),
    ST_COORDS(pbd, target, "position", NULL, "Target positions."),
    ST_DERIVS(pbd, vel_f, "velocity", NULL, "Velocities (internal: computed at each step)."),
    ST_COORDS(pbd, old_f, "old_position", NULL, "Old positions (internal: computed at each step)."),
    ST_REAL(pbd, end_time, "endTime", "-1",
            "The constraint stops acting after the given value. Use a negative value for infinite "
            "constraints"),
    ST_IGNORED(pbd, group, "group", ST_T_INT, int, "0",
               "ID of the group containing this constraint (selects the constraint solver; "
               "settee's projective constraints are applied by the ODE solver)"),
    ST_LINK(pbd, mstate, "mstate", ST_LINK_STATE,
            "MechanicalState used by this component (default: the node's, else the nearest "
            "ancestor's)"),
    ST_FIELD_END};

static const char *const pbd_aliases[] = {"PositionBasedDynamicsConstraint", NULL};
static const char *const pbd_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Rigid3d", NULL};

const st_class position_based_dynamics_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "PositionBasedDynamicsProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Position-based dynamics: points pulled towards target positions, velocities "
                   "from the displacement",
    .aliases = pbd_aliases,
    .instance_size = sizeof(pbd),
    .fields = pbd_fields,
    .init = pbd_init,
    .reset = pbd_reset,
    .cleanup = pbd_cleanup,
    .projective = &pbd_ops,
    .templates = pbd_templates,
    .checkpoint = &pbd_checkpoint_ops,
};
