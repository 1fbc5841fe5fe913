/* attach_projective_constraint.c - AttachProjectiveConstraint (formerly
 * AttachConstraint): point indices2[i] of object2 is attached to point
 * indices1[i] of object1, as SOFA's pair interaction projective constraint.
 *
 * What SOFA does, and settee with it (factors: positionFactor,
 * velocityFactor, responseFactor times constraintFactor[i], default 1):
 * Vec1d/Vec2d/Vec3d
 *  - position: x2 <- x2 - (x2 - x1) pf / 2 (x1 is not moved: SOFA moves a
 *    copy of it), unless minDistance != -1 and |x2 - x1| > minDistance,
 *    which releases the pair until a later projection finds it close;
 *  - velocity: both move by the half difference (v1 += c, v2 -= c with
 *    c = (v2 - v1) vf / 2);
 *  - response: dx2 <- 0, or with twoWay both by the half difference.
 * Rigid3d
 *  - position: the centre of x2 becomes x1's; the orientation too unless
 *    rotations are free (freeRotations, or lastFreeRotation for a pair whose
 *    next pair is inactive); with restRotations, x1's orientation times the
 *    rest offset computed at init from object2's rest shape (the rotation
 *    taking x to the direction to the next point), or a fraction of it
 *    while the next pair has passed lastPos;
 *  - velocity: v2 <- v1 (linear part only when rotations are free);
 *  - response: dx2 <- 0 (linear part only when rotations are free), or
 *    with twoWay dx1 <- dx1 + dx2, dx2 <- dx1.
 * With lastDir set (|lastDir| > 1e-10) a pair whose object1 point p has
 * (p - lastPos) . lastDir > 0 becomes inactive at the position projection:
 * it is left alone, or with clamp attached to lastPos (velocity and
 * response as for a still point). The pairs are the first
 * min(#indices1, #indices2).
 * Assembled matrices (one-way only, as SOFA): the constrained DOFs of
 * object2's points get their rows and columns cleared with a unit diagonal.
 * Unlike SOFA's, released pairs are skipped there, so that the matrix and
 * the response projection agree; with twoWay the matrix is left alone
 * (SOFA's too). Both objects must have the same type and be integrated by
 * the ODE solver whose subtree holds this constraint. */
#include <math.h>
#include <string.h>

#include "projective.h"

typedef struct attach {
    st_component base;
    st_array indices1, indices2; /* "indices1", "indices2" */
    bool two_way;                /* "twoWay" */
    bool free_rotations;         /* "freeRotations" */
    bool last_free_rotation;     /* "lastFreeRotation" */
    bool rest_rotations;         /* "restRotations" */
    st_vec3 last_pos, last_dir;  /* "lastPos", "lastDir" */
    bool clamp;                  /* "clamp" */
    double min_distance;         /* "minDistance" */
    double position_factor;      /* "positionFactor" */
    double velocity_factor;      /* "velocityFactor" */
    double response_factor;      /* "responseFactor" */
    st_array constraint_factor;  /* "constraintFactor" */
    double end_time;             /* "endTime" */
    int group;                   /* "group" (ignored) */
    st_component *object1, *object2;
    /* Set by init. */
    st_mstate *ms1, *ms2;
    size_t npairs;
    bool last;             /* lastDir is set and not null */
    bool *released;        /* npairs (SOFA's constraintReleased), owned */
    bool *active;          /* npairs (SOFA's activeFlags), owned */
    double *last_dist;     /* npairs when last, owned */
    double (*rest_rot)[4]; /* npairs when restRotations (Rigid3d), owned */
    int bound;             /* 0 unknown, 1 same system as the caller, -1 not */
} attach;

static void at_cleanup(st_component *self)
{
    attach *a = (attach *)self;
    st_free(a->released);
    st_free(a->active);
    st_free(a->last_dist);
    st_free(a->rest_rot);
    a->released = a->active = NULL;
    a->last_dist = NULL;
    a->rest_rot = NULL;
}

static st_status at_state(st_component *self, st_component *link, const char *field,
                          st_mstate **out, st_error *err)
{
    if (link) {
        if (!st_component_has_role(link, ST_ROLE_STATE))
            return st_component_error(self, field, err, ST_ELINK,
                                      "'%s' must link a MechanicalObject, not a %s", field,
                                      link->cls->name);
        *out = (st_mstate *)link;
        return ST_OK;
    }
    *out = st_component_mstate(self);
    if (!*out)
        return st_component_error(self, field, err, ST_ESCENE,
                                  "no MechanicalObject for '%s': link one or add one to the node",
                                  field);
    return ST_OK;
}

/* SOFA's rest offsets (Rigid3d): in x0's frame, the rotation about
 * d x (1 0 0) by acos(d_x), d the unit direction to the next point. */
static void rest_rotation(const double *x0, size_t n, size_t i, double q[4])
{
    q[0] = q[1] = q[2] = 0.0, q[3] = 1.0;
    if (i + 1 >= n)
        return;
    const double *a = x0 + 7 * i, *b = x0 + 7 * (i + 1);
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, inv[4] = {-a[3], -a[4], -a[5], a[6]};
    double dl[3];
    st_quat_rotate(dl, inv, d);
    double len = sqrt(dl[0] * dl[0] + dl[1] * dl[1] + dl[2] * dl[2]);
    if (len > 0)
        for (int k = 0; k < 3; k++)
            dl[k] /= len;
    double y[3] = {0, dl[2], -dl[1]}; /* dl x (1 0 0) */
    double yl = sqrt(y[1] * y[1] + y[2] * y[2]);
    if (yl < 2.2e-16)
        return;
    double half = acos(dl[0] > 1 ? 1 : dl[0] < -1 ? -1 : dl[0]) / 2;
    for (int k = 0; k < 3; k++)
        q[k] = y[k] / yl * sin(half);
    q[3] = cos(half);
}

static st_status at_init(st_component *self, st_error *err)
{
    attach *a = (attach *)self;
    at_cleanup(self);
    a->bound = 0;
    ST_TRY(at_state(self, a->object1, "object1", &a->ms1, err));
    ST_TRY(at_state(self, a->object2, "object2", &a->ms2, err));
    if (a->ms1->type != a->ms2->type)
        return st_component_error(self, "object2", err, ST_ESCENE,
                                  "object1 is %s and object2 is %s: both must have the same type",
                                  a->ms1->type->name, a->ms2->type->name);
    const st_array *i1 = &a->indices1, *i2 = &a->indices2;
    if (i1->n != i2->n)
        st_component_warn(self, "Size mismatch between indices1 and indices2 (%zu != %zu).", i1->n,
                          i2->n);
    for (size_t i = 0; i < i1->n; i++)
        if (i1->u[i] >= a->ms1->n)
            return st_component_error(self, "indices1", err, ST_ESCENE,
                                      "index %u is beyond the %zu points of object1", i1->u[i],
                                      a->ms1->n);
    for (size_t i = 0; i < i2->n; i++)
        if (i2->u[i] >= a->ms2->n)
            return st_component_error(self, "indices2", err, ST_ESCENE,
                                      "index %u is beyond the %zu points of object2", i2->u[i],
                                      a->ms2->n);
    const st_array *cf = &a->constraint_factor;
    if (cf->n && cf->n != i2->n)
        st_component_warn(self,
                          "Size of vector constraintFactor, do not fit number of indices "
                          "attached (%zu != %zu).",
                          cf->n, i2->n);
    for (size_t j = 0; cf->n == i2->n && j < cf->n; j++)
        if (cf->r[j] > 1.0 || cf->r[j] < 0.0)
            st_component_warn(self,
                              "Value of vector constraintFactor at indice %zu is out of "
                              "bounds [0.0 - 1.0]",
                              j);
    a->npairs = i1->n < i2->n ? i1->n : i2->n;
    size_t n2 = i2->n;
    a->released = st_calloc(n2 + 1, sizeof *a->released);
    a->active = st_calloc(n2 + 1, sizeof *a->active);
    if (!a->released || !a->active)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu pairs", n2);
    for (size_t i = 0; i < n2; i++)
        a->active[i] = true;
    a->last = st_component_is_set(self, "lastDir") &&
              sqrt(a->last_dir[0] * a->last_dir[0] + a->last_dir[1] * a->last_dir[1] +
                   a->last_dir[2] * a->last_dir[2]) > 1e-10;
    if (a->last && !(a->last_dist = st_calloc(n2 + 1, sizeof *a->last_dist)))
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu pairs", n2);
    if (a->rest_rotations && a->ms2->type->rigid) {
        a->rest_rot = st_calloc(n2 + 1, sizeof *a->rest_rot);
        if (!a->rest_rot)
            return st_error_set(err, ST_ENOMEM, "out of memory for %zu pairs", n2);
        for (size_t i = 0; i < n2; i++)
            rest_rotation(a->ms2->rest_position.r, a->ms2->n, i2->u[i], a->rest_rot[i]);
    }
    return ST_OK;
}

/* True when both objects are independent states of the system whose ODE
 * solver holds this constraint (the vectors passed are that system's). */
static bool at_bound(attach *a)
{
    if (a->bound)
        return a->bound > 0;
    st_system *s = a->ms1 ? a->ms1->system : NULL;
    bool ok = s && a->ms2->system == s && !a->ms1->mapped && !a->ms2->mapped;
    bool below = false;
    for (const st_node *n = a->base.node; ok && n && !below; n = st_node_parent(n))
        below = n == s->node;
    a->bound = ok && below ? 1 : -1;
    if (a->bound < 0)
        st_component_warn(&a->base, "object1 and object2 must be independent states integrated by "
                                    "the ODE solver above this constraint: it does nothing");
    return a->bound > 0;
}

static double at_factor(const attach *a, size_t i)
{
    return a->constraint_factor.n ? a->constraint_factor.r[i] : 1.0;
}

/* The rotations of pair i are free (SOFA reads the next pair's flag; past
 * the last pair, as inactive). */
static bool at_free_rot(const attach *a, size_t i)
{
    return a->free_rotations ||
           (a->last_free_rotation && (i + 1 >= a->npairs || !a->active[i + 1]));
}

/* Position of pair i: p is (a copy of) object1's coordinate, x2 object2's. */
static void at_position(attach *a, size_t i, double *p, double *x2, bool free_rot)
{
    const st_state_type *t = a->ms1->type;
    unsigned sp = t->spatial_size;
    double d2 = 0.0;
    for (unsigned k = 0; k < (t->rigid ? 3u : t->coord_size); k++)
        d2 += (x2[k] - p[k]) * (x2[k] - p[k]);
    if (a->min_distance != -1.0 && sqrt(d2) > a->min_distance) {
        a->released[i] = true;
        return;
    }
    a->released[i] = false;
    if (!t->rigid) {
        double s = 0.5 * a->position_factor * at_factor(a, i);
        for (unsigned k = 0; k < t->coord_size; k++)
            x2[k] -= (x2[k] - p[k]) * s;
        return;
    }
    for (unsigned k = 0; k < sp; k++)
        x2[k] = p[k];
    if (free_rot)
        return;
    if (!a->rest_rot) {
        memcpy(x2 + 3, p + 3, 4 * sizeof *x2);
        return;
    }
    const double *r = a->rest_rot[i];
    if (!a->last_dist || i + 1 >= a->npairs || a->active[i + 1]) {
        st_quat_mul(x2 + 3, p + 3, r);
        return;
    }
    /* The next pair is released: a fraction of the rest offset. */
    double fact = -a->last_dist[i] / (a->last_dist[i + 1] - a->last_dist[i]);
    double al = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), q[4] = {0, 0, 0, 1};
    if (al >= 2.2e-16) {
        double half = acos(r[3]) * fact;
        for (int k = 0; k < 3; k++)
            q[k] = r[k] / al * sin(half);
        q[3] = cos(half);
    }
    st_quat_mul(x2 + 3, p + 3, q);
}

static void at_project_position(st_component *self, const st_mparams *mp, double *x)
{
    attach *a = (attach *)self;
    if (!a->ms1 || !projective_active(a->end_time, mp) || !at_bound(a))
        return;
    unsigned cs = a->ms1->type->coord_size;
    double *x1 = st_slice_x(x, a->ms1), *x2 = st_slice_x(x, a->ms2);
    const unsigned *i1 = a->indices1.u, *i2 = a->indices2.u;
    for (size_t i = 0; i < a->npairs; i++) {
        bool act = true;
        if (a->last) {
            const double *p = x1 + (size_t)cs * i1[i];
            double d = 0.0;
            for (unsigned k = 0; k < 3; k++)
                d += ((k < a->ms1->type->spatial_size ? p[k] : 0.0) - a->last_pos[k]) *
                     a->last_dir[k];
            a->last_dist[i] = d;
            act = !(d > 0.0);
        }
        a->active[i] = act;
    }
    for (size_t i = 0; i < a->npairs; i++) {
        double p[7];
        memcpy(p, x1 + (size_t)cs * i1[i], cs * sizeof *p);
        if (a->active[i]) {
            at_position(a, i, p, x2 + (size_t)cs * i2[i], at_free_rot(a, i));
        } else if (a->clamp) {
            for (unsigned k = 0; k < a->ms1->type->spatial_size; k++)
                p[k] = a->last_pos[k];
            at_position(a, i, p, x2 + (size_t)cs * i2[i], a->free_rotations);
        }
    }
}

/* Velocity (response false) or response of pair i on d1 (object1's, or a
 * zero copy) and d2. */
static void at_deriv(attach *a, size_t i, double *d1, double *d2, bool free_rot, bool response,
                     bool two_way)
{
    if (a->released[i])
        return;
    const st_state_type *t = a->ms1->type;
    unsigned w = t->deriv_size, lin = t->rigid ? 3 : w;
    unsigned n = t->rigid && free_rot ? 3 : w;
    if (!t->rigid) {
        if (response && !two_way) {
            memset(d2, 0, w * sizeof *d2);
            return;
        }
        double s = 0.5 * (response ? a->response_factor : a->velocity_factor) * at_factor(a, i);
        for (unsigned k = 0; k < w; k++) {
            double c = (d2[k] - d1[k]) * s;
            d1[k] += c;
            d2[k] -= c;
        }
        return;
    }
    (void)lin;
    if (!response) {
        memcpy(d2, d1, n * sizeof *d2);
    } else if (!two_way) {
        memset(d2, 0, n * sizeof *d2);
    } else {
        for (unsigned k = 0; k < n; k++) {
            d1[k] += d2[k];
            d2[k] = d1[k];
        }
    }
}

static void at_project_derivs(attach *a, const st_mparams *mp, double *v, bool response)
{
    if (!a->ms1 || !projective_active(a->end_time, mp) || !at_bound(a))
        return;
    unsigned w = a->ms1->type->deriv_size;
    double *v1 = st_slice(v, a->ms1), *v2 = st_slice(v, a->ms2);
    const unsigned *i1 = a->indices1.u, *i2 = a->indices2.u;
    for (size_t i = 0; i < a->npairs; i++) {
        if (a->active[i]) {
            at_deriv(a, i, v1 + (size_t)w * i1[i], v2 + (size_t)w * i2[i], at_free_rot(a, i),
                     response, a->two_way);
        } else if (a->clamp) {
            double z[6] = {0};
            at_deriv(a, i, z, v2 + (size_t)w * i2[i], a->free_rotations, response, false);
        }
    }
}

static void at_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    at_project_derivs((attach *)self, mp, dx, true);
}

static void at_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    at_project_derivs((attach *)self, mp, v, false);
}

static void at_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    attach *a = (attach *)self;
    if (!a->ms1 || a->two_way || !projective_active(a->end_time, mp) || !at_bound(a))
        return;
    const st_state_type *t = a->ms2->type;
    unsigned nc = t->rigid && a->free_rotations ? 3 : t->deriv_size;
    unsigned ncl = t->rigid && a->last_free_rotation ? 3 : t->deriv_size;
    for (size_t i = 0; i < a->npairs; i++) {
        if (!a->clamp && !a->active[i])
            continue;
        if (a->released[i])
            continue;
        bool next_off = i + 1 >= a->npairs || !a->active[i + 1];
        unsigned n = ncl != nc && next_off ? ncl : nc;
        for (unsigned k = 0; k < n; k++)
            st_matrix_project_dof(m, a->ms2, a->indices2.u[i], k);
    }
}

static const st_projective_ops at_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = at_project_response,
    .project_velocity = at_project_velocity,
    .project_position = at_project_position,
    .apply_to_matrix = at_apply_to_matrix,
};

/* The pair flags change during the run. */
static st_status at_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    attach *a = (attach *)self;
    size_t n = a->indices2.n;
    if (!n)
        return ST_OK;
    ST_TRY(st_checkpoint_data(ck, a->released, n * sizeof *a->released, err));
    ST_TRY(st_checkpoint_data(ck, a->active, n * sizeof *a->active, err));
    if (a->last_dist)
        ST_TRY(st_checkpoint_data(ck, a->last_dist, n * sizeof *a->last_dist, err));
    return ST_OK;
}

static const st_checkpoint_ops at_checkpoint_ops = {.struct_size = sizeof(st_checkpoint_ops),
                                                    .transfer = at_checkpoint};

static const st_field at_fields[] = {
    ST_UINTS(attach, indices1, "indices1", NULL, "Indices of the source points on the first model"),
    ST_UINTS(attach, indices2, "indices2", NULL, "Indices of the fixed points on the second model"),
    ST_BOOL(attach, two_way, "twoWay", "false",
            "if true, projects the constraint vertices of both object1 and object2 towards their "
            "average degrees of freedom and derivatives. If false, the position of the object1 are "
            "projected onto the object2. Therefore, object2 only follows object1 without affecting "
            "the motion of object1"),
    ST_BOOL(attach, free_rotations, "freeRotations", "false",
            "true to keep rotations free (only used for Rigid DOFs)"),
    ST_BOOL(attach, last_free_rotation, "lastFreeRotation", "false",
            "true to keep rotation of the last attached point free (only used for Rigid DOFs)"),
    ST_BOOL(attach, rest_rotations, "restRotations", "false",
            "true to use rest rotations local offsets (only used for Rigid DOFs)"),
    ST_VEC3(attach, last_pos, "lastPos", "0 0 0",
            "position at which the attach constraint should become inactive"),
    ST_VEC3(attach, last_dir, "lastDir", "0 0 0",
            "direction from lastPos at which the attach coustraint should become inactive"),
    ST_BOOL(attach, clamp, "clamp", "false",
            "true to clamp particles at lastPos instead of freeing them."),
    ST_REAL(attach, min_distance, "minDistance", "-1",
            "the constraint become inactive if the distance between the points attached is bigger "
            "than minDistance."),
    ST_REAL(attach, position_factor, "positionFactor", "1",
            "IN: Factor applied to projection of position"),
    ST_REAL(attach, velocity_factor, "velocityFactor", "1",
            "IN: Factor applied to projection of velocity"),
    ST_REAL(attach, response_factor, "responseFactor", "1",
            "IN: Factor applied to projection of force/acceleration"),
    ST_REALS(attach, constraint_factor, "constraintFactor", NULL,
             "Vector of factors adapting the application of the constraint per pair of points (0 "
             "-> the constraint is released. 1 -> the constraint is fully constrained)"),
    ST_REAL(attach, end_time, "endTime", "-1",
            "The constraint stops acting after the given value. Use a negative value for infinite "
            "constraints"),
    ST_IGNORED(attach, group, "group", ST_T_INT, int, "0",
               "ID of the group containing this constraint (selects the constraint solver; "
               "settee's projective constraints are applied by the ODE solver)"),
    ST_LINK(attach, object1, "object1", ST_LINK_STATE,
            "First object to constrain (default: the MechanicalObject of the node, else of its "
            "nearest ancestor)"),
    ST_LINK(attach, object2, "object2", ST_LINK_STATE,
            "Second object to constrain (default: the MechanicalObject of the node, else of its "
            "nearest ancestor)"),
    ST_FIELD_END};

static const char *const at_aliases[] = {"AttachConstraint", NULL};
static const char *const at_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Rigid3d", NULL};

const st_class attach_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "AttachProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Attach given pair of particles, projecting the positions of the second "
                   "particles to the first ones",
    .aliases = at_aliases,
    .instance_size = sizeof(attach),
    .fields = at_fields,
    .init = at_init,
    .reinit = at_init,
    .cleanup = at_cleanup,
    .projective = &at_ops,
    .templates = at_templates,
    .checkpoint = &at_checkpoint_ops,
};
