/* bilateral_lagrangian_constraint.c - BilateralLagrangianConstraint (alias
 * BilateralInteractionConstraint), Vec3d and Rigid3d. Vec3d: for each pair
 * (first_point[i] of object1, second_point[i] of object2) three rows, J = -I
 * on the first point and +I on the second, violation x2 - x1 -
 * rest_vector[i] at the free positions. Rigid3d, as SOFA's specialisation:
 * six rows per pair, J = -I6 on the first body and +I6 on the second
 * (translations, then rotations), violation (c2 - c1, q1 (rotation vector
 * of q1^-1 q2)) - rest_vector[i], q1 first composed with the initial
 * orientation difference and c1 shifted by the initial offset when
 * keepOrientationDifference (rest_vector then ignored). Resolution as
 * SOFA's BilateralConstraintResolution3Dof on every block of three rows:
 * the 3x3 block of W inverted once per solve, lambda -= load W_bb^-1 d, warm
 * started from the previous step's multipliers (Vec3d; SOFA's Rigid3d
 * blocks start from zero and ignore load). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <settee/settee.h>

#include "model_common.h"
#include "../shared/euler_quat.h"

typedef struct bilateral {
    st_component base;
    st_component *object1, *object2; /* "object1", "object2" */
    st_array m1, m2;                 /* "first_point", "second_point" */
    st_array rest;                   /* "rest_vector" (derivatives of the state type) */
    bool activate;                   /* "activate" */
    bool keep_orient;                /* "keepOrientationDifference" (rigids only) */
    double load;                     /* "load" */
    st_component *topology1, *topology2; /* "topology1", "topology2" */
    double end_time;                 /* "endTime" */
    int group;                       /* "group" */
    unsigned constraint_index;       /* "constraintIndex" */
    /* Runtime. */
    st_mstate *ms1, *ms2;
    unsigned rows;                   /* rows per pair: 3 (Vec3d) or 6 (Rigid3d) */
    double *diff;                    /* Rigid3d keepOrientationDifference: 7 per pair */
    double *prev;                    /* rows per pair: the last multipliers */
    double *invw;                    /* 9 per block of 3 rows: inverse of its block of W */
    size_t cap;                      /* pairs prev and invw hold */
    size_t first;                    /* first row this solve */
    st_component *listened[2];       /* the topologies whose changes it follows */
    bool warned;                     /* a singular block was reported */
} bilateral;

static const st_field bilateral_fields[] = {
    LAGRANGE_PAIR_LINKS(bilateral),
    ST_UINTS(bilateral, m1, "first_point", NULL,
             "index of the constraint on the first model (object1)"),
    ST_UINTS(bilateral, m2, "second_point", NULL,
             "index of the constraint on the second model (object2)"),
    ST_FIELD_(bilateral, rest, "rest_vector", ST_T_DERIVS, st_array, NULL,
              "Relative position to maintain between attached points (optional)", 0),
    ST_BOOL(bilateral, activate, "activate", "true", "control constraint activation (true by "
                                                     "default)"),
    ST_BOOL(bilateral, keep_orient, "keepOrientationDifference", "false",
            "keep the initial difference in orientation (only for rigids)"),
    ST_REAL(bilateral, load, "load", "1",
            "Apply this factor to the constraint force to enable incremental loading. This "
            "value should be in the interval [0.0, 1.0]."),
    ST_LINK(bilateral, topology1, "topology1", ST_LINK_TOPOLOGY,
            "link to the first topology container"),
    ST_LINK(bilateral, topology2, "topology2", ST_LINK_TOPOLOGY,
            "link to the second topology container"),
    ST_REAL(bilateral, end_time, "endTime", "-1",
            "The constraint stops acting after the given value.\nUse a negative value for "
            "infinite constraints"),
    LAGRANGE_PAIR_IGNORED(bilateral),
    ST_FIELD_END};

static size_t pairs(const bilateral *b)
{
    return b->m1.n < b->m2.n ? b->m1.n : b->m2.n;
}

static bool active(const bilateral *b)
{
    if (!b->activate || pairs(b) == 0)
        return false;
    return b->end_time < 0.0 || st_node_time(b->base.node) < b->end_time;
}

static st_status check_state(st_component *self, const char *field, const st_mstate *ms,
                             const st_array *idx, st_error *err)
{
    if (!ms)
        return st_component_error(self, field, err, ST_EINVAL,
                                  "%s: no mechanical state in the node or its ancestors (set "
                                  "the link or put a MechanicalObject in the node)",
                                  field);
    bool vec3 = ms->type->deriv_size == 3 && ms->type->coord_size == 3;
    bool rigid3 = ms->type->rigid && ms->type->deriv_size == 6 && ms->type->coord_size == 7;
    if (!vec3 && !rigid3)
        return st_component_error(self, field, err, ST_EINVAL,
                                  "%s: state '%s' is %s; BilateralLagrangianConstraint is Vec3d "
                                  "or Rigid3d",
                                  field, ms->base.name, ms->type->name);
    const unsigned *u = idx->p;
    for (size_t i = 0; i < idx->n; i++)
        if (u[i] >= ms->n)
            return st_component_error(self, field == NULL ? NULL : field, err, ST_EINVAL,
                                      "point %u is out of range: '%s' has %zu points", u[i],
                                      ms->base.name, ms->n);
    return ST_OK;
}

static st_status reserve(bilateral *b, size_t n, st_error *err)
{
    if (n <= b->cap)
        return ST_OK;
    unsigned R = b->rows;
    double *p = st_realloc(b->prev, R * n * sizeof *p);
    if (!p)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    b->prev = p;
    memset(p + R * b->cap, 0, R * (n - b->cap) * sizeof *p);
    double *w = st_realloc(b->invw, 3 * R * n * sizeof *w);
    if (!w)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    b->invw = w;
    b->cap = n;
    return ST_OK;
}

/* SOFA's Quat::quatDiff(a, b): b^-1 a, a flipped first when a . b < 0. */
static void quat_diff(const double a[4], const double b[4], double out[4])
{
    double sa = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.0 ? -1.0 : 1.0;
    double as[4] = {sa * a[0], sa * a[1], sa * a[2], sa * a[3]};
    double bi[4] = {-b[0], -b[1], -b[2], b[3]};
    double n = b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3];
    for (int k = 0; k < 4; k++)
        bi[k] /= n;
    st_quat_mul(out, bi, as);
}

/* Rigid3d, keepOrientationDifference: SOFA's bwdInit keeps per pair the
 * offset c2 - c1 and the normalised difference of the normalised
 * orientations; rest_vector is then ignored. */
static st_status keep_difference(bilateral *b, st_error *err)
{
    if (!b->keep_orient || b->rows != 6)
        return ST_OK;
    if (b->rest.n) {
        st_component_warn_field(&b->base, "rest_vector", "keepOrientationDifference is "
                                                         "activated, rest_vector will be "
                                                         "ignored!");
        b->rest.n = 0;
    }
    size_t n = pairs(b);
    st_free(b->diff);
    b->diff = st_calloc(n ? 7 * n : 1, sizeof *b->diff);
    if (!b->diff)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    const unsigned *m1 = b->m1.p, *m2 = b->m2.p;
    for (size_t p = 0; p < n; p++) {
        const double *P = (const double *)b->ms1->position.p + 7 * m1[p];
        const double *Q = (const double *)b->ms2->position.p + 7 * m2[p];
        double qp[4] = {P[3], P[4], P[5], P[6]}, qq[4] = {Q[3], Q[4], Q[5], Q[6]};
        st_quat_normalize(qp);
        st_quat_normalize(qq);
        double *d = b->diff + 7 * p;
        for (int k = 0; k < 3; k++)
            d[k] = Q[k] - P[k];
        quat_diff(qp, qq, d + 3);
        st_quat_normalize(d + 3);
    }
    return ST_OK;
}

/* A field array made the component's own memory before it is edited in
 * place (a linked value may be shared). */
static st_status own(st_array *a, size_t tuple, st_error *err)
{
    if (a->cap || !a->p || !a->n)
        return ST_OK;
    void *q = st_malloc(a->n * tuple);
    if (!q)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    memcpy(q, a->p, a->n * tuple);
    a->p = q;
    a->cap = a->n;
    return ST_OK;
}

/* Erases pair p: its indices, its rest vector (when there is one per
 * pair), its last multipliers and its orientation difference. */
static void erase_pair(bilateral *b, size_t p)
{
    size_t n = pairs(b);
    unsigned *m1 = b->m1.p, *m2 = b->m2.p;
    memmove(m1 + p, m1 + p + 1, (b->m1.n - p - 1) * sizeof *m1);
    memmove(m2 + p, m2 + p + 1, (b->m2.n - p - 1) * sizeof *m2);
    size_t rs = b->rows * sizeof(double);
    if (b->rest.n == b->m1.n) {
        char *r = b->rest.p;
        memmove(r + p * rs, r + (p + 1) * rs, (b->rest.n - p - 1) * rs);
        b->rest.n--;
    }
    if (b->prev && p + 1 < b->cap)
        memmove(b->prev + b->rows * p, b->prev + b->rows * (p + 1),
                (b->cap - p - 1) * rs);
    if (b->diff && p + 1 < n)
        memmove(b->diff + 7 * p, b->diff + 7 * (p + 1), (n - p - 1) * 7 * sizeof *b->diff);
    b->m1.n--;
    b->m2.n--;
}

/* SOFA's handlers of first_point (topology1) and second_point (topology2),
 * TopologySubsetIndices with a PointsRemoved callback: first the callback
 * (removeContact) erases, for each removed point, the first pair whose
 * index on that side names it (both indices and its rest vector); then the
 * subset's own handler renumbers that side's indices naming the then-last
 * point. Other events change nothing. */
static st_status bil_topology_changed(st_component *self, st_component *topology,
                                      const st_topo_event *ev, size_t nev, st_error *err)
{
    bilateral *b = (bilateral *)self;
    ST_TRY(own(&b->m1, sizeof(unsigned), err));
    ST_TRY(own(&b->m2, sizeof(unsigned), err));
    ST_TRY(own(&b->rest, b->rows * sizeof(double), err));
    for (int side = 0; side < 2; side++) {
        if ((side ? b->topology2 : b->topology1) != topology)
            continue;
        for (size_t e = 0; e < nev; e++) {
            if (ev[e].change != ST_TOPO_REMOVED || ev[e].elem != ST_ELEM_POINT)
                continue;
            st_array *idx = side ? &b->m2 : &b->m1;
            for (size_t k = 0; k < ev[e].n; k++) {
                const unsigned *u = idx->p;
                for (size_t p = 0; p < pairs(b); p++)
                    if (u[p] == ev[e].index[k]) {
                        erase_pair(b, p);
                        break;
                    }
            }
            for (size_t k = 0; k < ev[e].n; k++) {
                unsigned id = ev[e].index[k], last = (unsigned)(ev[e].before - 1 - k);
                unsigned *u = idx->p;
                for (size_t p = 0; p < idx->n; p++)
                    if (u[p] == last)
                        u[p] = id;
            }
            st_component_touch(self, st_component_field(self, side ? "second_point"
                                                                   : "first_point"));
            st_component_touch(self, st_component_field(self, "rest_vector"));
        }
    }
    return ST_OK;
}

/* Listens to topology1 and topology2, once each (reinit calls init). */
static st_status bil_follow(bilateral *b, st_error *err)
{
    st_component *t[2] = {b->topology1, b->topology2};
    for (int k = 0; k < 2; k++) {
        if (!t[k] || t[k] == b->listened[0] || t[k] == b->listened[1])
            continue;
        ST_TRY(st_topology_listen(&b->base, t[k], bil_topology_changed, err));
        b->listened[k] = t[k];
    }
    return ST_OK;
}

static st_status bil_init(st_component *self, st_error *err)
{
    bilateral *b = (bilateral *)self;
    b->ms1 = b->object1 ? (st_mstate *)b->object1 : st_component_mstate(self);
    b->ms2 = b->object2 ? (st_mstate *)b->object2 : st_component_mstate(self);
    ST_TRY(check_state(self, "first_point", b->ms1, &b->m1, err));
    ST_TRY(check_state(self, "second_point", b->ms2, &b->m2, err));
    if (b->ms1->type != b->ms2->type)
        return st_component_error(self, "object2", err, ST_EINVAL,
                                  "object1 '%s' is %s and object2 '%s' is %s: both must have "
                                  "the same type",
                                  b->ms1->base.name, b->ms1->type->name, b->ms2->base.name,
                                  b->ms2->type->name);
    b->rows = b->ms1->type->rigid ? 6 : 3;
    if (b->keep_orient && b->rows != 6)
        return st_component_error(self, "keepOrientationDifference", err, ST_EINVAL,
                                  "keepOrientationDifference: only for rigids (the states are "
                                  "%s)",
                                  b->ms1->type->name);
    if (b->m1.n != b->m2.n)
        st_component_warn(self, "first_point has %zu indices and second_point %zu: only the "
                                "first %zu pairs are constrained",
                          b->m1.n, b->m2.n, pairs(b));
    if (b->load < 0.0) {
        st_component_warn_field(self, "load", "The load cannot be negative. Setting it back to "
                                              "0.0. Input value is %g",
                                b->load);
        b->load = 0.0;
    } else if (b->load > 1.0) {
        st_component_warn_field(self, "load", "The load cannot be greater than 1.0. Setting it "
                                              "back to 1.0. Input value is %g",
                                b->load);
        b->load = 1.0;
    }
    ST_TRY(keep_difference(b, err));
    ST_TRY(reserve(b, pairs(b), err));
    return bil_follow(b, err);
}

static void bil_reset(st_component *self)
{
    bilateral *b = (bilateral *)self;
    if (b->prev)
        memset(b->prev, 0, b->rows * b->cap * sizeof *b->prev);
}

static void bil_cleanup(st_component *self)
{
    bilateral *b = (bilateral *)self;
    st_free(b->prev);
    st_free(b->invw);
    st_free(b->diff);
    b->prev = b->invw = b->diff = NULL;
    b->cap = 0;
}

static void bil_size(st_component *self, size_t *rows, size_t *terms)
{
    bilateral *b = (bilateral *)self;
    size_t n = active(b) ? pairs(b) : 0;
    *rows = b->rows * n;
    *terms = 2 * b->rows * n;
}

/* Rigid3d: the six rows of pair p. */
static void rigid_rows(bilateral *b, st_cjacobian *J, double *violation, size_t p)
{
    const unsigned *m1 = b->m1.p, *m2 = b->m2.p;
    const double *P = (const double *)b->ms1->position.p + 7 * m1[p];
    const double *Q = (const double *)b->ms2->position.p + 7 * m2[p];
    double c1[3] = {P[0], P[1], P[2]}, q1[4] = {P[3], P[4], P[5], P[6]};
    if (b->keep_orient && b->diff) {
        const double *d = b->diff + 7 * p;
        for (int k = 0; k < 3; k++)
            c1[k] += d[k];
        st_quat_mul(q1, P + 3, d + 3);
    }
    double v[6], dq[4], rv[3];
    for (int k = 0; k < 3; k++)
        v[k] = Q[k] - c1[k];
    quat_diff(Q + 3, q1, dq);
    quat_to_rotation_vector(dq, rv);
    st_quat_rotate(v + 3, q1, rv);
    const double *rest = b->rest.p;
    for (unsigned k = 0; k < 6; k++) {
        double e[6] = {0, 0, 0, 0, 0, 0};
        size_t r = st_cjac_row(J);
        e[k] = -1.0;
        st_cjac_add(J, b->ms1, m1[p], e, 6);
        e[k] = 1.0;
        st_cjac_add(J, b->ms2, m2[p], e, 6);
        violation[r] = v[k] - (p < b->rest.n ? rest[6 * p + k] : 0.0);
    }
}

static st_status bil_build(st_component *self, st_cjacobian *J, double *violation, st_error *err)
{
    bilateral *b = (bilateral *)self;
    if (!active(b))
        return ST_OK;
    size_t n = pairs(b);
    ST_TRY(reserve(b, n, err));
    const unsigned *m1 = b->m1.p, *m2 = b->m2.p;
    const double *x1 = b->ms1->position.p, *x2 = b->ms2->position.p;
    const double *rest = b->rest.p;
    for (size_t p = 0; p < n; p++) {
        if (m1[p] >= b->ms1->n || m2[p] >= b->ms2->n)
            return st_component_error(self, "first_point", err, ST_EINVAL,
                                      "pair %zu (%u, %u) is out of range", p, m1[p], m2[p]);
        if (b->rows == 6) {
            rigid_rows(b, J, violation, p);
            continue;
        }
        for (unsigned k = 0; k < 3; k++) {
            double e[3] = {0.0, 0.0, 0.0};
            size_t r = st_cjac_row(J);
            e[k] = -1.0;
            st_cjac_add(J, b->ms1, m1[p], e, 3);
            e[k] = 1.0;
            st_cjac_add(J, b->ms2, m2[p], e, 3);
            double v = x2[3 * m2[p] + k] - x1[3 * m1[p] + k];
            if (p < b->rest.n)
                v -= rest[3 * p + k];
            violation[r] = v;
        }
    }
    return ST_OK;
}

static void bil_init_resolution(st_component *self, size_t first, const double *W, size_t dim,
                                double *lambda)
{
    bilateral *b = (bilateral *)self;
    b->first = first;
    size_t n = active(b) ? pairs(b) * (b->rows / 3) : 0;
    for (size_t p = 0; p < n && p < b->cap * (b->rows / 3); p++) {
        size_t r = first + 3 * p;
        double blk[9];
        for (unsigned i = 0; i < 3; i++)
            for (unsigned j = 0; j < 3; j++)
                blk[3 * i + j] = W[(r + i) * dim + r + j];
        double det = st_m3_inverse(b->invw + 9 * p, blk);
        if (det == 0.0 || !isfinite(det)) {
            memset(b->invw + 9 * p, 0, 9 * sizeof(double));
            if (!b->warned)
                st_component_warn(self, "pair %zu: its block of the compliance W is singular "
                                        "(no constraint correction on its states?): left "
                                        "unsolved (reported once)",
                                  p);
            b->warned = true;
        }
        /* SOFA warm starts the Vec3d blocks only (its Rigid3d blocks are
         * made without the previous forces). */
        for (unsigned i = 0; i < 3 && b->rows == 3; i++)
            lambda[r + i] = b->prev[3 * p + i];
    }
}

static unsigned bil_block_rows(const st_component *self)
{
    (void)self;
    return 3;
}

static void bil_resolution(st_component *self, size_t row, const double *W, size_t dim,
                           const double *d, double *lambda)
{
    (void)W;
    (void)dim;
    bilateral *b = (bilateral *)self;
    const double *iw = b->invw + 9 * ((row - b->first) / 3);
    /* SOFA's Rigid3d blocks are made with the default load, 1. */
    double load = b->rows == 3 ? b->load : 1.0;
    for (unsigned i = 0; i < 3; i++)
        for (unsigned j = 0; j < 3; j++)
            lambda[row + i] -= d[row + j] * iw[3 * i + j] * load;
}

static void bil_store(st_component *self, size_t first, const double *lambda, bool converged)
{
    (void)converged;
    bilateral *b = (bilateral *)self;
    size_t n = active(b) ? pairs(b) : 0;
    for (size_t p = 0; p < n && p < b->cap; p++)
        for (unsigned i = 0; i < b->rows; i++)
            b->prev[b->rows * p + i] = lambda[first + b->rows * p + i];
}

static const st_constraint_ops bilateral_ops = {
    .struct_size = sizeof(st_constraint_ops),
    .size = bil_size,
    .build = bil_build,
    .init_resolution = bil_init_resolution,
    .block_rows = bil_block_rows,
    .resolution = bil_resolution,
    .store = bil_store,
};

static const char *const bilateral_aliases[] = {"BilateralInteractionConstraint", NULL};
static const char *const bilateral_templates[] = {"Vec3d", "Rigid3d", NULL};

/* Checkpoints: the pairs a topological change left (first_point,
 * second_point, rest_vector and the orientation differences: a removed
 * point erases its pair) and the multipliers of the last step (the warm
 * start), so that a resumed run is bit-identical. */
static st_status bil_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    bilateral *b = (bilateral *)self;
    size_t before = pairs(b);
    ST_TRY(st_checkpoint_field(ck, self, "first_point", err));
    ST_TRY(st_checkpoint_field(ck, self, "second_point", err));
    ST_TRY(st_checkpoint_field(ck, self, "rest_vector", err));
    size_t np = pairs(b);
    if (st_checkpoint_reading(ck) && np > before && b->diff) {
        double *d = st_realloc(b->diff, 7 * np * sizeof *d);
        if (!d)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        b->diff = d;
    }
    if (b->diff && np)
        ST_TRY(st_checkpoint_data(ck, b->diff, 7 * np * sizeof *b->diff, err));
    size_t cap = b->cap;
    ST_TRY(st_checkpoint_data(ck, &cap, sizeof cap, err));
    if (st_checkpoint_reading(ck))
        ST_TRY(reserve(b, cap, err));
    return cap ? st_checkpoint_data(ck, b->prev, b->rows * cap * sizeof *b->prev, err) : ST_OK;
}

static const st_checkpoint_ops bil_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = bil_checkpoint,
};

const st_class bilateral_lagrangian_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "BilateralLagrangianConstraint",
    .category = "Constraint",
    .description = "Bilateral constraint: keeps the relative position of point pairs of two "
                   "objects (Lagrange multipliers)",
    .aliases = bilateral_aliases,
    .templates = bilateral_templates,
    .instance_size = sizeof(bilateral),
    .fields = bilateral_fields,
    .init = bil_init,
    .reset = bil_reset,
    .cleanup = bil_cleanup,
    .constraint = &bilateral_ops,
    .checkpoint = &bil_checkpoint_ops,
};
