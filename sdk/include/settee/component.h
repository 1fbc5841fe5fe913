/* component.h - component classes and instances.
 *
 * A class is static data a plugin registers: its name, category, field
 * table, lifecycle callbacks and role interfaces. An instance is a struct
 * allocated by the kernel (instance_size bytes, zeroed) whose first member
 * is an st_component. Lifecycle: the kernel allocates the instance, writes
 * the field defaults, calls `create`, parses the scene's values, resolves
 * links, then calls `init` in scene order (top-down, objects in order).
 * `cleanup` releases what the component allocated itself; the kernel frees
 * field storage and the instance.
 */
#ifndef SETTEE_COMPONENT_H
#define SETTEE_COMPONENT_H

#include <stdbool.h>
#include <stddef.h>

#include "settee/field.h"
#include "settee/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct st_node st_node;
typedef struct st_class st_class;
typedef struct st_system st_system;
typedef struct st_mstate st_mstate;

/* Role interfaces (settee/roles.h). */
typedef struct st_forcefield_ops st_forcefield_ops;
typedef struct st_mass_ops st_mass_ops;
typedef struct st_projective_ops st_projective_ops;
typedef struct st_mapping_ops st_mapping_ops;
typedef struct st_odesolver_ops st_odesolver_ops;
typedef struct st_linsolver_ops st_linsolver_ops;
typedef struct st_topology_ops st_topology_ops;
typedef struct st_engine_ops st_engine_ops;
typedef struct st_animloop_ops st_animloop_ops;
typedef struct st_state_ops st_state_ops;
typedef struct st_state_type st_state_type;
typedef struct st_collision_ops st_collision_ops;
typedef struct st_constraint_ops st_constraint_ops;
typedef struct st_ccorrection_ops st_ccorrection_ops;
typedef struct st_csolver_ops st_csolver_ops;

/* Component state, as SOFA's componentState. */
typedef enum st_cstate {
    ST_CSTATE_UNDEFINED = 0,
    ST_CSTATE_LOADING,
    ST_CSTATE_VALID,
    ST_CSTATE_DIRTY,
    ST_CSTATE_BUSY,
    ST_CSTATE_INVALID
} st_cstate;

/* Events delivered to components that implement `on_event`. */
typedef enum st_event {
    ST_EVENT_ANIMATE_BEGIN = 1, /* start of a step, before the solvers */
    ST_EVENT_ANIMATE_END,       /* end of a step, after time advanced */
    ST_EVENT_INIT_DONE,         /* after the whole scene was initialised */
    /* ABI 2.6. Sent by a constraint solver to the subtree of its node (SOFA's
     * BuildConstraintSystemEndEvent, SolveConstraintSystemEndEvent): after
     * it built the constraint problem (J, W, dfree), after it solved it
     * (lambda), before the corrections. Handlers ignore events they do not
     * know. */
    ST_EVENT_BUILD_CONSTRAINT_SYSTEM_END,
    ST_EVENT_SOLVE_CONSTRAINT_SYSTEM_END
} st_event;

/* ABI 2.10. User input (SOFA's MouseEvent, KeypressedEvent and
 * KeyreleasedEvent), sent down a node's subtree by st_node_send_input to the
 * components whose class has on_input. settee has no GUI: the events come
 * from InputEventReader (a Linux input device or a recorded file) or from a
 * program. */
typedef enum st_input_kind {
    ST_INPUT_MOUSE_MOVE = 1, /* x, y: the position, or InputEventReader's relative motion */
    ST_INPUT_KEY_PRESSED,    /* key */
    ST_INPUT_KEY_RELEASED    /* key */
} st_input_kind;

typedef struct st_input_event {
    size_t struct_size; /* sizeof(st_input_event) as the sender saw it */
    st_input_kind kind;
    int x, y;
    char key;
} st_input_event;

/* The common head of every component instance. Plugins read these members;
 * only the kernel writes them. */
struct st_component {
    const st_class *cls;   /* borrowed: the class (static data of a plugin) */
    st_node *node;         /* borrowed: the node that owns this component */
    char *name;            /* owned by the kernel; never NULL after creation */
    st_cstate state;       /* ST_CSTATE_VALID after a successful init */
    bool print_log;        /* "printLog" */
    void *kernel;          /* kernel bookkeeping; do not touch */
};

/* A component class. Registered by a plugin; must outlive the registry
 * (static storage). Fields are only ever appended to this struct:
 * struct_size tells the kernel which ones a plugin knows. */
struct st_class {
    size_t struct_size;         /* sizeof(st_class) as the plugin saw it */
    const char *name;           /* SOFA's class name ("EulerImplicitSolver") */
    const char *category;       /* "OdeSolver", "Mass", "ForceField", ... */
    const char *description;    /* one line */
    const char *const *aliases; /* NULL-terminated older names, or NULL */
    size_t instance_size;       /* sizeof the instance struct (>= sizeof(st_component)) */
    const st_field *fields;     /* ST_FIELD_END-terminated table, or NULL */

    /* Lifecycle. Each may be NULL. */
    st_status (*create)(st_component *self, st_error *err); /* after defaults, before parsing */
    st_status (*init)(st_component *self, st_error *err);   /* after links resolved */
    st_status (*reinit)(st_component *self, st_error *err); /* after fields were edited */
    void (*reset)(st_component *self);                      /* back to the initial state */
    void (*cleanup)(st_component *self);                    /* free what the component owns */
    void (*on_event)(st_component *self, st_event ev, double dt);

    /* Role interfaces; NULL for roles the class does not play. */
    const st_forcefield_ops *forcefield;
    const st_mass_ops *mass;
    const st_projective_ops *projective;
    const st_mapping_ops *mapping;
    const st_odesolver_ops *odesolver;
    const st_linsolver_ops *linsolver;
    const st_topology_ops *topology;
    const st_engine_ops *engine;
    const st_animloop_ops *animloop;

    /* ABI 1.2. Runs while the scene is read, right after the component's
     * values are set (SOFA's parse), before later objects are created: for
     * components that act on loading itself (AddDataRepository adds a
     * folder that later file names are searched in). May be NULL. */
    st_status (*parsed)(st_component *self, st_error *err);

    /* ABI 2.0. */
    /* The state role: the class is a mechanical state (its instance begins
     * with an st_mstate). NULL otherwise. */
    const st_state_ops *state;
    /* The state types the class works on: NULL-terminated SOFA names
     * ("Vec3d", "Rigid3d"), or NULL for Vec3d only. The kernel gives each
     * component a type before its init: its "template" when the scene sets
     * one, else the type of the state it acts on, else the first listed;
     * a type not listed is an error naming the component and the type. */
    const char *const *templates;

    /* ABI 2.2. Checkpoints (roles.h, st_checkpoint_ops): components that
     * keep state across steps outside their mechanical state's vectors and
     * the system's vectors (a step counter, a switch made during the run)
     * save and restore it so a resumed run is bit-identical. May be NULL. */
    const struct st_checkpoint_ops *checkpoint;
    /* ABI 2.2. The collision pipeline role (roles.h, st_collision_ops): the
     * animation loop runs it before the ODE solvers. NULL otherwise. */
    const st_collision_ops *collision;
    /* ABI 2.2. Lagrangian constraints (roles.h): a constraint model (rows
     * of J, violation, resolution), a constraint correction (compliance of
     * a state, corrective motion) and a constraint solver (driven by
     * FreeMotionAnimationLoop). NULL for roles the class does not play. */
    const st_constraint_ops *constraint;
    const st_ccorrection_ops *constraint_correction;
    const st_csolver_ops *constraint_solver;
    /* ABI 2.10. Receives user input events (st_input_event); handlers ignore
     * kinds they do not know. May be NULL. */
    void (*on_input)(st_component *self, const st_input_event *ev);
};

/* True when a class registered by a plugin built against an older ABI
 * has member m (the kernel reads appended members only then). */
#define ST_CLASS_HAS(cls, m)                                                                      \
    ((cls)->struct_size >= offsetof(st_class, m) + sizeof((cls)->m))

/* The component's path: "/Beam/dofs" (the root node's objects: "/dofs").
 * Written into buf (always NUL-terminated); returns buf. */
ST_API const char *st_component_path(const st_component *c, char *buf, size_t size);

/* Name of the plugin that registered the component's class. */
ST_API const char *st_component_plugin(const st_component *c);

/* The mechanical state a single-state component acts on: its "mstate" link
 * when it has one, else the MechanicalObject of its node, else (SOFA's
 * context state) that of the nearest ancestor node. NULL if none. */
ST_API st_mstate *st_component_mstate(const st_component *c);

/* The state type of a component, resolved by the kernel before init (see
 * st_class.templates): a state's own type, or the type a component works
 * on. NULL before resolution. */
ST_API const st_state_type *st_component_state_type(const st_component *c);

/* Records an error about c (its path and, where known, the scene position
 * of the component or of one of its fields; field may be NULL). */
ST_API st_status st_component_error(const st_component *c, const char *field, st_error *err,
                                    st_status code, const char *fmt, ...) ST_PRINTF(5, 6);

/* Reports a failed solve by c (a singular or non-finite system, a solve
 * that cannot meet what the component's settings demand). By default it
 * records an ST_ESOLVER error naming c, the step and the time, and returns
 * it: the run stops. When the scene's animation loop sets
 * continueOnSolverFailure: true it sends the message as a warning and
 * returns ST_OK, and the solver goes on with what it has. */
ST_API st_status st_component_solver_failure(const st_component *c, st_error *err,
                                             const char *fmt, ...) ST_PRINTF(3, 4);

/* Resolves a file name written in the scene (a mesh, an include, an
 * output) as SOFA's data repository does: an absolute name as it is; a
 * relative one in the folder of the file that wrote the field (field may be
 * NULL), then the scene's folder, then each folder of SETTEE_DATA_PATH and
 * of SOFA_DATA_PATH (':'-separated). Writes the path found into out. Not
 * found, or not a regular file: an error at the field's scene position that
 * lists every place tried. */
ST_API st_status st_component_find_file(const st_component *c, const char *field,
                                        const char *name, char *out, size_t size,
                                        st_error *err) ST_WARN_UNUSED;

/* Adds a folder, written in field `field` of c (relative names are taken
 * from the folder of the file that wrote it), to the folders c's scene
 * searches file names in, after SETTEE_DATA_PATH and SOFA_DATA_PATH
 * (SOFA's AddDataRepository). Not a directory: an error at the field. */
ST_API st_status st_component_add_data_path(const st_component *c, const char *field,
                                            const char *dir, st_error *err) ST_WARN_UNUSED;
/* Resolves a folder written in field `field` of c as st_component_add_data_path
 * does, into out. */
ST_API st_status st_component_find_dir(const st_component *c, const char *field, const char *dir,
                                       char *out, size_t size, st_error *err) ST_WARN_UNUSED;

/* The runtime c's scene belongs to (plugin search paths, registry). */
ST_API struct st_runtime *st_component_runtime(const st_component *c);

/* Sends a warning or information about c to the runtime's log sink. */
ST_API void st_component_warn(const st_component *c, const char *fmt, ...) ST_PRINTF(2, 3);
/* A warning about one field: at the scene position of its value when the
 * scene wrote it, prefixed "Class.field: ". */
ST_API void st_component_warn_field(const st_component *c, const char *field, const char *fmt,
                                    ...) ST_PRINTF(3, 4);
ST_API void st_component_info(const st_component *c, const char *fmt, ...) ST_PRINTF(2, 3);

/* ABI 2.11. Whether c's "tags" (SOFA's Tag set: names separated by spaces or
 * commas) hold tag. */
ST_API bool st_component_has_tag(const st_component *c, const char *tag);

#ifdef __cplusplus
}
#endif
#endif
