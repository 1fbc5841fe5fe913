/* test_group_filter_young_modulus.c - the loaders' element groups (SOFA's
 * MeshLoader *Groups outputs, PrimitiveGroup as "groupName materialName
 * materialId p0 nbp") filled by MeshOBJLoader ("g" and "usemtl" lines) and
 * MeshGmshLoader (element tags), and GroupFilterYoungModulus reading them:
 * moduli by group name, by a list per group, by element group ids, with
 * SOFA's tokenizer rules (only items ended by ';'). Worked by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(group_filter_ym, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.IO.Mesh,"                                 \
    " Sofa.Component.Engine.Generate]}\n"

/* Faces before any "g": Default_Group. Then "g top": two triangles, a quad
 * and a pentagon (one face, three triangles); "usemtl steel": one
 * triangle; "g bottom part": a triangle and a line. */
static const char *OBJ =
    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\n"
    "f 1 2 3\n"
    "g top\n"
    "f 1 2 3\nf 1 3 4\nf 1 2 3 4\nf 1 2 3 4 5\n"
    "usemtl steel\n"
    "f 2 3 4\n"
    "g bottom part\n"
    "f 4 5 6\nl 1 6\n";

static void assert_groups(st_component *c, const char *field, const char *const *want, size_t n)
{
    const st_array *g = topo_arr(c, field);
    cr_assert_eq(g->n, 5 * n, "%s: %zu strings, want %zu groups", field, g->n, n);
    for (size_t i = 0; i < 5 * n; i++)
        cr_assert_str_eq(g->s[i], want[i], "%s[%zu] = '%s', want '%s'", field, i, g->s[i],
                         want[i]);
}

Test(group_filter_ym, obj_loader_groups)
{
    const char *path = test_write_temp("groups.obj", OBJ);
    char yaml[4096];
    snprintf(yaml, sizeof yaml, HEAD "    - MeshOBJLoader: {name: l, filename: \"%s\"}\n", path);
    st_scene *s = topo_scene(&T, yaml);
    st_component *l = topo_get(s, "l");
    /* triangles: Default_Group (face 0), top (faces 1, 2 and the pentagon:
     * 3 faces), top/steel (1), bottom part/steel (1) */
    static const char *const tri[] = {"Default_Group", "", "-1", "0", "1",
                                      "top", "", "-1", "1", "3",
                                      "top", "steel", "-1", "4", "1",
                                      "bottom part", "steel", "-1", "5", "1"};
    assert_groups(l, "trianglesGroups", tri, 4);
    static const char *const quad[] = {"top", "", "-1", "0", "1"};
    assert_groups(l, "quadsGroups", quad, 1);
    static const char *const edge[] = {"bottom part", "steel", "-1", "0", "1"};
    assert_groups(l, "edgesGroups", edge, 1);
    cr_assert_eq(topo_arr(l, "triangles")->n, 8u, "1 + 2 + 3 + 1 + 1 triangles");
    st_scene_destroy(&s);
}

/* Format 2.2: tetrahedra tagged (physical, elementary) = (1, 10), (1, 10),
 * (1, 20), then (1, 10) again; a triangle tagged 7. SOFA's group is the
 * last tag: tetrahedra groups 10 (3 elements) and 20 (1), renumbered to
 * p0 = 0 and 3; the triangle's group 7 to p0 0. */
static const char *MSH =
    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
    "$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n$EndNodes\n"
    "$Elements\n5\n"
    "1 4 2 1 10 1 2 3 4\n"
    "2 4 2 1 10 2 3 4 5\n"
    "3 4 2 1 20 1 3 4 5\n"
    "4 4 2 1 10 1 2 4 5\n"
    "5 2 1 7 1 2 3\n"
    "$EndElements\n";

Test(group_filter_ym, gmsh_loader_groups)
{
    const char *path = test_write_temp("groups.msh", MSH);
    char yaml[4096];
    snprintf(yaml, sizeof yaml, HEAD "    - MeshGmshLoader: {name: l, filename: \"%s\"}\n", path);
    st_scene *s = topo_scene(&T, yaml);
    st_component *l = topo_get(s, "l");
    static const char *const tet[] = {"", "", "-1", "0", "3", "", "", "-1", "3", "1"};
    assert_groups(l, "tetrahedraGroups", tet, 2);
    static const char *const tri[] = {"", "", "-1", "0", "1"};
    assert_groups(l, "trianglesGroups", tri, 1);
    st_scene_destroy(&s);
}

/* Format 4.1: each element's group is its own tag (SOFA's MeshGmsh reads
 * the element tag there), so two tetrahedra make two groups of one. */
Test(group_filter_ym, gmsh_v4_groups_by_element_tag)
{
    const char *path = test_write_temp(
        "groups4.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
                       "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
                       "$EndNodes\n"
                       "$Elements\n1 2 7 9\n3 1 4 2\n7 1 2 3 4\n9 2 3 4 1\n$EndElements\n");
    char yaml[4096];
    snprintf(yaml, sizeof yaml, HEAD "    - MeshGmshLoader: {name: l, filename: \"%s\"}\n", path);
    st_scene *s = topo_scene(&T, yaml);
    static const char *const tet[] = {"", "", "-1", "0", "1", "", "", "-1", "1", "1"};
    assert_groups(topo_get(s, "l"), "tetrahedraGroups", tet, 2);
    st_scene_destroy(&s);
}

static const double *ym_of(st_scene *s, size_t n)
{
    st_component *e = topo_get(s, "ym");
    st_error err = {0};
    cr_assert_eq(st_component_refresh(e, &err), ST_OK, "%s", err.msg);
    const st_array *y = topo_arr(e, "youngModulus");
    cr_assert_eq(y->n, n, "youngModulus has %zu values, want %zu", y->n, n);
    return y->r;
}

static st_scene *filter_scene(const char *loader, const char *file, const char *text,
                              const char *engine)
{
    const char *path = test_write_temp(file, text);
    static char yaml[8192];
    snprintf(yaml, sizeof yaml,
             HEAD "    - %s: {name: l, filename: \"%s\"}\n"
                  "    - GroupFilterYoungModulus: {name: ym, %s}\n",
             loader, path, engine);
    return topo_scene(&T, yaml);
}

Test(group_filter_ym, moduli_by_group_name)
{
    /* "top" names the first top group (faces 1..3): youngModulus has
     * p0 + nbp of the last named group = 6 values */
    st_scene *s = filter_scene("MeshOBJLoader", "f1.obj", OBJ,
                               "groups: \"@l.trianglesGroups\","
                               " mapGroupModulus: \"bottom part 500;top 300;\"");
    /* "bottom part 500" reads the name "bottom" and no number: SOFA's
     * parsing error, skipped */
    const double *y = ym_of(s, 4);
    const double want[4] = {10000, 300, 300, 300};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(y[i], want[i], "youngModulus[%d] = %g, want %g", i, y[i], want[i]);
    st_scene_destroy(&s);

    s = filter_scene("MeshOBJLoader", "f2.obj", OBJ,
                     "groups: \"@l.trianglesGroups\", defaultYoungModulus: 7,"
                     " primitives: [0,1,2,3,4,5,6,7], mapGroupModulus: \"Default_Group 2;top 3\"");
    /* the last item has no ';': not read; 8 primitives set the size */
    y = ym_of(s, 8);
    const double want2[8] = {2, 7, 7, 7, 7, 7, 7, 7};
    for (int i = 0; i < 8; i++)
        cr_assert_eq(y[i], want2[i], "youngModulus[%d] = %g, want %g", i, y[i], want2[i]);
    st_scene_destroy(&s);
}

Test(group_filter_ym, moduli_by_group_list_and_by_element_groups)
{
    st_scene *s = filter_scene("MeshGmshLoader", "f3.msh", MSH,
                               "groups: \"@l.tetrahedraGroups\", groupModulus: [100]");
    /* group 0: 3 elements at 100; group 1: past groupModulus, the default */
    const double *y = ym_of(s, 4);
    const double want[4] = {100, 100, 100, 10000};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(y[i], want[i], "youngModulus[%d] = %g, want %g", i, y[i], want[i]);
    st_scene_destroy(&s);

    s = filter_scene("MeshGmshLoader", "f4.msh", MSH,
                     "elementsGroup: [0, 2, 1, 5], mapGroupModulus: \"0 10;2 30;\"");
    y = ym_of(s, 4);
    const double want2[4] = {10, 30, 0, 10000};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(y[i], want2[i], "youngModulus[%d] = %g, want %g", i, y[i], want2[i]);
    st_scene_destroy(&s);
}

Test(group_filter_ym, malformed_groups_are_refused)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "    - GroupFilterYoungModulus: {name: ym, groups: [a, b, -1, 0],"
                  " mapGroupModulus: \"a 1;\"}\n");
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "a group is five"), "%s", err.msg);
}
