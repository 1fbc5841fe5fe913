/* dup_a.c - test plugin "TestDupA": registers the class TestDuplicate, which
 * TestDupB registers too. */
#include <settee/settee.h>

static const st_class dup_class = {
    .struct_size = sizeof(st_class),
    .name = "TestDuplicate",
    .category = "Misc",
    .description = "Registered by TestDupA and TestDupB",
    .instance_size = sizeof(st_component),
};

static st_status reg(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &dup_class, err));
    return ST_OK;
}

ST_PLUGIN_DEFINE("TestDupA", "0.0.1", "First owner of TestDuplicate", "MIT", NULL, reg)
