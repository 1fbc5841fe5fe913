/* obb_capsule.c - the tests of SOFA's CollisionOBBCapsule plugin: oriented
 * boxes (OBBCollisionModel), capsules on edges (CapsuleCollisionModel) and
 * on frames (RigidCapsuleCollisionModel), against each other and the
 * spheres, triangles and lines of the Collision plugin.
 *
 * Which pairs each method tests is SOFA's table: its DiscreteIntersection
 * registrations reach every method (Min, New, LocalMinDistance, CCD and
 * Discrete itself, which all derive from it): OBB-OBB, sphere-OBB,
 * capsule-capsule, capsule-sphere and capsule-OBB; NewProximityIntersection
 * adds triangle-OBB, capsule-triangle and capsule-line. One detection per
 * element pair, normal from SOFA's first model to the second, value the
 * signed distance (negative in penetration) minus the contact distance.
 *
 * The geometry is settee's own (SOFA ports Wild Magic's contact-set
 * code): boxes and triangles are convex polytopes; the separating axis of
 * largest separation among the face normals and the edge-edge crosses (a
 * face preferred on ties) gives the normal and the distance, the closest
 * features along it the points: a vertex, the closest points of two
 * edges, or the middle of the overlap of two faces (or of a face and an
 * edge). A capsule's or a sphere's point against a box is the point of the
 * segment of least signed distance to the box (the middle of the stretch
 * where several tie), on the box the closest point (outside) or the point
 * of the face of least penetration (inside). Capsules' points sit on their
 * axis and their radius joins the rest distance through the contact
 * mapper (SOFA puts them on the surface and its mapper adds the radius
 * again: settee does not count it twice); spheres follow the sphere tests'
 * rule (a Vec3d sphere's centre, a Rigid3d sphere's surface). */
#include <math.h>
#include <string.h>

#include "collision.h"

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross(double o[3], const double a[3], const double b[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static double norm(const double a[3]) { return sqrt(dot(a, a)); }

static void axpy(double o[3], const double a[3], double s, const double b[3])
{
    for (int k = 0; k < 3; k++)
        o[k] = a[k] + s * b[k];
}

static double clamp01(double t) { return t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t; }

static bool is_capsule(cm_kind k) { return k == CM_CAPSULE || k == CM_RIGIDCAPSULE; }
static bool is_sphere(cm_kind k) { return k == CM_SPHERE || k == CM_RIGIDSPHERE; }

bool cmodel_rigid(const cmodel *m)
{
    return m->kind == CM_RIGIDSPHERE || m->kind == CM_OBB || m->kind == CM_RIGIDCAPSULE ||
           m->kind == CM_RIGIDDGRID;
}

double cmodel_capsule_radius(const cmodel *m, size_t i)
{
    const st_array *l = m->kind == CM_CAPSULE ? &m->list_radius : &m->radii;
    return i < l->n ? l->r[i] : m->default_radius;
}

int obbcap_order(cm_kind k)
{
    /* SOFA registers capsule pairs capsule first, box pairs box last,
     * distance grid pairs grid first (FFD before rigid). */
    return k == CM_FFDDGRID     ? -4
           : k == CM_RIGIDDGRID ? -3
           : k == CM_CAPSULE    ? -2
           : k == CM_RIGIDCAPSULE ? -1
           : k == CM_OBB        ? 100
                                : (int)k;
}

bool obbcap_has_test(const cintersect *m, cm_kind a, cm_kind b)
{
    if (obbcap_order(b) < obbcap_order(a)) {
        cm_kind t = a;
        a = b;
        b = t;
    }
    bool mesh = m->method == CI_NEW; /* SOFA's MeshDiscreteIntersection registrations */
    if (is_capsule(a))
        return is_capsule(b) || is_sphere(b) || b == CM_OBB ||
               (mesh && (b == CM_TRIANGLE || b == CM_LINE));
    if (b != CM_OBB)
        return false;
    return a == CM_OBB || is_sphere(a) || (mesh && a == CM_TRIANGLE);
}

void obbcap_box(const cmodel *m, size_t i, double c[3], double ax[3][3], double e[3])
{
    const double *x = cmodel_x(m) + 7 * i;
    for (int k = 0; k < 3; k++) {
        double u[3] = {k == 0, k == 1, k == 2};
        c[k] = x[k];
        st_quat_rotate(ax[k], x + 3, u);
        e[k] = i < m->extents.n ? m->extents.r[3 * i + k] : m->default_extent;
    }
}

void obbcap_capsule(const cmodel *m, size_t i, double p1[3], double p2[3], double *r)
{
    const double *x = cmodel_x(m);
    *r = cmodel_capsule_radius(m, i);
    if (m->kind == CM_CAPSULE) {
        memcpy(p1, x + 3 * (size_t)m->elems[2 * i], 3 * sizeof(double));
        memcpy(p2, x + 3 * (size_t)m->elems[2 * i + 1], 3 * sizeof(double));
        return;
    }
    const double *c = x + 7 * i;
    static const double y[3] = {0, 1, 0};
    double a[3];
    st_quat_rotate(a, c + 3, y);
    double h = i < m->heights.n ? m->heights.r[i] : m->default_height;
    axpy(p1, c, -0.5 * h, a);
    axpy(p2, c, 0.5 * h, a);
}

/* ---- convex polytopes: boxes and triangles ---- */

typedef struct poly {
    double v[8][3]; /* vertices */
    int nv;
    double dir[6][3]; /* unit face normals (nf first), then edge directions */
    int nf, ne;
    double scale;   /* a length of the shape, for tolerances */
} poly;

static void poly_box(poly *p, const double c[3], const double a[3][3], const double e[3])
{
    p->nv = 0;
    for (int s = 0; s < 8; s++) {
        double *v = p->v[p->nv++];
        for (int k = 0; k < 3; k++)
            v[k] = c[k] + (s & 1 ? e[0] : -e[0]) * a[0][k] + (s & 2 ? e[1] : -e[1]) * a[1][k] +
                   (s & 4 ? e[2] : -e[2]) * a[2][k];
    }
    p->nf = p->ne = 3;
    for (int k = 0; k < 3; k++) {
        memcpy(p->dir[k], a[k], sizeof p->dir[k]);
        memcpy(p->dir[3 + k], a[k], sizeof p->dir[k]);
    }
    p->scale = e[0] + e[1] + e[2];
}

static void poly_triangle(poly *p, const double t0[3], const double t1[3], const double t2[3])
{
    const double *t[3] = {t0, t1, t2};
    p->nv = 3;
    p->nf = p->ne = 0;
    p->scale = 0.0;
    double n[3], u[3], w[3];
    for (int k = 0; k < 3; k++) {
        memcpy(p->v[k], t[k], sizeof p->v[k]);
        double d[3] = {t[(k + 1) % 3][0] - t[k][0], t[(k + 1) % 3][1] - t[k][1],
                       t[(k + 1) % 3][2] - t[k][2]};
        p->scale += norm(d);
    }
    for (int k = 0; k < 3; k++)
        u[k] = t1[k] - t0[k], w[k] = t2[k] - t0[k];
    cross(n, u, w);
    double l = norm(n);
    if (l > 0.0) {
        for (int k = 0; k < 3; k++)
            p->dir[0][k] = n[k] / l;
        p->nf = 1;
    }
    for (int k = 0; k < 3; k++) {
        double d[3] = {t[(k + 1) % 3][0] - t[k][0], t[(k + 1) % 3][1] - t[k][1],
                       t[(k + 1) % 3][2] - t[k][2]};
        double ld = norm(d);
        if (ld > 0.0) {
            for (int a = 0; a < 3; a++)
                p->dir[p->nf + p->ne][a] = d[a] / ld;
            p->ne++;
        }
    }
}

static void extent_along(const poly *p, const double L[3], double *lo, double *hi)
{
    *lo = 1e300, *hi = -1e300;
    for (int i = 0; i < p->nv; i++) {
        double s = dot(p->v[i], L);
        *lo = s < *lo ? s : *lo;
        *hi = s > *hi ? s : *hi;
    }
}

/* The separation of B from A along L (oriented the better way); keeps the
 * axis when it beats *best by more than margin. */
static void try_axis(const poly *A, const poly *B, const double Lin[3], double margin,
                     double *best, double L[3])
{
    double la, ha, lb, hb;
    extent_along(A, Lin, &la, &ha);
    extent_along(B, Lin, &lb, &hb);
    double sp = lb - ha, sm = la - hb; /* along +L, along -L */
    double s = sp >= sm ? sp : sm;
    if (s > *best + margin) {
        *best = s;
        for (int k = 0; k < 3; k++)
            L[k] = sp >= sm ? Lin[k] : -Lin[k];
    }
}

/* 2D helpers for the overlap of two support features. */
static double cross2(const double a[2], const double b[2], const double c[2])
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Orders a convex set of 2D points counter-clockwise around their mean. */
static void order_ccw(double (*q)[2], int n)
{
    double m[2] = {0, 0};
    for (int i = 0; i < n; i++)
        m[0] += q[i][0] / n, m[1] += q[i][1] / n;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && atan2(q[j][1] - m[1], q[j][0] - m[0]) <
                                     atan2(q[j - 1][1] - m[1], q[j - 1][0] - m[0]);
             j--) {
            double t0 = q[j][0], t1 = q[j][1];
            q[j][0] = q[j - 1][0], q[j][1] = q[j - 1][1];
            q[j - 1][0] = t0, q[j - 1][1] = t1;
        }
}

static bool inside2(const double (*poly2)[2], int n, const double p[2], double tol)
{
    for (int i = 0; i < n; i++)
        if (cross2(poly2[i], poly2[(i + 1) % n], p) < -tol)
            return false;
    return true;
}

/* Clips segment a-b to convex polygon P (ccw); false when nothing is left. */
static bool clip_segment(const double (*P)[2], int n, const double a[2], const double b[2],
                         double *t0, double *t1)
{
    *t0 = 0.0, *t1 = 1.0;
    for (int i = 0; i < n; i++) {
        double fa = cross2(P[i], P[(i + 1) % n], a), fb = cross2(P[i], P[(i + 1) % n], b);
        if (fa < 0 && fb < 0)
            return false;
        if (fa < 0 || fb < 0) {
            double t = fa / (fa - fb);
            if (fa < 0)
                *t0 = t > *t0 ? t : *t0;
            else
                *t1 = t < *t1 ? t : *t1;
        }
    }
    return *t0 <= *t1;
}

/* The middle of the overlap of the two support sets seen along L, as
 * coordinates (u, w) of the plane orthogonal to L; false when none. */
static bool overlap_middle(double (*qa)[2], int na, double (*qb)[2], int nb, double tol,
                           double out[2])
{
    if (na == 2 && nb >= 3) {
        order_ccw(qb, nb);
        double t0, t1;
        if (!clip_segment((const double (*)[2])qb, nb, qa[0], qa[1], &t0, &t1))
            return false;
        double t = 0.5 * (t0 + t1);
        out[0] = qa[0][0] + t * (qa[1][0] - qa[0][0]);
        out[1] = qa[0][1] + t * (qa[1][1] - qa[0][1]);
        return true;
    }
    if (nb == 2 && na >= 3)
        return overlap_middle(qb, nb, qa, na, tol, out);
    /* two faces: the mean of the corners of their intersection polygon */
    order_ccw(qa, na);
    order_ccw(qb, nb);
    double s[2] = {0, 0};
    int k = 0;
    for (int i = 0; i < na; i++)
        if (inside2((const double (*)[2])qb, nb, qa[i], tol))
            s[0] += qa[i][0], s[1] += qa[i][1], k++;
    for (int i = 0; i < nb; i++)
        if (inside2((const double (*)[2])qa, na, qb[i], tol))
            s[0] += qb[i][0], s[1] += qb[i][1], k++;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            const double *a = qa[i], *b = qa[(i + 1) % na], *c = qb[j], *d = qb[(j + 1) % nb];
            double r[2] = {b[0] - a[0], b[1] - a[1]}, q[2] = {d[0] - c[0], d[1] - c[1]};
            double den = r[0] * q[1] - r[1] * q[0];
            if (fabs(den) < 1e-300)
                continue;
            double t = ((c[0] - a[0]) * q[1] - (c[1] - a[1]) * q[0]) / den;
            double u = ((c[0] - a[0]) * r[1] - (c[1] - a[1]) * r[0]) / den;
            if (t > 0 && t < 1 && u > 0 && u < 1)
                s[0] += a[0] + t * r[0], s[1] += a[1] + t * r[1], k++;
        }
    if (!k)
        return false;
    out[0] = s[0] / k;
    out[1] = s[1] / k;
    return true;
}

/* Closest points of segments a0-a1 and b0-b1: parameters s (on a) and t
 * (on b); parallel segments meet in the middle of their overlap. */
static void seg_seg(const double a0[3], const double a1[3], const double b0[3], const double b1[3],
                    double *s, double *t)
{
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; k++)
        u[k] = a1[k] - a0[k], v[k] = b1[k] - b0[k], w[k] = b0[k] - a0[k];
    double uu = dot(u, u), vv = dot(v, v), uv = dot(u, v), uw = dot(u, w), vw = dot(v, w);
    double det = uu * vv - uv * uv;
    if (uu <= 0.0 && vv <= 0.0) {
        *s = *t = 0.0;
        return;
    }
    if (uu <= 0.0) {
        *s = 0.0;
        *t = clamp01(-vw / vv);
        return;
    }
    if (vv <= 0.0) {
        *t = 0.0;
        *s = clamp01(uw / uu);
        return;
    }
    if (det <= 1e-12 * uu * vv) { /* parallel: the middle of the overlap */
        double c0 = uw / uu, c1 = (uw + uv) / uu; /* b0, b1 along a */
        double lo = fmax(0.0, fmin(c0, c1)), hi = fmin(1.0, fmax(c0, c1));
        *s = lo <= hi ? 0.5 * (lo + hi) : (fmin(c0, c1) > 1.0 ? 1.0 : 0.0);
    } else {
        *s = clamp01((uw * vv - vw * uv) / det);
    }
    double p[3];
    axpy(p, a0, *s, u);
    double pb[3] = {p[0] - b0[0], p[1] - b0[1], p[2] - b0[2]};
    *t = clamp01(dot(pb, v) / vv);
    double q[3];
    axpy(q, b0, *t, v);
    double qa[3] = {q[0] - a0[0], q[1] - a0[1], q[2] - a0[2]};
    if (det > 1e-12 * uu * vv)
        *s = clamp01(dot(qa, u) / uu);
}

/* Polytopes A and B: the axis of largest separation, its distance s and
 * the points; 1 when s is not above alarm. */
static int sat(const poly *A, const poly *B, double alarm, double contact, cdetect *d)
{
    double scale = A->scale > B->scale ? A->scale : B->scale;
    double tol = 1e-9 * (scale > 0 ? scale : 1.0);
    double best = -1e300, L[3] = {1, 0, 0};
    for (int i = 0; i < A->nf; i++)
        try_axis(A, B, A->dir[i], 0.0, &best, L);
    for (int i = 0; i < B->nf; i++)
        try_axis(A, B, B->dir[i], 0.0, &best, L);
    for (int i = 0; i < A->ne; i++)
        for (int j = 0; j < B->ne; j++) {
            double c[3];
            cross(c, A->dir[A->nf + i], B->dir[B->nf + j]);
            double l = norm(c);
            if (l < 1e-6)
                continue; /* parallel edges: the faces decide */
            for (int k = 0; k < 3; k++)
                c[k] /= l;
            try_axis(A, B, c, 1e-6 * scale, &best, L); /* a face is kept on ties */
        }
    if (best > alarm)
        return 0;
    double la, ha, lb, hb;
    extent_along(A, L, &la, &ha);
    extent_along(B, L, &lb, &hb);
    /* the support features: A's vertices at its top along L, B's at its bottom */
    int sa[8], sb[8], na = 0, nb = 0;
    double ftol = 1e-6 * scale;
    for (int i = 0; i < A->nv; i++)
        if (dot(A->v[i], L) >= ha - ftol)
            sa[na++] = i;
    for (int i = 0; i < B->nv; i++)
        if (dot(B->v[i], L) <= lb + ftol)
            sb[nb++] = i;
    double pa[3], pb[3];
    if (na == 1) {
        memcpy(pa, A->v[sa[0]], sizeof pa);
        axpy(pb, pa, best, L);
    } else if (nb == 1) {
        memcpy(pb, B->v[sb[0]], sizeof pb);
        axpy(pa, pb, -best, L);
    } else if (na == 2 && nb == 2) {
        double s, t;
        seg_seg(A->v[sa[0]], A->v[sa[1]], B->v[sb[0]], B->v[sb[1]], &s, &t);
        for (int k = 0; k < 3; k++)
            pa[k] = A->v[sa[0]][k] + s * (A->v[sa[1]][k] - A->v[sa[0]][k]);
        /* on A's support plane, then across the gap */
        axpy(pa, pa, ha - dot(pa, L), L);
        axpy(pb, pa, best, L);
    } else {
        /* a plane basis orthogonal to L */
        double u[3], w[3], t[3] = {fabs(L[0]) < 0.9 ? 1.0 : 0.0, fabs(L[0]) < 0.9 ? 0.0 : 1.0, 0};
        cross(u, L, t);
        double lu = norm(u);
        for (int k = 0; k < 3; k++)
            u[k] /= lu;
        cross(w, L, u);
        double qa[8][2], qb[8][2], m2[2];
        for (int i = 0; i < na; i++)
            qa[i][0] = dot(A->v[sa[i]], u), qa[i][1] = dot(A->v[sa[i]], w);
        for (int i = 0; i < nb; i++)
            qb[i][0] = dot(B->v[sb[i]], u), qb[i][1] = dot(B->v[sb[i]], w);
        if (!overlap_middle(qa, na, qb, nb, tol * scale, m2)) {
            m2[0] = m2[1] = 0.0; /* touching only at an outline: B's feature's middle */
            for (int i = 0; i < nb; i++)
                m2[0] += qb[i][0] / nb, m2[1] += qb[i][1] / nb;
        }
        for (int k = 0; k < 3; k++)
            pa[k] = m2[0] * u[k] + m2[1] * w[k] + ha * L[k];
        axpy(pb, pa, best, L);
    }
    memcpy(d->p[0], pa, sizeof pa);
    memcpy(d->p[1], pb, sizeof pb);
    memcpy(d->normal, L, sizeof d->normal);
    d->value = best - contact;
    memset(d->w, 0, sizeof d->w);
    d->w[0][0] = d->w[1][0] = 1.0;
    return 1;
}

int st_coll_obb_obb(const double c0[3], const double a0[3][3], const double e0[3],
                    const double c1[3], const double a1[3][3], const double e1[3], double alarm,
                    double contact, cdetect *d)
{
    poly A, B;
    poly_box(&A, c0, a0, e0);
    poly_box(&B, c1, a1, e1);
    return sat(&A, &B, alarm, contact, d);
}

/* Barycentric weights of p (on the plane of a b c), clamped into it. */
static void tri_weights(const double a[3], const double b[3], const double c[3],
                        const double p[3], double w[3])
{
    double u[3], v[3], r[3];
    for (int k = 0; k < 3; k++)
        u[k] = b[k] - a[k], v[k] = c[k] - a[k], r[k] = p[k] - a[k];
    double uu = dot(u, u), vv = dot(v, v), uv = dot(u, v), ru = dot(r, u), rv = dot(r, v);
    double det = uu * vv - uv * uv;
    double al = det != 0.0 ? (ru * vv - rv * uv) / det : 0.0;
    double be = det != 0.0 ? (rv * uu - ru * uv) / det : 0.0;
    al = al < 0 ? 0 : al;
    be = be < 0 ? 0 : be;
    if (al + be > 1) {
        double s = al + be;
        al /= s, be /= s;
    }
    w[0] = 1 - al - be, w[1] = al, w[2] = be;
}

int st_coll_triangle_obb(const double t0[3], const double t1[3], const double t2[3],
                         const double c[3], const double a[3][3], const double e[3], double alarm,
                         double contact, cdetect *d)
{
    poly A, B;
    poly_triangle(&A, t0, t1, t2);
    poly_box(&B, c, a, e);
    if (!sat(&A, &B, alarm, contact, d))
        return 0;
    tri_weights(t0, t1, t2, d->p[0], d->w[0]);
    return 1;
}

/* ---- segments (capsules, spheres) against boxes ---- */

/* Signed distance of world point p to the box; b the box's point, n the
 * unit direction from b to p (outside) or out of the face of least
 * penetration (inside). */
static double box_sd(const double p[3], const double c[3], const double a[3][3],
                     const double e[3], double b[3], double n[3])
{
    double q[3], r[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]}, cl[3], nl[3] = {0, 0, 0};
    bool in = true;
    for (int k = 0; k < 3; k++) {
        q[k] = dot(r, a[k]);
        cl[k] = q[k] < -e[k] ? -e[k] : q[k] > e[k] ? e[k] : q[k];
        in = in && q[k] >= -e[k] && q[k] <= e[k];
    }
    double sd;
    if (!in) {
        double dd[3] = {q[0] - cl[0], q[1] - cl[1], q[2] - cl[2]};
        sd = norm(dd);
        for (int k = 0; k < 3; k++)
            nl[k] = dd[k] / sd;
    } else {
        int kk = 0;
        double m = -1e300;
        for (int k = 0; k < 3; k++)
            if (fabs(q[k]) - e[k] > m)
                m = fabs(q[k]) - e[k], kk = k;
        sd = m;
        nl[kk] = q[kk] >= 0 ? 1.0 : -1.0;
        cl[kk] = nl[kk] * e[kk];
    }
    for (int k = 0; k < 3; k++) {
        b[k] = c[k] + cl[0] * a[0][k] + cl[1] * a[1][k] + cl[2] * a[2][k];
        n[k] = nl[0] * a[0][k] + nl[1] * a[1][k] + nl[2] * a[2][k];
    }
    return sd;
}

static double seg_sd(const double p1[3], const double p2[3], double t, const double c[3],
                     const double a[3][3], const double e[3])
{
    double p[3], b[3], n[3];
    for (int k = 0; k < 3; k++)
        p[k] = p1[k] + t * (p2[k] - p1[k]);
    return box_sd(p, c, a, e, b, n);
}

int st_coll_segment_obb(const double p1[3], const double p2[3], double r, const double c[3],
                        const double a[3][3], const double e[3], double alarm, double contact,
                        cdetect *d)
{
    /* the signed distance is convex along the segment: golden section */
    double t = 0.0;
    double len[3] = {p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]};
    if (norm(len) > 0.0) {
        const double g = 0.6180339887498949;
        double lo = 0.0, hi = 1.0;
        for (int it = 0; it < 90; it++) {
            double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
            if (seg_sd(p1, p2, x1, c, a, e) <= seg_sd(p1, p2, x2, c, a, e))
                hi = x2;
            else
                lo = x1;
        }
        t = 0.5 * (lo + hi);
        /* a segment parallel to the closest feature (a face, or an edge)
         * ties along a stretch: the middle of the stretch where its
         * points' closest point stays on that feature */
        double p[3], b[3], n[3], dl[3], ql[3], nl[3], r0[3];
        for (int k = 0; k < 3; k++)
            p[k] = p1[k] + t * len[k];
        box_sd(p, c, a, e, b, n);
        double dn = norm(len);
        bool flat = true;
        for (int k = 0; k < 3; k++) {
            r0[k] = p1[k] - c[k];
        }
        for (int k = 0; k < 3; k++) {
            dl[k] = dot(len, a[k]);
            ql[k] = dot(r0, a[k]);
            nl[k] = dot(n, a[k]);
            if (fabs(nl[k]) > 1e-9 && fabs(dl[k]) > 1e-9 * dn)
                flat = false;
        }
        double tlo = 0.0, thi = 1.0;
        for (int k = 0; flat && k < 3; k++) {
            if (fabs(nl[k]) > 1e-9 || fabs(dl[k]) <= 1e-12 * dn)
                continue;
            double ta = (-e[k] - ql[k]) / dl[k], tb = (e[k] - ql[k]) / dl[k];
            tlo = fmax(tlo, fmin(ta, tb));
            thi = fmin(thi, fmax(ta, tb));
        }
        if (flat && tlo <= thi)
            t = 0.5 * (tlo + thi);
    }
    double p[3], b[3], n[3];
    for (int k = 0; k < 3; k++)
        p[k] = p1[k] + t * len[k];
    double sd = box_sd(p, c, a, e, b, n);
    if (sd - r > alarm)
        return 0;
    memcpy(d->p[0], p, sizeof p);
    memcpy(d->p[1], b, sizeof b);
    for (int k = 0; k < 3; k++)
        d->normal[k] = -n[k]; /* from the segment to the box */
    d->value = sd - r - contact;
    memset(d->w, 0, sizeof d->w);
    d->w[0][0] = 1.0 - t;
    d->w[0][1] = t;
    d->w[1][0] = 1.0;
    return 1;
}

/* ---- segments against segments, points and triangles ---- */

/* The detection between points P (on the first) and Q (on the second),
 * radii r1 r2 joining the distance. */
static int point_pair(const double P[3], const double Q[3], double r1, double r2, double alarm,
                      double contact, cdetect *d)
{
    double pq[3] = {Q[0] - P[0], Q[1] - P[1], Q[2] - P[2]};
    double l = norm(pq);
    if (l - r1 - r2 > alarm)
        return 0;
    memcpy(d->p[0], P, 3 * sizeof(double));
    memcpy(d->p[1], Q, 3 * sizeof(double));
    for (int k = 0; k < 3; k++)
        d->normal[k] = l > 1e-15 ? pq[k] / l : k == 0;
    d->value = l - r1 - r2 - contact;
    memset(d->w, 0, sizeof d->w);
    return 1;
}

/* Segment p1-p2 (radius r) and triangle abc: the closest points (the
 * segment's ends on the triangle, the segment on its edges); a segment
 * through the triangle: its end on the shallower side pushed back. */
static int segment_triangle(const double p1[3], const double p2[3], double r, const double *t[3],
                            double alarm, double contact, cdetect *d)
{
    double u[3], v[3], n[3];
    for (int k = 0; k < 3; k++)
        u[k] = t[1][k] - t[0][k], v[k] = t[2][k] - t[0][k];
    cross(n, u, v);
    double ln = norm(n);
    if (ln <= 0.0)
        return 0;
    for (int k = 0; k < 3; k++)
        n[k] /= ln;
    double h1 = dot(n, p1) - dot(n, t[0]), h2 = dot(n, p2) - dot(n, t[0]);
    double best = 1e300, P[3], Q[3], sP = 0, wQ[3] = {1, 0, 0};
    if (h1 * h2 < 0.0) { /* crosses the plane: inside the triangle? */
        double s = h1 / (h1 - h2), x[3], w[3];
        axpy(x, p1, s, (double[3]){p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]});
        tri_weights(t[0], t[1], t[2], x, w);
        double y[3];
        for (int k = 0; k < 3; k++)
            y[k] = w[0] * t[0][k] + w[1] * t[1][k] + w[2] * t[2][k];
        double dy[3] = {x[0] - y[0], x[1] - y[1], x[2] - y[2]};
        if (norm(dy) < 1e-12 * (1.0 + ln)) {
            bool first = fabs(h1) < fabs(h2); /* the shallower end goes back */
            const double *pe = first ? p1 : p2;
            double he = first ? h1 : h2;
            double q[3];
            axpy(q, pe, -he, n);
            tri_weights(t[0], t[1], t[2], q, wQ);
            memcpy(d->p[0], pe, 3 * sizeof(double));
            for (int k = 0; k < 3; k++)
                d->p[1][k] = wQ[0] * t[0][k] + wQ[1] * t[1][k] + wQ[2] * t[2][k];
            double sg = he > 0 ? -1.0 : 1.0; /* from the capsule towards the triangle */
            for (int k = 0; k < 3; k++)
                d->normal[k] = sg * n[k];
            d->value = -fabs(he) - r - contact;
            memset(d->w, 0, sizeof d->w);
            d->w[0][0] = first ? 1.0 : 0.0;
            d->w[0][1] = first ? 0.0 : 1.0;
            memcpy(d->w[1], wQ, sizeof wQ);
            return 1;
        }
    }
    const double *ends[2] = {p1, p2};
    for (int e = 0; e < 2; e++) { /* the ends on the triangle */
        double w[3], y[3];
        tri_weights(t[0], t[1], t[2], ends[e], w);
        double hh = dot(n, ends[e]) - dot(n, t[0]), q[3];
        axpy(q, ends[e], -hh, n);
        tri_weights(t[0], t[1], t[2], q, w);
        for (int k = 0; k < 3; k++)
            y[k] = w[0] * t[0][k] + w[1] * t[1][k] + w[2] * t[2][k];
        double dd[3] = {y[0] - ends[e][0], y[1] - ends[e][1], y[2] - ends[e][2]};
        if (norm(dd) < best) {
            best = norm(dd);
            memcpy(P, ends[e], sizeof P);
            memcpy(Q, y, sizeof Q);
            sP = e;
            memcpy(wQ, w, sizeof wQ);
        }
    }
    for (int e = 0; e < 3; e++) { /* the segment on the edges */
        double s, tt, x[3], y[3];
        const double *a = t[e], *b = t[(e + 1) % 3];
        seg_seg(p1, p2, a, b, &s, &tt);
        for (int k = 0; k < 3; k++) {
            x[k] = p1[k] + s * (p2[k] - p1[k]);
            y[k] = a[k] + tt * (b[k] - a[k]);
        }
        double dd[3] = {y[0] - x[0], y[1] - x[1], y[2] - x[2]};
        if (norm(dd) < best - 1e-12) {
            best = norm(dd);
            memcpy(P, x, sizeof P);
            memcpy(Q, y, sizeof Q);
            sP = s;
            wQ[e] = 1 - tt, wQ[(e + 1) % 3] = tt, wQ[(e + 2) % 3] = 0;
        }
    }
    if (!point_pair(P, Q, r, 0.0, alarm, contact, d))
        return 0;
    d->w[0][0] = 1 - sP;
    d->w[0][1] = sP;
    memcpy(d->w[1], wQ, sizeof wQ);
    return 1;
}

/* ---- the dispatch: the pair's models in SOFA's order ---- */

static const double *vtx(const cmodel *m, size_t i)
{
    return cmodel_x(m) + (size_t)m->ms->type->coord_size * i;
}

static int sphere_side(const cmodel *m, size_t j, double c[3], double *r)
{
    memcpy(c, vtx(m, j), 3 * sizeof(double));
    *r = cmodel_radius(m, j);
    return m->kind == CM_RIGIDSPHERE;
}

int obbcap_test(const cpair *q, size_t i, size_t j, double alarm, double contact, cdetect *d)
{
    const cmodel *m0 = q->m[0], *m1 = q->m[1];
    cm_kind k0 = m0->kind, k1 = m1->kind;
    size_t big = m0->nelem > m1->nelem ? i : j;
    d->id = (unsigned)big;
    if (k1 == CM_OBB) {
        double c[3], a[3][3], e[3];
        obbcap_box(m1, j, c, a, e);
        if (k0 == CM_OBB) {
            double c0[3], a0[3][3], e0[3];
            obbcap_box(m0, i, c0, a0, e0);
            return st_coll_obb_obb(c0, a0, e0, c, a, e, alarm, contact, d);
        }
        if (k0 == CM_TRIANGLE) {
            const unsigned *t = m0->elems + 3 * i;
            d->id = (unsigned)i;
            return st_coll_triangle_obb(vtx(m0, t[0]), vtx(m0, t[1]), vtx(m0, t[2]), c, a, e,
                                        alarm, contact, d);
        }
        d->id = (unsigned)i; /* SOFA: the sphere's or the capsule's index */
        if (is_sphere(k0)) {
            double s[3], r;
            bool rigid = sphere_side(m0, i, s, &r);
            if (!st_coll_segment_obb(s, s, r, c, a, e, alarm, contact, d))
                return 0;
            d->w[0][0] = 1.0, d->w[0][1] = 0.0;
            if (rigid) /* a Rigid3d sphere's point on its surface, as the sphere tests */
                axpy(d->p[0], s, r, d->normal);
            return 1;
        }
        double p1[3], p2[3], r;
        obbcap_capsule(m0, i, p1, p2, &r);
        return st_coll_segment_obb(p1, p2, r, c, a, e, alarm, contact, d);
    }
    /* a capsule first */
    double p1[3], p2[3], r1;
    obbcap_capsule(m0, i, p1, p2, &r1);
    double s, t;
    int hit = 0;
    if (is_capsule(k1) || k1 == CM_LINE) {
        double q1[3], q2[3], r2 = 0.0;
        if (k1 == CM_LINE) {
            memcpy(q1, vtx(m1, m1->elems[2 * j]), sizeof q1);
            memcpy(q2, vtx(m1, m1->elems[2 * j + 1]), sizeof q2);
        } else {
            obbcap_capsule(m1, j, q1, q2, &r2);
        }
        seg_seg(p1, p2, q1, q2, &s, &t);
        double P[3], Q[3];
        for (int k = 0; k < 3; k++) {
            P[k] = p1[k] + s * (p2[k] - p1[k]);
            Q[k] = q1[k] + t * (q2[k] - q1[k]);
        }
        if (!(hit = point_pair(P, Q, r1, r2, alarm, contact, d)))
            return 0;
        d->w[1][0] = 1 - t, d->w[1][1] = t;
    } else if (is_sphere(k1)) {
        double c[3], r2;
        bool rigid = sphere_side(m1, j, c, &r2);
        double ab[3] = {p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]};
        double ac[3] = {c[0] - p1[0], c[1] - p1[1], c[2] - p1[2]};
        double l2 = dot(ab, ab);
        s = l2 > 0.0 ? clamp01(dot(ac, ab) / l2) : 0.0;
        double P[3];
        axpy(P, p1, s, ab);
        if (!(hit = point_pair(P, c, r1, r2, alarm, contact, d)))
            return 0;
        d->w[1][0] = 1.0;
        if (rigid)
            axpy(d->p[1], c, -r2, d->normal);
    } else if (k1 == CM_TRIANGLE) {
        const unsigned *tr = m1->elems + 3 * j;
        const double *tv[3] = {vtx(m1, tr[0]), vtx(m1, tr[1]), vtx(m1, tr[2])};
        return segment_triangle(p1, p2, r1, tv, alarm, contact, d);
    } else {
        return 0;
    }
    d->w[0][0] = 1 - s, d->w[0][1] = s;
    return hit;
}
