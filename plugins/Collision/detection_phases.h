/* detection_phases.h - the broad and narrow phase components: settings
 * holders that the CollisionPipeline finds below its node. */
#ifndef COLLISION_DETECTION_PHASES_H
#define COLLISION_DETECTION_PHASES_H

#include "collision.h"

typedef struct cphase {
    st_component base;
    st_array boxv;   /* "box" (broad phases): refused when set */
    bool draw;       /* "draw" (DirectSAPNarrowPhase: "showOnlyInvestigatedBoxes") */
    int nb_pairs;    /* "nbPairs" (DirectSAPNarrowPhase, output) */
    int nb_threads;  /* "nbThreads" (the parallel phases) */
    char *scheduler_type; /* "taskSchedulerType" (the parallel phases) */
} cphase;

/* The parallel phases (SOFA's MultiThreading): ParallelBruteForceBroadPhase
 * and ParallelBVHNarrowPhase are BruteForceBroadPhase and BVHNarrowPhase
 * whose per-pair work runs on threads (collision_pipeline.c). */
extern const st_class parallel_brute_force_broad_phase_class;
extern const st_class parallel_bvh_narrow_phase_class;
/* Threads for a parallel phase: a TaskSchedulerSettings of the scene with
 * nbThreads != 0, else its nbThreads != 0, else settee's (SETTEE_THREADS,
 * `settee run --threads`), else 1. */
unsigned cphase_threads(const st_component *phase);
/* The fields the parallel phases add (SOFA's TaskSchedulerUser). */
#define CPHASE_SCHEDULER_FIELDS                                                                   \
    ST_INT(cphase, nb_threads, "nbThreads", "0",                                                  \
           "Threads of the task scheduler: n > 0 that many, -n the cores minus n, 0 settee's "   \
           "count (`settee run --threads N` or SETTEE_THREADS, else 1; SOFA: all cores). A "     \
           "TaskSchedulerSettings of the scene with nbThreads != 0 decides"),                     \
        ST_STRING(cphase, scheduler_type, "taskSchedulerType", "_default",                        \
                  "Type of task scheduler to use (_default or std)")
/* Refuses an unknown taskSchedulerType (init of the parallel phases). */
st_status cphase_check_scheduler(st_component *self, st_error *err);

/* Refuses a set 'box' (brute_force_broad_phase.c). */
st_status cphase_check_box(st_component *self, st_error *err);

/* SubCollisionPipeline (collision_pipeline.c): a pipeline whose parts are
 * linked; it plays no collision role itself (the kernel would run it):
 * CompositeCollisionPipeline runs these operations of each. */
extern const st_class sub_collision_pipeline_class;
extern const st_collision_ops sub_collision_pipeline_ops;
/* RayTraceNarrowPhase (raytrace.c): the detections of one pair of
 * TriangleOctreeCollisionModels for pipeline step `step` (from 1). */
extern const st_class raytrace_narrow_phase_class;
/* RayTraceDetection (raytrace.c): both phases, the narrow one RayTraceNarrowPhase's. */
extern const st_class raytrace_detection_class;
/* ContactListener (contact_listener.c): one collision of its pipeline, the
 * pairs after their narrow phase. */
extern const st_class contact_listener_class;
st_status contact_listener_collide(st_component *self, const cpair *const *pairs, size_t npairs,
                                   st_error *err);
/* Its models: collisionModel1 (or 2 alone), and the second (NULL: any). */
void contact_listener_models(const st_component *self, const cmodel **m1, const cmodel **m2);
st_status raytrace_pair(cpair *q, unsigned long step, st_error *err);

/* Whether model is one of the sub-pipeline's collision models (after bind). */
bool sub_collision_pipeline_has(const st_component *sub, const st_component *model);

#endif
