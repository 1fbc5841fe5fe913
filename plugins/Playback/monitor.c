/* monitor.c - SOFA's Monitor (SofaValidation): the positions, velocities
 * and forces of chosen points of its node's MechanicalObject written, at
 * the end of every step, to gnuplot text files, one per quantity:
 *
 *   FILENAME_x.txt, FILENAME_v.txt, FILENAME_f.txt
 *
 *   # Gnuplot File : positions of 2 particle(s) Monitored
 *   # 1st Column : time, others : particle(s) number 0 7
 *   0.01<TAB>x y z<TAB>x y z<TAB>
 *
 * SOFA's header lines and layout, with numbers of 17 significant digits
 * (SOFA's streams write 6). The drawing fields are accepted and unused
 * (settee runs headless); showTrajectories keeps nothing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/options.h"
#include "../shared/output_file.h"

enum { MON_X, MON_V, MON_F, MON_N };

typedef struct monitor {
    st_component base;
    st_array indices;               /* "indices" */
    bool save[MON_N];               /* "ExportPositions", "ExportVelocities", "ExportForces" */
    char *filename;                 /* "fileName" */
    bool show_x, show_v, show_f, show_traj;
    st_vec4 color_x, color_v, color_f, color_traj;
    double min_threshold, traj_precision, size_factor;
    /* Run state. */
    st_mstate *ms;
    FILE *file[MON_N];
    char path[MON_N][OUT_PATH_MAX];
} monitor;

static const st_field monitor_fields[] = {
    ST_UINTS(monitor, indices, "indices", NULL, "MechanicalObject points indices to monitor"),
    ST_BOOL(monitor, save[MON_X], "ExportPositions", "false",
            "export Monitored positions as gnuplot file"),
    ST_BOOL(monitor, save[MON_V], "ExportVelocities", "false",
            "export Monitored velocities as gnuplot file"),
    ST_BOOL(monitor, save[MON_F], "ExportForces", "false",
            "export Monitored forces as gnuplot file"),
    ST_STRING(monitor, filename, "fileName", NULL,
              "name of the plot files to be generated (default: the component's name, in the "
              "scene's folder); _x.txt, _v.txt, _f.txt are appended"),
    IGN_BOOL(monitor, show_x, "showPositions", "false", "see the Monitored positions (drawing)"),
    IGN_RGBA(monitor, color_x, "PositionsColor", "1 1 0 1",
             "define the color of positions (drawing)"),
    IGN_BOOL(monitor, show_v, "showVelocities", "false",
             "see the Monitored velocities (drawing)"),
    IGN_RGBA(monitor, color_v, "VelocitiesColor", "1 1 0 1",
             "define the color of velocities (drawing)"),
    IGN_BOOL(monitor, show_f, "showForces", "false", "see the Monitored forces (drawing)"),
    IGN_RGBA(monitor, color_f, "ForcesColor", "1 1 0 1", "define the color of forces (drawing)"),
    IGN_REAL(monitor, min_threshold, "showMinThreshold", "0.01",
             "under this value, vectors are not represented (drawing)"),
    IGN_BOOL(monitor, show_traj, "showTrajectories", "false",
             "print the trajectory of Monitored particles (drawing)"),
    IGN_REAL(monitor, traj_precision, "TrajectoriesPrecision", "0.1",
             "set the dt between to save of positions (drawing)"),
    IGN_RGBA(monitor, color_traj, "TrajectoriesColor", "1 1 0 1",
             "define the color of the trajectories (drawing)"),
    IGN_REAL(monitor, size_factor, "sizeFactor", "1", "factor to multiply to arrows (drawing)"),
    ST_FIELD_END};

static const char *const quantity[MON_N] = {"positions", "velocities", "forces"};
static const char suffix[MON_N] = {'x', 'v', 'f'};

static void close_files(monitor *m)
{
    for (int q = 0; q < MON_N; q++) {
        if (m->file[q])
            fclose(m->file[q]);
        m->file[q] = NULL;
    }
}

static st_status monitor_init(st_component *self, st_error *err)
{
    monitor *m = (monitor *)self;
    close_files(m);
    m->ms = st_component_mstate(self);
    if (!m->ms)
        return st_component_error(self, NULL, err, ST_ESCENE, "no MechanicalObject found");
    size_t n = m->ms->n ? m->ms->n : m->ms->position.n;
    for (size_t i = 0; i < m->indices.n; i++)
        if (m->indices.u[i] >= n)
            return st_component_error(self, "indices", err, ST_EINVAL,
                                      "index %u is beyond the %zu points of '%s'",
                                      m->indices.u[i], n, m->ms->base.name);
    char stem[OUT_PATH_MAX];
    ST_TRY(out_resolve(self, "fileName", m->filename ? m->filename : self->name, stem,
                       sizeof stem - 8, err));
    for (int q = 0; q < MON_N; q++) {
        if (!m->save[q])
            continue;
        snprintf(m->path[q], sizeof m->path[q], "%s_%c.txt", stem, suffix[q]);
        ST_TRY(out_make_parents(m->path[q], err));
        if (!(m->file[q] = fopen(m->path[q], "w"))) {
            int e = errno;
            close_files(m);
            return st_component_error(self, "fileName", err, ST_EIO, "cannot create '%s': %s",
                                      m->path[q], strerror(e));
        }
        fprintf(m->file[q], "# Gnuplot File : %s of %zu particle(s) Monitored\n", quantity[q],
                m->indices.n);
        fputs("# 1st Column : time, others : particle(s) number ", m->file[q]);
        for (size_t i = 0; i < m->indices.n; i++)
            fprintf(m->file[q], "%u ", m->indices.u[i]);
        fputc('\n', m->file[q]);
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void write_line(monitor *m, int q, double time)
{
    const st_mstate *ms = m->ms;
    const st_array *a = q == MON_X ? &ms->position : q == MON_V ? &ms->velocity : &ms->force;
    unsigned w = ms->type ? (q == MON_X ? ms->type->coord_size : ms->type->deriv_size) : 3;
    size_t n = ms->n ? ms->n : ms->position.n;
    if (q != MON_X && (a->n < n || !a->r))
        return; /* SOFA skips empty velocities and forces */
    FILE *f = m->file[q];
    fprintf(f, "%.17g\t", time);
    for (size_t i = 0; i < m->indices.n; i++) {
        const double *p = a->r + (size_t)w * m->indices.u[i];
        for (unsigned k = 0; k < w; k++)
            fprintf(f, k ? " %.17g" : "%.17g", p[k]);
        fputc('\t', f);
    }
    fputc('\n', f);
    if (fflush(f) != 0 || ferror(f)) {
        st_error err = {0};
        st_error_set(&err, ST_EIO, "cannot write '%s'", m->path[q]);
        out_log_error(&m->base, &err);
        fclose(f);
        m->file[q] = NULL;
    }
}

static void monitor_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    monitor *m = (monitor *)self;
    if (ev != ST_EVENT_ANIMATE_END || self->state != ST_CSTATE_VALID)
        return;
    double time = st_node_time(self->node);
    for (int q = 0; q < MON_N; q++)
        if (m->file[q])
            write_line(m, q, time);
}

static void monitor_cleanup(st_component *self)
{
    close_files((monitor *)self);
}

const st_class monitor_class = {
    .struct_size = sizeof(st_class),
    .name = "Monitor",
    .category = "Playback",
    .description = "Monitoring of particles: positions, velocities and forces of chosen points "
                   "written to gnuplot files",
    .instance_size = sizeof(monitor),
    .fields = monitor_fields,
    .init = monitor_init,
    .reinit = monitor_init,
    .on_event = monitor_on_event,
    .cleanup = monitor_cleanup,
    .templates = st_all_state_types,
    .checkpoint = &out_restarted_file_checkpoint,
};
