/* test_engines_catalogue.c - the engines of issue 30 against hand
 * computations: MergeVectors (concatenation; index lists in and out; a
 * point list gives its first coordinates, as SOFA's data links; tuple
 * templates refused), the four TransformMatrixEngines (translate, scale,
 * rotate by 90 degrees about z, and the inverse of [S t]), IndexValueMapper
 * (values written at indices, the gap filled with defaultValue). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(engines_catalogue, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Generate,"                         \
    " Sofa.Component.Engine.Transform, Sofa.Component.Engine.Select,"                             \
    " Sofa.Component.Engine.Analyze, Sofa.Component.StateContainer,"                              \
    " Sofa.Component.Constraint.Projective, Sofa.Component.Topology.Container.Constant]}\n"

static void assert_reals(const st_array *a, const double *want, size_t n, double tol,
                         const char *what)
{
    cr_assert_eq(a->n, n, "%s: %zu values, expected %zu", what, a->n, n);
    for (size_t i = 0; i < n; i++)
        cr_assert(fabs(a->r[i] - want[i]) <= tol, "%s[%zu] = %.17g, expected %.17g", what, i,
                  a->r[i], want[i]);
}

/* n points of 3 values. */
static void assert_points(const st_array *a, const double *want, size_t n, double tol,
                          const char *what)
{
    cr_assert_eq(a->n, n, "%s: %zu points, expected %zu", what, a->n, n);
    for (size_t i = 0; i < 3 * n; i++)
        cr_assert(fabs(a->r[i] - want[i]) <= tol, "%s: point %zu [%zu] = %.17g, expected %.17g",
                  what, i / 3, i % 3, a->r[i], want[i]);
}

Test(engines_catalogue, merge_vectors_concatenates)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - MergeVectors: {name: m, nbInputs: 3, input1: [1, 2.5], input2: [],"
                 " input3: [7, 8, 9]}\n"
                 "  children:\n"
                 "    - name: N\n"
                 "      objects:\n"
                 "        - MechanicalObject: {name: dofs,"
                 " position: [0,0,0, 1,0,0, 2,0,0, 3,0,0, 4,1,0]}\n"
                 "        - BoxROI: {name: b1, box: [-0.5,-0.5,-0.5, 0.5,0.5,0.5]}\n"
                 "        - BoxROI: {name: b2, box: [3.5,0.5,-0.5, 4.5,1.5,0.5]}\n"
                 "        - MergeVectors: {name: idx, template: 'Data<int>',"
                 " input1: '@b1.indices', input2: '@b2.indices'}\n"
                 "        - FixedProjectiveConstraint: {name: fix, indices: '@idx.output'}\n"
                 "        - MergeVectors: {name: px, input1: '@dofs.rest_position',"
                 " input2: '@b2.indices'}\n");
    const double want[] = {1, 2.5, 7, 8, 9};
    assert_reals(topo_arr(topo_get(s, "m"), "output"), want, 5, 0, "m.output");
    /* indices 0 and 4 through reals into an index list */
    const unsigned fixed[] = {0, 4};
    topo_assert_tuples(topo_arr(topo_get(s, "N/fix"), "indices"), 1, fixed, 2, "fix.indices");
    /* a point list gives the first value of each point (SOFA's link copy) */
    const double xs[] = {0, 1, 2, 3, 4, 4};
    assert_reals(topo_arr(topo_get(s, "N/px"), "output"), xs, 6, 0, "px.output");
    st_scene_destroy(&s);
}

Test(engines_catalogue, merge_vectors_errors)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MergeVectors: {template: 'Data<Vec3d>',"
                                            " input1: [1]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "not supported"), "%s", err.msg);
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MergeVectors: {nbInputs: 9}\n", &err), ST_OK);
    /* a real that is no index, into an index list */
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MechanicalObject: {position: [0,0,0, 1,0,0]}\n"
                                            "    - MergeVectors: {name: m, input1: [0.5]}\n"
                                            "    - FixedProjectiveConstraint: {indices:"
                                            " '@m.output'}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "not an index"), "%s", err.msg);
}

Test(engines_catalogue, transform_matrix_engines)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - TranslateTransformMatrixEngine: {name: T1, translation: [10, 11, 12]}\n"
                 "    - ScaleTransformMatrixEngine: {name: T2, inT: '@T1.outT',"
                 " scale: [1.2, 1.5, 0.8]}\n"
                 "    - RotateTransformMatrixEngine: {name: T3, inT: '@T2.outT',"
                 " rotation: [0, 0, 90]}\n"
                 "    - InvertTransformMatrixEngine: {name: T4, inT: '@T2.outT'}\n"
                 "    - ScaleTransformMatrixEngine: {name: Z}\n"
                 "    - InvertTransformMatrixEngine: {name: T5, inT: '@Z.outT'}\n");
    const double t1[] = {1, 0, 0, 10, 0, 1, 0, 11, 0, 0, 1, 12, 0, 0, 0, 1};
    const double t2[] = {1.2, 0, 0, 10, 0, 1.5, 0, 11, 0, 0, 0.8, 12, 0, 0, 0, 1};
    /* [S t] * [Rz(90) 0]: columns of S permuted, x -> y, y -> -x */
    const double t3[] = {0, -1.2, 0, 10, 1.5, 0, 0, 11, 0, 0, 0.8, 12, 0, 0, 0, 1};
    const double t4[] = {1 / 1.2, 0, 0, -10 / 1.2, 0, 1 / 1.5, 0, -11 / 1.5,
                         0, 0, 1 / 0.8, -12 / 0.8, 0, 0, 0, 1};
    /* SOFA's default scale 0 0 0, a singular matrix: its inverse block is 0 */
    const double t5[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    assert_reals(topo_arr(topo_get(s, "T1"), "outT"), t1, 16, 0, "T1");
    assert_reals(topo_arr(topo_get(s, "T2"), "outT"), t2, 16, 0, "T2");
    assert_reals(topo_arr(topo_get(s, "T3"), "outT"), t3, 16, 1e-15, "T3");
    assert_reals(topo_arr(topo_get(s, "T4"), "outT"), t4, 16, 1e-14, "T4");
    assert_reals(topo_arr(topo_get(s, "T5"), "outT"), t5, 16, 0, "T5");
    st_scene_destroy(&s);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - InvertTransformMatrixEngine: {inT: [1, 2]}\n",
                                   &err),
                  ST_OK);
}

Test(engines_catalogue, index_value_mapper)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - IndexValueMapper: {name: a, inputValues: [5, 6], indices: [1, 4],"
                 " value: 9, defaultValue: 2}\n"
                 "    - IndexValueMapper: {name: b, inputValues: '@a.outputValues',"
                 " indices: [0], value: -1}\n"
                 "    - IndexValueMapper: {name: c, indices: [2]}\n");
    const double a[] = {5, 9, 2, 2, 9}, b[] = {-1, 9, 2, 2, 9}, c[] = {1, 1, 0};
    assert_reals(topo_arr(topo_get(s, "a"), "outputValues"), a, 5, 0, "a");
    assert_reals(topo_arr(topo_get(s, "b"), "outputValues"), b, 5, 0, "b");
    assert_reals(topo_arr(topo_get(s, "c"), "outputValues"), c, 3, 0, "c");
    st_scene_destroy(&s);
}

/* ClusteringEngine: the flat "size, then indices" clusters, by hand. */
Test(engines_catalogue, clustering_engine)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - ClusteringEngine: {name: all, radius: 1.5,"
                 " position: [0,0,0, 1,0,0, 2,0,0, 3,0,0]}\n"
                 "    - ClusteringEngine: {name: two, radius: 0.5, number: 2,"
                 " position: [0,0,0, 1,0,0, 2,0,0, 3,0,0]}\n"
                 "  children:\n"
                 "    - name: N\n"
                 "      objects:\n"
                 "        - MeshTopology: {position: [0,0,0, 1,0,0, 2,0,0, 3,0,0, 4,0,0],"
                 " edges: [0,1, 1,2, 2,3, 3,4]}\n"
                 "        - ClusteringEngine: {name: geo, radius: 0.5, number: 2,"
                 " position: '@MeshTopology1.position'}\n");
    /* every point a centre; neighbours closer than 1.5 */
    const unsigned all[] = {2, 0, 1, 3, 1, 0, 2, 3, 2, 1, 3, 2, 3, 2};
    topo_assert_tuples(topo_arr(topo_get(s, "all"), "cluster"), 1, all, 14, "all");
    /* centres 0 and 3 (the farthest); a point within no radius joins the
     * nearest other centre, so each centre also lands in the other cluster,
     * as in SOFA */
    const unsigned two[] = {3, 0, 1, 3, 3, 3, 0, 2};
    topo_assert_tuples(topo_arr(topo_get(s, "two"), "cluster"), 1, two, 8, "two");
    /* geodesic: centres 0 and 4, point 2 at equal distance stays in 0's
     * cell; each cluster grows over its cell and one ring beyond */
    const unsigned geo[] = {4, 0, 1, 2, 3, 3, 4, 3, 2};
    topo_assert_tuples(topo_arr(topo_get(s, "N/geo"), "cluster"), 1, geo, 9, "geo");
    st_scene_destroy(&s);
}

/* inFile must name a regular file: a directory is refused, never read. */
Test(engines_catalogue, clustering_in_file_must_be_regular)
{
    st_error err = {0};
    const char *tmp = getenv("TMPDIR");
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             HEAD "    - ClusteringEngine: {name: c, inFile: '%s',"
                  " position: [0,0,0, 1,0,0]}\n",
             tmp ? tmp : "/tmp");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "not a regular file"), "%s", err.msg);
}

#define SM_NODE(x0, x, extra)                                                                     \
    "  children:\n"                                                                               \
    "    - name: N\n"                                                                             \
    "      objects:\n"                                                                            \
    "        - MechanicalObject: {name: dofs, rest_position: " x0 ", position: " x "}\n"          \
    "        - ShapeMatching: {name: sm, position: '@dofs.position'" extra "}\n"
#define SM_TETRA "[0,0,0, 1,0,0, 0,1,0, 0,0,1, 5,5,5]"
#define SM_CLUSTER ", cluster: [4, 0, 1, 2, 3]"
#define SM_OCTA "[1,0,0, -1,0,0, 0,1,0, 0,-1,0, 0,0,1, 0,0,-1, 5,5,5]"
#define SM_OCTA_CLUSTER ", cluster: [6, 0, 1, 2, 3, 4, 5]"
/* the octahedron stretched by 2 along x and moved by (1, 1, 1) */
#define SM_OCTA_X "[3,1,1, -1,1,1, 1,2,1, 1,0,1, 1,1,2, 1,1,0, 9,9,9]"

/* ShapeMatching: a rigid motion is matched exactly; a stretch of an
 * octahedron (Q = 2 I, so T = 2 S is symmetric and its rotation is I)
 * gives back the rest shape about the current centre, or the current
 * shape with affineRatio 1; the last point, in no cluster, keeps its
 * position. */
Test(engines_catalogue, shape_matching)
{
    /* rest rotated 90 degrees about z ((x,y,z) -> (-y,x,z)), moved by (1,2,3) */
    st_scene *s =
        topo_scene(&T, HEAD SM_NODE(SM_TETRA, "[1,2,3, 1,3,3, 0,2,3, 1,2,4, 9,9,9]", SM_CLUSTER));
    const double rigid[] = {1, 2, 3, 1, 3, 3, 0, 2, 3, 1, 2, 4, 9, 9, 9};
    assert_points(topo_arr(topo_get(s, "N/sm"), "targetPosition"), rigid, 5, 1e-12, "rigid");
    st_scene_destroy(&s);
    s = topo_scene(&T, HEAD SM_NODE(SM_OCTA, SM_OCTA_X, SM_OCTA_CLUSTER));
    const double shifted[] = {2, 1, 1, 0, 1, 1, 1, 2, 1, 1, 0, 1, 1, 1, 2, 1, 1, 0, 9, 9, 9};
    assert_points(topo_arr(topo_get(s, "N/sm"), "targetPosition"), shifted, 7, 1e-12,
                  "stretch, rigid");
    st_scene_destroy(&s);
    s = topo_scene(&T, HEAD SM_NODE(SM_OCTA, SM_OCTA_X, SM_OCTA_CLUSTER ", affineRatio: 1"));
    const double affine[] = {3, 1, 1, -1, 1, 1, 1, 2, 1, 1, 0, 1, 1, 1, 2, 1, 1, 0, 9, 9, 9};
    assert_points(topo_arr(topo_get(s, "N/sm"), "targetPosition"), affine, 7, 1e-12,
                  "stretch, affine");
    st_scene_destroy(&s);
    /* half way: the mean of the two */
    s = topo_scene(&T, HEAD SM_NODE(SM_OCTA, SM_OCTA_X, SM_OCTA_CLUSTER ", affineRatio: 0.5"));
    double half[21];
    for (int k = 0; k < 21; k++)
        half[k] = 0.5 * (shifted[k] + affine[k]);
    assert_points(topo_arr(topo_get(s, "N/sm"), "targetPosition"), half, 7, 1e-12, "half");
    st_scene_destroy(&s);
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD SM_NODE(SM_TETRA, SM_TETRA, ", cluster: [3, 0, 1]"),
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "only 2 values follow"), "%s", err.msg);
    /* Rigid3d: SOFA's placeholder computes nothing */
    s = topo_scene(&T, HEAD "  children:\n"
                            "    - name: R\n"
                            "      objects:\n"
                            "        - MechanicalObject: {template: Rigid3d, name: dofs,"
                            " position: [0,0,0,0,0,0,1, 1,0,0,0,0,0,1]}\n"
                            "        - ShapeMatching: {name: sm, position: '@dofs.position',"
                            " cluster: [2, 0, 1]}\n");
    cr_assert_eq(topo_arr(topo_get(s, "R/sm"), "targetPosition")->n, 0);
    st_scene_destroy(&s);
}

#define CUBE_ROI                                                                                  \
    "ROIposition: [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1],"                      \
    " ROItriangles: [0,2,1, 0,3,2, 4,5,6, 4,6,7, 0,1,5, 0,5,4, 3,7,6, 3,6,2, 0,4,7, 0,7,3,"        \
    " 1,2,6, 1,6,5]"
#define MESH_ROI_NODE(extra)                                                                      \
    "  children:\n"                                                                               \
    "    - name: N\n"                                                                             \
    "      objects:\n"                                                                            \
    "        - MechanicalObject: {position: [0.4,0.45,0.5, 0.7,0.2,0.3, 1.5,0.5,0.5,"             \
    " 0.5,0.5,-0.2, 0.9,0.3,0.6]}\n"                                                             \
    "        - MeshROI: {name: roi, " CUBE_ROI ", edges: [0,1, 3,1, 1,2]" extra "}\n"

/* MeshROI on the unit cube: the rays (towards the nearer box corner, 100
 * beyond) of points 0, 1, 4 cross one face away from its diagonal, points 2
 * and 3 lie outside the box; edge (3, 1) has one vertex out but its middle
 * inside (selected unless strict). */
Test(engines_catalogue, mesh_roi_cube)
{
    st_scene *s = topo_scene(&T, HEAD MESH_ROI_NODE(""));
    st_component *r = topo_get(s, "N/roi");
    const unsigned in[] = {0, 1, 4}, out[] = {2, 3}, ein[] = {0, 1}, eout[] = {2};
    topo_assert_tuples(topo_arr(r, "indices"), 1, in, 3, "indices");
    topo_assert_tuples(topo_arr(r, "indicesOut"), 1, out, 2, "indicesOut");
    topo_assert_tuples(topo_arr(r, "edgeIndices"), 1, ein, 2, "edgeIndices");
    topo_assert_tuples(topo_arr(r, "edgeOutIndices"), 1, eout, 1, "edgeOutIndices");
    const double box[] = {0, 0, 0, 1, 1, 1};
    assert_reals(topo_arr(r, "box"), box, 6, 0, "box");
    st_scene_destroy(&s);
    s = topo_scene(&T, HEAD MESH_ROI_NODE(", strict: true"));
    const unsigned strict_in[] = {0};
    topo_assert_tuples(topo_arr(topo_get(s, "N/roi"), "edgeIndices"), 1, strict_in, 1, "strict");
    st_scene_destroy(&s);
    s = topo_scene(&T, HEAD MESH_ROI_NODE(", computeMeshROI: false"));
    const unsigned all[] = {0, 1, 2, 3, 4};
    topo_assert_tuples(topo_arr(topo_get(s, "N/roi"), "indices"), 1, all, 5, "all");
    st_scene_destroy(&s);
}

/* ProximityROI keeps the N = 3 nearest within the radius in SOFA's heap
 * order; when point 4 evicts point 0 (the farthest), SOFA's indicesOut
 * records the heap's new top (2), not 0. */
Test(engines_catalogue, proximity_roi_heap)
{
    st_scene *s = topo_scene(
        &T, HEAD "  children:\n"
                 "    - name: N\n"
                 "      objects:\n"
                 "        - MechanicalObject: {position: [0.5,0,0, 0.1,0,0, 0.3,0,0, 0.9,0,0,"
                 " 0.2,0,0, 2,0,0]}\n"
                 "        - ProximityROI: {name: p, centers: [0,0,0], radii: [1], N: 3}\n"
                 "        - ProximityROI: {name: q, centers: [0,0,0], radii: [1]}\n");
    st_component *p = topo_get(s, "N/p");
    const unsigned in[] = {2, 1, 4}, out[] = {3, 2, 5};
    topo_assert_tuples(topo_arr(p, "indices"), 1, in, 3, "indices");
    topo_assert_tuples(topo_arr(p, "indicesOut"), 1, out, 3, "indicesOut");
    const double d[] = {0.3, 0.1, 0.2};
    assert_reals(topo_arr(p, "distance"), d, 3, 1e-15, "distance");
    const double pts[] = {0.3, 0, 0, 0.1, 0, 0, 0.2, 0, 0};
    assert_points(topo_arr(p, "pointsInROI"), pts, 3, 0, "pointsInROI");
    /* N = 0, SOFA's default: disabled, indices stay "0" */
    const unsigned zero[] = {0};
    topo_assert_tuples(topo_arr(topo_get(s, "N/q"), "indices"), 1, zero, 1, "q");
    st_scene_destroy(&s);
}

/* GenerateCylinder: point and element counts, radii and heights of the
 * layers, the tetrahedra filling the inscribed prism (volume (C/2) r^2
 * sin(2 pi / C) h), and a closed surface where each edge has two
 * triangles. */
Test(engines_catalogue, generate_cylinder)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - GenerateCylinder: {name: c}\n"
                 "    - GenerateCylinder: {name: d, radius: 0.5, height: 2, origin: [1, 2, 3],"
                 " resCircumferential: 7, resRadial: 2, resHeight: 4, openSurface: false}\n");
    st_component *c = topo_get(s, "c");
    const st_array *x = topo_arr(c, "output_TetrahedraPosition");
    cr_assert_eq(x->n, (6 * 3 + 1) * 5);
    cr_assert_eq(topo_arr(c, "tetrahedra")->n, 3 * 6 * 4 + 6 * 2 * 6 * 4);
    cr_assert_eq(topo_arr(c, "output_TrianglesPosition")->n, 6 * 5);
    cr_assert_eq(topo_arr(c, "triangles")->n, 2 * 6 * 4);
    /* layer 2, ring 2, angle index 1: radius 2 * 0.2 / 3, z = 2 * 1 / 4 */
    const double *p = x->r + 3 * (2 * 19 + 1 + 6 + 1);
    cr_assert_float_eq(hypot(p[0], p[1]), 0.4 / 3, 1e-15);
    cr_assert_float_eq(atan2(p[1], p[0]), M_PI / 3, 1e-14);
    cr_assert_float_eq(p[2], 0.5, 1e-15);
    st_component *d = topo_get(s, "d");
    x = topo_arr(d, "output_TetrahedraPosition");
    const st_array *t = topo_arr(d, "tetrahedra");
    cr_assert_eq(x->n, (7 * 2 + 1) * 4);
    cr_assert_eq(t->n, 3 * 7 * 3 + 6 * 1 * 7 * 3);
    double vol = 0;
    for (size_t e = 0; e < t->n; e++) {
        const double *a = x->r + 3 * t->u[4 * e], *b = x->r + 3 * t->u[4 * e + 1],
                     *q = x->r + 3 * t->u[4 * e + 2], *w = x->r + 3 * t->u[4 * e + 3];
        double u[3], v[3], z[3];
        for (int k = 0; k < 3; k++)
            u[k] = b[k] - a[k], v[k] = q[k] - a[k], z[k] = w[k] - a[k];
        double det = u[0] * (v[1] * z[2] - v[2] * z[1]) - u[1] * (v[0] * z[2] - v[2] * z[0]) +
                     u[2] * (v[0] * z[1] - v[1] * z[0]);
        cr_assert(fabs(det) > 1e-12, "tetrahedron %zu is flat", e);
        vol += fabs(det) / 6;
    }
    cr_assert_float_eq(vol, 3.5 * 0.25 * sin(2 * M_PI / 7) * 2, 1e-12);
    /* the origin moves the axis point of the first layer */
    cr_assert(x->r[0] == 1 && x->r[1] == 2 && x->r[2] == 3);
    /* closed surface: 7 * (4 + 2) + 2 points, 2*7*3 + 2*7 + 4*7 triangles, watertight */
    const st_array *sx = topo_arr(d, "output_TrianglesPosition"), *st = topo_arr(d, "triangles");
    cr_assert_eq(sx->n, 7 * 6 + 2);
    cr_assert_eq(st->n, 42 + 14 + 28);
    for (size_t e = 0; e < st->n; e++)
        for (int k = 0; k < 3; k++) {
            unsigned a = st->u[3 * e + k], b = st->u[3 * e + (k + 1) % 3];
            int shared = 0;
            for (size_t f = 0; f < st->n; f++)
                for (int m = 0; m < 3; m++) {
                    unsigned u = st->u[3 * f + m], v = st->u[3 * f + (m + 1) % 3];
                    shared += (u == a && v == b) || (u == b && v == a);
                }
            cr_assert_eq(shared, 2, "edge %u-%u is in %d triangles", a, b, shared);
        }
    st_scene_destroy(&s);
}

/* GenerateCylinder's Bezier control points on a square "cylinder" (C = 4,
 * radius 1, height 2): at degree 2 a wall edge along the circle gets the
 * corner of the tangents, (1, 1) for the quarter from (1, 0) to (0, 1),
 * with weight cos(pi / 4); a wall diagonal the same corner at its second
 * end's height; a vertical edge its middle, weight 1. Degree 3: two points
 * per edge and one per face. */
Test(engines_catalogue, generate_cylinder_bezier)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - GenerateCylinder: {name: b2, radius: 1, height: 2, resCircumferential: 4,"
                 " resRadial: 1, resHeight: 2, BezierTriangleDegree: 2,"
                 " BezierTetrahedronDegree: 2}\n"
                 "    - GenerateCylinder: {name: b3, radius: 1, height: 2, resCircumferential: 4,"
                 " resRadial: 1, resHeight: 2, BezierTriangleDegree: 3}\n");
    st_component *b2 = topo_get(s, "b2");
    const st_array *x = topo_arr(b2, "output_TrianglesPosition");
    const st_array *w = topo_arr(b2, "BezierTriangleWeights");
    const double c = cos(M_PI / 4);
    /* 8 wall points, then one per edge: 8 along the circles, 4 vertical, 4 diagonal */
    cr_assert_eq(x->n, 8 + 16);
    cr_assert_eq(w->n, 24);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(w->r[i], 1.0);
    const double want[] = {1, 1, 0, 1, 1, 2, 1, 0, 1};
    for (int k = 0; k < 9; k++)
        cr_assert(fabs(x->r[24 + k] - want[k]) < 1e-15, "point %d [%d] = %.17g", 8 + k / 3, k % 3,
                  x->r[24 + k]);
    cr_assert_float_eq(w->r[8], c, 1e-15);
    cr_assert_float_eq(w->r[9], c, 1e-15);
    cr_assert_eq(w->r[10], 1.0);
    const st_array *rat = topo_arr(b2, "isBezierTriangleRational");
    cr_assert_eq(rat->n, 8);
    for (size_t i = 0; i < rat->n; i++)
        cr_assert_eq(rat->u[i], 1);
    /* tetrahedra: one point per distinct edge */
    const st_array *tx = topo_arr(b2, "output_TetrahedraPosition");
    const st_array *tt = topo_arr(b2, "tetrahedra");
    cr_assert_eq(tt->n, 12);
    unsigned seen[64][2];
    size_t ne = 0;
    for (size_t e = 0; e < tt->n; e++)
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++) {
                unsigned lo = tt->u[4 * e + a], hi = tt->u[4 * e + b];
                if (lo > hi) {
                    unsigned t = lo;
                    lo = hi, hi = t;
                }
                bool found = false;
                for (size_t k = 0; k < ne; k++)
                    found |= seen[k][0] == lo && seen[k][1] == hi;
                if (!found)
                    seen[ne][0] = lo, seen[ne][1] = hi, ne++;
            }
    cr_assert_eq(tx->n, 10 + ne);
    cr_assert_eq(topo_arr(b2, "BezierTetrahedronWeights")->n, 10 + ne);
    /* points with weight cos(pi/4) on a circle edge sit at the tangents' corner */
    const st_array *tw = topo_arr(b2, "BezierTetrahedronWeights");
    int corners = 0;
    for (size_t i = 10; i < tx->n; i++)
        if (fabs(tw->r[i] - c) < 1e-15) {
            cr_assert_float_eq(hypot(tx->r[3 * i], tx->r[3 * i + 1]), sqrt(2.0), 1e-14);
            corners++;
        }
    cr_assert_eq(corners, 8 + 4, "%d arc points (8 circle edges, 4 wall diagonals)", corners);
    /* degree 3: two points per edge, one per face */
    st_component *b3 = topo_get(s, "b3");
    cr_assert_eq(topo_arr(b3, "output_TrianglesPosition")->n, 8 + 2 * 16 + 8);
    cr_assert_float_eq(topo_arr(b3, "BezierTriangleWeights")->r[8], (1 + 2 * c) / 3, 1e-15);
    st_scene_destroy(&s);
}

#define BOX_2X1X1 "position: [0,0,0, 2,0,0, 0,1,0, 2,1,0, 0,0,1, 2,0,1, 0,1,1, 2,1,1]"

/* GenerateRigidMass of a closed 2 x 1 x 1 box (outward faces) of density
 * 3: volume 2, mass 6, centre (1, 0.5, 0.5), inertia per unit mass
 * diag((b^2 + c^2), (a^2 + c^2), (a^2 + b^2)) / 12; the same from quads,
 * from their triangles and from polygons. */
Test(engines_catalogue, generate_rigid_mass_box)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - GenerateRigidMass: {name: q, density: 3, " BOX_2X1X1 ","
                 " quads: [0,4,6,2, 1,3,7,5, 0,1,5,4, 2,6,7,3, 0,2,3,1, 4,5,7,6]}\n"
                 "    - GenerateRigidMass: {name: t, density: 3, " BOX_2X1X1 ","
                 " triangles: [0,4,6, 0,6,2, 1,3,7, 1,7,5, 0,1,5, 0,5,4, 2,6,7, 2,7,3,"
                 " 0,2,3, 0,3,1, 4,5,7, 4,7,6]}\n"
                 "    - GenerateRigidMass: {name: p, density: 3, " BOX_2X1X1 ","
                 " polygons: [4,0,4,6,2, 4,1,3,7,5, 4,0,1,5,4, 4,2,6,7,3, 4,0,2,3,1,"
                 " 4,4,5,7,6]}\n");
    const char *names[] = {"q", "t", "p"};
    for (int n = 0; n < 3; n++) {
        st_component *c = topo_get(s, names[n]);
        const st_field *f = st_component_field(c, "rigidMass");
        const st_mass_value *m = st_component_field_ptr(c, f);
        cr_assert_float_eq(m->volume, 2, 1e-14, "%s", names[n]);
        cr_assert_float_eq(m->mass, 6, 1e-13, "%s", names[n]);
        const double I[9] = {2.0 / 12, 0, 0, 0, 5.0 / 12, 0, 0, 0, 5.0 / 12};
        for (int k = 0; k < 9; k++)
            cr_assert(fabs(m->inertia[k] - I[k]) < 1e-14, "%s: I[%d] = %.17g", names[n], k,
                      m->inertia[k]);
        assert_reals(topo_arr(c, "inertiaMatrix"), I, 9, 1e-14, names[n]);
        const double *mc = st_component_field_ptr(c, st_component_field(c, "massCenter"));
        const double *co = st_component_field_ptr(c, st_component_field(c, "centerToOrigin"));
        cr_assert(fabs(mc[0] - 1) < 1e-14 && fabs(mc[1] - 0.5) < 1e-14 &&
                      fabs(mc[2] - 0.5) < 1e-14,
                  "%s: centre %g %g %g", names[n], mc[0], mc[1], mc[2]);
        cr_assert(co[0] == -mc[0] && co[1] == -mc[1] && co[2] == -mc[2]);
        cr_assert_float_eq(*(double *)st_component_field_ptr(c, st_component_field(c, "mass")),
                           6, 1e-13);
    }
    st_scene_destroy(&s);
}

/* ExtrudeSurface: one triangle lifted by heightFactor 2 along its normal
 * (+z) gives a prism, by hand; a square of two triangles gives a closed
 * shell (each edge in two triangles), its shared diagonal not walled. */
Test(engines_catalogue, extrude_surface)
{
    st_scene *s = topo_scene(
        &T, HEAD "    - ExtrudeSurface: {name: one, heightFactor: 2,"
                 " surfaceVertices: [0,0,0, 1,0,0, 0,1,0, 5,5,5], triangles: [0,1,2],"
                 " surfaceTriangles: [0]}\n"
                 "    - ExtrudeSurface: {name: sq, surfaceVertices: [0,0,0, 1,0,0, 1,1,0, 0,1,0],"
                 " triangles: [0,1,2, 0,2,3], surfaceTriangles: [0, 1]}\n");
    st_component *one = topo_get(s, "one");
    const double pts[] = {0, 0, 0, 0, 0, 2, 1, 0, 0, 1, 0, 2, 0, 1, 0, 0, 1, 2};
    assert_points(topo_arr(one, "extrusionVertices"), pts, 6, 1e-15, "one");
    const unsigned tris[] = {0, 4, 2, 1, 3, 5, 0, 2, 1, 3, 1, 2,
                             0, 4, 1, 5, 1, 4, 2, 4, 3, 5, 3, 4};
    topo_assert_tuples(topo_arr(one, "extrusionTriangles"), 3, tris, 8, "one");
    const st_array *t = topo_arr(topo_get(s, "sq"), "extrusionTriangles");
    cr_assert_eq(topo_arr(topo_get(s, "sq"), "extrusionVertices")->n, 8);
    cr_assert_eq(t->n, 4 + 8);
    for (size_t e = 0; e < t->n; e++)
        for (int k = 0; k < 3; k++) {
            unsigned a = t->u[3 * e + k], b = t->u[3 * e + (k + 1) % 3];
            int shared = 0;
            for (size_t f = 0; f < t->n; f++)
                for (int m = 0; m < 3; m++) {
                    unsigned u = t->u[3 * f + m], v = t->u[3 * f + (m + 1) % 3];
                    shared += (u == a && v == b) || (u == b && v == a);
                }
            cr_assert_eq(shared, 2, "edge %u-%u is in %d triangles", a, b, shared);
        }
    st_scene_destroy(&s);
}

/* MeshBarycentricMapperEngine: points inside a tetrahedron get its local
 * coordinates; a point outside every element goes to the element with the
 * nearest centre (coordinates outside [0, 1]); on a surface, a point within
 * 0.01 of the triangle's plane (in units of its normal's length) is in it.
 * SOFA's first interpolation weight, 1 - (b1 - b2 - b3), as SOFA. */
Test(engines_catalogue, mesh_barycentric_mapper_engine)
{
    st_scene *s = topo_scene(
        &T, HEAD "  children:\n"
                 "    - name: V\n"
                 "      objects:\n"
                 "        - MeshTopology: {name: topo, position: [0,0,0, 1,0,0, 0,1,0, 0,0,1,"
                 " 5,5,5, 6,5,5, 5,6,5, 5,5,6], tetrahedra: [0,1,2,3, 4,5,6,7]}\n"
                 "        - MeshBarycentricMapperEngine: {name: m, topology: '@topo',"
                 " inputPositions: '@topo.position', computeLinearInterpolation: true,"
                 " mappedPointPositions: [0.1,0.2,0.3, 4.9,5,5]}\n"
                 "    - name: S\n"
                 "      objects:\n"
                 "        - MeshTopology: {name: topo, position: [0,0,0, 2,0,0, 0,2,0],"
                 " triangles: [0,1,2]}\n"
                 "        - MeshBarycentricMapperEngine: {name: m, inputPositions:"
                 " '@topo.position', mappedPointPositions: [0.5,0.5,0.02]}\n");
    st_component *m = topo_get(s, "V/m");
    const double b[] = {0.1, 0.2, 0.3, -0.1, 0, 0};
    assert_points(topo_arr(m, "barycentricPositions"), b, 2, 1e-15, "tetra");
    const unsigned table[] = {0, 1};
    topo_assert_tuples(topo_arr(m, "tableElements"), 1, table, 2, "table");
    const unsigned idx[] = {4, 0, 1, 2, 3, 4, 4, 5, 6, 7};
    topo_assert_tuples(topo_arr(m, "linearInterpolationIndices"), 1, idx, 10, "indices");
    const double w[] = {1 - (0.1 - 0.2 - 0.3), 0.1, 0.2, 0.3, 1 - (-0.1), -0.1, 0, 0};
    assert_reals(topo_arr(m, "linearInterpolationValues"), w, 8, 1e-15, "values");
    /* triangle: (0.25, 0.25), the normal's coordinate (0.02 / 4) not reported */
    const double bt[] = {0.25, 0.25, 0};
    assert_points(topo_arr(topo_get(s, "S/m"), "barycentricPositions"), bt, 1, 1e-15, "tri");
    st_scene_destroy(&s);
}
