/* input_event_reader.c - SOFA's InputEventReader: Linux input events
 * (struct input_event, as /dev/input/eventN delivers them) read at the
 * beginning of every step and turned into user input events for the
 * components of its node's subtree (st_node_send_input):
 *
 *   EV_REL REL_X / REL_Y   add up (subtracted with inverseSense) into one
 *                          mouse move (x, y) per step, sent when not zero;
 *   EV_ABS ABS_Y           a pedal: above 156 the left one, below 100 the
 *                          right one, else none. When a pedal is down and
 *                          was not before the last such event, its key is
 *                          pressed (key1 left, key2 right); when none is
 *                          down and one was, its key is released. As in
 *                          SOFA, the state before is only updated by the
 *                          next ABS_Y event, so a press (or release) is sent
 *                          again at every step until then.
 *
 * At each step it reads every event the device has ready (poll with no
 * wait), as SOFA; a regular file of records therefore gives all its events
 * at the first step, and its end stops the reading.
 *
 * outputFilename, as SOFA: with writeEvents the events read are also
 * written there as text, "type code value " per event and one line per
 * step; without it that text file is read instead of the device, one line
 * (one step's events) per step.
 *
 * A device that cannot be opened (a headless machine has no
 * /dev/input/mouse2, the default) is reported and the run goes on without
 * events, as SOFA does (it logs an error and carries on); settee logs a
 * warning, since nothing of the simulation is wrong. */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC, poll */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/input.h>
#include <poll.h>
#endif

#include <settee/settee.h>

#include "../../common/regular_file.h"
#include "../shared/output_file.h"

enum pedal { NO_PEDAL, LEFT_PEDAL, RIGHT_PEDAL };

typedef struct input_event_reader {
    st_component base;
    char *filename;        /* "filename" */
    bool inverse_sense;    /* "inverseSense" */
    bool print_event;      /* "printEvent" */
    char *key1, *key2;     /* "key1", "key2": one character each */
    bool write_events;     /* "writeEvents" */
    char *output_filename; /* "outputFilename" */
    /* Run state. */
    int fd;                /* the device, or -1 */
    FILE *replay;          /* outputFilename read back (writeEvents false) */
    out_stream record;     /* outputFilename written (writeEvents true) */
    int depl_x, depl_y;    /* relative motion gathered this step */
    enum pedal current, old;
    bool short_read_told;
} input_event_reader;

static const st_field reader_fields[] = {
    ST_STRING(input_event_reader, filename, "filename", "/dev/input/mouse2",
              "input events file name (a Linux input device, or a file of its records)"),
    ST_BOOL(input_event_reader, inverse_sense, "inverseSense", "false",
            "inverse the sense of the movement"),
    ST_BOOL(input_event_reader, print_event, "printEvent", "false", "Print event information"),
    ST_STRING(input_event_reader, key1, "key1", "0",
              "Key event generated when the left pedal is pressed"),
    ST_STRING(input_event_reader, key2, "key2", "1",
              "Key event generated when the right pedal is pressed"),
    ST_BOOL(input_event_reader, write_events, "writeEvents", "false",
            "If true, write incoming events ; if false, read events from that file (if an output "
            "filename is provided)"),
    ST_STRING(input_event_reader, output_filename, "outputFilename", "",
              "Other filename where events will be stored (or read)"),
    ST_FIELD_END};

static void reader_close(input_event_reader *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    if (r->replay)
        fclose(r->replay);
    r->replay = NULL;
    out_stream_close(&r->record);
}

static st_status check_key(st_component *self, const char *field, const char *key, st_error *err)
{
    if (!key || strlen(key) != 1)
        return st_component_error(self, field, err, ST_EINVAL,
                                  "a key is one character, got '%s'", key ? key : "");
    return ST_OK;
}

/* The device: an absolute name as it is; a relative one found as scene
 * files are (the scene's folder, the data path), else as written. */
static void open_device(input_event_reader *r)
{
    st_component *self = &r->base;
    const char *name = r->filename ? r->filename : "";
    char path[OUT_PATH_MAX];
    st_error e = {0};
    if (name[0] != '/' && name[0] &&
        st_component_find_file(self, "filename", name, path, sizeof path, &e) == ST_OK)
        name = path;
#ifdef __linux__
    r->fd = name[0] ? open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
    if (r->fd < 0)
        st_component_warn_field(self, "filename",
                                "cannot open the input device '%s' (%s): no input events will "
                                "be read, the simulation goes on",
                                name, name[0] ? strerror(errno) : "no file name");
#else
    st_component_warn_field(self, "filename",
                            "Linux input events are not available on this system: no input "
                            "events will be read from '%s', the simulation goes on",
                            name);
#endif
}

/* outputFilename: recorded to, or replayed from (SOFA reports a file it
 * cannot open and goes on without it; so does settee, with a warning). */
static st_status open_output(input_event_reader *r, st_error *err)
{
    st_component *self = &r->base;
    char path[OUT_PATH_MAX];
    if (r->write_events) {
        ST_TRY(out_resolve(self, "outputFilename", r->output_filename, path, sizeof path, err));
        st_error e = {0};
        if (out_make_parents(path, &e) != ST_OK || !out_stream_open(&r->record, path))
            st_component_warn_field(self, "outputFilename",
                                    "cannot write '%s' (%s): the events will not be recorded",
                                    path, e.msg[0] ? e.msg : strerror(errno));
        return ST_OK;
    }
    st_error e = {0};
    const char *name = r->output_filename;
    if (st_component_find_file(self, "outputFilename", name, path, sizeof path, &e) == ST_OK)
        name = path;
    bool not_regular = false;
    int fd = regular_open(name, &not_regular);
    r->replay = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!r->replay) {
        int no = errno;
        if (fd >= 0)
            close(fd);
        st_component_warn_field(self, "outputFilename",
                                "cannot read the recorded events '%s' (%s): no input events "
                                "will be read, the simulation goes on",
                                name, not_regular ? "not a regular file" : strerror(no));
    }
    return ST_OK;
}

static st_status reader_init(st_component *self, st_error *err)
{
    input_event_reader *r = (input_event_reader *)self;
    reader_close(r);
    ST_TRY(check_key(self, "key1", r->key1, err));
    ST_TRY(check_key(self, "key2", r->key2, err));
    r->depl_x = r->depl_y = 0;
    r->current = r->old = NO_PEDAL;
    r->short_read_told = false;
    open_device(r);
    if (r->output_filename && r->output_filename[0])
        ST_TRY(open_output(r, err));
    return ST_OK;
}

static void reader_cleanup(st_component *self) { reader_close((input_event_reader *)self); }

/* SOFA's manageEvent: one event into the motion and the pedal state. */
static void manage_event(input_event_reader *r, unsigned type, unsigned code, int value)
{
#ifdef __linux__
    if (r->print_event)
        st_component_info(&r->base, "event type 0x%x code 0x%x value %d", type, code, value);
    const int sign = r->inverse_sense ? -1 : 1;
    if (type == EV_REL && code == REL_X)
        r->depl_x += sign * value;
    else if (type == EV_REL && code == REL_Y)
        r->depl_y += sign * value;
    else if (type == EV_ABS && code == ABS_Y) {
        r->old = r->current;
        r->current = value > 156 ? LEFT_PEDAL : value < 100 ? RIGHT_PEDAL : NO_PEDAL;
    }
#else
    (void)r, (void)type, (void)code, (void)value;
#endif
}

/* Every event the device has ready now. */
static void read_device(input_event_reader *r)
{
#ifdef __linux__
    if (r->fd < 0)
        return;
    struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
    while (poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN)) {
        struct input_event ev;
        ssize_t got = read(r->fd, &ev, sizeof ev);
        if (got != (ssize_t)sizeof ev) {
            /* the end of a file of records, or a device gone */
            if (got > 0 && !r->short_read_told) {
                st_component_warn(&r->base,
                                  "'%s' ends with %zd bytes, not a whole input event (%zu "
                                  "bytes): ignored",
                                  r->filename, got, sizeof ev);
                r->short_read_told = true;
            }
            break;
        }
        manage_event(r, ev.type, ev.code, ev.value);
        if (out_stream_is_open(&r->record))
            out_stream_printf(&r->record, "%u %u %d ", (unsigned)ev.type, (unsigned)ev.code,
                              (int)ev.value);
    }
    if (out_stream_is_open(&r->record)) {
        out_stream_printf(&r->record, "\n");
        out_stream_flush(&r->record);
    }
#else
    (void)r;
#endif
}

/* One line of the recorded text: this step's events. */
static void read_replay(input_event_reader *r)
{
    char line[8192];
    if (!fgets(line, sizeof line, r->replay))
        return;
    char *p = line, *end;
    for (;;) {
        long v[3];
        int k = 0;
        for (; k < 3; k++) {
            errno = 0;
            v[k] = strtol(p, &end, 10);
            if (end == p || errno)
                break;
            p = end;
        }
        if (k < 3)
            break;
        manage_event(r, (unsigned)v[0], (unsigned)v[1], (int)v[2]);
    }
}

static void send_key(input_event_reader *r, st_input_kind kind, const char *key)
{
    st_input_event ev = {.struct_size = sizeof ev, .kind = kind, .key = key[0]};
    st_node_send_input(r->base.node, &ev);
}

static void reader_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    input_event_reader *r = (input_event_reader *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || self->state != ST_CSTATE_VALID)
        return;
    if (r->replay)
        read_replay(r);
    else
        read_device(r);
    if (r->depl_x || r->depl_y) {
        st_input_event move = {.struct_size = sizeof move, .kind = ST_INPUT_MOUSE_MOVE,
                               .x = r->depl_x, .y = r->depl_y};
        r->depl_x = r->depl_y = 0;
        st_node_send_input(self->node, &move);
    }
    if (r->current != NO_PEDAL && r->old == NO_PEDAL)
        send_key(r, ST_INPUT_KEY_PRESSED, r->current == LEFT_PEDAL ? r->key1 : r->key2);
    else if (r->current == NO_PEDAL && r->old != NO_PEDAL)
        send_key(r, ST_INPUT_KEY_RELEASED, r->old == LEFT_PEDAL ? r->key1 : r->key2);
}

static st_status reader_create(st_component *self, st_error *err)
{
    (void)err;
    ((input_event_reader *)self)->fd = -1;
    return ST_OK;
}

const st_class input_event_reader_class = {
    .struct_size = sizeof(st_class),
    .name = "InputEventReader",
    .category = "Playback",
    .description = "Read events from file (Linux input events: mouse motion and pedals, sent "
                   "as mouse and key events to the node's subtree)",
    .instance_size = sizeof(input_event_reader),
    .fields = reader_fields,
    .create = reader_create,
    .init = reader_init,
    .reinit = reader_init,
    .cleanup = reader_cleanup,
    .on_event = reader_on_event,
};
