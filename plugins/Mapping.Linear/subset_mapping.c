/* subset_mapping.c - SubsetMapping: output point i is input point
 * indices[i]. The indices come from `indices`, else from `first`..`last`,
 * else from matching the output's points to the input's within `radius`
 * (the closest input point); a point without a match keeps its rest
 * position and a zero Jacobian row (SOFA's "fixed point"). Any state type
 * (input and output of the same type). */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"

#define NONE 4294967295u /* SOFA's InvalidID */

typedef struct subset_mapping {
    map_head h;
    st_array indices;          /* "indices" */
    unsigned first, last;      /* "first", "last" */
    double radius;             /* "radius" */
    bool handle_topology_change, ignore_not_found, resize_to_model;
    st_component *topology;    /* "topology" (kept) */
} subset_mapping;

static const st_field subset_fields[] = {
    MAP_HEAD_FIELDS(subset_mapping),
    ST_UINTS(subset_mapping, indices, "indices", "", "list of input indices"),
    ST_UINT(subset_mapping, first, "first", "4294967295",
            "first index (use if indices are sequential)"),
    ST_UINT(subset_mapping, last, "last", "4294967295",
            "last index (use if indices are sequential)"),
    ST_REAL(subset_mapping, radius, "radius", "1e-05",
            "search radius to find corresponding points in case no indices are given"),
    ST_IGNORED(subset_mapping, handle_topology_change, "handleTopologyChange", ST_T_BOOL, bool,
               "true",
               "Enable support of topological changes for indices (settee's topologies do not "
               "change)"),
    ST_BOOL(subset_mapping, ignore_not_found, "ignoreNotFound", "false",
            "True to ignore points that are not found in the input model, they will be treated "
            "as fixed points"),
    ST_BOOL(subset_mapping, resize_to_model, "resizeToModel", "false",
            "True to resize the output MechanicalState to match the size of indices"),
    ST_LINK(subset_mapping, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container"),
    ST_FIELD_END};

/* Squared distance between the spatial parts of two coordinates. */
static double dist2(const double *a, const double *b, unsigned dim)
{
    double s = 0.0;
    for (unsigned k = 0; k < dim; k++)
        s += (a[k] - b[k]) * (a[k] - b[k]);
    return s;
}

static st_status find_indices(subset_mapping *m, st_error *err)
{
    st_component *self = &m->h.base;
    const st_mstate *in = m->h.in, *out = m->h.out;
    size_t nin = in->position.n;
    if (m->indices.n == 0 && m->first != NONE) {
        size_t first = m->first >= nin ? 0 : m->first;
        size_t last = m->last >= nin ? nin - 1 : m->last;
        size_t n = last >= first ? last - first + 1 : 0;
        ST_TRY(st_array_resize(&m->indices, ST_T_UINTS, n, err));
        for (size_t i = 0; i < n; i++)
            m->indices.u[i] = (unsigned)(first + i);
        return ST_OK;
    }
    if (m->indices.n == 0) {
        /* The closest input point within radius, for each output point. */
        size_t nout = out->position.n;
        unsigned cw = in->type->coord_size, dim = in->type->spatial_size;
        ST_TRY(st_array_resize(&m->indices, ST_T_UINTS, nout, err));
        for (size_t i = 0; i < nout; i++) {
            double rmax = m->radius;
            unsigned found = NONE;
            for (size_t j = 0; j < nin; j++) {
                double r = sqrt(dist2(out->position.r + cw * i, in->position.r + cw * j, dim));
                if (r < rmax) {
                    found = (unsigned)j;
                    rmax = r;
                }
            }
            m->indices.u[i] = found;
            if (found == NONE) {
                if (!m->ignore_not_found)
                    st_component_warn(self, "Point %zu not found in input model within a radius "
                                            "of %g.",
                                      i, m->radius);
            }
        }
        return ST_OK;
    }
    if (!m->ignore_not_found) {
        size_t w = 0;
        for (size_t i = 0; i < m->indices.n; i++) {
            if (m->indices.u[i] >= nin) {
                st_component_warn(self, "incorrect index %u (input size %zu)", m->indices.u[i],
                                  nin);
                continue;
            }
            m->indices.u[w++] = m->indices.u[i];
        }
        m->indices.n = w;
    }
    return ST_OK;
}

/* x_out[i] = x_in[indices[i]]; an unmatched point keeps out0[i]. */
static void copy_points(const subset_mapping *m, const double *in, double *out, const double *out0,
                        unsigned w, size_t nin)
{
    for (size_t i = 0; i < m->indices.n && i < m->h.out->position.n; i++) {
        unsigned j = m->indices.u[i];
        if (j < nin)
            memcpy(out + (size_t)w * i, in + (size_t)w * j, w * sizeof(double));
        else if (out0)
            memcpy(out + (size_t)w * i, out0 + (size_t)w * i, w * sizeof(double));
        else
            memset(out + (size_t)w * i, 0, w * sizeof(double));
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    subset_mapping *m = (subset_mapping *)self;
    copy_points(m, xin, xout, m->h.out->rest_position.r, m->h.in->type->coord_size,
                m->h.in->position.n);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    subset_mapping *m = (subset_mapping *)self;
    copy_points(m, vin, vout, NULL, m->h.in->type->deriv_size, m->h.in->position.n);
}

static st_status subset_init(st_component *self, st_error *err)
{
    subset_mapping *m = (subset_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    m->h.visual_velocity = true; /* MappedObjects: apply_j writes through map_head_vout */
    ST_TRY(map_head_bind(&m->h, NULL, NULL, err));
    if (m->h.out->type != m->h.in->type)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "a SubsetMapping maps a state to one of the same type: input "
                                  "'%s' is %s, output '%s' is %s",
                                  m->h.in->base.name, m->h.in->type->name, m->h.out->base.name,
                                  m->h.out->type->name);
    ST_TRY(find_indices(m, err));
    /* SOFA resizes the output to the indices after init. */
    if (m->h.out->position.n != m->indices.n)
        ST_TRY(map_resize_output(m->h.out, m->indices.n, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static bool ready(const subset_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->indices.n;
}

/* ready() for the mechanical operations (never called on a visual output). */
static bool ready_mech(const subset_mapping *m) { return ready(m) && !m->h.visual; }

static void subset_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    subset_mapping *m = (subset_mapping *)self;
    double *xout = ready(m) ? map_head_xout(&m->h, x) : NULL;
    if (!xout)
        return;
    copy_points(m, st_slice_x(x, m->h.in), xout, m->h.out->rest_position.r,
                m->h.in->type->coord_size, m->h.in->n);
    map_head_touch_visual(&m->h);
}

static void subset_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    subset_mapping *m = (subset_mapping *)self;
    double *vout = ready(m) ? map_head_vout(&m->h, v) : NULL;
    if (vout) /* the output's slice, or a MappedObject's velocities */
        copy_points(m, st_slice(v, m->h.in), vout, NULL, m->h.in->type->deriv_size,
                    m->h.in->n);
}

static void subset_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    subset_mapping *m = (subset_mapping *)self;
    if (!ready_mech(m))
        return;
    unsigned w = m->h.in->type->deriv_size;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->indices.n; i++) {
        unsigned j = m->indices.u[i];
        if (j >= m->h.in->n)
            continue;
        for (unsigned k = 0; k < w; k++)
            fin[(size_t)w * j + k] += fout[(size_t)w * i + k];
    }
}

static void subset_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    subset_mapping *m = (subset_mapping *)self;
    if (!ready_mech(m))
        return;
    for (size_t i = 0; i < m->indices.n; i++)
        if (m->indices.u[i] < m->h.in->n)
            st_jbuilder_add_diag(jb, i, m->h.in, m->indices.u[i], 1.0);
}

static const st_mapping_ops subset_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = subset_apply,
    .apply_j = subset_apply_j,
    .apply_jt = subset_apply_jt,
    .get_j = subset_get_j,
    .flags = map_head_flags,
};

const st_class subset_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "SubsetMapping",
    .category = "Mapping",
    .description = "Compute a subset of input points",
    .instance_size = sizeof(subset_mapping),
    .fields = subset_fields,
    .init = subset_init,
    .reinit = subset_init,
    .cleanup = map_head_cleanup,
    .mapping = &subset_ops,
    .templates = st_all_state_types,
};
