/* test_collision_methods.c - NewProximityIntersection and LocalMinDistance
 * (plugins/Collision/intersect.c, compiled in): their
 * primitive tests against closed forms (a point or sphere projected on a
 * triangle's inside, edges and corners, kept only where the triangle owns
 * the feature; clamped and interior line tests; parallel segments), the
 * symmetry of swapping the two primitives, NewProximityIntersection's
 * triangle-line and triangle-triangle tests (corners, ends and edges kept
 * by their owner, parallel segments, a point on an edge, coplanar
 * triangles, swapped order), and LocalMinDistance's cone
 * filters accepting directions inside an element's cone and rejecting
 * those outside; then whole scenes: a ball on a triangle floor rests at the
 * depth its penalty stiffness implies with each method, and the pairs each
 * method does not test are left out or refused as SOFA's tables say; two
 * triangle meshes under NewProximityIntersection give what testing every
 * triangle pair gives, bit-identical with each broad phase. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision.h"
#include "support.h"

#define EPS 1e-14

static void assert_vec(const double *a, double x, double y, double z, double tol, const char *what)
{
    cr_assert(fabs(a[0] - x) <= tol && fabs(a[1] - y) <= tol && fabs(a[2] - z) <= tol,
              "%s: (%.17g %.17g %.17g), expected (%.17g %.17g %.17g)", what, a[0], a[1], a[2], x, y,
              z);
}

static const double A[3] = {0, 0, 0}, B[3] = {2, 0, 0}, C[3] = {0, 0, 2};
#define ALL (TF_P1 | TF_P2 | TF_P3 | TF_E12 | TF_E23 | TF_E31)

Test(collision_methods, new_triangle_point_inside_edges_corners)
{
    cdetect d;
    /* Inside: the projection, as MinProximityIntersection. */
    const double in[3] = {0.5, 0.3, 0.25};
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL, in, 1.0, 0.1, &d), 1);
    assert_vec(d.p[0], 0.5, 0, 0.25, EPS, "inside point");
    assert_vec(d.normal, 0, 1, 0, EPS, "inside normal");
    cr_assert_float_eq(d.value, 0.3 - 0.1, EPS);
    /* Beside edge ab (z < 0): the closest point of the edge, normal along
     * the offset; only when the triangle owns edge ab (E12). */
    const double side[3] = {1.0, 0.3, -0.4};
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL, side, 1.0, 0.1, &d), 1);
    assert_vec(d.p[0], 1.0, 0, 0, EPS, "edge point");
    assert_vec(d.normal, 0, 0.6, -0.8, EPS, "edge normal");
    cr_assert_float_eq(d.value, 0.5 - 0.1, EPS);
    cr_assert_float_eq(d.w[0][0], 0.5, EPS);
    cr_assert_float_eq(d.w[0][1], 0.5, EPS);
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL & ~TF_E12, side, 1.0, 0.1, &d), 0);
    /* Beside edge ac (x < 0): E31; beside bc: E23. */
    const double sac[3] = {-0.4, 0.3, 1.0}, sbc[3] = {1.5, 0, 1.5};
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL, sac, 1.0, 0.1, &d), 1);
    assert_vec(d.p[0], 0, 0, 1.0, EPS, "edge ac point");
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL & ~TF_E31, sac, 1.0, 0.1, &d), 0);
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL, sbc, 1.0, 0.1, &d), 1);
    assert_vec(d.p[0], 1, 0, 1, EPS, "edge bc point");
    cr_assert_float_eq(d.value, sqrt(0.5) - 0.1, EPS);
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL & ~TF_E23, sbc, 1.0, 0.1, &d), 0);
    /* Beyond corner a, b, c: the corner, owned through P1, P2, P3. */
    const double ca[3] = {-0.3, 0, -0.4}, cb[3] = {2.3, 0, -0.4}, cc[3] = {-0.3, 0, 2.4};
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL, ca, 1.0, 0.1, &d), 1);
    assert_vec(d.p[0], 0, 0, 0, 0, "corner a");
    assert_vec(d.normal, -0.6, 0, -0.8, EPS, "corner a normal");
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL & ~TF_P1, ca, 1.0, 0.1, &d), 0);
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL, cb, 1.0, 0.1, &d), 1);
    assert_vec(d.p[0], 2, 0, 0, 0, "corner b");
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL & ~TF_P2, cb, 1.0, 0.1, &d), 0);
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL, cc, 1.0, 0.1, &d), 1);
    assert_vec(d.p[0], 0, 0, 2, 0, "corner c");
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL & ~TF_P3, cc, 1.0, 0.1, &d), 0);
    /* Beyond the alarm distance. */
    cr_assert_eq(st_coll_new_triangle_point(A, B, C, ALL, side, 0.5, 0.1, &d), 0);
}

Test(collision_methods, new_triangle_sphere_vec3_and_rigid)
{
    cdetect d;
    const double s[3] = {0.5, 0.35, 0.25};
    cr_assert_eq(st_coll_new_triangle_sphere(A, B, C, ALL, s, 0.1, false, 0.5, 0.2, &d), 1);
    assert_vec(d.p[0], 0.5, 0, 0.25, EPS, "projection");
    assert_vec(d.p[1], 0.5, 0.35, 0.25, EPS, "Vec3d sphere: its centre");
    cr_assert_float_eq(d.value, 0.35 - 0.2 - 0.1, EPS);
    cr_assert_eq(st_coll_new_triangle_sphere(A, B, C, ALL, s, 0.1, true, 0.5, 0.2, &d), 1);
    assert_vec(d.p[1], 0.5, 0.25, 0.25, EPS, "Rigid3d sphere: on its surface");
    /* The alarm distance counts from the surface: 0.35 >= 0.2 + 0.1. */
    cr_assert_eq(st_coll_new_triangle_sphere(A, B, C, ALL, s, 0.1, false, 0.2, 0.1, &d), 0);
    /* Beside edge ab: the edge point (SOFA's flag for ab is E12). */
    const double side[3] = {1.0, 0.3, -0.4};
    cr_assert_eq(st_coll_new_triangle_sphere(A, B, C, ALL, side, 0.1, false, 1.0, 0.0, &d), 1);
    assert_vec(d.p[0], 1, 0, 0, EPS, "edge point");
    cr_assert_float_eq(d.value, 0.5 - 0.1, EPS);
    cr_assert_eq(st_coll_new_triangle_sphere(A, B, C, ALL & ~TF_E12, side, 0.1, false, 1.0, 0.0,
                                             &d),
                 0);
}

Test(collision_methods, new_line_line_and_parallel)
{
    cdetect d, e;
    /* Crossing segments 0.4 apart: the closest points, both ways. */
    const double a[3] = {0, 0, 0}, b[3] = {2, 0, 0}, c[3] = {0.5, 0.4, -1}, f[3] = {0.5, 0.4, 1};
    cr_assert_eq(st_coll_new_line_line(a, b, c, f, 1.0, 0.1, &d), 1);
    assert_vec(d.p[0], 0.5, 0, 0, EPS, "p on ab");
    assert_vec(d.p[1], 0.5, 0.4, 0, EPS, "q on cd");
    assert_vec(d.normal, 0, 1, 0, EPS, "normal");
    cr_assert_float_eq(d.value, 0.3, EPS);
    cr_assert_eq(st_coll_new_line_line(c, f, a, b, 1.0, 0.1, &e), 1);
    assert_vec(e.normal, 0, -1, 0, EPS, "swapped normal");
    cr_assert_float_eq(e.value, d.value, EPS);
    assert_vec(e.p[0], 0.5, 0.4, 0, EPS, "swapped p");
    /* Closest points at an end: nothing (interior points only). */
    const double c2[3] = {2.5, 0.4, -1}, f2[3] = {2.5, 0.4, 1};
    cr_assert_eq(st_coll_new_line_line(a, b, c2, f2, 1.0, 0.1, &d), 0);
    /* Parallel: the midpoints. */
    const double g[3] = {1, 0.3, 0}, h[3] = {3, 0.3, 0};
    cr_assert_eq(st_coll_new_line_line(a, b, g, h, 2.0, 0.1, &d), 1);
    assert_vec(d.p[0], 1, 0, 0, EPS, "midpoint ab");
    assert_vec(d.p[1], 2, 0.3, 0, EPS, "midpoint gh");
    cr_assert_float_eq(d.value, sqrt(1 + 0.09) - 0.1, EPS);
}

/* NewProximityIntersection's triangle-line test: the segment's ends on
 * the triangle (inside, or on an edge the triangle owns), the triangle's
 * owned corners on the segment, and with useLineLine its owned edges
 * against the segment, in that order, all with the line's id. */
Test(collision_methods, new_triangle_line_ends_corners_edges)
{
    cdetect d[CDETECT_MAX];
    /* Above the inside, parallel to the plane: the two ends' projections. */
    const double u1[3] = {0.5, 0.3, 0.25}, u2[3] = {1.0, 0.3, 0.5};
    cr_assert_eq(st_coll_new_triangle_line(A, B, C, ALL, u1, u2, true, 7, 0.5, 0.1, d), 2);
    assert_vec(d[0].p[0], 0.5, 0, 0.25, EPS, "first end's projection");
    assert_vec(d[0].p[1], 0.5, 0.3, 0.25, EPS, "first end");
    assert_vec(d[0].normal, 0, 1, 0, EPS, "normal");
    cr_assert_float_eq(d[0].value, 0.3 - 0.1, EPS);
    cr_assert(d[0].w[1][0] == 1 && d[0].w[1][1] == 0, "first end's weights");
    assert_vec(d[1].p[0], 1.0, 0, 0.5, EPS, "second end's projection");
    cr_assert(d[1].w[1][0] == 0 && d[1].w[1][1] == 1, "second end's weights");
    cr_assert_float_eq(d[1].w[0][0], 0.25, EPS);
    cr_assert_float_eq(d[1].w[0][1], 0.5, EPS);
    cr_assert_float_eq(d[1].w[0][2], 0.25, EPS);
    cr_assert(d[0].id == 7 && d[1].id == 7, "ids: the line's");
    /* Beside corner a: the corner on the segment (from the corner to its
     * closest point (0, 0.3, -0.2)), then the end (1, 0.3, -0.2) on edge
     * ab at (1, 0, 0). */
    const double v1[3] = {-1, 0.3, -0.2}, v2[3] = {1, 0.3, -0.2};
    double l = sqrt(0.13);
    cr_assert_eq(st_coll_new_triangle_line(A, B, C, ALL, v1, v2, false, 0, 0.5, 0.1, d), 2);
    assert_vec(d[0].p[0], 0, 0, 0, 0, "corner a");
    assert_vec(d[0].p[1], 0, 0.3, -0.2, EPS, "its closest point on the segment");
    assert_vec(d[0].normal, 0, 0.3 / l, -0.2 / l, EPS, "corner normal");
    cr_assert_float_eq(d[0].value, l - 0.1, EPS);
    cr_assert(d[0].w[0][0] == 1 && d[0].w[0][1] == 0 && d[0].w[0][2] == 0, "corner weights");
    cr_assert_float_eq(d[0].w[1][0], 0.5, EPS);
    cr_assert_float_eq(d[0].w[1][1], 0.5, EPS);
    assert_vec(d[1].p[0], 1, 0, 0, EPS, "edge point");
    assert_vec(d[1].p[1], 1, 0.3, -0.2, EPS, "second end");
    /* Each feature only when the triangle owns it. */
    cr_assert_eq(st_coll_new_triangle_line(A, B, C, ALL & ~TF_P1, v1, v2, false, 0, 0.5, 0.1, d),
                 1);
    assert_vec(d[0].p[0], 1, 0, 0, EPS, "edge point only");
    cr_assert_eq(st_coll_new_triangle_line(A, B, C, ALL & ~TF_E12, v1, v2, false, 0, 0.5, 0.1, d),
                 1);
    assert_vec(d[0].p[0], 0, 0, 0, 0, "corner only");
    /* An end exactly on edge bc's line above (1, 0, 1), the segment
     * crossing over edge ab: the end on bc (E23), and with useLineLine
     * the crossing of ab (the segment's interior meets no other edge). */
    const double w1[3] = {1, 0.3, -1}, w2[3] = {1, 0.3, 1};
    cr_assert_eq(st_coll_new_triangle_line(A, B, C, ALL, w1, w2, false, 0, 0.5, 0.1, d), 1);
    assert_vec(d[0].p[0], 1, 0, 1, EPS, "point above edge bc");
    cr_assert_float_eq(d[0].w[0][1], 0.5, EPS);
    cr_assert_float_eq(d[0].w[0][2], 0.5, EPS);
    cr_assert_eq(st_coll_new_triangle_line(A, B, C, ALL & ~TF_E23, w1, w2, false, 0, 0.5, 0.1, d),
                 0);
    cr_assert_eq(st_coll_new_triangle_line(A, B, C, ALL, w1, w2, true, 0, 0.5, 0.1, d), 2);
    assert_vec(d[1].p[0], 1, 0, 0, EPS, "crossing on ab");
    assert_vec(d[1].p[1], 1, 0.3, 0, EPS, "crossing on the segment");
    assert_vec(d[1].normal, 0, 1, 0, EPS, "crossing normal");
    cr_assert(d[1].w[0][0] == 0.5 && d[1].w[0][1] == 0.5 && d[1].w[0][2] == 0, "edge weights");
    cr_assert(d[1].w[1][0] == 0.5 && d[1].w[1][1] == 0.5, "segment weights");
    cr_assert_eq(st_coll_new_triangle_line(A, B, C, ALL & ~TF_E12, w1, w2, true, 0, 0.5, 0.1, d),
                 1);
    /* Parallel to edge ab, beside it: the two ends on ab, and with
     * useLineLine the midpoints of ab and of the segment. */
    const double x1[3] = {0.5, 0.3, -0.1}, x2[3] = {1.5, 0.3, -0.1};
    cr_assert_eq(st_coll_new_triangle_line(A, B, C, ALL, x1, x2, false, 0, 0.5, 0.1, d), 2);
    cr_assert_eq(st_coll_new_triangle_line(A, B, C, ALL, x1, x2, true, 0, 0.5, 0.1, d), 3);
    assert_vec(d[2].p[0], 1, 0, 0, EPS, "midpoint of ab");
    assert_vec(d[2].p[1], 1, 0.3, -0.1, EPS, "midpoint of the segment");
    cr_assert_float_eq(d[2].value, sqrt(0.1) - 0.1, EPS);
    /* Out of the alarm distance: nothing. */
    cr_assert_eq(st_coll_new_triangle_line(A, B, C, ALL, x1, x2, true, 0, 0.3, 0.1, d), 0);
}

/* Matches the outputs of (t1, t2) with those of (t2, t1): the same point
 * pairs exchanged, opposite normals, same values. */
static void assert_swapped(const cdetect *d, int n, const cdetect *e, int m)
{
    cr_assert_eq(n, m, "%d outputs one way, %d the other", n, m);
    for (int k = 0; k < n; k++) {
        bool found = false;
        for (int h = 0; h < m && !found; h++) {
            bool same = fabs(d[k].value - e[h].value) <= EPS;
            for (int a = 0; a < 3 && same; a++)
                same = fabs(d[k].p[0][a] - e[h].p[1][a]) <= EPS &&
                       fabs(d[k].p[1][a] - e[h].p[0][a]) <= EPS &&
                       fabs(d[k].normal[a] + e[h].normal[a]) <= EPS &&
                       fabs(d[k].w[0][a] - e[h].w[1][a]) <= EPS &&
                       fabs(d[k].w[1][a] - e[h].w[0][a]) <= EPS;
            found = same;
        }
        cr_assert(found, "output %d has no swapped twin", k);
    }
}

/* NewProximityIntersection's triangle-triangle test: each triangle's
 * corners on the other (ids 3 e1 + corner, then 3 n1 + 12 e2 + corner),
 * then with useLineLine owned edge against owned edge. */
Test(collision_methods, new_triangle_triangle_coplanar_corners_edges_symmetry)
{
    cdetect d[CDETECT_MAX], e[CDETECT_MAX];
    /* Coplanar, side by side 0.2 apart: corner b on the second's first
     * corner and back, the same contact twice (two ids, as SOFA). */
    const double P[3] = {2.2, 0, 0}, Q[3] = {4, 0, 0}, R[3] = {2.2, 0, 2};
    int n = st_coll_new_triangle_triangle(A, B, C, ALL, P, Q, R, ALL, true, 30, 300, 0.5, 0.1, d);
    cr_assert_eq(n, 2);
    assert_vec(d[0].p[0], 2, 0, 0, 0, "corner b");
    assert_vec(d[0].p[1], 2.2, 0, 0, EPS, "on the second's corner");
    assert_vec(d[0].normal, 1, 0, 0, EPS, "from the first to the second");
    cr_assert_float_eq(d[0].value, 0.2 - 0.1, EPS);
    cr_assert(d[0].w[0][1] == 1 && d[0].w[1][0] == 1, "weights");
    cr_assert_eq(d[0].id, 31);
    assert_vec(d[1].p[0], 2, 0, 0, EPS, "the second's corner on corner b");
    assert_vec(d[1].p[1], 2.2, 0, 0, 0, "the second's corner");
    assert_vec(d[1].normal, 1, 0, 0, EPS, "same normal");
    cr_assert_eq(d[1].id, 300);
    /* Swapped: the same contacts, turned around. */
    int m = st_coll_new_triangle_triangle(P, Q, R, ALL, A, B, C, ALL, true, 0, 0, 0.5, 0.1, e);
    assert_swapped(d, n, e, m);
    /* Corners only where their triangle owns them: the contact is the
     * first's corner b (P2) against the second's first corner (P1), found
     * from either side, so it goes when either corner is not owned. */
    cr_assert_eq(st_coll_new_triangle_triangle(A, B, C, ALL, P, Q, R, ALL & ~TF_P1, true, 0, 0,
                                               0.5, 0.1, d),
                 0);
    cr_assert_eq(st_coll_new_triangle_triangle(A, B, C, ALL & ~TF_P2, P, Q, R, ALL, true, 0, 0,
                                               0.5, 0.1, d),
                 0);
    /* SOFA tests the first triangle's first corner whatever its flags:
     * corner a against the second's owned corner, but not back. */
    const double P2[3] = {-0.2, 0, 0}, Q2[3] = {-2, 0, 0}, R2[3] = {-0.2, 0, -2};
    cr_assert_eq(st_coll_new_triangle_triangle(A, B, C, ALL & ~TF_P1, P2, Q2, R2, ALL, false, 0,
                                               0, 0.5, 0.1, d),
                 1);
    assert_vec(d[0].p[0], 0, 0, 0, 0, "corner a, not owned, still tested first");
    /* Crossing edges, one triangle above and across the other's edge ab:
     * with useLineLine, its edges crossing over ab. */
    const double S[3] = {1, 0.3, -1}, U[3] = {1, 0.3, 1}, V[3] = {3, 0.3, 0};
    int k0 = st_coll_new_triangle_triangle(A, B, C, ALL, S, U, V, ALL, false, 0, 0, 0.5, 0.1, d);
    int k1 = st_coll_new_triangle_triangle(A, B, C, ALL, S, U, V, ALL, true, 0, 100, 0.5, 0.1, d);
    cr_assert_gt(k1, k0, "useLineLine adds the edge crossings (%d, %d)", k0, k1);
    bool cross = false;
    for (int k = k0; k < k1; k++)
        if (fabs(d[k].p[0][0] - 1) < EPS && fabs(d[k].p[0][1]) < EPS && fabs(d[k].p[0][2]) < EPS) {
            cross = true;
            assert_vec(d[k].p[1], 1, 0.3, 0, EPS, "edge su above ab");
            assert_vec(d[k].normal, 0, 1, 0, EPS, "crossing normal");
            cr_assert_eq(d[k].id, 100 + 3 + 3 * 0 + 0, "edge ab (12) with edge su (12)");
            cr_assert(d[k].w[0][0] == 0.5 && d[k].w[0][1] == 0.5, "weights on ab");
            cr_assert(d[k].w[1][0] == 0.5 && d[k].w[1][1] == 0.5, "weights on su");
        }
    cr_assert(cross, "no crossing of ab and su");
    m = st_coll_new_triangle_triangle(S, U, V, ALL, A, B, C, ALL, true, 0, 0, 0.5, 0.1, e);
    assert_swapped(d, k1, e, m);
    /* Far apart: nothing. */
    cr_assert_eq(st_coll_new_triangle_triangle(A, B, C, ALL, S, U, V, ALL, true, 0, 0, 0.2, 0.1, d),
                 0);
}

Test(collision_methods, lmd_lines_interior_only)
{
    cdetect d;
    const double a[3] = {0, 0, 0}, b[3] = {2, 0, 0};
    /* A point above the segment: its projection; past the end: nothing
     * (NewProximityIntersection's clamped test finds the end). */
    const double p[3] = {1.5, 0.3, 0}, q[3] = {2.4, 0.3, 0};
    cr_assert_eq(st_coll_lmd_line_point(a, b, p, 0.0, 1.0, 0.1, &d), 1);
    assert_vec(d.p[0], 1.5, 0, 0, EPS, "projection");
    assert_vec(d.normal, 0, 1, 0, EPS, "normal");
    cr_assert_float_eq(d.value, 0.2, EPS);
    cr_assert_float_eq(d.w[0][1], 0.75, EPS);
    cr_assert_eq(st_coll_lmd_line_point(a, b, q, 0.0, 1.0, 0.1, &d), 0);
    cr_assert_eq(st_coll_line_point(a, b, q, 1.0, 0.1, &d), 1);
    assert_vec(d.p[0], 2, 0, 0, 0, "clamped end");
    cr_assert_float_eq(d.value, 0.5 - 0.1, EPS);
    /* A sphere: alarm and contact from its surface. */
    cr_assert_eq(st_coll_lmd_line_point(a, b, p, 0.1, 0.25, 0.05, &d), 1);
    cr_assert_float_eq(d.value, 0.3 - 0.1 - 0.05, EPS);
    cr_assert_eq(st_coll_lmd_line_point(a, b, p, 0.1, 0.15, 0.05, &d), 0);
    /* Line-line, both ways; parallel ones at their midpoints. */
    const double c[3] = {0.5, 0.4, -1}, f[3] = {0.5, 0.4, 1};
    cdetect e;
    cr_assert_eq(st_coll_lmd_line_line(a, b, c, f, 1.0, 0.1, &d), 1);
    cr_assert_eq(st_coll_lmd_line_line(c, f, a, b, 1.0, 0.1, &e), 1);
    assert_vec(d.normal, 0, 1, 0, EPS, "normal");
    assert_vec(e.normal, 0, -1, 0, EPS, "swapped normal");
    cr_assert_float_eq(d.value, 0.3, EPS);
    cr_assert_float_eq(e.value, 0.3, EPS);
}

/* ---- LocalMinDistance's cone filters on a small mesh ---- */

/* A ridge: two triangles sharing edge (0, 1) along x, folded down by 90
 * degrees (normals +y and +z), with their border edges. */
static double ridge_x[] = {0, 0, 0, 1, 0, 0, 0.5, 0, -1, 0.5, -1, 0};
static unsigned ridge_tri[] = {0, 1, 2, 1, 0, 3};
static unsigned ridge_edges[] = {0, 1, 1, 2, 2, 0, 0, 3, 3, 1};
/* Around each vertex: the triangles, the edges (CSR, as model_common.c). */
static unsigned vt_start[] = {0, 2, 4, 5, 6}, vt_items[] = {0, 1, 0, 1, 0, 1};
static unsigned ve_start[] = {0, 3, 6, 8, 10}, ve_items[] = {0, 2, 3, 0, 1, 4, 1, 2, 3, 4};

typedef struct mesh {
    st_mstate ms;
    cmodel tri, lines, points;
    st_array tarr;
    cintersect lmd;
} mesh;

static void make_ridge(mesh *m)
{
    memset(m, 0, sizeof *m);
    m->ms.position.r = ridge_x;
    m->ms.position.n = 4;
    m->ms.type = &st_vec3d_type;
    m->tarr.u = ridge_tri;
    m->tarr.n = 2;
    cmodel *all[3] = {&m->tri, &m->lines, &m->points};
    cm_kind kinds[3] = {CM_TRIANGLE, CM_LINE, CM_POINT};
    for (int i = 0; i < 3; i++) {
        all[i]->ms = &m->ms;
        all[i]->kind = kinds[i];
        all[i]->topo_tri = &m->tarr;
        all[i]->vt_start = vt_start;
        all[i]->vt_items = vt_items;
    }
    m->lines.ve_start = ve_start;
    m->lines.ve_items = ve_items;
    m->tri.elems = ridge_tri;
    m->tri.nelem = 2;
    m->lines.elems = ridge_edges;
    m->lines.nelem = 5;
    m->points.nelem = 4;
    m->points.lines = &m->lines;
    m->lmd.filter_intersection = true;
    m->lmd.cone_factor = 0.5;
    m->lmd.method = CI_LMD;
}

Test(collision_methods, lmd_cone_filters)
{
    mesh m;
    make_ridge(&m);
    /* The triangles' normals: (0 1 2) is +z... check which way each faces. */
    const double up[3] = {0, 1, 0}, out_z[3] = {0, 0, 1}, down[3] = {0, -1, 0};
    const double back[3] = {0, 0, -1}, diag[3] = {0, 1, 1}, in[3] = {0, -1, -1};
    /* Triangle (0 1 2): (1 0 0) x (0.5 0 -1) = (0 1 0): the +y side only. */
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.tri, 0, up));
    cr_assert(!st_coll_lmd_valid(&m.lmd, &m.tri, 0, down));
    /* Triangle (1 0 3): (-1 0 0) x (-0.5 -1 0) = (0 0 1): the +z side. */
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.tri, 1, out_z));
    cr_assert(!st_coll_lmd_valid(&m.lmd, &m.tri, 1, back));
    /* bothSide accepts both sides; filterIntersection off accepts all. */
    m.tri.both_side = true;
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.tri, 0, down));
    m.tri.both_side = false;
    m.lmd.filter_intersection = false;
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.tri, 0, down));
    m.lmd.filter_intersection = true;
    /* The ridge edge (0 1): mean normal (0 1 1)/sqrt2; its cone spans the
     * quarter between +y and +z, widened by coneFactor (n.t = 1/sqrt2, so
     * cone = 0.5/sqrt2 = 0.354): +y and +z are inside, the mean normal too,
     * a direction into the fold is rejected by the mean normal, and one
     * past a face's plane by more than the cone by that face's tangent. */
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.lines, 0, up));
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.lines, 0, out_z));
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.lines, 0, diag));
    cr_assert(!st_coll_lmd_valid(&m.lmd, &m.lines, 0, in));
    /* (0, 1, -0.3): 0.3/|.| = 0.287 < 0.354 past the +y face: inside the
     * widened cone; (0, 1, -0.5): 0.447 > 0.354: outside. */
    const double in_cone[3] = {0, 1, -0.3}, out_cone[3] = {0, 1, -0.5};
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.lines, 0, in_cone));
    cr_assert(!st_coll_lmd_valid(&m.lmd, &m.lines, 0, out_cone));
    /* coneFactor 0: the cone is the quarter itself. */
    m.lmd.cone_factor = 0.0;
    cr_assert(!st_coll_lmd_valid(&m.lmd, &m.lines, 0, in_cone));
    /* angleCone widens it again (0.3 in cosine units). */
    m.lmd.angle_cone = 0.3;
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.lines, 0, in_cone));
    m.lmd.angle_cone = 0.0;
    m.lmd.cone_factor = 0.5;
    /* A border edge (1 2): only directions orthogonal to it (up to
     * angleCone + 1e-4). Edge (1 2) runs along (-0.5 0 -1). */
    const double ortho[3] = {0, 1, 0}, slant[3] = {-0.5, 1, -1};
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.lines, 1, ortho));
    cr_assert(!st_coll_lmd_valid(&m.lmd, &m.lines, 1, slant));
    m.lmd.angle_cone = 0.9;
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.lines, 1, slant));
    m.lmd.angle_cone = 0.0;
    /* Vertex 0: mean normal (0 1 1)/sqrt2; +y and +z inside; the fold and
     * the direction along its edge (0 1) inward (+x: towards vertex 1,
     * against l = (-1 0 0)) rejected. */
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.points, 0, diag));
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.points, 0, up));
    cr_assert(!st_coll_lmd_valid(&m.lmd, &m.points, 0, in));
    const double along[3] = {1, 0.2, 0.2};
    cr_assert(!st_coll_lmd_valid(&m.lmd, &m.points, 0, along));
    const double away[3] = {-1, 0.2, 0.2};
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.points, 0, away));
    /* Without a LineCollisionModel in the node a point is not filtered;
     * useLMDFilters leaves filtering to the models (not here). */
    m.points.lines = NULL;
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.points, 0, in));
    m.points.lines = &m.lines;
    m.lmd.use_lmd_filters = true;
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.points, 0, in));
    cr_assert(st_coll_lmd_valid(&m.lmd, &m.lines, 0, in));
}

/* ---- scenes ---- */

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(collision_method_scenes, .init = setup, .fini = teardown);

static const char *IMPLICIT = "EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
                              "        - CGLinearSolver: {iterations: 200, tolerance: 1e-20,"
                              " threshold: 1e-30}";

/* A ball of mass 1 and radius 0.1 (contactStiffness k) above a static
 * floor of two triangles (k too), with the given method and its extra
 * fields (alarmDistance 0.8, contactDistance 0.5). */
static char *ball_yaml(const char *method, const char *extra, bool rigid, double x, double h,
                       double z, double k)
{
    char *y = malloc(8192);
    snprintf(y, 8192,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.005\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative,"
             " Mass, Topology, Collision]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - CollisionPipeline: {}\n"
             "    - BruteForceBroadPhase: {}\n"
             "    - BVHNarrowPhase: {}\n"
             "    - %s: {alarmDistance: 0.8, contactDistance: 0.5%s}\n"
             "    - CollisionResponse: {}\n"
             "  children:\n"
             "    - name: Ball\n"
             "      objects:\n"
             "        - %s\n"
             "        - MechanicalObject: {name: ball, template: %s, position: [[%.17g, %.17g,"
             " %.17g%s]]}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - SphereCollisionModel: {radius: 0.1, contactStiffness: %g}\n"
             "    - name: Floor\n"
             "      objects:\n"
             "        - MechanicalObject: {name: floor, position: [[-3, 0, -3], [4, 0, -3],"
             " [4, 0, 3], [-3, 0, 3]]}\n"
             "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
             "        - TriangleCollisionModel: {moving: false, simulated: false,"
             " contactStiffness: %g}\n",
             method, extra, IMPLICIT, rigid ? "Rigid3d" : "Vec3d", x, h, z,
             rigid ? ", 0, 0, 0, 1" : "", k, k);
    return y;
}

static st_scene *load(const char *yaml)
{
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, yaml, &s, &e), ST_OK, "load: %s\n%s", e.msg, yaml);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s (%s)", e.msg, e.where);
    return s;
}

static void run(st_scene *s, int steps)
{
    st_error e = {0};
    for (int i = 0; i < steps; i++)
        cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "step %d: %s", i, e.msg);
}

static const st_array *pipe_out(st_scene *s, const char *field)
{
    st_component *p = test_find_object(s, "CollisionPipeline1");
    cr_assert_not_null(p);
    return st_component_field_ptr(p, st_component_field(p, field));
}

/* SOFA's response: rest distance d = contactDistance + r, ks = k k / d;
 * the ball rests where ks pen = m g, its centre d - g / ks above the floor
 * when its contact point is the centre, r higher when it is on the
 * surface. */
static void check_rests(const char *method, const char *extra, bool rigid, bool on_surface)
{
    double k = 1000, d = 0.5 + 0.1, ks = k * k / d;
    double want = d + (on_surface ? 0.1 : 0.0) - 9.81 / ks;
    char *y = ball_yaml(method, extra, rigid, 0.3, 1.5, 0.2, k);
    st_scene *s = load(y);
    run(s, 2000);
    st_mstate *b = (st_mstate *)test_find_object(s, "ball");
    cr_assert_not_null(b);
    cr_assert(fabs(b->position.r[1] - want) < 1e-9, "%s %s: rests at %.15g, closed form %.15g",
              method, rigid ? "Rigid3d" : "Vec3d", b->position.r[1], want);
    cr_assert(fabs(b->velocity.r[1]) < 1e-6, "still moving: %g", b->velocity.r[1]);
    const st_array *cnt = pipe_out(s, "contactCounts");
    cr_assert_eq(cnt->n, 1);
    cr_assert_eq(cnt->u[0], 1);
    const st_array *nor = pipe_out(s, "contactNormals");
    assert_vec(nor->r, 0, 1, 0, 1e-12, "contact normal");
    st_scene_destroy(&s);
    free(y);
}

Test(collision_method_scenes, new_proximity_ball_rests_at_penalty_depth)
{
    check_rests("NewProximityIntersection", "", false, false);
    /* A Rigid3d sphere on a triangle contacts on its surface (SOFA's
     * getContactPointByNormal). */
    check_rests("NewProximityIntersection", "", true, true);
}

Test(collision_method_scenes, local_min_distance_ball_rests_at_penalty_depth)
{
    check_rests("LocalMinDistance", "", false, false);
    check_rests("LocalMinDistance", ", angleCone: 0.1, coneFactor: 0.3", false, false);
}

/* A ball beside the floor's edge x = 4: NewProximityIntersection projects
 * it on the edge (owned by triangle 0), MinProximityIntersection and
 * LocalMinDistance only inside triangles. */
Test(collision_method_scenes, edge_contact_only_with_new_proximity)
{
    const char *methods[] = {"NewProximityIntersection", "MinProximityIntersection",
                             "LocalMinDistance"};
    for (int i = 0; i < 3; i++) {
        char *y = ball_yaml(methods[i], "", false, 4.2, 0.3, 0.5, 1000);
        st_scene *s = load(y);
        run(s, 1);
        const st_array *cnt = pipe_out(s, "contactCounts");
        cr_assert_eq(cnt->n, 1);
        cr_assert_eq(cnt->u[0], i == 0 ? 1u : 0u, "%s: %u contacts", methods[i], cnt->u[0]);
        if (i == 0) {
            const st_array *pts = pipe_out(s, "contactPoints");
            const st_array *nor = pipe_out(s, "contactNormals");
            const st_array *dis = pipe_out(s, "contactDistances");
            double l = sqrt(0.2 * 0.2 + 0.3 * 0.3);
            assert_vec(pts->r, 4, 0, 0.5, 1e-12, "edge point");
            assert_vec(pts->r + 3, 4.2, 0.3, 0.5, 1e-12, "centre");
            assert_vec(nor->r, 0.2 / l, 0.3 / l, 0, 1e-12, "normal");
            cr_assert_float_eq(dis->r[0], l - 0.6, 1e-12);
        }
        st_scene_destroy(&s);
        free(y);
    }
}

/* LocalMinDistance has no Rigid3d sphere test (SOFA's table): the pair is
 * not built and the ball falls through the floor. */
Test(collision_method_scenes, local_min_distance_has_no_rigid_sphere_pair)
{
    char *y = ball_yaml("LocalMinDistance", "", true, 0.3, 0.65, 0.2, 1000);
    st_scene *s = load(y);
    run(s, 1);
    cr_assert_eq(pipe_out(s, "contactCounts")->n, 0);
    st_scene_destroy(&s);
    free(y);
}

/* Two triangle meshes under NewProximityIntersection (no longer refused):
 * a static floor of 7 x 7 nodes and a sheet of 6 x 6 nodes, shifted by
 * half a cell and 0.2 h above it, its corner triangles tilted down into
 * the floor. The pipeline's triangle-triangle contacts equal testing
 * every triangle pair (the floor first: the later model in scene order)
 * with SOFA's duplicate rule (per id the lowest value, the first of
 * equal ones), and each broad phase gives the same contacts in the same
 * order, bit for bit. */
static void tri_tri_scene(const char *broad, bool line_line, double **points, size_t *npts,
                          size_t *want)
{
    char y[4096];
    snprintf(y, sizeof y,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,"
             " Topology, Collision]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - CollisionPipeline: {}\n"
             "%s"
             "    - NewProximityIntersection: {alarmDistance: 0.4, contactDistance: 0.15,"
             " useLineLine: %s}\n"
             "    - CollisionResponse: {}\n"
             "  children:\n"
             "    - name: Sheet\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {}\n"
             "        - RegularGridTopology: {nx: 6, ny: 1, nz: 6, xmin: 0.5, xmax: 5.5,"
             " ymin: 0.2, ymax: 0.2, zmin: 0.5, zmax: 5.5}\n"
             "        - MechanicalObject: {name: sheet}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - TriangleCollisionModel: {name: sheetTri}\n"
             "    - name: Floor\n"
             "      objects:\n"
             "        - RegularGridTopology: {nx: 7, ny: 1, nz: 7, xmin: 0, xmax: 6, ymin: 0,"
             " ymax: 0, zmin: 0, zmax: 6}\n"
             "        - MechanicalObject: {name: floor}\n"
             "        - TriangleCollisionModel: {name: floorTri, moving: false,"
             " simulated: false}\n",
             broad, line_line ? "true" : "false");
    st_scene *s = load(y);
    st_mstate *sheet = (st_mstate *)test_find_object(s, "sheet");
    /* Corner nodes dipped below the floor, one raised out of reach. */
    sheet->position.r[1] = -0.1;
    sheet->position.r[3 * 35 + 1] = -0.05;
    sheet->position.r[3 * 5 + 1] = 0.9;
    st_component *pipe = test_find_object(s, "CollisionPipeline1");
    st_error err = {0};
    cr_assert_eq(pipe->cls->collision->compute(pipe, st_scene_root(s), &err), ST_OK, "%s",
                 err.msg);
    const st_array *cnt = pipe_out(s, "contactCounts"), *pts = pipe_out(s, "contactPoints");
    cr_assert_eq(cnt->n, 1);
    cr_assert_eq(cnt->u[0] * 2, pts->n);
    /* Every pair tested, SOFA's duplicate rule. */
    const cmodel *m0 = (const cmodel *)test_find_object(s, "floorTri"),
                 *m1 = (const cmodel *)test_find_object(s, "sheetTri");
    const double *x0 = m0->ms->position.r, *x1 = m1->ms->position.r;
    size_t nid = 3 * m0->nelem + 12 * m1->nelem;
    double *best = malloc(nid * sizeof *best);
    for (size_t k = 0; k < nid; k++)
        best[k] = INFINITY;
    for (size_t i = 0; i < m0->nelem; i++)
        for (size_t j = 0; j < m1->nelem; j++) {
            const unsigned *t = m0->elems + 3 * i, *u = m1->elems + 3 * j;
            cdetect d[CDETECT_MAX];
            int n = st_coll_new_triangle_triangle(
                x0 + 3 * t[0], x0 + 3 * t[1], x0 + 3 * t[2], m0->tflags[i], x1 + 3 * u[0],
                x1 + 3 * u[1], x1 + 3 * u[2], m1->tflags[j], line_line, 3 * (unsigned)i,
                3 * (unsigned)m0->nelem + 12 * (unsigned)j, 0.4, 0.15, d);
            for (int k = 0; k < n; k++)
                best[d[k].id] = fmin(best[d[k].id], d[k].value);
        }
    *want = 0;
    for (size_t k = 0; k < nid; k++)
        *want += best[k] < INFINITY;
    free(best);
    cr_assert_eq(cnt->u[0], *want, "%s: %u contacts, %zu expected", broad, cnt->u[0], *want);
    st_component *dsap = test_find_object(s, "dsap");
    if (dsap) { /* the element pairs it sent to the narrow phase */
        const int *np = st_component_field_ptr(dsap, st_component_field(dsap, "nbPairs"));
        cr_assert_geq((size_t)*np, *want / 15, "nbPairs %d", *np);
        cr_assert_lt(*np, 36 * 50, "nbPairs %d: not all pairs", *np);
    }
    *npts = pts->n;
    *points = malloc(3 * pts->n * sizeof **points + 1);
    memcpy(*points, pts->r, 3 * pts->n * sizeof **points);
    /* Unit normals; those of sheet nodes above the floor point up (from
     * the floor, the first model, to the sheet), those of the dipped
     * corner below it down (proximity methods are not one-sided). */
    const st_array *nor = pipe_out(s, "contactNormals");
    size_t up = 0, down = 0;
    for (size_t k = 0; k < nor->n; k++) {
        const double *n = nor->r + 3 * k;
        cr_assert_float_eq(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-12);
        up += n[1] > 0.5;
        down += n[1] < -0.5;
    }
    cr_assert(up > 10 && down > 0, "%zu normals up, %zu down", up, down);
    st_scene_destroy(&s);
}

Test(collision_method_scenes, new_proximity_triangle_pairs_match_brute_force)
{
    /* SOFA's ways to declare the phases: DirectSAP and IncrSAP are narrow
     * phases too. */
    static const char *const broads[] = {
        "    - BruteForceBroadPhase: {}\n    - BVHNarrowPhase: {}\n",
        "    - DirectSAP: {}\n",
        "    - IncrSAP: {}\n",
        "    - BruteForceBroadPhase: {}\n    - DirectSAPNarrowPhase: {name: dsap}\n"};
    for (int ll = 0; ll < 2; ll++) {
        double *pts[4];
        size_t npts[4], want[4];
        for (int b = 0; b < 4; b++)
            tri_tri_scene(broads[b], ll, &pts[b], &npts[b], &want[b]);
        cr_assert_gt(want[0], 30, "only %zu contacts", want[0]);
        for (int b = 1; b < 4; b++) {
            cr_assert_eq(npts[b], npts[0]);
            cr_assert(memcmp(pts[b], pts[0], 3 * npts[0] * sizeof(double)) == 0,
                      "%s: other contacts or order than %s", broads[b], broads[0]);
        }
        for (int b = 0; b < 4; b++)
            free(pts[b]);
    }
}

/* LocalMinDistance's vertex filter in a scene (the floor's Point and Line
 * models, the triangles around its vertices from the topology): a ball
 * beside the floor's corner (-3, 0, 3), above its plane, touches the
 * corner; below it, the direction leaves the corner's cone and the contact
 * is rejected, where MinProximityIntersection keeps it. */
static unsigned corner_contacts(const char *method, double y)
{
    char *b = ball_yaml(method, "", false, -3.2, y, 3.2, 1000);
    size_t len = strlen(b);
    char *z = malloc(len + 256);
    snprintf(z, len + 256, "%s        - LineCollisionModel: {moving: false, simulated: false}\n"
                           "        - PointCollisionModel: {moving: false, simulated: false}\n",
             b);
    st_scene *s = load(z);
    run(s, 1);
    const st_array *cnt = pipe_out(s, "contactCounts");
    cr_assert_eq(cnt->n, 3, "%s: %zu pairs", method, cnt->n);
    unsigned n = cnt->u[0] + cnt->u[1] + cnt->u[2];
    if (n) {
        const st_array *nor = pipe_out(s, "contactNormals");
        double l = sqrt(0.2 * 0.2 * 2 + y * y);
        /* from the ball to the corner or from the corner to the ball */
        cr_assert(fabs(fabs(nor->r[1]) - fabs(y) / l) < 1e-12, "normal y %g", nor->r[1]);
    }
    st_scene_destroy(&s);
    free(z);
    free(b);
    return n;
}

Test(collision_method_scenes, local_min_distance_vertex_cone)
{
    cr_assert_eq(corner_contacts("LocalMinDistance", 0.3), 1);
    cr_assert_eq(corner_contacts("LocalMinDistance", -0.3), 0);
    cr_assert_eq(corner_contacts("MinProximityIntersection", -0.3), 1);
}

/* SOFA's RayDiscreteIntersection, by hand. Triangle (0,0,0) (2,0,0) (0,2,0),
 * unit normal +z: a ray down from (0.5,0.5,3) hits at t = 3, both points at
 * (0.5,0.5,0), normal -z, value 0; too short (len 2), outside (u = v = 0.75)
 * or parallel, it misses. */
Test(collision_methods, ray_triangle)
{
    const double a[3] = {0, 0, 0}, b[3] = {2, 0, 0}, c[3] = {0, 2, 0};
    const double down[3] = {0, 0, -1}, side[3] = {1, 0, 0};
    const double o[3] = {0.5, 0.5, 3}, out[3] = {1.5, 1.5, 3};
    cdetect d;
    cr_assert_eq(st_coll_ray_triangle(o, down, 5, a, b, c, &d), 1);
    assert_vec(d.p[0], 0.5, 0.5, 0, 1e-15, "p0");
    assert_vec(d.p[1], 0.5, 0.5, 0, 1e-15, "p1");
    assert_vec(d.normal, 0, 0, -1, 1e-15, "normal");
    cr_assert_float_eq(d.value, 0.0, 0.0);
    cr_assert_eq(st_coll_ray_triangle(o, down, 2, a, b, c, &d), 0);
    cr_assert_eq(st_coll_ray_triangle(out, down, 5, a, b, c, &d), 0);
    cr_assert_eq(st_coll_ray_triangle(o, side, 5, a, b, c, &d), 0);
}

/* Sphere at (0,1,5), radius 2; ray from the origin along +z, length 10:
 * nearest point (0,0,5) at distance 1, normal +y, sphere point (0,-1,5),
 * value 1 - 2 = -1. Length 3 (clamped at (0,0,3), distance^2 = 26 - 9 =
 * 17 > 4) and a ray along +x (distance^2 26) miss. */
Test(collision_methods, ray_sphere)
{
    const double ctr[3] = {0, 1, 5}, o[3] = {0, 0, 0}, z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
    cdetect d;
    cr_assert_eq(st_coll_ray_sphere(o, z, 10, ctr, 2, &d), 1);
    assert_vec(d.p[0], 0, 0, 5, 1e-15, "p0");
    assert_vec(d.normal, 0, 1, 0, 1e-15, "normal");
    assert_vec(d.p[1], 0, -1, 5, 1e-15, "p1");
    cr_assert_float_eq(d.value, -1.0, 1e-15);
    cr_assert_eq(st_coll_ray_sphere(o, z, 3, ctr, 2, &d), 0);
    cr_assert_eq(st_coll_ray_sphere(o, x, 10, ctr, 2, &d), 0);
}
