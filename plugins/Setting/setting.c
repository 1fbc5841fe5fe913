/* setting.c - SOFA's Sofa.Component.Setting, headless: BackgroundSetting,
 * StatsSetting, ViewerSetting and SofaDefaultPathSetting keep and check
 * their data (they configure SOFA's GUI). SOFA's MouseButtonSetting is not
 * in SOFA's object factory, so scenes cannot name it; it is not here. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct setting {
    st_component base;
    st_vec4 color;
    char *image, *gnuplot_path, *camera_mode, *picking;
    bool dump_state, log_time, export_state, trace_visitors, fullscreen;
    bool show_node_bbox, show_object_bbox, show_positions, show_surfaces, show_volumes,
        show_indices;
    st_vec2 resolution; /* pixels (integers) */
    double selected_scaling;
} setting;

#define S setting
static const st_field background_fields[] = {
    IGN_RGBA(S, color, "color", "1 1 1 1", "Colour of the background"),
    IGN_STRING(S, image, "image", NULL, "Image used as background"), ST_FIELD_END};
static const st_field stats_fields[] = {
    IGN_BOOL(S, dump_state, "dumpState", "false", "Dump the state vectors at each step"),
    IGN_BOOL(S, log_time, "logTime", "false", "Print the average time of the simulation stages"),
    IGN_BOOL(S, export_state, "exportState", "false",
             "Write gnuplot files of the positions, velocities and forces"),
    IGN_BOOL(S, trace_visitors, "traceVisitors", "false",
             "Trace the time of each visitor (SOFA built with SOFA_DUMP_VISITOR_INFO)"),
    ST_FIELD_END};
static const st_field viewer_fields[] = {
    IGN_VEC2(S, resolution, "resolution", "800 600", "Resolution of the viewer (pixels)"),
    IGN_BOOL(S, fullscreen, "fullscreen", "false", "Full-screen mode"),
    IGN_STRING(S, camera_mode, "cameraMode", "Perspective", "Camera: Perspective or Orthographic"),
    IGN_STRING(S, picking, "objectPickingMethod", "Ray casting",
               "Picking method: Ray casting or Selection buffer"),
    IGN_BOOL(S, show_node_bbox, "showSelectedNodeBoundingBox", "true",
             "Show the bounding box of selected nodes"),
    IGN_BOOL(S, show_object_bbox, "showSelectedObjectBoundingBox", "true",
             "Show the bounding box of selected components"),
    IGN_BOOL(S, show_positions, "showSelectedObjectPositions", "true",
             "Show the positions of selected components"),
    IGN_BOOL(S, show_surfaces, "showSelectedObjectSurfaces", "true",
             "Show the surfaces of selected components"),
    IGN_BOOL(S, show_volumes, "showSelectedObjectVolumes", "true",
             "Show the volumes of selected components"),
    IGN_BOOL(S, show_indices, "showSelectedObjectIndices", "true",
             "Show the indices of the positions of selected components"),
    IGN_REAL(S, selected_scaling, "showSelectedVisualScaling", "0.02",
             "Scale of the drawing of selected components"),
    ST_FIELD_END};
static const st_field default_path_fields[] = {
    IGN_STRING(S, gnuplot_path, "gnuplotPath", NULL, "Directory of the gnuplot files"),
    ST_FIELD_END};
#undef S

static const char *const camera_modes[] = {"Perspective", "Orthographic", NULL};
static const char *const picking_methods[] = {"Ray casting", "Selection buffer", NULL};
static const st_option_field viewer_options[] = {
    {"cameraMode", camera_modes}, {"objectPickingMethod", picking_methods}, {NULL, NULL}};
static const st_value_check viewer_checks[] = {{"resolution", 0, 0, ST_CHECK_INT},
                                               {NULL, 0, 0, 0}};

static ST_HEADLESS_CLASS(background_class, "BackgroundSetting", "Setting",
                         "Background of the viewer (headless: data kept)", setting,
                         background_fields, NULL, NULL, NULL);
static ST_HEADLESS_CLASS(stats_class, "StatsSetting", "Setting",
                         "SOFA's statistics settings (headless: data kept)", setting, stats_fields,
                         NULL, NULL, NULL);
static ST_HEADLESS_CLASS(viewer_class, "ViewerSetting", "Setting",
                         "Configuration of the viewer (headless: data kept)", setting,
                         viewer_fields, viewer_options, viewer_checks, NULL);
static ST_HEADLESS_CLASS(default_path_class, "SofaDefaultPathSetting", "Setting",
                         "Default paths of the SOFA application (headless: data kept)", setting,
                         default_path_fields, NULL, NULL, NULL);

static const st_headless_class *const classes[] = {&background_class, &stats_class,
                                                   &viewer_class, &default_path_class};

static st_status register_classes(st_registry *r, st_error *err)
{
    return st_headless_register(r, classes, sizeof classes / sizeof classes[0], err);
}

static const char *const provides[] = {"Sofa.Component.Setting", NULL};

ST_PLUGIN_DEFINE("Setting", "0.1.0",
                 "SOFA's GUI settings (BackgroundSetting, ViewerSetting, ...), headless: data kept",
                 "LGPL-2.1-or-later", provides, register_classes)
