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
    st_vec3 fixed_directions; /* "fixedDirections": non-zero = fixed */
    bool project_velocity;    /* "projectVelocity" */
} partial_fixed;

static st_status partial_init(st_component *self, st_error *err)
{
    return fixed_common_init((fixed_common *)self, err);
}

static void zero_dirs(partial_fixed *p, double *v)
{
    st_mstate *ms = p->c.ms;
    double *s = st_slice(v, ms);
    size_t n = ms->n;
    bool fx[3] = {p->fixed_directions[0] != 0, p->fixed_directions[1] != 0,
                  p->fixed_directions[2] != 0};
    if (p->c.fix_all) {
        for (size_t i = 0; i < n; i++)
            for (unsigned a = 0; a < 3; a++)
                if (fx[a])
                    s[3 * i + a] = 0.0;
        return;
    }
    for (size_t k = 0; k < p->c.indices.n; k++) {
        size_t i = p->c.indices.u[k];
        if (i < n)
            for (unsigned a = 0; a < 3; a++)
                if (fx[a])
                    s[3 * i + a] = 0.0;
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
    size_t n = p->c.ms->n, off = p->c.ms->offset;
    size_t count = p->c.fix_all ? n : p->c.indices.n;
    for (size_t k = 0; k < count; k++) {
        size_t i = p->c.fix_all ? k : p->c.indices.u[k];
        if (i >= n)
            continue;
        for (unsigned a = 0; a < 3; a++)
            if (p->fixed_directions[a] != 0)
                st_matrix_project_dof(m, off + i, a);
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
    ST_VEC3(partial_fixed, fixed_directions, "fixedDirections", "1 1 1",
            "Defines the directions in which the particles are fixed: true (or 1) for fixed, "
            "false (or 0) for free"),
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
};
