/* bvh_narrow_phase.c - BVHNarrowPhase and its parallel twin
 * ParallelBVHNarrowPhase (the model pairs on threads, each pair's contacts
 * the same, collision_pipeline.c): the
 * element pairs of each model pair whose boxes meet within the alarm
 * distance are tested by the intersection method. SOFA descends its cube
 * hierarchies to the same element pairs; settee finds them with a uniform
 * grid of the second model's elements (element_search.c), so contacts are
 * the same, listed by element of the first model, then of the second. */
#include "detection_phases.h"

static const st_field fields[] = {ST_FIELD_END};

const st_class bvh_narrow_phase_class = {
    .struct_size = sizeof(st_class),
    .name = "BVHNarrowPhase",
    .category = "CollisionAlgorithm",
    .description = "Narrow phase: element pairs of colliding models, through their bounding "
                   "boxes",
    .instance_size = sizeof(cphase),
    .fields = fields,
};

static const st_field parallel_fields[] = {
    CPHASE_SCHEDULER_FIELDS,
    ST_FIELD_END};

const st_class parallel_bvh_narrow_phase_class = {
    .struct_size = sizeof(st_class),
    .name = "ParallelBVHNarrowPhase",
    .category = "CollisionAlgorithm",
    .description = "Narrow phase: element pairs of colliding models, through their bounding "
                   "boxes, the model pairs on threads; the same contacts as BVHNarrowPhase",
    .instance_size = sizeof(cphase),
    .fields = parallel_fields,
    .init = cphase_check_scheduler,
};
