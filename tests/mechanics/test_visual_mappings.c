/* test_visual_mappings.c - mappings into visual models (OglModel), as
 * SOFA's non-mechanical mappings into a VisualModelImpl: RigidMapping from
 * a Rigid3d body, SubsetMapping and IdentityMapping from Vec3d particles.
 * The visual positions follow their input after every step, the mapping
 * adds nothing to the mechanical system, `--export-state` lists the model,
 * and a .scn scene and its converted YAML give the same numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(visual_mappings, .init = setup, .fini = teardown);

#define PLUGINS                                                                                    \
    "  <RequiredPlugin name=\"Sofa.Component.Mapping.NonLinear\"/>\n"                              \
    "  <RequiredPlugin name=\"Sofa.Component.Mapping.Linear\"/>\n"                                 \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Forward\"/>\n"                              \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Backward\"/>\n"                             \
    "  <RequiredPlugin name=\"Sofa.Component.LinearSolver.Iterative\"/>\n"                         \
    "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"                                           \
    "  <RequiredPlugin name=\"Sofa.Component.MechanicalLoad\"/>\n"                                 \
    "  <RequiredPlugin name=\"Sofa.GL.Component.Rendering3D\"/>\n"

/* A spinning rigid body (angular velocity 2 rad/s about (0,0,1), linear
 * 0.5 along x, no gravity), with a triangle mapped rigidly into an OglModel
 * that the model's own init translated and scaled first. */
static const char *SPINNING =
    "<Node name=\"root\" dt=\"0.01\" gravity=\"0 0 0\">\n" PLUGINS
    "  <DefaultAnimationLoop/>\n"
    "  <Node name=\"Body\">\n"
    "    <EulerExplicitSolver symplectic=\"true\"/>\n"
    "    <MechanicalObject name=\"dofs\" template=\"Rigid3d\" position=\"1 2 3 0 0 0 1\"\n"
    "                      velocity=\"0.5 0 0 0 0 2\"/>\n"
    "    <UniformMass totalMass=\"2\"/>\n"
    "    <Node name=\"Visual\">\n"
    "      <OglModel name=\"mesh\" position=\"1 0 0  0 1 0  0 0 1\" triangles=\"0 1 2\"\n"
    "                translation=\"0.5 0 0\" scale3d=\"2 2 2\"/>\n"
    "      <RigidMapping name=\"map\" input=\"@../dofs\" output=\"@mesh\"/>\n"
    "    </Node>\n"
    "  </Node>\n"
    "</Node>\n";

static st_scene *load_scn(const char *name, const char *text)
{
    const char *path = test_write_temp(name, text);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "load %s: %s %s", name, err.where,
                 err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init %s: %s %s", name, err.path, err.msg);
    return s;
}

static void steps(st_scene *s, int n)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s", i, err.msg);
}

/* Rotation matrix of a unit quaternion (x y z w), written out here. */
static void quat_matrix(const double q[4], double R[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    R[0][0] = 1 - 2 * (y * y + z * z), R[0][1] = 2 * (x * y - z * w), R[0][2] = 2 * (x * z + y * w);
    R[1][0] = 2 * (x * y + z * w), R[1][1] = 1 - 2 * (x * x + z * z), R[1][2] = 2 * (y * z - x * w);
    R[2][0] = 2 * (x * z - y * w), R[2][1] = 2 * (y * z + x * w), R[2][2] = 1 - 2 * (x * x + y * y);
}

/* Local points of the triangle: the OglModel's init scales by 2, then
 * translates by 0.5 along x, and RigidMapping takes the result as local. */
static const double LOCAL[9] = {2.5, 0, 0, 0.5, 2, 0, 0.5, 0, 2};

static void assert_rigidly_mapped(st_scene *s)
{
    const st_mstate *body = (const st_mstate *)topo_get(s, "/Body/dofs");
    const st_array *vp = topo_arr(topo_get(s, "/Body/Visual/mesh"), "position");
    cr_assert_eq(vp->n, 3);
    const double *c = body->position.r, *q = c + 3;
    double R[3][3];
    quat_matrix(q, R);
    for (int i = 0; i < 3; i++) {
        const double *p = LOCAL + 3 * i;
        double r[3];
        st_quat_rotate(r, q, p);
        for (int a = 0; a < 3; a++) {
            double want = c[a] + R[a][0] * p[0] + R[a][1] * p[1] + R[a][2] * p[2];
            /* R p + t, as a matrix product: equal to round-off ... */
            cr_assert_float_eq(vp->r[3 * i + a], want, 1e-13, "point %d axis %d: %.17g vs %.17g",
                               i, a, vp->r[3 * i + a], want);
            /* ... and bit for bit the rotation SOFA's RigidMapping applies. */
            cr_assert_eq(vp->r[3 * i + a], c[a] + r[a], "point %d axis %d", i, a);
        }
    }
}

Test(visual_mappings, rigid_mapping_moves_the_visual_model_rigidly)
{
    st_scene *s = load_scn("spin.scn", SPINNING);
    /* At init: the transformed mesh, at the body's pose (no rotation yet). */
    assert_rigidly_mapped(s);
    const st_array *vp = topo_arr(topo_get(s, "/Body/Visual/mesh"), "position");
    cr_assert_eq(vp->r[0], 1 + 2.5);
    cr_assert_eq(vp->r[4], 2 + 2.0);
    steps(s, 40);
    /* Known velocity: the body turned 0.8 rad about z, moved 0.2 along x. */
    const st_mstate *body = (const st_mstate *)topo_get(s, "/Body/dofs");
    double angle = 2 * atan2(body->position.r[5], body->position.r[6]);
    cr_assert_float_eq(angle, 0.8, 1e-12, "angle %.17g", angle);
    cr_assert_float_eq(body->position.r[0], 1.2, 1e-12);
    assert_rigidly_mapped(s);
    /* The first vertex went round: x = 1.2 + 2.5 cos 0.8, y = 2 + 2.5 sin 0.8. */
    cr_assert_float_eq(vp->r[0], 1.2 + 2.5 * cos(0.8), 1e-12);
    cr_assert_float_eq(vp->r[1], 2 + 2.5 * sin(0.8), 1e-12);
    st_scene_destroy(&s);
}

/* The same body falling under gravity and pushed off its centre (a
 * constant force on a point mapped rigidly: a force and a torque),
 * integrated implicitly; with or without a visual child. */
static char *pushed_body(bool with_visual)
{
    static const char *head =
        "<Node name=\"root\" dt=\"0.02\" gravity=\"0 -9.81 0\">\n" PLUGINS
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Body\">\n"
        "    <EulerImplicitSolver rayleighStiffness=\"0.1\" rayleighMass=\"0.1\"/>\n"
        "    <CGLinearSolver iterations=\"50\" tolerance=\"1e-14\" threshold=\"1e-14\"/>\n"
        "    <MechanicalObject name=\"dofs\" template=\"Rigid3d\" position=\"0 1 0 0 0 0 1\"/>\n"
        "    <UniformMass totalMass=\"3\"/>\n"
        "    <Node name=\"Handle\">\n"
        "      <MechanicalObject name=\"point\" position=\"0.5 0.2 -0.3\"/>\n"
        "      <ConstantForceField forces=\"1 0.5 -2\"/>\n"
        "      <RigidMapping input=\"@../dofs\" output=\"@point\"/>\n"
        "    </Node>\n";
    static const char *visual =
        "    <Node name=\"Visual\">\n"
        "      <OglModel name=\"mesh\" position=\"1 0 0  0 1 0  0 0 1  1 1 1\"\n"
        "                triangles=\"0 1 2  1 2 3\"/>\n"
        "      <RigidMapping input=\"@../dofs\" output=\"@mesh\"/>\n"
        "    </Node>\n";
    static const char *tail = "  </Node>\n</Node>\n";
    size_t n = strlen(head) + strlen(visual) + strlen(tail) + 1;
    char *text = malloc(n);
    cr_assert_not_null(text);
    snprintf(text, n, "%s%s%s", head, with_visual ? visual : "", tail);
    return text;
}

Test(visual_mappings, a_visual_mapping_adds_nothing_to_the_mechanics)
{
    char *with = pushed_body(true), *without = pushed_body(false);
    st_scene *a = load_scn("with.scn", with), *b = load_scn("without.scn", without);
    free(with);
    free(without);
    const st_mstate *ma = (const st_mstate *)topo_get(a, "/Body/dofs");
    const st_mstate *mb = (const st_mstate *)topo_get(b, "/Body/dofs");
    /* The visual model is no state of the system. */
    cr_assert_not_null(ma->system);
    cr_assert_eq(ma->system->nstates, 2, "the body and the mechanical handle");
    cr_assert_eq(ma->system->size_all, 9);
    for (int k = 0; k < 50; k++) {
        steps(a, 1);
        steps(b, 1);
        for (int i = 0; i < 7; i++)
            cr_assert_eq(ma->position.r[i], mb->position.r[i], "step %d x[%d]", k, i);
        for (int i = 0; i < 6; i++)
            cr_assert_eq(ma->velocity.r[i], mb->velocity.r[i], "step %d v[%d]", k, i);
    }
    /* It moved (and turned), and the visual model followed. */
    cr_assert_lt(ma->position.r[1], 0.0);
    cr_assert_gt(fabs(ma->position.r[5]), 1e-3);
    const st_array *vp = topo_arr(topo_get(a, "/Body/Visual/mesh"), "position");
    double r[3];
    st_quat_rotate(r, ma->position.r + 3, (const double[3]){1, 1, 1});
    for (int k = 0; k < 3; k++)
        cr_assert_eq(vp->r[9 + k], ma->position.r[k] + r[k]);
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

/* Particles in free fall; a SubsetMapping and an IdentityMapping write two
 * OglModels. */
static const char *PARTICLES =
    "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -10 0\">\n" PLUGINS
    "  <DefaultAnimationLoop/>\n"
    "  <Node name=\"Cloud\">\n"
    "    <EulerExplicitSolver symplectic=\"true\"/>\n"
    "    <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0  2 0 0  3 0 0\"\n"
    "                      velocity=\"0 1 0  0 2 0  0 3 0  1 0 0\"/>\n"
    "    <UniformMass totalMass=\"4\"/>\n"
    "    <Node name=\"Subset\">\n"
    "      <OglModel name=\"some\" position=\"9 9 9  9 9 9\"/>\n"
    "      <SubsetMapping input=\"@../dofs\" output=\"@some\" indices=\"3 1\"/>\n"
    "    </Node>\n"
    "    <Node name=\"All\">\n"
    "      <OglModel name=\"all\"/>\n"
    "      <IdentityMapping input=\"@../dofs\" output=\"@all\"/>\n"
    "    </Node>\n"
    "  </Node>\n"
    "</Node>\n";

Test(visual_mappings, subset_and_identity_mappings_write_visual_models)
{
    st_scene *s = load_scn("cloud.scn", PARTICLES);
    const st_mstate *in = (const st_mstate *)topo_get(s, "/Cloud/dofs");
    const st_array *some = topo_arr(topo_get(s, "/Cloud/Subset/some"), "position");
    const st_array *all = topo_arr(topo_get(s, "/Cloud/All/all"), "position");
    cr_assert_eq(in->system->nstates, 1, "the visual models are no mechanical states");
    for (int k = 0; k < 25; k++) {
        steps(s, 1);
        cr_assert_eq(some->n, 2);
        cr_assert_eq(all->n, 4);
        for (int a = 0; a < 3; a++) {
            cr_assert_eq(some->r[a], in->position.r[9 + a], "step %d", k);
            cr_assert_eq(some->r[3 + a], in->position.r[3 + a], "step %d", k);
        }
        for (int i = 0; i < 12; i++)
            cr_assert_eq(all->r[i], in->position.r[i], "step %d x[%d]", k, i);
    }
    cr_assert_gt(in->position.r[9], 3.2, "the particles moved");
    st_scene_destroy(&s);
}

/* SOFA's VisualModelImpl (Sofa.Component.Visual, OglModel's base) is the
 * same visual state: an IdentityMapping writes it. */
Test(visual_mappings, visual_model_impl_is_a_visual_state)
{
    static const char *text =
        "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -10 0\">\n" PLUGINS
        "  <RequiredPlugin name=\"Sofa.Component.Visual\"/>\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Cloud\">\n"
        "    <EulerExplicitSolver symplectic=\"true\"/>\n"
        "    <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0\"/>\n"
        "    <UniformMass totalMass=\"2\"/>\n"
        "    <Node name=\"Visu\">\n"
        "      <VisualModelImpl name=\"Visual\" color=\"blue\"/>\n"
        "      <IdentityMapping input=\"@../dofs\" output=\"@Visual\"/>\n"
        "    </Node>\n"
        "  </Node>\n"
        "</Node>\n";
    st_scene *s = load_scn("impl.scn", text);
    steps(s, 3);
    const st_mstate *in = (const st_mstate *)topo_get(s, "/Cloud/dofs");
    const st_array *vis = topo_arr(topo_get(s, "/Cloud/Visu/Visual"), "position");
    cr_assert_eq(vis->n, 2);
    cr_assert_lt(in->position.r[1], 0.0, "the particles fell");
    for (int i = 0; i < 6; i++)
        cr_assert_eq(vis->r[i], in->position.r[i], "x[%d]", i);
    st_scene_destroy(&s);
}

/* The value of "key" in a JSON text: the text after it, or NULL. */
static const char *after(const char *text, const char *key) { return strstr(text, key); }

Test(visual_mappings, export_state_lists_mapped_visual_models)
{
    st_scene *s = load_scn("export.scn", PARTICLES);
    steps(s, 3);
    char dir[512], path[600];
    test_make_dir(dir, sizeof dir, "visual-export");
    snprintf(path, sizeof path, "%s/state.json", dir);
    st_error err = {0};
    cr_assert_eq(st_scene_export_state(s, path, 3, &err), ST_OK, "%s", err.msg);
    char *text = test_read_file(path);
    cr_assert_not_null(text);
    const char *v = after(text, "\"visual\": [");
    cr_assert_not_null(v, "%s", text);
    const char *p1 = after(v, "\"path\": \"/Cloud/Subset/some\"");
    const char *p2 = after(v, "\"path\": \"/Cloud/All/all\"");
    cr_assert(p1 && p2 && p1 < p2, "%s", text);
    /* The subset's first point is particle 3: x = 3 + 3 dt. */
    const st_mstate *in = (const st_mstate *)topo_get(s, "/Cloud/dofs");
    char want[128];
    snprintf(want, sizeof want, "[%.17g, %.17g, %.17g]", in->position.r[9], in->position.r[10],
             in->position.r[11]);
    cr_assert_not_null(strstr(p1, want), "%s not in %s", want, p1);
    free(text);
    test_remove_dir(dir);
    st_scene_destroy(&s);
}

Test(visual_mappings, scn_and_converted_yaml_give_the_same_visual_positions)
{
    const char *scn = test_write_temp("convert.scn", SPINNING);
    char yaml[600];
    snprintf(yaml, sizeof yaml, "%s.yaml", scn);
    st_error err = {0};
    cr_assert_eq(st_scene_convert(T.rt, scn, yaml, &err), ST_OK, "%s", err.msg);
    st_scene *a = load_scn("convert2.scn", SPINNING), *b = NULL;
    cr_assert_eq(st_scene_load(T.rt, yaml, &b, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(b, &err), ST_OK, "%s", err.msg);
    steps(a, 30);
    steps(b, 30);
    const st_array *va = topo_arr(topo_get(a, "/Body/Visual/mesh"), "position");
    const st_array *vb = topo_arr(topo_get(b, "/Body/Visual/mesh"), "position");
    cr_assert_eq(va->n, 3);
    cr_assert_eq(vb->n, 3);
    cr_assert_eq(memcmp(va->r, vb->r, 9 * sizeof(double)), 0);
    cr_assert_neq(va->r[1], 2.0, "the model moved");
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

Test(visual_mappings, an_output_that_is_no_state_nor_visual_model_is_an_error)
{
    static const char *bad =
        "<Node name=\"root\" dt=\"0.01\">\n" PLUGINS
        "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Constant\"/>\n"
        "  <MechanicalObject name=\"dofs\" template=\"Rigid3d\" position=\"0 0 0 0 0 0 1\"/>\n"
        "  <Node name=\"Child\">\n"
        "    <MeshTopology name=\"topo\" position=\"0 0 0\"/>\n"
        "    <RigidMapping input=\"@../dofs\" output=\"@topo\"/>\n"
        "  </Node>\n"
        "</Node>\n";
    const char *path = test_write_temp("bad.scn", bad);
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = st_scene_load(T.rt, path, &s, &err);
    if (st == ST_OK) {
        st = st_scene_init(s, &err);
        st_scene_destroy(&s);
    }
    cr_assert_neq(st, ST_OK);
    cr_assert_not_null(strstr(err.msg, "MechanicalObject"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "visual model"), "%s", err.msg);
}

Test(visual_mappings, identity_mapping_puts_a_rigid_frame_s_centre_in_a_visual_model)
{
    /* SOFA's IdentityMapping<Rigid3, Vec3>: a Vec3d visual model takes the
     * frames' centres. */
    static const char *scn =
        "<Node name=\"root\" dt=\"0.01\">\n" PLUGINS
        "  <MechanicalObject name=\"dofs\" template=\"Rigid3d\" position=\"1 2 3 0 0 0 1\"/>\n"
        "  <Node name=\"Child\">\n"
        "    <OglModel name=\"mesh\" position=\"0 0 0\"/>\n"
        "    <IdentityMapping input=\"@../dofs\" output=\"@mesh\"/>\n"
        "  </Node>\n"
        "</Node>\n";
    const char *path = test_write_temp("rigid_identity.scn", scn);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_component *mesh = test_find_object(s, "mesh");
    const st_array *p = st_component_field_ptr(mesh, st_component_field(mesh, "position"));
    cr_assert_eq(p->n, 1);
    cr_assert(p->r[0] == 1 && p->r[1] == 2 && p->r[2] == 3, "(%g %g %g)", p->r[0], p->r[1],
              p->r[2]);
    st_scene_destroy(&s);
}

Test(visual_mappings, visual_models_are_known_before_init_and_written_by_output)
{
    /* Before init, from the mappings' output links; the same after. */
    const char *path = test_write_temp("cloud-output.scn", PARTICLES);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "%s", err.msg);
    st_component *vm[4] = {NULL};
    cr_assert_eq(st_scene_visual_models(s, vm, 4), 2);
    cr_assert_str_eq(vm[0]->name, "some");
    cr_assert_str_eq(vm[1]->name, "all");
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_visual_models(s, vm, 4), 2);
    cr_assert_str_eq(vm[0]->name, "some");
    st_scene_destroy(&s);

    /* settee run --output writes each one's positions (and faces) as VTU. */
    char dir[512], cmd[2048], out[8192];
    test_make_dir(dir, sizeof dir, "visual-output");
    snprintf(cmd, sizeof cmd, "'%s' run '%s' -n 4 -q --output '%s/o' --every 2", SETTEE_CLI, path,
             dir);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
    /* Named after the node, as a MechanicalObject alone in its node is. */
    char file[700];
    snprintf(file, sizeof file, "%s/o/Cloud/Subset2.vtu", dir);
    char *vtu = test_read_file(file);
    cr_assert_not_null(vtu, "no %s", file);
    cr_assert_not_null(strstr(vtu, "NumberOfPoints=\"2\""), "%.300s", vtu);
    free(vtu);
    snprintf(file, sizeof file, "%s/o/Cloud/All.pvd", dir);
    char *pvd = test_read_file(file);
    cr_assert_not_null(pvd, "%s", file);
    cr_assert_not_null(strstr(pvd, "All2.vtu"), "%s", pvd);
    free(pvd);
    test_remove_dir(dir);
}

/* A mapping's input="@.." from a node without a state: the nearest state up
 * the tree (SOFA's Node::getState), here two levels up. */
static const char *GRID =
    "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -10 0\">\n" PLUGINS
    "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Grid\"/>\n"
    "  <DefaultAnimationLoop/>\n"
    "  <Node name=\"Block\">\n"
    "    <EulerExplicitSolver symplectic=\"true\"/>\n"
    "    <MechanicalObject name=\"dofs\"/>\n"
    "    <RegularGridTopology nx=\"2\" ny=\"2\" nz=\"2\" min=\"0 0 0\" max=\"1 1 1\"/>\n"
    "    <UniformMass totalMass=\"1\"/>\n"
    "    <Node name=\"Visuals\">\n"
    "      <Node name=\"One\">\n"
    "        <OglModel name=\"mesh\" position=\"0.5 0.5 0.5  0.25 0.75 0\"/>\n"
    "        <BarycentricMapping name=\"map\" input=\"@..\" output=\"@mesh\"/>\n"
    "      </Node>\n"
    "    </Node>\n"
    "  </Node>\n"
    "</Node>\n";

Test(visual_mappings, input_dot_dot_takes_the_nearest_state_up)
{
    st_scene *s = load_scn("grid.scn", GRID);
    st_component *map = topo_get(s, "/Block/Visuals/One/map");
    const st_mstate *dofs = (const st_mstate *)topo_get(s, "/Block/dofs");
    cr_assert_eq(map->cls->mapping->input(map), dofs);
    cr_assert_null(map->cls->mapping->output(map), "a visual mapping has no mechanical output");
    steps(s, 10);
    /* Free fall of the whole grid: the mapped points fall with it. */
    const st_array *vp = topo_arr(topo_get(s, "/Block/Visuals/One/mesh"), "position");
    double dy = dofs->position.r[1] - 0.0;
    cr_assert_lt(dy, -0.005);
    cr_assert_float_eq(vp->r[1], 0.5 + dy, 1e-14);
    cr_assert_float_eq(vp->r[4], 0.75 + dy, 1e-14);
    st_scene_destroy(&s);
}

Test(visual_mappings, input_dot_dot_without_any_state_above_is_an_error)
{
    static const char *bad =
        "<Node name=\"root\" dt=\"0.01\">\n" PLUGINS
        "  <Node name=\"Visuals\">\n"
        "    <Node name=\"One\">\n"
        "      <OglModel name=\"mesh\" position=\"0 0 0\"/>\n"
        "      <IdentityMapping input=\"@..\" output=\"@mesh\"/>\n"
        "    </Node>\n"
        "  </Node>\n"
        "</Node>\n";
    const char *path = test_write_temp("nostate.scn", bad);
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = st_scene_load(T.rt, path, &s, &err);
    if (st == ST_OK) {
        st = st_scene_init(s, &err);
        st_scene_destroy(&s);
    }
    cr_assert_neq(st, ST_OK);
    cr_assert_not_null(strstr(err.msg, "nor has any node above it"), "%s", err.msg);
}

/* Vertices split at a texture seam (a loader's handleSeams): positions
 * given with vertPosIdx become one per index (SOFA's
 * initPositionFromVertices), the mapping writes those, and each vertex
 * follows its position after every step. */
static const char *SEAM =
    "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -10 0\">\n" PLUGINS
    "  <DefaultAnimationLoop/>\n"
    "  <Node name=\"Cloud\">\n"
    "    <EulerExplicitSolver symplectic=\"true\"/>\n"
    "    <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0  0 1 0\"\n"
    "                      velocity=\"0 0 1  0 0 2  0 0 3\"/>\n"
    "    <UniformMass totalMass=\"3\"/>\n"
    "    <Node name=\"Visual\">\n"
    "      <OglModel name=\"mesh\" position=\"0 0 0  1 0 0  0 1 0  1 0 0  0 0 0\"\n"
    "                vertPosIdx=\"0 1 2 1 0\" triangles=\"0 1 2  3 2 4\"/>\n"
    "      <IdentityMapping input=\"@../dofs\" output=\"@mesh\"/>\n"
    "    </Node>\n"
    "  </Node>\n"
    "</Node>\n";

Test(visual_mappings, vertices_split_at_seams_follow_the_mapped_positions)
{
    st_scene *s = load_scn("seam.scn", SEAM);
    st_component *mesh = topo_get(s, "/Cloud/Visual/mesh");
    const st_array *pos = topo_arr(mesh, "position"), *ver = topo_arr(mesh, "vertices");
    cr_assert_eq(pos->n, 3, "one position per index");
    cr_assert_eq(ver->n, 5, "the split vertices");
    steps(s, 7);
    const st_mstate *in = (const st_mstate *)topo_get(s, "/Cloud/dofs");
    static const unsigned idx[5] = {0, 1, 2, 1, 0};
    cr_assert_gt(in->position.r[5], 0.1, "the particles moved");
    for (int i = 0; i < 5; i++)
        for (int a = 0; a < 3; a++)
            cr_assert_eq(ver->r[3 * i + a], in->position.r[3 * idx[i] + a], "vertex %d", i);
    for (int i = 0; i < 9; i++)
        cr_assert_eq(pos->r[i], in->position.r[i]);
    /* Normals are the faces' (both faces lie in a plane: unit, equal). */
    const st_array *nrm = topo_arr(mesh, "normal");
    cr_assert_eq(nrm->n, 5);
    cr_assert_float_eq(nrm->r[0] * nrm->r[0] + nrm->r[1] * nrm->r[1] + nrm->r[2] * nrm->r[2], 1.0,
                       1e-12);
    st_scene_destroy(&s);
}

/* The faces of a mapped OglModel are checked against its positions once
 * its mapping filled them (after every init, else after the first step),
 * not at its own init, when it has none yet: a floor whose faces come from
 * the topology above and whose positions from an IdentityMapping (SOFA's
 * Haptics ToolvsFloorCollision_test.scn) and a model given its faces gives
 * no warning and gets its normals; faces past the mapped positions are
 * still said. */
#define FLOOR(faces)                                                                               \
    "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -10 0\">\n" PLUGINS                               \
    "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Constant\"/>\n"                    \
    "  <EulerExplicitSolver/>\n"                                                                  \
    "  <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0  0 1 0  1 1 0\"/>\n"                \
    "  <UniformMass vertexMass=\"1\"/>\n"                                                         \
    "  <Node name=\"Floor\">\n"                                                                   \
    "    <MechanicalObject name=\"fdofs\" position=\"0 0 0  2 0 0  0 0 -2\"/>\n"                   \
    "    <MeshTopology triangles=\"0 1 2\"/>\n"                                                    \
    "    <Node name=\"Visu\">\n"                                                                  \
    "      <OglModel name=\"floor\"/>\n"                                                          \
    "      <IdentityMapping input=\"@../\" output=\"@floor\"/>\n"                                  \
    "    </Node>\n"                                                                               \
    "  </Node>\n"                                                                                 \
    "  <Node name=\"Visu\">\n"                                                                    \
    "    <OglModel name=\"sheet\" triangles=\"" faces "\"/>\n"                                     \
    "    <IdentityMapping input=\"@../dofs\" output=\"@sheet\"/>\n"                                \
    "  </Node>\n"                                                                                 \
    "</Node>\n"

Test(visual_mappings, mapped_faces_are_checked_once_the_mapping_filled_the_positions)
{
    st_scene *s = load_scn("mapped_faces.scn", FLOOR("0 1 2  1 3 2"));
    steps(s, 2);
    cr_assert_null(strstr(T.log, "beyond the"), "no warning for a correct mapped model:\n%s",
                   T.log);
    /* the normals: the sheet's faces turn about +z, the floor's about +y
     * (edges (2 0 0) then (0 0 -2): (0 4 0)) */
    const st_array *n = topo_arr(topo_get(s, "/Visu/sheet"), "normal");
    cr_assert_eq(n->n, 4);
    for (size_t i = 0; i < 4; i++)
        cr_assert(n->r[3 * i] == 0 && n->r[3 * i + 1] == 0 && n->r[3 * i + 2] == 1,
                  "sheet normal %zu: %g %g %g", i, n->r[3 * i], n->r[3 * i + 1], n->r[3 * i + 2]);
    const st_array *fn = topo_arr(topo_get(s, "/Floor/Visu/floor"), "normal");
    cr_assert_eq(fn->n, 3);
    cr_assert(fn->r[0] == 0 && fn->r[1] == 1 && fn->r[2] == 0, "floor normal %g %g %g",
              fn->r[0], fn->r[1], fn->r[2]);
    st_scene_destroy(&s);

    test_log_clear(&T);
    s = load_scn("mapped_faces_bad.scn", FLOOR("0 1 2  1 3 7"));
    cr_assert_not_null(strstr(T.log, "sheet|triangles or quads index points beyond the 4 "
                                     "positions"),
                       "a face past the mapped positions is said:\n%s", T.log);
    cr_assert_null(strstr(T.log, "floor|triangles"), "%s", T.log);
    st_scene_destroy(&s);
}
