/* parabolic_projective_constraint.c - ParabolicProjectiveConstraint
 * (formerly ParabolicConstraint): listed points travel, between BeginTime
 * and EndTime, along the parabola through P1, P2 and P3, as SOFA's.
 *
 * The parabola lies in the plane of the three points. In the frame with
 * origin P1, x axis along P1P3, z along P1P3 x P1P2 (R: local to world),
 * P2 is (x2, y2, 0) and P3 (x3, 0, 0); the local curve is
 * y(s) = (-y2 s^2 + x3 y2 s) / (x3 x2 - x2^2), passing through the three.
 * With t the node's time in [BeginTime, EndTime] and r = (t - B)/(E - B):
 *   x = P1 + R (x3 r, y(x3 r), 0),
 *   v = R (p(t + dt) - p(t)) / dt        (SOFA's one-step difference),
 * and responses are zeroed; outside that window the points are free.
 * Rigid3d: the centre and the linear velocity only (SOFA assigns a 3D
 * vector to them); the response is zeroed whole. SOFA projects no matrix
 * for this class; settee clears the points' rows and columns inside the
 * window, where the response is zero too. The three points must differ
 * (SOFA then divides by zero). Templates: Vec3d, Rigid3d. */
#include <math.h>
#include <string.h>

#include "projective.h"

typedef struct parabolic {
    st_component base;
    st_array indices;       /* "indices" */
    st_vec3 p1, p2, p3;     /* "P1", "P2", "P3" */
    double t_begin, t_end;  /* "BeginTime", "EndTime" */
    double end_time;        /* "endTime" (the constraint set's) */
    int group;              /* "group" (ignored) */
    st_component *topology; /* "topology" */
    st_component *mstate;   /* "mstate" */
    st_mstate *ms;          /* set by init */
    double R[9];            /* local to world, row-major (columns: ax, ay, az) */
    double x2, y2, x3;      /* P2 and P3 in the local frame */
} parabolic;

static void unit(double v[3])
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > 0)
        for (int k = 0; k < 3; k++)
            v[k] /= n;
}

static void cross(const double a[3], const double b[3], double r[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static st_status pa_init(st_component *self, st_error *err)
{
    parabolic *c = (parabolic *)self;
    ST_TRY(projective_check_mstate(self, c->mstate, err));
    c->ms = st_component_mstate(self);
    if (!c->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mstate: no MechanicalObject in this node or its "
                                  "ancestors to constrain");
    if (!c->topology)
        c->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    ST_TRY(projective_check_indices(self, &c->indices, c->ms->n, err));
    double a[3], b[3], ax[3], ay[3], az[3];
    bool same = true;
    for (int k = 0; k < 3; k++) {
        a[k] = c->p2[k] - c->p1[k];
        b[k] = c->p3[k] - c->p1[k];
    }
    same = (a[0] == 0 && a[1] == 0 && a[2] == 0) || (b[0] == 0 && b[1] == 0 && b[2] == 0) ||
           (a[0] == b[0] && a[1] == b[1] && a[2] == b[2]);
    if (same && c->indices.n)
        return st_component_error(self, "P1", err, ST_ESCENE,
                                  "P1, P2 and P3 must be three different points to define a "
                                  "parabola");
    memcpy(ax, b, sizeof ax);
    cross(b, a, az);
    cross(az, ax, ay);
    unit(ax), unit(ay), unit(az);
    for (int r = 0; r < 3; r++) {
        c->R[3 * r] = ax[r];
        c->R[3 * r + 1] = ay[r];
        c->R[3 * r + 2] = az[r];
    }
    /* Local coordinates: R^T (P - P1). */
    c->x2 = ax[0] * a[0] + ax[1] * a[1] + ax[2] * a[2];
    c->y2 = ay[0] * a[0] + ay[1] * a[1] + ay[2] * a[2];
    c->x3 = ax[0] * b[0] + ax[1] * b[1] + ax[2] * b[2];
    return ST_OK;
}

/* The local point at relative time r. */
static void pa_local(const parabolic *c, double r, double p[3])
{
    double den = c->x3 * c->x2 - c->x2 * c->x2;
    double s = c->x3 * r;
    p[0] = s;
    p[1] = (-c->y2 / den) * s * s + (c->x3 * c->y2 / den) * s;
    p[2] = 0.0;
}

static void rotate(const double R[9], const double v[3], double out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = R[3 * r] * v[0] + R[3 * r + 1] * v[1] + R[3 * r + 2] * v[2];
}

static bool pa_window(const parabolic *c, double *t)
{
    *t = st_node_time(c->base.node);
    return *t >= c->t_begin && *t <= c->t_end;
}

static void pa_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    parabolic *c = (parabolic *)self;
    double t;
    if (!c->ms || !projective_active(c->end_time, mp) || !pa_window(c, &t))
        return;
    unsigned d = c->ms->type->deriv_size;
    double *s = st_slice(dx, c->ms);
    for (size_t i = 0; i < c->indices.n; i++)
        memset(s + (size_t)d * c->indices.u[i], 0, d * sizeof *s);
}

static void pa_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    parabolic *c = (parabolic *)self;
    double t;
    if (!c->ms || !projective_active(c->end_time, mp) || !pa_window(c, &t))
        return;
    double dt = st_node_dt(self->node), span = c->t_end - c->t_begin;
    double pp[3], pn[3], lv[3], wv[3];
    pa_local(c, (t - c->t_begin) / span, pp);
    pa_local(c, (t + dt - c->t_begin) / span, pn);
    for (int k = 0; k < 3; k++)
        lv[k] = (pn[k] - pp[k]) / dt;
    rotate(c->R, lv, wv);
    unsigned d = c->ms->type->deriv_size;
    double *s = st_slice(v, c->ms);
    for (size_t i = 0; i < c->indices.n; i++)
        memcpy(s + (size_t)d * c->indices.u[i], wv, sizeof wv);
}

static void pa_project_position(st_component *self, const st_mparams *mp, double *x)
{
    parabolic *c = (parabolic *)self;
    double t;
    if (!c->ms || !projective_active(c->end_time, mp) || !pa_window(c, &t))
        return;
    double lp[3], wp[3];
    pa_local(c, (t - c->t_begin) / (c->t_end - c->t_begin), lp);
    rotate(c->R, lp, wp);
    unsigned cs = c->ms->type->coord_size;
    double *s = st_slice_x(x, c->ms);
    for (size_t i = 0; i < c->indices.n; i++)
        for (int k = 0; k < 3; k++)
            s[(size_t)cs * c->indices.u[i] + k] = c->p1[k] + wp[k];
}

static void pa_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    parabolic *c = (parabolic *)self;
    double t;
    if (!c->ms || !projective_active(c->end_time, mp) || !pa_window(c, &t))
        return;
    projective_matrix_dofs(m, c->ms, &c->indices);
}

static const st_projective_ops pa_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = pa_project_response,
    .project_velocity = pa_project_velocity,
    .project_position = pa_project_position,
    .apply_to_matrix = pa_apply_to_matrix,
};

static const st_field pa_fields[] = {
    ST_UINTS(parabolic, indices, "indices", NULL, "Indices of the constrained points"),
    ST_VEC3(parabolic, p1, "P1", "0 0 0", "first point of the parabol"),
    ST_VEC3(parabolic, p2, "P2", "0 0 0", "second point of the parabol"),
    ST_VEC3(parabolic, p3, "P3", "0 0 0", "third point of the parabol"),
    ST_REAL(parabolic, t_begin, "BeginTime", "0", "Begin Time of the motion"),
    ST_REAL(parabolic, t_end, "EndTime", "0", "End Time of the motion"),
    PROJ_F_COMMON(parabolic, ),
    ST_FIELD_END};

static const char *const pa_aliases[] = {"ParabolicConstraint", NULL};
static const char *const pa_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class parabolic_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "ParabolicProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Apply a parabolic trajectory to given points",
    .aliases = pa_aliases,
    .instance_size = sizeof(parabolic),
    .fields = pa_fields,
    .init = pa_init,
    .reinit = pa_init,
    .projective = &pa_ops,
    .templates = pa_templates,
};
