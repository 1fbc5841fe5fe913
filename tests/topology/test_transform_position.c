/* test_transform_position.c - TransformPosition: each method on hand-worked
 * points (projection on the plane z = 1 through origin (0,0,1) with an
 * unnormalised normal, rotations by 90 degrees, scale about a centre,
 * affine with a projective row), fixedIndices, the matrix files (.tfm with
 * SOFA's backwards translation, .trm, .txt), and the random method's
 * numbers: SOFA's RandomGenerator is rand48, so seeded draws equal glibc's
 * srand48/mrand48 stream mapped to [-max, max]. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(transform_position, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Transform]}\n"

static st_scene *one(const char *fields)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "    - TransformPosition: {name: t, input_position: [[1,2,3],[-1,0,2]], %s}\n",
             fields);
    return topo_scene(&T, yaml);
}

static void expect(st_scene *s, const double *want, double tol)
{
    const st_array *y = topo_arr(topo_get(s, "t"), "output_position");
    cr_assert_eq(y->n, 2);
    for (int i = 0; i < 6; i++)
        cr_assert(fabs(y->r[i] - want[i]) <= tol, "output[%d] = %.17g, expected %.17g", i,
                  y->r[i], want[i]);
    st_scene_destroy(&s);
}

Test(transform_position, project_on_plane_is_the_default)
{
    const double w[] = {1, 2, 1, -1, 0, 1};
    expect(one("origin: [5,5,1], normal: [0,0,3]"), w, 1e-15);
}

Test(transform_position, translation_scale_and_fixed)
{
    const double w1[] = {2, 4, 6, 0, 2, 5};
    expect(one("method: translation, translation: [1,2,3]"), w1, 0);
    /* origin + (x - origin) * scale */
    const double w2[] = {1, 3, 7, 3, -1, 4};
    expect(one("method: scale, origin: [1,1,1], scale: [-1,2,3]"), w2, 0);
    const double w3[] = {0, 6, 10, -1, 0, 2};
    expect(one("method: scaleTranslation, scale: [-1,2,3], translation: [1,2,1],"
               " fixedIndices: [1]"),
           w3, 0);
}

Test(transform_position, rotations)
{
    /* 90 degrees about z: (x, y, z) -> (-y, x, z). */
    const double w1[] = {-2, 1, 3, 0, -1, 2};
    expect(one("method: rotation, rotation: [0,0,90]"), w1, 1e-14);
    /* scale (2,1,1), 90 degrees about x: (x, y, z) -> (2x, -z, y), then + (0,0,1). */
    const double w2[] = {2, -3, 3, -2, -2, 1};
    expect(one("method: scaleRotationTranslation, scale: [2,1,1], rotation: [90,0,0],"
               " translation: [0,0,1]"),
           w2, 1e-14);
}

Test(transform_position, affine_divides_by_w)
{
    /* Rows: (2 0 0 1) (0 1 0 0) (0 0 1 0) (0 0 0 2): ((2x+1)/2, y/2, z/2). */
    const double w[] = {1.5, 1, 1.5, -0.5, 0, 1};
    expect(one("method: affine, matrix: [2,0,0,1, 0,1,0,0, 0,0,1,0, 0,0,0,2]"), w, 0);
}

static void write_file(const char *name, const char *text, char *path, size_t size)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, size, "%s/%s", dir ? dir : ".", name);
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

Test(transform_position, matrix_files)
{
    char path[1024], fields[1200];
    /* ITK: rotation rows, then t read backwards: (p12, p11, p10) = (3, 2, 1). */
    write_file("m.tfm", "#Insight Transform File V1.0\nTransform: AffineTransform_double_3_3\n"
                        "Parameters: 0 -1 0 1 0 0 0 0 1 1 2 3\nFixedParameters: 0 0 0\n",
               path, sizeof path);
    snprintf(fields, sizeof fields, "method: fromFile, filename: \"%s\"", path);
    const double w1[] = {1, 3, 4, 3, 1, 3};
    st_scene *s = one(fields);
    const st_array *m = topo_arr(topo_get(s, "t"), "matrix");
    cr_assert_eq(m->r[3], 3.0, "the matrix read is written back");
    expect(s, w1, 0);
    write_file("m.trm", "1 2 3\n1 0 0\n0 0 -1\n0 1 0\n", path, sizeof path);
    snprintf(fields, sizeof fields, "method: fromFile, filename: \"%s\"", path);
    const double w2[] = {2, -1, 5, 0, 0, 3};
    s = one(fields);
    cr_assert_eq(((double *)st_component_field_ptr(
                     topo_get(s, "t"), st_component_field(topo_get(s, "t"), "translation")))[2],
                 3.0);
    expect(s, w2, 0);
    write_file("m.txt", "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 0.5\n", path, sizeof path);
    snprintf(fields, sizeof fields, "method: fromFile, filename: \"%s\"", path);
    const double w3[] = {2, 4, 6, -2, 0, 4};
    expect(one(fields), w3, 0);
}

Test(transform_position, random_is_sofas_rand48)
{
    st_scene *s = one("method: random, seedValue: 12345, maxRandomDisplacement: 0.5");
    const st_array *y = topo_arr(topo_get(s, "t"), "output_position");
    const double x[] = {1, 2, 3, -1, 0, 2};
    srand48(12345);
    for (int i = 0; i < 6; i++) {
        double base = (double)(uint32_t)mrand48();
        double want = x[i] + (-0.5 + 1.0 * (base / 4294967295.0));
        cr_assert_float_eq(y->r[i], want, 1e-15, "draw %d", i);
        cr_assert_leq(fabs(y->r[i] - x[i]), 0.5);
    }
    st_scene_destroy(&s);
}

Test(transform_position, bad_values_refused)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - TransformPosition: {input_position: [[0,0,0]],"
                                            " method: shear}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "shear"), "%s", err.msg);
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - TransformPosition: {input_position: [[0,0,0]]}\n",
                                   &err),
                  ST_OK, "projectOnPlane with the zero default normal");
    cr_assert(strstr(err.msg, "normal"), "%s", err.msg);
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - TransformPosition: {input_position: [[0,0,0]],"
                                            " method: translation, fixedIndices: [3]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "beyond"), "%s", err.msg);
}
