/* diagonal_velocity_damping_force_field.c - DiagonalVelocityDampingForceField:
 * a viscous drag with one coefficient per degree of freedom, as SOFA's.
 *
 * dampingCoefficient holds one derivative-sized vector of coefficients per
 * point (3 for Vec3d, 6 for Rigid3d: linear then angular); points beyond
 * the list use its last entry; an empty list gives no force. Point i feels
 * f_ij = -c_ij v_ij, whose velocity derivative B (diagonal, -c_ij) always
 * goes to implicit solvers. No stiffness, no energy (SOFA's is 0).
 * Templates: Vec3d, Vec2d, Vec1d, Rigid3d (SOFA also has Vec6d and
 * Rigid2d). */
#include "mechanical_load.h"

typedef struct diagonal_damping {
    st_component base;
    st_array coefs;            /* "dampingCoefficient", deriv[] */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *mstate;      /* "mstate" */
    st_mstate *ms;
} diagonal_damping;

static st_status dd_init(st_component *self, st_error *err)
{
    return ml_find_state(self, &((diagonal_damping *)self)->ms, err);
}

/* The coefficients of point i (derivative size values). */
static const double *dd_coef(const diagonal_damping *d, size_t i)
{
    size_t k = i < d->coefs.n ? i : d->coefs.n - 1;
    return d->coefs.r + k * d->ms->type->deriv_size;
}

static void dd_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)x;
    diagonal_damping *d = (diagonal_damping *)self;
    if (d->coefs.n == 0)
        return;
    unsigned w = d->ms->type->deriv_size;
    double *fs = st_slice(f, d->ms);
    const double *vs = st_slice(v, d->ms);
    for (size_t i = 0; i < d->ms->n; i++) {
        const double *c = dd_coef(d, i);
        for (unsigned j = 0; j < w; j++)
            fs[w * i + j] -= c[j] * vs[w * i + j];
    }
}

static void dd_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)kfactor;
    diagonal_damping *d = (diagonal_damping *)self;
    if (d->coefs.n == 0 || bfactor == 0.0)
        return;
    unsigned w = d->ms->type->deriv_size;
    double *dfs = st_slice(df, d->ms);
    const double *dxs = st_slice(dx, d->ms);
    for (size_t i = 0; i < d->ms->n; i++) {
        const double *c = dd_coef(d, i);
        for (unsigned j = 0; j < w; j++)
            dfs[w * i + j] -= bfactor * c[j] * dxs[w * i + j];
    }
}

static void dd_add_b_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m,
                               double bfactor)
{
    (void)mp;
    diagonal_damping *d = (diagonal_damping *)self;
    if (d->coefs.n == 0)
        return;
    unsigned w = d->ms->type->deriv_size;
    double b[36];
    for (size_t i = 0; i < d->ms->n; i++) {
        const double *c = dd_coef(d, i);
        for (unsigned r = 0; r < w; r++)
            for (unsigned s = 0; s < w; s++)
                b[w * r + s] = r == s ? -bfactor * c[r] : 0.0;
        st_matrix_add_block(m, d->ms, i, d->ms, i, b);
    }
}

static double dd_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)self, (void)mp, (void)x;
    return 0.0;
}

static double dd_rayleigh(const st_component *self)
{
    return ((const diagonal_damping *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops dd_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = dd_add_force,
    .add_dforce = dd_add_dforce,
    .add_b_to_matrix = dd_add_b_to_matrix,
    .potential_energy = dd_energy,
    .rayleigh_stiffness = dd_rayleigh,
};

static const st_field dd_fields[] = {
    ST_DERIVS(diagonal_damping, coefs, "dampingCoefficient", NULL,
              "velocity damping coefficients (by cinematic dof): one derivative-sized vector per "
              "point, the last one for the points beyond the list"),
    ML_F_FORCEFIELD(diagonal_damping), ST_FIELD_END};

static const char *const dd_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Vec6d", "Rigid3d", NULL};

const st_class diagonal_velocity_damping_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "DiagonalVelocityDampingForceField",
    .category = "ForceField",
    .description = "Diagonal velocity damping",
    .instance_size = sizeof(diagonal_damping),
    .fields = dd_fields,
    .init = dd_init,
    .forcefield = &dd_ops,
    .templates = dd_templates,
};
