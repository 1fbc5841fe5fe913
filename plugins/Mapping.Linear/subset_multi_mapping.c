/* subset_multi_mapping.c - SubsetMultiMapping: output point i is point
 * indexPairs[2i+1] of input indexPairs[2i]; the inputs are a list of links
 * ("input: ["@../a", "@../b"]", or in a .scn one attribute "@../a @../b"),
 * all of the output's type, or Rigid3d inputs for a Vec3d output (SOFA's
 * SubsetMultiMapping<Rigid3, Vec3>: the frames' centres, linear velocities
 * and forces; template "Rigid3,Vec3"). A multi-mapping:
 * it names its inputs through st_mapping_ops.inputs and each Jacobian block's
 * input state through st_jbuilder_add_diag. */
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"

#define MAX_INPUTS 16

typedef struct subset_multi_mapping {
    map_head h;                 /* h.input unused: the inputs are "input" below */
    st_array input_paths;       /* "input": links to the input states */
    st_array index_pairs;       /* "indexPairs": (input, point) per output point */
    /* Set at init. */
    st_mstate *ins[MAX_INPUTS];
    size_t nins, n;
} subset_multi_mapping;

static const st_field smm_fields[] = {
    ST_FIELD_EX(subset_multi_mapping, input_paths, "input", ST_T_STRINGS, st_array, NULL,
                "Input Object(s): a list of links (\"@../a\", \"@../b\")", ST_F_REQUIRED | ST_F_NOLINK,
                NULL, 0.0, 0.0),
    MAP_OUTPUT_FIELDS(subset_multi_mapping),
    ST_UINTS(subset_multi_mapping, index_pairs, "indexPairs", "",
             "list of couples (parent index + index in the parent)"),
    ST_FIELD_END};

static st_status smm_init(st_component *self, st_error *err)
{
    subset_multi_mapping *m = (subset_multi_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    m->nins = 0;
    ST_TRY(map_resolve_inputs(self, &m->input_paths, m->ins, MAX_INPUTS, &m->nins, err));
    m->h.input = &m->ins[0]->base;
    ST_TRY(map_head_bind(&m->h, NULL, NULL, err));
    for (size_t k = 0; k < m->nins; k++) {
        const st_state_type *ti = m->ins[k]->type, *to = m->h.out->type;
        bool rigid_to_vec = !strcmp(ti->name, "Rigid3d") && !strcmp(to->name, "Vec3d");
        if (ti != to && !rigid_to_vec)
            return st_component_error(self, "input", err, ST_ESCENE,
                                      "input '%s' is %s, the output '%s' %s: a SubsetMultiMapping "
                                      "maps states of one type, or Rigid3d inputs to a Vec3d "
                                      "output",
                                      m->ins[k]->base.name, ti->name, m->h.out->base.name,
                                      to->name);
        if (ti != m->ins[0]->type)
            return st_component_error(self, "input", err, ST_ESCENE,
                                      "inputs '%s' (%s) and '%s' (%s) differ: the inputs of a "
                                      "SubsetMultiMapping have one type",
                                      m->ins[0]->base.name, m->ins[0]->type->name,
                                      m->ins[k]->base.name, ti->name);
    }
    if (m->index_pairs.n % 2)
        return st_component_error(self, "indexPairs", err, ST_ESCENE,
                                  "indexPairs holds pairs (input, point): %zu values",
                                  m->index_pairs.n);
    m->n = m->index_pairs.n / 2;
    for (size_t i = 0; i < m->n; i++) {
        unsigned s = m->index_pairs.u[2 * i], j = m->index_pairs.u[2 * i + 1];
        if (s >= m->nins || j >= m->ins[s]->position.n)
            return st_component_error(self, "indexPairs", err, ST_ESCENE,
                                      "pair %zu (%u, %u) names no point of the inputs", i, s, j);
    }
    if (m->h.out->position.n != m->n)
        ST_TRY(map_resize_output(m->h.out, m->n, err));
    const unsigned cw = m->h.out->type->coord_size, dw = m->h.out->type->deriv_size;
    const unsigned icw = m->ins[0]->type->coord_size, idw = m->ins[0]->type->deriv_size;
    for (size_t i = 0; i < m->n; i++) {
        const st_mstate *in = m->ins[m->index_pairs.u[2 * i]];
        size_t j = m->index_pairs.u[2 * i + 1];
        memcpy(m->h.out->position.r + cw * i, in->position.r + icw * j, cw * sizeof(double));
        if (in->velocity.n == in->position.n)
            memcpy(m->h.out->velocity.r + dw * i, in->velocity.r + idw * j, dw * sizeof(double));
    }
    ST_TRY(map_head_visual_commit(&m->h, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static bool ready(const subset_multi_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n;
}

/* Output point i's input and point, false when indexPairs no longer names
 * one: the list is read live (a link to an engine, NearestPointROI.scn's
 * indexPairs="@np.indexPairs", may shorten it during the run while the
 * output keeps its init size); such points are left unmapped, never read
 * past the list or the input. */
static bool pair_at(const subset_multi_mapping *m, size_t i, const st_mstate **in, size_t *j)
{
    if (2 * i + 1 >= m->index_pairs.n)
        return false;
    unsigned s = m->index_pairs.u[2 * i];
    *j = m->index_pairs.u[2 * i + 1];
    if (s >= m->nins || *j >= m->ins[s]->n)
        return false;
    *in = m->ins[s];
    return true;
}

/* x_out[i] = x_in(i) (coordinates) or the same on a derivative vector; a
 * Rigid3d input gives its first three values (centre, linear part). A
 * visual output reads the inputs' own positions (their slices of their
 * systems' x after the step: the inputs may lie in several systems). */
static void copy_points(subset_multi_mapping *m, double *vec, bool coord)
{
    const unsigned w = coord ? m->h.out->type->coord_size : m->h.out->type->deriv_size;
    const unsigned iw = coord ? m->ins[0]->type->coord_size : m->ins[0]->type->deriv_size;
    double *out = coord ? map_head_xout(&m->h, vec) : st_slice(vec, m->h.out);
    if (!out)
        return;
    for (size_t i = 0; i < m->n; i++) {
        const st_mstate *in;
        size_t j;
        if (!pair_at(m, i, &in, &j))
            continue;
        const double *src = coord && m->h.visual ? in->position.r
                            : coord     ? st_slice_x(vec, in)
                                        : st_slice(vec, in);
        memcpy(out + (size_t)w * i, src + (size_t)iw * j, w * sizeof(double));
    }
}

static void smm_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    subset_multi_mapping *m = (subset_multi_mapping *)self;
    if (ready(m)) {
        copy_points(m, x, true);
        map_head_touch_visual(&m->h);
    }
}

static void smm_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    if (ready((subset_multi_mapping *)self))
        copy_points((subset_multi_mapping *)self, v, false);
}

static void smm_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    subset_multi_mapping *m = (subset_multi_mapping *)self;
    if (!ready(m))
        return;
    const unsigned w = m->h.out->type->deriv_size, iw = m->ins[0]->type->deriv_size;
    const double *fo = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->n; i++) {
        const st_mstate *in;
        size_t j;
        if (!pair_at(m, i, &in, &j))
            continue;
        double *fi = st_slice(f, in) + (size_t)iw * j;
        for (unsigned k = 0; k < w; k++)
            fi[k] += fo[(size_t)w * i + k];
    }
}

static void smm_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    subset_multi_mapping *m = (subset_multi_mapping *)self;
    if (!ready(m))
        return;
    for (size_t i = 0; i < m->n; i++) {
        const st_mstate *in;
        size_t j;
        if (pair_at(m, i, &in, &j))
            st_jbuilder_add_diag(jb, i, in, j, 1.0);
    }
}

static size_t smm_inputs(const st_component *self, st_mstate **out, size_t max)
{
    const subset_multi_mapping *m = (const subset_multi_mapping *)self;
    for (size_t k = 0; k < m->nins && k < max; k++)
        out[k] = m->ins[k];
    return m->nins;
}

static const st_mapping_ops smm_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = smm_apply,
    .apply_j = smm_apply_j,
    .apply_jt = smm_apply_jt,
    .get_j = smm_get_j,
    .flags = map_head_flags,
    .inputs = smm_inputs,
};

const st_class subset_multi_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "SubsetMultiMapping",
    .category = "Mapping",
    .description = "Compute a subset of the input MechanicalObjects according to a dof index "
                   "list",
    .instance_size = sizeof(subset_multi_mapping),
    .fields = smm_fields,
    .init = smm_init,
    .reinit = smm_init,
    .cleanup = map_head_cleanup,
    .mapping = &smm_ops,
    .templates = st_all_state_types,
};
