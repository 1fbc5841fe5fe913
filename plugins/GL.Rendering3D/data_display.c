/* data_display.c - DataDisplay: colours a mesh by point or cell values
 * through a colour map. Headless: the values are kept and their counts
 * checked against the mesh; nothing is drawn. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct data_display {
    st_component base;
    bool enable;
    st_array position, rest_position, normal; /* VisualState, vec3 x n */
    bool maximal_range;
    st_array point_data, triangle_data, quad_data, point_triangle_data, point_quad_data;
    st_vec4 color_nan;
    st_vec2 user_range;
    double current_min, current_max, shininess, transparency;
    st_component *color_map, *topology;
} data_display;

#define S data_display
static const st_field data_display_fields[] = {
    IGN_ENABLE(S),
    IGN_VEC3S(S, position, "position", NULL, "Vertices coordinates"),
    IGN_VEC3S(S, rest_position, "restPosition", NULL, "Vertices rest coordinates"),
    IGN_VEC3S(S, normal, "normal", NULL, "Normals of the model"),
    IGN_BOOL(S, maximal_range, "maximalRange", "true", "Keep the largest range over all steps"),
    IGN_REALS(S, point_data, "pointData", NULL, "One value per point"),
    IGN_REALS(S, triangle_data, "triangleData", NULL, "One value per triangle"),
    IGN_REALS(S, quad_data, "quadData", NULL, "One value per quad"),
    IGN_REALS(S, point_triangle_data, "pointTriangleData", NULL, "One value per triangle corner"),
    IGN_REALS(S, point_quad_data, "pointQuadData", NULL, "One value per quad corner"),
    IGN_RGBA(S, color_nan, "colorNaN", "0 0 0 1", "Colour of NaN values"),
    IGN_VEC2(S, user_range, "userRange", "1 -1", "Clamp the values to this range when max > min"),
    IGN_REAL(S, current_min, "currentMin", "0", "Current lower end of the range"),
    IGN_REAL(S, current_max, "currentMax", "0", "Current upper end of the range"),
    IGN_REAL(S, shininess, "shininess", "-1",
             "Shininess of point data in [0, 128]; negative: no specular light"),
    IGN_REAL(S, transparency, "transparency", "1", "Opacity of the triangles, in [0, 1]"),
    {"colorMap", ST_T_LINK, offsetof(S, color_map) + ST_FIELD_CHECK_(S, color_map, st_component *),
     NULL, "Colour map (OglColorMap) used for the values", ST_F_IGNORED, NULL, ST_LINK_ANY, 0.0,
     0.0},
    {"topology", ST_T_LINK, offsetof(S, topology) + ST_FIELD_CHECK_(S, topology, st_component *),
     NULL, "Topology container of the mesh", ST_F_IGNORED, NULL, ST_LINK_TOPOLOGY, 0.0, 0.0},
    ST_FIELD_END};
#undef S

ST_HEADLESS_CLASS(data_display_class, "DataDisplay", "Visual",
                  "Colours a mesh by point or cell values (headless: nothing drawn)",
                  data_display, data_display_fields, NULL, NULL, NULL);
