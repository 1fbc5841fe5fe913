/* test_scn.c - SOFA's XML scenes (.scn): reading, includes, positions,
 * errors, src links, --set, conversion to and from YAML, data paths. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

static test_rt T;

static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }

TestSuite(scn, .init = setup, .fini = teardown);

/* A mass-spring scene of our own: a fixed point, a hanging particle, an
 * implicit solver, in both formats. */
static const char *spring_scn =
    "<?xml version=\"1.0\"?>\n"
    "<!-- a hanging particle -->\n"
    "<Node name=\"root\" gravity=\"0 -10 0\" dt=\"0.05\" bbox=\"-1 -1 -1 1 1 1\">\n"
    "  <RequiredPlugin pluginName=\"Sofa.Component.ODESolver.Backward "
    "Sofa.Component.LinearSolver.Direct\"/>\n"
    "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"
    "  <RequiredPlugin pluginName=\"Sofa.Component.SolidMechanics.Spring "
    "Sofa.Component.Constraint.Projective\"/>\n"
    "  <DefaultAnimationLoop/>\n"
    "  <DefaultVisualManagerLoop/>\n"
    "  <EulerImplicitSolver rayleighStiffness=\"0.1\" rayleighMass=\"0.1\"/>\n"
    "  <SparseLDLSolver/>\n"
    "  <Node name=\"Anchor\">\n"
    "    <MechanicalObject template=\"Vec3d\" name=\"p\" position=\"0 2 0\"/>\n"
    "    <FixedProjectiveConstraint indices=\"0\"/>\n"
    "  </Node>\n"
    "  <Node name=\"Bob\">\n"
    "    <MechanicalObject name=\"p\" position=\"0.3 1 0\" _note=\"commented out\"/>\n"
    "    <UniformMass totalMass=\"2\"/>\n"
    "  </Node>\n"
    "  <SpringForceField object1=\"@Anchor\" object2=\"@Bob\" spring=\"0 0 150 0.5 1\"/>\n"
    "</Node>\n";

static const char *spring_yaml =
    "format: settee/1\n"
    "root:\n"
    "  name: root\n"
    "  gravity: [0, -10, 0]\n"
    "  dt: 0.05\n"
    "  objects:\n"
    "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct]}\n"
    "    - RequiredPlugin: {name: Sofa.Component.Mass}\n"
    "    - RequiredPlugin: {pluginName: [SolidMechanics.Spring, Constraint.Projective]}\n"
    "    - DefaultAnimationLoop: {}\n"
    "    - DefaultVisualManagerLoop: {}\n"
    "    - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
    "    - SparseLDLSolver: {}\n"
    "    - SpringForceField: {object1: \"@Anchor\", object2: \"@Bob\", spring: [0, 0, 150, 0.5, "
    "1]}\n"
    "  children:\n"
    "    - name: Anchor\n"
    "      objects:\n"
    "        - MechanicalObject: {template: Vec3d, name: p, position: [0, 2, 0]}\n"
    "        - FixedProjectiveConstraint: {indices: [0]}\n"
    "    - name: Bob\n"
    "      objects:\n"
    "        - MechanicalObject: {name: p, position: [[0.3, 1, 0]]}\n"
    "        - UniformMass: {totalMass: 2}\n";

static st_status load_as(const char *text, const char *name, st_scene **s, st_error *err)
{
    return st_scene_load_string(T.rt, text, strlen(text), name, s, err);
}

/* Loads, initialises and runs a scene; returns every state's position and
 * velocity, concatenated, into out (count in *n). */
static void run_scene(st_scene *s, int steps, double *out, size_t *n)
{
    st_error err = {0};
    char buf[1024];
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", st_error_format(&err, buf, sizeof buf));
    for (int i = 0; i < steps; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_mstate *ms[8];
    size_t k = st_scene_states(s, ms, 8);
    *n = 0;
    for (size_t i = 0; i < k; i++) {
        memcpy(out + *n, ms[i]->position.r, 3 * ms[i]->n * sizeof(double));
        *n += 3 * ms[i]->n;
        memcpy(out + *n, ms[i]->velocity.r, 3 * ms[i]->n * sizeof(double));
        *n += 3 * ms[i]->n;
    }
}

static void run_text(const char *text, const char *name, int steps, double *out, size_t *n)
{
    st_scene *s = NULL;
    st_error err = {0};
    char buf[1024];
    cr_assert_eq(load_as(text, name, &s, &err), ST_OK, "%s\nlog:\n%s",
                 st_error_format(&err, buf, sizeof buf), T.log);
    run_scene(s, steps, out, n);
    st_scene_destroy(&s);
}

static void run_file(const char *path, int steps, double *out, size_t *n)
{
    st_scene *s = NULL;
    st_error err = {0};
    char buf[1024];
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "%s\nlog:\n%s",
                 st_error_format(&err, buf, sizeof buf), T.log);
    run_scene(s, steps, out, n);
    st_scene_destroy(&s);
}

Test(scn, scn_and_yaml_twins_are_bit_identical)
{
    double a[64], b[64];
    size_t na, nb;
    run_text(spring_scn, "spring.scn", 40, a, &na);
    run_text(spring_yaml, "spring.yaml", 40, b, &nb);
    cr_assert_eq(na, 12);
    cr_assert_eq(na, nb);
    cr_assert_eq(memcmp(a, b, na * sizeof *a), 0, "the two formats differ");
    /* The bob moved: the scene ran. */
    cr_assert(fabs(a[6 + 1] - 1.0) > 1e-3, "y = %g", a[7]);
    /* bbox on the root is accepted, with an information message. */
    cr_assert(strstr(T.log, "info|spring.scn:3:"), "%s", T.log);
    cr_assert(strstr(T.log, "'bbox' is accepted"), "%s", T.log);
}

/* ---- errors and positions ---- */

static const char *expect_error(const char *text, const char *where, const char *words)
{
    static char buf[4096];
    st_scene *s = (st_scene *)1;
    st_error err = {0};
    T.len = 0;
    test_log_clear(&T);
    cr_assert_neq(load_as(text, "t.scn", &s, &err), ST_OK, "expected an error for:\n%s", text);
    cr_assert_null(s);
    st_error_format(&err, buf, sizeof buf);
    cr_assert(strstr(buf, where), "expected '%s' in '%s'", where, buf);
    cr_assert(strstr(buf, words), "expected '%s' in '%s'", words, buf);
    return buf;
}

Test(scn, errors_carry_the_xml_position)
{
    const char *head = "<Node name=\"root\">\n"
                       "  <RequiredPlugin pluginName=\"Sofa.Component.Mass\"/>\n";
    char text[1024];
    /* Unknown attribute, in a start tag written over two lines (an error
     * when strict; SOFA's warning is tested below). */
    st_runtime_set_strict(T.rt, true);
    snprintf(text, sizeof text,
             "%s  <MechanicalObject name=\"m\"\n      positon=\"0 0 0\"/>\n</Node>\n", head);
    expect_error(text, "t.scn:4:7", "has no field 'positon' (did you mean 'position'");
    /* A bad value: at the value's first character. */
    snprintf(text, sizeof text, "%s  <UniformMass  totalMass=\"heavy\"/>\n</Node>\n", head);
    expect_error(text, "t.scn:3:29", "expects a real number, got 'heavy'");
    /* Unknown class: did-you-mean. */
    snprintf(text, sizeof text, "%s  <MechanicalObjet/>\n</Node>\n", head);
    expect_error(text, "t.scn:3:4", "did you mean 'MechanicalObject'");
    /* A known class whose plugin the scene does not require: loaded, as
     * SOFA's runSofa has it, with a warning giving the XML line to add. */
    snprintf(text, sizeof text, "%s  <EulerImplicitSolver/>\n</Node>\n", head);
    {
        st_scene *ls = NULL;
        st_error lerr = {0};
        T.len = 0;
        test_log_clear(&T);
        cr_assert_eq(load_as(text, "t.scn", &ls, &lerr), ST_OK, "%s", lerr.msg);
        cr_assert(strstr(T.log, "warning|t.scn:3:4|") &&
                      strstr(T.log, "<RequiredPlugin name=\"ODESolver.Backward\"/>"),
                  "%s", T.log);
        st_scene_destroy(&ls);
    }
    /* The legacy <Object type=...> form, and its missing type. */
    snprintf(text, sizeof text, "%s  <Object type=\"UniformMas\"/>\n</Node>\n", head);
    expect_error(text, "t.scn:3:17", "unknown component 'UniformMas'");
    snprintf(text, sizeof text, "%s  <Object name=\"x\"/>\n</Node>\n", head);
    expect_error(text, "t.scn:3:4", "needs a type attribute");
    /* An element inside an object. */
    snprintf(text, sizeof text, "%s  <UniformMass>\n    <Node name=\"x\"/>\n  </UniformMass>\n</Node>\n",
             head);
    expect_error(text, "t.scn:4:6", "objects hold no elements");
    /* A node name with a slash. */
    expect_error("<Node name=\"root\">\n  <Node name=\"a/b\"/>\n</Node>\n", "t.scn:2:15",
                 "without '/'");
}

Test(scn, malformed_xml_is_an_error_never_a_crash)
{
    expect_error("<Node name=\"root\">\n  <MechanicalObject name=\"a\">\n</Node>\n", "t.scn:",
                 "XML syntax error");
    expect_error("", "t.scn:1:1", "XML syntax error");
    expect_error("<UniformMass/>\n", "t.scn:1:2", "the root element of a scene is <Node>");
    expect_error("<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "
                 "\"file:///etc/passwd\">]>\n<Node name=\"root\"><MechanicalObject "
                 "name=\"&x;\"/></Node>\n",
                 "t.scn:", "XML");
    expect_error("<?xml version=\"1.0\"?>\n<!DOCTYPE Node [<!ENTITY a \"aaaa\">]>\n"
                 "<Node name=\"root\"/>\n",
                 "t.scn:1:1", "may not declare a DTD");
    /* 10^5 nested nodes: libxml2's depth limit, said plainly. */
    size_t depth = 100000;
    char *deep = malloc(depth * 24 + 64);
    cr_assert_not_null(deep);
    size_t dl = (size_t)sprintf(deep, "<Node name=\"root\">");
    for (size_t i = 0; i < depth; i++)
        dl += (size_t)sprintf(deep + dl, "<Node name=\"a\">");
    for (size_t i = 0; i < depth; i++)
        dl += (size_t)sprintf(deep + dl, "</Node>");
    sprintf(deep + dl, "</Node>\n");
    expect_error(deep, "t.scn:1:", "elements nested more than 256 levels deep");
    free(deep);
    /* Every prefix of a valid scene, and binary garbage: an error or a
     * scene, never a crash (the sanitizers watch). */
    size_t len = strlen(spring_scn);
    for (size_t k = 0; k < len; k += 7) {
        st_scene *s = NULL;
        st_error err = {0};
        st_status rc = st_scene_load_string(T.rt, spring_scn, k, "t.scn", &s, &err);
        cr_assert(rc != ST_OK || s != NULL);
        st_scene_destroy(&s);
    }
    unsigned char junk[4096];
    unsigned seed = 12345;
    for (int round = 0; round < 20; round++) {
        for (size_t i = 0; i < sizeof junk; i++) {
            seed = seed * 1103515245u + 12345u;
            junk[i] = (unsigned char)(seed >> 16);
        }
        junk[0] = '<';
        st_scene *s = NULL;
        st_error err = {0};
        cr_assert_neq(st_scene_load_string(T.rt, (const char *)junk, sizeof junk, "j.scn", &s,
                                           &err),
                      ST_OK);
        cr_assert_null(s);
    }
}

Test(scn, sofa_parser_quirks_are_read_as_sofa_reads_them)
{
    /* tinyxml2 accepts '<' and a bare '&' in values and attributes without
     * a space; SOFA's own scenes contain all three. */
    const char *text = "<Node name=\"root\" dt=\"0.01\">\n"
                       "  <RequiredPlugin pluginName=\"Sofa.Component.Mass\"/>\n"
                       "  <MechanicalObject name=\"m\"position=\"1 2 3\" _c=\"a<b&c\"/>\n"
                       "  <UniformMass totalMass=\"2\"vertexMas=\"1\"/>\n"
                       "</Node>\n";
    st_scene *s = NULL;
    st_error err = {0};
    st_runtime_set_strict(T.rt, true);
    cr_assert_neq(load_as(text, "q.scn", &s, &err), ST_OK);
    /* The misspelt field is found at its place in the original text. */
    cr_assert_str_eq(err.where, "q.scn:4:29", "%s: %s", err.where, err.msg);
    cr_assert(strstr(T.log, "info|q.scn:3:29|"), "%s", T.log);
    cr_assert(strstr(T.log, "not well-formed XML; read as SOFA"), "%s", T.log);
}

/* ---- includes ---- */

static char tmpdir[512];

static const char *write_in(const char *rel, const char *text)
{
    static char paths[8][1024];
    static int slot;
    char *p = paths[slot++ % 8];
    snprintf(p, 1024, "%s/%s", tmpdir, rel);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", p);
    for (char *q = dir + strlen(tmpdir) + 1; *q; q++)
        if (*q == '/') {
            *q = 0;
            mkdir(dir, 0755);
            *q = '/';
        }
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    fputs(text, f);
    fclose(f);
    return p;
}

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/settee-scn-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static double field_real(st_scene *s, const char *obj, const char *field)
{
    st_component *c = test_find_object(s, obj);
    cr_assert_not_null(c, "no object %s", obj);
    const st_field *f = st_component_field(c, field);
    cr_assert_not_null(f);
    return *(double *)st_component_field_ptr(c, f);
}

static const char *body_xml = "<Node name=\"Body\">\n"
                              "  <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0\"/>\n"
                              "  <UniformMass name=\"mass\" totalMass=\"1\"/>\n"
                              "  <UniformMass name=\"extra\" totalMass=\"1\"/>\n"
                              "</Node>\n";

Test(scn, includes_follow_sofa)
{
    make_tmpdir();
    write_in("parts/body.xml", body_xml);
    write_in("parts/group.xml", "<Node name=\"Group\">\n"
                                "  <MechanicalObject name=\"gdofs\" position=\"0 0 0\"/>\n"
                                "</Node>\n");
    write_in("parts/merge.xml", "<Node name=\"_Merge_\" dt=\"0.02\">\n"
                                "  <Node name=\"Sub\">\n"
                                "    <UniformMass name=\"merged\" totalMass=\"7\"/>\n"
                                "  </Node>\n"
                                "</Node>\n");
    const char *scene = write_in(
        "scene.scn",
        "<Node name=\"root\" dt=\"0.01\">\n"
        "  <RequiredPlugin pluginName=\"Sofa.Component.Mass\"/>\n"
        "  <include href=\"parts/body.xml\" name=\"B1\" totalMass=\"4\"/>\n"
        "  <include href=\"parts/body.xml\" name=\"B2\" extra__totalMass=\"8\"/>\n"
        "  <include href=\"parts/group.xml\"/>\n"
        "  <Node name=\"Sub\">\n"
        "    <MechanicalObject name=\"sdofs\" position=\"0 0 0\"/>\n"
        "  </Node>\n"
        "  <include href=\"parts/merge.xml\"/>\n"
        "</Node>\n");
    st_scene *s = NULL;
    st_error err = {0};
    char buf[1024];
    cr_assert_eq(st_scene_load(T.rt, scene, &s, &err), ST_OK, "%s",
                 st_error_format(&err, buf, sizeof buf));
    st_node *root = st_scene_root(s);
    /* Two child nodes renamed by the includes, the group's object in the
     * root, Sub merged by name. */
    cr_assert_eq(st_node_child_count(root), 3);
    cr_assert_str_eq(st_node_name(st_node_child(root, 0)), "B1");
    cr_assert_str_eq(st_node_name(st_node_child(root, 1)), "B2");
    cr_assert_str_eq(st_node_name(st_node_child(root, 2)), "Sub");
    cr_assert_not_null(test_find_object(s, "gdofs"));
    st_node *sub = st_node_child(root, 2);
    cr_assert_eq(st_node_object_count(sub), 2, "merged into the existing Sub");
    /* Overrides: every object with the attribute, or the named one only. */
    st_component *all[16];
    size_t n = st_node_find_all(st_node_child(root, 0), ST_ROLE_MASS, ST_SEARCH_LOCAL, all, 16);
    cr_assert_eq(n, 2);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(*(double *)st_component_field_ptr(all[i], st_component_field(all[i],
                                                                                  "totalMass")),
                     4.0);
    n = st_node_find_all(st_node_child(root, 1), ST_ROLE_MASS, ST_SEARCH_LOCAL, all, 16);
    cr_assert_eq(n, 2);
    double m0 = *(double *)st_component_field_ptr(all[0], st_component_field(all[0], "totalMass"));
    double m1 = *(double *)st_component_field_ptr(all[1], st_component_field(all[1], "totalMass"));
    cr_assert_eq(m0, 1.0);
    cr_assert_eq(m1, 8.0);
    cr_assert_eq(field_real(s, "merged", "totalMass"), 7.0);
    st_scene_destroy(&s);

    /* convert expands the includes and says where objects came from. */
    char out[1100], text[16384];
    snprintf(out, sizeof out, "%s/expanded.yaml", tmpdir);
    cr_assert_eq(st_scene_convert(T.rt, scene, out, &err), ST_OK, "%s", err.msg);
    FILE *f = fopen(out, "r");
    size_t n2 = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n2] = 0;
    cr_assert(strstr(text, "# from body.xml (an <include> in the SOFA scene)\n"), "%s", text);
    cr_assert(strstr(text, "- UniformMass: {name: extra, totalMass: 8}"), "%s", text);
    cr_assert(strstr(text, "- name: B2"), "%s", text);
}

/* An <include> adding an object named like one of the node's: SOFA keeps
 * both (Demos/include_test.scn), so does settee with a warning; both
 * forces act, and a link to the name reaches the first (SOFA's
 * Node::getObject). --strict refuses it, and so does YAML (test_kernel). */
static const char *dup_scene(void)
{
    make_tmpdir();
    write_in("more.xml", "<Node name=\"_Merge_\">\n"
                         "  <Node name=\"Body\">\n"
                         "    <ConstantForceField name=\"push\" forces=\"0 5 0\"/>\n"
                         "  </Node>\n"
                         "</Node>\n");
    return write_in("scene.scn",
                    "<Node name=\"root\" dt=\"0.1\" gravity=\"0 0 0\">\n"
                    "  <RequiredPlugin pluginName=\"Sofa.Component.Mass\"/>\n"
                    "  <RequiredPlugin pluginName=\"Sofa.Component.MechanicalLoad\"/>\n"
                    "  <RequiredPlugin pluginName=\"Sofa.Component.ODESolver.Forward\"/>\n"
                    "  <Node name=\"Body\">\n"
                    "    <EulerExplicitSolver/>\n"
                    "    <MechanicalObject name=\"dofs\" position=\"0 0 0\"/>\n"
                    "    <UniformMass vertexMass=\"1\"/>\n"
                    "    <ConstantForceField name=\"push\" forces=\"2 0 0\"/>\n"
                    "    <ConstantForceField name=\"copy\" forces=\"@push.forces\"/>\n"
                    "  </Node>\n"
                    "  <include href=\"more.xml\"/>\n"
                    "</Node>\n");
}

Test(scn, include_duplicate_object_names_kept_as_sofa)
{
    const char *scene = dup_scene();
    st_scene *s = NULL;
    st_error err = {0};
    char buf[1024];
    cr_assert_eq(st_scene_load(T.rt, scene, &s, &err), ST_OK, "%s",
                 st_error_format(&err, buf, sizeof buf));
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", st_error_format(&err, buf, sizeof buf));
    cr_assert(strstr(T.log, "an object named 'push' already exists in this node"), "%s", T.log);
    cr_assert(strstr(T.log, "both are kept"), "%s", T.log);
    st_node *body = st_node_child(st_scene_root(s), 0);
    cr_assert_eq(st_node_object_count(body), 6, "both 'push' objects are in the node");
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    /* f = (2 0 0) + copy of the first (2 0 0) + (0 5 0); v = f dt / m */
    const st_mstate *ms = (const st_mstate *)test_find_object(s, "dofs");
    cr_assert_float_eq(ms->velocity.r[0], 0.4, 1e-15);
    cr_assert_float_eq(ms->velocity.r[1], 0.5, 1e-15);
    st_scene_destroy(&s);

    st_runtime_set_strict(T.rt, true);
    cr_assert_eq(st_scene_load(T.rt, scene, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "already exists in this node"), "%s", err.msg);
    st_scene_destroy(&s);
    st_runtime_set_strict(T.rt, false);
}

Test(scn, include_errors)
{
    make_tmpdir();
    write_in("self.xml", "<Node name=\"Loop\">\n  <include href=\"self.xml\"/>\n</Node>\n");
    write_in("bad.xml", "<Node name=\"Bad\">\n  <Oops\n</Node>\n");
    const char *cases[][2] = {
        {"<Node name=\"root\">\n  <include href=\"nowhere.xml\"/>\n</Node>\n",
         "cannot find included file 'nowhere.xml' (tried "},
        {"<Node name=\"root\">\n  <include/>\n</Node>\n", "needs a non-empty href"},
        {"<Node name=\"root\">\n  <include href=\"self.xml\"/>\n</Node>\n", "nested more than"},
        {"<Node name=\"root\">\n  <include href=\"bad.xml\"/>\n</Node>\n", "XML syntax error"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *scene = write_in("scene.scn", cases[i][0]);
        st_scene *s = NULL;
        st_error err = {0};
        char buf[2048];
        cr_assert_neq(st_scene_load(T.rt, scene, &s, &err), ST_OK, "case %zu", i);
        st_error_format(&err, buf, sizeof buf);
        cr_assert(strstr(buf, cases[i][1]) || strstr(T.log, cases[i][1]), "case %zu: %s\n%s", i,
                  buf, T.log);
    }
}

/* ---- src ---- */

static const char *cube_obj = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n";

Test(scn, src_links_same_named_fields)
{
    make_tmpdir();
    write_in("mesh/square.obj", cube_obj);
    const char *scene = write_in(
        "src.scn",
        "<Node name=\"root\" dt=\"0.01\">\n"
        "  <RequiredPlugin pluginName=\"Sofa.Component.IO.Mesh "
        "Sofa.Component.Topology.Container.Constant\"/>\n"
        "  <MeshOBJLoader name=\"loader\" filename=\"mesh/square.obj\" translation=\"0 10 0\"/>\n"
        "  <MechanicalObject name=\"dofs\" src=\"@loader\"/>\n"
        "  <MechanicalObject name=\"own\" src=\"@loader\" position=\"5 5 5\"/>\n"
        "  <MeshTopology name=\"topo\" src=\"@loader\"/>\n"
        "</Node>\n");
    st_scene *s = NULL;
    st_error err = {0};
    char buf[1024];
    cr_assert_eq(st_scene_load(T.rt, scene, &s, &err), ST_OK, "%s",
                 st_error_format(&err, buf, sizeof buf));
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", st_error_format(&err, buf, sizeof buf));
    st_mstate *dofs = (st_mstate *)test_find_object(s, "dofs");
    cr_assert_eq(dofs->n, 4);
    /* The loader's translation applies once (SOFA does not auto-link it). */
    cr_assert_eq(dofs->position.r[1], 10.0);
    cr_assert_eq(dofs->position.r[3 * 2 + 1], 11.0);
    /* A field the scene sets wins over src. */
    st_mstate *own = (st_mstate *)test_find_object(s, "own");
    cr_assert_eq(own->n, 1);
    cr_assert_eq(own->position.r[0], 5.0);
    char yout[1100], ytext[8192];
    snprintf(yout, sizeof yout, "%s/src.yaml", tmpdir);
    cr_assert_eq(st_scene_convert(T.rt, scene, yout, &err), ST_OK, "%s", err.msg);
    FILE *yf = fopen(yout, "r");
    ytext[fread(ytext, 1, sizeof ytext - 1, yf)] = 0;
    fclose(yf);
    cr_assert(strstr(ytext, "# src: each field not set here reads the same-named field of "
                            "@loader\n    - MechanicalObject: {name: dofs, src: \"@loader\"}"),
              "%s", ytext);
    st_component *topo = test_find_object(s, "topo");
    const st_array *tri = st_component_field_ptr(topo, st_component_field(topo, "triangles"));
    cr_assert_eq(tri->n, 2);
    st_scene_destroy(&s);

    expect_error("<Node name=\"root\">\n  <MechanicalObject src=\"loader\"/>\n</Node>\n",
                 "t.scn:2:26", "'src' expects a link");
    /* src="" is no source, as SOFA reads it */
    st_scene *s3 = NULL;
    cr_assert_eq(load_as("<Node name=\"root\">\n  <MechanicalObject name=\"m\" src=\"\" "
                         "position=\"1 2 3\"/>\n</Node>\n",
                         "t.scn", &s3, &err),
                 ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s3, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(((st_mstate *)test_find_object(s3, "m"))->n, 1u);
    st_scene_destroy(&s3);
    /* and so is an empty link field (UniformMass topology=""): no link */
    cr_assert_eq(load_as("<Node name=\"root\">\n  <MechanicalObject position=\"1 2 3\"/>\n"
                         "  <UniformMass name=\"u\" topology=\"\" totalMass=\"2\"/>\n</Node>\n",
                         "t.scn", &s3, &err),
                 ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s3, &err), ST_OK, "%s", err.msg);
    st_component *u = test_find_object(s3, "u");
    cr_assert_null(*(st_component **)st_component_field_ptr(u, st_component_field(u, "topology")));
    st_scene_destroy(&s3);
    st_scene *s2 = NULL;
    cr_assert_eq(load_as("<Node name=\"root\">\n  <MechanicalObject src=\"@nothing\"/>\n</Node>\n",
                         "t.scn", &s2, &err),
                 ST_OK);
    cr_assert_neq(st_scene_init(s2, &err), ST_OK);
    st_error_format(&err, buf, sizeof buf);
    cr_assert(strstr(buf, "t.scn:2:26") && strstr(buf, "src '@nothing'"), "%s", buf);
    st_scene_destroy(&s2);
}

/* ---- data paths ---- */

Test(scn, files_resolve_through_data_paths)
{
    make_tmpdir();
    write_in("share/mesh/square.obj", cube_obj);
    write_in("sofa/mesh/tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    write_in("scenes/dir.obj/keep", "");
    const char *scene =
        write_in("scenes/a.scn", "<Node name=\"root\">\n"
                                 "  <RequiredPlugin pluginName=\"Sofa.Component.IO.Mesh\"/>\n"
                                 "  <MeshOBJLoader name=\"l1\" filename=\"mesh/square.obj\"/>\n"
                                 "  <MeshOBJLoader name=\"l2\" filename=\"mesh/tri.obj\"/>\n"
                                 "</Node>\n");
    char p1[1100], p2[1100];
    snprintf(p1, sizeof p1, "%s/nothing:%s/share", tmpdir, tmpdir);
    snprintf(p2, sizeof p2, "%s/sofa", tmpdir);
    setenv("SETTEE_DATA_PATH", p1, 1);
    setenv("SOFA_DATA_PATH", p2, 1);
    st_scene *s = NULL;
    st_error err = {0};
    char buf[2048];
    cr_assert_eq(st_scene_load(T.rt, scene, &s, &err), ST_OK);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", st_error_format(&err, buf, sizeof buf));
    st_scene_destroy(&s);

    unsetenv("SOFA_DATA_PATH");
    cr_assert_eq(st_scene_load(T.rt, scene, &s, &err), ST_OK);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    st_error_format(&err, buf, sizeof buf);
    /* Every place tried is listed: the scene's folder, then the data path. */
    cr_assert(strstr(buf, "a.scn:4:") && strstr(buf, "cannot find file 'mesh/tri.obj'"), "%s",
              buf);
    cr_assert(strstr(buf, "scenes/mesh/tri.obj") && strstr(buf, "nothing/mesh/tri.obj") &&
                  strstr(buf, "share/mesh/tri.obj"),
              "%s", buf);
    st_scene_destroy(&s);
    unsetenv("SETTEE_DATA_PATH");

    const char *dirscene =
        write_in("scenes/b.scn", "<Node name=\"root\">\n"
                                 "  <RequiredPlugin pluginName=\"Sofa.Component.IO.Mesh\"/>\n"
                                 "  <MeshOBJLoader filename=\"dir.obj\"/>\n"
                                 "</Node>\n");
    cr_assert_eq(st_scene_load(T.rt, dirscene, &s, &err), ST_OK);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "not a regular file"), "%s", err.msg);
    st_scene_destroy(&s);
}

/* ---- st_scene_set ---- */

Test(scn, scene_set_parses_with_the_field)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_as(spring_scn, "spring.scn", &s, &err), ST_OK);
    cr_assert_eq(st_scene_set(s, "/Bob/UniformMass1.totalMass", "4", &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(st_scene_set(s, "dt", "0.025", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_set(s, "Bob/p.position", "0.3 1.5 0", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(field_real(s, "UniformMass1", "totalMass"), 4.0);
    cr_assert_eq(st_node_dt(st_scene_root(s)), 0.025);

    struct {
        const char *target, *value, *words;
    } bad[] = {
        {"/Bob/UniformMas1.totalMass", "1", "did you mean 'UniformMass1'?"},
        {"/Bob/UniformMass1.totalMas", "1", "has no field 'totalMas' (did you mean 'totalMass'"},
        {"/Bob/UniformMass1.totalMass", "x", "expects a real number, got 'x'"},
        {"/Bob.dt", "0.1", "only the root node sets"},
        {"gravty", "0 0 0", "did you mean 'gravity'"},
        {"/Bob/p.", "1", "no field named"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        st_error_clear(&err);
        cr_assert_neq(st_scene_set(s, bad[i].target, bad[i].value, &err), ST_OK, "%s",
                      bad[i].target);
        cr_assert(strstr(err.msg, bad[i].words), "%s: %s", bad[i].target, err.msg);
    }
    st_scene_destroy(&s);
}

/* ---- convert ---- */

Test(scn, convert_round_trips_build_the_same_scene)
{
    make_tmpdir();
    const char *scn = write_in("spring.scn", spring_scn);
    char yaml[1100], scn2[1100], yaml2[1100];
    snprintf(yaml, sizeof yaml, "%s/spring.yaml", tmpdir);
    snprintf(scn2, sizeof scn2, "%s/again.scn", tmpdir);
    snprintf(yaml2, sizeof yaml2, "%s/again.yaml", tmpdir);
    st_error err = {0};
    cr_assert_eq(st_scene_convert(T.rt, scn, yaml, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_convert(T.rt, yaml, scn2, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_convert(T.rt, scn2, yaml2, &err), ST_OK, "%s", err.msg);
    double a[64], b[64], c[64];
    size_t na, nb, nc;
    run_file(scn, 30, a, &na);
    run_file(yaml, 30, b, &nb);
    run_file(scn2, 30, c, &nc);
    cr_assert_eq(na, nb);
    cr_assert_eq(na, nc);
    cr_assert_eq(memcmp(a, b, na * sizeof *a), 0);
    cr_assert_eq(memcmp(a, c, na * sizeof *a), 0);
    /* The second YAML is the first: the writers are each other's inverse. */
    char t1[8192], t2[8192];
    FILE *f1 = fopen(yaml, "r"), *f2 = fopen(yaml2, "r");
    size_t n1 = fread(t1, 1, sizeof t1 - 1, f1), n2 = fread(t2, 1, sizeof t2 - 1, f2);
    fclose(f1);
    fclose(f2);
    t1[n1] = t2[n2] = 0;
    cr_assert_str_eq(t1, t2);
    cr_assert(strstr(t1, "format: settee/1"));
    cr_assert(strstr(t1, "spring: [0, 0, 150, 0.5, 1]"), "%s", t1);

    /* A failed conversion leaves no output behind. */
    const char *bad = write_in("bad.scn", "<Node name=\"root\">\n");
    char out[1100];
    snprintf(out, sizeof out, "%s/bad.yaml", tmpdir);
    cr_assert_neq(st_scene_convert(T.rt, bad, out, &err), ST_OK);
    cr_assert_neq(access(out, F_OK), 0);
}

/* SOFA scenes write multi-word strings (displayFlags) and names with
 * spaces ("linear solver"): convert writes each value by its field's type,
 * so the YAML keeps them strings and runs as the .scn does (issue 31). */
Test(scn, convert_writes_values_by_field_type)
{
    make_tmpdir();
    const char *scn = write_in("words.scn",
        "<Node name=\"root\" gravity=\"0 -10 0\" dt=\"0.05\">\n"
        "  <RequiredPlugin name=\"Sofa.Component.Visual\"/>\n"
        "  <RequiredPlugin pluginName=\"Sofa.Component.ODESolver.Backward "
        "Sofa.Component.LinearSolver.Iterative Sofa.Component.Mass\"/>\n"
        "  <VisualStyle displayFlags=\"showBehaviorModels showForceFields\"/>\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Bob\">\n"
        "    <EulerImplicitSolver name=\"ode solver\" rayleighMass=\"0.1\"/>\n"
        "    <CGLinearSolver name=\"linear solver\" iterations=\"25\" tolerance=\"1e-9\" "
        "threshold=\"1e-9\"/>\n"
        "    <MechanicalObject name=\"p\" position=\"0.3 1 0  0 0 1\"/>\n"
        "    <UniformMass totalMass=\"2\"/>\n"
        "  </Node>\n"
        "</Node>\n");
    char yaml[1100];
    snprintf(yaml, sizeof yaml, "%s/words.yaml", tmpdir);
    st_error err = {0};
    cr_assert_eq(st_scene_convert(T.rt, scn, yaml, &err), ST_OK, "%s", err.msg);
    char *text = test_read_file(yaml);
    cr_assert(text);
    cr_assert(strstr(text, "displayFlags: \"showBehaviorModels showForceFields\""), "%s", text);
    cr_assert(strstr(text, "name: \"linear solver\""), "%s", text);
    cr_assert(strstr(text, "name: \"ode solver\""), "%s", text);
    cr_assert(strstr(text, "position: [0.3, 1, 0, 0, 0, 1]"), "a list stays a list: %s", text);
    cr_assert(!strstr(text, "older form"), "SOFA's RequiredPlugin name= is not old: %s", text);
    cr_assert(!strstr(text, "the plugins of classes"), "every plugin is named: %s", text);
    free(text);
    double a[64], b[64];
    size_t na, nb;
    run_file(scn, 10, a, &na);
    run_file(yaml, 10, b, &nb);
    cr_assert_eq(na, nb);
    cr_assert_eq(memcmp(a, b, na * sizeof *a), 0, "the YAML runs as the .scn, bit for bit");
}

/* A SOFA scene that uses classes without naming their plugins (SOFA's XML
 * loads them by class): the YAML names them in one RequiredPlugin. */
Test(scn, convert_names_the_plugins_a_scene_uses_without_requiring_them)
{
    make_tmpdir();
    const char *scn = write_in("noplugins.scn",
        "<Node name=\"root\" gravity=\"0 -10 0\" dt=\"0.05\">\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Bob\">\n"
        "    <EulerImplicitSolver rayleighMass=\"0.1\"/>\n"
        "    <CGLinearSolver iterations=\"25\" tolerance=\"1e-9\" threshold=\"1e-9\"/>\n"
        "    <MechanicalObject name=\"p\" position=\"0.3 1 0\"/>\n"
        "    <UniformMass totalMass=\"2\"/>\n"
        "  </Node>\n"
        "</Node>\n");
    char yaml[1100];
    snprintf(yaml, sizeof yaml, "%s/noplugins.yaml", tmpdir);
    st_error err = {0};
    cr_assert_eq(st_scene_convert(T.rt, scn, yaml, &err), ST_OK, "%s", err.msg);
    char *text = test_read_file(yaml);
    cr_assert(text);
    cr_assert(strstr(text, "- RequiredPlugin: {pluginName: [LinearSolver.Iterative, Mass, "
                           "ODESolver.Backward]}"),
              "%s", text);
    free(text);
    double a[64], b[64];
    size_t na, nb;
    run_file(scn, 10, a, &na);
    run_file(yaml, 10, b, &nb);
    cr_assert_eq(na, nb);
    cr_assert_eq(memcmp(a, b, na * sizeof *a), 0);
}

/* ---- the command line ---- */

Test(scn, cli_run_set_and_convert)
{
    make_tmpdir();
    const char *scn = write_in("spring.scn", spring_scn);
    char cmd[4096], out[8192];
    snprintf(cmd, sizeof cmd,
             "%s run %s -n 5 --set /Bob/UniformMass1.totalMass=3 --set dt=0.01 --no-progress",
             SETTEE_CLI, scn);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "5 steps, simulated 0.05 s"), "%s", out);
    cr_assert(strstr(out, "with --set /Bob/UniformMass1.totalMass=3, dt=0.01"), "%s", out);

    snprintf(cmd, sizeof cmd, "%s run %s --set /Bob/UniformMass1.totalMas=3", SETTEE_CLI, scn);
    cr_assert_eq(test_run(cmd, out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "did you mean 'totalMass'"), "%s", out);
    snprintf(cmd, sizeof cmd, "%s run %s --set totalMass", SETTEE_CLI, scn);
    cr_assert_eq(test_run(cmd, out, sizeof out), 2, "%s", out);

    snprintf(cmd, sizeof cmd, "%s convert %s", SETTEE_CLI, scn);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "format: settee/1") && strstr(out, "- name: Bob"), "%s", out);
    snprintf(cmd, sizeof cmd, "%s convert", SETTEE_CLI);
    cr_assert_eq(test_run(cmd, out, sizeof out), 2, "%s", out);
}

/* ---- RGBA colours (SOFA's RGBAColor) ---- */

Test(scn, colours_read_as_sofa_reads_them)
{
    struct {
        const char *text;
        float rgba[4];
    } ok[] = {
        {"1 0 0.5 0.25", {1, 0, 0.5f, 0.25f}}, {"0.5 0.5 0.5", {0.5f, 0.5f, 0.5f, 1}},
        {"red", {1, 0, 0, 1}},                 {"gold", {1, 0.84f, 0, 1}},
        {"#ff8000", {1, 128 / 255.0f, 0, 1}},  {"#f80", {1, 136 / 255.0f, 0, 1}},
        {"#ff000080", {1, 0, 0, 128 / 255.0f}},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "<Node name=\"root\">\n  <MechanicalObject name=\"m\" showColor=\"%s\"/>\n</Node>\n",
                 ok[i].text);
        st_scene *s = NULL;
        st_error err = {0};
        cr_assert_eq(load_as(text, "c.scn", &s, &err), ST_OK, "%s: %s", ok[i].text, err.msg);
        st_component *m = test_find_object(s, "m");
        const st_field *f = st_component_field(m, "showColor");
        cr_assert_eq(f->type, ST_T_RGBA);
        const double *c = st_component_field_ptr(m, f);
        for (int k = 0; k < 4; k++)
            cr_assert_eq(c[k], (double)ok[i].rgba[k], "%s [%d]: %g", ok[i].text, k, c[k]);
        st_scene_destroy(&s);
    }
    const char *bad[][2] = {{"redd", "did you mean 'red'"},
                            {"#ff00f", "#rgb, #rgba, #rrggbb or #rrggbbaa"},
                            {"1 0", "3 or 4 reals"},
                            {"1 0 x", "expects a real number"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "<Node name=\"root\">\n  <MechanicalObject showColor=\"%s\"/>\n</Node>\n",
                 bad[i][0]);
        expect_error(text, "t.scn:2:", bad[i][1]);
    }
}

/* AddDataRepository and AddPluginRepository act while the scene is read:
 * file names and RequiredPlugin entries after them search their folders. */
Test(scn, repositories_extend_the_search_while_reading)
{
    make_tmpdir();
    write_in("scenes/extra/only_here.obj", cube_obj);
    char text[2048];
    snprintf(text, sizeof text,
             "<Node name=\"root\">\n"
             "  <RequiredPlugin pluginName=\"Sofa.Component.IO.Mesh Sofa.Component.SceneUtility\"/>\n"
             "  <AddDataRepository path=\"extra\"/>\n"
             "  <MeshOBJLoader name=\"l\" filename=\"only_here.obj\"/>\n"
             "  <AddPluginRepository path=\"%s\"/>\n"
             "  <RequiredPlugin pluginName=\"TestGood\"/>\n"
             "</Node>\n",
             SETTEE_TEST_PLUGIN_DIR);
    const char *scene = write_in("scenes/repo.scn", text);
    st_scene *s = NULL;
    st_error err = {0};
    char buf[2048];
    cr_assert_eq(st_scene_load(T.rt, scene, &s, &err), ST_OK, "%s",
                 st_error_format(&err, buf, sizeof buf));
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", st_error_format(&err, buf, sizeof buf));
    st_component *l = test_find_object(s, "l");
    const st_array *p = st_component_field_ptr(l, st_component_field(l, "position"));
    cr_assert_eq(p->n, 4);
    st_scene_destroy(&s);

    /* A folder that does not exist is an error at its line. */
    const char *bad = write_in("scenes/bad.scn",
                               "<Node name=\"root\">\n"
                               "  <RequiredPlugin pluginName=\"Sofa.Component.SceneUtility\"/>\n"
                               "  <AddDataRepository path=\"nowhere\"/>\n"
                               "</Node>\n");
    cr_assert_neq(st_scene_load(T.rt, bad, &s, &err), ST_OK);
    st_error_format(&err, buf, sizeof buf);
    cr_assert(strstr(buf, "bad.scn:3:") && strstr(buf, "folder 'nowhere' does not exist"), "%s",
              buf);
}

/* st_component_warn_field points at the scene line of the field's value. */
Test(scn, field_warnings_point_at_the_value)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_as("<Node name=\"root\">\n  <MechanicalObject name=\"m\"\n"
                         "      position=\"1 2 3\"/>\n</Node>\n",
                         "w.scn", &s, &err),
                 ST_OK);
    st_component *m = test_find_object(s, "m");
    st_component_warn_field(m, "position", "look at %d", 3);
    st_component_warn_field(m, "velocity", "not written");
    cr_assert(strstr(T.log, "warning|w.scn:3:17|/m|MechanicalObject.position: look at 3\n"), "%s",
              T.log);
    cr_assert(strstr(T.log, "warning|w.scn:2:4|/m|MechanicalObject.velocity: not written\n"), "%s",
              T.log);
    st_scene_destroy(&s);
}

/* SOFA's XML reader replaces an object whose class nobody provides by
 * "Objects/<class>.xml" from the data path, read as an include whose
 * attributes are the element's. */
Test(scn, unknown_class_reads_its_objects_file)
{
    make_tmpdir();
    write_in("Objects/HeldBox.xml", "<Node name=\"Group\">\n"
                                    "  <BoxROI name=\"held_roi\" box=\"0 0 0 1 1 1\"/>\n"
                                    "  <FixedProjectiveConstraint indices=\"@[-1].indices\"/>\n"
                                    "</Node>\n");
    const char *scene = write_in(
        "held.scn",
        "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -10 0\">\n"
        "  <RequiredPlugin pluginName=\"Sofa.Component.Mass Sofa.Component.ODESolver.Forward "
        "Sofa.Component.Engine.Select Sofa.Component.Constraint.Projective\"/>\n"
        "  <EulerExplicitSolver symplectic=\"1\"/>\n"
        "  <MechanicalObject name=\"dofs\" position=\"0 0 0  5 0 0\"/>\n"
        "  <UniformMass totalMass=\"2\"/>\n"
        "  <HeldBox box=\"4 -1 -1 6 1 1\"/>\n"
        "</Node>\n");
    st_scene *s = NULL;
    st_error err = {0};
    char buf[1024];
    cr_assert_eq(st_scene_load(T.rt, scene, &s, &err), ST_OK, "%s",
                 st_error_format(&err, buf, sizeof buf));
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    cr_assert_lt(ms->position.r[1], -1e-4, "point 0 (outside the box given) falls");
    cr_assert_eq(ms->position.r[4], 0.0, "point 1 (inside the box given) is held");
    st_scene_destroy(&s);
    /* Named by its element (as SOFA's old CGImplicitSolver scenes do): the
     * file's root is still Group, so its objects join the element's node
     * rather than a child named after the element, and the element's other
     * attributes override the objects' (the damping of 1 stops the fall). */
    write_in("Objects/FallSolver.xml", "<Node name=\"Group\">\n"
                                       "  <EulerImplicitSolver name=\"ode\" rayleighMass=\"0\"/>\n"
                                       "  <CGLinearSolver iterations=\"50\" tolerance=\"1e-12\""
                                       " threshold=\"1e-20\"/>\n"
                                       "</Node>\n");
    const char *named = write_in(
        "named.scn",
        "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -10 0\">\n"
        "  <RequiredPlugin pluginName=\"Sofa.Component.Mass Sofa.Component.ODESolver.Backward "
        "Sofa.Component.LinearSolver.Iterative\"/>\n"
        "  <Node name=\"Body\">\n"
        "    <FallSolver name=\"Solver\" iterations=\"40\"/>\n"
        "    <MechanicalObject name=\"body\" position=\"0 0 0\"/>\n"
        "    <UniformMass totalMass=\"1\"/>\n"
        "  </Node>\n"
        "</Node>\n");
    cr_assert_eq(st_scene_load(T.rt, named, &s, &err), ST_OK, "%s",
                 st_error_format(&err, buf, sizeof buf));
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    ms = (st_mstate *)test_find_object(s, "body");
    cr_assert(fabs(ms->position.r[1] + 10 * 0.01 * 0.01) < 1e-12, "falls by g dt^2: %g",
              ms->position.r[1]);
    st_component *cg = test_find_object(s, "CGLinearSolver1");
    cr_assert_not_null(cg);
    cr_assert_eq(cg->node, ms->base.node, "the solvers join the body's node");
    cr_assert_eq(*(const unsigned *)st_component_field_ptr(cg, st_component_field(cg, "iterations")),
                 40u);
    st_scene_destroy(&s);
    /* A class nobody provides and no such file: still an unknown component. */
    const char *bad = write_in("bad.scn", "<Node name=\"root\">\n  <NoSuchThing/>\n</Node>\n");
    cr_assert_neq(st_scene_load(T.rt, bad, &s, &err), ST_OK);
    cr_assert(strstr(err.msg, "unknown component 'NoSuchThing'"), "%s", err.msg);
}

/* As in SOFA: a container's src may be another topology (a grid), a force
 * field in a child node without a state acts on the parent's, and a
 * mapping's output "@." in a node without a MechanicalObject is its visual
 * model. */
Test(scn, context_state_topology_src_and_visual_output)
{
    static const char *text =
        "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -10 0\">\n"
        "  <RequiredPlugin pluginName=\"Sofa.Component.Mass Sofa.Component.ODESolver.Backward "
        "Sofa.Component.LinearSolver.Iterative Sofa.Component.Topology.Container.Grid "
        "Sofa.Component.Topology.Container.Dynamic Sofa.Component.Topology.Mapping "
        "Sofa.Component.SolidMechanics.FEM.Elastic Sofa.Component.Constraint.Projective "
        "Sofa.Component.Mapping.Linear Sofa.GL.Component.Rendering3D "
        "Sofa.Component.SolidMechanics.Spring\"/>\n"
        "  <RegularGridTopology name=\"grid\" n=\"3 1 3\" min=\"0 0 0\" max=\"1 0 1\"/>\n"
        "  <Node name=\"Cloth\">\n"
        "    <EulerImplicitSolver/>\n"
        "    <CGLinearSolver iterations=\"100\" tolerance=\"1e-12\" threshold=\"1e-12\"/>\n"
        "    <QuadSetTopologyContainer name=\"quads\" src=\"@../grid\"/>\n"
        "    <MechanicalObject name=\"dofs\"/>\n"
        "    <DiagonalMass totalMass=\"1\"/>\n"
        "    <FixedProjectiveConstraint indices=\"0 2\"/>\n"
        "    <Node name=\"T\">\n"
        "      <TriangleSetTopologyContainer name=\"tris\"/>\n"
        "      <TriangleSetTopologyModifier/>\n"
        "      <Quad2TriangleTopologicalMapping input=\"@../quads\" output=\"@tris\"/>\n"
        "      <TriangularFEMForceField name=\"fem\" youngModulus=\"1000\" poissonRatio=\"0.3\"/>\n"
        "      <Node name=\"E\">\n"
        "        <EdgeSetTopologyContainer name=\"edges\"/>\n"
        "        <EdgeSetTopologyModifier/>\n"
        "        <Triangle2EdgeTopologicalMapping input=\"@../tris\" output=\"@edges\"/>\n"
        "        <MeshSpringForceField name=\"springs\" stiffness=\"10\"/>\n"
        "      </Node>\n"
        "      <Node name=\"Visu\">\n"
        "        <OglModel name=\"visual\"/>\n"
        "        <IdentityMapping input=\"@../..\" output=\"@.\"/>\n"
        "      </Node>\n"
        "    </Node>\n"
        "  </Node>\n"
        "</Node>\n";
    st_scene *s = NULL;
    st_error err = {0};
    char buf[1024];
    cr_assert_eq(load_as(text, "ctx.scn", &s, &err), ST_OK, "%s",
                 st_error_format(&err, buf, sizeof buf));
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", st_error_format(&err, buf, sizeof buf));
    st_component *quads = test_find_object(s, "quads");
    const st_array *q = st_component_field_ptr(quads, st_component_field(quads, "quads"));
    const st_array *qp = st_component_field_ptr(quads, st_component_field(quads, "position"));
    cr_assert_eq(q->n, 4, "the grid's 2x2 quads");
    cr_assert_eq(qp->n, 9, "the grid's 3x3 points");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    st_component *fem = test_find_object(s, "fem");
    cr_assert_eq(st_component_mstate(fem), ms, "the child node's force field acts on the parent's state");
    /* Two levels down, on the mapped edges (Triangle2Edge keeps the border
     * edges: the grid's 8): 8 springs of 5 reals. */
    st_component *springs = test_find_object(s, "springs");
    cr_assert_eq(st_component_mstate(springs), ms);
    const st_field *sf = st_component_field(springs, "spring");
    const size_t nsp = ((const st_array *)st_component_field_ptr(springs, sf))->n;
    cr_assert_eq(nsp, 8 * 5, "%zu reals", nsp);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    /* Held corners, a sagging free corner, the visual model following. */
    cr_assert_eq(ms->position.r[1], 0.0);
    cr_assert_lt(ms->position.r[3 * 8 + 1], -1e-5);
    st_component *vis = test_find_object(s, "visual");
    const st_array *vp = st_component_field_ptr(vis, st_component_field(vis, "position"));
    cr_assert_eq(vp->n, 9);
    cr_assert_eq(vp->r[3 * 8 + 1], ms->position.r[3 * 8 + 1]);
    st_scene_destroy(&s);
}

/* A link that may name any component stands, when it names a node, for the
 * node's MechanicalObject (SOFA's mapping output="@."); a node without
 * exactly one is an error saying so. */
Test(scn, a_node_stands_for_its_state)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_as(spring_scn, "spring.scn", &s, &err), ST_OK);
    st_component *c = NULL;
    cr_assert_eq(st_node_resolve(st_scene_root(s), "Bob", ST_LINK_ANY, &c, &err), ST_OK, "%s",
                 err.msg);
    cr_assert(st_component_has_role(c, ST_ROLE_STATE));
    cr_assert_str_eq(st_node_name(c->node), "Bob");
    cr_assert_neq(st_node_resolve(st_scene_root(s), ".", ST_LINK_ANY, &c, &err), ST_OK);
    cr_assert(strstr(err.msg, "stands for its MechanicalObject, or else its visual model, and it "
                          "has 0 MechanicalObjects"),
              "%s", err.msg);
    st_scene_destroy(&s);
}

/* Index lists read SOFA's ranges: A-B, A-B-step, reversed, a negative step
 * ending on B; nonsense and huge ranges are errors at the value. */
Test(scn, index_lists_read_sofas_ranges)
{
    const char *text = "<Node name=\"root\">\n"
                       "  <RequiredPlugin pluginName=\"Sofa.Component.Constraint.Projective\"/>\n"
                       "  <MechanicalObject position=\"0 0 0\" size=\"20\"/>\n"
                       "  <FixedProjectiveConstraint name=\"f\" indices=\"0-3 7 10-6-2 9-0--4 5-5\"/>\n"
                       "</Node>\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_as(text, "r.scn", &s, &err), ST_OK, "%s", err.msg);
    st_component *f = test_find_object(s, "f");
    const st_array *a = st_component_field_ptr(f, st_component_field(f, "indices"));
    const unsigned want[] = {0, 1, 2, 3, 7, 6, 8, 10, 9, 5, 1, 0, 5};
    cr_assert_eq(a->n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < a->n; i++)
        cr_assert_eq(a->u[i], want[i], "index %zu: %u, SOFA %u", i, a->u[i], want[i]);
    st_scene_destroy(&s);
    expect_error("<Node name=\"root\">\n  <RequiredPlugin pluginName=\"Sofa.Component."
                 "Constraint.Projective\"/>\n  <FixedProjectiveConstraint indices=\"1-x\"/>\n"
                 "</Node>\n",
                 "t.scn:3:40", "ranges A-B or A-B-step");
    expect_error("<Node name=\"root\">\n  <RequiredPlugin pluginName=\"Sofa.Component."
                 "Constraint.Projective\"/>\n  <FixedProjectiveConstraint indices=\"0-4000000000\"/>"
                 "\n</Node>\n",
                 "t.scn:3:40", "more than the 50000000");
}

/* MechanicalObject's SOFA parse attributes replace scale3d, rotation and
 * translation, each read as one float; "0 0 0" is not one float: SOFA (and
 * settee) use the default and say so. */
Test(scn, mechanical_object_parse_attributes)
{
    const char *text = "<Node name=\"root\">\n"
                       "  <MechanicalObject name=\"a\" position=\"1 0 0\" scale=\"2\" dx=\"0.1\""
                       " translation=\"5 5 5\"/>\n"
                       "  <MechanicalObject name=\"b\" position=\"1 0 0\" rz=\"90\" dy=\"0 0 0\"/>\n"
                       "</Node>\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_as(text, "pa.scn", &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_mstate *a = (st_mstate *)test_find_object(s, "a"), *b = (st_mstate *)test_find_object(s, "b");
    /* a: scale 2, then the translation (0.1f, 0, 0) replaces "5 5 5". */
    cr_assert_eq(a->position.r[0], 2.0 + (double)0.1f);
    cr_assert_eq(a->position.r[1], 0.0);
    /* b: a quarter turn about z takes x to y; dy's text gives 0 and a warning. */
    cr_assert_float_eq(b->position.r[0], 0.0, 1e-15);
    cr_assert_float_eq(b->position.r[1], 1.0, 1e-15);
    cr_assert(strstr(T.log, "MechanicalObject.dy: '0 0 0' is not one number"), "%s", T.log);
    st_scene_destroy(&s);
}

/* SOFA's relative object links: "@[-1]" is the object just before, in the
 * same node. */
Test(scn, relative_object_links)
{
    const char *text = "<Node name=\"root\">\n"
                       "  <MechanicalObject name=\"a\" position=\"1 2 3\"/>\n"
                       "  <MechanicalObject name=\"b\" position=\"4 5 6\"/>\n"
                       "  <MechanicalObject name=\"c\" position=\"@[-2].position\"/>\n"
                       "  <MechanicalObject name=\"d\" position=\"@[-2].position\"/>\n"
                       "</Node>\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_as(text, "rel.scn", &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_mstate *c = (st_mstate *)test_find_object(s, "c"), *d = (st_mstate *)test_find_object(s, "d");
    cr_assert_eq(c->position.r[0], 1.0);
    cr_assert_eq(d->position.r[0], 4.0);
    st_scene_destroy(&s);
    cr_assert_eq(load_as("<Node name=\"root\">\n  <MechanicalObject position=\"@[-3].position\"/>\n"
                         "</Node>\n",
                         "rel.scn", &s, &err),
                 ST_OK);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "no object -3 places from this one"), "%s", err.msg);
    st_scene_destroy(&s);
}

/* One mistake, one message: a state's unknown template is met by each
 * component that reads the state (mass, constraint, force field, solver),
 * and said once. Loading the scene again says it again. */
Test(scn, one_mistake_one_message)
{
    static const char *scn =
        "<Node name=\"root\" dt=\"0.01\">\n"
        "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Backward\"/>\n"
        "  <RequiredPlugin name=\"Sofa.Component.LinearSolver.Iterative\"/>\n"
        "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"
        "  <RequiredPlugin name=\"Sofa.Component.Constraint.Projective\"/>\n"
        "  <RequiredPlugin name=\"Sofa.Component.SolidMechanics.Spring\"/>\n"
        "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Grid\"/>\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Beam\">\n"
        "    <EulerImplicitSolver/>\n"
        "    <CGLinearSolver iterations=\"25\" tolerance=\"1e-9\" threshold=\"1e-9\"/>\n"
        "    <RegularGridTopology n=\"2 2 3\" min=\"0 0 0\" max=\"1 1 2\"/>\n"
        "    <MechanicalObject name=\"dofs\" template=\"Vec3x\"/>\n"
        "    <UniformMass totalMass=\"1\"/>\n"
        "    <FixedProjectiveConstraint indices=\"0 1\"/>\n"
        "    <MeshSpringForceField stiffness=\"100\"/>\n"
        "  </Node>\n"
        "</Node>\n";
    for (int round = 1; round <= 2; round++) {
        st_scene *s = NULL;
        st_error err = {0};
        if (load_as(scn, "tpl.scn", &s, &err) == ST_OK) {
            cr_assert_neq(st_scene_init(s, &err), ST_OK);
            st_scene_destroy(&s);
        }
        size_t n = 0;
        for (const char *p = T.log; (p = strstr(p, "unsupported template 'Vec3x'")) != NULL; p++)
            n++;
        cr_assert_eq(n, (size_t)round, "round %d, the template error said %zu times:\n%s", round,
                     n, T.log);
    }
}

/* Sofa.GUI.Component's mouse button settings and MouseInteractor, and the
 * Haptics plugin's NullForceFeedback, load headless: their data is kept and checked (button is one of Left, Middle,
 * Right), noted as having no effect, and the scene runs as without them. */
Test(scn, gui_button_settings_are_kept_headless)
{
    static const char *fmt =
        "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -9.81 0\">\n"
        "  <RequiredPlugin name=\"Sofa.GUI.Component\"/>\n"
        "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Forward\"/>\n"
        "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"
        "  <DefaultAnimationLoop/>\n"
        "  <AttachBodyButtonSetting button=\"%s\" stiffness=\"5000\" arrowSize=\"0.2\"/>\n"
        "  <FixPickedParticleButtonSetting button=\"Left\" stiffness=\"10000\"/>\n"
        "  <ConstraintAttachButtonSetting/>\n"
        "  <RequiredPlugin name=\"Sofa.Component.Haptics\"/>\n"
        "  <NullForceFeedback activate=\"1\" indice=\"2\"/>\n"
        "  <Node name=\"P\">\n"
        "    <EulerExplicitSolver symplectic=\"1\"/>\n"
        "    <MechanicalObject position=\"0 0 0\" velocity=\"1 0 0\"/>\n"
        "    <UniformMass totalMass=\"1\"/>\n"
        "    <MouseInteractor/>\n"
        "  </Node>\n"
        "</Node>\n";
    char scn[2048];
    snprintf(scn, sizeof scn, fmt, "Right");
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_as(scn, "gui.scn", &s, &err), ST_OK, "%s", err.msg);
    double x[8];
    size_t n;
    run_scene(s, 10, x, &n);
    cr_assert_eq(n, 6); /* position and velocity */
    cr_assert_float_eq(x[0], 0.1, 1e-12, "x = %g", x[0]);
    cr_assert_float_eq(x[1], -9.81 * 0.01 * 0.01 * 55, 1e-12, "y = %g", x[1]);
    cr_assert(strstr(T.log, "field 'stiffness' is accepted for SOFA compatibility and has no "
                            "effect"),
              "%s", T.log);
    st_component *a = test_find_object(s, "AttachBodyButtonSetting1");
    cr_assert_not_null(a);
    cr_assert_str_eq(*(char **)st_component_field_ptr(a, st_component_field(a, "button")),
                     "Right");
    st_component *ff = test_find_object(s, "NullForceFeedback1");
    cr_assert_not_null(ff);
    cr_assert_eq(*(int *)st_component_field_ptr(ff, st_component_field(ff, "indice")), 2);
    st_scene_destroy(&s);
    snprintf(scn, sizeof scn, fmt, "Top");
    st_status st = load_as(scn, "gui.scn", &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    st_scene_destroy(&s);
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "Top") && strstr(err.msg, "Middle"), "%s", err.msg);
    /* MouseInteractor needs a state of its type in its context (SOFA's error) */
    const char *mice[2] = {"<Node name=\"root\"><RequiredPlugin name=\"Sofa.GUI.Component\"/>"
                           "<MouseInteractor/></Node>",
                           "<Node name=\"root\"><RequiredPlugin name=\"Sofa.GUI.Component\"/>"
                           "<MechanicalObject template=\"Rigid3d\" position=\"0 0 0 0 0 0 1\"/>"
                           "<MouseInteractor template=\"Vec3d\"/></Node>"};
    const char *said[2] = {"requires a MechanicalState of the correct type",
                           "does not match the Rigid3d state"};
    for (int k = 0; k < 2; k++) {
        st = load_as(mice[k], "mouse.scn", &s, &err);
        if (st == ST_OK)
            st = st_scene_init(s, &err);
        st_scene_destroy(&s);
        cr_assert_neq(st, ST_OK, "%s", mice[k]);
        cr_assert(strstr(err.msg, said[k]), "%s", err.msg);
    }
}
