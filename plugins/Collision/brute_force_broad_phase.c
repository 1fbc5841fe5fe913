/* brute_force_broad_phase.c - BruteForceBroadPhase (alias
 * ParallelBruteForceBroadPhase): every pair of collision models whose boxes
 * meet within the alarm distance goes to the narrow phase. The pipeline
 * runs the test (collision_pipeline.c); this component selects it. */
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

static const char *const aliases[] = {"ParallelBruteForceBroadPhase", NULL};

const st_class brute_force_broad_phase_class = {
    .struct_size = sizeof(st_class),
    .name = "BruteForceBroadPhase",
    .category = "CollisionAlgorithm",
    .description = "Broad phase: tests every pair of collision models' bounding boxes",
    .aliases = aliases,
    .instance_size = sizeof(cphase),
    .fields = fields,
    .init = cphase_check_box,
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
