/* uncoupled_constraint_correction.c - UncoupledConstraintCorrection (Vec1d,
 * Vec2d, Vec3d): a diagonal compliance, one value per point ("compliance",
 * else "defaultCompliance"), as SOFA:
 *   W += factor * J diag(c) J^T, factor the ODE solver's position
 *   integration factor (dt for EulerImplicitSolver) when
 *   useOdeSolverIntegrationFactors, else 1;
 *   dx = diag(c) J^T lambda, x = x_free + pf dx, v = v_free + vf dx, with
 *   pf, vf the solver's position and velocity factors, else
 *   correctionPositionFactor and correctionVelocityFactor / dt.
 * A compliance of 1/m makes lambda the constraint impulse. SOFA computes a
 * compliance from the mass only for Rigid3d (not done here). */
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

static st_status unc_init(st_component *self, st_error *err)
{
    uncoupled *u = (uncoupled *)self;
    u->ms = st_component_mstate(self);
    if (!u->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node to correct");
    bool def_set = st_component_is_set(self, "defaultCompliance");
    if (!def_set && !st_component_is_set(self, "compliance"))
        st_component_warn(self, "Neither the 'defaultCompliance' nor the 'compliance' data is "
                                "set, please set one to define your compliance matrix");
    if (u->default_compliance == 0.0)
        return st_component_error(self, "defaultCompliance", err, ST_EINVAL,
                                  "Zero defaultCompliance is set: this will cause the "
                                  "constraint resolution to diverge");
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
    st_free(u->f);
    u->f = st_calloc(u->ms->n ? u->ms->n * u->ms->type->deriv_size : 1, sizeof *u->f);
    if (!u->f)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    return ST_OK;
}

static void unc_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    uncoupled *u = (uncoupled *)self;
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
    u->f = NULL;
}

static double comp_of(const uncoupled *u, size_t point)
{
    const double *c = u->compliance.p;
    return point < u->compliance.n ? c[point] : u->default_compliance;
}

static st_status unc_add_compliance(st_component *self, const st_cjacobian *J, double *W,
                                    size_t dim, st_error *err)
{
    (void)err;
    uncoupled *u = (uncoupled *)self;
    const st_mstate *ms = u->ms;
    unsigned d = ms->type->deriv_size;
    double factor =
        u->use_ode_factors ? corr_position_factor(corr_ode_solver(ms), st_node_dt(self->node))
                           : 1.0;
    for (size_t r = 0; r < J->nrows; r++) {
        if (!corr_row_on(J, r, ms))
            continue;
        for (size_t s = r; s < J->nrows; s++) {
            double w = 0.0;
            for (size_t a = st_cjac_row_begin(J, r); a < J->row_end[r]; a++) {
                const st_cterm *ta = &J->terms[a];
                if (ta->ms != ms)
                    continue;
                for (size_t b = st_cjac_row_begin(J, s); b < J->row_end[s]; b++) {
                    const st_cterm *tb = &J->terms[b];
                    if (tb->ms != ms || tb->point != ta->point)
                        continue;
                    double dot = 0.0;
                    for (unsigned k = 0; k < d; k++)
                        dot += ta->d[k] * tb->d[k];
                    w += dot * comp_of(u, ta->point) * factor;
                }
            }
            if (w == 0.0)
                continue;
            W[r * dim + s] += w;
            if (s != r)
                W[s * dim + r] += w;
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
    double dt = st_node_dt(self->node);
    st_component *ode = corr_ode_solver(ms);
    double pf = u->use_ode_factors ? corr_position_factor(ode, dt) : u->position_factor;
    double vf = u->use_ode_factors ? corr_velocity_factor(ode, dt) : u->velocity_factor / dt;
    corr_jt_lambda(J, lambda, ms, u->f);
    double *x = ms->position.p, *v = ms->velocity.p;
    for (size_t i = 0; i < ms->n; i++) {
        double c = comp_of(u, i);
        for (unsigned k = 0; k < d; k++) {
            double dx = u->f[i * d + k] * c;
            x[i * d + k] += dx * pf;
            if (v)
                v[i * d + k] += dx * vf;
        }
    }
    return ST_OK;
}

static const st_ccorrection_ops uncoupled_ops = {
    .struct_size = sizeof(st_ccorrection_ops),
    .add_compliance = unc_add_compliance,
    .apply_correction = unc_apply,
};

static const char *const uncoupled_templates[] = {"Vec3d", "Vec2d", "Vec1d", NULL};

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
