/* test_articulated_bvh.c - BVH motion files (the reader bvh.c is compiled
 * in) and their use: ArticulatedHierarchyContainer builds the centers and
 * articulations of a file of ours and sizes the states, and
 * ArticulatedHierarchyBVHController plays its frames (SOFA's clock: 1 /
 * frameTime steps per frame, interpolated; or useExternalTime), the bodies
 * following through ArticulatedSystemMapping without an ODE solver.
 * Malformed files fail with the file, line and column and what was
 * expected; every truncation of a good file fails cleanly. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "articulated.h"
#include "bvh.h"
#include "internal.h"
#include "topo_support.h"

static test_rt T;
static char bvh_path[1024];

static void setup(void) { test_rt_open(&T); }
static void teardown(void)
{
    if (bvh_path[0])
        unlink(bvh_path);
    test_rt_close(&T);
}
TestSuite(articulated_bvh, .init = setup, .fini = teardown);

/* A base that slides in x, y and turns about z, carrying an arm that turns
 * about z, ending in an end site; 3 frames, 0.5 s apart. */
static const char arm_bvh[] = "HIERARCHY\n"
                              "ROOT base\n"
                              "{\n"
                              "  OFFSET 0 0 0\n"
                              "  CHANNELS 3 Xposition Yposition Zrotation\n"
                              "  JOINT arm\n"
                              "  {\n"
                              "    OFFSET 1 0 0\n"
                              "    CHANNELS 1 Zrotation\n"
                              "    End Site\n"
                              "    {\n"
                              "      OFFSET 1 0 0\n"
                              "    }\n"
                              "  }\n"
                              "}\n"
                              "MOTION\n"
                              "Frames: 3\n"
                              "Frame Time: 0.5\n"
                              "0 0 0 0\n"
                              "1 2 90 0\n"
                              "2 4 90 90\r\n";

static st_status parse(const char *text, bvh **b, st_error *err)
{
    return bvh_parse(text, strlen(text), "t.bvh", b, err);
}

Test(articulated_bvh, the_reader_gives_joints_channels_and_frames)
{
    bvh *b = NULL;
    st_error err = {0};
    cr_assert_eq(parse(arm_bvh, &b, &err), ST_OK, "%s: %s", err.where, err.msg);
    cr_assert_eq(b->njoints, 3);
    cr_assert_str_eq(b->joints[0].name, "base");
    cr_assert_str_eq(b->joints[1].name, "arm");
    cr_assert(b->joints[2].end_site);
    cr_assert_eq(b->joints[2].parent, 1);
    cr_assert_eq(b->joints[0].nchildren, 1);
    cr_assert_eq(b->joints[2].nchildren, 0);
    cr_assert_eq(b->joints[1].offset[0], 1.0);
    cr_assert_eq(b->joints[0].nchannels, 3);
    cr_assert_eq(b->joints[0].channels[2], BVH_ZROTATION);
    cr_assert_eq(b->joints[1].column, 3);
    cr_assert_eq(b->ncolumns, 4);
    cr_assert_eq(b->nframes, 3);
    cr_assert_eq(b->frame_time, 0.5);
    cr_assert_eq(b->frames[2 * 4 + 3], 90.0);
    cr_assert_eq(b->frames[1 * 4 + 1], 2.0);
    bvh_destroy(&b);
    cr_assert_null(b);
    bvh_destroy(&b); /* NULL: nothing */
}

/* Replaces the first occurrence of from in arm_bvh by to and parses it:
 * expects ST_EPARSE at t.bvh:line:col with `what` in the message. */
static void bad(const char *from, const char *to, const char *where, const char *what)
{
    char text[2048];
    const char *p = strstr(arm_bvh, from);
    cr_assert_not_null(p, "%s", from);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(p - arm_bvh), arm_bvh, to, p + strlen(from));
    bvh *b = NULL;
    st_error err = {0};
    cr_assert_eq(parse(text, &b, &err), ST_EPARSE, "'%s' -> '%s': %s", from, to, err.msg);
    cr_assert_null(b);
    cr_assert_str_eq(err.where, where, "'%s' -> '%s': at %s: %s", from, to, err.where, err.msg);
    cr_assert(strstr(err.msg, what), "'%s' -> '%s': %s", from, to, err.msg);
}

Test(articulated_bvh, malformed_files_fail_at_their_position)
{
    bad("HIERARCHY", "HIERARCHIE", "t.bvh:1:1", "expected 'HIERARCHY', found 'HIERARCHIE'");
    bad("Zrotation\n  JOINT", "Wrotation\n  JOINT", "t.bvh:5:34", "a channel name");
    bad("CHANNELS 1", "CHANNELS 7", "t.bvh:9:14", "a channel count from 0 to 6");
    bad("OFFSET 1 0 0\n    CH", "OFFSET 1 zero 0\n    CH", "t.bvh:8:14", "OFFSET coordinate");
    bad("Frames: 3", "Frames: 0", "t.bvh:17:9", "a frame count of at least 1");
    bad("Frames: 3", "Frames: 99999999", "t.bvh:17:9",
        "99999999 frames of 4 values do not fit in the");
    bad("Frame Time: 0.5", "Frame Time: 0", "t.bvh:18:13", "a frame time > 0");
    bad("Frame Time: 0.5", "Frame Time: -1", "t.bvh:18:13", "a frame time > 0");
    bad("1 2 90 0", "1 2 nan 0", "t.bvh:20:5", "value 3 of 4 of frame 2 of 3");
    bad("2 4 90 90", "2 4 90", "t.bvh:22:1", "value 4 of 4 of frame 3 of 3");
    bad("2 4 90 90", "2 4 90 90 7", "t.bvh:21:11", "the end of the file after 3 frames");
    bad("MOTION", "ROOT other { OFFSET 0 0 0 }\nMOTION", "t.bvh:16:1", "one ROOT per file");
    bad("End Site\n    {\n      OFFSET 1 0 0\n", "End Site\n    {\n      CHANNELS 1 Xrotation\n",
        "t.bvh:12:7", "OFFSET or '}' in an End Site");
    bad("    OFFSET 1 0 0\n    CHANNELS 1 Zrotation\n", "    CHANNELS 1 Zrotation\n",
        "t.bvh:13:3", "an OFFSET in the joint");
    bad("JOINT arm\n  {", "JOINT arm\n  {\n    JUNK", "t.bvh:8:5",
        "OFFSET, CHANNELS, JOINT, End Site or '}'");
    bad("Frame Time:", "FrameTime:", "t.bvh:18:1", "expected 'Frame'");
}

Test(articulated_bvh, every_truncation_fails_cleanly)
{
    size_t len = strlen(arm_bvh);
    /* Only the whole text (or it less its line end) parses. */
    for (size_t n = 0; n < len - 3; n++) {
        bvh *b = NULL;
        st_error err = {0};
        st_status st = bvh_parse(arm_bvh, n, "t.bvh", &b, &err);
        cr_assert_eq(st, ST_EPARSE, "prefix of %zu bytes: %d %s", n, st, err.msg);
        cr_assert_null(b);
        cr_assert(!strncmp(err.where, "t.bvh:", 6), "prefix %zu: where '%s'", n, err.where);
    }
}

Test(articulated_bvh, deep_hierarchies_and_missing_files_are_refused)
{
    /* 300 nested joints: past the reader's depth bound. */
    size_t cap = 64 * 1024;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    size_t k = (size_t)snprintf(text, cap, "HIERARCHY\nROOT j0 {\nOFFSET 0 0 0\n");
    for (int i = 1; i < 300; i++)
        k += (size_t)snprintf(text + k, cap - k, "JOINT j%d {\nOFFSET 0 0 0\n", i);
    for (int i = 0; i < 300; i++)
        k += (size_t)snprintf(text + k, cap - k, "}\n");
    snprintf(text + k, cap - k, "MOTION\nFrames: 1\nFrame Time: 1\n");
    bvh *b = NULL;
    st_error err = {0};
    cr_assert_eq(bvh_parse(text, strlen(text), "deep.bvh", &b, &err), ST_EPARSE);
    cr_assert(strstr(err.msg, "at most 256 joints deep"), "%s", err.msg);
    free(text);
    cr_assert_eq(bvh_read("/nonexistent/x.bvh", &b, &err), ST_EIO);
    cr_assert(strstr(err.msg, "/nonexistent/x.bvh"), "%s", err.msg);
    /* a directory or a device is refused without reading (a FIFO would
     * block a plain open) */
    cr_assert_eq(bvh_read("/dev/null", &b, &err), ST_EINVAL);
    cr_assert(strstr(err.msg, "not a regular file"), "%s", err.msg);
    cr_assert_eq(bvh_read("/", &b, &err), ST_EINVAL);
}

/* ---- in a scene ---- */

/* One file per test process: criterion runs tests in parallel workers,
 * which would otherwise overwrite each other's file between its writing and
 * its reading. */
static void write_bvh(const char *text)
{
    const char *dir = getenv("TMPDIR");
    snprintf(bvh_path, sizeof bvh_path, "%s/%ld-arm.bvh", dir && dir[0] ? dir : "/tmp",
             (long)getpid());
    FILE *f = fopen(bvh_path, "w");
    cr_assert_not_null(f, "%s", bvh_path);
    fputs(text, f);
    fclose(f);
}

/* The container below node P (Vec1d values), the bodies in child B, the
 * controller with `ctl` extra fields. */
static const char *scene(const char *file, const char *ctl)
{
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ArticulatedSystemPlugin]}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - MechanicalObject: {name: values, template: Vec1d}\n"
             "        - ArticulatedHierarchyContainer: {filename: \"%s\"}\n"
             "        - ArticulatedHierarchyBVHController: {name: ctl%s}\n"
             "      children:\n"
             "        - name: B\n"
             "          objects:\n"
             "            - MechanicalObject: {name: bodies, template: Rigid3d}\n"
             "            - ArticulatedSystemMapping: {input1: \"@../values\", output: \"@bodies\"}\n",
             file, ctl);
    return yaml;
}

static const double *values(st_scene *s)
{
    return ((st_mstate *)topo_get(s, "/P/values"))->position.r;
}

static void step(st_scene *s)
{
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
}

static void assert_values(st_scene *s, double x, double y, double rz, double ra, const char *what)
{
    const double *v = values(s), d = 3.14 / 180.0;
    cr_assert_leq(fabs(v[0] - x) + fabs(v[1] - y) + fabs(v[2] - rz * d) + fabs(v[3] - ra * d),
                  1e-14, "%s: %.17g %.17g %.17g %.17g", what, v[0], v[1], v[2], v[3]);
}

Test(articulated_bvh, the_container_builds_centers_and_sizes_the_states)
{
    write_bvh(arm_bvh);
    st_scene *s = topo_scene(&T, scene(bvh_path, ""));
    st_mstate *v = (st_mstate *)topo_get(s, "/P/values");
    st_mstate *b = (st_mstate *)topo_get(s, "/P/B/bodies");
    cr_assert_eq(v->n, 4, "articulations: %zu", v->n);
    cr_assert_eq(b->n, 4, "bodies (3 joints + base): %zu", b->n);
    articulation_center *c0 =
        (articulation_center *)topo_get(s, "/P/ArticulationCenters/base/ArticulationCenter1");
    articulation_center *c1 =
        (articulation_center *)topo_get(s, "/P/ArticulationCenters/base/arm/ArticulationCenter1");
    cr_assert_eq(c0->parent_index, 0);
    cr_assert_eq(c0->child_index, 1);
    cr_assert_eq(c1->parent_index, 1);
    cr_assert_eq(c1->child_index, 2);
    cr_assert_eq(c1->pos_on_parent[0], 1.0);
    articulation *a2 =
        (articulation *)topo_get(s, "/P/ArticulationCenters/base/articulations/Articulation3");
    cr_assert(a2->rotation && !a2->translation);
    cr_assert_eq(a2->axis[2], 1.0);
    cr_assert_eq(a2->articulation_index, 2);
    articulation *a0 =
        (articulation *)topo_get(s, "/P/ArticulationCenters/base/articulations/Articulation1");
    cr_assert(a0->translation && !a0->rotation && a0->axis[0] == 1.0);
    st_scene_destroy(&s);
}

Test(articulated_bvh, the_controller_plays_the_frames_on_sofas_clock)
{
    write_bvh(arm_bvh);
    st_scene *s = topo_scene(&T, scene(bvh_path, ""));
    step(s);
    assert_values(s, 0, 0, 0, 0, "step 1: frame 0");
    step(s);
    /* frameTime 0.5: two steps per frame, the second halfway to frame 1 */
    assert_values(s, 0.5, 1, 45, 0, "step 2: halfway");
    step(s);
    assert_values(s, 1, 2, 90, 0, "step 3: frame 1");
    /* The bodies: body 1 at (1, 2) turned by 1.57 rad, the arm's body 2
     * at body 1 + R (1, 0, 0). */
    const double *x = ((st_mstate *)topo_get(s, "/P/B/bodies"))->position.r;
    double a = 90 * 3.14 / 180;
    cr_assert_leq(fabs(x[7] - 1) + fabs(x[8] - 2), 1e-14, "body 1 %g %g", x[7], x[8]);
    cr_assert_leq(fabs(x[7 + 5] - sin(a / 2)) + fabs(x[7 + 6] - cos(a / 2)), 1e-14,
                  "body 1 q %g %g", x[12], x[13]);
    cr_assert_leq(fabs(x[14] - (1 + cos(a))) + fabs(x[15] - (2 + sin(a))), 1e-12,
                  "body 2 %.17g %.17g", x[14], x[15]);
    /* frame 1 (frames - 2) is where SOFA's clock stops: frame 2 is never
     * shown */
    step(s);
    step(s);
    step(s);
    assert_values(s, 1, 2, 90, 0, "steps 4-6: held at frame 1");
    /* reset: back to frame 0 */
    st_error err = {0};
    cr_assert_eq(st_scene_reset(s, &err), ST_OK, "%s", err.msg);
    step(s);
    assert_values(s, 0, 0, 0, 0, "after reset");
    st_scene_destroy(&s);
}

Test(articulated_bvh, external_time_picks_the_frame)
{
    write_bvh(arm_bvh);
    st_scene *s = topo_scene(&T, scene(bvh_path, ", useExternalTime: true, externalTime: 0.25"));
    step(s);
    assert_values(s, 0.5, 1, 45, 0, "t = 0.25: halfway to frame 1");
    st_error err = {0};
    cr_assert_eq(st_component_set(topo_get(s, "/P/ctl"), "externalTime", "10.25", &err), ST_OK);
    step(s);
    /* frame clamped to 1 (frames - 2), alpha the fractional part 0.5 */
    assert_values(s, 1.5, 3, 90, 45, "t = 10.25");
    st_scene_destroy(&s);
}

Test(articulated_bvh, scene_errors_name_what_is_missing)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, scene("/nonexistent/walk.bvh", ""), &err), ST_OK);
    cr_assert(strstr(err.msg, "walk.bvh"), "%s", err.msg);
    /* a malformed file: its own position in the message */
    write_bvh("HIERARCHY\nROOT a\n{\n  OFFSET 0 0\n}\n");
    cr_assert_neq(topo_scene_fails(&T, scene(bvh_path, ""), &err), ST_OK);
    cr_assert(strstr(err.where, "arm.bvh:5:1") || strstr(err.msg, "arm.bvh:5:1"), "%s: %s",
              err.where, err.msg);
    /* a controller whose container has no file */
    const char *no_file = "format: settee/1\n"
                          "root:\n"
                          "  objects:\n"
                          "    - RequiredPlugin: {pluginName: [ArticulatedSystemPlugin]}\n"
                          "    - MechanicalObject: {template: Vec1d}\n"
                          "    - ArticulatedHierarchyContainer: {}\n"
                          "    - ArticulatedHierarchyBVHController: {}\n";
    cr_assert_neq(topo_scene_fails(&T, no_file, &err), ST_OK);
    cr_assert(strstr(err.msg, "the one found has no filename"), "%s", err.msg);
    /* a container with a file but no Rigid3d child for the bodies */
    write_bvh(arm_bvh);
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ArticulatedSystemPlugin]}\n"
             "    - MechanicalObject: {template: Vec1d}\n"
             "    - ArticulatedHierarchyContainer: {filename: \"%s\"}\n",
             bvh_path);
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "Rigid3d") && strstr(err.msg, "3 joints plus the base"), "%s",
              err.msg);
}

/* A scene built in code (no scene file read, so no parse step): the
 * container builds the centers at its init, and the run plays the file. */
Test(articulated_bvh, a_scene_built_in_code_builds_the_centers_at_init)
{
    write_bvh(arm_bvh);
    st_error err = {0};
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    cr_assert_eq(st_runtime_load_plugin(T.rt, "ArticulatedSystemPlugin", &err), ST_OK, "%s",
                 err.msg);
    st_scene *s = NULL;
    st_node *p, *b;
    st_component *c;
    cr_assert_eq(st_scene_create(T.rt, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_add_child(st_scene_root(s), "P", &p, &err), ST_OK);
    cr_assert_eq(st_node_add_object(p, "MechanicalObject", "values", &c, &err), ST_OK);
    cr_assert_eq(st_component_set(c, "template", "Vec1d", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_add_object(p, "ArticulatedHierarchyContainer", NULL, &c, &err), ST_OK);
    cr_assert_eq(st_component_set(c, "filename", bvh_path, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_add_object(p, "ArticulatedHierarchyBVHController", "ctl", &c, &err),
                 ST_OK);
    cr_assert_eq(st_node_add_child(p, "B", &b, &err), ST_OK);
    cr_assert_eq(st_node_add_object(b, "MechanicalObject", "bodies", &c, &err), ST_OK);
    cr_assert_eq(st_component_set(c, "template", "Rigid3d", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_add_object(b, "ArticulatedSystemMapping", NULL, &c, &err), ST_OK);
    cr_assert_eq(st_component_set(c, "input1", "@../values", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_component_set(c, "output", "@bodies", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s %s\n%s", err.path, err.msg, T.log);
    cr_assert_eq(((st_mstate *)topo_get(s, "/P/values"))->n, 4);
    cr_assert_eq(((st_mstate *)topo_get(s, "/P/B/bodies"))->n, 4);
    topo_get(s, "/P/ArticulationCenters/base/arm/ArticulationCenter1");
    step(s);
    step(s);
    step(s);
    assert_values(s, 1, 2, 90, 0, "step 3: frame 1");
    st_scene_destroy(&s);
}

/* Two sibling joints of one name: the second node takes its file index. */
Test(articulated_bvh, sibling_joints_of_one_name_get_distinct_nodes)
{
    write_bvh("HIERARCHY\nROOT hip\n{\n OFFSET 0 0 0\n CHANNELS 1 Yrotation\n"
              " JOINT leg\n {\n  OFFSET 1 0 0\n  CHANNELS 1 Zrotation\n"
              "  End Site\n  {\n   OFFSET 1 0 0\n  }\n }\n"
              " JOINT leg\n {\n  OFFSET -1 0 0\n  CHANNELS 1 Zrotation\n"
              "  End Site\n  {\n   OFFSET -1 0 0\n  }\n }\n}\n"
              "MOTION\nFrames: 1\nFrame Time: 1\n0 30 60\n");
    st_scene *s = topo_scene(&T, scene(bvh_path, ""));
    articulation_center *a =
        (articulation_center *)topo_get(s, "/P/ArticulationCenters/hip/leg/ArticulationCenter1");
    articulation_center *b =
        (articulation_center *)topo_get(s, "/P/ArticulationCenters/hip/leg_3/ArticulationCenter1");
    cr_assert_eq(a->child_index, 2);
    cr_assert_eq(b->child_index, 4);
    cr_assert_eq(b->pos_on_parent[0], -1.0);
    cr_assert_eq(((st_mstate *)topo_get(s, "/P/B/bodies"))->n, 6, "5 joints + base");
    /* one frame: held (SOFA would read past it) */
    step(s);
    step(s);
    const double *v = values(s), d = 3.14 / 180.0;
    cr_assert_leq(fabs(v[0]) + fabs(v[1] - 30 * d) + fabs(v[2] - 60 * d), 1e-15, "%g %g %g",
                  v[0], v[1], v[2]);
    st_scene_destroy(&s);
}
