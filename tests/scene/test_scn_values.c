/* test_scn_values.c - SOFA's value syntax in .scn scenes (issue 29): rigid
 * masses with a bracketed matrix, a scalar written with several values, an
 * integer written "1e4", a coordinate list with a partial last coordinate,
 * outputs given in the scene, unknown attributes as warnings; and that
 * YAML scenes stay strict where SOFA's reading would hide a mistake. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static test_rt T;

static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }

TestSuite(scn_values, .init = setup, .fini = teardown);

static st_scene *load(const char *text, const char *name)
{
    st_scene *s = NULL;
    st_error err = {0};
    char buf[2048];
    test_log_clear(&T);
    st_status st = st_scene_load_string(T.rt, text, strlen(text), name, &s, &err);
    cr_assert_eq(st, ST_OK, "%s\nlog:\n%s", st_error_format(&err, buf, sizeof buf), T.log);
    return s;
}

static const char *load_fails(const char *text, const char *name)
{
    static char buf[2048];
    st_scene *s = NULL;
    st_error err = {0};
    test_log_clear(&T);
    cr_assert_neq(st_scene_load_string(T.rt, text, strlen(text), name, &s, &err), ST_OK,
                  "expected an error for:\n%s", text);
    cr_assert_null(s);
    return st_error_format(&err, buf, sizeof buf);
}

static void *field(st_scene *s, const char *obj, const char *name)
{
    st_component *c = test_find_object(s, obj);
    cr_assert_not_null(c, "no object %s", obj);
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f, "%s has no field %s", obj, name);
    return st_component_field_ptr(c, f);
}

static void init(st_scene *s)
{
    st_error err = {0};
    char buf[2048];
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s\nlog:\n%s",
                 st_error_format(&err, buf, sizeof buf), T.log);
}

#define HEAD                                                                                      \
    "<Node name=\"root\" dt=\"0.01\">\n"                                                          \
    "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"

Test(scn_values, rigid_mass_reads_sofas_bracketed_matrix)
{
    const char *text = HEAD
        "  <MechanicalObject template=\"Rigid3d\" name=\"dofs\" position=\"0 0 0 0 0 0 1\"/>\n"
        "  <UniformMass name=\"m\" vertexMass=\"2 0.5 [3 0 0,0 4 0,0 0 5]\"/>\n"
        "</Node>\n";
    st_scene *s = load(text, "t.scn");
    const st_mass_value *m = field(s, "m", "vertexMass");
    cr_assert_eq(m->mass, 2.0);
    cr_assert_eq(m->volume, 0.5);
    cr_assert_eq(m->inertia[0], 3.0);
    cr_assert_eq(m->inertia[4], 4.0);
    cr_assert_eq(m->inertia[8], 5.0);
    cr_assert_eq(m->inertia[1], 0.0);
    cr_assert_null(strstr(T.log, "warning|"), "%s", T.log);
    st_scene_destroy(&s);
}

Test(scn_values, rigid_mass_values_after_the_eleventh_are_ignored_with_a_warning)
{
    const char *text = HEAD
        "  <MechanicalObject template=\"Rigid3d\" name=\"dofs\" position=\"0 0 0 0 0 0 1\"/>\n"
        "  <UniformMass name=\"m\" vertexMass=\"1 1 0.01 0 0 0 0.1 0 0 0 0.2 7\"/>\n"
        "</Node>\n";
    st_scene *s = load(text, "t.scn");
    const st_mass_value *m = field(s, "m", "vertexMass");
    cr_assert_eq(m->inertia[0], 0.01);
    cr_assert_eq(m->inertia[8], 0.2);
    cr_assert(strstr(T.log, "warning|t.scn:4:"), "%s", T.log);
    cr_assert(strstr(T.log, "the 1 value after them is ignored"), "%s", T.log);
    st_scene_destroy(&s);
    /* Too few values stay an error, as does the bracketed form in YAML. */
    load_fails(HEAD "  <UniformMass vertexMass=\"1 1 [1 0 0,0 1 0]\"/>\n</Node>\n", "t.scn");
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  objects:\n"
                       "    - RequiredPlugin: {name: Sofa.Component.Mass}\n"
                       "    - UniformMass: {vertexMass: \"1 1 [1 0 0,0 1 0,0 0 1]\"}\n";
    const char *e = load_fails(yaml, "t.yaml");
    cr_assert(strstr(e, "vertexMass"), "%s", e);
}

Test(scn_values, diagonal_mass_reads_a_list_of_rigid_masses)
{
    const char *text = HEAD
        "  <MechanicalObject template=\"Rigid3d\" name=\"dofs\"\n"
        "      position=\"0 0 0 0 0 0 1  1 0 0 0 0 0 1\"/>\n"
        "  <DiagonalMass name=\"m\" vertexMass=\"3 3 [2 0 0,0 2 0,0 0 2] 1 1 [1 0 0,0 1 0,0 0 "
        "1]\"/>\n"
        "</Node>\n";
    st_scene *s = load(text, "t.scn");
    const st_array *a = field(s, "m", "vertexMass");
    cr_assert_eq(a->n, 22);
    cr_assert_eq(a->r[0], 3.0);
    cr_assert_eq(a->r[2], 2.0);
    cr_assert_eq(a->r[11], 1.0);
    cr_assert_eq(a->r[21], 1.0);
    init(s);
    st_scene_destroy(&s);
}

Test(scn_values, partial_last_coordinate_is_dropped_with_a_warning)
{
    /* 10 values for Vec3d: 3 points, the 10th value dropped. */
    const char *text = HEAD "  <MechanicalObject name=\"dofs\" position=\"0 0 0 1 0 0 2 0 0 3\"/>\n"
                            "</Node>\n";
    st_scene *s = load(text, "t.scn");
    const st_array *p = field(s, "dofs", "position");
    cr_assert_eq(p->n, 3);
    cr_assert_eq(p->r[6], 2.0);
    cr_assert(strstr(T.log, "warning|t.scn:3:"), "%s", T.log);
    cr_assert(strstr(T.log, "read 3 whole, dropped the last 1 value of 10"), "%s", T.log);
    st_scene_destroy(&s);
    /* The same in YAML (the value syntax is SOFA's in both). */
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  objects:\n"
                       "    - MechanicalObject: {name: dofs, position: \"0 0 0 1 0 0 2\"}\n";
    s = load(yaml, "t.yaml");
    p = field(s, "dofs", "position");
    cr_assert_eq(p->n, 2);
    cr_assert(strstr(T.log, "warning|t.yaml:4:"), "%s", T.log);
    cr_assert(strstr(T.log, "dropped the last 1 value of 7"), "%s", T.log);
    st_scene_destroy(&s);
}

/* SOFA reads reals from a stream: "0-0.707107" is 0 then -0.707107 (as in
 * SOFA's BilateralLagrangianConstraint_Rigid example), with a warning; a
 * token that is not a run of numbers is still refused. */
Test(scn_values, reals_touching_at_a_sign_are_two_numbers)
{
    const char *text = HEAD "  <MechanicalObject name=\"dofs\" template=\"Rigid3d\"\n"
                            "      position=\"0 -1 0 0 0-0.707107 0.707107 1+2-3 0 0 0 1\"/>\n"
                            "</Node>\n";
    st_scene *s = load(text, "t.scn");
    const st_array *p = field(s, "dofs", "position");
    cr_assert_eq(p->n, 2);
    static const double want[14] = {0, -1, 0, 0, 0, -0.707107, 0.707107, 1, 2, -3, 0, 0, 0, 1};
    for (int i = 0; i < 14; i++)
        cr_assert_eq(p->r[i], want[i], "value %d: %g", i, p->r[i]);
    cr_assert(strstr(T.log, "'0-0.707107' read as 0 and -0.707107"), "%s", T.log);
    st_scene_destroy(&s);
    const char *msg =
        load_fails(HEAD "  <MechanicalObject position=\"0 1-2x 3\"/>\n</Node>\n", "t.scn");
    cr_assert(strstr(msg, "expects a real number, got '1-2x'"), "%s", msg);
}

Test(scn_values, integer_written_with_an_exponent_reads_its_leading_digits)
{
    const char *text = "<Node name=\"root\">\n"
                       "  <CGLinearSolver name=\"cg\" iterations=\"1e4\" tolerance=\"1e-9\"\n"
                       "      threshold=\"1e-9\"/>\n"
                       "</Node>\n";
    st_scene *s = load(text, "t.scn");
    cr_assert_eq(*(unsigned *)field(s, "cg", "iterations"), 1u);
    cr_assert(strstr(T.log, "warning|t.scn:2:"), "%s", T.log);
    cr_assert(strstr(T.log, "read '1e4' as 1"), "%s", T.log);
    st_scene_destroy(&s);
    /* YAML stays strict. */
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  objects:\n"
                       "    - CGLinearSolver: {iterations: 1e4}\n";
    const char *e = load_fails(yaml, "t.yaml");
    cr_assert(strstr(e, "expects an unsigned integer, got '1e4'"), "%s", e);
}

Test(scn_values, one_value_field_given_several_reads_the_first)
{
    const char *obj = test_write_temp("scnv_tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    char text[1024];
    snprintf(text, sizeof text,
             "<Node name=\"root\">\n"
             "  <MeshOBJLoader name=\"loader\" filename=\"%s\" scale=\"2 2 2\"/>\n"
             "  <UniformMass name=\"m\" totalMass=\"3 4\"/>\n"
             "</Node>\n",
             obj);
    st_scene *s = load(text, "t.scn");
    cr_assert_eq(*(double *)field(s, "loader", "scale"), 2.0);
    cr_assert_eq(*(double *)field(s, "m", "totalMass"), 3.0);
    cr_assert(strstr(T.log, "read the first, 2, and ignored the 2 after it"), "%s", T.log);
    cr_assert(strstr(T.log, "a scale per axis is field 'scale3d'"), "%s", T.log);
    cr_assert(strstr(T.log, "warning|t.scn:3:"), "%s", T.log);
    st_scene_destroy(&s);
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  objects:\n"
                       "    - RequiredPlugin: {name: Sofa.Component.Mass}\n"
                       "    - UniformMass: {totalMass: \"3 4\"}\n";
    const char *e = load_fails(yaml, "t.yaml");
    cr_assert(strstr(e, "expects one real value, got 2"), "%s", e);
}

Test(scn_values, output_given_in_the_scene_is_kept_then_overwritten)
{
    const char *text = HEAD
        "  <RequiredPlugin name=\"Sofa.Component.Engine.Select\"/>\n"
        "  <MechanicalObject name=\"dofs\" position=\"0 0 0  5 5 5  0.5 0.5 0.5\"/>\n"
        "  <BoxROI name=\"box\" box=\"-1 -1 -1 1 1 1\" indices=\"1\"/>\n"
        "</Node>\n";
    st_scene *s = load(text, "t.scn");
    const st_array *ix = field(s, "box", "indices");
    cr_assert_eq(ix->n, 1);
    cr_assert_eq(ix->u[0], 1u);
    cr_assert(strstr(T.log, "info|t.scn:5:"), "%s", T.log);
    cr_assert(strstr(T.log, "field 'indices' is an output"), "%s", T.log);
    init(s);
    ix = field(s, "box", "indices");
    cr_assert_eq(ix->n, 2);
    cr_assert_eq(ix->u[0], 0u);
    cr_assert_eq(ix->u[1], 2u);
    st_scene_destroy(&s);
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  objects:\n"
                       "    - RequiredPlugin: {name: Sofa.Component.Engine.Select}\n"
                       "    - MechanicalObject: {position: [0, 0, 0]}\n"
                       "    - BoxROI: {box: [-1, -1, -1, 1, 1, 1], indices: [1]}\n";
    const char *e = load_fails(yaml, "t.yaml");
    cr_assert(strstr(e, "is a read-only output"), "%s", e);
}

Test(scn_values, unknown_attribute_is_a_warning_unless_strict)
{
    const char *text = HEAD "  <MechanicalObject name=\"dofs\" positon=\"0 0 0\"/>\n</Node>\n";
    st_scene *s = load(text, "t.scn");
    cr_assert(strstr(T.log, "warning|t.scn:3:33|"), "%s", T.log);
    cr_assert(strstr(T.log, "has no field 'positon' (did you mean 'position'"), "%s", T.log);
    cr_assert(strstr(T.log, "--strict makes it an error"), "%s", T.log);
    st_scene_destroy(&s);
    st_runtime_set_strict(T.rt, true);
    const char *e = load_fails(text, "t.scn");
    cr_assert(strstr(e, "t.scn:3:33"), "%s", e);
    cr_assert(strstr(e, "has no field 'positon'"), "%s", e);
    st_runtime_set_strict(T.rt, false);
    /* YAML is strict without the option. */
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  objects:\n"
                       "    - MechanicalObject: {positon: [0, 0, 0]}\n";
    e = load_fails(yaml, "t.yaml");
    cr_assert(strstr(e, "has no field 'positon'"), "%s", e);
}

Test(scn_values, attribute_elements_set_the_objects_attributes)
{
    const char *text =
        HEAD "  <MechanicalObject position=\"9 9 9\">\n"
             "    <Attribute type=\"name\"><Data value=\"dofs\"/></Attribute>\n"
             "    <Attribute type=\"position\">\n"
             "      <Data value=\"1 2 3\"/>\n"
             "    </Attribute>\n"
             "    <Attribute type=\"velocity\"><Data value=\"0 0 0\"/><Data value=\"0 4 0\"/>"
             "</Attribute>\n"
             "  </MechanicalObject>\n"
             "</Node>\n";
    st_scene *s = load(text, "t.scn");
    const st_array *p = field(s, "dofs", "position");
    cr_assert_eq(p->n, 1);
    cr_assert_eq(p->r[2], 3.0);
    const st_array *v = field(s, "dofs", "velocity");
    cr_assert_eq(v->r[1], 4.0);
    st_scene_destroy(&s);
    /* A value in error is reported at the <Data> that gives it. */
    const char *bad = HEAD "  <MechanicalObject>\n"
                           "    <Attribute type=\"position\"><Data value=\"1 x 3\"/></Attribute>\n"
                           "  </MechanicalObject>\n"
                           "</Node>\n";
    const char *e = load_fails(bad, "t.scn");
    cr_assert(strstr(e, "t.scn:4:"), "%s", e);
    e = load_fails(HEAD "  <MechanicalObject><Attribute><Data value=\"1\"/></Attribute>"
                        "</MechanicalObject>\n</Node>\n",
                   "t.scn");
    cr_assert(strstr(e, "needs the attribute's name as type"), "%s", e);
    e = load_fails(HEAD "  <MechanicalObject><Attribute type=\"position\"/></MechanicalObject>\n"
                        "</Node>\n",
                   "t.scn");
    cr_assert(strstr(e, "needs a <Data value="), "%s", e);
    e = load_fails(HEAD "  <MechanicalObject><Data value=\"1\"/></MechanicalObject>\n</Node>\n",
                   "t.scn");
    cr_assert(strstr(e, "objects hold no elements"), "%s", e);
}

Test(scn_values, single_precision_templates_read_as_double_with_one_note)
{
    const char *text = HEAD "  <MechanicalObject template=\"Vec3f\" name=\"a\" position=\"0 0 0\"/>\n"
                            "  <Node name=\"r\">\n"
                            "    <MechanicalObject template=\"Rigid3f\" name=\"b\"\n"
                            "        position=\"0 0 0 0 0 0 1\"/>\n"
                            "  </Node>\n"
                            "</Node>\n";
    st_scene *s = load(text, "t.scn");
    cr_assert_str_eq(*(char **)field(s, "a", "template"), "Vec3d");
    cr_assert_str_eq(*(char **)field(s, "b", "template"), "Rigid3d");
    init(s);
    cr_assert_eq(st_component_state_type(test_find_object(s, "a")), &st_vec3d_type);
    cr_assert_eq(st_component_state_type(test_find_object(s, "b")), &st_rigid3d_type);
    const char *first = strstr(T.log, "read as 'Vec3d'");
    cr_assert(first, "%s", T.log);
    cr_assert_null(strstr(first + 1, "template '"), "said twice:\n%s", T.log);
    st_scene_destroy(&s);
    /* A float type with no double twin is still refused. */
    s = load(HEAD "  <MechanicalObject template=\"Vec5f\"/>\n</Node>\n", "t.scn");
    st_error err = {0};
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "unsupported template 'Vec5f'"), "%s", err.msg);
    st_scene_destroy(&s);
}

Test(scn_values, jacobi_preconditioner_takes_its_matrix_template)
{
    const char *text = "<Node name=\"root\">\n"
                       "  <JacobiPreconditioner name=\"p\" template=\"DiagonalMatrix\"/>\n"
                       "</Node>\n";
    st_scene *s = load(text, "t.scn");
    cr_assert_str_eq(*(char **)field(s, "p", "template"), "DiagonalMatrix");
    st_scene_destroy(&s);
}

static const char *rigid_scene(const char *rigid_text, const char *tpl, char *buf, size_t size)
{
    const char *path = test_write_temp("scnv_body.rigid", rigid_text);
    snprintf(buf, size,
             HEAD "  <MechanicalObject template=\"%s\" name=\"dofs\" position=\"%s\"/>\n"
                  "  <UniformMass name=\"m\" filename=\"%s\" totalMass=\"9\"/>\n"
                  "</Node>\n",
             tpl, strcmp(tpl, "Rigid3d") ? "0 0 0" : "0 0 0 0 0 0 1", path);
    return buf;
}

Test(scn_values, uniform_mass_reads_a_rigid_file)
{
    char text[2048];
    rigid_scene("Xsp 3.0\n"
                "vertexMass 5\n"
                "# a comment line\n"
                "volm 2.5\n"
                "inrt 1 0 0 0 2 0\n 0 0 3\n"
                "cntr 0.1 0.2 0.3\n",
                "Rigid3d", text, sizeof text);
    st_scene *s = load(text, "t.scn");
    init(s);
    const st_mass_value *m = field(s, "m", "vertexMass");
    /* The file's mass wins over totalMass, as in SOFA (with a warning). */
    cr_assert_eq(m->mass, 5.0);
    cr_assert_eq(m->volume, 2.5);
    cr_assert_eq(m->inertia[4], 2.0);
    cr_assert_eq(m->inertia[8], 3.0);
    cr_assert_eq(*(double *)field(s, "m", "totalMass"), 5.0);
    cr_assert(strstr(T.log, "totalMass is dropped"), "%s", T.log);
    st_scene_destroy(&s);
}

Test(scn_values, rigid_file_mistakes_are_errors_at_their_line)
{
    static const struct {
        const char *text, *tpl, *want;
    } bad[] = {
        {"Xsp 3.0\nvertexMass 5\nmass 3\n", "Rigid3d", ":3: unknown keyword 'mass'"},
        {"Xsp 3.0\nvertexMass 5\ninrt 1 0 0\n0 nan 0 0 0 1\n", "Rigid3d",
         ":4: 'inrt': 'nan' is not a finite number"},
        {"Xsp 3.0\nvolm 1e400\n", "Rigid3d", ":2: 'volm': '1e400' is not a finite number"},
        {"Xsp 3.0\ninrt 1 0 0 0 1 0 0 0\n", "Rigid3d", "'inrt' expects 9 numbers, the file ends"},
        {"Xsp 3.0\nvertexMass 5\n", "Vec3d", "a .rigid file"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[2048];
        rigid_scene(bad[i].text, bad[i].tpl, text, sizeof text);
        st_scene *s = load(text, "t.scn");
        st_error err = {0};
        cr_assert_neq(st_scene_init(s, &err), ST_OK, "case %zu", i);
        cr_assert(strstr(err.msg, bad[i].want), "case %zu: %s", i, err.msg);
        st_scene_destroy(&s);
    }
}

Test(scn_values, output_linked_or_unreadable_in_a_scn_is_ignored_with_a_warning)
{
    /* SOFA's scenes link a grid's computed positions to an empty state:
     * the grid's values win. */
    const char *text =
        "<Node name=\"root\">\n"
        "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Grid\"/>\n"
        "  <MechanicalObject name=\"dofs\"/>\n"
        "  <RegularGridTopology name=\"grid\" n=\"2 2 2\" min=\"0 0 0\" max=\"1 1 1\"\n"
        "      position=\"@dofs.position\"/>\n"
        "</Node>\n";
    st_scene *s = load(text, "t.scn");
    cr_assert(strstr(T.log, "warning|t.scn:5:"), "%s", T.log);
    cr_assert(strstr(T.log, "the link '@dofs.position' is ignored"), "%s", T.log);
    init(s);
    cr_assert_eq(((const st_array *)field(s, "grid", "position"))->n, 8);
    cr_assert_eq(((const st_array *)field(s, "dofs", "position"))->n, 8);
    st_scene_destroy(&s);
    /* An output given a value its type cannot hold: ignored, said. */
    text = HEAD "  <RequiredPlugin name=\"Sofa.Component.Engine.Select\"/>\n"
                "  <MechanicalObject position=\"0 0 0\"/>\n"
                "  <BoxROI name=\"box\" box=\"-1 -1 -1 1 1 1\" indices=\"all of them\"/>\n"
                "</Node>\n";
    s = load(text, "t.scn");
    cr_assert(strstr(T.log, "warning|t.scn:5:"), "%s", T.log);
    cr_assert(strstr(T.log, "the value given is ignored"), "%s", T.log);
    init(s);
    cr_assert_eq(((const st_array *)field(s, "box", "indices"))->n, 1);
    st_scene_destroy(&s);
}

Test(scn_values, matrix_field_reads_sofas_bracketed_text)
{
    const char *text =
        "<Node name=\"root\">\n"
        "  <RequiredPlugin name=\"Sofa.Component.Constraint.Projective\"/>\n"
        "  <MechanicalObject position=\"0 0 0\"/>\n"
        "  <AffineMovementProjectiveConstraint name=\"c\" indices=\"0\" meshIndices=\"0\"\n"
        "      rotation=\"[0.6 -0.8 0,0.8 0.6 0,0 0 1]\"/>\n"
        "</Node>\n";
    st_scene *s = load(text, "t.scn");
    const st_array *r = field(s, "c", "rotation");
    cr_assert_eq(r->n, 9);
    cr_assert_eq(r->r[1], -0.8);
    cr_assert_eq(r->r[3], 0.8);
    cr_assert_eq(r->r[8], 1.0);
    st_scene_destroy(&s);
}

Test(scn_values, convert_writes_sofas_bracketed_mass_as_a_yaml_list)
{
    const char *scn = test_write_temp("scnv_conv.scn",
                                      HEAD "  <MechanicalObject template=\"Rigid3d\" name=\"dofs\"\n"
                                           "      position=\"0 0 0 0 0 0 1\"/>\n"
                                           "  <UniformMass name=\"m\" vertexMass=\"2 1 [3 0 0,0 4 "
                                           "0,0 0 5]\"/>\n"
                                           "</Node>\n");
    char yaml[600];
    snprintf(yaml, sizeof yaml, "%s.yaml", scn);
    st_error err = {0};
    cr_assert_eq(st_scene_convert(T.rt, scn, yaml, &err), ST_OK, "%s", err.msg);
    char *text = test_read_file(yaml);
    cr_assert(strstr(text, "vertexMass: [2, 1, 3, 0, 0, 0, 4, 0, 0, 0, 5]"), "%s", text);
    st_scene *s = load(text, "t.yaml");
    const st_mass_value *m = field(s, "m", "vertexMass");
    cr_assert_eq(m->inertia[4], 4.0);
    st_scene_destroy(&s);
    free(text);
}

/* A field given by its name and by its alias in one element: SOFA applies
 * the attributes in the order of their names, so the later name wins
 * (BeamAdapter's AdaptiveBeamMapping.scn: isMechanical="true" then
 * mapForces="0"). In YAML, both stay an error. */
static bool map_forces_of(const char *attrs)
{
    char text[1024];
    snprintf(text, sizeof text,
             "<Node name=\"root\">\n"
             "  <RequiredPlugin name=\"Sofa.Component.Mapping.Linear\"/>\n"
             "  <MechanicalObject name=\"a\" position=\"0 0 0\"/>\n"
             "  <Node name=\"c\">\n"
             "    <MechanicalObject name=\"b\" position=\"0 0 0\"/>\n"
             "    <IdentityMapping name=\"m\" input=\"@../a\" output=\"@b\" %s/>\n"
             "  </Node>\n"
             "</Node>\n",
             attrs);
    st_scene *s = load(text, "alias.scn");
    st_component *m = test_find_object(s, "m");
    cr_assert_not_null(m);
    const st_field *f = st_component_field(m, "mapForces");
    bool v = *(const bool *)st_component_field_ptr(m, f);
    st_scene_destroy(&s);
    return v;
}

Test(scn_values, a_field_by_name_and_alias_takes_the_later_name)
{
    cr_assert_not(map_forces_of("isMechanical=\"true\" mapForces=\"0\""));
    cr_assert_not(map_forces_of("mapForces=\"0\" isMechanical=\"true\""));
    cr_assert(strstr(T.log, "'isMechanical' and 'mapForces' set the same field: 'mapForces' wins"),
              "%s", T.log);
    cr_assert(map_forces_of("mapForces=\"1\" isMechanical=\"false\""));
    cr_assert_not(map_forces_of("isMechanical=\"false\""));
    const char *e = load_fails("format: settee/1\n"
                               "root:\n"
                               "  objects:\n"
                               "    - RequiredPlugin: {pluginName: [Mapping.Linear]}\n"
                               "    - MechanicalObject: {name: a, position: [[0, 0, 0]]}\n"
                               "  children:\n"
                               "    - name: c\n"
                               "      objects:\n"
                               "        - MechanicalObject: {name: b, position: [[0, 0, 0]]}\n"
                               "        - IdentityMapping: {input: '@../a', output: '@b', "
                               "isMechanical: true, mapForces: false}\n",
                               "alias.yaml");
    cr_assert(strstr(e, "set twice"), "%s", e);
}
