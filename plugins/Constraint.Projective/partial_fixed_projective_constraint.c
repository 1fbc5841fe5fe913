/* partial_fixed_projective_constraint.c - PartialFixedProjectiveConstraint:
 * the listed vertices (or all) are fixed along the directions flagged in
 * fixedDirections only.
 *
 * It has FixedProjectiveConstraint's data (indices default [0], fixAll, ...)
 * plus fixedDirections (default 1 1 1) and its own projectVelocity switch
 * (SOFA ignores the inherited activate_projectVelocity here). */
#include <settee/settee.h>

#include "projective.h"

typedef struct partial_fixed {
    fixed_common c;
    st_array fixed_directions; /* "fixedDirections": one flag per derivative component */
    bool project_velocity;     /* "projectVelocity" */
    bool fx[6];                /* the flags, checked at init */
} partial_fixed;

/* fixedDirections has one flag per derivative component of the state type
 * (3 for Vec3d, 6 for Rigid3d: linear then angular); unset: all fixed. */
static st_status partial_init(st_component *self, st_error *err)
{
    partial_fixed *p = (partial_fixed *)self;
    ST_TRY(fixed_common_init(&p->c, err));
    const st_state_type *t = st_component_state_type(self);
    unsigned d = t ? t->deriv_size : 3;
    const st_array *fd = &p->fixed_directions;
    if (!st_component_is_set(self, "fixedDirections") && fd->n == 0) {
        for (unsigned a = 0; a < d; a++)
            p->fx[a] = true;
        return ST_OK;
    }
    if (fd->n != d)
        return st_component_error(self, "fixedDirections", err, ST_ESCENE,
                                  "expects %u values for %s (one per derivative component), got %zu",
                                  d, t ? t->name : "Vec3d", fd->n);
    for (unsigned a = 0; a < d; a++)
        p->fx[a] = fd->r[a] != 0.0;
    return ST_OK;
}

static void zero_dirs(partial_fixed *p, double *v)
{
    st_mstate *ms = p->c.ms;
    double *s = st_slice(v, ms);
    size_t n = ms->n, count = p->c.fix_all ? n : p->c.indices.n;
    unsigned d = ms->type->deriv_size;
    for (size_t k = 0; k < count; k++) {
        size_t i = p->c.fix_all ? k : p->c.indices.u[k];
        if (i < n)
            for (unsigned a = 0; a < d; a++)
                if (p->fx[a])
                    s[d * i + a] = 0.0;
    }
}

static void partial_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    partial_fixed *p = (partial_fixed *)self;
    if (p->c.ms && projective_active(p->c.end_time, mp))
        zero_dirs(p, dx);
}

static void partial_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    partial_fixed *p = (partial_fixed *)self;
    if (p->c.ms && p->project_velocity && projective_active(p->c.end_time, mp))
        zero_dirs(p, v);
}

static void partial_project_position(st_component *self, const st_mparams *mp, double *x)
{
    (void)self, (void)mp, (void)x;
}

static void partial_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    partial_fixed *p = (partial_fixed *)self;
    if (!p->c.ms || !projective_active(p->c.end_time, mp))
        return;
    size_t n = p->c.ms->n;
    unsigned d = p->c.ms->type->deriv_size;
    size_t count = p->c.fix_all ? n : p->c.indices.n;
    for (size_t k = 0; k < count; k++) {
        size_t i = p->c.fix_all ? k : p->c.indices.u[k];
        if (i >= n)
            continue;
        for (unsigned a = 0; a < d; a++)
            if (p->fx[a])
                st_matrix_project_dof(m, p->c.ms, i, a);
    }
}

static const st_projective_ops partial_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = partial_project_response,
    .project_velocity = partial_project_velocity,
    .project_position = partial_project_position,
    .apply_to_matrix = partial_apply_to_matrix,
};

static const st_field partial_fields[] = {
    FIXED_F_COMMON(partial_fixed, c., ST_F_IGNORED,
                   "inherited from FixedProjectiveConstraint and unused (as in SOFA): see "
                   "projectVelocity"),
    ST_REALS(partial_fixed, fixed_directions, "fixedDirections", NULL,
             "Defines the directions in which the particles are fixed: true (or 1) for fixed, "
             "false (or 0) for free; one per derivative component (3 for Vec3d, 6 for Rigid3d: "
             "linear then angular); unset: all fixed"),
    ST_BOOL(partial_fixed, project_velocity, "projectVelocity", "false",
            "activate project velocity to maintain a constant velocity"),
    ST_FIELD_END};

static const char *const partial_aliases[] = {"PartialFixedConstraint", NULL};

const st_class partial_fixed_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "PartialFixedProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Attach given particles to their initial positions, in some directions only",
    .aliases = partial_aliases,
    .instance_size = sizeof(partial_fixed),
    .fields = partial_fields,
    .init = partial_init,
    .projective = &partial_ops,
    .templates = st_all_state_types,
};
