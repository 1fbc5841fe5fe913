/* sap_broad_phase.c - DirectSAP, DirectSAPNarrowPhase and IncrSAP (SOFA's
 * sweep and prune). SOFA's DirectSAP adds a BruteForceBroadPhase and a
 * DirectSAPNarrowPhase to its node: the model pairs come from the boxes
 * of the models, then the boxes of their elements (the leaves of their
 * cube models) are swept along the axis of largest variance each step.
 * IncrSAP is both phases, its end point lists kept sorted from step to
 * step. Here each selects the element search of the pipeline
 * (element_search.c): DirectSAP and DirectSAPNarrowPhase the sweep of
 * radix-sorted end points, IncrSAP the sweep of an end point list kept
 * across steps and re-sorted by insertion sort; both serve as the narrow
 * phase too (no BVHNarrowPhase needed). They give the element pairs whose
 * boxes meet within the alarm distance, the same as BVHNarrowPhase, in
 * the same order: same contacts, bit for bit, whatever the phase. */
#include "detection_phases.h"

static const st_field direct_fields[] = {
    ST_IGNORED(cphase, draw, "draw", ST_T_BOOL, bool, "false", "enable/disable display of results (no display)"),
    ST_FIELD_END};

static const st_field narrow_fields[] = {
    ST_IGNORED(cphase, draw, "showOnlyInvestigatedBoxes", ST_T_BOOL, bool, "true",
               "Show only boxes which will be sent to narrow phase (no display)"),
    ST_OUTPUT(cphase, nb_pairs, "nbPairs", ST_T_INT, int,
              "number of pairs of elements sent to narrow phase"),
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
    .description = "Collision detection using sweep and prune (SOFA: a BruteForceBroadPhase and a "
                   "DirectSAPNarrowPhase; settee: both in one, the same contacts as "
                   "BruteForceBroadPhase and BVHNarrowPhase)",
    .instance_size = sizeof(cphase),
    .fields = direct_fields,
};

const st_class direct_sap_narrow_phase_class = {
    .struct_size = sizeof(st_class),
    .name = "DirectSAPNarrowPhase",
    .category = "CollisionAlgorithm",
    .description = "Narrow phase: sweep and prune of the colliding models' element boxes along "
                   "the axis of largest variance (the same contacts as BVHNarrowPhase)",
    .instance_size = sizeof(cphase),
    .fields = narrow_fields,
};

const st_class incr_sap_class = {
    .struct_size = sizeof(st_class),
    .name = "IncrSAP",
    .category = "CollisionAlgorithm",
    .description = "Incremental sweep and prune: broad and narrow phase, the element boxes' end "
                   "points kept sorted from step to step (the same contacts as "
                   "BruteForceBroadPhase and BVHNarrowPhase)",
    .instance_size = sizeof(cphase),
    .fields = incr_fields,
    .init = cphase_check_box,
};
