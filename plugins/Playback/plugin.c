/* plugin.c - the Playback plugin (SOFA's Sofa.Component.Playback): states
 * written to and read from SOFA's text state files, and compared with
 * them as SOFA's regression suite does. */
#include <settee/settee.h>

extern const st_class write_state_class, read_state_class, compare_state_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &write_state_class, err));
    ST_TRY(st_registry_add(r, &read_state_class, err));
    ST_TRY(st_registry_add(r, &compare_state_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Playback", NULL};

ST_PLUGIN_DEFINE("Playback", "0.1.0", "State files: write, read and compare mechanical states over time",
                 "LGPL-2.1-or-later", provides, register_classes)
