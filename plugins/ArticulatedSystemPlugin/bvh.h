/* bvh.h - a reader of BVH motion-capture files (Biovision Hierarchy), for
 * ArticulatedHierarchyContainer's "filename". Internal to the plugin.
 *
 * A file is a HIERARCHY (one ROOT joint; each joint has an OFFSET from its
 * parent, CHANNELS naming the values it reads per frame, child JOINTs and
 * End Sites) then a MOTION: "Frames: N", "Frame Time: t" and N frames of
 * values, one per channel of every joint in file order. Errors carry the
 * file, line and column and say what was expected. */
#ifndef SETTEE_BVH_H
#define SETTEE_BVH_H

#include <stdbool.h>
#include <stddef.h>

#include <settee/settee.h>

typedef enum bvh_channel {
    BVH_XPOSITION,
    BVH_YPOSITION,
    BVH_ZPOSITION,
    BVH_XROTATION,
    BVH_YROTATION,
    BVH_ZROTATION
} bvh_channel;

#define BVH_MAX_CHANNELS 6

typedef struct bvh_joint {
    char *name;              /* owned; "End Site" for an end site */
    int parent;              /* index of the parent joint, -1 for the root */
    bool end_site;
    double offset[3];        /* from the parent joint, in the parent's frame */
    size_t nchannels;
    bvh_channel channels[BVH_MAX_CHANNELS];
    size_t column;           /* column of its first channel in a frame */
    size_t nchildren;        /* joints and end sites whose parent it is */
} bvh_joint;

typedef struct bvh {
    bvh_joint *joints;       /* njoints, in file order: a parent before its children */
    size_t njoints;          /* joints and end sites (SOFA's getNumJoints) */
    size_t ncolumns;         /* channel values per frame */
    size_t nframes;          /* >= 1 */
    double frame_time;       /* seconds between frames, > 0 */
    double *frames;          /* nframes x ncolumns, row after row */
} bvh;

/* Parses BVH text of len bytes; name is the file name errors give (may be
 * NULL). On success *out is owned by the caller (bvh_destroy). ST_EPARSE
 * with "name:line:col" for malformed text, ST_ENOMEM. */
st_status bvh_parse(const char *text, size_t len, const char *name, bvh **out, st_error *err);

/* Reads and parses the file at path. ST_EIO when it cannot be read. */
st_status bvh_read(const char *path, bvh **out, st_error *err);

/* Frees b and clears it; accepts NULL and *b == NULL. */
void bvh_destroy(bvh **b);

/* True for a position (translation) channel. */
static inline bool bvh_channel_is_position(bvh_channel c) { return c <= BVH_ZPOSITION; }

#endif
