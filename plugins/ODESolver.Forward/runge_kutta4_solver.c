/* runge_kutta4_solver.c - RungeKutta4Solver: the classic fourth-order
 * Runge-Kutta scheme on (x, v), four force evaluations per step, each on a
 * projected and propagated state (SOFA's computeAcc). Needs diagonal
 * masses. */
#include "forward.h"

typedef struct rk4 {
    st_component base;
    double *k1a, *k2v, *k2a, *k3v, *k3a, *k4v, *k4a, *xt, *f; /* system-owned */
} rk4;

static st_status rk4_bind(st_component *self, st_system *sys, st_error *err)
{
    rk4 *s = (rk4 *)self;
    double **v[] = {&s->k1a, &s->k2v, &s->k2a, &s->k3v, &s->k3a, &s->k4v, &s->k4a, &s->f};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        ST_TRY(st_system_vec_alloc(sys, v[i], err));
    return st_system_xvec_alloc(sys, &s->xt, err); /* coordinates */
}

static st_status rk4_solve(st_component *self, st_system *sys, double dt, st_error *err)
{
    rk4 *s = (rk4 *)self;
    double *x = sys->x, *v = sys->v;
    const double h2 = dt / 2, h3 = dt / 3, h6 = dt / 6;
    sys->mp.implicit = false;
    st_system_add_separate_gravity(sys, v, dt);
    /* k1: the state itself. */
    ST_TRY(forward_compute_acc(sys, s->f, s->k1a, x, v, err));
    /* k2 */
    st_vec_x_op(sys, s->xt, x, v, h2);
    st_vec_op(sys, s->k2v, v, s->k1a, h2);
    ST_TRY(forward_compute_acc(sys, s->f, s->k2a, s->xt, s->k2v, err));
    /* k3 */
    st_vec_x_op(sys, s->xt, x, s->k2v, h2);
    st_vec_op(sys, s->k3v, v, s->k2a, h2);
    ST_TRY(forward_compute_acc(sys, s->f, s->k3a, s->xt, s->k3v, err));
    /* k4 */
    st_vec_x_op(sys, s->xt, x, s->k3v, dt);
    st_vec_op(sys, s->k4v, v, s->k3a, dt);
    ST_TRY(forward_compute_acc(sys, s->f, s->k4a, s->xt, s->k4v, err));
    /* x += h/6 k1v + h/3 k2v + h/3 k3v + h/6 k4v (k1v = v, read before v
     * changes), then the same for v. */
    st_vec_x_peq(sys, x, v, h6);
    st_vec_x_peq(sys, x, s->k2v, h3);
    st_vec_x_peq(sys, x, s->k3v, h3);
    st_vec_x_peq(sys, x, s->k4v, h6);
    st_vec_peq(sys, v, s->k1a, h6);
    st_vec_peq(sys, v, s->k2a, h3);
    st_vec_peq(sys, v, s->k3a, h3);
    st_vec_peq(sys, v, s->k4a, h6);
    return ST_OK;
}

static const st_odesolver_ops rk4_ops = {
    .struct_size = sizeof(st_odesolver_ops),
    .bind = rk4_bind,
    .solve = rk4_solve,
};

const st_class st_runge_kutta4_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "RungeKutta4Solver",
    .category = "OdeSolver",
    .description = "A popular explicit time integrator: fourth-order Runge-Kutta",
    .instance_size = sizeof(rk4),
    .odesolver = &rk4_ops,
};
