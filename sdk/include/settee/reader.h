/* reader.h - scene readers by file type, scene destroy hooks, and failures
 * reported from role functions (ABI 2.4).
 *
 * The kernel reads settee's YAML (.yaml, .yml, and any name it does not
 * know) and SOFA's XML (.scn, .xml). A plugin adds another file type by
 * registering a reader from its registration function:
 *
 *   static st_status read_py(st_scene *s, const char *path, st_error *err) { ... }
 *   static const st_scene_reader py_reader = {sizeof(st_scene_reader), ".py",
 *                                             "Python scene: createScene(root)", read_py};
 *   static st_status reg(st_registry *r, st_error *err) {
 *       return st_registry_add_reader(r, &py_reader, err);
 *   }
 *
 * st_scene_load then hands a file whose name ends with the extension to the
 * reader: from a plugin already loaded, else from the first installed plugin
 * (in plugin search order) that registers a reader for it, which is loaded
 * then. So `settee run scene.py` needs no option: the program and libsettee
 * never link what the reader needs (libpython for SofaPython3).
 */
#ifndef SETTEE_READER_H
#define SETTEE_READER_H

#include <stddef.h>

#include "settee/component.h"
#include "settee/registry.h"
#include "settee/scene.h"
#include "settee/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A reader for one file type. Static data of the plugin (borrowed by the
 * registry). Only ever appended to. */
typedef struct st_scene_reader {
    size_t struct_size;      /* sizeof(st_scene_reader) as the plugin saw it */
    const char *extension;   /* ".py": matched, case-insensitively, at the end of the file name */
    const char *description; /* one line, for messages */
    /* Fills s from the file at path. s was created by the kernel: a root
     * node named "root", st_scene_file(s) == path. On failure return the
     * status with err filled (a position with st_error_set_at when one is
     * known); the kernel logs it and destroys s. Errors found on the way
     * that do not stop the reader go to the runtime's log sink. */
    st_status (*read)(st_scene *s, const char *path, st_error *err);
} st_scene_reader;

/* Registers a reader for the plugin being registered (call it from the
 * plugin's registration function). ST_EPLUGIN when another loaded plugin
 * already reads that extension, naming both; ST_EINVAL for an extension that
 * does not start with '.', or one of the kernel's own (.yaml .yml .scn .xml). */
ST_API st_status st_registry_add_reader(st_registry *r, const st_scene_reader *reader,
                                        st_error *err) ST_WARN_UNUSED;
/* The registered reader for a file name (by its extension), or NULL. */
ST_API const st_scene_reader *st_registry_find_reader(const st_registry *r, const char *path);

/* Called once when the scene is destroyed, before any of its components
 * (in the reverse order of registration). For plugins that hand out
 * references into a scene (a scripting language's views of its data) and
 * must drop them before the memory goes. */
typedef void (*st_scene_hook_fn)(st_scene *s, void *ud);
ST_API st_status st_scene_add_destroy_hook(st_scene *s, st_scene_hook_fn fn, void *ud,
                                           st_error *err) ST_WARN_UNUSED;

/* Reports a failure from a role function that returns no status (a force
 * field's add_force, an on_event handler): the error e (copied; its path set
 * to c's when empty) is returned by the st_scene_step or st_scene_init under
 * way once the loop's step ends, and the step is not counted. The first
 * failure of a step wins; later ones go to the log sink. */
ST_API void st_component_fail(const st_component *c, const st_error *e);

#ifdef __cplusplus
}
#endif
#endif
