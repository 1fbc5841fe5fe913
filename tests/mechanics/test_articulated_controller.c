/* test_articulated_controller.c - ArticulatedHierarchyController, the
 * keyboard and mouse driver of articulation values, fed events the way a
 * device driver or Python does (articulated_controller_key_pressed and
 * articulated_controller_mouse; the controller's source is compiled in): a
 * binding key selects its articulation (another key or the same one
 * deselects it), a held button moves the selected value by +-angleDelta
 * each step, a wheel turn by 2 angleDelta once; with
 * propagateUserInteraction the increment is shared with the child center's
 * articulation of the same axis; the mapped bodies follow; a binding key
 * of two characters is refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "articulated.h"
#include "internal.h"
#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(articulated_controller, .init = setup, .fini = teardown);

/* A planar two-link arm (angles 0 and 1 about z at centers c1 and c2),
 * controlled from node P. */
static const char *arm(const char *keys, const char *propagate)
{
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: 0.01\n"
             "  gravity: [0, 0, 0]\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ArticulatedSystemPlugin,"
             " Sofa.Component.ODESolver.Backward, Sofa.Component.LinearSolver.Iterative]}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 50, tolerance: 1e-12, threshold: 1e-20}\n"
             "        - MechanicalObject: {name: angles, template: Vec1d, position: [0, 0]}\n"
             "        - ArticulatedHierarchyContainer: {}\n"
             "        - ArticulatedHierarchyController: {name: ctl, articulationsIndices: [0, 1],"
             " bindingKeys: %s, angleDelta: 0.1, propagateUserInteraction: %s}\n"
             "      children:\n"
             "        - name: C\n"
             "          objects:\n"
             "            - MechanicalObject: {name: out, template: Rigid3d, position: ["
             "0,0,0, 0,0,0,1,  0,0,0, 0,0,0,1,  0,0,0, 0,0,0,1]}\n"
             "            - ArticulatedSystemMapping: {input1: \"@../angles\", output: \"@out\"}\n"
             "        - name: c1\n"
             "          objects:\n"
             "            - ArticulationCenter: {parentIndex: 0, childIndex: 1,"
             " posOnParent: [0, 0, 0], posOnChild: [-1, 0, 0]}\n"
             "          children:\n"
             "            - name: a\n"
             "              objects:\n"
             "                - Articulation: {rotation: true, axis: [0, 0, 1],"
             " articulationIndex: 0}\n"
             "        - name: c2\n"
             "          objects:\n"
             "            - ArticulationCenter: {parentIndex: 1, childIndex: 2,"
             " posOnParent: [1, 0, 0], posOnChild: [-1, 0, 0]}\n"
             "          children:\n"
             "            - name: a\n"
             "              objects:\n"
             "                - Articulation: {rotation: true, axis: [0, 0, 1],"
             " articulationIndex: 1}\n",
             keys, propagate);
    return yaml;
}

static void steps(st_scene *s, int n)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
}

static void assert_angles(st_scene *s, double a0, double a1, const char *what)
{
    const double *x = ((st_mstate *)topo_get(s, "/P/angles"))->position.r;
    cr_assert_leq(fabs(x[0] - a0) + fabs(x[1] - a1), 1e-14, "%s: angles %.17g %.17g, expected %g %g",
                  what, x[0], x[1], a0, a1);
}

Test(articulated_controller, keys_select_and_buttons_move_the_articulation)
{
    st_scene *s = topo_scene(&T, arm("[a, Z]", "false"));
    st_component *ctl = topo_get(s, "/P/ctl");
    steps(s, 2);
    assert_angles(s, 0, 0, "no event");
    articulated_controller_key_pressed(ctl, 'A'); /* binding 'a' is lower case: 'A' matches */
    steps(s, 1);
    assert_angles(s, 0, 0, "selected, no button");
    articulated_controller_mouse(ctl, ARTICULATED_MOUSE_LEFT_PRESSED, 0);
    steps(s, 3);
    assert_angles(s, 0.3, 0, "left held 3 steps");
    /* The mapped body 1 turned by 0.3 about the base's origin. */
    const double *out = ((st_mstate *)topo_get(s, "/P/C/out"))->position.r;
    cr_assert_leq(fabs(out[7] - cos(0.3)) + fabs(out[8] - sin(0.3)), 1e-12, "body 1 %g %g",
                  out[7], out[8]);
    articulated_controller_mouse(ctl, ARTICULATED_MOUSE_LEFT_RELEASED, 0);
    steps(s, 2);
    assert_angles(s, 0.3, 0, "released");
    articulated_controller_key_pressed(ctl, 'z'); /* binding 'Z' upper: 'z' matches; 'a' off */
    articulated_controller_mouse(ctl, ARTICULATED_MOUSE_RIGHT_PRESSED, 0);
    steps(s, 2);
    assert_angles(s, 0.3, -0.2, "z selected, right held");
    articulated_controller_key_pressed(ctl, 'z'); /* again: deselected */
    steps(s, 2);
    assert_angles(s, 0.3, -0.2, "z deselected");
    articulated_controller_key_pressed(ctl, 'q'); /* not bound: nothing */
    steps(s, 1);
    assert_angles(s, 0.3, -0.2, "unbound key");
    articulated_controller_key_pressed(ctl, 'a');
    articulated_controller_mouse(ctl, ARTICULATED_MOUSE_WHEEL, -120);
    steps(s, 3);
    assert_angles(s, 0.1, -0.2, "wheel down: -2 delta, once");
    articulated_controller_mouse(ctl, ARTICULATED_MOUSE_RIGHT_PRESSED, 0);
    articulated_controller_mouse(ctl, ARTICULATED_MOUSE_RESET, 0);
    steps(s, 2);
    assert_angles(s, 0.1, -0.2, "reset: nothing selected, no button");
    st_scene_destroy(&s);
}

Test(articulated_controller, propagation_shares_the_increment_down_the_chain)
{
    st_scene *s = topo_scene(&T, arm("[a, z]", "true"));
    st_component *ctl = topo_get(s, "/P/ctl");
    articulated_controller_key_pressed(ctl, 'a');
    articulated_controller_mouse(ctl, ARTICULATED_MOUSE_LEFT_PRESSED, 0);
    steps(s, 2);
    /* c2 (parentIndex 1 = c1's childIndex) has a z rotation like c1's:
     * 0.1 / 2 to each, per step. */
    assert_angles(s, 0.1, 0.1, "propagated");
    /* From the last articulation there is no chain: the whole delta. */
    articulated_controller_key_pressed(ctl, 'z');
    steps(s, 1);
    assert_angles(s, 0.1, 0.2, "leaf");
    st_scene_destroy(&s);
}

Test(articulated_controller, a_binding_key_of_two_characters_is_refused)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T, arm("[a, zz]", "false"), &err), ST_OK);
    cr_assert(strstr(err.msg, "bindingKeys") || strstr(err.msg, "one character"), "%s", err.msg);
}
