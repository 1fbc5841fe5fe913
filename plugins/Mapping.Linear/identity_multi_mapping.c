/* identity_multi_mapping.c - IdentityMultiMapping: the output is the
 * concatenation of its inputs, in the order of "input" (all of the output's
 * type: Vec1d, Vec2d, Vec3d or Rigid3d). Output point offset_k + j is point
 * j of input k, offset_k the number of points of the inputs before k; J is
 * one identity block per output point. The output is resized to the sum of
 * the inputs' sizes at init, as SOFA does. */
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"

#define MAX_INPUTS 16

typedef struct identity_multi_mapping {
    map_head h;           /* h.input: the first of "input" */
    st_array input_paths; /* "input": links to the input states */
    /* Set at init. */
    st_mstate *ins[MAX_INPUTS];
    size_t sizes[MAX_INPUTS]; /* points of each input at init */
    size_t nins, n;           /* inputs, output points */
} identity_multi_mapping;

static const char *const imm_templates[] = {"Vec1d", "Vec2d", "Vec3d", "Rigid3d", NULL};

static const st_field imm_fields[] = {
    ST_FIELD_EX(identity_multi_mapping, input_paths, "input", ST_T_STRINGS, st_array, NULL,
                "Input Object(s): a list of links (\"@../a\", \"@../b\")",
                ST_F_REQUIRED | ST_F_NOLINK, NULL, 0.0, 0.0),
    MAP_OUTPUT_FIELDS(identity_multi_mapping),
    ST_FIELD_END};

static st_status imm_init(st_component *self, st_error *err)
{
    identity_multi_mapping *m = (identity_multi_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    m->nins = 0;
    ST_TRY(map_resolve_inputs(self, &m->input_paths, m->ins, MAX_INPUTS, &m->nins, err));
    m->h.input = &m->ins[0]->base;
    ST_TRY(map_head_bind(&m->h, NULL, NULL, err));
    if (m->h.visual)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "IdentityMultiMapping maps into a MechanicalObject, not a "
                                  "visual model");
    m->n = 0;
    for (size_t k = 0; k < m->nins; k++) {
        if (m->ins[k]->type != m->h.out->type)
            return st_component_error(self, "input", err, ST_ESCENE,
                                      "input '%s' is %s, the output '%s' %s: an "
                                      "IdentityMultiMapping maps states of one type",
                                      m->ins[k]->base.name, m->ins[k]->type->name,
                                      m->h.out->base.name, m->h.out->type->name);
        m->sizes[k] = m->ins[k]->position.n;
        m->n += m->sizes[k];
    }
    st_mstate *out = m->h.out;
    if (out->position.n != m->n)
        ST_TRY(map_resize_output(out, m->n, err));
    const unsigned cw = out->type->coord_size, dw = out->type->deriv_size;
    size_t off = 0;
    for (size_t k = 0; k < m->nins; k++) {
        const st_mstate *in = m->ins[k];
        memcpy(out->position.r + (size_t)cw * off, in->position.r, cw * m->sizes[k] * sizeof(double));
        if (in->velocity.n == in->position.n)
            memcpy(out->velocity.r + (size_t)dw * off, in->velocity.r,
                   dw * m->sizes[k] * sizeof(double));
        if (m->h.apply_rest_position && out->rest_position.n == m->n &&
            in->rest_position.n == in->position.n)
            memcpy(out->rest_position.r + (size_t)cw * off, in->rest_position.r,
                   cw * m->sizes[k] * sizeof(double));
        off += m->sizes[k];
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static bool ready(const identity_multi_mapping *m)
{
    if (m->h.base.state != ST_CSTATE_VALID || !m->h.out || m->h.out->n != m->n)
        return false;
    for (size_t k = 0; k < m->nins; k++)
        if (m->ins[k]->n != m->sizes[k])
            return false;
    return true;
}

/* Copies each input's slice of vec after the previous ones in the output's. */
static void concat(identity_multi_mapping *m, double *vec, bool coord)
{
    const unsigned w = coord ? m->h.out->type->coord_size : m->h.out->type->deriv_size;
    double *out = coord ? st_slice_x(vec, m->h.out) : st_slice(vec, m->h.out);
    for (size_t k = 0; k < m->nins; k++) {
        const double *src = coord ? st_slice_x(vec, m->ins[k]) : st_slice(vec, m->ins[k]);
        memcpy(out, src, (size_t)w * m->sizes[k] * sizeof(double));
        out += (size_t)w * m->sizes[k];
    }
}

static void imm_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    if (ready((identity_multi_mapping *)self))
        concat((identity_multi_mapping *)self, x, true);
}

static void imm_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    if (ready((identity_multi_mapping *)self))
        concat((identity_multi_mapping *)self, v, false);
}

static void imm_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    identity_multi_mapping *m = (identity_multi_mapping *)self;
    if (!ready(m))
        return;
    const unsigned w = m->h.out->type->deriv_size;
    const double *fo = st_slice(f, m->h.out);
    for (size_t k = 0; k < m->nins; k++) {
        double *fi = st_slice(f, m->ins[k]);
        for (size_t i = 0; i < (size_t)w * m->sizes[k]; i++)
            fi[i] += fo[i];
        fo += (size_t)w * m->sizes[k];
    }
}

static void imm_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    identity_multi_mapping *m = (identity_multi_mapping *)self;
    if (!ready(m))
        return;
    size_t row = 0;
    for (size_t k = 0; k < m->nins; k++)
        for (size_t j = 0; j < m->sizes[k]; j++)
            st_jbuilder_add_diag(jb, row++, m->ins[k], j, 1.0);
}

static size_t imm_inputs(const st_component *self, st_mstate **out, size_t max)
{
    const identity_multi_mapping *m = (const identity_multi_mapping *)self;
    for (size_t k = 0; k < m->nins && k < max; k++)
        out[k] = m->ins[k];
    return m->nins;
}

static const st_mapping_ops imm_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = imm_apply,
    .apply_j = imm_apply_j,
    .apply_jt = imm_apply_jt,
    .get_j = imm_get_j,
    .flags = map_head_flags,
    .inputs = imm_inputs,
};

const st_class identity_multi_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "IdentityMultiMapping",
    .category = "Mapping",
    .description = "Concatenate several mechanical states together",
    .instance_size = sizeof(identity_multi_mapping),
    .fields = imm_fields,
    .init = imm_init,
    .reinit = imm_init,
    .cleanup = map_head_cleanup,
    .mapping = &imm_ops,
    .templates = imm_templates,
};
