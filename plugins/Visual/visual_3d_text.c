/* visual_3d_text.c - Visual3DText: a text at a 3D position. Headless:
 * fields kept, nothing drawn. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct visual_3d_text {
    st_component base;
    bool enable, depth_test;
    char *text;
    st_vec4 color;
    st_vec3 position;
    double scale;
} visual_3d_text;

#define S visual_3d_text
static const st_field visual_3d_text_fields[] = {
    IGN_ENABLE(S),
    IGN_STRING(S, text, "text", NULL, "Text to display"),
    IGN_VEC3(S, position, "position", "0 0 0", "Position of the text"),
    IGN_REAL(S, scale, "scale", "1", "Scale of the text"),
    IGN_RGBA(S, color, "color", "1 1 1 1", "Colour of the text"),
    IGN_BOOL(S, depth_test, "depthTest", "true", "Hide the text behind nearer objects"),
    ST_FIELD_END};
#undef S

ST_HEADLESS_CLASS(visual_3d_text_class, "Visual3DText", "Visual",
                  "Draws a text at a 3D position (headless: nothing drawn)",
                  visual_3d_text, visual_3d_text_fields, NULL, NULL, NULL);
