/* oscillating_torsion_pressure_force_field.c -
 * OscillatingTorsionPressureForceField: an oscillating moment about an axis
 * applied to the vertices of chosen triangles, as SOFA's.
 *
 * Triangles: those whose three rest positions p satisfy
 * dmin < p . axis < dmax (when dmin != dmax), replaced by triangleList when
 * set. Their vertices are the active points. axis is normalised at init;
 * r(x) = x - center - ((x - center) . axis) axis is a point's offset from
 * the axis; r0 its rest offset and c0 = x0 - r0 its foot on the axis.
 * Each active point gets a share w of the moment (SOFA's weights from each
 * triangle's rest area and the vertices' rest distances to the axis,
 * normalised to sum 1). At each force computation (t the node's time):
 *  1. the mean rotation angle a = sum |r| angle(r, r0) / sum |r| over the
 *     points with |r| and |r0| > 1e-10 (angle signed about the axis);
 *  2. each active point is pulled to its rigidly turned rest place,
 *     f += penalty (c0 + R(a) r0 - x), and that force's moment about the
 *     axis is summed (m = sum (f . e) |r|, e the unit tangent axis x r);
 *  3. the remaining moment M cos(6.2831853 frequency t) - m is spread:
 *     f += e (remaining) w / |r|.
 * SOFA gives no derivative (no stiffness), no energy (0). Vec3d only. */
#include <math.h>
#include <string.h>

#include "mechanical_load.h"

typedef struct otp {
    st_component base;
    char *pressure_map;        /* "trianglePressureMap" (SOFA's internal data) */
    double moment;             /* "moment" */
    st_array triangle_list;    /* "triangleList" */
    st_vec3 axis;              /* "axis" (normalised at init) */
    st_vec3 center;            /* "center" */
    double penalty;            /* "penalty" */
    double frequency;          /* "frequency" */
    double dmin, dmax;         /* "dmin", "dmax" */
    bool show_forces;          /* "showForces" (drawing) */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *topology;    /* "topology" */
    st_component *mstate;      /* "mstate" */
    /* Set by init: per point of the state. */
    st_mstate *ms;
    double u[3]; /* unit axis */
    bool *active;
    double *share;   /* w */
    double *r0, *c0; /* rest offsets and feet, 3 per point */
    double *e;       /* the last tangent directions, 3 per point */
    double *r;       /* scratch: current offsets, 3 per point */
    double angle;    /* the last mean angle (SOFA's rotationAngle) */
} otp;

static void otp_cleanup(st_component *self)
{
    otp *o = (otp *)self;
    st_free(o->active);
    st_free(o->share);
    st_free(o->r0);
    st_free(o->c0);
    st_free(o->e);
    st_free(o->r);
    o->active = NULL;
    o->share = o->r0 = o->c0 = o->e = o->r = NULL;
}

static void offset(const otp *o, const double *x, double *r)
{
    double d[3] = {x[0] - o->center[0], x[1] - o->center[1], x[2] - o->center[2]};
    double a = ml_dot(d, o->u);
    for (int k = 0; k < 3; k++)
        r[k] = x[k] - (o->u[k] * a + o->center[k]);
}

/* SOFA's signed angle between v1 and v2 about the axis. */
static double signed_angle(const otp *o, const double *v1, const double *v2)
{
    double dp = ml_dot(v1, v2) / (sqrt(ml_dot(v1, v1)) * sqrt(ml_dot(v2, v2)));
    dp = dp > 1.0 ? 1.0 : dp < -1.0 ? -1.0 : dp;
    double a = acos(dp), c[3];
    ml_cross(v1, v2, c);
    return ml_dot(o->u, c) > 0 ? -a : a;
}

static st_status otp_init(st_component *self, st_error *err)
{
    otp *o = (otp *)self;
    otp_cleanup(self);
    ST_TRY(ml_find_state(self, &o->ms, err));
    ST_TRY(st_find_topology(self, &o->topology, err));
    double al = sqrt(ml_dot(o->axis, o->axis));
    for (int k = 0; k < 3; k++)
        o->u[k] = al > 0 ? o->axis[k] / al : 0.0;
    size_t n = o->ms->n;
    o->active = st_calloc(n + 1, sizeof *o->active);
    o->share = st_calloc(n + 1, sizeof *o->share);
    o->r0 = st_calloc(3 * (n + 1), sizeof *o->r0);
    o->c0 = st_calloc(3 * (n + 1), sizeof *o->c0);
    o->e = st_calloc(3 * (n + 1), sizeof *o->e);
    o->r = st_calloc(3 * (n + 1), sizeof *o->r);
    if (!o->active || !o->share || !o->r0 || !o->c0 || !o->e || !o->r)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu points", n);
    const st_array *tris = o->topology->cls->topology->elements(o->topology, ST_T_TRIANGLES);
    size_t nt = tris ? tris->n : 0;
    ST_TRY(ml_check_elements(self, "triangle", tris ? tris->u : NULL, nt, 3, o->ms, err));
    const double *x0 = o->ms->rest_position.r;
    /* The selection, in SOFA's order (the list replaces the slab). */
    const unsigned *sel = NULL;
    size_t ns = 0;
    unsigned *slab = NULL;
    if (o->dmin != o->dmax) {
        slab = st_calloc(nt + 1, sizeof *slab);
        if (!slab)
            return st_error_set(err, ST_ENOMEM, "out of memory for %zu triangles", nt);
        for (size_t t = 0; t < nt; t++) {
            bool in = true;
            for (int j = 0; j < 3; j++) {
                double d = ml_dot(x0 + 3 * (size_t)tris->u[3 * t + (size_t)j], o->u);
                in = in && d > o->dmin && d < o->dmax;
            }
            if (in)
                slab[ns++] = (unsigned)t;
        }
        sel = slab;
    }
    if (o->triangle_list.n) {
        sel = o->triangle_list.u;
        ns = o->triangle_list.n;
    }
    st_status rc = ST_OK;
    for (size_t i = 0; i < ns && rc == ST_OK; i++) {
        if (sel[i] >= nt) {
            rc = st_component_error(self, "triangleList", err, ST_EINVAL,
                                    "triangle %u does not exist: the topology '%s' has %zu "
                                    "triangles",
                                    sel[i], o->topology->name, nt);
            break;
        }
        const unsigned *v = tris->u + 3 * (size_t)sel[i];
        double ab[3], ac[3], cr[3], d[10];
        for (int k = 0; k < 3; k++) {
            ab[k] = x0[3 * (size_t)v[1] + k] - x0[3 * (size_t)v[0] + k];
            ac[k] = x0[3 * (size_t)v[2] + k] - x0[3 * (size_t)v[0] + k];
        }
        ml_cross(ab, ac, cr);
        double area = sqrt(ml_dot(cr, cr)) / 2;
        for (int j = 0; j < 3; j++) {
            double *r0 = o->r0 + 3 * (size_t)v[j], *c0 = o->c0 + 3 * (size_t)v[j];
            const double *p = x0 + 3 * (size_t)v[j];
            o->active[v[j]] = true;
            offset(o, p, r0);
            for (int k = 0; k < 3; k++)
                c0[k] = p[k] - r0[k];
            d[j] = sqrt(ml_dot(r0, r0));
        }
        /* SOFA's quadrature of the moment arm over the triangle. */
        d[3] = (d[0] + d[1]) / 2;
        d[4] = (d[1] + d[2]) / 2;
        d[5] = (d[2] + d[0]) / 2;
        d[6] = (d[0] + d[3] + d[5]) / 3;
        d[7] = (d[1] + d[4] + d[3]) / 3;
        d[8] = (d[2] + d[5] + d[4]) / 3;
        d[9] = (d[0] + d[1] + d[2]) / 3;
        o->share[v[0]] +=
            (d[0] * d[0] + d[3] * d[3] + d[5] * d[5] + d[6] * d[6] + d[9] * d[9]) * d[0] * area / 3;
        o->share[v[1]] +=
            (d[1] * d[1] + d[4] * d[4] + d[3] * d[3] + d[7] * d[7] + d[9] * d[9]) * d[1] * area / 3;
        o->share[v[2]] +=
            (d[2] * d[2] + d[5] * d[5] + d[4] * d[4] + d[8] * d[8] + d[9] * d[9]) * d[2] * area / 3;
    }
    st_free(slab);
    if (rc != ST_OK)
        return rc;
    double total = 0.0;
    for (size_t i = 0; i < n; i++)
        total += o->share[i];
    if (total > 0)
        for (size_t i = 0; i < n; i++)
            o->share[i] /= total;
    o->angle = 0.0;
    return ST_OK;
}

static void otp_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    (void)mp, (void)v;
    otp *o = (otp *)self;
    size_t n = o->ms->n;
    double *fs = st_slice(f, o->ms);
    const double *xs = st_slice_x(x, o->ms);
    double sum = 0.0, total = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!o->active[i])
            continue;
        double *r = o->r + 3 * i, *r0 = o->r0 + 3 * i;
        offset(o, xs + 3 * i, r);
        double l = sqrt(ml_dot(r, r));
        if (l > 1e-10 && sqrt(ml_dot(r0, r0)) > 1e-10) {
            sum += l * signed_angle(o, r, r0);
            total += l;
        }
    }
    double a = total > 0 ? sum / total : 0.0;
    o->angle = a;
    double q[4] = {o->u[0] * sin(a / 2), o->u[1] * sin(a / 2), o->u[2] * sin(a / 2), cos(a / 2)};
    double applied = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!o->active[i])
            continue;
        double *r = o->r + 3 * i, *r0 = o->r0 + 3 * i, turned[3], force[3];
        st_quat_rotate(turned, q, r0);
        for (int k = 0; k < 3; k++)
            force[k] = (turned[k] + o->c0[3 * i + k] - xs[3 * i + k]) * o->penalty;
        ml_axpy(fs + 3 * i, 1.0, force);
        double l = sqrt(ml_dot(r, r));
        if (l > 1e-10 && sqrt(ml_dot(r0, r0)) > 1e-10) {
            double *e = o->e + 3 * i;
            ml_cross(o->u, r, e);
            double el = sqrt(ml_dot(e, e));
            if (el > 0)
                for (int k = 0; k < 3; k++)
                    e[k] /= el;
            applied += ml_dot(force, e) * l;
        }
    }
    double t = st_node_time(self->node);
    double remaining = o->moment * cos(6.2831853 * o->frequency * t) - applied;
    for (size_t i = 0; i < n; i++) {
        if (!o->active[i])
            continue;
        double l = sqrt(ml_dot(o->r + 3 * i, o->r + 3 * i));
        if (l > 1e-10)
            ml_axpy(fs + 3 * i, remaining * o->share[i] / l, o->e + 3 * i);
    }
}

static double otp_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)self, (void)mp, (void)x;
    return 0.0;
}

static double otp_rayleigh(const st_component *self)
{
    return ((const otp *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops otp_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = otp_add_force,
    .potential_energy = otp_energy,
    .rayleigh_stiffness = otp_rayleigh,
};

static const st_field otp_fields[] = {
    IGN_STRING(otp, pressure_map, "trianglePressureMap", NULL,
               "Map between triangle indices and their pressure (internal: computed at init)"),
    ST_REAL(otp, moment, "moment", "0", "Moment force applied on the entire surface"),
    ST_UINTS(otp, triangle_list, "triangleList", NULL,
             "Indices of triangles separated with commas where a pressure is applied"),
    ST_VEC3(otp, axis, "axis", "0 0 1",
            "Axis of rotation and normal direction for the plane selection of triangles"),
    ST_VEC3(otp, center, "center", "0 0 0", "Center of rotation"),
    ST_REAL(otp, penalty, "penalty", "1000", "Strength of the penalty force"),
    ST_REAL(otp, frequency, "frequency", "1", "frequency of oscillation"),
    ST_REAL(otp, dmin, "dmin", "0", "Minimum distance from the origin along the normal direction"),
    ST_REAL(otp, dmax, "dmax", "0", "Maximum distance from the origin along the normal direction"),
    IGN_BOOL(otp, show_forces, "showForces", "false", "draw triangles which have a given pressure"),
    ST_LINK(otp, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ML_F_FORCEFIELD(otp),
    ST_FIELD_END};

const st_class oscillating_torsion_pressure_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "OscillatingTorsionPressureForceField",
    .category = "ForceField",
    .description = "Oscillating moment about an axis applied to the vertices of chosen triangles",
    .instance_size = sizeof(otp),
    .fields = otp_fields,
    .init = otp_init,
    .reinit = otp_init,
    .cleanup = otp_cleanup,
    .forcefield = &otp_ops,
};
