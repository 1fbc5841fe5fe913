/* edge_pressure_force_field.c - EdgePressureForceField: a load on chosen
 * edges, half of each edge's force on each of its two vertices, as SOFA's.
 *
 * Edges: those whose two rest positions p satisfy dmin < p . normal < dmax
 * (when dmin != dmax), replaced by edgeIndices when set, replaced by edges
 * when set (an edge of `edges` missing from the topology becomes edge 0, as
 * in SOFA). Each selected edge e carries a force F_e:
 *  - pressure != 0: F_e = pressure x (rest length of e), constant;
 *  - else with p_intensity (one value, or one per edge) and binormal set:
 *    F_e = I_e L n_e, n_e = unit(binormal x t_e), t_e the edge's unit
 *    tangent at the current positions;
 *  - else with p_intensity: for a boundary edge of a triangle (exactly one
 *    triangle around it), n_e = unit((0 0 1) x t_e) turned towards that
 *    triangle's third vertex, F_e = I_e L n_e (2D meshes in the xy plane);
 *  - else F_e = 0.
 * In the intensity cases L is, as in SOFA, the rest length of the
 * topology's edge numbered like the selection slot (not of the selected
 * edge), and the directions follow SOFA's timing: each add_force applies
 * the forces computed by the previous one (the first, those of init), then
 * recomputes them from the state's current positions.
 * SOFA gives the force no derivative (add_dforce and the matrix add
 * nothing); the constant case has the energy -sum F_e . (x_a + x_b) / 2,
 * the others 0 (SOFA's getPotentialEnergy returns 0). Vec3d only. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mechanical_load.h"

typedef struct edge_pressure {
    st_component base;
    st_vec3 pressure;          /* "pressure" */
    st_array edge_indices;     /* "edgeIndices" */
    st_array edges;            /* "edges" */
    st_vec3 normal;            /* "normal" (selection by plane) */
    double dmin, dmax;         /* "dmin", "dmax" */
    double arrow_size;         /* "arrowSizeCoef" (drawing) */
    st_array intensity;        /* "p_intensity" */
    st_vec3 binormal;          /* "binormal" */
    bool show_forces;          /* "showForces" (drawing) */
    char *pressure_map;        /* "edgePressureMap" (SOFA's internal data) */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *topology;    /* "topology" */
    st_component *mstate;      /* "mstate" */
    /* Set by init. */
    st_mstate *ms;
    const st_array *topo_edges; /* the topology's edges (borrowed) */
    size_t n;                   /* selected edges */
    unsigned *sel;              /* n edge indices into topo_edges, owned */
    double *length;             /* n lengths (see above), owned */
    double *force;              /* 3 n: the force each edge applies next, owned */
    unsigned *third;            /* n: the third vertex of the edge's only triangle, or UINT_MAX */
    int mode;                   /* EP_* */
    st_component *followed;     /* the topology whose changes it follows */
} edge_pressure;

enum { EP_NONE = 0, EP_CONSTANT, EP_BINORMAL, EP_TRIANGLE };
#define EP_NO_VERTEX 0xffffffffu

static void ep_free(edge_pressure *e)
{
    st_free(e->sel);
    st_free(e->length);
    st_free(e->force);
    st_free(e->third);
    e->sel = e->third = NULL;
    e->length = e->force = NULL;
    e->n = 0;
}

static void ep_cleanup(st_component *self) { ep_free((edge_pressure *)self); }

static double dist3(const double *a, const double *b)
{
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    return sqrt(ml_dot(d, d));
}

/* The intensity of selection slot i (one value for all, or one per slot). */
static double ep_intensity(const edge_pressure *e, size_t i)
{
    const st_array *in = &e->intensity;
    return in->n > 1 && in->n > i ? in->r[i] : in->r[0];
}

/* Recomputes the forces of the intensity cases from positions x. */
static void ep_update(edge_pressure *e, const double *x)
{
    for (size_t i = 0; i < e->n; i++) {
        const unsigned *v = e->topo_edges->u + 2 * (size_t)e->sel[i];
        double t[3], nrm[3];
        for (int k = 0; k < 3; k++)
            t[k] = x[3 * (size_t)v[1] + k] - x[3 * (size_t)v[0] + k];
        double tl = sqrt(ml_dot(t, t));
        if (tl > 0)
            for (int k = 0; k < 3; k++)
                t[k] /= tl;
        if (e->mode == EP_BINORMAL) {
            double b[3] = {e->binormal[0], e->binormal[1], e->binormal[2]};
            double bl = sqrt(ml_dot(b, b));
            if (bl > 0)
                for (int k = 0; k < 3; k++)
                    b[k] /= bl;
            ml_cross(b, t, nrm);
        } else {
            if (e->third[i] == EP_NO_VERTEX)
                continue; /* SOFA leaves such an edge's force as it was */
            const double z[3] = {0, 0, 1};
            ml_cross(z, t, nrm);
            double tt[3];
            for (int k = 0; k < 3; k++)
                tt[k] = x[3 * (size_t)e->third[i] + k] - x[3 * (size_t)v[0] + k];
            if (ml_dot(nrm, tt) < 0)
                for (int k = 0; k < 3; k++)
                    nrm[k] = -nrm[k];
        }
        double nl = sqrt(ml_dot(nrm, nrm));
        if (nl > 0)
            for (int k = 0; k < 3; k++)
                nrm[k] /= nl;
        double s = ep_intensity(e, i) * e->length[i];
        for (int k = 0; k < 3; k++)
            e->force[3 * i + k] = s * nrm[k];
    }
}

/* The edges to load, in SOFA's order of precedence. */
static st_status ep_select(edge_pressure *e, st_error *err)
{
    st_component *self = &e->base;
    const st_array *te = e->topo_edges;
    size_t ne = te ? te->n : 0;
    const double *x0 = e->ms->rest_position.r;
    size_t cap = ne;
    if (e->edge_indices.n > cap)
        cap = e->edge_indices.n;
    if (e->edges.n > cap)
        cap = e->edges.n;
    e->sel = st_calloc(cap + 1, sizeof *e->sel);
    if (!e->sel)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu edges", cap);
    e->n = 0;
    if (e->dmin != e->dmax) {
        for (size_t k = 0; k < ne; k++) {
            bool in = true;
            for (int j = 0; j < 2; j++) {
                double d = ml_dot(x0 + 3 * (size_t)te->u[2 * k + (size_t)j], e->normal);
                in = in && d > e->dmin && d < e->dmax;
            }
            if (in)
                e->sel[e->n++] = (unsigned)k;
        }
    }
    if (e->edge_indices.n > 0) {
        e->n = 0;
        for (size_t i = 0; i < e->edge_indices.n; i++) {
            unsigned id = e->edge_indices.u[i];
            if (id >= ne)
                return st_component_error(self, "edgeIndices", err, ST_EINVAL,
                                          "Edge indice: %u is out of edge indices bounds (the "
                                          "topology '%s' has %zu edges)",
                                          id, e->topology->name, ne);
            e->sel[e->n++] = id;
        }
    }
    if (e->edges.n > 0) {
        e->n = 0;
        for (size_t i = 0; i < e->edges.n; i++) {
            unsigned found = 0; /* SOFA's default when the edge is not in the topology */
            for (size_t k = 0; k < ne; k++)
                if (te->u[2 * k] == e->edges.u[2 * i] && te->u[2 * k + 1] == e->edges.u[2 * i + 1])
                    found = (unsigned)k; /* the last match, as SOFA */
            if (ne == 0)
                return st_component_error(self, "edges", err, ST_EINVAL,
                                          "the topology '%s' has no edges", e->topology->name);
            e->sel[e->n++] = found;
        }
    }
    return ST_OK;
}

/* Moves selection slot from into slot to (all the per-slot arrays). */
static void ep_move_slot(edge_pressure *e, size_t to, size_t from)
{
    e->sel[to] = e->sel[from];
    e->length[to] = e->length[from];
    e->third[to] = e->third[from];
    memcpy(e->force + 3 * to, e->force + 3 * from, 3 * sizeof *e->force);
}

/* SOFA's edgePressureMap is an EdgeSubsetData: a removed edge's slot takes
 * the last slot (its data with it), and the slots naming the edge moved
 * into the hole are renamed; a removed point's number goes to the point
 * moved into its place (the third vertices). Edges added later are not
 * loaded, as in SOFA. */
static st_status ep_topology_changed(st_component *self, st_component *topology,
                                     const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)err;
    edge_pressure *e = (edge_pressure *)self;
    for (size_t x = 0; x < nev; x++) {
        if (ev[x].change != ST_TOPO_REMOVED)
            continue;
        for (size_t k = 0; k < ev[x].n; k++) {
            unsigned gone = ev[x].index[k], last = (unsigned)(ev[x].before - 1 - k);
            if (ev[x].elem == ST_ELEM_EDGE) {
                for (size_t i = 0; i < e->n; i++)
                    if (e->sel[i] == gone) {
                        ep_move_slot(e, i, e->n - 1);
                        e->n--;
                        break;
                    }
                for (size_t i = 0; i < e->n; i++)
                    if (e->sel[i] == last)
                        e->sel[i] = gone;
            } else if (ev[x].elem == ST_ELEM_POINT) {
                for (size_t i = 0; i < e->n; i++)
                    e->third[i] = e->third[i] == gone   ? EP_NO_VERTEX
                                  : e->third[i] == last ? gone
                                                        : e->third[i];
            }
        }
    }
    e->topo_edges = topology->cls->topology->elements(topology, ST_T_EDGES);
    return ST_OK;
}

static st_status ep_init(st_component *self, st_error *err)
{
    edge_pressure *e = (edge_pressure *)self;
    ep_free(e);
    ST_TRY(ml_find_state(self, &e->ms, err));
    ST_TRY(st_find_topology(self, &e->topology, err));
    if (e->topology != e->followed) {
        ST_TRY(st_topology_listen(self, e->topology, ep_topology_changed, err));
        e->followed = e->topology;
    }
    e->topo_edges = e->topology->cls->topology->elements(e->topology, ST_T_EDGES);
    st_component *complete = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    const st_array *tris = complete && complete->cls->topology
                               ? complete->cls->topology->elements(complete, ST_T_TRIANGLES)
                               : NULL;
    const st_array *cedges = complete && complete->cls->topology
                                 ? complete->cls->topology->elements(complete, ST_T_EDGES)
                                 : NULL;
    if ((!tris || tris->n == 0) && e->edge_indices.n == 0 && e->edges.n == 0)
        st_component_warn(self, "Either a pressure vector or a topology with triangles is "
                                "required.");
    ST_TRY(ep_select(e, err));
    size_t n = e->n;
    e->length = st_calloc(n + 1, sizeof *e->length);
    e->force = st_calloc(3 * n + 1, sizeof *e->force);
    e->third = st_calloc(n + 1, sizeof *e->third);
    if (!e->length || !e->force || !e->third)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu edges", n);
    const st_array *te = e->topo_edges;
    size_t ne = te ? te->n : 0;
    ST_TRY(ml_check_elements(self, "edge", te ? te->u : NULL, ne, 2, e->ms, err));
    const double *x0 = e->ms->rest_position.r, *x = e->ms->position.r;
    if (ml_dot(e->pressure, e->pressure) > 0) {
        e->mode = EP_CONSTANT;
        for (size_t i = 0; i < n; i++) {
            const unsigned *v = te->u + 2 * (size_t)e->sel[i];
            e->length[i] = dist3(x0 + 3 * (size_t)v[0], x0 + 3 * (size_t)v[1]);
            for (int k = 0; k < 3; k++)
                e->force[3 * i + k] = e->pressure[k] * e->length[i];
        }
        return ST_OK;
    }
    if (e->intensity.n == 0) {
        e->mode = EP_NONE; /* SOFA's forces stay zero (edge lengths 0) */
        return ST_OK;
    }
    e->mode = st_component_is_set(self, "binormal") ? EP_BINORMAL : EP_TRIANGLE;
    for (size_t i = 0; i < n; i++) {
        /* SOFA takes the length of the topology's edge i here. */
        if (i >= ne)
            return st_component_error(self, "p_intensity", err, ST_EINVAL,
                                      "selection slot %zu has no topology edge %zu to take its "
                                      "length from (SOFA reads edge i, not the selected edge)",
                                      i, i);
        const unsigned *vi = te->u + 2 * i;
        e->length[i] = dist3(x0 + 3 * (size_t)vi[0], x0 + 3 * (size_t)vi[1]);
        e->third[i] = EP_NO_VERTEX;
        if (e->mode != EP_TRIANGLE || !cedges || !tris)
            continue;
        /* The complete topology's edge at the same place (same endpoint
         * positions within 1e-6), then its triangles: only a boundary edge
         * (one triangle) gets a force. */
        const unsigned *v = te->u + 2 * (size_t)e->sel[i];
        const unsigned *f = NULL;
        for (size_t k = 0; k < cedges->n && !f; k++) {
            const unsigned *c = cedges->u + 2 * k;
            if (c[0] < e->ms->n && c[1] < e->ms->n &&
                dist3(x + 3 * (size_t)c[0], x + 3 * (size_t)v[0]) < 1e-6 &&
                dist3(x + 3 * (size_t)c[1], x + 3 * (size_t)v[1]) < 1e-6)
                f = c;
        }
        if (!f)
            continue;
        size_t around = 0;
        unsigned third = EP_NO_VERTEX;
        for (size_t t = 0; t < tris->n; t++) {
            const unsigned *tv = tris->u + 3 * t;
            int has0 = -1, has1 = -1;
            for (int j = 0; j < 3; j++) {
                if (tv[j] == f[0])
                    has0 = j;
                if (tv[j] == f[1])
                    has1 = j;
            }
            if (has0 < 0 || has1 < 0)
                continue;
            around++;
            /* The vertex that is neither of the edge's (SOFA compares with
             * the selected edge's vertices). */
            if ((tv[0] == v[0]) || (tv[0] == v[1]))
                third = (tv[1] == v[0] || tv[1] == v[1]) ? tv[2] : tv[1];
            else
                third = tv[0];
        }
        if (around == 1 && third < e->ms->n)
            e->third[i] = third;
    }
    ep_update(e, x);
    return ST_OK;
}

static void ep_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)x, (void)v;
    edge_pressure *e = (edge_pressure *)self;
    double *fs = st_slice(f, e->ms);
    const st_array *te = e->topo_edges;
    for (size_t i = 0; i < e->n; i++) {
        const unsigned *ev = te->u + 2 * (size_t)e->sel[i];
        ml_axpy(fs + 3 * (size_t)ev[0], 0.5, e->force + 3 * i);
        ml_axpy(fs + 3 * (size_t)ev[1], 0.5, e->force + 3 * i);
    }
    /* SOFA's update after each force: from the state's current positions. */
    if (e->mode == EP_BINORMAL || e->mode == EP_TRIANGLE)
        ep_update(e, e->ms->position.r);
}

static double ep_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    edge_pressure *e = (edge_pressure *)self;
    if (e->mode != EP_CONSTANT)
        return 0.0;
    const double *xs = st_slice_x(x, e->ms);
    double en = 0.0;
    for (size_t i = 0; i < e->n; i++) {
        const unsigned *ev = e->topo_edges->u + 2 * (size_t)e->sel[i];
        en -= 0.5 * (ml_dot(e->force + 3 * i, xs + 3 * (size_t)ev[0]) +
                     ml_dot(e->force + 3 * i, xs + 3 * (size_t)ev[1]));
    }
    return en;
}

static double ep_rayleigh(const st_component *self)
{
    return ((const edge_pressure *)self)->rayleigh_stiffness;
}

/* The forces of the intensity cases are kept from one add_force to the
 * next, and the selection follows topological changes: a resumed run needs
 * both (the count first, so that reading can size the arrays). */
static st_status ep_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    edge_pressure *e = (edge_pressure *)self;
    uint64_t n = e->n;
    ST_TRY(st_checkpoint_data(ck, &n, sizeof n, err));
    if (st_checkpoint_reading(ck)) {
        if (n > e->n) /* a checkpoint holds at most the slots of init */
            return st_component_error(self, NULL, err, ST_EINVAL,
                                      "the checkpoint holds %llu loaded edges, this scene %zu",
                                      (unsigned long long)n, e->n);
        e->n = (size_t)n;
        e->topo_edges = e->topology->cls->topology->elements(e->topology, ST_T_EDGES);
    }
    if (e->n) {
        ST_TRY(st_checkpoint_data(ck, e->sel, e->n * sizeof *e->sel, err));
        ST_TRY(st_checkpoint_data(ck, e->length, e->n * sizeof *e->length, err));
        ST_TRY(st_checkpoint_data(ck, e->third, e->n * sizeof *e->third, err));
        ST_TRY(st_checkpoint_data(ck, e->force, 3 * e->n * sizeof *e->force, err));
    }
    return ST_OK;
}

static const st_checkpoint_ops ep_checkpoint_ops = {.struct_size = sizeof(st_checkpoint_ops),
                                                    .transfer = ep_checkpoint};

static const st_forcefield_ops ep_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = ep_add_force,
    .potential_energy = ep_energy,
    .rayleigh_stiffness = ep_rayleigh,
};

static const st_field ep_fields[] = {
    IGN_STRING(edge_pressure, pressure_map, "edgePressureMap", NULL,
               "map between edge indices and their pressure (internal: computed at init)"),
    ST_VEC3(edge_pressure, pressure, "pressure", "0 0 0", "Pressure force per unit area"),
    ST_UINTS(edge_pressure, edge_indices, "edgeIndices", NULL,
             "Indices of edges separated with commas where a pressure is applied"),
    ST_EDGES(edge_pressure, edges, "edges", NULL, "List of edges where a pressure is applied"),
    ST_VEC3(edge_pressure, normal, "normal", "0 0 0",
            "Normal direction for the plane selection of edges"),
    ST_REAL(edge_pressure, dmin, "dmin", "0",
            "Minimum distance from the origin along the normal direction"),
    ST_REAL(edge_pressure, dmax, "dmax", "0",
            "Maximum distance from the origin along the normal direction"),
    IGN_REAL(edge_pressure, arrow_size, "arrowSizeCoef", "0",
             "Size of the drawn arrows (0->no arrows, sign->direction of drawing"),
    ST_REALS(edge_pressure, intensity, "p_intensity", NULL, "pressure intensity on edge normal"),
    ST_VEC3(edge_pressure, binormal, "binormal", "0 0 0", "Binormal of the 2D plane"),
    IGN_BOOL(edge_pressure, show_forces, "showForces", "false", "draw arrows of edge pressures"),
    ST_LINK(edge_pressure, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ML_F_FORCEFIELD(edge_pressure),
    ST_FIELD_END};

const st_class edge_pressure_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "EdgePressureForceField",
    .category = "ForceField",
    .description = "Apply a force on edges, distributed on the edge nodes",
    .instance_size = sizeof(edge_pressure),
    .fields = ep_fields,
    .init = ep_init,
    .reinit = ep_init,
    .cleanup = ep_cleanup,
    .forcefield = &ep_ops,
    .checkpoint = &ep_checkpoint_ops,
};
