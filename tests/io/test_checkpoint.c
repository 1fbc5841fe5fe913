/* test_checkpoint.c - `settee run --checkpoint / --resume` (issue 16): a run
 * of 1000 steps and the same run stopped at 400 and resumed to 1000 export
 * byte-identical states (positions and velocities with 17 digits), for
 * every seed scene and for every solver settee has, including those with
 * memory between steps (Newmark's acceleration and counter, warm-started
 * CG's previous solution, the direct solvers' LDL^T switch); a checkpoint
 * of another scene or other options is refused with a clear message. Also
 * --export-state's topologies and --export-state-every. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

static char dir[512];

static void make_dir(void) { test_make_dir(dir, sizeof dir, "ck"); }
static void remove_dir(void) { test_remove_dir(dir); }

TestSuite(checkpoint, .init = make_dir, .fini = remove_dir, .timeout = 900);

static char out[65536];

/* Runs `settee run SCENE ARGS -q`; returns the exit status (output in out). */
static int settee(const char *scene, const char *args)
{
    return test_settee_run_in(dir, scene, args, out, sizeof out);
}

static bool same_files(const char *a, const char *b) { return test_same_files_in(dir, a, b); }

/* The text of a file of the test's folder (NULL when absent; free it). */
static char *read_in_dir(const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return test_read_file(path);
}

/* `total` steps at once, and `at` + resume to `total`: byte-identical
 * exports; and the resumed state is not the state at `at` (the run went
 * on). */
static void check_resume_at(const char *scene, int total, int at)
{
    const char *why = test_resume_failure(dir, scene, total, at, out, sizeof out);
    cr_assert_null(why, "%s\n%s", why, out);
}

static void check_resume(const char *scene) { check_resume_at(scene, 1000, 400); }

static void check_seed(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/%s", SETTEE_SOURCE_DIR, name);
    check_resume(path);
}

/* The same over 200 steps, resumed from 80: the scenes whose steps cost
 * most under the sanitizers (a multigrid-preconditioned solve, FEM beams). */
static void check_seed_short(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/%s", SETTEE_SOURCE_DIR, name);
    check_resume_at(path, 200, 80);
}

Test(checkpoint, seed_beam_explicit_diagonal) { check_seed("beam_explicit_diagonal.yaml"); }
Test(checkpoint, seed_beam_explicit_meshmatrixmass) { check_seed("beam_explicit_meshmatrixmass.yaml"); }
Test(checkpoint, seed_beam_implicit_cg) { check_seed("beam_implicit_cg.yaml"); }
Test(checkpoint, seed_beam_implicit_ldl) { check_seed("beam_implicit_ldl.yaml"); }
/* PCG with the multigrid built once: a resumed run rebuilds the hierarchy where it was built. */
Test(checkpoint, beam_implicit_amg) { check_seed_short("beam_implicit_amg.yaml"); }
Test(checkpoint, seed_cloth_loader) { check_seed("cloth_loader.yaml"); }
Test(checkpoint, seed_falling_particles) { check_seed("falling_particles.yaml"); }
Test(checkpoint, seed_particles_on_plane) { check_seed("particles_on_plane.scn"); }
Test(checkpoint, seed_sofa_beam_implicit) { check_seed("sofa/beam_implicit.scn"); }
Test(checkpoint, seed_sofa_cloth_loader) { check_seed("sofa/cloth_loader.scn"); }
Test(checkpoint, seed_sofa_fem_beam) { check_seed_short("sofa/fem_beam.scn"); }
Test(checkpoint, seed_sofa_hexa_beam) { check_seed_short("sofa/hexa_beam.scn"); }
Test(checkpoint, seed_sofa_membrane) { check_seed("sofa/membrane.scn"); }

/* A 3x3x6 spring beam, base fixed, under gravity, integrated by `solver`
 * (the solver components' YAML lines). */
static const char *beam_with(const char *name, double dt, const char *solver)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: %g\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, ODESolver.Forward,\n"
             "        LinearSolver.Direct, LinearSolver.Iterative, Mass, Topology,\n"
             "        SolidMechanics.Spring, Constraint.Projective]}\n"
             "  children:\n"
             "    - name: Beam\n"
             "      objects:\n"
             "%s"
             "        - MechanicalObject: {name: dofs}\n"
             "        - RegularGridTopology: {name: grid, n: [3, 3, 6], min: [-1, -1, 0],\n"
             "                                max: [1, 1, 5]}\n"
             "        - UniformMass: {totalMass: 5}\n"
             "        - FixedProjectiveConstraint: {indices: [0, 1, 2, 3, 4, 5, 6, 7, 8]}\n"
             "        - MeshSpringForceField: {stiffness: 400, damping: 0.5}\n",
             dt, solver);
    return test_write_temp(name, scene);
}

Test(checkpoint, newmark_with_warm_started_cg)
{
    check_resume(beam_with("newmark.yaml", 0.01,
                           "        - NewmarkImplicitSolver: {rayleighStiffness: 0.05, "
                           "rayleighMass: 0.05}\n"
                           "        - CGLinearSolver: {iterations: 8, tolerance: 1e-12, "
                           "threshold: 1e-20, warmStart: true}\n"));
}

Test(checkpoint, euler_implicit_with_warm_started_cg)
{
    check_resume(beam_with("euler_cg_warm.yaml", 0.01,
                           "        - EulerImplicitSolver: {rayleighStiffness: 0.1, "
                           "rayleighMass: 0.1}\n"
                           "        - CGLinearSolver: {iterations: 6, tolerance: 1e-12, "
                           "threshold: 1e-20, warmStart: true}\n"));
}

Test(checkpoint, runge_kutta4)
{
    check_resume(beam_with("rk4.yaml", 0.001, "        - RungeKutta4Solver: {}\n"));
}

Test(checkpoint, central_difference)
{
    check_resume(beam_with("central.yaml", 0.001, "        - CentralDifferenceSolver: {}\n"));
}

Test(checkpoint, euler_explicit)
{
    check_resume(beam_with("explicit.yaml", 0.001, "        - EulerExplicitSolver: {symplectic: false}\n"));
}

Test(checkpoint, static_newton_raphson)
{
    check_resume(beam_with("static.yaml", 0.01,
                           "        - StaticSolver: {newtonSolver: \"@newton\"}\n"
                           "        - NewtonRaphsonSolver: {name: newton, "
                           "maxNbIterationsNewton: 3}\n"
                           "        - SparseLDLSolver: {}\n"));
}

Test(checkpoint, pcg_with_jacobi)
{
    check_resume(beam_with("pcg.yaml", 0.01,
                           "        - EulerImplicitSolver: {rayleighStiffness: 0.1, "
                           "rayleighMass: 0.1}\n"
                           "        - PCGLinearSolver: {iterations: 5, tolerance: 1e-14, "
                           "preconditioner: \"@jacobi\"}\n"
                           "        - JacobiPreconditioner: {name: jacobi}\n"));
}

Test(checkpoint, sparse_cholesky_and_lu)
{
    check_resume(beam_with("chol.yaml", 0.01, "        - EulerImplicitSolver: {}\n"
                                        "        - SparseCholeskySolver: {}\n"));
    check_resume(beam_with("lu.yaml", 0.01, "        - EulerImplicitSolver: {}\n"
                                      "        - SparseLUSolver: {}\n"));
}

Test(checkpoint, refuses_another_scene_or_options)
{
    char cg[512], ldl[512];
    snprintf(cg, sizeof cg, "%s/scenes/beam_implicit_cg.yaml", SETTEE_SOURCE_DIR);
    snprintf(ldl, sizeof ldl, "%s/scenes/beam_implicit_ldl.yaml", SETTEE_SOURCE_DIR);
    cr_assert_eq(settee(cg, "-n 10 --checkpoint cg.ck"), 0, "%s", out);
    cr_assert_eq(settee(ldl, "-n 20 --resume cg.ck --export-state x.json"), 1, "%s", out);
    cr_assert(strstr(out, "checkpoint 'cg.ck' was written for another scene file: '"), "%s",
              out);
    cr_assert(strstr(out, "beam_implicit_cg.yaml' (hash "), "%s", out);
    /* Same file, other --set: the message names the options (issue 31). */
    cr_assert_eq(settee(cg, "-n 20 --resume cg.ck --set /Beam/dofs.restScale=1.5"), 1, "%s",
                 out);
    cr_assert(strstr(out, "checkpoint 'cg.ck' was written with other options: no --set and no "
                          "--dt; this run has --set /Beam/dofs.restScale=1.5"),
              "%s", out);
    /* Not a checkpoint; beyond -n. */
    cr_assert_eq(settee(cg, "-n 20 --resume /dev/null"), 1, "%s", out);
    cr_assert(strstr(out, "'/dev/null' is not a settee checkpoint"), "%s", out);
    cr_assert_eq(settee(cg, "-n 5 --resume cg.ck"), 2, "%s", out);
    cr_assert(strstr(out, "is at step 10, beyond the 5 steps asked"), "%s", out);
    /* The failed resumes left no export behind. */
    cr_assert_null(read_in_dir("x.json"));
}

Test(checkpoint, written_every_n_steps_and_atomically)
{
    char cg[512];
    snprintf(cg, sizeof cg, "%s/scenes/falling_particles.yaml", SETTEE_SOURCE_DIR);
    /* Every 3 steps of 7: the last one written is the end's (step 7). */
    cr_assert_eq(settee(cg, "-n 7 --checkpoint p.ck --checkpoint-every 3"), 0, "%s", out);
    char *text = read_in_dir("p.ck");
    cr_assert(text && strstr(text, "\nsteps: 7\n"), "%s", text ? text : "(none)");
    free(text);
    /* No temporary file is left beside it. */
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c tmp", dir);
    cr_assert_eq(test_run(cmd, out, sizeof out), 1, "temporary files left: %s", out);
    cr_assert_eq(settee(cg, "--checkpoint-every 3"), 2, "%s", out);
    cr_assert(strstr(out, "--checkpoint-every goes with --checkpoint FILE"), "%s", out);
}

/* Ctrl-C: SIGINT during a long run writes the checkpoint and exits 130;
 * resuming gives the uninterrupted result. */
Test(checkpoint, sigint_writes_a_checkpoint)
{
    char scene[512], cmd[4096];
    snprintf(scene, sizeof scene, "%s/scenes/beam_implicit_ldl.yaml", SETTEE_SOURCE_DIR);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && SETTEE_PLUGIN_PATH=%s %s run '%s' -n 100000 --no-progress "
             "--checkpoint int.ck & pid=$!; sleep 1; kill -INT $pid; wait $pid; echo rc=$?",
             dir, SETTEE_BUILD_PLUGIN_DIR, SETTEE_CLI, scene);
    test_run(cmd, out, sizeof out);
    cr_assert(strstr(out, "rc=130"), "%s", out);
    cr_assert(strstr(out, "written to int.ck; continue with --resume int.ck"), "%s", out);
    char *text = read_in_dir("int.ck");
    cr_assert(text, "no checkpoint");
    char *p = strstr(text, "\nsteps: ");
    cr_assert(p);
    unsigned long steps = strtoul(p + 8, NULL, 10);
    free(text);
    cr_assert(steps > 0 && steps < 100000, "steps %lu", steps);
    char args[128];
    snprintf(args, sizeof args, "-n %lu --export-state a.json", steps + 7);
    cr_assert_eq(settee(scene, args), 0, "%s", out);
    snprintf(args, sizeof args, "-n %lu --resume int.ck --export-state b.json", steps + 7);
    cr_assert_eq(settee(scene, args), 0, "%s", out);
    cr_assert(same_files("a.json", "b.json"));
}

/* ---- --export-state's topologies, --export-state-every ---- */

Test(checkpoint, export_state_topologies_and_every)
{
    const char *scene = test_write_temp("grid.yaml",
                                        "format: settee/1\n"
                                        "root:\n"
                                        "  objects:\n"
                                        "    - RequiredPlugin: {pluginName: [Topology]}\n"
                                        "  children:\n"
                                        "    - name: G\n"
                                        "      objects:\n"
                                        "        - MechanicalObject: {name: dofs}\n"
                                        "        - RegularGridTopology: {name: grid, n: [2, 2, 2],\n"
                                        "            min: [0, 0, 0], max: [1, 1, 1]}\n"
                                        "        - MeshTopology: {name: mesh, tetrahedra: [[0, 1, 2, 4]]}\n");
    cr_assert_eq(settee(scene, "-n 5 --export-state s.json --export-state-every 2"), 0, "%s",
                 out);
    char *text = read_in_dir("s.json");
    cr_assert(text);
    cr_assert(strstr(text, "\"steps\": 5,"), "%s", text);
    cr_assert(strstr(text, "], \"topologies\": [\n {\"path\": \"/G/grid\",\n"), "%s", text);
    cr_assert(strstr(text, "  \"quads\": [[0, 1, 3, 2], [4, 5, 7, 6], [0, 1, 5, 4], "
                           "[2, 3, 7, 6], [0, 2, 6, 4], [1, 3, 7, 5]],\n"
                           "  \"tetrahedra\": [],\n"
                           "  \"hexahedra\": [[0, 1, 3, 2, 4, 5, 7, 6]]},\n"
                           " {\"path\": \"/G/mesh\",\n"
                           "  \"edges\": [[0, 1], [0, 2], [0, 4], [1, 2], [1, 4], [2, 4]],\n"),
              "%s", text);
    cr_assert(strstr(text, "  \"tetrahedra\": [[0, 1, 2, 4]],\n  \"hexahedra\": []}\n]}\n"),
              "%s", text);
    free(text);
    /* Steps 2 and 4, named after the step. */
    for (int k = 2; k <= 4; k += 2) {
        char name[32];
        snprintf(name, sizeof name, "s_%d.json", k);
        text = read_in_dir(name);
        cr_assert(text, "%s missing", name);
        char want[32];
        snprintf(want, sizeof want, "\"steps\": %d,", k);
        cr_assert(strstr(text, want), "%s", text);
        free(text);
    }
    text = read_in_dir("s_3.json");
    cr_assert_null(text);
}

/* --output goes on across a resume: the files are numbered on, the PVD
 * lists them all, and they equal the uninterrupted run's. */
Test(checkpoint, resume_with_output_continues_the_series)
{
    char scene[512];
    snprintf(scene, sizeof scene, "%s/scenes/beam_implicit_cg.yaml", SETTEE_SOURCE_DIR);
    cr_assert_eq(settee(scene, "-n 30 --output a --every 10"), 0, "%s", out);
    cr_assert_eq(settee(scene, "-n 20 --output b --every 10 --checkpoint o.ck"), 0, "%s", out);
    cr_assert_eq(settee(scene, "-n 30 --output b --every 10 --resume o.ck"), 0, "%s", out);
    cr_assert(same_files("a/Beam.pvd", "b/Beam.pvd"));
    cr_assert(same_files("a/Beam3.vtu", "b/Beam3.vtu"));
    char *text = read_in_dir("b/summary.json");
    cr_assert(text && strstr(text, "\"resumed_at\": 20,"), "%s", text ? text : "(none)");
    free(text);
}

/* summary.json's iteration counts: per frame, the CG iterations of the
 * steps since the previous frame, i.e. the sums of nbIterations read after
 * each step (--collect, run by run). */
Test(checkpoint, summary_counts_the_solver_iterations)
{
    char scene[512];
    snprintf(scene, sizeof scene, "%s/scenes/beam_implicit_cg.yaml", SETTEE_SOURCE_DIR);
    unsigned long its[5] = {0};
    for (int k = 1; k <= 4; k++) {
        char args[128];
        snprintf(args, sizeof args, "-n %d --collect /Beam/linearSolver.nbIterations", k);
        cr_assert_eq(settee(scene, args), 0, "%s", out);
        char *p = strstr(out, "\"/Beam/linearSolver.nbIterations\": ");
        cr_assert(p, "%s", out);
        its[k] = strtoul(p + strlen("\"/Beam/linearSolver.nbIterations\": "), NULL, 10);
        cr_assert(its[k] > 0);
    }
    cr_assert_eq(settee(scene, "-n 4 --output it --every 2"), 0, "%s", out);
    char *text = read_in_dir("it/summary.json");
    cr_assert(text);
    char want[256];
    snprintf(want, sizeof want,
             "\"step\": 2,\n%*s\"time\"", 6, "");
    char *f2 = strstr(text, want);
    cr_assert(f2, "%s", text);
    snprintf(want, sizeof want, "\"/Beam/linearSolver\": %lu\n", its[1] + its[2]);
    cr_assert(strstr(f2, want), "want %s in %s", want, f2);
    char *f4 = strstr(f2, "\"step\": 4,");
    cr_assert(f4);
    snprintf(want, sizeof want, "\"/Beam/linearSolver\": %lu\n", its[3] + its[4]);
    cr_assert(strstr(f4, want), "want %s in %s", want, f4);
    free(text);
}

/* A file written as the run goes (WriteState) restarts at a resume: it
 * holds the resumed part, from the checkpoint's time, and a warning says so. */
Test(checkpoint, resume_restarts_state_files_with_a_warning)
{
    const char *scene = test_write_temp("ws.yaml",
                                        "format: settee/1\n"
                                        "root:\n"
                                        "  gravity: [0, -9.81, 0]\n"
                                        "  dt: 0.01\n"
                                        "  objects:\n"
                                        "    - RequiredPlugin: {pluginName: [ODESolver.Forward, "
                                        "Mass, Playback]}\n"
                                        "  children:\n"
                                        "    - name: P\n"
                                        "      objects:\n"
                                        "        - EulerExplicitSolver: {symplectic: true}\n"
                                        "        - MechanicalObject: {position: [[0, 0, 0]]}\n"
                                        "        - UniformMass: {totalMass: 1}\n"
                                        "        - WriteState: {filename: ws_state.txt}\n");
    cr_assert_eq(settee(scene, "-n 3 --checkpoint w.ck"), 0, "%s", out);
    cr_assert_eq(settee(scene, "-n 5 --resume w.ck"), 0, "%s", out);
    cr_assert(strstr(out, "WriteState1: the run was resumed from a checkpoint: the file it "
                          "writes was started again"),
              "%s", out);
    char path[700];
    snprintf(path, sizeof path, "%.*s/ws_state.txt", (int)(strrchr(scene, '/') - scene), scene);
    char *text = test_read_file(path);
    cr_assert(text && !strncmp(text, "T= 0.029999999999999999\n", 24), "%s", text ? text : "-");
    cr_assert(strstr(text, "T= 0.040000000000000001\n"), "%s", text);
    free(text);
}

/* Solvers with memory that landed with the catalogue and the Lagrangian
 * constraints: BDF's history and step counters, the constraints' warm
 * start, the collision pipeline (contacts recomputed from the state). */
Test(checkpoint, bdf_order_2)
{
    check_resume(beam_with("bdf.yaml", 0.01,
                           "        - BDFOdeSolver: {order: 2}\n"
                           "        - NewtonRaphsonSolver: {name: newton}\n"
                           "        - SparseLDLSolver: {}\n"));
}

Test(checkpoint, lagrangian_pendulums_and_contact)
{
    check_seed("pendulum_lagrangian.yaml");
    check_seed("compound_pendulum_lagrangian.yaml");
    check_seed("collision_sphere_drop.yaml");
}

/* A preconditioner rebuilt only every update_step steps holds a factor of
 * an earlier matrix: the checkpoint keeps where it was built, and the
 * resumed run builds the same stale factor (checkpoint at 400, last build
 * at 391 or 397). */
Test(checkpoint, stale_preconditioners)
{
    check_resume(beam_with("pcg_stale_ldl.yaml", 0.01,
                           "        - EulerImplicitSolver: {rayleighStiffness: 0.1}\n"
                           "        - PCGLinearSolver: {iterations: 5, tolerance: 1e-14, "
                           "preconditioner: \"@ldl\", update_step: 10}\n"
                           "        - SparseLDLSolver: {name: ldl}\n"));
    check_resume(beam_with("pcg_stale_jacobi.yaml", 0.01,
                           "        - EulerImplicitSolver: {rayleighStiffness: 0.1}\n"
                           "        - PCGLinearSolver: {iterations: 5, tolerance: 1e-14, "
                           "preconditioner: \"@jacobi\", update_step: 7}\n"
                           "        - JacobiPreconditioner: {name: jacobi}\n"));
}

/* Issue 32: a checkpoint carries a CRC-32C of its bytes, verified before
 * anything is restored: one flipped bit in a vector, a file cut short and a
 * format 1 checkpoint (no checksum) are refused with their reason; a FIFO
 * given to --resume is refused without blocking. */
Test(checkpoint, checksum_is_verified_before_restoring)
{
    char cg[512], cmd[1400];
    snprintf(cg, sizeof cg, "%s/scenes/falling_particles.yaml", SETTEE_SOURCE_DIR);
    cr_assert_eq(settee(cg, "-n 5 --checkpoint p.ck"), 0, "%s", out);
    char *text = read_in_dir("p.ck");
    cr_assert(text && strstr(text, "\nformat: 5\n"), "%s", text ? text : "(none)");
    free(text);
    /* flip one bit of the last vector byte before the trailer */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && n=$(stat -c %%s p.ck) && cp p.ck bit.ck && "
             "printf '\\245' | dd of=bit.ck bs=1 seek=$((n - 40)) conv=notrunc status=none && "
             "head -c $((n - 100)) p.ck > cut.ck && sed 's/^format: 5$/format: 1/' p.ck > "
             "old.ck && mkfifo fifo.ck",
             dir);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
    cr_assert_eq(settee(cg, "-n 10 --resume bit.ck --export-state x.json"), 1, "%s", out);
    cr_assert(strstr(out, "checkpoint 'bit.ck' is damaged: it records the CRC-32C "), "%s", out);
    cr_assert(strstr(out, "nothing was restored"), "%s", out);
    cr_assert_eq(settee(cg, "-n 10 --resume cut.ck"), 1, "%s", out);
    cr_assert(strstr(out, "checkpoint 'cut.ck' is damaged or cut short"), "%s", out);
    cr_assert_eq(settee(cg, "-n 10 --resume old.ck"), 1, "%s", out);
    cr_assert(strstr(out, "checkpoint 'old.ck' has format 1; this settee reads format 5 (format 1 "
                          "had no checksum)"),
              "%s", out);
    cr_assert_eq(settee(cg, "-n 10 --resume fifo.ck"), 1, "%s", out);
    cr_assert(strstr(out, "'fifo.ck' is not a settee checkpoint: not a regular file"), "%s", out);
    cr_assert_null(read_in_dir("x.json"));
    /* the good one resumes */
    cr_assert_eq(settee(cg, "-n 10 --resume p.ck"), 0, "%s", out);
}

/* Issue 32: a checkpoint that cannot be written says so, not "state". */
Test(checkpoint, unwritable_checkpoint_is_named_as_such)
{
    char cg[512];
    snprintf(cg, sizeof cg, "%s/scenes/falling_particles.yaml", SETTEE_SOURCE_DIR);
    cr_assert_eq(settee(cg, "-n 1 --checkpoint /nonexistent/x.ck"), 1, "%s", out);
    cr_assert(strstr(out, "cannot write the checkpoint '/nonexistent/x.ck': No such file or "
                          "directory"),
              "%s", out);
}

/* A state resized without a topology: ParticleSource, in a node with no
 * container, grows the state from t = 0.1 s by waves of its 4 centres
 * every 0.05 s; at step 25 (t = 0.25) it holds 12 points, and the
 * scene starts with 1. The resumed run resizes the state, restores the
 * source's clock, last wave and noise before the systems, and ends
 * byte-identical to the uninterrupted run. */
Test(checkpoint, state_resized_without_topology)
{
    const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  gravity: [0, -9.81, 0]\n"
        "  dt: 0.01\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, SofaSphFluid]}\n"
        "    - DefaultAnimationLoop: {}\n"
        "  children:\n"
        "    - name: Fluid\n"
        "      objects:\n"
        "        - EulerExplicitSolver: {symplectic: true}\n"
        "        - MechanicalObject: {name: dofs, position: [[0, 0, 0]]}\n"
        "        - UniformMass: {totalMass: 1}\n"
        "        - ParticleSource: {translation: [0, 1, 0], velocity: [0, -1, 0],\n"
        "            center: [[0, 0, 0], [0.1, 0, 0], [0, 0, 0.1], [0.1, 0, 0.1]],\n"
        "            delay: 0.05, start: 0.1, stop: 10, addNoise: true}\n";
    cr_assert(test_write_in_dir(dir, "resized.yaml", yaml));
    check_resume_at("resized.yaml", 40, 25);
    char *text = read_in_dir("atcheckpoint.json");
    cr_assert_not_null(text);
    int points = test_exported_points(text);
    cr_assert_eq(points, 12, "%d points at the checkpoint: %s", points, text);
    free(text);
}

/* A non-linear mapping keeps what its last apply computed (DistanceMapping:
 * each edge's direction, its Jacobian, the geometric stiffness), which the
 * next step's forces and system use before any apply. A resumed run must
 * not take them from the initial positions: the mappings are applied again
 * at the restored state, as the interrupted run's last step left them. A
 * chain of 3 edges under gravity, held at one end, whose lengths are kept
 * by springs on the mapped distances. */
Test(checkpoint, nonlinear_mapping_state)
{
    const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  gravity: [0, -9.81, 0]\n"
        "  dt: 0.01\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,\n"
        "                       Topology, Constraint.Projective, Mapping.NonLinear,\n"
        "                       SolidMechanics.Spring]}\n"
        "    - DefaultAnimationLoop: {}\n"
        "  children:\n"
        "    - name: chain\n"
        "      objects:\n"
        "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
        "        - CGLinearSolver: {iterations: 200, tolerance: 1e-12, threshold: 1e-18}\n"
        "        - MechanicalObject: {name: dofs, position: [0,0,0, 1,0,0, 2,0,0, 3,0,0]}\n"
        "        - EdgeSetTopologyContainer: {name: edges, edges: [0,1, 1,2, 2,3]}\n"
        "        - DiagonalMass: {totalMass: 3}\n"
        "        - FixedProjectiveConstraint: {indices: [0]}\n"
        "      children:\n"
        "        - name: lengths\n"
        "          objects:\n"
        "            - MechanicalObject: {name: out, template: Vec1d}\n"
        "            - DistanceMapping: {input: \"@../dofs\", output: \"@out\",\n"
        "                                topology: \"@../edges\"}\n"
        "            - RestShapeSpringsForceField: {stiffness: 1000}\n";
    cr_assert(test_write_in_dir(dir, "chain.yaml", yaml));
    check_resume_at("chain.yaml", 60, 25);
}
