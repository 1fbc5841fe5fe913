/* test_collision_response.c - DefaultCollisionGroupManager: two deformable
 * bodies, each under its own ODE solver, collide head-on without gravity.
 * With the group manager both are integrated by one solver in one system
 * (implicit matrix-free CG, implicit assembled LDL, explicit): they touch,
 * never interpenetrate, separate, and the total momentum stays what it was
 * (frictionless penalty contacts, internal springs and stiffness damping
 * all sum to zero force: round-off only). */
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
TestSuite(collision_response, .init = setup, .fini = teardown);

/* The root of every scene here: gravity (0, gy, 0), the pipeline with a
 * brute-force broad phase, the intersection method and the lines of extra
 * (the contact manager...); returns the length written. */
static int header(char *y, size_t cap, double gy, double dt, const char *method, const char *extra)
{
    return snprintf(y, cap,
                    "format: settee/1\n"
                    "root:\n"
                    "  name: root\n"
                    "  gravity: [0, %g, 0]\n"
                    "  dt: %g\n"
                    "  objects:\n"
                    "    - RequiredPlugin: {pluginName: [ODESolver.Backward, ODESolver.Forward,\n"
                    "        LinearSolver.Direct, LinearSolver.Iterative, Mass, Topology,\n"
                    "        SolidMechanics.Spring, Mapping.Linear, Collision]}\n"
                    "    - DefaultAnimationLoop: {}\n"
                    "    - CollisionPipeline: {}\n"
                    "    - BruteForceBroadPhase: {}\n"
                    "    - BVHNarrowPhase: {}\n"
                    "    - %s\n"
                    "%s"
                    "  children:\n",
                    gy, dt, method, extra);
}

static const char *SOLVERS[3] = {
    "EulerImplicitSolver: {rayleighStiffness: 0.05, rayleighMass: 0}\n"
    "        - CGLinearSolver: {iterations: 200, tolerance: 1e-20, threshold: 1e-30}",
    "EulerImplicitSolver: {rayleighStiffness: 0.05, rayleighMass: 0}\n"
    "        - SparseLDLSolver: {template: CompressedRowSparseMatrixMat3x3d}",
    "EulerExplicitSolver: {symplectic: true}",
};

/* A cube of side a at (x0, y0, z0), a 2x2x2 spring grid of mass m moving
 * along x at vx, its surface (8 corners, 12 triangles) mapped onto it,
 * under its own solver. */
static int body(char *y, size_t cap, const char *name, const char *solver, double x0, double y0,
                double z0, double a, double m, double vx)
{
    char vel[512];
    int n = snprintf(vel, sizeof vel, "[");
    for (int i = 0; i < 8; i++)
        n += snprintf(vel + n, sizeof vel - (size_t)n, "%s[%g, 0, 0]", i ? ", " : "", vx);
    snprintf(vel + n, sizeof vel - (size_t)n, "]");
    double p[8][3];
    for (int i = 0; i < 8; i++) {
        p[i][0] = x0 + ((i == 1 || i == 2 || i == 5 || i == 6) ? a : 0);
        p[i][1] = y0 + (i >= 4 ? a : 0);
        p[i][2] = z0 + ((i == 2 || i == 3 || i == 6 || i == 7) ? a : 0);
    }
    /* The grid's points: x fastest, then y, then z. */
    char grid[1024];
    n = snprintf(grid, sizeof grid, "[");
    for (int i = 0; i < 8; i++)
        n += snprintf(grid + n, sizeof grid - (size_t)n, "%s[%.17g, %.17g, %.17g]", i ? ", " : "",
                      x0 + (i & 1) * a, y0 + ((i >> 1) & 1) * a, z0 + ((i >> 2) & 1) * a);
    snprintf(grid + n, sizeof grid - (size_t)n, "]");
    char pos[1024];
    n = snprintf(pos, sizeof pos, "[");
    for (int i = 0; i < 8; i++)
        n += snprintf(pos + n, sizeof pos - (size_t)n, "%s[%.17g, %.17g, %.17g]", i ? ", " : "",
                      p[i][0], p[i][1], p[i][2]);
    snprintf(pos + n, sizeof pos - (size_t)n, "]");
    return snprintf(
        y, cap,
        "    - name: %s\n"
        "      objects:\n"
        "        - %s\n"
        "        - MechanicalObject: {name: %s_dofs, position: %s, velocity: %s}\n"
        "        - RegularGridTopology: {nx: 2, ny: 2, nz: 2, xmin: %g, xmax: %g, ymin: %g,"
        " ymax: %g, zmin: %g, zmax: %g}\n"
        "        - UniformMass: {totalMass: %g}\n"
        "        - MeshSpringForceField: {stiffness: 300, damping: 1}\n"
        "      children:\n"
        "        - name: S\n"
        "          objects:\n"
        "            - MechanicalObject: {name: %s_surf, position: %s}\n"
        "            - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2], [4, 6, 5], [4, 7, 6],"
        " [0, 4, 5], [0, 5, 1], [1, 5, 6], [1, 6, 2], [2, 6, 7], [2, 7, 3], [3, 7, 4], [3, 4, 0]]}\n"
        "            - TriangleCollisionModel: {contactStiffness: 30}\n"
        "            - LineCollisionModel: {contactStiffness: 30}\n"
        "            - PointCollisionModel: {contactStiffness: 30}\n"
        "            - BarycentricMapping: {input: \"@..\", output: \"@%s_surf\"}\n",
        name, solver, name, grid, vel, x0, x0 + a, y0, y0 + a, z0, z0 + a, m, name, pos, name);
}

static char *scene(const char *solver, bool manager, double dt)
{
    size_t cap = 32768;
    char *y = malloc(cap);
    int n = header(y, cap, 0.0, dt, "MinProximityIntersection: {alarmDistance: 0.1, contactDistance: 0.05}",
                   manager ? "    - CollisionResponse: {}\n    - DefaultCollisionGroupManager: {}\n"
                           : "    - CollisionResponse: {}\n");
    /* A (mass 1) at +1 towards B (mass 2, smaller, offset in y and z) at -0.25. */
    n += body(y + n, cap - (size_t)n, "A", solver, -1.2, 0.0, 0.0, 1.0, 1.0, 1.0);
    body(y + n, cap - (size_t)n, "B", solver, 0.2, 0.2, 0.1, 0.6, 2.0, -0.25);
    return y;
}

static st_mstate *state(st_scene *s, const char *name)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no %s", name);
    return (st_mstate *)c;
}

/* Total momentum along axis k and the centre-of-mass velocity of one body. */
static double momentum(const st_mstate *ms, double m, int k)
{
    double p = 0;
    for (size_t i = 0; i < ms->velocity.n; i++)
        p += m / (double)ms->velocity.n * ms->velocity.r[3 * i + k];
    return p;
}

static const double *pt(const st_mstate *ms, int i) { return ms->position.r + 3 * i; }

/* The signed distance of B's front face corners (its -x face: 0, 3, 4, 7)
 * to A's front face (+x: triangles 1 5 6 and 1 6 2, normal outwards) where
 * they project inside it: negative when B's corner is inside A. */
static double face_gap(const st_mstate *a, const st_mstate *b)
{
    static const int tri[2][3] = {{1, 5, 6}, {1, 6, 2}}, corner[4] = {0, 3, 4, 7};
    double gmin = 1e9;
    for (int t = 0; t < 2; t++) {
        const double *p0 = pt(a, tri[t][0]), *p1 = pt(a, tri[t][1]), *p2 = pt(a, tri[t][2]);
        double e1[3], e2[3], nrm[3];
        for (int k = 0; k < 3; k++)
            e1[k] = p1[k] - p0[k], e2[k] = p2[k] - p0[k];
        nrm[0] = e1[1] * e2[2] - e1[2] * e2[1];
        nrm[1] = e1[2] * e2[0] - e1[0] * e2[2];
        nrm[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        double sg = nrm[0] > 0 ? 1.0 : -1.0;
        for (int c = 0; c < 4; c++) {
            const double *q = pt(b, corner[c]);
            double w[3], d = 0;
            for (int k = 0; k < 3; k++)
                w[k] = q[k] - p0[k], d += w[k] * nrm[k] * sg / len;
            /* barycentric coordinates of q's projection */
            double d11 = 0, d12 = 0, d22 = 0, w1 = 0, w2 = 0;
            for (int k = 0; k < 3; k++) {
                d11 += e1[k] * e1[k], d12 += e1[k] * e2[k], d22 += e2[k] * e2[k];
                w1 += w[k] * e1[k], w2 += w[k] * e2[k];
            }
            double det = d11 * d22 - d12 * d12, u = (w1 * d22 - w2 * d12) / det,
                   v = (w2 * d11 - w1 * d12) / det;
            if (u >= 0 && v >= 0 && u + v <= 1)
                gmin = fmin(gmin, d);
        }
    }
    return gmin;
}

static void head_on_with(int which, double dt, int steps, bool manager)
{
    char *y = scene(SOLVERS[which], manager, dt);
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, y, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s", e.msg);
    if (manager) {
        cr_assert_eq(s->nsystems, 1, "the two solvers were not merged (%zu systems)", s->nsystems);
        cr_assert(strstr(T.log, "collision group: /B/EulerImplicitSolver1") ||
                      strstr(T.log, "collision group: /B/EulerExplicitSolver1"),
                  "%s", T.log);
    } else {
        cr_assert_eq(s->nsystems, 2, "%zu systems", s->nsystems);
        cr_assert(strstr(T.log, "outside every ODE solver's subtree"), "%s", T.log);
    }
    st_mstate *a = state(s, "A_dofs"), *b = state(s, "B_dofs");
    st_mstate *as = state(s, "A_surf"), *bs = state(s, "B_surf");
    double p0[3], drift = 0, gap_min = 1e9;
    for (int k = 0; k < 3; k++)
        p0[k] = momentum(a, 1, k) + momentum(b, 2, k);
    cr_assert(fabs(p0[0] - 0.5) < 1e-12, "initial momentum %g", p0[0]);
    for (int i = 0; i < steps; i++) {
        cr_assert_eq(st_scene_step(s, dt, &e), ST_OK, "step %d: %s", i, e.msg);
        for (int k = 0; k < 3; k++)
            drift = fmax(drift, fabs(momentum(a, 1, k) + momentum(b, 2, k) - p0[k]));
        gap_min = fmin(gap_min, face_gap(as, bs));
    }
    double va = momentum(a, 1, 0), vb = momentum(b, 2, 0) / 2;
    cr_log_info("solver %d: momentum drift %g, closest gap %g, final velocities %g %g", which,
                drift, gap_min, va, vb);
    /* B's corners reached A's face (within the contact distance 0.05) and
     * never went through it. */
    cr_assert(gap_min < 0.05, "the bodies never came within the contact distance (%g)", gap_min);
    cr_assert(gap_min > 0.0, "B's face went through A's (signed distance %g)", gap_min);
    cr_assert(vb - va > 0.0, "the bodies still approach after the collision (%g %g)", va, vb);
    cr_assert(drift < 1e-9, "momentum drifted by %g", drift);
    st_scene_destroy(&s);
    free(y);
}

static void head_on(int which, double dt, int steps) { head_on_with(which, dt, steps, true); }

Test(collision_response, head_on_implicit_cg) { head_on(0, 0.005, 400); }
Test(collision_response, head_on_implicit_ldl) { head_on(1, 0.005, 400); }
Test(collision_response, head_on_explicit) { head_on(2, 5e-4, 4000); }

/* Without the group manager, SOFA puts the contact's force field in the
 * pipeline's node (the root), outside both solvers: each step its force at
 * the positions before the solvers run goes to both bodies' externalForce,
 * and each solver integrates its body with it as a constant force. The two
 * bodies still meet and part, never go through each other, and the equal
 * and opposite forces keep the total momentum. */
Test(collision_response, two_solvers_without_group_manager)
{
    head_on_with(0, 0.001, 2000, false);
}

/* Two solvers of different classes are merged too (the first drives), with
 * a warning: SOFA's SolverMerger would take the more stable one. */
Test(collision_response, different_solvers_warn)
{
    char *y = scene(SOLVERS[0], true, 0.005);
    char *at = strstr(y, "EulerImplicitSolver"); /* A's solver becomes explicit */
    cr_assert_not_null(at);
    size_t cap = strlen(y) + 256;
    char *z = malloc(cap);
    char *eol = strstr(at, "\n");
    char *eol2 = strstr(eol + 1, "\n"); /* and its CG line goes */
    snprintf(z, cap, "%.*sEulerExplicitSolver: {symplectic: true}%s", (int)(at - y), y, eol2);
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, z, &s, &e), ST_OK, "%s\n%s", e.msg, z);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s", e.msg);
    cr_assert_eq(s->nsystems, 1);
    cr_assert(strstr(T.log, "are different solvers") && strstr(T.log, "EulerExplicitSolver") &&
                  strstr(T.log, "EulerImplicitSolver"),
              "%s", T.log);
    st_scene_destroy(&s);
    free(y);
    free(z);
}

/* ---- RuleBasedContactManager and the contacts of --export-state ---- */

/* Two balls (Vec3d spheres of radius 0.1, mass 1) over a static floor, each
 * under its own implicit solver; the manager's line is given. */
static char *balls_yaml(const char *manager)
{
    char *y = malloc(8192);
    char extra[512];
    snprintf(extra, sizeof extra, "    - DefaultCollisionGroupManager: {}\n    - %s\n", manager);
    int n = header(y, 8192, -9.81, 0.01,
                   "MinProximityIntersection: {alarmDistance: 0.8, contactDistance: 0.5}", extra);
    snprintf(y + n, 8192 - (size_t)n,
             "    - name: A\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: a, position: [[-1, 0.7, 0]]}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - SphereCollisionModel: {name: BallA, radius: 0.1, contactStiffness: 100}\n"
             "    - name: B\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"
             "        - MechanicalObject: {name: b, position: [[1, 0.7, 0.5]]}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - SphereCollisionModel: {name: BallB, radius: 0.1, contactStiffness: 100,"
             " group: [7]}\n"
             "    - name: Floor\n"
             "      objects:\n"
             "        - MechanicalObject: {position: [[-3, 0, -3], [3, 0, -3], [3, 0, 3], [-3, 0, 3]]}\n"
             "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
             "        - TriangleCollisionModel: {name: Ground, moving: false, simulated: false,"
             " contactStiffness: 100}\n");
    return y;
}

/* The height a Vec3d ball of mass 1 rests at: d - g / ks, d = 0.5 + 0.1,
 * ks = 100 100 / d. */
static double ball_rest(void) { return 0.6 - 9.81 / (100.0 * 100.0 / 0.6); }

static st_scene *run_balls(const char *manager, int steps)
{
    char *y = balls_yaml(manager);
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, y, &s, &e), ST_OK, "%s\n%s", e.msg, y);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s", e.msg);
    for (int i = 0; i < steps; i++)
        cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "step %d: %s", i, e.msg);
    free(y);
    return s;
}

/* A rule by model names leaves ball A without response (it falls through
 * the floor); the catch-all rule gives ball B the penalty (it rests at the
 * depth its stiffness implies). */
Test(collision_response, rules_by_name)
{
    st_scene *s = run_balls("RuleBasedContactManager: {rules: \"BallA Ground nullptr  * * "
                            "PenalityContactForceField\"}",
                            300);
    double ya = state(s, "a")->position.r[1], yb = state(s, "b")->position.r[1];
    cr_assert(ya < -1.0, "ball A was held by the floor (y %g)", ya);
    cr_assert(fabs(yb - ball_rest()) < 1e-6, "ball B at %.9g, rest %.9g", yb, ball_rest());
    cr_assert(strstr(T.log, "/A/BallA - /Floor/Ground: no response (nullptr)") ||
                  strstr(T.log, "/Floor/Ground - /A/BallA: no response (nullptr)"),
              "%s", T.log);
    st_scene_destroy(&s);
}

/* A rule by group number (either way round), then the manager's default
 * response for the pairs no rule matches. */
Test(collision_response, rules_by_group_and_default)
{
    st_scene *s = run_balls("RuleBasedContactManager: {rules: \"Ground 7 nullptr\"}", 300);
    double ya = state(s, "a")->position.r[1], yb = state(s, "b")->position.r[1];
    cr_assert(fabs(ya - ball_rest()) < 1e-6, "ball A at %.9g, rest %.9g", ya, ball_rest());
    cr_assert(yb < -1.0, "ball B (group 7) was held by the floor (y %g)", yb);
    st_scene_destroy(&s);
}

/* SOFA reads the rules as triplets until the text ends: an incomplete
 * last rule (SOFA's own example writes rules="default") is dropped with a
 * warning, and the rules before it stay. */
Test(collision_response, incomplete_last_rule_is_ignored)
{
    st_scene *s = run_balls("RuleBasedContactManager: {rules: \"default\"}", 300);
    double ya = state(s, "a")->position.r[1], yb = state(s, "b")->position.r[1];
    cr_assert(fabs(ya - ball_rest()) < 1e-6 && fabs(yb - ball_rest()) < 1e-6, "balls at %g %g",
              ya, yb);
    cr_assert(strstr(T.log, "rule 1 has 1 word ('default'): each rule is a triplet"), "%s", T.log);
    st_scene_destroy(&s);
    T.len = 0; /* the log of this run only */
    test_log_clear(&T);
    s = run_balls("RuleBasedContactManager: {rules: \"Ground 7 nullptr  BallA Ground\"}", 300);
    ya = state(s, "a")->position.r[1], yb = state(s, "b")->position.r[1];
    cr_assert(fabs(ya - ball_rest()) < 1e-6, "ball A at %.9g", ya);
    cr_assert(yb < -1.0, "the first rule was lost: ball B at %g", yb);
    cr_assert(strstr(T.log, "rule 2 has 2 words ('BallA' ...)"), "%s", T.log);
    st_scene_destroy(&s);
}

/* A model's contactResponse comes before the rules (SOFA's order). */
Test(collision_response, model_response_first)
{
    char *y = balls_yaml("RuleBasedContactManager: {rules: \"* * nullptr\"}");
    char *at = strstr(y, "name: BallB, radius: 0.1,");
    cr_assert_not_null(at);
    char *z = malloc(strlen(y) + 64);
    snprintf(z, strlen(y) + 64, "%.*sname: BallB, contactResponse: PenalityContactForceField,%s",
             (int)(at - y), y, at + strlen("name: BallB,"));
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, z, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s", e.msg);
    for (int i = 0; i < 300; i++)
        cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "%s", e.msg);
    cr_assert(state(s, "a")->position.r[1] < -1.0);
    cr_assert(fabs(state(s, "b")->position.r[1] - ball_rest()) < 1e-6);
    st_scene_destroy(&s);
    free(y);
    free(z);
}

/* Bad rules and unavailable responses: clear errors naming the field. */
Test(collision_response, bad_rules_are_refused)
{
    const char *bad[3][2] = {
        {"RuleBasedContactManager: {rules: \"* * FrictionContactConstraint?mu=0.5\"}",
         "Lagrangian response other than the manager's"},
        {"RuleBasedContactManager: {variables: resp, rules: \"* * $resp$\"}", "variables"},
        {"CollisionResponse: {response: AugmentedLagrangianResponse}", "not available"},
    };
    for (int k = 0; k < 3; k++) {
        char *y = balls_yaml(bad[k][0]);
        st_scene *s = NULL;
        st_error e = {0};
        cr_assert_eq(test_load_string(&T, y, &s, &e), ST_OK, "%s", e.msg);
        cr_assert_neq(st_scene_init(s, &e), ST_OK, "%s accepted", bad[k][0]);
        cr_assert(strstr(e.msg, bad[k][1]), "%s: %s", bad[k][0], e.msg);
        st_scene_destroy(&s);
        free(y);
    }
}

/* Reads the numbers of the JSON list after "key": (nested lists flattened). */
static size_t json_numbers(const char *text, const char *key, double *out, size_t max)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\": ", key);
    const char *p = strstr(text, k);
    cr_assert_not_null(p, "no %s in the export", key);
    p += strlen(k);
    size_t n = 0;
    int depth = 0;
    do {
        if (*p == '[')
            depth++, p++;
        else if (*p == ']')
            depth--, p++;
        else if (*p == ',' || *p == ' ' || *p == '\n')
            p++;
        else {
            char *end;
            double v = strtod(p, &end);
            cr_assert(end != p, "bad number in %s: %.20s", key, p);
            if (n < max)
                out[n] = v;
            n++;
            p = end;
        }
    } while (depth > 0 && *p);
    return n;
}

/* The export holds this step's contacts: the pairs with a response, their
 * counts, points, normals and distances, against the closed form of a
 * ball resting on the floor (contact at the foot of its centre, normal up,
 * distance centre height minus the rest distance 0.6). */
Test(collision_response, contacts_in_export_state)
{
    st_scene *s = run_balls("RuleBasedContactManager: {rules: \"BallA Ground nullptr\"}", 200);
    const double *b = state(s, "b")->position.r;
    double c[3] = {b[0], b[1], b[2]}; /* the step's detection used the position before it */
    st_error e = {0};
    cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "%s", e.msg);
    const char *path = test_write_temp("contacts.json", "");
    cr_assert_eq(st_scene_export_state(s, path, 201, &e), ST_OK, "%s", e.msg);
    char *text = test_read_file(path);
    cr_assert(strstr(text, "\"contacts\": [\n {\"path\": \"/CollisionPipeline1\""), "%s", text);
    /* The balls' pair (no contact) and B's with the floor; A's is left out. */
    cr_assert(strstr(text, "\"contactPairs\": [\"/B/BallB\", \"/A/BallA\", \"/Floor/Ground\", "
                           "\"/B/BallB\"]"),
              "%s", text);
    double v[16];
    cr_assert_eq(json_numbers(text, "contactCounts", v, 16), 2);
    cr_assert(v[0] == 0 && v[1] == 1, "counts %g %g", v[0], v[1]);
    cr_assert_eq(json_numbers(text, "contactPoints", v, 16), 6);
    const double want[6] = {c[0], 0, c[2], c[0], c[1], c[2]};
    for (int k = 0; k < 6; k++)
        cr_assert(fabs(v[k] - want[k]) < 1e-12, "point coordinate %d: %.17g, want %.17g", k, v[k],
                  want[k]);
    cr_assert_eq(json_numbers(text, "contactNormals", v, 16), 3);
    cr_assert(fabs(v[0]) < 1e-15 && fabs(v[1] - 1) < 1e-15 && fabs(v[2]) < 1e-15,
              "normal %g %g %g", v[0], v[1], v[2]);
    cr_assert_eq(json_numbers(text, "contactDistances", v, 16), 1);
    cr_assert(fabs(v[0] - (c[1] - 0.6)) < 1e-12, "distance %.17g, want %.17g", v[0], c[1] - 0.6);
    cr_assert(v[0] < 0 && fabs(v[0] + 9.81 / (1e4 / 0.6)) < 1e-6, "penetration %g", -v[0]);
    free(text);
    st_scene_destroy(&s);
}

/* ---- the rigid contact's geometric stiffness ---- */

/* Two Rigid3d spheres (turned frames) pressed into each other and the first
 * onto a static floor, under one solver; the response asks for the rigid
 * mapping's geometric stiffness or not. Returns the worst gap between the
 * finite-difference Jacobian of the forces (x (+) eps e_j, central) and
 * add_dforce, and between add_dforce and the assembled matrix, relative to
 * the largest stiffness entry; *rot_gap receives the largest
 * finite-difference rotation-rotation entry that add_dforce misses. */
static void rigid_jacobian(const char *params, double *fd_gap, double *mat_gap, double *rot_gap)
{
    char y[8192];
    char extra[256];
    /* The group manager puts the A-B contact in the solver's node (without
     * it SOFA leaves it in the root, outside the solver: no stiffness). */
    snprintf(extra, sizeof extra,
             "    - CollisionResponse: {%s}\n    - DefaultCollisionGroupManager: {}\n", params);
    int n = header(y, sizeof y, 0.0, 0.01,
                   "MinProximityIntersection: {alarmDistance: 0.3, contactDistance: 0.1}", extra);
    snprintf(y + n, sizeof y - (size_t)n,
             "    - name: Bodies\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {}\n"
             "      children:\n"
             "        - name: A\n"
             "          objects:\n"
             "            - MechanicalObject: {template: Rigid3d, position: [[0.1, 0.35, -0.05,"
             " 0.1825742, 0.3651484, 0.5477226, 0.7302967]]}\n"
             "            - UniformMass: {totalMass: 2}\n"
             "            - SphereCollisionModel: {radius: 0.3, contactStiffness: 20}\n"
             "        - name: B\n"
             "          objects:\n"
             "            - MechanicalObject: {template: Rigid3d, position: [[0.55, 0.55, 0.15,"
             " -0.2, 0.1, 0.3, 0.9273618]]}\n"
             "            - UniformMass: {totalMass: 2}\n"
             "            - SphereCollisionModel: {radius: 0.3, contactStiffness: 20}\n"
             "    - name: Floor\n"
             "      objects:\n"
             "        - MechanicalObject: {position: [[-3, 0, -3], [3, 0, -3], [3, 0, 3], [-3, 0, 3]]}\n"
             "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
             "        - TriangleCollisionModel: {moving: false, simulated: false, contactStiffness: 20}\n");
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, y, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s", e.msg);
    st_component *pipe = test_find_object(s, "CollisionPipeline1");
    cr_assert_eq(pipe->cls->collision->compute(pipe, st_scene_root(s), &e), ST_OK, "%s", e.msg);
    st_system *sys = s->systems[0];
    size_t nd = sys->size_all, nx = sys->xsize_all;
    cr_assert_eq(sys->size, 12);
    double *x0 = malloc(nx * sizeof *x0), *xp = malloc(nx * sizeof *xp);
    double *fp = calloc(nd, sizeof *fp), *fm = calloc(nd, sizeof *fm), *dx = calloc(nd, sizeof *dx);
    double *df = calloc(nd, sizeof *df), *km = calloc(nd, sizeof *km);
    memcpy(x0, sys->x, nx * sizeof *x0);
    st_system_compute_force(sys, fp, x0, sys->v);
    cr_assert(fabs(fp[1]) > 1.0 && fabs(fp[6]) > 1.0, "no contact forces (%g %g)", fp[1], fp[6]);
    st_matrix *mat = NULL;
    cr_assert_eq(st_matrix_create(sys, &mat, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_matrix_assemble(mat, sys, 0.0, 0.0, 1.0, &e), ST_OK, "%s", e.msg);
    const double eps = 1e-6;
    double worst = 0, worst_m = 0, kmax = 0, rot = 0;
    for (size_t col = 0; col < sys->size; col++) {
        double *f2[2] = {fm, fp};
        memset(dx, 0, nd * sizeof *dx);
        dx[col] = 1.0;
        for (int sg = 0; sg < 2; sg++) {
            st_vec_x_op(sys, xp, x0, dx, sg ? eps : -eps);
            st_system_propagate_x(sys, xp);
            memset(f2[sg], 0, nd * sizeof *fp);
            st_system_compute_force(sys, f2[sg], xp, sys->v);
        }
        st_system_propagate_x(sys, x0);
        memset(df, 0, nd * sizeof *df);
        st_system_compute_force(sys, df, x0, sys->v); /* back at x0: arms and penetrations */
        memset(df, 0, nd * sizeof *df);
        st_system_add_mbkdx(sys, df, dx, 0.0, 0.0, 1.0, true);
        st_matrix_mul(mat, km, dx);
        for (size_t r = 0; r < sys->size; r++) {
            double fd = (fp[r] - fm[r]) / (2 * eps);
            worst = fmax(worst, fabs(fd - df[r]));
            worst_m = fmax(worst_m, fabs(km[r] - df[r]));
            kmax = fmax(kmax, fabs(fd));
            if (r % 6 >= 3 && col % 6 >= 3)
                rot = fmax(rot, fabs(fd - df[r]));
        }
    }
    cr_log_info("%s: max stiffness %g, add_dforce vs FD %g, matrix vs add_dforce %g, rotation %g",
                params, kmax, worst, worst_m, rot);
    *fd_gap = worst / kmax;
    *mat_gap = worst_m / kmax;
    *rot_gap = rot / kmax;
    st_matrix_destroy(&mat);
    free(x0), free(xp), free(fp), free(fm), free(dx), free(df), free(km);
    st_scene_destroy(&s);
}

/* With geometricStiffness=1 the contact's stiffness is the derivative of
 * its forces and torques, rotations included; without it (SOFA's default)
 * exactly the rotation-rotation terms are missing. */
Test(collision_response, rigid_contact_geometric_stiffness)
{
    double fd, mat, rot;
    rigid_jacobian("responseParams: geometricStiffness=1", &fd, &mat, &rot);
    cr_assert(fd < 1e-6, "add_dforce vs finite differences: %g of the largest entry", fd);
    cr_assert(mat < 1e-12, "assembled K vs add_dforce: %g of the largest entry", mat);
    rigid_jacobian("", &fd, &mat, &rot);
    cr_assert(mat < 1e-12, "assembled K vs add_dforce: %g", mat);
    cr_assert(rot > 1e-3, "the rotation terms should be missing without it (%g)", rot);
    cr_assert(fabs(fd - rot) < 1e-6, "only the rotation terms should differ (%g, %g)", fd, rot);
}

/* ---- self-collision: a folded cloth ---- */

/* A cloth strip folded in a U (a bottom layer on the floor, a half-circle
 * bend, a top layer 0.3 above) with springs on its edges: gravity drops the
 * top layer onto the bottom one. NC columns across (z), the bottom and top
 * layers NL rows each (x), NB rows in the bend. */
enum { NC = 6, NL = 12, NB = 5, NROWS = 2 * NL + NB };

static char *folded_cloth_yaml(bool self)
{
    size_t cap = 1 << 17;
    char *y = malloc(cap);
    int n = header(y, cap, -9.81, 0.004,
                   "MinProximityIntersection: {alarmDistance: 0.05, contactDistance: 0.02}",
                   /* the group manager keeps the self-contacts in the
                    * cloth's solver (implicit) */
                   "    - CollisionResponse: {}\n    - DefaultCollisionGroupManager: {}\n");
    n += snprintf(y + n, cap - (size_t)n,
                     "    - name: Cloth\n"
                     "      objects:\n"
                     "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.5}\n"
                     "        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20}\n"
                     "        - MechanicalObject: {name: cloth, position: [");
    const double h = 0.1, r = 0.15, y0 = 0.04;
    for (int i = 0; i < NROWS; i++) {
        double x, yy;
        if (i < NL) {
            x = i * h, yy = y0;
        } else if (i < NL + NB) { /* the bend: a half circle around (x_end, y0 + r) */
            double a = M_PI * (i - NL + 1) / (NB + 1) - M_PI / 2;
            x = (NL - 1) * h + r * cos(a), yy = y0 + r + r * sin(a);
        } else {
            x = (2 * NL + NB - 1 - i) * h, yy = y0 + 2 * r;
        }
        for (int j = 0; j < NC; j++)
            n += snprintf(y + n, cap - (size_t)n, "%s[%.17g, %.17g, %g]", i || j ? ", " : "", x, yy,
                          j * h);
    }
    n += snprintf(y + n, cap - (size_t)n, "]}\n        - MeshTopology: {triangles: [");
    for (int i = 0; i + 1 < NROWS; i++)
        for (int j = 0; j + 1 < NC; j++) {
            int a = i * NC + j, b = a + 1, c = a + NC, d = c + 1;
            n += snprintf(y + n, cap - (size_t)n, "%s[%d, %d, %d], [%d, %d, %d]", i || j ? ", " : "",
                          a, c, b, b, c, d);
        }
    snprintf(y + n, cap - (size_t)n,
             "]}\n"
             "        - UniformMass: {totalMass: 1}\n"
             "        - MeshSpringForceField: {stiffness: 300, damping: 0.5}\n"
             "        - TriangleCollisionModel: {selfCollision: %s, contactStiffness: 10}\n"
             "        - LineCollisionModel: {selfCollision: %s, contactStiffness: 10}\n"
             "        - PointCollisionModel: {selfCollision: %s, contactStiffness: 10}\n"
             "    - name: Floor\n"
             "      objects:\n"
             "        - MechanicalObject: {position: [[-3, 0, -3], [4, 0, -3], [4, 0, 3], [-3, 0, 3]]}\n"
             "        - MeshTopology: {triangles: [[0, 2, 1], [0, 3, 2]]}\n"
             "        - TriangleCollisionModel: {moving: false, simulated: false, contactStiffness: 10}\n",
             self ? "true" : "false", self ? "true" : "false", self ? "true" : "false");
    return y;
}

/* The lowest height of the top layer's vertices above the bottom layer's
 * vertex under them (same grid column, mirrored row), over the run. */
static double fold_gap(bool self, int steps, int *crossed)
{
    char *y = folded_cloth_yaml(self);
    st_scene *s = NULL;
    st_error e = {0};
    cr_assert_eq(test_load_string(&T, y, &s, &e), ST_OK, "%s", e.msg);
    cr_assert_eq(st_scene_init(s, &e), ST_OK, "init: %s", e.msg);
    st_mstate *c = state(s, "cloth");
    double gmin = 1e9;
    for (int k = 0; k < steps; k++) {
        cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "step %d: %s", k, e.msg);
        *crossed = 0;
        for (int i = 0; i < NL; i++)
            for (int j = 0; j < NC; j++) {
                const double *bot = c->position.r + 3 * (i * NC + j);
                const double *top = c->position.r + 3 * ((2 * NL + NB - 1 - i) * NC + j);
                gmin = fmin(gmin, top[1] - bot[1]);
                *crossed += top[1] < bot[1];
            }
    }
    st_scene_destroy(&s);
    free(y);
    return gmin;
}

/* With selfCollision the top layer comes down onto the bottom one and no
 * vertex of it passes below the bottom layer; without it (the control)
 * the layers pass through each other. */
Test(collision_response, folded_cloth_does_not_pass_through_itself)
{
    int crossed = 0;
    double g = fold_gap(true, 250, &crossed);
    cr_log_info("self-collision: lowest gap %g, %d vertices crossed", g, crossed);
    cr_assert(g < 0.1, "the top layer never came down (gap %g)", g);
    cr_assert(g > 0.0 && crossed == 0, "the cloth passed through itself (gap %g, %d crossed)", g,
              crossed);
    g = fold_gap(false, 250, &crossed);
    cr_log_info("no self-collision: lowest gap %g, %d vertices crossed", g, crossed);
    cr_assert(crossed > 0, "without selfCollision the layers should cross (gap %g)", g);
}
