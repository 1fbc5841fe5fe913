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
 * the plugin being registered. Fails on a name or alias already taken,
 * naming both plugins (and their files). */
ST_API st_status st_registry_add(st_registry *r, const st_class *cls, st_error *err) ST_WARN_UNUSED;
/* A class by name or alias; NULL when unknown. */
ST_API const st_class *st_registry_find(const st_registry *r, const char *name);
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
