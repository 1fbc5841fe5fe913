/* test_scn_links.c - scene semantics SOFA's example scenes rely on: a
 * topology container reading its own `filename`, node paths standing for
 * the nearest state up the tree, multi-mapping input lists, src copies of
 * containers filled later, masses in a child node holding only a topology
 * and paths that go above the root. Scenes of our own, in SOFA's format. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"
#include "topo_support.h"

static test_rt T;

static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }

TestSuite(scn_links, .init = setup, .fini = teardown);

static st_scene *load_scn(const char *text)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, text, strlen(text), "links.scn", &s, &err), ST_OK,
                 "load: %s: %s", err.where, err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s: %s %s", err.where, err.path, err.msg);
    return s;
}

static st_status load_scn_fails(const char *text, st_error *err)
{
    st_scene *s = NULL;
    st_status st = st_scene_load_string(T.rt, text, strlen(text), "links.scn", &s, err);
    if (st == ST_OK) {
        st = st_scene_init(s, err);
        st_scene_destroy(&s);
    }
    return st;
}

/* 6 points; faces: a quad, a triangle, a pentagon (a fan of 3 triangles)
 * and a 2-vertex face (an edge, sorted). */
static const char *obj_text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2 1 1\n"
                              "f 1 2 3 4\nf 2 5 3\nf 1 2 5 6 4\nf 6 3\n";

Test(scn_links, mesh_topology_reads_an_obj_file)
{
    const char *obj = test_write_temp("links-topo.obj", obj_text);
    char scn[2048];
    snprintf(scn, sizeof scn,
             "<Node name=\"root\">\n"
             "  <Node name=\"a\">\n"
             "    <MeshTopology name=\"topo\" filename=\"%s\"/>\n"
             "    <MechanicalObject name=\"dofs\"/>\n"
             "  </Node>\n"
             "  <Node name=\"b\">\n"
             "    <MechanicalObject name=\"dofs\"/>\n"
             "    <MeshTopology name=\"topo\" fileTopology=\"%s\"/>\n"
             "  </Node>\n"
             "</Node>\n",
             obj, obj);
    st_scene *s = load_scn(scn);
    st_component *topo = topo_get(s, "a/topo");
    st_array *pos = topo_arr(topo, "position");
    cr_assert_eq(pos->n, 6);
    cr_assert_float_eq(pos->r[3 * 5 + 2], 1.0, 0);
    unsigned quads[] = {0, 1, 2, 3};
    topo_assert_tuples(topo_arr(topo, "quads"), 4, quads, 1, "quads");
    unsigned tris[] = {1, 4, 2, 0, 1, 4, 0, 4, 5, 0, 5, 3};
    topo_assert_tuples(topo_arr(topo, "triangles"), 3, tris, 4, "triangles");
    /* the file's edge, then none derived over it: SOFA keeps given edges */
    st_array *edges = topo_arr(topo, "edges");
    cr_assert_geq(edges->n, 1);
    cr_assert_eq(edges->u[0], 2);
    cr_assert_eq(edges->u[1], 5);
    /* a MechanicalObject after or before the container takes its points */
    const char *paths[] = {"a/dofs", "b/dofs"};
    for (int k = 0; k < 2; k++) {
        st_array *x = topo_arr(topo_get(s, paths[k]), "position");
        cr_assert_eq(x->n, 6, "%s: %zu points", paths[k], x->n);
        cr_assert_float_eq(x->r[3 * 4 + 0], 2.0, 0, "%s", paths[k]);
    }
    st_scene_destroy(&s);
}

/* A Gmsh 2.2 file: 5 nodes, a triangle and two tetrahedra. */
static const char *msh_text = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
                              "$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n"
                              "$EndNodes\n$Elements\n3\n"
                              "1 2 2 0 1 1 2 3\n"
                              "2 4 2 0 1 1 2 3 4\n"
                              "3 4 2 0 1 2 3 4 5\n"
                              "$EndElements\n";

Test(scn_links, set_containers_read_a_gmsh_file)
{
    const char *msh = test_write_temp("links-topo.msh", msh_text);
    char scn[2048];
    snprintf(scn, sizeof scn,
             "<Node name=\"root\">\n"
             "  <TetrahedronSetTopologyContainer name=\"tetras\" filename=\"%s\"/>\n"
             "  <TriangleSetTopologyContainer name=\"tris\" filename=\"%s\"/>\n"
             "</Node>\n",
             msh, msh);
    st_scene *s = load_scn(scn);
    st_component *t = topo_get(s, "tetras");
    cr_assert_eq(topo_arr(t, "position")->n, 5);
    unsigned tets[] = {0, 1, 2, 3, 1, 2, 3, 4};
    topo_assert_tuples(topo_arr(t, "tetrahedra"), 4, tets, 2, "tetrahedra");
    unsigned nb = 0;
    const st_field *f = st_component_field(t, "nbPoints");
    memcpy(&nb, st_component_field_ptr(t, f), sizeof nb);
    cr_assert_eq(nb, 5);
    /* a triangle container keeps the file's triangle, not its tetrahedra */
    st_component *tr = topo_get(s, "tris");
    unsigned tri[] = {0, 1, 2};
    topo_assert_tuples(topo_arr(tr, "triangles"), 3, tri, 1, "triangles");
    cr_assert_null(st_component_field(tr, "tetrahedra"));
    st_scene_destroy(&s);
}

Test(scn_links, topology_filename_errors_name_the_file)
{
    st_error err = {0};
    const char *missing = "<Node name=\"root\">\n"
                          "  <MeshTopology filename=\"no/such/mesh.obj\"/>\n"
                          "</Node>\n";
    cr_assert_neq(load_scn_fails(missing, &err), ST_OK);
    cr_assert(strstr(err.msg, "no/such/mesh.obj"), "%s", err.msg);
    const char *stl = test_write_temp("links-topo.stl", "solid x\nendsolid x\n");
    char scn[1024];
    snprintf(scn, sizeof scn, "<Node name=\"root\"><MeshTopology filename=\"%s\"/></Node>\n", stl);
    cr_assert_neq(load_scn_fails(scn, &err), ST_OK);
    cr_assert(strstr(err.msg, ".obj, .msh and .vtk"), "%s", err.msg);
    const char *bad = test_write_temp("links-bad.obj", "v 0 0 0\nf 1 2 x\n");
    snprintf(scn, sizeof scn, "<Node name=\"root\"><MeshTopology filename=\"%s\"/></Node>\n", bad);
    cr_assert_neq(load_scn_fails(scn, &err), ST_OK);
    cr_assert(strstr(err.msg, ":2:"), "the file's line: %s", err.msg);
}

/* "@.." on a node without a state stands for the nearest state above it
 * (SOFA's Node::getState searches the ancestors). */
Test(scn_links, node_path_to_a_stateless_node_takes_the_nearest_state_above)
{
    const char *scn = "<Node name=\"root\">\n"
                      "  <RequiredPlugin name=\"Sofa.Component.Mapping.Linear\"/>\n"
                      "  <MechanicalObject name=\"top\" position=\"0 0 0  1 2 3\"/>\n"
                      "  <Node name=\"shape\">\n"
                      "    <MeshTopology name=\"t\" edges=\"0 1\"/>\n"
                      "    <Node name=\"copy\">\n"
                      "      <MechanicalObject name=\"dofs\"/>\n"
                      "      <IdentityMapping name=\"map\" input=\"@..\" output=\"@.\"/>\n"
                      "    </Node>\n"
                      "  </Node>\n"
                      "</Node>\n";
    st_scene *s = load_scn(scn);
    st_component *map = topo_get(s, "shape/copy/map");
    const st_field *f = st_component_field(map, "input");
    cr_assert(f);
    st_component *in = *(st_component **)st_component_field_ptr(map, f);
    cr_assert_eq(in, topo_get(s, "top"), "input is %s", in ? in->name : "(none)");
    st_array *x = topo_arr(topo_get(s, "shape/copy/dofs"), "position");
    cr_assert_eq(x->n, 2);
    cr_assert_float_eq(x->r[4], 2.0, 0);
    st_scene_destroy(&s);

    /* no state anywhere above: the error says so */
    const char *none = "<Node name=\"root\">\n"
                       "  <RequiredPlugin name=\"Sofa.Component.Mapping.Linear\"/>\n"
                       "  <Node name=\"shape\">\n"
                       "    <Node name=\"copy\">\n"
                       "      <MechanicalObject name=\"dofs\" position=\"0 0 0\"/>\n"
                       "      <IdentityMapping input=\"@..\" output=\"@.\"/>\n"
                       "    </Node>\n"
                       "  </Node>\n"
                       "</Node>\n";
    st_error err = {0};
    cr_assert_neq(load_scn_fails(none, &err), ST_OK);
    cr_assert(strstr(err.msg, "nor has any node above it"), "%s", err.msg);
}

/* A src path with more "../" than the node has ancestors stops at the root
 * (SOFA's Node::getObject), with a warning; other links above the root
 * stay errors. */
Test(scn_links, src_above_the_root_stops_at_the_root)
{
    const char *scn = "<Node name=\"root\">\n"
                      "  <MeshTopology name=\"L\" position=\"0 0 0  1 0 0  0 1 0\" "
                      "triangles=\"0 1 2\"/>\n"
                      "  <Node name=\"a\">\n"
                      "    <MeshTopology name=\"t\" src=\"@../../../L\"/>\n"
                      "  </Node>\n"
                      "</Node>\n";
    st_scene *s = load_scn(scn);
    cr_assert_eq(topo_arr(topo_get(s, "a/t"), "position")->n, 3);
    cr_assert(strstr(T.log, "goes 2 levels above the root node"), "%s", T.log);
    cr_assert(strstr(T.log, "read as '@../L'"), "%s", T.log);
    st_scene_destroy(&s);

    const char *link = "<Node name=\"root\">\n"
                       "  <MeshTopology name=\"L\" position=\"0 0 0\"/>\n"
                       "  <MeshTopology name=\"t\" position=\"@../../L.position\"/>\n"
                       "</Node>\n";
    st_error err = {0};
    cr_assert_neq(load_scn_fails(link, &err), ST_OK);
    cr_assert(strstr(err.msg, "goes above the root node"), "%s", err.msg);
}

/* src="@" on a container (SOFA's Objects/TriangleSetTopology.xml, included
 * without overriding it) names its node, not a loader: ignored with a
 * warning, the container keeps its own lists (here those a topological
 * mapping fills); a src naming a node with no state elsewhere stays an
 * error. */
Test(scn_links, src_at_names_no_loader_and_is_ignored)
{
    const char *scn = "<Node name=\"root\">\n"
                      "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Dynamic\"/>\n"
                      "  <RequiredPlugin name=\"Sofa.Component.Topology.Mapping\"/>\n"
                      "  <RegularGridTopology name=\"grid\" n=\"3 1 3\" min=\"0 0 0\" "
                      "max=\"1 0 1\"/>\n"
                      "  <MechanicalObject name=\"dofs\"/>\n"
                      "  <Node name=\"T\">\n"
                      "    <TriangleSetTopologyContainer name=\"Container\" src=\"@\"/>\n"
                      "    <TriangleSetTopologyModifier/>\n"
                      "    <Quad2TriangleTopologicalMapping input=\"@../grid\" "
                      "output=\"@Container\"/>\n"
                      "  </Node>\n"
                      "</Node>\n";
    st_scene *s = load_scn(scn);
    cr_assert_eq(topo_arr(topo_get(s, "T/Container"), "triangles")->n, 8);
    cr_assert(strstr(T.log, "src '@' names no loader"), "%s", T.log);
    st_scene_destroy(&s);

    const char *bad = "<Node name=\"root\">\n"
                      "  <Node name=\"E\"/>\n"
                      "  <MeshTopology name=\"t\" src=\"@E\"/>\n"
                      "</Node>\n";
    st_error err = {0};
    cr_assert_neq(load_scn_fails(bad, &err), ST_OK);
}

/* A multi-mapping's input list written as SOFA writes it: one attribute
 * with several link paths. */
Test(scn_links, multi_mapping_input_list_in_one_attribute)
{
    const char *scn = "<Node name=\"root\">\n"
                      "  <RequiredPlugin name=\"Sofa.Component.Mapping.Linear\"/>\n"
                      "  <Node name=\"a\"><MechanicalObject name=\"x\" position=\"1 0 0  2 0 0\"/>\n"
                      "    <Node name=\"b\"><MechanicalObject name=\"y\" position=\"0 5 0\"/>\n"
                      "      <Node name=\"both\">\n"
                      "        <MechanicalObject name=\"all\"/>\n"
                      "        <SubsetMultiMapping name=\"m\" input=\"@../../x @../y\" "
                      "output=\"@./all\" indexPairs=\"1 0  0 1\"/>\n"
                      "      </Node>\n"
                      "    </Node>\n"
                      "  </Node>\n"
                      "</Node>\n";
    st_scene *s = load_scn(scn);
    st_array *x = topo_arr(topo_get(s, "a/b/both/all"), "position");
    cr_assert_eq(x->n, 2);
    cr_assert_float_eq(x->r[1], 5.0, 0);
    cr_assert_float_eq(x->r[3], 2.0, 0);
    st_scene_destroy(&s);
    /* fields that are not path lists still refuse a link where none fits */
    const char *bad = "<Node name=\"root\">\n"
                      "  <RequiredPlugin name=\"Sofa.Component.Mapping.Linear\"/>\n"
                      "  <MechanicalObject name=\"x\" position=\"1 0 0\"/>\n"
                      "  <Node name=\"c\"><MechanicalObject name=\"all\"/>\n"
                      "    <SubsetMultiMapping input=\"@../nothing\" output=\"@./all\" "
                      "indexPairs=\"0 0\"/>\n"
                      "  </Node>\n"
                      "</Node>\n";
    st_error err = {0};
    cr_assert_neq(load_scn_fails(bad, &err), ST_OK);
    cr_assert(strstr(err.msg, "not a link to a MechanicalObject"), "%s", err.msg);
}

static double real_field(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    cr_assert(f, "%s has no field %s", c->cls->name, name);
    double v;
    memcpy(&v, st_component_field_ptr(c, f), sizeof v);
    return v;
}

/* A container whose src is a container a topological mapping fills: SOFA's
 * data links are read when the container initialises, after the mapping in
 * scene order, so it holds the mapping's tetrahedra; its MechanicalObject
 * and mass see them. */
Test(scn_links, src_of_a_container_filled_by_a_topological_mapping)
{
    const char *scn = "<Node name=\"root\">\n"
                      "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"
                      "  <Node name=\"volume\">\n"
                      "    <RegularGridTopology name=\"grid\" n=\"3 3 3\" min=\"0 0 0\" "
                      "max=\"1 1 1\"/>\n"
                      "    <TetrahedronSetTopologyContainer name=\"tets\" position=\"@grid.position\"/>\n"
                      "    <TetrahedronSetTopologyModifier/>\n"
                      "    <Hexa2TetraTopologicalMapping input=\"@grid\" output=\"@tets\"/>\n"
                      "  </Node>\n"
                      "  <Node name=\"body\">\n"
                      "    <TetrahedronSetTopologyContainer name=\"tets\" src=\"@../volume/tets\"/>\n"
                      "    <MechanicalObject name=\"dofs\"/>\n"
                      "    <DiagonalMass name=\"mass\" massDensity=\"2\"/>\n"
                      "  </Node>\n"
                      "</Node>\n";
    st_scene *s = load_scn(scn);
    cr_assert_eq(topo_arr(topo_get(s, "body/tets"), "tetrahedra")->n, 6 * 8);
    cr_assert_eq(topo_arr(topo_get(s, "body/dofs"), "position")->n, 27);
    cr_assert_float_eq(real_field(topo_get(s, "body/mass"), "totalMass"), 2.0, 1e-12);
    st_scene_destroy(&s);
}

/* A mass in a child node that holds only a topology (filled by a
 * topological mapping, here into a MeshTopology as SOFA allows) takes its
 * geometry from the nearest state above the topology (SOFA's
 * l_topology->getContext()->get(state), which searches upwards). */
Test(scn_links, mass_under_a_topology_only_node_uses_the_state_above)
{
    const char *scn = "<Node name=\"root\">\n"
                      "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"
                      "  <RegularGridTopology name=\"grid\" n=\"2 2 3\" min=\"0 0 0\" "
                      "max=\"1 1 2\"/>\n"
                      "  <MechanicalObject name=\"dofs\"/>\n"
                      "  <Node name=\"tetras\">\n"
                      "    <MeshTopology name=\"t\"/>\n"
                      "    <Hexa2TetraTopologicalMapping input=\"@../grid\" output=\"@t\"/>\n"
                      "    <DiagonalMass name=\"mass\" massDensity=\"3\"/>\n"
                      "  </Node>\n"
                      "</Node>\n";
    st_scene *s = load_scn(scn);
    cr_assert_eq(topo_arr(topo_get(s, "tetras/t"), "tetrahedra")->n, 12);
    st_component *mass = topo_get(s, "tetras/mass");
    cr_assert_float_eq(real_field(mass, "totalMass"), 6.0, 1e-12);
    const st_field *g = st_component_field(mass, "geometryState");
    cr_assert(g);
    cr_assert_eq(*(st_component **)st_component_field_ptr(mass, g), topo_get(s, "dofs"));
    st_scene_destroy(&s);
}

/* SubsetMultiMapping<Rigid3, Vec3>: the frames' centres, and forces on the
 * output points reach the frames' linear parts. */
Test(scn_links, multi_mapping_rigid_frames_to_points)
{
    const char *scn = "<Node name=\"root\" gravity=\"0 -10 0\" dt=\"0.01\">\n"
                      "  <RequiredPlugin name=\"Sofa.Component.Mapping.Linear\"/>\n"
                      "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"
                      "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Backward\"/>\n"
                      "  <RequiredPlugin name=\"Sofa.Component.LinearSolver.Iterative\"/>\n"
                      "  <EulerImplicitSolver/>\n"
                      "  <CGLinearSolver iterations=\"50\" tolerance=\"1e-12\" "
                      "threshold=\"1e-20\"/>\n"
                      "  <Node name=\"a\"><MechanicalObject template=\"Rigid3\" name=\"f\" "
                      "position=\"1 2 3 0 0 0 1\"/>\n"
                      "    <UniformMass totalMass=\"1\"/>\n"
                      "    <Node name=\"b\"><MechanicalObject template=\"Rigid3\" name=\"g\" "
                      "position=\"4 5 6 0 0 0 1\"/>\n"
                      "      <UniformMass totalMass=\"1\"/>\n"
                      "      <Node name=\"pts\">\n"
                      "        <MechanicalObject name=\"p\"/>\n"
                      "        <SubsetMultiMapping name=\"m\" template=\"Rigid3,Vec3\" "
                      "input=\"@../../f @../g\" output=\"@./p\" indexPairs=\"1 0  0 0\"/>\n"
                      "        <UniformMass totalMass=\"2\"/>\n"
                      "      </Node>\n"
                      "    </Node>\n"
                      "  </Node>\n"
                      "</Node>\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, scn, strlen(scn), "links.scn", &s, &err), ST_OK,
                 "load: %s: %s", err.where, err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s %s", err.path, err.msg);
    st_array *p = topo_arr(topo_get(s, "a/b/pts/p"), "position");
    cr_assert_eq(p->n, 2);
    double want[6] = {4, 5, 6, 1, 2, 3};
    for (int k = 0; k < 6; k++)
        cr_assert_float_eq(p->r[k], want[k], 0, "coordinate %d", k);
    /* both frames fall under gravity and the mapped points' weight; the
     * points follow their frames */
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    st_array *f = topo_arr(topo_get(s, "a/f"), "position");
    cr_assert(f->r[1] < 2.0, "frame f did not fall: y = %g", f->r[1]);
    cr_assert(isfinite(p->r[1]) && isfinite(p->r[4]));
    cr_assert_float_eq(p->r[4], f->r[1], 1e-12, "point 1 follows frame f");
    st_scene_destroy(&s);
}

/* SOFA keeps the path of a data link to an object that does not exist
 * (its BoxROI then reads an empty position): a .scn scene loads with a
 * warning and the field keeps its default; YAML still refuses it. */
Test(scn_links, data_link_to_a_missing_object_keeps_the_default)
{
    const char *scn = "<Node name=\"root\">\n"
                      "  <RequiredPlugin name=\"Sofa.Component.Engine.Select\"/>\n"
                      "  <Node name=\"Body\">\n"
                      "    <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0\"/>\n"
                      "    <BoxROI name=\"roi\" position=\"@../Volume.position\" box=\"-1 -1 -1 2 2 2\"/>\n"
                      "  </Node>\n"
                      "</Node>\n";
    st_scene *s = load_scn(scn);
    cr_assert(strstr(T.log, "'@../Volume' does not resolve") &&
                  strstr(T.log, "keeps its value"),
              "%s", T.log);
    st_component *roi = test_find_object(s, "roi");
    const st_array *pos = st_component_field_ptr(roi, st_component_field(roi, "position"));
    cr_assert_eq(pos->n, 0, "position holds %zu points", pos->n);
    st_scene_destroy(&s);
    /* YAML still refuses it. */
    st_error err = {0};
    const char *yaml = "format: settee/1\nroot:\n  name: root\n  objects:\n"
                       "    - RequiredPlugin: {name: Sofa.Component.Engine.Select}\n"
                       "    - MechanicalObject: {name: dofs, position: [[0, 0, 0]]}\n"
                       "  children:\n    - name: Body\n      objects:\n"
                       "        - BoxROI: {name: roi, position: \"@../Volume.position\", "
                       "box: [-1, -1, -1, 2, 2, 2]}\n";
    st_status st = test_load_string(&T, yaml, &s, &err);
    if (st == ST_OK) {
        st = st_scene_init(s, &err);
        st_scene_destroy(&s);
    }
    cr_assert_eq(st, ST_ELINK, "%s", err.msg);
}

/* SOFA's isMechanical is an alias of mapForces (and of mapConstraints and
 * mapMasses): isMechanical="false" stops the forces at the mapping. */
Test(scn_links, is_mechanical_sets_map_forces)
{
    const char *scn = "<Node name=\"root\">\n"
                      "  <RequiredPlugin name=\"Sofa.Component.Mapping.Linear\"/>\n"
                      "  <Node name=\"Body\">\n"
                      "    <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0\"/>\n"
                      "    <Node name=\"Child\">\n"
                      "      <MechanicalObject name=\"copy\"/>\n"
                      "      <IdentityMapping name=\"map\" isMechanical=\"false\"/>\n"
                      "    </Node>\n"
                      "  </Node>\n"
                      "</Node>\n";
    st_scene *s = load_scn(scn);
    st_component *map = test_find_object(s, "map");
    cr_assert_not(*(bool *)st_component_field_ptr(map, st_component_field(map, "mapForces")));
    cr_assert_not(strstr(T.log, "isMechanical"), "%s", T.log);
    st_scene_destroy(&s);
}
/* SOFA keeps a data link it cannot resolve as a path (BaseData::setParent)
 * and the field its own value: a SOFA scene loads with a warning, the field
 * keeps its default; --strict keeps the error. */
Test(scn_links, unresolved_data_link_keeps_the_value_with_a_warning)
{
    const char *scn = "<Node name=\"root\">\n"
                      "  <MechanicalObject name=\"dofs\" position=\"1 2 3  4 5 6\"\n"
                      "      translation=\"@nothere.translation\"/>\n"
                      "  <MechanicalObject name=\"other\" position=\"@dofs.nosuchfield\"/>\n"
                      "</Node>\n";
    st_scene *s = load_scn(scn);
    st_array *x = topo_arr(topo_get(s, "dofs"), "position");
    cr_assert_eq(x->n, 2);
    cr_assert_eq(x->r[0], 1.0, "the default translation (0) was not kept: %g", x->r[0]);
    cr_assert_eq(x->r[5], 6.0);
    /* "other" has its default position (SOFA's MechanicalObject: one point
     * at the origin), not dofs' two points. */
    st_array *o = topo_arr(topo_get(s, "other"), "position");
    cr_assert_leq(o->n, 1);
    for (size_t i = 0; i < 3 * o->n; i++)
        cr_assert_eq(o->r[i], 0.0);
    cr_assert(strstr(T.log, "links.scn:3:") && strstr(T.log, "'@nothere' does not resolve") &&
                  strstr(T.log, "keeps its value, as SOFA's unresolved data links do"),
              "%s", T.log);
    cr_assert(strstr(T.log, "has no field 'nosuchfield'"), "%s", T.log);
    st_scene_destroy(&s);
    st_runtime_set_strict(T.rt, true);
    st_error err = {0};
    cr_assert_neq(load_scn_fails(scn, &err), ST_OK);
    cr_assert(strstr(err.msg, "'@nothere' does not resolve"), "%s", err.msg);
    st_runtime_set_strict(T.rt, false);
}

/* A string takes any data as its text (SOFA's validParent and
 * genericCopyValueFrom): OglLabel's label from a vector. */
Test(scn_links, string_field_links_to_any_data_as_text)
{
    st_scene *s = load_scn("<Node name=\"root\">\n"
                           "  <MechanicalObject name=\"dofs\" position=\"1 2.5 3  -4 5 6\"/>\n"
                           "  <OglLabel name=\"label\" label=\"@dofs.position\"/>\n"
                           "</Node>\n");
    st_component *l = topo_get(s, "label");
    const st_field *f = st_component_field(l, "label");
    cr_assert_not_null(f);
    char *const *text = st_component_field_ptr(l, f);
    cr_assert_str_eq(*text, "1 2.5 3 -4 5 6");
    st_scene_destroy(&s);
}

/* A MeshSpringForceField in a child node that holds only an edge topology
 * acts on the nearest state above (SOFA's Node::getMechanicalState searches
 * the parents): two points flying apart are held by the spring exactly as
 * when the spring and its edges sit in the state's own node. */
static double spring_spread(bool child)
{
    char scn[2048];
    snprintf(scn, sizeof scn,
             "<Node name=\"root\" gravity=\"0 0 0\" dt=\"0.01\">\n"
             "  <Node name=\"body\">\n"
             "    <EulerImplicitSolver rayleighStiffness=\"0\" rayleighMass=\"0\"/>\n"
             "    <CGLinearSolver iterations=\"50\" tolerance=\"1e-20\" threshold=\"1e-30\"/>\n"
             "    <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0\" "
             "velocity=\"-1 0 0  1 0 0\"/>\n"
             "    <UniformMass totalMass=\"2\"/>\n"
             "%s"
             "  </Node>\n"
             "</Node>\n",
             child ? "    <Node name=\"edges\">\n"
                     "      <EdgeSetTopologyContainer edges=\"0 1\"/>\n"
                     "      <MeshSpringForceField name=\"springs\" stiffness=\"100\"/>\n"
                     "    </Node>\n"
                   : "    <EdgeSetTopologyContainer edges=\"0 1\"/>\n"
                     "    <MeshSpringForceField name=\"springs\" stiffness=\"100\"/>\n");
    st_scene *s = load_scn(scn);
    st_error err = {0};
    for (int i = 0; i < 100; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_array *x = topo_arr(topo_get(s, "body/dofs"), "position");
    double spread = x->r[3] - x->r[0];
    st_scene_destroy(&s);
    return spread;
}

Test(scn_links, spring_under_a_topology_only_node_uses_the_state_above)
{
    double child = spring_spread(true), same = spring_spread(false);
    cr_assert(child < 2.0, "the spring did not act: spread %g (3 without it)", child);
    cr_assert_eq(child, same, "%.17g vs %.17g", child, same);
}
