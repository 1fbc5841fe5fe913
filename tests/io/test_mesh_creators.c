/* test_mesh_creators.c - GridMeshCreator and StringMeshCreator (IO.Mesh)
 * against values worked out by hand from SOFA's algorithm: positions,
 * triangles or quads of every trianglePattern and the edges in SOFA's order
 * (each side kept in the orientation first met, the list sorted by (a, b),
 * as SOFA's std::set of oriented pairs gives them); the MeshLoader
 * transformation and element options; bad values as errors naming the
 * field; and GridMeshCreator as the src of a stepping membrane, which gives
 * the numbers SOFA's TriangleFEMForceField test checks on its own grid. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;

static void setup(void)
{
    st_error err = {0};
    test_rt_open(&T);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
}

static void teardown(void) { test_rt_close(&T); }

TestSuite(mesh_creators, .init = setup, .fini = teardown);

/* Loads and initialises a SOFA XML scene; NULL with *err set on failure. */
static st_scene *load_xml(const char *xml, st_error *err)
{
    st_scene *s = NULL;
    if (st_scene_load_string(T.rt, xml, strlen(xml), "creators.scn", &s, err) != ST_OK)
        return NULL;
    if (st_scene_init(s, err) != ST_OK)
        st_scene_destroy(&s);
    return s;
}

/* A root node holding one creator named "loader" with the given
 * attributes; NULL with *err set on failure. */
static st_scene *load_creator(const char *cls, const char *attrs, st_error *err)
{
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node name='root'><RequiredPlugin pluginName='Sofa.Component.IO.Mesh'/>"
             "<%s name='loader' %s/></Node>",
             cls, attrs);
    return load_xml(xml, err);
}

static st_scene *creator(const char *cls, const char *attrs)
{
    st_error err = {0};
    st_scene *s = load_creator(cls, attrs, &err);
    cr_assert_not_null(s, "%s %s: %s", cls, attrs, err.msg);
    return s;
}

static const st_array *out(st_scene *s, const char *field)
{
    return topo_arr(topo_get(s, "loader"), field);
}

static void assert_positions(st_scene *s, const double *want, size_t n, double tol,
                             const char *what)
{
    const st_array *p = out(s, "position");
    cr_assert_eq(p->n, n, "%s: %zu positions, expected %zu", what, p->n, n);
    for (size_t i = 0; i < 3 * n; i++)
        cr_assert(fabs(p->r[i] - want[i]) <= tol, "%s: point %zu coordinate %zu is %.17g, "
                  "expected %.17g", what, i / 3, i % 3, p->r[i], want[i]);
}

/* The elements of one grid: triangles (or quads when nq) and edges. */
static void assert_grid(const char *attrs, const unsigned *tris, size_t nt, const unsigned *quads,
                        size_t nq, const unsigned *edges, size_t ne)
{
    st_scene *s = creator("GridMeshCreator", attrs);
    topo_assert_tuples(out(s, "triangles"), 3, tris, nt, attrs);
    topo_assert_tuples(out(s, "quads"), 4, quads, nq, attrs);
    topo_assert_tuples(out(s, "edges"), 2, edges, ne, attrs);
    st_scene_destroy(&s);
}

/* The 3 x 2 grid: vertex x + 3 y at (x / 2, y, 0). */
static const double GRID32[18] = {0, 0, 0, 0.5, 0, 0, 1, 0, 0, 0, 1, 0, 0.5, 1, 0, 1, 1, 0};

Test(mesh_creators, grid_positions)
{
    st_scene *s = creator("GridMeshCreator", "resolution='3 2'");
    assert_positions(s, GRID32, 6, 0.0, "3 x 2");
    st_scene_destroy(&s);
    /* y runs slowest: vertex x + 2 y at (x, y / 2, 0). */
    static const double g23[18] = {0, 0, 0, 1, 0, 0, 0, 0.5, 0, 1, 0.5, 0, 0, 1, 0, 1, 1, 0};
    s = creator("GridMeshCreator", "resolution='2 3'");
    assert_positions(s, g23, 6, 0.0, "2 x 3");
    st_scene_destroy(&s);
    /* Steps are x * (1 / (n - 1)) as SOFA computes them: 1/3 and 2/3. */
    s = creator("GridMeshCreator", "resolution='4 2'");
    const st_array *p = out(s, "position");
    cr_assert_eq(p->n, 8);
    cr_assert_eq(p->r[3], 1.0 / 3);
    cr_assert_eq(p->r[6], 2 * 1.0 / 3);
    cr_assert_eq(p->r[9], 1.0);
    cr_assert_eq(p->r[3 * 5 + 1], 1.0);
    st_scene_destroy(&s);
}

/* Defaults: resolution 2 2, trianglePattern 2 (upward). Sides met: (0,1)
 * (1,3) (3,0), then (0,3) (already as (3,0)) (3,2) (2,0). */
Test(mesh_creators, grid_defaults)
{
    static const double sq[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    st_scene *s = creator("GridMeshCreator", "");
    assert_positions(s, sq, 4, 0.0, "defaults");
    st_scene_destroy(&s);
    static const unsigned t[] = {0, 1, 3, 0, 3, 2};
    static const unsigned e[] = {0, 1, 1, 3, 2, 0, 3, 0, 3, 2};
    assert_grid("", t, 2, NULL, 0, e, 5);
}

/* Pattern 0: quads (v00 v10 v11 v01). Sides: (0,1) (1,4) (4,3) (3,0), then
 * (1,2) (2,5) (5,4) and (4,1), already met as (1,4). */
Test(mesh_creators, grid_quads)
{
    static const unsigned q[] = {0, 1, 4, 3, 1, 2, 5, 4};
    static const unsigned e[] = {0, 1, 1, 2, 1, 4, 2, 5, 3, 0, 4, 3, 5, 4};
    assert_grid("resolution='3 2' trianglePattern='0'", NULL, 0, q, 2, e, 7);
}

/* Pattern 2, upward: (v00 v10 v11) (v00 v11 v01) per cell. */
Test(mesh_creators, grid_upward)
{
    static const unsigned t[] = {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4};
    static const unsigned e[] = {0, 1, 1, 2, 1, 4, 2, 5, 3, 0, 4, 0, 4, 3, 5, 1, 5, 4};
    assert_grid("resolution='3 2' trianglePattern='2'", t, 4, NULL, 0, e, 9);
}

/* Pattern 3, downward: (v00 v10 v01) (v10 v11 v01) per cell. */
Test(mesh_creators, grid_downward)
{
    static const unsigned t[] = {0, 1, 3, 1, 4, 3, 1, 2, 4, 2, 5, 4};
    static const unsigned e[] = {0, 1, 1, 2, 1, 3, 1, 4, 2, 4, 2, 5, 3, 0, 4, 3, 5, 4};
    assert_grid("resolution='3 2' trianglePattern='3'", t, 4, NULL, 0, e, 9);
}

/* Pattern 1, alternate: upward where x + y is even, downward elsewhere;
 * along x on 3 x 2, and along y on 2 x 3 (vertex x + 2 y), where the
 * second cell's side (2,3) is met after (3,2). */
Test(mesh_creators, grid_alternate)
{
    static const unsigned t32[] = {0, 1, 4, 0, 4, 3, 1, 2, 4, 2, 5, 4};
    static const unsigned e32[] = {0, 1, 1, 2, 1, 4, 2, 4, 2, 5, 3, 0, 4, 0, 4, 3, 5, 4};
    assert_grid("resolution='3 2' trianglePattern='1'", t32, 4, NULL, 0, e32, 9);
    static const unsigned t23[] = {0, 1, 3, 0, 3, 2, 2, 3, 4, 3, 5, 4};
    static const unsigned e23[] = {0, 1, 1, 3, 2, 0, 3, 0, 3, 2, 3, 4, 3, 5, 4, 2, 5, 4};
    assert_grid("resolution='2 3' trianglePattern='1'", t23, 4, NULL, 0, e23, 9);
}

/* Counts on a larger grid: (nx - 1)(ny - 1) cells, nx (ny - 1) + ny (nx - 1)
 * grid lines, one diagonal per cell; every edge once whatever its
 * orientation, sorted by (a, b). */
Test(mesh_creators, grid_counts)
{
    for (int pattern = 0; pattern < 4; pattern++) {
        char attrs[64];
        snprintf(attrs, sizeof attrs, "resolution='5 4' trianglePattern='%d'", pattern);
        st_scene *s = creator("GridMeshCreator", attrs);
        const st_array *e = out(s, "edges");
        cr_assert_eq(out(s, "position")->n, 20, "%s", attrs);
        cr_assert_eq(out(s, "quads")->n, pattern ? 0u : 12u, "%s", attrs);
        cr_assert_eq(out(s, "triangles")->n, pattern ? 24u : 0u, "%s", attrs);
        cr_assert_eq(e->n, pattern ? 43u : 31u, "%s: %zu edges", attrs, e->n);
        for (size_t i = 0; i < e->n; i++) {
            const unsigned *a = e->u + 2 * i;
            cr_assert_neq(a[0], a[1]);
            for (size_t j = 0; j < i; j++) {
                const unsigned *b = e->u + 2 * j;
                cr_assert(!(a[0] == b[1] && a[1] == b[0]), "%s: edge %zu reversed twice", attrs,
                          i);
                cr_assert(b[0] < a[0] || (b[0] == a[0] && b[1] < a[1]),
                          "%s: edges %zu and %zu out of (a, b) order", attrs, j, i);
            }
        }
        st_scene_destroy(&s);
    }
}

/* The MeshLoader steps: x' = T R S x (Euler angles in degrees), the
 * transformation matrix, and normals from the elements. */
Test(mesh_creators, grid_transforms)
{
    /* SOFA's example: rotation 180 about x, then scale 10 in x and y. */
    static const double flip[12] = {0, 0, 0, 10, 0, 0, 0, -10, 0, 10, -10, 0};
    st_scene *s = creator("GridMeshCreator", "rotation='180 0 0' scale3d='10 10 0'");
    assert_positions(s, flip, 4, 1e-12, "rotation 180 0 0, scale3d 10 10 0");
    const st_array *n = out(s, "normals");
    cr_assert_eq(n->n, 4);
    for (size_t i = 0; i < 4; i++)
        cr_assert(fabs(n->r[3 * i + 2] + 1) < 1e-12, "normal %zu: z %g, expected -1", i,
                  n->r[3 * i + 2]);
    st_scene_destroy(&s);
    /* Scale 2 3 1, rotation 90 about z ((x, y) -> (-y, x)), translation 1 2 3. */
    static const double trs[12] = {1, 2, 3, 1, 4, 3, -2, 2, 3, -2, 4, 3};
    s = creator("GridMeshCreator", "scale3d='2 3 1' rotation='0 0 90' translation='1 2 3'");
    assert_positions(s, trs, 4, 1e-12, "T R S");
    st_scene_destroy(&s);
    /* A transformation matrix replaces T R S. */
    static const double mat[12] = {5, 6, 7, 7, 6, 7, 5, 6, 4, 7, 6, 4};
    s = creator("GridMeshCreator",
                "translation='9 9 9' transformation='2 0 0 5  0 0 1 6  0 -3 0 7  0 0 0 1'");
    assert_positions(s, mat, 4, 0.0, "transformation");
    st_scene_destroy(&s);
    /* "scale" multiplies scale3d. */
    static const double sc[12] = {0, 0, 0, 4, 0, 0, 0, 2, 0, 4, 2, 0};
    s = creator("GridMeshCreator", "scale='2' scale3d='2 1 1'");
    assert_positions(s, sc, 4, 0.0, "scale");
    st_scene_destroy(&s);
}

/* The element options: triangulate splits the quads (q0 q1 q2) (q0 q2 q3);
 * createSubelements adds nothing (every side is an edge already);
 * flipNormals does not apply (SOFA's creator writes its elements
 * directly), but reverses the triangles of triangulated quads; filename is
 * accepted and never read. */
Test(mesh_creators, grid_options)
{
    static const unsigned t[] = {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4};
    static const unsigned e[] = {0, 1, 1, 2, 1, 4, 2, 5, 3, 0, 4, 3, 5, 4};
    assert_grid("resolution='3 2' trianglePattern='0' triangulate='true'", t, 4, NULL, 0, e, 7);
    static const unsigned q[] = {0, 1, 4, 3, 1, 2, 5, 4};
    assert_grid("resolution='3 2' trianglePattern='0' createSubelements='true' "
                "flipNormals='true' filename='nofile'",
                NULL, 0, q, 2, e, 7);
    static const unsigned tf[] = {4, 1, 0, 3, 4, 0, 5, 2, 1, 4, 5, 1};
    assert_grid("resolution='3 2' trianglePattern='0' triangulate='true' flipNormals='true'",
                tf, 4, NULL, 0, e, 7);
    cr_assert(strstr(T.log, "flipNormals does not reverse"), "no warning in: %s", T.log);
    st_scene *s = creator("GridMeshCreator", "resolution='3 2' onlyAttachedPoints='true'");
    assert_positions(s, GRID32, 6, 0.0, "onlyAttachedPoints");
    st_scene_destroy(&s);
}

Test(mesh_creators, string_mesh)
{
    static const double p[12] = {0, 0, 0, 1.0 / 3, 0, 0, 2 * (1.0 / 3), 0, 0, 1, 0, 0};
    static const unsigned e[] = {0, 1, 1, 2, 2, 3};
    st_scene *s = creator("StringMeshCreator", "resolution='4'");
    assert_positions(s, p, 4, 0.0, "string of 4");
    topo_assert_tuples(out(s, "edges"), 2, e, 3, "string of 4");
    cr_assert_eq(out(s, "triangles")->n, 0);
    st_scene_destroy(&s);
    static const double def[6] = {0, 0, 0, 1, 0, 0};
    s = creator("StringMeshCreator", "filename='nofile'");
    assert_positions(s, def, 2, 0.0, "default resolution 2");
    topo_assert_tuples(out(s, "edges"), 2, e, 1, "default resolution 2");
    st_scene_destroy(&s);
    /* Along y, 5 long, from (1, 1, 1). */
    static const double rot[9] = {1, 1, 1, 1, 3.5, 1, 1, 6, 1};
    s = creator("StringMeshCreator", "resolution='3' scale3d='5 1 1' rotation='0 0 90' "
                                     "translation='1 1 1'");
    assert_positions(s, rot, 3, 1e-12, "string T R S");
    st_scene_destroy(&s);
}

/* Loads a creator that must fail; the message names the class, the field
 * and says what is wrong. */
static void expect_error(const char *cls, const char *attrs, const char *field, const char *what)
{
    st_error err = {0};
    st_scene *s = load_creator(cls, attrs, &err);
    cr_assert_null(s, "%s %s: loaded, expected an error", cls, attrs);
    cr_assert(strstr(err.msg, cls), "%s %s: no class in: %s", cls, attrs, err.msg);
    cr_assert(strstr(err.msg, field), "%s %s: no '%s' in: %s", cls, attrs, field, err.msg);
    cr_assert(strstr(err.msg, what), "%s %s: no '%s' in: %s", cls, attrs, what, err.msg);
}

Test(mesh_creators, bad_values)
{
    expect_error("GridMeshCreator", "resolution='1 3'", "resolution", "at least 2");
    expect_error("GridMeshCreator", "resolution='3 0'", "resolution", "at least 2");
    expect_error("GridMeshCreator", "resolution='-2 2'", "resolution", "at least 2");
    expect_error("GridMeshCreator", "resolution='70000 70000'", "resolution", "vertices");
    expect_error("GridMeshCreator", "trianglePattern='4'", "trianglePattern", "got 4");
    expect_error("GridMeshCreator", "trianglePattern='-1'", "trianglePattern", "0 (quads)");
    expect_error("GridMeshCreator", "resolution='2'", "resolution", "");
    expect_error("StringMeshCreator", "resolution='1'", "resolution", "from 2");
    expect_error("StringMeshCreator", "resolution='0'", "resolution", "from 2");
    expect_error("StringMeshCreator", "resolution='-3'", "resolution", "");
}

/* Loads a scene, checks its state "dof" has n points and steps it. */
static st_mstate *run_steps(const char *xml, size_t n, int steps, double dt, st_scene **s)
{
    st_error err = {0};
    *s = load_xml(xml, &err);
    cr_assert_not_null(*s, "%s", err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(*s, "dof");
    cr_assert_eq(ms->n, n);
    for (int i = 0; i < steps; i++)
        cr_assert_eq(st_scene_step(*s, dt, &err), ST_OK, "%s", err.msg);
    return ms;
}

/* SOFA's TriangleFEMForceField_test (checkFEMValues) hangs a 40 x 40
 * membrane, 10 x 10, from two corners and checks point 1515 after 100
 * implicit steps; built here by GridMeshCreator (upward pattern: the same
 * triangles as SOFA's grid) as the src of the state and the topology. */
Test(mesh_creators, grid_membrane_steps)
{
    st_scene *s;
    st_mstate *ms = run_steps(
        "<Node name='root' gravity='0 10 0' dt='0.01'><DefaultAnimationLoop/>"
        "<Node name='membrane'><EulerImplicitSolver/>"
        "<CGLinearSolver iterations='20' tolerance='1e-5' threshold='1e-6'/>"
        "<GridMeshCreator name='grid' resolution='40 40' scale3d='10 10 0' filename='nofile'/>"
        "<MechanicalObject name='dof' src='@grid'/>"
        "<TriangleSetTopologyContainer name='topo' src='@grid'/>"
        "<TriangleSetTopologyModifier/>"
        "<TriangleFEMForceField name='FEM' youngModulus='100' poissonRatio='0.3' "
        "method='large'/>"
        "<DiagonalMass massDensity='0.1'/>"
        "<FixedProjectiveConstraint indices='0 39'/></Node></Node>",
        1600, 100, 0.01, &s);
    cr_assert_eq(topo_arr(test_find_object(s, "topo"), "triangles")->n, 2 * 39 * 39);
    const double *p = ms->position.r + 3 * 1515;
    cr_assert(fabs(p[0] - 8.9135) < 1e-4, "x1515 %.8g", p[0]);
    cr_assert(fabs(p[1] - 14.2499) < 1e-4, "y1515 %.8g", p[1]);
    cr_assert(fabs(p[2]) < 1e-4, "z1515 %.8g", p[2]);
    /* The fixed corners stay. */
    cr_assert_eq(ms->position.r[0], 0.0);
    cr_assert_eq(ms->position.r[3 * 39], 10.0);
    st_scene_destroy(&s);
}

/* StringMeshCreator as the src of a chain of springs hanging from its first
 * point: 5 points 1 apart along -y (rotation 0 0 -90), mass 1 each, springs
 * of stiffness 1000. At rest spring i carries the weight of the 5 - i
 * points below it, so y_i = -i - sum_{j <= i} 10 (5 - j) / 1000; damped
 * implicit steps reach it. */
Test(mesh_creators, string_chain_hangs)
{
    st_scene *s;
    st_mstate *ms = run_steps(
        "<Node name='root' gravity='0 -10 0' dt='0.1'><DefaultAnimationLoop/>"
        "<EulerImplicitSolver rayleighMass='1'/>"
        "<CGLinearSolver iterations='200' tolerance='1e-20' threshold='1e-30'/>"
        "<StringMeshCreator name='loader' resolution='5' scale3d='4 1 1' rotation='0 0 -90'/>"
        "<MeshTopology src='@loader'/><MechanicalObject name='dof' src='@loader'/>"
        "<UniformMass totalMass='5'/><MeshSpringForceField stiffness='1000'/>"
        "<FixedProjectiveConstraint indices='0'/></Node>",
        5, 400, 0.1, &s);
    double y = 0;
    for (int i = 0; i < 5; i++) {
        if (i > 0)
            y -= 1 + 10.0 * (5 - i) / 1000;
        const double *p = ms->position.r + 3 * i;
        cr_assert(fabs(p[0]) < 1e-12 && fabs(p[2]) < 1e-12, "point %d off the line", i);
        cr_assert(fabs(p[1] - y) < 1e-9, "point %d: y %.12g, expected %.12g", i, p[1], y);
    }
    st_scene_destroy(&s);
}
