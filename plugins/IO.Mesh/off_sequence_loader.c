/* off_sequence_loader.c - OffSequenceLoader: a MeshOffLoader that replaces
 * its mesh by the next file of a numbered sequence as time goes, as SOFA's:
 * filename "NAME07.off" starts the sequence at 7; at the beginning of a
 * step where (current - first) stepDuration <= t, the index moves on and,
 * while fewer than nbOfFiles files were read, the file whose name is
 * NAME07 with its last len(index) characters replaced by the new index
 * (SOFA's rule: "mesh9" is followed by "mes10") and ".off" is read into
 * the outputs (positions and faces as in the file: SOFA does not apply
 * the loader's transformation to the later files). The first file is
 * loaded by init as MeshOffLoader does; reset starts again from it.
 * SOFA cuts the name at the first '.' of its whole path; settee at the last
 * '.' of the file name, so that a dot in a folder name does no harm. A
 * name without a number at the end of its stem is SOFA's error; a file of
 * the sequence that cannot be read fails the run with its name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../shared/output_file.h"
#include "mesh_loader.h"

typedef struct off_sequence {
    mesh_loader l;
    int nb_files;
    double step_duration;
    /* Run state. */
    int first, current;
    char stem[4096]; /* the resolved path without ".off" */
} off_sequence;

static const st_field offseq_fields[] = {
    LOADER_FIELDS,
    LOADER_SUBELEMENTS("false"),
    ST_INT(off_sequence, nb_files, "nbOfFiles", "1", "number of files in the sequence"),
    ST_REAL(off_sequence, step_duration, "stepDuration", "0.04", "how long each file is loaded"),
    ST_FIELD_END};

static st_status offseq_init(st_component *self, st_error *err)
{
    off_sequence *o = (off_sequence *)self;
    ST_TRY(loader_load(&o->l, off_parse, err));
    const char *path = o->l.path ? o->l.path : o->l.filename;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t len = dot ? (size_t)(dot - path) : strlen(path);
    if (len >= sizeof o->stem)
        return st_component_error(self, "filename", err, ST_EINVAL, "file name too long");
    memcpy(o->stem, path, len);
    o->stem[len] = 0;
    size_t d = len;
    while (d > (size_t)(base - path) && o->stem[d - 1] >= '0' && o->stem[d - 1] <= '9')
        d--;
    if (d == len || len - d > 9)
        return st_component_error(self, "filename", err, ST_EINVAL,
                                  "Invalid file index: '%s' does not end in the number of the "
                                  "sequence's first file",
                                  base);
    o->first = o->current = atoi(o->stem + d);
    return ST_OK;
}

static void offseq_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    off_sequence *o = (off_sequence *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || !o->stem[0])
        return;
    if ((o->current - o->first) * o->step_duration > st_node_time(self->node))
        return;
    o->current++;
    if (o->current >= o->first + o->nb_files)
        return;
    char index[16], path[4200];
    int k = snprintf(index, sizeof index, "%d", o->current);
    size_t keep = strlen(o->stem) >= (size_t)k ? strlen(o->stem) - (size_t)k : 0;
    snprintf(path, sizeof path, "%.*s%s.off", (int)keep, o->stem, index);
    st_error err = {0};
    mesh_file f;
    if (mesh_file_read(self, path, &f, &err) == ST_OK) {
        loader_clear(&o->l);
        if (off_parse(&o->l, &f, &err) == ST_OK)
            loader_touch_outputs(&o->l);
        mesh_file_free(&f);
    }
    if (err.code != ST_OK) {
        st_error_prefix(&err, "OffSequenceLoader: file %d of the sequence: ",
                        o->current - o->first + 1);
        out_log_error(self, &err);
    }
}

static void offseq_reset(st_component *self)
{
    off_sequence *o = (off_sequence *)self;
    o->current = o->first;
    st_error err = {0};
    if (loader_load(&o->l, off_parse, &err) != ST_OK)
        out_log_error(self, &err);
    else
        loader_touch_outputs(&o->l);
}

const st_class off_sequence_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "OffSequenceLoader",
    .category = "Loader",
    .description = "Read and load an .off file at each timestep.",
    .instance_size = sizeof(off_sequence),
    .fields = offseq_fields,
    .init = offseq_init,
    .reinit = offseq_init,
    .reset = offseq_reset,
    .on_event = offseq_event,
    .cleanup = loader_cleanup,
};
