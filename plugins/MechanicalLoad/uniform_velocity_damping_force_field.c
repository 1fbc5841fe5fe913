/* uniform_velocity_damping_force_field.c - UniformVelocityDampingForceField:
 * a viscous drag on every degree of freedom, f = -c v, as SOFA's.
 *
 * c is dampingCoefficient (alias damping, default 0.1); it acts on every
 * derivative component (Rigid3d: the linear and the angular velocity).
 * With implicit = true the force's velocity derivative B = -c I goes to
 * implicit solvers (add_dforce with bfactor, the assembled B); otherwise
 * (SOFA's default) the force is explicit: it is in f but has no
 * derivative. No stiffness, no energy (SOFA's is 0). Templates: Vec3d,
 * Vec2d, Vec1d, Rigid3d (SOFA also has Vec6d and Rigid2d). */
#include "mechanical_load.h"

typedef struct uniform_damping {
    st_component base;
    double c;                  /* "dampingCoefficient", N s/m */
    bool implicit;             /* "implicit" */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *mstate;      /* "mstate" */
    st_mstate *ms;
} uniform_damping;

static st_status ud_init(st_component *self, st_error *err)
{
    return ml_find_state(self, &((uniform_damping *)self)->ms, err);
}

static void ud_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)x;
    uniform_damping *d = (uniform_damping *)self;
    double *fs = st_slice(f, d->ms);
    const double *vs = st_slice(v, d->ms);
    size_t n = d->ms->n * d->ms->type->deriv_size;
    for (size_t i = 0; i < n; i++)
        fs[i] -= d->c * vs[i];
}

static void ud_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)kfactor;
    uniform_damping *d = (uniform_damping *)self;
    if (!d->implicit || bfactor == 0.0)
        return;
    double *dfs = st_slice(df, d->ms);
    const double *dxs = st_slice(dx, d->ms);
    size_t n = d->ms->n * d->ms->type->deriv_size;
    for (size_t i = 0; i < n; i++)
        dfs[i] -= bfactor * d->c * dxs[i];
}

static void ud_add_b_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m,
                               double bfactor)
{
    (void)mp;
    uniform_damping *d = (uniform_damping *)self;
    if (!d->implicit)
        return;
    for (size_t i = 0; i < d->ms->n; i++)
        st_matrix_add_diag(m, d->ms, i, -bfactor * d->c);
}

static double ud_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)self, (void)mp, (void)x;
    return 0.0;
}

static double ud_rayleigh(const st_component *self)
{
    return ((const uniform_damping *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops ud_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = ud_add_force,
    .add_dforce = ud_add_dforce,
    .add_b_to_matrix = ud_add_b_to_matrix,
    .potential_energy = ud_energy,
    .rayleigh_stiffness = ud_rayleigh,
};

static const st_field ud_fields[] = {
    ST_FIELD_EX(uniform_damping, c, "dampingCoefficient", ST_T_REAL, double, "0.1",
                "velocity damping coefficient", 0, "damping", 0.0, 0.0),
    ST_BOOL(uniform_damping, implicit, "implicit", "false",
            "should it generate damping matrix df/dv? (explicit otherwise, i.e. only generating "
            "a force)"),
    ML_F_FORCEFIELD(uniform_damping), ST_FIELD_END};

static const char *const ud_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Vec6d", "Rigid3d", NULL};

const st_class uniform_velocity_damping_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "UniformVelocityDampingForceField",
    .category = "ForceField",
    .description = "Uniform velocity damping",
    .instance_size = sizeof(uniform_damping),
    .fields = ud_fields,
    .init = ud_init,
    .forcefield = &ud_ops,
    .templates = ud_templates,
};
