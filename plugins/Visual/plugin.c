/* plugin.c - SOFA's Sofa.Component.Visual, headless: components that only
 * draw in SOFA load with all their data, checked and kept; nothing is drawn. */
#include <settee/settee.h>

#include "../shared/options.h"

extern const st_class visual_style_class, line_axis_class, camera_class,
    interactive_camera_class, recorded_camera_class, trail_renderer_class, visual_mesh_class;
extern const st_headless_class visual_grid_class, visual_3d_text_class,
    visual_bounding_box_class, cylinder_visual_model_class, visual_transform_class,
    visual_point_cloud_class, visual_vector_field_class;

static const st_class *const classes[] = {
    &visual_style_class,    &line_axis_class,      &camera_class,     &interactive_camera_class,
    &recorded_camera_class, &trail_renderer_class, &visual_mesh_class};
static const st_headless_class *const headless[] = {
    &visual_grid_class,           &visual_3d_text_class,   &visual_bounding_box_class,
    &cylinder_visual_model_class, &visual_transform_class, &visual_point_cloud_class,
    &visual_vector_field_class};

static st_status register_classes(st_registry *r, st_error *err)
{
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        ST_TRY(st_registry_add(r, classes[i], err));
    return st_headless_register(r, headless, sizeof headless / sizeof headless[0], err);
}

static const char *const provides[] = {"Sofa.Component.Visual", NULL};

ST_PLUGIN_DEFINE("Visual", "0.2.0",
                 "SOFA's visual components (VisualStyle, VisualGrid, cameras, point clouds, ...), "
                 "headless: data kept, nothing drawn",
                 "LGPL-2.1-or-later", provides, register_classes)
