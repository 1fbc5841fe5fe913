/* test_plastic_material.c - PlasticMaterial, SOFA's standalone material
 * object that no force field reads: it loads with SOFA's defaults
 * (poissonRatio 0.45, youngModulus 3000), says it has no effect, leaves a
 * hyperelastic body's trajectory unchanged to the bit, and refuses a
 * Poisson ratio where Hooke's law does not hold. */
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(plastic_material, .init = setup, .fini = teardown);

static st_scene *scene(const char *extra)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: 0.01\n"
             "  gravity: [0, -9.81, 0]\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.ODESolver.Backward,"
             " Sofa.Component.LinearSolver.Direct, Sofa.Component.Mass,"
             " Sofa.Component.SolidMechanics.FEM.HyperElastic,"
             " Sofa.Component.Topology.Container.Dynamic, Sofa.Component.Constraint.Projective]}\n"
             "  children:\n"
             "    - name: Body\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - SparseLDLSolver: {}\n"
             "        - TetrahedronSetTopologyContainer: {position: [0,0,0, 1,0,0, 0,1,0, 0,0,1,"
             " 1,1,1], tetrahedra: [0,1,2,3, 1,2,3,4]}\n"
             "        - MechanicalObject: {name: dofs}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - FixedProjectiveConstraint: {indices: [0, 1, 2]}\n"
             "        - TetrahedronHyperelasticityFEMForceField: {materialName: NeoHookean,"
             " ParameterSet: [1000, 10000]}\n"
             "%s",
             extra);
    return topo_scene(&T, yaml);
}

Test(plastic_material, defaults_warning_and_no_effect)
{
    st_scene *with = scene("        - PlasticMaterial: {name: plastic}\n");
    st_component *m = topo_get(with, "Body/plastic");
    cr_assert_eq(*(double *)st_component_field_ptr(m, st_component_field(m, "poissonRatio")),
                 0.45);
    cr_assert_eq(*(double *)st_component_field_ptr(m, st_component_field(m, "youngModulus")),
                 3000.0);
    cr_assert_not_null(strstr(T.log, "PlasticMaterial has no effect"), "log: %s", T.log);
    st_scene *without = scene("");
    st_error err = {0};
    for (int i = 0; i < 10; i++) {
        cr_assert_eq(st_scene_step(with, 0.0, &err), ST_OK, "%s", err.msg);
        cr_assert_eq(st_scene_step(without, 0.0, &err), ST_OK, "%s", err.msg);
    }
    const st_mstate *a = (const st_mstate *)topo_get(with, "Body/dofs");
    const st_mstate *b = (const st_mstate *)topo_get(without, "Body/dofs");
    cr_assert_lt(a->position.r[13], 1.0 - 1e-6, "the free vertex moves");
    cr_assert(memcmp(a->position.r, b->position.r, 15 * sizeof(double)) == 0);
    st_scene_destroy(&with);
    st_scene_destroy(&without);
}

Test(plastic_material, poisson_ratio_checked)
{
    st_error err = {0};
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\nroot:\n  name: root\n  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.SolidMechanics.FEM.HyperElastic]}\n"
             "    - PlasticMaterial: {poissonRatio: 0.5}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert_not_null(strstr(err.msg, "outside (-1, 0.5)"), "%s", err.msg);
}
