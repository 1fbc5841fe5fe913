/* sap_broad_phase.c - DirectSAP and IncrSAP (SOFA's sweep and prune broad
 * phases). They give the same model pairs as BruteForceBroadPhase (a pair
 * goes to the narrow phase when the models' boxes meet within the alarm
 * distance), so settee runs the same test for them: same contacts, in the
 * same order; the sweep itself, which only makes scenes with many models
 * faster, is not written yet. */
#include "detection_phases.h"

static const st_field direct_fields[] = {
    ST_IGNORED(cphase, draw, "draw", ST_T_BOOL, bool, "false", "enable/disable display of results (no display)"),
    ST_FIELD_END};

static const st_field incr_fields[] = {
    ST_REALS(cphase, boxv, "box", NULL,
             "if not empty, objects that do not intersect this bounding-box will be ignored "
             "(not available in settee: refused when set)"),
    ST_FIELD_END};

const st_class direct_sap_class = {
    .struct_size = sizeof(st_class),
    .name = "DirectSAP",
    .category = "CollisionAlgorithm",
    .description = "Sweep and prune broad phase (settee: the same model pairs as "
                   "BruteForceBroadPhase)",
    .instance_size = sizeof(cphase),
    .fields = direct_fields,
};

const st_class incr_sap_class = {
    .struct_size = sizeof(st_class),
    .name = "IncrSAP",
    .category = "CollisionAlgorithm",
    .description = "Incremental sweep and prune broad phase (settee: the same model pairs as "
                   "BruteForceBroadPhase)",
    .instance_size = sizeof(cphase),
    .fields = incr_fields,
    .init = cphase_check_box,
};
