/* test_cube_topology.c - CubeTopology: SOFA's point, edge and quad counts
 * for its three modes (surface points only, internalPoints, splitNormals),
 * points on the box's surface, each quad on one face of the box with its
 * four points distinct, SOFA's numbering of a point by hand, xmin..zmax
 * read as float, and a MechanicalObject in the node taking its points. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(cube_topology, .init = setup, .fini = teardown);

static st_scene *cube(const char *fields)
{
    static char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Constant]}\n"
             "    - CubeTopology: {name: c, %s}\n"
             "    - MechanicalObject: {name: dofs}\n",
             fields);
    return topo_scene(&T, yaml);
}

/* Every point on the box [0,2]^3's surface (all: internalPoints), every
 * quad's points distinct and sharing one face's coordinate. */
static void check_faces(st_component *c, bool surface_only)
{
    const st_array *p = topo_arr(c, "position"), *q = topo_arr(c, "quads");
    for (size_t i = 0; i < p->n && surface_only; i++) {
        const double *x = p->r + 3 * i;
        bool on = false;
        for (int a = 0; a < 3; a++)
            on |= x[a] == 0.0 || x[a] == 2.0;
        cr_assert(on, "point %zu (%g %g %g) inside the box", i, x[0], x[1], x[2]);
    }
    for (size_t k = 0; k < q->n; k++) {
        const unsigned *v = q->u + 4 * k;
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++)
                cr_assert_neq(v[a], v[b], "quad %zu repeats a point", k);
        bool face = false;
        for (int a = 0; a < 3 && !face; a++) {
            double x0 = p->r[3 * v[0] + a];
            bool same = x0 == 0.0 || x0 == 2.0;
            for (int j = 1; j < 4; j++)
                same = same && p->r[3 * v[j] + a] == x0;
            face = same;
        }
        cr_assert(face, "quad %zu is not on a face of the box", k);
    }
}

Test(cube_topology, counts_faces_and_numbering)
{
    st_scene *s = cube("nx: 3, ny: 3, nz: 3, min: [0, 0, 0], max: [2, 2, 2]");
    st_component *c = topo_get(s, "c");
    cr_assert_eq(topo_arr(c, "position")->n, 26u, "3^3 - 1 surface points");
    cr_assert_eq(topo_arr(c, "edges")->n, 48u);
    cr_assert_eq(topo_arr(c, "quads")->n, 24u);
    check_faces(c, true);
    /* SOFA's numbering: the top face's centre (1, 1, 2) is point 1 + 3 (1 + 3) */
    const double *x = topo_arr(c, "position")->r + 3 * 13;
    cr_assert(x[0] == 1.0 && x[1] == 1.0 && x[2] == 2.0, "%g %g %g", x[0], x[1], x[2]);
    cr_assert_eq(((const st_mstate *)topo_get(s, "dofs"))->n, 26u, "the state takes the points");
    st_scene_destroy(&s);

    s = cube("nx: 3, ny: 3, nz: 3, min: [0, 0, 0], max: [2, 2, 2], internalPoints: true");
    c = topo_get(s, "c");
    cr_assert_eq(topo_arr(c, "position")->n, 27u);
    cr_assert_eq(topo_arr(c, "edges")->n, 48u);
    cr_assert_eq(topo_arr(c, "quads")->n, 24u);
    check_faces(c, false);
    st_scene_destroy(&s);

    s = cube("nx: 3, ny: 3, nz: 5, min: [0, 0, 0], max: [2, 2, 2], splitNormals: true");
    c = topo_get(s, "c");
    cr_assert_eq(topo_arr(c, "position")->n, 78u, "9 x 2 + 15 x 2 + 15 x 2");
    cr_assert_eq(topo_arr(c, "quads")->n, 2u * 4 + 4u * 8);
    check_faces(c, true);
    st_scene_destroy(&s);
}

/* xmin..zmax: SOFA reads them as float and multiplies by the float scale. */
Test(cube_topology, bounds_read_as_float)
{
    st_scene *s = cube("nx: 2, ny: 2, nz: 2, xmin: 0.1, ymin: 0, zmin: 0, xmax: 1, ymax: 1,"
                       " zmax: 1, scale: 3");
    const double *x = topo_arr(topo_get(s, "c"), "position")->r;
    cr_assert_eq(x[0], (double)(0.1f * 3.0f), "x0 %.17g", x[0]);
    st_scene_destroy(&s);
}

/* SphereQuadTopology: the 3x3x3 cube's 26 surface points put on the sphere
 * of centre (1, 0, 0) and radius 2 (corner (0, 0, 0) of the grid at the
 * centre minus 2 (1, 1, 1) / sqrt 3), with the cube's edges and quads; one
 * point per axis is an error (SOFA divides by n - 1). */
Test(cube_topology, sphere_quad_topology)
{
    static char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\nroot:\n  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Constant]}\n"
             "    - SphereQuadTopology: {name: s, nx: 3, ny: 3, nz: 3, center: [1, 0, 0],"
             " radius: 2}\n"
             "    - CubeTopology: {name: c, nx: 3, ny: 3, nz: 3}\n");
    st_scene *s = topo_scene(&T, yaml);
    st_component *sp = topo_get(s, "s"), *cu = topo_get(s, "c");
    const st_array *p = topo_arr(sp, "position");
    cr_assert_eq(p->n, 26);
    cr_assert_eq(p->n, topo_arr(cu, "position")->n);
    for (size_t i = 0; i < p->n; i++) {
        const double *x = p->r + 3 * i;
        double d = sqrt((x[0] - 1) * (x[0] - 1) + x[1] * x[1] + x[2] * x[2]);
        cr_assert(fabs(d - 2) < 1e-14, "point %zu at %.17g from the centre", i, d);
    }
    const double k = 2 / sqrt(3.0);
    cr_assert(fabs(p->r[0] - (1 - k)) < 1e-15 && fabs(p->r[1] + k) < 1e-15 &&
                  fabs(p->r[2] + k) < 1e-15,
              "corner: %g %g %g", p->r[0], p->r[1], p->r[2]);
    const st_array *qs = topo_arr(sp, "quads"), *qc = topo_arr(cu, "quads");
    cr_assert_eq(qs->n, qc->n);
    cr_assert(!memcmp(qs->u, qc->u, 4 * qs->n * sizeof(unsigned)), "the cube's quads");
    st_scene_destroy(&s);
    st_error err = {0};
    snprintf(yaml, sizeof yaml,
             "format: settee/1\nroot:\n  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Constant]}\n"
             "    - SphereQuadTopology: {nx: 1, ny: 3, nz: 3, radius: 1}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "at least 2 points per axis"), "%s", err.msg);
}
