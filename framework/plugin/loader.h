/* loader.h - plugin loading, above the object model: finding, checking
 * (ELF, ABI) and dlopen-ing plugin files, the RequiredPlugin component that
 * asks for them, and unloading them with the runtime. */
#ifndef SETTEE_KERNEL_PLUGIN_LOADER_H
#define SETTEE_KERNEL_PLUGIN_LOADER_H

#include "core/core.h"

/* Test builds (SETTEE_EXPORT_INTERNALS) export these internals so that the
 * test suites can reach them; other builds export only the public API. */
#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility push(default)
#endif

/* Maps "Sofa.Component.X.Y" to "X.Y"; returns a pointer into name. */
const char *st__plugin_short_name(const char *name);
/* Checks a plugin file before dlopen (plugin_file.c): a regular file whose
 * ELF header, segments and sections lie inside it; ST_EPLUGIN saying
 * "damaged" and naming the file otherwise. */
st_status st__plugin_file_check(const char *file, st_error *err);
/* Loads the first installed plugin (search order) that registers a scene
 * reader for path's extension; *found says whether there was one (plugin.c). */
st_status st__plugin_load_reader(st_runtime *rt, const char *path, bool *found, st_error *err);
/* Unloads all plugins (runtime destruction). */
void st__plugins_unload_all(st_runtime *rt);
/* Loads a plugin named by a RequiredPlugin component (kernel built-in). */
st_status st__required_plugin_load(st_component *c, st_error *err);
extern const st_class st__required_plugin_class;

#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility pop
#endif

#endif
