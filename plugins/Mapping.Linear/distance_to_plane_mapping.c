/* distance_to_plane_mapping.c - DistanceToPlaneMapping (Vec3d, Vec2d or
 * Rigid3d to Vec1d): output i is the signed distance of input point i
 * (a Rigid3d's centre) to the plane through planePoint with normal n,
 *   y_i = p_i . n - planePoint . n,   J_i = n^T (a Rigid3d's rotation: 0),
 * n = planeNormal normalised at init (SOFA stores it normalised back into
 * the field); a null normal is SOFA's error. Linear: no geometric
 * stiffness. The output has as many points as the input. */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"

typedef struct plane_map {
    map_head h;
    st_array normal; /* "planeNormal": spatial dimension values */
    st_array point;  /* "planePoint": spatial dimension values */
    /* Set at init. */
    unsigned dim, cw, dw; /* spatial dimension, input coordinate and derivative sizes */
    size_t n;
} plane_map;

static const st_field plane_fields[] = {
    MAP_HEAD_FIELDS(plane_map),
    ST_REALS(plane_map, normal, "planeNormal", NULL,
             "Normal of the plane to compute the distance to (normalised at init)"),
    ST_REALS(plane_map, point, "planePoint", NULL, "A point belonging to the plane"),
    ST_FIELD_END};

static double plane_offset(const plane_map *m)
{
    double d = 0.0;
    for (unsigned k = 0; k < m->dim && k < m->point.n; k++)
        d += m->point.r[k] * m->normal.r[k];
    return d;
}

static void plane_apply_x(const plane_map *m, const double *xin, double *xout)
{
    const double off = plane_offset(m), *nrm = m->normal.r;
    for (size_t i = 0; i < m->n; i++) {
        const double *p = xin + (size_t)m->cw * i;
        double s = 0.0;
        for (unsigned k = 0; k < m->dim; k++)
            s += p[k] * nrm[k];
        xout[i] = s - off;
    }
}

static void plane_apply_v(const plane_map *m, const double *vin, double *vout)
{
    const double *nrm = m->normal.r;
    for (size_t i = 0; i < m->n; i++) {
        const double *v = vin + (size_t)m->dw * i;
        double s = 0.0;
        for (unsigned k = 0; k < m->dim; k++)
            s += v[k] * nrm[k];
        vout[i] = s;
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    plane_apply_x((plane_map *)self, xin, xout);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    plane_apply_v((plane_map *)self, vin, vout);
}

static st_status plane_init(st_component *self, st_error *err)
{
    plane_map *m = (plane_map *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(map_head_bind(&m->h, NULL, &st_vec1d_type, err));
    const st_state_type *t = m->h.in->type;
    if (t != &st_vec3d_type && t != &st_vec2d_type && t != &st_rigid3d_type)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "DistanceToPlaneMapping maps Vec3d, Vec2d or Rigid3d points; "
                                  "'%s' is %s",
                                  m->h.in->base.name, t->name);
    m->dim = t == &st_vec2d_type ? 2 : 3;
    m->cw = t->coord_size;
    m->dw = t->deriv_size;
    if (m->normal.n != m->dim)
        return st_component_error(self, "planeNormal", err, ST_EINVAL,
                                  "planeNormal needs %u values for a %s input, got %zu", m->dim,
                                  t->name, m->normal.n);
    if (m->point.n != 0 && m->point.n != m->dim)
        return st_component_error(self, "planePoint", err, ST_EINVAL,
                                  "planePoint needs %u values for a %s input, got %zu", m->dim,
                                  t->name, m->point.n);
    double l = 0.0;
    for (unsigned k = 0; k < m->dim; k++)
        l += m->normal.r[k] * m->normal.r[k];
    l = sqrt(l);
    if (l < 2.220446049250313e-16)
        return st_component_error(self, "planeNormal", err, ST_EINVAL,
                                  "planeNormal data has null norm.");
    for (unsigned k = 0; k < m->dim; k++)
        m->normal.r[k] /= l;
    st_component_touch(self, st_component_field(self, "planeNormal"));
    m->n = m->h.in->position.n;
    if (m->h.out->position.n != m->n)
        ST_TRY(map_resize_output(m->h.out, m->n, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static bool ready(const plane_map *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->h.in->n == m->n;
}

static void plane_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    plane_map *m = (plane_map *)self;
    if (ready(m))
        plane_apply_x(m, st_slice_x(x, m->h.in), st_slice_x(x, m->h.out));
}

static void plane_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    plane_map *m = (plane_map *)self;
    if (ready(m))
        plane_apply_v(m, st_slice(v, m->h.in), st_slice(v, m->h.out));
}

static void plane_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    plane_map *m = (plane_map *)self;
    if (!ready(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out), *nrm = m->normal.r;
    for (size_t i = 0; i < m->n; i++)
        for (unsigned k = 0; k < m->dim; k++)
            fin[(size_t)m->dw * i + k] += nrm[k] * fout[i];
}

static void plane_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    plane_map *m = (plane_map *)self;
    if (!ready(m))
        return;
    double row[6] = {0};
    memcpy(row, m->normal.r, m->dim * sizeof *row);
    for (size_t i = 0; i < m->n; i++)
        st_jbuilder_add(jb, i, m->h.in, i, row);
}

static const st_mapping_ops plane_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = plane_apply,
    .apply_j = plane_apply_j,
    .apply_jt = plane_apply_jt,
    .get_j = plane_get_j,
    .flags = map_head_flags,
};

static const char *const plane_templates[] = {"Vec3d", "Vec2d", "Rigid3d", NULL};

const st_class distance_to_plane_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "DistanceToPlaneMapping",
    .category = "Mapping",
    .description = "Mapping that computes the distance to a plane",
    .instance_size = sizeof(plane_map),
    .fields = plane_fields,
    .init = plane_init,
    .reinit = plane_init,
    .cleanup = map_head_cleanup,
    .mapping = &plane_ops,
    .templates = plane_templates,
};
