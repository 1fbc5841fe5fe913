/* lights.c - SOFA's lights: LightManager and the DirectionalLight,
 * PositionalLight and SpotLight it collects. Headless: data kept and
 * checked, nothing lit. The three lights share one instance struct and
 * SOFA's Light data rows. */
#include "shader.h"

typedef struct light {
    st_component base;
    bool enable, draw_source, shadows_enabled, soft_shadows;
    st_vec4 color;
    unsigned shadow_texture_size, texture_unit;
    double z_near, z_far, shadow_factor, vsm_light_bleeding, vsm_min_variance;
    st_array model_view_matrix, projection_matrix; /* 16 reals each */
    /* DirectionalLight, SpotLight */
    st_vec3 direction;
    /* PositionalLight, SpotLight */
    bool fixed;
    st_vec3 position;
    double attenuation;
    /* SpotLight */
    double cutoff, exponent;
    bool lookat;
} light;

#define S light
#define LIGHT_FIELDS                                                                              \
    IGN_ENABLE(S), IGN_RGBA(S, color, "color", "1 1 1 1", "Colour of the light"),                 \
        IGN_UINT(S, shadow_texture_size, "shadowTextureSize", "0",                                \
                 "[Shadowing] Size of the shadow texture"),                                       \
        IGN_BOOL(S, draw_source, "drawSource", "false", "Draw the light source"),                 \
        IGN_REAL(S, z_near, "zNear", "0", "[Shadowing] Near plane of the light's view"),          \
        IGN_REAL(S, z_far, "zFar", "0", "[Shadowing] Far plane of the light's view"),             \
        IGN_BOOL(S, shadows_enabled, "shadowsEnabled", "true",                                    \
                 "[Shadowing] This light casts shadows"),                                         \
        IGN_BOOL(S, soft_shadows, "softShadows", "false", "[Shadowing] Soft shadows"),            \
        IGN_REAL(S, shadow_factor, "shadowFactor", "1", "[Shadowing] Darkness of the shadows"),   \
        IGN_REAL(S, vsm_light_bleeding, "VSMLightBleeding", "0.05",                               \
                 "[Shadowing] (VSM only) Light bleeding parameter"),                              \
        IGN_REAL(S, vsm_min_variance, "VSMMinVariance", "0.001",                                  \
                 "[Shadowing] (VSM only) Minimum variance parameter"),                            \
        IGN_UINT(S, texture_unit, "textureUnit", "1",                                             \
                 "[Shadowing] Texture unit of the shadow texture"),                               \
        IGN_REALS(S, model_view_matrix, "modelViewMatrix", NULL,                                  \
                  "[Shadowing] Model-view matrix (16 reals)"),                                    \
        IGN_REALS(S, projection_matrix, "projectionMatrix", NULL,                                 \
                  "[Shadowing] Projection matrix (16 reals)")
#define POSITIONAL_FIELDS                                                                         \
    IGN_BOOL(S, fixed, "fixed", "false", "Fix the light's position relative to the camera"),      \
        IGN_VEC3(S, position, "position", "-0.7 0.3 0", "Position of the light"),                 \
        IGN_REAL(S, attenuation, "attenuation", "0", "Attenuation of the light")

static const st_field directional_fields[] = {
    LIGHT_FIELDS, IGN_VEC3(S, direction, "direction", "0 0 -1", "Direction of the light"),
    ST_FIELD_END};
static const st_field positional_fields[] = {LIGHT_FIELDS, POSITIONAL_FIELDS, ST_FIELD_END};
static const st_field spot_fields[] = {
    LIGHT_FIELDS,
    POSITIONAL_FIELDS,
    IGN_VEC3(S, direction, "direction", "0 0 -1", "Direction of the light"),
    IGN_REAL(S, cutoff, "cutoff", "30", "Half angle of the spot's cone, in degrees"),
    IGN_REAL(S, exponent, "exponent", "1", "Exponent of the spot's falloff"),
    IGN_BOOL(S, lookat, "lookat", "false",
             "direction is the point the spot looks at rather than a direction"),
    ST_FIELD_END};
#undef S

static const st_value_check light_checks[] = {{"modelViewMatrix", 0, 16, ST_CHECK_REAL},
                                              {"projectionMatrix", 0, 16, ST_CHECK_REAL},
                                              {NULL, 0, 0, 0}};

static ST_HEADLESS_CLASS(directional_light, "DirectionalLight", "Shader",
                         "A light with parallel rays (headless: nothing lit)", light,
                         directional_fields, NULL, light_checks, NULL);
static ST_HEADLESS_CLASS(positional_light, "PositionalLight", "Shader",
                         "A point light (headless: nothing lit)", light, positional_fields, NULL,
                         light_checks, NULL);
static ST_HEADLESS_CLASS(spot_light, "SpotLight", "Shader", "A spot light (headless: nothing lit)",
                         light, spot_fields, NULL, light_checks, NULL);

typedef struct light_manager {
    st_component base;
    bool shadows, soft_shadows, debug_draw;
    st_vec4 ambient;
} light_manager;

#define S light_manager
static const st_field light_manager_fields[] = {
    IGN_BOOL(S, shadows, "shadows", "false", "Enable shadows in the scene"),
    IGN_BOOL(S, soft_shadows, "softShadows", "false",
             "With shadows, variance soft shadows"),
    IGN_RGBA(S, ambient, "ambient", "0 0 0 1", "Ambient light"),
    IGN_BOOL(S, debug_draw, "debugDraw", "false", "Draw the lights' shadow textures"),
    ST_FIELD_END};
#undef S

static ST_HEADLESS_CLASS(light_manager_class, "LightManager", "Shader",
                         "Manages the lights of the scene and their shadows (headless: nothing lit)",
                         light_manager, light_manager_fields, NULL, NULL, NULL);

const st_headless_class *const shader_light_classes[] = {&light_manager_class, &directional_light,
                                                         &positional_light, &spot_light};
const size_t shader_light_count = sizeof shader_light_classes / sizeof shader_light_classes[0];
