/* euler_explicit_solver.c - EulerExplicitSolver: explicit (by default
 * symplectic) Euler integration, a = M^-1 f(x, v), as SOFA's. */
#include <settee/settee.h>

#include "forward.h"

typedef struct euler_explicit {
    st_component base;
    bool symplectic;
    bool thread_safe_visitor;
    st_component *linear_solver; /* "linearSolver" link, or NULL */
    double *acc;                 /* owned by the system */
} euler_explicit;

static const st_field euler_explicit_fields[] = {
    ST_BOOL(euler_explicit, symplectic, "symplectic", "true",
            "If true (default), the velocity is updated before the position (symplectic Euler); "
            "otherwise the position uses the velocity at the start of the step"),
    FORWARD_F_THREAD_SAFE(euler_explicit),
    ST_LINK(euler_explicit, linear_solver, "linearSolver", ST_LINK_LINEAR_SOLVER,
            "Linear solver used when the mass matrix is not diagonal"),
    ST_FIELD_END};

static st_status euler_explicit_bind(st_component *self, st_system *sys, st_error *err)
{
    euler_explicit *s = (euler_explicit *)self;
    return st_system_vec_alloc(sys, &s->acc, err);
}

static st_status euler_explicit_solve(st_component *self, st_system *sys, double dt, st_error *err)
{
    euler_explicit *s = (euler_explicit *)self;
    double *x = sys->x, *v = sys->v, *f = sys->f, *acc = s->acc;

    st_system_add_separate_gravity(sys, v, dt);
    st_system_compute_force(sys, f, x, v);

    if (st_system_mass_is_diagonal(sys)) {
        ST_TRY(st_system_acc_from_f(sys, acc, f, err));
        st_system_project_response(sys, acc);
    } else {
        st_system_project_response(sys, f);
        st_component *ls = st_system_find_linear_solver(sys, s->linear_solver, false);
        if (!ls || !ls->cls->linsolver)
            return st_component_error(self, "linearSolver", err, ST_ESCENE,
                                      "Due to the presence of non-diagonal masses, the solver "
                                      "requires a linear solver");
        ST_TRY(st_linsolver_set_system(ls, sys, 1.0, 0.0, 0.0, err));
        ST_TRY(st_linsolver_solve(ls, sys, acc, f, err));
    }

    /* Symplectic: v first, then x with the new v; else x with the old v. */
    if (s->symplectic) {
        st_vec_peq(sys, v, acc, dt);
        st_vec_x_peq(sys, x, v, dt);
    } else {
        st_vec_x_peq(sys, x, v, dt);
        st_vec_peq(sys, v, acc, dt);
    }
    return ST_OK;
}

/* Rows: output x, v, a; columns: input x, v, a. */
static double euler_explicit_integration_factor(const st_component *self, int in, int out,
                                                double dt)
{
    const euler_explicit *s = (const euler_explicit *)self;
    const double m[3][3] = {{1.0, dt, s->symplectic ? dt * dt : 0.0}, {0.0, 1.0, dt}, {0, 0, 0}};
    if (in < 0 || in > 2 || out < 0 || out > 2)
        return 0.0;
    return m[out][in];
}

static double euler_explicit_solution_factor(const st_component *self, int out, double dt)
{
    const euler_explicit *s = (const euler_explicit *)self;
    const double f[3] = {s->symplectic ? dt * dt : 0.0, dt, 1.0};
    return out >= 0 && out <= 2 ? f[out] : 0.0;
}

static double euler_explicit_velocity_factor(const st_component *self, double dt)
{
    return euler_explicit_solution_factor(self, 1, dt);
}

static double euler_explicit_position_factor(const st_component *self, double dt)
{
    return euler_explicit_solution_factor(self, 0, dt);
}

static const st_odesolver_ops euler_explicit_ops = {
    .struct_size = sizeof(st_odesolver_ops),
    .bind = euler_explicit_bind,
    .solve = euler_explicit_solve,
    .integration_factor = euler_explicit_integration_factor,
    .solution_integration_factor = euler_explicit_solution_factor,
    .velocity_integration_factor = euler_explicit_velocity_factor,
    .position_integration_factor = euler_explicit_position_factor,
};

static const char *const euler_explicit_aliases[] = {"EulerSolver", NULL};

const st_class st_euler_explicit_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "EulerExplicitSolver",
    .category = "OdeSolver",
    .description = "A simple explicit time integrator (symplectic Euler by default)",
    .aliases = euler_explicit_aliases,
    .instance_size = sizeof(euler_explicit),
    .fields = euler_explicit_fields,
    .odesolver = &euler_explicit_ops,
};
