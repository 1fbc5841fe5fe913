/* programs.c - SOFA's OglShader and its variants (OglShadowShader,
 * OglOITShader, which differ by their default shader files) and
 * OglShaderDefineMacro. Headless: data kept; shader files the scene names
 * that cannot be found are warnings, SOFA's defaults (its bundled shaders)
 * are not looked up. No shader is compiled. */
#include "shader.h"

typedef struct ogl_shader {
    st_component base;
    bool enable, turn_on, passive, backface_writing, clamp_vertex_color;
    st_array vert, frag, geo, tess_control, tess_eval; /* file names */
    int geometry_input_type, geometry_output_type, geometry_vertices_out;
    double tess_outer, tess_inner, tess_level;
    unsigned index_active_shader;
} ogl_shader;

#define S ogl_shader
/* The rows of every OglShader; VERT and FRAG are the class's default files. */
#define SHADER_FIELDS(VERT, FRAG)                                                                 \
    IGN_ENABLE(S), IGN_BOOL(S, turn_on, "turnOn", "true", "Turn the shader on"),                  \
        IGN_BOOL(S, passive, "passive", "false",                                                  \
                 "The shader is activated by another component, not automatically"),              \
        IGN_STRINGS(S, vert, "fileVertexShaders", VERT, "Vertex shader files"),                   \
        IGN_STRINGS(S, frag, "fileFragmentShaders", FRAG, "Fragment shader files"),               \
        IGN_STRINGS(S, geo, "fileGeometryShaders", NULL, "Geometry shader files"),                \
        IGN_STRINGS(S, tess_control, "fileTessellationControlShaders", NULL,                      \
                    "Tessellation control shader files"),                                         \
        IGN_STRINGS(S, tess_eval, "fileTessellationEvaluationShaders", NULL,                      \
                    "Tessellation evaluation shader files"),                                      \
        IGN_INT(S, geometry_input_type, "geometryInputType", "-1",                                \
                "Input primitive type of the geometry shader"),                                   \
        IGN_INT(S, geometry_output_type, "geometryOutputType", "-1",                              \
                "Output primitive type of the geometry shader"),                                  \
        IGN_INT(S, geometry_vertices_out, "geometryVerticesOut", "-1",                            \
                "Maximum number of vertices the geometry shader emits"),                          \
        IGN_REAL(S, tess_outer, "tessellationOuterLevel", "1",                                    \
                 "Outer tessellation level (edge subdivisions) without a control shader"),        \
        IGN_REAL(S, tess_inner, "tessellationInnerLevel", "1",                                    \
                 "Inner tessellation level (face subdivisions) without a control shader"),        \
        IGN_REAL(S, tess_level, "tessellationLevel", "1",                                         \
                 "SOFA's alias of both tessellation levels: sets tessellationOuterLevel and "     \
                 "tessellationInnerLevel"),                                                       \
        IGN_UINT(S, index_active_shader, "indexActiveShader", "0", "Index of the active shader"), \
        IGN_BOOL(S, backface_writing, "backfaceWriting", "false",                                 \
                 "Allow writing gl_BackColor in the vertex shader"),                              \
        IGN_BOOL(S, clamp_vertex_color, "clampVertexColor", "true",                               \
                 "Clamp the vertex colour to [0, 1]")

static const st_field shader_fields[] = {
    SHADER_FIELDS("shaders/toonShading.vert", "shaders/toonShading.frag"), ST_FIELD_END};
static const st_field shadow_shader_fields[] = {
    SHADER_FIELDS("shaders/hardShadows/shadowMapping.vert shaders/hardShadows/shadowMapping.vert",
                  "shaders/hardShadows/shadowMapping.frag shaders/hardShadows/shadowMapping.frag"),
    ST_FIELD_END};
static const st_field oit_shader_fields[] = {
    SHADER_FIELDS("shaders/orderIndependentTransparency/accumulation.vert",
                  "shaders/orderIndependentTransparency/accumulation.frag"),
    ST_FIELD_END};
#undef S

static const char *const shader_files[] = {
    "fileVertexShaders", "fileFragmentShaders", "fileGeometryShaders",
    "fileTessellationControlShaders", "fileTessellationEvaluationShaders", NULL};

static st_status shader_init(st_component *self, st_error *err)
{
    ogl_shader *s = (ogl_shader *)self;
    /* SOFA's alias names both levels: a scene that sets it sets both, unless
     * it also sets the level itself. */
    if (st_component_is_set(self, "tessellationLevel")) {
        if (!st_component_is_set(self, "tessellationOuterLevel"))
            s->tess_outer = s->tess_level;
        if (!st_component_is_set(self, "tessellationInnerLevel"))
            s->tess_inner = s->tess_level;
    }
    return st_headless_class_init(self, err);
}

static ST_HEADLESS_CLASS_INIT(shader_class, "OglShader", "Shader",
                              "A custom shader for the visual models of its node (headless: "
                              "no shader compiled)",
                              ogl_shader, shader_fields, NULL, NULL, shader_files, shader_init);
static ST_HEADLESS_CLASS_INIT(shadow_shader_class, "OglShadowShader", "Shader",
                              "The shaders of shadow mapping (headless: no shader compiled)",
                              ogl_shader, shadow_shader_fields, NULL, NULL, shader_files,
                              shader_init);
static ST_HEADLESS_CLASS_INIT(oit_shader_class, "OglOITShader", "Shader",
                              "The shader of order-independent transparency (headless: no shader "
                              "compiled)",
                              ogl_shader, oit_shader_fields, NULL, NULL, shader_files, shader_init);

typedef struct ogl_shader_macro {
    st_component base;
    char *id;
    unsigned index_shader;
    char *value;
} ogl_shader_macro;

#define S ogl_shader_macro
static const st_field define_macro_fields[] = {
    SHADER_ELEMENT_FIELDS(S), IGN_STRING(S, value, "value", "", "Value of the macro"),
    ST_FIELD_END};
#undef S

static ST_HEADLESS_CLASS(define_macro_class, "OglShaderDefineMacro", "Shader",
                         "Adds a #define to the shaders of its node (headless: data kept)",
                         ogl_shader_macro, define_macro_fields, NULL, NULL, NULL);

extern const st_class ogl_shader_visual_model_class;

const st_class *const shader_program_classes[] = {
    &shader_class.cls, &shadow_shader_class.cls, &oit_shader_class.cls, &define_macro_class.cls,
    &ogl_shader_visual_model_class};
const size_t shader_program_count =
    sizeof shader_program_classes / sizeof shader_program_classes[0];
