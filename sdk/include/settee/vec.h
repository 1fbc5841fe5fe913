/* vec.h - small vector and 3x3 block helpers for plugins, so that every
 * force field does not write its own. Plain static inline C over double[3]
 * (st_vec3) and row-major double[9] blocks (the layout st_matrix_add_block
 * takes for two Vec3d points).
 *
 *   double d[3], n[3];
 *   st_v3_sub(d, xj, xi);                 // d = xj - xi
 *   double len = st_v3_norm(d);
 *   st_v3_scale(n, d, 1.0 / len);         // unit direction
 *   double K[9];
 *   st_m3_outer(K, n, n, -k);             // K = -k n n^T
 *   st_matrix_add_block(m, ms, i, ms, j, K);
 */
#ifndef SETTEE_VEC_H
#define SETTEE_VEC_H

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 3-vectors (out may alias an input) ---- */

static inline double st_v3_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline double st_v3_norm2(const double a[3]) { return st_v3_dot(a, a); }

static inline double st_v3_norm(const double a[3]) { return sqrt(st_v3_dot(a, a)); }

static inline void st_v3_set(double out[3], double x, double y, double z)
{
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

static inline void st_v3_copy(double out[3], const double a[3])
{
    out[0] = a[0];
    out[1] = a[1];
    out[2] = a[2];
}

/* out = a + b */
static inline void st_v3_add(double out[3], const double a[3], const double b[3])
{
    out[0] = a[0] + b[0];
    out[1] = a[1] + b[1];
    out[2] = a[2] + b[2];
}

/* out = a - b */
static inline void st_v3_sub(double out[3], const double a[3], const double b[3])
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}

/* out = s a */
static inline void st_v3_scale(double out[3], const double a[3], double s)
{
    out[0] = s * a[0];
    out[1] = s * a[1];
    out[2] = s * a[2];
}

/* out += s a */
static inline void st_v3_peq(double out[3], const double a[3], double s)
{
    out[0] += s * a[0];
    out[1] += s * a[1];
    out[2] += s * a[2];
}

/* out = a x b (out may alias neither) */
static inline void st_v3_cross(double out[3], const double a[3], const double b[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* Normalizes a in place; returns its former length (0: a left unchanged). */
static inline double st_v3_normalize(double a[3])
{
    double len = st_v3_norm(a);
    if (len > 0.0)
        st_v3_scale(a, a, 1.0 / len);
    return len;
}

/* ---- 3x3 blocks, row-major ---- */

static inline void st_m3_zero(double m[9])
{
    for (int i = 0; i < 9; i++)
        m[i] = 0.0;
}

/* m = s I */
static inline void st_m3_identity(double m[9], double s)
{
    st_m3_zero(m);
    m[0] = m[4] = m[8] = s;
}

/* m = s a b^T */
static inline void st_m3_outer(double m[9], const double a[3], const double b[3], double s)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            m[3 * i + j] = s * a[i] * b[j];
}

/* m += s a */
static inline void st_m3_peq(double m[9], const double a[9], double s)
{
    for (int i = 0; i < 9; i++)
        m[i] += s * a[i];
}

/* out = a b (out may alias neither) */
static inline void st_m3_mul(double out[9], const double a[9], const double b[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

/* out = a^T (out may alias a) */
static inline void st_m3_transpose(double out[9], const double a[9])
{
    double t[9] = {a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]};
    for (int i = 0; i < 9; i++)
        out[i] = t[i];
}

/* out = m v (out may alias neither) */
static inline void st_m3_mulv(double out[3], const double m[9], const double v[3])
{
    out[0] = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
    out[1] = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
    out[2] = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];
}

/* out = m^T v (out may alias neither) */
static inline void st_m3_tmulv(double out[3], const double m[9], const double v[3])
{
    out[0] = m[0] * v[0] + m[3] * v[1] + m[6] * v[2];
    out[1] = m[1] * v[0] + m[4] * v[1] + m[7] * v[2];
    out[2] = m[2] * v[0] + m[5] * v[1] + m[8] * v[2];
}

static inline double st_m3_det(const double m[9])
{
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
           m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/* out = a^-1; returns the determinant (0: out left unchanged). */
static inline double st_m3_inverse(double out[9], const double a[9])
{
    double d = st_m3_det(a);
    if (d == 0.0)
        return 0.0;
    double t[9] = {a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
                   a[5] * a[6] - a[3] * a[8], a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                   a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]};
    for (int i = 0; i < 9; i++)
        out[i] = t[i] / d;
    return d;
}

#ifdef __cplusplus
}
#endif
#endif
