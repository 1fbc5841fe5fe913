/* test_generate_sphere.c - GenerateSphere (issue 30): the octahedron as
 * given (positions, SOFA's triangles, the centre's tetrahedra), the
 * tetrahedron's single tetrahedron, tessellated icosahedra (point and
 * triangle counts 12 + 30 (f-1) + 20 (f-1)(f-2)/2 and 20 f^2, every point
 * on the sphere, a closed consistently oriented surface: V - E + F = 2 and
 * all centre tetrahedra of one sign), and the rational Bezier control
 * points: degree 2, the curve of each edge passes through the sphere at
 * t = 1/2 ((A + 2 w C + B) / (2 + 2 w)); degrees 3 and 4, SOFA's closed
 * forms worked on the octahedron's first edge (c = n.P1 = -1/sqrt(3): SOFA's
 * weights (1 + 2c)/3 are then negative and the curve leaves the sphere,
 * which is SOFA's result, kept); straight edges from the centre get
 * weight 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(generate_sphere, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: Sofa.Component.Engine.Generate}\n"

static st_scene *sphere(const char *args)
{
    static char yaml[2048];
    snprintf(yaml, sizeof yaml, HEAD "    - GenerateSphere: {name: g, %s}\n", args);
    return topo_scene(&T, yaml);
}

static double dist(const double *p, const double *o)
{
    double d[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

Test(generate_sphere, octahedron_as_given)
{
    st_scene *s = sphere("platonicSolid: octahedron, radius: 2, origin: [1, 0, 0]");
    st_component *g = topo_get(s, "g");
    const st_array *x = topo_arr(g, "output_TrianglesPosition");
    cr_assert_eq(x->n, 6u);
    const double want[18] = {1, 0, 2, 3, 0, 0, 1, 2, 0, 1, 0, -2, -1, 0, 0, 1, -2, 0};
    for (int k = 0; k < 18; k++)
        cr_assert_eq(x->r[k], want[k], "x[%d] = %g", k, x->r[k]);
    static const unsigned tri[24] = {0, 1, 2, 0, 2, 4, 0, 4, 5, 0, 5, 1,
                                     1, 5, 3, 1, 3, 2, 3, 5, 4, 2, 3, 4};
    topo_assert_tuples(topo_arr(g, "triangles"), 3, tri, 8, "triangles");
    const st_array *xt = topo_arr(g, "output_TetrahedraPosition");
    cr_assert_eq(xt->n, 7u);
    cr_assert(xt->r[0] == 1 && xt->r[1] == 0 && xt->r[2] == 0, "the centre is the origin");
    const st_array *t = topo_arr(g, "tetrahedra");
    cr_assert_eq(t->n, 8u);
    for (size_t i = 0; i < 8; i++) {
        cr_assert_eq(t->u[4 * i], 0u);
        for (int k = 0; k < 3; k++)
            cr_assert_eq(t->u[4 * i + 1 + k], tri[3 * i + k] + 1);
    }
    cr_assert_eq(topo_arr(g, "BezierTriangleWeights")->n, 0u, "no Bezier points by default");
    st_scene_destroy(&s);
}

Test(generate_sphere, tetrahedron_is_one_tetrahedron)
{
    st_scene *s = sphere("platonicSolid: tetrahedron, radius: 1");
    st_component *g = topo_get(s, "g");
    const st_array *t = topo_arr(g, "tetrahedra");
    cr_assert_eq(t->n, 1u);
    cr_assert_eq(topo_arr(g, "output_TetrahedraPosition")->n, 4u);
    const st_array *x = topo_arr(g, "output_TrianglesPosition");
    const double o[3] = {0, 0, 0};
    for (size_t i = 0; i < 4; i++)
        cr_assert_leq(fabs(dist(x->r + 3 * i, o) - 1), 1e-15);
    /* the regular tetrahedron: every edge of length sqrt(8/3) */
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++)
            cr_assert_leq(fabs(dist(x->r + 3 * a, x->r + 3 * b) - sqrt(8.0 / 3.0)), 1e-14);
    st_scene_destroy(&s);
}

static double signed_volume(const double *a, const double *b, const double *c, const double *d)
{
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; k++)
        u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
    return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
            u[2] * (v[0] * w[1] - v[1] * w[0])) /
           6.0;
}

Test(generate_sphere, tessellated_icosahedra)
{
    for (unsigned f = 2; f <= 4; f++) {
        char args[256];
        snprintf(args, sizeof args, "tessellationDegree: %u, radius: 3, origin: [0, 1, 2]", f);
        st_scene *s = sphere(args);
        st_component *g = topo_get(s, "g");
        const st_array *x = topo_arr(g, "output_TrianglesPosition");
        const st_array *t = topo_arr(g, "triangles");
        size_t nv = 12 + 30 * (f - 1) + 20 * (f - 1) * (f - 2) / 2;
        cr_assert_eq(x->n, nv, "f = %u: %zu points, want %zu", f, x->n, nv);
        cr_assert_eq(t->n, 20u * f * f);
        const double o[3] = {0, 1, 2};
        for (size_t i = 0; i < x->n; i++)
            cr_assert_leq(fabs(dist(x->r + 3 * i, o) - 3), 1e-13, "point %zu off the sphere", i);
        /* the first edge (0, 1) at w = 1/2 (f = 2): the normalised midpoint */
        if (f == 2) {
            double m[3], n = 0;
            for (int k = 0; k < 3; k++)
                m[k] = x->r[k] + x->r[3 + k] - 2 * o[k], n += m[k] * m[k];
            for (int k = 0; k < 3; k++)
                cr_assert_leq(fabs(x->r[36 + k] - (o[k] + 3 * m[k] / sqrt(n))), 1e-13);
        }
        /* closed and oriented: every edge used twice, opposite ways; one
         * sign of the centre tetrahedra; V - E + F = 2 */
        size_t edges = 0;
        for (size_t i = 0; i < t->n; i++)
            for (int k = 0; k < 3; k++) {
                unsigned a = t->u[3 * i + k], b = t->u[3 * i + (k + 1) % 3];
                int same = 0, opposite = 0;
                for (size_t j = 0; j < t->n; j++)
                    for (int l = 0; l < 3; l++) {
                        unsigned c = t->u[3 * j + l], d = t->u[3 * j + (l + 1) % 3];
                        same += c == a && d == b;
                        opposite += c == b && d == a;
                    }
                cr_assert(same == 1 && opposite == 1, "edge (%u, %u): %d, %d", a, b, same,
                          opposite);
                edges += a < b;
            }
        cr_assert_eq((long)nv - (long)edges + (long)t->n, 2);
        const st_array *xt = topo_arr(g, "output_TetrahedraPosition");
        const st_array *tt = topo_arr(g, "tetrahedra");
        double vol = 0;
        int sign = 0;
        for (size_t i = 0; i < tt->n; i++) {
            const unsigned *q = tt->u + 4 * i;
            double v = signed_volume(xt->r + 3 * q[0], xt->r + 3 * q[1], xt->r + 3 * q[2],
                                     xt->r + 3 * q[3]);
            int sg = v > 0 ? 1 : -1;
            cr_assert(sign == 0 || sg == sign, "tetrahedron %zu of another sign", i);
            sign = sg;
            vol += fabs(v);
        }
        double ball = 4.0 / 3.0 * M_PI * 27;
        cr_log_info("GenerateSphere f = %u: volume %.6f of %.6f", f, vol, ball);
        cr_assert(vol < ball && vol > 0.8 * ball);
        st_scene_destroy(&s);
    }
}

/* The rational Bezier curve of the edge from vertex a to b through the
 * control points ctl[0..d-2] (weights w), at t = 1/2. */
static void curve_mid(const double *a, const double *b, const double *const *ctl, const double *w,
                      unsigned d, double *out)
{
    double num[3] = {0, 0, 0}, den = 0;
    double binom = 1;
    for (unsigned k = 0; k <= d; k++) {
        const double *p = k == 0 ? a : k == d ? b : ctl[k - 1];
        double wk = k == 0 || k == d ? 1 : w[k - 1];
        for (int c = 0; c < 3; c++)
            num[c] += binom * wk * p[c];
        den += binom * wk;
        binom = binom * (d - k) / (k + 1);
    }
    for (int c = 0; c < 3; c++)
        out[c] = num[c] / den;
}

Test(generate_sphere, bezier_triangle_control_points)
{
    for (unsigned d = 2; d <= 4; d++) {
        char args[256];
        snprintf(args, sizeof args, "platonicSolid: octahedron, BezierTriangleDegree: %u", d);
        st_scene *s = sphere(args);
        st_component *g = topo_get(s, "g");
        const st_array *x = topo_arr(g, "output_TrianglesPosition");
        const st_array *w = topo_arr(g, "BezierTriangleWeights");
        const st_array *t = topo_arr(g, "triangles");
        size_t inner = d == 4 ? 3 : d == 3 ? 1 : 0;
        cr_assert_eq(x->n, 6 + 12 * (d - 1) + 8 * inner, "d = %u: %zu points", d, x->n);
        cr_assert_eq(w->n, x->n);
        cr_assert_eq(topo_arr(g, "isBezierTriangleRational")->n, 8u);
        /* the edges in SOFA's discovery order: triangle by triangle, the
         * side opposite each vertex */
        unsigned seen[12][2];
        size_t ne = 0, next = 6;
        const double o[3] = {0, 0, 0};
        for (size_t i = 0; i < t->n; i++)
            for (int k = 0; k < 3; k++) {
                unsigned a = t->u[3 * i + (k + 1) % 3], b = t->u[3 * i + (k + 2) % 3];
                bool dup = false;
                for (size_t j = 0; j < ne; j++)
                    dup |= (seen[j][0] == a && seen[j][1] == b) ||
                           (seen[j][0] == b && seen[j][1] == a);
                if (dup)
                    continue;
                seen[ne][0] = a, seen[ne][1] = b, ne++;
                const double *ctl[3];
                for (unsigned j = 0; j + 1 < d; j++)
                    ctl[j] = x->r + 3 * (next + j);
                double m[3];
                curve_mid(x->r + 3 * a, x->r + 3 * b, ctl, w->r + next, d, m);
                if (d == 2)
                    cr_assert_leq(fabs(dist(m, o) - 0.2), 1e-12,
                                  "d = %u, edge (%u, %u): |B(1/2)| = %.17g", d, a, b, dist(m, o));
                next += d - 1;
            }
        cr_assert_eq(ne, 12u);
        if (d == 2)
            cr_assert_leq(fabs(w->r[6] - sqrt(0.5)), 1e-15, "cos(pi/4)");
        /* the first edge: A = (1,0,0), B = (0,1,0) of triangle (0,1,2),
         * whose normal is -(1,1,1)/sqrt(3), c = -1/sqrt(3) */
        const double c = -1 / sqrt(3.0), r = 0.2;
        if (d == 3) {
            /* t = (A + B) / (1 + A.B) = (1,1,0); C = (2c t + A) / (1 + 2c) */
            const double want[6] = {r, r * 2 * c / (1 + 2 * c), 0, r * 2 * c / (1 + 2 * c), r, 0};
            for (int k = 0; k < 6; k++)
                cr_assert_leq(fabs(x->r[18 + k] - want[k]), 1e-15, "C[%d] = %.17g, want %.17g",
                              k, x->r[18 + k], want[k]);
            cr_assert_leq(fabs(w->r[6] - (1 + 2 * c) / 3), 1e-15);
        }
        if (d == 4) {
            /* P110 = (1,1,0), w110 = |(A+B)/2| = 1/sqrt(2), n.P110 = -2/sqrt(3):
             * w310 = (2 - c - n.P110) w110 / (2 (1 - c)), and the first point
             * (P110 (1 - c) + A (1 - n.P110)) / (2 - c - n.P110) */
            const double nP = -2 / sqrt(3.0), w110 = sqrt(0.5), q = 2 - c - nP;
            cr_assert_leq(fabs(w->r[6] - q * w110 / (2 * (1 - c))), 1e-15, "w310 %.17g",
                          w->r[6]);
            const double p0[3] = {r * ((1 - c) + (1 - nP)) / q, r * (1 - c) / q, 0};
            for (int k = 0; k < 3; k++)
                cr_assert_leq(fabs(x->r[18 + k] - p0[k]), 1e-15, "P[%d] = %.17g, want %.17g", k,
                              x->r[18 + k], p0[k]);
            double w220 = (4 * (1 - nP) * 0.5 + 2 * (1 - c)) / (6 * (1 - c));
            cr_assert_leq(fabs(w->r[7] - w220), 1e-15, "w220 %.17g", w->r[7]);
        }
        st_scene_destroy(&s);
    }
}

Test(generate_sphere, bezier_tetrahedra_straight_from_the_centre)
{
    st_scene *s = sphere("platonicSolid: octahedron, radius: 1, BezierTetrahedronDegree: 2");
    st_component *g = topo_get(s, "g");
    const st_array *x = topo_arr(g, "output_TetrahedraPosition");
    const st_array *w = topo_arr(g, "BezierTetrahedronWeights");
    /* 7 points, then one per edge: 6 from the centre, 12 on the sphere */
    cr_assert_eq(x->n, 25u);
    cr_assert_eq(w->n, 25u);
    cr_assert_eq(topo_arr(g, "isBezierTetrahedronRational")->n, 8u);
    int ones = 0, arcs = 0;
    for (size_t i = 7; i < 25; i++) {
        double r = sqrt(x->r[3 * i] * x->r[3 * i] + x->r[3 * i + 1] * x->r[3 * i + 1] +
                        x->r[3 * i + 2] * x->r[3 * i + 2]);
        if (w->r[i] == 1.0) {
            ones++;
            cr_assert_leq(fabs(r - 0.5), 1e-15, "a centre edge's midpoint");
        } else {
            arcs++;
            cr_assert_leq(fabs(w->r[i] - sqrt(0.5)), 1e-15);
            cr_assert_leq(fabs(r - sqrt(2.0)), 1e-14, "|C| = 1 / cos(pi/4)");
        }
    }
    cr_assert_eq(ones, 6);
    cr_assert_eq(arcs, 12);
    st_scene_destroy(&s);
}

Test(generate_sphere, unknown_solid_is_refused)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, HEAD "    - GenerateSphere: {platonicSolid: cube}\n");
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "Wrong Platonic Solid Name : cube"), "%s", err.msg);
}
