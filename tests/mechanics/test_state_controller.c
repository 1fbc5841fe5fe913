/* test_state_controller.c - MechanicalStateController (plugin Controller)
 * without a GUI:
 *   - on a Rigid3d body it moves nothing: a falling, spinning body follows
 *     the same trajectory, bit for bit, with and without it;
 *   - on a Vec1d state it applies SOFA's per-step rule to the rest
 *     positions (points 0 and 1 set to 0, the others left);
 *   - mainDirection is normalised; no state, a Vec1d state of one point and
 *     an index out of range are errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "scene_test_util.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(state_controller, .init = setup, .fini = teardown);

#define ROOT                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  gravity: [0, -10, 0]\n"                                                                    \
    "  dt: 0.01\n"                                                                                \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Controller, ODESolver.Backward,\n"        \
    "        LinearSolver.Direct, Mass]}\n"                                                       \
    "  children:\n"                                                                               \
    "    - name: B\n"                                                                             \
    "      objects:\n"

static void rigid_run(const char *controller, double out[7])
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             ROOT "        - EulerImplicitSolver: {}\n"
                  "        - SparseLDLSolver: {}\n"
                  "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"
                  "            position: \"0 1 0 0 0 0 1\", velocity: \"0.5 0 0 0.2 0.1 2\"}\n"
                  "        - UniformMass: {vertexMass: \"2 1 0.5 0 0 0 0.5 0 0 0 0.5\"}\n"
                  "%s",
             controller);
    st_scene *s = scene_load(&T, yaml);
    scene_steps(&T, s, 30);
    memcpy(out, scene_state(s, "dofs")->position.p, 7 * sizeof *out);
    st_scene_destroy(&s);
}

Test(state_controller, rigid_body_not_moved_without_a_mouse)
{
    double a[7], b[7];
    rigid_run("", a);
    rigid_run("        - MechanicalStateController: {name: c, template: Rigid3,"
              " onlyTranslation: true, handleEventTriggersUpdate: true}\n",
              b);
    cr_assert_lt(a[1], 0.9, "the body falls: %g", a[1]);
    for (int k = 0; k < 7; k++)
        cr_assert_eq(a[k], b[k], "coordinate %d: %.17g with the controller, %.17g without", k,
                     b[k], a[k]);
}

Test(state_controller, vec1_rest_positions_and_main_direction)
{
    st_scene *s = scene_load(&T, ROOT "        - MechanicalObject: {name: dofs, template: Vec1d,"
                                      " position: [-0.3, 0.2, 0.7]}\n"
                                      "        - MechanicalStateController: {name: c,"
                                      " mainDirection: [0, 3, 4], buttonDeviceState: true}\n");
    const double *d = scene_field(s, "c", "mainDirection");
    cr_assert(d[0] == 0.0 && fabs(d[1] - 0.6) < 1e-15 && fabs(d[2] - 0.8) < 1e-15, "%g %g %g",
              d[0], d[1], d[2]);
    scene_steps(&T, s, 1);
    const st_mstate *ms = scene_state(s, "dofs");
    cr_assert_eq(ms->rest_position.r[0], 0.0);
    cr_assert_eq(ms->rest_position.r[1], 0.0);
    cr_assert_eq(ms->rest_position.r[2], 0.7, "point 2 left alone");
    st_scene_destroy(&s);
}

Test(state_controller, refusals)
{
    scene_refused(&T, ROOT "        - MechanicalStateController: {}\n",
                  "has no binding MechanicalState");
    scene_refused(&T,
                  ROOT "        - MechanicalObject: {template: Vec1d, position: [1]}\n"
                       "        - MechanicalStateController: {}\n",
                  "has 1 point(s)");
    scene_refused(&T,
                  ROOT "        - MechanicalObject: {template: Rigid3d, position: \"0 0 0 0 0 0 1\"}\n"
                       "        - MechanicalStateController: {index: 1}\n",
                  "index 1 is out of range");
}
