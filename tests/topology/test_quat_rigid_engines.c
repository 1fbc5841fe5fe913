/* test_quat_rigid_engines.c - Engine.Transform's QuatToRigidEngine and
 * RigidToQuatEngine (SOFA's <Vec3d> classes whose data are rigid frames and
 * quaternions: the rigid3[] and quat[] field types), with hand-worked
 * values: frames assembled, one orientation for all, SOFA's colinear
 * projection (divided by |d|, seen with a non-unit quaternion), the size
 * warnings, Euler angles, and a round trip through a Rigid3d state. */
#include <math.h>
#include <stdio.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(quat_rigid_engines, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Transform]}\n"

#define S 0.70710678118654752440

static void assert_reals(const st_array *a, size_t n, unsigned w, const double *want,
                         const char *what)
{
    cr_assert_eq(a->n, n, "%s: %zu tuples, expected %zu", what, a->n, n);
    for (size_t i = 0; i < n * w; i++)
        cr_assert(fabs(a->r[i] - want[i]) <= 1e-14, "%s[%zu] = %.17g, expected %.17g", what, i,
                  a->r[i], want[i]);
}

Test(quat_rigid_engines, frames_from_positions_and_one_orientation)
{
    st_scene *s = topo_scene(&T, HEAD
                             "    - QuatToRigidEngine: {name: e, template: Vec3d, positions: "
                             "[[1,2,3],[4,5,6]], orientations: [[0,0,0.70710678118654752,"
                             "0.70710678118654752]]}\n");
    const double want[] = {1, 2, 3, 0, 0, S, S, 4, 5, 6, 0, 0, S, S};
    assert_reals(topo_arr(topo_get(s, "e"), "rigids"), 2, 7, want, "rigids");
    cr_assert_null(strstr(T.log, "WARN"), "no warning expected: %s", T.log);
    st_scene_destroy(&s);
}

Test(quat_rigid_engines, colinear_projection_divides_by_the_norm)
{
    /* q = (1/sqrt2, 0, 0, 1/sqrt2): z turns to (0,-1,0); p = (1,2,3) onto the
     * line through the origin: (0,2,0). q = (0,1,0,1), not unit: SOFA's
     * rotate gives d = (2,0,-1), d.p = -1, p' = d (-1/sqrt5). */
    st_scene *s = topo_scene(&T, HEAD
                             "    - QuatToRigidEngine: {name: e, position: [[1,2,3],[1,2,3]], "
                             "orientation: [[0.70710678118654752,0,0,0.70710678118654752],"
                             "[0,1,0,1]], colinearPosition: [[0,0,0],[0,0,0]]}\n");
    const double r5 = sqrt(5.0);
    const double want[] = {0, 2, 0, S, 0, 0, S, -2 / r5, 0, 1 / r5, 0, 1, 0, 1};
    assert_reals(topo_arr(topo_get(s, "e"), "rigid"), 2, 7, want, "rigids");
    st_scene_destroy(&s);
}

Test(quat_rigid_engines, size_warnings)
{
    st_scene *s = topo_scene(&T, HEAD
                             "    - QuatToRigidEngine: {name: e, positions: [[1,0,0],[2,0,0],"
                             "[3,0,0]], orientations: [[0,0,0,1],[1,0,0,0]]}\n"
                             "    - QuatToRigidEngine: {name: f, positions: [[1,0,0]]}\n");
    const double want[] = {1, 0, 0, 0, 0, 0, 1, 2, 0, 0, 1, 0, 0, 0};
    assert_reals(topo_arr(topo_get(s, "e"), "rigids"), 2, 7, want, "rigids");
    cr_assert(strstr(T.log, "Size of positions and orientations are not equal"), "%s", T.log);
    cr_assert_eq(topo_arr(topo_get(s, "f"), "rigids")->n, 0);
    cr_assert(strstr(T.log, "No orientations"), "%s", T.log);
    st_scene_destroy(&s);
}

Test(quat_rigid_engines, split_frames_and_euler_angles)
{
    /* (0,0,S,S): yaw pi/2; (S,0,0,S): roll pi/2; (0,2,0,2) normalizes to
     * (0,S,0,S): pitch pi/2, and its quaternion is given back unnormalized. */
    st_scene *s = topo_scene(&T, HEAD
                             "    - RigidToQuatEngine: {name: e, template: Vec3d, rigids: "
                             "[[1,2,3,0,0,0.70710678118654752,0.70710678118654752],"
                             "[4,5,6,0.70710678118654752,0,0,0.70710678118654752],"
                             "[7,8,9,0,2,0,2]]}\n");
    st_component *e = topo_get(s, "e");
    const double p[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const double q[] = {0, 0, S, S, S, 0, 0, S, 0, 2, 0, 2};
    const double h = 1.5707963267948966;
    const double eu[] = {0, 0, h, h, 0, 0, 0, h, 0};
    assert_reals(topo_arr(e, "positions"), 3, 3, p, "positions");
    assert_reals(topo_arr(e, "orientations"), 3, 4, q, "orientations");
    const st_array *a = topo_arr(e, "orientationsEuler");
    cr_assert_eq(a->n, 3);
    for (size_t i = 0; i < 9; i++)
        cr_assert(fabs(a->r[i] - eu[i]) <= 1e-7, "euler[%zu] = %.17g, expected %.17g", i,
                  a->r[i], eu[i]);
    st_scene_destroy(&s);
}

Test(quat_rigid_engines, round_trip_through_a_rigid_state)
{
    /* Rigid3d frames -> RigidToQuatEngine -> QuatToRigidEngine -> a second
     * Rigid3d MechanicalObject: the same frames. */
    st_scene *s = topo_scene(&T, HEAD
                             "    - MechanicalObject: {name: a, template: Rigid3d, position: "
                             "[[1,2,3,0,0,0.6,0.8],[-1,0.5,2,0.48,0.6,0,0.64]]}\n"
                             "    - RigidToQuatEngine: {name: split, rigids: '@a.position'}\n"
                             "    - QuatToRigidEngine: {name: join, positions: '@split.positions',"
                             " orientations: '@split.orientations'}\n"
                             "    - MechanicalObject: {name: b, template: Rigid3d, position: "
                             "'@join.rigids'}\n");
    const double want[] = {1, 2, 3, 0, 0, 0.6, 0.8, -1, 0.5, 2, 0.48, 0.6, 0, 0.64};
    assert_reals(topo_arr(topo_get(s, "b"), "position"), 2, 7, want, "b.position");
    assert_reals(topo_arr(topo_get(s, "join"), "rigids"), 2, 7, want, "rigids");
    st_scene_destroy(&s);
}

Test(quat_rigid_engines, a_quaternion_needs_four_values)
{
    /* SOFA's reading of "0 0 1" as quaternions: no whole one, a warning. */
    st_scene *s = topo_scene(&T, HEAD
                             "    - QuatToRigidEngine: {name: e, positions: [[1,0,0]], "
                             "orientations: '0 0 1'}\n");
    cr_assert(strstr(T.log, "'orientations' expects quat[] (4 values each)"), "%s", T.log);
    cr_assert_eq(topo_arr(topo_get(s, "e"), "rigids")->n, 0);
    cr_assert(strstr(T.log, "No orientations"), "%s", T.log);
    st_scene_destroy(&s);
}
