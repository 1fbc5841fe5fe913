/* identity_mapping.c - IdentityMapping: the output state's positions and
 * velocities are the input's, forces go back unchanged. When the output is
 * a visual model (OglModel) rather than a MechanicalObject, the mapping only
 * copies positions into the model's `position`, after each step (a visual
 * mapping, as in SOFA: it takes no part in the mechanics); into a
 * MappedObject, positions and velocities, after each step.
 *
 * Types, as SOFA's instances: the same type in and out, or a Rigid3d input
 * and a Vec3d output (SOFA's IdentityMapping<Rigid3, Vec3>, through its
 * MappingHelper eq/peq): the output point is the frame's centre, its
 * velocity the frame's linear velocity, and a force on it goes to the
 * frame's force with no torque (J is the identity on the first three
 * derivative components, zero on the angular ones).
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

/* Copies the first w scalars of n items from src (stride ws) to dst (stride
 * wd). */
static void copy_strided(double *dst, unsigned wd, const double *src, unsigned ws, unsigned w,
                         size_t n)
{
    if (n == 0)
        return; /* the arrays of an emptied state may be NULL */
    if (wd == w && ws == w) {
        memcpy(dst, src, w * n * sizeof *dst);
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < w; k++)
            dst[wd * i + k] = src[ws * i + k];
}

/* True when SOFA instantiates IdentityMapping from type a to type b. */
static bool identity_pair(const st_state_type *a, const st_state_type *b)
{
    return a == b || (a->rigid && !b->rigid && a->spatial_size == b->spatial_size &&
                      b->coord_size == b->spatial_size);
}

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
    h->visual_velocity = true; /* MappedObjects: apply_j writes through map_head_vout */
    ST_TRY(map_head_bind(h, NULL, NULL, err));
    if (!identity_pair(h->in->type, h->out->type))
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "an IdentityMapping maps a state to one of the same type, or a "
                                  "Rigid3d state to a Vec3d one: input '%s' is %s, output '%s' "
                                  "is %s",
                                  h->in->base.name, h->in->type->name, h->out->base.name,
                                  h->out->type->name);
    /* The output takes the input's size, positions and velocities. */
    size_t n = h->in->n;
    const unsigned ci = h->in->type->coord_size, di = h->in->type->deriv_size;
    const unsigned co = h->out->type->coord_size, dout = h->out->type->deriv_size;
    if (h->out->position.n != n)
        ST_TRY(map_resize_output(h->out, n, err));
    copy_strided(h->out->position.r, co, h->in->position.r, ci, co, n);
    size_t nv = min_n(h->in->velocity.n, n);
    if (nv)
        copy_strided(h->out->velocity.r, dout, h->in->velocity.r, di, dout, nv);
    if (h->apply_rest_position || h->out->rest_position.n != n) {
        ST_TRY(st_array_resize_width(&h->out->rest_position, co, n, err));
        size_t nr = min_n(h->in->rest_position.n, n);
        if (nr)
            copy_strided(h->out->rest_position.r, co, h->in->rest_position.r, ci, co, nr);
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
    /* same type: a plain copy; Rigid3d in, Vec3d out: the frames' centres */
    const unsigned ci = m->h.in->type->coord_size, co = m->h.out->type->coord_size;
    copy_strided(xout, co, st_slice_x(x, m->h.in), ci, co, min_n(m->h.in->n, m->h.out->n));
    map_head_touch_visual(&m->h);
}

static void identity_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    identity_mapping *m = (identity_mapping *)self;
    double *vout = self->state == ST_CSTATE_VALID && m->h.out ? map_head_vout(&m->h, v) : NULL;
    if (!vout)
        return;
    unsigned dout = m->h.out->type->deriv_size;
    copy_strided(vout, dout, st_slice(v, m->h.in), m->h.in->type->deriv_size, dout,
                 min_n(m->h.in->n, m->h.out->n));
}

static void identity_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    identity_mapping *m = (identity_mapping *)self;
    if (self->state != ST_CSTATE_VALID || !m->h.out || m->h.visual)
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    unsigned di = m->h.in->type->deriv_size, dout = m->h.out->type->deriv_size;
    size_t n = min_n(m->h.in->n, m->h.out->n);
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < dout; k++)
            fin[di * i + k] += fout[dout * i + k];
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
