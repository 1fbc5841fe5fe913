/* dup_b.c - test plugin "TestDupB": registers TestDupBOnly, then the class
 * TestDuplicate that TestDupA already registered. */
#include <settee/settee.h>

static const st_class only_class = {
    .struct_size = sizeof(st_class),
    .name = "TestDupBOnly",
    .category = "Misc",
    .description = "Registered by TestDupB before its duplicate",
    .instance_size = sizeof(st_component),
};

static const st_class dup_class = {
    .struct_size = sizeof(st_class),
    .name = "TestDuplicate",
    .category = "Misc",
    .description = "Registered by TestDupA and TestDupB",
    .instance_size = sizeof(st_component),
};

static st_status reg(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &only_class, err));
    ST_TRY(st_registry_add(r, &dup_class, err));
    return ST_OK;
}

ST_PLUGIN_DEFINE("TestDupB", "0.0.1", "Second owner of TestDuplicate", "MIT", NULL, reg)
