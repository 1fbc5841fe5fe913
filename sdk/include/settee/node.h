/* node.h - the scene graph: nodes, context data, lookups and visitors.
 *
 * A node has a name, an ordered list of objects (components) and an ordered
 * list of child nodes. Context data (gravity, dt, time, animate) is
 * inherited: as in SOFA, each node copies its parent's at init and after
 * every step, so only the root's values matter. Nodes are owned by their
 * parent; the root by its scene.
 */
#ifndef SETTEE_NODE_H
#define SETTEE_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include "settee/component.h"
#include "settee/status.h"

#ifdef __cplusplus
extern "C" {
#endif

ST_API const char *st_node_name(const st_node *n);
ST_API st_node *st_node_parent(const st_node *n);
ST_API st_node *st_node_root(const st_node *n);
ST_API size_t st_node_child_count(const st_node *n);
ST_API st_node *st_node_child(const st_node *n, size_t i);
ST_API size_t st_node_object_count(const st_node *n);
ST_API st_component *st_node_object(const st_node *n, size_t i);
/* "/", "/Beam", "/Beam/Visual". Written into buf; returns buf. */
ST_API const char *st_node_path(const st_node *n, char *buf, size_t size);

/* Context data. */
ST_API void st_node_gravity(const st_node *n, double g[3]);
ST_API double st_node_dt(const st_node *n);
ST_API double st_node_time(const st_node *n);
ST_API bool st_node_animate(const st_node *n);
ST_API bool st_node_activated(const st_node *n);
/* A context object's gravity (SOFA's Gravity component): n and its subtree
 * take g now, and keep it when the kernel copies each parent's context to
 * its children (before init and after each step), as SOFA's context
 * objects apply after that copy. A node below also holding one keeps its
 * own. ABI 2.6. */
ST_API void st_node_set_context_gravity(st_node *n, const double g[3]);

/* ABI 2.6. Sends ev to every component of n's subtree that has on_event,
 * scene order, skipping deactivated nodes (SOFA's PropagateEventVisitor). */
ST_API void st_node_send_event(st_node *n, st_event ev, double dt);
/* ABI 2.10. Sends a user input event to every component of n's subtree
 * whose class has on_input, top-down in scene order, skipping deactivated
 * nodes (SOFA's propagateEvent from n). */
ST_API void st_node_send_input(st_node *n, const st_input_event *ev);

/* The node's MechanicalObject (the first one), or NULL. */
ST_API st_mstate *st_node_mstate(const st_node *n);

/* Roles used in searches. */
typedef enum st_role {
    ST_ROLE_ANY = 0,
    ST_ROLE_STATE,
    ST_ROLE_FORCEFIELD,
    ST_ROLE_MASS,
    ST_ROLE_PROJECTIVE,
    ST_ROLE_MAPPING,
    ST_ROLE_ODESOLVER,
    ST_ROLE_LINSOLVER,
    ST_ROLE_TOPOLOGY,
    ST_ROLE_ENGINE,
    ST_ROLE_ANIMLOOP
} st_role;

typedef enum st_search {
    ST_SEARCH_LOCAL = 0, /* this node only */
    ST_SEARCH_UP,        /* this node, then its ancestors */
    ST_SEARCH_DOWN,      /* this node, then its subtree (objects, then children depth-first) */
    ST_SEARCH_ROOT       /* the whole scene from the root */
} st_search;

/* True if the component plays the role. */
ST_API bool st_component_has_role(const st_component *c, st_role role);
/* The first component playing role, searching from n in direction dir. */
ST_API st_component *st_node_find(const st_node *n, st_role role, st_search dir);
/* Every component playing role in the direction, in scene order; returns
 * the count and writes up to max of them into out (out may be NULL). */
ST_API size_t st_node_find_all(const st_node *n, st_role role, st_search dir, st_component **out,
                               size_t max);

/* Resolves a SOFA-style path (without the '@') from a component's node:
 * "../dofs", "/Beam/dofs", "dofs", "box". A path that ends on a node gives
 * the node's unique component of the kind. */
ST_API st_status st_node_resolve(st_node *from, const char *path, st_link_kind kind,
                                 st_component **out, st_error *err) ST_WARN_UNUSED;

/* Visitors. top_down is called on a node before its children (return
 * ST_VISIT_PRUNE to skip the subtree); bottom_up after them, in reverse
 * order of the top-down calls. Inactive nodes are pruned. */
typedef enum st_visit { ST_VISIT_CONTINUE = 0, ST_VISIT_PRUNE } st_visit;
typedef struct st_visitor {
    st_visit (*top_down)(st_node *n, void *ud);  /* may be NULL */
    void (*bottom_up)(st_node *n, void *ud);      /* may be NULL */
    void *ud;
} st_visitor;
ST_API void st_node_execute(st_node *n, const st_visitor *v);

/* Building a scene in code (tests, benchmarks, embedding). */
/* Adds a child node; the parent owns it. */
ST_API st_status st_node_add_child(st_node *parent, const char *name, st_node **out,
                                   st_error *err) ST_WARN_UNUSED;
/* Creates a component of a registered class (by name or alias) at the end
 * of the node's objects, with its defaults; the node owns it. name may be
 * NULL (then SOFA's default naming: ClassName1, ClassName2 ...). */
ST_API st_status st_node_add_object(st_node *n, const char *class_name, const char *name,
                                    st_component **out, st_error *err) ST_WARN_UNUSED;
/* Sets a context value from text ("gravity", "dt", "time", "animate", "activated"). */
ST_API st_status st_node_set(st_node *n, const char *key, const char *text,
                             st_error *err) ST_WARN_UNUSED;

/* The file the node's scene was loaded from ("" for scenes built in code,
 * NULL when the node belongs to no scene). Borrowed: valid while the scene
 * lives. Loaders resolve relative file names against its directory. */
ST_API const char *st_node_scene_file(const st_node *n);

/* ABI 2.4. Removes (and destroys) an object of n, or a child node of parent
 * with its subtree. Only before st_scene_init (ST_ESTATE after: the
 * mechanical systems point into the graph), except (ABI 2.6) an object
 * added after init and not initialised (st_scene_init_added not called, or
 * failed for it); ST_ENOTFOUND when c is not an
 * object of n (child not a child of parent). */
ST_API st_status st_node_remove_object(st_node *n, st_component *c, st_error *err) ST_WARN_UNUSED;
ST_API st_status st_node_remove_child(st_node *parent, st_node *child,
                                      st_error *err) ST_WARN_UNUSED;
/* ABI 2.4. The scene a node belongs to (NULL for none). Borrowed. */
ST_API struct st_scene *st_node_scene(const st_node *n);

#ifdef __cplusplus
}
#endif
#endif
