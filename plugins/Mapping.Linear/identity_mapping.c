/* identity_mapping.c - IdentityMapping: the output state's positions and
 * velocities are the input's, forces go back unchanged. When the output is
 * a visual model (OglModel) rather than a MechanicalObject, the mapping only
 * copies positions into the model's `position`, after each step (a visual
 * mapping, as in SOFA: it takes no part in the mechanics).
 *
 * Topological changes: as SOFA's handleTopologyChange, after a change of any
 * topology above it, an output whose size differs from the input's is
 * initialised again (resized to the input's size, positions and velocities
 * copied): the mapped state follows the input's removed points. */
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"
#include "../shared/topology_link.h"

typedef struct identity_mapping {
    map_head h;     /* input: a MechanicalObject; output: one, or a visual model */
    bool listening; /* registered for topological changes */
} identity_mapping;

static const st_field identity_fields[] = {MAP_HEAD_FIELDS(identity_mapping), ST_FIELD_END};

static size_t min_n(size_t a, size_t b) { return a < b ? a : b; }

static st_status identity_init(st_component *self, st_error *err);

/* SOFA's IdentityMapping::handleTopologyChange: init() again when the
 * sizes differ. */
static st_status identity_changed(st_component *self, st_component *topology,
                                  const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev;
    identity_mapping *m = (identity_mapping *)self;
    if (self->state != ST_CSTATE_VALID || !m->h.in)
        return ST_OK;
    size_t n = m->h.in->n;
    size_t have = m->h.visual && m->h.visual_pos ? m->h.visual_pos->n : m->h.out ? m->h.out->n : n;
    return have == n ? ST_OK : identity_init(self, err);
}

static st_status identity_init(st_component *self, st_error *err)
{
    identity_mapping *m = (identity_mapping *)self;
    if (!m->listening) {
        ST_TRY(st_listen_topologies_above(self, identity_changed, err));
        m->listening = true;
    }
    map_head *h = &m->h;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(map_head_bind(h, NULL, NULL, err));
    if (h->out->type != h->in->type)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "an IdentityMapping maps a state to one of the same type: "
                                  "input '%s' is %s, output '%s' is %s",
                                  h->in->base.name, h->in->type->name, h->out->base.name,
                                  h->out->type->name);
    /* The output takes the input's size, positions and velocities. */
    size_t n = h->in->n;
    const unsigned cw = h->in->type->coord_size, dw = h->in->type->deriv_size;
    if (h->out->position.n != n)
        ST_TRY(map_resize_output(h->out, n, err));
    memcpy(h->out->position.r, h->in->position.r, cw * n * sizeof(double));
    size_t nv = min_n(h->in->velocity.n, n);
    if (nv)
        memcpy(h->out->velocity.r, h->in->velocity.r, dw * nv * sizeof(double));
    if (h->apply_rest_position || h->out->rest_position.n != n) {
        ST_TRY(st_array_resize_width(&h->out->rest_position, cw, n, err));
        size_t nr = min_n(h->in->rest_position.n, n);
        if (nr)
            memcpy(h->out->rest_position.r, h->in->rest_position.r, cw * nr * sizeof(double));
    }
    ST_TRY(map_head_visual_commit(h, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void identity_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    identity_mapping *m = (identity_mapping *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *xout = m->h.out ? map_head_xout(&m->h, x) : NULL;
    if (!xout)
        return;
    const unsigned cw = m->h.in->type->coord_size;
    memcpy(xout, st_slice_x(x, m->h.in), cw * min_n(m->h.in->n, m->h.out->n) * sizeof(double));
    map_head_touch_visual(&m->h);
}

static void identity_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    identity_mapping *m = (identity_mapping *)self;
    if (self->state != ST_CSTATE_VALID || !m->h.out || m->h.visual)
        return;
    memcpy(st_slice(v, m->h.out), st_slice(v, m->h.in),
           m->h.in->type->deriv_size * min_n(m->h.in->n, m->h.out->n) * sizeof(double));
}

static void identity_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    identity_mapping *m = (identity_mapping *)self;
    if (self->state != ST_CSTATE_VALID || !m->h.out || m->h.visual)
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    size_t n3 = m->h.in->type->deriv_size * min_n(m->h.in->n, m->h.out->n);
    for (size_t i = 0; i < n3; i++)
        fin[i] += fout[i];
}

static void identity_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    identity_mapping *m = (identity_mapping *)self;
    if (self->state != ST_CSTATE_VALID || !m->h.out || m->h.visual)
        return;
    size_t n = min_n(m->h.in->n, m->h.out->n);
    for (size_t i = 0; i < n; i++)
        st_jbuilder_add_diag(jb, i, m->h.in, i, 1.0);
}

static const st_mapping_ops identity_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = identity_apply,
    .apply_j = identity_apply_j,
    .apply_jt = identity_apply_jt,
    .get_j = identity_get_j,
    .flags = map_head_flags,
};

const st_class identity_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "IdentityMapping",
    .category = "Mapping",
    .description = "Special case of mapping where the child points are the same as the parent "
                   "points",
    .instance_size = sizeof(identity_mapping),
    .fields = identity_fields,
    .init = identity_init,
    .reinit = identity_init,
    .cleanup = map_head_cleanup,
    .mapping = &identity_ops,
    .templates = st_all_state_types,
};
