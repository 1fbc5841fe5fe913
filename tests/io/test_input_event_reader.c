/* test_input_event_reader.c - InputEventReader: Linux input_event records
 * read from a file the test writes, turned into mouse moves and pedal key
 * events that a component of the reader's subtree receives (a recorder
 * class registered here, with on_input); the text record and replay of
 * outputFilename; a device that cannot be opened is a warning and the run
 * goes on (library and `settee run`). */
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;

/* ---- a component that records the input events it receives ---- */
typedef struct recorder {
    st_component base;
    int n;
    st_input_event ev[64];
} recorder;

static void recorder_on_input(st_component *self, const st_input_event *ev)
{
    recorder *r = (recorder *)self;
    if (r->n < 64)
        r->ev[r->n++] = *ev;
}

static const st_field recorder_fields[] = {ST_FIELD_END};
static const st_class recorder_class = {
    .struct_size = sizeof(st_class),
    .name = "TestInputRecorder",
    .category = "Controller",
    .description = "test: records input events",
    .instance_size = sizeof(recorder),
    .fields = recorder_fields,
    .on_input = recorder_on_input,
};

static void setup(void)
{
    test_rt_open(&T);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(T.rt), &recorder_class, &err), ST_OK, "%s",
                 err.msg);
}
static void teardown(void) { test_rt_close(&T); }
TestSuite(input_event_reader, .init = setup, .fini = teardown);

/* Writes n records (type, code, value) as the kernel's evdev delivers them. */
static const char *write_events(const char *name, const int (*ev)[3], size_t n)
{
    const char *path = test_write_temp(name, "");
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    for (size_t i = 0; i < n; i++) {
        struct input_event e;
        memset(&e, 0, sizeof e);
        e.type = (unsigned short)ev[i][0];
        e.code = (unsigned short)ev[i][1];
        e.value = ev[i][2];
        cr_assert_eq(fwrite(&e, sizeof e, 1, f), 1);
    }
    cr_assert_eq(fclose(f), 0);
    return path;
}

/* The reader at the root with the given attributes; one recorder in a
 * child node (its subtree). */
static st_scene *scene(const char *name, const char *attrs)
{
    char text[4096];
    snprintf(text, sizeof text,
             "<Node name=\"root\" dt=\"0.01\">\n"
             "  <RequiredPlugin name=\"Sofa.Component.Playback\"/>\n"
             "  <DefaultAnimationLoop/>\n"
             "  <InputEventReader name=\"reader\" %s/>\n"
             "  <Node name=\"Tool\">\n"
             "    <TestInputRecorder name=\"rec\"/>\n"
             "  </Node>\n"
             "</Node>\n",
             attrs);
    const char *path = test_write_temp(name, text);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "load: %s %s", err.where, err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s %s", err.path, err.msg);
    return s;
}

static void step(st_scene *s)
{
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step: %s", err.msg);
}

static void assert_move(const st_input_event *e, int x, int y)
{
    cr_assert_eq(e->kind, ST_INPUT_MOUSE_MOVE);
    cr_assert_eq(e->x, x, "x %d, expected %d", e->x, x);
    cr_assert_eq(e->y, y, "y %d, expected %d", e->y, y);
}

static void assert_key(const st_input_event *e, st_input_kind kind, char key)
{
    cr_assert_eq(e->kind, kind, "kind %d, expected %d", e->kind, kind);
    cr_assert_eq(e->key, key, "key '%c', expected '%c'", e->key, key);
}

/* Every record ready is read at the first step: the motion adds up into one
 * move, the left pedal presses key1; SOFA sends the press again at the next
 * step (its state before only changes with the next pedal event). */
Test(input_event_reader, device_records_become_mouse_and_key_events)
{
    const int ev[][3] = {{EV_REL, REL_X, 3}, {EV_REL, REL_Y, -2}, {EV_SYN, SYN_REPORT, 0},
                         {EV_REL, REL_X, 4}, {EV_KEY, BTN_LEFT, 1}, {EV_ABS, ABS_Y, 200}};
    const char *path = write_events("dev1", ev, sizeof ev / sizeof *ev);
    char attrs[1024];
    snprintf(attrs, sizeof attrs, "filename=\"%s\"", path);
    st_scene *s = scene("dev1.scn", attrs);
    recorder *rec = (recorder *)topo_get(s, "/Tool/rec");
    cr_assert_eq(rec->n, 0, "nothing before the first step");
    step(s);
    cr_assert_eq(rec->n, 2);
    assert_move(&rec->ev[0], 7, -2);
    assert_key(&rec->ev[1], ST_INPUT_KEY_PRESSED, '0');
    step(s);
    cr_assert_eq(rec->n, 3, "no new motion; the pedal press again");
    assert_key(&rec->ev[2], ST_INPUT_KEY_PRESSED, '0');
    cr_assert_eq(strstr(T.log, "cannot open"), NULL, "%s", T.log);
    st_scene_destroy(&s);
}

Test(input_event_reader, inverse_sense_and_right_pedal)
{
    const int ev[][3] = {{EV_REL, REL_X, 5}, {EV_REL, REL_Y, 6}, {EV_ABS, ABS_Y, 40}};
    const char *path = write_events("dev2", ev, 3);
    char attrs[1024];
    snprintf(attrs, sizeof attrs, "filename=\"%s\" inverseSense=\"true\" key2=\"k\"", path);
    st_scene *s = scene("dev2.scn", attrs);
    recorder *rec = (recorder *)topo_get(s, "/Tool/rec");
    step(s);
    cr_assert_eq(rec->n, 2);
    assert_move(&rec->ev[0], -5, -6);
    assert_key(&rec->ev[1], ST_INPUT_KEY_PRESSED, 'k');
    st_scene_destroy(&s);
}

/* outputFilename without writeEvents: one line of "type code value"
 * triples per step, instead of the device. */
Test(input_event_reader, text_replay_one_line_per_step)
{
    char text[256];
    snprintf(text, sizeof text, "%d %d 5 %d %d 1 \n\n%d %d 50 \n%d %d 128 \n", EV_REL, REL_X,
             EV_REL, REL_Y, EV_ABS, ABS_Y, EV_ABS, ABS_Y);
    const char *path = test_write_temp("replay.txt", text);
    char attrs[1024];
    snprintf(attrs, sizeof attrs,
             "filename=\"/nonexistent/input/event9\" outputFilename=\"%s\" key2=\"r\"", path);
    st_scene *s = scene("replay.scn", attrs);
    cr_assert(strstr(T.log, "cannot open the input device '/nonexistent/input/event9'"), "%s",
              T.log);
    recorder *rec = (recorder *)topo_get(s, "/Tool/rec");
    step(s);
    cr_assert_eq(rec->n, 1);
    assert_move(&rec->ev[0], 5, 1);
    step(s);
    cr_assert_eq(rec->n, 1, "an empty line: nothing");
    step(s);
    cr_assert_eq(rec->n, 2);
    assert_key(&rec->ev[1], ST_INPUT_KEY_PRESSED, 'r');
    step(s);
    cr_assert_eq(rec->n, 3);
    assert_key(&rec->ev[2], ST_INPUT_KEY_RELEASED, 'r');
    st_scene_destroy(&s);
}

/* writeEvents: the device's events written as text, one line per step. */
Test(input_event_reader, write_events_records_text)
{
    const int ev[][3] = {{EV_REL, REL_X, 3}, {EV_REL, REL_Y, -2}};
    const char *dev = write_events("dev3", ev, 2);
    char out[1024], attrs[2048];
    snprintf(out, sizeof out, "%s.txt", dev);
    snprintf(attrs, sizeof attrs, "filename=\"%s\" writeEvents=\"true\" outputFilename=\"%s\"",
             dev, out);
    st_scene *s = scene("write.scn", attrs);
    step(s);
    step(s);
    char *text = test_read_file(out);
    cr_assert(text);
    char want[64];
    snprintf(want, sizeof want, "%d %d 3 %d %d -2 \n\n", EV_REL, REL_X, EV_REL, REL_Y);
    cr_assert_str_eq(text, want);
    free(text);
    recorder *rec = (recorder *)topo_get(s, "/Tool/rec");
    cr_assert_eq(rec->n, 1);
    assert_move(&rec->ev[0], 3, -2);
    st_scene_destroy(&s);
}

/* Headless: the default device does not exist here; a warning names it and
 * the run goes on, with no event. */
Test(input_event_reader, missing_device_is_a_warning)
{
    st_scene *s = scene("missing.scn", "filename=\"/nonexistent/input/event7\"");
    cr_assert(strstr(T.log, "cannot open the input device '/nonexistent/input/event7'"), "%s",
              T.log);
    cr_assert(strstr(T.log, "the simulation goes on"), "%s", T.log);
    cr_assert_eq(T.nerrors, 0);
    for (int i = 0; i < 5; i++)
        step(s);
    cr_assert_eq(((recorder *)topo_get(s, "/Tool/rec"))->n, 0);
    st_scene_destroy(&s);

    const char *path = test_write_temp("cli.scn",
                                       "<Node name=\"root\" dt=\"0.01\">\n"
                                       "  <RequiredPlugin name=\"Sofa.Component.Playback\"/>\n"
                                       "  <InputEventReader filename=\"/nonexistent/event3\"/>\n"
                                       "</Node>\n");
    char cmd[2048], outbuf[8192];
    snprintf(cmd, sizeof cmd, "%s run %s -n 50", SETTEE_CLI, path);
    cr_assert_eq(test_run(cmd, outbuf, sizeof outbuf), 0, "%s", outbuf);
    cr_assert(strstr(outbuf, "50 steps"), "%s", outbuf);
    cr_assert(strstr(outbuf, "warning"), "%s", outbuf);
}

Test(input_event_reader, a_key_is_one_character)
{
    const char *path = test_write_temp("badkey.scn",
                                       "<Node name=\"root\">\n"
                                       "  <RequiredPlugin name=\"Sofa.Component.Playback\"/>\n"
                                       "  <InputEventReader key1=\"ab\"/>\n"
                                       "</Node>\n");
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = st_scene_load(T.rt, path, &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    cr_assert_eq(st, ST_EINVAL, "%s", err.msg);
    cr_assert(strstr(err.msg, "a key is one character, got 'ab'"), "%s", err.msg);
    st_scene_destroy(&s);
}
