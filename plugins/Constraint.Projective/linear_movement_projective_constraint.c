/* linear_movement_projective_constraint.c - LinearMovementProjectiveConstraint:
 * the listed points follow a piecewise-linear motion given at key times, as
 * SOFA's.
 *
 * With t the node's time (SOFA's context time: after a solve, the animation
 * loop projects before the time advances, so the positions after the step
 * from t to t + dt are those of time t), the motion acts while a key time
 * lies strictly after t and t >= keyTimes[0]: between the last key time
 * prevT <= t (movement prevM) and the next one nextT (nextM),
 *   m(t) = prevM + (nextM - prevM) (t - prevT) / (nextT - prevT),
 *   x_i = x0_i + m(t) (relativeMovements, x0 the positions at the first
 *         projection, i.e. at init) or x_i = m(t) (absolute),
 *   v_i = (nextM - prevM) / (nextT - prevT),
 * and responses (dx, residuals) are zeroed at the points. Before the first
 * key time and from the last one on, the points are free (they keep the
 * velocity last imposed). An assembled matrix always gets the points' rows
 * and columns cleared with a unit diagonal, as SOFA's applyConstraint,
 * whatever the time. Defaults as SOFA's: indices [0], keyTimes [0],
 * movements [0 0 0]. keyTimes must be in increasing order (SOFA assumes it).
 *
 * Templates as SOFA's (but Vec6d): Vec3d, Vec2d, Vec1d and Rigid3d. A
 * movement is one derivative of the state. For Rigid3d it is a translation
 * then three Euler angles (SOFA's createQuaterFromEuler, ZYX order: q =
 * (s1 c2 c3 - c1 s2 s3, c1 s2 c3 + s1 c2 s3, c1 c2 s3 - s1 s2 c3, c1 c2 c3
 * + s1 s2 s3) with ci, si the cosine and sine of half angle i): the centre
 * moves as above and the orientation becomes q0 slerp2(Q(prevM), Q(nextM),
 * s), s = (t - prevT) / (nextT - prevT), q0 the orientation at init (or,
 * absolute, slerp2(...) alone); the velocity is (nextM - prevM) / (nextT -
 * prevT) whole, the Euler angles' rate taken as the angular velocity, as
 * SOFA does. SOFA's Rigid3d instance does not follow topological changes
 * (its init skips the topology handler): neither does this one. */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "projective.h"

typedef struct linear_movement {
    st_component base;
    st_array indices;        /* "indices", uint[] */
    st_array key_times;      /* "keyTimes", real[] */
    st_array movements;      /* "movements", deriv[], one per key time */
    bool relative;           /* "relativeMovements" */
    bool show_movement;      /* "showMovement" (drawing) */
    double end_time;         /* "endTime" */
    int group;               /* "group" (ignored) */
    st_component *topology;  /* "topology" */
    st_component *mstate;    /* "mstate" */
    st_mstate *ms;
    double *x0;              /* coordinates of the points at the first projection, cs n, owned */
    size_t nx0;              /* points in x0 (the state's, renumbered with it) */
    bool have_x0;
    unsigned cs, ds;         /* scalars per coordinate and per derivative of the state */
} linear_movement;

/* SOFA's Quat::createQuaterFromEuler in its default (ZYX) order. */
static void lm_euler_quat(const double e[3], double q[4])
{
    double c1 = cos(e[0] / 2), c2 = cos(e[1] / 2), c3 = cos(e[2] / 2);
    double s1 = sin(e[0] / 2), s2 = sin(e[1] / 2), s3 = sin(e[2] / 2);
    q[0] = s1 * c2 * c3 - c1 * s2 * s3;
    q[1] = c1 * s2 * c3 + s1 * c2 * s3;
    q[2] = c1 * c2 * s3 - s1 * s2 * c3;
    q[3] = c1 * c2 * c3 + s1 * s2 * s3;
}

/* SOFA's Quat::slerp2: from a (t = 0) to b (t = 1), a when they are equal
 * or opposite, their mean when they are half a turn apart. */
static void lm_slerp2(const double a[4], const double b[4], double t, double q[4])
{
    double ch = a[3] * b[3] + a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    if (fabs(ch) >= 1.0) {
        memcpy(q, a, 4 * sizeof *q);
        return;
    }
    double h = acos(ch), sh = sqrt(1.0 - ch * ch);
    double ra = 0.5, rb = 0.5;
    if (fabs(sh) >= 0.001) {
        ra = sin((1 - t) * h) / sh;
        rb = sin(t * h) / sh;
    }
    for (int k = 0; k < 4; k++)
        q[k] = a[k] * ra + b[k] * rb;
}

/* The key interval around time t, as SOFA's findKeyTimes: true when the
 * motion acts (prevT <= t < nextT). */
static bool lm_keys(const linear_movement *c, double t, double *pt, double *nt, const double **pm,
                    const double **nm)
{
    size_t n = c->key_times.n;
    const double *kt = c->key_times.r;
    if (n == 0 || t < kt[0] || t > kt[n - 1])
        return false;
    for (size_t k = 0; k < n; k++) {
        if (kt[k] <= t) {
            *pt = kt[k];
            *pm = c->movements.r + c->ds * k;
        } else {
            *nt = kt[k];
            *nm = c->movements.r + c->ds * k;
            return *nt != *pt;
        }
    }
    return false;
}

static st_status lm_init(st_component *self, st_error *err)
{
    linear_movement *c = (linear_movement *)self;
    ST_TRY(projective_check_mstate(self, c->mstate, err));
    c->ms = st_component_mstate(self);
    if (!c->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors "
                                  "(LinearMovementProjectiveConstraint needs one)");
    if (!c->topology)
        c->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    size_t n = c->ms->n;
    c->cs = c->ms->type->coord_size;
    c->ds = c->ms->type->deriv_size;
    ST_TRY(projective_check_indices(self, &c->indices, n, err));
    if (c->movements.n < c->key_times.n)
        return st_component_error(self, "movements", err, ST_ESCENE,
                                  "%zu movements for %zu key times: give one movement per key "
                                  "time",
                                  c->movements.n, c->key_times.n);
    if (c->movements.n > c->key_times.n)
        st_component_warn(self, "%zu movements for %zu key times: as in SOFA, key time i takes "
                                "movement i and the last %zu movements are not used (read as "
                                "%s movements, %u values each)",
                          c->movements.n, c->key_times.n, c->movements.n - c->key_times.n,
                          c->ms ? c->ms->type->name : "the state's",
                          c->ms ? c->ms->type->deriv_size : 0);
    ST_TRY(projective_check_increasing(self, &c->key_times, err));
    st_free(c->x0);
    c->x0 = st_calloc(c->cs * (n ? n : 1), sizeof *c->x0);
    if (!c->x0)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu initial positions", n);
    c->nx0 = n;
    c->have_x0 = false;
    if (c->ms->type->rigid)
        return ST_OK;
    return projective_follow(self, c->topology, (void **)&c->x0, &c->nx0, c->cs * sizeof *c->x0,
                             err);
}

static void lm_cleanup(st_component *self)
{
    linear_movement *c = (linear_movement *)self;
    st_free(c->x0);
    c->x0 = NULL;
}

/* The time SOFA's constraint reads and whether the constraint set acts. */
static double lm_time(const linear_movement *c, bool *active)
{
    double t = st_node_time(c->base.node);
    *active = c->ms && (c->end_time < 0 || c->end_time > t);
    return t;
}

static void lm_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    (void)mp;
    linear_movement *c = (linear_movement *)self;
    bool active;
    double t = lm_time(c, &active), pt = 0, nt = 0;
    const double *pm = NULL, *nm = NULL;
    if (active && lm_keys(c, t, &pt, &nt, &pm, &nm))
        projective_zero_dofs(st_slice(dx, c->ms), c->ds, &c->indices);
}

static void lm_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    linear_movement *c = (linear_movement *)self;
    bool active;
    double t = lm_time(c, &active), pt = 0, nt = 0;
    const double *pm = NULL, *nm = NULL;
    if (!active || !lm_keys(c, t, &pt, &nt, &pm, &nm))
        return;
    unsigned d = c->ds;
    double *vs = st_slice(v, c->ms), w[6];
    for (unsigned k = 0; k < d; k++)
        w[k] = (nm[k] - pm[k]) * (1.0 / (nt - pt));
    for (size_t i = 0; i < c->indices.n; i++)
        memcpy(vs + d * c->indices.u[i], w, d * sizeof *w);
}

static void lm_project_position(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    linear_movement *c = (linear_movement *)self;
    bool active;
    double t = lm_time(c, &active), pt = 0, nt = 0;
    const double *pm = NULL, *nm = NULL;
    if (!active)
        return;
    double *xs = st_slice_x(x, c->ms);
    unsigned cs = c->cs, ns = c->ms->type->spatial_size;
    if (!c->have_x0) {
        for (size_t i = 0; i < c->indices.n; i++)
            memcpy(c->x0 + cs * c->indices.u[i], xs + cs * c->indices.u[i], cs * sizeof *xs);
        c->have_x0 = true;
    }
    if (!lm_keys(c, t, &pt, &nt, &pm, &nm))
        return;
    double s = (t - pt) / (nt - pt), m[6], q[4] = {0, 0, 0, 1};
    for (unsigned k = 0; k < c->ds; k++)
        m[k] = pm[k] + (nm[k] - pm[k]) * s;
    if (c->ms->type->rigid) {
        double qp[4], qn[4];
        lm_euler_quat(pm + 3, qp);
        lm_euler_quat(nm + 3, qn);
        lm_slerp2(qp, qn, s, q);
    }
    for (size_t i = 0; i < c->indices.n; i++) {
        double *xi = xs + cs * c->indices.u[i];
        const double *x0 = c->x0 + cs * c->indices.u[i];
        for (unsigned k = 0; k < ns; k++)
            xi[k] = c->relative ? x0[k] + m[k] : m[k];
        if (!c->ms->type->rigid)
            continue;
        if (c->relative)
            st_quat_mul(xi + 3, x0 + 3, q);
        else
            memcpy(xi + 3, q, sizeof q);
    }
}

static void lm_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    (void)mp;
    linear_movement *c = (linear_movement *)self;
    if (c->ms)
        projective_matrix_dofs(m, c->ms, &c->indices);
}

static const st_projective_ops lm_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = lm_project_response,
    .project_velocity = lm_project_velocity,
    .project_position = lm_project_position,
    .apply_to_matrix = lm_apply_to_matrix,
};

static const st_field lm_fields[] = {
    ST_UINTS(linear_movement, indices, "indices", "0", "Indices of the constrained points"),
    ST_REALS(linear_movement, key_times, "keyTimes", "0", "key times for the movements"),
    ST_DERIVS(linear_movement, movements, "movements", "0 0 0",
              "movements corresponding to the key times (Rigid3d: translation, then Euler "
              "angles)"),
    ST_BOOL(linear_movement, relative, "relativeMovements", "true",
            "If true, movements are relative to first position, absolute otherwise"),
    ST_IGNORED(linear_movement, show_movement, "showMovement", ST_T_BOOL, bool, "false",
               "Visualization of the movement to be applied to constrained dofs."),
    PROJ_F_COMMON(linear_movement, ),
    ST_FIELD_END};

static const char *const lm_aliases[] = {"LinearMovementConstraint", NULL};
static const char *const lm_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Rigid3d", NULL};

const st_class linear_movement_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "LinearMovementProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Impose a motion to given DOFs (translation and rotation)",
    .aliases = lm_aliases,
    .templates = lm_templates,
    .instance_size = sizeof(linear_movement),
    .fields = lm_fields,
    .init = lm_init,
    .cleanup = lm_cleanup,
    .projective = &lm_ops,
};
