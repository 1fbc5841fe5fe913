/* test_topology_changes.c - topological changes in the kernel and the
 * dynamic containers (settee/topology.h): SOFA's renumbering of each
 * removal worked by hand on small meshes, isolated sub-elements and points,
 * the MechanicalObject's vectors, the kernel's follow / subset / vertices /
 * listen records (through a test class), the refusal of a change that a
 * component holding element data does not follow, and
 * TopologicalChangeProcessor: SOFA's file blocks and its errors at the
 * file's line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "topo_support.h"

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  dt: 0.01\n"                                                                                \
    "  gravity: [0, 0, 0]\n"                                                                      \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Topology, Topology.Utility]}\n"                          \
    "    - DefaultAnimationLoop: {}\n"                                                            \
    "  children:\n"                                                                               \
    "    - name: Body\n"                                                                          \
    "      objects:\n"

static const st_array *list(st_scene *s, const char *path, const char *field)
{
    st_component *c = topo_get(s, path);
    const st_field *f = st_component_field(c, field);
    cr_assert(f, "%s has no field %s", path, field);
    return st_component_field_ptr(c, f);
}

static void assert_uints(const st_array *a, unsigned width, const unsigned *want, size_t n,
                         const char *what)
{
    cr_assert_eq(a->n, n, "%s: %zu tuples, want %zu", what, a->n, n);
    for (size_t i = 0; i < n * width; i++)
        cr_assert_eq(a->u[i], want[i], "%s[%zu][%zu] = %u, want %u", what, i / width, i % width,
                     a->u[i], want[i]);
}

static void remove_ok(st_scene *s, const char *topo, st_elem e, const unsigned *ids, size_t n)
{
    st_error err = {0};
    cr_assert_eq(st_topology_remove(topo_get(s, topo), e, ids, n, &err), ST_OK, "%s: %s",
                 err.path, err.msg);
}

/* Six points, four triangles: 0-1-2 along y = 0, 3-4-5 along y = 1. */
#define STRIP                                                                                     \
    "        - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0],[2,0,0],[0,1,0],"         \
    "[1,1,0],[2,1,0]], velocity: [[0,0,0],[1,0,0],[2,0,0],[3,0,0],[4,0,0],[5,0,0]]}\n"          \
    "        - TriangleSetTopologyContainer: {name: topo, triangles: [[0,1,4],[0,4,3],[1,2,5],"   \
    "[1,5,4]]}\n"                                                                                 \
    "        - TriangleSetTopologyModifier: {}\n"

Test(topology_changes, triangles_removed_as_sofa_renumbers_them)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = topo_scene(&t, HEAD STRIP);
    /* Edges derived at init, SOFA's order. */
    static const unsigned edges0[] = {1, 4, 4, 0, 0, 1, 4, 3, 3, 0, 2, 5, 5, 1, 1, 2, 5, 4};
    assert_uints(list(s, "/Body/topo", "edges"), 2, edges0, 9, "edges at init");
    unsigned long rev = st_topology_revision(topo_get(s, "/Body/topo"));

    /* Remove triangles 0 and 2 (given in any order): sorted 2, 0; the last
     * triangle fills 2, then [1 5 4] (now at 2) fills 0. Edges 2, 5 and 7
     * lose their triangles: removed 7, 5, 2 (the last edge fills each
     * hole). Point 2 loses its triangles: point 5 takes its place. */
    const unsigned ids[] = {0, 2};
    remove_ok(s, "/Body/topo", ST_ELEM_TRIANGLE, ids, 2);
    static const unsigned tris[] = {1, 2, 4, 0, 4, 3};
    assert_uints(list(s, "/Body/topo", "triangles"), 3, tris, 2, "triangles");
    static const unsigned edges[] = {1, 4, 4, 0, 2, 1, 4, 3, 3, 0, 2, 4};
    assert_uints(list(s, "/Body/topo", "edges"), 2, edges, 6, "edges");
    cr_assert_eq(st_topology_revision(topo_get(s, "/Body/topo")), rev + 1);

    /* The state follows its topology's points. */
    st_mstate *ms = st_node_mstate(topo_get(s, "/Body/dofs")->node);
    cr_assert_eq(ms->n, 5);
    cr_assert_eq(ms->position.n, 5);
    static const double px[] = {0, 1, 2, 0, 1}, py[] = {0, 0, 1, 1, 1}, vx[] = {0, 1, 5, 3, 4};
    for (size_t i = 0; i < 5; i++) {
        cr_assert_eq(ms->position.r[3 * i], px[i], "x[%zu]", i);
        cr_assert_eq(ms->position.r[3 * i + 1], py[i], "y[%zu]", i);
        cr_assert_eq(ms->velocity.r[3 * i], vx[i], "v[%zu]", i);
    }
    cr_assert_eq(ms->rest_position.n, 5);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(topology_changes, out_of_range_ids_are_skipped_with_sofa_s_warning)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = topo_scene(&t, HEAD STRIP);
    const unsigned ids[] = {7, 3, 3};
    remove_ok(s, "/Body/topo", ST_ELEM_TRIANGLE, ids, 3);
    cr_assert(strstr(t.log, "triangles 7 is out of bound"), "%s", t.log);
    /* Triangle 3, the last, goes; the repeated 3 no longer exists by its
     * turn (SOFA would read past its array): skipped, with a warning.
     * Points 1, 5 and 4 keep triangles. */
    cr_assert(strstr(t.log, "triangles 3 no longer exists after the removals before it"), "%s",
              t.log);
    static const unsigned tris[] = {0, 1, 4, 0, 4, 3, 1, 2, 5};
    assert_uints(list(s, "/Body/topo", "triangles"), 3, tris, 3, "triangles");
    cr_assert_eq(st_node_mstate(topo_get(s, "/Body/dofs")->node)->n, 6,
                 "point 5 still belongs to triangle 2");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Two tetrahedra sharing the face 1 2 3. */
#define TWO_TETS                                                                                  \
    "        - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0],[0,1,0],[0,0,1],"         \
    "[1,1,1]]}\n"                                                                                 \
    "        - TetrahedronSetTopologyContainer: {name: topo, tetrahedra: [[0,1,2,3],[1,2,3,4]]}\n" \
    "        - TetrahedronSetTopologyModifier: {}\n"

static bool has_tuple(const st_array *a, unsigned w, const unsigned *key)
{
    for (size_t i = 0; i < a->n; i++) {
        unsigned v[8], k[8];
        memcpy(v, a->u + i * w, w * sizeof *v);
        memcpy(k, key, w * sizeof *k);
        for (unsigned x = 0; x < w; x++) /* compare as sets */
            for (unsigned y = x + 1; y < w; y++) {
                if (v[y] < v[x]) {
                    unsigned tmp = v[x];
                    v[x] = v[y];
                    v[y] = tmp;
                }
                if (k[y] < k[x]) {
                    unsigned tmp = k[x];
                    k[x] = k[y];
                    k[y] = tmp;
                }
            }
        if (!memcmp(v, k, w * sizeof *v))
            return true;
    }
    return false;
}

Test(topology_changes, tetrahedron_removal_takes_its_isolated_faces_edges_and_point)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = topo_scene(&t, HEAD TWO_TETS);
    cr_assert_eq(list(s, "/Body/topo", "triangles")->n, 7);
    cr_assert_eq(list(s, "/Body/topo", "edges")->n, 9);
    const unsigned ids[] = {0};
    remove_ok(s, "/Body/topo", ST_ELEM_TETRAHEDRON, ids, 1);
    /* The last tetrahedron fills 0; point 0 (used by no tetrahedron now) is
     * removed and point 4, the last, takes its index. */
    static const unsigned tets[] = {1, 2, 3, 0};
    assert_uints(list(s, "/Body/topo", "tetrahedra"), 4, tets, 1, "tetrahedra");
    /* The faces and edges only the first tetrahedron had are gone: the
     * second's four faces and six edges remain, renumbered (4 -> 0). */
    const st_array *tri = list(s, "/Body/topo", "triangles"), *ed = list(s, "/Body/topo", "edges");
    cr_assert_eq(tri->n, 4);
    cr_assert_eq(ed->n, 6);
    static const unsigned faces[4][3] = {{1, 2, 3}, {1, 2, 0}, {1, 3, 0}, {2, 3, 0}};
    for (int f = 0; f < 4; f++)
        cr_assert(has_tuple(tri, 3, faces[f]), "face %u %u %u", faces[f][0], faces[f][1],
                  faces[f][2]);
    static const unsigned pairs[6][2] = {{1, 2}, {1, 3}, {2, 3}, {1, 0}, {2, 0}, {3, 0}};
    for (int e = 0; e < 6; e++)
        cr_assert(has_tuple(ed, 2, pairs[e]), "edge %u %u", pairs[e][0], pairs[e][1]);
    st_mstate *ms = st_node_mstate(topo_get(s, "/Body/dofs")->node);
    cr_assert_eq(ms->n, 4);
    cr_assert_eq(ms->position.r[0], 1.0, "point 0 is the former point 4 (1 1 1)");
    cr_assert_eq(ms->position.r[1], 1.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Two hexahedra side by side (x = 0..2), points 0-5 at z = 0, 6-11 at z = 1. */
#define TWO_HEXAS                                                                                 \
    "        - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0],[2,0,0],[0,1,0],"         \
    "[1,1,0],[2,1,0],[0,0,1],[1,0,1],[2,0,1],[0,1,1],[1,1,1],[2,1,1]]}\n"                       \
    "        - HexahedronSetTopologyContainer: {name: topo, hexahedra: [[0,1,4,3,6,7,10,9],"      \
    "[1,2,5,4,7,8,11,10]]}\n"                                                                     \
    "        - HexahedronSetTopologyModifier: {}\n"

Test(topology_changes, hexahedron_removal_keeps_the_shared_quad)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = topo_scene(&t, HEAD TWO_HEXAS);
    cr_assert_eq(list(s, "/Body/topo", "quads")->n, 11);
    cr_assert_eq(list(s, "/Body/topo", "edges")->n, 20);
    const unsigned ids[] = {1};
    remove_ok(s, "/Body/topo", ST_ELEM_HEXAHEDRON, ids, 1);
    /* Hexahedron 1 was the last: nothing moves in the list. Its five own
     * quads, eight own edges and points 11 8 5 2 go, in that order, each
     * replaced by the then-last point: 11 by itself, 8 by 10, 5 by 9, 2 by
     * 8 (formerly 10). */
    static const unsigned hex[] = {0, 1, 4, 3, 6, 7, 2, 5};
    assert_uints(list(s, "/Body/topo", "hexahedra"), 8, hex, 1, "hexahedra");
    cr_assert_eq(list(s, "/Body/topo", "quads")->n, 6);
    cr_assert_eq(list(s, "/Body/topo", "edges")->n, 12);
    const unsigned shared[] = {1, 4, 2, 7};
    cr_assert(has_tuple(list(s, "/Body/topo", "quads"), 4, shared), "the shared face stays");
    cr_assert_eq(st_node_mstate(topo_get(s, "/Body/dofs")->node)->n, 8);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* An edge list that holds one edge twice (as a grid's edges, diagonals
 * included, become once point removals renumber the diagonals): the
 * isolated edges are still found by their place in the list. Quads
 * (0 1 4 3) (1 2 5 4), edges [0 1] [1 0] [1 4] [4 3] [3 0] [1 2] [2 5]
 * [5 4]: removing quad 1 isolates edges 7 6 5 and points 5, 2 (4 takes
 * 2's place). */
Test(topology_changes, isolated_edges_found_in_a_list_with_a_repeated_edge)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = topo_scene(
        &t, HEAD "        - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0],[2,0,0],"
                 "[0,1,0],[1,1,0],[2,1,0]]}\n"
                 "        - QuadSetTopologyContainer: {name: topo, quads: [[0,1,4,3],[1,2,5,4]], "
                 "edges: [[0,1],[1,0],[1,4],[4,3],[3,0],[1,2],[2,5],[5,4]]}\n"
                 "        - QuadSetTopologyModifier: {}\n");
    remove_ok(s, "/Body/topo", ST_ELEM_QUAD, (const unsigned[]){1}, 1);
    static const unsigned edges[] = {0, 1, 1, 0, 1, 2, 2, 3, 3, 0};
    assert_uints(list(s, "/Body/topo", "edges"), 2, edges, 5, "edges");
    static const unsigned quads[] = {0, 1, 2, 3};
    assert_uints(list(s, "/Body/topo", "quads"), 4, quads, 1, "quads");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(topology_changes, a_repeated_id_removes_the_element_that_moved_there)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = topo_scene(&t, HEAD STRIP);
    /* As SOFA: [0 0] removes triangle 0, whose place [1 5 4] takes, then
     * [1 5 4] itself, whose place [1 2 5] takes. Edges 0 1 and, with the
     * second, 5 4 and 4 1 lose their last triangle: removed 8, 2, 0. */
    const unsigned ids[] = {0, 0};
    remove_ok(s, "/Body/topo", ST_ELEM_TRIANGLE, ids, 2);
    static const unsigned tris[] = {1, 2, 5, 0, 4, 3};
    assert_uints(list(s, "/Body/topo", "triangles"), 3, tris, 2, "triangles");
    static const unsigned edges[] = {5, 1, 4, 0, 1, 2, 4, 3, 3, 0, 2, 5};
    assert_uints(list(s, "/Body/topo", "edges"), 2, edges, 6, "edges");
    cr_assert_eq(st_node_mstate(topo_get(s, "/Body/dofs")->node)->n, 6, "no point isolated");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(topology_changes, sub_elements_of_remaining_elements_cannot_go)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = topo_scene(&t, HEAD TWO_TETS);
    st_error err = {0};
    const unsigned ids[] = {0};
    cr_assert_eq(st_topology_remove(topo_get(s, "/Body/topo"), ST_ELEM_TRIANGLE, ids, 1, &err),
                 ST_EINVAL);
    cr_assert(strstr(err.msg, "holds tetrahedra made of its triangles: remove the tetrahedra "
                              "instead"),
              "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(topology_changes, points_in_use_are_not_removed)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = topo_scene(&t, HEAD STRIP);
    st_error err = {0};
    const unsigned ids[] = {4};
    cr_assert_eq(st_topology_remove(topo_get(s, "/Body/topo"), ST_ELEM_POINT, ids, 1, &err),
                 ST_EINVAL);
    cr_assert(strstr(err.msg, "point 4 is used by"), "%s", err.msg);
    cr_assert_eq(list(s, "/Body/topo", "triangles")->n, 4, "nothing changed");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(topology_changes, static_topologies_cannot_change)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = topo_scene(&t, HEAD
                             "        - MechanicalObject: {name: dofs}\n"
                             "        - RegularGridTopology: {name: topo, n: [2, 2, 2], min: "
                             "[0, 0, 0], max: [1, 1, 1]}\n");
    st_error err = {0};
    const unsigned ids[] = {0};
    cr_assert_eq(st_topology_remove(topo_get(s, "/Body/topo"), ST_ELEM_HEXAHEDRON, ids, 1, &err),
                 ST_EINVAL);
    cr_assert(strstr(err.msg, "RegularGridTopology cannot change while the scene runs"), "%s",
              err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- the kernel's records, through a test class ---- */

typedef struct item {
    double area;
    unsigned id;
} item;

typedef struct follower {
    st_component base;
    st_component *topology;
    st_array values;  /* one real per triangle (follow_field) */
    st_array subset;  /* point indices (follow_subset) */
    st_array ends;    /* point indices (follow_vertices) */
    item *items;      /* one per triangle (follow) */
    size_t nitems;
    unsigned created, destroyed, heard, events;
} follower;

static const st_field follower_fields[] = {
    ST_LINK(follower, topology, "topology", ST_LINK_TOPOLOGY, "the topology followed"),
    ST_REALS(follower, values, "values", NULL, "per triangle"),
    ST_UINTS(follower, subset, "subset", NULL, "some points"),
    ST_UINTS(follower, ends, "ends", NULL, "point indices"),
    ST_FIELD_END};

static void item_destroy(void *ud, size_t i, void *it)
{
    (void)i, (void)it;
    ((follower *)ud)->destroyed++;
}

static const st_topo_follow_ops item_ops = {sizeof(st_topo_follow_ops), item_destroy, NULL};

static st_status heard(st_component *self, st_component *topology, const st_topo_event *ev,
                       size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)err;
    follower *f = (follower *)self;
    f->heard++;
    f->events += (unsigned)nev;
    return ST_OK;
}

static st_status follower_init(st_component *self, st_error *err)
{
    follower *f = (follower *)self;
    f->nitems = f->values.n;
    f->items = st_calloc(f->nitems ? f->nitems : 1, sizeof *f->items);
    for (size_t i = 0; i < f->nitems; i++)
        f->items[i].id = (unsigned)i;
    ST_TRY(st_topology_follow(self, f->topology, ST_ELEM_TRIANGLE, (void **)&f->items, &f->nitems,
                              sizeof *f->items, &item_ops, f, err));
    ST_TRY(st_topology_follow_field(self, "values", f->topology, ST_ELEM_TRIANGLE, NULL, NULL,
                                    err));
    ST_TRY(st_topology_follow_subset(self, "subset", f->topology, ST_ELEM_POINT, err));
    ST_TRY(st_topology_follow_vertices(self, "ends", f->topology, err));
    return st_topology_listen(self, f->topology, heard, err);
}

static void follower_cleanup(st_component *self) { st_free(((follower *)self)->items); }

/* A force field role makes it a component that must follow (it does). */
static void ff_noop(st_component *self, const st_mparams *mp, double *f, const double *x,
                    const double *v)
{
    (void)self, (void)mp, (void)f, (void)x, (void)v;
}

static const st_forcefield_ops follower_ff = {.struct_size = sizeof(st_forcefield_ops),
                                              .add_force = ff_noop};

static const st_class follower_class = {
    .struct_size = sizeof(st_class),
    .name = "TestFollower",
    .category = "ForceField",
    .description = "follows a topology (test)",
    .instance_size = sizeof(follower),
    .fields = follower_fields,
    .init = follower_init,
    .cleanup = follower_cleanup,
    .forcefield = &follower_ff,
};

static const st_class lazy_class = {
    .struct_size = sizeof(st_class),
    .name = "TestLazy",
    .category = "ForceField",
    .description = "holds element data and does not follow (test)",
    .instance_size = sizeof(st_component),
    .forcefield = &follower_ff,
};

Test(topology_changes, kernel_renumbers_followed_arrays_subsets_and_vertex_indices)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(t.rt), &follower_class, &err), ST_OK, "%s",
                 err.msg);
    st_scene *s = topo_scene(&t, HEAD STRIP
                             "        - TestFollower: {name: f, topology: '@topo', values: [10, "
                             "11, 12, 13], subset: [5, 2, 0, 4, 2], ends: [5, 4, 1, 5]}\n");
    follower *f = (follower *)topo_get(s, "/Body/f");
    const unsigned ids[] = {0, 2};
    remove_ok(s, "/Body/topo", ST_ELEM_TRIANGLE, ids, 2);
    /* Triangles 2 then 0 go, the last filling each hole: values 13, 11. */
    cr_assert_eq(f->values.n, 2);
    cr_assert_eq(f->values.r[0], 13.0);
    cr_assert_eq(f->values.r[1], 11.0);
    cr_assert_eq(f->nitems, 2);
    cr_assert_eq(f->items[0].id, 3);
    cr_assert_eq(f->items[1].id, 1);
    cr_assert_eq(f->destroyed, 2);
    /* Point 2 goes, point 5 takes its place: the subset drops every 2
     * (keeping its order) and renames 5 as 2 (SOFA's TopologySubsetIndices);
     * the vertex indices rename 5 as 2. */
    static const unsigned subset[] = {2, 0, 4};
    assert_uints(&f->subset, 1, subset, 3, "subset");
    static const unsigned ends[] = {2, 4, 1, 2};
    assert_uints(&f->ends, 1, ends, 4, "ends");
    /* One change, heard once with its three events (triangles, edges, point). */
    cr_assert_eq(f->heard, 1);
    cr_assert_eq(f->events, 3);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(topology_changes, a_component_that_does_not_follow_makes_the_change_an_error)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(t.rt), &lazy_class, &err), ST_OK, "%s",
                 err.msg);
    st_scene *s = topo_scene(&t, HEAD STRIP "        - TestLazy: {name: lazy}\n");
    const unsigned ids[] = {0};
    cr_assert_eq(st_topology_remove(topo_get(s, "/Body/topo"), ST_ELEM_TRIANGLE, ids, 1, &err),
                 ST_ESCENE);
    cr_assert(strstr(err.msg, "/Body/lazy (TestLazy) may hold data indexed by this topology"),
              "%s", err.msg);
    cr_assert_eq(list(s, "/Body/topo", "triangles")->n, 4, "nothing changed");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- TopologicalChangeProcessor ---- */

static char *run_with_file(const char *scene_objects, const char *changes, int steps, int *rc)
{
    char dir[512], path[1024], scene[4096], cmd[2048];
    static char out[16384];
    test_make_dir(dir, sizeof dir, "tcp");
    snprintf(path, sizeof path, "%s/changes.txt", dir);
    FILE *fc = fopen(path, "w");
    cr_assert(fc);
    fputs(changes, fc);
    fclose(fc);
    snprintf(scene, sizeof scene, "%s%s        - TopologicalChangeProcessor: {filename: "
                                  "changes.txt}\n",
             HEAD, scene_objects);
    snprintf(path, sizeof path, "%s/scene.yaml", dir);
    FILE *fs = fopen(path, "w");
    cr_assert(fs);
    fputs(scene, fs);
    fclose(fs);
    snprintf(cmd, sizeof cmd,
             "SETTEE_PLUGIN_PATH=%s %s run '%s' -n %d --no-progress --export-state '%s/out.json'",
             SETTEE_BUILD_PLUGIN_DIR, SETTEE_CLI, path, steps, dir);
    *rc = test_run(cmd, out, sizeof out);
    char json[1024];
    snprintf(json, sizeof json, "%s/out.json", dir);
    char *state = test_read_file(json);
    if (state) {
        strncat(out, "\n", sizeof out - strlen(out) - 1);
        strncat(out, state, sizeof out - strlen(out) - 1);
        free(state);
    }
    test_remove_dir(dir);
    return out;
}

Test(topology_changes, processor_runs_the_last_block_reached_at_each_step)
{
    int rc;
    /* Steps begin at t = 0, 0.01, 0.02. At 0.01 the blocks T= 0.005 and
     * T= 0.01 are both reached: SOFA runs the last one only (triangle 3). */
    char *out = run_with_file(STRIP, "# comment\nT= 0.005\nREMOVE= 1\n0\nT= 0.01\nREMOVE= 1\n3\n"
                                     "T= 0.02\nREMOVE= 1\n1\n",
                              3, &rc);
    cr_assert_eq(rc, 0, "%s", out);
    /* 3 then 1 removed: removing 3 ([1 5 4]) isolates nothing; removing 1
     * ([0 4 3]) lets the last, [1 2 5], fill it and isolates point 3, whose
     * place point 5 takes. */
    cr_assert(strstr(out, "\"triangles\": [[0, 1, 4], [1, 2, 3]]"), "%s", out);
}

Test(topology_changes, processor_errors_at_the_file_s_line)
{
    static const struct {
        const char *file, *want;
    } cases[] = {
        {"T= 0.01\nREMOVE= 1\nx\n", "changes.txt:3: 'x' is not an element index"},
        {"T= 0.02\nREMOVE= 1\n0\nT= 0.01\n", "changes.txt:4: T= 0.01 is earlier than the time "
                                             "0.02 of line 1"},
        {"T= soon\n", "changes.txt:1: 'T=' needs a finite time, found 'soon'"},
        {"T= 0.01\nREMOVEE= 1\n0\n", "changes.txt:2: unknown command 'REMOVEE='"},
        {"T= 0.01\nADD= PointsInTriangle 2\n0 0.2 0.2\n",
         "changes.txt:3: ADD= announced 6 values (a triangle and two coordinates per point), "
         "but this line holds 3"},
        {"T= 0.01\nADD= PointsInTriangle 1\n0 0.2 x\n",
         "changes.txt:3: 'x' is not a barycentric coordinate"},
        {"T= 0.01\nADD= PointsInTriangle 1\n9 0.2 0.2\n",
         "changes.txt:3: ADD= PointsInTriangle names triangle 9, but 'topo' has 4 triangles"},
        {"T= 0.01\nADD= Tetrahedra 1\n0 1 2 3\n", "the file adds tetrahedra, but no modifier "
                                                  "of them is beside the topology"},
        {"T= 0.01\nADD= Triangles 2\n0 1 2\n", "changes.txt:3: ADD= announced 6 vertex "
                                              "indices, but this line holds 3"},
        {"T= 0.01\nADD= Bricks 1\n0 1 2\n", "changes.txt:2: 'ADD=' needs an element type"},
        {"T= 0.01\nADD= Triangles 1\n0 1 9\n", "changes.txt:3: ADD= names point 9, but the "
                                              "state has 6 points"},
        {"T= 0.01\nINCISE= 1\n0 0 0\n",
         "changes.txt:2: 'INCISE=' needs the number of points of the path"},
        {"T= 0.01\nREMOVE= 1", "changes.txt:2: 'REMOVE=' must be followed by a line of "
                              "indices"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc;
        char *out = run_with_file(STRIP, cases[i].file, 2, &rc);
        cr_assert_neq(rc, 0, "case %zu: %s", i, out);
        cr_assert(strstr(out, cases[i].want), "case %zu: want '%s' in:\n%s", i, cases[i].want,
                  out);
    }
}

/* ADD= Triangles: SOFA's addTriangles appends the triangles after the edges
 * they need that the container lacks: [1 2 4] needs (2,4) (oriented from
 * its vertex 1, as first met), [2 5 4] needs none more. */
Test(topology_changes, processor_adds_triangles_as_sofa_does)
{
    int rc;
    char *out = run_with_file(STRIP, "T= 0.01\nADD= Triangles 2\n1 2 4 2 5 4\n", 2, &rc);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "\"triangles\": [[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4], "
                          "[1, 2, 4], [2, 5, 4]]"),
              "%s", out);
    cr_assert(strstr(out, "\"edges\": [[1, 4], [4, 0], [0, 1], [4, 3], [3, 0], [2, 5], [5, 1], "
                          "[1, 2], [5, 4], [2, 4]]"),
              "%s", out);
}

/* ADD= Tetrahedra (SOFA's addTetrahedra) on a cube corner: points 0 (0,0,0)
 * 1 (1,0,0) 2 (0,1,0) 3 (0,0,1) 4 (1,1,1), no element at first. Adding
 * A = (0 1 2 3) then B = (1 2 3 4), each face slot in SOFA's orientation
 * (1 2 3) (0 3 2) (1 3 0) (0 2 1) created when missing, each face's missing
 * edges (f1 f2) (f2 f0) (f0 f1) before it:
 * A: (1 2 3) [2 3] [3 1] [1 2]; (0 3 2) [3 2]=old [2 0] [0 3]; (1 3 0)
 *    [3 0]=old [0 1]; (0 2 1): all edges known.
 * B = (1 2 3 4): (2 3 4) [3 4] [4 2]; (1 4 3) [1 4]; (2 4 1); (1 3 2) is
 *    A's (1 2 3): not added. */
#define CORNER                                                                                    \
    "        - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0],[0,1,0],[0,0,1],"         \
    "[1,1,1]]}\n"                                                                                 \
    "        - TetrahedronSetTopologyContainer: {name: topo}\n"                                   \
    "        - TetrahedronSetTopologyModifier: {}\n"
Test(topology_changes, processor_adds_tetrahedra_as_sofa_does)
{
    int rc;
    char *out = run_with_file(CORNER, "T= 0.01\nADD= Tetrahedra 1\n0 1 2 3\n"
                                      "T= 0.02\nADD= Tetrahedra 1\n1 2 3 4\n",
                              3, &rc);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "\"tetrahedra\": [[0, 1, 2, 3], [1, 2, 3, 4]]"), "%s", out);
    cr_assert(strstr(out, "\"triangles\": [[1, 2, 3], [0, 3, 2], [1, 3, 0], [0, 2, 1], "
                          "[2, 3, 4], [1, 4, 3], [2, 4, 1]]"),
              "%s", out);
    cr_assert(strstr(out, "\"edges\": [[2, 3], [3, 1], [1, 2], [2, 0], [0, 3], [0, 1], [3, 4], "
                          "[4, 2], [1, 4]]"),
              "%s", out);
}

/* ADD= Hexahedra (SOFA's addHexahedra): points x + 3y + 6z (x 0..2, y, z
 * 0..1); H0 = (0 1 4 3 6 7 10 9), then H1 = (1 2 5 4 7 8 11 10). Each quad
 * slot in SOFA's orientation (0 3 2 1) (4 5 6 7) (0 1 5 4) (1 2 6 5)
 * (2 3 7 6) (3 0 4 7), its missing edges (q1 q2) (q2 q3) (q3 q0) (q0 q1)
 * first. H1's slots: (1 4 5 2) [4 5] [5 2] [2 1]; (7 8 11 10) [8 11]
 * [11 10] [7 8]; (1 2 8 7) [2 8]; (2 5 11 8) [5 11]; (5 4 10 11); its
 * slot 5 (4 1 7 10) is H0's slot 3: not added. */
#define BAR                                                                                       \
    "        - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0],[2,0,0],[0,1,0],"         \
    "[1,1,0],[2,1,0],[0,0,1],[1,0,1],[2,0,1],[0,1,1],[1,1,1],[2,1,1]]}\n"                          \
    "        - HexahedronSetTopologyContainer: {name: topo}\n"                                    \
    "        - HexahedronSetTopologyModifier: {}\n"
Test(topology_changes, processor_adds_hexahedra_as_sofa_does)
{
    int rc;
    char *out = run_with_file(BAR, "T= 0.01\nADD= Hexahedra 2\n0 1 4 3 6 7 10 9  "
                                   "1 2 5 4 7 8 11 10\n",
                              2, &rc);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "\"quads\": [[0, 3, 4, 1], [6, 7, 10, 9], [0, 1, 7, 6], "
                          "[1, 4, 10, 7], [4, 3, 9, 10], [3, 0, 6, 9], [1, 4, 5, 2], "
                          "[7, 8, 11, 10], [1, 2, 8, 7], [2, 5, 11, 8], [5, 4, 10, 11]]"),
              "%s", out);
    cr_assert(strstr(out, "\"edges\": [[3, 4], [4, 1], [1, 0], [0, 3], [7, 10], [10, 9], "
                          "[9, 6], [6, 7], [1, 7], [6, 0], [4, 10], [3, 9], "
                          "[4, 5], [5, 2], [2, 1], [8, 11], [11, 10], [7, 8], [2, 8], [5, 11]]"),
              "%s", out);
}

/* ADD= PointsInTriangle (SOFA's addPoints with the triangle's vertices as
 * ancestors): in triangle 0 = (0 1 4) at (0.5, 0.25), weights 0.5 0.25
 * 0.25: position (0.5, 0.25, 0), velocity (0.25 * 1 + 0.25 * 4, 0, 0) =
 * (1.25, 0, 0); in triangle 2 = (1 2 5) at (0, 1): point 2 itself. The
 * state and the container have 8 points; no element changes. */
Test(topology_changes, processor_adds_points_in_triangles_as_sofa_does)
{
    int rc;
    char *out = run_with_file(STRIP, "T= 0.01\nADD= PointsInTriangle 2\n0 0.5 0.25  2 0 1\n", 2,
                              &rc);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "[2, 1, 0],\n    [0.5, 0.25, 0],\n    [2, 0, 0]\n  ]"), "%s",
              out);
    cr_assert(strstr(out, "[5, 0, 0],\n    [1.25, 0, 0],\n    [2, 0, 0]\n  ]"), "%s", out);
    cr_assert(strstr(out, "\"triangles\": [[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4]]"), "%s",
              out);
}

Test(topology_changes, processor_reads_a_short_index_line_as_sofa_does)
{
    int rc;
    /* SOFA's stream leaves the missing value at 0: 1 and 0 are removed. */
    char *out = run_with_file(STRIP, "T= 0.01\nREMOVE= 2\n1\n", 2, &rc);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "changes.txt:3: REMOVE= announced 2 indices, but this line holds 1: as "
                          "SOFA, the missing ones read as 0"),
              "%s", out);
    /* 1 then 0 removed: [0 4 3] goes ([1 5 4] fills it), then [0 1 4]
     * ([1 2 5] fills it); points 3 and 0 are isolated: 3 goes (5 takes its
     * index), then 0 (4 takes it). */
    cr_assert(strstr(out, "\"triangles\": [[1, 2, 3], [1, 3, 0]]"), "%s", out);
}

Test(topology_changes, processor_warns_about_out_of_bound_ids_at_the_line)
{
    int rc;
    char *out = run_with_file(STRIP, "T= 0\nREMOVE= 2\n9 0\n", 1, &rc);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "changes.txt:2: 1 of the 2 triangles to remove are out of bound (the "
                          "first: 9; topo holds 4)"),
              "%s", out);
}

Test(topology_changes, processor_data_inputs_remove_once_at_time_to_remove)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = topo_scene(&t, HEAD STRIP
                             "        - TopologicalChangeProcessor: {useDataInputs: true, "
                             "timeToRemove: 0.005, trianglesToRemove: [3]}\n");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg); /* t = 0: not yet */
    cr_assert_eq(list(s, "/Body/topo", "triangles")->n, 4);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg); /* t = 0.01 > 0.005 */
    cr_assert_eq(list(s, "/Body/topo", "triangles")->n, 3);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg); /* never again */
    cr_assert_eq(list(s, "/Body/topo", "triangles")->n, 3);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- checkpoints and output across a change ---- */

static int run_cli(const char *dir, const char *args, char *out, size_t size)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && SETTEE_PLUGIN_PATH=%s %s run scene.yaml --no-progress %s",
             dir, SETTEE_BUILD_PLUGIN_DIR, SETTEE_CLI, args);
    return test_run(cmd, out, size);
}

static void write_in(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

Test(topology_changes, checkpoint_across_a_change_resumes_bit_identically)
{
    char dir[512], out[8192];
    test_make_dir(dir, sizeof dir, "tcck");
    write_in(dir, "scene.yaml",
             HEAD STRIP "        - TopologicalChangeProcessor: {filename: changes.txt}\n");
    write_in(dir, "changes.txt", "T= 0.01\nREMOVE= 2\n2 0\nT= 0.03\nREMOVE= 1\n1\n");
    cr_assert_eq(run_cli(dir, "-n 5 --export-state full.json", out, sizeof out), 0, "%s", out);
    /* The checkpoint is taken after the first change, before the second. */
    cr_assert_eq(run_cli(dir, "-n 2 --checkpoint ck.bin", out, sizeof out), 0, "%s", out);
    cr_assert_eq(run_cli(dir, "-n 5 --resume ck.bin --export-state resumed.json", out, sizeof out),
                 0, "%s", out);
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/full.json", dir);
    snprintf(b, sizeof b, "%s/resumed.json", dir);
    char *fa = test_read_file(a), *fb = test_read_file(b);
    cr_assert(fa && fb);
    cr_assert_str_eq(fa, fb);
    /* Both removals happened once: [1 2 4] [0 4 3] after the first; the
     * second removes [0 4 3] and its points 3 and 0 (4 takes 3's index,
     * then 3, formerly 4, takes 0's). */
    cr_assert(strstr(fa, "\"triangles\": [[1, 2, 0]]"), "%s", fa);
    free(fa);
    free(fb);
    test_remove_dir(dir);
}

/* Additions across a checkpoint: tetrahedra added before and after it, a
 * Tetra2Triangle output, a corotational FEM and a consistent mass. The
 * mapping's copies of its input are made again when the checkpoint is
 * read: the resumed run ends as the uninterrupted one, byte for byte. */
Test(topology_changes, checkpoint_across_additions_resumes_bit_identically)
{
    char dir[512], out[8192];
    test_make_dir(dir, sizeof dir, "tcckadd");
    write_in(dir, "scene.yaml",
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: 0.01\n"
             "  gravity: [0, -10, 0]\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Topology, Topology.Utility, Mass, "
             "ODESolver.Backward, LinearSolver.Iterative, Constraint.Projective, "
             "SolidMechanics.FEM.Elastic]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: Body\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20}\n"
             "        - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0],[0,1,0],"
             "[0,0,1],[1,1,1],[0,0,-1]]}\n"
             "        - TetrahedronSetTopologyContainer: {name: topo, tetrahedra: [[0,1,2,3]]}\n"
             "        - TetrahedronSetTopologyModifier: {}\n"
             "        - MeshMatrixMass: {massDensity: 1}\n"
             "        - FixedProjectiveConstraint: {indices: [0, 1, 2]}\n"
             "        - TetrahedralCorotationalFEMForceField: {youngModulus: 100, "
             "poissonRatio: 0.3}\n"
             "        - TopologicalChangeProcessor: {filename: changes.txt}\n"
             "      children:\n"
             "        - name: Surf\n"
             "          objects:\n"
             "            - TriangleSetTopologyContainer: {name: tris}\n"
             "            - TriangleSetTopologyModifier: {}\n"
             "            - Tetra2TriangleTopologicalMapping: {input: \"@../topo\", "
             "output: \"@tris\"}\n");
    write_in(dir, "changes.txt", "T= 0.02\nADD= Tetrahedra 1\n1 2 3 4\n"
                                 "T= 0.05\nADD= Tetrahedra 1\n0 2 1 5\n");
    cr_assert_eq(run_cli(dir, "-n 8 --export-state full.json", out, sizeof out), 0, "%s", out);
    cr_assert_eq(run_cli(dir, "-n 4 --checkpoint ck.bin", out, sizeof out), 0, "%s", out);
    cr_assert_eq(run_cli(dir, "-n 8 --resume ck.bin --export-state resumed.json", out, sizeof out),
                 0, "%s", out);
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/full.json", dir);
    snprintf(b, sizeof b, "%s/resumed.json", dir);
    char *fa = test_read_file(a), *fb = test_read_file(b);
    cr_assert(fa && fb);
    cr_assert_str_eq(fa, fb);
    cr_assert(strstr(fa, "\"tetrahedra\": [[0, 1, 2, 3], [1, 2, 3, 4], [0, 2, 1, 5]]"), "%s",
              fa);
    free(fa);
    free(fb);
    test_remove_dir(dir);
}

Test(topology_changes, output_writes_the_changing_mesh)
{
    char dir[512], out[8192], path[1024];
    test_make_dir(dir, sizeof dir, "tcvtu");
    write_in(dir, "scene.yaml",
             HEAD STRIP "        - TopologicalChangeProcessor: {filename: changes.txt}\n");
    write_in(dir, "changes.txt", "T= 0.01\nREMOVE= 2\n2 0\n");
    cr_assert_eq(run_cli(dir, "-n 2 --output res --every 1", out, sizeof out), 0, "%s", out);
    static const char *const want[] = {"NumberOfPoints=\"6\" NumberOfCells=\"4\"",
                                       "NumberOfPoints=\"6\" NumberOfCells=\"4\"",
                                       "NumberOfPoints=\"5\" NumberOfCells=\"2\""};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/res/Body%d.vtu", dir, k);
        char *text = test_read_file(path);
        cr_assert(text, "%s", path);
        cr_assert(strstr(text, want[k]), "frame %d: want %s", k, want[k]);
        free(text);
    }
    test_remove_dir(dir);
}

Test(topology_changes, bounding_trasher_removes_elements_leaving_its_box)
{
    test_rt t;
    test_rt_open(&t);
    /* Triangle [1 2 5] has its barycentre at x = 5/3, beyond the box's 1.5:
     * removed at the end of the first step (the last triangle fills its
     * place; point 2 goes, point 5 takes its index). */
    st_scene *s = topo_scene(&t, HEAD STRIP
                             "        - TopologyBoundingTrasher: {position: '@dofs.position', "
                             "box: [-1, -1, -1, 1.5, 2, 1]}\n");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    static const unsigned tris[] = {0, 1, 4, 0, 4, 3, 1, 2, 4};
    assert_uints(list(s, "/Body/topo", "triangles"), 3, tris, 3, "triangles");
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    assert_uints(list(s, "/Body/topo", "triangles"), 3, tris, 3, "nothing else leaves the box");
    st_scene_destroy(&s);
    test_rt_close(&t);
}
