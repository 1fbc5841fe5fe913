/* runtime.h - the runtime: registry, loaded plugins, search paths, logging.
 *
 * One runtime serves any number of scenes. A plugin loads once per runtime
 * however many scenes or RequiredPlugin entries name it, and is unloaded
 * only when the runtime is destroyed (after its scenes).
 */
#ifndef SETTEE_RUNTIME_H
#define SETTEE_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>

#include "settee/log.h"
#include "settee/plugin.h"
#include "settee/registry.h"
#include "settee/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct st_runtime st_runtime;

/* Creates a runtime with the kernel's built-in classes registered. */
/* ABI 2.2. A monotonic clock in seconds (for timing a phase: the
 * difference of two calls). */
ST_API double st_time_now(void);

ST_API st_status st_runtime_create(st_runtime **out, st_error *err) ST_WARN_UNUSED;
/* Destroys a runtime and unloads its plugins. Accepts NULL; clears *rt. */
ST_API void st_runtime_destroy(st_runtime **rt);

ST_API st_registry *st_runtime_registry(st_runtime *rt);
ST_API void st_runtime_set_log(st_runtime *rt, st_log_fn fn, void *ud);
/* ABI 2.6. The sink set last (NULL, NULL: none), so that an observer can
 * install its own sink and pass every message on to it (SofaPython3's
 * MessageHandler). */
ST_API void st_runtime_get_log(const st_runtime *rt, st_log_fn *fn, void **ud);
/* Strict reading of SOFA scenes (.scn/.xml): an unknown attribute of an
 * object is an error, as in YAML scenes, instead of SOFA's warning. Off by
 * default; `settee check --strict` and `settee run --strict` set it. */
ST_API void st_runtime_set_strict(st_runtime *rt, bool strict);
/* Sends a message to the sink. */
ST_API void st_runtime_log(st_runtime *rt, st_log_level level, const char *where,
                           const char *path, const char *fmt, ...) ST_PRINTF(5, 6);

/* Plugin search path, in order: directories added here (--plugin-path),
 * then SETTEE_PLUGIN_PATH (colon-separated), then the build tree's plugin
 * folder when libsettee runs from the build tree, then the install
 * prefix's. */
ST_API st_status st_runtime_add_plugin_path(st_runtime *rt, const char *dir,
                                            st_error *err) ST_WARN_UNUSED;
/* The full search list, in order; returns the count. */
ST_API size_t st_runtime_plugin_dirs(st_runtime *rt, const char **out, size_t max);

/* Information about a loaded plugin. */
typedef struct st_plugin_info {
    const char *name;        /* the descriptor's name */
    const char *file;        /* the shared object, or "(built in)" */
    const char *version;
    const char *description;
    const char *license;
    unsigned abi_major, abi_minor;
    const char *const *provides;  /* NULL-terminated, may be NULL */
} st_plugin_info;

/* Loads a plugin by name ("ODESolver.Forward", "Sofa.Component.ODESolver.Forward",
 * or a SOFA module name a plugin provides) or by file path. Loading one
 * already loaded is a no-op. On failure the error lists every path tried or
 * says why the file was refused. */
ST_API st_status st_runtime_load_plugin(st_runtime *rt, const char *name,
                                        st_error *err) ST_WARN_UNUSED;
ST_API size_t st_runtime_plugin_count(const st_runtime *rt);
ST_API const st_plugin_info *st_runtime_plugin(const st_runtime *rt, size_t i);
/* The loaded plugin that answers to name, or NULL. */
ST_API const st_plugin_info *st_runtime_find_plugin(const st_runtime *rt, const char *name);
/* Classes registered by a loaded plugin: count, and up to max into out. */
ST_API size_t st_runtime_plugin_classes(const st_runtime *rt, const char *plugin,
                                        const st_class **out, size_t max);
/* Loads every plugin found in the search path (for `settee inspect`).
 * Files that fail are reported to the log sink and skipped. */
ST_API st_status st_runtime_load_all_plugins(st_runtime *rt, st_error *err) ST_WARN_UNUSED;
/* Looks, without loading, for an installed plugin that provides a class:
 * writes its name into buf and returns true when one is found. */
ST_API bool st_runtime_which_plugin(st_runtime *rt, const char *class_name, char *buf,
                                    size_t size);

#ifdef __cplusplus
}
#endif
#endif
