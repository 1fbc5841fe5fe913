/* test_hostile.c - hostile and broken inputs (issue 18): damaged plugin
 * files, plugins that lie about their name, huge nodes and link chains,
 * out-of-range and non-finite values, grids larger than memory, scenes
 * SOFA cannot mean, failed solves, non-finite states and exports that must
 * not be left stale. Each case asserts the refusal and its message. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "support.h"

#define TDIR SETTEE_TEST_PLUGIN_DIR
#define CLI SETTEE_CLI

static test_rt T;
static st_error E;
static char out[32768];

static void open_rt(void)
{
    test_rt_open(&T);
    st_error_clear(&E);
}

static void close_rt(void) { test_rt_close(&T); }

TestSuite(hostile, .init = open_rt, .fini = close_rt, .timeout = 120);

static void assert_contains(const char *hay, const char *needle)
{
    cr_assert(strstr(hay, needle) != NULL, "expected \"%s\" in:\n%.3000s", needle, hay);
}

/* A fresh directory under TMPDIR for this process. */
static const char *temp_dir(const char *name)
{
    static char paths[4][512];
    static int slot;
    char *p = paths[slot++ % 4];
    snprintf(p, 512, "%s/settee-hostile-%d-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid(), name);
    mkdir(p, 0755);
    return p;
}

/* Copies the first n bytes of src (all when n is 0) to dst. */
static void copy_file(const char *src, const char *dst, long n)
{
    FILE *in = fopen(src, "rb"), *o = fopen(dst, "wb");
    cr_assert(in && o, "cannot copy %s to %s", src, dst);
    char buf[4096];
    long done = 0;
    size_t k;
    while ((n == 0 || done < n) &&
           (k = fread(buf, 1, n == 0 || n - done > 4096 ? 4096 : (size_t)(n - done), in)) > 0) {
        fwrite(buf, 1, k, o);
        done += (long)k;
    }
    fclose(in);
    fclose(o);
}

static int cli(const char *fmt, ...) ST_PRINTF(1, 2);
static int cli(const char *fmt, ...)
{
    char args[3072], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s", CLI, args);
    return test_run(cmd, out, sizeof out);
}

/* Loads and initialises yaml; returns the first failing status. */
static st_status load_init(const char *yaml, st_scene **s)
{
    st_error_clear(&E);
    *s = NULL;
    st_status st = test_load_string(&T, yaml, s, &E);
    if (st == ST_OK)
        st = st_scene_init(*s, &E);
    return st;
}

static void expect_refused(const char *yaml, const char *where, const char *msg)
{
    st_scene *s;
    cr_assert_neq(load_init(yaml, &s), ST_OK, "accepted:\n%s", yaml);
    assert_contains(E.where, where);
    assert_contains(E.msg, msg);
    st_scene_destroy(&s);
}

#define HEAD "format: settee/1\nroot:\n  name: root\n"

/* ---- plugins ---- */

/* A plugin folder holding a copy of libTestGood.so cut short, as an
 * interrupted copy leaves it. */
static const char *damaged_dir(void)
{
    const char *dir = temp_dir("damaged");
    char dst[600];
    snprintf(dst, sizeof dst, "%s/libTestBroken.so", dir);
    copy_file(TDIR "/libTestGood.so", dst, 9000);
    return dir;
}

Test(hostile, truncated_plugin_is_damaged_not_a_crash)
{
    const char *dir = damaged_dir();
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, dir, &E), ST_OK);
    cr_assert_eq(st_runtime_load_plugin(T.rt, "TestBroken", &E), ST_EPLUGIN);
    assert_contains(E.msg, "/libTestBroken.so is damaged");
    /* The "which plugin provides it" scan opens every file: it survives. */
    char buf[128];
    cr_assert_not(st_runtime_which_plugin(T.rt, "NoSuchClassAnywhere", buf, sizeof buf));
    assert_contains(T.log, "libTestBroken.so is damaged");
}

Test(hostile, truncated_plugin_in_cli_inspect_and_misspelt_component)
{
    const char *dir = damaged_dir();
    cr_assert_eq(cli("inspect --plugin-path %s", dir), 0, "%s", out);
    assert_contains(out, "libTestBroken.so is damaged");
    const char *scene = test_write_temp("misspelt.yaml", HEAD "  objects:\n"
                                                           "    - MechanicalObjekt: {}\n");
    cr_assert_eq(cli("check --plugin-path %s %s", dir, scene), 1, "%s", out);
    assert_contains(out, "libTestBroken.so is damaged");
    assert_contains(out, "MechanicalObjekt");
}

Test(hostile, plugin_named_unlike_its_file_is_refused)
{
    const char *dir = temp_dir("liar");
    char dst[600];
    snprintf(dst, sizeof dst, "%s/libMass.so", dir);
    copy_file(TDIR "/libTestGood.so", dst, 0);
    cr_assert_eq(st_runtime_load_plugin(T.rt, dst, &E), ST_EPLUGIN);
    assert_contains(E.msg, "calls itself 'TestGood'");
    assert_contains(E.msg, dst);
    assert_contains(E.msg, "libTestGood.so");
}

Test(hostile, second_plugin_with_a_loaded_name_names_both_files)
{
    const char *dir = temp_dir("second");
    char dst[600];
    snprintf(dst, sizeof dst, "%s/libTestGood.so", dir);
    copy_file(TDIR "/libTestGood.so", dst, 0);
    cr_assert_eq(st_runtime_load_plugin(T.rt, TDIR "/libTestGood.so", &E), ST_OK, "%s", E.msg);
    cr_assert_eq(st_runtime_load_plugin(T.rt, dst, &E), ST_EPLUGIN);
    assert_contains(E.msg, dst);
    assert_contains(E.msg, TDIR "/libTestGood.so");
}

Test(hostile, long_plugin_path_keeps_file_name_too_long)
{
    static char path[6100];
    memset(path, 'a', 6000);
    memcpy(path, "/tmp/", 5);
    strcpy(path + 6000, "/libX.so");
    cr_assert_eq(st_runtime_load_plugin(T.rt, path, &E), ST_EPLUGIN);
    assert_contains(E.msg, "File name too long");
}

Test(hostile, empty_plugin_path_is_a_usage_error)
{
    cr_assert_eq(cli("inspect --plugin-path ''"), 2, "%s", out);
    assert_contains(out, "--plugin-path");
    cr_assert_eq(cli("run --plugin-path '' x.yaml"), 2, "%s", out);
}

/* ---- size ---- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

Test(hostile, hundred_thousand_components_and_a_long_link_chain_load_fast)
{
    enum { N = 100000, CHAIN = 5000 };
    size_t cap = (size_t)N * 64 + (size_t)CHAIN * 96 + 256, len = 0;
    char *y = malloc(cap);
    cr_assert_not_null(y);
    len += (size_t)snprintf(y + len, cap - len, HEAD "  objects:\n");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(y + len, cap - len, "    - MechanicalObject: {position: [0, 0, 0]}\n");
    len += (size_t)snprintf(y + len, cap - len, "  children:\n    - name: chain\n      objects:\n"
                                                "        - MechanicalObject: {name: m0, position: [1, 2, 3]}\n");
    for (int i = 1; i < CHAIN; i++)
        len += (size_t)snprintf(y + len, cap - len,
                                "        - MechanicalObject: {name: m%d, position: '@m%d.position'}\n",
                                i, i - 1);
    double t0 = now();
    st_scene *s;
    st_status st = load_init(y, &s);
    double wall = now() - t0;
    free(y);
    cr_assert_eq(st, ST_OK, "%s", E.msg);
    st_node *root = st_scene_root(s);
    cr_assert_eq(st_node_object_count(root), (size_t)N + 1); /* + the default loop */
    /* Default names count per class without rescanning the node. */
    cr_assert_str_eq(st_node_object(root, N)->name, "MechanicalObject100000");
    st_mstate *last = (st_mstate *)st_node_object(st_node_child(root, 0), CHAIN - 1);
    cr_assert_eq(last->position.r[2], 3.0);
    /* Quadratic code took minutes here (a pairwise name check, a scan per
     * init and per default name); the bound is generous for sanitizers. */
    cr_assert_lt(wall, 60.0, "load and init took %.1f s", wall);
    st_scene_destroy(&s);
}

Test(hostile, reversed_link_chain_deeper_than_the_limit_is_an_error)
{
    enum { CHAIN = ST__LINK_DEPTH_MAX + 50 };
    size_t cap = (size_t)CHAIN * 96 + 256, len = 0;
    char *y = malloc(cap);
    len += (size_t)snprintf(y + len, cap - len, HEAD "  objects:\n");
    for (int i = 0; i < CHAIN - 1; i++)
        len += (size_t)snprintf(y + len, cap - len,
                                "    - MechanicalObject: {name: m%d, position: '@m%d.position'}\n",
                                i, i + 1);
    snprintf(y + len, cap - len, "    - MechanicalObject: {name: m%d, position: [0, 0, 0]}\n",
             CHAIN - 1);
    st_scene *s;
    cr_assert_neq(load_init(y, &s), ST_OK);
    free(y);
    assert_contains(E.msg, "data links chain through more than");
    st_scene_destroy(&s);
}

/* ---- values ---- */

Test(hostile, non_finite_reals_are_refused_at_the_value)
{
    const char *vals[] = {"inf", "Infinity", "-inf", "nan", "1e999"};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
        char y[512];
        snprintf(y, sizeof y, HEAD "  objects:\n    - MechanicalObject: {position: [0, %s, 0]}\n",
                 vals[i]);
        expect_refused(y, "test.yaml:5:", "expects a");
        assert_contains(E.msg, vals[i]);
    }
}

Test(hostile, integer_fields_refuse_reals_and_out_of_range)
{
    const char *y = HEAD "  objects:\n"
                         "    - RequiredPlugin: {name: Sofa.Component.Topology.Container.Grid}\n"
                         "    - RegularGridTopology: {nx: 1e10, ny: 2, nz: 2}\n";
    expect_refused(y, "test.yaml:6:33", "expects an integer, got '1e10'");
    y = HEAD "  objects:\n"
             "    - RequiredPlugin: {name: Sofa.Component.Topology.Container.Grid}\n"
             "    - RegularGridTopology: {nx: 99999999999, ny: 2, nz: 2}\n";
    expect_refused(y, "test.yaml:6:", "out of range");
    /* The real-valued resolution n: no undefined conversion. */
    y = HEAD "  objects:\n"
             "    - RequiredPlugin: {name: Sofa.Component.Topology.Container.Grid}\n"
             "    - MechanicalObject: {}\n"
             "    - RegularGridTopology: {n: [1e10, 2, 2]}\n";
    expect_refused(y, "test.yaml:7:", "n must hold three integers");
}

Test(hostile, grid_larger_than_memory_is_refused_before_allocating)
{
    const char *y = HEAD "  objects:\n"
                         "    - RequiredPlugin: {name: Sofa.Component.Topology.Container.Grid}\n"
                         "    - MechanicalObject: {}\n"
                         "    - RegularGridTopology: {nx: 1000, ny: 1000, nz: 1000}\n";
    expect_refused(y, "test.yaml:7:", "a 1000 x 1000 x 1000 grid needs at least");
    assert_contains(E.msg, "GB of memory");
    y = HEAD "  objects:\n"
             "    - RequiredPlugin: {name: Sofa.Component.Topology.Container.Grid}\n"
             "    - MechanicalObject: {}\n"
             "    - RegularGridTopology: {nx: 100000, ny: 100000, nz: 100000}\n";
    expect_refused(y, "test.yaml:7:", "point indices are 32-bit");
}

Test(hostile, zero_masses_are_refused_or_said)
{
    const char *y = HEAD "  objects:\n"
                         "    - RequiredPlugin: {name: Sofa.Component.Mass}\n"
                         "    - MechanicalObject: {position: [0, 0, 0]}\n"
                         "    - UniformMass: {totalMass: 0}\n";
    expect_refused(y, "test.yaml:7:", "totalMass must be a positive value");
    /* A lumped MeshMatrixMass: the vertex that no triangle uses gets 0. */
    const char *lumped = HEAD "  objects:\n"
                              "    - RequiredPlugin: {pluginName: [Mass, Topology]}\n"
                              "    - MechanicalObject: {position: [0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5]}\n"
                              "    - MeshTopology: {triangles: [0, 1, 2]}\n"
                              "    - MeshMatrixMass: {lumping: true, totalMass: 1}\n";
    /* SOFA keeps the 0 and runs; so does settee, with a warning at init,
     * and an explicit solver that cannot move the vertex stops at the
     * first step with the NaN it makes, never silently. */
    st_scene *s = NULL;
    cr_assert_eq(test_load_string(&T, lumped, &s, &E), ST_OK, "%s", E.msg);
    cr_assert_eq(st_scene_init(s, &E), ST_OK, "%s", E.msg);
    assert_contains(T.log, "1 of 4 vertices get the mass 0 (vertex 3 first)");
    st_scene_destroy(&s);
    const char *expl = HEAD "  gravity: [0, -10, 0]\n  objects:\n"
                            "    - RequiredPlugin: {pluginName: [Mass, Topology, ODESolver.Forward]}\n"
                            "    - EulerExplicitSolver: {}\n"
                            "    - MechanicalObject: {position: [0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5]}\n"
                            "    - MeshTopology: {triangles: [0, 1, 2]}\n"
                            "    - MeshMatrixMass: {lumping: true, totalMass: 1}\n";
    cr_assert_eq(test_load_string(&T, expl, &s, &E), ST_OK, "%s", E.msg);
    cr_assert_eq(st_scene_init(s, &E), ST_OK, "%s", E.msg);
    cr_assert_neq(st_scene_step(s, 0.01, &E), ST_OK, "a NaN must stop the step");
    st_scene_destroy(&s);
}

/* ---- names and structure ---- */

Test(hostile, sibling_nodes_with_one_name_are_refused)
{
    const char *y = HEAD "  children:\n"
                         "    - name: a\n"
                         "    - name: b\n"
                         "    - name: a\n";
    expect_refused(y, "test.yaml:7:", "a node named 'a' already exists under this parent at line 5");
}

Test(hostile, component_name_with_a_slash_is_refused)
{
    const char *y = HEAD "  objects:\n    - MechanicalObject: {name: a/b}\n";
    expect_refused(y, "test.yaml:5:", "contains '/'");
}

Test(hostile, mapping_onto_its_own_input_is_refused)
{
    const char *y = HEAD "  objects:\n"
                         "    - RequiredPlugin: {name: Sofa.Component.Mapping.Linear}\n"
                         "    - MechanicalObject: {name: dofs, position: [0, 0, 0]}\n"
                         "    - IdentityMapping: {input: '@dofs', output: '@dofs'}\n";
    expect_refused(y, "test.yaml:7:", "input and output are the same state 'dofs'");
}

#define PARTICLE                                                                                   \
    HEAD "  dt: 0.01\n"                                                                            \
         "  objects:\n"                                                                            \
         "    - RequiredPlugin: {name: Sofa.Component.ODESolver.Forward}\n"                         \
         "    - RequiredPlugin: {name: Sofa.Component.ODESolver.Backward}\n"                        \
         "    - RequiredPlugin: {name: Sofa.Component.LinearSolver.Iterative}\n"                    \
         "    - RequiredPlugin: {name: Sofa.Component.Mass}\n"                                      \
         "  children:\n"                                                                           \
         "    - name: p\n"                                                                         \
         "      objects:\n"

/* Two ODE solvers in one node: SOFA's SolveVisitor runs both, in order,
 * each over the whole subtree (sequentialSolve). Symplectic Euler from rest
 * under gravity g: one solve gives v = h g, x = h^2 g; a second from there
 * gives v = 2 h g, x = h^2 g + h (2 h g) = 3 h^2 g. */
Test(hostile, two_ode_solvers_in_a_node_both_run_with_a_warning)
{
    const char *y = PARTICLE "        - EulerExplicitSolver: {name: first}\n"
                             "        - EulerExplicitSolver: {name: second}\n"
                             "        - MechanicalObject: {name: dofs, position: [0, 0, 0]}\n"
                             "        - UniformMass: {totalMass: 1}\n";
    st_scene *s;
    cr_assert_eq(load_init(y, &s), ST_OK, "%s", E.msg);
    assert_contains(T.log, "EulerExplicitSolver 'second': this node already has the ODE solver "
                           "EulerExplicitSolver 'first' (line 13): both are used");
    cr_assert_eq(st_scene_step(s, 0.01, &E), ST_OK, "%s", E.msg);
    const st_mstate *ms = (const st_mstate *)test_find_object(s, "dofs");
    const double h = 0.01, g = -9.81;
    cr_assert_float_eq(ms->velocity.r[1], 2 * h * g, 1e-15, "v %g", ms->velocity.r[1]);
    cr_assert_float_eq(ms->position.r[1], 3 * h * h * g, 1e-15, "x %g", ms->position.r[1]);
    cr_assert_eq(ms->position.r[0], 0.0);
    st_scene_destroy(&s);
}

/* DampVelocitySolver next to an integrator is SOFA's intended use (a
 * velocity filter, positions untouched): no warning, and the velocity of
 * one symplectic step is scaled by exp(-rate h). */
Test(hostile, damp_velocity_next_to_an_integrator_is_quiet)
{
    const char *y = PARTICLE "        - EulerExplicitSolver: {name: first}\n"
                             "        - DampVelocitySolver: {name: damp, rate: 2}\n"
                             "        - MechanicalObject: {name: dofs, position: [0, 0, 0]}\n"
                             "        - UniformMass: {totalMass: 1}\n";
    st_scene *s;
    cr_assert_eq(load_init(y, &s), ST_OK, "%s", E.msg);
    cr_assert_null(strstr(T.log, "already has the ODE solver"), "%s", T.log);
    cr_assert_eq(st_scene_step(s, 0.01, &E), ST_OK, "%s", E.msg);
    const st_mstate *ms = (const st_mstate *)test_find_object(s, "dofs");
    const double h = 0.01, g = -9.81;
    cr_assert_float_eq(ms->velocity.r[1], h * g * exp(-2 * h), 1e-15, "v %g", ms->velocity.r[1]);
    cr_assert_float_eq(ms->position.r[1], h * h * g, 1e-15, "x %g", ms->position.r[1]);
    st_scene_destroy(&s);
}

Test(hostile, second_unlinked_linear_solver_is_a_warning)
{
    const char *y = PARTICLE "        - EulerImplicitSolver: {}\n"
                             "        - CGLinearSolver: {name: first, iterations: 10, tolerance: 1e-9, threshold: 1e-9}\n"
                             "        - CGLinearSolver: {name: second, iterations: 10, tolerance: 1e-9, threshold: 1e-9}\n"
                             "        - MechanicalObject: {position: [0, 0, 0]}\n"
                             "        - UniformMass: {totalMass: 1}\n";
    st_scene *s;
    cr_assert_eq(load_init(y, &s), ST_OK, "%s", E.msg);
    assert_contains(T.log, "CGLinearSolver 'second' is ignored");
    st_scene_destroy(&s);
}

/* ---- failures during the run ---- */

Test(hostile, cg_with_zero_iterations_is_refused)
{
    const char *y = PARTICLE "        - EulerImplicitSolver: {}\n"
                             "        - CGLinearSolver: {iterations: 0, tolerance: 1e-9, threshold: 1e-9}\n"
                             "        - MechanicalObject: {position: [0, 0, 0]}\n"
                             "        - UniformMass: {totalMass: 1}\n";
    expect_refused(y, "test.yaml:14:", "field 'iterations' must be in [1,");
}

/* Explicit Euler with dt 1 and a velocity of 1e307: the position passes
 * DBL_MAX at step 18 exactly. */
static const char *diverging =
    PARTICLE "        - EulerExplicitSolver: {}\n"
             "        - MechanicalObject: {name: dofs, position: [0, 0, 0], velocity: [0, 1e307, 0]}\n"
             "        - UniformMass: {totalMass: 1}\n";

Test(hostile, non_finite_state_stops_at_the_step_it_appears)
{
    char *y = strdup(diverging);
    char *dt = strstr(y, "dt: 0.01");
    memcpy(dt, "dt: 1   ", 8);
    st_scene *s;
    cr_assert_eq(load_init(y, &s), ST_OK, "%s", E.msg);
    unsigned long k = 0;
    st_status st = ST_OK;
    while (st == ST_OK && k < 30) {
        st = st_scene_step(s, 0, &E);
        k++;
    }
    cr_assert_eq(st, ST_ESOLVER);
    cr_assert_eq(k, 18);
    assert_contains(E.msg, "step 18 (t = 18)");
    assert_contains(E.msg, "the position of vertex 0 is inf");
    assert_contains(E.msg, "/p/EulerExplicitSolver1");
    cr_assert_str_eq(E.path, "/p/dofs");
    st_scene_destroy(&s);
    free(y);
}

/* A finite blow-up is a divergence too (issue 31): a stiff spring under
 * explicit Euler with a large dt grows geometrically; the run stops as soon
 * as the farthest point is beyond 10^6 times the scene's size and has more
 * than doubled its distance three steps running, long before the values
 * overflow, and the message suggests an implicit solver. A fast but steady
 * motion (the particle thrown at 1e307 m/s above) is not taken for one. */
Test(hostile, finite_blow_up_is_a_divergence)
{
    const char *y = HEAD "  dt: 0.1\n"
                         "  gravity: [0, 0, 0]\n"
                         "  objects:\n"
                         "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, "
                         "SolidMechanics.Spring, Constraint.Projective]}\n"
                         "  children:\n"
                         "    - name: p\n"
                         "      objects:\n"
                         "        - EulerExplicitSolver: {symplectic: false}\n"
                         "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1.1, 0, 0]}\n"
                         "        - UniformMass: {totalMass: 2}\n"
                         "        - FixedProjectiveConstraint: {indices: [0]}\n"
                         "        - SpringForceField: {name: spring, spring: \"0 1 1e4 0 1\"}\n";
    st_scene *s;
    cr_assert_eq(load_init(y, &s), ST_OK, "%s", E.msg);
    unsigned long k = 0;
    st_status st = ST_OK;
    while (st == ST_OK && k < 400) {
        st = st_scene_step(s, 0, &E);
        k++;
    }
    cr_assert_eq(st, ST_ESOLVER, "%lu steps", k);
    assert_contains(E.msg, "from the scene's centre after this step, more than 1e+06 times the "
                           "scene's initial size (1.1)");
    assert_contains(E.msg, "with finite values (a smaller dt, an implicit ODE solver "
                           "(EulerImplicitSolver)");
    cr_assert_str_eq(E.path, "/p/dofs");
    /* Every coordinate still finite: caught before any overflow. */
    st_mstate *ms = st_node_mstate(st_node_child(st_scene_root(s), 0));
    for (size_t i = 0; i < 3 * ms->n; i++)
        cr_assert(isfinite(ms->position.r[i]));
    st_scene_destroy(&s);
}

Test(hostile, non_finite_state_names_the_force_field_that_went_first)
{
    /* A stiff spring from a fixed particle to one thrown at 1e307 m/s: its
     * force overflows at step 2; the replay to the start of that step finds
     * it, and leaves the state there (finite). */
    const char *y = HEAD "  dt: 1\n"
                         "  gravity: [0, 0, 0]\n"
                         "  objects:\n"
                         "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, "
                         "SolidMechanics.Spring, Constraint.Projective]}\n"
                         "  children:\n"
                         "    - name: p\n"
                         "      objects:\n"
                         "        - EulerExplicitSolver: {symplectic: true}\n"
                         "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0], "
                         "velocity: [0, 0, 0, 1e307, 0, 0]}\n"
                         "        - UniformMass: {totalMass: 1}\n"
                         "        - FixedProjectiveConstraint: {indices: [0]}\n"
                         "        - SpringForceField: {name: spring, spring: \"0 1 10 0 1\"}\n";
    st_scene *s;
    cr_assert_eq(load_init(y, &s), ST_OK, "%s", E.msg);
    cr_assert_eq(st_scene_step(s, 0, &E), ST_OK, "%s", E.msg);
    cr_assert_eq(st_scene_step(s, 0, &E), ST_ESOLVER);
    assert_contains(E.msg, "step 2 (t = 2)");
    assert_contains(E.msg, "at the state this step started from, /p/spring already gives");
    cr_assert_str_eq(E.path, "/p/dofs");
    cr_assert_float_eq(st_scene_time(s), 1.0, 0.0);
    st_scene_destroy(&s);
}

static const char *singular =
    HEAD "  objects:\n"
         "    - RequiredPlugin: {name: Sofa.Component.ODESolver.Backward}\n"
         "    - RequiredPlugin: {name: Sofa.Component.LinearSolver.Direct}\n"
         "    - RequiredPlugin: {name: Sofa.Component.Mass}\n"
         "    - RequiredPlugin: {name: Sofa.Component.SolidMechanics.Spring}\n"
         "    - RequiredPlugin: {name: Sofa.Component.Topology.Container.Grid}\n"
         "%s"
         "  children:\n"
         "    - name: beam\n"
         "      objects:\n"
         "        - StaticSolver: {}\n"
         "        - %s: {}\n"
         "        - MechanicalObject: {name: dofs}\n"
         "        - RegularGridTopology: {nx: 2, ny: 2, nz: 3, xmin: 0, xmax: 1, ymin: 0, ymax: 1, "
         "zmin: 0, zmax: 2}\n"
         "        - UniformMass: {totalMass: 1}\n"
         "        - MeshSpringForceField: {stiffness: 100}\n";

Test(hostile, singular_system_stops_the_run_unless_asked_to_continue)
{
    /* CHOLMOD (LDL^T) and UMFPACK (LU) alike. */
    static const char *const solvers[] = {"SparseLDLSolver", "SparseLUSolver"};
    for (size_t k = 0; k < 2; k++) {
        char y[2048], path[64];
        snprintf(y, sizeof y, singular, "", solvers[k]);
        snprintf(path, sizeof path, "/beam/%s1", solvers[k]);
        st_scene *s;
        cr_assert_eq(load_init(y, &s), ST_OK, "%s", E.msg);
        cr_assert_eq(st_scene_step(s, 0, &E), ST_ESOLVER, "%s: %s", solvers[k], E.msg);
        assert_contains(E.msg, "singular");
        assert_contains(E.msg, "step 1 (t = 0)");
        assert_contains(E.msg, "continueOnSolverFailure");
        cr_assert_str_eq(E.path, path);
        st_scene_destroy(&s);

        T.len = 0;
        test_log_clear(&T);
        snprintf(y, sizeof y, singular,
                 "    - DefaultAnimationLoop: {continueOnSolverFailure: true}\n", solvers[k]);
        cr_assert_eq(load_init(y, &s), ST_OK, "%s", E.msg);
        st_status st = st_scene_step(s, 0, &E);
        assert_contains(T.log, "singular");
        assert_contains(T.log, "continuing: continueOnSolverFailure is set");
        if (st != ST_OK) /* going on may still end in a non-finite state */
            assert_contains(E.msg, "after this step");
        st_scene_destroy(&s);
    }
}

/* ---- exports ---- */

Test(hostile, unwritable_export_is_reported_before_the_run)
{
    const char *scene = test_write_temp("export.yaml", diverging);
    cr_assert_eq(cli("run -n 2 %s --export-state /nonexistent-dir/state.json", scene), 1, "%s", out);
    assert_contains(out, "cannot write state to '/nonexistent-dir/state.json'");
    cr_assert(strstr(out, "2 steps") == NULL, "the run went ahead:\n%s", out);
}

Test(hostile, export_is_renamed_into_place_and_a_failed_run_leaves_none)
{
    const char *dir = temp_dir("export");
    char json[600], cmd[2048];
    snprintf(json, sizeof json, "%s/state.json", dir);
    const char *good = test_write_temp("good.yaml", diverging);
    cr_assert_eq(cli("run -q -n 2 %s --export-state %s", good, json), 0, "%s", out);
    cr_assert_eq(access(json, F_OK), 0);
    /* No temporary file is left beside it. */
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c tmp-", dir);
    cr_assert_eq(test_run(cmd, out, sizeof out), 1, "%s", out); /* grep found nothing */

    /* A run that fails (diverges at step 18) leaves no stale export. */
    char *y = strdup(diverging);
    memcpy(strstr(y, "dt: 0.01"), "dt: 1   ", 8);
    const char *bad = test_write_temp("bad.yaml", y);
    free(y);
    cr_assert_eq(cli("run -n 30 %s --export-state %s", bad, json), 1, "%s", out);
    assert_contains(out, "step 18");
    cr_assert_neq(access(json, F_OK), 0, "the earlier export is still there");
}

/* ---- issue 32: readers use no count, offset or index unchecked ---- */

/* Writes data (len bytes) into a file named name of a fresh folder and runs
 * `settee check` on a scene whose object `component` reads it through
 * `field`; the output is in out, the exit status is returned (a sanitizer
 * report makes it neither 0 nor 1). */
static int check_reader(const char *component, const char *field, const char *name,
                        const char *data, size_t len)
{
    const char *dir = temp_dir("readers");
    char path[700], scene[700], yaml[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    fwrite(data, 1, len ? len : strlen(data), f);
    fclose(f);
    snprintf(scene, sizeof scene, "%s/scene.yaml", dir);
    snprintf(yaml, sizeof yaml,
             HEAD "  objects:\n    - RequiredPlugin: {pluginName: [IO.Mesh, Topology]}\n"
                  "    - %s: {name: r, %s: '%s'}\n",
             component, field, path);
    f = fopen(scene, "w");
    cr_assert(f);
    fputs(yaml, f);
    fclose(f);
    return cli("check '%s' 2>&1", scene);
}

#define VTK51_HEAD                                                                                \
    "# vtk DataFile Version 5.1\nx\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 float\n"           \
    "0 0 0 1 0 0 0 1 0 0 0 1\n"

Test(hostile, vtk_offsets_and_indices_are_checked_before_use)
{
    /* a double OFFSETS array holding nan: was a heap overflow in add_cell */
    cr_assert_eq(check_reader("MeshVTKLoader", "filename", "nan_offset.vtk",
                              VTK51_HEAD "CELLS 2 4\nOFFSETS double\n0 nan\n"
                                         "CONNECTIVITY double\n0 1 2 3\nCELL_TYPES 1\n10\n",
                              0),
                 1, "%s", out);
    assert_contains(out, "nan_offset.vtk:9:");
    assert_contains(out, "offset 1 (nan) is not an integer");
    cr_assert_eq(check_reader("MeshVTKLoader", "filename", "half.vtk",
                              VTK51_HEAD "CELLS 2 4\nOFFSETS double\n0 4\n"
                                         "CONNECTIVITY double\n0 1 2.5 3\nCELL_TYPES 1\n10\n",
                              0),
                 1, "%s", out);
    assert_contains(out, "half.vtk:11:");
    assert_contains(out, "connectivity value 2 (2.5) is not a point index");
    /* TENSORS whose count times 9 overflows */
    cr_assert_eq(check_reader("MeshVTKLoader", "filename", "tensors.vtk",
                              VTK51_HEAD "POINT_DATA 1152921504606846975\nTENSORS t float\n0\n", 0),
                 1, "%s", out);
    assert_contains(out, "declares too many values");
    /* .vtu: offsets, cell types and connectivity that are not integers */
    static const char *const vtu[][3] = {
        {"0 1 2 3", "nan", "10"}, {"0 1 2 3", "4", "nan"}, {"0 1 nan 3", "4", "10"}};
    static const char *const want[] = {"offset 0 (nan) is not an integer",
                                       "cell type 0 (nan) is not an integer",
                                       "connectivity value 2 (nan) is not a point index"};
    for (int i = 0; i < 3; i++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid>\n"
                 "<Piece NumberOfPoints=\"4\" NumberOfCells=\"1\"><Points>\n"
                 "<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">"
                 "0 0 0 1 0 0 0 1 0 0 0 1</DataArray></Points><Cells>\n"
                 "<DataArray type=\"Float64\" Name=\"connectivity\" format=\"ascii\">%s"
                 "</DataArray>\n"
                 "<DataArray type=\"Float64\" Name=\"offsets\" format=\"ascii\">%s</DataArray>\n"
                 "<DataArray type=\"Float64\" Name=\"types\" format=\"ascii\">%s</DataArray>\n"
                 "</Cells></Piece></UnstructuredGrid></VTKFile>\n",
                 vtu[i][0], vtu[i][1], vtu[i][2]);
        cr_assert_eq(check_reader("MeshVTKLoader", "filename", "bad.vtu", text, 0), 1, "%s", out);
        assert_contains(out, "bad.vtu:");
        assert_contains(out, want[i]);
    }
}

Test(hostile, gmsh_tag_count_near_2_63_is_refused)
{
    cr_assert_eq(check_reader("MeshGmshLoader", "filename", "tags.msh",
                              "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n"
                              "$EndNodes\n$Elements\n1\n1 15 9223372036854775806 1\n"
                              "$EndElements\n",
                              0),
                 1, "%s", out);
    assert_contains(out, "tags.msh:10:");
    assert_contains(out, "after 9223372036854775806 tags");
    /* no nodes: qsort was given a null array (found by fuzz_gmsh) */
    cr_assert_eq(check_reader("MeshGmshLoader", "filename", "none.msh",
                              "$NOD\n0\n$ENDNOD\n$ELM\n0\n$ENDELM\n", 0),
                 0, "%s", out);
    assert_contains(out, "none.msh' holds no points: the mesh is empty");
}

Test(hostile, sparse_grid_reads_its_files_checked)
{
    /* a face index past the vertices: was a segmentation fault; the file
     * is read by MeshOBJLoader's parser, whose messages these are */
    cr_assert_eq(check_reader("SparseGridTopology", "fileTopology", "s.obj",
                              "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99\n", 0),
                 1, "%s", out);
    assert_contains(out, "s.obj:4: vertex index 99 is out of range (3 defined so far");
    cr_assert_eq(check_reader("SparseGridTopology", "fileTopology", "m.obj",
                              "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -4 1 2\n", 0),
                 1, "%s", out);
    assert_contains(out, "m.obj:4: vertex index -4 is out of range (3 defined so far");
    cr_assert_eq(check_reader("SparseGridTopology", "fileTopology", "n.obj",
                              "v 0 0 0\nv 1 nan 0\nv 0 1 0\nf 1 2 3\n", 0),
                 1, "%s", out);
    assert_contains(out, "n.obj:2: a vertex coordinate is not a finite number");
    /* a voxel size whose extent does not fit an int */
    cr_assert_eq(check_reader("SparseGridTopology", "fileTopology", "v.voxel",
                              "1 1 1 1e30 1 1\n1\n", 0),
                 1, "%s", out);
    assert_contains(out, "v.voxel: the grid extent on axis 0, 1e+30 * 1, is not a finite size");
}

/* ---- issue 32: files written where they must not be ---- */

Test(hostile, output_naming_the_scene_file_is_refused)
{
    const char *dir = temp_dir("self");
    char scene[600], link[600], cmp[1400];
    snprintf(scene, sizeof scene, "%s/s.yaml", dir);
    snprintf(link, sizeof link, "%s/link.ck", dir);
    copy_file(SETTEE_SOURCE_DIR "/tests/bad/diverging.yaml", scene, 0);
    unlink(link);
    cr_assert_eq(symlink(scene, link), 0);
    const char *opts[] = {"--checkpoint", "--export-state", "--summary-json"};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(cli("run '%s' -n 1 %s '%s'", scene, opts[i], i == 0 ? link : scene), 2,
                     "%s", out);
        assert_contains(out, "is the scene file");
        assert_contains(out, "an output must not replace an input of the run");
        snprintf(cmp, sizeof cmp, "cmp '%s' '%s'", scene,
                 SETTEE_SOURCE_DIR "/tests/bad/diverging.yaml");
        cr_assert_eq(test_run(cmp, out, sizeof out), 0, "the scene was replaced (%s)", opts[i]);
    }
}

/* ---- issue 32: ReadState and CompareState refuse broken files at init ---- */

/* Runs `settee run -n 2` (20 s at most) on a scene of two points and
 * `component` reading the file `name` of a fresh folder, made by the shell
 * command make (run in that folder); returns the exit status (124: hung). */
static int run_state_reader(const char *component, const char *fields, const char *name,
                            const char *make)
{
    const char *dir = temp_dir("states");
    char scene[700], cmd[4096];
    snprintf(scene, sizeof scene, "%s/scene.yaml", dir);
    FILE *f = fopen(scene, "w");
    cr_assert(f);
    fprintf(f,
            HEAD "  dt: 0.01\n  objects:\n    - RequiredPlugin: {pluginName: [Playback]}\n"
                 "    - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0]}\n"
                 "    - %s: {name: r, filename: '%s/%s'%s}\n",
            component, dir, name, fields);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd '%s' && rm -f '%s' && %s && timeout 20 '%s' run '%s' -n 2 2>&1",
             dir, name, make, CLI, scene);
    return test_run(cmd, out, sizeof out);
}

Test(hostile, broken_state_files_are_errors_at_their_line)
{
    cr_assert_eq(run_state_reader("CompareState", "", "a.txt",
                                  "printf 'T= 0\\nX= 0 0 0 1 0 0\\nT= 0.01\\nX= 0 abc 0 1 0 0\\n' "
                                  "> a.txt"),
                 1, "%s", out);
    assert_contains(out, "a.txt:4: X= value 2, 'abc', is not a finite number");
    cr_assert_eq(run_state_reader("CompareState", "", "t.txt",
                                  "printf 'T= nan\\nX= 0 0 0 1 0 0\\n' > t.txt"),
                 1, "%s", out);
    assert_contains(out, "t.txt:1: T= value 1, 'nan', is not a finite number");
    cr_assert_eq(run_state_reader("ReadState", "", "n.txt",
                                  "printf 'T= 0\\nX= 0 0 0 1 nan 0\\n' > n.txt"),
                 1, "%s", out);
    assert_contains(out, "n.txt:2: X= value 5, 'nan', is not a finite number");
    /* loop without a time to start over from: was an endless loop */
    cr_assert_eq(run_state_reader("ReadState", ", loop: true", "l.txt",
                                  "printf 'X= 0 0 0 1 0 0\\n' > l.txt"),
                 1, "%s", out);
    assert_contains(out, "l.txt' has no T= line: with loop, reading starts over");
    /* a gzip stream cut short */
    cr_assert_eq(run_state_reader("CompareState", "", "c.txt.gz",
                                  "for i in $(seq 1 3000); do printf 'T= %d\\nX= 0 0 0 1 0 "
                                  "0\\n' $i; done | gzip > full.gz && head -c 2000 full.gz > "
                                  "c.txt.gz"),
                 1, "%s", out);
    assert_contains(out, "c.txt.gz' is cut short (its gzip stream ends early)");
    /* a small gzip file inflating past the bound */
    cr_assert_eq(run_state_reader("ReadState", "", "z.gz",
                                  "head -c 300000000 /dev/zero | gzip -1 > z.gz"),
                 1, "%s", out);
    assert_contains(out, "z.gz' holds more than 256 MiB once inflated");
}

/* CompareTopology counted its mismatches in 32 bits: 2^32 + 6 reference quads
 * against the grid's 6 made no difference. */
Test(hostile, compare_topology_counts_mismatches_in_64_bits)
{
    const char *dir = temp_dir("topo");
    char scene[700], cmd[2048];
    snprintf(scene, sizeof scene, "%s/scene.yaml", dir);
    FILE *f = fopen(scene, "w");
    cr_assert(f);
    fprintf(f, HEAD "  dt: 0.01\n  objects:\n"
                    "    - RequiredPlugin: {pluginName: [Topology, Playback]}\n"
                    "    - MechanicalObject: {name: dofs}\n"
                    "    - RegularGridTopology: {name: grid, n: [2, 2, 2], min: [0, 0, 0], "
                    "max: [1, 1, 1]}\n"
                    "    - CompareTopology: {name: cmp, filename: '%s/t.txt', strict: true}\n",
            dir);
    fclose(f);
    snprintf(cmd, sizeof cmd, "printf 'T= 0\\nQuads= 4294967302\\n0 1 3 2\\n' > '%s/t.txt'", dir);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0);
    cr_assert_eq(cli("run '%s' -n 2 2>&1", scene), 1, "%s", out);
    assert_contains(out, "4294967296 of the 4294967302 Quads of the reference");
}

/* ---- issue 32: silent wrong results ---- */

/* --set of a field that another field of the component rewrites at init:
 * a warning naming both, in `run` and in a sweep case's log. */
Test(hostile, set_field_overwritten_by_another_is_a_warning)
{
    const char *dir = temp_dir("overwrite");
    char scene[700], plan[700], cmd[4096];
    snprintf(scene, sizeof scene, "%s/s.yaml", dir);
    snprintf(plan, sizeof plan, "%s/plan.yaml", dir);
    FILE *f = fopen(scene, "w");
    cr_assert(f);
    fputs(HEAD "  dt: 0.01\n  gravity: [0, 0, 0]\n  objects:\n"
               "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, "
               "SolidMechanics.Spring]}\n"
               "  children:\n    - name: Chain\n      objects:\n"
               "        - EulerExplicitSolver: {symplectic: true}\n"
               "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0]}\n"
               "        - UniformMass: {totalMass: 1}\n"
               "        - SpringForceField: {name: springs, spring: \"0 1 10 0 1\"}\n",
          f);
    fclose(f);
    cr_assert_eq(cli("run '%s' -n 1 --set /Chain/springs.stiffness=5 2>&1", scene), 0, "%s",
                 out);
    assert_contains(out, "warning: /Chain/springs: SpringForceField.stiffness: the value set for "
                         "'stiffness' is not used: field 'spring' is set too");
    f = fopen(plan, "w");
    cr_assert(f);
    fprintf(f, "sweep: settee/1\nscene: s.yaml\nsteps: 1\nparameters:\n"
               "  /Chain/springs.stiffness: [5]\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' sweep plan.yaml --out o -j 1 && cat o/cases/0000/log.txt",
             dir, CLI);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
    assert_contains(out, "'stiffness' is not used: field 'spring' is set too");
}

/* Two topologies whose src links point at each other copied each other's
 * empty lists silently. */
Test(hostile, src_links_in_a_cycle_are_an_error)
{
    const char *y = HEAD "  objects:\n    - RequiredPlugin: {pluginName: [Topology]}\n"
                         "    - MeshTopology: {name: a, src: \"@b\"}\n"
                         "    - MeshTopology: {name: b, src: \"@a\"}\n";
    expect_refused(y, "test.yaml:6:", "src 'b' leads back to this component ('b' has src 'a'): "
                                      "src links must not form a cycle");
}

/* A node or component name with '/' from an <include name=...>, a YAML
 * node or --set ...name= would be read as two names in every path. */
Test(hostile, slash_in_names_from_include_node_or_set_is_refused)
{
    const char *y = HEAD "  children:\n    - name: a/b\n";
    expect_refused(y, "test.yaml:5:", "a node's `name` must be a non-empty name without '/'");
    const char *dir = temp_dir("slash");
    char path[600];
    snprintf(path, sizeof path, "%s/inc.xml", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs("<Node name=\"sub\">\n  <MechanicalObject name=\"dofs\" position=\"0 0 0\"/>\n</Node>\n",
          f);
    fclose(f);
    snprintf(path, sizeof path, "%s/main.scn", dir);
    f = fopen(path, "w");
    cr_assert(f);
    fputs("<Node name=\"root\" dt=\"0.01\">\n  <include href=\"inc.xml\" name=\"a/b\"/>\n</Node>\n",
          f);
    fclose(f);
    cr_assert_eq(cli("check '%s' 2>&1", path), 1, "%s", out);
    assert_contains(out, "a node name 'a/b' contains '/'");
    cr_assert_eq(cli("run %s/tests/bad/spring_overflow.yaml -n 1 --set /p/spring.name=a/b 2>&1",
                     SETTEE_SOURCE_DIR),
                 1, "%s", out);
    assert_contains(out, "--set /p/spring.name=a/b: a component name 'a/b' contains '/'");
}

/* ---- issue 32: hangs and runaway memory end in a clear error ---- */

/* Writes text into dir/name. */
static void put(const char *dir, const char *name, const char *text, size_t len)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot write %s", path);
    fwrite(text, 1, len ? len : strlen(text), f);
    fclose(f);
}

/* `settee check` on dir/name, 30 s at most (124: it hung). */
static int check_in(const char *dir, const char *name)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cd '%s' && timeout 30 '%s' check '%s' 2>&1", dir, CLI, name);
    return test_run(cmd, out, sizeof out);
}

Test(hostile, include_tree_that_fans_out_is_bounded)
{
    /* f1 includes f2 ten times, f2 includes f3 ten times ...: 10^7 includes */
    const char *dir = temp_dir("fanout");
    char name[32], text[1024];
    for (int i = 1; i <= 7; i++) {
        size_t n = (size_t)snprintf(text, sizeof text, "<Node name=\"n%d\">\n", i);
        for (int k = 0; k < 10; k++)
            n += (size_t)snprintf(text + n, sizeof text - n, "<include href=\"f%d.xml\"/>\n", i + 1);
        snprintf(text + n, sizeof text - n, "</Node>\n");
        snprintf(name, sizeof name, "f%d.xml", i);
        put(dir, name, text, 0);
    }
    put(dir, "f8.xml", "<Node name=\"leaf\"><MechanicalObject position=\"0 0 0\"/></Node>\n", 0);
    put(dir, "fan.scn", "<Node name=\"root\">\n<include href=\"f1.xml\"/>\n</Node>\n", 0);
    cr_assert_eq(check_in(dir, "fan.scn"), 1, "%s", out);
    assert_contains(out, "the scene includes more than 10000 files in all");
}

Test(hostile, xml_elements_with_60000_attributes_are_refused_at_once)
{
    const char *dir = temp_dir("attrs");
    size_t cap = 60000 * 12 + 256, n = 0;
    char *text = malloc(cap);
    cr_assert(text);
    n += (size_t)snprintf(text + n, cap - n, "<Node name=\"root\">\n<MechanicalObject");
    for (int i = 0; i < 60000; i++)
        n += (size_t)snprintf(text + n, cap - n, " a%d=\"1\"", i);
    n += (size_t)snprintf(text + n, cap - n, "/>\n</Node>\n");
    put(dir, "attrs.scn", text, n);
    free(text);
    time_t t0 = time(NULL);
    cr_assert_eq(check_in(dir, "attrs.scn"), 1, "%s", out);
    assert_contains(out, "attrs.scn:2:1: error: an element with more than 4096 attributes");
    cr_assert_leq(time(NULL) - t0, 5, "took %ld s", (long)(time(NULL) - t0));
}

Test(hostile, billion_laughs_vtu_is_refused_before_parsing)
{
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "<?xml version=\"1.0\"?>\n<!DOCTYPE VTKFile [\n"
                                "<!ENTITY a0 \"laughlaughlaughlaughlaugh\">\n");
    for (int i = 1; i < 12; i++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "<!ENTITY a%d \"&a%d;&a%d;&a%d;&a%d;&a%d;&a%d;&a%d;&a%d;&a%d;&a%d;\">\n",
                              i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
                              i - 1);
    snprintf(text + n, sizeof text - n, "]>\n<VTKFile type=\"UnstructuredGrid\">&a11;</VTKFile>\n");
    time_t t0 = time(NULL);
    cr_assert_eq(check_reader("MeshVTKLoader", "filename", "laughs.vtu", text, 0), 1, "%s", out);
    assert_contains(out, "laughs.vtu:2: a DTD in a VTK file is refused");
    cr_assert_leq(time(NULL) - t0, 5, "took %ld s", (long)(time(NULL) - t0));
}

/* ---- issue 32: messages ---- */

Test(hostile, xml_errors_report_libxml2s_first_error)
{
    const char *dir = temp_dir("xmlerr");
    /* a NUL byte in an attribute: the last error was "Premature end of data" */
    static const char nul[] = "<Node name=\"root\">\n<MechanicalObject name=\"a\0b\" "
                              "position=\"0 0 0\"/>\n</Node>\n";
    put(dir, "nul.scn", nul, sizeof nul - 1);
    cr_assert_eq(check_in(dir, "nul.scn"), 1, "%s", out);
    assert_contains(out, "nul.scn:2:26: error: XML syntax error: Char 0x0 out of allowed range");
    /* a 16 MiB attribute: the last error was "Couldn't find end of Start Tag" */
    size_t big = (size_t)16 << 20;
    char *text = malloc(big + 128);
    cr_assert(text);
    size_t n = (size_t)sprintf(text, "<Node name=\"root\">\n<MechanicalObject position=\"");
    for (size_t i = 0; i < big / 2; i++, n += 2)
        memcpy(text + n, "0 ", 2);
    n += (size_t)sprintf(text + n, "\"/>\n</Node>\n");
    put(dir, "big.scn", text, n);
    free(text);
    cr_assert_eq(check_in(dir, "big.scn"), 1, "%s", out);
    assert_contains(out, "big.scn:2:28: error: XML syntax error: AttValue length too long");
}

Test(hostile, set_errors_at_init_name_the_set)
{
    cr_assert_eq(cli("run %s/tests/bad/spring_overflow.yaml -n 1 --set /p/UniformMass1.totalMass=0 "
                     "2>&1",
                     SETTEE_SOURCE_DIR),
                 1, "%s", out);
    assert_contains(out, "--set /p/UniformMass1.totalMass=0: error: /p/UniformMass1: "
                         "UniformMass.totalMass: totalMass must be a positive value (got 0)");
}

Test(hostile, relative_link_far_out_of_range_is_named_as_written)
{
    const char *y = HEAD "  objects:\n    - RequiredPlugin: {pluginName: Mapping.Linear}\n"
                         "    - MechanicalObject: {name: dofs}\n"
                         "    - MechanicalObject: {name: out}\n"
                         "    - IdentityMapping: {input: \"@[-100000000000000000000]\", output: "
                         "\"@out\"}\n";
    expect_refused(y, "test.yaml:8:", "'@[-100000000000000000000]': there is no object "
                                      "-100000000000000000000 places from this one");
}

Test(hostile, cr_only_xml_and_mesh_files_report_their_lines)
{
    const char *dir = temp_dir("cronly");
    put(dir, "cr.scn", "<Node name=\"root\">\r<MechanicalObject positon=\"0 0 0\"/>\r</Node>\r", 0);
    /* An unknown attribute of a .scn scene is a warning, as in SOFA. */
    cr_assert_eq(check_in(dir, "cr.scn"), 0, "%s", out);
    assert_contains(out, "cr.scn:2:19: warning: /MechanicalObject1: MechanicalObject has no field "
                         "'positon'");
    cr_assert_eq(check_reader("MeshVTKLoader", "filename", "cr.vtk",
                              "# vtk DataFile Version 3.0\rx\rASCII\rDATASET POLYDATA\r"
                              "POINTS 1 float\r0 nan 0\r",
                              0),
                 1, "%s", out);
    assert_contains(out, "cr.vtk:6: 'nan' is not a finite coordinate");
}

Test(hostile, ode_solver_without_state_warns)
{
    const char *dir = temp_dir("odenostate");
    put(dir, "s.yaml",
        HEAD "  objects:\n    - RequiredPlugin: {pluginName: [ODESolver.Forward]}\n"
             "  children:\n    - name: p\n      objects:\n        - EulerExplicitSolver: {}\n",
        0);
    cr_assert_eq(check_in(dir, "s.yaml"), 0, "%s", out);
    assert_contains(out, "s.yaml:9:11: warning: /p/EulerExplicitSolver1: EulerExplicitSolver has "
                         "no MechanicalObject in its node or below: it integrates nothing");
}

Test(hostile, empty_mesh_file_is_said_empty)
{
    cr_assert_eq(check_reader("MeshOBJLoader", "filename", "empty.obj", "", 0), 1, "%s", out);
    assert_contains(out, "empty.obj' is empty (0 bytes): the mesh is empty");
    cr_assert_eq(check_reader("MeshOBJLoader", "filename", "blank.obj", "\n\n  \n", 0), 1, "%s",
                 out);
    assert_contains(out, "blank.obj' is empty (5 bytes, all blank): the mesh is empty");
    cr_assert_eq(check_reader("MeshOBJLoader", "filename", "none.obj", "# no vertex\n", 0), 0, "%s",
                 out);
    assert_contains(out, "none.obj' holds no points: the mesh is empty");
}

Test(hostile, message_on_a_6000_character_path_keeps_its_reason)
{
    char path[7000];
    size_t n = (size_t)snprintf(path, sizeof path, "/nonexistent");
    while (n < 6000)
        n += (size_t)snprintf(path + n, sizeof path - n, "/%s", "abcdefghij");
    snprintf(path + n, sizeof path - n, "/x.yaml");
    const char *dir = temp_dir("longpath");
    put(dir, "path.txt", path, 0);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "'%s' check \"$(cat '%s/path.txt')\" 2>&1", CLI, dir);
    cr_assert_eq(test_run(cmd, out, sizeof out), 1, "%.300s", out);
    assert_contains(out, " ... ");
    assert_contains(out, "/x.yaml': File name too long");
}
