/* plugin.h - the descriptor a plugin exports.
 *
 * A plugin is a shared object (lib<Name>.so) that exports exactly one
 * symbol, st_plugin_descriptor, defined with ST_PLUGIN_DEFINE. The loader
 * reads abi_major, abi_minor and struct_size before anything else and
 * refuses a plugin whose major differs from the kernel's or whose minor is
 * newer. Then it calls register_classes, which adds the plugin's classes to
 * the registry and returns a status. Nothing runs at dlopen time.
 *
 *   static st_status reg(st_registry *r, st_error *err) {
 *       ST_TRY(st_registry_add(r, &my_force_class, err));
 *       return ST_OK;
 *   }
 *   static const char *const provides[] = {"Sofa.Component.MechanicalLoad", NULL};
 *   ST_PLUGIN_DEFINE("MechanicalLoad", "0.1.0", "Constant and plane forces", "LGPL-2.1-or-later",
 *                    provides, reg)
 */
#ifndef SETTEE_PLUGIN_H
#define SETTEE_PLUGIN_H

#include <stdint.h>

#include "settee/export.h"
#include "settee/registry.h"
#include "settee/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef st_status (*st_plugin_register_fn)(st_registry *r, st_error *err);

/* Fields are only ever appended; the first three never move. */
typedef struct st_plugin_desc {
    uint32_t abi_major;            /* ST_ABI_MAJOR the plugin was built with */
    uint32_t abi_minor;            /* ST_ABI_MINOR the plugin was built with */
    uint32_t struct_size;          /* sizeof(st_plugin_desc) as the plugin saw it */
    const char *name;              /* "ODESolver.Forward" */
    const char *version;           /* the plugin's own version, "0.1.0" */
    const char *description;       /* one line */
    const char *license;           /* SPDX identifier */
    const char *const *provides;   /* NULL-terminated SOFA module names it answers to, or NULL */
    st_plugin_register_fn register_classes;
} st_plugin_desc;

#define ST_PLUGIN_SYMBOL "st_plugin_descriptor"

#define ST_PLUGIN_DEFINE(name_, version_, description_, license_, provides_, register_)           \
    ST_API extern const st_plugin_desc st_plugin_descriptor;                                       \
    const st_plugin_desc st_plugin_descriptor = {ST_ABI_MAJOR,     ST_ABI_MINOR,                   \
                                                 sizeof(st_plugin_desc), (name_),                  \
                                                 (version_),       (description_),                 \
                                                 (license_),       (provides_),                    \
                                                 (register_)};

#ifdef __cplusplus
}
#endif
#endif
