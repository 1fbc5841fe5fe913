/* test_simple_tesselated_hexa.c - SimpleTesselatedHexaTopologicalMapping
 * (issue 30): two unit cubes side by side, numbered alike, cut into 16
 * cubes of side 1/2. Points: 12 corners, 12 + 8 edge midpoints (the
 * neighbour meets 4 edges in the same order), 6 + 5 face centres (one face
 * shared), 2 centres: 45. Each sub-hexahedron is an axis-aligned cube of
 * side 1/2 in SOFA's vertex order, the sub-hexahedra of cube c hold its
 * corner k in place k, and the output's state and derived lists follow. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(simple_tesselated_hexa, .init = setup, .fini = teardown);

static const char *SCENE =
    "format: settee/1\n"
    "root:\n"
    "  name: root\n"
    "  objects:\n"
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic,"
    " Sofa.Component.Mapping.Linear, Sofa.Component.StateContainer]}\n"
    "  children:\n"
    "    - name: In\n"
    "      objects:\n"
    "        - HexahedronSetTopologyContainer: {name: in, position: [0,0,0, 1,0,0, 1,1,0,"
    " 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1, 2,0,0, 2,1,0, 2,0,1, 2,1,1],"
    " hexahedra: [0,1,2,3,4,5,6,7, 1,8,9,2,5,10,11,6]}\n"
    "        - MechanicalObject: {name: dofs}\n"
    "      children:\n"
    "        - name: Out\n"
    "          objects:\n"
    "            - HexahedronSetTopologyContainer: {name: out}\n"
    "            - HexahedronSetTopologyModifier: {}\n"
    "            - SimpleTesselatedHexaTopologicalMapping: {input: \"@../in\", output: \"@out\"}\n"
    "            - MechanicalObject: {name: fine}\n";

Test(simple_tesselated_hexa, two_cubes_cut_in_sixteen)
{
    st_scene *s = topo_scene(&T, SCENE);
    st_component *out = topo_get(s, "In/Out/out");
    const st_array *x = topo_arr(out, "position"), *h = topo_arr(out, "hexahedra");
    cr_assert_eq(x->n, 45u, "points: %zu", x->n);
    cr_assert_eq(h->n, 16u, "hexahedra: %zu", h->n);
    static const double off[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                     {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    double volume = 0.0;
    for (size_t i = 0; i < 16; i++) {
        const unsigned *v = h->u + 8 * i;
        const double *o = x->r + 3 * v[0];
        for (int k = 0; k < 8; k++)
            for (int a = 0; a < 3; a++)
                cr_assert_leq(fabs(x->r[3 * v[k] + a] - (o[a] + 0.5 * off[k][a])), 1e-15,
                              "hexahedron %zu vertex %d axis %d: %g", i, k, a,
                              x->r[3 * v[k] + a]);
        volume += 0.125;
    }
    cr_assert_eq(volume, 2.0);
    /* corner k of input cube c in place k of its k-th sub-hexahedron */
    const unsigned in_h[2][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 8, 9, 2, 5, 10, 11, 6}};
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 8; k++)
            cr_assert_eq(h->u[8 * (8 * c + k) + k], in_h[c][k]);
    /* the shared face's centre (1, 0.5, 0.5) exists once */
    int found = 0;
    for (size_t p = 0; p < x->n; p++)
        found += x->r[3 * p] == 1.0 && x->r[3 * p + 1] == 0.5 && x->r[3 * p + 2] == 0.5;
    cr_assert_eq(found, 1);
    const st_mstate *fine = (const st_mstate *)topo_get(s, "In/Out/fine");
    cr_assert_eq(fine->n, 45u, "the fine state: %zu points", fine->n);
    cr_assert_gt(topo_arr(out, "quads")->n, 0u, "the container derived its quads");
    /* 16 cubes in a 4 x 2 x 2 block: 4*2*3 + 4*3*2 + 5*2*2 = 68 quads */
    cr_assert_eq(topo_arr(out, "quads")->n, 68u, "quads: %zu", topo_arr(out, "quads")->n);
    st_scene_destroy(&s);
}

Test(simple_tesselated_hexa, refuses_an_output_without_hexahedra)
{
    /* the output a PointSetTopologyContainer: no hexahedra */
    const char *from = "HexahedronSetTopologyContainer: {name: out}";
    const char *p = strstr(SCENE, from);
    cr_assert_not_null(p);
    char yaml[4096];
    snprintf(yaml, sizeof yaml, "%.*sPointSetTopologyContainer: {name: out}%s", (int)(p - SCENE),
             SCENE, p + strlen(from));
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "output must link"), "%s", err.msg);
}
