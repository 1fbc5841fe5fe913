/* line_axis.c - LineAxis: lines along the coordinate axes. Headless: fields
 * kept and checked, nothing drawn. */
#include <string.h>

#include <settee/settee.h>

#include "../shared/options.h"

typedef struct line_axis {
    st_component base;
    bool enable, infinite, vanishing;
    char *axis;
    double size, thickness;
    int nb_line_segments;
} line_axis;

#define S line_axis
static const st_field line_axis_fields[] = {
    IGN_ENABLE(S),
    IGN_STRING(S, axis, "axis", "xyz", "Axes to draw: any of the letters x, y, z"),
    IGN_REAL(S, size, "size", "10", "Length of the lines"),
    IGN_BOOL(S, infinite, "infinite", "false", "Draw infinite lines (size is ignored)"),
    IGN_REAL(S, thickness, "thickness", "1", "Thickness of the lines"),
    IGN_BOOL(S, vanishing, "vanishing", "false", "Infinite lines fade with distance"),
    IGN_INT(S, nb_line_segments, "nbLineSegments", "1", "Segments drawn per axis line"),
    ST_FIELD_END};
#undef S

static st_status line_axis_init(st_component *self, st_error *err)
{
    const line_axis *l = (const line_axis *)self;
    /* SOFA looks for the letters x, y and z (either case); others draw nothing. */
    for (const char *p = l->axis ? l->axis : ""; *p; p++)
        if (!strchr("xyzXYZ", *p))
            st_component_warn(self, "axis: '%c' is not an axis (x, y or z); it is ignored", *p);
    return st_headless_init(self, err);
}

const st_class line_axis_class = {
    .struct_size = sizeof(st_class),
    .name = "LineAxis",
    .category = "Visual",
    .description = "Draws the coordinate axes as lines (headless: nothing drawn)",
    .instance_size = sizeof(line_axis),
    .fields = line_axis_fields,
    .init = line_axis_init,
    .reinit = line_axis_init,
};
