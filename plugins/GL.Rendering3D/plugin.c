/* plugin.c - SOFA's Sofa.GL.Component.Rendering3D, headless: OglModel keeps,
 * transforms and maps its mesh; the other components keep their data. */
#include <pthread.h>

#include <settee/settee.h>

#include "../shared/options.h"
#include "ogl_model.h"

extern const st_class ogl_model_class, ogl_scene_frame_class, clip_plane_class,
    point_splat_model_class;
extern const st_headless_class sliced_volumetric_model_class, data_display_class;

static const st_class *const classes[] = {&ogl_model_class, &ogl_scene_frame_class,
                                          &clip_plane_class, &point_splat_model_class};
static const st_headless_class *const headless[] = {&sliced_volumetric_model_class,
                                                    &data_display_class};

/* MergeVisualModels is OglModel's class with more fields, built once. */
static const st_class *merge_class;
static pthread_once_t merge_once = PTHREAD_ONCE_INIT;
static void make_merge(void) { merge_class = merge_visual_models_class(); }

static st_status register_classes(st_registry *r, st_error *err)
{
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        ST_TRY(st_registry_add(r, classes[i], err));
    pthread_once(&merge_once, make_merge);
    if (!merge_class)
        return st_error_set(err, ST_EPLUGIN, "GL.Rendering3D: MergeVisualModels does not fit "
                                             "its field table");
    ST_TRY(st_registry_add(r, merge_class, err));
    return st_headless_register(r, headless, sizeof headless / sizeof headless[0], err);
}

static const char *const provides[] = {"Sofa.GL.Component.Rendering3D", NULL};

ST_PLUGIN_DEFINE("GL.Rendering3D", "0.1.0",
                 "SOFA's 3D rendering components, headless: meshes kept, transformed and mapped, "
                 "nothing drawn",
                 "LGPL-2.1-or-later", provides, register_classes)
