/* test_mapped_object.c - MappedObject, SOFA's non-mechanical state: a
 * mapping into it is applied after each step (positions, then velocities),
 * it takes no part in the mechanical system, and at the end of every step
 * it holds what a mechanical twin (the same mapping into a MechanicalObject
 * with nothing acting on it) holds. Also its own init (an empty position
 * taken from its node's MechanicalObject) and its errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(mapped_object, .init = setup, .fini = teardown);

#define PLUGINS                                                                                    \
    "  <RequiredPlugin name=\"Sofa.Component.Mapping.NonLinear\"/>\n"                              \
    "  <RequiredPlugin name=\"Sofa.Component.Mapping.Linear\"/>\n"                                 \
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Forward\"/>\n"                              \
    "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"                                           \
    "  <RequiredPlugin name=\"Sofa.Component.StateContainer\"/>\n"

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

static st_status load_scn_fails(const char *name, const char *text, st_error *err)
{
    const char *path = test_write_temp(name, text);
    st_scene *s = NULL;
    st_status st = st_scene_load(T.rt, path, &s, err);
    if (st == ST_OK)
        st = st_scene_init(s, err);
    st_scene_destroy(&s);
    return st;
}

static void steps(st_scene *s, int n)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s", i, err.msg);
}

/* A rigid body spinning about z (2 rad/s) and drifting along x, pulled
 * down by gravity, with two marks fixed in its frame, in MARKS. */
static const char *SPIN_HEAD =
    "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -1 0\">\n" PLUGINS
    "  <DefaultAnimationLoop/>\n"
    "  <Node name=\"Body\">\n"
    "    <EulerExplicitSolver symplectic=\"true\"/>\n"
    "    <MechanicalObject name=\"dofs\" template=\"Rigid3d\" position=\"1 2 3 0 0 0 1\"\n"
    "                      velocity=\"0.5 0 0 0 0 2\"/>\n"
    "    <UniformMass totalMass=\"2\"/>\n"
    "    <Node name=\"Marks\">\n";
static const char *SPIN_TAIL = "      <RigidMapping name=\"map\"/>\n"
                               "    </Node>\n"
                               "  </Node>\n"
                               "</Node>\n";

static st_scene *spinning(const char *name, const char *marks)
{
    char text[4096];
    snprintf(text, sizeof text, "%s      %s\n%s", SPIN_HEAD, marks, SPIN_TAIL);
    return load_scn(name, text);
}

/* Rotation of v by the unit quaternion q (x y z w), written out here. */
static void rotate(const double q[4], const double v[3], double out[3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    for (int a = 0; a < 3; a++)
        out[a] = R[a][0] * v[0] + R[a][1] * v[1] + R[a][2] * v[2];
}

/* With no template under a Rigid3d body, a MappedObject is Vec3d, as SOFA
 * creates it; the node link of RigidMapping's default output finds it. The
 * marks follow x_i = c + R p_i, v_i = v + w x R p_i after every step, and
 * the mechanical system holds the body only. */
Test(mapped_object, rigid_mapping_writes_positions_and_velocities)
{
    st_scene *s = spinning("spin.scn", "<MappedObject name=\"marks\" position=\"1 0 0  0 1 2\"/>");
    const double local[6] = {1, 0, 0, 0, 1, 2};
    const st_mstate *body = (const st_mstate *)topo_get(s, "/Body/dofs");
    st_component *marks = topo_get(s, "/Body/Marks/marks");
    cr_assert_str_eq(marks->cls->name, "MappedObject");
    cr_assert_eq(body->system->nstates, 1, "the MappedObject is no mechanical state");
    cr_assert_eq(st_scene_visual_models(s, NULL, 0), 0, "nor a visual model");
    for (int round = 0; round < 3; round++) {
        steps(s, 17);
        const double *c = body->position.r, *v = body->velocity.r;
        const st_array *x = topo_arr(marks, "position"), *xv = topo_arr(marks, "velocity");
        cr_assert_eq(x->n, 6);
        cr_assert_eq(xv->n, 6);
        for (int i = 0; i < 2; i++) {
            double r[3];
            rotate(c + 3, local + 3 * i, r);
            const double w[3] = {v[3], v[4], v[5]};
            const double wr[3] = {w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2],
                                  w[0] * r[1] - w[1] * r[0]};
            for (int a = 0; a < 3; a++) {
                cr_assert_float_eq(x->r[3 * i + a], c[a] + r[a], 1e-12, "x[%d][%d]", i, a);
                cr_assert_float_eq(xv->r[3 * i + a], v[a] + wr[a], 1e-12, "v[%d][%d]", i, a);
            }
        }
    }
    /* the body did turn and fall: the test is not of a body at rest */
    cr_assert_gt(fabs(body->position.r[5]), 0.4);
    cr_assert_lt(body->velocity.r[1], -0.5);
    st_scene_destroy(&s);
}

/* The same marks mapped into a MechanicalObject that nothing acts on: at
 * the end of every step both hold the same numbers (SOFA's non-mechanical
 * mapping, applied after the step, sees the positions the mechanical one
 * was propagated to). */
Test(mapped_object, same_numbers_as_a_mechanical_twin)
{
    st_scene *a = spinning("twin_a.scn", "<MappedObject name=\"marks\" position=\"1 0 0  0 1 2\"/>");
    st_scene *b = spinning("twin_b.scn",
                           "<MechanicalObject name=\"marks\" position=\"1 0 0  0 1 2\"/>");
    cr_assert_eq(((const st_mstate *)topo_get(b, "/Body/dofs"))->system->nstates, 2);
    st_component *ma = topo_get(a, "/Body/Marks/marks");
    const st_mstate *mb = (const st_mstate *)topo_get(b, "/Body/Marks/marks");
    for (int k = 0; k < 25; k++) {
        steps(a, 1);
        steps(b, 1);
        const st_array *x = topo_arr(ma, "position"), *v = topo_arr(ma, "velocity");
        for (int i = 0; i < 6; i++) {
            cr_assert_float_eq(x->r[i], mb->position.r[i], 1e-13, "step %d x %d", k, i);
            cr_assert_float_eq(v->r[i], mb->velocity.r[i], 1e-13, "step %d v %d", k, i);
        }
    }
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

/* A reset puts the MappedObject back with its input, as SOFA's reset ends
 * with an UpdateMappingVisitor. */
Test(mapped_object, reset_maps_again)
{
    st_scene *s = spinning("reset.scn", "<MappedObject name=\"marks\" position=\"1 0 0  0 1 2\"/>");
    st_component *marks = topo_get(s, "/Body/Marks/marks");
    double x0[6], v0[6];
    memcpy(x0, topo_arr(marks, "position")->r, sizeof x0);
    memcpy(v0, topo_arr(marks, "velocity")->r, sizeof v0);
    cr_assert_float_eq(x0[0], 2.0, 1e-15, "mapped at init: c + p");
    cr_assert_float_eq(v0[1], 2.0, 1e-15, "mapped at init: w x p");
    steps(s, 20);
    cr_assert_gt(fabs(topo_arr(marks, "position")->r[0] - x0[0]), 1e-3, "it moved");
    st_error err = {0};
    cr_assert_eq(st_scene_reset(s, &err), ST_OK, "%s", err.msg);
    const st_array *x = topo_arr(marks, "position"), *v = topo_arr(marks, "velocity");
    for (int i = 0; i < 6; i++) {
        cr_assert_float_eq(x->r[i], x0[i], 1e-15, "x %d after reset", i);
        cr_assert_float_eq(v->r[i], v0[i], 1e-15, "v %d after reset", i);
    }
    st_scene_destroy(&s);
}

/* IdentityMapping into an empty MappedObject: sized at init to the input's
 * points, then positions and velocities equal the falling particles'. */
Test(mapped_object, identity_mapping_sizes_and_follows)
{
    st_scene *s = load_scn(
        "identity.scn",
        "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -9.81 0\">\n" PLUGINS
        "  <DefaultAnimationLoop/>\n"
        "  <EulerExplicitSolver/>\n"
        "  <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0  0 1 0\" velocity=\"1 0 0  0 0 "
        "0  0 0 3\"/>\n"
        "  <UniformMass totalMass=\"3\"/>\n"
        "  <Node name=\"Copy\">\n"
        "    <MappedObject name=\"copy\"/>\n"
        "    <IdentityMapping input=\"@../dofs\" output=\"@copy\"/>\n"
        "  </Node>\n"
        "</Node>\n");
    const st_mstate *dofs = (const st_mstate *)topo_get(s, "/dofs");
    st_component *copy = topo_get(s, "/Copy/copy");
    const st_array *x = topo_arr(copy, "position"), *v = topo_arr(copy, "velocity");
    cr_assert_eq(x->n, 9, "three Vec3d points after init");
    cr_assert_eq(v->n, 9);
    cr_assert_float_eq(v->r[8], 3.0, 0, "the init maps velocities too");
    steps(s, 10);
    x = topo_arr(copy, "position");
    v = topo_arr(copy, "velocity");
    for (int i = 0; i < 9; i++) {
        cr_assert_eq(x->r[i], dofs->position.r[i], "x %d", i);
        cr_assert_eq(v->r[i], dofs->velocity.r[i], "v %d", i);
    }
    cr_assert_float_eq(v->r[1], -9.81 * 0.1, 1e-12, "the particles fell for 0.1 s");
    cr_assert_gt(x->r[0], 0.09, "the first one drifted along x");
    st_scene_destroy(&s);
}

/* SOFA's init: an empty MappedObject takes the x y z of its own node's
 * MechanicalObject, as coordinates of its template (a rigid frame with the
 * identity orientation, a Vec1d point with x only). */
Test(mapped_object, empty_position_from_own_mechanical_object)
{
    st_scene *s = load_scn("own.scn",
                           "<Node name=\"root\">\n" PLUGINS "  <DefaultAnimationLoop/>\n"
                           "  <MechanicalObject name=\"dofs\" position=\"1 2 3  4 5 6\"/>\n"
                           "  <MappedObject name=\"frames\" template=\"Rigid3d\"/>\n"
                           "  <MappedObject name=\"line\" template=\"Vec1\"/>\n"
                           "  <MappedObject name=\"kept\" position=\"7 8 9\"/>\n"
                           "</Node>\n");
    const st_array *f = topo_arr(topo_get(s, "/frames"), "position");
    const double want[14] = {1, 2, 3, 0, 0, 0, 1, 4, 5, 6, 0, 0, 0, 1};
    cr_assert_eq(f->n, 14);
    for (int i = 0; i < 14; i++)
        cr_assert_eq(f->r[i], want[i], "frames %d", i);
    const st_array *l = topo_arr(topo_get(s, "/line"), "position");
    cr_assert_eq(l->n, 2);
    cr_assert_eq(l->r[0], 1.0);
    cr_assert_eq(l->r[1], 4.0);
    const st_array *k = topo_arr(topo_get(s, "/kept"), "position");
    cr_assert_eq(k->n, 3, "a written position is kept");
    cr_assert_eq(k->r[2], 9.0);
    st_scene_destroy(&s);
}

/* SubsetMapping into a MappedObject: the chosen point's position and
 * velocity after each step. */
Test(mapped_object, subset_mapping_follows_its_point)
{
    st_scene *s = load_scn(
        "subset.scn",
        "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -9.81 0\">\n" PLUGINS
        "  <DefaultAnimationLoop/>\n"
        "  <EulerExplicitSolver/>\n"
        "  <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0  0 1 0\"/>\n"
        "  <UniformMass totalMass=\"3\"/>\n"
        "  <Node name=\"Sub\">\n"
        "    <MappedObject name=\"sub\"/>\n"
        "    <SubsetMapping input=\"@../dofs\" output=\"@sub\" indices=\"2\"/>\n"
        "  </Node>\n"
        "</Node>\n");
    cr_assert_eq(strstr(T.log, "maps only the positions"), NULL, "%s", T.log);
    steps(s, 5);
    const st_mstate *dofs = (const st_mstate *)topo_get(s, "/dofs");
    st_component *sub = topo_get(s, "/Sub/sub");
    const st_array *x = topo_arr(sub, "position"), *v = topo_arr(sub, "velocity");
    cr_assert_eq(x->n, 3);
    cr_assert_eq(v->n, 3);
    for (int a = 0; a < 3; a++) {
        cr_assert_eq(x->r[a], dofs->position.r[6 + a]);
        cr_assert_eq(v->r[a], dofs->velocity.r[6 + a]);
    }
    cr_assert_float_eq(v->r[1], -9.81 * 0.05, 1e-12, "the point fell for 0.05 s");
    st_scene_destroy(&s);
}

/* A mapping that does not handle MappedObjects itself (CenterOfMassMapping)
 * maps a Vec3d one's positions after each step, as a visual model's, says
 * the velocities stay, and refuses another type. */
#define COM_SCENE(obj)                                                                             \
    "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -1 0\">\n" PLUGINS                               \
    "  <DefaultAnimationLoop/>\n"                                                                  \
    "  <EulerExplicitSolver/>\n"                                                                   \
    "  <MechanicalObject name=\"dofs\" template=\"Rigid3d\" position=\"1 2 3 0 0 0 1  3 2 1 0 0 0 "  \
    "1\"/>\n"                                                                                      \
    "  <UniformMass totalMass=\"2\"/>\n"                                                           \
    "  <Node name=\"Com\">\n"                                                                      \
    "    " obj "\n"                                                                               \
    "    <CenterOfMassMapping input=\"@../dofs\" output=\"@com\"/>\n"                              \
    "  </Node>\n"                                                                                  \
    "</Node>\n"

Test(mapped_object, positions_only_mapping_says_so)
{
    st_scene *s = load_scn("com.scn", COM_SCENE("<MappedObject name=\"com\" position=\"0 0 0\"/>"));
    cr_assert(strstr(T.log, "CenterOfMassMapping maps only the positions of the MappedObject "
                            "'com'"),
              "%s", T.log);
    steps(s, 10);
    const st_mstate *dofs = (const st_mstate *)topo_get(s, "/dofs");
    const st_array *x = topo_arr(topo_get(s, "/Com/com"), "position");
    cr_assert_eq(x->n, 3);
    for (int a = 0; a < 3; a++)
        cr_assert_float_eq(x->r[a], 0.5 * (dofs->position.r[a] + dofs->position.r[7 + a]), 1e-14,
                           "centre %d", a);
    cr_assert_lt(x->r[1], 2.0, "the bodies fell");
    st_scene_destroy(&s);
    st_error err = {0};
    cr_assert_eq(load_scn_fails("com2.scn",
                                COM_SCENE("<MappedObject name=\"com\" template=\"Vec2d\" "
                                          "position=\"0 0\"/>"),
                                &err),
                 ST_ESCENE);
    cr_assert(strstr(err.msg, "the MappedObject 'com' is Vec2d"), "%s", err.msg);
    /* a mapping that names no output type (BarycentricMapping) */
    memset(&err, 0, sizeof err);
    cr_assert_eq(
        load_scn_fails(
            "bary.scn",
            "<Node name=\"root\">\n" PLUGINS
            "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Constant\"/>\n"
            "  <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0  0 1 0  0 0 1\"/>\n"
            "  <MeshTopology tetrahedra=\"0 1 2 3\"/>\n"
            "  <Node name=\"In\">\n"
            "    <MappedObject name=\"m\" template=\"Vec2d\" position=\"0.1 0.1\"/>\n"
            "    <BarycentricMapping input=\"@../dofs\" output=\"@m\"/>\n"
            "  </Node>\n</Node>\n",
            &err),
        ST_ESCENE);
    cr_assert(strstr(err.msg, "BarycentricMapping maps into Vec3d MappedObjects only (as into "
                              "visual models); 'm' is Vec2d"),
              "%s", err.msg);
}

Test(mapped_object, bad_template_and_sizes_are_errors)
{
    st_error err = {0};
    cr_assert_eq(load_scn_fails("bad1.scn",
                                "<Node name=\"root\">\n" PLUGINS
                                "  <MappedObject name=\"m\" template=\"Quat\"/>\n</Node>\n",
                                &err),
                 ST_ESCENE);
    cr_assert(strstr(err.msg, "unsupported template 'Quat'"), "%s", err.msg);
    cr_assert(strstr(err.path, "/m"), "%s", err.path);
    memset(&err, 0, sizeof err);
    cr_assert_eq(load_scn_fails("bad2.scn",
                                "<Node name=\"root\">\n" PLUGINS
                                "  <MappedObject name=\"m\" position=\"1 2 3 4\"/>\n</Node>\n",
                                &err),
                 ST_ESCENE);
    cr_assert(strstr(err.msg, "4 values are not a whole number of Vec3d"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_eq(load_scn_fails("bad3.scn",
                                "<Node name=\"root\">\n" PLUGINS
                                "  <MechanicalObject name=\"dofs\" position=\"0 0 0\"/>\n"
                                "  <Node name=\"C\">\n"
                                "    <MappedObject name=\"m\" template=\"Rigid3d\"/>\n"
                                "    <IdentityMapping input=\"@../dofs\" output=\"@m\"/>\n"
                                "  </Node>\n</Node>\n",
                                &err),
                 ST_ESCENE);
    cr_assert(strstr(err.msg, "output 'm' is Rigid3d"), "%s", err.msg);
}

/* The next n numbers of text from p on (skipping brackets, commas and
 * blanks); the position after them. */
static const char *numbers(const char *p, double *out, int n)
{
    for (int k = 0; k < n; k++) {
        while (*p && !(*p == '-' || (*p >= '0' && *p <= '9')))
            p++;
        char *end = NULL;
        out[k] = strtod(p, &end);
        cr_assert(end && end != p, "number %d missing", k);
        p = end;
    }
    return p;
}

/* --export-state writes a MappedObject as the MechanicalObjects, after
 * them in scene order: its path, positions and velocities in its
 * template's widths (Vec3d here, under a Rigid3d body), the values the
 * mapping wrote: x_i = c + R p_i, v_i = v + w x R p_i of the body's. */
Test(mapped_object, export_state_writes_it_as_the_mechanical_states)
{
    st_scene *s = spinning("export.scn", "<MappedObject name=\"marks\" position=\"1 0 0  0 1 2\"/>");
    steps(s, 5);
    char dir[512], path[600];
    test_make_dir(dir, sizeof dir, "mapped-export");
    snprintf(path, sizeof path, "%s/state.json", dir);
    st_error err = {0};
    cr_assert_eq(st_scene_export_state(s, path, 5, &err), ST_OK, "%s", err.msg);
    char *text = test_read_file(path);
    cr_assert_not_null(text);
    const char *objects = strstr(text, "\"objects\": [");
    const char *body = objects ? strstr(objects, "\"path\": \"/Body/dofs\"") : NULL;
    const char *marks = body ? strstr(body, "\"path\": \"/Body/Marks/marks\"") : NULL;
    cr_assert(objects && body && marks, "%s", text);
    const char *px = strstr(marks, "\"position\": ["), *pv = strstr(marks, "\"velocity\": [");
    cr_assert(px && pv && px < pv, "%s", marks);
    double x[6], v[6];
    const char *end = numbers(px, x, 6);
    cr_assert(end < pv, "two Vec3d positions, then the velocities: %s", marks);
    end = numbers(pv, v, 6);
    while (*end == ' ' || *end == '\n')
        end++;
    cr_assert(*end == ']', "two Vec3d velocities: %s", marks);
    const st_mstate *b = (const st_mstate *)topo_get(s, "/Body/dofs");
    const double *c = b->position.r, *bv = b->velocity.r;
    const double local[6] = {1, 0, 0, 0, 1, 2};
    for (int i = 0; i < 2; i++) {
        double r[3];
        rotate(c + 3, local + 3 * i, r);
        const double wr[3] = {bv[4] * r[2] - bv[5] * r[1], bv[5] * r[0] - bv[3] * r[2],
                              bv[3] * r[1] - bv[4] * r[0]};
        for (int a = 0; a < 3; a++) {
            cr_assert_float_eq(x[3 * i + a], c[a] + r[a], 1e-12, "x[%d][%d]", i, a);
            cr_assert_float_eq(v[3 * i + a], bv[a] + wr[a], 1e-12, "v[%d][%d]", i, a);
        }
    }
    cr_assert_gt(fabs(c[5]), 0.04, "the body turned");
    free(text);
    test_remove_dir(dir);
    st_scene_destroy(&s);
}
