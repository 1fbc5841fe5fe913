/* beam_length_mapping.c - BeamLengthMapping (SOFA's BeamAdapter plugin,
 * Rigid3d to Vec1d): the current length of each beam of a BeamInterpolation.
 *
 * Beam b's length is its Bezier spline's, l = int_0^1 |P'(t)| dt with
 * BeamAdapter's four Gauss points t_m (weights w_m = (18 +- sqrt 30) / 72):
 * P'(t_m) = sum_k a_mk P_k with a_m = (-3 (1-t)^2, 3 - 12 t + 9 t^2,
 * 6 t - 9 t^2, 3 t^2), the control points P_k from the node frames
 * (AdaptiveBeamMapping's spline). Velocities: dl = sum_m w_m (P'_m . dP'_m)
 * / |P'_m| with the control points' velocities of the nodes' (v, w); forces:
 * the transpose, F_k = f sum_m w_m a_mk P'_m / |P'_m|, taken to the nodes as
 * AdaptiveBeamMapping takes point forces. Geometric stiffness (SOFA's
 * applyDJT, geometricStiffness 1 on every beam, 2 only on beams whose
 * child force is negative, 0 none): K_kl = sum_m a_mk a_ml f w_m (I - n_m
 * n_m^T) / |P'_m| between control points, dP_k = dx + l_k x w with
 * BeamAdapter's levers l_k (ba_node_levers), dF_k = kf sum_l K_kl dP_l; the
 * node gets (dF_0 + dF_1, -l_0 x dF_0 - l_1 x dF_1) and its rotation part
 * less kf (F_0 x (l_0 x w) + F_1 x (l_1 x w)) (node 1 likewise with
 * 2, 3). The assembled matrix gets no geometric stiffness, as in SOFA
 * (BeamLengthMapping's getK is its legacy interface, which SOFA's linear
 * systems no longer read): CG sees it, the direct solvers do not.
 *
 * The output has one point per beam at init (SOFA resizes it at each
 * apply; settee keeps the size of init and maps the beams it has room for). */
#include <math.h>
#include <string.h>

#include "beam_adapter.h"
#include "../shared/mapping_common.h"

typedef struct beam_length_mapping {
    map_head h;
    st_component *interpolation; /* "interpolation" */
    unsigned geometric;          /* "geometricStiffness" */
    /* Set by init. */
    beam_interpolation *bi;
    size_t n;                    /* output points */
    size_t nin;
    double *xlast;               /* the input's coordinates at the last apply */
    double *child_f;             /* n: the child force at the last update_k */
} beam_length_mapping;

/* BeamAdapter's Gauss points on [0, 1] and the derivative Bernstein
 * coefficients there. */
static void gauss(double w[4], double a[4][4])
{
    const double A = 2 * sqrt(6.0 / 5.0), B = sqrt(30.0);
    const double xs[4] = {-sqrt((3.0 - A) / 7.0) / 2.0 + 0.5, sqrt((3.0 - A) / 7.0) / 2.0 + 0.5,
                          -sqrt((3.0 + A) / 7.0) / 2.0 + 0.5, sqrt((3.0 + A) / 7.0) / 2.0 + 0.5};
    for (int m = 0; m < 4; m++) {
        const double t = xs[m];
        w[m] = (m < 2 ? 18.0 + B : 18.0 - B) / 72.0;
        a[m][0] = -3 * (1 - t) * (1 - t);
        a[m][1] = 3 - 12 * t + 9 * t * t;
        a[m][2] = 6 * t - 9 * t * t;
        a[m][3] = 3 * t * t;
    }
}

static void spline_points(const beam_interpolation *bi, size_t b, const double *x, double P[4][3])
{
    ba_xf g0, g1;
    ba_compute_transform(bi, b, x, &g0, &g1);
    ba_control_points(&g0, &g1, ba_length(bi, b), P);
}

/* The tangents P'(t_m). */
static void tangents(const double P[4][3], const double a[4][4], double IP[4][3])
{
    for (int m = 0; m < 4; m++)
        for (int c = 0; c < 3; c++)
            IP[m][c] = a[m][0] * P[0][c] + a[m][1] * P[1][c] + a[m][2] * P[2][c] +
                       a[m][3] * P[3][c];
}

/* F_k = f sum_m w_m a_mk IP_m / |IP_m| (SOFA's computeJtSpline). */
static void jt_spline(double f, const double P[4][3], double F[4][3])
{
    double w[4], a[4][4], IP[4][3];
    gauss(w, a);
    tangents(P, a, IP);
    memset(F, 0, 12 * sizeof(double));
    for (int m = 0; m < 4; m++) {
        const double s = f * w[m] / st_v3_norm(IP[m]);
        for (int k = 0; k < 4; k++)
            for (int c = 0; c < 3; c++)
                F[k][c] += s * a[m][k] * IP[m][c];
    }
}

static size_t mapped(const beam_length_mapping *m)
{
    const size_t nb = ba_num_beams(m->bi);
    return nb < m->n ? nb : m->n;
}

static bool ready(const beam_length_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->h.in->n == m->nin;
}

static void apply_range(beam_length_mapping *m, const double *xin, double *xout)
{
    const size_t n = mapped(m);
    for (size_t b = 0; b < n; b++) {
        double P[4][3];
        spline_points(m->bi, b, xin, P);
        xout[b] = ba_spline_length(P);
    }
}

static void apply_j_range(beam_length_mapping *m, const double *x, const double *vin,
                          double *vout)
{
    double w[4], a[4][4];
    gauss(w, a);
    const size_t n = mapped(m);
    for (size_t b = 0; b < n; b++) {
        unsigned n0, n1;
        double P[4][3], V[4][3], IP[4][3], dIP[4][3];
        ba_node_indices(m->bi, b, &n0, &n1);
        ba_control_velocities(m->bi, b, x, vin + 6 * (size_t)n0, vin + 6 * (size_t)n1, V);
        spline_points(m->bi, b, x, P);
        tangents(P, a, IP);
        tangents((const double(*)[3])V, a, dIP);
        double dl = 0.0;
        for (int k = 0; k < 4; k++)
            dl += w[k] * st_v3_dot(IP[k], dIP[k]) / st_v3_norm(IP[k]);
        vout[b] = dl;
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    beam_length_mapping *m = (beam_length_mapping *)self;
    memcpy(m->xlast, xin, 7 * m->nin * sizeof(double));
    apply_range(m, xin, xout);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    beam_length_mapping *m = (beam_length_mapping *)self;
    apply_j_range(m, m->xlast, vin, vout);
}

static void blm_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    beam_length_mapping *m = (beam_length_mapping *)self;
    double *xout = ready(m) ? map_head_xout(&m->h, x) : NULL;
    if (!xout)
        return;
    const double *xin = st_slice_x(x, m->h.in);
    memcpy(m->xlast, xin, 7 * m->nin * sizeof(double));
    apply_range(m, xin, xout);
    map_head_touch_visual(&m->h);
}

static void blm_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    beam_length_mapping *m = (beam_length_mapping *)self;
    if (!ready(m) || m->h.visual)
        return;
    apply_j_range(m, m->xlast, st_slice(v, m->h.in), st_slice(v, m->h.out));
}

static void blm_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    beam_length_mapping *m = (beam_length_mapping *)self;
    if (!ready(m) || m->h.visual)
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    const size_t n = mapped(m);
    for (size_t b = 0; b < n; b++) {
        unsigned n0, n1;
        double P[4][3], F[4][3], F0[6], F1[6];
        ba_node_indices(m->bi, b, &n0, &n1);
        spline_points(m->bi, b, m->xlast, P);
        jt_spline(fout[b], P, F);
        ba_control_forces(m->bi, b, m->xlast, (const double(*)[3])F, F0, F1);
        for (int c = 0; c < 6; c++) {
            fin[6 * (size_t)n0 + c] += F0[c];
            fin[6 * (size_t)n1 + c] += F1[c];
        }
    }
}

static void blm_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    beam_length_mapping *m = (beam_length_mapping *)self;
    if (!ready(m) || m->h.visual)
        return;
    const size_t n = mapped(m);
    for (size_t b = 0; b < n; b++) {
        unsigned nd[2];
        double P[4][3], G[4][3], F0[6], F1[6];
        ba_node_indices(m->bi, b, &nd[0], &nd[1]);
        spline_points(m->bi, b, m->xlast, P);
        /* a row of J is J^T of a unit child force */
        jt_spline(1.0, P, G);
        ba_control_forces(m->bi, b, m->xlast, (const double(*)[3])G, F0, F1);
        st_jbuilder_add(jb, b, m->h.in, nd[0], F0);
        st_jbuilder_add(jb, b, m->h.in, nd[1], F1);
    }
}

static void blm_update_k(st_component *self, const st_mparams *mp, const double *f)
{
    (void)mp;
    beam_length_mapping *m = (beam_length_mapping *)self;
    if (!ready(m) || m->h.visual)
        return;
    memcpy(m->child_f, st_slice(f, m->h.out), m->n * sizeof(double));
}

static void cross_add(double out[3], const double a[3], const double b[3], double s)
{
    double t[3];
    st_v3_cross(t, a, b);
    for (int c = 0; c < 3; c++)
        out[c] += s * t[c];
}

static void blm_apply_djt(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kf)
{
    (void)mp;
    beam_length_mapping *m = (beam_length_mapping *)self;
    if (!ready(m) || m->h.visual || m->geometric == 0)
        return;
    double w[4], a[4][4];
    gauss(w, a);
    const double *din = st_slice(dx, m->h.in);
    double *fin = st_slice(df, m->h.in);
    const size_t n = mapped(m);
    for (size_t b = 0; b < n; b++) {
        const double f = m->child_f[b];
        if (!(f < 0.0 || m->geometric == 1))
            continue;
        unsigned nd[2];
        double P[4][3], IP[4][3], lev[4][3], dP[4][3], dF[4][3], F[4][3];
        ba_node_indices(m->bi, b, &nd[0], &nd[1]);
        spline_points(m->bi, b, m->xlast, P);
        tangents(P, a, IP);
        ba_node_levers(m->bi, b, m->xlast, lev);
        for (int k = 0; k < 4; k++) {
            const double *d = din + 6 * (size_t)nd[k / 2];
            memcpy(dP[k], d, 3 * sizeof(double));
            cross_add(dP[k], lev[k], d + 3, 1.0);
        }
        /* dF_k = kf sum_l K_kl dP_l, K_kl = sum_m a_mk a_ml Kip_m */
        memset(dF, 0, sizeof dF);
        for (int mm = 0; mm < 4; mm++) {
            const double len = st_v3_norm(IP[mm]);
            double nrm[3], s = f * w[mm] / len;
            for (int c = 0; c < 3; c++)
                nrm[c] = IP[mm][c] / len;
            for (int k = 0; k < 4; k++)
                for (int l = 0; l < 4; l++) {
                    const double ak = s * a[mm][k] * a[mm][l] * kf;
                    const double nd_ = st_v3_dot(nrm, dP[l]);
                    for (int c = 0; c < 3; c++)
                        dF[k][c] += ak * (dP[l][c] - nrm[c] * nd_);
                }
        }
        jt_spline(f, P, F);
        for (int e = 0; e < 2; e++) {
            const int k0 = 2 * e, k1 = 2 * e + 1;
            const double *om = din + 6 * (size_t)nd[e] + 3;
            double *o = fin + 6 * (size_t)nd[e];
            double t[3];
            for (int c = 0; c < 3; c++)
                o[c] += dF[k0][c] + dF[k1][c];
            cross_add(o + 3, lev[k0], dF[k0], -1.0);
            cross_add(o + 3, lev[k1], dF[k1], -1.0);
            st_v3_cross(t, lev[k0], om);
            cross_add(o + 3, F[k0], t, -kf);
            st_v3_cross(t, lev[k1], om);
            cross_add(o + 3, F[k1], t, -kf);
        }
    }
}

static void blm_free(beam_length_mapping *m)
{
    st_free(m->xlast);
    st_free(m->child_f);
    m->xlast = NULL;
    m->child_f = NULL;
}

static st_status blm_init(st_component *self, st_error *err)
{
    beam_length_mapping *m = (beam_length_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    blm_free(m);
    ST_TRY(map_head_bind(&m->h, &st_rigid3d_type, &st_vec1d_type, err));
    st_component *c = m->interpolation;
    if (!c) /* SOFA's context search, from this node up */
        c = map_find_upward(self->node, "BeamInterpolation");
    if (!c)
        return st_component_error(self, "interpolation", err, ST_ESCENE,
                                  "No Beam Interpolation found, the component can not work.");
    if (c->cls != &beam_interpolation_class)
        return st_component_error(self, "interpolation", err, ST_EINVAL,
                                  "%s is a %s, not a BeamInterpolation", c->name, c->cls->name);
    ST_TRY(ba_find_interpolation(self, c, &m->bi, err));
    if (m->bi->ms != m->h.in)
        return st_component_error(self, "interpolation", err, ST_ESCENE,
                                  "the interpolation %s works on %s, not on this mapping's "
                                  "input %s",
                                  m->bi->base.name, m->bi->ms->base.name, m->h.in->base.name);
    if (m->geometric > 2)
        st_component_warn_field(self, "geometricStiffness",
                                "%u: 0 (none), 1 (exact) or 2 (stabilized); as SOFA, any value "
                                "but 0 and 1 acts as 2",
                                m->geometric);
    m->n = ba_num_beams(m->bi);
    m->nin = m->h.in->position.n;
    m->xlast = st_calloc(m->nin ? 7 * m->nin : 1, sizeof *m->xlast);
    m->child_f = st_calloc(m->n ? m->n : 1, sizeof *m->child_f);
    if (!m->xlast || !m->child_f)
        return st_error_set(err, ST_ENOMEM, "BeamLengthMapping: out of memory");
    if (m->h.out->position.n != m->n)
        ST_TRY(map_resize_output(m->h.out, m->n, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void blm_cleanup(st_component *self)
{
    beam_length_mapping *m = (beam_length_mapping *)self;
    blm_free(m);
    map_head_release(&m->h);
}

#define T beam_length_mapping
static const st_field blm_fields[] = {
    MAP_HEAD_FIELDS(T),
    ST_LINK(T, interpolation, "interpolation", ST_LINK_ANY,
            "Path to the Interpolation component on scene"),
    ST_UINT(T, geometric, "geometricStiffness", "2",
            "0 -> no GS, 1 -> exact GS, 2 -> stabilized GS (default)"),
    ST_FIELD_END};
#undef T

static const st_mapping_ops blm_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = blm_apply,
    .apply_j = blm_apply_j,
    .apply_jt = blm_apply_jt,
    .get_j = blm_get_j,
    .update_k = blm_update_k,
    .apply_djt = blm_apply_djt,
    .flags = map_head_flags,
};

static const char *const blm_templates[] = {"Rigid3d", NULL};

const st_class beam_length_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "BeamLengthMapping",
    .category = "Mapping",
    .description = "The current length of each beam of a BeamInterpolation (its spline's, "
                   "BeamAdapter's Gauss points) as a Vec1d state, with its geometric stiffness "
                   "(BeamAdapter)",
    .instance_size = sizeof(beam_length_mapping),
    .fields = blm_fields,
    .init = blm_init,
    .reinit = blm_init,
    .cleanup = blm_cleanup,
    .mapping = &blm_ops,
    .templates = blm_templates,
};
