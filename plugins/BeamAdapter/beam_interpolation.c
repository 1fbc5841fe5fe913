/* beam_interpolation.c - BeamInterpolation (SOFA's BeamAdapter plugin, with
 * its base BaseBeamInterpolation): the beams of an edge topology between
 * Rigid3d frames, their sections and materials, and the cubic spline that
 * interpolates a frame along each beam.
 *
 * Beam b joins points n0, n1 (edge edgeList[b]). Its node frames are the
 * DOF frames times the DOF-to-node transforms DOF0TransformNode0[b],
 * DOF1TransformNode1[b] (used only when dofsAndBeamsAligned is false; init
 * sizes both lists to the beams, new entries the identity). The spline's
 * control points are P0 = o0, P1 = o0 + (L/3) x0, P2 = o1 - (L/3) x1,
 * P3 = o1 (o, x: a node frame's origin and x axis, L the rest length). The
 * frame at bary in [0, 1]: its origin the Bezier point, its x axis the
 * tangent, its rotation found by turning each node frame about the shortest
 * arc onto the tangent, slerping the two halfway by bary and turning the
 * result onto the tangent again. A beam compressed so much that P1 - P0 and
 * P2 - P1 point apart while |P3 - P0| < 0.4 L takes the straight line and
 * node 0's rotation instead (BeamAdapter's rule).
 *
 * Init (as SOFA's): the per-beam lists radius, innerRadius, lengthY,
 * lengthZ, defaultYoungModulus and defaultPoissonRatio are resized to the
 * number of edges with their first value (a warning when empty); when one
 * already has that size the beams get one section each, else one section
 * for all. Circular section: A = pi (r^2 - ri^2), Iy = Iz = pi (r^4 - ri^4)
 * / 4, J = Iy + Iz; rectangular: Iy = Ly Lz^3 / 12, Iz = Lz Ly^3 / 12,
 * J = Iy + Iz, A = Ly Lz; shear areas 0. SOFA's option "elliptic (not
 * available)" never matches its test for "elliptic" and so gives the
 * circular section, here too. Unless edgeList, lengthList and both
 * transform lists are given with one entry per beam, edgeList becomes every
 * edge of the topology and each rest length the chord between the node
 * frames, refined three times by the spline length at the current
 * positions. Then InterpolatedPos is computed from InterpolationInputs at
 * the positions vecID names (SOFA's storeResetState); with vecID "rest"
 * SOFA leaves each frame the identity, and so does settee.
 * InterpolatedVel is sized and left zero, as SOFA's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "beam_adapter.h"
#include "../shared/options.h"
#include "../shared/topology_link.h"
#include "../shared/euler_quat.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- Transforms ---- */

static void quat_conj(double out[4], const double q[4])
{
    out[0] = -q[0], out[1] = -q[1], out[2] = -q[2], out[3] = q[3];
}

static void inv_rotate(double out[3], const double q[4], const double v[3])
{
    double c[4];
    quat_conj(c, q);
    st_quat_rotate(out, c, v);
}

void ba_xf_identity(ba_xf *h)
{
    memset(h, 0, sizeof *h);
    h->q[3] = 1.0;
}

void ba_xf_mul(ba_xf *out, const ba_xf *a, const ba_xf *b)
{
    double t[3], q[4];
    st_quat_rotate(t, a->q, b->t);
    st_quat_mul(q, a->q, b->q);
    for (int c = 0; c < 3; c++)
        out->t[c] = a->t[c] + t[c];
    memcpy(out->q, q, sizeof q);
}

void ba_xf_inv(ba_xf *out, const ba_xf *h)
{
    double t[3], q[4];
    inv_rotate(t, h->q, h->t);
    quat_conj(q, h->q);
    for (int c = 0; c < 3; c++)
        out->t[c] = -t[c];
    memcpy(out->q, q, sizeof q);
}

/* SOFA's Quat::toMatrix (row-major). */
static void quat_matrix(double R[9], const double *q)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - z * w), R[2] = 2 * (z * x + y * w);
    R[3] = 2 * (x * y + z * w), R[4] = 1 - 2 * (z * z + x * x), R[5] = 2 * (y * z - x * w);
    R[6] = 2 * (z * x - y * w), R[7] = 2 * (y * z + x * w), R[8] = 1 - 2 * (y * y + x * x);
}

void ba_xf_adjoint(const ba_xf *h, double A[36])
{
    double R[9], T[9] = {0, -h->t[2], h->t[1], h->t[2], 0, -h->t[0], -h->t[1], h->t[0], 0};
    double TR[9];
    quat_matrix(R, h->q);
    st_m3_mul(TR, T, R);
    memset(A, 0, 36 * sizeof(double));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            A[6 * i + j] = R[3 * i + j];
            A[6 * (i + 3) + j + 3] = R[3 * i + j];
            A[6 * i + j + 3] = TR[3 * i + j];
        }
}

/* Turns frame q about the shortest arc so that its x axis is the unit x. */
static void align_x(const double q[4], const double x[3], double out[4])
{
    double x0[3];
    inv_rotate(x0, q, x);
    const double c = x0[0];
    if (c > 0.9999999999) {
        memcpy(out, q, 4 * sizeof(double));
        return;
    }
    double dw[3] = {0.0, -x0[2], x0[1]};
    if (st_v3_normalize(dw) == 0.0)
        dw[2] = 1.0; /* x reversed: any axis normal to it (SOFA leaves a zero quaternion) */
    const double sp = sqrt(0.5 * (1.0 - c)), cp = sqrt(0.5 * (1.0 + c));
    const double r[4] = {0.0, dw[1] * sp, dw[2] * sp, cp};
    st_quat_mul(out, q, r);
}

void ba_slerp(double out[4], const double a[4], const double b[4], double t)
{
    const double cosa = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double c1, c2;
    if (1.0 - fabs(cosa) < 0.01) {
        c1 = 1.0 - t;
        c2 = t;
    } else {
        const double ang = acos(fabs(cosa)), s = sin(ang);
        c1 = sin(ang * (1.0 - t)) / s;
        c2 = sin(ang * t) / s;
    }
    if (cosa < 0.0)
        c1 = -c1;
    for (int k = 0; k < 4; k++)
        out[k] = c1 * a[k] + c2 * b[k];
}

/* ---- Spline ---- */

void ba_control_points(const ba_xf *g0, const ba_xf *g1, double L, double P[4][3])
{
    const double ex[3] = {1, 0, 0};
    double a[3], b[3];
    st_quat_rotate(a, g0->q, ex);
    st_quat_rotate(b, g1->q, ex);
    for (int c = 0; c < 3; c++) {
        P[0][c] = g0->t[c];
        P[3][c] = g1->t[c];
        P[1][c] = P[0][c] + a[c] * (L / 3.0);
        P[2][c] = P[3][c] - b[c] * (L / 3.0);
    }
}

/* dP/dbary at bary. */
static void spline_tangent(const double P[4][3], double b, double t[3])
{
    const double w0 = -3 * (1 - b) * (1 - b), w1 = 3 - 12 * b + 9 * b * b,
                 w2 = 6 * b - 9 * b * b, w3 = 3 * b * b;
    for (int c = 0; c < 3; c++)
        t[c] = P[0][c] * w0 + P[1][c] * w1 + P[2][c] * w2 + P[3][c] * w3;
}

static void spline_point(const double P[4][3], double b, double p[3])
{
    const double ib = 1 - b;
    for (int c = 0; c < 3; c++)
        p[c] = P[0][c] * ib * ib * ib + P[1][c] * 3 * b * ib * ib + P[2][c] * 3 * b * b * ib +
               P[3][c] * b * b * b;
}

double ba_spline_length(const double P[4][3])
{
    const double A = 2 * sqrt(6.0 / 5.0), B = sqrt(30.0);
    const double xs[4] = {-sqrt((3.0 - A) / 7.0) / 2.0 + 0.5, sqrt((3.0 - A) / 7.0) / 2.0 + 0.5,
                          -sqrt((3.0 + A) / 7.0) / 2.0 + 0.5, sqrt((3.0 + A) / 7.0) / 2.0 + 0.5};
    const double ws[4] = {(18.0 + B) / 72.0, (18.0 + B) / 72.0, (18.0 - B) / 72.0,
                          (18.0 - B) / 72.0};
    double len = 0.0;
    for (int i = 0; i < 4; i++) {
        double t[3];
        spline_tangent(P, xs[i], t);
        len += ws[i] * st_v3_norm(t);
    }
    return len;
}

void ba_interpolate_transform(ba_xf *out, double bary, const ba_xf *g0, const ba_xf *g1,
                              double L)
{
    double P[4][3], d01[3], d12[3], d03[3];
    ba_control_points(g0, g1, L, P);
    st_v3_sub(d01, P[1], P[0]);
    st_v3_sub(d12, P[2], P[1]);
    st_v3_sub(d03, P[3], P[0]);
    if (st_v3_dot(d01, d12) < 0.0 && st_v3_norm(d03) < 0.4 * L) {
        /* Strongly compressed: the straight line, node 0's rotation. */
        memcpy(out->q, g0->q, sizeof out->q);
        for (int c = 0; c < 3; c++)
            out->t[c] = P[0][c] * (1 - bary) + P[3][c] * bary;
        return;
    }
    double nx[3], r0[4], r1[4], rs[4];
    spline_point(P, bary, out->t);
    spline_tangent(P, bary, nx);
    st_v3_normalize(nx);
    align_x(g0->q, nx, r0);
    align_x(g1->q, nx, r1);
    ba_slerp(rs, r0, r1, (double)(float)bary); /* BeamAdapter passes bary as a float */
    st_quat_normalize(rs);
    align_x(rs, nx, out->q);
}

/* ---- Beams ---- */

size_t ba_num_beams(const beam_interpolation *bi)
{
    return bi->edge_list.n;
}

void ba_node_indices(const beam_interpolation *bi, size_t b, unsigned *n0, unsigned *n1)
{
    const unsigned e = bi->edge_list.u[b];
    *n0 = bi->edges->u[2 * e];
    *n1 = bi->edges->u[2 * e + 1];
}

static void xf_from_array(ba_xf *h, const double *p)
{
    memcpy(h->t, p, 3 * sizeof(double));
    memcpy(h->q, p + 3, 4 * sizeof(double));
}

void ba_dof_to_local(const beam_interpolation *bi, size_t b, ba_xf *d0, ba_xf *d1)
{
    if (bi->dofs_aligned || b >= bi->dof0_node0.n || b >= bi->dof1_node1.n) {
        ba_xf_identity(d0);
        ba_xf_identity(d1);
        return;
    }
    xf_from_array(d0, bi->dof0_node0.r + 7 * b);
    xf_from_array(d1, bi->dof1_node1.r + 7 * b);
}

void ba_compute_transform(const beam_interpolation *bi, size_t b, const double *x, ba_xf *g0,
                          ba_xf *g1)
{
    unsigned n0, n1;
    ba_node_indices(bi, b, &n0, &n1);
    ba_xf d0, d1, h0, h1;
    ba_dof_to_local(bi, b, &d0, &d1);
    xf_from_array(&h0, x + 7 * (size_t)n0);
    xf_from_array(&h1, x + 7 * (size_t)n1);
    ba_xf_mul(g0, &h0, &d0);
    ba_xf_mul(g1, &h1, &d1);
}

double ba_length(const beam_interpolation *bi, size_t b)
{
    return bi->length_list.r[b];
}

const ba_section *ba_beam_section(const beam_interpolation *bi, size_t b)
{
    if (bi->hooks && bi->hooks->section)
        return bi->hooks->section(bi, b);
    return bi->constant ? &bi->constant_section : &bi->section[b];
}

void ba_mechanical_parameters(const beam_interpolation *bi, size_t b, double *E, double *nu,
                              double *rho)
{
    if (bi->hooks && bi->hooks->mechanical) {
        bi->hooks->mechanical(bi, b, E, nu, rho);
        return;
    }
    *E = b < bi->young.n ? bi->young.r[b] : bi->def_young;
    *nu = b < bi->poisson.n ? bi->poisson.r[b] : bi->def_poisson;
}

double ba_rest_total_length(const beam_interpolation *bi)
{
    if (bi->hooks && bi->hooks->rest_total_length)
        return bi->hooks->rest_total_length(bi);
    double L = 0.0;
    for (size_t i = 0; i < bi->length_list.n; i++)
        L += bi->length_list.r[i];
    return L;
}

void ba_beam_at_curv_abs(const beam_interpolation *bi, double x, size_t *beam, double *bary)
{
    const size_t n = ba_num_beams(bi);
    double out = 0.0;
    for (size_t e = 0; e < n; e++)
        out += ba_length(bi, e);
    /* the abscissa from the first beam's start: beams may be only the part
     * of the instrument that is out */
    const double xi = x + out - ba_rest_total_length(bi);
    *beam = 0, *bary = 0.0;
    if (n == 0 || xi < 0.0)
        return;
    double acc = 0.0;
    for (size_t e = 0; e < n; e++) {
        const double L = ba_length(bi, e);
        acc += L;
        if (acc > xi) {
            *beam = e;
            *bary = (xi - (acc - L)) / L;
            return;
        }
    }
    *beam = n - 1;
    *bary = 1.0;
}

void ba_spline_rest_transform(const beam_interpolation *bi, size_t b, ba_xf *l0, ba_xf *l1)
{
    if (bi->hooks && bi->hooks->spline_rest) {
        bi->hooks->spline_rest(bi, b, l0, l1);
        return;
    }
    const double L = ba_length(bi, b);
    if (bi->straight) {
        ba_xf_identity(l0);
        ba_xf_identity(l1);
        l0->t[0] = -L / 2;
        l1->t[0] = L / 2;
        return;
    }
    ba_xf g0, g1, mid, inv;
    ba_compute_transform(bi, b, bi->ms->rest_position.r, &g0, &g1);
    ba_interpolate_transform(&mid, 0.5, &g0, &g1, L);
    ba_xf_inv(&inv, &mid);
    ba_xf_mul(l0, &inv, &g0);
    ba_xf_mul(l1, &inv, &g1);
}

void ba_stretch_and_twist(const beam_interpolation *bi, size_t b, const double *x, double r0[3],
                          double r1[3])
{
    ba_xf g0, g1;
    double P[4][3];
    ba_compute_transform(bi, b, x, &g0, &g1);
    ba_control_points(&g0, &g1, ba_length(bi, b), P);
    unsigned n0, n1;
    ba_node_indices(bi, b, &n0, &n1);
    double q0[4], q1[4];
    memcpy(q0, x + 7 * (size_t)n0 + 3, sizeof q0);
    memcpy(q1, x + 7 * (size_t)n1 + 3, sizeof q1);
    st_quat_normalize(q0);
    st_quat_normalize(q1);
    const double ey[3] = {0, 1, 0};
    double nx[3], ny[3], nz[3], pos[3], prev[3], seg[3];
    st_quat_rotate(ny, q0, ey);
    memcpy(pos, P[0], sizeof pos);
    double len0 = 0.0, len1 = 0.0;
    /* Walk the spline in steps of 0.02, carrying the frame along (SOFA's loop). */
    for (double bx = 0.02; bx < 1.00001; bx += 0.02) {
        memcpy(prev, pos, sizeof prev);
        spline_point(P, bx, pos);
        st_v3_sub(seg, pos, prev);
        if (bx < 0.50001)
            len0 += st_v3_norm(seg);
        else
            len1 += st_v3_norm(seg);
        spline_tangent(P, bx, nx);
        st_v3_normalize(nx);
        st_v3_cross(nz, nx, ny);
        st_v3_normalize(nz);
        st_v3_cross(ny, nz, nx);
        st_v3_normalize(ny);
    }
    double y1[3];
    st_quat_rotate(y1, q1, ey);
    double c = st_v3_dot(y1, ny), theta;
    if (c > 1.0)
        theta = 0.0;
    else
        theta = (st_v3_dot(y1, nz) < 0.0 ? -1.0 : 1.0) * acos(c < -1.0 ? -1.0 : c);
    r0[0] = len0, r0[1] = 0.0, r0[2] = theta / 2.0;
    r1[0] = len1, r1[1] = 0.0, r1[2] = theta / 2.0;
}

static st_status resize_transforms(beam_interpolation *bi, st_array *a, size_t n, st_error *err)
{
    const size_t old = a->n;
    ST_TRY(st_array_resize_width(a, 7, n, err));
    for (size_t i = old; i < n; i++)
        a->r[7 * i + 6] = 1.0;
    return ST_OK;
}

st_status ba_clear_beams(beam_interpolation *bi, st_error *err)
{
    ST_TRY(st_array_resize(&bi->edge_list, ST_T_UINTS, 0, err));
    ST_TRY(st_array_resize(&bi->length_list, ST_T_REALS, 0, err));
    ST_TRY(st_array_resize(&bi->curv_abs_list, ST_T_REALS, 0, err));
    ST_TRY(st_array_resize_width(&bi->dof0_node0, 7, 0, err));
    return st_array_resize_width(&bi->dof1_node1, 7, 0, err);
}

st_status ba_add_beam(beam_interpolation *bi, unsigned edge, double length, double x0, double x1,
                      double angle, st_error *err)
{
    if (edge >= bi->nedges)
        return st_component_error(&bi->base, "edgeList", err, ST_EINVAL,
                                  "beam on edge %u: the topology has %zu edges", edge,
                                  bi->nedges);
    /* the transform lists may be shorter than edgeList while the DOFs and
     * beams were aligned: bring them to one entry per beam first */
    const size_t n = bi->edge_list.n;
    ST_TRY(resize_transforms(bi, &bi->dof0_node0, n, err));
    ST_TRY(resize_transforms(bi, &bi->dof1_node1, n, err));
    ST_TRY(st_array_resize(&bi->edge_list, ST_T_UINTS, n + 1, err));
    ST_TRY(st_array_resize(&bi->length_list, ST_T_REALS, n + 1, err));
    ST_TRY(st_array_resize(&bi->curv_abs_list, ST_T_REALS, 2 * (n + 1), err));
    ST_TRY(resize_transforms(bi, &bi->dof0_node0, n + 1, err));
    ST_TRY(resize_transforms(bi, &bi->dof1_node1, n + 1, err));
    bi->edge_list.u[n] = edge;
    bi->length_list.r[n] = length;
    bi->curv_abs_list.r[2 * n] = x0;
    bi->curv_abs_list.r[2 * n + 1] = x1;
    bi->dofs_aligned = false;
    const double q[4] = {sin(angle / 2), 0.0, 0.0, cos(angle / 2)};
    for (int k = 0; k < 2; k++) {
        double *d = (k ? bi->dof1_node1.r : bi->dof0_node0.r) + 7 * n;
        memset(d, 0, 3 * sizeof(double));
        memcpy(d + 3, q, sizeof q);
    }
    return ST_OK;
}

bool ba_is_interpolation(const st_component *c)
{
    return c && (c->cls == &beam_interpolation_class || c->cls == &wire_beam_interpolation_class);
}

st_status ba_find_interpolation(st_component *self, st_component *link, beam_interpolation **out,
                                st_error *err)
{
    st_component *c = link;
    if (!c)
        for (size_t i = 0; i < st_node_object_count(self->node) && !c; i++) {
            st_component *o = st_node_object(self->node, i);
            if (ba_is_interpolation(o))
                c = o;
        }
    if (!c)
        return st_component_error(self, "interpolation", err, ST_ESCENE,
                                  "No Beam Interpolation found, the component can not work.");
    if (!ba_is_interpolation(c))
        return st_component_error(self, "interpolation", err, ST_ESCENE,
                                  "%s is a %s, not a BeamInterpolation or "
                                  "WireBeamInterpolation",
                                  c->name, c->cls->name);
    if (c->state != ST_CSTATE_VALID)
        ST_TRY(c->cls->init(c, err));
    *out = (beam_interpolation *)c;
    return ST_OK;
}

/* ---- Init ---- */

static const char *const shape_options[] = {"circular", "elliptic (not available)",
                                            "rectangular", NULL};
static const char *const vecid_options[] = {"current", "free", "rest", NULL};
static const st_option_field bi_options[] = {
    {"crossSectionShape", shape_options}, {"vecID", vecid_options}, {NULL, NULL}};

/* SOFA's checkDataSize: one value per beam; returns the value beams past
 * the list would take. */
static st_status check_size(beam_interpolation *bi, st_array *a, const char *field, double def,
                            double *out, st_error *err)
{
    const size_t n = bi->nedges;
    if (a->n != n) {
        double v = def;
        if (a->n == 0)
            st_component_warn(&bi->base, "Empty data field for %s. Set default %g", field, def);
        else
            v = a->r[0];
        ST_TRY(st_array_resize(a, ST_T_REALS, n, err));
        for (size_t i = 0; i < n; i++)
            a->r[i] = v;
    } else {
        bi->constant = false;
    }
    *out = n ? a->r[0] : def;
    return ST_OK;
}

static void circular(ba_section *s, double r, double ri)
{
    memset(s, 0, sizeof *s);
    s->r = r, s->r_inner = ri;
    s->Iz = M_PI * (r * r * r * r - ri * ri * ri * ri) / 4.0;
    s->Iy = s->Iz;
    s->J = s->Iz + s->Iy;
    s->A = M_PI * (r * r - ri * ri);
}

static void rectangular(ba_section *s, double ly, double lz)
{
    memset(s, 0, sizeof *s);
    s->Iy = ly * lz * lz * lz / 12.0;
    s->Iz = lz * ly * ly * ly / 12.0;
    s->J = s->Iy + s->Iz;
    s->A = ly * lz;
}

/* True when the scene gave the whole interpolation (SOFA's
 * interpolationIsAlreadyInitialized). */
static bool already_initialized(const beam_interpolation *bi)
{
    const size_t n = bi->edge_list.n;
    return n && bi->dof0_node0.n == n && bi->dof1_node1.n == n && bi->length_list.n == n;
}


static st_status update_interpolation(beam_interpolation *bi, st_error *err)
{
    const size_t n = bi->interpolation_inputs.n / 2;
    ST_TRY(st_array_resize_width(&bi->interpolated_pos, 7, n, err));
    ST_TRY(st_array_resize_width(&bi->interpolated_vel, 6, n, err));
    const bool rest = strcmp(bi->vec_id, "rest") == 0;
    const double *x = rest ? bi->ms->rest_position.r : bi->ms->position.r;
    /* "free": settee has no free positions outside a step; the current ones. */
    for (size_t i = 0; i < n; i++) {
        const double beam = bi->interpolation_inputs.r[2 * i];
        const double bary = bi->interpolation_inputs.r[2 * i + 1];
        if (!(beam >= 0.0) || (size_t)beam >= ba_num_beams(bi))
            return st_component_error(&bi->base, "InterpolationInputs", err, ST_EINVAL,
                                      "input %zu names beam %g; there are %zu beams", i, beam,
                                      ba_num_beams(bi));
        ba_xf res;
        ba_xf_identity(&res);
        if (!rest) {
            ba_xf g0, g1;
            double P[4][3];
            ba_compute_transform(bi, (size_t)beam, x, &g0, &g1);
            ba_control_points(&g0, &g1, ba_length(bi, (size_t)beam), P);
            ba_interpolate_transform(&res, bary, &g0, &g1, ba_spline_length(P));
        }
        memcpy(bi->interpolated_pos.r + 7 * i, res.t, 3 * sizeof(double));
        memcpy(bi->interpolated_pos.r + 7 * i + 3, res.q, 4 * sizeof(double));
    }
    return ST_OK;
}

st_status ba_bind_frames_and_edges(beam_interpolation *bi, st_error *err)
{
    st_component *self = &bi->base;
    bi->ms = st_component_mstate(self);
    if (!bi->ms || !bi->ms->type->rigid)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "No mechanical state with the datatype 'Rigid3d' found in the "
                                  "context node");
    ST_TRY(st_find_topology(self, &bi->topology, err));
    const st_topology_ops *t = bi->topology->cls->topology;
    bi->edges = t->elements ? t->elements(bi->topology, ST_T_EDGES) : NULL;
    if (!bi->edges || bi->edges->n == 0)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "Found a topology (%s) but it is empty (no edges). Component "
                                  "is de-activated",
                                  bi->topology->name);
    bi->nedges = bi->edges->n;
    const size_t np = bi->ms->position.n;
    for (size_t i = 0; i < 2 * bi->nedges; i++)
        if (bi->edges->u[i] >= np)
            return st_component_error(self, "topology", err, ST_ESCENE,
                                      "edge %zu of %s names point %u; the state has %zu points",
                                      i / 2, bi->topology->name, bi->edges->u[i], np);
    return ST_OK;
}

st_status ba_interpolation_prepare(beam_interpolation *bi, st_error *err)
{
    st_component *self = &bi->base;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(st_options_check(self, bi_options, err));
    ST_TRY(ba_bind_frames_and_edges(bi, err));
    bi->constant = true;
    double r, ri, ly, lz;
    ST_TRY(check_size(bi, &bi->radius, "radius", 1.0, &r, err));
    ST_TRY(check_size(bi, &bi->inner_radius, "innerRadius", 0.0, &ri, err));
    ST_TRY(check_size(bi, &bi->length_y, "lengthY", 1.0, &ly, err));
    ST_TRY(check_size(bi, &bi->length_z, "lengthZ", 1.0, &lz, err));
    ST_TRY(check_size(bi, &bi->young, "defaultYoungModulus", 1e5, &bi->def_young, err));
    ST_TRY(check_size(bi, &bi->poisson, "defaultPoissonRatio", 0.4, &bi->def_poisson, err));
    const bool rect = strcmp(bi->cross_section_shape, "rectangular") == 0;
    st_free(bi->section);
    bi->section = NULL;
    if (bi->constant) {
        if (rect)
            rectangular(&bi->constant_section, ly, lz);
        else
            circular(&bi->constant_section, r, ri);
    } else {
        bi->section = st_calloc(bi->nedges, sizeof *bi->section);
        if (!bi->section)
            return st_error_set(err, ST_ENOMEM, "out of memory (%zu beam sections)", bi->nedges);
        for (size_t i = 0; i < bi->nedges; i++) {
            if (rect)
                rectangular(&bi->section[i], bi->length_y.r[i], bi->length_z.r[i]);
            else
                circular(&bi->section[i], bi->radius.r[i], bi->inner_radius.r[i]);
        }
    }
    if (bi->curv_abs_list.n % 2)
        return st_component_error(self, "curvAbsList", err, ST_EINVAL,
                                  "%zu values: expected pairs (x0 x1)", bi->curv_abs_list.n);
    if (bi->interpolation_inputs.n % 2)
        return st_component_error(self, "InterpolationInputs", err, ST_EINVAL,
                                  "%zu values: expected pairs (beam bary)",
                                  bi->interpolation_inputs.n);
    if (!already_initialized(bi)) {
        const size_t n = bi->nedges;
        ST_TRY(st_array_resize(&bi->edge_list, ST_T_UINTS, n, err));
        for (size_t i = 0; i < n; i++)
            bi->edge_list.u[i] = (unsigned)i;
        ST_TRY(resize_transforms(bi, &bi->dof0_node0, n, err));
        ST_TRY(resize_transforms(bi, &bi->dof1_node1, n, err));
        ST_TRY(st_array_resize(&bi->length_list, ST_T_REALS, n, err));
        const double *x = bi->ms->position.r;
        for (size_t i = 0; i < n; i++) {
            ba_xf g0, g1;
            double d[3], P[4][3];
            ba_compute_transform(bi, i, x, &g0, &g1);
            st_v3_sub(d, g1.t, g0.t);
            bi->length_list.r[i] = st_v3_norm(d);
            /* The spline depends on the length: three refinements. */
            for (int it = 0; it < 3; it++) {
                ba_control_points(&g0, &g1, bi->length_list.r[i], P);
                bi->length_list.r[i] = ba_spline_length(P);
            }
        }
    } else {
        for (size_t j = 0; j < bi->edge_list.n; j++)
            if (bi->edge_list.u[j] >= bi->nedges)
                return st_component_error(self, "edgeList", err, ST_EINVAL,
                                          "The provided edge index '%u' is larger than '%zu' the "
                                          "amount of edges in the topology",
                                          bi->edge_list.u[j], bi->nedges);
    }
    ST_TRY(update_interpolation(bi, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static st_status bi_init(st_component *self, st_error *err)
{
    return ba_interpolation_prepare((beam_interpolation *)self, err);
}

static void bi_reset(st_component *self)
{
    st_error err = {0};
    if (self->state == ST_CSTATE_VALID && ba_interpolation_prepare((beam_interpolation *)self,
                                                                   &err) != ST_OK)
        st_component_warn(self, "reset: %s", err.msg);
}

static void bi_cleanup(st_component *self)
{
    beam_interpolation *bi = (beam_interpolation *)self;
    st_free(bi->section);
    bi->section = NULL;
}

#define T beam_interpolation
static const st_field bi_fields[] = {
    BA_BASE_FIELDS(T, ),
    ST_STRING(T, cross_section_shape, "crossSectionShape", "circular",
              "shape of the cross-section. Can be: circular, elliptic, square, rectangular. "
              "Default is circular"),
    ST_REALS(T, radius, "radius", "1",
             "radius of the beam (if circular cross-section is considered)"),
    ST_REALS(T, inner_radius, "innerRadius", "0", "inner radius of the beam if it applies"),
    ST_REAL(T, side_length, "sideLength", "1",
            "side length of the beam (if square cross-section is considered; not read, as SOFA)"),
    ST_REAL(T, small_radius, "smallRadius", "1",
            "small radius of the beam (if elliptic cross-section is considered; not read, as "
            "SOFA)"),
    ST_REAL(T, large_radius, "largeRadius", "1",
            "large radius of the beam (if elliptic cross-section is considered; not read, as "
            "SOFA)"),
    ST_REALS(T, length_y, "lengthY", "1",
             "length of the beam section along Y (if rectangular cross-section is considered)"),
    ST_REALS(T, length_z, "lengthZ", "1",
             "length of the beam section along Z (if rectangular cross-section is considered)"),
    ST_REALS(T, young, "defaultYoungModulus", "100000",
             "value of the young modulus if not defined in an other component"),
    ST_REALS(T, poisson, "defaultPoissonRatio", "0.4",
             "value of the poisson ratio if not defined in an other component"),
    ST_BOOL(T, straight, "straight", "true",
            "If true, will consider straight beams for the rest position"),
    ST_STRING(T, vec_id, "vecID", "current",
              "input pos and vel (current, free pos/vel, rest pos)"),
    ST_REALS(T, interpolation_inputs, "InterpolationInputs", "",
             "vector containing (beamID, baryCoord)"),
    ST_OUTPUT(T, interpolated_pos, "InterpolatedPos", ST_T_COORDS, st_array,
              "output Interpolated Position"),
    ST_OUTPUT(T, interpolated_vel, "InterpolatedVel", ST_T_DERIVS, st_array,
              "output Interpolated Velocity"),
    ST_FIELD_END};
#undef T

static const char *const bi_templates[] = {"Rigid3d", NULL};

const st_class beam_interpolation_class = {
    .struct_size = sizeof(st_class),
    .name = "BeamInterpolation",
    .category = "Misc",
    .description = "Adaptive 6D beams on the edges of a topology between Rigid3d frames: "
                   "sections, DOF-to-node transforms and the cubic spline interpolation of a "
                   "frame along each beam (BeamAdapter)",
    .instance_size = sizeof(beam_interpolation),
    .fields = bi_fields,
    .init = bi_init,
    .reinit = bi_init,
    .reset = bi_reset,
    .cleanup = bi_cleanup,
    .templates = bi_templates,
};
