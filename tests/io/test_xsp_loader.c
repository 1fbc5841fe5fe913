/* test_xsp_loader.c - MeshXspLoader on files of our own: an Xsp 4.0 file
 * with comments, ignored commands (step, frce, grav, visc) and vector
 * springs gives the masses' positions and one edge per spring (1-based in
 * the file); version 3.0 reads six numbers per spring; malformed files are
 * errors at their line with SOFA's messages. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(xsp, .init = setup, .fini = teardown);

static st_status load(const char *name, const char *text, st_scene **out, st_error *err)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\nroot:\n  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.IO.Mesh]}\n"
             "    - MeshXspLoader: {name: loader, filename: \"%s\"}\n",
             path);
    *out = NULL;
    st_status s = st_scene_load_string(T.rt, yaml, strlen(yaml), "xsp.yaml", out, err);
    if (s == ST_OK)
        s = st_scene_init(*out, err);
    if (s != ST_OK && *out)
        st_scene_destroy(out);
    return s;
}

Test(xsp, version4_with_vector_springs)
{
    st_scene *s;
    st_error err = {0};
    const char *text = "Xsp 4.0\n# three masses\nnumm 3\nnums 2\n"
                       "mass 1 s 0 0 0  0 0 0  0.1 0\nmass 2 i 1 2 3  0 0 0  -0.1 0\n"
                       "step 0.01 whatever follows\nmass 3 s 4 5 6 0 0 0 1 0\n"
                       "grav 0 -9.8 0\nvisc 0.5\nfrce 1 2 3 # ignored\n"
                       "lspg 1 1 3 100 1 -1  1 0 0\nlspg 2 3 2 100 1 2.5  0 1 0\n";
    cr_assert_eq(load("a.xs4", text, &s, &err), ST_OK, "%s", err.msg);
    st_component *l = topo_get(s, "loader");
    const st_array *p = topo_arr(l, "position");
    cr_assert_eq(p->n, 3);
    const double want[9] = {0, 0, 0, 1, 2, 3, 4, 5, 6};
    for (int i = 0; i < 9; i++)
        cr_assert(p->r[i] == want[i], "position[%d] = %g", i, p->r[i]);
    const unsigned e[] = {0, 2, 2, 1};
    topo_assert_tuples(topo_arr(l, "edges"), 2, e, 2, "edges");
    st_scene_destroy(&s);
}

Test(xsp, version3_and_errors)
{
    st_scene *s;
    st_error err = {0};
    cr_assert_eq(load("b.xs3", "Xsp 3.0\nmass 1 s 0 0 0 0 0 0 1 0\nmass 2 s 1 0 0 0 0 0 1 0\n"
                               "lspg 1 2 1 10 0 1\n",
                      &s, &err),
                 ST_OK, "%s", err.msg);
    const unsigned e[] = {1, 0};
    topo_assert_tuples(topo_arr(topo_get(s, "loader"), "edges"), 2, e, 1, "edges");
    st_scene_destroy(&s);
    struct {
        const char *text, *want;
    } bad[] = {
        {"Xsp 2.0\n", "Xsp version '2.0' is not supported yet"},
        {"XSP 3.0\n", "not to be a Xsp file"},
        {"Xsp 3.0\nnumm 2\nnumm 2\n", ":3: The file contains multiple 'numm' commands"},
        {"Xsp 3.0\nmass 1 s 0 0 0 0 0 0 1 0\nlspg 1 1 2 10 0 1\n",
         ":3: incorrect mass indexes in spring 1 1 2"},
        {"Xsp 3.0\nmass 1 s 0 0 x 0 0 0 1 0\n", ":2: Error while reading 'mass' command."},
        {"Xsp 3.0\n\nspring 1 2\n", ":3: Unknown MassSpring keyword 'spring'."},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err = (st_error){0};
        cr_assert_neq(load("c.xs3", bad[i].text, &s, &err), ST_OK, "case %zu loaded", i);
        cr_assert(strstr(err.msg, bad[i].want) || strstr(err.where, bad[i].want),
                  "case %zu: '%s' at '%s', expected '%s'", i, err.msg, err.where, bad[i].want);
    }
}
