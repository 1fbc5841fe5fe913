/* test_lagrangian_contact.c - Lagrangian contacts: CollisionResponse with
 * response FrictionContactConstraint (SOFA's UnilateralLagrangianConstraint
 * per pair, Coulomb friction mu) and StickContactConstraint, under
 * FreeMotionAnimationLoop and the projected Gauss-Seidel solvers.
 * Closed forms: a particle on an inclined plane sticks below the friction
 * angle (tan theta < mu: no tangential motion) and slides above it with
 * a = g (sin theta - mu cos theta); a ball resting on a floor carries its
 * weight (lambda_n = m g dt, the impulse of a step); a stack of three rigid
 * cubes rests without drift; GenericConstraintSolver and
 * BlockGaussSeidelConstraintSolver give the same multipliers; a solve cut
 * by maxIterations is reported; UnilateralLagrangianConstraint listed in a
 * scene gives the same cone; scenes/soft_finger_friction.yaml holds its tip
 * with friction and lets it slide without. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangian_test_util.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(lagrangian_contact, .init = setup, .fini = teardown);

static const double G = 9.81, DT = 0.01, CD = 0.01;

/* The root (lagrangian_test_util.h): FreeMotionAnimationLoop, a constraint
 * solver, the pipeline with MinProximityIntersection (alarm 0.1, contact CD)
 * and the response. */
static double Alarm = 0.1;

static int header(char *y, size_t size, const char *solver, const char *response)
{
    const double gravity[3] = {0.0, -G, 0.0};
    return lag_contact_root(y, size, gravity, DT, solver, Alarm, CD, response);
}

#define GENERIC "GenericConstraintSolver: {name: csolver, tolerance: 1e-12, maxIterations: 1000, computeConstraintForces: true}"
#define BGS "BlockGaussSeidelConstraintSolver: {name: csolver, tolerance: 1e-12, maxIterations: 1000, computeConstraintForces: true}"

/* A plane through the origin at angle theta about z (rising along +x), a
 * particle of mass 2 resting on it at the contact distance, at rest. */
static char *incline_yaml(double theta, const char *solver, const char *response)
{
    char *y = malloc(16384);
    int n = header(y, 16384, solver, response);
    double c = cos(theta), s = sin(theta), L = 50.0;
    double nx = -s, ny = c; /* the plane's normal */
    n += snprintf(y + n, 16384 - (size_t)n,
                  "    - name: Plane\n"
                  "      objects:\n"
                  "        - MechanicalObject: {name: plane, position: [[%.17g, %.17g, -5],"
                  " [%.17g, %.17g, -5], [%.17g, %.17g, 5], [%.17g, %.17g, 5]]}\n"
                  "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
                  "        - TriangleCollisionModel: {moving: false, simulated: false}\n"
                  "    - name: Block\n"
                  "      objects:\n"
                  "        - EulerImplicitSolver: {}\n"
                  "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
                  "        - MechanicalObject: {name: block, position: [[%.17g, %.17g, 1]]}\n"
                  "        - UniformMass: {vertexMass: 2}\n"
                  "        - PointCollisionModel: {}\n"
                  "        - UncoupledConstraintCorrection: {compliance: [0.5]}\n",
                  -L * c, -L * s, L * c, L * s, L * c, L * s, -L * c, -L * s, CD * nx, CD * ny);
    return y;
}

/* Runs the particle on the incline: returns its displacement along the
 * slope (downwards positive) and its speed there after `steps` steps, and
 * its worst distance from the rest height. */
static void incline_run(double theta, const char *response, int steps, double *down,
                        double *vdown, double *worst_gap)
{
    char *y = incline_yaml(theta, GENERIC, response);
    st_scene *s = scene_load(&T, y);
    st_mstate *b = scene_state(s, "block");
    double dir[3] = {-cos(theta), -sin(theta), 0}, nrm[3] = {-sin(theta), cos(theta), 0};
    *worst_gap = 0.0;
    for (int i = 0; i < steps; i++) {
        scene_steps(&T, s, 1);
        const double *x = b->position.r;
        double gap = x[0] * nrm[0] + x[1] * nrm[1] - CD;
        if (fabs(gap) > *worst_gap)
            *worst_gap = fabs(gap);
    }
    const double *x = b->position.r, *v = b->velocity.r;
    double x0[3] = {CD * nrm[0], CD * nrm[1], 1};
    *down = (x[0] - x0[0]) * dir[0] + (x[1] - x0[1]) * dir[1];
    *vdown = v[0] * dir[0] + v[1] * dir[1];
    cr_assert(fabs(x[2] - 1.0) < 1e-12 && fabs(v[2]) < 1e-12, "moved across the slope");
    st_scene_destroy(&s);
    free(y);
}

Test(lagrangian_contact, incline_sticks_below_friction_angle)
{
    /* mu 0.5: the friction angle is atan(0.5) = 26.57 degrees. */
    double theta = 20.0 * M_PI / 180.0, down, v, gap;
    incline_run(theta, "response: FrictionContactConstraint, responseParams: mu=0.5", 200, &down,
                &v, &gap);
    cr_assert(fabs(down) < 1e-9, "slid %g", down);
    cr_assert(fabs(v) < 1e-9, "speed %g", v);
    cr_assert(gap < 1e-9, "left the contact distance by %g", gap);
}

Test(lagrangian_contact, incline_slides_above_friction_angle)
{
    double mu = 0.5;
    for (int k = 0; k < 2; k++) {
        double theta = (k ? 45.0 : 35.0) * M_PI / 180.0, down, v, gap;
        char resp[128];
        snprintf(resp, sizeof resp, "response: FrictionContactConstraint, responseParams: mu=%g",
                 mu);
        int steps = 100;
        incline_run(theta, resp, steps, &down, &v, &gap);
        double a = G * (sin(theta) - mu * cos(theta));
        double t = steps * DT;
        /* Implicit Euler: v_n = n h a, x_n = h^2 a n (n + 1) / 2. */
        cr_assert(fabs(v - a * t) < 1e-9 * a * t, "theta %g: v %.12g, a t %.12g", theta, v,
                  a * t);
        double xw = DT * DT * a * steps * (steps + 1) / 2.0;
        cr_assert(fabs(down - xw) < 1e-9 * xw, "theta %g: x %.12g, closed form %.12g", theta,
                  down, xw);
        cr_assert(gap < 1e-9, "left the contact distance by %g", gap);
    }
    /* Frictionless (mu = 0, one row per contact): a = g sin theta. */
    double theta = 30.0 * M_PI / 180.0, down, v, gap;
    incline_run(theta, "response: FrictionContactConstraint, responseParams: mu=0", 50, &down, &v,
                &gap);
    cr_assert(fabs(v - G * sin(theta) * 0.5) < 1e-9, "v %.12g", v);
}

Test(lagrangian_contact, stick_contact_holds_on_a_steep_incline)
{
    double theta = 60.0 * M_PI / 180.0, down, v, gap;
    incline_run(theta, "response: StickContactConstraint", 100, &down, &v, &gap);
    cr_assert(fabs(down) < 1e-9 && fabs(v) < 1e-9, "slid %g at %g", down, v);
}

/* A Vec3d ball of mass m and radius r on the floor y = 0. */
static char *ball_yaml(const char *solver, const char *tmpl, double m)
{
    char *y = malloc(16384);
    int n = header(y, 16384, solver, "response: FrictionContactConstraint");
    bool rigid = !strcmp(tmpl, "Rigid3d");
    n += snprintf(y + n, 16384 - (size_t)n,
                  "    - name: Floor\n"
                  "      objects:\n"
                  "        - MechanicalObject: {position: [[-3, 0, -3], [4, 0, -3], [4, 0, 3],"
                  " [-3, 0, 3]]}\n"
                  "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
                  "        - TriangleCollisionModel: {moving: false, simulated: false}\n"
                  "    - name: Ball\n"
                  "      objects:\n"
                  "        - EulerImplicitSolver: {}\n"
                  "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
                  "        - MechanicalObject: {name: ball, template: %s, position: [[0.3, 0.8,"
                  " 0.2%s]]}\n"
                  "        - UniformMass: {%s}\n"
                  "        - SphereCollisionModel: {radius: 0.25}\n"
                  "        - UncoupledConstraintCorrection: {%s}\n",
                  tmpl, rigid ? ", 0, 0, 0, 1" : "",
                  rigid ? "vertexMass: \"3 1  0.5 0 0  0 0.5 0  0 0 0.5\"" : "vertexMass: 3",
                  rigid ? "" : "compliance: [0.3333333333333333]");
    (void)m;
    return y;
}

static void ball_case(const char *tmpl)
{
    /* SOFA's RigidContactMapper adds the radius to the contact distance of a
     * point already on the surface: the alarm distance must exceed it. */
    Alarm = 0.5;
    char *y = ball_yaml(GENERIC, tmpl, 3.0);
    st_scene *s = scene_load(&T, y);
    scene_steps(&T, s, 400); /* falls 0.55 - CD, then rests */
    st_mstate *b = scene_state(s, "ball");
    bool rigid = !strcmp(tmpl, "Rigid3d");
    /* Contact distance: CD + r; a Rigid3d sphere's contact point is on its
     * surface, so its centre rests one more radius up (as with penalty). */
    double want = CD + 0.25 + (rigid ? 0.25 : 0.0);
    cr_assert(fabs(b->position.r[1] - want) < 1e-9, "%s rests at %.15g, want %.15g", tmpl,
              b->position.r[1], want);
    st_array *f = scene_field(s, "csolver", "constraintForces");
    cr_assert_eq(f->n, 3u, "one friction contact: %zu rows", f->n);
    const double *l = f->p;
    cr_assert(fabs(l[0] - 3.0 * G * DT) < 1e-9, "lambda_n %.15g, m g dt %.15g", l[0],
              3.0 * G * DT);
    cr_assert(fabs(l[1]) < 1e-12 && fabs(l[2]) < 1e-12, "tangential %g %g", l[1], l[2]);
    cr_assert_eq(*(unsigned *)scene_field(s, "resp", "numberOfActiveContacts"), 1u);
    /* Resting steps allocate nothing. */
    scene_steps_allocate_nothing(&T, s, 20, "resting ball");
    /* Thrown up, the ball leaves the floor: its contact stops acting at
     * once, and is removed beyond the alarm distance. */
    b->velocity.r[1] = 6.0;
    scene_steps(&T, s, 1);
    cr_assert_eq(*(unsigned *)scene_field(s, "resp", "numberOfActiveContacts"), 0u);
    scene_steps(&T, s, 19);
    cr_assert_eq(*(int *)scene_field(s, "csolver", "currentNumConstraints"), 0);
    cr_assert_gt(b->position.r[1], want + Alarm);
    st_scene_destroy(&s);
    free(y);
}

Test(lagrangian_contact, ball_on_floor_carries_its_weight) { ball_case("Vec3d"); }
Test(lagrangian_contact, rigid_ball_on_floor_carries_its_weight) { ball_case("Rigid3d"); }

/* Three rigid cubes of sides 1, 0.8, 0.6 stacked on the floor, each its own
 * ODE solver and UncoupledConstraintCorrection, its surface (corners and
 * triangles) mapped by a RigidMapping. Each cube is shifted a little so
 * that no corner lies on the diagonal of the face below it (SOFA's
 * triangle-point test keeps projections strictly inside the triangle). */
static char *stack_yaml(const char *solver, const char *extra)
{
    char *y = malloc(32768);
    int n = header(y, 32768, solver, extra);
    n += snprintf(y + n, 32768 - (size_t)n,
                  "    - name: Floor\n"
                  "      objects:\n"
                  "        - MechanicalObject: {position: [[-3, 0, -3], [4, 0, -3], [4, 0, 3],"
                  " [-3, 0, 3]]}\n"
                  "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
                  "        - TriangleCollisionModel: {moving: false, simulated: false}\n");
    double y0 = 0.0;
    const double side[3] = {1.0, 0.8, 0.6};
    for (int k = 0; k < 3; k++) {
        double h = side[k] / 2;
        double cy = y0 + CD + h;
        y0 = cy + h;
        n += snprintf(y + n, 32768 - (size_t)n,
                      "    - name: Cube%d\n"
                      "      objects:\n"
                      "        - EulerImplicitSolver: {}\n"
                      "        - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-30}\n"
                      "        - MechanicalObject: {name: cube%d, template: Rigid3d, position: [%.17g, %.17g, %.17g, 0, 0, 0, 1]}\n"
                      "        - UniformMass: {vertexMass: \"1 1  %.17g 0 0  0 %.17g 0  0 0 %.17g\"}\n"
                      "        - UncoupledConstraintCorrection: {}\n"
                      "      children:\n"
                      "        - name: Surface\n"
                      "          objects:\n"
                      "            - MechanicalObject: {name: surf%d, position: [[-%g, -%g, -%g], [%g, -%g, -%g],"
                      " [%g, %g, -%g], [-%g, %g, -%g], [-%g, -%g, %g], [%g, -%g, %g], [%g, %g, %g],"
                      " [-%g, %g, %g]]}\n"
                      "            - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7],"
                      " [0, 1, 5], [0, 5, 4], [3, 6, 2], [3, 7, 6], [0, 4, 7], [0, 7, 3], [1, 2, 6], [1, 6, 5]]}\n"
                      "            - TriangleCollisionModel: {}\n"
                      "            - PointCollisionModel: {}\n"
                      "            - RigidMapping: {template: \"Rigid3d,Vec3d\", input: \"@../cube%d\", output: \"@surf%d\", globalToLocalCoords: false}\n",
                      k, k, 0.1 + 0.03 * k, cy, 0.02 * k, side[k] * side[k] / 6, side[k] * side[k] / 6,
                      side[k] * side[k] / 6, k, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h,
                      h, h, h, h, h, h, k, k);
    }
    return y;
}

Test(lagrangian_contact, stack_of_three_cubes_rests_without_drift)
{
    char *y = stack_yaml(GENERIC, "response: FrictionContactConstraint");
    st_scene *s = scene_load(&T, y);
    double x0[3][7];
    const char *names[3] = {"cube0", "cube1", "cube2"};
    for (int k = 0; k < 3; k++)
        memcpy(x0[k], scene_state(s, names[k])->position.r, sizeof x0[k]);
    scene_steps(&T, s, 500);
    for (int k = 0; k < 3; k++) {
        const st_mstate *ms = scene_state(s, names[k]);
        const double *x = ms->position.r, *v = ms->velocity.r;
        for (int a = 0; a < 7; a++)
            cr_assert(fabs(x[a] - x0[k][a]) < 1e-7, "cube %d coordinate %d drifted by %g", k, a,
                      x[a] - x0[k][a]);
        for (int a = 0; a < 6; a++)
            cr_assert(fabs(v[a]) < 1e-6, "cube %d moves: v[%d] = %g", k, a, v[a]);
    }
    /* 4 corners on the floor, 4 of cube 1 on cube 0, 4 of cube 2 on cube 1. */
    int rows = *(int *)scene_field(s, "csolver", "currentNumConstraints");
    cr_assert_geq(rows, 36, "rows %d", rows);
    /* The floor carries the three cubes: sum of the normal impulses of its
     * contacts is 3 m g dt (m = 1); the pipeline's pairs order is fixed. */
    st_array *f = scene_field(s, "csolver", "constraintForces");
    double total = 0.0;
    for (size_t r = 0; r < f->n; r += 3)
        total += ((double *)f->p)[r];
    cr_assert_gt(total, 3.0 * G * DT * (1 - 1e-6), "normal impulses %g", total);
    st_scene_destroy(&s);
    free(y);
}

Test(lagrangian_contact, generic_and_block_gauss_seidel_agree)
{
    double *l[2];
    size_t n[2];
    const char *solvers[2] = {GENERIC, BGS};
    for (int k = 0; k < 2; k++) {
        char *y = stack_yaml(solvers[k], "response: FrictionContactConstraint, responseParams: mu=0.3");
        st_scene *s = scene_load(&T, y);
        scene_steps(&T, s, 20);
        st_array *f = scene_field(s, "csolver", "constraintForces");
        n[k] = f->n;
        l[k] = malloc(f->n * sizeof(double));
        memcpy(l[k], f->p, f->n * sizeof(double));
        st_scene_destroy(&s);
        free(y);
    }
    cr_assert_eq(n[0], n[1]);
    cr_assert_gt(n[0], 0u);
    for (size_t i = 0; i < n[0]; i++)
        cr_assert(fabs(l[0][i] - l[1][i]) < 1e-9, "row %zu: %.15g vs %.15g", i, l[0][i], l[1][i]);
    free(l[0]);
    free(l[1]);
}

Test(lagrangian_contact, unconverged_friction_solve_is_reported)
{
    char *y = stack_yaml("GenericConstraintSolver: {name: csolver, tolerance: 1e-14, maxIterations: 2}",
                         "response: FrictionContactConstraint");
    st_scene *s = scene_load(&T, y);
    scene_steps(&T, s, 3);
    cr_assert_eq(*(bool *)scene_field(s, "csolver", "converged"), false);
    cr_assert_eq(*(int *)scene_field(s, "csolver", "currentIterations"), 3);
    cr_assert(strstr(T.log, "no convergence after 2 iterations"), "log:\n%s", T.log);
    st_scene_destroy(&s);
    free(y);
}

Test(lagrangian_contact, bad_response_params_are_errors)
{
    const char *bad[] = {"response: FrictionContactConstraint, responseParams: nu=0.3",
                         "response: FrictionContactConstraint, responseParams: mu=-1",
                         "response: FrictionContactConstraint, responseParams: tol=0.1",
                         "response: StickContactConstraint, responseParams: keepAlive=maybe",
                         "response: BarycentricStickContact",
                         "responseParams: mu=0.1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *y = incline_yaml(0.1, GENERIC, bad[i]);
        scene_refused(&T, y, "respons");
        free(y);
    }
}

/* UnilateralLagrangianConstraint listed in the scene: a particle of mass 2
 * on the half-space of normal n through a static anchor point, friction mu. */
static void unilateral_case(double theta, double mu, int steps, double *vdown, double *gap)
{
    char y[4096];
    double nx = -sin(theta), ny = cos(theta);
    lag_unilateral_yaml(y, sizeof y, G, DT,
                        "BlockGaussSeidelConstraintSolver: {name: csolver, tolerance: 1e-12, "
                        "computeConstraintForces: true}",
                        "UnilateralInteractionConstraint", nx, ny, mu, 2.0, 0.5);
    st_scene *s = scene_load(&T, y);
    st_mstate *b = scene_state(s, "block");
    scene_steps(&T, s, steps);
    const double *x = b->position.r, *v = b->velocity.r;
    *vdown = -(v[0] * cos(theta) + v[1] * sin(theta));
    *gap = x[0] * nx + x[1] * ny;
    st_array *f = scene_field(s, "csolver", "constraintForces");
    cr_assert_eq(f->n, mu > 0 ? 3u : 1u);
    /* The normal impulse carries the normal part of the weight. */
    cr_assert(fabs(((double *)f->p)[0] - 2.0 * G * cos(theta) * DT) < 1e-9, "lambda_n %.15g",
              ((double *)f->p)[0]);
    st_scene_destroy(&s);
}

Test(lagrangian_contact, unilateral_constraint_friction_cone)
{
    double v, gap, theta = 20.0 * M_PI / 180.0;
    unilateral_case(theta, 0.5, 100, &v, &gap);
    cr_assert(fabs(v) < 1e-9 && fabs(gap) < 1e-9, "sticks: v %g gap %g", v, gap);
    theta = 40.0 * M_PI / 180.0;
    unilateral_case(theta, 0.5, 100, &v, &gap);
    double a = G * (sin(theta) - 0.5 * cos(theta));
    cr_assert(fabs(v - a) < 1e-9 * a, "slides: v %.15g, a t %.15g", v, a);
    cr_assert(fabs(gap) < 1e-9, "gap %g", gap);
    unilateral_case(theta, 0.0, 100, &v, &gap);
    cr_assert(fabs(v - G * sin(theta)) < 1e-9, "frictionless: v %.15g", v);
}

/* scenes/soft_finger_friction.yaml, with the given mu: returns the mean z
 * and the lowest y of the tip nodes after `steps` steps. */
static void finger_run(const char *mu, int steps, double *tip_z, double *tip_y, int *rows)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/soft_finger_friction.yaml", SETTEE_SOURCE_DIR);
    char *y = test_read_file(path);
    cr_assert_not_null(y, "cannot read %s", path);
    char *at = strstr(y, "mu=0.8");
    cr_assert_not_null(at);
    char *scene = malloc(strlen(y) + 16);
    memcpy(scene, y, (size_t)(at - y));
    sprintf(scene + (at - y), "mu=%s%s", mu, at + strlen("mu=0.8"));
    st_scene *s = scene_load(&T, scene);
    scene_steps(&T, s, steps);
    st_mstate *f = scene_state(s, "finger");
    st_array *tip = scene_field(s, "tip", "indices");
    cr_assert_eq(tip->n, 9u);
    *tip_z = 0.0;
    *tip_y = 1e9;
    for (size_t i = 0; i < tip->n; i++) {
        const double *x = f->position.r + 3 * (size_t)((unsigned *)tip->p)[i];
        *tip_z += x[2] / (double)tip->n;
        if (x[1] < *tip_y)
            *tip_y = x[1];
    }
    *rows = *(int *)scene_field(s, "csolver", "currentNumConstraints");
    st_scene_destroy(&s);
    free(scene);
    free(y);
}

Test(lagrangian_contact, soft_finger_scene_sticks_with_friction)
{
    double z, yl, z0, y0;
    int rows, rows0;
    finger_run("0.8", 100, &z, &yl, &rows);
    finger_run("0", 100, &z0, &y0, &rows0);
    /* Measured: with mu 0.8 the tip moves 0.70 mm sideways (the contacts
     * near the tip slip a little while the load builds up), frictionless
     * 45 mm; 18 bottom nodes in contact (54 rows with friction, 18 without);
     * no node goes below the contact distance (2 mm). */
    cr_assert_eq(rows, 54);
    cr_assert_eq(rows0, 18);
    cr_assert_gt(z0, 0.03, "frictionless tip moved %g", z0);
    cr_assert_lt(fabs(z), 0.03 * z0, "with friction the tip moved %g (frictionless %g)", z, z0);
    cr_assert_gt(yl, 0.002 - 1e-5, "tip below the contact distance: %g", yl);
    cr_assert_gt(y0, 0.002 - 1e-5, "tip below the contact distance: %g", y0);
}

/* Replaces the first occurrence of from in y (malloc'd, room to spare). */
static void replace_once(char *y, const char *from, const char *to)
{
    char *at = strstr(y, from);
    cr_assert_not_null(at, "'%s' not in the scene", from);
    size_t lf = strlen(from), lt = strlen(to);
    memmove(at + lt, at + lf, strlen(at + lf) + 1);
    memcpy(at, to, lt);
}

/* FreeMotionAnimationLoop solveVelocityConstraintFirst with a contact
 * (SOFA's VEL order, BaseContactLagrangianConstraint's velocity
 * violation): the normal row asks (v_P - v_Q + (P - Q) / dt).n = distance
 * / dt at x_t, so a ball of radius 0.25 at height y0, 0.005 above its
 * contact distance d = CD + 0.25 and falling at 1 (faster than 0.005 / dt,
 * so the contact acts), ends the step with velocity
 * (d - y0) / dt and its centre exactly at d (x = x_t + dt v). */
Test(lagrangian_contact, velocity_order_contact_lands_at_the_contact_distance)
{
    Alarm = 0.5;
    char *y = ball_yaml(GENERIC, "Vec3d", 3.0);
    replace_once(y, "FreeMotionAnimationLoop: {name: loop}",
                 "FreeMotionAnimationLoop: {name: loop, solveVelocityConstraintFirst: true}");
    const double d = CD + 0.25, y0 = d + 0.005;
    char pos[128];
    snprintf(pos, sizeof pos, "position: [[0.3, %.17g, 0.2]], velocity: [[0, -1, 0]]", y0);
    replace_once(y, "position: [[0.3, 0.8, 0.2]]", pos);
    st_scene *s = scene_load(&T, y);
    scene_steps(&T, s, 1);
    st_mstate *b = scene_state(s, "ball");
    cr_assert(fabs(b->velocity.r[1] - (d - y0) / DT) < 1e-9, "v %.15g, want %.15g",
              b->velocity.r[1], (d - y0) / DT);
    cr_assert(fabs(b->position.r[1] - d) < 1e-9, "y %.15g, want %.15g", b->position.r[1], d);
    cr_assert(fabs(b->velocity.r[0]) < 1e-12 && fabs(b->velocity.r[2]) < 1e-12);
    st_scene_destroy(&s);
    free(y);
}

/* AugmentedLagrangianResponseConstraint (SOFA's AugmentedLagrangianConstraint
 * and its resolutions): the normal multiplier grows by epsilon times the
 * violation, the tangential ones by epsilon times theirs while inside
 * mu lambda_n's cone. Below the friction angle the particle sticks and
 * rests on the plane; above it, it slides (SOFA's update outside the cone
 * is its own, not Coulomb's: no closed form is asserted there); with
 * mu = 0 (one row: SOFA's AugmentedLagrangianResolution, the unilateral
 * update) it slides freely, a = g sin theta. */
Test(lagrangian_contact, augmented_lagrangian_sticks_in_the_cone)
{
    const char *resp =
        "response: AugmentedLagrangianResponseConstraint, responseParams: mu=0.5&epsilon=100";
    double theta = 20.0 * M_PI / 180.0, down, v, gap;
    incline_run(theta, resp, 200, &down, &v, &gap);
    cr_expect(fabs(down) < 1e-9, "slid %g", down);
    cr_expect(fabs(v) < 1e-9, "speed %g", v);
    cr_expect(gap < 1e-9, "left the contact distance by %g", gap);
    theta = 45.0 * M_PI / 180.0;
    incline_run(theta, resp, 100, &down, &v, &gap);
    cr_expect(down > 1.0 && v > 1.0, "45 degrees: slid %g at %g", down, v);
    theta = 30.0 * M_PI / 180.0;
    incline_run(theta, "response: AugmentedLagrangianResponseConstraint, responseParams: mu=0", 50,
                &down, &v, &gap);
    cr_expect(fabs(v - G * sin(theta) * 0.5) < 1e-9, "mu=0: v %.12g", v);
    cr_expect(gap < 1e-9, "mu=0: left the contact distance by %g", gap);
}

/* AugmentedLagrangianConstraint: the same contact with SOFA's augmented
 * Lagrangian resolution, lambda += -epsilon d (here W = 0.005 per row, the
 * compliance 0.5 times dt, so a step epsilon = 100 halves the violation at
 * each sweep: the exact contact force, the block sticks at 20 degrees with
 * mu 0.5, while epsilon = 1 measurably does not converge); with a tiny
 * epsilon the 1000 sweeps leave the normal force short, the block sinks. */
static void auglag_case(double theta, double mu, double eps, double *vdown, double *gap)
{
    char y[4096], y2[4200];
    double nx = -sin(theta), ny = cos(theta);
    lag_unilateral_yaml(y, sizeof y, G, DT,
                        "BlockGaussSeidelConstraintSolver: {name: csolver, tolerance: 1e-12, "
                        "maxIterations: 1000}",
                        "AugmentedLagrangianConstraint", nx, ny, mu, 2.0, 0.5);
    char *at = strstr(y, "mu: ");
    cr_assert_not_null(at);
    char *end = strchr(at, '}');
    snprintf(y2, sizeof y2, "%.*s, epsilon: %.17g%s", (int)(end - y), y, eps, end);
    st_scene *s = scene_load(&T, y2);
    st_mstate *b = scene_state(s, "block");
    scene_steps(&T, s, 100);
    const double *x = b->position.r, *v = b->velocity.r;
    *vdown = -(v[0] * cos(theta) + v[1] * sin(theta));
    *gap = x[0] * nx + x[1] * ny;
    st_scene_destroy(&s);
}

Test(lagrangian_contact, augmented_lagrangian_constraint)
{
    double v, gap, theta = 20.0 * M_PI / 180.0;
    auglag_case(theta, 0.5, 100.0, &v, &gap);
    cr_assert(fabs(v) < 1e-9 && fabs(gap) < 1e-9, "sticks: v %g gap %g", v, gap);
    auglag_case(theta, 0.0, 0.0, &v, &gap);
    cr_assert(fabs(v - G * sin(theta)) < 1e-9 && fabs(gap) < 1e-9, "frictionless: v %.15g gap %g",
              v, gap);
    auglag_case(theta, 0.5, 1e-4, &v, &gap);
    cr_assert(gap < -1e-4, "a tiny epsilon leaves the contact short: gap %g", gap);
    char y[4096];
    lag_unilateral_yaml(y, sizeof y, G, DT, "BlockGaussSeidelConstraintSolver: {}",
                        "AugmentedLagrangianConstraint", 0, 1, 0.5, 2.0, 0.5);
    scene_refused(&T, y, "epsilon");
}
