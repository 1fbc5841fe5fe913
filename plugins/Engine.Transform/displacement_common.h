/* displacement_common.h - what DisplacementTransformEngine and
 * DisplacementMatrixEngine share: quaternion algebra on Rigid3 frames
 * (centre, then quaternion x y z w), SOFA's Rigid inverse, a frame's
 * homogeneous matrix and 4x4 products (row-major). */
#ifndef ENGINE_TRANSFORM_DISPLACEMENT_COMMON_H
#define ENGINE_TRANSFORM_DISPLACEMENT_COMMON_H

#include <math.h>
#include <string.h>

/* Hamilton product r = a b (x y z w). */
static inline void qmul(double *r, const double *a, const double *b)
{
    const double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    const double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    const double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    const double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    r[0] = x, r[1] = y, r[2] = z, r[3] = w;
}

/* Rotation matrix of q (row-major 3x3). */
static inline void qmat(const double *q, double R[9])
{
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - z * w), R[2] = 2 * (z * x + y * w);
    R[3] = 2 * (x * y + z * w), R[4] = 1 - 2 * (z * z + x * x), R[5] = 2 * (y * z - x * w);
    R[6] = 2 * (z * x - y * w), R[7] = 2 * (y * z + x * w), R[8] = 1 - 2 * (y * y + x * x);
}

static inline void qrot(const double *q, const double *v, double *out)
{
    double R[9];
    qmat(q, R);
    for (int i = 0; i < 3; i++)
        out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

/* SOFA's Rigid inverse: q^-1 (the conjugate over the norm), -(q^-1 c). */
static inline void rigid_inverse(const double *f, double *inv)
{
    const double *q = f + 3;
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double qi[4] = {0, 0, 0, 0};
    if (n > 0)
        qi[0] = -q[0] / n, qi[1] = -q[1] / n, qi[2] = -q[2] / n, qi[3] = q[3] / n;
    double c[3];
    qrot(qi, f, c);
    inv[0] = -c[0], inv[1] = -c[1], inv[2] = -c[2];
    memcpy(inv + 3, qi, sizeof qi);
}

static inline void homogeneous(const double *f, double H[16])
{
    double R[9];
    qmat(f + 3, R);
    memset(H, 0, 16 * sizeof(double));
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            H[4 * i + j] = R[3 * i + j];
        H[4 * i + 3] = f[i];
    }
    H[15] = 1;
}

/* o = A B (4x4, row-major; o distinct from A and B). */
static inline void mat4_mul(double *o, const double A[16], const double B[16])
{
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            double s = 0;
            for (int k = 0; k < 4; k++)
                s += A[4 * r + k] * B[4 * k + c];
            o[4 * r + c] = s;
        }
}

#endif
