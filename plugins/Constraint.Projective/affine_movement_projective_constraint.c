/* affine_movement_projective_constraint.c - AffineMovementProjectiveConstraint
 * (formerly AffineMovementConstraint): the listed points are carried from
 * their initial positions x0 to an affine image xf = R x0 + t between two
 * times, as SOFA's (used for patch tests: the border of a mesh is moved
 * rigidly, the inside must follow).
 *
 * With b = beginConstraintTime, e = endConstraintTime and t the root's time
 * (SOFA's context time: the projection that ends the step from t to t + dt
 * reads t), positions are set, for b < t <= e (and e > b), to
 *   x = ((xf - x0) t + x0 e - xf b) / (e - b)      (the linear blend),
 * and to xf once t > e; before b they are left alone. Responses and
 * velocities are zeroed at the points at all times; an assembled matrix
 * gets their rows and columns cleared with a unit diagonal (SOFA's
 * projectMatrix; its newer linear systems skip this class, and settee
 * projects so that the direct and CG paths agree).
 * Vec3d: xf = rotation x0 + translation, rotation a 3x3 matrix whose
 * default, as SOFA's, is the zero matrix. Rigid3d: the centre is rotated
 * by `quaternion` and translated, the orientation composed as SOFA's
 * quaternion sum (x0 orientation times quaternion, normalised); only the
 * centre is blended during the motion, the orientation jumps to the final
 * one after e (SOFA's setCPos). x0 are the positions at init. */
#include <string.h>

#include "projective.h"

typedef struct affine_movement {
    st_component base;
    st_array mesh_indices;  /* "meshIndices" (used by SOFA's test helpers only) */
    st_array indices;       /* "indices" */
    double begin_time;      /* "beginConstraintTime" */
    double end_ctime;       /* "endConstraintTime" */
    st_array rotation;      /* "rotation", 9 reals, row-major */
    st_vec4 quaternion;     /* "quaternion", x y z w */
    st_vec3 translation;    /* "translation" */
    bool draw_points;       /* "drawConstrainedPoints" (drawing) */
    double end_time;        /* "endTime" */
    int group;              /* "group" (ignored) */
    st_component *topology; /* "topology" */
    st_component *mstate;   /* "mstate" */
    st_mstate *ms;          /* set by init */
    double *x0, *xf;        /* coordinates of the points at init and at the end, owned */
    size_t npoints;         /* points in x0 and xf */
} affine_movement;

static void am_cleanup(st_component *self)
{
    affine_movement *c = (affine_movement *)self;
    st_free(c->x0);
    st_free(c->xf);
    c->x0 = c->xf = NULL;
    c->npoints = 0;
}

/* The final coordinate of one point (coord_size values). */
static void am_transform(const affine_movement *c, const double *x0, double *xf)
{
    if (c->ms->type->rigid) {
        double q[4] = {c->quaternion[0], c->quaternion[1], c->quaternion[2], c->quaternion[3]};
        double r[3];
        st_quat_rotate(r, q, x0);
        for (int k = 0; k < 3; k++)
            xf[k] = r[k] + c->translation[k];
        st_quat_mul(xf + 3, x0 + 3, q);
        st_quat_normalize(xf + 3);
        return;
    }
    const double *R = c->rotation.r;
    for (int r = 0; r < 3; r++)
        xf[r] = R[3 * r] * x0[0] + R[3 * r + 1] * x0[1] + R[3 * r + 2] * x0[2] + c->translation[r];
}

static st_status am_init(st_component *self, st_error *err)
{
    affine_movement *c = (affine_movement *)self;
    /* A reinit with the same points keeps their initial positions (SOFA
     * records them once) and only recomputes the final ones. */
    if (c->ms && c->x0 && c->npoints == c->indices.n) {
        unsigned cs = c->ms->type->coord_size;
        for (size_t i = 0; i < c->npoints; i++)
            am_transform(c, c->x0 + cs * i, c->xf + cs * i);
        return ST_OK;
    }
    am_cleanup(self);
    ST_TRY(projective_check_mstate(self, c->mstate, err));
    c->ms = st_component_mstate(self);
    if (!c->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mstate: no MechanicalObject in this node or its "
                                  "ancestors to constrain");
    if (!c->topology)
        c->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    size_t n = c->ms->n, k = 0;
    for (size_t i = 0; i < c->indices.n; i++) {
        if (c->indices.u[i] >= n) {
            st_component_warn(self, "Index %u not valid! (the state has %zu points); it is removed",
                              c->indices.u[i], n);
            continue;
        }
        c->indices.u[k++] = c->indices.u[i];
    }
    if (k != c->indices.n) {
        c->indices.n = k;
        st_component_touch(self, st_component_field(self, "indices"));
    }
    unsigned cs = c->ms->type->coord_size;
    c->x0 = st_calloc(cs * (c->indices.n + 1), sizeof *c->x0);
    c->xf = st_calloc(cs * (c->indices.n + 1), sizeof *c->xf);
    if (!c->x0 || !c->xf)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu points", c->indices.n);
    c->npoints = c->indices.n;
    for (size_t i = 0; i < c->indices.n; i++) {
        memcpy(c->x0 + cs * i, c->ms->position.r + (size_t)cs * c->indices.u[i],
               cs * sizeof(double));
        am_transform(c, c->x0 + cs * i, c->xf + cs * i);
    }
    /* indices: SOFA's TopologySubsetIndices; x0 and xf keep the list's
     * order at init, as SOFA's (not renumbered). */
    return projective_follow(self, c->topology, NULL, NULL, 0, err);
}

static void am_zero(st_component *self, const st_mparams *mp, double *v)
{
    affine_movement *c = (affine_movement *)self;
    if (!c->ms || !projective_active(c->end_time, mp))
        return;
    double *s = st_slice(v, c->ms);
    unsigned d = c->ms->type->deriv_size;
    for (size_t i = 0; i < c->indices.n; i++)
        memset(s + (size_t)d * c->indices.u[i], 0, d * sizeof *s);
}

static void am_project_position(st_component *self, const st_mparams *mp, double *x)
{
    affine_movement *c = (affine_movement *)self;
    if (!c->ms || !projective_active(c->end_time, mp))
        return;
    double t = st_node_time(st_node_root(self->node));
    double *s = st_slice_x(x, c->ms);
    unsigned cs = c->ms->type->coord_size;
    for (size_t i = 0; i < c->indices.n; i++)
        movement_blend(s + (size_t)cs * c->indices.u[i], c->x0 + cs * i, c->xf + cs * i, cs, t,
                       c->begin_time, c->end_ctime);
}

static void am_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    affine_movement *c = (affine_movement *)self;
    if (!c->ms || !projective_active(c->end_time, mp))
        return;
    projective_matrix_dofs(m, c->ms, &c->indices);
}

static const st_projective_ops am_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = am_zero,
    .project_velocity = am_zero,
    .project_position = am_project_position,
    .apply_to_matrix = am_apply_to_matrix,
};

static const st_field am_fields[] = {
    ST_UINTS(affine_movement, mesh_indices, "meshIndices", NULL, "Indices of the mesh"),
    ST_UINTS(affine_movement, indices, "indices", NULL, "Indices of the constrained points"),
    ST_REAL(affine_movement, begin_time, "beginConstraintTime", "0",
            "Begin time of the bilinear constraint"),
    ST_REAL(affine_movement, end_ctime, "endConstraintTime", "20",
            "End time of the bilinear constraint"),
    ST_FIELD_EX(affine_movement, rotation, "rotation", ST_T_REALS, st_array, "0 0 0 0 0 0 0 0 0",
                "rotation applied to border points (Vec3d: a 3x3 matrix, row by row, or SOFA's "
                "\"[a b c,d e f,g h i]\"; SOFA's default is the zero matrix)",
                ST_F_COUNT | ST_F_BRACKETS, NULL, 9, 9),
    ST_VEC4(affine_movement, quaternion, "quaternion", "0 0 0 1",
            "quaternion applied to border points (Rigid3d: x y z w)"),
    ST_VEC3(affine_movement, translation, "translation", "0 0 0",
            "translation applied to border points"),
    ST_IGNORED(affine_movement, draw_points, "drawConstrainedPoints", ST_T_BOOL, bool, "false",
               "draw constrained points"),
    PROJ_F_COMMON(affine_movement, ),
    ST_FIELD_END};

static const char *const am_aliases[] = {"AffineMovementConstraint", NULL};
static const char *const am_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class affine_movement_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "AffineMovementProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Constraint the movement by a rigid transform",
    .aliases = am_aliases,
    .instance_size = sizeof(affine_movement),
    .fields = am_fields,
    .init = am_init,
    .reinit = am_init,
    .cleanup = am_cleanup,
    .projective = &am_ops,
    .templates = am_templates,
};
