/* visual_grid.c - VisualGrid: a square grid of lines in a coordinate
 * plane. Headless: fields kept and checked, nothing drawn. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct visual_grid {
    st_component base;
    bool enable;
    char *plane, *color;
    double size, thickness;
    int nb_subdiv, nb_line_segments;
} visual_grid;

#define S visual_grid
static const st_field visual_grid_fields[] = {
    IGN_ENABLE(S),
    IGN_STRING(S, plane, "plane", "z", "Plane of the grid: x, y or z (the plane where it is 0)"),
    IGN_REAL(S, size, "size", "10", "Side length of the grid"),
    IGN_INT(S, nb_subdiv, "nbSubdiv", "16", "Number of subdivisions"),
    IGN_COLOR(S, color, "color", "0.34117647058 0.34117647058 0.34117647058 1",
              "Colour of the lines"),
    IGN_REAL(S, thickness, "thickness", "1", "Thickness of the lines"),
    IGN_INT(S, nb_line_segments, "nbLineSegments", "1", "Segments drawn per grid line"),
    ST_FIELD_END};
#undef S

static const char *const planes[] = {"x", "y", "z", NULL};
static const st_option_field visual_grid_options[] = {{"plane", planes}, {NULL, NULL}};
static const char *const visual_grid_colours[] = {"color", NULL};

static st_status visual_grid_init(st_component *self, st_error *err)
{
    return st_headless_check(self, visual_grid_options, visual_grid_colours, err);
}

const st_class visual_grid_class = {
    .struct_size = sizeof(st_class),
    .name = "VisualGrid",
    .category = "Visual",
    .description = "Draws a grid in a coordinate plane (headless: nothing drawn)",
    .instance_size = sizeof(visual_grid),
    .fields = visual_grid_fields,
    .init = visual_grid_init,
    .reinit = visual_grid_init,
};
