/* uncoupled_constraint_correction.c - UncoupledConstraintCorrection (Vec1d,
 * Vec2d, Vec3d, Rigid3d): a diagonal compliance, one value per point
 * ("compliance", else "defaultCompliance"); for Rigid3d seven values shared
 * by every body (translation, then the upper triangle of the symmetric 3x3
 * rotation compliance), as SOFA:
 *   W += factor * J diag(c) J^T, factor the ODE solver's position
 *   integration factor (dt for EulerImplicitSolver) when
 *   useOdeSolverIntegrationFactors, else 1;
 *   dx = diag(c) J^T lambda, x = x_free + pf dx, v = v_free + vf dx, with
 *   pf, vf the solver's position and velocity factors, else
 *   correctionPositionFactor and correctionVelocityFactor / dt.
 * In the VEL order (solveVelocityConstraintFirst), SOFA's
 * applyVelocityCorrection: W takes the velocity factor instead (1 without
 * ODE factors), v = v_free + vf dx with vf the solver's velocity factor or
 * correctionVelocityFactor (not divided by dt), positions untouched.
 * A compliance of 1/m makes lambda the constraint impulse. For Rigid3d
 * without seven compliance values, SOFA's rule (at the end of init): with
 * defaultCompliance set, (defaultCompliance, identity rotation block);
 * else from the node's UniformMass, (1/m, (m I)^-1 upper triangle), each
 * times f = 1, or h^2 when useOdeSolverIntegrationFactors is false. */
#include <string.h>

#include "correction_common.h"

typedef struct uncoupled {
    st_component base;
    st_array compliance;        /* "compliance" */
    double default_compliance;  /* "defaultCompliance" */
    bool verbose;               /* "verbose" (ignored) */
    double velocity_factor;     /* "correctionVelocityFactor" */
    double position_factor;     /* "correctionPositionFactor" */
    bool use_ode_factors;       /* "useOdeSolverIntegrationFactors" */
    st_component *topology;     /* "topology" */
    /* Runtime. */
    st_mstate *ms;
    double *f;                  /* J^T lambda on the state, then dx */
    bool rigid;                 /* Rigid3d: seven shared values */
    /* J's terms on the state by point (rebuilt each solve, buffers kept):
     * bucket p is ent[head[p] .. head[p + 1]), each a (row, term) pair. */
    size_t *head, caphead;
    size_t (*ent)[2];
    size_t capent;
    double rc[7];               /* Rigid3d compliance in use */
} uncoupled;

static const st_field uncoupled_fields[] = {
    ST_REALS(uncoupled, compliance, "compliance", NULL,
             "Compliance value on each dof. If Rigid compliance (7 values): 1st value for "
             "translations, 6 others for upper-triangular part of symmetric 3x3 rotation "
             "compliance matrix"),
    ST_REAL(uncoupled, default_compliance, "defaultCompliance", "1e-05",
            "Default compliance value for new dof or if all should have the same (in which "
            "case compliance vector should be empty)"),
    ST_IGNORED(uncoupled, verbose, "verbose", ST_T_BOOL, bool, "false",
               "Dump the constraint matrix at each iteration (settee: use printLog on the "
               "solver)"),
    ST_REAL(uncoupled, velocity_factor, "correctionVelocityFactor", "1",
            "Factor applied to the constraint forces when correcting the velocities"),
    ST_REAL(uncoupled, position_factor, "correctionPositionFactor", "1",
            "Factor applied to the constraint forces when correcting the positions"),
    ST_BOOL(uncoupled, use_ode_factors, "useOdeSolverIntegrationFactors", "true",
            "Use odeSolver integration factors instead of correctionVelocityFactor and "
            "correctionPositionFactor"),
    ST_LINK(uncoupled, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (settee: topological changes are not handled)"),
    ST_FIELD_END};

/* Rigid3d: a given compliance has seven values, translation and rotation
 * diagonal non-zero. */
static st_status rigid_check(uncoupled *u, st_error *err)
{
    const double *c = u->compliance.p;
    if (u->compliance.n == 0)
        return ST_OK;
    if (u->compliance.n != 7)
        return st_component_error(&u->base, "compliance", err, ST_EINVAL,
                                  "Compliance vector should have 7 values in rigid case (1 for "
                                  "translation dofs, and 6 for the rotation matrix); got %zu",
                                  u->compliance.n);
    if (c[0] == 0.0)
        return st_component_error(&u->base, "compliance", err, ST_EINVAL,
                                  "Zero compliance set on translation dofs: this will cause the "
                                  "constraint resolution to diverge (compliance[0])");
    if (c[1] == 0.0 || c[4] == 0.0 || c[6] == 0.0)
        return st_component_error(&u->base, "compliance", err, ST_EINVAL,
                                  "Zero compliance set on rotation dofs (matrix diagonal): this "
                                  "will cause the constraint resolution to diverge");
    memcpy(u->rc, c, sizeof u->rc);
    return ST_OK;
}

/* Rigid3d without seven values: SOFA's rule, once every component is
 * initialised (the mass in use is known). */
static void rigid_from_mass(uncoupled *u)
{
    st_component *self = &u->base;
    if (u->compliance.n == 7)
        return;
    double f = 1.0;
    if (!u->use_ode_factors && st_node_find(self->node, ST_ROLE_ODESOLVER, ST_SEARCH_UP)) {
        double h = st_node_dt(self->node);
        f = h * h;
    }
    double m = 1.0, inertia[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (st_component_is_set(self, "defaultCompliance")) {
        u->rc[0] = u->default_compliance;
    } else {
        const st_mass_value *mv = NULL;
        for (size_t i = 0; i < st_node_object_count(self->node) && !mv; i++) {
            st_component *c = st_node_object(self->node, i);
            const st_field *fd = st_component_field(c, "vertexMass");
            if (strcmp(c->cls->name, "UniformMass") == 0 && fd && fd->type == ST_T_MASS)
                mv = st_component_field_ptr(c, fd);
        }
        if (!mv) {
            st_component_warn(self, "Default compliance is not set and no UniformMass is found "
                                    "to evaluate the compliance matrix: defaultCompliance %g "
                                    "is used",
                              u->default_compliance);
            u->rc[0] = u->default_compliance;
        } else {
            m = mv->mass;
            memcpy(inertia, mv->inertia, sizeof inertia);
            u->rc[0] = f / m;
        }
    }
    double im[9], inv[9];
    for (int k = 0; k < 9; k++)
        im[k] = inertia[k] * m;
    if (st_m3_inverse(inv, im) == 0.0) {
        st_component_warn(self, "the inertia matrix times the mass is not invertible: identity "
                                "rotation compliance used");
        memcpy(inv, (double[9]){1, 0, 0, 0, 1, 0, 0, 0, 1}, sizeof inv);
    }
    u->rc[1] = f * inv[0];
    u->rc[2] = f * inv[1];
    u->rc[3] = f * inv[2];
    u->rc[4] = f * inv[4];
    u->rc[5] = f * inv[5];
    u->rc[6] = f * inv[8];
}

static st_status unc_init(st_component *self, st_error *err)
{
    uncoupled *u = (uncoupled *)self;
    u->ms = st_component_mstate(self);
    if (!u->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors to correct");
    bool def_set = st_component_is_set(self, "defaultCompliance");
    if (!def_set && !st_component_is_set(self, "compliance"))
        st_component_warn(self, "Neither the 'defaultCompliance' nor the 'compliance' data is "
                                "set, please set one to define your compliance matrix");
    if (u->default_compliance == 0.0)
        return st_component_error(self, "defaultCompliance", err, ST_EINVAL,
                                  "Zero defaultCompliance is set: this will cause the "
                                  "constraint resolution to diverge");
    u->rigid = u->ms->type->rigid;
    st_free(u->f);
    u->f = st_calloc(u->ms->n ? u->ms->n * u->ms->type->deriv_size : 1, sizeof *u->f);
    if (!u->f)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    if (u->rigid)
        return rigid_check(u, err);
    double *c = u->compliance.p;
    for (size_t i = 0; i < u->compliance.n; i++)
        if (c[i] == 0.0)
            return st_component_error(self, "compliance", err, ST_EINVAL,
                                      "Zero values set in the compliance vector: this will "
                                      "cause the constraint resolution to diverge");
    if (u->compliance.n == 1 && def_set && u->default_compliance == c[0])
        u->compliance.n = 0;
    if (u->compliance.n != 0 && u->compliance.n != u->ms->n) {
        if (u->compliance.n > 1)
            st_component_warn(self, "Compliance size (%zu) is not equal to the size of the "
                                    "mstate (%zu)",
                              u->compliance.n, u->ms->n);
        if (!def_set) {
            u->default_compliance = c[0];
            st_component_warn(self, "Instead a default compliance is used, set to the first "
                                    "value of the given vector 'compliance'");
        } else {
            st_component_warn(self, "Instead a default compliance is used");
        }
        ST_TRY(st_array_resize(&u->compliance, ST_T_REALS, u->ms->n, err));
        c = u->compliance.p;
        for (size_t i = 0; i < u->ms->n; i++)
            c[i] = u->default_compliance;
    }
    return ST_OK;
}

static void unc_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    uncoupled *u = (uncoupled *)self;
    if (ev == ST_EVENT_INIT_DONE && u->rigid)
        rigid_from_mass(u);
    if (ev == ST_EVENT_INIT_DONE && u->use_ode_factors && !corr_ode_solver(u->ms)) {
        st_component_warn(self, "Can't find any odeSolver: useOdeSolverIntegrationFactors is "
                                "set to false");
        u->use_ode_factors = false;
    }
}

static void unc_cleanup(st_component *self)
{
    uncoupled *u = (uncoupled *)self;
    st_free(u->f);
    st_free(u->head);
    st_free(u->ent);
    u->f = NULL;
    u->head = NULL;
    u->ent = NULL;
    u->caphead = u->capent = 0;
}

static double comp_of(const uncoupled *u, size_t point)
{
    const double *c = u->compliance.p;
    return point < u->compliance.n ? c[point] : u->default_compliance;
}

/* n1 C n2 for one point (the compliance without the integration factor). */
static double term_comp(const uncoupled *u, size_t point, const double *a, const double *b,
                        unsigned d)
{
    if (!u->rigid) {
        double dot = 0.0;
        for (unsigned k = 0; k < d; k++)
            dot += a[k] * b[k];
        return dot * comp_of(u, point);
    }
    const double *c = u->rc;
    double w = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) * c[0];
    w += (a[3] * c[1] + a[4] * c[2] + a[5] * c[3]) * b[3];
    w += (a[3] * c[2] + a[4] * c[4] + a[5] * c[5]) * b[4];
    w += (a[3] * c[3] + a[4] * c[5] + a[5] * c[6]) * b[5];
    return w;
}

/* dx = C f for one point. */
static void point_dx(const uncoupled *u, size_t point, const double *f, double *dx, unsigned d)
{
    if (!u->rigid) {
        double c = comp_of(u, point);
        for (unsigned k = 0; k < d; k++)
            dx[k] = f[k] * c;
        return;
    }
    const double *c = u->rc;
    for (unsigned k = 0; k < 3; k++)
        dx[k] = f[k] * c[0];
    dx[3] = f[3] * c[1] + f[4] * c[2] + f[5] * c[3];
    dx[4] = f[3] * c[2] + f[4] * c[4] + f[5] * c[5];
    dx[5] = f[3] * c[3] + f[4] * c[5] + f[5] * c[6];
}

/* Buckets J's terms on the state by point (counting sort, rows ascending). */
static st_status bucket_terms(uncoupled *u, const st_cjacobian *J, st_error *err)
{
    const st_mstate *ms = u->ms;
    if (u->caphead < ms->n + 2) {
        size_t *h = st_realloc(u->head, (ms->n + 2) * sizeof *h);
        if (!h)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        u->head = h;
        u->caphead = ms->n + 2;
    }
    memset(u->head, 0, (ms->n + 2) * sizeof *u->head);
    size_t total = 0;
    for (size_t t = 0; t < J->nterms; t++)
        if (J->terms[t].ms == ms && J->terms[t].point < ms->n) {
            u->head[J->terms[t].point + 2]++;
            total++;
        }
    if (u->capent < total) {
        size_t (*e)[2] = st_realloc(u->ent, total * sizeof *e);
        if (!e)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        u->ent = e;
        u->capent = total;
    }
    for (size_t p = 2; p < ms->n + 2; p++)
        u->head[p] += u->head[p - 1];
    /* head[p + 1] is now bucket p's start; filling advances it to its end. */
    for (size_t r = 0; r < J->nrows; r++)
        for (size_t t = st_cjac_row_begin(J, r); t < J->row_end[r]; t++) {
            const st_cterm *c = &J->terms[t];
            if (c->ms != ms || c->point >= ms->n)
                continue;
            size_t k = u->head[c->point + 1]++;
            u->ent[k][0] = r;
            u->ent[k][1] = t;
        }
    return ST_OK;
}

/* W[r][s] += sum over term pairs of rows r and s on the same point of
 * n_r C n_s times the factor; pairs found through the point buckets. */
static st_status unc_add_compliance(st_component *self, const st_cjacobian *J, double *W,
                                    size_t dim, st_error *err)
{
    uncoupled *u = (uncoupled *)self;
    const st_mstate *ms = u->ms;
    unsigned d = ms->type->deriv_size;
    /* SOFA's correctionFactor: the position factor, the velocity one in the
     * VEL order. */
    st_component *ode = corr_ode_solver(ms);
    double dt = corr_dt(self, ms);
    double factor = !u->use_ode_factors ? 1.0
                    : J->order == ST_CORDER_VEL ? corr_velocity_factor(ode, dt)
                                                : corr_position_factor(ode, dt);
    ST_TRY(bucket_terms(u, J, err));
    for (size_t p = 0; p < ms->n; p++) {
        for (size_t i = u->head[p]; i < u->head[p + 1]; i++) {
            size_t r = u->ent[i][0];
            const st_cterm *ta = &J->terms[u->ent[i][1]];
            for (size_t j = i; j < u->head[p + 1]; j++) {
                size_t s2 = u->ent[j][0];
                const st_cterm *tb = &J->terms[u->ent[j][1]];
                double w = term_comp(u, p, ta->d, tb->d, d) * factor;
                if (w == 0.0)
                    continue;
                W[r * dim + s2] += w;
                if (s2 != r || i != j)
                    W[s2 * dim + r] += w;
            }
        }
    }
    return ST_OK;
}

static st_status unc_apply(st_component *self, const st_cjacobian *J, const double *lambda,
                           st_error *err)
{
    (void)err;
    uncoupled *u = (uncoupled *)self;
    st_mstate *ms = u->ms;
    unsigned d = ms->type->deriv_size;
    double dt = corr_dt(self, ms);
    st_component *ode = corr_ode_solver(ms);
    bool vel = J->order == ST_CORDER_VEL;
    double pf = u->use_ode_factors ? corr_position_factor(ode, dt) : u->position_factor;
    /* SOFA's applyVelocityCorrection takes correctionVelocityFactor as it is;
     * applyMotionCorrection divides it by dt. */
    double vf = u->use_ode_factors ? corr_velocity_factor(ode, dt)
                : vel                ? u->velocity_factor
                                     : u->velocity_factor / dt;
    corr_jt_lambda(J, lambda, ms, u->f);
    double *v = ms->velocity.p;
    for (size_t i = 0; i < ms->n; i++) {
        double dx[6];
        point_dx(u, i, u->f + i * d, dx, d);
        for (unsigned k = 0; k < d; k++) {
            u->f[i * d + k] = dx[k];
            if (v)
                v[i * d + k] += dx[k] * vf;
        }
    }
    if (!vel)
        ms->type->add_deriv(ms->position.p, ms->position.p, u->f, pf, ms->n);
    return ST_OK;
}

static const st_ccorrection_ops uncoupled_ops = {
    .struct_size = sizeof(st_ccorrection_ops),
    .add_compliance = unc_add_compliance,
    .apply_correction = unc_apply,
    .velocity_order = true,
};

static const char *const uncoupled_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Rigid3d", NULL};

const st_class uncoupled_constraint_correction_class = {
    .struct_size = sizeof(st_class),
    .name = "UncoupledConstraintCorrection",
    .category = "ConstraintCorrection",
    .description = "Component computing constraint forces within a simulated body using the "
                   "compliance method, approximating the compliance matrix by a diagonal matrix.",
    .instance_size = sizeof(uncoupled),
    .fields = uncoupled_fields,
    .init = unc_init,
    .cleanup = unc_cleanup,
    .on_event = unc_on_event,
    .templates = uncoupled_templates,
    .constraint_correction = &uncoupled_ops,
};
