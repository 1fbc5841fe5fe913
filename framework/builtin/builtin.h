/* builtin.h - the classes every runtime has (MechanicalObject, the
 * animation loops) and the runtime that registers them: the top of the
 * kernel, above the simulation layer. */
#ifndef SETTEE_KERNEL_BUILTIN_H
#define SETTEE_KERNEL_BUILTIN_H

#include "simulation/simulation.h"

/* Test builds (SETTEE_EXPORT_INTERNALS) export these internals so that the
 * test suites can reach them; other builds export only the public API. */
#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility push(default)
#endif

/* Registers the kernel's built-in classes and built-in plugin records. */
st_status st__builtins_register(st_runtime *rt, st_error *err);
/* ---- built-in classes ---- */
extern const st_class st__mechanical_object_class;
extern const st_class st__mapped_object_class;
extern const st_class st__default_animation_loop_class;
extern const st_class st__free_motion_animation_loop_class;
extern const st_class st__multi_step_animation_loop_class;
extern const st_class st__constraint_animation_loop_class;
extern const st_class st__multi_tag_animation_loop_class;
extern const st_class st__animation_loop_parallel_scheduler_class;
extern const st_class st__data_exchange_class;
extern const st_class st__mean_computation_class;
/* SOFA's DataExchangeEvent: every DataExchange of n's subtree copies its
 * data (data_exchange.c; sent by AnimationLoopParallelScheduler). */
void st__data_exchange_all(st_node *n);

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
/* Whether the loop stepping root integrates sys: every system for the
 * root's loop; for a child scene's loop (AnimationLoopParallelScheduler),
 * the systems whose solver is in that child's subtree. */
bool st__loop_owns(const st_node *root, const st_system *sys);
st_status st__loop_solve_node(st_scene *s, st_node *n, double dt, st_error *err);
/* st__loop_solve_node with only the ODE solvers tagged `tag` (NULL: all). */
st_status st__loop_solve_tagged(st_scene *s, st_node *n, double dt, const char *tag,
                                st_error *err);
void st__loop_end_step(st_node *root, double t0, double dt);
/* The collision pipeline of the root (the first object with the collision
 * role), if any. */
st_status st__loop_compute_collision(st_node *root, st_error *err);
/* Whether the root holds a collision pipeline. */
bool st__loop_has_collision(const st_node *root);
/* The collision detection of a free-motion loop (SOFA's order): at the
 * positions x_t of the step's start (xt, one per system), the free
 * positions kept in xf meanwhile and put back after; without a pipeline,
 * st__loop_compute_collision alone. */
st_status st__loop_collision_at(st_node *root, bool has_collision, double **xt, double **xf,
                                st_error *err);
/* One vector per system of s (coords: xsize_all reals, else size_all),
 * NULL when out of memory; freed with st__loop_sysvecs_free(v, nsystems). */
double **st__loop_sysvecs(const st_scene *s, bool coords);
void st__loop_sysvecs_free(double **v, size_t n);
/* st__loop_compute_collision when the root's pipeline carries `tag` (NULL: always). */
st_status st__loop_compute_collision_tagged(st_node *root, const char *tag, st_error *err);
/* SOFA's isolated interaction force fields (SolveVisitor and
 * MechanicalIntegrationVisitor outside every solver): the root's collision
 * pipeline adds its contacts outside every ODE solver's subtree to their
 * states' externalForce, before an integration of the solvers. */
st_status st__loop_isolated_forces(st_node *root, st_error *err);
extern const st_class st__required_plugin_class;
extern const st_class st__default_visual_manager_loop_class;

#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility pop
#endif

#endif
