/* fixed_plane_projective_constraint.c - FixedPlaneProjectiveConstraint: the
 * listed vertices (plus, when dmin != dmax, those found at init with
 * dmin < x.direction < dmax, strictly) cannot move along `direction`.
 *
 * As SOFA: a response is projected with dx -= direction (dx . direction)
 * (direction is used as given, not normalised); velocities and positions are
 * not touched; on an assembled matrix each axis with a non-zero direction
 * component is constrained (exact only for axis-aligned directions, as in
 * SOFA). */
#include <settee/settee.h>

#include "projective.h"

typedef struct fixed_plane {
    st_component base;
    st_vec3 direction;       /* "direction" */
    double dmin, dmax;       /* "dmin", "dmax" */
    st_array indices;        /* "indices" */
    double end_time;         /* "endTime" */
    int group;               /* "group" (ignored) */
    st_component *topology;  /* "topology" */
    st_component *mstate;    /* "mstate" */
    st_mstate *ms;
} fixed_plane;

static st_status plane_init(st_component *self, st_error *err)
{
    fixed_plane *p = (fixed_plane *)self;
    ST_TRY(projective_check_mstate(self, p->mstate, err));
    p->ms = st_component_mstate(self);
    if (!p->ms) {
        st_component_warn(self, "Missing mstate: no MechanicalObject in its node or its "
                                "ancestors; the constraint does nothing");
        return ST_OK;
    }
    if (!p->topology)
        p->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    size_t n = p->ms->n;
    unsigned w = p->ms->type->coord_size;
    /* Out-of-range indices would write outside the state. */
    for (size_t i = 0; i < p->indices.n; i++)
        if (p->indices.u[i] >= n)
            return st_component_error(self, "indices", err, ST_EINVAL,
                                      "index %u is out of range: the state has %zu points",
                                      p->indices.u[i], n);
    if (p->dmin != p->dmax) {
        const double *x = p->ms->position.r;
        const double *d = p->direction;
        for (size_t i = 0; i < n; i++) {
            double s = x[w * i] * d[0] + x[w * i + 1] * d[1] + x[w * i + 2] * d[2];
            if (s > p->dmin && s < p->dmax) {
                size_t k = p->indices.n;
                ST_TRY(st_array_resize(&p->indices, ST_T_UINTS, k + 1, err));
                p->indices.u[k] = (unsigned)i;
            }
        }
        st_component_touch(self, st_component_field(self, "indices"));
    }
    return projective_follow(self, p->topology, NULL, NULL, 0, err);
}

static void plane_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    fixed_plane *p = (fixed_plane *)self;
    if (!p->ms || !projective_active(p->end_time, mp))
        return;
    double *s = st_slice(dx, p->ms);
    const double *d = p->direction;
    for (size_t k = 0; k < p->indices.n; k++) {
        size_t i = p->indices.u[k];
        if (i >= p->ms->n)
            continue;
        double *v = s + p->ms->type->deriv_size * i; /* Rigid3d: the linear part */
        double dot = v[0] * d[0] + v[1] * d[1] + v[2] * d[2];
        v[0] = v[0] - d[0] * dot;
        v[1] = v[1] - d[1] * dot;
        v[2] = v[2] - d[2] * dot;
    }
}

static void plane_noop(st_component *self, const st_mparams *mp, double *v)
{
    (void)self, (void)mp, (void)v;
}

static void plane_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    fixed_plane *p = (fixed_plane *)self;
    if (!p->ms || !projective_active(p->end_time, mp))
        return;
    for (size_t k = 0; k < p->indices.n; k++) {
        size_t i = p->indices.u[k];
        if (i >= p->ms->n)
            continue;
        for (unsigned a = 0; a < 3; a++)
            if (p->direction[a] != 0.0)
                st_matrix_project_dof(m, p->ms, i, a);
    }
}

static const st_projective_ops plane_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = plane_project_response,
    .project_velocity = plane_noop,
    .project_position = plane_noop,
    .apply_to_matrix = plane_apply_to_matrix,
};

static const st_field plane_fields[] = {
    ST_VEC3(fixed_plane, direction, "direction", "0 0 0", "normal direction of the plane"),
    ST_REAL(fixed_plane, dmin, "dmin", "0", "Minimum plane distance from the origin"),
    ST_REAL(fixed_plane, dmax, "dmax", "0", "Maximum plane distance from the origin"),
    ST_UINTS(fixed_plane, indices, "indices", NULL, "Indices of the fixed points"),
    PROJ_F_COMMON(fixed_plane, ),
    ST_FIELD_END};

static const char *const plane_aliases[] = {"FixedPlaneConstraint", NULL};
/* SOFA's: the plane acts on the position (Rigid3d: the centre). */
static const char *const plane_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class fixed_plane_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "FixedPlaneProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Project particles to an affine plane (no motion along the plane normal)",
    .aliases = plane_aliases,
    .instance_size = sizeof(fixed_plane),
    .fields = plane_fields,
    .init = plane_init,
    .projective = &plane_ops,
    .templates = plane_templates,
};
