/* fixed_rotation_projective_constraint.c - FixedRotationProjectiveConstraint
 * (formerly FixedRotationConstraint): the rotation of every rigid frame about
 * the chosen world axes stays what it was at init, as SOFA's.
 *
 * Only positions are projected (SOFA leaves responses, velocities and
 * matrices alone). For each frame, for each fixed axis a in the order x, y,
 * z, the current orientation q loses its twist about a (swing-twist
 * decomposition: twist = normalised (projection of q's vector part on a,
 * q_w), swing = q twist^-1) and the initial orientation gives up its own
 * twist, which is kept; the new orientation is the remaining swing times
 * the kept twists. Rigid3d only (SOFA's only instance). */
#include <string.h>

#include "projective.h"

typedef struct fixed_rotation {
    st_component base;
    bool fixed[3];        /* "FixedXRotation", "FixedYRotation", "FixedZRotation" */
    double end_time;      /* "endTime" */
    int group;            /* "group" (ignored) */
    st_component *mstate; /* "mstate" */
    st_mstate *ms;        /* set by init */
    double *q0;           /* orientations at init, 4 per point, owned */
} fixed_rotation;

static void fr_cleanup(st_component *self)
{
    fixed_rotation *c = (fixed_rotation *)self;
    st_free(c->q0);
    c->q0 = NULL;
}

static st_status fr_init(st_component *self, st_error *err)
{
    fixed_rotation *c = (fixed_rotation *)self;
    fr_cleanup(self);
    ST_TRY(projective_check_mstate(self, c->mstate, err));
    c->ms = st_component_mstate(self);
    if (!c->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mstate: no MechanicalObject in this node or its "
                                  "ancestors to constrain");
    if (!c->ms->type->rigid)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "works on Rigid3d states only (the state is %s)",
                                  c->ms->type->name);
    size_t n = c->ms->n;
    c->q0 = st_calloc(4 * (n + 1), sizeof *c->q0);
    if (!c->q0)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu frames", n);
    for (size_t i = 0; i < n; i++)
        memcpy(c->q0 + 4 * i, c->ms->position.r + 7 * i + 3, 4 * sizeof(double));
    return ST_OK;
}

/* Twist of q about the unit axis a, and the swing q twist^-1. */
static void decompose(const double q[4], const double a[3], double twist[4], double swing[4])
{
    double d = q[0] * a[0] + q[1] * a[1] + q[2] * a[2];
    for (int k = 0; k < 3; k++)
        twist[k] = d * a[k];
    twist[3] = q[3];
    if (twist[0] == 0 && twist[1] == 0 && twist[2] == 0 && twist[3] == 0)
        twist[3] = 1.0;
    st_quat_normalize(twist);
    double inv[4] = {-twist[0], -twist[1], -twist[2], twist[3]};
    st_quat_mul(swing, q, inv);
    st_quat_normalize(swing);
}

static void fr_project_position(st_component *self, const st_mparams *mp, double *x)
{
    fixed_rotation *c = (fixed_rotation *)self;
    if (!c->ms || !c->q0 || !projective_active(c->end_time, mp))
        return;
    static const double axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    double *s = st_slice_x(x, c->ms);
    for (size_t i = 0; i < c->ms->n; i++) {
        double *q = s + 7 * i + 3;
        double rem[4], prev[4], keep[4] = {0, 0, 0, 1};
        memcpy(rem, q, sizeof rem);
        memcpy(prev, c->q0 + 4 * i, sizeof prev);
        for (int a = 0; a < 3; a++) {
            if (!c->fixed[a])
                continue;
            double tw[4], sw[4];
            decompose(rem, axes[a], tw, sw);
            memcpy(rem, sw, sizeof rem);
            decompose(prev, axes[a], tw, sw);
            memcpy(prev, sw, sizeof prev);
            st_quat_mul(keep, tw, keep);
        }
        st_quat_mul(q, rem, keep);
    }
}

static const st_projective_ops fr_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_position = fr_project_position,
};

static const st_field fr_fields[] = {
    ST_BOOL(fixed_rotation, fixed[0], "FixedXRotation", "false", "Prevent Rotation around X axis"),
    ST_BOOL(fixed_rotation, fixed[1], "FixedYRotation", "false", "Prevent Rotation around Y axis"),
    ST_BOOL(fixed_rotation, fixed[2], "FixedZRotation", "false", "Prevent Rotation around Z axis"),
    ST_REAL(fixed_rotation, end_time, "endTime", "-1",
            "The constraint stops acting after the given value. Use a negative value for infinite "
            "constraints"),
    ST_IGNORED(fixed_rotation, group, "group", ST_T_INT, int, "0",
               "ID of the group containing this constraint (selects the constraint solver; "
               "settee's projective constraints are applied by the ODE solver)"),
    ST_LINK(fixed_rotation, mstate, "mstate", ST_LINK_STATE,
            "MechanicalState used by this component (default: the node's, else the nearest "
            "ancestor's)"),
    ST_FIELD_END};

static const char *const fr_aliases[] = {"FixedRotationConstraint", NULL};
static const char *const fr_templates[] = {"Rigid3d", NULL};

const st_class fixed_rotation_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "FixedRotationProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Prevents rotation around X or/and Y or/and Z axis",
    .aliases = fr_aliases,
    .instance_size = sizeof(fixed_rotation),
    .fields = fr_fields,
    .init = fr_init,
    .cleanup = fr_cleanup,
    .projective = &fr_ops,
    .templates = fr_templates,
};
