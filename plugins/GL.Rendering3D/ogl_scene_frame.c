/* ogl_scene_frame.c - OglSceneFrame: the axes of the world frame drawn in a
 * corner of the view. Headless: fields kept and checked, nothing drawn. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct ogl_scene_frame {
    st_component base;
    bool enable, draw;
    char *style, *alignment;
    int viewport_size; /* pixels */
} ogl_scene_frame;

static const st_field ogl_scene_frame_fields[] = {
    IGN_ENABLE(ogl_scene_frame),
    IGN_BOOL(ogl_scene_frame, draw, "draw", "true", "Display the frame or not"),
    IGN_STRING(ogl_scene_frame, style, "style", "Cylinders",
               "Style of the frame: Arrows, Cylinders or CubeCones"),
    IGN_STRING(ogl_scene_frame, alignment, "alignment", "BottomRight",
               "Corner of the view: BottomLeft, BottomRight, TopRight or TopLeft"),
    IGN_INT(ogl_scene_frame, viewport_size, "viewportSize", "150",
            "Size in pixels of the viewport where the frame is drawn"),
    ST_FIELD_END};

static const char *const styles[] = {"Arrows", "Cylinders", "CubeCones", NULL};
static const char *const alignments[] = {"BottomLeft", "BottomRight", "TopRight", "TopLeft", NULL};
static const st_option_field ogl_scene_frame_options[] = {
    {"style", styles}, {"alignment", alignments}, {NULL, NULL}};

static st_status ogl_scene_frame_init(st_component *self, st_error *err)
{
    ST_TRY(st_options_check(self, ogl_scene_frame_options, err));
    return st_headless_init(self, err);
}

const st_class ogl_scene_frame_class = {
    .struct_size = sizeof(st_class),
    .name = "OglSceneFrame",
    .category = "Visual",
    .description = "Draws the world frame in a corner of the view (headless: nothing drawn)",
    .instance_size = sizeof(ogl_scene_frame),
    .fields = ogl_scene_frame_fields,
    .init = ogl_scene_frame_init,
    .reinit = ogl_scene_frame_init,
};
