/* bdf_ode_solver.c - BDFOdeSolver: SOFA's velocity-based backward
 * differentiation formula of any order with variable time steps
 * (BaseLinearMultiStepMethod + BDFOdeSolver). With the times t_0..t_s of
 * the last s + 1 states (s the order, reduced at the start while fewer
 * states exist), the coefficients come from the derivative of the Lagrange
 * polynomials at t_s, scaled so that a_s = 1 (b_s = 1 / a_s before the
 * scaling, the other b_j zero). Each step solves, by the Newton-Raphson
 * iterations of a NewtonRaphsonSolver (link newtonSolver, else the first
 * one below the node), the residual
 *   r1 = sum_j a_j x_j - h sum_j b_j v_j
 *   r2 = M sum_j a_j v_j - h sum_j b_j f_j,  f = P (f(x, v) - rM M v + rK K v)
 * for x_s, v_s; the Jacobian system in dv is
 *   (a_s + h b_s rM) M - h b_s B - h b_s (rK + h b_s / a_s) K) dv
 *     = -r2 - h b_s / a_s K r1
 * then dx = h b_s / a_s dv - r1 / a_s (SOFA's two-step solve). The first
 * guess is x_s = x_{s-1} + h v_{s-1}, v_s = v_{s-1}. Vec states only
 * (positions are combined linearly). */
#include <math.h>
#include <string.h>

#include "backward_common.h"
#include "newton_raphson.h"

/* Beyond this order the method is not zero-stable (SOFA warns beyond 6);
 * the history is allocated for the order asked, up to this bound. */
#define BDF_MAX_ORDER 12

typedef struct bdf_solver {
    st_component base;
    unsigned order;               /* "order" */
    double rayleigh_stiffness;    /* "rayleighStiffness" */
    double rayleigh_mass;         /* "rayleighMass" */
    st_component *newton_link;    /* "newtonSolver" link */
    st_component *linear_solver;  /* "linearSolver" link */
    /* Runtime. */
    st_system *sys;
    st_component *ls;
    newton_raphson *nr;
    double times[BDF_MAX_ORDER + 1];
    size_t ntimes;
    unsigned long nsolves;        /* SOFA's m_currentSolve */
    double a[BDF_MAX_ORDER + 1], b[BDF_MAX_ORDER + 1];
    double *hx[BDF_MAX_ORDER], *hv[BDF_MAX_ORDER]; /* hx[k] = x_{n-k} */
    double *f, *r1, *r2, *rhs, *dv, *dx, *vsum;
    unsigned cur_order;
    double dt;
} bdf_solver;

static const st_field bdf_fields[] = {
    ST_FIELD_EX(bdf_solver, order, "order", ST_T_UINT, unsigned, "1",
                "Order of the numerical method (0 is taken as 1; beyond 6 the method is not "
                "zero-stable)",
                0, NULL, 0.0, (double)BDF_MAX_ORDER),
    ST_REAL(bdf_solver, rayleigh_stiffness, "rayleighStiffness", "0",
            "Rayleigh damping coefficient related to stiffness, > 0"),
    ST_REAL(bdf_solver, rayleigh_mass, "rayleighMass", "0",
            "Rayleigh damping coefficient related to mass, > 0"),
    ST_LINK(bdf_solver, newton_link, "newtonSolver", ST_LINK_ANY,
            "Link to a Newton-Raphson solver to solve the nonlinear equation produced by this "
            "numerical method"),
    ST_LINK(bdf_solver, linear_solver, "linearSolver", ST_LINK_LINEAR_SOLVER,
            "Linear solver used by this component"),
    ST_FIELD_END};

/* SOFA's coefficients for the sample times t[0..order] (order >= 1). */
static void bdf_coefficients(const double *t, unsigned order, double *a, double *b)
{
    for (unsigned j = 0; j <= order; j++) {
        a[j] = 0.0;
        for (unsigned i = 0; i <= order; i++) {
            if (i == j)
                continue;
            double product = 1.0;
            for (unsigned m = 0; m <= order; m++)
                if (m != i && m != j)
                    product *= (t[order] - t[m]) / (t[j] - t[m]);
            a[j] += product / (t[j] - t[i]);
        }
    }
    const double dt = t[order] - t[order - 1];
    for (unsigned j = 0; j <= order; j++)
        a[j] *= dt;
    for (unsigned j = 0; j < order; j++)
        a[j] /= a[order];
    b[order] = 1.0 / a[order];
    a[order] = 1.0;
    for (unsigned j = 0; j < order; j++)
        b[j] = 0.0;
}

static st_status bdf_init(st_component *self, st_error *err)
{
    bdf_solver *s = (bdf_solver *)self;
    if (s->order == 0) {
        st_component_warn(self, "The method cannot have order 0. Setting it to 1.");
        s->order = 1;
    } else if (s->order > 6) {
        st_component_warn(self, "The method with order %u is not zero-stable", s->order);
    }
    ST_TRY(backward_linear_solver(self, s->linear_solver, &s->ls, err));
    if (s->newton_link) {
        if (s->newton_link->cls != &newton_raphson_solver_class)
            return st_component_error(self, "newtonSolver", err, ST_ELINK,
                                      "the linked component is not a NewtonRaphsonSolver");
        s->nr = (newton_raphson *)s->newton_link;
    } else {
        s->nr = newton_find(self);
        if (!s->nr)
            return st_component_error(self, "newtonSolver", err, ST_ESCENE,
                                      "A Newton-Raphson solver is required by this component "
                                      "but has not been found.");
    }
    return ST_OK;
}

static st_status bdf_bind(st_component *self, st_system *sys, st_error *err)
{
    bdf_solver *s = (bdf_solver *)self;
    if (sys->xsize != sys->size)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "BDFOdeSolver combines positions linearly: Vec states only "
                                  "(this system has coordinates that are not vectors)");
    s->sys = sys;
    for (unsigned k = 0; k < s->order; k++) {
        ST_TRY(st_system_xvec_alloc(sys, &s->hx[k], err));
        ST_TRY(st_system_vec_alloc(sys, &s->hv[k], err));
    }
    double **vecs[] = {&s->f, &s->r1, &s->r2, &s->rhs, &s->dv, &s->dx, &s->vsum};
    for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++)
        ST_TRY(st_system_vec_alloc(sys, vecs[i], err));
    ST_TRY(st_array_resize(&s->nr->residual_graph, ST_T_REALS, (size_t)s->nr->p.max_it + 1, err));
    s->nr->residual_graph.n = 0;
    s->times[0] = sys->mp.time;
    s->ntimes = 1;
    s->nsolves = 0;
    return ST_OK;
}

/* The state j (0..order) of the formula: history, or the guess (j = order). */
static double *state_x(bdf_solver *s, unsigned j)
{
    return j == s->cur_order ? s->sys->x : s->hx[s->cur_order - 1 - j];
}
static double *state_v(bdf_solver *s, unsigned j)
{
    return j == s->cur_order ? s->sys->v : s->hv[s->cur_order - 1 - j];
}

/* r = (r1, r2) at the current guess; returns |r2|^2. */
static double bdf_evaluate(void *ctx)
{
    bdf_solver *s = ctx;
    st_system *sys = s->sys;
    const unsigned q = s->cur_order;
    const double h = s->dt;
    st_system_compute_force(sys, s->f, sys->x, sys->v);
    st_system_add_mbkdx(sys, s->f, sys->v, -s->rayleigh_mass, 0.0, s->rayleigh_stiffness, false);
    st_system_project_response(sys, s->f);
    st_vec_clear(sys, s->r1);
    st_vec_clear(sys, s->vsum);
    for (unsigned i = 0; i <= q; i++)
        if (s->a[i] != 0.0)
            st_vec_peq(sys, s->r1, state_x(s, i), s->a[i]);
    for (unsigned i = 0; i <= q; i++)
        if (s->b[i] != 0.0)
            st_vec_peq(sys, s->r1, state_v(s, i), -h * s->b[i]);
    for (unsigned i = 0; i <= q; i++)
        if (s->a[i] != 0.0)
            st_vec_peq(sys, s->vsum, state_v(s, i), s->a[i]);
    st_vec_clear(sys, s->r2);
    st_system_add_mdx(sys, s->r2, s->vsum, 1.0);
    /* Only f at the guess has a nonzero b (BDF). */
    st_vec_peq(sys, s->r2, s->f, -h * s->b[q]);
    st_system_project_response(sys, s->r1);
    st_system_project_response(sys, s->r2);
    return st_vec_dot(sys, s->r2, s->r2);
}

static st_status bdf_solve_linear(void *ctx, st_error *err)
{
    bdf_solver *s = ctx;
    st_system *sys = s->sys;
    const unsigned q = s->cur_order;
    const double h = s->dt, as = s->a[q], bs = s->b[q];
    const double mf = as + h * bs * s->rayleigh_mass, bf = -h * bs,
                 kf = -h * bs * (s->rayleigh_stiffness + h * bs / as);
    ST_TRY(st_linsolver_set_system(s->ls, sys, mf, bf, kf, err));
    /* rhs = -r2 - h bs / as K r1 */
    st_vec_clear(sys, s->rhs);
    st_vec_peq(sys, s->rhs, s->r2, -1.0);
    st_system_add_mbkdx(sys, s->rhs, s->r1, 0.0, 0.0, -h * bs / as, false);
    st_system_project_response(sys, s->rhs);
    st_vec_clear(sys, s->dv);
    return st_linsolver_solve(s->ls, sys, s->dv, s->rhs, err);
}

static void bdf_update(void *ctx, double alpha)
{
    bdf_solver *s = ctx;
    st_system *sys = s->sys;
    const unsigned q = s->cur_order;
    const double h = s->dt, as = s->a[q], bs = s->b[q];
    st_vec_peq(sys, sys->v, s->dv, alpha);
    /* dx = h bs / as dv - r1 / as (SOFA: dv whole, r1 of the last evaluation) */
    st_vec_clear(sys, s->dx);
    st_vec_peq(sys, s->dx, s->dv, h * bs / as);
    st_vec_peq(sys, s->dx, s->r1, -1.0 / as);
    st_vec_x_peq(sys, sys->x, s->dx, 1.0);
    st_system_project_position(sys, sys->x);
    st_system_project_velocity(sys, sys->v);
    st_system_propagate_x(sys, sys->x);
    st_system_propagate_v(sys, sys->v);
}

static double bdf_norm_dx(void *ctx)
{
    bdf_solver *s = ctx;
    return st_vec_dot(s->sys, s->dv, s->dv);
}

static double bdf_norm_guess(void *ctx)
{
    bdf_solver *s = ctx;
    return st_vec_dot(s->sys, s->sys->v, s->sys->v);
}

static st_status bdf_solve(st_component *self, st_system *sys, double dt, st_error *err)
{
    bdf_solver *s = (bdf_solver *)self;
    unsigned long want = s->nsolves + 1;
    const unsigned q = (unsigned)(s->order < want ? s->order : want);
    s->cur_order = q;
    s->dt = dt;
    /* The sample times: the last q + 1. */
    if (s->ntimes > q) {
        const size_t drop = s->ntimes - q;
        memmove(s->times, s->times + drop, q * sizeof *s->times);
        s->ntimes = q;
    }
    s->times[s->ntimes++] = sys->mp.time + dt;
    bdf_coefficients(s->times, q, s->a, s->b);
    /* History: hx[k] = x_{n-k}; the oldest buffer takes the current state. */
    double *ox = s->hx[s->order - 1], *ov = s->hv[s->order - 1];
    memmove(s->hx + 1, s->hx, (s->order - 1) * sizeof *s->hx);
    memmove(s->hv + 1, s->hv, (s->order - 1) * sizeof *s->hv);
    s->hx[0] = ox;
    s->hv[0] = ov;
    st_vec_x_eq(sys, s->hx[0], sys->x);
    st_vec_eq(sys, s->hv[0], sys->v);
    sys->mp.implicit = true;
    /* First guess: x + h v, v. */
    st_vec_x_peq(sys, sys->x, sys->v, dt);
    st_system_propagate_x(sys, sys->x);
    st_system_propagate_v(sys, sys->v);
    const newton_function f = {s, bdf_evaluate, bdf_solve_linear, bdf_update, bdf_norm_dx,
                               bdf_norm_guess};
    ST_TRY(newton_solve(self, &s->nr->p, &f, s->nr->status, &s->nr->residual_graph, err));
    s->nsolves++;
    return ST_OK;
}

static void bdf_reset(st_component *self)
{
    bdf_solver *s = (bdf_solver *)self;
    s->ntimes = 0;
    if (s->sys) {
        s->times[0] = s->sys->mp.time;
        s->ntimes = 1;
    }
    s->nsolves = 0;
}

static const st_odesolver_ops bdf_ops = {
    .struct_size = sizeof(st_odesolver_ops),
    .bind = bdf_bind,
    .solve = bdf_solve,
};

/* Checkpoints: the history vectors are system scratch vectors (saved by the
 * kernel); the step times, counters and coefficients are saved here. */
static st_status bdf_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    bdf_solver *s = (bdf_solver *)self;
    ST_TRY(st_checkpoint_data(ck, s->times, sizeof s->times, err));
    ST_TRY(st_checkpoint_data(ck, &s->ntimes, sizeof s->ntimes, err));
    ST_TRY(st_checkpoint_data(ck, &s->nsolves, sizeof s->nsolves, err));
    ST_TRY(st_checkpoint_data(ck, s->a, sizeof s->a, err));
    ST_TRY(st_checkpoint_data(ck, s->b, sizeof s->b, err));
    ST_TRY(st_checkpoint_data(ck, &s->cur_order, sizeof s->cur_order, err));
    return st_checkpoint_data(ck, &s->dt, sizeof s->dt, err);
}

static const st_checkpoint_ops bdf_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = bdf_checkpoint,
};

const st_class bdf_ode_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "BDFOdeSolver",
    .category = "OdeSolver",
    .description = "Velocity-based ODE solver using Backward Differentiation Formula (BDF), at "
                   "any order, supporting variable time step size.",
    .instance_size = sizeof(bdf_solver),
    .fields = bdf_fields,
    .init = bdf_init,
    .reset = bdf_reset,
    .odesolver = &bdf_ops,
    .checkpoint = &bdf_checkpoint_ops,
};
