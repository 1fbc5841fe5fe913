/* subspace_common.c - what LineProjectiveConstraint, PlaneProjectiveConstraint
 * and DirectionProjectiveConstraint share: each point of `indices` keeps
 * only the part of its motion inside a subspace S (a line's direction n, or
 * a plane's tangent space), through the orthogonal projector P:
 *
 *   line, direction: P = n n^T        plane: P = I - n n^T
 *
 * Responses and velocities become P v at those points; positions are moved
 * onto the affine subspace through an anchor a (the line's or plane's
 * origin, or for a direction each point's position at init):
 *   x <- a + P (x - a).
 * On an assembled matrix the exact counterpart of these projections is
 * P A P + (I - P) restricted to the points. settee can build it when n lies
 * along a coordinate axis: P is then diagonal with 0/1 entries, and the
 * constrained scalar DOFs get their rows and columns cleared with a unit
 * diagonal. For any other direction the matrix is left as it is, which is
 * what SOFA's assembled linear systems do for these classes (they implement
 * no matrix projection); matrix-free (CG) and explicit solvers project
 * exactly in every case. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "projective.h"

/* Reads an optional spatial vector field (n values, or none: zero). */
static st_status read_vec(st_component *self, const char *field, const st_array *a, unsigned dim,
                          double out[3], st_error *err)
{
    out[0] = out[1] = out[2] = 0.0;
    if (a->n == 0)
        return ST_OK;
    if (a->n != dim)
        return st_component_error(self, field, err, ST_ESCENE,
                                  "expects %u values (a point of the state's space), got %zu", dim,
                                  a->n);
    for (unsigned k = 0; k < dim; k++)
        out[k] = a->r[k];
    return ST_OK;
}

/* After a change of a DirectionProjectiveConstraint's topology: SOFA keeps
 * its anchors (m_origin) in the order of the list at init while the list
 * follows the topology, so an anchor may now belong to another point. The
 * same here, and said once. anchor_pts follows the points (a removed point
 * becomes UINT_MAX, the last point moved into a hole gets its number), so
 * that each anchor's point is known in the current numbering. */
static st_status direction_changed(st_component *self, st_component *topology,
                                   const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)err;
    subspace *s = (subspace *)self;
    if (!s->anchor_pts)
        return ST_OK;
    for (size_t e = 0; e < nev; e++) {
        if (ev[e].change != ST_TOPO_REMOVED || ev[e].elem != ST_ELEM_POINT)
            continue;
        for (size_t k = 0; k < ev[e].n; k++) {
            unsigned gone = ev[e].index[k], last = (unsigned)(ev[e].before - 1 - k);
            for (size_t i = 0; i < s->nanchors; i++)
                s->anchor_pts[i] = s->anchor_pts[i] == gone   ? UINT_MAX
                                   : s->anchor_pts[i] == last ? gone
                                                              : s->anchor_pts[i];
        }
    }
    size_t n = s->indices.n < s->nanchors ? s->indices.n : s->nanchors;
    for (size_t i = 0; i < n && !s->told_anchors; i++) {
        if (s->indices.u[i] == s->anchor_pts[i])
            continue;
        char from[64];
        if (s->anchor_pts[i] == UINT_MAX)
            snprintf(from, sizeof from, "a point since removed");
        else
            snprintf(from, sizeof from, "point %u", s->anchor_pts[i]);
        st_component_warn(self, "after the topological change, point %u takes the anchor of "
                                "the list's place %zu, taken at init from %s: as in SOFA (its "
                                "m_origin keeps the list's order), it is now projected onto the "
                                "line through that initial position",
                          s->indices.u[i], i, from);
        s->told_anchors = true;
    }
    return ST_OK;
}

st_status subspace_init(subspace *s, int kind, st_error *err)
{
    st_component *self = &s->base;
    s->kind = kind;
    ST_TRY(projective_check_mstate(self, s->mstate, err));
    s->ms = st_component_mstate(self);
    if (!s->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mstate: no MechanicalObject in this node or its "
                                  "ancestors to project");
    if (!s->topology)
        s->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    unsigned dim = s->ms->type->spatial_size;
    s->dim = dim;
    /* Invalid indices are dropped with an error message, as SOFA's init. */
    size_t n = s->ms->n, k = 0;
    for (size_t i = 0; i < s->indices.n; i++) {
        if (s->indices.u[i] >= n) {
            st_component_warn(self, "Index %u not valid! (the state has %zu points); it is removed",
                              s->indices.u[i], n);
            continue;
        }
        s->indices.u[k++] = s->indices.u[i];
    }
    if (k != s->indices.n) {
        s->indices.n = k;
        st_component_touch(self, st_component_field(self, "indices"));
    }
    const char *dir_field = kind == SUBSPACE_PLANE ? "normal" : "direction";
    ST_TRY(read_vec(self, "origin", &s->origin_f, dim, s->o, err));
    ST_TRY(read_vec(self, dir_field, &s->dir_f, dim, s->n, err));
    double len = 0.0;
    for (unsigned a = 0; a < dim; a++)
        len += s->n[a] * s->n[a];
    len = sqrt(len);
    if (len == 0.0) {
        /* SOFA's fallbacks for a null vector: a line takes the x axis; a
         * plane and a direction set n[1] = 0, so n stays null (a plane then
         * lets the points move freely, a direction fixes them). */
        if (kind == SUBSPACE_LINE)
            s->n[0] = 1.0;
    } else {
        for (unsigned a = 0; a < dim; a++)
            s->n[a] /= len;
    }
    /* The normalised vector is written back, as SOFA does. */
    st_error ignored = {0};
    if (st_array_resize(&s->dir_f, ST_T_REALS, dim, &ignored) == ST_OK) {
        for (unsigned a = 0; a < dim; a++)
            s->dir_f.r[a] = s->n[a];
        st_component_touch(self, st_component_field(self, dir_field));
    }
    /* Which scalar DOFs the projector removes (I - P has 0/1 entries only
     * when n lies along an axis, or is null). */
    int nonzero = 0;
    for (unsigned a = 0; a < dim; a++)
        nonzero += s->n[a] != 0.0;
    s->axis_aligned = nonzero <= 1;
    for (unsigned a = 0; a < dim; a++) {
        bool along = s->n[a] != 0.0; /* P e_a = e_a for a line along a, 0 otherwise */
        s->removed[a] = kind == SUBSPACE_PLANE ? along : !along;
    }
    if (!s->axis_aligned)
        st_component_info(self,
                          "the %s is not along a coordinate axis: assembled (direct) "
                          "solvers see the matrix unprojected, as in SOFA; matrix-free and "
                          "explicit solvers project exactly",
                          kind == SUBSPACE_PLANE ? "normal" : "direction");
    if (kind == SUBSPACE_DIRECTION && (!s->anchors || s->nanchors != s->indices.n)) {
        /* Each point moves on the line through its position at the first
         * init (a reinit keeps them, as SOFA's). */
        st_free(s->anchors);
        s->nanchors = s->indices.n;
        s->anchors = st_calloc(3 * (s->indices.n ? s->indices.n : 1), sizeof *s->anchors);
        if (!s->anchors)
            return st_error_set(err, ST_ENOMEM, "out of memory for %zu points", s->indices.n);
        st_free(s->anchor_pts);
        s->anchor_pts = st_calloc(s->indices.n ? s->indices.n : 1, sizeof *s->anchor_pts);
        if (!s->anchor_pts)
            return st_error_set(err, ST_ENOMEM, "out of memory for %zu points", s->indices.n);
        unsigned c = s->ms->type->coord_size;
        for (size_t i = 0; i < s->indices.n; i++) {
            s->anchor_pts[i] = s->indices.u[i];
            for (unsigned a = 0; a < dim; a++)
                s->anchors[3 * i + a] = s->ms->position.r[(size_t)c * s->indices.u[i] + a];
        }
    }
    /* indices: SOFA's TopologySubsetIndices. A direction's anchors stay in
     * list order, as SOFA's m_origin (computed at init, not renumbered). */
    ST_TRY(projective_follow(self, s->topology, NULL, NULL, 0, err));
    if (kind == SUBSPACE_DIRECTION && s->topology && s->topology->cls->topology &&
        s->topology != s->followed) {
        ST_TRY(st_topology_listen(self, s->topology, direction_changed, err));
        s->followed = s->topology;
    }
    return ST_OK;
}

void subspace_cleanup(subspace *s)
{
    st_free(s->anchors);
    s->anchors = NULL;
    st_free(s->anchor_pts);
    s->anchor_pts = NULL;
}

/* v <- P v for a vector of dim components. */
static void project_vec(const subspace *s, double *v)
{
    double d = 0.0;
    for (unsigned a = 0; a < s->dim; a++)
        d += s->n[a] * v[a];
    for (unsigned a = 0; a < s->dim; a++)
        v[a] = s->kind == SUBSPACE_PLANE ? v[a] - d * s->n[a] : d * s->n[a];
}

void subspace_project_deriv(subspace *s, const st_mparams *mp, double *v)
{
    if (!s->ms || !projective_active(s->end_time, mp))
        return;
    double *vs = st_slice(v, s->ms);
    unsigned d = s->ms->type->deriv_size;
    for (size_t i = 0; i < s->indices.n; i++)
        project_vec(s, vs + (size_t)d * s->indices.u[i]);
}

void subspace_project_position(subspace *s, const st_mparams *mp, double *x)
{
    if (!s->ms || !projective_active(s->end_time, mp))
        return;
    double *xs = st_slice_x(x, s->ms);
    unsigned c = s->ms->type->coord_size;
    for (size_t i = 0; i < s->indices.n; i++) {
        double *p = xs + (size_t)c * s->indices.u[i];
        const double *a = s->kind == SUBSPACE_DIRECTION ? s->anchors + 3 * i : s->o;
        double r[3] = {0, 0, 0};
        for (unsigned k = 0; k < s->dim; k++)
            r[k] = p[k] - a[k];
        project_vec(s, r);
        for (unsigned k = 0; k < s->dim; k++)
            p[k] = a[k] + r[k];
    }
}

void subspace_apply_to_matrix(subspace *s, const st_mparams *mp, st_matrix *m)
{
    if (!s->ms || !s->axis_aligned || !projective_active(s->end_time, mp))
        return;
    for (size_t i = 0; i < s->indices.n; i++)
        for (unsigned a = 0; a < s->dim; a++)
            if (s->removed[a])
                st_matrix_project_dof(m, s->ms, s->indices.u[i], a);
}
