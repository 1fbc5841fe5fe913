/* test_triangle_model_in_regular_grid.c - TriangleModelInRegularGrid: a
 * 2x2x2 RegularGridTopology's boundary quads (Hexa2QuadTopologicalMapping)
 * cut into triangles (Quad2TriangleTopologicalMapping), with a ball of
 * radius 0.1 resting 0.05 above the top face (MinProximityIntersection,
 * contactDistance 0.1: one contact of value 0.05 - 0.1 - 0.1 = -0.15),
 * the same contact as TriangleCollisionModel's. When the surface's points
 * are the grid's scaled by 3, the model's one bounding cube is still the
 * grid's box (SOFA's): a ball on the large surface, outside that box, gets
 * no contact, where TriangleCollisionModel finds it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(triangle_model_in_regular_grid, .init = setup, .fini = teardown);

static st_scene *scene(const char *model, double scale, const double ball[3])
{
    char pos[512], yaml[8192];
    int k = 0;
    for (int i = 0; i < 8; i++)
        k += snprintf(pos + k, sizeof pos - (size_t)k, "%s[%g,%g,%g]", i ? "," : "",
                      scale * ((i & 1) ? 1 : -1), scale * ((i & 2) ? 1 : -1),
                      scale * ((i & 4) ? 1 : -1));
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, "
             "Mass,\n"
             "        Constraint.Projective, Collision, Topology]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - CollisionPipeline: {name: pipeline}\n"
             "    - BruteForceBroadPhase: {}\n"
             "    - BVHNarrowPhase: {}\n"
             "    - MinProximityIntersection: {alarmDistance: 0.3, contactDistance: 0.1}\n"
             "    - CollisionResponse: {}\n"
             "  children:\n"
             "    - name: Grid\n"
             "      objects:\n"
             "        - RegularGridTopology: {name: grid, n: [2, 2, 2], min: [-1, -1, -1], max: "
             "[1, 1, 1]}\n"
             "        - MechanicalObject: {name: gdofs}\n"
             "      children:\n"
             "        - name: Quads\n"
             "          objects:\n"
             "            - QuadSetTopologyContainer: {name: quads}\n"
             "            - QuadSetTopologyModifier: {}\n"
             "            - Hexa2QuadTopologicalMapping: {input: '@../grid', output: '@quads'}\n"
             "          children:\n"
             "            - name: Tris\n"
             "              objects:\n"
             "                - TriangleSetTopologyContainer: {name: tris}\n"
             "                - TriangleSetTopologyModifier: {}\n"
             "                - Quad2TriangleTopologicalMapping: {input: '@../quads', output: "
             "'@tris'}\n"
             "                - MechanicalObject: {name: sdofs, position: [%s]}\n"
             "                - %s: {name: surf, simulated: false, moving: false}\n"
             "    - name: Ball\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {position: [[%.17g, %.17g, %.17g]]}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - FixedProjectiveConstraint: {indices: [0]}\n"
             "        - SphereCollisionModel: {name: ball, radius: 0.1}\n",
             pos, model, ball[0], ball[1], ball[2]);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&T, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, T.log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s %s\n%s", err.path, err.msg, T.log);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    return s;
}

static const st_array *out(st_scene *s, const char *name)
{
    st_component *p = test_find_object(s, "pipeline");
    return st_component_field_ptr(p, st_component_field(p, name));
}

Test(triangle_model_in_regular_grid, same_contact_as_triangle_model)
{
    const double ball[3] = {0.3, 1.05, -0.5};
    st_scene *a = scene("TriangleModelInRegularGrid", 1, ball);
    cr_assert(strstr(T.log, "Using the RegularGridTopology \"grid\" to compute the bounding "
                            "trees."),
              "%s", T.log);
    st_scene *b = scene("TriangleCollisionModel", 1, ball);
    const st_array *da = out(a, "contactDistances"), *db = out(b, "contactDistances");
    cr_assert_eq(da->n, 1);
    cr_assert(fabs(da->r[0] + 0.15) < 1e-12, "value %.17g", da->r[0]);
    cr_assert_eq(db->n, 1);
    cr_assert_eq(da->r[0], db->r[0]);
    const st_array *pa = out(a, "contactPoints"), *pb = out(b, "contactPoints");
    cr_assert_eq(memcmp(pa->r, pb->r, 6 * sizeof(double)), 0);
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

Test(triangle_model_in_regular_grid, the_grid_box_bounds_the_model)
{
    const double ball[3] = {2, 3.05, -1.5};
    st_scene *a = scene("TriangleModelInRegularGrid", 3, ball);
    st_scene *b = scene("TriangleCollisionModel", 3, ball);
    cr_assert_eq(out(a, "contactDistances")->n, 0, "outside the grid's box: no contact");
    cr_assert_eq(out(b, "contactDistances")->n, 1);
    cr_assert(fabs(out(b, "contactDistances")->r[0] + 0.15) < 1e-12);
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

Test(triangle_model_in_regular_grid, without_topological_mapping_keeps_its_own_points)
{
    st_scene *s = NULL;
    st_error err = {0};
    const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  name: root\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [Collision, Topology]}\n"
        "    - MeshTopology: {position: [[0,0,0],[1,0,0],[0,1,0]], triangles: [[0,1,2]]}\n"
        "    - MechanicalObject: {position: [[0,0,0],[1,0,0],[0,1,0]]}\n"
        "    - TriangleModelInRegularGrid: {}\n";
    cr_assert_eq(test_load_string(&T, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    cr_assert(strstr(T.log, "Keeping the TriangleCollisionModel"), "%s", T.log);
    st_scene_destroy(&s);
}
