/* test_sparse_grid_ramification.c - SparseGridRamificationTopology: a coarse
 * cell holding two separate pieces of the object becomes two hexahedra with
 * their own points; finestConnectivity unlinks boundary cells whose common
 * face the surface does not cross; the point numbering of the glued
 * hexahedra; BarycentricMapping puts a point in the piece it lies in. All
 * counts and positions are worked by hand below. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(sparse_grid_ramification, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Grid, "              \
    "Sofa.Component.StateContainer, Sofa.Component.Mapping.Linear]}\n"

/* Appends the closed surface of the box [lo, hi] (8 vertices, 12 outward
 * triangles) to an OBJ text whose vertices so far number *nv. */
static void obj_box(char *buf, size_t size, int *nv, const double lo[3], const double hi[3])
{
    size_t len = strlen(buf);
    for (int k = 0; k < 8; k++)
        len += (size_t)snprintf(buf + len, size - len, "v %g %g %g\n", k & 1 ? hi[0] : lo[0],
                                k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]);
    static const int f[12][3] = {{1, 3, 4}, {1, 4, 2}, {5, 6, 8}, {5, 8, 7}, {1, 2, 6}, {1, 6, 5},
                                 {3, 7, 8}, {3, 8, 4}, {1, 5, 7}, {1, 7, 3}, {2, 4, 8}, {2, 8, 6}};
    for (int t = 0; t < 12; t++)
        len += (size_t)snprintf(buf + len, size - len, "f %d %d %d\n", f[t][0] + *nv,
                                f[t][1] + *nv, f[t][2] + *nv);
    *nv += 8;
}

/* An OBJ file of one box, or two when lo2 is not NULL. */
static const char *boxes_obj(const char *name, const double lo[3], const double hi[3],
                             const double *lo2, const double *hi2)
{
    static char buf[4096];
    int nv = 0;
    buf[0] = '\0';
    obj_box(buf, sizeof buf, &nv, lo, hi);
    if (lo2)
        obj_box(buf, sizeof buf, &nv, lo2, hi2);
    return test_write_temp(name, buf);
}

static st_scene *grid_scene(const char *cls, const char *path, const char *fields)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, HEAD "    - %s: {name: g, fileTopology: \"%s\", %s}\n", cls, path,
             fields);
    return topo_scene(&T, yaml);
}

/* Corner k of SOFA's hexahedron order, as offsets. */
static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

/* Box A in fine cell (0, 0, 0) and box B in fine cell (1, 1, 1) of the
 * 2 x 2 x 2 fine cells of [0, 2]^3 (n = 2, one virtual finer level): the
 * two fine cells touch by a corner only, so the one coarse cell holds two
 * pieces: two hexahedra of 8 points each over the same cube, A's first
 * (child place 0 before 7). SparseGridTopology makes one. Coefficients:
 * each piece keeps only its last child's 0.5 (fillWeighted), over 8:
 * 0.0625; SparseGridTopology sums both children: 0.125. */
Test(sparse_grid_ramification, two_pieces_in_one_cell)
{
    const double alo[3] = {0.2, 0.2, 0.2}, ahi[3] = {0.8, 0.8, 0.8};
    const double blo[3] = {1.2, 1.2, 1.2}, bhi[3] = {1.8, 1.8, 1.8};
    const char *path = boxes_obj("two.obj", alo, ahi, blo, bhi);
    const char *f = "n: [2, 2, 2], min: [0, 0, 0], max: [2, 2, 2], nbVirtualFinerLevels: 1, "
                    "finestConnectivity: false";
    st_scene *s = grid_scene("SparseGridRamificationTopology", path, f);
    st_component *g = topo_get(s, "g");
    const st_array *p = topo_arr(g, "position"), *h = topo_arr(g, "hexahedra");
    cr_assert_eq(h->n, 2);
    cr_assert_eq(p->n, 16);
    for (unsigned e = 0; e < 2; e++)
        for (unsigned k = 0; k < 8; k++) {
            cr_assert_eq(h->u[8 * e + k], 8 * e + k);
            for (int a = 0; a < 3; a++)
                cr_assert_eq(p->r[3 * (8 * e + k) + (unsigned)a], 2.0 * corner[k][a]);
        }
    const st_array *types = topo_arr(g, "cellTypes"), *kc = topo_arr(g, "stiffnessCoefs"),
                   *mc = topo_arr(g, "massCoefs");
    cr_assert(types->u[0] == 1 && types->u[1] == 1);
    cr_assert(kc->r[0] == 0.0625 && kc->r[1] == 0.0625 && mc->r[1] == 0.0625);
    st_scene_destroy(&s);

    s = grid_scene("SparseGridTopology", path,
                   "n: [2, 2, 2], min: [0, 0, 0], max: [2, 2, 2], nbVirtualFinerLevels: 1");
    g = topo_get(s, "g");
    cr_assert_eq(topo_arr(g, "hexahedra")->n, 1);
    cr_assert_eq(topo_arr(g, "position")->n, 8);
    cr_assert_eq(topo_arr(g, "stiffnessCoefs")->r[0], 0.125);
    st_scene_destroy(&s);
}

/* Boxes in the face-adjacent fine cells (0, 0, 0) and (1, 0, 0): without
 * finestConnectivity every face-adjacent pair is linked, one piece, one
 * hexahedron; with it the two BOUNDARY cells are linked only when an edge
 * of the surface crosses their common face x = 1. SOFA's segment test
 * takes the segment's first vertex as its centre, so it also accepts a
 * crossing up to one segment length behind that vertex: the boxes are
 * small (edges of 0.2 to 0.29) and 0.7 away from the face, out of reach:
 * two hexahedra. */
Test(sparse_grid_ramification, finest_connectivity_unlinks_separate_boxes)
{
    const double alo[3] = {0.1, 0.1, 0.1}, ahi[3] = {0.3, 0.3, 0.3};
    const double blo[3] = {1.7, 0.1, 0.1}, bhi[3] = {1.9, 0.3, 0.3};
    const char *path = boxes_obj("pair.obj", alo, ahi, blo, bhi);
    const char *base = "n: [2, 2, 2], min: [0, 0, 0], max: [2, 2, 2], nbVirtualFinerLevels: 1";
    char f[512];
    snprintf(f, sizeof f, "%s, finestConnectivity: false", base);
    st_scene *s = grid_scene("SparseGridRamificationTopology", path, f);
    cr_assert_eq(topo_arr(topo_get(s, "g"), "hexahedra")->n, 1);
    cr_assert_eq(topo_arr(topo_get(s, "g"), "position")->n, 8);
    /* one piece: both children count, (0.5 + 0.5) / 8 */
    cr_assert_eq(topo_arr(topo_get(s, "g"), "stiffnessCoefs")->r[0], 0.125);
    st_scene_destroy(&s);
    /* finestConnectivity defaults to true */
    s = grid_scene("SparseGridRamificationTopology", path, base);
    cr_assert_eq(topo_arr(topo_get(s, "g"), "hexahedra")->n, 2);
    cr_assert_eq(topo_arr(topo_get(s, "g"), "position")->n, 16);
    st_scene_destroy(&s);
}

/* No virtual level, finestConnectivity: cells (0,0,0) and (1,0,0) of
 * [0, 2] x [0, 1]^2 (n = 3 2 2). One box spanning both: its x edges cross
 * x = 1, the cells are glued: hexahedron 1's corners 0 4 7 3 take
 * hexahedron 0's points 1 5 6 2 and its own corners 1 2 5 6 become points
 * 8 9 10 11 (numbered by name): 12 points. Two small separate boxes far
 * from x = 1: 16. */
Test(sparse_grid_ramification, finest_level_glued_point_order)
{
    const double lo[3] = {0.2, 0.2, 0.2}, hi[3] = {1.8, 0.8, 0.8};
    const char *one = boxes_obj("bar.obj", lo, hi, NULL, NULL);
    const char *f = "n: [3, 2, 2], min: [0, 0, 0], max: [2, 1, 1]";
    st_scene *s = grid_scene("SparseGridRamificationTopology", one, f);
    st_component *g = topo_get(s, "g");
    const unsigned want[16] = {0, 1, 2, 3, 4, 5, 6, 7, 1, 8, 9, 2, 5, 10, 11, 6};
    topo_assert_tuples(topo_arr(g, "hexahedra"), 8, want, 2, "hexahedra");
    const st_array *p = topo_arr(g, "position");
    cr_assert_eq(p->n, 12);
    const double p8[3] = {2, 0, 0}, p11[3] = {2, 1, 1};
    for (int a = 0; a < 3; a++) {
        cr_assert_eq(p->r[3 * 8 + a], p8[a]);
        cr_assert_eq(p->r[3 * 11 + a], p11[a]);
    }
    st_scene_destroy(&s);

    /* finestConnectivity off: SparseGridTopology's grid, points sorted by
     * position ((0,0,0), (0,0,1), (0,1,0), ...). */
    s = grid_scene("SparseGridRamificationTopology", one,
                   "n: [3, 2, 2], min: [0, 0, 0], max: [2, 1, 1], finestConnectivity: false");
    p = topo_arr(topo_get(s, "g"), "position");
    cr_assert_eq(p->n, 12);
    cr_assert(p->r[3] == 0 && p->r[4] == 0 && p->r[5] == 1, "point 1 %g %g %g", p->r[3],
              p->r[4], p->r[5]);
    st_scene_destroy(&s);

    const double alo[3] = {0.1, 0.1, 0.1}, ahi[3] = {0.3, 0.3, 0.3};
    const double blo[3] = {1.7, 0.1, 0.1}, bhi[3] = {1.9, 0.3, 0.3};
    const char *two = boxes_obj("split.obj", alo, ahi, blo, bhi);
    s = grid_scene("SparseGridRamificationTopology", two, f);
    cr_assert_eq(topo_arr(topo_get(s, "g"), "position")->n, 16);
    st_scene_destroy(&s);
}

/* Cells (0,0,0) and (1,1,0) of a 2 x 2 x 1 grid touch by an edge only.
 * SparseGridTopology shares the edge's 2 points (14); the ramified grid
 * glues faces only, so they keep their own (16). */
Test(sparse_grid_ramification, edge_contact_is_not_glued)
{
    const double alo[3] = {0.2, 0.2, 0.2}, ahi[3] = {0.8, 0.8, 0.8};
    const double blo[3] = {1.2, 1.2, 0.2}, bhi[3] = {1.8, 1.8, 0.8};
    const char *path = boxes_obj("diag.obj", alo, ahi, blo, bhi);
    const char *f = "n: [3, 3, 2], min: [0, 0, 0], max: [2, 2, 1]";
    st_scene *s = grid_scene("SparseGridTopology", path, f);
    cr_assert_eq(topo_arr(topo_get(s, "g"), "hexahedra")->n, 2);
    cr_assert_eq(topo_arr(topo_get(s, "g"), "position")->n, 14);
    st_scene_destroy(&s);
    s = grid_scene("SparseGridRamificationTopology", path, f);
    cr_assert_eq(topo_arr(topo_get(s, "g"), "hexahedra")->n, 2);
    cr_assert_eq(topo_arr(topo_get(s, "g"), "position")->n, 16);
    st_scene_destroy(&s);
}

/* SOFA's findCube through the finest level: a point in B's fine cell maps
 * to B's hexahedron (the second), one in A's to A's, both with the
 * coefficients of the coarse cube (fx = x / 2). The parent state moves B's
 * 8 points by 10 along x: the point mapped into B follows them. A point in
 * an empty fine cell goes to the nearest boundary cell's piece. */
Test(sparse_grid_ramification, mapping_picks_the_piece)
{
    const double alo[3] = {0.2, 0.2, 0.2}, ahi[3] = {0.8, 0.8, 0.8};
    const double blo[3] = {1.2, 1.2, 1.2}, bhi[3] = {1.8, 1.8, 1.8};
    const char *path = boxes_obj("map.obj", alo, ahi, blo, bhi);
    char pos[1024] = "";
    size_t len = 0;
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < 8; k++)
            len += (size_t)snprintf(pos + len, sizeof pos - len, "%s[%d, %d, %d]",
                                    len ? ", " : "", 2 * corner[k][0] + 10 * e, 2 * corner[k][1],
                                    2 * corner[k][2]);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "    - SparseGridRamificationTopology: {name: g, fileTopology: \"%s\", n: [2, 2, "
                  "2], min: [0, 0, 0], max: [2, 2, 2], nbVirtualFinerLevels: 1, "
                  "finestConnectivity: false}\n"
                  "    - MechanicalObject: {name: dofs, position: [%s]}\n"
                  "  children:\n"
                  "    - name: child\n"
                  "      objects:\n"
                  "        - MechanicalObject: {name: m, position: [[1.5, 1.5, 1.5], [0.5, 0.5, "
                  "0.5], [1.9, 0.9, 1.9]]}\n"
                  "        - BarycentricMapping: {input: \"@..\", output: \"@.\"}\n",
             path, pos);
    st_scene *s = topo_scene(&T, yaml);
    const st_array *x = topo_arr(topo_get(s, "child/m"), "position");
    cr_assert_eq(x->n, 3);
    cr_assert(fabs(x->r[0] - 11.5) < 1e-12 && fabs(x->r[1] - 1.5) < 1e-12,
              "point in B: %g %g %g", x->r[0], x->r[1], x->r[2]);
    cr_assert(fabs(x->r[3] - 0.5) < 1e-12, "point in A: %g", x->r[3]);
    /* (1.9, 0.9, 1.9) lies in the empty fine cell (1, 0, 1); the nearest
     * fine boundary cell centre is B's (1.5, 1.5, 1.5) (distance 0.82,
     * A's is 2.02). */
    cr_assert(fabs(x->r[6] - 11.9) < 1e-12, "point near B: %g", x->r[6]);
    st_scene_destroy(&s);
}

/* A plain SparseGridTopology: SOFA's sparse grid mapper locates the mapped
 * points in the grid's own frame (its regular grid's cube, else the nearest
 * surface cube), not in the state's positions. The box [0.1, 1.9]^3 in the
 * 2 x 2 x 2 cells of [0, 2]^3 cuts all eight cells (all BOUNDARY); the state
 * is the grid's points moved by dz = 10. Point (0.5, 0.5, 0.5) lies in cube
 * (0, 0, 0) with coefficients (0.5, 0.5, 0.5) and (1.5, 0.25, 1.75) in cube
 * (1, 0, 1) with (0.5, 0.25, 0.75): they follow the state, z + 10.
 * (2.5, 0.5, 0.5) is outside; the nearest cube centre is (1.5, 0.5, 0.5),
 * cube (1, 0, 0) from corner (1, 0, 0) to corner (2, 1, 1): coefficients
 * (1.5, 0.5, 0.5), extrapolated, so the point maps to (2.5, 0.5, 10.5).
 * Located in the state's positions instead, the three points stay where
 * they are (z < 2, outside the moved grid). */
Test(sparse_grid_ramification, plain_grid_mapping_in_the_grid_frame)
{
    const double lo[3] = {0.1, 0.1, 0.1}, hi[3] = {1.9, 1.9, 1.9};
    const char *path = boxes_obj("plain.obj", lo, hi, NULL, NULL);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "    - SparseGridTopology: {name: g, fileTopology: \"%s\", n: [3, 3, 3], "
                  "min: [0, 0, 0], max: [2, 2, 2]}\n"
                  "    - MechanicalObject: {name: dofs, dz: 10}\n"
                  "  children:\n"
                  "    - name: child\n"
                  "      objects:\n"
                  "        - MechanicalObject: {name: m, position: [[0.5, 0.5, 0.5], [1.5, 0.25, "
                  "1.75], [2.5, 0.5, 0.5]]}\n"
                  "        - BarycentricMapping: {input: \"@..\", output: \"@.\"}\n",
             path);
    st_scene *s = topo_scene(&T, yaml);
    const st_array *g = topo_arr(topo_get(s, "g"), "position");
    cr_assert_eq(g->n, 27, "grid points: %zu", g->n);
    cr_assert(g->r[0] == 0 && g->r[3 * 26 + 2] == 2, "the grid spans [0, 2]: %g .. %g", g->r[0],
              g->r[3 * 26 + 2]);
    const st_array *x = topo_arr(topo_get(s, "child/m"), "position");
    cr_assert_eq(x->n, 3);
    const double want[9] = {0.5, 0.5, 10.5, 1.5, 0.25, 11.75, 2.5, 0.5, 10.5};
    for (int k = 0; k < 9; k++)
        cr_assert(fabs(x->r[k] - want[k]) < 1e-12, "value %d: %.17g, expected %g", k, x->r[k],
                  want[k]);
    st_scene_destroy(&s);
}

/* ---- SparseGridMultipleTopology ---- */

/* File A: a box in cell (0,0,0); file B: a bar over cells (0,0,0) and
 * (1,0,0) of [0, 2]^3 (n = 3, cells of 1). Both cells are BOUNDARY in the
 * files holding them; with fillWeighted each file blends its coefficient
 * half and half with the previous one (from 0): cell (0,0,0) gets
 * ((0 + 10) / 2 + 100) / 2 = 52.5, cell (1,0,0) (0 + 100) / 2 = 50.
 * erasePreviousCoef keeps the last file's: 100, 100. Without fillWeighted
 * the cells are INSIDE with the last file's coefficient. */
Test(sparse_grid_ramification, multiple_coefficients)
{
    const double alo[3] = {0.1, 0.1, 0.1}, ahi[3] = {0.9, 0.9, 0.9};
    const double blo[3] = {0.1, 0.1, 0.1}, bhi[3] = {1.9, 0.9, 0.9};
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s", boxes_obj("a.obj", alo, ahi, NULL, NULL));
    snprintf(b, sizeof b, "%s", boxes_obj("b.obj", blo, bhi, NULL, NULL));
    const char *opts[4] = {"", ", erasePreviousCoef: true", ", fillWeighted: false",
                           ", computeRamifications: false"};
    const double want[4][2] = {{52.5, 50}, {100, 100}, {100, 100}, {52.5, 50}};
    const unsigned type[4] = {1, 1, 2, 1};
    for (int o = 0; o < 4; o++) {
        char yaml[4096];
        snprintf(yaml, sizeof yaml,
                 HEAD "    - SparseGridMultipleTopology: {name: g, n: [3, 3, 3], min: [0, 0, 0], "
                      "max: [2, 2, 2], fileTopologies: [\"%s\", \"%s\"], stiffnessCoefs: [10, "
                      "100], massCoefs: [1, 3]%s}\n",
                 a, b, opts[o]);
        st_scene *s = topo_scene(&T, yaml);
        st_component *g = topo_get(s, "g");
        const st_array *k = topo_arr(g, "elementStiffnessCoefs");
        cr_assert_eq(k->n, 2, "option %d", o);
        cr_assert(k->r[0] == want[o][0] && k->r[1] == want[o][1], "option %d: %g %g", o, k->r[0],
                  k->r[1]);
        cr_assert_eq(topo_arr(g, "cellTypes")->u[0], type[o], "option %d", o);
        /* finestConnectivity without fileTopology: no mesh to test, no cell
         * linked (16 points), as SOFA; without ramifications the plain
         * grid (12). */
        cr_assert_eq(topo_arr(g, "position")->n, o == 3 ? 12 : 16, "option %d", o);
        st_scene_destroy(&s);
    }
}

Test(sparse_grid_ramification, multiple_refusals)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - SparseGridMultipleTopology: {name: g}\n", &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "No file topology provided"), "%s", err.msg);
    cr_assert_neq(topo_scene_fails(&T,
                                   HEAD "    - SparseGridMultipleTopology: {name: g, "
                                        "fileTopologies: [\"nowhere.obj\"]}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "none of the 1 fileTopologies"), "%s", err.msg);
}
