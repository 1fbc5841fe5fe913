/* ogl_fluid_model.c - OglFluidModel (SOFA's SofaSphFluid): draws a fluid's
 * particles as screen-space sprites, blurred and shaded (SOFA renders them
 * through framebuffers and shaders). Headless: its data are kept (its
 * `position`, usually linked to the fluid state's, is read like any
 * linked data), nothing is drawn. It follows the topology of its context
 * (particles come and go with a ParticleSource or ParticleSink): nothing
 * it keeps is indexed by the particles but the positions it would draw,
 * which nothing reads headless. Template: Vec3d, SOFA's one. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct ogl_fluid_model {
    st_component base;
    st_array position;
    unsigned debug_fbo;
    double sprite_radius, sprite_thickness, sprite_blur_radius, sprite_blur_scale,
        sprite_blur_depth_falloff;
    st_vec4 sprite_diffuse_color;
} ogl_fluid_model;

#define S ogl_fluid_model
static const st_field ofm_fields[] = {
    ST_VEC3S(S, position, "position", NULL, "Vertices coordinates"),
    IGN_UINT(S, debug_fbo, "debugFBO", "9", "DEBUG FBO"),
    IGN_REAL(S, sprite_radius, "spriteRadius", "1", "Radius of sprites"),
    IGN_REAL(S, sprite_thickness, "spriteThickness", "0.01", "Thickness of sprites"),
    IGN_REAL(S, sprite_blur_radius, "spriteBlurRadius", "10", "Blur radius (in pixels)"),
    IGN_REAL(S, sprite_blur_scale, "spriteBlurScale", "0.1", "Blur scale"),
    IGN_REAL(S, sprite_blur_depth_falloff, "spriteBlurDepthFalloff", "1", "Blur Depth Falloff"),
    IGN_RGBA(S, sprite_diffuse_color, "spriteDiffuseColor", "0 0 1 1", "Diffuse Color"),
    ST_FIELD_END};
#undef S

static st_status ofm_changed(st_component *owner, st_component *topology,
                             const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)owner, (void)topology, (void)ev, (void)nev, (void)err;
    return ST_OK;
}

static st_status ofm_init(st_component *self, st_error *err)
{
    st_component *topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (topo)
        ST_TRY(st_topology_listen(self, topo, ofm_changed, err));
    return st_headless_init(self, err);
}

static const char *const ofm_templates[] = {"Vec3d", NULL};

const st_class ogl_fluid_model_class = {
    .struct_size = sizeof(st_class),
    .name = "OglFluidModel",
    .category = "Visual",
    .description = "Renders a fluid's particles as blurred, shaded sprites (headless: nothing "
                   "drawn)",
    .instance_size = sizeof(ogl_fluid_model),
    .fields = ofm_fields,
    .init = ofm_init,
    .templates = ofm_templates,
};
