/* linear_force_field.c - LinearForceField: a force on listed points that
 * varies linearly between key times, as SOFA's.
 *
 * With t the node's time, keys (times[k], forces[k]) in chronological order
 * and t >= times[0]: before the last key time the force is the linear
 * interpolation between the surrounding keys, scaled by `force`; from the
 * last key time on it is forces[last] (not scaled, as SOFA). Before the
 * first key time, or without keys, there is no force. Each listed point
 * gets the whole force. The force does not depend on the positions: no
 * derivative. Energy: -sum F . x over the points for the force applied at
 * time t (SOFA's own getPotentialEnergy reads x by list slot instead of by
 * point index and is 0 after the last key; settee gives the potential of
 * the force it applies). Templates: Vec3d, Vec2d, Vec1d, Rigid3d (SOFA
 * also has Vec6d). */
#include "mechanical_load.h"

typedef struct linear_ff {
    st_component base;
    st_array points;           /* "points" */
    double scale;              /* "force" */
    st_array times;            /* "times" */
    st_array forces;           /* "forces", deriv[] */
    double arrow_size;         /* "arrowSizeCoef" (drawing) */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *topology;    /* "topology" */
    st_component *mstate;      /* "mstate" */
    st_mstate *ms;
} linear_ff;

static st_status lf_init(st_component *self, st_error *err)
{
    linear_ff *l = (linear_ff *)self;
    ST_TRY(ml_find_state(self, &l->ms, err));
    if (!l->topology)
        l->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    for (size_t i = 0; i < l->points.n; i++)
        if (l->points.u[i] >= l->ms->n)
            return st_component_error(self, "points", err, ST_ESCENE,
                                      "point %u is beyond the %zu points of the state",
                                      l->points.u[i], l->ms->n);
    if (l->forces.n < l->times.n)
        return st_component_error(self, "forces", err, ST_ESCENE,
                                  "%zu forces for %zu key times: give one force per key time",
                                  l->forces.n, l->times.n);
    for (size_t k = 1; k < l->times.n; k++)
        if (l->times.r[k] < l->times.r[k - 1])
            return st_component_error(self, "times", err, ST_ESCENE,
                                      "key times must be in chronological order: times[%zu] = %g "
                                      "comes after %g",
                                      k, l->times.r[k], l->times.r[k - 1]);
    return ST_OK;
}

/* The force at time t (deriv_size values); false when there is none. */
static bool lf_force(const linear_ff *l, double t, double *F)
{
    size_t n = l->times.n;
    unsigned w = l->ms->type->deriv_size;
    const double *kt = l->times.r, *kf = l->forces.r;
    if (n == 0 || t < kt[0])
        return false;
    if (t >= kt[n - 1]) {
        for (unsigned j = 0; j < w; j++)
            F[j] = kf[w * (n - 1) + j];
        return true;
    }
    size_t k = 0;
    while (k + 1 < n && kt[k + 1] <= t)
        k++;
    double s = (t - kt[k]) / (kt[k + 1] - kt[k]);
    for (unsigned j = 0; j < w; j++)
        F[j] = (kf[w * k + j] + (kf[w * (k + 1) + j] - kf[w * k + j]) * s) * l->scale;
    return true;
}

static void lf_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)x, (void)v;
    linear_ff *l = (linear_ff *)self;
    double F[6];
    if (!lf_force(l, st_node_time(self->node), F))
        return;
    unsigned w = l->ms->type->deriv_size;
    double *fs = st_slice(f, l->ms);
    for (size_t i = 0; i < l->points.n; i++)
        for (unsigned j = 0; j < w; j++)
            fs[(size_t)w * l->points.u[i] + j] += F[j];
}

static double lf_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    linear_ff *l = (linear_ff *)self;
    double F[6];
    if (!lf_force(l, st_node_time(self->node), F))
        return 0.0;
    const st_state_type *t = l->ms->type;
    const double *xs = st_slice_x(x, l->ms);
    /* Rigid3d: the linear part only (a constant torque has no potential in
     * the coordinates). */
    unsigned n = t->rigid ? 3 : t->deriv_size;
    double e = 0.0;
    for (size_t i = 0; i < l->points.n; i++)
        for (unsigned j = 0; j < n; j++)
            e -= F[j] * xs[(size_t)t->coord_size * l->points.u[i] + j];
    return e;
}

static double lf_rayleigh(const st_component *self)
{
    return ((const linear_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops lf_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = lf_add_force,
    .potential_energy = lf_energy,
    .rayleigh_stiffness = lf_rayleigh,
};

static const st_field lf_fields[] = {
    ST_UINTS(linear_ff, points, "points", NULL, "points where the force is applied"),
    ST_REAL(linear_ff, scale, "force", "1", "applied force to all points"),
    ST_REALS(linear_ff, times, "times", NULL, "key times for the interpolation"),
    ST_DERIVS(linear_ff, forces, "forces", NULL, "forces corresponding to the key times"),
    IGN_REAL(linear_ff, arrow_size, "arrowSizeCoef", "0",
             "Size of the drawn arrows (0->no arrows, sign->direction of drawing"),
    ST_LINK(linear_ff, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ML_F_FORCEFIELD(linear_ff),
    ST_FIELD_END};

static const char *const lf_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Vec6d", "Rigid3d", NULL};

const st_class linear_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "LinearForceField",
    .category = "ForceField",
    .description = "Linearly-interpolated force applied to given degrees of freedom",
    .instance_size = sizeof(linear_ff),
    .fields = lf_fields,
    .init = lf_init,
    .reinit = lf_init,
    .forcefield = &lf_ops,
    .templates = lf_templates,
};
