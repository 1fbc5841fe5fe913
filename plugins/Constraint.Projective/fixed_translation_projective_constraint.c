/* fixed_translation_projective_constraint.c -
 * FixedTranslationProjectiveConstraint (formerly FixedTranslationConstraint),
 * as SOFA's.
 *
 * What SOFA's code does, which settee reproduces: the responses of the
 * listed points (or all, with fixAll; indices defaults to [0]) are zeroed
 * whole (SOFA clears the whole rigid derivative, its rotation part too,
 * although the class is named for translations), velocities and positions
 * are left alone. SOFA projects no matrix; settee clears the same DOFs in
 * an assembled matrix so that the direct and matrix-free paths agree.
 * `coordinates` is accepted (SOFA keeps it for drawing). Rigid3d (SOFA
 * also has Rigid2d and Vec6d). */
#include <string.h>

#include "projective.h"

typedef struct fixed_translation {
    st_component base;
    st_array indices;       /* "indices", default [0] */
    bool fix_all;           /* "fixAll" */
    double draw_size;       /* "drawSize" (drawing) */
    st_array coordinates;   /* "coordinates" (drawing) */
    double end_time;        /* "endTime" */
    int group;              /* "group" (ignored) */
    st_component *topology; /* "topology" */
    st_component *mstate;   /* "mstate" */
    st_mstate *ms;          /* set by init */
} fixed_translation;

static st_status ft_init(st_component *self, st_error *err)
{
    fixed_translation *c = (fixed_translation *)self;
    ST_TRY(projective_check_mstate(self, c->mstate, err));
    c->ms = st_component_mstate(self);
    if (!c->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mstate: no MechanicalObject in this node or its "
                                  "ancestors to constrain");
    if (!c->topology)
        c->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!c->fix_all)
        ST_TRY(projective_check_indices(self, &c->indices, c->ms->n, err));
    return ST_OK;
}

static size_t ft_count(const fixed_translation *c) { return c->fix_all ? c->ms->n : c->indices.n; }
static size_t ft_at(const fixed_translation *c, size_t k)
{
    return c->fix_all ? k : c->indices.u[k];
}

static void ft_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    fixed_translation *c = (fixed_translation *)self;
    if (!c->ms || !projective_active(c->end_time, mp))
        return;
    unsigned d = c->ms->type->deriv_size;
    double *s = st_slice(dx, c->ms);
    for (size_t k = 0; k < ft_count(c); k++)
        memset(s + d * ft_at(c, k), 0, d * sizeof *s);
}

static void ft_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    fixed_translation *c = (fixed_translation *)self;
    if (!c->ms || !projective_active(c->end_time, mp))
        return;
    for (size_t k = 0; k < ft_count(c); k++)
        for (unsigned a = 0; a < c->ms->type->deriv_size; a++)
            st_matrix_project_dof(m, c->ms, ft_at(c, k), a);
}

static const st_projective_ops ft_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = ft_project_response,
    .apply_to_matrix = ft_apply_to_matrix,
};

static const st_field ft_fields[] = {
    ST_UINTS(fixed_translation, indices, "indices", "0", "Indices of the fixed points"),
    ST_BOOL(fixed_translation, fix_all, "fixAll", "false",
            "filter all the DOF to implement a fixed object"),
    ST_IGNORED(fixed_translation, draw_size, "drawSize", ST_T_REAL, double, "0",
               "Size of the rendered particles (0 -> point based rendering, >0 -> radius of "
               "spheres)"),
    ST_IGNORED(fixed_translation, coordinates, "coordinates", ST_T_VEC3S, st_array, NULL,
               "Coordinates of the fixed points"),
    PROJ_F_COMMON(fixed_translation, ),
    ST_FIELD_END};

static const char *const ft_aliases[] = {"FixedTranslationConstraint", NULL};
static const char *const ft_templates[] = {"Rigid3d", NULL};

const st_class fixed_translation_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "FixedTranslationProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Attach given rigids to their initial positions but they still can have "
                   "rotations",
    .aliases = ft_aliases,
    .instance_size = sizeof(fixed_translation),
    .fields = ft_fields,
    .init = ft_init,
    .projective = &ft_ops,
    .templates = ft_templates,
};
