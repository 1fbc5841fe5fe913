/* test_simple_tesselated_tetra.c - SimpleTesselatedTetraTopologicalMapping:
 * the unit tetrahedron becomes 10 points (its 4, then its 6 edge midpoints
 * in the container's edge order) and 8 tetrahedra of volume 1/48 each (the
 * signed volumes sum to the parent's 1/6, and every piece has |V| = 1/48),
 * the four corner pieces first; its maps (pointSource with SOFA's signed
 * codes as unsigned, tetraSource, tetrahedraMappedFromTetra); an input
 * without tetrahedra refused; the maps follow a change of the input as
 * SOFA's (the output stays), and so does the mechanical mapping. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(simple_tesselated_tetra, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic,"             \
    " Sofa.Component.Topology.Mapping]}\n"

static st_scene *scene(const char *input)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "  children:\n"
                  "    - name: In\n"
                  "      objects:\n"
                  "        - %s\n"
                  "        - TetrahedronSetTopologyModifier: {}\n"
                  "      children:\n"
                  "        - name: Out\n"
                  "          objects:\n"
                  "            - TetrahedronSetTopologyContainer: {name: out}\n"
                  "            - SimpleTesselatedTetraTopologicalMapping: {name: m, input: \"@../in\","
                  " output: \"@out\"}\n",
             input);
    return topo_scene(&T, yaml);
}

static double tet_volume(const double *x, const unsigned *t)
{
    const double *a = x + 3 * t[0], *b = x + 3 * t[1], *c = x + 3 * t[2], *d = x + 3 * t[3];
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; k++) {
        u[k] = b[k] - a[k];
        v[k] = c[k] - a[k];
        w[k] = d[k] - a[k];
    }
    return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
            u[2] * (v[0] * w[1] - v[1] * w[0])) /
           6;
}

Test(simple_tesselated_tetra, unit_tetrahedron_in_eight)
{
    st_scene *s = scene("TetrahedronSetTopologyContainer: {name: in, position: [0,0,0, 1,0,0,"
                        " 0,1,0, 0,0,1], tetrahedra: [0,1,2,3]}");
    st_component *out = topo_get(s, "In/Out/out"), *m = topo_get(s, "In/Out/m");
    const st_array *x = topo_arr(out, "position"), *tets = topo_arr(out, "tetrahedra");
    const st_array *edges = topo_arr(topo_get(s, "In/in"), "edges");
    cr_assert_eq(x->n, 10u);
    cr_assert_eq(tets->n, 8u);
    cr_assert_eq(edges->n, 6u);
    for (size_t e = 0; e < 6; e++)
        for (int k = 0; k < 3; k++) {
            const double *in = topo_arr(topo_get(s, "In/in"), "position")->r;
            double want = (in[3 * edges->u[2 * e] + k] + in[3 * edges->u[2 * e + 1] + k]) / 2;
            cr_assert_eq(x->r[3 * (4 + e) + k], want, "point %zu is the midpoint of edge %zu", 4 + e,
                         e);
        }
    double sum = 0;
    for (size_t i = 0; i < 8; i++) {
        double v = tet_volume(x->r, tets->u + 4 * i);
        cr_assert_leq(fabs(fabs(v) - 1.0 / 48), 1e-15, "piece %zu has volume %.17g", i, v);
        sum += v;
    }
    /* The corner pieces keep the parent's vertices 0..3 first. */
    for (unsigned i = 0; i < 4; i++)
        cr_assert_eq(tets->u[4 * i], i, "piece %u starts at vertex %u", i, tets->u[4 * i]);
    cr_log_info("sum of the signed volumes %.17g", sum);
    cr_assert_leq(fabs(sum - 1.0 / 6), 1e-15, "every piece is positive: they sum to 1/6");
    const st_array *src = topo_arr(m, "pointSource");
    cr_assert_eq(src->n, 10u);
    cr_assert_eq(src->u[0], 1u, "point 0 comes from input point 0 (code 1)");
    cr_assert_eq(src->u[4], UINT32_MAX, "point 4 comes from edge 0 (code -1)");
    cr_assert_eq(src->u[9], UINT32_MAX - 5, "point 9 comes from edge 5 (code -6)");
    const st_array *ts = topo_arr(m, "tetraSource"), *tft = topo_arr(m, "tetrahedraMappedFromTetra");
    cr_assert(ts->n == 8 && ts->u[7] == 0 && tft->n == 8 && tft->u[7] == 7);
    cr_assert_eq(topo_arr(m, "pointMappedFromEdge")->u[5], 9u);
    st_scene_destroy(&s);
}

Test(simple_tesselated_tetra, refusals_and_changes)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "  children:\n"
                  "    - name: In\n"
                  "      objects:\n"
                  "        - TetrahedronSetTopologyContainer: {name: in, position: [0,0,0, 1,0,0]}\n"
                  "        - TetrahedronSetTopologyContainer: {name: out}\n"
                  "        - SimpleTesselatedTetraTopologicalMapping: {name: m, input: \"@in\","
                  " output: \"@out\"}\n");
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "has no tetrahedra"), "%s", err.msg);
    st_scene *s = scene("TetrahedronSetTopologyContainer: {name: in, position: [0,0,0, 1,0,0,"
                        " 0,1,0, 0,0,1, 1,1,1], tetrahedra: [0,1,2,3, 1,2,3,4]}");
    cr_assert_eq(topo_arr(topo_get(s, "In/Out/out"), "tetrahedra")->n, 16u);
    const st_array *pfe = topo_arr(topo_get(s, "In/Out/m"), "pointMappedFromEdge");
    cr_assert_eq(pfe->n, 9u, "6 + 6 edges, 3 shared");
    /* Removing tetrahedron 0 (SOFA's top-down propagation keeps the
     * output): B takes its entry (its pieces 8 ... 15 now come from 0, A's
     * 0 ... 7 from nothing); A's faces other than (1 2 3), its edges from
     * point 0 and point 0 go with it (point 4 takes index 0: output point
     * 4 now comes from input point 0, output point 0 from nothing). */
    const unsigned id = 0;
    cr_assert_eq(st_topology_remove(topo_get(s, "In/in"), ST_ELEM_TETRAHEDRON, &id, 1, &err),
                 ST_OK, "%s", err.msg);
    st_component *m = topo_get(s, "In/Out/m");
    cr_assert_eq(topo_arr(topo_get(s, "In/Out/out"), "tetrahedra")->n, 16u);
    const st_array *tft = topo_arr(m, "tetrahedraMappedFromTetra");
    cr_assert_eq(tft->n, 8u);
    for (unsigned k = 0; k < 8; k++)
        cr_assert_eq(tft->u[k], 8 + k);
    const st_array *ts = topo_arr(m, "tetraSource");
    for (unsigned k = 0; k < 16; k++)
        cr_assert_eq(ts->u[k], k < 8 ? UINT32_MAX : 0u, "tetraSource[%u] = %u", k, ts->u[k]);
    const st_array *pfp = topo_arr(m, "pointMappedFromPoint");
    static const unsigned want_pfp[] = {4, 1, 2, 3};
    cr_assert_eq(pfp->n, 4u);
    for (unsigned k = 0; k < 4; k++)
        cr_assert_eq(pfp->u[k], want_pfp[k]);
    pfe = topo_arr(m, "pointMappedFromEdge");
    const st_array *ps = topo_arr(m, "pointSource");
    cr_assert_eq(pfe->n, 6u);
    cr_assert_eq(ps->n, 14u);
    size_t sourceless = 0;
    for (size_t k = 0; k < ps->n; k++)
        sourceless += ps->u[k] == 0;
    cr_assert_eq(sourceless, 4u, "point 0 and the midpoints of its 3 edges");
    cr_assert_eq(ps->u[0], 0u);
    cr_assert_eq(ps->u[4], 1u, "output point 4 comes from input point 0");
    for (unsigned e = 0; e < 6; e++)
        cr_assert_eq(ps->u[pfe->u[e]], (unsigned)(-(long long)e - 1), "edge %u", e);
    st_scene_destroy(&s);
}

/* The mechanical mapping follows too: after the removal above, with the
 * input moved by +1 in x, each output point that has a source is at its
 * input point or at its input edge's midpoint. */
Test(simple_tesselated_tetra, mechanical_mapping_follows_a_change)
{
    const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  name: root\n"
        "  dt: 0.01\n"
        "  gravity: [0, 0, 0]\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [Topology, Mapping.Linear, ODESolver.Forward, "
        "Mass]}\n"
        "    - DefaultAnimationLoop: {}\n"
        "  children:\n"
        "    - name: In\n"
        "      objects:\n"
        "        - EulerExplicitSolver: {}\n"
        "        - MechanicalObject: {name: dofs, position: [0,0,0, 1,0,0, 0,1,0, 0,0,1, "
        "1,1,1]}\n"
        "        - TetrahedronSetTopologyContainer: {name: in, position: [0,0,0, 1,0,0, 0,1,0,"
        " 0,0,1, 1,1,1], tetrahedra: [0,1,2,3, 1,2,3,4]}\n"
        "        - TetrahedronSetTopologyModifier: {}\n"
        "        - UniformMass: {totalMass: 1}\n"
        "      children:\n"
        "        - name: Out\n"
        "          objects:\n"
        "            - TetrahedronSetTopologyContainer: {name: out}\n"
        "            - SimpleTesselatedTetraTopologicalMapping: {name: m, input: \"@../in\","
        " output: \"@out\"}\n"
        "            - MechanicalObject: {name: fine}\n"
        "            - SimpleTesselatedTetraMechanicalMapping: {input: \"@../dofs\", output: "
        "\"@fine\"}\n";
    st_scene *s = topo_scene(&T, yaml);
    st_error err = {0};
    const unsigned id = 0;
    cr_assert_eq(st_topology_remove(topo_get(s, "In/in"), ST_ELEM_TETRAHEDRON, &id, 1, &err),
                 ST_OK, "%s", err.msg);
    st_array *x = topo_arr(topo_get(s, "In/dofs"), "position");
    cr_assert_eq(x->n, 4u);
    for (size_t i = 0; i < x->n; i++)
        x->r[3 * i] += 1;
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_component *m = topo_get(s, "In/Out/m");
    const st_array *pfp = topo_arr(m, "pointMappedFromPoint");
    const st_array *pfe = topo_arr(m, "pointMappedFromEdge");
    const st_array *edges = topo_arr(topo_get(s, "In/in"), "edges");
    const st_array *y = topo_arr(topo_get(s, "In/Out/fine"), "position");
    x = topo_arr(topo_get(s, "In/dofs"), "position");
    cr_assert_eq(y->n, 14u);
    for (size_t i = 0; i < pfp->n; i++)
        for (int c = 0; c < 3; c++)
            cr_assert(fabs(y->r[3 * (size_t)pfp->u[i] + (size_t)c] - x->r[3 * i + (size_t)c]) <
                          1e-12,
                      "point %zu", i);
    for (size_t e = 0; e < pfe->n; e++)
        for (int c = 0; c < 3; c++) {
            double mid = (x->r[3 * (size_t)edges->u[2 * e] + (size_t)c] +
                          x->r[3 * (size_t)edges->u[2 * e + 1] + (size_t)c]) /
                         2;
            cr_assert(fabs(y->r[3 * (size_t)pfe->u[e] + (size_t)c] - mid) < 1e-12, "edge %zu",
                      e);
        }
    st_scene_destroy(&s);
}
