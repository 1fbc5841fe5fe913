/* brute_force_broad_phase.c - BruteForceBroadPhase and its parallel twin
 * ParallelBruteForceBroadPhase: every pair of collision models whose boxes
 * meet within the alarm distance goes to the narrow phase. The pipeline
 * runs the test (collision_pipeline.c), pair by pair with that pair's
 * narrow phase: with the parallel twin, the pairs run on threads. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detection_phases.h"

static const st_field fields[] = {
    ST_REALS(cphase, boxv, "box", NULL,
             "if not empty, objects that do not intersect this bounding-box will be ignored "
             "(not available in settee: refused when set)"),
    ST_FIELD_END};

st_status cphase_check_box(st_component *self, st_error *err)
{
    cphase *p = (cphase *)self;
    if (p->boxv.n)
        return st_component_error(self, "box", err, ST_ESCENE,
                                  "a restricting box is not available in settee: remove 'box'");
    return ST_OK;
}

const st_class brute_force_broad_phase_class = {
    .struct_size = sizeof(st_class),
    .name = "BruteForceBroadPhase",
    .category = "CollisionAlgorithm",
    .description = "Broad phase: tests every pair of collision models' bounding boxes",
    .instance_size = sizeof(cphase),
    .fields = fields,
    .init = cphase_check_box,
};

/* ---- The parallel phases' thread count (SOFA's TaskSchedulerUser) ---- */

unsigned cphase_threads(const st_component *phase)
{
    return st_threads_for(phase, ((const cphase *)phase)->nb_threads, NULL);
}

st_status cphase_check_scheduler(st_component *self, st_error *err)
{
    const cphase *p = (const cphase *)self;
    if (p->scheduler_type && strcmp(p->scheduler_type, "_default") &&
        strcmp(p->scheduler_type, "std"))
        return st_component_error(self, "taskSchedulerType", err, ST_ESCENE,
                                  "unknown task scheduler type '%s': expected _default or std",
                                  p->scheduler_type);
    return ST_OK;
}

static st_status parallel_broad_init(st_component *self, st_error *err)
{
    ST_TRY(cphase_check_box(self, err));
    return cphase_check_scheduler(self, err);
}

static const st_field parallel_fields[] = {
    ST_REALS(cphase, boxv, "box", NULL,
             "if not empty, objects that do not intersect this bounding-box will be ignored "
             "(not available in settee: refused when set)"),
    CPHASE_SCHEDULER_FIELDS,
    ST_FIELD_END};

const st_class parallel_brute_force_broad_phase_class = {
    .struct_size = sizeof(st_class),
    .name = "ParallelBruteForceBroadPhase",
    .category = "CollisionAlgorithm",
    .description = "Broad phase: tests every pair of collision models' bounding boxes, the "
                   "pairs (with their narrow phase) on threads; the same contacts as "
                   "BruteForceBroadPhase",
    .instance_size = sizeof(cphase),
    .fields = parallel_fields,
    .init = parallel_broad_init,
};

/* BruteForceDetection: SOFA's deprecated combination of the two phases. SOFA
 * adds a BruteForceBroadPhase and a BVHNarrowPhase beside it when it is
 * created; the pipeline here takes it as both (the same detection), and it
 * says what to write instead, as SOFA does. */
static st_status brute_force_detection_init(st_component *self, st_error *err)
{
    (void)err;
    st_component_warn(self, "BruteForceDetection is deprecated: as a replacement, use a broad "
                            "phase (BruteForceBroadPhase) and a narrow phase (BVHNarrowPhase); "
                            "it acts as those two here, as SOFA adds them for backward "
                            "compatibility");
    return ST_OK;
}

static const st_field detection_fields[] = {ST_FIELD_END};

const st_class brute_force_detection_class = {
    .struct_size = sizeof(st_class),
    .name = "BruteForceDetection",
    .category = "CollisionAlgorithm",
    .description = "Combination of brute force broad phase and BVH narrow phase collision "
                   "detection (deprecated in SOFA)",
    .instance_size = sizeof(cphase),
    .fields = detection_fields,
    .init = brute_force_detection_init,
};
