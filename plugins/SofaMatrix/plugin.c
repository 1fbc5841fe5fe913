/* plugin.c - the SofaMatrix plugin: SOFA's components that show or export
 * the global matrices. settee has GlobalSystemMatrixImage, headless (the
 * scenes that name it load and run; Python reads the matrices). It answers
 * to SofaMatrix.Qt too, the GUI extension SOFA scenes require for it. */
#include <settee/settee.h>

extern const st_class global_system_matrix_image_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    return st_registry_add(r, &global_system_matrix_image_class, err);
}

static const char *const provides[] = {"SofaMatrix.Qt", "SofaMatrix.imgui", NULL};

ST_PLUGIN_DEFINE("SofaMatrix", "0.1.0",
                 "SOFA's SofaMatrix plugin: GlobalSystemMatrixImage (headless)",
                 "LGPL-2.1-or-later", provides, register_classes)
