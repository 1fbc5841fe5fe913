/* rendering2d.c - SOFA's Sofa.GL.Component.Rendering2D, headless: OglLabel,
 * OglColorMap and OglViewport keep and check their data; nothing is drawn. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct ogl_label {
    st_component base;
    bool enable, select_contrasting_color;
    char *prefix, *label, *suffix;
    unsigned x, y, fontsize, update_every;
    st_vec4 color;
} ogl_label;

#define S ogl_label
static const st_field ogl_label_fields[] = {
    IGN_ENABLE(S),
    IGN_STRING(S, prefix, "prefix", "", "Text before the label"),
    IGN_STRING(S, label, "label", "", "The text to display"),
    IGN_STRING(S, suffix, "suffix", "", "Text after the label"),
    IGN_UINT(S, x, "x", "10", "Horizontal position of the text on the screen, in pixels"),
    IGN_UINT(S, y, "y", "10", "Vertical position of the text on the screen, in pixels"),
    IGN_UINT(S, fontsize, "fontsize", "14", "Size of the font"),
    IGN_RGBA(S, color, "color", "0.5 0.5 0.5 1", "Colour of the text (default gray)"),
    IGN_BOOL(S, select_contrasting_color, "selectContrastingColor", "false",
             "Use a colour that contrasts with the background instead of color"),
    IGN_UINT(S, update_every, "updateLabelEveryNbSteps", "0",
             "Update the label every this many steps"),
    ST_FIELD_END};
#undef S

static ST_HEADLESS_CLASS(ogl_label_class, "OglLabel", "Visual",
                         "Draws a 2D text in the viewport (headless: nothing drawn)", ogl_label,
                         ogl_label_fields, NULL, NULL, NULL);

typedef struct ogl_color_map {
    st_component base;
    bool enable, show_legend;
    unsigned palette_size, legend_size;
    char *color_scheme, *legend_title;
    st_vec2 legend_offset;
    double min, max, legend_range_scale;
} ogl_color_map;

#define S ogl_color_map
static const st_field ogl_color_map_fields[] = {
    IGN_ENABLE(S),
    IGN_UINT(S, palette_size, "paletteSize", "256", "Number of colours of the palette"),
    IGN_STRING(S, color_scheme, "colorScheme", "Red to Blue",
               "Colour scheme: Red to Blue, Blue to Red, HSV, Red, Green, Blue, Yellow to Cyan, "
               "..., Custom"),
    IGN_BOOL(S, show_legend, "showLegend", "false", "Draw the colour scale's legend"),
    IGN_VEC2(S, legend_offset, "legendOffset", "10 5", "Screen offset of the legend (x, y)"),
    IGN_STRING(S, legend_title, "legendTitle", "", "Title of the legend"),
    IGN_UINT(S, legend_size, "legendSize", "11", "Font size of the legend"),
    IGN_REAL(S, min, "min", "0", "Lower value of the legend"),
    IGN_REAL(S, max, "max", "0", "Upper value of the legend"),
    IGN_REAL(S, legend_range_scale, "legendRangeScale", "1",
             "Factor applied to min and max in the legend (a change of unit)"),
    ST_FIELD_END};
#undef S

static const char *const colour_schemes[] = {
    "Red to Blue",     "Blue to Red",     "HSV",           "Red",           "Green",
    "Blue",            "Yellow to Cyan",  "Cyan to Yellow", "Red to Yellow", "Yellow to Red",
    "Yellow to Green", "Green to Yellow", "Green to Cyan", "Cyan to Green",  "Cyan to Blue",
    "Blue to Cyan",    "BlueInv",         "GreenInv",      "RedInv",        "Custom",
    NULL};
static const st_option_field ogl_color_map_options[] = {{"colorScheme", colour_schemes},
                                                        {NULL, NULL}};

static ST_HEADLESS_CLASS(ogl_color_map_class, "OglColorMap", "Visual",
                         "A colour palette that maps values to colours (headless: data kept)",
                         ogl_color_map, ogl_color_map_fields, ogl_color_map_options, NULL, NULL);

typedef struct ogl_viewport {
    st_component base;
    st_vec2 screen_position, screen_size; /* pixels (integers) */
    st_vec3 camera_position;
    st_vec4 camera_orientation;           /* quaternion x y z w */
    st_array camera_rigid;                /* Rigid3 coordinate: 7 reals */
    double z_near, z_far, fovy;
    bool enabled, advanced_rendering, use_fbo, swap_main_view, draw_camera;
} ogl_viewport;

#define S ogl_viewport
static const st_field ogl_viewport_fields[] = {
    IGN_VEC2(S, screen_position, "screenPosition", "0 0", "Position of the viewport (pixels)"),
    IGN_VEC2(S, screen_size, "screenSize", "0 0", "Size of the viewport (pixels)"),
    IGN_VEC3(S, camera_position, "cameraPosition", "0 0 0", "Camera position in eye space"),
    IGN_VEC4(S, camera_orientation, "cameraOrientation", "0 0 0 1",
             "Camera orientation (quaternion x y z w)"),
    IGN_REALS(S, camera_rigid, "cameraRigid", "0 0 0 0 0 0 1",
              "Camera as a Rigid3 coordinate (x y z qx qy qz qw)"),
    IGN_REAL(S, z_near, "zNear", "0", "Near clipping distance"),
    IGN_REAL(S, z_far, "zFar", "0", "Far clipping distance"),
    IGN_REAL(S, fovy, "fovy", "60", "Vertical field of view, in degrees"),
    IGN_BOOL(S, enabled, "enabled", "true", "Show the viewport"),
    IGN_BOOL(S, advanced_rendering, "advancedRendering", "false",
             "Hide the viewport unless the advancedRendering display flag is on"),
    IGN_BOOL(S, use_fbo, "useFBO", "true", "Render the viewport in a frame buffer object"),
    IGN_BOOL(S, swap_main_view, "swapMainView", "false", "Swap this viewport with the main view"),
    IGN_BOOL(S, draw_camera, "drawCamera", "false", "Draw the camera's frame in the main view"),
    ST_FIELD_END};
#undef S

static const st_value_check ogl_viewport_checks[] = {{"screenPosition", 0, 0, ST_CHECK_INT},
                                                     {"screenSize", 0, 0, ST_CHECK_UINT},
                                                     {"cameraRigid", 0, 7, ST_CHECK_REAL},
                                                     {NULL, 0, 0, 0}};

static ST_HEADLESS_CLASS(ogl_viewport_class, "OglViewport", "Visual",
                         "An additional viewport in the main one (headless: nothing drawn)",
                         ogl_viewport, ogl_viewport_fields, NULL, ogl_viewport_checks, NULL);

static const st_headless_class *const classes[] = {&ogl_label_class, &ogl_color_map_class,
                                                   &ogl_viewport_class};

static st_status register_classes(st_registry *r, st_error *err)
{
    return st_headless_register(r, classes, sizeof classes / sizeof classes[0], err);
}

static const char *const provides[] = {"Sofa.GL.Component.Rendering2D", NULL};

ST_PLUGIN_DEFINE("GL.Rendering2D", "0.1.0",
                 "SOFA's 2D rendering components (OglLabel, OglColorMap, OglViewport), headless: "
                 "data kept, nothing drawn",
                 "LGPL-2.1-or-later", provides, register_classes)
