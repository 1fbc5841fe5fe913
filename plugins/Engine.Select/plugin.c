/* plugin.c - the Engine.Select plugin: regions of interest (BoxROI,
 * SphereROI). */
#include <settee/settee.h>

extern const st_class box_roi_class, sphere_roi_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &box_roi_class, err));
    ST_TRY(st_registry_add(r, &sphere_roi_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Engine.Select", NULL};

ST_PLUGIN_DEFINE("Engine.Select", "0.1.0", "Regions of interest: boxes, spheres",
                 "LGPL-2.1-or-later", provides, register_classes)
