/* sph_fluid_force_field.c - SPHFluidForceField: smoothed particle
 * hydrodynamics (Mueller et al. 2003) as SOFA's SofaSphFluid, Vec3d and Vec2d.
 *
 * With h = radius, m = mass, q = r / h, neighbours the pairs with r < h:
 *   density   rho_i = m Wd(0) + sum_j m Wd(q_ij),   p_i = k (rho_i - density)
 *   pressure  f_i += gradWp(x_i - x_j, q) * -m^2 (p_i / rho_i^2 + p_j / rho_j^2),
 *             f_j -= the same
 *   viscosity (viscosityType 1) f_i += (v_j - v_i) m^2 mu / (rho_i rho_j) lapWv(q),
 *             f_j -= the same; (2, artificial) when (v_i - v_j).(x_i - x_j) = vx < 0
 *             the pressure factor gains vx mu h m / ((q^2 + 0.01 h^2)(rho_i + rho_j)/2)
 *   surface tension (surfaceTensionType 1) n_i += gradWc (m/rho_j - m/rho_i),
 *             c_i += lapWc (m/rho_j - m/rho_i) (opposite for j), then
 *             f_i += -m sigma c_i n_i / |n_i| when |n_i| > 1e-6
 * Viscosity and surface tension are off when their coefficient is 0 (<= 0).
 * Kernels (kernelType 0): Wd = Wc = poly6 C (1 - q^2)^3, C = 315 / (64 pi h^3),
 * grad = -6C/h^2 (1 - q^2)^2 d, laplacian = -6C/h^2 (1 - q^2)(3 - 7 q^2); Wp =
 * spiky, grad = -3C'/h^2 (1 - q)^2 / q d, C' = 15 / (pi h^3); Wv laplacian
 * 6C''/h^2 (1 - q), C'' = 15 / (2 pi h^3). kernelType 1: the cubic spline
 * C = 48 / (pi h^3) for all four. The 3D constants are used in 2D too, as SOFA.
 * SOFA's addDForce is empty in effect (its list of force derivatives is never
 * filled), so the force is explicit: no stiffness, no matrix. pressureType is
 * read and unused, as SOFA. Neighbours come from a uniform hash grid of cell
 * h (neighbours.h; SOFA: a SpatialGridContainer in the node, or an O(n^2)
 * search, whose order the pairs take). */
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdint.h>
#include <string.h>

#include <settee/settee.h>

#include "neighbours.h"
#include "sph_fluid.h"

typedef struct sph {
    st_component base;
    double radius, mass, pressure, density, viscosity, surface_tension;
    int kernel_type, pressure_type, viscosity_type, surface_tension_type;
    bool debug_grid;
    double rayleigh_stiffness;
    st_mstate *ms;
    unsigned dim;
    size_t n;           /* particles the scratch is sized for */
    double *rho, *p;    /* n */
    double *normal;     /* dim x n */
    double *curv;       /* n */
    double *q;          /* per pair: r / h */
    size_t qcap;
    nb_grid grid;
} sph;

typedef enum { K_DENSITY, K_PRESSURE, K_VISCOSITY, K_CUBIC } sph_kind;

typedef struct sph_kernel {
    sph_kind kind;
    double cw, cgw, clw; /* constants of W, grad W, laplacian W */
} sph_kernel;

static sph_kernel kernel_make(sph_kind kind, double h)
{
    sph_kernel k = {kind, 0, 0, 0};
    double h2 = h * h, h3 = h2 * h;
    switch (kind) {
    case K_DENSITY:
        k.cw = 315 / (64 * M_PI * h3);
        k.cgw = -6 * k.cw / h2;
        k.clw = -6 * k.cw / h2;
        break;
    case K_PRESSURE:
        k.cw = 15 / (M_PI * h3);
        k.cgw = -3 * k.cw / h2;
        k.clw = 0;
        break;
    case K_VISCOSITY:
        k.cw = 15 / (2 * M_PI * h3);
        k.cgw = k.cw / h2;
        k.clw = 6 * k.cw / h2;
        break;
    case K_CUBIC:
        k.cw = 48 / M_PI / h3;
        k.cgw = k.cw / h2;
        k.clw = k.cw / h2;
        break;
    }
    return k;
}

static double kernel_w(const sph_kernel *k, double q)
{
    switch (k->kind) {
    case K_DENSITY: {
        double a = 1 - q * q;
        return k->cw * a * a * a;
    }
    case K_PRESSURE: {
        double a = 1 - q;
        return k->cw * a * a * a;
    }
    case K_VISCOSITY:
        return k->cw * (-0.5 * q * q * q + q * q + 0.5 / q - 1);
    case K_CUBIC:
        if (q < 0.5)
            return k->cw * (1.0 / 6.0 - q * q + q * q * q);
        if (q < 1) {
            double s = 1 - q;
            return k->cw * (s * s * s / 3.0);
        }
        return 0;
    }
    return 0;
}

/* The factor g with grad W = g d (d = x_i - x_j). */
static double kernel_grad(const sph_kernel *k, double q)
{
    switch (k->kind) {
    case K_DENSITY: {
        double a = 1 - q * q;
        return k->cgw * a * a;
    }
    case K_PRESSURE: {
        double a = 1 - q;
        return k->cgw * a * a / q;
    }
    case K_VISCOSITY:
        return k->cgw * (2.0 - 1.5 * q - 0.5 / (q * q * q));
    case K_CUBIC:
        if (q < 0.5)
            return k->cgw * (3 * q - 2);
        if (q < 1) {
            double s = 1 - q;
            return k->cgw * (-s * s / q);
        }
        return 0;
    }
    return 0;
}

static double kernel_lap(const sph_kernel *k, double q)
{
    switch (k->kind) {
    case K_DENSITY:
        return k->clw * ((1 - q * q) * (3 - 7 * q * q));
    case K_PRESSURE:
        return 0;
    case K_VISCOSITY:
        return k->clw * (1 - q);
    case K_CUBIC:
        if (q < 0.5)
            return k->clw * (12 * q - 6);
        if (q < 1)
            return k->clw * (6 - 4 * q - 2 / q);
        return 0;
    }
    return 0;
}

static void sph_free(sph *s)
{
    st_free(s->rho);
    st_free(s->p);
    st_free(s->normal);
    st_free(s->curv);
    st_free(s->q);
    nb_grid_free(&s->grid);
    s->rho = s->p = s->normal = s->curv = s->q = NULL;
    s->n = s->qcap = 0;
}

static void sph_cleanup(st_component *self) { sph_free((sph *)self); }

static st_status sph_alloc(sph *s, st_error *err);

/* The per-particle arrays are scratch, refilled at each force evaluation:
 * after a change of the particles they are made again at the new size. */
static st_status sph_resize(sph *s, st_error *err)
{
    if (!s->ms)
        return ST_OK;
    st_mstate *ms = s->ms;
    unsigned dim = s->dim;
    sph_free(s);
    s->ms = ms;
    s->dim = dim;
    return sph_alloc(s, err);
}

static st_status sph_topology_changed(st_component *owner, st_component *topology,
                                      const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev;
    return sph_resize((sph *)owner, err);
}

/* The state resized without a topology: SOFA's force field resizes its
 * particles at each evaluation; settee's scratch is made again now. */
static st_status sph_resized(st_component *owner, st_mstate *ms, size_t before, st_error *err)
{
    (void)ms, (void)before;
    return sph_resize((sph *)owner, err);
}

static st_status sph_init(st_component *self, st_error *err)
{
    sph *s = (sph *)self;
    sph_free(s);
    s->ms = st_component_mstate(self);
    if (!s->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in this node or its ancestors");
    if (!(s->radius > 0))
        return st_component_error(self, "radius", err, ST_ESCENE,
                                  "the radius must be > 0 (got %g)", s->radius);
    if (s->kernel_type != 0 && s->kernel_type != 1)
        st_component_warn_field(self, "kernelType",
                                "Unsupported kernelType %d: the default kernels are used",
                                s->kernel_type);
    s->dim = s->ms->type->deriv_size;
    ST_TRY(sph_alloc(s, err));
    /* a ParticleSource or ParticleSink changes the number of particles
     * through the topology, or resizes the state: the scratch arrays follow */
    st_component *topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (topo)
        ST_TRY(st_topology_listen(self, topo, sph_topology_changed, err));
    return st_mstate_follow_resize(self, s->ms, sph_resized, err);
}

static st_status sph_alloc(sph *s, st_error *err)
{
    st_component *self = &s->base;
    size_t n = s->ms->n;
    s->n = n;
    size_t m = n ? n : 1;
    s->rho = st_calloc(m, sizeof *s->rho);
    s->p = st_calloc(m, sizeof *s->p);
    s->normal = st_calloc(m * s->dim, sizeof *s->normal);
    s->curv = st_calloc(m, sizeof *s->curv);
    s->qcap = 8 * m;
    s->q = st_calloc(s->qcap, sizeof *s->q);
    if (!s->rho || !s->p || !s->normal || !s->curv || !s->q)
        return st_component_error(self, NULL, err, ST_ENOMEM, "out of memory");
    ST_TRY(nb_grid_size(&s->grid, n, s->dim, self, err));
    for (size_t i = 0; i < n; i++)
        s->rho[i] = s->density;
    return ST_OK;
}

/* The pairs i < j closer than h, and their q = r / h. */
static void find_neighbours(sph *s, const double *x)
{
    const double h = s->radius, h2 = h * h;
    bool whole = nb_grid_find(&s->grid, x, h);
    if (s->grid.npairs > s->qcap) {
        /* grows only when the fluid packs more than ever before */
        double *q = st_realloc(s->q, s->grid.cap * sizeof *q);
        if (q) {
            s->q = q;
            s->qcap = s->grid.cap;
        } else {
            s->grid.npairs = s->qcap;
            whole = false;
        }
    }
    if (!whole)
        st_component_warn(&s->base, "out of memory for the neighbour pairs: only %zu pairs act "
                                    "this step",
                          s->grid.npairs);
    for (size_t e = 0; e < s->grid.npairs; e++)
        s->q[e] = sqrt(s->grid.pairs[e].r2 / h2);
}

static void sph_add_force(st_component *self, const st_mparams *mp, double *fg, const double *xg,
                          const double *vg)
{
    (void)mp;
    sph *s = (sph *)self;
    if (!s->ms || s->ms->n != s->n || !s->n)
        return;
    const unsigned d = s->dim;
    const double *x = st_slice_x(xg, s->ms), *v = st_slice(vg, s->ms);
    double *f = st_slice(fg, s->ms);
    const double h = s->radius, h2 = h * h, m = s->mass, m2 = m * m, k = s->pressure;
    const double mu = s->viscosity, sigma = s->surface_tension;
    const int visc = mu == 0 ? 0 : s->viscosity_type;
    const int surf = sigma <= 0 ? 0 : s->surface_tension_type;
    sph_kernel kd, kp, kv, kc;
    if (s->kernel_type == 1) {
        kd = kp = kv = kc = kernel_make(K_CUBIC, h);
    } else {
        kd = kernel_make(K_DENSITY, h);
        kp = kernel_make(K_PRESSURE, h);
        kv = kernel_make(K_VISCOSITY, h);
        kc = kd;
    }
    find_neighbours(s, x);
    const size_t n = s->n;
    const double self_w = m * kernel_w(&kd, 0);
    for (size_t i = 0; i < n; i++) {
        s->rho[i] = self_w;
        s->curv[i] = 0;
    }
    memset(s->normal, 0, n * d * sizeof *s->normal);
    for (size_t e = 0; e < s->grid.npairs; e++) {
        double w = m * kernel_w(&kd, s->q[e]);
        s->rho[s->grid.pairs[e].i] += w;
        s->rho[s->grid.pairs[e].j] += w;
    }
    for (size_t i = 0; i < n; i++)
        s->p[i] = k * (s->rho[i] - s->density);
    if (surf == 1)
        for (size_t e = 0; e < s->grid.npairs; e++) {
            unsigned i = s->grid.pairs[e].i, j = s->grid.pairs[e].j;
            double q = s->q[e], w = m / s->rho[j] - m / s->rho[i];
            double g = kernel_grad(&kc, q) * w;
            for (unsigned a = 0; a < d; a++) {
                double na = (x[d * i + a] - x[d * j + a]) * g;
                s->normal[d * i + a] += na;
                s->normal[d * j + a] -= na;
            }
            double c = kernel_lap(&kc, q) * w;
            s->curv[i] += c;
            s->curv[j] -= c;
        }
    for (size_t e = 0; e < s->grid.npairs; e++) {
        unsigned i = s->grid.pairs[e].i, j = s->grid.pairs[e].j;
        double q = s->q[e], ri = s->rho[i], rj = s->rho[j];
        double fv = -m2 * (s->p[i] / (ri * ri) + s->p[j] / (rj * rj));
        if (visc == 1) {
            double c = m2 * mu / (ri * rj) * kernel_lap(&kv, q);
            for (unsigned a = 0; a < d; a++) {
                double t = (v[d * j + a] - v[d * i + a]) * c;
                f[d * i + a] += t;
                f[d * j + a] -= t;
            }
        } else if (visc == 2) {
            double vx = 0;
            for (unsigned a = 0; a < d; a++)
                vx += (v[d * i + a] - v[d * j + a]) * (x[d * i + a] - x[d * j + a]);
            if (vx < 0)
                fv += vx * mu * h * m / ((q * q + 0.01 * h2) * (ri + rj) * 0.5);
        }
        double g = kernel_grad(&kp, q) * fv;
        for (unsigned a = 0; a < d; a++) {
            double t = (x[d * i + a] - x[d * j + a]) * g;
            f[d * i + a] += t;
            f[d * j + a] -= t;
        }
    }
    if (surf == 1)
        for (size_t i = 0; i < n; i++) {
            double nn = 0;
            for (unsigned a = 0; a < d; a++)
                nn += s->normal[d * i + a] * s->normal[d * i + a];
            nn = sqrt(nn);
            if (nn > 0.000001)
                for (unsigned a = 0; a < d; a++)
                    f[d * i + a] += s->normal[d * i + a] * (-m * sigma * s->curv[i] / nn);
        }
}

/* SOFA's addDForce adds nothing (no force derivatives are recorded). */
static void sph_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                           double kfactor, double bfactor)
{
    (void)self, (void)mp, (void)df, (void)dx, (void)kfactor, (void)bfactor;
}

static double sph_rayleigh(const st_component *self)
{
    return ((const sph *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops sph_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = sph_add_force,
    .add_dforce = sph_add_dforce,
    .rayleigh_stiffness = sph_rayleigh,
};

static const st_field sph_fields[] = {
    ST_REAL(sph, radius, "radius", "1", "Radius of a Particle"),
    ST_REAL(sph, mass, "mass", "1", "Mass of a Particle"),
    ST_REAL(sph, pressure, "pressure", "100", "Pressure"),
    ST_REAL(sph, density, "density", "1", "Density"),
    ST_REAL(sph, viscosity, "viscosity", "0.001", "Viscosity"),
    ST_REAL(sph, surface_tension, "surfaceTension", "0", "Surface Tension"),
    ST_INT(sph, kernel_type, "kernelType", "0", "0 = default kernels, 1 = cubic spline"),
    ST_INT(sph, pressure_type, "pressureType", "1",
           "0 = none, 1 = default pressure (read and unused, as SOFA)"),
    ST_INT(sph, viscosity_type, "viscosityType", "1",
           "0 = none, 1 = default viscosity using kernel Laplacian, 2 = artificial viscosity"),
    ST_INT(sph, surface_tension_type, "surfaceTensionType", "1",
           "0 = none, 1 = default surface tension using kernel Laplacian, 2 = cohesion forces "
           "surface tension from Becker et al. 2007 (no force, as SOFA)"),
    ST_IGNORED(sph, debug_grid, "debugGrid", ST_T_BOOL, bool, "false",
               "If true will store additionnal information on the grid to check neighbors and "
               "draw them (settee's hash grid is exact)"),
    ST_REAL(sph, rayleigh_stiffness, "rayleighStiffness", "0",
            "Rayleigh damping - stiffness matrix coefficient"),
    ST_FIELD_END};

static const char *const sph_templates[] = {"Vec3d", "Vec2d", NULL};

const st_class sph_fluid_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "SPHFluidForceField",
    .category = "ForceField",
    .description = "Smoothed Particle Hydrodynamics fluid (pressure, viscosity, surface tension "
                   "between particles closer than the radius)",
    .instance_size = sizeof(sph),
    .fields = sph_fields,
    .init = sph_init,
    .reinit = sph_init,
    .cleanup = sph_cleanup,
    .forcefield = &sph_ops,
    .templates = sph_templates,
};

st_mstate *sph_fluid_state(const st_component *ff) { return ((const sph *)ff)->ms; }

const double *sph_fluid_densities(const st_component *ff, size_t *n)
{
    const sph *s = (const sph *)ff;
    *n = s->rho ? s->n : 0;
    return s->rho;
}

double sph_fluid_particle_mass(const st_component *ff) { return ((const sph *)ff)->mass; }
