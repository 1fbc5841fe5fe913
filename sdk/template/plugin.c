/* plugin.c - the Anchor plugin's descriptor: its name, version, ABI and the
 * function that registers its classes. Nothing runs when the file is
 * loaded; the kernel checks the ABI, then calls anchor_register. */
#include <settee/settee.h>

#include "anchor.h"

/* SETTEE_PLUGIN_NAME and SETTEE_PLUGIN_VERSION come from settee_add_plugin()
 * (or -D flags when building with pkg-config), so the descriptor's name is
 * always the file's name: libAnchor.so <-> "Anchor". */
#ifndef SETTEE_PLUGIN_NAME
#error "build with settee_add_plugin() or -DSETTEE_PLUGIN_NAME=\"Anchor\""
#endif
#ifndef SETTEE_PLUGIN_VERSION
#define SETTEE_PLUGIN_VERSION "0.1.0"
#endif

static st_status anchor_register(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &anchor_force_field_class, err));
    return ST_OK;
}

ST_PLUGIN_DEFINE(SETTEE_PLUGIN_NAME, SETTEE_PLUGIN_VERSION,
                 "Template plugin: a force field pulling vertices to a point", "MIT", NULL,
                 anchor_register)
