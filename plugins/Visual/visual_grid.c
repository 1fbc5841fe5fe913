/* visual_grid.c - VisualGrid: a square grid of lines in a coordinate
 * plane. Headless: fields kept and checked, nothing drawn. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct visual_grid {
    st_component base;
    bool enable;
    char *plane;
    st_vec4 color;
    double size, thickness;
    int nb_subdiv, nb_line_segments;
} visual_grid;

#define S visual_grid
static const st_field visual_grid_fields[] = {
    IGN_ENABLE(S),
    IGN_STRING(S, plane, "plane", "z", "Plane of the grid: x, y or z (the plane where it is 0)"),
    IGN_REAL(S, size, "size", "10", "Side length of the grid"),
    IGN_INT(S, nb_subdiv, "nbSubdiv", "16", "Number of subdivisions"),
    IGN_RGBA(S, color, "color", "0.34117647058 0.34117647058 0.34117647058 1",
              "Colour of the lines"),
    IGN_REAL(S, thickness, "thickness", "1", "Thickness of the lines"),
    IGN_INT(S, nb_line_segments, "nbLineSegments", "1", "Segments drawn per grid line"),
    ST_FIELD_END};
#undef S

static const char *const planes[] = {"x", "y", "z", NULL};
static const st_option_field visual_grid_options[] = {{"plane", planes}, {NULL, NULL}};

ST_HEADLESS_CLASS(visual_grid_class, "VisualGrid", "Visual",
                  "Draws a grid in a coordinate plane (headless: nothing drawn)",
                  visual_grid, visual_grid_fields, visual_grid_options, NULL, NULL);
