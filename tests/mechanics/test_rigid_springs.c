/* test_rigid_springs.c - SpringForceField on Rigid3d states (SOFA's
 * SpringForceField<Rigid3>): the springs join the frames' origins and apply
 * no torque, so two frames joined by a spring move exactly as two Vec3d
 * points with the same springs and masses, their orientations untouched; in
 * the explicit, CG and direct-solver paths. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "support.h"

static void run(const char *tpl, const char *solvers, int steps, double out[2][7])
{
    const bool rigid = tpl[0] == 'R';
    const char *p1 = rigid ? "0 0 0 0.2 0 0 0.9797958971132712" : "0 0 0";
    const char *p2 = rigid ? "2 0.5 0 0 0 0 1" : "2 0.5 0";
    const char *mass = rigid ? "        - UniformMass: {vertexMass: \"1 1 1 0 0 0 1 0 0 0 1\"}\n"
                             : "        - UniformMass: {vertexMass: 1}\n";
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  dt: 0.01\n"
             "  gravity: [0, -1, 0]\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, ODESolver.Backward, Mass,\n"
             "                                    SolidMechanics.Spring, LinearSolver.Iterative,\n"
             "                                    LinearSolver.Direct, Constraint.Projective]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "%s"
             "  children:\n"
             "    - name: a\n"
             "      objects:\n"
             "        - MechanicalObject: {name: dofs, template: %s, position: [%s]}\n"
             "%s"
             "        - FixedProjectiveConstraint: {indices: [0]}\n"
             "    - name: b\n"
             "      objects:\n"
             "        - MechanicalObject: {name: dofs, template: %s, position: [%s]}\n"
             "%s"
             "    - name: s\n"
             "      objects:\n"
             "        - SpringForceField: {object1: \"@/a/dofs\", object2: \"@/b/dofs\",\n"
             "                             spring: \"0 0 30 0.5 1.5\"}\n",
             solvers, tpl, p1, mass, tpl, p2, mass);
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    for (int i = 0; i < steps; i++)
        cr_assert_eq(st_scene_step(s, 0.0, &err), ST_OK, "%s", err.msg);
    st_mstate *st[2];
    cr_assert_eq(st_scene_states(s, st, 2), 2);
    for (int k = 0; k < 2; k++)
        for (unsigned j = 0; j < st[k]->type->coord_size; j++)
            out[k][j] = st[k]->position.r[j];
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void compare(const char *solvers)
{
    double r[2][7], v[2][7];
    run("Rigid3d", solvers, 60, r);
    run("Vec3d", solvers, 60, v);
    /* the free frame moved: the spring (rest 1.5, length ~2.06) and gravity */
    cr_assert(fabs(r[1][0] - 2.0) > 1e-3 && fabs(r[1][1] - 0.5) > 1e-3, "%g %g", r[1][0],
              r[1][1]);
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 3; j++)
            cr_assert(fabs(r[k][j] - v[k][j]) <= 1e-12 * (1 + fabs(v[k][j])),
                      "%s: state %d axis %d: rigid %.17g, vec %.17g", solvers, k, j, r[k][j],
                      v[k][j]);
    /* no torque: the orientations stay what they were */
    cr_assert(fabs(r[0][3] - 0.2) < 1e-15 && fabs(r[0][6] - 0.9797958971132712) < 1e-15);
    cr_assert(fabs(r[1][3]) < 1e-15 && fabs(r[1][6] - 1.0) < 1e-15, "%g %g", r[1][3], r[1][6]);
}

Test(rigid_springs, explicit_matches_vec3d)
{
    compare("    - EulerExplicitSolver: {symplectic: true}\n");
}

Test(rigid_springs, cg_matches_vec3d)
{
    compare("    - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
            "    - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-20}\n");
}

Test(rigid_springs, direct_matches_vec3d)
{
    compare("    - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
            "    - SparseLDLSolver: {}\n");
}
