/* plugin.c - the SofaCarving plugin (SOFA's SofaCarving): CarvingManager,
 * which removes the elements of a surface (or of the volume under it) that
 * a tool's collision model touches. */
#include <settee/settee.h>

extern const st_class carving_manager_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    return st_registry_add(r, &carving_manager_class, err);
}

static const char *const provides[] = {"SofaCarving", NULL};

ST_PLUGIN_DEFINE("SofaCarving", "0.1.0",
                 "SOFA's SofaCarving plugin: CarvingManager removes the elements a tool touches, "
                 "through the topological changes",
                 "LGPL-2.1-or-later", provides, register_classes)
