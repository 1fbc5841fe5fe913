/* test_paraview.c - the VTU/PVD output read back by ParaView's own readers
 * through pvpython (Debian paraview + python3-paraview), compared exactly
 * with the run's state, and one frame of the beam rendered offscreen by
 * scripts/render (under scripts/with-xvfb without a display): the picture must show
 * the beam, not only the background. Skips, saying so, without pvpython or
 * (headless) Xvfb. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static char dir[512];
static char out[65536];

static void make_dir(void) { test_make_dir(dir, sizeof dir, "pv"); }
static void remove_dir(void) { test_remove_dir(dir); }

TestSuite(paraview, .init = make_dir, .fini = remove_dir, .timeout = 300);

/* "pvpython ..." or "scripts/with-xvfb pvpython ..." ("" when it cannot run). */
static const char *pvpython(void)
{
    if (test_run("command -v pvpython >/dev/null", out, sizeof out) != 0)
        return "";
    if (getenv("DISPLAY") && *getenv("DISPLAY"))
        return "pvpython --force-offscreen-rendering";
    if (test_run("command -v Xvfb >/dev/null", out, sizeof out) != 0)
        return "";
    /* The X server chooses its own free display and reports it when ready
     * (Xvfb -displayfd): xvfb-run -a chose from outside, racing with other
     * tests and checkouts on the machine ("bad X server connection"). */
    static char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "'%s/scripts/with-xvfb' pvpython --force-offscreen-rendering",
             SETTEE_SOURCE_DIR);
    return cmd;
}

#define NEED_PARAVIEW()                                                                           \
    do {                                                                                          \
        if (!pvpython()[0])                                                                       \
            cr_skip_test("ParaView's pvpython (Debian paraview, python3-paraview) or, without "  \
                         "a display, Xvfb (xvfb) is not installed: the output is not read "   \
                         "back by ParaView");                                                     \
    } while (0)

/* Reads the last VTU with ParaView's XML reader and the PVD with its PVD
 * reader; compares points and velocities with the exported state bit for
 * bit and the collection's times with summary.json's frames. */
static const char *checker =
    "import json, sys\n"
    "from paraview.simple import XMLUnstructuredGridReader, PVDReader\n"
    "from paraview import servermanager\n"
    "from vtkmodules.util.numpy_support import vtk_to_numpy\n"
    "import numpy as np\n"
    "d = sys.argv[1]\n"
    "g = servermanager.Fetch(XMLUnstructuredGridReader(FileName=[d + '/out/Beam2.vtu']))\n"
    "x = vtk_to_numpy(g.GetPoints().GetData())\n"
    "v = vtk_to_numpy(g.GetPointData().GetArray('velocity'))\n"
    "s = json.load(open(d + '/state.json'))['objects'][0]\n"
    "assert np.array_equal(x, np.array(s['position'])), abs(x - np.array(s['position'])).max()\n"
    "assert np.array_equal(v, np.array(s['velocity'])), abs(v - np.array(s['velocity'])).max()\n"
    "assert g.GetNumberOfCells() == 20, g.GetNumberOfCells()\n"
    "assert g.GetCellType(0) == 12, g.GetCellType(0)\n"
    "times = list(PVDReader(FileName=d + '/out/Beam.pvd').TimestepValues)\n"
    "want = [f['time'] for f in json.load(open(d + '/out/summary.json'))['frames']]\n"
    "assert times == want, (times, want)\n"
    "print('paraview read', len(x), 'points, times', times)\n";

/* Counts the pixels of a PNG that differ from its corner (the background). */
static const char *png_checker =
    "import sys\n"
    "from vtkmodules.vtkIOImage import vtkPNGReader\n"
    "from vtkmodules.util.numpy_support import vtk_to_numpy\n"
    "r = vtkPNGReader(); r.SetFileName(sys.argv[1]); r.Update()\n"
    "im = r.GetOutput(); w, h, _ = im.GetDimensions()\n"
    "a = vtk_to_numpy(im.GetPointData().GetScalars()).reshape(h, w, -1)[:, :, :3]\n"
    "bg = a[0, 0]\n"
    "n = int((abs(a.astype(int) - bg).sum(axis=2) > 30).sum())\n"
    "print('size %dx%d, %d pixels not background' % (w, h, n))\n"
    "assert n > 0.01 * w * h, n\n";

/* Runs the command fmt (a, b) with TMPDIR set to this test's own folder:
 * ParaView's pvpython starts Open MPI, which makes its session folder
 * ompi.HOST.UID in TMPDIR, and two tests doing so at once in the same TMPDIR
 * race on it ("mkdir: File exists", then MPI_INIT fails). */
static int run(const char *fmt, const char *a, const char *b)
{
    char cmd[4096];
    int n = snprintf(cmd, sizeof cmd, "export TMPDIR='%s'; ", dir);
    snprintf(cmd + n, sizeof cmd - (size_t)n, fmt, a, b);
    return test_run(cmd, out, sizeof out);
}

static void write_in_dir(const char *name, const char *text)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

/* The 3x3x6 spring beam run 10 steps with --output every 5 steps (frames 0,
 * 5 and 10) and its final state exported. */
static void run_beam(void)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && SETTEE_PLUGIN_PATH=%s %s run '%s/scenes/beam_implicit_ldl.yaml' -n 10 "
             "--no-progress -q --output out --every 5 --export-state state.json "
             "--set /Beam/topology.nx=3 --set /Beam/topology.ny=3 --set /Beam/topology.nz=6 2>&1",
             dir, SETTEE_BUILD_PLUGIN_DIR, SETTEE_CLI, SETTEE_SOURCE_DIR);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
}

Test(paraview, vtu_and_pvd_read_back_by_paraview)
{
    NEED_PARAVIEW();
    run_beam();
    write_in_dir("check.py", checker);
    char fmt[256];
    snprintf(fmt, sizeof fmt, "cd '%%s' && %s check.py '%%s' 2>&1", pvpython());
    cr_assert_eq(run(fmt, dir, dir), 0, "%s", out);
    cr_assert(strstr(out, "paraview read 54 points"), "%s", out);
}

Test(paraview, render_script_draws_the_beam)
{
    NEED_PARAVIEW();
    run_beam();
    cr_assert_eq(run("'%s/scripts/render' '%s/out' --size 320x240 2>&1", SETTEE_SOURCE_DIR, dir),
                 0, "%s", out);
    cr_assert(strstr(out, "render: wrote 3 frame(s)"), "%s", out);
    write_in_dir("png.py", png_checker);
    char fmt[256];
    snprintf(fmt, sizeof fmt, "cd '%%s' && %s png.py '%%s/out/frames/frame.0002.png' 2>&1",
             pvpython());
    cr_assert_eq(run(fmt, dir, dir), 0, "%s", out);
    cr_assert(strstr(out, "size 320x240"), "%s", out);
}
