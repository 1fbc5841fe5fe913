/* plugin.c - SofaPython3: registers the Python component classes and the
 * reader of Python scenes (".py": SofaPython3's createScene(root)). */
#include "sofapython3.h"

static st_status reg(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &sp3_controller_class, err));
    ST_TRY(st_registry_add(r, &sp3_forcefield_class, err));
    ST_TRY(st_registry_add(r, &sp3_script_class, err));
    ST_TRY(st_registry_add(r, &sp3_engine_class, err));
    ST_TRY(st_registry_add(r, &sp3_mapping_class, err));
    return st_registry_add_reader(r, &sp3_py_reader, err);
}

static const char *const provides[] = {"SofaPython3", "SofaPython", NULL};
ST_PLUGIN_DEFINE("SofaPython3", "0.1.0",
                 "Python scenes (createScene) and Python components (controllers, force fields, "
                 "data engines, mappings)",
                 "LGPL-2.1-or-later", provides, reg)
