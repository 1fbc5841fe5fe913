/* particles_repulsion_force_field.c - ParticlesRepulsionForceField (SOFA's
 * SofaSphFluid): particles closer than `distance` h push each other apart.
 *
 * For each pair i < j with 0 < d = |x_j - x_i| < h, u = (x_j - x_i) / d,
 * e = d - h (negative), as SOFA's addForce:
 *   F = u ks e - (v_j - v_i) kd e,   f_i += F,  f_j -= F
 * (the damping is scaled by the overlap e, not by the velocity along u).
 * The product is SOFA's addDForce, the part of the stiffness along u only,
 * at the positions of the last force evaluation (the pairs found then):
 *   dF = (x_j - x_i) ks' ((dx_j - dx_i) . (x_j - x_i)) / d^2,  df_i += dF,
 *   df_j -= dF,  ks' = ks (kfactor + bfactor rayleighStiffness)
 * (no geometric term, no damping term). As SOFA's, it adds nothing to an
 * assembled matrix (its addKToMatrix is empty: a direct solver sees the
 * force as explicit) and has no potential energy. Neighbours come from
 * settee's hash grid (neighbours.h), in the order of SOFA's O(n^2) search;
 * SOFA takes them from a SpatialGridContainer in the node when there is one
 * (the same pairs when its cellWidth is at least h: settee warns when it is
 * smaller, where SOFA's grid misses pairs). Templates: Vec3d, Vec2d. */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "neighbours.h"

typedef struct repulsion {
    st_component base;
    double distance, stiffness, damping, rayleigh_stiffness;
    st_mstate *ms;
    unsigned dim;
    nb_grid grid;
    double *x;      /* dim x n: the positions of the last force evaluation */
    bool truncated; /* said: the pairs did not fit in memory */
} repulsion;

static void rep_cleanup(st_component *self)
{
    repulsion *r = (repulsion *)self;
    nb_grid_free(&r->grid);
    st_free(r->x);
    r->x = NULL;
}

/* The scratch for the state's current number of particles (made again only
 * when a ParticleSource or a topology change made it differ). */
static st_status rep_size(repulsion *r, st_error *err)
{
    size_t n = r->ms->n;
    st_free(r->x);
    r->x = st_calloc((n ? n : 1) * r->dim, sizeof *r->x);
    if (!r->x)
        return st_component_error(&r->base, NULL, err, ST_ENOMEM, "out of memory");
    return nb_grid_size(&r->grid, n, r->dim, &r->base, err);
}

/* SOFA's context lookup of the grid: this node, then its ancestors. */
static st_component *grid_above(st_node *n)
{
    for (; n; n = st_node_parent(n))
        for (size_t k = 0; k < st_node_object_count(n); k++) {
            st_component *c = st_node_object(n, k);
            if (strcmp(c->cls->name, "SpatialGridContainer") == 0)
                return c;
        }
    return NULL;
}

static st_status rep_init(st_component *self, st_error *err)
{
    repulsion *r = (repulsion *)self;
    rep_cleanup(self);
    r->ms = st_component_mstate(self);
    if (!r->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in this node or its ancestors");
    if (!(r->distance > 0))
        return st_component_error(self, "distance", err, ST_ESCENE,
                                  "the distance must be > 0 (got %g)", r->distance);
    r->dim = r->ms->type->deriv_size;
    st_component *grid = grid_above(self->node);
    if (!grid)
        st_component_info(self, "no SpatialGridContainer in this node or above: SOFA then searches the "
                                "pairs in O(n^2); settee uses its hash grid, with the same "
                                "pairs");
    else {
        const st_field *cw = st_component_field(grid, "cellWidth");
        double w = cw ? *(const double *)st_component_field_ptr(grid, cw) : 0;
        if (cw && w < r->distance)
            st_component_warn_field(self, "distance",
                                    "the SpatialGridContainer's cellWidth (%g) is smaller than "
                                    "the distance (%g): SOFA's grid then misses pairs between "
                                    "cells that are not neighbours; settee finds every pair "
                                    "closer than the distance",
                                    w, r->distance);
    }
    ST_TRY(rep_size(r, err));
    /* a state resized without a topology: the scratch is made again at
     * the next evaluation, as SOFA's resizes its particles there */
    return st_mstate_follow_resize(self, r->ms, NULL, err);
}

/* u = x_j - x_i and d2 = |u|^2; whether the pair acts (0 < d2 < h2, SOFA's
 * test). */
static inline bool pair_acts(const double *x, unsigned d, unsigned i, unsigned j, double h2,
                             double u[3], double *d2)
{
    double s = 0;
    for (unsigned a = 0; a < d; a++) {
        u[a] = x[d * j + a] - x[d * i + a];
        s += u[a] * u[a];
    }
    *d2 = s;
    return s != 0.0 && s < h2;
}

static void rep_add_force(st_component *self, const st_mparams *mp, double *fg, const double *xg,
                          const double *vg)
{
    (void)mp;
    repulsion *r = (repulsion *)self;
    if (!r->ms)
        return;
    if (r->ms->n != r->grid.n) {
        st_error e = {0};
        if (rep_size(r, &e) != ST_OK) {
            st_component_warn(self, "%s: no force this step", e.msg);
            r->grid.npairs = 0;
            return;
        }
    }
    const unsigned d = r->dim;
    const size_t n = r->grid.n;
    const double *x = st_slice_x(xg, r->ms), *v = st_slice(vg, r->ms);
    double *f = st_slice(fg, r->ms);
    memcpy(r->x, x, n * d * sizeof *x);
    if (!nb_grid_find(&r->grid, x, r->distance) && !r->truncated) {
        r->truncated = true;
        st_component_warn(self, "out of memory for the neighbour pairs: only %zu pairs act",
                          r->grid.npairs);
    }
    const double h = r->distance, h2 = h * h, ks = r->stiffness, kd = r->damping;
    for (size_t p = 0; p < r->grid.npairs; p++) {
        const unsigned i = r->grid.pairs[p].i, j = r->grid.pairs[p].j;
        double u[3], d2;
        if (!pair_acts(x, d, i, j, h2, u, &d2))
            continue;
        double dist = sqrt(d2);
        for (unsigned a = 0; a < d; a++)
            u[a] /= dist;
        dist -= h;
        const double fi = ks * dist, di = kd * dist;
        for (unsigned a = 0; a < d; a++) {
            double F = u[a] * fi - (v[d * j + a] - v[d * i + a]) * di;
            f[d * i + a] += F;
            f[d * j + a] -= F;
        }
    }
}

static void rep_add_dforce(st_component *self, const st_mparams *mp, double *dfg, const double *dxg,
                           double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    repulsion *r = (repulsion *)self;
    if (!r->ms || r->ms->n != r->grid.n)
        return;
    const unsigned d = r->dim;
    const double *x = r->x, *dx = st_slice(dxg, r->ms);
    double *df = st_slice(dfg, r->ms);
    /* kfactor includes the Rayleigh stiffness already (the kernel's rule) */
    const double h = r->distance, h2 = h * h, ks = r->stiffness * kfactor;
    for (size_t p = 0; p < r->grid.npairs; p++) {
        const unsigned i = r->grid.pairs[p].i, j = r->grid.pairs[p].j;
        double u[3], d2;
        if (!pair_acts(x, d, i, j, h2, u, &d2))
            continue;
        double dot = 0;
        for (unsigned a = 0; a < d; a++)
            dot += (dx[d * j + a] - dx[d * i + a]) * u[a];
        const double c = (ks * dot) / d2;
        for (unsigned a = 0; a < d; a++) {
            double F = u[a] * c;
            df[d * i + a] += F;
            df[d * j + a] -= F;
        }
    }
}

static double rep_rayleigh(const st_component *self)
{
    return ((const repulsion *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops rep_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = rep_add_force,
    .add_dforce = rep_add_dforce,
    .rayleigh_stiffness = rep_rayleigh,
};

static const st_field rep_fields[] = {
    ST_REAL(repulsion, distance, "distance", "1", "Distance to maintain between particles"),
    ST_REAL(repulsion, stiffness, "stiffness", "100", "Stiffness"),
    ST_REAL(repulsion, damping, "damping", "0.1", "Damping"),
    ST_REAL(repulsion, rayleigh_stiffness, "rayleighStiffness", "0",
            "Rayleigh damping - stiffness matrix coefficient"),
    ST_FIELD_END};

static const char *const rep_templates[] = {"Vec3d", "Vec2d", NULL};

const st_class particles_repulsion_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "ParticlesRepulsionForceField",
    .category = "ForceField",
    .description = "Repulsion between particles closer than a distance (a spring pushing the "
                   "pair apart, damped in proportion to the overlap)",
    .instance_size = sizeof(repulsion),
    .fields = rep_fields,
    .init = rep_init,
    .reinit = rep_init,
    .cleanup = rep_cleanup,
    .forcefield = &rep_ops,
    .templates = rep_templates,
};
