/* scene.h - loading, initialising and stepping a scene. */
#ifndef SETTEE_SCENE_H
#define SETTEE_SCENE_H

#include <stdbool.h>
#include <stddef.h>

#include "settee/node.h"
#include "settee/runtime.h"
#include "settee/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct st_scene st_scene;

/* An empty scene with a root node named "root", for building in code. */
ST_API st_status st_scene_create(st_runtime *rt, st_scene **out, st_error *err) ST_WARN_UNUSED;
/* Loads a YAML scene (format settee/1). Plugins named by RequiredPlugin are
 * loaded as they appear. Every error found is sent to the runtime's log
 * sink; err holds the first. Nothing half-loaded is returned. */
ST_API st_status st_scene_load(st_runtime *rt, const char *path, st_scene **out,
                               st_error *err) ST_WARN_UNUSED;
/* The same from text in memory; name is used in messages. */
ST_API st_status st_scene_load_string(st_runtime *rt, const char *text, size_t len,
                                      const char *name, st_scene **out,
                                      st_error *err) ST_WARN_UNUSED;
/* Converts a scene between settee's YAML and SOFA's XML (.scn, .xml): the
 * formats come from the file names; out NULL writes the other format to
 * stdout. Includes are expanded. The output builds the same graph. */
ST_API st_status st_scene_convert(st_runtime *rt, const char *in, const char *out,
                                  st_error *err) ST_WARN_UNUSED;
/* Sets a field of a loaded scene from text, as a scene would: target is
 * "PATH.FIELD" with PATH a component's path ("/Beam/springs.stiffness"),
 * or a root context key ("dt", "gravity"). Call it before st_scene_init.
 * Errors suggest close names for the path and the field. */
ST_API st_status st_scene_set(st_scene *s, const char *target, const char *value,
                              st_error *err) ST_WARN_UNUSED;
/* Resolves links, initialises every component (top-down, scene order),
 * compiles the mechanical systems. Adds a DefaultAnimationLoop (with an
 * info message) when the root has no animation loop. */
ST_API st_status st_scene_init(st_scene *s, st_error *err) ST_WARN_UNUSED;
/* ABI 2.6. Initialises the components added to an initialised scene since
 * (st_node_add_object after st_scene_init), parents first, in scene order as
 * st_scene_init does, compiles the mechanical systems again (positions and
 * velocities kept) and sends the new components ST_EVENT_INIT_DONE.
 * Refused during a step. Nothing added: nothing done. A component whose
 * init fails is left uninitialised (st_node_remove_object may remove it) and
 * the systems as they were; a failure to compile the systems makes every
 * later step fail with that error. */
ST_API st_status st_scene_init_added(st_scene *s, st_error *err) ST_WARN_UNUSED;
/* One step of the animation loop; dt <= 0 means the root's dt. A step
 * that leaves a position or velocity non-finite fails with ST_ESOLVER; the
 * scene is then replayed to the start of that step to name the force field
 * that went non-finite first, and is left in that state. */
ST_API st_status st_scene_step(st_scene *s, double dt, st_error *err) ST_WARN_UNUSED;
/* Back to the state after init. */
ST_API st_status st_scene_reset(st_scene *s, st_error *err) ST_WARN_UNUSED;
ST_API void st_scene_destroy(st_scene **s);

ST_API st_node *st_scene_root(st_scene *s);
ST_API st_runtime *st_scene_runtime(st_scene *s);
ST_API double st_scene_time(const st_scene *s);
ST_API const char *st_scene_file(const st_scene *s);
/* ABI 2.4. True once st_scene_init succeeded. */
ST_API bool st_scene_is_initialised(const st_scene *s);
/* Every MechanicalObject of the scene, in scene order. */
ST_API size_t st_scene_states(st_scene *s, st_mstate **out, size_t max);
/* Appended after ABI 2.5. The visual models (OglModel: SOFA's VisualModelImpl)
 * that mappings write, in the order of the mappings, each once: writes up
 * to max of them into out (may be NULL) and returns how many there are.
 * Borrowed, valid while the scene lives. Known after st_scene_init. */
ST_API size_t st_scene_visual_models(st_scene *s, st_component **out, size_t max);
/* Writes the state as JSON: {"time": T, "steps": N, "objects": [{"path":
 * ..., "position": [[x,y,z],...], "velocity": [...]}]} with 17 significant
 * digits, so that it reads back bit-exact. A regular file is written under
 * a temporary name next to path and renamed over path once complete; a
 * device or FIFO (/dev/stdout) is written in place. */
ST_API st_status st_scene_export_state(st_scene *s, const char *path, unsigned long steps,
                                       st_error *err) ST_WARN_UNUSED;
/* Before a run: checks that st_scene_export_state could write path (not a
 * directory; a file can be created in its folder, or a device or FIFO is
 * writable) and removes a regular file left there by an earlier run, so
 * that a run that fails leaves no export looking current. ST_EIO naming
 * the path and the reason otherwise. */
ST_API st_status st_scene_export_prepare(const char *path, st_error *err) ST_WARN_UNUSED;

/* Checkpoints (docs/results.md): everything an initialised scene needs to
 * continue bit-identically (steps, times, state and system vectors, the
 * st_checkpoint_ops items of components), with the scene file's hash (FNV-1a
 * of its bytes and of `tag`, the caller's description of what else defines
 * the run: options that change the scene) and the settee and plugin
 * versions. Written to a temporary file next to path, renamed over path
 * once complete. */
ST_API st_status st_scene_checkpoint_write(st_scene *s, const char *path, const char *tag,
                                           st_error *err) ST_WARN_UNUSED;
/* Restores a checkpoint into s, freshly initialised from the same scene:
 * refuses (ST_EINVAL, naming both) another scene or tag, another settee or
 * plugin version, another format, or a scene whose states or components
 * differ in layout. *steps receives the steps done when it was written.
 * A failure after the header may leave s partly restored: destroy it. */
ST_API st_status st_scene_checkpoint_read(st_scene *s, const char *path, const char *tag,
                                          unsigned long *steps, st_error *err) ST_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
