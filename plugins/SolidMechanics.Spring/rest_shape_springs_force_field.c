/* rest_shape_springs_force_field.c - RestShapeSpringsForceField: each
 * controlled point is pulled back to its rest position (its state's
 * rest_position, or the position of the external_rest_shape state):
 *   f_p -= k_i (x_p - x0_q), with the inactive directions zeroed,
 * k_i = stiffness[i] if i < |stiffness| else stiffness[0]; points empty
 * means every point; stiffness empty means [100].
 *
 * Deviation from SOFA, on purpose: SOFA's assembled stiffness matrix
 * (buildStiffnessMatrix) indexes `stiffness` by the vertex index instead of
 * the point's rank and ignores activeDirections, so it disagrees with its
 * own addDForce when `points` is not 0..n-1 with several stiffnesses or when
 * a direction is inactive. Here the matrix is exactly the Jacobian that
 * add_dforce applies (they agree with SOFA whenever SOFA agrees with itself).
 *
 * Rigid3d (SOFA's specialisation): the centre is pulled as a Vec3d point;
 * the orientation by a torque -angularStiffness * angle * axis, with
 * (axis, angle) of q q0^-1 (normalised, taken with w >= 0); its stiffness
 * is -angularStiffness on the angular diagonal. angularStiffness is padded
 * to the size of stiffness with 100 (or cut to it). activeDirections has
 * one flag per coordinate component (3 for Vec3d, 1 for Vec1d; 7 for
 * Rigid3d as in SOFA, of which the first 6 are used: linear then angular).
 * Vec1d (SOFA's third template) pulls the one coordinate the same way. */
#include <string.h>

#include "springs.h"

typedef struct rest_shape_ff {
    st_component base;
    st_array points;            /* "points" */
    st_array stiffness;         /* "stiffness" */
    st_array angular_stiffness; /* "angularStiffness" (Rigid3d) */
    st_array pivot_points;      /* "pivot_points" (rigid only; kept) */
    st_array external_points;   /* "external_points" */
    bool recompute_indices;     /* "recompute_indices" */
    bool draw_spring;           /* "drawSpring" */
    st_vec4 spring_color;       /* "springColor" */
    st_array active_directions; /* "activeDirections": non-zero = active */
    bool active[6];             /* per derivative component, from activeDirections */
    bool listed;                /* points was not empty at init */
    double rayleigh_stiffness;
    st_component *external_rest_shape;
    st_component *mstate;       /* "mstate" */
    st_component *topology;
    st_component *followed;      /* the topology whose changes `points` follows */
    st_mstate *ms, *ext;
} rest_shape_ff;

/* After a change: SOFA reads an empty `points` as every point, so a list
 * whose points were all removed now holds the whole state. Kept, and said. */
static st_status rs_topology_changed(st_component *self, st_component *topology,
                                     const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev, (void)err;
    rest_shape_ff *r = (rest_shape_ff *)self;
    if (r->listed && r->points.n == 0) {
        st_component_warn(self, "every point listed in 'points' was removed: as in SOFA, an "
                                "empty list means every point, so the springs now hold all %zu "
                                "points of the state",
                          r->ms ? r->ms->n : (size_t)0);
        r->listed = false;
    }
    return ST_OK;
}

/* SOFA's `points` is a TopologySubsetIndices of the topology (the link, else
 * the first one up the tree): a removed point leaves the list, the point
 * renumbered into its place is renamed. */
static st_status rs_follow(rest_shape_ff *r, st_error *err)
{
    st_component *topo = r->topology;
    if (!topo || !topo->cls->topology || topo == r->followed)
        return ST_OK;
    ST_TRY(st_topology_follow_subset(&r->base, "points", topo, ST_ELEM_POINT, err));
    ST_TRY(st_topology_listen(&r->base, topo, rs_topology_changed, err));
    r->followed = topo;
    return ST_OK;
}

static st_status rs_init(st_component *self, st_error *err)
{
    rest_shape_ff *r = (rest_shape_ff *)self;
    r->ms = st_component_mstate(self);
    if (!r->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors "
                                  "(RestShapeSpringsForceField needs one)");
    if (r->stiffness.n == 0) {
        ST_TRY(st_array_resize(&r->stiffness, ST_T_REALS, 1, err));
        r->stiffness.r[0] = 100.0;
    }
    for (size_t i = 0; i < r->stiffness.n; i++)
        if (r->stiffness.r[i] < 0)
            st_component_warn(self, "stiffness[%zu] = %g is negative: the spring pushes away",
                              i, r->stiffness.r[i]);
    r->ext = NULL;
    if (r->external_rest_shape) {
        if (!st_component_has_role(r->external_rest_shape, ST_ROLE_STATE))
            return st_component_error(self, "external_rest_shape", err, ST_ELINK,
                                      "external_rest_shape must link a MechanicalObject, not a %s",
                                      r->external_rest_shape->cls->name);
        r->ext = (st_mstate *)r->external_rest_shape;
    }
    if (!r->topology)
        r->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    r->listed = r->points.n > 0;
    const st_state_type *t = r->ms->type;
    if (r->ext && r->ext->type != t)
        return st_component_error(self, "external_rest_shape", err, ST_ESCENE,
                                  "the external state '%s' is %s, the controlled state %s",
                                  r->ext->base.name, r->ext->type->name, t->name);
    /* activeDirections: one flag per coordinate component (unset: all). */
    const st_array *ad = &r->active_directions;
    if (ad->n && ad->n != t->coord_size && !(t->rigid && ad->n == t->deriv_size))
        return st_component_error(self, "activeDirections", err, ST_ESCENE,
                                  "expects %u values for %s, got %zu", t->coord_size, t->name,
                                  ad->n);
    for (unsigned a = 0; a < 6; a++)
        r->active[a] = ad->n == 0 || (a < ad->n && ad->r[a] != 0.0);
    if (t->rigid) {
        size_t old = r->angular_stiffness.n;
        ST_TRY(st_array_resize(&r->angular_stiffness, ST_T_REALS, r->stiffness.n, err));
        for (size_t i = old; i < r->stiffness.n; i++)
            r->angular_stiffness.r[i] = 100.0;
    }
    size_t n = r->ms->n;
    size_t np = r->points.n ? r->points.n : n;
    for (size_t i = 0; i < r->points.n; i++)
        if (r->points.u[i] >= n)
            return st_component_error(self, "points", err, ST_EINVAL,
                                      "Out of Bounds points: index %u, the state has %zu points",
                                      r->points.u[i], n);
    if (r->ext) {
        size_t ne = r->ext->n;
        size_t nx = r->external_points.n ? r->external_points.n : ne;
        for (size_t i = 0; i < r->external_points.n; i++)
            if (r->external_points.u[i] >= ne)
                return st_component_error(self, "external_points", err, ST_EINVAL,
                                          "Out of Bounds external_points: index %u, the external "
                                          "state has %zu points",
                                          r->external_points.u[i], ne);
        if (nx != np)
            return st_component_error(self, "external_points", err, ST_EINVAL,
                                      "Dimensions of the source and the targeted points are "
                                      "different: %zu points and %zu external points",
                                      np, nx);
    }
    return rs_follow(r, err);
}

/* The i-th controlled point, its reference point and its stiffness. */
static inline size_t rs_point(const rest_shape_ff *r, size_t i)
{
    return r->points.n ? r->points.u[i] : i;
}

static inline size_t rs_count(const rest_shape_ff *r)
{
    return r->points.n ? r->points.n : r->ms->n;
}

static inline double rs_k(const rest_shape_ff *r, size_t i)
{
    return r->stiffness.r[i < r->stiffness.n ? i : 0];
}

static inline double rs_ka(const rest_shape_ff *r, size_t i)
{
    return r->angular_stiffness.r[i < r->angular_stiffness.n ? i : 0];
}

/* The translational components of a point: 3 for Rigid3d, the coordinate
 * size otherwise (Vec1d: 1). */
static inline unsigned rs_nt(const rest_shape_ff *r)
{
    return r->ms->type->rigid ? 3u : r->ms->type->coord_size;
}

/* The reference coordinates: the external state's positions or the rest. */
static inline const double *rs_ref(const rest_shape_ff *r)
{
    return r->ext ? r->ext->position.r : r->ms->rest_position.r;
}

/* Axis times angle of the rotation taking q0 to q (SOFA's quatToAxis of
 * q q0^-1 after normalisation, w >= 0), inactive axes zeroed. */
static void rs_rotation(const rest_shape_ff *r, const double *q, const double *q0, double out[3])
{
    const double inv[4] = {-q0[0], -q0[1], -q0[2], q0[3]};
    double dq[4], axis[3] = {0, 0, 0}, angle = 0.0;
    st_quat_mul(dq, q, inv);
    st_quat_normalize(dq);
    if (dq[3] < 0.0)
        for (int a = 0; a < 4; a++)
            dq[a] = -dq[a];
    if (dq[3] < 1.0)
        st_quat_to_axis(dq, axis, &angle);
    for (int a = 0; a < 3; a++)
        out[a] = r->active[3 + a] ? axis[a] * angle : 0.0;
}

static void rs_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)v;
    rest_shape_ff *r = (rest_shape_ff *)self;
    double *fs = st_slice(f, r->ms);
    const double *xs = st_slice_x(x, r->ms), *x0 = rs_ref(r);
    const unsigned cw = r->ms->type->coord_size, dw = r->ms->type->deriv_size, nt = rs_nt(r);
    size_t n = rs_count(r);
    for (size_t i = 0; i < n; i++) {
        size_t p = rs_point(r, i);
        size_t q = p;
        if (r->ext)
            q = r->external_points.n ? r->external_points.u[i] : i;
        double k = rs_k(r, i);
        for (unsigned a = 0; a < nt; a++) {
            double dx = xs[cw * p + a] - x0[cw * q + a];
            if (!r->active[a])
                dx = 0;
            fs[dw * p + a] -= dx * k;
        }
        if (r->ms->type->rigid) {
            double rot[3];
            rs_rotation(r, xs + cw * p + 3, x0 + cw * q + 3, rot);
            double ka = rs_ka(r, i);
            for (int a = 0; a < 3; a++)
                fs[dw * p + 3 + a] -= rot[a] * ka;
        }
    }
}

static void rs_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    rest_shape_ff *r = (rest_shape_ff *)self;
    double *dfs = st_slice(df, r->ms);
    const double *dxs = st_slice(dx, r->ms);
    const unsigned dw = r->ms->type->deriv_size, nt = rs_nt(r);
    size_t n = rs_count(r);
    for (size_t i = 0; i < n; i++) {
        size_t p = rs_point(r, i);
        double k = rs_k(r, i);
        for (unsigned a = 0; a < nt; a++) {
            double d = r->active[a] ? dxs[dw * p + a] : 0.0;
            dfs[dw * p + a] -= d * k * kfactor;
        }
        if (r->ms->type->rigid) {
            double ka = rs_ka(r, i);
            for (int a = 3; a < 6; a++) {
                double d = r->active[a] ? dxs[dw * p + a] : 0.0;
                dfs[dw * p + a] -= d * ka * kfactor;
            }
        }
    }
}

static void rs_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    rest_shape_ff *r = (rest_shape_ff *)self;
    size_t n = rs_count(r);
    for (size_t i = 0; i < n; i++) {
        size_t p = rs_point(r, i);
        const unsigned dw = r->ms->type->deriv_size;
        double vt = -kfactor * rs_k(r, i);
        double vr = r->ms->type->rigid ? -kfactor * rs_ka(r, i) : 0.0;
        double b[36] = {0};
        for (unsigned a = 0; a < dw; a++)
            b[(dw + 1) * a] = r->active[a] ? (a < 3 ? vt : vr) : 0.0;
        st_matrix_add_block(m, r->ms, p, r->ms, p, b);
    }
}

static double rs_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    rest_shape_ff *r = (rest_shape_ff *)self;
    const double *xs = st_slice_x(x, r->ms), *x0 = rs_ref(r);
    const unsigned cw = r->ms->type->coord_size, nt = rs_nt(r);
    double e = 0;
    size_t n = rs_count(r);
    for (size_t i = 0; i < n; i++) {
        size_t p = rs_point(r, i), q = p;
        if (r->ext)
            q = r->external_points.n ? r->external_points.u[i] : i;
        double s = 0;
        for (unsigned a = 0; a < nt; a++) {
            double d = r->active[a] ? xs[cw * p + a] - x0[cw * q + a] : 0.0;
            s += d * d;
        }
        e += 0.5 * rs_k(r, i) * s;
        if (r->ms->type->rigid) {
            double rot[3];
            rs_rotation(r, xs + cw * p + 3, x0 + cw * q + 3, rot);
            e += 0.5 * rs_ka(r, i) * (rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2]);
        }
    }
    return e;
}

static double rs_rayleigh(const st_component *self)
{
    return ((const rest_shape_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops rs_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = rs_add_force,
    .add_dforce = rs_add_dforce,
    .add_k_to_matrix = rs_add_k,
    .potential_energy = rs_energy,
    .rayleigh_stiffness = rs_rayleigh,
};

static const st_field rs_fields[] = {
    ST_UINTS(rest_shape_ff, points, "points",
             NULL, "points controlled by the rest shape springs (empty: all points)"),
    ST_REALS(rest_shape_ff, stiffness, "stiffness", NULL,
             "stiffness values between the actual position and the rest shape position (one, or "
             "one per point; empty: 100)"),
    ST_REALS(rest_shape_ff, angular_stiffness, "angularStiffness", NULL,
             "angularStiffness assigned when controlling the rotation of the points (Rigid3d; "
             "padded to the size of stiffness with 100)"),
    ST_IGNORED(rest_shape_ff, pivot_points, "pivot_points", ST_T_VEC3S, st_array, NULL,
               "global pivot points used when translations instead of the rigid mass centers "
               "(rigid states only)"),
    ST_UINTS(rest_shape_ff, external_points, "external_points", NULL,
             "points from the external Mechanical State that define the rest shape springs"),
    ST_IGNORED(rest_shape_ff, recompute_indices, "recompute_indices", ST_T_BOOL, bool, "true",
               "Recompute indices (should be false for BBOX); settee reads the current points "
               "at every step, which gives the same springs unless points change"),
    ST_IGNORED(rest_shape_ff, draw_spring, "drawSpring", ST_T_BOOL, bool, "false", "draw Spring"),
    ST_FIELD_EX(rest_shape_ff, spring_color, "springColor", ST_T_RGBA, st_vec4, "0 1 0 1",
                "spring color", ST_F_IGNORED, NULL, 0.0, 0.0),
    ST_REALS(rest_shape_ff, active_directions, "activeDirections", NULL,
             "Directions in which the spring is active (1) or not (0): one per coordinate "
             "component (3 for Vec3d, 1 for Vec1d, 7 for Rigid3d: translation, then rotation); "
             "unset: all"),
    SPRING_F_RAYLEIGH(rest_shape_ff),
    ST_LINK(rest_shape_ff, external_rest_shape, "external_rest_shape", ST_LINK_STATE,
            "rest_shape can be defined by the position of an external Mechanical State"),
    ST_LINK(rest_shape_ff, mstate, "mstate", ST_LINK_STATE,
            "MechanicalState used by this component (default: the node's, else the nearest "
            "ancestor's)"),
    ST_LINK(rest_shape_ff, topology, "topology", ST_LINK_TOPOLOGY,
            "Link to be set to the topology container in the component graph"),
    ST_FIELD_END};

static const char *const rs_templates[] = {"Vec3d", "Vec1d", "Rigid3d", NULL};

const st_class rest_shape_springs_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "RestShapeSpringsForceField",
    .category = "ForceField",
    .description = "Springs pulling points back to their rest (or an external) position",
    .instance_size = sizeof(rest_shape_ff),
    .fields = rs_fields,
    .init = rs_init,
    .forcefield = &rs_ops,
    .templates = rs_templates,
};
