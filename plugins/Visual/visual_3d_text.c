/* visual_3d_text.c - Visual3DText: a text at a 3D position. Headless:
 * fields kept, nothing drawn. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct visual_3d_text {
    st_component base;
    bool enable, depth_test;
    char *text, *color;
    st_vec3 position;
    double scale;
} visual_3d_text;

#define S visual_3d_text
static const st_field visual_3d_text_fields[] = {
    IGN_ENABLE(S),
    IGN_STRING(S, text, "text", NULL, "Text to display"),
    IGN_VEC3(S, position, "position", "0 0 0", "Position of the text"),
    IGN_REAL(S, scale, "scale", "1", "Scale of the text"),
    IGN_COLOR(S, color, "color", "1 1 1 1", "Colour of the text"),
    IGN_BOOL(S, depth_test, "depthTest", "true", "Hide the text behind nearer objects"),
    ST_FIELD_END};
#undef S

static const char *const visual_3d_text_colours[] = {"color", NULL};

static st_status visual_3d_text_init(st_component *self, st_error *err)
{
    return st_headless_check(self, NULL, visual_3d_text_colours, err);
}

const st_class visual_3d_text_class = {
    .struct_size = sizeof(st_class),
    .name = "Visual3DText",
    .category = "Visual",
    .description = "Draws a text at a 3D position (headless: nothing drawn)",
    .instance_size = sizeof(visual_3d_text),
    .fields = visual_3d_text_fields,
    .init = visual_3d_text_init,
};
