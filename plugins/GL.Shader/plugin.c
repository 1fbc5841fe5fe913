/* plugin.c - SOFA's Sofa.GL.Component.Shader, headless: shaders, their
 * uniforms and attributes, textures, lights and rendering passes load with
 * all their data, checked and kept; nothing is compiled or drawn. */
#include "shader.h"

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_headless_register(r, shader_variable_classes, shader_variable_count, err));
    ST_TRY(st_headless_register(r, shader_light_classes, shader_light_count, err));
    ST_TRY(st_headless_register(r, shader_texture_classes, shader_texture_count, err));
    ST_TRY(st_headless_register(r, shader_manager_classes, shader_manager_count, err));
    for (size_t i = 0; i < shader_program_count; i++)
        ST_TRY(st_registry_add(r, shader_program_classes[i], err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.GL.Component.Shader", NULL};

ST_PLUGIN_DEFINE("GL.Shader", "0.1.0",
                 "SOFA's shader components (shaders, shader variables and attributes, lights, textures, "
                 "passes), "
                 "headless: data kept, nothing compiled or drawn",
                 "LGPL-2.1-or-later", provides, register_classes)
