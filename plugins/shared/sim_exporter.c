/* sim_exporter.c - SOFA's BaseSimulationExporter (see sim_exporter.h). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sim_exporter.h"

st_status sim_exporter_path(st_component *c, sim_exporter *ex, bool numbered, char *out,
                            size_t size, st_error *err)
{
    const char *name = ex->filename && *ex->filename ? ex->filename : c->name;
    char full[OUT_PATH_MAX];
    ST_TRY(out_resolve(c, "filename", name, full, sizeof full, err));
    struct stat sb;
    size_t n = strlen(full);
    if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode))
        n += (size_t)snprintf(full + n, sizeof full - n, "%s%s",
                              n && full[n - 1] == '/' ? "" : "/", c->name);
    int k = numbered && ex->every
                ? snprintf(out, size, "%s%05lu", full, ex->step / ex->every)
                : snprintf(out, size, "%s", full);
    if (n >= sizeof full || k < 0 || (size_t)k >= size)
        return st_component_error(c, "filename", err, ST_EINVAL, "'%s': the path is too long",
                                  name);
    return out_make_parents(out, err);
}

static void write_logged(st_component *c, sim_exporter *ex, sim_write_fn write)
{
    if (c->state != ST_CSTATE_VALID)
        return;
    st_error err = {0};
    ex->skipped = false;
    if (write(c, &err) != ST_OK) {
        ex->failures++;
        out_log_error(c, &err);
    } else if (!ex->skipped) {
        ex->files_written++;
    }
}

void sim_exporter_event(st_component *c, sim_exporter *ex, st_event ev, sim_write_fn write)
{
    if (!ex->enable)
        return;
    if (ev == ST_EVENT_INIT_DONE && ex->at_begin) {
        write_logged(c, ex, write);
    } else if (ev == ST_EVENT_ANIMATE_END && ex->every) {
        ex->step++;
        if (ex->step % ex->every == 0)
            write_logged(c, ex, write);
    }
}

void sim_exporter_cleanup(st_component *c, sim_exporter *ex, sim_write_fn write)
{
    if (ex->enable && ex->at_end)
        write_logged(c, ex, write);
}

bool sim_exporter_outlives(const st_component *c, const st_component *self)
{
    if (!c)
        return true;
    st_node *n = self->node;
    if (c->node == n) {
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            if (st_node_object(n, i) == c)
                return true;
            if (st_node_object(n, i) == self)
                return false;
        }
        return false;
    }
    for (st_node *p = st_node_parent(n); p; p = st_node_parent(p))
        if (c->node == p)
            return true;
    return false;
}
