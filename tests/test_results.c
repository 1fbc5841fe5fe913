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
