/* test_grid_shapes.c - CylinderGridTopology and SphereGridTopology (grid
 * element lists with points on a cylinder or a ball) and CubeTopology (the
 * sampled surface of a box, three point layouts): positions, counts and
 * first elements against SOFA's rules worked by hand. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(grid_shapes, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Grid, "              \
    "Sofa.Component.Topology.Container.Constant, Sofa.Component.StateContainer]}\n"

static st_scene *shape(const char *cls, const char *fields)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, HEAD "    - MechanicalObject: {name: m}\n    - %s: {name: g, %s}\n",
             cls, fields);
    return topo_scene(&T, yaml);
}

/* The first n tuples of width w of a are want. */
static void assert_prefix(const st_array *a, unsigned w, const unsigned *want, size_t n,
                          const char *what)
{
    cr_assert_geq(a->n, n, "%s: %zu tuples", what, a->n);
    for (size_t i = 0; i < n * w; i++)
        cr_assert_eq(a->u[i], want[i], "%s: entry %zu is %u, expected %u", what, i, a->u[i],
                     want[i]);
}

static void assert_point(const st_array *p, size_t i, double x, double y, double z)
{
    const double *q = p->r + 3 * i;
    cr_assert(fabs(q[0] - x) < 1e-12 && fabs(q[1] - y) < 1e-12 && fabs(q[2] - z) < 1e-12,
              "point %zu is %.15g %.15g %.15g, expected %g %g %g", i, q[0], q[1], q[2], x, y, z);
}

/* n = 3 3 2, radius 1, length 2, axis z: the layer is the square
 * {-1, 0, 1}^2 scaled onto circles: corner (1, 1) -> (1, 1) / sqrt 2, edge
 * middles and the centre stay; the second layer at z = 2. Point (i, j, k)
 * is i + 3 (j + 3 k). 2 x 2 x 1 hexahedra. */
Test(grid_shapes, cylinder_points)
{
    st_scene *s = shape("CylinderGridTopology", "n: [3, 3, 2], radius: 1, length: 2");
    st_component *g = topo_get(s, "g");
    const st_array *p = topo_arr(g, "position");
    cr_assert_eq(p->n, 18);
    const double h = sqrt(0.5);
    assert_point(p, 0, -h, -h, 0);
    assert_point(p, 4, 0, 0, 0);
    assert_point(p, 5, 1, 0, 0);
    assert_point(p, 17, h, h, 2);
    cr_assert_eq(topo_arr(g, "hexahedra")->n, 4);
    /* the MechanicalObject before the grid in its node takes its points */
    cr_assert_eq(topo_arr(topo_get(s, "m"), "position")->n, 18);
    assert_point(topo_arr(topo_get(s, "m"), "position"), 17, h, h, 2);
    st_scene_destroy(&s);

    /* axis y: X = (1, 0, 0), Y = Z x X = (0, 0, -1): point (2, 1, 1) at
     * p = (1, 0, 2) is (1, 2, 0); point (1, 2, 0) at p = (0, 1, 0) is
     * (0, 0, -1); the centre moves everything. */
    s = shape("CylinderGridTopology",
              "n: [3, 3, 2], radius: 1, length: 2, axis: [0, 1, 0], center: [10, 0, 0]");
    p = topo_arr(topo_get(s, "g"), "position");
    assert_point(p, 14, 11, 2, 0);
    assert_point(p, 7, 10, 0, -1);
    st_scene_destroy(&s);
}

/* n = 3 3 3, radius 2: the cube {-2, 0, 2}^3 scaled onto spheres: corner
 * (2, 2, 2) -> 2 / sqrt 3 each, face centres stay, the centre is 0. */
Test(grid_shapes, sphere_points)
{
    st_scene *s = shape("SphereGridTopology", "n: [3, 3, 3], radius: 2");
    st_component *g = topo_get(s, "g");
    const st_array *p = topo_arr(g, "position");
    cr_assert_eq(p->n, 27);
    const double c = 2 / sqrt(3.0);
    assert_point(p, 26, c, c, c);
    assert_point(p, 0, -c, -c, -c);
    assert_point(p, 12, -2, 0, 0);
    assert_point(p, 13, 0, 0, 0);
    /* an edge middle (2, 2, 1): (2, 2, 0) scaled by 2 / (2 sqrt 2) */
    assert_point(p, 17, sqrt(2.0), sqrt(2.0), 0);
    cr_assert_eq(topo_arr(g, "hexahedra")->n, 8);
    st_scene_destroy(&s);
}

Test(grid_shapes, flat_curved_grids_are_refused)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - SphereGridTopology: {name: g, n: [3, 3, 1]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "at least 2 points"), "%s", err.msg);
    cr_assert_neq(topo_scene_fails(&T,
                                   HEAD "    - CylinderGridTopology: {name: g, n: [1, 3, 3]}\n",
                                   &err),
                  ST_OK);
    /* a cylinder of one layer is fine (the layer at the centre) */
    st_scene *s = topo_scene(&T, HEAD "    - CylinderGridTopology: {name: g, n: [2, 2, 1]}\n");
    cr_assert_eq(topo_arr(topo_get(s, "g"), "position")->n, 4);
    st_scene_destroy(&s);
}

/* CubeTopology 3 x 3 x 3 over [0, 2]^3 (cells of 1): 26 surface points
 * (layers z = 0 and z = 2, then the ring of z = 1: y = 0, y = 2, x = 0,
 * x = 2), 48 edges (2 per ring segment: 3 axes x 2 cells x 8 lines), 24
 * quads. */
Test(grid_shapes, cube_surface)
{
    st_scene *s = shape("CubeTopology", "nx: 3, ny: 3, nz: 3, min: [0, 0, 0], max: [2, 2, 2]");
    st_component *g = topo_get(s, "g");
    const st_array *p = topo_arr(g, "position");
    cr_assert_eq(p->n, 26);
    assert_point(p, 4, 1, 1, 0);
    assert_point(p, 13, 1, 1, 2);
    assert_point(p, 19, 1, 0, 1);
    assert_point(p, 25, 2, 1, 1);
    const st_array *e = topo_arr(g, "edges"), *q = topo_arr(g, "quads");
    cr_assert_eq(e->n, 48);
    cr_assert_eq(q->n, 24);
    cr_assert_eq(topo_arr(g, "triangles")->n, 0);
    /* first point's +x, +y, +z edges; the z = 0 and z = 2 faces' first quads */
    assert_prefix(e, 2, (const unsigned[]){0, 1, 0, 3, 0, 18}, 3, "first edges");
    assert_prefix(q, 4, (const unsigned[]){0, 3, 4, 1}, 1, "first quad");
    const unsigned z1[4] = {9, 10, 13, 12};
    for (int k = 0; k < 4; k++)
        cr_assert_eq(q->u[4 * 4 + k], z1[k], "quad 4 vertex %d", k);
    /* the MechanicalObject before it takes its points */
    cr_assert_eq(topo_arr(topo_get(s, "m"), "position")->n, 26);
    st_scene_destroy(&s);

    /* internalPoints: every grid point, x fastest */
    s = shape("CubeTopology", "nx: 3, ny: 3, nz: 3, max: [2, 2, 2], internalPoints: true");
    p = topo_arr(topo_get(s, "g"), "position");
    cr_assert_eq(p->n, 27);
    assert_point(p, 13, 1, 1, 1);
    st_scene_destroy(&s);

    /* xmin..zmax with scale replace min and max */
    s = shape("CubeTopology", "nx: 2, ny: 2, nz: 2, xmin: -1, ymin: -1, zmin: -1, xmax: 1, "
                              "ymax: 1, zmax: 1, scale: 3");
    p = topo_arr(topo_get(s, "g"), "position");
    cr_assert_eq(p->n, 8);
    assert_point(p, 0, -3, -3, -3);
    assert_point(p, 7, 3, 3, 3);
    st_scene_destroy(&s);
}

/* splitNormals, 2 x 2 x 2 over [0, 1]^3: each face has its own 4 points
 * (24): faces x = 0 (0..3), y = 0 (4..7), z = 0 (8..11), then x = 1, y = 1,
 * z = 1. The z = 0 quad uses that face's points 8 10 11 9. */
Test(grid_shapes, cube_split_normals)
{
    st_scene *s = shape("CubeTopology", "nx: 2, ny: 2, nz: 2, splitNormals: true");
    st_component *g = topo_get(s, "g");
    const st_array *p = topo_arr(g, "position");
    cr_assert_eq(p->n, 24);
    assert_point(p, 8, 0, 0, 0);
    assert_point(p, 12, 1, 0, 0);
    assert_point(p, 23, 1, 1, 1);
    cr_assert_eq(topo_arr(g, "edges")->n, 12);
    assert_prefix(topo_arr(g, "quads"), 4, (const unsigned[]){8, 10, 11, 9}, 1, "z = 0 quad");
    st_scene_destroy(&s);
}
