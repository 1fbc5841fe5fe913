/* conical_force_field.c - ConicalForceField: a penalty force keeping points
 * inside a cone, as SOFA's.
 *
 * The cone has its apex at coneCenter, its axis along coneHeight (whose
 * length H bounds it) and the half-angle coneAngle (degrees). A point p is
 * inside when |p - c| <= H and the angle between p - c and the axis is at
 * most coneAngle; inside points feel nothing. For the others, with
 * cp = p - c, n the unit axis, k = stiffness, b = damping, v the velocity:
 *  - |cp| > H (beyond the bounding sphere): d = |cp| - H and
 *    f = -k d cp/|cp| + b d v (SOFA's sign for the velocity term, which
 *    feeds energy in rather than damping it); the contact normal is
 *    cp/|cp|;
 *  - else, in front of the apex (cp . n > 0): cp is turned about n x cp
 *    back onto the cone's surface, p' = c + s (s . cp) with s that unit
 *    direction; d = |p' - p|, u = (p' - p)/d and f = k d u - b (u . v) u;
 *  - else (behind the apex): d = |cp|, u = -cp/|cp|, f the same.
 * The stiffness, SOFA's, is -k u u^T at each contact (the normal's part
 * only: not the exact derivative where the surface curves); no damping
 * matrix; no energy (SOFA's is not implemented: 0). The matrix gets one
 * block per point, zero off contact (issue 19). Vec3d only. */
#include <math.h>

#include "mechanical_load.h"

#define CONE_PI 3.14159265358979323846

typedef struct conical_ff {
    st_component base;
    st_vec3 center;            /* "coneCenter" */
    st_vec3 height;            /* "coneHeight" */
    double angle;              /* "coneAngle", degrees */
    double stiffness;          /* "stiffness" */
    double damping;            /* "damping" */
    st_vec4 color;             /* "color" (drawing) */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *mstate;      /* "mstate" link */
    st_mstate *ms;
    ml_contacts set; /* contact points, ascending */
    double *normal;  /* 3 per contact, owned */
} conical_ff;

static void co_cleanup(st_component *self)
{
    conical_ff *c = (conical_ff *)self;
    ml_contacts_free(&c->set);
    st_free(c->normal);
    c->normal = NULL;
}

static st_status co_init(st_component *self, st_error *err)
{
    conical_ff *c = (conical_ff *)self;
    co_cleanup(self);
    ST_TRY(ml_find_state(self, &c->ms, err));
    size_t n = c->ms->n;
    ST_TRY(ml_contacts_reserve(&c->set, n, err));
    c->normal = st_calloc(3 * (n + 1), sizeof *c->normal);
    if (!c->normal)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu points", n);
    return ST_OK;
}

/* SOFA's isIn: within the bounding sphere and the angle. */
static bool co_inside(const conical_ff *c, const double *p)
{
    double h = sqrt(ml_dot(c->height, c->height));
    double cp[3] = {p[0] - c->center[0], p[1] - c->center[1], p[2] - c->center[2]};
    double dist = sqrt(ml_dot(cp, cp));
    if (dist > h)
        return false;
    double cosang = ml_dot(cp, c->height) / (h * dist);
    return !(acos(cosang) * 180 / CONE_PI > c->angle);
}

static void co_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp;
    conical_ff *c = (conical_ff *)self;
    double *fs = st_slice(f, c->ms);
    const double *xs = st_slice_x(x, c->ms), *vs = st_slice(v, c->ms);
    double H = sqrt(ml_dot(c->height, c->height)), n[3] = {0, 0, 0};
    if (H > 0)
        for (int k = 0; k < 3; k++)
            n[k] = c->height[k] / H;
    c->set.n = 0;
    for (size_t i = 0; i < c->ms->n; i++) {
        const double *p = xs + 3 * i, *vi = vs + 3 * i;
        if (co_inside(c, p))
            continue;
        double cp[3], u[3], d, *fi = fs + 3 * i;
        for (int k = 0; k < 3; k++)
            cp[k] = p[k] - c->center[k];
        double l = sqrt(ml_dot(cp, cp));
        if (l > H) {
            d = l - H;
            for (int k = 0; k < 3; k++) {
                u[k] = cp[k] / l;
                fi[k] += cp[k] * (-c->stiffness * d / l) + vi[k] * (c->damping * d);
            }
        } else {
            if (ml_dot(cp, n) > 0) {
                double alpha = acos(ml_dot(cp, n) / l) - c->angle * CONE_PI / 180;
                double t[3], q[4], s[3], pp[3];
                ml_cross(n, cp, t);
                double tl = sqrt(ml_dot(t, t));
                for (int k = 0; k < 3; k++)
                    q[k] = t[k] / tl * sin(-alpha / 2);
                q[3] = cos(-alpha / 2);
                st_quat_rotate(s, q, cp);
                double sl = sqrt(ml_dot(s, s));
                for (int k = 0; k < 3; k++)
                    s[k] /= sl;
                double len = ml_dot(s, cp);
                for (int k = 0; k < 3; k++)
                    pp[k] = s[k] * len - cp[k]; /* p' - p */
                d = sqrt(ml_dot(pp, pp));
                for (int k = 0; k < 3; k++)
                    u[k] = pp[k] / d;
            } else {
                d = l;
                for (int k = 0; k < 3; k++)
                    u[k] = -cp[k] / l;
            }
            double vn = ml_dot(u, vi);
            for (int k = 0; k < 3; k++)
                fi[k] += u[k] * (c->stiffness * d) + u[k] * (c->damping * -vn);
        }
        double *nc = c->normal + 3 * c->set.n;
        for (int k = 0; k < 3; k++)
            nc[k] = u[k];
        c->set.index[c->set.n++] = (unsigned)i;
    }
}

static void co_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    conical_ff *c = (conical_ff *)self;
    double *dfs = st_slice(df, c->ms);
    const double *dxs = st_slice(dx, c->ms);
    for (size_t k = 0; k < c->set.n; k++) {
        size_t i = c->set.index[k];
        const double *nc = c->normal + 3 * k;
        double a = ml_dot(dxs + 3 * i, nc) * -c->stiffness * kfactor;
        ml_axpy(dfs + 3 * i, a, nc);
    }
}

static void co_block(const st_component *self, size_t k, double factor, double b[9])
{
    const conical_ff *c = (const conical_ff *)self;
    const double *nc = c->normal + 3 * k;
    for (int r = 0; r < 3; r++)
        for (int q = 0; q < 3; q++)
            b[3 * r + q] = -c->stiffness * factor * nc[r] * nc[q];
}

static void co_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    conical_ff *c = (conical_ff *)self;
    ml_add_contact_blocks(m, self, c->ms, 0, c->ms->n, &c->set, kfactor, co_block);
}

static double co_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)self, (void)mp, (void)x;
    return 0.0;
}

static double co_rayleigh(const st_component *self)
{
    return ((const conical_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops co_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = co_add_force,
    .add_dforce = co_add_dforce,
    .add_k_to_matrix = co_add_k,
    .potential_energy = co_energy,
    .rayleigh_stiffness = co_rayleigh,
};

static const st_field co_fields[] = {
    ST_VEC3(conical_ff, center, "coneCenter", "0 0 0", "cone center"),
    ST_VEC3(conical_ff, height, "coneHeight", "0 0 0", "cone height"),
    ST_REAL(conical_ff, angle, "coneAngle", "10", "cone angle"),
    ST_REAL(conical_ff, stiffness, "stiffness", "500", "force stiffness"),
    ST_REAL(conical_ff, damping, "damping", "5", "force damping"),
    IGN_RGBA(conical_ff, color, "color", "0 0 1 1", "cone color. (default=0.0,0.0,0.0,1.0,1.0)"),
    ML_F_FORCEFIELD(conical_ff),
    ST_FIELD_END};

const st_class conical_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "ConicalForceField",
    .category = "ForceField",
    .description = "Penalty force keeping points inside a cone",
    .instance_size = sizeof(conical_ff),
    .fields = co_fields,
    .init = co_init,
    .cleanup = co_cleanup,
    .forcefield = &co_ops,
};
