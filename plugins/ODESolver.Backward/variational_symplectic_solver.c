/* variational_symplectic_solver.c - VariationalSymplecticSolver: SOFA's
 * variational (midpoint) integrator of Kharevych et al., which carries the
 * momentum p between steps (p_0 = M v_0 at the first step and after a
 * reset to time 0). Implicit (default), Newton iterations on the midpoint
 * displacement r = q_{k+1/2} - q_k:
 *   (4/h^2 M + 4 rM/h M - (1 + 4 rK/h) K) r_new = f(q_k + r) + 2/h p_k - K r,
 * from r = 0, until |r_new - r| / |q_k| <= newtonError or `steps`
 * iterations (at least one); then
 *   v_{k+1} = 2 r / h,  q_{k+1} = q_k + h v_{k+1},
 *   p_{k+1} = M v_{k+1} + h/2 P f(q_k + r).
 * Explicit (explicitIntegration): a = P M^-1 (f(q_k) + p_k / h) - rM v_k,
 * v_{k+1} = h a, q_{k+1} = q_k + h v_{k+1}, p_{k+1} = M v_{k+1}.
 * The Hamiltonian output (implicit only) is p.M^-1.p / 2 (M^-1 by the
 * masses themselves when diagonal, where SOFA runs its linear solver on M:
 * the same number without a second solve) plus the potential
 * energy: SOFA's incremental one (the initial energy minus 2 f.r at each
 * step) or the force fields' own. saveEnergyInFile writes them as CSV, as
 * SOFA. Integration factors are SOFA's: all 0. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <settee/settee.h>

#include "backward_common.h"

typedef struct variational {
    st_component base;
    double newton_error;         /* "newtonError" */
    unsigned newton_steps;       /* "steps" */
    double rayleigh_stiffness;   /* "rayleighStiffness" */
    double rayleigh_mass;        /* "rayleighMass" */
    bool save_energy;            /* "saveEnergyInFile" */
    bool explicit_scheme;        /* "explicitIntegration" */
    char *file;                  /* "file" */
    bool compute_hamiltonian;    /* "computeHamiltonian" */
    double hamiltonian;          /* "hamiltonianEnergy" (output) */
    bool incremental_potential;  /* "useIncrementalPotentialEnergy" */
    bool thread_safe_visitor;    /* "threadSafeVisitor" (ignored) */
    st_component *linear_solver; /* "linearSolver" link */
    /* Runtime. */
    st_component *ls;
    double *p, *res, *b, *resi, *tmp; /* derivative vectors (system-owned) */
    double *oldpos, *x0;              /* coordinate vectors (system-owned) */
    double potential;                 /* SOFA's incremental potential energy */
    bool started;                     /* p holds the momentum */
    FILE *out;                        /* the energy file, or NULL */
    unsigned last_iterations;         /* Newton iterations of the last step */
} variational;

static const st_field variational_fields[] = {
    ST_REAL(variational, newton_error, "newtonError", "0.01",
            "Error tolerance for Newton iterations"),
    ST_UINT(variational, newton_steps, "steps", "5", "Maximum number of Newton steps"),
    ST_REAL(variational, rayleigh_stiffness, "rayleighStiffness", "0",
            "Rayleigh damping coefficient related to stiffness, > 0"),
    ST_REAL(variational, rayleigh_mass, "rayleighMass", "0",
            "Rayleigh damping coefficient related to mass, > 0"),
    ST_BOOL(variational, save_energy, "saveEnergyInFile", "false",
            "If kinetic and potential energies should be dumped in a CSV file at each iteration"),
    ST_BOOL(variational, explicit_scheme, "explicitIntegration", "false",
            "Use explicit integration scheme"),
    ST_STRING(variational, file, "file", NULL,
              "File name where kinetic and potential energies are saved in a CSV file"),
    ST_BOOL(variational, compute_hamiltonian, "computeHamiltonian", "true", "Compute hamiltonian"),
    ST_FIELD_EX(variational, hamiltonian, "hamiltonianEnergy", ST_T_REAL, double, "0",
                "hamiltonian energy", ST_F_OUTPUT, NULL, 0.0, 0.0),
    ST_BOOL(variational, incremental_potential, "useIncrementalPotentialEnergy", "true",
            "use real potential energy, if false use approximate potential energy"),
    BACKWARD_F_THREAD_SAFE(variational),
    ST_LINK(variational, linear_solver, "linearSolver", ST_LINK_LINEAR_SOLVER,
            "Linear solver used by this component"),
    ST_FIELD_END};

static void variational_close(variational *s)
{
    if (s->out)
        fclose(s->out);
    s->out = NULL;
}

static st_status variational_init(st_component *self, st_error *err)
{
    variational *s = (variational *)self;
    s->started = false;
    s->hamiltonian = 0.0;
    /* The explicit scheme needs a linear solver only for a non-diagonal
     * mass (checked at the first step); the implicit one always. */
    if (s->explicit_scheme && !s->linear_solver &&
        !st_node_find(self->node, ST_ROLE_LINSOLVER, ST_SEARCH_DOWN))
        s->ls = NULL;
    else
        ST_TRY(backward_linear_solver(self, s->linear_solver, &s->ls, err));
    variational_close(s);
    if (s->save_energy) {
        if (!s->file || !s->file[0])
            return st_component_error(self, "file", err, ST_EINVAL,
                                      "saveEnergyInFile is true but no file is given");
        s->out = fopen(s->file, "w");
        if (!s->out)
            return st_component_error(self, "file", err, ST_EIO, "cannot write '%s': %s",
                                      s->file, strerror(errno));
    }
    return ST_OK;
}

static void variational_cleanup(st_component *self) { variational_close((variational *)self); }

static st_status variational_bind(st_component *self, st_system *sys, st_error *err)
{
    variational *s = (variational *)self;
    ST_TRY(st_system_vec_alloc(sys, &s->p, err));
    ST_TRY(st_system_vec_alloc(sys, &s->res, err));
    ST_TRY(st_system_vec_alloc(sys, &s->b, err));
    ST_TRY(st_system_vec_alloc(sys, &s->resi, err));
    ST_TRY(st_system_vec_alloc(sys, &s->tmp, err));
    ST_TRY(st_system_xvec_alloc(sys, &s->oldpos, err));
    ST_TRY(st_system_xvec_alloc(sys, &s->x0, err));
    s->started = false;
    return ST_OK;
}

/* The Euclidean norm of the independent coordinates. */
static double xnorm(const st_system *sys, const double *x)
{
    double d = 0.0;
    for (size_t i = 0; i < sys->xsize; i++)
        d += x[i] * x[i];
    return sqrt(d);
}

/* a = M^-1 f: the masses' own inverse when diagonal, else the linear
 * solver on M alone. */
static st_status apply_minv(variational *s, st_system *sys, double *a, const double *f,
                            st_error *err)
{
    if (st_system_mass_is_diagonal(sys))
        return st_system_acc_from_f(sys, a, f, err);
    if (!s->ls)
        return st_component_error(&s->base, "linearSolver", err, ST_ESCENE,
                                  "Due to the presence of non-diagonal masses, the solver "
                                  "requires a linear solver");
    ST_TRY(st_linsolver_set_system(s->ls, sys, 1.0, 0.0, 0.0, err));
    return st_linsolver_solve(s->ls, sys, a, f, err);
}

static st_status explicit_step(variational *s, st_system *sys, double h, st_error *err)
{
    double *x = sys->x, *v = sys->v, *f = sys->f, *acc = s->tmp;
    sys->mp.implicit = false;
    st_system_compute_force(sys, f, x, v);
    st_vec_peq(sys, f, s->p, 1.0 / h);
    ST_TRY(apply_minv(s, sys, acc, f, err));
    if (s->rayleigh_mass > 0.0)
        st_vec_peq(sys, acc, v, -s->rayleigh_mass);
    st_system_project_response(sys, acc);
    st_vec_eq(sys, v, acc);
    st_vec_teq(sys, v, h);
    st_vec_x_peq(sys, x, v, h);
    st_vec_clear(sys, s->p);
    st_system_add_mdx(sys, s->p, v, 1.0);
    return ST_OK;
}

static st_status implicit_step(variational *s, st_system *sys, double h, st_error *err)
{
    double *x = sys->x, *v = sys->v, *f = sys->f, *res = s->res, *b = s->b;
    const double rm = s->rayleigh_mass, rk = s->rayleigh_stiffness;
    sys->mp.implicit = true;
    st_vec_x_eq(sys, s->oldpos, x);
    st_vec_x_eq(sys, s->x0, x);
    const double pos_norm = xnorm(sys, s->oldpos);
    st_vec_clear(sys, res);
    unsigned it = 0;
    double err_newton = 0.0;
    while ((it < s->newton_steps && err_newton > s->newton_error) || it == 0) {
        /* b = f(q_k + r) + 2/h p - K r */
        st_system_compute_force(sys, f, x, v);
        st_vec_eq(sys, b, f);
        st_vec_peq(sys, b, s->p, 2.0 / h);
        st_system_add_mbkdx(sys, b, res, 0.0, 0.0, -1.0, false);
        st_system_project_response(sys, b);
        ST_TRY(st_linsolver_set_system(s->ls, sys, 4.0 / (h * h) + 4.0 * rm / h, 0.0,
                                       -1.0 - 4.0 * rk / h, err));
        ST_TRY(st_linsolver_solve(s->ls, sys, res, b, err));
        /* The new midpoint estimate, and how far it moved. */
        st_vec_x_op(sys, x, s->oldpos, res, 1.0);
        st_vec_x_diff(sys, s->resi, x, s->x0);
        st_vec_x_eq(sys, s->x0, x);
        st_system_propagate_x(sys, x);
        const double rn = st_vec_norm(sys, s->resi);
        /* SOFA divides by |q_k|: 0/0 stops, r/0 runs to `steps`. */
        err_newton = pos_norm > 0.0 ? rn / pos_norm : (rn > 0.0 ? INFINITY : 0.0);
        it++;
    }
    s->last_iterations = it;
    if (s->compute_hamiltonian && s->incremental_potential)
        s->potential += -2.0 * st_vec_dot(sys, f, res);
    /* v_{k+1} = 2 r / h; the force at the midpoint; q_{k+1} = q_k + h v. */
    st_vec_eq(sys, v, res);
    st_vec_teq(sys, v, 2.0 / h);
    st_vec_x_op(sys, x, s->oldpos, v, h / 2);
    st_system_propagate_x(sys, x);
    st_system_propagate_v(sys, v);
    st_system_compute_force(sys, f, x, v);
    st_system_project_response(sys, f);
    st_vec_clear(sys, s->p);
    st_vec_peq(sys, s->p, f, h / 2);
    st_system_add_mdx(sys, s->p, v, 1.0);
    st_vec_x_op(sys, x, s->oldpos, v, h);

    if (s->compute_hamiltonian) {
        ST_TRY(apply_minv(s, sys, s->tmp, s->p, err));
        const double kinetic = 0.5 * st_vec_dot(sys, s->p, s->tmp);
        double potential = s->potential;
        if (!s->incremental_potential) {
            st_system_propagate_x(sys, x);
            potential = st_system_potential_energy(sys);
        }
        s->hamiltonian = kinetic + potential;
        if (s->out)
            fprintf(s->out, "%.17g,%.17g,%.17g,%.17g\n", sys->mp.time, kinetic, potential,
                    kinetic + potential);
    }
    return ST_OK;
}

static st_status variational_solve(st_component *self, st_system *sys, double dt, st_error *err)
{
    variational *s = (variational *)self;
    if (!s->started || sys->mp.time == 0.0) {
        /* p = M v, assuming no acceleration at the start. */
        st_vec_clear(sys, s->p);
        st_system_add_mdx(sys, s->p, sys->v, 1.0);
        if (s->compute_hamiltonian && s->incremental_potential)
            s->potential = st_system_potential_energy(sys);
        if (s->out && !s->started)
            fprintf(s->out, "time,kinetic energy,potential energy, hamiltonian energy\n");
        s->started = true;
    }
    if (s->explicit_scheme)
        return explicit_step(s, sys, dt, err);
    return implicit_step(s, sys, dt, err);
}

/* SOFA's factors for this solver are all 0. */
static double variational_integration_factor(const st_component *self, int in, int out,
                                             double dt)
{
    (void)self, (void)in, (void)out, (void)dt;
    return 0.0;
}

static double variational_solution_factor(const st_component *self, int out, double dt)
{
    (void)self, (void)out, (void)dt;
    return 0.0;
}

static double variational_zero_factor(const st_component *self, double dt)
{
    (void)self, (void)dt;
    return 0.0;
}

static const st_odesolver_ops variational_ops = {
    .struct_size = sizeof(st_odesolver_ops),
    .bind = variational_bind,
    .solve = variational_solve,
    .integration_factor = variational_integration_factor,
    .solution_integration_factor = variational_solution_factor,
    .velocity_integration_factor = variational_zero_factor,
    .position_integration_factor = variational_zero_factor,
};

/* The momentum p is a system vector (the kernel saves it); whether it was
 * set, and the incremental potential energy, are the solver's own. */
static st_status variational_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    variational *s = (variational *)self;
    ST_TRY(st_checkpoint_data(ck, &s->started, sizeof s->started, err));
    ST_TRY(st_checkpoint_data(ck, &s->potential, sizeof s->potential, err));
    ST_TRY(st_checkpoint_data(ck, &s->last_iterations, sizeof s->last_iterations, err));
    if (st_checkpoint_reading(ck) && s->out)
        st_component_warn(self, "the run was resumed from a checkpoint: the energy file was "
                                "started again at this run's init and holds the resumed part "
                                "of the run only");
    return ST_OK;
}

static const st_checkpoint_ops variational_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = variational_checkpoint,
};

const st_class variational_symplectic_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "VariationalSymplecticSolver",
    .category = "OdeSolver",
    .description = "Implicit time integrator which conserves linear momentum and mechanical "
                   "energy.",
    .instance_size = sizeof(variational),
    .fields = variational_fields,
    .init = variational_init,
    .cleanup = variational_cleanup,
    .odesolver = &variational_ops,
    .checkpoint = &variational_checkpoint_ops,
};
