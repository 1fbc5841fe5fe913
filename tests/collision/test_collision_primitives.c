/* test_collision_primitives.c - the primitive tests of the Collision
 * plugin (plugins/Collision/intersect.c, compiled in): closest points,
 * normals and distances against closed forms, SOFA's interior rules and
 * degenerate cases (parallel segments, a point on an edge, zero distance),
 * and symmetry (swapping the primitives swaps the points and flips the
 * normal). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "collision.h"

#define EPS 1e-14

static void assert_vec(const double *a, double x, double y, double z, double tol, const char *what)
{
    cr_assert(fabs(a[0] - x) <= tol && fabs(a[1] - y) <= tol && fabs(a[2] - z) <= tol,
              "%s: (%.17g %.17g %.17g), expected (%.17g %.17g %.17g)", what, a[0], a[1], a[2], x, y,
              z);
}

Test(collision_primitives, point_point)
{
    const double p[3] = {0, 0, 0}, q[3] = {0.3, 0.4, 0};
    cdetect d;
    cr_assert_eq(st_coll_point_point(p, q, 1.0, 0.2, &d), 1);
    assert_vec(d.normal, 0.6, 0.8, 0, EPS, "normal");
    cr_assert_float_eq(d.value, 0.5 - 0.2, EPS);
    assert_vec(d.p[0], 0, 0, 0, 0, "p0");
    assert_vec(d.p[1], 0.3, 0.4, 0, 0, "p1");
    /* Beyond the alarm distance (strict: |pq| >= alarm gives nothing). */
    cr_assert_eq(st_coll_point_point(p, q, 0.5, 0.2, &d), 0);
    /* Symmetry. */
    cdetect e;
    cr_assert_eq(st_coll_point_point(q, p, 1.0, 0.2, &e), 1);
    assert_vec(e.normal, -0.6, -0.8, 0, EPS, "swapped normal");
    cr_assert_float_eq(e.value, d.value, EPS);
    /* Coincident points: SOFA's fallback normal (1 0 0), distance -contact. */
    cr_assert_eq(st_coll_point_point(p, p, 1.0, 0.2, &d), 1);
    assert_vec(d.normal, 1, 0, 0, 0, "null normal");
    cr_assert_float_eq(d.value, -0.2, EPS);
}

Test(collision_primitives, triangle_point)
{
    const double a[3] = {0, 0, 0}, b[3] = {2, 0, 0}, c[3] = {0, 0, 2};
    const double p[3] = {0.5, 0.3, 0.25};
    cdetect d;
    cr_assert_eq(st_coll_triangle_point(a, b, c, p, 1.0, 0.1, &d), 1);
    assert_vec(d.p[0], 0.5, 0, 0.25, EPS, "projection");
    assert_vec(d.normal, 0, 1, 0, EPS, "normal");
    cr_assert_float_eq(d.value, 0.3 - 0.1, EPS);
    /* Barycentric weights: 0.5 = 2 alpha, 0.25 = 2 beta. */
    cr_assert_float_eq(d.w[0][0], 1 - 0.25 - 0.125, EPS);
    cr_assert_float_eq(d.w[0][1], 0.25, EPS);
    cr_assert_float_eq(d.w[0][2], 0.125, EPS);
    /* Below the plane: the normal points down (from the triangle to the point). */
    const double under[3] = {0.5, -0.2, 0.25};
    cr_assert_eq(st_coll_triangle_point(a, b, c, under, 1.0, 0.1, &d), 1);
    assert_vec(d.normal, 0, -1, 0, EPS, "normal below");
    /* Outside the triangle, on an edge, or at a vertex: SOFA leaves it to
     * the line and point models. */
    const double out[3] = {1.5, 0.1, 1.5}, edge[3] = {1, 0.1, 0}, vert[3] = {0, 0.1, 0};
    cr_assert_eq(st_coll_triangle_point(a, b, c, out, 1.0, 0.1, &d), 0);
    cr_assert_eq(st_coll_triangle_point(a, b, c, edge, 1.0, 0.1, &d), 0);
    cr_assert_eq(st_coll_triangle_point(a, b, c, vert, 1.0, 0.1, &d), 0);
    /* Too far. */
    const double far[3] = {0.5, 1.0, 0.25};
    cr_assert_eq(st_coll_triangle_point(a, b, c, far, 1.0, 0.1, &d), 0);
}

Test(collision_primitives, line_point)
{
    const double a[3] = {0, 0, 0}, b[3] = {4, 0, 0}, p[3] = {1, 0, 0.5};
    cdetect d;
    cr_assert_eq(st_coll_line_point(a, b, p, 1.0, 0, &d), 1);
    assert_vec(d.p[0], 1, 0, 0, EPS, "projection");
    assert_vec(d.normal, 0, 0, 1, EPS, "normal");
    cr_assert_float_eq(d.value, 0.5, EPS);
    cr_assert_float_eq(d.w[0][0], 0.75, EPS);
    cr_assert_float_eq(d.w[0][1], 0.25, EPS);
    /* Beyond an end: the closest point is the end (SOFA clamps). */
    const double q[3] = {-0.3, 0.4, 0};
    cr_assert_eq(st_coll_line_point(a, b, q, 1.0, 0, &d), 1);
    assert_vec(d.p[0], 0, 0, 0, 0, "clamped");
    cr_assert_float_eq(d.value, 0.5, EPS);
    cr_assert_float_eq(d.w[0][0], 1.0, 0);
    /* A point on the segment: zero distance, fallback normal. */
    const double on[3] = {2, 0, 0};
    cr_assert_eq(st_coll_line_point(a, b, on, 1.0, 0.1, &d), 1);
    cr_assert_float_eq(d.value, -0.1, EPS);
    assert_vec(d.normal, 1, 0, 0, 0, "fallback normal");
}

Test(collision_primitives, line_line)
{
    /* Two skew segments crossing at x = 1 (first) and z = 0.5 (second). */
    const double a[3] = {0, 0, 0}, b[3] = {2, 0, 0};
    const double c[3] = {1, 0.3, -1}, e[3] = {1, 0.3, 3};
    cdetect d;
    cr_assert_eq(st_coll_line_line(a, b, c, e, 1.0, 0.1, &d), 1);
    assert_vec(d.p[0], 1, 0, 0, EPS, "p on first");
    assert_vec(d.p[1], 1, 0.3, 0, EPS, "q on second");
    assert_vec(d.normal, 0, 1, 0, EPS, "normal");
    cr_assert_float_eq(d.value, 0.2, EPS);
    cr_assert_float_eq(d.w[0][1], 0.5, EPS);
    cr_assert_float_eq(d.w[1][1], 0.25, EPS);
    /* Symmetry: swapped segments, same distance, opposite normal. */
    cdetect s;
    cr_assert_eq(st_coll_line_line(c, e, a, b, 1.0, 0.1, &s), 1);
    assert_vec(s.p[0], 1, 0.3, 0, EPS, "swapped p");
    assert_vec(s.normal, 0, -1, 0, EPS, "swapped normal");
    cr_assert_float_eq(s.value, d.value, EPS);
    /* Closest points outside a segment: no contact (SOFA's interior rule). */
    const double f[3] = {3, 0.3, -1}, g[3] = {3, 0.3, 3};
    cr_assert_eq(st_coll_line_line(a, b, f, g, 2.0, 0.1, &d), 0);
    /* Parallel segments: SOFA tests the midpoints. */
    const double h[3] = {0.5, 0.4, 0}, k[3] = {2.5, 0.4, 0};
    cr_assert_eq(st_coll_line_line(a, b, h, k, 1.0, 0, &d), 1);
    assert_vec(d.p[0], 1, 0, 0, EPS, "midpoint of first");
    assert_vec(d.p[1], 1.5, 0.4, 0, EPS, "midpoint of second");
    cr_assert_float_eq(d.value, sqrt(0.25 + 0.16), EPS);
}

Test(collision_primitives, sphere_sphere)
{
    const double c1[3] = {0, 0, 0}, c2[3] = {0, 1.5, 0};
    cdetect d;
    /* Vec3d spheres: contact points at the centres, value = gap - contact. */
    cr_assert_eq(st_coll_sphere_sphere(c1, 0.5, false, c2, 0.75, false, 0.5, 0.1, &d), 1);
    assert_vec(d.normal, 0, 1, 0, EPS, "normal");
    cr_assert_float_eq(d.value, 1.5 - 1.25 - 0.1, EPS);
    assert_vec(d.p[0], 0, 0, 0, 0, "centre 1");
    assert_vec(d.p[1], 0, 1.5, 0, 0, "centre 2");
    /* Rigid3d spheres: surface points. */
    cr_assert_eq(st_coll_sphere_sphere(c1, 0.5, true, c2, 0.75, true, 0.5, 0.1, &d), 1);
    assert_vec(d.p[0], 0, 0.5, 0, EPS, "surface 1");
    assert_vec(d.p[1], 0, 0.75, 0, EPS, "surface 2");
    /* Beyond alarm + radii. */
    cr_assert_eq(st_coll_sphere_sphere(c1, 0.5, false, c2, 0.75, false, 0.2, 0.1, &d), 0);
    cdetect s;
    cr_assert_eq(st_coll_sphere_sphere(c2, 0.75, false, c1, 0.5, false, 0.5, 0.1, &s), 1);
    assert_vec(s.normal, 0, -1, 0, EPS, "swapped normal");
}

Test(collision_primitives, sphere_triangle_and_line_and_point)
{
    const double a[3] = {0, 0, 0}, b[3] = {2, 0, 0}, c[3] = {0, 0, 2};
    const double s[3] = {0.5, 0.3, 0.5};
    cdetect d;
    /* The sphere's radius joins both distances. */
    cr_assert_eq(st_coll_triangle_sphere(a, b, c, s, 0.2, false, 0.2, 0.05, &d), 1);
    assert_vec(d.p[0], 0.5, 0, 0.5, EPS, "projection");
    assert_vec(d.p[1], 0.5, 0.3, 0.5, EPS, "Vec3d: the centre");
    assert_vec(d.normal, 0, 1, 0, EPS, "normal");
    cr_assert_float_eq(d.value, 0.3 - 0.2 - 0.05, EPS);
    cr_assert_eq(st_coll_triangle_sphere(a, b, c, s, 0.2, true, 0.2, 0.05, &d), 1);
    assert_vec(d.p[1], 0.5, 0.1, 0.5, EPS, "Rigid3d: the lowest point");
    cr_assert_eq(st_coll_triangle_sphere(a, b, c, s, 0.05, false, 0.2, 0.05, &d), 0);
    /* Line-sphere: the closest point of the segment (interior only). */
    const double l0[3] = {0, 0, 0}, l1[3] = {4, 0, 0}, sc[3] = {1, 0.5, 0};
    cr_assert_eq(st_coll_line_sphere(l0, l1, sc, 0.25, false, 0.5, 0, &d), 1);
    assert_vec(d.p[0], 1, 0, 0, EPS, "projection on the line");
    cr_assert_float_eq(d.w[0][0], 0.75, EPS);
    cr_assert_float_eq(d.w[0][1], 0.25, EPS);
    cr_assert_float_eq(d.value, 0.25, EPS);
    const double beyond[3] = {-1, 0.5, 0};
    cr_assert_eq(st_coll_line_sphere(l0, l1, beyond, 0.25, false, 5, 0, &d), 0);
    /* Sphere-point: normal from the centre to the point. */
    const double pt[3] = {0, 0, 0.4};
    cr_assert_eq(st_coll_sphere_point(a, 0.3, false, pt, 0.2, 0.01, &d), 1);
    assert_vec(d.normal, 0, 0, 1, EPS, "sphere-point normal");
    cr_assert_float_eq(d.value, 0.4 - 0.3 - 0.01, EPS);
}
