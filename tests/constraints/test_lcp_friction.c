/* test_lcp_friction.c - LCPConstraintSolver with friction (mu > 0, SOFA's
 * nlcp_gaussseidel on contacts of three rows, the solver's own mu for every
 * contact). Closed forms: a particle on an inclined plane sticks below the
 * friction angle of the solver's mu and slides above it with
 * a = g (sin theta - mu cos theta), whatever mu the contact response was
 * given (it only makes the contacts three rows); SOFA's default mu 0.6
 * runs; a rigid cube dragged on a floor by a sideways gravity gets the same
 * multipliers from LCPConstraintSolver and GenericConstraintSolver (the
 * same block update in the same order) and slides with
 * a = g_x - mu g; frictionless contacts (one row each) are refused when
 * mu > 0, and a negative mu is an error; UnilateralLagrangianConstraint
 * contacts take the solver's mu too. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangian_test_util.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(lcp_friction, .init = setup, .fini = teardown);

static const double G = 9.81, H = 0.01, GAP = 0.01;

#define LCP(MU) "LCPConstraintSolver: {name: cs, tolerance: 1e-13, maxIt: 1000, " \
                "computeConstraintForces: true" MU "}"

/* Root (lagrangian_test_util.h) with gravity (gx, -G, 0), the solver and a
 * collision pipeline whose contacts are FrictionContactConstraint with
 * responseParams mu=rmu. */
static int root_yaml(char *y, size_t size, double gx, const char *solver, double rmu)
{
    const double gravity[3] = {gx, -G, 0.0};
    char response[128];
    snprintf(response, sizeof response,
             "response: FrictionContactConstraint, responseParams: \"mu=%.17g\"", rmu);
    return lag_contact_root(y, size, gravity, H, solver, 0.1, GAP, response);
}

/* A particle of mass 3 at rest on a plane through the origin tilted by
 * theta about z. */
static char *slope_yaml(double theta, const char *solver, double rmu)
{
    size_t size = 8192;
    char *y = malloc(size);
    int n = root_yaml(y, size, 0.0, solver, rmu);
    double c = cos(theta), s = sin(theta), L = 20.0;
    snprintf(y + n, size - (size_t)n,
             "    - name: Slope\n"
             "      objects:\n"
             "        - MechanicalObject: {position: [[%.17g, %.17g, -4], [%.17g, %.17g, -4],"
             " [%.17g, %.17g, 4], [%.17g, %.17g, 4]]}\n"
             "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
             "        - TriangleCollisionModel: {moving: false, simulated: false}\n"
             "    - name: Particle\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: p, position: [[%.17g, %.17g, 0.5]]}\n"
             "        - UniformMass: {vertexMass: 3}\n"
             "        - PointCollisionModel: {}\n"
             "        - UncoupledConstraintCorrection: {compliance: [0.333333333333333]}\n",
             -L * c, -L * s, L * c, L * s, L * c, L * s, -L * c, -L * s, -GAP * s, GAP * c);
    return y;
}

/* Runs the particle n steps: its displacement and speed down the slope. */
static void slope_run(double theta, const char *solver, double rmu, int n, double *down,
                      double *v)
{
    char *y = slope_yaml(theta, solver, rmu);
    st_scene *s = scene_load(&T, y);
    scene_steps(&T, s, n);
    st_mstate *p = scene_state(s, "p");
    double dir[2] = {-cos(theta), -sin(theta)};
    const double *x = p->position.r, *vel = p->velocity.r;
    *down = (x[0] + GAP * sin(theta)) * dir[0] + (x[1] - GAP * cos(theta)) * dir[1];
    *v = vel[0] * dir[0] + vel[1] * dir[1];
    /* Normal: still at the contact distance. */
    double gap = -x[0] * sin(theta) + x[1] * cos(theta) - GAP;
    cr_assert(fabs(gap) < 1e-9, "left the contact distance by %g", gap);
    cr_assert(fabs(x[2] - 0.5) < 1e-12, "moved across the slope");
    cr_assert_lt(*(int *)scene_field(s, "cs", "currentIterations"), 1000, "not converged");
    cr_assert_eq(((st_array *)scene_field(s, "cs", "constraintForces"))->n, 3u);
    st_scene_destroy(&s);
    free(y);
}

Test(lcp_friction, sticks_below_the_friction_angle)
{
    /* mu 0.5: friction angle atan(0.5) = 26.57 degrees. */
    double down, v;
    slope_run(20.0 * M_PI / 180.0, LCP(", mu: 0.5"), 0.5, 150, &down, &v);
    cr_assert(fabs(down) < 1e-9, "slid %g", down);
    cr_assert(fabs(v) < 1e-9, "speed %g", v);
}

Test(lcp_friction, slides_above_with_the_solver_mu)
{
    /* The response's mu 0.9 would hold the particle at 35 degrees; the LCP
     * solver uses its own mu 0.5 for every contact. */
    for (int k = 0; k < 2; k++) {
        double theta = (k ? 45.0 : 35.0) * M_PI / 180.0, down, v;
        int n = 80;
        slope_run(theta, LCP(", mu: 0.5"), 0.9, n, &down, &v);
        double a = G * (sin(theta) - 0.5 * cos(theta));
        /* Implicit Euler under a constant force: v_n = n h a,
         * x_n = h^2 a n (n + 1) / 2. */
        cr_assert(fabs(v - a * n * H) < 1e-9 * a * n * H, "theta %g: v %.15g vs %.15g", theta,
                  v, a * n * H);
        double xw = H * H * a * n * (n + 1) / 2.0;
        cr_assert(fabs(down - xw) < 1e-9 * xw, "theta %g: x %.15g vs %.15g", theta, down, xw);
    }
}

Test(lcp_friction, sofa_default_mu_runs)
{
    /* mu 0.6 by default: holds at 30 degrees (tan 30 = 0.577), slides at
     * 35 (tan 35 = 0.700). */
    double down, v;
    slope_run(30.0 * M_PI / 180.0, LCP(""), 0.1, 100, &down, &v);
    cr_assert(fabs(down) < 1e-9 && fabs(v) < 1e-9, "slid %g at %g", down, v);
    double theta = 35.0 * M_PI / 180.0;
    slope_run(theta, LCP(""), 0.1, 50, &down, &v);
    double a = G * (sin(theta) - 0.6 * cos(theta));
    cr_assert(fabs(v - a * 50 * H) < 1e-9 * a * 50 * H, "v %.15g vs %.15g", v, a * 50 * H);
}

/* A rigid cube of side 1 and mass 1 on the floor y = 0, its 8 corners as
 * points mapped by a RigidMapping, gravity (gx, -G, 0). */
static char *cube_yaml(double gx, const char *solver, double rmu)
{
    size_t size = 8192;
    char *y = malloc(size);
    int n = root_yaml(y, size, gx, solver, rmu);
    double h = 0.5, I = 1.0 / 6.0;
    snprintf(y + n, size - (size_t)n,
             "    - name: Floor\n"
             "      objects:\n"
             "        - MechanicalObject: {position: [[-30, 0, -3], [30, 0, -3], [30, 0, 3],"
             " [-30, 0, 3]]}\n"
             "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
             "        - TriangleCollisionModel: {moving: false, simulated: false}\n"
             "    - name: Cube\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: cube, template: Rigid3d,"
             " position: [0.13, %.17g, 0.07, 0, 0, 0, 1]}\n"
             "        - UniformMass: {vertexMass: \"1 1  %.17g 0 0  0 %.17g 0  0 0 %.17g\"}\n"
             "        - UncoupledConstraintCorrection: {}\n"
             "      children:\n"
             "        - name: Corners\n"
             "          objects:\n"
             "            - MechanicalObject: {name: corners, position: [[-%g, -%g, -%g],"
             " [%g, -%g, -%g], [%g, -%g, %g], [-%g, -%g, %g], [-%g, %g, -%g], [%g, %g, -%g],"
             " [%g, %g, %g], [-%g, %g, %g]]}\n"
             "            - PointCollisionModel: {}\n"
             "            - RigidMapping: {template: \"Rigid3d,Vec3d\", input: \"@../cube\","
             " output: \"@corners\", globalToLocalCoords: false}\n",
             h + GAP, I, I, I, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h,
             h, h);
    return y;
}

/* Multipliers after n steps, and the cube's x velocity. */
static double *cube_run(double gx, const char *solver, double rmu, int n, size_t *rows,
                        double *vx)
{
    char *y = cube_yaml(gx, solver, rmu);
    st_scene *s = scene_load(&T, y);
    scene_steps(&T, s, n);
    st_array *f = scene_field(s, "cs", "constraintForces");
    *rows = f->n;
    double *l = malloc(f->n * sizeof *l);
    memcpy(l, f->p, f->n * sizeof *l);
    *vx = scene_state(s, "cube")->velocity.r[0];
    st_scene_destroy(&s);
    free(y);
    return l;
}

Test(lcp_friction, same_multipliers_as_generic)
{
    /* Sticking (g_x / g = 0.2 < 0.4) and sliding (0.6 > 0.4). */
    const double gxs[2] = {0.2 * G, 0.6 * G};
    for (int k = 0; k < 2; k++) {
        size_t nl, ng;
        double vl, vg;
        double *l = cube_run(gxs[k], LCP(", mu: 0.4"), 0.4, 30, &nl, &vl);
        double *g = cube_run(gxs[k],
                             "GenericConstraintSolver: {name: cs, tolerance: 1e-13, "
                             "maxIterations: 1000, computeConstraintForces: true}",
                             0.4, 30, &ng, &vg);
        cr_assert_eq(nl, ng);
        cr_assert_eq(nl, 12u, "4 corners on the floor: %zu rows", nl);
        double sum = 0.0;
        for (size_t i = 0; i < nl; i++)
            cr_assert(fabs(l[i] - g[i]) < 1e-9, "gx %g row %zu: %.15g vs %.15g", gxs[k], i,
                      l[i], g[i]);
        for (size_t i = 0; i < nl; i += 3)
            sum += l[i];
        /* The floor carries the weight: the normal impulses of a step. */
        cr_assert(fabs(sum - G * H) < 1e-8, "normal impulses %.15g vs %.15g", sum, G * H);
        double a = k ? gxs[k] - 0.4 * G : 0.0;
        cr_assert(fabs(vl - a * 30 * H) < 1e-7, "gx %g: vx %.15g vs %.15g", gxs[k], vl,
                  a * 30 * H);
        free(l);
        free(g);
    }
}

Test(lcp_friction, rows_not_in_triplets_are_refused)
{
    /* responseParams mu=0: one row per contact, which SOFA's
     * nlcp_gaussseidel would misread as parts of triplets. */
    char *y = slope_yaml(0.3, LCP(", mu: 0.5"), 0.0);
    st_scene *s = scene_load(&T, y);
    st_error e = {0};
    st_status rc = ST_OK;
    for (int i = 0; i < 3 && rc == ST_OK; i++)
        rc = st_scene_step(s, 0, &e);
    cr_assert_neq(rc, ST_OK, "one-row contacts accepted with mu 0.5");
    cr_assert(strstr(e.msg, "three rows") && strstr(e.msg, "mu"), "message: %s", e.msg);
    st_scene_destroy(&s);
    free(y);
    /* mu: 0 keeps the frictionless LCP on the same contacts. */
    y = slope_yaml(0.3, LCP(", mu: 0"), 0.0);
    s = scene_load(&T, y);
    scene_steps(&T, s, 3);
    cr_assert_eq(((st_array *)scene_field(s, "cs", "constraintForces"))->n, 1u);
    st_scene_destroy(&s);
    free(y);
}

Test(lcp_friction, negative_mu_is_an_error)
{
    char *y = slope_yaml(0.3, LCP(", mu: -0.1"), 0.5);
    scene_refused(&T, y, "mu");
    free(y);
}

/* UnilateralLagrangianConstraint listed in the scene (friction mu 0.05,
 * three rows) between a static point and a particle of mass 3, the plane
 * tilted by theta; the LCP solver's mu 0.5 decides. Returns the speed down
 * the slope after n steps. */
static double unilateral_run(double theta, int n)
{
    char y[4096];
    lag_unilateral_yaml(y, sizeof y, G, H, LCP(", mu: 0.5"), "UnilateralLagrangianConstraint",
                        -sin(theta), cos(theta), 0.05, 3.0, 0.333333333333333);
    st_scene *s = scene_load(&T, y);
    scene_steps(&T, s, n);
    const double *x = scene_state(s, "block")->position.r;
    const double *v = scene_state(s, "block")->velocity.r;
    double gap = -x[0] * sin(theta) + x[1] * cos(theta);
    cr_assert(fabs(gap) < 1e-9, "left the plane by %g", gap);
    st_array *f = scene_field(s, "cs", "constraintForces");
    cr_assert_eq(f->n, 3u);
    cr_assert(fabs(((double *)f->p)[0] - 3.0 * G * cos(theta) * H) < 1e-9, "lambda_n %.15g",
              ((double *)f->p)[0]);
    double vdown = -(v[0] * cos(theta) + v[1] * sin(theta));
    st_scene_destroy(&s);
    return vdown;
}

Test(lcp_friction, unilateral_constraint_uses_the_solver_mu)
{
    double v = unilateral_run(20.0 * M_PI / 180.0, 60);
    cr_assert(fabs(v) < 1e-9, "sticks: v %g", v);
    double theta = 40.0 * M_PI / 180.0, a = G * (sin(theta) - 0.5 * cos(theta));
    v = unilateral_run(theta, 60);
    cr_assert(fabs(v - a * 60 * H) < 1e-9 * a * 60 * H, "slides: v %.15g vs %.15g", v,
              a * 60 * H);
}

/* SOFA's LCPConstraintSolver does not project J by the projective
 * constraints (only GenericConstraintSolver and its kin do): a fixed
 * particle pushed into a floor keeps its compliance in W, and the
 * correction (UncoupledConstraintCorrection, which projects nothing) lifts
 * it back to the contact distance. Projecting J left W's row zero and
 * nlcp_gaussseidel divided by zero (include_test.scn: NaN at step 1). */
Test(lcp_friction, contact_on_a_fixed_point_keeps_its_compliance)
{
    for (int k = 0; k < 2; k++) {
        size_t size = 8192;
        char *y = malloc(size);
        int n = root_yaml(y, size, 0.0, k ? LCP(", mu: 0.5") : LCP(", mu: 0"), 0.5);
        snprintf(y + n, size - (size_t)n,
                 "    - name: Floor\n"
                 "      objects:\n"
                 "        - MechanicalObject: {position: [[-5, 0, -5], [5, 0, -5], [5, 0, 5],"
                 " [-5, 0, 5]]}\n"
                 "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
                 "        - TriangleCollisionModel: {moving: false, simulated: false}\n"
                 "    - name: Particle\n"
                 "      objects:\n"
                 "        - EulerImplicitSolver: {}\n"
                 "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
                 "        - MechanicalObject: {name: p, position: [[0.3, %.17g, 0.2]]}\n"
                 "        - UniformMass: {vertexMass: 3}\n"
                 "        - FixedProjectiveConstraint: {indices: [0]}\n"
                 "        - PointCollisionModel: {}\n"
                 "        - UncoupledConstraintCorrection: {compliance: [0.333333333333333]}\n",
                 0.5 * GAP);
        st_scene *s = scene_load(&T, y);
        scene_steps(&T, s, 3);
        const double *x = scene_state(s, "p")->position.r;
        cr_assert(isfinite(x[1]), "mu %d: y is %g", k, x[1]);
        cr_assert(fabs(x[1] - GAP) < 1e-9, "mu %d: y %.15g, not lifted to %g", k, x[1], GAP);
        cr_assert(fabs(x[0] - 0.3) < 1e-12 && fabs(x[2] - 0.2) < 1e-12, "mu %d: slid", k);
        st_scene_destroy(&s);
        free(y);
    }
}
