/* ccd.c - CCDTightInclusionIntersection: continuous collision detection
 * between the positions at the start of the step x and the free positions
 * (SOFA's freePosition; here x + dt v, which is what FreeMotionAnimationLoop
 * computes for its free motion, v being the free velocity when the
 * pipeline runs, and the inertial prediction under DefaultAnimationLoop).
 * Pairs tested, as SOFA registers them: triangle-point and line-line
 * (every other pair is ignored). Each vertex moves linearly in the step's
 * unit time t; a pair collides at the first t in [0, 1] where its distance
 * falls to the maximal separation s (the method's contactDistance plus
 * both models'): SOFA's ticcd::vertexFaceCCD and edgeEdgeCCD with
 * minimum separation.
 *
 * The time of impact is found without SOFA's library (Tight Inclusion, an
 * interval root finder): the distance is evaluated at 17 times evenly
 * spaced and at the roots of the cubic coplanarity condition (where the
 * primitives can touch), and the first interval whose end comes within s
 * is bisected down to `tolerance` (at most maxIterations halvings); the
 * time kept is the interval's start, conservative as Tight Inclusion's. A
 * pass closer than s between two sampled times, away from a coplanarity
 * root, can be missed; Tight Inclusion would not.
 *
 * The detection is SOFA's: at the time of impact, the triangle's normal n,
 * the point projected on the triangle's plane and its barycentric
 * coordinates, applied to the triangle at the start of the step: point[0]
 * there, point[1] the point at the start, normal n, value
 * (point[1] - point[0]) . n - s. Lines: the closest points of the two
 * segments at the time of impact, their parameters applied at the start;
 * the normal joins the closest points at impact, value their distance
 * minus s. */
#include <math.h>
#include <string.h>

#include "collision.h"

/* ---- small vector helpers ---- */

static void sub(double o[3], const double *a, const double *b)
{
    o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}

static void lerp(double o[3], const double *a, const double *b, double t)
{
    for (int k = 0; k < 3; k++)
        o[k] = (1 - t) * a[k] + t * b[k];
}

static double clamp01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

/* Squared distance from p to triangle abc (Ericson's closest point). */
static double point_triangle_d2(const double *p, const double *a, const double *b,
                                const double *c)
{
    double ab[3], ac[3], ap[3], q[3];
    sub(ab, b, a), sub(ac, c, a), sub(ap, p, a);
    double d1 = st_v3_dot(ab, ap), d2 = st_v3_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        memcpy(q, a, sizeof q);
    } else {
        double bp[3], cp[3];
        sub(bp, p, b), sub(cp, p, c);
        double d3 = st_v3_dot(ab, bp), d4 = st_v3_dot(ac, bp);
        double d5 = st_v3_dot(ab, cp), d6 = st_v3_dot(ac, cp);
        double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
        if (d3 >= 0 && d4 <= d3) {
            memcpy(q, b, sizeof q);
        } else if (d6 >= 0 && d5 <= d6) {
            memcpy(q, c, sizeof q);
        } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
            double v = d1 / (d1 - d3);
            for (int k = 0; k < 3; k++)
                q[k] = a[k] + v * ab[k];
        } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
            double w = d2 / (d2 - d6);
            for (int k = 0; k < 3; k++)
                q[k] = a[k] + w * ac[k];
        } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
            double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            for (int k = 0; k < 3; k++)
                q[k] = b[k] + w * (c[k] - b[k]);
        } else {
            double den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
            for (int k = 0; k < 3; k++)
                q[k] = a[k] + ab[k] * v + ac[k] * w;
        }
    }
    double d[3];
    sub(d, p, q);
    return st_v3_dot(d, d);
}

/* Closest points of segments p1q1 and p2q2: parameters s, t in [0, 1]. */
static double segment_segment(const double *p1, const double *q1, const double *p2,
                              const double *q2, double *s, double *t)
{
    double d1[3], d2[3], r[3];
    sub(d1, q1, p1), sub(d2, q2, p2), sub(r, p1, p2);
    double a = st_v3_dot(d1, d1), e = st_v3_dot(d2, d2), f = st_v3_dot(d2, r);
    const double eps = 1e-300;
    if (a <= eps && e <= eps) {
        *s = *t = 0;
    } else if (a <= eps) {
        *s = 0;
        *t = clamp01(f / e);
    } else {
        double c = st_v3_dot(d1, r);
        if (e <= eps) {
            *t = 0;
            *s = clamp01(-c / a);
        } else {
            double b = st_v3_dot(d1, d2), den = a * e - b * b;
            *s = den != 0 ? clamp01((b * f - c * e) / den) : 0;
            *t = (b * *s + f) / e;
            if (*t < 0) {
                *t = 0;
                *s = clamp01(-c / a);
            } else if (*t > 1) {
                *t = 1;
                *s = clamp01((b - c) / a);
            }
        }
    }
    double c1[3], c2[3], d[3];
    for (int k = 0; k < 3; k++) {
        c1[k] = p1[k] + d1[k] * *s;
        c2[k] = p2[k] + d2[k] * *t;
    }
    sub(d, c1, c2);
    return st_v3_dot(d, d);
}

/* ---- one primitive pair in motion: 4 vertices, start and end ---- */

typedef struct motion {
    const double *x0[4], *x1[4]; /* start and free positions */
    double v1[4][3];             /* storage for the free positions */
    bool edges;                  /* edge-edge (0 1 against 2 3), else point 0 and face 1 2 3 */
} motion;

static void at(const motion *m, double t, double p[4][3])
{
    for (int i = 0; i < 4; i++)
        lerp(p[i], m->x0[i], m->x1[i], t);
}

static double distance(const motion *m, double t)
{
    double p[4][3], s, u;
    at(m, t, p);
    double d2 = m->edges ? segment_segment(p[0], p[1], p[2], p[3], &s, &u)
                         : point_triangle_d2(p[0], p[1], p[2], p[3]);
    return sqrt(d2);
}

/* The coplanarity volume det(p1 - p0, p2 - p0, p3 - p0) at t (a cubic). */
static double coplanarity(const motion *m, double t)
{
    double p[4][3], a[3], b[3], c[3], n[3];
    at(m, t, p);
    sub(a, p[1], p[0]), sub(b, p[2], p[0]), sub(c, p[3], p[0]);
    st_v3_cross(n, a, b);
    return st_v3_dot(n, c);
}

/* The roots in (0, 1) of the cubic f, from its values at 0, 1/3, 2/3, 1;
 * returns their count (at most 3), ascending. */
static int cubic_roots(const motion *m, double *roots)
{
    double f0 = coplanarity(m, 0), f1 = coplanarity(m, 1.0 / 3), f2 = coplanarity(m, 2.0 / 3),
           f3 = coplanarity(m, 1);
    /* Newton's form to monomial: f(t) = c0 + c1 t + c2 t^2 + c3 t^3 */
    double c0 = f0;
    double c3 = 27.0 / 6 * (f3 - 3 * f2 + 3 * f1 - f0);
    double c2 = 9.0 / 2 * (f2 - 2 * f1 + f0) - c3;
    double c1 = 3 * (f1 - f0) - c2 / 3 - c3 / 9;
    /* the extrema split [0, 1] into monotone pieces */
    double cuts[4] = {0, 0, 0, 0};
    int nc = 0;
    cuts[nc++] = 0;
    double qa = 3 * c3, qb = 2 * c2, qc = c1;
    double ext[2];
    int ne = 0;
    if (fabs(qa) > 1e-300) {
        double disc = qb * qb - 4 * qa * qc;
        if (disc >= 0) {
            double sq = sqrt(disc);
            ext[ne++] = (-qb - sq) / (2 * qa);
            ext[ne++] = (-qb + sq) / (2 * qa);
            if (ext[0] > ext[1]) {
                double tmp = ext[0];
                ext[0] = ext[1];
                ext[1] = tmp;
            }
        }
    } else if (fabs(qb) > 1e-300) {
        ext[ne++] = -qc / qb;
    }
    for (int i = 0; i < ne; i++)
        if (ext[i] > 0 && ext[i] < 1)
            cuts[nc++] = ext[i];
    double pts[5];
    int np = 0;
    for (int i = 0; i < nc; i++)
        pts[np++] = cuts[i];
    pts[np++] = 1;
    int n = 0;
    for (int i = 0; i + 1 < np; i++) {
        double lo = pts[i], hi = pts[i + 1];
        double flo = ((c3 * lo + c2) * lo + c1) * lo + c0, fhi = ((c3 * hi + c2) * hi + c1) * hi + c0;
        if (flo == 0) {
            if (lo > 0 && (n == 0 || roots[n - 1] != lo))
                roots[n++] = lo;
            continue;
        }
        if ((flo < 0) == (fhi < 0))
            continue;
        for (int it = 0; it < 100; it++) {
            double mid = 0.5 * (lo + hi), fm = ((c3 * mid + c2) * mid + c1) * mid + c0;
            if ((fm < 0) == (flo < 0))
                lo = mid, flo = fm;
            else
                hi = mid;
        }
        roots[n++] = 0.5 * (lo + hi);
    }
    return n;
}

/* The time of impact in [0, 1] of the motion with separation s, or -1. */
static double time_of_impact(const motion *m, double s, double tol, int max_iter)
{
    double cand[17 + 3];
    int nc = 0;
    for (int k = 0; k <= 16; k++)
        cand[nc++] = k / 16.0;
    double roots[3];
    int nr = cubic_roots(m, roots);
    for (int i = 0; i < nr; i++)
        cand[nc++] = roots[i];
    /* ascending order (insertion sort of 20 values) */
    for (int i = 1; i < nc; i++)
        for (int j = i; j > 0 && cand[j] < cand[j - 1]; j--) {
            double tmp = cand[j];
            cand[j] = cand[j - 1];
            cand[j - 1] = tmp;
        }
    /* a root lands exactly on the contact: allow its rounding */
    double slack = 1e-12 * (1 + s);
    if (distance(m, 0) <= s + slack)
        return 0;
    double prev = 0;
    for (int i = 1; i < nc; i++) {
        double t = cand[i];
        if (distance(m, t) > s + slack) {
            prev = t;
            continue;
        }
        double lo = prev, hi = t;
        for (int it = 0; it < max_iter && hi - lo > tol; it++) {
            double mid = 0.5 * (lo + hi);
            if (distance(m, mid) <= s + slack)
                hi = mid;
            else
                lo = mid;
        }
        return lo;
    }
    return -1;
}

/* ---- the detections ---- */

static const double *vx(const cmodel *m, unsigned i) { return cmodel_x(m) + 3 * (size_t)i; }

/* The free position of vertex i of m. */
static void vfree(const cmodel *m, unsigned i, double out[3])
{
    const double *x = vx(m, i);
    const double *v = m->ms->velocity.n > i ? m->ms->velocity.r + 3 * (size_t)i : NULL;
    double dt = st_node_dt(m->base.node);
    for (int k = 0; k < 3; k++)
        out[k] = x[k] + (v ? dt * v[k] : 0.0);
}

static void bind(motion *m, int slot, const cmodel *cm, unsigned vertex)
{
    m->x0[slot] = vx(cm, vertex);
    vfree(cm, vertex, m->v1[slot]);
    m->x1[slot] = m->v1[slot];
}

/* SOFA's barycentric coordinates of p in triangle abc (unclamped). */
static void barycentric(const double *p, const double *a, const double *b, const double *c,
                        double w[3])
{
    double v0[3], v1[3], v2[3];
    sub(v0, b, a), sub(v1, c, a), sub(v2, p, a);
    double d00 = st_v3_dot(v0, v0), d01 = st_v3_dot(v0, v1), d11 = st_v3_dot(v1, v1);
    double d20 = st_v3_dot(v2, v0), d21 = st_v3_dot(v2, v1), den = d00 * d11 - d01 * d01;
    double v = den != 0 ? (d11 * d20 - d01 * d21) / den : 0;
    double u = den != 0 ? (d00 * d21 - d01 * d20) / den : 0;
    w[0] = 1 - v - u, w[1] = v, w[2] = u;
}

int ccd_test(const cpair *q, size_t i, size_t j, double s, cdetect *d)
{
    const cmodel *m0 = q->m[0], *m1 = q->m[1];
    const cintersect *meth = q->method;
    int max_iter = meth->ccd_max_iterations > 0 ? meth->ccd_max_iterations : 1;
    double tol = meth->ccd_tolerance > 0 ? meth->ccd_tolerance : 1e-10;
    motion m;
    memset(&m, 0, sizeof m);
    memset(d, 0, sizeof *d);
    if (m0->kind == CM_TRIANGLE && m1->kind == CM_POINT) {
        const unsigned *t = m0->elems + 3 * i;
        bind(&m, 0, m1, (unsigned)j);
        for (int k = 0; k < 3; k++)
            bind(&m, 1 + k, m0, t[k]);
        double toi = time_of_impact(&m, s, tol, max_iter);
        if (toi < 0)
            return 0;
        double p[4][3], e1[3], e2[3], n[3], bc[3], proj[3], w[3];
        at(&m, toi, p);
        sub(e1, p[2], p[1]), sub(e2, p[3], p[1]);
        st_v3_cross(n, e1, e2);
        double ln = sqrt(st_v3_dot(n, n));
        if (!(ln > 0))
            return 0; /* a degenerate triangle: no normal */
        for (int k = 0; k < 3; k++) {
            n[k] /= ln;
            bc[k] = (p[1][k] + p[2][k] + p[3][k]) / 3.0;
        }
        double r[3];
        sub(r, p[0], bc);
        double rn = st_v3_dot(r, n);
        for (int k = 0; k < 3; k++)
            proj[k] = p[0][k] - n[k] * rn;
        barycentric(proj, p[1], p[2], p[3], w);
        for (int k = 0; k < 3; k++) {
            d->p[0][k] = vx(m0, t[0])[k] * w[0] + vx(m0, t[1])[k] * w[1] + vx(m0, t[2])[k] * w[2];
            d->p[1][k] = vx(m1, (unsigned)j)[k];
            d->normal[k] = n[k];
            d->w[0][k] = w[k];
        }
        d->w[1][0] = 1.0;
        double g[3];
        sub(g, d->p[1], d->p[0]);
        d->value = st_v3_dot(g, n) - s;
        d->id = (unsigned)(m0->nelem > m1->nelem ? i : j);
    } else if (m0->kind == CM_LINE && m1->kind == CM_LINE) {
        const unsigned *a = m0->elems + 2 * i, *b = m1->elems + 2 * j;
        bind(&m, 0, m0, a[0]), bind(&m, 1, m0, a[1]);
        bind(&m, 2, m1, b[0]), bind(&m, 3, m1, b[1]);
        m.edges = true;
        double toi = time_of_impact(&m, s, tol, max_iter);
        if (toi < 0)
            return 0;
        double p[4][3], al, be;
        at(&m, toi, p);
        segment_segment(p[0], p[1], p[2], p[3], &al, &be);
        double n[3];
        for (int k = 0; k < 3; k++) {
            d->p[0][k] = (1 - al) * vx(m0, a[0])[k] + al * vx(m0, a[1])[k];
            d->p[1][k] = (1 - be) * vx(m1, b[0])[k] + be * vx(m1, b[1])[k];
            n[k] = (1 - be) * p[2][k] + be * p[3][k] - ((1 - al) * p[0][k] + al * p[1][k]);
        }
        double len = sqrt(st_v3_dot(n, n));
        if (!(len > 0))
            return 0; /* touching exactly at impact: SOFA's normal would be 0/0 */
        for (int k = 0; k < 3; k++)
            d->normal[k] = n[k] / len;
        d->value = len - s;
        d->w[0][0] = 1 - al, d->w[0][1] = al;
        d->w[1][0] = 1 - be, d->w[1][1] = be;
        d->id = (unsigned)(m0->nelem > m1->nelem ? i : j);
    } else {
        return 0;
    }
    d->e[0] = (unsigned)i;
    d->e[1] = (unsigned)j;
    return 1;
}

void ccd_sweep_boxes(cmodel *m)
{
    if (m->kind != CM_POINT && m->kind != CM_LINE && m->kind != CM_TRIANGLE)
        return;
    unsigned w = m->kind == CM_LINE ? 2 : m->kind == CM_TRIANGLE ? 3 : 1;
    for (size_t e = 0; e < m->nelem; e++) {
        double *b = m->box + 6 * e;
        for (unsigned v = 0; v < w; v++) {
            double f[3];
            vfree(m, w == 1 ? (unsigned)e : m->elems[w * e + v], f);
            for (int k = 0; k < 3; k++) {
                if (f[k] < b[k])
                    b[k] = f[k];
                if (f[k] > b[k + 3])
                    b[k + 3] = f[k];
            }
        }
        for (int k = 0; k < 3; k++) {
            if (b[k] < m->mbox[k])
                m->mbox[k] = b[k];
            if (b[k + 3] > m->mbox[k + 3])
                m->mbox[k + 3] = b[k + 3];
            if (b[k + 3] - b[k] > m->ext[k])
                m->ext[k] = b[k + 3] - b[k];
        }
    }
}

/* ---- the component ---- */

static const st_field fields[] = {
    CINTERSECT_DISTANCE_FIELDS,
    ST_STRING(cintersect, ccd_type, "continuousCollisionType", "None",
              "Data used for continuous collision detection taken into "
              "{'None','Inertia','FreeMotion'}. If 'None' then no CCD is used, if 'Inertia' then "
              "only inertia will be used to compute the collision detection and if 'FreeMotion' "
              "then the free motion will be used. (settee: the element boxes cover the motion "
              "unless None; the tests always run from x to x + dt v)"),
    ST_REAL(cintersect, ccd_tolerance, "tolerance", "1e-10",
            "tolerance used by the tight inclusion CCD algorithm (settee: the bisection's "
            "interval on the time of impact)"),
    ST_INT(cintersect, ccd_max_iterations, "maxIterations", "1000",
           "maxIterations used by the tight inclusion CCD algorithm (settee: the bisection's "
           "halvings)"),
    ST_FIELD_END};

static st_status init(st_component *self, st_error *err)
{
    cintersect *m = (cintersect *)self;
    m->proximity = true;
    m->method = CI_CCD;
    const char *t = m->ccd_type ? m->ccd_type : "None";
    if (!strcmp(t, "None") || !strcmp(t, "0"))
        m->ccd_swept = false;
    else if (!strcmp(t, "Inertia") || !strcmp(t, "FreeMotion") || !strcmp(t, "1") ||
             !strcmp(t, "2"))
        m->ccd_swept = true;
    else
        return st_component_error(self, "continuousCollisionType", err, ST_ESCENE,
                                  "'%s' is not one of None, Inertia, FreeMotion", t);
    if (!(m->ccd_tolerance > 0))
        return st_component_error(self, "tolerance", err, ST_ESCENE,
                                  "tolerance must be positive, got %g", m->ccd_tolerance);
    return ST_OK;
}

const st_class ccd_tight_inclusion_intersection_class = {
    .struct_size = sizeof(st_class),
    .name = "CCDTightInclusionIntersection",
    .category = "CollisionAlgorithm",
    .description = "Continuous collision detection (triangle-point, line-line) between the "
                   "positions and the free positions",
    .instance_size = sizeof(cintersect),
    .fields = fields,
    .init = init,
};
