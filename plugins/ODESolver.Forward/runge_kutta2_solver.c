/* runge_kutta2_solver.c - RungeKutta2Solver: SOFA's second-order
 * Runge-Kutta (midpoint) scheme on (x, v), two force evaluations per step:
 *   a1 = acc(x, v), x_m = x + h/2 v, v_m = v + h/2 a1,
 *   a2 = acc(x_m, v_m), x += h v_m, v += h a2,
 * each evaluation on a projected and propagated state (SOFA's computeAcc).
 * Needs diagonal masses, as RungeKutta4Solver. */
#include "forward.h"

typedef struct rk2 {
    st_component base;
    double *a, *vm, *xm, *f; /* system-owned */
} rk2;

static st_status rk2_bind(st_component *self, st_system *sys, st_error *err)
{
    rk2 *s = (rk2 *)self;
    ST_TRY(st_system_vec_alloc(sys, &s->a, err));
    ST_TRY(st_system_vec_alloc(sys, &s->vm, err));
    ST_TRY(st_system_vec_alloc(sys, &s->f, err));
    return st_system_xvec_alloc(sys, &s->xm, err); /* coordinates */
}

static st_status rk2_solve(st_component *self, st_system *sys, double dt, st_error *err)
{
    rk2 *s = (rk2 *)self;
    double *x = sys->x, *v = sys->v;
    sys->mp.implicit = false;
    st_system_add_separate_gravity(sys, v, dt);
    ST_TRY(forward_compute_acc(sys, s->f, s->a, x, v, err));
    /* The half step along the derivative. */
    st_vec_x_op(sys, s->xm, x, v, dt / 2);
    st_vec_op(sys, s->vm, v, s->a, dt / 2);
    ST_TRY(forward_compute_acc(sys, s->f, s->a, s->xm, s->vm, err));
    /* The whole step with the midpoint's derivative. */
    st_vec_x_peq(sys, x, s->vm, dt);
    st_vec_peq(sys, v, s->a, dt);
    return ST_OK;
}

static const st_odesolver_ops rk2_ops = {
    .struct_size = sizeof(st_odesolver_ops),
    .bind = rk2_bind,
    .solve = rk2_solve,
};

const st_class st_runge_kutta2_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "RungeKutta2Solver",
    .category = "OdeSolver",
    .description = "A popular explicit time integrator: second-order Runge-Kutta (midpoint)",
    .instance_size = sizeof(rk2),
    .odesolver = &rk2_ops,
};
