/* fixed_projective_constraint.c - FixedProjectiveConstraint (formerly
 * FixedConstraint): the listed vertices (or all of them) get no motion.
 *
 * As SOFA: responses (dx, accelerations, residuals) are zeroed at the fixed
 * vertices; velocities only with activate_projectVelocity; positions are
 * never touched; an assembled matrix gets the fixed rows and columns
 * cleared with a unit diagonal. `indices` defaults to [0]. */
#include <string.h>

#include <settee/settee.h>

#include "projective.h"

st_status fixed_common_init(fixed_common *c, st_error *err)
{
    ST_TRY(projective_check_mstate(&c->base, c->mstate, err));
    c->ms = st_component_mstate(&c->base);
    if (!c->ms) {
        st_component_warn(&c->base, "Missing mstate, cannot initialize the component: no "
                                    "MechanicalObject in its node or its ancestors; the constraint "
                                    "does nothing");
        return ST_OK;
    }
    if (!c->topology)
        c->topology = st_node_find(c->base.node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    /* Indices outside the state are removed, as SOFA's checkIndices. */
    size_t n = c->ms->n, k = 0;
    for (size_t i = 0; i < c->indices.n; i++) {
        unsigned id = c->indices.u[i];
        if (id >= n) {
            st_component_warn(&c->base,
                              "Index %u not valid, should be [0,%zu]. Constraint will be removed.",
                              id, n);
            continue;
        }
        c->indices.u[k++] = id;
    }
    if (k != c->indices.n) {
        c->indices.n = k;
        st_component_touch(&c->base, st_component_field(&c->base, "indices"));
    }
    return projective_follow(&c->base, c->topology, NULL, NULL, 0, err);
}

/* A state resized without a topology: SOFA's indices stay as they are;
 * each projection reads the state's size and skips those past its end. */
static st_status fixed_init(st_component *self, st_error *err)
{
    fixed_common *c = (fixed_common *)self;
    ST_TRY(fixed_common_init(c, err));
    return c->ms ? st_mstate_follow_resize(self, c->ms, NULL, err) : ST_OK;
}

/* Zeroes the fixed points of a derivative vector (global). */
static void zero_fixed(fixed_common *c, double *v)
{
    st_mstate *ms = c->ms;
    double *s = st_slice(v, ms);
    size_t n = ms->n;
    unsigned d = ms->type->deriv_size;
    if (c->fix_all) {
        memset(s, 0, d * n * sizeof *s);
        return;
    }
    for (size_t i = 0; i < c->indices.n; i++) {
        size_t id = c->indices.u[i];
        if (id < n)
            for (unsigned a = 0; a < d; a++)
                s[d * id + a] = 0.0;
    }
}

static void fixed_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    fixed_common *c = (fixed_common *)self;
    if (c->ms && projective_active(c->end_time, mp))
        zero_fixed(c, dx);
}

static void fixed_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    fixed_common *c = (fixed_common *)self;
    if (c->ms && c->project_velocity && projective_active(c->end_time, mp))
        zero_fixed(c, v);
}

static void fixed_project_position(st_component *self, const st_mparams *mp, double *x)
{
    /* SOFA leaves positions alone: a fixed vertex stays put because its
     * velocity increments are zero. */
    (void)self, (void)mp, (void)x;
}

static void fixed_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    fixed_common *c = (fixed_common *)self;
    if (!c->ms || !projective_active(c->end_time, mp))
        return;
    size_t n = c->ms->n;
    unsigned d = c->ms->type->deriv_size;
    if (c->fix_all) {
        for (size_t i = 0; i < n; i++)
            for (unsigned a = 0; a < d; a++)
                st_matrix_project_dof(m, c->ms, i, a);
        return;
    }
    for (size_t i = 0; i < c->indices.n; i++) {
        size_t id = c->indices.u[i];
        if (id < n)
            for (unsigned a = 0; a < d; a++)
                st_matrix_project_dof(m, c->ms, id, a);
    }
}

static const st_projective_ops fixed_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = fixed_project_response,
    .project_velocity = fixed_project_velocity,
    .project_position = fixed_project_position,
    .apply_to_matrix = fixed_apply_to_matrix,
};

static const st_field fixed_fields[] = {
    FIXED_F_COMMON(fixed_common, , 0, "if true, projects not only a constant but a zero velocity"),
    ST_FIELD_END};

static const char *const fixed_aliases[] = {"FixedConstraint", NULL};

const st_class fixed_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "FixedProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Attach given particles to their initial positions",
    .aliases = fixed_aliases,
    .instance_size = sizeof(fixed_common),
    .fields = fixed_fields,
    .init = fixed_init,
    .projective = &fixed_ops,
    .templates = st_all_state_types,
};
