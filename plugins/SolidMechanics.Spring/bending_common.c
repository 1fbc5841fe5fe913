/* bending_common.c - what the bending springs share: binding the state and
 * the topology, the edges of triangles or quads with the elements around
 * each edge (SOFA's EdgesInTriangle/EdgesInQuad and TrianglesAroundEdge/
 * QuadsAroundEdge) and SOFA's visiting order, and the force field role of a
 * component made of one spring set. */
#include <stdint.h>
#include <string.h>

#include "springs.h"
#include "../shared/topology_link.h"

/* Open-addressing map from an unordered vertex pair to its edge index. */
typedef struct pair_map {
    uint64_t *keys; /* 0 = empty */
    unsigned *vals;
    size_t cap;
} pair_map;

static uint64_t pair_key(unsigned a, unsigned b)
{
    unsigned lo = a < b ? a : b, hi = a < b ? b : a;
    return ((uint64_t)lo << 32 | hi) + 1;
}

static size_t pair_slot(const pair_map *m, uint64_t key)
{
    size_t mask = m->cap - 1;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (m->keys[h] && m->keys[h] != key)
        h = (h + 1) & mask;
    return h;
}

static st_status elem_edges_build(st_component *self, const st_array *edges,
                                  const st_array *elems, unsigned w, elem_edges *out,
                                  st_error *err)
{
    memset(out, 0, sizeof *out);
    size_t ne = edges ? edges->n : 0, nel = elems ? elems->n : 0;
    pair_map m = {0};
    m.cap = 64;
    while (m.cap < 2 * ne + 1)
        m.cap *= 2;
    m.keys = st_calloc(m.cap, sizeof *m.keys);
    m.vals = st_calloc(m.cap, sizeof *m.vals);
    out->side = st_calloc(nel * w + 1, sizeof *out->side);
    out->around = st_calloc(2 * ne + 1, sizeof *out->around);
    out->count = st_calloc(ne + 1, sizeof *out->count);
    out->n_edges = ne;
    st_status s = ST_OK;
    if (!m.keys || !m.vals || !out->side || !out->around || !out->count)
        s = st_error_set(err, ST_ENOMEM, "out of memory (%zu edges)", ne);
    for (size_t k = 0; k < ne && s == ST_OK; k++) {
        uint64_t key = pair_key(edges->u[2 * k], edges->u[2 * k + 1]);
        size_t h = pair_slot(&m, key);
        if (!m.keys[h]) {
            m.keys[h] = key;
            m.vals[h] = (unsigned)k;
        }
    }
    for (size_t e = 0; e < nel && s == ST_OK; e++) {
        const unsigned *v = elems->u + (size_t)w * e;
        for (unsigned j = 0; j < w; j++) {
            unsigned a = v[(j + 1) % w], b = v[(j + 2) % w];
            size_t h = pair_slot(&m, pair_key(a, b));
            if (!m.keys[h]) {
                s = st_component_error(self, "topology", err, ST_EINVAL,
                                       "the topology's edge list has no edge (%u, %u) of element "
                                       "%zu: give only the elements and let the edges be derived",
                                       a, b, e);
                break;
            }
            unsigned k = m.vals[h];
            out->side[(size_t)w * e + j] = k;
            if (out->count[k] < 2)
                out->around[2 * (size_t)k + out->count[k]] = (unsigned)e;
            out->count[k]++;
        }
    }
    st_free(m.keys);
    st_free(m.vals);
    if (s != ST_OK)
        elem_edges_free(out);
    return s;
}

void elem_edges_free(elem_edges *e)
{
    st_free(e->side);
    st_free(e->around);
    st_free(e->count);
    memset(e, 0, sizeof *e);
}

/* Index j of edge k among the sides of element e (SOFA's
 * getEdgeIndexIn...). */
static unsigned side_of(const elem_edges *ee, unsigned w, size_t e, size_t k)
{
    unsigned j = 0;
    while (j + 1 < w && ee->side[(size_t)w * e + j] != k)
        j++;
    return j;
}

bool elem_edges_visit(const elem_edges *ee, unsigned w, size_t k, bool last, edge_visit *v)
{
    if (ee->count[k] != 2)
        return false;
    v->e = ee->around[2 * k + (last ? 1 : 0)];
    v->o = ee->around[2 * k + (last ? 0 : 1)];
    v->j = side_of(ee, w, v->e, k);
    v->jo = side_of(ee, w, v->o, k);
    return true;
}

st_status bending_elements(st_component *self, st_component **topology, st_mstate **ms,
                           st_type type, unsigned w, const st_array **elems, elem_edges *ee,
                           st_error *err)
{
    memset(ee, 0, sizeof *ee);
    *elems = NULL;
    *ms = st_component_mstate(self);
    if (!*ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors (%s needs one)",
                                  self->cls->name);
    ST_TRY(st_find_topology(self, topology, err));
    const st_topology_ops *t = (*topology)->cls->topology;
    const st_array *el = t->elements(*topology, type);
    if (!el || el->n == 0)
        return ST_OK;
    for (size_t i = 0; i < (size_t)w * el->n; i++)
        if (el->u[i] >= (*ms)->n)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "element %zu of '%s' uses vertex %u but the state has %zu "
                                      "points",
                                      i / w, (*topology)->name, el->u[i], (*ms)->n);
    ST_TRY(elem_edges_build(self, t->elements(*topology, ST_T_EDGES), el, w, ee, err));
    *elems = el;
    return ST_OK;
}

/* ---- the force field role of a spring_head component ---- */

static void head_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)mp;
    springs_add_force(&((spring_head *)self)->set, f, x, v);
}

static void head_add_dforce(st_component *self, const st_mparams *mp, double *df,
                            const double *dx, double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    springs_add_dforce(&((spring_head *)self)->set, df, dx, kfactor);
}

static void head_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    springs_add_k(&((spring_head *)self)->set, m, kfactor);
}

static double head_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    return springs_energy(&((spring_head *)self)->set, x);
}

static double head_rayleigh(const st_component *self)
{
    return ((const spring_head *)self)->rayleigh_stiffness;
}

const st_forcefield_ops spring_head_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = head_add_force,
    .add_dforce = head_add_dforce,
    .add_k_to_matrix = head_add_k,
    .potential_energy = head_energy,
    .rayleigh_stiffness = head_rayleigh,
};

/* Set while a listener builds a component again, so that its init does not
 * register a second time. */
static _Thread_local bool rebuilding;

static st_status bending_topology_changed(st_component *self, st_component *topology,
                                          const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)ev, (void)nev;
    const st_mstate *ms = st_component_mstate(self);
    if (ms && st_topology_state_ahead(topology, ms->n))
        return ST_OK; /* the point removal follows: rebuilt then */
    rebuilding = true;
    st_status st = self->cls->init(self, err);
    rebuilding = false;
    return st;
}

bool bending_rebuilding(void) { return rebuilding; }

st_status bending_follow(st_component *self, st_component *topology, st_error *err)
{
    if (rebuilding || !topology || !topology->cls->topology)
        return ST_OK;
    return st_topology_listen(self, topology, bending_topology_changed, err);
}
