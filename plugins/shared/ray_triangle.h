/* ray_triangle.h - SOFA's ray/triangle intersection
 * (sofa::geometry::Triangle::rayIntersection: Moller-Trumbore with the
 * machine epsilon), shared by the components that cast rays at a surface
 * (MeshTetraStuffing, RandomPointDistributionInSurface, DilateEngine, the
 * RayTraceNarrowPhase). Header-only, internal to the plugins. */
#ifndef SETTEE_SHARED_RAY_TRIANGLE_H
#define SETTEE_SHARED_RAY_TRIANGLE_H

#include <float.h>
#include <math.h>
#include <stdbool.h>

/* The parameter t of the hit of the ray o + t dir on triangle abc, and its
 * barycentric coordinates u (along b - a) and v (along c - a) when u_out
 * and v_out are not NULL; false when it misses, is parallel, or is behind
 * o (t below epsilon). */
static inline bool ray_triangle(const double *a, const double *b, const double *c, const double *o,
                                const double *dir, double *t_out, double *u_out, double *v_out)
{
    const double eps = DBL_EPSILON;
    double e0[3], e1[3], pv[3], tv[3], qv[3];
    for (int k = 0; k < 3; k++)
        e0[k] = b[k] - a[k], e1[k] = c[k] - a[k], tv[k] = o[k] - a[k];
    pv[0] = dir[1] * e1[2] - dir[2] * e1[1];
    pv[1] = dir[2] * e1[0] - dir[0] * e1[2];
    pv[2] = dir[0] * e1[1] - dir[1] * e1[0];
    double det = e0[0] * pv[0] + e0[1] * pv[1] + e0[2] * pv[2];
    if (fabs(det) <= eps)
        return false;
    double inv = 1.0 / det;
    double u = (tv[0] * pv[0] + tv[1] * pv[1] + tv[2] * pv[2]) * inv;
    if (u < -eps || u > 1 + eps)
        return false;
    qv[0] = tv[1] * e0[2] - tv[2] * e0[1];
    qv[1] = tv[2] * e0[0] - tv[0] * e0[2];
    qv[2] = tv[0] * e0[1] - tv[1] * e0[0];
    double v = (dir[0] * qv[0] + dir[1] * qv[1] + dir[2] * qv[2]) * inv;
    if (v < -eps || u + v > 1 + eps)
        return false;
    double t = (e1[0] * qv[0] + e1[1] * qv[1] + e1[2] * qv[2]) * inv;
    if (t < eps || t != t || u != u || v != v)
        return false;
    *t_out = t;
    if (u_out)
        *u_out = u;
    if (v_out)
        *v_out = v;
    return true;
}

#endif
