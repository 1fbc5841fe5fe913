/* test_articulated.c - the ArticulatedSystemPlugin: a two-link planar arm
 * placed by given angles lands on the hand-worked frames (the three
 * articulationProcess rules agree on planar z rotations; a slide moves
 * along the child's axis); J (get_j and apply_j) is the finite-difference
 * derivative of apply, with the base on input2, and apply_jt its
 * transpose; a one-link pendulum driven through its articulation angle
 * under gravity, integrated by EulerImplicitSolver, follows the closed
 * form theta0 cos(omega t) of a physical pendulum; bad hierarchies are
 * refused with a message naming what is wrong; a FixedLagrangianConstraint
 * on a six-articulation body holds it through J^T; a checkpointed run of the
 * increment rules resumes bit-identically. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(articulated, .init = setup, .fini = teardown);

#define PLUGINS                                                                                   \
    "    - RequiredPlugin: {pluginName: [ArticulatedSystemPlugin,"                                \
    " Sofa.Component.ODESolver.Backward, Sofa.Component.LinearSolver.Iterative,"                  \
    " Sofa.Component.LinearSolver.Direct, Sofa.Component.Mass,"                                   \
    " Sofa.Component.Constraint.Projective]}\n"

/* The arm: body 0 (the base), body 1 jointed to it at the base's origin
 * (its own point (-1, 0, 0)), body 2 jointed to body 1 at (1, 0, 0) of
 * body 1 ((-1, 0, 0) of body 2). Center 2 also slides along x (value 2). */
static const char *arm_yaml(int process, double a0, double a1, double s2, const char *extra)
{
    static char yaml[8192];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: 0.01\n"
             "  gravity: [0, 0, 0]\n"
             "  objects:\n" PLUGINS
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20}\n"
             "        - MechanicalObject: {name: angles, template: Vec1d,"
             " position: [%.17g, %.17g, %.17g]}\n"
             "        - ArticulatedHierarchyContainer: {}\n"
             "      children:\n"
             "        - name: C\n"
             "          objects:\n"
             "            - MechanicalObject: {name: out, template: Rigid3d, position: ["
             "0,0,0, 0,0,0,1,  5,5,5, 0,0,0,1,  7,7,7, 0,0,0,1]}\n"
             "            - ArticulatedSystemMapping: {name: map, input1: \"@../angles\","
             " output: \"@out\"%s}\n"
             "        - name: centers\n"
             "          children:\n"
             "            - name: c1\n"
             "              objects:\n"
             "                - ArticulationCenter: {parentIndex: 0, childIndex: 1,"
             " posOnParent: [0, 0, 0], posOnChild: [-1, 0, 0], articulationProcess: %d}\n"
             "              children:\n"
             "                - name: a\n"
             "                  objects:\n"
             "                    - Articulation: {rotation: true, rotationAxis: [0, 0, 2],"
             " articulationIndex: 0}\n"
             "            - name: c2\n"
             "              objects:\n"
             "                - ArticulationCenter: {parentIndex: 1, childIndex: 2,"
             " posOnParent: [1, 0, 0], posOnChild: [-1, 0, 0], articulationProcess: %d}\n"
             "              children:\n"
             "                - name: a\n"
             "                  objects:\n"
             "                    - Articulation: {rotation: true, axis: [0, 0, 1],"
             " articulationIndex: 1}\n"
             "                    - Articulation: {translation: true, axis: [1, 0, 0],"
             " articulationIndex: 2}\n",
             a0, a1, s2, extra, process, process);
    return yaml;
}

static st_scene *arm_scene(int process, double a0, double a1, double s2, const char *extra)
{
    return topo_scene(&T, arm_yaml(process, a0, a1, s2, extra));
}

static void assert_frame(const double *x, double cx, double cy, double cz, double angle_z,
                         double tol, const char *what)
{
    /* The same rotation as q or -q. */
    double qz = sin(angle_z / 2), qw = cos(angle_z / 2);
    double e = fmin(fabs(x[5] - qz) + fabs(x[6] - qw), fabs(x[5] + qz) + fabs(x[6] + qw));
    cr_assert_leq(fabs(x[0] - cx) + fabs(x[1] - cy) + fabs(x[2] - cz) + fabs(x[3]) +
                      fabs(x[4]) + e,
                  tol, "%s: (%.12g %.12g %.12g | %.12g %.12g %.12g %.12g), expected (%g %g %g) "
                  "about z by %g",
                  what, x[0], x[1], x[2], x[3], x[4], x[5], x[6], cx, cy, cz, angle_z);
}

Test(articulated, two_link_arm_lands_on_the_hand_worked_frames)
{
    /* a0 = 90 deg: body 1 turns about the base's origin, its centre goes
     * from (1, 0, 0) to (0, 1, 0); joint 2 is at body 1's (1, 0, 0), i.e.
     * (0, 2, 0). a1 = -90 deg brings body 2 back to the x axis: (1, 2, 0),
     * then the slide 0.5 along its x: (1.5, 2, 0). */
    st_scene *s = arm_scene(0, M_PI / 2, -M_PI / 2, 0.5, "");
    st_mstate *out = (st_mstate *)topo_get(s, "/P/C/out");
    assert_frame(out->position.r, 0, 0, 0, 0, 1e-14, "body 0");
    assert_frame(out->position.r + 7, 0, 1, 0, M_PI / 2, 1e-14, "body 1");
    assert_frame(out->position.r + 14, 1.5, 2, 0, 0, 1e-14, "body 2");
    /* globalPosition of center 2 is joint 2. */
    st_component *c2 = topo_get(s, "/P/centers/c2/ArticulationCenter1");
    const double *g = st_component_field_ptr(c2, st_component_field(c2, "globalPosition"));
    cr_assert_leq(fabs(g[0]) + fabs(g[1] - 2) + fabs(g[2]), 1e-14, "%g %g %g", g[0], g[1], g[2]);
    /* axis was normalised (process 0 writes it back, as SOFA). */
    st_component *a1 = topo_get(s, "/P/centers/c1/a/Articulation1");
    const double *ax = st_component_field_ptr(a1, st_component_field(a1, "axis"));
    cr_assert_float_eq(ax[2], 1.0, 1e-15);
    st_scene_destroy(&s);

    /* a0 = 30 deg, a1 = 45 deg, no slide: body 1 at (cos 30, sin 30),
     * joint 2 at 2 (cos 30, sin 30), body 2 at joint 2 + (cos 75, sin 75). */
    s = arm_scene(0, M_PI / 6, M_PI / 4, 0.0, "");
    out = (st_mstate *)topo_get(s, "/P/C/out");
    const double c30 = cos(M_PI / 6), s30 = sin(M_PI / 6);
    assert_frame(out->position.r + 7, c30, s30, 0, M_PI / 6, 1e-14, "body 1 (30)");
    assert_frame(out->position.r + 14, 2 * c30 + cos(5 * M_PI / 12), 2 * s30 + sin(5 * M_PI / 12),
                 0, 5 * M_PI / 12, 1e-14, "body 2 (30 + 45)");
    st_scene_destroy(&s);
}

/* Sets the angles in the system's x and propagates (the mapping's apply). */
static void set_angles(st_scene *s, const double *a, size_t n)
{
    st_mstate *in = (st_mstate *)topo_get(s, "/P/angles");
    st_system *sys = in->system;
    cr_assert_not_null(sys);
    memcpy(st_slice_x(sys->x, in), a, n * sizeof *a);
    st_system_propagate_x(sys, sys->x);
}

Test(articulated, increment_processes_place_the_arm_as_euler_angles)
{
    /* Processes 1 and 2 take increments from the values at init (SOFA:
     * the initial values are the reference), so start at zero and move. */
    for (int p = 1; p <= 2; p++) {
        st_scene *s = arm_scene(p, 0, 0, 0, "");
        st_mstate *out = (st_mstate *)topo_get(s, "/P/C/out");
        assert_frame(out->position.r + 7, 1, 0, 0, 0, 1e-14, "straight body 1");
        assert_frame(out->position.r + 14, 3, 0, 0, 0, 1e-14, "straight body 2");
        const double a[3] = {M_PI / 6, M_PI / 4, 0.0};
        set_angles(s, a, 3);
        const double *x = out->position.r;
        const double c30 = cos(M_PI / 6), s30 = sin(M_PI / 6);
        assert_frame(x + 7, c30, s30, 0, M_PI / 6, 1e-14, "body 1");
        assert_frame(x + 14, 2 * c30 + cos(5 * M_PI / 12), 2 * s30 + sin(5 * M_PI / 12), 0,
                     5 * M_PI / 12, 1e-14, "body 2");
        /* Applying the same values again changes nothing (increments). */
        set_angles(s, a, 3);
        assert_frame(x + 14, 2 * c30 + cos(5 * M_PI / 12), 2 * s30 + sin(5 * M_PI / 12), 0,
                     5 * M_PI / 12, 1e-14, "body 2 again");
        st_scene_destroy(&s);
    }
}

/* ---- J ---- */

static unsigned long rng = 777;
static double rnd(void)
{
    rng = rng * 6364136223846793005ul + 1442695040888963407ul;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* J (dense, from get_j) against central differences of apply, and apply_j
 * and apply_jt against J. */
static void check_j(st_scene *s)
{
    st_component *map = topo_get(s, "/P/C/map");
    st_mstate *out = map->cls->mapping->output(map);
    st_mstate *in = map->cls->mapping->input(map);
    st_system *sys = in->system;
    size_t rows = 6 * out->n, cols = sys->size_all;
    double *J = calloc(rows * cols, sizeof *J);
    st_error err = {0};
    cr_assert_eq(st__mapgraph_dense_j(sys, map, J, rows, cols, &err), ST_OK, "%s", err.msg);
    double *x0 = malloc(sys->xsize_all * sizeof *x0), *xp = malloc(sys->xsize_all * sizeof *xp);
    double *base = malloc(7 * out->n * sizeof *base);
    double *dp = malloc(rows * sizeof *dp), *dm = malloc(rows * sizeof *dm);
    memcpy(x0, sys->x, sys->xsize_all * sizeof *x0);
    memcpy(base, st_slice_x(x0, out), 7 * out->n * sizeof *base);
    const double eps = 1e-6;
    double worst = 0, jmax = 0;
    size_t ncols_seen = 0;
    for (size_t st = 0; st < sys->nindep; st++) {
        const st_mstate *ms = sys->states[st];
        const unsigned cw = ms->type->coord_size, dw = ms->type->deriv_size;
        for (size_t p = 0; p < ms->n; p++)
            for (unsigned a = 0; a < dw; a++) {
                double e[6] = {0};
                e[a] = 1;
                for (int sg = -1; sg <= 1; sg += 2) {
                    memcpy(xp, x0, sys->xsize_all * sizeof *xp);
                    double *xi = st_slice_x(xp, ms) + (size_t)cw * p;
                    ms->type->add_deriv(xi, xi, e, sg * eps, 1);
                    map->cls->mapping->apply(map, &sys->mp, xp);
                    out->type->diff(sg > 0 ? dp : dm, st_slice_x(xp, out), base, out->n);
                }
                size_t col = ms->doffset + (size_t)dw * p + a;
                for (size_t r = 0; r < rows; r++) {
                    worst = fmax(worst, fabs((dp[r] - dm[r]) / (2 * eps) - J[r * cols + col]));
                    jmax = fmax(jmax, fabs(J[r * cols + col]));
                }
                ncols_seen++;
            }
    }
    map->cls->mapping->apply(map, &sys->mp, x0);
    cr_log_info("ArticulatedSystemMapping: max |J - J_fd| = %.3g over %zu columns (max |J| %.3g)",
                worst, ncols_seen, jmax);
    cr_assert_gt(jmax, 0.5);
    cr_assert_leq(worst, 1e-7, "J differs from the derivative of apply by %.3g", worst);
    /* apply_j = J u, <J u, w> = <u, J^T w>. */
    size_t n = sys->size_all;
    double *u = calloc(n, sizeof *u), *w = calloc(n, sizeof *w);
    for (size_t k = 0; k < sys->size; k++)
        u[k] = rnd();
    double *wo = st_slice(w, out);
    for (size_t k = 0; k < rows; k++)
        wo[k] = rnd();
    map->cls->mapping->apply_j(map, &sys->mp, u);
    const double *uo = st_slice(u, out);
    double ju_w = 0, derr = 0;
    for (size_t r = 0; r < rows; r++) {
        double acc = 0;
        for (size_t k = 0; k < cols; k++)
            acc += J[r * cols + k] * u[k];
        derr = fmax(derr, fabs(acc - uo[r]));
        ju_w += uo[r] * wo[r];
    }
    memset(w, 0, sys->size * sizeof *w);
    map->cls->mapping->apply_jt(map, &sys->mp, w);
    double u_jtw = 0;
    for (size_t k = 0; k < sys->size; k++)
        u_jtw += u[k] * w[k];
    cr_assert_leq(derr, 1e-12, "apply_j differs from get_j's J by %.3g", derr);
    cr_assert_leq(fabs(ju_w - u_jtw), 1e-12 * fmax(1, fabs(ju_w)), "<Ju,w> %.17g, <u,J^T w> %.17g",
                  ju_w, u_jtw);
    free(u), free(w), free(J), free(x0), free(xp), free(base), free(dp), free(dm);
}

Test(articulated, jacobian_matches_finite_differences)
{
    st_scene *s = arm_scene(0, 0.3, -0.7, 0.2, "");
    check_j(s);
    st_scene_destroy(&s);
}

/* The base on input2: a Rigid3d point (the last of two, the default
 * indexInput2) turned and moved; body 0 follows it and J has its columns. */
Test(articulated, base_on_input2_follows_and_enters_j)
{
    static char yaml[8192];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: 0.01\n"
             "  objects:\n" PLUGINS
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20}\n"
             "        - MechanicalObject: {name: angles, template: Vec1d, position: [0.4, 0.9]}\n"
             "        - ArticulatedHierarchyContainer: {name: ahc}\n"
             "      children:\n"
             "        - name: B\n"
             "          objects:\n"
             "            - MechanicalObject: {name: base, template: Rigid3d, position: ["
             "9,9,9, 0,0,0,1,  1,2,3, 0.6,0,0,0.8]}\n"
             "        - name: C\n"
             "          objects:\n"
             "            - MechanicalObject: {name: out, template: Rigid3d, position: ["
             "0,0,0, 0,0,0,1,  0,0,0, 0,0,0,1,  0,0,0, 0,0,0,1]}\n"
             "            - ArticulatedSystemMapping: {name: map, input1: \"@../angles\","
             " input2: \"@../B/base\", output: \"@out\", container: \"@../ahc\"}\n"
             "        - name: c1\n"
             "          objects:\n"
             "            - ArticulationCenter: {parentIndex: 0, childIndex: 1,"
             " posOnParent: [0.5, 0, 0], posOnChild: [0, -1, 0]}\n"
             "          children:\n"
             "            - name: a\n"
             "              objects:\n"
             "                - Articulation: {rotation: true, axis: [0, 1, 1],"
             " articulationIndex: 0}\n"
             "        - name: c2\n"
             "          objects:\n"
             "            - ArticulationCenter: {parentIndex: 1, childIndex: 2,"
             " posOnParent: [0, 1, 0], posOnChild: [0, -1, 0]}\n"
             "          children:\n"
             "            - name: a\n"
             "              objects:\n"
             "                - Articulation: {rotation: true, axis: [1, 0, 0],"
             " articulationIndex: 1}\n");
    st_scene *s = topo_scene(&T, yaml);
    const double *x = ((st_mstate *)topo_get(s, "/P/C/out"))->position.r;
    const double want[7] = {1, 2, 3, 0.6, 0, 0, 0.8};
    for (int k = 0; k < 7; k++)
        cr_assert_float_eq(x[k], want[k], 1e-15, "body 0 [%d] = %g", k, x[k]);
    /* Joint 1 is the base's (0.5, 0, 0): unrotated by the base's x turn. */
    st_component *c1 = topo_get(s, "/P/c1/ArticulationCenter1");
    const double *g = st_component_field_ptr(c1, st_component_field(c1, "globalPosition"));
    cr_assert_leq(fabs(g[0] - 1.5) + fabs(g[1] - 2) + fabs(g[2] - 3), 1e-14);
    check_j(s);
    st_scene_destroy(&s);
}

/* ---- the pendulum ---- */

/* Body 1 hangs at L below the pivot (body 0, fixed) through one rotation
 * about z: x1 = (L sin a, -L cos a). Mass m = 1 with inertia k about its
 * centre: (L^2 + k) a'' = -g L sin a, omega^2 = g L / (L^2 + k). */
static double pendulum(const char *ls, double a0, double dt, double t_end, double *a_end)
{
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: %.17g\n"
             "  gravity: [0, -9.81, 0]\n"
             "  objects:\n" PLUGINS
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {rayleighStiffness: 0, rayleighMass: 0}\n"
             "        - %s\n"
             "        - MechanicalObject: {name: angles, template: Vec1d, position: [%.17g]}\n"
             "        - ArticulatedHierarchyContainer: {}\n"
             "      children:\n"
             "        - name: C\n"
             "          objects:\n"
             "            - MechanicalObject: {name: out, template: Rigid3d, position: ["
             "0,0,0, 0,0,0,1,  0,-1,0, 0,0,0,1]}\n"
             "            - UniformMass: {vertexMass: \"1 1  0.3 0 0  0 0.3 0  0 0 0.3\"}\n"
             "            - ArticulatedSystemMapping: {name: map, input1: \"@../angles\","
             " output: \"@out\"}\n"
             "        - name: c\n"
             "          objects:\n"
             "            - ArticulationCenter: {parentIndex: 0, childIndex: 1,"
             " posOnChild: [0, 1.5, 0]}\n"
             "          children:\n"
             "            - name: a\n"
             "              objects:\n"
             "                - Articulation: {rotation: true, rotationAxis: [0, 0, 1]}\n",
             dt, ls, a0);
    st_scene *s = topo_scene(&T, yaml);
    st_mstate *ang = (st_mstate *)topo_get(s, "/P/angles");
    st_mstate *out = (st_mstate *)topo_get(s, "/P/C/out");
    const double L = 1.5, k = 0.3, g = 9.81, w = sqrt(g * L / (L * L + k));
    st_error err = {0};
    long n = lround(t_end / dt);
    double worst = 0;
    for (long i = 1; i <= n; i++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        worst = fmax(worst, fabs(ang->position.r[0] - a0 * cos(w * i * dt)));
    }
    /* The bob is where the angle says. */
    const double a = ang->position.r[0], *x1 = out->position.r + 7;
    cr_assert_leq(fabs(x1[0] - L * sin(a)) + fabs(x1[1] + L * cos(a)), 1e-12,
                  "bob (%g, %g) at angle %g", x1[0], x1[1], a);
    cr_assert_leq(fabs(out->position.r[0]) + fabs(out->position.r[1]), 0.0, "the pivot moved");
    *a_end = a;
    st_scene_destroy(&s);
    return worst;
}

Test(articulated, pendulum_follows_the_closed_form)
{
    const double a0 = 0.02;
    const char *ls[] = {"CGLinearSolver: {iterations: 50, tolerance: 1e-16, threshold: 1e-30}",
                        "SparseLDLSolver: {}"};
    for (int i = 0; i < 2; i++) {
        double a_end = 0, e1 = pendulum(ls[i], a0, 1e-3, 2.0, &a_end);
        double e2 = pendulum(ls[i], a0, 5e-4, 2.0, &a_end);
        cr_log_info("pendulum (%s): max |a - a0 cos wt| / a0 = %.3g (dt 1e-3), %.3g (dt 5e-4)",
                    ls[i], e1 / a0, e2 / a0);
        /* Backward Euler is first order: the error halves with dt. */
        cr_assert_leq(e1 / a0, 0.02, "%s: %.3g", ls[i], e1 / a0);
        cr_assert_leq(e2, 0.6 * e1, "%s: no convergence (%.3g then %.3g)", ls[i], e1, e2);
    }
}

/* ---- bad input ---- */

Test(articulated, bad_hierarchies_are_refused)
{
    static char yaml[4096];
    const char *cases[][2] = {
        {"articulationIndex: 5", "articulationIndex 5"},
        {"articulationIndex: 0", NULL},
    };
    for (int c = 0; c < 2; c++) {
        snprintf(yaml, sizeof yaml,
                 "format: settee/1\n"
                 "root:\n"
                 "  name: root\n"
                 "  objects:\n" PLUGINS
                 "  children:\n"
                 "    - name: P\n"
                 "      objects:\n"
                 "        - EulerImplicitSolver: {}\n"
                 "        - CGLinearSolver: {}\n"
                 "        - MechanicalObject: {name: angles, template: Vec1d, position: [0]}\n"
                 "%s"
                 "      children:\n"
                 "        - name: C\n"
                 "          objects:\n"
                 "            - MechanicalObject: {name: out, template: Rigid3d, position: ["
                 "0,0,0, 0,0,0,1,  0,-1,0, 0,0,0,1]}\n"
                 "            - ArticulatedSystemMapping: {input1: \"@../angles\"}\n"
                 "        - name: c\n"
                 "          objects:\n"
                 "            - ArticulationCenter: {parentIndex: 0, childIndex: 1}\n"
                 "          children:\n"
                 "            - name: a\n"
                 "              objects:\n"
                 "                - Articulation: {rotation: true, %s}\n",
                 c == 0 ? "        - ArticulatedHierarchyContainer: {}\n" : "", cases[c][0]);
        st_error err = {0};
        cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
        const char *want = cases[c][1] ? cases[c][1] : "ArticulatedHierarchyContainer";
        cr_assert(strstr(err.msg, want), "case %d: %s", c, err.msg);
    }
}

/* ---- checkpoints ---- */

/* A swinging two-link chain whose centers use the increment rules (2 and
 * 1): the mapping's own state (the last values, the accumulated rotations)
 * goes into a checkpoint, so a resumed run is bit-identical. */
static st_scene *chain_scene(void)
{
    return topo_scene(&T,
                      "format: settee/1\n"
                      "root:\n"
                      "  name: root\n"
                      "  dt: 0.01\n"
                      "  gravity: [0, -9.81, 0]\n"
                      "  objects:\n" PLUGINS
                      "  children:\n"
                      "    - name: P\n"
                      "      objects:\n"
                      "        - EulerImplicitSolver: {}\n"
                      "        - SparseLDLSolver: {}\n"
                      "        - MechanicalObject: {name: angles, template: Vec1d,"
                      " position: [0.3, 0.2]}\n"
                      "        - ArticulatedHierarchyContainer: {}\n"
                      "      children:\n"
                      "        - name: C\n"
                      "          objects:\n"
                      "            - MechanicalObject: {name: out, template: Rigid3d, position: ["
                      "0,0,0, 0,0,0,1,  1,0,0, 0,0,0,1,  3,0,0, 0,0,0,1]}\n"
                      "            - UniformMass: {vertexMass: \"1 1 0.1 0 0 0 0.1 0 0 0 0.1\"}\n"
                      "            - ArticulatedSystemMapping: {name: map, input1: \"@../angles\","
                      " output: \"@out\"}\n"
                      "        - name: c1\n"
                      "          objects:\n"
                      "            - ArticulationCenter: {parentIndex: 0, childIndex: 1,"
                      " posOnChild: [-1, 0, 0], articulationProcess: 2}\n"
                      "          children:\n"
                      "            - name: a\n"
                      "              objects:\n"
                      "                - Articulation: {rotation: true, axis: [0, 0, 1]}\n"
                      "        - name: c2\n"
                      "          objects:\n"
                      "            - ArticulationCenter: {parentIndex: 1, childIndex: 2,"
                      " posOnParent: [1, 0, 0], posOnChild: [-1, 0, 0], articulationProcess: 1}\n"
                      "          children:\n"
                      "            - name: a\n"
                      "              objects:\n"
                      "                - Articulation: {rotation: true, axis: [0, 1, 1],"
                      " articulationIndex: 1}\n");
}

Test(articulated, checkpoint_resumes_bit_identically)
{
    const char *path = test_write_temp("articulated.ckpt", "");
    st_error err = {0};
    st_scene *a = chain_scene();
    for (int k = 0; k < 20; k++)
        cr_assert_eq(st_scene_step(a, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_checkpoint_write(a, path, "t", &err), ST_OK, "%s", err.msg);
    for (int k = 0; k < 20; k++)
        cr_assert_eq(st_scene_step(a, 0, &err), ST_OK, "%s", err.msg);
    st_scene *b = chain_scene();
    unsigned long steps = 0;
    cr_assert_eq(st_scene_checkpoint_read(b, path, "t", &steps, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(steps, 20ul);
    for (int k = 0; k < 20; k++)
        cr_assert_eq(st_scene_step(b, 0, &err), ST_OK, "%s", err.msg);
    const st_mstate *xa = (const st_mstate *)topo_get(a, "/P/C/out");
    const st_mstate *xb = (const st_mstate *)topo_get(b, "/P/C/out");
    cr_assert_neq(xa->position.r[7], 1.0, "the chain did not move");
    cr_assert_eq(memcmp(xa->position.r, xb->position.r, 21 * sizeof(double)), 0,
                 "resumed run differs: body 2 x %.17g vs %.17g", xa->position.r[14],
                 xb->position.r[14]);
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

/* ---- constraints ---- */

/* A body hooked to the fixed base by six articulations (three slides, then
 * three rotations: J is 6 x 6 and invertible) and held by a
 * FixedLagrangianConstraint on the Rigid3d body: the constraint rows go
 * down to the articulation values through the mapping's J^T, and the
 * body stays at its scene position under gravity (0, -1, 0, no rotation)
 * while the free one falls. */
static const char *const HELD_SCN =
    "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -9.81 0\">\n"
    "  <RequiredPlugin pluginName=\"ArticulatedSystemPlugin Sofa.Component.ODESolver.Backward\n"
    "    Sofa.Component.LinearSolver.Direct Sofa.Component.Mass\n"
    "    Sofa.Component.Constraint.Lagrangian.Solver\n"
    "    Sofa.Component.Constraint.Lagrangian.Correction\n"
    "    Sofa.Component.Constraint.Lagrangian.Model Sofa.Component.AnimationLoop\"/>\n"
    "  <FreeMotionAnimationLoop/>\n"
    "  <GenericConstraintSolver maxIterations=\"200\" tolerance=\"1e-12\"/>\n"
    "  <Node name=\"P\">\n"
    "    <EulerImplicitSolver rayleighStiffness=\"0\" rayleighMass=\"0\"/>\n"
    "    <SparseLDLSolver template=\"CompressedRowSparseMatrixd\"/>\n"
    "    <MechanicalObject name=\"angles\" template=\"Vec1d\"\n"
    "      position=\"0.1 0.2 0.3 0.3 0.2 0.1\"/>\n"
    "    <LinearSolverConstraintCorrection/>\n"
    "    <ArticulatedHierarchyContainer/>\n"
    "    <Node name=\"C\">\n"
    "      <MechanicalObject name=\"out\" template=\"Rigid3d\"\n"
    "        position=\"0 0 0 0 0 0 1  0 -1 0 0 0 0 1\"/>\n"
    "      <UniformMass vertexMass=\"1 1 0.3 0 0 0 0.3 0 0 0 0.3\"/>\n"
    "      <ArticulatedSystemMapping input1=\"@../angles\" output=\"@out\"/>\n"
    "      <FixedLagrangianConstraint template=\"Rigid3d\" indices=\"1\"/>\n"
    "    </Node>\n"
    "    <Node name=\"c\">\n"
    "      <ArticulationCenter parentIndex=\"0\" childIndex=\"1\" posOnChild=\"0 1.5 0\"/>\n"
    "      <Node name=\"a\">\n"
    "        <Articulation translation=\"1\" axis=\"1 0 0\" articulationIndex=\"0\"/>\n"
    "        <Articulation translation=\"1\" axis=\"0 1 0\" articulationIndex=\"1\"/>\n"
    "        <Articulation translation=\"1\" axis=\"0 0 1\" articulationIndex=\"2\"/>\n"
    "        <Articulation rotation=\"1\" axis=\"1 0 0\" articulationIndex=\"3\"/>\n"
    "        <Articulation rotation=\"1\" axis=\"0 1 0\" articulationIndex=\"4\"/>\n"
    "        <Articulation rotation=\"1\" axis=\"0 0 1\" articulationIndex=\"5\"/>\n"
    "      </Node>\n"
    "    </Node>\n"
    "  </Node>\n"
    "</Node>\n";

static void held_body(bool with_constraint, double *x7)
{
    static char text[8192];
    snprintf(text, sizeof text, "%s", HELD_SCN);
    if (!with_constraint) {
        char *p = strstr(text, "<FixedLagrangianConstraint");
        char *e = strstr(p, "/>") + 2;
        memmove(p, e, strlen(e) + 1);
    }
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, text, strlen(text), "held.scn", &s, &err), ST_OK,
                 "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    for (int k = 0; k < 50; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    memcpy(x7, ((const st_mstate *)topo_get(s, "/P/C/out"))->position.r + 7, 7 * sizeof *x7);
    st_scene_destroy(&s);
}

Test(articulated, lagrangian_constraint_holds_a_body_through_j_transpose)
{
    double held[7], free_[7];
    held_body(true, held);
    held_body(false, free_);
    const double want[7] = {0, -1, 0, 0, 0, 0, 1};
    for (int k = 0; k < 7; k++)
        cr_assert_leq(fabs(held[k] - want[k]), 1e-9, "held body [%d] = %.12g", k, held[k]);
    cr_assert_lt(free_[1], -2.0, "the free body did not fall (y %g)", free_[1]);
}

/* SOFA's template of a Multi2Mapping names input1, input2 and the output:
 * "Vec1d,Rigid3d,Rigid3d" is accepted, an output type that is not the
 * node's Rigid3d state is refused. */
Test(articulated, three_part_template)
{
    st_scene *s = arm_scene(0, 0.1, 0.2, 0, ", template: \"Vec1d,Rigid3d,Rigid3d\"");
    const double *x = ((st_mstate *)topo_get(s, "/P/C/out"))->position.r;
    cr_assert_float_eq(x[7], cos(0.1), 1e-14);
    st_scene_destroy(&s);
    st_error err = {0};
    const char *bad = arm_yaml(0, 0.1, 0.2, 0, ", template: \"Vec1d,Rigid3d,Vec3d\"");
    cr_assert_neq(topo_scene_fails(&T, bad, &err), ST_OK);
    cr_assert(strstr(err.msg, "does not match the Rigid3d state"), "%s", err.msg);
}
