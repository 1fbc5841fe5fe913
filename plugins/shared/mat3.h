/* mat3.h - dense 3x3 algebra on row-major double[9], header-only, for the
 * plugins that need it (the hyperelastic elements now; the same functions
 * are what the elastic FEM's fem.h and the Mass plugin's geometry repeat,
 * and can come here). */
#ifndef SETTEE_SHARED_MAT3_H
#define SETTEE_SHARED_MAT3_H

#include <math.h>
#include <stdbool.h>

static inline double mat3_det(const double m[9])
{
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
           m[2] * (m[3] * m[7] - m[4] * m[6]);
}
static inline double mat3_trace(const double m[9])
{
    return m[0] + m[4] + m[8];
}
/* a : b = sum a_ij b_ij */
static inline double mat3_ddot(const double a[9], const double b[9])
{
    double s = 0;
    for (int i = 0; i < 9; i++)
        s += a[i] * b[i];
    return s;
}
/* r = a b */
static inline void mat3_mul(double r[9], const double a[9], const double b[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}
/* r = a^T b */
static inline void mat3_mul_tn(double r[9], const double a[9], const double b[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = a[i] * b[j] + a[3 + i] * b[3 + j] + a[6 + i] * b[6 + j];
}
/* y = m x */
static inline void mat3_mulv(double y[3], const double m[9], const double x[3])
{
    for (int i = 0; i < 3; i++)
        y[i] = m[3 * i] * x[0] + m[3 * i + 1] * x[1] + m[3 * i + 2] * x[2];
}
/* inv = m^-1 by cofactors; false (inv untouched) when m is singular or not
 * finite. */
static inline bool mat3_invert(double inv[9], const double m[9])
{
    double d = mat3_det(m);
    if (d == 0.0 || !isfinite(d))
        return false;
    inv[0] = (m[4] * m[8] - m[5] * m[7]) / d;
    inv[1] = (m[2] * m[7] - m[1] * m[8]) / d;
    inv[2] = (m[1] * m[5] - m[2] * m[4]) / d;
    inv[3] = (m[5] * m[6] - m[3] * m[8]) / d;
    inv[4] = (m[0] * m[8] - m[2] * m[6]) / d;
    inv[5] = (m[2] * m[3] - m[0] * m[5]) / d;
    inv[6] = (m[3] * m[7] - m[4] * m[6]) / d;
    inv[7] = (m[1] * m[6] - m[0] * m[7]) / d;
    inv[8] = (m[0] * m[4] - m[1] * m[3]) / d;
    return true;
}

#endif
