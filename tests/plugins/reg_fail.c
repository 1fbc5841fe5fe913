/* reg_fail.c - test plugin "TestRegFail": registers one class, then fails
 * with its own message; the loader must remove the partial registration. */
#include <settee/settee.h>

static const st_class partial_class = {
    .struct_size = sizeof(st_class),
    .name = "TestRegFailPartial",
    .category = "Misc",
    .description = "Registered before the plugin's registration fails",
    .instance_size = sizeof(st_component),
};

static st_status reg(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &partial_class, err));
    return st_error_set(err, ST_EINVAL, "TestRegFail: the test asked for a failure (code 7)");
}

ST_PLUGIN_DEFINE("TestRegFail", "0.0.1", "Registration fails", "MIT", NULL, reg)
