/* test_off_trian_loaders.c - MeshOffLoader, MeshTrianLoader and GIDMeshLoader on files of
 * our own: an OFF file with comments, blank lines, a pentagon that SOFA
 * skips without counting, a triangle and a quad; a trian file of two
 * triangles (the border edges opposite each -1, in SOFA's order, and each
 * border triangle once); a trian2 file with its 13 header lines and
 * normals; GiD meshes (3D tetrahedra with higher-order nodes ignored, 2D
 * quads, unsupported types); malformed files, each an error at its line. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(off_trian, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.IO.Mesh]}\n"

static st_status load(const char *cls, const char *name, const char *text, const char *extra,
                      st_scene **out, st_error *err)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
    char yaml[2048];
    snprintf(yaml, sizeof yaml, HEAD "    - %s: {name: loader, filename: \"%s\"%s}\n", cls, path,
             extra);
    *out = NULL;
    st_status s = st_scene_load_string(T.rt, yaml, strlen(yaml), "off.yaml", out, err);
    if (s == ST_OK)
        s = st_scene_init(*out, err);
    if (s != ST_OK && *out)
        st_scene_destroy(out);
    return s;
}

static const char *OFF = "OFF\n# a comment\n\n5 3 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n"
                         "# between\n0.5 2 0\n5 0 1 2 3 4\n3 0 1 4\n\n4 0 1 2 3\n";

Test(off_trian, off_file)
{
    st_scene *s;
    st_error err = {0};
    cr_assert_eq(load("MeshOffLoader", "a.off", OFF, "", &s, &err), ST_OK, "%s", err.msg);
    st_component *l = topo_get(s, "loader");
    cr_assert_eq(topo_arr(l, "position")->n, 5);
    cr_assert_eq(topo_arr(l, "position")->r[13], 2.0);
    const unsigned t[] = {0, 1, 4}, q[] = {0, 1, 2, 3};
    topo_assert_tuples(topo_arr(l, "triangles"), 3, t, 1, "triangles");
    topo_assert_tuples(topo_arr(l, "quads"), 4, q, 1, "quads");
    cr_assert_eq(topo_arr(l, "triangles")->n, 1);
    cr_assert_eq(topo_arr(l, "quads")->n, 1);
    st_scene_destroy(&s);
    cr_assert_neq(load("MeshOffLoader", "b.off", "COFF\n1 0 0\n0 0 0\n", "", &s, &err), ST_OK);
    cr_assert(strstr(err.msg, "OFF"), "%s", err.msg);
    cr_assert_neq(load("MeshOffLoader", "c.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n",
                       "", &s, &err),
                  ST_OK);
    cr_assert(strstr(err.msg, ":6:") && strstr(err.msg, "index 7"), "%s", err.msg);
}

Test(off_trian, trian_file)
{
    /* Triangles (0 1 2) and (1 3 2) share the edge 1-2: across it from
     * vertex 0 of the first, and from vertex 1 (3) of the second. */
    const char *text = "4\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n2\n0 1 2 1 -1 -1\n1 3 2 -1 0 -1\n";
    st_scene *s;
    st_error err = {0};
    cr_assert_eq(load("MeshTrianLoader", "a.trian", text, "", &s, &err), ST_OK, "%s", err.msg);
    st_component *l = topo_get(s, "loader");
    const unsigned tri[] = {0, 1, 2, 1, 3, 2};
    topo_assert_tuples(topo_arr(l, "triangles"), 3, tri, 2, "triangles");
    const unsigned e[] = {2, 0, 0, 1, 3, 2, 1, 3};
    topo_assert_tuples(topo_arr(l, "edgesOnBorder"), 2, e, 4, "border edges");
    cr_assert_eq(topo_arr(l, "edgesOnBorder")->n, 4);
    const unsigned b[] = {0, 1};
    topo_assert_tuples(topo_arr(l, "trianglesOnBorderList"), 1, b, 2, "border triangles");
    const st_array *n = topo_arr(l, "neighborTable");
    cr_assert_eq(n->n, 6);
    cr_assert(n->r[0] == 1 && n->r[1] == -1 && n->r[4] == 0);
    st_scene_destroy(&s);
    cr_assert_neq(load("MeshTrianLoader", "b.trian", "3\n0 0 0\n1 0 0\n0 1 x\n", "", &s, &err),
                  ST_OK);
    cr_assert(strstr(err.msg, ":4:") && strstr(err.msg, "'x'"), "%s", err.msg);
}

Test(off_trian, trian2_file)
{
    char text[1024] = "";
    for (int i = 0; i < 13; i++)
        strcat(text, "material line\n");
    strcat(text, "Vertices 3\n0 0 0\n2 0 0\n0 2 0\nNormals 1\n0 0 1\nTriangles 1\n0 1 2\n");
    st_scene *s;
    st_error err = {0};
    cr_assert_eq(load("MeshTrianLoader", "a.trian2", text, ", trian2: true", &s, &err), ST_OK,
                 "%s", err.msg);
    st_component *l = topo_get(s, "loader");
    cr_assert_eq(topo_arr(l, "position")->n, 3);
    cr_assert_eq(topo_arr(l, "position")->r[3], 2.0);
    cr_assert_eq(topo_arr(l, "triangles")->n, 1);
    st_scene_destroy(&s);
}

Test(off_trian, gid_file)
{
    const char *text = "MESH dimension 3 ElemType Tetrahedra Nnode 10\nCoordinates\n"
                       "  1 0 0 0\n  2 1 0 0\n  3 0 1 0\n  4 0 0 1\nEnd Coordinates\n\n"
                       "Elements\n  1 1 2 3 4 9 9 9 9 9 9\nend elements\n";
    st_scene *s;
    st_error err = {0};
    cr_assert_eq(load("GIDMeshLoader", "a.gidmsh", text, "", &s, &err), ST_OK, "%s", err.msg);
    st_component *l = topo_get(s, "loader");
    cr_assert_eq(topo_arr(l, "position")->n, 4);
    const unsigned t[] = {0, 1, 2, 3};
    topo_assert_tuples(topo_arr(l, "tetrahedra"), 4, t, 1, "tetrahedron (1-based in the file)");
    cr_assert_eq(topo_arr(l, "tetrahedra")->n, 1);
    cr_assert(strstr(T.log, "only supports 4 nodes Tetrahedra"), "%s", T.log);
    st_scene_destroy(&s);
    /* A 2D quad mesh. */
    const char *q = "MESH dimension 2 ElemType Quadrilateral Nnode 4\ncoordinates\n"
                    "1 0 0\n2 1 0\n3 1 1\n4 0 1\nend coordinates\nelements\n1 1 2 3 4\n"
                    "end elements\n";
    cr_assert_eq(load("GIDMeshLoader", "b.gidmsh", q, "", &s, &err), ST_OK, "%s", err.msg);
    l = topo_get(s, "loader");
    cr_assert_eq(topo_arr(l, "quads")->n, 1);
    cr_assert_eq(topo_arr(l, "position")->r[7], 1.0);
    st_scene_destroy(&s);
    cr_assert_neq(load("GIDMeshLoader", "c.gidmsh",
                       "MESH dimension 3 ElemType Prism Nnode 6\n", "", &s, &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "Prism"), "%s", err.msg);
    cr_assert_neq(load("GIDMeshLoader", "d.gidmsh",
                       "MESH dimension 3 ElemType Tetrahedra Nnode 4\nCoordinates\n1 0 0 0\n"
                       "End Coordinates\nElements\n1 1 2 3 4\nEnd Elements\n",
                       "", &s, &err),
                  ST_OK);
    cr_assert(strstr(err.msg, ":6:") && strstr(err.msg, "not a vertex"), "%s", err.msg);
}

/* OffSequenceLoader over seq1.off .. seq3.off (one point at x = 1, 2, 3),
 * stepDuration 0.02, dt 0.01: init reads file 1; SOFA's test (current -
 * first) 0.02 <= t moves to file 2 at the step of t = 0, keeps it at
 * t = 0.01, reads file 3 at t = 0.02, and nothing after the last file. */
Test(off_trian, off_sequence)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[512];
    for (int k = 1; k <= 3; k++) {
        snprintf(path, sizeof path, "%s/seq%d.off", dir, k);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fprintf(f, "OFF\n3 1 0\n%d 0 0\n0 1 0\n0 0 1\n3 0 1 2\n", k);
        fclose(f);
    }
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\nroot:\n  dt: 0.01\n  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.IO.Mesh]}\n"
             "    - OffSequenceLoader: {name: loader, filename: \"%s/seq1.off\", nbOfFiles: 3,"
             " stepDuration: 0.02}\n",
             dir);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, yaml, strlen(yaml), "seq.yaml", &s, &err), ST_OK,
                 "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_component *l = topo_get(s, "loader");
    const double want[] = {2, 2, 3, 3, 3, 3};
    cr_assert_eq(topo_arr(l, "position")->r[0], 1.0);
    for (int k = 0; k < 6; k++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        cr_assert_eq(topo_arr(l, "position")->r[0], want[k], "after step %d: x %g", k + 1,
                     topo_arr(l, "position")->r[0]);
        cr_assert_eq(topo_arr(l, "triangles")->n, 1);
    }
    st_scene_destroy(&s);
    err = (st_error){0};
    cr_assert_neq(load("OffSequenceLoader", "noindex.off", "OFF\n1 0 0\n0 0 0\n", "", &s, &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "Invalid file index"), "%s", err.msg);
}
