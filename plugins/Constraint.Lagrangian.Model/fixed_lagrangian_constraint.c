/* fixed_lagrangian_constraint.c - FixedLagrangianConstraint: keeps points
 * of a state at their rest positions through Lagrange multipliers (SOFA's
 * Sofa.Component.Constraint.Lagrangian.Model), for Vec1d, Vec2d, Vec3d and
 * Rigid3d. For each fixed point (`indices`, or every point with `fixAll`)
 * one row per derivative component, J = the unit vector of that component
 * on the point, violation at the free position:
 *   Vec: x_free - x_rest, component by component;
 *   Rigid3d: c_free - c_rest, then the Euler angles (roll, pitch, yaw, SOFA's
 *   Quat::toEulerVector) of q_free q_rest^-1.
 * Resolution as SOFA's: Vec3d and each half of a Rigid3d point (centre,
 * orientation) by BilateralConstraintResolution3Dof, lambda -= W_bb^-1 d
 * with the 3x3 block of W inverted once per solve, warm started from the
 * previous step's multipliers; Vec1d and Vec2d by
 * BilateralConstraintResolutionNDof, the block solved directly, started from
 * zero. */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "model_common.h"

typedef struct fixed_lagrange {
    st_component base;
    st_array indices;          /* "indices" */
    bool fix_all;              /* "fixAll" */
    double end_time;           /* "endTime" */
    int group;                 /* "group" */
    unsigned constraint_index; /* "constraintIndex" */
    /* Runtime. */
    st_mstate *ms;
    unsigned rows;             /* rows per point: the derivative size */
    unsigned block;            /* rows per resolution block: 3, or rows (Vec1d, Vec2d) */
    double *prev;              /* rows per point: the last multipliers */
    double *invw;              /* block^2 per block: the inverse of its block of W */
    size_t cap;                /* points prev and invw hold */
    size_t first;              /* first row this solve */
    bool warned;               /* a singular block was reported */
} fixed_lagrange;

static const st_field fixed_fields[] = {
    ST_UINTS(fixed_lagrange, indices, "indices", NULL, "Indices of points to fix"),
    ST_BOOL(fixed_lagrange, fix_all, "fixAll", "false", "If true, fix all points"),
    LAGRANGE_MODEL_BASE_FIELDS(fixed_lagrange),
    ST_FIELD_END};

/* Points fixed this step. */
static size_t npoints(const fixed_lagrange *f)
{
    return f->fix_all ? f->ms->n : f->indices.n;
}

static size_t point_of(const fixed_lagrange *f, size_t i)
{
    return f->fix_all ? i : ((const unsigned *)f->indices.p)[i];
}

static bool active(const fixed_lagrange *f)
{
    return f->ms && npoints(f) > 0 && lagrange_model_alive(&f->base, f->end_time);
}

static st_status reserve(fixed_lagrange *f, size_t n, st_error *err)
{
    if (n <= f->cap)
        return ST_OK;
    double *p = st_realloc(f->prev, f->rows * n * sizeof *p);
    if (!p)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    f->prev = p;
    memset(p + f->rows * f->cap, 0, f->rows * (n - f->cap) * sizeof *p);
    /* rows / block blocks of block^2 values per point */
    double *w = st_realloc(f->invw, f->rows * f->block * n * sizeof *w);
    if (!w)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    f->invw = w;
    f->cap = n;
    return ST_OK;
}

static st_status fixed_init(st_component *self, st_error *err)
{
    fixed_lagrange *f = (fixed_lagrange *)self;
    f->ms = st_component_mstate(self);
    if (!f->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors to fix");
    const st_state_type *t = f->ms->type;
    f->rows = t->deriv_size;
    f->block = t->deriv_size >= 3 ? 3 : t->deriv_size;
    if (!f->fix_all) {
        const unsigned *u = f->indices.p;
        for (size_t i = 0; i < f->indices.n; i++)
            if (u[i] >= f->ms->n)
                return st_component_error(self, "indices", err, ST_EINVAL,
                                          "index %u is out of range: '%s' has %zu points", u[i],
                                          f->ms->base.name, f->ms->n);
    }
    f->warned = false;
    return reserve(f, npoints(f), err);
}

static void fixed_reset(st_component *self)
{
    fixed_lagrange *f = (fixed_lagrange *)self;
    if (f->prev)
        memset(f->prev, 0, f->rows * f->cap * sizeof *f->prev);
}

static void fixed_cleanup(st_component *self)
{
    fixed_lagrange *f = (fixed_lagrange *)self;
    st_free(f->prev);
    st_free(f->invw);
    f->prev = f->invw = NULL;
    f->cap = 0;
}

static void fixed_size(st_component *self, size_t *rows, size_t *terms)
{
    fixed_lagrange *f = (fixed_lagrange *)self;
    size_t n = active(f) ? npoints(f) : 0;
    *rows = f->rows * n;
    *terms = f->rows * n;
}

/* SOFA's Quat::toEulerVector of the normalised q: roll, pitch, yaw. */
static void euler_vector(const double qin[4], double e[3])
{
    double q[4] = {qin[0], qin[1], qin[2], qin[3]};
    st_quat_normalize(q);
    double y = 2.0 * (q[3] * q[1] - q[2] * q[0]);
    y = y > 1.0 ? 1.0 : y < -1.0 ? -1.0 : y;
    e[0] = atan2(2.0 * (q[3] * q[0] + q[1] * q[2]), 1.0 - 2.0 * (q[0] * q[0] + q[1] * q[1]));
    e[1] = asin(y);
    e[2] = atan2(2.0 * (q[3] * q[2] + q[0] * q[1]), 1.0 - 2.0 * (q[1] * q[1] + q[2] * q[2]));
}

static st_status fixed_build(st_component *self, st_cjacobian *J, double *violation,
                             st_error *err)
{
    fixed_lagrange *f = (fixed_lagrange *)self;
    if (!active(f))
        return ST_OK;
    size_t n = npoints(f);
    ST_TRY(reserve(f, n, err));
    const st_state_type *t = f->ms->type;
    const unsigned cs = t->coord_size, R = f->rows;
    const double *x = f->ms->position.p, *x0 = f->ms->rest_position.p;
    if (f->ms->rest_position.n < f->ms->n)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "state '%s' has %zu rest positions for %zu points",
                                  f->ms->base.name, f->ms->rest_position.n, f->ms->n);
    for (size_t i = 0; i < n; i++) {
        size_t p = point_of(f, i);
        if (p >= f->ms->n)
            return st_component_error(self, "indices", err, ST_EINVAL,
                                      "index %zu is out of range: '%s' has %zu points", p,
                                      f->ms->base.name, f->ms->n);
        const double *xp = x + cs * p, *rp = x0 + cs * p;
        double v[6];
        if (t->rigid) {
            for (int k = 0; k < 3; k++)
                v[k] = xp[k] - rp[k];
            double rinv[4] = {-rp[3], -rp[4], -rp[5], rp[6]};
            double n2 = rp[3] * rp[3] + rp[4] * rp[4] + rp[5] * rp[5] + rp[6] * rp[6];
            for (int k = 0; k < 4; k++)
                rinv[k] /= n2;
            double dq[4];
            st_quat_mul(dq, xp + 3, rinv);
            euler_vector(dq, v + 3);
        } else {
            for (unsigned k = 0; k < R; k++)
                v[k] = xp[k] - rp[k];
        }
        for (unsigned k = 0; k < R; k++) {
            double e[6] = {0, 0, 0, 0, 0, 0};
            e[k] = 1.0;
            size_t r = st_cjac_row(J);
            st_cjac_add(J, f->ms, p, e, R);
            violation[r] = v[k];
        }
    }
    return ST_OK;
}

/* inv = m^-1 for a block of size b (1, 2 or 3); false when singular. */
static bool invert_block(double *inv, const double *m, unsigned b)
{
    if (b == 3) {
        double det = st_m3_inverse(inv, m);
        return det != 0.0 && isfinite(det);
    }
    if (b == 2) {
        double det = m[0] * m[3] - m[1] * m[2];
        if (det == 0.0 || !isfinite(det))
            return false;
        inv[0] = m[3] / det;
        inv[1] = -m[1] / det;
        inv[2] = -m[2] / det;
        inv[3] = m[0] / det;
        return true;
    }
    if (m[0] == 0.0 || !isfinite(m[0]))
        return false;
    inv[0] = 1.0 / m[0];
    return true;
}

static void fixed_init_resolution(st_component *self, size_t first, const double *W, size_t dim,
                                  double *lambda)
{
    fixed_lagrange *f = (fixed_lagrange *)self;
    f->first = first;
    const unsigned B = f->block;
    size_t nblocks = active(f) ? npoints(f) * (f->rows / B) : 0;
    for (size_t q = 0; q < nblocks && q < f->cap * (f->rows / B); q++) {
        size_t r = first + (size_t)B * q;
        double blk[9];
        for (unsigned i = 0; i < B; i++)
            for (unsigned j = 0; j < B; j++)
                blk[B * i + j] = W[(r + i) * dim + r + j];
        double *iw = f->invw + (size_t)B * B * q;
        if (!invert_block(iw, blk, B)) {
            memset(iw, 0, (size_t)B * B * sizeof *iw);
            if (!f->warned)
                st_component_warn(self, "rows %zu to %zu: their block of the compliance W is "
                                        "singular (no constraint correction on '%s'?): left "
                                        "unsolved (reported once)",
                                  r - first, r - first + B - 1, f->ms->base.name);
            f->warned = true;
        }
        /* SOFA's 3Dof resolutions start from the previous forces; its NDof
         * ones (Vec1d, Vec2d) from zero. */
        for (unsigned i = 0; i < B && B == 3; i++)
            lambda[r + i] = f->prev[(size_t)B * q + i];
    }
}

static unsigned fixed_block_rows(const st_component *self)
{
    return ((const fixed_lagrange *)self)->block;
}

static void fixed_resolution(st_component *self, size_t row, const double *W, size_t dim,
                             const double *d, double *lambda)
{
    (void)W;
    (void)dim;
    fixed_lagrange *f = (fixed_lagrange *)self;
    const unsigned B = f->block;
    const double *iw = f->invw + (size_t)B * B * ((row - f->first) / B);
    for (unsigned i = 0; i < B; i++)
        for (unsigned j = 0; j < B; j++)
            lambda[row + i] -= d[row + j] * iw[B * i + j];
}

static void fixed_store(st_component *self, size_t first, const double *lambda, bool converged)
{
    (void)converged;
    fixed_lagrange *f = (fixed_lagrange *)self;
    size_t n = active(f) ? npoints(f) : 0;
    for (size_t i = 0; i < n * f->rows && i < f->cap * f->rows; i++)
        f->prev[i] = lambda[first + i];
}

static const st_constraint_ops fixed_ops = {
    .struct_size = sizeof(st_constraint_ops),
    .size = fixed_size,
    .build = fixed_build,
    .init_resolution = fixed_init_resolution,
    .block_rows = fixed_block_rows,
    .resolution = fixed_resolution,
    .store = fixed_store,
};

/* Checkpoints: the multipliers of the last step (the warm start). */
static st_status fixed_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    fixed_lagrange *f = (fixed_lagrange *)self;
    size_t cap = f->cap;
    ST_TRY(st_checkpoint_data(ck, &cap, sizeof cap, err));
    if (st_checkpoint_reading(ck))
        ST_TRY(reserve(f, cap, err));
    return cap ? st_checkpoint_data(ck, f->prev, f->rows * cap * sizeof *f->prev, err) : ST_OK;
}

static const st_checkpoint_ops fixed_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = fixed_checkpoint,
};

static const char *const fixed_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Rigid3d", NULL};

const st_class fixed_lagrangian_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "FixedLagrangianConstraint",
    .category = "Constraint",
    .description = "Lagrangian-based fixation of DOFs of the model",
    .templates = fixed_templates,
    .instance_size = sizeof(fixed_lagrange),
    .fields = fixed_fields,
    .init = fixed_init,
    .reset = fixed_reset,
    .cleanup = fixed_cleanup,
    .constraint = &fixed_ops,
    .checkpoint = &fixed_checkpoint_ops,
};
