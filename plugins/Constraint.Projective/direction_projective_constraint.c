/* direction_projective_constraint.c - DirectionProjectiveConstraint
 * (formerly ProjectDirectionConstraint): each listed point moves only along
 * direction, on the line through its position at init, as SOFA's.
 *
 * direction is normalised at init; a null one stays null (SOFA's fallback
 * sets n[1] = 0), which fixes the points. With P = n n^T: responses and
 * velocities become P v at the points, positions a_i + P (x - a_i), a_i the
 * point's position at init. Vec3d and Vec2d; the matrix projection and its
 * limits are described in subspace_common.c. */
#include "projective.h"

static st_status direction_init(st_component *self, st_error *err)
{
    return subspace_init((subspace *)self, SUBSPACE_DIRECTION, err);
}

static void direction_cleanup(st_component *self) { subspace_cleanup((subspace *)self); }

static void direction_project_deriv(st_component *self, const st_mparams *mp, double *v)
{
    subspace_project_deriv((subspace *)self, mp, v);
}

static void direction_project_position(st_component *self, const st_mparams *mp, double *x)
{
    subspace_project_position((subspace *)self, mp, x);
}

static void direction_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    subspace_apply_to_matrix((subspace *)self, mp, m);
}

/* Responses and velocities get the same projection. */
static const st_projective_ops direction_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = direction_project_deriv,
    .project_velocity = direction_project_deriv,
    .project_position = direction_project_position,
    .apply_to_matrix = direction_apply_to_matrix,
};

static const st_field direction_fields[] = {
    SUBSPACE_F_INDICES("Indices the particles to project"),
    SUBSPACE_F_VECTOR(
        "direction",
        "Direction of the line; normalised at init (null: the points are fixed, as SOFA)"),
    PROJ_F_COMMON(subspace, ), ST_FIELD_END};

static const char *const direction_aliases[] = {"ProjectDirectionConstraint", NULL};
static const char *const direction_templates[] = {"Vec3d", "Vec2d", NULL};

const st_class direction_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "DirectionProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description =
        "Project particles to a line through their initial positions, along a given direction",
    .aliases = direction_aliases,
    .instance_size = sizeof(subspace),
    .fields = direction_fields,
    .init = direction_init,
    .reinit = direction_init,
    .cleanup = direction_cleanup,
    .projective = &direction_ops,
    .templates = direction_templates,
};
