/* test_scene_readers.c - the kernel's extension points for scripting
 * plugins (settee/reader.h, ABI 2.4): scene readers by file type, scene
 * destroy hooks, failures reported by role functions, and removing objects
 * and nodes before init. The Python plugin built on them is tested by
 * tests/python (pytest). */
#include <criterion/criterion.h>
#include <string.h>

#include "support.h"

static int reads;

/* A reader of ".toy" files: a root with one child named after the text. */
static st_status read_toy(st_scene *s, const char *path, st_error *err)
{
    reads++;
    char *text = test_read_file(path);
    cr_assert(text);
    st_node *child = NULL;
    st_status st = ST_OK;
    if (!strncmp(text, "fail", 4))
        st = st_error_set_at(err, ST_ESCENE, path, 1, 1, "toy reader: asked to fail");
    else
        st = st_node_add_child(st_scene_root(s), text, &child, err);
    free(text);
    return st;
}

static const st_scene_reader toy = {sizeof(st_scene_reader), ".toy", "toy scenes", read_toy};

Test(readers, a_registered_reader_loads_its_extension)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_registry_add_reader(st_runtime_registry(t.rt), &toy, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(st_registry_find_reader(st_runtime_registry(t.rt), "a/b/SCENE.TOY"), &toy);
    cr_assert_null(st_registry_find_reader(st_runtime_registry(t.rt), "scene.yaml"));
    const char *path = test_write_temp("scene.toy", "Beam");
    st_scene *s = NULL;
    reads = 0;
    cr_assert_eq(st_scene_load(t.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(reads, 1);
    cr_assert_str_eq(st_scene_file(s), path);
    cr_assert_str_eq(st_node_name(st_node_child(st_scene_root(s), 0)), "Beam");
    cr_assert_eq(st_node_scene(st_scene_root(s)), s);
    st_scene_destroy(&s);

    /* a failing reader: its error, logged, and nothing returned */
    path = test_write_temp("bad.toy", "fail");
    cr_assert_eq(st_scene_load(t.rt, path, &s, &err), ST_ESCENE);
    cr_assert_null(s);
    cr_assert(strstr(err.msg, "asked to fail"));
    cr_assert(strstr(t.log, "asked to fail"));
    test_rt_close(&t);
}

Test(readers, refusals)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    st_registry *r = st_runtime_registry(t.rt);
    cr_assert_eq(st_registry_add_reader(r, &toy, &err), ST_OK);
    cr_assert_eq(st_registry_add_reader(r, &toy, &err), ST_EPLUGIN);
    cr_assert(strstr(err.msg, "already reads"), "%s", err.msg);
    static const st_scene_reader yaml = {sizeof(st_scene_reader), ".YAML", "", read_toy};
    cr_assert_eq(st_registry_add_reader(r, &yaml, &err), ST_EINVAL);
    static const st_scene_reader noext = {sizeof(st_scene_reader), "toy", "", read_toy};
    cr_assert_eq(st_registry_add_reader(r, &noext, &err), ST_EINVAL);
    /* an extension nobody reads is YAML, as before readers existed */
    const char *path = test_write_temp("scene.unknownext", "format: settee/1\nroot: {}\n");
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load(t.rt, path, &s, &err), ST_OK, "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static int hook_calls;
static void on_destroy(st_scene *s, void *ud)
{
    cr_assert_not_null(st_scene_root(s)); /* before the graph goes */
    hook_calls += *(int *)ud;
}

typedef struct failer {
    st_component base;
    int steps;
} failer;

static void failer_event(st_component *self, st_event ev, double dt)
{
    failer *f = (failer *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || ++f->steps < 3)
        return;
    st_error e = {0};
    st_error_set(&e, ST_ESCENE, "callback failed at its step %d", f->steps);
    st_component_fail(self, &e);
}

static const st_class failer_class = {
    .struct_size = sizeof(st_class),
    .name = "TestFailer",
    .category = "Controller",
    .description = "fails at its third step",
    .instance_size = sizeof(failer),
    .on_event = failer_event,
};

Test(readers, destroy_hooks_and_component_failures)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(t.rt), &failer_class, &err), ST_OK);
    st_scene *s = NULL;
    cr_assert_eq(st_scene_create(t.rt, &s, &err), ST_OK);
    st_component *c = NULL;
    cr_assert_eq(st_node_add_object(st_scene_root(s), "TestFailer", "f", &c, &err), ST_OK);
    int one = 1, ten = 10;
    cr_assert_eq(st_scene_add_destroy_hook(s, on_destroy, &one, &err), ST_OK);
    cr_assert_eq(st_scene_add_destroy_hook(s, on_destroy, &ten, &err), ST_OK);
    cr_assert(!st_scene_is_initialised(s));
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    cr_assert(st_scene_is_initialised(s));
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK);
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK);
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_ESCENE);
    cr_assert(strstr(err.msg, "callback failed at its step 3"), "%s", err.msg);
    cr_assert_str_eq(err.path, "/f");
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_ESCENE); /* it fails at every later step */
    hook_calls = 0;
    st_scene_destroy(&s);
    cr_assert_eq(hook_calls, 11);
    test_rt_close(&t);
}

Test(readers, remove_objects_and_children_before_init_only)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_create(t.rt, &s, &err), ST_OK);
    st_node *root = st_scene_root(s), *child = NULL, *other = NULL;
    cr_assert_eq(st_node_add_child(root, "A", &child, &err), ST_OK);
    cr_assert_eq(st_node_add_child(root, "B", &other, &err), ST_OK);
    st_component *m = NULL, *m2 = NULL;
    cr_assert_eq(st_node_add_object(child, "MechanicalObject", "dofs", &m, &err), ST_OK);
    cr_assert_eq(st_node_add_object(other, "MechanicalObject", "dofs", &m2, &err), ST_OK);
    cr_assert_eq(st_node_remove_object(root, m, &err), ST_ENOTFOUND);
    cr_assert_eq(st_node_remove_object(child, m, &err), ST_OK);
    cr_assert_eq(st_node_object_count(child), 0);
    cr_assert_eq(st_node_remove_child(root, child, &err), ST_OK);
    cr_assert_eq(st_node_child_count(root), 1);
    cr_assert_str_eq(st_node_name(st_node_child(root, 0)), "B");
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_remove_object(other, m2, &err), ST_ESTATE);
    cr_assert_eq(st_node_remove_child(root, other, &err), ST_ESTATE);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
