/* test_fem_mixed_states.c - an elastic FEM body integrated together with a
 * Rigid3d state that comes first in the system: the derivative vectors
 * (dx, df) of the body start at its derivative offset, not at its
 * coordinate offset (they differ by one per rigid frame before it). The
 * body's trajectory must be the one it has alone, to the round-off of the
 * longer CG dot products. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

#define STEPS 5

/* The body (a small cantilever) under an implicit CG solver in the root,
 * with or without a falling Rigid3d frame first. */
static void body_positions(const char *fem, bool tet, bool rigid_first, double *x, size_t *n)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, "
             "Mass, Topology,\n"
             "        SolidMechanics.FEM.Elastic, Constraint.Projective, Engine.Select]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - EulerImplicitSolver: {}\n"
             "    - CGLinearSolver: {iterations: 500, tolerance: 1e-24, threshold: 1e-30}\n"
             "    - RegularGridTopology: {name: grid, n: [3, 3, 5], min: [0, 0, 0], max: [1, 1, 2]}\n"
             "  children:\n"
             "%s"
             "    - name: Body\n"
             "      objects:\n"
             "        - MechanicalObject: {name: dofs, position: \"@../grid.position\"}\n"
             "%s"
             "        - UniformMass: {totalMass: 1}\n"
             "        - BoxROI: {name: box, box: [-0.1, -0.1, -0.1, 1.1, 1.1, 0.01]}\n"
             "        - FixedProjectiveConstraint: {indices: \"@box.indices\"}\n"
             "        - %s: {name: fem, youngModulus: 500, poissonRatio: 0.3, method: large}\n",
             rigid_first ? "    - name: Frame\n"
                           "      objects:\n"
                           "        - MechanicalObject: {name: frame, template: Rigid3d, position: "
                           "[0, 3, 0, 0, 0, 0, 1, 2, 3, 0, 0, 0.6, 0, 0.8]}\n"
                           "        - UniformMass: {vertexMass: [2, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1]}\n"
                         : "",
             tet ? "        - TetrahedronSetTopologyContainer: {name: tetras}\n"
                   "        - TetrahedronSetTopologyModifier: {}\n"
                   "        - Hexa2TetraTopologicalMapping: {input: \"@../grid\", output: \"@tetras\"}\n"
                 : "        - HexahedronSetTopologyContainer: {name: hexas, src: \"@../grid\"}\n",
             fem);
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s\n%s", err.msg, yaml);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s\n%s", err.msg, t.log);
    for (int i = 0; i < STEPS; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    *n = 3 * ms->n;
    memcpy(x, ms->position.r, *n * sizeof *x);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void same_with_a_rigid_first(const char *fem, bool tet)
{
    static double a[3 * 45], b[3 * 45];
    size_t na = 0, nb = 0;
    body_positions(fem, tet, false, a, &na);
    body_positions(fem, tet, true, b, &nb);
    cr_assert_eq(na, nb);
    double d = 0, m = 0;
    for (size_t i = 0; i < na; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        m = fmax(m, fabs(a[i]));
    }
    cr_log_info("%s: max difference %.3g", fem, d);
    cr_assert_lt(a[3 * 44 + 1], 0.99, "%s: the free end sags (%g)", fem, a[3 * 44 + 1]);
    cr_assert_leq(d, 1e-12 * m, "%s: the body moves otherwise with a Rigid3d state first (%.3g)",
                  fem, d);
}

Test(fem_mixed_states, tetrahedron_fem) { same_with_a_rigid_first("TetrahedronFEMForceField", true); }
Test(fem_mixed_states, tetrahedral_corotational)
{
    same_with_a_rigid_first("TetrahedralCorotationalFEMForceField", true);
}
Test(fem_mixed_states, fast_tetrahedral_corotational)
{
    same_with_a_rigid_first("FastTetrahedralCorotationalForceField", true);
}
Test(fem_mixed_states, hexahedron_fem) { same_with_a_rigid_first("HexahedronFEMForceField", false); }
Test(fem_mixed_states, hexahedral_fem) { same_with_a_rigid_first("HexahedralFEMForceField", false); }
