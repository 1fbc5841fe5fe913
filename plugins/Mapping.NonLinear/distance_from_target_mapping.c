/* distance_from_target_mapping.c - DistanceFromTargetMapping (Vec3d, Vec1d
 * or Rigid3d to Vec1d): output i is the distance from input point
 * indices[i] to targetPositions[i] minus restLengths[i],
 *   y_i = |p - t| - L_i,  r = p - t (positions only),  u = r / |r|,
 *   J_i = u^T on point indices[i] (a Rigid3d's rotation: 0),
 * with, as SOFA, u = (1, 0, ..) and 1/|r| = 0 when |r| <= 1e-10. The
 * geometric stiffness of child force f_i is the block
 *   K = f_i / |r| (I - u u^T)
 * on (indices[i], indices[i]), deriv_size wide ("Exact": every output;
 * "Stabilized", the default: only outputs pulled, f_i < 0; "None": none).
 * For a Rigid3d input that block is SOFA's, identity included on the
 * rotations, where J^T f does not depend on the orientation: settee keeps
 * SOFA's numbers and warns at init. SOFA's init rules: indices shorter than
 * targetPositions are completed with i, restLengths resized to the indices
 * with zeros. */
#include <math.h>
#include <string.h>

#include "../shared/mapping_common.h"
#include "../shared/options.h"

typedef struct dft_map {
    map_head h;
    st_array indices;          /* "indices" */
    st_array targets;          /* "targetPositions": coordinates of the input's type */
    st_array rest_lengths;     /* "restLengths" */
    double show_scale;         /* "showObjectScale" */
    st_vec4 show_color;        /* "showColor" */
    char *geometric_stiffness; /* "geometricStiffness": None, Exact, Stabilized */
    /* Set at init. */
    int gs;                    /* 0 None, 1 Exact, 2 Stabilized */
    size_t n, nin;             /* outputs, input points */
    unsigned pw, dw, cw;       /* position, derivative and coordinate sizes of the input */
    double *dir;               /* n x dw: u padded with zeros (SOFA's Direction) */
    double *invlen;            /* n: 1 / |r| (0 for a null distance) */
    double *coef;              /* n: f_i / |r| when the output's K is on, else 0 */
} dft_map;

static const char *const gs_names[] = {"None", "Exact", "Stabilized", NULL};
static const st_option_field dft_options[] = {{"geometricStiffness", gs_names}, {NULL, NULL}};

static const st_field dft_fields[] = {
    MAP_HEAD_FIELDS(dft_map),
    ST_UINTS(dft_map, indices, "indices", NULL, "Indices of the parent points"),
    ST_COORDS(dft_map, targets, "targetPositions", NULL,
              "Positions to compute the distances from"),
    ST_REALS(dft_map, rest_lengths, "restLengths", NULL, "Rest lengths of the connections"),
    IGN_REAL(dft_map, show_scale, "showObjectScale", "0", "Scale for object display"),
    IGN_RGBA(dft_map, show_color, "showColor", "1 1 0 1",
             "Color for object display. (default=[1.0,1.0,0.0,1.0])"),
    ST_STRING(dft_map, geometric_stiffness, "geometricStiffness", "Stabilized",
              "Method used to compute the geometric stiffness:\n-None: geometric stiffness is "
              "not computed\n-Exact: the exact geometric stiffness is computed\n-Stabilized: "
              "the exact geometric stiffness is approximated in order to improve stability"),
    ST_FIELD_END};

static void dft_free(dft_map *m)
{
    st_free(m->dir);
    st_free(m->invlen);
    st_free(m->coef);
    m->dir = m->invlen = m->coef = NULL;
    m->n = 0;
}

static void dft_cleanup(st_component *self)
{
    dft_free((dft_map *)self);
    map_head_release(&((dft_map *)self)->h);
}

/* Outputs and directions at input positions xin into xout. */
static void dft_apply_x(dft_map *m, const double *xin, double *xout)
{
    const unsigned *idx = m->indices.p;
    const double *t = m->targets.p;
    for (size_t i = 0; i < m->n; i++) {
        const double *p = xin + (size_t)m->cw * idx[i], *q = t + (size_t)m->cw * i;
        double *u = m->dir + (size_t)m->dw * i;
        double d2 = 0.0;
        memset(u, 0, m->dw * sizeof *u);
        for (unsigned k = 0; k < m->pw; k++) {
            u[k] = p[k] - q[k];
            d2 += u[k] * u[k];
        }
        double d = sqrt(d2);
        xout[i] = d - m->rest_lengths.r[i];
        if (d > 1e-10) {
            m->invlen[i] = 1.0 / d;
            for (unsigned k = 0; k < m->pw; k++)
                u[k] *= m->invlen[i];
        } else {
            m->invlen[i] = 0.0;
            memset(u, 0, m->dw * sizeof *u);
            u[0] = 1.0;
        }
    }
}

static void dft_apply_v(const dft_map *m, const double *vin, double *vout)
{
    const unsigned *idx = m->indices.p;
    for (size_t i = 0; i < m->n; i++) {
        const double *a = vin + (size_t)m->dw * idx[i], *u = m->dir + (size_t)m->dw * i;
        double s = 0.0;
        for (unsigned k = 0; k < m->dw; k++)
            s += u[k] * a[k];
        vout[i] = s;
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    dft_apply_x((dft_map *)self, xin, xout);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    dft_apply_v((dft_map *)self, vin, vout);
}

static st_status dft_init(st_component *self, st_error *err)
{
    dft_map *m = (dft_map *)self;
    self->state = ST_CSTATE_INVALID;
    dft_free(m);
    ST_TRY(st_options_check(self, dft_options, err));
    m->gs = strcmp(m->geometric_stiffness, "Exact") == 0        ? 1
            : strcmp(m->geometric_stiffness, "Stabilized") == 0 ? 2
                                                                : 0;
    ST_TRY(map_head_bind(&m->h, NULL, &st_vec1d_type, err));
    st_mstate *in = m->h.in, *out = m->h.out;
    if (in->type != &st_vec3d_type && in->type != &st_vec1d_type && in->type != &st_rigid3d_type)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "DistanceFromTargetMapping maps Vec3d, Vec1d or Rigid3d points; "
                                  "'%s' is %s",
                                  in->base.name, in->type->name);
    m->cw = in->type->coord_size;
    m->dw = in->type->deriv_size;
    m->pw = in->type->rigid ? 3 : in->type->coord_size;
    if (in->type->rigid && m->gs)
        st_component_warn(self, "Rigid3d input: SOFA's geometric stiffness (kept here) adds "
                                "f/|r| times the identity on each mapped body's rotation, which "
                                "J^T f does not depend on; set geometricStiffness=None to leave "
                                "it out");
    /* SOFA: indices completed with i up to the targets' count. */
    size_t nt = m->targets.n, ni = m->indices.n;
    if (ni < nt) {
        ST_TRY(st_array_resize(&m->indices, ST_T_UINTS, nt, err));
        for (size_t i = ni; i < nt; i++)
            m->indices.u[i] = (unsigned)i;
        st_component_touch(self, st_component_field(self, "indices"));
    } else if (ni > nt) {
        return st_component_error(self, "targetPositions", err, ST_EINVAL,
                                  "%zu target positions for %zu indices: give one target per "
                                  "index",
                                  nt, ni);
    }
    size_t n = m->indices.n, nin = in->position.n;
    for (size_t i = 0; i < n; i++)
        if (m->indices.u[i] >= nin)
            return st_component_error(self, "indices", err, ST_EINVAL,
                                      "index %u is out of range: the input '%s' has %zu points",
                                      m->indices.u[i], in->base.name, nin);
    if (m->rest_lengths.n != n) {
        size_t old = m->rest_lengths.n;
        ST_TRY(st_array_resize(&m->rest_lengths, ST_T_REALS, n, err));
        for (size_t i = old; i < n; i++)
            m->rest_lengths.r[i] = 0.0;
        st_component_touch(self, st_component_field(self, "restLengths"));
    }
    m->dir = st_calloc(n ? n * m->dw : 1, sizeof *m->dir);
    m->invlen = st_calloc(n ? n : 1, sizeof *m->invlen);
    m->coef = st_calloc(n ? n : 1, sizeof *m->coef);
    if (!m->dir || !m->invlen || !m->coef) {
        dft_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu outputs)", n);
    }
    m->n = n;
    m->nin = nin;
    if (out->position.n != n)
        ST_TRY(map_resize_output(out, n, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* Valid, sizes as at init (targets follow a link: a count that changed
 * since is left alone, not read out of bounds). */
static bool ready(const dft_map *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->h.in->n == m->nin && m->targets.n >= m->n && m->indices.n == m->n &&
           m->rest_lengths.n == m->n;
}

static void dft_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    dft_map *m = (dft_map *)self;
    if (ready(m))
        dft_apply_x(m, st_slice_x(x, m->h.in), st_slice_x(x, m->h.out));
}

static void dft_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    dft_map *m = (dft_map *)self;
    if (ready(m))
        dft_apply_v(m, st_slice(v, m->h.in), st_slice(v, m->h.out));
}

static void dft_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    dft_map *m = (dft_map *)self;
    if (!ready(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    const unsigned *idx = m->indices.p;
    for (size_t i = 0; i < m->n; i++) {
        double *a = fin + (size_t)m->dw * idx[i];
        const double *u = m->dir + (size_t)m->dw * i;
        for (unsigned k = 0; k < m->dw; k++)
            a[k] += u[k] * fout[i];
    }
}

static void dft_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    dft_map *m = (dft_map *)self;
    if (!ready(m))
        return;
    const unsigned *idx = m->indices.p;
    for (size_t i = 0; i < m->n; i++)
        st_jbuilder_add(jb, i, m->h.in, idx[i], m->dir + (size_t)m->dw * i);
}

static void dft_update_k(st_component *self, const st_mparams *mp, const double *f)
{
    (void)mp;
    dft_map *m = (dft_map *)self;
    if (!ready(m))
        return;
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->n; i++) {
        bool on = m->gs == 1 || (m->gs == 2 && fout[i] < 0);
        m->coef[i] = on ? fout[i] * m->invlen[i] : 0.0;
    }
}

/* K of output i (dw x dw, row-major): coef (I - u u^T). */
static void out_block(const dft_map *m, size_t i, double *B)
{
    const double c = m->coef[i], *u = m->dir + (size_t)m->dw * i;
    for (unsigned j = 0; j < m->dw; j++)
        for (unsigned k = 0; k < m->dw; k++)
            B[m->dw * j + k] = c * ((j == k ? 1.0 : 0.0) - u[j] * u[k]);
}

static void dft_apply_djt(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor)
{
    (void)mp;
    dft_map *m = (dft_map *)self;
    if (!ready(m) || !m->gs)
        return;
    double *dfi = st_slice(df, m->h.in);
    const double *dxi = st_slice(dx, m->h.in);
    const unsigned *idx = m->indices.p;
    double B[36];
    for (size_t i = 0; i < m->n; i++) {
        if (m->coef[i] == 0.0)
            continue;
        out_block(m, i, B);
        const double *d = dxi + (size_t)m->dw * idx[i];
        double *o = dfi + (size_t)m->dw * idx[i];
        for (unsigned j = 0; j < m->dw; j++) {
            double s = 0.0;
            for (unsigned k = 0; k < m->dw; k++)
                s += B[m->dw * j + k] * d[k];
            o[j] += kfactor * s;
        }
    }
}

static void dft_get_k(st_component *self, const st_mparams *mp, st_matrix *mat, double kfactor)
{
    (void)mp;
    dft_map *m = (dft_map *)self;
    if (!ready(m) || !m->gs)
        return;
    const unsigned *idx = m->indices.p;
    double B[36];
    for (size_t i = 0; i < m->n; i++) {
        if (m->coef[i] == 0.0)
            continue;
        out_block(m, i, B);
        for (unsigned k = 0; k < m->dw * m->dw; k++)
            B[k] *= kfactor;
        st_matrix_add_block(mat, m->h.in, idx[i], m->h.in, idx[i], B);
    }
}

static const st_mapping_ops dft_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = dft_apply,
    .apply_j = dft_apply_j,
    .apply_jt = dft_apply_jt,
    .get_j = dft_get_j,
    .update_k = dft_update_k,
    .apply_djt = dft_apply_djt,
    .get_k = dft_get_k,
    .flags = map_head_flags,
};

static const char *const dft_templates[] = {"Vec3d", "Vec1d", "Rigid3d", NULL};

const st_class distance_from_target_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "DistanceFromTargetMapping",
    .category = "Mapping",
    .description = "Mapping point positions to distances from target points",
    .instance_size = sizeof(dft_map),
    .fields = dft_fields,
    .init = dft_init,
    .reinit = dft_init,
    .cleanup = dft_cleanup,
    .mapping = &dft_ops,
    .templates = dft_templates,
};
