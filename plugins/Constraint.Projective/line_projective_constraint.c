/* line_projective_constraint.c - LineProjectiveConstraint (formerly
 * ProjectToLineConstraint): the listed points are kept on the straight line
 * through origin along direction, as SOFA's.
 *
 * direction is normalised at init (a null one becomes the x axis). With
 * P = n n^T: responses and velocities become P v at the points, positions
 * o + P (x - o). Vec3d and Vec2d; the matrix projection and its limits are
 * described in subspace_common.c. */
#include "projective.h"

static st_status line_init(st_component *self, st_error *err)
{
    return subspace_init((subspace *)self, SUBSPACE_LINE, err);
}

static void line_cleanup(st_component *self) { subspace_cleanup((subspace *)self); }

static void line_project_deriv(st_component *self, const st_mparams *mp, double *v)
{
    subspace_project_deriv((subspace *)self, mp, v);
}

static void line_project_position(st_component *self, const st_mparams *mp, double *x)
{
    subspace_project_position((subspace *)self, mp, x);
}

static void line_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    subspace_apply_to_matrix((subspace *)self, mp, m);
}

/* Responses and velocities get the same projection. */
static const st_projective_ops line_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = line_project_deriv,
    .project_velocity = line_project_deriv,
    .project_position = line_project_position,
    .apply_to_matrix = line_apply_to_matrix,
};

static const st_field line_fields[] = {
    SUBSPACE_F_INDICES("Indices of the fixed points"), SUBSPACE_F_ORIGIN("A point in the line"),
    SUBSPACE_F_VECTOR("direction", "Direction of the line; normalised at init (null: the x axis)"),
    PROJ_F_COMMON(subspace, ), ST_FIELD_END};

static const char *const line_aliases[] = {"ProjectToLineConstraint", NULL};
static const char *const line_templates[] = {"Vec3d", "Vec2d", NULL};

const st_class line_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "LineProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Project particles to an affine straight line",
    .aliases = line_aliases,
    .instance_size = sizeof(subspace),
    .fields = line_fields,
    .init = line_init,
    .reinit = line_init,
    .cleanup = line_cleanup,
    .projective = &line_ops,
    .templates = line_templates,
};
