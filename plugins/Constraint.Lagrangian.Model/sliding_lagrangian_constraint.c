/* sliding_lagrangian_constraint.c - SlidingLagrangianConstraint (alias
 * SlidingConstraint), Vec3d and Rigid3d (the centres; the rows have no
 * rotational part): point P (sliding_point of object1) slides on
 * the segment A B (axis_1, axis_2 of object2), as SOFA. At the free
 * positions: with |AB| below machine epsilon, three bilateral rows P - A
 * along x, y, z. Otherwise u = AB/|AB|, r = (P - A).u, the barycentric
 * coordinate b = clamp(r / |AB|, 0, 1), the normal n = (P - proj)/|P - proj|
 * with proj = A + r u (when P is on the axis, n = normalised (1 0 0) x u,
 * or (1 1 0) x u when that vanishes), o = n x u normalised; rows
 *   n:  +n on P, -(1 - b) n on A, -b n on B, violation (P - projb).n,
 *   o:  the same with o,                    violation (P - projb).o,
 *   u:  +u on P, -u on A,                   violation (P - A).u,
 *  -u:  -u on P, +u on B,                   violation -(P - B).u,
 * projb = (1 - b) A + b B; the first two bilateral, the last two
 * unilateral (the end stops: lambda >= 0). "force" is the sum of the
 * directions times their multipliers after each solve. */
#include <math.h>
#include <string.h>

#include "model_common.h"

typedef struct sliding {
    st_component base;
    st_component *object1, *object2; /* "object1", "object2" */
    int m1, m2a, m2b;                /* "sliding_point", "axis_1", "axis_2" */
    st_vec3 force;                   /* "force" (output) */
    double end_time;                 /* "endTime" */
    int group;                       /* "group" */
    unsigned constraint_index;       /* "constraintIndex" */
    /* Runtime. */
    st_mstate *ms1, *ms2;
    double dir[4][3];                /* the rows' directions */
    unsigned ndir;                   /* 3 (A = B) or 4 */
    double bary;                     /* b */
    size_t first;                    /* first row this solve */
} sliding;

static const st_field sliding_fields[] = {
    ST_LINK(sliding, object1, "object1", ST_LINK_STATE,
            "First object associated to this component"),
    ST_LINK(sliding, object2, "object2", ST_LINK_STATE,
            "Second object associated to this component"),
    ST_INT(sliding, m1, "sliding_point", "0", "index of the spliding point on the first model"),
    ST_INT(sliding, m2a, "axis_1", "0", "index of one end of the sliding axis"),
    ST_INT(sliding, m2b, "axis_2", "0", "index of the other end of the sliding axis"),
    ST_OUTPUT(sliding, force, "force", ST_T_VEC3, st_vec3,
              "force (impulse) used to solve the constraint"),
    LAGRANGE_MODEL_BASE_FIELDS(sliding),
    ST_FIELD_END};

static st_status check_index(st_component *self, const char *field, const st_mstate *ms, int i,
                             st_error *err)
{
    if (i < 0 || (size_t)i >= ms->n)
        return st_component_error(self, field, err, ST_EINVAL,
                                  "%s: point %d is out of range: '%s' has %zu points", field, i,
                                  ms->base.name, ms->n);
    return ST_OK;
}

static st_status sl_init(st_component *self, st_error *err)
{
    sliding *s = (sliding *)self;
    s->ms1 = s->object1 ? (st_mstate *)s->object1 : st_component_mstate(self);
    s->ms2 = s->object2 ? (st_mstate *)s->object2 : st_component_mstate(self);
    if (!s->ms1 || !s->ms2)
        return st_component_error(self, s->ms1 ? "object2" : "object1", err, ST_EINVAL,
                                  "no mechanical state in the node or its ancestors (set "
                                  "object1 and object2 or put a MechanicalObject in the node)");
    if (s->ms1->type != s->ms2->type)
        return st_component_error(self, "object2", err, ST_EINVAL,
                                  "object1 '%s' is %s and object2 '%s' is %s: both must have "
                                  "the same type (Vec3d or Rigid3d)",
                                  s->ms1->base.name, s->ms1->type->name, s->ms2->base.name,
                                  s->ms2->type->name);
    ST_TRY(check_index(self, "sliding_point", s->ms1, s->m1, err));
    ST_TRY(check_index(self, "axis_1", s->ms2, s->m2a, err));
    return check_index(self, "axis_2", s->ms2, s->m2b, err);
}

/* Point i of ms's positions (the centre of a rigid). */
static const double *pos(const st_mstate *ms, int i)
{
    return (const double *)ms->position.p + (size_t)ms->type->coord_size * (size_t)i;
}

/* Appends the term scale * dir on point i of ms (no rotational part). */
static void add_term(st_cjacobian *J, st_mstate *ms, int i, const double dir[3], double scale)
{
    double e[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    st_v3_scale(e, dir, scale);
    st_cjac_add(J, ms, (size_t)i, e, ms->type->deriv_size);
}

/* The directions and b at the current positions (SOFA's
 * buildConstraintMatrix). */
static void directions(sliding *s)
{
    const double *P = pos(s->ms1, s->m1);
    const double *A = pos(s->ms2, s->m2a);
    const double *B = pos(s->ms2, s->m2b);
    double u[3];
    st_v3_sub(u, B, A);
    double ab = st_v3_norm(u);
    const double eps = 2.220446049250313e-16;
    s->bary = 0.0;
    if (ab < eps) {
        s->ndir = 3;
        memset(s->dir, 0, sizeof s->dir);
        for (int k = 0; k < 3; k++)
            s->dir[k][k] = 1.0;
        return;
    }
    st_v3_scale(u, u, 1.0 / ab);
    double ap[3];
    st_v3_sub(ap, P, A);
    double r = st_v3_dot(ap, u);
    double b = r / ab;
    s->bary = b < 0.0 ? 0.0 : b > 1.0 ? 1.0 : b;
    double proj[3], n[3], o[3];
    for (int k = 0; k < 3; k++)
        proj[k] = A[k] + u[k] * r;
    st_v3_sub(n, P, proj);
    if (st_v3_norm(n) < eps) {
        double xv[3] = {1.0, 0.0, 0.0};
        st_v3_cross(n, xv, u);
        if (st_v3_norm(n) < eps) {
            xv[1] = 1.0;
            st_v3_cross(n, xv, u);
        }
    }
    st_v3_normalize(n);
    st_v3_cross(o, n, u);
    st_v3_normalize(o);
    s->ndir = 4;
    st_v3_copy(s->dir[0], n);
    st_v3_copy(s->dir[1], o);
    st_v3_copy(s->dir[2], u);
    st_v3_scale(s->dir[3], u, -1.0);
}

static bool sl_active(const sliding *s)
{
    return lagrange_model_alive(&s->base, s->end_time);
}

static void sl_size(st_component *self, size_t *rows, size_t *terms)
{
    sliding *s = (sliding *)self;
    *rows = *terms = 0;
    if (!sl_active(s))
        return;
    directions(s);
    *rows = s->ndir;
    *terms = s->ndir == 3 ? 6 : 10;
}

static st_status sl_build(st_component *self, st_cjacobian *J, double *violation, st_error *err)
{
    (void)err;
    sliding *s = (sliding *)self;
    if (!sl_active(s))
        return ST_OK;
    directions(s);
    const double *P = pos(s->ms1, s->m1);
    const double *A = pos(s->ms2, s->m2a);
    const double *B = pos(s->ms2, s->m2b);
    if (s->ndir == 3) {
        for (unsigned i = 0; i < 3; i++) {
            size_t r = st_cjac_row(J);
            add_term(J, s->ms1, s->m1, s->dir[i], 1.0);
            add_term(J, s->ms2, s->m2a, s->dir[i], -1.0);
            violation[r] = P[i] - A[i];
        }
        return ST_OK;
    }
    double b = s->bary, pp[3], pa[3], pb[3];
    for (int k = 0; k < 3; k++) {
        pp[k] = P[k] - (B[k] * b + A[k] * (1.0 - b));
        pa[k] = P[k] - A[k];
        pb[k] = P[k] - B[k];
    }
    for (unsigned i = 0; i < 2; i++) {
        size_t r = st_cjac_row(J);
        add_term(J, s->ms1, s->m1, s->dir[i], 1.0);
        add_term(J, s->ms2, s->m2a, s->dir[i], -(1.0 - b));
        add_term(J, s->ms2, s->m2b, s->dir[i], -b);
        violation[r] = st_v3_dot(pp, s->dir[i]);
    }
    size_t r = st_cjac_row(J);
    add_term(J, s->ms1, s->m1, s->dir[2], 1.0);
    add_term(J, s->ms2, s->m2a, s->dir[2], -1.0);
    violation[r] = st_v3_dot(pa, s->dir[2]);
    r = st_cjac_row(J);
    add_term(J, s->ms1, s->m1, s->dir[3], 1.0);
    add_term(J, s->ms2, s->m2b, s->dir[3], -1.0);
    violation[r] = st_v3_dot(pb, s->dir[3]);
    return ST_OK;
}

static void sl_init_resolution(st_component *self, size_t first, const double *W, size_t dim,
                               double *lambda)
{
    (void)W;
    (void)dim;
    (void)lambda;
    ((sliding *)self)->first = first;
}

static void sl_resolution(st_component *self, size_t row, const double *W, size_t dim,
                          const double *d, double *lambda)
{
    sliding *s = (sliding *)self;
    if (s->ndir == 4 && row - s->first >= 2)
        lagrange_unilateral_row(row, W, dim, d, lambda);
    else
        lagrange_bilateral_row(row, W, dim, d, lambda);
}

static void sl_store(st_component *self, size_t first, const double *lambda, bool converged)
{
    (void)converged;
    sliding *s = (sliding *)self;
    if (!sl_active(s))
        return;
    double f[3] = {0.0, 0.0, 0.0};
    for (unsigned i = 0; i < s->ndir; i++)
        st_v3_peq(f, s->dir[i], lambda[first + i]);
    memcpy(s->force, f, sizeof f);
    const st_field *fd = st_component_field(self, "force");
    if (fd)
        st_component_touch(self, fd);
}

static const st_constraint_ops sliding_ops = {
    .struct_size = sizeof(st_constraint_ops),
    .size = sl_size,
    .build = sl_build,
    .init_resolution = sl_init_resolution,
    .resolution = sl_resolution,
    .store = sl_store,
};

static const char *const sliding_aliases[] = {"SlidingConstraint", NULL};
static const char *const sliding_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class sliding_lagrangian_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "SlidingLagrangianConstraint",
    .category = "Constraint",
    .description = "Lagrangian-based partial fixation of DOFs of the model, along an axis.",
    .aliases = sliding_aliases,
    .templates = sliding_templates,
    .instance_size = sizeof(sliding),
    .fields = sliding_fields,
    .init = sl_init,
    .constraint = &sliding_ops,
};
