/* intersect_volume.c - the volume primitives: SOFA's tetrahedron-point test
 * (TetrahedronDiscreteIntersection) and the cylinder's bounding box
 * (CylinderCollisionModel::computeBoundingTree). */
#include <string.h>

#include "collision.h"

/* Barycentric coordinates (of b, c, e) of v for the edge vectors of a
 * tetrahedron: solves [b-a c-a e-a] x = v by Cramer's rule. */
static int bary(const double m[3][3], const double v[3], double x[3])
{
    double det = m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2]) -
                 m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2]) +
                 m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2]);
    if (det == 0.0)
        return 0;
    /* columns m[0], m[1], m[2] are the edge vectors */
    for (int k = 0; k < 3; k++) {
        double c[3][3];
        memcpy(c, m, sizeof c);
        memcpy(c[k], v, sizeof c[k]);
        x[k] = (c[0][0] * (c[1][1] * c[2][2] - c[2][1] * c[1][2]) -
                c[1][0] * (c[0][1] * c[2][2] - c[2][1] * c[0][2]) +
                c[2][0] * (c[0][1] * c[1][2] - c[1][1] * c[0][2])) /
               det;
    }
    return 1;
}

int st_coll_tetra_point(const double a[3], const double b[3], const double c[3],
                        const double e[3], const double p[3], const double n[3], cdetect *d)
{
    if (n[0] == 0.0 && n[1] == 0.0 && n[2] == 0.0)
        return 0; /* no normal on the point */
    double m[3][3], ap[3], mn[3], b0[3], bd[3];
    for (int k = 0; k < 3; k++) {
        m[0][k] = b[k] - a[k];
        m[1][k] = c[k] - a[k];
        m[2][k] = e[k] - a[k];
        ap[k] = p[k] - a[k];
        mn[k] = -n[k];
    }
    if (!bary(m, ap, b0) || !bary(m, mn, bd))
        return 0;
    if (b0[0] < 0 || b0[1] < 0 || b0[2] < 0 || b0[0] + b0[1] + b0[2] > 1)
        return 0; /* outside */
    /* the first face met along -n */
    double l1 = 1.0e10;
    for (int k = 0; k < 3; k++)
        if (bd[k] < -1.0e-10) {
            double l = -b0[k] / bd[k];
            if (l < l1)
                l1 = l;
        }
    double s = bd[0] + bd[1] + bd[2];
    if (s > 1.0e-10) {
        double l = (1 - (b0[0] + b0[1] + b0[2])) / s;
        if (l < l1)
            l1 = l;
    }
    if (l1 >= 1.0e9)
        l1 = 0;
    double bx[3];
    for (int k = 0; k < 3; k++) {
        d->p[0][k] = p[k] - n[k] * l1;
        d->p[1][k] = p[k];
        d->normal[k] = -n[k];
        bx[k] = b0[k] + bd[k] * l1;
    }
    d->value = -l1;
    d->w[0][0] = 1 - bx[0] - bx[1] - bx[2];
    d->w[0][1] = bx[0];
    d->w[0][2] = bx[1];
    d->w[0][3] = bx[2];
    d->w[1][0] = 1;
    d->w[1][1] = d->w[1][2] = d->w[1][3] = 0;
    return 1;
}

void st_coll_cylinder_box(const double c[3], const double axis[3], double r, double h,
                          double box[6])
{
    for (int k = 0; k < 3; k++) {
        double p1 = c[k] + h / 2 * axis[k], p2 = c[k] - h / 2 * axis[k];
        box[k] = (p1 > p2 ? p2 : p1) - r;
        box[k + 3] = (p1 > p2 ? p1 : p2) + r;
    }
}
