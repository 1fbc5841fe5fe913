/* abi_newer_minor.c - test plugin "TestAbiNewerMinor": a descriptor written
 * by hand for a newer ABI minor than the kernel's, which the loader must
 * refuse. It provides a module name so that the provides scan meets it. */
#include <settee/settee.h>

static st_status reg(st_registry *r, st_error *err)
{
    (void)r;
    return st_error_set(err, ST_EINTERNAL, "TestAbiNewerMinor must never be registered");
}

static const char *const provides[] = {"Sofa.Component.Testing.Newer", NULL};
ST_API extern const st_plugin_desc st_plugin_descriptor;
const st_plugin_desc st_plugin_descriptor = {
    ST_ABI_MAJOR, ST_ABI_MINOR + 1, sizeof(st_plugin_desc), "TestAbiNewerMinor", "0.0.1",
    "Built for a newer ABI minor", "MIT", provides, reg};
