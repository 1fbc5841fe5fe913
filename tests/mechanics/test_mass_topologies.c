/* test_mass_topologies.c - MeshMatrixMass and DiagonalMass on the
 * topologies that grids and topological mappings produce (hexahedra from a
 * RegularGridTopology through a HexahedronSetTopologyContainer or from a
 * SparseGridTopology, tetrahedra from Hexa2TetraTopologicalMapping,
 * triangles from Tetra2TriangleTopologicalMapping, quads, triangles and
 * edges of flat grids): the values SOFA's MeshMatrixMass_test and
 * DiagonalMass_test check (our own scenes with the same inputs), plus
 * closed forms (mass = density x measure, vertex masses summing to it). */
#include <math.h>
#include <stdio.h>

#include "internal.h"
#include "topo_support.h"

static const char *const plugins[] = {"ODESolver.Forward", "Mass", "Topology"};

static test_rt T;
static st_scene *S;

static void setup(void)
{
    st_error err = {0};
    test_rt_open(&T);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(T.rt, plugins[i], &err), ST_OK, "%s", err.msg);
}

static void teardown(void)
{
    if (S)
        st_scene_destroy(&S);
    test_rt_close(&T);
}

TestSuite(mass_topo, .init = setup, .fini = teardown);

/* The body of each scene: a grid in the root, the mass's node "B" below
 * with its state and topology; "%s" is the mass's attributes. */
#define ROOT_OPEN "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/>"
#define GRID(N) "<RegularGridTopology name='grid' n='" N "' min='0 0 0' max='2 2 2' p0='0 0 0'/>"
#define CHILD_OPEN "<Node name='B'><MechanicalObject name='dofs' position='@../grid.position'/>"
#define CLOSE_ALL "</Node></Node>"

static const char *const HEXA3 =
    ROOT_OPEN GRID("3 3 3") CHILD_OPEN
    "<HexahedronSetTopologyContainer name='Container' src='@../grid'/>"
    "<HexahedronSetTopologyModifier/><HexahedronSetGeometryAlgorithms/>";
static const char *const HEXA2 =
    ROOT_OPEN GRID("2 2 2") CHILD_OPEN
    "<HexahedronSetTopologyContainer name='Container' src='@../grid'/>";
static const char *const TETRA =
    ROOT_OPEN GRID("2 2 2") CHILD_OPEN
    "<TetrahedronSetTopologyContainer name='Container'/><TetrahedronSetTopologyModifier/>"
    "<TetrahedronSetGeometryAlgorithms/>"
    "<Hexa2TetraTopologicalMapping input='@../grid' output='@Container'/>";
static const char *const QUAD =
    ROOT_OPEN GRID("3 3 1") CHILD_OPEN
    "<QuadSetTopologyContainer name='Container' src='@../grid'/><QuadSetTopologyModifier/>";
static const char *const TRI =
    ROOT_OPEN GRID("3 3 1") CHILD_OPEN
    "<TriangleSetTopologyContainer name='Container' src='@../grid'/>"
    "<TriangleSetTopologyModifier/>";
static const char *const EDGE =
    ROOT_OPEN GRID("4 1 1") CHILD_OPEN
    "<EdgeSetTopologyContainer name='Container' src='@../grid'/><EdgeSetTopologyModifier/>";

static st_component *load(const char *body, const char *cls, const char *attrs)
{
    /* Closes every node the body leaves open. */
    int open = 0;
    for (const char *p = body; (p = strstr(p, "<Node")); p++)
        open++;
    for (const char *p = body; (p = strstr(p, "</Node>")); p++)
        open--;
    char xml[4096];
    size_t len = (size_t)snprintf(xml, sizeof xml, "%s<%s name='mass' %s/>", body, cls, attrs);
    while (open-- > 0)
        len += (size_t)snprintf(xml + len, sizeof xml - len, "</Node>");
    st_error err = {0};
    if (S)
        st_scene_destroy(&S);
    T.len = 0;
    test_log_clear(&T);
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "test.scn", &S, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_eq(st_scene_init(S, &err), ST_OK, "init: %s\n%s", err.msg, T.log);
    st_component *m = test_find_object(S, "mass");
    cr_assert_not_null(m);
    return m;
}

#define arr topo_arr

static double real(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f, "field %s", name);
    return *(const double *)st_component_field_ptr(c, f);
}

/* massDensity: a list for MeshMatrixMass, a real for DiagonalMass. */
static double density(st_component *m)
{
    const st_field *f = st_component_field(m, "massDensity");
    if (f->type == ST_T_REAL)
        return real(m, "massDensity");
    return arr(m, "massDensity")->r[0];
}

/* SOFA's EXPECT_FLOATINGPOINT_EQ is a few ulps: 1e-12 relative here. */
static void eq(double got, double want, const char *what)
{
    cr_assert(fabs(got - want) <= 1e-12 * fabs(want) + 1e-15, "%s: %.17g, expected %.17g", what,
              got, want);
}

static void expect(st_component *m, size_t nv, double total, double rho, size_t i, double vm_i)
{
    const st_array *vm = arr(m, "vertexMass");
    cr_assert_eq(vm->n, nv, "%zu vertex masses, expected %zu", vm->n, nv);
    eq(real(m, "totalMass"), total, "totalMass");
    eq(density(m), rho, "massDensity");
    char what[64];
    snprintf(what, sizeof what, "vertexMass[%zu]", i);
    eq(vm->r[i], vm_i, what);
}

/* ---- MeshMatrixMass: SOFA's MeshMatrixMass_test, hexahedra ---- */

Test(mass_topo, mmm_hexa_default_attributes)
{
    st_component *m = load(HEXA2, "MeshMatrixMass", "");
    const st_array *vm = arr(m, "vertexMass"), *em = arr(m, "edgeMass");
    cr_assert_eq(vm->n, 8);
    eq(real(m, "totalMass"), 1.0, "totalMass");
    eq(density(m), 1.0 / 8, "massDensity");
    for (size_t i = 0; i < 8; i++)
        eq(vm->r[i], 1.0 / 20, "vertexMass");
    /* The container has the grid's 18 edges (12 + 6 quad diagonals); only
     * the 12 hexahedron edges get V / 40, the diagonals 0. */
    cr_assert_eq(em->n, 18);
    double s = 0;
    for (size_t i = 0; i < em->n; i++)
        s += em->r[i];
    eq(s, 12.0 / 40, "sum of edgeMass");
}

/* refV = rho V_e / 20, refE = rho V_e / 40 with 8 hexahedra of volume 1. */
static void hexa_sofa_values(st_component *m, double rho, bool lumped)
{
    const st_array *vm = arr(m, "vertexMass"), *em = arr(m, "edgeMass");
    cr_assert_eq(vm->n, 27);
    cr_assert_eq(em->n, 90);
    eq(real(m, "totalMass"), 8 * rho, "totalMass");
    eq(density(m), rho, "massDensity");
    eq(vm->r[0], rho / 20, "vertexMass[0]");
    eq(vm->r[1], 2 * rho / 20, "vertexMass[1] (2 hexahedra)");
    eq(em->r[0], lumped ? 0 : 2 * rho / 40, "edgeMass[0] (2 hexahedra)");
    eq(em->r[1], 0, "edgeMass[1] (a grid triangle's edge, in no hexahedron)");
    eq(em->r[2], lumped ? 0 : rho / 40, "edgeMass[2]");
}

Test(mass_topo, mmm_hexa_initialisations)
{
    hexa_sofa_values(load(HEXA3, "MeshMatrixMass", "totalMass='2.0'"), 0.25, false);
    hexa_sofa_values(load(HEXA3, "MeshMatrixMass", "massDensity='1.0'"), 1.0, false);
    hexa_sofa_values(load(HEXA3, "MeshMatrixMass", "massDensity='1.0' lumping='true'"), 1.0, true);
    /* Lumped vertexMass alone: 27 ones give totalMass 27. */
    st_component *m = load(HEXA3, "MeshMatrixMass",
                           "lumping='1' vertexMass='1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 "
                           "1 1 1 1 1'");
    expect(m, 27, 27.0, 27.0 / 8, 0, 1.0);
    expect(m, 27, 27.0, 27.0 / 8, 1, 1.0);
    eq(arr(m, "edgeMass")->r[0], 0.0, "edgeMass[0]");
    cr_assert(m->cls->mass->is_diagonal(m));
}

Test(mass_topo, mmm_hexa_double_declarations_and_wrong_values)
{
    static const char *const ones27 =
        "vertexMass='1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1'";
    char a[512];
    /* totalMass wins over massDensity and over vertexMass. */
    expect(load(HEXA3, "MeshMatrixMass", "massDensity='1.0' totalMass='2.0'"), 27, 2, 0.25, 0,
           0.25 / 20);
    snprintf(a, sizeof a, "lumping='1' totalMass='2.0' %s", ones27);
    expect(load(HEXA3, "MeshMatrixMass", a), 27, 2, 0.25, 0, 0.25 / 20);
    /* massDensity wins over vertexMass. */
    snprintf(a, sizeof a, "lumping='1' massDensity='1.0' %s", ones27);
    expect(load(HEXA3, "MeshMatrixMass", a), 27, 8, 1, 0, 0.05);
    /* Wrong values fall back to totalMass 1 (density 1/8, vertex 1/160). */
    const char *wrong[] = {
        "totalMass='-2.0'", "massDensity='-1.0'", "massDensity='1.0 4.0'",
        "lumping='1' vertexMass='1 -1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1'",
        "lumping='1' vertexMass='1 2'", "massDensity='1.0' totalMass='-2.0'"};
    for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++)
        expect(load(HEXA3, "MeshMatrixMass", wrong[i]), 27, 1, 0.125, 0, 0.00625);
    /* A density list of the wrong size next to a valid totalMass: totalMass. */
    expect(load(HEXA3, "MeshMatrixMass", "massDensity='1.0 1.0' totalMass='2.0'"), 27, 2, 0.25,
           0, 0.0125);
}

/* ---- MeshMatrixMass: tetrahedra from Hexa2TetraTopologicalMapping ---- */

/* The 2x2x2 grid's cube [0,2]^3 in 6 tetrahedra of volume 4/3: vertex 0 is
 * in 5 of them, vertex 1 in 3; rho V / 10 per tetrahedron vertex. */
Test(mass_topo, mmm_tetra_from_hexa2tetra)
{
    const double ve = 4.0 / 3;
    st_component *m = load(TETRA, "MeshMatrixMass", "massDensity='1.0'");
    const st_array *vm = arr(m, "vertexMass"), *em = arr(m, "edgeMass");
    cr_assert_eq(vm->n, 8);
    cr_assert_eq(em->n, 19, "the tetrahedra's 19 edges, got %zu", em->n);
    eq(real(m, "totalMass"), 8, "totalMass");
    eq(vm->r[0], 5 * ve / 10, "vertexMass[0]");
    eq(vm->r[1], 3 * ve / 10, "vertexMass[1]");
    eq(em->r[0], 3 * ve / 20, "edgeMass[0]");
    eq(em->r[1], 2 * ve / 20, "edgeMass[1]");
    m = load(TETRA, "MeshMatrixMass", "massDensity='1.0' lumping='true'");
    eq(arr(m, "vertexMass")->r[0], 5 * ve / 10, "lumped vertexMass[0]");
    eq(arr(m, "edgeMass")->r[0], 0, "lumped edgeMass[0]");
    /* SOFA's initialisation cases. */
    expect(load(TETRA, "MeshMatrixMass", ""), 8, 1, 0.125, 0, 0.25 / 3);
    expect(load(TETRA, "MeshMatrixMass", ""), 8, 1, 0.125, 7, 0.25 / 3);
    expect(load(TETRA, "MeshMatrixMass", "totalMass='2.0'"), 8, 2, 0.25, 0, 0.5 / 3);
    expect(load(TETRA, "MeshMatrixMass", "totalMass='2.0'"), 8, 2, 0.25, 1, 0.1);
    expect(load(TETRA, "MeshMatrixMass", "massDensity='1.0'"), 8, 8, 1, 0, 2.0 / 3);
    m = load(TETRA, "MeshMatrixMass", "lumping='1' vertexMass='1 1 1 1 1 1 1 1'");
    expect(m, 8, 8, 1, 0, 1);
    cr_assert(m->cls->mass->is_diagonal(m));
    expect(load(TETRA, "MeshMatrixMass", "massDensity='1.0' totalMass='2.0'"), 8, 2, 0.25, 0,
           0.5 / 3);
    expect(load(TETRA, "MeshMatrixMass",
                "lumping='1' vertexMass='1 1 1 1 1 1 1 1' totalMass='2.0'"),
           8, 2, 0.25, 0, 0.5 / 3);
    expect(load(TETRA, "MeshMatrixMass",
                "vertexMass='1 1 1 1 1 1 1 1' lumping='1' massDensity='1.0'"),
           8, 8, 1, 0, 2.0 / 3);
    const char *wrong[] = {"totalMass='-2.0'", "massDensity='-1.0'", "massDensity='1.0 4.0'",
                           "vertexMass='1 -1 1 1 1 1 1 1' lumping='1'",
                           "vertexMass='1.0 2.0' lumping='1'",
                           "massDensity='1.0' totalMass='-2.0'"};
    for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++)
        expect(load(TETRA, "MeshMatrixMass", wrong[i]), 8, 1, 0.125, 0, 0.25 / 3);
    expect(load(TETRA, "MeshMatrixMass", "massDensity='1.0 1.0' totalMass='2.0'"), 8, 2, 0.25, 0,
           0.5 / 3);
}

/* ---- MeshMatrixMass: quads, triangles and edges of flat grids ---- */

/* 3x3x1 grid over [0,2]^2: 4 unit quads (rho A/8, rho A/16) or 8 triangles
 * of area 1/2 (rho A/6, rho A/12); the containers copy the grid's 16 edges
 * (12 quad edges and the 4 triangle diagonals). */
Test(mass_topo, mmm_quads_and_triangles)
{
    for (int lumped = 0; lumped < 2; lumped++) {
        const char *a = lumped ? "massDensity='1.0' lumping='true'" : "massDensity='1.0'";
        st_component *m = load(QUAD, "MeshMatrixMass", a);
        const st_array *vm = arr(m, "vertexMass"), *em = arr(m, "edgeMass");
        cr_assert_eq(vm->n, 9);
        cr_assert_eq(em->n, 16);
        eq(real(m, "totalMass"), 4, "quads: totalMass");
        eq(vm->r[0], 1.0 / 8, "quads: vertexMass[0]");
        eq(vm->r[1], 2.0 / 8, "quads: vertexMass[1]");
        eq(em->r[0], lumped ? 0 : 2.0 / 16, "quads: edgeMass[0]");
        eq(em->r[2], lumped ? 0 : 1.0 / 16, "quads: edgeMass[2]");
        m = load(TRI, "MeshMatrixMass", a);
        vm = arr(m, "vertexMass"), em = arr(m, "edgeMass");
        cr_assert_eq(vm->n, 9);
        cr_assert_eq(em->n, 16);
        eq(real(m, "totalMass"), 4, "triangles: totalMass");
        eq(vm->r[0], 2 * 0.5 / 6, "triangles: vertexMass[0]");
        eq(vm->r[1], 3 * 0.5 / 6, "triangles: vertexMass[1]");
        eq(em->r[0], lumped ? 0 : 2 * 0.5 / 12, "triangles: edgeMass[0]");
        eq(em->r[1], lumped ? 0 : 2 * 0.5 / 12, "triangles: edgeMass[1]");
    }
}

/* SOFA computes no mass on an edge-only topology: totalMass, vertex and
 * edge masses are 0 (its test checks these zeros). Lumped, SOFA also gives
 * zeros, which accFromF would divide by: settee refuses that clearly. */
Test(mass_topo, mmm_edges_get_no_mass)
{
    st_component *m = load(EDGE, "MeshMatrixMass", "massDensity='1.0'");
    const st_array *vm = arr(m, "vertexMass"), *em = arr(m, "edgeMass");
    cr_assert_eq(vm->n, 4);
    cr_assert_eq(em->n, 3);
    eq(real(m, "totalMass"), 0, "totalMass");
    for (size_t i = 0; i < 4; i++)
        eq(vm->r[i], 0, "vertexMass");
    for (size_t i = 0; i < 3; i++)
        eq(em->r[i], 0, "edgeMass");
    char xml[4096];
    snprintf(xml, sizeof xml, "%s<MeshMatrixMass massDensity='1' lumping='1'/>" CLOSE_ALL, EDGE);
    st_error err = {0};
    st_scene_destroy(&S);
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "t.scn", &S, &err), ST_OK);
    cr_assert_neq(st_scene_init(S, &err), ST_OK);
    cr_assert(strstr(err.msg, "no mass on edges") && strstr(err.msg, "accFromF"), "%s", err.msg);
}

/* ---- DiagonalMass: SOFA's DiagonalMass_test ---- */

Test(mass_topo, dm_hexa)
{
    static const char *const grid =
        ROOT_OPEN "<Node name='B'><MechanicalObject/><RegularGridTopology nx='2' ny='2' nz='2' "
                  "xmin='0' xmax='2' ymin='0' ymax='2' zmin='0' zmax='2'/>";
    for (int i = 0; i < 4; i++)
        expect(load(grid, "DiagonalMass", "massDensity='1.0'"), 8, 8, 1, (size_t)i, 1);
    expect(load(grid, "DiagonalMass", "totalMass='10'"), 8, 10, 1.25, 3, 1.25);
    expect(load(grid, "DiagonalMass", "massDensity='1.0' totalMass='10'"), 8, 10, 1.25, 0, 1.25);
    /* The 3x3x3 grid through a hexahedron container: 1/8 per cell corner. */
    st_component *m = load(HEXA3, "DiagonalMass", "massDensity='1.0'");
    expect(m, 27, 8, 1, 0, 0.125);
    expect(m, 27, 8, 1, 1, 0.25);
    expect(m, 27, 8, 1, 13, 1.0);
}

Test(mass_topo, dm_tetra_from_hexa2tetra)
{
    /* Vertex 0 is in 5 tetrahedra of volume 4/3, vertices 1 and 2 in 3. */
    st_component *m = load(TETRA, "DiagonalMass", "massDensity='1.0'");
    expect(m, 8, 8, 1, 0, 5.0 / 3);
    expect(m, 8, 8, 1, 1, 1);
    expect(m, 8, 8, 1, 2, 1);
    expect(load(TETRA, "DiagonalMass", "massDensity='-1.0'"), 8, 1, 0.125, 1, 0.125);
    expect(load(TETRA, "DiagonalMass", "totalMass='10.0'"), 8, 10, 1.25, 1, 1.25);
    expect(load(TETRA, "DiagonalMass", "totalMass='-10.0'"), 8, 1, 0.125, 2, 0.125);
    expect(load(TETRA, "DiagonalMass", "massDensity='10.0' totalMass='10.0'"), 8, 10, 1.25, 1,
           1.25);
    expect(load(TETRA, "DiagonalMass", "massDensity='-10.0' totalMass='10.0'"), 8, 10, 1.25, 1,
           1.25);
    expect(load(TETRA, "DiagonalMass", "massDensity='10.0' totalMass='-10.0'"), 8, 1, 0.125, 1,
           0.125);
    expect(load(TETRA, "DiagonalMass", "vertexMass='2 2 2 2 2 2 2 2'"), 8, 16, 2, 3, 2);
    expect(load(TETRA, "DiagonalMass",
                "massDensity='-1.0' vertexMass='2.08334 1.25 1.25 0.416667 0.416667 1.25 1.25 "
                "2.08333'"),
           8, 1, 0.125, 1, 0.125);
    expect(load(TETRA, "DiagonalMass",
                "vertexMass='10 2.08334 1.25 1.25 0.416667 0.416667 1.25 1.25 2.08333'"),
           8, 1, 0.125, 1, 0.125);
}

Test(mass_topo, dm_quads_triangles_edges)
{
    st_component *m = load(QUAD, "DiagonalMass", "massDensity='1.0'");
    expect(m, 9, 4, 1, 0, 0.25);
    expect(m, 9, 4, 1, 1, 0.5);
    expect(m, 9, 4, 1, 4, 1.0);
    m = load(TRI, "DiagonalMass", "massDensity='1.0'");
    expect(m, 9, 4, 1, 0, 1.0 / 3);
    expect(m, 9, 4, 1, 1, 0.5);
    /* 3 edges of length 2/3: ends 1/3, inner vertices 2/3. */
    m = load(EDGE, "DiagonalMass", "massDensity='1.0'");
    expect(m, 4, 2, 1, 0, 1.0 / 3);
    expect(m, 4, 2, 1, 1, 2.0 / 3);
}

/* SOFA's single-element cases: the default totalMass 1 spread equally. */
Test(mass_topo, dm_and_mmm_single_elements)
{
    static const struct {
        const char *topo;
        size_t nv, ne;
        double vm, emm; /* DiagonalMass vertex; MeshMatrixMass edge */
        double mmv;     /* MeshMatrixMass vertex */
    } c[] = {
        {"<MechanicalObject position='0 0 0  0 1 0'/><EdgeSetTopologyContainer edges='0 1'/>", 2,
         1, 0.5, 0, 0},
        {"<MechanicalObject position='0 0 0  1 0 0  0 1 0'/>"
         "<TriangleSetTopologyContainer triangles='0 1 2'/>",
         3, 3, 1.0 / 3, 1.0 / 12, 1.0 / 6},
        {"<MechanicalObject position='0 0 0  0 1 0  1 1 0  1 0 0'/>"
         "<QuadSetTopologyContainer quads='0 1 2 3'/>",
         4, 4, 0.25, 1.0 / 16, 1.0 / 8},
        {"<MechanicalObject position='0 0 0  0 1 0  1 0 0  0 0 1'/>"
         "<TetrahedronSetTopologyContainer tetrahedra='0 1 2 3'/>",
         4, 6, 0.25, 1.0 / 20, 1.0 / 10},
        {"<MechanicalObject position='0 0 0  1 0 0  1 1 0  0 1 0  0 0 1  1 0 1  1 1 1  0 1 1'/>"
         "<HexahedronSetTopologyContainer hexahedra='0 1 2 3 4 5 6 7'/>",
         8, 12, 0.125, 1.0 / 40, 1.0 / 20},
    };
    char body[1024];
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        snprintf(body, sizeof body, "<Node name='root' gravity='0 0 0'><Node name='B'>%s", c[i].topo);
        st_component *m = load(body, "DiagonalMass", "");
        eq(real(m, "totalMass"), 1, "DiagonalMass totalMass");
        for (size_t v = 0; v < c[i].nv; v++)
            eq(arr(m, "vertexMass")->r[v], c[i].vm, "DiagonalMass vertexMass");
        if (i == 0)
            continue; /* MeshMatrixMass: no mass on edges */
        m = load(body, "MeshMatrixMass", "");
        eq(real(m, "totalMass"), 1, "MeshMatrixMass totalMass");
        cr_assert_eq(arr(m, "edgeMass")->n, c[i].ne);
        for (size_t v = 0; v < c[i].nv; v++)
            eq(arr(m, "vertexMass")->r[v], c[i].mmv, "MeshMatrixMass vertexMass");
        for (size_t e = 0; e < c[i].ne; e++)
            eq(arr(m, "edgeMass")->r[e], c[i].emm, "MeshMatrixMass edgeMass");
    }
}

/* ---- closed forms on mapped and sparse topologies ---- */

/* Hexa2Tetra then Tetra2Triangle on the 2x2x2 grid: the surface of [0,2]^3,
 * 12 triangles of area 2 (total area 24). DiagonalMass gives A/3 per
 * triangle vertex, MeshMatrixMass A/6 on the diagonal (half of the mass)
 * and A/12 on edges; lumped, M = 2 diag(vertexMass). */
Test(mass_topo, surface_from_tetra2triangle)
{
    static const char *const surf =
        ROOT_OPEN GRID("2 2 2") CHILD_OPEN
        "<TetrahedronSetTopologyContainer name='Tetras'/><TetrahedronSetTopologyModifier/>"
        "<Hexa2TetraTopologicalMapping input='@../grid' output='@Tetras'/>"
        "<Node name='S'><MechanicalObject position='@../../grid.position'/>"
        "<TriangleSetTopologyContainer name='Container'/><TriangleSetTopologyModifier/>"
        "<Tetra2TriangleTopologicalMapping input='@../Tetras' output='@Container'/>";
    char body[2048];
    for (int k = 0; k < 3; k++) {
        const char *cls = k == 0 ? "DiagonalMass" : "MeshMatrixMass";
        const char *attrs = k == 2 ? "massDensity='0.5' lumping='1'" : "massDensity='0.5'";
        snprintf(body, sizeof body, "%s<%s name='mass' %s/></Node>", surf, cls, attrs);
        char xml[4096];
        snprintf(xml, sizeof xml, "%s" CLOSE_ALL, body);
        st_error err = {0};
        if (S)
            st_scene_destroy(&S);
        cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "t.scn", &S, &err), ST_OK, "%s",
                     err.msg);
        cr_assert_eq(st_scene_init(S, &err), ST_OK, "%s", err.msg);
        st_component *m = test_find_object(S, "mass");
        st_component *tri = test_find_object(S, "Container");
        const st_array *t = arr(tri, "triangles");
        cr_assert_eq(t->n, 12);
        eq(real(m, "totalMass"), 12, "totalMass = 0.5 x 24");
        const st_array *vm = arr(m, "vertexMass");
        cr_assert_eq(vm->n, 8);
        double s = 0;
        for (size_t i = 0; i < vm->n; i++)
            s += vm->r[i];
        eq(s, k == 0 ? 12 : 6, "sum of vertexMass");
        /* Vertex by vertex: the triangles around it. */
        double want[8] = {0};
        for (size_t e = 0; e < t->n; e++)
            for (int c = 0; c < 3; c++)
                want[t->u[3 * e + (size_t)c]] += 0.5 * 2 / (k == 0 ? 3 : 6);
        for (size_t i = 0; i < 8; i++)
            eq(vm->r[i], want[i], "vertexMass");
    }
}

/* SparseGridTopology hexahedra: the unit cube OBJ on a 5x5x5 grid over its
 * box grown by 1 % (64 cells of width 1.02 / 4, total volume 1.02^3);
 * DiagonalMass puts V_e / 8 on each cell corner, MeshMatrixMass V_e / 20.
 * Neither uses the grid's fillWeighted coefficients (SOFA's masses do not;
 * only HexahedronFEMForceFieldAndMass does). */
Test(mass_topo, sparse_grid_hexahedra)
{
    const char *path = topo_unit_cube_obj();
    char body[1024];
    snprintf(body, sizeof body,
             "<Node name='root' gravity='0 0 0'><Node name='B'>"
             "<SparseGridTopology name='grid' n='5 5 5' fileTopology='%s'/>"
             "<MechanicalObject/>",
             path);
    const double w = 1.02 / 4, ve = w * w * w;
    st_component *m = load(body, "DiagonalMass", "massDensity='2'");
    const st_array *vm = arr(m, "vertexMass");
    cr_assert_eq(vm->n, 125);
    eq(real(m, "totalMass"), 2 * 64 * ve, "DiagonalMass totalMass");
    /* Points are sorted by x, y, z: point 0 is a corner (1 cell), point 31
     * = (1, 1, 1) an inner vertex (8 cells). */
    eq(vm->r[0], 2 * ve / 8, "corner");
    eq(vm->r[31], 2 * ve, "inner vertex");
    m = load(body, "MeshMatrixMass", "massDensity='2'");
    vm = arr(m, "vertexMass");
    eq(real(m, "totalMass"), 2 * 64 * ve, "MeshMatrixMass totalMass");
    eq(vm->r[0], 2 * ve / 20, "corner");
    eq(vm->r[31], 8 * 2 * ve / 20, "inner vertex");
    /* totalMass gives back the density. */
    m = load(body, "MeshMatrixMass", "totalMass='3'");
    eq(density(m), 3 / (64 * ve), "massDensity from totalMass");
}

/* The mapping chain grid 3x3x3 over [0,2]^3 -> Hexa2Quad (the 24 boundary
 * unit squares) -> Quad2Triangle (48 triangles) -> Triangle2Edge (the
 * surface's edges): each output carries its mass in a node with its own
 * state on the grid's points. Closed forms: total = rho x measure (area
 * 24, or the edges' total length), DiagonalMass vertex i = rho sum of
 * measure / (element vertices) over its elements, MeshMatrixMass vertex i
 * = rho sum of A/8 (quads) or A/6 (triangles). Vertex 13 (the centre) is
 * in no boundary element, so its mass is 0: DiagonalMass and the lumped
 * MeshMatrixMass refuse that; the consistent MeshMatrixMass accepts it. */
static st_component *chain(int level, const char *cls, const char *attrs, const st_array **elems)
{
    static const char *const outs[] = {"Quad", "Triangle", "Edge"};
    static const char *const maps[] = {"Hexa2QuadTopologicalMapping",
                                       "Quad2TriangleTopologicalMapping",
                                       "Triangle2EdgeTopologicalMapping"};
    char xml[4096];
    size_t len = (size_t)snprintf(xml, sizeof xml, "%s", ROOT_OPEN GRID("3 3 3"));
    const char *in = "@../grid";
    for (int l = 0; l <= level; l++) {
        len += (size_t)snprintf(xml + len, sizeof xml - len,
                                "<Node name='L%d'><MechanicalObject position='@%sgrid.position'/>"
                                "<%sSetTopologyContainer name='C%d'/><%sSetTopologyModifier/>"
                                "<%s input='%s' output='@C%d'/>",
                                l, l == 0 ? "../" : l == 1 ? "../../" : "../../../", outs[l], l,
                                outs[l], maps[l], in, l);
        in = l == 0 ? "@../C0" : "@../C1";
    }
    len += (size_t)snprintf(xml + len, sizeof xml - len, "<%s name='mass' %s/>", cls, attrs);
    for (int l = 0; l <= level; l++)
        len += (size_t)snprintf(xml + len, sizeof xml - len, "</Node>");
    snprintf(xml + len, sizeof xml - len, "</Node>");
    st_error err = {0};
    if (S)
        st_scene_destroy(&S);
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "chain.scn", &S, &err), ST_OK,
                 "%s", err.msg);
    st_status st = st_scene_init(S, &err);
    if (st != ST_OK)
        return NULL;
    char name[8];
    snprintf(name, sizeof name, "C%d", level);
    const st_array *e = arr(test_find_object(S, name),
                            level == 0 ? "quads" : level == 1 ? "triangles" : "edges");
    *elems = e;
    return test_find_object(S, "mass");
}

Test(mass_topo, mapping_chain_surfaces_and_edges)
{
    const st_array *e = NULL;
    /* DiagonalMass gives the centre vertex (in no surface element) the mass
     * 0 at every level, as SOFA does, and says so. */
    for (int l = 0; l < 2; l++) {
        st_component *m = chain(l, "DiagonalMass", "massDensity='2'", &e);
        cr_assert_not_null(m, "level %d:\n%s", l, T.log);
        eq(arr(m, "vertexMass")->r[13], 0, "centre");
    }
    cr_assert(strstr(T.log, "1 of 27 vertices get the mass 0 (vertex 13 first)"), "%s", T.log);
    /* Consistent MeshMatrixMass on quads and triangles. */
    for (int l = 0; l < 2; l++) {
        st_component *m = chain(l, "MeshMatrixMass", "massDensity='2'", &e);
        cr_assert_not_null(m, "level %d:\n%s", l, T.log);
        unsigned w = l == 0 ? 4 : 3;
        double area = l == 0 ? 1.0 : 0.5, frac = l == 0 ? 1.0 / 8 : 1.0 / 6;
        cr_assert_eq(e->n, l == 0 ? 24u : 48u);
        eq(real(m, "totalMass"), 2 * 24.0, "totalMass = rho x 24");
        double want[27] = {0};
        for (size_t k = 0; k < e->n; k++)
            for (unsigned c = 0; c < w; c++)
                want[e->u[w * k + c]] += 2 * area * frac;
        const st_array *vm = arr(m, "vertexMass");
        for (size_t i = 0; i < 27; i++)
            eq(vm->r[i], want[i], "vertexMass");
        eq(vm->r[13], 0, "centre");
    }
    /* Triangle2Edge keeps the border edges: the cube's surface is closed,
     * so there are none and a mass there reports an empty topology. */
    cr_assert_null(chain(2, "MeshMatrixMass", "massDensity='2'", &e));
    cr_assert(strstr(T.log, "Topology empty"), "%s", T.log);
}

/* One square [0,2]^2 (grid 2x2x1) -> Quad2Triangle -> Triangle2Edge: the 4
 * border edges of length 2. DiagonalMass: total rho x 8, each vertex
 * rho x 2 (two half edges); MeshMatrixMass: no mass on edges. */
Test(mass_topo, border_edges_from_triangle2edge)
{
    static const char *const body =
        ROOT_OPEN GRID("2 2 1") CHILD_OPEN
        "<QuadSetTopologyContainer name='Q' src='@../grid'/>"
        "<Node name='T'><TriangleSetTopologyContainer name='Tri'/><TriangleSetTopologyModifier/>"
        "<Quad2TriangleTopologicalMapping input='@../Q' output='@Tri'/></Node>"
        "<Node name='E'><MechanicalObject position='@../../grid.position'/>"
        "<EdgeSetTopologyContainer name='Container'/><EdgeSetTopologyModifier/>"
        "<Triangle2EdgeTopologicalMapping input='@../T/Tri' output='@Container'/>";
    st_component *m = load(body, "DiagonalMass", "massDensity='3'");
    cr_assert_eq(arr(test_find_object(S, "Container"), "edges")->n, 4);
    for (size_t i = 0; i < 4; i++)
        expect(m, 4, 24, 3, i, 6);
    m = load(body, "MeshMatrixMass", "massDensity='3'");
    eq(real(m, "totalMass"), 0, "MeshMatrixMass on edges");
}

/* SOFA's TetrahedronFEMForceField.scn layout: the grid and the tetrahedron
 * container in the same node, the mass with no topology link. The mass
 * takes the node's last topology (the container), as SOFA's getMeshTopology
 * does, so it lumps the tetrahedra (vol/4 per vertex), not the grid's
 * hexahedron (vol/8). With swapping the only cell (x index 0, even) is
 * mirrored along x: hexahedron vertex k of the pattern is grid point
 * 1 0 2 3 5 4 6 7 for k = 0..7 (points numbered x + 2y + 4z), so the two
 * vertices in 5 tetrahedra are points 1 and 6, the two in 1 are 2 and 5. */
Test(mass_topo, dm_takes_the_nodes_last_topology)
{
    static const char *const same_node =
        ROOT_OPEN "<Node name='B'>" GRID("2 2 2")
                  "<MechanicalObject name='dofs'/>"
                  "<TetrahedronSetTopologyContainer name='Container'/>"
                  "<TetrahedronSetTopologyModifier/><TetrahedronSetGeometryAlgorithms/>"
                  "<Hexa2TetraTopologicalMapping input='@grid' output='@Container' "
                  "swapping='true'/>";
    st_component *m = load(same_node, "DiagonalMass", "massDensity='1.0'");
    const double want[8] = {1, 5.0 / 3, 1.0 / 3, 1, 1, 1.0 / 3, 5.0 / 3, 1};
    for (size_t i = 0; i < 8; i++)
        expect(m, 8, 8, 1, i, want[i]);
    /* The first tetrahedron: the mirrored pattern's (0 5 6 1) on the
     * mirrored cell. */
    st_component *c = test_find_object(S, "Container");
    cr_assert_not_null(c);
    const st_array *t = arr(c, "tetrahedra");
    cr_assert_eq(t->n, 6);
    const unsigned first[4] = {1, 4, 6, 0};
    for (int j = 0; j < 4; j++)
        cr_assert_eq(t->u[j], first[j], "tetrahedra[0][%d] = %u, expected %u", j, t->u[j],
                     first[j]);
    /* An explicit link still wins: the grid's hexahedron gives 1 to each. */
    m = load(same_node, "DiagonalMass", "massDensity='1.0' topology='@grid'");
    for (size_t i = 0; i < 8; i++)
        expect(m, 8, 8, 1, i, 1);
}
