/* bvh_narrow_phase.c - BVHNarrowPhase (alias ParallelBVHNarrowPhase): the
 * element pairs of each model pair whose boxes meet within the alarm
 * distance are tested by the intersection method. SOFA descends its cube
 * hierarchies to the same element pairs; settee finds them with a uniform
 * grid of the second model's elements (element_search.c), so contacts are
 * the same, listed by element of the first model, then of the second. */
#include "detection_phases.h"

static const st_field fields[] = {ST_FIELD_END};

static const char *const aliases[] = {"ParallelBVHNarrowPhase", NULL};

const st_class bvh_narrow_phase_class = {
    .struct_size = sizeof(st_class),
    .name = "BVHNarrowPhase",
    .category = "CollisionAlgorithm",
    .description = "Narrow phase: element pairs of colliding models, through their bounding "
                   "boxes",
    .aliases = aliases,
    .instance_size = sizeof(cphase),
    .fields = fields,
};
