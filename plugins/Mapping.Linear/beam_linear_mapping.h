/* beam_linear_mapping.h - BeamLinearMapping's instance and its loops over
 * ranges of points, shared with its parallel twin (MultiThreading's
 * BeamLinearMapping_mt, which compiles beam_linear_mapping.c in). Internal
 * to the two plugins. */
#ifndef SETTEE_PLUGIN_BEAM_LINEAR_MAPPING_H
#define SETTEE_PLUGIN_BEAM_LINEAR_MAPPING_H

#include <stdbool.h>
#include <stddef.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"

typedef struct beam_mapping {
    map_head h;
    bool local_coord;  /* "localCoord" */
    /* Set at init. */
    size_t nin, n;
    double *points;    /* n x 3 local coordinates */
    double *length;    /* nin: segment lengths */
    double *r0, *r1;   /* n x 3: rotated points of the last apply */
} beam_mapping;

extern const st_class beam_linear_mapping_class;

/* Initialised, with input and output of the sizes it was initialised for
 * (_mech: and its output is mechanical, so that J and J^T apply). */
bool beam_mapping_ready(const beam_mapping *m);
bool beam_mapping_ready_mech(const beam_mapping *m);
/* Points [b, e): positions (and their rotated offsets r0, r1) from the
 * frames xin; velocities from the frames' vin. Points are independent. */
void beam_mapping_apply_range(beam_mapping *m, const double *xin, double *xout, size_t first,
                              size_t end);
void beam_mapping_apply_j_range(const beam_mapping *m, const double *vin, double *vout, size_t b,
                                size_t e);
/* J^T of point i's force fi: g[0..5] the force and torque it adds to frame
 * j (returned), g[6..11] those to frame j + 1, each value as the
 * sequential loop adds it. */
size_t beam_mapping_jt_point(const beam_mapping *m, size_t i, const double *fi, double g[12]);

#endif
