/* articulated.h - what the ArticulatedSystemPlugin's classes share: the
 * instance structs of ArticulationCenter and Articulation, which
 * ArticulatedSystemMapping reads through the hierarchy container. */
#ifndef SETTEE_ARTICULATED_H
#define SETTEE_ARTICULATED_H

#include <settee/settee.h>

typedef struct articulation {
    st_component base;
    st_vec3 axis;           /* "axis" (alias "rotationAxis") */
    bool rotation;          /* "rotation" */
    bool translation;       /* "translation" */
    int articulation_index; /* "articulationIndex": the Vec1d point it reads */
    /* Set by an ArticulatedHierarchyContainer that built it from a BVH
     * file: the column of the container's frames it plays. */
    bool has_motion;
    size_t motion_column;
} articulation;

typedef struct articulation_center {
    st_component base;
    int parent_index;       /* "parentIndex": body (output point) of the parent */
    int child_index;        /* "childIndex": body it places */
    st_vec3 global_position;/* "globalPosition": written by the mapping */
    st_vec3 pos_on_parent;  /* "posOnParent" */
    st_vec3 pos_on_child;   /* "posOnChild" */
    int process;            /* "articulationProcess": 0, 1 or 2 */
} articulation_center;

struct bvh;

typedef struct articulated_hierarchy_container {
    st_component base;
    char *filename;         /* "filename": a BVH motion file, or empty */
    /* From the BVH file (NULL without one): its joints and frames, and the
     * node holding the centers built from it. */
    struct bvh *motion;
    st_node *built;
    size_t narticulations;  /* values the centers read (the Vec1d size) */
} articulated_hierarchy_container;

extern const st_class articulated_hierarchy_container_class;
extern const st_class articulation_center_class;
extern const st_class articulation_class;
extern const st_class articulated_system_mapping_class;
extern const st_class articulated_hierarchy_controller_class;
extern const st_class articulated_hierarchy_bvh_controller_class;

/* User events for ArticulatedHierarchyController (SOFA's KeypressedEvent
 * and MouseEvent), delivered by a device driver, Python or a test. */
typedef enum articulated_mouse_event {
    ARTICULATED_MOUSE_LEFT_PRESSED,
    ARTICULATED_MOUSE_LEFT_RELEASED,
    ARTICULATED_MOUSE_RIGHT_PRESSED,
    ARTICULATED_MOUSE_RIGHT_RELEASED,
    ARTICULATED_MOUSE_WHEEL,
    ARTICULATED_MOUSE_RESET
} articulated_mouse_event;
void articulated_controller_key_pressed(st_component *controller, char key);
void articulated_controller_mouse(st_component *controller, articulated_mouse_event ev,
                                  int wheel_delta);

/* Places the bodies of an ArticulatedSystemMapping from the current
 * positions of its states, when its input is `input` (else nothing): what
 * SOFA's UpdateMappingVisitor does after each step, for values that no ODE
 * solver's system propagates (ArticulatedHierarchyBVHController). */
void articulated_mapping_refresh(st_component *mapping, const st_mstate *input);

/* SOFA's ArticulatedHierarchyController data, which its BVH controller
 * inherits: members indices, keys, angle_delta, propagate of struct S. */
#define ARTIC_CONTROLLER_FIELDS(S)                                                                 \
    ST_UINTS(S, indices, "articulationsIndices", "",                                               \
             "Indices of articulations controlled by the keyboard"),                              \
        ST_STRINGS(S, keys, "bindingKeys", "", "Keys to press to control the articulations"),    \
        ST_REAL(S, angle_delta, "angleDelta", "0.01",                                              \
                "Angle incrementation due to each user interaction"),                             \
        ST_BOOL(S, propagate, "propagateUserInteraction", "false",                                 \
                "Says wether or not the user interaction is local on the articulations, or must " \
                "be propagated to children recursively")

#endif
