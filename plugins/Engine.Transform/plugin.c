/* plugin.c - the Engine.Transform plugin: engines that transform data
 * (Vertex2Frame). */
#include <settee/settee.h>

extern const st_class vertex2frame_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    return st_registry_add(r, &vertex2frame_class, err);
}

static const char *const provides[] = {"Sofa.Component.Engine.Transform", NULL};

ST_PLUGIN_DEFINE("Engine.Transform", "0.1.0", "Engines transforming data: Vertex2Frame",
                 "LGPL-2.1-or-later", provides, register_classes)
