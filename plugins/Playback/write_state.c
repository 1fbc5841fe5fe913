/* write_state.c - SOFA's WriteState: the state of its node's
 * MechanicalObject written to a text file at given times or periodically,
 * in SOFA's format:
 *
 *   T= 0.01
 *     X= x0 y0 z0 x1 y1 z1 ...
 *     V= ...
 *
 * compressed with gzip when the name ends in ".gz". As SOFA, the state is
 * written at the beginning of a step (the state at the node's time); by
 * default (no time, no period) at every step from t = 0. Numbers have 17
 * significant digits (SOFA's streams write 6): ReadState and CompareState
 * get the run's values exactly, and SOFA reads them the same. The file is
 * written as the run goes (flushed after each state, as SOFA), not renamed
 * at the end: a reader during the run sees whole states. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/output_file.h"
#include "../shared/state_view.h"

typedef struct write_state {
    st_component base;
    char *filename;
    bool write_x, write_x0, write_v, write_f;
    st_array time;           /* "time" */
    double period;           /* "period" */
    st_array dofs_x, dofs_v; /* ignored, as SOFA */
    double stop_at, ke_period;
    /* Run state. */
    st_mstate *ms;
    out_stream out;
    bool periodic, first_export;
    size_t next;
    double last_time;
    char path[OUT_PATH_MAX];
} write_state;

static const st_field write_state_fields[] = {
    ST_FIELD_EX(write_state, filename, "filename", ST_T_STRING, char *, NULL,
                "output file name (relative to the scene's folder; gzip when it ends in .gz)",
                ST_F_REQUIRED, NULL, 0.0, 0.0),
    ST_BOOL(write_state, write_x, "writeX", "true", "flag enabling output of X vector"),
    ST_BOOL(write_state, write_x0, "writeX0", "false", "flag enabling output of X0 vector"),
    ST_BOOL(write_state, write_v, "writeV", "false", "flag enabling output of V vector"),
    ST_BOOL(write_state, write_f, "writeF", "false", "flag enabling output of F vector"),
    ST_REALS(write_state, time, "time", NULL,
             "set time to write outputs (by default export at t=0)"),
    ST_REAL(write_state, period, "period", "0", "period between outputs"),
    ST_IGNORED(write_state, dofs_x, "DOFsX", ST_T_UINTS, st_array, NULL,
               "set the position DOFs to write (unused, as in SOFA)"),
    ST_IGNORED(write_state, dofs_v, "DOFsV", ST_T_UINTS, st_array, NULL,
               "set the velocity DOFs to write (unused, as in SOFA)"),
    ST_IGNORED(write_state, stop_at, "stopAt", ST_T_REAL, double, "0",
               "stop the simulation when the given threshold is reached"),
    ST_IGNORED(write_state, ke_period, "keperiod", ST_T_REAL, double, "0",
               "set the period to measure the kinetic energy increase"),
    ST_FIELD_END};

static st_status write_state_init(st_component *self, st_error *err)
{
    write_state *w = (write_state *)self;
    out_stream_close(&w->out);
    w->ms = st_component_mstate(self);
    if (!w->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in this node or its ancestors to write");
    ST_TRY(state_view_check(self, w->ms, err));
    ST_TRY(out_resolve(self, "filename", w->filename, w->path, sizeof w->path, err));
    ST_TRY(out_make_parents(w->path, err));
    if (!out_stream_open(&w->out, w->path))
        return st_component_error(self, "filename", err, ST_EIO, "cannot create '%s': %s",
                                  w->path, strerror(errno));
    /* SOFA's rules: a period starts at time[0] (0 by default); without period
     * nor time, every step. */
    double dt = st_node_dt(self->node);
    w->periodic = false;
    if (st_component_is_set(self, "period")) {
        w->periodic = true;
        if (w->time.n > 1)
            st_component_warn(self, "using the period assumes a single starting time for "
                                    "export: %g",
                              w->time.r[0]);
        if (w->period < dt)
            st_component_warn(self, "period (%g) is lower than the time step (%g)", w->period,
                              dt);
    } else if (!st_component_is_set(self, "time")) {
        w->period = dt;
        w->periodic = true;
    }
    for (size_t i = 0; i < w->time.n; i++)
        if (w->time.r[i] < 0 || (i > 0 && w->time.r[i] == 0))
            return st_component_error(self, "time", err, ST_EINVAL,
                                      "time of export should always be positive (%g)",
                                      w->time.r[i]);
    w->next = 0;
    w->last_time = 0;
    w->first_export = false;
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* The export times: the field's, or {0}. */
static size_t ntimes(const write_state *w)
{
    return w->time.n ? (w->periodic ? 1 : w->time.n) : 1;
}
static double time_at(const write_state *w, size_t i)
{
    return w->time.n ? w->time.r[i] : 0.0;
}

static void put_vec(write_state *w, const char *tag, const double *v, size_t n)
{
    out_stream_printf(&w->out, "  %s=", tag);
    for (size_t i = 0; i < 3 * n; i++)
        out_stream_printf(&w->out, " %.17g", v ? v[i] : 0.0);
    out_stream_printf(&w->out, "\n");
}

static void write_now(write_state *w, double time)
{
    state_view v;
    state_view_of(w->ms, &v);
    out_stream_printf(&w->out, "T= %.17g\n", time);
    if (w->write_x)
        put_vec(w, "X", v.x, v.n);
    if (w->write_x0)
        put_vec(w, "X0", v.x0, v.n);
    if (w->write_v)
        put_vec(w, "V", v.v, v.n);
    if (w->write_f)
        put_vec(w, "F", v.f, v.n);
    if (!out_stream_flush(&w->out)) {
        st_error err = {0};
        st_error_set(&err, ST_EIO, "cannot write '%s'", w->path);
        out_log_error(&w->base, &err);
        out_stream_close(&w->out);
    }
}

static void write_state_on_event(st_component *self, st_event ev, double dt)
{
    write_state *w = (write_state *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || !out_stream_is_open(&w->out) ||
        self->state != ST_CSTATE_VALID)
        return;
    double time = st_node_time(self->node);
    double eps = 0.1 * dt;
    bool now = false;
    if (w->next < ntimes(w)) {
        w->last_time = time_at(w, w->next);
        if (time > w->last_time || fabs(time - w->last_time) < eps) {
            now = true;
            w->first_export = true;
            w->next++;
        }
    } else if (w->first_export && w->periodic) {
        double next = w->last_time + w->period;
        if (time > next || fabs(time - next) < eps) {
            now = true;
            w->last_time += w->period;
        }
    }
    if (now)
        write_now(w, time);
}

static void write_state_reset(st_component *self)
{
    write_state *w = (write_state *)self;
    w->next = 0;
    w->last_time = 0;
    w->first_export = false;
}

static void write_state_cleanup(st_component *self)
{
    out_stream_close(&((write_state *)self)->out);
}

const st_class write_state_class = {
    .struct_size = sizeof(st_class),
    .name = "WriteState",
    .category = "Playback",
    .description = "Write State vectors to file at each timestep",
    .instance_size = sizeof(write_state),
    .fields = write_state_fields,
    .init = write_state_init,
    .reinit = write_state_init,
    .reset = write_state_reset,
    .on_event = write_state_on_event,
    .cleanup = write_state_cleanup,
    .checkpoint = &out_restarted_file_checkpoint,
};
