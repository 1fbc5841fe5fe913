/* com_multi.h - the point masses SOFA's centre-of-mass multi-mappings
 * weigh their inputs with: getElementMass(p) of the mass in each input
 * state's node (SOFA's getContext()->getMass()). Read from the mass's
 * vertexMass once it has initialised: a UniformMass gives every point its
 * mass, a DiagonalMass each point's (Rigid3d: 11 values per point, the mass
 * first). Shared by CenterOfMassMultiMapping and CenterOfMassMulti2Mapping
 * (static functions, one copy in each file that includes it), with the
 * role functions both share: the output's first point is
 *   x = sum_k sum_p m_kp x_kp / M,   M = sum_k sum_p m_kp
 * (a Rigid3d point's centre; a Rigid3d output keeps its orientation),
 *   v = sum_k sum_p m_kp v_kp / M   (a Rigid3d output's angular part 0),
 *   f_kp += m_kp f / M               (translation only).
 * M is summed once, when the masses are first read (SOFA's invTotalMass,
 * computed at init). */
#ifndef SETTEE_MAPPING_LINEAR_COM_MULTI_H
#define SETTEE_MAPPING_LINEAR_COM_MULTI_H

#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"

typedef struct com_input {
    st_mstate *ms;       /* the input state */
    st_component *mass;  /* the mass of its node */
    bool diagonal;       /* a DiagonalMass (else a UniformMass) */
    size_t n;            /* points at init */
    double *m;           /* n point masses (owned), read by com_read_masses */
} com_input;

/* Finds the mass of in->ms's node and allocates the masses; an error names
 * the input when there is none or it is another class. */
static st_status com_input_bind(st_component *self, com_input *in, st_error *err)
{
    in->mass = st_node_find(in->ms->base.node, ST_ROLE_MASS, ST_SEARCH_LOCAL);
    if (!in->mass)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "no mass in the node of the input '%s': %s weighs each point "
                                  "with its mass (a UniformMass or a DiagonalMass there)",
                                  in->ms->base.name, self->cls->name);
    const char *cls = in->mass->cls->name;
    in->diagonal = strcmp(cls, "DiagonalMass") == 0;
    if (!in->diagonal && strcmp(cls, "UniformMass") != 0)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "the mass of '%s' is a %s: %s reads the point masses of a "
                                  "UniformMass or a DiagonalMass",
                                  in->ms->base.name, cls, self->cls->name);
    in->n = in->ms->position.n;
    st_free(in->m);
    in->m = st_calloc(in->n ? in->n : 1, sizeof *in->m);
    if (!in->m)
        return st_error_set(err, ST_ENOMEM, "out of memory initialising a %s", self->cls->name);
    return ST_OK;
}

/* Reads the point masses (the mass must have initialised); returns their
 * sum. A DiagonalMass shorter than the state gives its last value. */
static double com_read_masses(com_input *in)
{
    const st_field *f = st_component_field(in->mass, "vertexMass");
    const void *p = f ? st_component_field_ptr(in->mass, f) : NULL;
    double total = 0.0;
    for (size_t i = 0; i < in->n; i++) {
        double mi = 0.0;
        if (!p) {
            mi = 0.0;
        } else if (in->diagonal) {
            const st_array *a = p;
            const size_t stride = in->ms->type->rigid ? 11 : 1;
            size_t given = a->n / stride;
            if (given)
                mi = a->r[stride * (i < given ? i : given - 1)];
        } else {
            mi = ((const st_mass_value *)p)->mass;
        }
        in->m[i] = mi;
        total += mi;
    }
    return total;
}

static void com_input_free(com_input *in)
{
    st_free(in->m);
    in->m = NULL;
    in->n = 0;
}

/* sum_p m_p x_p over the first 3 coordinates (a Rigid3d point's centre),
 * items of width w. */
static void com_weighted_sum(const com_input *in, const double *x, unsigned w, double s[3])
{
    for (size_t p = 0; p < in->n; p++)
        for (int k = 0; k < 3; k++)
            s[k] += x[(size_t)w * p + k] * in->m[p];
}

/* f_p += m_p g on the first 3 derivative components, items of width w. */
static void com_spread(const com_input *in, double *f, unsigned w, const double g[3])
{
    for (size_t p = 0; p < in->n; p++)
        for (int k = 0; k < 3; k++)
            f[(size_t)w * p + k] += g[k] * in->m[p];
}

/* J's block of point p: (m_p / M) on the three translation rows and
 * columns, zero elsewhere (a Rigid3d input's rotation and a Rigid3d
 * output's angular rows), added with st_jbuilder_add. */
static void com_add_j(st_jbuilder *jb, const st_mstate *out, const com_input *in,
                      double inv_total)
{
    (void)out;
    const unsigned ci = in->ms->type->deriv_size;
    double b[36];
    for (size_t p = 0; p < in->n; p++) {
        memset(b, 0, sizeof b);
        for (unsigned k = 0; k < 3; k++)
            b[k * ci + k] = in->m[p] * inv_total;
        st_jbuilder_add(jb, 0, in->ms, p, b);
    }
}


#define COM_MAX_INPUTS 16

/* Head of both classes' instances. */
typedef struct com_multi {
    map_head h;                     /* h.input: the first input */
    /* Set at init. */
    com_input ins[COM_MAX_INPUTS];
    size_t nins;
    double total;                   /* M */
    bool masses_read;
} com_multi;

static void com_multi_free(com_multi *c)
{
    for (size_t k = 0; k < COM_MAX_INPUTS; k++)
        com_input_free(&c->ins[k]);
    c->nins = 0;
    c->masses_read = false;
    c->total = 0.0;
}

static void com_multi_read(com_multi *c)
{
    c->masses_read = true;
    c->total = 0.0;
    for (size_t k = 0; k < c->nins; k++)
        c->total += com_read_masses(&c->ins[k]);
    if (c->total == 0.0)
        st_component_warn(&c->h.base, "the masses of the inputs sum to 0: no centre of mass, the "
                                      "output is not mapped");
}

static bool com_multi_ready(com_multi *c)
{
    if (c->h.base.state != ST_CSTATE_VALID || !c->h.out || c->h.out->n == 0)
        return false;
    for (size_t k = 0; k < c->nins; k++)
        if (c->ins[k].ms->n != c->ins[k].n)
            return false;
    if (!c->masses_read) {
        for (size_t k = 0; k < c->nins; k++)
            if (c->ins[k].mass->state != ST_CSTATE_VALID)
                return false;
        com_multi_read(c);
    }
    return c->total != 0.0;
}

/* out[0..2] = sum_k sum_p m_kp src_kp / M, the inputs' items read by
 * slice(k) (coordinates or derivatives). */
static void com_multi_point(const com_multi *c, const double *const *src, bool coord, double *out)
{
    double s[3] = {0, 0, 0};
    for (size_t k = 0; k < c->nins; k++) {
        const st_state_type *t = c->ins[k].ms->type;
        com_weighted_sum(&c->ins[k], src[k], coord ? t->coord_size : t->deriv_size, s);
    }
    for (int k = 0; k < 3; k++)
        out[k] = s[k] / c->total;
}

static void com_multi_apply_vec(com_multi *c, double *vec, bool coord)
{
    const double *src[COM_MAX_INPUTS] = {0};
    for (size_t k = 0; k < c->nins; k++)
        src[k] = coord ? st_slice_x(vec, c->ins[k].ms) : st_slice(vec, c->ins[k].ms);
    double *out = coord ? st_slice_x(vec, c->h.out) : st_slice(vec, c->h.out);
    com_multi_point(c, src, coord, out);
    if (!coord && c->h.out->type->rigid)
        out[3] = out[4] = out[5] = 0.0;
}

static void com_multi_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    if (com_multi_ready((com_multi *)self))
        com_multi_apply_vec((com_multi *)self, x, true);
}

static void com_multi_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    if (com_multi_ready((com_multi *)self))
        com_multi_apply_vec((com_multi *)self, v, false);
}

static void com_multi_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    com_multi *c = (com_multi *)self;
    if (!com_multi_ready(c))
        return;
    const double *fo = st_slice(f, c->h.out);
    const double g[3] = {fo[0] / c->total, fo[1] / c->total, fo[2] / c->total};
    for (size_t k = 0; k < c->nins; k++)
        com_spread(&c->ins[k], st_slice(f, c->ins[k].ms), c->ins[k].ms->type->deriv_size, g);
}

static void com_multi_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    com_multi *c = (com_multi *)self;
    if (!com_multi_ready(c))
        return;
    for (size_t k = 0; k < c->nins; k++)
        com_add_j(jb, c->h.out, &c->ins[k], 1.0 / c->total);
}

static size_t com_multi_inputs(const st_component *self, st_mstate **out, size_t max)
{
    const com_multi *c = (const com_multi *)self;
    for (size_t k = 0; k < c->nins && k < max; k++)
        out[k] = c->ins[k].ms;
    return c->nins;
}

static void com_multi_cleanup(st_component *self)
{
    com_multi_free((com_multi *)self);
    map_head_release(&((com_multi *)self)->h);
}

/* The end of both inits, the inputs in c->ins[0..nins) and the head bound
 * (map_head_bind with h.input the first input): checks the output is a
 * MechanicalObject, sizes it to one point and, when every
 * mass is ready, maps the positions and velocities (and with
 * applyRestPosition the rest positions) as SOFA's MultiMapping::init. */
static st_status com_multi_finish_init(com_multi *c, st_error *err)
{
    st_component *self = &c->h.base;
    if (c->h.visual)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "%s maps into a MechanicalObject, not a visual model",
                                  self->cls->name);
    for (size_t k = 0; k < c->nins; k++)
        ST_TRY(com_input_bind(self, &c->ins[k], err));
    st_mstate *out = c->h.out;
    if (out->position.n != 1)
        ST_TRY(map_resize_output(out, 1, err));
    self->state = ST_CSTATE_VALID;
    if (!com_multi_ready(c))
        return ST_OK;
    const double *src[COM_MAX_INPUTS] = {0};
    for (size_t k = 0; k < c->nins; k++)
        src[k] = c->ins[k].ms->position.r;
    com_multi_point(c, src, true, out->position.r);
    bool have_v = out->velocity.n == 1;
    for (size_t k = 0; k < c->nins; k++) {
        have_v = have_v && c->ins[k].ms->velocity.n == c->ins[k].n;
        src[k] = c->ins[k].ms->velocity.r;
    }
    if (have_v) {
        com_multi_point(c, src, false, out->velocity.r);
        if (out->type->rigid)
            out->velocity.r[3] = out->velocity.r[4] = out->velocity.r[5] = 0.0;
    }
    if (c->h.apply_rest_position && out->rest_position.n == 1) {
        bool have_r = true;
        for (size_t k = 0; k < c->nins; k++) {
            have_r = have_r && c->ins[k].ms->rest_position.n == c->ins[k].n;
            src[k] = c->ins[k].ms->rest_position.r;
        }
        if (have_r)
            com_multi_point(c, src, true, out->rest_position.r);
    }
    return ST_OK;
}

static const st_mapping_ops com_multi_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = com_multi_apply,
    .apply_j = com_multi_apply_j,
    .apply_jt = com_multi_apply_jt,
    .get_j = com_multi_get_j,
    .flags = map_head_flags,
    .inputs = com_multi_inputs,
};

#endif
