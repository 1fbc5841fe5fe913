/* bilateral_lagrangian_constraint.c - BilateralLagrangianConstraint (alias
 * BilateralInteractionConstraint), Vec3d: for each pair (first_point[i] of
 * object1, second_point[i] of object2) three rows, J = -I on the first
 * point and +I on the second, violation x2 - x1 - rest_vector[i] at the free
 * positions. Resolution as SOFA's BilateralConstraintResolution3Dof: the
 * 3x3 block of W inverted once per solve, lambda -= load W_bb^-1 d, warm
 * started from the previous step's multipliers. */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "model_common.h"

typedef struct bilateral {
    st_component base;
    st_component *object1, *object2; /* "object1", "object2" */
    st_array m1, m2;                 /* "first_point", "second_point" */
    st_array rest;                   /* "rest_vector" */
    bool activate;                   /* "activate" */
    bool keep_orient;                /* "keepOrientationDifference" (rigids only) */
    double load;                     /* "load" */
    st_component *topology1, *topology2; /* "topology1", "topology2" */
    double end_time;                 /* "endTime" */
    int group;                       /* "group" */
    unsigned constraint_index;       /* "constraintIndex" */
    /* Runtime. */
    st_mstate *ms1, *ms2;
    double *prev;                    /* 3 per pair: the last multipliers */
    double *invw;                    /* 9 per pair: inverse of the diagonal block of W */
    size_t cap;                      /* pairs prev and invw hold */
    size_t first;                    /* first row this solve */
    bool warned;                     /* a singular block was reported */
} bilateral;

static const st_field bilateral_fields[] = {
    LAGRANGE_PAIR_LINKS(bilateral),
    ST_UINTS(bilateral, m1, "first_point", NULL,
             "index of the constraint on the first model (object1)"),
    ST_UINTS(bilateral, m2, "second_point", NULL,
             "index of the constraint on the second model (object2)"),
    ST_VEC3S(bilateral, rest, "rest_vector", NULL,
             "Relative position to maintain between attached points (optional)"),
    ST_BOOL(bilateral, activate, "activate", "true", "control constraint activation (true by "
                                                     "default)"),
    ST_IGNORED(bilateral, keep_orient, "keepOrientationDifference", ST_T_BOOL, bool, "false",
               "keep the initial difference in orientation (only for rigids; settee's "
               "BilateralLagrangianConstraint is Vec3d only)"),
    ST_REAL(bilateral, load, "load", "1",
            "Apply this factor to the constraint force to enable incremental loading. This "
            "value should be in the interval [0.0, 1.0]."),
    ST_LINK(bilateral, topology1, "topology1", ST_LINK_TOPOLOGY,
            "link to the first topology container (settee: topological changes are not "
            "handled)"),
    ST_LINK(bilateral, topology2, "topology2", ST_LINK_TOPOLOGY,
            "link to the second topology container (settee: topological changes are not "
            "handled)"),
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

static st_status reserve(bilateral *b, size_t n, st_error *err)
{
    if (n <= b->cap)
        return ST_OK;
    double *p = st_realloc(b->prev, 3 * n * sizeof *p);
    if (!p)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    b->prev = p;
    memset(p + 3 * b->cap, 0, 3 * (n - b->cap) * sizeof *p);
    double *w = st_realloc(b->invw, 9 * n * sizeof *w);
    if (!w)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    b->invw = w;
    b->cap = n;
    return ST_OK;
}

static st_status bil_init(st_component *self, st_error *err)
{
    bilateral *b = (bilateral *)self;
    b->ms1 = b->object1 ? (st_mstate *)b->object1 : st_component_mstate(self);
    b->ms2 = b->object2 ? (st_mstate *)b->object2 : st_component_mstate(self);
    ST_TRY(lagrange_check_vec3_side(self, "first_point", b->ms1, &b->m1, err));
    ST_TRY(lagrange_check_vec3_side(self, "second_point", b->ms2, &b->m2, err));
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
    return reserve(b, pairs(b), err);
}

static void bil_reset(st_component *self)
{
    bilateral *b = (bilateral *)self;
    if (b->prev)
        memset(b->prev, 0, 3 * b->cap * sizeof *b->prev);
}

static void bil_cleanup(st_component *self)
{
    bilateral *b = (bilateral *)self;
    st_free(b->prev);
    st_free(b->invw);
    b->prev = b->invw = NULL;
    b->cap = 0;
}

static void bil_size(st_component *self, size_t *rows, size_t *terms)
{
    bilateral *b = (bilateral *)self;
    size_t n = active(b) ? pairs(b) : 0;
    *rows = 3 * n;
    *terms = 6 * n;
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
    size_t n = active(b) ? pairs(b) : 0;
    for (size_t p = 0; p < n && p < b->cap; p++) {
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
        for (unsigned i = 0; i < 3; i++)
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
    for (unsigned i = 0; i < 3; i++)
        for (unsigned j = 0; j < 3; j++)
            lambda[row + i] -= d[row + j] * iw[3 * i + j] * b->load;
}

static void bil_store(st_component *self, size_t first, const double *lambda, bool converged)
{
    (void)converged;
    bilateral *b = (bilateral *)self;
    size_t n = active(b) ? pairs(b) : 0;
    for (size_t p = 0; p < n && p < b->cap; p++)
        for (unsigned i = 0; i < 3; i++)
            b->prev[3 * p + i] = lambda[first + 3 * p + i];
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

/* Checkpoints: the multipliers of the last step (the warm start), so that a
 * resumed run is bit-identical. */
static st_status bil_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    bilateral *b = (bilateral *)self;
    size_t cap = b->cap;
    ST_TRY(st_checkpoint_data(ck, &cap, sizeof cap, err));
    if (st_checkpoint_reading(ck))
        ST_TRY(reserve(b, cap, err));
    return cap ? st_checkpoint_data(ck, b->prev, 3 * cap * sizeof *b->prev, err) : ST_OK;
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
    .instance_size = sizeof(bilateral),
    .fields = bilateral_fields,
    .init = bil_init,
    .reset = bil_reset,
    .cleanup = bil_cleanup,
    .constraint = &bilateral_ops,
    .checkpoint = &bil_checkpoint_ops,
};
