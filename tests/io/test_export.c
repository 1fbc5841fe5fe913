/* test_export.c - st_scene_export_state: the exact JSON shape, paths of
 * root and nested objects, bit-exact read-back of every number (17
 * significant digits), NaN/infinity written as null with ST_ESOLVER, and
 * I/O errors. The file is read back with a small strict JSON parser. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* ---- a strict little JSON parser (enough for the export format) ---- */

typedef enum jkind { J_NULL, J_NUM, J_STR, J_ARR, J_OBJ, J_BOOL } jkind;
typedef struct jval {
    jkind kind;
    double num;
    char *str;            /* J_STR */
    struct jval *items;   /* J_ARR, J_OBJ (values) */
    char **keys;          /* J_OBJ */
    size_t n;
} jval;

static void skip_ws(const char **p)
{
    while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r')
        (*p)++;
}

static bool parse_value(const char **p, jval *v);

static bool parse_string(const char **p, char **out)
{
    if (**p != '"')
        return false;
    (*p)++;
    const char *start = *p;
    while (**p && **p != '"') {
        if (**p == '\\')
            (*p)++;
        (*p)++;
    }
    if (**p != '"')
        return false;
    *out = strndup(start, (size_t)(*p - start));
    (*p)++;
    return true;
}

static bool parse_value(const char **p, jval *v)
{
    memset(v, 0, sizeof *v);
    skip_ws(p);
    if (**p == '{' || **p == '[') {
        bool obj = **p == '{';
        char close = obj ? '}' : ']';
        v->kind = obj ? J_OBJ : J_ARR;
        (*p)++;
        skip_ws(p);
        if (**p == close) {
            (*p)++;
            return true;
        }
        for (;;) {
            v->items = realloc(v->items, (v->n + 1) * sizeof *v->items);
            if (obj) {
                v->keys = realloc(v->keys, (v->n + 1) * sizeof *v->keys);
                skip_ws(p);
                if (!parse_string(p, &v->keys[v->n]))
                    return false;
                skip_ws(p);
                if (**p != ':')
                    return false;
                (*p)++;
            }
            if (!parse_value(p, &v->items[v->n]))
                return false;
            v->n++;
            skip_ws(p);
            if (**p == ',') {
                (*p)++;
                continue;
            }
            if (**p != close)
                return false;
            (*p)++;
            return true;
        }
    }
    if (**p == '"') {
        v->kind = J_STR;
        return parse_string(p, &v->str);
    }
    if (strncmp(*p, "null", 4) == 0) {
        v->kind = J_NULL;
        *p += 4;
        return true;
    }
    if (strncmp(*p, "true", 4) == 0 || strncmp(*p, "false", 5) == 0) {
        v->kind = J_BOOL;
        *p += **p == 't' ? 4 : 5;
        return true;
    }
    /* JSON numbers only: no "nan", "inf", hex or leading '+' */
    if (!(**p == '-' || (**p >= '0' && **p <= '9')))
        return false;
    if (strspn(*p, "-+.0123456789eE") == 0)
        return false;
    char *end;
    v->kind = J_NUM;
    v->num = strtod(*p, &end);
    if (end == *p || strspn(*p, "-+.0123456789eE") != (size_t)(end - *p))
        return false;
    *p = end;
    return true;
}

static void jfree(jval *v)
{
    for (size_t i = 0; i < v->n; i++) {
        jfree(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

/* Parses a whole file; fails the test when it is not valid JSON. */
static void read_json(const char *path, jval *root)
{
    char *buf = test_read_file(path);
    cr_assert_not_null(buf, "cannot open %s", path);
    const char *p = buf;
    cr_assert(parse_value(&p, root), "not valid JSON near offset %td:\n%s", p - buf, buf);
    skip_ws(&p);
    cr_assert_eq(*p, 0, "trailing text after the JSON value: %s", p);
    free(buf);
}

static const jval *key(const jval *obj, size_t i, const char *name)
{
    cr_assert_eq(obj->kind, J_OBJ);
    cr_assert(i < obj->n, "missing key %s", name);
    cr_assert_str_eq(obj->keys[i], name, "key %zu is '%s', expected '%s'", i, obj->keys[i], name);
    return &obj->items[i];
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Asserts that a [[x,y,z],...] array equals n vec3 in memory, bit for bit. */
static void assert_vec3s(const jval *arr, const double *mem, size_t n, const char *what)
{
    cr_assert_eq(arr->kind, J_ARR, "%s is not an array", what);
    cr_assert_eq(arr->n, n, "%s has %zu entries, expected %zu", what, arr->n, n);
    for (size_t i = 0; i < n; i++) {
        const jval *t = &arr->items[i];
        cr_assert_eq(t->kind, J_ARR);
        cr_assert_eq(t->n, 3, "%s[%zu] has %zu values", what, i, t->n);
        for (size_t k = 0; k < 3; k++) {
            cr_assert_eq(t->items[k].kind, J_NUM);
            cr_assert(same_bits(t->items[k].num, mem[3 * i + k]),
                      "%s[%zu][%zu]: file %.17g (%a), memory %.17g (%a)", what, i, k,
                      t->items[k].num, t->items[k].num, mem[3 * i + k], mem[3 * i + k]);
        }
    }
}

/* ---- fixtures ---- */

static test_rt T;
static st_scene *S;
static st_error E;

static void setup(void)
{
    test_rt_open(&T);
    S = NULL;
    st_error_clear(&E);
}

static void teardown(void)
{
    st_scene_destroy(&S);
    test_rt_close(&T);
}

TestSuite(export, .init = setup, .fini = teardown);

static void load(const char *yaml)
{
    cr_assert_eq(test_load_string(&T, yaml, &S, &E), ST_OK, "load: %s %s\nlog:\n%s", E.where,
                 E.msg, T.log);
    cr_assert_eq(st_scene_init(S, &E), ST_OK, "init: %s %s\nlog:\n%s", E.where, E.msg, T.log);
}

static st_mstate *state(size_t i)
{
    st_mstate *ms[8];
    size_t n = st_scene_states(S, ms, 8);
    cr_assert(i < n, "scene has %zu states", n);
    return ms[i];
}

static const char *SCENE3 = "format: settee/1\n"
                            "root:\n"
                            "  name: root\n"
                            "  dt: 0.1\n"
                            "  objects:\n"
                            "    - MechanicalObject: {name: dofs, position: [[0, 0, 0], [1, 2, 3]]}\n"
                            "  children:\n"
                            "    - name: DeformableObject\n"
                            "      objects:\n"
                            "        - MechanicalObject: {name: dofs, position: \"4 5 6\"}\n"
                            "      children:\n"
                            "        - name: Inner\n"
                            "          objects:\n"
                            "            - MechanicalObject: {name: mo, position: [[7, 8, 9], [1, 1, 1], [2, 2, 2]]}\n";

Test(export, shape_paths_and_bit_exact_values)
{
    load(SCENE3);
    /* values that need all 17 digits, or are extreme */
    st_mstate *root = state(0), *def = state(1), *inner = state(2);
    cr_assert_eq(root->position.n, 2);
    cr_assert_eq(inner->position.n, 3);
    volatile double a = 0.1, b = 0.2;
    root->position.r[0] = a + b; /* 0.30000000000000004 */
    root->position.r[1] = 1e-300;
    root->position.r[2] = 5e-324; /* smallest subnormal */
    root->position.r[3] = -0.0;
    root->position.r[4] = 1.0 / 3.0;
    root->position.r[5] = DBL_MAX;
    root->velocity.r[0] = -DBL_MIN;
    root->velocity.r[4] = 123456789.123456789;
    root->velocity.r[5] = -2.5e-17;
    def->position.r[1] = M_PI;
    inner->velocity.r[8] = -1e300;

    for (int i = 0; i < 3; i++)
        cr_assert_eq(st_scene_step(S, 0, &E), ST_OK, "%s", E.msg);

    const char *path = test_write_temp("state.json", "");
    cr_assert_eq(st_scene_export_state(S, path, 3, &E), ST_OK, "%s", E.msg);

    jval doc;
    read_json(path, &doc);
    cr_assert_eq(doc.kind, J_OBJ);
    cr_assert_eq(doc.n, 3, "top level has keys time, steps, objects only");
    const jval *t = key(&doc, 0, "time");
    cr_assert_eq(t->kind, J_NUM);
    cr_assert(same_bits(t->num, st_scene_time(S)), "time %.17g vs %.17g", t->num,
              st_scene_time(S));
    volatile double dt = 0.1;
    cr_assert(same_bits(t->num, dt + dt + dt), "time after 3 steps of 0.1 is 0.1+0.1+0.1");
    const jval *steps = key(&doc, 1, "steps");
    cr_assert_eq(steps->kind, J_NUM);
    cr_assert_eq(steps->num, 3.0);
    const jval *objs = key(&doc, 2, "objects");
    cr_assert_eq(objs->kind, J_ARR);
    cr_assert_eq(objs->n, 3);

    const char *paths[] = {"/dofs", "/DeformableObject/dofs", "/DeformableObject/Inner/mo"};
    st_mstate *ms[] = {root, def, inner};
    for (size_t i = 0; i < 3; i++) {
        const jval *o = &objs->items[i];
        cr_assert_eq(o->n, 3, "object %zu has keys path, position, velocity only", i);
        const jval *p = key(o, 0, "path");
        cr_assert_eq(p->kind, J_STR);
        cr_assert_str_eq(p->str, paths[i]);
        assert_vec3s(key(o, 1, "position"), ms[i]->position.r, ms[i]->position.n, paths[i]);
        cr_assert_eq(ms[i]->velocity.n, ms[i]->position.n);
        assert_vec3s(key(o, 2, "velocity"), ms[i]->velocity.r, ms[i]->velocity.n, paths[i]);
    }
    /* the values set above, explicitly (so a wrong memory layout cannot hide them) */
    const jval *rp = &objs->items[0].items[1];
    cr_assert(same_bits(rp->items[0].items[0].num, 0.30000000000000004));
    cr_assert(same_bits(rp->items[0].items[1].num, 1e-300));
    cr_assert(same_bits(rp->items[0].items[2].num, 5e-324));
    cr_assert(signbit(rp->items[1].items[0].num) && rp->items[1].items[0].num == 0.0,
              "-0 keeps its sign");
    cr_assert(same_bits(rp->items[1].items[2].num, DBL_MAX));
    jfree(&doc);
    remove(path);
}

Test(export, exact_text_of_a_small_state)
{
    load("format: settee/1\n"
         "root:\n"
         "  dt: 0.5\n"
         "  objects:\n"
         "    - MechanicalObject: {name: dofs, position: [[1, 2, 3]], velocity: [[0.5, 0, -1]]}\n");
    cr_assert_eq(st_scene_step(S, 0, &E), ST_OK, "%s", E.msg);
    const char *path = test_write_temp("small.json", "");
    cr_assert_eq(st_scene_export_state(S, path, 1, &E), ST_OK, "%s", E.msg);
    char text[4096];
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    cr_assert_str_eq(text, "{\"time\": 0.5, \"steps\": 1, \"objects\": [\n"
                           " {\"path\": \"/dofs\",\n"
                           "  \"position\": [\n"
                           "    [1, 2, 3]\n"
                           "  ],\n"
                           "  \"velocity\": [\n"
                           "    [0.5, 0, -1]\n"
                           "  ]}\n"
                           "]}\n");
    remove(path);
}

Test(export, scene_without_states)
{
    load("format: settee/1\nroot:\n  name: root\n");
    const char *path = test_write_temp("empty.json", "");
    cr_assert_eq(st_scene_export_state(S, path, 0, &E), ST_OK, "%s", E.msg);
    jval doc;
    read_json(path, &doc);
    cr_assert_eq(doc.n, 3);
    cr_assert_eq(key(&doc, 2, "objects")->kind, J_ARR);
    cr_assert_eq(key(&doc, 2, "objects")->n, 0);
    cr_assert_eq(key(&doc, 1, "steps")->num, 0.0);
    jfree(&doc);
    remove(path);
}

Test(export, non_finite_values_are_null_and_an_error)
{
    load(SCENE3);
    st_mstate *def = state(1);
    def->position.r[1] = NAN;
    def->velocity.r[2] = -INFINITY;
    const char *path = test_write_temp("nan.json", "");
    cr_assert_eq(st_scene_export_state(S, path, 0, &E), ST_ESOLVER);
    cr_assert(strstr(E.msg, "non-finite") != NULL, "%s", E.msg);
    cr_assert(strstr(E.msg, path) != NULL, "the message names the file: %s", E.msg);
    cr_assert_str_eq(E.path, "/DeformableObject/dofs");

    /* the file is still complete, valid JSON with null in place of NaN/-inf */
    jval doc;
    read_json(path, &doc);
    const jval *o = &key(&doc, 2, "objects")->items[1];
    cr_assert_eq(key(o, 1, "position")->items[0].items[1].kind, J_NULL);
    cr_assert_eq(key(o, 2, "velocity")->items[0].items[2].kind, J_NULL);
    cr_assert_eq(key(o, 1, "position")->items[0].items[0].kind, J_NUM);
    jfree(&doc);
    remove(path);
}

Test(export, unwritable_file_is_an_io_error)
{
    load(SCENE3);
    const char *path = "/nonexistent-settee-dir/state.json";
    cr_assert_eq(st_scene_export_state(S, path, 0, &E), ST_EIO);
    cr_assert(strstr(E.msg, path) != NULL, "%s", E.msg);
    cr_assert(strstr(E.msg, "No such file or directory") != NULL, "%s", E.msg);
}

Test(export, full_disk_is_an_io_error)
{
    FILE *probe = fopen("/dev/full", "w");
    if (!probe)
        cr_skip_test("no /dev/full");
    fclose(probe);
    load(SCENE3);
    cr_assert_eq(st_scene_export_state(S, "/dev/full", 0, &E), ST_EIO);
    cr_assert(strstr(E.msg, "/dev/full") != NULL, "%s", E.msg);
}

Test(export, bad_arguments)
{
    load(SCENE3);
    cr_assert_eq(st_scene_export_state(S, "", 0, &E), ST_EINVAL);
    cr_assert_eq(st_scene_export_state(NULL, "x.json", 0, &E), ST_EINVAL);
}

/* A real simulation: the exported state equals the integrated one bit for
 * bit (needs the bundled ODESolver.Forward and Mass plugins). */
Test(export, after_a_simulated_fall)
{
    load("format: settee/1\n"
         "root:\n"
         "  gravity: [0, -9.81, 0]\n"
         "  dt: 0.01\n"
         "  objects:\n"
         "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass]}\n"
         "  children:\n"
         "    - name: Ball\n"
         "      objects:\n"
         "        - EulerExplicitSolver: {symplectic: true}\n"
         "        - MechanicalObject: {name: dofs, position: [[0, 0, 0], [1, 0.1, 0]]}\n"
         "        - UniformMass: {totalMass: 2}\n");
    for (int i = 0; i < 10; i++)
        cr_assert_eq(st_scene_step(S, 0, &E), ST_OK, "%s", E.msg);
    st_mstate *ms = state(0);
    cr_assert(ms->position.r[1] < 0, "the ball fell");
    const char *path = test_write_temp("fall.json", "");
    cr_assert_eq(st_scene_export_state(S, path, 10, &E), ST_OK, "%s", E.msg);
    jval doc;
    read_json(path, &doc);
    const jval *o = &key(&doc, 2, "objects")->items[0];
    cr_assert_str_eq(key(o, 0, "path")->str, "/Ball/dofs");
    assert_vec3s(key(o, 1, "position"), ms->position.r, 2, "position");
    assert_vec3s(key(o, 2, "velocity"), ms->velocity.r, 2, "velocity");
    jfree(&doc);
    remove(path);
}

/* --export-state files and checkpoints get an ordinary file's permissions,
 * the umask's, so that colleagues sharing a folder can read them (issue 31);
 * they were 0600, mkstemp's. */
Test(export, exports_and_checkpoints_honour_the_umask)
{
    char dir[512], cmd[4096], out[4096];
    test_make_dir(dir, sizeof dir, "umask");
    static const struct {
        const char *mask, *mode;
    } cases[] = {{"022", "644"}, {"027", "640"}, {"077", "600"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && umask %s && rm -f s.json s.ck && SETTEE_PLUGIN_PATH=%s %s run "
                 "%s/scenes/falling_particles.yaml -n 2 --no-progress -q --export-state s.json "
                 "--checkpoint s.ck && stat -c '%%a' s.json s.ck",
                 dir, cases[i].mask, SETTEE_BUILD_PLUGIN_DIR, SETTEE_CLI, SETTEE_SOURCE_DIR);
        cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
        char want[32];
        snprintf(want, sizeof want, "%s\n%s\n", cases[i].mode, cases[i].mode);
        cr_assert_str_eq(out, want, "umask %s", cases[i].mask);
    }
    test_remove_dir(dir);
}
