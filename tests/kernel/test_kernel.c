/* test_kernel.c - registry, typed fields, links, lazy engines and visitors,
 * through test classes registered directly in a runtime. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

typedef struct probe {
    st_component base;
    bool b;
    int i;
    unsigned u;
    double r;
    char *s;
    st_vec3 v3;
    st_array reals, uints, vec3s, edges, tris, quads, tetras, hexas, strings;
    st_component *state;
    st_component *any;
} probe;

static const st_field probe_fields[] = {
    ST_BOOL(probe, b, "b", "false", "a bool"),
    ST_INT(probe, i, "i", "-3", "an int"),
    ST_UINT(probe, u, "u", "7", "an unsigned"),
    ST_FIELD_EX(probe, r, "r", ST_T_REAL, double, "0.5", "a real in [0, 10]", 0, "oldR", 0.0, 10.0),
    ST_STRING(probe, s, "s", "hello world", "a string"),
    ST_VEC3(probe, v3, "v3", "0 -9.81 0", "a vec3"),
    ST_REALS(probe, reals, "reals", NULL, "reals"),
    ST_UINTS(probe, uints, "uints", NULL, "uints"),
    ST_VEC3S(probe, vec3s, "vec3s", NULL, "vec3s"),
    ST_EDGES(probe, edges, "edges", NULL, "edges"),
    ST_TRIANGLES(probe, tris, "tris", NULL, "triangles"),
    ST_QUADS(probe, quads, "quads", NULL, "quads"),
    ST_TETRAS(probe, tetras, "tetras", NULL, "tetrahedra"),
    ST_HEXAS(probe, hexas, "hexas", NULL, "hexahedra"),
    ST_STRINGS(probe, strings, "strings", NULL, "strings"),
    ST_LINK(probe, state, "state", ST_LINK_STATE, "a state"),
    ST_LINK(probe, any, "any", ST_LINK_ANY, "any component"),
    ST_FIELD_END};

static const char *const probe_aliases[] = {"OldProbe", NULL};
static const st_class probe_class = {
    .struct_size = sizeof(st_class),
    .name = "Probe",
    .category = "Test",
    .description = "every field type",
    .aliases = probe_aliases,
    .instance_size = sizeof(probe),
    .fields = probe_fields,
};

/* An engine: out = 2 * in, counting its updates. */
typedef struct doubler {
    st_component base;
    st_array in, out;
    int updates;
} doubler;

static const st_field doubler_fields[] = {
    ST_REALS(doubler, in, "in", "1 2", "input"),
    ST_OUTPUT(doubler, out, "out", ST_T_REALS, st_array, "output"),
    ST_FIELD_END};

static st_status doubler_update(st_component *self, st_error *err)
{
    doubler *d = (doubler *)self;
    ST_TRY(st_array_resize(&d->out, ST_T_REALS, d->in.n, err));
    for (size_t k = 0; k < d->in.n; k++)
        d->out.r[k] = 2 * d->in.r[k];
    d->updates++;
    return ST_OK;
}

static const st_engine_ops doubler_ops = {sizeof(st_engine_ops), doubler_update};
static const st_class doubler_class = {
    .struct_size = sizeof(st_class),
    .name = "Doubler",
    .category = "Engine",
    .description = "out = 2 in",
    .instance_size = sizeof(doubler),
    .fields = doubler_fields,
    .engine = &doubler_ops,
};

static test_rt T;

static void setup(void)
{
    test_rt_open(&T);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(T.rt), &probe_class, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(st_registry_add(st_runtime_registry(T.rt), &doubler_class, &err), ST_OK, "%s",
                 err.msg);
}
static void teardown(void) { test_rt_close(&T); }

static probe *new_probe(st_scene **s)
{
    st_error err = {0};
    cr_assert_eq(st_scene_create(T.rt, s, &err), ST_OK);
    st_component *c = NULL;
    cr_assert_eq(st_node_add_object(st_scene_root(*s), "Probe", "p", &c, &err), ST_OK, "%s",
                 err.msg);
    return (probe *)c;
}

TestSuite(kernel, .init = setup, .fini = teardown);

Test(kernel, registry_lookup_alias_and_suggestions)
{
    st_registry *r = st_runtime_registry(T.rt);
    cr_assert_eq(st_registry_find(r, "Probe"), &probe_class);
    cr_assert_eq(st_registry_find(r, "OldProbe"), &probe_class);
    cr_assert_null(st_registry_find(r, "Prob"));
    const char *sugg[3];
    size_t n = st_registry_suggest(r, "MechanicalObjet", sugg, 3);
    cr_assert_geq(n, 1);
    cr_assert_str_eq(sugg[0], "MechanicalObject");
    n = st_registry_suggest(r, "Zzzzzzzzzzzzzzz", sugg, 3);
    cr_assert_eq(n, 0);
    /* A second class with a taken name is refused, naming both plugins. */
    st_error err = {0};
    cr_assert_eq(st_registry_add(r, &probe_class, &err), ST_EPLUGIN);
    cr_assert(strstr(err.msg, "Probe") && strstr(err.msg, "registered twice"), "%s", err.msg);
}

Test(kernel, defaults_of_every_type)
{
    st_scene *s;
    probe *p = new_probe(&s);
    cr_assert_eq(p->b, false);
    cr_assert_eq(p->i, -3);
    cr_assert_eq(p->u, 7u);
    cr_assert_eq(p->r, 0.5);
    cr_assert_str_eq(p->s, "hello world");
    cr_assert(p->v3[0] == 0 && p->v3[1] == -9.81 && p->v3[2] == 0);
    cr_assert_eq(p->reals.n, 0);
    cr_assert_str_eq(p->base.name, "p");
    cr_assert_not(st_component_is_set(&p->base, "r"));
    st_scene_destroy(&s);
}

Test(kernel, good_values_of_every_type)
{
    st_scene *s;
    probe *p = new_probe(&s);
    st_component *c = &p->base;
    st_error err = {0};
#define SET(k, v) cr_assert_eq(st_component_set(c, k, v, &err), ST_OK, "%s=%s: %s", k, v, err.msg)
    SET("b", "true");
    cr_assert(p->b);
    SET("b", "0");
    cr_assert_not(p->b);
    SET("i", "-2147483648");
    cr_assert_eq(p->i, -2147483647 - 1);
    SET("u", "4294967295");
    cr_assert_eq(p->u, 4294967295u);
    SET("r", "1e-5");
    cr_assert_eq(p->r, 1e-5);
    SET("oldR", ".5"); /* the alias */
    cr_assert_eq(p->r, 0.5);
    SET("s", "a b  c");
    cr_assert_str_eq(p->s, "a b  c");
    SET("v3", " 1  2.5 -3 ");
    cr_assert(p->v3[0] == 1 && p->v3[1] == 2.5 && p->v3[2] == -3);
    SET("reals", "1 2 3.5");
    cr_assert(p->reals.n == 3 && p->reals.r[2] == 3.5);
    SET("uints", "4 5");
    cr_assert(p->uints.n == 2 && p->uints.u[1] == 5);
    SET("vec3s", "0 0 0 1 2 3");
    cr_assert(p->vec3s.n == 2 && p->vec3s.r[5] == 3);
    SET("edges", "0 1 1 2");
    cr_assert(p->edges.n == 2 && p->edges.u[3] == 2);
    SET("tris", "0 1 2");
    cr_assert_eq(p->tris.n, 1);
    SET("quads", "0 1 2 3 4 5 6 7");
    cr_assert_eq(p->quads.n, 2);
    SET("tetras", "0 1 2 3");
    cr_assert_eq(p->tetras.n, 1);
    SET("hexas", "0 1 2 3 4 5 6 7");
    cr_assert(p->hexas.n == 1 && p->hexas.u[7] == 7);
    SET("strings", "Mass ODESolver.Forward");
    cr_assert(p->strings.n == 2 && !strcmp(p->strings.s[1], "ODESolver.Forward"));
    SET("reals", "");
    cr_assert_eq(p->reals.n, 0);
    cr_assert(st_component_is_set(c, "r"));
#undef SET
    st_scene_destroy(&s);
}

Test(kernel, bad_values_of_every_type)
{
    st_scene *s;
    probe *p = new_probe(&s);
    st_component *c = &p->base;
    struct {
        const char *key, *val, *want;
    } bad[] = {
        {"b", "yes", "true or false"},    {"b", "2", "bool"},
        {"i", "1.5", "integer"},          {"i", "99999999999", "out of range"},
        {"u", "-1", "unsigned"},          {"u", "x", "unsigned"},
        {"r", "abc", "real number"},      {"r", "1e-5x", "real number"},
        {"r", "11", "must be in [0, 10]"}, {"r", "nan", "real number"},
        {"r", "1 2", "one real"},         {"v3", "1 2", "3 reals"},
        {"v3", "1 2 3 4", "3 reals"},     {"v3", "1 a 3", "real number"},
        {"vec3s", "1 2 3 4", "multiple of 3"}, {"edges", "0 1 2", "multiple of 2"},
        {"hexas", "0 1 2 3", "multiple of 8"}, {"uints", "1 -2", "unsigned"},
        {"tris", "0 1 x", "unsigned"},    {"nosuch", "1", "has no field 'nosuch'"},
        {"state", "dofs", "expects a link"}, {"reals", "@", "must be followed by a path"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        st_error err = {0};
        st_status st = st_component_set(c, bad[k].key, bad[k].val, &err);
        cr_assert_neq(st, ST_OK, "%s=%s accepted", bad[k].key, bad[k].val);
        cr_assert(strstr(err.msg, bad[k].want), "%s=%s: '%s' lacks '%s'", bad[k].key, bad[k].val,
                  err.msg, bad[k].want);
    }
    /* A failed parse leaves the previous value. */
    cr_assert_eq(p->r, 0.5);
    cr_assert(p->v3[1] == -9.81);
    st_scene_destroy(&s);
}

Test(kernel, yaml_values_nested_lists_and_positions)
{
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  name: root\n"
                       "  objects:\n"
                       "    - Probe: {name: p, vec3s: [[0, 0, 0], [1, 2, 3]], edges: [[0, 1], [1, 2]],\n"
                       "              reals: [[1, 2], [3]], strings: [a b, c], r: 1e-5}\n"
                       "    - Probe: {name: q, edges: [[0, 1, 2], [3]]}\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_neq(test_load_string(&T, yaml, &s, &err), ST_OK);
    cr_assert(strstr(err.where, "test.yaml:7:"), "%s", err.where);
    cr_assert(strstr(err.msg, "each inner list holds 2"), "%s", err.msg);
    cr_assert_null(s);
    /* Without the bad object the nested forms load. */
    char good[1024];
    snprintf(good, sizeof good, "%.*s", (int)(strstr(yaml, "    - Probe: {name: q") - yaml), yaml);
    cr_assert_eq(test_load_string(&T, good, &s, &err), ST_OK, "%s", err.msg);
    probe *p = (probe *)st_node_object(st_scene_root(s), 0);
    cr_assert(p->vec3s.n == 2 && p->vec3s.r[4] == 2);
    cr_assert(p->edges.n == 2 && p->edges.u[2] == 1);
    cr_assert_eq(p->reals.n, 3);
    cr_assert(p->strings.n == 2 && !strcmp(p->strings.s[0], "a b"));
    cr_assert_eq(p->r, 1e-5);
    st_scene_destroy(&s);
}

static const char *links_scene =
    "format: settee/1\n"
    "root:\n"
    "  name: root\n"
    "  objects:\n"
    "    - MechanicalObject: {name: top, position: [[0, 0, 0]]}\n"
    "    - Doubler: {name: d, in: [1, 2, 3]}\n"
    "  children:\n"
    "    - name: A\n"
    "      objects:\n"
    "        - MechanicalObject: {name: dofs, position: [[1, 1, 1]]}\n"
    "        - Probe: {name: p1, state: \"@dofs\", any: \"@/A/B/p3\", reals: \"@d.out\"}\n"
    "      children:\n"
    "        - name: B\n"
    "          objects:\n"
    "            - Probe: {name: p2, state: \"@../dofs\", any: \"@top\", vec3s: \"@../dofs.position\"}\n"
    "            - Probe: {name: p3, state: \"@/A\", reals: \"@/d.out\"}\n";

Test(kernel, object_and_data_links_resolve)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&T, links_scene, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s %s", err.where, err.msg);
    st_node *root = st_scene_root(s), *a = st_node_child(root, 0), *b = st_node_child(a, 0);
    /* The root got a DefaultAnimationLoop in front at init. */
    st_component *top = st_node_object(root, 1), *dofs = st_node_object(a, 0);
    doubler *d = (doubler *)st_node_object(root, 2);
    probe *p1 = (probe *)st_node_object(a, 1), *p2 = (probe *)st_node_object(b, 0),
          *p3 = (probe *)st_node_object(b, 1);
    cr_assert_eq(p1->state, dofs);            /* relative, same node */
    cr_assert_eq(p1->any, &p3->base);         /* absolute */
    cr_assert_eq(p2->state, dofs);            /* ../ */
    cr_assert_eq(p2->any, top, "resolved to %s", p2->any ? p2->any->name : "NULL"); /* upward search */
    cr_assert_eq(p3->state, dofs);            /* a node: its MechanicalObject */
    cr_assert(p1->reals.n == 3 && p1->reals.r[2] == 6); /* data link through an engine */
    cr_assert(p3->reals.n == 3 && p3->reals.r[0] == 2);
    cr_assert(p2->vec3s.n == 1 && p2->vec3s.r[0] == 1);
    cr_assert_eq(d->updates, 1, "the engine ran %d times", d->updates);

    /* Lazy: pulling without a change does not rerun the engine; a change does. */
    cr_assert_eq(st_component_update_inputs(&p1->base, &err), ST_OK);
    cr_assert_eq(d->updates, 1);
    cr_assert_eq(st_component_set(&d->base, "in", "5", &err), ST_OK);
    cr_assert_eq(d->updates, 1);
    cr_assert_eq(st_component_update_inputs(&p1->base, &err), ST_OK);
    cr_assert_eq(d->updates, 2);
    cr_assert(p1->reals.n == 1 && p1->reals.r[0] == 10);
    cr_assert_eq(st_component_update_inputs(&p3->base, &err), ST_OK);
    cr_assert_eq(d->updates, 2); /* already up to date */
    cr_assert(p3->reals.n == 1 && p3->reals.r[0] == 10);
    char path[256];
    cr_assert_str_eq(st_component_path(&p3->base, path, sizeof path), "/A/B/p3");
    cr_assert_str_eq(st_component_path(top, path, sizeof path), "/top");
    st_scene_destroy(&s);
}

static void expect_link_error(const char *obj_line, const char *want, int line)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\nroot:\n  name: root\n  objects:\n"
             "    - MechanicalObject: {name: dofs}\n"
             "    - Doubler: {name: d}\n"
             "%s\n",
             obj_line);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&T, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_ELINK, "%s: %s", obj_line, err.msg);
    char where[64];
    snprintf(where, sizeof where, "test.yaml:%d:", line);
    cr_assert(strstr(err.where, where), "%s: where '%s'", obj_line, err.where);
    cr_assert(strstr(err.msg, want), "%s: '%s' lacks '%s'", obj_line, err.msg, want);
    st_scene_destroy(&s);
}

Test(kernel, dangling_and_wrong_links_are_errors_at_their_line)
{
    expect_link_error("    - Probe: {state: \"@nothere\"}", "does not resolve", 7);
    /* A slip in a link's name: the closest names of the node (issue 31). */
    expect_link_error("    - Probe: {state: \"@dof\"}", "(did you mean 'dofs'?)", 7);
    expect_link_error("    - Probe: {state: \"@d\"}", "not a MechanicalObject", 7);
    expect_link_error("    - Probe: {reals: \"@d.nofield\"}", "has no field 'nofield'", 7);
    expect_link_error("    - Probe: {reals: \"@d\"}", "names no field", 7);
    /* (reals into uints convert, as SOFA's links: test_engines_catalogue) */
    expect_link_error("    - Probe: {edges: \"@d.out\"}", "expects edges", 7);
    expect_link_error("    - Probe: {any: \"@../x\"}", "above the root", 7);
}

typedef struct visit_log {
    char buf[256];
} visit_log;

static st_visit td(st_node *n, void *ud)
{
    visit_log *l = ud;
    strcat(l->buf, "+");
    strcat(l->buf, st_node_name(n));
    return strcmp(st_node_name(n), "P") ? ST_VISIT_CONTINUE : ST_VISIT_PRUNE;
}

static void bu(st_node *n, void *ud)
{
    visit_log *l = ud;
    strcat(l->buf, "-");
    strcat(l->buf, st_node_name(n));
}

Test(kernel, visitors_order_and_pruning)
{
    st_scene *s;
    st_error err = {0};
    cr_assert_eq(st_scene_create(T.rt, &s, &err), ST_OK);
    st_node *r = st_scene_root(s), *a, *b, *p, *a1, *p1, *off, *off1;
    cr_assert_eq(st_node_add_child(r, "A", &a, &err), ST_OK);
    cr_assert_eq(st_node_add_child(a, "A1", &a1, &err), ST_OK);
    cr_assert_eq(st_node_add_child(r, "P", &p, &err), ST_OK);
    cr_assert_eq(st_node_add_child(p, "P1", &p1, &err), ST_OK);
    cr_assert_eq(st_node_add_child(r, "B", &b, &err), ST_OK);
    cr_assert_eq(st_node_add_child(r, "Off", &off, &err), ST_OK);
    cr_assert_eq(st_node_add_child(off, "Off1", &off1, &err), ST_OK);
    cr_assert_eq(st_node_set(off, "activated", "false", &err), ST_OK);
    visit_log l = {""};
    st_visitor v = {td, bu, &l};
    st_node_execute(r, &v);
    /* Top-down pre-order, P pruned (its child skipped), inactive Off skipped;
     * bottom-up in the reverse order of the top-down calls. */
    cr_assert_str_eq(l.buf, "+root+A+A1+P+B-B-P-A1-A-root");
    st_scene_destroy(&s);
}

Test(kernel, context_is_inherited_from_the_root)
{
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  name: root\n"
                       "  gravity: [0, 0, -10]\n"
                       "  dt: 0.5\n"
                       "  children:\n"
                       "    - name: A\n"
                       "      dt: 7\n"
                       "      children:\n"
                       "        - name: B\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&T, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert(strstr(T.log, "overwritten by the root"), "%s", T.log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_node *b = st_node_child(st_node_child(st_scene_root(s), 0), 0);
    double g[3];
    st_node_gravity(b, g);
    cr_assert(g[0] == 0 && g[1] == 0 && g[2] == -10);
    cr_assert_eq(st_node_dt(b), 0.5);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_node_time(b), 0.5);
    char path[64];
    cr_assert_str_eq(st_node_path(b, path, sizeof path), "/A/B");
    cr_assert(strstr(T.log, "DefaultAnimationLoop was added"), "%s", T.log);
    st_scene_destroy(&s);
}

Test(kernel, duplicate_names_in_a_node_are_an_error)
{
    const char *yaml = "format: settee/1\nroot:\n  name: root\n  objects:\n"
                       "    - Probe: {name: x}\n"
                       "    - Doubler: {name: x}\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&T, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_ESCENE);
    cr_assert(strstr(err.where, "test.yaml:6:"), "%s", err.where);
    cr_assert(strstr(err.msg, "already exists"), "%s", err.msg);
    st_scene_destroy(&s);
}

Test(kernel, allocation_failures_are_clean)
{
    /* Fail each allocation of a scene build in turn: always a clean error. */
    for (long k = 0; k < 400; k++) {
        st_scene *s = NULL;
        st_error err = {0};
        st_alloc_fail_after(k);
        st_status st = test_load_string(&T, links_scene, &s, &err);
        if (st == ST_OK)
            st = st_scene_init(s, &err);
        st_alloc_fail_after(-1);
        if (st != ST_OK)
            cr_assert(err.msg[0], "allocation %ld: empty message", k);
        st_scene_destroy(&s);
        if (st == ST_OK && k > 50)
            break;
    }
}
