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
/* A body of two tetrahedra under EulerExplicitSolver, its finer copy with
 * the mechanical mapping; the output gets a modifier when asked. */
static st_scene *mech_scene(bool output_modifier)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
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
        "%s"
        "            - SimpleTesselatedTetraTopologicalMapping: {name: m, input: \"@../in\","
        " output: \"@out\"}\n"
        "            - MechanicalObject: {name: fine}\n"
        "            - SimpleTesselatedTetraMechanicalMapping: {input: \"@../dofs\", output: "
        "\"@fine\"}\n",
        output_modifier ? "            - TetrahedronSetTopologyModifier: {}\n" : "");
    return topo_scene(&T, yaml);
}

Test(simple_tesselated_tetra, mechanical_mapping_follows_a_change)
{
    st_scene *s = mech_scene(false);
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

/* SOFA's bottom-up propagation: two input tetrahedra (16 pieces); removing
 * 7 of tetrahedron 0's pieces from the output leaves the input as it is,
 * the eighth removes tetrahedron 0 from the input (B takes its place, its
 * pieces now named by entry 0, and point 0, left alone, goes); without a modifier beside the input,
 * nothing goes up (SOFA's). */
static st_scene *bottom_up_scene(bool input_modifier)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "  children:\n"
                  "    - name: In\n"
                  "      objects:\n"
                  "        - TetrahedronSetTopologyContainer: {name: in, position: [0,0,0, 1,0,0,"
                  " 0,1,0, 0,0,1, 1,1,1], tetrahedra: [0,1,2,3, 1,2,3,4]}\n"
                  "%s"
                  "      children:\n"
                  "        - name: Out\n"
                  "          objects:\n"
                  "            - TetrahedronSetTopologyContainer: {name: out}\n"
                  "            - TetrahedronSetTopologyModifier: {}\n"
                  "            - SimpleTesselatedTetraTopologicalMapping: {name: m, input: \"@../in\","
                  " output: \"@out\"}\n",
             input_modifier ? "        - TetrahedronSetTopologyModifier: {}\n" : "");
    return topo_scene(&T, yaml);
}

/* Removes output tetrahedra one at a time, each the current index of the
 * piece that input tetrahedron `src` maps to at slot j. */
static void remove_pieces(st_scene *s, unsigned src, int from, int to)
{
    st_component *m = topo_get(s, "In/Out/m");
    st_error err = {0};
    for (int j = from; j < to; j++) {
        const st_array *tft = topo_arr(m, "tetrahedraMappedFromTetra");
        const unsigned piece = tft->u[8 * src + (unsigned)j];
        cr_assert_neq(piece, UINT32_MAX, "piece %d of %u", j, src);
        cr_assert_eq(st_topology_remove(topo_get(s, "In/Out/out"), ST_ELEM_TETRAHEDRON, &piece, 1,
                                        &err),
                     ST_OK, "%s", err.msg);
    }
}

Test(simple_tesselated_tetra, bottom_up_removal)
{
    st_scene *s = bottom_up_scene(true);
    st_component *m = topo_get(s, "In/Out/m");
    remove_pieces(s, 0, 0, 7);
    cr_assert_eq(topo_arr(topo_get(s, "In/in"), "tetrahedra")->n, 2u, "one piece is left");
    cr_assert_eq(topo_arr(topo_get(s, "In/Out/out"), "tetrahedra")->n, 9u);
    /* every remaining output tetrahedron names a source whose map names it */
    const st_array *ts = topo_arr(m, "tetraSource"), *tft = topo_arr(m, "tetrahedraMappedFromTetra");
    cr_assert_eq(ts->n, 9u);
    for (unsigned k = 0; k < 9; k++) {
        const unsigned src = ts->u[k];
        cr_assert_lt(src, 2u);
        bool named = false;
        for (int j = 0; j < 8; j++)
            named = named || tft->u[8 * src + (unsigned)j] == k;
        cr_assert(named, "output tetrahedron %u is not in its source %u's map", k, src);
    }
    remove_pieces(s, 0, 7, 8);
    const st_array *in = topo_arr(topo_get(s, "In/in"), "tetrahedra");
    cr_assert_eq(in->n, 1u, "the eighth piece takes its source with it");
    /* B (1 2 3 4) moved to index 0, and point 4 to the isolated point 0's place */
    static const unsigned b[4] = {1, 2, 3, 0};
    for (int k = 0; k < 4; k++)
        cr_assert_eq(in->u[k], b[k], "tetrahedron B moved to index 0: vertex %d is %u", k,
                     in->u[k]);
    tft = topo_arr(m, "tetrahedraMappedFromTetra");
    ts = topo_arr(m, "tetraSource");
    cr_assert_eq(tft->n, 8u);
    cr_assert_eq(ts->n, 8u);
    for (unsigned k = 0; k < 8; k++) {
        cr_assert_eq(ts->u[k], 0u, "output %u comes from B, now input 0", k);
        cr_assert_lt(tft->u[k], 8u);
    }
    st_scene_destroy(&s);
}

Test(simple_tesselated_tetra, bottom_up_needs_the_input_modifier)
{
    st_scene *s = bottom_up_scene(false);
    remove_pieces(s, 0, 0, 8);
    cr_assert_eq(topo_arr(topo_get(s, "In/in"), "tetrahedra")->n, 2u,
                 "no modifier beside the input: SOFA removes nothing");
    cr_assert_eq(topo_arr(topo_get(s, "In/Out/out"), "tetrahedra")->n, 8u);
    st_scene_destroy(&s);
}

/* The mechanical mapping after a bottom-up removal: the output loses
 * tetrahedron A's eight pieces (and the points only they used), the input
 * loses A; with the input moved by +1 in x, every output point that still
 * has a source sits at its input point or edge midpoint. */
Test(simple_tesselated_tetra, mechanical_mapping_after_bottom_up_removal)
{
    st_scene *s = mech_scene(true);
    st_error err = {0};
    unsigned pieces[8];
    memcpy(pieces, topo_arr(topo_get(s, "In/Out/m"), "tetrahedraMappedFromTetra")->u,
           sizeof pieces);
    /* highest first, so that the indices stay valid */
    for (int j = 7; j >= 0; j--)
        cr_assert_eq(st_topology_remove(topo_get(s, "In/Out/out"), ST_ELEM_TETRAHEDRON,
                                        &pieces[j], 1, &err),
                     ST_OK, "%s", err.msg);
    cr_assert_eq(topo_arr(topo_get(s, "In/in"), "tetrahedra")->n, 1u);
    st_array *x = topo_arr(topo_get(s, "In/dofs"), "position");
    cr_assert_eq(x->n, 4u, "point 0 went with A");
    for (size_t i = 0; i < x->n; i++)
        x->r[3 * i] += 1;
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_component *m = topo_get(s, "In/Out/m");
    const st_array *pfp = topo_arr(m, "pointMappedFromPoint");
    const st_array *pfe = topo_arr(m, "pointMappedFromEdge");
    const st_array *edges = topo_arr(topo_get(s, "In/in"), "edges");
    const st_array *y = topo_arr(topo_get(s, "In/Out/fine"), "position");
    x = topo_arr(topo_get(s, "In/dofs"), "position");
    cr_assert_eq(y->n, topo_arr(topo_get(s, "In/Out/out"), "position")->n,
                 "the fine state follows its container");
    size_t checked = 0;
    for (size_t i = 0; i < pfp->n; i++) {
        if (pfp->u[i] == UINT32_MAX)
            continue;
        cr_assert_lt(pfp->u[i], y->n);
        for (int c = 0; c < 3; c++)
            cr_assert(fabs(y->r[3 * (size_t)pfp->u[i] + (size_t)c] - x->r[3 * i + (size_t)c]) <
                          1e-12,
                      "point %zu", i);
        checked++;
    }
    for (size_t e = 0; e < pfe->n; e++) {
        if (pfe->u[e] == UINT32_MAX)
            continue;
        cr_assert_lt(pfe->u[e], y->n);
        for (int c = 0; c < 3; c++) {
            double mid = (x->r[3 * (size_t)edges->u[2 * e] + (size_t)c] +
                          x->r[3 * (size_t)edges->u[2 * e + 1] + (size_t)c]) /
                         2;
            cr_assert(fabs(y->r[3 * (size_t)pfe->u[e] + (size_t)c] - mid) < 1e-12, "edge %zu",
                      e);
        }
        checked++;
    }
    cr_assert_eq(checked, 4u + 6u, "B's 4 points and 6 edge midpoints are mapped");
    st_scene_destroy(&s);
}
