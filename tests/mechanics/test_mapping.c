/* test_mapping.c - IdentityMapping (positions and velocities down, forces
 * up, a visual model as output) and the topology part of the seed scenes
 * (grid, BoxROI, visual node with Hexa2QuadTopologicalMapping, OglModel and
 * IdentityMapping, the floor loaded with MeshOBJLoader). */
#include <math.h>
#include <stdio.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(mapping, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  dt: 0.01\n"                                                                                \
    "  gravity: [0, -10, 0]\n"                                                                    \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Mapping.Linear,"                          \
    " Sofa.Component.ODESolver.Forward, Sofa.Component.Mass, Sofa.Component.Visual,"        \
    " Sofa.GL.Component.Rendering3D]}\n"

static const char *MAPPED =
    HEAD "  children:\n"
         "    - name: body\n"
         "      objects:\n"
         "        - EulerExplicitSolver: {symplectic: true}\n"
         "        - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0]]}\n"
         "        - UniformMass: {totalMass: 2}\n"
         "      children:\n"
         "        - name: copy\n"
         "          objects:\n"
         "            - MechanicalObject: {name: out}\n"
         "            - IdentityMapping: {name: map, input: \"@../dofs\", output: \"@out\"}\n"
         "        - name: visual\n"
         "          objects:\n"
         "            - OglModel: {name: Visual, color: yellow}\n"
         "            - IdentityMapping: {input: \"@../dofs\", output: \"@Visual\"}\n";

Test(mapping, identity_sizes_the_output_and_follows_the_input)
{
    st_scene *s = topo_scene(&T, MAPPED);
    st_mstate *in = (st_mstate *)topo_get(s, "/body/dofs");
    st_mstate *out = (st_mstate *)topo_get(s, "/body/copy/out");
    cr_assert_eq(out->position.n, 2);
    cr_assert_eq(out->position.r[3], 1.0);
    st_error err = {0};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    /* Free fall: the mapped state has the same positions and velocities. */
    cr_assert_lt(in->position.r[1], 0.0);
    for (int k = 0; k < 6; k++) {
        cr_assert_eq(out->position.r[k], in->position.r[k], "x[%d]", k);
        cr_assert_eq(out->velocity.r[k], in->velocity.r[k], "v[%d]", k);
    }
    /* The visual model's positions follow too. */
    const st_array *vp = topo_arr(topo_get(s, "/body/visual/Visual"), "position");
    cr_assert_eq(vp->n, 2);
    cr_assert_eq(vp->r[1], in->position.r[1]);
    st_scene_destroy(&s);
}

Test(mapping, identity_maps_forces_up)
{
    st_scene *s = topo_scene(&T, MAPPED);
    st_component *map = topo_get(s, "/body/copy/map");
    st_mstate *in = (st_mstate *)topo_get(s, "/body/dofs");
    st_mstate *out = (st_mstate *)topo_get(s, "/body/copy/out");
    cr_assert_not_null(in->system);
    double *f = in->system->f;
    memset(f, 0, 3 * in->system->nall * sizeof(double));
    st_slice(f, out)[4] = 2.5;
    st_slice(f, in)[4] = 1.0;
    map->cls->mapping->apply_jt(map, &in->system->mp, f);
    cr_assert_eq(st_slice(f, in)[4], 3.5);
    cr_assert_eq(map->cls->mapping->input(map), in);
    cr_assert_eq(map->cls->mapping->output(map), out);
    st_scene_destroy(&s);
}

Test(mapping, identity_bad_links)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MechanicalObject: {name: dofs}\n"
                                            "    - VisualStyle: {name: vs}\n"
                                            "    - IdentityMapping: {input: \"@dofs\", output: "
                                            "\"@vs\"}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "output"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - MechanicalObject: {name: dofs}\n"
                                            "    - IdentityMapping: {output: \"@dofs\"}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "input"), "%s", err.msg);
}

/* SOFA's defaults: input "@../" (the parent node's MechanicalObject), output
 * "@./" (this node's). */
Test(mapping, input_and_output_default_to_parent_and_own_state)
{
    st_scene *s = topo_scene(&T, HEAD "  children:\n"
                                      "    - name: body\n"
                                      "      objects:\n"
                                      "        - EulerExplicitSolver: {symplectic: true}\n"
                                      "        - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0]]}\n"
                                      "        - UniformMass: {totalMass: 2}\n"
                                      "      children:\n"
                                      "        - name: copy\n"
                                      "          objects:\n"
                                      "            - MechanicalObject: {name: out}\n"
                                      "            - IdentityMapping: {name: map}\n");
    st_component *map = topo_get(s, "/body/copy/map");
    st_mstate *in = (st_mstate *)topo_get(s, "/body/dofs");
    st_mstate *out = (st_mstate *)topo_get(s, "/body/copy/out");
    cr_assert_eq(map->cls->mapping->input(map), in);
    cr_assert_eq(map->cls->mapping->output(map), out);
    cr_assert_eq(out->position.n, 2);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_lt(in->position.r[1], 0.0);
    cr_assert_eq(out->position.r[1], in->position.r[1]);
    st_scene_destroy(&s);
    /* No state in the parent: the default names what it looked for. */
    memset(&err, 0, sizeof err);
    cr_assert_neq(topo_scene_fails(&T, HEAD "  children:\n"
                                            "    - name: copy\n"
                                            "      objects:\n"
                                            "        - MechanicalObject: {name: out}\n"
                                            "        - IdentityMapping: {name: map}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "input") && strstr(err.msg, "MechanicalObject"), "%s", err.msg);
}

Test(mapping, visual_components_keep_their_data)
{
    st_error err = {0};
    st_scene *s = topo_scene(&T, HEAD "    - VisualStyle: {name: vs, displayFlags: \"showBehaviorModels"
                                      " showForceFields\"}\n"
                                      "    - OglModel: {name: m, color: \"0.5 0.5 1\", "
                                      "position: [[1,2,3]], translation: [1, 0, 0]}\n");
    st_component *m = topo_get(s, "m");
    cr_assert_eq(topo_arr(m, "position")->r[0], 2.0);
    cr_assert_eq(topo_arr(m, "restPosition")->n, 1);
    cr_assert_eq(T.nerrors, 0);
    cr_assert_null(strstr(T.log, "unknown flag"), "%s", T.log);
    st_scene_destroy(&s);
    cr_assert_neq(topo_scene_fails(&T, HEAD "    - OglModel: {color: notacolor}\n", &err), ST_OK);
    cr_assert(strstr(err.msg, "expects a colour"), "%s", err.msg);
    cr_assert(strstr(err.where, "test.yaml:8:"), "%s", err.where);
    s = topo_scene(&T, HEAD "    - VisualStyle: {displayFlags: showNothing}\n");
    cr_assert(strstr(T.log, "unknown flag 'showNothing'"), "%s", T.log);
    st_scene_destroy(&s);
}

/* The seed scenes without their mechanics (masses, springs, solvers belong to
 * other plugins): every topology, ROI, loader, mapping and visual component. */
static const char *SEED_TOPOLOGY =
    "format: settee/1\n"
    "root:\n"
    "  name: root\n"
    "  gravity: [0, -9.81, 0]\n"
    "  dt: 0.00001\n"
    "  objects:\n"
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Select, Sofa.Component.IO.Mesh,"
    " Sofa.Component.Mapping.Linear, Sofa.Component.StateContainer,"
    " Sofa.Component.Topology.Container.Dynamic, Sofa.Component.Topology.Container.Grid,"
    " Sofa.Component.Topology.Mapping, Sofa.Component.Visual, Sofa.GL.Component.Rendering3D]}\n"
    "    - DefaultAnimationLoop: {}\n"
    "    - VisualStyle: {displayFlags: \"showBehaviorModels showForceFields\"}\n"
    "  children:\n"
    "    - name: DeformableObject\n"
    "      objects:\n"
    "        - MechanicalObject: {name: dofs}\n"
    "        - RegularGridTopology: {name: topology, nx: 4, ny: 4, nz: 11, xmin: -1.5, xmax: 1.5,"
    " ymin: -1.5, ymax: 1.5, zmin: 0, zmax: 10}\n"
    "        - HexahedronSetGeometryAlgorithms: {}\n"
    "        - BoxROI: {box: \"-1.5 -1.5 0 1.5 1.5 0.0001\", name: box}\n"
    "      children:\n"
    "        - name: visual\n"
    "          objects:\n"
    "            - QuadSetTopologyContainer: {name: Container}\n"
    "            - QuadSetTopologyModifier: {}\n"
    "            - Hexa2QuadTopologicalMapping: {input: \"@../topology\", output: \"@Container\"}\n"
    "            - OglModel: {name: Visual, color: yellow, quads: \"@Container.quads\"}\n"
    "            - IdentityMapping: {input: \"@../dofs\", output: \"@Visual\"}\n"
    "    - name: floor-visual\n"
    "      objects:\n"
    "        - MeshOBJLoader: {name: meshLoader, filename: \"%s/scenes/meshes/floorFlat.obj\","
    " scale3d: \"0.5 0.5 0.5\"}\n"
    "        - OglModel: {src: \"@meshLoader\", dy: -8, dz: 10}\n"
    "        - OglModel: {src: \"@meshLoader\", rx: 90, dy: 2}\n";

Test(mapping, seed_scene_topology_part)
{
    char yaml[8192];
    snprintf(yaml, sizeof yaml, SEED_TOPOLOGY, SETTEE_SOURCE_DIR);
    st_scene *s = topo_scene(&T, yaml);
    st_mstate *dofs = (st_mstate *)topo_get(s, "/DeformableObject/dofs");
    cr_assert_eq(dofs->position.n, 176);
    cr_assert_eq(dofs->position.r[3 * 175 + 2], 10.0);
    cr_assert_eq(topo_arr(topo_get(s, "/DeformableObject/box"), "indices")->n, 16);
    st_component *vis = topo_get(s, "/DeformableObject/visual/Visual");
    cr_assert_eq(topo_arr(vis, "quads")->n, 138);
    cr_assert_eq(topo_arr(vis, "position")->n, 176);
    cr_assert_eq(topo_arr(topo_get(s, "/floor-visual/meshLoader"), "quads")->n, 100);
    cr_assert_eq(T.nerrors, 0, "%s", T.log);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_scene_destroy(&s);
}

/* The seed scenes in scenes/, complete, when they exist (they need the
 * mechanics plugins). */
Test(mapping, seed_scenes_load_when_present)
{
    const char *names[] = {"EulerExplicitSolver.yaml", "EulerExplicitSolver_diagonal.yaml"};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/scenes/%s", SETTEE_SOURCE_DIR, names[i]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        fclose(f);
        st_scene *s = NULL;
        st_error err = {0};
        cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "%s: %s %s", names[i], err.where,
                     err.msg);
        cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s: %s %s", names[i], err.where, err.msg);
        st_component *vis = topo_get(s, "/DeformableObject/visual/Visual");
        cr_assert_eq(topo_arr(vis, "quads")->n, 138);
        st_scene_destroy(&s);
    }
}
