/* test_results.c - results people look at (issue 16): VTKExporter's VTU,
 * PVD and legacy VTK files and `settee run --output`, read back by an
 * independent reader, Python's meshio (Debian python3-meshio), and compared
 * with the run's own state exported as JSON (17 digits: exact). The tests
 * skip, saying so, when no Python with meshio is installed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

/* A Python that imports meshio ("" when none). */
static const char *python(void)
{
    static char found[64];
    static int tried;
    if (!tried) {
        tried = 1;
        const char *cands[] = {"/usr/bin/python3", "python3"};
        for (size_t i = 0; i < 2 && !found[0]; i++) {
            char cmd[256], out[256];
            snprintf(cmd, sizeof cmd, "%s -c 'import meshio' </dev/null", cands[i]);
            if (test_run(cmd, out, sizeof out) == 0)
                snprintf(found, sizeof found, "%s", cands[i]);
        }
    }
    return found;
}

#define NEED_MESHIO()                                                                             \
    do {                                                                                          \
        if (!python()[0])                                                                         \
            cr_skip_test("python3-meshio is not installed (scripts/deps.sh installs it): the "    \
                         "VTK files cannot be read back by an independent reader");               \
    } while (0)

/* The checker: compares one VTU/VTK file (read by meshio) with the state
 * JSON of st_scene_export_state, exactly. Prints what differs. */
static const char *checker =
    "import json, sys, meshio, numpy as np\n"
    "vtu, state, obj = sys.argv[1], sys.argv[2], sys.argv[3]\n"
    "m = meshio.read(vtu)\n"
    "s = [o for o in json.load(open(state))['objects'] if o['path'] == obj][0]\n"
    "x = np.array(s['position']); v = np.array(s['velocity'])\n"
    "assert m.points.shape == x.shape, ('points', m.points.shape, x.shape)\n"
    "assert np.array_equal(m.points, x), ('positions differ', abs(m.points - x).max())\n"
    "vel = m.point_data['velocity']\n"
    "assert np.array_equal(vel, v), ('velocities differ', abs(vel - v).max())\n"
    "print('cells', ' '.join('%s:%d' % (c.type, len(c.data)) for c in m.cells))\n";

static const char *pvd_checker =
    "import sys, os, xml.etree.ElementTree as ET\n"
    "pvd = sys.argv[1]\n"
    "r = ET.parse(pvd).getroot()\n"
    "assert r.get('type') == 'Collection'\n"
    "for d in r.iter('DataSet'):\n"
    "    assert os.path.exists(os.path.join(os.path.dirname(pvd), d.get('file'))), d.get('file')\n"
    "    print(d.get('file'), repr(float(d.get('timestep'))))\n";

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/settee-results-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[512], out[64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    (void)test_run(cmd, out, sizeof out);
}

TestSuite(results, .init = make_tmpdir, .fini = remove_tmpdir);

/* The implicit 4x4x11 beam with an exporter whose fields are `exporter`. */
static void beam_scene(char *buf, size_t size, const char *exporter)
{
    snprintf(buf, size,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Mass,\n"
             "                       Topology, SolidMechanics.Spring, Constraint.Projective, "
             "IO.Mesh]}\n"
             "  children:\n"
             "    - name: Beam\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
             "        - SparseLDLSolver: {}\n"
             "        - MechanicalObject: {name: dofs}\n"
             "        - RegularGridTopology: {name: grid, n: [4, 4, 11], min: [-1.5, -1.5, 0],\n"
             "                                max: [1.5, 1.5, 10]}\n"
             "        - UniformMass: {totalMass: 15}\n"
             "        - FixedProjectiveConstraint: {indices: [0, 1, 2, 3]}\n"
             "        - MeshSpringForceField: {stiffness: 300}\n"
             "        - VTKExporter: {%s}\n",
             exporter);
}

/* Loads the scene file, runs n steps, exports the state to state.json. */
static void run_scene_file(const char *path, int n)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(t.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    char state[512];
    snprintf(state, sizeof state, "%s/state.json", tmpdir);
    cr_assert_eq(st_scene_export_state(s, state, (unsigned long)n, &err), ST_OK, "%s", err.msg);
    st_scene_destroy(&s);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    test_rt_close(&t);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* Runs a Python script with arguments; returns its output (static). */
static const char *py(const char *script, const char *args, int *status)
{
    static char out[16384];
    char spath[512], cmd[2048];
    snprintf(spath, sizeof spath, "%s/check.py", tmpdir);
    write_file(spath, script);
    snprintf(cmd, sizeof cmd, "%s '%s' %s", python(), spath, args);
    *status = test_run(cmd, out, sizeof out);
    return out;
}

/* The scene written into tmpdir, exporting with `exporter`, run n steps;
 * then the file `file` (relative to tmpdir) checked against the state. */
static const char *export_and_check(const char *exporter, int n, const char *file)
{
    char scene[4096], path[512], args[1024];
    beam_scene(scene, sizeof scene, exporter);
    snprintf(path, sizeof path, "%s/beam.yaml", tmpdir);
    write_file(path, scene);
    run_scene_file(path, n);
    snprintf(args, sizeof args, "'%s/%s' '%s/state.json' /Beam/dofs", tmpdir, file, tmpdir);
    int st;
    const char *out = py(checker, args, &st);
    cr_assert_eq(st, 0, "meshio check of %s failed:\n%s", file, out);
    return out;
}

Test(results, vtu_binary_read_back_by_meshio)
{
    NEED_MESHIO();
    /* A relative filename lands in the scene's folder; velocity as point data. */
    const char *out = export_and_check("filename: out/beam, exportEveryNumberOfSteps: 5, "
                                       "exportAtBegin: true, hexas: true, edges: false, "
                                       "pointsDataFields: [\"@dofs.velocity\", "
                                       "\"f=dofs.force\"]",
                                       10, "out/beam2.vtu");
    cr_assert(strstr(out, "cells hexahedron:90"), "%s", out);
    /* The collection lists the three files with their times (t = 10 dt, summed). */
    char args[512];
    snprintf(args, sizeof args, "'%s/out/beam.pvd'", tmpdir);
    int st;
    out = py(pvd_checker, args, &st);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "beam0.vtu 0.0\nbeam1.vtu 0.05\nbeam2.vtu 0.0999"), "%s", out);
}

Test(results, vtu_ascii_read_back_by_meshio)
{
    NEED_MESHIO();
    const char *out = export_and_check("filename: beam.vtu, binary: false, "
                                       "exportEveryNumberOfSteps: 3, edges: true, quads: true, "
                                       "pointsDataFields: [dofs.velocity]",
                                       6, "beam1.vtu");
    cr_assert(strstr(out, "line:") && strstr(out, "quad:"), "%s", out);
    char path[512];
    snprintf(path, sizeof path, "%s/beam1.vtu", tmpdir);
    FILE *f = fopen(path, "r");
    char head[4096] = "";
    cr_assert(f);
    size_t n = fread(head, 1, sizeof head - 1, f);
    head[n] = 0;
    fclose(f);
    cr_assert(strstr(head, "format=\"ascii\"") && !strstr(head, "AppendedData"), "%s", head);
}

Test(results, legacy_vtk_read_back_by_meshio)
{
    NEED_MESHIO();
    /* SOFA's legacy names: FILENAME_<k>.vtk; overwrite keeps one file. */
    export_and_check("filename: legacy, XMLformat: false, exportEveryNumberOfSteps: 2, "
                     "tetras: true, pointsDataFields: [dofs.velocity]",
                     4, "legacy_1.vtk");
    export_and_check("filename: over, XMLformat: false, overwrite: true, exportAtEnd: true, "
                     "pointsDataFields: [dofs.velocity]",
                     3, "over.vtk");
}

Test(results, bad_data_field_is_an_init_error)
{
    char scene[4096];
    beam_scene(scene, sizeof scene, "pointsDataFields: [dofs.velocty]");
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, scene, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "has no field 'velocty'"), "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(results, unwritable_output_fails_the_run)
{
    /* The exporter's folder is a file: each export is logged as an error,
     * and `settee run` exits 1. */
    char scene[4096], path[512], cmd[2048], out[8192];
    snprintf(path, sizeof path, "%s/blocker", tmpdir);
    write_file(path, "not a folder");
    beam_scene(scene, sizeof scene, "filename: blocker/beam, exportEveryNumberOfSteps: 1");
    snprintf(path, sizeof path, "%s/beam.yaml", tmpdir);
    write_file(path, scene);
    snprintf(cmd, sizeof cmd, "SETTEE_PLUGIN_PATH=%s %s run '%s' -n 2 --no-progress",
             SETTEE_BUILD_PLUGIN_DIR, SETTEE_CLI, path);
    cr_assert_eq(test_run(cmd, out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "is not a folder") && strstr(out, "VTKExporter"), "%s", out);
}

Test(results, run_output_writes_pvd_vtu_and_summary)
{
    NEED_MESHIO();
    char cmd[2048], out[8192], args[1024];
    snprintf(cmd, sizeof cmd,
             "SETTEE_PLUGIN_PATH=%s %s run %s/scenes/beam_implicit_cg.yaml -n 10 --no-progress "
             "--output '%s/res' --every 5 --export-state '%s/state.json'",
             SETTEE_BUILD_PLUGIN_DIR, SETTEE_CLI, SETTEE_SOURCE_DIR, tmpdir, tmpdir);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "wrote 3 VTU files"), "%s", out);
    snprintf(args, sizeof args, "'%s/res/Beam2.vtu' '%s/state.json' /Beam/dofs", tmpdir, tmpdir);
    int st;
    const char *o = py(checker, args, &st);
    cr_assert_eq(st, 0, "%s", o);
    /* The node's grid, hexahedra only (the highest dimension it has). */
    cr_assert(strstr(o, "cells hexahedron:90\n"), "%s", o);
    static const char *summary =
        "import json, sys\n"
        "s = json.load(open(sys.argv[1]))\n"
        "assert s['steps'] == 10 and s['every'] == 5, s\n"
        "assert [f['step'] for f in s['frames']] == [0, 5, 10], s['frames']\n"
        "assert s['outputs'][0]['state'] == '/Beam/dofs' and s['outputs'][0]['files'] == 3\n"
        "assert s['frames'][2]['kinetic_energy'] > 0 and s['wall_time'] > 0\n"
        "print('ok')\n";
    snprintf(args, sizeof args, "'%s/res/summary.json'", tmpdir);
    o = py(summary, args, &st);
    cr_assert_eq(st, 0, "%s", o);
}

/* ---- Playback: WriteState, ReadState, CompareState ---- */

/* The beam without exporter, with `extra` appended to its objects. */
static st_scene *load_beam(test_rt *t, const char *plugins_extra, const char *extra,
                           const char *name)
{
    char scene[4096], path[512];
    snprintf(scene, sizeof scene,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Mass,\n"
             "                       Topology, SolidMechanics.Spring, Constraint.Projective, "
             "Playback%s]}\n"
             "  children:\n"
             "    - name: Beam\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
             "        - SparseLDLSolver: {}\n"
             "        - MechanicalObject: {name: dofs}\n"
             "        - RegularGridTopology: {name: grid, n: [3, 3, 6], min: [-1, -1, 0],\n"
             "                                max: [1, 1, 5]}\n"
             "        - UniformMass: {totalMass: 5}\n"
             "        - FixedProjectiveConstraint: {indices: [0, 1, 2]}\n"
             "        - MeshSpringForceField: {stiffness: 200}\n"
             "%s",
             plugins_extra, extra);
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    write_file(path, scene);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(t->rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    return s;
}

static st_mstate *beam_dofs(st_scene *s)
{
    return (st_mstate *)test_find_object(s, "dofs");
}

#define NSTEPS 12
#define NPTS (3 * 3 * 6)

/* Runs the beam with WriteState into file; records x and v before each step. */
static void record_run(const char *file, double x[NSTEPS + 1][3 * NPTS],
                       double v[NSTEPS + 1][3 * NPTS])
{
    test_rt t;
    test_rt_open(&t);
    char extra[512];
    snprintf(extra, sizeof extra, "        - WriteState: {filename: %s, writeV: true}\n", file);
    st_scene *s = load_beam(&t, "", extra, "write.yaml");
    st_mstate *ms = beam_dofs(s);
    st_error err = {0};
    for (int k = 0; k <= NSTEPS; k++) {
        cr_assert_eq(ms->n, NPTS);
        memcpy(x[k], ms->position.r, sizeof x[k]);
        memcpy(v[k], ms->velocity.r, sizeof v[k]);
        if (k < NSTEPS)
            cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    }
    st_scene_destroy(&s);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    test_rt_close(&t);
}

static double xs[NSTEPS + 1][3 * NPTS], vs[NSTEPS + 1][3 * NPTS];

/* ReadState on a state without solver replays the trajectory: at the
 * beginning of step k it holds the state the run had at that time. */
static void replay(const char *file)
{
    record_run(file, xs, vs);
    test_rt t;
    test_rt_open(&t);
    char scene[2048], path[512];
    snprintf(scene, sizeof scene,
             "format: settee/1\n"
             "root:\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Topology, Playback]}\n"
             "  children:\n"
             "    - name: Replay\n"
             "      objects:\n"
             "        - MechanicalObject: {name: dofs}\n"
             "        - RegularGridTopology: {n: [3, 3, 6], min: [-1, -1, 0], max: [1, 1, 5]}\n"
             "        - ReadState: {filename: %s}\n",
             file);
    snprintf(path, sizeof path, "%s/read.yaml", tmpdir);
    write_file(path, scene);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(t.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = beam_dofs(s);
    for (int k = 0; k < NSTEPS; k++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        for (size_t i = 0; i < 3 * NPTS; i++) {
            cr_assert_eq(ms->position.r[i], xs[k][i], "step %d x[%zu]: %.17g != %.17g", k, i,
                         ms->position.r[i], xs[k][i]);
            cr_assert_eq(ms->velocity.r[i], vs[k][i], "step %d v[%zu]", k, i);
        }
    }
    st_scene_destroy(&s);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    test_rt_close(&t);
}

Test(results, write_state_then_read_state_replays_the_run)
{
    replay("traj.txt");
}

Test(results, write_state_gzip_then_read_state)
{
    replay("traj.txt.gz");
    char path[512];
    snprintf(path, sizeof path, "%s/traj.txt.gz", tmpdir);
    FILE *f = fopen(path, "rb");
    cr_assert(f);
    unsigned char magic[2] = {0};
    cr_assert_eq(fread(magic, 1, 2, f), 2);
    fclose(f);
    cr_assert(magic[0] == 0x1f && magic[1] == 0x8b, "not gzip");
}

Test(results, write_state_file_has_sofa_layout)
{
    record_run("layout.txt", xs, vs);
    char path[512], line[65536];
    snprintf(path, sizeof path, "%s/layout.txt", tmpdir);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        /* T= t, then "  X= " and "  V= " with 3 values per vertex. */
        const char *want = n % 3 == 0 ? "T= " : n % 3 == 1 ? "  X= " : "  V= ";
        cr_assert(!strncmp(line, want, strlen(want)), "line %d: %.40s", n + 1, line);
        if (n % 3) {
            int count = 0;
            for (char *p = line + 5, *e; (strtod(p, &e), e != p); p = e)
                count++;
            cr_assert_eq(count, 3 * NPTS, "line %d", n + 1);
        }
        n++;
    }
    fclose(f);
    cr_assert_eq(n, 3 * NSTEPS, "a state at the beginning of each step");
}

Test(results, read_state_reads_a_hand_written_sofa_file)
{
    /* As SOFA writes them: 6 digits, a space-separated line per vector. */
    char path[512];
    snprintf(path, sizeof path, "%s/sofa.txt", tmpdir);
    write_file(path, "T= 0\n  X= 0 0 0 1 0 0\n  V= 0 0 0 0 0 0\n"
                     "T= 0.01\n  X= 0 -0.000981 0 1 -0.000981 0\n  V= 0 -0.0981 0 0 -0.0981 0\n"
                     "T= 0.02\n  X= 0 -0.002943 0 1 -0.002943 0\n");
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    char scene[1024];
    snprintf(scene, sizeof scene,
             "format: settee/1\nroot:\n  dt: 0.01\n  objects:\n"
             "    - RequiredPlugin: {pluginName: Playback}\n"
             "    - MechanicalObject: {name: dofs, position: [5, 5, 5, 6, 6, 6]}\n"
             "    - ReadState: {filename: '%s', translation: [0, 0, 1]}\n",
             path);
    cr_assert_eq(test_load_string(&t, scene, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = beam_dofs(s);
    /* Set at init from T= 0 (translated), then at each step. */
    cr_assert_eq(ms->position.r[3], 1.0);
    cr_assert_eq(ms->position.r[5], 1.0);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK);
    cr_assert_eq(ms->position.r[1], -0.000981);
    cr_assert_eq(ms->velocity.r[4], -0.0981);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK);
    cr_assert_eq(ms->position.r[4], -0.002943);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* CompareState against the reference written by a first run. */
static void compare_run(const char *set_dt, double *total, test_rt *t)
{
    test_rt_open(t);
    st_scene *s = load_beam(t, "", "        - CompareState: {name: cmp, filename: ref.txt, "
                                   "epsilon: 1.0e-12}\n",
                            "compare.yaml");
    st_error err = {0};
    if (set_dt)
        cr_assert_eq(st_scene_step(s, atof(set_dt), &err), ST_OK, "%s", err.msg);
    for (int k = 0; k < NSTEPS; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_component *c = test_find_object(s, "cmp");
    *total = *(double *)st_component_field_ptr(c, st_component_field(c, "totalError"));
    st_scene_destroy(&s);
}

Test(results, compare_state_passes_identical_and_fails_perturbed)
{
    record_run("ref.txt", xs, vs);
    test_rt t;
    double total;
    compare_run(NULL, &total, &t);
    cr_assert_eq(total, 0.0);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    test_rt_close(&t);
    /* One step of a slightly different dt first: the states drift apart. */
    compare_run("0.0101", &total, &t);
    cr_assert_gt(total, 1e-9);
    cr_assert_eq(t.nerrors, 1, "%s", t.log);
    cr_assert(strstr(t.log, "differs from the reference") && strstr(t.log, "ref.txt:") &&
                  strstr(t.log, "largest difference"),
              "%s", t.log);
    test_rt_close(&t);
}

/* SOFA writes its reference states with 6 significant digits and compares
 * the state as it prints it (compareVec): against such a file, the run that
 * wrote the values compares exactly equal. Without SOFA's rounding every
 * value would differ from the file by up to half a unit of its 6th digit. */
Test(results, compare_state_reads_sofa_six_digit_references_as_sofa)
{
    record_run("full.txt", xs, vs);
    char path[512], out[512];
    snprintf(path, sizeof path, "%s/full.txt", tmpdir);
    char *full = test_read_file(path);
    cr_assert(full);
    snprintf(path, sizeof path, "%s/ref.txt", tmpdir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    size_t rounded = 0;
    for (const char *p = full; *p;) { /* every number again with %.6g */
        if (strchr("-0123456789", *p)) {
            char *e;
            double v = strtod(p, &e);
            fprintf(f, "%.6g", v);
            rounded += strcmp((snprintf(out, sizeof out, "%.6g", v), out), "0") != 0;
            p = e;
        } else
            fputc(*p++, f);
    }
    fclose(f);
    free(full);
    cr_assert_gt(rounded, 100);
    test_rt t;
    double total;
    compare_run(NULL, &total, &t);
    cr_assert_eq(total, 0.0, "%.17g", total);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    test_rt_close(&t);
}

/* CompareState on a Rigid3d state (SOFA's regression scenes compare rigid
 * bodies): 7 values per vertex on X= lines, 6 on V= lines. Worked by hand
 * for a body at rest at (1, 2, 3), identity orientation: at t = 0 the file
 * says z = 3.7 (mean |difference| over 7 values: 0.7 / 7 = 0.1) and V = 0;
 * at t = 0.01 X matches and the angular velocity about z is 1.2 (1.2 / 6 =
 * 0.2). totalError = 0.3, errorByDof = 0.3 / 1 vertex. */
Test(results, compare_state_reads_rigid_states)
{
    char path[512], scene[1024];
    snprintf(path, sizeof path, "%s/rigid_ref.txt", tmpdir);
    write_file(path, "T= 0\n  X= 1 2 3.7 0 0 0 1\n  V= 0 0 0 0 0 0\n"
                     "T= 0.01\n  X= 1 2 3 0 0 0 1\n  V= 0 0 0 0 0 1.2\n");
    snprintf(scene, sizeof scene,
             "format: settee/1\nroot:\n  dt: 0.01\n  objects:\n"
             "    - RequiredPlugin: {pluginName: Playback}\n"
             "    - MechanicalObject: {template: Rigid3d, position: [1, 2, 3, 0, 0, 0, 1]}\n"
             "    - CompareState: {name: cmp, filename: '%s'}\n",
             path);
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, scene, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_component *c = test_find_object(s, "cmp");
    double total = *(double *)st_component_field_ptr(c, st_component_field(c, "totalError"));
    double by_dof = *(double *)st_component_field_ptr(c, st_component_field(c, "errorByDof"));
    cr_assert_float_eq(total, 0.3, 1e-15, "%.17g", total);
    cr_assert_float_eq(by_dof, 0.3, 1e-15, "%.17g", by_dof);
    st_scene_destroy(&s);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    test_rt_close(&t);
}

/* A fresh --output run into a used folder removes the earlier run's frames
 * of its states first and says so; a resumed run keeps them (issue 31). */
Test(results, output_into_a_used_folder_leaves_no_stale_frame)
{
    char cmd[2048], out[8192], dir[1024];
    snprintf(dir, sizeof dir, "%s/stale", tmpdir);
    const char *scene = SETTEE_SOURCE_DIR "/scenes/falling_particles.yaml";
    snprintf(cmd, sizeof cmd,
             "SETTEE_PLUGIN_PATH=%s %s run %s -n 4 --no-progress --output '%s' && "
             "touch '%s/notes.txt' && SETTEE_PLUGIN_PATH=%s %s run %s -n 1 --no-progress "
             "--output '%s' 2>&1 && ls '%s'",
             SETTEE_BUILD_PLUGIN_DIR, SETTEE_CLI, scene, dir, dir, SETTEE_BUILD_PLUGIN_DIR,
             SETTEE_CLI, scene, dir, dir);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "--output: removed 6 files of an earlier run"), "%s", out);
    cr_assert(strstr(out, "Particles1.vtu") && !strstr(out, "Particles2.vtu"), "%s", out);
    cr_assert(strstr(out, "notes.txt"), "other files stay: %s", out);
}
