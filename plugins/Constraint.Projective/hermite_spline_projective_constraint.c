/* hermite_spline_projective_constraint.c - HermiteSplineProjectiveConstraint
 * (formerly HermiteSplineConstraint): listed points follow a cubic Hermite
 * curve between BeginTime and EndTime, as SOFA's.
 *
 * With t the node's time in [B, E] and u = (t - B)/(E - B), SOFA first
 * reparametrises u through the 2D Hermite curve with tangents SX0, SX1:
 *   s = (SX0 h10(u) + (1, 1) h01(u) + SX1 h11(u)).y
 * (h00 = 2u^3 - 3u^2 + 1, h10 = u^3 - 2u^2 + u, h01 = -2u^3 + 3u^2,
 * h11 = u^3 - u^2), then
 *   x = X0 h00(s) + dX0 h10(s) + X1 h01(s) + dX1 h11(s),
 *   v = X0 h00'(s) + dX0 h10'(s) + X1 h01'(s) + dX1 h11'(s)
 * (the derivative in s, not in time, as SOFA), and zeroes the responses;
 * outside [B, E] the points are free. SOFA projects no matrix; settee
 * clears the points' rows and columns inside the window, where the
 * response is zero too. Rigid3d: the centre and the linear velocity (SOFA
 * assigns a 3D vector to them); the response is zeroed whole. Templates:
 * Vec3d, Rigid3d. */
#include <string.h>

#include "projective.h"

typedef struct hermite {
    st_component base;
    st_array indices;       /* "indices" */
    double t_begin, t_end;  /* "BeginTime", "EndTime" */
    st_vec3 x0, dx0;        /* "X0", "dX0" */
    st_vec3 x1, dx1;        /* "X1", "dX1" */
    st_vec2 sx0, sx1;       /* "SX0", "SX1" */
    double end_time;        /* "endTime" */
    int group;              /* "group" (ignored) */
    st_component *topology; /* "topology" */
    st_component *mstate;   /* "mstate" */
    st_mstate *ms;          /* set by init */
} hermite;

static st_status he_init(st_component *self, st_error *err)
{
    hermite *c = (hermite *)self;
    ST_TRY(projective_check_mstate(self, c->mstate, err));
    c->ms = st_component_mstate(self);
    if (!c->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mstate: no MechanicalObject in this node or its "
                                  "ancestors to constrain");
    if (!c->topology)
        c->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    return projective_check_indices(self, &c->indices, c->ms->n, err);
}

/* The reparametrised s at u. */
static double he_s(const hermite *c, double u)
{
    double u2 = u * u, u3 = u2 * u;
    double h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
    return c->sx0[1] * h10 + h01 + c->sx1[1] * h11;
}

/* Inside [B, E]: u. */
static bool he_window(const hermite *c, double *u)
{
    double t = st_node_time(c->base.node);
    if (!(t >= c->t_begin && t <= c->t_end))
        return false;
    *u = (t - c->t_begin) / (c->t_end - c->t_begin);
    return true;
}

static void he_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    hermite *c = (hermite *)self;
    double u;
    if (!c->ms || !projective_active(c->end_time, mp) || !he_window(c, &u))
        return;
    unsigned d = c->ms->type->deriv_size;
    double *s = st_slice(dx, c->ms);
    for (size_t i = 0; i < c->indices.n; i++)
        memset(s + (size_t)d * c->indices.u[i], 0, d * sizeof *s);
}

static void he_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    hermite *c = (hermite *)self;
    double u;
    if (!c->ms || !projective_active(c->end_time, mp) || !he_window(c, &u))
        return;
    double s = he_s(c, u), s2 = s * s;
    double d00 = 6 * s2 - 6 * s, d10 = 3 * s2 - 4 * s + 1, d01 = -6 * s2 + 6 * s,
           d11 = 3 * s2 - 2 * s;
    unsigned d = c->ms->type->deriv_size;
    double *vs = st_slice(v, c->ms);
    for (size_t i = 0; i < c->indices.n; i++)
        for (int k = 0; k < 3; k++)
            vs[(size_t)d * c->indices.u[i] + k] =
                c->x0[k] * d00 + c->dx0[k] * d10 + c->x1[k] * d01 + c->dx1[k] * d11;
}

static void he_project_position(st_component *self, const st_mparams *mp, double *x)
{
    hermite *c = (hermite *)self;
    double u;
    if (!c->ms || !projective_active(c->end_time, mp) || !he_window(c, &u))
        return;
    double s = he_s(c, u), s2 = s * s, s3 = s2 * s;
    double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    unsigned cs = c->ms->type->coord_size;
    double *xs = st_slice_x(x, c->ms);
    for (size_t i = 0; i < c->indices.n; i++)
        for (int k = 0; k < 3; k++)
            xs[(size_t)cs * c->indices.u[i] + k] =
                c->x0[k] * h00 + c->dx0[k] * h10 + c->x1[k] * h01 + c->dx1[k] * h11;
}

static void he_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    hermite *c = (hermite *)self;
    double u;
    if (!c->ms || !projective_active(c->end_time, mp) || !he_window(c, &u))
        return;
    projective_matrix_dofs(m, c->ms, &c->indices);
}

static const st_projective_ops he_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = he_project_response,
    .project_velocity = he_project_velocity,
    .project_position = he_project_position,
    .apply_to_matrix = he_apply_to_matrix,
};

static const st_field he_fields[] = {
    ST_UINTS(hermite, indices, "indices", NULL, "Indices of the constrained points"),
    ST_REAL(hermite, t_begin, "BeginTime", "0", "Begin Time of the motion"),
    ST_REAL(hermite, t_end, "EndTime", "0", "End Time of the motion"),
    ST_VEC3(hermite, x0, "X0", "0 0 0", "first control point"),
    ST_VEC3(hermite, dx0, "dX0", "0 0 0", "first control tangente"),
    ST_VEC3(hermite, x1, "X1", "0 0 0", "second control point"),
    ST_VEC3(hermite, dx1, "dX1", "0 0 0", "second control tangente"),
    ST_VEC2(hermite, sx0, "SX0", "0 0", "first interpolation vector"),
    ST_VEC2(hermite, sx1, "SX1", "0 0", "second interpolation vector"),
    PROJ_F_COMMON(hermite, ),
    ST_FIELD_END};

static const char *const he_aliases[] = {"HermiteSplineConstraint", NULL};
static const char *const he_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class hermite_spline_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "HermiteSplineProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Apply a hermite cubic spline trajectory to given points",
    .aliases = he_aliases,
    .instance_size = sizeof(hermite),
    .fields = he_fields,
    .init = he_init,
    .reinit = he_init,
    .projective = &he_ops,
    .templates = he_templates,
};
