/* test_scenes.c - every shipped scene loads and initialises, and the seed's
 * diagonal beam reproduces SOFA's own result. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

static st_scene *load(test_rt *t, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/%s", SETTEE_SOURCE_DIR, rel);
    st_scene *s = NULL;
    st_error err = {0};
    char msg[4096];
    cr_assert_eq(st_scene_load(t->rt, path, &s, &err), ST_OK, "%s: %s", rel,
                 st_error_format(&err, msg, sizeof msg));
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s: %s", rel,
                 st_error_format(&err, msg, sizeof msg));
    return s;
}

Test(scenes, every_shipped_scene_loads_and_steps)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/scenes", SETTEE_SOURCE_DIR);
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        bool yaml = n >= 6 && strcmp(e->d_name + n - 5, ".yaml") == 0;
        bool scn = n >= 5 && strcmp(e->d_name + n - 4, ".scn") == 0;
        if (!yaml && !scn)
            continue;
        test_rt t;
        test_rt_open(&t);
        st_scene *s = load(&t, e->d_name);
        st_error err = {0};
        for (int i = 0; i < 3; i++)
            cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s: %s", e->d_name, err.msg);
        cr_assert_eq(t.nerrors, 0, "%s logged errors:\n%s", e->d_name, t.log);
        st_scene_destroy(&s);
        test_rt_close(&t);
        count++;
    }
    closedir(d);
    cr_assert_geq(count, 3, "expected the shipped scenes, found %d", count);
}

/* SOFA's result for the seed's diagonal-mass beam (EulerExplicitSolver,
 * symplectic false, dt 1e-5): node 175 after 3000 steps. */
Test(scenes, diagonal_beam_matches_sofa)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = load(&t, "beam_explicit_diagonal.yaml");
    st_error err = {0};
    for (int i = 0; i < 3000; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_mstate *ms[4];
    cr_assert_eq(st_scene_states(s, ms, 4), 1);
    cr_assert_eq(ms[0]->position.n, 176);
    double y = ms[0]->position.r[3 * 175 + 1], vy = ms[0]->velocity.r[3 * 175 + 1];
    cr_assert(fabs(y - 1.495587) < 5e-7, "y = %.9f", y);
    cr_assert(fabs(vy - (-0.2943)) < 5e-5, "vy = %.9f", vy);
    cr_assert(fabs(st_scene_time(s) - 0.03) < 1e-12);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
