/* test_multithreading.c - the MultiThreading plugin: its parallel twins give
 * their sequential classes' results to the bit at one thread and at several
 * (the same per-vertex sums in the same order), the same from run to run,
 * and start the number of threads settee's rules give (default 1,
 * SETTEE_THREADS, nbThreads, TaskSchedulerSettings). */
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

#include "fem_test_util.h"

static void mt_open_rt(test_rt *t)
{
    fem_open_rt(t);
    st_error err = {0};
    cr_assert_eq(st_runtime_load_plugin(t->rt, "SolidMechanics.Spring", &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(st_runtime_load_plugin(t->rt, "MultiThreading", &err), ST_OK, "%s", err.msg);
}

/* A 3x3x8 grid beam (hexahedra cut into tetrahedra), fixed at z = 0, under
 * gravity, implicit Euler with CG; FF is the force field line, SOLVER the
 * linear solver's class, EXTRA objects of the root. */
static const char *beam_scene(const char *ff, const char *solver, const char *extra)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "<Node name='root' gravity='0 -9.81 0' dt='0.02'>"
             "<DefaultAnimationLoop/>%s"
             "<Node name='beam'>"
             "<EulerImplicitSolver rayleighStiffness='0.1' rayleighMass='0.1'/>"
             "<%s iterations='40' tolerance='1e-12' threshold='1e-20'/>"
             "<RegularGridTopology name='grid' n='3 3 8' min='0 0 0' max='1 1 4'/>"
             "<MechanicalObject name='dofs'/>"
             "<UniformMass totalMass='2'/>"
             "%s"
             "<BoxROI name='box' box='-0.1 -0.1 -0.1 1.1 1.1 0.1'/>"
             "<FixedProjectiveConstraint indices='@box.indices'/>"
             "</Node></Node>",
             extra, solver, ff);
    return buf;
}

/* Positions after n steps, 3 per point (caller frees). */
static double *positions_after(test_rt *t, const char *xml, int n, size_t *len)
{
    st_scene *s = fem_load_xml(t, xml);
    fem_step(s, n, 0.02);
    st_component *dofs = test_find_object(s, "dofs");
    cr_assert_not_null(dofs);
    const st_mstate *ms = (const st_mstate *)dofs;
    *len = 3 * ms->n;
    double *x = malloc(*len * sizeof *x);
    memcpy(x, ms->position.r, *len * sizeof *x);
    st_scene_destroy(&s);
    return x;
}

/* The twin par of class seq, with the attributes attrs, at 1 to 4 threads,
 * twice each, against seq: the same positions to the bit after 15 steps. */
static void twin_same_as_sequential(const char *seq, const char *par, const char *attrs)
{
    test_rt t;
    mt_open_rt(&t);
    char seq_ff[512], par_ff[512];
    snprintf(seq_ff, sizeof seq_ff, "<%s name='FEM' %s/>", seq, attrs);
    size_t n0, n1;
    double *x0 = positions_after(&t, beam_scene(seq_ff, "CGLinearSolver", ""), 15, &n0);
    /* the beam moved: the comparison means something */
    size_t nr;
    double *rest = positions_after(&t, beam_scene(seq_ff, "CGLinearSolver", ""), 0, &nr);
    double moved = 0;
    for (size_t i = 0; i < n0; i++)
        moved = fmax(moved, fabs(x0[i] - rest[i]));
    free(rest);
    cr_assert(moved > 1e-3, "%s %s: the beam moved %g", seq, attrs, moved);
    for (int threads = 1; threads <= 4; threads++) {
        snprintf(par_ff, sizeof par_ff, "<%s name='FEM' nbThreads='%d' %s/>", par, threads,
                 attrs);
        for (int run = 0; run < 2; run++) {
            double *x1 = positions_after(&t, beam_scene(par_ff, "ParallelCGLinearSolver", ""),
                                         15, &n1);
            cr_assert_eq(n1, n0);
            cr_assert(memcmp(x0, x1, n0 * sizeof *x0) == 0,
                      "%s %s, %d threads, run %d: positions differ from the sequential "
                      "class's",
                      par, attrs, threads, run);
            free(x1);
        }
    }
    free(x0);
    test_rt_close(&t);
}

static void same_as_sequential(const char *method, const char *extra)
{
    char attrs[256];
    snprintf(attrs, sizeof attrs, "youngModulus='5000' poissonRatio='0.3' method='%s' %s", method,
             extra);
    twin_same_as_sequential("TetrahedronFEMForceField", "ParallelTetrahedronFEMForceField", attrs);
}

Test(multithreading, tetra_large_bit_identical) { same_as_sequential("large", ""); }
Test(multithreading, tetra_small_bit_identical) { same_as_sequential("small", ""); }
Test(multithreading, tetra_polar_bit_identical) { same_as_sequential("polar", ""); }
Test(multithreading, tetra_svd_bit_identical) { same_as_sequential("svd", ""); }
Test(multithreading, tetra_plastic_stiffness_update_bit_identical)
{
    same_as_sequential("large", "plasticMaxThreshold='0.1' plasticYieldThreshold='1e-6' "
                                "updateStiffnessMatrix='true'");
}
Test(multithreading, tetra_assembled_bit_identical)
{
    same_as_sequential("large", "computeGlobalMatrix='true'");
}

Test(multithreading, hexa_bit_identical)
{
    static const char *const methods[] = {"large", "polar", "small"};
    for (int m = 0; m < 3; m++) {
        char attrs[128];
        snprintf(attrs, sizeof attrs, "youngModulus='3000' poissonRatio='0.35' method='%s'",
                 methods[m]);
        twin_same_as_sequential("HexahedronFEMForceField", "ParallelHexahedronFEMForceField",
                                attrs);
    }
    twin_same_as_sequential("HexahedronFEMForceField", "ParallelHexahedronFEMForceField",
                            "youngModulus='3000' method='large' updateStiffnessMatrix='true'");
}

Test(multithreading, springs_bit_identical)
{
    twin_same_as_sequential("MeshSpringForceField", "ParallelMeshSpringForceField",
                            "stiffness='400' damping='0.5'");
    /* a chain of springs down the beam's first column, and across it */
    twin_same_as_sequential("SpringForceField", "ParallelSpringForceField",
                            "spring='0 9 500 0.5 0.5  9 18 500 0.5 0.5  18 27 500 0.5 0.5  "
                            "27 36 500 0.5 0.5  36 45 500 0.5 0.5  0 4 300 0 1.4  4 13 300 0 1.4  "
                            "13 22 300 0 1.4  22 31 300 0 1.4  31 40 300 0 1.4  8 17 200 0.1 0.5'");
}

/* ParallelCGLinearSolver on the assembled matrix (rows on 3 threads) and
 * matrix-free: CGLinearSolver's iterates, to the bit. */
Test(multithreading, cg_assembled_and_matrix_free_bit_identical)
{
    test_rt t;
    mt_open_rt(&t);
    const char *ff = "<TetrahedronFEMForceField name='FEM' youngModulus='5000' method='large'/>";
    /* SOFA's ParallelCompressedRowSparseMatrix* (ParallelCGLinearSolver's
     * own) are the assembled product with its rows on the threads */
    static const char *const templates[] = {"CompressedRowSparseMatrixMat3x3d",
                                            "GraphScattered", "CompressedRowSparseMatrixMat3x3d",
                                            "CompressedRowSparseMatrixd"};
    static const char *const par_templates[] = {
        "CompressedRowSparseMatrixMat3x3d", "GraphScattered",
        "ParallelCompressedRowSparseMatrixMat3x3d", "ParallelCompressedRowSparseMatrixd"};
    for (int k = 0; k < 4; k++) {
        char seq[256], par[256];
        snprintf(seq, sizeof seq, "CGLinearSolver template='%s'", templates[k]);
        snprintf(par, sizeof par, "ParallelCGLinearSolver nbThreads='3' template='%s'",
                 par_templates[k]);
        size_t n0, n1;
        double *x0 = positions_after(&t, beam_scene(ff, seq, ""), 10, &n0);
        double *x1 = positions_after(&t, beam_scene(ff, par, ""), 10, &n1);
        cr_assert_eq(n0, n1);
        cr_assert(memcmp(x0, x1, n0 * sizeof *x0) == 0, "%s: positions differ", par_templates[k]);
        free(x0);
        free(x1);
    }
    test_rt_close(&t);
}

/* scenes/parallel_fem_block.yaml through `settee run --threads N`: the
 * same collected positions at 1 and 3 threads. */
Test(multithreading, cli_threads_same_result)
{
    char dir[512], out[4096], cmd[2048];
    test_make_dir(dir, sizeof dir, "mt-cli");
    char *json[2];
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd,
                 "%s run %s/scenes/parallel_fem_block.yaml -n 8 --threads %d --no-progress "
                 "--collect y=/Block/dofs.position[500][1] --collect x=/Block/dofs.position[700][0] "
                 "--collect-json %s/c%d.json",
                 SETTEE_CLI, SETTEE_SOURCE_DIR, k ? 3 : 1, dir, k);
        cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
        cr_assert(strstr(out, k ? "on 3 threads" : "on 1 thread"), "%s", out);
        char path[600];
        snprintf(path, sizeof path, "%s/c%d.json", dir, k);
        json[k] = test_read_file(path);
        cr_assert_not_null(json[k]);
    }
    cr_assert_str_eq(json[0], json[1]);
    cr_assert(strstr(json[0], "\"y\": 0.") || strstr(json[0], "\"y\": -0."), "%s", json[0]);
    free(json[0]);
    free(json[1]);
    test_remove_dir(dir);
}

/* One add_force and one add_dforce of the twin at 3 threads against the
 * sequential class's, on a deformed state, bit for bit. */
Test(multithreading, tetra_force_and_dforce_products)
{
    test_rt t;
    mt_open_rt(&t);
    st_scene *a = fem_load_xml(
        &t, beam_scene("<TetrahedronFEMForceField name='FEM' youngModulus='5000' method='large'/>",
                       "CGLinearSolver", ""));
    st_scene *b = fem_load_xml(
        &t, beam_scene("<ParallelTetrahedronFEMForceField name='FEM' youngModulus='5000' "
                       "method='large' nbThreads='3'/>",
                       "CGLinearSolver", ""));
    st_component *fa = test_find_object(a, "FEM"), *fb = test_find_object(b, "FEM");
    const st_mstate *ms = (const st_mstate *)test_find_object(a, "dofs");
    const size_t n = 3 * ms->n;
    double *x = malloc(n * sizeof *x), *dx = malloc(n * sizeof *dx), *v = calloc(n, sizeof *v);
    double *f1 = calloc(n, sizeof *f1), *f2 = calloc(n, sizeof *f2);
    for (size_t i = 0; i < n; i++) {
        x[i] = ms->position.r[i] + 0.05 * sin(1.7 * (double)i);
        dx[i] = cos(0.3 * (double)i);
    }
    st_mparams mp = {0};
    for (size_t i = 0; i < n; i++)
        f1[i] = f2[i] = 0.25 * (double)i; /* added to, not overwritten */
    fa->cls->forcefield->add_force(fa, &mp, f1, x, v);
    fb->cls->forcefield->add_force(fb, &mp, f2, x, v);
    cr_assert(memcmp(f1, f2, n * sizeof *f1) == 0, "add_force differs");
    double fmax_abs = 0;
    for (size_t i = 0; i < n; i++)
        fmax_abs = fmax(fmax_abs, fabs(f1[i] - 0.25 * (double)i));
    cr_assert(fmax_abs > 1.0, "the deformation gives forces (%g)", fmax_abs);
    fa->cls->forcefield->add_dforce(fa, &mp, f1, dx, -0.7, 0.0);
    fb->cls->forcefield->add_dforce(fb, &mp, f2, dx, -0.7, 0.0);
    cr_assert(memcmp(f1, f2, n * sizeof *f1) == 0, "add_dforce differs");
    free(x), free(dx), free(v), free(f1), free(f2);
    st_scene_destroy(&a);
    st_scene_destroy(&b);
    test_rt_close(&t);
}

/* The steps of a twin on 3 threads allocate nothing: the pool, the
 * buffers and the adjacency are made at init. */
Test(multithreading, steps_allocate_nothing)
{
    test_rt t;
    mt_open_rt(&t);
    st_scene *s = fem_load_xml(
        &t, beam_scene("<ParallelTetrahedronFEMForceField name='FEM' youngModulus='5000' "
                       "nbThreads='3'/>",
                       "ParallelCGLinearSolver nbThreads='3' template='GraphScattered'", ""));
    fem_step(s, 1, 0.02);
    unsigned long before = st_alloc_count();
    fem_step(s, 5, 0.02);
    cr_assert_eq(st_alloc_count(), before, "%lu allocations in 5 steps",
                 st_alloc_count() - before);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Threads of this process. */
static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

/* The threads a scene starts: the count after init minus before. */
static int threads_started(const char *ff_attrs, const char *root_extra)
{
    test_rt t;
    mt_open_rt(&t);
    char ff[256];
    snprintf(ff, sizeof ff,
             "<ParallelTetrahedronFEMForceField name='FEM' youngModulus='5000' %s/>", ff_attrs);
    int before = thread_count();
    st_scene *s = fem_load_xml(&t, beam_scene(ff, "CGLinearSolver", root_extra));
    int during = thread_count();
    st_scene_destroy(&s);
    int after = thread_count();
    cr_assert_eq(after, before, "the pool's threads end with the scene");
    test_rt_close(&t);
    return during - before;
}

Test(multithreading, one_thread_by_default)
{
    unsetenv("SETTEE_THREADS");
    cr_assert_eq(threads_started("", ""), 0);
}

Test(multithreading, settee_threads_reaches_the_pool)
{
    setenv("SETTEE_THREADS", "3", 1); /* what `settee run --threads 3` sets */
    cr_assert_eq(threads_started("", ""), 2);
    cr_assert_eq(threads_started("nbThreads='2'", ""), 1, "the component's own count wins");
}

Test(multithreading, task_scheduler_settings_decides)
{
    unsetenv("SETTEE_THREADS");
    cr_assert_eq(threads_started("nbThreads='4'", "<TaskSchedulerSettings nbThreads='2'/>"), 1);
    cr_assert_eq(threads_started("nbThreads='4'", "<TaskSchedulerSettings/>"), 3,
                 "nbThreads 0 leaves the component's");
    /* -n: the cores minus n, at least 1 (SOFA's rule) */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int want = cores - 1 > 1 ? (int)cores - 1 : 1;
    cr_assert_eq(threads_started("", "<TaskSchedulerSettings nbThreads='-1'/>"), want - 1);
    cr_assert_eq(threads_started("nbThreads='-4096'", ""), 0);
}

Test(multithreading, unknown_scheduler_type_is_an_error)
{
    test_rt t;
    mt_open_rt(&t);
    const char *xml = beam_scene(
        "<ParallelTetrahedronFEMForceField name='FEM' taskSchedulerType='fancy'/>",
        "CGLinearSolver", "");
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(t.rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "taskSchedulerType") && strstr(err.msg, "fancy"), "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* BeamLinearMapping_mt: 6 free Rigid3d frames along x carrying 301 points
 * (local s from 0 to 5, offsets across that vary from point to point) that
 * hold the mass, under gravity, implicit Euler with CG: apply, applyJ and
 * applyJT (the mapped mass in every CG product, the weights' torques) run
 * on the threads. Frames and points after 10 steps are the sequential
 * BeamLinearMapping's to the bit at 1 to 4 threads (TaskSchedulerSettings),
 * twice each. */
static const char *beam_mapping_scene(const char *mapping, int threads)
{
    static char buf[32768];
    int n = snprintf(buf, sizeof buf,
                     "<Node name='root' gravity='0 -9.81 0' dt='0.01'><DefaultAnimationLoop/>"
                     "<TaskSchedulerSettings nbThreads='%d'/>"
                     "<Node name='frames'><EulerImplicitSolver/>"
                     "<CGLinearSolver iterations='30' tolerance='1e-14' threshold='1e-20'/>"
                     "<MechanicalObject name='frames' template='Rigid3d' position='",
                     threads);
    for (int j = 0; j < 6; j++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%d 0 0 0 0 0 1 ", j);
    n += snprintf(buf + n, sizeof buf - (size_t)n,
                  "'/><UniformMass totalMass='0.6'/><FixedProjectiveConstraint indices='0'/>"
                  "<Node name='skin'>"
                  "<MechanicalObject name='dofs' position='");
    for (int i = 0; i <= 300; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%.17g %.17g %.17g ", i / 60.0,
                      0.2 * sin(0.37 * i), 0.15 * cos(0.91 * i));
    snprintf(buf + n, sizeof buf - (size_t)n,
             "'/><UniformMass totalMass='3'/><%s input='@../frames' output='@dofs'/>"
             "</Node></Node></Node>",
             mapping);
    return buf;
}

Test(multithreading, beam_linear_mapping_bit_identical)
{
    test_rt t;
    mt_open_rt(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_load_plugin(t.rt, "Mapping.Linear", &err), ST_OK, "%s", err.msg);
    size_t n0, n1, nr;
    double *x0 = positions_after(&t, beam_mapping_scene("BeamLinearMapping", 1), 10, &n0);
    double *rest = positions_after(&t, beam_mapping_scene("BeamLinearMapping", 1), 0, &nr);
    cr_assert_eq(n0, 3 * 301);
    /* the skin fell and turned about the fixed frame: not a translation */
    double dmin = INFINITY, dmax = 0;
    for (size_t i = 1; i < n0; i += 3) {
        dmin = fmin(dmin, rest[i] - x0[i]);
        dmax = fmax(dmax, rest[i] - x0[i]);
    }
    cr_assert(dmax > 1e-2 && dmax - dmin > 1e-2, "fall %g to %g", dmin, dmax);
    free(rest);
    for (int threads = 1; threads <= 4; threads++)
        for (int run = 0; run < 2; run++) {
            double *x1 =
                positions_after(&t, beam_mapping_scene("BeamLinearMapping_mt", threads), 10, &n1);
            cr_assert_eq(n1, n0);
            cr_assert(memcmp(x0, x1, n0 * sizeof *x0) == 0,
                      "BeamLinearMapping_mt, %d threads, run %d: positions differ from "
                      "BeamLinearMapping's",
                      threads, run);
            free(x1);
        }
    free(x0);
    test_rt_close(&t);
}
