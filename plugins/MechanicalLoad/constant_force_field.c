/* constant_force_field.c - ConstantForceField: constant forces on chosen
 * points, as SOFA's (Sofa.Component.MechanicalLoad).
 *
 * Which input wins, as SOFA's init and update callbacks: `forces` when set
 * (one force: the same on every index, totalForce = n f; one per index:
 * totalForce = their sum; any other count is an error); else `totalForce`,
 * split evenly over the indices; else the legacy `force` (earlier SOFA
 * versions; the same force on every index); else an error ("No input force
 * has been set"). `indices` empty means every point; with indexFromEnd,
 * index k names point n - 1 - k. Potential energy: -sum f_i . x_i. The
 * derivatives are zero: no add_dforce, no matrix.
 *
 * Templates as SOFA's: Vec1d, Vec2d, Vec3d and Rigid3d. A force is one
 * derivative of the state: for Rigid3d six values, the force on the frame's
 * centre then the torque (SOFA's RigidDeriv), so `forces`, `force` and
 * `totalForce` take six values per entry and the torque is added to the
 * angular part of the frame's force. A Rigid3d state has no potential
 * energy from this field (SOFA returns 0 for its rigid instances).
 *
 * Deviation from SOFA, on purpose: an index >= the state's size is an error
 * here; SOFA's check lets index == size through and its update callbacks
 * mask the invalid state, then writes out of bounds. */
#include <string.h>

#include "mechanical_load.h"

typedef struct constant_ff {
    st_component base;
    st_array indices;          /* "indices" (alias "points"), uint[]; empty: all points */
    bool index_from_end;       /* "indexFromEnd" */
    st_array forces;           /* "forces", one derivative per index (or one for all) */
    st_array force;            /* "force" (legacy), one derivative */
    st_array total_force;      /* "totalForce", one derivative */
    double show_arrow_size;    /* "showArrowSize" (drawing) */
    st_vec4 show_color;        /* "showColor" (drawing) */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *topology;    /* "topology" link */
    st_component *mstate;      /* "mstate" link */
    st_mstate *ms;             /* resolved at init */
    unsigned d;                /* scalars per derivative of the state */
    bool from_total;           /* totalForce was the input (forces derived from it) */
} constant_ff;

enum { CFF_DMAX = 6 };

/* Every index gets force f (d scalars); totalForce = n f. */
static st_status cff_spread(constant_ff *c, const double *f, st_error *err)
{
    size_t n = c->indices.n;
    unsigned d = c->d;
    double g[CFF_DMAX];
    memcpy(g, f, d * sizeof *g); /* f may live in forces, resized below */
    ST_TRY(st_array_resize_width(&c->forces, d, n, err));
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < d; k++)
            c->forces.r[d * i + k] = g[k];
    for (unsigned k = 0; k < d; k++)
        c->total_force.r[k] = g[k] * (double)n;
    return ST_OK;
}

/* totalForce = the sum of the forces. */
static void cff_sum(constant_ff *c)
{
    unsigned d = c->d;
    for (unsigned k = 0; k < d; k++) {
        c->total_force.r[k] = 0.0;
        for (size_t i = 0; i < c->forces.n; i++)
            c->total_force.r[k] += c->forces.r[d * i + k];
    }
}

/* A single-derivative field ("force", "totalForce") holds exactly one. */
static st_status cff_check_one(constant_ff *c, const char *key, const st_array *a, st_error *err)
{
    if (a->n == 1)
        return ST_OK;
    return st_component_error(&c->base, key, err, ST_ESCENE,
                              "expects one %s derivative (%u values), got %zu",
                              c->ms->type->name, c->d, a->n);
}

static st_status cff_from_forces(constant_ff *c, st_error *err)
{
    if (c->forces.n == 1)
        return cff_spread(c, c->forces.r, err);
    if (c->forces.n != c->indices.n)
        return st_component_error(&c->base, "forces", err, ST_ESCENE,
                                  "Impossible to use the vector forces since its size (%zu) "
                                  "mismatches with indices size (%zu)",
                                  c->forces.n, c->indices.n);
    cff_sum(c);
    return ST_OK;
}

static st_status cff_setup(constant_ff *c, st_error *err)
{
    st_component *self = &c->base;
    ST_TRY(ml_find_state(self, &c->ms, err));
    c->d = c->ms->type->deriv_size;
    ST_TRY(cff_check_one(c, "force", &c->force, err));
    ST_TRY(cff_check_one(c, "totalForce", &c->total_force, err));
    if (!c->topology)
        c->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    size_t n = c->ms->n;
    if (c->indices.n == 0) {
        ST_TRY(st_array_resize(&c->indices, ST_T_UINTS, n, err));
        for (size_t i = 0; i < n; i++)
            c->indices.u[i] = (unsigned)i;
    }
    for (size_t i = 0; i < c->indices.n; i++)
        if (c->indices.u[i] >= n)
            return st_component_error(self, "indices", err, ST_ESCENE,
                                      "Indices incorrect: indice[%zu] = %u exceeds system size "
                                      "(%zu points)",
                                      i, c->indices.u[i], n);
    bool has_forces = st_component_is_set(self, "forces");
    bool has_total = st_component_is_set(self, "totalForce");
    bool has_force = st_component_is_set(self, "force");
    if (has_forces && has_total)
        st_component_warn(self, "Both data 'forces' and 'totalForce' cannot be used "
                                "simultaneously, please set only one of them to remove this "
                                "warning");
    if (has_forces)
        return cff_from_forces(c, err);
    if (has_total) {
        if (c->indices.n == 0)
            return st_component_error(self, "totalForce", err, ST_ESCENE,
                                      "Impossible to compute force from totalForce since vector "
                                      "indices size is zero");
        double f[CFF_DMAX];
        for (unsigned k = 0; k < c->d; k++)
            f[k] = c->total_force.r[k] / (double)c->indices.n;
        c->from_total = true;
        return cff_spread(c, f, err);
    }
    if (has_force)
        return cff_spread(c, c->force.r, err);
    return st_component_error(self, NULL, err, ST_ESCENE,
                              "No input force has been set. Please define one of both Data: "
                              "forces or totalForce");
}

/* After a change of the topology: `indices` as SOFA's
 * TopologySubsetIndices (entries naming a removed point erased in order,
 * those naming the then-last point renumbered), each index's force going
 * with it; then SOFA's update callbacks: a totalForce input is spread again
 * over the indices left, otherwise totalForce is the sum of the forces. */
static st_status cff_topology_changed(st_component *self, st_component *topology,
                                      const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)err;
    constant_ff *c = (constant_ff *)self;
    unsigned *v = c->indices.u, d = c->d;
    double *f = c->forces.r;
    bool paired = c->forces.n == c->indices.n;
    for (size_t e = 0; e < nev; e++) {
        if (ev[e].change != ST_TOPO_REMOVED || ev[e].elem != ST_ELEM_POINT)
            continue;
        size_t last = ev[e].before;
        for (size_t k = 0; k < ev[e].n && c->indices.n; k++) {
            unsigned id = ev[e].index[k];
            size_t w = 0;
            for (size_t j = 0; j < c->indices.n; j++) {
                if (v[j] == id)
                    continue;
                if (paired && w != j)
                    memmove(f + d * w, f + d * j, d * sizeof *f);
                v[w++] = v[j];
            }
            c->indices.n = w;
            if (paired)
                c->forces.n = w;
            if (last == 0)
                continue;
            last--;
            for (size_t j = 0; j < w; j++)
                if (v[j] == last)
                    v[j] = id;
        }
    }
    if (c->from_total && c->indices.n) {
        for (size_t i = 0; i < c->indices.n; i++)
            for (unsigned k = 0; k < d; k++)
                c->forces.r[d * i + k] = c->total_force.r[k] / (double)c->indices.n;
    } else {
        cff_sum(c);
    }
    st_component_touch(self, st_component_field(self, "indices"));
    st_component_touch(self, st_component_field(self, "forces"));
    st_component_touch(self, st_component_field(self, "totalForce"));
    return ST_OK;
}

static st_status cff_init(st_component *self, st_error *err)
{
    constant_ff *c = (constant_ff *)self;
    ST_TRY(cff_setup(c, err));
    if (c->topology && c->topology->cls->topology)
        return st_topology_listen(self, c->topology, cff_topology_changed, err);
    return ST_OK;
}

/* The point index i names. */
static inline size_t cff_point(const constant_ff *c, size_t i, size_t n)
{
    size_t k = c->indices.u[i];
    return c->index_from_end ? n - k - 1 : k;
}

static void cff_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    (void)mp, (void)x, (void)v;
    constant_ff *c = (constant_ff *)self;
    double *fs = st_slice(f, c->ms);
    unsigned d = c->d;
    for (size_t i = 0; i < c->indices.n; i++) {
        double *fi = fs + d * cff_point(c, i, c->ms->n);
        const double *ci = c->forces.r + d * i;
        for (unsigned k = 0; k < d; k++)
            fi[k] += ci[k];
    }
}

static double cff_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    constant_ff *c = (constant_ff *)self;
    if (c->ms->type->rigid)
        return 0.0;
    const double *xs = st_slice_x(x, c->ms);
    unsigned d = c->d;
    double e = 0.0;
    for (size_t i = 0; i < c->indices.n; i++) {
        const double *xi = xs + d * cff_point(c, i, c->ms->n), *fi = c->forces.r + d * i;
        for (unsigned k = 0; k < d; k++)
            e -= fi[k] * xi[k];
    }
    return e;
}

static double cff_rayleigh(const st_component *self)
{
    return ((const constant_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops cff_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = cff_add_force,
    .potential_energy = cff_energy,
    .rayleigh_stiffness = cff_rayleigh,
};

static const st_field cff_fields[] = {
    ST_FIELD_EX(constant_ff, indices, "indices", ST_T_UINTS, st_array, NULL,
                "indices where the forces are applied (empty: every point)", 0, "points", 0.0,
                0.0),
    ST_BOOL(constant_ff, index_from_end, "indexFromEnd", "false",
            "Concerned DOFs indices are numbered from the end of the MState DOFs vector. "
            "(default=false)"),
    ST_DERIVS(constant_ff, forces, "forces", NULL,
              "vector containing the force amplitude applied at each node (one force: the same "
              "at every index; Rigid3d: force then torque, 6 values each)"),
    ST_DERIVS(constant_ff, force, "force", "0 0 0",
              "applied force to all points if forces and totalForce are not specified (data of "
              "earlier SOFA versions, kept so their scenes load); one derivative"),
    ST_DERIVS(constant_ff, total_force, "totalForce", "0 0 0",
              "total force for all points, will be distributed uniformly over points; one "
              "derivative"),
    IGN_REAL(constant_ff, show_arrow_size, "showArrowSize", "0",
             "Size of the drawn arrows (0->no arrows, sign->direction of drawing. (default=0)"),
    IGN_RGBA(constant_ff, show_color, "showColor", "0.2 0.9 0.3 1",
             "Color for object display (default: [0.2,0.9,0.3,1.0])"),
    ST_LINK(constant_ff, topology, "topology", ST_LINK_TOPOLOGY, "link to the topology container"),
    ML_F_FORCEFIELD(constant_ff),
    ST_FIELD_END};

static const char *const cff_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Vec6d", "Rigid3d", NULL};

/* Checkpoints: the indices and forces a topological change left (a
 * removed point's entry is erased, the moved point's renumbered). */
static st_status cff_transfer(st_component *self, st_checkpoint *ck, st_error *err)
{
    ST_TRY(st_checkpoint_field(ck, self, "indices", err));
    ST_TRY(st_checkpoint_field(ck, self, "forces", err));
    return st_checkpoint_field(ck, self, "totalForce", err);
}

static const st_checkpoint_ops cff_ck = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = cff_transfer,
};

const st_class constant_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "ConstantForceField",
    .category = "ForceField",
    .description = "Constant forces applied to given degrees of freedom",
    .instance_size = sizeof(constant_ff),
    .templates = cff_templates,
    .fields = cff_fields,
    .init = cff_init,
    .forcefield = &cff_ops,
    .checkpoint = &cff_ck,
};
