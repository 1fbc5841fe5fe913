/* uniform_lagrangian_constraint.c - UniformLagrangianConstraint (alias
 * UniformConstraint): one row per coordinate of every point, J = e_j on
 * point i, violation x_ij (constrainToRestPos false) or x_ij - x0_ij at the
 * free positions, as SOFA. iterative: one BilateralConstraintResolution
 * per row (lambda -= d / W_ll); else SOFA's BilateralConstraintResolutionNDof
 * on all the rows at once (lambda -= W_bb^-1 d, W_bb factorised once per
 * solve, by Gauss-Jordan with partial pivoting on any number of rows). SOFA
 * registers Vec1d; settee accepts every Vec type (coordinates and
 * derivatives alike). In the VEL order (solveVelocityConstraintFirst) the
 * violation is SOFA's v_ij + (x_ij - x0_ij) / dt (x0 zero without
 * constrainToRestPos), x the positions at the start of the step, v the free
 * velocities, dt the node's. */
#include <math.h>
#include <string.h>

#include "model_common.h"

typedef struct uniform {
    st_component base;
    st_component *mstate;      /* "mstate" */
    bool iterative;            /* "iterative" */
    bool rest_pos;             /* "constrainToRestPos" */
    double end_time;           /* "endTime" */
    int group;                 /* "group" */
    unsigned constraint_index; /* "constraintIndex" */
    st_mstate *ms;
    double *inv;               /* not iterative: W_bb^-1, nb x nb */
    double *a, *dl;            /* its factorisation's and resolution's scratch */
    size_t nb;                 /* rows the block was sized for at init */
    size_t first;
    bool singular;             /* W_bb could not be inverted (reported once) */
} uniform;

static const st_field uniform_fields[] = {
    ST_LINK(uniform, mstate, "mstate", ST_LINK_STATE,
            "MechanicalState used by this component"),
    ST_BOOL(uniform, iterative, "iterative", "true",
            "Iterate over the bilateral constraints, otherwise a block factorisation is "
            "computed."),
    ST_BOOL(uniform, rest_pos, "constrainToRestPos", "false",
            "if false, constrains the pos to be zero / if true constraint the current "
            "position to stay at rest position"),
    LAGRANGE_MODEL_BASE_FIELDS(uniform),
    ST_FIELD_END};

static size_t nrows(const uniform *u)
{
    return u->ms->n * u->ms->type->deriv_size;
}

static void un_cleanup(st_component *self)
{
    uniform *u = (uniform *)self;
    st_free(u->inv);
    st_free(u->a);
    st_free(u->dl);
    u->inv = u->a = u->dl = NULL;
}

static st_status un_init(st_component *self, st_error *err)
{
    uniform *u = (uniform *)self;
    u->ms = st_component_mstate(self);
    if (!u->ms)
        return st_component_error(self, "mstate", err, ST_EINVAL,
                                  "no mechanical state in the node or its ancestors (set mstate "
                                  "or put a MechanicalObject in the node)");
    if (u->ms->type->rigid || u->ms->type->coord_size != u->ms->type->deriv_size)
        return st_component_error(self, "mstate", err, ST_EINVAL,
                                  "state '%s' is %s: UniformLagrangianConstraint needs a Vec "
                                  "type (SOFA: Vec1d)",
                                  u->ms->base.name, u->ms->type->name);
    un_cleanup(self);
    u->nb = 0;
    if (!u->iterative) {
        size_t n = nrows(u), nn = n ? n * n : 1;
        u->inv = st_malloc(nn * sizeof *u->inv);
        u->a = st_malloc(nn * sizeof *u->a);
        u->dl = st_malloc((n ? n : 1) * sizeof *u->dl);
        if (!u->inv || !u->a || !u->dl)
            return st_component_error(self, NULL, err, ST_ENOMEM,
                                      "out of memory for the %zu x %zu block of W", n, n);
        u->nb = n;
    }
    return ST_OK;
}


static bool alive(const uniform *u)
{
    return lagrange_model_alive(&u->base, u->end_time);
}

static void un_size(st_component *self, size_t *rows, size_t *terms)
{
    uniform *u = (uniform *)self;
    *rows = *terms = alive(u) ? nrows(u) : 0;
}

static st_status un_build(st_component *self, st_cjacobian *J, double *violation, st_error *err)
{
    uniform *u = (uniform *)self;
    if (!alive(u))
        return ST_OK;
    const st_mstate *ms = u->ms;
    unsigned d = ms->type->deriv_size;
    const double *x = ms->position.p, *x0 = ms->rest_position.p, *v = ms->velocity.p;
    bool vel = J->order == ST_CORDER_VEL;
    double inv_dt = vel ? 1.0 / st_node_dt(self->node) : 0.0;
    if (u->rest_pos && ms->rest_position.n < ms->n)
        return st_component_error(self, "constrainToRestPos", err, ST_EINVAL,
                                  "'%s' has %zu rest positions for %zu points",
                                  ms->base.name, ms->rest_position.n, ms->n);
    for (size_t i = 0; i < ms->n; i++)
        for (unsigned j = 0; j < d; j++) {
            double e[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
            e[j] = 1.0;
            size_t r = st_cjac_row(J);
            st_cjac_add(J, u->ms, i, e, d);
            double dx = x[i * d + j] - (u->rest_pos ? x0[i * d + j] : 0.0);
            violation[r] = vel ? (v ? v[i * d + j] : 0.0) + inv_dt * dx : dx;
        }
    return ST_OK;
}

/* Gauss-Jordan inverse with partial pivoting of the n x n a (destroyed);
 * false when singular. */
static bool invert(double *a, double *inv, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++)
            inv[i * n + j] = i == j ? 1.0 : 0.0;
    for (unsigned c = 0; c < n; c++) {
        unsigned p = c;
        for (unsigned r = c + 1; r < n; r++)
            if (fabs(a[r * n + c]) > fabs(a[p * n + c]))
                p = r;
        if (a[p * n + c] == 0.0 || !isfinite(a[p * n + c]))
            return false;
        for (unsigned j = 0; j < n; j++) {
            double t = a[c * n + j];
            a[c * n + j] = a[p * n + j];
            a[p * n + j] = t;
            t = inv[c * n + j];
            inv[c * n + j] = inv[p * n + j];
            inv[p * n + j] = t;
        }
        double piv = a[c * n + c];
        for (unsigned j = 0; j < n; j++) {
            a[c * n + j] /= piv;
            inv[c * n + j] /= piv;
        }
        for (unsigned r = 0; r < n; r++) {
            if (r == c)
                continue;
            double f = a[r * n + c];
            for (unsigned j = 0; j < n; j++) {
                a[r * n + j] -= f * a[c * n + j];
                inv[r * n + j] -= f * inv[c * n + j];
            }
        }
    }
    return true;
}

static void un_init_resolution(st_component *self, size_t first, const double *W, size_t dim,
                               double *lambda)
{
    (void)lambda;
    uniform *u = (uniform *)self;
    u->first = first;
    if (u->iterative || !alive(u))
        return;
    unsigned n = (unsigned)nrows(u);
    if (n != u->nb) { /* the state changed size since init */
        if (!u->singular)
            st_component_warn(self, "its state has %u rows, its block was sized for %zu at "
                                    "init: left unsolved (reported once)",
                              n, u->nb);
        u->singular = true;
        return;
    }
    double *a = u->a;
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++)
            a[i * n + j] = W[(first + i) * dim + first + j];
    if (!invert(a, u->inv, n)) {
        memset(u->inv, 0, (size_t)n * n * sizeof *u->inv);
        if (!u->singular)
            st_component_warn(self, "its block of the compliance W is singular (no constraint "
                                    "correction on its state?): left unsolved (reported once)");
        u->singular = true;
    }
}

static unsigned un_block_rows(const st_component *self)
{
    const uniform *u = (const uniform *)self;
    return u->iterative ? 1 : (unsigned)nrows(u);
}

static void un_resolution(st_component *self, size_t row, const double *W, size_t dim,
                          const double *d, double *lambda)
{
    uniform *u = (uniform *)self;
    if (u->iterative) {
        lagrange_bilateral_row(row, W, dim, d, lambda);
        return;
    }
    unsigned n = (unsigned)nrows(u);
    if (n != u->nb)
        return; /* said in un_init_resolution */
    double *dl = u->dl;
    for (unsigned i = 0; i < n; i++) {
        dl[i] = 0.0;
        for (unsigned j = 0; j < n; j++)
            dl[i] += u->inv[i * n + j] * d[row + j];
    }
    for (unsigned i = 0; i < n; i++)
        lambda[row + i] -= dl[i];
}

static const st_constraint_ops uniform_ops = {
    .struct_size = sizeof(st_constraint_ops),
    .size = un_size,
    .build = un_build,
    .init_resolution = un_init_resolution,
    .block_rows = un_block_rows,
    .resolution = un_resolution,
    .velocity_order = true,
};

static const char *const uniform_aliases[] = {"UniformConstraint", NULL};
static const char *const uniform_templates[] = {"Vec1d", "Vec2d", "Vec3d", NULL};

const st_class uniform_lagrangian_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "UniformLagrangianConstraint",
    .category = "Constraint",
    .description = "A constraint equation applied on all dofs.",
    .aliases = uniform_aliases,
    .templates = uniform_templates,
    .instance_size = sizeof(uniform),
    .fields = uniform_fields,
    .init = un_init,
    .cleanup = un_cleanup,
    .constraint = &uniform_ops,
};
