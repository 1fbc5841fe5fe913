/* test_mapped_beam.c - the 4x4x11 spring beam of the seeds with its springs
 * in a mapped child node (IdentityMapping, then BarycentricMapping onto the
 * same points): the parent-only beam's trajectory to 1e-12 with an explicit
 * solver, matrix-free CG, assembled CG and SparseLDLSolver, without
 * allocating after the second step; mapForces false cuts the child off. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(mapped_beam, .init = setup, .fini = teardown);

#define GRID                                                                                       \
    "RegularGridTopology: {nx: 4, ny: 4, nz: 11, xmin: -1.5, xmax: 1.5, ymin: -1.5, ymax: 1.5,"   \
    " zmin: 0, zmax: 10}"

typedef struct solver_case {
    const char *name;
    const char *ode;
    const char *ls; /* "" when none */
    double dt;
    int steps;
} solver_case;

static const solver_case CASES[] = {
    {"explicit", "EulerExplicitSolver: {symplectic: true}", "", 0.001, 200},
    {"matrix-free CG", "EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}",
     "CGLinearSolver: {iterations: 5000, tolerance: 1e-15, threshold: 1e-300}", 0.01, 20},
    {"assembled CG", "EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}",
     "CGLinearSolver: {template: CompressedRowSparseMatrixMat3x3d, iterations: 5000,"
     " tolerance: 1e-15, threshold: 1e-300}",
     0.01, 20},
    {"SparseLDLSolver", "EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}",
     "SparseLDLSolver: {template: CompressedRowSparseMatrixMat3x3d}", 0.01, 20},
};
#define NCASES (sizeof CASES / sizeof *CASES)

/* mapping: NULL for the parent-only beam, else the mapping's line (input
 * "@../dofs", output "@mapped"). */
static bool mass_in_child; /* the UniformMass lives in the mapped node too */

static char *beam_yaml(const solver_case *c, const char *mapping)
{
    char *y = malloc(8192);
    int n = snprintf(y, 8192,
                     "format: settee/1\n"
                     "root:\n"
                     "  name: root\n"
                     "  gravity: [0, -9.81, 0]\n"
                     "  dt: %g\n"
                     "  objects:\n"
                     "    - RequiredPlugin: {pluginName: [ODESolver.Backward, ODESolver.Forward,\n"
                     "        LinearSolver.Direct, LinearSolver.Iterative, Mass, Topology,\n"
                     "        SolidMechanics.Spring, Constraint.Projective, Engine.Select,\n"
                     "        Mapping.Linear]}\n"
                     "    - DefaultAnimationLoop: {}\n"
                     "  children:\n"
                     "    - name: Beam\n"
                     "      objects:\n"
                     "        - %s\n"
                     "%s%s%s"
                     "        - MechanicalObject: {name: dofs}\n"
                     "        - " GRID "\n"
                     "%s"
                     "        - BoxROI: {name: box, box: [-1.5, -1.5, 0, 1.5, 1.5, 0.0001]}\n"
                     "        - FixedProjectiveConstraint: {indices: \"@box.indices\"}\n",
                     c->dt, c->ode, c->ls[0] ? "        - " : "", c->ls, c->ls[0] ? "\n" : "",
                     mapping && mass_in_child ? "" : "        - UniformMass: {totalMass: 15}\n");
    if (!mapping)
        snprintf(y + n, 8192 - (size_t)n, "        - MeshSpringForceField: {stiffness: 300}\n");
    else
        snprintf(y + n, 8192 - (size_t)n,
                 "      children:\n"
                 "        - name: springs\n"
                 "          objects:\n"
                 "            - " GRID "\n"
                 "            - MechanicalObject: {name: mapped}\n"
                 "            - %s\n"
                 "%s"
                 "            - MeshSpringForceField: {stiffness: 300}\n",
                 mapping, mass_in_child ? "            - UniformMass: {totalMass: 15}\n" : "");
    return y;
}

/* Runs the scene and copies the beam's positions (176 points). */
static void run(const solver_case *c, const char *mapping, double *out)
{
    char *y = beam_yaml(c, mapping);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&T, y, &s, &err), ST_OK, "load: %s\n%s", err.msg, y);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init %s: %s", c->name, err.msg);
    unsigned long allocs = 0;
    for (int k = 0; k < c->steps; k++) {
        unsigned long a0 = st_alloc_count();
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s step %d: %s", c->name, k, err.msg);
        if (k >= 2)
            allocs += st_alloc_count() - a0;
    }
    cr_assert_eq(allocs, 0, "%s: %lu allocations after the second step", c->name, allocs);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    cr_assert_eq(ms->n, 176u);
    memcpy(out, ms->position.r, 3 * 176 * sizeof(double));
    st_scene_destroy(&s);
    free(y);
}

static double max_diff(const double *a, const double *b, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

static void compare(const char *mapping, double tol)
{
    static double ref[3 * 176], got[3 * 176];
    for (size_t k = 0; k < NCASES; k++) {
        run(&CASES[k], NULL, ref);
        run(&CASES[k], mapping, got);
        double d = max_diff(ref, got, 3 * 176);
        double sag = 0.0;
        for (size_t i = 0; i < 176; i++)
            sag = fmin(sag, ref[3 * i + 1] - (-1.5 + (double)(i % 16 / 4)));
        cr_log_info("%s, %s: max |x - x_parent_only| = %.3g (sag %.3g)", mapping, CASES[k].name,
                    d, sag);
        cr_assert_lt(sag, -1e-3, "%s: the beam did not move", CASES[k].name);
        cr_assert_leq(d, tol, "%s with %s: trajectories differ by %.3g", CASES[k].name, mapping,
                      d);
    }
}

Test(mapped_beam, identity_mapping_gives_the_parent_only_trajectory)
{
    compare("IdentityMapping: {input: \"@../dofs\", output: \"@mapped\"}", 1e-12);
}

Test(mapped_beam, map_forces_false_cuts_the_child_off)
{
    static double free_fall[3 * 176], got[3 * 176];
    const solver_case *c = &CASES[3];
    char *y = beam_yaml(c, NULL);
    /* The reference without springs at all: remove the spring line. */
    char *p = strstr(y, "        - MeshSpringForceField");
    *p = '\0';
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&T, y, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    for (int k = 0; k < c->steps; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    memcpy(free_fall, ((st_mstate *)test_find_object(s, "dofs"))->position.r, sizeof free_fall);
    st_scene_destroy(&s);
    free(y);
    run(c, "IdentityMapping: {input: \"@../dofs\", output: \"@mapped\", mapForces: false}", got);
    cr_assert_leq(max_diff(free_fall, got, 3 * 176), 1e-12,
                  "with mapForces false the child's springs must not act");
    run(c, "IdentityMapping: {input: \"@../dofs\", output: \"@mapped\"}", got);
    cr_assert_gt(max_diff(free_fall, got, 3 * 176), 1e-3, "with mapForces true they act");
}

Test(mapped_beam, barycentric_mapping_gives_the_parent_only_trajectory)
{
    compare("BarycentricMapping: {input: \"@../dofs\", output: \"@mapped\"}", 1e-12);
}

/* The mass in the mapped node too: gravity is mapped up as a force and M
 * as J^T M J (a non-diagonal mass for the solvers: the explicit solver then
 * needs its linear solver, matrix-free CG here). */
Test(mapped_beam, mass_in_the_mapped_child_gives_the_parent_only_trajectory)
{
    static const solver_case cases[] = {
        {"explicit + CG", "EulerExplicitSolver: {symplectic: true}",
         "CGLinearSolver: {iterations: 5000, tolerance: 1e-20, threshold: 1e-300}", 0.001, 100},
        {"SparseLDLSolver", "EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}",
         "SparseLDLSolver: {template: CompressedRowSparseMatrixMat3x3d}", 0.01, 20},
        {"matrix-free CG", "EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}",
         "CGLinearSolver: {iterations: 5000, tolerance: 1e-15, threshold: 1e-300}", 0.01, 20},
    };
    static double ref[3 * 176], got[3 * 176];
    const char *maps[] = {"IdentityMapping: {input: \"@../dofs\", output: \"@mapped\"}",
                          "BarycentricMapping: {input: \"@../dofs\", output: \"@mapped\"}"};
    for (size_t m = 0; m < 2; m++)
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            mass_in_child = false;
            run(&cases[k], NULL, ref);
            mass_in_child = true;
            run(&cases[k], maps[m], got);
            mass_in_child = false;
            double d = max_diff(ref, got, 3 * 176);
            cr_log_info("mass and springs in the child (%.18s), %s: max |x - x_parent_only| = %.3g",
                        maps[m], cases[k].name, d);
            cr_assert_leq(d, 1e-12, "%s: %.3g", cases[k].name, d);
        }
}
