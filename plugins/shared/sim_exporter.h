/* sim_exporter.h - SOFA's BaseSimulationExporter, shared by MeshExporter,
 * STLExporter and VisualModelOBJExporter: the five fields (filename,
 * exportEveryNumberOfSteps, exportAtBegin, exportAtEnd, enable), the
 * events that write (exportAtBegin once the scene is initialised, every
 * exportEveryNumberOfSteps steps at the end of a step, exportAtEnd when the
 * scene is destroyed), and the target path: filename (the component's name
 * when empty) relative to the scene's folder, the component's name appended
 * when it names a folder, missing folders created, and with
 * exportEveryNumberOfSteps > 0 the number step / exportEveryNumberOfSteps
 * appended in 5 digits ("outFile00002"). Compiled into the plugins that use it (IO.Mesh, SofaMatrix). */
#ifndef SETTEE_IO_MESH_SIM_EXPORTER_H
#define SETTEE_IO_MESH_SIM_EXPORTER_H

#include <settee/settee.h>

#include "output_file.h"

typedef struct sim_exporter {
    char *filename;          /* "filename" */
    unsigned every;          /* "exportEveryNumberOfSteps" */
    bool at_begin, at_end;   /* "exportAtBegin", "exportAtEnd" */
    bool enable;             /* "enable" */
    unsigned long step;      /* SOFA's m_stepCounter */
    unsigned files_written;  /* "filesWritten" (settee output) */
    unsigned failures;       /* "failures" (settee output) */
    bool skipped;            /* set by a write that wrote nothing (SOFA's warning) */
} sim_exporter;

/* The fields of a component S whose member `ex` is its sim_exporter. */
#define SIM_EXPORTER_FIELDS(S)                                                                    \
    ST_STRING(S, ex.filename, "filename", NULL,                                                   \
              "Path or filename where to export the data.  If missing the name of the component " \
              "is used."),                                                                        \
        ST_UINT(S, ex.every, "exportEveryNumberOfSteps", "0",                                     \
                "export file only at specified number of steps (0=disable, default=0)"),          \
        ST_BOOL(S, ex.at_begin, "exportAtBegin", "false",                                         \
                "export file before the simulation starts, once the simulation is initialized "   \
                "(default=false)"),                                                               \
        ST_BOOL(S, ex.at_end, "exportAtEnd", "false",                                             \
                "export file when the simulation is over and cleanup is called, i.e. just "       \
                "before deleting the simulation (default=false)"),                                \
        ST_BOOL(S, ex.enable, "enable", "true", "Enable or disable the component. (default=true)"), \
        ST_OUTPUT(S, ex.files_written, "filesWritten", ST_T_UINT, unsigned,                      \
                  "number of exports written (settee)"),                                          \
        ST_OUTPUT(S, ex.failures, "failures", ST_T_UINT, unsigned,                               \
                  "number of exports that failed, each logged as an error (settee)")

/* The path of the next file, without extension (SOFA's
 * getOrCreateTargetPath(filename, numbered)); creates missing folders. */
st_status sim_exporter_path(st_component *c, sim_exporter *ex, bool numbered, char *out,
                            size_t size, st_error *err);

/* The write callback of an exporter. */
typedef st_status (*sim_write_fn)(st_component *c, st_error *err);

/* Handles SOFA's events for c: calls write (failures logged and counted). */
void sim_exporter_event(st_component *c, sim_exporter *ex, st_event ev, sim_write_fn write);
/* True when c is destroyed after self (exportAtEnd reads it from self's
 * cleanup): NULL, in an ancestor of self's node, or earlier in its node. */
bool sim_exporter_outlives(const st_component *c, const st_component *self);

/* At cleanup: writes once more with exportAtEnd. */
void sim_exporter_cleanup(st_component *c, sim_exporter *ex, sim_write_fn write);

#endif
