/* test_sweep.c - `settee sweep` and `settee run --collect`, run as separate
 * processes: plan errors at PLAN:LINE:COL; ranges, random draws, product
 * and zip; a local sweep of the shipped implicit beam equal to single
 * `settee run --set` runs; resuming; crashed, diverged (NaN), failing and
 * timed-out cases recorded while the others finish; Ctrl-C and resume; the
 * --list commands run through GNU parallel; a 12-case job array on a
 * one-node Slurm cluster started on localhost (tests/sweep/slurm-cluster.sh)
 * gathered with --collect and equal to the local table. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

#define CLI SETTEE_CLI
#define BEAM SETTEE_SOURCE_DIR "/scenes/beam_implicit_cg.yaml"

extern char **environ;

static char out[1 << 20];

static int sh(const char *fmt, ...) ST_PRINTF(1, 2);
static int sh(const char *fmt, ...)
{
    char cmd[4000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return test_run(cmd, out, sizeof out);
}

static void assert_has(const char *needle)
{
    cr_assert(strstr(out, needle) != NULL, "expected \"%s\" in:\n%.4000s", needle, out);
}

/* A fresh folder for one test. */
static const char *temp_dir(void)
{
    static char dir[512];
    snprintf(dir, sizeof dir, "%s/settee-sweep-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert(mkdtemp(dir));
    return dir;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot read %s", path);
    static char bufs[4][1 << 18];
    static int slot;
    char *b = bufs[slot++ % 4];
    size_t n = fread(b, 1, sizeof bufs[0] - 1, f);
    b[n] = 0;
    fclose(f);
    return b;
}

/* The CSV without its wall_s column (the only one that differs between two
 * runs of the same plan). */
static char *table_without_wall(const char *path)
{
    const char *csv = read_file(path);
    static char bufs[2][1 << 18];
    static int slot;
    char *o = bufs[slot++ % 2];
    size_t n = 0;
    /* find the column of wall_s in the header */
    int wall = 0;
    for (const char *p = csv; *p && *p != '\n'; p++)
        if (*p == ',') {
            wall++;
            if (!strncmp(p + 1, "wall_s,", 7))
                break;
        }
    int col = 0;
    bool quoted = false;
    for (const char *p = csv; *p; p++) {
        if (*p == '"')
            quoted = !quoted;
        if (!quoted && *p == '\n') {
            col = 0;
            o[n++] = '\n';
            continue;
        }
        if (!quoted && *p == ',') {
            col++;
            if (col == wall)
                continue;
        }
        if (col != wall)
            o[n++] = *p;
    }
    o[n] = 0;
    return o;
}

/* Field `col` (0-based) of row `row` (0 = header) of a CSV without quotes. */
static const char *cell(const char *csv, int row, int col)
{
    static char buf[8192];
    const char *p = csv;
    for (int r = 0; r < row && p; r++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    cr_assert(p && *p, "no row %d in:\n%s", row, csv);
    for (int c = 0; c < col; c++) {
        p = strpbrk(p, ",\n");
        cr_assert(p && *p == ',', "no column %d in row %d of:\n%s", col, row, csv);
        p++;
    }
    size_t n = strcspn(p, ",\n");
    snprintf(buf, sizeof buf, "%.*s", (int)n, p);
    return buf;
}

/* ---- run --collect ---- */

Test(sweep, run_collect_reads_fields_at_the_end)
{
    const char *d = temp_dir();
    char json[600], exp[600];
    snprintf(json, sizeof json, "%s/c.json", d);
    snprintf(exp, sizeof exp, "%s/e.json", d);
    cr_assert_eq(sh("'%s' run %s -n 5 -q --collect tip=/Beam/dofs.position[-1] --collect "
                    "/Beam/dofs.position[-1][1] --collect time --collect dt --collect "
                    "/Beam/linearSolver.nbIterations --collect-json %s",
                    CLI, BEAM, json),
                 0, "%s", out);
    const char *c = read_file(json);
    cr_assert(strstr(c, "\"steps\": 5"), "%s", c);
    cr_assert(strstr(c, "\"time\": 0.05"), "%s", c);
    cr_assert(strstr(c, "\"dt\": 0.01"), "%s", c);
    cr_assert(strstr(c, "\"/Beam/linearSolver.nbIterations\": "), "%s", c);
    /* the last point, as --export-state writes it (17 digits both) */
    cr_assert_eq(sh("'%s' run %s -n 5 -q --export-state %s", CLI, BEAM, exp), 0, "%s", out);
    const char *e = read_file(exp);
    const char *tip = strstr(c, "\"tip\": [");
    cr_assert(tip, "%s", c);
    double x, y, z, ex, ey, ez, y1;
    cr_assert_eq(sscanf(tip, "\"tip\": [ %lf , %lf , %lf", &x, &y, &z), 3, "%s", c);
    const char *ly = strstr(c, "\"/Beam/dofs.position[-1][1]\": ");
    cr_assert(ly && sscanf(ly + strlen("\"/Beam/dofs.position[-1][1]\": "), "%lf", &y1) == 1);
    /* the last "[x, y, z]" line before the velocities */
    const char *vel = strstr(e, "\"velocity\""), *lastpt = NULL;
    for (const char *q = strstr(e, "\"position\""); q && q < vel; q = strstr(q + 1, "\n    ["))
        lastpt = q;
    cr_assert(lastpt && sscanf(lastpt, "\n [ %lf , %lf , %lf", &ex, &ey, &ez) == 3,
              "%.400s", lastpt ? lastpt : e);
    cr_assert(x == ex && y == ey && z == ez && y1 == y, "collect (%.17g %.17g %.17g) != export "
              "(%.17g %.17g %.17g)", x, y, z, ex, ey, ez);

    /* stdout without --collect-json; errors name the spec */
    cr_assert_eq(sh("'%s' run %s -n 1 -q --collect time", CLI, BEAM), 0, "%s", out);
    assert_has("\"values\": {\n    \"time\": 0.01");
    cr_assert_eq(sh("'%s' run %s -n 1 -q --collect /Beam/dofs.position[999]", CLI, BEAM), 1);
    assert_has("index 999 out of range (176 tuples)");
    cr_assert_eq(sh("'%s' run %s -n 1 -q --collect /Beam/dofs.nosuch", CLI, BEAM), 1);
    assert_has("has no field 'nosuch'");
    cr_assert_eq(sh("'%s' run %s -n 1 -q --collect /Beam/dofs.positon", CLI, BEAM), 1);
    assert_has("has no field 'positon' (did you mean 'position'");
    cr_assert_eq(sh("'%s' run %s -n 1 -q --collect /Beam/dof.position", CLI, BEAM), 1);
    assert_has("did you mean 'dofs'?");
    cr_assert_eq(sh("'%s' run %s -n 1 -q --collect /Beam/nobody.x", CLI, BEAM), 1);
    assert_has("--collect /Beam/nobody.x");
    cr_assert_eq(sh("'%s' run %s -n 1 --collect 'p[1]x'", CLI, BEAM), 2);
    assert_has("bad index");
    cr_assert_eq(sh("'%s' run %s -n 1 --collect-json %s", CLI, BEAM, json), 2);
    assert_has("--collect-json needs at least one --collect");
}

/* An engine's output is read as of the end of the run: the BoxROI around
 * the falling point 0 held it at the start and is empty after 100 steps
 * (y = -5.05); it was the value of the engine's last run before. */
Test(sweep, run_collect_brings_engine_outputs_up_to_date)
{
    const char *d = temp_dir();
    write_file(d, "box.yaml",
               "format: settee/1\n"
               "root:\n"
               "  gravity: [0, -10, 0]\n"
               "  dt: 0.01\n"
               "  objects:\n"
               "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, Engine.Select]}\n"
               "    - EulerExplicitSolver: {}\n"
               "    - MechanicalObject: {name: dofs, position: [[0,0,0],[5,0,0]]}\n"
               "    - UniformMass: {vertexMass: 1}\n"
               "    - BoxROI: {name: box, box: [-1, -0.1, -1, 1, 1, 1], "
               "position: '@dofs.position'}\n");
    cr_assert_eq(sh("'%s' run %s/box.yaml -n 1 -q --collect /box.indices", CLI, d), 0, "%s", out);
    assert_has("\"/box.indices\": [\n      0\n    ]");
    cr_assert_eq(sh("'%s' run %s/box.yaml -n 100 -q --collect /box.indices", CLI, d), 0, "%s",
                 out);
    assert_has("\"/box.indices\": []");
}

/* ---- the plan ---- */

static const char *plan_at(const char *d, const char *text)
{
    write_file(d, "plan.yaml", text);
    static char path[600];
    snprintf(path, sizeof path, "%s/plan.yaml", d);
    return path;
}

Test(sweep, plan_errors_have_positions)
{
    const char *d = temp_dir();
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"sweep: settee/2\nscene: " BEAM "\nparameters: {dt: [1]}\n",
         "plan.yaml:1:8: error: a sweep plan starts with 'sweep: settee/1' (not 'settee/2')"},
        {"sweep: settee/1\nscene: " BEAM "\nparamters: {dt: [1]}\n",
         "plan.yaml:3:1: error: unknown key 'paramters'"},
        {"sweep: settee/1\nscene: nosuch.yaml\nparameters: {dt: [1]}\n",
         "plan.yaml:2:8: error: scene: cannot read"},
        {"sweep: settee/1\nscene: " BEAM "\nparameters:\n  dt: {start: 1, stop: 2}\n",
         "plan.yaml:4:7: error: dt: a range needs start, stop and num"},
        {"sweep: settee/1\nscene: " BEAM "\nparameters:\n  dt: {start: 0, stop: 2, num: 3, "
         "scale: log}\n",
         "plan.yaml:4:15: error: dt: a log range needs start and stop > 0"},
        {"sweep: settee/1\nscene: " BEAM "\nparameters:\n  zip:\n    dt: [1, 2]\n    "
         "/Beam/dofs.x: [1]\n",
         "plan.yaml:5:5: error: zipped parameters need equal lengths: 'dt' has 2 values, "
         "'/Beam/dofs.x' has 1"},
        {"sweep: settee/1\nscene: " BEAM "\nparameters:\n  dt: {random: gauss, num: 2}\n",
         "plan.yaml:4:16: error: dt: random must be uniform, loguniform, normal or integer"},
        {"sweep: settee/1\nscene: " BEAM "\nsteps: -3\nparameters: {dt: [1]}\n",
         "plan.yaml:3:8: error: steps: expected a whole number"},
        {"sweep: settee/1\nscene: " BEAM "\nparameters: {dt: [1]}\ncollect: [a.b, a.b]\n",
         "plan.yaml:4:16: error: collect: 'a.b' is collected twice"},
        {"sweep: settee/1\nscene: " BEAM "\nparameters: {dt: [1}\n",
         "plan.yaml:3:20: error: YAML syntax error"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *plan = plan_at(d, cases[i].text);
        cr_assert_eq(sh("'%s' sweep %s --collect --out %s/o", CLI, plan, d), 1, "%s", out);
        assert_has(cases[i].want);
    }
    /* usage */
    const char *plan = plan_at(d, "sweep: settee/1\nscene: " BEAM "\nparameters: {dt: [1, 2]}\n");
    cr_assert_eq(sh("'%s' sweep", CLI), 2);
    assert_has("missing the plan file");
    cr_assert_eq(sh("'%s' sweep %s --list --collect", CLI, plan), 2);
    assert_has("cannot be combined");
    cr_assert_eq(sh("'%s' sweep %s --partition x", CLI, plan), 2);
    assert_has("go with --slurm");
    cr_assert_eq(sh("'%s' sweep %s -j 0", CLI, plan), 2);
    cr_assert_eq(sh("'%s' sweep %s --case 2 --out %s/o", CLI, plan, d), 2);
    assert_has("there is no case 2 (the plan has 2 cases, 0 to 1)");
    cr_assert_eq(sh("'%s' help sweep", CLI), 0);
    assert_has("usage: settee sweep PLAN");
    cr_assert_eq(sh("'%s' --help", CLI), 0);
    assert_has("sweep PLAN");
}

Test(sweep, ranges_random_product_and_zip)
{
    const char *d = temp_dir();
    const char *plan = plan_at(d, "sweep: settee/1\n"
                                  "scene: " BEAM "\n"
                                  "parameters:\n"
                                  "  /Beam/odesolver.rayleighMass: {start: 0, stop: 1, num: 3}\n"
                                  "  /Beam/MeshSpringForceField1.stiffness: {start: 1, stop: 100, "
                                  "num: 3, scale: log}\n"
                                  "  zip:\n"
                                  "    dt: {random: uniform, low: 0.001, high: 0.01, num: 2, seed: 7}\n"
                                  "    gravity: [[0, -9.81, 0], [0, 0, -1]]\n");
    /* --collect on an empty folder: the table of parameters, every case missing */
    cr_assert_eq(sh("'%s' sweep %s --collect --out %s/o", CLI, plan, d), 1, "%s", out);
    assert_has("18 cases: 0 ok, 0 failed, 0 crashed, 0 timeout, 18 without a result");
    char csv[600];
    snprintf(csv, sizeof csv, "%s/o/results.csv", d);
    const char *t = read_file(csv);
    cr_assert(!strncmp(t, "case,/Beam/odesolver.rayleighMass,/Beam/MeshSpringForceField1.stiffness,"
                          "dt,gravity,status,wall_s,error\n", 95), "%s", t);
    /* the last parameter varies fastest; zipped ones together */
    cr_assert_str_eq(cell(t, 1, 1), "0");
    cr_assert_str_eq(cell(t, 1, 2), "1");
    cr_assert_str_eq(cell(t, 1, 4), "0 -9.81 0");
    cr_assert_str_eq(cell(t, 2, 4), "0 0 -1");
    cr_assert_str_eq(cell(t, 3, 2), "10");
    cr_assert_str_eq(cell(t, 5, 2), "100");
    cr_assert_str_eq(cell(t, 7, 1), "0.5");
    cr_assert_str_eq(cell(t, 13, 1), "1");
    cr_assert_str_eq(cell(t, 1, 5), "missing");
    char dt0[64], dt1[64];
    snprintf(dt0, sizeof dt0, "%s", cell(t, 1, 3));
    snprintf(dt1, sizeof dt1, "%s", cell(t, 2, 3));
    double a = atof(dt0), b = atof(dt1);
    cr_assert(a >= 0.001 && a <= 0.01 && b >= 0.001 && b <= 0.01 && a != b, "%s %s", dt0, dt1);
    cr_assert_str_eq(cell(t, 3, 3), dt0);
    /* the same seed draws the same values */
    cr_assert_eq(sh("'%s' sweep %s --collect --out %s/o2", CLI, plan, d), 1);
    snprintf(csv, sizeof csv, "%s/o2/results.csv", d);
    cr_assert_str_eq(cell(read_file(csv), 2, 3), dt1);

    /* combine: zip zips everything */
    plan = plan_at(d, "sweep: settee/1\nscene: " BEAM "\ncombine: zip\nparameters:\n"
                      "  dt: [0.01, 0.02, 0.03]\n  /Beam/odesolver.rayleighMass: {start: 0, stop: 0.2, num: 3}\n");
    cr_assert_eq(sh("'%s' sweep %s --collect --out %s/o3", CLI, plan, d), 1);
    assert_has("3 cases:");
    snprintf(csv, sizeof csv, "%s/o3/results.csv", d);
    cr_assert_str_eq(cell(read_file(csv), 3, 1), "0.03");
    cr_assert_str_eq(cell(read_file(csv), 2, 2), "0.1");

    /* steps as a parameter: each case's own step count */
    plan = plan_at(d, "sweep: settee/1\nscene: " BEAM "\nparameters:\n  zip:\n"
                      "    dt: [0.01, 0.005]\n    steps: [2, 4]\ncollect: [time]\n");
    cr_assert_eq(sh("'%s' sweep %s --out %s/o4", CLI, plan, d), 0, "%s", out);
    snprintf(csv, sizeof csv, "%s/o4/results.csv", d);
    cr_assert_str_eq(cell(read_file(csv), 1, 5), "0.02");
    cr_assert_str_eq(cell(read_file(csv), 2, 5), "0.02");
    plan = plan_at(d, "sweep: settee/1\nscene: " BEAM "\nparameters:\n  steps: [2, 1.5]\n");
    cr_assert_eq(sh("'%s' sweep %s --collect --out %s/o5", CLI, plan, d), 1);
    assert_has("plan.yaml:4:10: error: steps: each value must be a whole number of steps, not '1.5'");
}

/* ---- local runs ---- */

/* 2 stiffnesses x 2 time steps of the shipped implicit beam, 10 steps. */
static const char *beam_plan(const char *d)
{
    return plan_at(d, "sweep: settee/1\n"
                      "scene: " BEAM "\n"
                      "steps: 10\n"
                      "parameters:\n"
                      "  /Beam/MeshSpringForceField1.stiffness: [100, 1000]\n"
                      "  dt: [0.01, 0.005]\n"
                      "collect:\n"
                      "  - {name: tip, field: \"/Beam/dofs.position[-1]\"}\n"
                      "  - /Beam/linearSolver.nbIterations\n");
}

Test(sweep, local_sweep_equals_single_runs)
{
    const char *d = temp_dir();
    const char *plan = beam_plan(d);
    cr_assert_eq(sh("'%s' sweep %s -j 2 --out %s/o", CLI, plan, d), 0, "%s", out);
    assert_has("sweep: 4 cases, 0 done already, running 4 on 2 processes");
    assert_has("4 cases: 4 ok, 0 failed, 0 crashed, 0 timeout");
    char path[600];
    snprintf(path, sizeof path, "%s/o/results.csv", d);
    const char *t = read_file(path);
    cr_assert(!strncmp(t, "case,/Beam/MeshSpringForceField1.stiffness,dt,status,wall_s,tip,"
                          "/Beam/linearSolver.nbIterations,error\n", 98), "%s", t);
    static const char *const k[] = {"100", "100", "1000", "1000"};
    static const char *const dt[] = {"0.01", "0.005", "0.01", "0.005"};
    for (int i = 0; i < 4; i++) {
        char tip[256], its[64];
        snprintf(tip, sizeof tip, "%s", cell(t, i + 1, 5));
        snprintf(its, sizeof its, "%s", cell(t, i + 1, 6));
        cr_assert_str_eq(cell(t, i + 1, 3), "ok");
        /* the same case as one `settee run --set` */
        cr_assert_eq(sh("'%s' run " BEAM " -n 10 -q --set /Beam/MeshSpringForceField1.stiffness=%s "
                        "--set dt=%s --collect /Beam/dofs.position[-1][0] --collect "
                        "/Beam/dofs.position[-1][1] --collect /Beam/dofs.position[-1][2] "
                        "--collect /Beam/linearSolver.nbIterations",
                        CLI, k[i], dt[i]),
                     0, "%s", out);
        char x[64], y[64], z[64], n[64], want[256];
        cr_assert_eq(sscanf(strstr(out, "[-1][0]\": ") + 10, "%63[^,\n]", x), 1);
        cr_assert_eq(sscanf(strstr(out, "[-1][1]\": ") + 10, "%63[^,\n]", y), 1);
        cr_assert_eq(sscanf(strstr(out, "[-1][2]\": ") + 10, "%63[^,\n]", z), 1);
        cr_assert_eq(sscanf(strstr(out, "nbIterations\": ") + 15, "%63[^,\n]", n), 1);
        snprintf(want, sizeof want, "%s %s %s", x, y, z);
        cr_assert_str_eq(tip, want, "case %d", i);
        cr_assert_str_eq(its, n, "case %d", i);
    }
    /* results.json has the same rows, values as numbers */
    snprintf(path, sizeof path, "%s/o/results.json", d);
    const char *j = read_file(path);
    cr_assert(strstr(j, "\"cases\": 4"), "%s", j);
    cr_assert(strstr(j, "\"/Beam/MeshSpringForceField1.stiffness\": 1000,"), "%s", j);
    cr_assert(strstr(j, "\"status\": \"ok\""), "%s", j);
    cr_assert(strstr(j, "\"tip\": [1."), "%s", j);
    cr_assert(strstr(j, "\"error\": null"), "%s", j);
    /* each case's own folder */
    snprintf(path, sizeof path, "%s/o/cases/0003/log.txt", d);
    cr_assert(strstr(read_file(path), "10 steps, simulated 0.05 s"), "%s", read_file(path));
}

static time_t mtime(const char *d, int k)
{
    char path[600];
    struct stat st;
    snprintf(path, sizeof path, "%s/o/cases/%04d/result.json", d, k);
    if (stat(path, &st) != 0)
        return 0;
    return st.st_mtim.tv_sec * 1000000000L + st.st_mtim.tv_nsec;
}

Test(sweep, resume_skips_finished_cases)
{
    const char *d = temp_dir();
    const char *plan = beam_plan(d);
    cr_assert_eq(sh("'%s' sweep %s -j 2 --out %s/o", CLI, plan, d), 0, "%s", out);
    time_t m0 = mtime(d, 0), m3 = mtime(d, 3);
    cr_assert(m0 && m3);
    cr_assert_eq(sh("'%s' sweep %s -j 2 --out %s/o", CLI, plan, d), 0, "%s", out);
    assert_has("4 cases, 4 done already, running 0");
    cr_assert_eq(mtime(d, 0), m0);
    /* a lost record is redone, alone */
    char path[600];
    snprintf(path, sizeof path, "%s/o/cases/0002/result.json", d);
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(sh("'%s' sweep %s -j 2 --out %s/o", CLI, plan, d), 0, "%s", out);
    assert_has("4 cases, 3 done already, running 1");
    cr_assert(mtime(d, 2) > 0);
    cr_assert_eq(mtime(d, 3), m3);
    /* a changed value changes the identity of the cases that use it */
    write_file(d, "plan.yaml", read_file(plan));
    FILE *f = fopen(plan, "r+");
    char text[2000];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    char *p = strstr(text, "[0.01, 0.005]");
    cr_assert(p);
    memcpy(p, "[0.01, 0.004]", 13);
    write_file(d, "plan.yaml", text);
    cr_assert_eq(sh("'%s' sweep %s -j 2 --out %s/o", CLI, plan, d), 0, "%s", out);
    assert_has("4 cases, 2 done already, running 2");
    /* --list --pending lists nothing once all is done */
    cr_assert_eq(sh("'%s' sweep %s --list --pending --out %s/o", CLI, plan, d), 0);
    cr_assert_str_eq(out, "");
}

static void crash_scene(const char *d, const char *plan_tail)
{
    write_file(d, "scene.yaml",
               "format: settee/1\n"
               "root:\n"
               "  name: root\n"
               "  gravity: [0, -9.81, 0]\n"
               "  dt: 0.001\n"
               "  objects:\n"
               "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, Topology,\n"
               "                                    SolidMechanics.Spring, Constraint.Projective,\n"
               "                                    Engine.Select, TestCrash]}\n"
               "    - DefaultAnimationLoop: {}\n"
               "    - TestCrash: {name: crash}\n"
               "  children:\n"
               "    - name: Beam\n"
               "      objects:\n"
               "        - EulerExplicitSolver: {name: solver, symplectic: true}\n"
               "        - MechanicalObject: {name: dofs}\n"
               "        - RegularGridTopology: {nx: 2, ny: 2, nz: 4, xmin: 0, xmax: 1,\n"
               "                                ymin: 0, ymax: 1, zmin: 0, zmax: 3}\n"
               "        - UniformMass: {totalMass: 1}\n"
               "        - BoxROI: {name: box, box: [0, 0, 0, 1, 1, 0.0001]}\n"
               "        - FixedProjectiveConstraint: {indices: \"@box.indices\"}\n"
               "        - MeshSpringForceField: {name: springs, stiffness: 100}\n");
    char plan[2000];
    snprintf(plan, sizeof plan, "sweep: settee/1\nscene: scene.yaml\n%s", plan_tail);
    write_file(d, "plan.yaml", plan);
}

Test(sweep, crash_nan_failure_and_timeout_are_recorded)
{
    const char *d = temp_dir();
    crash_scene(d, "steps: 30\n"
                   "timeout: 1\n"
                   "parameters:\n"
                   "  zip:\n"
                   "    /crash.crashAtStep: [0, 3, 0, 0, 0, 0]\n"
                   "    /crash.sleepPerStep: [0, 0, 0, 0.2, 0, 0]\n"
                   "    /Beam/springs.stiffness: [100, 100, 1e30, 100, abc, 200]\n"
                   "collect:\n"
                   "  - {name: tip_z, field: \"/Beam/dofs.position[-1][2]\"}\n");
    cr_assert_eq(sh("'%s' sweep %s/plan.yaml -j 2 --out %s/o --plugin-path %s", CLI, d, d,
                    SETTEE_TEST_PLUGIN_DIR),
                 1, "%s", out);
    assert_has("6 cases: 2 ok, 1 failed, 1 crashed, 1 timeout, 1 diverged");
    assert_has("settee sweep: case 1 crashed (see ");
    char path[600];
    snprintf(path, sizeof path, "%s/o/results.csv", d);
    const char *t = read_file(path);
    cr_assert_str_eq(cell(t, 1, 4), "ok");
    cr_assert_str_eq(cell(t, 2, 4), "crashed");
    cr_assert(strstr(t, ",crashed: signal 6 (Aborted)"), "%s", t);
    /* A stiffness of 1e30 blows the beam up: finite positions of 1e72 at
     * step 4, recorded as diverged (issue 31), not only at the NaN. */
    cr_assert_str_eq(cell(t, 3, 4), "diverged");
    cr_assert(strstr(t, "the farthest point has more than doubled its distance at each of the "
                        "last 3 steps: the simulation diverged under /Beam/solver, with finite "
                        "values (a smaller dt, an implicit ODE solver (EulerImplicitSolver)"),
              "%s", t);
    cr_assert_str_eq(cell(t, 4, 4), "timeout");
    cr_assert(strstr(t, "timeout: killed after 1 s"), "%s", t);
    cr_assert(atof(cell(t, 4, 5)) >= 1.0 && atof(cell(t, 4, 5)) < 3.0, "%s", t);
    cr_assert_str_eq(cell(t, 5, 4), "failed");
    cr_assert(strstr(t, "field 'stiffness' expects a real number, got 'abc'"), "%s", t);
    cr_assert_str_eq(cell(t, 6, 4), "ok");
    cr_assert(atof(cell(t, 6, 6)) > 2.9, "%s", t);
    /* the next call redoes the four that are not ok, and only them */
    cr_assert_eq(sh("'%s' sweep %s/plan.yaml -j 2 --out %s/o --plugin-path %s", CLI, d, d,
                    SETTEE_TEST_PLUGIN_DIR),
                 1, "%s", out);
    assert_has("6 cases, 2 done already, running 4");
    /* one case alone: its exit status says how it went */
    cr_assert_eq(sh("'%s' sweep %s/plan.yaml --case 1 --out %s/o --plugin-path %s", CLI, d, d,
                    SETTEE_TEST_PLUGIN_DIR),
                 1, "%s", out);
    assert_has("case 1: crashed in ");
    cr_assert_eq(sh("'%s' sweep %s/plan.yaml --case 0 --out %s/o --plugin-path %s", CLI, d, d,
                    SETTEE_TEST_PLUGIN_DIR),
                 0, "%s", out);
    assert_has("case 0: ok in ");
}

Test(sweep, ctrl_c_stops_cleanly_and_the_next_call_resumes)
{
    const char *d = temp_dir();
    crash_scene(d, "steps: 4\n"
                   "parameters:\n"
                   "  /crash.sleepPerStep: [0.1]\n"
                   "  /Beam/springs.stiffness: [100, 200, 300, 400, 500, 600, 700, 800]\n");
    char plan[600], o[600], log[600];
    snprintf(plan, sizeof plan, "%s/plan.yaml", d);
    snprintf(o, sizeof o, "%s/o", d);
    snprintf(log, sizeof log, "%s/driver.log", d);
    const char *argv[] = {CLI, "sweep", plan, "-j", "2", "--out", o, "--plugin-path",
                          SETTEE_TEST_PLUGIN_DIR, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    cr_assert_eq(posix_spawn(&pid, CLI, &fa, NULL, (char **)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    struct timespec ts = {1, 200000000};
    nanosleep(&ts, NULL);
    /* to the driver alone: it stops its cases itself */
    kill(pid, SIGINT);
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    const char *l = read_file(log);
    cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 130, "status %d:\n%s", ws, l);
    cr_assert(strstr(l, "interrupted after"), "%s", l);
    cr_assert(strstr(l, "run the same command again to resume"), "%s", l);
    int done = 0;
    for (int k = 0; k < 8; k++)
        done += mtime(d, k) != 0;
    cr_assert(done >= 1 && done < 8, "%d cases done:\n%s", done, l);
    /* no temporary file left behind */
    cr_assert_eq(sh("find %s/o -name '*.tmp*' | wc -l", d), 0);
    cr_assert_eq(atoi(out), 0, "%s", out);
    cr_assert_eq(sh("'%s' sweep %s -j 2 --out %s --plugin-path %s", CLI, plan, o,
                    SETTEE_TEST_PLUGIN_DIR),
                 0, "%s", out);
    char want[80];
    snprintf(want, sizeof want, "8 cases, %d done already, running %d", done, 8 - done);
    assert_has(want);
    assert_has("8 cases: 8 ok");
}

/* ---- other runners ---- */

Test(sweep, list_commands_through_gnu_parallel)
{
    cr_assert_eq(sh("command -v parallel"), 0,
                 "GNU parallel is not installed (Debian package 'parallel'; scripts/deps.sh "
                 "installs it)");
    const char *d = temp_dir();
    const char *plan = beam_plan(d);
    cr_assert_eq(sh("'%s' sweep %s --list --out %s/p", CLI, plan, d), 0, "%s", out);
    assert_has(" sweep ");
    assert_has(" --case 3\n");
    cr_assert_eq(sh("'%s' sweep %s --list --out %s/p | parallel --will-cite -j 2", CLI, plan, d), 0,
                 "%s", out);
    cr_assert_eq(sh("'%s' sweep %s --collect --out %s/p", CLI, plan, d), 0, "%s", out);
    assert_has("4 cases: 4 ok");
    cr_assert_eq(sh("'%s' sweep %s -j 2 --out %s/l", CLI, plan, d), 0, "%s", out);
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/p/results.csv", d);
    snprintf(b, sizeof b, "%s/l/results.csv", d);
    cr_assert_str_eq(table_without_wall(a), table_without_wall(b));
}

Test(sweep, slurm_script_dry_run)
{
    const char *d = temp_dir();
    const char *plan = beam_plan(d);
    cr_assert_eq(sh("'%s' sweep %s --slurm --dry-run --out %s/o --partition debug --time 00:05:00 "
                    "--max-parallel 3 --sbatch-option=--mem=1G",
                    CLI, plan, d),
                 0, "%s", out);
    assert_has("(4 tasks)");
    char path[600];
    snprintf(path, sizeof path, "%s/o/sweep.sbatch", d);
    const char *s = read_file(path);
    cr_assert(strstr(s, "#SBATCH --array=0-3%3\n"), "%s", s);
    cr_assert(strstr(s, "/o/logs/task-%a.log\n"), "%s", s);
    cr_assert(strstr(s, "#SBATCH --partition=debug\n#SBATCH --time=00:05:00\n#SBATCH --mem=1G\n"),
              "%s", s);
    cr_assert(strstr(s, " --case \"$SLURM_ARRAY_TASK_ID\"\n"), "%s", s);
    /* only the pending cases: after case 1 and 2 ran */
    cr_assert_eq(sh("'%s' sweep %s --case 1 --out %s/o && '%s' sweep %s --case 2 --out %s/o", CLI,
                    plan, d, CLI, plan, d),
                 0, "%s", out);
    cr_assert_eq(sh("'%s' sweep %s --slurm --dry-run --pending --out %s/o", CLI, plan, d), 0);
    cr_assert(strstr(read_file(path), "#SBATCH --array=0,3\n"), "%s", read_file(path));
}

/* Issue 32: names and options written into --list lines and the job script
 * are quoted for the shell (and sbatch) that reads them, or refused when
 * they cannot be (a line break). Checked by running what was written: the
 * --list lines through the xargs runner of docs/sweeps.md, the script with
 * bash; a planted command would create a marker file in the test's folder. */
static void assert_no_marker(const char *d)
{
    cr_assert_neq(sh("cd '%s' && ls -d pwned*", d), 0, "a command ran: %s", out);
}

Test(sweep, generated_commands_run_nothing_else)
{
    const char *d = temp_dir();
    const char *body = "sweep: settee/1\nscene: " BEAM "\nsteps: 2\n"
                       "parameters:\n  dt: [0.01]\ncollect:\n  - time\n";
    /* a plan whose name holds a line break and a command */
    write_file(d, "x\ntouch pwned-list\ny.yaml", body);
    sh("cd '%s' && '%s' sweep \"$(printf 'x\\ntouch pwned-list\\ny.yaml')\" --list --out %s/l "
       "| xargs -d '\\n' -n 1 sh -c",
       d, CLI, d);
    assert_no_marker(d);
    cr_assert_eq(sh("cd '%s' && '%s' sweep \"$(printf 'x\\ntouch pwned-list\\ny.yaml')\" --list "
                    "--out %s/l",
                    d, CLI, d),
                 1, "%s", out);
    assert_has("holds a line break or another control character");
    /* quotes, spaces and $(...) in a name are quoted: the case runs */
    write_file(d, "a b'$(touch pwned-q)`touch pwned-b`.yaml", body);
    cr_assert_eq(sh("cd '%s' && '%s' sweep \"a b'\\$(touch pwned-q)\\`touch pwned-b\\`.yaml\" "
                    "--list --out %s/q | xargs -d '\\n' -n 1 sh -c",
                    d, CLI, d),
                 0, "%s", out);
    assert_no_marker(d);
    char rec[700];
    snprintf(rec, sizeof rec, "%s/q/cases/0000/result.json", d);
    cr_assert(strstr(read_file(rec), "\"ok\""), "%s", read_file(rec));

    /* the job script: the plan with a line break in its name (the results
     * folder named apart), run with bash as a task of the array would be */
    cr_assert_eq(sh("cd '%s' && '%s' sweep \"$(printf 'x\\ntouch pwned-list\\ny.yaml')\" --slurm "
                    "--dry-run --out %s/s --partition 'a b\"$(touch pwned-p)' --time '1:00 #x'",
                    d, CLI, d),
                 0, "%s", out);
    cr_assert_eq(sh("cd '%s' && SLURM_ARRAY_TASK_ID=0 bash s/sweep.sbatch", d), 0, "%s", out);
    assert_no_marker(d);
    snprintf(rec, sizeof rec, "%s/s/cases/0000/result.json", d);
    cr_assert(strstr(read_file(rec), "\"ok\""), "%s", read_file(rec));
    snprintf(rec, sizeof rec, "%s/s/sweep.sbatch", d);
    const char *script = read_file(rec);
    cr_assert(strstr(script, "#SBATCH --partition=\"a b\\\"$(touch pwned-p)\"\n"), "%s", script);
    cr_assert(strstr(script, "#SBATCH --time=\"1:00 #x\"\n"), "%s", script);
    cr_assert(strstr(script, "#SBATCH --job-name=settee-x_touch_pwned-list_y\n"), "%s", script);
    /* without --out the folder takes the plan's name, line break and all:
     * no #SBATCH --output line can hold it */
    sh("cd '%s' && '%s' sweep \"$(printf 'x\\ntouch pwned-list\\ny.yaml')\" --slurm --dry-run; "
       "for f in x*results/sweep.sbatch; do [ -f \"$f\" ] && SLURM_ARRAY_TASK_ID=0 bash \"$f\"; "
       "done",
       d, CLI);
    assert_no_marker(d);
    /* a line break in an #SBATCH value */
    const char *opts[] = {"--partition", "--time", "--sbatch-option"};
    for (int i = 0; i < 3; i++) {
        sh("cd '%s' && rm -rf o && '%s' sweep x*.yaml --slurm --dry-run --out o %s "
           "\"$(printf 'v\\ntouch pwned-%d')\"; [ -f o/sweep.sbatch ] && "
           "SLURM_ARRAY_TASK_ID=0 bash o/sweep.sbatch",
           d, CLI, opts[i], i);
        assert_no_marker(d);
        cr_assert_eq(sh("cd '%s' && '%s' sweep x*.yaml --slurm --dry-run --out o %s "
                        "\"$(printf 'v\\ntouch pwned-%d')\"",
                        d, CLI, opts[i], i),
                     2, "%s", out);
        assert_has("the value holds a line break");
    }
}

/* Issue 32: a tampered record whose YAML aliases make a cycle is no record
 * (it overflowed the stack when the tables were rebuilt); a symlink planted
 * at a case's log.txt is replaced, not followed. */
Test(sweep, tampered_records_and_planted_symlinks)
{
    const char *d = temp_dir();
    const char *plan = plan_at(d, "sweep: settee/1\nscene: " BEAM "\nsteps: 2\n"
                                  "parameters:\n  dt: [0.01]\ncollect:\n  - time\n");
    write_file(d, "victim.txt", "precious\n");
    char path[700], target[700];
    snprintf(path, sizeof path, "%s/o/cases/0000", d);
    cr_assert_eq(sh("mkdir -p '%s' && ln -s '%s/victim.txt' '%s/log.txt'", path, d, path),
                 0, "%s", out);
    cr_assert_eq(sh("'%s' sweep %s --case 0 --out %s/o", CLI, plan, d), 0, "%s", out);
    snprintf(target, sizeof target, "%s/victim.txt", d);
    cr_assert_str_eq(read_file(target), "precious\n");
    snprintf(target, sizeof target, "%s/log.txt", path);
    struct stat st;
    cr_assert(lstat(target, &st) == 0 && S_ISREG(st.st_mode), "log.txt is still a symlink");
    /* the record, its hash kept, with an alias cycle where a value was */
    snprintf(target, sizeof target, "%s/result.json", path);
    char *hash = strstr(read_file(target), "\"hash\": \"");
    cr_assert(hash);
    char rec[400];
    snprintf(rec, sizeof rec,
             "{\"case\": 0, %.26s, \"status\": \"ok\", \"run\": {\"values\": "
             "{\"time\": &a [1, *a]}}}\n",
             hash);
    write_file(path, "result.json", rec);
    cr_assert_eq(sh("'%s' sweep %s --collect --out %s/o", CLI, plan, d), 1, "%s", out);
    assert_has("1 without a result");
}

/* Issue 32: a plan, a plan's scene or a case record that is a FIFO or a
 * device is refused at once, never opened in a way that blocks. */
Test(sweep, fifo_and_device_inputs_do_not_block)
{
    const char *d = temp_dir();
    cr_assert_eq(sh("cd '%s' && mkfifo plan.fifo scene.fifo", d), 0, "%s", out);
    cr_assert_eq(sh("cd '%s' && timeout 20 '%s' sweep plan.fifo --list", d, CLI), 1, "%s", out);
    assert_has("cannot read the plan: not a regular file");
    const char *scenes[] = {"scene.fifo", "/dev/zero"};
    for (int i = 0; i < 2; i++) {
        char text[300];
        snprintf(text, sizeof text,
                 "sweep: settee/1\nscene: %s\nsteps: 2\nparameters:\n  dt: [0.01]\n", scenes[i]);
        const char *plan = plan_at(d, text);
        cr_assert_eq(sh("cd '%s' && timeout 20 '%s' sweep %s --list", d, CLI, plan), 1, "%s",
                     out);
        assert_has("not a regular file");
    }
    const char *plan = plan_at(d, "sweep: settee/1\nscene: " BEAM "\nsteps: 2\n"
                                  "parameters:\n  dt: [0.01, 0.02]\ncollect:\n  - time\n");
    cr_assert_eq(sh("cd '%s' && '%s' sweep %s --case 1 --out o && mkdir -p o/cases/0000 && "
                    "mkfifo o/cases/0000/result.json",
                    d, CLI, plan),
                 0, "%s", out);
    cr_assert_eq(sh("cd '%s' && timeout 20 '%s' sweep %s --collect --out o", d, CLI, plan), 1,
                 "%s", out);
    assert_has("2 cases: 1 ok, 0 failed, 0 crashed, 0 timeout, 1 without a result");
}

/* Issue 32: a plan of 3e5 nested lists took libyaml minutes to build; the
 * nesting is refused on the event stream first, as for scenes. */
Test(sweep, deeply_nested_plan_is_refused_at_once)
{
    const char *d = temp_dir();
    size_t n = 300000, len = 0;
    char *text = malloc(2 * n + 256);
    cr_assert(text);
    len += (size_t)sprintf(text, "sweep: settee/1\nscene: %s\nparameters:\n  dt: ", BEAM);
    memset(text + len, '[', n);
    memset(text + len + n, ']', n);
    len += 2 * n;
    strcpy(text + len, "\n");
    write_file(d, "deep.yaml", text);
    free(text);
    time_t t0 = time(NULL);
    cr_assert_eq(sh("cd '%s' && timeout 30 '%s' sweep deep.yaml --list", d, CLI), 1, "%s", out);
    assert_has("deep.yaml:4:");
    assert_has("values nested more than 64 levels deep");
    cr_assert_leq(time(NULL) - t0, 5);
}

/* A one-node Slurm cluster on localhost: a 12-case array equals the local run. */
Test(sweep, slurm_job_array_equals_local_run)
{
    const char *d = temp_dir();
    const char *plan = plan_at(d, "sweep: settee/1\n"
                                  "scene: " BEAM "\n"
                                  "steps: 5\n"
                                  "parameters:\n"
                                  "  /Beam/MeshSpringForceField1.stiffness: [100, 300, 1000]\n"
                                  "  dt: [0.01, 0.005]\n"
                                  "  /Beam/odesolver.rayleighMass: [0.1, 0.2]\n"
                                  "collect:\n"
                                  "  - {name: tip_y, field: \"/Beam/dofs.position[-1][1]\"}\n");
    cr_assert_eq(sh("'%s' sweep %s -j 2 --out %s/local", CLI, plan, d), 0, "%s", out);
    char cluster[600];
    snprintf(cluster, sizeof cluster, "%s/cluster", d);
    int rc = sh("bash " SETTEE_SOURCE_DIR "/tests/sweep/slurm-cluster.sh start %s", cluster);
    if (rc == 77) {
        fprintf(stderr, "test_sweep: slurm_job_array_equals_local_run skipped: %s\n", out);
        cr_skip_test("the Slurm daemons cannot start here: %s", out);
    }
    cr_assert_eq(rc, 0, "%s", out);
    char conf[700];
    snprintf(conf, sizeof conf, "%s/slurm.conf", cluster);
    setenv("SLURM_CONF", conf, 1);
    rc = sh("'%s' sweep %s --slurm --max-parallel 2 --out %s/slurm", CLI, plan, d);
    bool submitted = rc == 0 && strstr(out, "submitted job array ");
    char msg[4000];
    snprintf(msg, sizeof msg, "%s", out);
    /* wait for the array to leave the queue (at most 3 minutes) */
    bool finished = false;
    for (int i = 0; submitted && i < 900 && !finished; i++) {
        finished = sh("squeue -h | wc -l") == 0 && atoi(out) == 0;
        struct timespec ts = {0, 200000000};
        if (!finished)
            nanosleep(&ts, NULL);
    }
    char logs[4000] = "";
    if (!finished) {
        sh("squeue; tail -n 5 %s/log/slurmctld.log %s/log/slurmd.log %s/slurm/logs/*", cluster,
           cluster, d);
        snprintf(logs, sizeof logs, "%s", out);
    }
    sh("bash " SETTEE_SOURCE_DIR "/tests/sweep/slurm-cluster.sh stop %s", cluster);
    cr_assert(submitted, "sbatch: %s", msg);
    cr_assert(finished, "the array did not finish in 3 minutes:\n%s", logs);
    cr_assert_eq(sh("'%s' sweep %s --collect --out %s/slurm", CLI, plan, d), 0, "%s", out);
    assert_has("12 cases: 12 ok");
    char a[600], b[600], lg[600];
    snprintf(a, sizeof a, "%s/slurm/results.csv", d);
    snprintf(b, sizeof b, "%s/local/results.csv", d);
    cr_assert_str_eq(table_without_wall(a), table_without_wall(b));
    snprintf(lg, sizeof lg, "%s/slurm/logs/task-11.log", d);
    cr_assert(access(lg, F_OK) == 0, "no per-task log %s", lg);
}
