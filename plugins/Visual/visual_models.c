/* visual_models.c - SOFA's small drawing components of Sofa.Component.Visual
 * (VisualBoundingBox, CylinderVisualModel, VisualTransform, TrailRenderer,
 * VisualPointCloud, VisualVectorField, VisualMesh). Headless each keeps and
 * checks its data; nothing is drawn. Their positions are Vec3 (a template
 * other than Vec3d is refused by the kernel), but VisualPointCloud's, which
 * follow its template as SOFA's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/options.h"

/* SOFA's ColorMap presets, spelled as SOFA spells them ("Red to Yello"). */
static const char *const colour_map_presets[] = {
    "Red to Blue",    "Blue to Red",     "Yellow to Cyan", "Cyan to Yellow", "Red to Yello",
    "Yellow to Red",  "Yellow to Green", "Green to Yellow", "Green to Cyan", "Cyan to Green",
    "Cyan to Blue",   "Blue to Cyan",    "Red",           "RedInv",          "Green",
    "GreenInv",       "Blue",            "BlueInv",       "HSV",             NULL};

/* A ColorMap field: a preset name, or its entries as SOFA's RGBAColor
 * reads them: four reals, "#rgb[a]" / "#rrggbb[aa]", or a colour name
 * ("#ffffff00 orange navy"). */
static st_status check_colour_map(st_component *c, const char *field, st_error *err)
{
    const char *v = *(char **)st_component_field_ptr(c, st_component_field(c, field));
    size_t reals = 0;
    bool bad_word = false;
    const char *p = v ? v : "";
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        const char *t = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n')
            p++;
        size_t len = (size_t)(p - t);
        if (*t == '#') {
            size_t nd = len - 1, k = 1;
            while (k < len && strchr("0123456789abcdefABCDEF", t[k]))
                k++;
            if (k != len || !(nd == 3 || nd == 4 || nd == 6 || nd == 8))
                return st_component_error(c, field, err, ST_EINVAL,
                                          "'%.*s' is not a colour (#rgb, #rgba, #rrggbb or "
                                          "#rrggbbaa)",
                                          (int)(len > 40 ? 40 : len), t);
            continue;
        }
        char *end;
        (void)strtod(t, &end);
        if (end == p) {
            reals++;
            continue;
        }
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), t);
        if (!st_colour_by_name(name, NULL))
            bad_word = true;
    }
    /* A word that is no colour name: the value must be a preset ("Red to
     * Blue"), with a suggestion when it is not. */
    if (bad_word) {
        const st_option_field table[] = {{field, colour_map_presets}, {NULL, NULL}};
        return st_options_check(c, table, err);
    }
    if (reals % 4)
        return st_component_error(c, field, err, ST_EINVAL,
                                  "expects a colour map: a preset name (HSV, Red to Blue, ...) or "
                                  "colours (r g b a, #rrggbb or a name), got %zu reals",
                                  reals);
    return ST_OK;
}

/* ---- VisualBoundingBox ---- */
typedef struct visual_bounding_box {
    st_component base;
    bool enable;
    st_vec4 color;
    double thickness;
} visual_bounding_box;

#define S visual_bounding_box
static const st_field visual_bounding_box_fields[] = {
    IGN_ENABLE(S),
    IGN_RGBA(S, color, "color", "1 1 0 1", "Colour of the lines of the box"),
    IGN_REAL(S, thickness, "thickness", "1", "Thickness of the lines of the box"),
    ST_FIELD_END};
#undef S
ST_HEADLESS_CLASS(visual_bounding_box_class, "VisualBoundingBox", "Visual",
                  "Draws an axis-aligned bounding box (headless: nothing drawn)",
                  visual_bounding_box, visual_bounding_box_fields, NULL, NULL, NULL);

/* ---- CylinderVisualModel ---- */
typedef struct cylinder_visual_model {
    st_component base;
    bool enable;
    double radius;
    st_vec4 color;
    st_array edges;
} cylinder_visual_model;

#define S cylinder_visual_model
static const st_field cylinder_visual_model_fields[] = {
    IGN_ENABLE(S),
    IGN_REAL(S, radius, "radius", "1", "Radius of the cylinders"),
    IGN_RGBA(S, color, "color", "1 1 1 1", "Colour of the cylinders"),
    IGN_EDGES(S, edges, "edges", NULL, "Edges drawn as cylinders (indices into the positions)"),
    ST_FIELD_END};
#undef S
ST_HEADLESS_CLASS(cylinder_visual_model_class, "CylinderVisualModel", "Visual",
                  "Draws a set of edges as cylinders (headless: nothing drawn)",
                  cylinder_visual_model, cylinder_visual_model_fields, NULL, NULL, NULL);

/* ---- VisualTransform ---- */
typedef struct visual_transform {
    st_component base;
    bool enable, recursive;
    st_array transform; /* a Rigid3 coordinate: x y z qx qy qz qw */
} visual_transform;

#define S visual_transform
static const st_field visual_transform_fields[] = {
    IGN_ENABLE(S),
    IGN_REALS(S, transform, "transform", "0 0 0 0 0 0 1",
              "Transformation to apply when drawing: a Rigid3 coordinate (x y z qx qy qz qw)"),
    IGN_BOOL(S, recursive, "recursive", "false", "Apply the transformation to all nodes below"),
    ST_FIELD_END};
#undef S
static const st_value_check visual_transform_checks[] = {{"transform", 0, 7, ST_CHECK_REAL},
                                                         {NULL, 0, 0, 0}};
ST_HEADLESS_CLASS(visual_transform_class, "VisualTransform", "Visual",
                  "Applies a rigid transformation to the drawing of a subtree (headless: nothing "
                  "drawn, positions unchanged)",
                  visual_transform, visual_transform_fields, NULL, visual_transform_checks, NULL);

/* ---- TrailRenderer ---- */
typedef struct trail_renderer {
    st_component base;
    bool enable;
    st_array position; /* vec3 x n */
    unsigned nb_steps;
    char *color;       /* a ColorMap */
    double thickness;
} trail_renderer;

#define S trail_renderer
static const st_field trail_renderer_fields[] = {
    IGN_ENABLE(S),
    IGN_VEC3S(S, position, "position", NULL, "Positions of the particles followed by a trail"),
    IGN_UINT(S, nb_steps, "nbSteps", "100", "Number of time steps the trail spans"),
    IGN_STRING(S, color, "color", "0 1 0 1 0 1 0 1",
               "Colour map of the trail: a preset name (HSV, Red to Blue, ...) or colours as "
               "r g b a (default: green)"),
    IGN_REAL(S, thickness, "thickness", "1", "Thickness of the trail"),
    ST_FIELD_END};
#undef S

static st_status trail_renderer_init(st_component *self, st_error *err)
{
    ST_TRY(check_colour_map(self, "color", err));
    return st_headless_init(self, err);
}

const st_class trail_renderer_class = {
    .struct_size = sizeof(st_class),
    .name = "TrailRenderer",
    .category = "Visual",
    .description = "Draws a trail behind particles (headless: nothing drawn)",
    .instance_size = sizeof(trail_renderer),
    .fields = trail_renderer_fields,
    .init = trail_renderer_init,
    .reinit = trail_renderer_init,
};

/* ---- VisualPointCloud ---- */
/* SOFA's VisualPointCloud is templated on the state type (Vec1d, Vec2d,
 * Vec3d, Rigid2d, Rigid3d): its position holds that type's coordinates
 * (settee has no Rigid2d), and drawMode Frame is for the rigid ones. */
typedef struct visual_point_cloud {
    st_component base;
    bool enable, show_indices;
    st_array position, sphere_radius;
    char *draw_mode;
    double point_size, indices_scale;
    st_vec4 color, indices_color;
} visual_point_cloud;

#define S visual_point_cloud
static const st_field visual_point_cloud_fields[] = {
    IGN_ENABLE(S),
    ST_IGNORED(S, position, "position", ST_T_COORDS, st_array, NULL,
               "The position of the points to display (coordinates of the template's type)"),
    IGN_STRING(S, draw_mode, "drawMode", "Point",
               "Draw mode: Point or Sphere (Frame only for rigid templates)"),
    IGN_REAL(S, point_size, "pointSize", "1", "Size of the points and frames"),
    IGN_REALS(S, sphere_radius, "sphereRadius", NULL, "Radius of each sphere"),
    IGN_RGBA(S, color, "color", "1 1 1 1", "Colour of the points"),
    IGN_BOOL(S, show_indices, "showIndices", "false", "Draw the index of each point"),
    IGN_REAL(S, indices_scale, "indicesScale", "1", "Scale of the indices"),
    IGN_RGBA(S, indices_color, "indicesColor", "1 1 1 1", "Colour of the indices"),
    ST_FIELD_END};
#undef S
static const char *const point_cloud_modes[] = {"Point", "Sphere", "Frame", NULL};
static const st_option_field visual_point_cloud_options[] = {{"drawMode", point_cloud_modes},
                                                             {NULL, NULL}};
static const char *const visual_point_cloud_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Rigid3d",
                                                           NULL};

static st_status visual_point_cloud_init(st_component *c, st_error *err)
{
    visual_point_cloud *v = (visual_point_cloud *)c;
    const st_state_type *t = st_component_state_type(c);
    if (v->draw_mode && strcmp(v->draw_mode, "Frame") == 0 && !(t && t->rigid))
        return st_component_error(c, "drawMode", err, ST_EINVAL,
                                  "drawMode Frame needs a rigid template (Rigid3d), this one is "
                                  "%s",
                                  t ? t->name : "Vec3d");
    return st_headless_class_init(c, err);
}

const st_headless_class visual_point_cloud_class = {
    {.struct_size = sizeof(st_class),
     .name = "VisualPointCloud",
     .category = "Visual",
     .description = "Draws a point cloud (headless: nothing drawn)",
     .instance_size = sizeof(visual_point_cloud),
     .fields = visual_point_cloud_fields,
     .templates = visual_point_cloud_templates,
     .init = visual_point_cloud_init,
     .reinit = visual_point_cloud_init},
    visual_point_cloud_options,
    NULL,
    NULL};

/* ---- VisualVectorField ---- */
typedef struct visual_vector_field {
    st_component base;
    bool enable;
    st_array position, vector; /* vec3 x n each */
    double vector_scale;
    char *draw_mode;
    st_vec4 color;
} visual_vector_field;

#define S visual_vector_field
static const st_field visual_vector_field_fields[] = {
    IGN_ENABLE(S),
    IGN_VEC3S(S, position, "position", NULL, "Start point of each vector"),
    IGN_VEC3S(S, vector, "vector", NULL, "The vectors to draw"),
    IGN_REAL(S, vector_scale, "vectorScale", "1", "Scale applied to the vectors when drawn"),
    IGN_STRING(S, draw_mode, "drawMode", "Line", "Draw mode: Line, Cylinder or Arrow"),
    IGN_RGBA(S, color, "color", "1 1 1 1", "Colour of the vectors"),
    ST_FIELD_END};
#undef S
static const char *const vector_field_modes[] = {"Line", "Cylinder", "Arrow", NULL};
static const st_option_field visual_vector_field_options[] = {{"drawMode", vector_field_modes},
                                                              {NULL, NULL}};
ST_HEADLESS_CLASS(visual_vector_field_class, "VisualVectorField", "Visual",
                  "Draws a vector field (headless: nothing drawn)", visual_vector_field,
                  visual_vector_field_fields, visual_vector_field_options, NULL, NULL);

/* ---- VisualMesh ---- */
typedef struct visual_mesh {
    st_component base;
    bool enable, lighting;
    st_array position, vertex_values;
    double element_space;
    char *color_map;
    st_component *topology;
} visual_mesh;

#define S visual_mesh
static const st_field visual_mesh_fields[] = {
    IGN_ENABLE(S),
    IGN_VEC3S(S, position, "position", NULL, "Positions of the vertices of the mesh"),
    ST_FIELD_EX(S, element_space, "elementSpace", ST_T_REAL, double, "0.15",
                "Space between the elements when drawn, in [0, 1]", ST_F_IGNORED, NULL, 0.0, 1.0),
    IGN_BOOL(S, lighting, "lighting", "true", "Light the mesh"),
    IGN_REALS(S, vertex_values, "vertexValues", NULL,
              "Optional value per vertex, drawn through the colour map"),
    IGN_STRING(S, color_map, "colorMap", "HSV",
               "Colour map of the vertex values: a preset name or colours as r g b a"),
    IGN_LINK(S, topology, "topology", ST_LINK_TOPOLOGY, "Topology holding the elements"),
    ST_FIELD_END};
#undef S

static st_status visual_mesh_init(st_component *self, st_error *err)
{
    ST_TRY(check_colour_map(self, "colorMap", err));
    return st_headless_init(self, err);
}

const st_class visual_mesh_class = {
    .struct_size = sizeof(st_class),
    .name = "VisualMesh",
    .category = "Visual",
    .description = "Draws the elements of a topology (headless: nothing drawn)",
    .instance_size = sizeof(visual_mesh),
    .fields = visual_mesh_fields,
    .init = visual_mesh_init,
    .reinit = visual_mesh_init,
};
