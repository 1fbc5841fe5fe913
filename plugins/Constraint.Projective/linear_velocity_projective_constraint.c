/* linear_velocity_projective_constraint.c - LinearVelocityProjectiveConstraint:
 * the listed points move with a velocity interpolated linearly between key
 * times, as SOFA's.
 *
 * t is the node's time (SOFA's context time, see
 * linear_movement_projective_constraint.c) and h the node's dt. Between the
 * key times prevT <= t < nextT (velocities prevV, nextV)
 *   w = prevV + (nextV - prevV) (t - prevT) / (nextT - prevT);
 * once t has passed the last key time the constraint is finished and, only
 * with continueAfterEnd, keeps imposing w = the last velocity reached. While
 * it acts: v_i = w, x_i = xp_i + h w with xp_i the position it imposed last
 * (the initial position at first), and responses are zeroed at the points;
 * `coordinates` restricts v and x to those axes. Assembled matrices get the
 * points' rows and columns cleared while it acts, so the matrix pattern is
 * recorded again when it starts or stops acting. SOFA's state machine is
 * kept: the key interval is searched again at each projection until the
 * constraint is finished; reset starts it over. Defaults as SOFA's: indices
 * [0], keyTimes [0], velocities [0 0 0].
 *
 * Templates as SOFA's (but Vec6d): Vec3d, Vec2d, Vec1d and Rigid3d. A
 * velocity is one derivative of the state (Rigid3d: linear, then angular).
 * For Rigid3d the imposed position is xp (+) h w, SOFA's RigidCoord +
 * RigidDeriv (the centre moves by h w_lin, the orientation is
 * left-multiplied by the exponential of h w_ang / 2); `coordinates` may
 * name the centre's axes 0-2 only (SOFA indexes the coordinate with the
 * derivative's index there, writing raw quaternion components for 3-5: that
 * is refused). SOFA's Rigid3d instance follows topological changes like
 * the others. */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "projective.h"

typedef struct linear_velocity {
    st_component base;
    st_array indices;        /* "indices", uint[] */
    st_array key_times;      /* "keyTimes", real[] */
    st_array velocities;     /* "velocities", deriv[], one per key time */
    st_array coordinates;    /* "coordinates", uint[]: axes (empty: all) */
    bool continue_after_end; /* "continueAfterEnd" */
    double end_time;         /* "endTime" */
    int group;               /* "group" (ignored) */
    st_component *topology;  /* "topology" */
    st_component *mstate;    /* "mstate" */
    st_mstate *ms;
    double *xp;              /* coordinates imposed last, cs n, owned */
    size_t nxp;              /* points in xp (the state's, renumbered with it) */
    bool have_x0;
    double prev_t, next_t, prev_v[6], next_v[6];
    bool finished;
    unsigned cs, ds;         /* scalars per coordinate and per derivative of the state */
} linear_velocity;

static void lv_restart(linear_velocity *c)
{
    c->prev_t = c->next_t = 0.0;
    memset(c->prev_v, 0, sizeof c->prev_v);
    memset(c->next_v, 0, sizeof c->next_v);
    c->finished = false;
}

static st_status lv_init(st_component *self, st_error *err)
{
    linear_velocity *c = (linear_velocity *)self;
    ST_TRY(projective_check_mstate(self, c->mstate, err));
    c->ms = st_component_mstate(self);
    if (!c->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors "
                                  "(LinearVelocityProjectiveConstraint needs one)");
    if (!c->topology)
        c->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    size_t n = c->ms->n;
    c->cs = c->ms->type->coord_size;
    c->ds = c->ms->type->deriv_size;
    unsigned axes = c->ms->type->spatial_size;
    ST_TRY(projective_check_indices(self, &c->indices, n, err));
    if (c->velocities.n > c->key_times.n)
        st_component_warn(self, "%zu velocities for %zu key times: only the first %zu are used (as "
                                "SOFA, which pairs them in order)",
                          c->velocities.n, c->key_times.n, c->key_times.n);
    if (c->velocities.n < c->key_times.n)
        return st_component_error(self, "velocities", err, ST_ESCENE,
                                  "%zu velocities for %zu key times: give one velocity per key "
                                  "time",
                                  c->velocities.n, c->key_times.n);
    ST_TRY(projective_check_increasing(self, &c->key_times, err));
    for (size_t i = 0; i < c->coordinates.n; i++)
        if (c->coordinates.u[i] >= axes)
            return st_component_error(self, "coordinates", err, ST_ESCENE,
                                      "coordinate %u is not an axis of the %s state (0 to %u)%s",
                                      c->coordinates.u[i], c->ms->type->name, axes - 1,
                                      c->ms->type->rigid
                                          ? ": SOFA would write raw quaternion components"
                                          : "");
    st_free(c->xp);
    c->xp = st_calloc(c->cs * (n ? n : 1), sizeof *c->xp);
    if (!c->xp)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu positions", n);
    c->nxp = n;
    c->have_x0 = false;
    ST_TRY(projective_follow(self, c->topology, (void **)&c->xp, &c->nxp,
                             c->cs * sizeof *c->xp, err));
    lv_restart(c);
    return ST_OK;
}

static void lv_cleanup(st_component *self)
{
    linear_velocity *c = (linear_velocity *)self;
    st_free(c->xp);
    c->xp = NULL;
}

static void lv_reset(st_component *self) { lv_restart((linear_velocity *)self); }

/* SOFA's findKeyTimes: updates the key interval around t; true once t is
 * past the last key time. */
static bool lv_find_keys(linear_velocity *c, double t)
{
    size_t n = c->key_times.n;
    const double *kt = c->key_times.r;
    if (n == 0)
        return false;
    if (t > kt[n - 1]) {
        memcpy(c->prev_v, c->next_v, sizeof c->prev_v);
        c->next_t = INFINITY;
        return true;
    }
    if (t < kt[0])
        return false;
    c->prev_t = c->next_t = kt[0];
    for (size_t k = 0; k < n; k++) {
        const double *vk = c->velocities.r + c->ds * k;
        if (kt[k] <= t) {
            c->prev_t = kt[k];
            memcpy(c->prev_v, vk, c->ds * sizeof *vk);
        } else {
            c->next_t = kt[k];
            memcpy(c->next_v, vk, c->ds * sizeof *vk);
            return false;
        }
    }
    return false;
}

/* Updates the state at the node's time; true when the constraint acts.
 * Writes the imposed velocity w. */
static bool lv_update(linear_velocity *c, double w[6])
{
    double t = st_node_time(c->base.node);
    if (!c->ms || !(c->end_time < 0 || c->end_time > t))
        return false;
    if (!c->finished)
        c->finished = lv_find_keys(c, t);
    if (!((!c->finished || c->continue_after_end) && c->next_t != c->prev_t))
        return false;
    double s = (t - c->prev_t) / (c->next_t - c->prev_t);
    for (unsigned k = 0; k < c->ds; k++)
        w[k] = c->finished ? c->prev_v[k] : (c->next_v[k] - c->prev_v[k]) * s + c->prev_v[k];
    return true;
}

static void lv_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    (void)mp;
    linear_velocity *c = (linear_velocity *)self;
    double w[6];
    if (lv_update(c, w))
        projective_zero_dofs(st_slice(dx, c->ms), c->ds, &c->indices);
}

static void lv_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    linear_velocity *c = (linear_velocity *)self;
    double w[6];
    if (!lv_update(c, w))
        return;
    double *vs = st_slice(v, c->ms);
    for (size_t i = 0; i < c->indices.n; i++) {
        double *vi = vs + c->ds * c->indices.u[i];
        if (c->coordinates.n == 0)
            memcpy(vi, w, c->ds * sizeof *w);
        for (size_t a = 0; a < c->coordinates.n; a++)
            vi[c->coordinates.u[a]] = w[c->coordinates.u[a]];
    }
}

static void lv_project_position(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    linear_velocity *c = (linear_velocity *)self;
    double t = st_node_time(self->node);
    if (!c->ms || !(c->end_time < 0 || c->end_time > t))
        return;
    double *xs = st_slice_x(x, c->ms);
    unsigned cs = c->cs;
    if (!c->have_x0) {
        for (size_t i = 0; i < c->indices.n; i++)
            memcpy(c->xp + cs * c->indices.u[i], xs + cs * c->indices.u[i], cs * sizeof *xs);
        c->have_x0 = true;
    }
    double w[6], h = st_node_dt(self->node);
    if (!lv_update(c, w))
        return;
    for (size_t i = 0; i < c->indices.n; i++) {
        double *xi = xs + cs * c->indices.u[i], *pi = c->xp + cs * c->indices.u[i];
        if (c->coordinates.n == 0)
            c->ms->type->add_deriv(xi, pi, w, h, 1);
        for (size_t a = 0; a < c->coordinates.n; a++) {
            unsigned k = c->coordinates.u[a];
            xi[k] = pi[k] + w[k] * h;
        }
        memcpy(pi, xi, cs * sizeof *xi);
    }
}

static void lv_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    (void)mp;
    linear_velocity *c = (linear_velocity *)self;
    /* SOFA's applyConstraint reads the state left by the last projection. */
    if (c->ms && (!c->finished || c->continue_after_end) && c->next_t != c->prev_t)
        projective_matrix_dofs(m, c->ms, &c->indices);
}

static const st_projective_ops lv_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = lv_project_response,
    .project_velocity = lv_project_velocity,
    .project_position = lv_project_position,
    .apply_to_matrix = lv_apply_to_matrix,
};

/* The positions imposed last, whether they were taken, the key interval
 * found last and whether it is finished change during the run (the kernel
 * saves xp only when it follows a topology, and before this: the sizes
 * agree by then). */
static st_status lv_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    linear_velocity *c = (linear_velocity *)self;
    ST_TRY(st_checkpoint_data(ck, &c->have_x0, sizeof c->have_x0, err));
    ST_TRY(st_checkpoint_data(ck, c->xp, c->nxp * c->cs * sizeof *c->xp, err));
    ST_TRY(st_checkpoint_data(ck, &c->finished, sizeof c->finished, err));
    double keys[2 + 12] = {c->prev_t, c->next_t};
    memcpy(keys + 2, c->prev_v, sizeof c->prev_v);
    memcpy(keys + 8, c->next_v, sizeof c->next_v);
    ST_TRY(st_checkpoint_data(ck, keys, sizeof keys, err));
    c->prev_t = keys[0];
    c->next_t = keys[1];
    memcpy(c->prev_v, keys + 2, sizeof c->prev_v);
    memcpy(c->next_v, keys + 8, sizeof c->next_v);
    return ST_OK;
}

static const st_checkpoint_ops lv_checkpoint_ops = {.struct_size = sizeof(st_checkpoint_ops),
                                                    .transfer = lv_checkpoint};

static const st_field lv_fields[] = {
    ST_UINTS(linear_velocity, indices, "indices", "0", "Indices of the constrained points"),
    ST_REALS(linear_velocity, key_times, "keyTimes", "0", "key times for the movements"),
    ST_DERIVS(linear_velocity, velocities, "velocities", "0 0 0",
              "velocities corresponding to the key times"),
    ST_UINTS(linear_velocity, coordinates, "coordinates", NULL,
             "coordinates on which to apply velocities"),
    ST_BOOL(linear_velocity, continue_after_end, "continueAfterEnd", "false",
            "If set to true then the last velocity will still be applied after all the key "
            "events"),
    PROJ_F_COMMON(linear_velocity, ),
    ST_FIELD_END};

static const char *const lv_aliases[] = {"LinearVelocityConstraint", NULL};
static const char *const lv_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Rigid3d", NULL};

const st_class linear_velocity_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "LinearVelocityProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Impose a velocity to given DOFs (translation and rotation)",
    .aliases = lv_aliases,
    .templates = lv_templates,
    .instance_size = sizeof(linear_velocity),
    .fields = lv_fields,
    .init = lv_init,
    .reset = lv_reset,
    .cleanup = lv_cleanup,
    .projective = &lv_ops,
    .checkpoint = &lv_checkpoint_ops,
};
