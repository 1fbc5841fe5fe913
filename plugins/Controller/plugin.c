/* plugin.c - the Controller plugin: SOFA's Sofa.Component.Controller
 * (MechanicalStateController). */
#include <settee/settee.h>

extern const st_class mechanical_state_controller_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    return st_registry_add(r, &mechanical_state_controller_class, err);
}

static const char *const provides[] = {"Sofa.Component.Controller", NULL};

ST_PLUGIN_DEFINE("Controller", "0.1.0", "User controllers of mechanical states",
                 "LGPL-2.1-or-later", provides, register_classes)
