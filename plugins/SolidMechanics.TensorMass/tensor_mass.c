/* tensor_mass.c - the edge tensors and the force of the tensor-mass force
 * fields (tensor_mass.h): contributions merged per edge in element order,
 * the force loop, the tangent, the topology binding and the rebuild after
 * a topological change. */
#include <stdlib.h>
#include <string.h>

#include "../shared/topology_link.h"
#include "tensor_mass.h"

st_status tm_add(tm_build *b, unsigned l, unsigned k, const double m[9], st_error *err)
{
    if (b->n == b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 64;
        tm_contrib *c = st_realloc(b->c, nc * sizeof *c);
        if (!c)
            return st_error_set(err, ST_ENOMEM, "out of memory building tensor-mass edges");
        b->c = c;
        b->cap = nc;
    }
    tm_contrib *c = &b->c[b->n];
    c->l = l, c->k = k, c->seq = b->n;
    memcpy(c->m, m, sizeof c->m);
    b->n++;
    return ST_OK;
}

static int contrib_cmp(const void *pa, const void *pb)
{
    const tm_contrib *a = pa, *b = pb;
    unsigned a0 = a->l < a->k ? a->l : a->k, a1 = a->l < a->k ? a->k : a->l;
    unsigned b0 = b->l < b->k ? b->l : b->k, b1 = b->l < b->k ? b->k : b->l;
    if (a0 != b0)
        return a0 < b0 ? -1 : 1;
    if (a1 != b1)
        return a1 < b1 ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sums the contributions of each edge, in element order, as (a < b):
 * f_b += D (u_b - u_a), so a contribution with l = a adds its transpose. */
static st_status merge(tensor_mass_ff *t, tm_build *b, st_error *err)
{
    if (b->n)
        qsort(b->c, b->n, sizeof *b->c, contrib_cmp);
    t->e = st_calloc(b->n ? b->n : 1, sizeof *t->e);
    if (!t->e)
        return st_error_set(err, ST_ENOMEM, "out of memory building tensor-mass edges");
    t->ne = 0;
    for (size_t i = 0; i < b->n; i++) {
        const tm_contrib *c = &b->c[i];
        unsigned a = c->l < c->k ? c->l : c->k, bb = c->l < c->k ? c->k : c->l;
        if (t->ne == 0 || t->e[t->ne - 1].a != a || t->e[t->ne - 1].b != bb) {
            t->e[t->ne].a = a;
            t->e[t->ne].b = bb;
            t->ne++;
        }
        double *d = t->e[t->ne - 1].d;
        bool same = c->l == bb;
        for (int r = 0; r < 3; r++)
            for (int q = 0; q < 3; q++)
                d[3 * r + q] += same ? c->m[3 * r + q] : c->m[3 * q + r];
    }
    return ST_OK;
}

static void tm_free(tensor_mass_ff *t)
{
    st_free(t->e);
    st_free(t->x0);
    t->e = NULL;
    t->x0 = NULL;
    t->ne = t->nx0 = 0;
}

static st_status tm_build_all(tensor_mass_ff *t, st_error *err);

/* SOFA's TopologyData handlers keep the edge tensors of the remaining
 * elements; here the tensors are built again from the current elements and
 * the renumbered rest positions, which gives the same sums. */
static st_status tm_changed(st_component *self, st_component *topology, const st_topo_event *ev,
                            size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev;
    tensor_mass_ff *t = (tensor_mass_ff *)self;
    if (self->state != ST_CSTATE_VALID || st_topology_state_ahead(t->topology, t->ms->n))
        return ST_OK;
    return tm_build_all(t, err);
}

static st_status tm_build_all(tensor_mass_ff *t, st_error *err)
{
    st_component *self = &t->base;
    tm_free(t);
    const st_array *el = t->topology->cls->topology->elements(t->topology, t->kind->elements);
    size_t n = t->ms->rest_position.n;
    if (!el || el->n == 0)
        st_component_warn(self, "No %s found in linked Topology.", t->kind->name);
    else
        for (size_t i = 0; i < el->n * t->kind->width; i++)
            if (el->u[i] >= n)
                return st_component_error(self, "topology", err, ST_ESCENE,
                                          "%s %zu uses point %u; the state '%s' has %zu points",
                                          t->kind->name, i / t->kind->width, el->u[i],
                                          t->ms->base.name, n);
    t->x0 = st_malloc(n ? 3 * n * sizeof *t->x0 : 1);
    if (!t->x0)
        return st_error_set(err, ST_ENOMEM, "out of memory initialising %s", t->base.cls->name);
    memcpy(t->x0, t->ms->rest_position.r, 3 * n * sizeof *t->x0);
    t->nx0 = n;
    t->obtuse = 0;
    tm_build b = {0};
    st_status st = el && el->n ? t->kind->build(t, el, &b, err) : ST_OK;
    if (st == ST_OK)
        st = merge(t, &b, err);
    st_free(b.c);
    if (st == ST_OK && t->obtuse)
        st_component_info(self, "%zu element edges have a negative cotangent (obtuse angle)",
                          t->obtuse);
    return st;
}

st_status tm_init(tensor_mass_ff *t, const tm_kind *kind, st_error *err)
{
    st_component *self = &t->base;
    self->state = ST_CSTATE_INVALID;
    t->kind = kind;
    t->ms = t->mstate && st_component_has_role(t->mstate, ST_ROLE_STATE)
                ? (st_mstate *)t->mstate
                : st_component_mstate(self);
    if (!t->ms)
        return st_component_error(self, "mstate", err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors (%s needs one)",
                                  self->cls->name);
    ST_TRY(st_find_topology(self, &t->topology, err));
    kind->lame(t);
    ST_TRY(tm_build_all(t, err));
    if (!t->listening) {
        ST_TRY(st_topology_listen(self, t->topology, tm_changed, err));
        t->listening = true;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

void tm_cleanup(st_component *self) { tm_free((tensor_mass_ff *)self); }

static bool tm_ready(const tensor_mass_ff *t)
{
    return t->base.state == ST_CSTATE_VALID && t->ms && t->ms->n == t->nx0;
}

static void tm_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)v;
    tensor_mass_ff *t = (tensor_mass_ff *)self;
    if (!tm_ready(t))
        return;
    double *fs = st_slice(f, t->ms);
    const double *xs = st_slice_x(x, t->ms), *x0 = t->x0;
    for (size_t i = 0; i < t->ne; i++) {
        const tm_edge *e = &t->e[i];
        const double *d = e->d;
        double dp[3];
        for (int k = 0; k < 3; k++)
            dp[k] = (xs[3 * e->b + k] - x0[3 * e->b + k]) - (xs[3 * e->a + k] - x0[3 * e->a + k]);
        for (int r = 0; r < 3; r++) {
            fs[3 * e->b + r] += d[3 * r] * dp[0] + d[3 * r + 1] * dp[1] + d[3 * r + 2] * dp[2];
            fs[3 * e->a + r] -= d[r] * dp[0] + d[3 + r] * dp[1] + d[6 + r] * dp[2];
        }
    }
}

static void tm_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    tensor_mass_ff *t = (tensor_mass_ff *)self;
    if (!tm_ready(t))
        return;
    double *fs = st_slice(df, t->ms);
    const double *ds = st_slice(dx, t->ms);
    for (size_t i = 0; i < t->ne; i++) {
        const tm_edge *e = &t->e[i];
        const double *d = e->d;
        double dp[3];
        for (int k = 0; k < 3; k++)
            dp[k] = ds[3 * e->b + k] - ds[3 * e->a + k];
        for (int r = 0; r < 3; r++) {
            fs[3 * e->b + r] +=
                (d[3 * r] * dp[0] + d[3 * r + 1] * dp[1] + d[3 * r + 2] * dp[2]) * kfactor;
            fs[3 * e->a + r] -= (d[r] * dp[0] + d[3 + r] * dp[1] + d[6 + r] * dp[2]) * kfactor;
        }
    }
}

static void tm_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    tensor_mass_ff *t = (tensor_mass_ff *)self;
    if (!tm_ready(t))
        return;
    for (size_t i = 0; i < t->ne; i++) {
        const tm_edge *e = &t->e[i];
        double bb[9], ba[9], ab[9], aa[9];
        for (int r = 0; r < 3; r++)
            for (int q = 0; q < 3; q++) {
                double d = e->d[3 * r + q] * kfactor, dt = e->d[3 * q + r] * kfactor;
                bb[3 * r + q] = d;   /* df_b / dx_b = D */
                ba[3 * r + q] = -d;  /* df_b / dx_a = -D */
                ab[3 * r + q] = -dt; /* df_a / dx_b = -D^T */
                aa[3 * r + q] = dt;  /* df_a / dx_a = D^T */
            }
        st_matrix_add_block(m, t->ms, e->b, t->ms, e->b, bb);
        st_matrix_add_block(m, t->ms, e->b, t->ms, e->a, ba);
        st_matrix_add_block(m, t->ms, e->a, t->ms, e->b, ab);
        st_matrix_add_block(m, t->ms, e->a, t->ms, e->a, aa);
    }
}

static double tm_rayleigh(const st_component *self)
{
    return ((const tensor_mass_ff *)self)->rayleigh_stiffness;
}

const st_forcefield_ops tm_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = tm_add_force,
    .add_dforce = tm_add_dforce,
    .add_k_to_matrix = tm_add_k,
    .rayleigh_stiffness = tm_rayleigh,
};
