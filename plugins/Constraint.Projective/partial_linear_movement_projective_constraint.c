/* partial_linear_movement_projective_constraint.c -
 * PartialLinearMovementProjectiveConstraint (formerly
 * PartialLinearMovementConstraint): LinearMovementProjectiveConstraint
 * restricted to some directions, as SOFA's.
 *
 * With t the node's time and keys (keyTimes[k], movements[k]) in
 * chronological order, the motion acts while keyTimes[0] <= t and a key
 * time lies strictly after t, between the last key prevT <= t (prevM) and
 * the next one nextT (nextM): with m = prevM + (nextM - prevM)
 * (t - prevT)/(nextT - prevT), the moved directions j (movedDirections,
 * default all) of the points get x_j = x0_j + m_j, x0 the positions at the
 * first projection (init). With linearMovementBetweenNodesInIndices, x_j =
 * x0_j + N(x0) m_j instead, N the bilinear (2D: X0, Y0 or Z0 zero) or
 * trilinear blend of imposedDisplacmentOnMacroNodes over the box
 * [0, X0] x [0, Y0] (x [0, Z0]) (SOFA's shape functions N1..N8).
 * While acting: the responses of the moved directions are zeroed and the
 * velocities set, whole (SOFA's), to (nextM - prevM)/(nextT - prevT). An
 * assembled matrix always gets the moved directions' rows and columns
 * cleared with a unit diagonal (SOFA's applyConstraint). Defaults as
 * SOFA's: indices [0], keyTimes [0], movements [0]. Templates: Vec3d,
 * Vec2d, Vec1d (SOFA's Rigid3d and Vec6d instances are not provided). */
#include <string.h>

#include "projective.h"

typedef struct partial_lm {
    st_component base;
    st_array indices;       /* "indices", default [0] */
    st_array key_times;     /* "keyTimes", default [0] */
    st_array movements;     /* "movements", deriv[] */
    bool show_movement;     /* "showMovement" (drawing) */
    bool between_nodes;     /* "linearMovementBetweenNodesInIndices" */
    unsigned main_index;    /* "mainIndice" (unused by SOFA's computation) */
    unsigned min_dep;       /* "minDepIndice" (idem) */
    unsigned max_dep;       /* "maxDepIndice" (idem) */
    st_array macro;         /* "imposedDisplacmentOnMacroNodes" */
    double X0, Y0, Z0;      /* "X0", "Y0", "Z0" */
    st_array moved_f;       /* "movedDirections" */
    double end_time;        /* "endTime" */
    int group;              /* "group" (ignored) */
    st_component *topology; /* "topology" */
    st_component *mstate;   /* "mstate" */
    st_mstate *ms;          /* set by init */
    bool moved[3];
    double *x0; /* coordinates of every point at the first projection, owned */
} partial_lm;

static void plm_cleanup(st_component *self)
{
    partial_lm *c = (partial_lm *)self;
    st_free(c->x0);
    c->x0 = NULL;
}

static st_status plm_init(st_component *self, st_error *err)
{
    partial_lm *c = (partial_lm *)self;
    plm_cleanup(self);
    ST_TRY(projective_check_mstate(self, c->mstate, err));
    c->ms = st_component_mstate(self);
    if (!c->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mstate: no MechanicalObject in this node or its "
                                  "ancestors to constrain");
    if (!c->topology)
        c->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    unsigned d = c->ms->type->deriv_size;
    ST_TRY(projective_check_indices(self, &c->indices, c->ms->n, err));
    ST_TRY(projective_check_increasing(self, &c->key_times, err));
    if (c->movements.n != c->key_times.n)
        return st_component_error(self, "movements", err, ST_ESCENE,
                                  "%zu movements for %zu key times: give one movement per key "
                                  "time",
                                  c->movements.n, c->key_times.n);
    if (c->moved_f.n == 0) {
        for (unsigned a = 0; a < d; a++)
            c->moved[a] = true;
    } else if (c->moved_f.n != d) {
        return st_component_error(self, "movedDirections", err, ST_ESCENE,
                                  "expects %u values (one per derivative component), got %zu", d,
                                  c->moved_f.n);
    } else {
        for (unsigned a = 0; a < d; a++)
            c->moved[a] = c->moved_f.r[a] != 0.0;
    }
    if (c->between_nodes) {
        bool flat = c->X0 == 0.0 || c->Y0 == 0.0 || c->Z0 == 0.0;
        size_t need = flat ? 4 : 8;
        if (c->macro.n < need)
            return st_component_error(self, "imposedDisplacmentOnMacroNodes", err, ST_ESCENE,
                                      "needs %zu values (one per macro node), got %zu", need,
                                      c->macro.n);
        if (!flat && c->ms->type->coord_size < 3)
            return st_component_error(self, "Z0", err, ST_ESCENE,
                                      "the 3D blend needs Vec3d points");
    }
    c->x0 = st_calloc(c->ms->type->coord_size * (c->ms->n + 1), sizeof *c->x0);
    if (!c->x0)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu points", c->ms->n);
    if (c->ms->n)
        memcpy(c->x0, c->ms->position.r, c->ms->type->coord_size * c->ms->n * sizeof *c->x0);
    return ST_OK;
}

/* SOFA's findKeyTimes: the surrounding keys; true when the motion acts. */
static bool plm_keys(const partial_lm *c, double t, size_t *prev, size_t *next)
{
    size_t n = c->key_times.n;
    const double *kt = c->key_times.r;
    if (n == 0 || t < kt[0] || t > kt[n - 1])
        return false;
    *prev = 0;
    for (size_t k = 0; k < n; k++) {
        if (kt[k] <= t) {
            *prev = k;
        } else {
            *next = k;
            return kt[k] != kt[*prev];
        }
    }
    return false;
}

static bool plm_active(const partial_lm *c, const st_mparams *mp, size_t *prev, size_t *next)
{
    return c->ms && projective_active(c->end_time, mp) &&
           plm_keys(c, st_node_time(c->base.node), prev, next);
}

static void plm_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    partial_lm *c = (partial_lm *)self;
    size_t p, q;
    if (!plm_active(c, mp, &p, &q))
        return;
    unsigned d = c->ms->type->deriv_size;
    double *s = st_slice(dx, c->ms);
    for (size_t i = 0; i < c->indices.n; i++)
        for (unsigned a = 0; a < d; a++)
            if (c->moved[a])
                s[(size_t)d * c->indices.u[i] + a] = 0.0;
}

static void plm_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    partial_lm *c = (partial_lm *)self;
    size_t p, q;
    if (!plm_active(c, mp, &p, &q))
        return;
    unsigned d = c->ms->type->deriv_size;
    const double *kt = c->key_times.r, *pm = c->movements.r + d * p, *nm = c->movements.r + d * q;
    double *s = st_slice(v, c->ms);
    for (size_t i = 0; i < c->indices.n; i++)
        for (unsigned a = 0; a < d; a++)
            s[(size_t)d * c->indices.u[i] + a] = (nm[a] - pm[a]) * (1.0 / (kt[q] - kt[p]));
}

/* SOFA's shape-function blend of the macro displacements at x0. */
static double plm_blend(const partial_lm *c, const double *x0)
{
    const double *D = c->macro.r;
    double a = c->X0, b = c->Y0, cz = c->Z0;
    bool flat = a == 0.0 || b == 0.0 || cz == 0.0;
    if (a == 0.0) {
        a = b;
        b = cz;
    }
    if (b == 0.0)
        b = cz;
    double x = x0[0], y = x0[1];
    if (flat)
        return (1.0 / (a * b)) *
               ((a - x) * (b - y) * D[0] + x * (b - y) * D[1] + x * y * D[2] + (a - x) * y * D[3]);
    double z = x0[2];
    return (1.0 / (a * b * cz)) *
           ((a - x) * (b - y) * (cz - z) * D[0] + (a - x) * (b - y) * z * D[1] +
            x * (b - y) * z * D[2] + x * (b - y) * (cz - z) * D[3] + (a - x) * y * (cz - z) * D[4] +
            (a - x) * y * z * D[5] + x * y * z * D[6] + x * y * (cz - z) * D[7]);
}

static void plm_project_position(st_component *self, const st_mparams *mp, double *x)
{
    partial_lm *c = (partial_lm *)self;
    size_t p, q;
    if (!plm_active(c, mp, &p, &q))
        return;
    unsigned d = c->ms->type->deriv_size, cs = c->ms->type->coord_size;
    double t = st_node_time(self->node);
    const double *kt = c->key_times.r, *pm = c->movements.r + d * p, *nm = c->movements.r + d * q;
    double r = (t - kt[p]) / (kt[q] - kt[p]), m[3];
    for (unsigned a = 0; a < d; a++)
        m[a] = pm[a] + (nm[a] - pm[a]) * r;
    double *s = st_slice_x(x, c->ms);
    for (size_t i = 0; i < c->indices.n; i++) {
        size_t id = c->indices.u[i];
        const double *o = c->x0 + (size_t)cs * id;
        double w = c->between_nodes ? plm_blend(c, o) : 1.0;
        for (unsigned a = 0; a < d; a++)
            if (c->moved[a])
                s[(size_t)cs * id + a] = o[a] + w * m[a];
    }
}

static void plm_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    partial_lm *c = (partial_lm *)self;
    if (!c->ms || !projective_active(c->end_time, mp))
        return;
    for (size_t i = 0; i < c->indices.n; i++)
        for (unsigned a = 0; a < c->ms->type->deriv_size; a++)
            if (c->moved[a])
                st_matrix_project_dof(m, c->ms, c->indices.u[i], a);
}

static const st_projective_ops plm_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = plm_project_response,
    .project_velocity = plm_project_velocity,
    .project_position = plm_project_position,
    .apply_to_matrix = plm_apply_to_matrix,
};

static const st_field plm_fields[] = {
    ST_UINTS(partial_lm, indices, "indices", "0", "Indices of the constrained points"),
    ST_REALS(partial_lm, key_times, "keyTimes", "0", "key times for the movements"),
    ST_DERIVS(partial_lm, movements, "movements", "0 0 0",
              "movements corresponding to the key times"),
    ST_IGNORED(partial_lm, show_movement, "showMovement", ST_T_BOOL, bool, "false",
               "Visualization of the movement to be applied to constrained dofs."),
    ST_BOOL(partial_lm, between_nodes, "linearMovementBetweenNodesInIndices", "false",
            "Take into account the linear movement between the constrained points"),
    ST_IGNORED(partial_lm, main_index, "mainIndice", ST_T_UINT, unsigned, "0",
               "The main indice node in the list of constrained nodes, it defines how to apply "
               "the linear movement between this constrained nodes "),
    ST_IGNORED(partial_lm, min_dep, "minDepIndice", ST_T_UINT, unsigned, "0",
               "The indice node in the list of constrained nodes, which is imposed the minimum "
               "displacement "),
    ST_IGNORED(partial_lm, max_dep, "maxDepIndice", ST_T_UINT, unsigned, "0",
               "The indice node in the list of constrained nodes, which is imposed the maximum "
               "displacement "),
    ST_REALS(partial_lm, macro, "imposedDisplacmentOnMacroNodes", NULL,
             "The imposed displacement on macro nodes"),
    ST_REAL(partial_lm, X0, "X0", "0", "Size of specimen in X-direction"),
    ST_REAL(partial_lm, Y0, "Y0", "0", "Size of specimen in Y-direction"),
    ST_REAL(partial_lm, Z0, "Z0", "0", "Size of specimen in Z-direction"),
    ST_REALS(partial_lm, moved_f, "movedDirections", NULL,
             "Defines the directions in which the particles are moved: true (or 1) for fixed, "
             "false (or 0) for free (one per derivative component; unset: all)"),
    PROJ_F_COMMON(partial_lm, ),
    ST_FIELD_END};

static const char *const plm_aliases[] = {"PartialLinearMovementConstraint", NULL};
static const char *const plm_templates[] = {"Vec3d", "Vec2d", "Vec1d", NULL};

const st_class partial_linear_movement_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "PartialLinearMovementProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Impose a motion to given DOFs, in some directions only",
    .aliases = plm_aliases,
    .instance_size = sizeof(partial_lm),
    .fields = plm_fields,
    .init = plm_init,
    .cleanup = plm_cleanup,
    .projective = &plm_ops,
    .templates = plm_templates,
};
