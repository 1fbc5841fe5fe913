/* managers.c - SOFA's rendering passes and visual managers
 * (OrderIndependentTransparencyManager, PostProcessManager,
 * CompositingVisualLoop, VisualManagerPass, VisualManagerSecondaryPass,
 * OglRenderingSRGB). Headless: data kept; shader files the scene names that
 * cannot be found are warnings. */
#include "shader.h"

typedef struct visual_manager {
    st_component base;
    double depth_scale, z_near, z_far, factor;
    char *vert_filename, *frag_filename, *output_name;
    bool render_to_screen;
    st_array input_tags, output_tags;
    st_component *shader;
} visual_manager;

#define S visual_manager
static const st_field oit_fields[] = {
    IGN_REAL(S, depth_scale, "depthScale", "0.01", "Depth scale"), ST_FIELD_END};
static const st_field post_process_fields[] = {
    IGN_REAL(S, z_near, "zNear", "1", "Near distance of the depth buffer"),
    IGN_REAL(S, z_far, "zFar", "100", "Far distance of the depth buffer"), ST_FIELD_END};
static const st_field compositing_fields[] = {
    IGN_STRING(S, vert_filename, "vertFilename", "shaders/compositing.vert",
               "Vertex shader file of the compositing"),
    IGN_STRING(S, frag_filename, "fragFilename", "shaders/compositing.frag",
               "Fragment shader file of the compositing"),
    ST_FIELD_END};
#define PASS_FIELDS                                                                               \
    IGN_REAL(S, factor, "factor", "1", "Resolution factor of the pass's output"),                 \
        IGN_BOOL(S, render_to_screen, "renderToScreen", "false",                                  \
                 "Show this pass on screen (one pass of the scene at most)"),                     \
        IGN_STRING(S, output_name, "outputName", "", "Name of the output texture")
static const st_field pass_fields[] = {PASS_FIELDS, ST_FIELD_END};
static const st_field secondary_pass_fields[] = {
    PASS_FIELDS,
    IGN_STRINGS(S, input_tags, "input_tags", NULL, "Tags of the passes used as source textures"),
    IGN_STRINGS(S, output_tags, "output_tags", NULL,
                "Tag of the output, when another secondary pass reads it"),
    IGN_STRING(S, frag_filename, "fragFilename", "", "Fragment shader file of the pass"),
    IGN_LINK(S, shader, "shader", ST_LINK_ANY, "Shader used for the compositing"),
    ST_FIELD_END};
static const st_field no_fields[] = {ST_FIELD_END};
#undef S

static const char *const compositing_files[] = {"vertFilename", "fragFilename", NULL};
static const char *const secondary_files[] = {"fragFilename", NULL};

static ST_HEADLESS_CLASS(oit_class, "OrderIndependentTransparencyManager", "Shader",
                         "Order-independent transparency, with OglOITShader (headless: data kept)",
                         visual_manager, oit_fields, NULL, NULL, NULL);
static ST_HEADLESS_CLASS(post_process_class, "PostProcessManager", "Shader",
                         "A post-processing pass (headless: data kept)", visual_manager,
                         post_process_fields, NULL, NULL, NULL);
static ST_HEADLESS_CLASS(compositing_class, "CompositingVisualLoop", "Shader",
                         "Multi-pass visual loop with a compositing shader (headless: data kept, "
                         "nothing rendered)",
                         visual_manager, compositing_fields, NULL, NULL, compositing_files);
static ST_HEADLESS_CLASS(pass_class, "VisualManagerPass", "Shader",
                         "Renders the tagged objects into a frame buffer (headless: data kept)",
                         visual_manager, pass_fields, NULL, NULL, NULL);
static ST_HEADLESS_CLASS(secondary_pass_class, "VisualManagerSecondaryPass", "Shader",
                         "Chains rendering passes for compositing (headless: data kept)",
                         visual_manager, secondary_pass_fields, NULL, NULL, secondary_files);
static ST_HEADLESS_CLASS(srgb_class, "OglRenderingSRGB", "Shader",
                         "Renders into an sRGB frame buffer (headless: nothing rendered)",
                         visual_manager, no_fields, NULL, NULL, NULL);

const st_headless_class *const shader_manager_classes[] = {
    &oit_class, &post_process_class, &compositing_class, &pass_class, &secondary_pass_class,
    &srgb_class};
const size_t shader_manager_count =
    sizeof shader_manager_classes / sizeof shader_manager_classes[0];
