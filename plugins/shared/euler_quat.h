/* euler_quat.h - SOFA's Quat::createQuaterFromEuler (Euler angles in
 * radians, applied x then y then z) and Quat::rotate, for the engines that
 * rotate points by a "rotation" vector of degrees, and
 * Quat::quatToRotationVector, for the rigid springs, beams and bilateral
 * constraints. Quaternions x y z w. Header-only. */
#ifndef SETTEE_SHARED_EULER_QUAT_H
#define SETTEE_SHARED_EULER_QUAT_H

#include <math.h>

#include <settee/settee.h>

/* SOFA's Quat::createQuaterFromEuler of angles v in radians. */
static inline void quat_from_euler(double q[4], const double v[3])
{
    double c1 = cos(v[0] / 2), c2 = cos(v[1] / 2), c3 = cos(v[2] / 2);
    double s1 = sin(v[0] / 2), s2 = sin(v[1] / 2), s3 = sin(v[2] / 2);
    q[0] = s1 * c2 * c3 - c1 * s2 * s3;
    q[1] = c1 * s2 * c3 + s1 * c2 * s3;
    q[2] = c1 * c2 * s3 - s1 * s2 * c3;
    q[3] = c1 * c2 * c3 + s1 * s2 * s3;
}

/* SOFA's Quat::rotate: v + w t + q x t with t = 2 q x v, in place. */
static inline void quat_rotate(const double q[4], double v[3])
{
    double t[3] = {2 * (q[1] * v[2] - q[2] * v[1]), 2 * (q[2] * v[0] - q[0] * v[2]),
                   2 * (q[0] * v[1] - q[1] * v[0])};
    double c[3] = {q[1] * t[2] - q[2] * t[1], q[2] * t[0] - q[0] * t[2], q[0] * t[1] - q[1] * t[0]};
    for (int k = 0; k < 3; k++)
        v[k] += q[3] * t[k] + c[k];
}

/* SOFA's Quat::quatToRotationVector: the axis times the angle of q
 * (normalised, flipped to w >= 0: angle in [0, pi]); zero below machine
 * epsilon. */
static inline void quat_to_rotation_vector(const double qin[4], double out[3])
{
    double q[4] = {qin[0], qin[1], qin[2], qin[3]};
    st_quat_normalize(q);
    if (q[3] < 0)
        for (int k = 0; k < 4; k++)
            q[k] = -q[k];
    double s, angle;
    if (q[3] > 0.999) {
        s = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        angle = 2.0 * asin(s);
    } else {
        double half = acos(q[3]);
        s = sin(half);
        angle = 2.0 * half;
    }
    for (int k = 0; k < 3; k++)
        out[k] = s < 2.220446049250313e-16 ? 0.0 : q[k] / s * angle;
}

#endif
