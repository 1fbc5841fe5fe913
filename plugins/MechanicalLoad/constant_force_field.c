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
 * Deviation from SOFA, on purpose: an index >= the state's size is an error
 * here; SOFA's check lets index == size through and its update callbacks
 * mask the invalid state, then writes out of bounds. */
#include <string.h>

#include "mechanical_load.h"

typedef struct constant_ff {
    st_component base;
    st_array indices;          /* "indices" (alias "points"), uint[]; empty: all points */
    bool index_from_end;       /* "indexFromEnd" */
    st_array forces;           /* "forces", one vec3 per index (or one for all) */
    st_vec3 force;             /* "force" (legacy) */
    st_vec3 total_force;       /* "totalForce" */
    double show_arrow_size;    /* "showArrowSize" (drawing) */
    st_vec4 show_color;        /* "showColor" (drawing) */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *topology;    /* "topology" link */
    st_component *mstate;      /* "mstate" link */
    st_mstate *ms;             /* resolved at init */
    bool from_total;           /* totalForce was the input (forces derived from it) */
} constant_ff;

/* Every index gets force f; totalForce = n f. */
static st_status cff_spread(constant_ff *c, const double f[ML_N], st_error *err)
{
    size_t n = c->indices.n;
    ST_TRY(st_array_resize(&c->forces, ST_T_VEC3S, n, err));
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < ML_N; k++)
            c->forces.r[ML_N * i + k] = f[k];
    for (int k = 0; k < ML_N; k++)
        c->total_force[k] = f[k] * (double)n;
    return ST_OK;
}

static st_status cff_from_forces(constant_ff *c, st_error *err)
{
    if (c->forces.n == 1) {
        double f[ML_N];
        for (int k = 0; k < ML_N; k++)
            f[k] = c->forces.r[k];
        return cff_spread(c, f, err);
    }
    if (c->forces.n != c->indices.n)
        return st_component_error(&c->base, "forces", err, ST_ESCENE,
                                  "Impossible to use the vector forces since its size (%zu) "
                                  "mismatches with indices size (%zu)",
                                  c->forces.n, c->indices.n);
    for (int k = 0; k < ML_N; k++) {
        c->total_force[k] = 0.0;
        for (size_t i = 0; i < c->forces.n; i++)
            c->total_force[k] += c->forces.r[ML_N * i + k];
    }
    return ST_OK;
}

static st_status cff_setup(constant_ff *c, st_error *err)
{
    st_component *self = &c->base;
    ST_TRY(ml_find_state(self, &c->ms, err));
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
        double f[ML_N];
        for (int k = 0; k < ML_N; k++)
            f[k] = c->total_force[k] / (double)c->indices.n;
        c->from_total = true;
        return cff_spread(c, f, err);
    }
    if (has_force)
        return cff_spread(c, c->force, err);
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
    unsigned *v = c->indices.u;
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
                    memmove(f + ML_N * w, f + ML_N * j, ML_N * sizeof *f);
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
            for (int k = 0; k < ML_N; k++)
                c->forces.r[ML_N * i + k] = c->total_force[k] / (double)c->indices.n;
    } else {
        for (int k = 0; k < ML_N; k++) {
            c->total_force[k] = 0.0;
            for (size_t i = 0; i < c->forces.n; i++)
                c->total_force[k] += c->forces.r[ML_N * i + k];
        }
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
    for (size_t i = 0; i < c->indices.n; i++)
        ml_axpy(fs + ML_N * cff_point(c, i, c->ms->n), 1.0, c->forces.r + ML_N * i);
}

static double cff_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    constant_ff *c = (constant_ff *)self;
    const double *xs = st_slice_x(x, c->ms);
    double e = 0.0;
    for (size_t i = 0; i < c->indices.n; i++)
        e -= ml_dot(c->forces.r + ML_N * i, xs + ML_N * cff_point(c, i, c->ms->n));
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
    ST_VEC3S(constant_ff, forces, "forces", NULL,
             "vector containing the force amplitude applied at each node (one force: the same "
             "at every index)"),
    ST_VEC3(constant_ff, force, "force", "0 0 0",
            "applied force to all points if forces and totalForce are not specified (data of "
            "earlier SOFA versions, kept so their scenes load)"),
    ST_VEC3(constant_ff, total_force, "totalForce", "0 0 0",
            "total force for all points, will be distributed uniformly over points"),
    IGN_REAL(constant_ff, show_arrow_size, "showArrowSize", "0",
             "Size of the drawn arrows (0->no arrows, sign->direction of drawing. (default=0)"),
    IGN_RGBA(constant_ff, show_color, "showColor", "0.2 0.9 0.3 1",
             "Color for object display (default: [0.2,0.9,0.3,1.0])"),
    ST_LINK(constant_ff, topology, "topology", ST_LINK_TOPOLOGY, "link to the topology container"),
    ML_F_FORCEFIELD(constant_ff),
    ST_FIELD_END};

const st_class constant_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "ConstantForceField",
    .category = "ForceField",
    .description = "Constant forces applied to given degrees of freedom",
    .instance_size = sizeof(constant_ff),
    .fields = cff_fields,
    .init = cff_init,
    .forcefield = &cff_ops,
};
