/* patch_test_movement_projective_constraint.c -
 * PatchTestMovementProjectiveConstraint (formerly PatchTestMovementConstraint):
 * the listed points are carried from their initial positions x0 to
 * x0 + d(x0), d the bilinear (4 corners) or trilinear (8 corners)
 * interpolation of cornerMovements over the corners of the patch, between
 * two times, as SOFA's (a patch test: the border moves by an affine field,
 * the inside must follow exactly).
 *
 * Corners: cornerPoints as given, followed by the corners SOFA's init finds
 * among constrainedPoints (4, or 8 when their z differ), with SOFA's exact
 * selection rules. With c0, c1, c3 (and c4) the corners,
 *   a = |x - c0_x| / |c1_x - c0_x|,  b = |y - c0_y| / |c3_y - c0_y|,
 *   d = m0 (1-a)(1-b) + m1 a (1-b) + m2 a b + m3 (1-a) b        (4 corners)
 * and with g = |z - c0_z| / |c4_z - c0_z| the blend of the lower (m0..m3)
 * and upper (m4..m7) faces by 1-g and g (8 corners); with another number of
 * corners d = 0. The timing (beginConstraintTime, endConstraintTime, the
 * root's time) and the projections are AffineMovementProjectiveConstraint's:
 * see affine_movement_projective_constraint.c. x0 are the positions at
 * init. Vec3d only (SOFA's Rigid3d instance blends rigid coordinates
 * component by component, which settee does not reproduce). */
#include <math.h>
#include <string.h>

#include "projective.h"

typedef struct patch_test {
    st_component base;
    st_array mesh_indices;  /* "meshIndices" (used by SOFA's test helpers only) */
    st_array indices;       /* "indices" */
    double begin_time;      /* "beginConstraintTime" */
    double end_ctime;       /* "endConstraintTime" */
    st_array constrained;   /* "constrainedPoints", vec3[] */
    st_array movements;     /* "cornerMovements", vec3[] */
    st_array corner_points; /* "cornerPoints", vec3[] */
    bool draw_points;       /* "drawConstrainedPoints" (drawing) */
    double end_time;        /* "endTime" */
    int group;              /* "group" (ignored) */
    st_component *topology; /* "topology" */
    st_component *mstate;   /* "mstate" */
    st_mstate *ms;          /* set by init */
    double (*corners)[3];   /* cornerPoints then the corners found, owned */
    double (*moves)[3];     /* cornerMovements, zeros past its end, owned */
    size_t ncorners;
    double *x0, *xf; /* 3 per point, owned */
} patch_test;

static void pt_cleanup(st_component *self)
{
    patch_test *c = (patch_test *)self;
    st_free(c->corners);
    st_free(c->moves);
    c->moves = NULL;
    st_free(c->x0);
    st_free(c->xf);
    c->corners = NULL;
    c->x0 = c->xf = NULL;
    c->ncorners = 0;
}

/* SOFA's findCornerPoints, rule for rule (the conditions are SOFA's, odd
 * as some are: they decide which constrained point becomes which corner). */
static size_t find_corners(const st_array *cp, double out[8][3])
{
    if (cp->n == 0)
        return 0;
    const double *p0 = cp->r;
    bool in3d = false;
    for (size_t i = 0; i < cp->n; i++)
        if (cp->r[3 * i + 2] != p0[2])
            in3d = true;
    const double *c[8];
    for (int k = 0; k < 8; k++)
        c[k] = p0;
    for (size_t i = 0; i < cp->n; i++) {
        const double *p = cp->r + 3 * i;
        if (p[0] < c[0][0] || p[1] < c[0][1] || p[2] < c[0][2])
            c[0] = p;
        if (p[0] > c[2][0] || p[1] > c[2][1] || p[2] < c[2][2])
            c[2] = p;
        if (p[1] < c[1][1] || p[0] > c[1][0] || p[2] < c[1][2])
            c[1] = p;
        if (p[0] < c[3][0] || p[1] > c[3][1] || p[2] < c[3][2])
            c[3] = p;
        if (in3d && (p[0] < c[4][0] || p[1] < c[4][1] || p[2] > c[0][2]))
            c[4] = p;
        if (in3d && (p[0] > c[6][0] || p[1] > c[6][1] || p[2] > c[2][2]))
            c[6] = p;
        if (in3d && (p[1] < c[5][1] || p[0] > c[5][0] || p[2] > c[5][2]))
            c[5] = p;
        else if (in3d && (p[0] < c[7][0] || p[1] > c[7][1] || p[2] > c[7][2]))
            c[7] = p;
    }
    size_t n = in3d ? 8 : 4;
    for (size_t k = 0; k < n; k++)
        memcpy(out[k], c[k], sizeof out[k]);
    return n;
}

/* The interpolated displacement at point x. */
static void displacement(const patch_test *c, const double *x, double d[3])
{
    d[0] = d[1] = d[2] = 0.0;
    if (c->ncorners != 4 && c->ncorners != 8)
        return;
    const double *c0 = c->corners[0], *c1 = c->corners[1], *c3 = c->corners[3];
    const double *m = c->moves[0];
    double a = fabs(x[0] - c0[0]) / fabs(c1[0] - c0[0]);
    double b = fabs(x[1] - c0[1]) / fabs(c3[1] - c0[1]);
    double g = 0.0;
    if (c->ncorners == 8)
        g = fabs(x[2] - c0[2]) / fabs(c->corners[4][2] - c0[2]);
    double w[4] = {(1 - a) * (1 - b), a * (1 - b), a * b, (1 - a) * b};
    for (int k = 0; k < 3; k++) {
        double lo = 0.0, hi = 0.0;
        for (int j = 0; j < 4; j++) {
            lo += m[3 * j + k] * w[j];
            if (c->ncorners == 8)
                hi += m[3 * (4 + j) + k] * w[j];
        }
        d[k] = c->ncorners == 8 ? lo * (1 - g) + hi * g : lo;
    }
}

static st_status pt_init(st_component *self, st_error *err)
{
    patch_test *c = (patch_test *)self;
    pt_cleanup(self);
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
    double found[8][3];
    size_t nf = find_corners(&c->constrained, found);
    c->ncorners = c->corner_points.n + nf;
    c->corners = st_calloc(c->ncorners + 1, sizeof *c->corners);
    c->x0 = st_calloc(3 * (c->indices.n + 1), sizeof *c->x0);
    c->xf = st_calloc(3 * (c->indices.n + 1), sizeof *c->xf);
    if (!c->corners || !c->x0 || !c->xf)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu points", c->indices.n);
    if (c->corner_points.n)
        memcpy(c->corners, c->corner_points.r, 3 * c->corner_points.n * sizeof(double));
    memcpy(c->corners + c->corner_points.n, found, nf * sizeof found[0]);
    /* Fewer movements than corners: SOFA reads past the end of its list
     * (undefined behaviour, whatever memory follows); settee takes zero for
     * the missing ones, and says so. */
    c->moves = st_calloc(c->ncorners > c->movements.n ? c->ncorners + 1 : c->movements.n + 1,
                         sizeof *c->moves);
    if (!c->moves)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu corners", c->ncorners);
    if (c->movements.n)
        memcpy(c->moves, c->movements.r, 3 * c->movements.n * sizeof(double));
    if ((c->ncorners == 4 || c->ncorners == 8) && c->movements.n < c->ncorners && c->indices.n)
        st_component_warn_field(self, "cornerMovements",
                                "%zu corners need %zu corner movements, got %zu: corners %zu to "
                                "%zu do not move (SOFA reads past the end of the list there, "
                                "an undefined result)",
                                c->ncorners, c->ncorners, c->movements.n, c->movements.n,
                                c->ncorners - 1);
    if (c->indices.n && c->ncorners != 4 && c->ncorners != 8)
        st_component_warn(self, "%zu corner points (expected 4 or 8): the points do not move",
                          c->ncorners);
    for (size_t i = 0; i < c->indices.n; i++) {
        const double *x = c->ms->position.r + 3 * (size_t)c->indices.u[i];
        double d[3];
        displacement(c, x, d);
        for (int a = 0; a < 3; a++) {
            c->x0[3 * i + a] = x[a];
            c->xf[3 * i + a] = x[a] + d[a];
        }
    }
    return ST_OK;
}

static void pt_zero(st_component *self, const st_mparams *mp, double *v)
{
    patch_test *c = (patch_test *)self;
    if (c->ms && projective_active(c->end_time, mp))
        projective_zero_points(st_slice(v, c->ms), &c->indices);
}

static void pt_project_position(st_component *self, const st_mparams *mp, double *x)
{
    patch_test *c = (patch_test *)self;
    if (!c->ms || !projective_active(c->end_time, mp))
        return;
    double t = st_node_time(st_node_root(self->node));
    double *s = st_slice_x(x, c->ms);
    for (size_t i = 0; i < c->indices.n; i++)
        movement_blend(s + 3 * (size_t)c->indices.u[i], c->x0 + 3 * i, c->xf + 3 * i, 3, t,
                       c->begin_time, c->end_ctime);
}

static void pt_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    patch_test *c = (patch_test *)self;
    if (c->ms && projective_active(c->end_time, mp))
        projective_matrix_points(m, c->ms, &c->indices);
}

static const st_projective_ops pt_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = pt_zero,
    .project_velocity = pt_zero,
    .project_position = pt_project_position,
    .apply_to_matrix = pt_apply_to_matrix,
};

static const st_field pt_fields[] = {
    ST_UINTS(patch_test, mesh_indices, "meshIndices", NULL, "Indices of the mesh"),
    ST_UINTS(patch_test, indices, "indices", NULL, "Indices of the constrained points"),
    ST_REAL(patch_test, begin_time, "beginConstraintTime", "0",
            "Begin time of the bilinear constraint"),
    ST_REAL(patch_test, end_ctime, "endConstraintTime", "20",
            "End time of the bilinear constraint"),
    ST_VEC3S(patch_test, constrained, "constrainedPoints", NULL,
             "Coordinates of the constrained points"),
    ST_VEC3S(patch_test, movements, "cornerMovements", NULL,
             "movements of the corners of the grid"),
    ST_VEC3S(patch_test, corner_points, "cornerPoints", NULL,
             "corner points for computing constraint (those found among constrainedPoints are "
             "added after these)"),
    ST_IGNORED(patch_test, draw_points, "drawConstrainedPoints", ST_T_BOOL, bool, "false",
               "draw constrained points"),
    PROJ_F_COMMON(patch_test, ),
    ST_FIELD_END};

static const char *const pt_aliases[] = {"PatchTestMovementConstraint", NULL};

const st_class patch_test_movement_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "PatchTestMovementProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "bilinear constraint for patch test: the corners of a patch move by given "
                   "movements, the listed points by their interpolation",
    .aliases = pt_aliases,
    .instance_size = sizeof(patch_test),
    .fields = pt_fields,
    .init = pt_init,
    .cleanup = pt_cleanup,
    .projective = &pt_ops,
};
