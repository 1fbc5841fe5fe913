/* torsion_force_field.c - TorsionForceField: a torque about an axis applied
 * to listed points, as SOFA's.
 *
 * With u the unit axis (axis normalised; null stays null), t = torque u and
 * o the origin, point x gets f = t x (x - o - (x . u) u) (SOFA's formula:
 * the lever is measured from o + (x . u) u, which is the axis only when
 * o . u = 0). Rigid3d: the same force on the centre and the torque t on the
 * rotation.
 * The stiffness is SOFA's: K = torque (I - u u^T) on the translational
 * block, symmetric, so that the symmetric linear solvers (CG, LDL) can take
 * it; it is not the derivative of the force, which is torque [u]x (skew:
 * a system matrix with it is not symmetric). SOFA's code reads the last
 * diagonal entry out of bounds (u[3]); settee uses 1 - u_z^2, the entry the
 * formula means. add_dforce and the assembled matrix agree. A torque field
 * has no potential: the energy is 0 (as SOFA's). Templates: Vec3d,
 * Rigid3d. */
#include <math.h>

#include "mechanical_load.h"

typedef struct torsion {
    st_component base;
    st_array indices;          /* "indices" */
    double torque;             /* "torque" */
    st_vec3 axis;              /* "axis" */
    st_vec3 origin;            /* "origin" */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *mstate;      /* "mstate" */
    st_mstate *ms;
    double u[3]; /* unit axis */
} torsion;

static st_status to_init(st_component *self, st_error *err)
{
    torsion *t = (torsion *)self;
    ST_TRY(ml_find_state(self, &t->ms, err));
    for (size_t i = 0; i < t->indices.n; i++)
        if (t->indices.u[i] >= t->ms->n)
            return st_component_error(self, "indices", err, ST_ESCENE,
                                      "index %u is beyond the %zu points of the state",
                                      t->indices.u[i], t->ms->n);
    double n = sqrt(ml_dot(t->axis, t->axis));
    for (int k = 0; k < 3; k++)
        t->u[k] = n > 0 ? t->axis[k] / n : 0.0;
    return ST_OK;
}

static void to_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)v;
    torsion *t = (torsion *)self;
    const st_state_type *ty = t->ms->type;
    double *fs = st_slice(f, t->ms);
    const double *xs = st_slice_x(x, t->ms);
    double tv[3] = {t->torque * t->u[0], t->torque * t->u[1], t->torque * t->u[2]};
    for (size_t i = 0; i < t->indices.n; i++) {
        const double *p = xs + (size_t)ty->coord_size * t->indices.u[i];
        double *fi = fs + (size_t)ty->deriv_size * t->indices.u[i];
        double a = ml_dot(p, t->u), r[3], c[3];
        for (int k = 0; k < 3; k++)
            r[k] = p[k] - (t->origin[k] + a * t->u[k]);
        ml_cross(tv, r, c);
        ml_axpy(fi, 1.0, c);
        if (ty->rigid)
            ml_axpy(fi + 3, 1.0, tv);
    }
}

/* K = torque (I - u u^T) on the translational block, times s. */
static void to_block(const torsion *t, double s, double b[9])
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            b[3 * r + c] = s * t->torque * ((r == c ? 1.0 : 0.0) - t->u[r] * t->u[c]);
}

static void to_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    torsion *t = (torsion *)self;
    if (kfactor == 0.0)
        return;
    unsigned w = t->ms->type->deriv_size;
    double *dfs = st_slice(df, t->ms);
    const double *dxs = st_slice(dx, t->ms);
    double b[9];
    to_block(t, kfactor, b);
    for (size_t i = 0; i < t->indices.n; i++) {
        const double *d = dxs + (size_t)w * t->indices.u[i];
        double *o = dfs + (size_t)w * t->indices.u[i];
        for (int r = 0; r < 3; r++)
            o[r] += b[3 * r] * d[0] + b[3 * r + 1] * d[1] + b[3 * r + 2] * d[2];
    }
}

static void to_add_k_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m,
                               double kfactor)
{
    (void)mp;
    torsion *t = (torsion *)self;
    double b3[9], blk[36] = {0};
    to_block(t, kfactor, b3);
    unsigned w = t->ms->type->deriv_size;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            blk[w * r + c] = b3[3 * r + c];
    for (size_t i = 0; i < t->indices.n; i++)
        st_matrix_add_block(m, t->ms, t->indices.u[i], t->ms, t->indices.u[i], blk);
}

static double to_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)self, (void)mp, (void)x;
    return 0.0;
}

static double to_rayleigh(const st_component *self)
{
    return ((const torsion *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops to_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = to_add_force,
    .add_dforce = to_add_dforce,
    .add_k_to_matrix = to_add_k_to_matrix,
    .potential_energy = to_energy,
    .rayleigh_stiffness = to_rayleigh,
};

static const st_field to_fields[] = {
    ST_UINTS(torsion, indices, "indices", NULL, "indices of the selected points"),
    ST_REAL(torsion, torque, "torque", "0", "torque to apply"),
    ST_VEC3(torsion, axis, "axis", "0 0 0", "direction of the axis (will be normalized)"),
    ST_VEC3(torsion, origin, "origin", "0 0 0", "origin of the axis"),
    ML_F_FORCEFIELD(torsion),
    ST_FIELD_END};

static const char *const to_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class torsion_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "TorsionForceField",
    .category = "ForceField",
    .description = "Applies a torque to specified degrees of freedom",
    .instance_size = sizeof(torsion),
    .fields = to_fields,
    .init = to_init,
    .reinit = to_init,
    .forcefield = &to_ops,
    .templates = to_templates,
};
