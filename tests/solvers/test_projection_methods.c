/* test_projection_methods.c - LinearSystem's MatrixProjectionMethod and
 * ConstantSparsityProjectionMethod: the mapped stiffness projected into the
 * implicit system (a closed form through a SubsetMapping), the same
 * trajectory with either method or none through a non-linear RigidMapping,
 * and the check of their two states. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(projection_methods, .init = setup, .fini = teardown);

static st_scene *load(const char *yaml)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&T, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, T.log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s %s\n%s", err.path, err.msg, T.log);
    return s;
}

/* Two particles of mass 2; the second, through a SubsetMapping, on a rest
 * spring k = 100 to the origin, 1 away. One implicit Euler step, dt 0.1,
 * v0 = 0: (m + dt^2 k) v1 = -dt k d, so v1 = -10/3 and x1 = 2/3 (without
 * the projected stiffness in the matrix it would be v1 = -5, x1 = 0.5). */
static const char *subset_scene(const char *method)
{
    static char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: 0.1\n"
             "  gravity: [0, 0, 0]\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.LinearSystem,\n"
             "        Sofa.Component.ODESolver.Backward, Sofa.Component.LinearSolver.Direct,\n"
             "        Sofa.Component.Mass, Sofa.Component.Mapping.Linear,\n"
             "        Sofa.Component.SolidMechanics.Spring]}\n"
             "  children:\n"
             "    - name: rest\n"
             "      objects:\n"
             "        - MechanicalObject: {name: origin, position: [[0, 0, 0]]}\n"
             "    - name: body\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {rayleighStiffness: 0, rayleighMass: 0}\n"
             "        - SparseLDLSolver: {}\n"
             "        - MatrixLinearSystem: {}\n"
             "        - MechanicalObject: {name: dofs, position: [[0, 0, 0], [1, 0, 0]]}\n"
             "        - UniformMass: {vertexMass: 2}\n"
             "%s"
             "      children:\n"
             "        - name: tip\n"
             "          objects:\n"
             "            - MechanicalObject: {name: tipdofs}\n"
             "            - SubsetMapping: {indices: [1]}\n"
             "            - RestShapeSpringsForceField: {stiffness: [100],\n"
             "                external_rest_shape: \"@/rest/origin\", external_points: [0]}\n",
             method);
    return yaml;
}

static const char *const methods[] = {
    "",
    "        - MatrixProjectionMethod: {mechanicalStates: \"@tip/tipdofs @tip/tipdofs\"}\n",
    "        - ConstantSparsityProjectionMethod: {mechanicalStates: \"@tip/tipdofs "
    "@tip/tipdofs\"}\n",
    "        - ConstantSparsityProjectionMethod: {parallelProduct: false, areJacobiansConstant: "
    "true}\n",
};

Test(projection_methods, mapped_stiffness_is_projected_closed_form)
{
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
        st_scene *s = load(subset_scene(methods[m]));
        st_error err = {0};
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
        cr_assert(fabs(ms->velocity.r[3] + 10.0 / 3.0) < 1e-12, "method %zu: v1 = %.17g", m,
                  ms->velocity.r[3]);
        cr_assert(fabs(ms->position.r[3] - 2.0 / 3.0) < 1e-12, "method %zu: x1 = %.17g", m,
                  ms->position.r[3]);
        cr_assert_eq(ms->position.r[0], 0.0);
        st_scene_destroy(&s);
    }
}

/* A Rigid3d body spinning under gravity with two mapped points held by
 * rest springs (RigidMapping: a Jacobian that changes with the rotation,
 * and its geometric stiffness); 30 steps. */
static void run_rigid(const char *method, double *x, double *v)
{
    char yaml[3072];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.LinearSystem,\n"
             "        Sofa.Component.ODESolver.Backward, Sofa.Component.LinearSolver.Direct,\n"
             "        Sofa.Component.Mass, Sofa.Component.Mapping.NonLinear,\n"
             "        Sofa.Component.SolidMechanics.Spring]}\n"
             "  children:\n"
             "    - name: rest\n"
             "      objects:\n"
             "        - MechanicalObject: {name: anchors, position: [[0, 1, 0], [2, 0, 0]]}\n"
             "    - name: body\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
             "        - SparseLDLSolver: {}\n"
             "        - MatrixLinearSystem: {}\n"
             "        - MechanicalObject: {name: dofs, template: Rigid3d, position: "
             "[[0, 0, 0, 0, 0, 0.2, 0.9797958971132712]], velocity: [[0, 0, 0, 1, 2, 3]]}\n"
             "        - UniformMass: {totalMass: 1.5}\n"
             "%s"
             "      children:\n"
             "        - name: pts\n"
             "          objects:\n"
             "            - MechanicalObject: {name: ptdofs, position: [[1, 0, 0], [0, 1, 0.5]]}\n"
             "            - RigidMapping: {globalToLocalCoords: true}\n"
             "            - RestShapeSpringsForceField: {stiffness: [300],\n"
             "                external_rest_shape: \"@/rest/anchors\", external_points: [0, 1]}\n",
             method);
    st_scene *s = load(yaml);
    st_error err = {0};
    for (int i = 0; i < 30; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s", i, err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    memcpy(x, ms->position.r, 7 * sizeof *x);
    memcpy(v, ms->velocity.r, 6 * sizeof *v);
    st_scene_destroy(&s);
}

Test(projection_methods, constant_sparsity_equals_plain_projection)
{
    static const char *const rigid_methods[] = {
        "",
        "        - MatrixProjectionMethod: {mechanicalStates: \"@pts/ptdofs @pts/ptdofs\"}\n",
        "        - ConstantSparsityProjectionMethod: {mechanicalStates: \"@pts/ptdofs "
        "@pts/ptdofs\"}\n"};
    double x0[7], v0[6];
    run_rigid(rigid_methods[0], x0, v0);
    /* The springs moved the body away from its free flight. */
    cr_assert(fabs(x0[0]) + fabs(x0[1]) + fabs(x0[2]) > 1e-3);
    for (size_t m = 1; m < 3; m++) {
        double x[7], v[6];
        run_rigid(rigid_methods[m], x, v);
        cr_assert_eq(memcmp(x, x0, sizeof x), 0, "method %zu: positions differ", m);
        cr_assert_eq(memcmp(v, v0, sizeof v), 0, "method %zu: velocities differ", m);
    }
}

Test(projection_methods, states_must_be_two_links_to_states)
{
    static const char *const bad[] = {
        "        - ConstantSparsityProjectionMethod: {mechanicalStates: \"@tip/tipdofs\"}\n",
        "        - ConstantSparsityProjectionMethod: {mechanicalStates: \"@tip/tipdofs "
        "@tip/nothing\"}\n"};
    for (size_t k = 0; k < 2; k++) {
        st_scene *s = NULL;
        st_error err = {0};
        st_status st = test_load_string(&T, subset_scene(bad[k]), &s, &err);
        if (st == ST_OK) {
            st = st_scene_init(s, &err);
            st_scene_destroy(&s);
        }
        cr_assert_neq(st, ST_OK, "case %zu", k);
        cr_assert(strstr(err.msg, k ? "is not a link to a MechanicalObject" : "two states"),
                  "case %zu: %s", k, err.msg);
    }
}
