/* test_threads.c - settee's thread-count rule (settee/threads.h), the one
 * place the kernel and the plugins read it: SETTEE_THREADS strictly (1 to
 * 1024, else 1), SOFA's nbThreads (n > 0, capped; n <= 0 the cores plus
 * n), and the order scene settings, component, default. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "support.h"

Test(threads, the_default_reads_settee_threads_strictly)
{
    unsetenv("SETTEE_THREADS");
    cr_assert_eq(st_threads_default(), 1);
    const char *vals[] = {"3", "1024", "", "abc", "2x", "0", "-2", "1025"};
    const unsigned want[] = {3, 1024, 1, 1, 1, 1, 1, 1};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
        setenv("SETTEE_THREADS", vals[i], 1);
        cr_assert_eq(st_threads_default(), want[i], "'%s'", vals[i]);
    }
    unsetenv("SETTEE_THREADS");
}

Test(threads, a_scene_count_is_sofas)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cr_assert_eq(st_threads_resolve(5), 5);
    cr_assert_eq(st_threads_resolve(5000), 1024);
    cr_assert_eq(st_threads_resolve(0), (unsigned)(cores > 0 ? cores : 1));
    cr_assert_eq(st_threads_resolve(-100000), 1);
}

static st_component *scene_component(test_rt *t, const char *settings, st_scene **s)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [MultiThreading]}\n"
             "%s"
             "    - MechanicalObject: {name: dofs, position: [[0, 0, 0]]}\n",
             settings);
    st_error e = {0};
    cr_assert_eq(test_load_string(t, yaml, s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(*s, &e), ST_OK, "%s", e.msg);
    return test_find_object(*s, "dofs");
}

Test(threads, scene_settings_then_the_component_then_the_default)
{
    test_rt t;
    test_rt_open(&t);
    setenv("SETTEE_THREADS", "2", 1);
    st_scene *s = NULL;
    st_component *c = scene_component(&t, "    - TaskSchedulerSettings: {nbThreads: 3}\n", &s);
    bool follows = true;
    cr_assert_eq(st_threads_for(c, 5, &follows), 3);
    cr_assert_not(follows);
    st_scene_destroy(&s);
    c = scene_component(&t, "    - TaskSchedulerSettings: {nbThreads: 0}\n", &s);
    cr_assert_eq(st_threads_for(c, 5, &follows), 5, "settings with 0 leave the component's");
    cr_assert_not(follows);
    cr_assert_eq(st_threads_for(c, 0, &follows), 2);
    cr_assert(follows, "the default follows SETTEE_THREADS");
    st_scene_destroy(&s);
    unsetenv("SETTEE_THREADS");
    cr_assert_eq(st_threads_for(NULL, 0, NULL), 1);
    test_rt_close(&t);
}
