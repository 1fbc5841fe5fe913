/* mechanical_load.c - what the MechanicalLoad force fields share: the state
 * they act on, SOFA's localRange check and the contact set with its
 * fixed-pattern matrix blocks. */
#include <string.h>

#include "mechanical_load.h"

st_status ml_find_state(st_component *self, st_mstate **out, st_error *err)
{
    *out = st_component_mstate(self);
    if (!*out)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mechanical object: add a MechanicalObject before %s "
                                  "in this node, or set mstate",
                                  self->cls->name);
    return ST_OK;
}

void ml_check_range(st_component *self, st_vec2 range)
{
    if (!st_component_is_set(self, "localRange"))
        return;
    if (range[0] < 0 || range[1] < 0 || range[0] > range[1]) {
        st_component_warn(self,
                          "The 'localRange=%g %g' parameter is not valid as it needs two indices "
                          "in numerical order. Continuing with no local range.",
                          range[0], range[1]);
        range[0] = range[1] = -1;
    }
}

st_status ml_contacts_reserve(ml_contacts *c, size_t n, st_error *err)
{
    ml_contacts_free(c);
    c->index = st_calloc(n ? n : 1, sizeof *c->index);
    if (!c->index)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu contacts", n);
    c->cap = n;
    return ST_OK;
}

void ml_contacts_free(ml_contacts *c)
{
    st_free(c->index);
    memset(c, 0, sizeof *c);
}

void ml_add_contact_blocks(st_matrix *m, const st_component *self, const st_mstate *ms,
                           size_t begin, size_t end, const ml_contacts *c, double factor,
                           ml_block_fn block)
{
    size_t k = 0;
    for (size_t i = begin; i < end; i++) {
        double b[9] = {0};
        /* Contacts are ascending and inside [begin, end). */
        if (k < c->n && c->index[k] == i)
            block(self, k++, factor, b);
        st_matrix_add_block(m, ms, i, ms, i, b);
    }
}

st_status ml_check_elements(st_component *self, const char *what, const unsigned *v, size_t n,
                            unsigned w, const st_mstate *ms, st_error *err)
{
    for (size_t i = 0; i < n * w; i++)
        if (v[i] >= ms->n)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "%s %zu uses point %u but the state has %zu points", what,
                                      i / w, v[i], ms->n);
    return ST_OK;
}

st_status ml_elem_load_alloc(ml_elem_load *l, size_t n, unsigned w, st_error *err)
{
    ml_elem_load_free(l);
    l->v = st_calloc(n * w + 1, sizeof *l->v);
    l->force = st_calloc(3 * n + 1, sizeof *l->force);
    if (!l->v || !l->force) {
        ml_elem_load_free(l);
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu elements", n);
    }
    l->n = n;
    l->w = w;
    return ST_OK;
}

void ml_elem_load_free(ml_elem_load *l)
{
    st_free(l->v);
    st_free(l->force);
    memset(l, 0, sizeof *l);
}

void ml_elem_load_add_force(const ml_elem_load *l, double *f)
{
    for (size_t e = 0; e < l->n; e++) {
        const double *F = l->force + 3 * e;
        double share[3] = {F[0] / l->w, F[1] / l->w, F[2] / l->w};
        for (unsigned j = 0; j < l->w; j++)
            ml_axpy(f + 3 * (size_t)l->v[l->w * e + j], 1.0, share);
    }
}

double ml_elem_load_energy(const ml_elem_load *l, const double *x)
{
    double e = 0.0;
    for (size_t k = 0; k < l->n; k++) {
        const double *F = l->force + 3 * k;
        double share[3] = {F[0] / l->w, F[1] / l->w, F[2] / l->w};
        for (unsigned j = 0; j < l->w; j++)
            e -= ml_dot(share, x + 3 * (size_t)l->v[l->w * k + j]);
    }
    return e;
}

/* Set while a listener runs a component's init again (no second
 * registration). */
static _Thread_local bool ml_rebuilding;

static st_status ml_topology_changed(st_component *self, st_component *topology,
                                     const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev;
    ml_rebuilding = true;
    st_status st = self->cls->init(self, err);
    ml_rebuilding = false;
    return st;
}

st_status ml_follow_elements(st_component *self, st_component *topology, const char *list_field,
                             st_elem elem, st_error *err)
{
    if (ml_rebuilding || !topology || !topology->cls->topology)
        return ST_OK;
    const st_field *f = st_component_field(self, list_field);
    const st_array *list = f ? st_component_field_ptr(self, f) : NULL;
    if (list && list->n)
        ST_TRY(st_topology_follow_subset(self, list_field, topology, elem, err));
    return st_topology_listen(self, topology, ml_topology_changed, err);
}
