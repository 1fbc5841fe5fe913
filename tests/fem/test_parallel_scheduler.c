/* test_parallel_scheduler.c - AnimationLoopParallelScheduler, DataExchange
 * and MeanComputation (SOFA's MultiThreading plugin; kernel built-ins):
 * each child scene with its own loop steps as it would alone, the same at
 * any thread count; DataExchange copies after each step; MeanComputation
 * keeps SOFA's running sum; bad set-ups are refused by name. */
#include <dirent.h>
#include <stdio.h>

#include "fem_test_util.h"

/* A falling hexahedral beam fixed at z = 0 with its own loop, as a child
 * scene (or, with root, as a whole scene). */
static int beam(char *buf, size_t size, const char *name, double young, bool root)
{
    return snprintf(buf, size,
                    "<Node name='%s'%s>%s"
                    "<EulerImplicitSolver/>"
                    "<CGLinearSolver iterations='25' tolerance='1e-12' threshold='1e-20'/>"
                    "<RegularGridTopology name='grid' n='3 3 6' min='0 0 0' max='1 1 3'/>"
                    "<MechanicalObject name='dofs'/><UniformMass totalMass='1'/>"
                    "<HexahedronFEMForceField youngModulus='%g' poissonRatio='0.3'/>"
                    "<BoxROI name='box' box='-0.1 -0.1 -0.1 1.1 1.1 0.1'/>"
                    "<FixedProjectiveConstraint indices='@box.indices'/></Node>",
                    name, root ? " gravity='0 -9.81 0' dt='0.01'" : "",
                    root ? "<DefaultAnimationLoop/>" : "<DefaultAnimationLoop/>", young);
}

/* Two beams A (E 3000) and B (E 8000) under the scheduler, and a result
 * scene C whose states a and b receive their positions and whose
 * MeanComputation feeds out (tags MeanOutput). */
static const char *scheduled_scene(int threads)
{
    static char buf[8192];
    int n = snprintf(buf, sizeof buf,
                     "<Node name='root' gravity='0 -9.81 0' dt='0.01'>"
                     "<AnimationLoopParallelScheduler name='loop' nbThreads='%d'/>",
                     threads);
    n += beam(buf + n, sizeof buf - (size_t)n, "A", 3000, false);
    n += beam(buf + n, sizeof buf - (size_t)n, "B", 8000, false);
    snprintf(buf + n, sizeof buf - (size_t)n,
             "<Node name='C'><DefaultAnimationLoop/>"
             "<RegularGridTopology n='3 3 6' min='0 0 0' max='1 1 3'/>"
             "<MechanicalObject name='a'/><MechanicalObject name='b'/>"
             "<MeanComputation name='mean'/>"
             "<MechanicalObject name='out' position='@mean.result' tags='MeanOutput'/></Node>"
             "<DataExchange template='vector&lt;Vec3d&gt;' from='@A/dofs.position' "
             "to='@C/a.position'/>"
             "<DataExchange template='vector&lt;Vec3d&gt;' from='@B/dofs.position' "
             "to='@C/b.position'/></Node>");
    return buf;
}

static const double *pos(st_scene *s, const char *path)
{
    st_component *c = NULL;
    st_error err = {0};
    cr_assert_eq(st_node_resolve(s->root, path, ST_LINK_ANY, &c, &err), ST_OK, "%s: %s", path,
                 err.msg);
    return ((const st_mstate *)c)->position.r;
}

enum { NPT = 54, NSTEPS = 12 };

/* Each child moves as the same beam alone under a DefaultAnimationLoop at
 * the root (bit for bit), at 1, 2 and 3 threads. */
Test(parallel_scheduler, children_step_as_alone_at_any_thread_count)
{
    test_rt t;
    fem_open_rt(&t);
    double alone[2][3 * NPT];
    const double youngs[2] = {3000, 8000};
    for (int k = 0; k < 2; k++) {
        char xml[4096];
        beam(xml, sizeof xml, "root", youngs[k], true);
        st_scene *s = fem_load_xml(&t, xml);
        fem_step(s, NSTEPS, 0.01);
        memcpy(alone[k], pos(s, "/dofs"), sizeof alone[k]);
        st_scene_destroy(&s);
    }
    cr_assert(fabs(alone[0][3 * NPT - 2]) > 1e-3, "beam A sags: %g", alone[0][3 * NPT - 2]);
    cr_assert(memcmp(alone[0], alone[1], sizeof alone[0]) != 0, "A and B differ");
    for (int threads = 1; threads <= 3; threads++) {
        st_scene *s = fem_load_xml(&t, scheduled_scene(threads));
        fem_step(s, NSTEPS, 0.01);
        cr_assert(memcmp(pos(s, "/A/dofs"), alone[0], sizeof alone[0]) == 0,
                  "%d threads: A differs from the beam alone", threads);
        cr_assert(memcmp(pos(s, "/B/dofs"), alone[1], sizeof alone[1]) == 0,
                  "%d threads: B differs from the beam alone", threads);
        cr_assert(fabs(st_node_time(s->root) - NSTEPS * 0.01) < 1e-12, "root time %g",
                  st_node_time(s->root));
        st_scene_destroy(&s);
    }
    test_rt_close(&t);
}

/* After each step C/a and C/b hold A's and B's positions; out follows
 * MeanComputation's result, computed at the beginning of step k from the
 * values exchanged after step k - 1 and added to the previous result
 * (SOFA's): out_k = (out_{k-1} + A_{k-1} + B_{k-1}) / 2. */
Test(parallel_scheduler, data_exchange_and_mean_computation)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, scheduled_scene(2));
    double prev_out[3 * NPT], prev_a[3 * NPT], prev_b[3 * NPT];
    for (int k = 1; k <= NSTEPS; k++) {
        fem_step(s, 1, 0.01);
        const double *A = pos(s, "/A/dofs"), *B = pos(s, "/B/dofs");
        cr_assert(memcmp(pos(s, "/C/a"), A, 3 * NPT * sizeof *A) == 0, "step %d: C/a != A", k);
        cr_assert(memcmp(pos(s, "/C/b"), B, 3 * NPT * sizeof *B) == 0, "step %d: C/b != B", k);
        const double *out = pos(s, "/C/out");
        if (k >= 2)
            for (int i = 0; i < 3 * NPT; i++) {
                double want = ((prev_out[i] + prev_a[i]) + prev_b[i]) * 0.5;
                cr_assert(out[i] == want, "step %d, value %d: out %.17g, SOFA's running sum %.17g",
                          k, i, out[i], want);
            }
        memcpy(prev_out, out, sizeof prev_out);
        memcpy(prev_a, A, sizeof prev_a);
        memcpy(prev_b, B, sizeof prev_b);
    }
    /* the running sum drifts away from the mean: 2/1 of it here, in the end */
    const double *A = pos(s, "/A/dofs"), *B = pos(s, "/B/dofs"), *out = pos(s, "/C/out");
    const int v = 3 * NPT - 2; /* the free end's y */
    cr_assert(fabs(out[v] - 0.5 * (A[v] + B[v])) > 1e-3, "out %g, mean %g", out[v],
              0.5 * (A[v] + B[v]));
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static int threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* nbThreads='3' with three child scenes: two threads besides the caller,
 * ended with the scene; never more threads than children. */
Test(parallel_scheduler, threads_started)
{
    test_rt t;
    fem_open_rt(&t);
    int before = threads_now();
    st_scene *s = fem_load_xml(&t, scheduled_scene(3));
    cr_assert_eq(threads_now() - before, 2);
    st_scene_destroy(&s);
    cr_assert_eq(threads_now(), before);
    s = fem_load_xml(&t, scheduled_scene(8));
    cr_assert_eq(threads_now() - before, 2, "three children: at most three threads");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void refused(const char *xml, const char *what)
{
    test_rt t;
    fem_open_rt(&t);
    st_error err = {0};
    st_scene *s = NULL;
    st_status rc = st_scene_load_string(t.rt, xml, strlen(xml), "bad.scn", &s, &err);
    if (rc == ST_OK)
        rc = st_scene_init(s, &err);
    cr_assert_neq(rc, ST_OK, "accepted: %s", xml);
    cr_assert(strstr(err.msg, what), "'%s' not in: %s", what, err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(parallel_scheduler, bad_setups)
{
    refused("<Node name='root'><DefaultAnimationLoop/><Node name='c'>"
            "<AnimationLoopParallelScheduler/></Node></Node>",
            "put it in the root node");
    refused("<Node name='root'><AnimationLoopParallelScheduler taskSchedulerType='tbb'/></Node>",
            "unknown task scheduler type 'tbb'");
    refused("<Node name='root'><AnimationLoopParallelScheduler/><Node name='c'>"
            "<DefaultAnimationLoop/><MechanicalObject name='x' position='1 2 3'/>"
            "<MechanicalObject name='y' position='0 0 0'/></Node>"
            "<DataExchange template='vector&lt;double&gt;' from='@c/x.position' "
            "to='@c/y.position'/></Node>",
            "DataExchange<vector<double>> is not in settee");
    refused("<Node name='root'><Node name='c'><MeanComputation/>"
            "<MechanicalObject name='o' tags='MeanOutput'/></Node></Node>",
            "nothing to average");
}
