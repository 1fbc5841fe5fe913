/* abi_small.c - test plugin "TestAbiSmall": a descriptor whose struct_size
 * is smaller than the fields every descriptor must have. */
#include <settee/settee.h>

static st_status reg(st_registry *r, st_error *err)
{
    (void)r;
    return st_error_set(err, ST_EINTERNAL, "TestAbiSmall must never be registered");
}

ST_API extern const st_plugin_desc st_plugin_descriptor;
const st_plugin_desc st_plugin_descriptor = {
    ST_ABI_MAJOR, ST_ABI_MINOR, 3 * sizeof(uint32_t), "TestAbiSmall", "0.0.1",
    "A truncated descriptor", "MIT", NULL, reg};
