/* plugin.c - the headless Visual plugin: components that only draw in SOFA
 * (VisualStyle, OglModel) load, keep their data and do nothing, so that
 * SOFA scenes run unchanged. */
#include <settee/settee.h>

extern const st_class visual_style_class, ogl_model_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &visual_style_class, err));
    ST_TRY(st_registry_add(r, &ogl_model_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Visual", "Sofa.GL.Component.Rendering3D",
                                       NULL};

ST_PLUGIN_DEFINE("Visual", "0.1.0",
                 "Headless visual components (VisualStyle, OglModel): data kept, nothing drawn",
                 "LGPL-2.1-or-later", provides, register_classes)
