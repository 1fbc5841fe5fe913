/* plugin.c - SOFA's Sofa.Component.Visual, headless: components that only
 * draw in SOFA load with all their data, checked and kept; nothing is drawn. */
#include <settee/settee.h>

extern const st_class visual_style_class, visual_grid_class, line_axis_class, visual_3d_text_class,
    camera_class, interactive_camera_class;

static const st_class *const classes[] = {&visual_style_class,   &visual_grid_class,
                                          &line_axis_class,      &visual_3d_text_class,
                                          &camera_class,         &interactive_camera_class};

static st_status register_classes(st_registry *r, st_error *err)
{
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        ST_TRY(st_registry_add(r, classes[i], err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Visual", NULL};

ST_PLUGIN_DEFINE("Visual", "0.1.0",
                 "SOFA's visual components (VisualStyle, VisualGrid, cameras, ...), headless: "
                 "data kept, nothing drawn",
                 "LGPL-2.1-or-later", provides, register_classes)
