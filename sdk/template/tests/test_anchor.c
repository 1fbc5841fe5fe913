/* test_anchor.c - Criterion tests of the Anchor plugin: it loads, its class
 * and fields are what the docs say, the scene matches the closed-form
 * discrete solution, and a bad value is refused with the field's name. */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>
#include <settee/settee.h>

/* ANCHOR_PLUGIN_DIR (the folder holding libAnchor.so) and ANCHOR_SCENE come
 * from CMakeLists.txt. */

static st_runtime *open_runtime(void)
{
    st_runtime *rt = NULL;
    st_error err = {0};
    cr_assert_eq(st_runtime_create(&rt, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_runtime_add_plugin_path(rt, ANCHOR_PLUGIN_DIR, &err), ST_OK, "%s", err.msg);
    return rt;
}

Test(anchor, plugin_registers_the_force_field)
{
    st_runtime *rt = open_runtime();
    st_error err = {0};
    cr_assert_eq(st_runtime_load_plugin(rt, "Anchor", &err), ST_OK, "%s", err.msg);
    const st_plugin_info *pi = st_runtime_find_plugin(rt, "Anchor");
    cr_assert_not_null(pi);
    cr_assert_eq(pi->abi_major, ST_ABI_MAJOR);

    const st_class *c = st_registry_find(st_runtime_registry(rt), "AnchorForceField");
    cr_assert_not_null(c);
    cr_assert_str_eq(c->category, "ForceField");
    cr_assert_not_null(c->forcefield);
    cr_assert_str_eq(c->fields[0].name, "stiffness");
    cr_assert_str_eq(c->fields[0].def, "100");
    cr_assert_str_eq(c->fields[1].name, "anchor");
    cr_assert_eq(c->fields[1].type, ST_T_VEC3);
    cr_assert_null(c->fields[2].name);
    st_runtime_destroy(&rt);
}

Test(anchor, scene_matches_the_closed_form)
{
    st_runtime *rt = open_runtime();
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(rt, ANCHOR_SCENE, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = NULL;
    cr_assert_eq(st_scene_states(s, &ms, 1), 1);

    const double h = 0.01, w2 = 8.0 / 2.0;
    const double theta = acos(1.0 - h * h * w2 / 2.0);
    for (int n = 1; n <= 300; n++) {
        cr_assert_eq(st_scene_step(s, 0.0, &err), ST_OK, "%s", err.msg);
        double want = cos(n * theta) - h * h * w2 * sin(n * theta) / (2.0 * sin(theta));
        const double *x = ms->position.r;
        cr_assert(fabs(x[0] - want) < 1e-12, "step %d: x = %.17g, closed form %.17g", n, x[0],
                  want);
        cr_assert_eq(x[1], 2.0);
        cr_assert_eq(x[2], 0.0);
    }
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
}

Test(anchor, negative_stiffness_is_refused)
{
    static const char yaml[] =
        "format: settee/1\n"
        "root:\n"
        "  name: root\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [Anchor]}\n"
        "    - MechanicalObject: {position: [[0, 0, 0]]}\n"
        "    - AnchorForceField: {stiffness: -1}\n";
    st_runtime *rt = open_runtime();
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = st_scene_load_string(rt, yaml, strlen(yaml), "bad.yaml", &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "stiffness") != NULL, "message: %s", err.msg);
    cr_assert_str_eq(err.where, "bad.yaml:7:37", "where: %s", err.where);
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
}

/* The derivatives against finite differences of add_force, with the SDK's
 * check (settee/check.h): K = -stiffness I, and f = -dE/dx. */
Test(anchor, derivatives_match_finite_differences)
{
    st_runtime *rt = open_runtime();
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(rt, ANCHOR_SCENE, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_component *ff = st_node_find(st_scene_root(s), ST_ROLE_FORCEFIELD, ST_SEARCH_DOWN);
    cr_assert_not_null(ff);
    st_jacobian_check chk = {.struct_size = sizeof chk};
    cr_assert_eq(st_check_forcefield(ff, &chk, &err), ST_OK, "%s", err.msg);
    cr_assert(fabs(chk.scale - 8.0) < 1e-6, "largest stiffness entry %g", chk.scale);
    cr_assert_lt(chk.dforce_error, 1e-6);
    cr_assert_lt(chk.matrix_error, 1e-6);
    cr_assert_lt(chk.energy_error, 1e-6);
    cr_assert_geq(chk.energy_error, 0.0);
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
}
