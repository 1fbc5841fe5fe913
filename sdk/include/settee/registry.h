/* registry.h - component classes by name, and the plugins that provide them. */
#ifndef SETTEE_REGISTRY_H
#define SETTEE_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "settee/component.h"
#include "settee/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct st_registry st_registry;

/* Registers a class (static data, borrowed for the registry's lifetime) for
 * the plugin being registered. Fails when the same plugin registers a name
 * or alias twice. Another plugin's class of the same name is kept beside it
 * (ABI 2.2; before, an error): the name is then ambiguous, and a scene
 * names the one it wants as "Plugin::Class", or the runtime prefers a
 * plugin (st_registry_prefer; SETTEE_PREFER_PLUGIN). */
ST_API st_status st_registry_add(st_registry *r, const st_class *cls, st_error *err) ST_WARN_UNUSED;
/* A class by name or alias, or by "Plugin::Class"; NULL when unknown, and
 * when the name is ambiguous (several plugins, none preferred). */
ST_API const st_class *st_registry_find(const st_registry *r, const char *name);
/* ABI 2.2. The plugins (and their files) that register a name: writes up to
 * max of each (either array may be NULL), returns how many there are. */
ST_API size_t st_registry_providers(const st_registry *r, const char *name, const char **plugins,
                                    const char **files, size_t max);
/* ABI 2.2. Makes plugin's classes win over other plugins' classes of the
 * same name (the latest preference first). */
ST_API st_status st_registry_prefer(st_registry *r, const char *plugin,
                                    st_error *err) ST_WARN_UNUSED;
/* Up to max registered names closest to name (best first); returns the count. */
ST_API size_t st_registry_suggest(const st_registry *r, const char *name, const char **out,
                                  size_t max);
ST_API size_t st_registry_count(const st_registry *r);
ST_API const st_class *st_registry_class(const st_registry *r, size_t i);
/* Name of the plugin that registered a class ("(kernel)" for built-ins). */
ST_API const char *st_registry_class_plugin(const st_registry *r, const st_class *cls);

#ifdef __cplusplus
}
#endif
#endif
