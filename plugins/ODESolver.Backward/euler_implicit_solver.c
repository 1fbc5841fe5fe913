/* euler_implicit_solver.c - EulerImplicitSolver: SOFA's semi-implicit
 * backward Euler (Baraff & Witkin), with Rayleigh damping, the trapezoidal
 * variant, the first-order variant, velocity decay and the residual, in the
 * exact sequence of SOFA's code (docs/solvers.md). One linear solve per
 * step; no allocation during a step. */
#include <float.h>
#include <math.h>

#include <settee/settee.h>

#include "backward_common.h"

typedef struct euler_implicit {
    st_component base;
    double rayleigh_stiffness;   /* "rayleighStiffness" r_K */
    double rayleigh_mass;        /* "rayleighMass" r_M */
    double vdamping;             /* "vdamping" */
    bool first_order;            /* "firstOrder" */
    bool trapezoidal;            /* "trapezoidalScheme" */
    bool solve_constraint;       /* "solveConstraint" (accepted) */
    bool thread_safe_visitor;    /* "threadSafeVisitor" (accepted) */
    bool compute_residual;       /* "computeResidual" */
    double residual;             /* "residual" (output): squared norm */
    st_component *linear_solver; /* "linearSolver" link */
    /* Runtime. */
    st_component *ls;            /* the linear solver in use */
    double *sol, *rhs, *res;     /* solution x, right-hand side b, residual (system-owned) */
} euler_implicit;

static const st_field euler_implicit_fields[] = {
    ST_REAL(euler_implicit, rayleigh_stiffness, "rayleighStiffness", "0",
            "Rayleigh damping coefficient related to stiffness, > 0"),
    ST_REAL(euler_implicit, rayleigh_mass, "rayleighMass", "0",
            "Rayleigh damping coefficient related to mass, > 0"),
    ST_REAL(euler_implicit, vdamping, "vdamping", "0",
            "Velocity decay coefficient (no decay if null)"),
    ST_BOOL(euler_implicit, first_order, "firstOrder", "false",
            "Use backward Euler scheme for first order ODE system, which means that only the "
            "first derivative of the DOFs (state) appears in the equation. Higher derivatives "
            "are absent"),
    ST_BOOL(euler_implicit, trapezoidal, "trapezoidalScheme", "false",
            "Boolean to use the trapezoidal scheme instead of the implicit Euler scheme and get "
            "second order accuracy in time (false by default)"),
    ST_IGNORED(euler_implicit, solve_constraint, "solveConstraint", ST_T_BOOL, bool, "false",
               "Apply ConstraintSolver (requires a ConstraintSolver in the same node as this "
               "solver; settee has none, so as in SOFA without one nothing is applied)"),
    BACKWARD_F_THREAD_SAFE(euler_implicit),
    ST_BOOL(euler_implicit, compute_residual, "computeResidual", "false",
            "If true, the residual is computed at the end of the solving"),
    ST_FIELD_EX(euler_implicit, residual, "residual", ST_T_REAL, double,
                "1.7976931348623157e+308",
                "Residual norm at the end of the free-motion solving", ST_F_OUTPUT, NULL, 0.0,
                0.0),
    ST_LINK(euler_implicit, linear_solver, "linearSolver", ST_LINK_LINEAR_SOLVER,
            "Linear solver used by this component"),
    ST_FIELD_END};

static st_status ei_init(st_component *self, st_error *err)
{
    euler_implicit *s = (euler_implicit *)self;
    ST_TRY(backward_linear_solver(self, s->linear_solver, &s->ls, err));
    s->residual = DBL_MAX;
    return ST_OK;
}

static st_status ei_bind(st_component *self, st_system *sys, st_error *err)
{
    euler_implicit *s = (euler_implicit *)self;
    ST_TRY(st_system_vec_alloc(sys, &s->sol, err));
    ST_TRY(st_system_vec_alloc(sys, &s->rhs, err));
    ST_TRY(st_system_vec_alloc(sys, &s->res, err));
    return ST_OK;
}

static st_status ei_solve(st_component *self, st_system *sys, double dt, st_error *err)
{
    euler_implicit *s = (euler_implicit *)self;
    const double h = dt;
    const double tr = s->trapezoidal ? 0.5 : 1.0;
    const double rk = s->rayleigh_stiffness, rm = s->rayleigh_mass;
    double *x = sys->x, *v = sys->v, *f = sys->f, *b = s->rhs, *sol = s->sol;

    sys->mp.implicit = true;
    /* f = f(x_t, v_t); force fields cache their Jacobians here. */
    st_system_compute_force(sys, f, x, v);
    /* Right-hand side: no B v term (SOFA's code, not its header comment). */
    st_vec_eq(sys, b, f);
    if (!s->first_order) {
        st_system_add_mbkdx(sys, b, v, -rm, 0.0, h * tr + rk, false);
        st_vec_teq(sys, b, h);
    }
    st_system_project_response(sys, b);

    double mfact, bfact, kfact;
    if (s->first_order) {
        mfact = 1.0;
        bfact = 0.0;
        kfact = -h * tr;
    } else {
        mfact = 1.0 + tr * h * rm;
        bfact = -tr * h;
        kfact = -tr * h * (tr * h + rk);
    }
    ST_TRY(st_linsolver_set_system(s->ls, sys, mfact, bfact, kfact, err));
    ST_TRY(st_linsolver_solve(s->ls, sys, sol, b, err));

    /* v_{t+h} then x_{t+h} with the new velocity. */
    if (s->first_order)
        st_vec_eq(sys, v, sol);
    else
        st_vec_op(sys, v, v, sol, 1.0);
    st_vec_x_peq(sys, x, v, h);

    st_system_add_separate_gravity(sys, v, h);
    if (s->vdamping != 0.0)
        st_vec_teq(sys, v, exp(-h * s->vdamping));

    if (s->compute_residual) {
        /* SOFA computes r = M (v_new - v) - h f(x_new, v_new) with v and
         * v_new the same vector under the default animation loop, so the
         * mass term is identically zero: r = -h f, projected, and the
         * output is r.r (a squared norm). */
        st_vec_clear(sys, s->res);
        st_system_compute_force(sys, f, x, v);
        st_vec_peq(sys, s->res, f, -h);
        st_system_project_response(sys, s->res);
        s->residual = st_vec_dot(sys, s->res, s->res);
    }
    return ST_OK;
}

/* Integration factors (SOFA's getIntegrationFactor & co.). */
static double ei_integration_factor(const st_component *self, int in, int out, double dt)
{
    const double m[3][3] = {{1.0, dt, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 0.0}};
    if (in < 0 || in > 2 || out < 0 || out > 2)
        return 0.0;
    return m[out][in];
}

static double ei_solution_integration_factor(const st_component *self, int out, double dt)
{
    const double v[3] = {dt, 1.0, 1.0 / dt};
    if (out < 0 || out > 2)
        return 0.0;
    return v[out];
}

static double ei_velocity_integration_factor(const st_component *self, double dt) { return 1.0; }

static double ei_position_integration_factor(const st_component *self, double dt) { return dt; }

static const st_odesolver_ops ei_ops = {
    .struct_size = sizeof(st_odesolver_ops),
    .bind = ei_bind,
    .solve = ei_solve,
    .integration_factor = ei_integration_factor,
    .solution_integration_factor = ei_solution_integration_factor,
    .velocity_integration_factor = ei_velocity_integration_factor,
    .position_integration_factor = ei_position_integration_factor,
};

const st_class euler_implicit_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "EulerImplicitSolver",
    .category = "OdeSolver",
    .description = "Time integrator using implicit backward Euler scheme",
    .instance_size = sizeof(euler_implicit),
    .fields = euler_implicit_fields,
    .init = ei_init,
    .odesolver = &ei_ops,
};
