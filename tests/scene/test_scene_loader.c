/* test_scene_loader.c - the YAML scene loader: tree building, anchors and
 * merge keys, one test per error class (exact file:line:col), several errors
 * in one file, and robustness on truncated and garbage input. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static test_rt T;

static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }

TestSuite(scene_loader, .init = setup, .fini = teardown);

/* Loads yaml, expects a failure whose formatted message starts with prefix
 * and contains every NULL-terminated word; returns the formatted message. */
static const char *expect_error(const char *yaml, const char *prefix, ...)
{
    static char buf[4096];
    st_scene *s = (st_scene *)1;
    st_error err = {0};
    st_status rc = test_load_string(&T, yaml, &s, &err);
    st_error_format(&err, buf, sizeof buf);
    cr_assert_neq(rc, ST_OK, "expected an error for:\n%s", yaml);
    cr_assert_eq(rc, err.code);
    cr_assert_null(s, "nothing half-loaded is returned");
    cr_assert(err.reported, "the error was sent to the log sink");
    cr_assert_eq(strncmp(buf, prefix, strlen(prefix)), 0, "expected prefix '%s' in '%s'", prefix,
                 buf);
    va_list ap;
    va_start(ap, prefix);
    for (const char *w = va_arg(ap, const char *); w; w = va_arg(ap, const char *))
        cr_assert(strstr(buf, w), "expected '%s' in '%s'", w, buf);
    va_end(ap);
    cr_assert_geq(T.nerrors, 1);
    return buf;
}

static st_scene *load_ok(const char *yaml)
{
    st_scene *s = NULL;
    st_error err = {0};
    st_status rc = test_load_string(&T, yaml, &s, &err);
    char buf[4096];
    cr_assert_eq(rc, ST_OK, "load failed: %s\nlog:\n%s", st_error_format(&err, buf, sizeof buf),
                 T.log);
    cr_assert_not_null(s);
    cr_assert_eq(T.nerrors, 0, "log:\n%s", T.log);
    return s;
}

static const char *field_text(st_component *c, const char *name, char *buf, size_t size)
{
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f, "no field %s", name);
    return st__field_format(f, st_component_field_ptr(c, f), buf, size);
}

/* ---- a good scene ---- */

static const char *good_scene =
    "format: settee/1\n"
    "root:\n"
    "  name: world\n"
    "  gravity: [0, -9.81, 0]\n"
    "  dt: 1e-5\n"
    "  time: 0.5\n"
    "  animate: true\n"
    "  objects:\n"
    "    - DefaultAnimationLoop:\n"
    "    - MechanicalObject: {name: rootdofs}\n"
    "  children:\n"
    "    - name: Beam\n"
    "      objects:\n"
    "        - MechanicalObject:\n"
    "            name: dofs\n"
    "            position: [[0, 0, 0], [1, 0, 0], [2, 0, 0]]\n"
    "        - MechanicalObject: {}\n"
    "      children:\n"
    "        - name: Visual\n"
    "          activated: false\n"
    "    - name: Other\n"
    "      objects: []\n";

Test(scene_loader, good_scene_builds_the_tree)
{
    st_scene *s = load_ok(good_scene);
    st_node *root = st_scene_root(s);
    cr_assert_str_eq(st_node_name(root), "world");
    double g[3];
    st_node_gravity(root, g);
    cr_assert_float_eq(g[1], -9.81, 1e-15);
    cr_assert_float_eq(g[0], 0.0, 0.0);
    cr_assert_eq(st_node_dt(root), 1e-5, "1e-5 is a real for a real field");
    cr_assert_eq(st_node_time(root), 0.5);
    cr_assert(st_node_animate(root));

    cr_assert_eq(st_node_object_count(root), 2);
    cr_assert_str_eq(st_node_object(root, 0)->cls->name, "DefaultAnimationLoop");
    cr_assert_str_eq(st_node_object(root, 1)->cls->name, "MechanicalObject");
    cr_assert_str_eq(st_node_object(root, 1)->name, "rootdofs");

    cr_assert_eq(st_node_child_count(root), 2);
    st_node *beam = st_node_child(root, 0);
    cr_assert_str_eq(st_node_name(beam), "Beam");
    cr_assert_str_eq(st_node_name(st_node_child(root, 1)), "Other");
    cr_assert_eq(st_node_object_count(st_node_child(root, 1)), 0);
    cr_assert_eq(st_node_object_count(beam), 2);
    st_component *dofs = st_node_object(beam, 0);
    cr_assert_str_eq(dofs->name, "dofs");
    cr_assert_str_eq(st_node_object(beam, 1)->cls->name, "MechanicalObject");
    cr_assert_str_neq(st_node_object(beam, 1)->name, "dofs");
    const st_field *pf = st_component_field(dofs, "position");
    cr_assert_not_null(pf);
    const st_array *pos = st_component_field_ptr(dofs, pf);
    cr_assert_eq(pos->n, 3);
    cr_assert_eq(pos->r[6], 2.0);
    cr_assert(st_component_is_set(dofs, "position"));

    cr_assert_eq(st_node_child_count(beam), 1);
    st_node *vis = st_node_child(beam, 0);
    cr_assert_str_eq(st_node_name(vis), "Visual");
    cr_assert_not(st_node_activated(vis));
    cr_assert(st_node_activated(beam));

    /* Marks: the component records where it was declared, 1-based. */
    cr_assert_eq(st__cinfo(dofs)->mark.line, 14);
    cr_assert_eq(st__cinfo(dofs)->mark.col, 11);
    cr_assert_str_eq(st__cinfo(dofs)->mark.file, "test.yaml");
    st_scene_destroy(&s);
    cr_assert_null(s);
}

Test(scene_loader, root_name_defaults_to_root)
{
    st_scene *s = load_ok("format: settee/1\nroot:\n  objects: []\n");
    cr_assert_str_eq(st_node_name(st_scene_root(s)), "root");
    st_scene_destroy(&s);
}

Test(scene_loader, load_from_file)
{
    const char *p = test_write_temp("good.yaml", good_scene);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(T.rt, p, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_str_eq(st_node_name(st_scene_root(s)), "world");
    cr_assert_str_eq(st_scene_file(s), p);
    st_scene_destroy(&s);
}

Test(scene_loader, load_from_repo_scene_files)
{
    st_scene *s = NULL;
    st_error err = {0};
    char buf[1024];
    cr_assert_eq(st_scene_load(T.rt, SETTEE_SOURCE_DIR "/tests/scenes/loader/good.yaml", &s, &err),
                 ST_OK, "%s", st_error_format(&err, buf, sizeof buf));
    cr_assert_eq(st_node_child_count(st_scene_root(s)), 1);
    st_scene_destroy(&s);

    err = (st_error){0};
    cr_assert_neq(
        st_scene_load(T.rt, SETTEE_SOURCE_DIR "/tests/scenes/loader/bad_many.yaml", &s, &err),
        ST_OK);
    cr_assert_null(s);
    cr_assert(strstr(err.where, "bad_many.yaml:"), "%s", err.where);
    cr_assert_eq(T.nerrors, 4, "log:\n%s", T.log);
}

/* ---- values go through the field declarations ---- */

Test(scene_loader, yaml_words_are_not_bools)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - MechanicalObject: {name: a, printLog: yes}\n",
                 "test.yaml:4:45:", "printLog", "bool", "true or false", NULL);
}

Test(scene_loader, context_bool_rejects_yes)
{
    expect_error("format: settee/1\nroot:\n  animate: yes\n", "test.yaml:3:12:", "animate",
                 NULL);
}

Test(scene_loader, quoted_and_plain_bools)
{
    st_scene *s = load_ok("format: settee/1\n"
                          "root:\n"
                          "  objects:\n"
                          "    - MechanicalObject: {name: a, printLog: true}\n"
                          "    - MechanicalObject: {name: b, printLog: \"false\"}\n");
    st_node *r = st_scene_root(s);
    cr_assert(st_node_object(r, 0)->print_log);
    cr_assert_not(st_node_object(r, 1)->print_log);
    st_scene_destroy(&s);
}

/* ---- anchors, aliases, merge keys ---- */

Test(scene_loader, anchors_aliases_and_merge)
{
    st_scene *s = load_ok(
        "format: settee/1\n"
        "root:\n"
        "  gravity: &g [0, 0, -9.81]\n"
        "  objects:\n"
        "    - MechanicalObject: &base {name: a, position: [[1, 2, 3]], velocity: [[4, 5, 6]]}\n"
        "    - MechanicalObject: {<<: *base, name: b, velocity: [[7, 8, 9]]}\n"
        "    - MechanicalObject:\n"
        "        <<: [*base, {rest_position: [[0, 0, 1]]}]\n"
        "        name: c\n"
        "  children:\n"
        "    - &child\n"
        "      name: Kid\n"
        "      gravity: *g\n"
        "    - <<: *child\n"
        "      name: Kid2\n");
    st_node *r = st_scene_root(s);
    char buf[256];
    cr_assert_eq(st_node_object_count(r), 3);
    st_component *a = st_node_object(r, 0), *b = st_node_object(r, 1), *c = st_node_object(r, 2);
    cr_assert_str_eq(a->name, "a");
    cr_assert_str_eq(b->name, "b");
    cr_assert_str_eq(c->name, "c");
    /* b: position merged, velocity overridden locally. */
    cr_assert(strstr(field_text(b, "position", buf, sizeof buf), "1 2 3"), "%s", buf);
    cr_assert(strstr(field_text(b, "velocity", buf, sizeof buf), "7 8 9"), "%s", buf);
    /* c: merged from two mappings. */
    cr_assert(strstr(field_text(c, "velocity", buf, sizeof buf), "4 5 6"), "%s", buf);
    cr_assert(strstr(field_text(c, "rest_position", buf, sizeof buf), "0 0 1"), "%s", buf);
    /* Nodes merge too. */
    cr_assert_eq(st_node_child_count(r), 2);
    cr_assert_str_eq(st_node_name(st_node_child(r, 0)), "Kid");
    cr_assert_str_eq(st_node_name(st_node_child(r, 1)), "Kid2");
    double g[3];
    st_node_gravity(st_node_child(r, 1), g);
    cr_assert_eq(g[2], -9.81);
    st_scene_destroy(&s);
}

Test(scene_loader, anchors_need_a_home_inside_the_scene)
{
    /* No free-standing top-level keys, even to hold anchors. */
    expect_error("format: settee/1\n"
                 "defaults: &p {velocity: [[1, 1, 1]]}\n"
                 "root:\n"
                 "  objects:\n"
                 "    - MechanicalObject: {<<: *p, name: m}\n",
                 "test.yaml:2:1:", "unknown top-level key 'defaults'", NULL);
}

Test(scene_loader, merge_order)
{
    /* Anchors defined inside the scene itself (unknown top-level keys are errors). */
    st_scene *s = load_ok("format: settee/1\n"
                          "root:\n"
                          "  objects:\n"
                          "    - MechanicalObject: &p {name: p, velocity: [[1, 1, 1]]}\n"
                          "    - MechanicalObject: &q {name: q, velocity: [[2, 2, 2]], "
                          "position: [[3, 3, 3]]}\n"
                          "    - MechanicalObject: {<<: [*p, *q], name: m}\n");
    st_component *m = st_node_object(st_scene_root(s), 2);
    char buf[256];
    cr_assert_str_eq(m->name, "m");
    cr_assert(strstr(field_text(m, "velocity", buf, sizeof buf), "1 1 1"), "%s", buf);
    cr_assert(strstr(field_text(m, "position", buf, sizeof buf), "3 3 3"), "%s", buf);
    st_scene_destroy(&s);
}

Test(scene_loader, merge_of_a_scalar_is_an_error)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - MechanicalObject: {<<: 3, name: m}\n",
                 "test.yaml:4:30:", "merge key", "mapping", NULL);
}

Test(scene_loader, recursive_alias_is_refused)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - MechanicalObject: {name: m, position: &r [*r]}\n",
                 "test.yaml:", "position", "recursive", NULL);
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_neq(test_load_string(&T, "format: settee/1\nroot: &n {<<: *n}\n", &s, &err), ST_OK);
    cr_assert_null(s);
}

/* ---- structure errors ---- */

Test(scene_loader, missing_format)
{
    expect_error("root:\n  name: r\n", "test.yaml:1:1:", "missing", "format: settee/1", NULL);
}

Test(scene_loader, wrong_format)
{
    expect_error("format: settee/2\nroot:\n  name: r\n", "test.yaml:1:9:", "settee/2",
                 "format: settee/1", NULL);
}

Test(scene_loader, empty_file)
{
    expect_error("", "test.yaml:1:1:", "empty", NULL);
    expect_error("# only a comment\n", "test.yaml:1:1:", "empty", NULL);
}

Test(scene_loader, top_level_not_a_mapping)
{
    expect_error("- a\n- b\n", "test.yaml:1:1:", "mapping", "format", NULL);
}

Test(scene_loader, missing_root)
{
    expect_error("format: settee/1\n", "test.yaml:1:1:", "missing", "root", NULL);
}

Test(scene_loader, root_not_a_mapping)
{
    expect_error("format: settee/1\nroot: [a, b]\n", "test.yaml:2:7:", "root", "mapping",
                 "a list", NULL);
    expect_error("format: settee/1\nroot:\n", "test.yaml:2:", "root", "mapping", NULL);
}

Test(scene_loader, unknown_top_level_key)
{
    expect_error("format: settee/1\nroot: {}\nroots: {}\n", "test.yaml:3:1:", "roots",
                 "did you mean 'root'", NULL);
}

Test(scene_loader, unknown_node_key)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  name: r\n"
                 "  objets:\n"
                 "    - MechanicalObject: {}\n",
                 "test.yaml:4:3:", "objets", "did you mean 'objects'", NULL);
}

Test(scene_loader, component_written_as_node_key)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  MechanicalObject: {name: dofs}\n",
                 "test.yaml:3:3:", "component", "objects", NULL);
}

Test(scene_loader, objects_not_a_list)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    MechanicalObject: {name: dofs}\n",
                 "test.yaml:4:5:", "`objects` must be a list", "a mapping", NULL);
}

Test(scene_loader, children_not_a_list)
{
    expect_error("format: settee/1\nroot:\n  children: {name: a}\n", "test.yaml:3:13:",
                 "`children` must be a list", NULL);
}

Test(scene_loader, child_without_name)
{
    expect_error("format: settee/1\nroot:\n  children:\n    - objects: []\n", "test.yaml:4:7:",
                 "name", NULL);
}

Test(scene_loader, object_with_two_keys)
{
    /* The usual mistake: fields not indented under the type. */
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - MechanicalObject:\n"
                 "      name: dofs\n",
                 "test.yaml:4:7:", "one-key mapping", "2 keys", "MechanicalObject, name",
                 "indent", NULL);
}

Test(scene_loader, object_not_a_mapping)
{
    expect_error("format: settee/1\nroot:\n  objects:\n    - MechanicalObject\n",
                 "test.yaml:4:7:", "one-key mapping", "a scalar", NULL);
}

Test(scene_loader, object_fields_not_a_mapping)
{
    expect_error("format: settee/1\nroot:\n  objects:\n    - MechanicalObject: [1, 2]\n",
                 "test.yaml:4:25:", "fields of MechanicalObject", "mapping", NULL);
}

Test(scene_loader, duplicate_node_key)
{
    expect_error("format: settee/1\nroot:\n  dt: 0.1\n  name: r\n  dt: 0.2\n", "test.yaml:5:3:",
                 "'dt' is set twice", "first at line 3", NULL);
}

Test(scene_loader, second_document)
{
    expect_error("format: settee/1\nroot: {}\n---\nformat: settee/1\n", "test.yaml:4:1:",
                 "one YAML document", NULL);
}

/* ---- components and fields ---- */

Test(scene_loader, unknown_component)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - MechanicalObjet: {name: dofs}\n",
                 "test.yaml:4:7:", "unknown component 'MechanicalObjet'",
                 "did you mean 'MechanicalObject'", NULL);
}

Test(scene_loader, unknown_component_provided_by_a_plugin)
{
    st_error err = {0};
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_TEST_PLUGIN_DIR, &err), ST_OK);
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - TestDummy: {}\n",
                 "test.yaml:4:7:", "unknown component 'TestDummy'", "TestGood",
                 "`- RequiredPlugin: {pluginName: TestGood}`", NULL);
}

Test(scene_loader, required_plugin_loads_during_parse)
{
    st_error err = {0};
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_TEST_PLUGIN_DIR, &err), ST_OK);
    st_scene *s = load_ok("format: settee/1\n"
                          "root:\n"
                          "  objects:\n"
                          "    - RequiredPlugin: {pluginName: TestGood}\n"
                          "    - TestDummy: {name: d}\n");
    st_node *r = st_scene_root(s);
    cr_assert_eq(st_node_object_count(r), 2);
    cr_assert_str_eq(st_node_object(r, 1)->cls->name, "TestDummy");
    st_scene_destroy(&s);
}

Test(scene_loader, required_plugin_not_found)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - RequiredPlugin: {pluginName: NoSuchPluginAnywhere}\n",
                 "test.yaml:4:", "NoSuchPluginAnywhere", NULL);
}

Test(scene_loader, unknown_field)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - MechanicalObject: {name: dofs, positon: [[0, 0, 0]]}\n",
                 "test.yaml:4:38:", "MechanicalObject", "positon", "did you mean 'position'",
                 NULL);
}

Test(scene_loader, field_set_twice)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - MechanicalObject:\n"
                 "        name: dofs\n"
                 "        position: [[0, 0, 0]]\n"
                 "        velocity: [[0, 0, 0]]\n"
                 "        position: [[1, 0, 0]]\n",
                 "test.yaml:8:9:", "MechanicalObject", "'position' is set twice",
                 "first at line 6", NULL);
}

Test(scene_loader, wrong_arity)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - MechanicalObject: {name: dofs, position: [[0, 0]]}\n",
                 "test.yaml:4:", "MechanicalObject", "position", NULL);
}

Test(scene_loader, wrong_type)
{
    expect_error("format: settee/1\nroot:\n  dt: fast\n", "test.yaml:3:7:", "dt", NULL);
    expect_error("format: settee/1\nroot:\n  gravity: [0, -9.81]\n", "test.yaml:3:12:",
                 "gravity", NULL);
}

Test(scene_loader, mapping_as_a_field_value)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - MechanicalObject: {name: dofs, position: {x: 1}}\n",
                 "test.yaml:4:48:", "position", "mapping", NULL);
}

Test(scene_loader, link_keeps_its_mark)
{
    st_scene *s = load_ok("format: settee/1\n"
                          "root:\n"
                          "  objects:\n"
                          "    - MechanicalObject: {name: a}\n"
                          "    - MechanicalObject: {name: b, position: \"@nothere.position\"}\n");
    st_component *b = st_node_object(st_scene_root(s), 1);
    int i = st__component_field_index(b, "position");
    cr_assert_geq(i, 0);
    st_fstate *fs = &st__cinfo(b)->fs[i];
    cr_assert_str_eq(fs->link, "nothere.position");
    cr_assert_eq(fs->mark.line, 5);
    cr_assert_eq(fs->mark.col, 45);
    cr_assert_str_eq(fs->mark.file, "test.yaml");
    /* The kernel resolves links at init and reports the line that wrote it. */
    st_error err = {0};
    char buf[2048];
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    st_error_format(&err, buf, sizeof buf);
    cr_assert(strstr(buf, "test.yaml:5:45:"), "%s", buf);
    cr_assert(strstr(buf, "nothere"), "%s", buf);
    st_scene_destroy(&s);
}

/* ---- files and YAML syntax ---- */

Test(scene_loader, missing_file)
{
    st_scene *s = (st_scene *)1;
    st_error err = {0};
    char buf[2048];
    cr_assert_eq(st_scene_load(T.rt, "/nonexistent/dir/scene.yaml", &s, &err), ST_EIO);
    cr_assert_null(s);
    st_error_format(&err, buf, sizeof buf);
    cr_assert(strstr(buf, "/nonexistent/dir/scene.yaml"), "%s", buf);
    cr_assert(strstr(buf, "No such file or directory"), "%s", buf);
    cr_assert_eq(T.nerrors, 1);
}

Test(scene_loader, yaml_tab_indentation)
{
    expect_error("format: settee/1\nroot:\n\tname: x\n", "test.yaml:3:1:", "YAML syntax error",
                 "YAML forbids tabs for indentation", NULL);
}

Test(scene_loader, yaml_unquoted_link)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - MechanicalObject: {name: b}\n"
                 "    - MechanicalObject: {position: @b.position}\n",
                 "test.yaml:5:36:", "YAML syntax error", "quote links: \"@b.position\"", NULL);
}

Test(scene_loader, yaml_unclosed_bracket)
{
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  gravity: [0, -9.81, 0\n"
                 "  dt: 0.1\n",
                 "test.yaml:4:5:", "YAML syntax error", "'[' opened at line 3, column 12",
                 NULL);
    expect_error("format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - MechanicalObject: {name: dofs\n"
                 "  dt: 1\n",
                 "test.yaml:5:5:", "'{' opened at line 4, column 25", NULL);
}

Test(scene_loader, yaml_unclosed_quote)
{
    expect_error("format: settee/1\nroot:\n  name: \"abc\n", "test.yaml:4:1:",
                 "quote opened at line 3, column 9", NULL);
}

Test(scene_loader, yaml_undefined_alias)
{
    expect_error("format: settee/1\nroot:\n  dt: *nope\n", "test.yaml:3:7:", "undefined alias",
                 NULL);
}

Test(scene_loader, invalid_utf8)
{
    expect_error("format: settee/1\nroot:\n  name: \xff\xfe\n", "test.yaml:3:9:",
                 "YAML syntax error", NULL);
}

/* ---- several errors ---- */

Test(scene_loader, every_error_is_reported)
{
    const char *yaml = "format: settee/1\n"                                   /* 1 */
                       "root:\n"                                              /* 2 */
                       "  name: r\n"                                          /* 3 */
                       "  dt: slow\n"                                         /* 4: bad real */
                       "  objets: []\n"                                       /* 5: unknown key */
                       "  objects:\n"                                         /* 6 */
                       "    - MechanicalObjet: {}\n"                          /* 7: unknown class */
                       "    - MechanicalObject: {name: a, positon: [[0,0,0]]}\n" /* 8: field */
                       "    - MechanicalObject: {name: b, printLog: no}\n"    /* 9: bool */
                       "  children:\n"                                        /* 10 */
                       "    - name: c\n"                                      /* 11 */
                       "      objects:\n"                                     /* 12 */
                       "        - DefaultAnimationLoop: {}\n"                 /* 13 */
                       "          extra: 1\n";                                /* 14: two keys */
    expect_error(yaml, "test.yaml:4:7:", "dt", NULL);
    cr_assert_eq(T.nerrors, 6, "log:\n%s", T.log);
    const char *wheres[] = {"|test.yaml:4:7|",  "|test.yaml:5:3|", "|test.yaml:7:7|",
                            "|test.yaml:8:35|", "|test.yaml:9:45|", "|test.yaml:13:11|"};
    for (size_t i = 0; i < sizeof wheres / sizeof wheres[0]; i++)
        cr_assert(strstr(T.log, wheres[i]), "expected %s in log:\n%s", wheres[i], T.log);
}

/* ---- robustness ---- */

static const char *fuzz_scene =
    "format: settee/1\n"
    "root:\n"
    "  name: root\n"
    "  gravity: [0, -9.81, 0]\n"
    "  dt: 1.0e-5\n"
    "  objects:\n"
    "    - DefaultAnimationLoop: {}\n"
    "  children:\n"
    "    - &kid\n"
    "      name: DeformableObject\n"
    "      objects:\n"
    "        - MechanicalObject: &mo {name: dofs, position: \"0 0 0 1 0 0\"}\n"
    "        - MechanicalObject: {<<: *mo, name: other, velocity: [[0, 1, 0], [1, 1, 1]]}\n"
    "        - MechanicalObject:\n"
    "            name: third\n"
    "            rest_position:\n"
    "              - [1, 2, 3]\n"
    "              - [4, 5, 6]\n"
    "      children:\n"
    "        - name: 'quoted ''name'\n"
    "          animate: false\n"
    "    - <<: *kid\n"
    "      name: Copy\n";

Test(scene_loader, truncated_prefixes_fail_cleanly)
{
    size_t len = strlen(fuzz_scene);
    st_scene *whole = load_ok(fuzz_scene);
    cr_assert_eq(st_node_child_count(st_scene_root(whole)), 2);
    st_scene_destroy(&whole);
    for (size_t n = 0; n < len; n++) {
        st_scene *s = (st_scene *)1;
        st_error err = {0};
        st_status rc = st_scene_load_string(T.rt, fuzz_scene, n, "fuzz.yaml", &s, &err);
        if (rc == ST_OK) {
            cr_assert_not_null(s);
            st_scene_destroy(&s);
            continue;
        }
        cr_assert_null(s, "prefix %zu", n);
        cr_assert_eq(rc, err.code);
        cr_assert(err.msg[0], "prefix %zu: empty message", n);
        cr_assert_eq(strncmp(err.where, "fuzz.yaml", 9), 0, "prefix %zu: where '%s' (%s)", n,
                     err.where, err.msg);
    }
}

Test(scene_loader, garbage_fails_cleanly)
{
    const char *garbage[] = {
        "\x01\x02\x03", "{{{{{{{{", "]]]]", "- - - - -", ": : :", "&a *a", "*a",
        "format: settee/1\nroot: *r\n", "%YAML 9.9\n---\na: 1\n", "'", "\"\\q\"", "? ? ?",
        "format: [settee/1]\nroot: {}\n", "format: settee/1\nroot: {objects: [[], {}, 1, ~]}\n",
        "format: settee/1\nroot: {children: [1, [2], {children: {}}]}\n",
        "format: settee/1\nroot: {objects: [{'': {}}, {? [a] : b}, {MechanicalObject: 3}]}\n",
        "format: settee/1\nroot: {<<: [1, 2], name: [x]}\n",
        "\xef\xbb\xbf" "format: settee/1\nroot: {name: \"\\u00e9\"}\n",
        "format: settee/1\nroot:\n  objects:\n"
        "    - MechanicalObject: {name: '', template: Rigid3d}\n",
    };
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        st_scene *s = (st_scene *)1;
        st_error err = {0};
        st_status rc =
            st_scene_load_string(T.rt, garbage[i], strlen(garbage[i]), "junk.yaml", &s, &err);
        if (rc == ST_OK) {
            st_scene_destroy(&s);
            continue;
        }
        cr_assert_null(s, "case %zu", i);
        cr_assert(err.msg[0], "case %zu", i);
        cr_assert(err.reported, "case %zu", i);
    }
    /* A pseudo-random mix of YAML punctuation. */
    const char alphabet[] = "ab:-[]{},&*<@'\" \n\t#|>?!%~0";
    unsigned long x = 12345;
    char buf[96];
    for (int round = 0; round < 300; round++) {
        size_t n = 0;
        n += (size_t)snprintf(buf, sizeof buf, "format: settee/1\nroot:\n ");
        while (n < sizeof buf - 1) {
            x = x * 6364136223846793005ul + 1442695040888963407ul;
            buf[n++] = alphabet[(x >> 33) % (sizeof alphabet - 1)];
        }
        buf[n] = 0;
        st_scene *s = NULL;
        st_error err = {0};
        if (st_scene_load_string(T.rt, buf, n, "rnd.yaml", &s, &err) == ST_OK)
            st_scene_destroy(&s);
        else
            cr_assert_null(s);
    }
}

Test(scene_loader, bad_arguments)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, NULL, 3, "x", &s, &err), ST_EINVAL);
    cr_assert_eq(st_scene_load(T.rt, NULL, &s, &err), ST_EINVAL);
    cr_assert_eq(st_scene_load_string(NULL, "a", 1, "x", &s, &err), ST_EINVAL);
}

/* "Billion laughs": aliases that expand exponentially are refused quickly. */
static void build_bomb(char *buf, size_t size, bool merge)
{
    size_t n = (size_t)snprintf(buf, size,
                                "format: settee/1\nroot:\n  objects:\n"
                                "    - MechanicalObject:\n        name: m\n");
    if (merge)
        n += (size_t)snprintf(buf + n, size - n, "        <<: [&l0 {velocity: [[1, 2, 3]]}");
    else
        n += (size_t)snprintf(buf + n, size - n, "        position: [&l0 [1, 2, 3]");
    for (int lvl = 1; lvl < 9; lvl++) {
        n += (size_t)snprintf(buf + n, size - n, merge ? ", &l%d {<<: [" : ", &l%d [", lvl);
        for (int k = 0; k < 10; k++)
            n += (size_t)snprintf(buf + n, size - n, "%s*l%d", k ? ", " : "", lvl - 1);
        n += (size_t)snprintf(buf + n, size - n, merge ? "]}" : "]");
    }
    snprintf(buf + n, size - n, "]\n");
}

Test(scene_loader, alias_bombs_are_refused, .timeout = 20)
{
    static char buf[8192];
    build_bomb(buf, sizeof buf, false);
    expect_error(buf, "test.yaml:", "aliases", NULL);
    build_bomb(buf, sizeof buf, true);
    expect_error(buf, "test.yaml:", "aliases", NULL);
}

/* Every allocation of a load can fail: the result is ST_ENOMEM and no scene
 * (or a complete scene, where a failure is recoverable), never a crash or a
 * leak (ASan checks the latter). */
Test(scene_loader, allocation_failures_are_clean)
{
    unsigned long c0 = st_alloc_count();
    st_scene *s = load_ok(good_scene);
    st_scene_destroy(&s);
    long total = (long)(st_alloc_count() - c0);
    cr_assert_gt(total, 10);
    int failures = 0;
    for (long n = 0; n < total; n++) {
        st_error err = {0};
        s = NULL;
        st_alloc_fail_after(n);
        st_status rc = test_load_string(&T, good_scene, &s, &err);
        st_alloc_fail_after(-1);
        if (rc == ST_OK) {
            cr_assert_not_null(s);
            st_scene_destroy(&s);
            continue;
        }
        failures++;
        cr_assert_eq(rc, ST_ENOMEM, "n=%ld: %s %s", n, st_status_name(rc), err.msg);
        cr_assert_null(s);
    }
    cr_assert_gt(failures, total / 2);
}

/* 10^5 nested lists: refused on the event stream at the depth limit, before
 * libyaml builds a document (which would take minutes). */
Test(scene_loader, deep_nesting_is_refused_before_the_document_is_built)
{
    size_t n = 100000, len = 0;
    const char *head = "format: settee/1\nroot:\n  name: r\n  objects:\n"
                       "    - MechanicalObject: {position: ";
    char *yaml = malloc(strlen(head) + 2 * n + 8);
    cr_assert_not_null(yaml);
    len = (size_t)sprintf(yaml, "%s", head);
    memset(yaml + len, '[', n);
    memset(yaml + len + n, ']', n);
    len += 2 * n;
    strcpy(yaml + len, "}\n");
    expect_error(yaml, "test.yaml:5:", "nested more than 256 levels deep", NULL);
    free(yaml);
}
