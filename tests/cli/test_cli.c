/* test_cli.c - the `settee` program, run as a separate process: help and
 * exit codes, `run` (summary line, --quiet, -n/--dt, --export-state, errors),
 * `check` (FILE:LINE:COL errors, the added DefaultAnimationLoop), `inspect`
 * (text and JSON, did-you-mean) and the progress bar (never when stderr is
 * not a terminal; drawn on a pseudo-terminal). Under ASan a leak makes the
 * program exit non-zero, so every exit-code assertion also checks that the
 * program frees everything on that path. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define CLI SETTEE_CLI

static char out[1 << 22]; /* inspect --json of every plugin is large */

/* How many times text occurs in the last command's output. */
static int count_of(const char *text);
static int run(const char *fmt, ...) ST_PRINTF(1, 2);
static int count_of(const char *text)
{
    int n = 0;
    for (const char *p = strstr(out, text); p; p = strstr(p + 1, text))
        n++;
    return n;
}

static int run(const char *fmt, ...)
{
    char args[3000], cmd[3500];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s", CLI, args);
    return test_run(cmd, out, sizeof out);
}

static void assert_has(const char *needle)
{
    cr_assert(strstr(out, needle) != NULL, "expected \"%s\" in:\n%.3000s", needle, out);
}

static void assert_lacks(const char *needle)
{
    cr_assert(strstr(out, needle) == NULL, "did not expect \"%s\" in:\n%.3000s", needle, out);
}

/* A scene needing no plugin: one MechanicalObject, dt 0.01, and no animation loop. */
static const char *GOOD = "format: settee/1\n"
                          "root:\n"
                          "  name: root\n"
                          "  dt: 0.01\n"
                          "  objects:\n"
                          "    - MechanicalObject: {name: dofs, position: [[0, 0, 0], [1, 2, 3]]}\n";

/* ---- help, version, usage ---- */

Test(cli, help_exits_zero_and_documents_exit_codes)
{
    cr_assert_eq(run("--help"), 0, "%.3000s", out);
    assert_has("usage: settee");
    assert_has("run SCENE");
    assert_has("check SCENE");
    assert_has("inspect");
    assert_has("Exit status");
    assert_has("2    bad command line");
    cr_assert_eq(run("help"), 0, "%.3000s", out);
    assert_has("usage: settee");
    /* Every variable settee reads is listed. */
    assert_has("SETTEE_PLUGIN_PATH");
    assert_has("SETTEE_THREADS");
    assert_has("SETTEE_DATA_PATH");
    assert_has("SOFA_DATA_PATH");
}

Test(cli, help_of_a_command)
{
    cr_assert_eq(run("help run"), 0, "%.3000s", out);
    assert_has("usage: settee run SCENE");
    assert_has("--export-state");
    assert_has("default 100");
    cr_assert_eq(run("run --help"), 0, "%.3000s", out);
    assert_has("usage: settee run SCENE");
    cr_assert_eq(run("help check"), 0, "%.3000s", out);
    assert_has("usage: settee check SCENE");
    cr_assert_eq(run("inspect -h"), 0, "%.3000s", out);
    assert_has("usage: settee inspect");
    cr_assert_eq(run("help nosuch"), 2, "%.3000s", out);
}

Test(cli, version)
{
    cr_assert_eq(run("--version"), 0, "%.3000s", out);
    assert_has("settee " ST_VERSION_STRING);
    assert_has("ABI 2.");
}

Test(cli, usage_errors_exit_2)
{
    cr_assert_eq(run("%s", ""), 2, "%.3000s", out);
    assert_has("usage: settee");
    cr_assert_eq(run("frobnicate"), 2, "%.3000s", out);
    assert_has("unknown command 'frobnicate'");
    cr_assert_eq(run("--frobnicate"), 2, "%.3000s", out);
    cr_assert_eq(run("run"), 2, "%.3000s", out);
    assert_has("missing the scene file");
    const char *scene = test_write_temp("usage.yaml", GOOD);
    cr_assert_eq(run("run %s --bogus", scene), 2, "%.3000s", out);
    assert_has("unknown option '--bogus'");
    /* check and inspect share their option parsing (cli_parse_one_arg). */
    cr_assert_eq(run("check %s %s", scene, scene), 2, "%.3000s", out);
    assert_has("settee check: one scene at a time");
    cr_assert_eq(run("check"), 2, "%.3000s", out);
    assert_has("missing the scene file");
    cr_assert_eq(run("check %s --quiet=yes", scene), 2, "%.3000s", out);
    assert_has("option '--quiet' takes no value");
    cr_assert_eq(run("inspect A B"), 2, "%.3000s", out);
    assert_has("settee inspect: one name at a time ('A' and 'B' given)");
    cr_assert_eq(run("inspect -q"), 2, "%.3000s", out);
    assert_has("unknown option '-q'");
    cr_assert_eq(run("inspect --plugin-path"), 2, "%.3000s", out);
    cr_assert_eq(run("run %s -n", scene), 2, "%.3000s", out);
    assert_has("needs a value");
    cr_assert_eq(run("run %s -n -3", scene), 2, "%.3000s", out);
    cr_assert_eq(run("run %s -n 12x", scene), 2, "%.3000s", out);
    cr_assert_eq(run("run %s --dt 0", scene), 2, "%.3000s", out);
    cr_assert_eq(run("run %s --dt nan", scene), 2, "%.3000s", out);
    cr_assert_eq(run("run %s --quiet=yes", scene), 2, "%.3000s", out);
    cr_assert_eq(run("run %s %s", scene, scene), 2, "%.3000s", out);
    cr_assert_eq(run("check"), 2, "%.3000s", out);
    cr_assert_eq(run("inspect A B"), 2, "%.3000s", out);
}

/* ---- run ---- */

Test(cli, run_missing_file_names_the_path)
{
    cr_assert_eq(run("run /nonexistent/dir/nosuch-scene.yaml"), 1, "%.3000s", out);
    assert_has("/nonexistent/dir/nosuch-scene.yaml");
    assert_has("error:");
    assert_lacks("steps, simulated");
}

Test(cli, run_prints_the_summary_line)
{
    const char *scene = test_write_temp("good.yaml", GOOD);
    cr_assert_eq(run("run %s", scene), 0, "%.3000s", out);
    assert_has("100 steps, simulated 1 s in ");
    assert_has(" steps/s), load ");
    assert_has(", init ");
    /* exactly one line of output by default */
    cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "one line only:\n%.3000s", out);
}

Test(cli, run_steps_and_dt)
{
    const char *scene = test_write_temp("steps.yaml", GOOD);
    cr_assert_eq(run("run %s -n 5 --dt 0.5", scene), 0, "%.3000s", out);
    assert_has("5 steps, simulated 2.5 s in ");
    cr_assert_eq(run("run --steps=3 %s --dt=0.25", scene), 0, "%.3000s", out);
    assert_has("3 steps, simulated 0.75 s in ");
    cr_assert_eq(run("run -n1 %s", scene), 0, "%.3000s", out);
    assert_has("1 step, simulated 0.01 s in ");
    cr_assert_eq(run("run %s -n 0", scene), 0, "%.3000s", out);
    assert_has("0 steps, simulated 0 s in ");
}

Test(cli, run_quiet_prints_nothing_on_success)
{
    const char *scene = test_write_temp("quiet.yaml", GOOD);
    cr_assert_eq(run("run %s --quiet", scene), 0, "%.3000s", out);
    cr_assert_str_eq(out, "");
    cr_assert_eq(run("run -q %s", scene), 0, "%.3000s", out);
    cr_assert_str_eq(out, "");
}

Test(cli, run_quiet_still_prints_errors)
{
    const char *scene = test_write_temp("quietbad.yaml", "format: settee/1\n"
                                                         "root:\n"
                                                         "  objects:\n"
                                                         "    - NoSuchThing: {}\n");
    cr_assert_eq(run("run %s -q", scene), 1, "%.3000s", out);
    assert_has("NoSuchThing");
    assert_has("error:");
}

Test(cli, run_exports_the_state)
{
    const char *scene = test_write_temp("export.yaml", GOOD);
    const char *json = test_write_temp("export.json", "");
    cr_assert_eq(run("run %s -n 4 --export-state %s", scene, json), 0, "%.3000s", out);
    FILE *f = fopen(json, "r");
    cr_assert_not_null(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    cr_assert(strncmp(text, "{\"time\": 0.04", 13) == 0, "%s", text);
    cr_assert(strstr(text, "\"steps\": 4,") != NULL, "%s", text);
    cr_assert(strstr(text, "{\"path\": \"/dofs\"") != NULL, "%s", text);
    cr_assert(strstr(text, "[1, 2, 3]") != NULL, "%s", text);
    remove(json);
}

/* Components that act on nothing (issue 31): a spring at the root, between
 * a state under no solver and one under /Bar's, is never applied: check
 * warns and names it; moved below /Bar's solver, it links a state no solver
 * integrates: check refuses it and says what to do. */
Test(cli, check_finds_components_that_act_on_nothing)
{
    static const char *head =
        "format: settee/1\nroot:\n  name: root\n  dt: 0.01\n  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Mass, "
        "SolidMechanics.Spring]}\n"
        "    - DefaultAnimationLoop: {}\n%s"
        "  children:\n    - name: Anchor\n      objects:\n"
        "        - MechanicalObject: {name: anchor, position: [0, 1, 0]}\n"
        "    - name: Bar\n      objects:\n        - EulerImplicitSolver: {}\n"
        "        - SparseLDLSolver: {}\n"
        "        - MechanicalObject: {name: dofs, position: [0, 0, 0]}\n"
        "        - UniformMass: {totalMass: 1}\n%s";
    char yaml[2048];
    snprintf(yaml, sizeof yaml, head,
             "    - SpringForceField: {name: tie, object1: \"@Anchor/anchor\", object2: "
             "\"@Bar/dofs\", spring: \"0 0 100 0 1\"}\n",
             "");
    const char *root_spring = test_write_temp("root_spring.yaml", yaml);
    cr_assert_eq(run("check %s 2>&1", root_spring), 0, "%.3000s", out);
    assert_has("warning: /tie: this force field acts on nothing: no ODE solver above it "
               "integrates its state, so it is never applied");
    snprintf(yaml, sizeof yaml, head, "",
             "        - SpringForceField: {name: tie, object1: \"@/Anchor/anchor\", object2: "
             "\"@dofs\", spring: \"0 0 100 0 1\"}\n");
    const char *bar_spring = test_write_temp("bar_spring.yaml", yaml);
    cr_assert_eq(run("check %s 2>&1", bar_spring), 1, "%.3000s", out);
    assert_has("error: /Bar/tie: SpringForceField.object1: links the state /Anchor/anchor, "
               "which no ODE solver integrates");
}

/* An iterative solver that ends steps at its iteration cap with a residual
 * far above its tolerance: a warning once, a count in the summary with the
 * worst step, and the same in --summary-json (issue 31). The seed beam
 * with CG capped at 2 iterations and a tolerance of 1e-12. */
Test(cli, run_says_when_an_iterative_solver_stops_at_its_cap)
{
    const char *json = test_write_temp("capped.json", "");
    cr_assert_eq(run("run %s/scenes/beam_implicit_cg.yaml -n 5 --no-progress --set "
                     "/Beam/linearSolver.iterations=2 --set /Beam/linearSolver.tolerance=1e-12 "
                     "--summary-json %s 2>&1",
                     SETTEE_SOURCE_DIR, json),
                 0, "%.3000s", out);
    cr_assert_eq(count_of("stopped at its cap of 2 iterations with residual"), 1, "%.3000s",
                 out);
    assert_has("(step 1): its solution is far from converged; raise `iterations`, or use a "
               "direct solver");
    assert_has("  CGLinearSolver /Beam/linearSolver: stopped at its cap of iterations, the "
               "residual over 100 times the tolerance, in 5 of 5 steps (worst: step ");
    char *text = test_read_file(json);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "\"capped\": {\n        \"steps\": 5,"), "%.4000s", text);
    free(text);
    /* Converged solves say nothing of the kind. */
    cr_assert_eq(run("run %s/scenes/beam_implicit_cg.yaml -n 5 --no-progress --set "
                     "/Beam/linearSolver.iterations=500 --set /Beam/linearSolver.tolerance=1e-6 "
                     "2>&1",
                     SETTEE_SOURCE_DIR),
                 0, "%.3000s", out);
    cr_assert_eq(count_of("stopped at its cap"), 0, "%.3000s", out);
}

/* --summary-json: timings, solver outcomes read from the solvers' output
 * fields (cross-checked against --collect of the same field after the last
 * step) and the scene report. */
Test(cli, run_summary_json_reports_timings_and_solver_outcomes)
{
    const char *json = test_write_temp("summary.json", "");
    cr_assert_eq(run("run %s/scenes/beam_implicit_cg.yaml -n 20 --summary-json %s "
                     "--collect it=/Beam/linearSolver.nbIterations --collect r=/Beam/linearSolver.residual",
                     SETTEE_SOURCE_DIR, json), 0, "%.3000s", out);
    assert_has("20 steps, simulated 0.2 s in ");
    assert_has("  CGLinearSolver /Beam/linearSolver: nbIterations mean ");
    unsigned last_it = 0;
    const char *p = strstr(out, "\"it\": ");
    cr_assert(p && sscanf(p, "\"it\": %u", &last_it) == 1, "%.3000s", out);
    double last_r = 0;
    p = strstr(out, "\"r\": ");
    cr_assert(p && sscanf(p, "\"r\": %lf", &last_r) == 1, "%.3000s", out);
    char *text = test_read_file(json);
    cr_assert_not_null(text);
    const char *want[] = {"\"ok\": true", "\"failed\": null", "\"steps\": 20,",
                          "\"planned_steps\": 20,", "\"simulated\": 0.2", "\"wall_seconds\": {",
                          "\"class\": \"CGLinearSolver\",\n      \"outputs\": {\n"
                          "        \"nbIterations\": {\n          \"steps\": 20,",
                          "\"total_mass\": 15", "\"points\": 176"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert(strstr(text, want[i]), "expected \"%s\" in:\n%.4000s", want[i], text);
    /* the last values of the statistics are the solver's fields after the run */
    const char *it = strstr(text, "\"nbIterations\": {");
    const char *last = it ? strstr(it, "\"last\": ") : NULL;
    unsigned got = 0, max_it = 0;
    cr_assert(last && sscanf(last, "\"last\": %u", &got) == 1, "%.4000s", text);
    cr_assert_eq(got, last_it);
    const char *mx = strstr(it, "\"max\": ");
    cr_assert(mx && sscanf(mx, "\"max\": %u", &max_it) == 1);
    cr_assert(max_it >= 1 && max_it <= 25, "CG stops at its 25 iterations: max %u", max_it);
    const char *res = strstr(text, "\"residual\": {");
    double got_r = -1;
    last = res ? strstr(res, "\"last\": ") : NULL;
    cr_assert(last && sscanf(last, "\"last\": %lf", &got_r) == 1, "%.4000s", text);
    cr_assert_eq(got_r, last_r);
    double load = -1, init = -1, steps = -1;
    p = strstr(text, "\"load\": ");
    cr_assert(p && sscanf(p, "\"load\": %lf,\n    \"init\": %lf,\n    \"steps\": %lf", &load, &init,
                          &steps) == 3, "%.4000s", text);
    cr_assert(load > 0 && init > 0 && steps > 0);
    free(text);
}

/* The phases of the solvers' time, as the kernel timed them: a direct
 * solver spends most of it factorizing, CG in its solves; the parts add up
 * to no more than the solver's total. */
static void phases_of(const char *scene, double ph[6])
{
    const char *json = test_write_temp("phases.json", "");
    cr_assert_eq(run("run %s/scenes/%s -n 20 --no-progress --summary-json %s", SETTEE_SOURCE_DIR,
                     scene, json),
                 0, "%.3000s", out);
    assert_has("  phases of /Beam/odesolver: forces ");
    char *text = test_read_file(json);
    const char *p = text ? strstr(text, "\"phases\": [") : NULL;
    cr_assert(p, "%.4000s", text ? text : "");
    const char *keys[6] = {"solver_seconds", "forces", "assembly", "factorization",
                           "linear_solves", "other"};
    for (int i = 0; i < 6; i++) {
        char k[64];
        snprintf(k, sizeof k, "\"%s\": ", keys[i]);
        const char *q = strstr(p, k);
        cr_assert(q && sscanf(q + strlen(k), "%lf", &ph[i]) == 1, "%s in %.4000s", keys[i], p);
        cr_assert_geq(ph[i], 0.0, "%s", keys[i]);
    }
    free(text);
    double parts = ph[1] + ph[2] + ph[3] + ph[4] + ph[5];
    cr_assert(ph[0] > 0.0 && parts <= ph[0] * 1.001 + 1e-6, "parts %g of %g", parts, ph[0]);
}

Test(cli, run_reports_the_phases_of_the_solvers_time)
{
    double ldl[6], cg[6];
    phases_of("beam_implicit_ldl.yaml", ldl);
    cr_assert_gt(ldl[2], 0.0, "a direct solver assembles");
    cr_assert_gt(ldl[3], ldl[4], "factorizing costs more than the two triangular solves");
    phases_of("beam_implicit_cg.yaml", cg);
    cr_assert_eq(cg[2], 0.0, "CG assembles nothing");
    cr_assert_gt(cg[4], cg[3], "CG's time is in its solves");
}

/* Newton's status is a text: each step's value is counted. */
Test(cli, run_summary_json_counts_newton_status)
{
    const char *scene = test_write_temp(
        "newton.yaml",
        "format: settee/1\n"
        "root:\n"
        "  gravity: [0, -10, 0]\n"
        "  dt: 0.1\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct,\n"
        "                                    SolidMechanics.Spring, Constraint.Projective]}\n"
        "    - DefaultAnimationLoop: {}\n"
        "    - NewtonRaphsonSolver: {name: newton, maxNbIterationsNewton: 10}\n"
        "    - StaticSolver: {newtonSolver: \"@newton\"}\n"
        "    - SparseLDLSolver: {template: CompressedRowSparseMatrixMat3x3d}\n"
        "    - MechanicalObject: {position: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]}\n"
        "    - FixedProjectiveConstraint: {indices: [1, 2, 3]}\n"
        "    - SpringForceField: {spring: \"0 1 100 0 1  0 2 100 0 1  0 3 100 0 1\"}\n");
    const char *json = test_write_temp("newton.json", "");
    cr_assert_eq(run("run %s -n 4 --summary-json %s", scene, json), 0, "%.3000s", out);
    assert_has("  NewtonRaphsonSolver /newton: status ");
    char *text = test_read_file(json);
    cr_assert_not_null(text);
    const char *st = strstr(text, "\"status\": {\n          \"steps\": 4,\n          \"last\": \"Converged");
    cr_assert(st, "%.4000s", text);
    /* the counts add up to the steps */
    const char *c = strstr(st, "\"counts\": {");
    const char *end = c ? strchr(c, '}') : NULL;
    cr_assert(c && end);
    unsigned total = 0;
    for (const char *q = strchr(c + 10, ':'); q && q < end; q = strchr(q + 1, ':'))
        total += (unsigned)strtoul(q + 1, NULL, 10);
    cr_assert_eq(total, 4, "%.4000s", text);
    free(text);
}

/* A scene that fails to initialise still writes the summary, saying where. */
Test(cli, run_summary_json_on_failure)
{
    const char *scene = test_write_temp("sumbad.yaml", "format: settee/1\n"
                                                       "root:\n"
                                                       "  objects:\n"
                                                       "    - MechanicalObject: {position: [[0, 0]]}\n");
    const char *json = test_write_temp("sumbad.json", "");
    cr_assert_eq(run("run %s --summary-json %s", scene, json), 1, "%.3000s", out);
    char *text = test_read_file(json);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "\"ok\": false"), "%s", text);
    cr_assert(strstr(text, "\"failed\": \"") && strstr(text, "\"steps\": 0,"), "%s", text);
    free(text);
}

Test(cli, run_export_to_unwritable_file_fails)
{
    const char *scene = test_write_temp("export2.yaml", GOOD);
    cr_assert_eq(run("run %s -n 1 --export-state /nonexistent-dir/x.json", scene), 1, "%.3000s", out);
    assert_has("/nonexistent-dir/x.json");
    assert_has("No such file or directory");
}

Test(cli, run_with_plugins_from_the_build_tree)
{
    const char *scene = test_write_temp("fall.yaml",
                                        "format: settee/1\n"
                                        "root:\n"
                                        "  gravity: [0, -9.81, 0]\n"
                                        "  dt: 0.01\n"
                                        "  objects:\n"
                                        "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass]}\n"
                                        "    - DefaultAnimationLoop: {}\n"
                                        "  children:\n"
                                        "    - name: Ball\n"
                                        "      objects:\n"
                                        "        - EulerExplicitSolver: {symplectic: true}\n"
                                        "        - MechanicalObject: {name: dofs, position: [[0, 0, 0]]}\n"
                                        "        - UniformMass: {totalMass: 1}\n");
    const char *json = test_write_temp("fall.json", "");
    cr_assert_eq(run("run %s -n 10 --export-state %s", scene, json), 0, "%.3000s", out);
    assert_has("10 steps, simulated 0.1 s in ");
    FILE *f = fopen(json, "r");
    cr_assert_not_null(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    cr_assert(strstr(text, "\"/Ball/dofs\"") != NULL, "%s", text);
    /* symplectic Euler from rest, 10 steps: y = -g dt^2 (1 + 2 + ... + 10) = -0.539550 */
    const char *pos = strstr(text, "\"position\": [\n    [0, ");
    cr_assert_not_null(pos, "%s", text);
    double y = strtod(pos + strlen("\"position\": [\n    [0, "), NULL);
    cr_assert_float_eq(y, -9.81 * 0.01 * 0.01 * 55, 1e-12, "y = %.17g", y);
    remove(json);
}

Test(cli, run_interrupted_by_ctrl_c_reports_and_exits_130)
{
    const char *scene = test_write_temp("sigint.yaml", GOOD);
    const char *json = test_write_temp("sigint.json", "");
    remove(json);
    char cmd[2000];
    snprintf(cmd, sizeof cmd,
             "'%s' run %s -n 4000000000 --export-state %s & p=$!; sleep 1; kill -INT $p; wait $p",
             CLI, scene, json);
    cr_assert_eq(test_run(cmd, out, sizeof out), 130, "%.3000s", out);
    assert_has("interrupted after ");
    assert_has(" of 4000000000 steps, simulated ");
    cr_assert_neq(access(json, F_OK), 0, "no state is exported from an interrupted run");
}

/* ---- check ---- */

Test(cli, check_good_scene_says_ok_and_reports_the_added_loop)
{
    const char *scene = test_write_temp("check.yaml", GOOD);
    cr_assert_eq(run("check %s", scene), 0, "%.3000s", out);
    assert_has(": ok (1 node, 2 objects, DefaultAnimationLoop added)");
    assert_has(scene);
    assert_has("info:");
}

Test(cli, check_bad_scene_prints_file_line_col)
{
    const char *scene = test_write_temp("bad.yaml", "format: settee/1\n"
                                                    "root:\n"
                                                    "  name: root\n"
                                                    "  objects:\n"
                                                    "    - MechanicalObject: {name: dofs, positon: [[0, 0, 0]]}\n"
                                                    "    - MechanicalObjet: {name: other}\n");
    cr_assert_eq(run("check %s", scene), 1, "%.3000s", out);
    char where[600];
    /* both errors are reported, each with its position */
    snprintf(where, sizeof where, "%s:5:", scene);
    assert_has(where);
    snprintf(where, sizeof where, "%s:6:", scene);
    assert_has(where);
    assert_has("error:");
    assert_has("positon");
    assert_has("MechanicalObjet");
    assert_lacks(": ok (");
}

/* Init reports every component that fails, not just the first, and skips
 * (without a message) what depends on a failed one: A's mass has no
 * topology, B's mass is negative; A's constraint (after A's failed mass),
 * the node below A, and D's mass (whose totalMass is a data link to B's)
 * are not initialised and say nothing; C is fine. */
Test(cli, check_reports_every_init_failure)
{
    const char *scene = test_write_temp(
        "initerrs.yaml", "format: settee/1\n"
                         "root:\n"
                         "  objects:\n"
                         "    - RequiredPlugin: {pluginName: [Mass, Constraint.Projective]}\n"
                         "    - DefaultAnimationLoop: {}\n"
                         "  children:\n"
                         "    - name: A\n"
                         "      objects:\n"
                         "        - MechanicalObject: {name: dofs, position: [[0, 0, 0]]}\n"
                         "        - DiagonalMass: {}\n"
                         "        - FixedProjectiveConstraint: {indices: [0]}\n"
                         "      children:\n"
                         "        - name: Below\n"
                         "          objects:\n"
                         "            - MechanicalObject: {position: [[0, 0, 0]]}\n"
                         "            - UniformMass: {totalMass: -2}\n"
                         "    - name: B\n"
                         "      objects:\n"
                         "        - MechanicalObject: {name: dofs, position: [[0, 0, 0]]}\n"
                         "        - UniformMass: {totalMass: -1}\n"
                         "    - name: C\n"
                         "      objects:\n"
                         "        - MechanicalObject: {name: dofs, position: [[0, 0, 0]]}\n"
                         "        - UniformMass: {totalMass: 1}\n"
                         "    - name: D\n"
                         "      objects:\n"
                         "        - MechanicalObject: {name: dofs, position: [[0, 0, 0]]}\n"
                         "        - UniformMass: {totalMass: \"@/B/UniformMass1.totalMass\"}\n");
    cr_assert_eq(run("check %s", scene), 1, "%.3000s", out);
    char where[600];
    snprintf(where, sizeof where, "%s:10:11: error: /A/DiagonalMass1: ", scene);
    assert_has(where);
    snprintf(where, sizeof where, "%s:20:36: error: /B/UniformMass1: ", scene);
    assert_has(where);
    assert_has(": 2 errors, 0 warnings");
    /* below a failed node nothing initialises, so nothing more is said */
    assert_lacks("/A/Below");
    assert_lacks("/A/FixedProjectiveConstraint1");
    assert_lacks("/C/");
    assert_lacks("/D/");
}

Test(cli, check_yaml_syntax_error)
{
    const char *scene = test_write_temp("syntax.yaml", "format: settee/1\n"
                                                       "root:\n"
                                                       "  objects: [\n");
    cr_assert_eq(run("check %s", scene), 1, "%.3000s", out);
    assert_has(scene);
    assert_has("error:");
}

/* The scene report of `check`: fem_beam.scn is a 21 x 3 x 3 grid (189
 * points) over 2 m x 0.2 m x 0.2 m cut into 20 * 2 * 2 hexahedra of 6
 * tetrahedra each (480), DiagonalMass of density 1000 (total 1000 * 0.08 =
 * 80 kg), clamped on the 3 x 3 points at x = 0 by a BoxROI. */
Test(cli, check_reports_what_the_scene_is)
{
    cr_assert_eq(run("check %s/scenes/sofa/fem_beam.scn", SETTEE_SOURCE_DIR), 0, "%.3000s", out);
    assert_has(": ok (2 nodes, 21 objects)\n");
    assert_has("system /Beam: EulerImplicitSolver (/Beam/EulerImplicitSolver1), linear solver "
               "SparseLDLSolver (/Beam/SparseLDLSolver1); 567 degrees of freedom\n");
    assert_has("  state /Beam/dofs: MechanicalObject, Vec3d, 189 points\n");
    assert_has("  mass /Beam/DiagonalMass1: DiagonalMass, total 80\n");
    assert_has("  force field /Beam/fem: TetrahedronFEMForceField, 480 tetrahedra\n");
    assert_has("  constraint /Beam/FixedProjectiveConstraint1: FixedProjectiveConstraint, "
               "constrains 9 points\n");
    assert_has("roi /Beam/clamp: BoxROI, selects 9 points\n");
    cr_assert_eq(run("check -q %s/scenes/sofa/fem_beam.scn", SETTEE_SOURCE_DIR), 0, "%.3000s", out);
    cr_assert_str_eq(out, "");
}

/* An interaction force field in a node without a state (a SpringForceField
 * at the root joining /A and /B, both under the root's solver) is listed
 * with the system its states belong to, not left out. */
Test(cli, check_lists_interaction_force_fields_outside_the_states_nodes)
{
    const char *scene = test_write_temp(
        "inter.yaml",
        "format: settee/1\nroot:\n  gravity: [0, -10, 0]\n  dt: 0.01\n  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, SolidMechanics.Spring]}\n"
        "    - EulerExplicitSolver: {symplectic: true}\n"
        "    - SpringForceField: {name: link, object1: \"@A/p\", object2: \"@B/p\","
        " spring: [[0, 0, 100, 0.1, 1]]}\n"
        "  children:\n"
        "    - name: A\n      objects:\n"
        "        - MechanicalObject: {name: p, position: [[0, 0, 0]]}\n"
        "        - UniformMass: {totalMass: 1}\n"
        "    - name: B\n      objects:\n"
        "        - MechanicalObject: {name: p, position: [[1, 0, 0]]}\n"
        "        - UniformMass: {totalMass: 1}\n");
    cr_assert_eq(run("check %s", scene), 0, "%.3000s", out);
    assert_has("  force field /link: SpringForceField, 1 springs\n");
}

/* MeshSpringForceField's springs (SOFA's `spring` output): one per pair of
 * points of a cell, counted once. For a 4 x 4 x 11 grid, the 13 offsets
 * (a, b, c) in {-1, 0, 1}^3 up to sign give sum (4 - |a|)(4 - |b|)(11 - |c|)
 * = 424 (axes) + 678 (face diagonals) + 360 (cell diagonals) = 1462. */
Test(cli, check_counts_mesh_springs)
{
    cr_assert_eq(run("check %s/scenes/beam_implicit_cg.yaml", SETTEE_SOURCE_DIR), 0, "%.3000s",
                 out);
    assert_has("  force field /Beam/MeshSpringForceField1: MeshSpringForceField, 1462 springs\n");
    assert_has("  mass /Beam/UniformMass1: UniformMass, total 15\n");
    assert_has("  constraint /Beam/FixedProjectiveConstraint1: FixedProjectiveConstraint, "
               "constrains 16 points\n");
}

/* Two systems, springs counted from the spring list, a partial constraint
 * (PartialFixedProjectiveConstraint fixing y of points 0 and 2: two points
 * constrained), masses given per point (3 points of 2.5: 7.5) and in total. */
Test(cli, check_json_report)
{
    const char *scene = test_write_temp(
        "report.yaml",
        "format: settee/1\n"
        "root:\n"
        "  dt: 0.01\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Forward, ODESolver.Backward, Mass,\n"
        "                                    LinearSolver.Iterative, SolidMechanics.Spring,\n"
        "                                    Constraint.Projective]}\n"
        "  children:\n"
        "    - name: A\n"
        "      objects:\n"
        "        - EulerImplicitSolver: {}\n"
        "        - CGLinearSolver: {name: cg, iterations: 25, tolerance: 1e-5, threshold: 1e-5}\n"
        "        - MechanicalObject: {name: dofs, position: [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}\n"
        "        - UniformMass: {vertexMass: 2.5}\n"
        "        - SpringForceField: {name: springs, spring: \"0 1 10 0 1  1 2 10 0 1\"}\n"
        "        - PartialFixedProjectiveConstraint: {name: fix, indices: [0, 2],\n"
        "                                             fixedDirections: [0, 1, 0]}\n"
        "    - name: B\n"
        "      objects:\n"
        "        - EulerExplicitSolver: {}\n"
        "        - MechanicalObject: {name: dofs, template: Vec1d, position: [[0], [1]]}\n"
        "        - UniformMass: {totalMass: 4}\n");
    cr_assert_eq(run("check --json %s", scene), 0, "%.3000s", out);
    const char *want[] = {
        "\"ok\": true", "\"nodes\": 3", "\"objects\": 11",
        "\"node\": \"/A\"", "\"class\": \"CGLinearSolver\"", "\"dofs\": 9",
        "\"type\": \"Vec3d\",\n          \"points\": 3",
        "\"path\": \"/A/springs\",\n          \"class\": \"SpringForceField\",\n"
        "          \"elements\": 2,\n          \"element_type\": \"springs\"",
        "\"total_mass\": 7.5,",
        "\"path\": \"/A/fix\",\n          \"class\": \"PartialFixedProjectiveConstraint\",\n"
        "          \"points\": 2",
        "\"node\": \"/B\"", "\"linear_solver\": null", "\"dofs\": 2",
        "\"type\": \"Vec1d\",\n          \"points\": 2", "\"total_mass\": 4,",
        "\"rois\": []"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_has(want[i]);
    /* an invalid scene: "ok": false on stdout, the errors on stderr */
    const char *bad = test_write_temp("report_bad.yaml", "format: settee/1\n"
                                                         "root:\n"
                                                         "  objects:\n"
                                                         "    - NoSuchThing: {}\n");
    cr_assert_eq(run("check --json %s", bad), 1, "%.3000s", out);
    assert_has("\"ok\": false");
    assert_has("\"errors\": 1");
    assert_has("NoSuchThing");
}

/* ---- inspect ---- */

Test(cli, inspect_lists_plugins)
{
    cr_assert_eq(run("inspect"), 0, "%.3000s", out);
    assert_has("Plugin search path:");
    assert_has("MechanicalObject");
    assert_has("DefaultAnimationLoop");
    assert_has("ODESolver.Forward");
    assert_has("EulerExplicitSolver");
}

Test(cli, inspect_builtin_component_lists_its_fields)
{
    cr_assert_eq(run("inspect MechanicalObject"), 0, "%.3000s", out);
    assert_has("MechanicalObject  (plugin ");
    assert_has("Fields");
    assert_has("position");
    assert_has("velocity");
    assert_has("vec3");
    assert_has("Links:");
    assert_has("topology");
    cr_assert_eq(run("inspect DefaultAnimationLoop"), 0, "%.3000s", out);
    assert_has("DefaultAnimationLoop  (plugin ");
    assert_has("AnimationLoop");
}

Test(cli, inspect_a_plugin)
{
    cr_assert_eq(run("inspect ODESolver.Forward"), 0, "%.3000s", out);
    assert_has("ODESolver.Forward ");
    assert_has("EulerExplicitSolver");
    assert_has("file: ");
}

Test(cli, inspect_json)
{
    cr_assert_eq(run("inspect --json"), 0, "%.3000s", out);
    cr_assert_eq(out[0], '{', "%.3000s", out);
    assert_has("\"plugins\": [");
    assert_has("\"name\": \"MechanicalObject\"");
    assert_has("\"fields\": [");
    cr_assert_eq(out[strlen(out) - 2], '}', "ends with }");

    cr_assert_eq(run("inspect MechanicalObject --json"), 0, "%.3000s", out);
    cr_assert(strncmp(out, "{\n  \"component\": {\n    \"name\": \"MechanicalObject\",", 49) == 0,
              "%.3000s", out);
    assert_has("\"name\": \"position\",\n        \"type\": \"coord[]\"");
    assert_has("\"kind\": \"topology\"");

    cr_assert_eq(run("inspect --json ODESolver.Forward"), 0, "%.3000s", out);
    cr_assert(strncmp(out, "{\n  \"plugin\": {\n    \"name\": \"ODESolver.Forward\",", 48) == 0,
              "%.3000s", out);
}

Test(cli, inspect_json_is_stable)
{
    cr_assert_eq(run("inspect --json"), 0, "%.3000s", out);
    static char first[sizeof out];
    strcpy(first, out);
    cr_assert_eq(run("inspect --json"), 0, "%.3000s", out);
    cr_assert(strcmp(out, first) == 0, "two runs of inspect --json differ");
}

Test(cli, inspect_unknown_name_suggests)
{
    cr_assert_eq(run("inspect MechanicalObjet"), 1, "%.3000s", out);
    assert_has("MechanicalObjet");
    assert_has("did you mean 'MechanicalObject'");
    cr_assert_eq(run("inspect Zzzzzzzzzzzzzzzz --json"), 1, "%.3000s", out);
    assert_has("no component or plugin named 'Zzzzzzzzzzzzzzzz'");
}

/* ---- progress bar ---- */

/* Wall time from the summary line ("... in 1.234 s ..."), or -1. */
static double wall_time(void)
{
    const char *p = strstr(out, " in ");
    return p ? strtod(p + 4, NULL) : -1.0;
}

Test(cli, no_progress_bar_when_not_a_terminal)
{
    const char *scene = test_write_temp("long.yaml", GOOD);
    /* long enough for the bar's 1 s delay to pass */
    unsigned long n = 200000;
    for (int tries = 0; tries < 6; tries++) {
        cr_assert_eq(run("run %s -n %lu", scene, n), 0, "%.3000s", out);
        if (wall_time() > 1.2)
            break;
        n *= 3;
    }
    cr_assert(wall_time() > 1.2, "the run should last more than a second: %.3000s", out);
    cr_assert_null(strchr(out, '\r'), "no carriage return without a terminal:\n%.3000s", out);
    assert_lacks("\033[");
    assert_lacks("ETA");
}

Test(cli, progress_bar_on_a_terminal)
{
    if (system("script --version >/dev/null 2>&1") != 0)
        cr_skip_test("script(1) is not available to make a pseudo-terminal");
    const char *scene = test_write_temp("tty.yaml", GOOD);
    unsigned long n = 200000;
    for (int tries = 0; tries < 6; tries++) {
        char cmd[2000];
        snprintf(cmd, sizeof cmd, "script -qefc \"stty cols 100; '%s' run %s -n %lu\" /dev/null",
                 CLI, scene, n);
        cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%.3000s", out);
        if (wall_time() > 1.5)
            break;
        n *= 3;
    }
    cr_assert(wall_time() > 1.5, "the run should last more than a second: %.3000s", out);
    assert_has("\r[");
    assert_has(" steps/s ");
    assert_has("ETA ");
    assert_has("\r\033[K"); /* erased at the end */
    assert_has(" steps, simulated ");
}

/* A collision scene's export ends with its contacts (pairs, counts, points,
 * normals, distances), every N steps with --export-state-every. */
Test(cli, run_exports_the_contacts)
{
    char scene[1024];
    snprintf(scene, sizeof scene, "%s/scenes/collision_two_solvers.yaml", SETTEE_SOURCE_DIR);
    const char *json = test_write_temp("contacts.json", "");
    cr_assert_eq(run("run %s -n 100 -q --export-state %s --export-state-every 60", scene, json), 0,
                 "%.3000s", out);
    char *text = test_read_file(json);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "\"contacts\": [\n {\"path\": \"/CollisionPipeline1\""), "%.2000s", text);
    cr_assert(strstr(text, "\"contactPairs\": [\"/B/Surface/TriangleCollisionModel1\", "
                           "\"/A/Surface/PointCollisionModel1\""),
              "%.4000s", strstr(text, "\"contacts\""));
    /* at step 100 the cubes touch: contacts, each with a normal */
    const char *c = strstr(text, "\"contactNormals\": [\n");
    cr_assert_not_null(c, "no contact normals: %.4000s", strstr(text, "\"contacts\""));
    cr_assert(!strstr(text, "\"contactCounts\": [0, 0, 0, 0, 0, 0]"), "%.4000s", c);
    free(text);
    char every[1100];
    snprintf(every, sizeof every, "%.*s_60.json", (int)(strlen(json) - 5), json);
    text = test_read_file(every);
    cr_assert_not_null(text, "%s", every);
    cr_assert(strstr(text, "\"contactCounts\": ["), "%.2000s", text);
    free(text);
}
