/* write_topology.c - SOFA's WriteTopology: the element lists of a topology
 * written to a text file at given times or periodically, in the format
 * CompareTopology (and SOFA's ReadTopology) read:
 *
 *   T= 0.01
 *     Edges= 2
 *   0 1 1 2
 *     Triangles= 0
 *   (empty line)
 *     Quads= ... Tetrahedra= ... Hexahedra= ...
 *
 * gzip when the name ends in ".gz". At the beginning of each step, with
 * SOFA's rule: while times remain in `time`, the next one is written once
 * the node's time reaches it; then every `period` after the last written
 * time (every step by default). The time is written with 17 significant
 * digits (SOFA's stream writes 6), as settee's WriteState. The topology is
 * the `topology` link, else the first one of the node or its ancestors;
 * writeShellContainers writes SOFA's placeholder line. An empty filename
 * writes nothing (SOFA's), with a warning. */
#include <errno.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/output_file.h"

typedef struct write_topology {
    st_component base;
    char *filename;
    bool containers, shell;
    double interval; /* unused, as in SOFA */
    st_array time;   /* real[] */
    double period;
    st_component *topology; /* "topology" */
    /* Run state. */
    st_component *topo;
    out_stream out;
    size_t next;
    double last_time;
    char path[OUT_PATH_MAX];
} write_topology;

static const st_field write_topology_fields[] = {
    ST_STRING(write_topology, filename, "filename", NULL,
              "output file name (relative to the scene's folder; gzip when it ends in .gz)"),
    ST_BOOL(write_topology, containers, "writeContainers", "true",
            "flag enabling output of common topology containers."),
    ST_BOOL(write_topology, shell, "writeShellContainers", "false",
            "flag enabling output of specific shell topology containers."),
    ST_IGNORED(write_topology, interval, "interval", ST_T_REAL, double, "0",
               "time duration between outputs (unused, as in SOFA)"),
    ST_REALS(write_topology, time, "time", NULL, "set time to write outputs"),
    ST_REAL(write_topology, period, "period", "0", "period between outputs"),
    ST_LINK(write_topology, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container"),
    ST_FIELD_END};

static st_status write_topology_init(st_component *self, st_error *err)
{
    write_topology *w = (write_topology *)self;
    out_stream_close(&w->out);
    w->topo = w->topology ? w->topology : st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!w->topo)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: %s, nor in current "
                                  "context",
                                  w->topology ? w->topology->name : "(none)");
    w->next = 0;
    w->last_time = 0;
    if (!w->filename || !w->filename[0]) {
        st_component_warn(self, "no filename: nothing is written (as in SOFA)");
        return ST_OK;
    }
    ST_TRY(out_resolve(self, "filename", w->filename, w->path, sizeof w->path, err));
    ST_TRY(out_make_parents(w->path, err));
    if (!out_stream_open(&w->out, w->path))
        return st_component_error(self, "filename", err, ST_EIO, "Unable to create the file %s: %s",
                                  w->path, strerror(errno));
    return ST_OK;
}

static void put_list(write_topology *w, const char *tag, st_type kind)
{
    const st_array *a = w->topo->cls->topology->elements(w->topo, kind);
    const size_t n = a ? a->n : 0, width = st_type_width(kind);
    out_stream_printf(&w->out, "  %s= %zu\n", tag, n);
    for (size_t i = 0; i < n * width; i++)
        out_stream_printf(&w->out, i ? " %u" : "%u", a->u[i]);
    out_stream_printf(&w->out, "\n");
}

static void write_now(write_topology *w, double time)
{
    out_stream_printf(&w->out, "T= %.17g\n", time);
    if (w->containers) {
        put_list(w, "Edges", ST_T_EDGES);
        put_list(w, "Triangles", ST_T_TRIANGLES);
        put_list(w, "Quads", ST_T_QUADS);
        put_list(w, "Tetrahedra", ST_T_TETRAS);
        put_list(w, "Hexahedra", ST_T_HEXAS);
    }
    if (w->shell)
        out_stream_printf(&w->out, "  Writing shell not handle yet.\n");
    if (!out_stream_flush(&w->out)) {
        st_error err = {0};
        st_error_set(&err, ST_EIO, "cannot write '%s'", w->path);
        out_log_error(&w->base, &err);
        out_stream_close(&w->out);
    }
}

static void write_topology_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    write_topology *w = (write_topology *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || !w->topo || !out_stream_is_open(&w->out))
        return;
    const double time = st_node_time(self->node);
    bool now = false;
    if (w->next < w->time.n) {
        w->last_time = w->time.r[w->next];
        if (time >= w->last_time) {
            now = true;
            w->next++;
        }
    } else if (time >= w->last_time + w->period) {
        now = true;
        w->last_time += w->period;
    }
    if (now)
        write_now(w, time);
}

static void write_topology_reset(st_component *self)
{
    write_topology *w = (write_topology *)self;
    w->next = 0;
    w->last_time = 0;
}

static void write_topology_cleanup(st_component *self)
{
    out_stream_close(&((write_topology *)self)->out);
}

const st_class write_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "WriteTopology",
    .category = "Playback",
    .description = "Write topology containers information to file at each timestep.",
    .instance_size = sizeof(write_topology),
    .fields = write_topology_fields,
    .init = write_topology_init,
    .reinit = write_topology_init,
    .reset = write_topology_reset,
    .on_event = write_topology_on_event,
    .cleanup = write_topology_cleanup,
    .checkpoint = &out_restarted_file_checkpoint,
};
