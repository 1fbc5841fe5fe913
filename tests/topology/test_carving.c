/* test_carving.c - CarvingManager (plugin SofaCarving): a sphere tool moved
 * down into a unit cube of six tetrahedra removes, through the surface
 * triangles it comes near and Tetra2TriangleTopologicalMapping, exactly the
 * tetrahedra worked out by hand below, at the steps worked out by hand; the
 * surface then holds the faces the removal exposed, and the state and the
 * mass follow.
 *
 * The cube: point i at (i & 1, (i >> 1) & 1, (i >> 2) & 1), the six Kuhn
 * tetrahedra around the diagonal 0-7, positively oriented:
 *   T0 (0 1 3 7)  T1 (0 1 7 5)  T2 (0 2 7 3)  T3 (0 2 6 7)  T4 (0 4 5 7)
 *   T5 (0 4 7 6)
 * The tool: a sphere of radius 0.1 at (0.75, 0.25, 1.3 - t), moved by a
 * LinearMovementProjectiveConstraint (SOFA's rule: the positions after the
 * step from t to t + dt are those of time t, so the detection of step k,
 * at the step's start, sees z = 1.3 - 0.01 (k - 2) for k >= 2).
 * MinProximityIntersection with contactDistance 0.045: a detection output's
 * value is its distance minus 0.045 + 0.1, and with carvingDistance 0 a
 * triangle goes when the sphere's centre is closer than 0.145 to it.
 *
 * By hand, along the tool's path (x, y) = (0.75, 0.25):
 *   - the top triangle (4 5 7) is at z - 1; the other faces at 0.25 or
 *     more (the sides x = 1, y = 0), sqrt(0.125 + ...) (the top's other
 *     half): (4 5 7) goes first, at the first step with z < 1.145: z = 1.14,
 *     step 18. Its tetrahedron T4 goes; T4 has no isolated point. The
 *     surface loses (4 5 7) and (0 4 5) and gains (0 5 7) (plane z = x) and
 *     (0 4 7) (plane y = x).
 *   - (0 5 7) is at (z - 0.75) / sqrt 2 (the projection falls inside it),
 *     (0 4 7) at 0.5 / sqrt 2 = 0.354: (0 5 7) goes at the first z below
 *     0.75 + 0.145 sqrt 2 = 0.955: z = 0.95, step 37. T1 goes, and point 5
 *     with it (only T4 and T1 held it): point 7, the last, takes index 5.
 *     The surface loses (0 1 5), (1 5 7), (0 5 7) and gains (0 1 7)
 *     (plane z = y).
 *   - (0 1 7) is at (z - 0.25) / sqrt 2: it goes at the first z below
 *     0.25 + 0.145 sqrt 2 = 0.455: z = 0.45, step 87. T0 goes with point 1
 *     (last point, first 6, takes index 1). The surface loses (0 1 3),
 *     (1 3 7), (0 1 7) and gains (0 3 7) (plane y = x, 0.354 away).
 *   - What is left (T2, T3, T5) lies in y >= x, 0.354 or more away: nothing
 *     more goes.
 * Each removal moves the last tetrahedron into the hole (SOFA's modifiers):
 *   after 18: T0 T1 T2 T3 T5; after 37: T0 T5 T2 T3; after 87: T3 T5 T2. */
#include <criterion/criterion.h>
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
    static const char *const plugins[] = {"Collision",
                                          "Topology",
                                          "Mass",
                                          "SolidMechanics.FEM.Elastic",
                                          "ODESolver.Backward",
                                          "LinearSolver.Iterative",
                                          "Constraint.Projective",
                                          "SofaCarving"};
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(T.rt, plugins[i], &err), ST_OK, "%s", err.msg);
}
static void teardown(void) { test_rt_close(&T); }
TestSuite(carving, .init = setup, .fini = teardown);

/* Scene parts: the root with its collision pipeline (the penalty response,
 * MinProximityIntersection with the given distances); the cube's state and
 * its six tetrahedra; the tool's solver; the tool, a sphere of radius 0.1
 * coming down from (x, y, 1.3) as in load below. */
#define ROOT(alarm, contact)                                                                       \
    "<Node name='root' dt='0.01' gravity='0 0 0'>"                                                \
    "<DefaultAnimationLoop/><CollisionPipeline/><BruteForceBroadPhase/><BVHNarrowPhase/>"         \
    "<CollisionResponse response='PenalityContactForceField'/>"                                   \
    "<MinProximityIntersection alarmDistance='" alarm "' contactDistance='" contact "'/>"
#define CUBE_POINTS "0 0 0 1 0 0 0 1 0 1 1 0 0 0 1 1 0 1 0 1 1 1 1 1"
#define CUBE_TETRAS "0 1 3 7 0 1 7 5 0 2 7 3 0 2 6 7 0 4 5 7 0 4 7 6"
#define CUBE_VOLUME(points, tetras)                                                                \
    "<MechanicalObject name='dofs' position='" points "'/>"                                       \
    "<TetrahedronSetTopologyContainer name='Volume' position='@dofs.position' tetrahedra='"       \
    tetras "'/><TetrahedronSetTopologyModifier/>"
#define TOOL_SOLVER                                                                                \
    "<EulerImplicitSolver/><CGLinearSolver iterations='25' tolerance='1e-12' threshold='1e-12'/>"
#define MOVING_TOOL(x, y)                                                                          \
    "<Node name='Tool'>" TOOL_SOLVER "<MechanicalObject position='" x " " y " 1.3'/>"             \
    "<UniformMass totalMass='1'/><LinearMovementProjectiveConstraint indices='0' "                \
    "keyTimes='0 2' movements='0 0 0 0 0 -2'/>"                                                   \
    "<SphereCollisionModel radius='0.1' tags='CarvingTool'/></Node>"

static st_scene *load_xml(const char *xml)
{
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "carving.scn", &s, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s: %s", err.path, err.msg);
    return s;
}

/* The scene; response: the contact manager's element (and attributes);
 * manager: CarvingManager's attributes (NULL: no manager); tool_x, tool_y: the tool's path;
 * surface: the surface node's collision models. */
static st_scene *load_with(const char *response, const char *manager, double tool_x,
                           double tool_y, const char *surface)
{
    static char xml[8192];
    snprintf(xml, sizeof xml,
             "<Node name='root' dt='0.01' gravity='0 0 0'>"
             "<DefaultAnimationLoop/><CollisionPipeline name='pipeline'/><BruteForceBroadPhase/>"
             "<BVHNarrowPhase name='narrow'/>"
             "<%s/>"
             "<MinProximityIntersection alarmDistance='0.5' contactDistance='0.045'/>"
             "%s%s%s"
             "<Node name='Cube'>"
             "<EulerImplicitSolver/>"
             "<CGLinearSolver iterations='25' tolerance='1e-12' threshold='1e-12'/>"
             "<MechanicalObject name='dofs' position='0 0 0 1 0 0 0 1 0 1 1 0 0 0 1 1 0 1 0 1 "
             "1 1 1 1'/>"
             "<TetrahedronSetTopologyContainer name='Volume' position='@dofs.position' "
             "tetrahedra='0 1 3 7 0 1 7 5 0 2 7 3 0 2 6 7 0 4 5 7 0 4 7 6'/>"
             "<TetrahedronSetTopologyModifier/>"
             "<DiagonalMass name='mass' massDensity='1'/>"
             "<FixedProjectiveConstraint fixAll='true'/>"
             "<TetrahedralCorotationalFEMForceField youngModulus='100' poissonRatio='0.3' "
             "method='large'/>"
             "<Node name='Surface'>"
             "<TriangleSetTopologyContainer name='Border'/>"
             "<TriangleSetTopologyModifier/>"
             "<Tetra2TriangleTopologicalMapping input='@../Volume' output='@Border'/>"
             "%s"
             "</Node></Node>"
             "<Node name='Tool'>"
             "<EulerImplicitSolver/>"
             "<CGLinearSolver iterations='25' tolerance='1e-12' threshold='1e-12'/>"
             "<MechanicalObject name='tooldofs' position='%g %g 1.3'/>"
             "<UniformMass totalMass='1'/>"
             "<LinearMovementProjectiveConstraint indices='0' keyTimes='0 2' "
             "movements='0 0 0 0 0 -2'/>"
             "<SphereCollisionModel name='sphere' radius='0.1' tags='CarvingTool'/>"
             "</Node></Node>",
             response, manager ? "<CarvingManager name='carving' " : "", manager ? manager : "",
             manager ? "/>" : "", surface, tool_x, tool_y);
    return load_xml(xml);
}

static st_scene *load(const char *manager, double tool_x, double tool_y, const char *surface)
{
    return load_with("CollisionResponse response='PenalityContactForceField'", manager, tool_x,
                     tool_y, surface);
}

static const char *const TRIANGLES = "<TriangleCollisionModel name='tri' tags='CarvingSurface'/>";

static const st_array *arr(st_scene *s, const char *name, const char *field)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no component %s", name);
    return topo_arr(c, field);
}

static size_t ntetra(st_scene *s) { return arr(s, "Volume", "tetrahedra")->n; }

static void step(st_scene *s)
{
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "step: %s: %s", err.path, err.msg);
}

/* Steps from..to. */
static void steps(st_scene *s, int from, int to)
{
    for (int k = from; k <= to; k++)
        step(s);
}

static const st_array *arr(st_scene *s, const char *name, const char *field);

/* Steps 1..at: the list name.field holds `before` items until step at - 1,
 * `after` once step at is done; returns it. */
static const st_array *changes_at(st_scene *s, const char *name, const char *field, int at,
                                  size_t before, size_t after)
{
    steps(s, 1, at - 1);
    cr_assert_eq(arr(s, name, field)->n, before, "%s.%s before step %d", name, field, at);
    step(s);
    const st_array *a = arr(s, name, field);
    cr_assert_eq(a->n, after, "%s.%s after step %d: %zu", name, field, at, a->n);
    return a;
}

/* The block's one hexahedron left is H1: its vertices are the corners
 * x >= 1 (8 points left). */
static void assert_h1_left(st_scene *s)
{
    const st_array *h = arr(s, "Hexas", "hexahedra");
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(h->n, 1);
    cr_assert_eq(x->n, 8, "%zu points", x->n);
    for (int v = 0; v < 8; v++)
        cr_assert_geq(x->r[3 * h->u[v]], 1.0, "vertex %d of the hexahedron left at x = %g", v,
                      x->r[3 * h->u[v]]);
}

/* Runs to step `to` (from step `from`), checking that the tetrahedra count
 * changes only at the steps of `at` (to the counts of `want`). */
static void run(st_scene *s, int from, int to, const int *at, const size_t *want, size_t nat)
{
    for (int k = from; k <= to; k++) {
        size_t before = ntetra(s);
        step(s);
        size_t expect = before;
        for (size_t i = 0; i < nat; i++)
            if (at[i] == k)
                expect = want[i];
        cr_assert_eq(ntetra(s), expect, "step %d: %zu tetrahedra, want %zu", k, ntetra(s),
                     expect);
    }
}

/* The cube corner id (x + 2 y + 4 z) of point i, from the state. */
static unsigned corner(st_scene *s, unsigned i)
{
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_lt(i, x->n);
    unsigned id = 0;
    for (int a = 0; a < 3; a++) {
        double v = x->r[3 * i + a];
        cr_assert(fabs(v) < 1e-12 || fabs(v - 1) < 1e-12, "point %u coordinate %d is %g", i, a, v);
        id |= (v > 0.5 ? 1u : 0u) << a;
    }
    return id;
}

static int cmp3(const void *a, const void *b) { return memcmp(a, b, 3 * sizeof(unsigned)); }
static int cmpu(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* The surface's triangles as sorted corner-id triples equal want's. */
static void assert_surface(st_scene *s, const unsigned *want, size_t n, const char *when)
{
    const st_array *t = arr(s, "Border", "triangles");
    cr_assert_eq(t->n, n, "%s: the surface has %zu triangles, want %zu", when, t->n, n);
    unsigned got[64][3], exp[64][3];
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < 3; j++) {
            got[i][j] = corner(s, t->u[3 * i + j]);
            exp[i][j] = want[3 * i + j];
        }
        qsort(got[i], 3, sizeof(unsigned), cmpu);
        qsort(exp[i], 3, sizeof(unsigned), cmpu);
    }
    qsort(got, n, sizeof got[0], cmp3);
    qsort(exp, n, sizeof exp[0], cmp3);
    for (size_t i = 0; i < n; i++)
        cr_assert(!memcmp(got[i], exp[i], sizeof got[i]),
                  "%s: surface triangle %zu is (%u %u %u), want (%u %u %u)", when, i, got[i][0],
                  got[i][1], got[i][2], exp[i][0], exp[i][1], exp[i][2]);
}

/* The tetrahedra list, exactly; the state's points (corner ids); the
 * diagonal mass: 1/24 per tetrahedron on each of its vertices. */
static void assert_volume(st_scene *s, const unsigned *tets, size_t nt, const unsigned *corners,
                          size_t np, const char *when)
{
    topo_assert_tuples(arr(s, "Volume", "tetrahedra"), 4, tets, nt, when);
    const st_array *x = arr(s, "dofs", "position");
    cr_assert_eq(x->n, np, "%s: the state has %zu points, want %zu", when, x->n, np);
    for (unsigned i = 0; i < np; i++)
        cr_assert_eq(corner(s, i), corners[i], "%s: point %u is corner %u, want %u", when, i,
                     corner(s, i), corners[i]);
    cr_assert_eq(arr(s, "dofs", "velocity")->n, np, "%s: velocity size", when);
    cr_assert_eq(arr(s, "dofs", "rest_position")->n, np, "%s: rest_position size", when);
    const st_array *m = arr(s, "mass", "vertexMass");
    cr_assert_eq(m->n, np, "%s: vertexMass has %zu entries, want %zu", when, m->n, np);
    double total = 0;
    for (unsigned i = 0; i < np; i++) {
        unsigned on = 0;
        for (size_t e = 0; e < 4 * nt; e++)
            on += tets[e] == i;
        cr_assert_float_eq(m->r[i], on / 24.0, 1e-14, "%s: vertexMass[%u] = %.17g, want %u/24",
                           when, i, m->r[i], on);
        total += m->r[i];
    }
    cr_assert_float_eq(total, nt / 6.0, 1e-14, "%s: total mass %.17g", when, total);
}

Test(carving, tool_into_the_cube_removes_the_tetrahedra_worked_by_hand)
{
    st_scene *s = load("active='true'", 0.75, 0.25, TRIANGLES);
    static const unsigned surf0[] = {0, 1, 3, 0, 2, 3, 4, 5, 7, 4, 6, 7, 0, 1, 5, 0, 4, 5,
                                     2, 3, 7, 2, 6, 7, 0, 2, 6, 0, 4, 6, 1, 3, 7, 1, 5, 7};
    assert_surface(s, surf0, 12, "at init");
    static const unsigned c8[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const unsigned tet0[] = {0, 1, 3, 7, 0, 1, 7, 5, 0, 2, 7, 3,
                                    0, 2, 6, 7, 0, 4, 5, 7, 0, 4, 7, 6};
    assert_volume(s, tet0, 6, c8, 8, "at init");

    static const int at[] = {18, 37, 87};
    static const size_t want[] = {5, 4, 3};
    run(s, 1, 18, at, want, 3);
    static const unsigned tet18[] = {0, 1, 3, 7, 0, 1, 7, 5, 0, 2, 7, 3, 0, 2, 6, 7, 0, 4, 7, 6};
    assert_volume(s, tet18, 5, c8, 8, "after step 18");
    static const unsigned surf18[] = {0, 1, 3, 0, 2, 3, 4, 6, 7, 0, 1, 5, 2, 3, 7, 2, 6, 7,
                                      0, 2, 6, 0, 4, 6, 1, 3, 7, 1, 5, 7, 0, 5, 7, 0, 4, 7};
    assert_surface(s, surf18, 12, "after step 18");

    run(s, 19, 37, at, want, 3);
    /* T0 T5 T2 T3, point 7 renumbered 5 */
    static const unsigned tet37[] = {0, 1, 3, 5, 0, 4, 5, 6, 0, 2, 5, 3, 0, 2, 6, 5};
    static const unsigned c7[] = {0, 1, 2, 3, 4, 7, 6};
    assert_volume(s, tet37, 4, c7, 7, "after step 37");
    static const unsigned surf37[] = {0, 1, 3, 0, 2, 3, 4, 6, 7, 2, 3, 7, 2, 6, 7,
                                      0, 2, 6, 0, 4, 6, 1, 3, 7, 0, 4, 7, 0, 1, 7};
    assert_surface(s, surf37, 10, "after step 37");

    run(s, 38, 130, at, want, 3);
    /* T3 T5 T2, point 6 renumbered 1 */
    static const unsigned tet87[] = {0, 2, 1, 5, 0, 4, 5, 1, 0, 2, 5, 3};
    static const unsigned c6[] = {0, 6, 2, 3, 4, 7};
    assert_volume(s, tet87, 3, c6, 6, "after step 87");
    static const unsigned surf87[] = {0, 2, 3, 4, 6, 7, 2, 3, 7, 2, 6, 7,
                                      0, 2, 6, 0, 4, 6, 0, 4, 7, 0, 3, 7};
    assert_surface(s, surf87, 8, "after step 87");
    st_scene_destroy(&s);
}

/* SOFA's narrow phase detects every pair its broad phase gives, whatever
 * the contact manager then does with it; the response "nullptr" only keeps
 * the contact from being created. The manager reads the outputs all the
 * same: with no response at all, the tool (moved by its projective
 * constraint, the cube fixed: the response changed nothing in the path
 * above) removes T4, T1, T0 at steps 18, 37 and 87, as above, and no
 * contact is ever made. */
static void nullptr_carves_as_with_a_response(const char *response, const char *surface)
{
    st_scene *s = load_with(response, "active='true'", 0.75, 0.25, surface);
    static const int at[] = {18, 37, 87};
    static const size_t want[] = {5, 4, 3};
    for (int k = 1; k <= 130; k++) {
        run(s, k, k, at, want, 3);
        cr_assert_eq(arr(s, "pipeline", "contactCounts")->n, 0, "step %d: a contact pair", k);
        cr_assert_eq(arr(s, "pipeline", "contactPoints")->n, 0, "step %d: a contact", k);
    }
    static const unsigned tet87[] = {0, 2, 1, 5, 0, 4, 5, 1, 0, 2, 5, 3};
    static const unsigned c6[] = {0, 6, 2, 3, 4, 7};
    assert_volume(s, tet87, 3, c6, 6, "after step 87");
    st_scene_destroy(&s);
}

Test(carving, nullptr_response_still_carves)
{
    nullptr_carves_as_with_a_response("CollisionResponse response='nullptr'", TRIANGLES);
}

Test(carving, nullptr_rule_still_carves)
{
    /* RuleBasedContactManager: penalty by default, "nullptr" for the
     * tool's pair with the surface triangles (named on both sides) */
    nullptr_carves_as_with_a_response("RuleBasedContactManager "
                                      "response='PenalityContactForceField' "
                                      "rules='sphere tri nullptr'",
                                      TRIANGLES);
}

Test(carving, nullptr_model_response_still_carves)
{
    /* the surface model's own contactResponse, which the manager's
     * default gives way to (SOFA's rule) */
    nullptr_carves_as_with_a_response("CollisionResponse response='PenalityContactForceField'",
                                      "<TriangleCollisionModel name='tri' tags='CarvingSurface' "
                                      "contactResponse='nullptr'/>");
}

static st_status count_outputs(void *ud, const st_detection *d, st_error *err)
{
    (void)d;
    (void)err;
    ++*(size_t *)ud;
    return ST_OK;
}

/* The detection outputs of the last step, through the SDK. */
static size_t outputs(st_scene *s)
{
    st_component *pipe = test_find_object(s, "pipeline");
    size_t n = 0;
    st_error err = {0};
    cr_assert_eq(pipe->cls->collision->detections(pipe, NULL, count_outputs, &n, &err), ST_OK,
                 "%s", err.msg);
    return n;
}

Test(carving, nullptr_pairs_are_detected_for_their_readers_only)
{
    /* settee detects a pair without response only when a component asks
     * (the manager, at init, even inactive): at step 18 the tool's centre
     * is 0.14 above the top triangle (4 5 7), within the alarm distance
     * 0.5 + 0.1 of some triangles: outputs; the same scene without a
     * manager computes none (no cost for scenes that read nothing). */
    st_scene *s = load_with("CollisionResponse response='nullptr'", "", 0.75, 0.25, TRIANGLES);
    run(s, 1, 18, NULL, NULL, 0);
    cr_assert_gt(outputs(s), 0, "the manager's pair was not detected");
    st_scene_destroy(&s);
    s = load_with("CollisionResponse response='nullptr'", NULL, 0.75, 0.25, TRIANGLES);
    run(s, 1, 18, NULL, NULL, 0);
    cr_assert_eq(outputs(s), 0, "a pair without response and without reader was detected");
    st_scene_destroy(&s);
}

Test(carving, tool_out_of_reach_removes_nothing)
{
    /* the same path at x = 3: the nearest face (x = 1) is 2 away */
    st_scene *s = load("active='true'", 3.0, 0.25, TRIANGLES);
    run(s, 1, 130, NULL, NULL, 0);
    cr_assert_eq(ntetra(s), 6);
    cr_assert_eq(arr(s, "Border", "triangles")->n, 12);
    cr_assert_eq(arr(s, "dofs", "position")->n, 8);
    st_scene_destroy(&s);
}

Test(carving, inactive_until_the_switch_key)
{
    /* inactive (SOFA's default): the tool passes the top triangle's
     * threshold at step 18 and nothing goes; '4' (keySwitch) switches it on
     * and the next step removes T4; '1' held then released switches it
     * off. */
    st_scene *s = load("", 0.75, 0.25, TRIANGLES);
    run(s, 1, 20, NULL, NULL, 0);
    cr_assert_eq(ntetra(s), 6);
    st_input_event ev = {.struct_size = sizeof ev, .kind = ST_INPUT_KEY_PRESSED, .key = '4'};
    st_node_send_input(st_scene_root(s), &ev);
    static const int at[] = {21};
    static const size_t want[] = {5};
    run(s, 21, 21, at, want, 1);
    /* off with '4' again: (0 5 7) would go at step 37 */
    st_node_send_input(st_scene_root(s), &ev);
    run(s, 22, 40, NULL, NULL, 0);
    /* '1' pressed: on until released */
    ev.key = '1';
    st_node_send_input(st_scene_root(s), &ev);
    static const int at41[] = {41};
    static const size_t want41[] = {4};
    run(s, 41, 41, at41, want41, 1);
    ev.kind = ST_INPUT_KEY_RELEASED;
    st_node_send_input(st_scene_root(s), &ev);
    run(s, 42, 130, NULL, NULL, 0);
    st_scene_destroy(&s);
}

Test(carving, negative_carving_distance_waits_for_penetration)
{
    /* carvingDistance -0.1: a triangle goes when the centre is closer than
     * 0.045: (4 5 7) at the first z below 1.045, z = 1.04, step 28 (not 27,
     * at z = 1.05) */
    st_scene *s = load("active='true' carvingDistance='-0.1'", 0.75, 0.25, TRIANGLES);
    static const int at[] = {28};
    static const size_t want[] = {5};
    run(s, 1, 30, at, want, 1);
    st_scene_destroy(&s);
}

Test(carving, surface_points_remove_the_tetrahedra_under_their_triangles)
{
    /* A PointCollisionModel on the surface instead: the tool reaches vertex
     * 7 (1, 1, 1) first when moving down at (1, 1): z - 1 < 0.145 at z =
     * 1.14, step 18, the same threshold. SOFA's rule: every surface triangle
     * on point 7 ((4 5 7) (4 6 7) (2 3 7) (2 6 7) (1 3 7) (1 5 7)), then the
     * tetrahedron on each: T4 T5 T2 T3 T0 T1, the whole cube. */
    st_scene *s = load("active='true'", 1.0, 1.0,
                       "<PointCollisionModel name='pts' tags='CarvingSurface'/>");
    run(s, 1, 17, NULL, NULL, 0);
    cr_assert_eq(ntetra(s), 6);
    step(s);
    cr_assert_eq(ntetra(s), 0, "step 18: %zu tetrahedra left", ntetra(s));
    st_scene_destroy(&s);
}

Test(carving, missing_tool_is_an_error)
{
    static const char *xml =
        "<Node name='root' dt='0.01'><DefaultAnimationLoop/><CollisionPipeline/>"
        "<BruteForceBroadPhase/><BVHNarrowPhase/><CollisionResponse/>"
        "<MinProximityIntersection/><CarvingManager active='true'/>"
        "<Node name='A'><MechanicalObject position='0 0 0'/>"
        "<SphereCollisionModel tags='CarvingSurface'/></Node></Node>";
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "carving.scn", &s, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "Tool Collision Model not found"), "%s", err.msg);
    st_scene_destroy(&s);
}

Test(carving, triangle_model_on_the_volume_container_itself)
{
    /* The TriangleCollisionModel beside the tetrahedra (no mapping): its
     * triangles are all the container's, inner ones included, and each
     * touched triangle gives the first tetrahedron on it (SOFA's
     * getTetrahedraAroundTriangle(t)[0]). Along the same path the touched
     * triangles are the same faces, (4 5 7), (0 5 7), (0 1 7), each then on
     * one tetrahedron only: T4, T1, T0 at steps 18, 37, 87 as through the
     * surface. (0 5 7) and (0 1 7) are inner triangles from the start, on
     * two tetrahedra, but come within reach (z < 0.955, z < 0.455) only
     * after T4 (T1) above them went; the other inner ones, (0 k 7) for k =
     * 2, 3, 4, 6, are 0.354 away (plane y = x) or have the tool's
     * projection outside them (then SOFA's test gives no output). */
    st_scene *s = load_xml(ROOT("0.5", "0.045") "<CarvingManager active='true'/><Node name='Cube'>"
                           CUBE_VOLUME(CUBE_POINTS, CUBE_TETRAS)
                           "<TriangleCollisionModel tags='CarvingSurface'/></Node>"
                           MOVING_TOOL("0.75", "0.25") "</Node>");
    static const int at[] = {18, 37, 87};
    static const size_t want[] = {5, 4, 3};
    run(s, 1, 130, at, want, 3);
    static const unsigned tet87[] = {0, 2, 1, 5, 0, 4, 5, 1, 0, 2, 5, 3};
    topo_assert_tuples(arr(s, "Volume", "tetrahedra"), 4, tet87, 3, "after step 87");
    st_scene_destroy(&s);
}

/* A scene of two unit hexahedra side by side (points x + 3 y + 6 z), H0
 * (0 1 4 3 6 7 10 9) and H1 (1 2 5 4 7 8 11 10), a child node `carved`
 * written in, and the usual tool coming down at (tool_x, tool_y). */
static st_scene *load_block(const char *carved, double tool_x, double tool_y)
{
    static char xml[4096];
    snprintf(xml, sizeof xml,
             ROOT("0.5", "0.045") "<CarvingManager active='true'/>"
             "<Node name='Block'>"
             "<MechanicalObject name='dofs' position='0 0 0 1 0 0 2 0 0 0 1 0 1 1 0 2 1 0 "
             "0 0 1 1 0 1 2 0 1 0 1 1 1 1 1 2 1 1'/>"
             "<HexahedronSetTopologyContainer name='Hexas' position='@dofs.position' "
             "hexahedra='0 1 4 3 6 7 10 9 1 2 5 4 7 8 11 10'/>"
             "<HexahedronSetTopologyModifier/>"
             "%s</Node>" MOVING_TOOL("%g", "%g") "</Node>",
             carved, tool_x, tool_y);
    return load_xml(xml);
}

static size_t nhexa(st_scene *s) { return arr(s, "Hexas", "hexahedra")->n; }

Test(carving, hexahedra_through_their_surface_quads)
{
    /* Two unit hexahedra side by side, points x + 3 y + 6 z; H0 (0 1 4 3 6 7
     * 10 9), H1 (1 2 5 4 7 8 11 10); Hexa2QuadTopologicalMapping gives the
     * 10 border quads, a TriangleCollisionModel splits each in two. The tool
     * comes down at (0.3, 0.6): H0's top quad (6 7 10 9) is at z - 1 (the
     * point is inside one of its two triangles, off the diagonal), the others
     * 0.3 or more away: at step 18 (z = 1.14 < 1.145) the triangle gives
     * quad index / 2, the quad its hexahedron H0, which goes with its four
     * points at x = 0; H1, exposed at x = 1 (0.7 away), stays. */
    st_scene *s = load_block("<Node name='Surface'>"
                             "<QuadSetTopologyContainer name='Quads'/><QuadSetTopologyModifier/>"
                             "<Hexa2QuadTopologicalMapping input='@../Hexas' output='@Quads'/>"
                             "<TriangleCollisionModel tags='CarvingSurface'/></Node>",
                             0.3, 0.6);
    cr_assert_eq(arr(s, "Quads", "quads")->n, 10);
    changes_at(s, "Hexas", "hexahedra", 18, 2, 1);
    assert_h1_left(s);
    cr_assert_eq(arr(s, "Quads", "quads")->n, 6, "H1's six faces");
    steps(s, 19, 130);
    cr_assert_eq(arr(s, "Hexas", "hexahedra")->n, 1, "nothing more goes");
    st_scene_destroy(&s);
}

/* "The first tetrahedron on a triangle" is SOFA's first of the triangle's
 * TetrahedraAroundTriangle shell: built at init in increasing index, a
 * removal erases the removed tetrahedron and renames the moved last one in
 * place. The cube's six tetrahedra come after an isolated one, I (points
 * 8-11, far away): I T0 T1 T2 T3 T4 T5 at 0-6. The inner triangle
 * (0 4 7) is on T4 (index 5) and T5 (index 6): its shell is [5, 6].
 * Removing I moves T5 (the last) to index 0: the shell reads [5, 0]. The
 * tool, a fixed sphere of radius 0.01 at the triangle's centre
 * (1/3, 1/3, 2/3) in the plane y = x, is 0.236 or more from every other
 * triangle (the planes z = x and z = y, x = 0, y = 0, z = 1) and
 * alarmDistance is 0.05: the triangle model on the volume container itself
 * touches (0 4 7) only. Switched on, the manager removes SOFA's first of
 * the shell, T4 (index 5), not the lowest index, T5 (now 0). */
Test(carving, first_tetrahedron_of_the_shell_as_sofa_orders_it)
{
    st_error err = {0};
    st_scene *s = load_xml(
        ROOT("0.05", "0.01") "<CarvingManager/><Node name='Cube'>"
        CUBE_VOLUME(CUBE_POINTS " 5 0 0 6 0 0 5 1 0 5 0 1", "8 9 10 11 " CUBE_TETRAS)
        "<TriangleCollisionModel name='tri' tags='CarvingSurface'/></Node>"
        "<Node name='Tool'>" TOOL_SOLVER
        "<MechanicalObject position='0.3333333333333333 0.3333333333333333 "
        "0.6666666666666666'/><UniformMass totalMass='1'/>"
        "<FixedProjectiveConstraint fixAll='true'/>"
        "<SphereCollisionModel name='sphere' radius='0.01' tags='CarvingTool'/></Node></Node>");
    /* inactive: nothing goes */
    step(s);
    cr_assert_eq(ntetra(s), 7);
    static const unsigned iso[] = {0};
    cr_assert_eq(st_topology_remove(test_find_object(s, "Volume"), ST_ELEM_TETRAHEDRON, iso, 1,
                                    &err),
                 ST_OK, "%s", err.msg);
    static const unsigned tet6[] = {0, 4, 7, 6, 0, 1, 3, 7, 0, 1, 7, 5,
                                    0, 2, 7, 3, 0, 2, 6, 7, 0, 4, 5, 7};
    topo_assert_tuples(arr(s, "Volume", "tetrahedra"), 4, tet6, 6, "after removing I");
    cr_assert_eq(arr(s, "dofs", "position")->n, 8, "I's points went");
    st_input_event ev = {.struct_size = sizeof ev, .kind = ST_INPUT_KEY_PRESSED, .key = '4'};
    st_node_send_input(st_scene_root(s), &ev);
    step(s);
    /* T4 (index 5, the last) went: nothing moved */
    static const unsigned tet5[] = {0, 4, 7, 6, 0, 1, 3, 7, 0, 1, 7, 5, 0, 2, 7, 3, 0, 2, 6, 7};
    topo_assert_tuples(arr(s, "Volume", "tetrahedra"), 4, tet5, 5, "after the carving step");
    st_scene_destroy(&s);
}

Test(carving, center_points_remove_their_hexahedra)
{
    /* CenterPointTopologicalMapping: output point i is hexahedron i's
     * centre (SOFA's getGlobIndex and getFromIndex give i back). A sphere
     * of radius 0.1 on each centre, (0.5 0.5 0.5) and (1.5 0.5 0.5), is the
     * carved model; the tool comes down at x = 0.5: the value of the pair
     * (centre distance minus the radii 0.2 and 0.045) is negative from
     * z < 0.745 on, z = 0.74 at step 58. H0 goes with its four points at
     * x = 0, its centre with it; H1 stays (the tool passes 1 away). */
    st_scene *s = load_block("<Node name='Centres'>"
                             "<PointSetTopologyContainer name='Points'/>"
                             "<PointSetTopologyModifier/>"
                             "<CenterPointTopologicalMapping input='@../Hexas' output='@Points'/>"
                             "<MechanicalObject name='centres' position='0.5 0.5 0.5 1.5 0.5 "
                             "0.5'/>"
                             "<SphereCollisionModel radius='0.1' tags='CarvingSurface'/></Node>",
                             0.5, 0.5);
    changes_at(s, "Hexas", "hexahedra", 58, 2, 1);
    assert_h1_left(s);
    const st_array *c = arr(s, "centres", "position");
    cr_assert_eq(c->n, 1, "H0's centre went");
    cr_assert_float_eq(c->r[0], 1.5, 1e-12, "H1's centre is left");
    steps(s, 59, 130);
    cr_assert_eq(nhexa(s), 1);
    st_scene_destroy(&s);
}

Test(carving, mesh2point_points_remove_their_source_elements)
{
    /* Mesh2PointTopologicalMapping with one point per hexahedron at (0.5
     * 0.5 0.5), its centre: SOFA's getGlobIndex gives the point's source
     * element (pointSource), getFromIndex the same index; the hexahedra's
     * modifier removes it. The same path as the centre points above: H0
     * goes at step 58, and the mapping removes the point made from it. */
    st_scene *s = load_block("<Node name='Centres'>"
                             "<PointSetTopologyContainer name='Points'/>"
                             "<PointSetTopologyModifier/>"
                             "<Mesh2PointTopologicalMapping name='m2p' input='@../Hexas' "
                             "output='@Points' hexaBaryCoords='0.5 0.5 0.5'/>"
                             "<MechanicalObject name='centres' position='0.5 0.5 0.5 1.5 0.5 "
                             "0.5'/>"
                             "<SphereCollisionModel radius='0.1' tags='CarvingSurface'/></Node>",
                             0.5, 0.5);
    changes_at(s, "Hexas", "hexahedra", 58, 2, 1);
    assert_h1_left(s);
    const st_array *c = arr(s, "centres", "position");
    cr_assert_eq(c->n, 1, "H0's centre went");
    cr_assert_float_eq(c->r[0], 1.5, 1e-12, "H1's centre is left");
    static const unsigned src[] = {5, 0};
    topo_assert_tuples(arr(s, "m2p", "pointSource"), 1, src, 2, "the centre names H1, now 0");
    steps(s, 59, 130);
    cr_assert_eq(nhexa(s), 1);
    st_scene_destroy(&s);
}

Test(carving, subset_elements_remove_their_source_elements)
{
    /* SubsetTopologicalMapping: the carved triangles are those of a subset
     * holding T4 (0 4 5 7) and T1 (0 1 7 5), on the cube's own points;
     * SOFA's getGlobIndex gives tetrahedronD2S of the subset's tetrahedron
     * on the touched triangle. Along the usual path: (4 5 7) at step 18,
     * subset tetrahedron 0, T4 of the cube; then (0 5 7), on T1 alone in
     * the subset from then on, at step 37: T1 (its index 1 in the cube:
     * T5, the last, had moved into T4's place 4). (0 1 7) is no face of
     * the subset, emptied: nothing more goes; the cube keeps T0 T5 T2 T3,
     * as in the first test after step 37. */
    st_scene *s = load_xml(ROOT("0.5", "0.045") "<CarvingManager active='true'/><Node name='Cube'>"
                           CUBE_VOLUME(CUBE_POINTS, CUBE_TETRAS)
                           "<Node name='Part'>"
                           "<TetrahedronSetTopologyContainer name='Sub' tetrahedra='0 4 5 7 0 1 "
                           "7 5'/><TetrahedronSetTopologyModifier/>"
                           "<SubsetTopologicalMapping name='map' input='@../Volume' "
                           "output='@Sub' samePoints='true' handleTetrahedra='true'/>"
                           "<TriangleCollisionModel tags='CarvingSurface'/></Node></Node>"
                           MOVING_TOOL("0.75", "0.25") "</Node>");
    static const unsigned d2s[] = {4, 1};
    topo_assert_tuples(arr(s, "map", "tetrahedronD2S"), 1, d2s, 2, "at init");
    static const int at[] = {18, 37};
    static const size_t want[] = {5, 4};
    run(s, 1, 130, at, want, 2);
    static const unsigned tet37[] = {0, 1, 3, 5, 0, 4, 5, 6, 0, 2, 5, 3, 0, 2, 6, 5};
    topo_assert_tuples(arr(s, "Volume", "tetrahedra"), 4, tet37, 4, "after step 37");
    cr_assert_eq(arr(s, "Sub", "tetrahedra")->n, 0, "the subset is empty");
    st_scene_destroy(&s);
}

Test(carving, pair_that_nothing_integrates_still_carves)
{
    /* Neither the cube nor the tool has an ODE solver: settee makes no
     * contact for the pair (nothing would integrate it), but SOFA's broad
     * and narrow phases give it all the same (both models are simulated,
     * SOFA's flag) and the manager reads it. The static tool, a sphere of
     * radius 0.1 at (0.75, 0.25, 1.05), is 0.05 above the top triangle
     * (4 5 7), within 0.1 + 0.045: T4 goes at the first step, then nothing
     * (the faces T4 exposed, (0 5 7) and (0 4 7), are 0.21 and 0.35 away). */
    st_scene *s = load_xml(ROOT("0.5", "0.045") "<CarvingManager active='true'/><Node name='Cube'>"
                           CUBE_VOLUME(CUBE_POINTS, CUBE_TETRAS)
                           "<TriangleCollisionModel tags='CarvingSurface'/></Node>"
                           "<Node name='Tool'><MechanicalObject position='0.75 0.25 1.05'/>"
                           "<SphereCollisionModel radius='0.1' tags='CarvingTool'/></Node></Node>");
    static const int at[] = {1};
    static const size_t want[] = {5};
    run(s, 1, 10, at, want, 1);
    static const unsigned tet5[] = {0, 1, 3, 7, 0, 1, 7, 5, 0, 2, 7, 3, 0, 2, 6, 7, 0, 4, 7, 6};
    topo_assert_tuples(arr(s, "Volume", "tetrahedra"), 4, tet5, 5, "after step 1");
    st_scene_destroy(&s);
}

Test(carving, tube_quads_remove_their_edges)
{
    /* Edge2QuadTopologicalMapping: a tube of radius 0.2, four points per
     * circle (input point i's circle: points 4 i + j at angle j 90
     * degrees, j = 0 on +y, j = 1 on +z), around the edges (0 1) and (1 2)
     * of three Rigid3d frames on x; a triangle model on its quads. The
     * quad of edge 0 between j = 0 and 1 lies in the plane y + z = 0.2.
     * The tool comes down at (0.3, 0.2): its distance to that plane is
     * z / sqrt 2, the foot (0.3, 0.2 - z / 2, z / 2) inside the quad, and
     * it goes below 0.1 + 0.045 at z = 0.2, step 112 (0.21 at step 111 is
     * 0.1485 away); the neighbouring quads' planes give feet outside them
     * (no output). The quad's circle points lie on input points 0 and 1:
     * edge 0 goes (SOFA's Loc2Glob), with its four quads; edge (1 2) and
     * its quads stay, and nothing more goes. */
    st_scene *s = load_xml(
        ROOT("0.5", "0.045") "<CarvingManager active='true'/><Node name='B'>"
        "<EdgeSetTopologyContainer name='edges' edges='0 1 1 2'/>"
        "<EdgeSetTopologyModifier/>"
        "<MechanicalObject name='frames' template='Rigid3d' position='0 0 0 0 0 0 1 "
        "1 0 0 0 0 0 1 2 0 0 0 0 0 1'/>"
        "<Node name='T'><QuadSetTopologyContainer name='quads'/><QuadSetTopologyModifier/>"
        "<MechanicalObject name='tube'/>"
        "<Edge2QuadTopologicalMapping input='@../edges' output='@quads' "
        "nbPointsOnEachCircle='4' radius='0.2'/>"
        "<TriangleCollisionModel tags='CarvingSurface'/></Node></Node>"
        MOVING_TOOL("0.3", "0.2") "</Node>");
    cr_assert_eq(arr(s, "quads", "quads")->n, 8);
    const st_array *e = changes_at(s, "edges", "edges", 112, 2, 1);
    const st_array *f = arr(s, "frames", "position");
    /* the edge left joins the frames at x = 1 and x = 2 */
    cr_assert_float_eq(f->r[7 * e->u[0]] + f->r[7 * e->u[1]], 3.0, 1e-12, "edge (1 2) is left");
    cr_assert_eq(arr(s, "quads", "quads")->n, 4, "its four quads");
    steps(s, 113, 160);
    cr_assert_eq(arr(s, "edges", "edges")->n, 1);
    st_scene_destroy(&s);
}

Test(carving, first_hexahedron_of_the_shell_as_sofa_orders_it)
{
    /* The same with hexahedra (SOFA's getHexahedraAroundQuad(q)[0]): an
     * isolated hexahedron I (points 12-19, at x = 5..6) before HA (x in
     * [0, 1]) and HB (x in [1, 2]), which share the quad x = 1: its shell
     * [1, 2] reads [1, 0] once I is removed (HB moved into I's place). A
     * fixed sphere of radius 0.01 at (1, 0.25, 0.5), on that quad off its
     * diagonals and 0.25 or more from every other quad (alarmDistance
     * 0.05), touches one of its two triangles: the manager removes HA,
     * the first of the shell, not HB, now the lowest index. */
    st_error err = {0};
    st_scene *s = load_xml(
        ROOT("0.05", "0.01") "<CarvingManager/><Node name='Block'>"
        "<MechanicalObject name='dofs' position='0 0 0 1 0 0 2 0 0 0 1 0 1 1 0 2 1 0 0 0 1 1 0 "
        "1 2 0 1 0 1 1 1 1 1 2 1 1 5 0 0 6 0 0 5 1 0 6 1 0 5 0 1 6 0 1 5 1 1 6 1 1'/>"
        "<HexahedronSetTopologyContainer name='Hexas' position='@dofs.position' "
        "hexahedra='12 13 15 14 16 17 19 18 0 1 4 3 6 7 10 9 1 2 5 4 7 8 11 10'/>"
        "<HexahedronSetTopologyModifier/>"
        "<TriangleCollisionModel tags='CarvingSurface'/></Node>"
        "<Node name='Tool'>" TOOL_SOLVER "<MechanicalObject position='1 0.25 0.5'/>"
        "<UniformMass totalMass='1'/><FixedProjectiveConstraint fixAll='true'/>"
        "<SphereCollisionModel radius='0.01' tags='CarvingTool'/></Node></Node>");
    step(s);
    cr_assert_eq(nhexa(s), 3, "inactive");
    static const unsigned iso[] = {0};
    cr_assert_eq(st_topology_remove(test_find_object(s, "Hexas"), ST_ELEM_HEXAHEDRON, iso, 1,
                                    &err),
                 ST_OK, "%s", err.msg);
    static const unsigned h2[] = {1, 2, 5, 4, 7, 8, 11, 10, 0, 1, 4, 3, 6, 7, 10, 9};
    topo_assert_tuples(arr(s, "Hexas", "hexahedra"), 8, h2, 2, "after removing I");
    st_input_event ev = {.struct_size = sizeof ev, .kind = ST_INPUT_KEY_PRESSED, .key = '4'};
    st_node_send_input(st_scene_root(s), &ev);
    step(s);
    /* HA went with its four points at x = 0: HB is left, its corners x >= 1 */
    assert_h1_left(s);
    st_scene_destroy(&s);
}

Test(carving, shell_order_after_an_addition)
{
    /* An added tetrahedron joins the end of its faces' shells. The cube's
     * six tetrahedra; (0 4 7)'s shell is [4, 5] (T4, T5). Removing T4
     * moves T5 to 4: [4]; adding T4' (0 4 5 7) again appends 5: [4, 5];
     * removing T0 moves T4' (the last) to 0: [4, 0]. The fixed tool at the
     * triangle's centre, switched on, removes T5 (index 4, the first of
     * the shell), not T4' (index 0, the lowest). */
    st_error err = {0};
    st_scene *s = load_xml(
        ROOT("0.05", "0.01") "<CarvingManager/><Node name='Cube'>"
        CUBE_VOLUME(CUBE_POINTS, CUBE_TETRAS) "<TriangleCollisionModel tags='CarvingSurface'/>"
        "</Node><Node name='Tool'>" TOOL_SOLVER
        "<MechanicalObject position='0.3333333333333333 0.3333333333333333 "
        "0.6666666666666666'/><UniformMass totalMass='1'/>"
        "<FixedProjectiveConstraint fixAll='true'/>"
        "<SphereCollisionModel radius='0.01' tags='CarvingTool'/></Node></Node>");
    st_component *vol = test_find_object(s, "Volume");
    static const unsigned t4[] = {4}, t0[] = {0}, again[] = {0, 4, 5, 7};
    cr_assert_eq(st_topology_remove(vol, ST_ELEM_TETRAHEDRON, t4, 1, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_topology_add(vol, ST_ELEM_TETRAHEDRON, again, 1, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_topology_remove(vol, ST_ELEM_TETRAHEDRON, t0, 1, &err), ST_OK, "%s", err.msg);
    static const unsigned tet5[] = {0, 4, 5, 7, 0, 1, 7, 5, 0, 2, 7, 3, 0, 2, 6, 7, 0, 4, 7, 6};
    topo_assert_tuples(arr(s, "Volume", "tetrahedra"), 4, tet5, 5, "after the changes");
    st_input_event ev = {.struct_size = sizeof ev, .kind = ST_INPUT_KEY_PRESSED, .key = '4'};
    st_node_send_input(st_scene_root(s), &ev);
    step(s);
    topo_assert_tuples(arr(s, "Volume", "tetrahedra"), 4, tet5, 4, "T5 went");
    st_scene_destroy(&s);
}

Test(carving, identity_mapping_is_refused_with_sofa_s_reason)
{
    /* IdentityTopologicalMapping keeps no index map in SOFA: its
     * getGlobIndex gives 0 for every element, and SOFA's manager removes
     * element 0 of the input whatever the tool touched. settee removes
     * nothing there and says why, once: the top triangle (4 5 7) is
     * reached at step 18 as in the first test, and the six tetrahedra
     * stay. */
    st_scene *s = load_xml(ROOT("0.5", "0.045") "<CarvingManager active='true'/><Node name='Cube'>"
                           CUBE_VOLUME(CUBE_POINTS, CUBE_TETRAS)
                           "<Node name='Copy'><TetrahedronSetTopologyContainer name='Same' "
                           "tetrahedra='" CUBE_TETRAS "'/><TetrahedronSetTopologyModifier/>"
                           "<IdentityTopologicalMapping input='@../Volume' output='@Same'/>"
                           "<TriangleCollisionModel tags='CarvingSurface'/></Node></Node>"
                           MOVING_TOOL("0.75", "0.25") "</Node>");
    test_log_clear(&T);
    run(s, 1, 40, NULL, NULL, 0);
    cr_assert(strstr(T.log, "IdentityTopologicalMapping") && strstr(T.log, "element 0"), "%s",
              T.log);
    cr_assert_eq(ntetra(s), 6);
    st_scene_destroy(&s);
}
