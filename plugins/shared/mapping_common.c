/* mapping_common.c - see mapping_common.h. */
#include "mapping_common.h"

#include <string.h>


unsigned map_head_flags(const st_component *self)
{
    const map_head *h = (const map_head *)self;
    return (h->map_forces ? ST_MAP_FORCES : 0u) | (h->map_constraints ? ST_MAP_CONSTRAINTS : 0u) |
           (h->map_masses ? ST_MAP_MASSES : 0u) | (h->map_matrices ? ST_MAP_MATRICES : 0u) |
           (h->visual ? ST_MAP_VISUAL : 0u) |
           (h->visual && h->mapped_object && h->visual_velocity ? ST_MAP_VISUAL_VELOCITY : 0u);
}

st_mstate *map_head_input(const st_component *self) { return ((const map_head *)self)->in; }
st_mstate *map_head_output(const st_component *self)
{
    const map_head *h = (const map_head *)self;
    return h->visual ? NULL : h->out;
}

void map_head_release(map_head *h)
{
    st_array_free(&h->vis.position, ST_T_REALS);
    st_array_free(&h->vis.velocity, ST_T_REALS);
    st_array_free(&h->vis.rest_position, ST_T_REALS);
    st_array_free(&h->vis.force, ST_T_REALS);
    st_array_free(&h->vis.external_force, ST_T_REALS);
    memset(&h->vis, 0, sizeof h->vis);
    h->visual = false;
    h->visual_pos = NULL;
    h->visual_field = NULL;
    h->mapped_object = false;
    h->visual_vel = NULL;
    h->visual_vel_field = NULL;
}

void map_head_cleanup(st_component *self) { map_head_release((map_head *)self); }

/* A Vec3 array field of c named name, or NULL. */
static st_array *vec3_field(st_component *c, const char *name, const st_field **out)
{
    const st_field *f = st_component_field(c, name);
    if (!f || f->type != ST_T_VEC3S)
        return NULL;
    if (out)
        *out = f;
    return st_component_field_ptr(c, f);
}

/* A flat real array field of c named name, or NULL. */
static st_array *reals_field(st_component *c, const char *name, const st_field **out)
{
    const st_field *f = st_component_field(c, name);
    if (!f || f->type != ST_T_REALS)
        return NULL;
    if (out)
        *out = f;
    return st_component_field_ptr(c, f);
}

/* Whether c looks like a MappedObject: no state role, no topology, a
 * 'template' string and flat 'position' and 'velocity' arrays. */
static bool is_mapped_object(st_component *c)
{
    const st_field *t = st_component_field(c, "template");
    return !st_component_has_role(c, ST_ROLE_STATE) && !c->cls->topology && t &&
           t->type == ST_T_STRING && reals_field(c, "position", NULL) &&
           reals_field(c, "velocity", NULL);
}

/* A MappedObject output: its positions and velocities copied into h->vis,
 * a state of the object's type that the mapping's init works on. */
static st_status bind_mapped_object(map_head *h, const st_state_type *out_type, st_error *err)
{
    st_component *self = &h->base, *obj = h->output;
    const st_field *ft = st_component_field(obj, "template"), *fp = NULL, *fv = NULL;
    const char *tname = *(char *const *)st_component_field_ptr(obj, ft);
    const st_state_type *t = st_state_type_find(tname && tname[0] ? tname : "Vec3d");
    if (!t)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "the MappedObject '%s' has an unknown template '%s'", obj->name,
                                  tname);
    if (out_type && out_type != t)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "%s maps to a %s output; the MappedObject '%s' is %s",
                                  self->cls->name, out_type->name, obj->name, t->name);
    /* A mapping that does not handle MappedObjects itself treats its
     * output as it treats a visual model: Vec3d points. */
    if (!h->visual_velocity && t != &st_vec3d_type)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "%s maps into Vec3d MappedObjects only (as into visual models); "
                                  "'%s' is %s",
                                  self->cls->name, obj->name, t->name);
    st_array *pos = reals_field(obj, "position", &fp);
    st_array *vel = reals_field(obj, "velocity", &fv);
    const unsigned cw = t->coord_size, dw = t->deriv_size;
    if (pos->n % cw)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "the MappedObject '%s' holds %zu position values, not a whole "
                                  "number of %s coordinates (%u values each)",
                                  obj->name, pos->n, t->name, cw);
    size_t n = pos->n / cw;
    st_mstate *v = &h->vis;
    v->base.cls = obj->cls; /* names only: messages say the object's name */
    v->base.node = obj->node;
    v->base.name = obj->name;
    v->base.state = ST_CSTATE_VALID;
    v->type = t;
    ST_TRY(st_array_resize_width(&v->position, cw, n, err));
    ST_TRY(st_array_resize_width(&v->velocity, dw, n, err));
    ST_TRY(st_array_resize_width(&v->rest_position, cw, n, err));
    if (n) {
        memcpy(v->position.r, pos->r, cw * n * sizeof(double));
        memcpy(v->rest_position.r, pos->r, cw * n * sizeof(double));
        if (vel->n == dw * n)
            memcpy(v->velocity.r, vel->r, dw * n * sizeof(double));
        else
            memset(v->velocity.r, 0, dw * n * sizeof(double));
    }
    v->n = n;
    v->size = (unsigned)n;
    h->visual = true;
    h->mapped_object = true;
    h->visual_pos = pos;
    h->visual_field = fp;
    h->visual_vel = vel;
    h->visual_vel_field = fv;
    h->out = v;
    return ST_OK;
}

/* The visual model's positions (and rest positions, when it has as many)
 * copied into h->vis, a Vec3d state the mapping's init works on. */
static st_status bind_visual(map_head *h, st_error *err)
{
    st_component *self = &h->base, *model = h->output;
    const st_field *f = NULL;
    /* SOFA's VisualState: Vec3 position and restPosition (OglModel). */
    st_array *pos = vec3_field(model, "position", &f);
    if (!pos || !vec3_field(model, "restPosition", NULL) || model->cls->topology)
        return st_component_error(self, "output", err, ST_ELINK,
                                  "output must link a MechanicalObject (\"@dofs\") or a visual "
                                  "model (an OglModel), got %s '%s'",
                                  model->cls->name, model->name);
    st_mstate *v = &h->vis;
    v->base.cls = model->cls; /* names only: messages say the model's name */
    v->base.node = model->node;
    v->base.name = model->name;
    v->base.state = ST_CSTATE_VALID;
    v->type = &st_vec3d_type;
    size_t n = pos->n;
    ST_TRY(st_array_resize_width(&v->position, 3, n, err));
    ST_TRY(st_array_resize_width(&v->velocity, 3, n, err));
    ST_TRY(st_array_resize_width(&v->rest_position, 3, n, err));
    if (n) {
        memcpy(v->position.r, pos->r, 3 * n * sizeof(double));
        memset(v->velocity.r, 0, 3 * n * sizeof(double));
        const st_array *rest = vec3_field(model, "restPosition", NULL);
        memcpy(v->rest_position.r, rest && rest->n == n ? rest->r : pos->r,
               3 * n * sizeof(double));
    }
    v->n = n;
    v->size = (unsigned)n;
    h->visual = true;
    h->visual_pos = pos;
    h->visual_field = f;
    h->out = v;
    return ST_OK;
}

st_status map_resolve_inputs(st_component *self, const st_array *paths, st_mstate **ins,
                             size_t max, size_t *n, st_error *err)
{
    *n = 0;
    if (paths->n == 0 || paths->n > max)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "%s takes 1 to %zu input states, got %zu", self->cls->name, max,
                                  paths->n);
    for (size_t k = 0; k < paths->n; k++) {
        const char *p = paths->s[k];
        st_component *c = NULL;
        st_error e = {0};
        if (!p || p[0] != '@' ||
            st_node_resolve(self->node, p + 1, ST_LINK_STATE, &c, &e) != ST_OK || !c ||
            !st_component_has_role(c, ST_ROLE_STATE))
            return st_component_error(self, "input", err, ST_ELINK,
                                      "input %zu ('%s') is not a link to a MechanicalObject%s%s", k,
                                      p ? p : "", e.msg[0] ? ": " : "", e.msg);
        ins[(*n)++] = (st_mstate *)c;
    }
    return ST_OK;
}

st_status map_head_bind(map_head *h, const st_state_type *in_type, const st_state_type *out_type,
                        st_error *err)
{
    st_component *self = &h->base;
    h->in = h->out = NULL;
    map_head_release(h);
    if (!h->input || !st_component_has_role(h->input, ST_ROLE_STATE))
        return st_component_error(self, "input", err, ST_ELINK,
                                  "input must link a MechanicalObject (\"@../dofs\"), got %s",
                                  h->input ? h->input->cls->name : "nothing");
    if (!h->output)
        return st_component_error(self, "output", err, ST_ELINK,
                                  "output must link a MechanicalObject (\"@dofs\") or a visual "
                                  "model, got nothing");
    h->in = (st_mstate *)h->input;
    if (in_type && h->in->type != in_type)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "%s maps a %s input; '%s' is %s", self->cls->name,
                                  in_type->name, h->in->base.name, h->in->type->name);
    if (is_mapped_object(h->output))
        return bind_mapped_object(h, out_type, err);
    if (!st_component_has_role(h->output, ST_ROLE_STATE)) {
        /* A visual model: SOFA's VisualModelImpl is a Vec3 State. */
        if (out_type && out_type != &st_vec3d_type)
            return st_component_error(self, "output", err, ST_ESCENE,
                                      "%s maps to a %s output; the visual model '%s' holds Vec3d "
                                      "positions",
                                      self->cls->name, out_type->name, h->output->name);
        return bind_visual(h, err);
    }
    h->out = (st_mstate *)h->output;
    if (out_type && h->out->type != out_type)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "%s maps to a %s output; '%s' is %s", self->cls->name,
                                  out_type->name, h->out->base.name, h->out->type->name);
    return ST_OK;
}

void map_head_touch_visual(map_head *h)
{
    if (h->visual && h->visual_pos)
        st_component_touch(h->output, h->visual_field);
}

double *map_head_xout(map_head *h, double *x)
{
    if (!h->visual)
        return st_slice_x(x, h->out);
    /* a MappedObject's flat array holds coord_size values per point */
    size_t per = h->mapped_object ? h->vis.type->coord_size : 1;
    return h->visual_pos && h->visual_pos->n == per * h->vis.n ? h->visual_pos->r : NULL;
}

double *map_head_vout(map_head *h, double *v)
{
    if (!h->visual)
        return st_slice(v, h->out);
    if (!h->mapped_object || !h->visual_vel ||
        h->visual_vel->n != h->vis.type->deriv_size * h->vis.n)
        return NULL;
    st_component_touch(h->output, h->visual_vel_field);
    return h->visual_vel->r;
}

/* map_head_visual_commit for a MappedObject: positions and velocities. */
static st_status mapped_object_commit(map_head *h, st_error *err)
{
    const unsigned cw = h->vis.type->coord_size, dw = h->vis.type->deriv_size;
    size_t n = h->vis.n;
    ST_TRY(st_array_resize(h->visual_pos, ST_T_REALS, cw * n, err));
    ST_TRY(st_array_resize(h->visual_vel, ST_T_REALS, dw * n, err));
    if (n) {
        memcpy(h->visual_pos->r, h->vis.position.r, cw * n * sizeof(double));
        memcpy(h->visual_vel->r, h->vis.velocity.r, dw * n * sizeof(double));
    }
    st_component_touch(h->output, h->visual_field);
    st_component_touch(h->output, h->visual_vel_field);
    if (!h->visual_velocity)
        st_component_warn(&h->base,
                          "%s maps only the positions of the MappedObject '%s': its velocities "
                          "stay as they were at init",
                          h->base.cls->name, h->output->name);
    return ST_OK;
}

st_status map_head_visual_commit(map_head *h, st_error *err)
{
    if (!h->visual || !h->visual_pos)
        return ST_OK;
    if (h->mapped_object)
        return mapped_object_commit(h, err);
    size_t n = h->vis.n;
    ST_TRY(st_array_resize(h->visual_pos, ST_T_VEC3S, n, err));
    if (n)
        memcpy(h->visual_pos->r, h->vis.position.r, 3 * n * sizeof(double));
    const st_field *fr = NULL;
    st_array *rest = vec3_field(h->output, "restPosition", &fr);
    if (rest && (h->apply_rest_position || rest->n != n)) {
        ST_TRY(st_array_resize(rest, ST_T_VEC3S, n, err));
        if (n)
            memcpy(rest->r, h->apply_rest_position ? h->vis.rest_position.r : h->vis.position.r,
                   3 * n * sizeof(double));
        st_component_touch(h->output, fr);
    }
    map_head_touch_visual(h);
    return ST_OK;
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
    return map_head_visual_commit(h, err);
}

st_component *map_find_upward(st_node *n, const char *cls)
{
    for (; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            st_component *c = st_node_object(n, i);
            if (!strcmp(c->cls->name, cls))
                return c;
        }
    return NULL;
}
