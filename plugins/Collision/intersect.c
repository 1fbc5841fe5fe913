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
 * midpoints; a distance below 1e-15 gives the normal (1, 0, 0).
 *
 * Then NewProximityIntersection's and LocalMinDistance's tests where they
 * differ, and LocalMinDistance's cone filters. NewProximityIntersection
 * projects a point or a sphere on the closest point of a triangle, its
 * inside, edges or corners, but keeps a contact on an edge or a corner
 * only for the triangle that owns it (flags: the first triangle around
 * it), so that a mesh gives one contact per feature; two lines meet at
 * interior points (parallel below |det| 1e-12). LocalMinDistance keeps
 * strict interior projections (1e-6 margins on triangles and lines, 1e-15
 * on line-line) and filters contacts whose direction leaves the cone of
 * free directions around the element. */
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

static void cross3(double o[3], const double a[3], const double b[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static void normalize3(double v[3])
{
    double n = sqrt(dot3(v, v));
    if (n > 0.0)
        for (int k = 0; k < 3; k++)
            v[k] /= n;
}

/* Two segments at their closest interior points (margins lo and hi on
 * both parameters); |det| <= eps_det: parallel, tested at the midpoints. */
static int segs(const double a[3], const double b[3], const double c[3], const double e[3],
                double eps_det, double lo, double hi, double alarm, double contact, cdetect *d)
{
    double ab[3], cd[3], ac[3];
    sub3(ab, b, a);
    sub3(cd, e, c);
    sub3(ac, c, a);
    double a00 = dot3(ab, ab), a11 = dot3(cd, cd), a01 = -dot3(cd, ab);
    double b0 = dot3(ab, ac), b1 = -dot3(cd, ac);
    double det = a00 * a11 - a01 * a01;
    double al = 0.5, be = 0.5;
    if (det < -eps_det || det > eps_det) {
        al = (b0 * a11 - b1 * a01) / det;
        be = (b1 * a00 - b0 * a01) / det;
        if (al < lo || al > hi || be < lo || be > hi)
            return 0;
    }
    double p[3], q[3], pq[3];
    for (int k = 0; k < 3; k++) {
        p[k] = a[k] + ab[k] * al;
        q[k] = c[k] + cd[k] * be;
    }
    sub3(pq, q, p);
    if (dot3(pq, pq) >= alarm * alarm)
        return 0;
    finish(d, p, q, contact);
    weights(d->w[0], 1 - al, al, 0);
    weights(d->w[1], 1 - be, be, 0);
    return 1;
}

int st_coll_line_line(const double a[3], const double b[3], const double c[3], const double e[3],
                      double alarm, double contact, cdetect *d)
{
    /* SOFA's broad test (testIntersection) uses 1e-18, its compute 1e-15:
     * a pair passes both only when |det| > 1e-15 or when both see it
     * parallel, so the narrower one decides. */
    return segs(a, b, c, e, 1.0e-15, 0.000001, 0.999999, alarm, contact, d);
}

/* Barycentric coordinates (alpha along ab, beta along ac) of the
 * projection of p on the plane of the triangle; false when it is not
 * strictly inside (SOFA's margins). */
/* SOFA's projection of p on the plane of triangle abc: g = (ab.ab, ac.ac,
 * ab.ac, ap.ab, ap.ac) and the coordinates alpha along ab, beta along ac. */
static void tri_coords(const double a[3], const double b[3], const double c[3], const double p[3],
                       double g[5], double *alpha, double *beta)
{
    double ab[3], ac[3], ap[3];
    sub3(ab, b, a);
    sub3(ac, c, a);
    sub3(ap, p, a);
    g[0] = dot3(ab, ab), g[1] = dot3(ac, ac), g[2] = dot3(ab, ac);
    g[3] = dot3(ap, ab), g[4] = dot3(ap, ac);
    double det = g[0] * g[1] - g[2] * g[2];
    *alpha = (g[3] * g[1] - g[4] * g[2]) / det;
    *beta = (g[4] * g[0] - g[3] * g[2]) / det;
}

static bool project_in_triangle(const double a[3], const double b[3], const double c[3],
                                const double p[3], double *alpha, double *beta)
{
    double g[5];
    tri_coords(a, b, c, p, g, alpha, beta);
    return *alpha >= 0.000001 && *beta >= 0.000001 && *alpha + *beta <= 0.999999;
}

/* The contact of p with the point (alpha, beta) of triangle abc, when
 * closer than alarm: from the triangle's point to p. */
static int triangle_hit(const double a[3], const double b[3], const double c[3],
                        const double p[3], double al, double be, double alarm, double contact,
                        cdetect *d)
{
    double q[3], qp[3];
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + (b[k] - a[k]) * al + (c[k] - a[k]) * be;
    sub3(qp, p, q);
    if (dot3(qp, qp) >= alarm * alarm)
        return 0;
    finish(d, q, p, contact);
    weights(d->w[0], 1 - al - be, al, be);
    weights(d->w[1], 1, 0, 0);
    return 1;
}

int st_coll_triangle_point(const double a[3], const double b[3], const double c[3],
                           const double p[3], double alarm, double contact, cdetect *d)
{
    double al, be;
    if (!project_in_triangle(a, b, c, p, &al, &be))
        return 0;
    return triangle_hit(a, b, c, p, al, be, alarm, contact, d);
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
    if (!project_in_triangle(a, b, c, s, &al, &be) ||
        !triangle_hit(a, b, c, s, al, be, alarm + r, contact + r, d))
        return 0;
    sphere_point(d->p[1], s, r, rigid, d->normal, 1.0);
    return 1;
}

/* ---- NewProximityIntersection (SOFA's MeshNewProximityIntersection) and
 * LocalMinDistance, where their tests differ from the above ---- */

int st_coll_new_line_line(const double a[3], const double b[3], const double c[3],
                          const double e[3], double alarm, double contact, cdetect *d)
{
    return segs(a, b, c, e, 1e-12, 0.000001, 0.999999, alarm, contact, d);
}

int st_coll_lmd_line_line(const double a[3], const double b[3], const double c[3],
                          const double e[3], double alarm, double contact, cdetect *d)
{
    return segs(a, b, c, e, 1e-30, 1e-15, 1.0 - 1e-15, alarm, contact, d);
}

/* The closest point of triangle abc to q, as NewProximityIntersection
 * finds it with margins eps and hi (inside, then corner a, edges ab and ac, then
 * b, c or edge bc); 0 when that feature is not the triangle's to test.
 * eps_a: the corner's margin on pAC; strict: an edge's projection must
 * also be above eps; ac_flag and bc_flag: the flags SOFA tests for edges
 * ac and bc. */
static int tri_closest(const double a[3], const double b[3], const double c[3], const double q[3],
                       unsigned flags, double eps, double hi, double eps_a, bool strict,
                       unsigned ac_flag, unsigned bc_flag, double *alpha, double *beta)
{
    double g[5], al, be;
    tri_coords(a, b, c, q, g, &al, &be);
    double a00 = g[0], a11 = g[1], a01 = g[2], b0 = g[3], b1 = g[4];
    if (al < eps || be < eps || al + be > hi) {
        double pab = b0 / a00, pac = b1 / a11;
        if (pab < eps && pac < eps_a) {
            if (!(flags & TF_P1))
                return 0;
            al = be = 0.0;
        } else if (pab < hi && (!strict || pab >= eps) && be < eps) {
            if (!(flags & TF_E12))
                return 0;
            al = pab;
            be = 0.0;
        } else if (pac < hi && (!strict || pac >= eps) && al < eps) {
            if (!(flags & ac_flag))
                return 0;
            al = 0.0;
            be = pac;
        } else {
            double pbc = (b1 - b0 + a00 - a01) / (a00 + a11 - 2 * a01);
            if (pbc < eps) {
                if (!(flags & TF_P2))
                    return 0;
                al = 1.0;
                be = 0.0;
            } else if (pbc > hi) {
                if (!(flags & TF_P3))
                    return 0;
                al = 0.0;
                be = 1.0;
            } else {
                if (!(flags & bc_flag))
                    return 0;
                al = 1.0 - pbc;
                be = pbc;
            }
        }
    }
    *alpha = al;
    *beta = be;
    return 1;
}

int st_coll_new_triangle_point(const double a[3], const double b[3], const double c[3],
                               unsigned flags, const double p[3], double alarm, double contact,
                               cdetect *d)
{
    /* doIntersectionTrianglePoint: machine epsilon margins, edges with
     * their own flags. */
    double al, be;
    const double eps = 2.220446049250313e-16;
    if (!tri_closest(a, b, c, p, flags, eps, 1 - eps, eps, true, TF_E31, TF_E23, &al, &be))
        return 0;
    return triangle_hit(a, b, c, p, al, be, alarm, contact, d);
}

int st_coll_new_triangle_sphere(const double a[3], const double b[3], const double c[3],
                                unsigned flags, const double s[3], double r, bool rigid,
                                double alarm, double contact, cdetect *d)
{
    /* SOFA's Triangle-Sphere: 1e-6 margins (1e-7 on the corner's second
     * coordinate), and the edge flags it tests: E12 for edge ac, E31 for
     * edge bc (kept as SOFA has them). */
    double al, be;
    if (!tri_closest(a, b, c, s, flags, 0.000001, 0.999999, 0.0000001, false, TF_E12, TF_E31, &al,
                     &be) ||
        !triangle_hit(a, b, c, s, al, be, alarm + r, contact + r, d))
        return 0;
    sphere_point(d->p[1], s, r, rigid, d->normal, 1.0); /* getContactPointByNormal */
    return 1;
}

/* ---- NewProximityIntersection's triangle-line and triangle-triangle
 * tests: a triangle's vertices against the other primitive (each vertex
 * only by the triangle that owns it), the other primitive's vertices
 * against the triangle (SOFA's doIntersectionTrianglePoint, edges and
 * corners kept by their owner), and with useLineLine the owned edges
 * against the other's lines or owned edges ---- */

/* The output d of a test run with the two primitives in the other order,
 * turned around: points and weights exchanged, normal reversed. */
static void swap_sides(cdetect *d)
{
    for (int k = 0; k < 3; k++) {
        double t = d->p[0][k];
        d->p[0][k] = d->p[1][k];
        d->p[1][k] = t;
        t = d->w[0][k];
        d->w[0][k] = d->w[1][k];
        d->w[1][k] = t;
        d->normal[k] = -d->normal[k];
    }
}

/* Weights of a point on edge (u, v) of a triangle, at fraction al from u. */
static void edge_weights(double w[3], int u, int v, double al)
{
    w[0] = w[1] = w[2] = 0.0;
    w[u] = 1 - al;
    w[v] = al;
}

static const unsigned vertex_flag[3] = {TF_P1, TF_P2, TF_P3};
/* The edges in SOFA's order of tests: 12, 23, 31. */
static const int edge_end[3][2] = {{0, 1}, {1, 2}, {2, 0}};
static const unsigned edge_flag[3] = {TF_E12, TF_E23, TF_E31};

int st_coll_new_triangle_line(const double a[3], const double b[3], const double c[3],
                              unsigned flags, const double q1[3], const double q2[3],
                              bool line_line, unsigned id, double alarm, double contact,
                              cdetect *d)
{
    const double *t[3] = {a, b, c}, *q[2] = {q1, q2};
    int n = 0;
    for (int v = 0; v < 3; v++) /* the triangle's own corners on the line */
        if ((flags & vertex_flag[v]) && st_coll_line_point(q1, q2, t[v], alarm, contact, &d[n])) {
            swap_sides(&d[n]);
            weights(d[n].w[0], v == 0, v == 1, v == 2);
            n++;
        }
    for (int v = 0; v < 2; v++) /* the line's ends on the triangle */
        if (st_coll_new_triangle_point(a, b, c, flags, q[v], alarm, contact, &d[n])) {
            weights(d[n].w[1], v == 0, v == 1, 0);
            n++;
        }
    for (int e = 0; line_line && e < 3; e++) {
        int u = edge_end[e][0], v = edge_end[e][1];
        if ((flags & edge_flag[e]) &&
            st_coll_new_line_line(t[u], t[v], q1, q2, alarm, contact, &d[n])) {
            edge_weights(d[n].w[0], u, v, d[n].w[0][1]);
            n++;
        }
    }
    for (int k = 0; k < n; k++)
        d[k].id = id;
    return n;
}

int st_coll_new_triangle_triangle(const double a[3], const double b[3], const double c[3],
                                  unsigned f1, const double p[3], const double q[3],
                                  const double r[3], unsigned f2, bool line_line, unsigned id1,
                                  unsigned id2, double alarm, double contact, cdetect *d)
{
    const double *t1[3] = {a, b, c}, *t2[3] = {p, q, r};
    int n = 0;
    /* The first triangle's corners on the second (SOFA tests the first
     * corner whatever the flags, the two others when owned). */
    for (int v = 0; v < 3; v++)
        if ((v == 0 || (f1 & vertex_flag[v])) &&
            st_coll_new_triangle_point(p, q, r, f2, t1[v], alarm, contact, &d[n])) {
            swap_sides(&d[n]);
            weights(d[n].w[0], v == 0, v == 1, v == 2);
            d[n++].id = id1 + (unsigned)v;
        }
    for (int v = 0; v < 3; v++) /* the second's owned corners on the first */
        if ((f2 & vertex_flag[v]) &&
            st_coll_new_triangle_point(a, b, c, f1, t2[v], alarm, contact, &d[n])) {
            weights(d[n].w[1], v == 0, v == 1, v == 2);
            d[n++].id = id2 + (unsigned)v;
        }
    for (int e = 0; line_line && e < 3; e++)
        for (int g = 0; g < 3; g++) {
            int u = edge_end[e][0], v = edge_end[e][1], x = edge_end[g][0], y = edge_end[g][1];
            if (!(f1 & edge_flag[e]) || !(f2 & edge_flag[g]) ||
                !st_coll_new_line_line(t1[u], t1[v], t2[x], t2[y], alarm, contact, &d[n]))
                continue;
            double al = d[n].w[0][1], be = d[n].w[1][1];
            edge_weights(d[n].w[0], u, v, al);
            edge_weights(d[n].w[1], x, y, be);
            d[n++].id = id2 + 3 + 3 * (unsigned)e + (unsigned)g;
        }
    return n;
}

int st_coll_lmd_line_point(const double a[3], const double b[3], const double p[3], double r,
                           double alarm, double contact, cdetect *d)
{
    double ab[3], ap[3];
    sub3(ab, b, a);
    sub3(ap, p, a);
    if (sqrt(dot3(ab, ab)) < 1e-12 * sqrt(dot3(ap, ap)))
        return 0;
    double al = dot3(ap, ab) / dot3(ab, ab);
    if (al < 0.000001 || al > 0.999999)
        return 0;
    double q[3], qp[3], am = alarm + r;
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + ab[k] * al;
    sub3(qp, p, q);
    if (dot3(qp, qp) >= am * am)
        return 0;
    finish(d, q, p, contact + r);
    weights(d->w[0], 1 - al, al, 0);
    weights(d->w[1], 1, 0, 0);
    return 1;
}

/* ---- LocalMinDistance's cone filters ---- */

/* Vertex i of m's state (cmodel_x's positions, read directly so that the
 * geometry compiles alone into the tests). */
static const double *pos(const cmodel *m, unsigned i)
{
    return m->ms->position.r + (size_t)m->ms->type->coord_size * i;
}

static void tri_normal(double n[3], const cmodel *m, const unsigned *t)
{
    double u[3], v[3];
    sub3(u, pos(m, t[1]), pos(m, t[0]));
    sub3(v, pos(m, t[2]), pos(m, t[0]));
    cross3(n, u, v);
    normalize3(n);
}

/* The direction of edge ed away from pt: (pt - x0) + (pt - x1), unit. */
static void edge_dir(double l[3], const cmodel *m, const unsigned *ed, const double pt[3])
{
    for (int k = 0; k < 3; k++)
        l[k] = (pt[k] - pos(m, ed[0])[k]) + (pt[k] - pos(m, ed[1])[k]);
    normalize3(l);
}

/* SOFA's cone half-width along a tangent t: coneFactor n.t (not below 0)
 * plus angleCone, in cosine units. */
static double cone(const cintersect *mth, const double n[3], const double t[3])
{
    double c = dot3(n, t) * mth->cone_factor;
    return (c < 0 ? 0.0 : c) + mth->angle_cone;
}

/* A point: the mean normal of its triangles (or of its edges' directions
 * away from it) must not face away from pq, and pq must stay within each
 * edge's cone. Only when its node has a LineCollisionModel. */
static bool point_valid(const cintersect *mth, const cmodel *m, unsigned v, const double pq[3])
{
    const cmodel *lm = m->lines;
    if (!lm)
        return true;
    const double *pt = pos(m, v);
    double nm[3] = {0, 0, 0}, len = sqrt(dot3(pq, pq));
    unsigned t0 = m->vt_start[v], t1 = m->vt_start[v + 1];
    for (unsigned i = t0; i < t1; i++) {
        double n[3];
        tri_normal(n, m, m->topo_tri->u + 3 * (size_t)m->vt_items[i]);
        for (int k = 0; k < 3; k++)
            nm[k] += n[k];
    }
    unsigned e0 = lm->ve_start[v], e1 = lm->ve_start[v + 1];
    double l[3];
    for (unsigned i = e0; i < e1 && t0 == t1; i++) { /* no triangle: the edges */
        edge_dir(l, m, lm->elems + 2 * (size_t)lm->ve_items[i], pt);
        for (int k = 0; k < 3; k++)
            nm[k] += l[k];
    }
    if (sqrt(dot3(nm, nm)) > 1e-10) {
        normalize3(nm);
        if (dot3(nm, pq) < -mth->angle_cone * len && !m->both_side)
            return false;
    }
    for (unsigned i = e0; i < e1; i++) {
        edge_dir(l, m, lm->elems + 2 * (size_t)lm->ve_items[i], pt);
        if (dot3(l, pq) < -cone(mth, nm, l) * len)
            return false;
    }
    return true;
}

/* An edge: with two triangles around it, pq must leave on the side of
 * their mean normal and within both triangles' cones; else it must be
 * (nearly) orthogonal to the edge. */
static bool line_valid(const cintersect *mth, const cmodel *m, size_t e, const double pq[3])
{
    const unsigned *ed = m->elems + 2 * e;
    double ab[3], len = sqrt(dot3(pq, pq));
    sub3(ab, pos(m, ed[1]), pos(m, ed[0]));
    normalize3(ab);
    const unsigned *around[3] = {NULL, NULL, NULL};
    size_t n = 0;
    for (unsigned i = m->vt_start[ed[0]]; i < m->vt_start[ed[0] + 1] && n < 3; i++) {
        const unsigned *tr = m->topo_tri->u + 3 * (size_t)m->vt_items[i];
        if (tr[0] == ed[1] || tr[1] == ed[1] || tr[2] == ed[1])
            around[n++] = tr;
    }
    if (n == 2) {
        const unsigned *t0 = around[0];
        bool left = (ed[0] == t0[0] && ed[1] == t0[1]) || (ed[0] == t0[1] && ed[1] == t0[2]) ||
                    (ed[0] == t0[2] && ed[1] == t0[0]);
        const unsigned *right = left ? around[1] : around[0], *lft = left ? around[0] : around[1];
        double n1[3], n2[3], nm[3], t1[3], t2[3];
        tri_normal(n1, m, right);
        tri_normal(n2, m, lft);
        cross3(t1, n1, ab);
        normalize3(t1);
        cross3(t2, ab, n2);
        normalize3(t2);
        for (int k = 0; k < 3; k++)
            nm[k] = n1[k] + n2[k];
        normalize3(nm);
        if (dot3(nm, pq) < 0 && !m->both_side)
            return false;
        return dot3(t1, pq) >= -cone(mth, nm, t1) * len &&
               dot3(t2, pq) >= -cone(mth, nm, t2) * len;
    }
    double u[3] = {pq[0], pq[1], pq[2]};
    normalize3(u);
    return fabs(dot3(ab, u)) <= mth->angle_cone + 0.0001;
}

bool st_coll_lmd_valid(const cintersect *mth, const cmodel *m, size_t e, const double pq[3])
{
    if (mth->use_lmd_filters || !mth->filter_intersection)
        return true;
    switch (m->kind) {
    case CM_POINT:
        return point_valid(mth, m, (unsigned)e, pq);
    case CM_LINE:
        return line_valid(mth, m, e, pq);
    case CM_TRIANGLE: {
        if (m->both_side)
            return true;
        const unsigned *t = m->elems + 3 * e;
        double u[3], v[3], n[3];
        sub3(u, pos(m, t[1]), pos(m, t[0]));
        sub3(v, pos(m, t[2]), pos(m, t[0]));
        cross3(n, u, v);
        return dot3(n, pq) >= 0.0;
    }
    default: /* spheres */
        return true;
    }
}

/* SOFA's RayDiscreteIntersection ray-triangle: solve o + t d = a + u (b-a)
 * + v (c-a) (Cramer's rule); a hit needs u, v >= 0, u + v <= 1 and
 * 0 <= t <= len. Both points at the hit, normal minus the triangle's unit
 * normal, value 0. Returns the number of outputs (0 or 1). */
int st_coll_ray_triangle(const double o[3], const double d[3], double len, const double a[3],
                         const double b[3], const double c[3], cdetect *out)
{
    double ab[3], ac[3], nd[3], r[3], x[3];
    sub3(ab, b, a);
    sub3(ac, c, a);
    for (int k = 0; k < 3; k++)
        nd[k] = -d[k];
    sub3(r, o, a);
    cross3(x, ac, nd);
    double det = dot3(ab, x);
    if (det == 0.0)
        return 0;
    double t1[3], t2[3];
    double u = dot3(r, x) / det;
    cross3(t1, r, nd);
    double v = dot3(ab, t1) / det;
    cross3(t2, ab, ac);
    double t = dot3(t2, r) / det;
    if (u < 0 || v < 0 || u + v > 1 || t < 0 || t > len)
        return 0;
    memset(out, 0, sizeof *out);
    double n[3];
    cross3(n, ab, ac);
    normalize3(n);
    for (int k = 0; k < 3; k++) {
        out->p[0][k] = out->p[1][k] = o[k] + t * d[k];
        out->normal[k] = -n[k];
    }
    out->value = 0.0;
    return 1;
}

/* SOFA's RayDiscreteIntersection ray-sphere: the ray's point nearest the
 * centre, its parameter clamped to [0, len]; a hit when that distance is
 * below the radius: normal from that point to the centre, second point
 * centre - r n, value distance - r. */
int st_coll_ray_sphere(const double o[3], const double d[3], double len, const double ctr[3],
                       double rad, cdetect *out)
{
    double tmp[3];
    sub3(tmp, ctr, o);
    double s = dot3(tmp, d);
    s = s < len ? s : len;
    s = s > 0.0 ? s : 0.0;
    double dist2 = dot3(tmp, tmp) - s * s;
    if (dist2 >= rad * rad)
        return 0;
    double dist = sqrt(dist2);
    memset(out, 0, sizeof *out);
    for (int k = 0; k < 3; k++) {
        out->p[0][k] = o[k] + d[k] * s;
        out->normal[k] = (ctr[k] - out->p[0][k]) / dist;
        out->p[1][k] = ctr[k] - out->normal[k] * rad;
    }
    out->value = dist - rad;
    return 1;
}
