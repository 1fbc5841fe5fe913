/* plane_projective_constraint.c - PlaneProjectiveConstraint (formerly
 * ProjectToPlaneConstraint): the listed points are kept in the plane through
 * origin with the given normal, as SOFA's.
 *
 * normal is normalised at init; a null normal stays null (SOFA's fallback
 * sets n[1] = 0), so the points then move freely. With P = I - n n^T:
 * responses and velocities become P v at the points, positions
 * x - n ((x - o) . n). Vec3d and Vec2d; the matrix projection and its limits
 * are described in subspace_common.c. */
#include "projective.h"

static st_status plane_init(st_component *self, st_error *err)
{
    return subspace_init((subspace *)self, SUBSPACE_PLANE, err);
}

static void plane_cleanup(st_component *self) { subspace_cleanup((subspace *)self); }

static void plane_project_deriv(st_component *self, const st_mparams *mp, double *v)
{
    subspace_project_deriv((subspace *)self, mp, v);
}

static void plane_project_position(st_component *self, const st_mparams *mp, double *x)
{
    subspace_project_position((subspace *)self, mp, x);
}

static void plane_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    subspace_apply_to_matrix((subspace *)self, mp, m);
}

/* Responses and velocities get the same projection. */
static const st_projective_ops plane_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = plane_project_deriv,
    .project_velocity = plane_project_deriv,
    .project_position = plane_project_position,
    .apply_to_matrix = plane_apply_to_matrix,
};

static const st_field plane_fields[] = {
    SUBSPACE_F_INDICES("Indices of the fixed points"), SUBSPACE_F_ORIGIN("A point in the plane"),
    SUBSPACE_F_VECTOR(
        "normal", "Normal vector to the plane; normalised at init (null: no projection, as SOFA)"),
    PROJ_F_COMMON(subspace, ), ST_FIELD_END};

static const char *const plane_aliases[] = {"ProjectToPlaneConstraint", NULL};
static const char *const plane_templates[] = {"Vec3d", "Vec2d", NULL};

const st_class plane_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "PlaneProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Project particles to an affine plane",
    .aliases = plane_aliases,
    .instance_size = sizeof(subspace),
    .fields = plane_fields,
    .init = plane_init,
    .reinit = plane_init,
    .cleanup = plane_cleanup,
    .projective = &plane_ops,
    .templates = plane_templates,
};
