/* core.h - the object model, the lowest layer of the kernel: allocation,
 * errors and the log, the class registry, components and their fields,
 * nodes and their name indexes, state types, and the runtime and scene
 * objects that hold them. Uses only the public headers. Never installed;
 * plugins see only sdk/include/settee.
 *
 * Two pairs of files here call each other, by design:
 * - component.c and node.c: a node creates, owns and destroys its
 *   components (st__component_create), and a component finds the others
 *   (links, its state) through its node (st_node_resolve, st_node_mstate);
 * - component.c and field.c: a component parses and copies its fields
 *   (st__field_parse), and a state vector field parses as wide as its
 *   component's state type (st__state_width: 7 reals a Rigid3d point).
 * Every other use goes one way: alloc.c, error.c, log.c, state.c and
 * registry.c use nothing else here; names.c uses only those. */
#ifndef SETTEE_KERNEL_CORE_H
#define SETTEE_KERNEL_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "settee/settee.h"

/* Test builds (SETTEE_EXPORT_INTERNALS) export these internals so that the
 * test suites can reach them; other builds export only the public API. */
#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility push(default)
#endif

/* A position in a scene file; line and col are 1-based, file is borrowed
 * (interned by the scene) and NULL when unknown. */
typedef struct st_mark {
    const char *file;
    int line, col;
} st_mark;

#define ST_NO_MARK ((st_mark){NULL, 0, 0})

/* A value as written in a scene: a scalar, or a sequence of values. The
 * YAML loader builds these; st_component_set builds a scalar. */
typedef enum st_value_kind { ST_VAL_SCALAR = 0, ST_VAL_SEQ, ST_VAL_MAP } st_value_kind;
typedef struct st_value {
    st_value_kind kind;
    const char *text;         /* scalar text (NUL-terminated) */
    bool quoted;              /* the scalar was quoted in the file */
    struct st_value *items;   /* sequence items (ST_VAL_SEQ) */
    size_t n;
    st_mark mark;             /* where the value starts */
} st_value;

/* Per-field bookkeeping of a component instance. */
typedef struct st_fstate {
    bool set;                     /* set by the scene or the API */
    unsigned long counter;        /* incremented on every write */
    char *link;                   /* link text without '@' ("box.indices", "../dofs"), or NULL */
    st_component *parent;         /* data link source, resolved at init */
    const st_field *parent_field;
    unsigned long parent_counter; /* source counter at the last copy */
    st_mark mark;                 /* where the scene wrote the value */
} st_fstate;

/* Kernel bookkeeping behind st_component.kernel. */
typedef struct st_cinfo {
    st_runtime *rt;
    size_t nfields;               /* base fields, then class fields */
    const st_field **fields;      /* nfields pointers into the static tables */
    st_fstate *fs;                /* nfields */
    unsigned long *snap;          /* engines: input counters at the last update */
    bool updated_once;            /* engines: update ran at least once */
    bool updating;                /* engines: guards against link cycles */
    bool cycle_noted;             /* a cycle through an updating engine was reported */
    bool initialised;
    st_mark mark;                 /* where the component was declared */
    char *template_name;          /* "template" when the class has no such field */
    char *tags;                   /* SOFA's "tags" (space separated), or NULL */
    char *src;                    /* SOFA's src="@path" (without '@'), or NULL */
    st_mark src_mark;
    bool src_done;                /* src's links were made */
    unsigned plugin_index;        /* registry entry's plugin (for messages) */
    const st_state_type *stype;   /* resolved state type; NULL before (state vectors flat) */
    const st_state_type *ptype;   /* before that, without a template: the context state's type
                                   * when first asked (state vectors are parsed that wide) */
    bool has_links;               /* some data field reads another component's */
    unsigned long inputs_gen;     /* 1 + runtime data_gen when inputs were last up to date */
    bool topo_linked;             /* in a topology link record (topology_links.c) */
    unsigned long topo_revision;  /* topologies: changes announced (st_topology_revision) */
} st_cinfo;

static inline st_cinfo *st__cinfo(const st_component *c) { return (st_cinfo *)c->kernel; }
/* From now on dst's field df reads src's field sf (a data link made after
 * the scene was read: SOFA's setParent), replacing dst's own link. */
st_status st__component_link_field(st_component *dst, const st_field *df, st_component *src,
                                   const st_field *sf, st_error *err);
/* Whether c's "tags" name tag (SOFA's Tag: MeanComputation's "MeanOutput"). */
bool st__component_has_tag(const st_component *c, const char *tag);

/* ---- errors and logging ---- */
st_status st__error_at(st_error *err, st_status code, st_mark m, const char *fmt, ...)
    ST_PRINTF(4, 5);
void st__log_error(st_runtime *rt, const st_error *err);
void st__log(st_runtime *rt, st_log_level level, st_mark m, const char *path, const char *fmt,
             ...) ST_PRINTF(5, 6);
/* Similarity-based suggestions: writes up to max names of cands (n of them)
 * closest to name, best first, score >= 0.5. */
size_t st__suggest(const char *name, const char *const *cands, size_t n, const char **out,
                   size_t max);

/* Reads a regular file whole (NUL-terminated, *len bytes); a directory,
 * device or pipe is refused, errors name the file (core/read_file.c). */
st_status st__read_file(const char *path, char **out, size_t *len, st_error *err);

/* ---- fields ---- */
/* The base fields every component has (name, printLog). */
extern const st_field st__base_fields[];
/* Parses a value into a field's storage (dst points at the member). */
st_status st__field_parse(const st_field *f, const st_value *v, void *dst, st_error *err);
/* True when m is in a SOFA scene file (.scn or .xml). */
bool st__mark_is_xml(st_mark m);
/* A remark on a value that parsed but not as written (SOFA's reading of a
 * value: a coordinate list cut to whole coordinates, the leading integer of
 * "1e4"): the caller logs it as a warning. */
typedef struct st_field_note {
    char msg[400];
    st_mark mark;
} st_field_note;
/* st__field_parse with SOFA's reading of text when sofa is set (the value
 * comes from a .scn/.xml scene, ST_READ_SOFA): a scalar reads its first value, an integer
 * its leading digits, a rigid mass SOFA's "m v [a b c, d e f, g h i]".
 * From any scene (not ST_READ_API) a coordinate list with a partial last coordinate keeps the
 * whole ones. note (may be NULL) gets msg "" or what was read otherwise. */
typedef enum st_reading {
    ST_READ_API = 0, /* st_component_set, --set: the value as written, nothing else */
    ST_READ_SCENE,   /* a YAML scene's value: written as one string, whole coordinates are
                        kept, with a note; written as a YAML list, exact */
    ST_READ_SOFA     /* a .scn/.xml value: SOFA's reading */
} st_reading;
st_status st__field_parse_sofa(const st_field *f, const st_value *v, void *dst, st_reading how,
                               st_field_note *note, st_error *err);
/* Writes the default (or empty) into dst, freeing what was there. */
st_status st__field_set_default(const st_field *f, void *dst, st_error *err);
/* Frees what a field owns. */
void st__field_free(const st_field *f, void *dst);
/* Bytes per tuple of c's array field f (a state vector's follows c's state
 * type); 0 for a field that is not a numeric array. */
size_t st__field_tuple_bytes(const st_component *c, const st_field *f);
/* True for the unsigned lists: indices (ST_T_UINTS) and the element lists. */
bool st__type_is_index_list(st_type t);
/* Copies src (a value of field sf, which may be NULL: same as f) into dst
 * (a value of f); real arrays of different widths copy whole tuples, index
 * lists of different widths are flattened and regrouped. */
st_status st__field_copy(const st_field *f, void *dst, const st_field *sf, const void *src,
                         st_error *err);
/* Formats a field value as scene text into buf (truncated with "..."). */
const char *st__field_format(const st_field *f, const void *src, char *buf, size_t size);

/* ---- registry ---- */
st_status st__registry_create(st_registry **out, st_error *err);
void st__registry_destroy(st_registry **r);
/* Sets the plugin name and file that st_registry_add attributes classes to
 * (borrowed: they must outlive the registration; NULL, NULL to end it). */
void st__registry_set_current(st_registry *r, const char *plugin, const char *file);
/* Removes the classes registered by a plugin (after a failed registration). */
void st__registry_remove_plugin(st_registry *r, const char *plugin);
/* The file of the plugin that registered a class ("" for built-ins). */
const char *st__registry_class_file(const st_registry *r, const st_class *cls);
/* The i-th name a scene can use (class names and aliases, in registration
 * order), or NULL past the end; borrowed from the classes. */
const char *st__registry_name(const st_registry *r, size_t i);
/* The extension of the i-th scene reader (".py"), or NULL past the end. */
const char *st__registry_reader_ext(const st_registry *r, size_t i);

/* ---- components ---- */
/* Creates a component in node n (appended to its objects): defaults,
 * create(). name may be NULL (SOFA's default naming). */
st_status st__component_create(st_node *n, const st_class *cls, const char *name, st_mark mark,
                               st_component **out, st_error *err);
/* The same component kept out of n's objects (c->node is n, for paths and
 * messages): a helper a built-in component owns, which it initialises,
 * drives and destroys (st__component_destroy) itself. */
st_status st__component_create_detached(st_node *n, const st_class *cls, const char *name,
                                        st_component **out, st_error *err);
void st__component_destroy(st_component *c);
/* Sets a field from text as st_component_set does, recording label (a
 * string that lives as long as the scene, e.g. "--set PATH=VALUE") as where
 * the value came from: later errors on the field name it (a mark of line -1). */
st_status st__component_set_labelled(st_component *c, const char *name, const char *text,
                                     const char *label, st_error *err);
/* Index of a field by scene name or alias, or -1. */
int st__component_field_index(const st_component *c, const char *name);
/* Sets a field from a scene value (handles '@' links, set-twice,
 * read-only outputs); errors name the field and the value's position. */
st_status st__component_set_value(st_component *c, const char *key, const st_value *v,
                                  st_error *err);
/* Resolves the component's links (object links and data links). */
st_status st__component_resolve_links(st_component *c, st_error *err);
/* Runs an engine's update when one of its inputs changed. */
st_status st__engine_refresh(st_component *c, st_error *err);
/* A member appended to st_class is read only when the plugin's class is
 * large enough to hold it (ST_CLASS_HAS), and set. */
#define CLASS_HAS(cls, member) (ST_CLASS_HAS(cls, member) && (cls)->member)
/* Whether a class plays a role (registry.c). */
bool st__class_has_role(const st_class *cls, st_role role);
/* Resolves c's state type (st_class.templates, "template", its state) and
 * reshapes its state vectors into points; idempotent. */
st_status st__component_resolve_type(st_component *c, st_error *err);
/* The type c's state vectors parse with now: the resolved type, else the
 * one its template names, else Vec3d. */
const st_state_type *st__component_parse_type(const st_component *c);
/* Scalars per point of a state vector field of c (see st__component_parse_type). */
unsigned st__state_width(const st_component *c, st_type t);
/* Names and aliases of every state type, for suggestions. */
size_t st__state_type_names(const char **out, size_t max);

/* ---- nodes ---- */
#define ST__NROLES ((unsigned)ST_ROLE_ANIMLOOP + 1)
typedef struct st__clscount {
    const st_class *cls;
    size_t n;
} st__clscount;
struct st_node {
    char *name;
    st_node *parent;
    st_scene *scene;
    st_node **children;
    size_t nchildren, capchildren;
    st_component **objects;
    size_t nobjects, capobjects;
    double gravity[3];
    double context_gravity[3];    /* a context object's (Gravity), when own_gravity */
    bool own_gravity;
    double dt, time;
    bool animate, activated;
    bool pruned;                  /* set by the last top-down visit */
    st_mark mark;
    /* Lookup caches (names.c). Name indexes exist while the scene
     * initialises and are trusted while their counts match. */
    st_component **objs_by_name;  /* objects sorted by name */
    size_t nobjs_by_name;
    st_node **children_by_name;   /* children sorted by name */
    size_t nchildren_by_name;
    size_t role_first[ST__NROLES]; /* 1 + index of the first object with each role, 0: none */
    size_t roles_scanned;         /* objects [0, roles_scanned) are in role_first */
    st__clscount *clscount;       /* open-addressing map: class -> objects of that class */
    size_t nclscount, capclscount;
    size_t clscounted;            /* objects [0, clscounted) are in clscount */
};
st_status st__node_create(st_scene *s, st_node *parent, const char *name, st_mark mark,
                          st_node **out, st_error *err);
void st__node_destroy(st_node *n);
st_status st__node_set_value(st_node *n, const char *key, const st_value *v, st_error *err);
/* Copies context data from the parent, recursively. */
void st__node_propagate_context(st_node *n);
/* Inserts a component at the front of the node's objects. */
st_status st__node_prepend_object(st_node *n, st_component *c, st_error *err);

/* ---- names and lookup caches (names.c) ---- */
/* Refuses a component or node name that cannot appear in a path ('/'). */
st_status st__name_check(const char *what, const char *name, st_mark m, st_error *err);
/* Called for each name met twice in a node: the later object (or child)
 * and the first one with that name. */
typedef void (*st__dup_fn)(void *ud, st_node *n, st_component *obj, st_component *first_obj,
                           st_node *child, st_node *first_child);
/* Sorts the node's objects and children by name (O(n log n)), reporting
 * duplicates to on_dup; lookups by name then use binary search. */
st_status st__node_index(st_node *n, st__dup_fn on_dup, void *ud, st_error *err);
void st__node_unindex_one(st_node *n);
/* Frees the name indexes of a subtree. */
void st__node_unindex(st_node *n);
/* The object or child named (name, len), or NULL. */
st_component *st__node_object_named(const st_node *n, const char *name, size_t len);
st_node *st__node_child_named(const st_node *n, const char *name, size_t len);
/* The node's first object with a role, or NULL (amortised O(1)). */
st_component *st__node_first_role(const st_node *n, st_role role);
/* How many of the node's objects are of class cls (amortised O(1)). */
size_t st__node_class_count(st_node *n, const st_class *cls);
/* Forgets the role and class caches (after objects were reordered) and frees them. */
void st__node_caches_reset(st_node *n);

/* ---- runtime and plugins ---- */
typedef struct st_plugin_rec {
    st_plugin_info info;
    void *handle;                 /* dlopen handle, NULL for built-ins */
    char *file;                   /* owned */
    const st_plugin_desc *desc;   /* inside the shared object */
} st_plugin_rec;

struct st_runtime {
    st_registry *reg;
    st_log_fn log;
    void *log_ud;
    char **paths;                 /* user-added search dirs */
    size_t npaths;
    char **dirs;                  /* the full search list, rebuilt by st_runtime_plugin_dirs */
    size_t ndirs;
    st_plugin_rec **plugins;
    size_t nplugins;
    _Atomic unsigned long data_gen; /* bumped on every field write (st__data_changed); atomic:
                                   * child scenes may step on several threads */
    const void **noted;           /* (class, field) pairs already reported, 2 per entry */
    size_t nnoted, capnoted;
    /* Errors and warnings said since the scene began loading (hashes of
     * level, place, path and text): one mistake, one message. */
    uint64_t said[256];
    size_t nsaid;
    /* DefaultAnimationLoop, which a scene without an animation loop gets:
     * set when the built-in classes are registered (builtin/builtins.c). */
    const st_class *default_loop;
    /* The index of installed plugins (plugin/plugin_index.c), built on the
     * first lookup by module, class or reader; owned. */
    struct st__pindex *pindex;
    unsigned long plugin_opens;   /* dlopen calls on plugin files (tests, -v) */
    bool strict;                  /* st_runtime_set_strict */
};
/* True the first time the pair (a, b) is seen by rt: an ignored SOFA field
 * is reported once per class and field, not per use. */
/* Starts a new scene's messages: earlier ones may be said again. */
void st__log_forget(st_runtime *rt);
bool st__runtime_first_note(st_runtime *rt, const void *a, const void *b);
/* The longest chain of data links followed upstream (deeper chains would
 * exhaust the stack). */
#define ST__LINK_DEPTH_MAX 1000
static inline void st__data_changed(st_runtime *rt)
{
    if (rt)
        rt->data_gen++;
}

/* ---- scenes ----
 * The scene object belongs to the object model: nodes reach their runtime
 * and mark the graph as changed through it. Its lifecycle (init, steps,
 * reset) is the simulation layer's (simulation/scene.c). */
struct st_scene {
    st_runtime *rt;
    st_node *root;
    char *file;                   /* owned; "" for scenes built in code */
    char **strings;               /* interned file names for marks */
    size_t nstrings;
    st_system **systems;
    size_t nsystems;
    st_component *loop;           /* the animation loop */
    bool initialised;
    unsigned long steps;
    unsigned long graph_version;  /* bumped when components, nodes or links change */
    bool continue_on_failure;     /* the loop's continueOnSolverFailure (failure.c) */
    double step_dt;               /* the dt of the first step (failure.c replays with it) */
    bool dt_varied;               /* a later step ran with another dt */
    char **data_paths;            /* folders added by AddDataRepository, searched last */
    size_t ndata_paths;
    /* Who follows which topology (core/topology_links.c), in registration
     * order; a change sets systems_stale (simulation/topology_change.c). */
    struct st__topo_link *topo_links;
    size_t ntopo_links, captopo_links;
    bool systems_stale;           /* the systems must be rebuilt before the next solve */
    /* Who follows a state resized without a topology (st_mstate_follow_resize,
     * simulation/state_resize.c), in registration order. */
    struct st__resize_link *resize_links;
    size_t nresize_links, capresize_links;
    double extent, centre[3];     /* the independent points' size and centre at init (failure.c) */
#define ST__DIVERGE_SYSTEMS 64
    double far_prev[ST__DIVERGE_SYSTEMS];   /* failure.c: the farthest point's distance, */
    unsigned far_streak[ST__DIVERGE_SYSTEMS]; /* and the steps it has more than doubled */
    /* A topological change that failed inside an event handler (which
     * cannot return it): the step stops with it before its solvers run. */
    st_error change_error;
    struct st__scene_hooks *hooks; /* destroy hooks, pending failure (simulation/scene_hooks.c), or NULL */
    bool destroying;              /* st_scene_destroy is under way */
    bool stepping;                /* st_scene_step is under way */
};

/* ---- topology links (topology_links.c) ---- */
typedef enum st__topo_link_kind {
    ST__TOPO_ITEMS,               /* st_topology_follow: an array of items */
    ST__TOPO_FIELD,               /* st_topology_follow_field: an array field's tuples */
    ST__TOPO_SUBSET,              /* st_topology_follow_subset: an index field */
    ST__TOPO_VERTICES,            /* st_topology_follow_vertices: point indices */
    ST__TOPO_LISTEN,              /* st_topology_listen */
    ST__TOPO_USE                  /* st_topology_use: reads without following */
} st__topo_link_kind;
typedef struct st__topo_link {
    st__topo_link_kind kind;
    st_component *owner, *topology;
    st_elem elem;
    void **items;                 /* ITEMS */
    size_t *n;
    size_t item_size;
    int field;                    /* FIELD, SUBSET: index into the owner's fields */
    const st_topo_follow_ops *ops;
    void *ud;
    st_topo_listener fn;          /* LISTEN */
} st__topo_link;
/* A component that handles its state being resized directly
 * (st_mstate_follow_resize); fn may be NULL. */
typedef struct st__resize_link {
    st_component *owner;
    st_mstate *ms;
    st_resize_listener fn;
} st__resize_link;
/* Drops the records of a component that goes away before its scene (its
 * topology records and its resize records). */
void st__topology_forget(st_component *c);
/* Marks the scene's graph as changed (lists built from it are stale). */
static inline void st__scene_touch(st_scene *s)
{
    if (s)
        s->graph_version++;
}

/* "component 'X' is registered by 2 plugins: ...; write ..." when name is
 * ambiguous (into buf), else NULL. */
const char *st__registry_ambiguity(const st_registry *r, const char *name, char *buf, size_t size);
/* True when c plays the state role (its instance begins with st_mstate). */
bool st__is_mstate(const st_component *c);

#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility pop
#endif

#endif
