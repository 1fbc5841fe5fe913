/* central_difference_solver.c - CentralDifferenceSolver: explicit central
 * differences with optional Rayleigh mass damping, a = P M^-1 f(x, v),
 * then v and x (with the new v). Needs diagonal masses. */
#include <settee/settee.h>

#include "forward.h"

typedef struct central_diff {
    st_component base;
    double rayleigh_mass;      /* "rayleighMass" */
    bool thread_safe_visitor;  /* "threadSafeVisitor" (accepted) */
    double *a;                 /* system-owned */
} central_diff;

static const st_field central_diff_fields[] = {
    ST_REAL(central_diff, rayleigh_mass, "rayleighMass", "0",
            "Rayleigh damping coefficient related to mass"),
    FORWARD_F_THREAD_SAFE(central_diff),
    ST_FIELD_END};

static st_status cd_bind(st_component *self, st_system *sys, st_error *err)
{
    return st_system_vec_alloc(sys, &((central_diff *)self)->a, err);
}

static st_status cd_solve(st_component *self, st_system *sys, double dt, st_error *err)
{
    central_diff *s = (central_diff *)self;
    double *x = sys->x, *v = sys->v, *a = s->a;
    const double r = s->rayleigh_mass;
    sys->mp.implicit = false;
    st_system_compute_force(sys, sys->f, x, v);
    ST_TRY(st_system_acc_from_f(sys, a, sys->f, err));
    st_system_project_response(sys, a);
    if (r == 0.0) {
        st_vec_peq(sys, v, a, dt);
    } else {
        const double den = 1.0 / dt + r / 2.0;
        const double c = (1.0 / dt - r / 2.0) / den;
        for (size_t i = 0; i < sys->size; i++)
            v[i] = v[i] * c + a[i] / den;
    }
    st_vec_x_peq(sys, x, v, dt);
    return ST_OK;
}

static const st_odesolver_ops cd_ops = {
    .struct_size = sizeof(st_odesolver_ops),
    .bind = cd_bind,
    .solve = cd_solve,
};

const st_class st_central_difference_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "CentralDifferenceSolver",
    .category = "OdeSolver",
    .description = "Explicit time integrator using central difference (also known as "
                   "Verlet or Leap-frog)",
    .instance_size = sizeof(central_diff),
    .fields = central_diff_fields,
    .odesolver = &cd_ops,
};
