/* identity_mapping.c - IdentityMapping: the output state's positions and
 * velocities are the input's, forces go back unchanged. When the output is
 * a visual model (OglModel) rather than a MechanicalObject, the mapping only
 * copies positions into the model's `position` (a visual mapping, as in
 * SOFA: it takes no part in the mechanics). */
#include <string.h>

#include <settee/settee.h>

typedef struct identity_mapping {
    st_component base;
    st_component *input;  /* "input": a MechanicalObject */
    st_component *output; /* "output": a MechanicalObject or a visual model */
    bool map_forces, map_constraint, map_masses, map_matrices; /* SOFA's flags, kept */
    bool apply_rest_position;
    /* Set at init. */
    st_mstate *in, *out;  /* out NULL for a visual output */
    st_array *visual_pos; /* the visual model's position, or NULL */
    const st_field *visual_field;
} identity_mapping;

static const st_field identity_fields[] = {
    {"input", ST_T_LINK,
     offsetof(identity_mapping, input) + ST_FIELD_CHECK_(identity_mapping, input, st_component *),
     NULL, "Input object to map", ST_F_REQUIRED, NULL, ST_LINK_STATE, 0.0, 0.0},
    {"output", ST_T_LINK,
     offsetof(identity_mapping, output) +
         ST_FIELD_CHECK_(identity_mapping, output, st_component *),
     NULL, "Output object to map (a MechanicalObject or a visual model)", ST_F_REQUIRED, NULL,
     ST_LINK_ANY, 0.0, 0.0},
    ST_BOOL(identity_mapping, map_forces, "mapForces", "true",
            "Are forces mapped ? (false into a MechanicalObject is not supported yet: an error)"),
    ST_IGNORED(identity_mapping, map_constraint, "mapConstraints", ST_T_BOOL, bool, "true",
               "Are constraints mapped ? (settee has no constraints to map)"),
    ST_BOOL(identity_mapping, map_masses, "mapMasses", "true",
            "Are masses mapped ? (false into a MechanicalObject is not supported yet: an error)"),
    ST_IGNORED(identity_mapping, map_matrices, "mapMatrices", ST_T_BOOL, bool, "false",
               "Are matrix explicit mapped? (an identity mapping adds no geometric stiffness)"),
    ST_BOOL(identity_mapping, apply_rest_position, "applyRestPosition", "false",
            "set to true to apply this mapping to restPosition at init"),
    ST_FIELD_END};

static bool is_mstate(const st_component *c)
{
    return st_component_has_role(c, ST_ROLE_STATE);
}

static size_t min_n(size_t a, size_t b) { return a < b ? a : b; }

static st_status resize_out(st_mstate *out, size_t n, st_error *err)
{
    unsigned cw = out->type->coord_size, dw = out->type->deriv_size;
    ST_TRY(st_array_resize_width(&out->position, cw, n, err));
    ST_TRY(st_array_resize_width(&out->velocity, dw, n, err));
    ST_TRY(st_array_resize_width(&out->rest_position, cw, n, err));
    if (out->force.n)
        ST_TRY(st_array_resize_width(&out->force, dw, n, err));
    if (out->external_force.n)
        ST_TRY(st_array_resize_width(&out->external_force, dw, n, err));
    out->size = (unsigned)n;
    return ST_OK;
}

static st_status identity_init(st_component *self, st_error *err)
{
    identity_mapping *m = (identity_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    if (!m->input || !is_mstate(m->input))
        return st_component_error(self, "input", err, ST_ELINK,
                                  "input must link a MechanicalObject (\"@../dofs\"), got %s",
                                  m->input ? m->input->cls->name : "nothing");
    if (!m->output)
        return st_component_error(self, "output", err, ST_ELINK,
                                  "output must link a MechanicalObject or a visual model");
    m->in = (st_mstate *)m->input;
    size_t n = m->in->n;
    const unsigned cw = m->in->type->coord_size, dw = m->in->type->deriv_size;
    if (is_mstate(m->output)) {
        if (!m->map_forces || !m->map_masses)
            return st_component_error(self, m->map_forces ? "mapMasses" : "mapForces", err,
                                      ST_EINVAL,
                                      "a mechanical mapping that does not map its %s is not "
                                      "supported by settee yet",
                                      m->map_forces ? "masses" : "forces");
        m->out = (st_mstate *)m->output;
        m->visual_pos = NULL;
        if (m->out->type != m->in->type)
            return st_component_error(self, "output", err, ST_ESCENE,
                                      "an IdentityMapping maps a state to one of the same type: "
                                      "input '%s' is %s, output '%s' is %s",
                                      m->in->base.name, m->in->type->name, m->out->base.name,
                                      m->out->type->name);
        /* The output takes the input's size, positions and velocities. */
        if (m->out->position.n != n)
            ST_TRY(resize_out(m->out, n, err));
        memcpy(m->out->position.r, m->in->position.r, cw * n * sizeof(double));
        size_t nv = min_n(m->in->velocity.n, n);
        if (nv)
            memcpy(m->out->velocity.r, m->in->velocity.r, dw * nv * sizeof(double));
        if (m->apply_rest_position || m->out->rest_position.n != n) {
            ST_TRY(st_array_resize_width(&m->out->rest_position, cw, n, err));
            size_t nr = min_n(m->in->rest_position.n, n);
            if (nr)
                memcpy(m->out->rest_position.r, m->in->rest_position.r, cw * nr * sizeof(double));
        }
    } else {
        const st_field *f = st_component_field(m->output, "position");
        if (m->in->type != &st_vec3d_type)
            return st_component_error(self, "output", err, ST_ESCENE,
                                      "a visual output takes Vec3d positions; the input '%s' is %s",
                                      m->in->base.name, m->in->type->name);
        if (!f || f->type != ST_T_VEC3S)
            return st_component_error(self, "output", err, ST_ELINK,
                                      "output '%s' (%s) is neither a MechanicalObject nor a "
                                      "model with a 'position' field",
                                      m->output->name, m->output->cls->name);
        m->out = NULL;
        m->visual_field = f;
        m->visual_pos = st_component_field_ptr(m->output, f);
        ST_TRY(st_array_resize(m->visual_pos, ST_T_VEC3S, n, err));
        memcpy(m->visual_pos->r, m->in->position.r, 3 * n * sizeof(double));
        st_component_touch(m->output, f);
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static st_mstate *identity_input(const st_component *self)
{
    return ((const identity_mapping *)self)->in;
}

static st_mstate *identity_output(const st_component *self)
{
    return ((const identity_mapping *)self)->out;
}

static void identity_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    identity_mapping *m = (identity_mapping *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    const double *xin = st_slice_x(x, m->in);
    const unsigned cw = m->in->type->coord_size;
    if (m->out) {
        memcpy(st_slice_x(x, m->out), xin, cw * min_n(m->in->n, m->out->n) * sizeof(double));
    } else if (m->visual_pos) {
        /* Visual output: the model's positions follow (no allocation: sized at init). */
        memcpy(m->visual_pos->r, xin, 3 * min_n(m->in->n, m->visual_pos->n) * sizeof(double));
        st_component_touch(m->output, m->visual_field);
    }
}

static void identity_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    identity_mapping *m = (identity_mapping *)self;
    if (self->state != ST_CSTATE_VALID || !m->out)
        return;
    memcpy(st_slice(v, m->out), st_slice(v, m->in),
           m->in->type->deriv_size * min_n(m->in->n, m->out->n) * sizeof(double));
}

static void identity_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    identity_mapping *m = (identity_mapping *)self;
    if (self->state != ST_CSTATE_VALID || !m->out)
        return;
    double *fin = st_slice(f, m->in);
    const double *fout = st_slice(f, m->out);
    size_t n3 = m->in->type->deriv_size * min_n(m->in->n, m->out->n);
    for (size_t i = 0; i < n3; i++)
        fin[i] += fout[i];
}

static const st_mapping_ops identity_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = identity_input,
    .output = identity_output,
    .apply = identity_apply,
    .apply_j = identity_apply_j,
    .apply_jt = identity_apply_jt,
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
    .mapping = &identity_ops,
    .templates = st_all_state_types,
};
