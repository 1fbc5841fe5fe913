/* intersect.c - the primitive tests of SOFA's MinProximityIntersection
 * (with DiscreteIntersection's sphere test): closest points, normal from
 * the first primitive to the second, distance minus the contact distance.
 * Rules kept from SOFA (its computeIntersection, which the narrow phase
 * calls on element pairs): a point or a sphere is tested against a
 * triangle only when its projection falls strictly inside (barycentric
 * coordinates above 1e-6; the model's points and lines cover the rest), a
 * point against a line at its closest point of the segment (clamped), a
 * sphere against a line only inside it; two lines meet only at
 * interior points of both, and parallel lines are tested at their
 * midpoints; a distance below 1e-15 gives the normal (1, 0, 0). */
#include <math.h>
#include <string.h>

#include "collision.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub3(double o[3], const double a[3], const double b[3])
{
    o[0] = a[0] - b[0];
    o[1] = a[1] - b[1];
    o[2] = a[2] - b[2];
}

/* Fills the normal (q - p, unit) and the value (|q - p| - contact). */
static void finish(cdetect *d, const double p[3], const double q[3], double contact)
{
    memcpy(d->p[0], p, sizeof d->p[0]);
    memcpy(d->p[1], q, sizeof d->p[1]);
    sub3(d->normal, q, p);
    double len = sqrt(dot3(d->normal, d->normal));
    if (len > 1e-15) {
        d->normal[0] /= len;
        d->normal[1] /= len;
        d->normal[2] /= len;
    } else {
        d->normal[0] = 1.0;
        d->normal[1] = d->normal[2] = 0.0;
    }
    d->value = len - contact;
}

static void weights(double w[3], double a, double b, double c)
{
    w[0] = a;
    w[1] = b;
    w[2] = c;
}

int st_coll_point_point(const double p[3], const double q[3], double alarm, double contact,
                        cdetect *d)
{
    double pq[3];
    sub3(pq, q, p);
    if (dot3(pq, pq) >= alarm * alarm)
        return 0;
    finish(d, p, q, contact);
    weights(d->w[0], 1, 0, 0);
    weights(d->w[1], 1, 0, 0);
    return 1;
}

int st_coll_line_point(const double a[3], const double b[3], const double p[3], double alarm,
                       double contact, cdetect *d)
{
    double ab[3], ap[3];
    sub3(ab, b, a);
    sub3(ap, p, a);
    /* SOFA's computeIntersection clamps to the segment (its broad test,
     * testIntersection, is only used on bounding cubes). */
    double alpha = dot3(ap, ab) / dot3(ab, ab);
    if (alpha <= 0.0)
        alpha = 0.0;
    else if (alpha >= 1.0)
        alpha = 1.0;
    double q[3];
    for (int k = 0; k < 3; k++)
        q[k] = alpha == 0.0 ? a[k] : alpha == 1.0 ? b[k] : a[k] + ab[k] * alpha;
    double qp[3];
    sub3(qp, p, q);
    if (dot3(qp, qp) >= alarm * alarm)
        return 0;
    finish(d, q, p, contact);
    weights(d->w[0], 1 - alpha, alpha, 0);
    weights(d->w[1], 1, 0, 0);
    return 1;
}

int st_coll_line_line(const double a[3], const double b[3], const double c[3], const double e[3],
                      double alarm, double contact, cdetect *d)
{
    double ab[3], cd[3], ac[3];
    sub3(ab, b, a);
    sub3(cd, e, c);
    sub3(ac, c, a);
    double a00 = dot3(ab, ab), a11 = dot3(cd, cd), a01 = -dot3(cd, ab);
    double b0 = dot3(ab, ac), b1 = -dot3(cd, ac);
    double det = a00 * a11 - a01 * a01;
    double alpha = 0.5, beta = 0.5;
    /* SOFA's broad test (testIntersection) uses 1e-18, its compute 1e-15:
     * a pair passes both only when |det| > 1e-15 or when both see it
     * parallel, so the narrower one decides. */
    if (det < -1.0e-15 || det > 1.0e-15) {
        alpha = (b0 * a11 - b1 * a01) / det;
        beta = (b1 * a00 - b0 * a01) / det;
        if (alpha < 0.000001 || alpha > 0.999999 || beta < 0.000001 || beta > 0.999999)
            return 0;
    }
    double p[3] = {a[0] + ab[0] * alpha, a[1] + ab[1] * alpha, a[2] + ab[2] * alpha};
    double q[3] = {c[0] + cd[0] * beta, c[1] + cd[1] * beta, c[2] + cd[2] * beta};
    double pq[3];
    sub3(pq, q, p);
    if (dot3(pq, pq) >= alarm * alarm)
        return 0;
    finish(d, p, q, contact);
    weights(d->w[0], 1 - alpha, alpha, 0);
    weights(d->w[1], 1 - beta, beta, 0);
    return 1;
}

/* Barycentric coordinates (alpha along ab, beta along ac) of the
 * projection of p on the plane of the triangle; false when it is not
 * strictly inside (SOFA's margins). */
static bool project_in_triangle(const double a[3], const double b[3], const double c[3],
                                const double p[3], double *alpha, double *beta)
{
    double ab[3], ac[3], ap[3];
    sub3(ab, b, a);
    sub3(ac, c, a);
    sub3(ap, p, a);
    double a00 = dot3(ab, ab), a11 = dot3(ac, ac), a01 = dot3(ab, ac);
    double b0 = dot3(ap, ab), b1 = dot3(ap, ac);
    double det = a00 * a11 - a01 * a01;
    *alpha = (b0 * a11 - b1 * a01) / det;
    *beta = (b1 * a00 - b0 * a01) / det;
    return *alpha >= 0.000001 && *beta >= 0.000001 && *alpha + *beta <= 0.999999;
}

int st_coll_triangle_point(const double a[3], const double b[3], const double c[3],
                           const double p[3], double alarm, double contact, cdetect *d)
{
    double al, be;
    if (!project_in_triangle(a, b, c, p, &al, &be))
        return 0;
    double q[3];
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + (b[k] - a[k]) * al + (c[k] - a[k]) * be;
    double qp[3];
    sub3(qp, p, q);
    if (dot3(qp, qp) >= alarm * alarm)
        return 0;
    finish(d, q, p, contact);
    weights(d->w[0], 1 - al - be, al, be);
    weights(d->w[1], 1, 0, 0);
    return 1;
}

/* The contact point of a sphere for a normal pointing away from it (n)
 * or towards it: SOFA's TSphere::getContactPointByNormal gives the centre
 * for Vec3d spheres and centre - normal r for Rigid3d ones. */
static void sphere_point(double o[3], const double c[3], double r, bool rigid, const double n[3],
                         double sign)
{
    for (int k = 0; k < 3; k++)
        o[k] = rigid ? c[k] - sign * n[k] * r : c[k];
}

int st_coll_sphere_sphere(const double c1[3], double r1, bool rigid1, const double c2[3],
                          double r2, bool rigid2, double alarm, double contact, cdetect *d)
{
    double r = r1 + r2, my_alarm = alarm + r;
    double dd[3];
    sub3(dd, c2, c1);
    double n2 = dot3(dd, dd);
    if (n2 > my_alarm * my_alarm)
        return 0;
    double len = sqrt(n2);
    for (int k = 0; k < 3; k++)
        d->normal[k] = dd[k] / len;
    sphere_point(d->p[0], c1, r1, rigid1, d->normal, -1.0);
    sphere_point(d->p[1], c2, r2, rigid2, d->normal, 1.0);
    d->value = len - r - contact;
    weights(d->w[0], 1, 0, 0);
    weights(d->w[1], 1, 0, 0);
    return 1;
}

int st_coll_sphere_point(const double c[3], double r, bool rigid, const double p[3],
                         double alarm, double contact, cdetect *d)
{
    double a = alarm + r;
    double pq[3];
    sub3(pq, p, c);
    if (dot3(pq, pq) >= a * a)
        return 0;
    finish(d, c, p, contact + r);
    sphere_point(d->p[0], c, r, rigid, d->normal, -1.0);
    weights(d->w[0], 1, 0, 0);
    weights(d->w[1], 1, 0, 0);
    return 1;
}

int st_coll_line_sphere(const double a[3], const double b[3], const double c[3], double r,
                        bool rigid, double alarm, double contact, cdetect *d)
{
    double al = alarm + r;
    /* The coordinate of the projection measured from b (SOFA's alpha). SOFA
     * then places the point at a - (a - b) alpha, the mirror image of the
     * projection about the midpoint (a defect: right only at the middle);
     * settee takes the projection itself, b + (a - b) alpha. */
    double x32[3], x31[3];
    sub3(x32, a, b);
    sub3(x31, c, b);
    double alpha = dot3(x32, x31) / dot3(x32, x32);
    if (!(alpha >= 0.000001 && alpha <= 0.999999))
        return 0;
    double q[3] = {b[0] + x32[0] * alpha, b[1] + x32[1] * alpha, b[2] + x32[2] * alpha};
    double qp[3];
    sub3(qp, c, q);
    if (dot3(qp, qp) >= al * al)
        return 0;
    finish(d, q, c, contact + r);
    sphere_point(d->p[1], c, r, rigid, d->normal, 1.0);
    weights(d->w[0], alpha, 1 - alpha, 0);
    weights(d->w[1], 1, 0, 0);
    return 1;
}

int st_coll_triangle_sphere(const double a[3], const double b[3], const double c[3],
                            const double s[3], double r, bool rigid, double alarm,
                            double contact, cdetect *d)
{
    double al, be;
    if (!project_in_triangle(a, b, c, s, &al, &be))
        return 0;
    double q[3];
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + (b[k] - a[k]) * al + (c[k] - a[k]) * be;
    double qp[3], am = alarm + r;
    sub3(qp, s, q);
    if (dot3(qp, qp) >= am * am)
        return 0;
    finish(d, q, s, contact + r);
    sphere_point(d->p[1], s, r, rigid, d->normal, 1.0);
    weights(d->w[0], 1 - al - be, al, be);
    weights(d->w[1], 1, 0, 0);
    return 1;
}
