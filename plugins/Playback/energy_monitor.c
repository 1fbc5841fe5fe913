/* energy_monitor.c - EnergyMonitor (settee; SOFA has no such component):
 * the kinetic and potential energy of the mechanical systems of its node's
 * subtree (the whole scene when it sits in the root), written at the end of
 * every step to a gnuplot text file in Monitor's style (when fileName is
 * set; else only the outputs kineticEnergy and potentialEnergy):
 *
 *   # Gnuplot File : energies of the systems below /Beam
 *   # 1st Column : time, then kinetic, potential, total energy
 *   0<TAB>0<TAB>-12.5<TAB>-12.5
 *
 * One line at init (the initial state), then one per step. The energies
 * are those of the masses and force fields (st_system_kinetic_energy,
 * st_system_potential_energy), summed over systems; mapped states belong to
 * the system of their mapping's input. The last values are also outputs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/output_file.h"

typedef struct energy_monitor {
    st_component base;
    char *filename;      /* "fileName" */
    double kinetic;      /* "kineticEnergy" (output) */
    double potential;    /* "potentialEnergy" (output) */
    /* Run state. */
    FILE *f;
    st_system **systems; /* distinct systems of the subtree */
    size_t nsystems;
    char path[OUT_PATH_MAX];
} energy_monitor;

static const st_field energy_monitor_fields[] = {
    ST_STRING(energy_monitor, filename, "fileName", NULL,
              "name of the file written (relative: in the scene's folder); _energy.txt is "
              "appended; none: no file, only the outputs"),
    ST_OUTPUT(energy_monitor, kinetic, "kineticEnergy", ST_T_REAL, double,
              "kinetic energy at the last write (J)"),
    ST_OUTPUT(energy_monitor, potential, "potentialEnergy", ST_T_REAL, double,
              "potential energy at the last write (J)"),
    ST_FIELD_END};

static void write_line(energy_monitor *e)
{
    e->kinetic = e->potential = 0;
    for (size_t i = 0; i < e->nsystems; i++) {
        e->kinetic += st_system_kinetic_energy(e->systems[i]);
        e->potential += st_system_potential_energy(e->systems[i]);
    }
    if (!e->f)
        return;
    fprintf(e->f, "%.17g\t%.17g\t%.17g\t%.17g\n", st_node_time(e->base.node), e->kinetic,
            e->potential, e->kinetic + e->potential);
    if (fflush(e->f) != 0 || ferror(e->f)) {
        st_error err = {0};
        st_error_set(&err, ST_EIO, "cannot write '%s'", e->path);
        out_log_error(&e->base, &err);
        fclose(e->f);
        e->f = NULL;
    }
}

static void energy_monitor_cleanup(st_component *self)
{
    energy_monitor *e = (energy_monitor *)self;
    if (e->f)
        fclose(e->f);
    e->f = NULL;
    free(e->systems);
    e->systems = NULL;
    e->nsystems = 0;
}

static st_status energy_monitor_init(st_component *self, st_error *err)
{
    energy_monitor *e = (energy_monitor *)self;
    if (e->f)
        fclose(e->f);
    e->f = NULL;
    self->state = ST_CSTATE_VALID;
    if (!e->filename || !*e->filename)
        return ST_OK;
    char stem[OUT_PATH_MAX];
    ST_TRY(out_resolve(self, "fileName", e->filename, stem, sizeof stem - 16, err));
    snprintf(e->path, sizeof e->path, "%s_energy.txt", stem);
    ST_TRY(out_make_parents(e->path, err));
    if (!(e->f = fopen(e->path, "w")))
        return st_component_error(self, "fileName", err, ST_EIO, "cannot create '%s': %s",
                                  e->path, strerror(errno));
    char where[ST_ERROR_PATH_MAX];
    st_node_path(self->node, where, sizeof where);
    fprintf(e->f, "# Gnuplot File : energies of the systems below %s\n", where);
    fputs("# 1st Column : time, then kinetic, potential, total energy\n", e->f);
    return ST_OK;
}

/* The systems are compiled after every component's init: they are
 * gathered once the scene is initialised. */
static void gather_systems(energy_monitor *e)
{
    free(e->systems);
    e->systems = NULL;
    e->nsystems = 0;
    size_t n = st_node_find_all(e->base.node, ST_ROLE_STATE, ST_SEARCH_DOWN, NULL, 0);
    st_component **states = calloc(n ? n : 1, sizeof *states);
    e->systems = calloc(n ? n : 1, sizeof *e->systems);
    if (!states || !e->systems) {
        free(states);
        st_error err = {0};
        st_error_set(&err, ST_ENOMEM, "out of memory");
        out_log_error(&e->base, &err);
        return;
    }
    n = st_node_find_all(e->base.node, ST_ROLE_STATE, ST_SEARCH_DOWN, states, n);
    for (size_t i = 0; i < n; i++) {
        st_system *sys = ((st_mstate *)states[i])->system;
        bool seen = !sys;
        for (size_t j = 0; j < e->nsystems && !seen; j++)
            seen = e->systems[j] == sys;
        if (!seen)
            e->systems[e->nsystems++] = sys;
    }
    free(states);
}

static void energy_monitor_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    energy_monitor *e = (energy_monitor *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    if (ev == ST_EVENT_INIT_DONE) {
        gather_systems(e);
        write_line(e);
    } else if (ev == ST_EVENT_ANIMATE_END) {
        write_line(e);
    }
}

const st_class energy_monitor_class = {
    .struct_size = sizeof(st_class),
    .name = "EnergyMonitor",
    .category = "Playback",
    .description = "settee: kinetic and potential energy of the systems of a subtree written "
                   "to a gnuplot file at every step",
    .instance_size = sizeof(energy_monitor),
    .fields = energy_monitor_fields,
    .init = energy_monitor_init,
    .reinit = energy_monitor_init,
    .on_event = energy_monitor_on_event,
    .cleanup = energy_monitor_cleanup,
    .checkpoint = &out_restarted_file_checkpoint,
};
