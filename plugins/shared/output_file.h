/* output_file.h - what the output components share (VTKExporter, WriteState,
 * Monitor): output file names resolved as SOFA resolves them (relative to
 * the scene's folder), missing folders created, and files written under a
 * temporary name in their folder and renamed over the target once complete,
 * so that a reader never sees half a file. Compiled into each plugin that
 * uses it (plugins/shared is not a plugin itself). */
#ifndef SETTEE_SHARED_OUTPUT_FILE_H
#define SETTEE_SHARED_OUTPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

#include <settee/settee.h>

#define OUT_PATH_MAX 4096

/* Resolves an output file name written in field `field` of c: an absolute
 * name as it is, a relative one in the folder of c's scene file (the
 * current folder for scenes built in code). ST_EINVAL at the field when the
 * result does not fit in size bytes or name is empty. */
st_status out_resolve(const st_component *c, const char *field, const char *name, char *out,
                      size_t size, st_error *err);

/* Creates the folders above the file `path` that do not exist (mkdir -p of
 * its dirname). ST_EIO naming the folder and the reason otherwise. */
st_status out_make_parents(const char *path, st_error *err);

/* A file being written: f writes into tmp, commit renames tmp over dst. */
typedef struct out_file {
    FILE *f;
    char tmp[OUT_PATH_MAX];
    char dst[OUT_PATH_MAX];
} out_file;

/* Opens a temporary file next to path (creating missing folders). */
st_status out_open(out_file *o, const char *path, st_error *err);
/* Flushes, checks for write errors, closes and renames over the target;
 * on failure removes the temporary file. ST_EIO naming the file. */
st_status out_commit(out_file *o, st_error *err);
/* Drops a file being written (after a failure). Accepts a closed one. */
void out_abort(out_file *o);

/* A file written as the run goes (WriteState, WriteTopology): gzip when its
 * name ends in ".gz", plain text otherwise, flushed after each record as
 * SOFA's writers do, so that a reader during the run sees whole records. */
typedef struct out_stream {
    void *gz; /* gzFile, or NULL */
    FILE *f;
} out_stream;

/* Opens path for writing (gzip by its name). False when it cannot. */
bool out_stream_open(out_stream *s, const char *path);
bool out_stream_is_open(const out_stream *s);
/* Writes formatted text (at most 511 bytes a call). */
void out_stream_printf(out_stream *s, const char *fmt, ...) ST_PRINTF(2, 3);
/* Flushes; false on a write error. */
bool out_stream_flush(out_stream *s);
/* Closes (accepts a closed stream). */
void out_stream_close(out_stream *s);

/* Logs err as an error of c to the runtime's log sink (from an event
 * handler, which cannot return a status): the run's error count grows, so
 * that `settee run` fails. */
void out_log_error(const st_component *c, const st_error *err);

/* The checkpoint role of components whose file is written as the run goes
 * (WriteState, Monitor, EnergyMonitor): nothing is saved; on --resume the
 * file, created afresh at init, holds the resumed part of the run only, and
 * a warning naming it says so. */
extern const st_checkpoint_ops out_restarted_file_checkpoint;

#endif
