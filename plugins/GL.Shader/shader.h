/* shader.h - what the GL.Shader plugin's files share: the data of SOFA's
 * OglShaderElement (id, indexShader) and the class lists each file
 * exports. Private to the plugin. */
#ifndef SETTEE_PLUGIN_GL_SHADER_H
#define SETTEE_PLUGIN_GL_SHADER_H

#include <settee/settee.h>

#include "../shared/options.h"

/* OglShaderElement's rows: S has members `char *id` and `unsigned
 * index_shader`. */
#define SHADER_ELEMENT_FIELDS(S)                                                                  \
    IGN_STRING(S, id, "id", "", "Name of the shader parameter"),                                  \
        IGN_UINT(S, index_shader, "indexShader", "0",                                             \
                 "Index of the shader (of an OglShader with several) this parameter applies to")

/* The classes of each file, and their counts. */
extern const st_headless_class *const shader_variable_classes[];
extern const size_t shader_variable_count;
extern const st_headless_class *const shader_light_classes[];
extern const size_t shader_light_count;
extern const st_headless_class *const shader_texture_classes[];
extern const size_t shader_texture_count;
extern const st_headless_class *const shader_manager_classes[];
extern const size_t shader_manager_count;
extern const st_class *const shader_program_classes[];
extern const size_t shader_program_count;

#endif
