/* angular_spring_force_field.c - AngularSpringForceField: angular springs
 * between successive rigid frames, as SOFA's (Rigid3d). For each listed
 * point after the first, p = indices[i], with k_i = angularStiffness[i]
 * (angularStiffness[0] past the end; 100 when the list is empty):
 *   dq = normalise(q[p] q[p-1]^-1) (the frame before p in the state, not
 *   the previous listed one), theta = 2 asin |dq_xyz| when dq_w > 0.999999,
 *   else 2 acos dq_w (no shortest-path flip), axis = dq_xyz / sin(theta/2)
 *   (y when that is below epsilon);
 *   torque[p] -= k_i theta axis (frame p only: SOFA applies no reaction on
 *   p - 1).
 * The stiffness is SOFA's: -k_i on the rotational diagonal of every listed
 * point (the first included), which is not the derivative of that torque;
 * settee keeps SOFA's matrix, so an implicit step gives SOFA's numbers.
 * limit is read and not used (as in SOFA). SOFA gives no potential energy
 * (a warning and 0); settee reports 0 and warns once. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "springs.h"

typedef struct angular_spring {
    st_component base;
    st_array indices;   /* uint[] */
    st_array stiffness; /* real[] */
    st_array limit;     /* real[] */
    bool draw_spring;
    st_vec4 spring_color;
    double rayleigh_stiffness;
    st_mstate *ms;
    bool warned_energy;
} angular_spring;

static const st_field asff_fields[] = {
    ST_UINTS(angular_spring, indices, "indices", NULL,
             "index of nodes controlled by the angular springs"),
    ST_REALS(angular_spring, stiffness, "angularStiffness", NULL,
             "angular stiffness for the controlled nodes"),
    ST_REALS(angular_spring, limit, "limit", NULL,
             "angular limit (max; min) values where the force applies"),
    ST_BOOL(angular_spring, draw_spring, "drawSpring", "false", "draw Spring"),
    ST_RGBA(angular_spring, spring_color, "springColor", "0 1 0 1", "spring color"),
    SPRING_F_RAYLEIGH(angular_spring),
    ST_FIELD_END};

static st_status asff_init(st_component *self, st_error *err)
{
    angular_spring *a = (angular_spring *)self;
    a->ms = st_component_mstate(self);
    if (!a->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in this node or its ancestors");
    if (a->stiffness.n == 0) {
        st_component_info(self, "No angular stiffness is defined, assuming equal stiffness on "
                                "each node, k = 100.0");
        ST_TRY(st_component_set(self, "angularStiffness", "100", err));
    }
    for (size_t i = 0; i < a->indices.n; i++) {
        unsigned p = a->indices.u[i];
        if (p >= a->ms->n)
            return st_component_error(self, "indices", err, ST_ESCENE,
                                      "index %u beyond the %zu frames of '%s'", p, a->ms->n,
                                      a->ms->base.name);
        if (i > 0 && p == 0)
            return st_component_error(self, "indices", err, ST_ESCENE,
                                      "indices[%zu] is frame 0, which has no frame before it to "
                                      "spring to (SOFA reads before the state)",
                                      i);
    }
    return ST_OK;
}

static double stiffness_of(const angular_spring *a, size_t i)
{
    return i < a->stiffness.n ? a->stiffness.r[i] : a->stiffness.r[0];
}

/* SOFA's Quat::inverse: the conjugate over the norm. */
static void quat_inverse(double r[4], const double q[4])
{
    double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (norm != 0.0) {
        norm = 1.0 / norm;
        r[3] = q[3] * norm;
        for (int k = 0; k < 3; k++)
            r[k] = -q[k] * norm;
    } else {
        r[0] = r[1] = r[2] = 0, r[3] = 1;
    }
}

static void asff_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)mp, (void)v;
    angular_spring *a = (angular_spring *)self;
    if (!a->ms || a->stiffness.n == 0)
        return;
    const double *xs = st_slice_x(x, a->ms);
    double *fs = st_slice(f, a->ms);
    for (size_t i = 1; i < a->indices.n; i++) {
        const unsigned p = a->indices.u[i];
        double inv[4], dq[4], axis[3], angle, sh;
        quat_inverse(inv, xs + 7 * (p - 1) + 3);
        st_quat_mul(dq, xs + 7 * p + 3, inv);
        st_quat_normalize(dq);
        if (dq[3] > 0.999999) {
            sh = sqrt(dq[0] * dq[0] + dq[1] * dq[1] + dq[2] * dq[2]);
            angle = 2.0 * asin(sh);
        } else {
            double half = acos(dq[3]);
            sh = sin(half);
            angle = 2 * half;
        }
        if (sh < DBL_EPSILON)
            axis[0] = 0, axis[1] = 1, axis[2] = 0;
        else
            axis[0] = dq[0] / sh, axis[1] = dq[1] / sh, axis[2] = dq[2] / sh;
        const double k = stiffness_of(a, i);
        double *t = fs + 6 * p + 3;
        for (int c = 0; c < 3; c++)
            t[c] -= axis[c] * angle * k;
    }
}

static void asff_add_dforce(st_component *self, const st_mparams *mp, double *df,
                            const double *dx, double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    angular_spring *a = (angular_spring *)self;
    if (!a->ms || a->stiffness.n == 0)
        return;
    const double *d = st_slice(dx, a->ms);
    double *o = st_slice(df, a->ms);
    for (size_t i = 0; i < a->indices.n; i++) {
        const unsigned p = a->indices.u[i];
        const double k = stiffness_of(a, i);
        for (int c = 3; c < 6; c++)
            o[6 * p + c] -= d[6 * p + c] * k * kfactor;
    }
}

static void asff_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    angular_spring *a = (angular_spring *)self;
    if (!a->ms || a->stiffness.n == 0)
        return;
    for (size_t i = 0; i < a->indices.n; i++) {
        double block[36] = {0};
        const double v = -kfactor * stiffness_of(a, i);
        for (int c = 3; c < 6; c++)
            block[6 * c + c] = v;
        st_matrix_add_block(m, a->ms, a->indices.u[i], a->ms, a->indices.u[i], block);
    }
}

static double asff_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp, (void)x;
    angular_spring *a = (angular_spring *)self;
    if (!a->warned_energy) {
        st_component_warn(self, "Method getPotentialEnergy not implemented yet (SOFA's 0)");
        a->warned_energy = true;
    }
    return 0.0;
}

static double asff_rayleigh(const st_component *self)
{
    return ((const angular_spring *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops asff_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = asff_add_force,
    .add_dforce = asff_add_dforce,
    .add_k_to_matrix = asff_add_k,
    .potential_energy = asff_energy,
    .rayleigh_stiffness = asff_rayleigh,
};

static const char *const rigid_only[] = {"Rigid3d", NULL};

const st_class angular_spring_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "AngularSpringForceField",
    .category = "ForceField",
    .description = "Angular springs applied to rotational degrees of freedom of a rigid body or "
                   "frame.",
    .instance_size = sizeof(angular_spring),
    .fields = asff_fields,
    .init = asff_init,
    .reinit = asff_init,
    .forcefield = &asff_ops,
    .templates = rigid_only,
};
