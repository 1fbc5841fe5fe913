/* newmark_implicit_solver.c - NewmarkImplicitSolver: SOFA's implicit
 * Newmark-beta scheme on accelerations (gamma 0.5, beta 0.25 by default),
 * with Rayleigh damping and velocity decay. Keeps the previous acceleration
 * between steps. */
#include <math.h>

#include <settee/settee.h>

#include "backward_common.h"

typedef struct newmark {
    st_component base;
    double rayleigh_stiffness;   /* "rayleighStiffness" */
    double rayleigh_mass;        /* "rayleighMass" */
    double vdamping;             /* "vdamping" */
    double gamma;                /* "gamma" */
    double beta;                 /* "beta" */
    bool thread_safe_visitor;    /* "threadSafeVisitor" (accepted) */
    st_component *linear_solver; /* "linearSolver" link */
    /* Runtime. */
    st_component *ls;
    double *a, *anew, *rhs;      /* system-owned */
    unsigned long counter;       /* steps since init or reset */
} newmark;

static const st_field newmark_fields[] = {
    ST_REAL(newmark, rayleigh_stiffness, "rayleighStiffness", "0",
            "Rayleigh damping coefficient related to stiffness, > 0"),
    ST_REAL(newmark, rayleigh_mass, "rayleighMass", "0",
            "Rayleigh damping coefficient related to mass, > 0"),
    ST_REAL(newmark, vdamping, "vdamping", "0", "Velocity decay coefficient (no decay if null)"),
    ST_REAL(newmark, gamma, "gamma", "0.5",
            "Newmark scheme gamma coefficient (0.5 for an unconditionally stable scheme)"),
    ST_REAL(newmark, beta, "beta", "0.25",
            "Newmark scheme beta coefficient (0.25 for an unconditionally stable scheme)"),
    BACKWARD_F_THREAD_SAFE(newmark),
    ST_LINK(newmark, linear_solver, "linearSolver", ST_LINK_LINEAR_SOLVER,
            "Linear solver used by this component"),
    ST_FIELD_END};

static st_status nm_init(st_component *self, st_error *err)
{
    newmark *s = (newmark *)self;
    ST_TRY(backward_linear_solver(self, s->linear_solver, &s->ls, err));
    s->counter = 0;
    return ST_OK;
}

static void nm_reset(st_component *self) { ((newmark *)self)->counter = 0; }

static st_status nm_bind(st_component *self, st_system *sys, st_error *err)
{
    newmark *s = (newmark *)self;
    ST_TRY(st_system_vec_alloc(sys, &s->a, err));
    ST_TRY(st_system_vec_alloc(sys, &s->anew, err));
    ST_TRY(st_system_vec_alloc(sys, &s->rhs, err));
    s->counter = 0;
    return ST_OK;
}

static st_status nm_solve(st_component *self, st_system *sys, double dt, st_error *err)
{
    newmark *s = (newmark *)self;
    const double h = dt, g = s->gamma, be = s->beta;
    const double rk = s->rayleigh_stiffness, rm = s->rayleigh_mass;
    double *x = sys->x, *v = sys->v, *f = sys->f, *a = s->a, *an = s->anew, *b = s->rhs;

    sys->mp.implicit = true;
    if (s->counter == 0) {
        /* Initial acceleration: a = M^-1 f(x, v), projected (diagonal mass). */
        st_system_project_position(sys, x);
        st_system_project_velocity(sys, v);
        st_system_propagate_x(sys, x);
        st_system_propagate_v(sys, v);
        st_system_compute_force(sys, f, x, v);
        ST_TRY(st_system_acc_from_f(sys, a, f, err));
        st_system_project_response(sys, a);
    }
    st_system_compute_force(sys, f, x, v);
    st_vec_eq(sys, b, f);
    if (rm != 0.0 || rk != 0.0 || be != 0.5)
        st_system_add_mbkdx(sys, b, a, -h * (1 - g) * rm, h * (1 - g),
                            h * (1 - g) * rk + h * h * (1 - 2 * be) / 2, false);
    st_system_add_mbkdx(sys, b, v, -rm, 1.0, rk + h, false);
    st_system_project_response(sys, b);

    ST_TRY(st_linsolver_set_system(s->ls, sys, 1 + h * g * rm, -h * g,
                                   -(h * h * be + h * g * rk), err));
    ST_TRY(st_linsolver_solve(s->ls, sys, an, b, err));

    const double c2 = h * h * (0.5 - be), c3 = h * h * be, c4 = h * (1 - g), c5 = h * g;
    /* x (+)= h v + c2 a + c3 a_new, one term after the other (Vec types:
     * ((x + h v) + c2 a) + c3 a_new); then v with the old a. */
    st_vec_x_peq(sys, x, v, h);
    st_vec_x_peq(sys, x, a, c2);
    st_vec_x_peq(sys, x, an, c3);
    for (size_t i = 0; i < sys->size; i++)
        v[i] = v[i] + c4 * a[i] + c5 * an[i];
    st_system_add_separate_gravity(sys, v, h);
    if (s->vdamping != 0.0)
        st_vec_teq(sys, v, exp(-h * s->vdamping));
    st_vec_eq(sys, a, an);
    s->counter++;
    return ST_OK;
}

/* Integration factors, as SOFA's NewmarkImplicitSolver overrides them (it
 * does not keep OdeSolver's defaults). They are the factors of an implicit
 * Euler step whose linear system is solved on s = a_{t+dt} dt, not those of
 * the Newmark update itself (which would involve beta and gamma):
 *   input:     x_t  v_t  a_t   |  s (solution)
 *   x_{t+dt}    1   dt   0     |  dt
 *   v_{t+dt}    0   1    0     |  1
 *   a_{t+dt}    0   0    0     |  1/dt
 * Derivative orders: 0 position, 1 velocity, 2 acceleration; any other
 * order gives 0. */
static double nm_integration_factor(const st_component *self, int in, int out, double dt)
{
    (void)self;
    if (in < 0 || in > 2 || out < 0 || out > 2)
        return 0.0;
    if (in == out)
        return out == 2 ? 0.0 : 1.0;
    return (out == 0 && in == 1) ? dt : 0.0;
}

static double nm_solution_integration_factor(const st_component *self, int out, double dt)
{
    (void)self;
    switch (out) {
    case 0:
        return dt;
    case 1:
        return 1.0;
    case 2:
        return 1.0 / dt;
    default:
        return 0.0;
    }
}

/* A solution of the linear system changes the velocity by itself... */
static double nm_velocity_integration_factor(const st_component *self, double dt)
{
    (void)self;
    (void)dt;
    return 1.0;
}

/* ...and the position by dt times itself. */
static double nm_position_integration_factor(const st_component *self, double dt)
{
    (void)self;
    return dt;
}

/* Checkpoints: the step counter (0 computes the initial acceleration);
 * the accelerations are system scratch vectors, saved by the kernel. */
static st_status nm_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    newmark *s = (newmark *)self;
    return st_checkpoint_data(ck, &s->counter, sizeof s->counter, err);
}

static const st_checkpoint_ops nm_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = nm_checkpoint,
};

static const st_odesolver_ops nm_ops = {
    .struct_size = sizeof(st_odesolver_ops),
    .bind = nm_bind,
    .solve = nm_solve,
    .integration_factor = nm_integration_factor,
    .solution_integration_factor = nm_solution_integration_factor,
    .velocity_integration_factor = nm_velocity_integration_factor,
    .position_integration_factor = nm_position_integration_factor,
};

const st_class newmark_implicit_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "NewmarkImplicitSolver",
    .category = "OdeSolver",
    .description = "Implicit time integrator using Newmark scheme",
    .instance_size = sizeof(newmark),
    .fields = newmark_fields,
    .init = nm_init,
    .reset = nm_reset,
    .odesolver = &nm_ops,
    .checkpoint = &nm_checkpoint_ops,
};
