/* abi_older_minor.c - test plugin "TestAbiOlderMinor": built for an older
 * ABI minor than the kernel's, which must load. While ST_ABI_MINOR is 0
 * there is no older minor, so it is built for the kernel's own minor (which
 * must load too). */
#include <settee/settee.h>

#if ST_ABI_MINOR > 0
#define TEST_MINOR (ST_ABI_MINOR - 1)
#else
#define TEST_MINOR ST_ABI_MINOR
#endif

static const st_class older_class = {
    .struct_size = sizeof(st_class),
    .name = "TestOlderMinorDummy",
    .category = "Misc",
    .description = "A component of a plugin built for an older ABI minor",
    .instance_size = sizeof(st_component),
};

static st_status reg(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &older_class, err));
    return ST_OK;
}

ST_API extern const st_plugin_desc st_plugin_descriptor;
const st_plugin_desc st_plugin_descriptor = {
    ST_ABI_MAJOR, TEST_MINOR, sizeof(st_plugin_desc), "TestAbiOlderMinor", "0.0.1",
    "Built for an older (or the same) ABI minor", "MIT", NULL, reg};
