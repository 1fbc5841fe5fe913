/* rigid_mapping.c - RigidMapping (Rigid3d to Vec3d, Rigid3d to Rigid3d,
 * and Rigid2d to Vec2d): each output point is fixed in the frame of one rigid body,
 * x_i = c + R p_i with p_i its local coordinates ("initialPoints"; by
 * default the output's positions at init, taken as local unless
 * globalToLocalCoords). With r_i = R p_i:
 *   v_i = v + w x r_i               J_i = [ I  -[r_i]x ]
 *   f += f_i, torque += r_i x f_i   (J^T)
 * A Rigid3d output point is a local frame (p_i, s_i) carried the same way:
 * its orientation is q s_i, its angular velocity w (J_i = [ I -[r_i]x ; 0 I ]),
 * and its torque adds to the rigid's (torque += t_i + r_i x f_i); its local
 * frame is seven numbers of initialPoints (centre, quaternion), by default
 * the output's position at init (with globalToLocalCoords,
 * (R^T (x_i - c), q^-1 q_i)).
 * and the geometric stiffness (SOFA's updateK), on the rotation block of
 * each rigid: K = sum_i [f_i]x [r_i]x ("Exact"), or its symmetric part
 * projected onto the negative semi-definite matrices ("Stabilized").
 *
 * Rigid2d to Vec2d (SOFA's RigidMapping<Rigid2, Vec2>): the frame is
 * (c, theta), r_i = R(theta) p_i, v_i = v + w (-r_i.y, r_i.x),
 * torque += r_i.x f_i.y - r_i.y f_i.x; SOFA has no geometric stiffness
 * there (its updateK is empty), so geometricStiffness is refused. */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"
#include "../shared/options.h"
#include "../shared/sym3_eigen.h"

typedef struct rigid_mapping {
    map_head h;
    st_array points;          /* "initialPoints": local coordinates, ow reals per point */
    unsigned index;           /* "index" */
    bool index_from_end;      /* "indexFromEnd" */
    st_array rigid_index;     /* "rigidIndexPerPoint" */
    bool global_to_local;     /* "globalToLocalCoords" */
    bool use_x0;              /* "useX0" */
    char *filename;           /* "filename": refused */
    char *geometric_stiffness; /* "geometricStiffness": None, Exact, Stabilized */
    /* Set at init. */
    int gs;                   /* 0 None, 1 Exact, 2 Stabilized */
    size_t n;                 /* output points */
    double *rotated;          /* n x 3: r_i = R p_i at the last apply */
    bool rigid_out;           /* the output is Rigid3d */
    bool plane;               /* Rigid2d input, Vec2d output */
    unsigned ow, odw;         /* output coordinate and derivative widths (3 3 or 7 6) */
    double *k;                /* input points x 9: rotation blocks of K (update_k) */
    unsigned char *k_used;    /* input points: the block is non-zero */
    size_t nin;
} rigid_mapping;

static const st_field rigid_fields[] = {
    MAP_HEAD_FIELDS(rigid_mapping),
    ST_REALS(rigid_mapping, points, "initialPoints", "",
             "Local Coordinates of the points (x y z per point for a Vec3d output; x y z and "
             "the quaternion x y z w for a Rigid3d output)"),
    ST_UINT(rigid_mapping, index, "index", "0", "input DOF index"),
    ST_BOOL(rigid_mapping, index_from_end, "indexFromEnd", "false",
            "input DOF index starts from the end of input DOFs vector"),
    ST_UINTS(rigid_mapping, rigid_index, "rigidIndexPerPoint", "",
             "For each mapped point, the index of the Rigid it is mapped from"),
    ST_BOOL(rigid_mapping, global_to_local, "globalToLocalCoords", "false",
            "are the output DOFs initially expressed in global coordinates"),
    ST_BOOL(rigid_mapping, use_x0, "useX0", "false",
            "Use x0 instead of local copy of initial positions (to support topo changes)"),
    ST_FIELD_EX(rigid_mapping, filename, "filename", ST_T_STRING, char *, "",
                "Xsp file where rigid mapping information can be loaded from (not supported: "
                "an error when set)",
                0, "fileRigidMapping", 0.0, 0.0),
    ST_STRING(rigid_mapping, geometric_stiffness, "geometricStiffness", "None",
              "Method used to compute the geometric stiffness: None, Exact or Stabilized"),
    ST_FIELD_END};

static const char *const gs_names[] = {"None", "Exact", "Stabilized", NULL};
static const st_option_field rigid_options[] = {{"geometricStiffness", gs_names}, {NULL, NULL}};

/* How many local points there are (SOFA's getPoints().size()). */
static size_t point_count(const rigid_mapping *m)
{
    if (m->use_x0)
        return m->h.out ? m->h.out->rest_position.n : 0;
    return m->points.n / (m->ow ? m->ow : 3u);
}

/* SOFA's getRigidIndex: rigidIndexPerPoint when it has one index per local
 * point, else index (from the end with indexFromEnd). */
static size_t rigid_of(const rigid_mapping *m, size_t i, size_t nin)
{
    if (m->rigid_index.n == point_count(m) && m->rigid_index.n)
        return m->rigid_index.u[i];
    return m->index_from_end ? nin - 1 - m->index : m->index;
}

/* The local points, ow scalars each (a rigid output's local frames). */
static const double *local_points(const rigid_mapping *m)
{
    if (m->use_x0)
        return m->h.out->rest_position.r;
    return m->points.r;
}

static void apply_points(rigid_mapping *m, const double *xin, double *xout, size_t nin)
{
    const double *p = local_points(m);
    const unsigned ow = m->ow;
    if (m->plane) {
        for (size_t i = 0; i < m->n; i++) {
            const double *c = xin + 3 * rigid_of(m, i, nin), *pi = p + 2 * i;
            double *r = m->rotated + 3 * i, cs = cos(c[2]), sn = sin(c[2]);
            r[0] = cs * pi[0] - sn * pi[1];
            r[1] = sn * pi[0] + cs * pi[1];
            xout[2 * i] = c[0] + r[0];
            xout[2 * i + 1] = c[1] + r[1];
        }
        return;
    }
    for (size_t i = 0; i < m->n; i++) {
        const double *c = xin + 7 * rigid_of(m, i, nin);
        double *r = m->rotated + 3 * i;
        st_quat_rotate(r, c + 3, p + ow * i);
        for (int a = 0; a < 3; a++)
            xout[ow * i + a] = c[a] + r[a];
        if (m->rigid_out)
            st_quat_mul(xout + ow * i + 3, c + 3, p + ow * i + 3);
    }
}

/* v_i = v + w x r_i (and w_i = w for a rigid output). */
static void apply_j_points(const rigid_mapping *m, const double *vin, double *vout, size_t nin)
{
    const unsigned odw = m->odw;
    if (m->plane) {
        for (size_t i = 0; i < m->n; i++) {
            const double *v = vin + 3 * rigid_of(m, i, nin), *r = m->rotated + 3 * i;
            vout[2 * i] = v[0] - v[2] * r[1];
            vout[2 * i + 1] = v[1] + v[2] * r[0];
        }
        return;
    }
    for (size_t i = 0; i < m->n; i++) {
        const double *v = vin + 6 * rigid_of(m, i, nin), *w = v + 3, *r = m->rotated + 3 * i;
        double *o = vout + odw * i;
        o[0] = v[0] + (w[1] * r[2] - w[2] * r[1]);
        o[1] = v[1] + (w[2] * r[0] - w[0] * r[2]);
        o[2] = v[2] + (w[0] * r[1] - w[1] * r[0]);
        if (m->rigid_out)
            o[3] = w[0], o[4] = w[1], o[5] = w[2];
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    rigid_mapping *m = (rigid_mapping *)self;
    apply_points(m, xin, xout, m->h.in->position.n);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    rigid_mapping *m = (rigid_mapping *)self;
    apply_j_points(m, vin, vout, m->h.in->position.n);
}

static void rigid_free(rigid_mapping *m)
{
    st_free(m->rotated);
    st_free(m->k);
    st_free(m->k_used);
    m->rotated = m->k = NULL;
    m->k_used = NULL;
}

static st_status rigid_init(st_component *self, st_error *err)
{
    rigid_mapping *m = (rigid_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    rigid_free(m);
    ST_TRY(st_options_check(self, rigid_options, err));
    m->gs = strcmp(m->geometric_stiffness, "Exact") == 0        ? 1
            : strcmp(m->geometric_stiffness, "Stabilized") == 0 ? 2
                                                                : 0;
    if (m->filename && m->filename[0])
        return st_component_error(self, "filename", err, ST_EINVAL,
                                  "loading rigid mapping files (.xs3) is not supported");
    m->h.visual_velocity = true; /* MappedObjects: apply_j writes through map_head_vout */
    ST_TRY(map_head_bind(&m->h, NULL, NULL, err));
    st_mstate *in = m->h.in, *out = m->h.out;
    m->plane = in->type == &st_rigid2d_type;
    if (in->type != &st_rigid3d_type && !m->plane)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "RigidMapping maps from a Rigid3d or a Rigid2d input; '%s' is %s",
                                  in->base.name, in->type->name);
    if (m->plane && (out->type != &st_vec2d_type || (m->h.visual && !m->h.mapped_object)))
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "RigidMapping maps a Rigid2d input to a Vec2d output; '%s' is "
                                  "%s",
                                  out->base.name, m->h.visual ? "a visual model" : out->type->name);
    if (m->plane && m->gs)
        return st_component_error(self, "geometricStiffness", err, ST_ESCENE,
                                  "SOFA's RigidMapping<Rigid2, Vec2> has no geometric stiffness: "
                                  "leave geometricStiffness at None");
    if (!m->plane && out->type != &st_vec3d_type && out->type != &st_rigid3d_type)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "RigidMapping maps to a Vec3d or a Rigid3d output; '%s' is %s",
                                  out->base.name, out->type->name);
    m->rigid_out = out->type == &st_rigid3d_type;
    m->ow = m->plane ? 2u : m->rigid_out ? 7u : 3u;
    m->odw = m->plane ? 2u : m->rigid_out ? 6u : 3u;
    size_t nin = in->position.n;
    if (m->points.n % m->ow)
        return st_component_error(self, "initialPoints", err, ST_EINVAL,
                                  "%zu values: a %s output takes %u per point (%s)", m->points.n,
                                  out->type->name, m->ow,
                                  m->plane       ? "x y"
                                  : m->rigid_out ? "centre, then quaternion x y z w"
                                                 : "x y z");
    if (m->points.n == 0 && !m->use_x0) {
        /* SOFA's reinit: the local points (frames) from the output's positions. */
        size_t n = out->position.n;
        const unsigned ow = m->ow;
        ST_TRY(st_array_resize(&m->points, ST_T_REALS, n * ow, err));
        for (size_t i = 0; i < n; i++) {
            const double *x = out->position.r + ow * i;
            double *p = m->points.r + ow * i;
            size_t r = rigid_of(m, i, nin);
            memcpy(p, x, ow * sizeof(double));
            if (m->global_to_local && r < nin && m->plane) {
                /* SOFA's inverseRotate: R(-theta) (x - c) */
                const double *c = in->position.r + 3 * r;
                const double d0 = x[0] - c[0], d1 = x[1] - c[1];
                const double cs = cos(-c[2]), sn = sin(-c[2]);
                p[0] = cs * d0 - sn * d1;
                p[1] = sn * d0 + cs * d1;
            } else if (m->global_to_local && r < nin) {
                const double *c = in->position.r + 7 * r;
                const double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
                const double qc[4] = {-c[3], -c[4], -c[5], c[6]};
                st_quat_rotate(p, qc, d);
                if (m->rigid_out)
                    st_quat_mul(p + 3, qc, x + 3);
            }
        }
    }
    m->n = point_count(m);
    for (size_t i = 0; i < m->n; i++)
        if (rigid_of(m, i, nin) >= nin)
            return st_component_error(self, m->rigid_index.n ? "rigidIndexPerPoint" : "index", err,
                                      ST_ESCENE,
                                      "point %zu is mapped from rigid %zu; the input '%s' has %zu",
                                      i, rigid_of(m, i, nin), in->base.name, nin);
    m->nin = nin;
    m->rotated = st_calloc(m->n ? 3 * m->n : 1, sizeof *m->rotated);
    m->k = st_calloc(nin ? 9 * nin : 1, sizeof *m->k);
    m->k_used = st_calloc(nin ? nin : 1, 1);
    if (!m->rotated || !m->k || !m->k_used) {
        rigid_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory initialising a RigidMapping");
    }
    if (out->position.n != m->n)
        ST_TRY(map_resize_output(out, m->n, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void rigid_cleanup(st_component *self)
{
    rigid_free((rigid_mapping *)self);
    map_head_release(&((rigid_mapping *)self)->h);
}

static bool ready(const rigid_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->h.in->n == m->nin;
}

/* ready() for the mechanical operations (never called on a visual output). */
static bool ready_mech(const rigid_mapping *m) { return ready(m) && !m->h.visual; }

static void rigid_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    rigid_mapping *m = (rigid_mapping *)self;
    double *xout = ready(m) ? map_head_xout(&m->h, x) : NULL;
    if (!xout)
        return;
    apply_points(m, st_slice_x(x, m->h.in), xout, m->nin);
    map_head_touch_visual(&m->h);
}

static void rigid_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    rigid_mapping *m = (rigid_mapping *)self;
    double *vout = ready(m) ? map_head_vout(&m->h, v) : NULL;
    if (vout) /* the output's slice, or a MappedObject's velocities */
        apply_j_points(m, st_slice(v, m->h.in), vout, m->nin);
}

static void rigid_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    rigid_mapping *m = (rigid_mapping *)self;
    if (!ready_mech(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    const unsigned odw = m->odw;
    if (m->plane) {
        for (size_t i = 0; i < m->n; i++) {
            double *F = fin + 3 * rigid_of(m, i, m->nin);
            const double *fi = fout + 2 * i, *r = m->rotated + 3 * i;
            F[0] += fi[0];
            F[1] += fi[1];
            F[2] += r[0] * fi[1] - r[1] * fi[0];
        }
        return;
    }
    for (size_t i = 0; i < m->n; i++) {
        double *F = fin + 6 * rigid_of(m, i, m->nin), *T = F + 3;
        const double *fi = fout + odw * i, *r = m->rotated + 3 * i;
        F[0] += fi[0];
        F[1] += fi[1];
        F[2] += fi[2];
        T[0] += r[1] * fi[2] - r[2] * fi[1];
        T[1] += r[2] * fi[0] - r[0] * fi[2];
        T[2] += r[0] * fi[1] - r[1] * fi[0];
        if (m->rigid_out)
            T[0] += fi[3], T[1] += fi[4], T[2] += fi[5];
    }
}

static void rigid_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    rigid_mapping *m = (rigid_mapping *)self;
    if (!ready_mech(m))
        return;
    for (size_t i = 0; i < m->n && m->plane; i++) {
        const double *r = m->rotated + 3 * i;
        /* [ 1 0 -r.y ; 0 1 r.x ], 2 x 3 row-major */
        const double b[6] = {1, 0, -r[1], 0, 1, r[0]};
        st_jbuilder_add(jb, i, m->h.in, rigid_of(m, i, m->nin), b);
    }
    if (m->plane)
        return;
    for (size_t i = 0; i < m->n; i++) {
        const double *r = m->rotated + 3 * i;
        /* [ I  -[r]x ], 3 x 6 row-major; a rigid output adds [ 0 I ]. */
        double b[36] = {1, 0, 0, 0,     r[2],  -r[1], 0, 1, 0, -r[2], 0,
                        r[0], 0, 0, 1, r[1], -r[0], 0};
        if (m->rigid_out)
            b[18 + 3] = b[24 + 4] = b[30 + 5] = 1.0;
        st_jbuilder_add(jb, i, m->h.in, rigid_of(m, i, m->nin), b);
    }
}

/* ---- geometric stiffness ---- */

/* [a]x [b]x added to k (row-major 3x3). */
static void add_crosscross(double k[9], const double a[3], const double b[3])
{
    /* [a]x [b]x = b a^T - (a . b) I */
    double ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            k[3 * i + j] += b[i] * a[j] - (i == j ? ab : 0.0);
}

/* Symmetric 3x3 s -> its projection onto the negative semi-definite
 * matrices: positive eigenvalues set to 0 (SOFA's NSDProjection). */
static void nsd_projection(double s[9])
{
    double w[3], v[9];
    sym3_eigen(s, w, v);
    for (int k = 0; k < 3; k++)
        w[k] = w[k] < 0 ? w[k] : 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            s[3 * i + j] = v[3 * i] * w[0] * v[3 * j] + v[3 * i + 1] * w[1] * v[3 * j + 1] +
                           v[3 * i + 2] * w[2] * v[3 * j + 2];
}

static void rigid_update_k(st_component *self, const st_mparams *mp, const double *f)
{
    (void)mp;
    rigid_mapping *m = (rigid_mapping *)self;
    if (!ready_mech(m) || !m->gs)
        return;
    memset(m->k, 0, 9 * m->nin * sizeof *m->k);
    memset(m->k_used, 0, m->nin);
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->n; i++) {
        size_t r = rigid_of(m, i, m->nin);
        add_crosscross(m->k + 9 * r, fout + m->odw * i, m->rotated + 3 * i);
        m->k_used[r] = 1;
    }
    if (m->gs == 2)
        for (size_t r = 0; r < m->nin; r++) {
            double *k = m->k + 9 * r;
            for (int i = 0; i < 3; i++)
                for (int j = i + 1; j < 3; j++)
                    k[3 * i + j] = k[3 * j + i] = 0.5 * (k[3 * i + j] + k[3 * j + i]);
            nsd_projection(k);
        }
}

static void rigid_apply_djt(st_component *self, const st_mparams *mp, double *df, const double *dx,
                            double kfactor)
{
    (void)mp;
    rigid_mapping *m = (rigid_mapping *)self;
    if (!ready_mech(m) || !m->gs)
        return;
    double *dfi = st_slice(df, m->h.in);
    const double *dxi = st_slice(dx, m->h.in);
    for (size_t r = 0; r < m->nin; r++) {
        if (!m->k_used[r])
            continue;
        const double *k = m->k + 9 * r, *t = dxi + 6 * r + 3;
        double *o = dfi + 6 * r + 3;
        for (int i = 0; i < 3; i++)
            o[i] += kfactor * (k[3 * i] * t[0] + k[3 * i + 1] * t[1] + k[3 * i + 2] * t[2]);
    }
}

static void rigid_get_k(st_component *self, const st_mparams *mp, st_matrix *mat, double kfactor)
{
    (void)mp;
    rigid_mapping *m = (rigid_mapping *)self;
    if (!ready_mech(m) || !m->gs)
        return;
    for (size_t r = 0; r < m->nin; r++) {
        if (!m->k_used[r])
            continue;
        double b[36] = {0};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                b[6 * (3 + i) + 3 + j] = kfactor * m->k[9 * r + 3 * i + j];
        st_matrix_add_block(mat, m->h.in, r, m->h.in, r, b);
    }
}

static const st_mapping_ops rigid_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = rigid_apply,
    .apply_j = rigid_apply_j,
    .apply_jt = rigid_apply_jt,
    .get_j = rigid_get_j,
    .update_k = rigid_update_k,
    .apply_djt = rigid_apply_djt,
    .get_k = rigid_get_k,
    .flags = map_head_flags,
};

static const char *const rigid_only[] = {"Rigid3d", "Rigid2d", NULL};

const st_class rigid_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "RigidMapping",
    .category = "Mapping",
    .description = "Set the positions and velocities of points (or frames) attached to a rigid "
                   "parent",
    .instance_size = sizeof(rigid_mapping),
    .fields = rigid_fields,
    .init = rigid_init,
    .reinit = rigid_init,
    .cleanup = rigid_cleanup,
    .mapping = &rigid_ops,
    .templates = rigid_only,
};
