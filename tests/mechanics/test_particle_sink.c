/* test_particle_sink.c - ParticleSink (SofaSphFluid): points below d1 are
 * removed through the topology at the start of a step (the last point
 * moves into the hole, the state and the mass follow), points below d0 are
 * listed in "fixed" with their velocity zeroed, a source and a sink run
 * together, without a topology the state itself loses the points as in
 * SOFA, and a grid topology is refused with SOFA's message. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static st_status sink_scene(test_rt *t, const char *dofs, const char *extra, const char *planes,
                            const char *topo, st_scene **out, st_error *err)
{
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.25\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, Topology, "
             "SofaSphFluid]}\n"
             "    - EulerExplicitSolver: {symplectic: true}\n"
             "    - MechanicalObject: {name: dofs%s}\n"
             "%s"
             "    - ParticleSink: {name: sink, normal: [0, 1, 0], %s}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "%s",
             dofs, extra, planes, topo);
    test_rt_open(t);
    *out = NULL;
    ST_TRY(test_load_string(t, yaml, out, err));
    return st_scene_init(*out, err);
}

#define POINTSET                                                                                   \
    "    - PointSetTopologyContainer: {name: con}\n"                                              \
    "    - PointSetTopologyModifier: {name: mod}\n"

Test(particle_sink, removes_below_d1_and_stops_below_d0)
{
    test_rt t;
    st_scene *s;
    st_error err = {0};
    cr_assert_eq(sink_scene(&t,
                            ", position: [[0, 1, 0], [1, -0.5, 0], [2, -1.5, 0], [3, 2, 0]], "
                            "velocity: [[0, -1, 0], [0, -1, 0], [0, -1, 0], [0, -1, 0]]",
                            "", "d0: 0, d1: -1", POINTSET, &s, &err),
                 ST_OK, "%s\n%s", err.msg, t.log);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    cr_assert_eq(ms->n, 3, "point 2 (y = -1.5 < d1) removed: %zu points", ms->n);
    cr_assert_eq(ms->velocity.n, 3);
    cr_assert_eq(s->systems[0]->size_all, 9);
    /* the last point moved into the hole */
    cr_assert(ms->position.r[6] == 3, "point 2 is the former point 3 (x = %g)", ms->position.r[6]);
    /* point 1 is below d0: held (velocity 0, position kept); the others move */
    cr_assert(ms->velocity.r[4] == 0 && ms->position.r[4] == -0.5, "point 1: v %g y %g",
              ms->velocity.r[4], ms->position.r[4]);
    cr_assert(fabs(ms->position.r[1] - 0.75) < 1e-12, "point 0 moved: y %g", ms->position.r[1]);
    cr_assert(fabs(ms->position.r[7] - 1.75) < 1e-12, "point 2 moved: y %g", ms->position.r[7]);
    st_component *k = test_find_object(s, "sink");
    const st_array *fixed = st_component_field_ptr(k, st_component_field(k, "fixed"));
    cr_assert(fixed->n == 1 && fixed->u[0] == 1, "fixed: %zu entries", fixed->n);
    /* next step: point 0 (y 0.75 -> 0.5), point 2 (1.75), point 1 stays */
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(ms->n, 3);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(particle_sink, drains_a_source)
{
    test_rt t;
    st_scene *s;
    st_error err = {0};
    /* a wave of two particles every 0.5 s from y = 1, moving at -4 (1 per
     * step): y 1, 0, -1, then -2 where it is stopped (below d0) and removed
     * at the next step's start (below d1). (With d0 above d1, SOFA's sink
     * stops particles between the planes for good: velocity zeroed.) */
    cr_assert_eq(sink_scene(&t, "",
                            "    - ParticleSource: {translation: [0, 1, 0], velocity: [0, -4, 0], "
                            "delay: 0.5, addNoise: false, center: [[0, 0, 0], [1, 0, 0]]}\n",
                            "d0: -1, d1: -1", POINTSET, &s, &err),
                 ST_OK, "%s\n%s", err.msg, t.log);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    size_t most = 0;
    for (int k = 0; k < 40; k++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s", k, err.msg);
        if (ms->n > most)
            most = ms->n;
        for (size_t i = 0; i < ms->n; i++)
            cr_assert(ms->position.r[3 * i + 1] >= -1 - 1.0 - 1e-9, "particle %zu at y %g", i,
                      ms->position.r[3 * i + 1]);
    }
    cr_assert_leq(most, 6, "the sink keeps the count bounded (%zu)", most);
    cr_assert_geq(most, 4, "particles accumulate between waves (%zu)", most);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Without a topology, SOFA's MechanicalObject branch: for the removed
 * points in reverse order (3, then 1), the then-last point's values are
 * copied onto the removed one (4 -> 3, then 3 -> 1: the former point 4),
 * then the state shrinks to 3 points [p0, p4, p2]; the mass keeps its
 * indices and total (no topology event reaches it in SOFA). */
Test(particle_sink, removes_from_the_state_without_topology)
{
    test_rt t;
    st_scene *s;
    st_error err = {0};
    cr_assert_eq(sink_scene(&t,
                            ", position: [[0, 5, 0], [1, -1, 0], [2, 3, 0], [3, -2, 0], [4, 4, 0]], "
                            "velocity: [[0, 0, 1], [0, 0, 2], [0, 0, 3], [0, 0, 4], [0, 0, 5]]",
                            "", "d0: 3.5, d1: 0", "", &s, &err),
                 ST_OK, "%s\n%s", err.msg, t.log);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    cr_assert_eq(ms->n, 3, "%zu points", ms->n);
    cr_assert_eq(ms->velocity.n, 3);
    cr_assert_eq(s->systems[0]->size_all, 9);
    const double want_x[3] = {0, 4, 2}, want_y[3] = {5, 4, 3};
    /* z moved by v dt (0.25); point 2 (y 3 < d0) had its velocity zeroed
     * by the projection at init (as the points below it), so stayed */
    const double want_z[3] = {0.25, 1.25, 0}, want_vz[3] = {1, 5, 0};
    for (size_t i = 0; i < 3; i++) {
        const double *x = ms->position.r + 3 * i, *v = ms->velocity.r + 3 * i;
        cr_assert(x[0] == want_x[i] && x[1] == want_y[i] && fabs(x[2] - want_z[i]) < 1e-15,
                  "point %zu at %g %g %g", i, x[0], x[1], x[2]);
        cr_assert(v[0] == 0 && v[1] == 0 && v[2] == want_vz[i], "point %zu v %g %g %g", i, v[0],
                  v[1], v[2]);
    }
    st_component *k = test_find_object(s, "sink");
    const st_array *fixed = st_component_field_ptr(k, st_component_field(k, "fixed"));
    cr_assert(fixed->n == 1 && fixed->u[0] == 2, "fixed: %zu entries", fixed->n);
    st_component *m = NULL;
    for (size_t i = 0; i < st_node_object_count(st_scene_root(s)); i++) {
        st_component *c = st_node_object(st_scene_root(s), i);
        if (!strcmp(c->cls->name, "UniformMass"))
            m = c;
    }
    cr_assert_not_null(m);
    const st_array *idx = st_component_field_ptr(m, st_component_field(m, "indices"));
    const double *total = st_component_field_ptr(m, st_component_field(m, "totalMass"));
    cr_assert(idx->n == 5 && *total == 5.0, "indices %zu, totalMass %g", idx->n, *total);
    /* the next step: no point below d1; the mass skips its indices past
     * the state's end */
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(ms->n, 3);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(particle_sink, refuses_a_grid_topology)
{
    test_rt t;
    st_scene *s;
    st_error err = {0};
    cr_assert_neq(sink_scene(&t, "", "", "d0: 0, d1: 0",
                             "    - RegularGridTopology: {n: [2, 2, 2], min: [0, 0, 0], max: [1, 1, 1]}\n",
                             &s, &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "is not dynamic"), "message: %s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Whether a topology can change is asked of the instance: the Topology
 * plugin's static meshes and grids share their class's operations with
 * the dynamic containers, and a container adds only the kinds it holds. */
Test(particle_sink, topology_can_change_asks_the_instance)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t,
                                  "format: settee/1\n"
                                  "root:\n"
                                  "  objects:\n"
                                  "    - RequiredPlugin: {pluginName: [Topology]}\n"
                                  "  children:\n"
                                  "    - name: a\n"
                                  "      objects:\n"
                                  "        - PointSetTopologyContainer: {name: points, position: "
                                  "[[0, 0, 0], [1, 0, 0]]}\n"
                                  "    - name: b\n"
                                  "      objects:\n"
                                  "        - TriangleSetTopologyContainer: {name: tris, position: "
                                  "[[0, 0, 0], [1, 0, 0], [0, 1, 0]], triangles: [[0, 1, 2]]}\n"
                                  "    - name: c\n"
                                  "      objects:\n"
                                  "        - MeshTopology: {name: mesh, position: [[0, 0, 0], "
                                  "[1, 0, 0], [0, 1, 0]], triangles: [[0, 1, 2]]}\n"
                                  "    - name: d\n"
                                  "      objects:\n"
                                  "        - RegularGridTopology: {name: grid, n: [2, 2, 2]}\n",
                                  &s, &err),
                 ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s\n%s", err.msg, t.log);
    st_component *points = test_find_object(s, "points"), *tris = test_find_object(s, "tris");
    st_component *mesh = test_find_object(s, "mesh"), *grid = test_find_object(s, "grid");
    cr_assert(st_topology_can_change(points, ST_TOPO_ADDED, ST_ELEM_POINT));
    cr_assert(st_topology_can_change(points, ST_TOPO_REMOVED, ST_ELEM_POINT));
    cr_assert_not(st_topology_can_change(points, ST_TOPO_ADDED, ST_ELEM_TRIANGLE));
    cr_assert(st_topology_can_change(tris, ST_TOPO_REMOVED, ST_ELEM_TRIANGLE));
    cr_assert(st_topology_can_change(tris, ST_TOPO_ADDED, ST_ELEM_EDGE));
    cr_assert_not(st_topology_can_change(tris, ST_TOPO_ADDED, ST_ELEM_TETRAHEDRON));
    for (int e = 0; e < ST_ELEM_COUNT; e++) {
        cr_assert_not(st_topology_can_change(mesh, ST_TOPO_REMOVED, (st_elem)e), "mesh %d", e);
        cr_assert_not(st_topology_can_change(grid, ST_TOPO_ADDED, (st_elem)e), "grid %d", e);
    }
    cr_assert_not(st_topology_can_change(NULL, ST_TOPO_REMOVED, ST_ELEM_POINT));
    st_scene_destroy(&s);
    test_rt_close(&t);
}
