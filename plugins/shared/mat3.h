/* mat3.h - dense 3x3 algebra on row-major double[9], header-only, for the
 * hyperelastic elements: the SDK's settee/vec.h (st_m3_*) plus what it
 * lacks (trace, double contraction, a^T b, an inverse refusing non-finite
 * matrices). */
#ifndef SETTEE_SHARED_MAT3_H
#define SETTEE_SHARED_MAT3_H

#include <math.h>
#include <stdbool.h>

#include <settee/vec.h>

static inline double mat3_det(const double m[9]) { return st_m3_det(m); }
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
    st_m3_mul(r, a, b);
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
    st_m3_mulv(y, m, x);
}
/* inv = m^-1 by cofactors; false (inv untouched) when m is singular or not
 * finite. */
static inline bool mat3_invert(double inv[9], const double m[9])
{
    return isfinite(st_m3_det(m)) && st_m3_inverse(inv, m) != 0.0;
}

#endif
