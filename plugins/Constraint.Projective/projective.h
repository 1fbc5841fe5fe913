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
    st_component *topology;    /* "topology" */
    st_mstate *ms;             /* resolved at init */
} fixed_common;

extern const st_class fixed_projective_constraint_class;
extern const st_class partial_fixed_projective_constraint_class;
extern const st_class fixed_plane_projective_constraint_class;

/* True while a constraint with this endTime acts at the given time. */
static inline bool projective_active(double end_time, const st_mparams *mp)
{
    return end_time < 0 || end_time > (mp ? mp->time : 0.0);
}

/* Init shared by the fixed constraints: finds the state and the topology,
 * drops indices outside the state with a warning. */
st_status fixed_common_init(fixed_common *c, st_error *err);

#endif
