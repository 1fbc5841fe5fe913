/* bench_threads.c - issue 33: settee's default of one thread for the linear
 * algebra, measured the way it was found: whole `settee run` processes of a
 * 4x4x11 hexahedral beam (HexahedronFEMForceField, method large) with
 * EulerImplicitSolver and SparseLDLSolver (CHOLMOD), while another process
 * keeps one core busy (a spinning child started by the benchmark).
 *
 * Usage: bench_threads [STEPS] [REPS]   (default 500 steps, 7 repetitions);
 * SETTEE_BENCH_CLI names another settee program to time (default: the one
 * next to this benchmark), e.g. a build from before the fix.
 *
 * Configurations, run in turn in each repetition so that all see the same
 * load of the shared machine:
 *   default  - OMP_*, GOMP_*, OPENBLAS_*, SETTEE_THREADS all unset;
 *   pinned   - OMP_NUM_THREADS=1 (the reporter's reference);
 *   limit1   - OMP_THREAD_LIMIT=1 OPENBLAS_NUM_THREADS=1 (what settee now
 *              hands to libgomp and OpenBLAS by default);
 *   old      - OMP_THREAD_LIMIT=1024 OPENBLAS_NUM_THREADS=<cores>: the
 *              libraries' own defaults, i.e. settee before the fix, where
 *              CHOLMOD's num_threads(4) loops started an OpenMP team of 4.
 * Printed per configuration: the median wall time and CPU time (user +
 * system, from wait4) of the process, in ms, and default/pinned. On a
 * machine loaded beyond its cores the CPU time is the figure to read: the
 * scheduler shares the cores per thread, so a process with spinning extra
 * threads takes a larger share from the others and its wall time hides
 * what it costs. The exit status is 1 when a run fails. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

extern char **environ;

static const char scene_text[] = BENCH_LDL_BEAM_YAML;

#define NCONF 4
static const char *const conf_name[NCONF] = {"default", "pinned", "limit1", "old"};

/* The environment of configuration k: ours without the thread variables,
 * plus the configuration's. */
static char **make_env(int k, char *slots, size_t slot_size)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 4, sizeof *env);
    if (!env)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = environ[i];
        if (!strncmp(e, "OMP_", 4) || !strncmp(e, "GOMP_", 5) || !strncmp(e, "OPENBLAS_", 9) ||
            !strncmp(e, "SETTEE_THREADS=", 15))
            continue;
        env[m++] = environ[i];
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (k == 1) {
        env[m++] = "OMP_NUM_THREADS=1";
    } else if (k == 2) {
        env[m++] = "OMP_THREAD_LIMIT=1";
        env[m++] = "OPENBLAS_NUM_THREADS=1";
    } else if (k == 3) {
        env[m++] = "OMP_THREAD_LIMIT=1024";
        snprintf(slots, slot_size, "OPENBLAS_NUM_THREADS=%ld", cores > 0 ? cores : 1);
        env[m++] = slots;
    }
    env[m] = NULL;
    return env;
}

/* Runs one `settee run`; wall and CPU time in ms; false when it fails. */
static bool run_once(const char *cli, const char *scene, const char *steps, int k, double *wall,
                     double *cpu)
{
    char slot[64];
    char **env = make_env(k, slot, sizeof slot);
    if (!env)
        return false;
    char *argv[] = {(char *)cli, "run", (char *)scene, "-n", (char *)steps, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    double t0 = bench_now_ms();
    int rc = posix_spawn(&pid, cli, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    if (rc != 0)
        return false;
    int status = 0;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            return false;
    *wall = bench_now_ms() - t0;
    *cpu = 1e3 * ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) +
           1e-3 * ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
    const char *steps = argc > 1 ? argv[1] : "500";
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    if (reps < 1 || reps > 1000 || atoi(steps) < 1) {
        fprintf(stderr, "usage: bench_threads [STEPS] [REPS]\n");
        return 2;
    }
    /* The CLI next to this program (build/bin/). */
    char cli[4096];
    ssize_t len = readlink("/proc/self/exe", cli, sizeof cli - 16);
    if (len <= 0)
        return 1;
    cli[len] = '\0';
    char *slash = strrchr(cli, '/');
    strcpy(slash ? slash + 1 : cli, "settee");
    const char *other = getenv("SETTEE_BENCH_CLI");
    if (other && *other)
        snprintf(cli, sizeof cli, "%s", other);
    char scene[] = "/tmp/bench_threads_XXXXXX.yaml";
    int fd = mkstemps(scene, 5);
    if (fd < 0 || write(fd, scene_text, sizeof scene_text - 1) != (ssize_t)(sizeof scene_text - 1))
        return 1;
    close(fd);

    /* The busy core: a child that spins until killed. */
    pid_t busy = fork();
    if (busy == 0) {
        for (volatile unsigned long i = 0;; i++)
            ;
    }
    double *wall = calloc((size_t)reps * NCONF, sizeof *wall);
    double *cpu = calloc((size_t)reps * NCONF, sizeof *cpu);
    int status = wall && cpu && busy > 0 ? 0 : 1;
    for (int r = 0; status == 0 && r < reps; r++)
        for (int k = 0; k < NCONF && status == 0; k++)
            if (!run_once(cli, scene, steps, k, &wall[k * reps + r], &cpu[k * reps + r])) {
                fprintf(stderr, "bench_threads: `%s run %s -n %s` failed (%s)\n", cli, scene,
                        steps, conf_name[k]);
                status = 1;
            }
    if (busy > 0) {
        kill(busy, SIGKILL);
        waitpid(busy, NULL, 0);
    }
    unlink(scene);
    if (status == 0) {
        double w[NCONF], c[NCONF];
        for (int k = 0; k < NCONF; k++) {
            w[k] = median(&wall[k * reps], (size_t)reps);
            c[k] = median(&cpu[k * reps], (size_t)reps);
        }
        for (int k = 0; k < NCONF; k++)
            printf("bench=threads config=%s steps=%s reps=%d wall_ms=%.0f cpu_ms=%.0f "
                   "wall_vs_pinned=%.2f\n",
                   conf_name[k], steps, reps, w[k], c[k], w[k] / w[1]);
    }
    free(wall);
    free(cpu);
    return status;
}
