/* damp_velocity_solver.c - DampVelocitySolver: not an integrator but a
 * velocity filter run after the node's integrator, as SOFA's: each step
 * v *= exp(-rate dt), then every point whose velocity norm is below
 * `threshold` (when it is not 0) is stopped. */
#include <math.h>

#include <settee/settee.h>

#include "forward.h"

typedef struct damp_velocity {
    st_component base;
    double rate;      /* 1/s */
    double threshold; /* velocity norm, per point */
} damp_velocity;

static const st_field damp_velocity_fields[] = {
    ST_REAL(damp_velocity, rate, "rate", "0.99",
            "Factor used to reduce the velocities. Typically between 0 and 1."),
    ST_REAL(damp_velocity, threshold, "threshold", "0",
            "Threshold under which the velocities are canceled."),
    ST_FIELD_END};

static st_status damp_velocity_solve(st_component *self, st_system *sys, double dt, st_error *err)
{
    (void)err;
    const damp_velocity *s = (const damp_velocity *)self;
    st_vec_teq(sys, sys->v, exp(-s->rate * dt));
    if (s->threshold == 0.0)
        return ST_OK;
    /* Per point: |v_i|^2 < threshold^2 clears the whole point (all its
     * derivative components, linear and angular for rigid states). */
    const double t2 = s->threshold * s->threshold;
    for (size_t k = 0; k < sys->nindep; k++) {
        const st_mstate *ms = sys->states[k];
        const size_t d = ms->type->deriv_size;
        double *v = st_slice(sys->v, ms);
        for (size_t i = 0; i < ms->n; i++) {
            double n2 = 0.0;
            for (size_t j = 0; j < d; j++)
                n2 += v[i * d + j] * v[i * d + j];
            if (n2 < t2)
                for (size_t j = 0; j < d; j++)
                    v[i * d + j] = 0.0;
        }
    }
    return ST_OK;
}

/* Rows: output x, v, a; columns: input x, v, a. Positions pass through,
 * velocities are scaled; a solution of a linear system has no effect. */
static double damp_velocity_integration_factor(const st_component *self, int in, int out,
                                               double dt)
{
    const damp_velocity *s = (const damp_velocity *)self;
    const double m[3][3] = {{1, 0, 0}, {0, exp(-s->rate * dt), 0}, {0, 0, 0}};
    if (in < 0 || in > 2 || out < 0 || out > 2)
        return 0.0;
    return m[out][in];
}

static double damp_velocity_solution_factor(const st_component *self, int out, double dt)
{
    (void)self, (void)out, (void)dt;
    return 0.0;
}

static const st_odesolver_ops damp_velocity_ops = {
    .struct_size = sizeof(st_odesolver_ops),
    .solve = damp_velocity_solve,
    .integration_factor = damp_velocity_integration_factor,
    .solution_integration_factor = damp_velocity_solution_factor,
};

const st_class st_damp_velocity_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "DampVelocitySolver",
    .category = "OdeSolver",
    .description = "Reduce the velocities.",
    .instance_size = sizeof(damp_velocity),
    .fields = damp_velocity_fields,
    .odesolver = &damp_velocity_ops,
};
