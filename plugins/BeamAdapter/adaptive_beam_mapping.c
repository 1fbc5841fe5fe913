/* adaptive_beam_mapping.c - AdaptiveBeamMapping (SOFA's BeamAdapter plugin,
 * Rigid3d to Vec3d): points along the beams of a BeamInterpolation or
 * WireBeamInterpolation, placed on each beam's cubic spline.
 *
 * Each mapped point is (beam, bary, y, z). With useCurvAbs (the default)
 * points[i] = (s, y, z) gives the curvilinear abscissa s, turned into a beam
 * and a barycentric coordinate by the interpolation (counted so that the
 * last beam ends at the instrument's rest length) and recomputed before
 * each apply, as SOFA's; otherwise points[i][0] is beam + bary (its integer
 * part the beam). nbPointsPerBeam > 0 replaces the points by that many per
 * beam (steps of 1 / nbPointsPerBeam, carried from beam to beam, and the
 * last beam's end unless the step lands on it) and writes their abscissae
 * to segmentsCurvAbs. Without points the output's positions at init are
 * taken (SOFA's bwdInit); the output is sized to the points.
 *
 * Beam b's spline: P0 = o0, P1 = o0 + (L/3) x0, P2 = o1 - (L/3) x1,
 * P3 = o1 (the node frames, L the beam's rest length). A point on the axis
 * (y = z = 0) is the Bezier point at bary, or P0 when |P0 - P3| < L / 100;
 * one off the axis is the interpolated frame's origin plus its rotation of
 * (0, y, z). Velocities: with the node velocities (v, w) seen in each node
 * frame (v + w x r rotated back, r the DOF-to-node offset), the control
 * points move as V0 = v0, V1 = v0 + w0 x (L/3, 0, 0), V2 = v1 - w1 x (L/3,
 * 0, 0), V3 = v1, blended with the Bernstein weights at bary; an off-axis
 * point adds w0 x (0, y, z) weighted a0 + a1 and w1 x (0, y, z) weighted
 * a2 + a3. Forces go back through the transpose (SOFA's
 * MapForceOnNodeUsingSpline). The velocity map is exact for points on the
 * axis; off the axis it is SOFA's approximation.
 *
 * Not in settee: the Rigid3d output (SOFA's second template), contact
 * duplicates (contactDuplicate, nameOfInputMap: a warning), proximity
 * (only for constraints, which settee does not map), a run-time change of
 * the number of points (the output keeps its size from init; extra points
 * are left alone), parallelMapping (always sequential) and the edges SOFA
 * writes into the node's topology with nbPointsPerBeam. */
#include <math.h>
#include <string.h>

#include "beam_adapter.h"
#include "../shared/mapping_common.h"

typedef ba_point abm_point;

typedef struct adaptive_beam_mapping {
    map_head h;
    bool use_curv_abs;          /* "useCurvAbs" */
    st_array points;            /* "points": Vec3 */
    double proximity;           /* "proximity" */
    bool contact_duplicate;     /* "contactDuplicate" */
    char *input_map_name;       /* "nameOfInputMap" */
    double nb_points_per_beam;  /* "nbPointsPerBeam" */
    st_array segments_curv_abs; /* "segmentsCurvAbs": output */
    bool parallel;              /* "parallelMapping" */
    st_component *interpolation; /* "interpolation" */
    /* Set by init. */
    beam_interpolation *bi;
    abm_point *dist;            /* ndist, owned */
    size_t ndist, cap;
    size_t n;                   /* output points at init */
    double *xlast;              /* the input's coordinates at the last apply (7 a frame) */
    size_t nin;
} adaptive_beam_mapping;

/* ---- The distribution of the points on the beams ---- */

static bool dist_push(adaptive_beam_mapping *m, size_t beam, double bary, double y, double z)
{
    if (m->ndist == m->cap) {
        const size_t nc = m->cap ? 2 * m->cap : 16;
        abm_point *p = st_realloc(m->dist, nc * sizeof *p);
        if (!p)
            return false;
        m->dist = p;
        m->cap = nc;
    }
    m->dist[m->ndist++] = (abm_point){beam, bary, y, z};
    return true;
}

static bool push_abscissa(st_array *a, double s)
{
    st_error err = {0};
    if (st_array_resize(a, ST_T_REALS, a->n + 1, &err) != ST_OK)
        return false;
    a->r[a->n - 1] = s;
    return true;
}

/* SOFA's computeDistribution; false when out of memory. */
static bool compute_distribution(adaptive_beam_mapping *m)
{
    const beam_interpolation *bi = m->bi;
    const size_t nb = ba_num_beams(bi);
    m->ndist = 0;
    if (nb == 0)
        return true;
    const size_t np = m->points.n;
    const double *pts = m->points.r;
    if (!m->use_curv_abs) {
        for (size_t i = 0; i < np; i++) {
            const double fl = floor(pts[3 * i]);
            size_t b = fl < 0.0 ? 0 : (size_t)fl;
            if (b > nb - 1)
                b = nb - 1; /* SOFA warns and reads past its beams; settee keeps the last */
            if (!dist_push(m, b, pts[3 * i] - fl, pts[3 * i + 1], pts[3 * i + 2]))
                return false;
        }
        return true;
    }
    if (m->nb_points_per_beam > 0.0) {
        st_error err = {0};
        if (st_array_resize(&m->segments_curv_abs, ST_T_REALS, 0, &err) != ST_OK)
            return false;
        const double step = 1.0 / m->nb_points_per_beam;
        double pos = 0.0, x0 = 0.0, x1 = 0.0;
        const bool have_abs = bi->curv_abs_list.n >= 2 * nb;
        for (size_t b = 0; b < nb; b++) {
            /* SOFA reads curvAbsList; BeamInterpolation may leave it empty:
             * the running sum of the lengths then */
            if (have_abs) {
                x0 = bi->curv_abs_list.r[2 * b];
                x1 = bi->curv_abs_list.r[2 * b + 1];
            } else {
                x0 = x1;
                x1 = x0 + ba_length(bi, b);
            }
            for (; pos <= 1.0; pos += step)
                if (!push_abscissa(&m->segments_curv_abs, x0 + (x1 - x0) * pos) ||
                    !dist_push(m, b, pos, 0.0, 0.0))
                    return false;
            pos -= 1.0;
        }
        if (fabs(pos - step) > 0.01)
            if (!push_abscissa(&m->segments_curv_abs, x1) || !dist_push(m, nb - 1, 1.0, 0.0, 0.0))
                return false;
        return true;
    }
    for (size_t i = 0; i < np; i++) {
        size_t b;
        double bary;
        ba_beam_at_curv_abs(bi, pts[3 * i], &b, &bary);
        if (!dist_push(m, b, bary, pts[3 * i + 1], pts[3 * i + 2]))
            return false;
    }
    return true;
}

/* ---- One point ---- */

static void bernstein(double t, double a[4])
{
    const double s = 1.0 - t;
    a[0] = s * s * s, a[1] = 3 * t * s * s, a[2] = 3 * t * t * s, a[3] = t * t * t;
}

void ba_point_position(const beam_interpolation *bi, const ba_point *p, const double *x,
                       double out[3])
{
    ba_xf g0, g1;
    const double L = ba_length(bi, p->beam);
    ba_compute_transform(bi, p->beam, x, &g0, &g1);
    const double lp[3] = {0.0, p->y, p->z};
    if (st_v3_norm(lp) > L * 1e-10) {
        ba_xf f;
        double r[3];
        ba_interpolate_transform(&f, p->bary, &g0, &g1, L);
        st_quat_rotate(r, f.q, lp);
        for (int c = 0; c < 3; c++)
            out[c] = f.t[c] + r[c];
        return;
    }
    double P[4][3], d[3], a[4];
    ba_control_points(&g0, &g1, L, P);
    st_v3_sub(d, P[0], P[3]);
    if (st_v3_norm(d) < L * 0.01) {
        memcpy(out, P[0], 3 * sizeof(double));
        return;
    }
    bernstein(p->bary, a);
    for (int c = 0; c < 3; c++)
        out[c] = a[0] * P[0][c] + a[1] * P[1][c] + a[2] * P[2][c] + a[3] * P[3][c];
}

/* The node frames' rotations and their offsets from the DOFs, in global
 * axes (SOFA's getDOFtoLocalTransformInGlobalFrame). */
static void node_frames(const beam_interpolation *bi, size_t b, const double *x, double q[2][4],
                        double r[2][3])
{
    unsigned n[2];
    ba_xf d[2];
    ba_node_indices(bi, b, &n[0], &n[1]);
    ba_dof_to_local(bi, b, &d[0], &d[1]);
    for (int k = 0; k < 2; k++) {
        const double *qd = x + 7 * (size_t)n[k] + 3;
        st_quat_rotate(r[k], qd, d[k].t);
        st_quat_mul(q[k], qd, d[k].q);
    }
}

static void inv_rotate(double out[3], const double q[4], const double v[3])
{
    const double c[4] = {-q[0], -q[1], -q[2], q[3]};
    st_quat_rotate(out, c, v);
}

/* The control points' velocities of beam b from its nodes' (v, w). */
static void control_velocities(const beam_interpolation *bi, size_t b, const double *x,
                               const double *v0, const double *v1, double V[4][3],
                               double q[2][4], double wl[2][3])
{
    double r[2][3];
    node_frames(bi, b, x, q, r);
    const double L = ba_length(bi, b);
    const double lever[3] = {L / 3.0, 0.0, 0.0};
    const double *vin[2] = {v0, v1};
    double vl[2][3];
    for (int k = 0; k < 2; k++) {
        double t[3], wr[3];
        st_v3_cross(wr, vin[k] + 3, r[k]);
        for (int c = 0; c < 3; c++)
            t[c] = vin[k][c] + wr[c];
        inv_rotate(vl[k], q[k], t);
        inv_rotate(wl[k], q[k], vin[k] + 3);
    }
    double t[3];
    st_v3_cross(t, wl[0], lever);
    for (int c = 0; c < 3; c++)
        t[c] += vl[0][c];
    st_quat_rotate(V[1], q[0], t);
    st_quat_rotate(V[0], q[0], vl[0]);
    st_v3_cross(t, wl[1], lever);
    for (int c = 0; c < 3; c++)
        t[c] = vl[1][c] - t[c];
    st_quat_rotate(V[2], q[1], t);
    st_quat_rotate(V[3], q[1], vl[1]);
}

void ba_control_velocities(const beam_interpolation *bi, size_t b, const double *x,
                           const double *v0, const double *v1, double V[4][3])
{
    double q[2][4], wl[2][3];
    control_velocities(bi, b, x, v0, v1, V, q, wl);
}

void ba_control_forces(const beam_interpolation *bi, size_t b, const double *x,
                       const double F[4][3], double F0[6], double F1[6])
{
    double q[2][4], r[2][3];
    node_frames(bi, b, x, q, r);
    const double L = ba_length(bi, b);
    const double lever[2][3] = {{L / 3.0, 0.0, 0.0}, {-L / 3.0, 0.0, 0.0}};
    const double *inner[2] = {F[1], F[2]}, *end[2] = {F[0], F[3]};
    double *out[2] = {F0, F1};
    for (int k = 0; k < 2; k++) {
        double fl[3], tl[3], Tg[3], sum[3], rf[3];
        inv_rotate(fl, q[k], inner[k]);
        st_v3_cross(tl, lever[k], fl);
        st_quat_rotate(Tg, q[k], tl);
        for (int c = 0; c < 3; c++)
            sum[c] = end[k][c] + inner[k][c];
        st_v3_cross(rf, r[k], sum);
        for (int c = 0; c < 3; c++) {
            out[k][c] = sum[c];
            out[k][3 + c] = Tg[c] + rf[c];
        }
    }
}

void ba_node_levers(const beam_interpolation *bi, size_t b, const double *x, double lev[4][3])
{
    double q[2][4], r[2][3];
    node_frames(bi, b, x, q, r);
    const double L = ba_length(bi, b);
    const double e[2][3] = {{-L / 3.0, 0.0, 0.0}, {L / 3.0, 0.0, 0.0}};
    double t[3];
    for (int c = 0; c < 3; c++)
        lev[0][c] = -r[0][c], lev[3][c] = -r[1][c];
    st_quat_rotate(t, q[0], e[0]);
    for (int c = 0; c < 3; c++)
        lev[1][c] = t[c] - r[0][c];
    st_quat_rotate(t, q[1], e[1]);
    for (int c = 0; c < 3; c++)
        lev[2][c] = t[c] - r[1][c];
}

/* The point's velocity from the nodes' (v, w) derivatives v0, v1. */
void ba_point_velocity(const beam_interpolation *bi, const ba_point *p, const double *x,
                       const double *v0, const double *v1, double out[3])
{
    double q[2][4], wl[2][3], V[4][3], t[3], a[4];
    control_velocities(bi, p->beam, x, v0, v1, V, q, wl);
    const double L = ba_length(bi, p->beam);
    const double lp[3] = {0.0, p->y, p->z};
    bernstein(p->bary, a);
    for (int c = 0; c < 3; c++)
        out[c] = a[0] * V[0][c] + a[1] * V[1][c] + a[2] * V[2][c] + a[3] * V[3][c];
    if (st_v3_norm(lp) > L * 1e-10) {
        double d0[3], d3[3];
        st_v3_cross(t, wl[0], lp);
        st_quat_rotate(d0, q[0], t);
        st_v3_cross(t, wl[1], lp);
        st_quat_rotate(d3, q[1], t);
        for (int c = 0; c < 3; c++)
            out[c] += (a[0] + a[1]) * d0[c] + (a[2] + a[3]) * d3[c];
    }
}

/* The nodes' (force, torque) from the point's force f (the transpose of
 * point_velocity). */
void ba_point_force(const beam_interpolation *bi, const ba_point *p, const double *x,
                    const double f[3], double F0[6], double F1[6])
{
    double q[2][4], r[2][3], a[4];
    node_frames(bi, p->beam, x, q, r);
    const double L = ba_length(bi, p->beam);
    const double lever[3] = {L / 3.0, 0.0, 0.0}, lp[3] = {0.0, p->y, p->z};
    const bool off = st_v3_norm(lp) > L * 1e-10;
    bernstein(p->bary, a);
    const double w[2][2] = {{a[0], a[1]}, {a[3], a[2]}}; /* (end point, inner point) per node */
    double *out[2] = {F0, F1};
    for (int k = 0; k < 2; k++) {
        double fl[3], t[3], tl[3] = {0, 0, 0}, fe[3], fi[3];
        inv_rotate(fl, q[k], f);
        for (int c = 0; c < 3; c++)
            fe[c] = w[k][0] * fl[c], fi[c] = w[k][1] * fl[c];
        st_v3_cross(t, lever, fi);
        for (int c = 0; c < 3; c++)
            tl[c] = k == 0 ? t[c] : -t[c];
        if (off) {
            double s[3];
            for (int c = 0; c < 3; c++)
                s[c] = fe[c] + fi[c];
            st_v3_cross(t, lp, s);
            for (int c = 0; c < 3; c++)
                tl[c] += t[c];
        }
        double sum[3], Fg[3], Tg[3], rf[3];
        for (int c = 0; c < 3; c++)
            sum[c] = fe[c] + fi[c];
        st_quat_rotate(Fg, q[k], sum);
        st_quat_rotate(Tg, q[k], tl);
        st_v3_cross(rf, r[k], Fg);
        for (int c = 0; c < 3; c++) {
            out[k][c] = Fg[c];
            out[k][3 + c] = Tg[c] + rf[c];
        }
    }
}

/* ---- Mapping ---- */

static bool ready(const adaptive_beam_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->h.in->n == m->nin && m->bi->base.state == ST_CSTATE_VALID;
}

static void refresh(adaptive_beam_mapping *m)
{
    if (m->use_curv_abs && !m->contact_duplicate && !compute_distribution(m)) {
        st_component_warn(&m->h.base, "out of memory distributing the points on the beams");
        m->ndist = 0;
    }
}

static size_t mapped(const adaptive_beam_mapping *m)
{
    return m->ndist < m->n ? m->ndist : m->n;
}

static void apply_range(adaptive_beam_mapping *m, const double *xin, double *xout)
{
    const size_t n = mapped(m);
    for (size_t i = 0; i < n; i++)
        ba_point_position(m->bi, &m->dist[i], xin, xout + 3 * i);
    /* SOFA: points past the distribution are set to 0 */
    for (size_t i = n; i < m->n; i++)
        xout[3 * i] = xout[3 * i + 1] = xout[3 * i + 2] = 0.0;
}

static void apply_j_range(adaptive_beam_mapping *m, const double *x, const double *vin,
                          double *vout)
{
    const size_t n = mapped(m);
    for (size_t i = 0; i < n; i++) {
        unsigned n0, n1;
        ba_node_indices(m->bi, m->dist[i].beam, &n0, &n1);
        ba_point_velocity(m->bi, &m->dist[i], x, vin + 6 * (size_t)n0, vin + 6 * (size_t)n1,
                       vout + 3 * i);
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    adaptive_beam_mapping *m = (adaptive_beam_mapping *)self;
    memcpy(m->xlast, xin, 7 * m->nin * sizeof(double));
    apply_range(m, xin, xout);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    adaptive_beam_mapping *m = (adaptive_beam_mapping *)self;
    apply_j_range(m, m->xlast, vin, vout);
}

static void abm_free(adaptive_beam_mapping *m)
{
    st_free(m->dist);
    st_free(m->xlast);
    m->xlast = NULL;
    m->dist = NULL;
    m->ndist = m->cap = 0;
}

/* The interpolation: the link, else the first one from this node upwards
 * (SOFA's context search). */
static st_status find_interpolation(adaptive_beam_mapping *m, st_error *err)
{
    st_component *self = &m->h.base, *c = m->interpolation;
    for (st_node *n = self->node; n && !c; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n) && !c; i++)
            if (ba_is_interpolation(st_node_object(n, i)))
                c = st_node_object(n, i);
    if (!c)
        return st_component_error(self, "interpolation", err, ST_ESCENE,
                                  "No Beam Interpolation found, the component can not work.");
    return ba_find_interpolation(self, c, &m->bi, err);
}

static st_status abm_init(st_component *self, st_error *err)
{
    adaptive_beam_mapping *m = (adaptive_beam_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    abm_free(m);
    ST_TRY(map_head_bind(&m->h, &st_rigid3d_type, &st_vec3d_type, err));
    ST_TRY(find_interpolation(m, err));
    if (m->bi->ms != m->h.in)
        return st_component_error(self, "interpolation", err, ST_ESCENE,
                                  "the interpolation %s works on %s, not on this mapping's "
                                  "input %s",
                                  m->bi->base.name, m->bi->ms->base.name, m->h.in->base.name);
    if (m->contact_duplicate)
        st_component_warn(self, "contactDuplicate has no effect: settee has no contact "
                                "mapping duplicates");
    st_mstate *out = m->h.out;
    if (m->points.n == 0) {
        if (out->position.n == 0)
            st_component_warn(self, "No point defined in the AdaptiveBeamMapping");
        else {
            ST_TRY(st_array_resize_width(&m->points, 3, out->position.n, err));
            memcpy(m->points.r, out->position.r, 3 * out->position.n * sizeof(double));
        }
    }
    if (m->use_curv_abs) {
        size_t bad = 0;
        for (size_t i = 0; i + 1 < m->points.n; i++)
            bad += m->points.r[3 * i] > m->points.r[3 * (i + 1)];
        if (bad >= 10)
            st_component_warn(self, "When using useCurvAbs==true, points must be sorted "
                                    "according to their curvAbs (%zu out of order)",
                              bad);
    }
    m->nin = m->h.in->position.n;
    m->xlast = st_calloc(m->nin ? 7 * m->nin : 1, sizeof *m->xlast);
    if (!m->xlast || !compute_distribution(m))
        return st_error_set(err, ST_ENOMEM, "out of memory distributing %zu points",
                            m->points.n);
    m->n = m->nb_points_per_beam > 0.0 ? m->ndist : m->points.n;
    if (out->position.n != m->n)
        ST_TRY(map_resize_output(out, m->n, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void abm_cleanup(st_component *self)
{
    abm_free((adaptive_beam_mapping *)self);
    map_head_release(&((adaptive_beam_mapping *)self)->h);
}

static void abm_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    adaptive_beam_mapping *m = (adaptive_beam_mapping *)self;
    double *xout = ready(m) ? map_head_xout(&m->h, x) : NULL;
    if (!xout)
        return;
    refresh(m);
    const double *xin = st_slice_x(x, m->h.in);
    memcpy(m->xlast, xin, 7 * m->nin * sizeof(double));
    apply_range(m, xin, xout);
    map_head_touch_visual(&m->h);
}

/* The input's positions at the last apply (SOFA's applyJ and applyJT read
 * the input's current positions). */
static const double *input_x(const adaptive_beam_mapping *m, const st_mparams *mp)
{
    (void)mp;
    return m->xlast;
}

static void abm_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    adaptive_beam_mapping *m = (adaptive_beam_mapping *)self;
    if (!ready(m) || m->h.visual)
        return;
    refresh(m);
    apply_j_range(m, input_x(m, mp), st_slice(v, m->h.in), st_slice(v, m->h.out));
}

static void abm_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    adaptive_beam_mapping *m = (adaptive_beam_mapping *)self;
    if (!ready(m) || m->h.visual)
        return;
    const double *x = input_x(m, mp);
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    const size_t n = mapped(m);
    for (size_t i = 0; i < n; i++) {
        unsigned n0, n1;
        double F0[6], F1[6];
        ba_node_indices(m->bi, m->dist[i].beam, &n0, &n1);
        ba_point_force(m->bi, &m->dist[i], x, fout + 3 * i, F0, F1);
        for (int c = 0; c < 6; c++) {
            fin[6 * (size_t)n0 + c] += F0[c];
            fin[6 * (size_t)n1 + c] += F1[c];
        }
    }
}

/* J by columns: the velocity map of unit node velocities (SOFA's
 * computeJacobianOnPoint). */
static void abm_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    adaptive_beam_mapping *m = (adaptive_beam_mapping *)self;
    if (!ready(m) || m->h.visual)
        return;
    const double *x = input_x(m, mp);
    const double zero[6] = {0, 0, 0, 0, 0, 0};
    const size_t n = mapped(m);
    for (size_t i = 0; i < n; i++) {
        unsigned nd[2];
        ba_node_indices(m->bi, m->dist[i].beam, &nd[0], &nd[1]);
        for (int k = 0; k < 2; k++) {
            double B[18];
            for (int j = 0; j < 6; j++) {
                double e[6] = {0, 0, 0, 0, 0, 0}, o[3];
                e[j] = 1.0;
                ba_point_velocity(m->bi, &m->dist[i], x, k ? zero : e, k ? e : zero, o);
                for (int r = 0; r < 3; r++)
                    B[6 * r + j] = o[r];
            }
            st_jbuilder_add(jb, i, m->h.in, nd[k], B);
        }
    }
}

#define T adaptive_beam_mapping
static const st_field abm_fields[] = {
    MAP_HEAD_FIELDS(T),
    ST_BOOL(T, use_curv_abs, "useCurvAbs", "true",
            "true if the curvilinear abscissa of the points remains the same during the "
            "simulation if not the curvilinear abscissa moves with adaptivity and the num of "
            "segment per beam is always the same"),
    ST_VEC3S(T, points, "points", "",
             "defines the mapped points along the beam axis (in beam frame local coordinates)"),
    ST_REAL(T, proximity, "proximity", "0",
            "if positive, the mapping is modified for the constraints to take into account the "
            "lever created by the proximity (settee: no constraints are mapped, no effect)"),
    ST_BOOL(T, contact_duplicate, "contactDuplicate", "false",
            "if true, this mapping is a copy of an input mapping and is used to gather contact "
            "points (ContinuousFrictionContact Response; settee: not supported, a warning)"),
    ST_STRING(T, input_map_name, "nameOfInputMap", "",
              "if contactDuplicate==true, it provides the name of the input mapping"),
    ST_REAL(T, nb_points_per_beam, "nbPointsPerBeam", "0",
            "if non zero, we will adapt the points depending on the discretization, with this "
            "num of points per beam (compatible with useCurvAbs)"),
    ST_OUTPUT(T, segments_curv_abs, "segmentsCurvAbs", ST_T_REALS, st_array,
              "the abscissa of each point on the collision model"),
    ST_BOOL(T, parallel, "parallelMapping", "false",
            "flag to enable parallel internal computation (settee: always sequential)"),
    ST_LINK(T, interpolation, "interpolation", ST_LINK_ANY,
            "Path to the Interpolation component on scene"),
    ST_FIELD_END};
#undef T

static const st_mapping_ops abm_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = abm_apply,
    .apply_j = abm_apply_j,
    .apply_jt = abm_apply_jt,
    .get_j = abm_get_j,
    .flags = map_head_flags,
};

static const char *const abm_templates[] = {"Rigid3d", NULL};

const st_class adaptive_beam_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "AdaptiveBeamMapping",
    .category = "Mapping",
    .description = "Points along adaptive beams (BeamInterpolation, WireBeamInterpolation) on "
                   "each beam's cubic spline, by curvilinear abscissa or beam and barycentric "
                   "coordinate (BeamAdapter)",
    .instance_size = sizeof(adaptive_beam_mapping),
    .fields = abm_fields,
    .init = abm_init,
    .reinit = abm_init,
    .cleanup = abm_cleanup,
    .mapping = &abm_ops,
    .templates = abm_templates,
};
