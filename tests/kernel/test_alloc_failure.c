/* test_alloc_failure.c - allocation-failure injection over the shipped scenes
 * (issue 18): for every scene in scenes/ and scenes/sofa/ (and
 * tests/scenes/alloc/, for solvers no shipped scene uses), a clean run
 * (runtime, plugins, load, init, a few steps) counts its allocations (settee's
 * and those of the libraries plugins route to the kernel allocator); then
 * for every n below that count the run is repeated with the n-th allocation
 * failing. Each such run must either end with ST_ENOMEM and a message that
 * says so, or, where a failed allocation is absorbed, end exactly as the
 * clean run does. Leaks and crashes are the sanitizers' to report (the suite
 * runs under ASan/LSan in the test build).
 *
 * By default the sweep is sampled: every allocation of a scene that makes
 * at most SAMPLE_WHOLE of them, else the first SAMPLE_HEAD (runtime, plugin
 * and scene loading), the last SAMPLE_TAIL (the steps) and an even spread of
 * the others, about SAMPLE_SPREAD of them, at offsets that differ from
 * scene to scene. SETTEE_ALLOCFAIL_FULL=1 sweeps every allocation of every
 * scene (docs/testing.md). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

/* Steps after init: the per-step paths (solvers, checks) without making the
 * sweep slow. A step should allocate nothing, so more steps add no cases. */
#define SWEEP_STEPS 3

#define SAMPLE_WHOLE 200
#define SAMPLE_HEAD 60
#define SAMPLE_TAIL 30
#define SAMPLE_SPREAD 110

/* Whether the sweep fails allocation n of total (see the top). */
static bool swept(unsigned long n, unsigned long total, unsigned long salt)
{
    const char *full = getenv("SETTEE_ALLOCFAIL_FULL");
    if ((full && *full && strcmp(full, "0")) || total <= SAMPLE_WHOLE)
        return true;
    if (n < SAMPLE_HEAD || n >= total - SAMPLE_TAIL)
        return true;
    unsigned long stride = (total - SAMPLE_HEAD - SAMPLE_TAIL) / SAMPLE_SPREAD + 1;
    return (n - SAMPLE_HEAD) % stride == salt % stride;
}

static void quiet(st_log_level level, const char *where, const char *path, const char *msg,
                  void *ud)
{
    (void)level, (void)where, (void)path, (void)msg, (void)ud;
}

/* One run of a scene from a fresh runtime: create, load, init, steps. The
 * state after the run is exported to export_path when the run succeeds. */
static st_status run_scene(const char *path, const char *export_path, st_error *err)
{
    st_runtime *rt = NULL;
    st_scene *s = NULL;
    st_status st = st_runtime_create(&rt, err);
    if (st == ST_OK) {
        st_runtime_set_log(rt, quiet, NULL);
        st = st_scene_load(rt, path, &s, err);
    }
    if (st == ST_OK)
        st = st_scene_init(s, err);
    for (int k = 0; st == ST_OK && k < SWEEP_STEPS; k++)
        st = st_scene_step(s, 0.0, err);
    st_alloc_fail_after(-1);
    if (st == ST_OK && export_path)
        st = st_scene_export_state(s, export_path, SWEEP_STEPS, err);
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
    return st;
}

static char *slurp(const char *path)
{
    char *text = test_read_file(path);
    cr_assert_not_null(text, "%s", path);
    return text;
}

/* The shipped scenes (*.yaml and *.scn in scenes/ and scenes/sofa/) and
 * tests/scenes/alloc/ (the direct solvers no shipped scene uses), relative
 * to the source folder. */
ParameterizedTestParameters(alloc_failure, shipped_scene)
{
    static const char *dirs[] = {"scenes", "scenes/sofa", "tests/scenes/alloc"};
    size_t n = 0, cap = 64;
    char **names = cr_malloc(cap * sizeof *names);
    for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", SETTEE_SOURCE_DIR, dirs[d]);
        DIR *dp = opendir(dir);
        for (struct dirent *e; dp && (e = readdir(dp)) && n < cap;) {
            size_t len = strlen(e->d_name);
            if ((len < 6 || strcmp(e->d_name + len - 5, ".yaml")) &&
                (len < 5 || strcmp(e->d_name + len - 4, ".scn")))
                continue;
            char rel[512];
            int k = snprintf(rel, sizeof rel, "%s/%s", dirs[d], e->d_name);
            names[n] = cr_malloc((size_t)k + 1);
            memcpy(names[n++], rel, (size_t)k + 1);
        }
        if (dp)
            closedir(dp);
    }
    return cr_make_param_array(char *, names, n);
}

ParameterizedTest(char **rel, alloc_failure, shipped_scene, .timeout = 1800)
{
    /* SETTEE_ALLOCFAIL_SCENE=scenes/sofa/beam_implicit.scn sweeps that scene only. */
    const char *only = getenv("SETTEE_ALLOCFAIL_SCENE");
    if (only && strcmp(only, *rel))
        return;
    char path[1024], clean_out[512], out[512];
    snprintf(path, sizeof path, "%s/%s", SETTEE_SOURCE_DIR, *rel);
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(clean_out, sizeof clean_out, "%s/settee-allocfail-%d-clean.json", tmp, (int)getpid());
    snprintf(out, sizeof out, "%s/settee-allocfail-%d.json", tmp, (int)getpid());

    /* The clean run: how many allocations, and the state it ends in. */
    st_error err = {0};
    unsigned long before = st_alloc_count() + st_alloc_lib_count();
    cr_assert_eq(run_scene(path, NULL, &err), ST_OK, "%s: %s", *rel, err.msg);
    unsigned long total = st_alloc_count() + st_alloc_lib_count() - before;
    cr_assert_eq(run_scene(path, clean_out, &err), ST_OK, "%s: %s", *rel, err.msg);
    char *clean = slurp(clean_out);
    cr_assert_gt(total, 0);

    unsigned long failed = 0, absorbed = 0, salt = 0;
    for (const char *p = *rel; *p; p++)
        salt = salt * 31 + (unsigned char)*p;
    for (unsigned long n = 0; n < total; n++) {
        if (!swept(n, total, salt))
            continue;
        st_error e = {0};
        remove(out);
        st_alloc_fail_after((long)n);
        st_status st = run_scene(path, out, &e);
        if (st == ST_OK) {
            /* The failure was absorbed: the run must end as the clean one. */
            char *got = slurp(out);
            cr_expect_str_eq(got, clean, "%s: allocation %lu failed, run went on to a different "
                             "state", *rel, n);
            free(got);
            absorbed++;
            continue;
        }
        char msg[4096];
        st_error_format(&e, msg, sizeof msg);
        cr_expect_eq(st, ST_ENOMEM, "%s: allocation %lu of %lu failed: status %d, not ST_ENOMEM: %s",
                     *rel, n, total, (int)st, msg);
        cr_expect(strcasestr(e.msg, "memory"), "%s: allocation %lu: message does not say so: %s",
                  *rel, n, msg);
        failed++;
    }
    cr_log_info("%s: %lu allocations, %lu failed (%s), %lu failures reported, %lu absorbed",
                *rel, total, failed + absorbed,
                failed + absorbed == total ? "all" : "sampled", failed, absorbed);
    remove(out);
    remove(clean_out);
    free(clean);
}
