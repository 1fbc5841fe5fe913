/* good.c - test plugin "TestGood": registers the trivial class TestDummy and
 * answers to the SOFA module names Sofa.Component.TestGood and
 * Sofa.Component.Testing.Provided. */
#include <settee/settee.h>

static const st_class test_dummy_class = {
    .struct_size = sizeof(st_class),
    .name = "TestDummy",
    .category = "Misc",
    .description = "A component that does nothing (plugin loader tests)",
    .instance_size = sizeof(st_component),
};

static st_status reg(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &test_dummy_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.TestGood",
                                       "Sofa.Component.Testing.Provided", NULL};
ST_PLUGIN_DEFINE("TestGood", "1.2.3", "A good test plugin", "LGPL-2.1", provides, reg)
