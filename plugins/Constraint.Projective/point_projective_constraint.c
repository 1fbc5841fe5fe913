/* point_projective_constraint.c - PointProjectiveConstraint (formerly
 * ProjectToPointConstraint): the listed points (or all, with fixAll) are
 * held at one target point, as SOFA's.
 *
 * Responses and velocities are zeroed at the points; positions are set to
 * `point` (the whole coordinate; unset: the origin). An assembled matrix
 * gets the points' rows and columns cleared with a unit diagonal. SOFA's
 * matrix projection only covers `indices`; with fixAll settee clears every
 * point, which gives the same solution (the right-hand side is then zero
 * everywhere) and stays consistent with the matrix-free path. Templates:
 * Vec3d, Vec2d, Vec1d (SOFA also has Vec6d, which settee has not). Invalid
 * indices are dropped with a warning, as SOFA's init. */
#include <string.h>

#include "projective.h"

typedef struct point_proj {
    st_component base;
    st_array indices;       /* "indices", uint[], default [0] */
    st_array point;         /* "point": one coordinate of the state (unset: 0) */
    bool fix_all;           /* "fixAll" */
    double draw_size;       /* "drawSize" (drawing) */
    double end_time;        /* "endTime" */
    int group;              /* "group" (ignored) */
    st_component *topology; /* "topology" */
    st_component *mstate;   /* "mstate" */
    st_mstate *ms;          /* set by init */
    double target[3];       /* the point, coord_size values */
} point_proj;

static st_status pp_init(st_component *self, st_error *err)
{
    point_proj *p = (point_proj *)self;
    ST_TRY(projective_check_mstate(self, p->mstate, err));
    p->ms = st_component_mstate(self);
    if (!p->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mstate: no MechanicalObject in this node or its "
                                  "ancestors to project");
    if (!p->topology)
        p->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    unsigned c = p->ms->type->coord_size;
    memset(p->target, 0, sizeof p->target);
    if (p->point.n != 0 && p->point.n != c)
        return st_component_error(self, "point", err, ST_ESCENE,
                                  "expects %u values (one coordinate of a %s state), got %zu", c,
                                  p->ms->type->name, p->point.n);
    for (size_t a = 0; a < p->point.n; a++)
        p->target[a] = p->point.r[a];
    size_t n = p->ms->n, k = 0;
    for (size_t i = 0; i < p->indices.n; i++) {
        if (p->indices.u[i] >= n) {
            st_component_warn(self, "Index %u not valid! (the state has %zu points); it is removed",
                              p->indices.u[i], n);
            continue;
        }
        p->indices.u[k++] = p->indices.u[i];
    }
    if (k != p->indices.n) {
        p->indices.n = k;
        st_component_touch(self, st_component_field(self, "indices"));
    }
    /* indices: SOFA's TopologySubsetIndices */
    return projective_follow(self, p->topology, NULL, NULL, 0, err);
}

/* The number of points acted on and the i-th of them. */
static size_t pp_count(const point_proj *p) { return p->fix_all ? p->ms->n : p->indices.n; }
static size_t pp_at(const point_proj *p, size_t k) { return p->fix_all ? k : p->indices.u[k]; }

static void pp_zero(st_component *self, const st_mparams *mp, double *v)
{
    point_proj *p = (point_proj *)self;
    if (!p->ms || !projective_active(p->end_time, mp))
        return;
    double *s = st_slice(v, p->ms);
    unsigned d = p->ms->type->deriv_size;
    for (size_t k = 0; k < pp_count(p); k++)
        memset(s + d * pp_at(p, k), 0, d * sizeof *s);
}

static void pp_project_position(st_component *self, const st_mparams *mp, double *x)
{
    point_proj *p = (point_proj *)self;
    if (!p->ms || !projective_active(p->end_time, mp))
        return;
    double *s = st_slice_x(x, p->ms);
    unsigned c = p->ms->type->coord_size;
    for (size_t k = 0; k < pp_count(p); k++)
        memcpy(s + c * pp_at(p, k), p->target, c * sizeof *s);
}

static void pp_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    point_proj *p = (point_proj *)self;
    if (!p->ms || !projective_active(p->end_time, mp))
        return;
    unsigned d = p->ms->type->deriv_size;
    for (size_t k = 0; k < pp_count(p); k++)
        for (unsigned a = 0; a < d; a++)
            st_matrix_project_dof(m, p->ms, pp_at(p, k), a);
}

static const st_projective_ops pp_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = pp_zero,
    .project_velocity = pp_zero,
    .project_position = pp_project_position,
    .apply_to_matrix = pp_apply_to_matrix,
};

static const st_field pp_fields[] = {
    ST_UINTS(point_proj, indices, "indices", "0", "Indices of the points to project"),
    ST_REALS(point_proj, point, "point", NULL,
             "Target of the projection (one coordinate of the state; unset: the origin)"),
    ST_BOOL(point_proj, fix_all, "fixAll", "false",
            "filter all the DOF to implement a fixed object"),
    ST_IGNORED(point_proj, draw_size, "drawSize", ST_T_REAL, double, "0",
               "Size of the rendered particles (0 -> point based rendering, >0 -> radius of "
               "spheres)"),
    PROJ_F_COMMON(point_proj, ),
    ST_FIELD_END};

static const char *const pp_aliases[] = {"ProjectToPointConstraint", NULL};
static const char *const pp_templates[] = {"Vec3d", "Vec2d", "Vec1d", NULL};

const st_class point_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "PointProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Project particles to a point",
    .aliases = pp_aliases,
    .instance_size = sizeof(point_proj),
    .fields = pp_fields,
    .init = pp_init,
    .reinit = pp_init,
    .projective = &pp_ops,
    .templates = pp_templates,
};
