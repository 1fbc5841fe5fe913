/* bench_load.c - issue 31: the time to load and initialise a small scene
 * that names SOFA's modules (a .scn file with RequiredPlugin
 * Sofa.Component.*, one class left to auto-loading as SOFA allows) against
 * its YAML twin (settee's plugin names), as whole `settee check -q`
 * processes, the way a sweep runs its cases.
 *
 * Usage: bench_load [REPS]   (default 15 repetitions); SETTEE_BENCH_CLI names
 * another settee program to time (default: the one next to this benchmark).
 *
 * Configurations, run in turn in each repetition (same machine load):
 *   yaml      - the YAML twin;
 *   scn-warm  - the .scn scene with the plugin index's cache file in place;
 *   scn-cold  - the same, the cache file removed before each run (the first
 *               run after an installation: every plugin opened once);
 *   scn-off   - SETTEE_PLUGIN_CACHE=0: no cache file, each process indexes
 *               every plugin (about what every run cost before the index).
 * The cache file is the benchmark's own (SETTEE_PLUGIN_CACHE in a temporary
 * folder). Printed per configuration: the median wall time in ms and its
 * ratio to yaml. The exit status is 1 when a run fails. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

extern char **environ;

static const char scn_text[] =
    "<?xml version=\"1.0\"?>\n"
    "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -9.81 0\">\n"
    "  <RequiredPlugin name=\"Sofa.Component.ODESolver.Backward\"/>\n"
    "  <RequiredPlugin name=\"Sofa.Component.LinearSolver.Direct\"/>\n"
    "  <RequiredPlugin name=\"Sofa.Component.StateContainer\"/>\n"
    "  <RequiredPlugin name=\"Sofa.Component.Topology.Container.Grid\"/>\n"
    "  <RequiredPlugin name=\"Sofa.Component.Mass\"/>\n"
    "  <RequiredPlugin name=\"Sofa.Component.SolidMechanics.FEM.Elastic\"/>\n"
    "  <RequiredPlugin name=\"Sofa.Component.Constraint.Projective\"/>\n"
    "  <DefaultAnimationLoop/>\n"
    "  <Node name=\"beam\">\n"
    "    <EulerImplicitSolver rayleighStiffness=\"0.1\" rayleighMass=\"0.1\"/>\n"
    "    <SparseLDLSolver template=\"CompressedRowSparseMatrixMat3x3d\"/>\n"
    "    <RegularGridTopology name=\"grid\" n=\"4 4 11\" min=\"0 0 0\" max=\"1 1 5\"/>\n"
    "    <MechanicalObject template=\"Vec3d\"/>\n"
    "    <UniformMass totalMass=\"1\"/>\n"
    "    <HexahedronFEMForceField youngModulus=\"1e5\" poissonRatio=\"0.3\" method=\"large\"/>\n"
    "    <!-- BoxROI (Sofa.Component.Engine.Select) is not required: auto-loaded -->\n"
    "    <BoxROI name=\"box\" box=\"-0.1 -0.1 -0.1 1.1 1.1 0.1\"/>\n"
    "    <FixedProjectiveConstraint indices=\"@box.indices\"/>\n"
    "  </Node>\n"
    "</Node>\n";

static const char yaml_text[] = BENCH_LDL_BEAM_YAML;

#define NCONF 4
static const char *const conf_name[NCONF] = {"yaml", "scn-warm", "scn-cold", "scn-off"};

static bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* Runs `settee check -q scene` with SETTEE_PLUGIN_CACHE=cache; wall ms. */
static bool run_once(const char *cli, const char *scene, const char *cache, double *wall)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env)
        return false;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "SETTEE_PLUGIN_CACHE=", 20) != 0)
            env[m++] = environ[i];
    char var[4200];
    snprintf(var, sizeof var, "SETTEE_PLUGIN_CACHE=%s", cache);
    env[m++] = var;
    env[m] = NULL;
    char *argv[] = {(char *)cli, "check", "-q", (char *)scene, NULL};
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
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return false;
    *wall = bench_now_ms() - t0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 15;
    if (reps < 1 || reps > 10000) {
        fprintf(stderr, "usage: bench_load [REPS]\n");
        return 2;
    }
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
    char dir[] = "/tmp/bench_load_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char scn[64], yaml[64], cache[64];
    snprintf(scn, sizeof scn, "%s/beam.scn", dir);
    snprintf(yaml, sizeof yaml, "%s/beam.yaml", dir);
    snprintf(cache, sizeof cache, "%s/plugin-index", dir);
    if (!write_text(scn, scn_text) || !write_text(yaml, yaml_text))
        return 1;
    double *wall = calloc((size_t)reps * NCONF, sizeof *wall);
    int status = wall ? 0 : 1;
    double warmup;
    /* One run first to build the cache for scn-warm. */
    if (status == 0 && !run_once(cli, scn, cache, &warmup))
        status = 1;
    for (int r = 0; status == 0 && r < reps; r++)
        for (int k = 0; k < NCONF && status == 0; k++) {
            const char *scene = k == 0 ? yaml : scn;
            const char *c = k == 3 ? "0" : cache;
            if (k == 2)
                unlink(cache);
            bool ok = run_once(cli, scene, c, &wall[k * reps + r]);
            if (!ok) {
                fprintf(stderr, "bench_load: `%s check -q %s` failed (%s)\n", cli, scene,
                        conf_name[k]);
                status = 1;
            }
        }
    unlink(scn);
    unlink(yaml);
    unlink(cache);
    rmdir(dir);
    if (status == 0) {
        double w[NCONF];
        for (int k = 0; k < NCONF; k++)
            w[k] = median(&wall[k * reps], (size_t)reps);
        for (int k = 0; k < NCONF; k++)
            printf("bench=load config=%s reps=%d wall_ms=%.1f vs_yaml=%.2f\n", conf_name[k], reps,
                   w[k], w[k] / w[0]);
    }
    free(wall);
    return status;
}
