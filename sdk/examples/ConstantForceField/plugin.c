/* plugin.c - the descriptor of the example plugin Example.MechanicalLoad:
 * SOFA's ConstantForceField as ExampleConstantForceField, built out of tree
 * against the installed SDK. */
#include <settee/settee.h>

extern const st_class constant_force_field_class;

#ifndef SETTEE_PLUGIN_NAME
#error "build with settee_add_plugin() or -DSETTEE_PLUGIN_NAME=\"Example.MechanicalLoad\""
#endif
#ifndef SETTEE_PLUGIN_VERSION
#define SETTEE_PLUGIN_VERSION "0.1.0"
#endif

static st_status example_register(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &constant_force_field_class, err));
    return ST_OK;
}

ST_PLUGIN_DEFINE(SETTEE_PLUGIN_NAME, SETTEE_PLUGIN_VERSION,
                 "Example plugin: SOFA's ConstantForceField", "MIT", NULL, example_register)
