/* simulation.h - the scene and its run, above the mechanics: creating a
 * scene, init (systems compiled, links resolved), steps through the
 * animation loop, reset, failure detection (failure.c), checkpoints and
 * state export.
 *
 * scene.c and failure.c call each other, by design: each step checks that
 * its states are finite (st__scene_check_finite), and on that failure path
 * failure.c replays the scene from its start (st_scene_reset) to name the
 * force field that went non-finite first. checkpoint.c and export.c use
 * scene.c; nothing here uses them. */
#ifndef SETTEE_KERNEL_SIMULATION_H
#define SETTEE_KERNEL_SIMULATION_H

#include "mechanics/mechanics.h"
#include "plugin/loader.h"

/* Test builds (SETTEE_EXPORT_INTERNALS) export these internals so that the
 * test suites can reach them; other builds export only the public API. */
#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility push(default)
#endif

/* A fresh temporary file next to path ("path.tmp-XXXXXX"), opened for
 * writing, its name in tmp (export.c); errors say "cannot write WHAT 'path'". */
st_status st__open_temp(const char *path, const char *what, char *tmp, size_t size, FILE **out,
                        st_error *err);
/* After a step: ST_ESOLVER naming the step, the state, the vertex and the
 * solver when a position or velocity is NaN or infinite (failure.c). */
st_status st__scene_check_finite(st_scene *s, st_error *err);
/* Notes the scene's size at init, for st__scene_check_finite's bound on a
 * finite blow-up. */
void st__scene_note_extent(st_scene *s);
/* After a topological change (topology_change.c): the mechanical systems
 * compiled and bound again, the linear solvers' patterns with them. Does
 * nothing when no change happened since the last call. */
st_status st__scene_refresh_systems(st_scene *s, st_error *err);
/* topology_change.c, for state_resize.c too: whether c may hold data
 * indexed by the points or elements of its context (its roles and kind);
 * whether one of c's links names target; the systems unbound (the states
 * own their vectors) until st__scene_refresh_systems. */
bool st__may_hold_point_data(const st_component *c);
bool st__links_to(const st_component *c, const st_component *target);
void st__scene_unbind_systems(st_scene *s);
/* Tells the components that follow ms's resizes (st_mstate_follow_resize)
 * that it had before points and has ms->n now (state_resize.c). */
st_status st__mstate_tell_resized(st_scene *s, st_mstate *ms, size_t before, st_error *err);
/* Scene hooks (scene_hooks.c, reader.h): a scene's destroy hooks and the
 * failure reported by st_component_fail during a step. */
typedef struct st__scene_hooks st__scene_hooks;
void st__scene_hooks_run_destroy(st_scene *s);
/* The failure reported since the last call (then cleared), or ST_OK. */
st_status st__scene_take_failure(st_scene *s, st_error *err);
/* st_scene_load for a file type a plugin reads; *handled false when no
 * reader (registered or installed) takes path. */
st_status st__scene_load_by_reader(st_runtime *rt, const char *path, st_scene **out,
                                   bool *handled, st_error *err);
st_status st__scene_new(st_runtime *rt, const char *file, st_scene **out, st_error *err);
const char *st__scene_intern(st_scene *s, const char *file);

#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility pop
#endif

#endif
