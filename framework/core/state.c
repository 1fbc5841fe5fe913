/* state.c - the state types (Vec1d, Vec2d, Vec3d, Rigid2d, Rigid3d): sizes, names,
 * x (+) f v and coordinate differences, and the quaternion helpers they
 * need. The Rigid3d operations follow SOFA's RigidCoord/Quat arithmetic so
 * that trajectories agree to round-off. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- quaternions (x y z w) ---- */

void st_quat_mul(double r[4], const double a[4], const double b[4])
{
    double w = a[3] * b[3] - (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] + a[1] * b[3] + a[2] * b[0] - a[0] * b[2];
    double z = a[3] * b[2] + a[2] * b[3] + a[0] * b[1] - a[1] * b[0];
    r[0] = x;
    r[1] = y;
    r[2] = z;
    r[3] = w;
}

void st_quat_rotate(double out[3], const double q[4], const double v[3])
{
    /* v + w t + q x t with t = 2 q x v. */
    double t0 = 2.0 * (q[1] * v[2] - q[2] * v[1]);
    double t1 = 2.0 * (q[2] * v[0] - q[0] * v[2]);
    double t2 = 2.0 * (q[0] * v[1] - q[1] * v[0]);
    double o0 = v[0] + q[3] * t0 + (q[1] * t2 - q[2] * t1);
    double o1 = v[1] + q[3] * t1 + (q[2] * t0 - q[0] * t2);
    double o2 = v[2] + q[3] * t2 + (q[0] * t1 - q[1] * t0);
    out[0] = o0;
    out[1] = o1;
    out[2] = o2;
}

void st_quat_normalize(double q[4])
{
    double mag = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (fabs(mag - 1.0) <= 1e-10)
        return;
    if (mag == 0.0) {
        q[3] = 1.0;
        return;
    }
    double s = 1.0 / sqrt(mag);
    for (int i = 0; i < 4; i++)
        q[i] *= s;
}

/* sin(theta / 2) and theta of q (q[3] >= 0), as SOFA's Quat does: asin
 * for small angles (theta < 5 degrees), acos otherwise. */
static double half_sine(const double q[4], double *angle)
{
    if (q[3] > 0.999) {
        double s = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        *angle = 2.0 * asin(s);
        return s;
    }
    double half = acos(q[3]);
    *angle = 2.0 * half;
    return sin(half);
}

void st_quat_to_axis(const double qin[4], double axis[3], double *angle)
{
    double q[4] = {qin[0], qin[1], qin[2], qin[3]};
    if (q[3] < 0)
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
    double s = half_sine(q, angle);
    for (int i = 0; i < 3; i++)
        axis[i] = s < DBL_EPSILON ? (i == 1 ? 1.0 : 0.0) : q[i] / s;
}

/* Rotation vector (axis times angle) of a quaternion, as SOFA's
 * quatToRotationVector. */
static void quat_to_rotvec(double out[3], const double qin[4])
{
    double q[4] = {qin[0], qin[1], qin[2], qin[3]};
    st_quat_normalize(q);
    if (q[3] < 0)
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
    double angle, s = half_sine(q, &angle);
    for (int i = 0; i < 3; i++)
        out[i] = s < DBL_EPSILON ? 0.0 : q[i] / s * angle;
}

/* ---- Vec types ---- */

#define VEC_OPS(N)                                                                                 \
    static void vec##N##_add(double *xo, const double *x, const double *v, double f, size_t n)   \
    {                                                                                              \
        for (size_t i = 0; i < (N) * n; i++)                                                       \
            xo[i] = x[i] + v[i] * f;                                                               \
    }                                                                                              \
    static void vec##N##_diff(double *d, const double *a, const double *b, size_t n)             \
    {                                                                                              \
        for (size_t i = 0; i < (N) * n; i++)                                                       \
            d[i] = a[i] - b[i];                                                                    \
    }

VEC_OPS(1)
VEC_OPS(2)
VEC_OPS(3)
VEC_OPS(6)

static const double zero3[3] = {0.0, 0.0, 0.0};
static const char *const vec1_names[] = {"Vec1", "Vec1Types", NULL};
static const char *const vec2_names[] = {"Vec2", "Vec2Types", NULL};
static const char *const vec3_names[] = {"Vec3", "Vec3Types", NULL};
static const char *const vec6_names[] = {"Vec6", "Vec6Types", NULL};
static const double zero6[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
static const char *const rigid_names[] = {"Rigid3", "Rigid", "Rigid3Types", NULL};

const st_state_type st_vec1d_type = {sizeof(st_state_type), "Vec1d", vec1_names, 1, 1, 1, false,
                                     zero3, vec1_add, vec1_diff};
const st_state_type st_vec2d_type = {sizeof(st_state_type), "Vec2d", vec2_names, 2, 2, 2, false,
                                     zero3, vec2_add, vec2_diff};
const st_state_type st_vec3d_type = {sizeof(st_state_type), "Vec3d", vec3_names, 3, 3, 3, false,
                                     zero3, vec3_add, vec3_diff};
/* SOFA's Vec6Types: six plain scalars; its geometric part (gravity,
 * translation, rotation, regions) is the first three. */
const st_state_type st_vec6d_type = {sizeof(st_state_type), "Vec6d", vec6_names, 6, 6, 3, false,
                                     zero6, vec6_add, vec6_diff};

/* ---- Rigid3d ---- */

/* SOFA's R3 x SO(3) exponential: centre += v_lin f; q = exp(f w / 2) q. */
static void rigid_add(double *xo, const double *x, const double *v, double f, size_t n)
{
    for (size_t i = 0; i < n; i++, xo += 7, x += 7, v += 6) {
        double d[6];
        for (int k = 0; k < 6; k++)
            d[k] = v[k] * f;
        xo[0] = x[0] + d[0];
        xo[1] = x[1] + d[1];
        xo[2] = x[2] + d[2];
        double om[3] = {d[3] / 2, d[4] / 2, d[5] / 2};
        double theta = sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]);
        double e[4];
        if (theta < DBL_EPSILON) {
            e[0] = om[0];
            e[1] = om[1];
            e[2] = om[2];
            e[3] = 1.0;
            st_quat_normalize(e);
        } else {
            double sinc = sin(theta) / theta;
            e[0] = sinc * om[0];
            e[1] = sinc * om[1];
            e[2] = sinc * om[2];
            e[3] = cos(theta);
        }
        st_quat_mul(xo + 3, e, x + 3);
    }
}

/* d = a (-) b: centre difference; rotation vector of qa qb^-1. */
static void rigid_diff(double *d, const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++, d += 6, a += 7, b += 7) {
        d[0] = a[0] - b[0];
        d[1] = a[1] - b[1];
        d[2] = a[2] - b[2];
        const double binv[4] = {-b[3], -b[4], -b[5], b[6]};
        double dq[4];
        st_quat_mul(dq, a + 3, binv);
        quat_to_rotvec(d + 3, dq);
    }
}

static const double rigid_identity[7] = {0, 0, 0, 0, 0, 0, 1};

const st_state_type st_rigid3d_type = {sizeof(st_state_type), "Rigid3d", rigid_names, 7, 6, 3,
                                       true, rigid_identity, rigid_add, rigid_diff};

/* ---- Rigid2d ---- */

/* SOFA's RigidCoord<2> += RigidDeriv<2>: the centre and the angle add. */
static void rigid2_add(double *xo, const double *x, const double *v, double f, size_t n)
{
    for (size_t i = 0; i < 3 * n; i++)
        xo[i] = x[i] + v[i] * f;
}

/* SOFA's Rigid2 coordDifference: centre difference, angle difference
 * brought to [-pi, pi) by fmod(a + pi, 2 pi) - pi (fmod keeps the sign of
 * its first argument, as std::fmod does). */
static void rigid2_diff(double *d, const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++, d += 3, a += 3, b += 3) {
        d[0] = a[0] - b[0];
        d[1] = a[1] - b[1];
        d[2] = fmod(a[2] - b[2] + M_PI, 2.0 * M_PI) - M_PI;
    }
}

static const char *const rigid2_names[] = {"Rigid2", "Rigid2Types", NULL};

const st_state_type st_rigid2d_type = {sizeof(st_state_type), "Rigid2d", rigid2_names, 3, 3, 2,
                                       true, zero3, rigid2_add, rigid2_diff};

/* ---- lookup ---- */

const char *const st_all_state_types[] = {"Vec1d", "Vec2d",   "Vec3d", "Vec6d",
                                          "Rigid2d", "Rigid3d", NULL};

static const st_state_type *const all_types[] = {&st_vec1d_type,   &st_vec2d_type,
                                                  &st_vec3d_type,   &st_vec6d_type,
                                                  &st_rigid2d_type, &st_rigid3d_type};
#define NTYPES (sizeof all_types / sizeof all_types[0])

const st_state_type *st_state_type_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NTYPES; i++) {
        if (!strcmp(all_types[i]->name, name))
            return all_types[i];
        for (const char *const *a = all_types[i]->aliases; a && *a; a++)
            if (!strcmp(*a, name))
                return all_types[i];
    }
    return NULL;
}

const char *st_state_type_list(char *buf, size_t size)
{
    size_t len = 0;
    if (!buf || !size)
        return buf;
    buf[0] = 0;
    for (size_t i = 0; i < NTYPES && len < size; i++) {
        int w = snprintf(buf + len, size - len, "%s%s (", i ? ", " : "", all_types[i]->name);
        len += w > 0 ? (size_t)w : 0;
        for (const char *const *a = all_types[i]->aliases; a && *a && len < size; a++) {
            w = snprintf(buf + len, size - len, "%s%s", a == all_types[i]->aliases ? "" : ", ", *a);
            len += w > 0 ? (size_t)w : 0;
        }
        if (len < size) {
            w = snprintf(buf + len, size - len, ")");
            len += w > 0 ? (size_t)w : 0;
        }
    }
    return buf;
}

/* Names of every type and alias, for suggestions. */
size_t st__state_type_names(const char **out, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < NTYPES; i++) {
        if (k < max)
            out[k++] = all_types[i]->name;
        for (const char *const *a = all_types[i]->aliases; a && *a; a++)
            if (k < max)
                out[k++] = *a;
    }
    return k;
}
