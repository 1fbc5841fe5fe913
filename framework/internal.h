/* internal.h - kernel internals shared between framework/ files. Never
 * installed; plugins see only sdk/include/settee. */
#ifndef SETTEE_INTERNAL_H
#define SETTEE_INTERNAL_H

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
    bool initialised;
    st_mark mark;                 /* where the component was declared */
    char *template_name;          /* "template" when the class has no such field */
    char *src;                    /* SOFA's src="@path" (without '@'), or NULL */
    st_mark src_mark;
    bool src_done;                /* src's links were made */
    unsigned plugin_index;        /* registry entry's plugin (for messages) */
    const st_state_type *stype;   /* resolved state type; NULL before (state vectors flat) */
    bool has_links;               /* some data field reads another component's */
    unsigned long inputs_gen;     /* 1 + runtime data_gen when inputs were last up to date */
} st_cinfo;

static inline st_cinfo *st__cinfo(const st_component *c) { return (st_cinfo *)c->kernel; }

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

/* ---- fields ---- */
/* The base fields every component has (name, printLog). */
extern const st_field st__base_fields[];
/* Parses a value into a field's storage (dst points at the member). */
st_status st__field_parse(const st_field *f, const st_value *v, void *dst, st_error *err);
/* Writes the default (or empty) into dst, freeing what was there. */
st_status st__field_set_default(const st_field *f, void *dst, st_error *err);
/* Frees what a field owns. */
void st__field_free(const st_field *f, void *dst);
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

/* ---- components ---- */
/* Creates a component in node n (appended to its objects): defaults,
 * create(). name may be NULL (SOFA's default naming). */
st_status st__component_create(st_node *n, const st_class *cls, const char *name, st_mark mark,
                               st_component **out, st_error *err);
void st__component_destroy(st_component *c);
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
/* Sets a field from text as st_component_set does, recording label (a
 * string that lives as long as the scene, e.g. "--set PATH=VALUE") as where
 * the value came from: later errors on the field name it (a mark of line -1). */
st_status st__component_set_labelled(st_component *c, const char *name, const char *text,
                                     const char *label, st_error *err);
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
    unsigned long data_gen;       /* bumped on every field write (st__data_changed) */
    int update_depth;             /* nesting of st_component_update_inputs */
    const void **noted;           /* (class, field) pairs already reported, 2 per entry */
    size_t nnoted, capnoted;
};
/* True the first time the pair (a, b) is seen by rt: an ignored SOFA field
 * is reported once per class and field, not per use. */
bool st__runtime_first_note(st_runtime *rt, const void *a, const void *b);
/* The longest chain of data links followed upstream (deeper chains would
 * exhaust the stack). */
#define ST__LINK_DEPTH_MAX 1000
static inline void st__data_changed(st_runtime *rt)
{
    if (rt)
        rt->data_gen++;
}
/* Registers the kernel's built-in classes and built-in plugin records. */
st_status st__builtins_register(st_runtime *rt, st_error *err);
/* Maps "Sofa.Component.X.Y" to "X.Y"; returns a pointer into name. */
const char *st__plugin_short_name(const char *name);
/* Checks a plugin file before dlopen (plugin_file.c): a regular file whose
 * ELF header, segments and sections lie inside it; ST_EPLUGIN saying
 * "damaged" and naming the file otherwise. */
st_status st__plugin_file_check(const char *file, st_error *err);
/* Unloads all plugins (runtime destruction). */
void st__plugins_unload_all(st_runtime *rt);

/* ---- scenes ---- */
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
};
/* A fresh temporary file next to path ("path.tmp-XXXXXX"), opened for
 * writing, its name in tmp (export.c); errors say "cannot write WHAT 'path'". */
st_status st__open_temp(const char *path, const char *what, char *tmp, size_t size, FILE **out,
                        st_error *err);
/* The system's scratch vectors (st_system_vec_alloc, st_system_xvec_alloc),
 * for checkpoints: how many, and the i-th with its length in doubles. */
size_t st__system_nscratch(const st_system *sys);
size_t st__system_scratch(st_system *sys, size_t i, double **v);
/* Marks the scene's graph as changed (lists built from it are stale). */
static inline void st__scene_touch(st_scene *s)
{
    if (s)
        s->graph_version++;
}
/* After a step: ST_ESOLVER naming the step, the state, the vertex and the
 * solver when a position or velocity is NaN or infinite (failure.c). */
st_status st__scene_check_finite(st_scene *s, st_error *err);
st_status st__scene_new(st_runtime *rt, const char *file, st_scene **out, st_error *err);
const char *st__scene_intern(st_scene *s, const char *file);
/* Loads a plugin named by a RequiredPlugin component (kernel built-in). */
st_status st__required_plugin_load(st_component *c, st_error *err);

/* ---- mechanical systems ---- */
st_status st__system_compile(st_component *solver, st_system **out, st_error *err);
/* One system for several driven solvers whose subtrees a collision
 * pipeline couples (st_collision_ops.solver_groups); solvers[0] drives it. */
st_status st__system_compile_group(st_component *const *solvers, size_t nsolvers, st_system **out,
                                   st_error *err);
/* Frees the system and its vectors. It must not touch the states: scene.c
 * calls st__system_unbind on every system first, then destroys the nodes
 * (and with them the states), then the systems. */
void st__system_destroy(st_system **sys);
/* Copies global vectors back so that states own their arrays again, and
 * detaches the states (ms->system = NULL). */
void st__system_unbind(st_system *sys);
/* After a step: externalForce cleared, field counters touched. */
void st__system_end_step(st_system *sys);

/* ---- data files (datapath.c) ---- */
/* Looks name up as SOFA's data repository does: absolute as is; else dir1,
 * dir2 (each may be NULL), SETTEE_DATA_PATH, SOFA_DATA_PATH. tried_out gets
 * the list of paths tried; not_regular is set when name exists but is not
 * a regular file (then out holds it). */
bool st__data_find(const char *dir1, const char *dir2, const char *name, char *out, size_t size,
                   char *tried_out, size_t tried_size, bool *not_regular);
/* The same, then in the scene's own data folders (AddDataRepository). */
bool st__data_find_in(const st_scene *s, const char *dir1, const char *dir2, const char *name,
                      char *out, size_t size, char *tried_out, size_t tried_size,
                      bool *not_regular);
/* The folder of a file name ("" for a bare name) into buf. */
const char *st__dir_of(const char *file, char *buf, size_t size);

/* ---- built-in classes ---- */
extern const st_class st__mechanical_object_class;
extern const st_class st__default_animation_loop_class;
extern const st_class st__free_motion_animation_loop_class;
extern const st_class st__multi_step_animation_loop_class;

/* Shared by the animation loops (builtin/default_animation_loop.c). */
typedef struct st__loop_links {
    /* Components with data-linked inputs, built when the graph changes. */
    st_component **linked;
    size_t nlinked, caplinked;
    unsigned long version;        /* the scene's graph_version the list was built at */
    bool listed;
} st__loop_links;
void st__loop_send_event(st_node *n, st_event ev, double dt);
st_status st__loop_update_inputs(st__loop_links *l, st_node *root, st_error *err);
void st__loop_links_init(st__loop_links *l, st_component *self);
void st__loop_links_free(st__loop_links *l);
st_system *st__loop_system_of(st_scene *s, const st_component *solver);
st_status st__loop_solve_node(st_scene *s, st_node *n, double dt, st_error *err);
void st__loop_end_step(st_node *root, double t0, double dt);
/* The collision pipeline of the root (the first object with the collision
 * role), if any. */
st_status st__loop_compute_collision(st_node *root, st_error *err);
extern const st_class st__required_plugin_class;
extern const st_class st__default_visual_manager_loop_class;
/* True when c plays the state role (its instance begins with st_mstate). */
bool st__is_mstate(const st_component *c);

/* ---- matrix assembly (framework/matrix.c) ---- */
/* The components of a system playing role (ST_ROLE_MASS, ST_ROLE_FORCEFIELD,
 * ST_ROLE_PROJECTIVE), in scene order: returns the count and writes up to
 * max of them into out (out may be NULL). matrix.c holds a weak fallback
 * that walks the solver's subtree; system.c may define the real one. */
/* "component 'X' is registered by 2 plugins: ...; write ..." when name is
 * ambiguous (into buf), else NULL. */
const char *st__registry_ambiguity(const st_registry *r, const char *name, char *buf, size_t size);
/* A matrix assembling one force field alone (st_check_forcefield). */
st_status st__matrix_create_single(st_system *sys, st_component *ff, st_matrix **out,
                                   st_error *err);
size_t st__system_components(const st_system *sys, st_role role, st_component **out, size_t max);

/* ---- mapping graph (mapping.c) ---- */
/* The mechanical mappings of a system: Jacobians, total Jacobians of the
 * mapped states with respect to the independent ones, mapForces. */
typedef struct st_mapgraph st_mapgraph;
/* A mapping role function is present when the plugin's ops struct holds it
 * (plugins built for ABI 2.0 have the shorter struct) and it is set. */
#define HAS_MOP(ops, member)                                                                       \
    ((ops) && (ops)->struct_size >= offsetof(st_mapping_ops, member) + sizeof((ops)->member) &&   \
     (ops)->member)
/* Inputs of a mapping (its inputs() or its one input()): up to max written
 * into out; returns how many there are. The kernel looks at the first
 * ST_MAP_MAX_INPUTS. */
#define ST_MAP_MAX_INPUTS 16
size_t st__mapping_inputs(const st_component *map, st_mstate **out, size_t max);
st_status st__mapgraph_create(st_system *sys, st_component *const *maps, size_t nmaps,
                              st_mapgraph **out, st_error *err);
void st__mapgraph_destroy(st_mapgraph **g);
/* The system's graph (NULL when it has no mapping). */
st_mapgraph *st__system_mapgraph(const st_system *sys);
/* False when the component sits below a mapping that does not map forces. */
bool st__mapgraph_active(const st_mapgraph *g, const st_component *c);
/* False when the mapping's output is cut off from the parent's dynamics. */
bool st__mapgraph_maps_forces(const st_mapgraph *g, const st_component *map);
/* Runs every mapping's get_j and updates the total Jacobians (allocates
 * only when a Jacobian's pattern changed). */
st_status st__mapgraph_update(st_mapgraph *g, st_error *err);
/* Adds T_a^T blk T_b to m on the independent points (a or b mapped); false
 * when a state has no total Jacobian (a mapping without get_j). */
bool st__mapgraph_add_block(st_mapgraph *g, st_matrix *m, const st_mstate *a, size_t i,
                            const st_mstate *b, size_t j, const double *blk);
/* Every mapping's geometric stiffness, kf K, into m. */
void st__mapgraph_add_k(st_mapgraph *g, st_matrix *m, double kf);
/* Tests: the mapping's own Jacobian as a dense rows x cols matrix (rows:
 * its output's derivative scalars; columns: the system's derivative
 * vectors, size_all). */
st_status st__mapgraph_dense_j(st_system *sys, const st_component *map, double *J, size_t rows,
                               size_t cols, st_error *err);

#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility pop
#endif

#endif
