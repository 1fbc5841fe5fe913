/* test_random_points.c - RandomPointDistributionInSurface in the
 * tetrahedron (0,0,0) (1,0,0) (0,1,0) (0,0,1): points kept are inside
 * (x + y + z <= 1) and 0.1 apart, each point put aside is outside or too
 * close to a kept one; the first point drawn is SOFA's (rand48 seeded with
 * randomSeed: numberOfTests directions of 3 draws, then 3 coordinates in
 * the box), checked against glibc's srand48/mrand48; the same seed gives the
 * same points; an even numberOfTests is raised by one; randomSeed 0 takes
 * the time and writes it back. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(random_points, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Generate]}\n"
#define TETRA                                                                                     \
    "vertices: [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], triangles: [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]"

static st_scene *scene(const char *fields)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             HEAD "    - RandomPointDistributionInSurface: {name: r, " TETRA ", %s}\n", fields);
    return topo_scene(&T, yaml);
}

static double dist(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

Test(random_points, inside_apart_and_sofas_first_draw)
{
    st_scene *s = scene("randomSeed: 4242, numberOfInPoints: 15");
    st_component *r = topo_get(s, "r");
    const st_array *in = topo_arr(r, "inPoints"), *out = topo_arr(r, "outPoints");
    cr_assert_eq(in->n, 15);
    cr_assert_gt(out->n, 0, "the tetrahedron fills 1/6 of its box: some draws fall outside");
    for (size_t i = 0; i < in->n; i++) {
        const double *p = in->r + 3 * i;
        cr_assert(p[0] >= 0 && p[1] >= 0 && p[2] >= 0 && p[0] + p[1] + p[2] <= 1,
                  "kept point %zu (%g %g %g) is outside", i, p[0], p[1], p[2]);
        for (size_t j = 0; j < i; j++)
            cr_assert_geq(dist(p, in->r + 3 * j), 0.1, "points %zu and %zu too close", i, j);
    }
    size_t outside = 0;
    for (size_t i = 0; i < out->n; i++) {
        const double *p = out->r + 3 * i;
        bool is_out = p[0] + p[1] + p[2] > 1;
        bool close = false;
        for (size_t j = 0; j < in->n && !close; j++)
            close = dist(p, in->r + 3 * j) < 0.1;
        cr_assert(is_out || close, "point %zu (%g %g %g) put aside without reason", i, p[0],
                  p[1], p[2]);
        outside += is_out;
    }
    cr_assert_gt(outside, 0);
    /* SOFA's stream: 5 directions x 3 draws, then the first point. */
    srand48(4242);
    for (int i = 0; i < 15; i++)
        (void)mrand48();
    double first[3];
    for (int k = 0; k < 3; k++)
        first[k] = (double)(uint32_t)mrand48() / 4294967295.0;
    const double *p0 = (first[0] + first[1] + first[2] <= 1) ? in->r : out->r;
    for (int k = 0; k < 3; k++)
        cr_assert_float_eq(p0[k], first[k], 1e-15, "first draw, coordinate %d", k);
    st_scene_destroy(&s);
}

Test(random_points, same_seed_same_points_and_odd_tests)
{
    st_scene *a = scene("randomSeed: 9, numberOfTests: 4");
    st_scene *b = scene("randomSeed: 9, numberOfTests: 5");
    st_component *ra = topo_get(a, "r"), *rb = topo_get(b, "r");
    cr_assert_eq(*(unsigned *)st_component_field_ptr(ra, st_component_field(ra, "numberOfTests")),
                 5);
    const st_array *pa = topo_arr(ra, "inPoints"), *pb = topo_arr(rb, "inPoints");
    cr_assert_eq(pa->n, 10);
    cr_assert_eq(pb->n, 10);
    for (size_t i = 0; i < 30; i++)
        cr_assert_eq(pa->r[i], pb->r[i]);
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

Test(random_points, zero_seed_takes_the_time)
{
    st_scene *s = scene("numberOfInPoints: 3");
    st_component *r = topo_get(s, "r");
    cr_assert_neq(*(unsigned *)st_component_field_ptr(r, st_component_field(r, "randomSeed")), 0);
    cr_assert_eq(topo_arr(r, "inPoints")->n, 3);
    st_scene_destroy(&s);
}
