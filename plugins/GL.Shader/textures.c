/* textures.c - SOFA's OglTexture, OglTexture2D and OglTexturePointer.
 * Headless: data kept; a texture file the scene names that cannot be found
 * is a warning (nothing reads it). */
#include "shader.h"

typedef struct ogl_texture {
    st_component base;
    bool enable;
    char *id;
    unsigned index_shader;
    char *filename, *texture2d_filename;
    char *cubemap[6];
    unsigned texture_unit, procedural_width, procedural_height, procedural_nb_bits;
    bool enabled, repeat, linear_interpolation, generate_mipmaps, srgb_colorspace;
    double min_lod, max_lod;
    st_array procedural_data;
    st_component *ogl_texture; /* OglTexturePointer */
} ogl_texture;

#define S ogl_texture
#define CUBE(i, key, face) IGN_STRING(S, cubemap[i], key, "", "Texture file of the " face " face")
#define TEXTURE_FIELDS                                                                            \
    IGN_ENABLE(S), SHADER_ELEMENT_FIELDS(S),                                                      \
        ST_FIELD_EX(S, filename, "filename", ST_T_STRING, char *, "", "Texture file",             \
                    ST_F_IGNORED, "textureFilename", 0.0, 0.0),                                   \
        IGN_UINT(S, texture_unit, "textureUnit", "1", "Texture unit"),                            \
        IGN_BOOL(S, enabled, "enabled", "true", "Use the texture"),                               \
        IGN_BOOL(S, repeat, "repeat", "false", "Repeat the texture"),                             \
        IGN_BOOL(S, linear_interpolation, "linearInterpolation", "true",                          \
                 "Interpolate the texture linearly"),                                             \
        IGN_BOOL(S, generate_mipmaps, "generateMipmaps", "true", "Generate mipmaps"),             \
        IGN_BOOL(S, srgb_colorspace, "srgbColorspace", "false", "The texture is in sRGB"),        \
        IGN_REAL(S, min_lod, "minLod", "-1000", "Minimum mipmap level of detail"),                \
        IGN_REAL(S, max_lod, "maxLod", "1000", "Maximum mipmap level of detail"),                 \
        IGN_UINT(S, procedural_width, "proceduralTextureWidth", "0",                              \
                 "Width of a procedural texture"),                                                \
        IGN_UINT(S, procedural_height, "proceduralTextureHeight", "0",                            \
                 "Height of a procedural texture"),                                               \
        IGN_UINT(S, procedural_nb_bits, "proceduralTextureNbBits", "1",                           \
                 "Bits per colour of a procedural texture"),                                      \
        IGN_UINTS(S, procedural_data, "proceduralTextureData", NULL,                              \
                  "Data of a procedural texture"),                                                \
        CUBE(0, "cubemapFilenamePosX", "positive-x cube map"),                                    \
        CUBE(1, "cubemapFilenamePosY", "positive-y cube map"),                                    \
        CUBE(2, "cubemapFilenamePosZ", "positive-z cube map"),                                    \
        CUBE(3, "cubemapFilenameNegX", "negative-x cube map"),                                    \
        CUBE(4, "cubemapFilenameNegY", "negative-y cube map"),                                    \
        CUBE(5, "cubemapFilenameNegZ", "negative-z cube map")

static const st_field texture_fields[] = {TEXTURE_FIELDS, ST_FIELD_END};
static const st_field texture2d_fields[] = {
    TEXTURE_FIELDS,
    IGN_STRING(S, texture2d_filename, "texture2DFilename", "", "2D texture file"),
    ST_FIELD_END};
static const st_field texture_pointer_fields[] = {
    IGN_ENABLE(S),
    SHADER_ELEMENT_FIELDS(S),
    IGN_LINK(S, ogl_texture, "oglTexture", ST_LINK_ANY, "The OglTexture pointed to"),
    IGN_UINT(S, texture_unit, "textureUnit", "1", "Texture unit"),
    IGN_BOOL(S, enabled, "enabled", "true", "Use the texture"),
    ST_FIELD_END};
#undef S

static const char *const texture_files[] = {
    "filename",            "cubemapFilenamePosX", "cubemapFilenamePosY", "cubemapFilenamePosZ",
    "cubemapFilenameNegX", "cubemapFilenameNegY", "cubemapFilenameNegZ", NULL};
static const char *const texture2d_files[] = {
    "filename",            "cubemapFilenamePosX", "cubemapFilenamePosY", "cubemapFilenamePosZ",
    "cubemapFilenameNegX", "cubemapFilenameNegY", "cubemapFilenameNegZ", "texture2DFilename",
    NULL};

static ST_HEADLESS_CLASS(texture_class, "OglTexture", "Shader",
                         "A texture for a shader (headless: the file is not read)", ogl_texture,
                         texture_fields, NULL, NULL, texture_files);
static ST_HEADLESS_CLASS(texture2d_class, "OglTexture2D", "Shader",
                         "A 2D texture for a shader (headless: the file is not read)", ogl_texture,
                         texture2d_fields, NULL, NULL, texture2d_files);
static ST_HEADLESS_CLASS(texture_pointer_class, "OglTexturePointer", "Shader",
                         "Shares an OglTexture with another shader (headless: data kept)",
                         ogl_texture, texture_pointer_fields, NULL, NULL, NULL);

const st_headless_class *const shader_texture_classes[] = {&texture_class, &texture2d_class,
                                                           &texture_pointer_class};
const size_t shader_texture_count =
    sizeof shader_texture_classes / sizeof shader_texture_classes[0];
