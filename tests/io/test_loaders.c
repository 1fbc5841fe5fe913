/* test_loaders.c - MeshOBJLoader and MeshGmshLoader: positions and element
 * lists as SOFA reads them, file names relative to the scene file,
 * translation / rotation / scale3d, createSubelements, links from the
 * loader to a topology and a visual model, and errors naming the mesh
 * file's own line. */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(loaders, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.IO.Mesh,"                                 \
    " Sofa.Component.Topology.Container.Constant, Sofa.Component.Visual,"                  \
    " Sofa.GL.Component.Rendering3D]}\n"

/* Writes a mesh file and a scene next to it (the scene names the mesh by
 * its bare file name, resolved against the scene's directory); loads and
 * initialises the scene. Returns the status; *out holds the scene. */
static st_status load_with_mesh(const char *mesh_name, const char *mesh, const char *loader,
                                const char *extra, st_scene **out, st_error *err)
{
    test_write_temp(mesh_name, mesh);
    char rel[256], yaml[4096];
    snprintf(rel, sizeof rel, "settee-test-%d-%s", (int)getpid(), mesh_name);
    snprintf(yaml, sizeof yaml, HEAD "    - %s: {name: loader, filename: \"%s\"%s}\n", loader, rel,
             extra);
    const char *scene = test_write_temp("scene.yaml", yaml);
    *out = NULL;
    st_status s = st_scene_load(T.rt, scene, out, err);
    if (s == ST_OK) {
        s = st_scene_init(*out, err);
        if (s != ST_OK)
            st_scene_destroy(out);
    }
    return s;
}

static const char *CUBE_OBJ = "# a test mesh\n"
                              "v 0 0 0\n"
                              "v 1 0 0\n"
                              "v 1 1 0\n"
                              "v 0 1 0\n"
                              "v 0.5 0.5 1\n"
                              "vn 0 0 1\n"
                              "vt 0 0\n"
                              "g group\n"
                              "usemtl none\n"
                              "f 1/1/1 2/1/1 3/1/1 4/1/1\n"
                              "f 1//1 2//1 5//1\n"
                              "f -1 -2 -3 -4 -5\n"
                              "l 5 1\n";

Test(loaders, obj_positions_and_elements)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_with_mesh("cube.obj", CUBE_OBJ, "MeshOBJLoader", "", &s, &err), ST_OK,
                 "%s: %s", err.where, err.msg);
    st_component *l = topo_get(s, "loader");
    const st_array *p = topo_arr(l, "position");
    cr_assert_eq(p->n, 5);
    cr_assert_eq(p->r[3 * 4 + 2], 1.0);
    const unsigned quads[] = {0, 1, 2, 3};
    topo_assert_tuples(topo_arr(l, "quads"), 4, quads, 1, "quads");
    /* A triangle, then a pentagon split in a fan (0, j-1, j) from its first vertex. */
    const unsigned tris[] = {0, 1, 4, 4, 3, 2, 4, 2, 1, 4, 1, 0};
    topo_assert_tuples(topo_arr(l, "triangles"), 3, tris, 4, "triangles");
    const unsigned edges[] = {0, 4};
    topo_assert_tuples(topo_arr(l, "edges"), 2, edges, 1, "edges");
    cr_assert_eq(topo_arr(l, "normals")->n, 5);
    st_scene_destroy(&s);
}

Test(loaders, obj_transformation_scale_rotation_translation)
{
    st_scene *s = NULL;
    st_error err = {0};
    /* x' = T R S x: (1,0,0) scaled by 2 -> (2,0,0), rotated 90 deg about z -> (0,2,0),
     * translated by (1,1,1) -> (1,3,1). */
    cr_assert_eq(load_with_mesh("t.obj", "v 1 0 0\nv 0 0 1\n", "MeshOBJLoader",
                                ", scale3d: [2, 2, 2], rotation: [0, 0, 90], "
                                "translation: [1, 1, 1]",
                                &s, &err),
                 ST_OK, "%s", err.msg);
    const st_array *p = topo_arr(topo_get(s, "loader"), "position");
    cr_assert_float_eq(p->r[0], 1.0, 1e-12);
    cr_assert_float_eq(p->r[1], 3.0, 1e-12);
    cr_assert_float_eq(p->r[2], 1.0, 1e-12);
    cr_assert_float_eq(p->r[5], 3.0, 1e-12);
    st_scene_destroy(&s);
    /* flipNormals reverses faces; triangulate splits quads. */
    cr_assert_eq(load_with_mesh("q.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n",
                                "MeshOBJLoader", ", triangulate: true, flipNormals: true", &s,
                                &err),
                 ST_OK, "%s", err.msg);
    const unsigned tris[] = {2, 1, 0, 3, 2, 0};
    topo_assert_tuples(topo_arr(topo_get(s, "loader"), "triangles"), 3, tris, 2, "triangles");
    cr_assert_eq(topo_arr(topo_get(s, "loader"), "quads")->n, 0);
    st_scene_destroy(&s);
}

Test(loaders, obj_errors_name_the_file_line)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_with_mesh("bad1.obj", "v 0 0 0\n# ok\nv 1 x 0\n", "MeshOBJLoader", "", &s,
                                &err),
                 ST_EPARSE);
    cr_assert(strstr(err.msg, "bad1.obj:3:"), "%s", err.msg);
    cr_assert(strstr(err.msg, "3 coordinates"), "%s", err.msg);
    /* The scene position is the loader's filename field. */
    cr_assert(strstr(err.where, "scene.yaml:6:"), "%s", err.where);
    memset(&err, 0, sizeof err);
    cr_assert_eq(load_with_mesh("bad2.obj", "v 0 0 0\nv 1 0 0\n\nf 1 2 7\n", "MeshOBJLoader", "",
                                &s, &err),
                 ST_EPARSE);
    cr_assert(strstr(err.msg, "bad2.obj:4:"), "%s", err.msg);
    cr_assert(strstr(err.msg, "out of range"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_eq(load_with_mesh("bad3.obj", "v 0 0 0\nf 1/a\n", "MeshOBJLoader", "", &s, &err),
                 ST_EPARSE);
    cr_assert(strstr(err.msg, "bad3.obj:2:"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_eq(load_with_mesh("bad4.obj", "v 0 0 0\nf 1\n", "MeshOBJLoader", "", &s, &err),
                 ST_EPARSE);
    cr_assert(strstr(err.msg, "at least 2"), "%s", err.msg);
}

Test(loaders, missing_file_is_an_error_with_the_path_tried)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, HEAD "    - MeshOBJLoader: {filename: no/such/mesh.obj}\n");
    const char *scene = test_write_temp("missing.yaml", yaml);
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = st_scene_load(T.rt, scene, &s, &err);
    if (st == ST_OK) {
        st = st_scene_init(s, &err);
        st_scene_destroy(&s);
    }
    cr_assert_eq(st, ST_ENOTFOUND, "%s", err.msg);
    cr_assert(strstr(err.msg, "no/such/mesh.obj"), "%s", err.msg);
    cr_assert(strstr(err.where, "missing.yaml:6:"), "%s", err.where);
    /* filename is required. */
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MeshOBJLoader: {}\n", &err), ST_OK);
}

Test(loaders, floor_mesh_shipped_with_the_scenes)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             HEAD "    - MeshOBJLoader: {name: meshLoader, filename: \"%s/scenes/meshes/floorFlat.obj\","
                  " scale3d: [0.5, 0.5, 0.5]}\n"
                  "    - OglModel: {name: v, src: \"@meshLoader\", dy: -8, dz: 10}\n"
                  "    - OglModel: {name: w, src: \"@meshLoader\", rx: 90, dy: 2}\n",
             SETTEE_SOURCE_DIR);
    st_scene *s = topo_scene(&T, yaml);
    st_component *l = topo_get(s, "meshLoader");
    const st_array *p = topo_arr(l, "position");
    cr_assert_eq(p->n, 121);
    cr_assert_eq(topo_arr(l, "quads")->n, 100);
    for (size_t i = 0; i < p->n; i++) {
        cr_assert_eq(p->r[3 * i + 1], 0.0);
        cr_assert_leq(fabs(p->r[3 * i]), 12.5);
    }
    /* The visual models copy the loader and apply their own transformation. */
    const st_array *v = topo_arr(topo_get(s, "v"), "position");
    cr_assert_eq(v->n, 121);
    cr_assert_eq(v->r[1], -8.0);
    cr_assert_eq(v->r[2], p->r[2] + 10.0);
    const st_array *w = topo_arr(topo_get(s, "w"), "position");
    /* Rotated 90 degrees about x: the floor stands in the plane z = 0, then y += 2. */
    cr_assert_float_eq(w->r[2], 0.0, 1e-12);
    cr_assert_float_eq(w->r[1], -p->r[2] + 2.0, 1e-12);
    cr_assert_eq(topo_arr(topo_get(s, "w"), "quads")->n, 100);
    st_scene_destroy(&s);
}

Test(loaders, mesh_topology_from_a_loader)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_with_mesh("mt.obj", CUBE_OBJ, "MeshOBJLoader",
                                "}\n    - MeshTopology: {name: topo, src: \"@loader\"", &s, &err),
                 ST_OK, "%s", err.msg);
    st_component *t = topo_get(s, "topo");
    cr_assert_eq(t->cls->topology->nb_points(t), 5);
    cr_assert_eq(topo_arr(t, "quads")->n, 1);
    cr_assert_eq(topo_arr(t, "triangles")->n, 4);
    /* The loader's edge list is given, so it is not derived. */
    cr_assert_eq(topo_arr(t, "edges")->n, 1);
    st_scene_destroy(&s);
}

static const char *GMSH_HEX =
    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
    "$PhysicalNames\n1\n3 1 \"vol\"\n$EndPhysicalNames\n"
    "$Nodes\n8\n"
    "10 0 0 0\n11 1 0 0\n12 1 1 0\n13 0 1 0\n14 0 0 1\n15 1 0 1\n16 1 1 1\n17 0 1 1\n"
    "$EndNodes\n"
    "$Elements\n3\n"
    "1 15 2 0 1 10\n"
    "2 5 2 1 1 10 11 12 13 14 15 16 17\n"
    "3 1 2 0 1 10 16\n"
    "$EndElements\n";

Test(loaders, gmsh_hexahedron_with_subelements)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_with_mesh("hex.msh", GMSH_HEX, "MeshGmshLoader", "", &s, &err), ST_OK,
                 "%s: %s", err.where, err.msg);
    st_component *l = topo_get(s, "loader");
    cr_assert_eq(topo_arr(l, "position")->n, 8);
    const unsigned hexa[] = {0, 1, 2, 3, 4, 5, 6, 7};
    topo_assert_tuples(topo_arr(l, "hexahedra"), 8, hexa, 1, "hexahedra");
    /* createSubelements (default true for Gmsh): the 6 faces, then their edges after the
     * line element (0, 6). */
    const unsigned quads[] = {0, 3, 2, 1, 4, 5, 6, 7, 0, 1, 5, 4,
                              1, 2, 6, 5, 2, 3, 7, 6, 3, 0, 4, 7};
    topo_assert_tuples(topo_arr(l, "quads"), 4, quads, 6, "quads");
    const st_array *e = topo_arr(l, "edges");
    cr_assert_eq(e->n, 13);
    cr_assert(e->u[0] == 0 && e->u[1] == 6);
    st_scene_destroy(&s);

    cr_assert_eq(load_with_mesh("hex2.msh", GMSH_HEX, "MeshGmshLoader",
                                ", createSubelements: false, translation: [1, 0, 0]", &s, &err),
                 ST_OK, "%s", err.msg);
    l = topo_get(s, "loader");
    cr_assert_eq(topo_arr(l, "quads")->n, 0);
    cr_assert_eq(topo_arr(l, "edges")->n, 1);
    cr_assert_eq(topo_arr(l, "position")->r[0], 1.0);
    st_scene_destroy(&s);
}

Test(loaders, gmsh_tetrahedra)
{
    const char *msh = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n"
                      "3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n1\n1 4 0 1 2 3 4\n$EndElements\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_with_mesh("tet.msh", msh, "MeshGmshLoader", "", &s, &err), ST_OK, "%s",
                 err.msg);
    st_component *l = topo_get(s, "loader");
    cr_assert_eq(topo_arr(l, "tetrahedra")->n, 1);
    const unsigned tris[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    topo_assert_tuples(topo_arr(l, "triangles"), 3, tris, 4, "triangles");
    cr_assert_eq(topo_arr(l, "edges")->n, 6);
    st_scene_destroy(&s);
}

Test(loaders, gmsh_errors_name_the_file_line)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_with_mesh("v3.msh", "$MeshFormat\n3.0 0 8\n$EndMeshFormat\n",
                                "MeshGmshLoader", "", &s, &err),
                 ST_EPARSE);
    cr_assert(strstr(err.msg, "v3.msh:2:"), "%s", err.msg);
    cr_assert(strstr(err.msg, "2.2"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_eq(load_with_mesh("nodes.msh",
                                "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n2\n1 0 0 0\n"
                                "2 1 0\n$EndNodes\n",
                                "MeshGmshLoader", "", &s, &err),
                 ST_EPARSE);
    cr_assert(strstr(err.msg, "nodes.msh:7:"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_eq(load_with_mesh("elem.msh",
                                "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n2\n1 0 0 0\n"
                                "2 1 0 0\n$EndNodes\n$Elements\n1\n1 1 0 1 9\n$EndElements\n",
                                "MeshGmshLoader", "", &s, &err),
                 ST_EPARSE);
    cr_assert(strstr(err.msg, "elem.msh:11:"), "%s", err.msg);
    cr_assert(strstr(err.msg, "node 9"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_eq(load_with_mesh("noend.msh",
                                "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n"
                                "$Elements\n",
                                "MeshGmshLoader", "", &s, &err),
                 ST_EPARSE);
    cr_assert(strstr(err.msg, "$EndNodes"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_eq(load_with_mesh("notgmsh.msh", "hello\n", "MeshGmshLoader", "", &s, &err),
                 ST_EPARSE);
    cr_assert(strstr(err.msg, "notgmsh.msh:1:"), "%s", err.msg);
}

Test(loaders, plugin_answers_sofa_module_name)
{
    st_error err = {0};
    cr_assert_eq(st_runtime_load_plugin(T.rt, "Sofa.Component.IO.Mesh", &err), ST_OK, "%s",
                 err.msg);
    cr_assert(st_registry_find(st_runtime_registry(T.rt), "MeshObjLoader"), "alias");
}
