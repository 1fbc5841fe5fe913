/* mapping_common.c - see mapping_common.h. */
#include "mapping_common.h"


unsigned map_head_flags(const st_component *self)
{
    const map_head *h = (const map_head *)self;
    return (h->map_forces ? ST_MAP_FORCES : 0u) | (h->map_constraints ? ST_MAP_CONSTRAINTS : 0u) |
           (h->map_masses ? ST_MAP_MASSES : 0u) | (h->map_matrices ? ST_MAP_MATRICES : 0u);
}

st_mstate *map_head_input(const st_component *self) { return ((const map_head *)self)->in; }
st_mstate *map_head_output(const st_component *self) { return ((const map_head *)self)->out; }

st_status map_head_bind(map_head *h, const st_state_type *in_type, const st_state_type *out_type,
                        st_error *err)
{
    st_component *self = &h->base;
    h->in = h->out = NULL;
    if (!h->input || !st_component_has_role(h->input, ST_ROLE_STATE))
        return st_component_error(self, "input", err, ST_ELINK,
                                  "input must link a MechanicalObject (\"@../dofs\"), got %s",
                                  h->input ? h->input->cls->name : "nothing");
    if (!h->output || !st_component_has_role(h->output, ST_ROLE_STATE))
        return st_component_error(self, "output", err, ST_ELINK,
                                  "output must link a MechanicalObject (\"@dofs\"), got %s",
                                  h->output ? h->output->cls->name : "nothing");
    h->in = (st_mstate *)h->input;
    h->out = (st_mstate *)h->output;
    if (in_type && h->in->type != in_type)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "%s maps a %s input; '%s' is %s", self->cls->name,
                                  in_type->name, h->in->base.name, h->in->type->name);
    if (out_type && h->out->type != out_type)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "%s maps to a %s output; '%s' is %s", self->cls->name,
                                  out_type->name, h->out->base.name, h->out->type->name);
    return ST_OK;
}

bool map_head_bind_visual(map_head *h, st_status *rc, st_error *err)
{
    st_component *self = &h->base;
    *rc = ST_OK;
    h->visual_pos = NULL;
    h->visual_field = NULL;
    if (!h->output || st_component_has_role(h->output, ST_ROLE_STATE))
        return false;
    h->in = h->out = NULL;
    if (!h->input || !st_component_has_role(h->input, ST_ROLE_STATE)) {
        *rc = st_component_error(self, "input", err, ST_ELINK,
                                 "input must link a MechanicalObject (\"@../dofs\"), got %s",
                                 h->input ? h->input->cls->name : "nothing");
        return true;
    }
    h->in = (st_mstate *)h->input;
    const st_field *f = st_component_field(h->output, "position");
    if (h->in->type != &st_vec3d_type) {
        *rc = st_component_error(self, "output", err, ST_ESCENE,
                                 "a visual output takes Vec3d positions; the input '%s' is %s",
                                 h->in->base.name, h->in->type->name);
        return true;
    }
    if (!f || f->type != ST_T_VEC3S) {
        *rc = st_component_error(self, "output", err, ST_ELINK,
                                 "output '%s' (%s) is neither a MechanicalObject nor a model "
                                 "with a 'position' field",
                                 h->output->name, h->output->cls->name);
        return true;
    }
    h->visual_field = f;
    h->visual_pos = st_component_field_ptr(h->output, f);
    return true;
}

void map_head_touch_visual(map_head *h)
{
    if (h->visual_pos)
        st_component_touch(h->output, h->visual_field);
}

st_status map_resize_output(st_mstate *out, size_t n, st_error *err)
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
    out->n = n; /* components initialised after the mapping see the new size */
    return ST_OK;
}

st_status map_init_outputs(map_head *h, map_apply_fn apply, map_applyj_fn apply_j, st_error *err)
{
    st_mstate *in = h->in, *out = h->out;
    size_t n = out->position.n;
    if (out->velocity.n != n || out->rest_position.n != n)
        ST_TRY(map_resize_output(out, n, err));
    if (apply && in->position.n)
        apply(&h->base, in->position.r, out->position.r);
    if (apply_j && in->velocity.n == in->position.n && in->velocity.n)
        apply_j(&h->base, in->velocity.r, out->velocity.r);
    if (apply && h->apply_rest_position && in->rest_position.n == in->position.n)
        apply(&h->base, in->rest_position.r, out->rest_position.r);
    return ST_OK;
}
