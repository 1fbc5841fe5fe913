/* beam_linear_mapping.c - BeamLinearMapping (Rigid3d to Vec3d): points along
 * a chain of Rigid3d frames (a beam), each blended between the two frames
 * of its segment. A point's local coordinates p = (s, y, z) say: segment
 * j = floor(s) (clamped to [0, n - 2]), fraction t = s - j along it, and
 * y, z across, all in units of the segment's length L_j = |c_{j+1} - c_j|
 * (the last frame reuses the previous length). With u = (t, y, z):
 *   r0 = L_j R_j u,  r1 = L_j R_{j+1} (u - e_x),  f = 3 t^2 - 2 t^3,
 *   x = (1 - f) (c_j + r0) + f (c_{j+1} + r1),
 *   v = (1 - f) (v_j + w_j x r0) + f (v_{j+1} + w_{j+1} x r1),
 * and J^T its transpose (force and torque to both frames). The local
 * coordinates are the output's positions at init, taken as local
 * (localCoord, the default) or, else, found from the global positions as
 * SOFA does (in the first frame, the distance along x walked over the
 * segment lengths). SOFA's linear mapping: no geometric stiffness. The
 * output may be a visual model. */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "beam_linear_mapping.h"

static const st_field beam_fields[] = {
    MAP_HEAD_FIELDS(beam_mapping),
    ST_BOOL(beam_mapping, local_coord, "localCoord", "true",
            "true if initial coordinates are in the beam local coordinate system (i.e. a point "
            "at (10,0,0) is on the DOF number 10, whereas if this is false it is at whatever "
            "position on the beam where the distance from the initial DOF is 10)"),
    ST_FIELD_END};

/* Segment, fraction and blend of point i. */
static size_t segment(const beam_mapping *m, size_t i, double u[3], double *f)
{
    const double *p = m->points + 3 * i;
    long j = (long)floor(p[0]);
    if (j < 0)
        j = 0;
    else if (j > (long)m->nin - 2)
        j = (long)m->nin - 2;
    u[0] = p[0] - (double)j;
    u[1] = p[1];
    u[2] = p[2];
    *f = 3.0 * u[0] * u[0] - 2.0 * u[0] * u[0] * u[0];
    return (size_t)j;
}

void beam_mapping_apply_range(beam_mapping *m, const double *xin, double *xout, size_t first,
                              size_t end)
{
    for (size_t i = first; i < end; i++) {
        double u[3], f;
        size_t j = segment(m, i, u, &f);
        const double *c0 = xin + 7 * j, *c1 = xin + 7 * (j + 1), L = m->length[j];
        double u1[3] = {u[0] - 1.0, u[1], u[2]}, a[3], b[3];
        st_quat_rotate(a, c0 + 3, u);
        st_quat_rotate(b, c1 + 3, u1);
        double *r0 = m->r0 + 3 * i, *r1 = m->r1 + 3 * i, *o = xout + 3 * i;
        for (int k = 0; k < 3; k++) {
            r0[k] = a[k] * L;
            r1[k] = b[k] * L;
            o[k] = (c0[k] + r0[k]) * (1.0 - f) + (c1[k] + r1[k]) * f;
        }
    }
}

static void cross_add(double *o, const double *w, const double *r, double s)
{
    o[0] += s * (w[1] * r[2] - w[2] * r[1]);
    o[1] += s * (w[2] * r[0] - w[0] * r[2]);
    o[2] += s * (w[0] * r[1] - w[1] * r[0]);
}

/* o = s (w x r), each term as cross_add adds it. */
static void cross_scaled(double *o, const double *w, const double *r, double s)
{
    o[0] = s * (w[1] * r[2] - w[2] * r[1]);
    o[1] = s * (w[2] * r[0] - w[0] * r[2]);
    o[2] = s * (w[0] * r[1] - w[1] * r[0]);
}

void beam_mapping_apply_j_range(const beam_mapping *m, const double *vin, double *vout, size_t b,
                                size_t e)
{
    for (size_t i = b; i < e; i++) {
        double u[3], f;
        size_t j = segment(m, i, u, &f);
        const double *v0 = vin + 6 * j, *v1 = vin + 6 * (j + 1);
        double *o = vout + 3 * i;
        for (int k = 0; k < 3; k++)
            o[k] = v0[k] * (1.0 - f) + v1[k] * f;
        cross_add(o, v0 + 3, m->r0 + 3 * i, 1.0 - f); /* w x r */
        cross_add(o, v1 + 3, m->r1 + 3 * i, f);
    }
}

size_t beam_mapping_jt_point(const beam_mapping *m, size_t i, const double *fi, double g[12])
{
    double u[3], s;
    size_t j = segment(m, i, u, &s);
    for (int k = 0; k < 3; k++) {
        g[k] = fi[k] * (1.0 - s);
        g[6 + k] = fi[k] * s;
    }
    cross_scaled(g + 3, m->r0 + 3 * i, fi, 1.0 - s); /* r x f */
    cross_scaled(g + 9, m->r1 + 3 * i, fi, s);
    return j;
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    beam_mapping *m = (beam_mapping *)self;
    beam_mapping_apply_range(m, xin, xout, 0, m->n);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    beam_mapping *m = (beam_mapping *)self;
    beam_mapping_apply_j_range(m, vin, vout, 0, m->n);
}

static void beam_free(beam_mapping *m)
{
    st_free(m->points);
    st_free(m->length);
    st_free(m->r0);
    st_free(m->r1);
    m->points = m->length = m->r0 = m->r1 = NULL;
}

static st_status beam_init(st_component *self, st_error *err)
{
    beam_mapping *m = (beam_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    beam_free(m);
    ST_TRY(map_head_bind(&m->h, &st_rigid3d_type, &st_vec3d_type, err));
    st_mstate *in = m->h.in, *out = m->h.out;
    size_t nin = in->position.n, n = out->position.n;
    if (nin < 2)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "BeamLinearMapping needs at least two frames; '%s' has %zu",
                                  in->base.name, nin);
    m->points = st_calloc(n ? 3 * n : 1, sizeof *m->points);
    m->length = st_calloc(nin, sizeof *m->length);
    m->r0 = st_calloc(n ? 3 * n : 1, sizeof *m->r0);
    m->r1 = st_calloc(n ? 3 * n : 1, sizeof *m->r1);
    if (!m->points || !m->length || !m->r0 || !m->r1) {
        beam_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory initialising a BeamLinearMapping");
    }
    const double *xf = in->position.r;
    for (size_t i = 0; i + 1 < nin; i++) {
        const double *a = xf + 7 * i, *b = xf + 7 * (i + 1);
        double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
        m->length[i] = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    m->length[nin - 1] = m->length[nin - 2];
    for (size_t i = 0; i < nin; i++)
        if (!(m->length[i] > 0.0))
            return st_component_error(self, "input", err, ST_ESCENE,
                                      "frames %zu and %zu of '%s' are at the same place: a "
                                      "segment of length 0",
                                      i, i + 1, in->base.name);
    for (size_t i = 0; i < n; i++) {
        const double *x = out->position.r + 3 * i;
        double *p = m->points + 3 * i;
        if (m->local_coord) {
            memcpy(p, x, 3 * sizeof *p);
            continue;
        }
        /* SOFA: in the first frame, then walk the segment lengths. */
        const double d[3] = {x[0] - xf[0], x[1] - xf[1], x[2] - xf[2]};
        const double qi[4] = {-xf[3], -xf[4], -xf[5], xf[6]};
        st_quat_rotate(p, qi, d);
        size_t j = 0;
        while (j < nin && p[0] >= m->length[j]) {
            p[0] -= m->length[j];
            ++j;
        }
        if (j >= nin)
            j = nin - 1;
        for (int k = 0; k < 3; k++)
            p[k] /= m->length[j];
        p[0] += (double)j;
    }
    m->nin = nin;
    m->n = n;
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void beam_cleanup(st_component *self)
{
    beam_free((beam_mapping *)self);
    map_head_release(&((beam_mapping *)self)->h);
}

bool beam_mapping_ready(const beam_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->h.in->n == m->nin;
}

bool beam_mapping_ready_mech(const beam_mapping *m) { return beam_mapping_ready(m) && !m->h.visual; }

static void beam_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    beam_mapping *m = (beam_mapping *)self;
    double *xout = beam_mapping_ready(m) ? map_head_xout(&m->h, x) : NULL;
    if (!xout)
        return;
    beam_mapping_apply_range(m, st_slice_x(x, m->h.in), xout, 0, m->n);
    map_head_touch_visual(&m->h);
}

static void beam_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    beam_mapping *m = (beam_mapping *)self;
    if (beam_mapping_ready_mech(m))
        beam_mapping_apply_j_range(m, st_slice(v, m->h.in), st_slice(v, m->h.out), 0, m->n);
}

static void beam_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    beam_mapping *m = (beam_mapping *)self;
    if (!beam_mapping_ready_mech(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->n; i++) {
        double g[12];
        size_t j = beam_mapping_jt_point(m, i, fout + 3 * i, g);
        double *F0 = fin + 6 * j;
        for (int k = 0; k < 12; k++)
            F0[k] += g[k]; /* frames j and j + 1 */
    }
}

/* (1 - f) or f times [ I  -[r]x ] (3 x 6, row-major). */
static void block(double b[18], const double *r, double w)
{
    const double t[18] = {1, 0, 0, 0,    r[2], -r[1], 0, 1, 0, -r[2], 0,
                          r[0], 0, 0, 1, r[1], -r[0], 0};
    for (int k = 0; k < 18; k++)
        b[k] = w * t[k];
}

static void beam_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    beam_mapping *m = (beam_mapping *)self;
    if (!beam_mapping_ready_mech(m))
        return;
    for (size_t i = 0; i < m->n; i++) {
        double u[3], f, b[18];
        size_t j = segment(m, i, u, &f);
        block(b, m->r0 + 3 * i, 1.0 - f);
        st_jbuilder_add(jb, i, m->h.in, j, b);
        block(b, m->r1 + 3 * i, f);
        st_jbuilder_add(jb, i, m->h.in, j + 1, b);
    }
}

static const st_mapping_ops beam_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = beam_apply,
    .apply_j = beam_apply_j,
    .apply_jt = beam_apply_jt,
    .get_j = beam_get_j,
    .flags = map_head_flags,
};

static const char *const rigid_only[] = {"Rigid3d", NULL};

const st_class beam_linear_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "BeamLinearMapping",
    .category = "Mapping",
    .description = "Set the positions and velocities of points attached to a beam using linear "
                   "interpolation between DOFs",
    .instance_size = sizeof(beam_mapping),
    .fields = beam_fields,
    .init = beam_init,
    .reinit = beam_init,
    .cleanup = beam_cleanup,
    .mapping = &beam_ops,
    .templates = rigid_only,
};
