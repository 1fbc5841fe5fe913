/* projective.h - the classes of the Constraint.Projective plugin and the
 * fixed-point data they share. Internal to the plugin. */
#ifndef PROJECTIVE_H
#define PROJECTIVE_H

#include <settee/settee.h>

/* Fields shared by FixedProjectiveConstraint and
 * PartialFixedProjectiveConstraint (SOFA's FixedProjectiveConstraint data). */
typedef struct fixed_common {
    st_component base;
    st_array indices;          /* "indices", uint[], default [0] */
    bool fix_all;              /* "fixAll" */
    bool show_object;          /* "showObject" */
    double draw_size;          /* "drawSize" */
    bool project_velocity;     /* "activate_projectVelocity" */
    double end_time;           /* "endTime": active while < 0 or > time */
    int group;                 /* "group" (ignored) */
    st_component *topology;    /* "topology" */
    st_component *mstate;      /* "mstate" */
    st_mstate *ms;             /* resolved at init */
} fixed_common;

/* Field fragments. P is the path of the members inside S ("c." for a
 * struct that embeds fixed_common, empty otherwise). */
/* SOFA's ProjectiveConstraintSet data: every projective constraint has them. */
#define PROJ_F_COMMON(S, P)                                                                       \
    ST_REAL(S, P end_time, "endTime", "-1",                                                       \
            "The constraint stops acting after the given value. Use a negative value for "        \
            "infinite constraints"),                                                              \
        ST_IGNORED(S, P group, "group", ST_T_INT, int, "0",                                       \
                   "ID of the group containing this constraint (selects the constraint solver; "  \
                   "settee's projective constraints are applied by the ODE solver)"),             \
        ST_LINK(S, P topology, "topology", ST_LINK_TOPOLOGY,                                      \
                "link to the topology container (default: the first topology found upward)"),    \
        ST_LINK(S, P mstate, "mstate", ST_LINK_STATE,                                             \
                "MechanicalState used by this component (default: the node's, else the "          \
                "nearest ancestor's)")
/* FixedProjectiveConstraint's own data; pv_flags marks activate_projectVelocity. */
#define FIXED_F_COMMON(S, P, pv_flags, pv_help)                                                   \
    ST_UINTS(S, P indices, "indices", "0", "Indices of the fixed points"),                        \
        ST_BOOL(S, P fix_all, "fixAll", "false", "filter all the DOF to implement a fixed object"),\
        ST_IGNORED(S, P show_object, "showObject", ST_T_BOOL, bool, "true",                       \
                   "draw or not the fixed constraints"),                                          \
        ST_IGNORED(S, P draw_size, "drawSize", ST_T_REAL, double, "0",                            \
                   "Size of the rendered particles (0 -> point based rendering, >0 -> radius of " \
                   "spheres)"),                                                                   \
        ST_FIELD_EX(S, P project_velocity, "activate_projectVelocity", ST_T_BOOL, bool, "false",  \
                    pv_help, pv_flags, NULL, 0.0, 0.0),                                           \
        PROJ_F_COMMON(S, P)

extern const st_class fixed_projective_constraint_class;
extern const st_class partial_fixed_projective_constraint_class;
extern const st_class fixed_plane_projective_constraint_class;
extern const st_class linear_movement_projective_constraint_class;
extern const st_class linear_velocity_projective_constraint_class;

/* True while a constraint with this endTime acts at the given time. */
static inline bool projective_active(double end_time, const st_mparams *mp)
{
    return end_time < 0 || end_time > (mp ? mp->time : 0.0);
}

/* Checks a projective constraint's "mstate" link (may be NULL): the state
 * must sit in the constraint's node or an ancestor, where the ODE solver
 * that applies the constraint also integrates it. */
static inline st_status projective_check_mstate(st_component *self, const st_component *link,
                                                st_error *err)
{
    if (!link)
        return ST_OK;
    for (const st_node *n = self->node; n; n = st_node_parent(n))
        if (n == link->node)
            return ST_OK;
    return st_component_error(self, "mstate", err, ST_ELINK,
                              "a state outside this constraint's node and its ancestors ('%s') "
                              "is not supported by settee yet",
                              link->name);
}

/* Init shared by the fixed constraints: finds the state and the topology,
 * drops indices outside the state with a warning. */
st_status fixed_common_init(fixed_common *c, st_error *err);

/* Helpers of the key-time constraints (linear_common.c). An index beyond
 * the state's n points is an error at "indices". */
st_status projective_check_indices(st_component *self, const st_array *indices, size_t n,
                                   st_error *err);
/* keyTimes must not decrease (SOFA assumes chronological order). */
st_status projective_check_increasing(st_component *self, const st_array *times, st_error *err);
/* SOFA's TopologySubsetIndices on a projective constraint's "indices":
 * when the topology (the linked one, else the first found upward; nothing
 * when there is none) loses points, entries naming them are erased and
 * those naming the last point renumbered (st_topology_follow_subset). With
 * pts (n items of item_size bytes, one per point of the state) that array
 * follows the points too (the last point's item fills each hole); it must
 * have the topology's point count. */
st_status projective_follow(st_component *self, st_component *topology, void **pts, size_t *n,
                            size_t item_size, st_error *err);
/* Zeroes the listed points of a state's slice (3 doubles per point). */
void projective_zero_points(double *s, const st_array *indices);
/* Zeroes the listed points of a slice of d doubles per point. */
void projective_zero_dofs(double *s, unsigned d, const st_array *indices);
/* Clears the listed points' rows and columns with a unit diagonal. */
void projective_matrix_points(st_matrix *m, const st_mstate *ms, const st_array *indices);
/* Every derivative component of the listed points (Vec and Rigid alike). */
void projective_matrix_dofs(st_matrix *m, const st_mstate *ms, const st_array *indices);

/* The position of a point moved from coordinate a to z between times b
 * and e (AffineMovement- and PatchTestMovementProjectiveConstraint, as
 * SOFA's): for b < t <= e (e > b) the spatial part is the linear blend
 * ((z - a) t + a e - z b) / (e - b); after e the whole coordinate is z;
 * before b, p is left alone. cs: coordinate size (spatial part: 3). */
static inline void movement_blend(double *p, const double *a, const double *z, unsigned cs,
                                  double t, double b, double e)
{
    if (t > b && t <= e && e - b > 0) {
        for (int k = 0; k < 3; k++)
            p[k] = ((z[k] - a[k]) * t + (a[k] * e - z[k] * b)) / (e - b);
    } else if (t > e) {
        for (unsigned k = 0; k < cs; k++)
            p[k] = z[k];
    }
}

/* Projection to a line, a plane or a direction (subspace_common.c), shared
 * by LineProjectiveConstraint, PlaneProjectiveConstraint and
 * DirectionProjectiveConstraint. */
enum { SUBSPACE_LINE = 0, SUBSPACE_PLANE, SUBSPACE_DIRECTION };
typedef struct subspace {
    st_component base;
    st_array indices;       /* "indices", uint[], default [0] */
    double draw_size;       /* "drawSize" (drawing) */
    st_array origin_f;      /* "origin": a point of the state's space (none: 0) */
    st_array dir_f;         /* "direction" / "normal"; normalised at init */
    double end_time;        /* "endTime" */
    int group;              /* "group" (ignored) */
    st_component *topology; /* "topology" */
    st_component *mstate;   /* "mstate" */
    /* Set by init. */
    st_mstate *ms;
    st_component *followed; /* the topology listened to (DIRECTION) */
    int kind;               /* SUBSPACE_* */
    unsigned dim;           /* spatial size of the state: 2 or 3 */
    double o[3], n[3];      /* origin, unit vector */
    bool axis_aligned;      /* n is null or along an axis: exact matrix projection */
    bool removed[3];        /* the scalar DOFs I - P removes (axis_aligned only) */
    double *anchors;        /* DIRECTION: positions at init, 3 per index, owned */
    size_t nanchors;        /* points in anchors */
    unsigned *anchor_pts;   /* DIRECTION: the point each anchor was taken from, owned */
    bool told_anchors;      /* the misaligned-anchors warning was given */
} subspace;

st_status subspace_init(subspace *s, int kind, st_error *err);
void subspace_cleanup(subspace *s);
/* v <- P v at the points (responses and velocities). */
void subspace_project_deriv(subspace *s, const st_mparams *mp, double *v);
/* x <- a + P (x - a) at the points. */
void subspace_project_position(subspace *s, const st_mparams *mp, double *x);
void subspace_apply_to_matrix(subspace *s, const st_mparams *mp, st_matrix *m);

/* The subspace fields of SOFA's three classes; D is the key of the vector
 * ("direction" or "normal"), DH its help. */
#define SUBSPACE_F_INDICES(help)                                                                  \
    ST_UINTS(subspace, indices, "indices", "0", help),                                           \
        ST_IGNORED(subspace, draw_size, "drawSize", ST_T_REAL, double, "0",                       \
                   "Size of the rendered particles (0 -> point based rendering, >0 -> radius of " \
                   "spheres)")
#define SUBSPACE_F_VECTOR(D, DH)                                                                  \
    ST_REALS(subspace, dir_f, D, NULL,                                                            \
             DH " (one value per spatial axis; unset: null)")
#define SUBSPACE_F_ORIGIN(H)                                                                      \
    ST_REALS(subspace, origin_f, "origin", NULL, H " (one value per spatial axis; unset: 0)")

extern const st_class line_projective_constraint_class;
extern const st_class plane_projective_constraint_class;
extern const st_class direction_projective_constraint_class;
extern const st_class point_projective_constraint_class;
extern const st_class affine_movement_projective_constraint_class;
extern const st_class patch_test_movement_projective_constraint_class;
extern const st_class attach_projective_constraint_class;
extern const st_class oscillator_projective_constraint_class;
extern const st_class skeletal_motion_projective_constraint_class;
extern const st_class parabolic_projective_constraint_class;
extern const st_class fixed_rotation_projective_constraint_class;
extern const st_class fixed_translation_projective_constraint_class;
extern const st_class position_based_dynamics_projective_constraint_class;
extern const st_class hermite_spline_projective_constraint_class;
extern const st_class partial_linear_movement_projective_constraint_class;

#endif
