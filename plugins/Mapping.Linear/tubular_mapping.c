/* tubular_mapping.c - TubularMapping (Rigid3d to Vec3d): a tube around a
 * chain of frames. Frame i (centre c, rotation R) gets a circle of N =
 * nbPointsOnEachCircle output points in its local y-z plane,
 *   x_{iN+j} = c + r_{iN+j},  r_{iN+j} = rho_i (cos(2 pi j / N) R e_y + sin(2 pi j / N) R e_z),
 * rho_i = radius, attenuated near an end by `peak` as SOFA's: with peak > 0
 * the frames i < peak get rho i / peak, with peak < 0 the last -peak frames
 * get rho (n - 1 - i) / -peak. Its derivative, as RigidMapping's (r at the
 * last apply):
 *   v_{iN+j} = v_i + w_i x r_{iN+j}      J = [ I  -[r]x ]
 *   f_i += f_{iN+j},  torque_i += r_{iN+j} x f_{iN+j}   (J^T)
 * SOFA's applyJT for forces keeps summing the forces and torques of every
 * frame before i into frame i (its accumulators are not reset per frame),
 * which is not the transpose of its applyJ; settee applies the transpose
 * (the same as SOFA's applyJT for constraints). Like SOFA's, a linear
 * mapping: no geometric stiffness. The output may be a visual model. */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"
#include "../shared/topology_link.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct tubular_mapping {
    map_head h;
    unsigned n_circle; /* "nbPointsOnEachCircle" */
    double radius;     /* "radius" */
    int peak;          /* "peak" */
    /* Set at init. */
    size_t nin, n;     /* frames, output points (nin * n_circle) */
    double *rotated;   /* n x 3: r at the last apply */
    bool listening;
    bool told;         /* the size mismatch after a change was said */
} tubular_mapping;

static const st_field tubular_fields[] = {
    MAP_HEAD_FIELDS(tubular_mapping),
    ST_UINT(tubular_mapping, n_circle, "nbPointsOnEachCircle", "0",
            "Discretization of created circles"),
    ST_REAL(tubular_mapping, radius, "radius", "0", "Radius of created circles"),
    ST_INT(tubular_mapping, peak, "peak", "0",
           "=0 no peak, =1 peak on the first segment =2 peak on the two first segment, =-1 peak "
           "on the last segment"),
    ST_FIELD_END};

/* The radius of frame i of nin, attenuated by peak as SOFA's. */
static double frame_radius(const tubular_mapping *m, size_t i, size_t nin)
{
    if (m->peak > 0) {
        if ((long)i < m->peak)
            return (double)i / (double)m->peak * m->radius;
    } else {
        long t = (long)nin - (long)(i + 1);
        if (t < -(long)m->peak)
            return -(double)t / (double)m->peak * m->radius;
    }
    return m->radius;
}

static void apply_points(tubular_mapping *m, const double *xin, double *xout, size_t nin)
{
    const unsigned N = m->n_circle;
    for (size_t i = 0; i < nin; i++) {
        const double *c = xin + 7 * i;
        static const double ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
        double Y[3], Z[3];
        st_quat_rotate(Y, c + 3, ey);
        st_quat_rotate(Z, c + 3, ez);
        double rho = frame_radius(m, i, nin);
        for (unsigned j = 0; j < N; j++) {
            double a = 2.0 * (double)j * M_PI / (double)N, ca = cos(a), sa = sin(a);
            double *r = m->rotated + 3 * (i * N + j), *x = xout + 3 * (i * N + j);
            for (int k = 0; k < 3; k++) {
                r[k] = (Y[k] * ca + Z[k] * sa) * rho;
                x[k] = c[k] + r[k];
            }
        }
    }
}

/* v = v_i + w_i x r. */
static void apply_j_points(const tubular_mapping *m, const double *vin, double *vout)
{
    const unsigned N = m->n_circle;
    for (size_t p = 0; p < m->n; p++) {
        const double *v = vin + 6 * (p / N), *w = v + 3, *r = m->rotated + 3 * p;
        double *o = vout + 3 * p;
        o[0] = v[0] + (w[1] * r[2] - w[2] * r[1]);
        o[1] = v[1] + (w[2] * r[0] - w[0] * r[2]);
        o[2] = v[2] + (w[0] * r[1] - w[1] * r[0]);
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    tubular_mapping *m = (tubular_mapping *)self;
    apply_points(m, xin, xout, m->nin);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    apply_j_points((tubular_mapping *)self, vin, vout);
}

/* A topological change above the mapping (the frames' edges removed, an
 * Edge2QuadTopologicalMapping's tube with them): SOFA's apply sizes the
 * tube from the frames at each step; settee takes the new number of frames
 * after the change, and the tube's state follows its own topology (the
 * mapping's output quads). A tube state that keeps another size is said
 * once, and the mapping then stops acting. */
static st_status tubular_changed(st_component *self, st_component *topology,
                                 const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev;
    tubular_mapping *m = (tubular_mapping *)self;
    if (self->state != ST_CSTATE_VALID || m->h.in->n == m->nin)
        return ST_OK;
    size_t nin = m->h.in->n, n = nin * m->n_circle;
    double *r = st_realloc(m->rotated, (n ? 3 * n : 1) * sizeof *r);
    if (!r)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu points)", n);
    m->rotated = r;
    m->nin = nin;
    m->n = n;
    m->told = false;
    return ST_OK;
}

static st_status tubular_init(st_component *self, st_error *err)
{
    tubular_mapping *m = (tubular_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    st_free(m->rotated);
    m->rotated = NULL;
    if (!st_component_is_set(self, "radius"))
        return st_component_error(self, "radius", err, ST_ESCENE, "No Radius defined");
    ST_TRY(map_head_bind(&m->h, &st_rigid3d_type, &st_vec3d_type, err));
    st_mstate *in = m->h.in, *out = m->h.out;
    m->nin = in->position.n;
    m->n = m->nin * m->n_circle;
    if (m->n_circle == 0)
        st_component_warn(self, "nbPointsOnEachCircle is 0: the tube has no points");
    m->rotated = st_calloc(m->n ? 3 * m->n : 1, sizeof *m->rotated);
    if (!m->rotated)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu points)", m->n);
    if (out->position.n != m->n)
        ST_TRY(map_resize_output(out, m->n, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    if (!m->listening) {
        ST_TRY(st_listen_topologies_above(self, tubular_changed, err));
        m->listening = true;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void tubular_cleanup(st_component *self)
{
    tubular_mapping *m = (tubular_mapping *)self;
    st_free(m->rotated);
    m->rotated = NULL;
    map_head_release(&m->h);
}

static bool ready(const tubular_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->h.in->n == m->nin;
}

static bool ready_mech(const tubular_mapping *m) { return ready(m) && !m->h.visual; }

static void tubular_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    tubular_mapping *m = (tubular_mapping *)self;
    if (!ready(m) && m->h.out && self->state == ST_CSTATE_VALID && !m->told) {
        m->told = true;
        st_component_warn(self, "after a topological change the output '%s' has %zu points, "
                                "%zu frames x %u wanted: its state does not follow the tube's "
                                "topology; the mapping no longer acts",
                          m->h.out->base.name, m->h.out->n, m->nin, m->n_circle);
    }
    double *xout = ready(m) ? map_head_xout(&m->h, x) : NULL;
    if (!xout)
        return;
    apply_points(m, st_slice_x(x, m->h.in), xout, m->nin);
    map_head_touch_visual(&m->h);
}

static void tubular_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    tubular_mapping *m = (tubular_mapping *)self;
    if (ready_mech(m))
        apply_j_points(m, st_slice(v, m->h.in), st_slice(v, m->h.out));
}

static void tubular_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    tubular_mapping *m = (tubular_mapping *)self;
    if (!ready_mech(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    const unsigned N = m->n_circle;
    for (size_t p = 0; p < m->n; p++) {
        double *F = fin + 6 * (p / N), *T = F + 3;
        const double *fi = fout + 3 * p, *r = m->rotated + 3 * p;
        F[0] += fi[0];
        F[1] += fi[1];
        F[2] += fi[2];
        T[0] += r[1] * fi[2] - r[2] * fi[1];
        T[1] += r[2] * fi[0] - r[0] * fi[2];
        T[2] += r[0] * fi[1] - r[1] * fi[0];
    }
}

static void tubular_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    tubular_mapping *m = (tubular_mapping *)self;
    if (!ready_mech(m))
        return;
    for (size_t p = 0; p < m->n; p++) {
        const double *r = m->rotated + 3 * p;
        /* [ I  -[r]x ], 3 x 6 row-major. */
        const double b[18] = {1, 0, 0, 0,     r[2],  -r[1], 0, 1, 0, -r[2], 0,
                              r[0], 0, 0, 1, r[1], -r[0], 0};
        st_jbuilder_add(jb, p, m->h.in, p / m->n_circle, b);
    }
}

static const st_mapping_ops tubular_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = tubular_apply,
    .apply_j = tubular_apply_j,
    .apply_jt = tubular_apply_jt,
    .get_j = tubular_get_j,
    .flags = map_head_flags,
};

static const char *const rigid_only[] = {"Rigid3d", NULL};

const st_class tubular_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "TubularMapping",
    .category = "Mapping",
    .description = "Create a Tube around rigid points",
    .instance_size = sizeof(tubular_mapping),
    .fields = tubular_fields,
    .init = tubular_init,
    .reinit = tubular_init,
    .cleanup = tubular_cleanup,
    .mapping = &tubular_ops,
    .templates = rigid_only,
};
