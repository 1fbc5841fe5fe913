/* test_plugin.c - the plugin loader: search path and order, file naming,
 * Sofa.Component.X names, provides-based lookup, loading once, every
 * refusal (not found, not a shared object, no descriptor, ABI, failed and
 * duplicate registration), which_plugin and load_all_plugins. The test
 * plugins live in tests/plugins/ and are built into SETTEE_TEST_PLUGIN_DIR. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#define TDIR SETTEE_TEST_PLUGIN_DIR

static test_rt T;
static st_error E;

/* A runtime that searches the test plugin directory first. */
static void open_with_test_dir(void)
{
    test_rt_open(&T);
    st_error_clear(&E);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, TDIR, &E), ST_OK, "%s", E.msg);
}

static void close_rt(void) { test_rt_close(&T); }

static void assert_contains(const char *hay, const char *needle)
{
    cr_assert(strstr(hay, needle) != NULL, "expected \"%s\" in:\n%s", needle, hay);
}

static st_status load(const char *name)
{
    st_error_clear(&E);
    return st_runtime_load_plugin(T.rt, name, &E);
}

TestSuite(plugin, .init = open_with_test_dir, .fini = close_rt);

Test(plugin, short_name_maps_sofa_component_prefix)
{
    cr_assert_str_eq(st__plugin_short_name("Sofa.Component.ODESolver.Forward"),
                     "ODESolver.Forward");
    cr_assert_str_eq(st__plugin_short_name("Sofa.Component.Mass"), "Mass");
    cr_assert_str_eq(st__plugin_short_name("ODESolver.Forward"), "ODESolver.Forward");
    cr_assert_str_eq(st__plugin_short_name("Sofa.Component."), "Sofa.Component.");
    cr_assert_str_eq(st__plugin_short_name("Sofa.Simulation.Core"), "Sofa.Simulation.Core");
}

Test(plugin, good_plugin_loads_and_registers)
{
    size_t before = st_runtime_plugin_count(T.rt);
    cr_assert_eq(load("TestGood"), ST_OK, "%s", E.msg);
    cr_assert_eq(st_runtime_plugin_count(T.rt), before + 1);

    const st_plugin_info *pi = st_runtime_find_plugin(T.rt, "TestGood");
    cr_assert_not_null(pi);
    cr_assert_eq(pi, st_runtime_plugin(T.rt, before));
    cr_assert_str_eq(pi->name, "TestGood");
    cr_assert_str_eq(pi->version, "1.2.3");
    cr_assert_str_eq(pi->license, "LGPL-2.1");
    cr_assert_eq(pi->abi_major, ST_ABI_MAJOR);
    cr_assert_eq(pi->abi_minor, ST_ABI_MINOR);
    assert_contains(pi->file, "/libTestGood.so");
    cr_assert_eq(pi->file[0], '/', "file is an absolute path: %s", pi->file);
    cr_assert_not_null(pi->provides);
    cr_assert_str_eq(pi->provides[0], "Sofa.Component.TestGood");

    st_registry *reg = st_runtime_registry(T.rt);
    const st_class *cls = st_registry_find(reg, "TestDummy");
    cr_assert_not_null(cls);
    cr_assert_str_eq(st_registry_class_plugin(reg, cls), "TestGood");
    cr_assert_str_eq(st__registry_class_file(reg, cls), pi->file);

    const st_class *out[4] = {0};
    cr_assert_eq(st_runtime_plugin_classes(T.rt, "TestGood", out, 4), 1);
    cr_assert_eq(out[0], cls);
    cr_assert_eq(st_runtime_plugin_classes(T.rt, "Sofa.Component.TestGood", NULL, 0), 1);
    cr_assert_eq(st_runtime_plugin_classes(T.rt, "NotLoaded", out, 4), 0);
}

Test(plugin, loading_twice_is_a_noop)
{
    cr_assert_eq(load("TestGood"), ST_OK, "%s", E.msg);
    size_t n = st_runtime_plugin_count(T.rt);
    size_t ncls = st_registry_count(st_runtime_registry(T.rt));
    const char *again[] = {"TestGood",
                           "Sofa.Component.TestGood",
                           "Testing.Provided",
                           "Sofa.Component.Testing.Provided",
                           TDIR "/libTestGood.so",
                           TDIR "/./libTestGood.so"};
    for (size_t i = 0; i < sizeof again / sizeof *again; i++) {
        cr_assert_eq(load(again[i]), ST_OK, "%s: %s", again[i], E.msg);
        cr_assert_eq(st_runtime_plugin_count(T.rt), n, "after loading %s again", again[i]);
    }
    cr_assert_eq(st_registry_count(st_runtime_registry(T.rt)), ncls);
}

Test(plugin, sofa_component_name_maps_to_short_name)
{
    size_t before = st_runtime_plugin_count(T.rt);
    cr_assert_eq(load("Sofa.Component.TestGood"), ST_OK, "%s", E.msg);
    cr_assert_eq(st_runtime_plugin_count(T.rt), before + 1);
    const st_plugin_info *pi = st_runtime_find_plugin(T.rt, "TestGood");
    cr_assert_not_null(pi);
    assert_contains(pi->file, "/libTestGood.so");
}

Test(plugin, plugin_found_by_provided_module_name)
{
    size_t before = st_runtime_plugin_count(T.rt);
    cr_assert_null(st_runtime_find_plugin(T.rt, "Sofa.Component.Testing.Provided"));
    cr_assert_eq(load("Sofa.Component.Testing.Provided"), ST_OK, "%s", E.msg);
    /* Only the provider stays loaded; the other scanned files were closed. */
    cr_assert_eq(st_runtime_plugin_count(T.rt), before + 1);
    const st_plugin_info *pi = st_runtime_find_plugin(T.rt, "Sofa.Component.Testing.Provided");
    cr_assert_not_null(pi);
    cr_assert_str_eq(pi->name, "TestGood");
    cr_assert_not_null(st_registry_find(st_runtime_registry(T.rt), "TestDummy"));
}

/* A SOFA collection name (Sofa.Component, Sofa.GL.Component, ...) loads
 * every plugin that provides a module under it, as SOFA's collection
 * plugins load their modules; an unknown collection is still not found. */
Test(plugin, sofa_collection_loads_its_modules)
{
    cr_assert_null(st_registry_find(st_runtime_registry(T.rt), "TestDummy"));
    cr_assert_eq(load("Sofa.Component.Testing"), ST_OK, "%s", E.msg);
    cr_assert_not_null(st_registry_find(st_runtime_registry(T.rt), "TestDummy"));
    assert_contains(T.log, "Sofa.Component.Testing is a collection of SOFA modules");
    cr_assert_eq(load("Sofa.Component.Testingx"), ST_EPLUGIN);
    assert_contains(E.msg, "plugin 'Sofa.Component.Testingx'");
    /* the bundled plugins: Sofa.Component holds the Mass module */
    cr_assert_eq(load("Sofa.Component"), ST_OK, "%s", E.msg);
    cr_assert_not_null(st_registry_find(st_runtime_registry(T.rt), "UniformMass"));
}

Test(plugin, provides_scan_checks_abi_first)
{
    /* Only TestAbiNewerMinor provides this name, and its ABI is refused. */
    size_t before = st_runtime_plugin_count(T.rt);
    cr_assert_eq(load("Sofa.Component.Testing.Newer"), ST_EPLUGIN);
    assert_contains(E.msg, "not found");
    cr_assert_eq(st_runtime_plugin_count(T.rt), before);
}

Test(plugin, not_found_suggests_close_plugin_names)
{
    /* The test plugins' folder holds libTestGood.so: a one-letter slip. */
    cr_assert_eq(load("TestGod"), ST_EPLUGIN);
    assert_contains(E.msg, "plugin 'TestGod' not found (did you mean 'TestGood'");
    cr_assert_eq(load("Sofa.Component.TestGod"), ST_EPLUGIN);
    assert_contains(E.msg, "(as 'TestGod') not found (did you mean 'TestGood'");
}

Test(plugin, not_found_lists_every_path_tried)
{
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, "/nonexistent/settee-a", &E), ST_OK);
    size_t before = st_runtime_plugin_count(T.rt);
    cr_assert_eq(load("Sofa.Component.NoSuchPlugin"), ST_EPLUGIN);
    cr_assert_eq(st_runtime_plugin_count(T.rt), before);
    assert_contains(E.msg, "Sofa.Component.NoSuchPlugin");
    assert_contains(E.msg, "not found");

    const char *dirs[32];
    size_t nd = st_runtime_plugin_dirs(T.rt, dirs, 32);
    cr_assert_geq(nd, 2);
    cr_assert_str_eq(dirs[0], TDIR);
    cr_assert_str_eq(dirs[1], "/nonexistent/settee-a");
    for (size_t i = 0; i < nd && i < 32; i++) {
        char line[4096];
        snprintf(line, sizeof line, "  %s/libNoSuchPlugin.so\n", dirs[i]);
        assert_contains(E.msg, line);
        snprintf(line, sizeof line, "  %s/NoSuchPlugin.so\n", dirs[i]);
        assert_contains(E.msg, line);
    }
    assert_contains(E.msg, "--plugin-path");
    assert_contains(E.msg, "SETTEE_PLUGIN_PATH");
}

Test(plugin, not_a_shared_object_gives_dlerror_and_file)
{
    const char *file = TDIR "/libNotAPlugin.so";
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    cr_assert_null(h, "the fixture must not be loadable");
    char why[1024];
    snprintf(why, sizeof why, "%s", dlerror());

    size_t before = st_runtime_plugin_count(T.rt);
    cr_assert_eq(load("NotAPlugin"), ST_EPLUGIN);
    cr_assert_eq(st_runtime_plugin_count(T.rt), before);
    assert_contains(E.msg, file);
    assert_contains(E.msg, why);

    cr_assert_eq(load(file), ST_EPLUGIN);
    assert_contains(E.msg, why);
}

Test(plugin, missing_descriptor_is_refused)
{
    size_t before = st_runtime_plugin_count(T.rt);
    cr_assert_eq(load("TestNoDescriptor"), ST_EPLUGIN);
    cr_assert_eq(st_runtime_plugin_count(T.rt), before);
    assert_contains(E.msg, TDIR "/libTestNoDescriptor.so");
    assert_contains(E.msg, "st_plugin_descriptor");
    assert_contains(E.msg, "not a settee plugin");
}

Test(plugin, abi_major_mismatch_is_refused)
{
    char want[64];
    size_t before = st_runtime_plugin_count(T.rt);
    cr_assert_eq(load("TestAbiMajor"), ST_EABI);
    cr_assert_eq(st_runtime_plugin_count(T.rt), before);
    assert_contains(E.msg, TDIR "/libTestAbiMajor.so");
    snprintf(want, sizeof want, "built for settee ABI %d.%d;", ST_ABI_MAJOR + 1, ST_ABI_MINOR);
    assert_contains(E.msg, want);
    snprintf(want, sizeof want, "provides ABI %d.%d", ST_ABI_MAJOR, ST_ABI_MINOR);
    assert_contains(E.msg, want);
}

Test(plugin, newer_abi_minor_is_refused)
{
    char want[64];
    size_t before = st_runtime_plugin_count(T.rt);
    cr_assert_eq(load("TestAbiNewerMinor"), ST_EABI);
    cr_assert_eq(st_runtime_plugin_count(T.rt), before);
    assert_contains(E.msg, TDIR "/libTestAbiNewerMinor.so");
    snprintf(want, sizeof want, "built for settee ABI %d.%d;", ST_ABI_MAJOR, ST_ABI_MINOR + 1);
    assert_contains(E.msg, want);
    snprintf(want, sizeof want, "provides ABI %d.%d", ST_ABI_MAJOR, ST_ABI_MINOR);
    assert_contains(E.msg, want);
}

/* While ST_ABI_MINOR is 0 the fixture is built for the kernel's own minor:
 * this then checks that an equal minor loads. */
Test(plugin, older_or_equal_abi_minor_loads)
{
    size_t before = st_runtime_plugin_count(T.rt);
    cr_assert_eq(load("TestAbiOlderMinor"), ST_OK, "%s", E.msg);
    cr_assert_eq(st_runtime_plugin_count(T.rt), before + 1);
    const st_plugin_info *pi = st_runtime_find_plugin(T.rt, "TestAbiOlderMinor");
    cr_assert_not_null(pi);
    cr_assert_eq(pi->abi_major, ST_ABI_MAJOR);
    cr_assert_eq(pi->abi_minor, ST_ABI_MINOR > 0 ? ST_ABI_MINOR - 1 : ST_ABI_MINOR);
    cr_assert_not_null(st_registry_find(st_runtime_registry(T.rt), "TestOlderMinorDummy"));
}

Test(plugin, truncated_descriptor_is_refused)
{
    cr_assert_eq(load("TestAbiSmall"), ST_EABI);
    assert_contains(E.msg, TDIR "/libTestAbiSmall.so");
    assert_contains(E.msg, "12 bytes");
    cr_assert_null(st_runtime_find_plugin(T.rt, "TestAbiSmall"));
}

Test(plugin, failed_registration_is_undone)
{
    size_t before = st_runtime_plugin_count(T.rt);
    size_t ncls = st_registry_count(st_runtime_registry(T.rt));
    for (int round = 0; round < 2; round++) {
        cr_assert_eq(load("TestRegFail"), ST_EPLUGIN);
        assert_contains(E.msg, "'TestRegFail'");
        assert_contains(E.msg, TDIR "/libTestRegFail.so");
        assert_contains(E.msg, "the test asked for a failure (code 7)");
        cr_assert_eq(st_runtime_plugin_count(T.rt), before);
        cr_assert_null(st_runtime_find_plugin(T.rt, "TestRegFail"));
        cr_assert_null(st_registry_find(st_runtime_registry(T.rt), "TestRegFailPartial"));
        cr_assert_eq(st_registry_count(st_runtime_registry(T.rt)), ncls);
    }
}

Test(plugin, duplicate_class_names_are_ambiguous_until_chosen)
{
    cr_assert_eq(load("TestDupA"), ST_OK, "%s", E.msg);
    size_t n = st_runtime_plugin_count(T.rt);
    /* Both plugins load; the name they share is ambiguous. */
    cr_assert_eq(load("TestDupB"), ST_OK, "%s", E.msg);
    cr_assert_eq(st_runtime_plugin_count(T.rt), n + 1);
    st_registry *reg = st_runtime_registry(T.rt);
    cr_assert_not_null(st_registry_find(reg, "TestDupBOnly"));
    cr_assert_null(st_registry_find(reg, "TestDuplicate"));
    const char *pl[4], *fl[4];
    cr_assert_eq(st_registry_providers(reg, "TestDuplicate", pl, fl, 4), 2);
    cr_assert_str_eq(pl[0], "TestDupA");
    cr_assert_str_eq(pl[1], "TestDupB");
    cr_assert_str_eq(fl[1], TDIR "/libTestDupB.so");

    /* Creating it unqualified says who provides it and how to choose. */
    st_scene *s = NULL;
    cr_assert_eq(st_scene_create(T.rt, &s, &E), ST_OK, "%s", E.msg);
    st_component *c = NULL;
    cr_assert_neq(st_node_add_object(st_scene_root(s), "TestDuplicate", NULL, &c, &E), ST_OK);
    assert_contains(E.msg, "registered by 2 plugins");
    assert_contains(E.msg, TDIR "/libTestDupA.so");
    assert_contains(E.msg, TDIR "/libTestDupB.so");
    assert_contains(E.msg, "'TestDupB::TestDuplicate'");
    assert_contains(E.msg, "SETTEE_PREFER_PLUGIN=");

    /* "Plugin::Class" names one. */
    const st_class *a = st_registry_find(reg, "TestDupA::TestDuplicate");
    const st_class *b = st_registry_find(reg, "TestDupB::TestDuplicate");
    cr_assert(a && b && a != b);
    cr_assert_str_eq(st_registry_class_plugin(reg, b), "TestDupB");
    cr_assert_eq(st_node_add_object(st_scene_root(s), "TestDupB::TestDuplicate", "x", &c, &E),
                 ST_OK, "%s", E.msg);
    cr_assert_eq(c->cls, b);
    cr_assert_null(st_registry_find(reg, "TestDupC::TestDuplicate"));
    st_scene_destroy(&s);

    /* A preference resolves the plain name; the latest one wins. */
    cr_assert_eq(st_registry_prefer(reg, "TestDupB", &E), ST_OK);
    cr_assert_eq(st_registry_find(reg, "TestDuplicate"), b);
    cr_assert_eq(st_registry_prefer(reg, "TestDupA", &E), ST_OK);
    cr_assert_eq(st_registry_find(reg, "TestDuplicate"), a);
}

Test(plugin, missing_file_path_is_refused)
{
    cr_assert_eq(load(TDIR "/libNoSuchFile.so"), ST_EPLUGIN);
    assert_contains(E.msg, TDIR "/libNoSuchFile.so");
    cr_assert_eq(load("./relative/libNoSuchFile.so"), ST_EPLUGIN);
    assert_contains(E.msg, "./relative/libNoSuchFile.so");
}

Test(plugin, bad_arguments_are_einval)
{
    cr_assert_eq(load(""), ST_EINVAL);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, "", &E), ST_EINVAL);
}

Test(plugin, which_plugin_finds_class_of_unloaded_plugin)
{
    size_t before = st_runtime_plugin_count(T.rt);
    size_t ncls = st_registry_count(st_runtime_registry(T.rt));
    char buf[128];
    cr_assert(st_runtime_which_plugin(T.rt, "TestDummy", buf, sizeof buf));
    cr_assert_str_eq(buf, "TestGood");
    cr_assert(st_runtime_which_plugin(T.rt, "TestOlderMinorDummy", buf, sizeof buf));
    cr_assert_str_eq(buf, "TestAbiOlderMinor");
    /* Nothing was loaded or registered. */
    cr_assert_eq(st_runtime_plugin_count(T.rt), before);
    cr_assert_eq(st_registry_count(st_runtime_registry(T.rt)), ncls);
    cr_assert_null(st_registry_find(st_runtime_registry(T.rt), "TestDummy"));

    cr_assert_not(st_runtime_which_plugin(T.rt, "NoSuchClassAnywhere", buf, sizeof buf));
    cr_assert_str_eq(buf, "");
    /* A plugin whose registration fails does not count as providing. */
    cr_assert_not(st_runtime_which_plugin(T.rt, "TestRegFailPartial", buf, sizeof buf));

    /* A loaded plugin's class is reported too. */
    cr_assert_eq(load("TestGood"), ST_OK, "%s", E.msg);
    cr_assert(st_runtime_which_plugin(T.rt, "TestDummy", buf, sizeof buf));
    cr_assert_str_eq(buf, "TestGood");
}

Test(plugin, load_all_loads_good_and_warns_about_bad)
{
    cr_assert_eq(st_runtime_load_all_plugins(T.rt, &E), ST_OK, "%s", E.msg);
    cr_assert_not_null(st_runtime_find_plugin(T.rt, "TestGood"));
    cr_assert_not_null(st_runtime_find_plugin(T.rt, "TestAbiOlderMinor"));
    /* Two plugins sharing a class name both load (the name is ambiguous). */
    cr_assert_not_null(st_runtime_find_plugin(T.rt, "TestDupA"));
    cr_assert_not_null(st_runtime_find_plugin(T.rt, "TestDupB"));
    cr_assert_null(st_runtime_find_plugin(T.rt, "TestAbiMajor"));
    const char *bad[] = {"libNotAPlugin.so", "libTestAbiMajor.so", "libTestAbiNewerMinor.so",
                         "libTestAbiSmall.so", "libTestNoDescriptor.so", "libTestRegFail.so"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char want[128];
        snprintf(want, sizeof want, "warning|||skipping %s:", bad[i]);
        assert_contains(T.log, want);
    }
    cr_assert_eq(T.nerrors, 0);
    /* A second pass loads nothing new and does not fail. */
    size_t n = st_runtime_plugin_count(T.rt);
    cr_assert_eq(st_runtime_load_all_plugins(T.rt, &E), ST_OK, "%s", E.msg);
    cr_assert_eq(st_runtime_plugin_count(T.rt), n);
}

Test(plugin, dirs_are_stable_and_include_the_build_tree)
{
    const char *a[32], *b[32];
    size_t na = st_runtime_plugin_dirs(T.rt, a, 32);
    size_t nb = st_runtime_plugin_dirs(T.rt, b, 32);
    cr_assert_eq(na, nb);
    bool build = false;
    for (size_t i = 0; i < na; i++) {
        cr_assert_eq(a[i], b[i], "pointers stay valid while the list is unchanged");
        cr_assert_neq(a[i][0], '\0');
        build = build || strcmp(a[i], SETTEE_BUILD_PLUGIN_DIR) == 0;
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(a[i], a[j], "directories are listed once");
    }
    cr_assert(build, "the build tree's plugin folder %s is searched", SETTEE_BUILD_PLUGIN_DIR);
    cr_assert_str_eq(a[0], TDIR);
    /* Adding the same directory twice does not list it twice. */
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, TDIR "/", &E), ST_OK);
    cr_assert_eq(st_runtime_plugin_dirs(T.rt, NULL, 0), na);
}

Test(plugin, builtin_modules_resolve_without_a_file)
{
    size_t before = st_runtime_plugin_count(T.rt);
    cr_assert_eq(load("Sofa.Component.StateContainer"), ST_OK, "%s", E.msg);
    cr_assert_eq(load("Sofa.Simulation.Core"), ST_OK, "%s", E.msg);
    cr_assert_eq(st_runtime_plugin_count(T.rt), before);
}

/* SETTEE_PLUGIN_PATH is read when the search list is built: set it before
 * creating the runtime. Each Criterion test runs in its own process. */
Test(plugin_env, settee_plugin_path_is_honoured)
{
    setenv("SETTEE_PLUGIN_PATH", ":/nonexistent/settee-env::" TDIR ":", 1);
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_add_plugin_path(t.rt, "/nonexistent/settee-cli", &err), ST_OK);

    const char *dirs[32];
    size_t nd = st_runtime_plugin_dirs(t.rt, dirs, 32);
    cr_assert_geq(nd, 3);
    cr_assert_str_eq(dirs[0], "/nonexistent/settee-cli");
    cr_assert_str_eq(dirs[1], "/nonexistent/settee-env");
    cr_assert_str_eq(dirs[2], TDIR);
    for (size_t i = 0; i < nd; i++)
        cr_assert_neq(dirs[i][0], '\0', "empty entries are ignored");

    cr_assert_eq(st_runtime_load_plugin(t.rt, "TestGood", &err), ST_OK, "%s", err.msg);
    cr_assert_not_null(st_runtime_find_plugin(t.rt, "TestGood"));
    test_rt_close(&t);
}

Test(plugin_env, without_path_test_plugins_are_not_found)
{
    unsetenv("SETTEE_PLUGIN_PATH");
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_load_plugin(t.rt, "TestGood", &err), ST_EPLUGIN);
    assert_contains(err.msg, "'TestGood' not found");
    cr_assert_null(strstr(err.msg, TDIR "/"), "the test dir is not on the default path");
    test_rt_close(&t);
}

/* SETTEE_PREFER_PLUGIN chooses at runtime creation; a scene names a class
 * as "Plugin::Class". */
Test(plugin, prefer_plugin_from_the_environment_and_qualified_names_in_scenes)
{
    setenv("SETTEE_PREFER_PLUGIN", "NoSuchPlugin:TestDupB", 1);
    st_runtime *rt = NULL;
    cr_assert_eq(st_runtime_create(&rt, &E), ST_OK, "%s", E.msg);
    unsetenv("SETTEE_PREFER_PLUGIN");
    cr_assert_eq(st_runtime_add_plugin_path(rt, TDIR, &E), ST_OK, "%s", E.msg);
    cr_assert_eq(st_runtime_load_plugin(rt, "TestDupA", &E), ST_OK, "%s", E.msg);
    cr_assert_eq(st_runtime_load_plugin(rt, "TestDupB", &E), ST_OK, "%s", E.msg);
    st_registry *reg = st_runtime_registry(rt);
    cr_assert_eq(st_registry_find(reg, "TestDuplicate"),
                 st_registry_find(reg, "TestDupB::TestDuplicate"));
    static const char yaml[] = "format: settee/1\n"
                               "root:\n"
                               "  objects:\n"
                               "    - TestDupA::TestDuplicate: {name: a}\n"
                               "    - TestDuplicate: {name: b}\n";
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(rt, yaml, strlen(yaml), "dup.yaml", &s, &E), ST_OK, "%s",
                 E.msg);
    st_node *root = st_scene_root(s);
    cr_assert_str_eq(st_registry_class_plugin(reg, st_node_object(root, 0)->cls), "TestDupA");
    cr_assert_str_eq(st_registry_class_plugin(reg, st_node_object(root, 1)->cls), "TestDupB");
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
}
