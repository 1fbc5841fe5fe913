/* abi_major.c - test plugin "TestAbiMajor": a descriptor written by hand
 * for the next ABI major, which the loader must refuse. */
#include <settee/settee.h>

static st_status reg(st_registry *r, st_error *err)
{
    (void)r;
    return st_error_set(err, ST_EINTERNAL, "TestAbiMajor must never be registered");
}

ST_API extern const st_plugin_desc st_plugin_descriptor;
const st_plugin_desc st_plugin_descriptor = {
    ST_ABI_MAJOR + 1, ST_ABI_MINOR, sizeof(st_plugin_desc), "TestAbiMajor", "0.0.1",
    "Built for a future ABI major", "MIT", NULL, reg};
