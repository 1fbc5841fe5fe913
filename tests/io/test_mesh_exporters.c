/* test_mesh_exporters.c - MeshExporter, STLExporter and
 * VisualModelOBJExporter: the exact text of each format SOFA writes (legacy
 * VTK, VTU, Gmsh, netgen, tetgen, OBJ; ASCII STL; OBJ and MTL of a visual
 * model), the binary STL's layout, and SOFA's triggers and names:
 * exportAtBegin gives FILE00000, every exportEveryNumberOfSteps steps the
 * next number, exportAtEnd one more file when the scene is destroyed, %p
 * the number of points in the name. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static test_rt T;
static char dir[1024];
static void setup(void)
{
    test_rt_open(&T);
    const char *tmp = getenv("TMPDIR");
    /* One folder per test (Criterion runs each in its own process, two at
     * a time): a shared one would be emptied under a running test. */
    snprintf(dir, sizeof dir, "%s/mesh_exporters-%ld", tmp ? tmp : "/tmp", (long)getpid());
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    cr_assert_eq(system(cmd), 0);
}
static void teardown(void) { test_rt_close(&T); }
TestSuite(mesh_exporters, .init = setup, .fini = teardown);

/* A tetrahedron with one face given as a triangle. */
#define SCENE                                                                                     \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.IO.Mesh, Sofa.Component.StateContainer," \
    " Sofa.Component.Topology.Container.Constant, Sofa.GL.Component.Rendering3D]}\n"             \
    "    - DefaultAnimationLoop: {}\n"                                                            \
    "    - MeshTopology: {name: topo, position: [0,0,0, 1,0,0, 0,1,0, 0,0,1.5],"                  \
    " tetrahedra: [0,1,2,3], triangles: [0,2,1]}\n"                                               \
    "    - MechanicalObject: {name: dofs}\n"

static st_scene *load(const char *objects)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, SCENE "%s", objects);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, yaml, strlen(yaml), "exporters.yaml", &s, &err),
                 ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    return s;
}

static void steps(st_scene *s, int n)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
}

static char *slurp(const char *name, size_t *len)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s was not written", path);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

static bool exists(const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static void expect_text(const char *name, const char *want)
{
    const char *got = slurp(name, NULL);
    cr_assert_str_eq(got, want, "%s:\n%s", name, got);
}

Test(mesh_exporters, legacy_vtk_triggers_and_numbering)
{
    char obj[1400];
    snprintf(obj, sizeof obj,
             "    - MeshExporter: {name: ex, format: vtk, filename: \"%s/m\", edges: false,"
             " exportAtBegin: true, exportEveryNumberOfSteps: 2, exportAtEnd: true}\n",
             dir);
    st_scene *s = load(obj);
    cr_assert(exists("m00000.vtk"), "exportAtBegin");
    steps(s, 5);
    cr_assert(exists("m00001.vtk") && exists("m00002.vtk"));
    cr_assert_not(exists("m00003.vtk"));
    st_scene_destroy(&s);
    cr_assert(exists("m00002.vtk"), "exportAtEnd rewrites the last number (5 / 2 = 2)");
    expect_text("m00000.vtk", "# vtk DataFile Version 2.0\nSOFA Exported Mesh file\nASCII\n"
                              "DATASET UNSTRUCTURED_GRID\nPOINTS 4 float\n"
                              "0 0 0\n1 0 0\n0 1 0\n0 0 1.5\n"
                              "CELLS 2 9\n3 0 2 1\n4 0 1 2 3\nCELL_TYPES 2\n5\n10\n");
}

Test(mesh_exporters, gmsh_obj_netgen_tetgen_vtu)
{
    char obj[1400];
    snprintf(obj, sizeof obj,
             "    - MeshExporter: {name: ex, filename: \"%s/all_%%p\", edges: false,"
             " exportAtBegin: true}\n",
             dir);
    st_scene *s = load(obj);
    st_scene_destroy(&s);
    expect_text("all_4.gmsh", "$MeshFormat\n2.1 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n"
                              "2 1 0 0\n3 0 1 0\n4 0 0 1.5\n$EndNodes\n$Elements\n2\n"
                              "1 2 0 1 3 2\n2 4 0 1 2 3 4\n$EndElements\n");
    char want[512];
    snprintf(want, sizeof want,
             "#Export in obj format from SOFA\n#\no %s/all_%%p\n\n#Points (total = 4 pts)\n"
             "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1.5\n\nf 1 3 2\n",
             dir);
    expect_text("all_4.obj", want);
    /* The triangle is a face of one tetrahedron only: a border face. */
    expect_text("all_4.mesh", "4\n0 0 0\n1 0 0\n0 1 0\n0 0 1.5\n1\n0 1 2 3 4\n1\n0 1 3 2\n");
    expect_text("all_4.node", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1.5\n");
    /* SOFA turns positively oriented tetrahedra for tetgen. */
    expect_text("all_4.ele", "1 4 0\n1 1 2 4 3\n");
    expect_text("all_4.face", "1 0\n1 1 3 2\n");
    const char *vtu = slurp("all_4.vtu", NULL);
    cr_assert(strstr(vtu, "<Piece NumberOfPoints=\"4\" NumberOfCells=\"2\">"), "%s", vtu);
    cr_assert(strstr(vtu, "          0 2 1\n          0 1 2 3\n"), "%s", vtu);
    cr_assert(strstr(vtu, "format=\"ascii\">\n          3 7 \n"), "offsets: %s", vtu);
    cr_assert(strstr(vtu, "          5 10 \n"), "types: %s", vtu);
}

Test(mesh_exporters, stl_ascii_and_binary)
{
    char obj[1400];
    snprintf(obj, sizeof obj,
             "    - STLExporter: {name: a, filename: \"%s/a\", exportAtBegin: true,"
             " position: \"@topo.position\", triangle: \"@topo.triangles\"}\n"
             "    - STLExporter: {name: b, filename: \"%s/b\", exportAtBegin: true,"
             " binaryformat: false, position: \"@topo.position\","
             " quads: [[0,1,2,3]]}\n"
             "  children:\n"
             "    - name: C\n"
             "      objects:\n"
             "        - MeshTopology: {position: [0,0,0, 2,0,0, 0,2,0], triangles: [0,1,2]}\n"
             "        - STLExporter: {name: c, filename: \"%s/c\", exportAtBegin: true}\n",
             dir, dir, dir);
    st_scene *s = load(obj);
    st_scene_destroy(&s);
    expect_text("a.stl", "solid Exported from Sofa\nfacet normal 0 0 0\nouter loop\n"
                         "vertex 0.000000 0.000000 0.000000\nvertex 0.000000 1.000000 0.000000\n"
                         "vertex 1.000000 0.000000 0.000000\nendloop\nendfacet\n"
                         "endsolid Exported from Sofa\n");
    /* c: position and triangles linked to the node's topology. */
    cr_assert(strstr(slurp("c.stl", NULL), "vertex 2.000000 0.000000 0.000000\n"));
    size_t n;
    const unsigned char *b = (const unsigned char *)slurp("b.stl", &n);
    cr_assert_eq(n, 80 + 4 + 2 * 50, "binary size %zu", n);
    cr_assert_str_eq((const char *)b, "Exported from Sofa");
    cr_assert_eq(b[80], 2);
    /* Second triangle (0 2 3): its last corner (0,0,1.5) at bytes 84+50+12+24. */
    float z;
    memcpy(&z, b + 84 + 50 + 12 + 24 + 8, 4);
    cr_assert_eq(z, 1.5f);
}

Test(mesh_exporters, visual_model_obj_and_mtl)
{
    char obj[1400];
    snprintf(obj, sizeof obj,
             "  children:\n"
             "    - name: V\n"
             "      objects:\n"
             "        - OglModel: {name: skin, position: [0,0,0, 1,0,0, 0,1,0],"
             " triangles: [0,1,2]}\n"
             "        - VisualModelOBJExporter: {filename: \"%s/scene.obj\","
             " exportAtBegin: true}\n",
             dir);
    st_scene *s = load(obj);
    st_scene_destroy(&s);
    expect_text("scene.obj", "g 1_skin\nusemtl mat1\nv 0.000000 0.000000 0.000000\n"
                             "v 1.000000 0.000000 0.000000\nv 0.000000 1.000000 0.000000\n"
                             "vn 0.000000 0.000000 1.000000\nvn 0.000000 0.000000 1.000000\n"
                             "vn 0.000000 0.000000 1.000000\nf 1//1 2//2 3//3\n\n");
    expect_text("scene.mtl", "newmtl mat1\nillum 4\nKa 0.2 0.2 0.2\nKd 0.75 0.75 0.75\n"
                             "Tf 1.00 1.00 1.00\nNi 1.00\n");
}

Test(mesh_exporters, bad_values)
{
    char obj[1400];
    snprintf(obj, sizeof obj,
             "    - MeshExporter: {name: ex, format: ply, filename: \"%s/x\"}\n", dir);
    char yaml[4096];
    snprintf(yaml, sizeof yaml, SCENE "%s", obj);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, yaml, strlen(yaml), "bad.yaml", &s, &err), ST_OK,
                 "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "ply"), "%s", err.msg);
    st_scene_destroy(&s);
}
